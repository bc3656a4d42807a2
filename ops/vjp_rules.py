"""The array work behind :func:`ops.vjp`: each rule of that module's docstring on an IndexMap.

Every function here sees the target (``data`` / ``past_cache``) and ``grad_output`` as a
``(target_rows, block)`` table and the updates as a ``(len(rows), block)`` table, the map's own
factored form, so a whole block moves per row. The arrays are float32 or float64
(:mod:`ops.vjp` converts float16/bfloat16 before and after), C-contiguous, and never
modified; every result is a new array.

Rows are scattered and gathered by the public kernels themselves (:func:`ops.scatter_nd`
with one index per row, or :func:`ops.scatter_elements` on the flat table when a block is one
element; :func:`ops.gather` on axis 0, or ``np.take`` for one-element blocks), so they take
the same compiled or threaded routes as the forward ops. Duplicate reads of a gather add up in
row-major order of the output (the scatter-add's sequential fold).
"""
from __future__ import annotations

import numpy as np

from .gather import gather
from .index_map import IndexMap
from .scatter_elements import scatter_elements
from .scatter_nd import scatter_nd


def _flat_rows(imap: IndexMap) -> np.ndarray:
    return np.asarray(imap.rows, dtype=np.int64).reshape(-1)


def _scatter_rows(table: np.ndarray, rows: np.ndarray, values: np.ndarray, reduction: str) -> np.ndarray:
    """A copy of ``table`` with row ``rows[i]`` folded with ``values[i]`` in row-major order.
    Blocks of one element go through the flat ScatterElements kernel (one index per element,
    no per-row overhead), wider blocks through ScatterND with one index per row."""
    if table.shape[1] == 1:
        return scatter_elements(table.reshape(-1), rows, values.reshape(-1), 0, reduction).reshape(-1, 1)
    return scatter_nd(table, rows[:, None], values, reduction)


