"""All the steps of an explanation at once: a table with one row per step (which element,
which index decided it, the cell it reads or writes, the value, and for a scatter what happens
to it), so a class can see the whole index map in one picture; selecting a row goes to that
step.

The model asks :meth:`ops.explain.Explanation.move` only for the rows on screen, so a 200k-step
explanation opens as fast as a 6-step one.
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ops.explain import Explanation, value_text, values_text

Qt = QtCore.Qt
COLUMNS = ("step", "from", "index", "to", "value", "what happens")
#: Moves kept (the table asks for each visible row several times per paint).
CACHE_ROWS = 512
#: Steps at each end of the table whose texts size its columns.
SAMPLE_ROWS = 64
#: No column is wider than this many "m" of its font.
MAX_COLUMN_EMS = 24


class StepsModel(QtCore.QAbstractTableModel):
    """Rows are the steps of one :class:`Explanation` (none: empty)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._explanation: Explanation | None = None
        self._cache: dict[int, tuple[str, ...]] = {}
        self.current = -1

    def set_explanation(self, explanation: Explanation | None) -> None:
        self.beginResetModel()
        self._explanation = explanation
        self._cache.clear()
        self.current = -1
        self.endResetModel()

    def set_current(self, step: int) -> None:
        """Mark ``step`` (the explainer's step) in bold."""
        old, self.current = self.current, step
        for row in (old, step):
            if 0 <= row < self.rowCount():
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(COLUMNS) - 1))

    def rowCount(self, parent=QtCore.QModelIndex()) -> int:
        if parent.isValid() or self._explanation is None:
            return 0
        return self._explanation.count

    def columnCount(self, parent=QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def row_texts(self, step: int) -> tuple[str, ...]:
        """The cells of row ``step``: step number, source, deciding index, target, value, fate."""
        if step not in self._cache:
            if len(self._cache) >= CACHE_ROWS:
                self._cache.clear()
            self._cache[step] = self._texts(step)
        return self._cache[step]

    def sample_texts(self, steps) -> list[tuple[str, ...]]:
        """The rows of ``steps`` without keeping them (sizing the columns builds no row)."""
        return [self._cache.get(k) or self._texts(k) for k in steps]

    def _texts(self, k: int) -> tuple[str, ...]:
        e = self._explanation
        step = e.step(k)
        source = ", ".join(c.text(e.rank(c.tensor)) for c in step.sources)
        target = step.destination.text(e.rank(step.destination.tensor))
        if not step.index:
            index = f"{e.move(k).index_input} omitted"
        else:
            index = ", ".join(f"{c.text()} = {_value(e.tensor(c.tensor)[c.position])}" for c in step.index)
        return (str(k + 1), source, index, target, values_text(step.value), step.note)

    def data(self, index: QtCore.QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid() or self._explanation is None:
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
            return self.row_texts(index.row())[index.column()]
        if role == Qt.ItemDataRole.FontRole and index.row() == self.current:
            font = QtGui.QFont()
            font.setBold(True)
            return font
        return None


def _value(value) -> str:
    """An index value: ``3``, or a GatherND / ScatterND tuple ``[0, 2]``."""
    value = np.asarray(value)
    if value.ndim:
        return "[" + ", ".join(str(int(v)) for v in value.reshape(-1)) + "]"
    return value_text(value[()])


class StepsView(QtWidgets.QTableView):
    """The table; ``stepChosen(step)`` when the person selects a row."""

    stepChosen = QtCore.Signal(int)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.steps_model = StepsModel(self)
        self.setModel(self.steps_model)
        self.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().hide()
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.horizontalHeader().setStretchLastSection(True)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        self.selectionModel().currentRowChanged.connect(
            lambda current, _previous: current.isValid() and self.stepChosen.emit(current.row()))

    def show_explanation(self, explanation: Explanation | None) -> None:
        self.steps_model.set_explanation(explanation)
        self._fit_columns()

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:   # presentation mode, slides
            self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
            self._fit_columns()

    def _fit_columns(self) -> None:
        """Each column but the last (which stretches) as wide as its header and the texts of
        :data:`SAMPLE_ROWS` steps at each end (the longest coordinates are at the end), up to
        :data:`MAX_COLUMN_EMS` characters wide; a longer text is elided, its tooltip whole."""
        model = self.steps_model
        count = model.rowCount()
        rows = sorted(set(range(min(count, SAMPLE_ROWS))) | set(range(max(0, count - SAMPLE_ROWS), count)))
        metrics = self.fontMetrics()
        header = self.horizontalHeader().fontMetrics()
        cap = MAX_COLUMN_EMS * metrics.horizontalAdvance("m")
        bold = QtGui.QFont(self.font())
        bold.setBold(True)   # the current step's row
        wide = QtGui.QFontMetrics(bold)
        sample = model.sample_texts(rows)
        for column in range(len(COLUMNS) - 1):
            need = max([header.horizontalAdvance(COLUMNS[column])]
                       + [wide.horizontalAdvance(texts[column]) for texts in sample])
            self.setColumnWidth(column, min(cap, need + 2 * metrics.horizontalAdvance("m")))

    def show_step(self, step: int) -> None:
        """Follow the explainer: mark and scroll to ``step`` without emitting ``stepChosen``."""
        self.steps_model.set_current(step)
        if 0 <= step < self.steps_model.rowCount():
            index = self.steps_model.index(step, 0)
            blocked = self.selectionModel().blockSignals(True)
            flag = QtCore.QItemSelectionModel.SelectionFlag
            self.selectionModel().setCurrentIndex(index, flag.ClearAndSelect | flag.Rows)
            self.selectionModel().blockSignals(blocked)
            self.scrollTo(index)
