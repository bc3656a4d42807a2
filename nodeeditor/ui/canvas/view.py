"""The canvas view: wheel zoom around the cursor, pan with the middle button or Space+drag,
a light grid, rubber-band selection, F frames everything (or the selection; never below
READABLE_ZOOM: a graph too big for it is shown from its top-left, and a hint over the
canvas, wrapped to the view's width, says how many nodes are out of view and that Ctrl+0
shows them; Ctrl+0 (Frame All) zooms out down to FRAME_ALL_MIN_ZOOM, and if even that is
not enough the hint says so instead of offering Ctrl+0 again), Tab asks for
the quick-add box, Esc cancels a wire being drawn, and palette blocks can be dropped on it.

Keyboard: the arrow keys move the selected nodes (:data:`NUDGE_STEP`, with Shift
:data:`NUDGE_BIG_STEP`; a run of presses is one undo step), or pan when nothing is
selected; Ctrl+Tab / Ctrl+Shift+Tab (or ] / [) select the next / previous node in reading
order and centre the view on it (``select_next_action``, ``select_previous_action``).
:data:`KEYBOARD_HELP` lists these for the shortcuts dialog.

An empty canvas says how to start (:attr:`GraphView.empty_hint`, a label over the
viewport, shown exactly while the scene has no node: the scene's ``emptyChanged``). While
the graph is larger than the view, a :class:`~.minimap.Minimap` sits in a corner (see there
which). The background and grid take the theme's canvas colours.

Signals: ``blockDropped(key, scene_pos)``, ``filesDropped(paths)`` (files dropped from a file
manager), ``quickAddRequested(scene_pos)``, ``contextMenuRequested(scene_pos, global_pos)``.
"""
from __future__ import annotations

import math

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.ui.blocks import MIME_TYPE

from . import style
from .minimap import Minimap
from .node_item import NodeItem

MIN_ZOOM, MAX_ZOOM = 0.15, 3.0
# Frame All (an overview of the graph's shape) may zoom out further than the wheel: on a
# projector (QT_SCALE_FACTOR=1.5, 1280x720) the ScatterElements example needs ~0.12 with the
# palette closed. The wheel then zooms in from there and never out below it.
FRAME_ALL_MIN_ZOOM = 0.06
READABLE_ZOOM = 0.55   # framing never zooms out further: below it the 9.5 pt node titles are under 7 px
FRAME_MARGIN = 40.0    # scene units kept around framed nodes
#: From this zoom on, the nodes a paint shows get their port items (below it a port is under
#: 1.5 screen pixels across: its node's rows show where ports are, and the pointer entering a
#: node makes them); see ``NodeItem.ports``.
PORTS_ZOOM = 0.14
NUDGE_STEP, NUDGE_BIG_STEP = 10.0, 50.0   # scene units per arrow-key press (Shift: big)
NUDGE_BURST_MS = 1000  # arrow presses closer together than this are one undo step

#: (keys, what) of the canvas keys that have no menu action, for Help > Keyboard Shortcuts.
KEYBOARD_HELP = (
    ("Arrow keys (Shift: larger step)", "Move the selected nodes (nothing selected: pan)"),
    ("Ctrl+Tab / Ctrl+Shift+Tab, or ] / [", "Select the next / previous node and centre it"),
    ("Esc (while drawing a wire)", "Cancel the wire"),
)


