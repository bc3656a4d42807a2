"""The status-bar text a wire drag shows ("Release to replace the wire from ...", "Cannot
connect here: ...") goes when the drag ends: dropped, released elsewhere, or cancelled with
Esc (which also puts everything back as it was)."""
from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtTest import QTest

from .helpers import LEFT, NOMOD, port_point, press_and_move, save_shot, scene_point


def _wired(w):
    w.graph.connect("data", "output", "g", "data")
    w.runner.wait()
    return w


def _press_and_hover(w, src, dst):
    vp = w.view.viewport()
    a, b = port_point(w, *src), port_point(w, *dst)
    press_and_move(vp, a, b)
    return b


def test_dropping_a_replacing_wire_clears_the_release_hint(small, qtbot):
    w = _wired(small)
    end = _press_and_hover(w, ("idx", "output", True), ("g", "data", False))
    assert w.statusBar().currentMessage() == "Release to replace the wire from data"
    QTest.mouseRelease(w.view.viewport(), LEFT, NOMOD, end)
    assert w.graph.edge_into("g", "data").src == "idx"          # replaced
    assert w.statusBar().currentMessage() == ""
    save_shot(w.view, "canvas/wire_status_after_drop")


def test_releasing_elsewhere_clears_the_hint(small, qtbot):
    w = _wired(small)
    _press_and_hover(w, ("idx", "output", True), ("g", "data", False))
    assert w.statusBar().currentMessage().startswith("Release to replace")
    empty = scene_point(w, 150, 400)
    QTest.mouseMove(w.view.viewport(), empty)
    QTest.mouseRelease(w.view.viewport(), LEFT, NOMOD, empty)
    assert w.graph.edge_into("g", "data").src == "data"         # unchanged
    assert w.statusBar().currentMessage() == ""


def test_esc_cancels_the_drag_and_clears_the_hint(small, qtbot):
    w = _wired(small)
    w.view.setFocus()
    end = _press_and_hover(w, ("idx", "output", True), ("g", "data", False))
    assert w.statusBar().currentMessage().startswith("Release to replace")
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Escape)
    assert w.statusBar().currentMessage() == ""
    assert w.scene.edge_item("g", "data").opacity() == 1.0       # no longer drawn as replaced
    QTest.mouseRelease(w.view.viewport(), LEFT, NOMOD, end)      # the release connects nothing
    assert w.graph.edge_into("g", "data").src == "data"
    assert w.undo_stack.count() == 0
    # a refusal hint goes the same way
    w.graph.connect("idx", "output", "g", "indices")
    w.runner.wait()
    _press_and_hover(w, ("data", "output", True), ("g", "indices", False))
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Escape)
    assert w.statusBar().currentMessage() == ""
    QTest.mouseRelease(w.view.viewport(), LEFT, NOMOD, port_point(w, "g", "indices", False))
    assert w.graph.edge_into("g", "indices").src == "idx"
