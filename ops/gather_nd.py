"""GatherND (opsets 11, 12 with batch_dims, 13).

    output[b.., i..] = data[b.., *indices[b.., i.., :]]

``indices`` has shape ``batch + m + (k,)``: each k-tuple indexes the k data axes after the
``batch_dims`` leading batch axes and picks an element (k == r - b) or a slice. The output keeps
the batch dimensions: ``indices.shape[:-1] + data.shape[b+k:]`` (as onnxruntime and ONNX's shape
inference do).

Index map: rows over ``indices.shape[:-1]``, blocks of ``data.shape[b+k:]``.
"""
from __future__ import annotations

from math import prod

import numpy as np

from . import accel
from .apply import take_rows
from .checks import (
    checked_once,
    dims_equal,
    fmt_shape,
    normalize_index_tuples,
    numpy_checks_index_type,
    require_data_dtype,
    require_rank_at_least,
)
from .dtypes import as_tensor
from .errors import OpError, ShapeUnknownError
from .index_map import IndexMap, tuple_rows
from .small_calls import plain
from .tensor_type import is_known

OP = "GatherND"


def nd_check(op: str, data_shape: tuple, indices_shape: tuple, batch_dims: int) -> int | None:
    """Shared by GatherND and ScatterND. Returns k, the tuple length (None when the last
    dimension of indices is unknown or symbolic: known only at run time); OpError on bad shapes
    or a ``batch_dims`` that is not an integer (bool included, as for ``axis``)."""
    require_rank_at_least(op, "data", data_shape, 1)
    require_rank_at_least(op, "indices", indices_shape, 1)
    if isinstance(batch_dims, (bool, np.bool_)) or not isinstance(batch_dims, (int, np.integer)):
        raise OpError(f"{op}: batch_dims must be an integer, got {batch_dims!r}")
    r, q = len(data_shape), len(indices_shape)
    if batch_dims < 0 or batch_dims >= min(r, q):
        raise OpError(
            f"{op}: batch_dims={batch_dims} must be in 0..{min(r, q) - 1} for data {fmt_shape(data_shape)} "
            f"and indices {fmt_shape(indices_shape)}"
        )
    for d in range(batch_dims):
        if not dims_equal(data_shape[d], indices_shape[d]):
            raise OpError(
                f"{op}: batch dimension {d} differs: data {fmt_shape(data_shape)}, indices {fmt_shape(indices_shape)}",
                port="indices",
            )
    k = indices_shape[-1]
    if not is_known(k):
        return None
    if k > r - batch_dims:
        raise OpError(
            f"{op}: indices.shape[-1] = {k} exceeds the rank of data minus batch_dims ({r} - {batch_dims}); "
            f"data {fmt_shape(data_shape)}, indices {fmt_shape(indices_shape)}", port="indices"
        )
    return k


def gather_nd_output_shape(data_shape: tuple, indices_shape: tuple, batch_dims: int = 0) -> tuple:
    k = nd_check(OP, data_shape, indices_shape, batch_dims)
    if k is None:
        raise ShapeUnknownError(f"{OP}: the output rank depends on the last dimension of indices, "
                                f"which is known only at run time; indices {fmt_shape(indices_shape)}")
    return tuple(indices_shape[:-1]) + tuple(data_shape[batch_dims + k:])


def nd_rows(op: str, data_shape: tuple, indices: np.ndarray, batch_dims: int) -> np.ndarray:
    """Row numbers (in units of the slice ``data.shape[b+k:]``) for every tuple of ``indices``."""
    b = batch_dims
    k = indices.shape[-1]
    indexed = tuple(data_shape[b:b + k])
    idx = normalize_index_tuples(op, "indices", indices, indexed, b)
    rows = tuple_rows(idx, indexed)
    if b:
        per_batch = prod(indexed)
        batch = (np.arange(prod(data_shape[:b]), dtype=np.int64) * per_batch)
        rows = rows + batch.reshape(tuple(data_shape[:b]) + (1,) * (indices.ndim - 1 - b))
    return np.asarray(rows, dtype=np.int64)


