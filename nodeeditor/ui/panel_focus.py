"""View > Next Panel / Previous Panel (Ctrl+F6 / Ctrl+Shift+F6): the keyboard's way between the
canvas and the docks. Tab cannot be it: on the canvas it adds a block, and in a dock it walks
that dock's fields. The panels are the canvas, then the docks shown on screen (a dock behind
another's tab is skipped; a floating one is its own window, which is activated), in a fixed
order; the focus goes to the first control of the next
one that takes Tab (the canvas itself for the canvas), and the status line names it. UI thread
only."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6 import QtCore, QtWidgets


class PanelFocus:
    """``panels()`` the canvas's view and the docks in their order; ``status(text)`` the
    window's status line."""

    def __init__(self, panels: Callable[[], Sequence[QtWidgets.QWidget]], status: Callable[[str], None]) -> None:
        self._panels, self._status = panels, status

    def move(self, step: int) -> QtWidgets.QWidget | None:
        """Give the focus to the panel ``step`` places on (1: next, -1: previous); returns it."""
        shown = [p for p in self._panels() if p.isVisible() and (_floating(p) or not p.visibleRegion().isEmpty())]
        if not shown:
            return None
        focus = QtWidgets.QApplication.focusWidget()
        here = next((i for i, p in enumerate(shown) if focus is not None and (p is focus or p.isAncestorOf(focus))),
                    -1 if step > 0 else 0)
        panel = shown[(here + step) % len(shown)]
        target = panel if not isinstance(panel, QtWidgets.QDockWidget) else _first_control(panel)
        target.window().activateWindow()   # a floating dock is a window of its own
        target.window().raise_()
        target.setFocus(QtCore.Qt.FocusReason.ShortcutFocusReason)
        name = panel.windowTitle() if isinstance(panel, QtWidgets.QDockWidget) else "Canvas"
        self._status(f"Focus: {name}")
        return panel


def _floating(panel: QtWidgets.QWidget) -> bool:
    """A floating dock: its own window, never behind another dock's tab (its visible region may
    be empty where the system draws its frame)."""
    return isinstance(panel, QtWidgets.QDockWidget) and panel.isFloating()


def _first_control(dock: QtWidgets.QDockWidget) -> QtWidgets.QWidget:
    """The dock's first shown, enabled widget that takes Tab (the dock itself if none)."""
    for child in dock.findChildren(QtWidgets.QWidget):
        if child.isVisible() and child.isEnabled() and child.focusPolicy() & QtCore.Qt.FocusPolicy.TabFocus \
                and not isinstance(child, QtWidgets.QTabBar):
            return child
    return dock
