"""TensorGrid: a small tensor (0-D to 2-D) drawn as a grid of value cells with highlights."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ops.explain import value_text

from ..viewer.slicing import BOOL, FLOAT, INT, dtype_kind, format_short

#: Highlight roles and their colours (fill, border).
ROLE_COLOURS = {
    "index": ("#ffe9a8", "#c99a00"),    # the index value that decided the step
    "source": ("#cfe3ff", "#2f6fd6"),   # the cell read (gather) or the update written (scatter)
    "target": ("#ffd6b8", "#d4650f"),   # the cell written (scatter) or the output element (gather)
    "also": ("#f1e6ff", "#9a6dd7"),     # other elements touching the same cell
}
TITLE_LINE = 16  # px between the title's lines
MAX_CELLS = 16  # per side; larger tensors are not drawn (the text still explains every step)
MIN_CELL, MAX_CELL = 24, 58  # cell width range (px); a wider short text widens the cells
MASK = "?"  # what a masked cell shows


def cell_text(value, kind: str) -> str:
    """What a cell shows: the viewer's short rounding ("0.126", "-0.132"); the exact value
    (``value_text``) is the cell's tooltip."""
    if kind in (BOOL, INT, FLOAT):
        return format_short(value, kind)
    return value_text(value)


class TensorGrid(QtWidgets.QWidget):
    """Draws ``array`` (at most 2-D, at most MAX_CELLS per side) with a title; ``highlights``
    maps a position tuple to a role of ROLE_COLOURS."""

    def __init__(self, title: str = "", parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.shown_title = title   # the title lines as last drawn, joined by a newline
        self._base_title = title   # the title without the note
        self.name = title
        self.note = ""
        self.full: np.ndarray | None = None   # the whole tensor; ``array`` is the 2-D part drawn
        self.array: np.ndarray | None = None
        self.highlights: dict[tuple, str] = {}
        #: True: every cell shows MASK instead of its value (the answer of a quiz question)
        self.masked = False
        self.setMinimumSize(120, 60)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Preferred)

    @staticmethod
    def drawable(array: np.ndarray | None) -> bool:
        return array is not None and array.ndim <= 2 and all(n <= MAX_CELLS for n in array.shape) and array.size > 0

    def set_tensor(self, title: str, array: np.ndarray | None, note: str = "") -> None:
        """Show ``array`` titled ``title`` (plus ``note`` after the slice, e.g. "after step 3")."""
        self.name, self.note, self.full, self.highlights = title, note, array, {}
        self._show_prefix(())

    def _show_prefix(self, prefix: tuple) -> None:
        """Draw ``full[prefix]`` (the 2-D slice through the leading ``prefix`` of an N-D tensor)."""
        a = self.full
        if a is not None and a.ndim > 2:
            prefix = tuple(prefix[: a.ndim - 2]) + (0,) * max(0, a.ndim - 2 - len(prefix))
            self.array = a[prefix]
            self.title = f"{self.name}[{', '.join(map(str, prefix))}, :, :]"
        else:
            self.array, self.title = a, self.name
        self._base_title = self.title
        if self.note:
            self.title += f" {self.note}"
        self._fit_height()
        self.updateGeometry()
        self.update()

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
        a = self.array
        if not self.drawable(a):
            return {}
        if self.masked:
            return dict.fromkeys(np.ndindex(a.shape), MASK)
        kind = self._kind()
        return {pos: cell_text(a[pos], kind) for pos in np.ndindex(a.shape)}

    def set_masked(self, masked: bool) -> None:
        """Show MASK in every cell (True) or the values (False)."""
        if masked != self.masked:
            self.masked = masked
            self._fit_height()
            self.update()

    def cell_tooltip(self, pos: tuple) -> str:
        """The exact value of the drawn cell at ``pos`` (shown when hovering the cell)."""
        return MASK if self.masked else value_text(self.array[pos])

    def cell_at(self, point: QtCore.QPointF) -> tuple | None:
        """The drawn cell under ``point`` (widget coordinates), or None."""
        a = self.array
        if not self.drawable(a):
            return None
        for pos in np.ndindex(a.shape):
            if self.cell_rect(pos).contains(point):
                return pos
        return None

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
        return super().event(event)

    def _title_font(self) -> QtGui.QFont:
        font = QtGui.QFont(self.font())
        font.setBold(True)
        return font

    def _top(self, width: int | None = None) -> float:
        """Where the cells start: under the title's lines."""
        return 24.0 + TITLE_LINE * (len(self.title_lines(width)) - 1)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        rows, _ = self._grid()
        return int(self._top(width)) + 4 + rows * 24

    def _cell_width(self) -> float:
        """The narrowest cell that holds every cell's short text."""
        texts = self.cell_texts()
        if not texts:
            return MIN_CELL
        metrics = QtGui.QFontMetrics(self.font())
        return max(MIN_CELL, max(metrics.horizontalAdvance(t) for t in texts.values()) + 8)

    def _min_width(self) -> int:
        """Room for every cell and the widest title line (the slice and the note each fit)."""
        _, cols = self._grid()
        metrics = QtGui.QFontMetrics(self._title_font())
        lines = [self._base_title, self.note] if self.note else [self.title]
        title = max(metrics.horizontalAdvance(line) for line in lines) + 12
        cells = 12 + cols * self._cell_width() if self.drawable(self.array) else 120
        return int(max(60, title, cells)) + 1

    def _fit_height(self) -> None:
        self.setMinimumWidth(self._min_width())
        self.setMinimumHeight(self.heightForWidth(max(self.width(), self.minimumWidth())))

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self._fit_height()

    def set_highlights(self, highlights: dict[tuple, str]) -> None:
        """Highlight positions of the full tensor; an N-D tensor shows the slice holding the
        first highlighted position."""
        if self.full is not None and self.full.ndim > 2:
            first = next(iter(highlights), ())
            prefix = tuple(first[: self.full.ndim - 2])
            self._show_prefix(prefix)
            highlights = {p[-2:]: r for p, r in highlights.items() if tuple(p[: len(prefix)]) == prefix}
        self.highlights = dict(highlights)
        self.update()

    def _grid(self) -> tuple[int, int]:
        a = self.array
        if not self.drawable(a) or a.ndim == 0:
            return 1, 1
        return (1, a.shape[0]) if a.ndim == 1 else a.shape

    def sizeHint(self) -> QtCore.QSize:
        rows, cols = self._grid()
        return QtCore.QSize(max(160, 12 + cols * 46, self._min_width()), self.heightForWidth(self._min_width()))

    def cell_rect(self, pos: tuple) -> QtCore.QRectF:
        """Where the cell at ``pos`` is drawn (widget coordinates)."""
        rows, cols = self._grid()
        r, c = (0, 0) if not pos else ((0, pos[0]) if len(pos) == 1 else pos)
        least = self._cell_width()
        w = max(least, min(max(MAX_CELL, least), (self.width() - 12) / max(cols, 1)))
        h = 22.0
        return QtCore.QRectF(6 + c * w, self._top() + r * h, w, h)

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        p.setPen(QtGui.QColor("#30343f"))
        font = p.font()
        font.setBold(True)
        p.setFont(font)
        # a title wider than the grid ("output[0, 0, :, :] after step 1") puts its note on
        # a second line; the grid is never narrower than its widest line
        lines = self.title_lines()
        self.shown_title = "\n".join(lines)
        for i, line in enumerate(lines):
            p.drawText(QtCore.QPointF(6, 16 + TITLE_LINE * i), line)
        font.setBold(False)
        p.setFont(font)
        a = self.array
        if not self.drawable(a):
            if a is not None:
                p.setPen(QtGui.QColor("#7a8090"))
                p.drawText(QtCore.QPointF(6, self._top() + 14), f"{a.dtype}{list(a.shape)}: too large to draw")
            p.end()
            return
        texts = self.cell_texts()
        for pos in np.ndindex(a.shape):
            rect = self.cell_rect(pos)
            fill, border = ROLE_COLOURS.get(self.highlights.get(pos), ("#ffffff", "#c9ccd3"))
            p.setBrush(QtGui.QColor(fill))
            p.setPen(QtGui.QPen(QtGui.QColor(border), 2 if pos in self.highlights else 1))
            p.drawRect(rect.adjusted(1, 1, -1, -1))
            p.setPen(QtGui.QColor("#1d2030"))
            p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, texts[pos])
        p.end()
