"""The canvas's right-click menu (on a node or on empty canvas; the view selects the node
under the pointer first).

It offers, on a node: Rename, Help for the operator, Bypass (disabled, with the reason as
its tooltip, where the op cannot be bypassed), Collapse, New Frame Around Selection and
Collapse into Group (:class:`.node_actions.NodeActions`); on a frame's title: Rename Frame,
Colour, Remove Frame; on a group block: Expand Group, Rename Group, Colour, Remove Group.
Then everywhere: Add Block Here (the Tab box at that point); the window's Copy, Duplicate
and Delete actions, enabled only while something is selected (and enabled again when the
menu closes, so their shortcuts keep working); Paste Here, enabled while the clipboard holds
IndexFlow nodes; Connect Ports when exactly one node is selected; Extract Selection while
nodes are selected and Splice Back where it is enabled (:mod:`.regions`); Auto Layout and
Frame; Collapse Foreign Chains.
The menu pops up without blocking; :attr:`CanvasMenu.menu` is the one shown last (for
tests). It runs the given callables and actions and changes nothing itself.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6 import QtCore, QtGui, QtWidgets

from . import clipboard
from .canvas import GraphScene, GraphView
from .canvas.frame_item import FrameItem
from .canvas.group_item import GroupItem
from .canvas.node_item import NodeItem
from .node_actions import NodeActions


class CanvasMenu:
    def __init__(self, view: GraphView, scene: GraphScene, *, add_here: Callable[[QtCore.QPointF], None],
                 paste_here: Callable[[QtCore.QPointF], object], selection_actions: Sequence[QtGui.QAction],
                 connect_action: QtGui.QAction, arrange_actions: Sequence[QtGui.QAction],
                 node_actions: NodeActions | None = None, region_actions: Sequence[QtGui.QAction] = ()) -> None:
        self.view, self.scene = view, scene
        self._node_actions = node_actions
        self._add_here, self._paste_here = add_here, paste_here
        self._selection_actions = tuple(selection_actions)
        self._connect_action = connect_action
        self._arrange_actions = tuple(arrange_actions)
        self._region_actions = tuple(region_actions)
        self.menu: QtWidgets.QMenu | None = None
        view.contextMenuRequested.connect(self.popup)

    def popup(self, scene_pos: QtCore.QPointF, global_pos: QtCore.QPoint) -> QtWidgets.QMenu:
        """Show the menu for a click at ``scene_pos`` (``global_pos`` on screen); returns it."""
        menu = QtWidgets.QMenu(self.view)
        menu.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.setToolTipsVisible(True)   # a disabled Bypass says why
        under = self._item_at(scene_pos)
        if self._node_actions is not None and isinstance(under, NodeItem):
            self._node_actions.node_section(menu)
            menu.addSeparator()
        elif self._node_actions is not None and isinstance(under, FrameItem):
            self._node_actions.frame_section(menu)
            menu.addSeparator()
        elif self._node_actions is not None and isinstance(under, GroupItem):
            self._node_actions.group_section(menu)
            menu.addSeparator()
        add = menu.addAction("Add Block Here…\tTab")
        add.triggered.connect(lambda: self._add_here(scene_pos))
        menu.addSeparator()
        has_selection = bool(self.scene.selected_node_ids() or self.scene.selected_edges())
        for action in self._selection_actions:
            menu.addAction(action)
            action.setEnabled(has_selection)
        paste = menu.addAction("Paste Here")
        paste.setEnabled(clipboard.clipboard_data() is not None)
        paste.triggered.connect(lambda: self._paste_here(scene_pos))
        if len(self.scene.selected_node_ids()) == 1:
            menu.addAction(self._connect_action)
        # regions (:mod:`.regions`): the first, Extract Selection, while nodes are selected; the
        # others (Splice Back) while enabled, that is in a window showing an extracted region
        region = [a for i, a in enumerate(self._region_actions)
                  if a.isEnabled() and (i > 0 or self.scene.selected_node_ids())]
        if region:
            menu.addSeparator()
            menu.addActions(region)
        menu.addSeparator()
        menu.addActions(list(self._arrange_actions))
        if self._node_actions is not None:
            menu.addAction(self._node_actions.groups.chains_action)
        menu.aboutToHide.connect(lambda: [a.setEnabled(True) for a in self._selection_actions])
        self.menu = menu
        menu.popup(global_pos)
        return menu

    def _item_at(self, scene_pos: QtCore.QPointF) -> QtWidgets.QGraphicsItem | None:
        """The node, frame or group block under the click (its top-level item), if any."""
        for item in self.scene.items(scene_pos):
            while item.parentItem() is not None:
                item = item.parentItem()
            if isinstance(item, (NodeItem, FrameItem, GroupItem)):
                return item
        return None
