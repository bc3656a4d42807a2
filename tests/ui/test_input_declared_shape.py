"""A graph input's declared shape in the property panel: ``batch, 4`` types the ports with the
name, one undo step; an example that does not fit is an error on the node; a text that is no
shape changes nothing and says why."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.graph import Graph

from .helpers import keys, save_shot


def _typed(edit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, QtCore.Qt.Key.Key_Return)


def test_typing_batch_4_names_the_dimension_on_every_port_downstream(window, qtbot):
    w = window
    g = Graph(name="declared")
    g.add_input("x", np.zeros((3, 4), np.float32), node_id="x", position=(0, 0))
    g.add_literal(np.array([3, 1], np.int64), name="idx", node_id="idx", position=(0, 160))
    g.add_operator("Gather", {"axis": 1}, node_id="g", position=(320, 60))
    g.add_output("out", node_id="out", position=(640, 60))
    g.connect("x", "output", "g", "data")
    g.connect("idx", "output", "g", "indices")
    g.connect("g", "output", "out", "value")
    w.set_document(g, None)
    w.scene.select_nodes(["x"])
    edit = w.properties.widgets["declared_shape"]
    assert edit.text() == "" and "batch, 4" in edit.placeholderText()
    _typed(edit, "batch, 4")
    assert w.graph.node("x").shape == ("batch", 4)
    item = w.scene.node_item("g")
    assert item.port_label("output", True)[0] == "float32[batch, 2]"     # Gather axis 1 of [batch, 4] by 2
    assert w.undo_action.text() == "Undo Change Declared Shape"
    save_shot(w, "properties/declared_shape")
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert w.graph.node("x").shape is None and edit.text() == ""
    assert item.port_label("output", True)[0] == "float32[3, 2]"
    # an example of 3 x 4 does not fit [batch, 5]: the input says so, nothing is lost
    _typed(edit, "batch, 5")
    assert w.graph.node("x").shape == ("batch", 5)
    assert "5" in (w.graph.node_info("x").error or "")
    # not a shape: nothing changes, the status line says why
    _typed(edit, "4,,3")
    assert w.graph.node("x").shape == ("batch", 5)
    assert "declared shape" in w.statusBar().currentMessage() and edit.text() == "batch, 5"


def test_an_imported_inputs_fixed_shape_goes_with_a_new_example_shape_in_one_undo_step(window, qtbot):
    """A model's input declared float32[2, 3] (kept on import, so run --inputs refuses other
    sizes): typing shape 4, 3 in the value form made the example an error against the
    declared shape, with nothing saying to clear it. The declared shape now goes with it."""
    import onnx
    from onnx import TensorProto, helper

    from nodeeditor.onnx_io import import_model

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g", [x], [y]),
                              opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    w = window
    w.set_document(import_model(model), None)
    w.runner.wait()
    xid = w.graph.find("x").id
    assert w.graph.node(xid).shape == (2, 3)
    w.scene.select_nodes([xid])
    _typed(w.properties.widgets["shape"], "4, 3")
    node = w.graph.node(xid)
    assert node.example.shape == (4, 3) and node.shape is None
    assert str(w.graph.output_type(xid)) == "float32[4, 3]"
    assert "declared shape [2, 3] went with" in w.statusBar().currentMessage()
    w.undo_stack.undo()
    node = w.graph.node(xid)
    assert node.example.shape == (2, 3) and node.shape == (2, 3)
