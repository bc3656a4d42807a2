"""Feeds the explainer dock: the selected operator node, its input values from the last run.

:class:`ExplainerController` reads the graph (through ``graph_of``), the scene's selection
and node states, and the runner's values; it writes only the explainer widget. The dock's
height is the window's business (``main_window``, ``screen_fit.bottom_dock_height``): it
stays put from one selected node to the next, so the canvas above it does not jump.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6 import QtCore, QtWidgets
from shiboken6 import isValid

import ops
from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph

from ..canvas import GraphScene, style
from ..canvas.node_item import short_message
from ..runner import EvaluationRunner
from .widget import HINT, ExplainerWidget

#: Above this many steps (output or update elements) the dock explains nothing: the index map
#: alone would cost 8 bytes per element and the explanation is built on the UI thread;
#: nobody steps through that many moves.
MAX_STEPS = 200_000


class ExplainerController(QtCore.QObject):
    """Keeps ``widget`` on the single selected operator node of ``scene``: refreshed when the
    selection changes, when a run finishes, and when the dock is shown; the step position is
    kept while the node and its inputs stay the same. ``host`` is the main window that holds
    ``dock``."""

    def __init__(self, host: QtWidgets.QMainWindow, graph_of: Callable[[], Graph], scene: GraphScene,
                 runner: EvaluationRunner, widget: ExplainerWidget, dock: QtWidgets.QDockWidget) -> None:
        super().__init__(host)
        self.host, self.widget, self.dock = host, widget, dock
        self._graph_of, self.scene, self.runner = graph_of, scene, runner
        self._key = None
        scene.selectionChanged.connect(self.refresh)
        runner.finished.connect(lambda _result: self.refresh())
        dock.visibilityChanged.connect(lambda visible: visible and self.refresh())

    def refresh(self) -> None:
        # Signals can still arrive while the window is being torn down.
        if not (isValid(self.dock) and isValid(self.scene)) or self.dock.isHidden():
            return
        graph = self._graph_of()
        ids = [nid for nid in self.scene.selected_node_ids() if graph.has_node(nid)]
        node = graph.node(ids[0]) if len(ids) == 1 else None
        if not isinstance(node, N.OperatorNode):
            self._show_message(HINT)
            return
        state, message = self.scene.node_state(node.id)
        if state == style.ERROR and message:
            # the node cannot run as set (an attribute value its opset does not allow, an index
            # out of range...): say why, as the viewer and the properties do, explain nothing;
            # named by the node, not by its op too ("TensorScatter: TensorScatter: ...")
            self._show_message(f"{node.name}: {short_message(node, message)}")
            return
        inputs = []
        for port in node.input_ports():
            edge = graph.edge_into(node.id, port)
            value = None if edge is None else self.runner.value(edge.src)
            if value is None and port not in node.optional_inputs():
                self._show_message(f"{node.name}: input {port} has no value yet (connect it, or wait for the run)")
                return
            inputs.append(value)
        key = (node.id, node.revision, tuple(id(v) for v in inputs))
        if key == self._key:
            return
        out_type = graph.output_type(node.id)
        steps = _steps(node.op, inputs, None if out_type is None else out_type.shape)
        if steps > MAX_STEPS:
            self._show_message(f"{node.name}: {steps:,} steps is too many to step through; "
                               f"the explainer takes up to {MAX_STEPS:,} (try a smaller example)")
            return
        self._key = key
        self.widget.set_operation(node.name, node.op, inputs, dict(node.attributes))

    def _show_message(self, message: str) -> None:
        self._key = None
        self.widget.clear(message)


def _steps(op: str, inputs: list, output_shape) -> int:
    """Elements of the updates (scatter ops) or of the output (gather ops)."""
    opdef = ops.get_opdef(op)
    if opdef.writes:
        return int(inputs[opdef.input_index(opdef.updates_port)].size)
    return int(np.prod(output_shape, dtype=np.int64)) if output_shape is not None else 0
