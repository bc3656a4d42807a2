"""The Graph document: mutations, events, symmetric operations, connection rules, types."""
import numpy as np
import pytest

from nodeeditor.graph import ConnectionRefused, Graph, graph_from_dict, graph_to_dict, paste_dict
from nodeeditor.graph import events as E
from nodeeditor.graph.serialize import VERSION
from ops import TensorType


def gather_graph():
    """The Gather-11 axis 0 example of the seed page, wired by hand."""
    g = Graph(name="t")
    d = g.add_literal([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], dtype="float32", name="data", node_id="data")
    i = g.add_literal([[0, 1], [1, 2]], dtype="int64", name="indices", node_id="indices")
    op = g.add_operator("Gather", name="gather", node_id="gather")
    out = g.add_output("y", node_id="y")
    g.connect(d, "output", op, "data")
    g.connect(i, "output", op, "indices")
    g.connect(op, "output", out, "value")
    return g


def record(graph):
    seen = []
    graph.events.subscribe(lambda ev: seen.append(ev))
    return seen


def test_types_are_inferred_eagerly_from_the_spec_rank_rule():
    g = gather_graph()
    # Gather: output rank q + r - 1 = indices.shape + data.shape[1:]
    assert g.output_type("gather") == TensorType("float32", (2, 2, 2))
    assert g.output_type("y") == TensorType("float32", (2, 2, 2))
    assert g.node_info("gather").ok


def test_unconnected_input_is_an_error_and_dependants_are_blocked():
    g = gather_graph()
    g.disconnect("gather", "indices")
    assert "indices" in g.node_info("gather").error
    info = g.node_info("y")
    assert info.blocked and info.type is None
    assert [nid for nid, _ in g.problems()] == ["gather"]


def test_node_ids_are_generated_unique_and_stable():
    g = Graph()
    a = g.add_operator("Gather")
    b = g.add_operator("Gather")
    assert (a, b) == ("gather1", "gather2")
    g.remove_node(a)
    assert g.add_operator("GatherND") == "gathernd1"
    with pytest.raises(ValueError):
        g.add_output("y", node_id=b)


def test_connect_refusals_give_reasons():
    g = gather_graph()
    f = g.add_literal(np.zeros((2, 2), np.float32), node_id="floats")
    # one edge per input
    reason = g.can_connect("floats", "output", "gather", "data")
    assert "already connected" in reason
    with pytest.raises(ConnectionRefused, match="already connected"):
        g.connect("floats", "output", "gather", "data")
    # indices must be integer
    g.disconnect("gather", "indices")
    with pytest.raises(ConnectionRefused, match="integer"):
        g.connect(f, "output", "gather", "indices")
    # ... and the reason says how to fix it
    assert g.can_connect(f, "output", "gather", "indices").endswith(
        "gives float32: set its dtype to int64 in the property panel")
    g.add_operator("Gather", node_id="floats_out")
    g.connect(f, "output", "floats_out", "data")
    g.add_literal(np.array([0], np.int64), node_id="i0")
    g.connect("i0", "output", "floats_out", "indices")
    assert g.can_connect("floats_out", "output", "gather", "indices").endswith(
        "use a source of int64 indices (e.g. Literal indices)")
    # no cycles
    g2 = g.add_operator("Gather", node_id="g2")
    g.connect("gather", "output", g2, "data")
    assert "cycle" in g.can_connect(g2, "output", "gather", "indices")
    assert "cycle" in g.can_connect("gather", "output", "gather", "indices")
    # missing ports
    assert "no input" in g.can_connect("data", "output", "gather", "nope")
    assert "no output" in g.can_connect("y", "value", "gather", "indices")


def test_scatter_data_and_updates_must_share_dtype():
    g = Graph()
    data = g.add_literal(np.zeros((3, 3), np.float32))
    idx = g.add_literal(np.zeros((1, 3), np.int64))
    upd64 = g.add_literal(np.zeros((1, 3), np.float64))
    upd32 = g.add_literal(np.zeros((1, 3), np.float32))
    s = g.add_operator("ScatterElements")
    g.connect(data, "output", s, "data")
    g.connect(idx, "output", s, "indices")
    reason = g.can_connect(upd64, "output", s, "updates")
    assert reason and "same dtype" in reason and "float64" in reason and "float32" in reason
    g.connect(upd32, "output", s, "updates")
    assert g.output_type(s) == TensorType("float32", (3, 3))


