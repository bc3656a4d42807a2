"""The main window: the canvas in the centre; docks for the palette, properties, tensor
viewer and explainer; menus and shortcuts; the document shown and whether it is modified.

The window builds the parts and wires them; each decision has its own module:
:mod:`.screen_fit` (size on a small screen, first dock widths, the scrolling viewer dock),
:mod:`.canvas_edits` (canvas gestures and Edit commands as undo commands),
:mod:`.clipboard_actions` and :mod:`.placement` (copy, paste, where new nodes go),
:mod:`.viewer_target` (which tensor the viewer shows), :mod:`.status_line` and
:mod:`.run_status` (the status bar), :mod:`.previews` (View > Inline Previews),
:mod:`.canvas_menu`, :class:`.connect_box.ConnectPorts` and :class:`.find_node.FindNode`
(the right-click menu, wiring and finding from the keyboard), :mod:`.node_actions` (rename,
help, bypass, collapse, frames), :mod:`.theme` (View > Theme), :mod:`.files` (the File menu),
:mod:`.explainer.dock`, :mod:`.presentation` (View > Presentation), :mod:`.lessons` (Help >
Lessons and the Quiz), :mod:`.gradients` (d loss / d each node for the viewer and the Explainer)
and :mod:`.training_runs` with :mod:`.training_dock` (the Training dock). Each takes typed
collaborators (graph getter, scene, push, a status callable; the File menu a
``files.DocumentHost``), never an untyped window to reach through.

Who changes what: every edit is an undo command pushed here (``push``); commands call Graph
methods; the scene, the property panel and the runner follow the graph's events. While a
training run is going, ``push`` refuses every edit but the view-only ones and Undo / Redo are
disabled (see :mod:`.training_runs`). The
document is modified while the undo stack is not clean, and from the start when it was
opened modified (an imported model, recovered work) until it is saved
(:meth:`MainWindow.mark_saved`) or its changes are dropped (:meth:`MainWindow.discard_changes`).
"""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import events as E
from nodeeditor.graph.document import Graph
from nodeeditor.graph.examples import EXAMPLES_DIR

from . import screen_fit
from . import settings as S
from . import theme as T
from .canvas import GraphScene, GraphView, style
from .canvas_edits import CanvasEdits
from .canvas_menu import CanvasMenu
from .clipboard_actions import ClipboardActions
from .connect_box import ConnectBox, ConnectPorts
from .explainer import ExplainerWidget
from .explainer.dock import ExplainerController
from .files import FileController
from .find_node import FindNode, FindNodeBox
from .gradients import GradientRunner
from .help import ColourLegend, ShortcutsDialog, show_about
from .lessons import LessonsController
from .node_actions import NodeActions
from .palette import Palette
from .panel_focus import PanelFocus
from .presentation import LESSON_TEXT_ZOOM, Presentation
from .previews import PreviewSwitch
from .properties import PropertyPanel
from .quick_add import QuickAddBox
from .regions import RegionActions
from .run_status import RunStatus
from .runner import EvaluationRunner
from .status_line import StatusLine
from .training_dock import TrainingPanel
from .training_runs import TrainingController
from .viewer import TensorViewer
from .viewer_target import ViewerTarget

Key = QtGui.QKeySequence


