"""TensorTable: a small tensor of any rank as one table of cells, for the quiz.

A tensor of rank 3 or more is shown as rows of its last axis: the row header names the
leading coordinates (``0, 1`` is ``t[0, 1, :]``), the column header the last one; a 2-D
tensor is its own matrix, a 1-D tensor one row, a scalar one cell. :meth:`TensorTable.cell_of`
and :meth:`TensorTable.position_of` turn a table cell into a tensor position and back.

Cells hold text and a :class:`CellState` (its colour). Only cells :meth:`set_editable` makes
editable can be typed into; ``cellClicked(position)`` (a click, or Enter or Space on the
current cell that is not typed into) and ``cellEdited(position, text)``
speak in tensor positions. UI thread only.
"""
from __future__ import annotations

import enum

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ..explainer.grid import ROLE_COLOURS
from ..viewer.slicing import dtype_kind, format_short

Qt = QtCore.Qt


class CellState(enum.Enum):
    """What a cell's colour says."""

    PLAIN = "plain"
    GIVEN = "given"        # shown to the learner, not asked
    ASKED = "asked"        # waiting for an answer
    RIGHT = "right"
    WRONG = "wrong"
    REVEALED = "revealed"  # given up on: the right value is shown
    SOURCE = "source"      # the explainer's roles: the update being placed
    INDEX = "index"        # the index that decides it


_FILLS = {
    CellState.PLAIN: None,
    CellState.GIVEN: "#eceef2",
    CellState.ASKED: "#fffbe6",
    CellState.RIGHT: "#c9f0cf",
    CellState.WRONG: "#ffc9c4",
    CellState.REVEALED: "#dfe6f5",
    CellState.SOURCE: ROLE_COLOURS["source"][0],
    CellState.INDEX: ROLE_COLOURS["index"][0],
}
CELL_HEIGHT = 24
MIN_CELL_WIDTH = 40


def cell_text(value) -> str:
    """A cell's text: short like the viewer's, but never rounding away a typed value's
    digits a learner needs (one-decimal floats stay exact)."""
    kind = dtype_kind(np.asarray(value).dtype)
    if kind == "float":
        v = float(value)
        return format_short(v, kind) if v != round(v, 4) else f"{v:g}"
    if kind in ("int", "bool"):
        return format_short(value, kind)
    return str(value.item() if hasattr(value, "item") else value)


class _FramedSelection(QtWidgets.QStyledItemDelegate):
    """Draws a selected cell as an unselected one (its state's fill, its text in black) inside
    a blue frame: the style's selection would fill the cell with the highlight instead, hiding
    the red of a wrong answer just clicked."""

    FRAME = QtGui.QColor(47, 111, 214)

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionViewItem, index) -> None:
        selected = bool(option.state & QtWidgets.QStyle.StateFlag.State_Selected)
        plain = QtWidgets.QStyleOptionViewItem(option)
        plain.state &= ~(QtWidgets.QStyle.StateFlag.State_Selected | QtWidgets.QStyle.StateFlag.State_HasFocus)
        super().paint(painter, plain, index)
        if selected:
            painter.save()
            painter.setPen(QtGui.QPen(self.FRAME, 2))
            painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            painter.drawRect(QtCore.QRectF(option.rect).adjusted(1, 1, -1, -1))
            painter.restore()


