"""pyqtgraph panels of the Picture tab: heat maps, 1-D plots, scalars and messages.

The viewer describes what to draw with ``PanelSpec`` values (already sliced, downsampled
and converted to float32); ``PictureArea`` turns a list of specs into a row of plots.
When the list has the same kinds as last time the existing items are updated in place,
so moving a slider keeps the zoom.
"""
from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from .. import theme
from . import colors
from .plot_title import FittedTitle
from .slicing import peak_blocks

HoverFn = Callable[[float, float], "str | None"]


class Pool(enum.Enum):
    """How a heat map's picture is reduced to screen pixels (see :class:`PoolingImageItem`)."""

    MEAN = "mean"   # pyqtgraph's own averaging
    MAX = "max"     # a pixel is lit when any cell it covers is (difference masks)
    PEAK = "peak"   # a pixel shows one extreme of its cells (value pictures)


@dataclass
class PanelSpec:
    """What one panel shows.

    kind: ``heat`` (2-D float image), ``line`` (1-D plot), ``text`` (a large label).
    values: heat: the downsampled 2-D float32 picture; line: y values.
    extent: heat: (width, height) of the picture in original index units, so the axes
      show true indices even when downsampled.
    cell_texts: heat: one string per cell, drawn inside the cells (small tensors only).
    hover: maps view coordinates (x, y) to the hover label text (or None).
    pool: heat: how the picture is reduced further to screen pixels.
    refined: heat: ``values`` is the peak-preserving picture computed in the background
      (not the stride sample shown until it is ready).
    finite_range: heat: (min, max) of the finite values, for a colour scale shared by
      every panel with the same ``level_group`` (pinned and current parts of a tensor).
    level_group: heat: panels of one group share one colour scale (None: their own).
    marks: heat: (rows, cols) of cells to ring (a few changed cells of a large difference).
    mask: difference panels: the changed-cells mask drawn (per display block).
    pending: a difference still being computed in the background.
    categorical: line: the values are categories (bools): the y axis shows no numbers.
    value_texts: line with bars: the text written at each bar (its value).
    """

    kind: str
    title: str = ""
    values: np.ndarray | None = None
    x: np.ndarray | None = None
    levels: tuple[float, float] = (0.0, 1.0)
    cmap: pg.ColorMap | None = None
    extent: tuple[float, float] | None = None
    cell_texts: list[list[str]] | None = None
    bars: bool = False
    bar_colours: list[tuple[int, int, int]] | None = None
    colorbar: bool = True
    colorbar_ticks: list[tuple[float, str]] | None = None
    text: str = ""
    hover: HoverFn | None = None
    nan_overlay: bool = True
    row: int = 0
    pool: Pool = Pool.MEAN
    refined: bool = False
    finite_range: tuple[float, float] | None = None
    level_group: str | None = None
    marks: tuple[np.ndarray, np.ndarray] | None = None
    mask: np.ndarray | None = None
    pending: bool = False
    categorical: bool = False
    value_texts: list[str] | None = None

    def signature(self) -> tuple:
        return (self.kind, self.bars, self.colorbar, self.row)

    def reuse_key(self) -> tuple:
        """Panels built for specs with one key can show each other's specs (the row is
        only where the panel is placed)."""
        return (self.kind, self.bars, self.colorbar)


