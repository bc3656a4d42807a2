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
- :class:`Block`: nodes drawn as one block (a collapsed group) are laid out as one node of
  the block's size, placed where the block's first member in topological order would be; the
  members all move by how far the block moves, so they keep their places relative to one
  another and to the block. A wire that would point back (a group that reads a tensor made
  from its own output) is left out of the ordering, so the blocks still make an order.
"""
from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Block:
    """Nodes drawn as one block: its ``members`` (node ids), its drawn ``size`` (width,
    height) and where its top-left corner is now (``at``)."""

    members: tuple[str, ...]
    size: Size
    at: tuple[float, float]


def layered_positions(graph: GraphView, sizes: Mapping[str, Size] | None = None,
                      origin: tuple[float, float] = (0.0, 0.0),
                      blocks: Sequence[Block] = ()) -> dict[str, tuple[float, float]]:
    """node id -> (x, y) of its top-left corner, for every node of ``graph`` (see the module
    docstring). ``sizes``: node id -> (width, height); missing nodes get ``DEFAULT_NODE_SIZE``.
    ``blocks``: each laid out as one node of its size, its members moved with it (a node in
    several blocks counts in the first)."""
    sizes = dict(sizes or {})
    unit: dict[str, str] = {}          # node id -> the id it is laid out as (its block's, or its own)
    moved_with: dict[str, tuple[Block, list[str]]] = {}  # a block's id -> the block, its members
    for i, block in enumerate(blocks):
        members = [n for n in block.members if graph.has_node(n) and n not in unit]
        if members:
            key = f"block {i}"
            while graph.has_node(key):
                key += "'"
            moved_with[key] = (block, members)
            sizes[key] = block.size
            unit.update(dict.fromkeys(members, key))
    links = list(dict.fromkeys((unit.get(e.src, e.src), unit.get(e.dst, e.dst)) for e in graph.edges))
    order = _unit_order(list(dict.fromkeys(unit.get(n, n) for n in graph.topological_order())), links)
    rank = {n: i for i, n in enumerate(order)}
    preds: dict[str, list[str]] = {n: [] for n in order}
    succs: dict[str, list[str]] = {n: [] for n in order}
    for src, dst in links:
        if rank[src] < rank[dst]:
            preds[dst].append(src)
            succs[src].append(dst)
    outputs = {n for n in order if n not in moved_with and isinstance(graph.node(n), N.OutputNode)}
    pieces = [_layered(piece, preds, succs, sizes, outputs) for piece in _pieces(order, preds, succs)]
    placed = _packed(pieces, sizes, origin)
    for key, (block, members) in moved_with.items():
        x, y = placed.pop(key)
        dx, dy = x - block.at[0], y - block.at[1]
        for member in members:
            px, py = graph.node(member).position
            placed[member] = (px + dx, py + dy)
    return placed


def _unit_order(units: list[str], links: list[tuple[str, str]]) -> list[str]:
    """``units`` (in the graph's topological order of their first node) so that each comes
    after those linked into it, ties kept in the given order; where blocks make a cycle, the
    first unit still waiting goes next (its links from the units after it point back)."""
    place = {u: i for i, u in enumerate(units)}
    waiting = dict.fromkeys(units, 0)
    after: dict[str, list[str]] = {u: [] for u in units}
    for src, dst in links:
        if src != dst:
            waiting[dst] += 1
            after[src].append(dst)
    ready = [place[u] for u in units if waiting[u] == 0]
    heapq.heapify(ready)
    done: dict[str, None] = {}
    pending = 0                          # every unit before this index is done
    while len(done) < len(units):
        if not ready:                    # a cycle through a block: take the first unit waiting
            while units[pending] in done:
                pending += 1
            ready.append(pending)
        unit = units[heapq.heappop(ready)]
        if unit in done:
            continue
        done[unit] = None
        for dst in after[unit]:
            waiting[dst] -= 1
            if waiting[dst] == 0 and dst not in done:
                heapq.heappush(ready, place[dst])
    return list(done)


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


def _layered(order: list[str], preds: Mapping[str, list[str]], succs: Mapping[str, list[str]],
             sizes: Mapping[str, Size], outputs: set[str]) -> dict[str, tuple[float, float]]:
    """The layered layout of one piece (nodes ``order``, in topological order) from (0, 0);
    ``outputs`` go to its last column."""
    rank = {n: i for i, n in enumerate(order)}

    depth: dict[str, int] = {}
    for n in order:
        depth[n] = 1 + max((depth[p] for p in preds[n]), default=-1)
    last = max(depth.values(), default=0)
    for n in reversed(order):  # consumers before their inputs
        if n in outputs:
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
