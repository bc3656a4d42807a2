"""Edit > Connect Ports (C): wire the selected node without the mouse.

A search box over the canvas lists every wire the graph would accept that starts or ends at the
selected node (``Graph.can_replace`` says which), and the wires into it that can be removed:

* ``data ← table · output   float32[2000, 2000]`` feeds the node's input ``data`` from
  ``table``'s output (of that type); when that input is already fed, the entry says what it
  replaces;
* ``output → sum into rows · updates`` feeds another node's input from this node's output;
* ``data ✕ disconnect (from table · output)`` removes the wire into ``data``.

Inputs that nothing feeds yet come first (wiring a new block is the common case), then the
node's own output, then replacements and removals; within each, the other nodes in reading
order. Typing filters the list (fuzzy, as the Tab box does); Enter applies the entry as one
undoable step. ``Choice.key()`` is what the box emits; :func:`parse_key` reads it back.

:class:`ConnectPorts` is the menu action's controller: it opens the box for the selected
node (or says why not) and turns an accepted entry into one ``ConnectCommand`` or
``DisconnectCommand`` pushed through ``push``; a wire the graph refuses by then (it changed
since the box opened) goes to ``refused`` like a refused drag.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6 import QtGui, QtWidgets

from nodeeditor.graph import Graph
from nodeeditor.graph import nodes as N

from . import commands as C
from .blocks import fuzzy_score
from .canvas import GraphScene
from .search_popup import SearchPopup
from .status_line import ShowStatus

_SEP = "\x1f"


@dataclass(frozen=True)
class Choice:
    """One entry: connect ``src.src_port -> dst.dst_port`` (replacing ``displaced``, the wire
    now feeding that input, if any), or with ``remove`` the wire into ``dst.dst_port``."""

    src: str
    src_port: str
    dst: str
    dst_port: str
    displaced: N.Edge | None = None
    remove: bool = False
    label: str = ""

    def key(self) -> str:
        return _SEP.join(("remove" if self.remove else "connect", self.src, self.src_port, self.dst, self.dst_port))


def parse_key(key: str) -> tuple[str, str, str, str, str]:
    """(action, src, src_port, dst, dst_port) of a :meth:`Choice.key`."""
    action, src, src_port, dst, dst_port = key.split(_SEP)
    return action, src, src_port, dst, dst_port


def _end(graph: Graph, node_id: str, port: str) -> str:
    node = graph.node(node_id)
    return f"{node.name or node.id} · {port}"


def _typed(graph: Graph, node_id: str, port: str) -> str:
    """The type the wire would carry ("   float32[3, 4]"), or nothing while it is unknown."""
    ttype = graph.output_type(node_id, port)
    return f"   {ttype}" if ttype is not None else ""


def _reading_order(graph: Graph) -> list[N.Node]:
    return sorted(graph.nodes, key=lambda n: (n.position[1], n.position[0]))


def connection_choices(graph: Graph, node_id: str) -> list[Choice]:
    """Every change of one wire at ``node_id`` that the graph accepts, in the order of the
    module docstring."""
    node = graph.node(node_id)
    others = [n for n in _reading_order(graph) if n.id != node_id]
    fed = graph.inputs_of(node_id)
    new_inputs, own_outputs, replacements, removals = [], [], [], []
    for port in node.input_ports():
        now = fed.get(port)
        for other in others:
            for out_port in other.output_ports():
                if now is not None and (now.src, now.src_port) == (other.id, out_port):
                    continue
                if graph.can_replace(other.id, out_port, node_id, port) is None:
                    label = f"{port} ← {_end(graph, other.id, out_port)}{_typed(graph, other.id, out_port)}"
                    if now is None:
                        new_inputs.append(Choice(other.id, out_port, node_id, port, label=label))
                    else:
                        label += f"   (replaces {_end(graph, now.src, now.src_port)})"
                        replacements.append(Choice(other.id, out_port, node_id, port, now, label=label))
        if now is not None:
            removals.append(Choice(now.src, now.src_port, node_id, port, now, remove=True,
                                   label=f"{port} ✕ disconnect (from {_end(graph, now.src, now.src_port)})"))
    for out_port in node.output_ports():
        for other in others:
            other_fed = graph.inputs_of(other.id)
            for port in other.input_ports():
                now = other_fed.get(port)
                if now is not None and (now.src, now.src_port) == (node_id, out_port):
                    continue
                if graph.can_replace(node_id, out_port, other.id, port) is None:
                    label = f"{out_port} → {_end(graph, other.id, port)}{_typed(graph, node_id, out_port)}"
                    if now is None:
                        own_outputs.append(Choice(node_id, out_port, other.id, port, label=label))
                    else:
                        label += f"   (replaces {_end(graph, now.src, now.src_port)})"
                        replacements.append(Choice(node_id, out_port, other.id, port, now, label=label))
    return new_inputs + own_outputs + replacements + removals


def filter_choices(choices: list[Choice], text: str) -> list[Choice]:
    """``choices`` matching ``text`` (fuzzy), best first; all of them, in order, for no text."""
    if not text.strip():
        return choices
    scored = [(-score, i, c) for i, c in enumerate(choices)
              if (score := fuzzy_score(text, c.label)) is not None]
    return [c for _, _, c in sorted(scored, key=lambda s: (s[0], s[1]))]


class ConnectBox(SearchPopup):
    """The box itself: ``open_for(node_id, pos)`` lists that node's choices."""

    def __init__(self, parent: QtWidgets.QWidget, graph_of: Callable[[], Graph]) -> None:
        super().__init__(parent, "Connect or disconnect a port…", width=420)
        self._graph_of = graph_of
        self._choices: list[Choice] = []

    def open_for(self, node_id: str) -> None:
        """List ``node_id``'s choices, at the top of the canvas."""
        self._choices = connection_choices(self._graph_of(), node_id)
        self.open_at_top()

    def choices(self) -> list[Choice]:
        return list(self._choices)

    def entries(self, text: str) -> list[tuple[str, str, str]]:
        return [(c.label, c.key(), c.label) for c in filter_choices(self._choices, text)]


