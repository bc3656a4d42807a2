"""View > Next Panel / Previous Panel (Ctrl+F6 / Ctrl+Shift+F6): a keyboard user moves between
the canvas and the docks (Tab on the canvas adds a block; there was no key to reach a dock
or to come back)."""
from __future__ import annotations

from PySide6 import QtWidgets

from .helpers import keys


def _panel_of(window) -> QtWidgets.QWidget | None:
    focus = QtWidgets.QApplication.focusWidget()
    for panel in (window.view, window.palette_dock, window.properties_dock, window.viewer_dock, window.explainer_dock):
        if focus is not None and (panel is focus or panel.isAncestorOf(focus)):
            return panel
    return None


def test_ctrl_f6_walks_the_canvas_and_the_shown_docks_and_back(window, qtbot):
    w = window
    w.activateWindow()
    w.view.setFocus()
    qtbot.waitUntil(lambda: w.view.hasFocus(), timeout=10000)
    shown = [p for p in (w.view, w.palette_dock, w.properties_dock, w.viewer_dock, w.explainer_dock)
             if p.isVisible() and not p.visibleRegion().isEmpty()]
    assert len(shown) >= 4, [p.objectName() for p in shown]
    visited = []
    for _ in range(len(shown)):
        keys(QtWidgets.QApplication.focusWidget(), "Ctrl+F6")
        qtbot.waitUntil(lambda: _panel_of(w) is not None and (not visited or _panel_of(w) is not visited[-1]),
                        timeout=10000)
        visited.append(_panel_of(w))
    assert visited == shown[1:] + shown[:1]                    # each shown dock once, then the canvas again
    assert w.statusBar().currentMessage() == "Focus: Canvas"
    keys(QtWidgets.QApplication.focusWidget(), "Ctrl+Shift+F6")
    qtbot.waitUntil(lambda: _panel_of(w) is shown[-1], timeout=10000)
    assert w.next_panel_action in w.menuBar().actions()[2].menu().actions()

