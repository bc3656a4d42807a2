"""The viewer at the editor's dock size: no text widens it, compare panels stay readable,
short vectors write their values. Pictures are kept for people to look at when
INDEXFLOW_SHOTS names a folder (``helpers.save_shot``)."""
import numpy as np
import pytest
from PySide6 import QtCore, QtGui
from PySide6.QtTest import QTest

from .helpers import deliver_posted_events, save_shot, wait_for_viewer

LONG_WARNING = ("warning: 2 target cell(s) are written more than once with reduction 'none' and the "
                "specification leaves the order of the writes open; IndexFlow keeps the last update "
                "in row-major order, onnxruntime may keep another one, so do not rely on it at all.")
assert len(LONG_WARNING) >= 300 - 60


def _shot(widget, name):
    save_shot(widget, f"viewer/{name}")


# ---------------------------------------------------------------------------- 1: long texts


@pytest.mark.parametrize("text", [LONG_WARNING + " " + LONG_WARNING[:60], "x" * 300],
                         ids=["words", "one_word"])
def test_a_long_message_or_name_does_not_raise_the_minimum_width(make_viewer, qtbot, text):
    viewer = make_viewer(420, 470)
    viewer.set_tensor("scatterelements1.output", np.arange(6, dtype=np.float32).reshape(2, 3), "output")
    wait_for_viewer(qtbot, viewer)
    base = viewer.minimumSizeHint().width()
    assert base <= 420
    assert len(text) >= 300
    viewer.set_tensor("scatterelements1.output", np.arange(6, dtype=np.float32).reshape(2, 3), text)
    viewer.pin()
    viewer.set_tensor("n" * 120 + ".output", np.arange(6, dtype=np.float32), text)  # long name too
    wait_for_viewer(qtbot, viewer)
    _shot(viewer, f"long_message_{'words' if ' ' in text else 'one_word'}")
    assert viewer.minimumSizeHint().width() <= base
    assert viewer.width() == 420
    # the text is all there: wrapped on screen, or in the tooltip where a word is cut
    assert text in viewer.info_label.text()
    assert viewer.info_label.height() >= viewer.info_label.fontMetrics().height() * 2   # wrapped
    if " " not in text:
        assert text in viewer.info_label.toolTip()
    assert viewer.name_label.text() == "n" * 120 + ".output"
    assert viewer.name_label.toolTip() == viewer.name_label.text()   # cut with "…": full name here
    # the picture keeps most of its room: the wrapped lines take what they need, no more
    assert viewer.picture.height() > 150


def test_the_editor_dock_keeps_its_width_for_a_scatter_warning(window, qtbot):
    """The user's steps: a ScatterElements with duplicate indices and reduction none gets a
    warning; selecting it used to widen the Properties / Tensor viewer column from 420 to
    597 px for good."""
    from nodeeditor.graph import Graph

    g = Graph(name="dup")
    g.add_literal(np.zeros((2, 3), np.float32), name="data", node_id="data", position=(0, 0))
    g.add_literal(np.array([[1, 0, 1], [0, 0, 0]], np.int64), name="idx", node_id="idx", position=(0, 160))
    g.add_literal(np.arange(6, dtype=np.float32).reshape(2, 3), name="upd", node_id="upd", position=(0, 320))
    g.add_operator("ScatterElements", {"axis": 0}, node_id="se", position=(320, 60))
    g.add_output("out", node_id="out", position=(640, 60))
    g.connect("data", "output", "se", "data")
    g.connect("idx", "output", "se", "indices")
    g.connect("upd", "output", "se", "updates")
    g.connect("se", "output", "out", "value")
    window.set_document(g, None)
    window.runner.wait()
    deliver_posted_events()                  # the docks laid out for this graph
    before = window.viewer_dock.width()
    item = window.scene.node_item("se")
    window.view.centerOn(item)
    point = window.view.mapFromScene(item.sceneBoundingRect().center())
    QTest.mouseClick(window.view.viewport(), QtCore.Qt.MouseButton.LeftButton,
                     QtCore.Qt.KeyboardModifier.NoModifier, point)
    window.runner.wait()
    qtbot.waitUntil(lambda: "warning" in window.viewer.info_label.text(), timeout=10000)
    wait_for_viewer(qtbot, window.viewer)
    _shot(window, "editor_scatter_warning")
    assert window.viewer_dock.width() == before
    assert window.viewer.minimumSizeHint().width() <= before


