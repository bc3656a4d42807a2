"""A node on the canvas. It stands for one graph node (its ``node_id``) and keeps nothing
but its position: title, ports, types and state are read from the scene (which reads the
graph and the runner) whenever the item is refreshed or painted."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import nodes as N

from . import style
from .port_item import PortItem
from .preview import PreviewText, draw_text

Flag = QtWidgets.QGraphicsItem.GraphicsItemFlag


def category_of(node: N.Node) -> str:
    if node.is_source:
        return "source"
    if isinstance(node, N.OperatorNode):
        return node.schema.kind
    if isinstance(node, N.ForeignNode):
        return "foreign"
    return "output"


def subtitle_of(node: N.Node, opset: int) -> str:
    if isinstance(node, N.OperatorNode):
        version = node.schema.version_for(opset)
        return f"{node.op}-{version}" if version else f"{node.op} (not in opset {opset})"
    if isinstance(node, N.GeneratorSource):
        return f"generator · {node.generator}"
    if isinstance(node, N.FileSource):
        return f"file · {node.path.rsplit('/', 1)[-1] or 'no file chosen'}"
    if isinstance(node, N.LossNode):
        return f"loss · {node.loss.title}"
    if isinstance(node, N.ForeignNode):
        return f"ONNX · {node.title}"
    if isinstance(node, N.ModelTensorSource):
        return f"model tensor · {node.tensor}"
    return {"literal": "literal tensor", "input": "graph input", "output": "graph output"}[node.kind]


class NodeItem(QtWidgets.QGraphicsItem):
    def __init__(self, node_id: str, node: N.Node) -> None:
        super().__init__()
        self.node_id = node_id
        self.setFlags(Flag.ItemIsMovable | Flag.ItemIsSelectable | Flag.ItemSendsGeometryChanges)
        self.setAcceptHoverEvents(True)
        self.setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.ports: dict[tuple[str, bool], PortItem] = {}
        self._height = 0.0
        self._preview: QtGui.QImage | None = None
        self._preview_labels: PreviewText | None = None   # drawn as vector text over the image
        self._show_preview = False
        self._build_ports(node)

    # ------------------------------------------------------------------ geometry
    def _build_ports(self, node: N.Node) -> None:
        y = style.HEADER_HEIGHT + style.SUBTITLE_HEIGHT + style.ROW_HEIGHT / 2
        for name in node.input_ports():
            port = PortItem(self, self.node_id, name, False)
            port.setPos(0, y)
            self.ports[(name, False)] = port
            y += style.ROW_HEIGHT
        for name in node.output_ports():
            port = PortItem(self, self.node_id, name, True)
            port.setPos(style.NODE_WIDTH, y)
            self.ports[(name, True)] = port
            y += style.ROW_HEIGHT
        self._rows_bottom = y - style.ROW_HEIGHT / 2
        self._update_height()

    def _update_height(self) -> None:
        height = self._rows_bottom + 6
        if self._show_preview:
            height += style.PREVIEW_HEIGHT + 4
        if height != self._height:
            self.prepareGeometryChange()
            self._height = height

    def boundingRect(self) -> QtCore.QRectF:
        return QtCore.QRectF(-4, -4, style.NODE_WIDTH + 8, self._height + 8)

    def shape(self) -> QtGui.QPainterPath:
        path = QtGui.QPainterPath()
        path.addRoundedRect(QtCore.QRectF(0, 0, style.NODE_WIDTH, self._height), 6, 6)
        return path

    def port(self, name: str, is_output: bool) -> PortItem:
        return self.ports[(name, is_output)]

    def port_scene_pos(self, name: str, is_output: bool) -> QtCore.QPointF:
        return self.ports[(name, is_output)].scenePos()

    # ------------------------------------------------------------------ content
    def set_preview(self, show: bool, image: QtGui.QImage | None, labels: PreviewText | None = None) -> None:
        self._show_preview = show
        self._preview = image
        self._preview_labels = labels if image is not None else None
        self._update_height()
        self.update()

    def refresh(self) -> None:
        """Re-read the tooltip and redraw (after the graph or the run state changed)."""
        scene = self.scene()
        if scene is None:
            return
        state, message = scene.node_state(self.node_id)
        node = scene.graph.node(self.node_id)
        tip = f"<b>{node.label}</b> — {subtitle_of(node, scene.graph.opset)}<br>{style.STATE_LABELS[state]}"
        if message:
            tip += "<br>" + message.replace("&", "&amp;").replace("<", "&lt;").replace("\n", "<br>")
        self.setToolTip(tip)
        self.update()

    def itemChange(self, change, value):
        if change == QtWidgets.QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            scene = self.scene()
            if scene is not None:
                scene.node_item_moved(self.node_id)
        elif change == QtWidgets.QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
            self.setZValue(1 if value else 0)
        return super().itemChange(change, value)

    def port_label(self, port: str, is_output: bool) -> tuple[str, bool]:
        """The type text drawn beside a port (``dtype[shape]``, ``?`` when unknown, or why an
        input has none) and whether a type is known."""
        graph = self.scene().graph
        if is_output:
            ttype = graph.node_info(self.node_id).outputs.get(port)
            return (str(ttype), True) if ttype is not None else ("?", False)
        edge = graph.edge_into(self.node_id, port)
        if edge is None:
            node = graph.node(self.node_id)
            return ("optional" if port in node.optional_inputs() else "not connected"), False
        ttype = graph.node_info(edge.src).outputs.get(edge.src_port)
        return (str(ttype), True) if ttype is not None else ("?", False)

    # ------------------------------------------------------------------ painting
    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        scene = self.scene()
        if scene is None or not scene.graph.has_node(self.node_id):
            return
        graph = scene.graph
        node = graph.node(self.node_id)
        state, message = scene.node_state(self.node_id)
        w, h = style.NODE_WIDTH, self._height
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
        body = QtCore.QRectF(0, 0, w, h)

        # body and state border
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(QtGui.QColor(0, 0, 0, 28))
        painter.drawRoundedRect(body.translated(2, 3), 6, 6)
        painter.setBrush(style.NODE_BODY if state != style.ERROR else QtGui.QColor("#fff1f1"))
        border = QtGui.QPen(QtGui.QColor("#c5cad6"), 1.2)
        if state in (style.ERROR, style.WARNING, style.RUNNING, style.BLOCKED, style.INCOMPLETE):
            border = QtGui.QPen(style.STATE_COLOURS[state], 2.2 if state != style.INCOMPLETE else 1.6)
            if state in (style.BLOCKED, style.INCOMPLETE):
                border.setStyle(QtCore.Qt.PenStyle.DashLine)
        if self.isSelected():
            border = QtGui.QPen(style.SELECTION, 2.6)
        painter.setPen(border)
        painter.drawRoundedRect(body, 6, 6)

        # header
        colour = style.CATEGORY_COLOURS[category_of(node)]
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(colour if state != style.ERROR else style.STATE_COLOURS[style.ERROR])
        painter.drawRoundedRect(QtCore.QRectF(1, 1, w - 2, style.HEADER_HEIGHT), 5, 5)
        painter.drawRect(QtCore.QRectF(1, style.HEADER_HEIGHT / 2, w - 2, style.HEADER_HEIGHT / 2 + 1))
        font = painter.font()
        font.setPointSizeF(9.5)
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QtGui.QColor("#ffffff"))
        title_rect = QtCore.QRectF(9, 1, w - 34, style.HEADER_HEIGHT)
        metrics = QtGui.QFontMetrics(font)
        painter.drawText(title_rect, QtCore.Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(node.name, QtCore.Qt.TextElideMode.ElideRight, int(title_rect.width())))
        # state dot
        painter.setBrush(style.STATE_COLOURS[state])
        painter.setPen(QtGui.QPen(QtGui.QColor("#ffffff"), 1.5))
        painter.drawEllipse(QtCore.QPointF(w - 13, style.HEADER_HEIGHT / 2 + 1), 5, 5)

        # subtitle: kind/op, or the problem
        font.setBold(False)
        font.setPointSizeF(8.0)
        painter.setFont(font)
        metrics = QtGui.QFontMetrics(font)
        sub_rect = QtCore.QRectF(9, style.HEADER_HEIGHT, w - 18, style.SUBTITLE_HEIGHT)
        subtitle = subtitle_of(node, graph.opset)
        if state == style.INCOMPLETE:
            subtitle = "connect " + ", ".join(
                p for p in node.input_ports()
                if graph.edge_into(node.id, p) is None and p not in node.optional_inputs())
            if node.kind == "output":
                subtitle = "connect a tensor to show it"
            painter.setPen(style.STATE_COLOURS[state].darker(120))
        elif state in (style.ERROR, style.WARNING, style.BLOCKED) and message:
            subtitle = message.split(": ", 1)[-1]
            if state == style.BLOCKED:
                subtitle = "blocked: " + subtitle
            painter.setPen(style.STATE_COLOURS[state].darker(115))
        else:
            painter.setPen(style.NODE_MUTED)
        painter.drawText(sub_rect, QtCore.Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(subtitle, QtCore.Qt.TextElideMode.ElideRight, int(sub_rect.width())))

        # port rows
        name_font = QtGui.QFont(font)
        name_font.setPointSizeF(8.5)
        type_font = QtGui.QFont("monospace")
        type_font.setStyleHint(QtGui.QFont.StyleHint.Monospace)
        type_font.setPointSizeF(7.8)
        type_metrics = QtGui.QFontMetrics(type_font)
        name_metrics = QtGui.QFontMetrics(name_font)
        for (port, is_output), item in self.ports.items():
            y = item.pos().y()
            row = QtCore.QRectF(12, y - style.ROW_HEIGHT / 2, w - 24, style.ROW_HEIGHT)
            type_text, known = self.port_label(port, is_output)
            name_w = name_metrics.horizontalAdvance(port) + 8
            painter.setFont(name_font)
            painter.setPen(style.NODE_TEXT)
            align = QtCore.Qt.AlignmentFlag.AlignVCenter
            side = QtCore.Qt.AlignmentFlag.AlignRight if is_output else QtCore.Qt.AlignmentFlag.AlignLeft
            painter.drawText(row, align | side, port)
            painter.setFont(type_font)
            painter.setPen(style.NODE_MUTED if known else QtGui.QColor("#b0b5c2"))
            room = int(row.width() - name_w)
            elided = type_metrics.elidedText(type_text, QtCore.Qt.TextElideMode.ElideMiddle, room)
            if is_output:
                painter.drawText(row.adjusted(0, 0, -name_w, 0), align | QtCore.Qt.AlignmentFlag.AlignRight, elided)
            else:
                painter.drawText(row.adjusted(name_w, 0, 0, 0), align | QtCore.Qt.AlignmentFlag.AlignLeft, elided)

        # inline preview
        if self._show_preview:
            rect = QtCore.QRectF(9, self._rows_bottom + 2, w - 18, style.PREVIEW_HEIGHT)
            if self._preview is not None:
                painter.drawImage(rect, self._preview)
                if self._preview_labels is not None:
                    draw_text(painter, rect, self._preview.size(), self._preview_labels)
                painter.setPen(QtGui.QPen(QtGui.QColor("#c5cad6"), 1))
                painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                painter.drawRect(rect)
            else:
                painter.setPen(QtGui.QPen(QtGui.QColor("#d5d9e2"), 1, QtCore.Qt.PenStyle.DashLine))
                painter.setBrush(QtGui.QColor("#f7f8fa"))
                painter.drawRect(rect)
                painter.setPen(style.NODE_MUTED)
                painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, "no value")
