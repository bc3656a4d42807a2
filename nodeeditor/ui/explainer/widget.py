"""ExplainerWidget: steps through an op's index map, one element at a time.

``set_operation(title, op, inputs, attrs)`` takes the node's input values; the widget builds
an :class:`ops.explain.Explanation`, shows the step's sentence, and draws the small tensors
with the deciding index, the moved value and the written cell highlighted. Prev/next, a slider
and Play (one step every ``interval_ms``) move through the steps. The "All steps" tab lists
every step as a table row (the whole index map at once); choosing a row goes to that step.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import ops
from ops.explain import Explanation
from ops.opdef import PortRole

from .grid import ROLE_COLOURS, TensorGrid
from .steps_table import StepsView

HINT = "Select an operator node (with its inputs computed) to step through which index sends which value where."
#: The step sentence while the output is hidden (a quiz question).
HIDDEN_SENTENCE = "Where does this step land? (The output is hidden.)"


class ExplainerWidget(QtWidgets.QWidget):
    """The teaching view (see the module docstring). ``stepChanged(int)`` follows the step."""

    stepChanged = QtCore.Signal(int)

    def __init__(self, parent: QtWidgets.QWidget | None = None, interval_ms: int = 700) -> None:
        super().__init__(parent)
        self.explanation: Explanation | None = None
        self._output: np.ndarray | None = None
        self.output_hidden = False
        self.title = QtWidgets.QLabel(HINT)
        self.title.setWordWrap(True)
        self.prev_button = QtWidgets.QToolButton(text="◀")
        self.next_button = QtWidgets.QToolButton(text="▶")
        self.play_button = QtWidgets.QToolButton(text="Play")
        self.play_button.setCheckable(True)
        # as wide as its wider label, so Play <-> Pause does not shift the slider
        width = max(self.play_button.fontMetrics().horizontalAdvance(t) for t in ("Play", "Pause")) + 18
        self.play_button.setFixedWidth(width)
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.counter = QtWidgets.QLabel("")
        self.sentence = QtWidgets.QLabel("")
        self.sentence.setWordWrap(True)
        self.sentence.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.sentence.setStyleSheet("font-family: monospace;")
        self.grids = [TensorGrid() for _ in range(4)]   # gathers use three
        legend = " ".join(f'<span style="background:{fill}; border:1px solid {edge}">&nbsp;{role}&nbsp;</span>'
                          for role, (fill, edge) in ROLE_COLOURS.items())
        self.legend = QtWidgets.QLabel(legend)

        controls = QtWidgets.QHBoxLayout()
        for w in (self.prev_button, self.slider, self.next_button, self.play_button, self.counter):
            controls.addWidget(w)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(controls)
        layout.addWidget(self.sentence)
        # the grids scroll (both ways) inside the dock: the explainer asks for little width
        # (a projector at QT_SCALE_FACTOR=1.5 has 853 logical px), no cell or title is cut
        self.grid_area = QtWidgets.QWidget()
        self.grid_area.setObjectName("explainerGrids")
        self.grid_area.setBackgroundRole(QtGui.QPalette.ColorRole.Window)
        area = QtWidgets.QVBoxLayout(self.grid_area)
        area.setContentsMargins(0, 0, 0, 0)
        grids = QtWidgets.QHBoxLayout()
        for g in self.grids:
            grids.addWidget(g, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        grids.addStretch(1)
        area.addLayout(grids)
        area.addWidget(self.legend)
        area.addStretch(1)
        self.scroll = QtWidgets.QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.grid_area)
        self.scroll.setMinimumHeight(60)
        # "All steps": the whole index map as a table; choosing a row goes to that step
        self.steps = StepsView()
        self.steps.stepChosen.connect(self.set_step)
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.scroll, "Step")
        self.tabs.addTab(self.steps, "All steps")
        layout.addWidget(self.tabs, 1)

        self.timer = QtCore.QTimer(self, interval=interval_ms)
        self.timer.timeout.connect(self._advance)
        self.prev_button.clicked.connect(lambda: self.set_step(self.step - 1))
        self.next_button.clicked.connect(lambda: self.set_step(self.step + 1))
        self.play_button.toggled.connect(self._play)
        self.slider.valueChanged.connect(self._show)
        self.clear()

    # ------------------------------------------------------------------ public
    @property
    def step(self) -> int:
        return self.slider.value()

    @property
    def count(self) -> int:
        return 0 if self.explanation is None else self.explanation.count

    def clear(self, message: str = HINT) -> None:
        """Show ``message`` and nothing to step through."""
        self.explanation, self._output = None, None
        self.timer.stop()
        self.play_button.setChecked(False)
        self.title.setText(message)
        self.sentence.setText("")
        self.counter.setText("")
        for g in self.grids:
            g.set_tensor("", None)
            g.hide()
        self.legend.hide()
        self.steps.show_explanation(None)
        self.tabs.hide()   # idle: the dock is a line (the hint and the controls)
        for w in (self.prev_button, self.next_button, self.play_button, self.slider):
            w.setEnabled(False)

    def set_operation(self, title: str, op: str, inputs: Sequence[np.ndarray | None],
                      attrs: Mapping[str, Any] | None = None) -> bool:
        """Explain ``op`` on ``inputs``; returns False (and shows why) when it cannot run."""
        try:
            explanation = Explanation(op, inputs, attrs)
            output = ops.run_op(op, inputs, attrs)
        except ops.OpError as exc:
            self.clear(f"{title}: {exc}")
            return False
        if explanation.count == 0:
            self.clear(f"{title}: nothing to step through (no elements)")
            return False
        self.explanation, self._output = explanation, output
        what = "output element" if explanation.kind == "gather" else "update"
        self.title.setText(f"<b>{title}</b> — {op}: {explanation.count} step{'s' * (explanation.count != 1)}, "
                           f"one per {what}, in row-major order")
        self._set_grids()
        self.steps.show_explanation(explanation)
        self.tabs.show()
        self.slider.blockSignals(True)
        self.slider.setRange(0, explanation.count - 1)
        self.slider.setValue(0)
        self.slider.blockSignals(False)
        for w in (self.prev_button, self.next_button, self.play_button, self.slider):
            w.setEnabled(True)
        self._show(0)
        return True

    def set_step(self, k: int) -> None:
        if self.explanation is not None:
            self.slider.setValue(max(0, min(self.count - 1, k)))

    def set_output_hidden(self, hidden: bool) -> None:
        """Hide (True) the answer of each step, for a quiz: the output grid's values (its
        cells show "?"), the step sentence, the "All steps" table, and the mark of the cell
        that answers the step: the data cell a gather reads, the output (and data) cell a
        scatter writes. The question stays marked: the deciding index, and the output
        element (gather) or the update (scatter). False shows them again. Kept across
        operations until changed."""
        self.output_hidden = bool(hidden)
        self.tabs.setTabVisible(1, not self.output_hidden)
        if self.output_hidden:
            self.tabs.setCurrentIndex(0)
        if self.explanation is not None:
            self._show(self.step)

    # ------------------------------------------------------------------ internals
    def _panels(self) -> list[tuple[str, np.ndarray | None]]:
        """(title, tensor) of each grid: the op's inputs under their schema names (an omitted
        optional input shows nothing), then the output. A scatter's output grid shows the
        output as it stands after the current step."""
        e = self.explanation
        names = [p.name for p in e.schema.inputs]
        inputs = list(e.inputs) + [None] * (len(names) - len(e.inputs))
        return [*zip(names, inputs, strict=True), ("output", self._output)]

    def grid(self, title: str) -> TensorGrid:
        """The grid of the tensor named ``title`` (``output``: the output grid, whatever step)."""
        for grid, (name, _) in zip(self.grids, self._panels(), strict=False):  # four grids; gathers use three
            if name == title:
                return grid
        raise KeyError(title)

    def _set_grids(self) -> None:
        any_drawn = False
        panels = self._panels()
        for i, grid in enumerate(self.grids):
            name, array = panels[i] if i < len(panels) else ("", None)
            grid.set_tensor(name, None if array is None else np.asarray(array))
            grid.setVisible(array is not None)
            any_drawn |= TensorGrid.drawable(None if array is None else np.asarray(array))
        self.legend.setVisible(any_drawn)

    def _show(self, k: int) -> None:
        e = self.explanation
        if e is None:
            return
        move = e.move(k)
        self.counter.setText(f"{k + 1} / {e.count}")
        self.sentence.setText(move.text)
        index_cell = {move.index_position: "index"} if move.index_position is not None else {}
        if e.kind == "gather":
            by_role = {PortRole.DATA: {move.target: "source"}, PortRole.INDICES: index_cell}
            marks = [by_role[e.opdef.role(p.name)] for p in e.schema.inputs] + [{move.element: "target"}]
        else:
            flat = int(np.ravel_multi_index(move.target, e.map.target_shape)) if move.target else 0
            others = {}
            for s in e.contributors(flat):
                if s != k:
                    others[tuple(int(i) for i in np.unravel_index(s, e.map.element_shape))] = "also"
            source = {**others, move.element: "source"}
            by_role = {PortRole.DATA: {move.target: "target"}, PortRole.INDICES: index_cell, PortRole.UPDATES: source}
            marks = [by_role[e.opdef.role(p.name)] for p in e.schema.inputs] + [{move.target: "target"}]
            output = self.grids[len(e.schema.inputs)]
            output.set_tensor("output", e.output_after(k), f"after step {k + 1}" if k < e.count - 1 else "")
        if self.output_hidden:
            self.sentence.setText(HIDDEN_SENTENCE)
            # the answer: the data cell a gather reads, the output cell a scatter writes
            answer = "source" if e.kind == "gather" else "target"
            marks = [{p: r for p, r in m.items() if r != answer} for m in marks]
        for i, (grid, mark) in enumerate(zip(self.grids, marks, strict=False)):  # four grids; gathers mark three
            grid.set_masked(self.output_hidden and i == len(e.schema.inputs))
            grid.set_highlights(self._fit(grid, mark))
        self.prev_button.setEnabled(k > 0)
        self.next_button.setEnabled(k < e.count - 1)
        self.steps.show_step(k)
        self.stepChanged.emit(k)

    @staticmethod
    def _fit(grid: TensorGrid, marks: dict) -> dict:
        """Highlights for a GatherND/ScatterND index tuple cover its whole row of indices."""
        if grid.full is None:
            return {}
        out = {}
        for pos, role in marks.items():
            if len(pos) == grid.full.ndim:
                out[pos] = role
            elif len(pos) == grid.full.ndim - 1:
                for c in range(grid.full.shape[-1]):
                    out[pos + (c,)] = role
        return out

    def _play(self, on: bool) -> None:
        if on and self.explanation is not None:
            if self.step >= self.count - 1:
                self.set_step(0)
            self.play_button.setText("Pause")
            self.timer.start()
        else:
            self.play_button.setText("Play")
            self.timer.stop()

    def _advance(self) -> None:
        if self.step >= self.count - 1:
            self.play_button.setChecked(False)
            return
        self.set_step(self.step + 1)
