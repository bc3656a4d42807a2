"""The Explainer's stepping keys (Space, Left, Right, Home, End) give way to a focused control
that uses the same key: Space presses a focused button or opens a focused combo box, and the
arrows, Home and End move in a focused table, slider or tab bar, instead of playing or stepping.
(Text fields already keep their keys; the canvas, which has no use for them, does not: in
presentation mode the arrows step from there.)

:class:`ControlsKeepKeys` follows the focus (``QApplication.focusChanged``) and filters the
focused widget's events only, when it is of a kind that keeps a key: Qt asks the focused
widget about a key that is a shortcut (``ShortcutOverride``) before triggering the shortcut,
and accepting that event gives the key to the widget. UI thread only."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

Key = QtCore.Qt.Key
_MOVING = (QtWidgets.QAbstractItemView, QtWidgets.QAbstractSlider, QtWidgets.QTabBar)
#: key -> the kinds of focused widget that keep it
KEPT: dict[int, tuple[type, ...]] = {
    Key.Key_Space: (QtWidgets.QAbstractButton, QtWidgets.QAbstractItemView, QtWidgets.QComboBox),
    Key.Key_Left: _MOVING,
    Key.Key_Right: _MOVING,
    Key.Key_Home: _MOVING,
    Key.Key_End: _MOVING,
}
_KINDS = tuple({kind for kinds in KEPT.values() for kind in kinds})
_PLAIN = (QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.KeyboardModifier.KeypadModifier)


class ControlsKeepKeys(QtCore.QObject):
    """See the module docstring; one per window is enough (``parent``: what it lives as long as)."""

    def __init__(self, parent: QtCore.QObject) -> None:
        super().__init__(parent)
        self._watched: QtWidgets.QWidget | None = None
        QtWidgets.QApplication.instance().focusChanged.connect(self._focus_changed)
        self._focus_changed(None, QtWidgets.QApplication.focusWidget())

    def _focus_changed(self, _old: QtWidgets.QWidget | None, new: QtWidgets.QWidget | None) -> None:
        if self._watched is not None:
            try:
                self._watched.removeEventFilter(self)
            except RuntimeError:   # deleted meanwhile
                pass
        self._watched = new if isinstance(new, _KINDS) else None
        if self._watched is not None:
            self._watched.installEventFilter(self)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() != QtCore.QEvent.Type.ShortcutOverride or not isinstance(event, QtGui.QKeyEvent):
            return False
        kinds = KEPT.get(event.key())
        if kinds and event.modifiers() in _PLAIN and isinstance(watched, kinds):
            event.accept()      # the focused control takes the key; the shortcut does not fire
            return True
        return False
