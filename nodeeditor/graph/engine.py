"""The engine: evaluate a graph in topological order with a result cache.

Contract:

- ``Engine(graph).run()`` evaluates the requested nodes (default: every node) and
  returns a :class:`RunResult` with each node's :class:`NodeResult` and the values
  of the output nodes by output name.
- Each node's result is cached under a key made of the node's own fingerprint
  (kind, ``revision``, opset for operators, file stamp for files) and the
  *versions* of its inputs. A version changes only when a node's key changes, so
  changing one attribute recomputes that node and what is downstream, nothing else.
- A node whose kernel raises keeps the error: the message as the op or source raised
  it, without the node's label (the node shows it beside its name; ``RunResult.errors()``
  and ``RunResult.message`` name the node for everyone else), and the input port it is
  about (``ops.OpError.port``). Its dependants are *blocked* (not failed); independent
  branches still run. Static errors (from type inference) are reported the same way
  without running.
- ``progress(done, total, node_id)`` is called after each computed node; a
  ``cancel`` flag (``threading.Event`` or a callable returning bool) is checked
  before each node: remaining nodes are reported ``cancelled`` and their cache is
  left untouched. A node of at least :data:`WATCH_MIN_ELEMENTS` (its inputs or its
  inferred output) computes on a helper thread while the flag is polled every
  :data:`WATCH_POLL_S`; on cancel the run returns at once and reports that node
  ``cancelled`` too, while its computation goes on (kernels are pure functions of
  their inputs, so it touches nothing the engine keeps). The next run adopts that
  computation if the node's key is unchanged (an edit downstream loses no work), or
  waits for it to end before starting the node again: at most one computation per
  node at a time.
- A MemoryError is the node's error for this run but is not cached as current, so
  the next run tries again.
- Intermediate values are freed as soon as no pending node needs them, unless
  ``keep_intermediates=True`` (the editor, which shows every node) or the node is
  listed in ``keep``. Output-node values are always kept. A freed value is
  recomputed when it is needed again; a node listed in ``keep`` has its value after
  the run (computed again if it had been freed), so the caller can read it with
  :meth:`Engine.value` (the backward pass does).
- :meth:`Engine.version` names a node's cached result: it changes exactly when the
  node's cache key does, so other caches (the backward pass's) can key on it.
  recomputed when it is needed again.
- A bypassed operator (``OperatorNode.bypassed``) reads only its data input and passes that
  value through unchanged (no kernel, no warning).
- A foreign node runs through the executor registered in :mod:`nodeeditor.graph.foreign`
  (onnxruntime, with ``onnx.reference`` as the fallback, when ``nodeeditor.onnx_io`` is
  imported); its :class:`~.foreign.ForeignOpError` is the node's error. Foreign nodes that
  must run in one go and are wired to one another (a group: each member reads only values
  ready when the group starts, or other members) run through the registered group executor
  in one call when there is one; every member still gets its own cache entry and value, and
  when the group executor refuses or fails, the members run one by one. A node with several
  outputs caches them together (:class:`PortValues`); a reader gets the one its edge names,
  and :meth:`Engine.value` takes the port. Nodes whose types are known only after a run
  (``NodeInfo.deferred``) run like any other.
- A scatter with ``reduction="none"`` (and Scatter, TensorScatter) whose indices
  hit a cell more than once gets a warning (the spec leaves the order open).
- Threads: :meth:`Engine.plan` reads the graph and must run on the graph's
  thread; :meth:`Engine.execute` may run on a worker (runs are serialised by a
  lock). ``RunResult.generation`` is the graph generation the plan saw; a result
  whose generation differs from ``graph.generation`` is stale.
"""
from __future__ import annotations

import itertools
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import ops

from . import foreign
from . import nodes as N
from .checks import duplicate_warning
from .document import Graph
from .losses import LossError
from .sources import SourceError
from .status import NodeStatus

