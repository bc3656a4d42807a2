"""Optional compiled kernels (numba) for the few paths where numpy stays slower than onnxruntime.

The numpy paths in :mod:`ops.apply` and :mod:`ops.fold` are the reference; every kernel here
gives a bit-identical result (tests/ops/test_accel.py compares raw bytes) and is used only when

* numba imports (it is the optional extra ``indexflow[fast]``; without it this module is off,
  silently), and
* it is not switched off: ``INDEXFLOW_ACCEL=0`` in the environment or :func:`set_enabled`.

Validation, index normalisation and the index map stay in the calling code, so errors and
messages are unchanged; the kernels only run on normalised, in-range indices.

What is accelerated (float32, int64 indices, this 2-core machine; see benchmarks/bench_ops.py):

* GatherElements, any axis > 0 (:func:`gather_elements`): one pass over the indices, reading
  ``data`` at ``base + idx * stride[axis]``. Pure copies, so every non-object dtype of 1, 2, 4
  or 8 bytes runs as the unsigned integer of its size (bit-identical by construction; incl.
  float16, bfloat16, bool, complex64). Output rows split across threads.
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

import numpy as np

from . import buffers, parallel

#: Reduction codes passed to the kernels.
OPS = {"add": 0, "mul": 1, "max": 2, "min": 3}
#: dtypes the fold kernels handle (bit-identical to ufunc.at); others stay on numpy.
FOLD_DTYPES = frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64))
_COPY_AS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
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


def _gather_elements_kernel(data, idx, out, shape, dstrides, axis, r0, r1):
    """out[r, j] = data[base(r) + (idx[r, j] if axis is last else j + idx[r, j] * dstrides[axis])]
    for rows r0..r1 of the indices viewed as (rows, last); ``shape`` = indices.shape[:-1]."""
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
            for j in range(m):
                out[r, j] = data[base + idx[r, j]]
        else:
            for j in range(m):
                out[r, j] = data[base + j + idx[r, j] * sa]
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


def _run_chunks(fn, n: int, work: int, chunks_per_thread: int = CHUNKS_PER_THREAD, align: int = 1) -> None:
    """Call ``fn(start, stop)`` over disjoint ranges covering ``0..n`` (multiples of ``align``
    long, except the last), handed out one at a time to the threads :mod:`ops.parallel` would
    use for ``work`` elements. Each range runs in exactly one thread, so the caller's
    destination partition holds as with :func:`ops.parallel.run_parts`."""
    threads = parallel.part_count(work)
    if threads <= 1 or n <= 1:
        fn(0, n)
        return
    chunk = -(-n // (threads * chunks_per_thread))
    chunk = max(align, -(-chunk // align) * align)
    counter = itertools.count()  # next() is atomic under the GIL

    def worker(_a: int, _b: int) -> None:
        while True:
            start = next(counter) * chunk
            if start >= n:
                return
            fn(start, min(n, start + chunk))

    parallel.run_parts(worker, threads, work=work)


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
            except Exception:  # ImportError, or a numba built for another numpy: numpy path only
                _load_failed = True
                return None
            jit = numba.njit(cache=True, nogil=True)
            _kernels = {
                "gather_elements": jit(_gather_elements_kernel),
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


def supports_gather_elements(data: np.ndarray, idx: np.ndarray, axis: int) -> bool:
    return (axis > 0 and not data.dtype.hasobject and data.dtype.itemsize in _COPY_AS
            and idx.size >= MIN_SIZE and idx.dtype.kind in "iu")


def gather_elements(data: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray:
    """GatherElements for normalised ``idx`` and ``axis > 0``: the result of
    :func:`ops.apply.take_elements`, as a new (possibly pooled) array."""
    k = _load()["gather_elements"]
    data = np.ascontiguousarray(data)
    out = buffers.empty(idx.shape, data.dtype)
    if out.size == 0:
        return out
    if idx.dtype != np.int64 and idx.dtype != np.int32:
        idx = idx.astype(np.int64)
    idx = np.ascontiguousarray(idx)
    copy_as = _COPY_AS[data.dtype.itemsize]
    flat = data.reshape(-1).view(copy_as)
    m = idx.shape[-1]
    idx2 = idx.reshape(-1, m)
    out2 = out.reshape(-1, m).view(copy_as)
    shape = np.array(idx.shape[:-1], dtype=np.int64)
    dstrides = np.ones(data.ndim, dtype=np.int64)
    for d in range(data.ndim - 2, -1, -1):
        dstrides[d] = dstrides[d + 1] * data.shape[d + 1]
    _run_chunks(lambda a, b: k(flat, idx2, out2, shape, dstrides, axis, a, b), idx2.shape[0], idx.size)
    return out


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
