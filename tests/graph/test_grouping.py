"""Groups (a collapsed frame drawn as one block): the tensors crossing a set of nodes, titles,
the foreign chains "Collapse Foreign Chains" finds, and the document's collapsed flag (events,
undo by the symmetric setter, one collapsed group per node, saved in the file)."""
import json

import numpy as np
import pytest

from nodeeditor.graph import Graph, graph_from_dict, graph_to_dict, load_graph, paste_dict, save_graph
from nodeeditor.graph import events as E
from nodeeditor.graph import nodes as N
from nodeeditor.graph.grouping import (
    Boundary,
    boundary,
    foreign_chains,
    group_title,
    member_order,
    readers,
    tensor_label,
)


def foreign(node_id, op_type, inputs=("A",), outputs=("Y",), names=()):
    return N.ForeignNode(id=node_id, name=node_id, op_type=op_type, inputs=inputs, outputs=outputs,
                         tensor_names=names)


def attention_graph():
    """x, w -> MatMul -> Add(+b) -> Softmax -> out and -> Shape -> out2;
    the Softmax output is read by two outside nodes, x by MatMul and Add."""
    g = Graph("t")
    g.add_literal(np.ones((2, 3), np.float32), node_id="x")
    g.add_literal(np.ones((3, 3), np.float32), node_id="w")
    g.add_literal(np.ones((3,), np.float32), node_id="b")
    g.add_node(foreign("mm", "MatMul", ("A", "B")))
    g.add_node(foreign("add", "Add", ("A", "B")))
    g.add_node(foreign("sm", "Softmax", ("input",), ("output",), ("probs",)))
    g.add_node(foreign("shape", "Shape", ("data",), ("shape",)))
    g.add_output("out", node_id="out")
    g.add_output("out2", node_id="out2")
    g.connect("x", "output", "mm", "A")
    g.connect("w", "output", "mm", "B")
    g.connect("mm", "Y", "add", "A")
    g.connect("b", "output", "add", "B")
    g.connect("add", "Y", "sm", "input")
    g.connect("sm", "output", "out", "value")
    g.connect("sm", "output", "shape", "data")
    g.connect("shape", "shape", "out2", "value")
    return g


# ------------------------------------------------------------------ boundary and titles
def test_the_boundary_has_one_input_per_outside_tensor_and_one_output_per_tensor_read_outside():
    g = attention_graph()
    b = boundary(g, ["sm", "add", "mm"])          # any order: members are read in data order
    assert b.inputs == (("x", "output"), ("w", "output"), ("b", "output"))
    assert b.outputs == (("sm", "output"),)       # read by out and shape: still one port
    # the MatMul output feeds the Add inside only: no output port for it
    assert boundary(g, ["mm"]).outputs == (("mm", "Y"),)
    # a tensor two members read enters once
    g.disconnect("add", "B")
    g.connect("x", "output", "add", "B")
    assert boundary(g, ["mm", "add"]).inputs == (("x", "output"), ("w", "output"))


def test_members_are_ordered_by_data_flow_and_a_short_chain_is_titled_by_its_ops():
    g = attention_graph()
    assert member_order(g, ["sm", "mm", "add"]) == ["mm", "add", "sm"]
    assert group_title(g, ["sm", "mm", "add"]) == "MatMul → Add → Softmax"
    assert group_title(g, ["sm", "shape"]) == "Softmax → Shape"
    assert group_title(g, ["mm", "add", "sm", "shape", "out2"]) == "5 nodes → out2"
    assert group_title(g, ["mm", "sm"]) == "2 nodes → Softmax"   # not a chain: mm does not feed sm
    assert tensor_label(g, "sm", "output") == "probs"          # the ONNX name an import kept
    assert tensor_label(g, "x", "output") == "x"


