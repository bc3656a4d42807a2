"""The Training dock's widget: the loss, Step, Train N steps, Stop, the optimizer and its
learning rate, and the loss curve (pyqtgraph) of the steps run.

:class:`TrainingPanel` holds widgets and nothing else: it says what was asked through its
signals and shows what :class:`~.training_runs.TrainingController` tells it (the loss, a
run's progress, the curve's points, a message). UI thread only.
"""
from __future__ import annotations

import html

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph.optimizers import DEFAULT_LEARNING_RATES, OptimizerKind, OptimizerSettings

from . import theme
from .canvas import style

#: How the optimizer list names each kind.
OPTIMIZER_TITLES = {OptimizerKind.SGD: "SGD, momentum 0.9", OptimizerKind.ADAM: "Adam"}
#: The steps a Train run takes when nobody chose another number.
DEFAULT_STEPS = 50
MAX_STEPS = 1_000_000
#: Up to this many points the curve marks each one.
MARKED_POINTS = 200

#: The curve's colour: the gradient's (``style.GRADIENT_COLOUR``), opaque.
CURVE_COLOUR = QtGui.QColor(style.GRADIENT_COLOUR.red(), style.GRADIENT_COLOUR.green(), style.GRADIENT_COLOUR.blue())


class TrainingPanel(QtWidgets.QWidget):
    """Signals: ``stepRequested()``, ``trainRequested(int)`` (steps), ``stopRequested()``."""

    stepRequested = QtCore.Signal()
    trainRequested = QtCore.Signal(int)
    stopRequested = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.loss_label = QtWidgets.QLabel("loss —")
        self.loss_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.loss_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)
        font.setBold(True)
        self.loss_label.setFont(font)
        self.step_button = QtWidgets.QPushButton("Step")
        self.step_button.setToolTip("One optimizer step (one undo step)")
        self.train_button = QtWidgets.QPushButton("Train")
        self.train_button.setToolTip("Run this many optimizer steps off the editor's thread; the whole run is "
                                     "one undo step")
        self.steps_box = QtWidgets.QSpinBox()
        self.steps_box.setRange(1, MAX_STEPS)
        self.steps_box.setValue(DEFAULT_STEPS)
        self.steps_box.setSuffix(" steps")
        self.steps_box.setToolTip("How many steps Train runs")
        self.steps_box.setMinimumWidth(self.steps_box.fontMetrics().horizontalAdvance(f"{MAX_STEPS} steps") + 40)
        self.stop_button = QtWidgets.QPushButton("Stop")
        self.stop_button.setToolTip("Stop after the step under way; the steps done are kept (one undo step)")
        self.optimizer_combo = QtWidgets.QComboBox()
        for kind, title in OPTIMIZER_TITLES.items():
            self.optimizer_combo.addItem(title, kind)
        self.lr_box = QtWidgets.QDoubleSpinBox()
        self.lr_box.setDecimals(5)
        self.lr_box.setRange(0.00001, 100.0)
        self.lr_box.setSingleStep(0.01)
        self.lr_box.setValue(DEFAULT_LEARNING_RATES[OptimizerKind.SGD])
        self.lr_box.setToolTip("The learning rate (each optimizer starts at its own default)")
        self.progress = QtWidgets.QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.hide()
        self.message = QtWidgets.QLabel("")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)

        self._plot: pg.PlotWidget | None = None   # made on first use (:meth:`_ensure_plot`)
        self._curve: pg.PlotDataItem | None = None
        self._plot_place = QtWidgets.QVBoxLayout()
        self._plot_place.setContentsMargins(0, 0, 0, 0)
        self._steps: list[int] = []
        self._losses: list[float] = []

        run_row = QtWidgets.QHBoxLayout()
        for w in (self.step_button, self.train_button, self.steps_box, self.stop_button):
            run_row.addWidget(w)
        run_row.addStretch(1)
        form = QtWidgets.QFormLayout()
        form.setLabelAlignment(QtCore.Qt.AlignmentFlag.AlignRight)
        form.addRow("Optimizer", self.optimizer_combo)
        form.addRow("Learning rate", self.lr_box)
        controls = QtWidgets.QVBoxLayout()
        controls.addWidget(self.loss_label)
        controls.addLayout(run_row)
        controls.addLayout(form)
        controls.addWidget(self.progress)
        controls.addWidget(self.message)
        controls.addStretch(1)
        left = QtWidgets.QWidget()
        left.setLayout(controls)
        left.setMaximumWidth(380)
        layout = QtWidgets.QHBoxLayout(self)
        layout.addWidget(left)
        layout.addLayout(self._plot_place, 1)

        self.step_button.clicked.connect(self.stepRequested)
        self.train_button.clicked.connect(lambda: self.trainRequested.emit(self.steps_box.value()))
        self.stop_button.clicked.connect(self.stopRequested)
        self.optimizer_combo.currentIndexChanged.connect(self._optimizer_changed)
        self._optimizer = OptimizerKind.SGD
        theme.theme().changed.connect(self._theme_changed)   # a method: gone with the widget
        self._restyle()
        self.set_running(False)

    # ------------------------------------------------------------------ settings
    def settings(self) -> OptimizerSettings:
        """The optimizer and learning rate chosen."""
        return OptimizerSettings(self.optimizer_combo.currentData(), float(self.lr_box.value()))

    def _optimizer_changed(self, _index: int) -> None:
        """A learning rate still at the old optimizer's default takes the new one's."""
        kind = self.optimizer_combo.currentData()
        if abs(self.lr_box.value() - DEFAULT_LEARNING_RATES[self._optimizer]) < 1e-12:
            self.lr_box.setValue(DEFAULT_LEARNING_RATES[kind])
        self._optimizer = kind

    # ------------------------------------------------------------------ showing
    def set_running(self, running: bool, steps: int = 0) -> None:
        """A run of ``steps`` started (the Stop button and the progress bar), or none is going."""
        for w in (self.step_button, self.train_button, self.steps_box, self.optimizer_combo, self.lr_box):
            w.setEnabled(not running)
        self.stop_button.setEnabled(running)
        self.progress.setVisible(running)
        if running:
            self.progress.setRange(0, steps)
            self.progress.setValue(0)
            self.progress.setFormat(f"step 0 / {steps}")

    def set_progress(self, done: int, steps: int) -> None:
        self.progress.setRange(0, steps)
        self.progress.setValue(done)
        self.progress.setFormat(f"step {done} / {steps}")

    def set_loss(self, loss: float | None, note: str = "") -> None:
        """The loss shown large (None: none), with ``note`` after it."""
        text = "loss —" if loss is None else f"loss {loss:.6g}"
        self.loss_label.setText(text + (f"   {note}" if note else ""))

    def set_message(self, text: str, error: bool = False) -> None:
        colour = style.STATE_COLOURS[style.ERROR].name() if error else theme.plot_colours().foreground
        self.message.setText(f"<span style='color:{colour}'>{html.escape(text)}</span>" if text else "")

    @property
    def plot(self) -> pg.PlotWidget:
        """The loss curve's plot, made on first use (:meth:`_ensure_plot`)."""
        return self._ensure_plot()

    @property
    def curve(self) -> pg.PlotDataItem:
        """The loss curve (:attr:`plot`'s)."""
        self._ensure_plot()
        return self._curve

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        self._ensure_plot()
        super().showEvent(event)

    def _ensure_plot(self) -> pg.PlotWidget:
        """The plot, made with the points so far if it is not yet: on the panel's first
        showing, as a rule (the dock starts closed, and most sessions never open it)."""
        if self._plot is None:
            self._plot = pg.PlotWidget()
            self._plot.setMinimumSize(160, 90)
            self._plot.setLabel("bottom", "step")
            self._plot.setLabel("left", "loss")
            self._plot.getAxis("left").enableAutoSIPrefix(False)   # "600" under "loss (x0.001)" misleads
            self._plot.showGrid(x=True, y=True, alpha=0.25)
            self._plot.setMouseEnabled(x=False, y=False)
            self._plot.hideButtons()
            self._curve = self._plot.plot([], [], pen=pg.mkPen(CURVE_COLOUR, width=2), symbol="o", symbolSize=4,
                                          symbolBrush=CURVE_COLOUR, symbolPen=None)
            self._curve.setDownsampling(auto=True, method="peak")
            self._curve.setClipToView(True)
            self._plot_place.addWidget(self._plot)
            self._plot.show()  # a child added to a shown panel (or one being shown) stays hidden until shown
            self._restyle()
            self._draw_curve()
        return self._plot

    def clear_curve(self) -> None:
        self._steps, self._losses = [], []
        self._draw_curve()

    def add_points(self, steps: list[int], losses: list[float]) -> None:
        """More points of the curve: the loss at each of ``steps`` (counted over the curve),
        drawn with one ``setData``. Past :data:`MARKED_POINTS` points the curve is a line
        without markers, thinned to the pixels it covers (a run of a million steps stays
        cheap to draw)."""
        self._steps.extend(steps)
        self._losses.extend(losses)
        self._draw_curve()

    def _draw_curve(self) -> None:
        """The points so far on the curve, once its plot is made."""
        if self._curve is None:
            return
        self._curve.setSymbol("o" if len(self._steps) <= MARKED_POINTS else None)
        self._curve.setData(np.asarray(self._steps, float), np.asarray(self._losses, float))

    def curve_points(self) -> tuple[list[int], list[float]]:
        """(steps, losses) drawn."""
        return list(self._steps), list(self._losses)

    def _theme_changed(self, _mode) -> None:
        self._restyle()

    def _restyle(self) -> None:
        if self._plot is None:  # styled when it is made
            return
        colours = theme.plot_colours()
        self._plot.setBackground(colours.background)
        for name in ("bottom", "left"):
            axis = self._plot.getAxis(name)
            axis.setPen(pg.mkPen(colours.foreground))
            axis.setTextPen(pg.mkPen(colours.text))
