"""Gather (opsets 1, 11, 13).

    output[j0..j(a-1), i0..i(q-1), j(a+1)..j(r-1)] = data[j0..j(a-1), indices[i0..i(q-1)], j(a+1)..j(r-1)]

Index map: rows over ``data.shape[:axis] + indices.shape``, blocks of ``data.shape[axis+1:]``.
"""
from __future__ import annotations

from math import prod

import numpy as np

from . import accel, parallel
from .apply import take_axis
from .checks import (
    checked_once,
    normalize_axis,
    normalize_indices,
    numpy_checks_index_type,
    require_data_dtype,
    require_rank_at_least,
)
from .dtypes import as_tensor
from .errors import IndexOutOfRangeError
from .index_map import IndexMap
from .small_calls import plain

OP = "Gather"
#: Below this many output elements (where :func:`ops.apply.take_axis` runs in one thread
#: anyway) Gather is one ``np.take`` with numpy's own range check (``mode="raise"``, which
#: reads negative indices as ONNX does): no separate pass over the indices, no pooled buffer.
SMALL_TAKE = 2 * parallel.MIN_PART


def gather_output_shape(data_shape: tuple, indices_shape: tuple, axis: int = 0) -> tuple:
    """``data.shape[:axis] + indices.shape + data.shape[axis+1:]``; OpError for a bad rank or axis."""
    require_rank_at_least(OP, "data", data_shape, 1)
    a = normalize_axis(OP, axis, len(data_shape))
    return tuple(data_shape[:a]) + tuple(indices_shape) + tuple(data_shape[a + 1:])


def _checked_axis(data_shape: tuple, indices_shape: tuple, axis: int) -> int:
    gather_output_shape(data_shape, indices_shape, axis)
    return normalize_axis(OP, axis, len(data_shape))


def gather_index_map(data: np.ndarray, indices: np.ndarray, axis: int = 0) -> IndexMap:
    """Which data row each output block reads (see module docstring). The kernel takes a faster
    route (``apply.take_axis``) to the same cells; tests check that the two agree."""
    data, indices = np.asarray(data), np.asarray(indices)
    element_shape = gather_output_shape(data.shape, indices.shape, axis)
    a = normalize_axis(OP, axis, data.ndim)
    size = data.shape[a]
    idx = normalize_indices(OP, "indices", indices, size, a)
    outer_shape = data.shape[:a]
    if outer_shape:
        outer = (np.arange(prod(outer_shape), dtype=np.int64) * size).reshape(outer_shape + (1,) * idx.ndim)
        rows = outer + idx
    else:
        rows = idx
    rows = np.asarray(rows, dtype=np.int64)  # the contract: int64 rows, whatever the index type
    return IndexMap("gather", rows, tuple(data.shape[a + 1:]), element_shape, tuple(data.shape))


def gather(data, indices, axis: int = 0) -> np.ndarray:
    """ONNX Gather: entries of ``data`` along ``axis`` picked by ``indices`` (negative allowed).

    Applies the index map in factored form (:func:`ops.apply.take_axis`). With the accelerator
    on, axis 0 with rows and a table large enough (:func:`ops.accel.supports_rows`: the table
    beyond the per-core caches) runs its compiled row gather
    (:func:`ops.accel.gather_tuples`, the same rows, checked as it copies; on a bad index the
    numpy path below raises the error). The last axis (not the first) runs its compiled
    element gather (:func:`ops.accel.gather_last`): for int32/int64 indices and work of one
    thread, in one call that checks the indices too (:func:`ops.accel.gather_last_plan`), else
    on the indices the numpy path normalised.
    (:func:`_compiled_route` chooses, for this function and its plan.) Otherwise small outputs
    take the small route (:func:`_small_take`)."""
    data, indices = as_tensor(data, f"{OP}: data"), np.asarray(indices)
    require_data_dtype(OP, "data", data)
    a = checked_once((OP, data.shape, indices.shape, axis, type(axis)),
                     lambda: _checked_axis(data.shape, indices.shape, axis))
    moved = indices.size * (data.size // max(data.shape[a], 1))
    route = _compiled_route(data, indices, a, moved)
    if route is not None:
        out = route(data, indices)
        if out is not None:
            return out
    take = _small_take(data, indices, a, moved)
    if take is not None:
        out = take(data, indices)
        if out is not None:
            return out
    idx = normalize_indices(OP, "indices", indices, data.shape[a], a)
    return take_axis(data, idx, a)


def _small_take(data: np.ndarray, indices: np.ndarray, a: int, moved: int):
    """Gather's small route: outputs below :data:`SMALL_TAKE` elements with indices of at most
    64 bits (not uint64, whose top values a cast would wrap), not 0-d (np.take gives a scalar
    there), are one ``np.take`` with numpy's own range check (``mode="raise"`` reads negatives
    as ONNX does), as a function of ``(data, indices)`` that returns None on a bad index (the
    long path then names it); None when the route does not apply."""
    if not (0 < moved < SMALL_TAKE and numpy_checks_index_type(indices.dtype) and (indices.ndim or data.ndim > 1)):
        return None

    def take(data: np.ndarray, indices: np.ndarray) -> np.ndarray | None:
        try:
            return data.take(indices, axis=a)
        except IndexError:
            return None

    return take


def gather_plan(data: np.ndarray, indices: np.ndarray, axis: int = 0):
    """The plan of a Gather call :func:`gather` has accepted (:mod:`ops.small_calls`): its
    compiled route where one runs (:func:`_compiled_route`), else its small route; None
    otherwise."""
    if not plain(data):
        return None
    a = normalize_axis(OP, axis, data.ndim)
    moved = indices.size * (data.size // max(data.shape[a], 1))
    route = _compiled_route(data, indices, a, moved)
    return route if route is not None else _small_take(data, indices, a, moved)


def _compiled_route(data: np.ndarray, indices: np.ndarray, a: int, moved: int):
    """Gather's compiled route for the shapes and dtypes of ``data`` and ``indices``, as a
    function of ``(data, indices)`` that returns the result, or None for a bad index (the numpy
    path then names it); None where no compiled route runs. Axis 0: the row gather
    (:func:`ops.accel.gather_tuples`, tables beyond the per-core caches,
    :func:`ops.accel.supports_rows`); the last axis: :func:`ops.accel.gather_last_plan` (the
    indices checked in the kernel's call) where it applies, else :func:`_last_axis_route`. All
    three split their work across threads when they run, or do work of one part."""
    if a == 0:
        return _rows_route if accel.supports_rows(data, indices, moved) and accel.enabled() else None
    if accel.supports_last_axis(data, indices, a) and accel.enabled():
        return accel.gather_last_plan(data, indices) or _last_axis_route(data.shape[a], a)
    return None


def _rows_route(data: np.ndarray, indices: np.ndarray) -> np.ndarray | None:
    return accel.gather_tuples(data, indices[..., None], 1)


def _last_axis_route(size: int, a: int):
    """The compiled route on the last axis: the indices normalised
    (:func:`ops.checks.normalize_indices`), then :func:`ops.accel.gather_last`; None for a bad
    index."""
    def last_axis(data: np.ndarray, indices: np.ndarray) -> np.ndarray | None:
        try:
            idx = normalize_indices(OP, "indices", indices, size, a)
        except IndexOutOfRangeError:
            return None
        return accel.gather_last(data, idx)

    return last_axis
