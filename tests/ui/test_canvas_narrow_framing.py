"""The canvas on a projector (QT_SCALE_FACTOR=1.5 on 1280x720: an 853x480 logical window):
the overflow hint wraps inside the narrow canvas instead of being cut ("2 of 4 nodes are
outs", walkthrough shot 01), and Frame All (Ctrl+0) on the ScatterElements example with the
palette closed shows every node instead of stopping at 0.15 and offering Ctrl+0 again
(shots 03, 04). Keys are real key presses on the view."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import Graph
from nodeeditor.ui.canvas import view as V

from .helpers import deliver_posted_events, keys, save_shot
from .helpers import nodes_out_of_view as _cut
from .helpers import open_example as _open_example

PROJECTOR = (818, 441)   # the first-start window on 1280x720 at QT_SCALE_FACTOR=1.5 (logical px)


def _text_fits(label: QtWidgets.QLabel) -> bool:
    """Whether all of the label's text, wrapped at its width, is inside it."""
    room = label.contentsRect()
    needed = label.fontMetrics().boundingRect(QtCore.QRect(0, 0, room.width(), 100000),
                                              QtCore.Qt.TextFlag.TextWordWrap, label.text())
    return needed.width() <= room.width() and needed.height() <= room.height()


def _shot(w, name):
    save_shot(w, f"canvas/{name}")


def test_the_overflow_hint_wraps_inside_a_narrow_canvas(window, qtbot):
    w = window
    w.resize(*PROJECTOR)
    w.resizeDocks([w.palette_dock, w.properties_dock], [220, 420], QtCore.Qt.Orientation.Horizontal)
    deliver_posted_events()                      # the docks laid out at this size
    _open_example(w, "scatterelements_examples")
    hint = w.view.overflow_hint
    _shot(w, "hint_narrow_canvas")
    assert hint.isVisible()
    assert w.view.viewport().width() < 400, "the canvas is not narrow: the test proves nothing"
    assert w.view.viewport().rect().contains(hint.geometry())
    assert _text_fits(hint), (hint.text(), hint.size())
    # the short form: the long one took four lines here, over a third of the canvas's nodes
    assert hint.text().endswith("nodes outside the view · Ctrl+0 shows all"), hint.text()
    assert hint.height() <= 2 * hint.fontMetrics().lineSpacing() + hint.contentsMargins().top() \
        + hint.contentsMargins().bottom() + 4
    # a wider canvas: the hint grows back to one line
    narrow = w.view.viewport().width()
    w.palette_dock.hide()
    qtbot.waitUntil(lambda: w.view.viewport().width() > narrow, timeout=10000)
    keys(w.view, "F")
    assert hint.isVisible() and w.view.viewport().rect().contains(hint.geometry()) and _text_fits(hint)
    if w.view.viewport().width() > 700:     # room for the whole sentence on one line
        assert "Ctrl+0 (View > Frame All)" in hint.text()


def test_frame_all_on_the_projector_shows_every_node_and_never_offers_itself(window, qtbot):
    w = window
    w.resize(*PROJECTOR)
    w.palette_dock.hide()
    deliver_posted_events()                      # the docks laid out without the palette
    # a right column widened by the user (a narrower window gives it its share): the canvas too
    # narrow for the example at the wheel's smallest zoom
    w.resizeDocks([w.properties_dock], [420], QtCore.Qt.Orientation.Horizontal)
    deliver_posted_events()
    _open_example(w, "scatterelements_examples")
    w.view.setFocus()
    keys(w.view, "Ctrl+0")                       # View > Frame All
    _shot(w, "frame_all_projector")
    hint = w.view.overflow_hint
    assert not (hint.isVisible() and "Ctrl+0" in hint.text()), hint.text()
    assert _cut(w) == 0, f"{_cut(w)} nodes out of view at zoom {w.view.zoom:.3f}"
    assert V.FRAME_ALL_MIN_ZOOM <= w.view.zoom < V.MIN_ZOOM
    # the wheel zooms in from there (no jump), and never out below where Frame All stopped
    zoom = w.view.zoom
    vp = w.view.viewport()
    for delta, check in ((-120, lambda z: z == pytest.approx(zoom)), (120, lambda z: z == pytest.approx(zoom * 1.15))):
        wheel = QtGui.QWheelEvent(QtCore.QPointF(100, 100), QtCore.QPointF(vp.mapToGlobal(QtCore.QPoint(100, 100))),
                                  QtCore.QPoint(), QtCore.QPoint(0, delta), QtCore.Qt.MouseButton.NoButton,
                                  QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.ScrollPhase.NoScrollPhase, False)
        QtWidgets.QApplication.sendEvent(vp, wheel)
        assert check(w.view.zoom), (delta, zoom, w.view.zoom)


def test_frame_all_on_a_graph_too_big_even_for_the_smallest_zoom_says_so(window, qtbot):
    w = window
    w.resize(*PROJECTOR)
    deliver_posted_events()                      # the docks laid out at this size
    g = Graph(name="very wide")
    for i in range(80):
        g.add_literal(np.array([i], np.int64), name=f"n{i}", node_id=f"n{i}", position=(i * 400.0, 0))
    w.set_document(g, None)
    deliver_posted_events()                      # the opening frame (a zero-delay timer)
    w.view.setFocus()
    keys(w.view, "Ctrl+0")
    _shot(w, "frame_all_too_big")
    hint = w.view.overflow_hint
    assert w.view.zoom == pytest.approx(V.FRAME_ALL_MIN_ZOOM)
    assert hint.isVisible() and _cut(w) > 0
    assert "Ctrl+0" not in hint.text()
    assert "smallest zoom" in hint.text() and "Space+drag" in hint.text()
    assert hint.text().startswith(f"{_cut(w)} of 80 nodes")
    assert w.view.viewport().rect().contains(hint.geometry()) and _text_fits(hint)


def test_the_overflow_hint_shows_all_its_lines_when_the_canvas_narrows_after_opening(window, qtbot):
    """The hint is placed when a graph opens and again when the canvas is resized; the second
    placement measured the wrapped height at the hint's old width, so a hint that needed a
    third line showed two and a half (seen on the default example in a 796 px window)."""
    w = window
    w.resize(1100, 800)
    deliver_posted_events()
    _open_example(w, "embedding_lookup")
    hint = w.view.overflow_hint
    for width in (900, 820, 796, 760):
        w.resize(width, 796)
        qtbot.waitUntil(lambda width=width: w.width() == width, timeout=10000)
        deliver_posted_events()
        if hint.isVisible():
            assert _text_fits(hint), (width, hint.text(), hint.size())
    _shot(w, "hint_after_resize")
