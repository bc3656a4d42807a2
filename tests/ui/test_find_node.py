"""Edit > Find Node (Ctrl+F): type part of a name, Enter: the node is selected, in view and
readable, in a 35-node example where Ctrl+Tab needed two dozen presses."""
from __future__ import annotations

import os

from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.ui.find_node import find_nodes

from .helpers import save_shot

Key = QtCore.Qt.Key


def _ctrl_f(w):
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_F, QtCore.Qt.KeyboardModifier.ControlModifier)


def test_ctrl_f_finds_a_node_by_name_selects_it_and_shows_it_readable(window, qtbot):
    w = window
    w.files.open_example("scatterelements_examples")
    w.frame_all_action.trigger()
    assert w.view.zoom < 1.0
    _ctrl_f(w)
    assert w.find_box.isVisible() and w.find_box.field.hasFocus()
    QTest.keyClicks(w.find_box.field, "red mul")
    QTest.keyClick(w.find_box.field, Key.Key_Return)
    assert not w.find_box.isVisible()
    (nid,) = w.scene.selected_node_ids()
    node = w.graph.node(nid)
    assert node.name == "reduction mul" and node.op == "ScatterElements"
    assert w.view.zoom == 1.0
    item_rect = w.view.mapFromScene(w.scene.node_item(nid).sceneBoundingRect()).boundingRect()
    assert w.view.viewport().rect().contains(item_rect)
    save_shot(w, "window/find_node")


def test_esc_closes_the_find_box_and_changes_nothing(window, qtbot):
    w = window
    before = list(w.scene.selected_node_ids())
    _ctrl_f(w)
    QTest.keyClicks(w.find_box.field, "gath")
    QTest.keyClick(w.find_box.field, Key.Key_Escape)
    assert not w.find_box.isVisible()
    assert list(w.scene.selected_node_ids()) == before
    assert w.isVisible()   # Esc did not reach Run > Cancel or close anything


def test_find_matches_names_operators_and_ids_best_first(window):
    from nodeeditor.graph.examples import load_example

    g = load_example("scatterelements_examples")
    names = [n.name for n in find_nodes(g, "reduction max")]
    assert names[0] == "reduction max"
    assert {n.op for n in find_nodes(g, "ScatterElements") if hasattr(n, "op")} == {"ScatterElements"}
    assert len(find_nodes(g, "")) == len(g.nodes)
    assert find_nodes(g, "zzzz") == []


def test_two_nodes_with_one_name_are_told_apart_by_id_kind_and_position(small, qtbot):
    """Ctrl+F listed two "data" nodes as the same line; now each shows its kind, id and
    position, and Enter on the second goes to that one."""
    w = small
    w.graph.rename_node("idx", "data")                  # two nodes called "data" (a literal each)
    _ctrl_f(w)
    QTest.keyClicks(w.find_box.field, "data")
    box = w.find_box.list
    texts = [box.item(i).text() for i in range(box.count())]
    assert len(texts) == 2 and texts[0] != texts[1]
    assert "data" in texts[0] and "literal" in texts[0] and "at (0, 0)" in texts[0]
    assert "[idx]" in texts[1] and "at (0, 160)" in texts[1]
    assert "[idx]" in box.item(1).toolTip()
    w.graph.rename_node("idx", "positions")             # a name of its own: no id needed
    QTest.keyClicks(w.find_box.field, " ")
    QTest.keyClick(w.find_box.field, Key.Key_Backspace)
    assert "at (" not in box.item(0).text()
    w.graph.rename_node("idx", "data")
    QTest.keyClicks(w.find_box.field, " ")
    QTest.keyClick(w.find_box.field, Key.Key_Backspace)
    QTest.keyClick(w.find_box.field, Key.Key_Down)
    QTest.keyClick(w.find_box.field, Key.Key_Return)
    assert w.scene.selected_node_ids() == ["idx"]
    folder = os.environ.get("INDEXFLOW_SHOTS")
    if folder:
        _ctrl_f(w)
        QTest.keyClicks(w.find_box.field, "data")
        w.grab().save(f"{folder}/find_two_data.png")
