"""Port type labels stay readable at the zoom Frame All (Ctrl+0) picks, on small and large
graphs and small and large windows: drawn at least READABLE_PX screen pixels high on the
node, or, where the zoom leaves a row no room for that, shown at screen size in a card while
the pointer is over the node."""
from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from .helpers import keys, open_example
from .test_canvas_minimap import chains

#: What this test calls readable: text at least this many screen pixels high (a pixel size
#: of 8 is where the digits of "float32[3, 4]" start to blur into each other).
READABLE_PX = 8.5


class Recorder(QtGui.QPainter):
    """A painter that notes each text drawn with the screen pixel size of its font."""

    def __init__(self, device):
        super().__init__(device)
        self.texts: list[tuple[str, float]] = []

    def drawText(self, *args):
        text = next((a for a in args if isinstance(a, str)), "")
        scale = self.worldTransform().m11()
        metrics = QtGui.QFontMetricsF(self.font())
        self.texts.append((text, metrics.height() * scale))
        super().drawText(*args)


def painted_texts(item, zoom: float) -> list[tuple[str, float]]:
    """(text, screen pixel height) of what ``item`` paints at ``zoom``."""
    image = QtGui.QImage(1600, 1000, QtGui.QImage.Format.Format_ARGB32)
    painter = Recorder(image)
    painter.setWorldTransform(QtGui.QTransform.fromScale(zoom, zoom))
    item.paint(painter, QtWidgets.QStyleOptionGraphicsItem(), None)
    painter.end()
    return painter.texts


def type_texts(window, node_id):
    item = window.scene.node_item(node_id)
    return {item.port_label(port, out)[0] for port, out in item.ports if item.port_label(port, out)[1]}


@pytest.mark.parametrize("size", [(1480, 900), (1100, 700)])
@pytest.mark.parametrize("graph", ["embedding_lookup", "scatterelements_examples", "sixty nodes"])
def test_port_types_are_readable_at_the_frame_all_zoom(window, qtbot, size, graph):
    w = window
    w.resize(*size)
    if graph == "sixty nodes":
        w.set_document(chains(12), None)
        w.runner.wait()
    else:
        open_example(w, graph)
    w.view.setFocus()
    keys(w.view, "Ctrl+0")                          # Frame All
    zoom = w.view.zoom
    item = max(w.scene.node_items(), key=lambda i: len(type_texts(w, i.node_id)))
    wanted = type_texts(w, item.node_id)
    assert wanted
    drawn = {text: px for text, px in painted_texts(item, zoom)}
    on_node = {t for t in wanted if any(t in d or d.replace("…", "") in t and "…" in d for d in drawn)}
    for text, px in drawn.items():          # what is drawn on the node is readable ...
        if any(t in text for t in wanted):
            assert px >= READABLE_PX, (text, px, zoom)
    if on_node == wanted:
        return
    # ... and what is not (no room at this zoom) the pointer over it shows, at screen size
    hover(w.view.viewport(), w.view.mapFromScene(item.sceneBoundingRect().center()))
    qtbot.waitUntil(lambda: w.scene.card is not None and w.scene.card.isVisible(), timeout=10000)
    card = painted_texts(w.scene.card, 1.0)
    for text in wanted:
        px = next((px for t, px in card if t == text), None)
        assert px is not None and px >= READABLE_PX, (text, px, zoom)
    hover(w.view.viewport(), QtCore.QPoint(2, 2))
    qtbot.waitUntil(lambda: w.scene.card is None, timeout=10000)


def hover(viewport, pos: QtCore.QPoint) -> None:
    """The pointer moved to ``pos`` over the canvas (sent to the viewport itself: windows that
    earlier tests left on the offscreen screen may lie over this one there)."""
    event = QtGui.QMouseEvent(QtCore.QEvent.Type.MouseMove, QtCore.QPointF(pos),
                              QtCore.QPointF(viewport.mapToGlobal(pos)), QtCore.Qt.MouseButton.NoButton,
                              QtCore.Qt.MouseButton.NoButton, QtCore.Qt.KeyboardModifier.NoModifier)
    QtWidgets.QApplication.sendEvent(viewport, event)


def test_one_long_type_hides_only_itself(window, qtbot):
    """A rank-9 index tensor's type does not fit its row: that label alone gives way to its
    short form (dtype and rank; the card has it whole); the node's other types are still drawn
    (every label went: new-user audit)."""
    import numpy as np

    from nodeeditor.graph import Graph

    g = Graph("long type")
    g.add_literal(np.zeros((6, 4), np.float32), name="table", node_id="t", position=(0, 0))
    g.add_literal(np.zeros((1,) * 9, np.int64), name="ids", node_id="i", position=(0, 160))
    g.add_operator("Gather", name="look up", node_id="g", position=(320, 0))
    g.connect("t", "output", "g", "data")
    g.connect("i", "output", "g", "indices")
    w = window
    w.set_document(g, None)
    w.runner.wait()
    item = w.scene.node_item("g")
    zoom = 1.0
    drawn = [text for text, _px in painted_texts(item, zoom)]
    assert "float32[6, 4]" in drawn                          # data's type, short: drawn
    long = item.port_label("indices", False)[0]
    assert long == "int64[1, 1, 1, 1, 1, 1, 1, 1, 1]" and not any(t.startswith("int64[1") for t in drawn)
    assert "int64 9-d" in drawn and "float32 10-d" in drawn    # their short forms, which fit
    assert not item.types_shown(zoom)                          # so the hover card shows them whole
