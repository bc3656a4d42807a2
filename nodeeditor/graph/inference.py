"""Eager, static type inference over a whole graph (no kernel runs).

:func:`infer_graph` gives every node a :class:`NodeInfo`: the TensorType on each
output port, or an error saying why there is none. A node whose input comes from
a node without a type is *blocked* (not in error itself). Operator nodes are
checked with the ``ops`` schema at the graph's opset (attributes) and
``ops.infer_types`` (shapes and dtypes); a Loss node by its kind's rule
(:func:`nodeeditor.graph.losses.loss_type`). A trainable source whose tensor cannot have a
gradient (not a float) gets a warning.

A foreign node is typed by the type inferrer registered in :mod:`nodeeditor.graph.foreign`
(ONNX shape inference), given its input types and the values of inputs fed by small
literals or ``Constant`` nodes; without one it is an error naming the package to install.
An output whose type static inference cannot tell (an ONNX shape that depends on values, or
a GatherND whose tuple length is symbolic) is left out of ``NodeInfo.outputs`` with
``deferred`` set, and its readers are blocked with ``deferred`` set too: the engine runs
them all the same, and the run gives the types. A graph input whose example disagrees with
an earlier input on a named dimension is an error (:func:`nodeeditor.graph.dims.bind_inputs`).
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

import ops
from ops import TensorType

from . import foreign
from . import nodes as N
from .info import NodeInfo
from .losses import LossError, is_float
from .sources import SourceError
from .view import GraphView


def not_connected_text(node: N.Node, ports: list[str]) -> str:
    """``input 'data' is not connected`` / ``inputs 'data', 'indices' and 'updates' are not connected``."""
    if node.kind == N.OUTPUT:
        return f"output {node.name!r} is not connected"
    names = [repr(p) for p in ports]
    if len(names) == 1:
        return f"input {names[0]} is not connected"
    return f"inputs {', '.join(names[:-1])} and {names[-1]} are not connected"


def infer_node(graph: GraphView, node: N.Node, infos: Mapping[str, NodeInfo]) -> NodeInfo:
    """NodeInfo for ``node`` given the infos of its upstream nodes."""
    if isinstance(node, N.InputSource) and node.onnx_type is not None:
        return NodeInfo(deferred=True)   # a sequence or optional: no tensor type
    if isinstance(node, N.Source):
        try:
            ttype = node.source_type(graph.file_scope)
        except (SourceError, ops.OpError) as exc:
            return NodeInfo(error=str(exc))
        conflict = graph.symbol_conflict(node.id) if isinstance(node, N.InputSource) else None
        if conflict is not None:
            return NodeInfo(error=conflict.message())
        warnings = ()
        if isinstance(node, N.TrainableSource) and node.trainable and not is_float(ttype.dtype):
            warnings = (f"marked trainable, but its {ttype.dtype} values have no gradient: "
                        "training leaves them as they are",)
        return NodeInfo({N.SOURCE_PORT: ttype}, warnings=warnings)

    through = N.bypassed_port(node)
    if through is not None:
        return _bypassed(graph, node, through, infos)

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
            if upstream.deferred or upstream.ok:
                return NodeInfo(blocked=True, deferred=True,
                                error=f"input {port!r} waits for {src.label}, whose type is known only after a run")
            return NodeInfo(blocked=True, error=f"input {port!r} waits for {src.label}, which has no type")
        input_types.append(src_type)

    if isinstance(node, N.OutputNode):
        return NodeInfo({N.OUTPUT_PORT: input_types[0]})
    if isinstance(node, N.LossNode):
        try:
            return NodeInfo({N.LOSS_PORT: node.loss_output_type(input_types[0], input_types[1])})
        except LossError as exc:
            return NodeInfo(error=str(exc))
    if isinstance(node, N.ForeignNode):
        return _infer_foreign(graph, node, input_types)

    assert isinstance(node, N.OperatorNode)
    try:
        schema = ops.get_schema(node.op)
        attrs = schema.check_attributes(node.attributes, graph.opset)
        types = ops.infer_types(node.op, input_types, attrs, opset=graph.opset)
    except ops.ShapeUnknownError:
        return NodeInfo(deferred=True)
    except ops.OpError as exc:
        return NodeInfo(error=str(exc), error_port=exc.port)
    # No warning for a deprecated op at an opset where it is current (Scatter at 9 and 10):
    # it is the right op there, and the node would look amber for nothing.
    return NodeInfo(dict(zip(node.output_ports(), types, strict=True)))


def _bypassed(graph: GraphView, node: N.OperatorNode, port: str, infos: Mapping[str, NodeInfo]) -> NodeInfo:
    """A bypassed operator: its output has the type of input ``port`` (which it passes
    through); its other inputs and its attributes do not matter."""
    edge = graph.edge_into(node.id, port)
    if edge is None:
        return NodeInfo(error=not_connected_text(node, [port]), incomplete=True)
    src_type = infos[edge.src].outputs.get(edge.src_port)
    if src_type is None:
        return NodeInfo(blocked=True, error=f"input {port!r} waits for {graph.node(edge.src).label}, which has no type")
    return NodeInfo({name: src_type for name in node.output_ports()})
#: Literal (or ``Constant``) inputs of a foreign node up to this many elements are given to its
#: type inferrer as values (the axes of an Unsqueeze, the shape of a Reshape).
CONSTANT_LIMIT = 4096


def constant_input(graph: GraphView, node_id: str, port: str) -> np.ndarray | None:
    """The value feeding ``node_id.port`` when it is known without running anything: a literal
    source, or an ONNX ``Constant`` node, of at most :data:`CONSTANT_LIMIT` elements."""
    edge = graph.edge_into(node_id, port)
    if edge is None:
        return None
    src = graph.node(edge.src)
    if isinstance(src, N.LiteralSource):
        value = src.value
    elif isinstance(src, N.ForeignNode):
        value = src.constant_value()
    else:
        return None
    return value if value is not None and value.size <= CONSTANT_LIMIT else None


def _infer_foreign(graph: GraphView, node: N.ForeignNode, input_types: list[TensorType | None]) -> NodeInfo:
    inferrer = foreign.type_inferrer()
    if inferrer is None:
        return NodeInfo(error=foreign.missing_runtime_text(f"running ONNX op {node.title}"))
    constants = {}
    for i, port in enumerate(node.input_ports()):
        value = constant_input(graph, node.id, port)
        if value is not None:
            constants[i] = value
    try:
        found = inferrer(graph.foreign_call(node.id), input_types, constants)
    except foreign.ForeignOpError as exc:
        return NodeInfo(error=str(exc))
    outputs = {port: t for port, t in zip(node.output_ports(), found.types, strict=False)
               if isinstance(t, TensorType)}
    return NodeInfo(outputs, warnings=tuple(found.warnings), deferred=len(outputs) < len(node.output_ports()))


def _operator_problem(node: N.OperatorNode, opset: int) -> str | None:
    """Why the operator cannot exist as configured at ``opset`` (before looking at inputs)."""
    schema = node.schema
    if schema.version_for(opset) is None:
        if schema.deprecated_since is not None and opset >= schema.deprecated_since:
            instead = f"use {schema.replaced_by}, which replaced it, or " if schema.replaced_by else ""
            return (f"{node.op} does not exist at opset {opset}: it was replaced from opset "
                    f"{schema.deprecated_since} ({instead}set the graph's opset below {schema.deprecated_since})")
        return f"{node.op} does not exist at opset {opset}: it needs opset {schema.versions[0]} or later"
    try:
        schema.check_attributes(node.attributes, opset)
    except ops.OpError as exc:
        return str(exc)
    return None


def infer_graph(graph: GraphView) -> dict[str, NodeInfo]:
    """NodeInfo of every node, computed in topological order."""
    infos: dict[str, NodeInfo] = {}
    for node_id in graph.topological_order():
        infos[node_id] = infer_node(graph, graph.node(node_id), infos)
    return infos
