"""ScatterElements (opsets 11, 13, 16 reduction none/add/mul, 18 max/min) and Scatter (9, 10).

    output = copy(data)
    output[i0, .., indices[i0, .., i(r-1)], .., i(r-1)] = f(output[...], updates[i0, .., i(r-1)])

Index map: one row per update element (block 1); ``rows`` are flat offsets into ``data``.
Duplicates with reduction none: the last update in row-major order wins. Reductions fold in
row-major order.
"""
from __future__ import annotations

import numpy as np

from . import accel, buffers
from .apply import check_reduction, copier, put_rows
from .checks import check_same_dtype, checked_once, dims_equal, fmt_shape, normalize_axis, require_data_dtype
from .dtypes import as_tensor
from .errors import OpError
from .gather_elements import elementwise_output_shape, elementwise_rows
from .index_map import IndexMap
from .small_calls import plain

OP = "ScatterElements"


def scatter_elements_output_shape(data_shape: tuple, indices_shape: tuple, updates_shape: tuple, axis: int = 0,
                                  op: str = OP) -> tuple:
    """``data_shape``; OpError unless updates has the shape of indices and indices fits data."""
    elementwise_output_shape(op, data_shape, indices_shape, axis)
    if tuple(updates_shape) != tuple(indices_shape) and not (
        len(updates_shape) == len(indices_shape)
        and all(dims_equal(u, i) for u, i in zip(updates_shape, indices_shape, strict=True))
    ):
        raise OpError(
            f"{op}: updates shape {fmt_shape(updates_shape)} must equal indices shape {fmt_shape(indices_shape)}",
            port="updates",
        )
    return tuple(data_shape)


def scatter_elements_index_map(data: np.ndarray, indices: np.ndarray, updates_shape: tuple | None = None,
                               axis: int = 0, op: str = OP) -> IndexMap:
    """Where each update element is written. ``updates_shape`` defaults to ``indices.shape``."""
    data, indices = np.asarray(data), np.asarray(indices)
    updates_shape = indices.shape if updates_shape is None else tuple(updates_shape)
    scatter_elements_output_shape(data.shape, indices.shape, updates_shape, axis, op)
    rows = elementwise_rows(op, data.shape, indices, axis)
    return IndexMap("scatter", rows, (), tuple(indices.shape), tuple(data.shape))


def _checked_axis(op: str, data_shape: tuple, indices_shape: tuple, updates_shape: tuple, axis: int) -> int:
    scatter_elements_output_shape(data_shape, indices_shape, updates_shape, axis, op)
    return normalize_axis(op, axis, len(data_shape))


def scatter_elements(data, indices, updates, axis: int = 0, reduction: str = "none") -> np.ndarray:
    """ONNX ScatterElements: a copy of ``data`` with ``updates`` written along ``axis``."""
    return _scatter_elements(OP, data, indices, updates, axis, reduction)


def scatter(data, indices, updates, axis: int = 0) -> np.ndarray:
    """ONNX Scatter (opsets 9 and 10): ScatterElements with reduction none."""
    return _scatter_elements("Scatter", data, indices, updates, axis, "none")


def _scatter_elements(op, data, indices, updates, axis, reduction) -> np.ndarray:
    """Validation, then with the accelerator the compiled kernel on the raw indices
    (:func:`ops.accel.scatter_elements`: the index map's formula applied as it is computed,
    the same writes in the same order); otherwise, or when it meets a bad index, the index map
    and :func:`ops.apply.put_rows`, which raise the exact error."""
    data, updates, indices = as_tensor(data, f"{op}: data"), as_tensor(updates, f"{op}: updates"), np.asarray(indices)
    require_data_dtype(op, "data", data)
    require_data_dtype(op, "updates", updates)
    check_same_dtype(op, data, updates)
    a = checked_once((op, data.shape, indices.shape, updates.shape, axis, type(axis)),
                     lambda: _checked_axis(op, data.shape, indices.shape, updates.shape, axis))
    check_reduction(op, reduction, data)
    if accel.supports_scatter_elements(data.dtype, indices, reduction) and accel.enabled():
        out = buffers.empty(data.shape, data.dtype)  # data's copy, made by the kernel's caller or by its folds
        if accel.scatter_elements(out, indices, updates, a, reduction, source=data):
            return out
    imap = scatter_elements_index_map(data, indices, updates.shape, axis, op)
    columns_stay = data.ndim >= 2 and a != data.ndim - 1
    return put_rows(op, data, imap, updates, reduction, columns_stay=columns_stay)


def scatter_elements_plan(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int = 0,
                          reduction: str = "none"):
    """The plan of a ScatterElements call the kernel has accepted (:mod:`ops.small_calls`), where
    the compiled kernel runs: a copy of data (:func:`ops.apply.copier`), then the kernel in one
    call (:func:`ops.accel.scatter_elements_plan`) where one thread does the work, else
    :func:`ops.accel.scatter_elements` on a new array and data (it copies data, or has its
    packed folds write the new array whole) and splits the work across threads itself; None
    otherwise."""
    if not plain(data) or not accel.supports_scatter_elements(data.dtype, indices, reduction) \
            or not accel.enabled():
        return None
    a = normalize_axis(OP, axis, data.ndim)
    scatter = accel.scatter_elements_plan(data, indices, a, reduction)
    if scatter is None:  # split work: the kernel's caller copies data, or its folds do
        shape, dtype = data.shape, data.dtype

        def split_call(data: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray | None:
            out = buffers.empty(shape, dtype)
            return out if accel.scatter_elements(out, indices, updates, a, reduction, source=data) else None

        return split_call
    copy = copier(data)

    def one_call(data: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray | None:
        out = copy(data)
        return out if scatter(out, indices, updates) else None

    return one_call


def scatter_plan(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, axis: int = 0):
    """The plan of a Scatter call: ScatterElements' with reduction none."""
    return scatter_elements_plan(data, indices, updates, axis, "none")
