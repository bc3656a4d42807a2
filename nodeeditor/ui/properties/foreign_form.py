"""A foreign ONNX node's page: what the op is (domain, version at the graph's opset, the first
line of ONNX's documentation) and one typed field per attribute.

The attributes listed are the node's own, in the model's order, then the ones the op's ONNX
schema declares that the node leaves at their default (their default shown greyed). Fields:

- int: a spin box (a value outside 32 bits: a text field);
- float, string, and lists of ints, floats or strings: a text field
  (:mod:`.foreign_values` reads and writes the text);
- tensor, graph, sparse tensor, type proto: a read-only summary (``float32[3] [1, 2, 3]``,
  ``graph 'body': 4 nodes``); they are kept and exported as they are.

Every change is one :class:`~..commands.ForeignAttributeCommand` (a spin box's arrow steps merge); a
"default" button removes an optional attribute that is set. A text that is not a value of
the attribute's kind changes nothing: the status line says why and the field shows the value
again. The schema comes from ``nodeeditor.onnx_io.foreign_ops`` (onnx loads when the first
foreign node is shown); an op ONNX has no schema for (a runtime's own domain) lists only the
attributes the node has.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6 import QtWidgets

from nodeeditor.graph import nodes as N
from nodeeditor.graph.foreign import AttrKind, ForeignAttribute

from .. import commands as C
from .foreign_values import attribute_text, editable, parse_attribute
from .range_spin_box import RangeSpinBox
from .values import muted

INT32 = (-(2 ** 31), 2 ** 31 - 1)


@dataclass(frozen=True)
class _Row:
    """What one attribute row knows: name, kind, whether required, default (or None), doc."""

    name: str
    kind: AttrKind
    required: bool
    default: ForeignAttribute | None
    doc: str


def foreign_schema_rows(graph, node: N.ForeignNode) -> tuple[list[_Row], str]:
    """The attribute rows of ``node`` (see the module docstring) and a line about the op:
    ``ai.onnx · Expand-13 at opset 18 — Broadcast the input tensor following the given shape``."""
    from nodeeditor.onnx_io import foreign_ops  # onnx loads when a foreign node is first shown

    opset = graph.opsets().get(node.domain if node.domain != "ai.onnx" else "", graph.opset)
    specs = {s.name: s for s in foreign_ops.attribute_specs(node.op_type, node.domain, opset)}
    rows = []
    for name, attr in node.attributes.items():
        spec = specs.get(name)
        rows.append(_Row(name, attr.kind, bool(spec and spec.required), spec.default if spec else None,
                         spec.doc if spec else "not in the op's ONNX schema: kept as it is"))
    rows += [_Row(s.name, s.kind, s.required, s.default, s.doc)
             for s in specs.values() if s.name not in node.attributes]
    schema = foreign_ops.schema(node.op_type, node.domain, opset)
    domain = node.domain or "ai.onnx"
    if schema is None:
        about = f"{domain} · {node.op_type}: ONNX has no schema for it at opset {opset} (run by the runtime as it is)"
    else:
        doc = next((line.strip() for line in (schema.doc or "").splitlines() if line.strip()), "")
        about = f"{domain} · {node.op_type}-{schema.since_version} at opset {opset}" + (f" — {doc}" if doc else "")
    return rows, about


class ForeignForm:
    """Mixin of :class:`PropertyPanel` (uses its ``graph``, ``node_id``, ``push``, ``status``,
    ``widgets``, ``_form``, ``_add``, ``_refreshers``)."""

    def _build_foreign(self, node: N.ForeignNode) -> None:
        rows, about = foreign_schema_rows(self.graph, node)
        doc = muted(about)
        self._form.addRow(doc)
        self.widgets["foreign:about"] = doc
        if not rows:
            self._form.addRow("Attributes", muted("none"))
        for row in rows:
            self._foreign_row(row)

    # ------------------------------------------------------------------ one attribute
    def _attribute(self, name: str) -> ForeignAttribute | None:
        return self.graph.node(self.node_id).attributes.get(name)

    def _set_foreign(self, name: str, value: ForeignAttribute | None, merge: bool = False) -> None:
        current = self._attribute(name)
        if current is None and value is None or current is not None and value is not None and current.same(value):
            return
        self.push(C.ForeignAttributeCommand(self.graph, self.node_id, name, value, merge=merge))

    def _foreign_row(self, row: _Row) -> None:
        value = self._attribute(row.name) or row.default
        label = row.name + (" *" if row.required else "")
        tip = f"{row.kind.value}{' (required)' if row.required else ''}. {row.doc}".strip()
        if not editable(row.kind):
            summary = muted("")
            summary.setToolTip(tip + "\nShown, not edited: kept and exported as it is.")
            self._add(label, f"attr:{row.name}", summary, lambda r=row, s=summary: s.setText(
                attribute_text(self._attribute(r.name)) if self._attribute(r.name) is not None else "not set"))
            return
        holder = QtWidgets.QWidget()
        line = QtWidgets.QHBoxLayout(holder)
        line.setContentsMargins(0, 0, 0, 0)
        line.setSpacing(4)
        fits_spin = row.kind is AttrKind.INT and value is not None and INT32[0] <= value.value <= INT32[1]
        field = self._foreign_spin(row) if fits_spin else self._foreign_text(row)
        field.setToolTip(tip)
        line.addWidget(field, 1)
        reset = QtWidgets.QToolButton(text="default")
        reset.setToolTip("Remove the attribute: the op's default applies"
                         + (f" ({attribute_text(row.default)})" if row.default is not None else ""))
        reset.clicked.connect(lambda _=False, r=row: self._set_foreign(r.name, None))
        line.addWidget(reset)
        self.widgets[f"attr:{row.name}:default"] = reset

        def refresh_reset(r=row, button=reset) -> None:
            button.setVisible(not r.required and self._attribute(r.name) is not None)

        self._add(label, f"attr:{row.name}:row", holder, refresh_reset)
        self.widgets[f"attr:{row.name}"] = field

    def _foreign_spin(self, row: _Row) -> QtWidgets.QSpinBox:
        box = RangeSpinBox()
        box.setRange(*INT32)
        box.setKeyboardTracking(False)
        box.refused.connect(lambda text: self.status(box.refusal(row.name, text), error=True))

        def refresh() -> None:
            attr = self._attribute(row.name) or row.default
            box.blockSignals(True)
            box.setValue(attr.value if attr is not None else 0)
            box.setSuffix("" if self._attribute(row.name) is not None else "  (default)")
            box.blockSignals(False)

        box.valueChanged.connect(lambda v: self._set_foreign(row.name, ForeignAttribute(AttrKind.INT, int(v)),
                                                             merge=box.stepping))
        self._refreshers.append(refresh)
        return box

    def _foreign_text(self, row: _Row) -> QtWidgets.QLineEdit:
        edit = QtWidgets.QLineEdit()
        if row.default is not None:
            edit.setPlaceholderText(f"{attribute_text(row.default)} (default)")
        else:
            edit.setPlaceholderText("required" if row.required else "not set")

        def refresh() -> None:
            if not edit.hasFocus():
                attr = self._attribute(row.name)
                edit.setText(attribute_text(attr) if attr is not None else "")

        def commit() -> None:
            text = edit.text()
            attr = self._attribute(row.name)
            if attr is not None and text == attribute_text(attr) or attr is None and not text:
                return
            if not text.strip() and row.kind is not AttrKind.STRING or not text:
                if row.required:
                    self.status(f"{row.name} is required: it keeps {attribute_text(attr)}", error=True)
                    edit.clearFocus()
                    refresh()
                    return
                self._set_foreign(row.name, None)
                return
            try:
                value = parse_attribute(row.kind, text)
            except ValueError as exc:
                self.status(f"{row.name} not changed: {exc}", error=True)
                edit.setText(attribute_text(attr) if attr is not None else "")
                return
            self._set_foreign(row.name, value)

        edit.editingFinished.connect(commit)
        self._refreshers.append(refresh)
        return edit
