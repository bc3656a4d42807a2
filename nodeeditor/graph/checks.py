"""Warnings that need index values but no kernel run.

A scatter with ``reduction="none"`` (and Scatter, TensorScatter) whose indices hit one
target cell more than once has a result that depends on an order the spec leaves open.
``ops.index_map`` (the same code the kernels use) knows which cells are hit twice.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import ops

from . import nodes as N
from .sources import SourceError
from .view import GraphView


def _writes(op: str) -> bool:
    """Whether ``op`` writes (a scatter), so that duplicate targets matter (its OpDef says)."""
    return op in ops.OPDEFS and ops.OPDEFS[op].writes


def duplicate_warning(op: str, inputs: Sequence[Any], attrs: Mapping[str, Any] | None, label: str) -> str | None:
    """The warning for ``op`` applied to ``inputs`` when targets repeat under reduction none,
    else None (also None when the index map cannot be built: the kernel reports that)."""
    if not _writes(op) or (attrs or {}).get("reduction", "none") != "none":
        return None
    try:
        imap = ops.index_map(op, list(inputs), dict(attrs or {}))
        if not imap.has_duplicates():
            return None
        cells = int(np.count_nonzero(imap.target_counts() > 1))
    except Exception:  # noqa: BLE001 - a failing check only loses the warning
        return None
    return (f"{label}: {cells} target cell(s) are written more than once with reduction='none'; "
            f"the spec leaves the order open (IndexFlow: the last update in row-major order wins)")


def static_duplicate_warnings(graph: GraphView) -> dict[str, str]:
    """Node id -> duplicate warning, for scatters fed directly by sources (no kernel runs)."""
    out: dict[str, str] = {}
    for node in graph.nodes:
        if not isinstance(node, N.OperatorNode) or not _writes(node.op) or not graph.node_info(node.id).ok:
            continue
        values: list[Any] = []
        for port in node.input_ports():
            edge = graph.edge_into(node.id, port)
            if edge is None:
                values.append(None)
                continue
            src = graph.node(edge.src)
            if not isinstance(src, N.Source):
                break
            try:
                values.append(src.source_value(graph.file_scope))
            except SourceError:
                break
        else:
            attrs = node.schema.check_attributes(node.attributes, graph.opset)
            warning = duplicate_warning(node.op, values, attrs, node.label)
            if warning:
                out[node.id] = warning
    return out
