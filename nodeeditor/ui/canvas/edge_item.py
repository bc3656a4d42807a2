"""An edge: a cubic curve from an output port to an input port, coloured by the state of
the value it carries. It holds the Edge record it mirrors (its identity)."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from . import style


def curve(a: QtCore.QPointF, b: QtCore.QPointF) -> QtGui.QPainterPath:
    """The S-curve between two points, leaving ``a`` to the right and entering ``b`` from the left."""
    path = QtGui.QPainterPath(a)
    dx = max(40.0, abs(b.x() - a.x()) * 0.5)
    path.cubicTo(QtCore.QPointF(a.x() + dx, a.y()), QtCore.QPointF(b.x() - dx, b.y()), b)
    return path


class EdgeItem(QtWidgets.QGraphicsPathItem):
    def __init__(self, edge) -> None:
        super().__init__()
        self.edge = edge
        self.state = style.OK
        self.setZValue(-1)
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self._hover = False
        self.set_state(style.OK)

    def set_ends(self, a: QtCore.QPointF, b: QtCore.QPointF) -> None:
        self.setPath(curve(a, b))

    def set_state(self, state: str) -> None:
        self.state = state
        colour = style.EDGE_COLOURS.get(state, style.EDGE_COLOURS[style.OK])
        pen = QtGui.QPen(colour, 2.2)
        if state in (style.BLOCKED, style.STALE):
            pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        self.setPen(pen)

    def shape(self) -> QtGui.QPainterPath:
        stroker = QtGui.QPainterPathStroker()
        stroker.setWidth(12)
        return stroker.createStroke(self.path())

    def hoverEnterEvent(self, event) -> None:
        self._hover = True
        self.update()

    def hoverLeaveEvent(self, event) -> None:
        self._hover = False
        self.update()

    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        pen = QtGui.QPen(self.pen())
        if self.isSelected():
            pen.setColor(style.SELECTION)
            pen.setWidthF(3.2)
        elif self._hover:
            pen.setWidthF(3.0)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setPen(pen)
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        painter.drawPath(self.path())


class DraftEdgeItem(QtWidgets.QGraphicsPathItem):
    """The wire that follows the mouse while a connection is being drawn."""

    def __init__(self) -> None:
        super().__init__()
        pen = QtGui.QPen(style.SELECTION, 2.0)
        pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        self.setPen(pen)
        self.setZValue(5)

    def set_ends(self, a: QtCore.QPointF, b: QtCore.QPointF) -> None:
        self.setPath(curve(a, b))

    def set_refused(self, reason: str | None) -> None:
        """Red with the reason as tooltip over a port that would refuse the wire."""
        pen = QtGui.QPen(style.STATE_COLOURS[style.ERROR] if reason else style.SELECTION, 2.0)
        pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        self.setPen(pen)
        self.refusal = reason
