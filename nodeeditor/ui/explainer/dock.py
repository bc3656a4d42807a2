"""Feeds the explainer dock: the selected operator node, its input values from the last run.

:class:`ExplainerController` reads the graph (through ``graph_of``), the scene's selection
and node states, and the runner's values; it writes only the explainer widget and, while
the dock sits under the canvas, that dock's height (through ``host.resizeDocks``).
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
from ..runner import EvaluationRunner
from .widget import HINT, ExplainerWidget

#: Above this many steps (output or update elements) the dock explains nothing: the index map
#: alone would cost 8 bytes per element and the explanation is built on the UI thread;
#: nobody steps through that many moves.
MAX_STEPS = 200_000
#: Height of the docked explainer with nothing to explain (its one-line hint and controls),
#: and, until the user sizes it, with an operator to step through.
COMPACT_HEIGHT = 96
EXPANDED_HEIGHT = 290
#: Opening for an operator, the explainer takes at most this share of the window's height.
MAX_EXPANDED_SHARE = 0.4


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
        self._expanded_height = EXPANDED_HEIGHT
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
            # out of range...): say why, as the viewer and the properties do, explain nothing
            self._show_message(f"{node.name}: {message}")
            return
        inputs = []
        for port in node.input_ports():
            edge = graph.edge_into(node.id, port)
            value = None if edge is None else self.runner.value(edge.src, edge.src_port)
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
        if self.widget.set_operation(node.name, node.op, inputs, dict(node.attributes)):
            self._fit(expanded=True)

    def _show_message(self, message: str) -> None:
        self._key = None
        self.widget.clear(message)
        self._fit(expanded=False)

    def _fit(self, expanded: bool) -> None:
        """A docked explainer takes the room of its content: a line when there is nothing to
        explain (the canvas gets the rest), the height the user last gave it when there is."""
        host, dock = self.host, self.dock
        if dock.isFloating() or host.dockWidgetArea(dock) != QtCore.Qt.DockWidgetArea.BottomDockWidgetArea:
            return
        height = dock.height()
        # on a low window (a projector) the canvas keeps more than half the height
        wanted = min(self._expanded_height, int(host.height() * MAX_EXPANDED_SHARE))
        if expanded and height < wanted:
            host.resizeDocks([dock], [wanted], QtCore.Qt.Orientation.Vertical)
        elif not expanded and height > COMPACT_HEIGHT:
            if height > COMPACT_HEIGHT + 40:
                self._expanded_height = height   # the user's size, for the next operator
            host.resizeDocks([dock], [COMPACT_HEIGHT], QtCore.Qt.Orientation.Vertical)


def _steps(op: str, inputs: list, output_shape) -> int:
    """Elements of the updates (scatter ops) or of the output (gather ops)."""
    opdef = ops.get_opdef(op)
    if opdef.writes:
        return int(inputs[opdef.input_index(opdef.updates_port)].size)
    return int(np.prod(output_shape, dtype=np.int64)) if output_shape is not None else 0
