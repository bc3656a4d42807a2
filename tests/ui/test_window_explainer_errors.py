"""The Explainer does not step through a node in error: it shows the node's error, like the
viewer and the property panel (walkthrough shot 38: reduction='max' at opset 16)."""
from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.graph import NodeStatus

from .helpers import LEFT, NOMOD, deliver_posted_events, keys, save_shot
from .test_window_selection_viewer import click_node


def _open_example(window, name: str) -> None:
    action = next(a for a in window.examples_menu.actions() if a.data() == name)
    action.trigger()
    deliver_posted_events()            # the opening frame (a zero-delay timer)
    window.runner.wait()


def _click_empty_canvas(window) -> None:
    rect = window.scene.nodes_rect(None)
    point = window.view.mapFromScene(QtCore.QPointF(rect.left() - 40, rect.top() - 40))
    QTest.mouseClick(window.view.viewport(), LEFT, NOMOD, point)


def test_a_node_in_error_is_not_explained_but_its_error_is_shown(window, qtbot):
    w = window
    _open_example(w, "segment_sum")
    w.view.resetTransform()
    w.view.centerOn(w.scene.node_item("sum").sceneBoundingRect().center())
    click_node(w, "sum")
    qtbot.waitUntil(lambda: w.explainer.count > 0, timeout=10000)   # reduction add at 18: explained
    # reduction -> max, with the keyboard in the property combo
    combo = w.properties.widgets["attr:reduction"]
    combo.setFocus()
    QTest.keyClicks(combo, "max")
    assert combo.currentData() == "max"
    w.runner.wait()
    qtbot.waitUntil(lambda: "Fold 1 of 2" in w.explainer.sentence.text() or w.explainer.count > 0, timeout=10000)
    # the graph's opset -> 16, typed into the graph settings
    _click_empty_canvas(w)
    qtbot.waitUntil(lambda: "opset" in w.properties.widgets, timeout=10000)
    box = w.properties.widgets["opset"]
    box.setFocus()
    keys(box, "Ctrl+A")
    QTest.keyClicks(box, "16")
    QTest.keyClick(box, QtCore.Qt.Key.Key_Return)
    assert w.graph.opset == 16
    w.runner.wait()
    click_node(w, "sum")
    qtbot.waitUntil(lambda: w.properties.node_id == "sum", timeout=10000)
    w.runner.wait()
    qtbot.waitUntil(lambda: "is not allowed at opset 16" in w.explainer.title.text(), timeout=10000)
    assert w.scene.node_state("sum")[0] == NodeStatus.ERROR
    text = w.explainer.title.text()
    assert "sum per segment" in text and "reduction='max' is not allowed at opset 16" in text, text
    assert w.explainer.count == 0 and not w.explainer.slider.isEnabled()
    assert w.explainer.sentence.text() == ""
    save_shot(w, "window/explainer_shows_node_error")
    # back to opset 18 (undo): explained again
    keys(w.view, "Ctrl+Z")
    w.runner.wait()
    qtbot.waitUntil(lambda: w.explainer.count == 6, timeout=10000)
