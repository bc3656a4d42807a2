"""Vector-Jacobian products of the indexing ops: ``ops.vjp(op_name, inputs, attrs, grad_output)``.

Given the forward call ``output = ops.run_op(op_name, inputs, attrs)`` and ``grad_output``
(dL/d output), returns dL/d input for every input, as a tuple in the schema's input order: an
array with that input's shape and dtype for each differentiable input (``data``, ``updates``,
``past_cache``, ``update``), and ``None`` for index inputs and omitted optional inputs.
Arguments follow :func:`ops.run_op`: inputs in schema order (missing trailing optional inputs
may be left out), attributes not given take the schema default. Inputs and ``grad_output`` are
never modified and no result shares memory with them.

The rules (the same index map as the forward kernel, turned around):

* Gather, GatherElements, GatherND: d data is zero except where read; duplicate reads add up
  (in row-major order of the output).
* Reduction none (Scatter, ScatterElements, ScatterND, TensorScatter): d data is grad_output
  with every written cell zeroed; d updates is grad_output at the target of the update that
  won (the last in row-major order); an update overwritten by a later duplicate gets exactly 0.
* add: d data = grad_output; d updates = grad_output gathered at each update's target.
* mul: each contributor to a cell (the data value and every update folded into it) gets
  grad_output times the product of all the other contributors, computed without division
  (prefix times suffix products within the cell), so zeros are exact: with one zero
  contributor only that one can get a nonzero gradient; with two or more, all get 0. An
  unwritten cell's data gets grad_output.
* max / min: the gradient goes to the contributors equal to the result, the data value
  included; ties share it evenly (``g / count``), as torch's ``scatter_reduce(...,
  include_self=True)`` does for amax/amin. A NaN result (max/min propagate NaN) is shared
  evenly by the contributors that are NaN; the others get 0. (torch compares with ``==``,
  so there every contributor of a NaN cell gets NaN.)

onnxruntime's training gradient for ScatterElements ignores ``reduction`` and gives an
overwritten duplicate update the gradient of its target; the rules above do not.

dtypes: float32 and float64 are computed natively; float16 and bfloat16 are computed in
float32 and rounded back once at the end. A float input gets a gradient of its own dtype;
integer, bool and string inputs have no gradient (``None``), and then ``grad_output`` may be
``None`` (if given, its shape is still checked). Complex tensors and the small float formats
TensorScatter allows raise OpError naming the dtype. ``grad_output`` of the wrong shape or
dtype raises OpError saying what was expected.

Each op's rule is its OpDef's ``vjp`` (:mod:`ops.opdefs`), a function ``(imap, inputs,
attrs, grad) -> tuple`` where ``imap`` is the op's IndexMap, ``inputs`` and ``attrs`` are complete,
the differentiable inputs and ``grad`` are already in the compute dtype; the array work is
in :mod:`ops.vjp_rules`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .checks import fmt_shape
from .dtypes import dtype_name
from .errors import OpError
from .opdefs import get_opdef
from .registry import index_map

#: dtype name -> the dtype the gradient is computed in.
COMPUTE_DTYPES = {"float16": np.float32, "bfloat16": np.float32, "float32": np.float32, "float64": np.float64}
#: dtype names whose inputs have no gradient (None).
NO_GRADIENT = frozenset({"bool", "string", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})

Grads = tuple  # tuple[np.ndarray | None, ...] in schema input order


def vjp(op_name: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None,
        grad_output: np.ndarray | None) -> Grads:
    """dL/d input for each input of ``op_name`` given ``grad_output`` = dL/d output (see the
    module docstring for the rules, dtypes and errors)."""
    opdef = get_opdef(op_name)
    schema = opdef.schema
    imap = index_map(op_name, inputs, attrs)  # checks inputs, attributes, shapes and indices
    attrs = schema.check_attributes(attrs)
    inputs = list(inputs) + [None] * (len(schema.inputs) - len(inputs))
    differentiable = opdef.differentiable_inputs
    values = [i for i, port in enumerate(schema.inputs) if port.name in differentiable]
    dtype = _value_dtype(op_name, schema, inputs, values)
    out_shape = imap.element_shape if imap.kind == "gather" else imap.target_shape
    if dtype in NO_GRADIENT:
        if grad_output is not None:
            _check_grad(op_name, grad_output, out_shape, None)
        return (None,) * len(schema.inputs)
    _check_grad(op_name, grad_output, out_shape, dtype)
    compute = COMPUTE_DTYPES[dtype]
    cast = [np.asarray(a, dtype=compute, order="C") if i in values else a for i, a in enumerate(inputs)]
    grads = opdef.vjp(imap, cast, attrs, np.asarray(grad_output, dtype=compute, order="C"))
    return tuple(None if g is None else _as_input(g, inputs[i]) for i, g in enumerate(grads))


def _value_dtype(op_name: str, schema, inputs: list, values: list[int]) -> str:
    """The one dtype name of the differentiable inputs; OpError if they differ or it has no
    gradient rule."""
    names = {i: dtype_name(np.asarray(inputs[i])) for i in values if inputs[i] is not None}
    first = values[0]
    for i, name in names.items():
        if name != names[first]:
            raise OpError(f"{op_name}: {schema.inputs[i].name} dtype {name} differs from "
                          f"{schema.inputs[first].name} dtype {names[first]}")
    dtype = names[first]
    if dtype not in COMPUTE_DTYPES and dtype not in NO_GRADIENT:
        raise OpError(f"{op_name}: no gradient for {dtype} tensors; vjp supports float16, bfloat16, float32 "
                      f"and float64 (integer, bool and string inputs get None)")
    return dtype


def _check_grad(op_name: str, grad_output, out_shape: tuple, dtype: str | None) -> None:
    if grad_output is None:
        raise OpError(f"{op_name}: grad_output is missing; expected {dtype} of shape {fmt_shape(out_shape)} "
                      f"(the output's)")
    shape = tuple(np.shape(grad_output))
    if shape != tuple(out_shape):
        raise OpError(f"{op_name}: grad_output has shape {fmt_shape(shape)}; expected {fmt_shape(out_shape)} "
                      f"(the output's)")
    if dtype is not None:
        got = dtype_name(np.asarray(grad_output))
        if got != dtype:
            raise OpError(f"{op_name}: grad_output has dtype {got}; expected {dtype} (the output's)")


def _as_input(grad: np.ndarray, like) -> np.ndarray:
    """``grad`` in the dtype of the input ``like`` (one rounding for float16/bfloat16)."""
    like = np.asarray(like)
    return np.asarray(grad.astype(like.dtype, copy=False).reshape(like.shape), order="C")
