"""Runs the Engine off the UI thread.

:class:`EvaluationRunner` listens to the graph's events, marks what a change makes stale
(the changed node and everything downstream) and schedules a run. A run is planned on the
UI thread (``Engine.plan`` reads the graph) and executed on a worker thread; progress and
the result come back through queued signals. Each run has a token: a result whose token is
not the latest, or whose graph generation is not the current one, is dropped (a newer run
follows). A new change while a run is busy cancels it (the engine stops before its next
node, or abandons a large node at once: see ``nodeeditor.graph.engine``) and starts again
when it returns. ``cancel()`` stops the current run for good.
"""
from __future__ import annotations

import time

import numpy as np
from PySide6 import QtCore

from nodeeditor.graph import events as E
from nodeeditor.graph.document import Graph
from nodeeditor.graph.engine import Engine, NodeResult, RunResult
from nodeeditor.graph.status import NodeStatus

from . import lifecycle
from .background import BackgroundWorker


class EvaluationRunner(QtCore.QObject):
    """Signals: ``runStarted()``, ``progressed(done, total, node_id)``, ``nodeFinished(node_id)``,
    ``finished(RunResult)`` (current results only), ``failed(str)`` (the engine itself raised),
    ``busyChanged(bool)``.

    Which nodes are stale is the runner's own business: others ask :meth:`state`,
    :meth:`is_current` and :attr:`last_result`, and ask for a full re-run with
    :meth:`rerun_all`."""

    runStarted = QtCore.Signal()
    progressed = QtCore.Signal(int, int, str)
    nodeFinished = QtCore.Signal(str)
    finished = QtCore.Signal(object)
    failed = QtCore.Signal(str)
    busyChanged = QtCore.Signal(bool)

    def __init__(self, graph: Graph, parent: QtCore.QObject | None = None, *, delay_ms: int = 0) -> None:
        super().__init__(parent)
        self._worker = BackgroundWorker("indexflow-run", self._on_done, self._on_progress)
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self._start)
        self._again = False
        self._dirty: set[str] = set()          # nodes to recompute: changed, or downstream of a change
        self._last_result: RunResult | None = None
        self._last_duration = 0.0
        self.graph: Graph | None = None
        self.engine: Engine | None = None
        self._unsubscribe = None
        self.set_graph(graph)
        lifecycle.register(self)

    # ------------------------------------------------------------------ public
    def set_graph(self, graph: Graph) -> None:
        """Follow another graph (a fresh engine; a busy run of the old one is dropped)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._worker.invalidate()
        self.graph = graph
        self.engine = Engine(graph, keep_intermediates=True)
        self._last_result = None
        self._dirty = set(graph.node_ids)
        self._unsubscribe = graph.events.subscribe(self._on_event)
        self.schedule()

    @property
    def busy(self) -> bool:
        return self._worker.running or self._timer.isActive()

    @property
    def last_result(self) -> RunResult | None:
        """The latest run that finished on the current graph (None before the first one)."""
        return self._last_result

    @property
    def last_duration(self) -> float:
        """How long :attr:`last_result` took, in seconds (wall clock, planning excluded)."""
        return self._last_duration

    def is_current(self) -> bool:
        """True when no node waits to be recomputed: every result shown is the graph's."""
        return not self._dirty

    def schedule(self) -> None:
        """Run soon (changes in one event-loop turn share one run)."""
        self._timer.start()

    def rerun_all(self) -> None:
        """Mark every node stale and run soon (Run > Evaluate Now)."""
        self._dirty |= set(self.graph.node_ids)
        self.schedule()

    def cancel(self) -> None:
        """Stop the current run (before its next node, or at once inside a large one); the
        nodes stay stale until the next edit."""
        self._again = False
        self._worker.cancel()

    def shutdown(self, timeout: float = 5.0) -> bool:
        """Cancel for good and wait (without processing events) for the worker thread: the
        window is closing. A large node is abandoned at once (see the engine), so this is
        quick. Whether the worker thread has ended."""
        self.cancel()
        self._timer.stop()
        return self._worker.join(timeout)

    def value(self, node_id: str, port: str | None = None):
        """The node's cached tensor on ``port`` (default its first output), or None (also for a
        foreign op's value that is not a tensor, such as an ONNX sequence)."""
        value = self.engine.value(node_id, port) if self.engine is not None else None
        return value if isinstance(value, np.ndarray) else None

    def result(self, node_id: str) -> NodeResult | None:
        return self.engine.result(node_id) if self.engine is not None else None

    def state(self, node_id: str) -> NodeStatus | None:
        """``NodeStatus.RUNNING`` while a pending run will recompute it, ``STALE`` when it must
        be recomputed but no run is going, else None (ask ``result`` for the outcome)."""
        if node_id in self._dirty:
            return NodeStatus.RUNNING if self.busy else NodeStatus.STALE
        return None

    def wait(self, timeout: float = 10.0) -> bool:
        """Process events until no run is busy (for tests and scripts)."""
        return self._worker.wait(lambda: self.busy, timeout)

    # ------------------------------------------------------------------ internals
    def _on_event(self, event: E.GraphEvent) -> None:
        if isinstance(event, (E.TypesChanged, *E.VIEW_EVENTS)):
            return          # no value depends on a view object (positions, frames, routes, collapsed flags)
        graph = self.graph
        touched: list[str] = []
        match event:
            case (E.NodeAdded(node_id=nid) | E.AttributeChanged(node_id=nid) | E.SourceChanged(node_id=nid)
                  | E.NodeRenamed(node_id=nid) | E.LossKindChanged(node_id=nid)):
                touched.append(nid)
            case E.EdgeAdded(edge=edge) | E.EdgeRemoved(edge=edge):
                touched.append(edge.dst)
            case E.SettingChanged():
                touched.extend(graph.node_ids)
            case E.NodeRemoved(node_id=nid):
                self._dirty.discard(nid)
        for nid in touched:
            if graph.has_node(nid):
                self._dirty.add(nid)
                self._dirty |= graph.downstream(nid)
        self.schedule()

    def _start(self) -> None:
        if self._worker.running:
            self._again = True
            self._worker.cancel()
            return
        engine = self.engine
        self._again = False
        try:
            plan = engine.plan()
        except Exception as exc:  # noqa: BLE001 - a graph bug must not take the editor down
            self.failed.emit(f"cannot plan the evaluation: {type(exc).__name__}: {exc}")
            return
        self._started_at = time.perf_counter()
        self._worker.start(lambda cancel, report: engine.execute(plan, cancel=cancel, progress=report))
        self.runStarted.emit()
        self.busyChanged.emit(True)

    def _on_progress(self, token: int, done: int, total: int, node_id: str) -> None:
        if token != self._worker.token:
            return
        self._dirty.discard(node_id)
        self.progressed.emit(done, total, node_id)
        self.nodeFinished.emit(node_id)

    def _on_done(self, token: int, result) -> None:
        current = token == self._worker.token
        if isinstance(result, BaseException):
            if current:
                self.failed.emit(f"the engine failed: {type(result).__name__}: {result}")
        elif current and not result.cancelled and result.generation == self.graph.generation:
            self._last_duration = time.perf_counter() - self._started_at
            self._last_result = result
            self._dirty.clear()
            self.finished.emit(result)
        elif current and result.generation != self.graph.generation:
            self._again = True   # the graph changed while it ran: this result is stale
        if self._again or (not current and not self._worker.cancel_event.is_set()):
            self._start()
        if not self.busy:
            self.busyChanged.emit(False)
