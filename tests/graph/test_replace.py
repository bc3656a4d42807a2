"""Graph.can_replace: the connection rules for a wire that replaces the edge already
feeding an input (what an editor does when a wire is dropped on a connected input)."""
import numpy as np

from nodeeditor.graph import Graph, graph_from_dict, graph_to_dict


def scatter_graph():
    """ScatterElements s: data float32[3, 3], indices int64[1, 3], updates float32[1, 3],
    all connected, feeding output y; spare sources of other dtypes, unconnected."""
    g = Graph(name="replace")
    g.add_literal(np.zeros((3, 3), np.float32), node_id="data")
    g.add_literal(np.zeros((1, 3), np.int64), node_id="idx")
    g.add_literal(np.ones((1, 3), np.float32), node_id="upd")
    g.add_literal(np.zeros((1, 3), np.int32), node_id="idx32")
    g.add_literal(np.zeros((1, 3), np.float64), node_id="upd64")
    g.add_literal(np.full((1, 3), 2.0, np.float32), node_id="upd2")
    g.add_operator("ScatterElements", node_id="s")
    g.add_operator("Gather", node_id="g2")
    g.add_output("y", node_id="y")
    g.connect("data", "output", "s", "data")
    g.connect("idx", "output", "s", "indices")
    g.connect("upd", "output", "s", "updates")
    g.connect("s", "output", "y", "value")
    g.connect("s", "output", "g2", "data")
    return g


def test_replacing_a_connected_input_is_judged_as_if_the_old_edge_were_gone():
    g = scatter_graph()
    assert "already connected" in g.can_connect("upd2", "output", "s", "updates")
    assert g.can_replace("upd2", "output", "s", "updates") is None
    assert g.can_replace("idx32", "output", "s", "indices") is None      # int32 indices are allowed
    # real reasons still refuse
    reason = g.can_replace("upd64", "output", "s", "updates")
    assert "same dtype" in reason and "float64" in reason and "float32" in reason
    assert "integer" in g.can_replace("upd", "output", "s", "indices")
    assert "cycle" in g.can_replace("g2", "output", "s", "data")
    assert "no input" in g.can_replace("upd", "output", "s", "nope")
    # a free input: the same answer as can_connect
    assert g.can_replace("idx", "output", "g2", "indices") is None
    assert g.can_replace("upd", "output", "g2", "indices") == g.can_connect("upd", "output", "g2", "indices")


def test_can_replace_changes_nothing():
    g = scatter_graph()
    edges, generation = g.edges, g.generation
    g.can_replace("upd2", "output", "s", "updates")
    g.can_replace("upd64", "output", "s", "updates")
    assert g.edges == edges and g.generation == generation


def test_can_replace_agrees_with_can_connect_after_a_real_disconnect():
    g = scatter_graph()
    sources = [(n.id, p) for n in g.nodes for p in n.output_ports()]
    checked = 0
    for edge in g.edges:
        without = graph_from_dict(graph_to_dict(g))
        without.disconnect(edge.dst, edge.dst_port)
        for src, port in sources:
            assert g.can_replace(src, port, edge.dst, edge.dst_port) == \
                without.can_connect(src, port, edge.dst, edge.dst_port), (src, edge)
            checked += 1
    assert checked == 5 * 8     # 5 edges x 8 output ports (the output node has none)
