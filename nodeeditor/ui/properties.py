"""The property panel: widgets for the selected node, built from the ``ops`` schema at the
graph's opset (operators) or from the source kind (sources); with nothing selected, the
graph's name, description and opset.

Every edit becomes an undo command handed to ``push``; the panel then follows the graph's
events (``on_event``) and updates its widgets in place, so undo/redo show up here too.
"""
from __future__ import annotations

import random
from typing import Any, Callable

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

import ops
from nodeeditor.graph import events as E
from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph
from nodeeditor.graph.sources import GENERATORS, generator_params

from . import commands as C

EDITABLE_LIMIT = 400          # elements a value table edits in place
MAX_OPSET = 24
COMMON_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                 "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "string")
RANK_PORTS = {"Gather": "data", "GatherElements": "data", "Scatter": "data", "ScatterElements": "data",
              "ScatterND": "data", "GatherND": "data", "TensorScatter": "past_cache"}


def parse_shape(text: str) -> tuple[int, ...]:
    """'2, 3' or '[2, 3]' or '' (a scalar) -> (2, 3); ValueError on anything else."""
    cleaned = text.strip().strip("[]()").replace("x", ",").replace("×", ",")
    if not cleaned:
        return ()
    dims = tuple(int(p) for p in cleaned.replace(" ", ",").split(",") if p.strip())
    if any(d < 0 for d in dims):
        raise ValueError("dimensions must not be negative")
    return dims


def shape_text(shape) -> str:
    return ", ".join(str(d) for d in shape)


def parse_value(text: str, dtype: np.dtype) -> Any:
    """A cell's text as a value of ``dtype`` (ValueError when it is not one)."""
    text = text.strip()
    if dtype == object:
        return text
    if dtype.kind == "b":
        if text.lower() in ("1", "true", "t", "yes"):
            return True
        if text.lower() in ("0", "false", "f", "no", ""):
            return False
        raise ValueError(f"{text!r} is not a bool")
    if dtype.kind == "c":
        return complex(text.replace(" ", "").replace("i", "j"))
    if dtype.kind in "iu":
        value = int(text)
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise ValueError(f"{value} does not fit {dtype}")
        return value
    return float(text)


def format_cell(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (complex, np.complexfloating)):
        return str(complex(value)).strip("()")
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    return str(value)


