"""Scatter reductions over blocks in rounds of distinct rows: ``ufunc.at`` semantics, faster.

Contract of :func:`fold_rows` (the same as ``ufunc.at(table, rows, values)``)::

    for i in range(len(rows)):            # row-major order
        table[rows[i]] = ufunc(table[rows[i]], values[i])

``ufunc.at`` does this one element at a time under the GIL, through a slow generic path on a
``(-1, block)`` table (benchmarks/README.md). Here each round takes, for every distinct target
row, its *first* remaining update (found with one fancy assignment of positions in reverse order: the
last write wins, so the earliest position survives), and applies those with whole-array
operations: ``take`` the current rows, one vectorised ``ufunc``, ``put`` them back. Rows in a
round are distinct, so the take/ufunc/put split across threads without conflicts. The next
round does the same with the updates left over. Each target row therefore sees its updates in
row-major order, exactly as in the sequential fold: results are bit-identical to ``ufunc.at``
for the dtypes :func:`supports` (float rounding, NaN propagation, signed zeros included), with
one exception: when two NaNs with different payload bits meet in add/mul, numpy's vectorised
loop may keep the other operand's payload than ``ufunc.at`` does (both are NaN).

Rounds cost a few passes over the remaining updates, so they pay off when ``block`` is large
enough to amortise them and duplicates are few. When a round leaves more than half of its
updates (many updates per row), the rest is finished with ``ufunc.at`` on flat offsets, which
continues the same per-row order.
"""
from __future__ import annotations

import numpy as np

from . import buffers, parallel

#: Rounds are used from this block size up; smaller blocks go straight to ``ufunc.at``.
MIN_BLOCK = 4


def supports(dtype: np.dtype) -> bool:
    """Real numeric dtypes (bool, ints, floats incl. float16/bfloat16). Complex is left to
    ``ufunc.at``: its vectorised multiply may round differently from the scalar loop."""
    return not dtype.hasobject and dtype.kind != "c"


def _void_rows(a: np.ndarray) -> np.ndarray:
    """A C-contiguous ``(n, block)`` array viewed as ``n`` opaque records (so put/take copy
    whole rows with one memcpy each)."""
    return a.view(np.dtype((np.void, a.shape[1] * a.dtype.itemsize))).reshape(a.shape[0])


def _apply_distinct(ufunc: np.ufunc, table: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """``table[rows] = ufunc(table[rows], values)`` for distinct ``rows``, in threads."""
    cur = np.empty(values.shape, dtype=table.dtype)
    table_rec, cur_rec = _void_rows(table), _void_rows(cur)

    def part(a: int, b: int) -> None:
        np.take(table, rows[a:b], axis=0, out=cur[a:b], mode="clip")
        with np.errstate(all="ignore"):  # errstate is per thread: set it in the worker too
            ufunc(cur[a:b], values[a:b], out=cur[a:b])
        np.put(table_rec, rows[a:b], cur_rec[a:b], mode="clip")

    parallel.run_parts(part, rows.size, work=values.size)


def _ufunc_at_flat(ufunc: np.ufunc, table: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    block = table.shape[1]
    offsets = (rows[:, None] * block + np.arange(block, dtype=np.int64)).reshape(-1)
    ufunc.at(table.reshape(-1), offsets, np.ascontiguousarray(values).reshape(-1))


def fold_rows(ufunc: np.ufunc, table: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """Fold ``values[i]`` into ``table[rows[i]]`` in row-major order (see module docstring).

    ``table``: C-contiguous ``(n_rows, block)`` of a numeric dtype, modified in place;
    ``rows``: 1-D int64 in ``[0, n_rows)``; ``values``: ``(len(rows), block)`` of table's dtype.
    """
    rows = np.asarray(rows, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=table.dtype)
    m = rows.size
    if m == 0:
        return
    id_type = np.int32 if m < 2**31 else np.int64
    ids = np.arange(m, dtype=id_type)
    first_of = buffers.empty(table.shape[0], id_type)  # only cells written this round are read
    while rows.size:
        n = rows.size
        k = ids[:n]
        first_of[rows[::-1]] = k[::-1]  # last write wins: the earliest position per row survives
        first = np.take(first_of, rows, mode="clip") == k
        winners = np.flatnonzero(first)
        if winners.size == n:
            _apply_distinct(ufunc, table, rows, values)
            return
        _apply_distinct(ufunc, table, rows[winners], np.take(values, winners, axis=0))
        rest = np.flatnonzero(~first)
        rows, values = rows[rest], np.take(values, rest, axis=0)
        if rows.size * 2 > n:  # many updates per row: rounds would not shrink fast enough
            _ufunc_at_flat(ufunc, table, rows, values)
            return
