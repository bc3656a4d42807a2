"""What a node's right-click menu (and the Edit menu) does to the selected nodes and frames:
Rename (F2, in place), Help for This Operator, Bypass (Ctrl+B), Collapse (H), New Frame
Around Selection (Ctrl+J), and for a frame Rename Frame, its Colour and Remove Frame; the
group actions (Collapse into Group, Expand Group, Collapse Foreign Chains) are
:class:`.grouping.GroupActions`, held as ``groups``.

Each change is one undo command pushed through ``push``; nothing here calls a Graph mutator.
:meth:`NodeActions.update` enables the actions for the current selection and says why one is
not available in its tooltip (a gather cannot be bypassed: ``nodes.bypass_refusal``).

The node actions (Rename, Help, Bypass, Collapse, New Frame Around Selection) act on the nodes
drawn on the canvas that are selected, never on the hidden members of a selected group block
(:meth:`NodeActions.drawn_nodes`): a block is not a node, and a change to nodes nobody sees
would show nowhere. With only blocks selected they are disabled, their tooltip says why
(:data:`ON_A_GROUP`), and their shortcuts (Ctrl+B, H, Ctrl+J) put that on the status line;
F2 renames the group. Copy, Delete, Extract and the group actions take the block whole.
UI thread only.
"""
from __future__ import annotations

from collections.abc import Callable

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph

from . import commands as C
from .canvas import GraphScene, GraphView
from .canvas.frame_item import TITLE_HEIGHT
from .canvas.title_editor import RenameTarget, TitleEditor, TitleOf
from .grouping import GroupActions
from .op_help import OperatorHelp
from .status_line import ShowStatus

#: The colours a frame can take (menu text, #rrggbb); the first is a new frame's.
FRAME_COLOURS = (("Blue", "#5a7bb5"), ("Green", "#4e9a6e"), ("Orange", "#c8823a"), ("Purple", "#8a66bf"),
                 ("Red", "#c45454"), ("Grey", "#7d8597"))

#: Why a node action is not available with only group blocks selected ({what}: the action).
ON_A_GROUP = "{what} works on nodes, and a group block is not one: expand the group (Ctrl+Shift+G) first"


class _RefusedKeys(QtCore.QObject):
    """The canvas's key presses that are the shortcut of a disabled node action (Qt sends
    those to the canvas as plain keys): :meth:`NodeActions.refused_key` says why."""

    def __init__(self, actions: NodeActions) -> None:
        super().__init__(actions.view)
        self._actions = actions

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QtCore.QEvent.Type.KeyPress and not event.isAutoRepeat():
            return self._actions.refused_key(event)
        return False


