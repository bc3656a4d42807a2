"""The Tab box: a small search field with a fuzzy-matched list of every block, shown at the
cursor over the canvas. Enter (or a click) emits ``chosen(key, scene_pos)``; Esc closes.

The window centres the new block's title on ``scene_pos`` (x - width/2, y - 30). Near the
canvas edge that would put half the block out of view, so ``scene_pos`` is first moved (as
little as needed) so that the whole block, its ports counted, lies inside the visible part
of the canvas (see :func:`fit_in_view`)."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import Graph

from .blocks import BLOCKS, block, search
from .canvas import style

KEY_ROLE = QtCore.Qt.ItemDataRole.UserRole
TITLE_OFFSET = 30.0   # the window puts a new block's top this far above the chosen point
EDGE_MARGIN = 12.0    # view pixels kept between a new block and the canvas edge


def block_height(key: str, with_preview: bool = False) -> float:
    """The height (scene units) a new ``key`` block will have on the canvas."""
    node = block(key).make(Graph(), (0.0, 0.0))
    rows = len(node.input_ports()) + len(node.output_ports())
    height = style.HEADER_HEIGHT + style.SUBTITLE_HEIGHT + rows * style.ROW_HEIGHT + 6
    return height + (style.PREVIEW_HEIGHT + 4 if with_preview else 0.0)


def fit_in_view(view: QtWidgets.QGraphicsView, scene_pos: QtCore.QPointF, height: float) -> QtCore.QPointF:
    """``scene_pos`` moved so that a block placed at it lies inside ``view``'s visible area
    (with :data:`EDGE_MARGIN`); when the view is too small for the block, its top-left shows."""
    zoom = view.transform().m11() or 1.0
    margin = EDGE_MARGIN / zoom
    visible = view.mapToScene(view.viewport().rect()).boundingRect().adjusted(margin, margin, -margin, -margin)
    half = style.NODE_WIDTH / 2
    x = min(scene_pos.x(), visible.right() - half)
    x = max(x, visible.left() + half)
    y = min(scene_pos.y(), visible.bottom() - height + TITLE_OFFSET)
    y = max(y, visible.top() + TITLE_OFFSET)
    return QtCore.QPointF(x, y)


class QuickAddBox(QtWidgets.QFrame):
    chosen = QtCore.Signal(str, QtCore.QPointF)

    def __init__(self, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.setFrameShape(QtWidgets.QFrame.Shape.StyledPanel)
        self.setObjectName("quickAdd")
        self.setStyleSheet("#quickAdd { background: #ffffff; border: 1px solid #9aa1b1; border-radius: 6px; }")
        effect = QtWidgets.QGraphicsDropShadowEffect(self)
        effect.setBlurRadius(16)
        effect.setOffset(0, 3)
        effect.setColor(QtGui.QColor(0, 0, 0, 80))
        self.setGraphicsEffect(effect)
        self.field = QtWidgets.QLineEdit()
        self.field.setPlaceholderText("Add block…")
        self.field.textChanged.connect(self._refill)
        self.field.installEventFilter(self)
        self.list = QtWidgets.QListWidget()
        self.list.itemActivated.connect(self._accept_item)
        self.list.itemClicked.connect(self._accept_item)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.field)
        layout.addWidget(self.list)
        self.setFixedWidth(280)
        self.scene_pos = QtCore.QPointF()
        self.hide()

    def popup(self, view_pos: QtCore.QPoint, scene_pos: QtCore.QPointF) -> None:
        """Show at ``view_pos`` (parent coordinates) for adding at ``scene_pos``."""
        self.scene_pos = QtCore.QPointF(scene_pos)
        self.field.clear()
        self._refill("")
        parent = self.parentWidget().rect()
        x = min(max(0, view_pos.x()), max(0, parent.width() - self.width()))
        y = min(max(0, view_pos.y()), max(0, parent.height() - self.height()))
        self.move(x, y)
        self.show()
        self.raise_()
        self.field.setFocus()

    def keys(self) -> list[str]:
        return [self.list.item(i).data(KEY_ROLE) for i in range(self.list.count())]

    def _refill(self, text: str) -> None:
        self.list.clear()
        for b in (search(text) if text.strip() else BLOCKS):
            item = QtWidgets.QListWidgetItem(f"{b.title}    ·  {b.category}")
            item.setData(KEY_ROLE, b.key)
            item.setToolTip(b.description)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        rows = max(1, min(self.list.count(), 14))
        self.list.setFixedHeight(rows * self.list.sizeHintForRow(0) + 6 if self.list.count() else 24)
        self.adjustSize()

    def eventFilter(self, obj, event) -> bool:
        if (obj is self.field and event.type() == QtCore.QEvent.Type.ShortcutOverride
                and event.key() in (QtCore.Qt.Key.Key_Escape, QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter)):
            event.accept()   # these keys are the box's, not the window's shortcuts (Esc cancels runs)
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
        pos = self.scene_pos
        view = self.parentWidget()
        if isinstance(view, QtWidgets.QGraphicsView):
            previews = bool(getattr(view.scene(), "show_previews", False))
            pos = fit_in_view(view, pos, block_height(key, previews))
        self.chosen.emit(key, pos)
