"""One job at a time on a worker thread, its outcome handed back on the UI thread.

:class:`BackgroundWorker` is the thread scaffolding the evaluation runner and the gradient
runner share. A job is a callable ``job(cancel, report)``: ``cancel`` is the job's own
:class:`threading.Event` (set it to ask the job to stop), ``report(*args)`` sends progress.
:meth:`BackgroundWorker.start` gives each job a fresh cancel event and a new token; the job's
outcome (what it returned, or the exception it raised) comes back through a queued signal, and
``on_done(token, outcome)`` is called on the UI thread after the worker thread has ended.
``on_progress(token, *args)`` likewise for each ``report``. The owner compares the token with
:attr:`BackgroundWorker.token` to tell the latest job's outcome from an older one's;
:meth:`invalidate` makes every job started so far an older one, and :meth:`abandon` also
forgets the running job's thread (it ends on its own; its outcome still arrives, with its old
token) so that another job can start at once.

A signal emitted after the application has torn the bridge down is dropped (the app is
closing). UI thread only, but for the job itself.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

from PySide6 import QtCore

Job = Callable[[threading.Event, Callable[..., None]], object]


def _emit(signal, *args) -> None:
    try:
        signal.emit(*args)
    except RuntimeError:  # the bridge is gone (the app is closing)
        pass


class _Bridge(QtCore.QObject):
    progress = QtCore.Signal(int, object)   # token, the job's report arguments
    done = QtCore.Signal(int, object)       # token, result or exception


class BackgroundWorker:
    """Runs one job at a time on a daemon thread named ``{name}-{token}``."""

    def __init__(self, name: str, on_done: Callable[[int, object], None],
                 on_progress: Callable[..., None] | None = None) -> None:
        self._name = name
        self._on_done = on_done
        self._on_progress = on_progress
        self._bridge = _Bridge()
        queued = QtCore.Qt.ConnectionType.QueuedConnection
        self._bridge.done.connect(self._finished, queued)
        self._bridge.progress.connect(self._progressed, queued)
        self._thread: threading.Thread | None = None
        self._thread_token = 0          # the token of the job on self._thread
        self.token = 0
        self.cancel_event = threading.Event()

    @property
    def running(self) -> bool:
        """A job's thread has started and its outcome has not been handed back yet."""
        return self._thread is not None

    def cancel(self) -> None:
        """Ask the running job (if any) to stop."""
        self.cancel_event.set()

    def invalidate(self) -> None:
        """Cancel the running job and make its outcome an older job's (a new token)."""
        self.cancel_event.set()
        self.token += 1

    def abandon(self) -> None:
        """:meth:`invalidate`, and no longer :attr:`running`: the job's thread is left to end
        on its own."""
        self.invalidate()
        self._thread = None

    def start(self, job: Job) -> int:
        """Start ``job`` on a new thread with a fresh cancel event; returns its token. Only
        when not :attr:`running`."""
        if self._thread is not None:
            raise RuntimeError("a background job is still running")
        self.token += 1
        token = self.token
        self.cancel_event = cancel = threading.Event()
        bridge = self._bridge

        def report(*args) -> None:
            _emit(bridge.progress, token, args)

        def work() -> None:
            try:
                outcome = job(cancel, report)
            except BaseException as exc:  # noqa: BLE001 - handed to the owner on the UI thread
                outcome = exc
            _emit(bridge.done, token, outcome)

        self._thread = threading.Thread(target=work, name=f"{self._name}-{token}", daemon=True)
        self._thread_token = token
        self._thread.start()
        return token

    def join(self, timeout: float | None = None) -> bool:
        """Wait (without processing events) for the running job's thread to end; whether no
        job's thread is working any more (an abandoned one is not waited for)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def wait(self, busy: Callable[[], bool], timeout: float) -> bool:
        """Process events until ``busy()`` is false or ``timeout`` seconds have passed; whether
        it became idle (for tests and scripts)."""
        deadline = time.monotonic() + timeout
        app = QtCore.QCoreApplication.instance()
        while busy() and time.monotonic() < deadline:
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 20)
            self.join(0.005)
        return not busy()

    def _progressed(self, token: int, args: tuple) -> None:
        if self._on_progress is not None:
            self._on_progress(token, *args)

    def _finished(self, token: int, outcome: object) -> None:
        if token == self._thread_token and self._thread is not None:   # not an abandoned job
            thread, self._thread = self._thread, None
            thread.join()
        self._on_done(token, outcome)
