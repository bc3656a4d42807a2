"""Run one slow numpy function off the UI thread and hand the result back to it.

``BackgroundCall.submit(fn, *args)`` returns a generation number; ``finished(generation,
result)`` arrives on the UI thread only for the newest submission (older results are
dropped, so a user who moves on never sees a stale picture). Exceptions come back as the
result so the caller can report them. ``submit(fn, *args, cancellable=True)`` also passes
``cancelled=`` (a callable that turns True once a newer job or ``cancel()`` supersedes this
one), so long functions can stop early.

Each call runs its jobs one at a time on its own Python worker thread
(``concurrent.futures.ThreadPoolExecutor`` with one worker), not on a Qt thread pool: a
``QThreadPool`` destroyed by Python's garbage collector waits for its running job while
holding the GIL, and that job needs the GIL to finish, so the process froze (a CI run hung
in the middle of the suite with exactly that pair of stacks). An executor that is collected
lets its worker end after the current job, without anybody waiting.
"""
from __future__ import annotations

import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as wait_futures

from PySide6 import QtCore

from .. import lifecycle


class _Relay(QtCore.QObject):
    done = QtCore.Signal(int, object)


class _Generation:
    """The newest generation of one call, shared with its jobs (which must not hold the call
    itself: the last reference to a QObject dropped on a worker thread destroys it there)."""

    def __init__(self) -> None:
        self.value = 0
        self.lock = threading.Lock()


def _run(relay_ref, newest: _Generation, generation: int, fn, args, cancellable: bool) -> None:
    """The job, on the worker thread: skipped when already superseded; its result (or the
    exception it raised) is sent to the UI thread only while it is still the newest job and
    its call still exists (``relay_ref`` is a weak reference)."""
    if newest.value != generation:
        return
    kwargs = {"cancelled": lambda: newest.value != generation} if cancellable else {}
    try:
        result = fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - reported to the UI thread, never lost
        result = exc
    relay = relay_ref()
    if relay is not None and newest.value == generation:
        try:
            relay.done.emit(generation, result)
        except RuntimeError:  # the relay's Qt side is gone: nobody waits for this result
            pass


class BackgroundCall(QtCore.QObject):
    """One worker thread whose newest job wins."""

    finished = QtCore.Signal(int, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._newest = _Generation()
        self._relay = _Relay()
        self._relay.done.connect(self._on_done, QtCore.Qt.ConnectionType.QueuedConnection)
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="indexflow-background")
        self._pending: list[Future] = []
        lifecycle.register(self)

    def submit(self, fn, *args, cancellable: bool = False) -> int:
        generation = self.cancel()
        self._pending = [f for f in self._pending if not f.done()]
        self._pending.append(self._executor.submit(_run, weakref.ref(self._relay), self._newest, generation, fn,
                                                   args, cancellable))
        return generation

    @property
    def generation(self) -> int:
        """The newest job's generation (results of older ones are dropped)."""
        return self._newest.value

    def cancel(self) -> int:
        """Supersede every job submitted so far; returns the new generation."""
        with self._newest.lock:
            self._newest.value += 1
            return self._newest.value

    @property
    def busy(self) -> bool:
        """A submitted job has not returned yet."""
        return any(not f.done() for f in self._pending)

    def wait(self, msecs: int = 30000) -> bool:
        """Wait until every submitted job has returned (``msecs`` < 0: as long as it takes);
        True when they have. Results still arrive through the event loop afterwards."""
        pending = [f for f in self._pending if not f.done()]
        if pending:
            wait_futures(pending, timeout=None if msecs < 0 else msecs / 1000)
        return not self.busy

    def shutdown(self) -> None:
        """Supersede every job and wait until the running one has returned (a cancellable
        job stops at its next check; any other, a file being written for one, finishes)."""
        self.cancel()
        self.wait(-1)

    def _on_done(self, generation: int, result) -> None:
        if generation == self.generation:
            self.finished.emit(generation, result)