def test_foreign_chains_are_maximal_trees_whose_inner_tensors_stay_inside():
    g = attention_graph()
    # sm is read by out and shape: the chain mm -> add -> sm ends there; shape alone is no chain
    assert foreign_chains(g) == [("mm", "add", "sm")]
    # nodes that build one index tensor: two branches joined by a Concat, then a first-class op
    g2 = Graph("kv")
    g2.add_literal(np.zeros((2, 3), np.float32), node_id="cache")
    g2.add_node(foreign("s1", "Shape", ("data",), ("shape",)))
    g2.add_node(foreign("r", "Range", ("start",), ("output",)))
    g2.add_node(foreign("s2", "Shape", ("data",), ("shape",)))
    g2.add_node(foreign("u", "Unsqueeze", ("data",), ("expanded",)))
    g2.add_node(foreign("cat", "Concat", ("a", "b"), ("concat_result",)))
    g2.add_node(foreign("lone", "Relu", ("X",), ("Y",)))
    g2.add_operator("ScatterND", node_id="sc")
    for src, sp, dst, dp in (("cache", "output", "s1", "data"), ("s1", "shape", "r", "start"),
                             ("cache", "output", "s2", "data"), ("s2", "shape", "u", "data"),
                             ("r", "output", "cat", "a"), ("u", "expanded", "cat", "b"),
                             ("cache", "output", "sc", "data"), ("cat", "concat_result", "sc", "indices"),
                             ("cache", "output", "lone", "X"), ("lone", "Y", "sc", "updates")):
        g2.connect(src, sp, dst, dp)
    assert foreign_chains(g2) == [("s1", "r", "s2", "u", "cat")]
    assert boundary(g2, foreign_chains(g2)[0]) == Boundary((("cache", "output"),), (("cat", "concat_result"),))
    # nodes already in a group join no chain
    assert foreign_chains(g2, skip={"cat"}) == [("s1", "r"), ("s2", "u")]


# ------------------------------------------------------------------ the document's flag
def test_collapsing_a_frame_is_a_frame_change_with_an_event_undone_by_the_old_value():
    g = attention_graph()
    fid = g.add_frame(N.Frame("", "chain", nodes=("mm", "add", "sm")))
    seen = []
    g.events.subscribe(seen.append)
    assert g.set_frame(fid, collapsed=True) == {"collapsed": False}
    assert g.frame(fid).collapsed and g.collapsed_frame_of("add") == fid and g.collapsed_frame_of("x") is None
    assert E.FrameChanged(fid, "collapsed", False, True) in seen
    g.set_frame(fid, collapsed=False)
    assert not g.frame(fid).collapsed and g.collapsed_frame_of("add") is None


def test_a_node_is_in_one_collapsed_group_at_most():
    g = attention_graph()
    a = g.add_frame(N.Frame("", "first", nodes=("mm", "add"), collapsed=True))
    with pytest.raises(ValueError, match=r"'add' is already in the collapsed group 'first'"):
        g.add_frame(N.Frame("", "second", nodes=("add", "sm"), collapsed=True))
    b = g.add_frame(N.Frame("", "second", nodes=("add", "sm")))     # expanded: allowed
    with pytest.raises(ValueError, match="one collapsed group only"):
        g.set_frame(b, collapsed=True)
    assert not g.frame(b).collapsed
    g.set_frame(a, nodes=("mm",))
    g.set_frame(b, collapsed=True)                                 # no longer shared
    assert g.collapsed_frame_of("add") == b


def test_removing_a_member_of_a_group_and_restoring_it_puts_it_back_in_the_group():
    g = attention_graph()
    fid = g.add_frame(N.Frame("", "chain", nodes=("mm", "add", "sm"), collapsed=True))
    removed = g.remove_node("add")
    assert g.frame(fid).nodes == ("mm", "sm") and g.frame(fid).collapsed
    g.restore_node(removed)
    assert g.frame(fid).nodes == ("mm", "add", "sm")


