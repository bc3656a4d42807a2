"""The Quiz widget, driven by real clicks and key presses: it accepts the right output, rejects
a wrong cell with that cell's explanation, and the score counts; the seed box makes the same
quiz for everyone. The right answers are the outputs printed on the seed pages."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.teaching.quiz import Quiz
from nodeeditor.ui.explainer.widget import settle
from nodeeditor.ui.lessons import QuizWidget
from nodeeditor.ui.lessons.tensor_table import CellState

LEFT = QtCore.Qt.MouseButton.LeftButton
NOMOD = QtCore.Qt.KeyboardModifier.NoModifier

# seed page Gather-11.txt, axis = 0
GATHER = ("Gather", [np.array([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]], np.float32), np.array([[0, 1], [1, 2]])])
GATHER_OUTPUT = np.array([[[1.0, 1.2], [2.3, 3.4]], [[2.3, 3.4], [4.5, 5.7]]])
# seed page Scatter-9.txt, Example 1
SCATTER = ("Scatter", [np.zeros((3, 3), np.float32), np.array([[1, 0, 2], [0, 2, 1]]),
                       np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]], np.float32)])
SCATTER_OUTPUT = [[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]]
# seed page ScatterND-13.txt, Example 2: each index tuple moves a 4 x 4 block
_ROWS = [[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]]
_SWAPPED = [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]
SCATTER_ND = ("ScatterND", [np.array([_ROWS, _ROWS, _SWAPPED, _SWAPPED], np.float32), np.array([[0], [2]]),
                            np.array([[[v] * 4 for v in (5, 6, 7, 8)], [[v] * 4 for v in (1, 2, 3, 4)]], np.float32)])
SCATTER_ND_OUTPUT = [[[v] * 4 for v in (5, 6, 7, 8)], _ROWS, [[v] * 4 for v in (1, 2, 3, 4)], _SWAPPED]


def wait_until(condition, timeout=10000):
    deadline = QtCore.QDeadlineTimer(timeout)
    while not condition():
        assert not deadline.hasExpired(), "timed out"
        QTest.qWait(5)


@pytest.fixture
def quiz_widget(qtbot):
    widget = QuizWidget()
    qtbot.addWidget(widget)
    widget.resize(900, 520)
    widget.show()
    qtbot.waitExposed(widget)
    widget.activateWindow()    # typing goes to the active window's focus widget
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is widget, timeout=10000)
    return widget


def click_cell(table, position):
    """A real click on the cell, once the new table is laid out on screen."""
    wait_until(lambda: table.isVisible() and table.viewport().rect().contains(table.cell_center(position)))
    QTest.mouseClick(table.viewport(), LEFT, NOMOD, table.cell_center(position))


def type_cell(qtbot, widget, position, text):
    """Type ``text`` on the output cell and press Enter, as a learner does: click the cell
    unless it is the current one (after an answer the quiz moves on to the next open cell),
    then type (the first key opens the cell's editor, the rest go to it)."""
    table = widget.output_table
    if (table.currentRow(), table.currentColumn()) != table.cell_of(position) or not table.hasFocus():
        click_cell(table, position)
        qtbot.waitUntil(lambda: table.hasFocus() and table.currentRow() == table.cell_of(position)[0], timeout=10000)
    before = widget.last_verdict
    for key in text:
        QTest.keyClicks(QtWidgets.QApplication.focusWidget(), key)
    QTest.keyClick(QtWidgets.QApplication.focusWidget(), QtCore.Qt.Key.Key_Return)   # Qt commits it queued
    qtbot.waitUntil(lambda: widget.last_verdict is not before or "is not a" in widget.feedback.text(), timeout=10000)
    quiz = widget.quiz
    checked = widget.last_verdict is not before     # text that is not a value is not checked
    if checked and any(q != tuple(position) and not quiz.is_solved(q) for q in quiz.questions):
        qtbot.waitUntil(lambda: (table.currentRow(), table.currentColumn()) != table.cell_of(position)
                        and table.hasFocus(), timeout=10000)


def test_typing_the_pages_output_is_accepted_and_scores_every_cell(quiz_widget, qtbot):
    quiz_widget.set_quiz(Quiz(*GATHER))
    out = quiz_widget.output_table
    for pos in np.ndindex(GATHER_OUTPUT.shape):
        type_cell(qtbot, quiz_widget, pos, f"{GATHER_OUTPUT[pos]:g}")
        qtbot.waitUntil(lambda p=pos: out.cell_state(p) is CellState.RIGHT, timeout=10000)
    assert quiz_widget.quiz.done
    assert quiz_widget.score_label.text() == "Score: 8 of 8 right at the first try · 0 wrong · 0 left"
    assert quiz_widget.instruction.text().startswith("Done.")
    assert not out.is_editable((0, 0, 0))


def test_a_wrong_cell_turns_red_and_is_explained_then_can_be_put_right(quiz_widget, qtbot):
    quiz_widget.set_quiz(Quiz(*GATHER))
    out = quiz_widget.output_table
    type_cell(qtbot, quiz_widget, (1, 0, 0), "3.4")          # it is data[indices[1, 0] = 1, 0] = 2.3
    qtbot.waitUntil(lambda: out.cell_state((1, 0, 0)) is CellState.WRONG, timeout=10000)
    feedback = quiz_widget.feedback.text()
    assert feedback.startswith("✗ output[1, 0, 0]: 3.4 is wrong; it is 2.3")
    assert "Formula: output[i, j, b] = data[indices[i, j], b]" in feedback
    assert "Here: output[1, 0, 0] = data[indices[1, 0], 0]" in feedback
    assert "indices[1, 0] = 1" in feedback
    assert out.item_at((1, 0, 0)).toolTip() == quiz_widget.last_verdict.explanation
    assert "0 of 8 right at the first try · 1 wrong · 8 left" in quiz_widget.score_label.text()
    type_cell(qtbot, quiz_widget, (1, 0, 0), "2.3")
    qtbot.waitUntil(lambda: out.cell_state((1, 0, 0)) is CellState.RIGHT, timeout=10000)
    assert "0 of 8 right at the first try · 1 wrong · 7 left" in quiz_widget.score_label.text()
    type_cell(qtbot, quiz_widget, (0, 0, 0), "abc")           # not a number: said so, not counted
    qtbot.waitUntil(lambda: "not a float32 value" in quiz_widget.feedback.text(), timeout=10000)
    assert quiz_widget.quiz.score.wrong == 1


def test_a_scatter_is_answered_by_clicking_where_each_update_lands(quiz_widget, qtbot):
    quiz_widget.set_quiz(Quiz(*SCATTER))
    out, indices, updates = quiz_widget.output_table, quiz_widget.tables["indices"], quiz_widget.tables["updates"]
    assert quiz_widget.instruction.text() == ("Click the output cell (or press Enter on it) where "
                                              "updates[0, 0] = 1 lands.")
    assert updates.cell_state((0, 0)) is CellState.SOURCE and indices.cell_state((0, 0)) is CellState.INDEX
    click_cell(out, (0, 0))                           # wrong: indices[0, 0] = 1 sends it to row 1
    assert out.cell_state((0, 0)) is CellState.WRONG
    assert "lands on output[1, 0], not on output[0, 0]" in quiz_widget.feedback.text()
    assert "Here: output[indices[0, 0], 0] = updates[0, 0]" in quiz_widget.feedback.text()
    # Scatter-9: data[indices[i][j]][j] = updates[i][j] (axis 0)
    for i in range(2):
        for j in range(3):
            assert quiz_widget.quiz.current == (i, j)
            click_cell(out, (int(SCATTER[1][1][i, j]), j))
    assert quiz_widget.quiz.done
    assert quiz_widget.score_label.text() == "Score: 5 of 6 right at the first try · 1 wrong · 0 left"
    shown = np.array([[float(out.text((r, c))) for c in range(3)] for r in range(3)])
    np.testing.assert_allclose(shown, SCATTER_OUTPUT)   # the clicks built the page's output


def test_a_scatter_quiz_is_answered_from_the_keyboard(quiz_widget, qtbot):
    """Only a mouse click answered a PLACE quiz (Enter, Space did nothing, and Tab cycled the
    cells of a table for ever): the arrow keys move, Enter or Space answers, Tab leaves."""
    quiz_widget.set_quiz(Quiz(*SCATTER))
    out = quiz_widget.output_table
    qtbot.waitUntil(lambda: out.hasFocus(), timeout=10000)
    assert (out.currentRow(), out.currentColumn()) == (0, 0)
    Key = QtCore.Qt.Key
    QTest.keyClick(out, Key.Key_Space)                  # updates[0, 0] goes to row indices[0, 0] = 1, not 0
    assert out.cell_state((0, 0)) is CellState.WRONG
    assert "lands on output[1, 0], not on output[0, 0]" in quiz_widget.feedback.text()
    for i in range(2):
        for j in range(3):
            assert quiz_widget.quiz.current == (i, j)
            row = int(SCATTER[1][1][i, j])
            while out.currentRow() != row:
                QTest.keyClick(out, Key.Key_Down if out.currentRow() < row else Key.Key_Up)
            while out.currentColumn() != j:
                QTest.keyClick(out, Key.Key_Right if out.currentColumn() < j else Key.Key_Left)
            QTest.keyClick(out, Key.Key_Return)
    assert quiz_widget.quiz.done
    assert quiz_widget.score_label.text() == "Score: 5 of 6 right at the first try · 1 wrong · 0 left"
    out.setFocus()
    QTest.keyClick(out, Key.Key_Tab)                     # out of the table, on to the buttons
    qtbot.waitUntil(lambda: not out.hasFocus(), timeout=10000)
    assert isinstance(QtWidgets.QApplication.focusWidget(), (QtWidgets.QAbstractButton, QtWidgets.QAbstractSpinBox))


def test_a_slice_is_placed_with_one_click_anywhere_it_lands(quiz_widget, qtbot):
    """ScatterND with tuples of one index into a rank-3 data moves 16 values per index: the
    whole block is highlighted in the updates, one click on any cell of its landing block
    places all of it (it asked 32 clicks, one per element)."""
    quiz_widget.set_quiz(Quiz(*SCATTER_ND))
    out, updates = quiz_widget.output_table, quiz_widget.tables["updates"]
    assert quiz_widget.quiz.score.total == 2
    assert quiz_widget.instruction.text().startswith("Click an output cell (or press Enter on it) where "
                                                     "updates[0, :, :] = ")
    assert "(one index moves these 16 values together)" in quiz_widget.instruction.text()
    assert all(updates.cell_state((0, r, c)) is CellState.SOURCE for r in range(4) for c in range(4))
    assert updates.cell_state((1, 0, 0)) is CellState.PLAIN
    click_cell(out, (1, 2, 3))                        # wrong: indices[0] = [0] sends block 0 to block 0
    assert out.cell_state((1, 2, 3)) is CellState.WRONG
    assert "lands on output[0, :, :], not on output[1, 2, 3]" in quiz_widget.feedback.text()
    click_cell(out, (0, 3, 1))                        # any cell of block 0
    assert all(out.cell_state((0, r, c)) is CellState.RIGHT for r in range(4) for c in range(4))
    assert all(updates.cell_state((1, r, c)) is CellState.SOURCE for r in range(4) for c in range(4))
    click_cell(out, (2, 0, 0))
    assert quiz_widget.quiz.done
    assert quiz_widget.score_label.text() == "Score: 1 of 2 right at the first try · 1 wrong · 0 left"
    shown = np.array([[[float(out.text((b, r, c))) for c in range(4)] for r in range(4)] for b in range(4)])
    np.testing.assert_allclose(shown, SCATTER_ND_OUTPUT)   # the clicks built the page's output


def test_the_same_seed_typed_in_the_box_gives_the_same_quiz(quiz_widget, qtbot):
    quiz_widget.set_quiz(Quiz(*SCATTER))
    box = quiz_widget.seed_box
    assert box.text() == "example"
    box.lineEdit().selectAll()
    QTest.keyClicks(box.lineEdit(), "4242")
    QTest.keyClick(box.lineEdit(), QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: quiz_widget.quiz.seed == 4242, timeout=10000)
    first = [t.copy() for t in quiz_widget.quiz.inputs]
    shown = [[float(quiz_widget.tables["updates"].text((r, c))) for c in range(3)] for r in range(2)]
    np.testing.assert_allclose(shown, first[2])
    QTest.mouseClick(quiz_widget.another_button, LEFT)
    qtbot.waitUntil(lambda: quiz_widget.quiz.seed not in (None, 4242), timeout=10000)
    assert box.value() == quiz_widget.quiz.seed
    assert [t.shape for t in quiz_widget.quiz.inputs] == [t.shape for t in first]
    box.setValue(4242)
    for a, b in zip(quiz_widget.quiz.inputs, first, strict=True):
        np.testing.assert_array_equal(a, b)
    box.setValue(0)                                   # 0: the lesson's own example again
    np.testing.assert_array_equal(quiz_widget.quiz.inputs[1], SCATTER[1][1])
    assert quiz_widget.quiz.score.total == 6 and quiz_widget.quiz.score.solved == 0


def test_show_answers_fills_in_the_rest(quiz_widget, qtbot):
    quiz_widget.set_quiz(Quiz(*GATHER))
    QTest.mouseClick(quiz_widget.reveal_button, LEFT)
    out = quiz_widget.output_table
    assert out.cell_state((1, 1, 1)) is CellState.REVEALED and out.text((1, 1, 1)) == "5.7"
    assert quiz_widget.quiz.done and not quiz_widget.reveal_button.isEnabled()
    # the score says the answers were shown, not that they are left to do
    assert quiz_widget.score_label.text() == "Score: 0 of 8 right at the first try · 0 wrong · 8 shown"


def test_enlarged_for_a_projector_no_text_is_cut(quiz_widget, qtbot):
    """Presentation's larger text: the seed box kept the width of the normal font ("xample"),
    and an update turned bold when asked about was elided ("4…")."""
    widget = quiz_widget
    widget.set_zoom(2.0)
    widget.set_quiz(Quiz(*SCATTER))
    box = widget.seed_box
    qtbot.waitUntil(lambda: box.lineEdit().isVisible(), timeout=10000)
    assert box.lineEdit().width() >= box.fontMetrics().horizontalAdvance("example")
    for seed in range(1, 6):                                   # drawn values such as 4.8
        widget.use_seed(seed)
        updates = widget.tables["updates"]
        assert updates.cell_state((0, 0)) is CellState.SOURCE    # asked about: bold
        item = updates.item_at((0, 0))
        bold = QtGui.QFontMetrics(item.font())
        assert item.font().bold() and updates.visualItemRect(item).width() > bold.horizontalAdvance(item.text()) + 6


def test_presenting_a_quiz_takes_the_largest_text_at_which_every_table_shows(quiz_widget, qtbot):
    """Presentation mode enlarged a quiz's text to 1.6 whatever its size: the tables of a larger
    quiz then needed scrolling to be seen on a projector."""
    widget = quiz_widget
    widget.resize(620, 330)
    widget.set_quiz(Quiz(*SCATTER))
    zooms = (1.6, 1.45, 1.3, 1.15, 1.0)
    widget.set_zoom(1.6)
    settle(widget)
    assert not widget.content_fits()                          # the largest text does not fit here
    chosen = widget.fit_zoom(zooms)
    assert chosen < 1.6 and widget.content_fits()
    bigger = zooms[zooms.index(chosen) - 1]
    widget.set_zoom(bigger)
    settle(widget)
    assert not widget.content_fits()                          # the largest that fits


def test_a_quiz_too_wide_for_one_row_puts_the_output_beside_the_data(quiz_widget, qtbot):
    """A TensorScatter quiz on a projector: the inputs filled the row and the output went under
    them, two tall tables stacked (scrolling both ways); now the data and the output share the
    first row and the other inputs go under them."""
    widget = quiz_widget
    past = np.arange(40, dtype=np.float32).reshape(2, 1, 4, 5) % 10
    update = np.full((2, 1, 2, 5), 2, np.float32)
    widget.set_quiz(Quiz("TensorScatter", [past, update, np.array([1, 3])], {"mode": "circular"}))
    data_box, update_box, index_box = (widget.tables[n].parentWidget() for n in ("past_cache", "update",
                                                                                  "write_indices"))
    out_box = widget.output_table.parentWidget()
    pair = data_box.sizeHint().width() + out_box.sizeHint().width() + 60
    widget.resize(pair + widget.width() - widget.scroll.viewport().width(), 700)
    qtbot.waitUntil(lambda: out_box.y() == data_box.y() and update_box.y() > data_box.y(), timeout=10000)
    assert index_box.y() == update_box.y()
    assert widget.scroll.horizontalScrollBar().maximum() == 0


def test_a_two_input_quiz_narrowed_from_one_layout_to_the_other_is_laid_out_again(quiz_widget, qtbot):
    """Data beside the output, then narrower: the inputs in a row with the output under them.
    Both layouts have two boxes then one, and the second was never made."""
    widget = quiz_widget
    data = np.arange(40, dtype=np.float32).reshape(4, 10)
    widget.set_quiz(Quiz("Gather", [data, np.array([[1, 3, 0], [2, 2, 1]])], {"axis": 0}))
    data_box, index_box = (widget.tables[n].parentWidget() for n in ("data", "indices"))
    out_box = widget.output_table.parentWidget()
    frame = widget.width() - widget.scroll.viewport().width()
    spacing = widget.inputs_row.spacing()

    def wide(*boxes) -> int:
        return sum(b.sizeHint().width() + spacing for b in boxes) + frame + 4

    assert wide(data_box, index_box) < wide(data_box, out_box)      # ten columns of output, three of indices
    widget.resize(wide(data_box, out_box), 900)
    qtbot.waitUntil(lambda: out_box.y() == data_box.y() and index_box.y() > data_box.y(), timeout=10000)
    widget.resize(wide(data_box, index_box), 900)
    qtbot.waitUntil(lambda: index_box.y() == data_box.y() and out_box.y() > data_box.y(), timeout=10000)
