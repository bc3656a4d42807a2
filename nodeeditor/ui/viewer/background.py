"""Run one slow numpy function off the UI thread and hand the result back to it.

``BackgroundCall.submit(fn, *args)`` returns a generation number; ``finished(generation,
result)`` arrives on the UI thread only for the newest submission (older results are
dropped, so a user who moves on never sees a stale picture). Exceptions come back as the
result so the caller can report them. ``submit(fn, *args, cancellable=True)`` also passes
``cancelled=`` (a callable that turns True once a newer job or ``cancel()`` supersedes this
one), so long functions can stop early.
"""
from __future__ import annotations

import threading

from PySide6 import QtCore

from .. import lifecycle


class _Relay(QtCore.QObject):
    done = QtCore.Signal(int, object)


class _Task(QtCore.QRunnable):
    def __init__(self, owner: "BackgroundCall", generation: int, fn, args, cancellable: bool = False):
        super().__init__()
        self.setAutoDelete(True)
        self._owner, self._generation, self._fn, self._args = owner, generation, fn, args
        self._cancellable = cancellable
        self._relay = owner._relay  # keep the relay alive while the task runs

    def _stale(self) -> bool:
        return self._owner.generation != self._generation

    def run(self) -> None:
        if self._owner.generation != self._generation:
            return
        kwargs = {"cancelled": self._stale} if self._cancellable else {}
        try:
            result = self._fn(*self._args, **kwargs)
        except Exception as exc:  # reported to the UI thread, never lost
            result = exc
        self._fn = self._args = None
        if self._owner.generation == self._generation:
            self._relay.done.emit(self._generation, result)


class BackgroundCall(QtCore.QObject):
    """A one-thread pool whose newest job wins."""

    finished = QtCore.Signal(int, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.generation = 0
        self._lock = threading.Lock()
        self._relay = _Relay()
        self._relay.done.connect(self._on_done, QtCore.Qt.ConnectionType.QueuedConnection)
        self.pool = QtCore.QThreadPool()
        self.pool.setMaxThreadCount(1)
        lifecycle.register(self)

    def submit(self, fn, *args, cancellable: bool = False) -> int:
        generation = self.cancel()
        self.pool.start(_Task(self, generation, fn, args, cancellable))
        return generation

    def cancel(self) -> int:
        """Supersede every job submitted so far; returns the new generation."""
        with self._lock:
            self.generation += 1
            return self.generation

    def wait(self, msecs: int = 30000) -> bool:
        return self.pool.waitForDone(msecs)

    def shutdown(self) -> None:
        """Supersede every job and wait until the running one has returned (a cancellable
        job stops at its next check; any other, a file being written for one, finishes)."""
        self.cancel()
        self.pool.waitForDone(-1)

    def _on_done(self, generation: int, result) -> None:
        if generation == self.generation:
            self.finished.emit(generation, result)
