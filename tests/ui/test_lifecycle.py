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
    call.submit(_slow, started, finished, 60.0, cancellable=True)
    assert started.wait(30)
    assert lifecycle.shutdown_all() >= 1
    assert finished == ["cancelled"]          # it returned before shutdown_all did, not after its 60 s
    assert not call.busy


def test_shutdown_all_lets_a_job_that_cannot_stop_finish(qapp):
    call = BackgroundCall()
    started, finished = threading.Event(), []
    call.submit(_slow, started, finished, 0.3)   # like a file being written: not cancellable
    assert started.wait(30)
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


def test_collecting_a_call_while_its_job_runs_python_does_not_freeze():
    """A guard for the hang seen once in CI (main thread blocked in garbage collection, a
    worker waiting for the GIL, a third thread with no Python frame, the likely pair being a
    Qt thread pool destroyed while its job was finishing). This script did not reproduce that
    hang with the old Qt-pool code either; it checks that a call deleted with its window and
    collected while its job runs Python never freezes the process. In a subprocess, so a
    freeze fails by timeout instead of hanging the suite."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import gc, os, threading, time
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6 import QtWidgets
        from nodeeditor.ui.viewer.background import BackgroundCall
        app = QtWidgets.QApplication([])
        started = threading.Event()
        def busy_python(started):
            started.set()
            deadline = time.monotonic() + 1.0
            n = 0
            while time.monotonic() < deadline:
                n += 1          # pure Python: needs the GIL the whole time
            return n
        import shiboken6
        from PySide6 import QtCore
        for _ in range(3):
            viewer = QtCore.QObject()
            call = BackgroundCall(viewer)
            call.submit(busy_python, started)
            started.wait(30)
            started.clear()
            shiboken6.delete(viewer)   # the window closes: Qt deletes the call with it
            del call, viewer
            gc.collect()
        time.sleep(1.5)         # the jobs end; whatever their end destroys is destroyed
        print("collected")      # needs the GIL back: a thread stuck holding it hangs here
        os._exit(0)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "collected" in done.stdout
