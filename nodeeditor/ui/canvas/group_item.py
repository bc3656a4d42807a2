"""A collapsed group on the canvas: the block drawn in place of a collapsed
:class:`~nodeeditor.graph.nodes.Frame`'s members (:class:`GroupItem`, one per frame, made and
kept in step by :class:`~.group_layer.GroupLayer`).

The block sits at its members' top-left corner, or where a member is when the corner would
cover other nodes (:meth:`GroupItem.relayout`), and moves with that member (a group keeps no position of its own: the
members' positions are the document's) and has one row per tensor crossing its boundary
(``nodeeditor.graph.grouping.boundary``): inputs first, then outputs. Its output ports are
ordinary :class:`~.port_item.PortItem` of the member they stand for (node id and port), so a
wire drawn from one connects that member's tensor and a click shows it in the viewer. Its
input marks (:class:`InputMark`) are input ports too: each stands for the member inputs that
read its entering tensor (``grouping.readers``), carries the first one's identity (node id and
port), so the scene draws wires to and from it as to that input, and the window's canvas
edits widen a wire dropped on it (or picked up from it) to every reader, in one undo step. A
problem inside (the members' most pressing state) shows on its border, state dot and subtitle.

Dragging the block moves the members (one ``nodesMoved``, one undo step); double-clicking it
asks for it to be expanded (``GroupLayer.expandRequested``). UI thread only; nothing here
changes the graph.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import nodes as N
from nodeeditor.graph.grouping import Boundary, readers, tensor_label
from nodeeditor.graph.status import NodeStatus

from . import style
from .frame_item import report_member_moves
from .node_item import legible_font, screen_scale
from .port_item import PortItem

STACK = 4.0   # scene units between the block and each of the two outlines drawn behind it


def node_item_or_none(scene, node_id: str):
    """The scene's item for ``node_id``, None when it has none (a lookup, not a list scan)."""
    try:
        return scene.node_item(node_id)
    except KeyError:
        return None


class InputMark(PortItem):
    """Where the outside ``tensor`` (node id, output port) enters a group: a connected input
    port standing for ``readers``, the member inputs reading it; its node id and port are the
    first reader's (kept up to date by :meth:`GroupItem.set_ports`)."""

    def __init__(self, parent: QtWidgets.QGraphicsItem, tensor: tuple[str, str]) -> None:
        super().__init__(parent, "", "", False, connected=True)
        self.tensor = tensor
        self.readers: list[tuple[str, str]] = []

    def set_readers(self, readers: list[tuple[str, str]]) -> None:
        self.readers = readers
        if readers:
            self.node_id, self.port = readers[0]

    def toolTip(self) -> str:
        scene = self.scene()
        if scene is None or not self.readers:
            return ""
        graph = scene.graph
        inputs = ", ".join(f"{graph.node(n).label}.{p}" for n, p in self.readers)
        return (f"input <b>{tensor_label(graph, *self.tensor)}</b> of the group, read by {inputs}<br>"
                "drop a wire here to feed every one of them; drag the wire away to disconnect")


