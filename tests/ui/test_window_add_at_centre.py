"""Double-clicking palette blocks adds each one "at the centre": it must land in free space
inside the view (walkthrough shots 16 and 19: a column running below the canvas, the view
not following), and when the view has no room left, the view scrolls to the new block."""
from __future__ import annotations

import pytest
from PySide6.QtTest import QTest

from nodeeditor.graph import Graph, load_example

from .helpers import LEFT, NOMOD, deliver_posted_events, save_shot

KEYS = ["gen:normal", "gen:integers", "op:Gather", "output", "op:GatherND", "op:ScatterND",
        "op:GatherElements", "op:ScatterElements", "gen:zeros", "output"]


def _double_click(window, key):
    tree = window.palette.tree
    item = window.palette.item(key)
    tree.scrollToItem(item)
    point = tree.visualItemRect(item).center()
    QTest.mouseClick(tree.viewport(), LEFT, NOMOD, point)
    QTest.mouseDClick(tree.viewport(), LEFT, NOMOD, point)


def _visible(window):
    return window.view.mapToScene(window.view.viewport().rect()).boundingRect()


@pytest.mark.parametrize("size,graph", [((1480, 900), None), ((1000, 600), None), ((1480, 900), "kv_cache_write")])
def test_blocks_added_at_the_centre_land_in_view_without_overlap(window, qtbot, size, graph):
    w = window
    w.resize(*size)
    w.set_document(load_example(graph) if graph else Graph(name="blocks"), None)
    deliver_posted_events()              # laid out at this size; the opening frame (a zero-delay timer)
    w.runner.wait()
    for key in KEYS:
        assert key in w.palette._items, key
        before = set(w.graph.node_ids)
        _double_click(w, key)
        (new,) = set(w.graph.node_ids) - before
        rect = w.scene.node_item(new).sceneBoundingRect()
        assert _visible(w).contains(rect), (key, rect, _visible(w))
        others = [w.scene.node_item(n).sceneBoundingRect() for n in before]
        assert not any(rect.intersects(o) for o in others), key
    w.runner.wait()
    save_shot(w, f"window/added_blocks_{size[0]}x{size[1]}_{graph or 'new'}")
    if size == (1480, 900) and graph is None:   # room for all of them: nothing scrolled away
        seen = _visible(w)
        assert all(seen.contains(i.sceneBoundingRect()) for i in w.scene.node_items())
