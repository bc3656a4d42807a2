"""A source's Overridable row in the property panel: an initializer an imported model listed
as an input shows it checked; a click makes a literal of the editor a graph input with its
value as the default in the exported model (one undo step), and graph inputs have no such
row. The exported model is checked in onnxruntime: fed, it uses the feed; unfed, the value."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto as T
from onnx import helper, numpy_helper
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.onnx_io import export_model, import_model

from ..onnx_io.conftest import ort_run
from .helpers import deliver_posted_events, keys, open_example, save_shot


def _click(box) -> None:
    QTest.mouseClick(box, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(8, box.height() // 2))


def _inputs(graph) -> list[str]:
    return [i.name for i in export_model(graph).graph.input]


def test_a_default_of_an_imported_model_shows_checked(window):
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["y"])], "t",
        [helper.make_tensor_value_info("x", T.FLOAT, [3]), helper.make_tensor_value_info("i", T.INT64, [1])],
        [helper.make_tensor_value_info("y", T.FLOAT, [1])], [numpy_helper.from_array(np.array([2]), "i")]),
        opset_imports=[helper.make_opsetid("", 13)])
    w = window
    w.set_document(import_model(model), None)
    deliver_posted_events()
    w.runner.wait()
    w.scene.select_nodes(["i"])
    assert w.properties.widgets["overridable"].isChecked()
    save_shot(w.properties_dock, "interface/overridable_imported")


def test_a_click_makes_a_literal_a_graph_input_with_a_default_one_undo_step(window):
    w = window
    open_example(w, "gather11_examples")
    literal = next(n for n in w.graph.nodes if n.kind == "literal" and n.value.dtype.kind == "i")
    assert literal.name not in _inputs(w.graph)
    w.scene.select_nodes([literal.id])
    box = w.properties.widgets["overridable"]
    assert not box.isChecked()
    _click(box)
    assert w.graph.node(literal.id).overridable and w.undo_action.text() == "Undo Make Overridable"
    assert w.scene.node_item(literal.id).toolTip().count("literal tensor · overridable") == 1   # the block says so
    w.view.centerOn(w.scene.node_item(literal.id))
    save_shot(w.view, "interface/overridable_block")
    model = export_model(w.graph)
    assert literal.name in [i.name for i in model.graph.input]
    feeds = {i.name: w.graph.node(next(n.id for n in w.graph.nodes if n.name == i.name)).example
             for i in model.graph.input if i.name != literal.name}
    outputs = ort_run(model, feeds)
    fed = ort_run(model, {**feeds, literal.name: np.zeros_like(literal.value)})
    assert any(not np.array_equal(outputs[k], fed[k]) for k in outputs)   # the feed replaced the value
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert not w.graph.node(literal.id).overridable and not box.isChecked()   # the panel follows undo
    assert "overridable" not in w.scene.node_item(literal.id).toolTip()
    assert literal.name not in _inputs(w.graph)
    input_id = w.edits.add_block("input", QtCore.QPointF(0, 800))
    assert w.properties.node_id == input_id and "overridable" not in w.properties.widgets
