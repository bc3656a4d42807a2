"""The compiled kernels of :mod:`ops.accel`, written as plain Python.

:func:`ops.accel._load` compiles them with ``numba.njit(cache=True, nogil=True)`` and makes
the small helpers (:func:`normalised`, :func:`wrapped`, :func:`put`, :func:`tuple_row`,
:func:`copy_row`, :func:`move_row`,
:func:`prefetch_row`, :func:`prefetch_band`, :func:`line_shift`, :func:`in_range`,
:func:`copy_band`, :func:`pick_piece`, :func:`fold_packed`,
:func:`fold_block`, :func:`fold`, :func:`warm_row`, :func:`assign_last`,
:func:`scatter_tuples_part`, :func:`gather_rows_wide`, :func:`stream_row`, :func:`prefetch`,
:func:`prefetch_once`,
:func:`touch`, :func:`stream_store`, :func:`stream_copy16`, :func:`store_fence`, :func:`fetch_add`,
:func:`claim`, :func:`wake`) callable from them. As plain Python
they run too (slowly), which is what they mean: the docstrings are the contracts, and
tests/ops/test_accel.py checks the compiled kernels against the numpy path bit for bit and
against the index map.

Rows of a gather move as unsigned words (the caller views both tables so), so a copy is bit
exact for every dtype. Kernels that read raw indices return -1, or the position of the first
bad index, and write nothing after it.
"""
from __future__ import annotations

import numpy as np


def gather_elements(data, idx, out, bases, sa, last, size, stream, r0, r1):
    """out[r, j] = data[bases[r] + (v if last else j + v * sa)] for rows r0..r1 of the indices
    viewed as (rows, columns) (:func:`ops.accel._element_rows`: the last axis, or every axis
    after the axis), where ``v`` is ``idx[r, j]`` made non-negative (``+ size``):
    ``bases[r]`` is where row ``r`` starts in ``data`` with the axis coordinate left out
    (:func:`ops.index_map.element_base`), ``sa`` the data stride of the axis, ``last`` whether
    the axis is the last. Returns -1, or the flat position ``r * last + j`` of the first index
    outside ``[-size, size)`` (``out`` is then incomplete).

    On axes other than the last each row of indices is first checked in one vectorised pass
    (:func:`in_range`); a row whose indices are all in ``[0, size)`` (the common case) is then
    copied by a loop with no test in it, which LLVM unrolls (from a table where one row's picks
    spread over :data:`PICKS_PREFETCH_MIN_BYTES` or more, prefetching the pick
    :data:`PICKS_AHEAD` on: a pick there waits on the last-level cache or memory, and the
    out-of-order window alone does not hold enough of them); any other row goes through
    :func:`wrapped` element by element. On the last axis the same holds for rows of
    :data:`CHECKED_LAST_MIN` picks or more from a table under :data:`WARM_MIN_BYTES`; other
    rows check each index as it is read (one unsigned comparison inline, which branch
    prediction passes), which is faster where the picks wait on memory or the row is too short
    to unroll, until an index outside ``[0, size)``: the row is then gathered again from its
    start through :func:`wrapped`, which has no branch, so a row whose indices change
    sign at random costs about what one of a single sign does (the inline test would
    mispredict at every change: such rows took four times as long). On the last axis, when a row makes
    at least as many picks as its data row has cache lines, the data row is first read in
    order, one load per line (:func:`warm_row`), when ``data`` has at least
    :data:`WARM_MIN_BYTES` (a table that fits the caches gains nothing from it): the hardware
    prefetcher follows that, where the picks in random order each wait for their line
    (benchmarks/README.md has the measurements behind both choices)."""
    m = idx.shape[1]
    shift = line_shift(data.itemsize)
    # as many picks as the row has lines, from a table larger than the caches: warm_row's step
    cached = data.shape[0] * data.itemsize < WARM_MIN_BYTES
    warm = 1 << shift if last and m >= size >> shift and not cached else 0
    # rows checked in one pass first: every axis but the last, and the last with long rows from a cached table
    checked = not last or (cached and m >= CHECKED_LAST_MIN)
    far = not last and size * sa * data.itemsize >= PICKS_PREFETCH_MIN_BYTES
    table = data.reshape((1, data.shape[0]))  # the prefetch takes a 2-D array
    for r in range(r0, r1):
        base = bases[r]
        warm_row(data, base, size, warm)
        if checked and in_range(idx, r, 0, m, size):
            if last:
                for j in range(m):
                    value = data[np.uint64(base + idx[r, j])]
                    if stream:
                        stream_store(out, r, j, value)
                    else:
                        out[r, j] = value
            elif far:  # the pick PICKS_AHEAD on prefetched (its index is in range: the row was checked)
                for j in range(m - PICKS_AHEAD):
                    prefetch(table, 0, np.uint64(base + j + PICKS_AHEAD + idx[r, j + PICKS_AHEAD] * sa))
                    put(data, np.uint64(base + j + idx[r, j] * sa), out, r, j, stream)
                for j in range(max(0, m - PICKS_AHEAD), m):
                    put(data, np.uint64(base + j + idx[r, j] * sa), out, r, j, stream)
            else:
                # unsigned offsets: numba then adds no wrap-around test for negative indices
                for j in range(m):
                    value = data[np.uint64(base + j + idx[r, j] * sa)]
                    if stream:
                        stream_store(out, r, j, value)
                    else:
                        out[r, j] = value
        elif last:
            j = 0
            while j < m:  # one comparison per index, which branch prediction passes ...
                v = np.int64(idx[r, j])
                if np.uint64(v) >= np.uint64(size):
                    break
                put(data, np.uint64(base + v), out, r, j, stream)
                j += 1
            if j < m:  # ... until the first outside [0, size): the row again, made non-negative without a branch
                for k in range(m):
                    v = wrapped(idx[r, k], size)
                    if np.uint64(v) >= np.uint64(size):
                        store_fence()
                        return r * m + k
                    put(data, np.uint64(base + v), out, r, k, stream)
        else:
            for j in range(m):
                v = wrapped(idx[r, j], size)
                if np.uint64(v) >= np.uint64(size):
                    store_fence()
                    return r * m + j
                put(data, np.uint64(base + j + v * sa), out, r, j, stream)
    store_fence()
    return -1


def put(data, i, out, r, j, stream):
    """``out[r, j] = data[i]``, with a streaming store when ``stream``."""
    value = data[i]
    if stream:
        stream_store(out, r, j, value)
    else:
        out[r, j] = value


def gather_elements_bands(data, idx, out, bases, sa, size, stream, band, pack, c0, c1):
    """:func:`gather_elements` on an axis other than the last, for columns ``c0..c1`` of every
    row, ``band`` columns at a time: each band is gathered for all the rows before the next
    starts, so its picks land in ``size`` short pieces of the table (one per position on the
    axis, ``band`` columns wide) that stay in the caches while every row picks from them,
    where whole rows spread each row's picks over the whole table. With ``pack``, the band's
    pieces are first copied next to each other into a buffer of the kernel's own
    (:func:`copy_band`, again whenever a row's start differs from the last row's), and the rows
    pick from there: a few hundred KB in consecutive pages, where the pieces in place lie a
    table row apart, one to a page for rows of a page or more, more pages than the TLB holds.
    The indices of the row :data:`BAND_AHEAD` rows on are prefetched, a line at a time (rows
    far apart in memory, which no prefetcher follows; stepping by :func:`line_shift`, not
    :func:`prefetch_band`'s division, which cost this loop 3-7%). Each row's piece goes
    through :func:`pick_piece`. Returns -1, or the flat position ``r * m + j`` of the first
    index outside ``[-size, size)`` met (``out`` is then incomplete)."""
    n, m = idx.shape
    step = 1 << line_shift(idx.itemsize)  # a line's worth of indices: no division per row
    scratch = np.empty(size * band if pack else 0, data.dtype)
    for cb in range(c0, c1, band):
        width = min(c1, cb + band) - cb
        packed = np.int64(-1)  # the row start whose pieces ``scratch`` holds (starts are >= 0)
        for r in range(n):
            if r + BAND_AHEAD < n:
                c = 0
                while c < width:
                    prefetch(idx, r + BAND_AHEAD, cb + c)
                    c += step
            if pack:
                if bases[r] != packed:
                    copy_band(data, np.uint64(bases[r] + cb), sa, scratch, np.uint64(0), width, size, width)
                    packed = bases[r]
                q = pick_piece(scratch, np.uint64(0), width, idx, r, cb, width, size, out, stream)
            else:
                q = pick_piece(data, np.uint64(bases[r] + cb), sa, idx, r, cb, width, size, out, stream)
            if q >= 0:
                store_fence()
                return r * m + cb + q
    store_fence()
    return -1