Kernel = Callable[[str, list, Mapping[str, Any]], np.ndarray]
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class NodeResult:
    """Outcome for one node: ``status`` is ``NodeStatus.OK`` / ``ERROR`` / ``BLOCKED`` /
    ``CANCELLED``; ``error`` is the message for error and blocked, about this node and
    without its label (as ``NodeInfo.error``); ``error_port`` the input port it is about,
    if one; ``recomputed`` tells whether this run computed it (False: taken from the cache)."""

    status: NodeStatus
    error: str | None = None
    warnings: tuple[str, ...] = ()
    recomputed: bool = False
    error_port: str | None = None


@dataclass
class RunResult:
    """What a run produced. ``outputs``: output name -> array (outputs that succeeded)."""

    generation: int
    nodes: dict[str, NodeResult] = field(default_factory=dict)
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    cancelled: bool = False
    labels: dict[str, str] = field(default_factory=dict)   # node id -> how messages name it

    @property
    def ok(self) -> bool:
        return not self.cancelled and all(r.status == NodeStatus.OK for r in self.nodes.values())

    def message(self, node_id: str) -> str:
        """A node's error named by its label, for reading away from the node:
        ``pick rows [gather]: Gather: indices[0] = 7 is out of range ...``."""
        return f"{self.labels.get(node_id, node_id)}: {self.nodes[node_id].error}"

    def errors(self) -> list[tuple[str, str]]:
        """(node id, :meth:`message`) for nodes that failed themselves (blocked ones excluded)."""
        return [(nid, self.message(nid)) for nid, r in self.nodes.items() if r.status == NodeStatus.ERROR]

    def warnings(self) -> list[tuple[str, str]]:
        return [(nid, w) for nid, r in self.nodes.items() for w in r.warnings]


#: Nodes at least this large (elements in, or inferred out) can be abandoned mid-way on cancel.
WATCH_MIN_ELEMENTS = 1 << 22
#: How often a watched node checks the cancel flag (seconds).
WATCH_POLL_S = 0.02


#: Node kinds whose computation takes time (literals, inputs and outputs hand over a value).
_SLOW_KINDS = (N.OPERATOR, N.GENERATOR, N.FILE, N.FOREIGN, N.MODEL_TENSOR)


class PortValues(tuple):
    """The values of a node with several output ports, in port order (a foreign node's cache
    entry); ``Engine.value(node_id, port)`` picks one."""

    __slots__ = ()


def _port_value(value: Any, index: int) -> Any:
    return value[index] if isinstance(value, PortValues) else value


class _Abandoned(Exception):  # noqa: N818 - a cancellation signal, not an error
    """A watched computation was left to finish on its own because the run was cancelled."""


class _Flight:
    """One watched computation of a node under a cache key, on its own daemon thread. It
    outlives a cancelled run: the next run adopts its result when the key still matches, and
    a node never has two computations at once (see :meth:`Engine._watched`)."""

    def __init__(self, key: tuple, fn: Callable[[list], Any], values: list) -> None:
        self.key = key
        self.done = threading.Event()
        self._box: dict[str, Any] = {}
        threading.Thread(target=self._work, args=(fn, values), name="indexflow-node", daemon=True).start()

    def _work(self, fn: Callable[[list], Any], values: list) -> None:
        try:
            self._box["value"] = fn(values)
        except BaseException as exc:  # noqa: BLE001 - re-raised on the engine's thread
            self._box["error"] = exc
        finally:
            del fn, values  # the inputs are not needed any more
            self.done.set()

    def wait(self, is_cancelled: Callable[[], bool]) -> None:
        """Until the computation ends; :class:`_Abandoned` as soon as the run is cancelled."""
        while not self.done.wait(WATCH_POLL_S):
            if is_cancelled():
                raise _Abandoned

    def result(self) -> Any:
        """The value, or the computation's exception re-raised (call after :meth:`wait`)."""
        if "error" in self._box:
            raise self._box["error"]
        return self._box["value"]


