"""Colours shared by the viewer, the difference view and the node thumbnails.

Numbers in, RGBA bytes out: ``rgba`` maps a float picture through a lookup table, paints
NaN in ``NAN_RGBA`` (a magenta that appears nowhere in viridis) and is used both for the
thumbnails and for checking what the heat maps show.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg

#: The heat-map colormap name (perceptually uniform, readable in grey).
COLORMAP_NAME = "viridis"
#: NaN cells: magenta, not part of viridis.
NAN_RGBA = (255, 0, 255, 255)
#: bool pictures: False dark slate, True amber.
FALSE_RGB = (45, 52, 72)
TRUE_RGB = (250, 190, 40)
#: difference view: unchanged cells dark grey, changed cells bright red.
SAME_RGB = (72, 74, 84)
CHANGED_RGB = (255, 70, 50)
#: table cell backgrounds
CHANGED_BG = (255, 200, 190)
NAN_BG = (255, 210, 255)


def colormap() -> pg.ColorMap:
    """The viridis colormap used for every numeric heat map."""
    return pg.colormap.get(COLORMAP_NAME)


def two_colour_map(low: tuple[int, int, int], high: tuple[int, int, int]) -> pg.ColorMap:
    """A step colormap: values below 0.5 get ``low``, the rest ``high`` (bool, diff)."""
    return pg.ColorMap(pos=[0.0, 0.5, 0.5, 1.0], color=[low, low, high, high])


def bool_colormap() -> pg.ColorMap:
    return two_colour_map(FALSE_RGB, TRUE_RGB)


def diff_colormap() -> pg.ColorMap:
    return two_colour_map(SAME_RGB, CHANGED_RGB)


def lookup_table(cmap: pg.ColorMap, points: int = 256) -> np.ndarray:
    """An (points, 4) uint8 RGBA table for ``cmap``."""
    lut = cmap.getLookupTable(nPts=points, alpha=True)
    return np.asarray(lut, dtype=np.uint8)


def rgba(values: np.ndarray, levels: tuple[float, float], lut: np.ndarray) -> np.ndarray:
    """Map a 2-D float array to (rows, cols, 4) uint8 RGBA; NaN becomes ``NAN_RGBA``.

    Values are clipped to ``levels``; +inf takes the top colour, -inf the bottom one.
    """
    lo, hi = levels
    span = hi - lo if hi > lo else 1.0
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = (values.astype(np.float64) - lo) / span * (len(lut) - 1)
    nan = np.isnan(scaled)
    scaled = np.clip(np.where(nan, 0, scaled), 0, len(lut) - 1)
    out = lut[scaled.astype(np.intp)]
    out[nan] = NAN_RGBA
    return out


def nan_overlay(values: np.ndarray) -> np.ndarray | None:
    """RGBA overlay that is magenta on NaN cells and transparent elsewhere (None: no NaN)."""
    nan = np.isnan(values)
    if not nan.any():
        return None
    out = np.zeros(values.shape + (4,), dtype=np.uint8)
    out[nan] = NAN_RGBA
    return out
