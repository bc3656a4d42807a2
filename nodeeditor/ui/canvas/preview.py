"""What an inline preview draws on a node: the tensor's colour image (from the viewer's
thumbnail code) and, separately, the text written over it (the values of a small tensor, or
a scalar's value). The node paints the text as vector text with the painter's transform, so
it is rasterised at screen resolution at every zoom: text baked into the small image lost its
one-pixel strokes (the minus of ``-1``) when the image was drawn scaled down.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui

from nodeeditor.ui.viewer.slicing import format_value, is_drawable
from nodeeditor.ui.viewer.thumbnail import thumbnail_rgba, to_qimage, value_cells, value_plane

#: Text drawn smaller than this (screen pixels) is left out: below it digits and signs
#: cannot be told apart, and a value that reads wrong is worse than none.
MIN_LEGIBLE_PX = 6.0


@dataclass(frozen=True)
class PreviewText:
    """Text over a preview image: ``pixel_size`` in image pixels, and for each piece its
    rectangle (image pixels), text and colour."""
    pixel_size: float
    cells: tuple[tuple[QtCore.QRectF, str, QtGui.QColor], ...]


def preview(array: np.ndarray | None, width: int, height: int) -> tuple[QtGui.QImage, PreviewText | None]:
    """The colour image of ``array`` (``width x height``, no text) and the text to draw over
    it, by the same rules as ``viewer.thumbnail``: a 2-D (or first 2-D slice) tensor, or a
    short 1-D one, gets its values when every cell has room for its value; a scalar its value;
    strings "abc"."""
    rgba = thumbnail_rgba(array, width, height)
    image = to_qimage(rgba)
    text = None
    if array is not None and array.ndim == 0:
        text = format_value(array[()])
    elif array is not None and array.size and not is_drawable(array.dtype):
        text = "abc"
    if text:
        size = max(8, min(height // 2, 14))
        rect = QtCore.QRectF(0, 0, width, height)
        return image, PreviewText(size, ((rect, text[:12], QtGui.QColor(230, 230, 230)),))
    plane = value_plane(array, width, height)
    cells = value_cells(rgba, plane) if plane is not None else None
    return image, (PreviewText(cells[0], tuple(cells[1])) if cells is not None else None)


def draw_text(painter: QtGui.QPainter, target: QtCore.QRectF, image_size: QtCore.QSize,
              text: PreviewText) -> bool:
    """Draw ``text`` over an image of ``image_size`` drawn into ``target`` (item units).
    Returns False (drawing nothing) when the text would be under :data:`MIN_LEGIBLE_PX`
    screen pixels at the painter's current scale."""
    sx = target.width() / max(1, image_size.width())
    sy = target.height() / max(1, image_size.height())
    t = painter.worldTransform()
    screen_scale = min(abs(t.m11()) + abs(t.m21()), abs(t.m22()) + abs(t.m12()))
    if text.pixel_size * sy * screen_scale < MIN_LEGIBLE_PX:
        return False
    font = QtGui.QFont(painter.font())
    font.setBold(False)
    font.setPixelSize(max(1, round(text.pixel_size * sy)))
    # vector outlines scaled with the painter, not hinted at item size
    font.setHintingPreference(QtGui.QFont.HintingPreference.PreferNoHinting)
    painter.save()
    painter.setFont(font)
    for rect, value, colour in text.cells:
        cell = QtCore.QRectF(target.left() + rect.left() * sx, target.top() + rect.top() * sy,
                             rect.width() * sx, rect.height() * sy)
        painter.setPen(colour)
        painter.drawText(cell, QtCore.Qt.AlignmentFlag.AlignCenter, value)
    painter.restore()
    return True
