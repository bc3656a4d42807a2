"""File menu follow-ups from the walkthrough: New starts at 100% (shot 07), opening an example
says so in the status bar."""
from __future__ import annotations

from PySide6.QtTest import QTest

from .helpers import LEFT, NOMOD, deliver_posted_events, keys, save_shot


def _example_action(window, name: str):
    return next(a for a in window.examples_menu.actions() if a.data() == name)


def test_opening_an_example_says_so_in_the_status_bar(window, qtbot, dialogs):
    action = _example_action(window, "segment_sum")
    action.trigger()
    assert window.statusBar().currentMessage() == f"Opened example: {action.text()}"
    assert action.text() == "Segment sum and histogram"
    save_shot(window, "window/opened_example_status")


def test_new_starts_at_100_percent_after_a_zoomed_out_example(window, qtbot, dialogs):
    w = window
    _example_action(w, "scatterelements_examples").trigger()
    qtbot.waitUntil(lambda: w.view.zoom < 0.8, timeout=10000)   # the example opens zoomed out (0.55)
    w.runner.wait()
    w.view.setFocus()
    keys(w.view, "Ctrl+N")
    deliver_posted_events()                            # the opening frame (a zero-delay timer)
    assert not w.graph.node_ids
    assert w.view.zoom == 1.0
    # a block added now has its normal size on screen
    tree = w.palette.tree
    item = w.palette.item("op:Gather")
    point = tree.visualItemRect(item).center()
    QTest.mouseClick(tree.viewport(), LEFT, NOMOD, point)
    QTest.mouseDClick(tree.viewport(), LEFT, NOMOD, point)
    qtbot.waitUntil(lambda: len(w.graph.node_ids) == 1, timeout=10000)
    (node_id,) = w.graph.node_ids
    on_screen = w.view.mapFromScene(w.scene.node_item(node_id).sceneBoundingRect()).boundingRect()
    assert abs(on_screen.width() - w.scene.node_item(node_id).sceneBoundingRect().width()) <= 2
    assert w.view.viewport().rect().contains(on_screen)
    save_shot(w, "window/new_then_add_gather")
