"""Cut a region out of a graph to work on it alone, and splice the edited region back.

:func:`extract_region` copies the selected nodes into a new graph (same settings and ONNX
model details). Every tensor that crosses into the region (an edge from a node outside to a
node inside) becomes a graph input of the new graph whose example value is the real tensor,
from a run of the whole graph, so the cut-out runs on real data; its declared shape keeps
the named dimensions of the port's type. Every tensor that leaves the region (read by a
node outside) becomes a graph output. The :class:`Extraction` records which original port
each of those inputs and outputs stands for.

:func:`splice_region` writes an edited region back in place of the old one: the original
region's nodes are removed, the edited graph's nodes added (the recorded inputs and outputs
become wires again: to the original producers, and to every node outside that read the
original tensor), all in one :meth:`Graph.batch`. Inputs and outputs the edited graph added
stay graph inputs and outputs. The edited nodes keep their places relative to one another,
moved to where the region was. An extraction records the wires that entered the region
(``Extraction.boundary``) and the region's own state (``Extraction.inside``: each node's
revision and name, and the wires between them); a splice is refused, the graph unchanged, when either
differs now (a wire into the region was removed, added or re-pointed in the original since,
or a node of the region was edited there: the splice would silently drop that edit).

:func:`splice` does the same and returns a :class:`Splice`, what :func:`unsplice` needs to put
the old region back exactly (an editor's undo), and the extraction as it now stands (the
spliced nodes are the region), for the next splice of the same cut-out. :class:`RegionBody`
is a frozen copy of an edited graph's nodes and wires, so a splice can be done again (redo)
as it was first done while the edited graph changes on.

Both work on any graph; with an imported model and its foreign nodes they are how a part of a
model is inspected, changed and put back (an export then writes the spliced model).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from . import nodes as N
from .document import Graph, RemovedNode
from .engine import Engine
from .status import NodeStatus

#: How far left of the region its new inputs go, and right of it its new outputs.
_MARGIN = 300.0
#: The least vertical distance between the tops of two new inputs (or outputs): room for a
#: one-port node and a gap, so two tensors read by the same node do not sit on each other.
_SPACING = 100.0


def _spread(wanted: list[float]) -> list[float]:
    """``wanted`` heights moved down as little as needed to keep :data:`_SPACING` apart,
    in the order of ``wanted``'s values (ties in list order)."""
    out = list(wanted)
    last = None
    for i in sorted(range(len(wanted)), key=lambda k: (wanted[k], k)):
        if last is not None and out[i] < last + _SPACING:
            out[i] = last + _SPACING
        last = out[i]
    return out


@dataclass(frozen=True)
class Extraction:
    """A region cut out of ``source``: ``graph`` is the cut-out; ``nodes`` the original ids
    it copied (ids are kept in the cut-out); ``inputs`` maps each new graph-input node id to
    the original ``(node id, port)`` whose tensor it stands for; ``outputs`` maps each new
    output node id to the original ``(node id, port)`` it gives out; ``boundary`` the wires
    that entered the region when it was cut, ``inside`` its nodes' (id, revision, name) and the
    wires between them then (None: not checked by a splice)."""

    graph: Graph
    nodes: tuple[str, ...]
    inputs: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    outputs: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    boundary: frozenset[N.Edge] | None = None
    inside: tuple[frozenset[tuple[str, int, str]], frozenset[N.Edge]] | None = None


def _inside(graph: Graph, node_ids: Iterable[str]) -> tuple[frozenset[tuple[str, int, str]], frozenset[N.Edge]]:
    """A rename leaves a node's revision alone (the values stay), so the name is kept too."""
    chosen = set(node_ids)
    return (frozenset((n, graph.node(n).revision, graph.node(n).name) for n in chosen),
            frozenset(e for e in graph.edges if e.src in chosen and e.dst in chosen))


