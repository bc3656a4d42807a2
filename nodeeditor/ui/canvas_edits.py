"""What a person does on the canvas, turned into undo commands.

:class:`CanvasEdits` listens to the scene (a wire drawn, dragged off, refused or dropped on
empty canvas; nodes moved; reroute points added, moved or removed), the view (a block
dropped from the palette), the Tab box and the palette, and serves the Edit menu's Add
Block, Delete, Select All and Auto Layout. Every change goes through ``push`` as one undo
command; nothing here calls a Graph mutator. A block is placed by
:func:`.placement.block_position`; one added from the Tab box goes to the free place nearest
the pointer (never over a node). A wire dropped on empty canvas opens the Tab box listing the
blocks that could take it; the block chosen is added and connected in one undo step. A
refused wire is reported in red on the status line and at the pointer, and kept in
:attr:`CanvasEdits.last_refusal`. UI thread only.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph.document import Graph

from . import blocks as B
from . import commands as C
from .canvas import GraphScene, GraphView, style
from .canvas.scene import WireDrop
from .layout import layered_layout
from .palette import Palette
from .placement import block_position
from .quick_add import QuickAddBox, block_height, wire_blocks
from .status_line import ShowStatus


class CanvasEdits:
    def __init__(self, graph_of: Callable[[], Graph], scene: GraphScene, view: GraphView, quick_add: QuickAddBox,
                 palette: Palette, push: Callable[[QtGui.QUndoCommand], None], status: ShowStatus,
                 previews_shown: Callable[[], bool]) -> None:
        self._graph_of, self.scene, self.view, self.quick_add = graph_of, scene, view, quick_add
        self._push, self._status, self._previews_shown = push, status, previews_shown
        self.last_refusal = ""   # the document's reason for the last wire it refused
        scene.connectRequested.connect(self.connect_wire)
        scene.disconnectRequested.connect(self.disconnect_wire)
        scene.connectionRefused.connect(self.report_refusal)
        scene.nodesMoved.connect(lambda moves: push(C.MoveCommand(graph_of(), moves)))
        scene.wireDropped.connect(self.offer_blocks_for_wire)
        scene.routeChanged.connect(lambda edge, points, text: push(C.RouteCommand(graph_of(), edge, points, text)))
        view.blockDropped.connect(self.add_block)
        view.quickAddRequested.connect(self.open_quick_add_at)
        palette.blockActivated.connect(lambda key: self.add_block(key, view.centre_scene_pos(), avoid_overlap=True))
        quick_add.chosen.connect(self._quick_add_chosen)

    def connect_wire(self, src: str, src_port: str, dst: str, dst_port: str, replaced, displaced) -> None:
        """A wire drawn to an input (see ``GraphScene.connectRequested``). At a group block's
        input mark, the wire feeds every member input that mark stands for; picked up from a
        mark, it leaves every one of them (``GroupLayer.readers``). One undo step either way."""
        graph = self._graph_of()
        targets = self.scene.groups.readers(dst, dst_port)
        picked = self.scene.groups.readers(replaced.dst, replaced.dst_port) if replaced is not None else []
        if len(targets) == 1 and len(picked) <= 1:
            self._push(C.ConnectCommand(graph, src, src_port, dst, dst_port, replaced, displaced))
            return
        reason = self.scene.groups.refusal(src, src_port, dst, dst_port)
        if reason is not None:
            self.report_refusal(reason)
            return
        steps: list[QtGui.QUndoCommand] = [C.DisconnectCommand(graph, *key) for key in picked[1:]]
        steps += [C.ConnectCommand(graph, src, src_port, node_id, port, replaced if i == 0 else None,
                                   displaced if i == 0 else graph.edge_into(node_id, port))
                  for i, (node_id, port) in enumerate(targets)]
        text = steps[-1].text() + (f" ({len(targets)} Inputs)" if len(targets) > 1 else "")
        self._push(C.CompositeCommand(text, steps))

    def disconnect_wire(self, dst: str, dst_port: str) -> None:
        """A wire end dragged off its input (at a group's input mark: off every reader)."""
        graph = self._graph_of()
        targets = self.scene.groups.readers(dst, dst_port)
        steps = [C.DisconnectCommand(graph, *key) for key in targets]
        self._push(steps[0] if len(steps) == 1 else C.CompositeCommand(f"Disconnect ({len(steps)} Inputs)", steps))

    def _quick_add_chosen(self, key: str, scene_pos: QtCore.QPointF) -> None:
        wire = self.quick_add.wire
        if isinstance(wire, WireDrop):
            self.add_block_for_wire(key, wire)
        else:
            self.add_block(key, scene_pos, avoid_overlap=True)

    def add_block(self, key: str, scene_pos: QtCore.QPointF, avoid_overlap: bool = False,
                  wire: WireDrop | None = None) -> str | None:
        """Add the block ``key`` centred at ``scene_pos`` (with ``avoid_overlap``, the nearest
        free place in view, else below or right of it, and the view scrolls to it: "add at the
        centre" must neither bury a node nor put the new one out of sight) and select it;
        returns the new node id. With ``wire``, the new block is connected to that dropped
        wire in the same undo step (at the port the Tab box listed)."""
        try:
            block = B.block(key)
        except KeyError:
            self._status(f"unknown block {key!r}", error=True)
            return None
        graph = self._graph_of()
        try:
            height = block_height(key, self._previews_shown())
            node = block.make(graph, block_position(self.scene, self.view, scene_pos, avoid_overlap, height))
        except ValueError as exc:   # an ONNX op not in the graph's opset
            self._status(f"Cannot add {block.title}: {exc}", error=True)
            return None
        command = C.AddNodeCommand(graph, node, f"Add {block.title}")
        if wire is not None:
            port = self.quick_add.port_for(key)
            (other, other_port), to_new = wire.anchor, wire.from_output
            ends = (other, other_port, node.id, port) if to_new else (node.id, port, other, other_port)
            command = C.CompositeCommand(f"Add {block.title} and Connect",
                                         [command, C.ConnectCommand(graph, *ends)])
        self._push(command)
        command = command.commands[0] if wire is not None else command
        self.scene.select_nodes([command.node_id])
        if avoid_overlap:
            item = self.scene.node_item(command.node_id)
            if item is not None:
                self.view.ensureVisible(item.sceneBoundingRect(), 20, 20)
        return command.node_id

    def offer_blocks_for_wire(self, drop: WireDrop) -> None:
        """A new wire released on empty canvas: the Tab box there, listing the blocks that
        could take it."""
        ports = wire_blocks(self._graph_of(), drop.anchor, drop.from_output)
        if not ports:
            self._status("No block can take this wire", error=True)
            return
        self.quick_add.popup(self.view.mapFromScene(drop.scene_pos), drop.scene_pos, wire=drop, ports=ports)

    def add_block_for_wire(self, key: str, drop: WireDrop) -> str | None:
        """Add ``key`` beside the dropped wire's end (to its right for a wire from an output,
        to its left for one drawn back from an input), in free space, connected to it."""
        side = 1 if drop.from_output else -1
        at = QtCore.QPointF(drop.scene_pos.x() + side * (style.NODE_WIDTH / 2 + 10), drop.scene_pos.y())
        return self.add_block(key, at, avoid_overlap=True, wire=drop)

    def report_refusal(self, reason: str) -> None:
        """A wire the graph refused: the reason in red on the status line and at the pointer."""
        self.last_refusal = reason
        self._status(f"Not connected: {reason}", error=True)
        QtWidgets.QToolTip.showText(QtGui.QCursor.pos(), reason, self.view)

    def delete_selection(self) -> None:
        """Delete the selected nodes and wires; a selected frame goes too (its nodes stay
        unless they are selected as well)."""
        ids = self.scene.selected_node_ids()
        edges = self.scene.selected_edges()
        frames = self.scene.selected_frame_ids()
        graph = self._graph_of()
        if frames and (ids or edges):
            self._push(C.CompositeCommand("Delete", [C.RemoveFramesCommand(graph, frames),
                                                     C.DeleteCommand(graph, ids, edges)]))
        elif frames:
            self._push(C.RemoveFramesCommand(graph, frames))
        elif ids or edges:
            self._push(C.DeleteCommand(graph, ids, edges))
        else:
            self._status("Nothing is selected to delete")

    def select_all(self) -> None:
        self.scene.select_nodes(self._graph_of().node_ids)

    def auto_layout(self) -> None:
        """Edit > Auto Layout (room for inline previews when they are shown), then frame all."""
        graph = self._graph_of()
        extra = (style.PREVIEW_HEIGHT + 4) if self._previews_shown() else 0.0
        positions = layered_layout(graph, extra_height=extra, blocks=self.scene.groups.blocks())
        if positions:
            self._push(C.LayoutCommand(graph, positions))
            self.view.frame(False)

    def open_quick_add(self) -> None:
        """Edit > Add Block (Tab): the Tab box at the pointer."""
        self.open_quick_add_at(self.view.cursor_scene_pos())

    def open_quick_add_at(self, scene_pos: QtCore.QPointF) -> None:
        self.quick_add.popup(self.view.mapFromScene(scene_pos), scene_pos)
