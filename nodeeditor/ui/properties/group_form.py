"""The property page of a group block (a collapsed frame): its title (editable), what is inside
(each member with its op) and the tensors at its boundary with their types."""
from __future__ import annotations

import html

from PySide6 import QtCore, QtWidgets

from nodeeditor.graph import nodes as N
from nodeeditor.graph.grouping import boundary, member_order, op_name, tensor_label

from .. import commands as C
from .values import muted

#: Members listed by name; the rest are counted.
MAX_LISTED = 40


class GroupForm:
    """Mixin of :class:`PropertyPanel` (uses its ``graph``, ``push``, ``widgets``, ``_form``,
    ``_add``, ``_heading``, ``_refreshers``)."""

    def _build_group(self, frame_id: str) -> None:
        g = self.graph
        frame = g.frame(frame_id)
        self._heading(frame.title, f"Group of {len(frame.nodes)} nodes drawn as one block — "
                                   "double-click it (or Ctrl+Shift+G) to expand")
        heading = self.title
        title = QtWidgets.QLineEdit()

        def commit() -> None:
            text = title.text().strip()
            if g.has_frame(frame_id) and text and text != g.frame(frame_id).title:
                self.push(C.FrameCommand(g, frame_id, "Rename Group", title=text))

        title.editingFinished.connect(commit)
        members, inputs, outputs = (self._rich_label() for _ in range(3))

        def refresh() -> None:
            if not g.has_frame(frame_id):
                return
            f = g.frame(frame_id)
            if not title.hasFocus():
                title.setText(f.title)
            heading.setText(self._heading_html(f.title, f"Group of {len(f.nodes)} nodes drawn as one block — "
                                                        "double-click it (or Ctrl+Shift+G) to expand"))
            order = member_order(g, f.nodes)
            lines = [f"{html.escape(g.node(n).name)} <span style='color:#6a7285'>— "
                     f"{html.escape(self._member_kind(g.node(n)))}</span>" for n in order[:MAX_LISTED]]
            if len(order) > MAX_LISTED:
                lines.append(f"… and {len(order) - MAX_LISTED} more")
            members.setText("<br>".join(lines))
            bound = boundary(g, order)
            inputs.setText(self._tensor_lines(bound.inputs) or "none")
            outputs.setText(self._tensor_lines(bound.outputs) or "none (nothing outside reads it)")

        self._add("Title", "group_title", title, refresh)
        self._add("Inside", "group_members", members)
        self._add("Inputs", "group_inputs", inputs)
        self._add("Outputs", "group_outputs", outputs)
        self._form.addRow(muted("The graph runs and exports as if the group were expanded: it is a view."))

    @staticmethod
    def _rich_label() -> QtWidgets.QLabel:
        label = QtWidgets.QLabel()
        label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        label.setWordWrap(True)
        label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        return label

    @staticmethod
    def _member_kind(node: N.Node) -> str:
        if isinstance(node, N.ForeignNode):
            return f"ONNX op {node.title}"
        if isinstance(node, N.OperatorNode):
            return node.op
        return node.kind

    def _tensor_lines(self, keys) -> str:
        g = self.graph
        lines = []
        for node_id, port in keys:
            ttype = g.node_info(node_id).outputs.get(port)
            lines.append(f"{html.escape(tensor_label(g, node_id, port))} <span style='color:#6a7285'>"
                         f"{html.escape(str(ttype) if ttype is not None else '?')} · from "
                         f"{html.escape(op_name(g.node(node_id)))}</span>")
        return "<br>".join(lines)