@dataclass(frozen=True)
class RegionBody:
    """A frozen copy of an edited graph's nodes (clones) and wires, as :func:`splice` reads
    them."""

    nodes: tuple[N.Node, ...]
    edges: tuple[N.Edge, ...]

    @classmethod
    def of(cls, graph: Graph) -> RegionBody:
        return cls(tuple(n.clone() for n in graph.nodes), tuple(graph.edges))

    def has_node(self, node_id: str) -> bool:
        return any(n.id == node_id for n in self.nodes)


@dataclass(frozen=True)
class Splice:
    """What :func:`splice` did: ``ids`` edited node id -> its id in the graph; ``removed`` the
    old region's nodes (in removal order); ``added_edges`` every wire it drew; ``region`` the
    extraction as it now stands (its nodes the spliced ones)."""

    ids: Mapping[str, str]
    removed: tuple[RemovedNode, ...]
    added_edges: tuple[N.Edge, ...]
    region: Extraction


@dataclass(frozen=True)
class RegionPlan:
    """What extracting a region reads from its graph, taken on the graph's thread by
    :func:`plan_region` (cost in the region's size and the graph's edges, never a run), so that
    :func:`build_region` can make the cut-out on a worker while the graph changes on.
    ``nodes`` are clones of the region's nodes; ``tensors_in`` the tensors entering it (in the
    order the graph's edges first cross) and ``tensors_out`` those read outside; ``labels``,
    ``declared`` (each entering tensor's port type) and the heights ``in_y``/``out_y`` are what
    the new inputs and outputs are named, typed and placed by."""

    settings: tuple[str, int, str, object, object]   # name, opset, description, model info, file path
    region: tuple[str, ...]
    nodes: tuple[N.Node, ...]
    inner_edges: tuple[N.Edge, ...]
    crossing_in: tuple[N.Edge, ...]
    tensors_in: tuple[tuple[str, str], ...]
    tensors_out: tuple[tuple[str, str], ...]
    labels: Mapping[tuple[str, str], str]
    declared: Mapping[tuple[str, str], object]
    in_y: tuple[float, ...]
    out_y: tuple[float, ...]
    left: float
    right: float
    inside: tuple[frozenset[tuple[str, int, str]], frozenset[N.Edge]]


def plan_region(graph: Graph, node_ids: Iterable[str]) -> RegionPlan:
    """Read what cutting ``node_ids`` out of ``graph`` needs (see :class:`RegionPlan`).
    ValueError for an empty region, KeyError for a node not in the graph."""
    region = list(dict.fromkeys(node_ids))
    if not region:
        raise ValueError("select at least one node to extract")
    for nid in region:
        graph.node(nid)
    chosen = set(region)
    edges = graph.edges
    crossing_in = [e for e in edges if e.dst in chosen and e.src not in chosen]
    crossing_out = [e for e in edges if e.src in chosen and e.dst not in chosen]
    inner = tuple(e for e in edges if e.src in chosen and e.dst in chosen)
    tensors_in = tuple(dict.fromkeys((e.src, e.src_port) for e in crossing_in))
    tensors_out = tuple(dict.fromkeys((e.src, e.src_port) for e in crossing_out))
    xs = [graph.node(n).position[0] for n in region]
    in_y = _spread([float(np.mean([graph.node(e.dst).position[1] for e in crossing_in
                                   if (e.src, e.src_port) == t])) for t in tensors_in])
    out_y = _spread([graph.node(src).position[1] for src, _port in tensors_out])
    nodes = {n: graph.node(n) for n in region}
    return RegionPlan(
        (graph.name, graph.opset, graph.settings["description"], graph.model_info, graph.file_path),
        tuple(region), tuple(nodes[n].clone() for n in region), inner, tuple(crossing_in), tensors_in,
        tensors_out, {t: N.tensor_label(graph.node(t[0]), t[1]) for t in (*tensors_in, *tensors_out)},
        {t: graph.output_type(*t) for t in tensors_in}, tuple(in_y), tuple(out_y), min(xs), max(xs),
        _inside(graph, region))


