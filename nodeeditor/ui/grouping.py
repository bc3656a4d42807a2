"""Collapse nodes into a group block and expand it again (issue #13): the actions and the undo
commands they push. A group is a collapsed frame (``Frame.collapsed``; drawn by
``canvas.group_item``); the graph stays flat, so nothing here changes a value.

- Collapse into Group (Ctrl+G): the selected nodes become one collapsed frame titled by
  ``grouping.group_title`` (``MatMul → Add → Softmax``). When the selection is exactly an
  expanded frame's members (or that frame alone), that frame collapses; groups in the
  selection merge into the new one.
- Expand Group (Ctrl+Shift+G, or a double-click on the block): the selected groups are drawn
  as their members again, where they were, inside their (expanded) frame.
- Collapse Foreign Chains: every chain of foreign ONNX nodes (``grouping.foreign_chains``)
  not yet in a group becomes one, in one undo step: right after importing a large model.

Each is one undo step pushed through ``push``. UI thread only.
"""
from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph
from nodeeditor.graph.grouping import foreign_chains, group_title, member_order

from . import commands as C
from .canvas import GraphScene, GraphView
from .canvas.style import CATEGORY_COLOURS
from .status_line import ShowStatus

#: A new group's colour: the foreign nodes' header colour (what groups mostly hold).
GROUP_COLOUR = CATEGORY_COLOURS["foreign"].name()


class GroupActions:
    def __init__(self, parent: QtWidgets.QWidget, graph_of: Callable[[], Graph], scene: GraphScene,
                 view: GraphView, push: Callable[[QtGui.QUndoCommand], None], status: ShowStatus) -> None:
        self._graph_of, self.scene, self._push, self._status = graph_of, scene, push, status

        def action(text, slot, shortcut=None):
            a = QtGui.QAction(text, parent)
            if shortcut:
                a.setShortcut(QtGui.QKeySequence(shortcut))
                a.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
                view.addAction(a)
            a.triggered.connect(slot)
            return a

        self.collapse_action = action("Collapse into &Group", self.collapse_selection, "Ctrl+G")
        self.expand_action = action("E&xpand Group", self.expand_selection, "Ctrl+Shift+G")
        self.chains_action = action("Collapse Foreign &Chains", self.collapse_foreign_chains)
        self.collapse_action.setStatusTip("Draw the selected nodes as one block whose ports are the tensors "
                                          "entering and leaving them (Ctrl+G)")
        self.chains_action.setStatusTip("Collapse each chain of imported ONNX ops (outside the seven indexing "
                                        "ops) into one block")
        scene.groups.expandRequested.connect(self.expand)
        scene.selectionChanged.connect(self.update)
        self.update()

    def update(self) -> None:
        """Enable the actions for the selection now."""
        if not shiboken6.isValid(self.scene) or not shiboken6.isValid(self.collapse_action):
            return   # the window is being destroyed (its scene clears the selection on the way)
        self.collapse_action.setEnabled(bool(self.scene.selected_node_ids() or self._expanded_frames()))
        self.expand_action.setEnabled(bool(self.scene.groups.selected_frame_ids()))

    def _expanded_frames(self) -> list[str]:
        graph = self._graph_of()
        return [f for f in self.scene.selected_frame_ids() if graph.has_frame(f) and not graph.frame(f).collapsed]

    # ------------------------------------------------------------------ collapse
    def collapse_selection(self) -> str | None:
        """Ctrl+G: collapse the selected nodes into one group (or the one selected frame, when
        no node is selected); returns its frame id."""
        graph = self._graph_of()
        ids = [n for n in self.scene.selected_node_ids() if graph.has_node(n)]
        frames = self._expanded_frames()
        if not ids and len(frames) == 1 and graph.frame(frames[0]).nodes:
            ids = list(graph.frame(frames[0]).nodes)
        if not ids:
            self._status("Select the nodes (or the frame) to collapse into a group", error=True)
            return None
        chosen = set(ids)
        merged = [f.id for f in graph.frames if f.collapsed and set(f.nodes) & chosen]
        same = [f for f in graph.frames if not f.collapsed and set(f.nodes) == chosen]
        if len(merged) == 1 and set(graph.frame(merged[0]).nodes) == chosen:
            self._status(f"{graph.frame(merged[0]).title} is a group already")
            return merged[0]
        if same and not merged:
            self._push(C.FrameCommand(graph, same[0].id, f"Collapse {same[0].title}", collapsed=True))
            fid = same[0].id
        else:
            order = tuple(member_order(graph, ids))
            add = C.AddFrameCommand(graph, N.Frame(graph.new_frame_id(), group_title(graph, order), GROUP_COLOUR,
                                                   order, collapsed=True))
            steps = ([C.RemoveFramesCommand(graph, merged)] if merged else []) + [add]
            self._push(C.CompositeCommand(f"Collapse {len(order)} Nodes into a Group", steps))
            fid = add.frame_id
        self._select_group(fid)
        return fid

    def collapse_foreign_chains(self) -> list[str]:
        """Collapse every chain of foreign nodes not yet in a group; returns the new frames' ids."""
        graph = self._graph_of()
        grouped = {n for f in graph.frames if f.collapsed for n in f.nodes}
        chains = foreign_chains(graph, skip=grouped)
        if not chains:
            self._status("No chain of two or more ONNX ops outside a group to collapse")
            return []
        adds = []
        for chain in chains:
            frame = N.Frame("", group_title(graph, chain), GROUP_COLOUR, chain, collapsed=True)
            adds.append(C.AddFrameCommand(graph, frame))
        self._push(C.CompositeCommand(f"Collapse {len(adds)} Foreign Chain{'s' if len(adds) != 1 else ''}", adds))
        self._status(f"Collapsed {len(adds)} chain{'s' if len(adds) != 1 else ''} of ONNX ops "
                     f"({sum(len(c) for c in chains)} nodes) into groups")
        return [a.frame_id for a in adds]

    # ------------------------------------------------------------------ expand
    def expand_selection(self) -> None:
        ids = self.scene.groups.selected_frame_ids()
        if not ids:
            self._status("Select a group to expand it", error=True)
            return
        graph = self._graph_of()
        steps = [C.FrameCommand(graph, fid, "Expand Group", collapsed=False) for fid in ids]
        self._push(steps[0] if len(steps) == 1 else C.CompositeCommand(f"Expand {len(steps)} Groups", steps))
        self.scene.select_nodes(n for fid in ids for n in graph.frame(fid).nodes)

    def expand(self, frame_id: str) -> None:
        """Expand one group (a double-click on its block) and select its members."""
        graph = self._graph_of()
        if graph.has_frame(frame_id) and graph.frame(frame_id).collapsed:
            self._push(C.FrameCommand(graph, frame_id, f"Expand {graph.frame(frame_id).title}", collapsed=False))
            self.scene.select_nodes(graph.frame(frame_id).nodes)

    def _select_group(self, frame_id: str) -> None:
        self.scene.clearSelection()
        if frame_id in {item.frame_id for item in self.scene.groups.items()}:
            self.scene.groups.item(frame_id).setSelected(True)

    def section(self, menu: QtWidgets.QMenu) -> None:
        """The group actions, for the right-click menu on a group block."""
        self.update()
        menu.addAction(self.expand_action)