def test_scatternd_indices_must_be_int64():
    g = Graph()
    idx32 = g.add_literal(np.zeros((1, 1), np.int32))
    s = g.add_operator("ScatterND")
    assert "int64" in g.can_connect(idx32, "output", s, "indices")


def test_remove_and_restore_node_with_its_edges():
    g = gather_graph()
    before = graph_to_dict(g)
    seen = record(g)
    removed = g.remove_node("gather")
    assert not g.has_node("gather")
    assert len(removed.edges) == 3
    kinds = [type(ev) for ev in seen]
    assert kinds[:4] == [E.EdgeRemoved] * 3 + [E.NodeRemoved]
    assert seen[3].node is removed.node
    assert g.node_info("y").error
    g.restore_node(removed)
    assert graph_to_dict(g) == before
    assert g.output_type("y") == TensorType("float32", (2, 2, 2))


def test_set_attribute_returns_old_value_and_opset_rules_are_node_errors():
    g = Graph(opset=18)
    s = g.add_operator("ScatterElements")
    seen = record(g)
    assert g.set_attribute(s, "reduction", "max") is None
    assert seen[0] == E.AttributeChanged(node_id=s, name="reduction", old=None, new="max")
    assert g.set_attribute(s, "reduction", "add") == "max"
    assert g.set_attribute(s, "reduction", None) == "add"
    assert "reduction" not in g.node(s).attributes
    # max exists from opset 18 only: accepted, shown as an error on the node
    g.set_attribute(s, "reduction", "max")
    g.set_setting("opset", 16)
    assert "max" in g.node_info(s).error
    g.set_setting("opset", 18)
    assert "max" not in (g.node_info(s).error or "")
    with pytest.raises(ValueError, match="no attribute"):
        g.set_attribute(s, "bogus", 1)
    with pytest.raises(ValueError, match="integer"):
        g.set_attribute(s, "axis", "zero")


def test_op_missing_at_opset_is_a_node_error():
    g = Graph(opset=18)
    s = g.add_operator("Scatter")
    assert "opset" in g.node_info(s).error
    t = g.add_operator("TensorScatter")
    assert "opset" in g.node_info(t).error


def test_revision_changes_on_value_changes_only():
    g = gather_graph()
    r = g.node("gather").revision
    g.set_position("gather", (10, 20))
    assert g.node("gather").revision == r
    g.set_attribute("gather", "axis", 1)
    assert g.node("gather").revision != r
    r2 = g.node("data").revision
    g.set_source_value("data", np.ones((3, 3), np.float32))
    assert g.node("data").revision != r2


def test_symmetric_setters_and_events():
    g = gather_graph()
    seen = record(g)
    assert g.set_position("gather", (5, 6)) == (0.0, 0.0)
    assert g.rename_node("gather", "look-up") == "gather"
    old = g.set_source_value("indices", np.array([2, 0], np.int64))
    assert old.tolist() == [[0, 1], [1, 2]]
    assert g.output_type("gather") == TensorType("float32", (2, 2))
    assert g.set_setting("name", "renamed") == "t"
    kinds = [type(ev) for ev in seen if not isinstance(ev, E.TypesChanged)]
    assert kinds == [E.PositionChanged, E.NodeRenamed, E.SourceChanged, E.SettingChanged]
    types_ev = [ev for ev in seen if isinstance(ev, E.TypesChanged)]
    assert types_ev and {"gather", "y", "indices"} <= set(types_ev[-1].node_ids) | set(types_ev[0].node_ids)
    # undo everything through the same methods
    g.set_source_value("indices", old)
    assert g.output_type("gather") == TensorType("float32", (2, 2, 2))


def test_source_values_are_read_only_copies():
    g = Graph()
    arr = np.arange(3)
    n = g.add_literal(arr)
    arr[0] = 99
    assert g.node(n).value.tolist() == [0, 1, 2]
    with pytest.raises(ValueError):
        g.node(n).value[0] = 5


