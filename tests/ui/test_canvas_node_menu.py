"""A node's right-click menu: Rename (in place), Help for the operator (its formula and the
ONNX page), Bypass (greyed, passes data through; refused with the reason for a gather) and
Collapse; each driven through the real menu and keys, undoable, and saved in the file."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import Graph, load_graph, save_graph

from .helpers import deliver_posted_events, keys, save_shot


def _menu_on(window, node_id):
    """Right-click the node's title; returns the menu shown."""
    item = window.scene.node_item(node_id)
    at = window.view.mapFromScene(item.mapToScene(QtCore.QPointF(60, 10)))
    event = QtGui.QContextMenuEvent(QtGui.QContextMenuEvent.Reason.Mouse, at, window.view.viewport().mapToGlobal(at))
    QtWidgets.QApplication.sendEvent(window.view.viewport(), event)
    menu = window.canvas_menu.menu
    assert menu.isVisible()
    return menu


def _action(menu, text):
    return next(a for a in menu.actions() if a.text().replace("&", "").startswith(text))


def scatter_graph():
    """data 2x3 of zeros, indices [[1, 0, 2]], updates [[7, 8, 9]] -> ScatterElements 'write' -> out."""
    g = Graph("menu test")
    g.add_literal(np.zeros((2, 3), np.float32), name="data", node_id="data", position=(0, 0))
    g.add_literal(np.array([[1, 0, 1]], np.int64), name="idx", node_id="idx", position=(0, 130))
    g.add_literal(np.array([[7, 8, 9]], np.float32), name="upd", node_id="upd", position=(0, 260))
    g.add_operator("ScatterElements", node_id="write", name="write", position=(320, 60))
    g.add_output("out", node_id="out", position=(640, 60))
    for src, port in (("data", "data"), ("idx", "indices"), ("upd", "updates")):
        g.connect(src, "output", "write", port)
    g.connect("write", "output", "out", "value")
    return g


def _show(window, graph, qtbot):
    window.set_document(graph, None)
    deliver_posted_events()                 # the opening frame (a zero-delay timer)
    window.view.resetTransform()
    window.view.centerOn(360, 140)
    window.runner.wait()


def test_the_node_menu_offers_rename_help_bypass_and_collapse(small):
    menu = _menu_on(small, "g")
    texts = [a.text().replace("&", "") for a in menu.actions() if a.text()]
    assert texts[:2] == ["Rename…", "Help for Gather"]
    assert {"Bypass", "Collapse", "New Frame Around Selection"} <= set(texts)
    menu.close()


def test_the_menu_key_opens_the_selected_nodes_menu_at_the_node(small):
    """The Menu key (Shift+F10) opened the canvas menu at the view's corner, without the
    node's Rename, Help, Bypass or Collapse: Help for This Operator had no keyboard way."""
    w = small
    w.scene.clearSelection()
    w.scene.node_item("g").setSelected(True)
    corner = QtCore.QPoint(2, 2)
    event = QtGui.QContextMenuEvent(QtGui.QContextMenuEvent.Reason.Keyboard, corner,
                                    w.view.viewport().mapToGlobal(corner))
    QtWidgets.QApplication.sendEvent(w.view.viewport(), event)
    menu = w.canvas_menu.menu
    assert menu.isVisible()
    texts = [a.text().replace("&", "") for a in menu.actions() if a.text()]
    assert texts[:2] == ["Rename…", "Help for Gather"]
    node = w.view.mapFromScene(w.scene.node_item("g").sceneBoundingRect()).boundingRect()
    assert node.adjusted(-4, -4, 4, 4).contains(w.view.viewport().mapFromGlobal(menu.pos()))   # at the node
    menu.close()


def test_rename_edits_the_title_in_place_and_is_undoable(small, qtbot):
    w = small
    menu = _menu_on(w, "g")
    _action(menu, "Rename").trigger()
    menu.close()
    editor = w.node_actions.editor
    assert editor.isVisible() and editor.hasFocus() and editor.text() == "g"
    title = w.view.mapFromScene(w.scene.node_item("g").mapToScene(QtCore.QPointF(60, 12)))
    assert editor.geometry().contains(title)                   # over the node's title
    QTest.keyClicks(editor, "pick rows")                       # replaces the selected text
    QTest.keyClick(editor, QtCore.Qt.Key.Key_Return)
    assert w.graph.node("g").name == "pick rows" and not editor.isVisible()
    assert w.undo_action.text() == "Undo Rename"
    w.undo_stack.undo()
    assert w.graph.node("g").name == "g"
    # F2 on the canvas, then Esc: nothing changes
    w.scene.select_nodes(["g"])
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_F2)
    assert editor.isVisible()
    QTest.keyClicks(editor, "dropped")
    QTest.keyClick(editor, QtCore.Qt.Key.Key_Escape)
    assert w.graph.node("g").name == "g" and not editor.isVisible()


