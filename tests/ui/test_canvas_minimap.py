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
