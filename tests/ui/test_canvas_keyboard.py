"""Building a graph without the mouse: select a node by keyboard (Ctrl+Tab, Ctrl+Shift+Tab,
] and [ cycle through the nodes in reading order and centre the view on the one selected),
move the selection with the arrow keys (Shift: a larger step; a burst of presses is one
undo step), and the keys are listed for the shortcuts dialog."""
from __future__ import annotations

import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.ui.canvas import view as V

from .helpers import keys, save_shot

Key = QtCore.Qt.Key
SHIFT = QtCore.Qt.KeyboardModifier.ShiftModifier


def _focus(w, qtbot):
    w.activateWindow()
    w.view.setFocus()
    qtbot.waitUntil(lambda: w.view.hasFocus(), timeout=10000)


def _centred(w, nid) -> bool:
    centre = w.view.mapToScene(w.view.viewport().rect().center())
    return QtCore.QLineF(centre, w.scene.node_item(nid).sceneBoundingRect().center()).length() < 2


def test_ctrl_tab_cycles_the_selection_in_reading_order_and_centres_it(small, qtbot):
    w = small
    _focus(w, qtbot)
    w.scene.clearSelection()
    order = []
    for _ in range(5):
        keys(w.view, "Ctrl+Tab")
        ids = w.scene.selected_node_ids()
        assert len(ids) == 1
        assert _centred(w, ids[0])
        order.append(ids[0])
    # columns left to right, top to bottom in a column, then round again
    assert order == ["data", "idx", "g", "out", "data"]
    assert not w.quick_add.isVisible()          # Ctrl+Tab is not quick add
    keys(w.view, "Ctrl+Shift+Tab")
    assert w.scene.selected_node_ids() == ["out"] and _centred(w, "out")
    QTest.keyClick(w.view, Key.Key_BracketLeft)
    assert w.scene.selected_node_ids() == ["g"]
    QTest.keyClick(w.view, Key.Key_BracketRight)
    assert w.scene.selected_node_ids() == ["out"]
    assert w.properties.node_id == "out"        # the selection is a real one: the panel follows
    save_shot(w.view, "canvas/keyboard_cycled")
    QTest.keyClick(w.view, Key.Key_Tab)         # plain Tab is still quick add
    assert w.quick_add.isVisible()
    QTest.keyClick(w.quick_add.field, Key.Key_BracketRight)   # typing in the box is typing
    assert w.quick_add.field.text() == "]" and w.scene.selected_node_ids() == ["out"]
    QTest.keyClick(w.quick_add.field, Key.Key_Escape)


def test_arrow_keys_move_the_selection_one_undo_step_per_burst(small, qtbot, monkeypatch):
    w = small
    _focus(w, qtbot)
    # presses closer together than NUDGE_BURST_MS are one burst: a long one here, so that a
    # busy machine pausing between two presses cannot split the burst
    monkeypatch.setattr(V, "NUDGE_BURST_MS", 60_000)
    w.scene.select_nodes(["g"])
    start = w.graph.node("g").position
    for _ in range(3):
        QTest.keyClick(w.view, Key.Key_Right)
    QTest.keyClick(w.view, Key.Key_Down, SHIFT)
    x, y = w.graph.node("g").position
    assert (x - start[0], y - start[1]) == (3 * V.NUDGE_STEP, V.NUDGE_BIG_STEP)
    assert w.scene.node_item("g").pos() == QtCore.QPointF(x, y)
    assert w.undo_stack.count() == 1            # one burst, one step
    save_shot(w.view, "canvas/keyboard_moved")
    keys(w.view, "Ctrl+Z")
    assert w.graph.node("g").position == start
    assert w.scene.node_item("g").pos() == QtCore.QPointF(*start)
    keys(w.view, "Ctrl+Shift+Z")
    assert w.graph.node("g").position == (x, y)
    # a pause longer than a burst starts a new burst: a second undo step
    monkeypatch.setattr(V, "NUDGE_BURST_MS", 200)
    pause = QtCore.QElapsedTimer()
    pause.start()
    qtbot.waitUntil(lambda: pause.elapsed() > V.NUDGE_BURST_MS, timeout=10000)
    QTest.keyClick(w.view, Key.Key_Left)
    assert w.undo_stack.count() == 2
    # two nodes move together; their edges follow
    w.graph.connect("data", "output", "g", "data")
    w.runner.wait()
    w.scene.select_nodes(["data", "idx"])
    before = {n: w.graph.node(n).position for n in ("data", "idx")}
    QTest.keyClick(w.view, Key.Key_Up)
    for n in ("data", "idx"):
        assert w.graph.node(n).position == (before[n][0], before[n][1] - V.NUDGE_STEP)
    edge = w.scene.edge_item("g", "data")
    assert edge.path().pointAtPercent(0) == w.scene.node_item("data").port_scene_pos("output", True)


def test_arrows_with_nothing_selected_pan_and_change_nothing(small, qtbot):
    w = small
    _focus(w, qtbot)
    w.scene.clearSelection()
    before = w.view.mapToScene(w.view.viewport().rect().center())
    QTest.keyClick(w.view, Key.Key_Right)
    assert w.view.mapToScene(w.view.viewport().rect().center()).x() > before.x()
    assert w.undo_stack.count() == 0


def test_the_new_keys_are_actions_and_help_rows(small):
    w = small
    texts = {a.text(): a.shortcuts() for a in w.view.actions()}
    assert "Select &Next Node" in texts and "Select &Previous Node" in texts
    assert any("Arrow keys" in k for k, _ in V.KEYBOARD_HELP)


def test_ctrl_plus_and_ctrl_minus_zoom_about_the_middle_of_the_view(small, qtbot):
    """Only the wheel zoomed (Ctrl++, Ctrl+=, Ctrl+- did nothing): View > Zoom In / Out now do,
    a wheel notch each, the scene point in the middle of the view staying there."""
    w = small
    _focus(w, qtbot)
    view = w.view
    middle = view.mapToScene(view.viewport().rect().center())
    before = view.zoom
    keys(view, "Ctrl++")
    assert view.zoom == pytest.approx(before * 1.15)
    keys(view, "Ctrl+=")
    assert view.zoom == pytest.approx(before * 1.15 ** 2)
    keys(view, "Ctrl+-")
    assert view.zoom == pytest.approx(before * 1.15)
    after = view.mapToScene(view.viewport().rect().center())
    assert abs(after.x() - middle.x()) < 2 / view.zoom and abs(after.y() - middle.y()) < 2 / view.zoom
    assert w.zoom_in_action in w.menuBar().actions()[2].menu().actions()          # in View
