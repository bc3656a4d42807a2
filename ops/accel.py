"""Optional compiled kernels (numba) for the few paths where numpy stays slower than onnxruntime.

The numpy paths in :mod:`ops.apply` and :mod:`ops.fold` are the reference; every kernel here
gives a bit-identical result (tests/ops/test_accel.py compares raw bytes) and is used only when

* numba imports (it is the optional extra ``indexflow[fast]``; without it this module is off,
  silently), and
* it is not switched off: ``INDEXFLOW_ACCEL=0`` in the environment (:func:`ops.config.accel`,
  read at import) or :func:`set_enabled`.

Shape and attribute validation stay in the calling code. The gathers, ScatterElements and the
ScatterND none kernel read raw int32/int64 indices and check each one as they go
(:func:`ops.accel_kernels.normalised`: one unsigned comparison when it is already in
``[0, size)``), which saves numpy's separate pass over the indices; on the first bad index
they stop and return its position, and the caller then runs the numpy path, whose check
raises the exact ``IndexOutOfRangeError``. So messages are the same code either way. The
ScatterND fold kernel runs on rows the numpy code has normalised.

Every kernel addresses ``data`` with the index map's own formulas (row ``sum(v[c] *
stride[c])``, element ``base + v * stride[axis]``); the tests compare each with the numpy path
that applies the map.

What is accelerated (benchmarks/bench_ops.py measures it; figures in benchmarks/README.md):

* Gather on axis 0 and GatherND with batch_dims 0 (:func:`gather_tuples`), and GatherElements
  on any axis (:func:`gather_elements`): one pass over the indices, copying whole rows
  (respectively single elements). Pure copies, so rows move as unsigned words (bit-identical
  by construction): any non-string dtype for Gather/GatherND, dtypes of 1, 2, 4 or 8 bytes for
  GatherElements; indices of any integer type but uint64 (:func:`kernel_index_type`). Output
  rows split across threads; the row gathers prefetch every cache line of a row some rows
  before copying it (:data:`ops.accel_kernels.ROWS_AHEAD` for Gather on axis 0, with ordinary
  stores from tables of :data:`ops.accel_kernels.ROWS_PREFETCH_MIN_BYTES` up, non-temporally
  for streamed rows of a cache line or more from tables of :data:`ROWS_ONCE_MIN_BYTES` up;
  :data:`ops.accel_kernels.AHEAD` for GatherND),
  GatherElements and Gather on the last axis
  read a data row in order before picking from it (from tables of
  :data:`ops.accel_kernels.WARM_MIN_BYTES`, for Gather
  :data:`ops.accel_kernels.LAST_WARM_MIN_BYTES`, up, when the row gets at least as many picks as
  it has cache lines); outputs of ``STREAM_MIN_BYTES`` or more are written with non-temporal
  stores (:mod:`ops.accel_intrinsics`; not Gather's rows under two cache lines,
  :func:`_rows_stream`, nor GatherElements' rows with prefetched picks split across threads,
  :func:`_gather_split`), unless ``INDEXFLOW_STREAM_STORES=0``.
* ScatterND with reduction none (:func:`scatter_tuples`): the rows are written in row-major
  order of the updates, so the last duplicate wins, as with numpy's assignment. The copy of
  data splits across threads, the writes follow in the calling thread; with
  :data:`ND_SPLIT_WRITES` threads would split by ranges of target rows instead (each copying its
  rows of data, then writing, in order, the updates whose row is in its range).
* ScatterElements (:func:`scatter_elements`) on the raw indices, like GatherElements: the
  index map's formula applied as it is computed, each index checked as it is read, so no
  flat-offset array is built.
  Reduction none assigns (elements moved as unsigned words of 1, 2, 4 or 8 bytes, the last
  write wins); the reductions fold as below.
* ScatterElements add/mul/max/min and ScatterND add/mul/max/min (:func:`scatter_rows_fold`)
  for int8..int64, uint8..uint64, float32, float64: the sequential fold ``out[t] = f(out[t],
  v)`` in row-major order of the updates, with numpy's scalar semantics (wrap-around
  integers; ``maximum(a, b) = a if a > b or isnan(a) else b``, likewise ``minimum`` with
  ``<``: a NaN propagates from either side, the first NaN's payload wins, and of two equal
  values, e.g. ``-0.0`` and ``0.0``, the update wins, exactly as numpy). Threads split by
  destination: ScatterElements along a dimension other than the axis (every update there
  writes the same coordinate), ScatterND by ranges of target rows (each thread folds, in
  order, only the updates whose row is in its range; target rows are prefetched in tables of
  :data:`ops.accel_kernels.ROWS_PREFETCH_MIN_BYTES` or more).

  One caveat on "bit-identical": when two NaNs with *different* bit patterns meet in add or
  mul, the kernels keep the current value's NaN, as ``ufunc.at`` and numpy's scalar loop do;
  numpy's own SIMD add/multiply loops (which :mod:`ops.fold` uses for ScatterND blocks) keep
  the first operand's in the vector body and the second's in the tail, so there the numpy path
  itself depends on the position within the block. While only one NaN pattern occurs (e.g.
  ``np.nan`` and no ``inf - inf`` or ``0 * inf``, which make x86's negative default NaN) the
  results are identical; max/min agree in every case.

The kernels themselves are in :mod:`ops.accel_kernels`; this module decides when they run,
prepares their operands and splits the work across threads. They are compiled on first use
and cached on disk (``cache=True``), so only the first run after an install pays the compile
time.
"""
from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable
from math import prod

import numpy as np

from . import buffers, config, parallel, part_threads
from .index_map import element_base, row_major_strides

#: Reduction codes passed to the kernels.
OPS = {"add": 0, "mul": 1, "max": 2, "min": 3}
#: Kernel code for reduction none (assign; the last write wins).
ASSIGN = 4
#: dtypes the fold kernels handle (bit-identical to ufunc.at); others stay on numpy.
FOLD_DTYPES = frozenset(np.dtype(t) for t in (
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64))
_COPY_AS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
#: Gather outputs at least this large (for the row gathers, the output, table and indices
#: together: :func:`_rows_stream`) are written with non-temporal stores
#: (:mod:`ops.accel_intrinsics`), so that an output too large for the cache does not evict the
#: table being read; ``INDEXFLOW_STREAM_STORES=0`` (:func:`ops.config.stream_stores`, read at
#: import) turns them off: the threshold is then never met. Results are the same either way.
STREAM_MIN_BYTES = 8 << 20 if config.stream_stores() else 1 << 62
#: Index dtypes the checking kernels read directly (others are normalised by numpy first).
INDEX_DTYPES = frozenset({np.dtype(np.int32), np.dtype(np.int64)})
#: ScatterElements and (on large tables) GatherElements on an axis other than the last: columns
#: per band (the targets or picks of a band stay in cache), at least; narrower elements take
#: :data:`BAND_BYTES` of each target row (:func:`band`).
BAND = 64
#: ... a band is at least this many bytes of each target row: with 64 columns, rows of 1- and
#: 2-byte elements spent their time in the loop over rows, not in the writes (benchmarks/README.md).
BAND_BYTES = 256
#: Below this many elements the numpy path is as fast; small calls (the editor's) also never
#: import numba (callers test ``supports_*`` before :func:`enabled`).
MIN_SIZE = 1 << 12
#: Calls moving fewer elements than this take the numpy small routes of the kernels first (one
#: checking pass and one take or put) when their indices allow (:func:`small`): a compiled
#: kernel's call costs more there (numba's dispatch, the thread hand-out; benchmarks/README.md).
SMALL_WORK = 1 << 15

