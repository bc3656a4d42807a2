"""The backward pass: d(loss)/d(source) for the trainable sources, with a cache.

Contract:

- ``Backward(engine)`` works on the engine's graph and forward cache. :meth:`Backward.plan`
  (on the graph's thread) snapshots what a pass needs: the Loss nodes (default: every
  one; the total loss is their sum), the sources to differentiate (default: the trainable
  ones whose tensor is a float, :func:`gradient_sources`), and every node on a path from
  one of those sources to a loss, with its inputs, op and attributes or loss kind,
  training switch and loss coefficient. With no Loss node or no such source it raises
  :class:`BackwardSetupError`, whose message says which is missing.
- :meth:`Backward.execute` (any thread) runs the forward pass (``Engine.execute`` with the
  values the backward reads kept), then walks the path in reverse topological order. The
  gradient of a node's output is the sum, over its edges to consumers on the path, of what
  each consumer sends back to that input (fan-out adds up); a Loss node also seeds 1 (d
  total / d its loss). An operator with training on sends ``loss_coefficient *
  ops.vjp(...)`` to its inputs, one with training off sends nothing; a Loss node sends its
  :meth:`~nodeeditor.graph.nodes.LossNode.loss_vjp`; a foreign node (an ONNX op of an imported
  model) with a rule in :mod:`.foreign_vjp` is an operator here (its switch and coefficient
  too), one without says so in the warnings and sends nothing. Gradients are of a node's first
  output; each input is read from the output its wire starts at; a node whose output is no float
  (Shape, a Cast to integers) is off the path. The walk stops at the sources.
- Cache: each node's backward work (its output gradient and what it sends to its inputs)
  is kept under a key made of the engine's version of its forward result
  (:meth:`Engine.version`), its training switch and coefficient, whether it seeds, and the
  keys of its consumers on the path. Changing a coefficient therefore recomputes that node
  and the path upstream of it; nothing else. :attr:`GradientResult.recomputed` says which.
- ``cancel`` (a ``threading.Event`` or a callable) is checked by the forward pass and before
  each backward node; a cancelled result has ``cancelled`` set and no gradients, and what
  was finished stays cached. ``progress(done, total, node_id)`` is called for the forward
  nodes (as ``Engine.run`` does), then for each backward node with its own count.
- A forward failure on the way to a loss, or an error in a gradient rule, ends the pass with
  :attr:`GradientResult.errors` naming the nodes.
- Threads: plan on the graph's thread; execute may run on a worker; do not run the same
  engine on another thread meanwhile (the pass reads the values it kept in it).
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import ops

from . import nodes as N
from .engine import Engine, Plan, Progress, RunResult, cancel_check
from .foreign_vjp import Rule as ForeignRule
from .foreign_vjp import foreign_vjp
from .losses import LossError, is_float
from .status import NodeStatus

Vjp = Callable[[str, list, Mapping[str, Any], np.ndarray], tuple]


class BackwardSetupError(ValueError):
    """The graph cannot be differentiated: ``missing_loss`` (no Loss node) and/or
    ``missing_sources`` (no trainable source with a float tensor); ``str(exc)`` says which."""

    def __init__(self, message: str, *, missing_loss: bool = False, missing_sources: bool = False) -> None:
        super().__init__(message)
        self.missing_loss = missing_loss
        self.missing_sources = missing_sources


NO_LOSS_TEXT = "the graph has no Loss node (add one and connect the prediction to it)"
NO_SOURCE_TEXT = ("no tensor source is marked trainable (mark a literal, generator, file or model tensor "
                  "source holding floats as trainable)")


def gradient_sources(graph) -> tuple[str, ...]:
    """Ids of the sources a backward pass differentiates by default: the trainable ones
    whose (inferred) tensor is a float; node order."""
    out = []
    for node in graph.trainable_sources():
        ttype = graph.output_type(node.id)
        if ttype is not None and is_float(ttype.dtype):
            out.append(node.id)
    return tuple(out)


def gradient_edges(graph) -> frozenset[N.Edge]:
    """The edges a backward pass sends a gradient along: walking back from the Loss nodes,
    an edge carries one when its end passes gradients to that input (a Loss node; an
    operator whose training switch is on, into a differentiable input of its OpDef; a foreign
    node with a rule in :mod:`.foreign_vjp`, into any of its inputs), the wire
    carries a float tensor, its start lies on a path from a :func:`gradient_sources` source,
    and its end itself receives a gradient. Empty when there is no loss or no such source.
    Reads the graph only."""
    sources = gradient_sources(graph)
    losses = [n.id for n in graph.loss_nodes()]
    if not sources or not losses:
        return frozenset()
    from_sources = set(sources).union(*(graph.downstream(s) for s in sources))
    out: set[N.Edge] = set()
    reached, stack = set(losses), list(losses)
    while stack:
        node = graph.node(stack.pop())
        if isinstance(node, N.OperatorNode):
            if not node.training:
                continue
            ports = set(ops.get_opdef(node.op).differentiable_inputs)
        elif isinstance(node, N.LossNode):
            ports = set(node.input_ports())
        elif isinstance(node, N.ForeignNode) and foreign_vjp(node.op_type, node.domain, len(node.outputs)):
            if not node.training:
                continue
            ports = set(node.inputs)
        else:
            continue
        for port, edge in graph.inputs_of(node.id).items():
            ttype = graph.output_type(edge.src, edge.src_port)
            first = graph.node(edge.src).output_ports()[0]   # gradients are of a node's first output
            if port in ports and edge.src in from_sources and edge.src_port == first and ttype is not None \
                    and is_float(ttype.dtype):
                out.add(edge)
                if edge.src not in reached:
                    reached.add(edge.src)
                    stack.append(edge.src)
    return frozenset(out)


def gradient_name_clashes(graph) -> list[str]:
    """Messages for trainable float sources that share a name: gradients are named after
    their source (``indexflow grad`` files, ``grad_<name>`` outputs), so the names must differ."""
    seen: dict[str, list[str]] = {}
    for node_id in gradient_sources(graph):
        seen.setdefault(graph.node(node_id).name, []).append(node_id)
    return [f"{len(ids)} trainable sources are called {name!r} ({', '.join(ids)})"
            for name, ids in seen.items() if len(ids) > 1]


def setup_problem(graph) -> BackwardSetupError | None:
    """Why no backward pass can start on ``graph`` (no Loss node, no trainable float source,
    or both), or None."""
    no_loss, no_source = not graph.loss_nodes(), not gradient_sources(graph)
    return _setup_error(no_loss, no_source) if no_loss or no_source else None


def _setup_error(no_loss: bool, no_source: bool) -> BackwardSetupError:
    parts = ([NO_LOSS_TEXT] if no_loss else []) + ([NO_SOURCE_TEXT] if no_source else [])
    return BackwardSetupError("; and ".join(parts), missing_loss=no_loss, missing_sources=no_source)


@dataclass(frozen=True)
class BackwardStep:
    """One node on the path from a source to a loss."""

    node_id: str
    label: str
    inputs: tuple[tuple[str, str | None], ...]     # (port, upstream node id or None) in port order
    consumers: tuple[tuple[str, str], ...]         # (consumer id, its input port) for each edge on the path
    op: str | None = None                          # operators
    attrs: Mapping[str, Any] | None = None
    loss: N.LossNode | None = None                 # loss nodes (a snapshot)
    training: bool = True
    coefficient: float = 1.0
    seed: bool = False                             # a loss of the total: d total / d output starts at 1
    is_source: bool = False
    src_ports: tuple[str | None, ...] = ()         # the output port each input comes from (a Split's second)
    rule: ForeignRule | None = None                # foreign nodes with a gradient rule (attrs: their values)
    opset: int = 0                                 # ... and the graph's opset, which the rule reads


@dataclass(frozen=True)
class BackwardPlan:
    """An immutable plan of one backward pass (see :meth:`Backward.plan`)."""

    forward: Plan
    steps: tuple[BackwardStep, ...]                # path nodes in topological order
    losses: tuple[str, ...]
    sources: tuple[str, ...]
    source_types: Mapping[str, ops.TensorType]
    keep: frozenset[str]                           # nodes whose forward values the pass reads
    warnings: tuple[str, ...] = ()

    @property
    def generation(self) -> int:
        return self.forward.generation


@dataclass
class GradientResult:
    """What a backward pass produced.

    ``loss`` is the total loss (the sum of ``losses``, loss node id -> value) as a Python
    float; ``gradients`` maps every node on the path (sources included) to d total / d its
    output; :meth:`source_gradients` gives each differentiated source its gradient (zeros
    when no gradient reaches it). ``blocked`` lists the operators on the path whose training
    switch is off. ``recomputed`` lists the nodes whose backward work ran in this pass (the
    others came from the cache)."""

    generation: int
    forward: RunResult
    sources: tuple[str, ...] = ()
    loss: float | None = None
    losses: dict[str, float] = field(default_factory=dict)
    gradients: dict[str, np.ndarray] = field(default_factory=dict)
    blocked: frozenset[str] = frozenset()
    recomputed: frozenset[str] = frozenset()
    errors: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cancelled: bool = False
    source_types: Mapping[str, ops.TensorType] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.cancelled and not self.errors and self.loss is not None

    def gradient(self, node_id: str) -> np.ndarray | None:
        """d total / d the node's output, for a node on the path (None otherwise)."""
        return self.gradients.get(node_id)

    def source_gradients(self) -> dict[str, np.ndarray]:
        """Source id -> its gradient, for every differentiated source, in plan order (zeros of
        the source's shape and dtype when no gradient reaches it)."""
        out = {}
        for sid in self.sources:
            grad = self.gradients.get(sid)
            if grad is None:
                t = self.source_types[sid]
                grad = np.zeros(t.shape, dtype=ops.dtype_of(t.dtype))
            out[sid] = grad
        return out