def test_set_source_on_generator_and_file():
    g = Graph()
    n = g.add_generator("arange", {"start": 0, "stop": 5})
    assert g.output_type(n) == TensorType("int64", (5,))
    old = g.set_source(n, params={"start": 0, "stop": 10, "step": 3})
    assert g.output_type(n) == TensorType("int64", (4,))  # 0, 3, 6, 9
    g.set_source(n, **old)
    assert g.output_type(n) == TensorType("int64", (5,))
    with pytest.raises(ValueError):
        g.set_source(n, params={"nope": 1})
    f = g.add_file_source("does-not-exist.npy")
    assert "not found" in g.node_info(f).error


def test_selection_round_trip_and_paste_reids():
    g = gather_graph()
    g.set_position("gather", (100, 50))
    clip = graph_to_dict(g, ["indices", "gather"])
    assert [n["id"] for n in clip["nodes"]] == ["indices", "gather"]
    assert clip["edges"] == [{"from": ["indices", "output"], "to": ["gather", "indices"]}]
    mapping = paste_dict(g, clip, offset=(10, 10))
    assert set(mapping) == {"indices", "gather"}
    assert set(mapping.values()).isdisjoint({"indices", "gather"})
    new_gather = g.node(mapping["gather"])
    assert new_gather.position == (110.0, 60.0)
    assert g.edge_into(mapping["gather"], "indices").src == mapping["indices"]
    assert g.edge_into(mapping["gather"], "data") is None


def test_from_dict_rebuilds_the_same_document():
    g = gather_graph()
    again = graph_from_dict(graph_to_dict(g))
    assert graph_to_dict(again) == graph_to_dict(g)
    assert again.output_type("y") == g.output_type("y")


def test_topological_order_puts_inputs_first():
    g = gather_graph()
    order = g.topological_order()
    assert order.index("data") < order.index("gather") < order.index("y")
    assert order.index("indices") < order.index("gather")


def test_generation_counts_changes():
    g = gather_graph()
    gen = g.generation
    g.set_position("y", (1, 1))
    assert g.generation > gen


def test_literal_values_must_be_tensors():
    g = Graph()
    with pytest.raises(ValueError, match="numbers, booleans or strings"):
        g.add_literal([{"a": 1}])
    with pytest.raises(ValueError, match="unsupported dtype"):
        g.add_literal(np.array(["2020-01-01"], dtype="datetime64[D]"))
    n = g.add_literal(["a", "b"])
    assert g.output_type(n) == TensorType("string", (2,))


def test_paste_refuses_data_of_another_format_version():
    g = gather_graph()
    clip = graph_to_dict(g, ["gather"])
    with pytest.raises(ValueError, match=f"version {VERSION}"):
        paste_dict(g, {**clip, "version": 7})
    assert g.node_ids == ("data", "indices", "gather", "y")


def test_unconnected_inputs_make_a_node_incomplete_and_name_every_missing_port():
    g = Graph()
    op = g.add_operator("ScatterElements")
    info = g.node_info(op)
    assert info.incomplete and not info.ok
    assert info.error == "inputs 'data', 'indices' and 'updates' are not connected"
    g.add_literal(np.zeros(3, np.float32), node_id="d")
    g.connect("d", "output", op, "data")
    assert g.node_info(op).error == "inputs 'indices' and 'updates' are not connected"
    g.add_literal(np.array([1], np.int64), node_id="i")
    g.connect("i", "output", op, "indices")
    assert g.node_info(op).error == "input 'updates' is not connected"
    g.add_literal(np.array([2.0], np.float32), node_id="u")
    g.connect("u", "output", op, "updates")
    assert g.node_info(op).ok and not g.node_info(op).incomplete
    out = g.add_output("y")
    assert g.node_info(out).incomplete and g.node_info(out).error == "output 'y' is not connected"
    # a real mistake is not "incomplete": an attribute the opset does not have
    bad = g.add_operator("ScatterND", {"reduction": "max"})
    g.set_setting("opset", 16)
    assert not g.node_info(bad).incomplete and "max" in g.node_info(bad).error
