"""ScatterND (opsets 11, 13, 16 reduction none/add/mul, 18 max/min).

    output = copy(data)
    for idx in ndindex(indices.shape[:-1]):
        output[indices[idx]] = f(output[indices[idx]], updates[idx])

``updates.shape == indices.shape[:-1] + data.shape[k:]``. Index map: rows over
``indices.shape[:-1]``, blocks of ``data.shape[k:]``. Duplicates with reduction none: the last
update in row-major order wins; reductions fold in row-major order.
"""
from __future__ import annotations

import numpy as np

from . import accel
from .apply import copy_of, put_rows
from .checks import check_same_dtype, checked_once, fmt_shape, require_data_dtype, shapes_equal
from .dtypes import as_tensor
from .errors import OpError
from .gather_nd import nd_check, nd_rows
from .index_map import IndexMap, checked_tuple_rows

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
    compiled row scatter (:func:`ops.accel.scatter_tuples`: the same rows in the same order,
    checked as it writes; on a bad index the index map raises the error). Below
    :data:`ops.accel.SMALL_WORK` updates, in-range non-negative indices make the index map's
    rows in one checking pass (:func:`ops.index_map.checked_tuple_rows`) instead."""
    data, updates, indices = as_tensor(data, f"{OP}: data"), as_tensor(updates, f"{OP}: updates"), np.asarray(indices)
    require_data_dtype(OP, "data", data)
    require_data_dtype(OP, "updates", updates)
    check_same_dtype(OP, data, updates)
    k = indices.shape[-1] if indices.ndim else 0
    if accel.small(updates.size) and 0 < k <= data.ndim and data.size:
        checked_once((OP, data.shape, indices.shape, updates.shape),
                     lambda: scatter_nd_output_shape(data.shape, indices.shape, updates.shape))
        rows = checked_tuple_rows(indices, data.shape[:k])
        if rows is not None and reduction == "none" and k == data.ndim:
            out = copy_of(data)  # elements (block 1): put_rows' fancy assignment, without the map object
            out.reshape(-1)[rows.reshape(-1)] = updates.reshape(-1)
            return out
        if rows is not None:  # all in range: the index map's rows, without normalising them first
            imap = IndexMap("scatter", rows, tuple(data.shape[k:]), tuple(updates.shape), tuple(data.shape))
            return put_rows(OP, data, imap, updates, reduction)
    elif reduction == "none" and accel.supports_tuples(data, indices, k, updates.size) and accel.enabled():
        scatter_nd_output_shape(data.shape, indices.shape, updates.shape)
        out = copy_of(data)
        if accel.scatter_tuples(out, indices, updates):
            return out
    imap = scatter_nd_index_map(data, indices, updates.shape)
    return put_rows(OP, data, imap, updates, reduction)
