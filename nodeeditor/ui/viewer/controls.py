"""Slice controls for N-D tensors: which two axes are displayed, and where the others sit.

``SliceControls`` holds the choice (``axes``, ``indices``) and emits ``changed`` whenever
it moves. One slider with a spin box per non-displayed axis; ranges are 0..size-1.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets


class SliceControls(QtWidgets.QWidget):
    """Combo boxes for the row and column axes plus a slider per remaining axis."""

    changed = QtCore.Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._shape: tuple[int, ...] = ()
        self._axes: tuple[int, int] = (0, 1)
        self._indices: list[int] = []
        self.sliders: dict[int, QtWidgets.QSlider] = {}
        self.spinboxes: dict[int, QtWidgets.QSpinBox] = {}

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        axes_row = QtWidgets.QHBoxLayout()
        self.row_combo = QtWidgets.QComboBox()
        self.col_combo = QtWidgets.QComboBox()
        self.row_combo.setToolTip("axis drawn downwards (rows)")
        self.col_combo.setToolTip("axis drawn across (columns)")
        for combo in (self.row_combo, self.col_combo):
            # the items change with each tensor ("axis 1 (123456)"): the box follows them
            combo.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        axes_row.addWidget(QtWidgets.QLabel("rows:"))
        axes_row.addWidget(self.row_combo)
        axes_row.addWidget(QtWidgets.QLabel("columns:"))
        axes_row.addWidget(self.col_combo)
        axes_row.addStretch(1)
        layout.addLayout(axes_row)
        self._slider_box = QtWidgets.QGridLayout()
        self._slider_box.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._slider_box)
        self.row_combo.currentIndexChanged.connect(lambda _: self._on_axis_combo(0))
        self.col_combo.currentIndexChanged.connect(lambda _: self._on_axis_combo(1))

    # ------------------------------------------------------------------ state

    @property
    def axes(self) -> tuple[int, int]:
        return self._axes

    @property
    def indices(self) -> list[int]:
        return list(self._indices)

    def set_shape(self, shape: tuple[int, ...], keep: bool = True) -> None:
        """Show controls for a tensor of ``shape``; keeps the axes/indices when they still fit."""
        shape = tuple(int(s) for s in shape)
        ndim = len(shape)
        old_axes, old_indices = self._axes, self._indices
        same_rank = keep and len(self._shape) == ndim
        self._shape = shape
        if ndim < 2:
            self._axes, self._indices = (0, 1), [0] * ndim
            self._rebuild()
            return
        self._axes = old_axes if same_rank else (ndim - 2, ndim - 1)
        self._indices = ([min(i, s - 1) if s else 0 for i, s in zip(old_indices, shape, strict=True)] if same_rank
                         else [0] * ndim)
        self._rebuild()

    def set_axes(self, row_axis: int, col_axis: int) -> None:
        if row_axis == col_axis:
            raise ValueError("the two displayed axes must differ")
        self._axes = (int(row_axis), int(col_axis))
        self._rebuild()
        self.changed.emit()

    def set_index(self, axis: int, index: int) -> None:
        self.sliders[axis].setValue(int(index))

    # ------------------------------------------------------------------ widgets

    def _rebuild(self) -> None:
        ndim = len(self._shape)
        for combo, axis in ((self.row_combo, self._axes[0]), (self.col_combo, self._axes[1])):
            combo.blockSignals(True)
            combo.clear()
            for k in range(ndim):
                combo.addItem(f"axis {k} ({self._shape[k]})", k)
            if ndim >= 2:
                combo.setCurrentIndex(axis)
            combo.blockSignals(False)
        while self._slider_box.count():
            item = self._slider_box.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.sliders.clear()
        self.spinboxes.clear()
        if ndim < 3:
            return
        row = 0
        for axis, size in enumerate(self._shape):
            if axis in self._axes:
                continue
            label = QtWidgets.QLabel(f"axis {axis}")
            slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
            spin = QtWidgets.QSpinBox()
            for w in (slider, spin):
                w.setRange(0, max(0, size - 1))
                w.setValue(self._indices[axis])
                w.setEnabled(size > 1)   # one position: nothing to choose
            spin.setSuffix(f" of 0..{size - 1}" if size > 1 else " (size 1)")
            slider.valueChanged.connect(spin.setValue)
            spin.valueChanged.connect(slider.setValue)
            slider.valueChanged.connect(lambda value, a=axis: self._on_index(a, value))
            self._slider_box.addWidget(label, row, 0)
            self._slider_box.addWidget(slider, row, 1)
            self._slider_box.addWidget(spin, row, 2)
            self.sliders[axis] = slider
            self.spinboxes[axis] = spin
            row += 1

    def _on_axis_combo(self, which: int) -> None:
        combo = self.row_combo if which == 0 else self.col_combo
        chosen = combo.currentData()
        if chosen is None:
            return
        axes = list(self._axes)
        other = 1 - which
        if chosen == axes[other]:  # picking the other displayed axis swaps the two
            axes[other] = axes[which]
        axes[which] = chosen
        self._axes = (axes[0], axes[1])
        QtCore.QTimer.singleShot(0, self._rebuild)  # never delete a combo inside its own signal
        self.changed.emit()

    def _on_index(self, axis: int, value: int) -> None:
        if self._indices[axis] != value:
            self._indices[axis] = value
            self.changed.emit()
