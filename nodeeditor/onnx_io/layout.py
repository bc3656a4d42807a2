"""A layered left-to-right layout for graphs that arrive without positions (imports)."""
from __future__ import annotations

from typing import Iterable, Mapping

COLUMN_WIDTH = 260.0
ROW_HEIGHT = 150.0


def layered_positions(order: Iterable[str], predecessors: Mapping[str, Iterable[str]]) -> dict[str, tuple[float, float]]:
    """Positions for nodes given in topological ``order``: a node's column is one more than its
    deepest predecessor (sources in column 0, on the left); rows fill each column top-down in
    the given order."""
    depth: dict[str, int] = {}
    for node in order:
        depth[node] = 1 + max((depth[p] for p in predecessors.get(node, ()) if p in depth), default=-1)
    rows: dict[int, int] = {}
    positions = {}
    for node in order:
        column = depth[node]
        row = rows.get(column, 0)
        rows[column] = row + 1
        positions[node] = (column * COLUMN_WIDTH, row * ROW_HEIGHT)
    return positions
