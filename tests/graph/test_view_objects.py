"""Frames, reroute points, collapsed and bypassed nodes: document changes with events, undone
by their symmetric mutators, saved in the file (format version 2, older files migrate)."""
import json

import numpy as np
import pytest

from nodeeditor.graph import Engine, Graph, graph_from_dict, graph_to_dict, load_graph, paste_dict, save_graph
from nodeeditor.graph import events as E
from nodeeditor.graph import nodes as N
from nodeeditor.graph.serialize import VERSION


def scatter_graph():
    """data 3x3 zeros, indices [[1, 0, 2]], updates [[10, 20, 30]] -> ScatterElements -> out."""
    g = Graph("t")
    g.add_literal(np.zeros((3, 3), np.float32), node_id="data", position=(0, 0))
    g.add_literal(np.array([[1, 0, 2]], np.int64), node_id="idx", position=(0, 150))
    g.add_literal(np.array([[10, 20, 30]], np.float32), node_id="upd", position=(0, 300))
    g.add_operator("ScatterElements", node_id="s", position=(300, 100))
    g.add_operator("Gather", node_id="gather", position=(300, 400))
    g.add_output("out", node_id="out", position=(600, 100))
    for src, port in (("data", "data"), ("idx", "indices"), ("upd", "updates")):
        g.connect(src, "output", "s", port)
    g.connect("s", "output", "out", "value")
    return g


def recorded(g):
    seen = []
    g.events.subscribe(seen.append)
    return seen


# ------------------------------------------------------------------ bypass
def test_a_bypassed_scatter_passes_its_data_through_and_switching_it_on_again_scatters():
    g = scatter_graph()
    seen = recorded(g)
    assert g.set_bypassed("s", True) is False
    assert E.BypassChanged("s", False, True) in seen
    out = Engine(g).run().outputs["out"]
    np.testing.assert_array_equal(out, np.zeros((3, 3), np.float32))     # data, unchanged
    assert g.set_bypassed("s", False) is True
    out = Engine(g).run().outputs["out"]
    expected = np.zeros((3, 3), np.float32)
    expected[1, 0], expected[0, 1], expected[2, 2] = 10, 20, 30          # the spec's ScatterElements axis 0
    np.testing.assert_array_equal(out, expected)


def test_a_bypassed_node_needs_only_its_data_input():
    g = scatter_graph()
    g.disconnect("s", "updates")
    assert g.node_info("s").incomplete
    g.set_bypassed("s", True)
    assert g.node_info("s").ok and str(g.output_type("s")) == "float32[3, 3]"


def test_a_gather_cannot_be_bypassed_and_says_why():
    g = scatter_graph()
    with pytest.raises(ValueError, match="shaped by its indices"):
        g.set_bypassed("gather", True)
    assert N.bypass_refusal("Gather") and N.bypass_refusal("TensorScatter") is None
    assert not g.node("gather").bypassed


def test_bypass_is_part_of_the_cache_key():
    g = scatter_graph()
    engine = Engine(g)
    engine.run()
    g.set_bypassed("s", True)
    assert engine.run().nodes["s"].recomputed


# ------------------------------------------------------------------ collapsed
def test_collapsing_a_node_is_an_event_and_changes_no_value():
    g = scatter_graph()
    seen = recorded(g)
    revision = g.node("s").revision
    assert g.set_collapsed("s", True) is False
    assert seen == [E.CollapsedChanged("s", False, True)]
    assert g.node("s").revision == revision
    assert g.set_collapsed("s", False) is True


# ------------------------------------------------------------------ frames
def test_frames_are_added_changed_and_removed_with_events_and_restored_in_place():
    g = scatter_graph()
    seen = recorded(g)
    a = g.add_frame(N.Frame("", "Example 1: axis 0", "#AABBCC", ("data", "s")))
    b = g.add_frame(N.Frame("", "second"))
    assert (a, b) == ("frame1", "frame2")
    assert g.frame(a).colour == "#aabbcc" and g.frame(a).nodes == ("data", "s")
    old = g.set_frame(a, title="renamed", nodes=("s",))
    assert old == {"title": "Example 1: axis 0", "nodes": ("data", "s")}
    assert E.FrameChanged(a, "title", "Example 1: axis 0", "renamed") in seen
    removed = g.remove_frame(a)
    assert [f.id for f in g.frames] == [b]
    g.add_frame(removed.frame, index=removed.index)
    assert [f.id for f in g.frames] == [a, b]
    with pytest.raises(ValueError, match="no node 'nope'"):
        g.set_frame(a, nodes=("nope",))
    with pytest.raises(ValueError, match="#rrggbb"):
        g.set_frame(a, colour="red")


def test_removing_a_node_takes_it_out_of_its_frame_and_restoring_puts_it_back():
    g = scatter_graph()
    fid = g.add_frame(N.Frame("", "f", nodes=("data", "s", "out")))
    removed = g.remove_node("s")
    assert g.frame(fid).nodes == ("data", "out")
    g.add_operator("ScatterElements", node_id="s2")
    g.restore_node(removed)
    assert g.frame(fid).nodes == ("data", "s", "out")


