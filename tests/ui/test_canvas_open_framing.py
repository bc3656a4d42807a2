"""Opening a graph too big to show readably: the view keeps the readable zoom and the
top-left, and a hint over the canvas says how many nodes are out of view and that Ctrl+0
shows them all. Graphs that fit show no hint. Panning, zooming or Ctrl+0 take it away."""
from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.ui.canvas import view as V

from .helpers import keys, save_shot
from .helpers import nodes_out_of_view as _cut
from .helpers import open_example as _open_example


def test_a_graph_too_big_says_what_is_out_of_view_and_ctrl_0_shows_it(window, qtbot):
    w = window
    _open_example(w, "scatterelements_examples")
    save_shot(w.view, "canvas/open_scatterelements")
    assert w.view.zoom == pytest.approx(V.READABLE_ZOOM)
    hidden = _cut(w)
    assert hidden > 0
    hint = w.view.overflow_hint
    assert hint.isVisible()
    assert hint.text().startswith(f"{hidden} of {len(w.scene.node_items())} nodes")
    assert "Ctrl+0" in hint.text()
    assert w.view.viewport().rect().contains(hint.geometry())
    w.view.setFocus()
    keys(w.view, "Ctrl+0")                       # View > Frame All
    assert _cut(w) == 0 and not hint.isVisible()
    save_shot(w.view, "canvas/open_scatterelements_ctrl0")


def test_a_graph_that_fits_shows_no_hint_and_panning_hides_it(window, qtbot):
    w = window
    _open_example(w, "kv_cache_write")
    assert _cut(w) == 0 and not w.view.overflow_hint.isVisible()
    _open_example(w, "scatterelements_examples")
    assert w.view.overflow_hint.isVisible()
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Right)   # nothing selected: a pan
    assert not w.view.overflow_hint.isVisible()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_F)       # framed again: back
    assert w.view.overflow_hint.isVisible()
    vp = w.view.viewport()
    wheel = QtGui.QWheelEvent(QtCore.QPointF(100, 100), QtCore.QPointF(vp.mapToGlobal(QtCore.QPoint(100, 100))),
                              QtCore.QPoint(), QtCore.QPoint(0, 120), QtCore.Qt.MouseButton.NoButton,
                              QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.ScrollPhase.NoScrollPhase, False)
    QtWidgets.QApplication.sendEvent(vp, wheel)
    assert not w.view.overflow_hint.isVisible()
