"""LessonsPanel: the content of the Lessons dock.

Two pages: the list of lessons grouped by op (with a line per lesson file that cannot be
used, naming the file and the field), and one lesson's text (what the op does, the formula,
one common mistake) with "Step through" (the explainer from step 1) and "Quiz". The panel
only shows and asks: ``openRequested(lesson)``, ``stepRequested()``, ``quizToggled(on)``;
:class:`.controller.LessonsController` does the work. UI thread only.
"""
from __future__ import annotations

import html

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.teaching.lessons import Lesson, LessonScan

LESSON_ROLE = QtCore.Qt.ItemDataRole.UserRole


def paragraphs(text: str) -> str:
    """``text`` as HTML paragraphs: a blank line separates them, a line break inside one is a
    space (lesson files wrap their lines)."""
    parts = [" ".join(line.strip() for line in block.splitlines()) for block in text.split("\n\n")]
    return "".join(f"<p>{html.escape(p)}</p>" for p in parts if p)


def lesson_html(lesson: Lesson, quiz: bool = False, note: str = "") -> str:
    """The lesson page's text; with ``quiz``, the title and the formula only: the other
    paragraphs work the lesson's example through, which is the quiz's first question. ``note``
    (the node on the canvas no longer as the lesson has it) is said under the title."""
    where = lesson.example or lesson.graph_path.name
    source = f"{html.escape(lesson.source)}; " if lesson.source else ""
    formula = (f"<h4 style='margin-bottom:0'>Formula</h4>"
               f"<pre style='white-space:pre-wrap'>{html.escape(lesson.formula)}</pre>")
    head = (f"<h3 style='margin-bottom:2px'>{html.escape(lesson.title)}</h3>"
            f"<p style='color:#666; margin-top:0'>{html.escape(lesson.case)} &middot; {source}"
            f"node {html.escape(lesson.node)} of {html.escape(where)}</p>")
    if note:
        head += f"<p style='color:#b3261e'>{html.escape(note)}</p>"
    if quiz:
        return (head + formula + "<p style='color:#666'>The rest of the lesson's text works the example through: "
                "it is back when the quiz ends.</p>")
    return (head + f"<h4 style='margin-bottom:0'>What it does</h4>{paragraphs(lesson.what)}" + formula
            + f"<h4 style='margin-bottom:0'>Common mistake</h4>{paragraphs(lesson.mistake)}")


