"""The Tab box: a small search field with a fuzzy-matched list of every block, shown at the
cursor over the canvas. Enter (or a click) emits ``chosen(key, scene_pos)``; Esc closes.

The new block's title is centred on ``scene_pos`` (``placement.block_position``). Near the
canvas edge that would put half the block out of view, so ``scene_pos`` is first moved (as
little as needed) so that the whole block, its ports counted, lies inside the visible part
of the canvas (see :func:`fit_in_view`)."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from nodeeditor.graph import Graph

from .blocks import BLOCKS, block, search
from .canvas import style
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


class QuickAddBox(SearchPopup):
    """The Tab box. ``chosen(key, scene_pos)``: the block to add and where (see the module
    docstring)."""

    chosen = QtCore.Signal(str, QtCore.QPointF)

    def __init__(self, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent, "Add block…")
        self.scene_pos = QtCore.QPointF()
        self.accepted.connect(self._add)

    def popup(self, view_pos: QtCore.QPoint, scene_pos: QtCore.QPointF) -> None:
        """Show at ``view_pos`` (parent coordinates) for adding at ``scene_pos``."""
        self.scene_pos = QtCore.QPointF(scene_pos)
        self.open_at(view_pos)

    def entries(self, text: str) -> list[tuple[str, str, str]]:
        return [(f"{b.title}    ·  {b.category}", b.key, b.description)
                for b in (search(text) if text.strip() else BLOCKS)]

    def _add(self, key: str) -> None:
        pos = self.scene_pos
        view = self.parentWidget()
        if isinstance(view, QtWidgets.QGraphicsView):
            previews = bool(getattr(view.scene(), "show_previews", False))
            pos = fit_in_view(view, pos, block_height(key, previews))
        self.chosen.emit(key, pos)
