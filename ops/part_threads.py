"""The pool threads of :mod:`ops.parallel`: each runs one part of a split call at a time.

A part reaches its thread through two locks, not a queue of futures: the caller stores the
part and releases the thread's ``go`` lock; the thread runs it, stores the result or the
exception, sets ``finished`` and releases its ``done`` lock, which the caller takes when it
joins: a fraction of the cost of ``ThreadPoolExecutor.submit`` and its future
(benchmarks/README.md).

Contract:

* A :class:`Crew` is a fixed number of daemon threads (a process may exit while they wait).
* One caller at a time uses a crew: :meth:`Crew.claim` never blocks; a caller that finds the
  crew in use (another thread's split call, or a part of its own call that splits again) gets
  False and runs its parts itself.
* The claimant gives thread ``i`` one part with :meth:`Crew.start`, takes ``(result,
  exception)`` back with :meth:`Crew.join` (every started part must be joined), then
  :meth:`Crew.release` s the crew.
* :meth:`Crew.stop` waits for the claimant, if any, then ends the threads and waits for them;
  a stopped crew refuses every claim.
* Between parts a thread first runs the idle wait set with :func:`set_idle_wait`, if any: a
  compiled poll, without the GIL, of the thread's signal word, which :meth:`Crew.start` and
  :meth:`Crew.stop` bump before they release ``go`` (or, for a part started with ``signal=False``,
  the claimant, from code that no longer holds the GIL). It returns when the word changes or its
  time is up; then the thread blocks on ``go`` as before. A thread that blocks lets its core
  idle, and on a VM an idle core was slow to run the next part
  (benchmarks/README.md); a polling one starts it at once.
* Each thread also has a finish word, which it bumps after each part: from inside the idle wait,
  once it has let go of the GIL (in Python, before blocking, without one), and a goal, the
  number of parts started on it (:attr:`Crew.words`). A claimant whose part has not finished
  when it joins polls that word with the idle wait until it reaches the goal, holding no GIL
  itself, and so takes the GIL back uncontended the moment the thread is done with it (a
  compiled caller may wait so before it even returns to Python:
  :func:`ops.parallel.map_woken`); without an idle wait it polls the ``finished`` flag,
  yielding, as before. Polling the flag from Python, the claimant held the GIL between
  yields, which the finished thread needed to report back (benchmarks/README.md has what that
  cost).
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

import numpy as np

#: Between polls of a part's ``finished`` flag: gives up the CPU, and the GIL while in the call.
_yield = getattr(os, "sched_yield", lambda: time.sleep(0))

#: ``wait(words, i, seen, done=<none>)``: bumps ``done[i]`` when given, then returns once
#: ``words[i] != seen`` or its time is up, holding no GIL from before the bump; None: pool
#: threads block between parts at once, and claimants poll ``finished`` from Python.
_idle_wait: Callable[..., object] | None = None


def set_idle_wait(wait: Callable[..., object] | None) -> None:
    """Pool threads (of every crew, from their next part on) run ``wait(signals, i, seen,
    finishes)`` between parts, before they block, and claimants ``wait(finishes, i, seen)``
    when they join a part still running (:func:`ops.accel.idle_wait` installs the compiled one)."""
    global _idle_wait
    _idle_wait = wait


class _Thread:
    """One pool thread and the slots a part and its outcome pass through."""

    def __init__(self, name: str, signals: np.ndarray, finishes: np.ndarray, slot: int) -> None:
        self.signals, self.finishes, self.slot = signals, finishes, slot
        self.go = threading.Lock()
        self.go.acquire()
        self.done = threading.Lock()
        self.done.acquire()
        self.task: tuple[Callable[[int, int], object], int, int] | None = None
        self.finished = True
        self.result: object = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            self.go.acquire()
            seen = int(self.signals[self.slot])  # bumped before go was released; a later start bumps it again
            task, self.task = self.task, None
            if task is None:  # stop
                return
            fn, start, stop = task
            try:
                self.result, self.error = fn(start, stop), None
            except BaseException as exc:  # noqa: BLE001 - handed to the claimant, which re-raises it
                self.result, self.error = None, exc
            self.finished = True
            self.done.release()
            wait = _idle_wait
            if wait is None:
                self.finishes[self.slot] += 1
                continue
            try:
                wait(self.signals, self.slot, seen, self.finishes)
            except Exception:  # noqa: BLE001 - only a speed-up: the thread blocks on go below as without it
                pass


class Crew:
    """``size`` pool threads, used by one claimant at a time."""

    def __init__(self, size: int, name: str = "indexflow") -> None:
        # one column per thread: its signal word (see set_idle_wait), its finish word (bumped
        # after each part) and its goal (the parts started on it: the finish word's value once
        # the part running now is done)
        self._words = np.zeros((3, max(size, 1)), dtype=np.int64)
        self._signals, self._finishes, self._goals = self._words
        self._threads = [_Thread(f"{name}-{i}", self._signals, self._finishes, i) for i in range(size)]
        self._claim = threading.Lock()
        self._stopped = False

    def __len__(self) -> int:
        return len(self._threads)

    def claim(self) -> bool:
        """Take the crew for one split call; False at once when someone has it, or when it has
        been stopped (a caller that fetched it just before :func:`ops.parallel.set_threads`)."""
        if not self._claim.acquire(blocking=False):
            return False
        if self._stopped:
            self._claim.release()
            return False
        return True

    def release(self) -> None:
        self._claim.release()

    @property
    def words(self) -> np.ndarray:
        """The threads' words, an int64 array of 3 rows with thread ``i``'s in column ``i``: its
        signal word, its finish word and its goal (what the finish word will be once its
        current part is done)."""
        return self._words

    def start(self, i: int, fn: Callable[[int, int], object], start: int, stop: int, signal: bool = True) -> None:
        """Thread ``i`` runs ``fn(start, stop)`` (the caller has claimed the crew). With ``signal``
        False its signal word is left to the caller, who bumps it once it has let go of the GIL
        (a compiled kernel's first step, :func:`ops.accel_kernels.wake`): a thread polling for it
        then comes back to Python when the GIL is free, instead of going to sleep waiting for
        it while the caller finishes its own Python (a sleeping thread took 10-15 us to wake
        here, benchmarks/README.md). A thread blocked on its lock starts as it would anyway."""
        thread = self._threads[i]
        thread.task, thread.finished = (fn, start, stop), False
        self._goals[i] += 1
        if signal:
            self._signals[i] += 1
        thread.go.release()

    def join(self, i: int, spin_ns: int) -> tuple[object, BaseException | None]:
        """Thread ``i``'s ``(result, exception)`` once its part has finished: with ``spin_ns`` > 0,
        its finish word polled with the idle wait (for the wait's time), or without one its
        ``finished`` flag polled for up to ``spin_ns`` (yielding between polls); then waited for."""
        thread = self._threads[i]
        wait = _idle_wait
        if not thread.finished and spin_ns > 0 and wait is not None:
            for _ in range(2):  # the word may still owe the previous part's bump, made after its done
                seen = int(self._finishes[i])
                if seen >= self._goals[i]:
                    break
                wait(self._finishes, i, seen)
        elif not thread.finished and spin_ns > 0:
            deadline = time.perf_counter_ns() + spin_ns
            while not thread.finished and time.perf_counter_ns() < deadline:
                _yield()
        thread.done.acquire()
        outcome = thread.result, thread.error
        thread.result = thread.error = None
        return outcome

    def stop(self) -> None:
        """End the threads (after the claimant's call, if one is running) and wait for them."""
        with self._claim:
            self._stopped = True
            for i, thread in enumerate(self._threads):
                thread.task = None
                self._signals[i] += 1
                thread.go.release()
            for thread in self._threads:
                thread.thread.join()