#: How the small helpers become part of the kernels that call them: compiled on their own and
#: inlined by LLVM (numba's ``forceinline``: the ``alwaysinline`` attribute). numba's IR inlining
#: (``inline="always"``) gave the same machine code (benchmarks/README.md, 2026-12-02) and cost
#: twice the compile time, as it types the helper's body again at every call site.
INLINED = {"forceinline": True}

#: ``enabled``: the switch (:func:`set_enabled`); ``atomic``: the kernels' counters are atomic
#: (the intrinsics installed), so threads may share one (:func:`_share`).
_state = {"enabled": config.accel(), "atomic": False}
_kernels: dict | None = None
_load_lock = threading.Lock()
_load_failed = False


# --------------------------------------------------------------------------------------------
# threads


#: Chunks per thread of the shared kernels (:func:`_share`): fine enough that a thread which
#: starts late, or is slowed by other load on the machine, takes fewer of them instead of
#: holding up the whole call, coarse enough that the counter is rarely touched
#: (benchmarks/README.md).
SHARED_CHUNKS_PER_THREAD = 8
#: ... for kernels that pay for each chunk: GatherND's row gather, whose prefetches start over
#: at each one, and ScatterElements on bands of columns, each chunk a pass over every row.
COARSE_CHUNKS_PER_THREAD = 4
#: ScatterND none splits its writes by ranges of target rows across threads
#: (:func:`scatter_tuples`). Off: every thread then scans every index, and on the 2-core VM of
#: benchmarks/README.md that cost more than the writes it shared out, from 1 MB to 200 MB of
#: data; only the copy splits.
ND_SPLIT_WRITES = False