class CellTextItem(pg.GraphicsObject):
    """Draws one string centred in each unit cell of a picture.

    Text is laid out in device pixels (it stays crisp and readable while zooming) and is
    only drawn when a cell is at least ``MIN_CELL_PX`` pixels, so it never becomes a smear.
    """

    MIN_CELL_PX = 14

    def __init__(self):
        super().__init__()
        self.texts: list[list[str]] = []
        self.colours: list[list[tuple[int, int, int]]] = []
        self._rect = QtCore.QRectF()

    def set_texts(self, texts: list[list[str]] | None, colours: list[list[tuple[int, int, int]]] | None) -> None:
        self.prepareGeometryChange()
        self.texts = texts or []
        self.colours = colours or []
        rows = len(self.texts)
        cols = len(self.texts[0]) if rows else 0
        self._rect = QtCore.QRectF(0, 0, cols, rows)
        self.update()

    def boundingRect(self) -> QtCore.QRectF:
        return self._rect

    def paint(self, painter: QtGui.QPainter, *args) -> None:
        if not self.texts:
            return
        transform = painter.transform()
        cell = transform.mapRect(QtCore.QRectF(0, 0, 1, 1))
        cell_w, cell_h = abs(cell.width()), abs(cell.height())
        if min(cell_w, cell_h) < self.MIN_CELL_PX:
            return
        longest = max(max((len(t) for t in row), default=1) for row in self.texts) or 1
        size = int(min(cell_h * 0.4, cell_w * 0.9 / (0.6 * longest), 18))
        if size < 7:
            return
        painter.save()
        painter.resetTransform()
        font = QtGui.QFont()
        font.setPixelSize(size)
        painter.setFont(font)
        for r, row in enumerate(self.texts):
            for c, text in enumerate(row):
                rect = transform.mapRect(QtCore.QRectF(c, r, 1, 1))
                painter.setPen(QtGui.QColor(*self.colours[r][c]))
                painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class BarTextItem(pg.GraphicsObject):
    """Writes each bar's value above it (below a negative bar), in device pixels.

    The text is laid flat when it fits the bar's slot, else turned upright; when neither
    fits at ``MIN_FONT_PX`` nothing is written (the hover line still says the value). Text
    that would leave the plot is moved inside it (onto the bar)."""

    MIN_FONT_PX = 7
    MAX_FONT_PX = 11

    def __init__(self):
        super().__init__()
        self.x = np.zeros(0)
        self.y = np.zeros(0)
        self.texts: list[str] = []
        self._rect = QtCore.QRectF()

    def set_values(self, x: np.ndarray, y: np.ndarray, texts: list[str] | None) -> None:
        self.prepareGeometryChange()
        self.texts = list(texts or [])
        self.x = np.asarray(x, float)[: len(self.texts)]
        self.y = np.nan_to_num(np.asarray(y, float), nan=0.0, posinf=0.0, neginf=0.0)[: len(self.texts)]
        if self.texts:
            lo, hi = min(0.0, float(self.y.min())), max(0.0, float(self.y.max()))
            self._rect = QtCore.QRectF(float(self.x.min()) - 0.5, lo, float(self.x.max() - self.x.min()) + 1.0, hi - lo)
        else:
            self._rect = QtCore.QRectF()
        self.update()

    def boundingRect(self) -> QtCore.QRectF:
        return self._rect

    def paint(self, painter: QtGui.QPainter, *args) -> None:
        if not self.texts:
            return
        vb = self.getViewBox()
        if vb is None:
            return
        transform = painter.transform()
        slot = abs(transform.mapRect(QtCore.QRectF(0, 0, 1, 1)).width())
        clip = transform.mapRect(vb.viewRect()).normalized()
        longest = max(self.texts, key=len)
        font = QtGui.QFont()
        upright = False
        for size in range(self.MAX_FONT_PX, self.MIN_FONT_PX - 1, -1):
            font.setPixelSize(size)
            metrics = QtGui.QFontMetricsF(font)
            if metrics.horizontalAdvance(longest) + 2 <= slot:
                break
            if metrics.height() <= slot:
                upright = True
                break
        else:
            return
        painter.save()
        painter.resetTransform()
        painter.setFont(font)
        painter.setPen(QtGui.QColor(theme.plot_colours().text))
        metrics = QtGui.QFontMetricsF(font)
        # strict=False: set_values cuts x and y to the texts, not the texts to x
        for x, y, text in zip(self.x, self.y, self.texts, strict=False):
            anchor = transform.map(QtCore.QPointF(x, y))
            length, thick = metrics.horizontalAdvance(text) + 2, metrics.height()
            w, h = (thick, length) if upright else (length, thick)
            top = anchor.y() - h - 2 if y >= 0 else anchor.y() + 2
            top = min(max(top, clip.top()), clip.bottom() - h)   # keep it in the plot
            rect = QtCore.QRectF(anchor.x() - w / 2, top, w, h)
            if upright:
                painter.save()
                painter.translate(rect.center())
                painter.rotate(-90)
                painter.drawText(QtCore.QRectF(-h / 2, -w / 2, h, w), QtCore.Qt.AlignmentFlag.AlignCenter, text)
                painter.restore()
            else:
                painter.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, text)
        painter.restore()


