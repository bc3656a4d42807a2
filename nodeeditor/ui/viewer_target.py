"""Which tensor the viewer dock shows, and keeping it shown.

The target is a :class:`Target` (node id, port, output or input). It is chosen by:

- selecting one node (:meth:`ViewerTarget.show_node`): that node's output;
- clicking a port (the scene's ``portClicked``): that port's tensor; an input shows the
  value feeding it;
- a left click on the body of a node that is already selected (it changes no selection, so
  this watches the scene's mouse events): that node's output again, after a port click
  showed another tensor;
- nothing chosen, or the chosen node gone: the graph's first output node.

:meth:`ViewerTarget.update` puts the target's tensor in the viewer, except while the dock
is hidden (it catches up when shown) or when that same array is shown already; the window
calls it after every run and when a node's state may have changed. UI thread only; it
changes the viewer and nothing else.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6 import QtCore, QtWidgets

from nodeeditor.graph.document import Graph

from .canvas import GraphScene, style
from .canvas.edge_item import EdgeItem
from .canvas.node_item import NodeItem
from .runner import EvaluationRunner
from .viewer import TensorViewer

#: Longest detail of a node's problem the viewer's subtitle shows (the full message is in
#: the status bar, the node's tooltip and the property panel).
SUBTITLE_DETAIL = 48


@dataclass(frozen=True)
class Target:
    """A node's output (``port`` None: its first output port) or one of its ports."""

    node_id: str
    port: str | None = None
    is_output: bool = True


class ViewerTarget(QtCore.QObject):
    def __init__(self, graph_of: Callable[[], Graph], scene: GraphScene, runner: EvaluationRunner,
                 viewer: TensorViewer, dock: QtWidgets.QDockWidget) -> None:
        super().__init__(dock)
        self._graph_of, self.scene, self.runner, self.viewer, self.dock = graph_of, scene, runner, viewer, dock
        self.target: Target | None = None
        self._shown: tuple | None = None            # (name, id of the array) last given to the viewer
        self._pressed_node: str | None = None
        dock.visibilityChanged.connect(self._on_visibility_changed)
        scene.portClicked.connect(self._on_port_clicked)
        scene.installEventFilter(self)

    def reset(self) -> None:
        """A new document: nothing chosen, the viewer empty."""
        self.target = None
        self.viewer.set_tensor("", None)
        self._shown = None

    def show_node(self, node_id: str) -> None:
        """Show ``node_id``'s output (the node was selected)."""
        self._show(Target(node_id))

    def _on_port_clicked(self, node_id: str, port: str, is_output: bool) -> None:
        self._show(Target(node_id, port, is_output))

    def _on_visibility_changed(self, visible: bool) -> None:
        if visible:
            self.update()

    def _show(self, target: Target) -> None:
        self.target = target
        self.update()

    def source(self) -> tuple[str, str, object]:
        """(name, subtitle, array or None) of what the viewer should show."""
        graph = self._graph_of()
        if self.target is None or not graph.has_node(self.target.node_id):
            outputs = graph.output_nodes()   # nothing chosen: the first graph output
            if not outputs:
                return "", "", None
            self.target = Target(outputs[0].id)
        node_id, port, is_output = self.target.node_id, self.target.port, self.target.is_output
        node = graph.node(node_id)
        if not is_output:
            edge = graph.edge_into(node_id, port)
            if edge is None:
                return f"{node.name}.{port}", "input not connected", None
            src = graph.node(edge.src)
            return f"{node.name}.{port}", f"input, from {src.name}", self.runner.value(edge.src, edge.src_port)
        port = port or (node.output_ports()[0] if node.output_ports() else None)
        state, message = self.scene.node_state(node_id)
        subtitle = style.STATE_LABELS[state] if state != style.OK else "output"
        if state == style.INCOMPLETE:
            subtitle = message  # "inputs 'data' and 'indices' are not connected" says it all
        elif message and state != style.OK:
            detail = message.split(": ", 1)[-1]
            subtitle += f": {detail[:SUBTITLE_DETAIL]}…" if len(detail) > SUBTITLE_DETAIL else f": {detail}"
        name = node.name if port is None or node.kind == "output" else f"{node.name}.{port}"
        return name, subtitle, self.runner.value(node_id, port if is_output and node.output_ports() else None)

    def update(self) -> None:
        if self.dock.isHidden():
            return   # a closed viewer costs nothing; it catches up when shown again
        name, subtitle, array = self.source()
        key = (name, id(array) if array is not None else None)
        if key == self._shown:
            return
        self._shown = key
        self.viewer.set_tensor(name, array, subtitle)

    # ------------------------------------------------------------------ clicks on a node's body
    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:
        """Watch left clicks on the scene: a click on a node's body (not a port) points the
        viewer back at that node when the button is released (the press selected it)."""
        if watched is self.scene:
            kind = event.type()
            if kind == QtCore.QEvent.Type.GraphicsSceneMousePress:
                self._pressed_node = None
                if event.button() == QtCore.Qt.MouseButton.LeftButton:
                    self._pressed_node = self._node_body_at(event.scenePos())
            elif kind == QtCore.QEvent.Type.GraphicsSceneMouseRelease and self._pressed_node is not None:
                node_id, self._pressed_node = self._pressed_node, None
                self._show_clicked_node(node_id)   # the press has already selected it
        return super().eventFilter(watched, event)

    def _node_body_at(self, scene_pos: QtCore.QPointF) -> str | None:
        """The id of the node whose body (not a port) is at ``scene_pos``."""
        if self.scene.port_at(scene_pos) is not None:
            return None
        for item in self.scene.items(scene_pos):
            top = item.topLevelItem()
            if isinstance(top, NodeItem):
                return top.node_id
            if isinstance(top, EdgeItem):
                return None
        return None

    def _show_clicked_node(self, node_id: str) -> None:
        if not self._graph_of().has_node(node_id) or node_id not in self.scene.selected_node_ids():
            return
        if self.target != Target(node_id):
            self._show(Target(node_id))
