"""Edit > Find Node (Ctrl+F): a search box over the canvas listing the graph's nodes by name,
operator or id (fuzzy, best first); Enter or a click emits ``accepted(node_id)``, and
:class:`FindNode` selects that node and brings it into view. In a 35-node example this
replaces up to two dozen presses of Ctrl+Tab."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from PySide6 import QtWidgets

from nodeeditor.graph import Graph
from nodeeditor.graph import nodes as N

from .blocks import fuzzy_score
from .canvas import GraphScene, GraphView
from .search_popup import SearchPopup
from .status_line import ShowStatus

#: Zoom a found node is shown at when the view is zoomed further out (its text readable).
GO_TO_ZOOM = 1.0


def node_kind(node: N.Node) -> str:
    """What a node is, as the list shows it: its operator, or its source/output kind."""
    return node.op if isinstance(node, N.OperatorNode) else node.kind


def find_nodes(graph: Graph, text: str) -> list[N.Node]:
    """Nodes of ``graph`` matching ``text`` by name, operator/kind or id, best first; all of
    them, in reading order (top to bottom, left to right), for an empty ``text``."""
    ordered = sorted(graph.nodes, key=lambda n: (n.position[1], n.position[0]))
    if not text.strip():
        return ordered
    scored = []
    for i, node in enumerate(ordered):
        scores = [fuzzy_score(text, t) for t in (node.name, node_kind(node), node.id) if t]
        best = max((s for s in scores if s is not None), default=None)
        if best is not None:
            scored.append((-best, i, node))
    return [n for _, _, n in sorted(scored, key=lambda x: (x[0], x[1]))]


def node_entry(node: N.Node, name_shared: bool) -> tuple[str, str]:
    """(list text, tooltip) of one node in the Find box: its name and kind; when another node
    has the same name, also its id and position, which tell the two apart."""
    x, y = node.position
    where = f"[{node.id}]  ·  at ({x:.0f}, {y:.0f})"
    text = f"{node.name or node.id}    ·  {node_kind(node)}" + (f"  ·  {where}" if name_shared else "")
    return text, f"{node.name} [{node.id}] · {node_kind(node)} at ({x:.0f}, {y:.0f})"


class FindNodeBox(SearchPopup):
    def __init__(self, parent: QtWidgets.QWidget, graph_of: Callable[[], Graph]) -> None:
        super().__init__(parent, "Find node by name, operator or id…", width=420)
        self._graph_of = graph_of

    def entries(self, text: str) -> list[tuple[str, str, str]]:
        graph = self._graph_of()
        names = Counter(n.name for n in graph.nodes)
        entries = []
        for node in find_nodes(graph, text):
            label, tip = node_entry(node, names[node.name] > 1)
            entries.append((label, node.id, tip))
        return entries


class FindNode:
    """``open()`` shows ``box`` at the top of the canvas; the node it accepts is selected
    alone and brought into view (:meth:`go_to`)."""

    def __init__(self, box: FindNodeBox, graph_of: Callable[[], Graph], scene: GraphScene, view: GraphView,
                 status: ShowStatus) -> None:
        self.box, self._graph_of, self.scene, self.view, self._status = box, graph_of, scene, view, status
        box.accepted.connect(self.go_to)

    def open(self) -> None:
        self.box.open_at_top()

    def go_to(self, node_id: str) -> None:
        """Select ``node_id`` alone and bring it to the middle of the canvas, zooming in to
        :data:`GO_TO_ZOOM` when the view is zoomed out below it (after Frame All of a large
        graph the node would be found but unreadable)."""
        graph = self._graph_of()
        if not graph.has_node(node_id):
            return
        self.scene.select_nodes([node_id])
        if self.view.zoom < GO_TO_ZOOM:
            factor = GO_TO_ZOOM / self.view.zoom
            self.view.scale(factor, factor)
        self.view.centerOn(self.scene.node_item(node_id).sceneBoundingRect().center())
        node = graph.node(node_id)
        self._status(f"Found {node.name or node.id}")
