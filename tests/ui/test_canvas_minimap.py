"""The minimap: in the canvas's corner while the graph is larger than the view; a click on it
moves the view there."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.graph import Graph

from .helpers import LEFT, NOMOD, save_shot


def chains(n: int) -> Graph:
    """``n`` rows of five nodes (data, idx, upd -> GatherElements, ScatterElements), 260 apart."""
    g = Graph("chains")
    for c in range(n):
        y = c * 260
        d = g.add_literal(np.zeros((3, 4), np.float32), name=f"data {c}", position=(0, y))
        i = g.add_literal(np.array([[1, 0, 2, 1]], np.int64), name=f"idx {c}", position=(0, y + 130))
        s = g.add_operator("GatherElements", name=f"gather {c}", position=(300, y))
        u = g.add_literal(np.ones((1, 4), np.float32), name=f"upd {c}", position=(300, y + 150))
        t = g.add_operator("ScatterElements", name=f"scatter {c}", position=(600, y))
        for src, dst, port in ((d, s, "data"), (i, s, "indices"), (d, t, "data"), (i, t, "indices"),
                               (u, t, "updates")):
            g.connect(src, "output", dst, port)
    return g


def test_the_minimap_shows_for_a_graph_larger_than_the_view_and_a_click_moves_there(window, qtbot):
    w = window
    w.set_document(chains(12), None)          # 60 nodes, 3000 units tall
    qtbot.waitUntil(lambda: w.view.zoom < 1.0, timeout=10000)   # the opening frame has run
    minimap = w.view.minimap
    assert minimap.isVisible()
    corner = w.view.viewport().geometry().bottomRight()
    assert (corner - minimap.geometry().bottomRight()).manhattanLength() < 40   # bottom-right
    save_shot(w.view, "canvas/minimap")
    # a click on the minimap where the last row is: the view centres there
    target = w.scene.node_item(w.graph.find("scatter 11").id).sceneBoundingRect().center()
    at = minimap._transform().map(target)
    QTest.mouseClick(minimap, LEFT, NOMOD, QtCore.QPoint(round(at.x()), round(at.y())))
    centre = w.view.mapToScene(w.view.viewport().rect().center())
    assert QtCore.QLineF(centre, target).length() < 40 / minimap._transform().m11()
    assert w.view.mapToScene(w.view.viewport().rect()).boundingRect().contains(target)


def test_no_minimap_while_the_whole_graph_is_in_view(small):
    w = small
    w.view.frame(False)
    assert not w.view.minimap.isVisible()


def _scene_rect_of(minimap, view) -> QtCore.QRectF:
    """The scene area under the minimap where it is now."""
    rect = minimap.geometry().translated(-view.viewport().geometry().topLeft())
    return view.mapToScene(rect).boundingRect()


def _covered(minimap, w) -> list[str]:
    under = _scene_rect_of(minimap, w.view)
    return [nid for nid, box, _sel in w.scene.node_boxes() if box.intersects(under)]


def _minimap_shown(window, qtbot):
    """The sixty-node graph with the view on its first row: the minimap shown, no hint."""
    window.set_document(chains(12), None)
    qtbot.waitUntil(lambda: window.view.zoom < 1.0, timeout=10000)
    minimap, view = window.view.minimap, window.view
    view.centerOn(window.scene.node_item(window.graph.find("gather 0").id).sceneBoundingRect().center())
    qtbot.waitUntil(lambda: minimap.isVisible(), timeout=10000)
    view.hide_overflow_hint()
    return window, minimap, view


def test_the_minimap_leaves_a_corner_where_a_node_is_for_a_free_one(window, qtbot):
    """A node moved under the minimap: it moves to the first corner (bottom right, top right,
    top left, bottom left) that covers no node (it covered nodes: a block's ports and wires
    could not be read or clicked there)."""
    w, minimap, view = _minimap_shown(window, qtbot)
    area = view.viewport().geometry()
    before = minimap.geometry()
    corner = _scene_rect_of(minimap, view)
    node = w.graph.find("upd 5").id
    w.graph.set_position(node, (corner.center().x() - 60, corner.center().y() - 30))   # under the minimap
    minimap.refresh()
    assert minimap.isVisible() and not minimap.covering
    assert _covered(minimap, w) == [] and minimap.geometry() != before
    spots = [QtCore.QRect(QtCore.QPoint(x, y), minimap.size()) for x, y in (
        (area.right() - 212, area.bottom() - 148), (area.right() - 212, area.top() + 12),
        (area.left() + 12, area.top() + 12), (area.left() + 12, area.bottom() - 148))]
    chosen = next(i for i, r in enumerate(spots) if (r.center() - minimap.geometry().center()).manhattanLength() < 4)
    for earlier in spots[:chosen]:   # every corner tried before it covers a node
        under = view.mapToScene(earlier.translated(-area.topLeft())).boundingRect()
        assert any(box.intersects(under) for _nid, box, _sel in w.scene.node_boxes())
    save_shot(w.view, "canvas/minimap-moved")


def test_with_every_corner_taken_the_minimap_stays_bottom_right_and_see_through(window, qtbot):
    w, minimap, view = _minimap_shown(window, qtbot)
    area = view.viewport().geometry()
    spots = minimap._corners()
    assert len(spots) == 4
    names = [f"upd {i}" for i in (1, 3, 5, 7)]
    for spot, name in zip(spots, names, strict=True):
        rect = QtCore.QRect(spot - area.topLeft(), minimap.size())
        centre = view.mapToScene(rect.center())
        w.graph.set_position(w.graph.find(name).id, (centre.x() - 40, centre.y() - 20))
    minimap.refresh()
    assert minimap.covering
    assert (area.bottomRight() - minimap.geometry().bottomRight()).manhattanLength() < 40
    opaque = minimap.grab().toImage()
    minimap.covering = False
    clear = minimap.grab().toImage()
    assert opaque != clear          # drawn see-through while covering (grab draws on no background)


def _scattered(n=120, seed=3):
    rng = np.random.default_rng(seed)
    g = Graph("scattered")
    for k in range(n):
        g.add_literal(np.zeros(2, np.float32), name=f"n{k}",
                      position=(float(rng.uniform(0, 8000)), float(rng.uniform(0, 6000))))
    return g


def test_the_minimap_keeps_its_place_under_a_drag_and_while_its_corner_is_free(window, qtbot):
    """A drag on the minimap pans the view, which moved nodes under it: it hopped to another
    corner mid-drag, out from under the pointer; while panning it changed corners although its
    own was free."""
    from PySide6 import QtGui, QtWidgets

    w = window
    w.set_document(_scattered(), None)
    qtbot.waitUntil(lambda: w.view.minimap.isVisible(), timeout=10000)
    w.view.resetTransform()
    w.view.centerOn(4000, 3000)
    minimap = w.view.minimap
    start = minimap.pos()
    QTest.mousePress(minimap, LEFT, NOMOD, QtCore.QPoint(10, 10))
    for k in range(55):
        local = QtCore.QPointF(10 + 3 * k, 10 + 2 * k)
        move = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, local, minimap.mapToGlobal(local),
                                 QtCore.Qt.MouseButton.NoButton, LEFT, NOMOD)
        QtWidgets.QApplication.sendEvent(minimap, move)
        assert minimap.pos() == start, k
    QTest.mouseRelease(minimap, LEFT, NOMOD, QtCore.QPoint(175, 118))
    bar = w.view.verticalScrollBar()
    for v in range(bar.minimum(), bar.maximum() + 1, max(1, (bar.maximum() - bar.minimum()) // 60)):
        before = minimap.pos()
        free_before = _covered(minimap, w) == []
        bar.setValue(v)
        if minimap.pos() != before:     # it moved: its corner had a node under it now
            minimap.move(before)
            assert _covered(minimap, w) or not free_before, v
            minimap.refresh()
