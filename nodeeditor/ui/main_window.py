"""The main window: the canvas in the centre; docks for the palette, properties, tensor
viewer and explainer; menus and shortcuts; the wiring between the graph, the undo stack,
the runner and the views.

On a small screen (a projector: QT_SCALE_FACTOR=1.5 on 1280x720 is 853x480 logical) the
window starts no larger than the screen's available area, the side docks start narrower
(:meth:`initial_dock_widths`) so the canvas keeps about half the width, the tensor viewer
scrolls vertically instead of raising the window's minimum height, and the window is capped
to the available area whenever it is shown or resized (:meth:`fit_to_screen`).

Who changes what: every edit is an undo command pushed here (``push``); commands call Graph
methods; the scene, the property panel and the runner follow the graph's events.
"""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import events as E
from nodeeditor.graph.document import Graph
from nodeeditor.graph.examples import EXAMPLES_DIR

from . import blocks as B
from . import clipboard
from . import commands as C
from . import settings as S
from .canvas import GraphScene, GraphView, style
from .canvas.edge_item import EdgeItem
from .canvas.node_item import NodeItem
from .connect_box import ConnectBox, parse_key
from .explainer import ExplainerWidget
from .explainer.dock import ExplainerController
from .files import FileController
from .find_node import FindNodeBox
from .layout import free_offset, layered_layout, make_room
from .palette import Palette
from .properties import PropertyPanel
from .quick_add import QuickAddBox
from .runner import EvaluationRunner
from .viewer import TensorViewer

Key = QtGui.QKeySequence
PROGRESS_DELAY_MS = 300


class _DockScroll(QtWidgets.QScrollArea):
    """A dock's content that scrolls vertically when the dock is lower than the content's
    minimum height; its minimum width is still the content's (no sideways scrolling in the
    normal case), and it follows the content's minimum as that changes."""

    MIN_HEIGHT = 120

    def __init__(self, widget: QtWidgets.QWidget) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setWidget(widget)
        widget.installEventFilter(self)

    def minimumSizeHint(self) -> QtCore.QSize:
        inner = self.widget().minimumSizeHint()
        bar = self.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_ScrollBarExtent)
        return QtCore.QSize(inner.width() + bar, min(inner.height(), self.MIN_HEIGHT))

    def eventFilter(self, watched, event) -> bool:
        if watched is self.widget() and event.type() == QtCore.QEvent.Type.LayoutRequest:
            self.updateGeometry()   # the dock learns the content's new minimum width
        return super().eventFilter(watched, event)


