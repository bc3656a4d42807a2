"""A port: the small circle on a node's edge. It knows which node and port it stands for
(its identity) and nothing else; names and types are drawn by the node from the graph."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from . import style


class PortItem(QtWidgets.QGraphicsEllipseItem):
    def __init__(self, parent: QtWidgets.QGraphicsItem, node_id: str, port: str, is_output: bool) -> None:
        r = style.PORT_RADIUS
        super().__init__(-r, -r, 2 * r, 2 * r, parent)
        self.node_id, self.port, self.is_output = node_id, port, is_output
        self.setBrush(QtGui.QBrush(QtGui.QColor("#ffffff")))
        self.setPen(QtGui.QPen(QtGui.QColor("#4a5162"), 1.6))
        self.setAcceptHoverEvents(True)
        self.setCursor(QtCore.Qt.CursorShape.CrossCursor)
        self.setZValue(2)

    def key(self) -> tuple[str, str, bool]:
        return self.node_id, self.port, self.is_output

    def shape(self) -> QtGui.QPainterPath:  # a larger target than the drawn circle
        path = QtGui.QPainterPath()
        r = style.PORT_RADIUS + 5
        path.addEllipse(QtCore.QPointF(0, 0), r, r)
        return path

    def boundingRect(self) -> QtCore.QRectF:
        r = style.PORT_RADIUS + 5
        return QtCore.QRectF(-r, -r, 2 * r, 2 * r)

    def set_connected(self, connected: bool, colour: QtGui.QColor) -> None:
        self.setBrush(QtGui.QBrush(colour if connected else QtGui.QColor("#ffffff")))

    def hoverEnterEvent(self, event) -> None:
        self.setPen(QtGui.QPen(style.SELECTION, 2.4))
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:
        self.setPen(QtGui.QPen(QtGui.QColor("#4a5162"), 1.6))
        super().hoverLeaveEvent(event)
