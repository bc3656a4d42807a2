"""A node on the canvas. It stands for one graph node (its ``node_id``) and keeps nothing
but its position: title, ports, types and state are read from the scene (which reads the
graph and the runner) whenever the item is refreshed or painted.

A collapsed node (``Node.collapsed``) is drawn as its title row only; its ports are hidden
and its wires meet the row's ends. A bypassed operator is drawn greyed, a line from its data
input to its output saying what it does now.

Text is never drawn smaller than ``style.MIN_LABEL_PX`` screen pixels while it fits: at a
lower zoom it is drawn larger in scene units; below ``style.LABEL_ZOOM`` the port type
labels step aside, below ``style.NAMES_ZOOM`` the port names and the subtitle too, and the
title shrinks no further than its row allows. At those zooms, the pointer over a node shows
a :class:`PortCard`: the node's title, its ports and their types at screen size.

The tooltip is written when asked (:meth:`NodeItem.toolTip`, by the scene's ``helpEvent``),
not on every refresh.

Port items are made on first use (:attr:`NodeItem.ports`): when the node is drawn at a zoom
where ports can be seen (the view asks, :meth:`GraphScene.make_ports`), when the pointer
enters it or looks for a port near it (:meth:`GraphScene.port_at`), or when code asks for
them. Until then the node draws its rows and its wires meet it from the same geometry
(:meth:`NodeItem.port_offset`): a model of thousands of nodes opens without making the port
items of the nodes nobody looks at closely."""
from __future__ import annotations

import html

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import nodes as N
from nodeeditor.graph.rules import integer_only

from . import style
from .cells import Box
from .port_item import PortItem
from .preview import PreviewText, draw_text

Flag = QtWidgets.QGraphicsItem.GraphicsItemFlag
_FLAGS = Flag.ItemIsMovable | Flag.ItemIsSelectable | Flag.ItemSendsGeometryChanges
_CACHE = QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache
_BASE_ITEM_CHANGE = QtWidgets.QGraphicsItem.itemChange
_MOVED = QtWidgets.QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged
_SELECTED = QtWidgets.QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged


def category_of(node: N.Node) -> str:
    if node.is_source:
        return "source"
    if isinstance(node, N.OperatorNode):
        return node.schema.kind
    if isinstance(node, N.LossNode):
        return "loss"
    if isinstance(node, N.ForeignNode):
        return "foreign"
    return "output"


def training_marks(node: N.Node) -> list[tuple[style.TrainingMark, str]]:
    """The training badges of ``node`` with their words: a trainable source; an operator (or
    a foreign op) whose training switch is off, or whose loss coefficient is not 1."""
    marks = []
    if isinstance(node, N.TrainableSource) and node.trainable:
        marks.append(style.TrainingMark.TRAINABLE)
    if N.has_training_switch(node):
        if not node.training:
            marks.append(style.TrainingMark.TRAINING_OFF)
        elif node.loss_coefficient != 1.0:
            marks.append(style.TrainingMark.COEFFICIENT)
    out = []
    for mark in marks:
        words = style.TRAINING_MARKS[mark][2]
        if mark is style.TrainingMark.COEFFICIENT:
            words = words.format(f"{node.loss_coefficient:g}")
        out.append((mark, words))
    return out


#: What a node's tooltip says about each training badge.
MARK_TIPS = {
    style.TrainingMark.TRAINABLE: "trainable: a training run updates this tensor",
    style.TrainingMark.TRAINING_OFF: "training off: no gradient flows through this node to its inputs",
    style.TrainingMark.COEFFICIENT: "loss coefficient {}: the gradient sent to the inputs is multiplied by it",
}


def subtitle_of(node: N.Node, opset: int) -> str:
    """What a block says under its title: the op and its version at ``opset``, the kind of
    source (and "· overridable" for one an export lists as a graph input too)."""
    text = _kind_subtitle(node, opset)
    return f"{text} · overridable" if node.is_source and node.overridable else text