def gather_nd_index_map(data: np.ndarray, indices: np.ndarray, batch_dims: int = 0) -> IndexMap:
    data, indices = np.asarray(data), np.asarray(indices)
    shape = gather_nd_output_shape(data.shape, indices.shape, batch_dims)
    rows = nd_rows(OP, data.shape, indices, batch_dims)
    k = indices.shape[-1]
    return IndexMap("gather", rows, tuple(data.shape[batch_dims + k:]), shape, tuple(data.shape))


def gather_nd(data, indices, batch_dims: int = 0) -> np.ndarray:
    """ONNX GatherND; the output keeps the batch dimensions (see module docstring).

    Applies the index map with ``take_rows``; with the accelerator on and ``batch_dims`` 0, its
    compiled row gather (:func:`ops.accel.gather_tuples`: the same rows, checked as it copies;
    on a bad index the index map raises the error). Below :data:`ops.accel.SMALL_WORK` moved
    elements (batch_dims 0) the small route goes first (:func:`_small_route`)."""
    data, indices = as_tensor(data, f"{OP}: data"), np.asarray(indices)
    require_data_dtype(OP, "data", data)
    if batch_dims == 0 and indices.ndim >= 1 and data.ndim >= 1:
        k = indices.shape[-1]
        moved = indices.size // max(k, 1) * prod(data.shape[k:])
        if accel.small(moved) and 0 < k <= data.ndim and data.size:
            checked_once((OP, data.shape, indices.shape, batch_dims, type(batch_dims)),
                         lambda: gather_nd_output_shape(data.shape, indices.shape, batch_dims))
            small = _small_route(data, indices, k, moved)
            out = None if small is None else small(data, indices)
            if out is not None:
                return out
        elif k <= data.ndim and accel.supports_tuples(data, indices, k, moved) and accel.enabled():
            gather_nd_output_shape(data.shape, indices.shape, 0)
            out = accel.gather_tuples(data, indices, k)
            if out is not None:
                return out
    return take_rows(data, gather_nd_index_map(data, indices, batch_dims))


def _small_route(data: np.ndarray, indices: np.ndarray, k: int, moved: int):
    """GatherND's small route (batch_dims 0, below :data:`ops.accel.SMALL_WORK` moved elements,
    shapes checked), as a function of ``(data, indices)`` that returns None for a bad index (the
    index map then names it), or None where none applies: the compiled row gather in one call
    where it runs (:func:`ops.accel.gather_tuples_plan`), else numpy's fancy indexing by the
    index columns, whose own check reads the indices as ONNX does
    (:func:`ops.checks.numpy_checks_index_type`; not for a 0-d result, which numpy gives as a
    scalar)."""
    if accel.supports_tuples(data, indices, k, moved) and accel.enabled():
        one_call = accel.gather_tuples_plan(data, indices, k)
        if one_call is not None:
            return one_call
    if indices.ndim < 2 or not numpy_checks_index_type(indices.dtype):
        return None

    def pick(data: np.ndarray, indices: np.ndarray) -> np.ndarray | None:
        try:
            return data[tuple(indices[..., c] for c in range(k))]
        except IndexError:
            return None

    return pick


def gather_nd_plan(data: np.ndarray, indices: np.ndarray, batch_dims: int = 0):
    """The plan of a GatherND call :func:`gather_nd` has accepted (:mod:`ops.small_calls`): its
    small route where that applies; None otherwise."""
    if batch_dims != 0 or not plain(data):
        return None
    k = indices.shape[-1]
    moved = indices.size // max(k, 1) * prod(data.shape[k:])
    if accel.small(moved) and 0 < k <= data.ndim and data.size:
        return _small_route(data, indices, k, moved)
    return None
