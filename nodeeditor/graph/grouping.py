"""Groups: a set of nodes drawn as one block (a collapsed :class:`~nodeeditor.graph.nodes.Frame`).

Pure functions over a :class:`~nodeeditor.graph.document.Graph`; nothing here changes it.
The graph stays flat: a group is a view of some of its nodes, so running, type inference and
export never call this module.

- :func:`boundary`: the tensors that cross a set's boundary, one input per outside tensor
  that enters (however many members read it) and one output per member tensor read outside.
- :func:`readers`: the member inputs that read one entering tensor (what a wire dropped on
  that input of the block feeds).
- :func:`member_order`: the members so that each comes after the members it reads.
- :func:`group_title`: ``MatMul → Add → Softmax`` for a short chain, else ``5 nodes → Concat``.
- :func:`foreign_chains`: the sets "Collapse Foreign Chains" makes: each maximal tree of
  foreign nodes in which every node but the last feeds only the next one.

Every function costs time in the size of the set and its edges, not of the graph (a model of
thousands of nodes collapses a thousand chains at once).
"""
from __future__ import annotations

import heapq
from collections.abc import Iterable
from dataclasses import dataclass

from . import nodes as N
from .document import Graph

#: A chain longer than this is titled by its size and its last op, not by every op.
TITLE_CHAIN_LIMIT = 4


@dataclass(frozen=True)
class Boundary:
    """The tensors crossing a group's boundary. ``inputs``: (outside node, output port) whose
    tensor some member reads, in the order the members (:func:`member_order`) first read
    them; ``outputs``: (member, output port) whose tensor some outside node reads, in member
    and port order."""

    inputs: tuple[tuple[str, str], ...]
    outputs: tuple[tuple[str, str], ...]


def out_edges(graph: Graph, node_id: str) -> list[N.Edge]:
    """The edges leaving ``node_id`` (found through its readers: time in its neighbourhood,
    where ``Graph.edges_of`` walks every edge)."""
    return [e for reader in graph.consumers(node_id) for e in graph.inputs_of(reader).values() if e.src == node_id]


def member_order(graph: Graph, node_ids: Iterable[str]) -> list[str]:
    """The nodes of ``node_ids`` that are in the graph, each after the members it reads
    (ties keep the given order)."""
    members = [n for n in dict.fromkeys(node_ids) if graph.has_node(n)]
    inside = set(members)
    indegree = dict.fromkeys(members, 0)
    for nid in members:
        for edge in graph.inputs_of(nid).values():
            if edge.src in inside:
                indegree[nid] += 1
    place = {n: i for i, n in enumerate(members)}
    ready = [(place[n], n) for n in members if indegree[n] == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        _, current = heapq.heappop(ready)
        order.append(current)
        for edge in out_edges(graph, current):
            if edge.dst in inside:
                indegree[edge.dst] -= 1
                if indegree[edge.dst] == 0:
                    heapq.heappush(ready, (place[edge.dst], edge.dst))
    placed = set(order)
    return order + [n for n in members if n not in placed]   # (a graph has no cycle; kept safe)


def boundary(graph: Graph, node_ids: Iterable[str]) -> Boundary:
    """The tensors crossing the boundary of the set ``node_ids`` (see :class:`Boundary`)."""
    order = member_order(graph, node_ids)
    inside = set(order)
    inputs: dict[tuple[str, str], None] = {}
    outputs: dict[tuple[str, str], None] = {}
    for nid in order:
        node = graph.node(nid)
        fed = graph.inputs_of(nid)
        for port in node.input_ports():
            edge = fed.get(port)
            if edge is not None and edge.src not in inside:
                inputs[(edge.src, edge.src_port)] = None
        read_outside = {e.src_port for e in out_edges(graph, nid) if e.dst not in inside}
        for port in node.output_ports():
            if port in read_outside:
                outputs[(nid, port)] = None
    return Boundary(tuple(inputs), tuple(outputs))


def readers(graph: Graph, node_ids: Iterable[str], tensor: tuple[str, str]) -> list[tuple[str, str]]:
    """The (member, input port) pairs of ``node_ids`` fed by ``tensor`` (node, output port),
    in the given member order, then port order."""
    out = []
    for nid in node_ids:
        if graph.has_node(nid):
            fed = graph.inputs_of(nid)
            out += [(nid, port) for port in graph.node(nid).input_ports()
                    if (edge := fed.get(port)) is not None and (edge.src, edge.src_port) == tensor]
    return out


def op_name(node: N.Node) -> str:
    """What a group title calls a node: its op (``MatMul``, ``Gather``), else its name."""
    if isinstance(node, N.ForeignNode):
        return node.title
    if isinstance(node, N.OperatorNode):
        return node.op
    return node.name


def is_chain(graph: Graph, order: list[str]) -> bool:
    """Whether each node of ``order`` (two or more) feeds the next one and no other member
    reads it: a path, drawn left to right."""
    inside = set(order)
    for a, b in zip(order, order[1:], strict=False):
        readers = {e.dst for e in out_edges(graph, a) if e.dst in inside}
        if readers != {b}:
            return False
    return len(order) > 1


def group_title(graph: Graph, node_ids: Iterable[str]) -> str:
    """``MatMul → Add → Softmax`` for a chain of at most :data:`TITLE_CHAIN_LIMIT` nodes;
    ``5 nodes → Concat`` (the last node's op) otherwise; one node: its op."""
    order = member_order(graph, node_ids)
    if not order:
        return "Empty group"
    names = [op_name(graph.node(n)) for n in order]
    if len(order) == 1:
        return names[0]
    if len(order) <= TITLE_CHAIN_LIMIT and is_chain(graph, order):
        return " → ".join(names)
    return f"{len(order)} nodes → {names[-1]}"


def tensor_label(graph: Graph, node_id: str, port: str) -> str:
    """How a group block names the tensor of ``node_id``'s output ``port``: the ONNX tensor
    name an import kept, else the node's name (with the port when it has several outputs)."""
    return N.tensor_label(graph.node(node_id), port)


def foreign_chains(graph: Graph, skip: Iterable[str] = ()) -> list[tuple[str, ...]]:
    """The sets of two or more foreign nodes to collapse, each in :func:`member_order`, in the
    graph's node order of their first node. A foreign node joins the set of the foreign node
    it feeds when that node is the only one reading any of its outputs; so each set is a tree
    whose every tensor but the last node's stays inside (a linear chain ``MatMul → Add →
    Softmax``, or the nodes that build one index tensor: ``Shape``, ``Range``, ``Unsqueeze``,
    ``Concat``). Nodes in ``skip`` (already in a group) join none."""
    skipped = set(skip)
    foreign = [n.id for n in graph.nodes if isinstance(n, N.ForeignNode) and n.id not in skipped]
    is_foreign = set(foreign)
    parent: dict[str, str] = {}
    for nid in foreign:
        readers = graph.consumers(nid)
        if len(readers) == 1 and readers[0] in is_foreign:
            parent[nid] = readers[0]

    def root(nid: str) -> str:
        seen = []
        while nid in parent:
            seen.append(nid)
            nid = parent[nid]
        for s in seen:       # path compression: the next walk from these is one step
            parent[s] = nid
        return nid

    sets: dict[str, list[str]] = {}
    for nid in foreign:
        sets.setdefault(root(nid), []).append(nid)
    return [tuple(member_order(graph, members)) for members in sets.values() if len(members) > 1]
