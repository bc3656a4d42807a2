"""A port: the small circle on a node's edge. It knows which node and port it stands for
(its identity) and nothing else; names and types are drawn by the node from the graph.

Its ring has the colour of the element type it carries (an output: its inferred type; an
input: the wire feeding it, else the type its op requires there, e.g. integer indices);
connected, it is filled in that colour (``style.FAMILY_COLOURS``).

Its tooltip is written when asked (:meth:`PortItem.toolTip`, by the scene's ``helpEvent``),
not on every refresh: a model of thousands of nodes opens without writing one. Pens, brushes
and the cursor are shared by every port drawn alike."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from . import style

_UNKNOWN = style.DtypeFamily.UNKNOWN
#: (connected, family, hover, theme table id) -> (brush, pen): ports drawn alike share them
_LOOKS: dict[tuple, tuple[QtGui.QBrush, QtGui.QPen]] = {}
_CURSOR: list[QtGui.QCursor] = []   # one cross cursor for every port (made with the first port)


def _look(key: tuple, colours: style.CanvasColours) -> tuple[QtGui.QBrush, QtGui.QPen]:
    look = _LOOKS.get(key)
    if look is None:
        connected, family, hover, _theme = key
        colour = style.FAMILY_COLOURS[family][0]
        ring = style.SELECTION if hover else (colour if family is not _UNKNOWN else colours.port_ring)
        look = _LOOKS[key] = (QtGui.QBrush(colour if connected else colours.node_body),
                              QtGui.QPen(ring, 2.4 if hover else 1.8))
    return look


class PortItem(QtWidgets.QGraphicsEllipseItem):
    def __init__(self, parent: QtWidgets.QGraphicsItem, node_id: str, port: str, is_output: bool,
                 connected: bool = False, family: style.DtypeFamily = _UNKNOWN) -> None:
        r = style.PORT_RADIUS
        super().__init__(-r, -r, 2 * r, 2 * r, parent)
        self.node_id, self.port, self.is_output = node_id, port, is_output
        self.connected = connected
        self.family = family
        self._hover = False
        self._style_key: tuple | None = None
        self.setAcceptHoverEvents(True)
        if not _CURSOR:
            _CURSOR.append(QtGui.QCursor(QtCore.Qt.CursorShape.CrossCursor))
        self.setCursor(_CURSOR[0])
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

    def toolTip(self) -> str:
        """What the port carries and how to use it (written now, from the scene)."""
        scene = self.scene()
        return scene.port_tooltip(self.node_id, self.port, self.is_output) if scene is not None else ""

    def set_connected(self, connected: bool, family: style.DtypeFamily = _UNKNOWN) -> None:
        """Whether a wire is attached, and the element type's family (ring and fill colour)."""
        self.connected, self.family = connected, family
        self._restyle()

    def _restyle(self) -> None:
        colours = style.canvas_colours()
        key = (self.connected, self.family, self._hover, id(colours))   # the theme's table, by identity
        if key == self._style_key:
            return                       # already drawn so (a refresh restyles every port)
        self._style_key = key
        brush, pen = _look(key, colours)
        self.setBrush(brush)
        self.setPen(pen)

    def hoverEnterEvent(self, event) -> None:
        self._hover = True
        self._restyle()
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:
        self._hover = False
        self._restyle()
        super().hoverLeaveEvent(event)
