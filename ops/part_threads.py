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
"""
from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

#: Between polls of a part's ``finished`` flag: gives up the CPU, and the GIL while in the call.
_yield = getattr(os, "sched_yield", lambda: time.sleep(0))


class _Thread:
    """One pool thread and the slots a part and its outcome pass through."""

    def __init__(self, name: str) -> None:
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


class Crew:
    """``size`` pool threads, used by one claimant at a time."""

    def __init__(self, size: int, name: str = "indexflow") -> None:
        self._threads = [_Thread(f"{name}-{i}") for i in range(size)]
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

    def start(self, i: int, fn: Callable[[int, int], object], start: int, stop: int) -> None:
        """Thread ``i`` runs ``fn(start, stop)`` (the caller has claimed the crew)."""
        thread = self._threads[i]
        thread.task, thread.finished = (fn, start, stop), False
        thread.go.release()

    def join(self, i: int, spin_ns: int) -> tuple[object, BaseException | None]:
        """Thread ``i``'s ``(result, exception)`` once its part has finished: polled for up to
        ``spin_ns`` (yielding between polls), then waited for."""
        thread = self._threads[i]
        if not thread.finished and spin_ns > 0:
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
            for thread in self._threads:
                thread.task = None
                thread.go.release()
            for thread in self._threads:
                thread.thread.join()