def _share(name: str, args: tuple, n: int, work: int, chunks_per_thread: int | None = None,
           align: int = 1, alone: Callable[[], object] | None = None) -> list:
    """Run the kernel ``name`` of :mod:`ops.accel_kernels` (its arguments ``args``, then a range
    of rows) on its rows ``0..n``, split across the threads :mod:`ops.parallel` would use for
    ``work`` elements, and return the results (in no particular order). In one thread: one
    plain call of the kernel on ``0..n``, or ``alone()`` for a kernel whose plain call takes
    its range elsewhere in its arguments.

    Each thread calls the kernel's ``name + "_shared"`` version with one counter, through
    :func:`ops.parallel.map_woken` (pool threads start once the caller's kernel runs, not
    while the caller still holds the GIL): the threads take chunks of rows (a multiple of
    ``align``; ``chunks_per_thread`` each on average, default :data:`SHARED_CHUNKS_PER_THREAD`)
    as they finish the last, in compiled code, so a thread that starts late takes fewer; the
    caller's kernel returns once the pool threads have reported their parts done
    (:func:`ops.accel_kernels.await_parts`). Each row runs in exactly one thread. Without
    atomic counters (:mod:`ops.accel_intrinsics` did not install) each thread gets a range of
    its own (:func:`ops.parallel.map_parts`)."""
    parts = parallel.part_count(work)
    if parts <= 1 or n <= 1:
        return [alone() if alone is not None else _load()[name](*args, 0, n)]
    shared = _load()[name + "_shared"]
    if not _state["atomic"]:
        quiet = parallel.NO_WORDS
        return parallel.map_parts(lambda a, b: shared(*args, a, b, b - a, np.zeros(1, np.int64), quiet, 0), n, work)
    chunk = -(-n // (parts * (chunks_per_thread or SHARED_CHUNKS_PER_THREAD)))
    chunk = -(-chunk // align) * align
    counter = np.zeros(1, np.int64)
    return parallel.map_woken(lambda words, woken: shared(*args, 0, n, chunk, counter, words, woken), parts)


def _one_part(work: int) -> bool:
    """True when :func:`_share` would find ``work`` elements one thread's work (below two
    threads' worth, :data:`ops.parallel.MIN_PART` each): callers then call the kernel directly."""
    return work < 2 * parallel.MIN_PART


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
            except Exception:  # noqa: BLE001 - ImportError, or a numba built for another numpy: numpy path only
                _load_failed = True
                return None
            from . import accel_kernels as K

            jit = numba.njit(cache=True, nogil=True)
            for helper in (K.normalised, K.wrapped, K.tuple_row, K.copy_row, K.move_row, K.stream_row,
                           K.prefetch_row, K.prefetch_band, K.in_range, K.warm_row, K.put, K.line_shift,
                           K.tuples_in_range, K.row_of, K.prefetch_ahead, K.claim, K.wake, K.await_parts,
                           K.copy_band, K.pick_piece, K.flat_in_range):
                numba.extending.register_jitable(**INLINED)(helper)
            # plain calls (LLVM inlines the small fold): numba's IR inlining of a function with
            # several returns trips its own SSA check (NumbaIRAssumptionWarning); assign_last's
            # loop also ran slower inlined into scatter_elements (benchmarks/README.md)
            for helper in (K.fold_block, K.fold, K.assign_last, K.fold_packed, K.fold_bands, K.scatter_tuples_part,
                           K.scatter_words, K.gather_rows_wide, K.gather_rows_mixed, K.gather_tuples_checked):
                numba.extending.register_jitable(helper)
            try:
                from . import accel_intrinsics  # numba internals (llvmlite, cgutils): may move between versions
                accel_intrinsics.install(K.prefetch, K.prefetch_once, K.touch, K.stream_store, K.stream_copy16,
                                         K.store_fence, jit_options=INLINED, load_acquire=K.load_acquire,
                                         fetch_add=K.fetch_add)
                intrinsics = True
            except Exception:  # noqa: BLE001 - numba internals moved: no prefetches, ordinary stores, same results
                for helper in (K.prefetch, K.prefetch_once, K.touch, K.stream_store, K.stream_copy16, K.store_fence,
                               K.load_acquire, K.fetch_add):
                    numba.extending.register_jitable(**INLINED)(helper)
                intrinsics = False
            _state["atomic"] = intrinsics
            _kernels = {
                "gather_elements": jit(K.gather_elements),
                "gather_elements_bands": jit(K.gather_elements_bands),
                "gather_elements_last_checked": jit(K.gather_elements_last_checked),
                "gather_rows": jit(K.gather_rows),
                "gather_last": jit(K.gather_last),
                "gather_tuples": jit(K.gather_tuples),
                "scatter_tuples": jit(K.scatter_tuples),
                "scatter_elements": jit(K.scatter_elements),
                "scatter_rows": jit(K.scatter_rows),
                "wait_for_change": jit(K.wait_for_change),
                "gather_elements_shared": jit(K.gather_elements_shared),
                "gather_elements_bands_shared": jit(K.gather_elements_bands_shared),
                "gather_last_shared": jit(K.gather_last_shared),
                "gather_last_checked": jit(K.gather_last_checked),
                "gather_tuples_shared": jit(K.gather_tuples_shared),
                "gather_rows_shared": jit(K.gather_rows_shared),
                "scatter_elements_shared": jit(K.scatter_elements_shared),
            }
            K.bind_compiled(_kernels)
            if intrinsics:  # a plain load could be hoisted out of the poll loop
                part_threads.set_idle_wait(idle_wait(_kernels["wait_for_change"]))
    return _kernels


#: :func:`idle_wait`'s ``done`` when there is no word to bump.
NO_DONE = np.zeros(0, dtype=np.int64)
#: :func:`idle_wait` times this many polls once to turn :data:`ops.parallel.IDLE_SPIN_NS` into polls.
CALIBRATION_POLLS = 1 << 18


def idle_wait(wait_for_change):
    """The pool threads' wait between parts and the claimant's wait for a part's end
    (:func:`ops.part_threads.set_idle_wait`): the compiled poll
    :func:`ops.accel_kernels.wait_for_change` for about :data:`ops.parallel.IDLE_SPIN_NS`, its
    number of polls measured here, once; None when that time is 0."""
    if parallel.IDLE_SPIN_NS <= 0:
        return None
    flags = np.zeros(1, dtype=np.int64)
    wait_for_change(flags, 0, 0, 1, NO_DONE)  # compiled, or loaded from numba's cache, before the timing
    t0 = time.perf_counter_ns()
    wait_for_change(flags, 0, 0, CALIBRATION_POLLS, NO_DONE)
    polls = max(1, parallel.IDLE_SPIN_NS * CALIBRATION_POLLS // max(1, time.perf_counter_ns() - t0))

    def wait(words: np.ndarray, i: int, seen: int, done: np.ndarray = NO_DONE) -> None:
        wait_for_change(words, i, seen, polls, done)

    return wait


def small(work: int) -> bool:
    """True below :data:`SMALL_WORK` elements: the numpy small routes go first."""
    return work < SMALL_WORK


def available() -> bool:
    """numba imports (whether or not the accelerator is switched on)."""
    return _load() is not None


def switched_on() -> bool:
    """The switch alone (:func:`set_enabled`, ``INDEXFLOW_ACCEL``), without importing numba."""
    return _state["enabled"]


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
    return (not data.dtype.hasobject and data.dtype.itemsize in _COPY_AS
            and idx.size >= MIN_SIZE and kernel_index_type(idx.dtype))


def gather_elements(data: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray | None:
    """GatherElements on raw (not yet normalised) integer ``idx``, any axis: the numpy path's
    result as a new (possibly pooled) array, or None when an index is out of range (the
    caller's numpy path then raises the exact error). Rows of the indices, or bands of their
    columns, are split across threads (:func:`_gather_split`)."""
    one_call = gather_elements_plan(data, idx, axis)
    if one_call is not None:  # the common case: row starts kept by _element_rows, or few
        return one_call(data, idx)
    out = buffers.empty(idx.shape, data.dtype)
    if out.size == 0:
        return out
    copy_as = _COPY_AS[data.dtype.itemsize]
    idx2, bases, sa, last = _element_rows(data.shape, kernel_indices(idx), axis)
    args = (np.ascontiguousarray(data).reshape(-1).view(copy_as), idx2, out.reshape(idx2.shape).view(copy_as), bases,
            sa, last, int(data.shape[axis]), out.nbytes >= STREAM_MIN_BYTES)
    return out if _gather_split(args) else None


def _gather_split(args: tuple) -> bool:
    """Run :func:`gather_elements`' kernel on its operands ``args`` (the flat data as words, the
    ``(rows, columns)`` indices and output, row starts, axis stride, whether the axis is the
    last, its extent, streaming stores) across threads (:func:`_share`): by rows, or, on an
    axis other than the last whose picks spread over :data:`BANDS_MIN_SPAN_BYTES` or more of
    the table (:data:`PACKED_BANDS_MIN_SPAN_BYTES` when the bands are packed,
    :func:`_pack_bands`), by bands of columns (:func:`ops.accel_kernels.gather_elements_bands`). Rows
    whose picks the kernel prefetches (a span of
    :data:`ops.accel_kernels.PICKS_PREFETCH_MIN_BYTES` or more) are written with ordinary stores
    when more threads than :data:`PREFETCHED_PICKS_STREAM_THREADS` run. True when every index
    was in range."""
    from .accel_kernels import PICKS_PREFETCH_MIN_BYTES  # loaded with the kernels: not at start-up

    data, idx2, out2, bases, sa, last, size, stream = args
    rows, m = idx2.shape
    span = size * sa * data.itemsize
    pack = not last and _pack_bands(bases, size, data.itemsize)
    if last or span < (PACKED_BANDS_MIN_SPAN_BYTES if pack else BANDS_MIN_SPAN_BYTES):
        if stream and not last and span >= PICKS_PREFETCH_MIN_BYTES \
                and parallel.part_count(idx2.size) > PREFETCHED_PICKS_STREAM_THREADS:
            args = (*args[:-1], False)
        return _all_valid(_share("gather_elements", args, rows, idx2.size))
    width = band(data.itemsize)
    args = (data, idx2, out2, bases, sa, size, stream, width, pack)
    return _all_valid(_share("gather_elements_bands", args, m, idx2.size, COARSE_CHUNKS_PER_THREAD, width))


def _pack_bands(bases: np.ndarray, size: int, itemsize: int) -> bool:
    """GatherElements' bands copy a band's pieces together before picking from them
    (:func:`ops.accel_kernels.gather_elements_bands`' ``pack``; ScatterElements' folds likewise):
    when the rows that pick from one copy, the rows with one start (``bases``, consecutive rows
    sharing it), number at least :data:`PACK_MIN_ROWS_PER_POSITION` times the axis' extent
    ``size`` (the pieces copied), and a band's copy of elements of ``itemsize`` bytes takes no
    more than :data:`PACK_MAX_BYTES`."""
    if not PACK_BANDS or size * band(itemsize) * itemsize > PACK_MAX_BYTES:
        return False
    starts = 1 + int(np.count_nonzero(bases[1:] != bases[:-1]))
    return bases.size >= PACK_MIN_ROWS_PER_POSITION * size * starts


#: GatherElements' bands pack (:func:`_pack_bands`): a switch kept for measuring and testing
#: both ways; packed bands were faster, or level (1-byte elements), at every size, dtype and
#: thread count tried (benchmarks/README.md).
PACK_BANDS = True
#: ... when each packed copy of a band's pieces serves at least this many rows per position on
#: the axis: packing a band costs a copy of its ``size`` pieces, and each row that picks from the
#: copy gains; packing lost with a sixteenth of a row per position and won from an eighth
#: (benchmarks/README.md).
PACK_MIN_ROWS_PER_POSITION = 0.125
#: ... and when a band's copy (one per thread) takes at most this many bytes: packed bands won
#: with copies of up to 13 MB and lost with 51 MB, where the copy no longer stays in any cache
#: (benchmarks/README.md).
PACK_MAX_BYTES = 16 << 20


#: GatherElements on an axis other than the last gathers bands of columns, row after row
#: (:func:`_gather_split`), when the picks from one row start spread over this many bytes of the
#: table (the axis' extent times its stride), from two threads' worth of work up: in row order
#: each pick then waits on a line far from the last, where a band's picks stay in a few hundred
#: KB of cache. On the 2-core VM of benchmarks/README.md, whose 32 MB L3 is shared with other
#: guests (a table of 8 MB picked at random already costs what memory does), bands picking from
#: the table in place won at one thread from 16 MB and at two from 25 MB, and were level at
#: 12-16 MB (below, rows won).
BANDS_MIN_SPAN_BYTES = 15 << 20
#: ... and from this many bytes when the bands are packed (:func:`_pack_bands`): a band's picks
#: then stay in a few hundred KB of L2 in consecutive pages, and packed bands won over rows from
#: a few MB of table at one and two threads (benchmarks/README.md; 512 KB of L2 per core there).
PACKED_BANDS_MIN_SPAN_BYTES = 4 << 20
#: Rows whose picks are prefetched (:data:`ops.accel_kernels.PICKS_PREFETCH_MIN_BYTES`) stream
#: their stores in one thread only: split across two threads, streaming stores there were the
#: slower (in one thread level; bands and the last axis not affected: benchmarks/README.md). The
#: value is the largest thread count that streams them.
PREFETCHED_PICKS_STREAM_THREADS = 1


def gather_elements_plan(data: np.ndarray, idx: np.ndarray, axis: int):
    """:func:`gather_elements` as a function of ``(data, idx)`` of these shapes and dtypes (any
    strides) returning the result, or None for a bad index: one compiled call for work in one
    part (below two threads' worth), else split across threads when it runs
    (:func:`_gather_split`, which reads the thread count then); for a small call on the last
    axis of a cached table, one compiled call that checks every index in one pass first
    (:func:`_checks_first`). The operands that depend on the shapes alone are made here, once.
    None when ``idx`` is empty, or when split work has more rows than
    :data:`ROW_BASES_MAX_SIZE` (their starts are not kept)."""
    one_part = _one_part(idx.size)
    if idx.size == 0 or not one_part and prod(idx.shape[:_row_axes(data.shape, idx.shape, axis)]) > ROW_BASES_MAX_SIZE:
        return None
    word = np.dtype(_COPY_AS[data.dtype.itemsize])
    dtype, shape = data.dtype, idx.shape
    idx2, bases, sa, last = _element_rows(data.shape, idx, axis)
    rows, m = idx2.shape
    k = _load()["gather_elements"]
    size = int(data.shape[axis])
    stream = idx.size * data.dtype.itemsize >= STREAM_MIN_BYTES
    widen = idx.dtype not in INDEX_DTYPES
    flat_idx = shape != (rows, m)  # the shape of idx alone decides whether it needs the (rows, m) view
    as_word = _as(word, dtype)
    alloc = np.empty if one_part else buffers.empty
    # small calls on the last axis of a cached table: every index checked in one pass first
    checked_first = _load()["gather_elements_last_checked"] if one_part and _checks_first(data, idx, last) else None

    def one_call(data: np.ndarray, idx: np.ndarray) -> np.ndarray | None:
        idx2 = idx.astype(np.int64) if widen else np.ascontiguousarray(idx)
        if flat_idx:
            idx2 = idx2.reshape(rows, m)
        out = alloc(shape, dtype)
        out2 = as_word(out).reshape(rows, m) if flat_idx else as_word(out)
        if checked_first is not None:
            return out if checked_first(as_word(data.ravel()), idx2, out2, bases, size) < 0 else None
        if one_part:
            return out if k(as_word(data.ravel()), idx2, out2, bases, sa, last, size, stream, 0, rows) < 0 else None
        return out if _gather_split((as_word(data.ravel()), idx2, out2, bases, sa, last, size, stream)) else None

    return one_call


def _checks_first(data: np.ndarray, idx: np.ndarray, last: bool) -> bool:
    """GatherElements' plan checks all its indices in one pass before it gathers
    (:func:`ops.accel_kernels.gather_elements_last_checked`): on the last axis of a table under
    :data:`ops.accel_kernels.WARM_MIN_BYTES` (one the caches hold), for at most
    :data:`CHECK_FIRST_MAX_INDICES` indices (still in cache for the gather)."""
    from .accel_kernels import WARM_MIN_BYTES  # loaded with the kernels: not at start-up

    return last and data.nbytes < WARM_MIN_BYTES and idx.size <= CHECK_FIRST_MAX_INDICES


#: ... for at most this many indices (128 KB as int64).
CHECK_FIRST_MAX_INDICES = 1 << 14


def _as(word: np.dtype, dtype: np.dtype):
    """The function that views arrays of ``dtype`` as ``word`` (the same item size): the array
    itself when they are the same dtype (a view costs as much as a small kernel's loop over a
    few hundred elements)."""
    if word == dtype:
        return lambda a: a
    return lambda a: a.view(word)


def _element_rows(data_shape: tuple, idx: np.ndarray, axis: int):
    """The operands of the elementwise kernels: ``idx`` viewed as ``(rows, columns)``, each row's
    start in the flat data with the axis coordinate left out (int64, the index map's own
    :func:`ops.index_map.element_base` over the leading axes), the data stride of the axis, and
    whether the axis is the last (then ``bases`` includes every coordinate but the axis).

    The columns are the last axis, or, on another axis where ``idx`` has data's extents on
    every axis after it (the common case: the same shape), all those axes merged
    (:func:`_row_axes`): a column ``c`` is then the offset within that contiguous block in both,
    and the kernels' column term ``c`` and bands of columns hold as on the last axis. Without
    the merge a 3-D tensor of a few elements per last axis scattered on axis 0 had rows of a
    few columns, each update landing anywhere in the table."""
    key = (tuple(data_shape), tuple(idx.shape), axis)
    known = _ROW_BASES.get(key)
    if known is None:
        strides = np.array(row_major_strides(data_shape), dtype=np.int64)
        k = _row_axes(tuple(data_shape), tuple(idx.shape), axis)
        lead = tuple(idx.shape[:k])
        bases = np.ascontiguousarray(np.broadcast_to(element_base(lead, strides[:k], axis), lead), dtype=np.int64)
        # read-only whether or not the broadcast needed a copy: numba compiles one kernel per
        # array type, and a writable and a read-only ``bases`` would be two
        bases.setflags(write=False)
        known = bases.reshape(-1), int(strides[axis]), (prod(lead), prod(idx.shape[k:]))
        if bases.size <= ROW_BASES_MAX_SIZE:  # shared by later calls: the kernels only read it
            if len(_ROW_BASES) >= ROW_BASES_ENTRIES:
                _ROW_BASES.clear()
            _ROW_BASES[key] = known
    return idx.reshape(known[2]), known[0], known[1], axis == idx.ndim - 1


def _row_axes(data_shape: tuple, idx_shape: tuple, axis: int) -> int:
    """How many leading axes of ``idx`` index the rows of :func:`_element_rows`' view: up to
    and including ``axis`` when every later axis has data's extent, else all but the last."""
    if axis < len(idx_shape) - 1 and idx_shape[axis + 1:] == data_shape[axis + 1:]:
        return axis + 1
    return len(idx_shape) - 1


#: :func:`_element_rows` keeps the row starts of up to this many (shapes, axis) it has seen, each
#: of at most ``ROW_BASES_MAX_SIZE`` rows: a node re-run on every edit (the editor's small calls)
#: then skips building them, about a third of such a call's time.
ROW_BASES_ENTRIES = 64
ROW_BASES_MAX_SIZE = 1 << 16
_ROW_BASES: dict[tuple, tuple[np.ndarray, int]] = {}


# --------------------------------------------------------------------------------------------
# Gather on the last axis


#: Gather on the last axis runs compiled from this many times :data:`MIN_SIZE` output elements:
#: with its indices checked in the same compiled call (:func:`gather_last_plan`) it is level
#: with np.take from there and faster above (benchmarks/README.md).
LAST_AXIS_MIN_FACTOR = 1


def supports_last_axis(data: np.ndarray, indices: np.ndarray, axis: int) -> bool:
    """Gather on the last axis (not the first) of numeric data of 1, 2, 4 or 8 bytes, with at
    least ``LAST_AXIS_MIN_FACTOR * MIN_SIZE`` output elements, runs compiled (:func:`gather_last`)."""
    return (0 < axis == data.ndim - 1 and not data.dtype.hasobject and data.dtype.itemsize in _COPY_AS
            and indices.dtype.kind in "iu"
            and indices.size * (data.size // max(data.shape[-1], 1)) >= LAST_AXIS_MIN_FACTOR * MIN_SIZE)


def gather_last(data: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Gather on the last axis with normalised ``idx`` (every value in ``[0, size)``; the
    caller's :func:`ops.checks.normalize_indices` checked them): ``np.take(data, idx, -1)`` as a
    new (possibly pooled) array, elements moved as unsigned words, rows of data split across
    threads. np.take copies each element through a generic loop; this kernel's loop runs from
    a data row in cache (benchmarks/README.md)."""
    size = data.shape[-1]
    out = buffers.empty(data.shape[:-1] + idx.shape, data.dtype)
    if out.size == 0:
        return out
    word = _COPY_AS[data.dtype.itemsize]
    rows = out.size // max(idx.size, 1)
    table = np.ascontiguousarray(data).reshape(rows, size).view(word)
    dest = out.reshape(rows, idx.size).view(word)
    flat = kernel_indices(idx).reshape(-1)
    _share("gather_last", (table, flat, dest), rows, out.size)
    return out


def gather_last_plan(data: np.ndarray, indices: np.ndarray):
    """Gather on the last axis as a function of ``(data, indices)`` of these shapes and dtypes
    (any strides) that checks the raw indices (either sign) in the same compiled call as the
    gather (:func:`ops.accel_kernels.gather_last_checked`) and returns the result, or None for
    a bad index; None (the caller checks, then :func:`gather_last`) for int indices other than
    int32/int64, no indices, or work of more than one part."""
    out_size = indices.size * (data.size // max(data.shape[-1], 1))
    if indices.dtype not in INDEX_DTYPES or indices.size == 0 or not _one_part(out_size):
        return None
    kernel = _load()["gather_last_checked"]
    dtype, shape = data.dtype, data.shape[:-1] + indices.shape
    size, n = data.shape[-1], indices.size
    rows = out_size // n
    word = np.dtype(_COPY_AS[dtype.itemsize])
    # the shapes alone decide which reshapes the kernel's operands need (each costs a small
    # call noticeable time)
    table_shape = None if data.ndim == 2 else (rows, size)
    flat_shape = None if indices.ndim == 1 else (n,)
    out_shape = None if shape == (rows, n) else shape

    def one_call(data: np.ndarray, indices: np.ndarray) -> np.ndarray | None:
        table = np.ascontiguousarray(data).view(word)
        flat = np.ascontiguousarray(indices)
        out = np.empty((rows, n), word)
        if kernel(table if table_shape is None else table.reshape(table_shape),
                  flat if flat_shape is None else flat.reshape(flat_shape), out) >= 0:
            return None
        out = out.view(dtype)
        return out if out_shape is None else out.reshape(out_shape)

    return one_call


# --------------------------------------------------------------------------------------------
# Gather axis 0, GatherND (batch_dims 0) and ScatterND none: rows picked by index tuples


def _words(table: np.ndarray) -> np.ndarray:
    """The C-contiguous ``(rows, block)`` table viewed as rows of the widest unsigned words
    that divide a row's bytes (a row copy is then a copy of whole words, bit for bit)."""
    return _word_view(table.dtype, table.shape[1])(table)


@functools.cache
def _word_view(dtype: np.dtype, block: int):
    """The function :func:`_words` applies to ``(rows, block)`` tables of ``dtype``: a direct
    view as the word where numpy allows one, else a view through bytes (numpy refuses a direct
    view unless the word divides the item size, e.g. a 3-byte record in rows of 8 bytes).
    Made once per (dtype, block): working the word out costs more than the view."""
    row_bytes = block * dtype.itemsize
    word = np.dtype(_COPY_AS[next(u for u in (8, 4, 2, 1) if row_bytes % u == 0)])
    try:
        np.empty((1, block), dtype).view(word)
    except (ValueError, TypeError):
        through = np.dtype(np.uint8)
        return lambda table: table.view(through).view(word)
    return lambda table: table.view(word)


def supports_tuples(data: np.ndarray, indices: np.ndarray, k: int, work: int) -> bool:
    """Rows of ``data``'s first ``k`` axes picked by integer index tuples (any non-object data;
    see :func:`kernel_index_type` for the index types)."""
    return (k >= 1 and not data.dtype.hasobject and kernel_index_type(indices.dtype)
            and work >= MIN_SIZE and data.ndim >= k)


#: Gather on axis 0 runs the compiled row gather only for rows of at least this many bytes from
#: a table of at least ``ROWS_MIN_TABLE_BYTES``: its prefetching pays only when the table is
#: out of the per-core caches, and ``np.take`` copies rows of under 24 bytes with fixed-size
#: moves, faster than the kernel's loop unless the table is much larger (benchmarks/README.md).
ROWS_MIN_ROW_BYTES = 24
ROWS_MIN_TABLE_BYTES = 2 << 20
#: Gather on axis 0 prefetches streamed rows of a cache line or more from tables of at least
#: this many bytes non-temporally (:func:`ops.accel_kernels.prefetch_once`, :func:`_rows_once`;
#: shorter rows keep :func:`ops.accel_kernels.gather_rows`' own loop): a row picked at random from a
#: table many times the last-level cache is read once, and keeping its lines out of L2 and L3
#: made such gathers faster, while tables up to a few times the cache got slower
#: (benchmarks/README.md).
ROWS_ONCE_MIN_BYTES = 64 << 20


def supports_rows(data: np.ndarray, indices: np.ndarray, work: int) -> bool:
    """Gather on axis 0 runs compiled (:func:`gather_tuples` with ``k = 1``): as
    :func:`supports_tuples`, for rows and tables large enough (:data:`ROWS_MIN_ROW_BYTES`)."""
    row_bytes = data.nbytes // max(data.shape[0], 1) if data.ndim else 0
    return (row_bytes >= ROWS_MIN_ROW_BYTES and data.nbytes >= ROWS_MIN_TABLE_BYTES
            and supports_tuples(data, indices, 1, work))


def kernel_index_type(dtype: np.dtype) -> bool:
    """Index dtypes the checking kernels take: int32/int64 as they are, and the narrower
    integers (int8, int16, uint8..uint32) widened to int64 exactly. uint64 stays on numpy
    (values from 2**63 up would wrap to negative indices)."""
    dtype = np.dtype(dtype)
    return dtype in INDEX_DTYPES or (dtype.kind in "iu" and dtype.itemsize < 8 and dtype.isnative)


def kernel_indices(indices: np.ndarray) -> np.ndarray:
    """``indices`` as the kernels read them (int32/int64, C-contiguous)."""
    if indices.dtype not in INDEX_DTYPES:
        indices = indices.astype(np.int64)
    return np.ascontiguousarray(indices)


def _tuple_extents(data_shape: tuple, k: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The sizes and row-major strides of ``data_shape[:k]``, the axes index tuples of length
    ``k`` address, as tuples of ints: as the row gather of index tuples takes them
    (:func:`ops.accel_kernels.gather_tuples`: one compiled loop per tuple length)."""
    lead = tuple(int(d) for d in data_shape[:k])
    return lead, tuple(row_major_strides(lead))


def _tuple_limits(data_shape: tuple, k: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_tuple_extents` as int64 arrays, as the scatters' kernels take them."""
    lead, strides = _tuple_extents(data_shape, k)
    return np.array(lead, dtype=np.int64), np.array(strides, dtype=np.int64)


def _rows_stream(touched: int, row_bytes: int, k: int) -> bool:
    """The row gathers (:func:`gather_tuples`, ``k`` indices per row) write with streaming
    stores when the bytes a call touches (table, indices and output) are at least
    :data:`STREAM_MIN_BYTES`, or :data:`SHORT_ROWS_STREAM_FACTOR` times that for rows of up to
    a cache line: the output then evicts the table it reads from the caches, and a
    non-temporal store also saves reading each output line in before it is overwritten. Gather
    on axis 0 (``k == 1``) streams rows of :data:`ROWS_STREAM_MIN_ROW_BYTES` or more only
    (benchmarks/README.md)."""
    if k == 1 and row_bytes < ROWS_STREAM_MIN_ROW_BYTES:
        return False
    if row_bytes <= 64:
        return touched >= SHORT_ROWS_STREAM_FACTOR * STREAM_MIN_BYTES
    return touched >= STREAM_MIN_BYTES


#: Rows of up to a cache line: below this many times :data:`STREAM_MIN_BYTES` touched, ordinary
#: stores were as fast or faster than streaming ones (rows under a line go one word per
#: streaming store, :func:`ops.accel_kernels.copy_row`, where the ordinary copy moves them in one
#: or two vector moves; rows of one line were slower streamed too: benchmarks/README.md).
SHORT_ROWS_STREAM_FACTOR = 4
#: Gather on axis 0 (:func:`ops.accel_kernels.gather_rows`) streams rows of at least this many
#: bytes (two cache lines) only: rows of 16 to 96 bytes were as fast or faster with ordinary
#: stores at every output size tried (up to 250 MB, one and two threads), where GatherND's row
#: gather gained from streaming rows of one line (benchmarks/README.md).
ROWS_STREAM_MIN_ROW_BYTES = 128


def _rows_once(data: np.ndarray) -> bool:
    """Gather on axis 0 asks for non-temporal prefetches (``gather_rows``' ``once``, which its
    loop for streamed rows of a cache line or more follows): the table has at least
    :data:`ROWS_ONCE_MIN_BYTES`."""
    return data.nbytes >= ROWS_ONCE_MIN_BYTES


def gather_tuples(data: np.ndarray, indices: np.ndarray, k: int) -> np.ndarray | None:
    """``out[i] = data[indices[i]]`` where the last axis of ``indices`` (length ``k``) indexes
    ``data``'s first ``k`` axes and each pick is a whole ``data.shape[k:]`` block: GatherND with
    batch_dims 0, and Gather on axis 0 with ``indices[..., None]``. Shape
    ``indices.shape[:-1] + data.shape[k:]``. Indices are raw int32/int64 (negatives allowed);
    returns None when one is out of range or the output is empty (the caller's numpy path then
    raises the exact error, or returns the empty result)."""
    one_call = gather_tuples_plan(data, indices, k)
    if one_call is not None:  # the common small call
        return one_call(data, indices)
    out = buffers.empty(tuple(indices.shape[:-1]) + tuple(data.shape[k:]), data.dtype)
    if out.size == 0:
        return None
    idx2 = kernel_indices(indices).reshape(-1, k)
    limits, strides = _tuple_extents(data.shape, k)
    block = prod(data.shape[k:])
    table = _words(np.ascontiguousarray(data).reshape(-1, block))
    dest = _words(out.reshape(-1, block))
    stream = _rows_stream(out.nbytes + data.nbytes + indices.nbytes, block * data.dtype.itemsize, k)
    n = idx2.shape[0]
    if k == 1:  # one index per row (Gather axis 0): no tuples to combine
        args = (table, idx2.reshape(-1), limits[0], dest, stream, _rows_once(data))
        results = _share("gather_rows", args, n, out.size)
    else:
        args = (table, idx2, limits, strides, dest, stream)
        results = _share("gather_tuples", args, n, out.size, COARSE_CHUNKS_PER_THREAD)
    return out if _all_valid(results) else None


def gather_tuples_plan(data: np.ndarray, indices: np.ndarray, k: int):
    """:func:`gather_tuples` for work in one part (below two threads' worth) as one compiled
    call: a function of ``(data, indices)`` of these shapes and dtypes (any strides) returning
    the result, or None for a bad index; None when the work is more than one part or empty.
    The operands that depend on the shapes alone are made here, once."""
    shape = tuple(indices.shape[:-1]) + tuple(data.shape[k:])
    size = prod(shape)
    if size == 0 or not _one_part(size):
        return None
    dtype, block = data.dtype, prod(data.shape[k:])
    n = size // block
    words = _word_view(dtype, block)
    row = words(np.empty((1, block), dtype))  # one output row as words
    word, width = row.dtype, row.shape[1]
    stream = _rows_stream(size * dtype.itemsize + data.nbytes + indices.nbytes, block * dtype.itemsize, k)
    limits, strides = _tuple_extents(data.shape, k)
    if k == 1:  # one index per row: no tuples to combine
        rows_kernel, rows, once = _load()["gather_rows"], limits[0], _rows_once(data)

        def one_call(data: np.ndarray, indices: np.ndarray) -> np.ndarray | None:
            out = np.empty((n, width), word)
            if rows_kernel(words(np.ascontiguousarray(data).reshape(-1, block)), kernel_indices(indices).reshape(n),
                           rows, out, stream, once, 0, n) < 0:
                return out.view(dtype).reshape(shape)
            return None

        return one_call
    kernel = _load()["gather_tuples"]

    def one_call(data: np.ndarray, indices: np.ndarray) -> np.ndarray | None:
        out = np.empty((n, width), word)
        if kernel(words(np.ascontiguousarray(data).reshape(-1, block)), kernel_indices(indices).reshape(n, k),
                  limits, strides, out, stream, 0, n) < 0:
            return out.view(dtype).reshape(shape)
        return None

    return one_call


def scatter_tuples(data: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray | None:
    """ScatterND with reduction none: a copy of ``data`` (a new, possibly pooled array) with
    ``out[indices[i]] = updates[i]`` in row-major order of ``i`` (the last duplicate wins).
    Indices are raw int32/int64. Returns None when one is out of range, or when there are
    updates and ``data`` is empty (the caller's numpy path then raises the exact error, or
    gives the result).

    Data whose copy splits (:func:`ops.parallel.copy_splits`) is copied in parts across
    threads (:func:`ops.parallel.copy_into`), then written in this thread. With
    :data:`ND_SPLIT_WRITES` and work for more than one thread, the target
    rows split into one range per thread instead: each thread
    copies its rows of ``data`` and then writes, in order, the updates whose row is in its
    range, scanning all the indices. Each row is written by one thread, with its updates in
    their order, so the result is the one thread's; every thread checks every index, so a bad
    one is found whichever thread holds its row. Data that is not C-contiguous is copied whole
    first there, in the calling thread."""
    k = indices.shape[-1]
    n = indices.size // k if k else 0
    out = buffers.empty(data.shape, data.dtype)
    if out.size == 0:
        return out if n == 0 else None
    rows = prod(data.shape[:k])
    block = out.size // rows
    dest = out.reshape(rows, block)
    kernel = _load()["scatter_tuples"]
    limits, strides = _tuple_limits(data.shape, k)
    table = _words(dest)
    idx2 = kernel_indices(indices).reshape(n, k)
    vals = _words(np.ascontiguousarray(updates, dtype=data.dtype).reshape(n, block))
    if not (ND_SPLIT_WRITES and parallel.copy_splits(data.nbytes)):
        parallel.copy_into(out, data)
        return out if kernel(table, idx2, limits, strides, vals, 0, rows) < 0 else None
    src = data.reshape(rows, block) if data.flags.c_contiguous else None
    if src is None:  # no row ranges to copy from: copy it all first, here
        np.copyto(out, data)

    def part(a: int, b: int) -> int:
        if src is not None:
            np.copyto(dest[a:b], src[a:b])
        return kernel(table, idx2, limits, strides, vals, a, b)

    results = parallel.map_parts(part, rows, out.size + n * block)
    return out if _all_valid(results) else None


def scatter_tuples_plan(out: np.ndarray, indices: np.ndarray):
    """:func:`scatter_tuples`' writes in one thread, in place on ``out`` (the C-contiguous copy of
    data), as a function of ``(out, indices, updates)`` of these shapes and dtypes (``out``
    C-contiguous, the others any strides) that returns False when an index is out of range
    (``out`` is then partly written and must be discarded; the caller's numpy path raises the
    exact error). The operands that depend on the shapes alone are made here, once; None when
    there is nothing to write."""
    k = indices.shape[-1]
    n = indices.size // k if k else 0
    if n == 0 or out.size == 0:
        return None
    kernel = _load()["scatter_tuples"]
    limits, strides = _tuple_limits(out.shape, k)
    block, dtype = prod(out.shape[k:]), out.dtype
    rows = out.size // block
    words = _word_view(dtype, block)

    def one_call(out: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> bool:
        table = words(out.reshape(-1, block))
        vals = words(np.ascontiguousarray(updates, dtype=dtype).reshape(n, block))
        return kernel(table, kernel_indices(indices).reshape(n, k), limits, strides, vals, 0, rows) < 0

    return one_call


# --------------------------------------------------------------------------------------------
# scatter reductions


def supports_fold(dtype: np.dtype, reduction: str, size: int) -> bool:
    return reduction in OPS and np.dtype(dtype) in FOLD_DTYPES and size >= MIN_SIZE


def supports_assign(dtype: np.dtype, size: int) -> bool:
    """ScatterElements with reduction none can move ``dtype``'s elements as unsigned words."""
    dtype = np.dtype(dtype)
    return not dtype.hasobject and dtype.itemsize in _COPY_AS and size >= MIN_SIZE


def supports_scatter_elements(dtype: np.dtype, indices: np.ndarray, reduction: str) -> bool:
    """ScatterElements with ``reduction`` on ``dtype`` and these indices runs compiled:
    reduction none for elements of 1, 2, 4 or 8 bytes, the folds for :data:`FOLD_DTYPES`;
    indices as :func:`kernel_index_type` takes them; at least :data:`MIN_SIZE` updates."""
    if not kernel_index_type(indices.dtype) or indices.size < MIN_SIZE:
        return False
    if reduction == "none":
        return supports_assign(dtype, indices.size)
    return supports_fold(dtype, reduction, indices.size)


def scatter_elements(out: np.ndarray, indices: np.ndarray, values: np.ndarray, axis: int, reduction: str,
                     source: np.ndarray | None = None) -> bool:
    """ScatterElements in place on the C-contiguous ``out`` (the copy of data), from the raw
    ``indices`` (negatives allowed; shape checked by the caller) and ``values`` of the same
    shape: ``out[..., v, ...] = f(out[..., v, ...], value)`` along ``axis`` in row-major order
    of the updates, exactly as ``ufunc.at`` on the index map's flat offsets (reduction none:
    the last write wins, as fancy assignment; elements move as unsigned words, bit for bit).
    Returns False when an index is out of range (``out`` is then partly written and must be
    discarded; the caller's numpy path raises the exact error).

    With ``source`` (the data), ``out`` is a new array of its shape and dtype, not yet written:
    the packed folds (:func:`ops.accel_kernels.fold_packed`) fill it from ``source`` where
    they cover every element of it (:func:`_folds_fill`), else ``source`` is copied into it
    first (:func:`ops.parallel.copy_into`).

    Threads split the updates along a dimension other than the axis, so no two threads write
    one cell and each cell's updates keep their order: rows of the ``(rows, columns)`` view
    (:func:`_element_rows`) when the axis is the last (each row writes one target row), else
    its columns in bands (:func:`band`; column ``c`` of the updates writes column ``c`` of
    ``out``, and a band's targets stay in cache); one thread for rank 1."""
    one_call = scatter_elements_plan(out, indices, axis, reduction)
    if one_call is not None:  # the common small call
        if source is not None:
            parallel.copy_into(out, source)
        return one_call(out, indices, values)
    kernel = _load()["scatter_elements"]
    code = ASSIGN if reduction == "none" else OPS[reduction]
    values = np.ascontiguousarray(values, dtype=out.dtype)
    idx2, bases, sa, last = _element_rows(out.shape, kernel_indices(indices), axis)
    size = int(out.shape[axis])
    n, m = idx2.shape
    # rows when the axis is the last, else bands of columns, in chunks of whole bands
    width = 0 if last else band(out.itemsize)
    pack = (not last and size * sa * out.itemsize >= PACKED_FOLDS_MIN_SPAN_BYTES
            and _pack_bands(bases, size, out.itemsize))
    if source is not None and not (pack and _folds_fill(source, indices, axis)):
        parallel.copy_into(out, source)
        source = None
    src = out if source is None else source
    if code == ASSIGN:
        word = _COPY_AS[out.dtype.itemsize]
        out, values, src = out.view(word), values.view(word), src.view(word)
    flat, src = out.reshape(-1), src.reshape(-1)
    if indices.size == 0:
        return True
    v2 = values.reshape(idx2.shape)
    args = (flat, idx2, v2, bases, sa, last, size, code, not last, width, pack, src)
    results = _share("scatter_elements", args, m if width else n, indices.size,
                     COARSE_CHUNKS_PER_THREAD if width else SHARED_CHUNKS_PER_THREAD, max(width, 1),
                     alone=lambda: kernel(flat, idx2, v2, bases, sa, last, size, code, 0, n, 0, m, width or m, pack,
                                          src))
    return _all_valid(results)


def _folds_fill(source: np.ndarray, indices: np.ndarray, axis: int) -> bool:
    """The packed folds of ScatterElements write every element of the output once, so they can
    read ``source`` (C-contiguous) instead of a copy of it: ``indices`` has ``source``'s extent
    on every axis but ``axis`` (one row start per leading position, each start's rows
    consecutive, the bands across all the columns)."""
    return (source.flags.c_contiguous and indices.ndim == source.ndim
            and indices.shape[:axis] == source.shape[:axis] and indices.shape[axis + 1:] == source.shape[axis + 1:])


#: ScatterElements on an axis other than the last folds each band into a packed copy
#: (:func:`ops.accel_kernels.fold_packed`, where :func:`_pack_bands` allows) from this many bytes
#: of table spanned by one row start's targets: from about 2 MB packed folds won at one and two
#: threads, below they were level at one (benchmarks/README.md).
PACKED_FOLDS_MIN_SPAN_BYTES = 3 << 19


def band(itemsize: int) -> int:
    """Columns per band of :func:`scatter_elements` and :func:`_gather_split` for elements of
    ``itemsize`` bytes: :data:`BAND`, or :data:`BAND_BYTES` worth of narrower elements."""
    return max(BAND, BAND_BYTES // itemsize)


def scatter_elements_plan(out: np.ndarray, indices: np.ndarray, axis: int, reduction: str):
    """:func:`scatter_elements` in one compiled call, when one thread does the work (rank 1, or
    below two threads' worth): a function of ``(out, indices, values)`` of these shapes and
    dtypes (``out`` C-contiguous, the others any strides), in place, returning False for a bad
    index; None for more work, or none. The operands that depend on the shapes alone are made
    here, once."""
    if indices.size == 0 or not (indices.size == indices.shape[-1] or _one_part(indices.size)):
        return None
    kernel = _load()["scatter_elements"]
    code = ASSIGN if reduction == "none" else OPS[reduction]
    word = np.dtype(_COPY_AS[out.dtype.itemsize]) if code == ASSIGN else out.dtype
    dtype = out.dtype
    idx2, bases, sa, last = _element_rows(out.shape, indices, axis)
    n, m = idx2.shape
    size = int(out.shape[axis])
    widen = indices.dtype not in INDEX_DTYPES
    reshape = indices.shape != (n, m)  # the shape alone decides whether the (n, m) views need a reshape
    as_word = _as(word, dtype)

    def one_call(out: np.ndarray, indices: np.ndarray, values: np.ndarray) -> bool:
        idx2 = indices.astype(np.int64) if widen else np.ascontiguousarray(indices)
        v2 = as_word(np.ascontiguousarray(values, dtype=dtype))
        if reshape:
            idx2, v2 = idx2.reshape(n, m), v2.reshape(n, m)
        flat = as_word(out).ravel()
        return kernel(flat, idx2, v2, bases, sa, last, size, code, 0, n, 0, m, m, False, flat) < 0

    return one_call


def scatter_rows_fold(table: np.ndarray, rows: np.ndarray, values: np.ndarray, reduction: str) -> None:
    """ScatterND reduction in place on the ``(n_rows, block)`` table: fold ``values[i]`` into
    ``table[rows[i]]`` in order of ``i`` (``ufunc.at(table, rows, values)``). Threads take
    disjoint ranges of target rows, each scanning all ``rows`` in order."""
    k = _load()["scatter_rows"]
    rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1)
    values = np.ascontiguousarray(values, dtype=table.dtype).reshape(rows.size, table.shape[1])
    code = OPS[reduction]
    if _one_part(values.size):  # the common small call: no closure, no result list
        k(table, rows, values, code, 0, table.shape[0])
        return
    parallel.run_parts(lambda a, b: k(table, rows, values, code, a, b), table.shape[0], values.size)


def fold_rows_plan(dtype: np.dtype, block: int, n_rows: int, reduction: str, work: int):
    """:func:`scatter_rows_fold` for ``work`` updates in one part, as a function of ``(out,
    rows, values)`` (``out`` the C-contiguous copy of data, ``n_rows`` rows of ``block``
    elements of ``dtype``; ``rows`` in range, as the index map's; ``values`` of ``dtype``, any
    strides) that folds in place; None when more than one part could run. The kernel and the
    reduction code are looked up here, once."""
    if not _one_part(work):
        return None
    kernel, code = _load()["scatter_rows"], OPS[reduction]

    def one_call(out: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        values = np.ascontiguousarray(values)
        kernel(out.reshape(n_rows, block), rows if rows.ndim == 1 else rows.reshape(-1),
               values if values.ndim == 2 and values.shape[1] == block else values.reshape(-1, block),
               code, 0, n_rows)  # (reshapes that change nothing cost as much as a few hundred folds)

    return one_call
