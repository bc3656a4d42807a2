"""An edge: a cubic curve from an output port to an input port, through the edge's reroute
points when it has any (``Graph.route``), coloured by the element type it carries
(``style.family_colour``), or by the problem of the node it comes from (error, blocked); in
the canvas's training mode a wire that carries a gradient has a halo (``style.GRADIENT_COLOUR``). It
holds the Edge record it mirrors (its identity); each reroute point is a
:class:`RerouteItem` child, dragged like a node (the scene turns the drag into an undoable
route change).

A wire drawn plainly (not selected, hovered or haloed) is painted by Qt's own
``QGraphicsPathItem.paint`` (its pen, no brush): a Python ``paint`` costs a call into Python
per wire per frame, most of a pan over thousands of wires. :meth:`EdgeItem.mark` gives the
others :meth:`EdgeItem.paint_marked`; the scene calls it when the selection changes."""
from __future__ import annotations

from collections.abc import Sequence

from PySide6 import QtCore, QtGui, QtWidgets

from . import style

REROUTE_RADIUS = 5.0
HIT_WIDTH = 12.0   # scene units around the curve that a click or hover hits (wider than the drawn pen)
_SELECTABLE = QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
_UNKNOWN = style.DtypeFamily.UNKNOWN
#: (state, family) -> the wire's pen: wires drawn alike share one
_PENS: dict[tuple, QtGui.QPen] = {}


def wire_pen(state: str, family: style.DtypeFamily) -> QtGui.QPen:
    """The pen of a wire from a node in ``state`` carrying an element type of ``family``."""
    pen = _PENS.get((state, family))
    if pen is None:
        if state in (style.ERROR, style.BLOCKED) or family is _UNKNOWN:
            colour = style.EDGE_COLOURS.get(state, style.EDGE_COLOURS[style.OK])
        else:
            colour = style.FAMILY_COLOURS[family][0]
        pen = QtGui.QPen(colour, 2.2)
        if state in (style.BLOCKED, style.STALE):
            pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        _PENS[(state, family)] = pen
    return pen


def curve(a: QtCore.QPointF, b: QtCore.QPointF) -> QtGui.QPainterPath:
    """The S-curve between two points, leaving ``a`` to the right and entering ``b`` from the left."""
    path = QtGui.QPainterPath(a)
    dx = max(40.0, abs(b.x() - a.x()) * 0.5)
    path.cubicTo(QtCore.QPointF(a.x() + dx, a.y()), QtCore.QPointF(b.x() - dx, b.y()), b)
    return path


def routed_curve(points: Sequence[QtCore.QPointF]) -> QtGui.QPainterPath:
    """S-curves from each point to the next (a wire through its reroute points)."""
    path = QtGui.QPainterPath(points[0])
    for a, b in zip(points, points[1:], strict=False):
        dx = max(20.0, abs(b.x() - a.x()) * 0.5)
        path.cubicTo(QtCore.QPointF(a.x() + dx, a.y()), QtCore.QPointF(b.x() - dx, b.y()), b)
    return path


