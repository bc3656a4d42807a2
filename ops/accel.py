"""Optional compiled kernels (numba) for the few paths where numpy stays slower than onnxruntime.

The numpy paths in :mod:`ops.apply` and :mod:`ops.fold` are the reference; every kernel here
gives a bit-identical result (tests/ops/test_accel.py compares raw bytes) and is used only when

* numba imports (it is the optional extra ``indexflow[fast]``; without it this module is off,
  silently), and
* it is not switched off: ``INDEXFLOW_ACCEL=0`` in the environment or :func:`set_enabled`.

Shape and attribute validation stay in the calling code. The gathers and the ScatterND none
kernel read raw int32/int64 indices and check each one as they go (:func:`_normalised`: one
unsigned comparison when it is already in ``[0, size)``), which saves numpy's separate pass
over the indices; on the first bad index they stop and return its position, and the caller
then runs the numpy path, whose check raises the exact ``IndexOutOfRangeError``. So messages
are the same code either way. The fold kernels run on indices the numpy code has normalised.

Every kernel addresses ``data`` with the index map's own formulas (row ``sum(v[c] *
stride[c])``, element ``base + v * stride[axis]``); the tests compare each with the numpy path
that applies the map.

What is accelerated (see benchmarks/bench_ops.py for the numbers):

* Gather on axis 0 and GatherND with batch_dims 0 (:func:`gather_tuples`), and GatherElements
  on any axis > 0 (:func:`gather_elements`): one pass over the indices, copying whole rows
  (respectively single elements). Pure copies, so rows move as unsigned words (bit-identical
  by construction, for every non-string dtype). Output rows split across threads; outputs of
  ``STREAM_MIN_BYTES`` or more are written with non-temporal stores (:mod:`ops.accel_stores`).
* ScatterND with reduction none (:func:`scatter_tuples`): one thread writes the rows in
  row-major order of the updates, so the last duplicate wins, as with numpy's assignment.
* ScatterElements add/mul/max/min (:func:`scatter_elements_fold`) and ScatterND
  add/mul/max/min (:func:`scatter_rows_fold`) for int8..int64, uint8..uint64, float32,
  float64: the sequential fold ``out[t] = f(out[t], v)`` in row-major order of the updates,
  with numpy's scalar semantics (wrap-around integers; ``maximum(a, b) = a if a > b or
  isnan(a) else b``, likewise ``minimum`` with ``<``: a NaN propagates from either side, the
  first NaN's payload wins, and of two equal values, e.g. ``-0.0`` and ``0.0``, the update
  wins, exactly as numpy). Threads split by destination: ScatterElements along a dimension other
  than the axis (every update there writes the same coordinate), ScatterND by ranges of target
  rows (each thread folds, in order, only the updates whose row is in its range).

  One caveat on "bit-identical": when two NaNs with *different* bit patterns meet in add or
  mul, the kernels keep the current value's NaN, as ``ufunc.at`` and numpy's scalar loop do;
  numpy's own SIMD add/multiply loops (which :mod:`ops.fold` uses for ScatterND blocks) keep
  the first operand's in the vector body and the second's in the tail, so there the numpy path
  itself depends on the position within the block. While only one NaN pattern occurs (e.g.
  ``np.nan`` and no ``inf - inf`` or ``0 * inf``, which make x86's negative default NaN) the
  results are identical; max/min agree in every case.

Kernels are compiled on first use and cached on disk (``cache=True``), so only the first run
after an install pays the compile time.
"""
from __future__ import annotations

import itertools
import os
import threading
from math import prod

import numpy as np

from . import buffers, parallel

#: Reduction codes passed to the kernels.
OPS = {"add": 0, "mul": 1, "max": 2, "min": 3}
#: dtypes the fold kernels handle (bit-identical to ufunc.at); others stay on numpy.
FOLD_DTYPES = frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64))
_COPY_AS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
#: Gather outputs at least this large are written with non-temporal stores
#: (:mod:`ops.accel_stores`): twice a core's L2 here, so most of such an output would be
#: evicted before anyone reads it. Measured: Gather axis 0 (256 MB out) 20.5 -> 17.7 ms,
#: GatherElements (16 MB) 3.06 -> 2.66 ms in the benchmark.
STREAM_MIN_BYTES = 8 << 20
#: Index dtypes the checking kernels read directly (others are normalised by numpy first).
INDEX_DTYPES = frozenset({np.dtype(np.int32), np.dtype(np.int64)})
#: ScatterElements on an axis other than the last: columns per band (targets of a band stay in cache).
BAND = 64
#: Below this many elements the numpy path is as fast; small calls (the editor's) also never
#: import numba (callers test ``supports_*`` before :func:`enabled`).
MIN_SIZE = 1 << 12

