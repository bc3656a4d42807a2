"""Undo commands. Each one calls Graph methods and nothing else (``serialize.paste_dict``
too uses nothing else; the canvas follows the graph's events), using the graph's symmetric
edits: add/remove -> restore, setters that return the old value. ``text()`` names the
action, so the Edit menu reads "Undo Connect".

Commands are pushed after the caller checked that the change is allowed (for example with
``Graph.can_connect``): a redo that raises would leave a wrong entry on the stack.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6 import QtGui

from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph, RemovedNode
from nodeeditor.graph.foreign import ForeignAttribute
from nodeeditor.graph.serialize import paste_dict
from nodeeditor.graph.training import TrainedEdit

MOVE_ID = 1
ATTRIBUTE_ID = 2
FOREIGN_ATTRIBUTE_ID = 3


class AddNodeCommand(QtGui.QUndoCommand):
    """Add one node object (built by a block); undo removes it, redo restores the same object."""

    def __init__(self, graph: Graph, node: N.Node, text: str = "") -> None:
        super().__init__(text or f"Add {node.op if isinstance(node, N.OperatorNode) else node.kind}")
        self.graph, self.node = graph, node
        self.node_id = node.id
        self._removed: RemovedNode | None = None

    def redo(self) -> None:
        if self._removed is None:
            self.node_id = self.graph.add_node(self.node)
        else:
            self.graph.restore_node(self._removed)

    def undo(self) -> None:
        self._removed = self.graph.remove_node(self.node_id)


class DeleteCommand(QtGui.QUndoCommand):
    """Delete nodes (with their edges) and loose edges; undo puts everything back in place."""

    def __init__(self, graph: Graph, node_ids: list[str], edges: list[N.Edge] = ()) -> None:
        n, e = len(node_ids), len(edges)
        what = [f"{n} Node{'s' if n != 1 else ''}"] if n else []
        what += [f"{e} Edge{'s' if e != 1 else ''}"] if e else []
        super().__init__("Delete " + " and ".join(what))
        self.graph = graph
        self.node_ids = list(node_ids)
        self.edges = [edge for edge in edges if edge.src not in node_ids and edge.dst not in node_ids]
        self._removed: list[RemovedNode] = []
        self._edge_places: list[tuple[N.Edge, int, tuple]] = []

    def redo(self) -> None:
        self._edge_places = []
        with self.graph.batch():
            for edge in self.edges:
                index = list(self.graph.edges).index(edge)
                route = self.graph.route(edge)
                self.graph.disconnect(edge.dst, edge.dst_port)
                self._edge_places.append((edge, index, route))
            self._removed = [self.graph.remove_node(nid) for nid in self.node_ids]

    def undo(self) -> None:
        with self.graph.batch():
            for removed in reversed(self._removed):
                self.graph.restore_node(removed)
            for edge, index, route in reversed(self._edge_places):
                self.graph.connect(edge.src, edge.src_port, edge.dst, edge.dst_port, force=True, index=index)
                self.graph.set_route(edge, route)


class NudgeMoves(dict):
    """The ``moves`` of one arrow-key press on the canvas, tagged with its ``burst``: the
    MoveCommands of presses of one burst (same nodes, keys pressed in quick succession)
    merge into one undo step."""

    def __init__(self, moves: Mapping, burst: int) -> None:
        super().__init__(moves)
        self.burst = burst


class MoveCommand(QtGui.QUndoCommand):
    """Move nodes: ``moves`` maps node id -> (old position, new position). When ``moves``
    is a :class:`NudgeMoves`, the command merges with the next one of the same burst that
    moves the same nodes (one undo step for a run of arrow-key presses)."""

    def __init__(self, graph: Graph, moves: Mapping[str, tuple[tuple[float, float], tuple[float, float]]],
                 text: str = "") -> None:
        n = len(moves)
        super().__init__(text or ("Move" if n == 1 else f"Move {n} Nodes"))
        self.graph, self.moves = graph, dict(moves)
        self.burst = getattr(moves, "burst", None)

    def id(self) -> int:
        return MOVE_ID if self.burst is not None else -1

    def mergeWith(self, other: QtGui.QUndoCommand) -> bool:
        if not isinstance(other, MoveCommand) or other.burst is None or other.burst != self.burst \
                or set(other.moves) != set(self.moves):
            return False
        for nid, (_old, new) in other.moves.items():
            self.moves[nid] = (self.moves[nid][0], new)
        return True

    def redo(self) -> None:
        for nid, (_old, new) in self.moves.items():
            self.graph.set_position(nid, new)

    def undo(self) -> None:
        for nid, (old, _new) in self.moves.items():
            self.graph.set_position(nid, old)


class LayoutCommand(MoveCommand):
    def __init__(self, graph: Graph, positions: Mapping[str, tuple[float, float]]) -> None:
        moves = {nid: (graph.node(nid).position, pos) for nid, pos in positions.items()}
        super().__init__(graph, moves, "Auto Layout")


class ConnectCommand(QtGui.QUndoCommand):
    """Draw an edge, after removing the edges it takes the place of:

    - ``replaced``: the edge whose input end was dragged to this input ("Reconnect");
    - ``displaced``: the edge already feeding this input, which the new wire replaces
      ("Replace Connection"; check with ``Graph.can_replace``, not ``can_connect``).

    One undo step: undo removes the new edge and puts the removed ones back at their old
    places in the edge order, so the document is exactly as before."""

    def __init__(self, graph: Graph, src: str, src_port: str, dst: str, dst_port: str,
                 replaced: N.Edge | None = None, displaced: N.Edge | None = None) -> None:
        text = "Replace Connection" if displaced is not None else "Reconnect" if replaced is not None else "Connect"
        super().__init__(text)
        self.graph = graph
        self.edge = N.Edge(src, src_port, dst, dst_port)
        self.replaced = replaced
        self.displaced = displaced
        self._removed: list[tuple[N.Edge, int, tuple]] = []

    def redo(self) -> None:
        self._removed = []
        for old in (self.replaced, self.displaced):
            if old is not None:
                self._removed.append((old, self.graph.edge_index(old), self.graph.route(old)))
                self.graph.disconnect(old.dst, old.dst_port)
        e = self.edge
        self.graph.connect(e.src, e.src_port, e.dst, e.dst_port, force=True)

    def undo(self) -> None:
        self.graph.disconnect(self.edge.dst, self.edge.dst_port)
        for old, index, route in reversed(self._removed):
            self.graph.connect(old.src, old.src_port, old.dst, old.dst_port, force=True, index=index)
            self.graph.set_route(old, route)


class DisconnectCommand(QtGui.QUndoCommand):
    def __init__(self, graph: Graph, dst: str, dst_port: str) -> None:
        super().__init__("Disconnect")
        self.graph, self.dst, self.dst_port = graph, dst, dst_port
        self._edge: N.Edge | None = None
        self._index = -1
        self._route: tuple = ()

    def redo(self) -> None:
        edge = self.graph.edge_into(self.dst, self.dst_port)
        self._index = list(self.graph.edges).index(edge)
        self._route = self.graph.route(edge)
        self._edge = self.graph.disconnect(self.dst, self.dst_port)

    def undo(self) -> None:
        e = self._edge
        self.graph.connect(e.src, e.src_port, e.dst, e.dst_port, force=True, index=self._index)
        self.graph.set_route(e, self._route)


class _AttributeEdit(QtGui.QUndoCommand):
    """Set one attribute of one node. With ``merge`` (a spin box's steps), consecutive merging
    edits of the same attribute are one undo step, and the step goes when edited back to where
    it started (an unset attribute stepped back to its default is unset again); a typed value
    or a choice in a list is a step of its own. Subclasses say how to set the value
    (:meth:`_set`, returning the old one) and when two values mean the same."""

    MERGE_ID = -1

    def __init__(self, graph: Graph, node_id: str, name: str, value: Any, merge: bool = False) -> None:
        super().__init__(f"Change {name}")
        self.graph, self.node_id, self.name, self.value = graph, node_id, name, value
        self.merge = merge
        self.old: Any = None
        self._have_old = False

    def id(self) -> int:
        return self.MERGE_ID if self.merge else -1

    def mergeWith(self, other: QtGui.QUndoCommand) -> bool:
        if type(other) is not type(self) or not other.merge or (other.node_id, other.name) != (self.node_id, self.name):
            return False
        self.value = other.value
        if self._have_old and self._same(self.value, self.old):
            self._set(self.old)      # the very same document again: an unset attribute stays unset
            self.setObsolete(True)   # edited back to where it started: nothing to undo
        return True

    def redo(self) -> None:
        old = self._set(self.value)
        if not self._have_old:
            self.old, self._have_old = old, True

    def undo(self) -> None:
        self._set(self.old)

    def _set(self, value: Any) -> Any:
        raise NotImplementedError

    def _same(self, a: Any, b: Any) -> bool:
        return a == b


class AttributeCommand(_AttributeEdit):
    """Set an operator attribute (see :class:`_AttributeEdit` for merging)."""

    MERGE_ID = ATTRIBUTE_ID

    def _set(self, value: Any) -> Any:
        return self.graph.set_attribute(self.node_id, self.name, value)

    def _same(self, a: Any, b: Any) -> bool:
        """None (unset) means the schema's default."""
        default = self.graph.node(self.node_id).schema.attribute(self.name).default
        return (default if a is None else a) == (default if b is None else b)


class ForeignAttributeCommand(_AttributeEdit):
    """Set (``value=None``: remove, the op's default applies) an attribute of a foreign ONNX
    node (see :class:`_AttributeEdit` for merging; the default button is a step of its own)."""

    MERGE_ID = FOREIGN_ATTRIBUTE_ID

    def _set(self, value: ForeignAttribute | None) -> ForeignAttribute | None:
        return self.graph.set_foreign_attribute(self.node_id, self.name, value)

    def _same(self, a: ForeignAttribute | None, b: ForeignAttribute | None) -> bool:
        return a is None and b is None or a is not None and b is not None and a.same(b)


class SourceCommand(QtGui.QUndoCommand):
    """Change fields of a source node (``Graph.set_source``): a literal's value, a generator's
    parameters, a file path...

    A relative file path means "relative to the graph's folder", and Save As to another folder
    rewrites the paths in the document. So the command remembers the folder each of its paths
    was relative to, and re-expresses it for the graph's folder at the time it is undone or
    redone: undo after a Save As restores the same *file*, not the same text."""

    def __init__(self, graph: Graph, node_id: str, text: str = "Edit Source", **fields: Any) -> None:
        super().__init__(text)
        self.graph, self.node_id, self.fields = graph, node_id, fields
        self.old: dict[str, Any] = {}
        self._new_folder = self._old_folder = graph.folder

    def _for_now(self, fields: dict[str, Any], folder) -> dict[str, Any]:
        if "path" not in fields:
            return fields
        return {**fields, "path": self.graph.rebase_file_path(fields["path"], folder)}

    def redo(self) -> None:
        self.old = self.graph.set_source(self.node_id, **self._for_now(self.fields, self._new_folder))
        self._old_folder = self.graph.folder

    def undo(self) -> None:
        self.graph.set_source(self.node_id, **self._for_now(self.old, self._old_folder))


class RenameCommand(QtGui.QUndoCommand):
    def __init__(self, graph: Graph, node_id: str, name: str) -> None:
        super().__init__("Rename")
        self.graph, self.node_id, self.name = graph, node_id, name
        self.old = ""

    def redo(self) -> None:
        self.old = self.graph.rename_node(self.node_id, self.name)

    def undo(self) -> None:
        self.graph.rename_node(self.node_id, self.old)


class SettingCommand(QtGui.QUndoCommand):
    """Change a document setting (name, description, opset)."""

    def __init__(self, graph: Graph, name: str, value: Any) -> None:
        super().__init__(f"Change {'Opset' if name == 'opset' else 'Graph ' + name.title()}")
        self.graph, self.name, self.value = graph, name, value
        self.old: Any = None

    def redo(self) -> None:
        self.old = self.graph.set_setting(self.name, self.value)

    def undo(self) -> None:
        self.graph.set_setting(self.name, self.old)


class PasteCommand(QtGui.QUndoCommand):
    """Add the nodes of ``graph_to_dict`` data with fresh ids (``serialize.paste_dict``).
    ``inputs``: edges from nodes that stay into copied nodes (by the copied nodes' old ids);
    each is drawn again into the copy (Duplicate keeps the copies' input wires). Undo
    removes the copies with every edge they have; redo puts them back."""

    def __init__(self, graph: Graph, data: Mapping[str, Any], offset: tuple[float, float],
                 text: str = "Paste", inputs: Sequence[N.Edge] = ()) -> None:
        super().__init__(text)
        self.graph, self.data, self.offset, self.inputs = graph, data, offset, tuple(inputs)
        self.new_ids: list[str] = []
        self._removed: list[RemovedNode] = []
        self._frame_ids: list[str] = []      # the frames the paste added
        self._removed_frames: list = []

    def redo(self) -> None:
        if not self._removed:
            before = {f.id for f in self.graph.frames}
            with self.graph.batch():
                mapping = paste_dict(self.graph, self.data, self.offset)
                for e in self.inputs:
                    if e.dst in mapping and self.graph.has_node(e.src):
                        self.graph.connect(e.src, e.src_port, mapping[e.dst], e.dst_port, force=True)
            self.new_ids = list(mapping.values())
            self._frame_ids = [f.id for f in self.graph.frames if f.id not in before]
        else:
            with self.graph.batch():
                for removed in reversed(self._removed):
                    self.graph.restore_node(removed)
                for removed in self._removed_frames:
                    self.graph.add_frame(removed.frame, index=removed.index)
            self._removed = []

    def undo(self) -> None:
        with self.graph.batch():
            self._removed_frames = [self.graph.remove_frame(fid) for fid in self._frame_ids]
            self._removed = [self.graph.remove_node(nid) for nid in self.new_ids]


# ---------------------------------------------------------------------- canvas view objects
class CompositeCommand(QtGui.QUndoCommand):
    """Several commands as one undo step: redo runs them in order, undo in reverse."""

    def __init__(self, text: str, commands: list[QtGui.QUndoCommand]) -> None:
        super().__init__(text)
        self.commands = list(commands)

    def redo(self) -> None:
        for command in self.commands:
            command.redo()

    def undo(self) -> None:
        for command in reversed(self.commands):
            command.undo()


class NodeFlagCommand(QtGui.QUndoCommand):
    """Set one field of several nodes through a Graph setter that returns the old value, named
    by ``setter``: ``set_bypassed``, ``set_collapsed``, and the training fields
    ``set_training``, ``set_loss_coefficient``, ``set_trainable``, ``set_loss_kind``, and
    ``set_overridable``; undo
    gives each node its old value back."""

    def __init__(self, graph: Graph, setter: str, node_ids: list[str], value: Any, text: str) -> None:
        super().__init__(text)
        self.graph, self.setter, self.node_ids, self.value = graph, setter, list(node_ids), value
        self.old: dict[str, Any] = {}

    def redo(self) -> None:
        setter = getattr(self.graph, self.setter)
        self.old = {nid: setter(nid, self.value) for nid in self.node_ids}

    def undo(self) -> None:
        setter = getattr(self.graph, self.setter)
        for nid, old in self.old.items():
            setter(nid, old)


class AddFrameCommand(QtGui.QUndoCommand):
    """Add a frame (a fresh ``N.Frame``); undo removes it."""

    def __init__(self, graph: Graph, frame: N.Frame) -> None:
        super().__init__("Add Frame")
        self.graph, self.frame = graph, frame
        self.frame_id = frame.id

    def redo(self) -> None:
        self.frame_id = self.graph.add_frame(self.frame)

    def undo(self) -> None:
        self.graph.remove_frame(self.frame_id)


class RemoveFramesCommand(QtGui.QUndoCommand):
    """Remove frames (their nodes stay); undo puts them back in their places."""

    def __init__(self, graph: Graph, frame_ids: list[str]) -> None:
        super().__init__("Remove Frame" if len(frame_ids) == 1 else f"Remove {len(frame_ids)} Frames")
        self.graph, self.frame_ids = graph, list(frame_ids)
        self._removed: list = []

    def redo(self) -> None:
        self._removed = [self.graph.remove_frame(fid) for fid in self.frame_ids]

    def undo(self) -> None:
        for removed in reversed(self._removed):
            self.graph.add_frame(removed.frame, index=removed.index)


class FrameCommand(QtGui.QUndoCommand):
    """Change a frame's title, colour or members (``Graph.set_frame``)."""

    def __init__(self, graph: Graph, frame_id: str, text: str, **fields: Any) -> None:
        super().__init__(text)
        self.graph, self.frame_id, self.fields = graph, frame_id, fields
        self.old: dict[str, Any] = {}

    def redo(self) -> None:
        self.old = self.graph.set_frame(self.frame_id, **self.fields)

    def undo(self) -> None:
        self.graph.set_frame(self.frame_id, **self.old)


class RouteCommand(QtGui.QUndoCommand):
    """Set the reroute points of an edge (``Graph.set_route``)."""

    def __init__(self, graph: Graph, edge: N.Edge, points, text: str = "Move Reroute Point") -> None:
        super().__init__(text)
        self.graph, self.edge, self.points = graph, edge, tuple(points)
        self.old: tuple = ()

    def redo(self) -> None:
        self.old = self.graph.set_route(self.edge, self.points)

    def undo(self) -> None:
        self.graph.set_route(self.edge, self.old)


# ---------------------------------------------------------------------- training
class TrainedCommand(QtGui.QUndoCommand):
    """What a training run did to the document (``graph.training.TrainedEdit``: each trained
    source becomes a literal holding its trained tensor) as one undo step."""

    def __init__(self, graph: Graph, edit: TrainedEdit, text: str) -> None:
        super().__init__(text)
        self.graph, self.edit = graph, edit

    def redo(self) -> None:
        self.edit.redo(self.graph)

    def undo(self) -> None:
        self.edit.undo(self.graph)


def view_only(command: QtGui.QUndoCommand) -> bool:
    """Whether ``command`` changes only view objects (positions, frames, reroute points,
    collapsed flags): no value, type or gradient (the edits allowed while a training run
    works on the document)."""
    if isinstance(command, CompositeCommand):
        return all(view_only(c) for c in command.commands)
    if isinstance(command, NodeFlagCommand):
        return command.setter == "set_collapsed"
    return isinstance(command, (MoveCommand, RouteCommand, AddFrameCommand, RemoveFramesCommand, FrameCommand))
