"""Clicking a node shows that node's output, even when the node is already selected and a
port click showed another tensor in between (walkthrough shot 30)."""
from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtTest import QTest

from .helpers import LEFT, NOMOD, port_point, save_shot


def click_node(window, node_id: str) -> None:
    """A real left click on the node's title bar."""
    rect = window.scene.node_item(node_id).sceneBoundingRect()
    point = window.view.mapFromScene(QtCore.QPointF(rect.left() + 30, rect.top() + 8))
    QTest.mouseClick(window.view.viewport(), LEFT, NOMOD, point)


def test_clicking_the_selected_node_again_shows_its_output_after_a_port_click(small, qtbot):
    w = small
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.runner.wait()
    click_node(w, "g")
    qtbot.waitUntil(lambda: w.viewer.name_label.text() == "g.output", timeout=10000)
    assert w.properties.node_id == "g"
    # a click on data's output port shows data.output (the selection stays on g)
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, port_point(w, "data", "output", True))
    qtbot.waitUntil(lambda: w.viewer.name_label.text() == "data.output", timeout=10000)
    assert w.scene.selected_node_ids() == ["g"]
    # clicking g again (already selected: no selection change) shows g's output again
    click_node(w, "g")
    qtbot.waitUntil(lambda: w.viewer.name_label.text() == "g.output", timeout=10000)
    assert w.properties.node_id == "g"
    save_shot(w, "window/click_selected_node_again")


def test_a_port_click_still_shows_the_port(small, qtbot):
    w = small
    w.graph.connect("data", "output", "g", "data")
    w.runner.wait()
    click_node(w, "g")
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, port_point(w, "g", "data", False))
    qtbot.waitUntil(lambda: w.viewer.name_label.text() == "g.data", timeout=10000)
