"""Placing nodes on the canvas (pure functions; Qt only for the style constants).

``layered_layout(graph)`` is the editor's Auto Layout: the graph's layered layout
(:func:`nodeeditor.graph.layout.layered_positions`, which an ONNX import uses too) fed with
the size of each node as the canvas draws it, and each collapsed group as one block of its
drawn size (``blocks``: its members move with it). Apply the result with an undo command.
``make_room`` and ``free_offset`` keep nodes from overlapping when previews open or blocks
are added.
"""
from __future__ import annotations

from collections.abc import Sequence

from nodeeditor.graph.document import Graph
from nodeeditor.graph.layout import Block, layered_positions

from .canvas.style import NODE_WIDTH


def node_height(graph: Graph, node_id: str, extra: float = 0.0) -> float:
    """Rough height of a node item (header plus one row per port, plus ``extra``)."""
    node = graph.node(node_id)
    return 52.0 + 20.0 * (len(node.input_ports()) + len(node.output_ports())) + extra


def layered_layout(graph: Graph, origin: tuple[float, float] = (0.0, 0.0),
                   extra_height: float = 0.0, blocks: Sequence[Block] = ()) -> dict[str, tuple[float, float]]:
    """node id -> position for the whole graph (``extra_height``: room added to every node,
    e.g. for inline previews; ``blocks``: the collapsed groups as drawn)."""
    hidden = {n for b in blocks for n in b.members}
    sizes = {nid: (NODE_WIDTH, node_height(graph, nid, extra_height)) for nid in graph.node_ids if nid not in hidden}
    return layered_positions(graph, sizes, origin, blocks)


def make_room(boxes: dict[str, tuple[float, float, float, float]], gap: float = 16.0) -> dict[str, tuple[float, float]]:
    """New (x, y) positions for the nodes that must move down so that no two boxes overlap.

    ``boxes`` maps node id -> (x, y, width, height) in scene units. Nodes are taken top to
    bottom (ties by x); a node that overlaps one already placed above it in the same x-range
    moves down to ``gap`` below it, and nothing else moves. The result holds only nodes that
    moved, so an undo command restores exactly those.
    """
    placed: list[tuple[float, float, float, float]] = []
    moved: dict[str, tuple[float, float]] = {}
    for nid in sorted(boxes, key=lambda n: (boxes[n][1], boxes[n][0])):
        x, y, w, h = boxes[nid]
        top = y
        changed = True
        while changed:
            changed = False
            for px, py, pw, ph in placed:
                if x < px + pw and px < x + w and top < py + ph + gap and py <= top:
                    top = py + ph + gap
                    changed = True
        if top != y:
            moved[nid] = (x, top)
        placed.append((x, top, w, h))
    return moved


Rect = tuple[float, float, float, float]   # x, y, width, height


def _overlaps(a: Rect, b: Rect, margin: float) -> bool:
    return (a[0] < b[0] + b[2] + margin and b[0] < a[0] + a[2] + margin
            and a[1] < b[1] + b[3] + margin and b[1] < a[1] + a[3] + margin)


def _inside(a: Rect, b: Rect) -> bool:
    return b[0] <= a[0] and b[1] <= a[1] and a[0] + a[2] <= b[0] + b[2] and a[1] + a[3] <= b[1] + b[3]


def free_offset(group: Rect, occupied: list[Rect], step: float = 40.0, margin: float = 12.0,
                tries: int = 60, within: Rect | None = None) -> tuple[float, float]:
    """How far to move ``group`` (the bounding box of what is being placed) so that it overlaps
    none of ``occupied``: (0, 0) when it already fits, else the first free place found
    stepping down, then right, in ``step`` units (``tries`` places each way at most; after
    that (0, 0): overlapping is better than landing far out of sight).

    With ``within`` (the part of the canvas in view), the nearest free place that lies wholly
    inside ``within`` comes first (ties: below, then right of the start), so a block added
    "at the centre" stays in sight; only when the view has no room left is the search above
    used (the caller then scrolls to the block)."""
    if within is not None:
        fits = []
        nx = int((within[2] - group[2]) // step) + 1
        ny = int((within[3] - group[3]) // step) + 1
        x0 = within[0] + ((group[0] - within[0]) % step)   # the grid through the start point
        y0 = within[1] + ((group[1] - within[1]) % step)
        for i in range(max(0, nx)):
            for j in range(max(0, ny)):
                moved = (x0 + i * step, y0 + j * step, group[2], group[3])
                if not _inside(moved, within):
                    continue
                dx, dy = moved[0] - group[0], moved[1] - group[1]
                fits.append(((dx * dx + dy * dy, dy < 0, dx < 0, abs(dy)), (dx, dy), moved))
        for _key, offset, moved in sorted(fits, key=lambda f: f[0]):
            if not any(_overlaps(moved, r, margin) for r in occupied):
                return offset
    for dx_steps in range(0, tries, 4):
        for dy_steps in range(tries):
            dx, dy = dx_steps * step * 2, dy_steps * step
            moved = (group[0] + dx, group[1] + dy, group[2], group[3])
            if not any(_overlaps(moved, r, margin) for r in occupied):
                return dx, dy
    return 0.0, 0.0
