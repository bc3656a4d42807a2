"""GatherElements (opsets 11, 13).

    output[i0, .., i(r-1)] = data[i0, .., indices[i0, .., i(r-1)], .., i(r-1)]   (the index replaces axis ``axis``)

Index map: one row per element (block 1); ``rows`` are flat offsets into ``data``.
"""
from __future__ import annotations

import numpy as np

from . import accel
from .apply import take_elements, take_rows
from .checks import (
    checked_once,
    fmt_shape,
    normalize_axis,
    normalize_indices,
    require_data_dtype,
    require_rank_at_least,
)
from .dtypes import as_tensor
from .errors import OpError
from .index_map import IndexMap, elementwise_offsets
from .small_calls import plain
from .tensor_type import is_known

OP = "GatherElements"


def elementwise_output_shape(op: str, data_shape: tuple, indices_shape: tuple, axis: int) -> tuple:
    """Shared by GatherElements and ScatterElements: same rank, and every non-axis dimension of
    indices no larger than data's. Returns ``indices_shape``."""
    require_rank_at_least(op, "data", data_shape, 1)
    a = normalize_axis(op, axis, len(data_shape))
    if len(indices_shape) != len(data_shape):
        raise OpError(
            f"{op}: indices must have the rank of data; "
            f"data {fmt_shape(data_shape)}, indices {fmt_shape(indices_shape)}", port="indices"
        )
    for d, (n_idx, n_data) in enumerate(zip(indices_shape, data_shape, strict=True)):
        if d != a and is_known(n_idx) and is_known(n_data) and n_idx > n_data:
            raise OpError(
                f"{op}: indices dimension {d} ({n_idx}) exceeds data dimension {d} ({n_data}); "
                f"data {fmt_shape(data_shape)}, indices {fmt_shape(indices_shape)}, axis {a}", port="indices"
            )
    return tuple(indices_shape)


def elementwise_rows(op: str, data_shape: tuple, indices: np.ndarray, axis: int) -> np.ndarray:
    """Flat offsets into data for each element of ``indices`` (the index replaces the axis coordinate)."""
    a = normalize_axis(op, axis, len(data_shape))
    idx = normalize_indices(op, "indices", indices, data_shape[a], a)
    return elementwise_offsets(idx, tuple(data_shape), a)


def _checked_axis(data_shape: tuple, indices_shape: tuple, axis: int) -> int:
    elementwise_output_shape(OP, data_shape, indices_shape, axis)
    return normalize_axis(OP, axis, len(data_shape))


def gather_elements_index_map(data: np.ndarray, indices: np.ndarray, axis: int = 0) -> IndexMap:
    data, indices = np.asarray(data), np.asarray(indices)
    shape = elementwise_output_shape(OP, data.shape, indices.shape, axis)
    rows = elementwise_rows(OP, data.shape, indices, axis)
    return IndexMap("gather", rows, (), shape, tuple(data.shape))


def gather_elements(data, indices, axis: int = 0) -> np.ndarray:
    """ONNX GatherElements: output has the shape of ``indices``; each index picks along ``axis``.

    With the accelerator on, numeric data of 1, 2, 4 or 8 bytes runs the compiled kernel
    (:func:`ops.accel.gather_elements`, any axis; it checks the indices as it copies, and on a
    bad index the numpy path below raises the error). Numpy: with ``axis > 0``
    :func:`ops.apply.take_elements` (the index map's formula applied slab by slab, without
    materialising it); otherwise the index map and ``take_rows``.
    """
    data, indices = as_tensor(data, f"{OP}: data"), np.asarray(indices)
    require_data_dtype(OP, "data", data)
    a = checked_once((OP, data.shape, indices.shape, axis, type(axis)),
                     lambda: _checked_axis(data.shape, indices.shape, axis))
    if accel.supports_gather_elements(data, indices, a) and accel.enabled():
        out = accel.gather_elements(data, indices, a)
        if out is not None:
            return out
    if a > 0 and not data.dtype.hasobject:
        return take_elements(data, normalize_indices(OP, "indices", indices, data.shape[a], a), a)
    return take_rows(data, gather_elements_index_map(data, indices, axis))


def gather_elements_plan(data: np.ndarray, indices: np.ndarray, axis: int = 0):
    """The plan of a GatherElements call :func:`gather_elements` has accepted
    (:mod:`ops.small_calls`), where its compiled kernel runs: the accelerator's plan
    (:func:`ops.accel.gather_elements_plan`: one kernel call, or the work split across threads
    as it runs), or where that declines (split work of very many rows)
    :func:`ops.accel.gather_elements`; None otherwise."""
    if not plain(data):
        return None
    a = normalize_axis(OP, axis, data.ndim)
    if not (accel.supports_gather_elements(data, indices, a) and accel.enabled()):
        return None
    one_call = accel.gather_elements_plan(data, indices, a)
    if one_call is not None:
        return one_call
    return lambda data, indices: accel.gather_elements(data, indices, a)