# ------------------------------------------------------------------ routes
def test_reroute_points_belong_to_their_edge_and_come_back_with_a_restored_node():
    g = scatter_graph()
    edge = g.edge_into("out", "value")
    seen = recorded(g)
    assert g.set_route(edge, [(450, 40), (500, 60)]) == ()
    assert g.route(edge) == ((450.0, 40.0), (500.0, 60.0))
    assert seen == [E.RouteChanged(edge, (), ((450.0, 40.0), (500.0, 60.0)))]
    removed = g.remove_node("out")
    assert g.route(edge) == ()
    g.restore_node(removed)
    assert g.route(edge) == ((450.0, 40.0), (500.0, 60.0))
    with pytest.raises(KeyError):
        g.set_route(N.Edge("data", "output", "out", "value"), [(0, 0)])


# ------------------------------------------------------------------ file
def test_frames_routes_and_flags_survive_save_and_load(tmp_path):
    g = scatter_graph()
    g.set_bypassed("s", True)
    g.set_collapsed("data", True)
    g.add_frame(N.Frame("", "Example 1: axis 0", "#c77a2a", ("data", "idx", "upd", "s")))
    g.set_route(g.edge_into("out", "value"), [(450.5, 40)])
    path = save_graph(g, tmp_path / "g.ifg.json")
    doc = json.loads(path.read_text())
    assert doc["version"] == VERSION
    assert doc["frames"] == [{"id": "frame1", "title": "Example 1: axis 0", "colour": "#c77a2a",
                              "nodes": ["data", "idx", "upd", "s"]}]
    nodes = {n["id"]: n for n in doc["nodes"]}
    assert nodes["s"]["bypassed"] is True and nodes["data"]["collapsed"] is True
    assert "bypassed" not in nodes["gather"] and "collapsed" not in nodes["s"]
    assert {"from": ["s", "output"], "to": ["out", "value"], "via": [[450.5, 40]]} in doc["edges"]
    back = load_graph(path)
    assert back.node("s").bypassed and back.node("data").collapsed and not back.node("s").collapsed
    assert back.frame("frame1").title == "Example 1: axis 0"
    assert back.route(back.edge_into("out", "value")) == ((450.5, 40.0),)
    save_graph(back, tmp_path / "again.ifg.json")
    assert (tmp_path / "again.ifg.json").read_text() == path.read_text()


def test_a_version_1_file_loads_with_no_frames_and_every_node_switched_on(tmp_path):
    """A version 1 file, as IndexFlow wrote it before frames existed."""
    v1 = {"format": "indexflow-graph", "version": 1, "settings": {"name": "old", "description": "", "opset": 18},
          "nodes": [{"id": "d", "kind": "literal", "name": "d", "position": [0, 0],
                     "value": {"dtype": "float32", "shape": [2], "data": [1.5, 2.5]}},
                    {"id": "o", "kind": "output", "name": "o", "position": [200, 0]}],
          "edges": [{"from": ["d", "output"], "to": ["o", "value"]}]}
    path = tmp_path / "old.ifg.json"
    path.write_text(json.dumps(v1))
    g = load_graph(path)
    assert g.frames == () and not g.node("d").collapsed
    assert g.route(g.edge_into("o", "value")) == ()
    np.testing.assert_array_equal(Engine(g).run().outputs["o"], [1.5, 2.5])


@pytest.mark.parametrize("mutate,expected", [
    (lambda d: d["nodes"][0].update(bypassed=True), "only an operator can be bypassed"),
    (lambda d: d["nodes"][0].update(collapsed="yes"), "must be true or false"),
    (lambda d: d.update(frames=[{"id": "f", "colour": "blue"}]), "frame 'f'"),
    (lambda d: d.update(frames=[{"id": "f", "nodes": ["ghost"]}]), "no node 'ghost'"),
    (lambda d: d["edges"][0].update(via=[[1, "x"]]), "'via' must be a list"),
])
def test_bad_view_objects_in_a_file_are_named(mutate, expected):
    doc = graph_to_dict(scatter_graph())
    mutate(doc)
    with pytest.raises(ValueError, match=expected):
        graph_from_dict(doc)


def test_a_copied_frame_and_its_routes_paste_with_the_new_nodes():
    g = scatter_graph()
    g.add_frame(N.Frame("", "group", "#3d9a6a", ("s", "out")))
    g.set_route(g.edge_into("out", "value"), [(450, 40)])
    clip = graph_to_dict(g, ["s", "out"])
    mapping = paste_dict(g, clip, offset=(0, 500))
    pasted = g.frames[-1]
    assert pasted.id == "frame2" and pasted.nodes == (mapping["s"], mapping["out"])
    assert g.route(g.edge_into(mapping["out"], "value")) == ((450.0, 540.0),)


# ------------------------------------------------------------------ a block not added yet
def test_can_connect_new_judges_a_wire_to_a_node_not_in_the_graph_by_the_usual_rules():
    g = scatter_graph()
    new = N.OperatorNode(id="g2", name="g2", op="Gather")
    assert g.can_connect_new(new, "idx", "output", "g2", "indices") is None
    assert "must be an integer tensor" in g.can_connect_new(new, "data", "output", "g2", "indices")
    assert g.can_connect_new(new, "data", "output", "g2", "data") is None
    source = N.LiteralSource(id="lit", name="lit", value=N.frozen_array(np.zeros(2, np.float32)))
    assert "must be an integer tensor" in g.can_connect_new(source, "lit", "output", "gather", "indices")
    assert not g.has_node("g2") and not g.has_node("lit")
    with pytest.raises(ValueError, match="already in the graph"):
        g.can_connect_new(g.node("s"), "data", "output", "s", "data")
