"""Gradients through the common ONNX ops a model holds besides the indexing ops (foreign
nodes): the vector-Jacobian product of each, in numpy, so that a backward pass goes on
through an imported model's MatMul, Relu or Softmax instead of stopping there.

Contract:

- :func:`foreign_vjp` gives the rule for an op of the default domain (``""`` or ``ai.onnx``)
  with one output, or None (no gradient: the backward pass says so and sends nothing).
- A rule is called as ``rule(inputs, attrs, output, grad, opset)``: the node's input values in
  ONNX order (None for an unconnected optional input), its attribute values by name (plain
  Python values and arrays, the defaults of the op's schema applying to the rest), its output
  value, the gradient of the loss with respect to that output (the output's shape) and the
  model's opset of the default domain (Softmax and the reductions changed meaning with it).
  It returns one gradient per input, each of the input's shape and dtype, None for an input
  that takes none (a shape, the axes, anything not a float).
- Broadcasting inputs (Add, Mul, ..., Gemm's C, Expand) get the gradient summed over the
  dimensions they were broadcast along. MatMul follows numpy's rules for 1-D operands and
  batch dimensions.
- ``FOREIGN_VJP_OPS``: the op types with a rule, in the order the README lists them.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

import ops
from ops.dtypes import FLOAT_NAMES

Rule = Callable[[Sequence[np.ndarray | None], Mapping[str, Any], np.ndarray, np.ndarray, int],
                list[np.ndarray | None]]


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``grad`` (of a broadcast result) summed back to ``shape``."""
    grad = np.asarray(grad)
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    kept = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if kept:
        grad = grad.sum(axis=kept, keepdims=True)
    return grad.reshape(shape)


def _elementwise(derivative: Callable[[np.ndarray, np.ndarray, np.ndarray, Mapping[str, Any]], np.ndarray]) -> Rule:
    """A rule for a one-input elementwise op: ``derivative(x, y, grad, attrs)``."""
    def rule(inputs, attrs, output, grad, opset):
        return [derivative(inputs[0], output, grad, attrs)]
    return rule


def _binary(da: Callable, db: Callable) -> Rule:
    """A rule for a broadcasting two-input op: ``da(a, b, y, grad)``, ``db(a, b, y, grad)`` give
    the gradients before they are summed back to each input's shape."""
    def rule(inputs, attrs, output, grad, opset):
        a, b = inputs[0], inputs[1]
        return [unbroadcast(da(a, b, output, grad), a.shape), unbroadcast(db(a, b, output, grad), b.shape)]
    return rule


def _same_shape(inputs, attrs, output, grad, opset):
    """Reshape, Flatten, Squeeze, Unsqueeze, Identity: the elements move, unchanged."""
    return [grad.reshape(inputs[0].shape)] + [None] * (len(inputs) - 1)


def _matmul(inputs, attrs, output, grad, opset):
    a, b = inputs[0], inputs[1]
    a2 = a[np.newaxis, :] if a.ndim == 1 else a
    b2 = b[:, np.newaxis] if b.ndim == 1 else b
    g2 = grad   # the dimensions numpy dropped for 1-D operands put back, the last one first
    if b.ndim == 1:
        g2 = np.expand_dims(g2, -1)
    if a.ndim == 1:
        g2 = np.expand_dims(g2, -2)
    da = g2 @ np.swapaxes(b2, -1, -2)
    db = np.swapaxes(a2, -1, -2) @ g2
    return [unbroadcast(da, a2.shape).reshape(a.shape), unbroadcast(db, b2.shape).reshape(b.shape)]


def _gemm(inputs, attrs, output, grad, opset):
    a, b = inputs[0], inputs[1]
    c = inputs[2] if len(inputs) > 2 else None
    alpha, beta = attrs.get("alpha", 1.0), attrs.get("beta", 1.0)
    ta, tb = attrs.get("transA", 0), attrs.get("transB", 0)
    a2, b2 = (a.T if ta else a), (b.T if tb else b)
    da2, db2 = alpha * (grad @ b2.T), alpha * (a2.T @ grad)
    dc = None if c is None else unbroadcast(beta * grad, c.shape)
    return [da2.T if ta else da2, db2.T if tb else db2, dc]


def _transpose(inputs, attrs, output, grad, opset):
    perm = attrs.get("perm") or tuple(reversed(range(grad.ndim)))
    return [grad.transpose(np.argsort(perm))]


def _softmax_axis(attrs: Mapping[str, Any], ndim: int, opset: int) -> tuple[int, bool]:
    """The axis and whether the op flattens the input to 2-D around it (before opset 13)."""
    axis = attrs.get("axis", -1 if opset >= 13 else 1)
    return (axis + ndim if axis < 0 else axis), opset < 13


