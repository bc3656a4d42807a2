"""A search field over a list, floating over a widget: the base of the Tab box (add a block)
and the Find box (go to a node).

Typing filters the list (``entries(text)``, best first); Up/Down move the current row; Enter
or a click emits ``accepted(key)`` and closes; Esc closes, and so does the focus moving to a
widget outside the box (Tab past the list, a click elsewhere). While the field has focus these
keys belong to the box, not to the window's shortcuts (Esc would otherwise cancel a run).
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

KEY_ROLE = QtCore.Qt.ItemDataRole.UserRole
_BOX_KEYS = (QtCore.Qt.Key.Key_Escape, QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter)


class SearchPopup(QtWidgets.QFrame):
    """Subclasses give ``entries(text) -> [(label, key, tooltip), ...]``."""

    accepted = QtCore.Signal(str)
    #: Rows shown before the list scrolls.
    MAX_ROWS = 14

    def __init__(self, parent: QtWidgets.QWidget, placeholder: str, width: int = 280) -> None:
        super().__init__(parent)
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.setObjectName("searchPopup")
        self.setStyleSheet("#searchPopup { background: palette(base); border: 1px solid #9aa1b1; border-radius: 6px; }")
        effect = QtWidgets.QGraphicsDropShadowEffect(self)
        effect.setBlurRadius(16)
        effect.setOffset(0, 3)
        effect.setColor(QtGui.QColor(0, 0, 0, 80))
        self.setGraphicsEffect(effect)
        self.field = QtWidgets.QLineEdit()
        self.field.setPlaceholderText(placeholder)
        self.field.textChanged.connect(self._refill)
        self.field.installEventFilter(self)
        self.list = QtWidgets.QListWidget()
        self.list.itemActivated.connect(self._accept_item)
        self.list.itemClicked.connect(self._accept_item)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.field)
        layout.addWidget(self.list)
        self.setFixedWidth(width)
        self.hide()
        # the focus gone elsewhere (Tab past the list, a click on a dock): the box goes too, not
        # left drawn over the nodes
        QtWidgets.QApplication.instance().focusChanged.connect(self._focus_changed)

    def _focus_changed(self, _old: QtWidgets.QWidget | None, new: QtWidgets.QWidget | None) -> None:
        if new is not None and self.isVisible() and new is not self and not self.isAncestorOf(new):
            self.hide()

    def entries(self, text: str) -> list[tuple[str, str, str]]:
        raise NotImplementedError

    def open_at(self, pos: QtCore.QPoint) -> None:
        """Show with an empty field at ``pos`` (parent coordinates), kept inside the parent."""
        self.field.clear()
        self._refill("")
        parent = self.parentWidget().rect()
        x = min(max(0, pos.x()), max(0, parent.width() - self.width()))
        y = min(max(0, pos.y()), max(0, parent.height() - self.height()))
        self.move(x, y)
        self.show()
        self.raise_()
        self.field.setFocus()

    #: How far below the parent's top edge :meth:`open_at_top` shows the box.
    TOP_MARGIN = 12

    def open_at_top(self) -> None:
        """Show with an empty field, centred at the top of the parent (the Find and Connect
        boxes over the canvas)."""
        self.open_at(QtCore.QPoint(max(0, (self.parentWidget().width() - self.width()) // 2), self.TOP_MARGIN))

    def keys(self) -> list[str]:
        return [self.list.item(i).data(KEY_ROLE) for i in range(self.list.count())]

    def _refill(self, text: str) -> None:
        self.list.clear()
        for label, key, tooltip in self.entries(text):
            item = QtWidgets.QListWidgetItem(label)
            item.setData(KEY_ROLE, key)
            item.setToolTip(tooltip)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        rows = max(1, min(self.list.count(), self.MAX_ROWS))
        self.list.setFixedHeight(rows * self.list.sizeHintForRow(0) + 6 if self.list.count() else 24)
        self.adjustSize()

    def eventFilter(self, obj, event) -> bool:
        if obj is self.field and event.type() == QtCore.QEvent.Type.ShortcutOverride and event.key() in _BOX_KEYS:
            event.accept()
            return False
        if obj is self.field and event.type() == QtCore.QEvent.Type.KeyPress:
            key = event.key()
            if key in (QtCore.Qt.Key.Key_Down, QtCore.Qt.Key.Key_Up):
                row = self.list.currentRow() + (1 if key == QtCore.Qt.Key.Key_Down else -1)
                self.list.setCurrentRow(max(0, min(self.list.count() - 1, row)))
                return True
            if key in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter):
                item = self.list.currentItem()
                if item is not None:
                    self._accept_item(item)
                return True
            if key == QtCore.Qt.Key.Key_Escape:
                self.close_box()
                return True
        return super().eventFilter(obj, event)

    def close_box(self) -> None:
        self.hide()
        parent = self.parentWidget()
        if parent is not None:
            parent.setFocus()

    def _accept_item(self, item: QtWidgets.QListWidgetItem) -> None:
        key = item.data(KEY_ROLE)
        self.close_box()
        self.accepted.emit(key)