class IntegerAxis(pg.AxisItem):
    """An axis that labels only whole indices (no 0.5 ticks between cells); with ``limit``
    set (a heat map's row or column count), only the indices that exist, ``0..limit-1``, so
    the room an aspect-locked picture leaves around a 1 x 5 tensor is not labelled -2..2.

    Labels never overlap: ticks are at least one label (width on a horizontal axis, height
    on a vertical one) plus ``LABEL_GAP`` pixels apart, on multiples of 1, 2, 5, 10, 20, ...
    (pyqtgraph always draws its first tick level, however crowded)."""

    limit: int | None = None
    LABEL_GAP = 6

    def _label_room(self, first: int, last: int) -> float:
        """Pixels one tick needs along the axis for labels between ``first`` and ``last``."""
        metrics = QtGui.QFontMetricsF(self.style.get("tickFont") or QtGui.QFont())
        if self.orientation in ("left", "right"):
            return metrics.height() + self.LABEL_GAP
        widest = max((str(first), str(last)), key=len)
        return metrics.horizontalAdvance(widest) + self.LABEL_GAP

    def tickValues(self, minVal, maxVal, size):  # noqa: N803 - pyqtgraph's parameter names
        lo, hi = min(minVal, maxVal), max(minVal, maxVal)  # an inverted axis passes them reversed
        span = hi - lo
        per_unit = size / span if span > 0 and size > 0 else float("inf")
        if self.limit is not None:
            lo, hi = max(lo, 0), min(hi, self.limit - 1)
            if hi < lo:
                return []
        first, last = int(np.ceil(lo)), int(np.floor(hi))
        if last < first:
            return []
        # the smallest whole spacing (1, 2, 5 x 10^k) whose labels do not touch
        room = self._label_room(first, last)
        least = 1
        while least * per_unit < room and least < 10 ** 15:
            least = least * 5 // 2 if str(least)[0] == "2" else least * 2
        levels = []
        for spacing, values in super().tickValues(lo, hi, size):
            if spacing < least:
                continue
            values = [v for v in values if float(v).is_integer() and lo <= v <= hi]
            levels.append((spacing, values))
        if not levels or not any(values for _, values in levels):
            start = -(-first // least) * least
            levels = [(float(least), list(range(start, last + 1, least)) or [first])]
        return levels


def max_pool_2d(image: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Block maximum of a 2-D float picture over ``rows`` x ``cols`` blocks (edge blocks may
    be smaller). NaN is ignored unless a whole block is NaN (``np.fmax``)."""
    out = image
    if rows > 1:
        out = np.fmax.reduceat(out, np.arange(0, out.shape[0], rows), axis=0)
    if cols > 1:
        out = np.fmax.reduceat(out, np.arange(0, out.shape[1], cols), axis=1)
    return out


class PoolingImageItem(pg.ImageItem):
    """An ImageItem whose automatic reduction to screen pixels can keep the block maximum.

    pyqtgraph's ``autoDownsample`` averages blocks of pixels, so a single changed cell of a
    1000 x 1000 difference mask shown 250 pixels wide becomes 1/16 of "changed" and is
    drawn as "same". With ``pool = Pool.MAX`` a screen pixel is lit when any cell it covers
    is lit (the change mask is max-pooled to the display grid). With ``Pool.PEAK``
    (value heat maps) a screen pixel shows one extreme of the cells it covers
    (``slicing.peak_blocks``), so a single outlier keeps its full colour instead of a
    quarter of it. ``Pool.MEAN`` is pyqtgraph's own behaviour.
    """

    def __init__(self, *args, **kwargs):
        self.pool = Pool.MEAN
        super().__init__(*args, **kwargs)

    def _computeDownsampleFactors(self):
        """Whole cells per screen pixel, rounded *up* (pyqtgraph rounds down): the reduced
        picture has at most one column (row) per screen pixel, so Qt only enlarges it, and
        nearest-neighbour enlarging never drops a column, where shrinking would (one-cell
        lines of a large tensor vanished at some panel sizes)."""
        o = self.mapToDevice(QtCore.QPointF(0, 0))
        x = self.mapToDevice(QtCore.QPointF(1, 0))
        y = self.mapToDevice(QtCore.QPointF(0, 1))
        if o is None:
            return 1, 1
        w = math.hypot(x.x() - o.x(), x.y() - o.y())
        h = math.hypot(y.x() - o.x(), y.y() - o.y())
        if w == 0 or h == 0:
            return 1, 1
        return max(1, math.ceil(1.0 / w - 1e-6)), max(1, math.ceil(1.0 / h - 1e-6))

    def render(self):
        if self.pool is Pool.MEAN or not self.autoDownsample or self.image is None or self.image.size == 0:
            return super().render()
        xds, yds = self._computeDownsampleFactors()
        if xds is None or (xds, yds) == (1, 1):
            return super().render()
        full = self.image
        row_axis, col_axis = (0, 1) if self.axisOrder == "row-major" else (1, 0)
        factors = {row_axis: yds, col_axis: xds}
        pool = max_pool_2d if self.pool is Pool.MAX else peak_blocks
        pooled = pool(full, factors[0], factors[1])
        # render the pooled picture with pyqtgraph's own code; paint() keeps drawing it over
        # the full image's rectangle because self.image is restored before painting
        self.image, self.autoDownsample = pooled, False
        self._imageHasNans = None
        try:
            super().render()
        finally:
            self.image, self.autoDownsample = full, True
            self._imageHasNans = None
        self._lastDownsample = (xds, yds)


def _index_plot() -> pg.PlotItem:
    return pg.PlotItem(axisItems={"left": IntegerAxis("left"), "bottom": IntegerAxis("bottom")})


class HeatPanel:
    """A PlotItem with an ImageItem, a NaN overlay, cell texts and a colour bar.

    Cell (r, c) is centred on (x=c, y=r) in original index units, so the axes label
    whole indices; a downsampled picture keeps those units (one pixel spans a stride).
    """

    def __init__(self, spec: PanelSpec):
        self.plot = _index_plot()
        self.title = FittedTitle(self.plot)
        self.plot.invertY(True)
        self.plot.showGrid(False, False)
        # autoDownsample: the (<= 2048 px) picture is reduced again to the screen by pyqtgraph,
        # so one-pixel lines in a large tensor stay visible instead of aliasing away
        self.image_item = PoolingImageItem(axisOrder="row-major", autoDownsample=True)
        self.nan_item = pg.ImageItem(axisOrder="row-major")
        self.nan_item.setZValue(5)
        self.text_item = CellTextItem()
        self.text_item.setPos(-0.5, -0.5)
        self.text_item.setZValue(10)
        # rings around a few changed cells of a large difference picture (spec.marks)
        self.marks_item = pg.ScatterPlotItem(symbol="o", size=14, pxMode=True, brush=None,
                                             pen=pg.mkPen(colors.CHANGED_RGB, width=2))
        self.marks_item.setZValue(8)
        for item in (self.image_item, self.nan_item, self.text_item, self.marks_item):
            self.plot.addItem(item)
        self.colorbar: pg.ColorBarItem | None = None
        if spec.colorbar:
            self.colorbar = pg.ColorBarItem(
                values=spec.levels, colorMap=spec.cmap or colors.colormap(), interactive=False, width=16
            )
            self.colorbar.setImageItem(self.image_item)
        self.spec = spec
        self._shape: tuple | None = None
        self.update(spec)

    def items(self) -> list:
        return [self.plot] + ([self.colorbar] if self.colorbar is not None else [])

    def update(self, spec: PanelSpec) -> None:
        self.spec = spec
        self.title.set(spec.title)
        values = spec.values
        cmap = spec.cmap or colors.colormap()
        self.image_item.pool = spec.pool
        extent = spec.extent or (values.shape[1], values.shape[0])
        self.image_item.setImage(values, autoLevels=False, levels=spec.levels)
        self.image_item.setRect(QtCore.QRectF(-0.5, -0.5, extent[0], extent[1]))
        self.plot.getAxis("bottom").limit = int(extent[0])
        self.plot.getAxis("left").limit = int(extent[1])
        if self.colorbar is not None:
            self.colorbar.setColorMap(cmap)
            self.colorbar.setLevels(spec.levels)
            axis = self.colorbar.axis
            if spec.colorbar_ticks:
                axis.setTicks([spec.colorbar_ticks])
                # reserve room for the words, or a crowded layout hides them
                metrics = QtGui.QFontMetrics(axis.style.get("tickFont") or QtGui.QFont())
                axis.setWidth(max(metrics.horizontalAdvance(label) for _, label in spec.colorbar_ticks) + 14)
            else:
                axis.setTicks(None)
                axis.setWidth(None)
        else:
            self.image_item.setLookupTable(colors.lookup_table(cmap))
            self.image_item.setLevels(spec.levels)
        overlay = colors.nan_overlay(values) if spec.nan_overlay and values.dtype.kind == "f" else None
        if overlay is None:
            self.nan_item.clear()
            self.nan_item.setVisible(False)
        else:
            self.nan_item.setImage(overlay, autoLevels=False)
            self.nan_item.setRect(QtCore.QRectF(-0.5, -0.5, extent[0], extent[1]))
            self.nan_item.setVisible(True)
        marks = spec.marks
        if marks is None:
            self.marks_item.clear()
        else:
            self.marks_item.setData(x=np.asarray(marks[1], float), y=np.asarray(marks[0], float))
        if spec.cell_texts:
            lut = colors.lookup_table(cmap)
            lo, hi = spec.levels
            span = (hi - lo) or 1.0
            colours = []
            for r, row in enumerate(spec.cell_texts):
                line = []
                for c in range(len(row)):
                    v = float(values[r, c])
                    if np.isnan(v):
                        line.append((0, 0, 0))
                        continue
                    frac = min(1.0, max(0.0, (v - lo) / span))
                    rgb = lut[int(frac * (len(lut) - 1))][:3]
                    luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
                    line.append((0, 0, 0) if luminance > 140 else (255, 255, 255))
                colours.append(line)
            self.text_item.set_texts(spec.cell_texts, colours)
            # a grid of texts spans the picture: one text per cell, or one across a constant
            text_rows, text_cols = len(spec.cell_texts), len(spec.cell_texts[0])
            self.text_item.setTransform(QtGui.QTransform.fromScale(extent[0] / text_cols, extent[1] / text_rows))
        else:
            self.text_item.set_texts(None, None)
        shape = (extent[0], extent[1])
        if shape != self._shape:
            self._shape = shape
            ratio = max(extent) / max(1.0, min(extent))
            self.plot.setAspectLocked(ratio <= 6)
            self.plot.vb.setRange(xRange=(-0.5, extent[0] - 0.5), yRange=(-0.5, extent[1] - 0.5), padding=0.02)


class LinePanel:
    """A 1-D plot: bars for short vectors, a line for long ones; NaN marked with ×."""

    def __init__(self, spec: PanelSpec):
        self.plot = pg.PlotItem(axisItems={"bottom": IntegerAxis("bottom")})
        self.title = FittedTitle(self.plot)
        self.plot.showGrid(True, True, alpha=0.25)
        self.bars: pg.BarGraphItem | None = None
        self.curve: pg.PlotDataItem | None = None
        self.nan_marks = pg.ScatterPlotItem(symbol="x", size=10, pen=pg.mkPen(colors.NAN_RGBA[:3], width=2),
                                            brush=pg.mkBrush(colors.NAN_RGBA[:3]))
        self.plot.addItem(self.nan_marks)
        self.value_texts = BarTextItem()
        self.value_texts.setZValue(10)
        self.plot.addItem(self.value_texts, ignoreBounds=True)
        self.spec = spec
        self.update(spec)

    def items(self) -> list:
        return [self.plot]

    def update(self, spec: PanelSpec) -> None:
        self.spec = spec
        self.title.set(spec.title)
        self.plot.getAxis("left").setStyle(showValues=not spec.categorical)
        y = np.asarray(spec.values, dtype=np.float32)
        x = spec.x if spec.x is not None else np.arange(len(y), dtype=np.float64)
        nan = ~np.isfinite(y)
        clean = np.where(nan, 0.0, y)
        if spec.bars:
            brushes = [pg.mkBrush(c) for c in spec.bar_colours] if spec.bar_colours else None
            opts = dict(x=x, height=clean, width=0.8)
            if brushes:
                opts["brushes"] = brushes
                opts["pen"] = None
            else:
                colour = colors.lookup_table(colors.colormap())[100][:3]
                opts["brush"] = pg.mkBrush(colour)
                # an outline in the bar's colour: a bar of height 0 is a visible 2 px line
                opts["pen"] = pg.mkPen(colour, width=2)
            if self.bars is None:
                self.bars = pg.BarGraphItem(**opts)
                self.plot.addItem(self.bars)
            else:
                self.bars.setOpts(**opts)
        else:
            if self.curve is None:
                self.curve = pg.PlotDataItem(pen=pg.mkPen((80, 170, 255), width=1.5))
                self.plot.addItem(self.curve)
            self.curve.setData(x, y, connect="finite")
        if nan.any():
            self.nan_marks.setData(x[nan], np.zeros(int(nan.sum())))
        else:
            self.nan_marks.clear()
        texts = spec.value_texts if spec.bars else None
        self.value_texts.set_values(x, clean, texts)
        self.plot.vb.autoRange(padding=0.05)
        if texts:  # room above (below) the bars for their values
            lo, hi = min(0.0, float(clean.min())), max(0.0, float(clean.max()))
            span = (hi - lo) or 1.0
            self.plot.vb.setYRange(lo - (0.22 * span if lo < 0 else 0.04 * span),
                                   hi + (0.22 * span if hi > 0 or lo == 0 else 0.04 * span), padding=0)


class TextPanel:
    """A big centred label: a 0-D scalar's value or a message such as 'table only'."""

    def __init__(self, spec: PanelSpec):
        self.label = pg.LabelItem(justify="center")
        self.spec = spec
        self.update(spec)

    def items(self) -> list:
        return [self.label]

    def update(self, spec: PanelSpec) -> None:
        self.spec = spec
        plot = theme.plot_colours()
        title = f"<span style='font-size:10pt;color:{plot.foreground}'>{spec.title}</span><br>" if spec.title else ""
        self.label.setText(f"{title}<span style='font-size:20pt;color:{plot.text}'>{spec.text}</span>")


_PANEL_TYPES = {"heat": HeatPanel, "line": LinePanel, "text": TextPanel}


class PictureArea(pg.GraphicsLayoutWidget):
    """Panels laid out in rows. ``hovered`` carries the text for the hover label.

    Panels flow left to right. When they do not all fit side by side (about
    ``MIN_PANEL_WIDTH`` pixels each), each group (``PanelSpec.row``: pinned = 0, current and
    difference = 1) starts a new row and wraps; the layout follows the widget's width.
    Each row is at least ``MIN_HEIGHT`` of its tallest kind high (a title, a plot of about
    80 pixels and its axis): put the area in a ``PictureScroll`` and the rows that do not
    fit the height are scrolled to instead of being squeezed to a few pixels.
    """

    hovered = QtCore.Signal(str)
    #: Narrowest useful width of each kind of panel, in pixels (heat maps include the bar).
    MIN_WIDTH = {"heat": 280, "line": 220, "text": 160}
    #: Lowest useful height of a row holding each kind of panel, in pixels.
    MIN_HEIGHT = {"heat": 150, "line": 140, "text": 70}
    #: Off-screen panels kept per reuse key (compare shows up to 5 heat maps of one kind).
    MAX_SPARES = 6
    #: Room around and between the layout's items (pyqtgraph's margins and spacing), pixels.
    LAYOUT_MARGIN = 24
    ITEM_SPACING = 8

    def __init__(self, parent=None):
        super().__init__(parent=parent)
        self.setBackground(theme.plot_colours().background)
        theme.theme().changed.connect(self._theme_changed)
        self.panels: list[HeatPanel | LinePanel | TextPanel] = []
        # panels taken off screen by a change of mode, kept for reuse (reuse_key -> panels)
        self._spares: dict[tuple, list] = {}
        self._signature: tuple = ()
        self._arrangement: tuple = ()
        # one sub-layout per row: rows do not share column widths (a wide colour bar with
        # words in one row pushed the narrower rows' bars out of the picture)
        self._row_layouts: list[pg.GraphicsLayout] = []
        self.scene().sigMouseMoved.connect(self._on_mouse_moved)

    def _theme_changed(self, _mode) -> None:
        """Light or dark: the background, and the panels' text colours (``theme.plot_colours``)."""
        self.setBackground(theme.plot_colours().background)
        for panel in self.panels:
            panel.update(panel.spec)

    def show_panels(self, specs: list[PanelSpec]) -> None:
        signature = tuple(s.signature() for s in specs)
        if signature == self._signature and len(self.panels) == len(specs):
            for panel, spec in zip(self.panels, specs, strict=True):
                panel.update(spec)
            self._place()  # new titles can need more room
            return
        self._detach()
        for panel in self.panels:  # keep the old panels: building PlotItems is the slow part
            spares = self._spares.setdefault(panel.spec.reuse_key(), [])
            if len(spares) < self.MAX_SPARES:
                spares.append(panel)
        self.panels = [self._panel_for(spec) for spec in specs]
        self._signature = signature
        self._arrangement = ()
        self._place()

    def update_panel(self, index: int, spec: PanelSpec) -> None:
        """Show ``spec`` in panel ``index`` (a spec of the same kind); the others stay."""
        panel = self.panels[index]
        if spec.signature() != panel.spec.signature():
            raise ValueError(f"panel {index} is a {panel.spec.signature()}, not a {spec.signature()}")
        panel.update(spec)
        self._place()

    def _panel_for(self, spec: PanelSpec):
        """A spare panel of the same kind updated to ``spec`` (its zoom reset), else a new one."""
        spares = self._spares.get(spec.reuse_key())
        if not spares:
            return _PANEL_TYPES[spec.kind](spec)
        panel = spares.pop()
        if isinstance(panel, HeatPanel):
            panel._shape = None  # another tensor: show all of it
        panel.update(spec)
        return panel

    def arrangement(self) -> tuple[tuple[int, ...], ...]:
        """Rows of panel indices for the current width (see the class docstring)."""
        width = max(1, self.width()) - self.LAYOUT_MARGIN
        needs = [self.needed_width(p) for p in self.panels]
        if sum(needs) <= width:
            return (tuple(range(len(self.panels))),)
        rows: list[list[int]] = []
        group = None
        used = 0
        for i, panel in enumerate(self.panels):
            if panel.spec.row != group or (rows and used + needs[i] > width):
                rows.append([])
                group, used = panel.spec.row, 0
            rows[-1].append(i)
            used += needs[i]
        return tuple(tuple(r) for r in rows)

    def needed_width(self, panel) -> float:
        """Pixels one panel needs: its kind's ``MIN_WIDTH`` or, when more, what its items
        ask for as a minimum (a long title, a colour bar with words) plus the spacing."""
        measured = 0.0
        for item in panel.items():
            width = item.effectiveSizeHint(QtCore.Qt.SizeHint.MinimumSize).width()
            title = getattr(panel, "title", None)
            if title is not None and item is panel.plot:  # the whole title above the view box
                width = max(width, title.natural_width + item.getAxis("left").width())
            measured += width + self.ITEM_SPACING
        return max(self.MIN_WIDTH.get(panel.spec.kind, 200), measured)

    def _place(self) -> None:
        arrangement = self.arrangement()
        if arrangement == self._arrangement:
            return
        self._detach()
        self._arrangement = arrangement
        heights = [max(self.MIN_HEIGHT.get(self.panels[i].spec.kind, 100) for i in members) for members in arrangement]
        self.setMinimumHeight(sum(heights) + self.ITEM_SPACING * (len(heights) - 1) if heights else 0)
        for row, members in enumerate(arrangement):
            sub = self.ci.addLayout(row=row, col=0)
            sub.setContentsMargins(0, 0, 0, 0)
            self._row_layouts.append(sub)
            col = 0
            for i in members:
                for item in self.panels[i].items():
                    sub.addItem(item, row=0, col=col)
                    col += 1

    def _detach(self) -> None:
        """Take every panel item out of the row layouts and drop the rows."""
        for sub in self._row_layouts:
            for item in list(sub.items):
                sub.removeItem(item)
        self._row_layouts = []
        self.ci.clear()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        if getattr(self, "panels", None):
            self._place()

    def heat_panels(self) -> list[HeatPanel]:
        return [p for p in self.panels if isinstance(p, HeatPanel)]

    def _on_mouse_moved(self, pos) -> None:
        for panel in self.panels:
            plot = getattr(panel, "plot", None)
            if plot is None or panel.spec.hover is None:
                continue
            if plot.vb.sceneBoundingRect().contains(pos):
                point = plot.vb.mapSceneToView(pos)
                text = panel.spec.hover(point.x(), point.y())
                if text:
                    self.hovered.emit(text)
                return


class PictureScroll(QtWidgets.QScrollArea):
    """Scrolls a ``PictureArea`` up and down when its rows need more height than there is
    (compare mode in a small dock); otherwise the area fills it. Never scrolls sideways:
    the area rearranges its panels to the width instead."""

    def __init__(self, picture: PictureArea, parent=None):
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Expanding)
        self.setWidget(picture)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)   # no invisible stop for Tab

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(80, 80)

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(400, 300)