def _softmax_like(log: bool) -> Rule:
    def rule(inputs, attrs, output, grad, opset):
        axis, flat = _softmax_axis(attrs, output.ndim, opset)
        shape = output.shape
        y, g = output, grad
        if flat:   # opset < 13: softmax over every dimension from axis on, as one row
            rows = math.prod(shape[:axis])
            y, g, axis = y.reshape(rows, -1), g.reshape(rows, -1), 1
        if log:
            dx = g - np.exp(y) * g.sum(axis=axis, keepdims=True)
        else:
            dx = y * (g - (g * y).sum(axis=axis, keepdims=True))
        return [dx.reshape(shape)]
    return rule


def _reduce(mean: bool) -> Rule:
    def rule(inputs, attrs, output, grad, opset):
        x = inputs[0]
        given = inputs[1] if len(inputs) > 1 and inputs[1] is not None else attrs.get("axes")
        axes = tuple(int(a) % x.ndim for a in np.asarray(given if given is not None else (), np.int64).reshape(-1)) \
            if x.ndim else ()
        if not axes:
            if attrs.get("noop_with_empty_axes", 0):
                return [grad.reshape(x.shape)] + [None] * (len(inputs) - 1)
            axes = tuple(range(x.ndim))
        g = grad if attrs.get("keepdims", 1) else np.expand_dims(grad, tuple(sorted(axes)))
        dx = np.broadcast_to(g, x.shape)
        if mean:
            dx = dx / math.prod(x.shape[a] for a in axes)
        return [np.array(dx)] + [None] * (len(inputs) - 1)
    return rule


def _concat(inputs, attrs, output, grad, opset):
    axis = attrs["axis"] % grad.ndim
    ends = np.cumsum([x.shape[axis] for x in inputs])[:-1]
    return list(np.split(grad, ends, axis=axis))


def _cast(inputs, attrs, output, grad, opset):
    return [grad.astype(inputs[0].dtype) if _floating(output) else None]


def _floating(value) -> bool:
    """A float tensor, bfloat16 included (ml_dtypes' kind is not "f")."""
    try:
        return ops.dtype_name(np.asarray(value)) in FLOAT_NAMES
    except ops.OpError:
        return False


def _expand(inputs, attrs, output, grad, opset):
    return [unbroadcast(grad, inputs[0].shape), None]


_RULES: dict[str, Rule] = {
    "Identity": _same_shape,
    "Add": _binary(lambda a, b, y, g: g, lambda a, b, y, g: g),
    "Sub": _binary(lambda a, b, y, g: g, lambda a, b, y, g: -g),
    "Mul": _binary(lambda a, b, y, g: g * b, lambda a, b, y, g: g * a),
    "Div": _binary(lambda a, b, y, g: g / b, lambda a, b, y, g: -g * a / (b * b)),
    "Neg": _elementwise(lambda x, y, g, at: -g),
    "Relu": _elementwise(lambda x, y, g, at: np.where(x > 0, g, np.zeros((), g.dtype))),
    "LeakyRelu": _elementwise(lambda x, y, g, at: np.where(x > 0, g, g * np.asarray(at.get("alpha", 0.01), g.dtype))),
    "Sigmoid": _elementwise(lambda x, y, g, at: g * y * (1 - y)),
    "Tanh": _elementwise(lambda x, y, g, at: g * (1 - y * y)),
    "Exp": _elementwise(lambda x, y, g, at: g * y),
    "Log": _elementwise(lambda x, y, g, at: g / x),
    "Sqrt": _elementwise(lambda x, y, g, at: g / (2 * y)),
    "MatMul": _matmul,
    "Gemm": _gemm,
    "Reshape": _same_shape,
    "Flatten": _same_shape,
    "Squeeze": _same_shape,
    "Unsqueeze": _same_shape,
    "Transpose": _transpose,
    "Expand": _expand,
    "Concat": _concat,
    "Softmax": _softmax_like(log=False),
    "LogSoftmax": _softmax_like(log=True),
    "ReduceSum": _reduce(mean=False),
    "ReduceMean": _reduce(mean=True),
    "Cast": _cast,
}
FOREIGN_VJP_OPS = tuple(_RULES)


def foreign_vjp(op_type: str, domain: str, outputs: int) -> Rule | None:
    """The rule of a default-domain op with one output, else None (see the module contract)."""
    if domain not in ("", "ai.onnx") or outputs != 1:
        return None
    rule = _RULES.get(op_type)
    return None if rule is None else _typed(rule)


def _typed(rule: Rule) -> Rule:
    """``rule`` with each gradient in its input's float dtype, and None for inputs that are
    not floats (indices, shapes, axes)."""
    def typed(inputs, attrs, output, grad, opset):
        raw = list(rule(inputs, attrs, output, grad, opset))[:len(inputs)]   # Gemm without C: two
        out: list[np.ndarray | None] = []
        for x, g in zip(inputs, raw + [None] * (len(inputs) - len(raw)), strict=True):
            if g is None or x is None or not _floating(x):
                out.append(None)
            else:
                out.append(np.asarray(g, dtype=np.asarray(x).dtype).reshape(np.shape(x)))
        return out
    return typed
