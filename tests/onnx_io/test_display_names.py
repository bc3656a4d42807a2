"""The names people give nodes survive an ONNX export and import: the model keeps them exactly
(the ONNX IR allows any string), and only a clash changes a name in the model; the editor's
name then travels in the metadata and comes back on import."""
from __future__ import annotations

import numpy as np
import onnx
import pytest

from nodeeditor.graph import Graph
from nodeeditor.graph.examples import list_examples, load_example
from nodeeditor.onnx_io import export_model, import_model
from nodeeditor.onnx_io.names import DISPLAY_NAMES_KEY


def _names(graph: Graph) -> list[tuple[str, str]]:
    return sorted((type(n).__name__, n.name) for n in graph.nodes)


def _spaced_graph() -> Graph:
    g = Graph(name="names")
    g.add_literal(np.arange(6, dtype=np.float32), name="zeros [3]", node_id="d", position=(0, 0))
    g.add_literal(np.array([4, 0], np.int64), name="segment ids", node_id="i", position=(0, 100))
    g.add_operator("Gather", {"axis": 0}, node_id="g", name="pick rows (1st)", position=(200, 0))
    g.add_output("gathered values", node_id="o", position=(400, 0))
    g.connect("d", "output", "g", "data")
    g.connect("i", "output", "g", "indices")
    g.connect("g", "output", "o", "value")
    return g


def test_spaced_names_are_kept_exactly_in_the_model_and_come_back():
    g = _spaced_graph()
    model = export_model(g)
    assert [t.name for t in model.graph.initializer] == ["zeros [3]", "segment ids"]
    assert [o.name for o in model.graph.output] == ["gathered values"]
    assert [n.name for n in model.graph.node] == ["pick rows (1st)"]
    assert DISPLAY_NAMES_KEY not in {p.key for p in model.metadata_props}   # nothing differs
    back = import_model(model)
    assert _names(back) == [("LiteralSource", "segment ids"), ("LiteralSource", "zeros [3]"),
                            ("OperatorNode", "pick rows (1st)"), ("OutputNode", "gathered values")]


def test_a_clash_renames_in_the_model_and_the_metadata_gives_the_name_back():
    g = _spaced_graph()
    g.rename_node("i", "zeros [3]")   # two literals share a name: one tensor becomes "zeros [3]_2"
    model = export_model(g)
    assert sorted(t.name for t in model.graph.initializer) == ["zeros [3]", "zeros [3]_2"]
    assert DISPLAY_NAMES_KEY in {p.key for p in model.metadata_props}
    assert sorted(n.name for n in import_model(model).nodes if n.kind == "literal") == ["zeros [3]", "zeros [3]"]


@pytest.mark.parametrize("name", [info.name for info in list_examples()])
def test_every_example_keeps_its_names_through_onnx(name):
    g = load_example(name)   # generator and file sources come back as literals: names only
    # a Loss node nothing reads is for training only: the forward export leaves it out
    written = [n for n in g.nodes if n.kind != "loss" or g.consumers(n.id)]
    assert sorted(n.name for n in import_model(export_model(g)).nodes) == sorted(n.name for n in written)


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"zeros [3]_2": 5}', '{"zeros [3]_2": "  "}'])
def test_a_damaged_names_entry_is_ignored(text):
    g = _spaced_graph()
    g.rename_node("i", "zeros [3]")
    model = export_model(g)
    for prop in model.metadata_props:
        if prop.key == DISPLAY_NAMES_KEY:
            prop.value = text
    back = import_model(model.SerializeToString())
    assert ("LiteralSource", "zeros [3]_2") in _names(back)   # the ONNX name, no error


def test_a_model_from_elsewhere_imports_with_its_onnx_names():
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["y"], name="my_gather")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    assert _names(import_model(model)) == [("InputSource", "i"), ("InputSource", "x"),
                                           ("OperatorNode", "my_gather"), ("OutputNode", "y")]
