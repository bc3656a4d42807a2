"""Literal and graph-input sources: dtype, shape and an editable table of the values (small
tensors only; a 2-D grid of rows x last axis)."""
from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets

import ops
from nodeeditor.graph import nodes as N

from .. import commands as C
from .values import COMMON_DTYPES, EDITABLE_LIMIT, format_cell, muted, parse_shape, parse_value, shape_text


class ValueForm:
    """Mixin of :class:`PropertyPanel` (uses its ``graph``, ``node_id``, ``push``, ``status``,
    ``widgets``, ``_form``, ``_add``)."""

    def _value_of(self) -> np.ndarray:
        node = self.graph.node(self.node_id)
        return node.value if isinstance(node, N.LiteralSource) else node.example

    def _set_value(self, value: np.ndarray, text: str) -> None:
        node = self.graph.node(self.node_id)
        field = "value" if isinstance(node, N.LiteralSource) else "example"
        self.push(C.SourceCommand(self.graph, self.node_id, text, **{field: value}))

    def _build_value(self, node: N.Node) -> None:
        dtype_combo = QtWidgets.QComboBox()
        for name in COMMON_DTYPES:
            dtype_combo.addItem(name)
        shape_edit = QtWidgets.QLineEdit()
        shape_edit.setPlaceholderText("e.g. 2, 3 (empty: a scalar)")
        table = QtWidgets.QTableWidget()
        table.horizontalHeader().setDefaultSectionSize(64)
        table.verticalHeader().setDefaultSectionSize(22)
        too_big = muted("")

        def change_dtype(_index: int) -> None:
            name = dtype_combo.currentText()
            value = self._value_of()
            if ops.dtype_name(value) == name:
                return
            try:
                new = value.astype(ops.dtype_of(name)) if name != "string" else value.astype(str).astype(object)
            except (TypeError, ValueError) as exc:
                self.status(f"cannot convert to {name}: {exc}")
                refresh()
                return
            self._set_value(new, "Change dtype")

        def change_shape() -> None:
            value = self._value_of()
            try:
                shape = parse_shape(shape_edit.text())
            except ValueError as exc:
                self.status(f"shape: {exc}")
                refresh()
                return
            if shape == value.shape:
                return
            size = int(np.prod(shape, dtype=np.int64))
            if size > 10_000_000:
                self.status("a literal holds at most 10,000,000 elements; use a generator or a file")
                refresh()
                return
            flat = value.reshape(-1)
            new = np.zeros(size, dtype=value.dtype) if value.dtype != object else np.full(size, "", dtype=object)
            n = min(size, flat.size)
            new[:n] = flat[:n]
            self._set_value(new.reshape(shape), "Change shape")

        def cell_changed(row: int, col: int) -> None:
            value = self._value_of()
            grid = value.reshape(self._grid_shape(value))
            item = table.item(row, col)
            try:
                parsed = parse_value(item.text(), value.dtype)
            except (ValueError, TypeError) as exc:
                self.status(f"value [{row}, {col}]: {exc}")
                refresh()
                return
            new = np.array(grid, copy=True)
            if new[row, col] == parsed and type(parsed) is not str:
                return
            new[row, col] = parsed
            self._set_value(new.reshape(value.shape), "Edit Value")

        def refresh() -> None:
            value = self._value_of()
            dtype_combo.blockSignals(True)
            name = ops.dtype_name(value)
            if dtype_combo.findText(name) < 0:
                dtype_combo.addItem(name)
            dtype_combo.setCurrentText(name)
            dtype_combo.blockSignals(False)
            if not shape_edit.hasFocus():
                shape_edit.setText(shape_text(value.shape))
            table.blockSignals(True)
            if value.size <= EDITABLE_LIMIT:
                rows, cols = self._grid_shape(value)
                grid = value.reshape(rows, cols)
                table.setRowCount(rows)
                table.setColumnCount(cols)
                lead = value.shape[:-1]
                labels = [str(tuple(int(i) for i in np.unravel_index(r, lead))) if len(lead) > 1 else str(r)
                          for r in range(rows)] if lead else ["0"]
                table.setVerticalHeaderLabels(labels)
                table.setHorizontalHeaderLabels([str(c) for c in range(cols)])
                for r in range(rows):
                    for c in range(cols):
                        table.setItem(r, c, QtWidgets.QTableWidgetItem(format_cell(grid[r, c])))
                table.setFixedHeight(min(260, 30 + 22 * rows))
                table.setVisible(True)
                too_big.setVisible(False)
            else:
                table.setVisible(False)
                too_big.setText(f"{value.size:,} elements: too many to edit here (the viewer shows them). "
                                "Use a generator or a file source for large tensors.")
                too_big.setVisible(True)
            table.blockSignals(False)

        dtype_combo.currentIndexChanged.connect(change_dtype)
        shape_edit.editingFinished.connect(change_shape)
        table.cellChanged.connect(cell_changed)
        self._add("dtype", "dtype", dtype_combo, refresh)
        self._add("shape", "shape", shape_edit)
        self.widgets["table"] = table
        self._form.addRow(table)
        self._form.addRow(too_big)

    @staticmethod
    def _grid_shape(value: np.ndarray) -> tuple[int, int]:
        if value.ndim == 0:
            return 1, 1
        cols = value.shape[-1]
        return (value.size // cols if cols else 0), cols
