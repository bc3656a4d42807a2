"""The seven indexing ops, described as data (mirrors onnx.defs; a test compares them)."""
from __future__ import annotations

from .dtypes import DTYPE_NAMES, SMALL_DTYPE_NAMES
from .errors import OpError
from .schema import AttrSpec, OpSchema, PortSpec

_ALL = DTYPE_NAMES
_NO_BF16 = tuple(n for n in DTYPE_NAMES if n != "bfloat16")
_TIND = ("int32", "int64")
_I64 = ("int64",)

_T_BF16_FROM_13 = {1: _NO_BF16, 13: _ALL}

_AXIS = AttrSpec("axis", "int", 0, "Which axis to index on; negative counts from the back. Range [-r, r-1].")
#: ScatterElements' and ScatterND's reduction attribute (its values, by opset, are the
#: reductions :mod:`ops.reductions` knows).
REDUCTION = AttrSpec(
    "reduction", "string", "none",
    "How updates combine with the existing value: none (replace; with duplicates the last update "
    "in row-major order wins), add, mul, max, min (folded into the data value in row-major order).",
    since=16,
    allowed={1: ("none",), 16: ("none", "add", "mul"), 18: ("none", "add", "mul", "max", "min")},
)

GATHER = OpSchema(
    name="Gather",
    versions=(1, 11, 13),
    inputs=(PortSpec("data", "T", doc="Tensor of rank r >= 1."),
            PortSpec("indices", "Tind", doc="int32/int64 indices of any rank q, in [-s, s-1].")),
    outputs=(PortSpec("output", "T", doc="Tensor of rank q + r - 1."),),
    attributes=(_AXIS,),
    types={"T": _T_BF16_FROM_13, "Tind": {1: _TIND}},
    doc="output[j0..j(axis-1), i0..i(q-1), j(axis+1)..] = data[j0..j(axis-1), indices[i0..i(q-1)], j(axis+1)..]",
)

GATHER_ELEMENTS = OpSchema(
    name="GatherElements",
    versions=(11, 13),
    inputs=(PortSpec("data", "T", doc="Tensor of rank r >= 1."),
            PortSpec("indices", "Tind", doc="int32/int64 indices, same rank as data.")),
    outputs=(PortSpec("output", "T", doc="Tensor with the shape of indices."),),
    attributes=(_AXIS,),
    types={"T": {11: _NO_BF16, 13: _ALL}, "Tind": {11: _TIND}},
    doc="output[i][j][k] = data[indices[i][j][k]][j][k] (axis 0); the index replaces the axis coordinate.",
)

GATHER_ND = OpSchema(
    name="GatherND",
    versions=(11, 12, 13),
    inputs=(PortSpec("data", "T", doc="Tensor of rank r >= 1."),
            PortSpec("indices", "tensor(int64)",
                     doc="int64 tensor of rank q >= 1; its last dimension k indexes data.")),
    outputs=(PortSpec("output", "T", doc="Tensor of rank q + r - k - 1 - batch_dims."),),
    attributes=(AttrSpec("batch_dims", "int", 0, "Number of leading batch dimensions shared by data and indices.",
                         since=12),),
    types={"T": {11: _NO_BF16, 13: _ALL}, "tensor(int64)": {11: _I64}},
    doc="output[b.., i..] = data[b.., *indices[b.., i.., :]] : each k-tuple of indices picks an element or slice.",
)

SCATTER = OpSchema(
    name="Scatter",
    versions=(9,),
    deprecated_since=11,
    inputs=(PortSpec("data", "T", doc="Tensor of rank r >= 1."),
            PortSpec("indices", "Tind", doc="int32/int64 indices, same rank as data."),
            PortSpec("updates", "T", doc="Same shape as indices.")),
    outputs=(PortSpec("output", "T", doc="Tensor with the shape of data."),),
    attributes=(_AXIS,),
    types={"T": {9: _NO_BF16}, "Tind": {9: _TIND}},
    doc="data[indices[i][j]][j] = updates[i][j] (axis 0). Replaced by ScatterElements from opset 11.",
    kind="scatter",
    replaced_by="ScatterElements",
)

SCATTER_ELEMENTS = OpSchema(
    name="ScatterElements",
    versions=(11, 13, 16, 18),
    inputs=(PortSpec("data", "T", doc="Tensor of rank r >= 1."),
            PortSpec("indices", "Tind", doc="int32/int64 indices, same rank as data."),
            PortSpec("updates", "T", doc="Same shape as indices.")),
    outputs=(PortSpec("output", "T", doc="Tensor with the shape of data."),),
    attributes=(_AXIS, REDUCTION),
    types={"T": {11: _NO_BF16, 13: _ALL}, "Tind": {11: _TIND}},
    doc="output[indices[i][j]][j] = f(output[indices[i][j]][j], updates[i][j]) (axis 0).",
    kind="scatter",
)

SCATTER_ND = OpSchema(
    name="ScatterND",
    versions=(11, 13, 16, 18),
    inputs=(PortSpec("data", "T", doc="Tensor of rank r >= 1."),
            PortSpec("indices", "tensor(int64)", doc="int64 tensor of rank q >= 1; its last dimension k indexes data."),
            PortSpec("updates", "T", doc="Shape indices.shape[:-1] + data.shape[k:].")),
    outputs=(PortSpec("output", "T", doc="Tensor with the shape of data."),),
    attributes=(REDUCTION,),
    types={"T": {11: _NO_BF16, 13: _ALL}, "tensor(int64)": {11: _I64}},
    doc="output[indices[idx]] = f(output[indices[idx]], updates[idx]) for idx over indices.shape[:-1].",
    kind="scatter",
)

TENSOR_SCATTER = OpSchema(
    name="TensorScatter",
    versions=(24,),
    inputs=(PortSpec("past_cache", "T", doc="Cache (batch, ..., max_sequence_length, ...)."),
            PortSpec("update", "T", doc="Like past_cache but sequence_length <= max_sequence_length on axis."),
            PortSpec("write_indices", "tensor(int64)", optional=True,
                     doc="(batch,) write position per sample; 0 if omitted.")),
    outputs=(PortSpec("present_cache", "T", doc="Tensor with the shape of past_cache."),),
    attributes=(
        AttrSpec("mode", "string", "linear",
                 "linear: writes must fit; circular: positions wrap modulo max_sequence_length.",
                 since=24, allowed={24: ("linear", "circular")}),
        AttrSpec("axis", "int", -2, "The sequence axis; not the batch axis 0.", since=24),
    ),
    types={"T": {24: _ALL + SMALL_DTYPE_NAMES}, "tensor(int64)": {24: _I64}},
    doc="present[p.., write_indices[p0] + s, ..] = update[p.., s, ..] for s < sequence_length (circular: mod max).",
    kind="scatter",
)

SCHEMAS: dict[str, OpSchema] = {
    s.name: s for s in (GATHER, GATHER_ELEMENTS, GATHER_ND, SCATTER, SCATTER_ELEMENTS, SCATTER_ND, TENSOR_SCATTER)
}
OP_NAMES: tuple[str, ...] = tuple(SCHEMAS)
#: The newest opset the schemas describe (TensorScatter's 24): the highest an export may declare.
MAX_OPSET: int = max(v for s in SCHEMAS.values() for v in s.versions)


def get_schema(op_name: str) -> OpSchema:
    """The schema of ``op_name`` (ONNX spelling); OpError naming the known ops otherwise."""
    try:
        return SCHEMAS[op_name]
    except KeyError:
        raise OpError(f"unknown op {op_name!r}; known: {', '.join(OP_NAMES)}") from None
