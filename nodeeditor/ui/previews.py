"""View > Inline Previews: a thumbnail of each node's output drawn on the node.

:class:`PreviewSwitch` keeps the menu action's check mark and the scene in step. Previews
make nodes taller: when the user turns them on (or a document opens with them on), the
nodes that would then overlap the node above them move down (:func:`.placement.preview_moves`).
That is a view setting, not an edit: the moves go straight to ``Graph.set_position`` in one
batch, are no undo step and do not mark the document modified (a graph only looked at asks
nothing on close); a save keeps them. Restoring the setting at start-up moves nothing.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtGui

from nodeeditor.graph.document import Graph

from .canvas import GraphScene
from .placement import preview_moves
from .status_line import ShowStatus


class PreviewSwitch:
    def __init__(self, action: QtGui.QAction, scene: GraphScene, graph_of: Callable[[], Graph],
                 status: ShowStatus) -> None:
        self.action, self.scene, self._graph_of, self._status = action, scene, graph_of, status

    @property
    def shown(self) -> bool:
        return self.action.isChecked()

    def set(self, show: bool, make_room_for_them: bool = True) -> None:
        """Show or hide the previews (and move nodes apart for them, see the module docstring)."""
        self.action.setChecked(show)
        self.scene.set_show_previews(show)
        if show and make_room_for_them:
            self.make_room()

    def make_room(self) -> None:
        """Move down the nodes that previews make overlap the node above them."""
        moved = preview_moves(self.scene)
        if moved:
            graph = self._graph_of()
            with graph.batch():
                for node_id, position in moved.items():
                    graph.set_position(node_id, position)
            self._status(f"{len(moved)} node(s) moved down to make room for the previews")
