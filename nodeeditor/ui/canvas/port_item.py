"""A port: the small circle on a node's edge. It knows which node and port it stands for
(its identity) and nothing else; names and types are drawn by the node from the graph.

Its ring has the colour of the element type it carries (an output: its inferred type; an
input: the wire feeding it, else the type its op requires there, e.g. integer indices);
connected, it is filled in that colour (``style.FAMILY_COLOURS``)."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from . import style


class PortItem(QtWidgets.QGraphicsEllipseItem):
    def __init__(self, parent: QtWidgets.QGraphicsItem, node_id: str, port: str, is_output: bool) -> None:
        r = style.PORT_RADIUS
        super().__init__(-r, -r, 2 * r, 2 * r, parent)
        self.node_id, self.port, self.is_output = node_id, port, is_output
        self.connected = False
        self.family = style.DtypeFamily.UNKNOWN
        self._hover = False
        self._style_key: tuple | None = None
        self.setAcceptHoverEvents(True)
        self.setCursor(QtCore.Qt.CursorShape.CrossCursor)
        self.setZValue(2)
        self._restyle()

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

    @property
    def colour(self) -> QtGui.QColor:
        """The colour of the element type this port carries."""
        return style.FAMILY_COLOURS[self.family][0]

    def set_connected(self, connected: bool, family: style.DtypeFamily = style.DtypeFamily.UNKNOWN) -> None:
        """Whether a wire is attached, and the element type's family (ring and fill colour)."""
        self.connected, self.family = connected, family
        self._restyle()

    def _restyle(self) -> None:
        colours = style.canvas_colours()
        key = (self.connected, self.family, self._hover, id(colours))   # the theme's table, by identity
        if key == self._style_key:
            return                       # already drawn so (a refresh restyles every port)
        self._style_key = key
        self.setBrush(QtGui.QBrush(self.colour if self.connected else colours.node_body))
        ring = style.SELECTION if self._hover else (self.colour if self.family is not style.DtypeFamily.UNKNOWN
                                                    else colours.port_ring)
        self.setPen(QtGui.QPen(ring, 2.4 if self._hover else 1.8))

    def hoverEnterEvent(self, event) -> None:
        self._hover = True
        self._restyle()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:
        self._hover = False
        self._restyle()
        super().hoverLeaveEvent(event)