def cached_values(plan: RegionPlan, engine: Engine) -> tuple[dict[tuple[str, str], np.ndarray], list[str]]:
    """The entering tensors' values that ``engine`` holds now (no run, no planning), and the
    producers of those it lacks. ValueError when a producer's result is an error, or a value is
    not a tensor (naming it)."""
    values: dict[tuple[str, str], np.ndarray] = {}
    missing: list[str] = []
    for src, port in plan.tensors_in:
        outcome = engine.result(src)
        value = engine.value(src, port) if outcome is not None else None
        if outcome is not None and outcome.status != NodeStatus.OK:
            why = outcome.error or "it has no value"
            raise ValueError(f"cannot extract: the tensor {plan.labels[(src, port)]!r} that enters the "
                             f"region cannot be computed ({why})")
        if value is None:
            missing.append(src)
            continue
        if not isinstance(value, np.ndarray):
            raise ValueError(f"cannot extract: the value {plan.labels[(src, port)]!r} that enters the "
                             "region is not a tensor (a sequence or map), and graph inputs are tensors")
        values[(src, port)] = value
    return values, list(dict.fromkeys(missing))


def build_region(plan: RegionPlan, values: Mapping[tuple[str, str], np.ndarray],
                 cancel: Callable[[], bool] | None = None,
                 progress: Callable[[int, int], None] | None = None) -> Extraction | None:
    """The cut-out of ``plan`` with ``values`` as its inputs' examples (one per entering tensor).
    Touches only the new graph, so it may run on a worker thread. ``progress(done, total)``
    after each node added; ``cancel()`` true: stops and returns None."""
    name, opset, description, model_info, file_path = plan.settings
    out = Graph(name=f"{name} (extract)", opset=opset, description=description)
    inputs: dict[str, tuple[str, str]] = {}
    outputs: dict[str, tuple[str, str]] = {}
    total = len(plan.nodes) + len(plan.tensors_in) + len(plan.tensors_out)
    with out.batch():
        out.set_model_info(model_info)
        if file_path is not None:
            out.file_path = file_path   # relative file paths keep naming the same files
        for done, node in enumerate(plan.nodes, 1):
            if cancel is not None and cancel():
                return None
            out.add_node(node.clone())
            if progress is not None:
                progress(done, total)
        taken = {n.name for n in plan.nodes}
        for (src, port), y in zip(plan.tensors_in, plan.in_y, strict=True):
            label = _unique(plan.labels[(src, port)], taken)
            value = values[(src, port)]
            declared = plan.declared[(src, port)]
            shape = None
            if declared is not None and any(not isinstance(d, int) for d in declared.shape) \
                    and len(declared.shape) == value.ndim:
                shape = tuple(declared.shape)
            nid = out.add_node(N.InputSource(id=out.new_id("input"), name=label, example=N.frozen_array(value),
                                             shape=shape, position=(plan.left - _MARGIN, y)))
            inputs[nid] = (src, port)
        for edge in plan.inner_edges:
            out.connect(edge.src, edge.src_port, edge.dst, edge.dst_port, force=True)
        reverse = {v: k for k, v in inputs.items()}
        for edge in plan.crossing_in:
            out.connect(reverse[(edge.src, edge.src_port)], N.SOURCE_PORT, edge.dst, edge.dst_port, force=True)
        for (src, port), y in zip(plan.tensors_out, plan.out_y, strict=True):
            label = _unique(plan.labels[(src, port)], taken)
            nid = out.add_node(N.OutputNode(id=out.new_id("output"), name=label, position=(plan.right + _MARGIN, y)))
            out.connect(src, port, nid, N.OUTPUT_PORT, force=True)
            outputs[nid] = (src, port)
    if progress is not None:
        progress(total, total)
    return Extraction(out, plan.region, inputs, outputs, frozenset(plan.crossing_in), plan.inside)