@dataclass
class _Entry:
    key: tuple
    grad: np.ndarray
    sends: dict[str, np.ndarray]           # input port -> the gradient sent to it (none: nothing)


class Backward:
    """The backward pass of one engine's graph, with its cache (see the module docstring)."""

    def __init__(self, engine: Engine, *, vjp: Vjp | None = None) -> None:
        self.engine = engine
        self.vjp: Vjp = vjp or ops.vjp
        self._cache: dict[str, _Entry] = {}
        self._lock = threading.Lock()

    @property
    def graph(self):
        return self.engine.graph

    def clear(self) -> None:
        """Forget every cached backward result."""
        with self._lock:
            self._cache.clear()

    # ------------------------------------------------------------------ planning
    def plan(self, losses: Iterable[str] | None = None, wrt: Iterable[str] | None = None) -> BackwardPlan:
        """Snapshot a pass from ``losses`` (default: every Loss node) to the sources ``wrt``
        (default: :func:`gradient_sources`). Call on the graph's thread.
        :class:`BackwardSetupError` when there is no loss or no source to differentiate;
        ValueError for an id in ``losses`` that is not a Loss node or in ``wrt`` that is not
        a literal, generator or file source."""
        g = self.graph
        loss_ids = tuple(n.id for n in g.loss_nodes()) if losses is None else tuple(dict.fromkeys(losses))
        for lid in loss_ids:
            if not isinstance(g.node(lid), N.LossNode):
                raise ValueError(f"{g.node(lid).label} is a {g.node(lid).kind} node, not a loss")
        warnings = []
        if wrt is None:
            source_ids = gradient_sources(g)
            for node in g.trainable_sources():
                if node.id not in source_ids:
                    ttype = g.output_type(node.id)
                    why = f"its {ttype.dtype} values have" if ttype is not None else "it has no type yet, so it has"
                    warnings.append(f"{node.label}: marked trainable, but {why} no gradient; it is left out")
        else:
            source_ids = tuple(dict.fromkeys(wrt))
            for sid in source_ids:
                if not isinstance(g.node(sid), N.TrainableSource):
                    raise ValueError(f"{g.node(sid).label} is a {g.node(sid).kind} node; gradients are taken "
                                     "with respect to literal, generator, file and model tensor sources")
        if not loss_ids or not source_ids:
            raise _setup_error(not loss_ids, not source_ids)

        source_types = {}
        for sid in source_ids:
            ttype = g.output_type(sid)
            if ttype is None:
                ttype = ops.TensorType("float32", ())
            source_types[sid] = ttype
        reach_loss = set(loss_ids) | g.upstream(loss_ids)
        from_sources = set(source_ids).union(*(g.downstream(s) for s in source_ids))
        between = reach_loss & from_sources
        # a node whose output is no float carries no gradient (Shape, an index computation, a Cast
        # to an integer): off the path, its value still read where an input of the path needs it
        on_path = {nid for nid in between if g.node(nid).is_source or nid in loss_ids or _float_output(g, nid)}
        for nid in sorted(between - on_path):
            node = g.node(nid)
            if isinstance(node, N.ForeignNode) and foreign_vjp(node.op_type, node.domain, len(node.outputs)):
                ttype = g.output_type(nid)
                warnings.append(f"{node.label}: its output is {ttype.dtype if ttype else 'not known'}, so no "
                                "gradient flows back through it")
        for sid in source_ids:
            if sid not in reach_loss:
                warnings.append(f"{g.node(sid).label}: no path leads from it to a loss; its gradient is zero")
        steps = []
        keep: set[str] = set(loss_ids)
        for nid in g.topological_order(on_path):
            node = g.node(nid)
            edges_in = [g.edge_into(nid, port) for port in node.input_ports()]
            inputs = tuple((port, None if e is None else e.src) for port, e in zip(node.input_ports(), edges_in,
                                                                                 strict=True))
            src_ports = tuple(None if e is None else e.src_port for e in edges_in)
            # gradients are of the first output (every node with a rule has one); a later output's
            # consumers send nothing back through a node such as Split, which has no rule
            first = node.output_ports()[0] if node.output_ports() else None
            consumers = tuple((e.dst, e.dst_port) for e in g.edges_of(nid)
                              if e.src == nid and e.dst in on_path and e.src_port == first)
            step = dict(node_id=nid, label=node.label, inputs=inputs, src_ports=src_ports, consumers=consumers,
                        seed=nid in loss_ids, is_source=node.is_source)
            if isinstance(node, N.OperatorNode):
                info = g.node_info(nid)
                attrs = node.schema.check_attributes(node.attributes, g.opset) if info.ok else dict(node.attributes)
                step.update(op=node.op, attrs=attrs, training=node.training, coefficient=node.loss_coefficient)
            elif isinstance(node, N.LossNode):
                step.update(loss=node.clone())
            elif isinstance(node, N.ForeignNode):
                rule = foreign_vjp(node.op_type, node.domain, len(node.outputs))
                # an op read on the path through a float output (any: Split's second) stops the
                # gradient there, and says so; one read only through integers (TopK's indices) needs none
                read = any(e.dst in on_path and _float_output(g, nid, e.src_port)
                           for e in g.edges_of(nid) if e.src == nid)
                if rule is None and read:
                    warnings.append(f"{node.label}: IndexFlow has no gradient for ONNX op {node.title}; "
                                    "no gradient flows back through it")
                elif rule is not None:
                    step.update(op=node.op_type, rule=rule, opset=g.opset, training=node.training,
                                coefficient=node.loss_coefficient,
                                attrs={name: a.value for name, a in node.attributes.items()})
            if not node.is_source:
                keep.update(src for _, src in inputs if src is not None)
            steps.append(BackwardStep(**step))
        forward = self.engine.plan(loss_ids)
        return BackwardPlan(forward, tuple(steps), loss_ids, tuple(source_ids), source_types,
                            frozenset(keep), tuple(warnings))

    # ------------------------------------------------------------------ running
    def run(self, losses: Iterable[str] | None = None, wrt: Iterable[str] | None = None, *,
            progress: Progress | None = None,
            cancel: threading.Event | Callable[[], bool] | None = None) -> GradientResult:
        """``plan`` then ``execute`` on the calling thread."""
        return self.execute(self.plan(losses, wrt), progress=progress, cancel=cancel)

    def execute(self, plan: BackwardPlan, *, progress: Progress | None = None,
                cancel: threading.Event | Callable[[], bool] | None = None) -> GradientResult:
        """Run a planned pass (may run on a worker thread)."""
        is_cancelled = cancel_check(cancel) or _never
        forward = self.engine.execute(plan.forward, progress=progress, cancel=cancel, keep=plan.keep)
        result = GradientResult(plan.generation, forward, plan.sources, source_types=plan.source_types,
                                warnings=list(plan.warnings))
        if forward.cancelled:
            result.cancelled = True
            return result
        failed = [(lid, forward.nodes[lid]) for lid in plan.losses
                  if lid not in forward.nodes or forward.nodes[lid].status != NodeStatus.OK]
        if failed:
            result.errors = forward.errors() or [(lid, r.error or "not computed") for lid, r in failed]
            return result
        with self._lock:
            return self._backward(plan, result, progress, is_cancelled)

    def _backward(self, plan: BackwardPlan, result: GradientResult, progress: Progress | None,
                  is_cancelled: Callable[[], bool]) -> GradientResult:
        engine = self.engine
        live = {s.node_id for s in plan.steps}
        for gone in [nid for nid in self._cache if nid not in plan.forward.live]:
            del self._cache[gone]
        result.losses = {lid: float(engine.value(lid)) for lid in plan.losses}
        result.loss = float(sum(result.losses.values()))
        keys: dict[str, tuple] = {}
        entries: dict[str, _Entry] = {}
        recomputed = set()
        total = len(plan.steps)
        for done, step in enumerate(reversed(plan.steps), 1):
            nid = step.node_id
            if is_cancelled():
                result.cancelled = True
                result.gradients = {}
                return result
            key = (engine.version(nid), step.training, step.coefficient, step.seed,
                   tuple((c, p, keys[c]) for c, p in step.consumers if c in live))
            keys[nid] = key
            entry = self._cache.get(nid)
            if entry is None or entry.key != key:
                try:
                    entry = self._compute(step, key, entries)
                except (ops.OpError, LossError) as exc:
                    result.errors.append((nid, f"{step.label}: cannot take the gradient: {exc}"))
                    return result
                self._cache[nid] = entry
                recomputed.add(nid)
            entries[nid] = entry
            result.gradients[nid] = entry.grad
            if progress is not None:
                progress(done, total, nid)
        result.blocked = frozenset(s.node_id for s in plan.steps if s.op is not None and not s.training)
        result.recomputed = frozenset(recomputed)
        return result

    def _compute(self, step: BackwardStep, key: tuple, entries: Mapping[str, _Entry]) -> _Entry:
        value = np.asarray(self.engine.value(step.node_id))
        total = np.ones(value.shape, dtype=np.float64) if step.seed else None
        for consumer, port in step.consumers:
            sent = entries[consumer].sends.get(port)
            if sent is not None:
                total = sent.astype(np.float64) if total is None else total + sent
        grad = (np.zeros(value.shape, dtype=value.dtype) if total is None
                else np.asarray(total.astype(value.dtype)))
        ports = [port for port, _ in step.inputs]
        sends: dict[str, np.ndarray] = {}
        if step.rule is not None and step.training:
            inputs = [None if x is None else np.asarray(x) for x in self._inputs(step)]
            try:
                raw = step.rule(inputs, step.attrs, value, grad, step.opset)
            except (ValueError, TypeError, KeyError, IndexError, ArithmeticError) as exc:
                raise ops.OpError(f"the gradient of {step.op}: {exc}") from exc
            sends = {port: _scaled(g, step.coefficient) for port, g in zip(ports, raw, strict=True) if g is not None}
        elif step.op is not None and step.rule is None and step.training:
            inputs = self._inputs(step)
            raw = self.vjp(step.op, inputs, step.attrs, grad)
            sends = {port: _scaled(g, step.coefficient) for port, g in zip(ports, raw, strict=True) if g is not None}
        elif step.loss is not None:
            pred, target = self._inputs(step)[:2]
            raw = step.loss.loss_vjp(pred, target, grad)
            sends = {port: g for port, g in zip(ports, raw, strict=True) if g is not None}
        return _Entry(key, grad, sends)

    def _inputs(self, step: BackwardStep) -> list:
        """The values the node read, each from the output port its wire starts at."""
        ports = step.src_ports or (None,) * len(step.inputs)
        return [None if src is None else self.engine.value(src, port)
                for (_, src), port in zip(step.inputs, ports, strict=True)]


def _float_output(g, node_id: str, port: str | None = None) -> bool:
    """Whether the node's output ``port`` (default: the first) is a float tensor (unknown: taken
    as one)."""
    ttype = g.output_type(node_id, port) if port is not None else g.output_type(node_id)
    return ttype is None or is_float(ttype.dtype)


def _scaled(grad: np.ndarray, coefficient: float) -> np.ndarray:
    """``grad`` times ``coefficient`` in grad's dtype (unchanged for 1)."""
    if coefficient == 1.0:
        return grad
    return np.asarray(grad * np.asarray(coefficient, dtype=grad.dtype))


def _never() -> bool:
    return False