def insertion_index(points: Sequence[tuple[float, float]], at: tuple[float, float]) -> int:
    """Where a new point ``at`` goes among ``points`` (the wire's ends first and last): before
    the point that ends the leg it lengthens least, so a click on the wire splits that leg."""
    def dist(p, q):
        return ((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5

    costs = [dist(a, at) + dist(at, b) - dist(a, b) for a, b in zip(points, points[1:], strict=False)]
    return costs.index(min(costs)) + 1


class RerouteItem(QtWidgets.QGraphicsEllipseItem):
    """One reroute point of an edge; ``index`` is its place in the edge's route."""

    def __init__(self, edge_item: EdgeItem, index: int, pos: tuple[float, float]) -> None:
        r = REROUTE_RADIUS
        super().__init__(-r, -r, 2 * r, 2 * r, edge_item)
        self.edge_item, self.index = edge_item, index
        self.setPos(*pos)
        self.setZValue(3)
        self.setFlags(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setCursor(QtCore.Qt.CursorShape.SizeAllCursor)
        self.setToolTip("reroute point: drag to move, double-click to remove")
        self.setAcceptHoverEvents(True)

    def itemChange(self, change, value):
        if change == QtWidgets.QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            self.edge_item.redraw()
        return super().itemChange(change, value)

    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setPen(QtGui.QPen(style.canvas_colours().node_body, 1.5))
        painter.setBrush(self.edge_item.pen().color())
        painter.drawEllipse(self.rect())


class EdgeItem(QtWidgets.QGraphicsPathItem):
    def __init__(self, edge, state: str = style.OK, family: style.DtypeFamily = _UNKNOWN) -> None:
        """``state`` and ``family``: as :meth:`set_state` (given here, the pen is set once)."""
        super().__init__()
        self.edge = edge
        self.state = state
        self.family = family
        self.setZValue(-1)
        self.setFlag(_SELECTABLE)
        self.setAcceptHoverEvents(True)
        self._hover = False
        #: carries a gradient back towards a trainable source (drawn only in training mode)
        self.gradient = False
        self._ends = (QtCore.QPointF(), QtCore.QPointF())
        self.reroutes: list[RerouteItem] = []
        self._style_key: tuple | None = None
        #: the path's control-point rectangle with the hit margin (QGraphicsPathItem would
        #: stroke ``shape()`` for it on every path or pen change: the cost of opening a large graph)
        self._bounds = QtCore.QRectF()
        self.set_state(state)

    def set_ends(self, a: QtCore.QPointF, b: QtCore.QPointF) -> None:
        self._ends = (QtCore.QPointF(a), QtCore.QPointF(b))
        self.redraw()

    def set_route(self, points: Sequence[tuple[float, float]]) -> None:
        """Show the edge's reroute points (scene coordinates), in order."""
        if not points and not self.reroutes:
            return                       # nothing was routed and nothing is: the curve stays
        scene = self.scene()
        for item in self.reroutes:
            item.setParentItem(None)
            if scene is not None:
                scene.removeItem(item)
        self.reroutes = [RerouteItem(self, i, p) for i, p in enumerate(points)]
        self.redraw()

    def route_points(self) -> list[tuple[float, float]]:
        """Where the reroute points are drawn now (after a drag, before the document has it)."""
        return [(item.pos().x(), item.pos().y()) for item in self.reroutes]

    def redraw(self) -> None:
        a, b = self._ends
        if self.reroutes:
            path = routed_curve([a] + [item.pos() for item in self.reroutes] + [b])
        else:
            path = curve(a, b)
        self.prepareGeometryChange()     # the scene's index drops the old bounds before they change
        self._bounds = path.controlPointRect().adjusted(-HIT_WIDTH / 2, -HIT_WIDTH / 2, HIT_WIDTH / 2, HIT_WIDTH / 2)
        self.setPath(path)

    def set_state(self, state: str, family: style.DtypeFamily | None = None) -> None:
        """The state of the node the wire comes from and, when known, the family of the
        element type it carries."""
        self.state = state
        if family is not None:
            self.family = family
        if self._style_key == (state, self.family):
            return
        self._style_key = (state, self.family)
        self.setPen(wire_pen(state, self.family))
        for item in self.reroutes:
            item.update()

    def set_gradient(self, on: bool) -> None:
        """Draw (or stop drawing) the gradient halo."""
        if on != self.gradient:
            self.prepareGeometryChange()
            self.gradient = on
            self.mark()

    def boundingRect(self) -> QtCore.QRectF:
        margin = style.GRADIENT_WIDTH / 2 + 1 if self.gradient else 0.0
        return self._bounds.adjusted(-margin, -margin, margin, margin)

    def shape(self) -> QtGui.QPainterPath:
        stroker = QtGui.QPainterPathStroker()
        stroker.setWidth(HIT_WIDTH)
        return stroker.createStroke(self.path())

    def hoverEnterEvent(self, event) -> None:
        self._hover = True
        self.mark()

    def hoverLeaveEvent(self, event) -> None:
        self._hover = False
        self.mark()

    @property
    def marked(self) -> bool:
        """Whether the wire is drawn by :meth:`paint_marked` (selected, hovered or haloed)."""
        return "paint" in self.__dict__

    def mark(self) -> None:
        """Draw the wire with :meth:`paint_marked` while it is selected, hovered or haloed,
        else with Qt's own paint (see the module docstring); and redraw it."""
        wanted = self.isSelected() or self._hover or self.gradient
        if wanted and not self.marked:
            self.paint = self.paint_marked
        elif not wanted and self.marked:
            del self.paint
        self.update()

    def paint_marked(self, painter: QtGui.QPainter, option, widget=None) -> None:
        pen = QtGui.QPen(self.pen())
        if self.isSelected():
            pen.setColor(style.SELECTION)
            pen.setWidthF(3.2)
        elif self._hover:
            pen.setWidthF(3.0)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        if self.gradient:
            halo = QtGui.QPen(style.GRADIENT_COLOUR, style.GRADIENT_WIDTH)
            halo.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
            painter.setPen(halo)
            painter.drawPath(self.path())
        painter.setPen(pen)
        painter.drawPath(self.path())


class DraftEdgeItem(QtWidgets.QGraphicsPathItem):
    """The wire that follows the mouse while a connection is being drawn."""

    def __init__(self) -> None:
        super().__init__()
        pen = QtGui.QPen(style.SELECTION, 2.0)
        pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        self.setPen(pen)
        self.setZValue(5)
        self.refusal: str | None = None

    def set_ends(self, a: QtCore.QPointF, b: QtCore.QPointF) -> None:
        self.setPath(curve(a, b))

    def set_refused(self, reason: str | None) -> None:
        """Red over a port that would refuse the wire (the scene shows the reason beside the
        pointer, :class:`WireTip`)."""
        pen = QtGui.QPen(style.STATE_COLOURS[style.ERROR] if reason else style.SELECTION, 2.0)
        pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        self.setPen(pen)
        self.refusal = reason


class WireTip(QtWidgets.QGraphicsItem):
    """While a wire is drawn over a port that refuses it: the reason, in a small box beside the
    pointer, at screen size whatever the zoom."""

    MAX_WIDTH = 340
    OFFSET = QtCore.QPointF(16, 14)   # screen pixels right of and below the pointer

    def __init__(self) -> None:
        super().__init__()
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setZValue(50)
        self.text = ""
        self._rect = QtCore.QRectF()
        self.hide()

    def _font(self) -> QtGui.QFont:
        font = QtWidgets.QApplication.font()
        font.setPointSizeF(max(8.5, font.pointSizeF() * 0.95))
        return font

    def show_reason(self, reason: str, scene_pos: QtCore.QPointF) -> None:
        """Show ``reason`` beside ``scene_pos``."""
        if reason != self.text:
            self.prepareGeometryChange()
            self.text = reason
            metrics = QtGui.QFontMetricsF(self._font())
            flags = int(QtCore.Qt.TextFlag.TextWordWrap)
            box = metrics.boundingRect(QtCore.QRectF(0, 0, self.MAX_WIDTH, 1000), flags, reason)
            self._rect = QtCore.QRectF(self.OFFSET.x(), self.OFFSET.y(), box.width() + 14, box.height() + 10)
        self.setPos(scene_pos)
        self.show()

    def boundingRect(self) -> QtCore.QRectF:
        return self._rect.adjusted(-1, -1, 1, 1)

    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setPen(QtGui.QPen(style.STATE_COLOURS[style.ERROR], 1.2))
        painter.setBrush(QtGui.QColor("#fff4f4") if style.canvas_colours() is style.LIGHT else QtGui.QColor("#3a2628"))
        painter.drawRoundedRect(self._rect, 5, 5)
        painter.setFont(self._font())
        painter.setPen(style.canvas_colours().node_text)
        painter.drawText(self._rect.adjusted(7, 5, -7, -5),
                         int(QtCore.Qt.TextFlag.TextWordWrap) | int(QtCore.Qt.AlignmentFlag.AlignLeft), self.text)