@dataclass(frozen=True)
class Step:
    """One node in a plan: everything needed to compute it without touching the graph."""

    node_id: str
    label: str
    kind: str
    fingerprint: tuple
    inputs: tuple[tuple[str, str | None], ...]   # (port, upstream node id or None) in port order
    static_error: str | None
    compute: Callable[[list], np.ndarray] | None  # input values in port order -> value
    op: str | None = None
    attrs: Mapping[str, Any] | None = None
    size_hint: int = 0   # elements of the inferred output (0 when unknown)
    static_error_port: str | None = None
    src_ports: tuple[int, ...] = ()  # per input: which output of the upstream node it reads (its index)
    call: foreign.ForeignCall | None = None   # a foreign node as its runtime sees it


@dataclass(frozen=True)
class Plan:
    """An immutable evaluation plan built from a graph at ``generation``."""

    generation: int
    steps: tuple[Step, ...]
    targets: frozenset[str]
    outputs: Mapping[str, str]   # output node id -> output name
    live: frozenset[str] = frozenset()  # every node id in the graph (cache entries of others are dropped)

    def label(self, node_id: str) -> str:
        """How messages name a node of this plan."""
        return next((s.label for s in self.steps if s.node_id == node_id), node_id)


@dataclass
class _Entry:
    key: tuple
    version: int
    status: NodeStatus
    value: Any = None
    has_value: bool = False
    error: str | None = None
    warnings: tuple[str, ...] = ()
    error_port: str | None = None

    def result(self, recomputed: bool) -> NodeResult:
        return NodeResult(self.status, self.error, self.warnings, recomputed, self.error_port)