class GraphView(QtWidgets.QGraphicsView):
    blockDropped = QtCore.Signal(str, QtCore.QPointF)
    filesDropped = QtCore.Signal(list)     # local file paths dropped from a file manager
    quickAddRequested = QtCore.Signal(QtCore.QPointF)
    contextMenuRequested = QtCore.Signal(QtCore.QPointF, QtCore.QPoint)   # scene pos, global pos

    def __init__(self, scene: QtWidgets.QGraphicsScene, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.setRenderHints(QtGui.QPainter.RenderHint.Antialiasing | QtGui.QPainter.RenderHint.TextAntialiasing)
        self.setViewportUpdateMode(QtWidgets.QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        # the top-left stays put when the canvas is resized (the Explainer opening below it)
        self.setResizeAnchor(QtWidgets.QGraphicsView.ViewportAnchor.NoAnchor)
        self.setDragMode(QtWidgets.QGraphicsView.DragMode.RubberBandDrag)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSceneRect(-50000, -50000, 100000, 100000)
        self.setAcceptDrops(True)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self._space = False
        self._pan_from: QtCore.QPoint | None = None
        self._nudge_clock = QtCore.QElapsedTimer()
        self._nudge_burst = 0
        self._nudge_nodes: list[str] = []
        # shown after framing a graph too big to fit readably: what is out of view, and how to see it
        self.overflow_hint = QtWidgets.QLabel(self.viewport())
        self.overflow_hint.setObjectName("overflowHint")
        self.overflow_hint.setStyleSheet("#overflowHint { background: rgba(29, 35, 48, 215); color: #ffffff;"
                                         " border-radius: 5px; padding: 5px 9px; }")
        self.overflow_hint.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.overflow_hint.setWordWrap(True)   # a narrow canvas (projector) wraps it, never cuts it
        self.overflow_hint.hide()
        # a child of the view, over the viewport (the viewport's own children move when it scrolls)
        self.empty_hint = QtWidgets.QLabel(self.EMPTY_HINT, self)
        self.empty_hint.setObjectName("emptyHint")
        self.empty_hint.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        font = QtGui.QFont(self.font())
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.empty_hint.setFont(font)
        self.restyle()
        self.minimap = Minimap(self)
        scene.changed.connect(lambda _regions: self.minimap.refresh())
        if hasattr(scene, "emptyChanged"):
            scene.emptyChanged.connect(self.set_empty_hint)
        self.set_empty_hint(not any(True for _ in getattr(scene, "node_items", list)()))
        self.select_next_action = self._key_action("Select &Next Node", lambda: self.select_next(1),
                                                   ("Ctrl+Tab", "]"))
        self.select_previous_action = self._key_action("Select &Previous Node", lambda: self.select_next(-1),
                                                       ("Ctrl+Shift+Tab", "Ctrl+Shift+Backtab", "["))

    def _key_action(self, text: str, slot, keys) -> QtGui.QAction:
        """An action of the view (only while the canvas itself has the focus, so text fields
        over it, like the quick-add box, keep their keys)."""
        action = QtGui.QAction(text, self)
        action.setShortcuts([QtGui.QKeySequence(k) for k in keys])
        action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetShortcut)
        action.triggered.connect(slot)
        self.addAction(action)
        return action

    # ------------------------------------------------------------------ keyboard selection and moves
    def select_next(self, step: int = 1) -> str | None:
        """Select the next (previous, ``step`` -1) node in reading order and centre on it."""
        nid = self.scene().select_next(step)
        if nid is not None:
            self.centerOn(self.scene().node_item(nid).sceneBoundingRect().center())
        return nid

    def nudge(self, dx: float, dy: float) -> bool:
        """Move the selected nodes by (dx, dy) scene units; presses less than
        :data:`NUDGE_BURST_MS` apart on the same nodes share one undo step."""
        scene = self.scene()
        ids = scene.selected_node_ids()
        if not ids:
            return False
        if ids != self._nudge_nodes or not self._nudge_clock.isValid() \
                or self._nudge_clock.elapsed() > NUDGE_BURST_MS:
            self._nudge_burst += 1
            self._nudge_nodes = ids
        self._nudge_clock.start()
        scene.nudge_selection(dx, dy, self._nudge_burst)
        rect = scene.nodes_rect(set(ids))
        self.ensureVisible(rect, 20, 20)
        return True

    # ------------------------------------------------------------------ zoom and framing
    @property
    def zoom(self) -> float:
        return self.transform().m11()

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(steps, event.position().toPoint())   # the point under the cursor stays
        event.accept()

    def zoom_by(self, steps: float, anchor: QtCore.QPoint | None = None) -> None:
        """Zoom by 1.15 to the power ``steps`` (a wheel notch is one; View > Zoom In / Out,
        Ctrl++ / Ctrl+-, one each), within :data:`MIN_ZOOM`..:data:`MAX_ZOOM`, keeping the scene
        point at ``anchor`` (viewport coordinates; default: the middle) where it is."""
        factor = 1.15 ** steps
        self.hide_overflow_hint()
        # below MIN_ZOOM only after Frame All: from there the wheel zooms in, not further out
        new = min(MAX_ZOOM, max(min(MIN_ZOOM, self.zoom), self.zoom * factor))
        factor = new / self.zoom
        anchor_view = self.viewport().rect().center() if anchor is None else anchor
        anchor_scene = self.mapToScene(anchor_view)
        self.scale(factor, factor)
        delta = self.mapToScene(anchor_view) - anchor_scene
        self.translate_scene(delta)
        self.minimap.refresh()

    def translate_scene(self, delta: QtCore.QPointF) -> None:
        """Move the view so that scene content shifts by ``delta`` (scene units)."""
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        h.setValue(h.value() - round(delta.x() * self.zoom))
        v.setValue(v.value() - round(delta.y() * self.transform().m22()))

    def frame(self, selection_only: bool = True, readable: bool = True) -> None:
        """Fit the selection (or everything when nothing is selected, or ``selection_only``
        is False) in the view, at most at 1.25x.

        With ``readable`` (opening a file, F), when fitting would need a zoom below
        :data:`READABLE_ZOOM` (a tall or wide graph), the view zooms to :data:`READABLE_ZOOM`
        instead and puts the left edge of the framed nodes' bounding box, and the top of the
        nodes in its leftmost view-width, at the view's top-left (a :data:`FRAME_MARGIN`
        inside), so nodes stay readable, reading starts where the graph starts (not in the
        empty corner of a layered graph whose first columns start lower down), and the rest is
        a pan (middle button, Space+drag) away. Without it
        (View > Frame All, Ctrl+0: an overview) everything fits, down to
        :data:`FRAME_ALL_MIN_ZOOM`; what does not fit even then is named by the hint, which
        then does not offer Ctrl+0 again.
        """
        scene = self.scene()
        ids = scene.selected_node_ids() if selection_only else []
        rect = scene.nodes_rect(set(ids) if ids else None)
        if rect.isNull():
            return
        rect = rect.adjusted(-FRAME_MARGIN, -FRAME_MARGIN, FRAME_MARGIN, FRAME_MARGIN)
        self.resetTransform()
        view = self.viewport().rect()
        s = min(view.width() / rect.width(), view.height() / rect.height(), 1.25)
        s = max(READABLE_ZOOM if readable else FRAME_ALL_MIN_ZOOM, s)
        self.scale(s, s)
        if s > READABLE_ZOOM or not readable:
            self.centerOn(rect.center())
            self.show_overflow_hint(set(ids) if ids else None, overview=not readable)
        else:
            x = rect.left() + view.width() / s / 2
            # the top of the nodes in the leftmost view-width of the box (the box's own top
            # when a node is there): a layered graph's first columns may start lower down
            strip = QtCore.QRectF(rect.left(), rect.top(), view.width() / s, rect.height())
            tops = [box.top() for nid, box, _selected in scene.node_boxes()
                    if box.intersects(strip) and (not ids or nid in ids)]
            top = max(rect.top(), min(tops) - FRAME_MARGIN) if tops else rect.top()
            y = top + view.height() / s / 2
            self.centerOn(QtCore.QPointF(x, y))
            self.show_overflow_hint(set(ids) if ids else None)
        self.minimap.refresh(choose_again=True)

    def show_overflow_hint(self, node_ids=None, overview: bool = False) -> None:
        """After framing: when some of the framed nodes (all when ``node_ids`` is None) are
        not wholly in view, say how many and that Ctrl+0 (View > Frame All) shows them all
        (after Ctrl+0 itself, ``overview``: that they do not fit even at the smallest zoom,
        and how to pan to them); else hide the hint. It goes as soon as the view is panned
        or zoomed."""
        scene = self.scene()
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        m = NodeItem.MARGIN      # a node's body, inside its bounding box
        boxes = [box for nid, box, _selected in scene.node_boxes(drawn_only=False)
                 if node_ids is None or nid in node_ids]
        hidden = sum(not visible.contains(box.adjusted(m, m, -m, -m)) for box in boxes)
        if not hidden:
            self.hide_overflow_hint()
            return
        if overview:
            text = (f"{hidden} of {len(boxes)} nodes do not fit even at the smallest zoom: "
                    "Space+drag or the arrow keys pan to the rest")
            short = f"{hidden} of {len(boxes)} nodes do not fit even at the smallest zoom · Space+drag pans"
        else:
            text = (f"{hidden} of {len(boxes)} nodes are outside the view: "
                    "Ctrl+0 (View > Frame All) shows them all, Space+drag pans")
            short = f"{hidden} of {len(boxes)} nodes outside the view · Ctrl+0 shows all"
        if self._one_line_width(text) > self._overflow_hint_room():
            text = short       # a narrow canvas (a projector): fewer lines over the nodes
        self.overflow_hint.setText(text)
        self.overflow_hint.show()         # shown first: its style (font, padding) is then in force
        self._place_overflow_hint()
        self.overflow_hint.raise_()

    def hide_overflow_hint(self) -> None:
        hint = getattr(self, "overflow_hint", None)   # None while __init__ sets the scene rect
        if hint is not None:
            hint.hide()

    def _overflow_hint_room(self) -> int:
        """The width the overflow hint may take: the viewport's, less margins and the minimap."""
        minimap = getattr(self, "minimap", None)
        # not under the minimap: room kept unless it is shown in a top corner
        at_top = minimap is not None and minimap.isVisible() and minimap.y() < self.viewport().height() // 2
        beside = minimap.width() + 12 if minimap is not None and minimap.needed() and not at_top else 0
        return max(60, self.viewport().width() - 20 - beside)

    def _one_line_width(self, text: str) -> int:
        """The overflow hint's width with ``text`` on one line (its style in force: shown)."""
        self.overflow_hint.ensurePolished()     # its style sheet's font and padding, also before the first show
        margins = self.overflow_hint.contentsMargins()
        return self.overflow_hint.fontMetrics().horizontalAdvance(text) + margins.left() + margins.right() + 4

    def _place_overflow_hint(self) -> None:
        """Bottom-left of the viewport, as wide as its text on one line or the viewport
        allows (then wrapped, as tall as the wrapped text needs)."""
        hint, area = self.overflow_hint, self.viewport().rect()
        width = min(self._overflow_hint_room(), self._one_line_width(hint.text()))
        hint.setFixedWidth(width)   # first: QLabel measures its wrapped height at its own width
        hint.setFixedHeight(hint.heightForWidth(width))
        hint.move(10, max(0, area.height() - hint.height() - 10))

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if getattr(self, "overflow_hint", None) is not None and self.overflow_hint.isVisible():
            self._place_overflow_hint()
        if getattr(self, "minimap", None) is not None:
            self.empty_hint.setGeometry(self.viewport().geometry())
            self.minimap.refresh()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        if dx or dy:
            self.hide_overflow_hint()   # panned: the hint described the framing, not this
        if getattr(self, "minimap", None) is not None:
            self.minimap.refresh()

    def set_empty_hint(self, empty: bool) -> None:
        """Show the empty-canvas hint exactly while the graph has no node."""
        self.empty_hint.setGeometry(self.viewport().geometry())
        self.empty_hint.setVisible(empty)

    def restyle(self) -> None:
        """Take the theme's canvas colours (after a theme change): background, grid, hint."""
        colours = style.canvas_colours()
        self.empty_hint.setStyleSheet(f"#emptyHint {{ color: {colours.hint_text.name()}; background: transparent; }}")
        self.resetCachedContent()
        self.viewport().update()
        if getattr(self, "minimap", None) is not None:
            self.minimap.update()

    # ------------------------------------------------------------------ panning
    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.button() == QtCore.Qt.MouseButton.MiddleButton or (
                self._space and event.button() == QtCore.Qt.MouseButton.LeftButton):
            self._pan_from = event.position().toPoint()
            self.viewport().setCursor(QtCore.Qt.CursorShape.ClosedHandCursor)
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        if self._pan_from is not None:
            now = event.position().toPoint()
            step = now - self._pan_from
            self._pan_from = now
            h, v = self.horizontalScrollBar(), self.verticalScrollBar()
            h.setValue(h.value() - step.x())
            v.setValue(v.value() - step.y())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:
        if self._pan_from is not None:
            self._pan_from = None
            self.viewport().setCursor(QtCore.Qt.CursorShape.OpenHandCursor if self._space
                                      else QtCore.Qt.CursorShape.ArrowCursor)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    # ------------------------------------------------------------------ keys
    def event(self, event: QtCore.QEvent) -> bool:
        # Esc while a wire is drawn cancels the wire, not a run (Esc is Run > Cancel Run)
        if (event.type() == QtCore.QEvent.Type.ShortcutOverride and event.key() == QtCore.Qt.Key.Key_Escape
                and getattr(self.scene(), "drawing_wire", False)):
            event.accept()
            return True
        # Tab would move the focus; on the canvas it opens the quick-add box
        if event.type() == QtCore.QEvent.Type.KeyPress and event.key() == QtCore.Qt.Key.Key_Tab \
                and not event.modifiers() & (QtCore.Qt.KeyboardModifier.ControlModifier
                                             | QtCore.Qt.KeyboardModifier.AltModifier
                                             | QtCore.Qt.KeyboardModifier.MetaModifier):
            self.quickAddRequested.emit(self.cursor_scene_pos())
            return True
        return super().event(event)

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        key = event.key()
        if key == QtCore.Qt.Key.Key_Escape and getattr(self.scene(), "drawing_wire", False):
            self.scene().cancel_wire()
            return
        if key == QtCore.Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(QtCore.Qt.CursorShape.OpenHandCursor)
            return
        arrows = {QtCore.Qt.Key.Key_Left: (-1, 0), QtCore.Qt.Key.Key_Right: (1, 0),
                  QtCore.Qt.Key.Key_Up: (0, -1), QtCore.Qt.Key.Key_Down: (0, 1)}
        mods = event.modifiers() & ~QtCore.Qt.KeyboardModifier.KeypadModifier
        if key in arrows and mods in (QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.KeyboardModifier.ShiftModifier):
            step = NUDGE_BIG_STEP if mods else NUDGE_STEP
            dx, dy = arrows[key]
            if self.nudge(dx * step, dy * step):
                return          # else (nothing selected) the default scrolls: a pan
        if key == QtCore.Qt.Key.Key_F and not event.modifiers():
            self.frame(selection_only=True)
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QtGui.QKeyEvent) -> None:
        if event.key() == QtCore.Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            self.viewport().setCursor(QtCore.Qt.CursorShape.ArrowCursor)
            return
        super().keyReleaseEvent(event)

    def viewportEvent(self, event: QtCore.QEvent) -> bool:
        kind = event.type()
        if kind in (QtCore.QEvent.Type.MouseMove, QtCore.QEvent.Type.HoverMove, QtCore.QEvent.Type.Enter):
            if hasattr(event, "position"):
                self._hover_pos = event.position().toPoint()
        elif kind == QtCore.QEvent.Type.Leave:
            self._hover_pos = None
        return super().viewportEvent(event)

    def cursor_inside(self) -> bool:
        """Whether the mouse pointer is over the canvas (from the last mouse events)."""
        return getattr(self, "_hover_pos", None) is not None

    def cursor_scene_pos(self) -> QtCore.QPointF:
        """The scene point under the mouse, or the view centre when the mouse is elsewhere."""
        pos = getattr(self, "_hover_pos", None)
        if pos is None or not self.viewport().rect().contains(pos):
            pos = self.viewport().rect().center()
        return self.mapToScene(pos)

    def centre_scene_pos(self) -> QtCore.QPointF:
        return self.mapToScene(self.viewport().rect().center())

    def contextMenuEvent(self, event: QtGui.QContextMenuEvent) -> None:
        if event.reason() == QtGui.QContextMenuEvent.Reason.Keyboard:   # the Menu key, Shift+F10
            selected = [i for i in self.scene().selectedItems() if i.parentItem() is None]
            if selected:   # the menu of the selected node (or frame), at it, not at the view's corner
                rect = selected[0].sceneBoundingRect()
                scene_pos = QtCore.QPointF(rect.center().x(), rect.top() + min(12.0, rect.height() / 2))
                if not self.viewport().rect().contains(self.mapFromScene(scene_pos)):
                    self.centerOn(scene_pos)
                global_pos = self.viewport().mapToGlobal(self.mapFromScene(scene_pos))
                self.contextMenuRequested.emit(scene_pos, global_pos)
                event.accept()
                return
        scene_pos = self.mapToScene(event.pos())
        item = self.itemAt(event.pos())
        # right-click on an unselected node selects it first, like other editors
        while item is not None and item.parentItem() is not None:
            item = item.parentItem()
        if item is not None and item.flags() & QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable \
                and not item.isSelected():
            self.scene().clearSelection()
            item.setSelected(True)
        self.contextMenuRequested.emit(scene_pos, event.globalPos())
        event.accept()

    # ------------------------------------------------------------------ drops from the palette
    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(MIME_TYPE) or _local_files(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QtGui.QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(MIME_TYPE) or _local_files(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        if event.mimeData().hasFormat(MIME_TYPE):
            # another application may send anything under this format: not UTF-8 is an unknown block
            key = bytes(event.mimeData().data(MIME_TYPE)).decode("utf-8", errors="replace")
            self.blockDropped.emit(key, self.mapToScene(event.position().toPoint()))
            event.acceptProposedAction()
        elif _local_files(event.mimeData()):
            paths = _local_files(event.mimeData())
            event.setDropAction(QtCore.Qt.DropAction.CopyAction)   # never a move: the file manager keeps it
            event.accept()
            # opened after the drop returns: its questions and dialogs must not hold the file manager's drag
            QtCore.QTimer.singleShot(0, lambda: self.filesDropped.emit(paths))
        else:
            super().dropEvent(event)

    # ------------------------------------------------------------------ background
    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        # wires below style.OUTLINE_ZOOM are drawn without antialiasing (see there); the
        # hint is read when the paint starts, so it is set before
        smooth = self.zoom >= style.OUTLINE_ZOOM
        if bool(self.renderHints() & QtGui.QPainter.RenderHint.Antialiasing) != smooth:
            self.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, smooth)
        super().paintEvent(event)

    def drawBackground(self, painter: QtGui.QPainter, rect: QtCore.QRectF) -> None:
        scene = self.scene()
        if hasattr(scene, "make_items"):
            scene.make_items(rect)       # the nodes and wires about to be drawn get their items
        if self.zoom >= PORTS_ZOOM and hasattr(scene, "make_ports"):
            scene.make_ports(rect)       # the nodes about to be drawn get their port items
        colours = style.canvas_colours()
        painter.fillRect(rect, colours.background)
        step = style.GRID_STEP
        if self.zoom < 0.5:
            step *= 5
        left = math.floor(rect.left() / step) * step
        top = math.floor(rect.top() / step) * step
        minor, major = [], []
        x = left
        while x < rect.right():
            line = QtCore.QLineF(x, rect.top(), x, rect.bottom())
            (major if round(x / step) % 5 == 0 else minor).append(line)
            x += step
        y = top
        while y < rect.bottom():
            line = QtCore.QLineF(rect.left(), y, rect.right(), y)
            (major if round(y / step) % 5 == 0 else minor).append(line)
            y += step
        painter.setPen(QtGui.QPen(colours.grid_minor, 0))
        painter.drawLines(minor)
        painter.setPen(QtGui.QPen(colours.grid_major, 0))
        painter.drawLines(major)

    #: What an empty canvas says (in the middle of the view, at screen size).
    EMPTY_HINT = ("An empty graph.\nDrag a block from the palette, double-click one, or press Tab here\n"
                  "and type its name (e.g. gather). File > Examples has worked examples.")


def _local_files(mime: QtCore.QMimeData) -> list[str]:
    """The local files a drag carries (a file manager's), as paths."""
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile()] if mime.hasUrls() else []
