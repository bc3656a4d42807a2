"""A wire is drawn by Qt's own paint until it is selected or hovered, then in the selection
colour and thicker, and plainly again after: checked on the pixels the canvas shows."""
from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.ui.canvas import style

from .helpers import LEFT, NOMOD, save_shot, scene_point


def _colour_near(window, scene_pos: QtCore.QPointF):
    """The pixel colours in a 7 x 7 square of the canvas around ``scene_pos``."""
    image = window.view.viewport().grab().toImage()
    at = window.view.mapFromScene(scene_pos)
    return {image.pixelColor(at.x() + dx, at.y() + dy).name() for dx in range(-3, 4) for dy in range(-3, 4)}


def test_selecting_a_wire_draws_it_in_the_selection_colour_and_unselecting_plainly(small, qtbot):
    w = small
    w.graph.connect("idx", "output", "g", "indices")
    w.runner.wait()
    edge_item = w.scene.edge_item("g", "indices")
    middle = edge_item.path().pointAtPercent(0.5)
    selection = style.SELECTION.name()
    assert not edge_item.marked and selection not in _colour_near(w, middle)
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, w.view.mapFromScene(middle))
    assert w.scene.selected_edges() == [edge_item.edge]
    qtbot.waitUntil(lambda: selection in _colour_near(w, middle), timeout=10000)
    assert edge_item.marked
    save_shot(w, "wires/selected")
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, scene_point(w, 200, 400))   # empty canvas
    QTest.mouseMove(w.view.viewport(), scene_point(w, 200, 420))
    qtbot.waitUntil(lambda: selection not in _colour_near(w, middle), timeout=10000)
    assert w.scene.selected_edges() == [] and not edge_item.marked
