"""A layered, left-to-right layout: node positions computed from the wiring alone.

Used for graphs that arrive without positions (ONNX import) and by the editor's Auto Layout
(which passes the size of each node as drawn). Pure function, no Qt:

- Columns: a node sits one column right of its deepest input (so every edge points right);
  output nodes go to the last column; a node without inputs (a source) sits just left of its
  nearest consumer rather than in one far-left column, so short wires stay short. Columns
  are ``max node width + COLUMN_GAP`` apart.
- Rows: a few barycentre sweeps (right to left: a node moves towards the mean height of its
  consumers; left to right: towards the mean of its inputs), comparing node centres; after
  each, a column is spread so nodes keep ``ROW_GAP`` between them, each run of nodes that
  would overlap centred on where its nodes want to be (so fifty nodes fed by one input stack
  around it, not below it).
- Separate pieces (weakly connected components: fifteen independent examples, say) are laid
  out each on its own and packed in rows, left to right, each row about ``ASPECT`` times as
  wide as the whole is tall, pieces ``PIECE_GAP`` apart, so Frame All shows them at a
  readable size instead of one tall column. A piece's order is that of its first node in
  the topological order.
- The top-left of the result is ``origin``. Deterministic: ties keep the topological order.
"""
from __future__ import annotations

from collections.abc import Mapping

from . import nodes as N
from .view import GraphView

#: (width, height) assumed for a node whose size is not given.
DEFAULT_NODE_SIZE = (230.0, 110.0)
COLUMN_GAP = 70.0
ROW_GAP = 40.0
SWEEPS = 3
#: Width over height the rows of separate pieces aim at (a wide screen's canvas).
ASPECT = 1.6
PIECE_GAP = 120.0

Size = tuple[float, float]


def layered_positions(graph: GraphView, sizes: Mapping[str, Size] | None = None,
                      origin: tuple[float, float] = (0.0, 0.0)) -> dict[str, tuple[float, float]]:
    """node id -> (x, y) of its top-left corner, for every node of ``graph`` (see the module
    docstring). ``sizes``: node id -> (width, height); missing nodes get ``DEFAULT_NODE_SIZE``."""
    sizes = sizes or {}
    order = graph.topological_order()
    preds: dict[str, list[str]] = {n: [] for n in order}
    succs: dict[str, list[str]] = {n: [] for n in order}
    for e in graph.edges:
        if e.src != e.dst and e.src not in preds[e.dst]:
            preds[e.dst].append(e.src)
            succs[e.src].append(e.dst)
    pieces = [_layered(graph, piece, preds, succs, sizes) for piece in _pieces(order, preds, succs)]
    return _packed(pieces, sizes, origin)


def _pieces(order: list[str], preds: Mapping[str, list[str]], succs: Mapping[str, list[str]]) -> list[list[str]]:
    """The weakly connected components, each in topological order, ordered by their first node."""
    piece_of: dict[str, int] = {}
    pieces: list[list[str]] = []
    for start in order:
        if start in piece_of:
            continue
        piece_of[start] = len(pieces)
        stack = [start]
        while stack:
            n = stack.pop()
            for m in (*preds[n], *succs[n]):
                if m not in piece_of:
                    piece_of[m] = len(pieces)
                    stack.append(m)
        pieces.append([])
    for n in order:
        pieces[piece_of[n]].append(n)
    return pieces