class Engine:
    """Evaluates one graph, caching results between runs (see the module docstring)."""

    def __init__(self, graph: Graph, *, keep_intermediates: bool = False, kernel: Kernel | None = None) -> None:
        self.graph = graph
        self.keep_intermediates = keep_intermediates
        self.kernel: Kernel = kernel or ops.run_op
        self._cache: dict[str, _Entry] = {}
        self._versions = itertools.count(1)
        self._lock = threading.Lock()
        self._flights: dict[str, _Flight] = {}   # node id -> its latest watched computation

    # ------------------------------------------------------------------ reading results
    def value(self, node_id: str, port: str | None = None) -> np.ndarray | None:
        """The cached value of a node's output ``port`` (default: its first output), or None if
        not computed, failed, or freed. A foreign op's value may also be a list of arrays (an
        ONNX sequence)."""
        entry = self._cache.get(node_id)
        if entry is None or not entry.has_value:
            return None
        index = 0
        if port is not None and isinstance(entry.value, PortValues):
            ports = self.graph.node(node_id).output_ports() if self.graph.has_node(node_id) else ()
            if port not in ports:
                return None
            index = ports.index(port)
        return _port_value(entry.value, index)

    def input_values(self, node_id: str) -> dict[str, Any]:
        """The cached values on the node's connected input ports (port -> value, in port order),
        as the node read them: what the explainer of an indexing op shows. A port whose
        producer has no cached value (not run, failed, or freed) is left out."""
        node = self.graph.node(node_id)
        out = {}
        for port in node.input_ports():
            edge = self.graph.edge_into(node_id, port)
            if edge is not None:
                value = self.value(edge.src, edge.src_port)
                if value is not None:
                    out[port] = value
        return out

    def result(self, node_id: str) -> NodeResult | None:
        """The cached outcome of a node from the last run that reached it."""
        entry = self._cache.get(node_id)
        if entry is None:
            return None
        return entry.result(False)

    def version(self, node_id: str) -> int | None:
        """The version of the node's cached result (None if it has none): equal versions mean
        the same computation on the same inputs."""
        entry = self._cache.get(node_id)
        return None if entry is None or entry.key is None else entry.version

    def clear(self) -> None:
        """Forget every cached result."""
        with self._lock:
            self._cache.clear()

    # ------------------------------------------------------------------ running
    def run(self, targets: Iterable[str] | None = None, *, progress: Progress | None = None,
            cancel: threading.Event | Callable[[], bool] | None = None,
            keep: Iterable[str] = ()) -> RunResult:
        """``plan`` then ``execute`` on the calling thread."""
        return self.execute(self.plan(targets), progress=progress, cancel=cancel, keep=keep)

    def plan(self, targets: Iterable[str] | None = None) -> Plan:
        """Snapshot what must be evaluated for ``targets`` (default all nodes) and everything
        they depend on. Call on the graph's thread."""
        g = self.graph
        wanted = set(g.node_ids if targets is None else targets)
        for node_id in wanted:
            g.node(node_id)
        needed = wanted | g.upstream(wanted)
        steps = tuple(self._step(g, g.node(nid)) for nid in g.topological_order(needed))
        outputs = {n.id: n.name for n in g.output_nodes() if n.id in needed}
        return Plan(g.generation, steps, frozenset(wanted), outputs, frozenset(g.node_ids))

    def execute(self, plan: Plan, *, progress: Progress | None = None,
                cancel: threading.Event | Callable[[], bool] | None = None,
                keep: Iterable[str] = ()) -> RunResult:
        """Evaluate a plan (may run on a worker thread)."""
        is_cancelled = cancel_check(cancel)
        keep_set = set(keep) | set(plan.outputs)
        with self._lock:
            return self._execute(plan, progress, is_cancelled, keep_set)

    # ------------------------------------------------------------------ internals
    def _step(self, g: Graph, node: N.Node) -> Step:
        info = g.node_info(node.id)
        ports = node.input_ports()
        edges = [g.edge_into(node.id, port) for port in ports]
        inputs = tuple((port, e.src if e else None) for port, e in zip(ports, edges, strict=True))
        src_ports = tuple(g.node(e.src).output_ports().index(e.src_port) if e else 0 for e in edges)
        static_error = None if info.ok else info.error
        if info.blocked:
            static_error = None  # reported as blocked through its inputs
        fingerprint: tuple = (node.kind, node.revision)
        compute: Callable[[list], np.ndarray] | None = None
        op = attrs = None
        call = None
        if isinstance(node, N.Source):
            scope = g.file_scope
            outside = node.outside_stamp(scope)
            if outside:
                static_error = None  # a file may have appeared since types were inferred: try it
                fingerprint += outside
            planned = node.clone()  # the worker must see the node as planned, not as edited since
            compute = lambda _inputs, s=planned, f=scope: s.source_value(f)  # noqa: E731
        elif N.bypassed_port(node) is not None:
            through = N.bypassed_port(node)   # switched off: its data input, unchanged
            fingerprint += ("bypassed",)
            edge = g.edge_into(node.id, through)
            inputs = ((through, edge.src if edge else None),)
            compute = lambda values: values[0]  # noqa: E731
        elif isinstance(node, N.OperatorNode):
            fingerprint += (g.opset,)
            op = node.op
            if static_error is None:
                try:
                    attrs = node.schema.check_attributes(node.attributes, g.opset)
                except ops.OpError as exc:
                    static_error = str(exc)
            kernel = self.kernel
            compute = lambda values, o=op, a=attrs: kernel(o, list(values), a)  # noqa: E731
        elif isinstance(node, N.ForeignNode):
            call = g.foreign_call(node.id)
            fingerprint += (tuple(sorted(call.opsets.items())), call.output_names)
            compute = lambda values, c=call: _run_foreign(c, values)  # noqa: E731
        elif isinstance(node, N.OutputNode):
            compute = lambda values: values[0]  # noqa: E731
        elif isinstance(node, N.LossNode):
            planned_loss = node.clone()
            compute = lambda values, n=planned_loss: n.loss_value(values[0], values[1])  # noqa: E731
        out_type = info.type
        size_hint = 0
        if out_type is not None and all(ops.is_known(d) for d in out_type.shape):
            size_hint = math.prod(out_type.shape)
        return Step(node.id, node.label, node.kind, fingerprint, inputs, static_error, compute, op, attrs, size_hint,
                    info.error_port if static_error is not None else None, src_ports, call)

    def _execute(self, plan: Plan, progress: Progress | None, is_cancelled: Callable[[], bool],
                 keep: set[str]) -> RunResult:
        for gone in [nid for nid in self._cache if nid not in plan.live]:
            del self._cache[gone]  # the node was removed from the graph
        for gone in [nid for nid in self._flights if nid not in plan.live]:
            del self._flights[gone]
        # 1. keys and versions, top-down: a version changes only when the key changes
        keys: dict[str, tuple] = {}
        versions: dict[str, int] = {}
        for step in plan.steps:
            key = (step.fingerprint, tuple((p, versions.get(src) if src else None) for p, src in step.inputs))
            keys[step.node_id] = key
            entry = self._cache.get(step.node_id)
            versions[step.node_id] = entry.version if entry is not None and entry.key == key else next(self._versions)

        # 2. what must be computed, bottom-up. A target needs a current result; a node some
        #    computation reads needs a current *value* (a freed one is computed again).
        def current(node_id: str, need_value: bool) -> bool:
            entry = self._cache.get(node_id)
            if entry is None or entry.key != keys[node_id]:
                return False
            return entry.has_value or entry.status != NodeStatus.OK or not need_value

        to_compute: set[str] = set()
        need_value: set[str] = set()
        for step in reversed(plan.steps):
            nid = step.node_id
            wants_value = nid in need_value or nid in keep
            if (wants_value or nid in plan.targets) and not current(nid, wants_value):
                to_compute.add(nid)
                need_value.update(src for _, src in step.inputs if src)
        order = [s for s in plan.steps if s.node_id in to_compute]

        # how many pending computations still read each node's value
        readers: dict[str, int] = {}
        for step in order:
            for _, src in step.inputs:
                if src:
                    readers[src] = readers.get(src, 0) + 1

        result = RunResult(plan.generation, labels={s.node_id: s.label for s in plan.steps})
        done = 0
        groups: dict[str, list[Step]] = {}
        if foreign.group_executor() is not None:
            order, groups = _foreign_groups(order)
        ready: dict[str, _Entry] = {}   # entries of group members computed with their group
        for i, step in enumerate(order):
            if is_cancelled is not None and is_cancelled():
                result.cancelled = True
                for rest in order[i:]:
                    result.nodes[rest.node_id] = NodeResult(NodeStatus.CANCELLED)
                break
            if step.node_id in groups:
                ready.update(self._compute_group(groups[step.node_id], keys, versions))
            try:
                entry = ready.pop(step.node_id, None) or \
                    self._compute(step, keys[step.node_id], versions[step.node_id], plan, is_cancelled)
            except _Abandoned:
                result.cancelled = True
                for rest in order[i:]:
                    result.nodes[rest.node_id] = NodeResult(NodeStatus.CANCELLED)
                break
            self._cache[step.node_id] = entry
            result.nodes[step.node_id] = entry.result(True)
            done += 1
            if progress is not None:
                progress(done, len(order), step.node_id)
            for _, src in step.inputs:
                if src:
                    readers[src] -= 1
                    if readers[src] == 0:
                        self._maybe_free(src, keep, plan)
            if not readers.get(step.node_id):
                self._maybe_free(step.node_id, keep, plan)

        for step in plan.steps:
            if step.node_id not in result.nodes and step.node_id in self._cache:
                result.nodes[step.node_id] = self._cache[step.node_id].result(False)
        for node_id, name in plan.outputs.items():
            entry = self._cache.get(node_id)
            if (entry is not None and entry.status == NodeStatus.OK and entry.has_value
                    and result.nodes[node_id].status != NodeStatus.CANCELLED):
                result.outputs[name] = entry.value
        # only what this run needed, in plan order
        result.nodes = {s.node_id: result.nodes[s.node_id] for s in plan.steps if s.node_id in result.nodes}
        return result

    def _compute_group(self, members: list[Step], keys: Mapping[str, tuple],
                       versions: Mapping[str, int]) -> dict[str, _Entry]:
        """Entries of a group of foreign steps run in one call of the group executor; empty when
        it cannot (an input without a value, the executor refusing or failing): the members
        then run one by one, which says precisely what went wrong where."""
        run = foreign.group_executor()
        index = {s.node_id: i for i, s in enumerate(members)}
        values: list = []
        external: dict[tuple[str, int], int] = {}
        wiring = []
        for s in members:
            wires: list = []
            for k, (_port, src) in enumerate(s.inputs):
                out = s.src_ports[k] if s.src_ports else 0
                if src is None:
                    wires.append(None)
                elif src in index:
                    wires.append(("node", index[src], out))
                else:
                    upstream = self._cache.get(src)
                    if upstream is None or upstream.status != NodeStatus.OK or not upstream.has_value:
                        return {}
                    if (src, out) not in external:
                        external[(src, out)] = len(values)
                        values.append(_port_value(upstream.value, out))
                    wires.append(("input", external[(src, out)]))
            wiring.append(tuple(wires))
        try:
            outputs = list(run(foreign.GroupCall(tuple(s.call for s in members), tuple(wiring)), values))
        except Exception:  # noqa: BLE001 - any failure: the members run one by one and say why
            return {}
        if len(outputs) != len(members) or any(len(o) != s.call.n_outputs for o, s in zip(outputs, members,
                                                                                           strict=False)):
            return {}
        return {s.node_id: _Entry(keys[s.node_id], versions[s.node_id], NodeStatus.OK, value=PortValues(o),
                                  has_value=True) for s, o in zip(members, outputs, strict=True)}

    def _maybe_free(self, node_id: str, keep: set[str], plan: Plan) -> None:
        if self.keep_intermediates or node_id in keep or node_id in plan.outputs:
            return
        entry = self._cache.get(node_id)
        if entry is not None and entry.status == NodeStatus.OK:
            entry.value, entry.has_value = None, False

    def _compute(self, step: Step, key: tuple, version: int, plan: Plan,
                 is_cancelled: Callable[[], bool] | None = None) -> _Entry:
        if step.static_error is not None:
            return _Entry(key, version, NodeStatus.ERROR, error=step.static_error, error_port=step.static_error_port)
        values = []
        for i, (port, src) in enumerate(step.inputs):
            if src is None:
                values.append(None)
                continue
            upstream = self._cache.get(src)
            if upstream is None or upstream.status != NodeStatus.OK or not upstream.has_value:
                why = {NodeStatus.ERROR: "failed", NodeStatus.BLOCKED: "is blocked"}.get(
                    upstream.status if upstream else None, "has no value")
                return _Entry(key, version, NodeStatus.BLOCKED,
                              error=f"input {port!r} waits for {plan.label(src)}, which {why}")
            values.append(_port_value(upstream.value, step.src_ports[i] if step.src_ports else 0))
        try:
            size = max([step.size_hint] + [getattr(v, "size", 0) for v in values])
            if is_cancelled is not None and size >= WATCH_MIN_ELEMENTS and step.kind in _SLOW_KINDS:
                value = self._watched(step, key, values, is_cancelled)
            else:
                value = step.compute(values)
        except _Abandoned:
            raise
        except (ops.OpError, SourceError, LossError, foreign.ForeignOpError) as exc:
            return _Entry(key, version, NodeStatus.ERROR, error=str(exc), error_port=getattr(exc, "port", None))
        except MemoryError:
            # not cached as current (key None never matches): memory may be free next run
            return _Entry(None, version, NodeStatus.ERROR,
                          error="not enough memory for this result; make its inputs smaller")
        except Exception as exc:  # noqa: BLE001 - a kernel bug must not take the whole run down
            return _Entry(key, version, NodeStatus.ERROR,
                          error=f"internal error {type(exc).__name__}: {exc}")
        warnings = self._duplicate_warning(step, values)
        return _Entry(key, version, NodeStatus.OK, value=value, has_value=True, warnings=warnings)

    def _watched(self, step: Step, key: tuple, values: list, is_cancelled: Callable[[], bool]) -> Any:
        """``step.compute(values)`` as a :class:`_Flight` that a cancel abandons (raising
        :class:`_Abandoned`) without stopping it. A flight of this node under the same key,
        from a cancelled run, is adopted instead of starting again; one under an older key is
        waited for first, so cancels and edits never pile computations of one node up."""
        flight = self._flights.get(step.node_id)
        if flight is not None and flight.key != key:
            flight.wait(is_cancelled)          # an obsolete computation: let it end first
            flight = None
        if flight is None:
            if is_cancelled():
                raise _Abandoned
            flight = self._flights[step.node_id] = _Flight(key, step.compute, values)
        flight.wait(is_cancelled)
        del self._flights[step.node_id]
        return flight.result()

    def _duplicate_warning(self, step: Step, values: list) -> tuple[str, ...]:
        if step.op is None:
            return ()
        warning = duplicate_warning(step.op, values, step.attrs, step.label)
        return (warning,) if warning else ()