def _muted(text: str) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text)
    label.setWordWrap(True)
    label.setStyleSheet("color: #6a7285;")
    label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class PropertyPanel(QtWidgets.QWidget):
    """Shows and edits one node (or the graph). ``push(command)`` receives every edit;
    ``status(message)`` receives problems (a value that does not parse, ...)."""

    def __init__(self, push: Callable[[QtGui.QUndoCommand], None], status: Callable[[str], None] = print,
                 parent: QtWidgets.QWidget | None = None,
                 state_of: Callable[[str], tuple[str, str]] | None = None) -> None:
        super().__init__(parent)
        self.push = push
        self.status = status
        #: node id -> (state, message), e.g. the canvas's view of run results; None: static only
        self.state_of = state_of
        self.graph: Graph | None = None
        self.node_id: str | None = None
        self.widgets: dict[str, QtWidgets.QWidget] = {}
        self._refreshers: list[Callable[[], None]] = []
        self._scroll = QtWidgets.QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self._scroll)
        self.title = QtWidgets.QLabel()

    # ------------------------------------------------------------------ public
    def set_graph(self, graph: Graph) -> None:
        self.graph = graph
        self.show_node(None)

    def show_node(self, node_id: str | None) -> None:
        self.node_id = node_id if node_id and self.graph is not None and self.graph.has_node(node_id) else None
        self._rebuild()

    def on_event(self, event: E.GraphEvent) -> None:
        """Follow a graph change (called by the main window for every event)."""
        if self.graph is None:
            return
        nid = self.node_id
        kind = event.kind
        if nid is not None and not self.graph.has_node(nid):
            self.show_node(None)
            return
        if kind == E.SETTING_CHANGED and event["name"] == "opset":
            self._rebuild()
        elif kind == E.SOURCE_CHANGED and event["node_id"] == nid and event["field"] in ("generator",):
            self._rebuild()
        elif kind == E.TYPES_CHANGED or kind == E.SETTING_CHANGED or (
                kind in (E.ATTRIBUTE_CHANGED, E.SOURCE_CHANGED, E.NODE_RENAMED) and event["node_id"] == nid) or (
                kind in (E.EDGE_ADDED, E.EDGE_REMOVED) and nid in (event["edge"].src, event["edge"].dst)):
            self.refresh()
        elif nid is None and kind in (E.NODE_ADDED, E.NODE_REMOVED, E.EDGE_ADDED, E.EDGE_REMOVED):
            self.refresh()

    def refresh(self) -> None:
        for refresh in self._refreshers:
            refresh()

    # ------------------------------------------------------------------ building
    def _rebuild(self) -> None:
        self.widgets = {}
        self._refreshers = []
        page = QtWidgets.QWidget()
        self._form = QtWidgets.QFormLayout(page)
        self._form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._form.setLabelAlignment(QtCore.Qt.AlignmentFlag.AlignRight)
        if self.graph is not None:
            if self.node_id is None:
                self._build_graph()
            else:
                node = self.graph.node(self.node_id)
                self._heading(node.name, self._kind_text(node))
                self._name_row(node)
                if isinstance(node, N.OperatorNode):
                    self._build_operator(node)
                elif isinstance(node, (N.LiteralSource, N.InputSource)):
                    self._build_value(node)
                elif isinstance(node, N.GeneratorSource):
                    self._build_generator(node)
                elif isinstance(node, N.FileSource):
                    self._build_file(node)
                self._types_rows(node)
                self._problem_row()
        old = self._scroll.takeWidget()
        if old is not None:
            # the edit that caused this rebuild may still be running inside an old widget
            # (a spin box's Enter, a combo's signal): delete the old page later, not now
            old.hide()
            old.deleteLater()
        self._scroll.setWidget(page)
        self.refresh()

    def _kind_text(self, node: N.Node) -> str:
        if isinstance(node, N.OperatorNode):
            version = node.schema.version_for(self.graph.opset)
            where = f"version {version} at opset {self.graph.opset}" if version else f"not in opset {self.graph.opset}"
            return f"{node.op} — {where}"
        return {"literal": "Literal tensor", "generator": "Generated tensor", "file": "Tensor from a file",
                "input": "Graph input (its name is the model input's name)", "output": "Graph output"}[node.kind]

    def _heading(self, title: str, subtitle: str) -> None:
        label = QtWidgets.QLabel(f"<b style='font-size:12pt'>{title}</b><br><span style='color:#6a7285'>{subtitle}</span>")
        label.setWordWrap(True)
        self.title = label
        self._form.addRow(label)

    def _add(self, label: str, key: str, widget: QtWidgets.QWidget, refresh: Callable[[], None] | None = None) -> None:
        self.widgets[key] = widget
        self._form.addRow(label, widget)
        if refresh is not None:
            self._refreshers.append(refresh)

    def _name_row(self, node: N.Node) -> None:
        edit = QtWidgets.QLineEdit()

        def commit() -> None:
            text = edit.text().strip()
            if text and text != self.graph.node(self.node_id).name:
                self.push(C.RenameCommand(self.graph, self.node_id, text))

        def refresh() -> None:
            if not edit.hasFocus():
                edit.setText(self.graph.node(self.node_id).name)

        edit.editingFinished.connect(commit)
        self._add("Name", "name", edit, refresh)

    # ------------------------------------------------------------------ graph
    def _build_graph(self) -> None:
        g = self.graph
        self._heading("Graph", "nothing selected — these are the document's settings")
        name = QtWidgets.QLineEdit()
        name.editingFinished.connect(lambda: name.text().strip() and name.text() != g.name and
                                     self.push(C.SettingCommand(g, "name", name.text().strip())))
        description = QtWidgets.QLineEdit()
        description.editingFinished.connect(lambda: description.text() != g.settings["description"] and
                                            self.push(C.SettingCommand(g, "description", description.text())))
        opset = QtWidgets.QSpinBox()
        opset.setRange(1, MAX_OPSET)
        opset.setKeyboardTracking(False)
        opset.setToolTip("The ONNX opset the graph targets: it decides which op versions, attributes "
                         "and attribute values are allowed.")
        opset.valueChanged.connect(lambda v: v != g.opset and self.push(C.SettingCommand(g, "opset", v)))
        summary = _muted("")

        def refresh() -> None:
            if not name.hasFocus():
                name.setText(g.name)
            if not description.hasFocus():
                description.setText(g.settings["description"])
            opset.blockSignals(True)
            opset.setValue(g.opset)
            opset.blockSignals(False)
            problems = g.problems()
            text = f"{len(g.nodes)} nodes, {len(g.edges)} edges"
            if problems:
                text += "<br><span style='color:#d43c3c'>" + "<br>".join(
                    f"{g.node(n).label}: {m}" for n, m in problems[:8]) + "</span>"
            summary.setText(text)

        self._add("Name", "graph_name", name, refresh)
        self._add("Description", "description", description)
        self._add("Opset", "opset", opset)
        self._form.addRow(summary)

    # ------------------------------------------------------------------ operators
    def _input_rank(self, node: N.OperatorNode, port: str) -> int | None:
        edge = self.graph.edge_into(node.id, port)
        if edge is None:
            return None
        t = self.graph.node_info(edge.src).outputs.get(edge.src_port)
        return t.rank if t is not None else None

    def _build_operator(self, node: N.OperatorNode) -> None:
        g, opset, schema = self.graph, self.graph.opset, node.schema
        doc = _muted(schema.doc)
        self._form.addRow(doc)
        present = {a.name for a in schema.attributes_at(opset)}
        for spec in schema.attributes:
            if spec.name not in present:
                self._form.addRow(f"{spec.name}", _muted(f"needs opset {spec.since} (graph is at {opset})"))
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
        box = QtWidgets.QSpinBox()
        box.setKeyboardTracking(False)
        box.setToolTip(spec.doc)
        hint = _muted("")
        holder = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(holder)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(1)
        lay.addWidget(box)
        lay.addWidget(hint)

        def limits() -> tuple[int, int, str]:
            op_node = g.node(self.node_id)
            if spec.name == "axis":
                rank = self._input_rank(op_node, RANK_PORTS.get(op_node.op, "data"))
                if rank is None:
                    return -32, 31, "connect data to limit the range to its rank"
                if rank == 0:
                    return 0, 0, "data is a scalar: no axis to choose"
                return -rank, rank - 1, f"[-{rank}, {rank - 1}] for rank-{rank} data"
            if spec.name == "batch_dims":
                r, q = self._input_rank(op_node, "data"), self._input_rank(op_node, "indices")
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
                self.push(C.AttributeCommand(g, self.node_id, spec.name, int(value)))

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

    # ------------------------------------------------------------------ types and problems
    def _types_rows(self, node: N.Node) -> None:
        label = QtWidgets.QLabel()
        label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        g = self.graph

        def refresh() -> None:
            n = g.node(self.node_id)
            info = g.node_info(self.node_id)
            rows = []
            for port in n.input_ports():
                edge = g.edge_into(n.id, port)
                t = g.node_info(edge.src).outputs.get(edge.src_port) if edge else None
                src = g.node(edge.src).name if edge else ("optional" if port in n.optional_inputs() else "not connected")
                rows.append(f"in <b>{port}</b>: <tt>{t if t else '—'}</tt> <span style='color:#6a7285'>({src})</span>")
            for port in n.output_ports():
                t = info.outputs.get(port)
                rows.append(f"out <b>{port}</b>: <tt>{t if t else '?'}</tt>")
            label.setText("<br>".join(rows))

        self.widgets["types"] = label
        self._form.addRow("Ports", label)
        self._refreshers.append(refresh)

    def _problem_row(self) -> None:
        label = QtWidgets.QLabel()
        label.setWordWrap(True)
        label.setStyleSheet("color: #d43c3c;")
        label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)

        def refresh() -> None:
            info = self.graph.node_info(self.node_id)
            text = info.error or "\n".join(info.warnings)
            if self.state_of is not None:
                state, message = self.state_of(self.node_id)
                text = message if state in ("error", "blocked", "warning") else ""
            label.setStyleSheet("color: #d43c3c;" if "error" in text.lower() or info.error else "color: #a87400;")
            label.setText(text)
            label.setVisible(bool(text))

        self.widgets["problem"] = label
        self._form.addRow(label)
        self._refreshers.append(refresh)

    # ------------------------------------------------------------------ literal and input values
    def _value_of(self) -> np.ndarray:
        node = self.graph.node(self.node_id)
        return node.value if isinstance(node, N.LiteralSource) else node.example

    def _set_value(self, value: np.ndarray, text: str) -> None:
        node = self.graph.node(self.node_id)
        field = "value" if isinstance(node, N.LiteralSource) else "example"
        self.push(C.SourceCommand(self.graph, self.node_id, text, **{field: value}))

    def _build_value(self, node: N.Node) -> None:
        dtype_combo = QtWidgets.QComboBox()
        for name in COMMON_DTYPES:
            dtype_combo.addItem(name)
        shape_edit = QtWidgets.QLineEdit()
        shape_edit.setPlaceholderText("e.g. 2, 3 (empty: a scalar)")
        table = QtWidgets.QTableWidget()
        table.horizontalHeader().setDefaultSectionSize(64)
        table.verticalHeader().setDefaultSectionSize(22)
        too_big = _muted("")

        def change_dtype(_index: int) -> None:
            name = dtype_combo.currentText()
            value = self._value_of()
            if ops.dtype_name(value) == name:
                return
            try:
                new = value.astype(ops.dtype_of(name)) if name != "string" else value.astype(str).astype(object)
            except (TypeError, ValueError) as exc:
                self.status(f"cannot convert to {name}: {exc}")
                refresh()
                return
            self._set_value(new, "Change dtype")

        def change_shape() -> None:
            value = self._value_of()
            try:
                shape = parse_shape(shape_edit.text())
            except ValueError as exc:
                self.status(f"shape: {exc}")
                refresh()
                return
            if shape == value.shape:
                return
            size = int(np.prod(shape, dtype=np.int64))
            if size > 10_000_000:
                self.status("a literal holds at most 10,000,000 elements; use a generator or a file")
                refresh()
                return
            flat = value.reshape(-1)
            new = np.zeros(size, dtype=value.dtype) if value.dtype != object else np.full(size, "", dtype=object)
            n = min(size, flat.size)
            new[:n] = flat[:n]
            self._set_value(new.reshape(shape), "Change shape")

        def cell_changed(row: int, col: int) -> None:
            value = self._value_of()
            grid = value.reshape(self._grid_shape(value))
            item = table.item(row, col)
            try:
                parsed = parse_value(item.text(), value.dtype)
            except (ValueError, TypeError) as exc:
                self.status(f"value [{row}, {col}]: {exc}")
                refresh()
                return
            new = np.array(grid, copy=True)
            if new[row, col] == parsed and type(parsed) is not str:
                return
            new[row, col] = parsed
            self._set_value(new.reshape(value.shape), "Edit Value")

        def refresh() -> None:
            value = self._value_of()
            dtype_combo.blockSignals(True)
            name = ops.dtype_name(value)
            if dtype_combo.findText(name) < 0:
                dtype_combo.addItem(name)
            dtype_combo.setCurrentText(name)
            dtype_combo.blockSignals(False)
            if not shape_edit.hasFocus():
                shape_edit.setText(shape_text(value.shape))
            table.blockSignals(True)
            if value.size <= EDITABLE_LIMIT:
                rows, cols = self._grid_shape(value)
                grid = value.reshape(rows, cols)
                table.setRowCount(rows)
                table.setColumnCount(cols)
                lead = value.shape[:-1]
                labels = [str(tuple(int(i) for i in np.unravel_index(r, lead))) if len(lead) > 1 else str(r)
                          for r in range(rows)] if lead else ["0"]
                table.setVerticalHeaderLabels(labels)
                table.setHorizontalHeaderLabels([str(c) for c in range(cols)])
                for r in range(rows):
                    for c in range(cols):
                        table.setItem(r, c, QtWidgets.QTableWidgetItem(format_cell(grid[r, c])))
                table.setFixedHeight(min(260, 30 + 22 * rows))
                table.setVisible(True)
                too_big.setVisible(False)
            else:
                table.setVisible(False)
                too_big.setText(f"{value.size:,} elements: too many to edit here (the viewer shows them). "
                                "Use a generator or a file source for large tensors.")
                too_big.setVisible(True)
            table.blockSignals(False)

        dtype_combo.currentIndexChanged.connect(change_dtype)
        shape_edit.editingFinished.connect(change_shape)
        table.cellChanged.connect(cell_changed)
        self._add("dtype", "dtype", dtype_combo, refresh)
        self._add("shape", "shape", shape_edit)
        self.widgets["table"] = table
        self._form.addRow(table)
        self._form.addRow(too_big)

    @staticmethod
    def _grid_shape(value: np.ndarray) -> tuple[int, int]:
        if value.ndim == 0:
            return 1, 1
        cols = value.shape[-1]
        return (value.size // cols if cols else 0), cols

    # ------------------------------------------------------------------ generators
    def _build_generator(self, node: N.GeneratorSource) -> None:
        g = self.graph
        combo = QtWidgets.QComboBox()
        for name in GENERATORS:
            combo.addItem(name)
        combo.setCurrentText(node.generator)
        combo.currentTextChanged.connect(
            lambda name: name != g.node(self.node_id).generator and self.push(
                C.SourceCommand(g, self.node_id, "Change Generator", generator=name, params={})))
        self._add("generator", "generator", combo)
        for key, default in GENERATORS[node.generator].items():
            self._param_row(key, default)

    def _set_param(self, key: str, value: Any) -> None:
        node = self.graph.node(self.node_id)
        if node.params.get(key, GENERATORS[node.generator][key]) == value:
            return
        params = dict(node.params)
        params[key] = value
        try:
            generator_params(node.generator, params)
        except ValueError as exc:
            self.status(str(exc))
            return
        self.push(C.SourceCommand(self.graph, self.node_id, f"Change {key}", params=params))

    def _param(self, key: str) -> Any:
        node = self.graph.node(self.node_id)
        return generator_params(node.generator, node.params)[key]

    def _param_row(self, key: str, default: Any) -> None:
        if key == "dtype":
            widget = QtWidgets.QComboBox()
            for name in COMMON_DTYPES:
                if name != "string":
                    widget.addItem(name)
            widget.currentTextChanged.connect(lambda t: self._set_param("dtype", t))

            def refresh(w=widget) -> None:
                w.blockSignals(True)
                w.setCurrentText(str(self._param("dtype")))
                w.blockSignals(False)
        elif key == "shape":
            widget = QtWidgets.QLineEdit()
            widget.setPlaceholderText("e.g. 2, 3")

            def commit(w=widget) -> None:
                try:
                    shape = list(parse_shape(w.text()))
                except ValueError as exc:
                    self.status(f"shape: {exc}")
                    return
                self._set_param("shape", shape)

            widget.editingFinished.connect(commit)

            def refresh(w=widget) -> None:
                if not w.hasFocus():
                    w.setText(shape_text(self._param("shape")))
        elif key == "seed":
            box = QtWidgets.QSpinBox()
            box.setRange(0, 2 ** 31 - 1)
            box.setKeyboardTracking(False)
            box.valueChanged.connect(lambda v: self._set_param("seed", int(v)))
            dice = QtWidgets.QPushButton("New seed")
            dice.clicked.connect(lambda: self._set_param("seed", random.randrange(2 ** 31 - 1)))
            widget = QtWidgets.QWidget()
            lay = QtWidgets.QHBoxLayout(widget)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(box, 1)
            lay.addWidget(dice)

            def refresh(w=box) -> None:
                w.blockSignals(True)
                w.setValue(int(self._param("seed")))
                w.blockSignals(False)
            self.widgets["param:seed:box"] = box
        elif isinstance(default, int) and not isinstance(default, bool):
            widget = QtWidgets.QSpinBox()
            widget.setRange(-(2 ** 31), 2 ** 31 - 1)
            widget.setKeyboardTracking(False)
            widget.valueChanged.connect(lambda v, k=key: self._set_param(k, int(v)))

            def refresh(w=widget, k=key) -> None:
                w.blockSignals(True)
                w.setValue(int(self._param(k)))
                w.blockSignals(False)
        elif isinstance(default, float):
            widget = QtWidgets.QDoubleSpinBox()
            widget.setRange(-1e9, 1e9)
            widget.setDecimals(4)
            widget.setKeyboardTracking(False)
            widget.valueChanged.connect(lambda v, k=key: self._set_param(k, float(v)))

            def refresh(w=widget, k=key) -> None:
                w.blockSignals(True)
                w.setValue(float(self._param(k)))
                w.blockSignals(False)
        else:  # optional integers such as eye's m (empty: None)
            widget = QtWidgets.QLineEdit()
            widget.setPlaceholderText("empty: default")

            def commit(w=widget, k=key) -> None:
                text = w.text().strip()
                try:
                    value = int(text) if text else None
                except ValueError:
                    self.status(f"{k}: {text!r} is not an integer")
                    return
                self._set_param(k, value)

            widget.editingFinished.connect(commit)

            def refresh(w=widget, k=key) -> None:
                if not w.hasFocus():
                    v = self._param(k)
                    w.setText("" if v is None else str(v))
        self._add(key, f"param:{key}", widget, refresh)

    # ------------------------------------------------------------------ files
    def _build_file(self, node: N.FileSource) -> None:
        g = self.graph
        path = QtWidgets.QLineEdit()
        browse = QtWidgets.QPushButton("Browse…")
        row = QtWidgets.QWidget()
        lay = QtWidgets.QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(path, 1)
        lay.addWidget(browse)
        key = QtWidgets.QLineEdit()
        key.setPlaceholderText(".npz only: the array's name")
        dtype = QtWidgets.QComboBox()
        dtype.addItem("(default)", None)
        for name in COMMON_DTYPES:
            if name != "string":
                dtype.addItem(name, name)

        def set_field(**fields) -> None:
            n = g.node(self.node_id)
            if all(getattr(n, k) == v for k, v in fields.items()):
                return
            self.push(C.SourceCommand(g, self.node_id, "Change File", **fields))

        def choose() -> None:
            start = str(g.file_path.parent) if g.file_path else ""
            chosen, _ = QtWidgets.QFileDialog.getOpenFileName(
                self, "Choose a tensor file", start, "Tensors (*.npy *.npz *.csv);;All files (*)")
            if chosen:
                set_field(path=chosen)

        path.editingFinished.connect(lambda: set_field(path=path.text().strip()))
        browse.clicked.connect(choose)
        key.editingFinished.connect(lambda: set_field(key=key.text().strip() or None))
        dtype.currentIndexChanged.connect(lambda _i: set_field(dtype=dtype.currentData()))

        def refresh() -> None:
            n = g.node(self.node_id)
            if not path.hasFocus():
                path.setText(n.path)
            if not key.hasFocus():
                key.setText(n.key or "")
            dtype.blockSignals(True)
            dtype.setCurrentIndex(max(0, dtype.findData(n.dtype)) if n.dtype else 0)
            dtype.blockSignals(False)

        self.widgets["browse"] = browse
        self._add("path", "path", row, refresh)
        self.widgets["path"] = path
        self._add("key", "key", key)
        self._add("dtype (.csv)", "file_dtype", dtype)
