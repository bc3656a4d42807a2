"""Training from the editor: what the Training dock's Step, Train and Stop do.

Contract:

- :meth:`TrainingController.start` (UI thread) makes a ``graph.training.TrainingRun``, which
  snapshots the document into a private copy, so a run touches neither the document nor the
  evaluation runner's engine; ``TrainingRun.execute`` runs on a worker thread and each
  finished step is handed to the UI thread through a :class:`StepQueue`: however fast a run
  goes, at most one wake-up waits in the event loop, and the UI takes every step finished
  since in one go (one redraw of the curve), so a fast run never floods or freezes the UI.
  :meth:`TrainingController.stop` cancels; the run checks between steps and inside each
  pass, so it stops within one step.
- When a run ends, what it trained becomes ONE undo command (``commands.TrainedCommand`` on
  ``training.trained_edit``), for Train N steps and for Step (a run of one) alike: a stopped
  run keeps the steps it finished, a failed one the last good step (its error is shown). A
  run that finished no step changes nothing.
- While a run is going the document stays as the run saw it: :meth:`refuses` tells the
  window to refuse every edit but the view-only ones (``commands.view_only``: moving,
  frames, reroute points, collapsing), and :attr:`running` makes it disable Undo and Redo.
  A change that reaches the graph anyway (a script, a programmatic undo) stops the run and
  drops it: nothing is applied. Another document (:meth:`document_changed`) drops it too.
- The curve shows the loss before each step. It goes on across runs while nothing but
  training changed the graph since the last run ended (Step, Step, Step draws one curve);
  otherwise a run starts a new curve.
- The loss shown when no run is going is the document's: the sum of its Loss nodes' values
  from the last evaluation (``runner.finished``).

Signals: ``runningChanged(bool)``. UI thread only, but for the worker.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
from PySide6 import QtCore, QtGui

from nodeeditor.graph import events as E
from nodeeditor.graph.backward import BackwardSetupError, setup_problem
from nodeeditor.graph.document import Graph
from nodeeditor.graph.training import TrainingResult, TrainingRun, TrainingStep, trained_edit

from . import commands as C
from . import lifecycle
from .background import BackgroundWorker
from .runner import EvaluationRunner
from .status_line import ShowStatus
from .training_dock import TrainingPanel

REFUSED = "Training is running: stop it first (Stop in the Training dock) to change the graph"


#: Seconds a run pauses after a step while the UI has not yet taken the steps before it. A step
#: of small tensors is mostly Python, holding the GIL; without the pause the UI thread waits
#: for it at every call into Python and the dock lags seconds behind the run.
BEHIND_PAUSE = 0.002


class StepQueue:
    """Steps finished on the worker, taken by the UI thread in batches. :meth:`put` (worker)
    calls ``wake`` only when the queue was empty, so at most one wake-up is pending;
    :meth:`take` (UI thread) empties it."""

    def __init__(self, wake: Callable[[], None] = lambda: None) -> None:
        self._lock = threading.Lock()
        self._steps: list[TrainingStep] = []
        self.wake = wake

    def put(self, step: TrainingStep) -> None:
        with self._lock:
            self._steps.append(step)
            first = len(self._steps) == 1
        if first:
            self.wake()
        else:   # the UI has not taken the last steps yet: give it the GIL for a moment
            time.sleep(BEHIND_PAUSE)

    def take(self) -> list[TrainingStep]:
        with self._lock:
            steps, self._steps = self._steps, []
        return steps


class TrainingController(QtCore.QObject):
    runningChanged = QtCore.Signal(bool)

    def __init__(self, panel: TrainingPanel, graph_of: Callable[[], Graph], runner: EvaluationRunner,
                 push: Callable[[QtGui.QUndoCommand], None], status: ShowStatus,
                 parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.panel, self._graph_of, self.runner, self._push, self._status = panel, graph_of, runner, push, status
        # a step report carries the StepQueue its steps wait in
        self._worker = BackgroundWorker("indexflow-train", self._on_done, self._on_step)
        self._graph: Graph | None = None         # the document the run works for
        self._steps = 0                          # steps asked of the run going
        self._first_step = 0                     # the curve's step number of its first step
        self._curve_generation: int | None = None   # graph generation right after the last run
        self._unsubscribe = None
        self._queue = StepQueue()                # the steps of the run going
        self.last_result: TrainingResult | None = None
        panel.stepRequested.connect(lambda: self.start(1))
        panel.trainRequested.connect(self.start)
        panel.stopRequested.connect(self.stop)
        runner.finished.connect(lambda _result: self.show_document_loss())
        lifecycle.register(self)

    # ------------------------------------------------------------------ public
    @property
    def running(self) -> bool:
        return self._worker.running

    def refuses(self, command: QtGui.QUndoCommand) -> bool:
        """Whether the window must refuse ``command`` now (a run is going and the command
        would change more than the view); says why on the status line when it does."""
        if not self.running or C.view_only(command):
            return False
        self._status(REFUSED, error=True)
        return True

    def start(self, steps: int) -> bool:
        """Train ``steps`` steps; False (and the dock says why) when it cannot start."""
        if self.running:
            return False
        graph = self._graph_of()
        problem = setup_problem(graph)
        if problem is not None:
            self.panel.set_message(f"Cannot train: {problem}", error=True)
            return False
        try:
            run = TrainingRun(graph, self.panel.settings())
        except (BackwardSetupError, ValueError) as exc:
            self.panel.set_message(f"Cannot train: {exc}", error=True)
            return False
        if self._curve_generation != graph.generation:
            self.panel.clear_curve()
            self._first_step = 0
        self._graph, self._steps = graph, int(steps)
        self._unsubscribe = graph.events.subscribe(self._on_graph_event)
        self._queue = queue = StepQueue()

        def job(cancel, report) -> TrainingResult:
            queue.wake = lambda: report(queue)   # before the first step: put runs on this thread
            return run.execute(int(steps), cancel=cancel, on_step=queue.put)

        self._worker.start(job)
        self.panel.set_running(True, int(steps))
        self.panel.set_message("; ".join(run.warnings) if run.warnings else "training…")
        self.runningChanged.emit(True)
        return True

    def stop(self) -> None:
        """Stop the run after (or inside) the step under way; the steps done are applied."""
        if self.running:
            self._worker.cancel()
            self.panel.set_message("stopping…")

    def document_changed(self) -> None:
        """Another document is shown: drop a run (nothing is applied) and the curve."""
        if self.running:
            self._drop("")
        self.panel.clear_curve()
        self._curve_generation = None
        self.panel.set_message("")
        self.show_document_loss()

    def show_document_loss(self) -> None:
        """The loss of the document (its Loss nodes' values from the last evaluation)."""
        if self.running:
            return
        graph = self._graph_of()
        losses = [self.runner.value(n.id) for n in graph.loss_nodes()]
        if not losses:
            self.panel.set_loss(None, "(no Loss node)")
        elif any(v is None for v in losses):
            self.panel.set_loss(None)
        else:
            self.panel.set_loss(float(sum(float(np.asarray(v)) for v in losses)))

    def shutdown(self, timeout: float = 5.0) -> None:
        """Cancel a run and wait for its thread (the window is closing)."""
        self._worker.cancel()
        self._worker.join(timeout)

    def wait(self, timeout: float = 30.0) -> bool:
        """Process events until no run is going (tests and scripts)."""
        return self._worker.wait(lambda: self.running, timeout)

    # ------------------------------------------------------------------ internals
    def _on_graph_event(self, event: E.GraphEvent) -> None:
        if self.running and not isinstance(event, E.VIEW_EVENTS):
            self._drop("The graph changed while training: the run was stopped and nothing was applied")

    def _drop(self, message: str) -> None:
        """Cancel the run and forget it (its thread ends on its own; its result is ignored)."""
        self._worker.abandon()
        self._finish_run()
        if message:
            self.panel.set_message(message, error=True)
            self._status(message, error=True)

    def _finish_run(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self.panel.set_running(False)
        self.runningChanged.emit(False)

    def _on_step(self, token: int, queue: StepQueue) -> None:
        if token != self._worker.token:
            return
        self._show_steps(queue.take())

    def _show_steps(self, steps: list[TrainingStep]) -> None:
        """The steps finished since the last look: their points, the progress, the last loss."""
        if not steps:
            return
        self.panel.add_points([self._first_step + s.step for s in steps], [s.loss for s in steps])
        last = steps[-1]
        self.panel.set_progress(last.step, last.steps)
        self.panel.set_loss(last.loss, f"(step {last.step} of {last.steps})")

    def _on_done(self, token: int, result) -> None:
        if token != self._worker.token:
            return      # dropped (cancelled)
        self._finish_run()
        self._show_steps(self._queue.take())   # steps finished after the last wake-up was handled
        if isinstance(result, BaseException):
            message = f"Training failed: {type(result).__name__}: {result}"
            self.panel.set_message(message, error=True)
            self._status(message, error=True)
            self.show_document_loss()
            return
        self.last_result = result
        graph = self._graph
        applied = result.steps_done > 0 and bool(result.values)
        if applied:
            steps = result.steps_done
            text = f"Train {steps} Step" + ("s" if steps != 1 else "")
            self._push(C.TrainedCommand(graph, trained_edit(graph, result.values), text))
            self._first_step += steps
            self._curve_generation = graph.generation
        message, error = _summary(result, self._steps)
        if result.warnings and not result.error:   # said while it ran; a flat curve needs the reason after
            message += " · " + "; ".join(result.warnings)
        self.panel.set_message(message, error)
        self._status(message, error=error)
        if result.final_loss is not None:
            self.panel.set_loss(result.final_loss)
        elif applied and result.losses:
            self.panel.set_loss(result.losses[-1], "(before the last step)")
        else:
            self.show_document_loss()


def _summary(result: TrainingResult, asked: int) -> tuple[str, bool]:
    """(what a finished run did, whether it is an error)."""
    done = result.steps_done
    if result.error:
        kept = f"; the {done} step(s) before it are applied" if done else ""
        return f"Training stopped: {result.error}{kept}", True
    if result.cancelled:
        return (f"Stopped after {done} of {asked} steps" + (" (applied: one undo step)" if done else "")), False
    first = result.losses[0] if result.losses else None
    if first is None or result.final_loss is None:
        return f"Trained {done} steps", False
    return f"Trained {done} step{'s' if done != 1 else ''}: loss {first:.6g} → {result.final_loss:.6g}", False

