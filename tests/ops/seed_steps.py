"""The step sequences of the seed examples, written out from the loops of the seed pages
(/work/shared/seeds), never from ``ops.explain``: for each bundled example operator, the
inputs the page gives, and for each step in the page's loop order the source cell, the index
cell, the destination cell, the value that moves and the one-line formula.

The formula lines follow the format documented in ``ops.steps.step_line`` ("N: " and the
formula): a gather "output[i] = data[j] = v   (indices[p] = k)", a scatter
"updates[p] = v → output[i]   (indices[p] = k)", a reduction adds "; output[i] = a + v = b".
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

F32 = np.float32


@dataclass(frozen=True)
class SeedStep:
    source: tuple[str, tuple]       # (tensor, position or slice prefix)
    index: tuple[str, tuple]
    destination: tuple[str, tuple]
    value: object                   # a number, or an array for a slice step
    line: str                       # what `indexflow explain --text` prints for it


@dataclass(frozen=True)
class Seed:
    graph: str                      # bundled example
    node: str                       # the operator's node id
    name: str                       # its name
    op: str
    inputs: tuple
    attrs: dict
    steps: tuple[SeedStep, ...]


def num(x) -> str:
    """A number as the seed pages write it (float32 values at their shortest: 1.1, 2)."""
    x = np.asarray(x)[()]
    if isinstance(x, np.floating):
        return np.format_float_positional(x, trim="-", unique=True)
    return str(int(x))


def nested(a) -> str:
    a = np.asarray(a)
    if a.ndim == 0:
        return num(a)
    return "[" + ", ".join(nested(x) for x in a) + "]"


def pos(p, rank=None) -> str:
    parts = [str(int(i)) for i in p] + [":"] * ((rank or 0) - len(p))
    return "[" + ", ".join(parts) + "]"


def idx_text(v, size) -> str:
    """An index value; a negative one "from the end" of an axis of ``size``."""
    v = int(v)
    return str(v) if v >= 0 else f"{v}, from the end: {size} - {-v} = {v + size}"


# ---------------------------------------------------------------------- Gather-11
def _gather11(node, name, data, indices, axis):
    """output[i{0..q-1}, j{0..r-2}] = input[k, j...] (axis 0);
    output[j0, i{0..q-1}, j{1..}] = input[j0, k, j1...] (axis 1), k = indices[i...]."""
    q, r = indices.ndim, data.ndim
    out_shape = data.shape[:axis] + indices.shape + data.shape[axis + 1:]
    steps = []
    for n, out in enumerate(np.ndindex(out_shape)):
        i = out[axis:axis + q]
        k = int(indices[i])
        src = out[:axis] + (k,) + out[axis + q:]
        v = data[src]
        line = (f"{n + 1}: output{pos(out)} = data{pos(src)} = {num(v)}   "
                f"(indices{pos(i)} = {idx_text(k, data.shape[axis])})")
        steps.append(SeedStep(("data", src), ("indices", i), ("output", out), v, line))
    assert r == 2
    return Seed("gather11_examples", node, name, "Gather", (data, indices), {"axis": axis}, tuple(steps))


GATHER11_AXIS0 = _gather11("axis0_op", "axis0", np.array([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], F32),
                           np.array([[0, 1], [1, 2]]), 0)
GATHER11_AXIS1 = _gather11("axis1_op", "axis1", np.array([[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]], F32),
                           np.array([[0, 2]]), 1)


# ---------------------------------------------------------------------- Scatter-9, ScatterElements
def _elements(graph, node, name, op, data, indices, updates, axis=0, reduction="none"):
    """Scatter-9 / ScatterElements (toolkit page), 2-D, loop over i, j of updates:
    output[indices[i][j]][j] = f(output[indices[i][j]][j], updates[i][j]) if axis = 0,
    output[i][indices[i][j]] = f(output[i][indices[i][j]], updates[i][j]) if axis = 1,
    f the reduction (none: the update replaces the cell)."""
    fold = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "max": max, "min": min}
    sym = {"add": "+", "mul": "×"}
    running = data.copy()
    steps = []
    for n, (i, j) in enumerate(np.ndindex(updates.shape)):
        k = int(indices[i, j])
        k_pos = k + data.shape[axis] if k < 0 else k
        dst = (k_pos, j) if axis == 0 else (i, k_pos)
        v = updates[i, j]
        line = (f"{n + 1}: updates{pos((i, j))} = {num(v)} → output{pos(dst)}   "
                f"(indices{pos((i, j))} = {idx_text(k, data.shape[axis])})")
        if reduction != "none":
            before = running[dst]
            after = F32(fold[reduction](before, v))
            expr = f"{num(before)} {sym[reduction]} {num(v)}" if reduction in sym \
                else f"{reduction}({num(before)}, {num(v)})"
            line += f"; output{pos(dst)} = {expr} = {num(after)}"
            running[dst] = after
        steps.append(SeedStep(("updates", (i, j)), ("indices", (i, j)), ("output", dst), v, line))
    attrs = {"axis": axis} | ({"reduction": reduction} if reduction != "none" else {})
    return Seed(graph, node, name, op, (data, indices, updates), attrs, tuple(steps))


_Z33 = np.zeros((3, 3), F32)
_IDX1 = np.array([[1, 0, 2], [0, 2, 1]])
_UPD1 = np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], F32)
_ROW = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]], F32)
_TWO = np.array([[1.1, 2.1]], F32)
SCATTER9_EX1 = _elements("scatter9_examples", "ex1_op", "example1", "Scatter", _Z33, _IDX1, _UPD1)
SCATTER9_EX2 = _elements("scatter9_examples", "ex2_op", "example2", "Scatter", _ROW, np.array([[1, 3]]), _TWO, 1)
SCATTERELEMENTS = [
    _elements("scatterelements_examples", "ex1_op", "without axis", "ScatterElements", _Z33, _IDX1, _UPD1),
    _elements("scatterelements_examples", "ex2_op", "with axis", "ScatterElements", _ROW, np.array([[1, 3]]), _TWO, 1),
    _elements("scatterelements_examples", "neg_op", "negative indices", "ScatterElements", _ROW,
              np.array([[1, -3]]), _TWO, 1),
] + [_elements("scatterelements_examples", f"{r}_op", f"reduction {r}", "ScatterElements", _ROW,
               np.array([[1, 1]]), _TWO, 1, r) for r in ("add", "mul", "max", "min")]


# ---------------------------------------------------------------------- ScatterND-13
def _scatter_nd(node, name, data, indices, updates):
    """for idx in np.ndindex(indices.shape[:-1]): output[indices[idx]] = updates[idx]
    (one step per idx: an element when k == rank, a slice output[indices[idx], :, ...] when
    k < rank)."""
    steps = []
    for n, idx in enumerate(np.ndindex(indices.shape[:-1])):
        dst = tuple(int(v) for v in indices[idx])
        v = updates[idx]
        line = (f"{n + 1}: updates{pos(idx, updates.ndim)} = {nested(v)} → output{pos(dst, data.ndim)}   "
                f"(indices{pos(idx)} = {pos(dst)})")
        steps.append(SeedStep(("updates", idx), ("indices", idx), ("output", dst), v, line))
    return Seed("scatternd13_examples", node, name, "ScatterND", (data, indices, updates), {}, tuple(steps))


_ND_DATA = np.array([[[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
                     [[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
                     [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]],
                     [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]])
_ND_UPDATES = np.array([[[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]],
                        [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]]])
SCATTERND_EX1 = _scatter_nd("ex1_op", "example1", np.array([1, 2, 3, 4, 5, 6, 7, 8]),
                            np.array([[4], [3], [1], [7]]), np.array([9, 10, 11, 12]))
SCATTERND_EX2 = _scatter_nd("ex2_op", "example2", _ND_DATA, np.array([[0], [2]]), _ND_UPDATES)

SEEDS = [GATHER11_AXIS0, GATHER11_AXIS1, SCATTER9_EX1, SCATTER9_EX2, *SCATTERELEMENTS, SCATTERND_EX1, SCATTERND_EX2]
