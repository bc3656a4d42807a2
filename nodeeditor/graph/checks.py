"""Warnings that need index values but no kernel run.

A scatter with ``reduction="none"`` (and Scatter, TensorScatter) whose indices hit one
target cell more than once has a result that depends on an order the spec leaves open.
``ops.index_map`` (the same code the kernels use) knows which cells are hit twice.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import ops

from . import nodes as N
from .inference import resolve_path
from .sources import SourceError, generate, load_file

if TYPE_CHECKING:
    from .document import Graph



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


def source_value(graph: Graph, node: N.Node) -> np.ndarray:
    """The tensor a source node produces (SourceError if it cannot)."""
    if isinstance(node, N.LiteralSource):
        return node.value
    if isinstance(node, N.InputSource):
        return node.example
    if isinstance(node, N.GeneratorSource):
        return generate(node.generator, node.params)
    if isinstance(node, N.FileSource):
        return load_file(resolve_path(graph, node.path), node.key, node.dtype)
    raise TypeError(f"{node.label} is not a source")


def static_duplicate_warnings(graph: Graph) -> dict[str, str]:
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
            if not src.is_source:
                break
            try:
                values.append(source_value(graph, src))
            except SourceError:
                break
        else:
            attrs = node.schema.check_attributes(node.attributes, graph.opset)
            warning = duplicate_warning(node.op, values, attrs, node.label)
            if warning:
                out[node.id] = warning
    return out