_state = {"enabled": os.environ.get("INDEXFLOW_ACCEL", "1").strip().lower() not in ("0", "false", "no", "off")}
_kernels: dict | None = None
_load_lock = threading.Lock()
_load_failed = False


# --------------------------------------------------------------------------------------------
# kernels (plain Python here; jitted with numba.njit(cache=True, nogil=True) by _load)


def _gather_elements_kernel(data, idx, out, shape, dstrides, axis, size, stream, r0, r1):
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
    for r in range(r0, r1):
        if axis == nd1:
            row = data[base:base + size]
            for j in range(m):
                v = _normalised(idx[r, j], size)
                if v < 0:
                    _store_fence()
                    return r * m + j
                if stream:
                    _stream_store(out, r, j, row[v])
                else:
                    out[r, j] = row[v]
        else:
            for j in range(m):
                v = _normalised(idx[r, j], size)
                if v < 0:
                    _store_fence()
                    return r * m + j
                if stream:
                    _stream_store(out, r, j, data[base + j + v * sa])
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
    _store_fence()
    return -1


def _normalised(index, size):
    """``index`` made non-negative (``+ size``), or -1 when it is outside ``[-size, size)``. The
    common case, already in ``[0, size)``, costs one unsigned comparison."""
    v = np.int64(index)
    if np.uint64(v) < np.uint64(size):
        return v
    if v < 0 and v >= -size:
        return v + size
    return np.int64(-1)


def _tuple_row(idx, r, limits, strides):
    """Row number of index tuple ``idx[r]`` (negatives made non-negative): ``sum(v[c] *
    strides[c])``, or ``-1 - c`` when component ``c`` is outside ``[-limits[c], limits[c])``."""
    row = 0
    for c in range(idx.shape[1]):
        v = _normalised(idx[r, c], limits[c])
        if v < 0:
            return -1 - c
        row += v * strides[c]
    return row


def _stream_store(arr, i, j, value):
    """``arr[i, j] = value``; compiled as a non-temporal store (:mod:`ops.accel_stores`)."""
    arr[i, j] = value


def _store_fence():
    """Nothing in Python; compiled, it orders the streaming stores before the kernel returns."""


def _copy_row(table, row, out, r, stream):
    """out[r, :] = table[row, :], with streaming stores when ``stream``."""
    if stream:
        for b in range(table.shape[1]):
            _stream_store(out, r, b, table[row, b])
    else:
        for b in range(table.shape[1]):
            out[r, b] = table[row, b]


def _gather_rows_kernel(table, idx, size, out, stream, r0, r1):
    """out[r] = table[v] for r in r0..r1, ``v`` = ``idx[r]`` made non-negative (whole rows of
    the (n_rows, words) tables), written with streaming stores when ``stream``. Returns -1, or
    the first ``r`` whose index is outside ``[-size, size)``."""
    for r in range(r0, r1):
        row = _normalised(idx[r], size)
        if row < 0:
            _store_fence()
            return r
        _copy_row(table, row, out, r, stream)
    _store_fence()
    return -1


#: Gather kernels compute this many row numbers before copying those rows: the copies then
#: depend on nothing but a small cached array, and their cache misses overlap.
ROW_BATCH = 64


def _gather_tuples_kernel(table, idx, limits, strides, out, stream, r0, r1):
    """out[r] = table[row(idx[r])] for r in r0..r1 (whole rows of the (n_rows, words) tables),
    written with streaming stores when ``stream``. Returns -1, or the flat position ``r * k + c``
    of the first bad index component."""
    k = idx.shape[1]
    rows = np.empty(ROW_BATCH, np.int64)
    for s in range(r0, r1, ROW_BATCH):
        e = min(r1, s + ROW_BATCH)
        for r in range(s, e):
            row = _tuple_row(idx, r, limits, strides)
            if row < 0:
                _store_fence()
                return r * k + (-1 - row)
            rows[r - s] = row
        for r in range(s, e):
            _copy_row(table, rows[r - s], out, r, stream)
    _store_fence()
    return -1


