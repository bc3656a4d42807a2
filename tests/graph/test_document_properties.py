"""Random edit sequences: incremental type inference always equals a full inference, every
edit is undone exactly by its symmetric operation, and graph_to_dict/graph_from_dict round-trip."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from nodeeditor.graph import ConnectionRefused, Graph, graph_from_dict, graph_to_dict
from nodeeditor.graph.inference import infer_graph

OPS = ["Gather", "GatherElements", "GatherND", "ScatterElements", "ScatterND"]

action = st.one_of(
    st.tuples(st.just("literal"), st.sampled_from(["f", "i"]), st.integers(1, 3)),
    st.tuples(st.just("op"), st.sampled_from(OPS)),
    st.tuples(st.just("connect"), st.integers(0, 50), st.integers(0, 50), st.integers(0, 2)),
    st.tuples(st.just("disconnect"), st.integers(0, 50)),
    st.tuples(st.just("axis"), st.integers(0, 50), st.integers(-2, 2)),
    st.tuples(st.just("remove"), st.integers(0, 50)),
    st.tuples(st.just("opset"), st.sampled_from([11, 13, 16, 18])),
)


def apply(g: Graph, act):
    """Apply one random edit; returns an undo function (or None when nothing changed)."""
    ids = g.node_ids
    kind = act[0]
    if kind == "literal":
        value = np.arange(act[2] * 2).reshape(act[2], 2)
        node = g.add_literal(value.astype(np.float32 if act[1] == "f" else np.int64))
        return lambda: g.remove_node(node)
    if kind == "op":
        node = g.add_operator(act[1])
        return lambda: g.remove_node(node)
    if not ids:
        return None
    if kind == "connect":
        src, dst = ids[act[1] % len(ids)], ids[act[2] % len(ids)]
        ports = g.node(dst).input_ports()
        outs = g.node(src).output_ports()
        if not ports or not outs:
            return None
        port = ports[act[3] % len(ports)]
        try:
            g.connect(src, outs[0], dst, port)
        except ConnectionRefused:
            return None
        return lambda: g.disconnect(dst, port)
    if kind == "disconnect":
        edges = g.edges
        if not edges:
            return None
        e = edges[act[1] % len(edges)]
        at = g.edge_index(e)
        g.disconnect(e.dst, e.dst_port)
        return lambda: g.connect(e.src, e.src_port, e.dst, e.dst_port, force=True, index=at)
    if kind == "axis":
        node = g.node(ids[act[1] % len(ids)])
        if node.kind != "op" or node.op == "ScatterND":
            return None
        old = g.set_attribute(node.id, "axis" if node.op != "GatherND" else "batch_dims",
                              act[2] if node.op != "GatherND" else abs(act[2]))
        name = "axis" if node.op != "GatherND" else "batch_dims"
        return lambda: g.set_attribute(node.id, name, old)
    if kind == "remove":
        removed = g.remove_node(ids[act[1] % len(ids)])
        return lambda: g.restore_node(removed)
    if kind == "opset":
        old = g.set_setting("opset", act[1])
        return lambda: g.set_setting("opset", old)
    raise AssertionError(kind)


@settings(max_examples=60, deadline=None)
@given(st.lists(action, min_size=1, max_size=25))
def test_random_edits_keep_types_consistent_and_undo_exactly(actions):
    g = Graph()
    for act in actions:
        before = graph_to_dict(g)
        undo = apply(g, act)
        assert g._infos == infer_graph(g)  # incremental == from scratch
        if undo is not None:
            after = graph_to_dict(g)
            undo()
            undone = graph_to_dict(g)
            assert undone == before
            assert g._infos == infer_graph(g)
            apply(g, act)  # redo with the same arguments
            assert graph_to_dict(g)["nodes"] == after["nodes"] or act[0] in ("literal", "op", "remove")
    assert graph_to_dict(graph_from_dict(graph_to_dict(g))) == graph_to_dict(g)
