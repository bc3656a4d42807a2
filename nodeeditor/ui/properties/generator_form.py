"""Generator sources: which generator, then one widget per parameter (shape, dtype, numbers,
seed with a "New seed" button)."""
from __future__ import annotations

import random
from typing import Any

from PySide6 import QtWidgets

from nodeeditor.graph import nodes as N
from nodeeditor.graph.sources import GENERATORS, generator_params

from .. import commands as C
from .values import COMMON_DTYPES, parse_shape, shape_text

#: (generator, parameter) -> what the parameter means where its name leaves it open.
PARAM_HINTS = {
    ("integers", "high"): "values are drawn from low up to high - 1: high is excluded (numpy's integers)",
    ("uniform", "high"): "values are drawn from [low, high): high is excluded (numpy's uniform)",
    ("arange", "stop"): "start, start + step, ... up to but excluding stop",
}


class _CompactDoubleSpinBox(QtWidgets.QDoubleSpinBox):
    """A number field that shows ``6`` and ``0.25``, not ``6.000000`` and ``0.250000``."""

    def textFromValue(self, value: float) -> str:
        return f"{value:.{self.decimals()}f}".rstrip("0").rstrip(".")


class GeneratorForm:
    """Mixin of :class:`PropertyPanel` (uses its ``graph``, ``node_id``, ``push``, ``status``,
    ``widgets``, ``_form``, ``_add``)."""

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
                    self.status(f"shape: {exc}", error=True)
                    w.setText(shape_text(self._param("shape")))   # what the node holds; the message says why
                    w.selectAll()
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
        elif self.graph.node(self.node_id).generator == "arange":
            # integers or fractions (arange(0, 1, 0.25)); whole numbers are stored as integers
            widget = _CompactDoubleSpinBox()
            widget.setRange(-1e12, 1e12)
            widget.setDecimals(6)
            widget.setKeyboardTracking(False)
            widget.valueChanged.connect(
                lambda v, k=key: self._set_param(k, int(v) if float(v).is_integer() else float(v)))

            def refresh(w=widget, k=key) -> None:
                w.blockSignals(True)
                w.setValue(float(self._param(k)))
                w.blockSignals(False)
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
        hint = PARAM_HINTS.get((self.graph.node(self.node_id).generator, key))
        if hint:
            widget.setToolTip(hint)
        label = f"{key} (excl.)" if hint and "excluded" in hint else key
        self._add(label, f"param:{key}", widget, refresh)
