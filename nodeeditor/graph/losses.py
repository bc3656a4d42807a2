"""The loss functions of the Loss node and their gradients: plain numpy, no Qt, no onnx.

A Loss node turns a ``prediction`` (and for two kinds a ``target``) into one scalar, where
the backward pass (:mod:`nodeeditor.graph.backward`) starts. The kinds (:class:`LossKind`):

* ``sum``: ``sum(prediction)``; no target.
* ``mean``: ``mean(prediction)``; no target.
* ``mean_squared_error``: ``mean((prediction - target) ** 2)``; the target has the
  prediction's shape and dtype, and gets a gradient too (``-`` the prediction's).
* ``softmax_cross_entropy``: the prediction holds logits of shape ``[..., C]`` (rank >= 1);
  the target holds integer class ids (int32 or int64) of shape ``prediction.shape[:-1]``,
  each in ``[0, C-1]``; the loss is the mean over those positions of
  ``-log(softmax(prediction)[..., target])``. The target gets no gradient.

Dtypes: the prediction is float16, bfloat16, float32 or float64. Values and gradients are
computed in float64 and returned in the prediction's dtype (the loss as a 0-d array). A mean
over an empty prediction is refused (it has no value).

Errors are :class:`LossError` (a ValueError) with a message that names the input, what it
is and what it must be; the caller prefixes the node.
"""
from __future__ import annotations

import enum

import numpy as np

from ops import TensorType, is_known
from ops.dtypes import FLOAT_NAMES

#: Prediction dtypes a loss accepts.
LOSS_DTYPES = ("float16", "bfloat16", "float32", "float64")
#: Class id dtypes of a cross-entropy target.
CLASS_ID_DTYPES = ("int32", "int64")
PREDICTION, TARGET, LOSS_PORT = "prediction", "target", "loss"


class LossError(ValueError):
    """The inputs do not fit the loss kind (the message says which and why)."""


class LossKind(enum.Enum):
    """What a Loss node computes; the value is the name in files and on the command line."""

    SUM = "sum"
    MEAN = "mean"
    MEAN_SQUARED_ERROR = "mean_squared_error"
    SOFTMAX_CROSS_ENTROPY = "softmax_cross_entropy"

    @property
    def title(self) -> str:
        """How a person reads it: ``mean squared error``."""
        return _TITLES[self]

    @property
    def needs_target(self) -> bool:
        """Whether the ``target`` input must be connected (it must stay unconnected otherwise)."""
        return self in (LossKind.MEAN_SQUARED_ERROR, LossKind.SOFTMAX_CROSS_ENTROPY)

    @classmethod
    def parse(cls, value: LossKind | str) -> LossKind:
        """A kind from itself or its name; LossError listing the kinds otherwise."""
        if isinstance(value, LossKind):
            return value
        try:
            return cls(value)
        except ValueError:
            names = ", ".join(k.value for k in cls)
            raise LossError(f"unknown loss kind {value!r}; the kinds are {names}") from None


_TITLES = {LossKind.SUM: "sum", LossKind.MEAN: "mean", LossKind.MEAN_SQUARED_ERROR: "mean squared error",
           LossKind.SOFTMAX_CROSS_ENTROPY: "softmax cross-entropy"}
#: The kind a new Loss node has.
DEFAULT_LOSS = LossKind.MEAN_SQUARED_ERROR


def _shape_text(shape) -> str:
    return "[" + ", ".join("?" if d is None else str(d) for d in shape) + "]"


def _shapes_agree(a, b) -> bool:
    return len(a) == len(b) and all(not is_known(x) or not is_known(y) or x == y for x, y in zip(a, b, strict=True))


def loss_type(kind: LossKind, prediction: TensorType, target: TensorType | None) -> TensorType:
    """The loss's type (a scalar of the prediction's dtype) for these input types; LossError
    when they do not fit ``kind`` (unknown dimensions, None, are not held against them)."""
    if prediction.dtype not in LOSS_DTYPES:
        raise LossError(f"the prediction must be a float tensor ({', '.join(LOSS_DTYPES)}); "
                        f"it is {prediction.dtype}")
    size_known = all(is_known(d) for d in prediction.shape)
    empty = size_known and int(np.prod(prediction.shape, dtype=np.int64)) == 0
    if not kind.needs_target:
        if target is not None:
            raise LossError(f"a {kind.title} loss takes no target; disconnect 'target' "
                            f"(or choose mean squared error or softmax cross-entropy)")
        if kind is LossKind.MEAN and empty:
            raise LossError(f"the prediction {_shape_text(prediction.shape)} is empty: its mean has no value")
        return TensorType(prediction.dtype, ())
    assert target is not None
    if kind is LossKind.MEAN_SQUARED_ERROR:
        if target.dtype != prediction.dtype:
            raise LossError(f"the target must have the prediction's dtype {prediction.dtype}; it is {target.dtype}")
        if not _shapes_agree(target.shape, prediction.shape):
            raise LossError(f"the target {_shape_text(target.shape)} must have the prediction's shape "
                            f"{_shape_text(prediction.shape)}")
        if empty:
            raise LossError(f"the prediction {_shape_text(prediction.shape)} is empty: its mean has no value")
        return TensorType(prediction.dtype, ())
    # softmax cross-entropy
    if prediction.rank < 1:
        raise LossError("the prediction must hold logits with the classes on its last axis (rank >= 1); "
                        "it is a scalar")
    if target.dtype not in CLASS_ID_DTYPES:
        raise LossError(f"the target must hold integer class ids ({' or '.join(CLASS_ID_DTYPES)}); "
                        f"it is {target.dtype}")
    if not _shapes_agree(target.shape, prediction.shape[:-1]):
        raise LossError(f"the target {_shape_text(target.shape)} must have the prediction's shape without "
                        f"its class axis, {_shape_text(prediction.shape[:-1])} (prediction "
                        f"{_shape_text(prediction.shape)})")
    if empty:
        raise LossError(f"the prediction {_shape_text(prediction.shape)} is empty: its mean has no value")
    return TensorType(prediction.dtype, ())


