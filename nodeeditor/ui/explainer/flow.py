"""FlowLayout: widgets left to right, wrapped onto the next line when the width runs out.

The Explainer's grids sit in one: a wide window shows them side by side, a narrow one (a
projector, a dock beside the canvas) stacks them, so no grid is pushed out of sight to the
right. Each widget gets its size hint's width, or the line's whole width when that is less
(never below its minimum width), and its height for that width. Hidden widgets take no room.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets


class FlowLayout(QtWidgets.QLayout):
    def __init__(self, parent: QtWidgets.QWidget | None = None, spacing: int = 10) -> None:
        super().__init__(parent)
        self._items: list[QtWidgets.QLayoutItem] = []
        self._spacing = spacing
        self.setContentsMargins(0, 0, 0, 0)

    # ------------------------------------------------------------------ QLayout
    def addItem(self, item: QtWidgets.QLayoutItem) -> None:
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QtWidgets.QLayoutItem | None:
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QtWidgets.QLayoutItem | None:
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> QtCore.Qt.Orientation:
        return QtCore.Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        return self._arrange(QtCore.QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QtCore.QRect) -> None:
        super().setGeometry(rect)
        self._arrange(rect, apply=True)

    def sizeHint(self) -> QtCore.QSize:
        """All widgets on one line."""
        width, height = 0, 0
        for item in self._visible():
            hint = item.sizeHint()
            width += hint.width() + (self._spacing if width else 0)
            height = max(height, hint.height())
        return QtCore.QSize(width, height)

    def minimumSize(self) -> QtCore.QSize:
        """The widest minimum: the layout never asks for more width than one widget needs."""
        size = QtCore.QSize()
        for item in self._visible():
            size = size.expandedTo(item.minimumSize())
        return size

    # ------------------------------------------------------------------ placing
    def _visible(self) -> list[QtWidgets.QLayoutItem]:
        return [item for item in self._items if not item.isEmpty()]

    def _arrange(self, rect: QtCore.QRect, apply: bool) -> int:
        """Place the widgets in ``rect`` (when ``apply``); returns the height used."""
        x, y, line_height = rect.x(), rect.y(), 0
        right = rect.x() + rect.width()
        for item in self._visible():
            least = item.minimumSize().width()
            width = max(least, min(item.sizeHint().width(), rect.width()))
            if x > rect.x() and x + width > right:
                x, y, line_height = rect.x(), y + line_height + self._spacing, 0
            height = item.heightForWidth(width) if item.hasHeightForWidth() else item.sizeHint().height()
            height = max(height, item.minimumSize().height())
            if apply:
                item.setGeometry(QtCore.QRect(x, y, width, height))
            x += width + self._spacing
            line_height = max(line_height, height)
        return y + line_height - rect.y()
