"""A foreign ONNX node in the property panel and on the canvas: its attributes as typed fields
(a spin box for an int, text fields for floats, strings and lists, a read-only summary for a
tensor), each edit one undo step, the port types ONNX shape inference gives after the edit.
Expected values come from the ONNX spec, computed here with numpy (Transpose permutes the
shape by ``perm``, Concat is ``np.concatenate``, LeakyRelu is ``x if x >= 0 else alpha * x``)."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import Graph
from nodeeditor.graph import nodes as N
from nodeeditor.graph.foreign import AttrKind
from nodeeditor.onnx_io import import_model
from nodeeditor.onnx_io.foreign_ops import new_foreign_node

from ..onnx_io.realistic import kv_cache_model
from .helpers import LEFT, NOMOD, deliver_posted_events, save_shot

Key = QtCore.Qt.Key


def _click_node(window, node_id: str) -> None:
    rect = window.scene.node_item(node_id).sceneBoundingRect()
    window.view.centerOn(rect.center())
    point = window.view.mapFromScene(QtCore.QPointF(rect.center().x(), rect.top() + 8))
    QTest.mouseClick(window.view.viewport(), LEFT, NOMOD, point)


def _open(window, graph: Graph) -> None:
    window.set_document(graph, None)
    deliver_posted_events()           # the opening frame (a zero-delay timer)
    window.runner.wait()


def _select(window, qtbot, node_id: str) -> None:
    _click_node(window, node_id)
    qtbot.waitUntil(lambda: window.properties.node_id == node_id, timeout=10000)


def _type_into(edit: QtWidgets.QLineEdit, text: str) -> None:
    edit.setFocus()
    QTest.keyClick(edit, Key.Key_A, QtCore.Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, Key.Key_Return)


def _by_op(graph: Graph, op_type: str) -> N.ForeignNode:
    return next(n for n in graph.nodes if isinstance(n, N.ForeignNode) and n.op_type == op_type)


def test_editing_transposes_perm_is_one_undo_step_and_the_port_shows_the_new_inferred_type(window, qtbot):
    w = window
    _open(w, import_model(kv_cache_model()))
    transpose = _by_op(w.graph, "Transpose")
    _select(w, qtbot, transpose.id)
    field = w.properties.widgets["attr:perm"]
    assert isinstance(field, QtWidgets.QLineEdit) and field.text() == "0, 1, 3, 2"
    data_type = w.graph.node_info(w.graph.edge_into(transpose.id, "data").src).outputs["output"]
    permuted = [data_type.shape[p] for p in (0, 1, 3, 2)]      # Transpose: output dim i = input dim perm[i]
    item = w.scene.node_item(transpose.id)
    assert item.port_label("transposed", True)[0] == f"float32[{', '.join(map(str, permuted))}]"
    assert "perm=[0, 1, 3, 2]" in w.scene.node_item(transpose.id).toolTip().replace(" = ", "=")

    _type_into(field, "0, 1, 2, 3")
    assert transpose.attributes["perm"].kind is AttrKind.INTS
    assert w.graph.node(transpose.id).attributes["perm"].value == (0, 1, 2, 3)
    identity = [data_type.shape[p] for p in (0, 1, 2, 3)]
    assert item.port_label("transposed", True)[0] == f"float32[{', '.join(map(str, identity))}]"
    assert "out <b>transposed</b>: <tt>float32[batch, 2, 8, 4]</tt>" in w.properties.widgets["types"].text()
    assert w.undo_stack.count() == 1 and w.undo_action.text() == "Undo Change perm"
    card = w.scene.card                    # the pointer is still over the node: its card follows the edit
    assert card is not None and card.node_id == transpose.id
    assert ("out transposed", "float32[batch, 2, 8, 4]") in card.rows and "perm=[0, 1, 2, 3]" in card.subtitle
    w.runner.wait()
    deliver_posted_events()                # the layout of the rows the edit changed
    save_shot(w, "onnx/foreign_properties_transpose")

    w.view.setFocus()
    QTest.keySequence(w.view, QtGui.QKeySequence("Ctrl+Z"))
    assert w.graph.node(transpose.id).attributes["perm"].value == (0, 1, 3, 2)
    assert item.port_label("transposed", True)[0] == f"float32[{', '.join(map(str, permuted))}]"
    assert w.properties.widgets["attr:perm"].text() == "0, 1, 3, 2"


def test_a_text_that_is_not_a_list_of_ints_changes_nothing_and_says_which_element(window, qtbot):
    w = window
    _open(w, import_model(kv_cache_model()))
    transpose = _by_op(w.graph, "Transpose")
    _select(w, qtbot, transpose.id)
    _type_into(w.properties.widgets["attr:perm"], "0, 1, x, 2")
    assert w.graph.node(transpose.id).attributes["perm"].value == (0, 1, 3, 2)
    assert w.undo_stack.count() == 0
    message = w.statusBar().currentMessage()
    assert "perm not changed" in message and "element 3" in message and "'x' is not an integer" in message


def test_concats_axis_is_a_spin_box_whose_steps_merge_and_the_run_follows(window, qtbot):
    w = window
    _open(w, import_model(kv_cache_model()))
    concat = next(n for n in w.graph.nodes if isinstance(n, N.ForeignNode) and n.op_type == "Concat"
                  and len(n.inputs) == 3)
    _select(w, qtbot, concat.id)
    box = w.properties.widgets["attr:axis"]
    assert isinstance(box, QtWidgets.QSpinBox) and box.value() == -1
    box.setFocus()
    QTest.keyClick(box, Key.Key_Down)
    QTest.keyClick(box, Key.Key_Down)
    assert w.graph.node(concat.id).attributes["axis"].value == -3
    assert w.undo_stack.count() == 1 and w.undo_action.text() == "Undo Change axis"
    w.runner.wait()
    parts = [w.runner.value(w.graph.edge_into(concat.id, p).src) for p in concat.inputs]
    np.testing.assert_array_equal(w.runner.value(concat.id), np.concatenate(parts, axis=-3))


def test_an_unset_float_shows_its_default_and_setting_then_resetting_it_changes_the_result(window, qtbot):
    x = np.array([-2.0, -0.5, 0.0, 3.0], np.float32)
    g = Graph(name="leaky")
    g.add_literal(x, name="x", node_id="x", position=(0, 0))
    g.add_node(new_foreign_node("LeakyRelu", node_id="leaky", position=(320, 0)))
    g.add_output("y", node_id="y", position=(640, 0))
    g.connect("x", "output", "leaky", "X")
    g.connect("leaky", "Y", "y", "value")
    w = window
    _open(w, g)
    _select(w, qtbot, "leaky")
    alpha = w.properties.widgets["attr:alpha"]
    assert alpha.text() == "" and alpha.placeholderText() == "0.01 (default)"   # the schema's default
    assert not w.properties.widgets["attr:alpha:default"].isVisible()
    np.testing.assert_allclose(w.runner.value("leaky"), np.where(x >= 0, x, np.float32(0.01) * x), rtol=1e-6)

    _type_into(alpha, "0.2")
    assert w.graph.node("leaky").attributes["alpha"].value == 0.2
    w.runner.wait()
    np.testing.assert_allclose(w.runner.value("leaky"), np.where(x >= 0, x, np.float32(0.2) * x), rtol=1e-6)
    reset = w.properties.widgets["attr:alpha:default"]
    qtbot.waitUntil(reset.isVisible, timeout=10000)
    QTest.mouseClick(reset, LEFT)
    assert "alpha" not in w.graph.node("leaky").attributes
    w.runner.wait()
    np.testing.assert_allclose(w.runner.value("leaky"), np.where(x >= 0, x, np.float32(0.01) * x), rtol=1e-6)
    assert w.undo_stack.count() == 2


def test_a_constants_tensor_is_a_read_only_summary_and_its_value_shows_on_the_canvas(window, qtbot):
    w = window
    _open(w, import_model(kv_cache_model()))
    const = next(n for n in w.graph.nodes if isinstance(n, N.ForeignNode) and n.name == "const axes p")
    _select(w, qtbot, const.id)
    summary = w.properties.widgets["attr:value"]
    assert isinstance(summary, QtWidgets.QLabel) and summary.text() == "int64[3] [0, 1, 3]"
    about = w.properties.widgets["foreign:about"].text()
    assert about.startswith("ai.onnx · Constant-") and "at opset 18" in about
    from nodeeditor.ui.canvas.node_item import subtitle_of

    assert subtitle_of(w.graph.node(const.id), w.graph.opset) == "ONNX · Constant · value=int64[3] [0, 1, 3]"
    save_shot(w.properties, "onnx/foreign_properties_constant")
