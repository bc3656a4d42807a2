"""Splitting numpy work across a few threads.

numpy releases the GIL inside ``take``, ``copyto``, ``put``-style assignment and ufunc loops
on numeric (non-object) dtypes, so running disjoint slices of one big operation on two or more
threads uses more cores. The caller decides what a part is; the contract here is only:

* :func:`run_parts` calls ``fn(start, stop)`` for consecutive, disjoint ranges that cover
  ``0..n`` and returns when every call has finished (re-raising the first exception).
* Work smaller than ``min_part`` per thread runs inline in the calling thread, so small tensors
  pay no thread hand-off.
* Having run the first range itself, the calling thread polls the others for a while before
  it blocks on them (:data:`JOIN_SPIN_NS`; :func:`copy_into` is the split copy).
* The other ranges run on the pool's threads (:mod:`ops.part_threads`), one range each, while
  no other call is using them; a call that finds them busy (another thread's, or a range that
  splits its own work again) runs all its ranges in its own thread, in order.
* Callers must make parts independent: each part writes only cells no other part writes
  (gathers: disjoint output rows; reductions: disjoint destination ranges).

``INDEXFLOW_THREADS`` (environment, read once at import through :func:`ops.config.threads`) or
:func:`set_threads` caps the thread count; 1 disables threading. The default is the number of
CPUs this process may run on.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable

import numpy as np

from . import config
from .part_threads import Crew

#: Below this many elements of work per thread, threading costs more than it saves.
MIN_PART = 1 << 16
#: A plain copy is memory-bound: below this many bytes per thread, splitting it costs more
#: (:func:`ops.apply.copy_of`, and ScatterND's copy-and-write parts in :mod:`ops.accel`).
COPY_MIN_PART_BYTES = 3 << 20


def copy_splits(nbytes: int) -> bool:
    """A copy of ``nbytes`` is worth splitting: at least two parts of :data:`COPY_MIN_PART_BYTES`
    (how many parts run is :func:`part_count`'s, from the thread count)."""
    return nbytes >= 2 * COPY_MIN_PART_BYTES


def copies_in_parts(data: np.ndarray) -> bool:
    """:func:`copy_into` splits a copy of ``data``: worth splitting (:func:`copy_splits`) and
    at least two rows along the first axis."""
    return copy_splits(data.nbytes) and data.ndim > 0 and data.shape[0] >= 2


def copy_into(out: np.ndarray, data: np.ndarray) -> None:
    """``np.copyto(out, data)`` (same shapes, numeric dtypes), split along the first axis across
    threads when :func:`copies_in_parts` says so."""
    if not copies_in_parts(data):
        np.copyto(out, data)
        return
    run_parts(lambda a, b: np.copyto(out[a:b], data[a:b]), out.shape[0], work=data.nbytes,
              min_part=COPY_MIN_PART_BYTES)


def _default_threads() -> int:
    configured = config.threads()
    if configured is not None:
        return configured
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


#: Having run its own part, the calling thread polls the pool's parts before it blocks on them:
#: a blocked thread on an otherwise idle core can take tens of microseconds to wake
#: (benchmarks/README.md). With the compiled idle wait it polls each part's finish word for the
#: wait's time (:data:`IDLE_SPIN_NS`), holding no GIL (:meth:`ops.part_threads.Crew.join`);
#: without it, for up to this long, yielding the CPU and the GIL between polls. 0: block at once.
JOIN_SPIN_NS = 1_000_000
#: After each part, a pool thread polls for its next one for about this long, without the GIL,
#: before it blocks (:func:`ops.part_threads.set_idle_wait`; the compiled poll is installed with
#: the accelerator's kernels, :func:`ops.accel.idle_wait`): a split call that follows within it,
#: after the caller's own work, finds the thread running instead of asleep on an idle core
#: (benchmarks/README.md). 0: block at once.
IDLE_SPIN_NS = 1_000_000

_threads = _default_threads()
_pool: Crew | None = None
_pool_lock = threading.Lock()


def _forget_pool_in_child() -> None:
    """A forked child inherits the pool object but not its threads: start a fresh one there."""
    global _pool, _pool_lock
    _pool = None
    _pool_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)


def set_threads(n: int) -> None:
    """Use at most ``n`` threads (>= 1) from now on. The old pool's threads end once a split
    call using them has finished; that wait happens outside the pool lock, so a range of that
    call which splits its own work (and asks for the pool) is not kept waiting on it."""
    global _threads, _pool
    with _pool_lock:
        _threads = max(1, int(n))
        old, _pool = _pool, None
    if old is not None:
        old.stop()


