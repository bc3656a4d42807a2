"""The collapsed groups of one canvas scene, kept in step with the graph (``GraphScene.groups``).

For each collapsed frame the layer hides the member nodes and the wires between them, shows
one :class:`~.group_item.GroupItem` block, and tells the scene where each wire that crosses
the boundary ends (:meth:`GroupLayer.port_pos`: at the block's port for its tensor).
Expanding shows the members where they are. The scene calls it from its event handler
(:meth:`GroupLayer.on_event`), when a node moves or is refreshed, and to answer what is
selected: selecting a block selects its members and frame as far as copy, delete, rename and
the property panel are concerned (``GraphScene.selected_node_ids``/``selected_frame_ids``).
Every step costs time in the size of the group touched, not of the graph. UI thread only;
nothing here changes the graph.
"""
from __future__ import annotations

from collections.abc import Iterable

from PySide6 import QtCore

from nodeeditor.graph import events as E
from nodeeditor.graph import nodes as N
from nodeeditor.graph.grouping import boundary, readers
from nodeeditor.graph.layout import Block

from .free_space import FreeSpace
from .group_item import GroupItem, node_item_or_none


class GroupLayer(QtCore.QObject):
    """The collapsed groups of one scene (see the module docstring). ``expandRequested(frame
    id)``: the block was double-clicked."""

    expandRequested = QtCore.Signal(str)

    def __init__(self, scene) -> None:
        super().__init__(scene)
        self.scene = scene
        self._items: dict[str, GroupItem] = {}
        self._member_of: dict[str, str] = {}      # member node id -> its collapsed frame's id
        self._members: dict[str, set[str]] = {}   # collapsed frame id -> its members drawn as its block
        self._space: FreeSpace | None = None       # drawn nodes and blocks, for placing a block (lazy)

    def __bool__(self) -> bool:
        return bool(self._items)

    def forget(self) -> None:
        """Forget every block (the scene is about to be cleared, which deletes them)."""
        self._items.clear()
        self._member_of.clear()
        self._members.clear()
        self._space = None

    def rebuild(self) -> None:
        """Draw the graph's collapsed frames (the scene has just mirrored a graph)."""
        self.forget()
        for frame in self.scene.graph.frames:
            if frame.collapsed:
                self.sync(frame.id)

    def item(self, frame_id: str) -> GroupItem:
        return self._items[frame_id]

    def items(self) -> list[GroupItem]:
        return list(self._items.values())

    def group_of(self, node_id: str) -> str | None:
        """The collapsed frame drawn in place of ``node_id`` (None: the node is drawn)."""
        return self._member_of.get(node_id)

    # ------------------------------------------------------------------ keeping in step
    def on_event(self, event: E.GraphEvent) -> None:
        if isinstance(event, (E.PositionChanged, E.NodeAdded, E.NodeRemoved, E.CollapsedChanged, E.SettingChanged)):
            self._space = None      # nodes moved, came, went or changed size: measured again when needed
        match event:
            case E.FrameAdded(frame_id=fid) | E.FrameChanged(frame_id=fid) | E.FrameRemoved(frame_id=fid):
                self.sync(fid)
            case E.EdgeAdded(edge=edge) | E.EdgeRemoved(edge=edge) if self._items:
                for fid in {self._member_of.get(edge.src), self._member_of.get(edge.dst)} - {None}:
                    self.sync(fid)
            case E.NodeRemoved(node_id=nid) if self._items:
                fid = self._member_of.pop(nid, None)      # (its frame's FrameChanged follows)
                if fid is not None:
                    self._members[fid].discard(nid)
            case E.TypesChanged(node_ids=nids) if self._items:
                self._restyle(set(nids))
            case E.NodeRenamed(node_id=nid) if self._items:
                self._restyle({nid})
            case E.SettingChanged() if self._items:
                for item in self._items.values():
                    item.set_ports(item.boundary)

    def _restyle(self, node_ids: set[str]) -> None:
        """Redraw the ports of the blocks that show a tensor of ``node_ids`` (their type or
        name changed): the blocks of those members, and those the nodes feed."""
        hit = {self._member_of[n] for n in node_ids if n in self._member_of}
        for fid, item in self._items.items():
            if fid in hit or any(n in node_ids for n, _ in item.boundary.inputs):
                item.set_ports(item.boundary)

    def sync(self, frame_id: str) -> None:
        """Draw ``frame_id`` as the graph has it now: a block if collapsed, its members otherwise."""
        scene, graph = self.scene, self.scene.graph
        frame = graph.frame(frame_id) if graph.has_frame(frame_id) else None
        before = self._members.pop(frame_id, set())
        now = set(frame.nodes) if frame is not None and frame.collapsed else set()
        for nid in before - now:
            if self._member_of.get(nid) == frame_id:
                del self._member_of[nid]
        for nid in now:
            self._member_of[nid] = frame_id
        if now:
            self._members[frame_id] = now
        space = self._space
        for nid in before | now:     # first: the block is placed where no drawn node is
            node_item = node_item_or_none(scene, nid)
            if node_item is not None:
                node_item.setVisible(nid not in self._member_of)
                if nid in self._member_of:
                    scene.hide_card(nid)      # the pointer's card for a node no longer drawn
                    if space is not None:
                        space.drop(nid)
                elif space is not None:
                    space.put(nid, node_item.sceneBoundingRect())
        item = self._items.get(frame_id)
        if now:
            if item is None:
                item = self._items[frame_id] = GroupItem(frame_id)
                scene.addItem(item)
            item.set_ports(boundary(graph, frame.nodes))
            item.relayout()
            if self._space is not None:
                self._space.put(("block", frame_id), item.sceneBoundingRect())
        elif item is not None:
            del self._items[frame_id]
            if item.scene() is scene:
                scene.removeItem(item)
            if self._space is not None:
                self._space.drop(("block", frame_id))
        scene.refit_edges(before | now)

    def covered(self, rect: QtCore.QRectF, frame_id: str) -> float:
        """How much of the drawn nodes and of the other blocks than ``frame_id``'s ``rect``
        would cover (for placing that block)."""
        if self._space is None:
            self._space = FreeSpace()
            for nid, box, _selected in self.scene.node_boxes():   # drawn, with or without an item yet
                self._space.put(nid, box)
            for fid, block in self._items.items():
                if block.isVisible() and fid != frame_id:
                    self._space.put(("block", fid), block.sceneBoundingRect())
        return self._space.covered(rect, ("block", frame_id))

    def refit(self, frame_id: str) -> None:
        """The members moved: the block follows, and the wires to it."""
        self._space = None
        item = self._items.get(frame_id)
        if item is not None:
            item.relayout()
            self.scene.refit_edges(self.scene.graph.frame(frame_id).nodes)

    def member_refreshed(self, node_id: str) -> None:
        """A member's state may have changed (a run): redraw its block's border."""
        fid = self._member_of.get(node_id)
        if fid is not None:
            self._items[fid].update()

    def member_moved(self, node_id: str) -> None:
        fid = self._member_of.get(node_id)
        if fid is not None and not self._items[fid].dragging:
            self.refit(fid)

    # ------------------------------------------------------------------ what the scene asks
    def port_pos(self, node_id: str, port: str, is_output: bool) -> QtCore.QPointF | None:
        """Where a wire at ``node_id``'s ``port`` is drawn to, when the node is in a group."""
        fid = self._member_of.get(node_id)
        if fid is None:
            return None
        item = self._items[fid]
        if is_output:
            return item.output_pos((node_id, port))
        edge = self.scene.graph.edge_into(node_id, port)
        return item.input_pos((edge.src, edge.src_port) if edge is not None else ("", ""))

    def readers(self, node_id: str, port: str) -> list[tuple[str, str]]:
        """The inputs a wire at ``node_id``'s input ``port`` stands for: when the node is drawn as
        a block, every member input reading the same tensor (the block's input mark for it);
        else that input alone."""
        fid = self._member_of.get(node_id)
        edge = self.scene.graph.edge_into(node_id, port) if fid is not None else None
        if edge is None:
            return [(node_id, port)]
        return readers(self.scene.graph, self.scene.graph.frame(fid).nodes, (edge.src, edge.src_port))

    def refusal(self, src: str, src_port: str, dst: str, dst_port: str) -> str | None:
        """Why a wire from ``src``'s ``src_port`` may not go into ``dst``'s input ``dst_port``:
        ``Graph.can_replace``'s first refusal over every input the wire stands for
        (:meth:`readers`); None when each of them accepts it."""
        graph = self.scene.graph
        for node_id, port in self.readers(dst, dst_port):
            reason = graph.can_replace(src, src_port, node_id, port)
            if reason is not None:
                return reason
        return None

    def edge_hidden(self, edge: N.Edge) -> bool:
        """Whether ``edge`` runs inside one group (not drawn)."""
        fid = self._member_of.get(edge.src)
        return fid is not None and fid == self._member_of.get(edge.dst)

    def blocks(self) -> list[Block]:
        """The blocks drawn now, for a layout: members, drawn size and top-left corner."""
        graph = self.scene.graph
        out = []
        for fid, item in self._items.items():
            if item.isVisible():
                rect = item.drawn_rect()
                out.append(Block(tuple(graph.frame(fid).nodes), (rect.width(), rect.height()), (rect.x(), rect.y())))
        return out

    def selected_frame_ids(self) -> list[str]:
        return [fid for fid, item in self._items.items() if item.isSelected()]

    def selected_alone(self) -> str | None:
        """The frame of the one group block selected when nothing else is, else None."""
        if not self._items:
            return None
        chosen = self.scene.selectedItems()
        return chosen[0].frame_id if len(chosen) == 1 and isinstance(chosen[0], GroupItem) else None

    def selected_members(self) -> set[str]:
        """The members of the selected blocks."""
        graph = self.scene.graph
        return {n for fid in self.selected_frame_ids() for n in graph.frame(fid).nodes}

    def select_whole(self, node_ids: Iterable[str]) -> None:
        """Select the blocks all of whose members are in ``node_ids`` (no signal)."""
        wanted = set(node_ids)
        graph = self.scene.graph
        for fid, item in self._items.items():
            if set(graph.frame(fid).nodes) <= wanted:
                item.setSelected(True)
