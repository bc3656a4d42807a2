"""The size cap: no tensor larger than ``INDEXFLOW_MAX_SOURCE_MB`` is made, whoever makes it.

One rule for every maker: an operator's output (checked by :mod:`ops.registry` from the
inferred output shape before a kernel or an index map runs, and by :func:`ops.infer_types`, so
a graph shows the refusal before anything runs), a generated source, a file or sidecar array
(checked from its header before it is read) and an imported model's example input. Each
checks the tensor's declared shape and dtype here, before allocating, so nothing is attempted
that the cap forbids. The cap is read on each call (:func:`ops.config.max_source_bytes`).

A string (object) element counts as the size of its pointer; the strings themselves are not
counted.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from . import config
from .dtypes import dtype_name, dtype_of
from .errors import OpError


class SizeLimitError(OpError):
    """A tensor would be larger than the cap. The message names what would be made, its shape
    and dtype, the bytes it needs and the cap (and the variable that sets it)."""


def tensor_bytes(shape: Sequence[int], dtype: str | np.dtype) -> int:
    """Bytes a tensor of ``shape`` and ``dtype`` (a dtype name or a numpy dtype) takes."""
    dt = dtype_of(dtype) if isinstance(dtype, str) else np.dtype(dtype)
    return math.prod(int(d) for d in shape) * dt.itemsize


def size_text(nbytes: float) -> str:
    """``4.0 GiB``, ``64.0 MiB``, ``12.0 KiB``, ``100 bytes``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= scale:
            return f"{nbytes / scale:.1f} {unit}"
    return f"{int(nbytes)} bytes"


def limit_bytes() -> int:
    """The cap in bytes (``INDEXFLOW_MAX_SOURCE_MB``, read now)."""
    return config.max_source_bytes()


def check_size(what: str, shape: Sequence[int], dtype: str | np.dtype, noun: str = "tensors") -> None:
    """SizeLimitError unless a tensor of ``shape`` and ``dtype`` fits the cap, e.g.
    ``Gather: output shape [1024, 1048576] of float32 needs 4.0 GiB; tensors are limited to
    2.0 GiB (environment variable INDEXFLOW_MAX_SOURCE_MB)``. ``what`` says which tensor and
    starts the message (``Gather: output``, ``zeros:``); ``noun`` is what the cap is called
    there (``generated tensors``)."""
    nbytes = tensor_bytes(shape, dtype)
    limit = limit_bytes()
    if nbytes > limit:
        name = dtype if isinstance(dtype, str) else _name(np.dtype(dtype))
        raise SizeLimitError(
            f"{what} shape {[int(d) for d in shape]} of {name} needs {size_text(nbytes)}; {noun} are limited "
            f"to {size_text(limit)} (environment variable {config.MAX_SOURCE_MB.name})")


def _name(dt: np.dtype) -> str:
    try:
        return dtype_name(dt)
    except OpError:
        return str(dt)