def test_help_shows_the_formula_for_this_node_and_the_onnx_page(small, qtbot):
    w = small
    w.graph.connect("data", "output", "g", "data")       # data rank 2,
    w.graph.connect("idx", "output", "g", "indices")     # indices rank 1, axis 0
    menu = _menu_on(w, "g")
    _action(menu, "Help for Gather").trigger()
    menu.close()
    (dialog,) = w.node_actions.help_dialogs
    assert dialog.isVisible() and "Gather" in dialog.windowTitle()
    # the spec's formula for these ranks: output[i, b] = data[indices[i], b]
    assert dialog.formula.text() == "output[i, b] = data[indices[i], b]"
    page = " ".join(dialog.page_text().split())
    assert "gather entries of the axis dimension of data" in page    # the ONNX Gather page
    save_shot(dialog, "canvas/operator_help")
    dialog.close()


def test_a_gather_cannot_be_bypassed_and_the_menu_says_why(small):
    menu = _menu_on(small, "g")
    bypass = _action(menu, "Bypass")
    assert not bypass.isEnabled()
    assert "Gather cannot be bypassed" in bypass.toolTip() and "indices" in bypass.toolTip()
    assert menu.toolTipsVisible()
    menu.close()


def test_bypass_passes_the_data_through_greys_the_node_and_is_saved(window, qtbot, tmp_path):
    w = window
    _show(w, scatter_graph(), qtbot)
    expected = np.zeros((2, 3), np.float32)
    expected[1, 0], expected[0, 1], expected[1, 2] = 7, 8, 9                  # ScatterElements axis 0
    np.testing.assert_array_equal(w.runner.value("out"), expected)
    header = w.view.mapFromScene(w.scene.node_item("write").mapToScene(QtCore.QPointF(150, 5)))
    orange = w.view.viewport().grab().toImage().pixelColor(header)
    menu = _menu_on(w, "write")
    bypass = _action(menu, "Bypass")
    assert bypass.isEnabled()
    bypass.trigger()
    menu.close()
    w.runner.wait()
    qtbot.waitUntil(lambda: w.runner.value("out") is not None, timeout=10000)
    np.testing.assert_array_equal(w.runner.value("out"), np.zeros((2, 3), np.float32))   # data, unchanged
    greyed = w.view.viewport().grab().toImage().pixelColor(header)
    assert orange.saturation() > 120 and greyed.saturation() < 60               # drawn grey now
    save_shot(w.view, "canvas/bypassed")
    path = tmp_path / "g.ifg.json"
    save_graph(w.graph, path)
    assert load_graph(path).node("write").bypassed
    w.undo_stack.undo()                                  # Ctrl+Z: switched on again
    w.runner.wait()
    qtbot.waitUntil(lambda: w.runner.value("out") is not None, timeout=10000)
    np.testing.assert_array_equal(w.runner.value("out"), expected)


def test_ctrl_b_toggles_bypass_on_the_selected_scatter(window, qtbot):
    w = window
    _show(w, scatter_graph(), qtbot)
    w.scene.select_nodes(["write"])
    w.view.setFocus()
    keys(w.view, "Ctrl+B")
    assert w.graph.node("write").bypassed and w.undo_action.text() == "Undo Bypass write"
    keys(w.view, "Ctrl+B")
    assert not w.graph.node("write").bypassed


def test_collapse_draws_the_title_only_keeps_the_wires_attached_and_is_saved(window, qtbot, tmp_path):
    w = window
    _show(w, scatter_graph(), qtbot)
    item = w.scene.node_item("write")
    tall = item.sceneBoundingRect().height()
    menu = _menu_on(w, "write")
    _action(menu, "Collapse").trigger()
    menu.close()
    assert w.graph.node("write").collapsed
    assert item.sceneBoundingRect().height() < tall / 2
    assert not any(port.isVisible() for port in item.ports.values())
    # every wire ends on the collapsed title row
    title_row = item.mapRectToScene(QtCore.QRectF(-2, -2, item.boundingRect().width(), 30))
    for port in ("data", "indices", "updates"):
        end = w.scene.edge_item("write", port).path().pointAtPercent(1.0)
        assert title_row.contains(end), port
    assert title_row.contains(w.scene.edge_item("out", "value").path().pointAtPercent(0.0))
    save_shot(w.view, "canvas/collapsed")
    save_graph(w.graph, tmp_path / "c.ifg.json")
    assert load_graph(tmp_path / "c.ifg.json").node("write").collapsed
    w.scene.select_nodes(["write"])
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_H)                    # H expands it again
    assert not w.graph.node("write").collapsed
    assert item.sceneBoundingRect().height() == tall
    w.undo_stack.undo()
    assert w.graph.node("write").collapsed
