"""The grid of taken rectangles that places group blocks: the area a rectangle covers, by hand."""
from PySide6 import QtCore

from nodeeditor.ui.canvas.free_space import CELL, FreeSpace


def R(x, y, w, h):
    return QtCore.QRectF(x, y, w, h)


def test_the_covered_area_is_the_sum_of_the_overlaps_and_follows_puts_and_drops():
    space = FreeSpace()
    space.put("a", R(0, 0, 100, 100))
    space.put("b", R(3 * CELL, 0, 50, 50))              # far away, in another cell
    assert space.covered(R(50, 50, 100, 100)) == 50 * 50
    assert space.covered(R(3 * CELL - 10, 0, 20, 20)) == 10 * 20
    assert space.covered(R(50, 50, 100, 100), ignore="a") == 0.0
    assert space.covered(R(100, 0, 10, 10)) == 0.0      # touching is not covering
    space.put("a", R(1000, 1000, 10, 10))               # moved
    assert space.covered(R(50, 50, 100, 100)) == 0.0 and space.covered(R(1000, 1000, 5, 5)) == 25
    space.drop("a")
    assert space.covered(R(1000, 1000, 5, 5)) == 0.0
    big = R(-CELL, -CELL, 5 * CELL, 3 * CELL)           # spans many cells: each rectangle counted once
    assert space.covered(big) == 50 * 50
