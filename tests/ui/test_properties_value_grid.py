"""The value table of a literal behaves like a spreadsheet: real key presses into the grid,
real pastes from the clipboard, with the run finishing between keys as it does for a user."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from .helpers import deliver_posted_events, save_shot

Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier


def _literal(w, value: np.ndarray) -> tuple[str, QtWidgets.QTableWidget]:
    """A literal holding ``value``, selected, its table focused; the run has finished."""
    nid = w.graph.add_literal(value, name="typed", position=(300, 400))
    w.scene.select_nodes([nid])
    w.runner.wait()
    table = w.properties.widgets["table"]
    return nid, table


def _click(table: QtWidgets.QTableWidget, row: int, col: int) -> None:
    rect = table.visualRect(table.model().index(row, col))
    QTest.mouseClick(table.viewport(), QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier,
                     rect.center())


def _focused(table) -> QtWidgets.QWidget:
    """Where a key press goes: the open cell editor, else the table."""
    widget = QtWidgets.QApplication.focusWidget()
    return widget if widget is not None and (widget is table or table.isAncestorOf(widget)) else table


def _type(w, table, keys: list) -> None:
    """Press each key (text or Qt key) where the focus is, letting the run triggered by an
    edit finish before the next key (what happens between a person's key presses)."""
    for key in keys:
        for one in (key if isinstance(key, str) else [key]):
            QTest.keyClick(_focused(table), one)   # the first character opens the cell's editor
        deliver_posted_events()
        w.runner.wait()
        deliver_posted_events()


def _texts(table) -> list[list[str]]:
    return [[table.item(r, c).text() for c in range(table.columnCount())] for r in range(table.rowCount())]


def test_typing_with_tab_fills_a_row_and_replaces_each_cells_value(small, qtbot):
    """``1 Tab 2 Tab 3 Tab 4 Tab 5`` into a 1x5 literal gives 1..5 (it gave 1.0, 1.0199...,
    2.0299...: the run finishing re-set the next cell's editor, and typing appended)."""
    w = small
    nid, table = _literal(w, np.arange(5, dtype=np.float32).reshape(1, 5))
    _click(table, 0, 0)
    _type(w, table, ["1", Key.Key_Tab, "2", Key.Key_Tab, "3", Key.Key_Tab, "4", Key.Key_Tab, "5", Key.Key_Tab])
    np.testing.assert_array_equal(w.graph.node(nid).value, [[1, 2, 3, 4, 5]])
    assert _texts(table) == [["1.0", "2.0", "3.0", "4.0", "5.0"]]
    save_shot(w.properties, "properties/values_typed_row")


def test_tab_on_a_cell_not_being_edited_leaves_the_table(small, qtbot):
    """Tab cycled the cells for ever (a keyboard user could not leave the property panel's
    table); now, on a cell not being edited, Tab and Shift+Tab go to the next / previous
    control, while in a cell's editor Tab still commits and edits the next cell."""
    w = small
    nid, table = _literal(w, np.arange(4, dtype=np.float32).reshape(2, 2))
    _click(table, 0, 0)
    _type(w, table, ["7", Key.Key_Tab])                   # in the editor: committed, on to [0, 1]
    np.testing.assert_array_equal(w.graph.node(nid).value, [[7, 1], [2, 3]])
    assert (table.currentRow(), table.currentColumn()) == (0, 1)
    QTest.keyClick(_focused(table), Key.Key_Escape)       # the next cell's editor closed, nothing typed
    deliver_posted_events()
    assert table.state() != QtWidgets.QAbstractItemView.State.EditingState and table.hasFocus()
    QTest.keyClick(table, Key.Key_Tab)
    deliver_posted_events()
    focus = QtWidgets.QApplication.focusWidget()
    assert focus is not None and focus is not table and not table.isAncestorOf(focus)
    np.testing.assert_array_equal(w.graph.node(nid).value, [[7, 1], [2, 3]])


def test_enter_moves_down_and_typing_after_it_replaces_the_next_cell(small, qtbot):
    """``10 Enter 2 Enter`` writes 10 and 2 down a column (``2`` after ``10`` gave 102)."""
    w = small
    nid, table = _literal(w, np.array([[7, 7], [7, 7], [7, 7]], np.int64))
    _click(table, 0, 1)
    _type(w, table, ["10", Key.Key_Return])
    qtbot.waitUntil(lambda: table.currentRow() == 1, timeout=10000)
    _type(w, table, ["2", Key.Key_Return])
    qtbot.waitUntil(lambda: table.currentRow() == 2, timeout=10000)
    np.testing.assert_array_equal(w.graph.node(nid).value, [[7, 10], [7, 2], [7, 7]])
    assert table.currentColumn() == 1
    # Enter on a cell that is not being edited moves down too
    _click(table, 0, 0)
    _type(w, table, [Key.Key_Return])
    assert (table.currentRow(), table.currentColumn()) == (1, 0)


def test_escape_cancels_the_cells_edit(small, qtbot):
    w = small
    nid, table = _literal(w, np.array([4, 5, 6], np.int64))
    _click(table, 0, 1)
    _type(w, table, ["99"])
    assert table.state() == QtWidgets.QAbstractItemView.State.EditingState
    _type(w, table, [Key.Key_Escape])
    assert table.state() != QtWidgets.QAbstractItemView.State.EditingState
    np.testing.assert_array_equal(w.graph.node(nid).value, [4, 5, 6])
    assert _texts(table) == [["4", "5", "6"]]
    assert w.undo_stack.count() == 0


def test_cells_show_the_shortest_text_and_the_exact_stored_value_as_a_tooltip(small, qtbot):
    """float32 1.1 reads ``1.1`` (not 1.100000023841858), as in the viewer's table; its
    exact value, 1.10000002384185791015625, is the cell's tooltip; 0.5 is exact: no tooltip."""
    w = small
    nid, table = _literal(w, np.array([1.1, 0.5, 3.0], np.float32))
    assert _texts(table) == [["1.1", "0.5", "3.0"]]
    assert "1.10000002384185791015625" in table.item(0, 0).toolTip()
    assert table.item(0, 1).toolTip() == "" and table.item(0, 2).toolTip() == ""
    w.viewer_target.update()
    qtbot.waitUntil(lambda: w.viewer.table_model.rowCount() == 3, timeout=10000)
    model = w.viewer.table_model
    assert [model.data(model.index(r, 0)) for r in range(3)] == ["1.1", "0.5", "3.0"]
    # typing the same value the long way changes nothing and still reads short
    _click(table, 0, 0)
    _type(w, table, ["1.10", Key.Key_Return])
    assert w.undo_stack.count() == 0 and table.item(0, 0).text() == "1.1"


def test_several_numbers_typed_into_one_cell_are_an_error_on_that_cell(small, qtbot):
    """``9 8 7 6`` in one int64 cell: the cell keeps the text on red with the reason as its
    tooltip, the status line says it in words (never ``invalid literal for int()``), the
    value is unchanged; Escape puts the value back."""
    w = small
    nid, table = _literal(w, np.array([[1, 2], [3, 4]], np.int64))
    _click(table, 1, 0)
    _type(w, table, ["9 8 7 6", Key.Key_Tab])
    np.testing.assert_array_equal(w.graph.node(nid).value, [[1, 2], [3, 4]])
    item = table.item(1, 0)
    assert item.text() == "9 8 7 6"
    assert "several values" in item.toolTip() and "invalid literal" not in item.toolTip()
    assert item.background().color() == QtGui.QColor("#ffd9d9")
    message = w.statusBar().currentMessage()
    assert "several values" in message and "invalid literal" not in message
    save_shot(w.properties, "properties/values_wrong_cell")
    _click(table, 1, 0)
    _type(w, table, [Key.Key_Escape])
    assert table.item(1, 0).text() == "3" and table.item(1, 0).background().style() == QtCore.Qt.BrushStyle.NoBrush
    # a word in a float cell says what it is not
    _click(table, 0, 1)
    _type(w, table, ["abc", Key.Key_Return])
    assert table.item(0, 1).toolTip() == "'abc' is not an integer (int64)"


def _paste(w, table, text: str) -> None:
    QtWidgets.QApplication.clipboard().setText(text)
    table.setFocus()
    QTest.keyClick(table, Key.Key_V, CTRL)
    deliver_posted_events()
    w.runner.wait()


def test_pasting_tab_separated_rows_fills_cells_from_the_current_one_as_one_undo_step(small, qtbot):
    w = small
    nid, table = _literal(w, np.zeros((3, 3), np.int64))
    _click(table, 0, 1)
    _paste(w, table, "1\t2\n3\t4\n")
    np.testing.assert_array_equal(w.graph.node(nid).value, [[0, 1, 2], [0, 3, 4], [0, 0, 0]])
    assert _texts(table) == [["0", "1", "2"], ["0", "3", "4"], ["0", "0", "0"]]
    assert w.undo_action.text() == "Undo Paste Values"
    w.view.setFocus()
    QTest.keySequence(w.view, QtGui.QKeySequence("Ctrl+Z"))
    np.testing.assert_array_equal(w.graph.node(nid).value, np.zeros((3, 3)))


def test_pasting_past_the_tables_edge_keeps_what_fits_and_says_so(small, qtbot):
    w = small
    nid, table = _literal(w, np.zeros((2, 2), np.float32))
    _click(table, 1, 1)
    _paste(w, table, "5, 6\n7, 8")
    np.testing.assert_array_equal(w.graph.node(nid).value, [[0, 0], [0, 5]])
    assert "3 did not fit" in w.statusBar().currentMessage()


@pytest.mark.parametrize(("text", "expected"), [
    ("[[1, 2], [3, 4], [5, 6]]", [[1, 2], [3, 4], [5, 6]]),                 # Python
    ("[[1. 2.]\n [3. 4.]\n [5. 6.]]", [[1, 2], [3, 4], [5, 6]]),            # NumPy's print-out
    ("array([[1, 2],\n       [3, 4],\n       [5, 6]], dtype=float32)", [[1, 2], [3, 4], [5, 6]]),
    ("1,2\n3,4\n5,6", [[1, 2], [3, 4], [5, 6]]),                            # CSV rows
    ("[[[1, 2]], [[3, 4]]]", [[[1, 2]], [[3, 4]]]),                         # any rank
])
def test_pasting_over_the_whole_tensor_gives_it_the_pasted_shape(small, qtbot, text, expected):
    w = small
    nid, table = _literal(w, np.arange(5, dtype=np.float32).reshape(1, 5))
    _click(table, 0, 0)
    QTest.keyClick(table, Key.Key_A, CTRL)            # select every cell
    _paste(w, table, text)
    value = w.graph.node(nid).value
    assert value.dtype == np.float32
    np.testing.assert_array_equal(value, np.array(expected, np.float32))
    assert w.properties.widgets["shape"].text() == ", ".join(str(d) for d in np.shape(expected))
    assert "shape is now" in w.statusBar().currentMessage()


def test_one_pasted_row_over_a_whole_vector_keeps_it_a_vector(small, qtbot):
    w = small
    nid, table = _literal(w, np.array([0, 1], np.int64))
    _click(table, 0, 0)
    QTest.keyClick(table, Key.Key_A, CTRL)
    _paste(w, table, "4\t5\t6\t7")
    np.testing.assert_array_equal(w.graph.node(nid).value, np.array([4, 5, 6, 7]))
    assert w.graph.node(nid).value.shape == (4,)


def test_a_paste_with_a_word_in_it_changes_nothing_and_names_the_cell(small, qtbot):
    w = small
    nid, table = _literal(w, np.zeros((2, 3), np.int64))
    _click(table, 0, 0)
    _paste(w, table, "1\t2\t3\n4\tfive\t6")
    np.testing.assert_array_equal(w.graph.node(nid).value, np.zeros((2, 3)))
    assert w.undo_stack.count() == 0
    message = w.statusBar().currentMessage()
    assert "Nothing pasted" in message and "[1, 1]" in message and "'five' is not an integer" in message
    assert table.item(1, 1).toolTip() == "'five' is not an integer (int64)"
    # ragged rows are refused in words too
    _paste(w, table, "1\t2\n3")
    assert "row 2 has 1 value, row 1 has 2" in w.statusBar().currentMessage()


def test_ctrl_c_copies_the_selected_cells_as_rows_a_spreadsheet_reads(small, qtbot):
    w = small
    _nid, table = _literal(w, np.array([[1.5, 2.0], [3.25, 4.0]], np.float64))
    _click(table, 0, 0)
    QTest.keyClick(table, Key.Key_A, CTRL)
    QTest.keyClick(table, Key.Key_C, CTRL)
    assert QtWidgets.QApplication.clipboard().text() == "1.5\t2.0\n3.25\t4.0"


def _start_typing(w, table, text: str) -> QtWidgets.QWidget:
    """Open the first cell's editor by typing ``text`` into it, without Enter."""
    _click(table, 0, 0)
    QTest.keyClicks(_focused(table), text)
    editor = QtWidgets.QApplication.focusWidget()
    assert editor is not None and table.isAncestorOf(editor)   # the cell's editor is open
    return editor


def _type_then_pick_from_the_edit_menu(w, table, qtbot, text: str, action) -> None:
    """Type ``text`` into the first cell without Enter, open the Edit menu, run ``action``
    from it, and let the run it causes finish."""
    _start_typing(w, table, text)
    w.edit_menu.popup(w.mapToGlobal(QtCore.QPoint(40, 40)))
    qtbot.waitUntil(w.edit_menu.isVisible, timeout=10000)
    action.trigger()
    w.edit_menu.hide()
    deliver_posted_events()
    w.runner.wait()


def test_a_value_typed_and_not_entered_stays_with_its_node_when_another_action_selects(small, qtbot):
    """A cell typed in but not entered, then Edit > Select All: the value goes to the literal it
    was typed into (it went to whichever node the panel showed by then: with no node shown, an
    uncaught KeyError, the typed value lost)."""
    w = small
    nid, table = _literal(w, np.array([[1, 2], [3, 4]], np.int64))
    _type_then_pick_from_the_edit_menu(w, table, qtbot, "7", w.select_all_action)
    np.testing.assert_array_equal(w.graph.node(nid).value, [[7, 2], [3, 4]])
    assert w.properties.node_id is None   # the panel shows the graph: several nodes are selected


def test_duplicating_from_the_menu_keeps_a_value_still_being_typed(small, qtbot):
    """Edit > Duplicate while a cell of the literal is being typed in: the typed value is the
    literal's first, and the copy has it too (the copy took the old value, and the typed one
    went to the copy, the node the panel showed next)."""
    w = small
    nid, table = _literal(w, np.array([[1, 2], [3, 4]], np.int64))
    before = {n.id for n in w.graph.nodes}
    _type_then_pick_from_the_edit_menu(w, table, qtbot, "9", w.duplicate_action)
    (copy,) = [n.id for n in w.graph.nodes if n.id not in before]
    np.testing.assert_array_equal(w.graph.node(nid).value, [[9, 2], [3, 4]])
    np.testing.assert_array_equal(w.graph.node(copy).value, [[9, 2], [3, 4]])


def test_selecting_another_node_commits_the_typed_value_to_the_node_it_was_typed_for(small, qtbot):
    """The panel moving to another node (here selected by the program, as find and undo do)
    first finishes the cell being typed, for its own node."""
    w = small
    nid, table = _literal(w, np.array([[1, 2], [3, 4]], np.int64))
    other = w.graph.add_literal(np.array([[5, 6]], np.int64), name="other", position=(600, 400))
    _start_typing(w, table, "8")
    w.scene.select_nodes([other])
    deliver_posted_events()
    w.runner.wait()
    np.testing.assert_array_equal(w.graph.node(nid).value, [[8, 2], [3, 4]])
    np.testing.assert_array_equal(w.graph.node(other).value, [[5, 6]])
    assert w.properties.node_id == other


def test_typing_the_other_zero_changes_its_sign(small, qtbot):
    """``-0`` typed over 0.0 was taken for the same value (-0.0 == 0.0) and nothing changed."""
    w = small
    nid, table = _literal(w, np.array([[0.0, -0.0]], np.float32))
    _click(table, 0, 0)
    _type(w, table, ["-0", Key.Key_Tab, "0", Key.Key_Tab])
    assert np.signbit(w.graph.node(nid).value).tolist() == [[True, False]]
