"""BackgroundWorker: one job at a time off the UI thread, outcomes and progress handed back on
the UI thread with the job's token."""
from __future__ import annotations

import threading

import pytest
from PySide6 import QtCore

from nodeeditor.ui.background import BackgroundWorker


class Recorder:
    def __init__(self) -> None:
        self.done: list[tuple[int, object, bool]] = []
        self.progress: list[tuple] = []

    def on_done(self, token, outcome) -> None:
        on_ui = QtCore.QThread.currentThread() is QtCore.QCoreApplication.instance().thread()
        self.done.append((token, outcome, on_ui))

    def on_progress(self, token, *args) -> None:
        self.progress.append((token, *args))


@pytest.fixture
def rec(qapp):
    return Recorder()


def test_the_outcome_and_progress_arrive_on_the_ui_thread_with_the_token(qtbot, rec):
    worker = BackgroundWorker("t", rec.on_done, rec.on_progress)

    def job(cancel, report):
        report(1, 2)
        report(2, 2)
        return threading.current_thread().name

    token = worker.start(job)
    assert worker.running
    assert worker.wait(lambda: worker.running, 10.0)
    assert rec.done == [(token, f"t-{token}", True)]
    assert rec.progress == [(token, 1, 2), (token, 2, 2)]
    assert not worker.running


def test_an_exception_is_the_outcome(qtbot, rec):
    worker = BackgroundWorker("t", rec.on_done)

    def job(cancel, report):
        raise ValueError("bad")

    worker.start(job)
    qtbot.waitUntil(lambda: len(rec.done) == 1, timeout=10000)
    outcome = rec.done[0][1]
    assert isinstance(outcome, ValueError) and str(outcome) == "bad"


def test_one_job_at_a_time_and_cancel_reaches_the_job(qtbot, rec):
    worker = BackgroundWorker("t", rec.on_done)
    started = threading.Event()

    def job(cancel, report):
        started.set()
        return cancel.wait(30.0)

    token = worker.start(job)
    assert started.wait(10.0)
    with pytest.raises(RuntimeError, match="still running"):
        worker.start(job)
    worker.invalidate()
    assert worker.token == token + 1          # its outcome is an older job's now
    assert worker.wait(lambda: worker.running, 10.0)
    assert rec.done == [(token, True, True)]  # the job saw the cancel


def test_an_abandoned_job_frees_the_worker_and_reports_under_its_old_token(qtbot, rec):
    worker = BackgroundWorker("t", rec.on_done)
    release = threading.Event()
    first = worker.start(lambda cancel, report: release.wait(30.0) and "first")
    worker.abandon()
    assert not worker.running
    second = worker.start(lambda cancel, report: "second")
    assert worker.running
    release.set()
    qtbot.waitUntil(lambda: len(rec.done) == 2, timeout=10000)
    assert sorted(rec.done) == [(first, "first", True), (second, "second", True)]
    assert not worker.running and worker.token == second
