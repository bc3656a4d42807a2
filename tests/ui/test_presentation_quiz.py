"""Presentation mode (F5) with the lessons: the Lessons dock is a panel (hidden), a quiz takes
the Explainer's place beside the canvas with larger text, and leaving (Esc) keeps the quiz
going with its score; the Explainer, which would show the answers, never comes back during a
quiz. A quiz started or ended while presenting takes the place or gives it back."""
from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtTest import QTest

from .helpers import LEFT, NOMOD, save_shot
from .test_lessons import open_from_list

Key = QtCore.Qt.Key


def _point_size(widget) -> float:
    return widget.fontInfo().pointSizeF()


def _ink_height(widget) -> int:
    """The height of what is drawn dark in ``widget`` (its text's glyphs), in pixels: what a
    class sees, whatever font the widget says it has."""
    image = widget.grab().toImage()
    rows = [y for y in range(image.height()) if any(image.pixelColor(x, y).lightness() < 100
                                                     for x in range(image.width()))]
    return max(rows) - min(rows) + 1 if rows else 0


def test_a_quiz_survives_entering_and_leaving_presentation_and_never_shows_the_answer(window, qtbot):
    w = window
    open_from_list(w, qtbot, "scatter9-axis0")
    lessons, quiz = w.lessons, w.lessons.quiz_widget
    QTest.mouseClick(lessons.panel.quiz_button, LEFT)
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    out = quiz.output_table
    qtbot.waitUntil(lambda: out.isVisible(), timeout=10000)
    QTest.mouseClick(out.viewport(), LEFT, NOMOD, out.cell_center((1, 0)))    # right (Scatter-9 page)
    desk_size, desk_header = _point_size(out), _ink_height(out.horizontalHeader())
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_F5)
    qtbot.waitUntil(lambda: w.isFullScreen(), timeout=10000)
    qtbot.waitUntil(lambda: _point_size(out) > desk_size, timeout=10000)   # read from the back
    assert _ink_height(out.horizontalHeader()) > desk_header * 1.3          # the coordinates too
    assert lessons.quizzing and lessons.quiz_dock.isVisible()
    assert w.explainer_dock.isHidden() and not lessons.dock.isVisible()
    assert w.dockWidgetArea(lessons.quiz_dock) == QtCore.Qt.DockWidgetArea.RightDockWidgetArea
    qtbot.waitUntil(lambda: lessons.quiz_dock.width() > w.width() * 0.4, timeout=10000)
    save_shot(w, "presentation/quiz_presenting")
    QTest.keyClick(w.view, Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.isFullScreen(), timeout=10000)
    assert lessons.quizzing and lessons.quiz_dock.isVisible() and w.explainer_dock.isHidden()
    assert quiz.quiz.score.solved == 1 and quiz.quiz.current == (0, 1)          # nothing lost
    assert _point_size(out) == desk_size


def _lesson_presented(w, qtbot):
    """The scatter9-axis0 lesson open, then F5: its Lessons controller."""
    open_from_list(w, qtbot, "scatter9-axis0")
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_F5)
    qtbot.waitUntil(lambda: w.isFullScreen(), timeout=10000)
    return w.lessons


def test_a_quiz_started_and_ended_while_presenting_takes_the_place_and_gives_it_back(window, qtbot):
    w = window
    lessons = _lesson_presented(w, qtbot)
    assert w.explainer_dock.isVisible() and not lessons.dock.isVisible()
    assert lessons.start_quiz()
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible() and w.explainer_dock.isHidden(), timeout=10000)
    assert w.dockWidgetArea(lessons.quiz_dock) == QtCore.Qt.DockWidgetArea.RightDockWidgetArea
    QTest.mouseClick(lessons.quiz_widget.end_button, LEFT)
    qtbot.waitUntil(lambda: w.explainer_dock.isVisible() and lessons.quiz_dock.isHidden(), timeout=10000)
    assert w.presentation.active and not lessons.quizzing


def test_f6_during_a_quiz_keeps_the_explainer_hidden(window, qtbot):
    w = window
    lessons = _lesson_presented(w, qtbot)
    assert lessons.start_quiz()
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_F6)                   # the panels, still presenting
    assert w.palette_dock.isVisible() and lessons.quiz_dock.isVisible()
    assert w.explainer_dock.isHidden()                    # it would show the answer


def test_a_quiz_ended_while_presenting_leaves_the_explainer_shown_after_esc(window, qtbot):
    w = window
    open_from_list(w, qtbot, "scatter9-axis0")
    lessons = w.lessons
    assert lessons.start_quiz()
    qtbot.waitUntil(lambda: lessons.quiz_dock.isVisible(), timeout=10000)
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_F5)                   # entered during the quiz
    qtbot.waitUntil(lambda: w.isFullScreen(), timeout=10000)
    QTest.mouseClick(lessons.quiz_widget.end_button, LEFT)
    qtbot.waitUntil(lambda: w.explainer_dock.isVisible(), timeout=10000)
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.isFullScreen(), timeout=10000)
    assert w.explainer_dock.isVisible() and lessons.quiz_dock.isHidden() and not lessons.quizzing
