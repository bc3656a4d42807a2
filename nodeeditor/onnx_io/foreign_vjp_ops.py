"""The gradient export's ONNX for the foreign ops the engine differentiates
(:mod:`nodeeditor.graph.foreign_vjp`): the same vector-Jacobian products, written as standard
ONNX nodes (opset 18 and later, where ReduceSum, Squeeze and Unsqueeze take their axes as an
input and Softmax works along one axis), so that ``indexflow export --gradients`` goes through
an imported model's MatMul, Relu or Softmax as ``indexflow grad`` does.

Contract of :func:`foreign_op_vjp`: one gradient tensor name per input in ONNX order (None for
an input that takes none: not a float, not wanted, or omitted). Shapes come from the inputs'
tensors at run time (``Shape``) wherever they can; what must be known when writing (which
dimensions a broadcasting input was stretched along, the ranks of MatMul's operands) is read
from the inferred types, and ExportError names the node when a type does not tell it (a named
dimension that may or may not be 1).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from onnx import helper

import ops
from ops.dtypes import FLOAT_NAMES

from .errors import ExportError
from .loss_ops import Emitter
from .types import elem_type

Port = tuple[str, ops.TensorType | None]   # (tensor name, its type); ("", None) for an omitted input

def foreign_op_vjp(emit: Emitter, label: str, op: str, attrs: Mapping[str, Any], inputs: Sequence[Port],
                   output: Port, grad: str, wanted: Sequence[bool]) -> list[str | None]:
    """See the module contract. ``label`` names the node in an ExportError; ``wanted[i]``:
    whether input ``i`` needs its gradient (on a path from a trainable source)."""
    writer = _WRITERS.get(op)
    if writer is None:
        raise ExportError(f"{label}: no ONNX gradient is written for op {op}")
    out = list(writer(_Context(emit, label, attrs, inputs, output, grad), wanted))[:len(inputs)]
    return [name if want and _is_float(port) else None
            for name, want, port in zip(out + [None] * (len(inputs) - len(out)), wanted, inputs, strict=True)]


def _is_float(port: Port) -> bool:
    return port[1] is not None and port[1].dtype in FLOAT_NAMES


class _Context:
    """One node's backward: its inputs, output, incoming gradient and the emitter."""

    def __init__(self, emit: Emitter, label: str, attrs, inputs, output, grad) -> None:
        self.emit, self.label, self.attrs = emit, label, attrs
        self.inputs, self.output, self.grad = list(inputs), output, grad
        self.dtype = ops.dtype_of(output[1].dtype)

    def x(self, i: int = 0) -> str:
        return self.inputs[i][0]

    def scalar(self, value, hint: str) -> str:
        return self.emit.const(np.asarray(value, dtype=self.dtype), hint)

    def shape_of(self, name: str) -> str:
        return self.emit("Shape", [name], "shape")

    def like(self, value: str, i: int) -> str:
        """``value`` (as many elements as input ``i``) in input ``i``'s shape."""
        return self.emit("Reshape", [value, self.shape_of(self.x(i))], "reshaped")

    def unbroadcast(self, value: str, i: int, shape_of_value: tuple, target: tuple | None = None) -> str:
        """``value`` (of ``shape_of_value``, a broadcast of ``target``, by default input ``i``'s
        shape) summed back to ``target`` and put in input ``i``'s shape; the dimensions it was
        stretched along are read from the types."""
        x_shape = tuple(self.inputs[i][1].shape) if target is None else tuple(target)
        if x_shape == tuple(shape_of_value) and None not in x_shape:   # two unknowns may differ
            return value if target is None else self.like(value, i)
        lead = len(shape_of_value) - len(x_shape)
        axes = list(range(lead))
        for k, (d, o) in enumerate(zip(x_shape, shape_of_value[lead:], strict=True)):
            if d == o and d is not None:   # equal sizes, or one name; two unknowns may differ
                continue
            if d == 1:
                axes.append(lead + k)
                continue
            raise ExportError(f"{self.label}: input {i} of shape {x_shape} against the output's "
                              f"{tuple(shape_of_value)}: which dimensions were broadcast is not known when "
                              "writing the gradient")
        summed = self.emit("ReduceSum", [value, self.emit.ints(axes)], "unbroadcast", keepdims=1) if axes else value
        return self.like(summed, i)


def _binary(da, db):
    def write(c: _Context, wanted):
        out_shape = tuple(c.output[1].shape)
        return [c.unbroadcast(da(c), 0, out_shape) if wanted[0] else None,
                c.unbroadcast(db(c), 1, out_shape) if wanted[1] else None]
    return write


def _elementwise(make):
    def write(c: _Context, wanted):
        return [make(c)]
    return write


def _mul(c: _Context, a: str, b: str, hint: str = "d") -> str:
    return c.emit("Mul", [a, b], hint)


def _relu(c: _Context) -> str:
    zero = c.scalar(0, "zero")
    return c.emit("Where", [c.emit("Greater", [c.x(), zero], "positive"), c.grad, zero], "d_x")


