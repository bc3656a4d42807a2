"""The Table tab: a lazy Qt model over the current 2-D slice, 1-D vector or 0-D scalar.

Nothing is formatted up front: ``data()`` reads one element from the (view of the)
tensor and formats it exactly, so a 1e8-element tensor costs only the visible cells.

Qt's header views keep one record per section, which makes 1e8 rows unusable (Qt hangs
laying them out). The model therefore shows a *window* of at most ``WINDOW`` rows and
columns; ``TablePage`` puts "first row / first column" spin boxes above the table when a
tensor is larger, and the headers always show the true indices.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from . import colors
from .labels import ElidedLabel
from .slicing import BOOL, COMPLEX, FLOAT, STRING, dtype_kind, format_value

Qt = QtCore.Qt

#: Most rows (and columns) the table model exposes at once.
WINDOW = 1_000_000


class TensorTableModel(QtCore.QAbstractTableModel):
    """Rows and columns of a 0-D, 1-D or 2-D array (a view; never copied).

    - 0-D: one cell; 1-D: one column, a row per element; 2-D: the slice as it is.
    - DisplayRole: exact text (``slicing.format_value``).
    - BackgroundRole: bool cells in the two bool colours, NaN cells pink, and cells that
      differ from ``reference`` (the pinned tensor's slice, same shape) light red.
    - ToolTipRole: the element's full N-D index from ``index_of`` (when given).
    """

    def __init__(self, parent=None):
        super().__init__(parent)
        self._values: np.ndarray = np.zeros((0, 0))
        self.has_tensor = False   # set_values(None): nothing shown
        self._reference: np.ndarray | None = None
        self._kind = FLOAT
        self._index_of: Callable[[int, int], tuple[int, ...]] | None = None
        self.row_offset = 0
        self.col_offset = 0
        self._brushes = {
            "false": QtGui.QBrush(QtGui.QColor(*colors.FALSE_RGB)),
            "true": QtGui.QBrush(QtGui.QColor(*colors.TRUE_RGB)),
            "nan": QtGui.QBrush(QtGui.QColor(*colors.NAN_BG)),
            "changed": QtGui.QBrush(QtGui.QColor(*colors.CHANGED_BG)),
        }

    def set_values(self, values: np.ndarray | None, reference: np.ndarray | None = None,
                   index_of: Callable[[int, int], tuple[int, ...]] | None = None) -> None:
        """Show ``values`` (0-D/1-D/2-D). ``reference``: same-shape array to highlight changes."""
        self.beginResetModel()
        #: whether a tensor is shown (an empty one too), not nothing at all
        self.has_tensor = values is not None
        if values is None:
            values = np.zeros((0, 0))
        if values.ndim > 2:
            raise ValueError("the table shows at most two dimensions; slice first")
        self._values = values
        self._reference = reference if reference is not None and reference.shape == values.shape else None
        self._kind = dtype_kind(values.dtype)
        self._index_of = index_of
        self.row_offset = min(self.row_offset, max(0, self.total_rows() - 1))
        self.col_offset = min(self.col_offset, max(0, self.total_columns() - 1))
        self.endResetModel()

    def total_rows(self) -> int:
        """Rows of the whole array (the model shows a window of them)."""
        return 1 if self._values.ndim == 0 else int(self._values.shape[0])

    def total_columns(self) -> int:
        return int(self._values.shape[1]) if self._values.ndim == 2 else 1

    def set_window(self, row_offset: int, col_offset: int = 0) -> None:
        """Show rows/columns starting at these offsets (clamped to the array)."""
        row_offset = max(0, min(int(row_offset), self.total_rows() - 1))
        col_offset = max(0, min(int(col_offset), self.total_columns() - 1))
        if (row_offset, col_offset) != (self.row_offset, self.col_offset):
            self.beginResetModel()
            self.row_offset, self.col_offset = row_offset, col_offset
            self.endResetModel()

    @property
    def values(self) -> np.ndarray:
        return self._values

    # ------------------------------------------------------------------ Qt model API

    def rowCount(self, parent=QtCore.QModelIndex()) -> int:
        if parent.isValid():
            return 0
        return max(0, min(WINDOW, self.total_rows() - self.row_offset))

    def columnCount(self, parent=QtCore.QModelIndex()) -> int:
        if parent.isValid():
            return 0
        if self._values.size == 0 and self._values.ndim != 1:
            return 0
        return max(0, min(WINDOW, self.total_columns() - self.col_offset))

    def _key(self, row: int, col: int):
        """Array index of model cell (row, col), i.e. including the window offsets."""
        if self._values.ndim == 0:
            return ()
        if self._values.ndim == 1:
            return (row + self.row_offset,)
        return (row + self.row_offset, col + self.col_offset)

    def value(self, row: int, col: int):
        """The element shown at (row, col), as a numpy scalar."""
        return self._values[self._key(row, col)]

    def data(self, index: QtCore.QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return format_value(self.value(row, col))
        if role == Qt.ItemDataRole.BackgroundRole:
            key = self._key(row, col)
            if self._reference is not None and self._differs(key):
                return self._brushes["changed"]
            if self._kind == BOOL:
                return self._brushes["true" if self._values[key] else "false"]
            if self._kind in (FLOAT, COMPLEX) and self._is_nan(self._values[key]):
                return self._brushes["nan"]
            return None
        if role == Qt.ItemDataRole.ForegroundRole:
            if self._kind == BOOL and not (self._reference is not None and self._differs(self._key(row, col))):
                return QtGui.QBrush(QtGui.QColor("black" if self._values[self._key(row, col)] else "white"))
            return None
        if role == Qt.ItemDataRole.ToolTipRole:
            key = self._key(row, col)
            full = (key + (0, 0))[:2]
            where = self._index_of(*full) if self._index_of else key
            text = f"{list(where)} = {format_value(self.value(row, col))}"
            if self._reference is not None and self._differs(self._key(row, col)):
                text += f"  (pinned: {format_value(self._reference[self._key(row, col)])})"
            return text
        if role == Qt.ItemDataRole.TextAlignmentRole:
            horizontal = Qt.AlignmentFlag.AlignLeft if self._kind == STRING else Qt.AlignmentFlag.AlignRight
            return int(horizontal | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole:
            offset = self.row_offset if orientation == Qt.Orientation.Vertical else self.col_offset
            return str(section + offset)
        return None

    def changed(self, row: int, col: int) -> bool:
        """True when the cell differs from the reference (False without a reference)."""
        return self._reference is not None and self._differs(self._key(row, col))

    def _differs(self, key) -> bool:
        a, b = self._values[key], self._reference[key]
        if a == b:
            return False
        if self._kind not in (FLOAT, COMPLEX):
            return True
        return not (self._is_nan(a) and self._is_nan(b))

    @staticmethod
    def _is_nan(value) -> bool:
        try:
            v = complex(value)
        except (TypeError, ValueError):
            return False
        return v != v


class TensorTableView(QtWidgets.QTableView):
    """A QTableView tuned for huge models: fixed section sizes, no per-row measuring."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.table_model = TensorTableModel(self)
        self.setModel(self.table_model)
        for header in (self.horizontalHeader(), self.verticalHeader()):
            header.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Fixed)
        self.verticalHeader().setDefaultSectionSize(22)
        self.horizontalHeader().setDefaultSectionSize(96)
        self.setWordWrap(False)
        self.setAlternatingRowColors(False)
        self.setTabKeyNavigation(False)   # Tab goes on to the next control; arrows move in the table
        self.setAccessibleName("Tensor values")
        self.table_model.modelReset.connect(self.fit_columns)

    def fit_columns(self, sample: int = 24) -> None:
        """One width for every column, measured on a corner sample of cells (never all)."""
        model = self.table_model
        rows, cols = min(model.rowCount(), sample), min(model.columnCount(), sample)
        metrics = self.fontMetrics()
        widest = metrics.horizontalAdvance(str(max(0, model.columnCount() - 1)))
        # model.value, not data(QModelIndex): an index per cell costs 40 µs
        texts = {format_value(model.value(r, c)) for r in range(rows) for c in range(cols)}
        for text in texts:
            widest = max(widest, metrics.horizontalAdvance(text))
        self.horizontalHeader().setDefaultSectionSize(min(360, max(48, widest + 18)))


