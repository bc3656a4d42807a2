"""Extract a region to run it alone on the real tensors that enter it, and splice an edited
region back in place of the old one."""
from __future__ import annotations

import numpy as np
import pytest

from nodeeditor.graph import Engine, Graph, extract_region, splice_region

DATA = np.arange(12, dtype=np.float32).reshape(4, 3)
BASE = np.zeros((5, 3), np.float32)


def _graph() -> Graph:
    g = Graph("regions")
    g.add_input("rows", np.array([2, 0]), node_id="idx", position=(0, 100))
    g.add_literal(DATA, node_id="data", name="table", position=(0, 0))
    g.add_operator("Gather", {"axis": 0}, node_id="pick", position=(300, 0))
    g.connect("data", "output", "pick", "data")
    g.connect("idx", "output", "pick", "indices")
    g.add_literal(BASE, node_id="base", position=(300, 200))
    g.add_literal(np.array([[1], [3]]), node_id="where", position=(300, 300))
    g.add_operator("ScatterND", node_id="write", position=(600, 0))
    g.connect("base", "output", "write", "data")
    g.connect("where", "output", "write", "indices")
    g.connect("pick", "output", "write", "updates")
    g.add_output("result", node_id="out", position=(900, 0))
    g.connect("write", "output", "out", "value")
    g.add_output("picked", node_id="out2", position=(900, 200))
    g.connect("pick", "output", "out2", "value")
    return g


def _expected(rows) -> np.ndarray:
    want = BASE.copy()
    want[[1, 3]] = DATA[rows]
    return want


def test_the_tensors_entering_a_region_become_inputs_holding_their_real_values():
    g = _graph()
    g.set_source("idx", example=np.array([3, 1]))
    cut = extract_region(g, ["pick"])
    sub = cut.graph
    assert sorted(cut.inputs.values()) == [("data", "output"), ("idx", "output")]
    by_origin = {origin: sub.node(nid) for nid, origin in cut.inputs.items()}
    np.testing.assert_array_equal(by_origin[("data", "output")].example, DATA)
    np.testing.assert_array_equal(by_origin[("idx", "output")].example, [3, 1])
    assert by_origin[("idx", "output")].name == "rows"
    assert list(cut.outputs.values()) == [("pick", "output")]   # read by the scatter and an output outside
    result = Engine(sub).run()
    assert result.ok
    (value,) = result.outputs.values()
    np.testing.assert_array_equal(value, DATA[[3, 1]])
    assert sub.opset == g.opset and sub.model_info == g.model_info
    # the cut-out's inputs sit left of the region, its outputs right of it
    assert all(sub.node(n).position[0] < 300 for n in cut.inputs)
    assert all(sub.node(n).position[0] > 300 for n in cut.outputs)


def test_a_region_whose_input_fails_cannot_be_extracted_and_says_which_tensor():
    g = _graph()
    g.set_source("idx", example=np.array([9, 0]))   # out of range: the Gather fails
    with pytest.raises(ValueError, match="'pick'.*cannot be computed"):
        extract_region(g, ["write"])
    with pytest.raises(ValueError, match="at least one node"):
        extract_region(g, [])


def test_an_edited_region_splices_back_and_every_reader_outside_gets_its_new_value():
    g = _graph()
    cut = extract_region(g, ["pick"])
    sub = cut.graph
    (out_id,) = cut.outputs
    # the edit: the picked rows are swapped by a second Gather before they leave the region
    sub.add_literal(np.array([1, 0]), node_id="swap")
    sub.add_operator("Gather", {"axis": 0}, node_id="pick2")
    sub.connect("pick", "output", "pick2", "data")
    sub.connect("swap", "output", "pick2", "indices")
    sub.disconnect(out_id, "value")
    sub.connect("pick2", "output", out_id, "value")
    ids = splice_region(g, cut)
    assert set(ids) == {"pick", "swap", "pick2"}
    result = Engine(g).run()
    assert result.ok, result.errors()
    np.testing.assert_array_equal(result.outputs["result"], _expected([0, 2]))
    np.testing.assert_array_equal(result.outputs["picked"], DATA[[0, 2]])
    assert g.edge_into("pick", "data").src == "data" and g.edge_into("pick", "indices").src == "idx"


