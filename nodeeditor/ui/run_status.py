"""The status bar's right side: what the runner is doing and what its last run found.

:class:`RunStatus` owns three permanent widgets of the window's status bar and follows the
:class:`~nodeeditor.ui.runner.EvaluationRunner`'s signals (UI thread only):

- ``run_label``: "evaluating…" while a run is going, then :func:`run_summary` of the finished
  run, or "not evaluated" when a run ended (cancelled, or failed) with nodes still stale;
- ``progress`` and ``cancel_button``: shown only when a run lasts longer than
  :data:`PROGRESS_DELAY_MS` (a quick run does not flicker), hidden when the runner is idle.

:meth:`RunStatus.cancel` (the Cancel button, Run > Cancel Run) stops a busy run and says so
through the ``status`` callable. It changes nothing but these widgets and the runner's run.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtWidgets

from nodeeditor.graph.document import Graph
from nodeeditor.graph.engine import RunResult

from .runner import EvaluationRunner
from .status_line import ShowStatus

PROGRESS_DELAY_MS = 300


def run_summary(result: RunResult, seconds: float, graph: Graph) -> str:
    """"evaluated in N ms", then how many nodes failed, how many wait for an input to be
    connected (their error is that they are incomplete: counted apart from the errors) and
    how many warned."""
    incomplete = [nid for nid, _ in result.errors() if graph.has_node(nid) and graph.node_info(nid).incomplete]
    errors = [e for e in result.errors() if e[0] not in incomplete]
    warnings = result.warnings()
    text = f"evaluated in {seconds * 1000:.0f} ms"
    if errors:
        text += f" · {len(errors)} error(s)"
    if incomplete:
        text += f" · {len(incomplete)} to connect"
    if warnings:
        text += f" · {len(warnings)} warning(s)"
    return text


class RunStatus(QtCore.QObject):
    def __init__(self, bar: QtWidgets.QStatusBar, runner: EvaluationRunner, graph_of: Callable[[], Graph],
                 status: ShowStatus) -> None:
        super().__init__(bar)
        self.runner, self._graph_of, self._status = runner, graph_of, status
        self.run_label = QtWidgets.QLabel("")
        self.progress = QtWidgets.QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(True)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        for w in (self.progress, self.cancel_button):
            w.hide()
        for w in (self.run_label, self.progress, self.cancel_button):
            bar.addPermanentWidget(w)
        self._progress_timer = QtCore.QTimer(self)
        self._progress_timer.setSingleShot(True)
        self._progress_timer.setInterval(PROGRESS_DELAY_MS)
        self._progress_timer.timeout.connect(self._show_progress)
        runner.runStarted.connect(self._on_started)
        runner.progressed.connect(self._on_progress)
        runner.finished.connect(self._on_finished)
        runner.busyChanged.connect(self._on_busy_changed)

    def cancel(self) -> None:
        if self.runner.busy:
            self.runner.cancel()
            self._status("Run cancelled: the nodes marked grey were not evaluated")

    def _on_started(self) -> None:
        self.run_label.setText("evaluating…")
        self._progress_timer.start()

    def _show_progress(self) -> None:
        if self.runner.busy:
            self.progress.setRange(0, 0)
            self.progress.show()
            self.cancel_button.show()

    def _on_progress(self, done: int, total: int, _node_id: str) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setFormat(f"{done}/{total} nodes")

    def _on_finished(self, result: RunResult) -> None:
        self.run_label.setText(run_summary(result, self.runner.last_duration, self._graph_of()))

    def _on_busy_changed(self, busy: bool) -> None:
        if not busy:
            self._progress_timer.stop()
            self.progress.hide()
            self.cancel_button.hide()
            if not self.runner.is_current():
                self.run_label.setText("not evaluated")