class TensorTable(QtWidgets.QTableWidget):
    """One tensor (see the module docstring); ``shape`` fixes the cells, the texts come
    from :meth:`set_values` or :meth:`set_text`."""

    cellClickedAt = QtCore.Signal(tuple)
    cellEdited = QtCore.Signal(tuple, str)

    def __init__(self, shape: tuple[int, ...], parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.shape = tuple(int(n) for n in shape)
        rows, cols = self._grid()
        self.setRowCount(rows)
        self.setColumnCount(cols)
        self._filling = False
        self.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizeAdjustPolicy(QtWidgets.QAbstractScrollArea.SizeAdjustPolicy.AdjustToContents)
        # the current cell is framed, not covered: its right/wrong colour stays readable
        self.setItemDelegate(_FramedSelection(self))
        self.verticalHeader().setDefaultSectionSize(self._row_height())
        self.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setMinimumSectionSize(MIN_CELL_WIDTH)
        self.setHorizontalHeaderLabels([str(c) for c in range(cols)] if len(self.shape) else [""])
        self.setVerticalHeaderLabels(self._row_labels())
        for r in range(rows):
            for c in range(cols):
                item = QtWidgets.QTableWidgetItem("")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable)
                self.setItem(r, c, item)
        self.cellClicked.connect(lambda r, c: self.cellClickedAt.emit(self.position_of(r, c)))
        self.itemChanged.connect(self._on_item_changed)
        # Tab leaves the table for the next control (the arrow keys move between cells): the
        # quiz's buttons stay in reach from the keyboard
        self.setTabKeyNavigation(False)

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        """Enter or Space on the current cell that is not typed into answers as a click on it
        does (``cellClickedAt``): a PLACE quiz is answered from the keyboard too."""
        keys = (Qt.Key.Key_Return, Qt.Key.Key_Enter, Qt.Key.Key_Space)
        item = self.currentItem()
        if (event.key() in keys and item is not None and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
                and self.state() != QtWidgets.QAbstractItemView.State.EditingState
                and not item.flags() & Qt.ItemFlag.ItemIsEditable):
            self.cellClickedAt.emit(self.position_of(item.row(), item.column()))
            event.accept()
            return
        super().keyPressEvent(event)

    # ------------------------------------------------------------------ geometry
    def _grid(self) -> tuple[int, int]:
        if not self.shape:
            return 1, 1
        if len(self.shape) == 1:
            return 1, self.shape[0]
        return int(np.prod(self.shape[:-1])), self.shape[-1]

    def _row_labels(self) -> list[str]:
        if len(self.shape) <= 1:
            return [""]
        return [", ".join(str(i) for i in np.unravel_index(r, self.shape[:-1])) for r in range(self._grid()[0])]

    def position_of(self, row: int, column: int) -> tuple[int, ...]:
        """The tensor position shown in table cell (row, column)."""
        if not self.shape:
            return ()
        if len(self.shape) == 1:
            return (column,)
        return tuple(int(i) for i in np.unravel_index(row, self.shape[:-1])) + (column,)

    def cell_of(self, position) -> tuple[int, int]:
        """The (row, column) of tensor position ``position``."""
        position = tuple(int(i) for i in position)
        if not self.shape:
            return 0, 0
        if len(self.shape) == 1:
            return 0, position[0]
        return int(np.ravel_multi_index(position[:-1], self.shape[:-1])), position[-1]

    def item_at(self, position) -> QtWidgets.QTableWidgetItem:
        return self.item(*self.cell_of(position))

    def _row_height(self) -> int:
        return max(CELL_HEIGHT, self.fontMetrics().height() + 8)

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:   # presentation mode's larger text
            self.verticalHeader().setDefaultSectionSize(self._row_height())
            least = max(MIN_CELL_WIDTH, self.fontMetrics().horizontalAdvance("000"))
            self.horizontalHeader().setMinimumSectionSize(least)
            for pos in np.ndindex(self.shape):
                self.set_state(pos, self.cell_state(pos))   # the cells' fonts follow the table's
            self.fit()

    def fit(self) -> None:
        """As large as its cells (the quiz's scroll area scrolls, not the table)."""
        self.resizeColumnsToContents()
        bold = QtGui.QFont(self.font())      # a cell turns bold when it is asked about
        bold.setBold(True)
        metrics, pad = QtGui.QFontMetrics(bold), self.fontMetrics().averageCharWidth() + 8
        for c in range(self.columnCount()):
            widest = max((metrics.horizontalAdvance(self.item(r, c).text()) for r in range(self.rowCount())), default=0)
            self.setColumnWidth(c, max(self.columnWidth(c), widest + pad))
        # the headers' hints: their widths are not laid out before the table is shown
        width = self.verticalHeader().sizeHint().width() + sum(self.columnWidth(c) for c in range(self.columnCount()))
        height = self.horizontalHeader().sizeHint().height() + self.rowCount() * self._row_height()
        self.setFixedSize(width + 2 * self.frameWidth() + 2, height + 2 * self.frameWidth() + 2)

    # ------------------------------------------------------------------ content
    def set_values(self, array: np.ndarray) -> None:
        """Every cell's text from ``array`` (of this table's shape)."""
        for pos in np.ndindex(self.shape):
            self.set_text(pos, cell_text(array[pos]))

    def set_text(self, position, text: str, tooltip: str = "") -> None:
        self._filling = True
        try:
            item = self.item_at(position)
            item.setText(text)
            item.setToolTip(tooltip)
        finally:
            self._filling = False

    def text(self, position) -> str:
        return self.item_at(position).text()

    def set_state(self, position, state: CellState) -> None:
        self._filling = True
        try:
            item = self.item_at(position)
            fill = _FILLS[state]
            item.setBackground(QtGui.QBrush(QtGui.QColor(fill)) if fill else QtGui.QBrush())
            item.setData(Qt.ItemDataRole.UserRole, state.value)
            font = QtGui.QFont(self.font())
            font.setBold(state in (CellState.RIGHT, CellState.WRONG, CellState.SOURCE, CellState.INDEX))
            item.setFont(font)
        finally:
            self._filling = False

    def cell_state(self, position) -> CellState:
        return CellState(self.item_at(position).data(Qt.ItemDataRole.UserRole) or CellState.PLAIN.value)

    def clear_states(self, keep=()) -> None:
        """Every cell back to PLAIN, except those whose state is in ``keep``."""
        for pos in np.ndindex(self.shape):
            if self.cell_state(pos) not in keep:
                self.set_state(pos, CellState.PLAIN)

    def set_editable(self, position, editable: bool) -> None:
        self._filling = True
        try:
            item = self.item_at(position)
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            item.setFlags(flags | Qt.ItemFlag.ItemIsEditable if editable else flags)
        finally:
            self._filling = False
        if editable:
            # like a spreadsheet: typing on the current cell edits it, so does a double click
            # or F2; moving does not. (Not SelectedClicked: while its delayed edit is pending,
            # keys typed right after clicking the current cell are lost.)
            trigger = QtWidgets.QAbstractItemView.EditTrigger
            self.setEditTriggers(trigger.AnyKeyPressed | trigger.EditKeyPressed | trigger.DoubleClicked)

    def is_editable(self, position) -> bool:
        return bool(self.item_at(position).flags() & Qt.ItemFlag.ItemIsEditable)

    def _on_item_changed(self, item: QtWidgets.QTableWidgetItem) -> None:
        if not self._filling and item.flags() & Qt.ItemFlag.ItemIsEditable:
            self.cellEdited.emit(self.position_of(item.row(), item.column()), item.text())

    def cell_center(self, position) -> QtCore.QPoint:
        """Viewport coordinates of the middle of the cell at ``position`` (for clicks)."""
        return self.visualItemRect(self.item_at(position)).center()
