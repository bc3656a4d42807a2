"""Training runs: N optimizer steps on the trainable sources, and the one edit that applies
them to the document.

Contract:

- ``train(graph, steps, settings)`` is ``TrainingRun(graph, settings).execute(steps)``.
  :class:`TrainingRun` is made on the graph's thread: it snapshots the graph into a private
  copy. :meth:`TrainingRun.execute` (any thread) works on that copy only, so a run never
  changes the document; it returns a :class:`TrainingResult` with the trained tensors.
- Each step is one backward pass (:mod:`nodeeditor.graph.backward`) at the current values,
  whose total loss is recorded in ``losses``, then one update of every differentiated source
  by the optimizer (:mod:`nodeeditor.graph.optimizers`). After the last step one more
  forward pass gives ``final_loss``. Values are kept in float64 between steps and rounded to
  each source's dtype to evaluate the graph; ``values`` holds them in the sources' dtypes.
- ``on_step(TrainingStep)`` is called after each step, on the thread running ``execute``.
  ``cancel`` (a ``threading.Event`` or a callable) is checked between steps and inside each
  pass; a cancelled run returns the values of the steps it completed (``cancelled`` set).
  A pass that fails ends the run with ``error`` set and the values of the last good step.
- Applying: :func:`trained_edit` describes the change as a :class:`TrainedEdit` (nothing
  changes yet); its ``redo(graph)`` applies it and ``undo(graph)`` puts the graph back, so
  the editor wraps a whole run in one undo command; :func:`apply_trained` builds and applies
  it at once (the command line). Every trained source becomes a literal with the trained
  tensor under the same id, name and position, still trainable: a generator, a file source or
  an imported model's tensor gives up its parameters or its file (the trained values are no longer what it would
  produce), a literal just gets the new value. ``Graph.replace_node`` does the swap, so the
  edges stay and an undo brings back the very node objects (and their cached results).
"""
from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

import ops

from . import nodes as N
from .backward import Backward, BackwardPlan
from .document import Graph
from .engine import Engine, cancel_check
from .optimizers import Optimizer, OptimizerSettings
from .status import NodeStatus


@dataclass(frozen=True)
class TrainingStep:
    """Reported after each step: ``step`` of ``steps`` (from 1) and the loss it started from."""

    step: int
    steps: int
    loss: float


@dataclass
class TrainingResult:
    """What a run produced (see the module docstring). ``losses[i]`` is the loss before
    update ``i + 1``; ``final_loss`` the loss after the last update (None when the run
    stopped early or failed)."""

    settings: OptimizerSettings
    values: dict[str, np.ndarray] = field(default_factory=dict)
    losses: list[float] = field(default_factory=list)
    final_loss: float | None = None
    steps_done: int = 0
    cancelled: bool = False
    error: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.cancelled


def private_copy(graph: Graph) -> Graph:
    """A new graph with clones of ``graph``'s nodes and its edges (same ids, settings and
    file, so relative file paths resolve alike). Call on the graph's thread."""
    copy = Graph(**graph.settings)
    copy.file_path = graph.file_path
    copy.share_file_scope(graph.file_scope)   # it reads exactly the files the original may
    with copy.batch():
        for node in graph.nodes:
            clone = node.clone()
            clone.revision = 0
            copy.add_node(clone)
        for e in graph.edges:
            copy.connect(e.src, e.src_port, e.dst, e.dst_port, force=True)
    return copy


