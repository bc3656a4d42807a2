"""The canvas's coarse spatial index: a key is found by any box that meets the box it was
filed with, however many squares that box spans, and no longer once dropped or filed elsewhere."""
from __future__ import annotations

from nodeeditor.ui.canvas.cells import CellIndex


def test_keys_are_found_by_the_boxes_that_meet_theirs_and_forgotten_when_dropped_or_moved():
    index = CellIndex(cell=100.0)
    index.put("a", (10, 10, 50, 50))                 # inside one square
    index.put("b", (90, 90, 120, 130))               # across four squares
    index.put("wire", (-1000, 0, 1000, 40))          # across many squares: kept aside, still found
    assert sorted(index.near((0, 0, 20, 20))) == ["a", "wire"]
    assert sorted(index.near((115, 125, 300, 300))) == ["b"]
    assert sorted(index.near((60, 60, 80, 80))) == []            # same square as 'a', but apart from it
    assert sorted(index.near((-900, 30, -890, 35))) == ["wire"]
    assert sorted(index.near((-10_000, -10_000, 10_000, 10_000))) == ["a", "b", "wire"]

    index.put("a", (500, 500, 520, 520))             # filed again: found only where it is now
    assert "a" not in index.near((0, 0, 20, 20)) and index.near((510, 510, 511, 511)) == ["a"]
    index.drop("wire")
    index.drop("missing")                            # nothing to forget: no error
    assert sorted(index) == ["a", "b"] and len(index) == 2
    assert index.near((-900, 30, -890, 35)) == []
