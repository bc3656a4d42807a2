"""Gradients for the editor's views: d loss / d the output of every node on the path from a
trainable source to a loss, computed off the UI thread.

:class:`GradientRunner` has its own :class:`~nodeeditor.graph.engine.Engine` on the
document's graph and a :class:`~nodeeditor.graph.backward.Backward` on it, never the
evaluation runner's engine: a backward pass reads the forward values it kept in its engine,
which a run on another thread would replace meanwhile (``graph.backward``'s contract). The
pass is planned on the UI thread (``Backward.plan`` reads the graph) and executed on a worker
thread; the result comes back through a queued signal.

It works only while someone wants gradients (:meth:`GradientRunner.want`: the viewer's
Gradient mode, the Explainer's Backward mode). Every graph change but a view change (a move,
a frame, a reroute point, a collapse) schedules a new pass (changes in one event-loop turn
share one), and the last result stays until the new one replaces it (so views do not flicker
on each edit); with nobody wanting gradients the result is forgotten instead. A change while a
pass runs cancels it and starts again when it returns, and a result planned at another graph
generation is dropped. What there is:

- :attr:`result`: the latest :class:`~nodeeditor.graph.backward.GradientResult` (``ok``; of
  the current graph unless :attr:`busy`), or None;
- :attr:`problem`: why there is no result (no Loss node, no trainable source, a node that
  failed on the way to the loss, a gradient rule that failed), or None;
- :attr:`busy`: a pass is scheduled or running.

Signals: ``changed()`` after :attr:`result` or :attr:`problem` changed (a pass finished,
another graph, someone wants gradients again). UI thread only, but for the worker.
"""
from __future__ import annotations

from PySide6 import QtCore

from nodeeditor.graph import events as E
from nodeeditor.graph.backward import Backward, BackwardSetupError, GradientResult
from nodeeditor.graph.document import Graph
from nodeeditor.graph.engine import Engine

from . import lifecycle
from .background import BackgroundWorker

COMPUTING = "computing the gradient…"

class GradientRunner(QtCore.QObject):
    changed = QtCore.Signal()

    def __init__(self, graph: Graph, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._worker = BackgroundWorker("indexflow-gradient", self._on_done)
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self._start)
        self._wanted: set[str] = set()
        self._again = False
        self.result: GradientResult | None = None
        self.problem: str | None = None
        self.graph: Graph | None = None
        self._unsubscribe = None
        self.set_graph(graph)
        lifecycle.register(self)

    # ------------------------------------------------------------------ public
    def set_graph(self, graph: Graph) -> None:
        """Follow another graph (a fresh engine; a pass of the old one is dropped)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._worker.invalidate()
        self.graph = graph
        self.engine = Engine(graph)
        self.backward = Backward(self.engine)
        self._unsubscribe = graph.events.subscribe(self._on_event)
        self._stale()

    def want(self, owner: str, on: bool) -> None:
        """``owner`` (a name) wants gradients (True) or no longer does; passes run while anyone does."""
        had = bool(self._wanted)
        (self._wanted.add if on else self._wanted.discard)(owner)
        if self._wanted and not had and self.result is None:
            self._stale()
        elif had and not self._wanted:
            self._worker.cancel()
            self._timer.stop()

    @property
    def wanted(self) -> bool:
        return bool(self._wanted)

    @property
    def busy(self) -> bool:
        return self._worker.running or self._timer.isActive()

    def gradient(self, node_id: str):
        """d loss / d the node's output from :attr:`result` (None: no result, or the node is not
        on a path from a trainable source to a loss)."""
        return None if self.result is None else self.result.gradient(node_id)

    def shutdown(self, timeout: float = 5.0) -> None:
        """Cancel for good and wait for the worker (the window is closing)."""
        self._wanted.clear()
        self._worker.cancel()
        self._timer.stop()
        self._worker.join(timeout)

    def wait(self, timeout: float = 10.0) -> bool:
        """Process events until no pass is busy (for tests and scripts)."""
        return self._worker.wait(lambda: self.busy, timeout)

    # ------------------------------------------------------------------ internals
    def _on_event(self, event: E.GraphEvent) -> None:
        if isinstance(event, E.VIEW_EVENTS):
            return
        if self._wanted:
            self._timer.start()      # the last result stays shown until the new one replaces it
        else:
            self.result = self.problem = None   # nobody looks: forget it, compute afresh when asked

    def _stale(self) -> None:
        """Another graph, or someone wants gradients again: drop what there is and, while
        wanted, compute soon."""
        self.result = None
        self.problem = COMPUTING if self._wanted else None
        if self._wanted:
            self._timer.start()
        self.changed.emit()

    def _start(self) -> None:
        if not self._wanted:
            return
        if self._worker.running:
            self._again = True
            self._worker.cancel()
            return
        self._again = False
        try:
            plan = self.backward.plan()
        except BackwardSetupError as exc:
            self._finish(None, str(exc))
            return
        backward = self.backward
        self._worker.start(lambda cancel, _report: backward.execute(plan, cancel=cancel))

    def _on_done(self, token: int, result) -> None:
        if not self._wanted:
            return
        if token != self._worker.token or self._again:       # a newer graph or a change while it ran
            self._start()
            return
        if isinstance(result, BaseException):
            self._finish(None, f"the backward pass failed: {type(result).__name__}: {result}")
        elif result.cancelled:
            return
        elif result.generation != self.graph.generation:
            self._start()
        elif result.ok:
            self._finish(result, None)
        else:
            messages = [msg for _, msg in result.errors] or ["the loss could not be computed"]
            self._finish(None, "no gradient: " + "; ".join(messages))

    def _finish(self, result: GradientResult | None, problem: str | None) -> None:
        self.result, self.problem = result, problem
        self.changed.emit()
