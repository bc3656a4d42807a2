"""Feeds the explainer dock: the selected operator node, its input values from the last run.

:class:`ExplainerController` reads the graph (through ``graph_of``), the scene's selection
and node states, and the runner's values; it writes only the explainer widget. The dock's
height is the window's business (``main_window``, ``screen_fit.bottom_dock_height``): it
stays put from one selected node to the next, so the canvas above it does not jump.

Public API for other parts of the editor (lessons, quizzes, presentation mode):

- :meth:`ExplainerController.explain` ``(node_id, step=0)``: show the dock, select the node on
  the canvas and step through it from ``step`` (applied as soon as the node's inputs have
  values, i.e. after a run still under way); ``explaining(node_id)`` is emitted once the
  widget shows that node at that step.
- :meth:`ExplainerController.set_output_hidden` ``(hidden)``: hide (or show again) everything
  that tells where a step lands and what the output holds (see
  :meth:`.widget.ExplainerWidget.set_output_hidden`); it stays so across nodes and runs.

Backward (the widget's Backward toggle): the node's backward pass, with d loss / d
its output from the :class:`~..gradients.GradientRunner` (asked for only while the dock is
shown in Backward); where there is none (no Loss node, no trainable source, a node on no path
between them) the dock says why.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtWidgets
from shiboken6 import isValid

import ops
from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph

from ..canvas import GraphScene, style
from ..canvas.node_item import short_message
from ..gradients import GradientRunner
from ..runner import EvaluationRunner
from .widget import HINT, Direction, ExplainerWidget

#: Above this many steps (output or update elements) the dock explains nothing: the index map
#: alone would cost 8 bytes per element and the explanation is built on the UI thread;
#: nobody steps through that many moves.
MAX_STEPS = 200_000


class ExplainerController(QtCore.QObject):
    """Keeps ``widget`` on the single selected operator node of ``scene``: refreshed when the
    selection changes, when a run finishes, and when the dock is shown; the step position is
    kept while the node and its inputs stay the same. ``host`` is the main window that holds
    ``dock``. ``explaining(node_id)``: the widget now steps through that node (after
    :meth:`explain`, once its step is applied)."""

    explaining = QtCore.Signal(str)

    def __init__(self, host: QtWidgets.QMainWindow, graph_of: Callable[[], Graph], scene: GraphScene,
                 runner: EvaluationRunner, widget: ExplainerWidget, dock: QtWidgets.QDockWidget,
                 gradients: GradientRunner | None = None) -> None:
        super().__init__(host)
        self.host, self.widget, self.dock = host, widget, dock
        self._graph_of, self.scene, self.runner, self.gradients = graph_of, scene, runner, gradients
        self._key = None
        self._pending: tuple[str, int] | None = None   # (node id, step) asked for by explain()
        scene.selectionChanged.connect(self.refresh)
        runner.finished.connect(lambda _result: self.refresh())
        dock.visibilityChanged.connect(self._on_visibility_changed)
        widget.directionChanged.connect(lambda _direction: self._direction_changed())
        widget.slidesRequested.connect(self.export_slides)
        if gradients is not None:
            gradients.changed.connect(self._on_gradients)
        else:
            widget.backward_button.hide()
            widget.backward_action.setVisible(False)

    def export_slides(self) -> QtWidgets.QDialog | None:
        """Explainer > Export Slides…: ask where and how, then write (see :mod:`.slides_dialog`);
        returns the dialog (opened, not waited for), None with nothing to export."""
        from .slides_dialog import SlidesDialog

        if self.widget.operation() is None:
            return None
        from .. import settings

        last = settings.last_directory()    # where files were opened or saved last, as File > Export proposes
        dialog = SlidesDialog(self.widget, self.host, Path(last) if last else None)
        dialog.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    @property
    def backward(self) -> bool:
        """Whether the dock steps through backward passes."""
        return self.widget.direction is Direction.BACKWARD

    def set_direction(self, direction: Direction) -> None:
        """Step through the forward pass or the backward pass of the selected node."""
        self.widget.set_direction(direction)
        self._direction_changed()

    def _on_gradients(self) -> None:
        if self.backward:
            self.refresh()

    def _direction_changed(self) -> None:
        self._key = None
        self._want_gradients()
        self.refresh()

    def _on_visibility_changed(self, visible: bool) -> None:
        self._want_gradients()
        if visible:
            self.refresh()

    def _want_gradients(self) -> None:
        if self.gradients is not None:
            self.gradients.want("explainer", self.backward and not self.dock.isHidden())

    def explain(self, node_id: str, step: int = 0) -> bool:
        """Show the dock (in Forward), select ``node_id`` (an operator node) and go to ``step`` (0-based,
        clamped to the steps there are). Returns True when the widget shows it now; False
        when it waits for the node's inputs (a run under way: the step is applied when the
        run ends, then ``explaining`` is emitted) or the node cannot be explained (the dock
        says why). Raises KeyError for an unknown node id."""
        graph = self._graph_of()
        graph.node(node_id)
        if self.backward:                    # lessons and presentations step through what the op computes
            self.widget.set_direction(Direction.FORWARD)
            self._want_gradients()
        if self.dock.isHidden():
            self.dock.show()                 # refreshes (the old selection) through visibilityChanged
        self.dock.raise_()
        self._pending = (node_id, int(step))
        self._key = None                     # a fresh start at ``step`` even on the same node
        self.scene.select_nodes([node_id])   # refreshes through selectionChanged
        if self._key is None or self._key[0] != node_id:
            self.refresh()
        return self._pending is None and self._key is not None and self._key[0] == node_id

    def set_output_hidden(self, hidden: bool) -> None:
        """Hide (True) or show (False) the answer of each step: the output's values, where the
        step lands and the step sentence (for a quiz); kept across nodes and runs."""
        self.widget.set_output_hidden(hidden)

    @property
    def output_hidden(self) -> bool:
        return self.widget.output_hidden

    def refresh(self) -> None:
        # Signals can still arrive while the window is being torn down.
        if not (isValid(self.dock) and isValid(self.scene)) or self.dock.isHidden():
            return
        graph = self._graph_of()
        ids = [nid for nid in self.scene.selected_node_ids() if graph.has_node(nid)]
        node = graph.node(ids[0]) if len(ids) == 1 else None
        if self._pending is not None and (node is None or node.id != self._pending[0]):
            self._pending = None             # the person chose something else meanwhile
        if not isinstance(node, N.OperatorNode):
            self._show_message(HINT)
            return
        state, message = self.scene.node_state(node.id)
        inputs, missing = [], None
        for port in node.input_ports():
            edge = graph.edge_into(node.id, port)
            value = None if edge is None else self.runner.value(edge.src, edge.src_port)
            if value is None and port not in node.optional_inputs():
                missing = missing or port
            inputs.append(value)
        if state == style.ERROR and message:
            # the node cannot run as set (an attribute value its opset does not allow, an index
            # out of range...): say why, as the viewer and the properties do, explain nothing;
            # an index out of range shows the inputs with that index marked (the widget does,
            # from the op's own refusal); named by the node, not by its op too
            self._key = None
            said = f"{node.name}: {short_message(node, message)}"
            if missing is not None or self.backward or \
                    self.widget.set_operation(node.name, node.op, inputs, dict(node.attributes), refusal=said):
                self._show_message(said)
            return
        if missing is not None:
            self._show_message(f"{node.name}: input {missing} has no value yet (connect it, or wait for the run)")
            return
        grad = None
        if self.backward:
            grad = self._grad_output(node)
            if grad is None:
                return
        key = (node.id, node.revision, tuple(id(v) for v in inputs),
               (id(grad), node.training, node.loss_coefficient) if grad is not None else None)
        if key == self._key:
            return
        steps = _steps(node.op, inputs, self._output_shape(node.id))
        if steps > MAX_STEPS:
            self._show_message(f"{node.name}: {steps:,} steps is too many to step through; "
                               f"the explainer takes up to {MAX_STEPS:,} (try a smaller example)")
            return
        self._key = key
        if grad is not None:
            title = node.name
            if not node.training:
                title += " (training off: the pass sends none of this to its inputs)"
            elif node.loss_coefficient != 1.0:
                title += f" (loss coefficient {node.loss_coefficient:g}: what reaches the inputs is times that)"
            shown = self.widget.set_backward(title, node.op, inputs, dict(node.attributes), grad)
        else:
            shown = self.widget.set_operation(node.name, node.op, inputs, dict(node.attributes))
        if shown:
            if self._pending is not None and self._pending[0] == node.id:
                self.widget.set_step(self._pending[1])
                self._pending = None
                self.explaining.emit(node.id)

    def _grad_output(self, node: N.OperatorNode):
        """d loss / d the node's output, or None (the dock then says why)."""
        runner = self.gradients
        if runner is None or runner.result is None:
            problem = runner.problem if runner is not None else None
            self._show_message(f"{node.name}, backward: {problem or 'computing the gradient…'}")
            return None
        grad = runner.gradient(node.id)
        if grad is None:
            self._show_message(f"{node.name}, backward: it is on no path from a trainable source to a Loss node, "
                               "so no gradient reaches it")
        return grad

    def _output_shape(self, node_id: str) -> tuple[int, ...] | None:
        """The node's output shape: its value's (a declared shape may have named dimensions,
        ``batch``), else the inferred one when every dimension is a number, else None."""
        value = self.runner.value(node_id)
        if value is not None:
            return value.shape
        graph = self._graph_of()
        out_type = graph.output_type(node_id) if graph.has_node(node_id) else None
        shape = None if out_type is None else out_type.shape
        return shape if shape is not None and all(isinstance(d, int) for d in shape) else None

    def _show_message(self, message: str) -> None:
        self._key = None
        self.widget.clear(message)


def _steps(op: str, inputs: list, output_shape) -> int:
    """Elements of the updates (scatter ops) or of the output (gather ops)."""
    opdef = ops.get_opdef(op)
    if opdef.writes:
        return int(inputs[opdef.input_index(opdef.updates_port)].size)
    return int(np.prod(output_shape, dtype=np.int64)) if output_shape is not None else 0