def test_a_splice_that_would_leave_readers_outside_without_a_value_is_refused_unchanged():
    g = _graph()
    cut = extract_region(g, ["pick"])
    (out_id,) = cut.outputs
    cut.graph.remove_node(out_id)
    before = (g.node_ids, g.edges)
    with pytest.raises(ValueError, match="no longer gives it out"):
        splice_region(g, cut)
    assert (g.node_ids, g.edges) == before


def test_an_unedited_splice_gives_the_same_results():
    g = _graph()
    expected = Engine(g).run().outputs
    splice_region(g, extract_region(g, ["pick", "write"]))
    got = Engine(g).run().outputs
    assert set(got) == set(expected)
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name])


def test_a_splice_is_refused_unchanged_when_the_wires_into_the_region_changed_since_the_cut():
    g = _graph()
    cut = extract_region(g, ["pick"])
    g.add_input("other", np.array([1, 1]), node_id="idx2", position=(0, 200))
    g.disconnect("pick", "indices")
    g.connect("idx2", "output", "pick", "indices")
    before = (g.node_ids, g.edges)
    with pytest.raises(ValueError, match=r"wires into the region changed.*idx\.output → pick\.indices is gone"
                                         r".*idx2\.output → pick\.indices is new"):
        splice_region(g, cut)
    assert (g.node_ids, g.edges) == before


def test_unsplice_puts_the_old_region_back_exactly_and_the_splice_can_be_done_again():
    from nodeeditor.graph.regions import RegionBody, splice, unsplice

    g = _graph()
    before = (g.node_ids, g.edges, [g.node(n) for n in g.node_ids])
    cut = extract_region(g, ["pick", "write"])
    cut.graph.set_attribute("pick", "axis", 0)
    cut.graph.disconnect("write", "updates")          # the edit: the scatter writes the picked rows swapped
    cut.graph.add_literal(np.array([1, 0]), node_id="swap")
    cut.graph.add_operator("Gather", {"axis": 0}, node_id="pick2")
    cut.graph.connect("pick", "output", "pick2", "data")
    cut.graph.connect("swap", "output", "pick2", "indices")
    cut.graph.connect("pick2", "output", "write", "updates")
    body = RegionBody.of(cut.graph)
    done = splice(g, cut, body)
    want = BASE.copy()
    want[[1, 3]] = DATA[[0, 2]]
    np.testing.assert_array_equal(Engine(g).run().outputs["result"], want)
    unsplice(g, done)
    assert (g.node_ids, g.edges, [g.node(n) for n in g.node_ids]) == before   # the same node objects, in order
    np.testing.assert_array_equal(Engine(g).run().outputs["result"], _expected([2, 0]))
    again = splice(g, cut, body)                       # redo: the same edit, though the cut-out may change since
    assert set(again.ids.values()) == set(done.ids.values())
    np.testing.assert_array_equal(Engine(g).run().outputs["result"], want)
    # the extraction as it now stands splices again (the region is now the spliced nodes)
    assert set(again.region.nodes) == set(again.ids.values())
    splice_region(g, again.region)
    np.testing.assert_array_equal(Engine(g).run().outputs["result"], want)


def test_two_tensors_read_by_the_same_node_become_inputs_that_do_not_sit_on_each_other():
    cut = extract_region(_graph(), ["pick"])
    (a, b) = (cut.graph.node(n).position for n in cut.inputs)
    assert a[0] == b[0] and abs(a[1] - b[1]) >= 80       # a one-port node is 68 units high on the canvas


def test_a_splice_is_refused_unchanged_when_the_region_was_edited_in_the_original_since_the_cut():
    g = _graph()
    cut = extract_region(g, ["pick", "write"])
    g.set_attribute("write", "reduction", "add")          # an edit the splice would silently drop
    before = (g.node_ids, g.edges)
    with pytest.raises(ValueError, match=r"region was edited in the original.*\(write\)"):
        splice_region(g, cut)
    assert (g.node_ids, g.edges) == before
    g.set_attribute("write", "reduction", "none")         # the same value again is still a later edit
    with pytest.raises(ValueError, match="region was edited"):
        splice_region(g, cut)
    cut = extract_region(g, ["pick", "write"])            # extracted again: fine
    splice_region(g, cut)
    cut = extract_region(g, ["pick", "write"])
    g.rename_node("write", "renamed")                     # a rename keeps the revision, but is an edit too
    with pytest.raises(ValueError, match=r"region was edited in the original.*\(write\)"):
        splice_region(g, cut)