def _kind_subtitle(node: N.Node, opset: int) -> str:
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
        attributes = foreign_attributes_text(node, limit=24)
        return f"ONNX · {node.title}" + (f" · {attributes}" if attributes else "")
    if isinstance(node, N.ModelTensorSource):
        return f"model tensor · {node.tensor}"
    return {"literal": "literal tensor", "input": "graph input", "output": "graph output"}[node.kind]


def foreign_attributes_text(node: N.ForeignNode, limit: int = 60, separator: str = ", ") -> str:
    """A foreign node's attributes as ``axis=-1, perm=[0, 1, 3, 2]`` (each value at most
    ``limit`` characters; a Constant's small tensor shows its values): what the node's
    subtitle and tooltip say about it."""
    return separator.join(f"{name}={attr.text(limit)}" for name, attr in node.attributes.items())


def short_message(node: N.Node, message: str) -> str:
    """A node's problem as its subtitle says it: without the leading ``"<op>: "`` of an
    operator's message (ops messages start with the op's name; the node shows it already)."""
    return message.removeprefix(f"{node.op}: ") if isinstance(node, N.OperatorNode) else message


def screen_scale(painter: QtGui.QPainter) -> float:
    """How many screen pixels one item unit takes with ``painter``'s transform."""
    t = painter.worldTransform()
    return max(1e-6, min(abs(t.m11()) + abs(t.m21()), abs(t.m22()) + abs(t.m12())))


def legible_font(base: QtGui.QFont, point_size: float, scale: float, room: float | None = None) -> QtGui.QFont:
    """``base`` at ``point_size`` (at 96 dpi), made larger in item units when at ``scale``
    it would be under ``style.MIN_LABEL_PX`` screen pixels, but never taller than ``room``
    item units (the row it is drawn in)."""
    font = QtGui.QFont(base)
    px = max(point_size * 96.0 / 72.0, style.MIN_LABEL_PX / scale)
    if room is not None:
        px = min(px, room)
    # pixel sizes are whole numbers: at a small zoom a size in item units rounds coarsely,
    # so scale the font by its stretch-free point size instead
    font.setPointSizeF(max(0.5, px * 72.0 / 96.0))
    return font


def body_height(rows: int, collapsed: bool, preview: bool) -> float:
    """How tall a node with ``rows`` port rows is drawn (scene units): its title row when
    ``collapsed``, else its rows, and below them its inline preview when shown."""
    if collapsed:
        return style.HEADER_HEIGHT + 2
    height = style.HEADER_HEIGHT + style.SUBTITLE_HEIGHT + rows * style.ROW_HEIGHT + 6
    return height + (style.PREVIEW_HEIGHT + 4 if preview else 0.0)


def scene_box(node: N.Node, preview: bool) -> Box:
    """The scene box a :class:`NodeItem` of ``node`` at the node's position covers (its
    ``sceneBoundingRect``), known without making the item."""
    rows = len(node.input_ports()) + len(node.output_ports())
    x, y = node.position
    m = NodeItem.MARGIN
    return x - m, y - m, x + style.NODE_WIDTH + m, y + body_height(rows, node.collapsed, preview) + m


