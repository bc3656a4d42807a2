"""Training in the property panel, the palette and on the canvas: an operator's training
switch and loss coefficient, a source's trainable flag, a Loss node's kind (each one undo
step), the Loss block, the badges on nodes and the gradient halo on wires in training mode."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph.losses import LossKind
from nodeeditor.ui.canvas import style
from nodeeditor.ui.canvas.node_item import training_marks

from .helpers import deliver_posted_events, keys, open_example, save_shot


def _type_in(box: QtWidgets.QAbstractSpinBox, text: str) -> None:
    box.setFocus()
    box.lineEdit().selectAll()
    QTest.keyClicks(box, text)
    QTest.keyClick(box, QtCore.Qt.Key.Key_Return)


def _click(box: QtWidgets.QCheckBox) -> None:
    QTest.mouseClick(box, QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(8, box.height() // 2))


def test_an_operators_training_switch_and_coefficient_are_one_undo_step_each(window, qtbot):
    w = window
    open_example(w, "train_embedding")
    w.scene.select_nodes(["lookup"])
    box, coefficient = w.properties.widgets["training"], w.properties.widgets["loss_coefficient"]
    assert box.isChecked() and coefficient.value() == 1.0
    _click(box)
    assert w.graph.node("lookup").training is False
    assert w.undo_action.text() == "Undo Training Off"
    assert [m for m, _ in training_marks(w.graph.node("lookup"))] == [style.TrainingMark.TRAINING_OFF]
    assert not coefficient.isEnabled()                  # no gradient leaves it: nothing to scale
    assert "training off" in w.scene.node_item("lookup").toolTip()
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert w.graph.node("lookup").training is True and box.isChecked()   # the panel follows undo
    _type_in(coefficient, "0.25")
    assert w.graph.node("lookup").loss_coefficient == 0.25
    assert w.undo_action.text() == "Undo Change Loss Coefficient"
    assert training_marks(w.graph.node("lookup")) == [(style.TrainingMark.COEFFICIENT, "∇ ×0.25")]
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert w.graph.node("lookup").loss_coefficient == 1.0 and coefficient.value() == 1.0
    save_shot(w.properties_dock, "training/properties_operator")


def test_a_foreign_ops_training_switch_and_coefficient_are_in_its_panel(window, qtbot):
    """A foreign op the backward pass goes through (Relu) has the operator's Training switch and
    Loss coefficient in the panel and the same badges; one without a gradient rule (Erf) has
    neither."""
    import numpy as np

    from nodeeditor.graph import Graph
    from nodeeditor.onnx_io.foreign_ops import new_foreign_node

    g = Graph("foreign", opset=18)
    g.add_literal(np.array([1.0, -2.0]), name="x", node_id="x", position=(0, 0))
    g.add_node(new_foreign_node("Relu", node_id="relu", position=(300, 0)))
    g.add_node(new_foreign_node("Erf", node_id="erf", position=(600, 0)))
    g.connect("x", "output", "relu", g.node("relu").input_ports()[0])
    g.connect("relu", g.node("relu").output_ports()[0], "erf", g.node("erf").input_ports()[0])
    w = window
    w.set_document(g, None)
    w.runner.wait()
    w.scene.select_nodes(["relu"])
    box, coefficient = w.properties.widgets["training"], w.properties.widgets["loss_coefficient"]
    _click(box)
    assert w.graph.node("relu").training is False and w.undo_action.text() == "Undo Training Off"
    assert [m for m, _ in training_marks(w.graph.node("relu"))] == [style.TrainingMark.TRAINING_OFF]
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert w.graph.node("relu").training is True and box.isChecked()
    _type_in(coefficient, "0.5")
    assert training_marks(w.graph.node("relu")) == [(style.TrainingMark.COEFFICIENT, "∇ ×0.5")]
    save_shot(w.properties_dock, "training/properties_foreign")
    w.scene.select_nodes(["erf"])
    assert "training" not in w.properties.widgets and "loss_coefficient" not in w.properties.widgets


def test_literal_generator_and_file_sources_can_be_marked_trainable_graph_inputs_cannot(window):
    w = window
    open_example(w, "train_embedding")
    w.scene.select_nodes(["table"])                     # a generator, trainable in the example
    box = w.properties.widgets["trainable"]
    assert box.isChecked()
    assert training_marks(w.graph.node("table"))[0][0] is style.TrainingMark.TRAINABLE
    _click(box)
    assert w.graph.node("table").trainable is False and training_marks(w.graph.node("table")) == []
    assert w.undo_action.text() == "Undo Mark Not Trainable"
    w.scene.select_nodes(["targets"])                    # a literal
    _click(w.properties.widgets["trainable"])
    assert w.graph.node("targets").trainable is True
    node_id = w.edits.add_block("file", QtCore.QPointF(0, 600))
    assert "trainable" in w.properties.widgets
    node_id = w.edits.add_block("input", QtCore.QPointF(0, 800))
    assert w.properties.node_id == node_id and "trainable" not in w.properties.widgets


def test_the_loss_block_adds_a_loss_whose_kind_the_panel_changes(window):
    w = window
    open_example(w, "train_embedding")
    item = w.palette.item("loss")
    assert item.parent().text(0) == "Training"
    node_id = w.edits.add_block("loss", QtCore.QPointF(600, 500))
    node = w.graph.node(node_id)
    assert node.kind == "loss" and node.loss is LossKind.MEAN_SQUARED_ERROR
    combo = w.properties.widgets["loss_kind"]
    assert [combo.itemText(i) for i in range(combo.count())] == [k.title for k in LossKind]
    combo.setCurrentIndex(combo.findData(LossKind.SUM))
    assert w.graph.node(node_id).loss is LossKind.SUM
    assert w.undo_action.text() == "Undo Change Loss" and "sum(prediction)" in w.properties.widgets["loss_hint"].text()
    w.undo_stack.undo()
    assert w.graph.node(node_id).loss is LossKind.MEAN_SQUARED_ERROR
    assert combo.currentData() is LossKind.MEAN_SQUARED_ERROR          # the panel follows undo
    assert "loss · mean squared error" in w.scene.node_item(node_id).toolTip()


def test_training_mode_draws_the_wires_that_carry_a_gradient(window):
    w = window
    open_example(w, "train_embedding")
    assert w.scene.gradient_wires() == []                 # not in training mode
    w.scene.set_training_mode(True)
    assert {(e.src, e.dst) for e in w.scene.gradient_wires()} == {("table", "lookup"), ("lookup", "loss")}
    assert w.scene.edge_item("lookup", "data").gradient and not w.scene.edge_item("lookup", "indices").gradient
    w.graph.set_training("lookup", False)                 # the wires follow the graph
    assert {(e.src, e.dst) for e in w.scene.gradient_wires()} == {("lookup", "loss")}
    w.graph.set_trainable("table", False)
    assert w.scene.gradient_wires() == []
    w.graph.set_trainable("table", True)
    w.graph.set_training("lookup", True)
    deliver_posted_events()
    save_shot(w.view, "training/canvas_gradient_wires")
    w.scene.set_training_mode(False)
    assert w.scene.gradient_wires() == []
