"""Help > Lessons in the editor: the list, opening a lesson (its example, its node, the
Explainer at step 1), quiz mode hiding the output, and a bad lesson file named in the list."""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.teaching import lessons as lessons_module
from nodeeditor.teaching.lessons import find_lesson

LEFT = QtCore.Qt.MouseButton.LeftButton
NOMOD = QtCore.Qt.KeyboardModifier.NoModifier


def open_from_list(window, qtbot, lesson_id):
    """Help > Lessons, then Enter on the lesson's line of the list."""
    window.activateWindow()    # keys go to the active window's focus widget
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is window, timeout=10000)
    window.lessons_action.trigger()
    panel = window.lessons.panel
    qtbot.waitUntil(lambda: window.lessons.dock.isVisible(), timeout=10000)
    item = panel.item_of(lesson_id)
    panel.tree.setFocus()
    panel.tree.setCurrentItem(item)
    QTest.keyClick(panel.tree, QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.current is not None and panel.current.id == lesson_id, timeout=10000)
    window.runner.wait()
    qtbot.waitUntil(lambda: window.explainer.count > 0, timeout=10000)


def save_shot(window, name):
    folder = os.environ.get("INDEXFLOW_SHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        window.grab().save(str(Path(folder) / f"{name}.png"))


def test_help_lessons_lists_every_lesson_under_its_op(window, qtbot):
    window.lessons_action.trigger()
    qtbot.waitUntil(lambda: window.lessons.dock.isVisible(), timeout=10000)
    tree = window.lessons.panel.tree
    groups = {tree.topLevelItem(i).text(0): tree.topLevelItem(i).childCount() for i in range(tree.topLevelItemCount())}
    assert set(groups) == {"Gather", "GatherElements", "GatherND", "Scatter", "ScatterElements", "ScatterND",
                           "TensorScatter"}
    assert sum(groups.values()) == len(lessons_module.list_lessons())
    assert groups["ScatterElements"] == 6     # none, negative indices, add, mul, max, min
    assert window.lessons.panel.errors.isHidden()
    assert "Lessons" in [a.text().replace("&", "") for a in window.menuBar().actions()[-1].menu().actions()]


def test_a_lesson_opens_its_example_at_its_node_with_the_explainer_at_step_1(window, qtbot):
    open_from_list(window, qtbot, "scatter9-axis0")
    lesson = find_lesson("scatter9-axis0")
    assert window.graph.name == "Scatter-9: worked examples"
    assert window.files.current_path is None              # a template: Save asks for a file
    assert window.scene.selected_node_ids() == [lesson.node]
    assert window.explainer.step == 0 and window.explainer.counter.text() == "1 / 6"
    text = window.lessons.panel.text.toPlainText()
    assert "What it does" in text and "Formula" in text and "Common mistake" in text
    assert "output[indices[i, j], j] = updates[i, j]" in text
    # the lesson's node and its inputs and output are in view
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    assert visible.intersects(window.scene.node_item(lesson.node).sceneBoundingRect())
    # Step Through goes back to step 1
    window.explainer.set_step(4)
    QTest.mouseClick(window.lessons.panel.step_button, LEFT)
    assert window.explainer.step == 0
    # the next lesson is one click away
    QTest.mouseClick(window.lessons.panel.next_button, LEFT)
    qtbot.waitUntil(lambda: window.lessons.panel.current.id == "scatter9-axis1", timeout=10000)
    window.runner.wait()
    qtbot.waitUntil(lambda: window.scene.selected_node_ids() == ["ex2_op"], timeout=10000)


def test_opening_a_lesson_asks_before_dropping_unsaved_changes(window, qtbot, dialogs):
    window.palette.blockActivated.emit("op:Gather")
    assert window.is_modified()
    dialogs.answer = QtWidgets.QMessageBox.StandardButton.Cancel
    before = window.graph
    assert not window.lessons.open_lesson(find_lesson("gather-axis0"))
    assert window.graph is before and dialogs.texts("question")


def test_quiz_mode_hides_the_output_and_scores_the_clicks(window, qtbot):
    open_from_list(window, qtbot, "scatter9-axis0")
    lessons = window.lessons
    QTest.mouseClick(lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    assert lessons.quizzing and lessons.panel.quiz_button.isChecked()
    # the output is nowhere on screen: no Explainer, the viewer shows the data input
    assert window.explainer_dock.isHidden() and not window.explainer.isVisible()
    assert window.scene.selected_node_ids() == ["ex1_data"]
    qtbot.waitUntil(lambda: window.viewer.current is not None and window.viewer.current.name == "data.output",
                    timeout=10000)
    quiz = lessons.quiz_widget
    out = quiz.output_table
    qtbot.waitUntil(lambda: out.isVisible(), timeout=10000)
    QTest.mouseClick(out.viewport(), LEFT, NOMOD, out.cell_center((0, 0)))    # wrong: it lands on row 1
    assert "lands on output[1, 0], not on output[0, 0]" in quiz.feedback.text()
    QTest.mouseClick(out.viewport(), LEFT, NOMOD, out.cell_center((1, 0)))    # right (Scatter-9 page)
    assert quiz.quiz.score.right == 0 and quiz.quiz.score.solved == 1 and quiz.quiz.score.wrong == 1
    assert quiz.quiz.current == (0, 1)
    save_shot(window, "lessons_quiz_place")
    # ending the quiz brings the Explainer and the lesson's node back
    QTest.mouseClick(quiz.end_button, LEFT)
    qtbot.waitUntil(lambda: window.explainer_dock.isVisible(), timeout=10000)
    assert lessons.quiz_dock.isHidden() and not lessons.quizzing
    assert window.explainer.isVisible() and not lessons.panel.quiz_button.isChecked()
    assert window.scene.selected_node_ids() == ["ex1_op"]
    assert not window.is_modified()


def test_during_a_quiz_no_click_shows_the_answer_in_the_viewer(window, qtbot):
    """Clicking the lesson's node or the graph output during a quiz put the answer in the
    tensor viewer (the README promises neither the Explainer nor the viewer shows it): it names
    the tensor and says it is hidden; the lesson's text keeps only its formula. After the quiz
    both come back."""
    open_from_list(window, qtbot, "scatterelements-add")
    lessons = window.lessons
    QTest.mouseClick(lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    # the lesson's text works the example through ("2 + 1.1 + 2.1 = 5.2"): only its formula shows
    text = lessons.panel.text.toPlainText()
    assert "5.2" not in text and "Common mistake" not in text and "+= updates[i, j]" in text
    op = lessons.lesson.node
    output = next(iter(window.graph.downstream(op)))
    view = window.view
    for node in (op, output):
        item = window.scene.node_item(node)
        view.ensureVisible(item)
        at = view.mapFromScene(item.sceneBoundingRect().center())
        QTest.mouseClick(view.viewport(), LEFT, NOMOD, at)
        qtbot.waitUntil(lambda node=node: window.scene.selected_node_ids() == [node], timeout=10000)
        qtbot.waitUntil(lambda: window.viewer.current is None, timeout=10000)
        assert window.viewer.info_label.text() == "hidden during the quiz"
    # a copy of the node made during the quiz computes the answer too: hidden as well
    window.scene.select_nodes([op])
    view.setFocus()
    QTest.keyClick(view, QtCore.Qt.Key.Key_D, QtCore.Qt.KeyboardModifier.ControlModifier)
    (copy,) = [n for n in window.scene.selected_node_ids() if n != op]
    window.runner.wait()
    window.viewer_target.show_node(copy)
    qtbot.waitUntil(lambda: window.viewer.info_label.text() == "hidden during the quiz", timeout=10000)
    assert window.viewer.current is None
    assert not window.explainer.menu.menuAction().isEnabled()     # its slides would draw the answer
    window.undo_stack.undo()
    QTest.mouseClick(lessons.quiz_widget.end_button, LEFT)
    qtbot.waitUntil(lambda: not lessons.quizzing, timeout=10000)
    assert window.explainer.menu.menuAction().isEnabled()
    assert "2 + 1.1 + 2.1 = 5.2" in lessons.panel.text.toPlainText()
    window.scene.select_nodes([op])
    window.viewer_target.show_node(op)
    qtbot.waitUntil(lambda: window.viewer.current is not None, timeout=10000)
    window.runner.wait()
    np.testing.assert_array_equal(window.viewer.current.array, window.runner.value(op))


def test_a_fill_quiz_is_typed_with_the_keyboard(window, qtbot):
    open_from_list(window, qtbot, "scatterelements-add")
    QTest.mouseClick(window.lessons.panel.quiz_button, LEFT)
    quiz = window.lessons.quiz_widget
    out = quiz.output_table
    qtbot.waitUntil(lambda: out.isVisible(), timeout=10000)
    assert quiz.quiz.questions == ((0, 1),)
    QTest.mouseClick(out.viewport(), LEFT, NOMOD, out.cell_center((0, 1)))
    qtbot.waitUntil(lambda: out.hasFocus(), timeout=10000)
    for key in "3.2":                                    # 1.1 + 2.1: the data value forgotten
        QTest.keyClicks(QtWidgets.QApplication.focusWidget(), key)
    QTest.keyClick(QtWidgets.QApplication.focusWidget(), QtCore.Qt.Key.Key_Return)   # Qt commits it queued
    qtbot.waitUntil(lambda: "starts as a copy of data[0, 1] = 2" in quiz.feedback.text(), timeout=10000)
    qtbot.waitUntil(lambda: out.hasFocus(), timeout=10000)
    for key in "5.2":                                    # the ONNX page's output
        QTest.keyClicks(QtWidgets.QApplication.focusWidget(), key)
    QTest.keyClick(QtWidgets.QApplication.focusWidget(), QtCore.Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: quiz.quiz.done, timeout=10000)
    assert quiz.quiz.score.wrong == 1 and quiz.quiz.score.right == 0 and quiz.quiz.score.solved == 1
    assert quiz.feedback.text().startswith("✓ output[0, 1] = 5.2: right")
    save_shot(window, "lessons_quiz_fill")


@pytest.mark.parametrize("size", [(853, 480), (1280, 720)])
def test_the_lessons_and_the_quiz_fit_a_projector_and_a_laptop(window, qtbot, size):
    window.resize(*size)
    open_from_list(window, qtbot, "gather-axis0")
    panel = window.lessons.panel
    assert panel.text.isVisible() and panel.quiz_button.isVisible()
    assert window.lessons.dock.geometry().bottom() <= window.rect().bottom()
    # framed on the lesson's node after the run; no hint over its ports on a small canvas
    node = window.scene.node_item(window.lessons.lesson.node)
    view = window.view
    qtbot.waitUntil(lambda: view.mapToScene(view.viewport().rect()).boundingRect().contains(
        node.sceneBoundingRect().center()) and not window.lessons._frame_after_run, timeout=10000)
    QtWidgets.QApplication.processEvents()     # the framing queued after the run (a zero-delay timer)
    assert not view.overflow_hint.isVisible()
    save_shot(window, f"lessons_{size[0]}")
    QTest.mouseClick(panel.quiz_button, LEFT)
    quiz = window.lessons.quiz_widget
    qtbot.waitUntil(lambda: quiz.output_table is not None and quiz.output_table.isVisible(), timeout=10000)
    # the controls stay on screen; the tables scroll inside the dock
    for button in (quiz.another_button, quiz.end_button, quiz.reveal_button):
        corner = button.mapTo(window, button.rect().bottomRight())
        assert window.rect().contains(corner)
    # the quiz takes the height its tables need, at most 70% of the window's
    wanted = min(quiz.preferred_height(), int(window.height() * 0.7))
    qtbot.waitUntil(lambda: window.lessons.quiz_dock.height() >= wanted, timeout=10000)
    if size[1] >= 720:   # a laptop: every table in view, nothing to scroll
        qtbot.waitUntil(lambda: quiz.scroll.verticalScrollBar().maximum() == 0, timeout=10000)
    save_shot(window, f"lessons_quiz_{size[0]}")


def test_a_bad_lesson_file_is_named_in_the_list(window, qtbot, tmp_path, monkeypatch):
    (tmp_path / "broken.toml").write_text('id = "x"\ntitle = "X"\n', encoding="utf-8")
    monkeypatch.setattr(lessons_module, "LESSONS_DIR", tmp_path)
    window.lessons_action.trigger()
    errors = window.lessons.panel.errors
    qtbot.waitUntil(lambda: errors.isVisible(), timeout=10000)
    assert f"{tmp_path / 'broken.toml'}: op: missing" in errors.text()
    assert window.lessons.panel.tree.topLevelItemCount() == 0


def test_after_opening_a_lesson_the_stepping_keys_step_at_once(window, qtbot):
    """Enter on a lesson, then Right, Right, Left and End, typed into whatever has the focus:
    the Explainer steps (the focus was left on the lesson page's button, which took Space)."""
    open_from_list(window, qtbot, "scatter9-axis0")
    ex = window.explainer
    qtbot.waitUntil(lambda: ex.count == 6 and ex.step == 0, timeout=10000)
    for key, step in ((QtCore.Qt.Key.Key_Right, 1), (QtCore.Qt.Key.Key_Right, 2), (QtCore.Qt.Key.Key_Left, 1),
                      (QtCore.Qt.Key.Key_End, 5)):
        QTest.keyClick(QtWidgets.QApplication.focusWidget(), key)
        assert ex.step == step, (key, ex.step)


def test_after_another_one_the_lessons_sources_are_not_shown_as_the_quizs_inputs(window, qtbot):
    """"Another one" draws new inputs; the viewer, the blocks' previews and the property panel
    showed the lesson's sources as if they were the quiz's. They now say where the quiz's inputs
    are (the panel above the lesson's values, which stay editable), and show again on the
    example (seed 0) and after the quiz."""
    open_from_list(window, qtbot, "scatterelements-add")
    if not window.previews_action.isChecked():
        window.previews_action.trigger()                     # View > Inline Previews
    lessons = window.lessons
    QTest.mouseClick(lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    (data,) = window.scene.selected_node_ids()                # the viewer shows the data input
    qtbot.waitUntil(lambda: window.viewer.current is not None, timeout=10000)
    item = window.scene.node_item(data)
    assert item._preview is not None
    quiz = lessons.quiz_widget
    QTest.mouseClick(quiz.another_button, LEFT)
    qtbot.waitUntil(lambda: window.viewer.current is None, timeout=10000)
    assert "new inputs are in the Quiz panel" in window.viewer.info_label.text()
    assert item._preview is None
    assert window.properties.node_id == data
    note = window.properties.widgets["quiz_note"]
    assert not note.isHidden() and "new inputs are in the Quiz panel" in note.text()
    assert not window.properties.widgets["table"].isHidden()
    quiz.use_seed(0)                                         # the lesson's example again
    qtbot.waitUntil(lambda: window.viewer.current is not None, timeout=10000)
    np.testing.assert_array_equal(window.viewer.current.array, quiz.quiz.inputs[0])
    assert item._preview is not None
    window.properties.show_node(data)
    assert window.properties.widgets["quiz_note"].isHidden()
    QTest.mouseClick(quiz.another_button, LEFT)
    qtbot.waitUntil(lambda: window.viewer.current is None, timeout=10000)
    assert not window.properties.widgets["quiz_note"].isHidden()
    QTest.mouseClick(quiz.end_button, LEFT)
    qtbot.waitUntil(lambda: not lessons.quizzing, timeout=10000)
    assert item._preview is not None
    # the status line said "Quiz: ..." long after the quiz had ended
    assert window.statusBar().currentMessage() == f"Quiz ended: {lessons.lesson.title}"
    window.properties.show_node(data)
    assert window.properties.widgets["quiz_note"].isHidden()


def test_a_quiz_asks_about_the_lesson_as_edited_on_screen(window, qtbot):
    """A teacher who changes the lesson's reduction before Quiz gets a quiz on that reduction
    (it was made from the lesson's file, unlike what the canvas showed)."""
    open_from_list(window, qtbot, "scatterelements-add")
    lessons = window.lessons
    node = lessons.lesson.node
    window.graph.set_attribute(node, "reduction", "mul")
    QTest.mouseClick(lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    quiz = lessons.quiz_widget.quiz
    assert quiz.attrs["reduction"] == "mul"
    data, indices, updates = (np.asarray(v) for v in quiz.inputs)
    assert quiz.attrs.get("axis", 0) == 1
    expected = data.copy()                                   # ScatterElements' loop, axis 1
    for i, j in np.ndindex(indices.shape):
        expected[i, indices[i, j]] *= updates[i, j]
    np.testing.assert_allclose(quiz.output, expected, rtol=1e-6)


def test_a_lesson_saved_and_opened_again_quizzes_without_showing_the_answer(window, qtbot, tmp_path):
    """The lesson followed only the very copy it had opened: after Save and Open the Quiz
    button quizzed on the lesson's file while the viewer showed the computed output."""
    from nodeeditor.graph.fileformat import save_graph

    open_from_list(window, qtbot, "gatherelements-axis0")
    lessons = window.lessons
    node = lessons.lesson.node
    window.graph.set_attribute(node, "axis", 1)              # an edit the saved file keeps
    path = tmp_path / "lesson.ifg.json"
    save_graph(window.graph, path)
    assert window.files.open_path(path, ask=False)
    window.runner.wait()
    QTest.mouseClick(lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    assert lessons.quiz_widget.quiz.attrs["axis"] == 1          # the reopened graph's axis
    window.scene.select_nodes([node])
    window.viewer_target.show_node(node)
    qtbot.waitUntil(lambda: window.viewer.info_label.text() == "hidden during the quiz", timeout=10000)
    assert window.viewer.current is None


def test_the_quiz_follows_an_edit_and_an_undo_of_the_lessons_node(window, qtbot):
    """Undo during a quiz took the graph back while the quiz kept asking about the edit; the
    lesson's text says when the node is no longer what it is about."""
    open_from_list(window, qtbot, "gather-axis1")
    lessons = window.lessons
    node = lessons.lesson.node
    assert lessons.panel.note == ""
    window.scene.select_nodes([node])
    box = window.properties.widgets["attr:axis"]
    box.setValue(0)                                           # an undo step, as typed
    window.runner.wait()
    qtbot.waitUntil(lambda: "now has axis 0" in lessons.panel.text.toPlainText(), timeout=10000)
    assert "about axis 1" in lessons.panel.note
    QTest.mouseClick(lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    quiz = lessons.quiz_widget
    data, indices = quiz.quiz.inputs
    np.testing.assert_array_equal(quiz.quiz.output, np.take(data, indices, axis=0))
    window.view.setFocus()
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_Z, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert window.graph.node(node).attributes.get("axis") == 1
    qtbot.waitUntil(lambda: quiz.quiz.attrs["axis"] == 1, timeout=10000)
    np.testing.assert_array_equal(quiz.quiz.output, np.take(data, indices, axis=1))
    assert lessons.quizzing and lessons.panel.note == ""
    # new inputs keep following: the same seed drawn for the node as it is
    QTest.mouseClick(quiz.another_button, LEFT)
    seed = quiz.seed_box.value()
    window.graph.set_attribute(node, "axis", 0)
    window.runner.wait()
    qtbot.waitUntil(lambda: quiz.quiz.attrs["axis"] == 0, timeout=10000)
    assert quiz.quiz.seed == seed
    d, i = quiz.quiz.inputs
    np.testing.assert_array_equal(quiz.quiz.output, np.take(d, i, axis=0))


def test_a_clicked_answer_shows_its_colour_through_the_selection(window, qtbot):
    """The clicked cell stays the current one: the selection's colour replaced the red of a
    wrong answer and the green of a right one (a frame around them now)."""
    open_from_list(window, qtbot, "scatter9-axis0")
    lessons = window.lessons
    QTest.mouseClick(lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    out = lessons.quiz_widget.output_table
    qtbot.waitUntil(lambda: out.isVisible(), timeout=10000)

    def colour_at(cell):
        rect = out.visualItemRect(out.item_at(cell))
        image = out.viewport().grab().toImage()
        return image.pixelColor(rect.left() + 6, rect.center().y())   # inside the frame

    QTest.mouseClick(out.viewport(), LEFT, NOMOD, out.cell_center((0, 0)))    # wrong: it lands on row 1
    assert out.currentItem() is out.item_at((0, 0))
    wrong = colour_at((0, 0))
    assert wrong.red() > wrong.green() + 30 and wrong.red() > wrong.blue() + 30, wrong.name()
    QTest.mouseClick(out.viewport(), LEFT, NOMOD, out.cell_center((1, 0)))    # right
    right = colour_at((1, 0))
    assert right.green() > right.red() + 20, right.name()


def test_another_lesson_opened_while_presenting_keeps_the_presentation(window, qtbot):
    """Help > Lessons and a lesson picked while presenting left the Lessons dock over half the
    window and the Explainer squeezed; Esc then framed the previous lesson's node."""
    open_from_list(window, qtbot, "scatter9-axis0")
    window.view.setFocus()
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: window.isFullScreen(), timeout=10000)
    assert not window.lessons.dock.isVisible()
    open_from_list(window, qtbot, "gathernd-batch-dims")
    qtbot.waitUntil(lambda: not window.lessons.dock.isVisible(), timeout=10000)
    assert window.presentation.active and window.explainer_dock.isVisible()
    qtbot.waitUntil(lambda: window.explainer_dock.width() > 0.5 * window.width(), timeout=10000)
    node = window.lessons.lesson.node
    window.view.setFocus()
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.presentation.active and not window.isFullScreen(), timeout=10000)
    view = window.view

    def node_in_view() -> bool:
        shown = view.mapToScene(view.viewport().rect()).boundingRect()
        return shown.contains(window.scene.node_item(node).sceneBoundingRect().center())

    qtbot.waitUntil(node_in_view, timeout=10000)


def test_while_presenting_the_lessons_text_is_large_print(window, qtbot):
    """F6 while presenting showed the lesson's text at desktop size, too small for the back of
    the room; it grows by the presentation's factor and is back to its size after Esc."""
    from nodeeditor.ui.presentation import LESSON_TEXT_ZOOM

    open_from_list(window, qtbot, "scatter9-axis0")
    text = window.lessons.panel.text
    usual = text.font().pointSizeF()
    line = QtGui.QFontMetricsF(text.font()).height()
    window.view.setFocus()
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: window.isFullScreen(), timeout=10000)
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_F6)        # the panels, the Lessons dock among them
    qtbot.waitUntil(lambda: window.lessons.dock.isVisible(), timeout=10000)
    assert text.font().pointSizeF() == pytest.approx(usual * LESSON_TEXT_ZOOM)
    assert QtGui.QFontMetricsF(text.font()).height() > 1.3 * line      # drawn larger, not only set
    window.view.setFocus()
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.presentation.active, timeout=10000)
    assert text.font().pointSizeF() == pytest.approx(usual)


def test_f7_puts_the_lessons_text_above_the_stage_while_presenting(window, qtbot):
    """While presenting, the lesson's text was only in the Lessons dock among the other panels
    (F6). F7 puts it above the Explainer, the same column, and the quiz under it once started;
    F7 again, or Esc, takes it away; outside a presentation F7 does nothing."""
    open_from_list(window, qtbot, "gathernd-batch-dims")
    lessons_dock, explainer_dock = window.lessons.dock, window.explainer_dock
    aside = window.presentation.aside_action
    assert not aside.isEnabled()
    window.view.setFocus()
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: window.isFullScreen(), timeout=10000)
    assert not lessons_dock.isVisible()

    def above(dock) -> bool:
        top, under = lessons_dock.geometry(), dock.geometry()
        return (lessons_dock.isVisible() and dock.isVisible() and top.bottom() < under.top()
                and abs(top.left() - under.left()) < 8 and abs(top.width() - under.width()) < 8)

    QTest.keyClick(window.view, QtCore.Qt.Key.Key_F7)
    qtbot.waitUntil(lambda: above(explainer_dock), timeout=10000)
    assert explainer_dock.width() > 0.5 * window.width()
    assert not window.palette_dock.isVisible() and not window.properties_dock.isVisible()
    QTest.mouseClick(window.lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: above(window.lessons.quiz_dock), timeout=10000)
    assert not explainer_dock.isVisible()
    window.view.setFocus()
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_F7)
    qtbot.waitUntil(lambda: not lessons_dock.isVisible(), timeout=10000)
    assert window.lessons.quiz_dock.isVisible()
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_F7)
    qtbot.waitUntil(lambda: above(window.lessons.quiz_dock), timeout=10000)
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.presentation.active, timeout=10000)
    assert not aside.isChecked() and not aside.isEnabled()


