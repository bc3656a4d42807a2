"""Output buffers that are reused once the caller lets go of them.

A fresh large numpy array costs a page fault per 4 KiB page the first time it is written; on a
256 MB gather output that costs more than the gather itself. onnxruntime avoids it with an
arena. :func:`empty` does the same for outputs of at least ``MIN_POOLED_BYTES``: it keeps a few
recently used raw buffers and hands one out again when nothing refers to it any more (every
array made from it is a view whose ``base`` is the raw buffer, so CPython's reference count
says whether any result is still alive). A buffer still referenced is never reused, so results
never alias each other or an input. Pooled arrays start on a 64-byte (cache line) boundary.

Limits: at most ``MAX_ENTRIES`` buffers and ``INDEXFLOW_BUFFER_POOL_MB`` (default 512) MiB are
kept (read once, at import, through :func:`ops.config.buffer_pool_bytes`); the oldest are
dropped first (dropping only forgets them: arrays still using one keep it alive). :func:`clear`
forgets them all. Object (string) dtypes and small arrays always come from
``np.empty``.
"""
from __future__ import annotations

import sys
import threading
from math import prod

import numpy as np

from . import config

MIN_POOLED_BYTES = 4 << 20
#: Pooled buffers start on a cache-line boundary (whole-line streaming stores, ops.accel_intrinsics).
ALIGN = 64
MAX_ENTRIES = 4
_GRAIN = 1 << 16
_cap_bytes = config.buffer_pool_bytes()
_lock = threading.Lock()
_pool: list[np.ndarray] = []


def _refs(raw: np.ndarray) -> int:
    return sys.getrefcount(raw)


def _baseline() -> int:
    holder = [np.empty(_GRAIN, dtype=np.uint8)]
    for raw in holder:
        return _refs(raw)
    raise AssertionError


_FREE_REFS = _baseline()  # references a pooled buffer has when no result uses it


def _aligned(raw: np.ndarray, nbytes: int) -> np.ndarray:
    """The first ``nbytes`` of ``raw`` that start on an ``ALIGN``-byte boundary (a view)."""
    start = -raw.ctypes.data % ALIGN
    return raw[start:start + nbytes]


def empty(shape, dtype) -> np.ndarray:
    """Like ``np.empty(shape, dtype)`` (C order), possibly backed by a reused buffer."""
    if type(dtype) is not np.dtype:
        dtype = np.dtype(dtype)
    if type(shape) is not tuple:
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    nbytes = prod(shape) * dtype.itemsize
    if nbytes < MIN_POOLED_BYTES or dtype.hasobject or nbytes > _cap_bytes:
        return np.empty(shape, dtype)
    size = -(-nbytes // _GRAIN) * _GRAIN + ALIGN
    with _lock:
        for raw in _pool:
            if raw.nbytes == size and _refs(raw) == _FREE_REFS:
                return _aligned(raw, nbytes).view(dtype).reshape(shape)
        raw = np.empty(size, dtype=np.uint8)
        out = _aligned(raw, nbytes).view(dtype).reshape(shape)
        _pool.insert(0, raw)
        while len(_pool) > MAX_ENTRIES or sum(r.nbytes for r in _pool) > _cap_bytes:
            _pool.pop()
        return out


def clear() -> None:
    """Forget every pooled buffer (memory is returned once no result uses it)."""
    with _lock:
        _pool.clear()

