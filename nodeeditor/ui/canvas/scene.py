"""The scene mirrors a Graph: one NodeItem per node, one EdgeItem per edge, kept in step
by the graph's events. Items hold nothing the graph lacks but their position.

The scene never changes the graph. What a person does on the canvas comes out as
signals for the main window to turn into undo commands:

- ``connectRequested(src, src_port, dst, dst_port, replaced, displaced)``: a wire was drawn
  from an output port to an input port and ``Graph.can_replace`` accepts it (``replaced``
  is the Edge whose end was dragged to the new input, or None; ``displaced`` is the Edge
  already feeding that input, which the new wire replaces, or None). Dropping a wire on a
  connected input replaces its edge, as in other node editors; while the pointer is over
  such an input the old edge is drawn faded;
- ``disconnectRequested(dst, dst_port)``: an edge end was dragged off its input and dropped
  on empty canvas;
- ``connectionRefused(reason)``: the document's reason for refusing a wire;
- ``nodesMoved(moves)``: node id -> (old, new) position after a drag;
- ``portClicked(node_id, port, is_output)``: for the tensor viewer;
- ``wireHint(reason)``: while a wire is drawn, why the port under the pointer would refuse it
  ('' when it would not);
- ``wireNote(text)``: right after ``wireHint('')``, when a drop there would replace a wire.
  When the drag ends (drop, release elsewhere, Esc: :meth:`cancel_wire`) after either was
  sent, ``wireHint('')`` is sent once more, so that text does not outlive the drag;
- ``wireDropped(drop)``: a new wire (not a picked-up end) was released on empty canvas: a
  :class:`WireDrop` (the window offers the blocks that could take it, and connects the one
  chosen);
- ``routeChanged(edge, points, text)``: a reroute point was added (double-click on a wire),
  dragged or removed (double-click on it): the edge's new points;
- ``frameRenameRequested(frame_id)``: the frame's title was double-clicked;
- ``emptyChanged(empty)``: the canvas became empty or got its first node.

While a wire is drawn over a port that refuses it, the reason is shown beside the pointer
(:class:`~.edge_item.WireTip`). Frames (:class:`~.frame_item.FrameItem`) are drawn behind
everything and follow their members; each edge draws its reroute points. A collapsed frame is
one block in place of its members (``groups``, :class:`~.group_layer.GroupLayer`): wires that
cross it end at the block's ports (:meth:`GraphScene.port_scene_pos`), wires inside it are
hidden, and selecting the block selects its members and frame.

Node states come from the graph's static info and the runner's results (see ``node_state``).
In training mode (:meth:`GraphScene.set_training_mode`: the Training dock is open) the wires a
backward pass sends a gradient along (``graph.backward.gradient_edges``) have a halo; a node's
training badges (trainable, training off) are always drawn.

Items made when needed: a graph of more than :data:`EAGER_NODES` nodes does not get all its
items when it is mirrored. The nodes and wires wait in a :class:`~.cells.CellIndex` by the
scene rectangle they will cover (from the graph's positions, ``node_item.scene_box``); the view
asks for those it is about to draw (:meth:`GraphScene.make_items`, from ``drawBackground``), so
the first paint makes only what is in view, and after it the rest are made a few at a time, a
:data:`BUILD_SLICE_S` slice per event-loop turn, until all are (:attr:`GraphScene.building`).
Until then, asking for one item makes it (:meth:`GraphScene.node_item`, ``edge_item``; a wire's
item makes its end nodes' items), asking for all of them makes them all (``node_items``,
``edge_items``), and what needs only where the nodes are reads the boxes
(:meth:`GraphScene.node_boxes`, ``nodes_rect``). A graph event about a node or wire without an
item leaves it to be made as the graph has it then (a moved node's item is made, with its wires).

A wire being drawn is a :class:`WireDrag`; what dropping it on a port would do is a
:class:`WirePlan` (:meth:`GraphScene.wire_plan`).
"""
from __future__ import annotations

import enum
import html
import itertools
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import events as E
from nodeeditor.graph import nodes as N
from nodeeditor.graph.backward import gradient_edges
from nodeeditor.graph.document import Graph
from nodeeditor.graph.status import NodeStatus

from . import style
from .cells import Box, CellIndex, box_of, rect_of
from .edge_item import DraftEdgeItem, EdgeItem, RerouteItem, WireTip, insertion_index
from .frame_item import FrameItem
from .group_item import GroupItem
from .group_layer import GroupLayer
from .node_item import NodeItem, PortCard, scene_box, subtitle_of
from .port_item import PortItem
from .preview import preview as preview_content

PREVIEW_SIZE = (212, 72)
#: A graph of more nodes than this gets its items as they are needed (see "Items made when
#: needed" in the module docstring); a smaller one gets them all at once.
EAGER_NODES = 400
#: Seconds of item making per event-loop turn while the rest of a large graph's items are made.
BUILD_SLICE_S = 0.025
#: The depth of Qt's item index (BSP tree) for a graph of more than EAGER_NODES nodes. Qt's own
#: choice for ~13,000 items (5) leaves each of its areas so many long wires that a paint asks
#: hundreds of items for their bounds, in Python; smaller graphs keep Qt's choice.
LARGE_INDEX_DEPTH = 7


@dataclass
class WireDrag:
    """A wire being drawn. ``anchor`` (node id, port) is the fixed end: an output port when
    ``from_output``, else the free input it is drawn backwards from. ``replaced`` is the edge
    whose input end was picked up (None for a new wire). ``faded`` is the edge drawn faded
    because a drop here would replace it; ``reported`` is the (refusal, displaced edge) last
    sent as ``wireHint``/``wireNote`` (None before the pointer first moved). ``tip`` shows a
    refusal's reason beside the pointer."""

    draft: DraftEdgeItem
    tip: WireTip
    anchor: tuple[str, str]
    from_output: bool = True
    replaced: N.Edge | None = None
    faded: N.Edge | None = None
    reported: tuple[str | None, N.Edge | None] | None = None