class NodeItem(QtWidgets.QGraphicsItem):
    #: scene units between the node's body and its bounding rectangle (room for the border)
    MARGIN = 4

    def __init__(self, node_id: str, node: N.Node) -> None:
        super().__init__()
        self.node_id = node_id
        self.setFlags(_FLAGS)
        self.setAcceptHoverEvents(True)
        self.setCacheMode(_CACHE)
        self._ports: dict[tuple[str, bool], PortItem] | None = None   # made on first use
        self._height = 0.0
        self._preview: QtGui.QImage | None = None
        self._preview_labels: PreviewText | None = None   # drawn as vector text over the image
        self._show_preview = False
        self.collapsed = False
        self._build_ports(node)
        self.set_collapsed(node.collapsed)

    # ------------------------------------------------------------------ geometry
    def _build_ports(self, node: N.Node) -> None:
        """The port rows: inputs, then outputs (their items are made by :attr:`ports`)."""
        keys = [(name, False) for name in node.input_ports()] + [(name, True) for name in node.output_ports()]
        #: (port, is_output) -> row, in drawing order
        self.port_rows: dict[tuple[str, bool], int] = {key: row for row, key in enumerate(keys)}
        self._rows_bottom = style.HEADER_HEIGHT + style.SUBTITLE_HEIGHT + len(keys) * style.ROW_HEIGHT

    @property
    def ports(self) -> dict[tuple[str, bool], PortItem]:
        """(port, is_output) -> its PortItem, made now if not yet (see the module docstring)."""
        if self._ports is None:
            self._ports = {key: PortItem(self, self.node_id, *key) for key in self.port_rows}
            self._place_ports()
            scene = self.scene()
            if scene is not None and hasattr(scene, "style_ports"):
                scene.style_ports(self.node_id)
        return self._ports

    @property
    def has_port_items(self) -> bool:
        """Whether :attr:`ports` has made the port items already."""
        return self._ports is not None

    def port_offset(self, name: str, is_output: bool) -> QtCore.QPointF:
        """Where the port's centre is, in item coordinates (at the ends of the title row when collapsed)."""
        x = style.NODE_WIDTH if is_output else 0.0
        if self.collapsed:
            return QtCore.QPointF(x, style.HEADER_HEIGHT / 2)
        row = self.port_rows[(name, is_output)]
        return QtCore.QPointF(x, style.HEADER_HEIGHT + style.SUBTITLE_HEIGHT + (row + 0.5) * style.ROW_HEIGHT)

    def _place_ports(self) -> None:
        for (name, is_output), port in self._ports.items():
            port.setPos(self.port_offset(name, is_output))
            if port.isVisible() == self.collapsed:
                port.setVisible(not self.collapsed)

    def set_collapsed(self, collapsed: bool) -> None:
        """Draw the title row only (ports hidden at the row's ends), or the whole node."""
        self.collapsed = collapsed
        if self._ports is not None:
            self._place_ports()
        self._update_height()
        self.update()

    def _update_height(self) -> None:
        height = body_height(len(self.port_rows), self.collapsed, self._show_preview)
        if height != self._height:
            self.prepareGeometryChange()
            self._height = height

    def boundingRect(self) -> QtCore.QRectF:
        m = self.MARGIN
        return QtCore.QRectF(-m, -m, style.NODE_WIDTH + 2 * m, self._height + 2 * m)

    def shape(self) -> QtGui.QPainterPath:
        path = QtGui.QPainterPath()
        path.addRoundedRect(QtCore.QRectF(0, 0, style.NODE_WIDTH, self._height), 6, 6)
        return path

    def port(self, name: str, is_output: bool) -> PortItem:
        return self.ports[(name, is_output)]

    def port_scene_pos(self, name: str, is_output: bool) -> QtCore.QPointF:
        return self.mapToScene(self.port_offset(name, is_output))

    # ------------------------------------------------------------------ content
    def set_preview(self, show: bool, image: QtGui.QImage | None, labels: PreviewText | None = None) -> None:
        self._show_preview = show
        self._preview = image
        self._preview_labels = labels if image is not None else None
        self._update_height()
        self.update()

    def refresh(self) -> None:
        """Redraw (after the graph or the run state changed); the tooltip is read when asked."""
        self.update()

    def toolTip(self) -> str:
        """The node's label, op, attributes, training badges and state (written now, from the scene)."""
        scene = self.scene()
        if scene is None or not scene.graph.has_node(self.node_id):
            return ""
        state, message = scene.node_state(self.node_id)
        node = scene.graph.node(self.node_id)
        tip = f"<b>{node.label}</b> — {subtitle_of(node, scene.graph.opset)}<br>{style.STATE_LABELS[state]}"
        if isinstance(node, N.ForeignNode) and node.attributes:
            tip = (f"<b>{node.label}</b> — ONNX op {node.title} ({node.domain or 'ai.onnx'})<br>"
                   + "<br>".join(html.escape(f"{name} = {attr.text(80)}") for name, attr in node.attributes.items())
                   + f"<br>{style.STATE_LABELS[state]}")
        for mark, _words in training_marks(node):
            tip += "<br>" + MARK_TIPS[mark].format(getattr(node, "loss_coefficient", ""))
        if message:
            tip += "<br>" + message.replace("&", "&amp;").replace("<", "&lt;").replace("\n", "<br>")
        return tip

    def follow_changes(self) -> None:
        """From now on, a move tells the scene (which keeps the wires attached) and selection
        raises the node. Called once the item is built, placed and on the scene: while Qt finds
        no Python ``itemChange``, building it (its flags, its port children, its position, the
        scene) calls none, which is most of the cost of building thousands of nodes. A subclass's
        own ``itemChange`` still sees every change, after this one."""
        self._class_item_change = type(self).itemChange   # QGraphicsItem's, or a subclass's
        self.itemChange = self._item_change

    def _item_change(self, change, value):
        if change is _MOVED:
            scene = self.scene()
            if scene is not None:
                scene.node_item_moved(self.node_id)
        elif change is _SELECTED:
            self.setZValue(1 if value else 0)
        elif self._class_item_change is _BASE_ITEM_CHANGE:
            return value                 # QGraphicsItem.itemChange's own answer, without the call
        return self._class_item_change(self, change, value)

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

    def port_family(self, port: str, is_output: bool) -> style.DtypeFamily:
        """The element type family a port carries: an output's inferred type, an input's wire,
        else what its op requires there (integer indices), else unknown."""
        graph = self.scene().graph
        if is_output:
            ttype = graph.node_info(self.node_id).outputs.get(port)
        else:
            edge = graph.edge_into(self.node_id, port)
            if edge is None:
                integer = integer_only(graph.node(self.node_id), port, graph.opset)
                return style.DtypeFamily.INTEGER if integer else style.DtypeFamily.UNKNOWN
            ttype = graph.node_info(edge.src).outputs.get(edge.src_port)
        return style.dtype_family(ttype.dtype if ttype is not None else None)

    # ------------------------------------------------------------------ painting
    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        scene = self.scene()
        if scene is None or not scene.graph.has_node(self.node_id):
            return
        graph = scene.graph
        node = graph.node(self.node_id)
        state, message = scene.node_state(self.node_id)
        colours = style.canvas_colours()
        bypassed = N.bypassed_port(node) is not None
        scale = screen_scale(painter)
        w, h = style.NODE_WIDTH, self._height
        if scale < style.OUTLINE_ZOOM:
            self._paint_box(painter, node, state, colours, bypassed)
            return
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
        body = QtCore.QRectF(0, 0, w, h)
        if bypassed:
            painter.setOpacity(0.6)

        # body and state border
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(colours.shadow)
        painter.drawRoundedRect(body.translated(2, 3), 6, 6)
        painter.setBrush(colours.node_body if state != style.ERROR else colours.node_error_body)
        border = QtGui.QPen(colours.node_border, 1.2)
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
        if bypassed:
            colour = colours.bypassed_header
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(colour if state != style.ERROR else style.STATE_COLOURS[style.ERROR])
        header = QtCore.QRectF(1, 1, w - 2, style.HEADER_HEIGHT - (1 if self.collapsed else 0))
        painter.drawRoundedRect(header, 5, 5)
        if not self.collapsed:
            painter.drawRect(QtCore.QRectF(1, style.HEADER_HEIGHT / 2, w - 2, style.HEADER_HEIGHT / 2 + 1))
        font = legible_font(painter.font(), 9.5, scale, room=style.HEADER_HEIGHT * 0.72)
        font.setBold(True)
        badges = self._paint_badges(painter, node, scale, right=w - 24)
        title_rect = QtCore.QRectF(9, 1, (w - 34) if badges >= w - 24 else badges - 13, style.HEADER_HEIGHT)
        painter.setFont(font)
        painter.setPen(QtGui.QColor("#ffffff"))
        metrics = QtGui.QFontMetricsF(font)
        title = style.one_line(node.name) + ("  (bypassed)" if bypassed and self.collapsed else "")
        painter.drawText(title_rect, QtCore.Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(title, QtCore.Qt.TextElideMode.ElideRight, title_rect.width()))
        # state dot
        painter.setBrush(style.STATE_COLOURS[state])
        painter.setPen(QtGui.QPen(QtGui.QColor("#ffffff"), 1.5))
        painter.drawEllipse(QtCore.QPointF(w - 13, style.HEADER_HEIGHT / 2 + 1), 5, 5)
        if self.collapsed:
            return
        if scale < style.NAMES_ZOOM:     # rows too low for readable text: the card shows them on hover
            self._paint_port_marks(painter, colours)
            if bypassed:
                self._paint_bypass_line(painter, node)
            return

        # subtitle: kind/op, or the problem
        font = legible_font(painter.font(), 8.0, scale)
        font.setBold(False)
        painter.setFont(font)
        metrics = QtGui.QFontMetricsF(font)
        sub_rect = QtCore.QRectF(9, style.HEADER_HEIGHT, w - 18, style.SUBTITLE_HEIGHT)
        subtitle = subtitle_of(node, graph.opset)
        if bypassed:
            subtitle = f"bypassed: passes {N.bypassed_port(node)} through"
            painter.setPen(colours.node_muted)
        elif state == style.INCOMPLETE:
            subtitle = "connect " + ", ".join(
                p for p in node.input_ports()
                if graph.edge_into(node.id, p) is None and p not in node.optional_inputs())
            if node.kind == "output":
                subtitle = "connect a tensor to show it"
            painter.setPen(style.STATE_COLOURS[state].darker(120) if colours is style.LIGHT
                           else style.STATE_COLOURS[state].lighter(130))
        elif state in (style.ERROR, style.WARNING, style.BLOCKED) and message:
            subtitle = short_message(node, message)
            if state == style.BLOCKED:
                subtitle = "blocked: " + subtitle
            painter.setPen(style.STATE_COLOURS[state].darker(115) if colours is style.LIGHT
                           else style.STATE_COLOURS[state].lighter(125))
        else:
            painter.setPen(colours.node_muted)
        painter.drawText(sub_rect, QtCore.Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(subtitle, QtCore.Qt.TextElideMode.ElideRight, sub_rect.width()))

        # port rows
        self._paint_ports(painter, scale, colours)
        if bypassed:
            self._paint_bypass_line(painter, node)

        # inline preview
        if self._show_preview:
            rect = QtCore.QRectF(9, self._rows_bottom + 2, w - 18, style.PREVIEW_HEIGHT)
            if self._preview is not None:
                painter.drawImage(rect, self._preview)
                if self._preview_labels is not None:
                    draw_text(painter, rect, self._preview.size(), self._preview_labels)
                painter.setPen(QtGui.QPen(colours.node_border, 1))
                painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                painter.drawRect(rect)
            else:
                painter.setPen(QtGui.QPen(colours.node_border, 1, QtCore.Qt.PenStyle.DashLine))
                painter.setBrush(colours.preview_empty)
                painter.drawRect(rect)
                painter.setPen(colours.node_muted)
                painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, "no value")

    def _paint_box(self, painter: QtGui.QPainter, node: N.Node, state: str, colours: style.CanvasColours,
                   bypassed: bool) -> None:
        """The node below ``style.OUTLINE_ZOOM``: its body, its title row's colour and its
        state (or selection) border, square and without antialiasing."""
        w, h = style.NODE_WIDTH, self._height
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        if bypassed:
            painter.setOpacity(0.6)
        border = colours.node_border
        if self.isSelected():
            border = style.SELECTION
        elif state in (style.ERROR, style.WARNING, style.RUNNING, style.BLOCKED, style.INCOMPLETE):
            border = style.STATE_COLOURS[state]
        painter.setPen(QtGui.QPen(border, 0 if border is colours.node_border else 2.5 / screen_scale(painter)))
        painter.setBrush(colours.node_body if state != style.ERROR else colours.node_error_body)
        painter.drawRect(QtCore.QRectF(0, 0, w, h))
        header = colours.bypassed_header if bypassed else style.CATEGORY_COLOURS[category_of(node)]
        painter.fillRect(QtCore.QRectF(1, 1, w - 2, style.HEADER_HEIGHT),
                         header if state != style.ERROR else style.STATE_COLOURS[style.ERROR])

    def _paint_badges(self, painter: QtGui.QPainter, node: N.Node, scale: float, right: float) -> float:
        """Draw the node's training badges in its header, right-aligned at ``right``; returns
        the x where the leftmost begins (``right`` when there is none)."""
        marks = training_marks(node)
        if not marks:
            return right
        font = legible_font(painter.font(), 7.0, scale, room=style.HEADER_HEIGHT * 0.5)
        font.setBold(True)
        painter.setFont(font)
        metrics = QtGui.QFontMetricsF(font)
        height = min(style.HEADER_HEIGHT - 8, metrics.height() + 2)
        x = right
        for mark, words in reversed(marks):
            fill, ink, _ = style.TRAINING_MARKS[mark]
            width = metrics.horizontalAdvance(words) + 8
            x -= width
            rect = QtCore.QRectF(x, (style.HEADER_HEIGHT - height) / 2 + 0.5, width, height)
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(fill)
            painter.drawRoundedRect(rect, height / 2, height / 2)
            painter.setPen(ink)
            painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, words)
            x -= 4
        return x + 4

    def _paint_port_marks(self, painter: QtGui.QPainter, colours: style.CanvasColours) -> None:
        """At a small zoom, instead of text: a faint bar per port row."""
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(colours.grid_major)
        for port, is_output in self.port_rows:
            y = self.port_offset(port, is_output).y()
            width = style.NODE_WIDTH * 0.35
            x = style.NODE_WIDTH - 14 - width if is_output else 14
            painter.drawRoundedRect(QtCore.QRectF(x, y - 3, width, 6), 3, 3)

    def hoverEnterEvent(self, event) -> None:
        self.ports                       # noqa: B018 - made now: the pointer may go for one
        scene = self.scene()
        if scene is not None and hasattr(scene, "show_card"):
            scene.show_card(self.node_id)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event) -> None:
        scene = self.scene()
        if scene is not None and hasattr(scene, "hide_card"):
            scene.hide_card(self.node_id)
        super().hoverLeaveEvent(event)

    def card_lines(self) -> list[tuple[str, str]]:
        """(port text, type text) for each port: what :class:`PortCard` lists."""
        rows = []
        for port, is_output in self.port_rows:
            text, _known = self.port_label(port, is_output)
            rows.append((("out " if is_output else "in  ") + port, text))
        return rows

    @staticmethod
    def _row_fonts(base: QtGui.QFont, scale: float) -> tuple[QtGui.QFont, QtGui.QFont]:
        """(port name font, type label font) at ``scale``."""
        type_font = QtGui.QFont("monospace")
        type_font.setStyleHint(QtGui.QFont.StyleHint.Monospace)
        return legible_font(base, 8.5, scale), legible_font(type_font, 7.8, scale)

    def types_shown(self, scale: float) -> bool:
        """Whether every port type label is drawn at ``scale`` (screen pixels per unit; see
        :meth:`_type_fits`): when one is not, hovering the block shows its card with them all."""
        if scale < style.LABEL_ZOOM or self.scene() is None:
            return False
        name_font, type_font = self._row_fonts(QtWidgets.QApplication.font(), scale)
        names, types = QtGui.QFontMetricsF(name_font), QtGui.QFontMetricsF(type_font)
        return all(self._fitting_label(port, out, names, types) == self.port_label(port, out)[0]
                   for port, out in self.port_rows)

    def _fitting_label(self, port: str, is_output: bool, names: QtGui.QFontMetricsF,
                       types: QtGui.QFontMetricsF) -> str | None:
        """The port's type label if it fits its row whole beside its name, else its short form
        (``int64 9-d``) if that fits, else None: a label cut to "float3…, 4]" would not tell the
        type, and one long label leaves the node's others drawn."""
        room = style.NODE_WIDTH - 24 - names.horizontalAdvance(port) - 8
        text = self.port_label(port, is_output)[0]
        if types.horizontalAdvance(text) <= room:
            return text
        if "[" in text and text.endswith("]"):
            short = f"{text.split('[', 1)[0]} {text.count(',') + 1}-d"
            if types.horizontalAdvance(short) <= room:
                return short
        return None

    def _paint_ports(self, painter: QtGui.QPainter, scale: float, colours: style.CanvasColours) -> None:
        w = style.NODE_WIDTH
        name_font, type_font = self._row_fonts(painter.font(), scale)
        type_metrics = QtGui.QFontMetricsF(type_font)
        name_metrics = QtGui.QFontMetricsF(name_font)
        show_types = scale >= style.LABEL_ZOOM   # each label that fits its row (_fitting_label)
        align = QtCore.Qt.AlignmentFlag.AlignVCenter
        scene = self.scene()
        wrong = scene.problem_port(self.node_id) if scene is not None else None  # ringed, in red
        error_colour = style.STATE_COLOURS[style.ERROR]
        for port, is_output in self.port_rows:
            centre = self.port_offset(port, is_output)
            y = centre.y()
            row = QtCore.QRectF(12, y - style.ROW_HEIGHT / 2, w - 24, style.ROW_HEIGHT)
            side = QtCore.Qt.AlignmentFlag.AlignRight if is_output else QtCore.Qt.AlignmentFlag.AlignLeft
            is_wrong = not is_output and port == wrong
            if is_wrong:
                painter.setPen(QtGui.QPen(error_colour, 2.5))
                painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
                painter.drawEllipse(centre, style.PORT_RADIUS + 4, style.PORT_RADIUS + 4)
            painter.setFont(name_font)
            painter.setPen(error_colour if is_wrong else colours.node_text)
            painter.drawText(row, align | side, port)
            shown = self._fitting_label(port, is_output, name_metrics, type_metrics) if show_types else None
            if shown is None:
                continue
            known = self.port_label(port, is_output)[1]
            type_text = shown
            name_w = name_metrics.horizontalAdvance(port) + 8
            painter.setFont(type_font)
            painter.setPen(error_colour if is_wrong else colours.node_muted if known else colours.node_faint)
            room = row.width() - name_w
            elided = type_metrics.elidedText(type_text, QtCore.Qt.TextElideMode.ElideMiddle, room)
            if is_output:
                painter.drawText(row.adjusted(0, 0, -name_w, 0), align | QtCore.Qt.AlignmentFlag.AlignRight, elided)
            else:
                painter.drawText(row.adjusted(name_w, 0, 0, 0), align | QtCore.Qt.AlignmentFlag.AlignLeft, elided)

    def _paint_bypass_line(self, painter: QtGui.QPainter, node: N.Node) -> None:
        """A line from the data input to the output: where the data goes while bypassed."""
        through = N.bypassed_port(node)
        a = self.port_offset(through, False)
        b = self.port_offset(node.output_ports()[0], True)
        path = QtGui.QPainterPath(a)
        mid = (a.x() + b.x()) / 2
        path.cubicTo(QtCore.QPointF(mid, a.y()), QtCore.QPointF(mid, b.y()), b)
        pen = QtGui.QPen(style.STATE_COLOURS[style.ERROR], 2.0)
        painter.setPen(pen)
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        painter.setOpacity(0.45)
        painter.drawPath(path)


