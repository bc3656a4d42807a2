"""Operator attributes, one widget each from the ``ops`` schema at the graph's opset: integer
attributes as spin boxes (axis limited to [-r, r-1] of the inferred rank, batch_dims to
the ranks of data and indices), string attributes as lists of the values the opset allows."""
from __future__ import annotations

from PySide6 import QtWidgets

import ops
from nodeeditor.graph import nodes as N

from .. import commands as C
from ..op_help import node_formula
from .range_spin_box import RangeSpinBox
from .values import muted


class OperatorForm:
    """Mixin of :class:`PropertyPanel` (uses its ``graph``, ``node_id``, ``push``, ``status``,
    ``widgets``, ``_form``, ``_add``)."""

    def _input_rank(self, node: N.OperatorNode, port: str) -> int | None:
        edge = self.graph.edge_into(node.id, port)
        if edge is None:
            return None
        t = self.graph.node_info(edge.src).outputs.get(edge.src_port)
        return t.rank if t is not None else None

    def _formula_text(self, node: N.OperatorNode) -> str:
        """The op's formula for its attributes and the ranks of its inputs (``op_help.node_formula``)."""
        return node_formula(self.graph, node)

    def _build_operator(self, node: N.OperatorNode) -> None:
        g, opset, schema = self.graph, self.graph.opset, node.schema
        doc = muted(self._formula_text(node))
        doc.setToolTip(schema.doc)
        self._form.addRow(doc)
        self.widgets["formula"] = doc
        self._refreshers.append(lambda: doc.setText(self._formula_text(g.node(self.node_id))))
        present = {a.name for a in schema.attributes_at(opset)}
        for spec in schema.attributes:
            if spec.name not in present:
                self._form.addRow(f"{spec.name}", muted(f"needs opset {spec.since} (graph is at {opset})"))
                continue
            allowed = schema.allowed_values(spec.name, opset)
            if spec.kind == "int":
                self._int_attribute(node, spec)
            elif allowed is not None:
                self._choice_attribute(node, spec, allowed)
            else:
                edit = QtWidgets.QLineEdit()
                edit.editingFinished.connect(lambda s=spec, e=edit: self.push(
                    C.AttributeCommand(g, self.node_id, s.name, e.text())))
                self._add(spec.name, f"attr:{spec.name}", edit,
                          lambda s=spec, e=edit: e.setText(str(g.node(self.node_id).attributes.get(s.name, s.default))))

    def _int_attribute(self, node: N.OperatorNode, spec) -> None:
        g = self.graph
        box = RangeSpinBox()
        box.setKeyboardTracking(False)
        box.setToolTip(spec.doc)
        box.setAccessibleName(spec.name)   # the form's label names the holder below, not the box
        hint = muted("")
        box.refused.connect(lambda text: self.status(
            f"{spec.name} {text} is not allowed here: {hint.text()}" if hint.text() else box.refusal(spec.name, text),
            error=True))
        holder = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(holder)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(1)
        lay.addWidget(box)
        lay.addWidget(hint)

        def limits() -> tuple[int, int, str]:
            op_node = g.node(self.node_id)
            opdef = ops.get_opdef(op_node.op)
            axis = opdef.axis
            if axis is not None and spec.name == axis.attribute:
                rank = self._input_rank(op_node, axis.bounded_by)
                if rank is None:
                    return -32, 31, "connect data to limit the range to its rank"
                if rank == 0:
                    return 0, 0, "data is a scalar: no axis to choose"
                if axis.not_batch:  # any axis but the batch axis 0, counted from the back
                    return -(rank - 1), -1, f"[-{rank - 1}, -1] for a rank-{rank} cache (not the batch axis)"
                return -rank, rank - 1, f"[-{rank}, {rank - 1}] for rank-{rank} data"
            if spec.name == "batch_dims":
                r = self._input_rank(op_node, opdef.data_port)
                q = self._input_rank(op_node, opdef.index_ports[0])
                if r is None or q is None:
                    return 0, 31, "connect data and indices to limit the range"
                top = max(0, min(r, q) - 1)
                return 0, top, f"[0, {top}]: less than the rank of data and of indices"
            return -(2 ** 31), 2 ** 31 - 1, ""

        def refresh() -> None:
            lo, hi, text = limits()
            value = g.node(self.node_id).attributes.get(spec.name, spec.default)
            box.blockSignals(True)
            box.setRange(min(lo, value), max(hi, value))   # a stored out-of-range value stays visible
            box.setValue(value)
            box.blockSignals(False)
            hint.setText(text)
            hint.setVisible(bool(text))

        def changed(value: int) -> None:
            if value != g.node(self.node_id).attributes.get(spec.name, spec.default):
                self.push(C.AttributeCommand(g, self.node_id, spec.name, int(value), merge=box.stepping))

        box.valueChanged.connect(changed)
        self.widgets[f"attr:{spec.name}:hint"] = hint
        self._add(spec.name, f"attr:{spec.name}", holder, refresh)
        self.widgets[f"attr:{spec.name}"] = box

    def _choice_attribute(self, node: N.OperatorNode, spec, allowed: tuple) -> None:
        g = self.graph
        combo = QtWidgets.QComboBox()
        combo.setToolTip(spec.doc)
        for value in allowed:
            combo.addItem(str(value), value)

        def refresh() -> None:
            value = g.node(self.node_id).attributes.get(spec.name, spec.default)
            combo.blockSignals(True)
            index = combo.findData(value)
            if index < 0:  # a value this opset does not allow (kept from another opset)
                combo.addItem(f"{value} (not allowed at opset {g.opset})", value)
                index = combo.count() - 1
            combo.setCurrentIndex(index)
            combo.blockSignals(False)

        def changed(_index: int) -> None:
            value = combo.currentData()
            if value != g.node(self.node_id).attributes.get(spec.name, spec.default):
                self.push(C.AttributeCommand(g, self.node_id, spec.name, value))

        combo.currentIndexChanged.connect(changed)
        self._add(spec.name, f"attr:{spec.name}", combo, refresh)