def _scatter_tuples_kernel(table, idx, limits, strides, vals):
    """table[row(idx[r])] = vals[r] for every r in order (the last duplicate wins). Returns -1,
    or the flat position ``r * k + c`` of the first bad index component (rows before it are
    already written)."""
    nb = table.shape[1]
    k = idx.shape[1]
    for r in range(idx.shape[0]):
        row = _tuple_row(idx, r, limits, strides)
        if row < 0:
            return r * k + (-1 - row)
        for b in range(nb):
            table[row, b] = vals[r, b]
    return -1


def _scatter_elements_kernel(out, rows, vals, op, a0, a1, c0, c1, band):
    """Fold vals[a, c] into out[rows[a, c]] for a in a0..a1, c in c0..c1, in row-major order
    of (a, c) restricted to that block, column band by column band (``band`` columns at a
    time; callers band only when a cell's updates all share one column, so order is kept)."""
    for cb in range(c0, c1, band):
        ce = min(c1, cb + band)
        if op == 0:
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


def _scatter_rows_kernel(out, rows, vals, op, r0, r1):
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


# --------------------------------------------------------------------------------------------
# threads


#: Parts per thread for :func:`_run_chunks`: a thread slowed by other load on the machine takes
#: fewer of them instead of holding up the whole call.
CHUNKS_PER_THREAD = 4
#: ScatterND: each part scans every row number, so one part per thread (more measured slower).
ND_CHUNKS_PER_THREAD = 1