def _take_rows(table: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``table[rows]`` as a new ``(len(rows), block)`` array (``rows`` are in range)."""
    if table.shape[1] == 1:
        return np.take(table.reshape(-1), rows, mode="clip").reshape(-1, 1)
    return gather(table, rows, axis=0)


def _records(table: np.ndarray) -> np.ndarray:
    """A C-contiguous ``(n, block)`` table viewed as ``n`` opaque records (one memcpy per row)."""
    return table.view(np.dtype((np.void, table.shape[1] * table.itemsize))).reshape(-1)


def _put_rows(table: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """``table[rows] = values`` in place (``values``: a scalar or ``(len(rows), block)``)."""
    if table.shape[1] == 1:
        table.reshape(-1)[rows] = values if np.ndim(values) == 0 else values.reshape(-1)
    elif np.ndim(values) == 0:
        table[rows] = values
    else:
        np.put(_records(table), rows, _records(np.ascontiguousarray(values, dtype=table.dtype)), mode="clip")


def _scale_rows(table: np.ndarray, rows: np.ndarray, factors: np.ndarray) -> None:
    """``table[rows] *= factors`` in place, for distinct ``rows`` (``factors``: one row per
    entry of ``rows``, 1-D when the block is one element)."""
    _put_rows(table, rows, _take_rows(table, rows) * factors.reshape(rows.size, table.shape[1]))


def gather_grad(imap: IndexMap, grad: np.ndarray) -> np.ndarray:
    """d data of a gather: zero except where read; every read adds its grad_output there."""
    rows, block = _flat_rows(imap), imap.block
    zeros = np.zeros((imap.target_rows, block), dtype=grad.dtype)
    if rows.size == 0 or block == 0:
        return zeros.reshape(imap.target_shape)
    return _scatter_rows(zeros, rows, grad.reshape(rows.size, block), "add").reshape(imap.target_shape)


def scatter_grads(imap: IndexMap, data: np.ndarray, updates: np.ndarray, grad: np.ndarray,
                  reduction: str) -> tuple[np.ndarray, np.ndarray]:
    """(d data, d updates) of a scatter with ``reduction`` (none, add, mul, max or min)."""
    rows, block = _flat_rows(imap), imap.block
    if rows.size == 0 or block == 0:  # nothing written: the output is data
        return grad.copy(), np.zeros(imap.element_shape, dtype=grad.dtype)
    g = grad.reshape(-1, block)
    u = updates.reshape(rows.size, block)
    d = data.reshape(-1, block)
    rule = {"none": _replace, "add": _add, "mul": _multiply, "max": _extreme, "min": _extreme}[reduction]
    d_data, d_updates = rule(rows, d, u, g, reduction)
    return d_data.reshape(imap.target_shape), d_updates.reshape(imap.element_shape)


def _winners(rows: np.ndarray, target_rows: int) -> np.ndarray:
    """bool per update row: True for the last (row-major) update of its target row, the one a
    scatter with reduction none keeps (what :meth:`IndexMap.winner_mask` says, computed as a
    max-fold of positions by the compiled scatter kernel instead of ``np.maximum.at``)."""
    last = _scatter_rows(np.full((target_rows, 1), -1, dtype=np.int64), rows,
                         np.arange(rows.size, dtype=np.int64)[:, None], "max")
    return last.reshape(-1)[rows] == np.arange(rows.size)


def _replace(rows, d, u, g, _reduction):
    """Written cells of d data are 0; each update gets g at its target unless a later
    duplicate overwrote it (then exactly 0)."""
    d_data = g.copy()
    _put_rows(d_data, rows, 0)
    d_updates = _take_rows(g, rows)
    if np.bincount(rows, minlength=d.shape[0]).max() > 1:
        _put_rows(d_updates, np.flatnonzero(~_winners(rows, d.shape[0])), 0)
    return d_data, d_updates


def _add(rows, d, u, g, _reduction):
    return g.copy(), _take_rows(g, rows)


def _multiply(rows, d, u, g, _reduction):
    """d data = g * the product of the cell's updates; d updates = g * data * the product of
    the cell's other updates. The updates are put in order of their target row (stable, so
    each cell keeps its row-major order): the data and grad_output rows are then read in
    increasing order. An update alone in its cell has no others (1); the updates of shared
    cells get the exclusive prefix product times the exclusive suffix product in their cell."""
    order, cell = _stable_order(rows, d.shape[0])
    first = np.ones(cell.size, dtype=bool)
    first[1:] = cell[1:] != cell[:-1]
    starts = np.flatnonzero(first)
    length = np.diff(np.append(starts, cell.size))
    values = _take_rows(u, order)
    before, after = np.ones_like(values), np.ones_like(values)
    shared = np.flatnonzero(np.repeat(length > 1, length))    # whole cells, still in order
    with np.errstate(all="ignore"):  # inf * 0 is NaN: the derivative there is undefined
        if shared.size:
            rank = shared - np.repeat(starts, length)[shared]      # updates before it in its cell
            rank_back = np.repeat(length, length)[shared] - 1 - rank  # updates after it
            v = _take_rows(values, shared)
            _put_rows(before, shared, _exclusive_products(v, rank))
            _put_rows(after, shared, _exclusive_products(v[::-1], rank_back[::-1])[::-1])
        d_updates = np.empty_like(u)
        _put_rows(d_updates, order, _take_rows(g, cell) * _take_rows(d, cell) * before * after)
        last = starts + length - 1
        d_data = g.copy()
        _scale_rows(d_data, cell[last], _take_rows(before, last) * _take_rows(values, last))
    return d_data, d_updates


def _stable_order(rows: np.ndarray, target_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """(positions sorted by row, stable; the rows in that order). Sorting the unique keys
    ``row << shift | position`` (numpy's vectorised sort of int64 values) is several times
    faster than a stable argsort; without room in int64 for the keys, the stable argsort."""
    shift = max(int(rows.size - 1).bit_length(), 1)
    if target_rows < 2 ** (62 - shift):
        keys = np.sort((rows << shift) | np.arange(rows.size, dtype=np.int64))
        return keys & ((1 << shift) - 1), keys >> shift
    order = np.argsort(rows, kind="stable")
    return order, rows[order]


def _exclusive_products(seq: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """``seq``: (n, block). Row ``i`` of the result: the product of the ``rank[i]`` rows before
    it (1 when ``rank[i] == 0``).

    An inclusive segmented scan by doubling (Hillis-Steele: after the step with stride ``s``,
    row ``i`` holds the product of up to ``2s`` rows ending at ``i``, never crossing a segment
    start), then shifted by one. Only multiplications, so zeros and signs are exact; at most
    ``log2(longest segment)`` vectorised steps. One-element blocks run on 1-D arrays, which
    numpy indexes much faster.
    """
    shape = seq.shape
    inclusive = seq.reshape(-1).copy() if shape[1] == 1 else seq.copy()
    stride, longest = 1, int(rank.max()) if rank.size else 0
    while stride <= longest:
        at = np.flatnonzero(rank >= stride)
        inclusive[at] = inclusive[at] * inclusive[at - stride]
        stride *= 2
    out = np.ones_like(inclusive)
    later = np.flatnonzero(rank > 0)
    out[later] = inclusive[later - 1]
    return out.reshape(shape)


def _extreme(rows, d, u, g, reduction):
    """Contributors equal to the result share its gradient evenly; NaN counts as equal to a NaN
    result. The result is the forward fold itself; only the winning updates are counted and
    written."""
    result = _scatter_rows(d, rows, u, reduction)
    result_at = _take_rows(result, rows)
    data_wins = d == result
    update_wins = u == result_at
    if np.isnan(result).any():
        data_wins |= np.isnan(d) & np.isnan(result)
        update_wins |= np.isnan(u) & np.isnan(result_at)
    block = d.shape[1]
    won = np.flatnonzero(update_wins)                        # flat positions in the updates
    cell = rows[won // block] * block + won % block           # flat cells they won
    counts = np.bincount(cell, minlength=d.size).reshape(d.shape) + data_wins
    share = g / counts.astype(g.dtype)                        # every result has a contributor: counts >= 1
    d_data = np.where(data_wins, share, 0).astype(g.dtype, copy=False)
    d_updates = np.zeros_like(u)
    d_updates.reshape(-1)[won] = share.reshape(-1)[cell]
    return d_data, d_updates


# The per-op rules in OpDef.vjp's calling convention: (imap, inputs, attrs, grad) -> one
# gradient or None per schema input; inputs are complete and cast to the compute dtype.

def gather_vjp(imap: IndexMap, inputs: list, attrs: dict, grad: np.ndarray) -> tuple:
    """Gather, GatherElements, GatherND: (d data, None)."""
    return gather_grad(imap, grad), None


def scatter_vjp(imap: IndexMap, inputs: list, attrs: dict, grad: np.ndarray) -> tuple:
    """Scatter, ScatterElements, ScatterND: (d data, None, d updates)."""
    d_data, d_updates = scatter_grads(imap, inputs[0], inputs[2], grad, attrs.get("reduction", "none"))
    return d_data, None, d_updates


def tensor_scatter_vjp(imap: IndexMap, inputs: list, attrs: dict, grad: np.ndarray) -> tuple:
    """TensorScatter: (d past_cache, d update, None); a write is a reduction none."""
    d_cache, d_update = scatter_grads(imap, inputs[0], inputs[1], grad, "none")
    return d_cache, d_update, None
