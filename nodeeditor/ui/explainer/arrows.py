"""ArrowOverlay: the arrows of the current step, drawn over the Explainer's grids.

One arrow goes from the source cell (the data cell a gather reads, the update a scatter
writes) to the destination cell, and one from the index cell that decided it, dashed; a slice
step's arrows join the drawn parts of the slices. The overlay is a transparent child of the
widget that holds the grids (so it scrolls with them) and follows their geometry; it takes no
mouse input. An end whose cell is not drawn (an empty grid, a hidden one) has no arrow. The
grids' titles and coordinates (:meth:`TensorGrid.labels`) are drawn again over the arrows,
ringed in the background colour, and so are the numbers in the cells an arrow crosses
(:meth:`TensorGrid.value_labels`, ringed in their cell's fill): an arrow passes behind a
heading or a number, never through it.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from .grid import Label, TensorGrid

#: Arrow colours by role: the source's border blue, the index's border amber (ROLE_COLOURS).
ARROW_COLOURS = {"source": "#2f6fd6", "index": "#c99a00"}


@dataclass(frozen=True)
class Link:
    """An arrow from ``position`` of ``start``'s tensor to ``end_position`` of ``end``'s
    (full positions or slice prefixes), drawn in the colour of ``role``."""

    role: str
    start: TensorGrid
    position: tuple
    end: TensorGrid
    end_position: tuple


@dataclass(frozen=True)
class Arrow:
    """A drawn arrow in the overlay's coordinates: from the edge of ``start_rect`` to the edge of
    ``end_rect`` (the cells it joins)."""

    role: str
    start_rect: QtCore.QRectF
    end_rect: QtCore.QRectF
    tail: QtCore.QPointF
    head: QtCore.QPointF


def _edge_point(rect: QtCore.QRectF, towards: QtCore.QPointF) -> QtCore.QPointF:
    """Where the line from ``rect``'s centre to ``towards`` leaves ``rect``."""
    c = rect.center()
    dx, dy = towards.x() - c.x(), towards.y() - c.y()
    if dx == 0 and dy == 0:
        return c
    sx = (rect.width() / 2) / abs(dx) if dx else math.inf
    sy = (rect.height() / 2) / abs(dy) if dy else math.inf
    s = min(sx, sy, 1.0)
    return QtCore.QPointF(c.x() + dx * s, c.y() + dy * s)