def _leaky_relu(c: _Context) -> str:
    alpha = c.scalar(c.attrs.get("alpha", 0.01), "alpha")
    positive = c.emit("Greater", [c.x(), c.scalar(0, "zero")], "positive")
    return c.emit("Where", [positive, c.grad, _mul(c, c.grad, alpha, "leak")], "d_x")


def _sigmoid(c: _Context) -> str:
    y = c.output[0]
    return _mul(c, _mul(c, c.grad, y, "g_y"), c.emit("Sub", [c.scalar(1, "one"), y], "one_minus_y"), "d_x")


def _tanh(c: _Context) -> str:
    y = c.output[0]
    return _mul(c, c.grad, c.emit("Sub", [c.scalar(1, "one"), _mul(c, y, y, "y2")], "one_minus_y2"), "d_x")


def _same_shape(c: _Context, wanted):
    return [c.like(c.grad, 0)]


def _transpose(c: _Context, wanted):
    rank = len(c.output[1].shape)
    perm = c.attrs.get("perm") or tuple(reversed(range(rank)))
    return [c.emit("Transpose", [c.grad], "d_x", perm=[int(p) for p in np.argsort(perm)])]


def _expand(c: _Context, wanted):
    return [c.unbroadcast(c.grad, 0, tuple(c.output[1].shape))]


def _cast(c: _Context, wanted):
    x_type, out_type = c.inputs[0][1], c.output[1]
    if out_type.dtype not in FLOAT_NAMES:
        return [None]
    return [c.emit("Cast", [c.grad], "d_x", to=elem_type(x_type.dtype))]


def _swap_last(c: _Context, name: str, rank: int) -> str:
    return c.emit("Transpose", [name], "swapped", perm=list(range(rank - 2)) + [rank - 1, rank - 2])


def _matmul(c: _Context, wanted):
    (a, at), (b, bt) = c.inputs[0], c.inputs[1]
    a_shape, b_shape = tuple(at.shape), tuple(bt.shape)
    a2, b2, g = a, b, c.grad
    a2_shape = (1,) + a_shape if len(a_shape) == 1 else a_shape
    b2_shape = b_shape + (1,) if len(b_shape) == 1 else b_shape
    if len(b_shape) == 1:   # numpy's (and ONNX's) 1-D operands: the dropped dimensions put back
        b2 = c.emit("Unsqueeze", [b, c.emit.ints([1])], "b_matrix")
        g = c.emit("Unsqueeze", [g, c.emit.ints([-1])], "g_column")
    if len(a_shape) == 1:
        a2 = c.emit("Unsqueeze", [a, c.emit.ints([0])], "a_matrix")
        g = c.emit("Unsqueeze", [g, c.emit.ints([-2])], "g_row")
    batch = _broadcast_shape(c, a2_shape[:-2], b2_shape[:-2])
    out: list[str | None] = [None, None]
    if wanted[0]:   # summed over the batch dimensions a was broadcast along, then a's own shape
        da = c.emit("MatMul", [g, _swap_last(c, b2, len(b2_shape))], "d_a")
        out[0] = c.unbroadcast(da, 0, batch + a2_shape[-2:], target=a2_shape)
    if wanted[1]:
        db = c.emit("MatMul", [_swap_last(c, a2, len(a2_shape)), g], "d_b")
        out[1] = c.unbroadcast(db, 1, batch + b2_shape[-2:], target=b2_shape)
    return out


def _broadcast_shape(c: _Context, a: tuple, b: tuple) -> tuple:
    """numpy's broadcast of two batch shapes, from the types; ExportError where a named
    dimension meets another size."""
    rank = max(len(a), len(b))
    a, b = (1,) * (rank - len(a)) + tuple(a), (1,) * (rank - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b, strict=True):
        if (x == y and x is not None) or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ExportError(f"{c.label}: batch dimensions {a} and {b}: how they broadcast is not known "
                              "when writing the gradient")
    return tuple(out)


def _gemm(c: _Context, wanted):
    a, b = c.x(0), c.x(1)
    alpha, beta = c.attrs.get("alpha", 1.0), c.attrs.get("beta", 1.0)
    trans_a, trans_b = c.attrs.get("transA", 0), c.attrs.get("transB", 0)
    g = c.grad if alpha == 1.0 else _mul(c, c.grad, c.scalar(alpha, "alpha"), "g_alpha")
    out: list[str | None] = [None, None, None]
    a2 = c.emit("Transpose", [a], "a_t", perm=[1, 0]) if trans_a else a
    b2 = c.emit("Transpose", [b], "b_t", perm=[1, 0]) if trans_b else b
    if wanted[0]:   # d A' = g B'^T; A = A'^T when transA
        da = c.emit("MatMul", [g, c.emit("Transpose", [b2], "b2_t", perm=[1, 0])], "d_a")
        out[0] = c.emit("Transpose", [da], "d_a_t", perm=[1, 0]) if trans_a else da
    if wanted[1]:   # d B' = A'^T g
        db = c.emit("MatMul", [c.emit("Transpose", [a2], "a2_t", perm=[1, 0]), g], "d_b")
        out[1] = c.emit("Transpose", [db], "d_b_t", perm=[1, 0]) if trans_b else db
    if len(c.inputs) > 2 and c.inputs[2][0] and wanted[2]:
        scaled = c.grad if beta == 1.0 else _mul(c, c.grad, c.scalar(beta, "beta"), "g_beta")
        out[2] = c.unbroadcast(scaled, 2, tuple(c.output[1].shape))
    return out


