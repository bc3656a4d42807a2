"""The Tab box: a small search field with a fuzzy-matched list of every block, shown at the
cursor over the canvas. Enter (or a click) emits ``chosen(key, scene_pos)``; Esc closes.

The new block's title is centred on ``scene_pos`` (``placement.block_position``). Near the
canvas edge that would put half the block out of view, so ``scene_pos`` is first moved (as
little as needed) so that the whole block, its ports counted, lies inside the visible part
of the canvas (see :func:`fit_in_view`).

Typed text also finds every other ONNX op (:mod:`.onnx_blocks`: ``MatMul`` adds a foreign node
with its schema's ports), listed after the blocks of the editor's own (the seven indexing ops
first among those); they are read from ONNX's schemas on the first search.

Opened for a wire dropped on empty canvas (``popup(..., wire=...)``), it lists only the
blocks with a port that would take the wire (:func:`wire_blocks`), each with that port, and
``wire`` stays set until the box is opened again, so the receiver of ``chosen`` knows to
connect the new block. Typed text there too finds the ONNX ops, those with a port whose
schema type takes the wire (:func:`.onnx_blocks.wire_ports`), after the editor's own."""
from __future__ import annotations

from collections.abc import Mapping

from PySide6 import QtCore, QtWidgets

from nodeeditor.graph import Graph
from nodeeditor.graph.rules import INTEGER_DTYPES, integer_only

from .blocks import BLOCKS, Block, block, search
from .canvas import style
from .onnx_blocks import catalog_blocks, wire_ports
from .placement import TITLE_OFFSET
from .search_popup import SearchPopup

EDGE_MARGIN = 12.0    # view pixels kept between a new block and the canvas edge


def block_height(key: str, with_preview: bool = False) -> float:
    """The height (scene units) a new ``key`` block will have on the canvas."""
    node = block(key).make(Graph(), (0.0, 0.0))
    rows = len(node.input_ports()) + len(node.output_ports())
    height = style.HEADER_HEIGHT + style.SUBTITLE_HEIGHT + rows * style.ROW_HEIGHT + 6
    return height + (style.PREVIEW_HEIGHT + 4 if with_preview else 0.0)


def fit_in_view(view: QtWidgets.QGraphicsView, scene_pos: QtCore.QPointF, height: float) -> QtCore.QPointF:
    """``scene_pos`` moved so that a block placed at it lies inside ``view``'s visible area
    (with :data:`EDGE_MARGIN`); when the view is too small for the block, its top-left shows."""
    zoom = view.transform().m11() or 1.0
    margin = EDGE_MARGIN / zoom
    visible = view.mapToScene(view.viewport().rect()).boundingRect().adjusted(margin, margin, -margin, -margin)
    half = style.NODE_WIDTH / 2
    x = min(scene_pos.x(), visible.right() - half)
    x = max(x, visible.left() + half)
    y = min(scene_pos.y(), visible.bottom() - height + TITLE_OFFSET)
    y = max(y, visible.top() + TITLE_OFFSET)
    return QtCore.QPointF(x, y)


def wire_blocks(graph: Graph, anchor: tuple[str, str], from_output: bool) -> dict[str, str]:
    """Block key -> its port that a wire with the fixed end ``anchor`` (an output port when
    ``from_output``, else an input) could be connected to, for every block that has one
    (``Graph.can_connect_new``: the document's own rules). Of a block's ports that would take
    it, an integer wire goes to one that takes only integers (indices) if there is one, any
    other wire to the first, in port order. ONNX ops (``onnx:MatMul``) are judged by their
    schema's types (:func:`.onnx_blocks.wire_ports`): the wire's dtype for a wire from an
    output, an integer output for one drawn back from an integer-only input."""
    out: dict[str, str] = {}
    node_id, port = anchor
    wire_type = graph.output_type(node_id, port) if from_output else None
    integer = wire_type is not None and wire_type.dtype in INTEGER_DTYPES
    for b in BLOCKS:
        node = b.make(graph, (0.0, 0.0))
        if from_output:
            ports = [p for p in node.input_ports() if graph.can_connect_new(node, node_id, port, node.id, p) is None]
            ports.sort(key=lambda p, n=node: integer and not integer_only(n, p, graph.opset))
        else:
            ports = [p for p in node.output_ports() if graph.can_connect_new(node, node.id, p, node_id, port) is None]
        if ports:
            out[b.key] = ports[0]
    if from_output:
        out.update(wire_ports(graph.opset, wire_type.dtype if wire_type is not None else None, True))
    else:
        anchor_node = graph.node(node_id)
        out.update(wire_ports(graph.opset, None, False, integer=integer_only(anchor_node, port, graph.opset)))
    return out


class QuickAddBox(SearchPopup):
    """The Tab box. ``chosen(key, scene_pos)``: the block to add and where (see the module
    docstring)."""

    chosen = QtCore.Signal(str, QtCore.QPointF)

    def __init__(self, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent, "Add block…")
        self.scene_pos = QtCore.QPointF()
        #: the dropped wire this box was opened for (an object the opener gives), or None
        self.wire: object | None = None
        self._ports: Mapping[str, str] | None = None
        self.accepted.connect(self._add)

    def popup(self, view_pos: QtCore.QPoint, scene_pos: QtCore.QPointF, wire: object | None = None,
              ports: Mapping[str, str] | None = None) -> None:
        """Show at ``view_pos`` (parent coordinates) for adding at ``scene_pos``; with ``wire``,
        only the blocks in ``ports`` (block key -> the port the wire would take)."""
        self.scene_pos = QtCore.QPointF(scene_pos)
        self.wire, self._ports = wire, (dict(ports) if wire is not None else None)
        self.field.setPlaceholderText("Add a block for this wire…" if wire is not None else "Add block…")
        self.open_at(view_pos)

    def port_for(self, key: str) -> str | None:
        """The port the dropped wire goes to on block ``key`` (None: not opened for a wire)."""
        return None if self._ports is None else self._ports.get(key)

    def _blocks(self, text: str) -> list[Block]:
        if self._ports is not None:
            if not text.strip():
                return [b for b in BLOCKS if b.key in self._ports]
            return [b for b in search(text) + search(text, catalog_blocks()) if b.key in self._ports]
        if not text.strip():
            return list(BLOCKS)
        return search(text) + search(text, catalog_blocks())

    def entries(self, text: str) -> list[tuple[str, str, str]]:
        if self._ports is None:
            return [(f"{b.title}    ·  {b.category}", b.key, b.description) for b in self._blocks(text)]
        return [(f"{b.title}    ·  {self._ports[b.key]}", b.key, b.description) for b in self._blocks(text)]

    def _add(self, key: str) -> None:
        pos = self.scene_pos
        view = self.parentWidget()
        if isinstance(view, QtWidgets.QGraphicsView):
            previews = bool(getattr(view.scene(), "show_previews", False))
            pos = fit_in_view(view, pos, block_height(key, previews))
        self.chosen.emit(key, pos)
