"""Eager, static type inference over a whole graph (no kernel runs).

:func:`infer_graph` gives every node a :class:`NodeInfo`: the TensorType on each
output port, or an error saying why there is none. A node whose input comes from
a node without a type is *blocked* (not in error itself). Operator nodes are
checked with the ``ops`` schema at the graph's opset (attributes) and
``ops.infer_types`` (shapes and dtypes).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import ops
from ops import TensorType

from . import nodes as N
from .sources import SourceError, file_type, generator_type

if TYPE_CHECKING:
    from .document import Graph


@dataclass(frozen=True)
class NodeInfo:
    """What is known about a node before running it.

    ``outputs`` maps output port -> TensorType (empty when unknown); ``error`` is a message
    when the node itself is wrong; ``blocked`` is True when an input has no type because of
    a problem upstream (``error`` then says which input); ``warnings`` are static remarks.
    """

    outputs: Mapping[str, TensorType] = field(default_factory=dict)
    error: str | None = None
    blocked: bool = False
    warnings: tuple[str, ...] = ()
    #: a required input is not connected yet (``error`` names them): the node is unfinished
    #: work rather than a mistake, and the editor shows it so
    incomplete: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and not self.blocked

    @property
    def type(self) -> TensorType | None:
        """The type of the first output port, if known."""
        return next(iter(self.outputs.values()), None)


def not_connected_text(node: N.Node, ports: list[str]) -> str:
    """``input 'data' is not connected`` / ``inputs 'data', 'indices' and 'updates' are not connected``."""
    if node.kind == N.OUTPUT:
        return f"output {node.name!r} is not connected"
    names = [repr(p) for p in ports]
    if len(names) == 1:
        return f"input {names[0]} is not connected"
    return f"inputs {', '.join(names[:-1])} and {names[-1]} are not connected"


def resolve_path(graph: Graph, path: str) -> Path:
    """A FileSource path made absolute against the graph file's folder (or the cwd)."""
    p = Path(path)
    if not p.is_absolute() and graph.file_path is not None:
        p = Path(graph.file_path).parent / p
    return p


def _source_type(graph: Graph, node: N.Node) -> TensorType:
    if isinstance(node, N.LiteralSource):
        return TensorType.of(node.value)
    if isinstance(node, N.InputSource):
        return TensorType.of(node.example)
    if isinstance(node, N.GeneratorSource):
        return generator_type(node.generator, node.params)
    if isinstance(node, N.FileSource):
        if not node.path:
            raise SourceError("no file chosen")
        return file_type(resolve_path(graph, node.path), node.key, node.dtype)
    raise AssertionError(node.kind)


def infer_node(graph: Graph, node: N.Node, infos: Mapping[str, NodeInfo]) -> NodeInfo:
    """NodeInfo for ``node`` given the infos of its upstream nodes."""
    if node.is_source:
        try:
            return NodeInfo({N.SOURCE_PORT: _source_type(graph, node)})
        except (SourceError, ops.OpError) as exc:
            return NodeInfo(error=str(exc))

    if isinstance(node, N.OperatorNode):
        problem = _operator_problem(node, graph.opset)
        if problem:
            return NodeInfo(error=problem)

    missing = [port for port in node.input_ports()
               if graph.edge_into(node.id, port) is None and port not in node.optional_inputs()]
    if missing:
        return NodeInfo(error=not_connected_text(node, missing), incomplete=True)
    input_types: list[TensorType | None] = []
    for port in node.input_ports():
        edge = graph.edge_into(node.id, port)
        if edge is None:
            input_types.append(None)
            continue
        upstream = infos[edge.src]
        src_type = upstream.outputs.get(edge.src_port)
        if src_type is None:
            src = graph.node(edge.src)
            return NodeInfo(blocked=True, error=f"input {port!r} waits for {src.label}, which has no type")
        input_types.append(src_type)

    if isinstance(node, N.OutputNode):
        return NodeInfo({N.OUTPUT_PORT: input_types[0]})

    assert isinstance(node, N.OperatorNode)
    try:
        schema = ops.get_schema(node.op)
        attrs = schema.check_attributes(node.attributes, graph.opset)
        types = ops.infer_types(node.op, input_types, attrs, opset=graph.opset)
    except ops.OpError as exc:
        return NodeInfo(error=str(exc))
    # No warning for a deprecated op at an opset where it is current (Scatter at 9 and 10):
    # it is the right op there, and the node would look amber for nothing.
    return NodeInfo(dict(zip(node.output_ports(), types, strict=True)))


def _operator_problem(node: N.OperatorNode, opset: int) -> str | None:
    """Why the operator cannot exist as configured at ``opset`` (before looking at inputs)."""
    schema = node.schema
    if schema.version_for(opset) is None:
        if schema.deprecated_since is not None and opset >= schema.deprecated_since:
            instead = "use ScatterElements, which replaced it, or " if node.op == "Scatter" else ""
            return (f"{node.op} does not exist at opset {opset}: it was replaced from opset "
                    f"{schema.deprecated_since} ({instead}set the graph's opset below {schema.deprecated_since})")
        return f"{node.op} does not exist at opset {opset}: it needs opset {schema.versions[0]} or later"
    try:
        schema.check_attributes(node.attributes, opset)
    except ops.OpError as exc:
        return str(exc)
    return None


def infer_graph(graph: Graph) -> dict[str, NodeInfo]:
    """NodeInfo of every node, computed in topological order."""
    infos: dict[str, NodeInfo] = {}
    for node_id in graph.topological_order():
        infos[node_id] = infer_node(graph, graph.node(node_id), infos)
    return infos
