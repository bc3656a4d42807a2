"""Shared argument checks. Each raises OpError (or IndexOutOfRangeError) with a message that
names the op, the input and the shapes involved."""
from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TypeVar

import numpy as np

from . import parallel
from .dtypes import dtype_name
from .errors import IndexOutOfRangeError, OpError
from .schemas import get_schema
from .tensor_type import is_known

_T = TypeVar("_T")


def fmt_shape(shape) -> str:
    """``(2, 3)`` style, with ``?`` for unknown dimensions and a trailing comma for rank 1."""
    dims = ["?" if d is None else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def normalize_axis(op: str, axis: int, rank: int, what: str = "data") -> int:
    """``axis`` in ``[-rank, rank-1]`` made non-negative; OpError otherwise (also for a
    non-integer axis)."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise OpError(f"{op}: axis must be an integer, got {axis!r}")
    if not -rank <= axis <= rank - 1:
        raise OpError(f"{op}: axis={axis} is out of range for {what} of rank {rank} (valid {-rank}..{rank - 1})")
    return axis % rank if rank else axis


#: Shape and axis checks that passed, by ``(op, shapes..., attribute values and types)``: a node
#: re-run on inputs of the same shapes (the editor re-runs them on every edit) skips them.
_PASSED: dict[tuple, object] = {}
_PASSED_MAX = 4096


def checked_once(key: tuple, check: Callable[[], _T]) -> _T:
    """``check()``'s result, remembered under ``key`` once it has returned (a check that raises
    is not remembered: it raises again next time). ``key`` must hold everything the check
    reads, each attribute with its type (``True`` and ``1`` are equal keys otherwise)."""
    try:
        return _PASSED[key]  # type: ignore[return-value]
    except KeyError:
        pass
    except TypeError:  # an unhashable attribute (a list for an axis): the check says what is wrong
        return check()
    value = check()
    if len(_PASSED) >= _PASSED_MAX:
        _PASSED.clear()
    _PASSED[key] = value
    return value


def require_rank_at_least(op: str, name: str, shape, minimum: int) -> None:
    if len(shape) < minimum:
        raise OpError(f"{op}: {name} must have rank >= {minimum}, got shape {fmt_shape(shape)}", port=name)


def dims_equal(a, b) -> bool:
    """Dimension equality where an unknown (None) or symbolic (str) dimension matches anything:
    a symbol's size is known only at run time, where the kernels check it."""
    return not is_known(a) or not is_known(b) or a == b


def shapes_equal(a, b) -> bool:
    return len(a) == len(b) and all(dims_equal(x, y) for x, y in zip(a, b, strict=True))


@cache
def allowed_data_dtypes(op: str) -> tuple[str, ...]:
    """The dtype names ``op``'s type parameter ``T`` allows at any of its versions, in schema order
    (the schemas are constant data: computed once per op)."""
    names: list[str] = []
    for table in get_schema(op).types["T"].values():
        names += [n for n in table if n not in names]
    return tuple(names)


#: ``(op, dtype)`` pairs :func:`require_data_dtype` has accepted (non-object dtypes are judged by
#: dtype alone, so the answer never changes): one dict look-up per call instead of a name look-up.
_ACCEPTED: set[tuple[str, np.dtype]] = set()


def require_data_dtype(op: str, name: str, tensor: np.ndarray) -> None:
    """OpError unless ``tensor`` (already through :func:`ops.dtypes.as_tensor`) has a dtype that
    ``op``'s type constraint ``T`` allows at some opset.

    The message names the op, the input and the dtype, e.g. ``Gather: input data has dtype
    datetime64[D], not allowed by Gather at any opset; allowed: bool, ...``. Refused: dtypes
    ONNX has no tensor type for (datetime64, timedelta64, void/structured, extended-precision
    floats), the small float/int formats outside TensorScatter, bfloat16 for Scatter, and object
    arrays holding anything but ``str`` (shown as ``object holding int``). An object array
    costs one pass over its elements (their types); other dtypes are checked by dtype alone.
    """
    if (op, tensor.dtype) in _ACCEPTED:
        return
    allowed = allowed_data_dtypes(op)
    if tensor.dtype.kind == "O":
        odd = [t for t in set(map(type, tensor.ravel())) if not issubclass(t, str)]
        if not odd:
            return
        shown = "object holding " + ", ".join(sorted(t.__name__ for t in odd))
    else:
        try:
            shown = dtype_name(tensor)
        except OpError:
            shown = str(tensor.dtype)
        if shown in allowed:
            _ACCEPTED.add((op, tensor.dtype))
            return
    raise OpError(f"{op}: input {name} has dtype {shown}, not allowed by {op} at any opset; "
                  f"allowed: {', '.join(allowed)}", port=name)


def check_same_dtype(op: str, data: np.ndarray, updates: np.ndarray, data_name: str = "data",
                     updates_name: str = "updates") -> None:
    """OpError unless ``updates`` has ``data``'s dtype (any two object dtypes count as the same:
    both hold strings by now)."""
    if data.dtype != updates.dtype and not (data.dtype.kind == "O" and updates.dtype.kind == "O"):
        raise OpError(f"{op}: {updates_name} dtype {updates.dtype} differs from {data_name} dtype {data.dtype}",
                      port=updates_name)


def require_integer_indices(op: str, name: str, indices: np.ndarray) -> None:
    if indices.dtype.kind not in "iu":
        raise OpError(f"{op}: {name} must be an integer tensor, got dtype {indices.dtype}", port=name)


