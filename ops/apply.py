"""Applying an IndexMap: one ``take`` for gathers, one ``put`` or one ufunc reduction for scatters.

No Python loop runs per element: the factored map lets numpy move whole contiguous blocks.
Which path runs when (every path gives the result of the generic one; tests/ops/test_fast_paths.py
checks them against fancy indexing and ``ufunc.at``):

=====================  ==============================================================
Gather                 :func:`take_axis`: ``np.take`` along the axis (the map in factored form)
GatherElements axis>0  :func:`take_elements`: staged slabs, offsets per slab (numeric dtypes)
other gathers          :func:`take_rows`: ``np.take`` of whole rows of the ``(-1, block)`` table
scatter, none          one fancy assignment (block 1, strings) or ``np.put`` of row records
scatter, reduction     block 1: ``ufunc.at`` on the flat output; real numeric blocks of
                       ``fold.MIN_BLOCK`` or more: :func:`ops.fold.fold_rows`; else ``ufunc.at``
=====================  ==============================================================

With the optional accelerator on (:mod:`ops.accel`, numba), GatherElements with axis > 0 and
the add/mul/max/min scatters on int/uint/float32/float64 run compiled kernels instead,
bit-identical to the paths above (tests/ops/test_accel.py); everything before (validation,
index normalisation, the index map) is unchanged.

Speed-ups shared by all paths: ``mode="clip"`` (indices are checked before; ``"raise"`` with
``out=`` buffers the whole output), numeric work split across threads where numpy releases
the GIL (:mod:`ops.parallel`; never for object/string arrays, never two threads writing one
cell), and large outputs from reused buffers (:mod:`ops.buffers`).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import accel, buffers, fold, parallel
from .dtypes import dtype_name
from .index_map import IndexMap, element_base, row_major_strides, write_offsets
from .reductions import SCATTER_REDUCTIONS

#: take_elements stages this many bytes of data at a time (fits in L2 with its offsets).
STAGE_BYTES = 1 << 18
#: put_rows(columns_stay=True) applies bands of columns whose targets span about this many bytes.
BAND_BYTES = 1 << 20
MIN_BAND = 16


def take_rows(data: np.ndarray, imap: IndexMap) -> np.ndarray:
    """The gather result: ``out[e] = data.flat[imap.flat_offsets()[e]]``, as a new array.

    One ``np.take`` of whole rows of the ``(-1, block)`` table. ``mode="clip"`` because the map's
    rows are already in range (``mode="raise"`` with ``out=`` would buffer the whole output).
    Numeric dtypes split the output rows across threads (:mod:`ops.parallel`); the output comes
    from :mod:`ops.buffers`, so a repeated large gather does not page-fault a fresh array.
    """
    out = buffers.empty(imap.element_shape, data.dtype)
    if out.size == 0:
        return out
    block = imap.block
    table = np.ascontiguousarray(data).reshape(-1, block)
    rows = imap.rows.reshape(-1)
    dest = out.reshape(-1, block)
    if out.size < 2 * parallel.MIN_PART:  # one thread anyway: no parts to hand out
        table.take(rows, axis=0, out=dest, mode="clip")
        return out

    def part(a: int, b: int) -> None:
        np.take(table, rows[a:b], axis=0, out=dest[a:b], mode="clip")

    if data.dtype.hasobject:
        part(0, rows.size)
    else:
        parallel.run_parts(part, rows.size, work=out.size)
    return out


def take_axis(data: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray:
    """Gather: ``np.take(data, idx, axis)`` for normalised ``idx``, as a new array.

    The same map as :func:`ops.gather.gather_index_map` (row ``outer * size + idx``, block
    ``data.shape[axis+1:]``) applied in factored form, so the ``outer x indices`` grid of rows
    is never built. ``axis == 0`` splits the indices across threads, ``axis > 0`` the leading
    dimension (numeric dtypes only; strings run in one thread).
    """
    out = buffers.empty(data.shape[:axis] + idx.shape + data.shape[axis + 1:], data.dtype)
    if out.size == 0:
        return out
    threads = not data.dtype.hasobject
    if out.size < 2 * parallel.MIN_PART:  # one thread anyway: no parts to hand out
        data.take(idx, axis=axis, out=out, mode="clip")
        return out
    if axis == 0:
        flat_idx = idx.reshape(-1)
        dest = out.reshape((flat_idx.size,) + data.shape[1:])

        def part(a: int, b: int) -> None:
            np.take(data, flat_idx[a:b], axis=0, out=dest[a:b], mode="clip")

        n = flat_idx.size
    else:
        def part(a: int, b: int) -> None:
            np.take(data[a:b], idx, axis=axis, out=out[a:b], mode="clip")

        n = data.shape[0]
    if threads:
        parallel.run_parts(part, n, work=out.size)
    else:
        part(0, n)
    return out


def take_elements(data: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray:
    """GatherElements for ``axis > 0`` on a numeric dtype: the same result as
    ``take_rows(data, gather_elements_index_map(...))``, computed slab by slab.

    ``idx`` is already normalised (non-negative, in range). Position ``p`` reads
    ``data[p with coordinate axis replaced by idx[p]]``; since ``axis > 0`` the leading
    coordinate is unchanged, so a run of leading indices ``i..j`` reads only ``data[i:j]``. Each
    run of ``STAGE_BYTES`` of data is copied once, sequentially, into a small cache-resident
    buffer, its offsets (:func:`ops.index_map.write_offsets`, the same formula as the index map)
    go into another, and one ``take`` gathers from the cached copy: no full-size offset array,
    and no cache miss per element on the random reads. Runs split across threads.
    """
    data = np.ascontiguousarray(data)
    out = buffers.empty(idx.shape, data.dtype)
    if out.size == 0:
        return out
    strides = row_major_strides(data.shape)
    slab = strides[0] * data.dtype.itemsize
    run = max(1, min(idx.shape[0], STAGE_BYTES // max(slab, 1)))
    stage_data = slab <= STAGE_BYTES
    base = element_base((run,) + idx.shape[1:], strides, axis)

    def part(a: int, b: int) -> None:
        offsets = np.empty((min(run, b - a),) + idx.shape[1:], dtype=np.int64)
        staged = np.empty((min(run, b - a),) + data.shape[1:], dtype=data.dtype) if stage_data else None
        for i in range(a, b, run):
            n = min(b, i + run) - i
            o = offsets[:n]
            write_offsets(o, idx[i:i + n], base[:n] if base.shape[0] > 1 else base, strides[axis])
            src = data[i:i + n]
            if staged is not None:
                np.copyto(staged[:n], src)
                src = staged[:n]
            np.take(src.reshape(-1), o, out=out[i:i + n], mode="clip")

    parallel.run_parts(part, idx.shape[0], work=idx.size)
    return out


def _reduction_ufunc(op: str, reduction: str, data: np.ndarray) -> np.ufunc:
    """The ufunc that folds one update into the current value (:mod:`ops.reductions`)."""
    return SCATTER_REDUCTIONS.ufunc(op, reduction, dtype_name(data))


def check_reduction(op: str, reduction: str, data: np.ndarray) -> None:
    """OpError for an unknown reduction, or one with no meaning for ``data``'s dtype
    (:mod:`ops.reductions`)."""
    if reduction != "none":
        SCATTER_REDUCTIONS.check(op, reduction, dtype_name(data))


def copy_of(data: np.ndarray) -> np.ndarray:
    """A C-ordered copy of ``data`` (the scatter output); numeric copies that are worth it
    (:func:`ops.parallel.copy_splits`) split across threads (along the first axis), and large
    ones reuse a pooled buffer (:mod:`ops.buffers`)."""
    if _one_part_copy(data):  # one thread: numpy's own copy
        if data.nbytes < buffers.MIN_POOLED_BYTES:  # never pooled
            return data.copy(order="C")
        out = buffers.empty(data.shape, data.dtype)
        np.copyto(out, data)
        return out
    out = buffers.empty(data.shape, data.dtype)
    parallel.copy_into(out, data)
    return out


def copier(data: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """:func:`copy_of` for arrays of ``data``'s shape and dtype, chosen once (for plans,
    :mod:`ops.small_calls`): numpy's own copy where copy_of would make one (one part, never
    pooled), else copy_of itself."""
    return np.ndarray.copy if _one_part_copy(data) and data.nbytes < buffers.MIN_POOLED_BYTES else copy_of


def _one_part_copy(data: np.ndarray) -> bool:
    """:func:`copy_of` copies ``data`` in one part: objects, or what
    :func:`ops.parallel.copy_into` would not split."""
    return data.dtype.hasobject or not parallel.copies_in_parts(data)


def _column_bands(imap: IndexMap, itemsize: int) -> list[tuple[int, int]]:
    """Column ranges of the updates' last axis, each touching about ``BAND_BYTES`` of the target
    (see :func:`put_rows`); one range when banding would not help."""
    cols = imap.rows.shape[-1] if imap.rows.ndim else 1
    target_rows = max(1, imap.target_rows // max(imap.target_shape[-1], 1))
    width = max(MIN_BAND, BAND_BYTES // (target_rows * itemsize))
    if imap.rows.ndim < 2 or width * 2 > cols:
        return [(0, cols)]
    return [(c, min(cols, c + width)) for c in range(0, cols, width)]


def put_rows(op: str, data: np.ndarray, imap: IndexMap, updates: np.ndarray, reduction: str = "none",
             columns_stay: bool = False) -> np.ndarray:
    """A copy of ``data`` with ``updates`` written through ``imap``.

    ``none``: duplicate targets take the last update in row-major order (one fancy assignment,
    or ``np.put`` of whole rows as opaque records for blocks; both assign in order; tests pin
    this). Reductions fold updates into the existing value in row-major order, exactly as
    ``ufunc.at`` (unbuffered, sequential); max/min propagate NaN. Paths:

    * with the accelerator: ScatterElements none and the add/mul/max/min folds, and ScatterND
      folds, in compiled kernels (bit-identical; :mod:`ops.accel`);
    * block of 1 element (ScatterElements, element ScatterND): ``ufunc.at`` on the flat output;
    * blocks of ``fold.MIN_BLOCK`` or more of a real numeric dtype (bool, int, float incl.
      float16/bfloat16): :func:`ops.fold.fold_rows`, rounds of distinct rows (bit-identical to
      ``ufunc.at``, threaded);
    * other blocks (strings, complex, small blocks): ``ufunc.at`` on the ``(-1, block)`` table.

    ``columns_stay`` (ScatterElements with an axis other than the last): an update in column
    ``c`` of the last axis writes column ``c`` of the target, so block-1 updates are applied in
    bands of columns, each band's targets fitting in cache (benchmarks/README.md). Each target
    cell's updates all sit in one band, in row-major order, so the result is unchanged.
    """
    check_reduction(op, reduction, data)
    wide = SCATTER_REDUCTIONS.fold_dtype(reduction, data.dtype)
    if wide is not None:   # float16 max/min: the update wins ties only in float32 (ops.reductions)
        return put_rows(op, data.astype(wide), imap, updates.astype(wide), reduction,
                        columns_stay).astype(data.dtype)
    out = copy_of(data)
    if updates.size == 0 or out.size == 0:
        return out
    block = imap.block
    table = out.reshape(-1, block)
    values = np.ascontiguousarray(updates)
    if reduction != "none":
        ufunc = _reduction_ufunc(op, reduction, data)
        if (op not in ("ScatterElements", "Scatter") and accel.supports_fold(data.dtype, reduction, updates.size)
                and accel.enabled()):
            accel.scatter_rows_fold(table, imap.rows, values, reduction)
            return out  # compiled fold, bit-identical to ufunc.at (ops/accel.py)
    if block == 1 and columns_stay:
        flat = table.reshape(-1)
        rows = imap.rows.reshape(values.shape)
        with np.errstate(all="ignore"):
            for a, b in _column_bands(imap, data.dtype.itemsize):
                r, v = rows[..., a:b].reshape(-1), values[..., a:b].reshape(-1)
                if reduction == "none":
                    flat[r] = v
                else:
                    ufunc.at(flat, r, v)
        return out
    rows = imap.rows.reshape(-1)
    values = values.reshape(-1, block)
    if reduction == "none":
        if block == 1 or data.dtype.hasobject:
            table[rows] = values
        else:
            record = np.dtype((np.void, block * data.dtype.itemsize))
            np.put(table.view(record).reshape(-1), rows, values.view(record).reshape(-1), mode="clip")
        return out
    with np.errstate(all="ignore"):  # NaN/inf/overflow are values here, not errors (IEEE results)
        if block == 1:
            ufunc.at(table.reshape(-1), rows, values.reshape(-1))
        elif block >= fold.MIN_BLOCK and fold.supports(data.dtype):
            fold.fold_rows(ufunc, table, rows, values)
        else:
            ufunc.at(table, rows, values)
    return out
