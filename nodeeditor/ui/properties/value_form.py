"""Literal and graph-input sources: dtype, shape and an editable table of the values (small
tensors only; a 2-D grid of rows x last axis, :class:`~.value_grid.ValueGrid`). A typed or
pasted text that is not a value of the dtype changes nothing: the cell is marked with the
reason and the status line says it; a paste is one undo step."""
from __future__ import annotations

import math

import numpy as np
from PySide6 import QtWidgets

import ops
from nodeeditor.graph import dims
from nodeeditor.graph import nodes as N

from .. import commands as C
from .pasted_text import parse_block
from .value_grid import ValueGrid
from .values import (
    COMMON_DTYPES,
    EDITABLE_LIMIT,
    CellError,
    cell_text,
    editable_in_place,
    grid_shape,
    muted,
    parse_shape,
    parse_value,
    pasted_value,
    shape_text,
)

#: Most elements a literal holds (a larger tensor belongs in a generator or a file source).
MAX_LITERAL = 10_000_000


class ValueForm:
    """Mixin of :class:`PropertyPanel` (uses its ``graph``, ``node_id``, ``push``, ``status``,
    ``widgets``, ``_form``, ``_add``)."""

    def _value_of(self) -> np.ndarray:
        node = self.graph.node(self.node_id)
        return node.value if isinstance(node, N.LiteralSource) else node.example

    def _set_value(self, value: np.ndarray, text: str) -> str | None:
        """Push the edit and return a note for the status line ("" for none); None when the
        window refused it (a training run is going). A graph input's declared shape of fixed
        sizes only (an imported model's) that the new example does not fit goes in the same
        undo step: the shape typed or pasted is the one meant (the note says so)."""
        node = self.graph.node(self.node_id)
        fields = {"value" if isinstance(node, N.LiteralSource) else "example": value}
        declared = getattr(node, "shape", None)
        if isinstance(node, N.InputSource) and declared is not None and all(isinstance(d, int) for d in declared) \
                and dims.fit_problem(declared, value.shape):
            fields["shape"] = None
        if self.push(C.SourceCommand(self.graph, self.node_id, text, **fields)) is False:
            return None
        return f"the declared shape [{shape_text(declared)}] went with the example's old shape" \
            if "shape" in fields else ""

    def _build_value(self, node: N.Node) -> None:
        dtype_combo = QtWidgets.QComboBox()
        for name in COMMON_DTYPES:
            dtype_combo.addItem(name)
        shape_edit = QtWidgets.QLineEdit()
        shape_edit.setPlaceholderText("e.g. 2, 3 (empty: a scalar)")
        table = ValueGrid()
        table.setAccessibleName("Values")
        table.setToolTip("Type to replace a value; Tab while typing: next cell; Enter: next row; Esc: cancel. "
                         "Ctrl+V pastes rows (tabs or commas) or a nested list [[1, 2], [3, 4]] "
                         "from the current cell; with every cell selected (Ctrl+A) it replaces the tensor.")
        too_big = muted("")
        quiz_note = muted("")   # the quiz's inputs are other values (withheld_why)
        quiz_note.setStyleSheet("color: #a0522d;")

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
                self.status(f"shape: {exc}", error=True)
                shape_edit.setText(shape_text(value.shape))   # what the node holds; the message says why
                shape_edit.selectAll()
                return
            if shape == value.shape:
                return
            size = math.prod(shape)
            if size > MAX_LITERAL:
                self.status(f"a literal holds at most {MAX_LITERAL:,} elements; use a generator or a file")
                refresh()
                return
            flat = value.reshape(-1)
            new = np.zeros(size, dtype=value.dtype) if value.dtype != object else np.full(size, "", dtype=object)
            n = min(size, flat.size)
            new[:n] = flat[:n]
            note = self._set_value(new.reshape(shape), "Change shape")
            if note:
                self.status(note[0].upper() + note[1:])

        def cell_edited(row: int, col: int, text: str) -> None:
            value = self._value_of()
            try:
                parsed = parse_value(text, value.dtype)
            except ValueError as exc:
                table.mark_wrong(row, col, text, str(exc))
                self.status(f"value [{row}, {col}]: {exc}", error=True)
                return
            new = np.array(value, copy=True).reshape(grid_shape(value.shape))
            if type(parsed) is not str and np.asarray(parsed).astype(value.dtype).tobytes() == new[row, col].tobytes():
                refresh()   # the same value typed another way ("1.10"): show it the short way
                return
            new[row, col] = parsed
            self._set_value(new.reshape(value.shape), "Edit Value")

        def pasted(text: str, row: int, col: int, whole: bool) -> None:
            value = self._value_of()
            try:
                block = parse_block(text)
                if whole and block.size > MAX_LITERAL:
                    raise ValueError(f"{block.size:,} values: a literal holds at most {MAX_LITERAL:,}")
                new, dropped = pasted_value(value, block, row, col, whole)
            except CellError as exc:
                rows, cols = grid_shape(value.shape)
                if exc.row < rows and exc.col < cols:
                    table.mark_wrong(exc.row, exc.col, table.item(exc.row, exc.col).text(), str(exc))
                self.status(f"Nothing pasted: value [{exc.row}, {exc.col}]: {exc}", error=True)
                return
            except ValueError as exc:
                self.status(f"Nothing pasted: {exc}", error=True)
                return
            note = self._set_value(new, "Paste Values")
            if note is None:
                return     # refused: the status line says why
            message = f"Pasted {block.size - dropped} value{'s' * (block.size - dropped != 1)}"
            if whole and new.shape != value.shape:
                message += f"; the shape is now ({shape_text(new.shape)})"
            if dropped:
                message += f"; {dropped} did not fit the table (select every cell to paste a new shape)"
            self.status(message + (f"; {note}" if note else ""))

        def refresh() -> None:
            value = self._value_of()
            why = self._withheld_why()
            quiz_note.setText(f"These values are {why}." if why else "")
            quiz_note.setVisible(bool(why))
            dtype_combo.blockSignals(True)
            name = ops.dtype_name(value)
            if dtype_combo.findText(name) < 0:
                dtype_combo.addItem(name)
            dtype_combo.setCurrentText(name)
            dtype_combo.blockSignals(False)
            if not shape_edit.hasFocus():
                shape_edit.setText(shape_text(value.shape))
            if editable_in_place(value.shape):
                rows, cols = grid_shape(value.shape)
                grid = value.reshape(rows, cols)
                lead = value.shape[:-1]
                labels = [str(tuple(int(i) for i in np.unravel_index(r, lead))) if len(lead) > 1 else str(r)
                          for r in range(rows)] if lead else ["0"]
                shown = [[cell_text(grid[r, c]) for c in range(cols)] for r in range(rows)]
                table.show_cells([[t for t, _ in line] for line in shown], [[tip for _, tip in line] for line in shown],
                                 labels, [str(c) for c in range(cols)])
                table.setFixedHeight(min(260, 30 + 22 * rows))
                table.setVisible(True)
                too_big.setVisible(False)
            else:
                table.setVisible(False)
                rows, cols = grid_shape(value.shape)
                what = (f"{value.size:,} elements" if value.size > EDITABLE_LIMIT else
                        f"{rows:,} rows" if rows > EDITABLE_LIMIT else f"{cols:,} columns")
                too_big.setText(f"{what}: too many to edit here (the viewer shows them). "
                                "Use a generator or a file source for large tensors.")
                too_big.setVisible(True)

        dtype_combo.currentIndexChanged.connect(change_dtype)
        shape_edit.editingFinished.connect(change_shape)
        table.edited.connect(cell_edited)
        table.pasted.connect(pasted)
        table.restored.connect(refresh)
        self._add("dtype", "dtype", dtype_combo, refresh)
        self._add("example shape" if isinstance(node, N.InputSource) else "shape", "shape", shape_edit)
        if isinstance(node, N.InputSource):
            self._build_declared_shape()
        self.widgets["table"] = table
        self.widgets["too_big"] = too_big
        self.widgets["quiz_note"] = quiz_note
        self._form.addRow(quiz_note)
        self._form.addRow(table)
        self._form.addRow(too_big)

    def _build_declared_shape(self) -> None:
        """A graph input's declared shape: named or unknown dimensions (``batch, 4``; ``?`` for
        an unknown one; empty: the example's own shape). Ports downstream show the names, the
        example must fit (the node says where it does not), an export writes it. One undo
        step; a text that is not a shape changes nothing and says why."""
        edit = QtWidgets.QLineEdit()
        edit.setPlaceholderText("e.g. batch, 4 (empty: the example's shape)")
        edit.setToolTip("Names (batch), sizes (4) and ? for unknown, separated by commas. Two inputs "
                        "using one name must agree on its size.")

        def declared():
            return self.graph.node(self.node_id).shape

        def change() -> None:
            text = edit.text().strip()
            try:
                new = dims.parse_shape(text) if text else None
            except ValueError as exc:
                self.status(f"declared shape: {exc}", error=True)
                show(declared())   # the field shows what the input holds; the message says why
                edit.selectAll()
                return
            if new != declared():
                self.push(C.SourceCommand(self.graph, self.node_id, "Change Declared Shape", shape=new))

        def show(shape) -> None:
            edit.setText("" if shape is None else dims.format_shape(shape))

        def refresh() -> None:
            if not edit.hasFocus():
                show(declared())

        edit.editingFinished.connect(change)
        self._add("declared shape", "declared_shape", edit, refresh)