class TrainingRun:
    """One training run on a private copy of a graph (see the module docstring). Raises
    :class:`~nodeeditor.graph.backward.BackwardSetupError` when the graph has no Loss node
    or no trainable float source."""

    def __init__(self, graph: Graph, settings: OptimizerSettings | None = None,
                 losses: Iterable[str] | None = None) -> None:
        self.settings = settings or OptimizerSettings()
        self.graph = private_copy(graph)
        self.engine = Engine(self.graph)
        self.backward = Backward(self.engine)
        first = self.backward.plan(losses)          # checks there is a loss and a source
        self.losses = first.losses
        self.sources = first.sources
        self.warnings = list(first.warnings)

    def execute(self, steps: int, *, on_step: Callable[[TrainingStep], None] | None = None,
                cancel: threading.Event | Callable[[], bool] | None = None) -> TrainingResult:
        """Run ``steps`` optimizer steps; see the module docstring."""
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"the number of steps must be a non-negative integer, got {steps!r}")
        is_cancelled = cancel_check(cancel) or _never
        result = TrainingResult(self.settings, warnings=list(self.warnings))
        g = self.graph
        start = self.engine.run(self.sources, cancel=cancel, keep=self.sources)
        if start.cancelled:
            result.cancelled = True
            return result
        failed = [r.error for r in start.nodes.values() if r.status != NodeStatus.OK]
        if failed:
            result.error = "; ".join(e or "a source failed" for e in failed)
            return result
        dtypes = {sid: np.asarray(self.engine.value(sid)).dtype for sid in self.sources}
        params = {sid: np.asarray(self.engine.value(sid)).astype(np.float64) for sid in self.sources}
        with g.batch():
            for sid in self.sources:   # a generator or file becomes a literal the run can set
                g.replace_node(sid, trained_literal(g.node(sid), self.engine.value(sid)))
        result.values = {sid: _rounded(params[sid], dtypes[sid]) for sid in self.sources}
        optimizer = Optimizer(self.settings)
        for step in range(1, steps + 1):
            if is_cancelled():
                result.cancelled = True
                return result
            grads = self._pass(self.backward.plan(self.losses, self.sources), cancel, result)
            if grads is None:
                return result
            params = optimizer.step(params, grads)
            nonfinite = [g.node(sid).label for sid, p in params.items() if not np.all(np.isfinite(p))]
            if nonfinite:
                result.error = (f"step {step}: the values of {', '.join(nonfinite)} are no longer finite; "
                                "try a smaller learning rate")
                return result
            result.values = {sid: _rounded(params[sid], dtypes[sid]) for sid in self.sources}
            with g.batch():
                for sid, value in result.values.items():
                    g.set_source(sid, value=value)
            result.steps_done = step
            if on_step is not None:
                on_step(TrainingStep(step, steps, result.losses[-1]))
        final = self.engine.run(self.losses, cancel=cancel, keep=self.losses)
        if final.cancelled:
            result.cancelled = True
        elif final.ok:
            result.final_loss = float(sum(float(self.engine.value(lid)) for lid in self.losses))
        else:
            result.error = "; ".join(msg for _, msg in final.errors()) or "the loss could not be computed"
        return result

    def _pass(self, plan: BackwardPlan, cancel, result: TrainingResult) -> dict[str, np.ndarray] | None:
        """One backward pass: the gradients by source, or None (result updated) when it was
        cancelled or failed."""
        grads = self.backward.execute(plan, cancel=cancel)
        if grads.cancelled:
            result.cancelled = True
            return None
        if not grads.ok:
            result.error = "; ".join(msg for _, msg in grads.errors) or "the backward pass failed"
            return None
        if not math.isfinite(grads.loss):
            result.error = f"step {result.steps_done + 1}: the loss is {grads.loss}; try a smaller learning rate"
            return None
        result.losses.append(grads.loss)
        return grads.source_gradients()


def train(graph: Graph, steps: int, settings: OptimizerSettings | None = None, *,
          losses: Iterable[str] | None = None, on_step: Callable[[TrainingStep], None] | None = None,
          cancel: threading.Event | Callable[[], bool] | None = None) -> TrainingResult:
    """Run a training run of ``steps`` steps on ``graph`` (which it does not change)."""
    return TrainingRun(graph, settings, losses).execute(steps, on_step=on_step, cancel=cancel)


# ---------------------------------------------------------------------- applying a run
@dataclass(frozen=True)
class TrainedEdit:
    """The change a training run makes to the document: node id -> the node ``before`` and
    the trained literal ``after``. ``redo`` applies it, ``undo`` reverts it (both in one
    ``Graph.batch``)."""

    before: Mapping[str, N.Node]
    after: Mapping[str, N.Node]

    def redo(self, graph: Graph) -> None:
        with graph.batch():
            for node_id, node in self.after.items():
                graph.replace_node(node_id, node)

    def undo(self, graph: Graph) -> None:
        with graph.batch():
            for node_id, node in self.before.items():
                graph.replace_node(node_id, node)


def trained_literal(node: N.Node, value: np.ndarray) -> N.LiteralSource:
    """The trainable literal that takes the place of ``node`` with the trained ``value`` (its
    name, place, look and ``overridable`` kept)."""
    return N.LiteralSource(id=node.id, name=node.name, position=node.position, collapsed=node.collapsed,
                           overridable=node.overridable, value=N.frozen_array(value), trainable=True)


def trained_edit(graph: Graph, values: Mapping[str, np.ndarray]) -> TrainedEdit:
    """The edit that gives each source in ``values`` (id -> trained tensor) its trained
    value; nothing is applied yet. ValueError when a value does not fit its source."""
    before, after = {}, {}
    for node_id, value in values.items():
        node = graph.node(node_id)
        if not isinstance(node, N.TrainableSource):
            raise ValueError(f"{node.label} is a {node.kind} node; only literal, generator, file and model "
                             "tensor sources take trained values")
        old = graph.output_type(node_id)
        new = ops.TensorType.of(value)
        if old is not None and old != new:
            raise ValueError(f"the trained value for {node.label} is {new}, the source gives {old}")
        before[node_id], after[node_id] = node, trained_literal(node, value)
    return TrainedEdit(before, after)


def apply_trained(graph: Graph, values: Mapping[str, np.ndarray]) -> TrainedEdit:
    """Apply :func:`trained_edit` to ``graph`` and return it (its ``undo`` reverts)."""
    edit = trained_edit(graph, values)
    edit.redo(graph)
    return edit


def _rounded(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return np.asarray(value).astype(dtype)


def _never() -> bool:
    return False