# ---------------------------------------------------------------------------- 2: compare


def _tick_label_rects(axis):
    """The rectangles pyqtgraph draws the tick labels of ``axis`` in (its own draw specs)."""
    image = QtGui.QImage(10, 10, QtGui.QImage.Format.Format_ARGB32)
    painter = QtGui.QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    if specs is None:
        return []
    return [(rect, text) for rect, _flags, text in specs[2]]


def _assert_readable(viewer, qtbot, name):
    """Every plot's view box is at least 60 px tall (scrolling to reach it if need be),
    and no two tick labels of an axis overlap."""
    plots = [p.plot for p in viewer.picture.panels if hasattr(p, "plot")]
    assert plots
    for plot in plots:
        assert plot.vb.height() >= 60, (name, plot.vb.height())
        for side in ("left", "bottom"):
            axis = plot.getAxis(side)
            if not axis.isVisible() or not axis.style.get("showValues", True):
                continue
            rects = _tick_label_rects(axis)
            assert rects, (name, side)
            for i, (a, ta) in enumerate(rects):
                for b, tb in rects[i + 1:]:
                    assert not a.intersects(b), (name, side, ta, tb, a, b)
    # the last panel can be scrolled into view and is then on screen
    scroll = viewer.picture_scroll
    bar = scroll.verticalScrollBar()
    bar.setValue(bar.maximum())

    def last_plot_on_screen():
        last = plots[-1].vb.sceneBoundingRect()
        top_left = viewer.picture.mapFromScene(last.topLeft())
        bottom_right = viewer.picture.mapFromScene(last.bottomRight())
        shown = scroll.viewport().rect()
        offset = viewer.picture.mapTo(scroll.viewport(), QtCore.QPoint(0, 0))
        on_screen = QtCore.QRect(top_left + offset, bottom_right + offset).intersected(shown)
        assert on_screen.height() >= min(60, shown.height() - 40) and on_screen.width() >= 60, (name, on_screen)

    qtbot.waitUntil(last_plot_on_screen, timeout=10000)
    _shot(viewer, f"{name}_bottom")
    bar.setValue(0)


def _kv_compare(viewer, qtbot):
    """What the user did: pin TensorScatter's present_cache [2, 1, 5, 3], then show
    ScatterND's output of the same shape (the KV-cache example)."""
    rng = np.random.default_rng(0)
    cache = rng.integers(-12, 24, (2, 1, 5, 3)).astype(np.float32)
    viewer.set_tensor("TensorScatter.present_cache", cache)
    viewer.pin()
    viewer.set_tensor("ScatterND.output", cache.copy(), "output")
    wait_for_viewer(qtbot, viewer)


@pytest.mark.parametrize("size", [(420, 482), (420, 360)], ids=["dock", "small"])
def test_compare_panels_stay_readable_at_the_dock_size(make_viewer, qtbot, size):
    viewer = make_viewer(*size)
    _kv_compare(viewer, qtbot)
    _shot(viewer, f"compare_{size[0]}x{size[1]}")
    assert len(viewer.picture.panels) == 3
    _assert_readable(viewer, qtbot, f"compare_{size[0]}x{size[1]}")
    assert viewer.minimumSizeHint().width() <= size[0]


