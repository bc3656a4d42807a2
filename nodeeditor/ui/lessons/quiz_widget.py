"""QuizWidget: the learner's side of a :class:`nodeeditor.teaching.quiz.Quiz` (all the logic is
there; this widget shows it and passes answers on).

The op's inputs are shown as tables, then the output: in a FILL quiz the learner types the
value of each yellow cell (Enter checks it and goes to the next one); in a PLACE quiz the
update to place is highlighted with the index that decides it, and the learner clicks the
output cell where it lands. Each answer turns its cell green or red; the box under the tables
says why (the element's formula and numbers) and the score line counts.

The seed box picks the inputs: 0 is the lesson's own example, any other number draws new
inputs of the same shapes with that seed (:meth:`Quiz.another`), so a class typing the same
seed gets the same quiz. "Another one" picks a new seed. ``ended`` is emitted by "End quiz".
UI thread only.
"""
from __future__ import annotations

import secrets
from collections.abc import Sequence

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.teaching.quiz import Quiz, QuizError, QuizMode, Verdict, same_inputs

from ..explainer.widget import largest_fitting_zoom, settle
from .tensor_table import CellState, TensorTable, cell_text

#: The largest seed "Another one" picks (short enough to read out to a class).
MAX_SEED = 99_999


class QuizWidget(QtWidgets.QWidget):
    """See the module docstring. :meth:`set_quiz` takes the lesson's quiz (seed box at 0)."""

    ended = QtCore.Signal()
    inputsChanged = QtCore.Signal()    # another quiz shown: the lesson's inputs or drawn ones
    answered = QtCore.Signal(object)   # the Verdict

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.base: Quiz | None = None    # the lesson's own quiz (seed 0), never answered
        self.quiz: Quiz | None = None    # the one shown
        self.tables: dict[str, TensorTable] = {}
        self.output_table: TensorTable | None = None
        self._inputs_box: list[QtWidgets.QWidget] = []   # the titled input tables, in order
        self._output_box: QtWidgets.QWidget | None = None
        self._arrangement: str | None = None   # which of _arrange's three layouts is shown
        self.last_verdict: Verdict | None = None

        self.instruction = QtWidgets.QLabel("")
        self.instruction.setWordWrap(True)
        font = self.instruction.font()
        font.setBold(True)
        self.instruction.setFont(font)
        self.score_label = QtWidgets.QLabel("")
        self.score_label.setStyleSheet("color: #555;")
        self.score_label.setToolTip("right: questions answered right at the first try; wrong: wrong answers given; "
                                    "left: questions not answered right yet (shown: their answers shown)")

        # the inputs in a row and the output after them when the width allows, else under
        # them; the feedback under the tables (beside the output when that is under them);
        # all of it scrolls when the dock is small (a projector)
        self.inputs_row = QtWidgets.QHBoxLayout()
        self.output_row = QtWidgets.QHBoxLayout()
        self.tables_area = QtWidgets.QWidget()
        area = QtWidgets.QVBoxLayout(self.tables_area)
        area.setContentsMargins(0, 0, 0, 0)
        area.addLayout(self.inputs_row)
        area.addLayout(self.output_row)
        area.addStretch(1)
        self.scroll = QtWidgets.QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.scroll.setWidget(self.tables_area)
        self.scroll.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)   # no invisible stop for Tab

        self.feedback = _Feedback("")
        self.feedback.setWordWrap(True)
        self.feedback.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.feedback.setTextFormat(QtCore.Qt.TextFormat.PlainText)
        mono = QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont)
        self.feedback.setFont(mono)
        self.feedback.setMargin(4)
        self.feedback.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
        self.feedback.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Preferred)
        self.feedback.setMinimumWidth(160)

        self.seed_box = QtWidgets.QSpinBox()
        self.seed_box.setRange(0, MAX_SEED)
        self.seed_box.setAccessibleName("Seed")
        self.seed_box.setSpecialValueText("example")
        self.seed_box.setToolTip("0 (example): the lesson's own inputs; any other number: new inputs drawn with "
                                 "that seed. The same seed gives everyone the same quiz.")
        self.seed_box.setKeyboardTracking(False)   # a typed seed counts on Enter or leaving the box
        self._fit_seed_box()
        self.another_button = QtWidgets.QPushButton("Another one")
        self.another_button.setToolTip("New random inputs of the same shapes (a new seed)")
        self.reveal_button = QtWidgets.QPushButton("Show answers")
        self.end_button = QtWidgets.QPushButton("End quiz")

        controls = QtWidgets.QHBoxLayout()
        controls.addWidget(QtWidgets.QLabel("Seed:"))
        controls.addWidget(self.seed_box)
        controls.addWidget(self.another_button)
        controls.addStretch(1)
        controls.addWidget(self.reveal_button)
        controls.addWidget(self.end_button)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(3)
        layout.addWidget(self.instruction)
        layout.addWidget(self.score_label)
        layout.addWidget(self.scroll, 1)
        layout.addLayout(controls)

        self.seed_box.valueChanged.connect(self._seed_changed)
        self.another_button.clicked.connect(self.another)
        self.reveal_button.clicked.connect(self.reveal)
        self.end_button.clicked.connect(self.ended)

    # ------------------------------------------------------------------ public
    def set_quiz(self, quiz: Quiz) -> None:
        """Quiz on ``quiz`` (the lesson's own inputs; the seed box goes to 0)."""
        self.base = quiz
        blocked = self.seed_box.blockSignals(True)
        self.seed_box.setValue(0)
        self.seed_box.blockSignals(blocked)
        self._show(_fresh(quiz))

    def rebase(self, quiz: Quiz) -> None:
        """Quiz on ``quiz`` from now on (the lesson's node was edited), with the seed shown:
        seed 0 on ``quiz``'s own inputs, any other drawn anew for it (seed 0 when none can be
        drawn for the node as it is now). A quiz that would be drawn just as it is shown stays,
        answers and all."""
        self.base = quiz
        seed = self.seed_box.value()
        if seed:
            try:
                drawn = quiz.another(seed)
            except QuizError:
                seed = 0
            else:
                shown = self.quiz
                if shown is not None and drawn.attrs == shown.attrs and same_inputs(drawn.inputs, shown.inputs):
                    return      # the edit changed values the drawn inputs do not read: the answers stay
        self.use_seed(seed)

    def another(self) -> None:
        """New inputs with a new random seed."""
        seed = secrets.randbelow(MAX_SEED) + 1
        while seed == self.seed_box.value():
            seed = secrets.randbelow(MAX_SEED) + 1
        self.seed_box.setValue(seed)   # -> _seed_changed

    def use_seed(self, seed: int) -> None:
        """The quiz of ``seed`` (0: the lesson's example), as if typed in the seed box."""
        if self.seed_box.value() == seed:
            self._seed_changed(seed)
        else:
            self.seed_box.setValue(seed)

    def reveal(self) -> None:
        """Give up: every unsolved cell shows its right answer."""
        quiz = self.quiz
        if quiz is None or quiz.done:
            return
        pending = [q for q in quiz.questions if not quiz.is_solved(q)]
        quiz.reveal()
        out = self.output_table
        if quiz.mode is QuizMode.FILL:
            for q in pending:
                out.set_text(q, cell_text(quiz.expected(q)), quiz.explain(q))
                out.set_editable(q, False)
                out.set_state(q, CellState.REVEALED)
        else:
            out.set_values(quiz.output)
            for q in pending:
                for cell in quiz.landing_cells(q):
                    out.set_state(cell, CellState.REVEALED)
        self._refresh()

    # ------------------------------------------------------------------ building
    def _seed_changed(self, seed: int) -> None:
        if self.base is None:
            return
        try:
            quiz = _fresh(self.base) if seed == 0 else self.base.another(seed)
        except QuizError as exc:   # no valid inputs of these shapes (an empty axis)
            self._say(str(exc), ok=False)
            return
        self._show(quiz)

    @property
    def on_lesson_inputs(self) -> bool:
        """Whether the quiz shown asks about the lesson's own inputs (seed 0), which the
        graph's sources hold; other seeds draw inputs the graph does not have."""
        return self.quiz is None or self.quiz.seed is None

    def _show(self, quiz: Quiz) -> None:
        self.quiz, self.last_verdict = quiz, None
        for row in (self.inputs_row, self.output_row):
            while row.count():
                item = row.takeAt(0)
                if item.widget() is not None and item.widget() is not self.feedback:
                    item.widget().hide()          # out of sight now, deleted when the loop runs
                    item.widget().deleteLater()
        self.tables, self._inputs_box, self._output_box = {}, [], None
        names = [p.name for p in quiz.opdef.schema.inputs]
        for name, value in zip(names, quiz.inputs, strict=False):
            if value is None:
                continue
            table = TensorTable(value.shape)
            table.set_values(value)
            table.fit()
            self.tables[name] = table
            self._inputs_box.append(_titled(name, value, table))
        out = TensorTable(quiz.output.shape)
        self.output_table = out
        if quiz.mode is QuizMode.FILL:
            for pos, value in quiz.given_cells().items():
                out.set_text(pos, cell_text(value), "a copy of data: no update reaches this cell")
                out.set_state(pos, CellState.GIVEN)
            for q in quiz.questions:
                out.set_text(q, "")
                out.set_editable(q, True)
                out.set_state(q, CellState.ASKED)
            out.cellEdited.connect(self._typed)
            # room for the longest right answer, so typing never resizes the table under the cursor
            widest = max((len(cell_text(quiz.output[q])) for q in quiz.questions), default=1)
            for q in quiz.questions[:1]:
                out.set_text(q, "8" * max(widest, 4))
            out.fit()
            for q in quiz.questions[:1]:
                out.set_text(q, "")
        else:
            out.set_values(quiz.data)
            out.fit()
            out.cellClickedAt.connect(self._clicked)
        title = "output ?"   # the instruction above says how to answer
        self._output_box = _titled(title, quiz.output, out)
        self._arrange(force=True)
        self.feedback.setText("")
        self.feedback.setStyleSheet("")
        self._refresh()
        self.inputsChanged.emit()
        # the keys answer at once: type into the first yellow cell, or move and press Enter
        first = quiz.questions[0] if quiz.mode is QuizMode.FILL else (0,) * quiz.output.ndim
        out.setCurrentCell(*out.cell_of(first))
        out.setFocus()

    def _arrange(self, force: bool = False) -> None:
        """The inputs then the output in one row when it fits the width; else the data input
        and the output side by side with the other inputs under them, when those two fit (the
        tables a learner compares, and the least height: a TensorScatter quiz fits a projector
        then); else the inputs in a row and the output under them."""
        if self._output_box is None:
            return
        out, room = self._output_box, self.scroll.viewport().width()

        def width(boxes: list) -> int:
            return sum(b.sizeHint().width() for b in boxes) + self.inputs_row.spacing() * len(boxes)

        data, rest = self._inputs_box[:1], self._inputs_box[1:]
        if width(self._inputs_box + [out]) <= room:
            arrangement, rows = "one row", (self._inputs_box + [out], [])
        elif rest and width(data + [out]) <= room:
            arrangement, rows = "data beside output", (data + [out], rest)
        else:
            arrangement, rows = "output under", (self._inputs_box, [out])
        if not force and arrangement == self._arrangement:
            return
        self._arrangement = arrangement
        top = QtCore.Qt.AlignmentFlag.AlignTop
        for row in (self.inputs_row, self.output_row):
            while row.count():
                row.takeAt(0)
        for layout, boxes in zip((self.inputs_row, self.output_row), rows, strict=True):
            for box in boxes:
                layout.addWidget(box, 0, top)
        self.inputs_row.addStretch(1)
        self.output_row.addWidget(self.feedback, 1, top)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._arrange()

    def preferred_height(self) -> int:
        """The height that shows the instruction, every table, the controls and a few lines
        of explanation without scrolling."""
        margins = self.layout().contentsMargins()
        lines = self.feedback.fontMetrics().lineSpacing() * 6
        tables = max(self.tables_area.sizeHint().height(), self.tables_area.minimumSizeHint().height())
        return (margins.top() + margins.bottom() + self.instruction.sizeHint().height()
                + self.score_label.sizeHint().height() + tables + lines
                + self.another_button.sizeHint().height() + 4 * self.layout().spacing())

    # ------------------------------------------------------------------ answering
    def _typed(self, position: tuple, text: str) -> None:
        quiz = self.quiz
        if quiz is None or not quiz.is_asked(position) or quiz.is_solved(position) or not text.strip():
            return
        try:
            verdict = quiz.answer(position, text)
        except QuizError as exc:
            self._say(str(exc), ok=False)
            return
        out = self.output_table
        out.set_state(position, CellState.RIGHT if verdict.correct else CellState.WRONG)
        out.set_text(position, text.strip(), verdict.explanation)
        if verdict.correct:
            out.set_editable(position, False)
        self._verdict(verdict)
        following = self._next_open(position)
        if following is not None:
            QtCore.QTimer.singleShot(0, lambda: out.setCurrentCell(*out.cell_of(following)))
        elif verdict.correct:
            out.clearSelection()   # done: every cell shows its own colour

    def _next_open(self, after: tuple) -> tuple | None:
        """The next unsolved question after ``after`` (wrapping), or ``after`` when wrong."""
        quiz = self.quiz
        order = list(quiz.questions)
        start = order.index(after)
        for q in order[start + 1:] + order[: start + 1]:
            if not quiz.is_solved(q):
                return q
        return None

    def _clicked(self, cell: tuple) -> None:
        quiz = self.quiz
        if quiz is None or quiz.mode is not QuizMode.PLACE or quiz.done:
            return
        element = quiz.current
        verdict = quiz.answer(element, cell)
        out = self.output_table
        out.clear_states(keep=(CellState.RIGHT,))
        if verdict.correct:   # the whole slice lands (one element, where a question is one)
            after = quiz.explanation.output_after(quiz.slice_steps(element)[-1])
            for target in quiz.landing_cells(element):
                out.set_text(target, cell_text(after[target]), verdict.explanation)
                out.set_state(target, CellState.RIGHT)
        else:
            out.set_state(cell, CellState.WRONG)
        self._verdict(verdict)

    def _verdict(self, verdict: Verdict) -> None:
        self.last_verdict = verdict
        self.answered.emit(verdict)
        text = ("✓ " if verdict.correct else "✗ ") + verdict.headline
        if not verdict.correct:
            text += "\n" + verdict.explanation
        self._say(text, ok=verdict.correct)
        self._refresh()

    def _say(self, text: str, ok: bool) -> None:
        self.feedback.setText(text)
        colour = "#1f7a33" if ok else "#b3261e"
        self.feedback.setStyleSheet(f"QLabel {{ color: {colour}; border: 1px solid {colour}; border-radius: 3px; }}")

    def set_zoom(self, factor: float) -> None:
        """Scale every text (tables, instruction, feedback) by ``factor`` from the application's
        fonts (presentation mode); 1.0 restores them."""
        font = _scaled(QtWidgets.QApplication.font(), factor)
        self.setFont(font)   # the tables take it from here
        bold = QtGui.QFont(font)
        bold.setBold(True)
        self.instruction.setFont(bold)
        self.score_label.setFont(font)
        self.feedback.setFont(_scaled(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont),
                                      factor))
        self._fit_seed_box()
        self._arrange()   # the tables' sizes follow the font at once (TensorTable.changeEvent)

    def fit_zoom(self, zooms: Sequence[float]) -> float:
        """Set the largest of ``zooms`` at which the quiz's tables show whole, with nothing to
        scroll (presentation mode; the smallest when none does); returns it."""
        def fits() -> bool:
            settle(self)
            return self.content_fits()

        return largest_fitting_zoom(zooms, self.set_zoom, fits)

    def content_fits(self) -> bool:
        """Whether every table shows without scrolling."""
        needed, room = self.tables_area.minimumSizeHint(), self.scroll.viewport().size()
        return needed.width() <= room.width() and needed.height() <= room.height()

    def _fit_seed_box(self) -> None:
        """Room for "example" (seed 0) and the largest seed in the box's font."""
        metrics = self.seed_box.fontMetrics()
        widest = max(metrics.horizontalAdvance("example"), metrics.horizontalAdvance(str(MAX_SEED)))
        self.seed_box.setMinimumWidth(widest + 4 * metrics.averageCharWidth() + 24)   # frame and arrows

    # ------------------------------------------------------------------ showing the state
    def _refresh(self) -> None:
        quiz = self.quiz
        score = quiz.score
        rest = f"{score.left} shown" if quiz.revealed else f"{score.left} left"   # given up: shown, not left
        self.score_label.setText(f"Score: {score.right} of {score.total} right at the first try · "
                                 f"{score.wrong} wrong · {rest}")
        self.reveal_button.setEnabled(not quiz.done)
        for table in self.tables.values():
            table.clear_states()
        if quiz.done:
            self.instruction.setText("Done. " + ("The right answers are shown in blue. " if quiz.revealed else "")
                                     + "“Another one” for new inputs.")
            return
        if quiz.mode is QuizMode.FILL:
            left = quiz.score.left
            self.instruction.setText(f"Type the value of each yellow output cell and press Enter "
                                     f"({left} left).")
            return
        element = quiz.current
        source = quiz.opdef.updates_port
        if quiz.unit == 1:
            self.instruction.setText(f"Click the output cell (or press Enter on it) where "
                                     f"{quiz.question_text(element)} lands.")
        else:
            self.instruction.setText(f"Click an output cell (or press Enter on it) where "
                                     f"{quiz.question_text(element)} lands "
                                     f"(one index moves these {quiz.unit} values together).")
        for cell in quiz.slice_elements(element):
            self.tables[source].set_state(cell, CellState.SOURCE)
        move = quiz.explanation.move(quiz.step_of(element))
        index_table = self.tables.get(move.index_input)
        if index_table is not None and move.index_position is not None:
            position = tuple(move.index_position)
            cells = [position] if len(position) == len(index_table.shape) else \
                [position + (c,) for c in range(index_table.shape[-1])]
            for cell in cells:
                index_table.set_state(cell, CellState.INDEX)
        self.tables[source].scrollToItem(self.tables[source].item_at(element))


