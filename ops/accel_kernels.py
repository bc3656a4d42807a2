"""The compiled kernels of :mod:`ops.accel`, written as plain Python.

:func:`ops.accel._load` compiles them with ``numba.njit(cache=True, nogil=True)`` and makes
the small helpers (:func:`normalised`, :func:`tuple_row`, :func:`copy_row`,
:func:`stream_store`, :func:`store_fence`) callable from them, inlined. As plain Python
they run too (slowly), which is what they mean: the docstrings are the contracts, and
tests/ops/test_accel.py checks the compiled kernels against the numpy path bit for bit.

Rows of a gather move as unsigned words (the caller views both tables so), so a copy is bit
exact for every dtype. Kernels that read raw indices return -1, or the position of the first
bad index, and write nothing after it.
"""
from __future__ import annotations

import numpy as np


def gather_elements(data, idx, out, shape, dstrides, axis, size, stream, r0, r1):
    """out[r, j] = data[base(r) + (v if axis is last else j + v * dstrides[axis])] for rows
    r0..r1 of the indices viewed as (rows, last), where ``v`` is ``idx[r, j]`` made
    non-negative (``+ size``); ``shape`` = indices.shape[:-1]. Returns -1, or the flat position
    ``r * last + j`` of the first index outside ``[-size, size)`` (nothing after it is written)."""
    nd1 = shape.shape[0]
    m = idx.shape[1]
    coord = np.zeros(nd1 + 1, np.int64)
    rem = r0
    for d in range(nd1 - 1, -1, -1):
        coord[d] = rem % shape[d]
        rem //= shape[d]
    base = 0
    for d in range(nd1):
        if d != axis:
            base += coord[d] * dstrides[d]
    sa = dstrides[axis]
    # The two loops below differ only in the offset they read. Written once with the offset
    # as j * step + v * sa (step 0 or 1) the kernel ran 4x slower (1.7 -> 6.9 ms on the
    # benchmark case): the contiguous row slice of the last-axis loop is what LLVM speeds up.
    for r in range(r0, r1):
        if axis == nd1:
            row = data[base:base + size]
            for j in range(m):
                v = normalised(idx[r, j], size)
                if v < 0:
                    store_fence()
                    return r * m + j
                if stream:
                    stream_store(out, r, j, row[v])
                else:
                    out[r, j] = row[v]
        else:
            for j in range(m):
                v = normalised(idx[r, j], size)
                if v < 0:
                    store_fence()
                    return r * m + j
                if stream:
                    stream_store(out, r, j, data[base + j + v * sa])
                else:
                    out[r, j] = data[base + j + v * sa]
        d = nd1 - 1
        while d >= 0:
            coord[d] += 1
            if d != axis:
                base += dstrides[d]
            if coord[d] < shape[d]:
                break
            if d != axis:
                base -= coord[d] * dstrides[d]
            coord[d] = 0
            d -= 1
    store_fence()
    return -1


def normalised(index, size):
    """``index`` made non-negative (``+ size``), or -1 when it is outside ``[-size, size)``. The
    common case, already in ``[0, size)``, costs one unsigned comparison."""
    v = np.int64(index)
    if np.uint64(v) < np.uint64(size):
        return v
    if v < 0 and v >= -size:
        return v + size
    return np.int64(-1)


def tuple_row(idx, r, limits, strides):
    """Row number of index tuple ``idx[r]`` (negatives made non-negative): ``sum(v[c] *
    strides[c])``, or ``-1 - c`` when component ``c`` is outside ``[-limits[c], limits[c])``."""
    row = 0
    for c in range(idx.shape[1]):
        v = normalised(idx[r, c], limits[c])
        if v < 0:
            return -1 - c
        row += v * strides[c]
    return row


def stream_store(arr, i, j, value):
    """``arr[i, j] = value``; compiled as a non-temporal store (:mod:`ops.accel_stores`)."""
    arr[i, j] = value


def store_fence():
    """Nothing in Python; compiled, it orders the streaming stores before the kernel returns."""


def copy_row(table, row, out, r, stream):
    """out[r, :] = table[row, :], with streaming stores when ``stream``."""
    if stream:
        for b in range(table.shape[1]):
            stream_store(out, r, b, table[row, b])
    else:
        for b in range(table.shape[1]):
            out[r, b] = table[row, b]