@dataclass(frozen=True)
class WireDrop:
    """A new wire released on empty canvas: its fixed end ``anchor`` (node id, port), whether
    that is an output (``from_output``), and where it was released (scene coordinates)."""

    anchor: tuple[str, str]
    from_output: bool
    scene_pos: QtCore.QPointF


class WireAction(enum.Enum):
    """What a drop does: connect; nothing (dropped back where it was, or that exact edge
    already exists); or disconnect (a picked-up wire end dropped on an input its source
    already feeds: the two wires merge)."""

    CONNECT = "connect"
    NOTHING = "nothing"
    DISCONNECT = "disconnect"


@dataclass(frozen=True)
class WirePlan:
    """What dropping a wire on a port would do: the wire's ``ends`` (src, src_port, dst,
    dst_port), the ``action``, the edge now feeding that input which the wire would replace
    (``displaced``), and the document's refusal (``reason``, ``Graph.can_replace`` of every
    input the wire stands for, ``GroupLayer.refusal``; None: accepted)."""

    ends: tuple[str, str, str, str]
    action: WireAction = WireAction.CONNECT
    displaced: N.Edge | None = None
    reason: str | None = None


class GraphScene(QtWidgets.QGraphicsScene):
    connectRequested = QtCore.Signal(str, str, str, str, object, object)
    disconnectRequested = QtCore.Signal(str, str)
    connectionRefused = QtCore.Signal(str)
    nodesMoved = QtCore.Signal(object)
    portClicked = QtCore.Signal(str, str, bool)
    wireHint = QtCore.Signal(str)   # while drawing: why the port under the pointer refuses ('' = fine)
    wireNote = QtCore.Signal(str)   # while drawing: a drop there replaces this wire
    wireDropped = QtCore.Signal(object)          # a WireDrop
    routeChanged = QtCore.Signal(object, object, str)   # edge, its new points, what was done
    frameRenameRequested = QtCore.Signal(str)
    emptyChanged = QtCore.Signal(bool)

    def __init__(self, graph: Graph, runner: Any = None, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.setItemIndexMethod(QtWidgets.QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.runner = runner
        self.graph: Graph = graph
        self.show_previews = False
        self.withheld: Callable[[str], Any] | None = None   # whether a node is drawn without a preview
        self._nodes: dict[str, NodeItem] = {}
        self._bare = CellIndex()            # node items without port items, by their box
        self._waiting_nodes = CellIndex()   # nodes without an item yet, by their box
        self._waiting_edges = CellIndex()   # (dst, dst_port) of wires without an item yet
        self._builder = QtCore.QTimer(self)
        self._builder.setInterval(0)
        self._builder.timeout.connect(self._build_slice)
        self._gradient_set: frozenset[N.Edge] = frozenset()   # the edges drawn with a halo
        self._selected_edges: list[EdgeItem] = []   # drawn marked for being selected
        self.selectionChanged.connect(self._mark_selected_edges)
        self.selectionChanged.connect(self.drawing_changed)
        self._all_rect: QtCore.QRectF | None = None   # nodes_rect() of every node, while valid
        #: counts every :meth:`drawing_changed` (the minimap redraws its nodes when it moves on)
        self.drawing_revision = 0
        self._edges: dict[tuple[str, str], EdgeItem] = {}
        self._node_edges: dict[str, set[tuple[str, str]]] = {}   # node id -> keys of its edges
        self._previews: dict[str, tuple[weakref.ref, QtGui.QImage, Any]] = {}
        self._unsubscribe = None
        self._frames: dict[str, FrameItem] = {}
        self._drag: WireDrag | None = None
        self._press_positions: dict[str, QtCore.QPointF] = {}
        self._reroute_press: tuple[RerouteItem, list] | None = None
        self._updating = False
        #: wires that carry a gradient get a halo (see the module docstring)
        self.training_mode = False
        #: collapsed frames drawn as one block each (see ``group_layer``)
        self.groups = GroupLayer(self)
        self.set_graph(graph)

    # ------------------------------------------------------------------ mirror
    def set_graph(self, graph: Graph) -> None:
        """Mirror another graph (all items rebuilt)."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._drag = None
        self.groups.forget()      # before clear(): its selectionChanged must not reach deleted blocks
        self._selected_edges = []
        self.clear()
        self._nodes.clear()
        self._edges.clear()
        self._node_edges.clear()
        self._frames.clear()
        self._previews.clear()
        self._bare = CellIndex()
        self._waiting_nodes = CellIndex()
        self._waiting_edges = CellIndex()
        self._builder.stop()
        self.card: PortCard | None = None     # on the scene only while shown
        self.graph = graph
        large = len(graph.nodes) > EAGER_NODES
        self.setBspTreeDepth(LARGE_INDEX_DEPTH if large else 0)     # 0: Qt's choice
        if large:
            self._wait_for_items(graph)
        else:
            for node in graph.nodes:
                self._add_node_item(node.id)
            for edge in graph.edges:
                self._add_edge_item(edge, *self._wire_style(edge))
        for frame in graph.frames:
            self._add_frame_item(frame.id)
        self.groups.rebuild()
        self.refresh_all()
        self._update_gradient_wires()
        self._unsubscribe = graph.events.subscribe(self._on_event)
        self.drawing_changed()
        self.emptyChanged.emit(not self._nodes and not self._waiting_nodes)

    # ------------------------------------------------------------------ items made when needed
    def _wait_for_items(self, graph: Graph) -> None:
        """File every node and wire of ``graph`` to be made when needed (see the module docstring)."""
        boxes = {}
        for node in graph.nodes:
            boxes[node.id] = box = scene_box(node, self.show_previews)
            self._waiting_nodes.put(node.id, box)
        for edge in graph.edges:
            key = (edge.dst, edge.dst_port)
            self._node_edges.setdefault(edge.src, set()).add(key)
            self._node_edges.setdefault(edge.dst, set()).add(key)
            self._waiting_edges.put(key, self._wire_box(edge, boxes[edge.src], boxes[edge.dst]))
        self._builder.start()

    def _wire_box(self, edge: N.Edge, src: Box, dst: Box) -> Box:
        """Where a wire between nodes with boxes ``src`` and ``dst`` may be drawn: their boxes'
        span (a backward wire's curve reaches out further sideways), and its reroute points."""
        left, top, right, bottom = min(src[0], dst[0]), min(src[1], dst[1]), max(src[2], dst[2]), max(src[3], dst[3])
        for x, y in self.graph.route(edge):
            left, top, right, bottom = min(left, x - 8), min(top, y - 8), max(right, x + 8), max(bottom, y + 8)
        reach = max(40.0, (src[2] - dst[0]) * 0.5)
        return left - reach, top, right + reach, bottom

    @property
    def building(self) -> bool:
        """Whether some nodes or wires have no item yet (they are being made, see the module docstring)."""
        return bool(self._waiting_nodes) or bool(self._waiting_edges)

    def _make_node(self, node_id: str) -> NodeItem:
        """The item of a node that has none yet, made now (as the graph has it now)."""
        self._waiting_nodes.drop(node_id)
        item = self._add_node_item(node_id)
        if self.groups and self.groups.group_of(node_id) is not None:
            item.setVisible(False)
        return item

    def _make_edge(self, key: tuple[str, str]) -> EdgeItem | None:
        """The item of the wire into ``key`` (dst, dst_port), made now with its end nodes' items."""
        self._waiting_edges.drop(key)
        edge = self.graph.edge_into(*key) if self.graph.has_node(key[0]) else None
        if edge is None:
            return None
        for nid in (edge.src, edge.dst):
            if nid not in self._nodes:
                self._make_node(nid)
        state, family = self._wire_style(edge)
        item = self._add_edge_item(edge, state, family)
        if self.groups and self.groups.edge_hidden(edge):
            item.setVisible(False)
        if edge in self._gradient_set:
            item.set_gradient(True)
        for nid in (edge.src, edge.dst):
            if self._nodes[nid].has_port_items:
                self.style_ports(nid)
        return item

    def make_items(self, rect: QtCore.QRectF) -> None:
        """Make the items of the nodes and wires that may be drawn in ``rect`` and have none
        yet: the view calls this for what it is about to draw."""
        box = box_of(rect)
        if self._waiting_nodes:
            for nid in self._waiting_nodes.near(box):
                if nid in self._waiting_nodes:
                    self._make_node(nid)
        if self._waiting_edges:
            for key in self._waiting_edges.near(box):
                if key in self._waiting_edges:
                    self._make_edge(key)

    def make_all_items(self) -> None:
        """Make every item not made yet (for what needs them all)."""
        for nid in list(self._waiting_nodes):
            self._make_node(nid)
        for key in list(self._waiting_edges):
            self._make_edge(key)
        self._builder.stop()

    def _build_slice(self) -> None:
        """One event-loop turn's share of making the items still to make: the nodes, then the wires."""
        deadline = time.perf_counter() + BUILD_SLICE_S
        while self._waiting_nodes and time.perf_counter() < deadline:
            for nid in list(itertools.islice(self._waiting_nodes, 20)):
                self._make_node(nid)
        while self._waiting_edges and time.perf_counter() < deadline:
            for key in list(itertools.islice(self._waiting_edges, 20)):
                self._make_edge(key)
        if not self.building:
            self._builder.stop()

    def node_box(self, node_id: str) -> QtCore.QRectF:
        """The scene rectangle the node's item covers (or will, when it has none yet)."""
        item = self._nodes.get(node_id)
        return item.sceneBoundingRect() if item is not None else rect_of(self._waiting_nodes.box(node_id))

    def node_boxes(self, drawn_only: bool = True):
        """(node id, scene rectangle, selected) of every node drawn (with ``drawn_only``: not
        one inside a collapsed group), with or without an item."""
        for nid, item in self._nodes.items():
            if item.isVisible() or not drawn_only:
                yield nid, item.sceneBoundingRect(), item.isSelected()
        groups = self.groups if drawn_only else None
        for nid, box in self._waiting_nodes.items():
            if not groups or groups.group_of(nid) is None:
                yield nid, rect_of(box), False

    def has_node_item(self, node_id: str) -> bool:
        """Whether the node's item is made (see "Items made when needed" in the module docstring)."""
        return node_id in self._nodes

    def node_item(self, node_id: str) -> NodeItem:
        """The node's item (made now if it has none yet); KeyError for a node not on the canvas."""
        item = self._nodes.get(node_id)
        if item is None:
            if node_id not in self._waiting_nodes:
                raise KeyError(node_id)
            item = self._make_node(node_id)
        return item

    def node_items(self) -> list[NodeItem]:
        """Every node's item (those not made yet are made now)."""
        if self._waiting_nodes:
            self.make_all_items()
        return list(self._nodes.values())

    def node_ids(self) -> list[str]:
        """Ids of the nodes on the canvas."""
        if not self._waiting_nodes:
            return list(self._nodes)
        return [nid for nid in self.graph.node_ids if nid in self._nodes or nid in self._waiting_nodes]

    def frame_item(self, frame_id: str) -> FrameItem:
        return self._frames[frame_id]

    def frame_items(self) -> list[FrameItem]:
        return list(self._frames.values())

    def selected_frame_ids(self) -> list[str]:
        """Selected frames, and the collapsed ones whose block is selected."""
        return [i.frame_id for i in self.selectedItems() if isinstance(i, FrameItem)] + self.groups.selected_frame_ids()

    def _add_frame_item(self, frame_id: str) -> FrameItem:
        item = FrameItem(frame_id)
        self.addItem(item)
        self._frames[frame_id] = item
        item.relayout()
        return item

    def _relayout_frames(self, node_id: str | None = None) -> None:
        """Refit the frames that hold ``node_id`` (every frame for None)."""
        for fid, item in self._frames.items():
            if node_id is None or node_id in self.graph.frame(fid).nodes:
                item.relayout()

    def edge_item(self, dst: str, dst_port: str) -> EdgeItem:
        """The item of the wire into that port (made now if it has none yet); KeyError if none."""
        item = self._edges.get((dst, dst_port))
        if item is None:
            if (dst, dst_port) not in self._waiting_edges:
                raise KeyError((dst, dst_port))
            item = self._make_edge((dst, dst_port))
            if item is None:
                raise KeyError((dst, dst_port))
        return item

    def edge_items(self) -> list[EdgeItem]:
        """Every wire's item (those not made yet are made now)."""
        if self._waiting_edges:
            self.make_all_items()
        return list(self._edges.values())

    def selected_node_ids(self) -> list[str]:
        """Selected nodes in graph order."""
        chosen = {i.node_id for i in self.selectedItems() if isinstance(i, NodeItem)} | self.groups.selected_members()
        return [nid for nid in self.graph.node_ids if nid in chosen]

    def _mark_selected_edges(self) -> None:
        """Edges that became selected or unselected change how they are drawn (``EdgeItem.mark``)."""
        selected = [i for i in self.selectedItems() if isinstance(i, EdgeItem)]
        for item in self._selected_edges + selected:
            try:
                if item.scene() is self:
                    item.mark()
            except RuntimeError:         # deleted with the scene's items (clear)
                pass
        self._selected_edges = selected

    def selected_edges(self) -> list[N.Edge]:
        return [i.edge for i in self.selectedItems() if isinstance(i, EdgeItem)]

    def select_nodes(self, node_ids) -> None:
        """Select exactly these nodes (one ``selectionChanged``, not one per node)."""
        wanted = set(node_ids)
        blocked = self.blockSignals(True)
        try:
            self.clearSelection()
            for nid in wanted:
                if nid in self._nodes or nid in self._waiting_nodes:
                    self.node_item(nid).setSelected(True)
            self.groups.select_whole(wanted)
        finally:
            self.blockSignals(blocked)
        self.selectionChanged.emit()

    def _add_node_item(self, node_id: str) -> NodeItem:
        node = self.graph.node(node_id)
        item = NodeItem(node_id, node)
        self._updating = True
        item.setPos(*node.position)
        self._updating = False
        self.addItem(item)
        item.follow_changes()
        self._nodes[node_id] = item
        self._file_bare(node_id, item)
        if self.show_previews:
            item.set_preview(True, *self._preview_content(node_id))
        return item

    def _add_edge_item(self, edge: N.Edge, state: str = style.OK,
                       family: style.DtypeFamily = style.DtypeFamily.UNKNOWN) -> EdgeItem:
        item = EdgeItem(edge, state, family)
        key = (edge.dst, edge.dst_port)
        self._edges[key] = item
        self._node_edges.setdefault(edge.src, set()).add(key)
        self._node_edges.setdefault(edge.dst, set()).add(key)
        item.set_route(self.graph.route(edge))
        self._place_edge(item)
        self.addItem(item)               # placed first: the scene's index takes its bounds once
        return item

    def _place_edge(self, item: EdgeItem) -> None:
        e = item.edge
        item.set_ends(self.port_scene_pos(e.src, e.src_port, True), self.port_scene_pos(e.dst, e.dst_port, False))

    def port_scene_pos(self, node_id: str, port: str, is_output: bool) -> QtCore.QPointF:
        """Where a wire at that port is drawn to: the port, or its group block's port."""
        if self.groups:
            at = self.groups.port_pos(node_id, port, is_output)
            if at is not None:
                return at
        return self._nodes[node_id].port_scene_pos(port, is_output)

    def refit_edges(self, node_ids) -> None:
        """Draw the edges of these nodes again (a group collapsed, expanded or moved): to
        their ports, hidden when inside one group."""
        self.drawing_changed()
        for nid in node_ids:
            for item in self._edges_of(nid):
                hidden = self.groups.edge_hidden(item.edge)
                item.setVisible(not hidden)
                if not hidden:
                    self._place_edge(item)

    def _edges_of(self, node_id: str) -> list[EdgeItem]:
        return [self._edges[key] for key in self._node_edges.get(node_id, ()) if key in self._edges]

    def node_item_moved(self, node_id: str) -> None:
        """Called by a NodeItem whose position changed: keep its edges attached."""
        self.drawing_changed()
        if node_id in self._bare:
            self._file_bare(node_id, self._nodes[node_id])
        for key in self._node_edges.get(node_id, ()):
            if key in self._waiting_edges:       # filed where the node was: made now, to follow it
                self._make_edge(key)
        for item in self._edges_of(node_id):
            self._place_edge(item)
        if self._frames:
            self._relayout_frames(node_id)
            if self.groups:
                self.groups.member_moved(node_id)

    def set_training_mode(self, on: bool) -> None:
        """Draw the gradient halo on the wires that carry one (True), or on none."""
        self.training_mode = bool(on)
        self._update_gradient_wires()

    def gradient_wires(self) -> list[N.Edge]:
        """The edges drawn with the gradient halo now."""
        return [item.edge for item in self._edges.values() if item.gradient]

    def _update_gradient_wires(self) -> None:
        edges = gradient_edges(self.graph) if self.training_mode else frozenset()
        self._gradient_set = edges
        for item in self._edges.values():
            item.set_gradient(item.edge in edges)

    def _on_event(self, event: E.GraphEvent) -> None:
        self._on_event_items(event)
        self.groups.on_event(event)
        if self.training_mode and not isinstance(event, E.VIEW_EVENTS):
            self._update_gradient_wires()

    def _on_event_items(self, event: E.GraphEvent) -> None:
        match event:
            case E.NodeAdded(node_id=nid):
                self.drawing_changed()
                self._add_node_item(nid).refresh()
                if len(self._nodes) == 1:
                    self.emptyChanged.emit(False)
            case E.NodeRemoved(node_id=nid):
                self.drawing_changed()
                item = self._nodes.pop(nid, None)
                self._unfile_bare(nid)
                self._waiting_nodes.drop(nid)
                self._previews.pop(nid, None)
                self._node_edges.pop(nid, None)
                if item is not None:
                    self.removeItem(item)
                if not self._nodes and not self._waiting_nodes:
                    self.emptyChanged.emit(True)
            case E.EdgeAdded(edge=edge):
                if edge.src in self._nodes and edge.dst in self._nodes:
                    self._add_edge_item(edge)
                    self._refresh_ports(edge)
                else:                    # an end without an item: the wire waits with it
                    key = (edge.dst, edge.dst_port)
                    self._node_edges.setdefault(edge.src, set()).add(key)
                    self._node_edges.setdefault(edge.dst, set()).add(key)
                    self._waiting_edges.put(key, self._wire_box(edge, box_of(self.node_box(edge.src)),
                                                                box_of(self.node_box(edge.dst))))
                    self._builder.start()
            case E.EdgeRemoved(edge=edge):
                key = (edge.dst, edge.dst_port)
                self._waiting_edges.drop(key)
                item = self._edges.pop(key, None)
                for nid in (edge.src, edge.dst):
                    self._node_edges.get(nid, set()).discard(key)
                if item is not None:
                    self.removeItem(item)
                self._refresh_ports(edge)
            case E.PositionChanged(node_id=nid, new=new):
                item = self._nodes.get(nid)
                if item is None and nid in self._waiting_nodes:
                    self._make_node(nid)     # at its new place, and its wires follow it
                    self.node_item_moved(nid)
                elif item is not None and (item.pos().x(), item.pos().y()) != tuple(new):
                    item.setPos(*new)
            case E.TypesChanged(node_ids=nids):
                for nid in nids:
                    self.refresh_node(nid)
            case E.AttributeChanged(node_id=nid) | E.SourceChanged(node_id=nid) | E.NodeRenamed(node_id=nid) \
                    | E.BypassChanged(node_id=nid) | E.TrainingChanged(node_id=nid) \
                    | E.LossCoefficientChanged(node_id=nid) | E.TrainableChanged(node_id=nid) \
                    | E.LossKindChanged(node_id=nid) | E.OverridableChanged(node_id=nid):
                self.refresh_node(nid)
            case E.SettingChanged():
                self.refresh_all()
            case E.CollapsedChanged(node_id=nid, new=collapsed):
                item = self._nodes.get(nid) or (self._make_node(nid) if nid in self._waiting_nodes else None)
                if item is not None:
                    item.set_collapsed(collapsed)
                    self.node_item_moved(nid)
            case E.RouteChanged(edge=edge, new=points):
                item = self._edges.get((edge.dst, edge.dst_port))
                if item is not None and item.edge == edge:
                    item.set_route(points)
            case E.FrameAdded(frame_id=fid):
                self.drawing_changed()
                self._add_frame_item(fid)
            case E.FrameRemoved(frame_id=fid):
                self.drawing_changed()
                item = self._frames.pop(fid, None)
                if item is not None:
                    self.removeItem(item)
            case E.FrameChanged(frame_id=fid):
                self.drawing_changed()
                if fid in self._frames:
                    self._frames[fid].relayout()

    def _refresh_ports(self, edge: N.Edge) -> None:
        for nid in (edge.src, edge.dst):
            if nid in self._nodes:
                self.refresh_node(nid)

    # ------------------------------------------------------------------ states
    def node_state(self, node_id: str) -> tuple[NodeStatus, str]:
        """(status, message): static problems first, then the runner's outcome."""
        info = self.graph.node_info(node_id)
        static = info.status
        if static in (NodeStatus.INCOMPLETE, NodeStatus.BLOCKED, NodeStatus.ERROR):
            return static, info.error or ""
        runner = self.runner
        if runner is None:
            return NodeStatus.OK, ""
        pending = runner.state(node_id)
        if pending is not None:
            return pending, ("evaluating…" if pending == NodeStatus.RUNNING else "not evaluated")
        result = runner.result(node_id)
        if result is None or result.status == NodeStatus.CANCELLED:
            return NodeStatus.STALE, "not evaluated"
        if result.status in (NodeStatus.ERROR, NodeStatus.BLOCKED):
            return result.status, result.error or ""
        warnings = tuple(result.warnings) + tuple(info.warnings)
        if warnings:
            return NodeStatus.WARNING, "\n".join(warnings)
        return NodeStatus.OK, ""

    def problem_port(self, node_id: str) -> str | None:
        """The input port the node's error is about (``NodeInfo.error_port`` /
        ``NodeResult.error_port``), for the same state as :meth:`node_state`; None otherwise."""
        info = self.graph.node_info(node_id)
        if info.status == NodeStatus.ERROR:
            return info.error_port
        if info.status in (NodeStatus.INCOMPLETE, NodeStatus.BLOCKED) or self.runner is None:
            return None
        result = self.runner.result(node_id) if self.runner.state(node_id) is None else None
        return result.error_port if result is not None and result.status == NodeStatus.ERROR else None

    def refresh_node(self, node_id: str) -> None:
        item = self._nodes.get(node_id)
        if item is None:
            return
        if self.show_previews:
            item.set_preview(True, *self._preview_content(node_id))
        item.refresh()
        if self.groups:
            self.groups.member_refreshed(node_id)
        if self.card is not None and self.card.node_id == node_id:
            self.show_card(node_id)      # the card under the pointer says what the node says now
        for edge_item in self._edges_of(node_id):
            if edge_item.edge.src == node_id:
                edge_item.set_state(*self._wire_style(edge_item.edge))
        if item.has_port_items:
            self.style_ports(node_id)

    def _wire_style(self, edge: N.Edge) -> tuple[str, style.DtypeFamily]:
        """(state, element type family) a wire is drawn with: from the node it comes from."""
        state, _ = self.node_state(edge.src)
        ttype = self.graph.node_info(edge.src).outputs.get(edge.src_port)
        return (state if state != style.WARNING else style.OK,
                style.dtype_family(ttype.dtype if ttype is not None else None))

    def style_ports(self, node_id: str) -> None:
        """Colour the node's port items: filled where a wire is attached, ringed in the element
        type's family colour."""
        item = self._nodes.get(node_id)
        if item is None:
            return
        self._unfile_bare(node_id)            # it has port items now
        used: set[tuple[str, bool]] = set()
        for edge_item in self._edges_of(node_id):
            e = edge_item.edge
            if e.src == node_id:
                used.add((e.src_port, True))
            if e.dst == node_id:
                used.add((e.dst_port, False))
        for key, port_item in item.ports.items():
            port_item.set_connected(key in used, item.port_family(*key))

    def make_ports(self, rect: QtCore.QRectF) -> None:
        """Make the port items of the nodes in ``rect`` that have none yet (see
        :attr:`NodeItem.ports`): the view calls this for what it is about to draw."""
        if not self._bare:
            return
        for nid in self._bare.near(box_of(rect)):
            if nid in self._bare:
                self._nodes[nid].ports      # noqa: B018 - made now (which unfiles it)
                self._unfile_bare(nid)

    def _file_bare(self, node_id: str, item: NodeItem) -> None:
        self._bare.put(node_id, box_of(item.sceneBoundingRect()))

    def _unfile_bare(self, node_id: str) -> None:
        self._bare.drop(node_id)

    def port_tooltip(self, node_id: str, port: str, is_output: bool) -> str:
        """A port's tooltip: its type (or why it has none), how to use it, and the node's
        problem when it is about this input."""
        item = self._nodes.get(node_id)
        if item is None or not self.graph.has_node(node_id):
            return ""
        text, _known = item.port_label(port, is_output)
        tip = (f"{'output' if is_output else 'input'} <b>{port}</b>: {text}<br>"
               + ("drag to an input to connect; click to view" if is_output else
                  "drag from an output here; drag the wire end away to disconnect"))
        if not is_output and port == self.problem_port(node_id):
            message = html.escape(self.node_state(node_id)[1])
            tip += f"<br><span style='color:#d43c3c'>{message}</span>"
        return tip

    def helpEvent(self, event: QtWidgets.QGraphicsSceneHelpEvent) -> None:
        """Show the tooltip of the topmost item under the pointer, as QGraphicsScene does, but
        asking nodes and ports for theirs now (they write it when asked, see ``toolTip``)."""
        widget = event.widget()
        view = widget.parentWidget() if widget is not None else None
        if not isinstance(view, QtWidgets.QGraphicsView):
            super().helpEvent(event)
            return
        self.port_at(event.scenePos())   # make the port items there first
        for under in view.items(widget.mapFromGlobal(event.screenPos())):
            if isinstance(under, (NodeItem, PortItem)):
                text = under.toolTip()
                QtWidgets.QToolTip.showText(event.screenPos(), text, widget)
                event.setAccepted(bool(text))
                return
            if isinstance(under, QtWidgets.QGraphicsProxyWidget) or under.toolTip():
                break
        super().helpEvent(event)

    # ------------------------------------------------------------------ the hover card
    def view_zoom(self) -> float:
        """The zoom of the (first) view showing this scene (1 when none)."""
        views = self.views()
        return views[0].transform().m11() if views else 1.0

    def show_card(self, node_id: str) -> None:
        """The pointer is over ``node_id``: when its port types are not drawn (a small zoom,
        or the node is collapsed), show its :class:`PortCard`."""
        item = self._nodes.get(node_id)
        if item is None or (item.types_shown(self.view_zoom()) and not item.collapsed) or self._drag is not None:
            self.hide_card()
            return
        if self.card is None:
            self.card = PortCard()
            self.addItem(self.card)
        node = self.graph.node(node_id)
        self.card.show_for(item, node.name, subtitle_of(node, self.graph.opset))

    def hide_card(self, node_id: str | None = None) -> None:
        if self.card is not None and (node_id is None or self.card.node_id == node_id):
            self.removeItem(self.card)
            self.card = None

    def refresh_all(self) -> None:
        for nid in list(self._nodes):
            self.refresh_node(nid)

    # ------------------------------------------------------------------ previews
    def set_show_previews(self, show: bool) -> None:
        if show == self.show_previews and not show:
            return
        self.show_previews = show
        for nid, _box in list(self._waiting_nodes.items()):   # taller or lower when made
            self._waiting_nodes.put(nid, scene_box(self.graph.node(nid), show))
        for nid, item in self._nodes.items():
            item.set_preview(show, *(self._preview_content(nid) if show else (None, None)))
            self.node_item_moved(nid)
        self.drawing_changed()

    def withhold_previews(self, withheld: Callable[[str], Any] | None) -> None:
        """Draw no preview of a node for which ``withheld(node_id)`` is true (a quiz's answers,
        or a reason why not: :meth:`ViewerTarget.withhold`'s question; asked whenever a preview
        is drawn); None: all again."""
        self.withheld = withheld
        if self.show_previews:
            self.set_show_previews(True)

    def _preview_content(self, node_id: str) -> tuple[QtGui.QImage | None, Any]:
        """(colour image, text drawn over it at paint time; see ``preview.preview``); none for
        a node whose value is withheld (:meth:`withhold_previews`)."""
        withheld = self.withheld is not None and self.withheld(node_id)
        value = self.runner.value(node_id) if self.runner is not None and not withheld else None
        if value is None:
            self._previews.pop(node_id, None)
            return None, None
        cached = self._previews.get(node_id)
        if cached is not None and cached[0]() is value:
            return cached[1], cached[2]
        image, text = preview_content(value, *PREVIEW_SIZE)
        # a weak reference, not id(): a new array may reuse a freed one's id
        self._previews[node_id] = (weakref.ref(value), image, text)
        return image, text

    # ------------------------------------------------------------------ mouse: wires and moves
    def port_at(self, pos: QtCore.QPointF) -> PortItem | None:
        """The port under ``pos`` (the port items of nodes near it are made first)."""
        reach = style.PORT_RADIUS + 6
        self.make_ports(QtCore.QRectF(pos.x() - reach, pos.y() - reach, 2 * reach, 2 * reach))
        for item in self.items(pos):
            if isinstance(item, PortItem):
                return item
        return None

    def mousePressEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            port = self.port_at(event.scenePos())
            if port is not None:
                self.portClicked.emit(port.node_id, port.port, port.is_output)
                self._start_wire(port, event.scenePos())
                event.accept()
                return
        super().mousePressEvent(event)
        self._press_positions = {i.node_id: i.pos() for i in self.selectedItems() if isinstance(i, NodeItem)}
        grabbed = self.mouseGrabberItem()
        self._reroute_press = ((grabbed, grabbed.edge_item.route_points())
                               if isinstance(grabbed, RerouteItem) else None)

    def _start_wire(self, port: PortItem, pos: QtCore.QPointF) -> None:
        draft, tip = DraftEdgeItem(), WireTip()
        self.addItem(draft)
        self.addItem(tip)
        if port.is_output:
            drag = WireDrag(draft, tip, (port.node_id, port.port))
        else:
            edge = self.graph.edge_into(port.node_id, port.port)
            if edge is not None:   # pick up the end of an existing wire (at a group's mark: its every reader's)
                drag = WireDrag(draft, tip, (edge.src, edge.src_port), replaced=edge)
                for key in self.groups.readers(edge.dst, edge.dst_port):
                    self.edge_item(*key).setOpacity(0.25)
            else:                  # draw backwards from a free input
                drag = WireDrag(draft, tip, (port.node_id, port.port), from_output=False)
        self._drag = drag
        self._update_draft(pos)

    def _update_draft(self, pos: QtCore.QPointF) -> None:
        d = self._drag
        nid, port = d.anchor
        anchor = self.port_scene_pos(nid, port, d.from_output)
        if d.from_output:
            d.draft.set_ends(anchor, pos)
        else:
            d.draft.set_ends(pos, anchor)

    def mouseMoveEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        if self._drag is not None:
            self._update_draft(event.scenePos())
            plan = self.wire_plan(self._drag, self.port_at(event.scenePos()))
            reason = plan.reason if plan is not None else None
            displaced = plan.displaced if plan is not None and not reason else None
            self._fade_displaced(self._drag, displaced)
            self._drag.draft.set_refused(reason)
            if reason:
                self._drag.tip.show_reason(reason, event.scenePos())
            else:
                self._drag.tip.hide()
            status = (reason, displaced)
            if status != self._drag.reported:
                self._drag.reported = status
                self.wireHint.emit(reason or "")
                if displaced is not None:
                    self.wireNote.emit(f"Release to replace the wire from {self.graph.node(displaced.src).label}")
            event.accept()
            return
        super().mouseMoveEvent(event)

    def _end_wire(self) -> WireDrag:
        """Take down the wire being drawn: its draft, the faded edges and the status text it
        put up (``wireHint('')`` once more, so the window clears "Release to replace ...")."""
        drag, self._drag = self._drag, None
        self.removeItem(drag.draft)
        self.removeItem(drag.tip)
        self._fade_displaced(drag, None)
        replaced = drag.replaced
        for key in self.groups.readers(replaced.dst, replaced.dst_port) if replaced is not None else ():
            if key in self._edges:
                self._edges[key].setOpacity(1.0)
        if drag.reported not in (None, (None, None)):
            self.wireHint.emit("")
        return drag

    @property
    def drawing_wire(self) -> bool:
        return self._drag is not None

    @property
    def wire_drag(self) -> WireDrag | None:
        """The wire being drawn (None when none is)."""
        return self._drag

    def cancel_wire(self) -> bool:
        """Esc while drawing a wire: drop it without changing anything (True if there was one)."""
        if self._drag is None:
            return False
        self._end_wire()
        return True

    def mouseReleaseEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        if self._drag is not None:
            drag = self._end_wire()
            self._finish_wire(drag, self.port_at(event.scenePos()), event.scenePos())
            event.accept()
            return
        super().mouseReleaseEvent(event)
        if self._reroute_press is not None:
            item, before = self._reroute_press
            self._reroute_press = None
            after = item.edge_item.route_points()
            if after != before:
                self.routeChanged.emit(item.edge_item.edge, after, "Move Reroute Point")
        moves = {}
        for nid, old in self._press_positions.items():
            item = self._nodes.get(nid)
            if item is not None and item.pos() != old:
                moves[nid] = ((old.x(), old.y()), (item.pos().x(), item.pos().y()))
        self._press_positions = {}
        if moves:
            self.nodesMoved.emit(moves)

    def wire_plan(self, drag: WireDrag, target: PortItem | None) -> WirePlan | None:
        """What dropping ``drag`` on ``target`` would do; None when the pointer is not over a
        port of the other kind."""
        if target is None or target.is_output == drag.from_output:
            return None
        if drag.from_output:
            (src, src_port), (dst, dst_port) = drag.anchor, (target.node_id, target.port)
        else:
            (src, src_port), (dst, dst_port) = (target.node_id, target.port), drag.anchor
        ends = (src, src_port, dst, dst_port)
        replaced = drag.replaced
        if replaced is not None and (replaced.dst, replaced.dst_port) == (dst, dst_port):
            return WirePlan(ends, WireAction.NOTHING)
        existing = self.graph.edge_into(dst, dst_port) if self.graph.has_node(dst) else None
        if existing == N.Edge(src, src_port, dst, dst_port):
            return WirePlan(ends, WireAction.NOTHING if replaced is None else WireAction.DISCONNECT)
        return WirePlan(ends, WireAction.CONNECT, existing, self.groups.refusal(src, src_port, dst, dst_port))

    def _fade_displaced(self, drag: WireDrag, edge: N.Edge | None) -> None:
        """Draw the edge a drop would replace faded (and the previous one solid again)."""
        old = drag.faded
        if old == edge:
            return
        if old is not None and (old.dst, old.dst_port) in self._edges:
            self._edges[(old.dst, old.dst_port)].setOpacity(1.0)
        if edge is not None and ((edge.dst, edge.dst_port) in self._edges
                                 or (edge.dst, edge.dst_port) in self._waiting_edges):
            self.edge_item(edge.dst, edge.dst_port).setOpacity(0.25)
        drag.faded = edge

    def _finish_wire(self, drag: WireDrag, target: PortItem | None, pos: QtCore.QPointF) -> None:
        replaced = drag.replaced
        plan = self.wire_plan(drag, target)
        if plan is None:
            if replaced is not None and target is None:
                self.disconnectRequested.emit(replaced.dst, replaced.dst_port)
            elif target is None and not any(isinstance(i, (NodeItem, PortItem)) for i in self.items(pos)):
                self.wireDropped.emit(WireDrop(drag.anchor, drag.from_output, QtCore.QPointF(pos)))
            return
        if plan.action is WireAction.NOTHING:
            return
        if plan.action is WireAction.DISCONNECT:
            self.disconnectRequested.emit(replaced.dst, replaced.dst_port)
            return
        if plan.reason is not None:
            self.connectionRefused.emit(plan.reason)
            return
        self.connectRequested.emit(*plan.ends, replaced, plan.displaced)

    def mouseDoubleClickEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        """On a wire: a reroute point there; on a reroute point: remove it."""
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            pos = event.scenePos()
            for item in self.items(pos):
                if isinstance(item, RerouteItem):
                    points = item.edge_item.route_points()
                    del points[item.index]
                    self.routeChanged.emit(item.edge_item.edge, points, "Remove Reroute Point")
                    event.accept()
                    return
                if isinstance(item, EdgeItem):
                    self.routeChanged.emit(item.edge, self._with_point(item, (pos.x(), pos.y())), "Add Reroute Point")
                    event.accept()
                    return
                if isinstance(item, (NodeItem, PortItem, GroupItem)):
                    break
        super().mouseDoubleClickEvent(event)

    def _with_point(self, item: EdgeItem, at: tuple[float, float]) -> list[tuple[float, float]]:
        """The edge's points with ``at`` put where it splits the wire."""
        e = item.edge
        a = self.port_scene_pos(e.src, e.src_port, True)
        b = self.port_scene_pos(e.dst, e.dst_port, False)
        points = item.route_points()
        index = insertion_index([(a.x(), a.y())] + points + [(b.x(), b.y())], at)
        points.insert(index - 1, at)
        return points

    # ------------------------------------------------------------------ keyboard
    def nudge_selection(self, dx: float, dy: float, burst: int) -> bool:
        """Move the selected nodes by (dx, dy) scene units, as a drag would (items first,
        then ``nodesMoved`` with :class:`~nodeeditor.ui.commands.NudgeMoves` of ``burst``).
        False when nothing is selected."""
        from nodeeditor.ui.commands import NudgeMoves

        moves = {}
        for nid in self.selected_node_ids():
            item = self._nodes[nid]
            old = item.pos()
            item.setPos(old.x() + dx, old.y() + dy)
            moves[nid] = ((old.x(), old.y()), (item.pos().x(), item.pos().y()))
        if moves:
            self.nodesMoved.emit(NudgeMoves(moves, burst))
        return bool(moves)

    def reading_order(self) -> list[str]:
        """Node ids left to right by column (x, to the nearest 40 units), top to bottom."""
        def key(nid):
            item = self._nodes.get(nid)
            x, y = (item.pos().x(), item.pos().y()) if item is not None else self.graph.node(nid).position
            return (round(x / 40.0), y, x)
        return sorted(self.node_ids(), key=key)

    def select_next(self, step: int = 1) -> str | None:
        """Select the node after (``step`` 1) or before (-1) the selected one in
        :meth:`reading_order` (the first or last when none is selected); returns it."""
        order = self.reading_order()
        if not order:
            return None
        selected = self.selected_node_ids()
        if selected:
            places = [order.index(n) for n in selected]
            current = max(places) if step > 0 else min(places)
            nid = order[(current + step) % len(order)]
        else:
            nid = order[0] if step > 0 else order[-1]
        self.select_nodes([nid])
        return nid

    # ------------------------------------------------------------------ misc
    def drawing_changed(self) -> None:
        """Nodes came, went, moved, changed size, were hidden or shown, or the selection
        changed: :meth:`nodes_rect` is measured again and :attr:`drawing_revision` counts on."""
        self._all_rect = None
        self.drawing_revision += 1

    def nodes_rect(self, node_ids=None) -> QtCore.QRectF:
        """The scene rectangle the items of ``node_ids`` (default all nodes) cover."""
        if node_ids is None:
            if self._all_rect is None:
                self._all_rect = self._measure_nodes(None)
            return QtCore.QRectF(self._all_rect)
        return self._measure_nodes(node_ids)

    def _measure_nodes(self, node_ids) -> QtCore.QRectF:
        rect = QtCore.QRectF()
        for nid, item in self._nodes.items():
            if node_ids is None or nid in node_ids:
                rect = rect.united(item.sceneBoundingRect())
        boxes = [box for nid, box in self._waiting_nodes.items() if node_ids is None or nid in node_ids]
        if boxes:
            rect = rect.united(rect_of((min(b[0] for b in boxes), min(b[1] for b in boxes),
                                        max(b[2] for b in boxes), max(b[3] for b in boxes))))
        return rect