class _Feedback(QtWidgets.QLabel):
    """A wrapping label beside the output table that is as tall as its text at its width
    (a horizontal layout alone would give it the table's height and cut the explanation)."""

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def _fit(self) -> None:
        wanted = self.heightForWidth(self.width()) if self.text() else 0
        if wanted != self.minimumHeight():
            self.setMinimumHeight(max(0, wanted))


def _titled(title: str, value: np.ndarray, table: TensorTable) -> QtWidgets.QWidget:
    """``table`` under its title and shape."""
    holder = QtWidgets.QWidget()
    box = QtWidgets.QVBoxLayout(holder)
    box.setSpacing(2)
    box.setContentsMargins(0, 0, 8, 0)
    dims = ", ".join(str(n) for n in value.shape)
    label = QtWidgets.QLabel(f"<b>{title}</b> <span style='color:#666'>[{dims}]</span>")
    label.setTextFormat(QtCore.Qt.TextFormat.RichText)
    box.addWidget(label)
    box.addWidget(table)
    table.setAccessibleName(title.replace(" ?", " (to answer)"))
    return holder


def _scaled(font: QtGui.QFont, factor: float) -> QtGui.QFont:
    out = QtGui.QFont(font)
    if out.pointSizeF() > 0:
        out.setPointSizeF(out.pointSizeF() * factor)
    else:
        out.setPixelSize(max(1, round(out.pixelSize() * factor)))
    return out


def _fresh(quiz: Quiz) -> Quiz:
    """An unanswered copy of ``quiz`` (same op, inputs, mode and seed)."""
    return Quiz(quiz.op, quiz.inputs, quiz.attrs, quiz.mode, quiz.seed)