class MainWindow(QtWidgets.QMainWindow):
    documentChanged = QtCore.Signal()

    def __init__(self, graph: Graph | None = None, path: Path | None = None) -> None:
        super().__init__()
        self.setObjectName("IndexFlowMainWindow")
        self.graph = graph or Graph()
        self._forced_modified = False
        self._unsubscribe = None
        self._paste_count = 0
        self._viewer_target: tuple[str, str | None, bool] | None = None
        self._shown_array_id: int | None = None
        self.export_dialog = None
        self.last_refusal = ""

        self.undo_stack = QtGui.QUndoStack(self)
        self.undo_stack.cleanChanged.connect(self._on_clean_changed)
        self.runner = EvaluationRunner(self.graph, self)
        self.scene = GraphScene(self.graph, self.runner, self)
        self.view = GraphView(self.scene)
        self.setCentralWidget(self.view)
        self.quick_add = QuickAddBox(self.view)
        self.find_box = FindNodeBox(self.view, lambda: self.graph)
        self.find_box.accepted.connect(self.go_to_node)
        self.connect_box = ConnectBox(self.view, lambda: self.graph)
        self.connect_box.accepted.connect(self.apply_connect_choice)
        self.files = FileController(self)

        self._build_docks()
        self._build_status_bar()
        self._build_actions()
        self._build_menus()
        self._connect()
        self.explainer_controller = ExplainerController(self, self.explainer, self.explainer_dock)
        self.resize(self.initial_size())
        self.resizeDocks([self.palette_dock, self.properties_dock], list(self.initial_dock_widths(self.width())),
                         QtCore.Qt.Orientation.Horizontal)
        self.set_document(self.graph, path)
        self.restore_layout()

    #: The window's size on a first start (no saved layout), when the screen has room for it.
    PREFERRED_SIZE = (1480, 900)

    def initial_size(self) -> QtCore.QSize:
        """:data:`PREFERRED_SIZE`, shrunk to fit the screen's available area (a laptop, or a
        projector with ``QT_SCALE_FACTOR`` set) so the window never opens larger than the
        screen with its docks cut off."""
        width, height = self.PREFERRED_SIZE
        screen = self.screen() or QtGui.QGuiApplication.primaryScreen()
        if screen is not None:
            available = screen.availableGeometry()
            width = min(width, int(available.width() * 0.96))
            height = min(height, int(available.height() * 0.92))
        return QtCore.QSize(width, height)

    #: The side docks' widths on a first start, and the most of the window's width each may
    #: take then: on 818 px (a projector) 180 and 245, the canvas keeps ~46% of the width.
    DOCK_WIDTHS = (220, 420)
    DOCK_SHARES = (0.22, 0.30)

    def initial_dock_widths(self, width: int) -> tuple[int, int]:
        """(palette, right column) widths for a window ``width`` wide: :data:`DOCK_WIDTHS`,
        or less on a small window so the canvas is not squeezed to a strip."""
        return tuple(min(w, int(width * share)) for w, share in zip(self.DOCK_WIDTHS, self.DOCK_SHARES, strict=True))

    def _available(self) -> QtCore.QRect | None:
        screen = self.screen() or QtGui.QGuiApplication.primaryScreen()
        return screen.availableGeometry() if screen is not None else None

    def fit_to_screen(self) -> None:
        """Shrink the window (frame included) to the screen's available area and move it
        inside, unless maximised or full screen; it never goes below its minimum size (which
        the docks keep small enough for 853x480, see the module docstring)."""
        area = self._available()
        if area is None or self.isMaximized() or self.isFullScreen() or getattr(self, "_fitting", False):
            return
        frame = self.frameGeometry().size() - self.size() if self.isVisible() else QtCore.QSize(0, 0)
        width = min(self.width(), area.width() - frame.width())
        height = min(self.height(), area.height() - frame.height())
        self._fitting = True
        try:
            if (width, height) != (self.width(), self.height()):
                self.resize(width, height)
            if self.isVisible():
                box = self.frameGeometry()
                x = max(area.left(), min(box.x(), area.right() + 1 - box.width()))
                y = max(area.top(), min(box.y(), area.bottom() + 1 - box.height()))
                if (x, y) != (box.x(), box.y()):
                    self.move(x, y)
        finally:
            self._fitting = False

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        self.fit_to_screen()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        area = self._available()
        if area is not None and (event.size().width() > area.width() or event.size().height() > area.height()):
            QtCore.QTimer.singleShot(0, self.fit_to_screen)   # after Qt has finished this resize

    # ------------------------------------------------------------------ building
    def _build_docks(self) -> None:
        Dock = QtCore.Qt.DockWidgetArea  # noqa: N806 - an alias of the Qt enum class
        # the side columns run the full height; the Explainer sits under the canvas only, so
        # opening it does not squeeze the property panel and the tensor viewer
        self.setCorner(QtCore.Qt.Corner.BottomLeftCorner, Dock.LeftDockWidgetArea)
        self.setCorner(QtCore.Qt.Corner.BottomRightCorner, Dock.RightDockWidgetArea)
        self.palette = Palette()
        self.palette_dock = self._dock("Palette", "paletteDock", self.palette, Dock.LeftDockWidgetArea)
        self.properties = PropertyPanel(self.push, self.show_status, state_of=lambda nid: self.scene.node_state(nid))
        self.properties_dock = self._dock("Properties", "propertiesDock", self.properties, Dock.RightDockWidgetArea)
        self.viewer = TensorViewer()
        # scrolls vertically on a low screen rather than raise the window's minimum height
        # (a 3-d tensor's slice controls make the viewer 320 px high at least)
        self.viewer_dock = self._dock("Tensor viewer", "viewerDock", _DockScroll(self.viewer), Dock.RightDockWidgetArea)
        self.viewer_dock.visibilityChanged.connect(lambda visible: visible and self.update_viewer())
        self.explainer = ExplainerWidget()
        self.explainer_dock = self._dock("Explainer", "explainerDock", self.explainer, Dock.BottomDockWidgetArea)
        self.resizeDocks([self.explainer_dock], [290], QtCore.Qt.Orientation.Vertical)
        self.resizeDocks([self.properties_dock, self.viewer_dock], [330, 470], QtCore.Qt.Orientation.Vertical)
        self.resizeDocks([self.palette_dock, self.properties_dock], [220, 420], QtCore.Qt.Orientation.Horizontal)

    def _dock(self, title: str, name: str, widget: QtWidgets.QWidget, area) -> QtWidgets.QDockWidget:
        dock = QtWidgets.QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.run_label = QtWidgets.QLabel("")
        self.progress = QtWidgets.QProgressBar()
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(True)
        self.cancel_button = QtWidgets.QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_run)
        for w in (self.progress, self.cancel_button):
            w.hide()
        bar.addPermanentWidget(self.run_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        self._status_error = False
        bar.messageChanged.connect(lambda text: text or self._clear_status_error())
        self._progress_timer = QtCore.QTimer(self)
        self._progress_timer.setSingleShot(True)
        self._progress_timer.setInterval(PROGRESS_DELAY_MS)
        self._progress_timer.timeout.connect(self._show_progress)

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
        f = self.files
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
        self.copy_action = self._action("&Copy", lambda: self.copy(), "Ctrl+C")
        self.paste_action = self._action("&Paste", lambda: self.paste(), "Ctrl+V")
        self.duplicate_action = self._action("&Duplicate", lambda: self.duplicate(), "Ctrl+D")
        self.delete_action = self._action("De&lete", self.delete_selection, [Key.StandardKey.Delete, "Backspace"])
        self.select_all_action = self._action("Select &All", self.select_all, "Ctrl+A")
        self.layout_action = self._action("Auto &Layout", self.auto_layout, "Ctrl+L")
        self.add_action = self._action("Add Block…\tTab", self.open_quick_add)
        self.find_action = self._action("&Find Node…", self.open_find, QtGui.QKeySequence.StandardKey.Find)
        self.connect_action = self._action("C&onnect Ports…", self.open_connect, "C",
                                           tip="Wire the selected node's ports from the keyboard")

        self.frame_action = self._action("&Frame Selection (or All)\tF", lambda: self.view.frame(True))
        self.frame_all_action = self._action("Frame &All", lambda: self.view.frame(False, readable=False), "Ctrl+0")
        self.previews_action = self._action("Inline &Previews", self.set_previews, checkable=True,
                                            tip="Draw a thumbnail of each node's output on the node")
        self.run_action = self._action("&Evaluate Now", self.evaluate_now, "F5")
        self.cancel_action = self._action("&Cancel Run", self.cancel_run, "Esc")
        for a in (self.copy_action, self.paste_action, self.duplicate_action, self.delete_action,
                  self.select_all_action, self.cancel_action, self.connect_action):
            # let text fields keep their own Ctrl+C/V/A, Delete and Esc
            a.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.removeAction(a)
            self.view.addAction(a)

    def _build_menus(self) -> None:
        menu = self.menuBar()
        file_menu = menu.addMenu("&File")
        file_menu.addActions([self.new_action, self.open_action])
        self.recent_menu = file_menu.addMenu("Open &Recent")
        self.examples_menu = file_menu.addMenu("E&xamples")
        for info in self.files.examples():
            action = self.examples_menu.addAction(info.title)
            action.setStatusTip(info.description)
            action.setToolTip(info.description)
            action.setData(info.name)
            action.triggered.connect(lambda _=False, n=info.name: self.files.open_example(n))
        file_menu.addSeparator()
        file_menu.addActions([self.save_action, self.save_as_action])
        file_menu.addSeparator()
        file_menu.addActions([self.import_action, self.export_action])
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        self.update_recent_menu()

        self.edit_menu = menu.addMenu("&Edit")
        self.edit_menu.addActions([self.undo_action, self.redo_action])
        self.edit_menu.addSeparator()
        self.edit_menu.addActions([self.copy_action, self.paste_action, self.duplicate_action, self.delete_action,
                                   self.select_all_action])
        self.edit_menu.addSeparator()
        self.edit_menu.addActions([self.add_action, self.find_action, self.connect_action, self.layout_action])

        view_menu = menu.addMenu("&View")
        view_menu.addActions([self.frame_action, self.frame_all_action])
        view_menu.addSeparator()
        view_menu.addAction(self.previews_action)
        view_menu.addSeparator()
        for dock in (self.palette_dock, self.properties_dock, self.viewer_dock, self.explainer_dock):
            view_menu.addAction(dock.toggleViewAction())

        run_menu = menu.addMenu("&Run")
        run_menu.addActions([self.run_action, self.cancel_action])

        help_menu = menu.addMenu("&Help")
        self.shortcuts_action = help_menu.addAction("&Keyboard Shortcuts", self.show_shortcuts)
        self.shortcuts_action.setShortcut(QtGui.QKeySequence("F1"))
        help_menu.addAction("&About IndexFlow", self.show_about)

    def show_shortcuts(self) -> QtWidgets.QDialog:
        """Help > Keyboard Shortcuts (built from the menus, see ``nodeeditor.ui.help``)."""
        from .help import ShortcutsDialog

        dialog = ShortcutsDialog(self)
        dialog.show()
        return dialog

    def show_about(self) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            v = version("indexflow")
        except PackageNotFoundError:
            v = "development"
        QtWidgets.QMessageBox.about(
            self, "About IndexFlow",
            f"<b>IndexFlow</b> {v}<br>A node editor for the ONNX indexing operators: Gather, "
            "GatherElements, GatherND, Scatter, ScatterElements, ScatterND and TensorScatter.<br><br>"
            "Build a graph from the palette, watch every tensor, step through the Explainer, "
            "and export to ONNX (File > Export ONNX).")

    def update_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = S.recent_files()
        for path in recent:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.files.open_path(p))
        if not recent:
            self.recent_menu.addAction("(none)").setEnabled(False)

    def _connect(self) -> None:
        sc = self.scene
        sc.connectRequested.connect(self._on_connect_requested)
        sc.disconnectRequested.connect(lambda dst, port: self.push(C.DisconnectCommand(self.graph, dst, port)))
        sc.connectionRefused.connect(self._on_refused)
        sc.nodesMoved.connect(lambda moves: self.push(C.MoveCommand(self.graph, moves)))
        sc.portClicked.connect(self._on_port_clicked)
        sc.wireHint.connect(lambda reason: self.show_status(f"Cannot connect here: {reason}", error=True)
                            if reason else self.statusBar().clearMessage())
        sc.wireNote.connect(self.show_status)
        sc.selectionChanged.connect(self._on_selection_changed)
        # a click on a node that is already selected changes no selection, yet it must show
        # that node's output again (after a port click showed another tensor)
        self._pressed_node: str | None = None
        sc.installEventFilter(self)
        self.view.blockDropped.connect(self.add_block)
        self.view.quickAddRequested.connect(self.open_quick_add_at)
        self.view.contextMenuRequested.connect(self.show_canvas_menu)
        self.palette.blockActivated.connect(lambda key: self.add_block(key, self.view.centre_scene_pos(),
                                                                       avoid_overlap=True))
        self.quick_add.chosen.connect(self.add_block)
        r = self.runner
        r.runStarted.connect(self._on_run_started)
        r.progressed.connect(self._on_progress)
        r.nodeFinished.connect(self.scene.refresh_node)
        r.finished.connect(self._on_run_finished)
        r.failed.connect(lambda msg: self.show_status(msg, error=True))
        r.busyChanged.connect(self._on_busy_changed)

    # ------------------------------------------------------------------ document
    def set_document(self, graph: Graph, path: Path | None, modified: bool = False) -> None:
        """Show ``graph`` (a fresh undo history); ``path`` is where Save writes (None: ask)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.graph = graph
        self.undo_stack.clear()
        self._forced_modified = modified
        self._viewer_target = None
        self.runner.set_graph(graph)          # first: it marks what is stale before the scene asks
        self.scene.set_graph(graph)
        self.scene.set_show_previews(self.previews_action.isChecked())
        if self.previews_action.isChecked():
            self.make_room_for_previews()     # or each preview hides under the node below it
        self._unsubscribe = graph.events.subscribe(self._on_graph_event)
        self.properties.set_graph(graph)
        self.palette.set_opset(graph.opset)
        self.files.current_path = Path(path) if path else None
        self.viewer.set_tensor("", None)
        self._shown_array_id = None
        self.update_title()
        # a fresh document starts at 100% (framing below changes that when there are nodes;
        # an empty graph must not keep the previous document's zoom)
        self.view.resetTransform()
        self.view.centerOn(0, 0)
        QtCore.QTimer.singleShot(0, lambda: self.view.frame(False))
        self.documentChanged.emit()

    def is_modified(self) -> bool:
        return self._forced_modified or not self.undo_stack.isClean()

    def mark_saved(self) -> None:
        self._forced_modified = False
        self.undo_stack.setClean()
        self.files.clear_recovery()
        self.update_title()

    def _on_clean_changed(self, _clean: bool) -> None:
        self.update_title()

    def update_title(self) -> None:
        path = self.files.current_path
        origin = self.graph.file_path
        example = origin is not None and origin.parent.resolve() == EXAMPLES_DIR.resolve()
        name = path.name if path else f"{self.graph.name} ({'example' if example else 'not saved'})"
        self.setWindowTitle(f"{name}[*] — IndexFlow")
        self.setWindowModified(self.is_modified())

    def push(self, command: QtGui.QUndoCommand) -> None:
        self.undo_stack.push(command)

    def _on_graph_event(self, event: E.GraphEvent) -> None:
        self.properties.on_event(event)
        if event.kind == E.SETTING_CHANGED and event["name"] == "name":
            self.update_title()
        if event.kind == E.SETTING_CHANGED and event["name"] == "opset":
            self.palette.set_opset(event["new"])
        if event.kind in (E.TYPES_CHANGED, E.NODE_REMOVED):
            self._update_selection_status()

    # ------------------------------------------------------------------ adding and editing
    def _occupied(self) -> list[tuple[float, float, float, float]]:
        """The scene rectangles of the nodes on the canvas."""
        return [(r.x(), r.y(), r.width(), r.height())
                for r in (item.sceneBoundingRect() for item in self.scene.node_items())]

    def add_block(self, key: str, scene_pos: QtCore.QPointF, avoid_overlap: bool = False) -> str | None:
        """Add the block ``key`` centred at ``scene_pos`` (with ``avoid_overlap``, the nearest
        free place in view, else below or right of it, and the view scrolls to it: "add at the
        centre" must neither bury a node nor put the new one out of sight); returns the new
        node id."""
        try:
            block = B.block(key)
        except KeyError:
            self.show_status(f"unknown block {key!r}", error=True)
            return None
        pos = (round(scene_pos.x() - style.NODE_WIDTH / 2), round(scene_pos.y() - 30))
        if avoid_overlap:
            seen = self.view.mapToScene(self.view.viewport().rect()).boundingRect().adjusted(10, 10, -10, -10)
            dx, dy = free_offset((pos[0], pos[1], style.NODE_WIDTH, 120.0), self._occupied(),
                                 within=(seen.x(), seen.y(), seen.width(), seen.height()))
            pos = (round(pos[0] + dx), round(pos[1] + dy))
        node = block.make(self.graph, pos)
        command = C.AddNodeCommand(self.graph, node, f"Add {block.title}")
        self.push(command)
        self.scene.select_nodes([command.node_id])
        if avoid_overlap:
            item = self.scene.node_item(command.node_id)
            if item is not None:
                self.view.ensureVisible(item.sceneBoundingRect(), 20, 20)
        return command.node_id

    def _on_connect_requested(self, src: str, src_port: str, dst: str, dst_port: str, replaced, displaced) -> None:
        self.push(C.ConnectCommand(self.graph, src, src_port, dst, dst_port, replaced, displaced))

    def _on_refused(self, reason: str) -> None:
        self.last_refusal = reason
        self.show_status(f"Not connected: {reason}", error=True)
        QtWidgets.QToolTip.showText(QtGui.QCursor.pos(), reason, self.view)

    def delete_selection(self) -> None:
        ids = self.scene.selected_node_ids()
        edges = self.scene.selected_edges()
        if ids or edges:
            self.push(C.DeleteCommand(self.graph, ids, edges))

    def select_all(self) -> None:
        self.scene.select_nodes(self.graph.node_ids)

    def copy(self) -> bool:
        data = clipboard.selection_data(self.graph, self.scene.selected_node_ids())
        if data is None:
            return False
        clipboard.copy_to_clipboard(data)
        self._paste_count = 0
        self.show_status(f"Copied {len(data['nodes'])} node(s)")
        return True

    def paste(self, at: QtCore.QPointF | None = None) -> list[str]:
        data = clipboard.clipboard_data()
        if data is None:
            self.show_status("The clipboard holds no IndexFlow nodes")
            return []
        if at is None and self.view.cursor_inside():
            at = self.view.cursor_scene_pos()
        self._paste_count += 1
        return self._paste(data, clipboard.paste_offset(data, at, self._paste_count), "Paste")

    def duplicate(self) -> list[str]:
        data = clipboard.selection_data(self.graph, self.scene.selected_node_ids())
        if data is None:
            return []
        return self._paste(data, (clipboard.STEP, clipboard.STEP), "Duplicate")

    def _paste(self, data: dict, offset: tuple[float, float], text: str) -> list[str]:
        """Paste ``data`` moved by ``offset``, moved further down or right if it would land on
        nodes already there, with a status line saying what happened."""
        try:
            xs = [float(n["position"][0]) + offset[0] for n in data["nodes"]]
            ys = [float(n["position"][1]) + offset[1] for n in data["nodes"]]
            group = (min(xs), min(ys), max(xs) - min(xs) + style.NODE_WIDTH, max(ys) - min(ys) + 120.0)
            dx, dy = free_offset(group, self._occupied())
            offset = (offset[0] + dx, offset[1] + dy)
        except (KeyError, TypeError, ValueError, IndexError):
            pass  # malformed data: PasteCommand says so below
        try:
            command = C.PasteCommand(self.graph, data, offset, text)
            self.push(command)
        except Exception as exc:  # noqa: BLE001 - malformed clipboard data can fail in any way
            self.show_status(f"Cannot paste: {exc}", error=True)
            return []
        self.scene.select_nodes(command.new_ids)
        n = len(command.new_ids)
        self.show_status(f"{'Pasted' if text == 'Paste' else text + 'd'} {n} node{'s' * (n != 1)}")
        return command.new_ids

    def auto_layout(self) -> None:
        extra = (style.PREVIEW_HEIGHT + 4) if self.previews_action.isChecked() else 0.0
        positions = layered_layout(self.graph, extra_height=extra)
        if positions:
            self.push(C.LayoutCommand(self.graph, positions))
            self.view.frame(False)

    def open_quick_add(self) -> None:
        self.open_quick_add_at(self.view.cursor_scene_pos())

    def open_find(self) -> None:
        """Edit > Find Node: the search box at the top of the canvas."""
        self.find_box.open_at(QtCore.QPoint(max(0, (self.view.width() - self.find_box.width()) // 2), 12))

    def open_connect(self) -> None:
        """Edit > Connect Ports: the box of wires the selected node can take or give
        (:mod:`nodeeditor.ui.connect_box`), at the top of the canvas."""
        ids = self.scene.selected_node_ids()
        if len(ids) != 1:
            self.show_status("Select one node to connect its ports (Ctrl+F finds one)", error=True)
            return
        node = self.graph.node(ids[0])
        self.connect_box.open_for(ids[0], QtCore.QPoint(max(0, (self.view.width() - self.connect_box.width()) // 2),
                                                        12))
        if not self.connect_box.choices():
            self.connect_box.close_box()
            self.show_status(f"Nothing can be connected to {node.name or node.id}", error=True)

    def apply_connect_choice(self, key: str) -> None:
        """One entry of the Connect Ports box, as one undo step."""
        action, src, src_port, dst, dst_port = parse_key(key)
        src_node, dst_node = self.graph.node(src), self.graph.node(dst)
        wire = f"{src_node.name or src} · {src_port} → {dst_node.name or dst} · {dst_port}"
        if action == "remove":
            self.push(C.DisconnectCommand(self.graph, dst, dst_port))
            self.show_status(f"Disconnected {wire}")
            return
        refusal = self.graph.can_replace(src, src_port, dst, dst_port)
        if refusal is not None:  # the graph changed since the box opened
            self._on_refused(refusal)
            return
        self.push(C.ConnectCommand(self.graph, src, src_port, dst, dst_port, None, self.graph.edge_into(dst, dst_port)))
        self.show_status(f"Connected {wire}")

    #: Zoom a found node is shown at when the view is zoomed further out (its text readable).
    GO_TO_ZOOM = 1.0

    def go_to_node(self, node_id: str) -> None:
        """Select ``node_id`` alone and bring it to the middle of the canvas, zooming in to
        :data:`GO_TO_ZOOM` when the view is zoomed out below it (after Frame All of a large
        graph the node would be found but unreadable)."""
        if not self.graph.has_node(node_id):
            return
        self.scene.select_nodes([node_id])
        if self.view.zoom < self.GO_TO_ZOOM:
            factor = self.GO_TO_ZOOM / self.view.zoom
            self.view.scale(factor, factor)
        self.view.centerOn(self.scene.node_item(node_id).sceneBoundingRect().center())
        node = self.graph.node(node_id)
        self.show_status(f"Found {node.name or node.id}")

    def open_quick_add_at(self, scene_pos: QtCore.QPointF) -> None:
        self.quick_add.popup(self.view.mapFromScene(scene_pos), scene_pos)

    def show_canvas_menu(self, scene_pos: QtCore.QPointF, global_pos: QtCore.QPoint) -> QtWidgets.QMenu:
        """The right-click menu (non-blocking popup); returned for tests."""
        menu = QtWidgets.QMenu(self.view)
        menu.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        add = menu.addAction("Add Block Here…\tTab")
        add.triggered.connect(lambda: self.open_quick_add_at(scene_pos))
        menu.addSeparator()
        has_selection = bool(self.scene.selected_node_ids() or self.scene.selected_edges())
        for action in (self.copy_action, self.duplicate_action, self.delete_action):
            menu.addAction(action)
            action.setEnabled(has_selection if action is not self.delete_action else has_selection)
        paste = menu.addAction("Paste Here")
        paste.setEnabled(clipboard.clipboard_data() is not None)
        paste.triggered.connect(lambda: self.paste(at=scene_pos))
        if len(self.scene.selected_node_ids()) == 1:
            menu.addAction(self.connect_action)
        menu.addSeparator()
        menu.addActions([self.layout_action, self.frame_action])
        menu.aboutToHide.connect(lambda: [a.setEnabled(True) for a in
                                          (self.copy_action, self.duplicate_action, self.delete_action)])
        self.canvas_menu = menu
        menu.popup(global_pos)
        return menu

    def set_previews(self, show: bool, make_room_for_them: bool = True) -> None:
        """Show or hide inline previews. Previews make nodes taller; when the user turns them
        on, nodes that would then overlap the one above them move down (see
        :meth:`make_room_for_previews`). Restoring the setting at start-up moves nothing."""
        self.previews_action.setChecked(show)
        self.scene.set_show_previews(show)
        if show and make_room_for_them:
            self.make_room_for_previews()

    def make_room_for_previews(self) -> None:
        """Move down the nodes that previews would make overlap the node above them. A view
        setting is not an edit: the moves are not an undo step and do not mark the document
        modified (a graph only looked at asks nothing on close); a save keeps them."""
        boxes = {}
        for item in self.scene.node_items():
            rect = item.mapRectToScene(item.shape().boundingRect())
            boxes[item.node_id] = (item.pos().x(), item.pos().y(), rect.width(), rect.height())
        moved = make_room(boxes)
        if moved:
            with self.graph.batch():
                for node_id, position in moved.items():
                    self.graph.set_position(node_id, position)
            self.show_status(f"{len(moved)} node(s) moved down to make room for the previews")

    # ------------------------------------------------------------------ selection, viewer, status
    def show_status(self, message: str, error: bool = False) -> None:
        """A temporary message on the left of the status bar, red for an error (only the
        message: the run summary on the right keeps its colour)."""
        self._status_error = error
        self.statusBar().setStyleSheet("QStatusBar { color: #c62828; }" if error else "")
        self.statusBar().showMessage(message, 10000 if error else 5000)

    def _clear_status_error(self) -> None:
        """Forget an error message (it may be fixed now): clear it and its colour."""
        if self._status_error:
            self._status_error = False
            self.statusBar().setStyleSheet("")
            self.statusBar().clearMessage()

    def _on_selection_changed(self) -> None:
        ids = self.scene.selected_node_ids()
        only = ids[0] if len(ids) == 1 else None
        self.properties.set_selection_count(len(ids))
        if only != self.properties.node_id:
            self.properties.show_node(only)
        if only is not None:
            self._viewer_target = (only, None, True)
            self.update_viewer()
        self._update_selection_status()

    def _update_selection_status(self) -> None:
        ids = self.scene.selected_node_ids()
        if len(ids) != 1 or not self.graph.has_node(ids[0]):
            return
        state, message = self.scene.node_state(ids[0])
        if state in (style.ERROR, style.BLOCKED, style.WARNING) and message:
            self.show_status(message, error=state == style.ERROR)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        """Watch left clicks on the scene: a click on a node's body (not a port) points the
        viewer back at that node when the button is released (the press selected it)."""
        if watched is self.scene:
            kind = event.type()
            if kind == QtCore.QEvent.Type.GraphicsSceneMousePress:
                self._pressed_node = None
                if event.button() == QtCore.Qt.MouseButton.LeftButton:
                    self._pressed_node = self._node_body_at(event.scenePos())
            elif kind == QtCore.QEvent.Type.GraphicsSceneMouseRelease and self._pressed_node is not None:
                node_id, self._pressed_node = self._pressed_node, None
                self._show_clicked_node(node_id)   # the press has already selected it
        return super().eventFilter(watched, event)

    def _node_body_at(self, scene_pos: QtCore.QPointF) -> str | None:
        """The id of the node whose body (not a port) is at ``scene_pos``."""
        if self.scene.port_at(scene_pos) is not None:
            return None
        for item in self.scene.items(scene_pos):
            top = item.topLevelItem()
            if isinstance(top, NodeItem):
                return top.node_id
            if isinstance(top, EdgeItem):
                return None
        return None

    def _show_clicked_node(self, node_id: str) -> None:
        if not self.graph.has_node(node_id) or node_id not in self.scene.selected_node_ids():
            return
        if self._viewer_target != (node_id, None, True):
            self._viewer_target = (node_id, None, True)
            self.update_viewer()

    def _on_port_clicked(self, node_id: str, port: str, is_output: bool) -> None:
        self._viewer_target = (node_id, port, is_output)
        self.update_viewer()

    def viewer_source(self) -> tuple[str, str, object]:
        """(name, subtitle, array or None) of what the viewer should show."""
        if self._viewer_target is None or not self.graph.has_node(self._viewer_target[0]):
            outputs = self.graph.output_nodes()   # nothing chosen: the first graph output
            if not outputs:
                return "", "", None
            self._viewer_target = (outputs[0].id, None, True)
        node_id, port, is_output = self._viewer_target
        node = self.graph.node(node_id)
        if not is_output:
            edge = self.graph.edge_into(node_id, port)
            if edge is None:
                return f"{node.name}.{port}", "input not connected", None
            src = self.graph.node(edge.src)
            return f"{node.name}.{port}", f"input, from {src.name}", self.runner.value(edge.src)
        port = port or (node.output_ports()[0] if node.output_ports() else None)
        state, message = self.scene.node_state(node_id)
        subtitle = style.STATE_LABELS[state] if state != style.OK else "output"
        if state == style.INCOMPLETE:
            subtitle = message  # "inputs 'data' and 'indices' are not connected" says it all
        elif message and state != style.OK:
            # short: the full message is in the status bar, the node's tooltip and the panel
            detail = message.split(": ", 1)[-1]
            subtitle += f": {detail[:48]}…" if len(detail) > 48 else f": {detail}"
        name = node.name if port is None or node.kind == "output" else f"{node.name}.{port}"
        return name, subtitle, self.runner.value(node_id)

    def update_viewer(self) -> None:
        if self.viewer_dock.isHidden():
            return   # a closed viewer costs nothing; it catches up when shown again
        name, subtitle, array = self.viewer_source()
        key = (name, id(array) if array is not None else None)
        if key == self._shown_array_id:
            return
        self._shown_array_id = key
        self.viewer.set_tensor(name, array, subtitle)

    # ------------------------------------------------------------------ runs
    def evaluate_now(self) -> None:
        self.runner.dirty |= set(self.graph.node_ids)
        self.runner.schedule()

    def cancel_run(self) -> None:
        if self.runner.busy:
            self.runner.cancel()
            self.show_status("Run cancelled: the nodes marked grey were not evaluated")

    def _on_run_started(self) -> None:
        self.run_label.setText("evaluating…")
        self._progress_timer.start()

    def _show_progress(self) -> None:
        if self.runner.busy:
            self.progress.setRange(0, 0)
            self.progress.show()
            self.cancel_button.show()

    def _on_progress(self, done: int, total: int, _node_id: str) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        self.progress.setFormat(f"{done}/{total} nodes")

    def _on_run_finished(self, result) -> None:
        incomplete = [nid for nid, _ in result.errors()
                      if self.graph.has_node(nid) and self.graph.node_info(nid).incomplete]
        errors = [e for e in result.errors() if e[0] not in incomplete]
        warnings = result.warnings()
        text = f"evaluated in {self.runner.last_duration * 1000:.0f} ms"
        if errors:
            text += f" · {len(errors)} error(s)"
        if incomplete:
            text += f" · {len(incomplete)} to connect"
        if warnings:
            text += f" · {len(warnings)} warning(s)"
        self.run_label.setText(text)
        self._clear_status_error()   # shown again below if the selected node still has it
        self.scene.refresh_all()
        self.properties.refresh()
        self.update_viewer()
        self._update_selection_status()

    def _on_busy_changed(self, busy: bool) -> None:
        if not busy:
            self._progress_timer.stop()
            self.progress.hide()
            self.cancel_button.hide()
            self.scene.refresh_all()
            if self.runner.last_result is None or self.runner.dirty:
                self.run_label.setText("not evaluated" if self.runner.dirty else self.run_label.text())

    # ------------------------------------------------------------------ window state
    def restore_layout(self) -> None:
        s = S.settings()
        geometry = s.value("window/geometry")
        state = s.value("window/state")
        if geometry is not None:
            self.restoreGeometry(geometry)
        if state is not None:
            self.restoreState(state)
        self.set_previews(str(s.value("view/previews", "false")).lower() == "true", make_room_for_them=False)

    def save_layout(self) -> None:
        s = S.settings()
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("view/previews", "true" if self.previews_action.isChecked() else "false")
        s.sync()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        if not self.files.maybe_discard():
            event.ignore()
            return
        self.save_layout()
        self.runner.shutdown()
        self.viewer.shutdown()      # its background jobs must not outlive the window
        self.files.recovery_timer.stop()
        self.files.clear_recovery()
        event.accept()
