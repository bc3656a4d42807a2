"""The vector-Jacobian products of the seven ops (:mod:`ops.vjp`'s rules) spelled in
standard ONNX ops, for the gradient export. Every shape is known when the model is written
(the graph's tensors are concrete), so zeros, positions and index grids are built from
them; negative indices are wrapped first (``Where(idx < 0, idx + size, idx)``).

* Gather: ``data`` gets ``ScatterND(zeros, indices[..., None], grad, reduction="add")`` on the
  data with its axis moved to the front (``Transpose`` before and after).
* GatherElements: ``ScatterElements(zeros, indices, grad, axis, reduction="add")``.
* GatherND: ``ScatterND(zeros, indices, grad, reduction="add")``, the batch coordinates
  prepended to the indices when ``batch_dims`` > 0.
* ScatterElements (and Scatter), ScatterND, by reduction; ``gather``/``scatter`` are
  GatherElements/ScatterElements or GatherND/ScatterND with the node's indices:

  - none: ``data`` gets ``grad * scatter(ones, zeros)`` (written cells zeroed); ``updates``
    gets ``gather(grad)`` where the update won. The winner of each cell is found without
    relying on the order a runtime writes duplicates: every update's position (row-major)
    is scattered with reduction ``max`` into a tensor of -1, gathered back and compared
    with its own position (``Equal``), so an overwritten duplicate gets exactly 0.
  - add: ``data`` gets ``grad``; ``updates`` gets ``gather(grad)``.
  - mul: zeros are counted per cell (``scatter`` add of ``updates == 0``) and the nonzero
    updates multiplied (``scatter`` mul); ``data`` gets ``grad`` times the updates' product
    (0 when one is 0); an update gets ``grad * data`` times the product of the others: the
    product divided by its own value when it is nonzero and no other is 0, the nonzero
    product when it is the only zero, else 0. The division rounds where the engine's
    prefix/suffix products do not, so the two agree within rounding.
  - max / min: the contributors equal to the result (NaN counting as equal to a NaN
    result) share the gradient evenly: ``grad / count`` where ``count`` adds the data's
    match to the ``scatter`` add of the updates' matches.
* TensorScatter: ``past_cache`` gets ``TensorScatter(grad, zeros, write_indices)``;
  ``update`` gets ``GatherElements(grad, positions, axis)`` with ``positions = write index +
  s`` (modulo the cache length in circular mode).

Tensors are float32 or float64 (the gradient export checks that before).
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np
from onnx import numpy_helper

import ops

from .loss_ops import Emitter
from .types import elem_type

Port = tuple[str, ops.TensorType]   # (tensor name, its type); name "" for an omitted input


def op_vjp(emit: Emitter, op: str, attrs: Mapping, inputs: Mapping[str, Port], output: Port, grad: str,
           wanted: set[str]) -> dict[str, str]:
    """Input port -> the tensor holding d total / d that input, for the ``wanted`` ports that
    have a gradient. ``attrs`` are complete (schema defaults filled in)."""
    rule = _RULES[op]
    return {port: name for port, name in rule(emit, attrs, inputs, output, grad, wanted).items() if port in wanted}


# ---------------------------------------------------------------------- small pieces
def _fill(emit: Emitter, shape, value, dtype, hint: str) -> str:
    """A tensor of ``shape`` holding ``value`` (ConstantOfShape)."""
    return emit("ConstantOfShape", [emit.ints(list(shape), f"{hint}_shape")], hint,
                value=numpy_helper.from_array(np.asarray([value], dtype=dtype)))


def _scalar(emit: Emitter, value, dtype, hint: str) -> str:
    return emit.const(np.asarray(value, dtype=dtype), hint)


def _wrap(emit: Emitter, index: str, index_type: ops.TensorType, sizes) -> str:
    """``index`` with negative entries wrapped by ``sizes`` (a size, or one per last-axis entry)."""
    dtype = ops.dtype_of(index_type.dtype)
    negative = emit("Less", [index, _scalar(emit, 0, dtype, "zero_index")], "negative")
    wrapped = emit("Add", [index, emit.const(np.asarray(sizes, dtype=dtype), "sizes")], "wrapped")
    return emit("Where", [negative, wrapped, index], "index")


def _positions(emit: Emitter, shape) -> str:
    """int64 ``0..n-1`` in row-major order, shaped ``shape``."""
    count = math.prod(shape)
    flat = emit("Range", [_scalar(emit, 0, np.int64, "start"), _scalar(emit, count, np.int64, "count"),
                          _scalar(emit, 1, np.int64, "step")], "order")
    return emit("Reshape", [flat, emit.ints(list(shape), "positions_shape")], "positions")


def _equal_or_both_nan(emit: Emitter, a: str, b: str, hint: str) -> str:
    same = emit("Equal", [a, b], f"{hint}_equal")
    both_nan = emit("And", [emit("IsNaN", [a], f"{hint}_nan"), emit("IsNaN", [b], f"{hint}_result_nan")],
                    f"{hint}_both_nan")
    return emit("Or", [same, both_nan], f"{hint}_matches")


# ---------------------------------------------------------------------- gathers
def _gather(emit, attrs, inputs, output, grad, wanted):
    (_, dt), (index, it) = inputs["data"], inputs["indices"]
    rank, q = dt.rank, it.rank
    axis = attrs["axis"] % rank
    wrapped = emit("Cast", [_wrap(emit, index, it, dt.shape[axis])], "index64", to=elem_type("int64"))
    column = emit("Unsqueeze", [wrapped, emit.ints([-1])], "index_column")
    to_front = [axis] + list(range(axis)) + list(range(axis + 1, rank))
    grad_order = list(range(axis, axis + q)) + list(range(axis)) + list(range(axis + q, rank - 1 + q))
    updates = grad if grad_order == sorted(grad_order) else emit("Transpose", [grad], "grad_moved", perm=grad_order)
    front_shape = [dt.shape[i] for i in to_front]
    summed = emit("ScatterND", [_fill(emit, front_shape, 0, ops.dtype_of(dt.dtype), "zeros"), column, updates],
                  "d_data_moved", reduction="add")
    if axis == 0:
        return {"data": summed}
    back = [int(i) for i in np.argsort(to_front)]
    return {"data": emit("Transpose", [summed], "d_data", perm=back)}


def _gather_elements(emit, attrs, inputs, output, grad, wanted):
    (_, dt), (index, it) = inputs["data"], inputs["indices"]
    axis = attrs["axis"] % dt.rank
    wrapped = _wrap(emit, index, it, dt.shape[axis])
    zeros = _fill(emit, dt.shape, 0, ops.dtype_of(dt.dtype), "zeros")
    return {"data": emit("ScatterElements", [zeros, wrapped, grad], "d_data", axis=axis, reduction="add")}


def _gather_nd(emit, attrs, inputs, output, grad, wanted):
    (_, dt), (index, it) = inputs["data"], inputs["indices"]
    batch, k = attrs.get("batch_dims", 0), it.shape[-1]
    full = _wrap(emit, index, it, list(dt.shape[batch:batch + k]))
    if batch:
        grid = np.moveaxis(np.indices(it.shape[:-1], dtype=np.int64)[:batch], 0, -1)
        full = emit("Concat", [emit.const(np.ascontiguousarray(grid), "batch_coordinates"), full], "full_index",
                    axis=-1)
    zeros = _fill(emit, dt.shape, 0, ops.dtype_of(dt.dtype), "zeros")
    return {"data": emit("ScatterND", [zeros, full, grad], "d_data", reduction="add")}


# ---------------------------------------------------------------------- scatters
class _Target:
    """How a scatter reaches its cells: ``gather(t)`` (a tensor of the data's shape, read at
    each update) and ``scatter(base, values, reduction)``, and the winner mask of each update
    under reduction none (broadcastable to the updates)."""

    def __init__(self, gather: Callable[[str], str], scatter: Callable[[str, str, str], str],
                 winner: Callable[[], str]) -> None:
        self.gather, self.scatter, self.winner = gather, scatter, winner


def _elements_target(emit, attrs, inputs) -> _Target:
    (_, dt), (index, it), (_, ut) = inputs["data"], inputs["indices"], inputs["updates"]
    axis = attrs.get("axis", 0) % dt.rank
    wrapped = _wrap(emit, index, it, dt.shape[axis])

    def gather(t: str) -> str:
        return emit("GatherElements", [t, wrapped], "at_updates", axis=axis)

    def scatter(base: str, values: str, reduction: str) -> str:
        return emit("ScatterElements", [base, wrapped, values], "per_cell", axis=axis, reduction=reduction)

    def winner() -> str:
        positions = _positions(emit, ut.shape)
        latest = scatter(_fill(emit, dt.shape, -1, np.int64, "no_update"), positions, "max")
        return emit("Equal", [gather(latest), positions], "won")

    return _Target(gather, scatter, winner)


def _nd_target(emit, attrs, inputs) -> _Target:
    (_, dt), (index, it) = inputs["data"], inputs["indices"]
    k = it.shape[-1]
    slots = list(it.shape[:-1])
    wrapped = _wrap(emit, index, it, list(dt.shape[:k]))

    def gather(t: str) -> str:
        return emit("GatherND", [t, wrapped], "at_updates")

    def scatter(base: str, values: str, reduction: str) -> str:
        return emit("ScatterND", [base, wrapped, values], "per_cell", reduction=reduction)

    def winner() -> str:
        positions = _positions(emit, slots)
        latest = scatter(_fill(emit, dt.shape[:k], -1, np.int64, "no_update"), positions, "max")
        won = emit("Equal", [gather(latest), positions], "won")
        trailing = list(range(len(slots), len(slots) + dt.rank - k))
        return emit("Unsqueeze", [won, emit.ints(trailing)], "won_cells") if trailing else won

    return _Target(gather, scatter, winner)


def _scatter_rule(emit, attrs, inputs, output, grad, wanted, target: _Target) -> dict[str, str]:
    (data, dt), (updates, ut) = inputs["data"], inputs["updates"]
    dtype = ops.dtype_of(dt.dtype)
    reduction = attrs.get("reduction", "none")
    zero = _scalar(emit, 0, dtype, "zero")
    out: dict[str, str] = {}
    if reduction == "none":
        if "data" in wanted:
            kept = target.scatter(_fill(emit, dt.shape, 1, dtype, "ones"),
                                  _fill(emit, ut.shape, 0, dtype, "zeros"), "none")
            out["data"] = emit("Mul", [grad, kept], "d_data")
        if "updates" in wanted:
            out["updates"] = emit("Where", [target.winner(), target.gather(grad), zero], "d_updates")
    elif reduction == "add":
        out["data"] = grad
        if "updates" in wanted:
            out["updates"] = target.gather(grad)
    elif reduction == "mul":
        one = _scalar(emit, 1, dtype, "one")
        is_zero = emit("Equal", [updates, zero], "update_is_zero")
        nonzero = emit("Where", [is_zero, one, updates], "nonzero_updates")
        product = target.scatter(_fill(emit, dt.shape, 1, dtype, "ones"), nonzero, "mul")
        zeros = target.scatter(_fill(emit, dt.shape, 0, dtype, "zeros"),
                               emit("Cast", [is_zero], "zero_count_each", to=elem_type(dt.dtype)), "add")
        no_zero = emit("Equal", [zeros, zero], "cell_has_no_zero")
        if "data" in wanted:
            out["data"] = emit("Mul", [grad, emit("Where", [no_zero, product, zero], "all_updates")], "d_data")
        if "updates" in wanted:
            product_u, zeros_u = target.gather(product), target.gather(zeros)
            others_nonzero = emit("Where", [target.gather(no_zero), emit("Div", [product_u, nonzero], "others"), zero],
                                  "others_if_nonzero")
            others_zero = emit("Where", [emit("Equal", [zeros_u, one], "only_zero"), product_u, zero], "others_if_zero")
            others = emit("Where", [is_zero, others_zero, others_nonzero], "product_of_others")
            scale = emit("Mul", [target.gather(grad), target.gather(data)], "grad_times_data")
            out["updates"] = emit("Mul", [scale, others], "d_updates")
    else:  # max, min
        result, _ = output
        data_match = _equal_or_both_nan(emit, data, result, "data")
        update_match = _equal_or_both_nan(emit, updates, target.gather(result), "update")
        count = emit("Add", [emit("Cast", [data_match], "data_count", to=elem_type(dt.dtype)),
                             target.scatter(_fill(emit, dt.shape, 0, dtype, "zeros"),
                                            emit("Cast", [update_match], "update_count", to=elem_type(dt.dtype)),
                                            "add")], "contributors")
        share = emit("Div", [grad, count], "share")
        if "data" in wanted:
            out["data"] = emit("Where", [data_match, share, zero], "d_data")
        if "updates" in wanted:
            out["updates"] = emit("Where", [update_match, target.gather(share), zero], "d_updates")
    return out


def _scatter_elements(emit, attrs, inputs, output, grad, wanted):
    return _scatter_rule(emit, attrs, inputs, output, grad, wanted, _elements_target(emit, attrs, inputs))


def _scatter_nd(emit, attrs, inputs, output, grad, wanted):
    return _scatter_rule(emit, attrs, inputs, output, grad, wanted, _nd_target(emit, attrs, inputs))


def _tensor_scatter(emit, attrs, inputs, output, grad, wanted):
    (_, ct), (_, ut) = inputs["past_cache"], inputs["update"]
    write, _ = inputs.get("write_indices", ("", None))
    axis = attrs.get("axis", -2) % ct.rank
    dtype = ops.dtype_of(ct.dtype)
    out: dict[str, str] = {}
    if "past_cache" in wanted:
        zeros = _fill(emit, ut.shape, 0, dtype, "zeros")
        out["past_cache"] = emit("TensorScatter", [grad, zeros] + ([write] if write else []), "d_past_cache",
                                 axis=attrs.get("axis", -2), mode=attrs.get("mode", "linear"))
    if "update" in wanted:
        along = [1] * ct.rank
        along[axis] = ut.shape[axis]
        positions = emit.const(np.arange(ut.shape[axis], dtype=np.int64).reshape(along), "steps")
        if write:
            starts = emit("Cast", [write], "starts", to=elem_type("int64"))
            per_batch = [ct.shape[0]] + [1] * (ct.rank - 1)
            positions = emit("Add", [emit("Reshape", [starts, emit.ints(per_batch)], "start_each"), positions],
                             "written_at")
        if attrs.get("mode", "linear") == "circular":
            positions = emit("Mod", [positions, _scalar(emit, max(ct.shape[axis], 1), np.int64, "length")],
                             "wrapped_at")
        positions = emit("Expand", [positions, emit.ints(list(ut.shape))], "positions")
        out["update"] = emit("GatherElements", [grad, positions], "d_update", axis=axis)
    return out


_RULES = {
    "Gather": _gather,
    "GatherElements": _gather_elements,
    "GatherND": _gather_nd,
    "Scatter": _scatter_elements,
    "ScatterElements": _scatter_elements,
    "ScatterND": _scatter_nd,
    "TensorScatter": _tensor_scatter,
}
