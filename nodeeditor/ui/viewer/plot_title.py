"""Plot titles that fit the width the layout gives them.

pyqtgraph's title label asks for its text's full width as the plot's minimum width. A heat map
titled ``sum into rows.output [2000 x 2000] (2 x 2 blocks, extremes)`` then needs more than a
420-pixel dock has, and the layout pushes its colour bar out of the picture. ``FittedTitle``
asks for no width: it shows the full (rich-text) title when it fits, else its plain text cut
with "…", with the full text in the tooltip. ``natural_width`` tells the picture's arrangement
how wide the whole title would be, so panels still move to a row of their own before their
titles are cut.
"""
from __future__ import annotations

import html

import pyqtgraph as pg
from PySide6 import QtCore, QtGui


class FittedTitle:
    """The title of one ``pg.PlotItem`` (see the module docstring). ``set`` replaces
    ``PlotItem.setTitle``; the label refits itself whenever the layout resizes it."""

    def __init__(self, plot: pg.PlotItem, size: str = "10pt"):
        self.plot = plot
        self.label: pg.LabelItem = plot.titleLabel
        self.size = size
        self.full = ""          # the title as given (may hold rich text)
        self.plain = ""         # its plain text, for cutting and the tooltip
        self.natural_width = 0.0
        self._shown: str | None = None
        self._fitting = False
        original_update_min = self.label.updateMin

        # pyqtgraph's LabelItem.updateMin sets a minimum width and the size hints it answers
        # from ``_sizeHint`` (pyqtgraph 0.13-0.14); tests/ui/test_viewer_fit.py notices if that moves
        def update_min() -> None:  # the label's own minimum, without its width
            original_update_min()
            self.label.setMinimumWidth(0)
            self.label._sizeHint[QtCore.Qt.SizeHint.MinimumSize] = (0, self.label.minimumHeight())
            self.label._sizeHint[QtCore.Qt.SizeHint.PreferredSize] = (0, self.label.minimumHeight())

        self.label.updateMin = update_min
        self.label.geometryChanged.connect(self._fit)

    def set(self, title: str) -> None:
        """Show ``title`` (pyqtgraph rich text allowed), cut to the label's width if needed."""
        if title == self.full and self._shown is not None:
            self._fit()
            return
        self.full = title
        doc = QtGui.QTextDocument()
        doc.setHtml(title)
        self.plain = doc.toPlainText()
        self._show(title)  # measure the whole title as the label draws it
        self.natural_width = self.label.item.boundingRect().width()
        self._fit()

    def _show(self, text: str) -> None:
        if text == self._shown:
            return
        self._shown = text
        self._fitting = True
        try:
            self.plot.setTitle(text, size=self.size)
        finally:
            self._fitting = False

    def _fit(self) -> None:
        if self._fitting or not self.full:
            return
        width = self.label.size().width()
        if width <= 0 or self.natural_width <= width:
            self._show(self.full)
            self.label.setToolTip("")
            return
        metrics = QtGui.QFontMetricsF(self._font())
        cut = metrics.elidedText(self.plain, QtCore.Qt.TextElideMode.ElideRight, max(0.0, width - 8))
        self._show(html.escape(cut))
        self.label.setToolTip(self.plain)

    def _font(self) -> QtGui.QFont:
        font = QtGui.QFont(self.label.item.font())
        if self.size.endswith("pt"):
            font.setPointSizeF(float(self.size[:-2]))
        return font