def _packed(pieces: list[dict[str, tuple[float, float]]], sizes: Mapping[str, Size],
            origin: tuple[float, float]) -> dict[str, tuple[float, float]]:
    """The pieces' positions (each from (0, 0)) moved into rows (see the module docstring)."""
    if not pieces:
        return {}
    if len(pieces) == 1:
        return {n: (origin[0] + x, origin[1] + y) for n, (x, y) in pieces[0].items()}
    extents = []
    for piece in pieces:
        right = max(x + float(sizes.get(n, DEFAULT_NODE_SIZE)[0]) for n, (x, _) in piece.items())
        bottom = max(y + float(sizes.get(n, DEFAULT_NODE_SIZE)[1]) for n, (_, y) in piece.items())
        extents.append((right, bottom))
    area = sum((w + PIECE_GAP) * (h + PIECE_GAP) for w, h in extents)
    row_width = max(max(w for w, _ in extents), (area * ASPECT) ** 0.5)
    out: dict[str, tuple[float, float]] = {}
    x = y = row_height = 0.0
    for piece, (w, h) in zip(pieces, extents, strict=True):
        if x > 0 and x + w > row_width:
            x, y, row_height = 0.0, y + row_height + PIECE_GAP, 0.0
        out.update({n: (origin[0] + x + px, origin[1] + y + py) for n, (px, py) in piece.items()})
        x += w + PIECE_GAP
        row_height = max(row_height, h)
    return out


def _layered(graph: GraphView, order: list[str], preds: Mapping[str, list[str]], succs: Mapping[str, list[str]],
             sizes: Mapping[str, Size]) -> dict[str, tuple[float, float]]:
    """The layered layout of one piece (nodes ``order``, in topological order) from (0, 0)."""
    rank = {n: i for i, n in enumerate(order)}

    depth: dict[str, int] = {}
    for n in order:
        depth[n] = 1 + max((depth[p] for p in preds[n]), default=-1)
    last = max(depth.values(), default=0)
    for n in reversed(order):  # consumers before their inputs
        if isinstance(graph.node(n), N.OutputNode):
            depth[n] = last
        elif not preds[n] and succs[n]:
            depth[n] = max(0, min(depth[s] for s in succs[n]) - 1)
    columns: dict[int, list[str]] = {}
    for n in order:
        columns.setdefault(depth[n], []).append(n)

    height = {n: float(sizes.get(n, DEFAULT_NODE_SIZE)[1]) for n in order}
    centre: dict[str, float] = {}

    def spread(column: list[str], wanted: Mapping[str, float]) -> None:
        # Nodes in order of their wanted centres, ROW_GAP apart, each run of nodes that would
        # overlap centred on its wanted centres (pooling adjacent violators): a column of fifty
        # nodes that all want the centre of one input is stacked around it, not hung below it.
        column.sort(key=lambda n: (wanted[n], rank[n]))
        blocks: list[list] = []   # [first index, count, sum of wanted tops minus offsets, height]
        for i, n in enumerate(column):
            block = [i, 1, wanted[n] - height[n] / 2, height[n]]
            while blocks:
                prev = blocks[-1]
                if prev[2] / prev[1] + prev[3] + ROW_GAP <= block[2] / block[1]:
                    break
                shift = prev[3] + ROW_GAP     # the block's nodes sit this far below prev's top
                block = [prev[0], prev[1] + block[1], prev[2] + block[2] - block[1] * shift, shift + block[3]]
                blocks.pop()
            blocks.append(block)
        for first, count, total, _ in blocks:
            top = total / count
            for n in column[first:first + count]:
                centre[n] = top + height[n] / 2
                top += height[n] + ROW_GAP

    for column in columns.values():
        stacked, y = {}, 0.0
        for n in column:
            stacked[n] = y + height[n] / 2
            y += height[n] + ROW_GAP
        spread(column, stacked)

    def mean_of(column: list[str], neighbours: Mapping[str, list[str]]) -> dict[str, float]:
        return {n: sum(centre[m] for m in neighbours[n]) / len(neighbours[n]) if neighbours[n] else centre[n]
                for n in column}

    keys = sorted(columns)
    for _ in range(SWEEPS):
        for c in reversed(keys):
            spread(columns[c], mean_of(columns[c], succs))
        for c in keys:
            spread(columns[c], mean_of(columns[c], preds))

    pitch = max((float(sizes.get(n, DEFAULT_NODE_SIZE)[0]) for n in order), default=0.0) + COLUMN_GAP
    top = min((centre[n] - height[n] / 2 for n in order), default=0.0)
    first = min(keys, default=0)
    return {n: ((depth[n] - first) * pitch, centre[n] - height[n] / 2 - top) for n in order}