def test_an_edit_no_quiz_can_be_made_of_keeps_the_quiz_shown(window, qtbot):
    """An index typed out of range, or a wire taken off to be put back: the quiz ended (and the
    class's answers with it). It stays, and follows the node again once a quiz can be made."""
    open_from_list(window, qtbot, "gather-axis1")
    lessons = window.lessons
    QTest.mouseClick(lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    graph, node = window.graph, lessons.lesson.node
    shown = lessons.quiz_widget.quiz
    src = graph.edge_into(node, "indices").src
    good = np.array(graph.node(src).value, copy=True)
    bad = good.copy()
    bad.reshape(-1)[0] = 99
    graph.set_source(src, value=bad)
    window.runner.wait()
    QtWidgets.QApplication.processEvents()
    assert lessons.quizzing and lessons.quiz_widget.quiz is shown
    graph.disconnect(node, "indices")
    window.runner.wait()
    QtWidgets.QApplication.processEvents()
    assert lessons.quizzing and lessons.quiz_widget.quiz is shown
    graph.connect(src, "output", node, "indices")
    other = good.copy()
    other.reshape(-1)[0] = (good.reshape(-1)[0] + 1) % graph.node(lessons._data_source()).value.shape[1]
    graph.set_source(src, value=other)                       # a valid edit: the quiz follows it
    window.runner.wait()
    qtbot.waitUntil(lambda: lessons.quiz_widget.quiz is not shown, timeout=10000)
    np.testing.assert_array_equal(lessons.quiz_widget.quiz.inputs[1], other)


def test_a_value_edit_that_a_drawn_quiz_does_not_read_keeps_its_answers(window, qtbot):
    """After "Another one" the quiz's inputs are drawn from the shapes, not the lesson's values:
    a changed source value (same shape) reset the answers given so far."""
    open_from_list(window, qtbot, "scatter9-axis0")
    lessons = window.lessons
    QTest.mouseClick(lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    quiz = lessons.quiz_widget
    QTest.mouseClick(quiz.another_button, LEFT)
    shown = quiz.quiz
    out = quiz.output_table
    qtbot.waitUntil(lambda: out.isVisible(), timeout=10000)
    QTest.mouseClick(out.viewport(), LEFT, NOMOD, out.cell_center((0, 0)))
    answered = shown.score.right + shown.score.wrong + shown.score.solved
    assert answered > 0
    data = lessons._data_source()
    value = np.array(window.graph.node(data).value, copy=True)
    value.reshape(-1)[0] += 1.5
    window.graph.set_source(data, value=value)
    window.runner.wait()
    QtWidgets.QApplication.processEvents()
    assert quiz.quiz is shown and shown.score.right + shown.score.wrong + shown.score.solved == answered
