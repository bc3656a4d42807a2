"""A read-only view of a graph: the :class:`~nodeeditor.graph.document.Graph` methods that
the modules below the document (type inference, connection rules, static checks, layout)
read. They take a :class:`GraphView` instead of importing ``document.py``, so the document
can use them without an import cycle. ``Graph`` satisfies it; a test may pass any object
with these members. None of them changes anything.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

from . import nodes as N
from .dims import SymbolConflict
from .foreign import ForeignCall
from .info import NodeInfo
from .paths import FileScope


class GraphView(Protocol):
    @property
    def opset(self) -> int:
        """The document's ONNX opset."""

    def opsets(self) -> dict[str, int]:
        """domain -> opset (``""``: the default domain)."""

    def foreign_call(self, node_id: str) -> ForeignCall:
        """A foreign node as the registered runtime sees it."""

    def symbol_conflict(self, node_id: str) -> SymbolConflict | None:
        """Where a graph input's example disagrees with an earlier input on a named dimension."""

    @property
    def folder(self) -> Path | None:
        """The folder relative file-source paths resolve against (None: never saved)."""

    @property
    def file_scope(self) -> FileScope:
        """Where file sources resolve and which files they may read."""

    @property
    def nodes(self) -> tuple[N.Node, ...]:
        """All nodes in insertion order."""

    @property
    def edges(self) -> tuple[N.Edge, ...]:
        """All edges, in the order they were made."""

    def has_node(self, node_id: str) -> bool: ...

    def node(self, node_id: str) -> N.Node:
        """The node with that id; KeyError naming it otherwise."""

    def node_info(self, node_id: str) -> NodeInfo:
        """Static type information of the node."""

    def edge_into(self, node_id: str, port: str) -> N.Edge | None:
        """The edge feeding that input port, if any."""

    def downstream(self, node_id: str) -> set[str]:
        """Ids of every node reachable from ``node_id``."""

    def topological_order(self, node_ids: Iterable[str] | None = None) -> list[str]:
        """Node ids so every node comes after its inputs; ties keep insertion order."""
