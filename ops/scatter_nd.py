"""ScatterND (opsets 11, 13, 16 reduction none/add/mul, 18 max/min).

    output = copy(data)
    for idx in ndindex(indices.shape[:-1]):
        output[indices[idx]] = f(output[indices[idx]], updates[idx])

``updates.shape == indices.shape[:-1] + data.shape[k:]``. Index map: rows over
``indices.shape[:-1]``, blocks of ``data.shape[k:]``. Duplicates with reduction none: the last
update in row-major order wins; reductions fold in row-major order.
"""
from __future__ import annotations

from math import prod

import numpy as np

from . import accel
from .apply import copy_of, put_rows
from .checks import (
    check_same_dtype,
    checked_once,
    fmt_shape,
    numpy_checks_index_type,
    require_data_dtype,
    shapes_equal,
)
from .dtypes import as_tensor
from .errors import OpError
from .gather_nd import nd_check, nd_rows
from .index_map import IndexMap, checked_tuple_rows
from .small_calls import plain

OP = "ScatterND"


def scatter_nd_output_shape(data_shape: tuple, indices_shape: tuple, updates_shape: tuple) -> tuple:
    k = nd_check(OP, data_shape, indices_shape, 0)
    if k is None:  # the tuple length is known only at run time, where the kernel checks updates
        return tuple(data_shape)
    expected = tuple(indices_shape[:-1]) + tuple(data_shape[k:])
    if not shapes_equal(tuple(updates_shape), expected):
        raise OpError(
            f"{OP}: updates shape {fmt_shape(updates_shape)} must be indices.shape[:-1] + data.shape[{k}:] = "
            f"{fmt_shape(expected)} (data {fmt_shape(data_shape)}, indices {fmt_shape(indices_shape)})",
            port="updates",
        )
    return tuple(data_shape)


def scatter_nd_index_map(data: np.ndarray, indices: np.ndarray, updates_shape: tuple | None = None) -> IndexMap:
    data, indices = np.asarray(data), np.asarray(indices)
    k = nd_check(OP, data.shape, indices.shape, 0)
    element_shape = tuple(indices.shape[:-1]) + tuple(data.shape[k:])
    if updates_shape is not None:
        scatter_nd_output_shape(data.shape, indices.shape, updates_shape)
    rows = nd_rows(OP, data.shape, indices, 0)
    return IndexMap("scatter", rows, tuple(data.shape[k:]), element_shape, tuple(data.shape))


def scatter_nd(data, indices, updates, reduction: str = "none") -> np.ndarray:
    """ONNX ScatterND: a copy of ``data`` with slices replaced (or reduced) by ``updates``.

    Applies the index map with ``put_rows``; with the accelerator on and reduction none, its
    compiled row scatter, which makes the copy of data too (:func:`ops.accel.scatter_tuples`:
    the same rows in the same order, checked as it writes; on a bad index the index map raises
    the error). Below :data:`ops.accel.SMALL_WORK` updates the small route goes first
    (:func:`_small_route`)."""
    data, updates, indices = as_tensor(data, f"{OP}: data"), as_tensor(updates, f"{OP}: updates"), np.asarray(indices)
    require_data_dtype(OP, "data", data)
    require_data_dtype(OP, "updates", updates)
    check_same_dtype(OP, data, updates)
    k = indices.shape[-1] if indices.ndim else 0
    if accel.small(updates.size) and 0 < k <= data.ndim and data.size:
        checked_once((OP, data.shape, indices.shape, updates.shape),
                     lambda: scatter_nd_output_shape(data.shape, indices.shape, updates.shape))
        out = _small_route(data, indices, updates, reduction)(data, indices, updates)
        if out is not None:
            return out
    elif reduction == "none" and accel.supports_tuples(data, indices, k, updates.size) and accel.enabled():
        checked_once((OP, data.shape, indices.shape, updates.shape),
                     lambda: scatter_nd_output_shape(data.shape, indices.shape, updates.shape))
        out = accel.scatter_tuples(data, indices, updates)
        if out is not None:
            return out
    imap = scatter_nd_index_map(data, indices, updates.shape)
    return put_rows(OP, data, imap, updates, reduction)


def _small_route(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, reduction: str):
    """ScatterND's small route (below :data:`ops.accel.SMALL_WORK` updates, shapes checked), as
    a function of ``(data, indices, updates)`` that returns None for a bad index (the index map
    then names it). Reduction none on elements (k = rank): numpy's fancy assignment by the
    index columns, whose own check reads the indices as ONNX does
    (:func:`ops.checks.numpy_checks_index_type`; in row-major order, so the last duplicate wins,
    as ``put_rows``' assignment). Reduction none on blocks: the compiled row scatter in one call
    where it runs (:func:`ops.accel.scatter_tuples_plan`). Otherwise the index map's rows from
    one checking pass (:func:`ops.index_map.checked_tuple_rows`; a negative index also goes the
    index map's way), then the compiled fold where it runs (:func:`ops.accel.fold_rows_plan`),
    else :func:`ops.apply.put_rows`."""
    k = indices.shape[-1]
    lead, block = data.shape[:k], prod(data.shape[k:])
    if reduction == "none" and k == data.ndim and indices.ndim >= 2 and numpy_checks_index_type(indices.dtype):
        def assign(data: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray | None:
            out = copy_of(data)
            if not (indices.flags.c_contiguous and updates.flags.c_contiguous):
                # numpy assigns in row-major order only for C-ordered operands (a Fortran-ordered
                # or reversed view was assigned in memory order: an earlier duplicate won)
                indices, updates = np.ascontiguousarray(indices), np.ascontiguousarray(updates)
            try:
                out[tuple(indices[..., c] for c in range(k))] = updates
            except IndexError:
                return None
            return out

        return assign
    if reduction == "none" and accel.supports_tuples(data, indices, k, updates.size) and accel.enabled():
        scatter = accel.scatter_tuples_plan(data, indices)
        if scatter is not None:
            def one_call(data: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray | None:
                out = copy_of(data)
                return out if scatter(out, indices, updates) else None

            return one_call
    fold = None
    if reduction != "none" and accel.supports_fold(data.dtype, reduction, updates.size) and accel.enabled():
        fold = accel.fold_rows_plan(data.dtype, block, prod(lead), reduction, updates.size)
    if fold is not None:
        def fold_rows(data: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray | None:
            rows = checked_tuple_rows(indices, lead)
            if rows is None:
                return None
            out = copy_of(data)  # put_rows' compiled fold, without the map object
            fold(out, rows, updates)
            return out

        return fold_rows
    shape, target = tuple(updates.shape), tuple(data.shape)

    def put(data: np.ndarray, indices: np.ndarray, updates: np.ndarray) -> np.ndarray | None:
        rows = checked_tuple_rows(indices, lead)
        if rows is None:
            return None
        return put_rows(OP, data, IndexMap("scatter", rows, target[k:], shape, target), updates, reduction)

    return put


def scatter_nd_plan(data: np.ndarray, indices: np.ndarray, updates: np.ndarray, reduction: str = "none"):
    """The plan of a ScatterND call :func:`scatter_nd` has accepted (:mod:`ops.small_calls`): its
    small route where that applies; None otherwise."""
    k = indices.shape[-1] if indices.ndim else 0
    if plain(data) and accel.small(updates.size) and 0 < k <= data.ndim and data.size:
        return _small_route(data, indices, updates, reduction)
    return None