def _run_chunks(fn, n: int, work: int, chunks_per_thread: int = CHUNKS_PER_THREAD, align: int = 1) -> list:
    """Call ``fn(start, stop)`` over disjoint ranges covering ``0..n`` (multiples of ``align``
    long, except the last), handed out one at a time to the threads :mod:`ops.parallel` would
    use for ``work`` elements, and return the results (in no particular order). Each range runs
    in exactly one thread, so the caller's destination partition holds as with
    :func:`ops.parallel.run_parts`."""
    threads = parallel.part_count(work)
    if threads <= 1 or n <= 1:
        return [fn(0, n)]
    chunk = -(-n // (threads * chunks_per_thread))
    chunk = max(align, -(-chunk // align) * align)
    counter = itertools.count()  # next() is atomic under the GIL
    results: list = []  # list.append is atomic under the GIL

    def worker(_a: int, _b: int) -> None:
        while True:
            start = next(counter) * chunk
            if start >= n:
                return
            results.append(fn(start, min(n, start + chunk)))

    parallel.run_parts(worker, threads, work=work)
    return results


def _all_valid(results: list) -> bool:
    """True when no kernel call reported a bad index (each returns -1 or a position)."""
    return all(r < 0 for r in results)


# --------------------------------------------------------------------------------------------
# switch


def _load() -> dict | None:
    """Import numba and jit the kernels once; None (accelerator off) without numba."""
    global _kernels, _load_failed
    if _kernels is not None or _load_failed:
        return _kernels
    with _load_lock:
        if _kernels is None and not _load_failed:
            try:
                import numba
                import numba.extending
            except Exception:  # ImportError, or a numba built for another numpy: numpy path only
                _load_failed = True
                return None
            jit = numba.njit(cache=True, nogil=True)
            for helper in (_normalised, _tuple_row, _copy_row):  # callable from the kernels, still plain Python
                numba.extending.register_jitable(inline="always")(helper)
            try:
                from . import accel_stores  # numba internals (llvmlite, cgutils): may move between versions
                accel_stores.install(_stream_store, _store_fence)
            except Exception:  # ordinary stores then: the same results, a little slower
                for helper in (_stream_store, _store_fence):
                    numba.extending.register_jitable(inline="always")(helper)
            _kernels = {
                "gather_elements": jit(_gather_elements_kernel),
                "gather_rows": jit(_gather_rows_kernel),
                "gather_tuples": jit(_gather_tuples_kernel),
                "scatter_tuples": jit(_scatter_tuples_kernel),
                "scatter_elements": jit(_scatter_elements_kernel),
                "scatter_rows": jit(_scatter_rows_kernel),
            }
    return _kernels


def available() -> bool:
    """numba imports (whether or not the accelerator is switched on)."""
    return _load() is not None


def enabled() -> bool:
    """The accelerator is switched on and numba is importable."""
    return _state["enabled"] and _load() is not None


def set_enabled(flag: bool) -> bool:
    """Switch the accelerator on or off (on is a no-op without numba); returns the previous setting."""
    previous = _state["enabled"]
    _state["enabled"] = bool(flag)
    return previous


# --------------------------------------------------------------------------------------------
# GatherElements


def _row_major_strides(shape: tuple) -> np.ndarray:
    strides = np.ones(len(shape), dtype=np.int64)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return strides


def supports_gather_elements(data: np.ndarray, idx: np.ndarray, axis: int) -> bool:
    return (axis > 0 and not data.dtype.hasobject and data.dtype.itemsize in _COPY_AS
            and idx.size >= MIN_SIZE and idx.dtype in INDEX_DTYPES)


def gather_elements(data: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray | None:
    """GatherElements for ``axis > 0`` on raw (not yet normalised) int32/int64 ``idx``: the
    result of :func:`ops.apply.take_elements` as a new (possibly pooled) array, or None when an
    index is out of range (the caller's numpy path then raises the exact error)."""
    k = _load()["gather_elements"]
    data = np.ascontiguousarray(data)
    out = buffers.empty(idx.shape, data.dtype)
    if out.size == 0:
        return out
    idx = np.ascontiguousarray(idx)
    copy_as = _COPY_AS[data.dtype.itemsize]
    flat = data.reshape(-1).view(copy_as)
    m = idx.shape[-1]
    idx2 = idx.reshape(-1, m)
    out2 = out.reshape(-1, m).view(copy_as)
    shape = np.array(idx.shape[:-1], dtype=np.int64)
    dstrides = _row_major_strides(data.shape)
    size = int(data.shape[axis])
    stream = out.nbytes >= STREAM_MIN_BYTES
    results = _run_chunks(lambda a, b: k(flat, idx2, out2, shape, dstrides, axis, size, stream, a, b),
                          idx2.shape[0], idx.size)
    return out if _all_valid(results) else None


# --------------------------------------------------------------------------------------------
# Gather axis 0, GatherND (batch_dims 0) and ScatterND none: rows picked by index tuples


def _words(table: np.ndarray) -> np.ndarray:
    """The C-contiguous ``(rows, block)`` table viewed as rows of the widest unsigned words
    that divide a row's bytes (a row copy is then a copy of whole words, bit for bit)."""
    row_bytes = table.shape[1] * table.dtype.itemsize
    unit = next(u for u in (8, 4, 2, 1) if row_bytes % u == 0)
    return table.view(_COPY_AS[unit])


def supports_tuples(data: np.ndarray, indices: np.ndarray, k: int, work: int) -> bool:
    """Rows of ``data``'s first ``k`` axes picked by int32/int64 index tuples (numeric data)."""
    return (k >= 1 and not data.dtype.hasobject and indices.dtype in INDEX_DTYPES
            and work >= MIN_SIZE and data.ndim >= k)


def _tuple_operands(data_shape: tuple, indices: np.ndarray, k: int):
    idx2 = np.ascontiguousarray(indices).reshape(-1, k)
    return idx2, np.array(data_shape[:k], dtype=np.int64), _row_major_strides(tuple(data_shape[:k]))


def gather_tuples(data: np.ndarray, indices: np.ndarray, k: int) -> np.ndarray | None:
    """``out[i] = data[indices[i]]`` where the last axis of ``indices`` (length ``k``) indexes
    ``data``'s first ``k`` axes and each pick is a whole ``data.shape[k:]`` block: GatherND with
    batch_dims 0, and Gather on axis 0 with ``indices[..., None]``. Shape
    ``indices.shape[:-1] + data.shape[k:]``. Indices are raw int32/int64 (negatives allowed);
    returns None when one is out of range or the output is empty (the caller's numpy path then
    raises the exact error, or returns the empty result)."""
    out = buffers.empty(tuple(indices.shape[:-1]) + tuple(data.shape[k:]), data.dtype)
    if out.size == 0:
        return None
    idx2, limits, strides = _tuple_operands(data.shape, indices, k)
    block = prod(data.shape[k:])
    table = _words(np.ascontiguousarray(data).reshape(-1, block))
    dest = _words(out.reshape(-1, block))
    stream = out.nbytes >= STREAM_MIN_BYTES
    if k == 1:  # one index per row (Gather axis 0): no tuples to combine
        kernel, idx1, size = _load()["gather_rows"], idx2.reshape(-1), int(limits[0])
        results = _run_chunks(lambda a, b: kernel(table, idx1, size, dest, stream, a, b), idx1.size, out.size)
    else:
        kernel = _load()["gather_tuples"]
        results = _run_chunks(lambda a, b: kernel(table, idx2, limits, strides, dest, stream, a, b),
                              idx2.shape[0], out.size)
    return out if _all_valid(results) else None


def scatter_tuples(out: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> bool:
    """ScatterND with reduction none, in place on the C-contiguous ``out``: ``out[indices[i]] =
    updates[i]`` in row-major order of ``i`` (the last duplicate wins). Indices are raw
    int32/int64. Returns False when one is out of range (``out`` is then partly written and
    must be discarded; the caller's numpy path raises the exact error). One thread: the order
    of the writes is the contract."""
    kernel = _load()["scatter_tuples"]
    k = indices.shape[-1]
    idx2, limits, strides = _tuple_operands(out.shape, indices, k)
    n = idx2.shape[0]
    if n == 0 or out.size == 0:
        return n == 0
    table = _words(out.reshape(-1, prod(out.shape[k:])))
    vals = _words(np.ascontiguousarray(updates, dtype=out.dtype).reshape(n, -1))
    return kernel(table, idx2, limits, strides, vals) < 0


# --------------------------------------------------------------------------------------------
# scatter reductions


def supports_fold(dtype: np.dtype, reduction: str, size: int) -> bool:
    return reduction in OPS and np.dtype(dtype) in FOLD_DTYPES and size >= MIN_SIZE


def scatter_elements_fold(out: np.ndarray, rows: np.ndarray, values: np.ndarray, reduction: str,
                          axis_is_last: bool) -> None:
    """ScatterElements reduction in place: ``out.flat[rows[p]] = f(out.flat[rows[p]], values[p])``
    in row-major order of ``p``, exactly as ``ufunc.at(out.reshape(-1), rows, values)``.

    ``rows`` (int64 flat offsets) and ``values`` have the updates' shape; ``out`` is C-contiguous.
    Threads split the updates along a dimension other than the axis (dimension 0 when the axis
    is the last, else the last dimension in column bands), so no two threads write one cell.
    """
    k = _load()["scatter_elements"]
    flat = out.reshape(-1)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    values = np.ascontiguousarray(values, dtype=out.dtype)
    shape = rows.shape
    code = OPS[reduction]
    if rows.ndim < 2:  # one dimension: destinations anywhere, one thread
        r2, v2 = rows.reshape(1, -1), values.reshape(1, -1)
        k(flat, r2, v2, code, 0, 1, 0, r2.shape[1], max(1, r2.shape[1]))
        return
    if axis_is_last:  # rows of the updates write distinct rows of out: split the rows
        r2, v2 = rows.reshape(shape[0], -1), values.reshape(shape[0], -1)
        cols = r2.shape[1]
        _run_chunks(lambda a, b: k(flat, r2, v2, code, a, b, 0, cols, max(1, cols)), shape[0], rows.size)
    else:  # column c of the updates writes column c of out: split the columns, fold in bands
        r2, v2 = rows.reshape(-1, shape[-1]), values.reshape(-1, shape[-1])
        n = r2.shape[0]
        _run_chunks(lambda a, b: k(flat, r2, v2, code, 0, n, a, b, BAND), shape[-1], rows.size, align=BAND)


def scatter_rows_fold(table: np.ndarray, rows: np.ndarray, values: np.ndarray, reduction: str) -> None:
    """ScatterND reduction in place on the ``(n_rows, block)`` table: fold ``values[i]`` into
    ``table[rows[i]]`` in order of ``i`` (``ufunc.at(table, rows, values)``). Threads take
    disjoint ranges of target rows, each scanning all ``rows`` in order."""
    k = _load()["scatter_rows"]
    rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1)
    values = np.ascontiguousarray(values, dtype=table.dtype).reshape(rows.size, table.shape[1])
    code = OPS[reduction]
    _run_chunks(lambda a, b: k(table, rows, values, code, a, b), table.shape[0], values.size, chunks_per_thread=ND_CHUNKS_PER_THREAD)