class ConnectPorts:
    """Edit > Connect Ports: ``open()`` shows ``box`` for the single selected node;
    ``apply(key)`` (the box's ``accepted``) makes that change as one undo step."""

    def __init__(self, box: ConnectBox, graph_of: Callable[[], Graph], scene: GraphScene,
                 push: Callable[[QtGui.QUndoCommand], None], status: ShowStatus,
                 refused: Callable[[str], None]) -> None:
        self.box, self._graph_of, self.scene = box, graph_of, scene
        self._push, self._status, self._refused = push, status, refused
        box.accepted.connect(self.apply)

    def open(self) -> None:
        ids = self.scene.selected_node_ids()
        if len(ids) != 1:
            self._status("Select one node to connect its ports (Ctrl+F finds one)", error=True)
            return
        node = self._graph_of().node(ids[0])
        self.box.open_for(ids[0])
        if not self.box.choices():
            self.box.close_box()
            self._status(f"Nothing can be connected to {node.name or node.id}", error=True)

    def apply(self, key: str) -> None:
        """One entry of the box, as one undo step."""
        graph = self._graph_of()
        action, src, src_port, dst, dst_port = parse_key(key)
        src_node, dst_node = graph.node(src), graph.node(dst)
        wire = f"{src_node.name or src} · {src_port} → {dst_node.name or dst} · {dst_port}"
        if action == "remove":
            self._push(C.DisconnectCommand(graph, dst, dst_port))
            self._status(f"Disconnected {wire}")
            return
        refusal = graph.can_replace(src, src_port, dst, dst_port)
        if refusal is not None:  # the graph changed since the box opened
            self._refused(refusal)
            return
        self._push(C.ConnectCommand(graph, src, src_port, dst, dst_port, None, graph.edge_into(dst, dst_port)))
        self._status(f"Connected {wire}")
