"""Quick add (Tab) near the canvas edge: the new block lands fully inside the view, as near
the pointer as fits, instead of centred on the pointer and half off-screen."""
from __future__ import annotations

import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from .helpers import save_shot


@pytest.mark.parametrize("corner", ["bottom_right", "top_left"])
def test_tab_at_the_edge_adds_a_block_fully_visible(small, qtbot, corner):
    w = small
    vp = w.view.viewport()
    r = vp.rect()
    at = QtCore.QPoint(r.right() - 6, r.bottom() - 6) if corner == "bottom_right" else QtCore.QPoint(4, 4)
    QTest.mouseMove(vp, at)
    qtbot.waitUntil(lambda: w.view.cursor_scene_pos() == w.view.mapToScene(at), timeout=10000)
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Tab)
    assert w.quick_add.isVisible()
    QTest.keyClicks(w.quick_add.field, "scatterelements")
    QTest.keyClick(w.quick_add.field, QtCore.Qt.Key.Key_Return)
    new = w.scene.selected_node_ids()
    assert len(new) == 1 and w.graph.node(new[0]).op == "ScatterElements"
    item = w.scene.node_item(new[0])

    def fully_in_view():
        visible = w.view.mapToScene(r).boundingRect()
        assert visible.contains(item.mapRectToScene(item.shape().boundingRect())), (visible, item.sceneBoundingRect())

    qtbot.waitUntil(fully_in_view, timeout=10000)
    save_shot(w.view, f"canvas/quick_add_{corner}")
    # and near the pointer: it touches the corner region where Tab was pressed
    pointer = w.view.mapToScene(at)
    assert QtCore.QLineF(item.sceneBoundingRect().center(), pointer).length() < 260
    w.undo_stack.undo()                      # one undo step removes it
    assert not w.graph.has_node(new[0])


def test_the_box_closes_when_the_focus_leaves_it(small, qtbot):
    """Tab from the field to the list and on to the palette left the box drawn over the nodes."""
    w = small
    w.activateWindow()
    w.view.setFocus()
    qtbot.waitUntil(lambda: w.view.hasFocus(), timeout=10000)
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: w.quick_add.isVisible() and w.quick_add.field.hasFocus(), timeout=10000)
    QTest.keyClick(w.quick_add.field, QtCore.Qt.Key.Key_Tab)      # to its list: the box stays
    assert w.quick_add.isVisible() and w.quick_add.list.hasFocus()
    w.palette.search_field.setFocus()                              # anywhere else: it goes
    qtbot.waitUntil(lambda: not w.quick_add.isVisible(), timeout=10000)