class MainWindow(QtWidgets.QMainWindow):
    documentChanged = QtCore.Signal()

    #: The window's size on a first start (no saved layout), when the screen has room for it.
    PREFERRED_SIZE = (1480, 900)

    def __init__(self, graph: Graph | None = None, path: Path | None = None) -> None:
        super().__init__()
        self.setObjectName("IndexFlowMainWindow")
        self.graph = graph or Graph()
        self._forced_modified = False   # modified from the start (an import, recovered work)
        self._unsubscribe = None
        self.theme = T.theme()
        self.theme.reload()

        self.undo_stack = QtGui.QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        self.runner = EvaluationRunner(self.graph, self)
        self.gradients = GradientRunner(self.graph, self)
        self.scene = GraphScene(self.graph, self.runner, self)
        self.view = GraphView(self.scene)
        self.setCentralWidget(self.view)
        self.quick_add = QuickAddBox(self.view)
        self.find_box = FindNodeBox(self.view, lambda: self.graph)
        self.connect_box = ConnectBox(self.view, lambda: self.graph)
        self.files = FileController(self, self)
        self.undo_stack.indexChanged.connect(lambda _index: self.files.note_edit())  # the recovery file follows
        self.view.filesDropped.connect(self.files.open_dropped)

        self._build_docks()
        graph_of, status = (lambda: self.graph), self.show_status
        self.status_line = StatusLine(self.statusBar())
        self.run_status = RunStatus(self.statusBar(), self.runner, graph_of, status)
        self.viewer_target = ViewerTarget(graph_of, self.scene, self.runner, self.viewer, self.viewer_dock,
                                          self.gradients)
        self.training = TrainingController(self.training_panel, graph_of, self.runner, self.push, status, self)
        self.edits = CanvasEdits(graph_of, self.scene, self.view, self.quick_add, self.palette, self.push, status,
                                 previews_shown=lambda: self.previews.shown)
        self.clipboard = ClipboardActions(graph_of, self.scene, self.view, self.push, status)
        self.find_node = FindNode(self.find_box, graph_of, self.scene, self.view, status)
        self.connect_ports = ConnectPorts(self.connect_box, graph_of, self.scene, self.push, status,
                                          self.edits.report_refusal)
        self.node_actions = NodeActions(self, graph_of, self.scene, self.view, self.push, status)
        self.regions = RegionActions(self, self, MainWindow, status)   # Extract Selection, Splice Back
        self._build_actions()
        self.cancel_action.triggered.connect(self.regions.cancel_extract)   # Esc stops an Extract too
        self._build_menus()
        self._connect()
        self.explainer_controller = ExplainerController(self, graph_of, self.scene, self.runner, self.explainer,
                                                        self.explainer_dock, self.gradients)
        self.lessons = LessonsController(self, self.files, graph_of, lambda g: self.set_document(g, None), self.scene,
                                         self.view, self.runner, self.explainer, self.explainer_dock,
                                         self.properties_dock, status)
        self.documentChanged.connect(self.lessons.document_changed)
        self._present_lessons()
        self.panel_focus = PanelFocus(lambda: [self.view, self.palette_dock, self.properties_dock, self.viewer_dock,
                                               self.explainer_dock, self.training_dock, self.lessons.dock,
                                               self.lessons.quiz_dock], status)
        self.resize(screen_fit.initial_size(self, self.PREFERRED_SIZE))
        self.resizeDocks([self.palette_dock, self.properties_dock], list(screen_fit.initial_dock_widths(self.width())),
                         QtCore.Qt.Orientation.Horizontal)
        self.resizeDocks([self.explainer_dock], [screen_fit.bottom_dock_height(self.height())],
                         QtCore.Qt.Orientation.Vertical)
        self.set_document(self.graph, path)
        self.restore_layout()

    def fit_to_screen(self) -> None:
        """Keep the window inside the screen's available area (see :mod:`.screen_fit`)."""
        screen_fit.fit_to_screen(self)

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self.fit_to_screen()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if screen_fit.exceeds_screen(self, event.size()):
            QtCore.QTimer.singleShot(0, self.fit_to_screen)   # after Qt has finished this resize
        if event.size().height() < event.oldSize().height():
            QtCore.QTimer.singleShot(0, self._keep_explainer_within)
        if 0 < event.size().width() < event.oldSize().width():
            QtCore.QTimer.singleShot(0, self._keep_side_docks_within)

    def _keep_side_docks_within(self) -> None:
        """A narrower window leaves the canvas about half its width (``screen_fit``): the
        palette and the right column, where docked at the sides, give up width."""
        Dock = QtCore.Qt.DockWidgetArea  # noqa: N806 - an alias of a Qt enum
        docks = (self.palette_dock, self.properties_dock)
        limits = screen_fit.side_dock_widths(self.width(), tuple(d.width() for d in docks))
        shrink = [(dock, limit) for dock, limit, area in zip(docks, limits, (Dock.LeftDockWidgetArea,
                                                                              Dock.RightDockWidgetArea), strict=True)
                  if not dock.isFloating() and not dock.isHidden() and self.dockWidgetArea(dock) == area
                  and limit < dock.width()]
        if shrink:
            self.resizeDocks([d for d, _ in shrink], [w for _, w in shrink], QtCore.Qt.Orientation.Horizontal)

    def _keep_explainer_within(self) -> None:
        """A lower window leaves the canvas more than half its height (``screen_fit``)."""
        dock = self.explainer_dock
        under_canvas = self.dockWidgetArea(dock) == QtCore.Qt.DockWidgetArea.BottomDockWidgetArea
        if dock.isFloating() or dock.isHidden() or not under_canvas:
            return
        height = screen_fit.bottom_dock_height(self.height(), dock.height())
        if height < dock.height():
            self.resizeDocks([dock], [height], QtCore.Qt.Orientation.Vertical)

    # ------------------------------------------------------------------ building
    def _build_docks(self) -> None:
        Dock = QtCore.Qt.DockWidgetArea  # noqa: N806 - an alias of a Qt enum
        # the side columns run the full height; the Explainer sits under the canvas only, so
        # opening it does not squeeze the property panel and the tensor viewer
        self.setCorner(QtCore.Qt.Corner.BottomLeftCorner, Dock.LeftDockWidgetArea)
        self.setCorner(QtCore.Qt.Corner.BottomRightCorner, Dock.RightDockWidgetArea)
        self.palette = Palette()
        self.palette_dock = self._dock("Palette", "paletteDock", self.palette, Dock.LeftDockWidgetArea)
        self.properties = PropertyPanel(self.push, self.show_status, state_of=lambda nid: self.scene.node_state(nid),
                                        problem_port_of=lambda nid: self.scene.problem_port(nid))
        self.properties_dock = self._dock("Properties", "propertiesDock", self.properties, Dock.RightDockWidgetArea)
        self.viewer = TensorViewer()
        # scrolls vertically on a low screen rather than raise the window's minimum height
        # (a 3-d tensor's slice controls make the viewer 320 px high at least)
        self.viewer_dock = self._dock("Tensor viewer", "viewerDock", screen_fit.DockScroll(self.viewer),
                                      Dock.RightDockWidgetArea)
        self.explainer = ExplainerWidget()
        self.explainer_dock = self._dock("Explainer", "explainerDock", self.explainer, Dock.BottomDockWidgetArea)
        # the Training dock shares the Explainer's place (a tab beside it), closed at first
        self.training_panel = TrainingPanel()
        self.training_dock = self._dock("Training", "trainingDock", self.training_panel, Dock.BottomDockWidgetArea)
        self.tabifyDockWidget(self.explainer_dock, self.training_dock)
        self.training_dock.hide()
        self.explainer_dock.raise_()
        self.resizeDocks([self.properties_dock, self.viewer_dock], [330, 470], QtCore.Qt.Orientation.Vertical)
        self.resizeDocks([self.palette_dock, self.properties_dock], list(screen_fit.DOCK_WIDTHS),
                         QtCore.Qt.Orientation.Horizontal)

    def _dock(self, title: str, name: str, widget: QtWidgets.QWidget, area) -> QtWidgets.QDockWidget:
        dock = QtWidgets.QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _action(self, text: str, slot, shortcut=None, *, checkable: bool = False, tip: str = "") -> QtGui.QAction:
        action = QtGui.QAction(text, self)
        if shortcut is not None:
            if isinstance(shortcut, (list, tuple)):
                action.setShortcuts([Key(s) for s in shortcut])
            else:
                action.setShortcut(Key(shortcut))
        action.setCheckable(checkable)
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    def _build_actions(self) -> None:
        f, clip, edits = self.files, self.clipboard, self.edits
        self.new_action = self._action("&New", f.new, Key.StandardKey.New)
        self.open_action = self._action("&Open…", f.open_dialog, Key.StandardKey.Open)
        self.save_action = self._action("&Save", f.save, Key.StandardKey.Save)
        self.save_as_action = self._action("Save &As…", f.save_as, "Ctrl+Shift+S")
        self.import_action = self._action("&Import ONNX…", f.import_onnx, "Ctrl+I")
        self.export_action = self._action("&Export ONNX…", f.export_onnx, "Ctrl+E")
        # the platform's Quit key where it has one (Ctrl+Q on Linux desktops); some platforms
        # (offscreen, some window managers) define none: then Ctrl+Q
        self.quit_action = self._action("&Quit", self.close, Key.StandardKey.Quit)
        if self.quit_action.shortcut().isEmpty():
            self.quit_action.setShortcut(Key("Ctrl+Q"))

        self.undo_action = self.undo_stack.createUndoAction(self, "Undo")
        self.undo_action.setShortcuts([Key("Ctrl+Z")])
        self.redo_action = self.undo_stack.createRedoAction(self, "Redo")
        self.redo_action.setShortcuts([Key("Ctrl+Shift+Z"), Key("Ctrl+Y")])
        self.addAction(self.undo_action)
        self.addAction(self.redo_action)
        self.copy_action = self._action("&Copy", lambda: clip.copy(), "Ctrl+C")
        self.paste_action = self._action("&Paste", lambda: clip.paste(), "Ctrl+V")
        self.duplicate_action = self._action("&Duplicate", lambda: clip.duplicate(), "Ctrl+D",
                                             tip="Copies of the selection, fed by the same inputs")
        self.duplicate_unwired_action = self._action("Duplicate &without Wires", lambda: clip.duplicate(False),
                                                     "Ctrl+Shift+D", tip="Copies of the selection, inputs unconnected")
        self.delete_action = self._action("De&lete", edits.delete_selection, [Key.StandardKey.Delete, "Backspace"])
        self.select_all_action = self._action("Select &All", edits.select_all, "Ctrl+A")
        self.layout_action = self._action("Auto &Layout", edits.auto_layout, "Ctrl+L")
        self.add_action = self._action("Add Block…\tTab", edits.open_quick_add)
        self.find_action = self._action("&Find Node…", self.find_node.open, Key.StandardKey.Find)
        self.connect_action = self._action("C&onnect Ports…", self.connect_ports.open, "C",
                                           tip="Wire the selected node's ports from the keyboard")

        self.frame_action = self._action("&Frame Selection (or All)\tF", lambda: self.view.frame(True))
        self.frame_all_action = self._action("Frame &All", lambda: self.view.frame(False, readable=False), "Ctrl+0")
        self.next_panel_action = self._action("&Next Panel", lambda: self.panel_focus.move(1), "Ctrl+F6",
                                              tip="The keyboard's way between the canvas and the docks")
        self.previous_panel_action = self._action("Pre&vious Panel", lambda: self.panel_focus.move(-1),
                                                  "Ctrl+Shift+F6")
        self.zoom_in_action = self._action("Zoom &In", lambda: self.view.zoom_by(1), ("Ctrl++", "Ctrl+="))
        self.zoom_out_action = self._action("Zoom &Out", lambda: self.view.zoom_by(-1), "Ctrl+-")
        self.previews_action = self._action("Inline &Previews", lambda show: self.previews.set(show), checkable=True,
                                            tip="Draw a thumbnail of each node's output on the node")
        self.previews = PreviewSwitch(self.previews_action, self.scene, lambda: self.graph, self.show_status)
        # F5 is View > Presentation (the key presentation software uses)
        self.run_action = self._action("&Evaluate Now", self.runner.rerun_all, "Ctrl+R")
        self.training_view_action = self.training_dock.toggleViewAction()
        self.training_view_action.setShortcut(Key("Ctrl+T"))
        self.training_view_action.setStatusTip("The Training dock: loss, Step, Train, Stop, the loss curve")
        # shown, it comes to the front of its tabs (it stayed behind the Explainer's tab)
        self.training_view_action.triggered.connect(lambda on: on and self.training_dock.raise_())
        self.train_step_action = self._action("Training &Step", lambda: self._train(1),
                                              tip="One optimizer step of the trainable sources (one undo step)")
        self.train_action = self._action("&Train", lambda: self._train(self.training_panel.steps_box.value()),
                                         tip="Run the Training dock's number of steps (one undo step)")
        self.stop_training_action = self._action("St&op Training", lambda: self.training.stop())
        self.cancel_action = self._action("&Cancel Run", self.run_status.cancel, "Esc")
        for a in (self.copy_action, self.paste_action, self.duplicate_action, self.duplicate_unwired_action,
                  self.delete_action, self.select_all_action, self.cancel_action, self.connect_action):
            # let text fields keep their own Ctrl+C/V/A, Delete and Esc
            a.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.removeAction(a)
            self.view.addAction(a)
        panels = [self.palette_dock, self.properties_dock, self.viewer_dock, self.training_dock]
        self.presentation = Presentation(self, self.view, self.scene, self.explainer, self.explainer_dock, panels,
                                         self.cancel_action)

    def _present_lessons(self) -> None:
        """While presenting, the Lessons dock is a panel (hidden; F6 shows it with the others,
        F7 above the stage), its text in large print, and a quiz takes the Explainer's place
        beside the canvas, its text enlarged; leaving keeps the quiz."""
        lessons = self.lessons
        self.presentation.panels.append(lessons.dock)
        self.presentation.set_aside(lessons.dock)   # F7: the lesson's text above the stage
        self.presentation.changed.connect(lambda on: lessons.panel.set_text_zoom(LESSON_TEXT_ZOOM if on else 1.0))
        self.presentation.set_stage([lessons.quiz_dock],
                                    lambda: lessons.quiz_dock if lessons.quizzing else self.explainer_dock,
                                    lessons.quiz_widget.set_zoom, lessons.keep_quiz_layout,
                                    lessons.quiz_widget.fit_zoom)
        lessons.quizChanged.connect(lambda _on: self.presentation.restage())
        lessons.lessonOpened.connect(self.presentation.restage)   # the Lessons dock goes again
        self.documentChanged.connect(self.presentation.document_changed)
        lessons.quizChanged.connect(lambda _on: self._withhold_answers())
        lessons.withheldChanged.connect(self._withhold_answers)

    def _withhold_answers(self) -> None:
        """During a quiz neither the viewer nor a block's preview shows a computed value (the
        answers) nor a source the quiz's new inputs replace (:meth:`LessonsController.withheld_why`;
        the property panel says so above such a source's values), and the Explainer's menu (its
        slides would draw them) is off; after it, all show again."""
        quizzing = self.lessons.quizzing
        self.viewer_target.withhold(self.lessons.withheld_why if quizzing else None)
        self.scene.withhold_previews(self.lessons.withheld_why if quizzing else None)
        self.properties.withhold(self.lessons.withheld_why if quizzing else None)
        self.explainer.menu.menuAction().setEnabled(not quizzing)

    def _build_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        file_menu.addActions([self.new_action, self.open_action])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.examples_menu = file_menu.addMenu("E&xamples")
        self.files.fill_examples_menu(self.examples_menu)
        file_menu.addSeparator()
        file_menu.addActions([self.save_action, self.save_as_action])
        file_menu.addSeparator()
        file_menu.addActions([self.import_action, self.export_action])
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        self.files.set_recent_menu(self.recent_menu)

        self.edit_menu = menu.addMenu("&Edit")
        self.edit_menu.addActions([self.undo_action, self.redo_action])
        self.edit_menu.addSeparator()
        self.edit_menu.addActions([self.copy_action, self.paste_action, self.duplicate_action,
                                   self.duplicate_unwired_action, self.delete_action, self.select_all_action])
        self.edit_menu.addSeparator()
        self.edit_menu.addActions([self.add_action, self.find_action, self.connect_action, self.layout_action])
        self.edit_menu.addSeparator()
        na = self.node_actions
        self.edit_menu.addActions([na.rename_action, na.bypass_action, na.collapse_action, na.frame_action,
                                   na.groups.collapse_action, na.groups.expand_action, na.groups.chains_action])
        self.edit_menu.addSeparator()
        self.edit_menu.addActions([self.regions.extract_action, self.regions.splice_action])

        view_menu = menu.addMenu("&View")
        view_menu.addActions([self.frame_action, self.frame_all_action, self.zoom_in_action, self.zoom_out_action])
        view_menu.addActions([self.next_panel_action, self.previous_panel_action])
        view_menu.addSeparator()
        view_menu.addAction(self.previews_action)
        self.theme_menu = view_menu.addMenu("&Theme")
        group = QtGui.QActionGroup(self)
        self.theme_actions = {}
        for choice, text in ((T.ThemeChoice.SYSTEM, "&System"), (T.ThemeChoice.LIGHT, "&Light"),
                             (T.ThemeChoice.DARK, "&Dark")):
            action = self.theme_menu.addAction(text, lambda c=choice: self.theme.set_choice(c))
            action.setCheckable(True)
            action.setChecked(self.theme.choice is choice)
            group.addAction(action)
            self.theme_actions[choice] = action
        view_menu.addSeparator()
        for dock in (self.palette_dock, self.properties_dock, self.viewer_dock, self.explainer_dock):
            view_menu.addAction(dock.toggleViewAction())
        view_menu.addAction(self.training_view_action)
        view_menu.addMenu(self.explainer.menu)
        view_menu.addSeparator()
        p = self.presentation
        view_menu.addActions([p.action, p.panels_action, p.aside_action, p.leave_action])

        run_menu = menu.addMenu("&Run")
        run_menu.addActions([self.run_action, self.cancel_action])
        run_menu.addSeparator()
        run_menu.addActions([self.train_step_action, self.train_action, self.stop_training_action])

        help_menu = menu.addMenu("&Help")
        self.shortcuts_action = help_menu.addAction("&Keyboard Shortcuts", self.show_shortcuts)
        self.shortcuts_action.setShortcut(QtGui.QKeySequence("F1"))
        self.lessons_action = help_menu.addAction("&Lessons", lambda: self.lessons.show_browser())
        self.legend_action = help_menu.addAction("Port and Wire &Colours", self.show_legend)
        help_menu.addAction("&About IndexFlow", lambda: show_about(self))
        for top in (file_menu, self.edit_menu, view_menu, run_menu, help_menu):
            # a value still being typed in the property panel belongs to its node before any action runs
            top.aboutToShow.connect(self.properties.commit_pending)

    def show_shortcuts(self) -> QtWidgets.QDialog:
        """Help > Keyboard Shortcuts (built from the menus, see ``nodeeditor.ui.help``)."""
        dialog = ShortcutsDialog(self)
        dialog.show()
        return dialog

    def show_legend(self) -> QtWidgets.QDialog:
        """Help > Port and Wire Colours."""
        dialog = ColourLegend(self)
        dialog.show()
        return dialog

    def _on_theme_changed(self, _mode) -> None:
        """Redraw what paints with the theme's colours (widgets follow the palette)."""
        self.view.restyle()
        self.scene.refresh_all()
        for item in self.scene.items():
            item.update()

    def _connect(self) -> None:
        sc = self.scene
        self.theme.changed.connect(self._on_theme_changed)
        sc.wireHint.connect(lambda reason: self.show_status(f"Cannot connect here: {reason}", error=True)
                            if reason else self.status_line.clear())
        sc.wireNote.connect(self.show_status)
        sc.selectionChanged.connect(self._on_selection_changed)
        self.canvas_menu = CanvasMenu(
            self.view, sc, add_here=self.edits.open_quick_add_at, paste_here=lambda at: self.clipboard.paste(at=at),
            selection_actions=(self.copy_action, self.duplicate_action, self.delete_action),
            connect_action=self.connect_action, arrange_actions=(self.layout_action, self.frame_action),
            node_actions=self.node_actions, region_actions=(self.regions.extract_action, self.regions.splice_action))
        self.training_dock.visibilityChanged.connect(self.scene.set_training_mode)
        self.training.runningChanged.connect(lambda _running: self._sync_undo_actions())
        # the stack enables Undo / Redo as it changes (a move pushed meanwhile): off again
        for signal, action in ((self.undo_stack.canUndoChanged, self.undo_action),
                               (self.undo_stack.canRedoChanged, self.redo_action)):
            signal.connect(lambda _can, a=action: self.training.running and a.setEnabled(False))
        r = self.runner
        r.nodeFinished.connect(self.scene.refresh_node)
        r.finished.connect(self._on_run_finished)
        r.failed.connect(lambda msg: self.show_status(msg, error=True))
        r.busyChanged.connect(lambda busy: busy or self.scene.refresh_all())

    # ------------------------------------------------------------------ document
    def set_document(self, graph: Graph, path: Path | None, modified: bool = False) -> None:
        """Show ``graph`` (a fresh undo history); ``path`` is where Save writes (None: ask)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.graph = graph
        self.undo_stack.clear()
        self._forced_modified = modified
        self.runner.set_graph(graph)          # first: it marks what is stale before the scene asks
        self.training.document_changed()      # a run for the old document is dropped
        self.gradients.set_graph(graph)
        self.scene.set_graph(graph)
        self.scene.set_show_previews(self.previews.shown)
        if self.previews.shown:
            self.previews.make_room()         # or each preview hides under the node below it
        self._unsubscribe = graph.events.subscribe(self._on_graph_event)
        self.properties.set_graph(graph)
        self.palette.set_opset(graph.opset)
        self.files.current_path = Path(path) if path else None
        self.viewer_target.reset()
        self.update_title()
        # a fresh document starts at 100% (framing below changes that when there are nodes;
        # an empty graph must not keep the previous document's zoom)
        self.view.resetTransform()
        self.view.centerOn(0, 0)
        QtCore.QTimer.singleShot(0, self._show_new_document)
        self.documentChanged.emit()

    def _show_new_document(self) -> None:
        """Frame the document just set and draw it now: this call is queued before the
        runner's first run of it is planned (a zero-delay single shot is delivered before a
        timer's timeout), so the canvas shows the graph before its evaluation is planned."""
        self.view.frame(False)
        if self.view.isVisible():
            self.view.viewport().repaint()

    def is_modified(self) -> bool:
        return self._forced_modified or not self.undo_stack.isClean()

    def discard_changes(self) -> None:
        """Count the document as unmodified without saving it: New, Open and closing the
        window ask nothing (the undo history stays; closing removes the recovery file)."""
        self._forced_modified = False
        self.undo_stack.setClean()
        self.update_title()

    def mark_saved(self) -> None:
        """The document was written to ``files.current_path``: unmodified, no recovery file."""
        self.files.clear_recovery()
        self.discard_changes()

    def _on_clean_changed(self, _clean: bool) -> None:
        self.update_title()

    def update_title(self) -> None:
        path = self.files.current_path
        origin = self.graph.file_path
        example = origin is not None and origin.parent.resolve() == EXAMPLES_DIR.resolve()
        name = path.name if path else f"{self.graph.name} ({'example' if example else 'not saved'})"
        self.setWindowTitle(f"{name}[*] — IndexFlow")
        self.setWindowModified(self.is_modified())

    def push(self, command: QtGui.QUndoCommand) -> bool:
        """Do ``command`` as one undo step and return True; refused (False; the status line says
        why) while a training run is going, unless it changes only the view (see
        :mod:`.training_runs`)."""
        if self.training.refuses(command):
            self.properties.refresh()      # a field the refused edit came from shows the graph again
            return False
        self.undo_stack.push(command)
        return True

    def _train(self, steps: int) -> None:
        """Run > Training Step / Train: show the Training dock and start."""
        self.training_dock.show()
        self.training_dock.raise_()
        self.training.start(steps)

    def _sync_undo_actions(self) -> None:
        """Undo and Redo are off while a training run is going (the document must stay as the
        run saw it), else as the undo stack says."""
        running = self.training.running
        self.undo_action.setEnabled(not running and self.undo_stack.canUndo())
        self.redo_action.setEnabled(not running and self.undo_stack.canRedo())
        self.stop_training_action.setEnabled(running)
        for action in (self.train_step_action, self.train_action):
            action.setEnabled(not running)

    def _on_graph_event(self, event: E.GraphEvent) -> None:
        self.properties.on_event(event)
        match event:
            case E.SettingChanged(name="name"):
                self.update_title()
            case E.SettingChanged(name="opset", new=opset):
                self.palette.set_opset(opset)
            case E.TypesChanged() | E.NodeRemoved():
                self._update_selection_status()

    # ------------------------------------------------------------------ selection, status, runs
    def show_status(self, message: str, error: bool = False) -> None:
        """A temporary message on the left of the status bar, red for an error (see
        :mod:`.status_line`)."""
        self.status_line.show(message, error)

    def _on_selection_changed(self) -> None:
        group = self.scene.groups.selected_alone()
        if group is not None:     # one group block: what is inside it, and the tensor it gives out
            self.properties.show_group(group)
            outputs = self.scene.groups.item(group).boundary.outputs
            if outputs:
                self.viewer_target.show_node(outputs[-1][0])
            return
        ids = self.scene.selected_node_ids()
        only = ids[0] if len(ids) == 1 else None
        self.properties.set_selection_count(len(ids))
        if only != self.properties.node_id or self.properties.group_id is not None:
            self.properties.show_node(only)
        if only is not None:
            self.viewer_target.show_node(only)
        self._update_selection_status()

    def _update_selection_status(self) -> None:
        ids = self.scene.selected_node_ids()
        if len(ids) != 1 or not self.graph.has_node(ids[0]):
            return
        state, message = self.scene.node_state(ids[0])
        if state in (style.ERROR, style.BLOCKED, style.WARNING) and message:
            self.show_status(message, error=state == style.ERROR)

    def _on_run_finished(self, _result) -> None:
        self.status_line.clear_error()   # shown again below if the selected node still has it
        self.scene.refresh_all()
        self.properties.refresh()
        self.viewer_target.update()
        self._update_selection_status()

    # ------------------------------------------------------------------ window state
    def restore_layout(self) -> None:
        self.previews.set(S.restore_window_layout(self), make_room_for_them=False)

    def save_layout(self) -> None:
        S.save_window_layout(self, self.previews.shown)

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        if not self.files.maybe_discard():
            event.ignore()
            return
        self.presentation.set_active(False)   # the layout saved is the usual one
        self.save_layout()
        self.runner.shutdown()
        self.training.shutdown()
        self.gradients.shutdown()
        self.viewer.shutdown()      # its background jobs must not outlive the window
        self.files.stop_recovery()
        event.accept()