def extract_region(graph: Graph, node_ids: Iterable[str], engine: Engine | None = None) -> Extraction:
    """The region ``node_ids`` as a graph of its own (see the module docstring). ``engine``:
    the graph's engine, whose cached values are reused (default: a new one). ValueError for an
    empty region, or when a tensor crossing into it cannot be computed (naming the node).
    (:func:`plan_region`, then the values, run where the engine lacks them, then
    :func:`build_region`.)"""
    plan = plan_region(graph, node_ids)
    values: dict[tuple[str, str], np.ndarray] = {}
    if plan.tensors_in:
        engine = engine or Engine(graph)
        producers = list(dict.fromkeys(src for src, _ in plan.tensors_in))
        result = engine.run(producers, keep=producers)
        for src, port in plan.tensors_in:
            outcome = result.nodes.get(src)
            if outcome is None or outcome.status != NodeStatus.OK or engine.value(src, port) is None:
                why = outcome.error if outcome is not None and outcome.error else "it has no value"
                raise ValueError(f"cannot extract: the tensor {plan.labels[(src, port)]!r} that enters the "
                                 f"region cannot be computed ({why})")
        values, _missing = cached_values(plan, engine)
    return build_region(plan, values)


def _unique(name: str, taken: set[str]) -> str:
    candidate, k = name, 2
    while candidate in taken:
        candidate = f"{name} {k}"
        k += 1
    taken.add(candidate)
    return candidate


def splice_region(graph: Graph, extraction: Extraction, edited: Graph | RegionBody | None = None) -> dict[str, str]:
    """Put ``edited`` (default: ``extraction.graph`` as it is now) in place of the region
    ``extraction`` was cut from ``graph`` (see the module docstring). Returns edited node id ->
    its id in ``graph``. ValueError, with ``graph`` unchanged, when a region node is gone from
    ``graph``, a recorded input's producer is gone, the wires into the region changed, or a
    recorded output that nodes outside read is missing from ``edited``."""
    return dict(splice(graph, extraction, edited).ids)


def _wire(edge: N.Edge) -> str:
    return f"{edge.src}.{edge.src_port} → {edge.dst}.{edge.dst_port}"


def splice_refusal(graph: Graph, extraction: Extraction, edited: Graph | RegionBody | None = None) -> str | None:
    """Why :func:`splice` would refuse (the message of its ValueError), or None. Changes nothing."""
    try:
        _check(graph, extraction, extraction.graph if edited is None else edited)
    except ValueError as exc:
        return str(exc)
    return None


def _check(graph: Graph, extraction: Extraction, edited: Graph | RegionBody
           ) -> tuple[dict[tuple[str, str], list[tuple[str, str]]], dict[str, tuple[str, str]]]:
    """ValueError when the splice must be refused; else (region tensor -> its readers outside,
    the recorded outputs ``edited`` still has)."""
    missing = [n for n in extraction.nodes if not graph.has_node(n)]
    if missing:
        raise ValueError(f"cannot splice: the region's node(s) {', '.join(missing)} are no longer in the graph")
    chosen = set(extraction.nodes)
    for nid, (src, _port) in extraction.inputs.items():
        if not graph.has_node(src) or src in chosen:
            raise ValueError(f"cannot splice: the producer {src!r} of input {nid!r} is no longer outside the region")
    if extraction.boundary is not None:
        now = frozenset(e for e in graph.edges if e.dst in chosen and e.src not in chosen)
        if now != extraction.boundary:
            changes = [f"{_wire(e)} is gone" for e in extraction.boundary - now]
            changes += [f"{_wire(e)} is new" for e in now - extraction.boundary]
            raise ValueError("cannot splice: the wires into the region changed since it was extracted ("
                             + "; ".join(sorted(changes)) + ")")
    if extraction.inside is not None:
        revisions, wires = _inside(graph, extraction.nodes)
        edited_there = sorted({n for n, *_state in revisions - extraction.inside[0]}
                              | {n for e in wires ^ extraction.inside[1] for n in (e.src, e.dst)})
        if edited_there:
            raise ValueError("cannot splice: the region was edited in the original since it was extracted ("
                             f"{', '.join(edited_there)}), and the splice would drop that edit: undo it there, "
                             "or extract the region again")
    readers: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for e in graph.edges:
        if e.src in chosen and e.dst not in chosen:
            readers.setdefault((e.src, e.src_port), []).append((e.dst, e.dst_port))
    kept_outputs = {nid: t for nid, t in extraction.outputs.items() if edited.has_node(nid)}
    lost = [t for t in readers if t not in kept_outputs.values()]
    if lost:
        names = ", ".join(f"{src}.{port}" for src, port in lost)
        raise ValueError(f"cannot splice: nodes outside the region read {names}, and the edited region no longer "
                         "gives it out (keep its output node)")
    return readers, kept_outputs