# ------------------------------------------------------------------ the file
def test_a_collapsed_group_is_saved_and_loaded_and_an_expanded_frame_writes_no_flag(tmp_path):
    g = attention_graph()
    g.add_frame(N.Frame("grp", "MatMul → Add → Softmax", "#5f6b7a", ("mm", "add", "sm"), collapsed=True))
    g.add_frame(N.Frame("plain", "plain", nodes=("x", "w")))
    save_graph(g, tmp_path / "g.ifg.json")
    raw = json.loads((tmp_path / "g.ifg.json").read_text())
    frames = {f["id"]: f for f in raw["frames"]}
    assert frames["grp"]["collapsed"] is True and "collapsed" not in frames["plain"]
    back = load_graph(tmp_path / "g.ifg.json")
    assert back.frame("grp").collapsed and back.frame("grp").nodes == ("mm", "add", "sm")
    assert back.frame("grp").title == "MatMul → Add → Softmax"
    assert not back.frame("plain").collapsed


def test_a_file_without_the_field_loads_its_frames_expanded_and_a_wrong_value_is_named():
    data = graph_to_dict(attention_graph())
    data["frames"] = [{"id": "f", "title": "old", "colour": "#5a7bb5", "nodes": ["mm", "add"]}]
    assert graph_from_dict(data).frame("f").collapsed is False
    data["frames"][0]["collapsed"] = "yes"
    with pytest.raises(ValueError, match="frame 'f': 'collapsed' must be true or false"):
        graph_from_dict(data)


def test_copying_a_whole_group_pastes_a_collapsed_group_of_the_copies():
    g = attention_graph()
    g.add_frame(N.Frame("grp", "chain", nodes=("mm", "add", "sm"), collapsed=True))
    mapping = paste_dict(g, graph_to_dict(g, ["mm", "add", "sm"]))
    (pasted,) = [f for f in g.frames if f.id != "grp"]
    assert pasted.collapsed and pasted.nodes == tuple(mapping[n] for n in ("mm", "add", "sm"))


def test_which_group_holds_a_node_follows_every_frame_change_and_frame_ids_stay_the_smallest_free():
    g = attention_graph()
    a = g.add_frame(N.Frame("", "a", nodes=("mm", "add"), collapsed=True))
    b = g.add_frame(N.Frame("", "b", nodes=("sm",), collapsed=True))
    assert (a, b) == ("frame1", "frame2") and g.new_frame_id() == "frame3"
    g.set_frame(a, nodes=("mm",))
    assert [g.collapsed_frame_of(n) for n in ("mm", "add", "sm")] == [a, None, b]
    g.set_frame(b, collapsed=False)
    assert g.collapsed_frame_of("sm") is None
    removed = g.remove_node("mm")
    assert g.collapsed_frame_of("mm") is None and g.frame(a).nodes == ()
    g.restore_node(removed)
    assert g.collapsed_frame_of("mm") == a
    gone = g.remove_frame(a)
    assert g.collapsed_frame_of("mm") is None and g.new_frame_id() == "frame1"
    g.add_frame(gone.frame, index=gone.index)
    assert g.collapsed_frame_of("mm") == a and g.new_frame_id() == "frame3"


def test_readers_are_the_member_inputs_fed_by_one_tensor_in_member_then_port_order():
    g = Graph()
    g.add_literal(np.zeros(4, np.float32), node_id="x")
    g.add_literal(np.array([1], np.int64), node_id="i")
    g.add_operator("Gather", node_id="a")
    g.add_operator("Gather", node_id="b")
    g.connect("x", "output", "a", "data")
    g.connect("i", "output", "a", "indices")
    g.connect("a", "output", "b", "data")
    g.connect("i", "output", "b", "indices")
    assert readers(g, ["b", "a"], ("i", "output")) == [("b", "indices"), ("a", "indices")]
    assert readers(g, ["a", "b"], ("x", "output")) == [("a", "data")]
    assert readers(g, ["a", "gone"], ("a", "output")) == []
