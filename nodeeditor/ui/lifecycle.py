"""One place that knows every object running work off the UI thread, so the application
can stop all of it before Qt and the interpreter go down.

Objects with a ``shutdown()`` method (cancel, then wait for their threads) call
``register(self)`` when they are built. ``shutdown_all()`` calls each one still alive; the
application runs it when the event loop ends and the test suite when the session ends. A
registry is used instead of walking ``QApplication.allWidgets()``: asking Qt for every widget
wraps objects Python never saw, some of them half destroyed, and that crashed the process.
The registry holds weak references only: it never keeps anything alive.
"""
from __future__ import annotations

import weakref

_live: weakref.WeakSet = weakref.WeakSet()


def register(obj) -> None:
    """Remember ``obj`` (it must have ``shutdown()``) until it is garbage collected."""
    _live.add(obj)


def shutdown_all() -> int:
    """Call ``shutdown()`` on every registered object still alive; returns how many were
    stopped. An object whose Qt side is already deleted is skipped: its threads went with it
    (Qt's thread pool waits for its jobs when it is destroyed)."""
    stopped = 0
    for obj in list(_live):
        try:
            obj.shutdown()
        except RuntimeError:  # "Internal C++ object already deleted"
            continue
        stopped += 1
    return stopped