class PortCard(QtWidgets.QGraphicsItem):
    """The node under the pointer, readable at a zoom where its own text is not: its name,
    what it is, and every port with its type, at screen size beside the node (the scene
    shows it, :meth:`GraphScene.show_card`)."""

    PADDING = 8

    def __init__(self) -> None:
        super().__init__()
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setZValue(40)
        self.node_id: str | None = None
        self.title = ""
        self.subtitle = ""
        self.rows: list[tuple[str, str]] = []
        self._rect = QtCore.QRectF()
        self.hide()

    def _fonts(self) -> tuple[QtGui.QFont, QtGui.QFont, QtGui.QFont]:
        base = QtWidgets.QApplication.font()
        title = QtGui.QFont(base)
        title.setBold(True)
        mono = QtGui.QFont("monospace")
        mono.setStyleHint(QtGui.QFont.StyleHint.Monospace)
        mono.setPointSizeF(base.pointSizeF() * 0.95)
        return title, base, mono

    def show_for(self, item: NodeItem, title: str, subtitle: str) -> None:
        """Describe ``item`` beside its top-right corner."""
        self.prepareGeometryChange()
        self.node_id, self.title, self.subtitle, self.rows = item.node_id, title, subtitle, item.card_lines()
        title_font, base, mono = self._fonts()
        tm, bm, mm = (QtGui.QFontMetricsF(f) for f in (title_font, base, mono))
        port_w = max((bm.horizontalAdvance(p) for p, _ in self.rows), default=0)
        type_w = max((mm.horizontalAdvance(t) for _, t in self.rows), default=0)
        width = max(tm.horizontalAdvance(title), bm.horizontalAdvance(subtitle), port_w + 12 + type_w)
        height = tm.height() + bm.height() + 4 + len(self.rows) * max(bm.height(), mm.height())
        self._rect = QtCore.QRectF(0, 0, width + 2 * self.PADDING, height + 2 * self.PADDING)
        self._port_w = port_w
        self.setPos(item.mapToScene(QtCore.QPointF(item.boundingRect().right() + 6, 0)))
        self.show()

    def boundingRect(self) -> QtCore.QRectF:
        return self._rect.adjusted(-1, -1, 1, 1)

    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        colours = style.canvas_colours()
        title_font, base, mono = self._fonts()
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        painter.setPen(QtGui.QPen(colours.node_border, 1))
        painter.setBrush(colours.node_body)
        painter.drawRoundedRect(self._rect, 6, 6)
        x, y = self.PADDING, self.PADDING
        for font, text, colour in ((title_font, self.title, colours.node_text),
                                   (base, self.subtitle, colours.node_muted)):
            painter.setFont(font)
            painter.setPen(colour)
            m = QtGui.QFontMetricsF(font)
            painter.drawText(QtCore.QPointF(x, y + m.ascent()), text)
            y += m.height()
        y += 4
        line = max(QtGui.QFontMetricsF(base).height(), QtGui.QFontMetricsF(mono).height())
        for port, ttype in self.rows:
            painter.setFont(base)
            painter.setPen(colours.node_text)
            painter.drawText(QtCore.QRectF(x, y, self._port_w + 4, line), QtCore.Qt.AlignmentFlag.AlignVCenter, port)
            painter.setFont(mono)
            painter.setPen(colours.node_muted)
            painter.drawText(QtCore.QRectF(x + self._port_w + 12, y, 1000, line),
                             QtCore.Qt.AlignmentFlag.AlignVCenter, ttype)
            y += line