def copy_band(src, s0, ss, dst, d0, ds, rows, width):
    """``dst[d0 + v * ds + q] = src[s0 + v * ss + q]`` for ``v`` in ``0..rows`` and ``q`` in
    ``0..width`` (1-D arrays, offsets unsigned): a band's pieces copied between the table, a
    row ``ss`` apart, and a packed buffer of :func:`gather_elements_bands` or
    :func:`fold_packed`. The source piece :data:`PACK_AHEAD` pieces on is prefetched, a line
    at a time, and its last word (a piece need not start on a line)."""
    w = np.uint64(width)
    last = np.uint64(width - 1)
    step = np.uint64(1 << line_shift(src.itemsize))  # words per line
    table = src.reshape((1, src.shape[0]))  # the prefetch takes a 2-D array
    for v in range(rows):
        if v + PACK_AHEAD < rows:
            ahead = s0 + np.uint64(v + PACK_AHEAD) * np.uint64(ss)
            p = np.uint64(0)
            while p < w:
                prefetch(table, 0, ahead + p)
                p += step
            prefetch(table, 0, ahead + last)
        i = s0 + np.uint64(v) * np.uint64(ss)
        o = d0 + np.uint64(v) * np.uint64(ds)
        for q in range(width):
            dst[o + np.uint64(q)] = src[i + np.uint64(q)]


#: :func:`copy_band` prefetches the piece this many pieces ahead (pieces a table row apart; 4 and
#: 16 were no faster: benchmarks/README.md).
PACK_AHEAD = 8


def pick_piece(table, base, stride, idx, r, cb, width, size, out, stream):
    """``out[r, cb + q] = table[base + q + v * stride]``, ``v`` = ``idx[r, cb + q]`` made
    non-negative, for ``q`` in ``0..width``: one piece of a row of
    :func:`gather_elements_bands`. Each index is tested as it is read (one unsigned comparison,
    which branch prediction passes) until the first outside ``[0, size)``; the piece is then
    gathered again from its start through :func:`wrapped`, as :func:`gather_elements` does on
    the last axis (that pass writes with ordinary stores: LLVM merges :func:`put`'s two stores
    to one address and drops the streaming mark). A first pass over the piece
    (:func:`in_range`) made every pick wait for the piece's indices to arrive. Offsets are
    unsigned: with a signed column numba tests each subscript for a negative value. Returns
    -1, or the ``q`` of the first index outside ``[-size, size)``."""
    piece = idx[r, cb:]
    q = 0
    while q < width:  # one comparison per index ...
        v = np.int64(piece[q])
        if np.uint64(v) >= np.uint64(size):
            break
        value = table[base + np.uint64(q) + np.uint64(v) * np.uint64(stride)]
        if stream:
            stream_store(out, r, np.uint64(cb + q), value)
        else:
            out[r, np.uint64(cb + q)] = value
        q += 1
    if q < width:  # ... until the first outside [0, size): the piece again, without a branch on the sign
        for q in range(width):
            v = wrapped(piece[q], size)
            if np.uint64(v) >= np.uint64(size):
                return q
            put(table, base + np.uint64(q) + np.uint64(v) * np.uint64(stride), out, r, np.uint64(cb + q), stream)
    return -1


#: :func:`gather_elements` on an axis other than the last prefetches the pick this many picks on,
#: when one row's picks spread over at least ``PICKS_PREFETCH_MIN_BYTES`` of the table: 0.69-0.85
#: of the time without at 11-15 MB, level at 4-8 MB and at 34 MB (benchmarks/README.md). Larger
#: tables split across threads go by bands of columns instead (:data:`ops.accel.BANDS_MIN_SPAN_BYTES`).
PICKS_AHEAD = 64
PICKS_PREFETCH_MIN_BYTES = 8 << 20


#: :func:`gather_elements` on the last axis checks a row of indices in one pass before copying
#: (as on other axes) when the row has at least this many and the table fits the caches.
CHECKED_LAST_MIN = 32


#: The elementwise kernels read a target row in order before picking from it (:func:`warm_row`)
#: only when the whole flat table has at least this many bytes: below it the table stays in
#: the caches between calls and the extra loads only cost time (benchmarks/README.md).
WARM_MIN_BYTES = 1 << 20
#: ... and :func:`gather_last` only from this many: reading its rows in order first cost it time
#: on tables that stay in the last-level cache, where GatherElements and ScatterElements gained
#: or broke even (benchmarks/README.md).
LAST_WARM_MIN_BYTES = 8 << 20


def in_range(idx, r, c0, c1, size):
    """Every ``idx[r, c]`` for ``c`` in ``c0..c1`` is in ``[0, size)`` (one unsigned comparison
    each, no early exit, so the loop is vectorised)."""
    outside = False
    for c in range(c0, c1):
        outside |= np.uint64(np.int64(idx[r, c])) >= np.uint64(size)
    return not outside


def flat_in_range(idx, size):
    """Every index of the C-contiguous ``idx`` is in ``[0, size)``: one pass over them as one
    flat run, where :func:`in_range` row by row ends each short row with a reduction of its
    own. ``v`` is in range when both ``v`` and ``size - 1 - v`` are non-negative, so the pass
    ORs them together and tests the sign once (no early exit)."""
    flat = idx.reshape(idx.size)
    top = np.int64(size) - 1
    signs = np.int64(0)
    for c in range(flat.shape[0]):
        v = np.int64(flat[c])
        signs |= v | (top - v)
    return signs >= 0


def fold_block(out, idx, vals, r0, r1, c0, c1, size, bases, shift, cstep, vstep, warm, op):
    """For rows ``r`` in ``r0..r1`` and, within each, columns ``c`` in ``c0..c1``, in that
    order: ``out[t] = f(out[t], vals[r, c])`` with ``t = bases[r] + shift + c * cstep + v * vstep``,
    ``v`` = ``idx[r, c]`` made non-negative; ``f`` is :func:`fold`'s ``op``. With ``warm`` > 0,
    each target row (``size`` elements from ``bases[r]``) is first read in order, every
    ``warm``-th element (:func:`warm_row`). Returns -1, or the flat position ``r * last + c``
    of the first index outside ``[-size, size)`` (``out`` is then partly written). The index
    test is one unsigned comparison, inline, that branch prediction passes, until a row's
    first index outside ``[0, size)``; the rest of that row goes through
    :func:`wrapped`, which has no branch (a fold cannot start the row again, as
    :func:`gather_elements` does), so rows of mixed signs do not mispredict at every change of
    sign. Offsets are unsigned, so numba adds no wrap-around test where it indexes."""
    m = idx.shape[1]
    banded = c1 - c0 < m  # a slice of each row: rows far apart in memory, which no prefetcher follows
    for r in range(r0, r1):
        base = bases[r] + shift
        warm_row(out, base, size, warm)
        if banded and r + BAND_AHEAD < r1:
            prefetch_band(idx, r + BAND_AHEAD, c0, c1)
            prefetch_band(vals, r + BAND_AHEAD, c0, c1)
        c = c0
        while c < c1:  # as in :func:`gather_elements` on the last axis: a predicted comparison ...
            uc = np.uint64(c)  # an unsigned column: numba adds no wrap-around test where it indexes
            v = np.int64(idx[r, uc])
            if np.uint64(v) >= np.uint64(size):
                break
            t = np.uint64(base + c * cstep + v * vstep)
            out[t] = fold(out[t], vals[r, uc], op)
            c += 1
        while c < c1:  # ... until the first index outside [0, size), then :func:`wrapped`
            uc = np.uint64(c)
            v = wrapped(idx[r, uc], size)
            if np.uint64(v) >= np.uint64(size):
                return r * m + c
            t = np.uint64(base + c * cstep + v * vstep)
            out[t] = fold(out[t], vals[r, uc], op)
            c += 1
    return -1


