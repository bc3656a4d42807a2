"""ExplainerWidget: steps through an op's index map, one element (or one slice) at a time.

``set_operation(title, op, inputs, attrs)`` takes the node's input values; the widget builds
an :class:`ops.explain.Explanation` and shows each step (:class:`ops.steps.Step`): its formula
with the numbers, and the tensors as grids (:class:`.grid.TensorGrid`, laid out by
:class:`.flow.FlowLayout` so a narrow window stacks them) with the source, the deciding index
and the destination highlighted and joined by arrows (:class:`.arrows.ArrowOverlay`). After
each step, and whenever the grids are laid out again or the view is resized, the output
grid's row being written is scrolled into view.

Moving: ◀ / ▶, the slider, Play (at :attr:`speed` steps per second; the menu of its arrow
sets Slow, Normal, Fast or a number), and the keys Space (play / pause), Left / Right (a
step), Home / End (first / last step) while the focus is in the widget (presentation mode
makes them window-wide: :attr:`key_actions`), except where a focused button, table, slider or
tab bar uses the key itself (:mod:`.stepping_keys`). The "All steps" tab lists every step as a table
row; choosing a row goes to that step. The ⋯ menu (also on right-click) switches GatherND,
ScatterND and TensorScatter between slice and single-element steps and exports the step-through as slides.

Forward / Backward (the Backward toggle beside the title and in the ⋯ menu,
:attr:`direction`): Backward steps through
the op's backward pass instead (``set_backward``, an :class:`ops.backward_steps.
BackwardExplanation`): for each element, which gradient cell it comes from and why, with
``d output`` (the given gradient) and the gradients being built as grids. Which direction is
shown is the caller's choice (``directionChanged`` says the person switched); the widget
shows what it is given.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import ops
from ops.backward_steps import BackwardExplanation
from ops.explain import Explanation
from ops.opdef import PortRole
from ops.steps import Granularity, Step

from .arrows import ArrowOverlay, Link
from .flow import FlowLayout
from .grid import ROLE_COLOURS, TensorGrid
from .stepping_keys import ControlsKeepKeys
from .steps_table import StepsView

HINT = "Select an operator node (with its inputs computed) to step through which index sends which value where."
#: The step sentence while the output is hidden (a quiz question).
HIDDEN_SENTENCE = "Where does this step land? (The output is hidden.)"
#: Play speeds by name, in steps per second.
SPEEDS = {"Slow": 0.5, "Normal": 1.5, "Fast": 5.0}
DEFAULT_SPEED = SPEEDS["Normal"]
MIN_SPEED, MAX_SPEED = 0.1, 100.0
#: Other updates hitting the same cell are marked up to this many (a segment sum has thousands).
MAX_ALSO = 200
#: The formula's area grows up to this many lines, then scrolls.
SENTENCE_LINES = 5


class Direction(Enum):
    """Which pass the Explainer steps through."""

    FORWARD = "Forward"
    BACKWARD = "Backward"


class SentenceArea(QtWidgets.QScrollArea):
    """Holds the step's formula: as tall as its wrapped lines, at most SENTENCE_LINES (then it
    scrolls), at least one line."""

    def __init__(self, label: QtWidgets.QLabel) -> None:
        super().__init__()
        self.label = label
        self.setWidgetResizable(True)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setWidget(label)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Maximum)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)   # no invisible stop for Tab
        label.installEventFilter(self)

    def _line(self) -> int:
        return self.label.fontMetrics().lineSpacing()

    def sizeHint(self) -> QtCore.QSize:
        width = max(50, self.viewport().width())
        wanted = self.label.heightForWidth(width) if self.label.text() else 0
        return QtCore.QSize(width, min(max(wanted, 0), SENTENCE_LINES * self._line() + 4))

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(50, min(self.sizeHint().height(), self._line() + 4))

    def eventFilter(self, watched, event) -> bool:
        if watched is self.label and event.type() in (QtCore.QEvent.Type.LayoutRequest, QtCore.QEvent.Type.Resize,
                                                      QtCore.QEvent.Type.FontChange):
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.updateGeometry()


def settle(widget: QtWidgets.QWidget) -> None:
    """Let pending layouts and deferred scrolls run (a few event-loop turns, no user input), so
    sizes can be measured and a grab shows what the screen would."""
    app = QtWidgets.QApplication.instance()
    for _ in range(3):
        app.sendPostedEvents()
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)


def largest_fitting_zoom(zooms: Sequence[float], apply: Callable[[float], None], fits: Callable[[], bool]) -> float:
    """Apply the largest of ``zooms`` after which ``fits()`` holds, else the smallest; returns
    it (the Explainer's and the Quiz's text in presentation mode)."""
    ordered = sorted(zooms, reverse=True)
    for zoom in ordered:
        apply(zoom)
        if fits():
            return zoom
    apply(ordered[-1])
    return ordered[-1]


#: What each highlight colour means (the legend's tooltip).
LEGEND_TIP = ("index: the index value that decides this step\n"
              "source: the cell read (a gather) or the update written (a scatter)\n"
              "target: the cell written (a scatter) or the output element (a gather)\n"
              "also: the other updates that reach the same output cell (duplicates; with a reduction they fold "
              "together, without one the last in row-major order wins)")


class ExplainerWidget(QtWidgets.QWidget):
    """The teaching view (see the module docstring). ``stepChanged(int)`` follows the step."""

    stepChanged = QtCore.Signal(int)
    #: A new operation is shown, or none (cleared).
    operationChanged = QtCore.Signal()
    #: The person chose Forward or Backward (a :class:`Direction`).
    directionChanged = QtCore.Signal(object)
    #: Explainer > Export Slides… was chosen (the controller that holds the widget opens the dialog)
    slidesRequested = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget | None = None, interval_ms: int | None = None) -> None:
        super().__init__(parent)
        self.explanation: Explanation | BackwardExplanation | None = None
        self.direction = Direction.FORWARD
        self.current: Step | None = None      # the step shown
        self._output: np.ndarray | None = None
        self._operation: tuple | None = None   # (title, op, inputs, attrs) of set_operation
        self.output_hidden = False
        #: None: each op's default (slices for GatherND, ScatterND, TensorScatter); ELEMENT: single elements
        self.granularity: Granularity | None = None
        self.title = QtWidgets.QLabel(HINT)
        self.title.setWordWrap(True)
        self.prev_button = QtWidgets.QToolButton(text="◀")
        self.prev_button.setToolTip("Previous step (Left)")
        self.prev_button.setAccessibleName("Previous step")   # screen readers read names, not ◀
        self.next_button = QtWidgets.QToolButton(text="▶")
        self.next_button.setToolTip("Next step (Right)")
        self.next_button.setAccessibleName("Next step")
        self.play_button = QtWidgets.QToolButton(text="Play")
        self.play_button.setCheckable(True)
        self.play_button.setToolTip("Play or pause (Space); the arrow sets the speed")
        self.play_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self._fit_play_button()
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setAccessibleName("Step")
        self.counter = QtWidgets.QLabel("")
        self.menu_button = QtWidgets.QToolButton(text="⋯")
        self.menu_button.setToolTip("Explainer options: single elements, export slides")
        self.menu_button.setAccessibleName("Explainer options")
        self.menu_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        self.sentence = QtWidgets.QLabel("")
        self.sentence.setWordWrap(True)
        self.sentence.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        mono = QtGui.QFont(self.font())
        mono.setFamily("monospace")
        mono.setStyleHint(QtGui.QFont.StyleHint.Monospace)
        self.sentence.setFont(mono)
        self.zoom = 1.0
        self.grids = [TensorGrid() for _ in range(4)]   # gathers use three
        #: more grids for a backward step-through (up to six tensors: values, indices, gradients)
        self.more_grids = [TensorGrid() for _ in range(2)]
        # Forward / Backward: one checkable action, on a button beside the title and in the ⋯ menu
        # (two buttons would widen the docked Explainer past what a projector allows)
        self.backward_action = QtGui.QAction("&Backward", self)
        self.backward_action.setCheckable(True)
        self.backward_action.setToolTip("Backward: step through the backward pass, where each gradient element "
                                        "comes from (needs a Loss node and a trainable source); off: forward, "
                                        "what the op computes")
        self.backward_action.toggled.connect(
            lambda on: self._choose_direction(Direction.BACKWARD if on else Direction.FORWARD))
        self.backward_action.setIconText("∇")   # the button's text: narrow, so the title keeps its width
        self.backward_button = QtWidgets.QToolButton()
        self.backward_button.setDefaultAction(self.backward_action)
        self.backward_button.setAccessibleName("Backward pass")   # its text is ∇
        legend = " ".join(f'<span style="background:{fill}; color:#1d2030; border:1px solid {edge}">'
                          f'&nbsp;{role}&nbsp;</span>' for role, (fill, edge) in ROLE_COLOURS.items())
        self.legend = QtWidgets.QLabel(legend)
        self.legend.setWordWrap(True)   # a narrow dock wraps it rather than scroll sideways
        self.legend.setToolTip(LEGEND_TIP)

        # the ⋯ menu at the title's right (a panel's menu), the stepping controls below: the
        # Explainer stays narrow on a projector
        heading = QtWidgets.QHBoxLayout()
        heading.addWidget(self.title, 1)
        heading.addWidget(self.backward_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        heading.addWidget(self.menu_button, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        self._controls = QtWidgets.QHBoxLayout()
        self._controls.setSpacing(4)
        for w in (self.prev_button, self.slider, self.next_button, self.play_button, self.counter):
            self._controls.addWidget(w)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(heading)
        layout.addLayout(self._controls)
        # the step's formula stays in view above the grids; in a low dock its lines scroll
        # (up to SENTENCE_LINES tall) rather than being cut
        self.sentence_area = SentenceArea(self.sentence)
        layout.addWidget(self.sentence_area)
        # the grids wrap onto more lines in a narrow window (a projector: 853 logical px at
        # QT_SCALE_FACTOR=1.5) and scroll vertically; each grid shows a window of a large tensor
        self.grid_area = QtWidgets.QWidget()
        self.grid_area.setObjectName("explainerGrids")
        self.grid_area.setBackgroundRole(QtGui.QPalette.ColorRole.Window)
        area = QtWidgets.QVBoxLayout(self.grid_area)
        area.setContentsMargins(0, 0, 0, 0)
        self.flow = FlowLayout(spacing=14)
        for g in self.grids + self.more_grids:
            self.flow.addWidget(g)
        self.flow.addWidget(self.legend)   # after the last grid when there is room: no line of its own
        area.addLayout(self.flow)
        area.addStretch(1)
        self.arrows = ArrowOverlay(self.grid_area)
        self.arrows.ceiling = lambda: self.flow.geometry().top()
        self.arrows.grids = lambda: self.grids + self.more_grids
        self.scroll = QtWidgets.QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.grid_area)
        self.scroll.setMinimumHeight(60)
        self.scroll.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)   # no invisible stop for Tab
        # "All steps": the whole index map as a table; choosing a row goes to that step
        self.steps = StepsView()
        self.steps.stepChosen.connect(self.set_step)
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.scroll, "Step")
        self.tabs.addTab(self.steps, "All steps")
        layout.addWidget(self.tabs, 1)
        # idle (the tabs hidden), this takes the dock's spare height, so the hint and the controls
        # stay at the top instead of being spread over it
        self._idle_space = QtWidgets.QSpacerItem(0, 0)
        layout.addItem(self._idle_space)

        # the row being written is scrolled into view after each step, and again whenever a
        # grid moves or resizes or the view resizes (a layout settles over several event-loop
        # turns: a grid's columns, title lines and height follow the width it gets); the
        # grids' parent moving is a scroll, which is left alone
        self._reveal_later = QtCore.QTimer(self)
        self._reveal_later.setSingleShot(True)
        self._reveal_later.setInterval(0)
        self._reveal_later.timeout.connect(self._reveal)
        for watched in (self.scroll.viewport(), self.grid_area, *self.grids):
            watched.installEventFilter(self)

        self.timer = QtCore.QTimer(self)
        self.timer.timeout.connect(self._advance)
        self.speed = DEFAULT_SPEED
        self._build_menus()
        self._build_keys()
        self.set_speed(DEFAULT_SPEED if not interval_ms else 1000.0 / interval_ms)
        self.prev_button.clicked.connect(lambda: self.set_step(self.step - 1))
        self.next_button.clicked.connect(lambda: self.set_step(self.step + 1))
        self.play_button.toggled.connect(self._play)
        self.slider.valueChanged.connect(self._show)
        self.clear()

    # ------------------------------------------------------------------ building
    def _build_menus(self) -> None:
        # speed: the Play button's own menu
        self.speed_menu = QtWidgets.QMenu("Speed", self)
        self._speed_group = QtGui.QActionGroup(self)
        self.speed_actions: dict[str, QtGui.QAction] = {}
        for name, value in SPEEDS.items():
            action = self.speed_menu.addAction(f"{name} ({value:g} steps/s)")
            action.setCheckable(True)
            action.triggered.connect(lambda _checked=False, v=value: self.set_speed(v))
            self._speed_group.addAction(action)
            self.speed_actions[name] = action
        self.speed_menu.addSeparator()
        box = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(box)
        row.setContentsMargins(8, 2, 8, 2)
        self.speed_box = QtWidgets.QDoubleSpinBox()
        self.speed_box.setRange(MIN_SPEED, MAX_SPEED)
        self.speed_box.setDecimals(1)
        self.speed_box.setSingleStep(0.5)
        self.speed_box.setSuffix(" steps/s")
        self.speed_box.valueChanged.connect(lambda v: abs(v - self.speed) > 1e-9 and self.set_speed(v))
        row.addWidget(QtWidgets.QLabel("Speed:"))
        row.addWidget(self.speed_box)
        spin_action = QtWidgets.QWidgetAction(self)
        spin_action.setDefaultWidget(box)
        self.speed_menu.addAction(spin_action)
        self.play_button.setMenu(self.speed_menu)
        # the ⋯ menu (and right-click)
        self.menu = QtWidgets.QMenu("Explainer &Steps", self)   # its title names it in View
        self.elements_action = self.menu.addAction("Single &Elements")
        self.elements_action.setCheckable(True)
        self.elements_action.setStatusTip("GatherND, ScatterND, TensorScatter: one step per element instead of "
                                          "one per slice")
        self.elements_action.toggled.connect(
            lambda on: self.set_granularity(Granularity.ELEMENT if on else None))
        self.menu.addMenu(self.speed_menu)
        self.menu.addAction(self.backward_action)
        self.menu.addSeparator()
        self.export_action = self.menu.addAction("Export &Slides…", self.slidesRequested.emit)
        self.export_action.setStatusTip("Save the step-through as an animated GIF or numbered PNG frames")
        self.menu_button.setMenu(self.menu)

    def _build_keys(self) -> None:
        def key(text: str, keys: str, slot) -> QtGui.QAction:
            action = QtGui.QAction(text, self)
            action.setShortcut(QtGui.QKeySequence(keys))
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
            action.triggered.connect(slot)
            self.addAction(action)
            return action
        self.play_action = key("&Play / Pause", "Space", self.toggle_play)
        self.prev_action = key("P&revious Step", "Left", lambda: self.set_step(self.step - 1))
        self.next_action = key("&Next Step", "Right", lambda: self.set_step(self.step + 1))
        self.first_action = key("&First Step", "Home", lambda: self.set_step(0))
        self.last_action = key("&Last Step", "End", lambda: self.set_step(self.count - 1))
        #: The stepping keys (presentation mode makes them window-wide).
        self.key_actions = (self.play_action, self.prev_action, self.next_action, self.first_action,
                            self.last_action)
        first = self.menu.actions()[0] if self.menu.actions() else None
        self.menu.insertActions(first, list(self.key_actions))
        self.menu.insertSeparator(first)
        # a focused button, table, slider or tab bar keeps Space and the arrows for itself
        self._keys_kept = ControlsKeepKeys(self)

    # ------------------------------------------------------------------ public
    @property
    def step(self) -> int:
        return self.slider.value()

    @property
    def count(self) -> int:
        return 0 if self.explanation is None else self.explanation.count

    def _show_steps(self, shown: bool) -> None:
        """Show the Step and All steps tabs (an explanation) or hide them (idle)."""
        policy = QtWidgets.QSizePolicy.Policy
        self._idle_space.changeSize(0, 0, policy.Minimum, policy.Fixed if shown else policy.Expanding)
        self.tabs.setVisible(shown)
        self.layout().invalidate()

    def clear(self, message: str = HINT) -> None:
        """Show ``message`` and nothing to step through."""
        self.explanation, self._output, self.current, self._operation = None, None, None, None
        self.timer.stop()
        self.play_button.setChecked(False)
        self.title.setText(message)
        self.sentence.setText("")
        self.sentence_area.updateGeometry()
        self.counter.setText("")
        for g in self.grids + self.more_grids:
            g.set_tensor("", None)
            g.hide()
        self.arrows.set_links([])
        self.legend.hide()
        self.steps.show_explanation(None)
        self._show_steps(False)   # idle: the dock is a line (the hint and the controls)
        for w in (self.prev_button, self.next_button, self.play_button, self.slider):
            w.setEnabled(False)
        self.elements_action.setEnabled(False)
        self.export_action.setEnabled(False)
        self.operationChanged.emit()

    def set_operation(self, title: str, op: str, inputs: Sequence[np.ndarray | None],
                      attrs: Mapping[str, Any] | None = None, step: int = 0, refusal: str | None = None) -> bool:
        """Explain ``op`` on ``inputs`` from ``step``; returns False (and shows why: ``refusal``,
        else the title and the op's message) when it cannot run."""
        try:
            explanation = Explanation(op, inputs, attrs, self.granularity)
            output = ops.run_op(op, inputs, attrs)
        except ops.OpError as exc:
            self.clear(refusal or f"{title}: {exc}")
            self._show_refused(op, inputs, exc)
            return False
        if explanation.count == 0:
            self.clear(f"{title}: nothing to step through (no elements)")
            return False
        self.explanation, self._output = explanation, output
        self._operation = (title, op, list(inputs), dict(attrs or {}))
        what = "output element" if explanation.kind == "gather" else "update"
        if explanation.granularity is Granularity.SLICE:
            what = "slice"
        self.title.setText(f"<b>{title}</b> — {op}: {explanation.count} step{'s' * (explanation.count != 1)}, "
                           f"one per {what}, in row-major order")
        self._open_steps(step)
        blocked = self.elements_action.blockSignals(True)
        self.elements_action.setEnabled(explanation.slices_possible)
        self.elements_action.setChecked(explanation.granularity is Granularity.ELEMENT
                                        and explanation.slices_possible)
        self.elements_action.blockSignals(blocked)
        self.export_action.setEnabled(True)
        self._show(self.step)
        self.operationChanged.emit()
        return True

    def _show_refused(self, op: str, inputs: Sequence[np.ndarray | None], exc: ops.OpError) -> None:
        """After :meth:`clear` with the refusal: for an index out of range (whose position the
        error gives), the op's inputs in their grids with that index marked, so a class sees
        which value is wrong; nothing to step through."""
        position = getattr(exc, "position", None)
        if position is None or exc.port is None:
            return
        names = [p.name for p in ops.get_schema(op).inputs]
        for grid, name, value in zip(self.grids, names, list(inputs) + [None] * len(names), strict=False):
            if value is None or not TensorGrid.drawable(np.asarray(value)):
                continue
            grid.set_tensor(name, np.asarray(value))
            grid.set_highlights({tuple(position): "error"} if name == exc.port else {})
            grid.show()
        self._show_steps(True)

    def _open_steps(self, step: int) -> None:
        """Show ``self.explanation``'s grids and steps table, and the stepping controls at
        ``step`` (clamped to the steps there are), without emitting a step change yet."""
        count = self.explanation.count
        self._set_grids()
        self.steps.show_explanation(self.explanation)
        self._show_steps(True)
        self.slider.blockSignals(True)
        self.slider.setRange(0, count - 1)
        self.slider.setValue(max(0, min(count - 1, step)))
        self.slider.blockSignals(False)
        for w in (self.prev_button, self.next_button, self.play_button, self.slider):
            w.setEnabled(True)

    def set_backward(self, title: str, op: str, inputs: Sequence[np.ndarray | None],
                     attrs: Mapping[str, Any] | None, grad_output: np.ndarray, step: int = 0) -> bool:
        """Explain the backward pass of ``op`` on ``inputs`` with ``grad_output`` (d loss / d
        its output) from ``step``; returns False (and shows why) when it cannot."""
        try:
            explanation = BackwardExplanation(op, inputs, attrs, grad_output)
        except ops.OpError as exc:
            self.clear(f"{title}: {exc}")
            return False
        if explanation.count == 0:
            self.clear(f"{title}: nothing to step through (no elements)")
            return False
        self.explanation, self._output, self._operation = explanation, None, None
        self.title.setText(f"<b>{title}</b> — {op} backward: {explanation.count} "
                           f"step{'s' * (explanation.count != 1)}. {explanation.summary}.")
        self._open_steps(step)
        self.elements_action.setEnabled(False)    # backward steps are single elements
        self.export_action.setEnabled(False)      # slides are of the forward pass
        self._show(self.step)
        self.operationChanged.emit()
        return True

    @property
    def backward(self) -> bool:
        """Whether a backward pass is being stepped through."""
        return isinstance(self.explanation, BackwardExplanation)

    def set_direction(self, direction: Direction) -> None:
        """Mark ``direction`` as the one shown (no ``directionChanged``; the caller then gives
        the widget what to show)."""
        self.direction = Direction(direction)
        blocked = self.backward_action.blockSignals(True)
        self.backward_action.setChecked(self.direction is Direction.BACKWARD)
        self.backward_action.blockSignals(blocked)

    def _choose_direction(self, direction: Direction) -> None:
        if direction is not self.direction:
            self.set_direction(direction)
            self.directionChanged.emit(direction)

    def operation(self) -> tuple | None:
        """(title, op, inputs, attrs) being explained, or None."""
        return self._operation

    def set_step(self, k: int) -> None:
        if self.explanation is not None:
            self.slider.setValue(max(0, min(self.count - 1, k)))

    def set_granularity(self, granularity: Granularity | None) -> None:
        """Slice steps (None: each op's default) or single elements (ELEMENT) for GatherND,
        ScatterND and TensorScatter; the step shown stays on the same element."""
        if granularity == self.granularity:
            return
        old, self.granularity = self.explanation, granularity
        if old is None or self._operation is None:
            return
        title, op, inputs, attrs = self._operation
        first_element = self.step * old.unit
        new_unit = old.map.block if (granularity is None and old.slices_possible) else 1
        self.set_operation(title, op, inputs, attrs, step=first_element // max(new_unit, 1))

    def set_speed(self, steps_per_second: float) -> None:
        """Play at ``steps_per_second`` (clamped to MIN_SPEED..MAX_SPEED)."""
        self.speed = max(MIN_SPEED, min(MAX_SPEED, float(steps_per_second)))
        self.timer.setInterval(max(1, round(1000.0 / self.speed)))
        for name, action in self.speed_actions.items():
            action.setChecked(abs(SPEEDS[name] - self.speed) < 1e-9)
        if not any(a.isChecked() for a in self.speed_actions.values()) and self._speed_group.checkedAction():
            self._speed_group.checkedAction().setChecked(False)
        blocked = self.speed_box.blockSignals(True)
        self.speed_box.setValue(self.speed)
        self.speed_box.blockSignals(blocked)

    def toggle_play(self) -> None:
        """Play from here (from the start at the last step), or pause."""
        if self.play_button.isEnabled():
            self.play_button.setChecked(not self.play_button.isChecked())

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def set_output_hidden(self, hidden: bool) -> None:
        """Hide (True) the answer of each step, for a quiz: the output grid's values (its
        cells show "?"), the step sentence, the "All steps" table, and the mark (and arrow) of
        the cell that answers the step: the data cell a gather reads, the output (and data)
        cell a scatter writes. The question stays marked: the deciding index, and the output
        element (gather) or the update (scatter). False shows them again. Kept across
        operations until changed."""
        self.output_hidden = bool(hidden)
        self.tabs.setTabVisible(1, not self.output_hidden)
        if self.output_hidden:
            self.tabs.setCurrentIndex(0)
        if self.explanation is not None:
            self._show(self.step)

    def set_zoom(self, factor: float) -> None:
        """Scale every text of the widget (grids, formula, table) by ``factor`` from the
        application's font (presentation mode, slides); 1.0 restores it."""
        font = QtGui.QFont(QtWidgets.QApplication.font())
        if font.pointSizeF() > 0:
            font.setPointSizeF(font.pointSizeF() * factor)
        else:
            font.setPixelSize(max(1, round(font.pixelSize() * factor)))
        self.zoom = factor
        self.setFont(font)
        mono = QtGui.QFont(font)
        mono.setFamily("monospace")
        mono.setStyleHint(QtGui.QFont.StyleHint.Monospace)
        self.sentence.setFont(mono)

    def content_fits(self) -> bool:
        """Whether the current step shows whole: the grids need no scrolling and no grid
        shows fewer columns than it would with room (True with nothing to explain)."""
        if self.explanation is None:
            return True
        viewport = self.scroll.viewport()
        if self.grid_area.heightForWidth(viewport.width()) > viewport.height():
            return False
        for grid in self._shown_grids():
            if grid.isVisible() and len(grid.cols) < grid.wanted_columns():
                return False
        return True

    def fit_zoom(self, zooms: Sequence[float], steps: Sequence[int] | None = None) -> float:
        """Set the largest of ``zooms`` at which :meth:`content_fits` holds at each of
        ``steps`` (default: the current one), else the smallest; returns it. The step shown
        stays the same."""
        shown = self.step

        def fits() -> bool:
            ok = True
            for k in (shown,) if steps is None else steps:
                self.set_step(k)
                settle(self)
                ok = ok and self.content_fits()
            return ok

        chosen = largest_fitting_zoom(zooms, self.set_zoom, fits)
        self.set_step(shown)
        settle(self)
        return chosen

    def set_slide_mode(self, on: bool) -> None:
        """For slides: no buttons, slider, menu or tabs; the title, the counter, the formula
        and the grids only; no scroll bars."""
        for w in (self.prev_button, self.slider, self.next_button, self.play_button, self.menu_button,
                  self.backward_button):
            w.setVisible(not on)   # the counter stays: "3 / 6" on each slide
        self.tabs.tabBar().setVisible(not on)
        policy = QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff if on else QtCore.Qt.ScrollBarPolicy.ScrollBarAsNeeded
        self.scroll.setHorizontalScrollBarPolicy(policy)
        self.scroll.setVerticalScrollBarPolicy(policy)

    def changeEvent(self, event: QtCore.QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._fit_play_button()

    def _fit_play_button(self) -> None:
        """As wide as its wider label and the speed menu's arrow, so Play <-> Pause does not
        shift the slider."""
        metrics = self.play_button.fontMetrics()
        arrow = self.play_button.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_MenuButtonIndicator)
        self.play_button.setFixedWidth(max(metrics.horizontalAdvance(t) for t in ("Play", "Pause")) + 18 + arrow)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        kind = event.type()
        if self.current is not None and (kind == QtCore.QEvent.Type.Resize or (
                kind == QtCore.QEvent.Type.Move and watched is not self.grid_area)):
            self._reveal_later.start()
        return super().eventFilter(watched, event)

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:
        self.menu.exec(event.globalPos())

    # ------------------------------------------------------------------ internals
    def _panels(self) -> list[tuple[str, np.ndarray | None]]:
        """(title, tensor) of each grid: the op's inputs under their schema names (an omitted
        optional input shows nothing), then the output. A scatter's output grid shows the
        output as it stands after the current step. Backward: the explanation's tensors
        (``BackwardExplanation.panels``)."""
        e = self.explanation
        if self.backward:
            return e.panels()
        names = [p.name for p in e.schema.inputs]
        inputs = list(e.inputs) + [None] * (len(names) - len(e.inputs))
        return [*zip(names, inputs, strict=True), ("output", self._output)]

    def _shown_grids(self) -> list[TensorGrid]:
        """The grids the explanation may use: four forward (gathers use three), six backward."""
        return self.grids + self.more_grids if self.backward else self.grids

    def grid(self, title: str) -> TensorGrid:
        """The grid of the tensor named ``title`` (``output``: the output grid, whatever step)."""
        for grid, (name, _) in zip(self._shown_grids(), self._panels(), strict=False):
            if name == title:
                return grid
        raise KeyError(title)

    def _set_grids(self) -> None:
        any_drawn = False
        panels = self._panels()
        for i, grid in enumerate(self.grids + self.more_grids):
            name, array = panels[i] if i < len(panels) else ("", None)
            grid.set_tensor(name, None if array is None else np.asarray(array))
            grid.setVisible(array is not None)
            any_drawn |= TensorGrid.drawable(None if array is None else np.asarray(array))
        self.legend.setVisible(any_drawn)

    def _marks(self, step: Step) -> dict[str, dict[tuple, str]]:
        """Highlights by tensor name: the other updates hitting the same cell ("also"), the
        source, the deciding index, the destination; a scatter marks the destination in
        ``data`` too (the output starts as a copy of it). With the output hidden, the
        answer's mark goes."""
        e = self.explanation
        marks: dict[str, dict[tuple, str]] = {name: {} for name, _ in self._panels()}
        if self.backward:
            for cell in e.also(step.number)[:MAX_ALSO]:
                marks.setdefault(cell.tensor, {})[cell.position] = "also"
            for role, cells in (("source", step.sources), ("index", step.index), ("target", (step.destination,))):
                for cell in cells:
                    marks.setdefault(cell.tensor, {})[cell.position] = role
            return marks
        if e.kind == "scatter":
            for s in e.same_destination(step.number)[:MAX_ALSO + 1]:
                if s != step.number:
                    marks[e.source][e.element_position(s)] = "also"
        for cell in step.sources:
            marks.setdefault(cell.tensor, {})[cell.position] = "source"
        for cell in step.index:
            marks.setdefault(cell.tensor, {})[cell.position] = "index"
        marks.setdefault(step.destination.tensor, {})[step.destination.position] = "target"
        if e.kind == "scatter":
            data = next(p.name for p in e.schema.inputs if e.opdef.role(p.name) == PortRole.DATA)
            marks[data][step.destination.position] = "target"
        if self.output_hidden:
            answer = "source" if e.kind == "gather" else "target"
            marks = {name: {p: r for p, r in m.items() if r != answer} for name, m in marks.items()}
        return marks

    def _links(self, step: Step) -> list[Link]:
        """Arrows: source -> destination, index -> destination (none to a hidden answer)."""
        names = {name: grid for grid, (name, _) in zip(self._shown_grids(), self._panels(), strict=False)}
        end = names.get(step.destination.tensor)
        if end is None:
            return []
        links = []
        hide_source = self.output_hidden
        hide_index = self.output_hidden and self.explanation.kind == "scatter"
        for role, cells, hidden in (("index", step.index, hide_index), ("source", step.sources, hide_source)):
            for cell in cells:
                if cell.tensor in names and not hidden:
                    links.append(Link(role, names[cell.tensor], cell.position, end, step.destination.position))
        return links

    def _show(self, k: int) -> None:
        e = self.explanation
        if e is None:
            return
        step = e.step(k)
        self.current = step
        self.counter.setText(f"{k + 1} / {e.count}")
        self.sentence_area.updateGeometry()
        self.sentence.setText(HIDDEN_SENTENCE if self.output_hidden
                              else step.formula + (f"\n{step.note}" if step.note else ""))
        if self.backward:
            after = e.after(k)
            if after is not None:
                self.grid(after[0]).set_tensor(*after)
        elif e.kind == "scatter":
            output = self.grid("output")
            output.set_tensor("output", e.output_after(k), f"after step {k + 1}" if k < e.count - 1 else "")
        marks = self._marks(step)
        for grid, (name, _) in zip(self._shown_grids(), self._panels(), strict=False):
            grid.set_masked(self.output_hidden and name == "output")
            grid.set_highlights(marks.get(name, {}))
        self.arrows.set_links(self._links(step))
        self.prev_button.setEnabled(k > 0)
        self.next_button.setEnabled(k < e.count - 1)
        self.steps.show_step(k)
        self._reveal()
        self._reveal_later.start()                    # again once the layout has settled
        self.stepChanged.emit(k)

    def destination_row_rect(self, whole: bool = False) -> QtCore.QRect | None:
        """The output grid's row being written (a slice step: the first row of its slice; with
        ``whole``, every drawn cell of the destination), in the grid area's coordinates."""
        if self.current is None or self.explanation is None:
            return None
        output = self.grid(self.current.destination.tensor)
        dest = tuple(self.current.destination.position)
        rank = 0 if output.full is None else output.full.ndim
        first = dest + (0,) * (rank - len(dest))     # the first cell written
        rect = output.region_rect(dest if whole else first[: max(rank - 1, 0)])
        if rect is None:
            return None
        return rect.translated(QtCore.QPointF(output.mapTo(self.grid_area, QtCore.QPoint(0, 0)))).toAlignedRect()

    def _reveal(self) -> None:
        """Scroll the grids so that the output row being written is in view (the whole slice
        being written, when the view is tall enough)."""
        whole, row = self.destination_row_rect(whole=True), self.destination_row_rect()
        if row is None or not self.isVisible():
            return
        viewport = self.scroll.viewport().size()
        fits = whole is not None and whole.height() <= viewport.height() - 16 and whole.width() <= viewport.width()
        rect = whole if fits else row
        if rect.bottom() + 8 <= viewport.height() and rect.right() + 8 <= viewport.width():
            # the row is in view from the top: show the grids from their titles
            self.scroll.horizontalScrollBar().setValue(0)
            self.scroll.verticalScrollBar().setValue(0)
            return
        self.scroll.ensureVisible(rect.right(), rect.bottom(), 8, 8)
        self.scroll.ensureVisible(rect.left(), rect.top(), 8, 8)

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
