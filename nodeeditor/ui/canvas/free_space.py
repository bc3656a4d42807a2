"""Where the canvas is taken: the rectangles of drawn nodes and blocks in a coarse grid, so that
"how much of them would this rectangle cover" costs time in what is near it, not in the whole
scene. (The scene's own index answers that too, but it is brought up to date on every query
after a change: placing a thousand group blocks one after another through it took seconds.)

Plain Python over ``QRectF``; the owner adds, moves and removes rectangles by key as items
appear, move and hide, and drops the whole map when it no longer knows (a move it did not see).
"""
from __future__ import annotations

from collections.abc import Hashable, Iterator

from PySide6 import QtCore

CELL = 256.0   # scene units per grid cell (about a node's width)


class FreeSpace:
    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], set[Hashable]] = {}
        self._rects: dict[Hashable, QtCore.QRectF] = {}

    @staticmethod
    def _cells_of(rect: QtCore.QRectF) -> Iterator[tuple[int, int]]:
        x0, x1 = int(rect.left() // CELL), int(rect.right() // CELL)
        y0, y1 = int(rect.top() // CELL), int(rect.bottom() // CELL)
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                yield x, y

    def put(self, key: Hashable, rect: QtCore.QRectF) -> None:
        """``key`` takes ``rect`` (replacing where it was)."""
        self.drop(key)
        rect = QtCore.QRectF(rect)
        self._rects[key] = rect
        for cell in self._cells_of(rect):
            self._cells.setdefault(cell, set()).add(key)

    def drop(self, key: Hashable) -> None:
        """``key`` takes no room any more."""
        rect = self._rects.pop(key, None)
        if rect is not None:
            for cell in self._cells_of(rect):
                self._cells.get(cell, set()).discard(key)

    def covered(self, rect: QtCore.QRectF, ignore: Hashable = None) -> float:
        """The area of the taken rectangles (but ``ignore``'s) that ``rect`` covers."""
        keys: set[Hashable] = set()
        for cell in self._cells_of(rect):
            keys |= self._cells.get(cell, set())
        keys.discard(ignore)
        area = 0.0
        for key in keys:
            common = rect.intersected(self._rects[key])
            area += common.width() * common.height()
        return area
