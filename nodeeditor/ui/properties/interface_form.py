"""A source's place in an exported model's interface: whether a literal, generator, file or
model tensor source is overridable (listed as a graph input too, its value the default). One
undo step per change (``commands.NodeFlagCommand`` over ``Graph.set_overridable``); the row
follows the graph (undo) through the panel's refreshers."""
from __future__ import annotations

from PySide6 import QtWidgets

from nodeeditor.graph import nodes as N

from .. import commands as C

OVERRIDABLE_TIP = ("An exported model lists this tensor as a graph input as well as an initializer: a runtime "
                   "fed a tensor of this name uses it instead, otherwise this value (ONNX's initializer that is "
                   "also an input). indexflow run --inputs may replace it the same way")


class InterfaceForm:
    """Mixin of :class:`PropertyPanel` (uses its ``graph``, ``node_id``, ``push`` and ``_add``)."""

    def _build_overridable(self, node: N.Source) -> None:
        g = self.graph
        box = QtWidgets.QCheckBox("a graph input too (a feed replaces it)")
        box.setToolTip(OVERRIDABLE_TIP)

        def refresh() -> None:
            blocked = box.blockSignals(True)
            box.setChecked(g.node(self.node_id).overridable)
            box.blockSignals(blocked)

        def toggled(on: bool) -> None:
            if on != g.node(self.node_id).overridable:
                self.push(C.NodeFlagCommand(g, "set_overridable", [self.node_id], bool(on),
                                            "Make Overridable" if on else "Make Not Overridable"))

        box.toggled.connect(toggled)
        self._add("Overridable", "overridable", box, refresh)
