"""The training fields of a node: an operator's training switch and loss coefficient, a
literal, generator or file source's trainable flag, a Loss node's kind. Each change is one
undo step (``commands.NodeFlagCommand`` over the Graph setter), and the rows follow the
graph (undo, the canvas menu) through the panel's refreshers."""
from __future__ import annotations

import math

from PySide6 import QtWidgets

from nodeeditor.graph import nodes as N
from nodeeditor.graph.losses import LossKind

from .. import commands as C
from .flag_row import add_flag_row
from .generator_form import _CompactDoubleSpinBox
from .values import muted

#: The loss coefficient field's range (any finite number is allowed; this is what the box takes).
COEFFICIENT_RANGE = 1e6

TRAINING_TIP = ("The toolkit's training switch: off, no gradient flows through this node to its inputs "
                "(what it computes does not change)")
COEFFICIENT_TIP = "Multiplies the gradient this node sends to its inputs (1: unchanged); no effect on its output"
TRAINABLE_TIP = ("A training run (the Training dock, indexflow train) updates this tensor from its gradient; "
                 "a trained generator, file or model tensor becomes a literal holding the trained values")


class TrainingForm:
    """Mixin of :class:`PropertyPanel` (uses its ``graph``, ``node_id``, ``push``,
    ``widgets``, ``_form``, ``_add``)."""

    def _set_field(self, setter: str, value, text: str) -> None:
        self.push(C.NodeFlagCommand(self.graph, setter, [self.node_id], value, text))

    def _build_operator_training(self, node: N.Node) -> None:
        """The training switch and loss coefficient of an operator or a foreign op."""
        g = self.graph
        box = QtWidgets.QCheckBox("gradient flows through this node")
        box.setToolTip(TRAINING_TIP)
        coefficient = _CompactDoubleSpinBox()
        coefficient.setDecimals(6)
        coefficient.setRange(-COEFFICIENT_RANGE, COEFFICIENT_RANGE)
        coefficient.setSingleStep(0.1)
        coefficient.setKeyboardTracking(False)
        coefficient.setToolTip(COEFFICIENT_TIP)

        def refresh() -> None:
            n = g.node(self.node_id)
            for widget, setter, value in ((box, box.setChecked, n.training),
                                          (coefficient, coefficient.setValue, n.loss_coefficient)):
                blocked = widget.blockSignals(True)
                setter(value)
                widget.blockSignals(blocked)
            coefficient.setEnabled(n.training)

        def toggled(on: bool) -> None:
            if on != g.node(self.node_id).training:
                self._set_field("set_training", bool(on), "Training On" if on else "Training Off")

        def changed(value: float) -> None:
            if math.isfinite(value) and value != g.node(self.node_id).loss_coefficient:
                self._set_field("set_loss_coefficient", float(value), "Change Loss Coefficient")

        box.toggled.connect(toggled)
        coefficient.valueChanged.connect(changed)
        self._add("Training", "training", box, refresh)
        self._add("Loss coefficient", "loss_coefficient", coefficient)

    def _build_trainable(self, node: N.TrainableSource) -> None:
        add_flag_row(self, "Trainable", "trainable", "updated by training", TRAINABLE_TIP, "set_trainable",
                     ("Mark Not Trainable", "Mark Trainable"))

    def _build_loss(self, node: N.LossNode) -> None:
        g = self.graph
        combo = QtWidgets.QComboBox()
        for kind in LossKind:
            combo.addItem(kind.title, kind)
        hint = muted("")
        hint.setWordWrap(True)

        def refresh() -> None:
            kind = g.node(self.node_id).loss
            blocked = combo.blockSignals(True)
            combo.setCurrentIndex(combo.findData(kind))
            combo.blockSignals(blocked)
            hint.setText(LOSS_HINTS[kind])

        def changed(_index: int) -> None:
            kind = combo.currentData()
            if kind != g.node(self.node_id).loss:
                self._set_field("set_loss_kind", kind, "Change Loss")

        combo.currentIndexChanged.connect(changed)
        self._add("Loss", "loss_kind", combo, refresh)
        self.widgets["loss_hint"] = hint
        self._form.addRow(hint)


#: What each loss computes and what its target must be (the property panel's hint).
LOSS_HINTS = {
    LossKind.SUM: "sum(prediction); no target",
    LossKind.MEAN: "mean(prediction); no target",
    LossKind.MEAN_SQUARED_ERROR: "mean((prediction − target)²); the target has the prediction's shape and dtype",
    LossKind.SOFTMAX_CROSS_ENTROPY: ("mean of −log softmax(prediction)[…, target]: logits with the classes on "
                                     "the last axis; the target holds int32/int64 class ids"),
}
