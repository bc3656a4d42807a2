"""An empty canvas says how to start; the hint goes from the screen as soon as there is a
node (what the screen shows, not a fresh rendering), and comes back when the last one goes."""
from __future__ import annotations

from PySide6 import QtCore

from nodeeditor.ui.canvas import style

from .helpers import deliver_posted_events, on_screen, save_shot


def _dark_pixels_in_the_middle(image) -> int:
    """Pixels in the middle band of the image darker than the grid's major lines (text)."""
    grid = style.GRID_MAJOR.lightness()   # the light theme's
    h, w = image.height(), image.width()
    return sum(1 for y in range(h // 2 - 40, h // 2 + 40, 2) for x in range(w // 4, 3 * w // 4, 2)
               if image.pixelColor(x, y).lightness() < grid - 40)


def test_an_empty_canvas_shows_how_to_start_and_a_node_removes_the_hint(window, qtbot):
    w = window
    w.new_action.trigger()
    deliver_posted_events()                                  # the opening frame (a zero-delay timer)
    assert not w.scene.node_items()
    shown = lambda: _dark_pixels_in_the_middle(on_screen(w.view.viewport()))  # noqa: E731
    qtbot.waitUntil(lambda: shown() > 50, timeout=10000)                 # the hint's text
    save_shot(w.view, "canvas/empty_hint")
    w.edits.add_block("op:Gather", w.view.mapToScene(QtCore.QPoint(10, 10)))
    # a node far from the middle; no text left there on the screen
    qtbot.waitUntil(lambda: shown() == 0, timeout=10000)
    w.undo_stack.undo()                                   # the last node goes: the hint is back
    qtbot.waitUntil(lambda: shown() > 50, timeout=10000)
