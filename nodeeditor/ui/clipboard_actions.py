"""Edit > Copy, Paste, Paste Here, Duplicate (Ctrl+D: the copies keep their input wires from
the rest of the graph, as in other node editors) and Duplicate without Wires (Ctrl+Shift+D):
each one undo step, with a status line.

:class:`ClipboardActions` turns the selection into clipboard data (:mod:`.clipboard`) and
clipboard data into a ``PasteCommand``. Where the group lands: Paste at the pointer when it
is over the canvas (or at the point given, for the canvas menu's Paste Here), else a step
down-right of the copied nodes per repeated paste; Duplicate one step down-right; either
moves further when it would land on nodes already there (:func:`.placement.paste_offset`).
The pasted nodes end up selected. UI thread only; the graph is changed only through
``push``.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtGui

from nodeeditor.graph.document import Graph

from . import clipboard
from . import commands as C
from .canvas import GraphScene, GraphView
from .placement import paste_offset
from .status_line import ShowStatus


class ClipboardActions:
    def __init__(self, graph_of: Callable[[], Graph], scene: GraphScene, view: GraphView,
                 push: Callable[[QtGui.QUndoCommand], None], status: ShowStatus) -> None:
        self._graph_of, self.scene, self.view, self._push, self._status = graph_of, scene, view, push, status
        self._paste_count = 0   # pastes since the last copy: each lands a step further

    def copy(self) -> bool:
        data = clipboard.selection_data(self._graph_of(), self.scene.selected_node_ids())
        if data is None:
            return False
        clipboard.copy_to_clipboard(data)
        self._paste_count = 0
        self._status(f"Copied {len(data['nodes'])} node(s)")
        return True

    def paste(self, at: QtCore.QPointF | None = None) -> list[str]:
        """Paste the clipboard's nodes (at ``at``, or the pointer); returns their new ids."""
        data = clipboard.clipboard_data()
        if data is None:
            self._status("The clipboard holds no IndexFlow nodes")
            return []
        if at is None and self.view.cursor_inside():
            at = self.view.cursor_scene_pos()
        self._paste_count += 1
        return self._paste(data, clipboard.paste_offset(data, at, self._paste_count), "Paste")

    def duplicate(self, keep_inputs: bool = True) -> list[str]:
        """Copies of the selection a step down-right; with ``keep_inputs`` each copy is fed by
        the same outputs as its original (the wires from outside the selection)."""
        graph, selected = self._graph_of(), self.scene.selected_node_ids()
        if not selected:
            self._status("Nothing is selected to duplicate")
            return []
        data = clipboard.selection_data(graph, selected)
        if data is None:
            return []
        inputs = clipboard.input_edges(graph, selected) if keep_inputs else []
        return self._paste(data, (clipboard.STEP, clipboard.STEP), "Duplicate", inputs)

    def _paste(self, data: dict, offset: tuple[float, float], text: str, inputs=()) -> list[str]:
        """Paste ``data`` moved by ``offset`` (further if it would land on nodes), with a
        status line saying what happened."""
        offset = paste_offset(self.scene, data, offset)
        try:
            command = C.PasteCommand(self._graph_of(), data, offset, text, inputs)
            self._push(command)
        except Exception as exc:  # noqa: BLE001 - malformed clipboard data, reported to the user
            self._status(f"Cannot paste: {exc}", error=True)
            return []
        self.scene.select_nodes(command.new_ids)
        n = len(command.new_ids)
        self._status(f"{'Pasted' if text == 'Paste' else text + 'd'} {n} node{'s' * (n != 1)}")
        return command.new_ids
