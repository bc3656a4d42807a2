"""A property-panel row holding one check box bound to a node's boolean field (trainable,
overridable): it shows the field, follows undo through the panel's refreshers, and a click
is one undo step (``commands.NodeFlagCommand`` over the Graph setter)."""
from __future__ import annotations

from PySide6 import QtWidgets

from .. import commands as C


def add_flag_row(panel, label: str, field: str, text: str, tip: str, setter: str,
                 undo_texts: tuple[str, str]) -> QtWidgets.QCheckBox:
    """Add the row ``label`` to ``panel`` (a :class:`PropertyPanel`: its ``graph``,
    ``node_id``, ``push`` and ``_add``) for ``field`` of the shown node; ``setter`` names the
    Graph method, ``undo_texts`` the undo step's name for (off, on). Returns the box, also in
    ``panel.widgets[field]``."""
    box = QtWidgets.QCheckBox(text)
    box.setToolTip(tip)

    def refresh() -> None:
        blocked = box.blockSignals(True)
        box.setChecked(getattr(panel.graph.node(panel.node_id), field))
        box.blockSignals(blocked)

    def toggled(on: bool) -> None:
        if on != getattr(panel.graph.node(panel.node_id), field):
            panel.push(C.NodeFlagCommand(panel.graph, setter, [panel.node_id], bool(on), undo_texts[bool(on)]))

    box.toggled.connect(toggled)
    panel._add(label, field, box, refresh)
    return box
