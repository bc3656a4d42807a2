"""Framing (F, Ctrl+0, opening a file) on graphs too tall or wide to fit at a readable
zoom: the view stops at 0.55x and shows the top-left corner of the nodes' box instead of
shrinking them to dots. Keys are real key presses on the view."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.graph import Graph, save_graph
from nodeeditor.ui.app import create_main_window

from .helpers import deliver_posted_events, keys

READABLE = 0.55     # the documented minimum framing zoom
MARGIN = 40         # scene units framed around the nodes


def column(n: int, step: float = 200.0, x: float = 0.0) -> Graph:
    """n literals stacked downwards from (x, 0), ``step`` apart: far too tall to fit."""
    g = Graph(name="tall")
    for i in range(n):
        g.add_literal(np.array([i], np.int64), name=f"n{i}", node_id=f"n{i}", position=(x, i * step))
    return g


def row(n: int, step: float = 400.0) -> Graph:
    g = Graph(name="wide")
    for i in range(n):
        g.add_literal(np.array([i], np.int64), name=f"n{i}", node_id=f"n{i}", position=(i * step, 0))
    return g


def _viewport_point(w, x, y) -> QtCore.QPoint:
    return w.view.mapFromScene(QtCore.QPointF(x, y))


def test_f_on_a_tall_graph_frames_its_top_at_the_readable_zoom(small):
    w = small
    w.set_document(column(30), None)          # 30 * 200 = 6000 scene units tall
    w.view.resetTransform()
    w.view.centerOn(2000, 2000)               # somewhere else entirely
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_F)
    assert w.view.zoom == pytest.approx(READABLE)
    vp = w.view.viewport().rect()
    top = _viewport_point(w, 0, 0)            # the first node's top-left corner
    # the first node sits at the top, one margin (plus the item's 4 px outline) below the edge
    assert top.y() == pytest.approx((MARGIN + 4) * READABLE, abs=2)
    # and at the left: the top-left corner of the nodes' box is the view's top-left
    assert top.x() == pytest.approx((MARGIN + 4) * READABLE, abs=2)
    # and the nodes further down are a pan away, not squeezed in
    assert _viewport_point(w, 0, 29 * 200).y() > vp.bottom()


def test_opening_a_wide_graph_frames_its_left_end_and_ctrl_0_shows_all_of_it(small, qtbot):
    """Opening frames readably (the left end at the readable zoom); Frame All (Ctrl+0) is the
    overview the menu promises: every node in view, however small."""
    w = small
    w.set_document(row(10), None)             # 10 * 400 = 4000 scene units wide
    # the opening frame runs on the next event-loop turn (set_document shows 100% until then)
    qtbot.waitUntil(lambda: w.view.zoom == pytest.approx(READABLE), timeout=10000)
    vp = w.view.viewport().rect()
    assert _viewport_point(w, 0, 0).x() == pytest.approx((MARGIN + 4) * READABLE, abs=2)
    assert _viewport_point(w, 0, 0).y() == pytest.approx((MARGIN + 4) * READABLE, abs=2)
    assert _viewport_point(w, 9 * 400, 0).x() > vp.right()
    w.view.setFocus()
    keys(w.view, "Ctrl+0")
    assert w.view.zoom < READABLE
    visible = w.view.mapToScene(vp).boundingRect()
    for item in w.scene.node_items():
        assert visible.contains(item.sceneBoundingRect()), item.node_id


def test_f_with_a_small_selection_of_a_tall_graph_zooms_in_on_it(small):
    w = small
    w.set_document(column(30), None)
    w.scene.select_nodes(["n10", "n11"])
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_F)
    assert w.view.zoom > READABLE
    vp = w.view.viewport().rect()
    for nid in ("n10", "n11"):
        rect = w.view.mapFromScene(w.scene.node_item(nid).sceneBoundingRect()).boundingRect()
        assert vp.contains(rect)
    # a short graph that fits keeps the old behaviour: everything visible, centred
    w.set_document(column(3), None)
    w.scene.clearSelection()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_F)
    assert w.view.zoom > READABLE
    for nid in ("n0", "n2"):
        assert vp.contains(w.view.mapFromScene(w.scene.node_item(nid).sceneBoundingRect()).boundingRect())


def test_opening_a_tall_file_shows_its_top_readable(qtbot, dialogs, tmp_path):
    path = tmp_path / "tall.ifg.json"
    save_graph(column(40, x=500), path)
    w = create_main_window(path)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.view.zoom == pytest.approx(READABLE), timeout=10000)
    top_left = _viewport_point(w, 500, 0)
    assert top_left.x() == pytest.approx((MARGIN + 4) * READABLE, abs=2)
    assert top_left.y() == pytest.approx((MARGIN + 4) * READABLE, abs=2)
    w.runner.wait()


def test_every_bundled_example_fits_a_16_by_9_canvas_readably(window):
    """The worked-example pages are grids, not one tall column: in a 1600 x 900 canvas each
    example, framed as when it is opened, shows every node at a readable zoom."""
    w = window
    for dock in (w.palette_dock, w.properties_dock, w.viewer_dock, w.explainer_dock):
        dock.hide()
    w.resize(1600, 900 + w.menuBar().height() + w.statusBar().height())
    deliver_posted_events()                   # laid out without the docks
    vp = w.view.viewport().rect()
    assert vp.width() == pytest.approx(1600, abs=8) and vp.height() == pytest.approx(900, abs=8)
    actions = [a for a in w.examples_menu.actions() if a.data()]
    assert len(actions) == 16
    for action in actions:
        action.trigger()
        deliver_posted_events()               # the opening frame (a zero-delay timer)
        visible = w.view.mapToScene(vp).boundingRect()
        assert w.view.zoom >= READABLE, action.data()
        for item in w.scene.node_items():
            assert visible.contains(item.sceneBoundingRect()), (action.data(), item.node_id)
    w.runner.wait()


@pytest.mark.parametrize("screen,expected", [((1920, 1080), (1480, 900)), ((1366, 768), (1311, 706)),
                                             ((1024, 600), (983, 552))])
def test_a_first_start_fits_the_window_to_the_screen(qtbot, monkeypatch, screen, expected):
    """No saved layout: the preferred 1480x900 window, shrunk to a laptop's or a scaled
    projector's available area so no dock opens off-screen."""
    from PySide6 import QtGui

    monkeypatch.setattr(QtGui.QScreen, "availableGeometry", lambda self: QtCore.QRect(0, 0, *screen))
    w = create_main_window()
    qtbot.addWidget(w)
    assert (w.width(), w.height()) == expected
    w.runner.wait()