def _check(kind: LossKind, prediction: np.ndarray, target: np.ndarray | None) -> None:
    loss_type(kind, TensorType.of(prediction), None if target is None else TensorType.of(target))


def _class_ids(prediction: np.ndarray, target: np.ndarray) -> np.ndarray:
    """The target as int64, every id checked against ``[0, C-1]`` (LossError naming the
    first one outside, by position)."""
    classes = prediction.shape[-1]
    ids = np.asarray(target).astype(np.int64)
    bad = (ids < 0) | (ids >= classes)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise LossError(f"target class id {int(ids[where])} at position {list(where)} is outside [0, {classes - 1}] "
                        f"(the prediction has {classes} classes on its last axis)")
    return ids


def _log_softmax(x: np.ndarray) -> np.ndarray:
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def loss_value(kind: LossKind, prediction: np.ndarray, target: np.ndarray | None = None) -> np.ndarray:
    """The loss as a 0-d array of the prediction's dtype (see the module docstring)."""
    kind = LossKind.parse(kind)
    prediction = np.asarray(prediction)
    _check(kind, prediction, target)
    p = prediction.astype(np.float64)
    if kind is LossKind.SUM:
        value = np.sum(p)
    elif kind is LossKind.MEAN:
        value = np.mean(p)
    elif kind is LossKind.MEAN_SQUARED_ERROR:
        diff = p - np.asarray(target).astype(np.float64)
        value = np.mean(diff * diff)
    else:
        ids = _class_ids(prediction, target)
        picked = np.take_along_axis(_log_softmax(p), ids[..., None], axis=-1)
        value = -np.mean(picked)
    with np.errstate(over="ignore"):   # a diverging run reaches inf: its caller says so
        return np.asarray(value).astype(prediction.dtype)


def loss_vjp(kind: LossKind, prediction: np.ndarray, target: np.ndarray | None = None,
             grad: float | np.ndarray = 1.0) -> tuple[np.ndarray, np.ndarray | None]:
    """``(d prediction, d target)`` for ``grad`` = d(total)/d(loss): arrays of the inputs'
    dtypes and shapes; ``d target`` is None for the kinds without a float target."""
    kind = LossKind.parse(kind)
    prediction = np.asarray(prediction)
    _check(kind, prediction, target)
    g = float(np.asarray(grad, dtype=np.float64))
    p = prediction.astype(np.float64)
    d_target = None
    if kind is LossKind.SUM:
        d_pred = np.full(p.shape, g)
    elif kind is LossKind.MEAN:
        d_pred = np.full(p.shape, g / p.size)
    elif kind is LossKind.MEAN_SQUARED_ERROR:
        diff = p - np.asarray(target).astype(np.float64)
        d_pred = diff * (2.0 * g / p.size)
        d_target = (-d_pred).astype(np.asarray(target).dtype)
    else:
        ids = _class_ids(prediction, target)
        soft = np.exp(_log_softmax(p))
        np.put_along_axis(soft, ids[..., None], np.take_along_axis(soft, ids[..., None], axis=-1) - 1.0, axis=-1)
        positions = max(1, p.size // p.shape[-1])
        d_pred = soft * (g / positions)
    with np.errstate(over="ignore"):
        return d_pred.astype(prediction.dtype), d_target


def is_float(dtype: str) -> bool:
    """Whether tensors of ``dtype`` (a dtype name) can have a gradient."""
    return dtype in FLOAT_NAMES


__all__ = ["LossKind", "LossError", "DEFAULT_LOSS", "LOSS_DTYPES", "CLASS_ID_DTYPES", "loss_type", "loss_value",
           "loss_vjp", "is_float", "PREDICTION", "TARGET", "LOSS_PORT"]
