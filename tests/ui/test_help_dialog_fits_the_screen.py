"""Dialogs fit the screen on a projector (QT_SCALE_FACTOR=1.5 on 1280x720: 853x480 logical):
Help > Keyboard Shortcuts was 622x522 with its Close button off screen (walkthrough shot 05);
now it is no larger than the available area, its table scrolls, Close is on screen."""
from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from .helpers import deliver_posted_events, save_shot


@pytest.mark.parametrize("screen", [(853, 480), (853, 440), (1920, 1080)])
def test_the_shortcuts_dialog_fits_the_available_screen(window, qtbot, monkeypatch, screen):
    area = QtCore.QRect(0, 0, *screen)
    monkeypatch.setattr(QtGui.QScreen, "availableGeometry", lambda self: QtCore.QRect(area))
    window.resize(min(1480, int(screen[0] * 0.96)), min(900, int(screen[1] * 0.92)))
    window.move(0, 0)
    window.view.setFocus()
    before = set(window.findChildren(QtWidgets.QDialog))
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_F1)                 # Help > Keyboard Shortcuts
    (dialog,) = set(window.findChildren(QtWidgets.QDialog)) - before
    qtbot.waitExposed(dialog)
    deliver_posted_events()           # laid out and moved on screen; the checks are bounds
    save_shot(dialog, f"window/shortcuts_{screen[0]}x{screen[1]}")
    assert area.contains(dialog.frameGeometry()), (dialog.frameGeometry(), area)
    close = dialog.findChild(QtWidgets.QDialogButtonBox).button(QtWidgets.QDialogButtonBox.StandardButton.Close)
    top_left = close.mapToGlobal(QtCore.QPoint(0, 0))
    assert close.isVisible() and area.contains(QtCore.QRect(top_left, close.size()))
    if screen[1] < 520:
        assert dialog.table.verticalScrollBar().maximum() > 0          # the rest scrolls
    else:
        assert (dialog.width(), dialog.height()) == (620, 520)         # a desktop keeps the preferred size
    QTest.mouseClick(close, QtCore.Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
