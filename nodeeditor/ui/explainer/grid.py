"""TensorGrid: one tensor drawn as a grid of value cells, with highlights and coordinates.

A tensor of any size and rank is drawn: an N-D tensor shows the 2-D slice through the leading
positions of its focus (the cell the current step marks), and a side longer than
:data:`MAX_CELLS`, or wider than the grid's width allows, shows a window of cells around the
focus (up to :data:`WINDOW` along an axis; as many columns as the width holds, down to the focus's
alone), with "…" where it is cut and the real coordinates of each row and column on the axes.
Nothing is ever replaced by a "too large" message.

Sizes follow the widget's font (presentation mode enlarges it): the cell height, the title
lines, the axes. The grid never draws outside its rectangle; its minimum width holds its
title lines and the focus's column, so a narrow room (a dock beside others on a projector)
shows fewer columns rather than scrolling sideways.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ops.explain import value_text

from .. import theme
from ..viewer.slicing import BOOL, FLOAT, INT, dtype_kind, format_short

#: Highlight roles and their colours (fill, border).
ROLE_COLOURS = {
    "index": ("#ffe9a8", "#c99a00"),    # the index value that decided the step
    "source": ("#cfe3ff", "#2f6fd6"),   # the cell read (gather) or the update written (scatter)
    "target": ("#ffd6b8", "#d4650f"),   # the cell written (scatter) or the output element (gather)
    "also": ("#f1e6ff", "#9a6dd7"),     # other elements touching the same cell
}
#: The mark of an index the op refuses (out of range): where the step-through stopped.
ERROR_COLOURS = ("#ffc9c4", "#b3261e")
#: Which mark the window centres on when a grid has several: the first role present here.
FOCUS_ORDER = ("error", "target", "source", "index", "also")
MAX_CELLS = 16   # a side up to this long is drawn whole (when the width allows)
WINDOW = 12      # a longer side shows this many cells around the focus
MIN_CELL, MAX_CELL = 24, 58  # cell width range (px at the default font); a wider text widens the cells
MASK = "?"  # what a masked cell shows
ELLIPSIS = "…"


@dataclass(frozen=True)
class Label:
    """A text a grid draws outside its cells (a title line, a coordinate, an ellipsis): drawn
    with ``QPainter.drawText(rect, align, text)`` in ``font`` and ``colour`` (widget coordinates)."""

    rect: QtCore.QRectF
    align: QtCore.Qt.AlignmentFlag
    text: str
    font: QtGui.QFont
    colour: QtGui.QColor


def cell_text(value, kind: str) -> str:
    """What a cell shows: the viewer's short rounding ("0.126", "-0.132"); the exact value
    (``value_text``) is the cell's tooltip."""
    if kind in (BOOL, INT, FLOAT):
        return format_short(value, kind)
    return value_text(value)