def threads() -> int:
    """The current thread cap."""
    return _threads


def _get_pool() -> Crew:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = Crew(max(1, _threads - 1))
        return _pool


def split(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` consecutive ranges covering ``0..n`` whose lengths differ by at most one."""
    parts = max(1, min(parts, n)) if n else 1
    q, r = divmod(n, parts)
    bounds, start = [], 0
    for p in range(parts):
        stop = start + q + (p < r)
        bounds.append((start, stop))
        start = stop
    return bounds


def part_count(work: int, min_part: int | None = None) -> int:
    """How many parts ``work`` elements are worth, at least ``min_part`` each (default
    :data:`MIN_PART`, read at the call): 1 up to ``threads()``."""
    return max(1, min(_threads, work // max(MIN_PART if min_part is None else min_part, 1)))


def map_woken(fn: Callable[[np.ndarray, int], object], parts: int) -> list:
    """Call ``fn(words, wake)`` once in each of ``parts`` threads at once (the caller's call
    first in the results): the caller's with the pool's words (:attr:`ops.part_threads.Crew.words`)
    and ``wake = parts - 1``. It must bump the signal words ``words[0, 0..wake)`` as soon as it
    no longer holds the GIL (a compiled kernel's first step: :func:`ops.accel_kernels.wake`);
    pool threads polling for their next part start then (:meth:`ops.part_threads.Crew.start`
    with ``signal=False``). It may also wait, still without the GIL, for their finish words
    ``words[1, i]`` to reach their goals ``words[2, i]`` (:func:`ops.accel_kernels.await_parts`),
    so that it takes the GIL back once they have finished with it. The pool threads' calls get
    ``wake = 0``. Each call must do its share of one piece of work however many calls run (the
    shared kernels take chunks from one counter): when the pool is busy, all of them run here,
    one after another."""
    if parts <= 1:
        return [fn(NO_WORDS, 0)]
    crew = _get_pool()
    if parts - 1 > len(crew) or not crew.claim():
        return [fn(NO_WORDS, 0) for _ in range(parts)]
    words = crew.words
    pool_part = (lambda _a, _b: fn(words, 0), 0, 0)
    return _run_claimed(crew, lambda: fn(words, parts - 1), [pool_part] * (parts - 1), signal=False)


#: The words :func:`map_woken` passes when no pool thread takes part (nothing to bump or wait
#: for; also what a shared kernel called outside it gets).
NO_WORDS = np.zeros((3, 1), dtype=np.int64)


def run_parts(fn: Callable[[int, int], object], n: int, work: int | None = None, min_part: int | None = None) -> None:
    """Call ``fn(start, stop)`` over disjoint ranges covering ``0..n``, in parallel when the
    total ``work`` (elements touched; default ``n``) is worth it. The calling thread runs the
    first range itself."""
    map_parts(fn, n, work, min_part)


def map_parts(fn: Callable[[int, int], object], n: int, work: int | None = None, min_part: int | None = None) -> list:
    """Like :func:`run_parts` but returns ``[fn(start, stop), ...]`` in range order (an empty
    list when ``n == 0``)."""
    parts = part_count(n if work is None else work, min_part)
    if n == 0:
        return []
    if parts <= 1 or n <= 1:
        return [fn(0, n)]
    ranges = split(n, parts)
    crew = _get_pool()
    # in use (another thread's call, or a range of this one splitting again), stopped, or made
    # for fewer threads than this call counted (set_threads in between): the ranges run here
    if len(ranges) - 1 > len(crew) or not crew.claim():
        return [fn(a, b) for a, b in ranges]
    return _run_claimed(crew, lambda: fn(*ranges[0]), [(fn, a, b) for a, b in ranges[1:]])


def _run_claimed(crew: Crew, here: Callable[[], object], parts: list, signal: bool = True) -> list:
    """With ``crew`` claimed: start ``parts[i]`` (``(fn, start, stop)``) on its thread ``i``, call
    ``here()`` in this thread, join them all, release the crew, and return ``[here(), part 0,
    ...]``'s results; the first exception is re-raised once every part has finished."""
    results: list = [None] * (len(parts) + 1)
    error = None
    try:
        for i, (fn, start, stop) in enumerate(parts):
            crew.start(i, fn, start, stop, signal)
        try:
            results[0] = here()
        except BaseException as exc:  # noqa: BLE001 - re-raised below, once every part has finished
            error = exc
        for i in range(1, len(results)):
            results[i], exc = crew.join(i - 1, JOIN_SPIN_NS)
            error = error or exc
    finally:
        crew.release()
    if error is not None:
        raise error
    return results
