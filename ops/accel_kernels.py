"""The compiled kernels of :mod:`ops.accel`, written as plain Python.

:func:`ops.accel._load` compiles them with ``numba.njit(cache=True, nogil=True)`` and makes
the small helpers (:func:`normalised`, :func:`tuple_row`, :func:`copy_row`, :func:`prefetch_row`,
:func:`row_in_range`, :func:`prefetch`, :func:`touch`, :func:`stream_store`, :func:`store_fence`) callable from them, inlined. As plain Python
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
    ``r * last + j`` of the first index outside ``[-size, size)`` (``out`` is then incomplete).

    Each row of indices is first checked in one vectorised pass (:func:`row_in_range`); a row
    whose indices are all in ``[0, size)`` (the common case) is then copied by a loop with no
    test in it, which LLVM unrolls; any other row goes through :func:`normalised` element by
    element. On the last axis, when a row makes at least as many picks as its data row has
    cache lines, the data row is first read in order, one load per line (:func:`touch`): the
    hardware prefetcher follows that, where the picks in random order each wait for their
    line. On the benchmark case (2000 x 2000, last axis, float32), one thread: the test inside
    the loop 9.3 ms, the two passes 7.7 ms; two threads with streaming stores: 4.8 ms without
    the warming reads, 3.9 ms with them (medians of 25)."""
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
    last = axis == nd1
    line = max(1, 64 // data.itemsize)  # elements per cache line
    warm = last and m >= size // line  # as many picks per data row as the row has lines
    for r in range(r0, r1):
        if warm:
            for p in range(0, size, line):
                touch(data, np.uint64(base + p))
        if row_in_range(idx, r, size):
            # unsigned offsets: numba then adds no wrap-around test for negative indices
            if last:
                for j in range(m):
                    value = data[np.uint64(base + idx[r, j])]
                    if stream:
                        stream_store(out, r, j, value)
                    else:
                        out[r, j] = value
            else:
                for j in range(m):
                    value = data[np.uint64(base + j + idx[r, j] * sa)]
                    if stream:
                        stream_store(out, r, j, value)
                    else:
                        out[r, j] = value
        else:
            for j in range(m):
                v = normalised(idx[r, j], size)
                if v < 0:
                    store_fence()
                    return r * m + j
                out[r, j] = data[base + (v if last else j + v * sa)]
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


def row_in_range(idx, r, size):
    """Every ``idx[r, j]`` is in ``[0, size)`` (one unsigned comparison each, no early exit, so
    the loop is vectorised)."""
    outside = False
    for j in range(idx.shape[1]):
        outside |= np.uint64(np.int64(idx[r, j])) >= np.uint64(size)
    return not outside


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


def touch(arr, i):
    """Nothing in Python; compiled, a load of ``arr[i]`` that is kept although unused, so its
    cache line is in L1 afterwards (:mod:`ops.accel_intrinsics`)."""


def prefetch(arr, i, j):
    """Nothing in Python; compiled, a prefetch of ``arr[i, j]``'s cache line (:mod:`ops.accel_intrinsics`)."""


def stream_store(arr, i, j, value):
    """``arr[i, j] = value``; compiled as a non-temporal store (:mod:`ops.accel_intrinsics`)."""
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


#: The row gathers work this many rows ahead (a power of two): a row's number is computed, and
#: its cache lines prefetched, ``AHEAD`` rows before it is copied, so that many memory misses
#: overlap instead of one at a time. 8 and 16 measured alike on the GatherND benchmark; 32 was
#: twice as slow (see :mod:`ops.accel_intrinsics`).
AHEAD = 8


def prefetch_row(table, row):
    """Prefetch every cache line of ``table[row]``."""
    step = max(1, 64 // table.itemsize)
    for b in range(0, table.shape[1], step):
        prefetch(table, row, b)


def gather_rows(table, idx, size, out, stream, r0, r1):
    """out[r] = table[v] for r in r0..r1, ``v`` = ``idx[r]`` made non-negative (whole rows of
    the (n_rows, words) tables), written with streaming stores when ``stream``; rows are
    prefetched :data:`AHEAD` rows before they are copied. Returns -1, or the first ``r`` whose
    index is outside ``[-size, size)`` (``out`` is then incomplete)."""
    ahead = np.empty(AHEAD, np.int64)
    for r in range(r0, r1 + AHEAD):
        slot = (r - r0) & (AHEAD - 1)
        if r >= r0 + AHEAD:
            copy_row(table, ahead[slot], out, r - AHEAD, stream)
        if r < r1:
            row = normalised(idx[r], size)
            if row < 0:
                store_fence()
                return r
            ahead[slot] = row
            prefetch_row(table, row)
    store_fence()
    return -1


def gather_tuples(table, idx, limits, strides, out, stream, r0, r1):
    """out[r] = table[row(idx[r])] for r in r0..r1 (whole rows of the (n_rows, words) tables),
    written with streaming stores when ``stream``; rows are prefetched :data:`AHEAD` rows before
    they are copied. Returns -1, or the flat position ``r * k + c`` of the first bad index
    component (``out`` is then incomplete)."""
    k = idx.shape[1]
    ahead = np.empty(AHEAD, np.int64)
    for r in range(r0, r1 + AHEAD):
        slot = (r - r0) & (AHEAD - 1)
        if r >= r0 + AHEAD:
            copy_row(table, ahead[slot], out, r - AHEAD, stream)
        if r < r1:
            row = tuple_row(idx, r, limits, strides)
            if row < 0:
                store_fence()
                return r * k + (-1 - row)
            ahead[slot] = row
            prefetch_row(table, row)
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
