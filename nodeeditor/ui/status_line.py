"""The status bar's messages: one temporary line on the left, red for an error.

:class:`StatusLine` is the only writer of that line and its colour. ``show(message, error)``
puts a message up (an error for 10 s, anything else for 5 s); ``clear_error()`` takes an
error down early (what it reported may be fixed now) and leaves other messages alone. When
the line empties for any reason, an error's colour goes with it. The run summary on the
right of the bar (:mod:`nodeeditor.ui.run_status`) keeps its own colour.

:class:`ShowStatus` is the type controllers take for "tell the user": any callable
``(message, error=False)``, usually :meth:`StatusLine.show` or ``MainWindow.show_status``.
"""
from __future__ import annotations

from typing import Protocol

from PySide6 import QtWidgets

ERROR_STYLE = "QStatusBar { color: #c62828; }"
ERROR_MS, MESSAGE_MS = 10000, 5000


class ShowStatus(Protocol):
    def __call__(self, message: str, error: bool = False) -> None: ...


class StatusLine:
    def __init__(self, bar: QtWidgets.QStatusBar) -> None:
        self.bar = bar
        self._error = False
        bar.messageChanged.connect(lambda text: text or self.clear_error())

    def show(self, message: str, error: bool = False) -> None:
        """``message`` on the left of the status bar, red when ``error``."""
        self._error = error
        self.bar.setStyleSheet(ERROR_STYLE if error else "")
        self.bar.showMessage(message, ERROR_MS if error else MESSAGE_MS)

    def clear_error(self) -> None:
        """Forget an error message (it may be fixed now): clear it and its colour."""
        if self._error:
            self._error = False
            self.bar.setStyleSheet("")
            self.bar.clearMessage()

    def clear(self) -> None:
        """Take down whatever message is shown."""
        self.bar.clearMessage()
