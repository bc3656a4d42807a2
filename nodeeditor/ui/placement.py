"""Where new or taller nodes go on the canvas, so they neither bury nodes already there nor
land out of sight. Pure decisions on the scene's rectangles (``layout.free_offset`` and
``layout.make_room`` do the geometry); nothing here changes the graph or the scene.

- :func:`block_position`: a block added at a point (a drop, the Tab box, the palette);
- :func:`paste_offset`: how far a pasted or duplicated group moves;
- :func:`preview_moves`: the nodes that inline previews would make overlap the node above.
"""
from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtWidgets

from .canvas import GraphScene, style
from .layout import free_offset, make_room

Rect = tuple[float, float, float, float]
#: A new block's top is this far above the point it is added at (its title row is there).
TITLE_OFFSET = 30.0
#: Height assumed for a node not yet drawn (a new block, a pasted group's lowest node).
NEW_NODE_HEIGHT = 120.0


def occupied(scene: GraphScene) -> list[Rect]:
    """The scene rectangles of the nodes on the canvas (drawn or not, with or without an item yet)."""
    return [(r.x(), r.y(), r.width(), r.height())
            for _nid, r, _selected in scene.node_boxes(drawn_only=False)]


def block_position(scene: GraphScene, view: QtWidgets.QGraphicsView, scene_pos: QtCore.QPointF,
                   avoid_overlap: bool = False, height: float = NEW_NODE_HEIGHT) -> tuple[int, int]:
    """The position of a new block (``height`` high) centred at ``scene_pos``; with
    ``avoid_overlap``, the nearest free place inside the visible part of the canvas, else
    below or right of it (the Tab box, a wire dropped on the canvas, the palette)."""
    pos = (round(scene_pos.x() - style.NODE_WIDTH / 2), round(scene_pos.y() - TITLE_OFFSET))
    if avoid_overlap:
        seen = view.mapToScene(view.viewport().rect()).boundingRect().adjusted(10, 10, -10, -10)
        dx, dy = free_offset((pos[0], pos[1], style.NODE_WIDTH, height), occupied(scene),
                             within=(seen.x(), seen.y(), seen.width(), seen.height()))
        pos = (round(pos[0] + dx), round(pos[1] + dy))
    return pos


def paste_offset(scene: GraphScene, data: dict[str, Any], offset: tuple[float, float]) -> tuple[float, float]:
    """``offset`` for pasting ``data`` (``Graph.to_dict`` nodes), moved further down or right
    when the group would land on nodes already there; malformed data keeps ``offset`` (the
    paste itself reports the problem)."""
    try:
        xs = [float(n["position"][0]) + offset[0] for n in data["nodes"]]
        ys = [float(n["position"][1]) + offset[1] for n in data["nodes"]]
        group = (min(xs), min(ys), max(xs) - min(xs) + style.NODE_WIDTH, max(ys) - min(ys) + NEW_NODE_HEIGHT)
        dx, dy = free_offset(group, occupied(scene))
    except (KeyError, TypeError, ValueError, IndexError):
        return offset
    return offset[0] + dx, offset[1] + dy


def preview_moves(scene: GraphScene) -> dict[str, tuple[float, float]]:
    """node id -> new position for the nodes that, with previews shown (the items' current
    shapes), would overlap the node above them."""
    boxes = {}
    for item in scene.node_items():
        rect = item.mapRectToScene(item.shape().boundingRect())
        boxes[item.node_id] = (item.pos().x(), item.pos().y(), rect.width(), rect.height())
    return make_room(boxes)