class GroupItem(QtWidgets.QGraphicsItem):
    """The block drawn for the collapsed frame ``frame_id``."""

    def __init__(self, frame_id: str) -> None:
        super().__init__()
        self.frame_id = frame_id
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setZValue(0.5)
        self.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)   # as a node: a pan blits it
        self.boundary = Boundary((), ())
        self.inputs: dict[tuple[str, str], InputMark] = {}     # (outside node, port) -> its mark
        self.outputs: dict[tuple[str, str], PortItem] = {}     # (member, port) -> its port
        self._height = style.HEADER_HEIGHT + style.SUBTITLE_HEIGHT + 6
        self._drag_from: QtCore.QPointF | None = None
        self._starts: dict[str, QtCore.QPointF] = {}
        self.dragging = False
        self._anchor: tuple[str, float, float] | None = None   # (member, dx, dy): see relayout

    def graph(self):
        return self.scene().graph

    def frame(self) -> N.Frame:
        return self.graph().frame(self.frame_id)

    # ------------------------------------------------------------------ ports and geometry
    def set_ports(self, bound: Boundary) -> None:
        """One row per boundary tensor: the inputs, then the outputs."""
        graph = self.graph()
        if bound != self.boundary:
            for item in [*self.inputs.values(), *self.outputs.values()]:
                item.setParentItem(None)
                if item.scene() is not None:
                    item.scene().removeItem(item)
            self.boundary = bound
            self.inputs = {key: InputMark(self, key) for key in bound.inputs}
            self.outputs = {key: PortItem(self, key[0], key[1], True) for key in bound.outputs}
            y = style.HEADER_HEIGHT + style.SUBTITLE_HEIGHT + style.ROW_HEIGHT / 2
            for mark in self.inputs.values():
                mark.setPos(0.0, y)
                y += style.ROW_HEIGHT
            for port in self.outputs.values():
                port.setPos(style.NODE_WIDTH, y)
                y += style.ROW_HEIGHT
            self.prepareGeometryChange()
            self._height = y - style.ROW_HEIGHT / 2 + 6 if (self.inputs or self.outputs) \
                else style.HEADER_HEIGHT + style.SUBTITLE_HEIGHT + 6
        members = self.frame().nodes
        for key, mark in self.inputs.items():
            mark.set_readers(readers(graph, members, key))
            mark.set_connected(True, self._family(graph, *key))
        for key, port in self.outputs.items():
            port.set_connected(True, self._family(graph, *key))
            port.setToolTip(f"output <b>{tensor_label(graph, *key)}</b> of {graph.node(key[0]).label}: "
                            f"{self._type_text(graph, *key)}<br>drag to an input to connect; click to view")
        self.setToolTip(f"<b>{self.frame().title}</b> — a group of {len(members)} nodes: "
                        + ", ".join(graph.node(n).label for n in members[:12] if graph.has_node(n))
                        + (", …" if len(members) > 12 else "") + "<br>double-click (or Ctrl+Shift+G) to expand")
        self.update()

    @staticmethod
    def _family(graph, node_id: str, port: str) -> style.DtypeFamily:
        ttype = graph.node_info(node_id).outputs.get(port) if graph.has_node(node_id) else None
        return style.dtype_family(ttype.dtype if ttype is not None else None)

    @staticmethod
    def _type_text(graph, node_id: str, port: str) -> str:
        ttype = graph.node_info(node_id).outputs.get(port) if graph.has_node(node_id) else None
        return str(ttype) if ttype is not None else "?"

    def relayout(self) -> None:
        """Put the block where it was anchored (see :meth:`_anchor_to`), following that member;
        hidden when the group has no member on the canvas."""
        scene = self.scene()
        members = [m for m in (node_item_or_none(scene, n) for n in self.frame().nodes) if m is not None]
        self.setVisible(bool(members))
        if not members:
            return
        if self._anchor is None or self._anchor[0] not in self.frame().nodes \
                or node_item_or_none(scene, self._anchor[0]) is None:
            self._anchor = self._anchor_to(members)
        node_id, dx, dy = self._anchor
        at = scene.node_item(node_id).pos()
        if (self.pos().x(), self.pos().y()) != (at.x() + dx, at.y() + dy):
            self.setPos(at.x() + dx, at.y() + dy)

    def _anchor_to(self, members) -> tuple[str, float, float]:
        """Where the block goes, as (member, offset from it): of the members' top-left corner
        and each member's place (in member order), the first where the block covers no other
        node or block, else the one where it covers the least. Chosen once (when the group is
        drawn), then the block moves with that member: a drag never makes it jump."""
        left = min(m.pos().x() for m in members)
        top = min(m.pos().y() for m in members)
        first = members[0]
        candidates = [(first.node_id, left - first.pos().x(), top - first.pos().y())]
        candidates += [(m.node_id, 0.0, 0.0) for m in members]
        size = self.shape().boundingRect().size()
        best, least = candidates[0], None
        for node_id, dx, dy in candidates:
            at = self.scene().node_item(node_id).pos()
            covered = self.scene().groups.covered(QtCore.QRectF(QtCore.QPointF(at.x() + dx, at.y() + dy), size),
                                                  self.frame_id)
            if covered == 0.0:
                return node_id, dx, dy
            if least is None or covered < least:
                best, least = (node_id, dx, dy), covered
        return best

    def state(self) -> NodeStatus:
        """The most pressing state among the members (error, then blocked, warning, running):
        a problem inside a collapsed group shows on its border and in its subtitle."""
        return self.problem()[0]

    def problem(self) -> tuple[NodeStatus, str]:
        """(state, "member: message") of the member with the most pressing state; (OK, "")."""
        scene = self.scene()
        states = {n: scene.node_state(n) for n in self.frame().nodes if scene.graph.has_node(n)}
        for state in (style.ERROR, style.BLOCKED, style.WARNING, style.RUNNING):
            for nid, (s, message) in states.items():
                if s == state:
                    return state, f"{scene.graph.node(nid).name}: {message}" if message else ""
        return style.OK, ""

    def input_pos(self, key: tuple[str, str]) -> QtCore.QPointF:
        mark = self.inputs.get(key)
        return mark.scenePos() if mark is not None else self.mapToScene(QtCore.QPointF(0, style.HEADER_HEIGHT / 2))

    def output_pos(self, key: tuple[str, str]) -> QtCore.QPointF:
        port = self.outputs.get(key)
        return port.scenePos() if port is not None else self.mapToScene(
            QtCore.QPointF(style.NODE_WIDTH, style.HEADER_HEIGHT / 2))

    def title_rect(self) -> QtCore.QRectF:
        """The title row, in scene coordinates (where a rename edits)."""
        return self.mapRectToScene(QtCore.QRectF(0, 0, style.NODE_WIDTH, style.HEADER_HEIGHT))

    def drawn_rect(self) -> QtCore.QRectF:
        """The block with the two outlines behind it, in scene coordinates."""
        return self.mapRectToScene(QtCore.QRectF(0, 0, style.NODE_WIDTH + 2 * STACK, self._height + 2 * STACK))

    def boundingRect(self) -> QtCore.QRectF:
        return QtCore.QRectF(-4, -4, style.NODE_WIDTH + 8 + 2 * STACK, self._height + 8 + 2 * STACK)

    def shape(self) -> QtGui.QPainterPath:
        path = QtGui.QPainterPath()
        path.addRoundedRect(QtCore.QRectF(0, 0, style.NODE_WIDTH, self._height), 6, 6)
        return path

    # ------------------------------------------------------------------ painting
    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        scene = self.scene()
        if scene is None or not scene.graph.has_frame(self.frame_id):
            return
        graph, frame = scene.graph, self.frame()
        colours = style.canvas_colours()
        scale = screen_scale(painter)
        w, h = style.NODE_WIDTH, self._height
        body = QtCore.QRectF(0, 0, w, h)
        if scale < style.OUTLINE_ZOOM:      # a plain box, as a node is drawn there
            painter.setPen(QtGui.QPen(style.SELECTION if self.isSelected() else colours.node_border, 0))
            painter.setBrush(colours.node_body)
            painter.drawRect(body)
            painter.fillRect(QtCore.QRectF(1, 1, w - 2, style.HEADER_HEIGHT), QtGui.QColor(frame.colour))
            return
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        # two outlines behind: a stack of nodes
        painter.setBrush(colours.node_body)
        painter.setPen(QtGui.QPen(colours.node_border, 1.0))
        for step in (2, 1):
            painter.drawRoundedRect(body.translated(step * STACK, step * STACK), 6, 6)
        state, message = self.problem()
        border = QtGui.QPen(colours.node_border, 1.2)
        if state in (style.ERROR, style.WARNING, style.RUNNING, style.BLOCKED):
            border = QtGui.QPen(style.STATE_COLOURS[state], 2.2)
        painter.setPen(QtGui.QPen(style.SELECTION, 2.6) if self.isSelected() else border)
        painter.drawRoundedRect(body, 6, 6)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(QtGui.QColor(frame.colour))
        painter.drawRoundedRect(QtCore.QRectF(1, 1, w - 2, style.HEADER_HEIGHT), 5, 5)
        painter.drawRect(QtCore.QRectF(1, style.HEADER_HEIGHT / 2, w - 2, style.HEADER_HEIGHT / 2 + 1))
        font = legible_font(painter.font(), 9.5, scale, room=style.HEADER_HEIGHT * 0.72)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QtGui.QColor("#ffffff"))
        title = QtCore.QRectF(9, 1, w - 34, style.HEADER_HEIGHT)
        painter.drawText(title, QtCore.Qt.AlignmentFlag.AlignVCenter,
                         QtGui.QFontMetricsF(font).elidedText(frame.title, QtCore.Qt.TextElideMode.ElideRight,
                                                              title.width()))
        painter.setBrush(style.STATE_COLOURS[state])    # the state dot, as on a node
        painter.setPen(QtGui.QPen(QtGui.QColor("#ffffff"), 1.5))
        painter.drawEllipse(QtCore.QPointF(w - 13, style.HEADER_HEIGHT / 2 + 1), 5, 5)
        if scale < style.NAMES_ZOOM:     # rows too low for text: a faint bar per port, as a node draws
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(colours.grid_major)
            bar = w * 0.35
            for item in [*self.inputs.values(), *self.outputs.values()]:
                left = w - 14 - bar if item.pos().x() > 0 else 14
                painter.drawRoundedRect(QtCore.QRectF(left, item.pos().y() - 3, bar, 6), 3, 3)
            return
        small = legible_font(painter.font(), 8.0, scale)
        small.setBold(False)
        painter.setFont(small)
        count = len(frame.nodes)
        sub = QtCore.QRectF(9, style.HEADER_HEIGHT, w - 18, style.SUBTITLE_HEIGHT)
        subtitle = f"group of {count} node{'s' if count != 1 else ''}"
        painter.setPen(colours.node_muted)
        if state in (style.ERROR, style.WARNING, style.BLOCKED) and message:
            subtitle = message.splitlines()[0]
            painter.setPen(style.STATE_COLOURS[state].darker(115) if colours is style.LIGHT
                           else style.STATE_COLOURS[state].lighter(125))
        elided = QtGui.QFontMetricsF(small).elidedText(subtitle, QtCore.Qt.TextElideMode.ElideRight, sub.width())
        painter.drawText(sub, QtCore.Qt.AlignmentFlag.AlignVCenter, elided)
        type_font = QtGui.QFont("monospace")
        type_font.setStyleHint(QtGui.QFont.StyleHint.Monospace)
        type_font = legible_font(type_font, 7.8, scale)
        name_metrics, type_metrics = QtGui.QFontMetricsF(small), QtGui.QFontMetricsF(type_font)
        align = QtCore.Qt.AlignmentFlag.AlignVCenter
        rows = [(key, mark.pos().y(), False) for key, mark in self.inputs.items()]
        rows += [(key, port.pos().y(), True) for key, port in self.outputs.items()]
        for key, y, is_output in rows:
            row = QtCore.QRectF(12, y - style.ROW_HEIGHT / 2, w - 24, style.ROW_HEIGHT)
            side = QtCore.Qt.AlignmentFlag.AlignRight if is_output else QtCore.Qt.AlignmentFlag.AlignLeft
            name = name_metrics.elidedText(tensor_label(graph, *key), QtCore.Qt.TextElideMode.ElideMiddle,
                                           row.width() * 0.6)
            painter.setFont(small)
            painter.setPen(colours.node_text)
            painter.drawText(row, align | side, name)
            name_w = name_metrics.horizontalAdvance(name) + 8
            room = row.width() - name_w
            if room < 24:
                continue
            painter.setFont(type_font)
            painter.setPen(colours.node_muted)
            text = type_metrics.elidedText(self._type_text(graph, *key), QtCore.Qt.TextElideMode.ElideMiddle, room)
            if is_output:
                painter.drawText(row.adjusted(0, 0, -name_w, 0), align | QtCore.Qt.AlignmentFlag.AlignRight, text)
            else:
                painter.drawText(row.adjusted(name_w, 0, 0, 0), align | QtCore.Qt.AlignmentFlag.AlignLeft, text)

    # ------------------------------------------------------------------ mouse
    def mousePressEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        if event.button() != QtCore.Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        scene = self.scene()
        if not self.isSelected():
            if not event.modifiers() & QtCore.Qt.KeyboardModifier.ControlModifier:
                scene.clearSelection()
            self.setSelected(True)
        self._drag_from = event.scenePos()
        self._starts = {nid: item.pos() for nid in self.frame().nodes
                        if (item := node_item_or_none(scene, nid)) is not None}
        event.accept()

    def mouseMoveEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        if self._drag_from is None:
            return
        delta = event.scenePos() - self._drag_from
        scene = self.scene()
        self.dragging = True
        try:
            for nid, start in self._starts.items():
                scene.node_item(nid).setPos(start + delta)
        finally:
            self.dragging = False
        scene.groups.refit(self.frame_id)
        event.accept()

    def mouseReleaseEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        if self._drag_from is None:
            return
        starts, self._drag_from, self._starts = self._starts, None, {}
        report_member_moves(self.scene(), starts)
        event.accept()

    def mouseDoubleClickEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        self.scene().groups.expandRequested.emit(self.frame_id)
        event.accept()