def _window(n: int, size: int, focus: int, current: range | None) -> range:
    """``size`` consecutive indices of ``range(n)`` holding ``focus``: ``current`` when it is
    that size and holds the focus away from its edges, else centred on the focus."""
    if n <= size:
        return range(n)
    if current is not None and len(current) == size and current.stop <= n:
        if current.start + 1 <= focus <= current.stop - 2 or (focus == 0 and current.start == 0) \
                or (focus == n - 1 and current.stop == n):
            return current
    start = max(0, min(n - size, focus - size // 2))
    return range(start, start + size)


class TensorGrid(QtWidgets.QWidget):
    """Draws ``full`` (see the module docstring) with a title. ``array`` is the 2-D (or 1-D,
    0-D) part being drawn, ``highlights`` maps positions in ``array`` to a role of
    ROLE_COLOURS, ``rows`` / ``cols`` are the drawn ranges of ``array``'s axes."""

    def __init__(self, title: str = "", parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.shown_title = title   # the title lines as last drawn, joined by a newline
        self._base_title = title   # the title without the note
        self.name = title
        self.note = ""
        self.full: np.ndarray | None = None   # the whole tensor; ``array`` is the 2-D part drawn
        self.array: np.ndarray | None = None
        self.prefix: tuple[int, ...] = ()     # the leading positions of ``array`` in ``full``
        self.highlights: dict[tuple, str] = {}
        self._marks: dict[tuple, str] = {}    # as given: positions (or prefixes) of ``full``
        self.focus: tuple[int, ...] | None = None   # the full position the window centres on
        self.rows: range = range(0)
        self.cols: range = range(0)
        #: True: every cell shows MASK instead of its value (the answer of a quiz question)
        self.masked = False
        self._version = 0                     # counts content changes: the key of the caches below
        self._cache: dict[str, tuple] = {}    # name -> (key, value): texts and sizes, per content
        self.setMinimumSize(60, 40)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Preferred)

    # ------------------------------------------------------------------ content
    @staticmethod
    def drawable(array: np.ndarray | None) -> bool:
        """Whether there is anything to draw (any size is drawn, through a window)."""
        return array is not None and array.size > 0

    def set_tensor(self, title: str, array: np.ndarray | None, note: str = "") -> None:
        """Show ``array`` titled ``title`` (plus ``note`` after the slice, e.g. "after step 3");
        the marks and the focus of the previous tensor are kept when the shape is the same
        (a scatter's output after each step)."""
        same = self.full is not None and array is not None and self.full.shape == array.shape
        self.name, self.note, self.full = title, note, array
        if not same:
            self._marks, self.focus, self.rows, self.cols = {}, None, range(0), range(0)
        self._show_prefix(self.prefix if same else ())

    def set_highlights(self, marks: dict[tuple, str]) -> None:
        """Mark positions of the full tensor with roles; a position shorter than the rank marks
        the slice under it. The drawn slice (N-D) and window hold the focus: the first mark
        in :data:`FOCUS_ORDER`. Later marks win over earlier ones on the same cell."""
        self._marks = dict(marks)
        self.focus = None
        for role in FOCUS_ORDER:
            first = next((p for p, r in self._marks.items() if r == role), None)
            if first is not None:
                self.focus = tuple(int(i) for i in first)
                break
        prefix = self.prefix
        if self.full is not None and self.full.ndim > 2:
            prefix = tuple((self.focus or ())[: self.full.ndim - 2])
        self._show_prefix(prefix)

    def set_masked(self, masked: bool) -> None:
        """Show MASK in every cell (True) or the values (False)."""
        if masked != self.masked:
            self.masked = masked
            self._relayout()

    def _show_prefix(self, prefix: tuple) -> None:
        """Draw ``full[prefix]`` (the 2-D slice through the leading ``prefix`` of an N-D tensor)."""
        a = self.full
        if a is not None and a.ndim > 2:
            self.prefix = tuple(prefix[: a.ndim - 2]) + (0,) * max(0, a.ndim - 2 - len(prefix))
            self.array = a[self.prefix]
            self.title = f"{self.name}[{', '.join(map(str, self.prefix))}, :, :]"
        else:
            self.prefix, self.array, self.title = (), a, self.name
        self._base_title = self.title
        if self.note:
            self.title += f" {self.note}"
        self._relayout()

    def _cached(self, name: str, key: tuple, compute):
        """``compute()``, remembered while ``key`` (with the content version and the font)
        stays the same: a paint asks for every cell's rectangle, each needing the cell width."""
        key = (self._version, self.font().key(), *key)
        entry = self._cache.get(name)
        if entry is None or entry[0] != key:
            entry = (key, compute())
            self._cache[name] = entry
        return entry[1]

    def _relayout(self) -> None:
        self._version += 1
        self._place_window()
        self._expand_marks()
        self._fit_height()
        self.updateGeometry()
        self.update()

    def _shape2(self) -> tuple[int, int]:
        """(rows, columns) of ``array`` as drawn: a 1-D array is one row, a scalar one cell."""
        a = self.array
        if not self.drawable(a) or a.ndim == 0:
            return (1, 1) if a is not None and a.size else (0, 0)
        return (1, a.shape[0]) if a.ndim == 1 else (int(a.shape[0]), int(a.shape[1]))

    def _focus2(self) -> tuple[int, int]:
        """The focus as (row, column) of ``array`` (a prefix focus: its first cell)."""
        a = self.array
        if self.focus is None or a is None or a.ndim == 0:
            return 0, 0
        tail = tuple(self.focus[len(self.prefix):])
        if a.ndim == 1:
            return 0, tail[0] if tail else 0
        return (tail[0] if len(tail) > 0 else 0), (tail[1] if len(tail) > 1 else 0)

    def _place_window(self) -> None:
        """The drawn rows and columns: every row up to MAX_CELLS, else a WINDOW around the
        focus; the columns: :meth:`_fitting_columns` at the grid's width."""
        n_rows, _ = self._shape2()
        row, _ = self._focus2()
        self.rows = _window(n_rows, n_rows if n_rows <= MAX_CELLS else WINDOW, row, self.rows)
        self.cols = self._fitting_columns(self.width())

    def _fitting_columns(self, width: int) -> range:
        """The widest window of columns around the focus (at most :meth:`wanted_columns`)
        whose cells, measured with that window's own texts, fit ``width``; the focus column
        alone when none does. Each candidate is measured as it would be drawn, so the window
        placed at a width is the one that width holds: placing again at the same width keeps
        it (the first layout's place -> measure -> place settles)."""
        _, n_cols = self._shape2()
        _, col = self._focus2()
        for size in range(self.wanted_columns(), 1, -1):
            cols = _window(n_cols, size, col, self.cols)
            if self._cells_width(cols) <= width:
                return cols
        return _window(n_cols, min(1, n_cols), col, self.cols)

    def wanted_columns(self) -> int:
        """The columns drawn when the width allows: all up to MAX_CELLS, else WINDOW."""
        _, n_cols = self._shape2()
        return n_cols if n_cols <= MAX_CELLS else WINDOW

    def _to_array(self, full_pos: tuple) -> tuple:
        """A full position (or prefix) in ``array``'s coordinates (dropping ``prefix``)."""
        return tuple(full_pos[len(self.prefix):])

    def _expand_marks(self) -> None:
        """``highlights``: each drawn cell's role, from the marks covering it."""
        self.highlights = {}
        a = self.array
        if not self._marks or not self.drawable(a):
            return
        exact, partial = {}, []
        for pos, role in self._marks.items():
            pos = tuple(int(i) for i in pos)
            if tuple(pos[: len(self.prefix)]) != self.prefix[: len(pos)]:
                continue                      # another slice of an N-D tensor
            if len(pos) >= self.full.ndim:
                exact[self._to_array(pos)] = role
            else:
                partial.append((self._to_array(pos), role))
        for cell in self.drawn_cells():
            role = None
            for tail, r in partial:
                if cell[: len(tail)] == tail:
                    role = r
            role = exact.get(cell, role)
            if role is not None:
                self.highlights[cell] = role

    def drawn_cells(self) -> list[tuple]:
        """Positions in ``array`` of the cells drawn (the window), row-major."""
        a = self.array
        if not self.drawable(a):
            return []
        if a.ndim == 0:
            return [()]
        if a.ndim == 1:
            return [(c,) for c in self.cols]
        return [(r, c) for r in self.rows for c in self.cols]

    def title_lines(self, width: int | None = None) -> list[str]:
        """The title as drawn at ``width`` (default: the current width): one line when it
        fits, else the slice and the note ("after step 3") on two lines. Never elided: the
        grid's minimum width holds its widest line (the explainer scrolls)."""
        width = self.width() if width is None else width
        metrics = QtGui.QFontMetrics(self._title_font())
        if metrics.horizontalAdvance(self.title) <= max(0, width - 10) or not self.note:
            return [self.title]
        return [self._base_title, self.note]

    def _kind(self) -> str:
        return dtype_kind(self.array.dtype) if self.array is not None else FLOAT

    def cell_texts(self) -> dict[tuple, str]:
        """The text of each drawn cell, by position in ``array``."""
        return self._cached("texts", (self.rows, self.cols, self.masked), self._cell_texts)

    def _cell_texts(self) -> dict[tuple, str]:
        cells = self.drawn_cells()
        if self.masked:
            return dict.fromkeys(cells, MASK)
        kind = self._kind()
        return {pos: cell_text(self.array[pos], kind) for pos in cells}

    def cell_tooltip(self, pos: tuple) -> str:
        """The exact value of the drawn cell at ``pos`` (shown when hovering the cell)."""
        return MASK if self.masked else value_text(self.array[pos])

    def cell_at(self, point: QtCore.QPointF) -> tuple | None:
        """The drawn cell under ``point`` (widget coordinates), or None."""
        for pos in self.drawn_cells():
            if self.cell_rect(pos).contains(point):
                return pos
        return None

    def region_rect(self, full_pos: tuple) -> QtCore.QRectF | None:
        """The drawn cells a full position (or a prefix: its slice) covers, as one rectangle
        in widget coordinates; None when none of them is drawn."""
        if self.full is None:
            return None
        pos = tuple(int(i) for i in full_pos)
        if tuple(pos[: len(self.prefix)]) != self.prefix[: len(pos)]:
            return None
        tail = self._to_array(pos)
        rect = None
        for cell in self.drawn_cells():
            if cell[: len(tail)] == tail:
                r = self.cell_rect(cell)
                rect = r if rect is None else rect.united(r)
        return rect

    def event(self, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.ToolTip:
            pos = self.cell_at(QtCore.QPointF(event.pos()))
            if pos is None:
                QtWidgets.QToolTip.hideText()
                event.ignore()
            else:
                QtWidgets.QToolTip.showText(event.globalPos(), self.cell_tooltip(pos), self,
                                            self.cell_rect(pos).toAlignedRect())
            return True
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._relayout()
        return super().event(event)

    # ------------------------------------------------------------------ geometry
    def _title_font(self) -> QtGui.QFont:
        font = QtGui.QFont(self.font())
        font.setBold(True)
        return font

    def _axis_font(self) -> QtGui.QFont:
        font = QtGui.QFont(self.font())
        font.setPointSizeF(max(6.0, font.pointSizeF() * 0.8))
        return font

    def _line(self) -> int:
        """The title's line height."""
        return QtGui.QFontMetrics(self._title_font()).height() + 1

    def _cell_height(self) -> float:
        return float(max(22, QtGui.QFontMetrics(self.font()).height() + 7))

    def _ellipsis_size(self) -> float:
        return float(QtGui.QFontMetrics(self.font()).horizontalAdvance(ELLIPSIS) + 6)

    def _axes(self) -> tuple[float, float]:
        """(width of the row coordinates on the left, height of the column coordinates on top)."""
        return self._cached("axes", (self.rows,), self._measure_axes)

    def _measure_axes(self) -> tuple[float, float]:
        a = self.array
        if not self.drawable(a) or a.ndim == 0:
            return 0.0, 0.0
        metrics = QtGui.QFontMetrics(self._axis_font())
        top = metrics.height() + 2.0
        if a.ndim == 1:
            return 0.0, top
        last = self.rows.stop - 1 if len(self.rows) else 0
        return float(metrics.horizontalAdvance(str(max(last, 0))) + 8), top

    def _top(self, width: int | None = None) -> float:
        """Where the cells start: under the title's lines, the column coordinates and, when
        rows are cut above, an ellipsis row."""
        _, top_axis = self._axes()
        cut = self._ellipsis_size() * 0.6 if self.rows.start > 0 else 0.0
        return 6.0 + self._line() * len(self.title_lines(width)) + top_axis + cut

    def _left(self) -> float:
        left_axis, _ = self._axes()
        return 6.0 + left_axis + (self._ellipsis_size() if self.cols.start > 0 else 0.0)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        n_rows, _ = self._shape2()
        cut = self._ellipsis_size() * 0.6 if self.rows.stop < n_rows else 0.0
        return int(self._top(width) + max(1, len(self.rows)) * self._cell_height() + cut + 6)

    def _cell_width(self) -> float:
        """The width of every drawn cell: the narrowest that holds each one's short text."""
        return self._cell_width_for(self.cols)

    def _cell_width_for(self, cols: range) -> float:
        """The narrowest cell that holds the short text of every drawn row's cell in ``cols``
        and the coordinates above them ("1000" in a window far out)."""
        metrics = QtGui.QFontMetrics(self.font())
        last = max(cols.stop - 1, 0) if len(cols) else 0
        axis = QtGui.QFontMetrics(self._axis_font()).horizontalAdvance(str(last)) + 6
        least = max(MIN_CELL, metrics.horizontalAdvance("000") + 6, axis)
        texts = max((self._column_text_width(c) for c in cols), default=0)
        return float(max(least, texts + 8 if texts else 0))

    def _column_text_width(self, col: int) -> int:
        """The widest short text of column ``col`` over the drawn rows (0 with nothing drawn);
        each column is measured once per content, rows, mask and font."""
        widths = self._cached("column widths", (self.rows, self.masked), dict)
        if col not in widths:
            widths[col] = self._measure_column(col)
        return widths[col]

    def _measure_column(self, col: int) -> int:
        a = self.array
        if not self.drawable(a):
            return 0
        metrics = QtGui.QFontMetrics(self.font())
        if self.masked:
            return metrics.horizontalAdvance(MASK)
        kind = self._kind()
        if a.ndim == 0:
            values = [a[()]]
        elif a.ndim == 1:
            values = [a[col]]
        else:
            values = [a[r, col] for r in self.rows]
        return max(metrics.horizontalAdvance(cell_text(v, kind)) for v in values)

    def _cells_width(self, cols: range) -> float:
        """The grid width that draws the window ``cols`` whole: the row coordinates, "…" on
        each cut side, and the cells (as :meth:`_measure_cells` places them)."""
        _, n_cols = self._shape2()
        cut = self._ellipsis_size() * ((cols.start > 0) + (cols.stop < n_cols))
        return 12 + self._axes()[0] + cut + len(cols) * self._cell_width_for(cols)

    def _min_width(self) -> int:
        """Room for the widest title line and one column (the focus's) between two "…"."""
        metrics = QtGui.QFontMetrics(self._title_font())
        lines = [self._base_title, self.note] if self.note else [self.title]
        title = max(metrics.horizontalAdvance(line) for line in lines) + 12
        _, n_cols = self._shape2()
        _, col = self._focus2()
        one = range(col, col + 1) if n_cols else range(0)
        cut = 2 * self._ellipsis_size() if n_cols > 1 else 0.0
        cells = 12 + self._axes()[0] + cut + len(one) * self._cell_width_for(one)
        return int(max(60, title, cells)) + 1

    def _full_width(self) -> int:
        """The width that shows every column of the window (no column cut for lack of room)
        and the title on one line."""
        _, n_cols = self._shape2()
        _, col = self._focus2()
        wanted = _window(n_cols, self.wanted_columns(), col, self.cols)
        title = QtGui.QFontMetrics(self._title_font()).horizontalAdvance(self.title) + 12
        return int(max(self._min_width(), title, self._cells_width(wanted))) + 1

    def _fit_height(self) -> None:
        self.setMinimumWidth(self._min_width())
        self.setMinimumHeight(self.heightForWidth(max(self.width(), self.minimumWidth())))

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._place_window()
            self._expand_marks()
            self._fit_height()

    def sizeHint(self) -> QtCore.QSize:
        width = self._full_width()
        return QtCore.QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(self._min_width(), self.heightForWidth(self._min_width()))

    def cell_rect(self, pos: tuple) -> QtCore.QRectF:
        """Where the cell at ``pos`` (a position in ``array``) is drawn (widget coordinates)."""
        r, c = (0, 0) if not pos else ((0, pos[0]) if len(pos) == 1 else pos)
        left, top, w, h = self._cached("cells", (self.rows, self.cols, self.masked, self.width(), self.title),
                                       self._measure_cells)
        return QtCore.QRectF(left + (c - self.cols.start) * w, top + (r - self.rows.start) * h, w, h)

    def _measure_cells(self) -> tuple[float, float, float, float]:
        """(left, top, width, height) of the drawn cells."""
        least = self._cell_width()
        _, n_cols = self._shape2()
        cut = (self._ellipsis_size() if self.cols.stop < n_cols else 0.0)
        room = (self.width() - self._left() - cut - 6) / max(len(self.cols), 1)
        return self._left(), self._top(), max(least, min(max(MAX_CELL, least), room)), self._cell_height()

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        grid = theme.grid_colours()
        labels = self.labels()
        self.shown_title = "\n".join(self.title_lines())
        for label in labels:
            p.setFont(label.font)
            p.setPen(label.colour)
            p.drawText(label.rect, label.align, label.text)
        cells = self.drawn_cells()
        if not cells:
            p.end()
            return
        for pos, (label, fill) in zip(cells, self.value_labels(), strict=True):
            role = self.highlights.get(pos)
            border = ERROR_COLOURS[1] if role == "error" else ROLE_COLOURS.get(role, (grid.cell, grid.border))[1]
            p.setBrush(fill)
            p.setPen(QtGui.QPen(QtGui.QColor(border), 2 if pos in self.highlights else 1))
            p.drawRect(label.rect.adjusted(1, 1, -1, -1))
            p.setFont(label.font)
            p.setPen(label.colour)
            p.drawText(label.rect, label.align, label.text)
        p.end()

    def value_labels(self) -> list[tuple[Label, QtGui.QColor]]:
        """Each drawn cell's text as a label over its whole cell (in :meth:`drawn_cells`'
        order), with the cell's fill. The arrow overlay draws the ones its arrows cross again
        over them, ringed in that fill, so an arrow never crosses a number out."""
        grid = theme.grid_colours()
        texts = self.cell_texts()
        out = []
        for pos in self.drawn_cells():
            role = self.highlights.get(pos)
            fill = ERROR_COLOURS[0] if role == "error" else ROLE_COLOURS.get(role, (grid.cell, grid.border))[0]
            colour = QtGui.QColor("#1d2030" if pos in self.highlights else grid.text)   # pastel highlights: dark
            out.append((Label(self.cell_rect(pos), QtCore.Qt.AlignmentFlag.AlignCenter, texts[pos], self.font(),
                              colour), QtGui.QColor(fill)))
        return out

    def labels(self) -> list[Label]:
        """Every text drawn outside the cells: the title's lines (a title wider than the grid,
        "output[0, 0, :, :] after step 1", puts its note on a second line; the grid is never
        narrower than its widest line), the row and column coordinates (real ones: a window
        shows where it is), and "…" where the window cuts the tensor. The arrow overlay draws
        them again over its arrows, so an arrow never hides them."""
        align = QtCore.Qt.AlignmentFlag
        title_font, line = self._title_font(), self._line()
        text_colour = self.palette().color(QtGui.QPalette.ColorRole.WindowText)
        out = [Label(QtCore.QRectF(6, 4 + line * i, max(0, self.width() - 6), line), align.AlignLeft | align.AlignTop,
                     text, title_font, text_colour) for i, text in enumerate(self.title_lines())]
        cells = self.drawn_cells()
        a = self.array
        if not cells or a.ndim == 0:
            return out
        axis_font, muted = self._axis_font(), QtGui.QColor(theme.grid_colours().muted)
        _, top_axis = self._axes()
        first = self.cell_rect(cells[0])
        h = first.height()
        for c in self.cols:
            rect = self.cell_rect((c,) if a.ndim == 1 else (self.rows.start, c))
            out.append(Label(QtCore.QRectF(rect.left(), first.top() - top_axis - (self._ellipsis_size() * 0.6
                                           if self.rows.start > 0 else 0), rect.width(), top_axis),
                             align.AlignHCenter | align.AlignBottom, str(c), axis_font, muted))
        if a.ndim == 2:
            for r in self.rows:
                rect = self.cell_rect((r, self.cols.start))
                out.append(Label(QtCore.QRectF(6, rect.top(), self._axes()[0] - 4, h),
                                 align.AlignRight | align.AlignVCenter, str(r), axis_font, muted))
        n_rows, n_cols = self._shape2()
        last = self.cell_rect(cells[-1])
        e = self._ellipsis_size()
        cuts = []
        if self.cols.start > 0:
            cuts.append((QtCore.QRectF(first.left() - e, first.top(), e, last.bottom() - first.top()), ELLIPSIS))
        if self.cols.stop < n_cols:
            cuts.append((QtCore.QRectF(last.right(), first.top(), e, last.bottom() - first.top()), ELLIPSIS))
        if self.rows.start > 0:
            cuts.append((QtCore.QRectF(first.left(), first.top() - e * 0.6, last.right() - first.left(), e * 0.6), "⋮"))
        if self.rows.stop < n_rows:
            cuts.append((QtCore.QRectF(first.left(), last.bottom(), last.right() - first.left(), e * 0.6), "⋮"))
        out += [Label(rect, align.AlignCenter, text, self.font(), muted) for rect, text in cuts]
        return out