def splice(graph: Graph, extraction: Extraction, edited: Graph | RegionBody | None = None) -> Splice:
    """:func:`splice_region`, returning the :class:`Splice` (for :func:`unsplice` and the next
    splice)."""
    edited = extraction.graph if edited is None else edited
    readers, kept_outputs = _check(graph, extraction, edited)
    mapped_inputs = {nid: t for nid, t in extraction.inputs.items() if edited.has_node(nid)}

    region_x = min(graph.node(n).position[0] for n in extraction.nodes)
    region_y = min(graph.node(n).position[1] for n in extraction.nodes)
    body = [n for n in edited.nodes if n.id not in mapped_inputs and n.id not in kept_outputs]
    dx = region_x - min((n.position[0] for n in body), default=region_x)
    dy = region_y - min((n.position[1] for n in body), default=region_y)

    ids: dict[str, str] = {}
    added: list[N.Edge] = []
    new_outputs: dict[str, tuple[str, str]] = {}
    with graph.batch():
        removed = tuple(graph.remove_node(nid) for nid in extraction.nodes)
        for node in body:
            copy = node.clone()
            copy.id = node.id if not graph.has_node(node.id) else graph.new_id(node.id_prefix)
            copy.revision = 0
            copy.position = (node.position[0] + dx, node.position[1] + dy)
            ids[node.id] = graph.add_node(copy)
        for edge in edited.edges:
            if edge.src in mapped_inputs:
                src, src_port = mapped_inputs[edge.src]
            elif edge.src in ids:
                src, src_port = ids[edge.src], edge.src_port
            else:
                continue
            if edge.dst in kept_outputs:
                new_outputs[edge.dst] = (src, src_port)
                for dst, dst_port in readers.get(kept_outputs[edge.dst], []):
                    added.append(graph.connect(src, src_port, dst, dst_port, force=True))
            elif edge.dst in ids:
                added.append(graph.connect(src, src_port, ids[edge.dst], edge.dst_port, force=True))
    spliced = set(ids.values())
    now_in = frozenset(e for e in graph.edges if e.dst in spliced and e.src not in spliced)
    region = Extraction(extraction.graph, tuple(ids.values()), mapped_inputs,
                        {nid: t for nid, t in new_outputs.items() if t[0] in spliced}, now_in, _inside(graph, spliced))
    return Splice(ids, removed, tuple(added), region)


def unsplice(graph: Graph, done: Splice) -> None:
    """Undo :func:`splice` on ``graph`` as it was right after it: its wires and nodes go, the
    old region's nodes come back with their wires, each at its old place."""
    with graph.batch():
        for edge in reversed(done.added_edges):
            if graph.edge_into(edge.dst, edge.dst_port) == edge:
                graph.disconnect(edge.dst, edge.dst_port)
        for nid in reversed(list(done.ids.values())):
            graph.remove_node(nid)
        for removed in reversed(done.removed):
            graph.restore_node(removed)
