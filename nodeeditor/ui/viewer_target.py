"""Which tensor the viewer dock shows, and keeping it shown.

The target is a :class:`Target` (node id, port, output or input). It is chosen by:

- selecting one node (:meth:`ViewerTarget.show_node`): that node's output;
- clicking a port (the scene's ``portClicked``): that port's tensor; an input shows the
  value feeding it;
- a left click on the body of a node that is already selected (it changes no selection, so
  this watches the scene's mouse events): that node's output again, after a port click
  showed another tensor;
- nothing chosen, or the chosen node gone: the graph's first output node.

Values can be withheld (:meth:`ViewerTarget.withhold`, a quiz's answers, or sources a quiz's
new inputs replace): the viewer then names the tensor and says why it shows no picture,
however it was chosen.

The viewer's Value / Gradient switch (:class:`ViewerMode`, two buttons it puts in the
viewer's button row) chooses what of the target is shown: its value, or d loss / d that
value from the :class:`~.gradients.GradientRunner` (an input port: the gradient of the value
feeding it; an output node: of the value it shows). Where there is no gradient (no Loss
node, no trainable source, a node on no path from one to the other, a failed pass) the
viewer says why instead of a picture. Gradients are computed only while the switch is on
Gradient and the dock is shown.

:meth:`ViewerTarget.update` puts the target's tensor in the viewer, except while the dock
is hidden (it catches up when shown) or when that same array is shown already; the window
calls it after every run and when a node's state may have changed. UI thread only; it
changes the viewer and nothing else.
"""
from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from PySide6 import QtCore, QtWidgets

from nodeeditor.graph.document import Graph

from .canvas import GraphScene, style
from .canvas.edge_item import EdgeItem
from .canvas.node_item import NodeItem, short_message
from .gradients import GradientRunner
from .runner import EvaluationRunner
from .viewer import TensorViewer

#: Longest detail of a node's problem the viewer's subtitle shows (the full message is in
#: the status bar, the node's tooltip and the property panel).
SUBTITLE_DETAIL = 48


class ViewerMode(enum.Enum):
    """What the viewer shows of its target."""

    VALUE = "Value"
    GRADIENT = "Gradient"


@dataclass(frozen=True)
class Shown:
    """What the viewer is given: a name, a subtitle, the array (None: nothing to draw) and what
    the picture says without one."""

    name: str
    subtitle: str
    array: object
    placeholder: str = ""


@dataclass(frozen=True)
class Target:
    """A node's output (``port`` None: its first output port) or one of its ports."""

    node_id: str
    port: str | None = None
    is_output: bool = True