class NodeActions:
    def __init__(self, parent: QtWidgets.QWidget, graph_of: Callable[[], Graph], scene: GraphScene,
                 view: GraphView, push: Callable[[QtGui.QUndoCommand], None], status: ShowStatus) -> None:
        self._parent, self._graph_of, self.scene, self.view = parent, graph_of, scene, view
        self._push, self._status = push, status
        self.editor = TitleEditor(view)
        self.editor.renamed.connect(self._renamed)
        scene.frameRenameRequested.connect(self.rename_frame)
        self.help_dialogs: list[OperatorHelp] = []

        def action(text, slot, shortcut=None, checkable=False):
            a = QtGui.QAction(text, parent)
            if shortcut:
                a.setShortcut(QtGui.QKeySequence(shortcut))
                a.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
                view.addAction(a)
            a.setCheckable(checkable)
            a.triggered.connect(slot)
            return a

        self.rename_action = action("&Rename…", self.rename, "F2")
        self.help_action = action("&Help for This Operator", self.show_help)
        self.bypass_action = action("&Bypass", self.toggle_bypass, "Ctrl+B", checkable=True)
        self.collapse_action = action("Co&llapse", self.toggle_collapse, "H", checkable=True)
        self.frame_action = action("New &Frame Around Selection", self.frame_selection, "Ctrl+J")
        self.rename_frame_action = action("Rename Frame…", lambda: self.rename_frame(self._one_frame()))
        self.remove_frame_action = action("Remove Frame (Keep Its Nodes)", self.remove_frames)
        self.colour_actions = [action(name, lambda _=False, c=colour: self.set_frame_colour(c))
                               for name, colour in FRAME_COLOURS]
        self.groups = GroupActions(parent, graph_of, scene, view, push, status)
        self._refusals: dict[QtGui.QAction, str] = {}    # disabled action -> why (see update)
        self._keys = _RefusedKeys(self)
        view.installEventFilter(self._keys)
        self.update()
        scene.selectionChanged.connect(self.update)

    # ------------------------------------------------------------------ state
    def _nodes(self) -> list[N.Node]:
        graph = self._graph_of()   # (while a new document replaces the scene's items, the old ones go)
        return [graph.node(nid) for nid in self.drawn_nodes() if graph.has_node(nid)]

    def drawn_nodes(self) -> list[str]:
        """The selected nodes drawn on the canvas (not the members of a selected group block)."""
        groups = self.scene.groups
        return [nid for nid in self.scene.selected_node_ids() if groups.group_of(nid) is None]

    def _only_groups(self, what: str) -> str | None:
        """:data:`ON_A_GROUP` for ``what`` when group blocks and no drawn node are selected."""
        if not self.drawn_nodes() and self.scene.groups.selected_frame_ids():
            return ON_A_GROUP.format(what=what)
        return None

    def _one_frame(self) -> str | None:
        ids = [fid for fid in self.scene.selected_frame_ids() if self._graph_of().has_frame(fid)]
        return ids[0] if len(ids) == 1 else None

    def bypass_refusal(self) -> str | None:
        """Why the selection cannot be bypassed (None: it can)."""
        nodes = self._nodes()
        if not nodes:
            return self._only_groups("Bypass") or "Select an operator to bypass it"
        for node in nodes:
            if not isinstance(node, N.OperatorNode):
                return f"{node.label} is not an operator: only operators can be bypassed"
            reason = N.bypass_refusal(node.op)
            if reason is not None:
                return f"{node.op} cannot be bypassed: {reason}"
        return None

    def update(self) -> None:
        """Enable and check the actions for the selection now."""
        if not shiboken6.isValid(self.scene) or not shiboken6.isValid(self.bypass_action):
            return   # the window is being destroyed (its scene clears the selection on the way)
        nodes = self._nodes()
        one = nodes[0] if len(nodes) == 1 else None
        self.rename_action.setEnabled(one is not None or self._one_frame() is not None)
        self.help_action.setEnabled(isinstance(one, N.OperatorNode))
        op = one.op if isinstance(one, N.OperatorNode) else "This Operator"
        self.help_action.setText(f"&Help for {op}")
        refusal = self.bypass_refusal()
        self.bypass_action.setEnabled(refusal is None)
        self.bypass_action.setToolTip(refusal or "Pass the data input through unchanged (Ctrl+B)")
        self.bypass_action.setStatusTip(self.bypass_action.toolTip())
        self.bypass_action.setChecked(bool(nodes) and all(getattr(n, "bypassed", False) for n in nodes))
        self.collapse_action.setEnabled(bool(nodes))
        self.collapse_action.setChecked(bool(nodes) and all(n.collapsed for n in nodes))
        self.collapse_action.setToolTip(self._only_groups("Collapse") or "Draw the node as its title only (H)")
        self.frame_action.setEnabled(bool(nodes))
        self.frame_action.setToolTip(self._only_groups("New Frame Around Selection")
                                     or "Put the selected nodes in a new frame (Ctrl+J)")
        frame = self._one_frame() is not None
        for a in (self.rename_frame_action, *self.colour_actions):
            a.setEnabled(frame)
        self.remove_frame_action.setEnabled(bool(self.scene.selected_frame_ids()))
        chosen = bool(self.scene.selectedItems())
        reasons = ((self.bypass_action, refusal), (self.collapse_action, self._only_groups("Collapse")),
                   (self.frame_action, self._only_groups("New Frame Around Selection")))
        self._refusals = {a: why for a, why in reasons if chosen and why and not a.isEnabled()}

    def refused_key(self, event: QtGui.QKeyEvent) -> bool:
        """A key of a disabled node action pressed on the canvas while something is selected:
        its reason goes on the status line (True: the key was that)."""
        pressed = QtGui.QKeySequence(event.keyCombination())
        for action, why in self._refusals.items():
            if action.shortcut() == pressed:
                self._status(why, error=True)
                return True
        return False

    # ------------------------------------------------------------------ node actions
    def rename(self) -> None:
        """Rename the selected node (or frame) in place."""
        nodes = self._nodes()
        if len(nodes) != 1:
            if self._one_frame() is not None:
                self.rename_frame(self._one_frame())
            else:
                self._status("Select one node to rename it", error=True)
            return
        node = nodes[0]
        item = self.scene.node_item(node.id)
        rect = QtCore.QRectF(item.scenePos(), QtCore.QSizeF(item.boundingRect().width() - 8, 24))
        self.view.ensureVisible(rect, 20, 20)
        self.editor.edit(RenameTarget(TitleOf.NODE, node.id), node.name, rect)

    def rename_frame(self, frame_id: str | None) -> None:
        if frame_id is None:
            return
        if self._graph_of().frame(frame_id).collapsed:   # a group: its block's title row
            rect = self.scene.groups.item(frame_id).title_rect()
        else:
            box = self.scene.frame_item(frame_id).box()
            rect = QtCore.QRectF(box.left(), box.top(), box.width(), TITLE_HEIGHT)
        self.editor.edit(RenameTarget(TitleOf.FRAME, frame_id), self._graph_of().frame(frame_id).title, rect)

    def _renamed(self, target: RenameTarget, text: str) -> None:
        graph = self._graph_of()
        if target.kind is TitleOf.NODE and graph.has_node(target.id):
            self._push(C.RenameCommand(graph, target.id, text))
        elif target.kind is TitleOf.FRAME and graph.has_frame(target.id):
            self._push(C.FrameCommand(graph, target.id, "Rename Frame", title=text))

    def show_help(self) -> OperatorHelp | None:
        nodes = self._nodes()
        if len(nodes) != 1 or not isinstance(nodes[0], N.OperatorNode):
            self._status("Select one operator to see its help", error=True)
            return None
        dialog = OperatorHelp(self._parent, self._graph_of(), nodes[0].id)
        dialog.finished.connect(lambda _r, d=dialog: self.help_dialogs.remove(d) if d in self.help_dialogs else None)
        self.help_dialogs.append(dialog)
        dialog.show()
        return dialog

    def toggle_bypass(self) -> None:
        refusal = self.bypass_refusal()
        if refusal is not None:
            self._status(refusal, error=True)
            self.update()
            return
        nodes = self._nodes()
        on = not all(n.bypassed for n in nodes)
        what = "Bypass" if on else "Stop Bypassing"
        self._push(C.NodeFlagCommand(self._graph_of(), "set_bypassed", [n.id for n in nodes], on,
                                     f"{what} {nodes[0].name}" if len(nodes) == 1 else f"{what} {len(nodes)} Nodes"))
        self.update()

    def toggle_collapse(self) -> None:
        nodes = self._nodes()
        if not nodes:
            refusal = self._only_groups("Collapse")
            if refusal:
                self._status(refusal, error=True)
            return
        on = not all(n.collapsed for n in nodes)
        what = "Collapse" if on else "Expand"
        self._push(C.NodeFlagCommand(self._graph_of(), "set_collapsed", [n.id for n in nodes], on,
                                     f"{what} {nodes[0].name}" if len(nodes) == 1 else f"{what} {len(nodes)} Nodes"))
        self.update()

    # ------------------------------------------------------------------ frames
    def frame_selection(self) -> str | None:
        """Put the selected nodes in a new frame and start renaming it; returns its id."""
        ids = self.drawn_nodes()
        if not ids:
            self._status(self._only_groups("New Frame Around Selection") or "Select the nodes to put in a frame",
                         error=True)
            return None
        graph = self._graph_of()
        command = C.AddFrameCommand(graph, N.Frame(graph.new_frame_id(), "Frame", FRAME_COLOURS[0][1], tuple(ids)))
        self._push(command)
        self.scene.clearSelection()
        self.scene.frame_item(command.frame_id).setSelected(True)
        self.rename_frame(command.frame_id)
        return command.frame_id

    def set_frame_colour(self, colour: str) -> None:
        fid = self._one_frame()
        if fid is not None:
            self._push(C.FrameCommand(self._graph_of(), fid, "Change Frame Colour", colour=colour))

    def remove_frames(self) -> None:
        ids = self.scene.selected_frame_ids()
        if ids:
            self._push(C.RemoveFramesCommand(self._graph_of(), ids))

    # ------------------------------------------------------------------ menus
    def node_section(self, menu: QtWidgets.QMenu) -> None:
        """The node actions, for the right-click menu on a node."""
        self.update()
        menu.addActions([self.rename_action, self.help_action])
        menu.addSeparator()
        menu.addActions([self.bypass_action, self.collapse_action, self.frame_action, self.groups.collapse_action])

    def frame_section(self, menu: QtWidgets.QMenu) -> None:
        """The frame actions, for the right-click menu on a frame's title."""
        self.update()
        menu.addAction(self.rename_frame_action)
        colours = menu.addMenu("Colour")
        colours.addActions(self.colour_actions)
        menu.addAction(self.remove_frame_action)
        menu.addAction(self.groups.collapse_action)

    def group_section(self, menu: QtWidgets.QMenu) -> None:
        """The actions for the right-click menu on a group block: Expand, Rename, Colour, and
        Remove (the group goes, its nodes are drawn again)."""
        self.update()
        self.groups.section(menu)
        self.rename_frame_action.setText("Rename Group…")
        self.remove_frame_action.setText("Remove Group (Keep Its Nodes)")
        menu.addAction(self.rename_frame_action)
        colours = menu.addMenu("Colour")
        colours.addActions(self.colour_actions)
        menu.addAction(self.remove_frame_action)
        menu.aboutToHide.connect(self._frame_texts)

    def _frame_texts(self) -> None:
        self.rename_frame_action.setText("Rename Frame…")
        self.remove_frame_action.setText("Remove Frame (Keep Its Nodes)")
