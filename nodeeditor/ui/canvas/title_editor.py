"""The in-place title editor: a line edit over a node's or frame's title on the canvas
(Rename, F2; a double-click on a frame's title). Enter or a click elsewhere keeps the text,
Esc drops it. ``renamed(target, text)`` carries a :class:`RenameTarget`; an empty text or
an unchanged one is not reported. It changes nothing itself."""
from __future__ import annotations

import enum
from dataclasses import dataclass

from PySide6 import QtCore, QtWidgets


class TitleOf(enum.Enum):
    NODE = "node"
    FRAME = "frame"


@dataclass(frozen=True)
class RenameTarget:
    kind: TitleOf
    id: str


class TitleEditor(QtWidgets.QLineEdit):
    renamed = QtCore.Signal(object, str)   # RenameTarget, the new text

    def __init__(self, view: QtWidgets.QGraphicsView) -> None:
        super().__init__(view.viewport())
        self.view = view
        self.setObjectName("titleEditor")
        self.target: RenameTarget | None = None
        self._old = ""
        self.editingFinished.connect(self._finish)
        self.hide()

    def edit(self, target: RenameTarget, text: str, scene_rect: QtCore.QRectF) -> None:
        """Edit ``text`` over ``scene_rect`` (the title's place on the canvas), all selected."""
        self.target, self._old = target, text
        rect = self.view.mapFromScene(scene_rect).boundingRect()
        height = max(rect.height(), self.sizeHint().height())
        self.setGeometry(rect.left(), rect.center().y() - height // 2, max(rect.width(), 160), height)
        self.setText(text)
        self.selectAll()
        self.show()
        self.raise_()
        self.setFocus()

    def keyPressEvent(self, event) -> None:
        if event.key() == QtCore.Qt.Key.Key_Escape:
            self.target = None
            self._close()
            return
        super().keyPressEvent(event)

    def event(self, event: QtCore.QEvent) -> bool:
        # Esc, Enter and the editing keys belong to the field, not to the window's shortcuts
        if event.type() == QtCore.QEvent.Type.ShortcutOverride:
            event.accept()
            return True
        return super().event(event)

    def _finish(self) -> None:
        target, text = self.target, self.text().strip()
        self.target = None
        self._close()
        if target is not None and text and text != self._old:
            self.renamed.emit(target, text)

    def _close(self) -> None:
        if self.isVisible():
            self.hide()
            self.view.setFocus()
