"""Edit > Connect Ports (C): wiring a graph with the keyboard only. The user selects a node
(Ctrl+F), presses C, types part of the other end, Enter; the wire is one undo step. Expected
results come from numpy (``np.take``), not from the engine."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.ui.connect_box import connection_choices
from nodeeditor.ui.help import shortcut_rows

from .helpers import save_shot

Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier


def _find(w, text):
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_F, CTRL)
    QTest.keyClicks(w.find_box.field, text)
    QTest.keyClick(w.find_box.field, Key.Key_Return)


def _connect(w, text):
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_C)
    assert w.connect_box.isVisible() and w.connect_box.field.hasFocus()
    QTest.keyClicks(w.connect_box.field, text)
    QTest.keyClick(w.connect_box.field, Key.Key_Return)
    assert not w.connect_box.isVisible()


def _source_of(w, node, port):
    edge = w.graph.edge_into(node, port)
    return None if edge is None else (edge.src, edge.src_port)


def test_a_gather_wired_and_run_with_the_keyboard_only(small, qtbot):
    w = small
    data = w.graph.node("data").value
    _find(w, "g")  # the Gather
    assert w.scene.selected_node_ids() == ["g"]
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_C)
    labels = [w.connect_box.list.item(i).text() for i in range(w.connect_box.list.count())]
    save_shot(w, "window/connect_box")
    # the Gather's free inputs first (float data is not offered as indices), then its output
    assert labels == ["data ← data · output   float32[3, 4]", "data ← idx · output   int64[2]",
                      "indices ← idx · output   int64[2]", "output → out · value"]   # g's type: not yet known
    QTest.keyClick(w.connect_box.field, Key.Key_Escape)
    assert not w.connect_box.isVisible() and w.graph.edge_into("g", "data") is None

    _connect(w, "data data")
    assert _source_of(w, "g", "data") == ("data", "output")
    assert "Connected data · output → g" in w.statusBar().currentMessage()
    _connect(w, "indi idx")
    assert _source_of(w, "g", "indices") == ("idx", "output")
    _connect(w, "out")
    assert _source_of(w, "out", "value") == ("g", "output")
    w.runner.wait()
    np.testing.assert_array_equal(w.runner.value("out"), np.take(data, [2, 0], axis=0))

    QTest.keyClick(w.view, Key.Key_Z, CTRL)  # one undo step per wire
    assert w.graph.edge_into("out", "value") is None
    assert _source_of(w, "g", "indices") == ("idx", "output")


def test_replace_and_disconnect_are_offered_and_undo_in_one_step(small, qtbot):
    w = small
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.scene.select_nodes(["g"])
    choices = {c.label: c for c in connection_choices(w.graph, "g")}
    assert "data ← idx · output   int64[2]   (replaces data · output)" in choices
    assert "indices ✕ disconnect (from idx · output)" in choices
    assert "output → out · value   float32[2, 4]" in choices
    assert not any(label.startswith("data ← data ·") for label in choices)   # already that wire
    _connect(w, "indices disconnect")
    assert w.graph.edge_into("g", "indices") is None
    assert "Disconnected idx · output → g · indices" in w.statusBar().currentMessage()
    QTest.keyClick(w.view, Key.Key_Z, CTRL)
    assert _source_of(w, "g", "indices") == ("idx", "output")
    _connect(w, "data idx replaces")
    assert _source_of(w, "g", "data") == ("idx", "output")
    QTest.keyClick(w.view, Key.Key_Z, CTRL)
    assert _source_of(w, "g", "data") == ("data", "output")


def test_only_wires_the_graph_accepts_are_offered(window, qtbot):
    """No cycles, no type the input refuses, no port of the node itself."""
    from nodeeditor.graph import Graph

    g = Graph(name="chain")
    g.add_literal(np.arange(6, dtype=np.float32), name="x", node_id="x", position=(0, 0))
    g.add_literal(np.array([1, 0], dtype=np.int64), name="i", node_id="i", position=(0, 100))
    g.add_operator("Gather", {}, node_id="g1", position=(200, 0))
    g.add_operator("Gather", {}, node_id="g2", position=(400, 0))
    g.connect("x", "output", "g1", "data")
    g.connect("g1", "output", "g2", "data")
    for choice in connection_choices(g, "g2"):
        assert not choice.label.startswith("output → g1")  # g2 feeding g1 would be a cycle
        assert choice.src != choice.dst
        if not choice.remove:
            assert g.can_replace(choice.src, choice.src_port, choice.dst, choice.dst_port) is None
    # the float tensor is not offered as indices (the schema wants integers)
    labels = [c.label for c in connection_choices(g, "g2")]
    assert not any(label.startswith("indices ← x ·") for label in labels)
    assert "indices ← i · output   int64[2]" in labels


def test_connect_needs_exactly_one_selected_node(small, qtbot):
    w = small
    w.scene.select_nodes([])
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_C)
    assert not w.connect_box.isVisible()
    assert "Select one node" in w.statusBar().currentMessage()
    w.scene.select_nodes(["data", "idx"])
    QTest.keyClick(w.view, Key.Key_C)
    assert not w.connect_box.isVisible()


def test_c_in_a_text_field_types_a_c(small, qtbot):
    w = small
    w.scene.select_nodes(["g"])
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_F, CTRL)
    QTest.keyClicks(w.find_box.field, "abc")
    assert w.find_box.field.text() == "abc" and not w.connect_box.isVisible()
    QTest.keyClick(w.find_box.field, Key.Key_Escape)


def test_the_node_menu_offers_connect_ports(small, qtbot):
    w = small
    w.scene.select_nodes(["g"])
    menu = w.canvas_menu.popup(QtCore.QPointF(400, 100), w.view.mapToGlobal(QtCore.QPoint(200, 200)))
    assert w.connect_action in menu.actions()
    menu.close()
    w.scene.select_nodes([])
    menu = w.canvas_menu.popup(QtCore.QPointF(400, 100), w.view.mapToGlobal(QtCore.QPoint(200, 200)))
    assert w.connect_action not in menu.actions()
    menu.close()
    rows = {what: keys for keys, what in shortcut_rows(w)}   # Help > Keyboard Shortcuts lists it
    assert rows["Edit > Connect Ports… (on the canvas)"] == "C"