class ArrowOverlay(QtWidgets.QWidget):
    """Covers ``area`` (the grids' parent) and draws :meth:`arrows`."""

    def __init__(self, area: QtWidgets.QWidget) -> None:
        super().__init__(area)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_NoSystemBackground)
        self._links: list[Link] = []
        #: Where arrows arch no higher than (overlay coordinates, asked at each paint): the text
        #: above the grids stays clear.
        self.ceiling: Callable[[], float] = lambda: 0.0
        #: The grids whose labels are drawn over the arrows (asked at each paint).
        self.grids: Callable[[], list[TensorGrid]] = lambda: []
        self._watched: set[int] = set()
        area.installEventFilter(self)
        self.setGeometry(area.rect())
        self.raise_()

    def set_links(self, links: list[Link]) -> None:
        self._links = list(links)
        for link in self._links:
            for grid in (link.start, link.end):
                if id(grid) not in self._watched:
                    grid.installEventFilter(self)
                    self._watched.add(id(grid))
        self.raise_()
        self.update()

    def eventFilter(self, watched, event) -> bool:
        kind = event.type()
        if watched is self.parentWidget() and kind == QtCore.QEvent.Type.Resize:
            self.setGeometry(self.parentWidget().rect())
        elif kind in (QtCore.QEvent.Type.Move, QtCore.QEvent.Type.Resize, QtCore.QEvent.Type.Show,
                      QtCore.QEvent.Type.Hide, QtCore.QEvent.Type.UpdateRequest, QtCore.QEvent.Type.Paint):
            if kind != QtCore.QEvent.Type.Paint:
                self.update()
        return False

    def arrows(self) -> list[Arrow]:
        """The arrows as they are drawn now (overlay coordinates)."""
        out = []
        for link in self._links:
            if not (link.start.isVisible() and link.end.isVisible()):
                continue
            a = link.start.region_rect(link.position)
            b = link.end.region_rect(link.end_position)
            if a is None or b is None:
                continue
            a = a.translated(QtCore.QPointF(link.start.mapTo(self.parentWidget(), QtCore.QPoint(0, 0))))
            b = b.translated(QtCore.QPointF(link.end.mapTo(self.parentWidget(), QtCore.QPoint(0, 0))))
            dx, dy = b.center().x() - a.center().x(), b.center().y() - a.center().y()
            if abs(dx) >= 0.5 * abs(dy):
                # mostly sideways: from the top of one cell to the top of the other, arching over
                # the cells between them (the grids' titles and gaps are above the cells)
                tail, head = QtCore.QPointF(a.center().x(), a.top()), QtCore.QPointF(b.center().x(), b.top())
            else:
                tail, head = _edge_point(a, b.center()), _edge_point(b, a.center())
            out.append(Arrow(link.role, a, b, tail, head))
        return out

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        arrows = self.arrows()
        if not arrows:
            return
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        width = max(2.0, self.fontMetrics().height() / 7)
        ceiling = self.ceiling()
        crossed = QtCore.QRectF()      # where the arrows run (the numbers there are drawn again)
        for arrow in arrows:
            colour = QtGui.QColor(ARROW_COLOURS.get(arrow.role, "#30343f"))
            tail, head = arrow.tail, arrow.head
            dx, dy = head.x() - tail.x(), head.y() - tail.y()
            length = math.hypot(dx, dy)
            if length < 4:
                continue
            # bend the arrow (upwards for a left-to-right one) so it does not run along a
            # row of cells between the two grids
            bend = max(24.0, min(70.0, 0.3 * length))
            if abs(dx) >= 0.5 * abs(dy):    # an arch over the cells between the two, inside the overlay
                top = min(tail.y(), head.y())
                # a quadratic's apex is halfway between its ends' height and the control point's
                control = QtCore.QPointF((tail.x() + head.x()) / 2, max(top - bend, 2 * (ceiling + 3) - top))
            else:
                control = QtCore.QPointF((tail.x() + head.x()) / 2 + dy / length * bend * 0.5,
                                         (tail.y() + head.y()) / 2)
            path = QtGui.QPainterPath(tail)
            path.quadTo(control, head)
            crossed = crossed.united(path.boundingRect())
            # a light halo keeps the arrow readable over the cells it crosses
            p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            p.setPen(QtGui.QPen(QtGui.QColor(255, 255, 255, 190), width + 3))
            p.drawPath(path)
            pen = QtGui.QPen(colour, width)
            pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
            if arrow.role == "index":
                pen.setStyle(QtCore.Qt.PenStyle.DashLine)
            p.setPen(pen)
            p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            p.drawPath(path)
            # the head, along the curve's last direction
            ux, uy = head.x() - control.x(), head.y() - control.y()
            n = math.hypot(ux, uy) or 1.0
            ux, uy = ux / n, uy / n
            size = 4.5 * width
            left = QtCore.QPointF(head.x() - ux * size - uy * size * 0.5, head.y() - uy * size + ux * size * 0.5)
            right = QtCore.QPointF(head.x() - ux * size + uy * size * 0.5, head.y() - uy * size - ux * size * 0.5)
            p.setPen(QtGui.QPen(colour, 1))
            p.setBrush(colour)
            p.drawPolygon(QtGui.QPolygonF([head, left, right]))
        self._paint_labels(p, width + 2, crossed)
        p.end()

    def _paint_labels(self, p: QtGui.QPainter, ring: float, crossed: QtCore.QRectF) -> None:
        """The visible grids' labels over the arrows, each glyph ringed ``ring`` wide in the
        background colour, and the numbers of the cells within ``crossed`` (overlay coordinates)
        ringed in their cell's fill (each text drawn as the grid draws it, so it does not move)."""
        background = self.parentWidget().palette().color(QtGui.QPalette.ColorRole.Window)
        area = self.parentWidget()
        for grid in self.grids():
            if not grid.isVisible():
                continue
            offset = QtCore.QPointF(grid.mapTo(area, QtCore.QPoint(0, 0)))
            near = crossed.translated(-offset)
            labels = [(label, background) for label in grid.labels()]
            if near.intersects(QtCore.QRectF(grid.rect())):
                labels += [(label, fill) for label, fill in grid.value_labels() if near.intersects(label.rect)]
            p.save()
            p.translate(offset)
            for label, colour in labels:
                halo = QtGui.QPen(colour, ring)
                halo.setJoinStyle(QtCore.Qt.PenJoinStyle.RoundJoin)
                p.strokePath(_text_path(label), halo)
                p.setFont(label.font)
                p.setPen(label.colour)
                p.drawText(label.rect, label.align, label.text)
            p.restore()


def _text_path(label: Label) -> QtGui.QPainterPath:
    """The outline of ``label``'s text where ``drawText(rect, align, text)`` puts it."""
    metrics = QtGui.QFontMetricsF(label.font)
    rect, align = label.rect, label.align
    width = metrics.horizontalAdvance(label.text)
    flags = QtCore.Qt.AlignmentFlag
    x = (rect.center().x() - width / 2 if align & flags.AlignHCenter else
         rect.right() - width if align & flags.AlignRight else rect.left())
    y = (rect.center().y() + (metrics.ascent() - metrics.descent()) / 2 if align & flags.AlignVCenter else
         rect.bottom() - metrics.descent() if align & flags.AlignBottom else rect.top() + metrics.ascent())
    path = QtGui.QPainterPath()
    path.addText(QtCore.QPointF(x, y), label.font, label.text)
    return path
