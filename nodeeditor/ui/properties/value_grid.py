"""The value table of a literal: a grid of cell texts that behaves like a spreadsheet.

:class:`ValueGrid` knows texts, not values; the form that owns it (``value_form.py``) turns
what it emits into undo commands and hands back the texts to show. Keys:

- typing on a selected cell replaces its text (the editor opens with the text selected);
- Tab / Shift+Tab in a cell's editor commit the cell and edit the next / previous one (along
  the row, then on to the next row); on a cell not being edited they move on to the next /
  previous control (the arrow keys move between cells); Enter commits and moves down a row
  (also when not editing);
  Escape drops the edit (and, on a cell marked wrong, emits ``restored`` so the owner shows
  its value again);
- Ctrl+V emits ``pasted(text, row, col, whole)``: the clipboard's text, the current cell
  and whether every cell is selected (then the paste may give the tensor a new shape);
- Ctrl+C copies the selected block as tab-separated rows (a spreadsheet pastes it).

:meth:`ValueGrid.show_cells` updates the cells in place: a cell whose text is unchanged is
not touched (no change signal reaches an open editor), so the cell being edited keeps its
text and selection when the document changes around it (the run finishing after each edit).
A cell whose text could not be read is marked (:meth:`mark_wrong`): it keeps the typed
text on a red background with the reason as its tooltip until it is edited again.
UI thread only.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

Qt = QtCore.Qt
Hint = QtWidgets.QAbstractItemDelegate.EndEditHint
WRONG_BACKGROUND = QtGui.QColor("#ffd9d9")


class ValueGrid(QtWidgets.QTableWidget):
    """Signals: ``edited(row, col, text)`` when a cell's edit is committed with a new text;
    ``pasted(text, row, col, whole)`` for Ctrl+V; ``restored()`` when Escape dropped a
    wrong cell's mark."""

    edited = QtCore.Signal(int, int, str)
    pasted = QtCore.Signal(str, int, int, bool)
    restored = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.horizontalHeader().setDefaultSectionSize(64)
        self.verticalHeader().setDefaultSectionSize(22)
        self.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.AnyKeyPressed
                             | QtWidgets.QAbstractItemView.EditTrigger.DoubleClicked
                             | QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed)
        self.wrong: dict[tuple[int, int], str] = {}   # (row, col) -> why its text was refused
        self._filling = False
        self.itemChanged.connect(self._on_item_changed)
        # Tab on a cell not being edited goes on to the next control (it cycled the cells for
        # ever); in a cell's editor it still commits and edits the next cell
        self.setTabKeyNavigation(False)

    # ------------------------------------------------------------------ showing
    def show_cells(self, texts: list[list[str]], tips: list[list[str]], row_labels: list[str],
                   col_labels: list[str]) -> None:
        """Show ``texts`` (rows x columns) with their tooltips, changing only what differs.
        A new shape drops every wrong-cell mark; otherwise marked cells keep their text."""
        rows, cols = len(texts), len(col_labels)
        if (rows, cols) != (self.rowCount(), self.columnCount()):
            self.wrong.clear()
        self._filling = True
        try:
            self.setRowCount(rows)
            self.setColumnCount(cols)
            self.setVerticalHeaderLabels(row_labels)
            self.setHorizontalHeaderLabels(col_labels)
            for r in range(rows):
                for c in range(cols):
                    if (r, c) in self.wrong:
                        continue
                    item = self.item(r, c)
                    if item is None:
                        item = QtWidgets.QTableWidgetItem()
                        self.setItem(r, c, item)
                    if item.text() != texts[r][c]:
                        item.setText(texts[r][c])
                    if item.toolTip() != tips[r][c]:
                        item.setToolTip(tips[r][c])
                    if item.background().style() != Qt.BrushStyle.NoBrush:
                        item.setBackground(QtGui.QBrush())
        finally:
            self._filling = False

    def mark_wrong(self, row: int, col: int, text: str, reason: str) -> None:
        """Keep ``text`` in the cell, on red, with ``reason`` as its tooltip."""
        item = self.item(row, col)
        if item is None:
            return
        self.wrong[(row, col)] = reason
        self._filling = True
        try:
            item.setText(text)
            item.setToolTip(reason)
            item.setBackground(WRONG_BACKGROUND)
        finally:
            self._filling = False

    def forget_wrong(self, row: int, col: int) -> bool:
        """Drop the mark of a wrong cell (the next :meth:`show_cells` shows its value)."""
        return self.wrong.pop((row, col), None) is not None

    def _on_item_changed(self, item: QtWidgets.QTableWidgetItem) -> None:
        if self._filling:
            return
        self.forget_wrong(item.row(), item.column())
        self.edited.emit(item.row(), item.column(), item.text())

    # ------------------------------------------------------------------ keys
    def closeEditor(self, editor: QtWidgets.QWidget, hint: Hint) -> None:
        super().closeEditor(editor, hint)
        if hint == Hint.SubmitModelCache:   # Enter in the editor: on to the cell below
            self._move_down()

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        editing = self.state() == QtWidgets.QAbstractItemView.State.EditingState
        if not editing and event.matches(QtGui.QKeySequence.StandardKey.Paste):
            self._paste()
            return
        if not editing and event.matches(QtGui.QKeySequence.StandardKey.Copy):
            self._copy()
            return
        if not editing and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._move_down()
            return
        if not editing and event.key() == Qt.Key.Key_Escape:
            index = self.currentIndex()
            if index.isValid() and self.forget_wrong(index.row(), index.column()):
                self.restored.emit()
            return
        super().keyPressEvent(event)

    def _move_down(self) -> None:
        index = self.currentIndex()
        if index.isValid() and index.row() + 1 < self.rowCount():
            self.setCurrentCell(index.row() + 1, index.column())

    def whole_selected(self) -> bool:
        """Every cell is selected (Ctrl+A, or the only cell of a one-cell table)."""
        cells = self.rowCount() * self.columnCount()
        return cells > 0 and len(self.selectedIndexes()) == cells

    def _paste(self) -> None:
        text = QtGui.QGuiApplication.clipboard().text()
        ranges = self.selectedRanges()
        index = self.currentIndex()
        if ranges:   # the selection's top-left cell: where a block selected by dragging starts
            row, col = min(r.topRow() for r in ranges), min(r.leftColumn() for r in ranges)
        elif index.isValid():
            row, col = index.row(), index.column()
        else:
            row = col = 0
        self.pasted.emit(text, row, col, self.whole_selected())

    def _copy(self) -> None:
        ranges = self.selectedRanges()
        if not ranges:
            return
        top = min(r.topRow() for r in ranges)
        bottom = max(r.bottomRow() for r in ranges)
        left = min(r.leftColumn() for r in ranges)
        right = max(r.rightColumn() for r in ranges)
        lines = []
        for r in range(top, bottom + 1):
            cells = [self.item(r, c).text() if self.item(r, c) is not None else "" for c in range(left, right + 1)]
            lines.append("\t".join(cells))
        QtGui.QGuiApplication.clipboard().setText("\n".join(lines))
