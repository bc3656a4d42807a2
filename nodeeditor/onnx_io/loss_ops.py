"""The Loss node as standard ONNX ops: its value (forward export) and its gradient (the
gradient export), the same formulas as :mod:`nodeeditor.graph.losses`.

Value (opset >= :data:`LOSS_MIN_OPSET`, where ReduceSum and Unsqueeze take their axes as an
input); ``p`` the prediction, ``t`` the target, ``C`` the classes, ``M`` the positions:

* sum: ``ReduceSum(p)``; mean: ``ReduceMean(p)`` (every axis, keepdims 0)
* mean squared error: ``ReduceMean(Mul(d, d))`` with ``d = Sub(p, t)``
* softmax cross-entropy: ``Neg(ReduceMean(ReduceSum(Mul(LogSoftmax(p), onehot), axes=[-1])))``
  with ``onehot = Cast(Equal(Unsqueeze(t, [-1]), [0..C-1]))``

A float16 or bfloat16 prediction is computed in float32 and the loss cast back (the engine
computes in float64; the two agree within the dtype's rounding).

Gradient, for ``g`` = d total / d loss (a scalar of the prediction's dtype; the gradient
export takes float32 and float64 only): sum ``Expand(g)``; mean ``Expand(g / N)``; mean
squared error ``d * (2 g / N)`` for the prediction and its negation for the target;
cross-entropy ``(Softmax(p) - onehot) * (g / M)``.
"""
from __future__ import annotations

import math

import numpy as np
from onnx import helper, numpy_helper

import ops
from nodeeditor.graph.losses import LossKind

from .errors import ExportError
from .names import NameTable
from .types import elem_type

#: The lowest opset a Loss node is written at.
LOSS_MIN_OPSET = 13


class Emitter:
    """Appends single-output nodes to ``nodes`` with fresh names from ``names``, each
    starting with ``prefix`` (the node they belong to)."""

    def __init__(self, names: NameTable, nodes: list, prefix: str) -> None:
        self.names, self.nodes, self.prefix = names, nodes, prefix

    def __call__(self, op: str, inputs, hint: str = "", out: str | None = None, **attrs) -> str:
        """Add ``op(*inputs, **attrs)`` and return the name of its output (``out`` if given)."""
        out = out or self.names.claim(f"{self.prefix}_{hint or op.lower()}")
        self.nodes.append(helper.make_node(op, list(inputs), [out], name=out, **attrs))
        return out

    def const(self, value, hint: str = "const", out: str | None = None) -> str:
        """A Constant node holding ``value`` (a numpy array or scalar of the wanted dtype)."""
        out = out or self.names.claim(f"{self.prefix}_{hint}")
        self.nodes.append(helper.make_node("Constant", [], [out], name=out,
                                           value=numpy_helper.from_array(np.asarray(value), out)))
        return out

    def ints(self, values, hint: str = "axes") -> str:
        return self.const(np.asarray(values, dtype=np.int64), hint)


def _wide(dtype: str) -> bool:
    return dtype in ("float16", "bfloat16")


def loss_forward(emit: Emitter, kind: LossKind, pred: str, target: str | None, pred_type: ops.TensorType,
                 out: str) -> str:
    """The loss of ``pred`` (and ``target``) written into the tensor ``out``."""
    dtype = pred_type.dtype
    if _wide(dtype):
        pred = emit("Cast", [pred], "prediction_f32", to=elem_type("float32"))
        if kind is LossKind.MEAN_SQUARED_ERROR:
            target = emit("Cast", [target], "target_f32", to=elem_type("float32"))
    final = None if _wide(dtype) else out
    if kind is LossKind.SUM:
        value = emit("ReduceSum", [pred], "sum", out=final, keepdims=0)
    elif kind is LossKind.MEAN:
        value = emit("ReduceMean", [pred], "mean", out=final, keepdims=0)
    elif kind is LossKind.MEAN_SQUARED_ERROR:
        diff = emit("Sub", [pred, target], "difference")
        value = emit("ReduceMean", [emit("Mul", [diff, diff], "squared")], "mse", out=final, keepdims=0)
    else:
        work = "float32" if _wide(dtype) else dtype
        logp = emit("LogSoftmax", [pred], "log_softmax", axis=pred_type.rank - 1)
        onehot = _one_hot(emit, target, pred_type.shape[-1], work)
        picked = emit("ReduceSum", [emit("Mul", [logp, onehot], "picked"), emit.ints([-1])], "log_likelihood",
                      keepdims=0)
        value = emit("Neg", [emit("ReduceMean", [picked], "mean_log_likelihood", keepdims=0)], "cross_entropy",
                     out=final)
    if _wide(dtype):
        value = emit("Cast", [value], out=out, to=elem_type(dtype))
    return value


def _one_hot(emit: Emitter, target: str, classes: int, dtype: str) -> str:
    """``onehot[..., c] = (target[...] == c)`` as ``dtype``."""
    ids = emit("Cast", [target], "class_ids", to=elem_type("int64"))
    column = emit("Unsqueeze", [ids, emit.ints([-1])], "class_column")
    hit = emit("Equal", [column, emit.const(np.arange(classes, dtype=np.int64), "classes")], "is_class")
    return emit("Cast", [hit], "one_hot", to=elem_type(dtype))


def loss_backward(emit: Emitter, kind: LossKind, pred: str, target: str | None, pred_type: ops.TensorType,
                  grad: str) -> tuple[str, str | None]:
    """(d prediction, d target or None) for the scalar ``grad`` = d total / d loss; the
    prediction is float32 or float64."""
    np_dtype = ops.dtype_of(pred_type.dtype)
    fixed = all(isinstance(d, int) for d in pred_type.shape)
    # an imported model's named or unknown dimensions (a batch): the shape and count at run time
    shape = emit.ints(list(pred_type.shape), "shape") if fixed else emit("Shape", [pred], "shape")
    size = math.prod(pred_type.shape) if fixed else 0

    def per(scale: float, count: str, known: int) -> str:
        """``grad`` times ``scale`` / the number of ``count``'s elements (``known`` when the
        prediction's shape is fixed)."""
        if fixed:
            return emit("Mul", [grad, emit.const(np_dtype.type(scale / max(1, known)), "inverse")], "d_scale")
        n = emit("Cast", [emit("Size", [count], "size")], "count", to=elem_type(pred_type.dtype))
        return emit("Div", [emit("Mul", [grad, emit.const(np_dtype.type(scale), "scale")], "scaled"), n], "d_scale")

    if kind is LossKind.SUM:
        return emit("Expand", [grad, shape], "d_prediction"), None
    if kind is LossKind.MEAN:
        return emit("Expand", [per(1.0, pred, size), shape], "d_prediction"), None
    if kind is LossKind.MEAN_SQUARED_ERROR:
        diff = emit("Sub", [pred, target], "difference")
        d_pred = emit("Mul", [diff, per(2.0, pred, size)], "d_prediction")
        return d_pred, emit("Neg", [d_pred], "d_target")
    classes = pred_type.shape[-1]
    if not isinstance(classes, int):
        raise ExportError(f"softmax_cross_entropy's class axis is {classes!r}: the gradient model needs its size "
                          "when it is written")
    soft = emit("Softmax", [pred], "softmax", axis=pred_type.rank - 1)
    onehot = _one_hot(emit, target, classes, pred_type.dtype)
    scale = per(1.0, target, size // classes if fixed else 0)   # the positions: the target's elements
    return emit("Mul", [emit("Sub", [soft, onehot], "softmax_minus_one_hot"), scale], "d_prediction"), None
