"""What a block is (:class:`Block`), shared by the built-in blocks (:mod:`.blocks`) and the
ONNX "any op" blocks (:mod:`.onnx_blocks`). No Qt here.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph


@dataclass(frozen=True)
class Block:
    """Something a person can add to a graph: a stable ``key`` (also the drag-and-drop
    payload), a title, a category, a description and a ``make(graph, position)`` that builds a
    fresh, not yet added node object (so an undo command can add and remove that same object)."""

    key: str
    title: str
    category: str
    description: str
    make: Callable[[Graph, tuple[float, float]], N.Node]
