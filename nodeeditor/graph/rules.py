"""Connection rules: may this output port feed that input port?

:func:`structural_refusal` covers what must hold in any saved document (ports
exist, one edge per input, no cycles). :func:`type_refusal` adds what the editor
enforces when a person draws a wire, using the inferred types:

- an integer-only input (indices, write_indices) takes only the dtypes the schema
  allows there at the graph's opset;
- inputs that share a type parameter (data and updates of a scatter,
  past_cache and update of TensorScatter) must share a dtype.

Each returns None when the connection is fine, otherwise the reason as text.
A rule that needs a type that is not known yet does not refuse.

:func:`replacement_refusal` asks the same question for a wire that would *replace*
the edge already feeding the input (an editor's drop on a connected input): the
rules as if that edge were gone.
"""
from __future__ import annotations

from ops.dtypes import INTEGER_NAMES

from . import nodes as N
from .view import GraphView

INTEGER_DTYPES = INTEGER_NAMES  # the integer dtype names (ops.dtypes)


def structural_refusal(graph: GraphView, src: str, src_port: str, dst: str, dst_port: str, *,
                       replacing: bool = False) -> str | None:
    """Why the edge cannot exist at all, or None. ``replacing``: judge it as if the edge
    now feeding ``dst.dst_port`` (if any) were removed first."""
    if not graph.has_node(src):
        return f"there is no node {src!r}"
    if not graph.has_node(dst):
        return f"there is no node {dst!r}"
    s, d = graph.node(src), graph.node(dst)
    if src_port not in s.output_ports():
        ports = ", ".join(s.output_ports()) or "none"
        return f"{s.label} has no output {src_port!r} (outputs: {ports})"
    if dst_port not in d.input_ports():
        ports = ", ".join(d.input_ports()) or "none"
        return f"{d.label} has no input {dst_port!r} (inputs: {ports})"
    existing = graph.edge_into(dst, dst_port)
    if existing is not None and not replacing:
        return (f"input {dst_port!r} of {d.label} is already connected to {graph.node(existing.src).label}; "
                "disconnect it first")
    if src == dst or src in graph.downstream(dst):
        return f"connecting {s.label} to {d.label} would make a cycle"
    return None


def integer_only(node: N.Node, port: str, opset: int) -> bool:
    """Whether input ``port`` of ``node`` takes integer tensors only (indices, write_indices)
    at ``opset``."""
    if not isinstance(node, N.OperatorNode) or node.schema.version_for(opset) is None:
        return False
    by_name = {p.name: p for p in node.schema.inputs}
    allowed = node.schema.allowed_dtypes(by_name[port].type_param, opset)
    return bool(allowed) and set(allowed) <= INTEGER_DTYPES


def type_refusal(graph: GraphView, src: str, src_port: str, dst: str, dst_port: str) -> str | None:
    """Why the edge would be wrongly typed, or None (also None when types are unknown)."""
    d = graph.node(dst)
    if not isinstance(d, N.OperatorNode):
        return None
    src_type = graph.node_info(src).outputs.get(src_port)
    if src_type is None:
        return None
    schema = d.schema
    if schema.version_for(graph.opset) is None:
        return None  # the node already shows that error
    by_name = {p.name: p for p in schema.inputs}
    port = by_name[dst_port]
    allowed = schema.allowed_dtypes(port.type_param, graph.opset)
    if integer_only(d, dst_port, graph.opset) and src_type.dtype not in allowed:
        source = graph.node(src)
        fix = ("set its dtype to int64 in the property panel" if source.kind in (N.LITERAL, N.GENERATOR, N.INPUT)
               else "use a source of int64 indices (e.g. Literal indices)")
        return (f"{dst_port!r} of {d.op} must be an integer tensor ({' or '.join(allowed)}), "
                f"but {source.label} gives {src_type.dtype}: {fix}")
    for other in schema.inputs:
        if other.name == dst_port or other.type_param != port.type_param:
            continue
        edge = graph.edge_into(dst, other.name)
        if edge is None:
            continue
        other_type = graph.node_info(edge.src).outputs.get(edge.src_port)
        if other_type is not None and other_type.dtype != src_type.dtype:
            return (f"{dst_port!r} and {other.name!r} of {d.op} must have the same dtype: "
                    f"{other.name!r} is {other_type.dtype}, {graph.node(src).label} gives {src_type.dtype}")
    return None


def replacement_refusal(graph: GraphView, src: str, src_port: str, dst: str, dst_port: str) -> str | None:
    """Why ``src.src_port`` may not feed ``dst.dst_port`` once the edge now feeding that
    input (if any) is removed; None when disconnecting it and connecting this one would be
    accepted. Equal to :func:`connection_refusal` on the graph without that edge:

    - the one-edge-per-input rule is the only structural rule that edge can trip;
    - it cannot be part of a cycle through ``dst``'s downstream, so the cycle test is the same;
    - :func:`type_refusal` reads the source's type (not downstream of ``dst``, or the cycle
      rule refuses first) and the edges into ``dst``'s *other* inputs, neither of which
      depends on the edge into ``dst_port``.
    """
    return (structural_refusal(graph, src, src_port, dst, dst_port, replacing=True)
            or type_refusal(graph, src, src_port, dst, dst_port))


def connection_refusal(graph: GraphView, src: str, src_port: str, dst: str, dst_port: str) -> str | None:
    """Structural rules, then type rules; None when the wire may be drawn."""
    return structural_refusal(graph, src, src_port, dst, dst_port) or type_refusal(graph, src, src_port, dst, dst_port)


__all__ = ["structural_refusal", "type_refusal", "connection_refusal", "replacement_refusal", "INTEGER_DTYPES",
           "integer_only"]
