"""The Table tab: a lazy Qt model over the current 2-D slice, 1-D vector or 0-D scalar.

Nothing is formatted up front: ``data()`` reads one element from the (view of the)
tensor and formats it exactly, so a 1e8-element tensor costs only the visible cells.
"""
from __future__ import annotations

from typing import Callable

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from . import colors
from .slicing import BOOL, COMPLEX, FLOAT, STRING, dtype_kind, format_value

Qt = QtCore.Qt


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
        self._reference: np.ndarray | None = None
        self._kind = FLOAT
        self._index_of: Callable[[int, int], tuple[int, ...]] | None = None
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
        if values is None:
            values = np.zeros((0, 0))
        if values.ndim > 2:
            raise ValueError("the table shows at most two dimensions; slice first")
        self._values = values
        self._reference = reference if reference is not None and reference.shape == values.shape else None
        self._kind = dtype_kind(values.dtype)
        self._index_of = index_of
        self.endResetModel()

    @property
    def values(self) -> np.ndarray:
        return self._values

    # ------------------------------------------------------------------ Qt model API

    def rowCount(self, parent=QtCore.QModelIndex()) -> int:
        if parent.isValid():
            return 0
        return 1 if self._values.ndim == 0 else int(self._values.shape[0])

    def columnCount(self, parent=QtCore.QModelIndex()) -> int:
        if parent.isValid():
            return 0
        return int(self._values.shape[1]) if self._values.ndim == 2 else 1

    def _key(self, row: int, col: int):
        if self._values.ndim == 0:
            return ()
        if self._values.ndim == 1:
            return (row,)
        return (row, col)

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
            where = self._index_of(row, col) if self._index_of else self._key(row, col)
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
            return str(section)
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
        self.table_model.modelReset.connect(self.fit_columns)

    def fit_columns(self, sample: int = 24) -> None:
        """One width for every column, measured on a corner sample of cells (never all)."""
        model = self.table_model
        rows, cols = min(model.rowCount(), sample), min(model.columnCount(), sample)
        metrics = self.fontMetrics()
        widest = metrics.horizontalAdvance(str(max(0, model.columnCount() - 1)))
        for r in range(rows):
            for c in range(cols):
                widest = max(widest, metrics.horizontalAdvance(model.data(model.index(r, c))))
        self.horizontalHeader().setDefaultSectionSize(min(360, max(48, widest + 18)))
