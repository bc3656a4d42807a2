"""Help > Lessons: the Lessons dock, opening a lesson, and its Quiz.

:class:`LessonsController` owns two docks it adds to ``host``: "Lessons" (the
:class:`.panel.LessonsPanel`, tabbed with ``beside``, the Properties dock, on the right) and
"Quiz" (the :class:`.quiz_widget.QuizWidget`, under the canvas in the Explainer's place).
Both start hidden. Shown, each takes a larger share of its column (:data:`LESSON_SHARE`,
:data:`QUIZ_SHARE` of the window's height at most): the lesson's text and the quiz's tables
need the room more than the tensor viewer and the canvas do then.

Opening a lesson asks before unsaved changes are dropped (``files.maybe_discard``), then
shows a fresh copy of its graph as a template (``open_document``: Save asks for a file, the
lesson's own file is never written), frames the lesson's node with its inputs and output,
selects it and shows the Explainer from step 1 (framed again once the first run has
finished, as the Explainer then takes its height).

Quiz mode hides the output: the Quiz dock takes the Explainer's place (the Explainer dock
is hidden, its output too: :mod:`.explainer_adapter`), and the canvas selection moves to the
node's data input, so the tensor viewer shows that input rather than the answer. Ending the quiz (its End button, the
lesson's Quiz button, another lesson or another document) undoes all three.

The lesson follows any document that holds its node (a lesson saved and opened again too).
The quiz asks about the node as the canvas has it, and follows it after every run: an edit
or an undo of the node or of what feeds it gives a quiz on the node as it now is (same seed).
The lesson's text says when the node's attributes are not the ones it is about.

Collaborators are typed (files, scene, view, explainer, a document opener, a status
callable); it changes the document only through ``open_document``. UI thread only.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtWidgets
from shiboken6 import isValid

import ops
from nodeeditor.graph import GraphFileError
from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph
from nodeeditor.teaching.lessons import Lesson, scan_lessons
from nodeeditor.teaching.quiz import QuizError, same_inputs

from ..canvas import GraphScene, GraphView
from ..explainer import ExplainerWidget
from ..files import FileController
from ..runner import EvaluationRunner
from . import explainer_adapter
from .panel import LessonsPanel
from .quiz_widget import QuizWidget

Dock = QtCore.Qt.DockWidgetArea
Vertical = QtCore.Qt.Orientation.Vertical
#: Share of the window's height the Lessons dock takes when a lesson opens, and the most the
#: Quiz dock takes when a quiz starts (less when its tables need less).
LESSON_SHARE = 0.55
QUIZ_SHARE = 0.7
#: What the viewer says of a value a quiz withholds (:meth:`LessonsController.withheld_why`).
HIDDEN_IN_QUIZ = "hidden during the quiz"
REPLACED_IN_QUIZ = "not the quiz's input: its new inputs are in the Quiz panel"


class LessonsController(QtCore.QObject):
    """See the module docstring. ``graph_of`` returns the document shown. ``quizChanged(on)``:
    a quiz started (True) or ended (False)."""

    quizChanged = QtCore.Signal(bool)
    withheldChanged = QtCore.Signal()   # what :meth:`withheld_why` says may have changed
    lessonOpened = QtCore.Signal()      # its graph shown, its text in the Lessons dock

    def __init__(self, host: QtWidgets.QMainWindow, files: FileController, graph_of: Callable[[], Graph],
                 open_document: Callable[[Graph], None], scene: GraphScene, view: GraphView,
                 runner: EvaluationRunner, explainer: ExplainerWidget, explainer_dock: QtWidgets.QDockWidget,
                 beside: QtWidgets.QDockWidget, status: Callable[..., None]) -> None:
        super().__init__(host)
        self.host, self.files, self._graph_of, self._open_document = host, files, graph_of, open_document
        self.scene, self.view, self.explainer, self.explainer_dock = scene, view, explainer, explainer_dock
        self._status = status
        self.lesson: Lesson | None = None
        self._quiz_graph: Graph | None = None   # the document the quiz is on
        self._lesson_attrs: dict = {}           # the lesson's node's attributes in its file
        self._frame_after_run = False
        self._height_before_quiz: int | None = None
        self._quiz_on = False
        self._runner = runner
        runner.finished.connect(self._on_run_finished)

        self.panel = LessonsPanel()
        self.dock = QtWidgets.QDockWidget("Lessons", host)
        self.dock.setObjectName("lessonsDock")
        self.dock.setWidget(self.panel)
        # tabbed beside ``beside`` when first shown (show_browser), not now: tabified before the
        # window is laid out, Qt leaves a stale "Properties | Lessons" tab bar drawn in the window
        self._beside = beside
        host.addDockWidget(Dock.RightDockWidgetArea, self.dock)
        self.dock.hide()

        self.quiz_widget = QuizWidget()
        self.quiz_dock = QtWidgets.QDockWidget("Quiz", host)
        self.quiz_dock.setObjectName("quizDock")
        self.quiz_dock.setWidget(self.quiz_widget)
        host.addDockWidget(Dock.BottomDockWidgetArea, self.quiz_dock)
        self.quiz_dock.hide()

        self.panel.openRequested.connect(self.open_lesson)
        self.panel.stepRequested.connect(self.step_through)
        self.panel.quizToggled.connect(lambda on: self.start_quiz() if on else self.end_quiz())
        self.quiz_widget.ended.connect(self.end_quiz)
        self.quiz_widget.inputsChanged.connect(lambda: self._quiz_on and self.withheldChanged.emit())
        self.quiz_dock.visibilityChanged.connect(self._quiz_dock_visibility)
        self.quiz_dock.installEventFilter(self)   # its title bar's close button ends the quiz
        # a layout saved with these docks open restores them: the list is read when first shown
        self.dock.visibilityChanged.connect(lambda visible: visible and not self._scanned and self.show_browser())
        self._scanned = False

    # ------------------------------------------------------------------ the browser
    def show_browser(self) -> None:
        """Help > Lessons: the Lessons dock, on the list (read again, so a teacher's new file
        shows up), or on the lesson being followed."""
        self.panel.set_scan(scan_lessons())
        self._scanned = True
        if not self.dock.isFloating() and self.dock not in self.host.tabifiedDockWidgets(self._beside):
            self.host.tabifyDockWidget(self._beside, self.dock)
        self.dock.show()
        self.dock.raise_()
        if self.lesson is not None and self._following():
            self.panel.show_lesson(self.lesson)
            self.panel.set_quiz_on(self.quizzing)
            self._note_changes()
        else:
            self.panel.show_list()

    @property
    def quizzing(self) -> bool:
        """Whether quiz mode is on."""
        return self._quiz_on

    # ------------------------------------------------------------------ a lesson
    def open_lesson(self, lesson: Lesson) -> bool:
        """Open ``lesson``'s graph (asking about unsaved changes first) and start its
        step-through; False when the person cancelled or the graph cannot be read."""
        self.end_quiz()
        if not self.files.maybe_discard():
            return False
        try:
            graph = lesson.load_graph()
        except GraphFileError as exc:
            self.files.warn("Cannot open lesson", str(exc))
            return False
        self.lesson = lesson
        self._lesson_attrs = _case_attributes(graph.node(lesson.node))
        self._open_document(graph)
        self.panel.show_lesson(lesson)
        self.dock.show()
        self.dock.raise_()
        self.host.resizeDocks([self.dock], [int(self.host.height() * LESSON_SHARE)], Vertical)
        self._status(f"Lesson: {lesson.title}")
        # after the document's own first framing (queued by set_document), and again when the
        # run has finished and the Explainer has taken its height
        QtCore.QTimer.singleShot(0, self._show_node)
        self._frame_after_run = True
        self.lessonOpened.emit()
        return True

    def _on_run_finished(self, _result) -> None:
        if self._frame_after_run:
            self._frame_after_run = False
            QtCore.QTimer.singleShot(0, self._frame_node)
        if self._quiz_on:
            self._follow_edits()
        self._note_changes()

    def step_through(self) -> None:
        """The lesson's node in the Explainer from step 1 (its graph opened again when the
        document shown is another one)."""
        if self.lesson is None:
            return
        self.end_quiz()
        if not self._following():
            self.open_lesson(self.lesson)
            return
        self._show_node()

    def _following(self) -> bool:
        """Whether the document shown holds the lesson's node: the lesson's graph as opened
        from the lesson, or saved and opened again."""
        if self.lesson is None:
            return False
        graph = self._graph_of()
        if not graph.has_node(self.lesson.node):
            return False
        node = graph.node(self.lesson.node)
        return isinstance(node, N.OperatorNode) and node.op == self.lesson.op

    def _show_node(self) -> None:
        if not (isValid(self.scene) and self._following()) or self.quizzing:
            return
        self._frame_node()
        self.explainer_dock.show()
        self.explainer_dock.raise_()
        explainer_adapter.start_at(self.explainer, 0)

    def _frame_node(self) -> None:
        """The lesson's node with its inputs and outputs in view; the node selected."""
        if not (isValid(self.scene) and self._following()) or self.quizzing:
            return
        graph, node_id = self._graph_of(), self.lesson.node
        chain = {node_id} | {e.src for e in graph.edges if e.dst == node_id} | \
                {e.dst for e in graph.edges if e.src == node_id}
        self.scene.select_nodes(chain)
        self.view.frame(True)
        # the lesson's node is what the view is about: on a small canvas (a projector) the hint
        # that some of its neighbours do not fit would sit over its ports
        self.view.hide_overflow_hint()
        self.scene.select_nodes([node_id])

    def document_changed(self) -> None:
        """Another document is shown: a quiz on the one before ends."""
        if self._quiz_graph is not None and self._graph_of() is not self._quiz_graph:
            self.end_quiz()

    # ------------------------------------------------------------------ the quiz
    def start_quiz(self) -> bool:
        """Quiz mode on the lesson's node as the document shown has it (a teacher's edits
        count; the lesson's graph is opened first when the document shown does not hold the
        node). See the module docstring."""
        if self.lesson is None:
            return False
        if not self._following() and not self.open_lesson(self.lesson):
            self.panel.set_quiz_on(False)
            return False
        try:
            quiz = self.lesson.make_quiz(self._graph_of())
        except (QuizError, ValueError, GraphFileError) as exc:
            self._status(f"No quiz: {exc}", error=True)
            self.panel.set_quiz_on(False)
            return False
        self.quiz_widget.set_quiz(quiz)
        self._quiz_on, self._quiz_graph = True, self._graph_of()
        # the Quiz takes the Explainer's place (and a larger share of the height); the
        # Explainer is hidden meanwhile, so nothing there shows the answer or resizes the area
        explainer = self.explainer_dock
        if not explainer.isHidden():
            self._height_before_quiz = explainer.height()
            explainer.hide()
        explainer_adapter.hide_output(self.explainer, True)
        self.quiz_dock.show()
        self.quiz_dock.raise_()
        if not self.quiz_dock.isFloating():
            title = self.quiz_dock.fontMetrics().height() + 12    # the dock's title bar
            wanted = min(self.quiz_widget.preferred_height() + title, int(self.host.height() * QUIZ_SHARE))
            wanted = max(self._height_before_quiz or 0, wanted)
            # once the dock has taken the Explainer's place (a dock shown this moment is not
            # laid out yet, and resizing it now does nothing)
            QtCore.QTimer.singleShot(0, lambda: self._quiz_on and isValid(self.quiz_dock)
                                     and self.host.resizeDocks([self.quiz_dock], [wanted], Vertical))
        if self._following():
            data = self._data_source()
            self.scene.select_nodes([data] if data else [])
        self.view.hide_overflow_hint()   # the canvas is small now; the hint would cover it
        self.panel.set_quiz_on(True)
        self._status(f"Quiz: {self.lesson.title}")
        self.quizChanged.emit(True)
        return True

    def end_quiz(self) -> None:
        """Leave quiz mode: the Explainer and the lesson's node come back."""
        self.panel.set_quiz_on(False)
        if not self._quiz_on:
            return
        self._quiz_on, self._quiz_graph = False, None
        explainer_adapter.hide_output(self.explainer, False)
        # the canvas takes the focus first: hiding the dock that has it would hand it to the
        # next field in the window (the property panel's Name, which would then commit its
        # text to the node selected below)
        self.view.setFocus()
        self.quiz_dock.hide()
        if self._height_before_quiz is not None:   # the Explainer was shown before the quiz
            self.explainer_dock.show()
            # at most half the window (a quiz started while presenting saw a full-height Explainer)
            height = min(self._height_before_quiz, self.host.height() // 2)
            self.host.resizeDocks([self.explainer_dock], [height], Vertical)
        self._height_before_quiz = None
        if self._following():
            self.scene.select_nodes([self.lesson.node])
            self.explainer_dock.show()
            self.explainer_dock.raise_()
        self._status(f"Quiz ended: {self.lesson.title}" if self.lesson is not None else "Quiz ended")
        self.quizChanged.emit(False)

    def keep_quiz_layout(self) -> None:
        """After the window's docks were put back as an earlier moment had them (presentation
        mode's F6, or leaving it): during a quiz the Quiz shows and the Explainer, which would
        show the answers, does not; with no quiz, no Quiz dock and the Explainer where a quiz
        had hidden it."""
        if self._quiz_on:
            self.explainer_dock.hide()
            self.quiz_dock.show()
            self.quiz_dock.raise_()
        elif not self.quiz_dock.isHidden():
            self.quiz_dock.hide()
            self.explainer_dock.show()

    def eventFilter(self, watched, event) -> bool:
        # closed with its title bar's button (a close, not a hide: docks put back as they were
        # are hidden and shown, and the quiz goes on): the end of the quiz
        if watched is self.quiz_dock and event.type() == QtCore.QEvent.Type.Close and self._quiz_on:
            QtCore.QTimer.singleShot(0, lambda: self._quiz_on and self.quiz_dock.isHidden() and self.end_quiz())
        return False

    def _quiz_dock_visibility(self, visible: bool) -> None:
        # a layout saved during a quiz restores the dock with nothing to ask: it goes
        if visible and not self._quiz_on:
            QtCore.QTimer.singleShot(0, self.quiz_dock.hide)

    def withheld_why(self, node_id: str) -> str:
        """Why the node's value is not to be shown during a quiz on the lesson's graph ("": it
        may show). Any node that computes would give the answers away (the lesson's node, what
        comes after it, a copy of it or a new output made during the quiz); the sources feeding
        the lesson's node are not the quiz's inputs once it has drawn new ones ("Another one").
        Asked whenever a value is about to show, so edits during the quiz are covered."""
        if not (self._quiz_on and self._following()):
            return ""
        graph = self._graph_of()
        if not graph.has_node(node_id):
            return ""
        if not graph.node(node_id).is_source:
            return HIDDEN_IN_QUIZ
        if not self.quiz_widget.on_lesson_inputs and any(
                e.src == node_id and e.dst == self.lesson.node for e in graph.edges):
            return REPLACED_IN_QUIZ
        return ""

    def _follow_edits(self) -> None:
        """After a run during the quiz: when the lesson's node or what feeds it was edited (an
        undo too), the quiz asks about the node as it is now, with the same seed. When no quiz
        can be made of it now (an index out of range typed in, an input being rewired), the
        quiz shown stays and the status line says why; when the node is gone, the quiz ends."""
        if not self._following():
            self.end_quiz()
            return
        graph, node_id = self._graph_of(), self.lesson.node
        inputs = []
        for port in graph.node(node_id).input_ports():
            edge = graph.edge_into(node_id, port)
            value = None if edge is None else self._runner.value(edge.src, edge.src_port)
            if edge is not None and value is None:
                return            # an input not computed (an error on the canvas): the quiz stays
            inputs.append(value)
        base = self.quiz_widget.base
        attrs = dict(graph.node(node_id).attributes)
        if base is not None and same_inputs(base.inputs, inputs) and \
                base.attrs == base.opdef.schema.check_attributes(attrs):
            return
        try:
            quiz = self.lesson.quiz_on(inputs, attrs)
        except (QuizError, ValueError) as exc:
            self._status(f"The quiz stays as it was: no quiz on the node as it is now ({exc})", error=True)
            return
        self.quiz_widget.rebase(quiz)
        self._status("The lesson's node changed: the quiz asks about it as it is now")

    def _note_changes(self) -> None:
        """The lesson's text says when the node on the canvas has other attributes than the
        lesson is about (its formula and numbers would not fit)."""
        if not self._following():
            self.panel.set_note("")
            return
        now = _case_attributes(self._graph_of().node(self.lesson.node))
        changed = [name for name in now if now[name] != self._lesson_attrs.get(name)]
        self.panel.set_note("" if not changed else
                            f"The node on the canvas now has {_attribute_text(now, changed)}; this text is "
                            f"about {_attribute_text(self._lesson_attrs, changed)}.")

    def _data_source(self) -> str | None:
        """The node feeding the lesson node's data input (None when unconnected)."""
        graph = self._graph_of()
        node = graph.node(self.lesson.node)
        if not isinstance(node, N.OperatorNode):
            return None
        edge = graph.edge_into(node.id, ops.get_opdef(node.op).data_port)
        return None if edge is None else edge.src


def _case_attributes(node: N.Node) -> dict:
    """An operator node's attributes with the schema's defaults filled in."""
    if not isinstance(node, N.OperatorNode):
        return {}
    try:
        return node.schema.check_attributes(node.attributes)
    except ops.OpError:
        return dict(node.attributes)


def _attribute_text(attrs: dict, names: list[str]) -> str:
    """``reduction max, axis 0``."""
    return ", ".join(f"{name} {attrs.get(name)}" for name in names)