def numpy_checks_index_type(dtype: np.dtype) -> bool:
    """numpy's own indexing (``np.take`` with ``mode="raise"``, fancy indexing) reads indices of
    this type as ONNX does: negatives count from the end and anything else out of range raises
    IndexError. True for the integer types but uint64, whose top values a cast would wrap to
    negatives."""
    return dtype.kind == "i" or dtype.kind == "u" and dtype.itemsize < 8


def _position(shape, flat_index: int) -> str:
    if not shape:
        return ""
    pos = np.unravel_index(flat_index, shape)
    return "[" + ", ".join(str(int(p)) for p in pos) + "]"


@cache
def _unsigned_of(dtype: np.dtype) -> np.dtype:
    """The unsigned integer dtype of ``dtype``'s width and byte order."""
    return np.dtype(f"u{dtype.itemsize}").newbyteorder(dtype.byteorder)


@cache
def _signed_max(dtype: np.dtype) -> int:
    return int(np.iinfo(dtype).max)


def _unsigned_max(indices: np.ndarray) -> int:
    """Largest value of ``indices`` read as unsigned (negatives become at least ``2**(bits-1)``),
    so a single pass tells whether every index is in ``[0, size)`` for ``size <= 2**(bits-1)``
    (see :func:`all_in_range`). The unsigned view keeps the input's byte order. Large contiguous
    arrays split across threads."""
    if indices.dtype.kind == "i":
        view = indices.view(_unsigned_of(indices.dtype))
    else:
        view = indices
    if view.flags.c_contiguous and view.size >= 2 * parallel.MIN_PART:
        flat = view.reshape(-1)
        return int(max(parallel.map_parts(lambda a, b: flat[a:b].max(), flat.size)))
    return int(view.max())


def all_in_range(indices: np.ndarray, size: int) -> bool:
    """True when every element of the integer array ``indices`` lies in ``[0, size)`` (one pass).

    A narrow signed type whose largest value is below ``size`` (int8 indices into an axis of
    200) cannot be out of range on the high side, but a negative one read as unsigned
    (-100 -> 156) could pass for a valid index: there only the minimum is checked."""
    if indices.size == 0:
        return True
    if indices.dtype.kind == "i" and size > _signed_max(indices.dtype):
        return bool(indices.min() >= 0)
    return _unsigned_max(indices) < size


def normalize_indices(op: str, name: str, indices: np.ndarray, size: int, axis: int, what: str = "data") -> np.ndarray:
    """Indices in ``[-size, size-1]`` made non-negative (int64 or the input's own integer type).

    Raises IndexOutOfRangeError naming the first bad element (row-major) by position and value.
    Costs one pass (an unsigned max) when every index is already non-negative and in range;
    then the input itself is returned (callers only read it).
    """
    require_integer_indices(op, name, indices)
    if indices.size == 0:
        return indices.astype(np.int64)
    if all_in_range(indices, size):
        return indices
    lo, hi = indices.min(), indices.max()
    if lo >= -size and hi < size:
        idx = indices.astype(np.int64)
        idx[idx < 0] += size
        return idx
    raise _out_of_range(op, name, indices, (indices < -size) | (indices >= size), lambda first: size, axis, what)


def _out_of_range(op, name, indices, bad, size_of, axis_of, what="data") -> IndexOutOfRangeError:
    first = int(np.argmax(bad.ravel()))
    value = int(indices.ravel()[first])
    size = int(size_of(first))
    axis = axis_of(first) if callable(axis_of) else axis_of
    valid = f"valid {-size}..{size - 1}" if size else "no index is valid in an empty axis"
    position = tuple(int(i) for i in np.unravel_index(first, indices.shape)) if indices.ndim else ()
    return IndexOutOfRangeError(
        f"{op}: {name}{_position(indices.shape, first)} = {value} is out of range for {what} axis {axis} "
        f"of size {size} ({valid})", port=name, position=position
    )


def normalize_index_tuples(op: str, name: str, indices: np.ndarray, sizes: tuple, first_axis: int) -> np.ndarray:
    """The last dimension of ``indices`` holds tuples indexing ``sizes`` (data axes from
    ``first_axis``). Returns them non-negative as int64 (the input itself when it is int64 and
    already in range: one unsigned max per column); IndexOutOfRangeError names the first bad
    element and the data axis it indexes."""
    require_integer_indices(op, name, indices)
    k = len(sizes)
    if indices.size == 0:
        return indices.astype(np.int64, copy=True)
    limits = np.asarray(sizes, dtype=np.int64)
    if k and all(all_in_range(indices[..., c], int(sizes[c])) for c in range(k)):
        return indices.astype(np.int64, copy=False)
    if indices.dtype.kind == "u":  # no negatives; compare before a cast could wrap 2**64-1 to -1
        bad = indices >= limits.astype(np.uint64)
        raise _out_of_range(op, name, indices, bad, lambda first: sizes[first % k],
                            lambda first: first_axis + first % k)
    idx = indices.astype(np.int64, copy=True)
    neg = idx < 0
    if neg.any():
        idx += neg * limits
    bad = (idx < 0) | (idx >= limits)
    if bad.any():
        raise _out_of_range(op, name, indices, bad, lambda first: sizes[first % k],
                            lambda first: first_axis + first % k)
    return idx