def _axis(c: _Context) -> int:
    return int(c.attrs.get("axis", -1))


def _softmax(c: _Context, wanted):
    y = c.output[0]
    total = c.emit("ReduceSum", [_mul(c, c.grad, y, "g_y"), c.emit.ints([_axis(c)])], "sum_g_y", keepdims=1)
    return [_mul(c, y, c.emit("Sub", [c.grad, total], "g_less_sum"), "d_x")]


def _log_softmax(c: _Context, wanted):
    total = c.emit("ReduceSum", [c.grad, c.emit.ints([_axis(c)])], "sum_g", keepdims=1)
    return [c.emit("Sub", [c.grad, _mul(c, c.emit("Exp", [c.output[0]], "softmax"), total, "spread")], "d_x")]


def _reduce(mean: bool):
    def write(c: _Context, wanted):
        axes = c.inputs[1][0] if len(c.inputs) > 1 and c.inputs[1][0] else None
        if axes is None and c.attrs.get("axes") is not None:
            axes = c.emit.ints(list(c.attrs["axes"]))
        g = c.grad
        if not c.attrs.get("keepdims", 1) and axes is not None:
            g = c.emit("Unsqueeze", [g, axes], "kept_dims")   # an empty axes list leaves it as it is
        dx = c.emit("Expand", [g, c.shape_of(c.x())], "spread")
        if mean:
            count = c.emit("Div", [c.emit("Cast", [c.emit("Size", [c.x()], "size_x")], "n_x", to=elem_type(
                str(c.dtype))), c.emit("Cast", [c.emit("Size", [c.output[0]], "size_y")], "n_y",
                                       to=elem_type(str(c.dtype)))], "count")
            dx = c.emit("Div", [dx, count], "d_x")
        return [dx, None]
    return write


def _concat(c: _Context, wanted):
    axis = int(c.attrs["axis"])
    sizes = [c.emit("Gather", [c.shape_of(name), c.emit.ints([axis])], "size") for name, _ in c.inputs]
    split = c.emit("Concat", sizes, "sizes", axis=0)
    outs = [c.emit.names.claim(f"{c.emit.prefix}_d_{i}") for i in range(len(c.inputs))]
    c.emit.nodes.append(helper.make_node("Split", [c.grad, split], outs, name=outs[0] + "_split", axis=axis))
    return outs


_WRITERS = {
    "Identity": _same_shape,
    "Add": _binary(lambda c: c.grad, lambda c: c.grad),
    "Sub": _binary(lambda c: c.grad, lambda c: c.emit("Neg", [c.grad], "neg_g")),
    "Mul": _binary(lambda c: _mul(c, c.grad, c.x(1)), lambda c: _mul(c, c.grad, c.x(0))),
    "Div": _binary(lambda c: c.emit("Div", [c.grad, c.x(1)], "g_over_b"),
                   lambda c: c.emit("Neg", [c.emit("Div", [_mul(c, c.grad, c.x(0), "g_a"),
                                                           _mul(c, c.x(1), c.x(1), "b2")], "g_a_over_b2")],
                                    "d_b")),
    "Neg": _elementwise(lambda c: c.emit("Neg", [c.grad], "d_x")),
    "Relu": _elementwise(_relu),
    "LeakyRelu": _elementwise(_leaky_relu),
    "Sigmoid": _elementwise(_sigmoid),
    "Tanh": _elementwise(_tanh),
    "Exp": _elementwise(lambda c: _mul(c, c.grad, c.output[0], "d_x")),
    "Log": _elementwise(lambda c: c.emit("Div", [c.grad, c.x()], "d_x")),
    "Sqrt": _elementwise(lambda c: c.emit("Div", [c.grad, _mul(c, c.output[0], c.scalar(2, "two"), "two_y")],
                                          "d_x")),
    "MatMul": _matmul,
    "Gemm": _gemm,
    "Reshape": _same_shape,
    "Flatten": _same_shape,
    "Squeeze": _same_shape,
    "Unsqueeze": _same_shape,
    "Transpose": _transpose,
    "Expand": _expand,
    "Concat": _concat,
    "Softmax": _softmax,
    "LogSoftmax": _log_softmax,
    "ReduceSum": _reduce(mean=False),
    "ReduceMean": _reduce(mean=True),
    "Cast": _cast,
}
#: The op types written here: every one :mod:`nodeeditor.graph.foreign_vjp` has a rule for
#: (``FOREIGN_VJP_OPS``; a test holds the two lists equal).
WRITTEN = tuple(_WRITERS)
