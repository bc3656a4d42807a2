"""The array work behind :func:`ops.vjp`: each rule of that module's docstring on an IndexMap.

Every function here sees the target (``data`` / ``past_cache``) and ``grad_output`` as a
``(target_rows, block)`` table and the updates as a ``(len(rows), block)`` table, the map's own
factored form, so a whole block moves per row and no offset array is built per element. The
arrays are float32 or float64 (:mod:`ops.vjp` converts float16/bfloat16 before and after),
C-contiguous, and never modified; every result is a new array.

The scatter-adds and gathers of rows are the public kernels themselves (:func:`ops.scatter_nd`
on the table with one index per row, :func:`ops.gather` on axis 0), so they take the same
compiled or threaded routes as the forward ops. Duplicate reads of a gather add up in
row-major order of the output (the scatter-add's sequential fold).
"""
from __future__ import annotations

import numpy as np

from .gather import gather
from .index_map import IndexMap
from .scatter_nd import scatter_nd


def _flat_rows(imap: IndexMap) -> np.ndarray:
    return np.asarray(imap.rows, dtype=np.int64).reshape(-1)


def _scatter_rows(table: np.ndarray, rows: np.ndarray, values: np.ndarray, reduction: str) -> np.ndarray:
    """A copy of ``table`` with row ``rows[i]`` folded with ``values[i]`` in row-major order."""
    return scatter_nd(table, rows[:, None], values, reduction)


def _take_rows(table: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``table[rows]`` as a new ``(len(rows), block)`` array."""
    return gather(table, rows, axis=0)


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


def winners(rows: np.ndarray, target_rows: int) -> np.ndarray:
    """bool per update row: True for the last (row-major) update of its target row, the one a
    scatter with reduction none keeps. The last position per row is a max-fold of positions."""
    last = _scatter_rows(np.full((target_rows, 1), -1, dtype=np.int64), rows,
                         np.arange(rows.size, dtype=np.int64)[:, None], "max")
    return last[rows, 0] == np.arange(rows.size)


def _replace(rows, d, u, g, _reduction):
    d_data = g.copy()
    d_data[rows] = 0
    d_updates = _take_rows(g, rows)
    counts = np.bincount(rows, minlength=d.shape[0])
    if counts.max() > 1:
        d_updates[~winners(rows, d.shape[0])] = 0
    return d_data, d_updates


def _add(rows, d, u, g, _reduction):
    return g.copy(), _take_rows(g, rows)


def _multiply(rows, d, u, g, _reduction):
    """Each cell's contributors in order (its data value, then its updates in row-major order)
    are laid out contiguously, one segment per written row; the product of the others is the
    exclusive prefix product times the exclusive suffix product within the segment."""
    order = np.argsort(rows, kind="stable")
    sorted_rows = rows[order]
    new = np.ones(rows.size, dtype=bool)
    new[1:] = sorted_rows[1:] != sorted_rows[:-1]
    segment = np.cumsum(new) - 1                              # segment of each sorted update
    firsts = np.flatnonzero(new)
    cells = sorted_rows[firsts]                               # the written rows
    n_seg = cells.size
    data_at = firsts + np.arange(n_seg)                       # where each segment's data value sits
    update_at = np.arange(rows.size) + segment + 1            # where each sorted update sits
    seq = np.empty((rows.size + n_seg, d.shape[1]), dtype=d.dtype)
    seq[data_at] = d[cells]
    seq[update_at] = u[order]
    length = np.diff(np.append(data_at, seq.shape[0]))        # contributors per segment
    start = np.repeat(data_at, length)                        # segment start of each position
    rank = np.arange(seq.shape[0]) - start                    # contributors before it in its segment
    rank_back = length.repeat(length) - 1 - rank              # contributors after it
    before = _exclusive_products(seq, rank)
    after = _exclusive_products(seq[::-1], rank_back[::-1])[::-1]
    with np.errstate(all="ignore"):  # inf * 0 is NaN, as the derivative there is undefined
        grad_seq = g[cells].repeat(length, axis=0) * before * after
    d_data = g.copy()
    d_data[cells] = grad_seq[data_at]
    d_updates = np.empty_like(u)
    d_updates[order] = grad_seq[update_at]
    return d_data, d_updates


def _exclusive_products(seq: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Row ``i``: the product of the ``rank[i]`` rows before it (1 when ``rank[i] == 0``).

    An inclusive segmented scan by doubling (Hillis-Steele: after the step with stride ``s``,
    row ``i`` holds the product of up to ``2s`` rows ending at ``i``, never crossing a segment
    start), then shifted by one. Only multiplications, so zeros and signs are exact; at most
    ``log2(longest segment)`` vectorised steps.
    """
    inclusive = seq.copy()
    stride, longest = 1, int(rank.max()) if rank.size else 0
    with np.errstate(all="ignore"):
        while stride <= longest:
            at = np.flatnonzero(rank >= stride)
            inclusive[at] = inclusive[at] * inclusive[at - stride]
            stride *= 2
    out = np.ones_like(seq)
    later = np.flatnonzero(rank > 0)
    out[later] = inclusive[later - 1]
    return out


def _extreme(rows, d, u, g, reduction):
    """Contributors equal to the result share its gradient evenly; NaN counts as equal to a NaN
    result. The result is the forward fold itself."""
    result = _scatter_rows(d, rows, u, reduction)
    result_at = _take_rows(result, rows)
    data_wins = (d == result) | (np.isnan(d) & np.isnan(result))
    update_wins = (u == result_at) | (np.isnan(u) & np.isnan(result_at))
    # counts in the float dtype: exact up to 2**24 contributors per cell in float32
    counts = _scatter_rows(data_wins.astype(g.dtype), rows, update_wins.astype(g.dtype), "add")
    share = g / counts  # every cell's result equals at least one contributor: counts >= 1
    d_data = np.where(data_wins, share, 0).astype(g.dtype, copy=False)
    d_updates = np.where(update_wins, _take_rows(share, rows), 0).astype(g.dtype, copy=False)
    return d_data, d_updates
