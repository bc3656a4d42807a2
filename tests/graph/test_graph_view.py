"""The read-only views of a graph that inference and the connection rules are given answer
everything :class:`~nodeeditor.graph.view.GraphView` asks (a member missing from one only
showed when a wire was dropped on an empty canvas in a graph with foreign nodes)."""
import numpy as np

from nodeeditor.graph import Graph
from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import _WithNode
from nodeeditor.graph.view import GraphView


def _protocol_members() -> list[str]:
    return sorted(name for name in vars(GraphView) if not name.startswith("_"))


def test_a_graph_with_one_more_node_has_every_member_of_the_view():
    g = Graph()
    g.add_literal(np.arange(3, dtype=np.float32), node_id="x")
    relu = N.ForeignNode(id="relu", name="relu", op_type="Relu", inputs=("X",), outputs=("Y",))
    view = _WithNode(g, relu)
    missing = [name for name in _protocol_members() if not hasattr(view, name)]
    assert missing == []
    assert view.opsets() == g.opsets() and view.symbol_conflict("relu") is None
    assert view.foreign_call("relu").op_type == "Relu"
    assert view.has_node("relu") and view.node("x") is g.node("x")
