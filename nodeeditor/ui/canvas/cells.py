"""A coarse spatial index: keys filed by the squares of side ``cell`` their rectangles touch.

The scene files here what it has not given items yet (see ``GraphScene``: nodes and wires not
yet on the canvas, nodes without port items), so that the view finds what it is about to draw
in the few squares it shows, without asking Qt's scene index (whose answer asks every long
wire crossing the area for its bounds, in Python) and without a walk over every node.
:meth:`CellIndex.near` answers the keys whose boxes meet the box asked for. UI thread only.
"""
from __future__ import annotations

from collections.abc import Hashable, Iterator

from PySide6 import QtCore

CELL = 1024.0   # scene units: a few nodes across at the readable zoom


#: A box over more squares than this (a long wire) is kept in a short list checked whole on
#: every look-up, not filed in each square.
WIDE_CELLS = 8

#: (left, top, right, bottom) in scene units: plain numbers, cheaper than a QRectF by the thousand.
Box = tuple[float, float, float, float]


def box_of(rect: QtCore.QRectF) -> Box:
    left, top, right, bottom = rect.getCoords()
    return left, top, right, bottom


def rect_of(box: Box) -> QtCore.QRectF:
    return QtCore.QRectF(box[0], box[1], box[2] - box[0], box[3] - box[1])


def meets(a: Box, b: Box) -> bool:
    """Whether two boxes overlap (or touch)."""
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


class CellIndex:
    """key -> the :data:`Box` it was filed with (scene coordinates), found by area."""

    def __init__(self, cell: float = CELL) -> None:
        self.cell = cell
        self._boxes: dict[Hashable, Box] = {}
        self._spans: dict[Hashable, tuple[int, int, int, int] | None] = {}   # None: in _wide
        self._cells: dict[tuple[int, int], set[Hashable]] = {}
        self._wide: set[Hashable] = set()

    def __len__(self) -> int:
        return len(self._boxes)

    def __bool__(self) -> bool:
        return bool(self._boxes)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._boxes

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._boxes)

    def box(self, key: Hashable) -> Box:
        return self._boxes[key]

    def items(self):
        """(key, box) for every key filed, in filing order."""
        return self._boxes.items()

    def put(self, key: Hashable, box: Box) -> None:
        """File ``key`` under ``box`` (again: its old box is forgotten)."""
        if key in self._boxes:
            self.drop(key)
        self._boxes[key] = box
        c = self.cell
        x0, x1, y0, y1 = int(box[0] // c), int(box[2] // c), int(box[1] // c), int(box[3] // c)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > WIDE_CELLS:
            self._spans[key] = None
            self._wide.add(key)
            return
        self._spans[key] = (x0, x1, y0, y1)
        cells = self._cells
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                keys = cells.get((x, y))
                if keys is None:
                    cells[(x, y)] = {key}
                else:
                    keys.add(key)

    def drop(self, key: Hashable) -> None:
        """Forget ``key`` (nothing when it is not filed)."""
        if self._boxes.pop(key, None) is None:
            return
        span = self._spans.pop(key)
        if span is None:
            self._wide.discard(key)
            return
        x0, x1, y0, y1 = span
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                keys = self._cells.get((x, y))
                if keys is not None:
                    keys.discard(key)
                    if not keys:
                        del self._cells[(x, y)]

    def near(self, box: Box) -> list[Hashable]:
        """The keys whose boxes meet ``box`` (each once, in no set order)."""
        boxes = self._boxes
        found: set[Hashable] = set(self._wide)
        if self._cells:
            c = self.cell
            x0, x1, y0, y1 = int(box[0] // c), int(box[2] // c), int(box[1] // c), int(box[3] // c)
            if (x1 - x0 + 1) * (y1 - y0 + 1) > len(self._cells):
                for cell, keys in self._cells.items():
                    if x0 <= cell[0] <= x1 and y0 <= cell[1] <= y1:
                        found |= keys
            else:
                cells = self._cells
                for x in range(x0, x1 + 1):
                    for y in range(y0, y1 + 1):
                        keys = cells.get((x, y))
                        if keys is not None:
                            found |= keys
        return [k for k in found if meets(boxes[k], box)]