class TablePage(QtWidgets.QWidget):
    """The Table tab: a pager row (only for tensors larger than the window) and the table."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.view = TensorTableView()
        self.model = self.view.table_model
        self.pager = QtWidgets.QWidget()
        pager_layout = QtWidgets.QHBoxLayout(self.pager)
        pager_layout.setContentsMargins(0, 0, 0, 0)
        self.row_spin = QtWidgets.QSpinBox()
        self.col_spin = QtWidgets.QSpinBox()
        self.pager_label = ElidedLabel()  # 'showing rows … of 100,000,000' must not widen the viewer
        for spin in (self.row_spin, self.col_spin):
            spin.setKeyboardTracking(False)
            spin.setMaximum(0)
            spin.valueChanged.connect(self._on_spin)
        pager_layout.addWidget(QtWidgets.QLabel("first row:"))
        pager_layout.addWidget(self.row_spin)
        pager_layout.addWidget(QtWidgets.QLabel("first column:"))
        pager_layout.addWidget(self.col_spin)
        pager_layout.addWidget(self.pager_label, 1)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        # a tensor with no elements: say so, where the table would be blank
        self.empty_note = QtWidgets.QLabel("This tensor has no elements (a dimension of size 0): no values to show.")
        self.empty_note.setWordWrap(True)
        self.empty_note.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.pager)
        layout.addWidget(self.empty_note)
        layout.addWidget(self.view, 1)
        self.model.modelReset.connect(self._sync)
        self._sync()

    def _sync(self) -> None:
        empty = self.model.has_tensor and self.model.values.size == 0
        self.empty_note.setVisible(empty)
        self.view.setVisible(not empty)
        rows, cols = self.model.total_rows(), self.model.total_columns()
        big = rows > WINDOW or cols > WINDOW
        self.pager.setVisible(big)
        for spin, total, offset in ((self.row_spin, rows, self.model.row_offset),
                                    (self.col_spin, cols, self.model.col_offset)):
            spin.blockSignals(True)
            spin.setMaximum(max(0, total - 1))
            spin.setValue(offset)
            spin.setEnabled(total > WINDOW)
            spin.blockSignals(False)
        if big:
            self.pager_label.setText(
                f"showing rows {self.model.row_offset:,}–{self.model.row_offset + self.model.rowCount() - 1:,} "
                f"of {rows:,}" + (f", columns from {self.model.col_offset:,} of {cols:,}" if cols > WINDOW else ""))

    def _on_spin(self, _value: int) -> None:
        self.model.set_window(self.row_spin.value(), self.col_spin.value())
