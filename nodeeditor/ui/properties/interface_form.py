"""A source's place in an exported model's interface: whether a literal, generator, file or
model tensor source is overridable (listed as a graph input too, its value the default). One
undo step per change (:func:`.flag_row.add_flag_row`)."""
from __future__ import annotations

from nodeeditor.graph import nodes as N

from .flag_row import add_flag_row

OVERRIDABLE_TIP = ("An exported model lists this tensor as a graph input as well as an initializer: a runtime "
                   "fed a tensor of this name uses it instead, otherwise this value (ONNX's initializer that is "
                   "also an input). indexflow run --inputs may replace it the same way")


class InterfaceForm:
    """Mixin of :class:`PropertyPanel` (see :func:`.flag_row.add_flag_row` for what it uses)."""

    def _build_overridable(self, node: N.Source) -> None:
        add_flag_row(self, "Overridable", "overridable", "a graph input too (a feed replaces it)", OVERRIDABLE_TIP,
                     "set_overridable", ("Make Not Overridable", "Make Overridable"))
