"""TensorScatter (opset 24): the KV-cache write.

    for p in ndindex(past_cache.shape[:axis]):            # p[0] is the batch index
        for s in range(sequence_length):
            t = write_indices[p[0]] + s                   # circular: t % max_sequence_length
            present_cache[(*p, t)] = update[(*p, s)]

``update`` has the shape of ``past_cache`` except on ``axis`` (sequence_length <=
max_sequence_length); ``axis`` may not be the batch axis 0. Linear mode refuses a write past the
end (IndexOutOfRangeError naming the sample), also when the update is empty (sequence_length
0: every write index must lie in ``0..max_sequence_length``, as onnxruntime checks); circular
mode wraps any int64 write index (Python ``%``, so negatives wrap too).

Index map: rows over ``past_cache.shape[:axis] + (sequence_length,)``, blocks of
``past_cache.shape[axis+1:]``.
"""
from __future__ import annotations

from math import prod

import numpy as np

from .apply import put_rows
from .checks import (
    check_same_dtype,
    dims_equal,
    fmt_shape,
    normalize_axis,
    require_data_dtype,
    require_integer_indices,
    require_rank_at_least,
)
from .dtypes import as_tensor
from .errors import IndexOutOfRangeError, OpError
from .index_map import IndexMap
from .tensor_type import is_known

OP = "TensorScatter"
MODES = ("linear", "circular")


def tensor_scatter_output_shape(cache_shape: tuple, update_shape: tuple, write_indices_shape: tuple | None = None,
                                axis: int = -2, mode: str = "linear") -> tuple:
    """``cache_shape``; OpError for a bad mode, axis, update shape or write_indices shape."""
    if mode not in MODES:
        raise OpError(f"{OP}: mode={mode!r} is not one of {', '.join(MODES)}")
    require_rank_at_least(OP, "past_cache", cache_shape, 2)
    a = normalize_axis(OP, axis, len(cache_shape), "past_cache")
    if a == 0:
        raise OpError(f"{OP}: axis={axis} is the batch axis; the sequence axis must be 1..{len(cache_shape) - 1}")
    if len(update_shape) != len(cache_shape):
        raise OpError(f"{OP}: update {fmt_shape(update_shape)} must have the rank of "
                      f"past_cache {fmt_shape(cache_shape)}", port="update")
    for d, (u, c) in enumerate(zip(update_shape, cache_shape, strict=True)):
        if d == a:
            if is_known(u) and is_known(c) and u > c:
                raise OpError(
                    f"{OP}: update sequence length {u} exceeds max_sequence_length {c} on axis {a}; "
                    f"past_cache {fmt_shape(cache_shape)}, update {fmt_shape(update_shape)}", port="update"
                )
        elif not dims_equal(u, c):
            raise OpError(
                f"{OP}: update {fmt_shape(update_shape)} differs from "
                f"past_cache {fmt_shape(cache_shape)} in dimension {d}", port="update"
            )
    if write_indices_shape is not None and (
        len(write_indices_shape) != 1 or not dims_equal(write_indices_shape[0], cache_shape[0])
    ):
        raise OpError(
            f"{OP}: write_indices must have shape (batch,) = ({cache_shape[0]},), got {fmt_shape(write_indices_shape)}",
            port="write_indices",
        )
    return tuple(cache_shape)


def tensor_scatter_index_map(past_cache: np.ndarray, update_shape: tuple, write_indices: np.ndarray | None = None,
                             axis: int = -2, mode: str = "linear") -> IndexMap:
    cache_shape = tuple(np.shape(past_cache))
    update_shape = tuple(update_shape)
    tensor_scatter_output_shape(cache_shape, update_shape, None if write_indices is None else np.shape(write_indices),
                                axis, mode)
    a = normalize_axis(OP, axis, len(cache_shape), "past_cache")
    batch, max_len, seq_len = cache_shape[0], cache_shape[a], update_shape[a]
    if write_indices is None:
        starts = np.zeros(batch, dtype=np.int64)
    else:
        write_indices = np.asarray(write_indices)
        require_integer_indices(OP, "write_indices", write_indices)
        if write_indices.dtype.kind == "u" and write_indices.size and write_indices.max() > np.iinfo(np.int64).max:
            b = int(np.argmax(write_indices > np.iinfo(np.int64).max))
            raise IndexOutOfRangeError(
                f"{OP}: write_indices[{b}] = {int(write_indices[b])} is out of range for past_cache axis {a} "
                f"of size {max_len}", port="write_indices", position=(b,))
        starts = write_indices.astype(np.int64)
    if mode == "circular":  # reduce first: write index + s must not overflow int64 (2**63 - 1 + 1)
        positions = (starts % max(max_len, 1))[:, None] + np.arange(seq_len, dtype=np.int64)  # (batch, seq)
        positions %= max(max_len, 1)
    else:
        positions = starts[:, None] + np.arange(seq_len, dtype=np.int64)
    if mode == "linear" and starts.size:  # also with an empty update: the spec's write_indices + 0 <= max
        bad = (starts < 0) | (starts > max_len - seq_len)
        if bad.any():
            b = int(np.argmax(bad))
            raise IndexOutOfRangeError(
                f"{OP}: write_indices[{b}] = {int(starts[b])} is out of range for past_cache axis {a} of size "
                f"{max_len} with an update of length {seq_len} in linear mode (valid 0..{max_len - seq_len}); "
                f"use mode='circular' to wrap", port="write_indices", position=(b,)
            )
    prefix = cache_shape[:a]
    per_batch = prod(prefix[1:])
    prefix_flat = np.arange(prod(prefix), dtype=np.int64).reshape(prefix)  # flat index of p
    batch_of_p = prefix_flat // max(per_batch, 1)
    rows = prefix_flat[..., None] * max_len + positions[batch_of_p]
    return IndexMap("scatter", rows, tuple(cache_shape[a + 1:]), update_shape, cache_shape)


def tensor_scatter(past_cache, update, write_indices=None, axis: int = -2, mode: str = "linear") -> np.ndarray:
    """ONNX TensorScatter: ``past_cache`` with ``update`` written at each sample's write index."""
    cache, update = as_tensor(past_cache, f"{OP}: past_cache"), as_tensor(update, f"{OP}: update")
    require_data_dtype(OP, "past_cache", cache)
    require_data_dtype(OP, "update", update)
    check_same_dtype(OP, cache, update, "past_cache", "update")
    imap = tensor_scatter_index_map(cache, update.shape, write_indices, axis, mode)
    return put_rows(OP, cache, imap, update, "none")