class LessonsPanel(QtWidgets.QWidget):
    """See the module docstring."""

    openRequested = QtCore.Signal(object)   # a Lesson
    stepRequested = QtCore.Signal()
    quizToggled = QtCore.Signal(bool)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.lessons: tuple[Lesson, ...] = ()
        self.current: Lesson | None = None
        self.note = ""              # under the lesson's title (set_note)
        self._quiz_on = False
        self.pages = QtWidgets.QStackedWidget()

        # the list
        self.list_page = QtWidgets.QWidget()
        hint = QtWidgets.QLabel("Open a lesson (double-click or Enter): its example graph opens and the "
                                "Explainer starts at step 1.")
        hint.setWordWrap(True)
        self.tree = QtWidgets.QTreeWidget()
        self.tree.setAccessibleName("Lessons")
        self.tree.setHeaderHidden(True)
        self.tree.setRootIsDecorated(True)
        self.tree.itemActivated.connect(self._activated)
        self.errors = QtWidgets.QLabel("")
        self.errors.setWordWrap(True)
        self.errors.setStyleSheet("color: #b3261e;")
        self.errors.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QtWidgets.QPushButton("Open Lesson")
        self.open_button.clicked.connect(lambda: self._activated(self.tree.currentItem()))
        box = QtWidgets.QVBoxLayout(self.list_page)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(hint)
        box.addWidget(self.tree, 1)
        box.addWidget(self.errors)
        box.addWidget(self.open_button)

        # one lesson
        self.lesson_page = QtWidgets.QWidget()
        self.back_button = QtWidgets.QToolButton(text="◀ Lessons")
        self.back_button.setToolTip("All lessons")
        self.back_button.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.prev_button = QtWidgets.QToolButton(text="‹")
        self.prev_button.setToolTip("Previous lesson")
        self.prev_button.setAccessibleName("Previous lesson")   # its text is ‹
        self.next_button = QtWidgets.QToolButton(text="›")
        self.next_button.setToolTip("Next lesson")
        self.next_button.setAccessibleName("Next lesson")
        self.counter = QtWidgets.QLabel("")
        self.text = QtWidgets.QTextBrowser()
        self.text.setOpenLinks(False)
        self.text.setAccessibleName("Lesson text")
        self._text_font = QtGui.QFont(self.text.font())   # set_text_zoom scales from it
        self.step_button = QtWidgets.QPushButton("Step Through")
        self.step_button.setToolTip("Show the example's node in the Explainer from step 1")
        self.quiz_button = QtWidgets.QPushButton("Quiz")
        self.quiz_button.setCheckable(True)
        self.quiz_button.setToolTip("Hide the output and work it out yourself")
        top = QtWidgets.QHBoxLayout()
        top.addWidget(self.back_button)
        top.addStretch(1)
        top.addWidget(self.counter)
        top.addWidget(self.prev_button)
        top.addWidget(self.next_button)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.step_button)
        buttons.addWidget(self.quiz_button)
        box = QtWidgets.QVBoxLayout(self.lesson_page)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(top)
        box.addWidget(self.text, 1)
        box.addLayout(buttons)

        self.back_button.clicked.connect(self.show_list)
        self.prev_button.clicked.connect(lambda: self._neighbour(-1))
        self.next_button.clicked.connect(lambda: self._neighbour(+1))
        self.step_button.clicked.connect(self.stepRequested)
        self.quiz_button.toggled.connect(self.quizToggled)

        self.pages.addWidget(self.list_page)
        self.pages.addWidget(self.lesson_page)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.pages)

    # ------------------------------------------------------------------ public
    def set_scan(self, scan: LessonScan) -> None:
        """List ``scan``'s lessons under their op, and its errors below."""
        self.lessons = scan.lessons
        self.tree.clear()
        groups: dict[str, QtWidgets.QTreeWidgetItem] = {}
        for lesson in scan.lessons:
            group = groups.get(lesson.op)
            if group is None:
                group = groups[lesson.op] = QtWidgets.QTreeWidgetItem(self.tree, [lesson.op])
                font = group.font(0)
                font.setBold(True)
                group.setFont(0, font)
                group.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled)
            item = QtWidgets.QTreeWidgetItem(group, [lesson.title])
            item.setData(0, LESSON_ROLE, lesson.id)
            item.setToolTip(0, f"{lesson.case}: {lesson.source}" if lesson.source else lesson.case)
        self.tree.expandAll()
        first = self.item_of(scan.lessons[0].id) if scan.lessons else None
        if first is not None:
            self.tree.setCurrentItem(first)
        self.errors.setText("\n".join(f"Not loaded: {e}" for e in scan.errors))
        self.errors.setVisible(bool(scan.errors))
        if not scan.lessons and not scan.errors:
            self.errors.setText("No lessons found.")
            self.errors.show()

    def item_of(self, lesson_id: str) -> QtWidgets.QTreeWidgetItem | None:
        """The list's item of the lesson called ``lesson_id``."""
        for i in range(self.tree.topLevelItemCount()):
            group = self.tree.topLevelItem(i)
            for j in range(group.childCount()):
                if group.child(j).data(0, LESSON_ROLE) == lesson_id:
                    return group.child(j)
        return None

    def show_list(self) -> None:
        self.pages.setCurrentWidget(self.list_page)
        if self.current is not None and self.item_of(self.current.id) is not None:
            self.tree.setCurrentItem(self.item_of(self.current.id))
        self.tree.setFocus()

    def show_lesson(self, lesson: Lesson) -> None:
        """Show ``lesson``'s text (the controller has opened its graph)."""
        self.current = lesson
        ids = [x.id for x in self.lessons]
        index = ids.index(lesson.id) if lesson.id in ids else -1
        self.counter.setText(f"{index + 1} / {len(ids)}" if index >= 0 else "")
        self.prev_button.setEnabled(index > 0)
        self.next_button.setEnabled(0 <= index < len(ids) - 1)
        self.note = ""
        self.set_quiz_on(False)
        self.pages.setCurrentWidget(self.lesson_page)

    def set_quiz_on(self, on: bool) -> None:
        """Check or uncheck the Quiz button without asking for anything; the lesson's text is
        the quiz's form of it (:func:`lesson_html`) while on."""
        blocked = self.quiz_button.blockSignals(True)
        self.quiz_button.setChecked(on)
        self.quiz_button.blockSignals(blocked)
        self._quiz_on = on
        if self.current is not None:
            self.text.setHtml(lesson_html(self.current, quiz=on, note=self.note))

    def set_note(self, note: str) -> None:
        """Say ``note`` under the lesson's title ("": nothing), e.g. that the node on the canvas
        has other attributes than the lesson's text is about."""
        if note != self.note:
            self.note = note
            self.set_quiz_on(self._quiz_on)

    def set_text_zoom(self, factor: float) -> None:
        """The lesson's text at ``factor`` times its usual size (1.0: usual), e.g. large print
        on a projector; headings and the formula scale with it."""
        font = QtGui.QFont(self._text_font)
        font.setPointSizeF(self._text_font.pointSizeF() * factor)
        self.text.setFont(font)

    # ------------------------------------------------------------------ internals
    def _activated(self, item: QtWidgets.QTreeWidgetItem | None) -> None:
        lesson_id = item.data(0, LESSON_ROLE) if item is not None else None
        lesson = next((x for x in self.lessons if x.id == lesson_id), None)
        if lesson is not None:
            self.openRequested.emit(lesson)

    def _neighbour(self, step: int) -> None:
        ids = [x.id for x in self.lessons]
        if self.current is None or self.current.id not in ids:
            return
        index = ids.index(self.current.id) + step
        if 0 <= index < len(ids):
            self.openRequested.emit(self.lessons[index])
