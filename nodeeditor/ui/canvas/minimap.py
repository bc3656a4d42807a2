"""The minimap: a small overview in a corner of the canvas, shown while the graph is larger
than the view (and the canvas is large enough to spare the room). It draws every frame and
node as a rectangle and the part of the canvas in view as an outline; a click or a drag on it
centres the view on that point.

Its corner is the first of bottom right, top right, top left and bottom left (not while the
overflow hint is there) where it covers no node or group block; where every corner covers
one, it stays bottom right and is drawn see-through (opaque under the mouse). It keeps its
corner while that stays free, and while a mouse button is held on it, so it does not hop
about while the view pans.

It reads the scene's items and the view's transform whenever it paints and keeps nothing of
its own but an image of the frames, blocks and nodes, drawn again only when the scene's
``drawing_revision`` moves on or the minimap's scale or offset changes.
:meth:`Minimap.refresh` (called by the view after a pan, a zoom or a change of the scene)
decides whether it is shown.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from . import style
from .group_item import GroupItem
from .node_item import NodeItem, category_of

SIZE = QtCore.QSize(200, 136)
#: A canvas narrower or lower than this has no room for the minimap (a projector with the
#: docks open): it stays hidden there.
MIN_CANVAS = QtCore.QSize(2 * SIZE.width() + 40, 2 * SIZE.height() + 40)
CORNER_MARGIN = 12   # pixels between the minimap and the canvas's corner
SEE_THROUGH = 0.45   # the minimap's opacity where it covers a node
PADDING = 8          # pixels inside the minimap around the drawing


class Minimap(QtWidgets.QWidget):
    def __init__(self, view: QtWidgets.QGraphicsView) -> None:
        super().__init__(view)
        self.view = view
        self.setObjectName("minimap")
        self.setFixedSize(SIZE)
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Overview: click or drag to move the view")
        self._picture: QtGui.QImage | None = None
        self._picture_key: tuple | None = None
        #: True while the canvas is presented to a class: no overview covers the nodes then
        self.suppressed = False
        #: True while the minimap covers a node (no corner was free): drawn see-through
        self.covering = False
        self._dragging = False   # a mouse button held on it: it does not change corners then
        self.hide()

    # ------------------------------------------------------------------ geometry
    def _nodes_rect(self) -> QtCore.QRectF:
        scene = self.view.scene()
        rect = scene.nodes_rect()
        for item in scene.frame_items():
            if item.isVisible():
                rect = rect.united(item.box())
        return rect

    def _visible_rect(self) -> QtCore.QRectF:
        return self.view.mapToScene(self.view.viewport().rect()).boundingRect()

    def _world(self) -> QtCore.QRectF:
        """The scene area the minimap shows: the graph and the view."""
        return self._nodes_rect().united(self._visible_rect())

    def _transform(self) -> QtGui.QTransform:
        """Scene -> minimap pixels (the world fitted into the widget, aspect kept, centred)."""
        world = self._world()
        room = QtCore.QRectF(self.rect()).adjusted(PADDING, PADDING, -PADDING, -PADDING)
        s = min(room.width() / max(world.width(), 1.0), room.height() / max(world.height(), 1.0))
        dx = room.left() + (room.width() - world.width() * s) / 2 - world.left() * s
        dy = room.top() + (room.height() - world.height() * s) / 2 - world.top() * s
        return QtGui.QTransform(s, 0, 0, s, dx, dy)

    def needed(self) -> bool:
        """Whether some of the graph is outside the view (and the canvas has room for it)."""
        area = self.view.viewport().size()
        if self.suppressed or area.width() < MIN_CANVAS.width() or area.height() < MIN_CANVAS.height():
            return False
        nodes = self._nodes_rect()
        return not nodes.isNull() and not self._visible_rect().contains(nodes)

    def refresh(self, choose_again: bool = False) -> None:
        """Show (in a corner, see the module docstring; updated) when the graph is larger than
        the view, else hide. ``choose_again`` (after framing): the corner is chosen afresh, in
        order, not kept because it is free."""
        if self.needed():
            corners = self._corners()
            here = self.pos() if self.isVisible() and not choose_again else None
            if here is not None and (self._dragging or here in corners and not self._covers_node(here)):
                pass   # stays: free where it is, or under the mouse (a drag on it moves the view)
            else:
                free = next((c for c in corners if not self._covers_node(c)), None)
                self.covering = free is None
                self.move(corners[0] if free is None else free)
            self.show()
            self.raise_()
            self.update()
        else:
            self.hide()

    def _corners(self) -> list[QtCore.QPoint]:
        """Top-left points of the minimap in the view, in the order it tries them: bottom
        right, top right, top left, then bottom left unless the overflow hint is there."""
        area = self.view.viewport().geometry()
        left, top = area.left() + CORNER_MARGIN, area.top() + CORNER_MARGIN
        right = area.right() - self.width() - CORNER_MARGIN
        bottom = area.bottom() - self.height() - CORNER_MARGIN
        corners = [QtCore.QPoint(right, bottom), QtCore.QPoint(right, top), QtCore.QPoint(left, top)]
        hint = getattr(self.view, "overflow_hint", None)
        if hint is None or not hint.isVisible():
            corners.append(QtCore.QPoint(left, bottom))
        return corners

    def _covers_node(self, corner: QtCore.QPoint) -> bool:
        """Whether the minimap at ``corner`` (view coordinates) would cover a node or a group
        block (the scene's index finds the items under it; frames and wires do not count)."""
        viewport = self.view.viewport().geometry()
        rect = QtCore.QRect(corner - viewport.topLeft(), self.size())
        mode = QtCore.Qt.ItemSelectionMode.IntersectsItemBoundingRect
        under = self.view.scene().items(self.view.mapToScene(rect), mode)
        return any(isinstance(item, (NodeItem, GroupItem)) and item.isVisible() for item in under)

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        colours = style.canvas_colours()
        p = QtGui.QPainter(self)
        if self.covering and not self.underMouse():
            p.setOpacity(SEE_THROUGH)   # over a node: what is under it shows
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        p.setPen(QtGui.QPen(colours.node_border, 1))
        p.setBrush(colours.minimap_back)
        p.drawRoundedRect(QtCore.QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6)
        t = self._transform()
        p.drawImage(0, 0, self._drawing(t))
        p.setPen(QtGui.QPen(colours.node_text, 1.4))
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        p.drawRect(t.mapRect(self._visible_rect()))
        p.end()

    def _drawing(self, t: QtGui.QTransform) -> QtGui.QImage:
        """The frames, group blocks and nodes drawn with ``t`` (drawn again only when the
        scene's drawing or ``t`` changed). Each node is at least a pixel wide."""
        scene = self.view.scene()
        ratio = self.devicePixelRatioF()
        key = (id(scene), scene.drawing_revision, id(style.canvas_colours()), ratio,
               t.m11(), t.m22(), t.dx(), t.dy())
        if self._picture is not None and key == self._picture_key:
            return self._picture
        image = QtGui.QImage((QtCore.QSizeF(self.size()) * ratio).toSize(),
                             QtGui.QImage.Format.Format_ARGB32_Premultiplied)
        image.setDevicePixelRatio(ratio)
        image.fill(QtCore.Qt.GlobalColor.transparent)
        p = QtGui.QPainter(image)
        for item in scene.frame_items():
            if item.isVisible():
                colour = QtGui.QColor(scene.graph.frame(item.frame_id).colour)
                colour.setAlpha(70)
                p.setPen(QtCore.Qt.PenStyle.NoPen)
                p.setBrush(colour)
                p.drawRect(t.mapRect(item.box()))
        for block in scene.groups.items():        # a collapsed group: its block, not its members
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            colour = QtGui.QColor(scene.graph.frame(block.frame_id).colour)
            p.setBrush(style.SELECTION if block.isSelected() else colour)
            p.drawRect(t.mapRect(block.sceneBoundingRect()).adjusted(0, 0, 1, 1))
        by_colour: dict[int, tuple[QtGui.QColor, list[QtCore.QRectF]]] = {}
        graph = scene.graph
        for nid, box, selected in scene.node_boxes():
            colour = style.SELECTION if selected else style.CATEGORY_COLOURS[category_of(graph.node(nid))]
            by_colour.setdefault(id(colour), (colour, []))[1].append(t.mapRect(box).adjusted(0, 0, 1, 1))
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        for colour, rects in by_colour.values():
            p.setBrush(colour)
            p.drawRects(rects)
        p.end()
        self._picture, self._picture_key = image, key
        return image

    # ------------------------------------------------------------------ mouse
    def scene_point(self, pos: QtCore.QPointF) -> QtCore.QPointF:
        """The scene point under minimap pixel ``pos``."""
        inverse, _ok = self._transform().inverted()
        return inverse.map(QtCore.QPointF(pos))

    def enterEvent(self, event: QtCore.QEvent) -> None:
        super().enterEvent(event)
        self.update()      # opaque under the mouse

    def leaveEvent(self, event: QtCore.QEvent) -> None:
        super().leaveEvent(event)
        self.update()

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        self._dragging = True
        self._centre(event.position())
        event.accept()

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:
        self._dragging = False
        self.refresh()     # a corner it covers now is left once the button is up
        event.accept()

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.buttons() & QtCore.Qt.MouseButton.LeftButton:
            self._centre(event.position())
        event.accept()

    def _centre(self, pos: QtCore.QPointF) -> None:
        # the world (and so the mapping) changes as the view moves: map with the press-time
        # transform, then move the view
        self.view.centerOn(self.scene_point(pos))
        self.refresh()
