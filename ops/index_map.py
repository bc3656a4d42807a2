"""IndexMap: which target position each element reads (gather) or writes (scatter).

The map is the contract the teaching view, duplicate detection and gradients read, and every
kernel route applies it: the numpy scatters and ``take_rows`` build an IndexMap and apply it
(:mod:`ops.apply`); the faster routes apply the same formulas in factored form without
materialising one offset per element, from operands written once here (``take_axis`` and
``take_elements`` in :mod:`ops.apply`; the compiled kernels of :mod:`ops.accel`, which take
:func:`element_base` and :func:`row_major_strides` and add ``index * stride`` as they read each
index). tests/ops/test_accel.py::test_every_path_reads_and_writes_what_the_index_map_says checks
that every route, compiled and numpy, reads or writes exactly :meth:`IndexMap.flat_offsets`.

The map is stored factored: the target (``data``) is viewed as a ``(-1, block)`` matrix whose
rows are contiguous runs of ``block = prod(block_shape)`` elements, and ``rows`` says which row
each element group uses. Gather axis 0 on a ``(100000, 64)`` table therefore stores one int per
index, not 64; :meth:`IndexMap.flat_offsets` expands to one offset per element on demand.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np

from . import buffers, parallel
from .checks import all_in_range


@dataclass(frozen=True)
class IndexMap:
    """``kind`` is ``"gather"`` (elements of the output read the target) or ``"scatter"``
    (elements of the updates write the target).

    Invariants: ``element_shape == rows.shape + block_shape``; ``rows`` holds non-negative row
    numbers below ``prod(target_shape) // block``; ``target_shape`` ends with ``block_shape``.
    """

    kind: str
    rows: np.ndarray
    block_shape: tuple
    element_shape: tuple
    target_shape: tuple

    @property
    def block(self) -> int:
        """Elements moved together per row."""
        return prod(self.block_shape)

    @property
    def target_rows(self) -> int:
        """Rows of the target viewed as a ``(-1, block)`` matrix."""
        return prod(self.target_shape) // self.block if self.block else 0

    def flat_offsets(self) -> np.ndarray:
        """int64 array of ``element_shape``: the row-major flat offset into the target that each
        output element reads (gather) or each update element writes (scatter)."""
        rows = np.asarray(self.rows, dtype=np.int64)
        block = self.block
        offsets = rows[..., None] * block + np.arange(block, dtype=np.int64)
        return offsets.reshape(self.element_shape)

    def target_counts(self) -> np.ndarray:
        """int64 array of ``target_shape``: how many elements read or write each target cell."""
        per_row = np.bincount(np.asarray(self.rows, dtype=np.int64).ravel(), minlength=self.target_rows)
        counts = np.repeat(per_row[:, None], self.block, axis=1) if self.block else per_row[:, None][:, :0]
        return counts.reshape(self.target_shape)

    def _row_counts(self) -> np.ndarray:
        return np.bincount(np.asarray(self.rows, dtype=np.int64).ravel(), minlength=self.target_rows)

    def has_duplicates(self) -> bool:
        """True when some target cell is touched by more than one element."""
        if self.rows.size < 2 or self.block == 0:
            return False
        return bool(self._row_counts().max() > 1)

    def duplicate_mask(self) -> np.ndarray:
        """bool array of ``element_shape``: True where the element's target cell is also the
        target of another element (for a scatter with reduction none, all but the last in
        row-major order are overwritten)."""
        if self.rows.size == 0 or self.block == 0:
            return np.zeros(self.element_shape, dtype=bool)
        dup_rows = self._row_counts()[self.rows] > 1
        return np.broadcast_to(dup_rows[..., None], self.rows.shape + (self.block,)).reshape(self.element_shape).copy()

    def source_positions(self, flat_target: int) -> list[tuple[int, ...]]:
        """Multi-indices (into ``element_shape``) of the elements that touch target cell
        ``flat_target`` (a row-major flat offset), in row-major order."""
        if self.block == 0:
            return []
        row, col = divmod(int(flat_target), self.block)
        hits = np.flatnonzero(np.asarray(self.rows).ravel() == row)
        positions = []
        for h in hits:
            row_pos = np.unravel_index(int(h), self.rows.shape) if self.rows.shape else ()
            col_pos = np.unravel_index(col, self.block_shape) if self.block_shape else ()
            positions.append(tuple(int(i) for i in (*row_pos, *col_pos)))
        return positions


def row_major_strides(shape) -> list[int]:
    """Element strides of a C-ordered array of ``shape``."""
    strides, step = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = step
        step *= shape[d]
    return strides


def element_base(idx_shape: tuple, strides: list, axis: int) -> np.ndarray:
    """The part of an elementwise offset that does not depend on the index: ``sum(p[d] *
    strides[d] for d != axis)`` for each position ``p`` of ``idx_shape``, as a small broadcastable
    int64 array (length 1 on ``axis``)."""
    base = np.zeros((1,) * len(idx_shape), dtype=np.int64)
    for d, n in enumerate(idx_shape):
        if d != axis and n > 1:
            shape = [1] * len(idx_shape)
            shape[d] = n
            base = base + (np.arange(n, dtype=np.int64) * strides[d]).reshape(shape)
    return base


def write_offsets(out: np.ndarray, idx: np.ndarray, base: np.ndarray, step: int) -> None:
    """``out[...] = idx * step + base`` in int64, in place (one pass when ``step == 1``)."""
    if step == 1:
        np.add(idx, base, out=out, dtype=np.int64, casting="unsafe")
    else:
        np.multiply(idx, step, out=out, dtype=np.int64, casting="unsafe")
        np.add(out, base, out=out)


def elementwise_offsets(idx: np.ndarray, data_shape: tuple, axis: int) -> np.ndarray:
    """Flat offsets into a C-ordered ``data_shape`` array for GatherElements/ScatterElements:
    element ``p`` of ``idx`` (non-negative, in range) addresses ``p`` with coordinate ``axis``
    replaced by ``idx[p]``. int64, shape ``idx.shape``.

    ``offset = idx * stride[axis] + base`` (:func:`element_base`, :func:`write_offsets`); large
    inputs are split along their first axis across threads.
    """
    strides = row_major_strides(data_shape)
    base = element_base(idx.shape, strides, axis)
    rows = buffers.empty(idx.shape, np.int64)  # reused once the map is dropped (kernels drop it)
    if rows.size == 0:
        return rows

    def part(a: int, b: int) -> None:
        write_offsets(rows[a:b], idx[a:b], base[a:b] if base.shape[0] > 1 else base, strides[axis])

    parallel.run_parts(part, idx.shape[0], work=idx.size)
    return rows


def tuple_rows(idx: np.ndarray, indexed_shape: tuple) -> np.ndarray:
    """Row-major row numbers within ``indexed_shape`` of the index tuples in the last dimension
    of ``idx`` (non-negative, in range): ``sum(idx[..., c] * stride[c])``. int64, shape
    ``idx.shape[:-1]``."""
    k = idx.shape[-1]
    if k == 0:
        return np.zeros(idx.shape[:-1], dtype=np.int64)
    strides = row_major_strides(indexed_shape)
    rows = np.empty(idx.shape[:-1], dtype=np.int64)
    np.multiply(idx[..., 0], strides[0], out=rows, dtype=np.int64, casting="unsafe")
    for c in range(1, k):
        if strides[c] == 1:
            np.add(rows, idx[..., c], out=rows, dtype=np.int64, casting="unsafe")
        else:
            np.add(rows, np.multiply(idx[..., c], strides[c], dtype=np.int64, casting="unsafe"), out=rows)
    return rows


def checked_tuple_rows(indices: np.ndarray, indexed_shape: tuple) -> np.ndarray | None:
    """:func:`tuple_rows` of raw ``indices`` in one C pass that also checks them
    (``np.ravel_multi_index``): the same row numbers when every index in the last dimension of
    ``indices`` is in ``[0, indexed_shape[c])``, else None (a negative or out-of-range index,
    no tuple, an index type a cast could wrap such as uint64): the caller then normalises the
    indices the long way, which names the first bad one. intp, shape ``indices.shape[:-1]``."""
    dt = indices.dtype
    k = indices.shape[-1] if indices.ndim else 0
    if not 0 < k == len(indexed_shape) or dt.kind not in "iu" or (dt.kind == "u" and dt.itemsize >= 8):
        return None
    if k == 1:  # one pass of all_in_range (an unsigned max) costs less than ravel_multi_index
        rows = indices[..., 0]
        return rows.astype(np.int64, copy=False) if all_in_range(rows, int(indexed_shape[0])) else None
    # the columns: two (the common case) without a generator's cost
    cols = (indices[..., 0], indices[..., 1]) if k == 2 else tuple(indices[..., c] for c in range(k))
    try:
        rows = np.ravel_multi_index(cols, indexed_shape)
    except (ValueError, TypeError):
        return None
    return rows.astype(np.int64, copy=False)