def test_compare_in_the_editor_kv_cache_example(qtbot, dialogs):
    """The reviewer's steps in the editor: KV-cache example, select TensorScatter, Pin,
    select ScatterND; the viewer dock keeps the size the window gives it."""
    from nodeeditor.ui.app import create_main_window

    w = create_main_window("kv_cache_write")
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.runner.wait()
    try:
        def click_node(node_id):
            item = w.scene.node_item(node_id)
            w.view.centerOn(item)
            point = w.view.mapFromScene(item.sceneBoundingRect().center())
            QTest.mouseClick(w.view.viewport(), QtCore.Qt.MouseButton.LeftButton,
                             QtCore.Qt.KeyboardModifier.NoModifier, point)
            w.runner.wait()
            wait_for_viewer(qtbot, w.viewer)

        click_node("tensor_scatter")
        assert w.viewer.name_label.text().startswith("TensorScatter")
        QTest.mouseClick(w.viewer.pin_button, QtCore.Qt.MouseButton.LeftButton)
        click_node("scatter_nd")
        assert w.viewer.name_label.text().startswith("ScatterND")
        wait_for_viewer(qtbot, w.viewer)
        _shot(w.viewer, "editor_compare_dock")
        # the viewer sits in a vertically scrolling area in its dock (projector fix): the
        # dock's 420 px, less the scroll bar when the compare rows are taller than the dock
        bar = w.viewer_dock.widget().verticalScrollBar()
        assert w.viewer.width() == 420 - (bar.width() if bar.isVisible() else 0)
        assert len(w.viewer.picture.panels) == 3
        _assert_readable(w.viewer, qtbot, "editor_compare_dock")
    finally:
        w.discard_changes()
        w.runner.cancel()
        w.runner.wait()
        w.close()


@pytest.mark.parametrize("height", [60, 80, 120, 300])
@pytest.mark.parametrize("shape", [(5, 3), (200, 3), (3, 1000), (12, 40)])
def test_heat_map_tick_labels_never_overlap(qtbot, shape, height):
    """A heat panel squeezed into a short, narrow picture (as the compare rows were): the
    labels thin out to steps of 1, 2, 5, 10, ... and never touch."""
    import pyqtgraph as pg

    from nodeeditor.ui.viewer.panels import HeatPanel, PanelSpec

    area = pg.GraphicsLayoutWidget()
    qtbot.addWidget(area)
    area.resize(220, height)
    values = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    panel = HeatPanel(PanelSpec("heat", "t", values=values, levels=(0.0, float(values.max())),
                                extent=(shape[1], shape[0])))
    for col, item in enumerate(panel.items()):
        area.ci.addItem(item, row=0, col=col)
    area.show()
    qtbot.waitExposed(area)
    deliver_posted_events()          # laid out; the check is that no labels overlap (nothing to wait for)
    for side in ("left", "bottom"):
        rects = _tick_label_rects(panel.plot.getAxis(side))
        assert rects, side
        for i, (a, ta) in enumerate(rects):
            for b, tb in rects[i + 1:]:
                assert not a.intersects(b), (side, ta, tb, a, b)
    area.close()


# ---------------------------------------------------------------------------- 3: short vectors


def _bar_pixels(viewer, panel, x, y):
    """Picture-widget pixel of view point (x, y) of ``panel``, and the picture's image."""
    scene = panel.plot.vb.mapViewToScene(QtCore.QPointF(x, y))
    point = viewer.picture.mapFromScene(scene)
    return point, viewer.picture.grab().toImage()


def _near_colour(image, point, rgb, dy_range, tol=12):
    for dy in dy_range:
        for dx in (-1, 0, 1):
            c = image.pixelColor(point.x() + dx, point.y() + dy)
            if all(abs(a - b) <= tol for a, b in zip((c.red(), c.green(), c.blue()), rgb, strict=True)):
                return True
    return False


@pytest.mark.parametrize("size", [(420, 482), (900, 650)])
def test_short_vectors_write_their_values_and_show_zeros(make_viewer, qtbot, size):
    from nodeeditor.ui.viewer import colors
    from nodeeditor.ui.viewer.panels import LinePanel

    viewer = make_viewer(*size)
    v = np.array([0, 1, 0, 3, 2], np.int64)   # the walkthrough's Gather output, with zeros
    viewer.set_tensor("gather1.output", v)
    wait_for_viewer(qtbot, viewer)
    _shot(viewer, f"bars_ints_{size[0]}")
    (panel,) = [p for p in viewer.picture.panels if isinstance(p, LinePanel)]
    bar_rgb = tuple(int(c) for c in colors.lookup_table(colors.colormap())[100][:3])
    # a zero is a visible line in the bar colour at the base
    for i in (0, 2):
        point, image = _bar_pixels(viewer, panel, i, 0.0)
        assert _near_colour(image, point, bar_rgb, range(-2, 3)), i
    # the number is written just above each bar: light pixels in the 16 px above its top
    for i, value in enumerate(v):
        point, image = _bar_pixels(viewer, panel, i, float(value))
        light = any(image.pixelColor(point.x() + dx, point.y() - dy).lightness() > 170
                    for dx in range(-4, 5) for dy in range(2, 17))
        assert light, (i, value)
    assert panel.value_texts.texts == ["0", "1", "0", "3", "2"]
    # the values fit in the plot: the view reaches above the tallest bar's text
    assert panel.plot.vb.viewRange()[1][1] > 3.3


