"""Node and port tooltips are written when the pointer rests on them (the canvas does not
write thousands of tooltips on every refresh): the tooltip event Qt sends the viewport shows
the port's current type and the node's current state, also after an edit."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from .helpers import port_point, save_shot, scene_point


def _tooltip_at(window, qtbot, at: QtCore.QPoint) -> str:
    """Send the viewport the tooltip event Qt sends when the pointer rests at ``at``; the text shown."""
    QtWidgets.QToolTip.hideText()
    qtbot.waitUntil(lambda: not QtWidgets.QToolTip.isVisible(), timeout=10000)
    viewport = window.view.viewport()
    event = QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, at, viewport.mapToGlobal(at))
    QtWidgets.QApplication.sendEvent(viewport, event)
    qtbot.waitUntil(QtWidgets.QToolTip.isVisible, timeout=10000)
    return QtWidgets.QToolTip.text()


def test_resting_on_a_port_or_node_shows_what_it_says_now(small, qtbot):
    w = small
    text = _tooltip_at(w, qtbot, port_point(w, "g", "indices", False))
    assert "input <b>indices</b>: not connected" in text
    w.graph.connect("idx", "output", "g", "indices")
    w.runner.wait()
    text = _tooltip_at(w, qtbot, port_point(w, "g", "indices", False))
    assert "input <b>indices</b>: int64[2]" in text            # the literal [2, 0] feeding it
    save_shot(w, "tooltips/port")
    header = w.scene.node_item("g").sceneBoundingRect().topLeft() + QtCore.QPointF(60, 14)
    text = _tooltip_at(w, qtbot, scene_point(w, header.x(), header.y()))
    assert text.startswith("<b>g</b> — Gather-13") and "input 'data' is not connected" in text
    w.graph.connect("data", "output", "g", "data")
    w.runner.wait()
    text = _tooltip_at(w, qtbot, scene_point(w, header.x(), header.y()))
    assert text == "<b>g</b> — Gather-13<br>up to date"
    QtWidgets.QToolTip.hideText()
