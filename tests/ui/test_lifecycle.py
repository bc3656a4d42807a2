"""nodeeditor.ui.lifecycle: one call stops every background job still running."""
from __future__ import annotations

import gc
import threading
import time
import weakref

from nodeeditor.ui import lifecycle
from nodeeditor.ui.viewer.background import BackgroundCall


def _slow(started: threading.Event, finished: list, seconds: float, cancelled=None):
    started.set()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if cancelled is not None and cancelled():
            finished.append("cancelled")
            return None
        time.sleep(0.005)
    finished.append("ran to the end")
    return 1


def test_shutdown_all_stops_a_cancellable_job_and_waits_for_it(qapp):
    call = BackgroundCall()
    started, finished = threading.Event(), []
    call.submit(_slow, started, finished, 30.0, cancellable=True)
    assert started.wait(5)
    t0 = time.monotonic()
    assert lifecycle.shutdown_all() >= 1
    assert finished == ["cancelled"]          # it returned before shutdown_all did
    assert time.monotonic() - t0 < 10         # and did not run its 30 s
    assert call.pool.activeThreadCount() == 0


def test_shutdown_all_lets_a_job_that_cannot_stop_finish(qapp):
    call = BackgroundCall()
    started, finished = threading.Event(), []
    call.submit(_slow, started, finished, 0.3)   # like a file being written: not cancellable
    assert started.wait(5)
    lifecycle.shutdown_all()
    assert finished == ["ran to the end"]


def test_the_registry_does_not_keep_objects_alive(qapp):
    call = BackgroundCall()
    alive = weakref.ref(call)
    assert call in set(lifecycle._live)
    del call
    gc.collect()
    assert alive() is None


def test_an_object_whose_qt_side_is_gone_is_skipped(qapp):
    import shiboken6
    from PySide6 import QtCore

    parent = QtCore.QObject()
    call = BackgroundCall(parent)
    shiboken6.delete(parent)                  # deletes the C++ child with it
    assert not shiboken6.isValid(call)
    lifecycle.shutdown_all()                  # no crash, no "already deleted" error