#: The most foreign nodes one group runs.
GROUP_MAX = 1024


def _foreign_groups(order: list[Step]) -> tuple[list[Step], dict[str, list[Step]]]:
    """Groups of foreign steps that run together, and the order the steps then run in.

    Walking ``order``, a group takes every foreign step that can run (no static error, no
    graph attribute reading enclosing values). A step that is not a member but reads a member
    (or such a step) waits: it runs after the group. A candidate that reads a waiting step
    cannot join: the group closes, and runs before the steps that wait for it. Steps that read
    neither run before the group. So every step still comes after its inputs. Returns (the new
    order, first member's id -> members) for the groups of two or more members."""
    def groupable(step: Step) -> bool:
        return step.kind == N.FOREIGN and step.static_error is None and step.call is not None \
            and not step.call.captures

    new_order: list[Step] = []
    groups: dict[str, list[Step]] = {}
    members: list[Step] = []
    member_ids: set[str] = set()
    waiting: list[Step] = []
    waiting_ids: set[str] = set()

    def close() -> None:
        if len(members) > 1:
            groups[members[0].node_id] = list(members)
        new_order.extend(members)
        new_order.extend(waiting)
        members.clear()
        member_ids.clear()
        waiting.clear()
        waiting_ids.clear()

    for step in order:
        srcs = {src for _, src in step.inputs if src}
        if groupable(step):
            if srcs & waiting_ids or len(members) >= GROUP_MAX:
                close()
            members.append(step)
            member_ids.add(step.node_id)
        elif srcs & (member_ids | waiting_ids):
            waiting.append(step)
            waiting_ids.add(step.node_id)
        else:
            new_order.append(step)
    close()
    return new_order, groups


def _run_foreign(call: foreign.ForeignCall, values: list) -> PortValues:
    """A foreign node's outputs through the registered executor (ForeignOpError without one)."""
    run = foreign.executor()
    if run is None:
        raise foreign.ForeignOpError(foreign.missing_runtime_text(f"running ONNX op {call.title}"))
    outputs = list(run(call, list(values)))
    if len(outputs) != call.n_outputs:
        raise foreign.ForeignOpError(f"{call.title} gave {len(outputs)} outputs where the node has {call.n_outputs}")
    return PortValues(outputs)


def cancel_check(cancel: threading.Event | Callable[[], bool] | None) -> Callable[[], bool] | None:
    """The ``cancel`` argument of a run as a function saying whether to stop (None: never)."""
    if cancel is None:
        return None
    if isinstance(cancel, threading.Event):
        return cancel.is_set
    return cancel
