"""Pure-numpy helpers that turn any tensor into something small enough to draw.

No Qt here: every function takes and returns numpy arrays (or plain dataclasses), so the
logic is tested without a display and reused by the viewer, the thumbnails and the saver.

Contracts
---------
- ``slice_2d`` returns a *view* of the input (basic indexing only, never a copy).
- ``display_step`` / ``downsample_2d`` choose an integer stride per axis so the displayed
  picture has at most ``max_size`` cells per side. Downsampling is by **stride** (every
  k-th row and column): it is a view, costs O(output), and every displayed pixel is a
  real element whose exact value the hover label can show. Stride can skip isolated
  cells, so the *difference* picture instead uses a chunked **block-any**
  (``changed_blocks``): a block lights up if any cell inside it changed, so no change is
  ever hidden by downsampling. On screen the difference picture is reduced once more, to
  the panel's pixels, by block *maximum* (``panels.PoolingImageItem``), so a single
  changed cell of a 1e8 tensor is still a lit pixel at any panel width.
- Heat maps of large slices are refined progressively. The stride sample is drawn at once
  (UI thread); then ``peak_downsample_2d`` (background thread, same grid) reads every
  element and each pixel shows one real value of its block: the block's minimum or
  maximum, whichever is farther from the block's mean (``peak_blocks``; ties go to the
  extreme farther from the stride sample, then to the maximum). So one written cell in
  1e8, above or below its neighbours, is drawn wherever it sits in its block, and a
  uniform block keeps its value. On screen the picture is reduced to the panel's pixels
  by the same rule. Cost: reductions over the whole slice in tiles of at most ``CHUNK``
  elements (min and max; a float64 sum only for tiles that are not uniform), ~6 MB of
  temporaries, never a full-size copy. For a 10000 x 10000 float32 slice on the 2-core
  development machine: ~0.1 s when it is mostly uniform (zeros and a few written cells),
  ~0.25 s for random values, ~0.4 s when NaN is everywhere.
  Known limits: a pixel shows one value, so a block holding both a high and a low outlier
  shows only the one farther from the block's mean, and a NaN is drawn only where its
  whole block is NaN; the statistics line (min/max and NaN count over every element) and
  the table show every value, and the hover of a refined pixel gives its block's index
  range, minimum, maximum and the index of the drawn element.
- ``to_display_float`` converts only the (already downsampled) slice, or one tile of
  ``peak_downsample_2d``, to float32; this is where float16, bfloat16 (ml_dtypes), ints and
  bools become drawable (``display_part`` does the same for one part of a complex slice).
- ``tensor_stats`` walks the tensor in chunks of at most ``chunk`` elements, so a 1e8
  element float32 tensor never creates a full-size temporary.
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from ops.dtypes import is_ml_float

#: Largest number of displayed cells along one side of a picture. About a screen's worth:
#: the picture is reduced again to the panel's pixels anyway, and the strided sample of a
#: 10000 x 10000 slice costs ~4x less to copy at 1024 (stride 10) than at 2048 (stride 5).
MAX_DISPLAY = 1024
#: Elements processed at once by the chunked reductions.
CHUNK = 1 << 21

# --------------------------------------------------------------------------- dtype kinds

BOOL, INT, FLOAT, COMPLEX, STRING, OTHER = "bool", "int", "float", "complex", "string", "other"


def dtype_kind(dtype: np.dtype) -> str:
    """Classify a dtype as one of ``bool``, ``int``, ``float``, ``complex``, ``string``.

    ml_dtypes floats (bfloat16, float8 ...) report numpy kind ``'V'``; they are floats here.
    """
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return BOOL
    if dtype.kind in "iu":
        return INT
    if dtype.kind == "f" or is_ml_float(dtype):
        return FLOAT
    if dtype.kind == "c":
        return COMPLEX
    if dtype.kind in "OUS":
        return STRING
    return OTHER


def is_drawable(dtype: np.dtype) -> bool:
    """True when a picture can be made (everything except strings/objects/structs)."""
    return dtype_kind(dtype) in (BOOL, INT, FLOAT, COMPLEX)


# --------------------------------------------------------------------------- slicing


def slice_2d(array: np.ndarray, axes: tuple[int, int], indices: Sequence[int]) -> np.ndarray:
    """The 2-D slice of ``array`` shown with ``axes = (row_axis, col_axis)``.

    ``indices[k]`` is the position along axis ``k`` for every axis not displayed (entries
    for the displayed axes are ignored). The result is a view; when ``row_axis >
    col_axis`` it is the transposed view, so rows always follow ``row_axis``.
    """
    row_axis, col_axis = axes
    if row_axis == col_axis:
        raise ValueError("the two displayed axes must differ")
    key: list[object] = []
    for axis in range(array.ndim):
        if axis in (row_axis, col_axis):
            key.append(slice(None))
        else:
            index = int(indices[axis])
            if not 0 <= index < array.shape[axis]:
                raise IndexError(f"index {index} out of range for axis {axis} of size {array.shape[axis]}")
            key.append(index)
    view = array[tuple(key)]
    return view.T if row_axis > col_axis else view


def full_index(axes: tuple[int, int], indices: Sequence[int], row: int, col: int) -> tuple[int, ...]:
    """The N-D index of cell (row, col) of the slice chosen by ``axes`` and ``indices``."""
    index = [int(i) for i in indices]
    index[axes[0]] = int(row)
    index[axes[1]] = int(col)
    return tuple(index)


def display_step(length: int, max_size: int = MAX_DISPLAY) -> int:
    """Stride so that ``ceil(length / step) <= max_size``."""
    return max(1, math.ceil(length / max_size))


def downsample_2d(slice2d: np.ndarray, max_size: int = MAX_DISPLAY) -> tuple[np.ndarray, tuple[int, int]]:
    """Stride-downsample a 2-D slice to at most ``max_size`` per side. Returns (view, steps)."""
    step_r = display_step(slice2d.shape[0], max_size)
    step_c = display_step(slice2d.shape[1], max_size)
    return slice2d[::step_r, ::step_c], (step_r, step_c)


def downsample_1d(vector: np.ndarray, max_points: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """Envelope-downsample a drawable 1-D vector for a line plot.

    Returns ``(x, y)`` float arrays. Short vectors come back whole; long ones give the
    minimum and the maximum of each block (so a single spike is never lost), computed a
    chunk at a time. Non-finite values are ignored inside a block unless the whole block
    is non-finite.
    """
    n = vector.shape[0]
    if n <= max_points:
        return np.arange(n, dtype=np.float64), to_display_float(vector)
    step = math.ceil(n / (max_points // 2))
    blocks = math.ceil(n / step)
    lows = np.empty(blocks, np.float32)
    highs = np.empty(blocks, np.float32)
    per_chunk = max(1, CHUNK // step)
    for first in range(0, blocks, per_chunk):
        last = min(blocks, first + per_chunk)
        part = to_display_float(vector[first * step : last * step])
        pad = (last - first) * step - part.shape[0]
        if pad:
            part = np.concatenate([part, np.full(pad, np.nan, np.float32)])
        part = part.reshape(last - first, step)
        with np.errstate(invalid="ignore"):
            lows[first:last] = np.fmin.reduce(part, axis=1)
            highs[first:last] = np.fmax.reduce(part, axis=1)
    x = np.repeat(np.arange(blocks, dtype=np.float64) * step, 2)
    y = np.empty(2 * blocks, np.float32)
    y[0::2] = lows
    y[1::2] = highs
    return x, y


# --------------------------------------------------------------------------- peaks

#: Stand-in for +-inf when deciding which extreme a block shows (the shown value itself
#: keeps the infinity): a block of many infinities and one finite cell shows the cell.
_BIG = float(np.finfo(np.float32).max)


def _reduce_blocks(values: np.ndarray, step_r: int, step_c: int, op: np.ufunc, dtype=np.float32) -> np.ndarray:
    """``op``-reduce each ``step_r`` x ``step_c`` block of a 2-D array (edge blocks may be
    smaller). Rows first (long vectorised passes over whole rows), then column runs by
    ``step_c`` strided passes, so no inner loop is only ``step_c`` elements long."""
    rows, cols = values.shape
    out_r, full_r = -(-rows // step_r), rows // step_r
    by_rows = np.empty((out_r, cols), dtype)
    if full_r:
        op.reduce(values[: full_r * step_r].reshape(full_r, step_r, cols), axis=1, out=by_rows[:full_r], dtype=dtype)
    if out_r > full_r:
        op.reduce(values[full_r * step_r :], axis=0, out=by_rows[full_r], dtype=dtype)
    out_c, full_c = -(-cols // step_c), cols // step_c
    out = np.empty((out_r, out_c), dtype)
    if full_c:
        body = out[:, :full_c]
        body[...] = by_rows[:, 0 : full_c * step_c : step_c]
        for k in range(1, step_c):
            op(body, by_rows[:, k : full_c * step_c : step_c], out=body)
    if out_c > full_c:
        op.reduce(by_rows[:, full_c * step_c :], axis=1, out=out[:, full_c])
    return out


def peak_blocks(picture: np.ndarray, step_r: int, step_c: int) -> np.ndarray:
    """Peak-preserving reduction of an in-memory 2-D float picture by blocks of ``step_r`` x
    ``step_c`` (edge blocks may be smaller). Returns float32 of shape ``ceil(rows/step_r)``
    x ``ceil(cols/step_c)``.

    Each block shows one of its own values: its minimum or its maximum, whichever is farther
    from the block's mean (so the value least like the rest of the block wins: one 5.0
    among zeros, or one -5.0, is drawn wherever it sits in the block). On a tie, the extreme
    farther from the block's top-left element (its stride sample) wins, then the maximum. A
    uniform block keeps its value (when every block is uniform the mean is not computed).
    NaN is ignored unless the whole block is NaN (then NaN); for the decision only, +-inf
    count as +-float32 max, so an isolated infinity is drawn and so is an isolated finite
    cell among infinities.
    """
    picture = np.asarray(picture)
    if picture.ndim != 2 or step_r < 1 or step_c < 1:
        raise ValueError(f"need a 2-D picture and steps >= 1, got shape {picture.shape} and {(step_r, step_c)}")
    if picture.dtype != np.float32:
        picture = picture.astype(np.float32)
    with np.errstate(invalid="ignore"):
        lo = _reduce_blocks(picture, step_r, step_c, np.fmin)
        hi = _reduce_blocks(picture, step_r, step_c, np.fmax)
        if np.array_equal(lo, hi, equal_nan=True):  # every block uniform (or all NaN): no choice to make
            return lo
        total = _reduce_blocks(picture, step_r, step_c, np.add, np.float64)  # float32 never overflows it
    row_sizes = np.minimum(step_r, picture.shape[0] - np.arange(0, picture.shape[0], step_r))
    col_sizes = np.minimum(step_c, picture.shape[1] - np.arange(0, picture.shape[1], step_c))
    count = np.outer(row_sizes, col_sizes).astype(np.float64)
    if not np.isfinite(total).all():  # NaN or +-inf in some block: sum again without them
        cleaned = np.clip(picture, -_BIG, _BIG)
        missing = np.isnan(cleaned)
        if missing.any():
            np.copyto(cleaned, 0.0, where=missing)
            count -= _reduce_blocks(missing, step_r, step_c, np.add, np.float64)
        total = _reduce_blocks(cleaned, step_r, step_c, np.add, np.float64)
    top_left = picture[::step_r, ::step_c]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
        lo_c, hi_c, ref = (np.clip(v.astype(np.float64), -_BIG, _BIG) for v in (lo, hi, top_left))
        below, above = mean - lo_c, hi_c - mean
        pick_hi = (above > below) | ((above == below) & ~(ref - lo_c > hi_c - ref))
    return np.where(pick_hi, hi, lo).astype(np.float32, copy=False)


def uniform_slice(slice2d: np.ndarray, max_size: int = MAX_DISPLAY) -> bool:
    """Whether every element of a 2-D bool/int/float slice of at most ``max_size`` per side
    holds one value (NaN never counts as equal); False for larger slices (not read here:
    the viewer's statistics tell), complex and string ones."""
    if slice2d.ndim != 2 or slice2d.size == 0 or max(slice2d.shape) > max_size:
        return False
    if dtype_kind(slice2d.dtype) not in (BOOL, INT, FLOAT):
        return False
    first = slice2d[0, 0]
    with np.errstate(invalid="ignore"):
        return bool((slice2d == first).all())


def peak_downsample_2d(slice2d: np.ndarray, max_size: int = MAX_DISPLAY, part_index: int | None = None,
                       mode: str = "real_imag", chunk: int = CHUNK,
                       cancelled=None) -> tuple[np.ndarray, tuple[int, int]] | None:
    """``peak_blocks`` of a whole 2-D slice on the ``downsample_2d`` grid, a tile at a time.

    Returns ``(picture, (step_r, step_c))``: the picture has the shape of
    ``downsample_2d(slice2d, max_size)[0]`` and each pixel is the peak-preserving value of
    its block. Bool, int and float slices are converted with ``to_display_float``, complex
    ones with ``display_part(..., part_index, mode)``, one tile at a time: tiles are whole
    blocks of at most ``chunk`` elements (unless one block is larger), so a 1e8-element
    slice never makes a full-size temporary. ``cancelled()`` (optional) is polled between
    tiles; when it returns True the function stops and returns None.
    """
    if slice2d.ndim != 2:
        raise ValueError(f"need a 2-D slice, got shape {slice2d.shape}")
    if min(slice2d.shape) > 1 and abs(slice2d.strides[0]) < abs(slice2d.strides[1]):
        # column-major in memory (a transposed slice): tile the transpose, whose rows are
        # contiguous, instead of gathering columns (6x faster for 1e8 elements)
        result = peak_downsample_2d(slice2d.T, max_size, part_index, mode, chunk, cancelled)
        return None if result is None else (result[0].T, result[1][::-1])
    rows, cols = slice2d.shape
    step_r, step_c = display_step(rows, max_size), display_step(cols, max_size)
    out_r, out_c = math.ceil(rows / step_r), math.ceil(cols / step_c)
    out = np.empty((out_r, out_c), np.float32)
    tile_c = max(1, min(out_c, chunk // (step_r * step_c)))  # tile width, in blocks
    tile_r = max(1, chunk // (step_r * step_c * tile_c))  # tile height, in blocks
    for first_r in range(0, out_r, tile_r):
        last_r = min(out_r, first_r + tile_r)
        for first_c in range(0, out_c, tile_c):
            if cancelled is not None and cancelled():
                return None
            last_c = min(out_c, first_c + tile_c)
            tile = slice2d[first_r * step_r : last_r * step_r, first_c * step_c : last_c * step_c]
            out[first_r:last_r, first_c:last_c] = peak_blocks(display_part(tile, part_index, mode), step_r, step_c)
    return out, (step_r, step_c)


# --------------------------------------------------------------------------- conversion

COMPLEX_PARTS = {"real_imag": ("real", "imag"), "mag_phase": ("magnitude", "phase")}


def to_display_float(values: np.ndarray) -> np.ndarray:
    """A float32 copy of a (small, already downsampled) bool/int/float array."""
    kind = dtype_kind(values.dtype)
    if kind not in (BOOL, INT, FLOAT):
        raise TypeError(f"cannot draw dtype {values.dtype} as one picture")
    return np.ascontiguousarray(values, dtype=np.float32)


def display_part(values: np.ndarray, part_index: int | None = None, mode: str = "real_imag") -> np.ndarray:
    """The float32 picture of ``values`` that a heat map draws: ``to_display_float`` for
    bool/int/float (``part_index`` None), else part ``part_index`` (0 or 1) of
    ``complex_parts(values, mode)``; only that part is computed."""
    if part_index is None:
        return to_display_float(values)
    if mode not in COMPLEX_PARTS or part_index not in (0, 1):
        raise ValueError(f"unknown complex part {mode!r}[{part_index}]")
    if mode == "real_imag":
        part = values.real if part_index == 0 else values.imag
    else:
        part = np.abs(values) if part_index == 0 else np.angle(values)
    return np.ascontiguousarray(part, dtype=np.float32)


def complex_parts(values: np.ndarray, mode: str = "real_imag") -> tuple[np.ndarray, np.ndarray]:
    """Two float32 pictures of a complex array: (real, imag) or (magnitude, phase)."""
    if mode == "real_imag":
        return values.real.astype(np.float32), values.imag.astype(np.float32)
    if mode == "mag_phase":
        return np.abs(values).astype(np.float32), np.angle(values).astype(np.float32)
    raise ValueError(f"unknown complex mode {mode!r}; use one of {sorted(COMPLEX_PARTS)}")


def finite_bounds(values: np.ndarray) -> tuple[float, float] | None:
    """(min, max) of the finite values of a float array, or None when there are none."""
    if values.size == 0:
        return None
    finite = np.isfinite(values)
    if finite.all():
        return float(values.min()), float(values.max())
    if not finite.any():
        return None
    return (float(np.min(values, where=finite, initial=np.inf)),
            float(np.max(values, where=finite, initial=-np.inf)))


def finite_range(values: np.ndarray) -> tuple[float, float]:
    """Colour levels: (min, max) of the finite values; (0, 1) when there are none.

    A constant picture gets a range of width 1 so colour levels are never degenerate.
    """
    bounds = finite_bounds(values)
    if bounds is None:
        return 0.0, 1.0
    lo, hi = bounds
    if lo == hi:
        return lo - 0.5, hi + 0.5
    return lo, hi


# --------------------------------------------------------------------------- differences


def _differs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise "changed" where NaN equals NaN (a NaN left alone is not a change).

    When few cells differ, NaN is only examined at those cells.
    """
    differs = np.asarray(a != b, dtype=bool)
    if dtype_kind(a.dtype) in (FLOAT, COMPLEX) and dtype_kind(b.dtype) in (FLOAT, COMPLEX):
        changed = int(np.count_nonzero(differs))
        if changed == 0:
            return differs
        if changed * 64 < differs.size:
            where = np.unravel_index(np.flatnonzero(differs), differs.shape)
            both_nan = _isnan(a[where]) & _isnan(b[where])
            if both_nan.any():
                differs[tuple(w[both_nan] for w in where)] = False
        else:
            differs &= ~(_isnan(a) & _isnan(b))
    return differs


def _isnan(values: np.ndarray) -> np.ndarray:
    if dtype_kind(values.dtype) == COMPLEX:
        return np.isnan(values.real) | np.isnan(values.imag)
    if values.dtype.kind == "V":
        values = values.astype(np.float32)
    return np.isnan(values)


def changed_mask(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Boolean mask of the cells where two same-shape arrays differ (NaN == NaN)."""
    if a.shape != b.shape:
        raise ValueError(f"shapes differ: {a.shape} vs {b.shape}")
    return _differs(np.asarray(a), np.asarray(b))


def changed_blocks(a: np.ndarray, b: np.ndarray,
                   max_size: int = MAX_DISPLAY) -> tuple[np.ndarray, tuple[int, int], int]:
    """Downsampled change mask of two same-shape 2-D slices, computed in row bands.

    Uses the same grid as ``downsample_2d``; a block is True when any cell in it differs.
    Returns ``(blocks, (step_r, step_c), changed_cell_count)``.
    Memory: one band of rows at a time, never a full-size mask.
    """
    if a.shape != b.shape or a.ndim != 2:
        raise ValueError(f"need two 2-D arrays of one shape, got {a.shape} and {b.shape}")
    rows, cols = a.shape
    step_r, step_c = display_step(rows, max_size), display_step(cols, max_size)
    out_r, out_c = math.ceil(rows / step_r), math.ceil(cols / step_c)
    out = np.zeros((out_r, out_c), dtype=bool)
    if step_r == 1 and step_c == 1:
        out[:] = changed_mask(a, b)
        return out, (1, 1), int(out.sum())
    count = 0
    bands = max(1, CHUNK // max(1, cols * step_r))
    for first in range(0, out_r, bands):
        last = min(out_r, first + bands)
        part = changed_mask(a[first * step_r : last * step_r], b[first * step_r : last * step_r])
        changed = int(np.count_nonzero(part))
        count += changed
        if changed == 0:
            continue
        if changed * 64 < part.size:  # sparse: mark the blocks of each change
            rows_changed, cols_changed = np.divmod(np.flatnonzero(part), cols)
            out[first + rows_changed // step_r, cols_changed // step_c] = True
            continue
        pad_r = (last - first) * step_r - part.shape[0]
        pad_c = out_c * step_c - cols
        if pad_r or pad_c:
            part = np.pad(part, ((0, pad_r), (0, pad_c)))
        rows_any = part.reshape(last - first, step_r, out_c * step_c).any(axis=1)
        out[first:last] = rows_any.reshape(last - first, out_c, step_c).any(axis=2)
    return out, (step_r, step_c), count


# --------------------------------------------------------------------------- statistics


@dataclass(frozen=True)
class TensorStats:
    """Summary of a tensor. Numbers are ``None`` where they have no meaning (strings).

    For complex tensors min/max/mean describe the magnitude. For bool, mean is the
    fraction of True. ``nan`` and ``inf`` count elements (complex: either part).
    """

    count: int
    minimum: float | int | None = None
    maximum: float | int | None = None
    mean: float | None = None
    nan: int = 0
    posinf: int = 0
    neginf: int = 0
    of_magnitude: bool = False

    @property
    def inf(self) -> int:
        return self.posinf + self.neginf

    def describe(self) -> str:
        """One line for the viewer: ``min 0 · max 3 · mean 1.5 · NaN 0 · inf 0``."""
        if self.minimum is None:
            return f"{self.count} elements (no numeric statistics)"
        parts = [f"min {_short(self.minimum)}", f"max {_short(self.maximum)}", f"mean {_short(self.mean)}"]
        if self.of_magnitude:
            parts = [f"|z| {p}" for p in parts]
        parts.append(f"NaN {self.nan}")
        parts.append(f"inf {self.inf}" + (f" (+{self.posinf} / -{self.neginf})" if self.inf else ""))
        return "  ·  ".join(parts)


def _short(value: float | int | None) -> str:
    if value is None:
        return "–"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if math.isnan(value):
        return "nan"
    return f"{value:.6g}"


def iter_chunks(array: np.ndarray, chunk: int = CHUNK) -> Iterator[np.ndarray]:
    """Yield 1-D pieces covering every element once, each at most ``chunk`` elements.

    Contiguous arrays are walked through a flat view; otherwise along axis 0 recursively,
    so only chunk-sized copies are made.
    """
    if array.size == 0:
        return
    if array.ndim == 0:
        yield array.reshape(1)
        return
    if array.flags.c_contiguous or array.flags.f_contiguous:
        flat = array.ravel(order="K")
        for start in range(0, flat.shape[0], chunk):
            yield flat[start : start + chunk]
        return
    if array.ndim == 1:
        for start in range(0, array.shape[0], chunk):
            yield np.ascontiguousarray(array[start : start + chunk])
        return
    inner = array[0].size
    rows = max(1, chunk // max(1, inner))
    for start in range(0, array.shape[0], rows):
        block = array[start : start + rows]
        if block.size <= chunk:
            yield np.ascontiguousarray(block).reshape(-1)
        else:
            for sub in block:
                yield from iter_chunks(sub, chunk)


def tensor_stats(array: np.ndarray, chunk: int = CHUNK, cancelled=None) -> TensorStats | None:
    """Chunked min/max/mean and NaN/inf counts. ``cancelled()`` (optional) is polled
    between chunks; when it returns True the function stops and returns None."""
    kind = dtype_kind(array.dtype)
    count = int(array.size)
    if kind not in (BOOL, INT, FLOAT, COMPLEX) or count == 0:
        return TensorStats(count=count)
    lo = hi = None
    total = 0.0
    finite_count = 0
    nan = posinf = neginf = 0
    for piece in iter_chunks(array, chunk):
        if cancelled is not None and cancelled():
            return None
        if kind == COMPLEX:
            bad_nan = np.isnan(piece.real) | np.isnan(piece.imag)
            nan += int(bad_nan.sum())
            infinite = np.isinf(piece.real) | np.isinf(piece.imag)
            posinf += int(infinite.sum())
            values = np.abs(piece[~(bad_nan | infinite)])
        elif kind == FLOAT:
            if piece.dtype.kind == "V" or piece.dtype.itemsize < 4:
                piece = piece.astype(np.float32)
            finite = np.isfinite(piece)
            if finite.all():
                values = piece
            else:
                nan += int(np.isnan(piece).sum())
                posinf += int(np.isposinf(piece).sum())
                neginf += int(np.isneginf(piece).sum())
                values = piece[finite]
        else:
            values = piece
        if values.size == 0:
            continue
        p_lo, p_hi = values.min(), values.max()
        lo = p_lo if lo is None else min(lo, p_lo)
        hi = p_hi if hi is None else max(hi, p_hi)
        total += float(values.sum(dtype=np.float64))
        finite_count += int(values.size)
    if kind == FLOAT and lo is None:  # everything NaN/inf: report the infinities if any
        lo = -np.inf if neginf else (np.inf if posinf else np.nan)
        hi = np.inf if posinf else (-np.inf if neginf else np.nan)
    mean = total / finite_count if finite_count else float("nan")
    if kind in (BOOL, INT):
        lo, hi = int(lo), int(hi)
    else:
        lo, hi = float(lo), float(hi)
    return TensorStats(count, lo, hi, mean, nan, posinf, neginf, of_magnitude=kind == COMPLEX)


# --------------------------------------------------------------------------- exact text


def format_value(value) -> str:
    """Exact text for one element: the shortest text that round-trips for its dtype.

    float16/32/64 use numpy's shortest unique repr; ml_dtypes floats (bfloat16) go
    through float32, whose shortest repr identifies the value exactly; complex is
    ``real+imagj`` with both parts exact; strings/bytes are shown as they are.
    """
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode("utf-8", "replace")
    if isinstance(value, (str, np.str_)):
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return "True" if value else "False"
    if isinstance(value, (np.complexfloating, complex)):
        real = np.asarray(value).real[()]
        imag = np.asarray(value).imag[()]
        sign = "-" if math.copysign(1.0, float(imag)) < 0 else "+"
        return f"{format_value(real)}{sign}{format_value(abs(imag))}j"
    if isinstance(value, np.generic) and np.dtype(type(value)).kind == "V":
        return str(np.float32(value))
    if isinstance(value, (np.floating, float)):
        return str(np.float64(value)) if isinstance(value, float) else str(value)
    if isinstance(value, (np.integer, int)):
        return str(int(value))
    return str(value)


def exact_decimal(value) -> str | None:
    """The exact decimal value a float element holds, when its :func:`format_value` text
    only reads back to it: float32 ``1.1`` holds ``1.10000002384185791015625``. None when
    that text is the value exactly (``0.5``, ``3.0``, integers, bools, strings, NaN and
    infinities); complex values give ``real+imagj`` with both parts exact."""
    if isinstance(value, (np.complexfloating, complex)):
        real, imag = np.asarray(value).real[()], np.asarray(value).imag[()]
        if exact_decimal(real) is None and exact_decimal(imag) is None:
            return None
        sign = "-" if math.copysign(1.0, float(imag)) < 0 else "+"
        parts = [exact_decimal(part) or format_value(part) for part in (real, abs(imag))]
        return f"{parts[0]}{sign}{parts[1]}j"
    floating = isinstance(value, (np.floating, float)) or (
        isinstance(value, np.generic) and np.dtype(type(value)).kind == "V")
    if not floating or not math.isfinite(float(value)):
        return None
    exact = Decimal(float(value))
    if Decimal(format_value(value)) == exact:
        return None
    return str(exact) if "E" not in str(exact) else f"{exact:f}"


def format_short(value, kind: str) -> str:
    """Compact text for drawing inside a heat-map cell (about 5 characters)."""
    if kind == BOOL:
        return "T" if value else "F"
    if kind == INT:
        return str(int(value))
    value = float(value)
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value == int(value) and abs(value) < 1e5:
        return str(int(value))
    return f"{value:.3g}"
