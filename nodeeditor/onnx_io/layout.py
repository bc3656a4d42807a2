"""A layered left-to-right layout for graphs that arrive without positions (imports).

Columns: an operator sits one column right of its deepest input; a source sits just left of
its nearest consumer (not in one far-left column), so short wires stay short. Rows: a few
barycentre sweeps (right to left: a node moves towards the mean height of its consumers; left
to right: towards the mean of its inputs), each column then spread so nodes keep
``ROW_HEIGHT`` apart. Deterministic: ties keep the given order.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

COLUMN_WIDTH = 260.0
ROW_HEIGHT = 150.0
SWEEPS = 3


def layered_positions(order: Iterable[str],
                      predecessors: Mapping[str, Iterable[str]]) -> dict[str, tuple[float, float]]:
    """Positions for nodes given in topological ``order`` (see the module docstring)."""
    order = list(order)
    preds = {n: [p for p in predecessors.get(n, ()) if p != n] for n in order}
    succs: dict[str, list[str]] = {n: [] for n in order}
    for node in order:
        for p in preds[node]:
            if p in succs:
                succs[p].append(node)
    depth: dict[str, int] = {}
    for node in order:
        depth[node] = 1 + max((depth[p] for p in preds[node] if p in depth), default=-1)
    for node in reversed(order):  # sources move right, next to their nearest consumer
        if not preds[node] and succs[node]:
            depth[node] = max(0, min(depth[s] for s in succs[node]) - 1)
    columns: dict[int, list[str]] = {}
    for node in order:
        columns.setdefault(depth[node], []).append(node)
    y = {node: i * ROW_HEIGHT for col in columns.values() for i, node in enumerate(col)}
    rank = {node: i for i, node in enumerate(order)}

    def place(column: list[str], neighbours: Mapping[str, list[str]]) -> None:
        wanted = {n: (sum(y[m] for m in neighbours[n]) / len(neighbours[n]) if neighbours[n] else y[n])
                  for n in column}
        column.sort(key=lambda n: (wanted[n], rank[n]))
        floor = None
        for n in column:
            y[n] = wanted[n] if floor is None else max(wanted[n], floor)
            floor = y[n] + ROW_HEIGHT

    keys = sorted(columns)
    for _ in range(SWEEPS):
        for c in reversed(keys):
            place(columns[c], succs)
        for c in keys:
            place(columns[c], preds)
    top = min(y.values(), default=0.0)
    return {node: (depth[node] * COLUMN_WIDTH, y[node] - top) for node in order}