class ViewerTarget(QtCore.QObject):
    def __init__(self, graph_of: Callable[[], Graph], scene: GraphScene, runner: EvaluationRunner,
                 viewer: TensorViewer, dock: QtWidgets.QDockWidget, gradients: GradientRunner) -> None:
        super().__init__(dock)
        self._graph_of, self.scene, self.runner, self.viewer, self.dock = graph_of, scene, runner, viewer, dock
        self.gradients = gradients
        self.target: Target | None = None
        self.mode = ViewerMode.VALUE
        self._shown: tuple | None = None            # (mode, name, id of the array, subtitle) last shown
        self._pressed_node: str | None = None
        self._withheld: Callable[[str], str] | None = None   # why a node's value is not shown ("": it is)
        self.mode_switch = QtWidgets.QWidget()
        self.mode_buttons = self._build_switch(self.mode_switch)
        viewer.add_control(self.mode_switch)
        dock.visibilityChanged.connect(self._on_visibility_changed)
        scene.portClicked.connect(self._on_port_clicked)
        scene.installEventFilter(self)
        gradients.changed.connect(self._on_gradients)

    def _build_switch(self, box: QtWidgets.QWidget) -> dict[ViewerMode, QtWidgets.QToolButton]:
        row = QtWidgets.QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(0)
        group = QtWidgets.QButtonGroup(box)
        buttons = {}
        tips = {ViewerMode.VALUE: "Show the tensor's values",
                ViewerMode.GRADIENT: "Show d loss / d the tensor (needs a Loss node and a trainable source)"}
        for mode in ViewerMode:
            button = QtWidgets.QToolButton(text=mode.value)
            button.setCheckable(True)
            button.setToolTip(tips[mode])
            button.setChecked(mode is self.mode)
            button.clicked.connect(lambda _checked=False, m=mode: self.set_mode(m))
            group.addButton(button)
            row.addWidget(button)
            buttons[mode] = button
        return buttons

    def set_mode(self, mode: ViewerMode) -> None:
        """Show the target's value or its gradient."""
        self.mode = ViewerMode(mode)
        self.mode_buttons[self.mode].setChecked(True)
        self.gradients.want("viewer", self.mode is ViewerMode.GRADIENT and not self.dock.isHidden())
        self.update()

    def _on_gradients(self) -> None:
        if self.mode is ViewerMode.GRADIENT:
            self.update()

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
        self.gradients.want("viewer", self.mode is ViewerMode.GRADIENT and visible)
        if visible:
            self.update()

    def withhold(self, withheld: Callable[[str], str] | None) -> None:
        """Show no value (nor gradient) of a node for which ``withheld(node_id)`` gives a reason
        (``""``: shown), asked each time one is about to show (the graph may change), saying
        the reason instead (the picture its words before the first colon, the line above it
        all); None shows everything again."""
        self._withheld = withheld
        self.update()

    def _show(self, target: Target) -> None:
        self.target = target
        self.update()

    def source(self) -> Shown:
        """What the viewer should show (see :class:`Shown`)."""
        graph = self._graph_of()
        if self.target is None or not graph.has_node(self.target.node_id):
            outputs = graph.output_nodes()   # nothing chosen: the first graph output
            if not outputs:
                return Shown("", "", None)
            self.target = Target(outputs[0].id)
        node_id, port, is_output = self.target.node_id, self.target.port, self.target.is_output
        node = graph.node(node_id)
        edge = None if is_output else graph.edge_into(node_id, port)
        why = self._withheld(edge.src if edge is not None else node_id) if self._withheld is not None else ""
        if why:
            name = node.name if port is None or node.kind == "output" else f"{node.name}.{port}"
            return Shown(name, why, None, why.split(":")[0])
        if self.mode is ViewerMode.GRADIENT:
            return self._gradient_source(graph)
        if not is_output:
            if edge is None:
                return Shown(f"{node.name}.{port}", "input not connected", None)
            src = graph.node(edge.src)
            return Shown(f"{node.name}.{port}", f"input, from {src.name}", self.runner.value(edge.src, edge.src_port))
        port = port or (node.output_ports()[0] if node.output_ports() else None)
        state, message = self.scene.node_state(node_id)
        subtitle = style.STATE_LABELS[state] if state != style.OK else "output"
        if state == style.INCOMPLETE:
            subtitle = message  # "inputs 'data' and 'indices' are not connected" says it all
        elif message and state != style.OK:
            detail = short_message(node, message)
            subtitle += f": {detail[:SUBTITLE_DETAIL]}…" if len(detail) > SUBTITLE_DETAIL else f": {detail}"
        name = node.name if port is None or node.kind == "output" else f"{node.name}.{port}"
        return Shown(name, subtitle, self.runner.value(node_id, port if is_output and node.output_ports() else None))

    def _gradient_source(self, graph: Graph) -> Shown:
        """d loss / d the target's tensor, or why there is none."""
        node_id, port, is_output = self.target.node_id, self.target.port, self.target.is_output
        node = graph.node(node_id)
        of, label = node_id, node.name if port is None or node.kind == "output" else f"{node.name}.{port}"
        edge = graph.edge_into(node_id, port) if not is_output else (
            graph.edge_into(node_id, node.input_ports()[0]) if node.kind == "output" else None)
        out_port = port if is_output and node.kind != "output" else None
        if not is_output or node.kind == "output":
            if edge is None:
                return Shown(f"d loss / d {label}", "input not connected", None, "no gradient")
            of, out_port = edge.src, edge.src_port
        name = f"d loss / d {label}"
        outputs = graph.node(of).output_ports()
        if out_port is not None and outputs and out_port != outputs[0]:   # gradients are of first outputs
            return Shown(name, f"gradients are kept for a node's first output only ({graph.node(of).name}."
                               f"{outputs[0]}), not for {out_port}", None, "no gradient")
        result = self.gradients.result
        if result is None:
            problem = self.gradients.problem or "computing the gradient…"
            short = "computing…" if self.gradients.busy else "no gradient"
            return Shown(name, problem, None, short)
        grad = result.gradient(of)
        if grad is None:
            return Shown(name, f"{graph.node(of).name} is on no path from a trainable source to a Loss node, "
                               "so no gradient reaches it", None, "no gradient")
        subtitle = f"gradient · loss {result.loss:.6g}"
        if of in result.blocked:
            subtitle += " · training off here: nothing flows on to its inputs"
        return Shown(name, subtitle, grad)

    def update(self) -> None:
        if self.dock.isHidden():
            return   # a closed viewer costs nothing; it catches up when shown again
        shown = self.source()
        key = (self.mode, shown.name, id(shown.array) if shown.array is not None else None,
               shown.subtitle if shown.array is None else "")
        if key == self._shown:
            return
        self._shown = key
        self.viewer.set_tensor(shown.name, shown.array, shown.subtitle, shown.placeholder)

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
