"""Dispatch by ONNX op name through the op's :class:`ops.opdef.OpDef`: run its kernel, build its
index map, or infer its output types from its schema and shape rule."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

from . import accel, small_calls
from .checks import fmt_shape
from .errors import OpError
from .index_map import IndexMap
from .limits import check_size, limit_bytes
from .opdef import OpDef
from .opdefs import OPDEFS, get_opdef
from .schema import OpSchema
from .tensor_type import TensorType, is_known


@dataclass(frozen=True)
class _Ports:
    """What every call of one op needs from its OpDef, worked out once: the schema's input
    count, the positions of the required inputs, of data and of the index inputs."""

    opdef: OpDef
    n_inputs: int
    n_required: int
    required: tuple[int, ...]
    data: int
    indices: tuple[int, ...]


_PORTS: dict[str, _Ports] = {}


def _ports(opdef: OpDef) -> _Ports:
    """The :class:`_Ports` of ``opdef`` (OpDefs are constant: made once per op)."""
    known = _PORTS.get(opdef.name)
    if known is None or known.opdef is not opdef:
        ports = opdef.schema.inputs
        known = _PORTS[opdef.name] = _Ports(
            opdef, len(ports), sum(not p.optional for p in ports),
            tuple(i for i, p in enumerate(ports) if not p.optional), opdef.input_index(opdef.data_port),
            tuple(opdef.input_index(p) for p in opdef.index_ports))
    return known


def _arguments(schema: OpSchema, inputs: Sequence[Any], attrs: Mapping[str, Any] | None,
               opset: int | None, ports: _Ports | None = None) -> tuple[list, dict]:
    """``inputs`` padded with None to the schema's length, and the checked attributes
    (:meth:`OpSchema.check_attributes`); OpError for a wrong input count or a missing required
    input."""
    op_name = schema.name
    inputs = list(inputs)
    n_all = len(schema.inputs) if ports is None else ports.n_inputs
    n_required = sum(not p.optional for p in schema.inputs) if ports is None else ports.n_required
    if not n_required <= len(inputs) <= n_all:
        names = ", ".join(p.name + ("?" if p.optional else "") for p in schema.inputs)
        raise OpError(f"{op_name}: expected inputs ({names}), got {len(inputs)}")
    if len(inputs) < n_all:
        inputs += [None] * (n_all - len(inputs))
    required = range(n_all) if ports is None else ports.required
    for i in required:
        if inputs[i] is None and not schema.inputs[i].optional:
            raise OpError(f"{op_name}: input {schema.inputs[i].name} is missing", port=schema.inputs[i].name)
    return inputs, schema.check_attributes(attrs, opset)


def _check_output_size(opdef: OpDef, inputs: list, attrs: Mapping[str, Any]) -> None:
    """SizeLimitError (:mod:`ops.limits`) when the output ``inputs`` would give is larger than
    the cap, before the kernel allocates it. Inputs whose shapes do not fit are left to the
    kernel, which says what is wrong in its own words.

    A scatter's output has the shape of its data (past_cache); a gather's dimensions are all
    dimensions of data and indices, so when the product of those (each at least 1) times the
    widest item (16 bytes) fits the cap, so does the output, and its shape is not worked out
    here (a small call's overhead; the kernel checks the shapes anyway)."""
    ports = _ports(opdef)
    data = inputs[ports.data]
    limit = limit_bytes()
    if opdef.writes:
        bound = _WIDEST_ITEM * (data.size if type(data) is np.ndarray else prod(np.shape(data)))
        if bound <= limit:
            return
    else:
        bound = _WIDEST_ITEM
        for v in (data, *(inputs[i] for i in ports.indices)):
            if type(v) is np.ndarray and v.size:  # no dimension is 0: the product is the size
                bound *= v.size
                continue
            for d in np.shape(v) if v is not None else ():
                bound *= d if d > 1 else 1
        if bound <= limit:
            return
    shapes = [None if v is None else np.shape(v) for v in inputs]
    try:
        out_shape = opdef.output_shape(*shapes, **attrs)
    except (OpError, TypeError, ValueError, IndexError):
        return
    dtype = getattr(data, "dtype", None)
    dtype = np.asarray(data).dtype if not isinstance(dtype, np.dtype) else dtype
    if dtype.kind in "OUS":
        dtype = np.dtype(object)  # strings are held as object arrays: a pointer per element
    check_size(f"{opdef.name}: output", out_shape, dtype)


#: The plans of repeated small calls (:mod:`ops.small_calls`).
_PLANS_BY_KEY = small_calls.PLANS

#: Bytes of the widest element a tensor may have (complex128).
_WIDEST_ITEM = 16


def run_op(op_name: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None = None) -> np.ndarray:
    """Run ``op_name`` on ``inputs`` (schema order; None for an omitted optional input).
    Attributes not given take the schema default. An output larger than the size cap
    (:mod:`ops.limits`) is refused with SizeLimitError before anything is allocated.

    A call whose op has a plan for its shapes, dtypes and attributes (:mod:`ops.small_calls`)
    runs the plan; the first call with that key, and any call the plan declines (a bad index),
    takes the long path below."""
    call_key = small_calls.key(op_name, inputs, attrs, accel.switched_on())
    if call_key is not None:
        known = _PLANS_BY_KEY.get(call_key, False)
        if known:
            plan, nbytes = known
            if nbytes <= limit_bytes():
                out = plan(*inputs)
                if out is not None:
                    return out
    else:
        known = None
    out = _run_long(op_name, inputs, attrs)
    if known is False:  # the first call with this key, accepted: make its plan
        opdef = OPDEFS[op_name]
        plan = opdef.plan(*inputs, **opdef.schema.check_attributes(attrs, None)) if opdef.plan else None
        small_calls.remember(call_key, plan, out.nbytes)
    return out


def _run_long(op_name: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None) -> np.ndarray:
    """run_op's long path: every check, then the op's kernel."""
    ports = _PORTS.get(op_name)
    if ports is None or ports.opdef is not OPDEFS.get(op_name):
        ports = _ports(get_opdef(op_name))  # get_opdef raises the "unknown op" error
    opdef = ports.opdef
    inputs = list(inputs)
    if len(inputs) == ports.n_inputs and all(inputs[i] is not None for i in ports.required):
        attrs = opdef.schema.check_attributes(attrs, None)  # the common case: every input given
    else:
        inputs, attrs = _arguments(opdef.schema, inputs, attrs, None, ports)
    data = inputs[ports.data]
    if type(data) is np.ndarray:  # the size cap, quickly: the bound of _check_output_size from sizes
        bound = _WIDEST_ITEM * data.size
        if not opdef.writes:
            for i in ports.indices:
                v = inputs[i]
                bound = bound * v.size if type(v) is np.ndarray and v.size and data.size else -1
        if not 0 <= bound <= limit_bytes():
            _check_output_size(opdef, inputs, attrs)
    else:
        _check_output_size(opdef, inputs, attrs)
    return opdef.kernel(*inputs, **attrs)


def index_map(op_name: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None = None) -> IndexMap:
    """The IndexMap the kernel of ``op_name`` would apply to ``inputs`` (refused like
    :func:`run_op` when the output would be larger than the size cap)."""
    opdef = get_opdef(op_name)
    inputs, attrs = _arguments(opdef.schema, inputs, attrs, None)
    _check_output_size(opdef, inputs, attrs)
    return opdef.index_map(*inputs, **attrs)


def infer_types(op_name: str, input_types: Sequence[TensorType | None], attrs: Mapping[str, Any] | None = None,
                opset: int = 18) -> tuple[TensorType, ...]:
    """Output types of ``op_name`` at ``opset`` without running it.

    Checks that the op exists at the opset, every attribute is allowed there, each input's dtype
    is allowed by its type constraint at that version, the shapes fit together, and a fully
    known output fits the size cap (:mod:`ops.limits`). Raises OpError saying what is wrong.
    """
    opdef = get_opdef(op_name)
    schema = opdef.schema
    schema.require_version(opset)
    input_types, attrs = _arguments(schema, input_types, attrs, opset)
    bound: dict[str, str] = {}
    for port, ttype in zip(schema.inputs, input_types, strict=True):
        if ttype is None:
            continue
        allowed = schema.allowed_dtypes(port.type_param, opset)
        if ttype.dtype not in allowed:
            later = [v for v in schema.versions if ttype.dtype in schema.allowed_dtypes(port.type_param, v)]
            hint = f" (allowed from opset {later[0]})" if later else ""
            raise OpError(
                f"{op_name}: input {port.name} has dtype {ttype.dtype}, not allowed at opset {opset}{hint}; "
                f"allowed: {', '.join(allowed)}", port=port.name
            )
        if port.type_param in bound and bound[port.type_param] != ttype.dtype:
            first = next(p.name for p in schema.inputs if p.type_param == port.type_param)
            raise OpError(f"{op_name}: {port.name} dtype {ttype.dtype} differs from "
                          f"{first} dtype {bound[port.type_param]}", port=port.name)
        bound.setdefault(port.type_param, ttype.dtype)
    shapes = [None if t is None else tuple(t.shape) for t in input_types]
    attrs = {**schema.defaults(), **attrs}  # the semantics of attributes the opset lacks: their defaults
    out_shape = opdef.output_shape(*shapes, **attrs)
    out_dtype = bound[schema.outputs[0].type_param]  # the output shares its type parameter (T) with data
    if opdef.reductions is not None and attrs.get("reduction", "none") != "none":
        opdef.reductions.check(op_name, attrs["reduction"], out_dtype)
    if all(is_known(d) for d in out_shape):   # a named or unknown size is checked when it runs
        check_size(f"{op_name}: output", out_shape, out_dtype)
    return (TensorType(out_dtype, tuple(out_shape)),)


def formula(op_name: str, attrs: Mapping[str, Any], data_rank: int | None = None, indices_rank: int | None = None,
            tuple_length: int | None = None) -> str | None:
    """The defining formula of ``op_name`` for these attributes and ranks (``tuple_length``:
    the last dimension of GatherND/ScatterND indices), written out for people
    (:mod:`ops.formulas`), or None when the op is unknown or has no formula, a needed rank is
    unknown or the attributes do not fit the ranks (the node shows that error elsewhere)."""
    opdef = OPDEFS.get(op_name)
    return None if opdef is None else opdef.formula_text(attrs, data_rank, indices_rank, tuple_length)


__all__ = ["run_op", "index_map", "infer_types", "formula", "fmt_shape"]
