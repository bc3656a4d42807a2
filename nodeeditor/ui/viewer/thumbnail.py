"""Small preview images of tensors, for drawing on canvas nodes.

``thumbnail(array, width, height)`` samples at most ``width x height`` elements (nearest
neighbour on index grids, so only that many are read and converted), colours them with the
viewer's colours and returns a ``QImage`` (Format_RGBA8888) of exactly that size:

- 2-D: heat map (viridis, NaN magenta, bool in the two bool colours, complex: magnitude);
- N-D: the first 2-D slice over the last two axes (index 0 on the others);
- 1-D: one row of cells with their values when every value gets a cell of
  ``MIN_TEXT_CELL`` (a short index vector reads like the viewer's table), else bars from
  zero (or from the minimum when all values are positive/negative);
- 0-D, strings, empty, None: a flat tile (strings and scalars get a short text).
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from . import colors
from .slicing import BOOL, COMPLEX, dtype_kind, finite_range, format_short, format_value, is_drawable, to_display_float

BACKGROUND = (30, 30, 36, 255)


def _sample_indices(length: int, count: int) -> np.ndarray:
    """``count`` indices spread over ``range(length)`` (nearest neighbour)."""
    return (np.arange(count) * length // count).astype(np.intp)


def _as_float(values: np.ndarray) -> np.ndarray:
    kind = dtype_kind(values.dtype)
    if kind == COMPLEX:
        return np.abs(values).astype(np.float32)
    return to_display_float(values)


def thumbnail_rgba(array: np.ndarray | None, width: int, height: int) -> np.ndarray:
    """The thumbnail as a (height, width, 4) uint8 array (no Qt)."""
    out = np.empty((height, width, 4), np.uint8)
    out[:] = BACKGROUND
    if array is None or array.size == 0 or array.ndim == 0 or not is_drawable(array.dtype):
        return out
    kind = dtype_kind(array.dtype)
    plane = value_plane(array, width, height)
    if plane is None:  # 1-D, too long for a cell per value
        n = array.shape[0]
        cols = _sample_indices(n, width) if n >= width else None
        if cols is None:  # fewer elements than pixels: each element gets a band of columns
            owner = (np.arange(width) * n // width).astype(np.intp)
            values = _as_float(array)[owner]
            gap = np.r_[True, owner[1:] != owner[:-1]] if n * 3 <= width else np.zeros(width, bool)
        else:
            values = _as_float(array[cols])
            gap = np.zeros(width, bool)
        lo, hi = finite_range(values)
        lo, hi = min(lo, 0.0), max(hi, 0.0)
        span = (hi - lo) or 1.0
        base = int(round((hi - 0.0) / span * (height - 1)))
        lut = colors.lookup_table(colors.colormap())
        bar_rgba = lut[170] if kind != BOOL else np.array(colors.TRUE_RGB + (255,), np.uint8)
        for x in range(width):
            v = values[x]
            if gap[x]:
                continue
            if np.isnan(v):
                out[:, x] = colors.NAN_RGBA
                continue
            v = min(max(v, lo), hi)
            top = int(round((hi - v) / span * (height - 1)))
            y0, y1 = sorted((top, base))
            out[y0 : y1 + 1, x] = bar_rgba
        return out
    rows = _sample_indices(plane.shape[0], height)
    cols = _sample_indices(plane.shape[1], width)
    values = _as_float(plane[np.ix_(rows, cols)])
    if kind == BOOL:
        lut = colors.lookup_table(colors.bool_colormap())
        return colors.rgba(values, (0.0, 1.0), lut)
    return colors.rgba(values, finite_range(values), colors.lookup_table(colors.colormap()))


def to_qimage(rgba: np.ndarray) -> QtGui.QImage:
    """A QImage that owns a copy of an (h, w, 4) uint8 RGBA array."""
    rgba = np.ascontiguousarray(rgba)
    height, width = rgba.shape[:2]
    image = QtGui.QImage(rgba.data, width, height, 4 * width, QtGui.QImage.Format.Format_RGBA8888)
    return image.copy()


def thumbnail(array: np.ndarray | None, width: int = 64, height: int = 48) -> QtGui.QImage:
    """A ``width x height`` preview of ``array`` (see the module docstring)."""
    if width <= 0 or height <= 0:
        raise ValueError("thumbnail size must be positive")
    image = to_qimage(thumbnail_rgba(array, width, height))
    text = None
    if array is not None and array.ndim == 0:
        text = format_value(array[()])
    elif array is not None and array.size and not is_drawable(array.dtype):
        text = "abc"
    plane = value_plane(array, width, height) if text is None and array is not None else None
    cells = value_cells(thumbnail_rgba(array, width, height), plane) if plane is not None else None
    if cells is not None:
        painter = QtGui.QPainter(image)
        font = painter.font()
        font.setPixelSize(cells[0])
        painter.setFont(font)
        for rect, value, colour in cells[1]:
            painter.setPen(colour)
            painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, value)
        painter.end()
    if text:
        painter = QtGui.QPainter(image)
        painter.setPen(QtGui.QColor(230, 230, 230))
        font = painter.font()
        font.setPixelSize(max(8, min(height // 2, 14)))
        painter.setFont(font)
        painter.drawText(QtCore.QRect(0, 0, width, height), QtCore.Qt.AlignmentFlag.AlignCenter, text[:12])
        painter.end()
    return image


#: Smallest cell (pixels) that gets its value written in it.
MIN_TEXT_CELL = (14, 11)


def value_plane(array: np.ndarray | None, width: int, height: int) -> np.ndarray | None:
    """The 2-D plane a ``width x height`` thumbnail draws as cells: the first 2-D slice over
    the last two axes of an N-D tensor, a 1-D tensor as one row when each of its values gets
    at least a ``MIN_TEXT_CELL`` cell; None for the rest (long 1-D, 0-D, empty, strings)."""
    if array is None or array.size == 0 or not is_drawable(array.dtype):
        return None
    if array.ndim >= 2:
        return array[(0,) * (array.ndim - 2)]
    if array.ndim == 1 and array.shape[0] * MIN_TEXT_CELL[0] <= width and MIN_TEXT_CELL[1] <= height:
        return array.reshape(1, -1)
    return None


def value_cells(rgba: np.ndarray, plane: np.ndarray):
    """``(pixel size, [(cell rect, text, colour), ...])`` for writing each element's value in
    its cell of the thumbnail ``rgba`` (black or white by the cell's brightness), or None when
    some cell has no room for its value (large tensors: colours only) or values are complex."""
    rows, cols = plane.shape
    height, width = rgba.shape[:2]
    if rows == 0 or cols == 0 or cols > width or rows > height:
        return None
    cell_w, cell_h = width / cols, height / rows
    kind = dtype_kind(plane.dtype)
    if kind == COMPLEX or cell_w < MIN_TEXT_CELL[0] or cell_h < MIN_TEXT_CELL[1]:
        return None
    texts = [[format_short(plane[r, c], kind) for c in range(cols)] for r in range(rows)]
    size = int(max(8, min(13, cell_h * 0.7)))
    font = QtGui.QFont()
    font.setPixelSize(size)
    metrics = QtGui.QFontMetrics(font)
    if max(metrics.horizontalAdvance(t) for row in texts for t in row) > cell_w - 2:
        return None
    cells = []
    for r in range(rows):
        for c in range(cols):
            rect = QtCore.QRectF(c * cell_w, r * cell_h, cell_w, cell_h)
            red, green, blue = (int(v) for v in rgba[min(height - 1, int(rect.center().y())),
                                                    min(width - 1, int(rect.center().x())), :3])
            light = 0.299 * red + 0.587 * green + 0.114 * blue > 140
            cells.append((rect, texts[r][c], QtGui.QColor(0, 0, 0) if light else QtGui.QColor(255, 255, 255)))
    return size, cells
