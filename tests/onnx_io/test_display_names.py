"""The names people give nodes survive an ONNX export and import, while the model itself
keeps C-identifier names (ONNX IR: names follow C90 identifier rules)."""
from __future__ import annotations

import re

import numpy as np
import onnx
import pytest

from nodeeditor.graph import Graph
from nodeeditor.graph.examples import list_examples, load_example
from nodeeditor.onnx_io import export_model, import_model
from nodeeditor.onnx_io.names import DISPLAY_NAMES_KEY

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


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


def test_spaced_names_come_back_and_the_model_uses_identifiers():
    g = _spaced_graph()
    model = export_model(g)
    onnx_names = [n.name for n in model.graph.node] + [t.name for t in model.graph.initializer] \
        + [o.name for o in model.graph.output]
    assert all(IDENTIFIER.match(n) for n in onnx_names), onnx_names
    back = import_model(model)
    assert _names(back) == [("LiteralSource", "segment ids"), ("LiteralSource", "zeros [3]"),
                            ("OperatorNode", "pick rows (1st)"), ("OutputNode", "gathered values")]


@pytest.mark.parametrize("name", [info.name for info in list_examples()])
def test_every_example_keeps_its_names_through_onnx(name):
    g = load_example(name)   # generator and file sources come back as literals: names only
    # a Loss node nothing reads is for training only: the forward export leaves it out
    written = [n for n in g.nodes if n.kind != "loss" or g.consumers(n.id)]
    assert sorted(n.name for n in import_model(export_model(g)).nodes) == sorted(n.name for n in written)


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"zeros__3_": 5}', '{"zeros__3_": "  "}'])
def test_a_damaged_names_entry_is_ignored(text):
    model = export_model(_spaced_graph())
    for prop in model.metadata_props:
        if prop.key == DISPLAY_NAMES_KEY:
            prop.value = text
    back = import_model(model.SerializeToString())
    assert ("LiteralSource", "zeros__3_") in _names(back)   # the ONNX name, no error


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
