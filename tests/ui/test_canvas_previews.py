"""Inline previews keep their numbers right at every zoom: the values are drawn as text at
paint time (rasterised at screen resolution), not baked into a small image that is then
scaled down (which dropped the one-pixel minus strokes: ``-1 -2 -3`` read ``1 2 3`` at 0.85x)."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from nodeeditor.graph import Graph

from .helpers import deliver_posted_events, save_shot


def _pair() -> Graph:
    """Two 2 x 3 literals, the same but for the signs of their top rows."""
    g = Graph(name="signs")
    g.add_literal(np.array([[-1, -2, -3], [4, 5, 6]], np.float32), name="neg", node_id="neg", position=(0, 0))
    g.add_literal(np.array([[1, 2, 3], [4, 5, 6]], np.float32), name="pos", node_id="pos", position=(0, 200))
    return g


def _text_width(image: QtGui.QImage, rect: QtCore.QRect) -> int:
    """Width (pixels) of the text in one preview cell: the columns holding pixels far from
    the cell's colour (its corner pixel). A minus sign widens "-1" beyond "1"."""
    bg = image.pixelColor(rect.left(), rect.top())
    columns = []
    for x in range(rect.left(), rect.right() + 1):
        for y in range(rect.top(), rect.bottom() + 1):
            c = image.pixelColor(x, y)
            if abs(c.red() - bg.red()) + abs(c.green() - bg.green()) + abs(c.blue() - bg.blue()) > 90:
                columns.append(x)
                break
    return (columns[-1] - columns[0] + 1) if columns else 0


def _top_cells(w, node_id: str) -> list[QtCore.QRect]:
    """Viewport rectangles of the three top-row cells of a node's preview (1 px inside)."""
    item = w.scene.node_item(node_id)
    top = item._rows_bottom + 2
    rects = []
    for c in range(3):
        x0 = 9 + c * 212 / 3
        scene = item.mapRectToScene(QtCore.QRectF(x0, top, 212 / 3, 36))
        rects.append(w.view.mapFromScene(scene).boundingRect().adjusted(2, 2, -2, -2))
    return rects


def _render(w, qtbot, zoom: float, name: str) -> QtGui.QImage:
    w.view.resetTransform()
    w.view.scale(zoom, zoom)
    w.view.centerOn(115, 150)
    # nothing to wait for: the grab paints the view as it now stands (the values are drawn
    # at paint time); the scroll's posted events are delivered first, as a user's screen would
    deliver_posted_events()
    return save_shot(w.view, f"canvas/{name}").toImage()


def test_negative_numbers_keep_their_minus_sign_when_zoomed_out(window, qtbot):
    w = window
    w.set_document(_pair(), None)
    deliver_posted_events()                       # the opening frame (a zero-delay timer)
    w.runner.wait()
    w.previews_action.trigger()                   # View > Inline Previews
    assert w.previews_action.isChecked()
    extra = {}
    for zoom in (1.0, 0.85, 0.6):
        image = _render(w, qtbot, zoom, f"previews_signs_{zoom}")
        neg = [_text_width(image, r) for r in _top_cells(w, "neg")]
        pos = [_text_width(image, r) for r in _top_cells(w, "pos")]
        extra[zoom] = [n - p for n, p in zip(neg, pos, strict=True)]
        if sum(pos) == 0 and sum(neg) == 0:
            continue                              # numbers hidden at this zoom: nothing wrong shown
        assert min(pos) > 0, (zoom, pos)          # the digits are drawn
        # each "-k" is "k" with a minus in front: wider (at 1.0x by about 6 px)
        assert min(extra[zoom]) >= max(2, int(4 * zoom)), (zoom, neg, pos)
    assert min(extra[1.0]) >= 4, extra            # the reference zoom shows the signs


def test_the_kv_cache_example_reads_minus_one_at_085(window, qtbot):
    """The reported case: the KV-cache example's "new rows" preview at 0.85x."""
    w = window
    action = next(a for a in w.examples_menu.actions() if a.data() == "kv_cache_write")
    action.trigger()
    deliver_posted_events()                       # the opening frame (a zero-delay timer)
    w.runner.wait()
    w.previews_action.trigger()
    nid = next(n for n in w.graph.node_ids if w.graph.node(n).name.startswith("new rows"))
    item = w.scene.node_item(nid)
    value = w.runner.value(nid)
    assert value[(0,) * (value.ndim - 2)][0].tolist() == [-1, -2, -3]
    centre = item.sceneBoundingRect().center()
    w.view.resetTransform()
    w.view.scale(0.85, 0.85)
    w.view.centerOn(centre)
    deliver_posted_events()                       # nothing to wait for: the grab paints the view
    save_shot(w.view, "canvas/previews_kv_cache_0.85")
    assert item._preview_labels is not None       # the numbers are drawn as text at paint time
    texts = [t for _rect, t, _colour in item._preview_labels.cells]
    assert texts[:3] == ["-1", "-2", "-3"]


def test_a_short_vector_previews_as_one_row_of_values(qapp):
    from nodeeditor.ui.canvas.preview import preview

    image, text = preview(np.array([3, -1], np.int64), 212, 36)
    assert [value for _rect, value, _colour in text.cells] == ["3", "-1"]
    left, right = image.pixelColor(50, 18), image.pixelColor(160, 18)
    assert left != right                        # two cells coloured by value (a heat strip)
    assert image.pixelColor(50, 2) == left      # each filling its cell's height, unlike a bar


def test_a_long_vector_previews_as_bars_without_values(qapp):
    from nodeeditor.ui.canvas.preview import preview

    values = np.arange(100, dtype=np.float32)
    image, text = preview(values, 212, 36)
    assert text is None
    assert image.pixelColor(1, 1) != image.pixelColor(210, 1)   # tall bar on the right only