def prefetch_band(arr, r, c0, c1):
    """Prefetch the cache lines of ``arr[r, c0:c1]``, one per line's worth of elements from
    ``c0``. (This keeps its two integer divisions per call, where :func:`warm_row` and
    :func:`prefetch_row` have none: the division-free forms tried, a line's worth by
    :func:`line_shift`, with or without the band's last line, or a fixed 8 elements, each made
    :func:`fold_block`'s compiled loop keep the reduction code or the size on the stack instead
    of in a register, which cost ScatterElements on the last axis up to twice the time; the
    divisions, which cannot be hoisted out of the row loop, hold no register across it
    (benchmarks/README.md).)"""
    for c in range(c0, c1, max(1, 64 // arr.itemsize)):
        prefetch(arr, r, c)


def line_shift(itemsize):
    """log2 of the elements of ``itemsize`` bytes (1, 2, 4 or 8: the kernels' words) in a
    64-byte cache line, ``6 - log2(itemsize)``, by shifts, not ``64 // itemsize``: numba reads an
    array's item size at run time, and an integer division costs some tens of cycles. (No
    branches either: numba's IR inlining of a conditional expression trips its own SSA
    check.)"""
    return 6 - (itemsize >> 1) + (itemsize >> 3)


def fold(x, y, op):
    """The reduction of ``y`` into ``x``: ``op`` 0..3 add/mul/max/min with numpy's scalar
    semantics (``maximum(x, y) = x if x > y or isnan(x) else y``: a NaN propagates from either
    side, of two equal values the update wins), 4 assign (``y``). One test of ``op`` per
    element, which the loop's branch prediction passes: as fast as one loop per ``op``, and one
    compilation per dtype instead of five (benchmarks/README.md)."""
    if op == 0:
        return x + y
    if op == 1:
        return x * y
    if op == 2:
        return x if (x > y or x != x) else y
    if op == 3:
        return x if (x < y or x != x) else y
    return y


def warm_row(out, base, size, warm):
    """With ``warm`` > 0, read ``out[base:base + size]`` in order, every ``warm``-th element
    (:func:`touch`; callers pass a cache line's worth, ``1 << line_shift(itemsize)``, or 0 for
    no reading), so that random picks or updates in it find it in cache. The step comes from
    the caller, computed once per call, and the loop counts up to ``size``: no integer
    division per row (a stepped ``range`` divides for its trip count), and no value of its own
    held across the caller's row loop (one more there cost :func:`fold_block`'s inner loop a
    register)."""
    p = 0 if warm > 0 else size
    while p < size:
        touch(out, np.uint64(base + p))
        p += warm


def normalised(index, size):
    """``index`` made non-negative (``+ size``), or -1 when it is outside ``[-size, size)``. The
    common case, already in ``[0, size)``, costs one unsigned comparison, a branch that
    prediction passes while the indices keep one sign (:func:`wrapped` where they may
    not)."""
    v = np.int64(index)
    if np.uint64(v) < np.uint64(size):
        return v
    if v < 0 and v >= -size:
        return v + size
    return np.int64(-1)


def wrapped(index, size):
    """``index`` plus ``size`` where it is negative, without a branch (the sign bit, spread by an
    arithmetic shift, selects the ``+ size``): in ``[0, size)`` exactly when ``index`` is in
    ``[-size, size)``, which its callers test with one unsigned comparison, a branch that
    prediction passes. Indices whose signs change at random then cost what indices of one sign
    do, where :func:`normalised`'s branch on the sign mispredicts at each change (rows of such
    indices took four times as long). On indices of one sign it costs more than
    :func:`normalised` (short row gathers 15-20% slower with it), so the kernels switch to it
    only from a row's (or a range's) first index outside ``[0, size)`` on. (Returning -1 for
    a bad index, as :func:`normalised` does, through a select, cost the rows it serves 8-19%.)"""
    v = np.int64(index)
    return v + (np.int64(size) & (v >> np.int64(63)))


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


def tuples_in_range(idx, limits, r0, r1):
    """Every component ``c`` of the index tuples ``idx[r0:r1]`` is in ``[0, limits[c])`` (one
    unsigned comparison each, no early exit)."""
    outside = False
    for r in range(r0, r1):
        for c in range(len(limits)):
            outside |= np.uint64(np.int64(idx[r, c])) >= np.uint64(limits[c])
    return not outside


def row_of(idx, r, strides):
    """Row number of the index tuple ``idx[r]``, all of whose components are in range
    (:func:`tuples_in_range`), as an unsigned integer: ``sum(idx[r, c] * strides[c])``, the last
    stride being 1. ``strides`` is a tuple, so the loop has a fixed length."""
    k = len(strides)
    row = np.uint64(np.int64(idx[r, k - 1]))
    for c in range(k - 1):
        row += np.uint64(np.int64(idx[r, c])) * np.uint64(strides[c])
    return row


def prefetch_ahead(table, row, short, last):
    """Prefetch ``table[row]``: a row of at most a cache line (``short``) spans at most two, so
    one prefetch at each end (``last`` is its last word); a longer one, :func:`prefetch_row`."""
    if short:
        prefetch(table, row, np.uint64(0))
        prefetch(table, row, np.uint64(last))
    else:
        prefetch_row(table, row)


def touch(arr, i):
    """Nothing in Python; compiled, a load of ``arr[i]`` that is kept although unused, so its
    cache line is in L1 afterwards (:mod:`ops.accel_intrinsics`)."""


def load_acquire(arr, i):
    """``arr[i]``; compiled, an atomic load with acquire ordering (:mod:`ops.accel_intrinsics`),
    so a loop polling it sees another thread's store."""
    return arr[i]


def fetch_add(arr, i, value):
    """``arr[i] += value``, returning ``arr[i]`` as it was; compiled, one atomic
    read-modify-write (:mod:`ops.accel_intrinsics`), so threads sharing ``arr`` never get the
    same value. This plain meaning (where the intrinsics did not install) is not atomic, and
    :func:`ops.accel._share` then gives each thread a counter of its own."""
    old = arr[i]
    arr[i] = old + value
    return old


def claim(counter, start, stop, chunk):
    """The first row of the next chunk of ``chunk`` rows of ``start..stop`` that no caller
    sharing ``counter`` has taken (``counter[0]`` counts the chunks handed out, from 0), or -1
    when none is left."""
    r0 = start + fetch_add(counter, 0, 1) * chunk
    return r0 if r0 < stop else -1


def wake(words, n):
    """Bump the signal words ``words[0, 0..n)`` (:func:`fetch_add`): the pool threads polling them
    (:func:`wait_for_change`) start the parts :func:`ops.parallel.map_woken` handed them. A
    shared kernel's first step in the calling thread, once it no longer holds the GIL."""
    signals = words[0]
    for i in range(n):
        fetch_add(signals, i, 1)


#: :func:`await_parts` polls each pool thread's finish word at most this many times by default
#: (about a millisecond here) before it returns anyway (the caller then joins from Python).
FINISH_POLLS = 1 << 20


def await_parts(words, n, polls=FINISH_POLLS):
    """Until each of the first ``n`` pool threads has reported its part done (its finish word,
    ``words[1, i]``, has reached its goal, ``words[2, i]``; :mod:`ops.part_threads`), or
    ``polls`` polls each: a shared kernel's last step in the calling thread. The pool
    threads need the GIL between their kernel and their report, which they then take at once;
    returned to Python first, the caller would wait for it, asleep, until they let go, and then
    wake slowly (benchmarks/README.md)."""
    finishes = words[1]
    for i in range(n):
        goal = words[2, i]
        for _ in range(polls):
            if load_acquire(finishes, i) >= goal:
                break


def wait_for_change(flags, i, seen, polls, done):
    """Bump ``done[i]`` (:func:`fetch_add`) when ``done`` has that word, then poll ``flags[i]``
    up to ``polls`` times (:func:`load_acquire`; the caller holds no GIL while this runs): True
    as soon as it differs from ``seen``, False once the polls are used up. A pool thread's wait
    for its next part, which first tells the claimant its part is done, from here, where the
    thread no longer holds the GIL the claimant is about to take; the claimant's wait for that
    word, with an empty ``done`` (:mod:`ops.part_threads`)."""
    if i < done.shape[0]:
        fetch_add(done, i, 1)
    for _ in range(polls):
        if load_acquire(flags, i) != seen:
            return True
    return False


def prefetch(arr, i, j):
    """Nothing in Python; compiled, a prefetch of ``arr[i, j]``'s cache line
    (:mod:`ops.accel_intrinsics`)."""


def prefetch_once(arr, i, j):
    """Nothing in Python; compiled, a non-temporal prefetch of ``arr[i, j]``'s cache line, for a
    line read once (:mod:`ops.accel_intrinsics`)."""


def stream_store(arr, i, j, value):
    """``arr[i, j] = value``; compiled as a non-temporal store (:mod:`ops.accel_intrinsics`)."""
    arr[i, j] = value


def stream_copy16(src, i, j, dst, r, b):
    """``dst[r, b:b + w] = src[i, j:j + w]``, ``w`` the words in 16 bytes; ``dst[r, b]``'s
    address is a multiple of 16. Compiled: one 16-byte load and one non-temporal 16-byte store
    (:mod:`ops.accel_intrinsics`)."""
    w = 16 // dst.itemsize
    dst[r, b:b + w] = src[i, j:j + w]


def store_fence():
    """Nothing in Python; compiled, it orders the streaming stores before the kernel returns."""


def copy_row(table, row, out, r, stream):
    """out[r, :] = table[row, :] (``row`` and ``r`` non-negative), with streaming stores when
    ``stream`` (one word per store), else by :func:`move_row`."""
    if stream:
        i, t = np.uint64(row), np.uint64(r)
        for b in range(np.uint64(table.shape[1])):
            stream_store(out, t, b, table[i, b])
    else:
        move_row(table, row, out, r)


def move_row(src, i, dst, r):
    """dst[r, :] = src[i, :] (``i`` and ``r`` non-negative) for 2-D C-contiguous arrays of the
    same word and row length that do not overlap. Rows of up to eight words move as two
    overlapping groups with unsigned offsets, which LLVM makes one or two vector moves: the
    first four words and the last four (the first two and the last two for rows of two or
    three; words in both are written twice, with the same value). Longer rows keep the word
    loop (a loop of four-word groups was slower there). Signed offsets made numba add a
    negative-index test to each load and store, which kept LLVM from merging the moves, and
    the word loop ran its run-time alias checks for every row (benchmarks/README.md)."""
    one = np.uint64(1)
    n, i, r = np.uint64(src.shape[1]), np.uint64(i), np.uint64(r)
    if n > np.uint64(8):
        for b in range(src.shape[1]):
            dst[r, b] = src[i, b]
    elif n >= np.uint64(4):
        e = n - np.uint64(4)
        a0, a1, a2, a3 = src[i, np.uint64(0)], src[i, one], src[i, np.uint64(2)], src[i, np.uint64(3)]
        c0, c1, c2, c3 = src[i, e], src[i, e + one], src[i, e + np.uint64(2)], src[i, e + np.uint64(3)]
        dst[r, np.uint64(0)], dst[r, one], dst[r, np.uint64(2)], dst[r, np.uint64(3)] = a0, a1, a2, a3
        dst[r, e], dst[r, e + one], dst[r, e + np.uint64(2)], dst[r, e + np.uint64(3)] = c0, c1, c2, c3
    elif n >= np.uint64(2):
        e = n - np.uint64(2)
        a0, a1, c0, c1 = src[i, np.uint64(0)], src[i, one], src[i, e], src[i, e + one]
        dst[r, np.uint64(0)], dst[r, one], dst[r, e], dst[r, e + one] = a0, a1, c0, c1
    elif n == one:
        dst[r, np.uint64(0)] = src[i, np.uint64(0)]


def stream_row(table, row, out, r):
    """out[r, :] = table[row, :] (C-contiguous tables of unsigned words) with streaming stores:
    single words up to the first 16-byte boundary of ``out[r]``, then 16 bytes at a time
    (:func:`stream_copy16`), then single words. For rows of a cache line or more
    (:func:`gather_rows_wide`), where :func:`copy_row`'s one word per store costs more
    instructions than its vectorised plain copy (benchmarks/README.md)."""
    nb = table.shape[1]
    lg = 6 - line_shift(out.itemsize)  # log2(itemsize)
    start = np.uint64(out.ctypes.data) + np.uint64(r) * np.uint64(nb << lg)
    gap = (np.uint64(0) - start) & np.uint64(15)  # bytes to the next 16-byte boundary
    # a row not on a word boundary (never seen: numpy aligns words) goes a word at a time
    head = nb if gap & np.uint64((1 << lg) - 1) else min(nb, np.int64(gap >> np.uint64(lg)))
    for b in range(head):
        stream_store(out, r, b, table[row, b])
    vec = 4 - lg  # log2(words in 16 bytes)
    b = head
    for _ in range((nb - head) >> vec):
        stream_copy16(table, row, b, out, r, b)
        b += 1 << vec
    for t in range(b, nb):
        stream_store(out, r, t, table[row, t])


#: GatherND's row gather (:func:`gather_tuples`; Gather on axis 0 has :data:`ROWS_AHEAD`) and
#: ScatterND's folds (:func:`scatter_rows`) work this many rows ahead (a power of two): a row's
#: number is computed, and its cache lines prefetched, ``AHEAD`` rows before it is copied or
#: folded, so that many memory misses overlap instead of one at a time (the choice of 32, which
#: was 8: benchmarks/README.md).
AHEAD = 32
#: The folds of :func:`fold_block` in a band of columns prefetch the band of the indices and
#: updates this many rows ahead (farther was no faster there; benchmarks/README.md).
BAND_AHEAD = 8


def prefetch_row(table, row, once=False):
    """Prefetch every cache line of ``table[row]``: one prefetch per line's worth of words from
    its first word, and one of its last word, so a row that does not start on a line boundary
    (numpy aligns large arrays to 16 bytes, not 64) also has its last line asked for; with
    ``once``, non-temporal prefetches (:func:`prefetch_once`). The words per line come from
    shifts (:func:`line_shift`), not ``64 // itemsize``: numba reads the item size at run time,
    and two integer divisions per row (that one and a stepped ``range``'s trip count) cost a
    gather of short rows more than its copy."""
    shift = line_shift(table.itemsize)  # log2(words per line)
    nb = table.shape[1]
    if once:
        for q in range((nb + (1 << shift) - 1) >> shift):
            prefetch_once(table, row, q << shift)
        prefetch_once(table, row, nb - 1)
    else:
        for q in range((nb + (1 << shift) - 1) >> shift):
            prefetch(table, row, q << shift)
        prefetch(table, row, nb - 1)


#: :func:`gather_rows` prefetches the row it will copy this many rows later (rows of a cache
#: line or more); rows shorter than a line, :data:`ROWS_AHEAD_SHORT` rows later. The prefetch
#: reads its index straight from ``idx``, so nothing but the copy waits on it (the choice of
#: distances: benchmarks/README.md).
ROWS_AHEAD = 16
ROWS_AHEAD_SHORT = 32
#: :func:`gather_rows`' loop for ordinary stores prefetches only from tables of at least this
#: many bytes: from a table that stays in the caches the prefetches cost more than they save,
#: from larger ones they save more than they cost (benchmarks/README.md). Streamed rows always
#: prefetch.
ROWS_PREFETCH_MIN_BYTES = 4 << 20


def gather_rows(table, idx, size, out, stream, once, r0, r1):
    """out[r] = table[v] for r in r0..r1, ``v`` = ``idx[r]`` made non-negative (whole rows of
    the (n_rows, words) tables), written with streaming stores when ``stream``. While row ``r``
    is copied, the row of ``idx[r + ahead]`` is prefetched (:data:`ROWS_AHEAD`, or
    :data:`ROWS_AHEAD_SHORT` for rows under a cache line; an index out of range there is
    skipped, its error comes when its row is reached), from tables of
    :data:`ROWS_PREFETCH_MIN_BYTES` or more when the stores are ordinary. Streamed rows of a
    cache line or more go to :func:`gather_rows_wide`, which prefetches non-temporally when
    ``once``; streamed shorter rows (which ops' callers do not ask for) to
    :func:`gather_rows_mixed`. The loop here, for ordinary stores, counts rows as unsigned
    integers (a signed one made numba test ``idx[r]`` for a negative position) and has no test
    of ``stream`` per row: with the two, the kernel was slower on short rows from a cached
    table (benchmarks/README.md). Indices in
    ``[0, size)`` take one comparison each, which branch prediction passes; from the first
    other index on, :func:`gather_rows_mixed` goes on without a branch on the sign (indices of
    mixed signs took twice as long on short rows). Returns -1, or the first ``r`` whose index
    is outside ``[-size, size)`` (``out`` is then incomplete)."""
    if stream:
        if table.shape[1] * table.itemsize >= 64:
            return gather_rows_wide(table, idx, size, out, once, r0, r1)
        bad = gather_rows_mixed(table, idx, size, out, stream, True, r0, r1)
        store_fence()
        return bad
    short = table.shape[1] * table.itemsize < 64
    ahead = np.uint64(ROWS_AHEAD_SHORT if short else ROWS_AHEAD)
    last = np.uint64(table.shape[1] - 1)
    stop = np.uint64(r1)
    prefetching = table.shape[0] * table.shape[1] * table.itemsize >= ROWS_PREFETCH_MIN_BYTES
    for r in range(np.uint64(r0), stop):  # indices in [0, size): one predicted comparison each ...
        if prefetching and r + ahead < stop:
            w = normalised(idx[r + ahead], size)
            if w >= 0:
                prefetch_ahead(table, np.uint64(w), short, last)
        v = np.int64(idx[r])
        if np.uint64(v) >= np.uint64(size):  # ... until the first index outside [0, size)
            return gather_rows_mixed(table, idx, size, out, stream, prefetching, np.int64(r), r1)
        move_row(table, v, out, r)
    return -1


def gather_rows_mixed(table, idx, size, out, stream, prefetching, r0, r1):
    """:func:`gather_rows`' loop from its first index outside ``[0, size)`` on, through
    :func:`wrapped`, which has no branch: indices of mixed signs then cost what
    indices of one sign do. Rows counted as unsigned integers, as there; rows prefetched when
    ``prefetching`` (:func:`gather_rows` decides). A plain call, not inlined: in
    :func:`gather_rows`' body this loop made its loop for indices in range 14-20% slower on
    short rows."""
    short = table.shape[1] * table.itemsize < 64
    ahead = np.uint64(ROWS_AHEAD_SHORT if short else ROWS_AHEAD)
    last = np.uint64(table.shape[1] - 1)
    stop = np.uint64(r1)
    for r in range(np.uint64(r0), stop):
        if prefetching and r + ahead < stop:
            w = wrapped(idx[r + ahead], size)
            if np.uint64(w) < np.uint64(size):
                prefetch_ahead(table, np.uint64(w), short, last)
        row = wrapped(idx[r], size)
        if np.uint64(row) >= np.uint64(size):
            return np.int64(r)
        copy_row(table, row, out, r, stream)
    return -1


def gather_rows_wide(table, idx, size, out, once, r0, r1):
    """:func:`gather_rows` for streamed rows of a cache line or more: rows prefetched
    :data:`ROWS_AHEAD` rows ahead (non-temporally when ``once``), copied by :func:`stream_row`.
    A plain call, not inlined: written into :func:`gather_rows`, this loop made the loop for
    short rows there slower (benchmarks/README.md)."""
    r = r0
    while r < r1:  # as in :func:`gather_rows`: a predicted comparison per index ...
        if r + ROWS_AHEAD < r1:
            w = normalised(idx[r + ROWS_AHEAD], size)
            if w >= 0:
                prefetch_row(table, w, once)
        v = np.int64(idx[r])
        if np.uint64(v) >= np.uint64(size):
            break
        stream_row(table, v, out, r)
        r += 1
    while r < r1:  # ... until the first index outside [0, size), then wrapped
        if r + ROWS_AHEAD < r1:
            w = wrapped(idx[r + ROWS_AHEAD], size)
            if np.uint64(w) < np.uint64(size):
                prefetch_row(table, w, once)
        row = wrapped(idx[r], size)
        if np.uint64(row) >= np.uint64(size):
            store_fence()
            return r
        stream_row(table, row, out, r)
        r += 1
    store_fence()
    return -1


def gather_last(data, idx, out, r0, r1):
    """out[r, j] = data[r, idx[j]] for rows r0..r1 of ``data`` viewed as (rows, size) and
    ``out`` as (rows, n), both of unsigned words: Gather on the last axis (rows are the
    leading dimensions, ``idx`` the flattened indices, already normalised to ``[0, size)`` by
    the caller). Each data row is read while it is in cache; the offsets are unsigned, so
    numba adds no wrap-around test and LLVM unrolls the loop (three instructions a pick). When a
    row gets at least as many picks as it has cache lines, from a table of
    :data:`LAST_WARM_MIN_BYTES` or more, each row is first read in order (:func:`warm_row`), as
    :func:`gather_elements` does; from a smaller table of :data:`LAST_AHEAD_MIN_BYTES` or more
    with rows of :data:`LAST_AHEAD_MIN_ROW_BYTES` or more, the row :data:`LAST_AHEAD` on is
    prefetched instead, a line at a time, while this one is picked from (picks in random order
    leave the hardware prefetcher nothing to follow). Otherwise (the table in cache) rows go in
    pairs, each index read once for both: faster there, and slower where rows wait on L3 or
    memory, with or without the read-ahead (benchmarks/README.md)."""
    n = idx.shape[0]
    size = data.shape[1]
    shift = line_shift(data.itemsize)
    table_bytes = data.shape[0] * size * data.itemsize
    every_line = n >= size >> shift  # at least as many picks as the row has lines
    warm = 1 << shift if every_line and table_bytes >= LAST_WARM_MIN_BYTES else 0
    ahead = 1 << shift if (every_line and not warm and table_bytes >= LAST_AHEAD_MIN_BYTES
                           and size * data.itemsize >= LAST_AHEAD_MIN_ROW_BYTES) else 0
    if warm or ahead:
        for r in range(r0, r1):
            row = data[r]
            warm_row(row, 0, size, warm)
            if ahead and r + LAST_AHEAD < r1:
                q = 0
                while q < size:
                    prefetch(data, r + LAST_AHEAD, q)
                    q += ahead
            dst = out[r]
            for j in range(n):
                dst[j] = row[np.uint64(idx[j])]
        return
    r = r0
    while r + 1 < r1:  # rows in cache: in pairs, each index read once for both
        row, dst, row2, dst2 = data[r], out[r], data[r + 1], out[r + 1]
        for j in range(n):
            v = np.uint64(idx[j])
            dst[j] = row[v]
            dst2[j] = row2[v]
        r += 2
    if r < r1:
        row, dst = data[r], out[r]
        for j in range(n):
            dst[j] = row[np.uint64(idx[j])]


def gather_last_checked(data, idx, out):
    """:func:`gather_last` on every row, with raw indices (int32 or int64, either sign) checked
    here first: one pass over ``idx`` (:func:`flat_in_range`) when every index is in ``[0, size)``;
    otherwise each is made non-negative (:func:`normalised`) into a copy, which
    the gather then reads. Returns -1, or the position of the first index outside
    ``[-size, size)`` (``out`` is then untouched). One compiled call for the whole Gather, where
    its caller's separate check cost more than the gather of a small tensor."""
    n = idx.shape[0]
    size = data.shape[1]
    if flat_in_range(idx, size):
        _gather_last(data, idx, out, 0, data.shape[0])
        return -1
    fixed = np.empty(n, np.int64)
    for j in range(n):
        v = normalised(idx[j], size)
        if v < 0:
            return j
        fixed[j] = v
    _gather_last(data, fixed, out, 0, data.shape[0])
    return -1


#: :func:`gather_last` prefetches the data row this many rows on, from tables of
#: ``LAST_AHEAD_MIN_BYTES`` (larger than L2) up to :data:`LAST_WARM_MIN_BYTES` with rows of
#: ``LAST_AHEAD_MIN_ROW_BYTES`` or more: faster when the table comes from memory or L3, a few
#: percent slower when the same call runs again on a table still in L2; rows of 1 KB lost both
#: ways (benchmarks/README.md).
LAST_AHEAD = 1
LAST_AHEAD_MIN_BYTES = 1 << 20
LAST_AHEAD_MIN_ROW_BYTES = 2048


#: :func:`gather_tuples` checks the index tuples of this many rows in one pass before it copies
#: them with no test (a block of indices then stays in L1 between the two passes).
CHECK_BLOCK = 512


def gather_tuples(table, idx, limits, strides, out, stream, r0, r1):
    """out[r] = table[row(idx[r])] for r in r0..r1 (whole rows of the (n_rows, words) tables),
    written with streaming stores when ``stream``; ``limits`` and ``strides`` are tuples (numba
    compiles one loop per tuple length, with the components' loop unrolled). Block by block of
    :data:`CHECK_BLOCK` rows, the indices are checked in one pass (:func:`tuples_in_range`) and
    the rows copied by a loop with no test, the row :data:`AHEAD` rows later prefetched
    (:func:`prefetch_ahead`, from its index as it is: a prefetch never faults). From a block with
    an index outside ``[0, limit)`` on (negative indices, or an error),
    :func:`gather_tuples_checked` does the rest. Returns -1, or the flat position ``r * k + c``
    of the first bad index component (``out`` is then incomplete)."""
    last = table.shape[1] - 1
    short = table.shape[1] * table.itemsize <= 64
    for b0 in range(r0, r1, CHECK_BLOCK):
        b1 = min(r1, b0 + CHECK_BLOCK)
        if not tuples_in_range(idx, limits, b0, b1):
            return gather_tuples_checked(table, idx, limits, strides, out, stream, b0, r1)
        # two loops, not a test of ``stream`` per row, which slowed the loop (benchmarks/README.md)
        if stream:
            for r in range(b0, b1):
                if r + AHEAD < r1:
                    prefetch_ahead(table, row_of(idx, r + AHEAD, strides), short, last)
                row, t = row_of(idx, r, strides), np.uint64(r)
                for b in range(np.uint64(table.shape[1])):
                    stream_store(out, t, b, table[row, b])
        else:
            for r in range(b0, b1):
                if r + AHEAD < r1:
                    prefetch_ahead(table, row_of(idx, r + AHEAD, strides), short, last)
                move_row(table, row_of(idx, r, strides), out, r)
    store_fence()
    return -1


def gather_tuples_checked(table, idx, limits, strides, out, stream, r0, r1):
    """:func:`gather_tuples` with each index checked (and a negative one made non-negative) as
    its row is worked out, :data:`AHEAD` rows before the row is copied (its lines prefetched
    then). A plain call, for the blocks from the first that :func:`tuples_in_range` refuses."""
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


#: :func:`scatter_tuples_part` collects the rows of this many updates at a time before it writes
#: those in its part (a range test per update would be a branch the predictor misses on random
#: targets; benchmarks/README.md).
FILTER_BATCH = 1024
#: The row scatters prefetch the target row of the update this many updates ahead, in tables of
#: at least ``SCATTER_PREFETCH_MIN_BYTES`` (a table that stays in the caches only pays for the
#: prefetches, up to a few MB; benchmarks/README.md).
SCATTER_AHEAD = 32
SCATTER_PREFETCH_MIN_BYTES = 4 << 20


def scatter_tuples(table, idx, limits, strides, vals, r0, r1):
    """table[row(idx[r])] = vals[r] for every r in order whose row is in r0..r1 (the last
    duplicate wins): on the whole table here, on a part of it in :func:`scatter_tuples_part`
    (a plain call: its buffers in this function's body slowed the loops below). A single
    index column is read without :func:`tuple_row`'s loop (rows of one word: one store each,
    :func:`scatter_words`), and, in a table of
    :data:`SCATTER_PREFETCH_MIN_BYTES` or more, the row of the update
    :data:`SCATTER_AHEAD` updates later is prefetched (from its index clamped into range: a
    prefetch never faults, and a wrong one costs only the line). Returns -1, or the flat
    position ``r * k + c`` of the first bad index component (rows before it are already
    written)."""
    if r0 != 0 or r1 != table.shape[0]:
        return scatter_tuples_part(table, idx, limits, strides, vals, r0, r1)
    nb = table.shape[1]
    k = idx.shape[1]
    n = idx.shape[0]
    if k == 1:
        size = limits[0]
        ahead = table.shape[0] * nb * table.itemsize >= SCATTER_PREFETCH_MIN_BYTES
        if nb == 1:
            return scatter_words(table, idx, size, vals, ahead)
        for r in range(n):
            if ahead and r + SCATTER_AHEAD < n:
                prefetch(table, min(np.uint64(idx[r + SCATTER_AHEAD, 0]), np.uint64(size - 1)), 0)
            row = normalised(idx[r, 0], size)
            if row < 0:
                return r
            move_row(vals, r, table, row)
        return -1
    for r in range(n):
        row = tuple_row(idx, r, limits, strides)
        if row < 0:
            return r * k + (-1 - row)
        move_row(vals, r, table, row)
    return -1


def scatter_words(table, idx, size, vals, ahead):
    """:func:`scatter_tuples` on rows of one word with a single index column: one store per
    update, not the row loop (whose run-time alias checks about doubled the time of random
    writes into a cached table), prefetching when ``ahead``. A plain call: the same loop in
    :func:`scatter_tuples`' body ran 10-15% slower (benchmarks/README.md)."""
    n = idx.shape[0]
    for r in range(n):
        if ahead and r + SCATTER_AHEAD < n:
            prefetch(table, min(np.uint64(idx[r + SCATTER_AHEAD, 0]), np.uint64(size - 1)), 0)
        row = normalised(idx[r, 0], size)
        if row < 0:
            return r
        table[row, 0] = vals[r, 0]
    return -1


def scatter_tuples_part(table, idx, limits, strides, vals, r0, r1):
    """:func:`scatter_tuples` on the target rows r0..r1 only. Every index is checked, whether its
    row is in the range or not, so every part of a split finds the same first bad index. The
    rows of :data:`FILTER_BATCH` updates are collected (every one stored, the count advanced
    only for those in the range: no branch on the range), then those are written, in order,
    prefetching as :func:`scatter_tuples` does. Returns -1, or the flat position ``r * k + c``
    of the first bad index component (rows before it are already written)."""
    nb = table.shape[1]
    k = idx.shape[1]
    n = idx.shape[0]
    ahead = table.shape[0] * nb * table.itemsize >= SCATTER_PREFETCH_MIN_BYTES
    width = np.uint64(r1 - r0)
    rows = np.empty(FILTER_BATCH, np.int64)
    at = np.empty(FILTER_BATCH, np.int64)
    for start in range(0, n, FILTER_BATCH):
        count = 0
        for r in range(start, min(n, start + FILTER_BATCH)):
            if k == 1:  # without :func:`tuple_row`'s loop, as in :func:`scatter_tuples`
                row = normalised(idx[r, 0], limits[0])
                if row < 0:
                    return r
            else:
                row = tuple_row(idx, r, limits, strides)
                if row < 0:
                    return r * k + (-1 - row)
            rows[count] = row
            at[count] = r
            count += np.uint64(row - r0) < width
        if nb == 1:  # as in :func:`scatter_tuples`
            for q in range(count):
                if ahead and q + SCATTER_AHEAD < count:
                    prefetch(table, rows[q + SCATTER_AHEAD], 0)
                table[rows[q], 0] = vals[at[q], 0]
            continue
        for q in range(count):
            if ahead and q + SCATTER_AHEAD < count:
                prefetch(table, rows[q + SCATTER_AHEAD], 0)
            move_row(vals, at[q], table, rows[q])
    return -1


def scatter_elements(out, idx, vals, bases, sa, last, size, op, r0, r1, c0, c1, band, pack, src):
    """Fold ``vals[r, c]`` into ``out[bases[r] + (v if last else c + v * sa)]`` for rows
    ``r0..r1`` and columns ``c0..c1`` of the indices and updates viewed as ``(rows, columns)``,
    where ``v`` is ``idx[r, c]`` made non-negative (``bases``, ``sa`` and ``last`` as for
    :func:`gather_elements`): the ScatterElements index map, applied as it is computed
    (:func:`fold_block`; ``op`` 0..3 add/mul/max/min, 4 assign). Row-major order of ``(r,
    c)``, ``band`` columns at a time (callers band only when a cell's updates all share one
    column, so each cell still sees its updates in order); with ``pack`` (an axis other than
    the last), each band folded into a packed copy of its pieces read from ``src`` (``out``
    itself, or the data ``out`` is to be a copy of, where the bands cover every element:
    :func:`fold_packed`). On the last axis, a row with as
    many updates as its target row has cache lines first reads that row in order, as
    :func:`gather_elements` does (also from :data:`WARM_MIN_BYTES` up). Assignment on the last
    axis is :func:`assign_last`'s plain loop, the same writes in the same order. Returns -1,
    or the flat position ``r * last + c`` of the first bad index met (``out`` is then partly
    written)."""
    if op == 4 and last:  # 4: assign (ops.accel.ASSIGN), as in :func:`fold`
        return assign_last(out, idx, vals, bases, size, r0, r1, c0, c1)
    if pack and not last:
        return fold_packed(src, out, idx, vals, bases, sa, size, op, r0, r1, c0, c1, band)
    return fold_bands(out, idx, vals, bases, sa, last, size, op, r0, r1, c0, c1, band)


def fold_bands(out, idx, vals, bases, sa, last, size, op, r0, r1, c0, c1, band):
    """:func:`scatter_elements` in place, ``band`` columns at a time (:func:`fold_block`),
    warming target rows on the last axis. A helper of its own, as :func:`fold_packed`: numba
    compiles a helper once per kind of caller (a kernel or a helper) and argument types, so
    :func:`fold_block`, called from these two alone with the same types, is compiled once."""
    cstep, vstep = (0, 1) if last else (1, sa)
    no_shift = np.int64(0)  # typed int64 (a literal 0 would be a type of its own), as fold_packed's shift
    shift = line_shift(out.itemsize)
    warm = 1 << shift if last and c1 - c0 >= size >> shift and out.shape[0] * out.itemsize >= WARM_MIN_BYTES else 0
    for cb in range(c0, c1, band):
        bad = fold_block(out, idx, vals, r0, r1, cb, min(c1, cb + band), size, bases, no_shift, cstep, vstep, warm, op)
        if bad >= 0:
            return bad
    return -1


def fold_packed(src, out, idx, vals, bases, sa, size, op, r0, r1, c0, c1, band):
    """:func:`scatter_elements` on an axis other than the last, ``band`` columns at a time, each
    band's pieces (one per position on the axis) first copied from ``src`` next to each other
    into a buffer of the kernel's own (:func:`copy_band`), folded into there
    (:func:`fold_block`), and copied to ``out``; once for each run of rows sharing a start
    (``bases``). ``src`` is ``out`` itself, or, when every start has one run and the bands
    cover every element, the data ``out`` is to be a copy of (``out`` is then written whole
    here, and never copied first). As :func:`gather_elements_bands`' packing: the folds land in
    a few hundred KB of consecutive pages instead of one piece a table row apart. Returns -1,
    or the flat position of the first bad index met (``out`` is then partly written)."""
    scratch = np.empty(size * band, out.dtype)
    one, no_warming = np.int64(1), np.int64(0)  # typed int64, as :func:`fold_bands`' (literals are types of their own)
    for cb in range(c0, c1, band):
        ce = min(c1, cb + band)
        width = ce - cb
        ra = r0
        while ra < r1:
            base = bases[ra]
            rb = ra + 1
            while rb < r1 and bases[rb] == base:
                rb += 1
            start = np.uint64(base + cb)
            copy_band(src, start, sa, scratch, np.uint64(0), width, size, width)
            # column c of the band is c - cb in the buffer, rows ra..rb all start at base
            bad = fold_block(scratch, idx, vals, ra, rb, cb, ce, size, bases, -(base + cb), one, width, no_warming, op)
            if bad >= 0:
                return bad
            copy_band(scratch, np.uint64(0), width, out, start, sa, size, width)
            ra = rb
    return -1


def assign_last(out, idx, vals, bases, size, r0, r1, c0, c1):
    """``out[bases[r] + v] = vals[r, c]`` for rows ``r0..r1`` and, within each, columns
    ``c0..c1`` in order, ``v`` = ``idx[r, c]`` made non-negative: :func:`fold_block`'s
    assignment on the last axis without its generality (no reduction to choose, no warming),
    which runs faster (benchmarks/README.md). Returns -1, or the flat position ``r * last + c``
    of the first index outside ``[-size, size)`` (``out`` is then partly written)."""
    m = idx.shape[1]
    for r in range(r0, r1):
        base = bases[r]
        ir, vr = idx[r], vals[r]  # row views and unsigned columns: no wrap-around test where it indexes
        c = np.uint64(c0)
        while c < np.uint64(c1):  # as in :func:`gather_elements` on the last axis: a predicted comparison ...
            v = np.int64(ir[c])
            if np.uint64(v) >= np.uint64(size):
                break
            out[np.uint64(base + v)] = vr[c]
            c += np.uint64(1)
        while c < np.uint64(c1):  # ... until the first index outside [0, size), then wrapped
            v = wrapped(ir[c], size)
            if np.uint64(v) >= np.uint64(size):
                return r * m + np.int64(c)
            out[np.uint64(base + v)] = vr[c]
            c += np.uint64(1)
    return -1


#: :func:`scatter_rows` prefetches target rows only in tables of at least this many bytes
#: (benchmarks/README.md: the plain loop was faster up to 3.8 MB, the prefetching one from 19 MB).
ROWS_PREFETCH_MIN_BYTES = 1 << 22


def scatter_rows(out, rows, vals, op, r0, r1):
    """Fold vals[i] into out[rows[i]] (:func:`fold`, ``op`` 0..3) for every i (in order) whose
    row is in r0..r1. In a table of :data:`ROWS_PREFETCH_MIN_BYTES` or more, the target row of
    each such update is prefetched when it enters a first-in first-out queue of :data:`AHEAD`
    updates and folded when it leaves, so the folds keep the order of ``i``; a smaller table
    stays in the caches, and a plain loop in the order of ``i`` folds it faster."""
    if out.shape[0] * out.shape[1] * out.itemsize < ROWS_PREFETCH_MIN_BYTES:
        for i in range(rows.shape[0]):
            t = rows[i]
            if r0 <= t < r1:
                for b in range(out.shape[1]):
                    out[t, b] = fold(out[t, b], vals[i, b], op)
        return
    queue = np.empty(AHEAD, np.int64)
    queued = 0  # updates that entered the queue
    folded = 0  # updates that left it
    i = 0
    while i < rows.shape[0] or folded < queued:
        if i < rows.shape[0] and queued - folded < AHEAD:
            r = rows[i]
            if r0 <= r < r1:
                prefetch_row(out, r)
                queue[queued & (AHEAD - 1)] = i
                queued += 1
            i += 1
            continue
        j = queue[folded & (AHEAD - 1)]
        folded += 1
        t = rows[j]
        for b in range(out.shape[1]):
            out[t, b] = fold(out[t, b], vals[j, b], op)


# --------------------------------------------------------------------------------------------
# Shared chunks: the split kernels' rows handed out in compiled code
#
# Each ``*_shared`` kernel first wakes ``woken`` pool threads (:func:`wake`: the calling
# thread's call of :func:`ops.parallel.map_woken`; 0 in the pool threads), then runs its kernel
# on chunks of ``chunk`` rows of ``start..stop``, taken with :func:`claim` until none is left,
# and last, in the calling thread, waits for the threads it woke to report (:func:`await_parts`):
# threads that call it with one ``counter`` share the rows out as they finish, without coming
# back to Python (and the GIL) between chunks, so a thread that starts late takes fewer chunks
# (:func:`ops.accel._share`). They return -1, or the position of a bad index from some chunk
# (the output is then incomplete).

#: The kernels the shared kernels call, by name: the plain functions, until
#: :func:`bind_compiled` puts their compiled dispatchers in their place.
_gather_elements, _gather_tuples, _gather_last = gather_elements, gather_tuples, gather_last
_gather_rows, _scatter_elements = gather_rows, scatter_elements
_gather_elements_bands = gather_elements_bands


def bind_compiled(kernels: dict) -> None:
    """Have the shared kernels call the compiled ``kernels`` (:func:`ops.accel._load`'s): numba
    types and compiles each kernel once, for the plain calls of :func:`ops.accel._share`, and
    links that code into the shared kernels that call it, where LLVM may inline it (their
    machine code holds the kernel's prefetches and streaming stores)."""
    global _gather_elements, _gather_tuples, _gather_last, _gather_rows, _scatter_elements, _gather_elements_bands
    _gather_elements, _gather_tuples, _gather_last = (kernels["gather_elements"], kernels["gather_tuples"],
                                                      kernels["gather_last"])
    _gather_rows, _scatter_elements = kernels["gather_rows"], kernels["scatter_elements"]
    _gather_elements_bands = kernels["gather_elements_bands"]


def gather_elements_last_checked(data, idx, out, bases, size):
    """:func:`gather_elements` on the last axis (``data`` flat, as words; ``size`` the axis'
    extent), every row, for indices that stay in cache between two passes (a plan's small
    calls): when one pass over all of them as one flat run (:func:`flat_in_range`) finds every
    index in ``[0, size)``, a loop with no test in it, which LLVM unrolls, with no row's own
    check; otherwise :func:`gather_elements` (which wraps negative indices and finds a bad
    one). Returns -1, or the flat position of the first index outside ``[-size, size)``."""
    if flat_in_range(idx, size):
        for r in range(idx.shape[0]):
            base = bases[r]
            for j in range(idx.shape[1]):
                out[r, j] = data[np.uint64(base + idx[r, j])]
        return -1
    return _gather_elements(data, idx, out, bases, 1, True, size, False, 0, idx.shape[0])


def gather_elements_shared(data, idx, out, bases, sa, last, size, stream, start, stop, chunk, counter, words, woken):
    """:func:`gather_elements` on shared chunks of its rows."""
    wake(words, woken)
    status = -1
    r0 = claim(counter, start, stop, chunk)
    while r0 >= 0:
        status = max(status, _gather_elements(data, idx, out, bases, sa, last, size, stream, r0, min(stop, r0 + chunk)))
        r0 = claim(counter, start, stop, chunk)
    await_parts(words, woken)
    return status


def gather_elements_bands_shared(data, idx, out, bases, sa, size, stream, band, pack, start, stop, chunk, counter,
                                 words, woken):
    """:func:`gather_elements_bands` on shared chunks of its columns (whole bands)."""
    wake(words, woken)
    status = -1
    c0 = claim(counter, start, stop, chunk)
    while c0 >= 0:
        status = max(status, _gather_elements_bands(data, idx, out, bases, sa, size, stream, band, pack, c0,
                                                    min(stop, c0 + chunk)))
        c0 = claim(counter, start, stop, chunk)
    await_parts(words, woken)
    return status


def gather_tuples_shared(table, idx, limits, strides, out, stream, start, stop, chunk, counter, words, woken):
    """:func:`gather_tuples` on shared chunks of its rows."""
    wake(words, woken)
    status = -1
    r0 = claim(counter, start, stop, chunk)
    while r0 >= 0:
        status = max(status, _gather_tuples(table, idx, limits, strides, out, stream, r0, min(stop, r0 + chunk)))
        r0 = claim(counter, start, stop, chunk)
    await_parts(words, woken)
    return status


def gather_last_shared(data, idx, out, start, stop, chunk, counter, words, woken):
    """:func:`gather_last` on shared chunks of its data rows (its indices are already checked)."""
    wake(words, woken)
    r0 = claim(counter, start, stop, chunk)
    while r0 >= 0:
        _gather_last(data, idx, out, r0, min(stop, r0 + chunk))
        r0 = claim(counter, start, stop, chunk)
    await_parts(words, woken)
    return -1


def gather_rows_shared(table, idx, size, out, stream, once, start, stop, chunk, counter, words, woken):
    """:func:`gather_rows` on shared chunks of its rows."""
    wake(words, woken)
    status = -1
    r0 = claim(counter, start, stop, chunk)
    while r0 >= 0:
        status = max(status, _gather_rows(table, idx, size, out, stream, once, r0, min(stop, r0 + chunk)))
        r0 = claim(counter, start, stop, chunk)
    await_parts(words, woken)
    return status


def scatter_elements_shared(out, idx, vals, bases, sa, last, size, op, columns, band, pack, src, start, stop,
                            chunk, counter, words, woken):
    """:func:`scatter_elements` on shared chunks of its rows (``columns`` False) or of its
    columns (True: all rows, ``band`` columns at a time; chunks are whole bands)."""
    wake(words, woken)
    status = -1
    n, m = idx.shape
    r0 = claim(counter, start, stop, chunk)
    while r0 >= 0:
        r1 = min(stop, r0 + chunk)
        if columns:
            ra, rb, ca, cb, width, packed = 0, n, r0, r1, band, pack
        else:
            ra, rb, ca, cb, width, packed = r0, r1, 0, m, m, False
        # one call, whose arguments numba types as int64 and bool (the constants as literals in
        # two calls would each compile the kernel again)
        status = max(status, _scatter_elements(out, idx, vals, bases, sa, last, size, op, ra, rb, ca, cb, width, packed,
                                               src))
        r0 = claim(counter, start, stop, chunk)
    await_parts(words, woken)
    return status
