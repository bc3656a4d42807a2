"""Hypothesis strategies: random valid cases for every op (ranks 1 to 4, negative indices,
duplicates), as ``Case(op, inputs, attrs)`` with inputs in schema order.

Structure (ranks, shapes, axis, index layout) is drawn by hypothesis; the values come from a
numpy Generator seeded by a drawn integer, which keeps generation fast.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx.defs
from hypothesis import strategies as st

from ._helpers import random_values

#: every (op, reduction) pair a case can be drawn for: each op once, the reducing scatters per reduction
REDUCTIONS = ("none", "add", "mul", "max", "min")
VARIANTS = (
    [("Gather", None), ("GatherElements", None), ("GatherND", None), ("Scatter", None)]
    + [("ScatterElements", r) for r in REDUCTIONS]
    + [("ScatterND", r) for r in REDUCTIONS]
    + [("TensorScatter", None)]
)

# ops whose indices may be int32 (GatherND/ScatterND/TensorScatter take int64 only)
INT32_INDEX_OPS = ("Gather", "GatherElements", "Scatter", "ScatterElements")


@dataclass
class Case:
    op: str
    inputs: list
    attrs: dict = field(default_factory=dict)

    def __repr__(self):  # readable falsifying examples
        ins = ", ".join("None" if a is None else f"np.array({a.tolist()!r}, dtype={a.dtype!r})"
                        for a in self.inputs)
        return f"Case({self.op!r}, [{ins}], {self.attrs!r})"


def _indices(rng, shape, size, negative, dup_heavy, dtype):
    """Valid indices in [-size, size-1] for an axis of ``size``."""
    hi = min(size, 2) if dup_heavy else size
    v = rng.integers(0, hi, size=shape)
    if negative:
        v = np.where(rng.random(size=shape) < 0.5, v - size, v)
    return v.astype(dtype)


_dim = st.integers(1, 3)


@st.composite
def _common(draw, op):
    seed = draw(st.integers(0, 2**32 - 1))
    negative = draw(st.booleans())
    dup_heavy = draw(st.booleans())
    index_dtype = np.int64
    if op in INT32_INDEX_OPS:
        index_dtype = draw(st.sampled_from([np.int64, np.int32]))
    return np.random.default_rng(seed), negative, dup_heavy, index_dtype


@st.composite
def gather_case(draw, dtype, **_):
    rng, neg, dup, idt = draw(_common("Gather"))
    r = draw(st.integers(1, 4))
    shape = draw(st.lists(_dim, min_size=r, max_size=r))
    axis = draw(st.integers(-r, r - 1))
    shape[axis] = draw(st.integers(1, 4))
    q = draw(st.integers(0, 3 if r <= 2 else 2))
    ishape = tuple(draw(st.lists(_dim, min_size=q, max_size=q)))
    data = random_values(rng, dtype, shape, nan=True)
    idx = _indices(rng, ishape, shape[axis], neg, dup, idt)
    return Case("Gather", [data, idx], {"axis": axis})


@st.composite
def gather_elements_case(draw, dtype, **_):
    rng, neg, dup, idt = draw(_common("GatherElements"))
    r = draw(st.integers(1, 4))
    shape = draw(st.lists(_dim, min_size=r, max_size=r))
    axis = draw(st.integers(-r, r - 1))
    shape[axis] = draw(st.integers(1, 4))
    ishape = [draw(st.integers(1, s)) for s in shape]
    ishape[axis] = draw(st.integers(1, 4))
    data = random_values(rng, dtype, shape, nan=True)
    idx = _indices(rng, tuple(ishape), shape[axis], neg, dup, idt)
    return Case("GatherElements", [data, idx], {"axis": axis})


def _nd_indices(rng, lead_shape, dims, neg, dup):
    k = len(dims)
    idx = np.empty(tuple(lead_shape) + (k,), dtype=np.int64)
    for j, size in enumerate(dims):
        idx[..., j] = _indices(rng, tuple(lead_shape), size, neg, dup, np.int64)
    return idx


@st.composite
def gather_nd_case(draw, dtype, **_):
    rng, neg, dup, _idt = draw(_common("GatherND"))
    r = draw(st.integers(1, 4))
    shape = draw(st.lists(_dim, min_size=r, max_size=r))
    b = draw(st.integers(0, r - 1))
    k = draw(st.integers(1, r - b))
    extra = draw(st.lists(_dim, min_size=0, max_size=2))
    data = random_values(rng, dtype, shape, nan=True)
    lead = tuple(shape[:b]) + tuple(extra)
    idx = _nd_indices(rng, lead, shape[b:b + k], neg, dup)
    return Case("GatherND", [data, idx], {"batch_dims": b})


@st.composite
def scatter_elements_case(draw, dtype, reduction="none", op="ScatterElements"):
    rng, neg, dup, idt = draw(_common(op))
    r = draw(st.integers(1, 4))
    shape = draw(st.lists(_dim, min_size=r, max_size=r))
    axis = draw(st.integers(-r, r - 1))
    shape[axis] = draw(st.integers(1, 4))
    ishape = [draw(st.integers(1, s)) for s in shape]
    ishape[axis] = draw(st.integers(1, 4))
    small = reduction in ("add", "mul")
    nan = reduction in ("none", "max", "min")
    data = random_values(rng, dtype, shape, small=small, nan=nan)
    idx = _indices(rng, tuple(ishape), shape[axis], neg, dup, idt)
    upd = random_values(rng, dtype, ishape, small=small, nan=nan)
    attrs = {"axis": axis}
    if op == "ScatterElements":
        attrs["reduction"] = reduction
    return Case(op, [data, idx, upd], attrs)


@st.composite
def scatter_case(draw, dtype, **_):
    return draw(scatter_elements_case(dtype, "none", op="Scatter"))


@st.composite
def scatter_nd_case(draw, dtype, reduction="none"):
    rng, neg, dup, _idt = draw(_common("ScatterND"))
    r = draw(st.integers(1, 4))
    shape = draw(st.lists(_dim, min_size=r, max_size=r))
    k = draw(st.integers(1, r))
    lead = tuple(draw(st.lists(_dim, min_size=0, max_size=2)))  # at most 9 index tuples
    small = reduction in ("add", "mul")
    nan = reduction in ("none", "max", "min")
    data = random_values(rng, dtype, shape, small=small, nan=nan)
    idx = _nd_indices(rng, lead, shape[:k], neg, dup)
    upd = random_values(rng, dtype, lead + tuple(shape[k:]), small=small, nan=nan)
    return Case("ScatterND", [data, idx, upd], {"reduction": reduction})


@st.composite
def tensor_scatter_case(draw, dtype, **_):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    r = draw(st.integers(2, 4))
    shape = draw(st.lists(_dim, min_size=r, max_size=r))
    pos = draw(st.integers(1, r - 1))  # the sequence axis is never the batch axis 0
    axis = draw(st.sampled_from([pos, pos - r]))
    shape[pos] = max_seq = draw(st.integers(1, 5))
    seq = draw(st.integers(1, max_seq))
    mode = draw(st.sampled_from(["linear", "circular"]))
    ushape = list(shape)
    ushape[pos] = seq
    cache = random_values(rng, dtype, shape, nan=True)
    update = random_values(rng, dtype, ushape, nan=True)
    with_wi = draw(st.booleans())
    wi = None
    if with_wi:
        hi = max_seq - seq if mode == "linear" else max_seq - 1
        wi = rng.integers(0, hi, size=(shape[0],), endpoint=True).astype(np.int64)
    attrs = {"axis": axis, "mode": mode}
    return Case("TensorScatter", [cache, update, wi], attrs)


STRATEGIES = {
    "Gather": gather_case,
    "GatherElements": gather_elements_case,
    "GatherND": gather_nd_case,
    "Scatter": scatter_case,
    "ScatterElements": scatter_elements_case,
    "ScatterND": scatter_nd_case,
    "TensorScatter": tensor_scatter_case,
}


def case_strategy(op, dtype, reduction=None):
    if reduction is None:
        return STRATEGIES[op](dtype)
    return STRATEGIES[op](dtype, reduction=reduction)


# ONNX input names in schema order, from ONNX itself (not from ops' schemas under test)
INPUT_NAMES = {op: tuple(i.name for i in onnx.defs.get_schema(op, 24 if op == "TensorScatter" else 18).inputs)
               for op in ("Gather", "GatherElements", "GatherND", "ScatterElements", "ScatterND", "TensorScatter")}
INPUT_NAMES["Scatter"] = tuple(i.name for i in onnx.defs.get_schema("Scatter", 10).inputs)