def test_thirty_two_floats_with_negatives_are_labelled_and_longer_vectors_are_not(make_viewer, qtbot):
    from nodeeditor.ui.viewer.panels import LinePanel

    viewer = make_viewer(420, 482)
    v = np.round(np.sin(np.arange(32) / 3) * 7, 2).astype(np.float32)
    v[5] = 0
    viewer.set_tensor("sin", v)
    wait_for_viewer(qtbot, viewer)
    _shot(viewer, "bars_32_floats_420")
    (panel,) = [p for p in viewer.picture.panels if isinstance(p, LinePanel)]
    assert len(panel.value_texts.texts) == 32 and panel.value_texts.texts[5] == "0"
    low, high = panel.plot.vb.viewRange()[1]
    assert low < v.min() and high > v.max()   # room below the negative bars' values too
    for n in (33, 64, 500):   # longer vectors stay as they were: bars or a line, no numbers
        viewer.set_tensor("long", np.arange(n, dtype=np.float32))
        viewer.wait_for_background()
        (panel,) = [p for p in viewer.picture.panels if isinstance(p, LinePanel)]
        assert panel.value_texts.texts == []
    viewer.set_tensor("mask", np.array([True, False, True]))   # bools: colours, no numbers
    (panel,) = [p for p in viewer.picture.panels if isinstance(p, LinePanel)]
    assert panel.value_texts.texts == []


# ---------------------------------------------------------------------------- long plot titles


def _right_edge_in_view(viewer, item) -> float:
    """Where ``item``'s right edge is drawn, in the picture widget's pixels."""
    rect = item.mapRectToScene(item.boundingRect())
    return viewer.picture.mapFromScene(rect.topRight()).x()


def test_a_long_title_is_cut_and_the_colour_bar_stays_in_the_picture(make_viewer, qtbot):
    """A large heat map in the editor's 420-pixel dock: its title ('... [2000 x 2000] (2 x 2
    blocks, extremes)') used to demand its full width, and the layout pushed the colour bar out
    of the picture. The title is cut with '…' (the whole of it in the tooltip) and comes back
    whole when there is room."""
    from nodeeditor.ui.viewer.panels import HeatPanel

    viewer = make_viewer(420, 500)
    values = np.random.default_rng(3).standard_normal((2000, 2000)).astype(np.float32)
    viewer.set_tensor("sum into rows.output", values, "output")
    wait_for_viewer(qtbot, viewer)
    (panel,) = [p for p in viewer.picture.panels if isinstance(p, HeatPanel)]
    doc = QtGui.QTextDocument()
    doc.setHtml(panel.spec.title)
    full = doc.toPlainText()
    assert full.startswith("sum into rows.output [2000 × 2000]") and len(full) > 50
    shown = panel.plot.titleLabel.item.toPlainText()
    _shot(viewer, "long_title_narrow")
    assert shown.endswith("…") and full.startswith(shown[:-1])
    assert panel.plot.titleLabel.toolTip() == full
    width = viewer.picture.width()
    assert _right_edge_in_view(viewer, panel.colorbar) <= width + 1   # the whole bar is drawn
    assert _right_edge_in_view(viewer, panel.plot.titleLabel.item) <= width + 1
    viewer.resize(900, 500)
    qtbot.waitUntil(lambda: panel.plot.titleLabel.item.toPlainText() == full, timeout=10000)
    _shot(viewer, "long_title_wide")
    assert panel.plot.titleLabel.toolTip() == ""
    assert _right_edge_in_view(viewer, panel.colorbar) <= viewer.picture.width() + 1