def gather_rows(table, idx, size, out, stream, r0, r1):
    """out[r] = table[v] for r in r0..r1, ``v`` = ``idx[r]`` made non-negative (whole rows of
    the (n_rows, words) tables), written with streaming stores when ``stream``. Returns -1, or
    the first ``r`` whose index is outside ``[-size, size)``."""
    for r in range(r0, r1):
        row = normalised(idx[r], size)
        if row < 0:
            store_fence()
            return r
        copy_row(table, row, out, r, stream)
    store_fence()
    return -1


#: Gather kernels compute this many row numbers before copying those rows: the copies then
#: depend on nothing but a small cached array, and their cache misses overlap.
ROW_BATCH = 64


def gather_tuples(table, idx, limits, strides, out, stream, r0, r1):
    """out[r] = table[row(idx[r])] for r in r0..r1 (whole rows of the (n_rows, words) tables),
    written with streaming stores when ``stream``. Returns -1, or the flat position ``r * k + c``
    of the first bad index component."""
    k = idx.shape[1]
    rows = np.empty(ROW_BATCH, np.int64)
    for s in range(r0, r1, ROW_BATCH):
        e = min(r1, s + ROW_BATCH)
        for r in range(s, e):
            row = tuple_row(idx, r, limits, strides)
            if row < 0:
                store_fence()
                return r * k + (-1 - row)
            rows[r - s] = row
        for r in range(s, e):
            copy_row(table, rows[r - s], out, r, stream)
    store_fence()
    return -1


def scatter_tuples(table, idx, limits, strides, vals):
    """table[row(idx[r])] = vals[r] for every r in order (the last duplicate wins). Returns -1,
    or the flat position ``r * k + c`` of the first bad index component (rows before it are
    already written)."""
    nb = table.shape[1]
    k = idx.shape[1]
    for r in range(idx.shape[0]):
        row = tuple_row(idx, r, limits, strides)
        if row < 0:
            return r * k + (-1 - row)
        for b in range(nb):
            table[row, b] = vals[r, b]
    return -1


def scatter_elements(out, rows, vals, op, a0, a1, c0, c1, band):
    """Fold vals[a, c] into out[rows[a, c]] for a in a0..a1, c in c0..c1, in row-major order
    of (a, c) restricted to that block, column band by column band (``band`` columns at a
    time; callers band only when a cell's updates all share one column, so order is kept).
    ``op`` 0..3 is add/mul/max/min; 4 assigns (reduction none: the last write wins)."""
    for cb in range(c0, c1, band):
        ce = min(c1, cb + band)
        if op == 4:
            for a in range(a0, a1):
                for c in range(cb, ce):
                    out[rows[a, c]] = vals[a, c]
        elif op == 0:
            for a in range(a0, a1):
                for c in range(cb, ce):
                    k = rows[a, c]
                    out[k] = out[k] + vals[a, c]
        elif op == 1:
            for a in range(a0, a1):
                for c in range(cb, ce):
                    k = rows[a, c]
                    out[k] = out[k] * vals[a, c]
        elif op == 2:
            for a in range(a0, a1):
                for c in range(cb, ce):
                    k = rows[a, c]
                    x = out[k]
                    v = vals[a, c]
                    out[k] = x if (x > v or x != x) else v
        else:
            for a in range(a0, a1):
                for c in range(cb, ce):
                    k = rows[a, c]
                    x = out[k]
                    v = vals[a, c]
                    out[k] = x if (x < v or x != x) else v


def scatter_rows(out, rows, vals, op, r0, r1):
    """Fold vals[i] into out[rows[i]] for every i (in order) whose row is in r0..r1."""
    nb = out.shape[1]
    for i in range(rows.shape[0]):
        r = rows[i]
        if r < r0 or r >= r1:
            continue
        if op == 0:
            for b in range(nb):
                out[r, b] = out[r, b] + vals[i, b]
        elif op == 1:
            for b in range(nb):
                out[r, b] = out[r, b] * vals[i, b]
        elif op == 2:
            for b in range(nb):
                c = out[r, b]
                v = vals[i, b]
                out[r, b] = c if (c > v or c != c) else v
        else:
            for b in range(nb):
                c = out[r, b]
                v = vals[i, b]
                out[r, b] = c if (c < v or c != c) else v
