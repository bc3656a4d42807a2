"""TensorViewer driven with pytest-qt: checks what is displayed (image data handed to
pyqtgraph, the table model's values, slider ranges). Expected values are computed from the
input arrays with numpy, never read back from the widget."""
import math

import ml_dtypes
import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.ui.viewer import colors, thumbnail
from nodeeditor.ui.viewer.panels import HeatPanel, LinePanel, TextPanel
from nodeeditor.ui.viewer.slicing import MAX_DISPLAY

from .helpers import deliver_posted_events, save_shot

DISPLAY = QtCore.Qt.ItemDataRole.DisplayRole


def show(viewer, qtbot, name, array, subtitle=""):
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor(name, array, subtitle)
    return viewer


def panels(viewer, kind):
    return [p for p in viewer.picture.panels if isinstance(p, kind)]


def table_texts(model):
    return [[model.data(model.index(r, c), DISPLAY) for c in range(model.columnCount())]
            for r in range(model.rowCount())]


def hover_at(viewer, qtbot, panel, x, y):
    scene_pos = panel.plot.vb.mapViewToScene(QtCore.QPointF(x, y))
    with qtbot.waitSignal(viewer.hoverChanged, timeout=10000) as blocker:
        viewer.picture.scene().sigMouseMoved.emit(scene_pos)
    return blocker.args[0]


# ---------------------------------------------------------------------------- 1-D


def test_short_vector_is_bars_of_the_values(viewer, qtbot):
    v = np.array([3, -1, 4, 1, -5, 9, 2, 6], np.int64)
    show(viewer, qtbot, "v", v)
    (panel,) = panels(viewer, LinePanel)
    assert panel.bars is not None and panel.curve is None
    np.testing.assert_array_equal(panel.bars.opts["height"], v.astype(np.float32))
    np.testing.assert_array_equal(panel.bars.opts["x"], np.arange(8))
    assert "int64" in viewer.info_label.text() and "(8,)" in viewer.info_label.text()
    assert "min -5" in viewer.stats_label.text() and "max 9" in viewer.stats_label.text()
    assert hover_at(viewer, qtbot, panel, 5.1, 3.0).endswith("[5] = 9")
    assert table_texts(viewer.table_model) == [[str(x)] for x in v.tolist()]


def test_long_vector_is_a_line(viewer, qtbot):
    v = np.sin(np.arange(1000) / 30).astype(np.float32)
    show(viewer, qtbot, "long", v)
    (panel,) = panels(viewer, LinePanel)
    assert panel.bars is None
    x, y = panel.curve.getData()
    np.testing.assert_array_equal(y, v)
    assert viewer.table_model.rowCount() == 1000 and viewer.table_model.columnCount() == 1
    assert viewer.table_model.data(viewer.table_model.index(999, 0), DISPLAY) == str(v[999])


# ---------------------------------------------------------------------------- 2-D


def test_heat_map_image_levels_cell_texts_and_hover(viewer, qtbot):
    a = (np.arange(30, dtype=np.float32).reshape(5, 6) / 7).astype(np.float32)
    show(viewer, qtbot, "a", a)
    (panel,) = panels(viewer, HeatPanel)
    np.testing.assert_array_equal(panel.image_item.image, a)
    assert panel.colorbar is not None
    assert tuple(panel.colorbar.levels()) == pytest.approx((float(a.min()), float(a.max())))
    assert len(panel.text_item.texts) == 5 and len(panel.text_item.texts[0]) == 6
    assert panel.text_item.texts[1][2] == f"{float(a[1, 2]):.3g}"
    text = hover_at(viewer, qtbot, panel, 2.2, 1.1)  # x = column 2, y = row 1
    assert text == "a [1, 2] = " + str(a[1, 2])
    assert viewer.hover_label.text() == text


def test_table_shows_exact_values_lazily(viewer, qtbot):
    a = np.array([[0.1, 0.1 + 0.2], [1e-300, -2.5e17]], np.float64)
    show(viewer, qtbot, "exact", a)
    texts = table_texts(viewer.table_model)
    assert texts == [[repr(float(x)) for x in row] for row in a.tolist()]
    assert [[float(t) for t in row] for row in texts] == a.tolist()
    tooltip = viewer.table_model.data(viewer.table_model.index(1, 0), QtCore.Qt.ItemDataRole.ToolTipRole)
    assert tooltip.startswith("[1, 0] = ")


def test_nan_cells_are_magenta_on_top_of_the_heat_map(viewer, qtbot):
    a = np.arange(20, dtype=np.float64).reshape(4, 5)
    a[1, 2] = np.nan
    a[2, 3] = np.inf
    show(viewer, qtbot, "nan", a)
    (panel,) = panels(viewer, HeatPanel)
    overlay = panel.nan_item.image
    assert panel.nan_item.isVisible()
    painted = np.argwhere(overlay[..., 3] > 0).tolist()
    assert painted == np.argwhere(np.isnan(a)).tolist()
    assert tuple(overlay[1, 2]) == colors.NAN_RGBA
    finite = a[np.isfinite(a)]
    assert tuple(panel.colorbar.levels()) == (finite.min(), finite.max())
    assert "NaN 1" in viewer.stats_label.text() and "inf 1" in viewer.stats_label.text()


def test_bfloat16_and_float16_are_converted_only_for_display(viewer, qtbot):
    a = np.array([[0.1, 2.5], [-3.0, 1e3]], np.float32).astype(ml_dtypes.bfloat16)
    show(viewer, qtbot, "bf16", a)
    (panel,) = panels(viewer, HeatPanel)
    assert panel.image_item.image.dtype == np.float32
    np.testing.assert_array_equal(panel.image_item.image, a.astype(np.float32))
    assert viewer.current_view().dtype == a.dtype  # the table reads the bfloat16 values
    for (r, c), value in np.ndenumerate(a):
        text = viewer.table_model.data(viewer.table_model.index(r, c), DISPLAY)
        assert np.array(float(text), ml_dtypes.bfloat16) == value


# ---------------------------------------------------------------------------- N-D


def test_nd_slider_ranges_and_slices(viewer, qtbot):
    a = np.arange(2 * 3 * 4 * 5, dtype=np.int32).reshape(2, 3, 4, 5)
    show(viewer, qtbot, "nd", a)
    controls = viewer.controls
    assert controls.isVisible()
    assert controls.axes == (2, 3)
    assert {k: (s.minimum(), s.maximum()) for k, s in controls.sliders.items()} == {0: (0, 1), 1: (0, 2)}
    assert {k: (s.minimum(), s.maximum()) for k, s in controls.spinboxes.items()} == {0: (0, 1), 1: (0, 2)}
    np.testing.assert_array_equal(panels(viewer, HeatPanel)[0].image_item.image, a[0, 0].astype(np.float32))
    controls.set_index(0, 1)
    controls.spinboxes[1].setValue(2)  # the spin box drives the slider too
    assert controls.sliders[1].value() == 2
    np.testing.assert_array_equal(panels(viewer, HeatPanel)[0].image_item.image, a[1, 2].astype(np.float32))
    assert viewer.table_model.data(viewer.table_model.index(3, 4), DISPLAY) == str(a[1, 2, 3, 4])

    controls.set_axes(3, 1)  # rows follow axis 3, columns axis 1; sliders for axes 0 and 2
    assert {k: s.maximum() for k, s in controls.sliders.items()} == {0: 1, 2: 3}
    controls.set_index(2, 3)
    expected = a[1, :, 3, :].T
    image = panels(viewer, HeatPanel)[0].image_item.image
    np.testing.assert_array_equal(image, expected.astype(np.float32))
    assert viewer.current_index(4, 2) == (1, 2, 3, 4)


def test_nd_axis_combo_swaps_when_picking_the_other_axis(viewer, qtbot):
    a = np.zeros((2, 3, 4))
    show(viewer, qtbot, "nd", a)
    viewer.controls.row_combo.setCurrentIndex(2)  # row axis := 2 (was the column axis)
    qtbot.waitUntil(lambda: set(viewer.controls.sliders) == {0}, timeout=10000)
    assert viewer.controls.axes == (2, 1)
    assert panels(viewer, HeatPanel)[0].image_item.image.shape == (4, 3)


def test_axis_combos_show_long_sizes_whole_after_a_small_tensor(viewer, qtbot):
    """The combos' items change with each tensor: after a (2, 3, 4) one, a (3, 123456, 40)
    one's "axis 1 (123456)" is shown whole, not elided."""
    show(viewer, qtbot, "small", np.zeros((2, 3, 4)))
    viewer.resize(420, 600)
    show(viewer, qtbot, "big", np.zeros((3, 123456, 40), np.float32))
    combo = viewer.controls.row_combo
    assert combo.currentText() == "axis 1 (123456)"
    qtbot.waitUntil(lambda: combo.width() >= combo.sizeHint().width(), timeout=10000)
    option = QtWidgets.QStyleOptionComboBox()
    combo.initStyleOption(option)
    text_room = combo.style().subControlRect(QtWidgets.QStyle.ComplexControl.CC_ComboBox, option,
                                             QtWidgets.QStyle.SubControl.SC_ComboBoxEditField, combo).width()
    assert combo.fontMetrics().horizontalAdvance(combo.currentText()) <= text_room


# ---------------------------------------------------------------------------- dtypes


def test_bool_shows_two_colours(viewer, qtbot):
    a = np.eye(4, dtype=bool)
    a[0, 3] = True
    show(viewer, qtbot, "mask", a)
    (panel,) = panels(viewer, HeatPanel)
    np.testing.assert_array_equal(panel.image_item.image, a.astype(np.float32))
    lut = colors.lookup_table(panel.spec.cmap)
    lo, hi = panel.spec.levels
    assert tuple(lut[0][:3]) == colors.FALSE_RGB and tuple(lut[-1][:3]) == colors.TRUE_RGB
    assert (lo, hi) == (0.0, 1.0)
    model = viewer.table_model
    bg = model.data(model.index(0, 3), QtCore.Qt.ItemDataRole.BackgroundRole).color()
    assert (bg.red(), bg.green(), bg.blue()) == colors.TRUE_RGB
    bg = model.data(model.index(1, 0), QtCore.Qt.ItemDataRole.BackgroundRole).color()
    assert (bg.red(), bg.green(), bg.blue()) == colors.FALSE_RGB
    assert model.data(model.index(0, 3), DISPLAY) == "True"
    assert "mean 0.3125" in viewer.stats_label.text()


def test_complex_toggle_between_real_imag_and_magnitude_phase(viewer, qtbot):
    z = np.array([[1 + 2j, complex(0.0, -3.0)], [np.sqrt(2) * (1 + 1j), -4]], np.complex128)
    show(viewer, qtbot, "z", z)
    assert viewer.complex_combo.isVisible()
    real, imag = panels(viewer, HeatPanel)
    np.testing.assert_array_equal(real.image_item.image, z.real.astype(np.float32))
    np.testing.assert_array_equal(imag.image_item.image, z.imag.astype(np.float32))
    viewer.complex_combo.setCurrentIndex(1)
    assert viewer.complex_mode == "mag_phase"
    mag, phase = panels(viewer, HeatPanel)
    np.testing.assert_allclose(mag.image_item.image, np.abs(z).astype(np.float32))
    np.testing.assert_allclose(phase.image_item.image, np.angle(z).astype(np.float32))
    assert "magnitude" in mag.spec.title and "phase" in phase.spec.title
    assert viewer.table_model.data(viewer.table_model.index(0, 0), DISPLAY) == "1.0+2.0j"
    assert viewer.table_model.data(viewer.table_model.index(0, 1), DISPLAY) == "0.0-3.0j"


def test_strings_only_in_the_table(viewer, qtbot):
    s = np.array([["apple", "b"], ["", "día"]], dtype=object)
    show(viewer, qtbot, "words", s)
    assert not viewer.tabs.isTabEnabled(0)
    assert viewer.tabs.currentIndex() == 1
    assert not panels(viewer, HeatPanel) and panels(viewer, TextPanel)
    assert table_texts(viewer.table_model) == s.tolist()
    show(viewer, qtbot, "num", np.ones((2, 2)))
    assert viewer.tabs.isTabEnabled(0) and viewer.tabs.currentIndex() == 0


def test_scalar_and_none(viewer, qtbot):
    show(viewer, qtbot, "x", np.array(0.1, np.float32))
    (panel,) = panels(viewer, TextPanel)
    assert "0.1" in panel.label.text
    assert table_texts(viewer.table_model) == [["0.1"]]
    viewer.set_tensor("", None)
    assert viewer.current is None and viewer.table_model.rowCount() == 0
    assert not viewer.save_button.isEnabled()


# ---------------------------------------------------------------------------- compare


def test_compare_scatter_output_against_its_data(viewer, qtbot):
    data = np.arange(48, dtype=np.float32).reshape(6, 8)
    out = data.copy()
    flat = np.array([3, 17, 30, 47])
    np.put(out, flat, [100.0, 101.0, 102.0, 103.0])  # what a ScatterElements writes
    out.flat[5] = data.flat[5]  # written with the same value: not a change
    expected = np.zeros(data.size, bool)
    expected[flat] = True
    expected = expected.reshape(data.shape)

    show(viewer, qtbot, "data", data)
    with qtbot.waitSignal(viewer.pinChanged, timeout=10000):
        viewer.pin()
    show(viewer, qtbot, "scatter output", out)
    pinned, current, diff = panels(viewer, HeatPanel)
    np.testing.assert_array_equal(pinned.image_item.image, data)
    np.testing.assert_array_equal(current.image_item.image, out)
    np.testing.assert_array_equal(diff.image_item.image, expected.astype(np.float32))
    assert "4 of 48" in diff.spec.title
    model = viewer.table_model
    marked = np.array([[model.changed(r, c) for c in range(8)] for r in range(6)])
    np.testing.assert_array_equal(marked, expected)
    assert "pinned: data" in viewer.pinned_label.text()

    with qtbot.waitSignal(viewer.pinChanged, timeout=10000):
        viewer.unpin()
    assert len(panels(viewer, HeatPanel)) == 1
    assert not model.changed(0, 3)


def test_compare_vectors_and_different_shapes(viewer, qtbot):
    a = np.array([1, 2, 3, 4], np.int64)
    show(viewer, qtbot, "a", a)
    viewer.pin()
    b = np.array([1, 5, 3, 0], np.int64)
    show(viewer, qtbot, "b", b)
    pinned, current, diff = panels(viewer, LinePanel)
    np.testing.assert_array_equal(diff.spec.mask, a != b)
    show(viewer, qtbot, "c", np.zeros((3, 3)))  # other shape: side by side, no difference
    assert len(panels(viewer, LinePanel)) == 1 and len(panels(viewer, HeatPanel)) == 1
    assert not any("difference" in p.spec.title for p in viewer.picture.panels)


# ---------------------------------------------------------------------------- save


def test_save_npy_csv_png(viewer, qtbot, tmp_path):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 3
    show(viewer, qtbot, "t", a)
    viewer.controls.set_index(0, 1)
    viewer.save_tensor(tmp_path / "t.npy")
    loaded = np.load(tmp_path / "t.npy")
    assert loaded.dtype == a.dtype
    np.testing.assert_array_equal(loaded, a)
    viewer.save_tensor(tmp_path / "t.csv")  # the slice on screen, exact values
    back = np.loadtxt(tmp_path / "t.csv", delimiter=",", dtype=np.float64).astype(np.float32)
    np.testing.assert_array_equal(back, a[1])
    viewer.save_tensor(tmp_path / "t.png")
    image = QtGui.QImage(str(tmp_path / "t.png"))
    assert not image.isNull() and image.width() > 100
    with pytest.raises(ValueError):
        viewer.save_tensor(tmp_path / "t.txt")


def test_save_bfloat16_npy_and_vector_csv(viewer, qtbot, tmp_path):
    b = np.array([0.1, -2.0, 3.5], ml_dtypes.bfloat16)
    show(viewer, qtbot, "b", b)
    viewer.save_tensor(tmp_path / "b.npy")
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), b.astype(np.float32))
    viewer.save_tensor(tmp_path / "b.csv")
    lines = (tmp_path / "b.csv").read_text().splitlines()
    assert [np.array(float(x), ml_dtypes.bfloat16) for x in lines] == list(b)


def test_save_button_asks_for_a_path_and_adds_the_chosen_suffix(viewer, qtbot, tmp_path, monkeypatch):
    from PySide6 import QtWidgets

    a = np.arange(6, dtype=np.int64).reshape(2, 3)
    show(viewer, qtbot, "t", a)
    target = tmp_path / "picked"
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *args, **kw: (str(target), "CSV values (*.csv)")))
    qtbot.mouseClick(viewer.save_button, QtCore.Qt.MouseButton.LeftButton)
    assert (tmp_path / "picked.csv").read_text() == "0,1,2\n3,4,5\n"


# ---------------------------------------------------------------------------- thumbnail


def test_thumbnail_heat_map_bars_and_nd(qtbot):
    a = np.array([[0.0, 1.0], [2.0, np.nan]])
    image = thumbnail(a, 40, 30)
    assert (image.width(), image.height()) == (40, 30)
    lut = colors.lookup_table(colors.colormap())
    assert image.pixelColor(0, 0).getRgb()[:3] == tuple(int(c) for c in lut[0][:3])
    assert image.pixelColor(0, 29).getRgb()[:3] == tuple(int(c) for c in lut[-1][:3])  # 2.0 is the max
    assert image.pixelColor(39, 29).getRgb() == colors.NAN_RGBA
    bars = thumbnail(np.array([0.0, 4.0]), 20, 10)
    column_of_4 = [bars.pixelColor(15, y).getRgb() for y in range(10)]
    column_of_0 = [bars.pixelColor(5, y).getRgb() for y in range(10)]
    assert len(set(column_of_4)) == 1 and column_of_4[0][:3] != (30, 30, 36)  # full-height bar
    assert column_of_0[0][:3] == (30, 30, 36)  # a zero bar leaves the top empty
    nd = np.zeros((3, 2, 2))
    nd[0] = [[0, 1], [1, 0]]
    nd[1] = 9.0
    first = thumbnail(nd, 4, 4)
    assert first.pixelColor(0, 0).getRgb()[:3] == tuple(int(c) for c in lut[0][:3])
    assert first.pixelColor(3, 0).getRgb()[:3] == tuple(int(c) for c in lut[-1][:3])
    assert not thumbnail(None, 8, 8).isNull()
    assert not thumbnail(np.array(["x"], dtype=object), 8, 8).isNull()


# ---------------------------------------------------------------------------- large


def test_1e8_float32_is_downsampled_before_pyqtgraph(viewer, qtbot):
    big = np.zeros((10000, 10000), np.float32)
    big[5000, 5000] = 7.0
    big[9999, 0] = -1.0
    step = math.ceil(10000 / MAX_DISPLAY)  # every step-th row and column, from the input shape
    with qtbot.waitSignal(viewer.statsReady, timeout=20000) as blocker:
        viewer.set_tensor("big", big)
        assert viewer.stats_label.text().startswith("statistics: computing")  # not blocking
        # at once: the stride sample (the peak-preserving picture follows from the background)
        image = panels(viewer, HeatPanel)[0].image_item.image
        assert max(image.shape) <= MAX_DISPLAY
        np.testing.assert_array_equal(image, big[::step, ::step])
    stats = blocker.args[0]
    assert (stats.count, stats.minimum, stats.maximum) == (100_000_000, -1.0, 7.0)
    qtbot.waitUntil(lambda: panels(viewer, HeatPanel)[0].spec.refined, timeout=30000)
    (panel,) = panels(viewer, HeatPanel)
    expected = np.zeros((10000 // step, 10000 // step), np.float32)
    expected[5000 // step, 5000 // step] = 7.0
    expected[9999 // step, 0] = -1.0  # a row the stride sample skips
    np.testing.assert_array_equal(panel.image_item.image, expected)
    assert np.shares_memory(viewer.current_view(), big)  # the table reads the tensor itself
    assert panel.text_item.texts == []
    model = viewer.table_model
    assert (model.rowCount(), model.columnCount()) == (10000, 10000)
    assert model.data(model.index(5000, 5000), DISPLAY) == "7.0"
    assert hover_at(viewer, qtbot, panel, 5000.2, 4999.9).endswith("[5000, 5000] = 7.0")


def test_stale_statistics_are_dropped(viewer, qtbot):
    big = np.ones((4000, 4000), np.float32)
    small = np.array([1.0, 2.0])
    seen = []
    viewer.statsReady.connect(seen.append)
    viewer.set_tensor("big", big)
    viewer.set_tensor("small", small)
    assert viewer.wait_for_stats()
    deliver_posted_events()   # a result the stale job had sent would be posted by now: delivered here
    assert [s.count for s in seen] == [2]
    assert viewer.stats.count == 2


# ---------------------------------------------------------------------------- environment


def test_pyside_refcount_guard_survives_many_void_calls_and_emits(qtbot):
    """PySide6 6.12 on Python 3.11 drops a reference to None per void call and to True per
    emit; pyproject excludes it, and the guard covers a hand-installed 6.12. Without either,
    this loop aborts the interpreter (none_dealloc/bool_dealloc)."""
    import sys

    from PySide6 import QtWidgets

    widget = QtWidgets.QWidget()
    qtbot.addWidget(widget)
    label = QtWidgets.QLabel()
    qtbot.addWidget(label)
    none_before, true_before = sys.getrefcount(None), sys.getrefcount(True)
    for i in range(60_000):
        widget.setEnabled(i % 2 == 0)
        label.windowTitleChanged.emit("x")
    # Either the installed PySide6 keeps the counts (6.11 and older), or the guard has raised
    # them out of reach (6.12 on Python < 3.12); a leak of one per call would show here.
    assert sys.getrefcount(None) > none_before - 1000 or sys.getrefcount(None) > 1 << 39
    assert sys.getrefcount(True) > true_before - 1000 or sys.getrefcount(True) > 1 << 39


def test_1e8_difference_is_computed_off_the_ui_thread(viewer, qtbot):
    data = np.zeros((10000, 10000), np.float32)
    out = data.copy()
    out[[0, 4321, 9999], [9999, 1234, 0]] = [1.0, 2.0, np.nan]
    show(viewer, qtbot, "data", data)
    viewer.pin()
    # The peak-preserving pictures of both tensors come from another background job, which
    # may finish before or after the difference and then rebuilds every panel: the panels
    # to compare with are those on screen just before the difference arrives.
    others = []

    def remember_panels():
        others[:] = [p.spec for p in viewer.picture.panels[:-1]]

    viewer.pictureRefined.connect(remember_panels)
    with qtbot.waitSignal(viewer.differenceReady, timeout=30000) as blocker:
        viewer.set_tensor("out", out)
        assert viewer.picture.panels[-1].spec.title == "difference: computing…"
        remember_panels()
    viewer.pictureRefined.disconnect(remember_panels)
    assert blocker.args == [3]
    # only the waiting panel took the result: the pictures of both tensors were not rebuilt
    assert [p.spec for p in viewer.picture.panels[:-1]] == others
    assert all(a is b for a, b in zip((p.spec for p in viewer.picture.panels[:-1]), others, strict=True))
    assert not viewer.picture.panels[-1].spec.pending
    assert viewer.picture.panels[-1].spec.hover(1234.0, 4321.0).endswith("pinned 0.0 → 2.0 (changed)")
    diff = viewer.picture.panels[-1]
    image = diff.image_item.image
    step = math.ceil(10000 / MAX_DISPLAY)
    blocks = math.ceil(10000 / step)
    assert image.shape == (blocks, blocks)
    changed = [[0, 9999], [4321, 1234], [9999, 0]]
    assert np.argwhere(image > 0).tolist() == [[r // step, c // step] for r, c in changed]
    assert "3 of 100,000,000" in diff.spec.title
    assert viewer.table_model.changed(4321, 1234) and not viewer.table_model.changed(4321, 1233)


@pytest.mark.parametrize("shape", [(0,), (0, 4), (2, 0, 3)])
def test_empty_tensors_show_a_message_and_an_empty_table(viewer, qtbot, shape):
    a = np.zeros(shape, np.float32)
    show(viewer, qtbot, "empty", a)
    (panel,) = panels(viewer, TextPanel)
    assert "empty" in panel.label.text
    assert viewer.table_model.rowCount() == 0
    assert f"shape {shape}" in viewer.info_label.text()
    viewer.pin()
    show(viewer, qtbot, "empty2", a)
    assert len(panels(viewer, TextPanel)) == 2 and not panels(viewer, HeatPanel)
    assert not thumbnail(a, 8, 8).isNull()


def test_huge_vector_is_sampled_first_then_envelope_from_the_background(viewer, qtbot):
    v = np.zeros(10**8, np.float32)
    v[77_777_777] = 9.0  # a single spike that stride sampling would miss
    viewer.set_tensor("v", v)
    (panel,) = panels(viewer, LinePanel)
    assert "computing" in panel.spec.title
    qtbot.waitUntil(lambda: "computing" not in panels(viewer, LinePanel)[0].spec.title, timeout=30000)
    x, y = panels(viewer, LinePanel)[0].curve.getData()
    assert len(y) <= 4096 and y.max() == 9.0 and y.min() == 0.0
    spike = x[np.argmax(y)]
    assert spike <= 77_777_777 < spike + 10**8 / 2048 + 1  # the block holding the spike


def test_a_node_without_a_value_says_no_value_and_why(viewer):
    """Not "no tensor selected" when a node is selected: the picture says there is no value and
    the line above gives the reason."""
    from nodeeditor.ui.viewer.panels import TextPanel

    viewer.set_tensor("gather.output", None, "error: indices[0] = 9 is out of range")
    (panel,) = viewer.picture.panels
    assert isinstance(panel, TextPanel) and panel.spec.text == "no value"
    assert "out of range" in viewer.info_label.text()
    viewer.set_tensor("", None)
    assert viewer.picture.panels[0].spec.text == "no tensor selected"


def test_heat_map_axes_label_only_indices_that_exist(viewer, qtbot):
    """A 1 x 5 tensor in an aspect-locked picture leaves room above and below; the row axis
    labels just row 0 (not -2..2), the column axis 0..4."""
    viewer.set_tensor("t", np.arange(5.0).reshape(1, 5))
    (panel,) = [p for p in viewer.picture.panels if isinstance(p, HeatPanel)]
    left, bottom = panel.plot.getAxis("left"), panel.plot.getAxis("bottom")
    # there is room around row 0 (once the picture is laid out and its aspect locked)
    qtbot.waitUntil(lambda: abs(left.range[1] - left.range[0]) > 2, timeout=10000)
    ticks = lambda axis: sorted({int(v) for _, values in axis.tickValues(*axis.range, 300) for v in values})  # noqa: E731
    assert ticks(left) == [0]
    assert ticks(bottom) == [0, 1, 2, 3, 4]


def test_slice_sliders_say_the_range_and_a_size_1_axis_is_not_a_choice(viewer):
    viewer.set_tensor("cache", np.zeros((1, 3, 4, 5), np.float32))    # rows, cols = the last two
    spins = viewer.controls.spinboxes
    assert spins[1].suffix() == " of 0..2" and spins[1].isEnabled()
    assert spins[0].suffix() == " (size 1)" and not spins[0].isEnabled()
    assert not viewer.controls.sliders[0].isEnabled()


def test_the_picture_of_an_nd_tensor_names_its_slice(viewer):
    viewer.set_tensor("cache", np.zeros((2, 3, 4, 5), np.float32))
    viewer.controls.set_index(1, 2)
    (panel,) = [p for p in viewer.picture.panels if isinstance(p, HeatPanel)]
    assert panel.spec.title.startswith("cache[0, 2, :, :]  [4 × 5]")


def test_previews_of_small_tensors_write_their_values(qtbot):
    """A 2 x 3 index tensor's canvas preview carries its numbers (pixels differ from the plain
    colour picture where the glyphs are); a 40 x 40 tensor's stays colour only."""
    from nodeeditor.ui.viewer.thumbnail import thumbnail_rgba

    def written(array) -> int:
        image = thumbnail(array, 212, 72)
        rgba = np.frombuffer(image.constBits(), np.uint8).reshape(72, 212, 4)
        return int(np.any(rgba != thumbnail_rgba(array, 212, 72), axis=-1).sum())

    assert written(np.array([[0, 3, 3], [5, 1, 0]])) > 100
    assert written(np.random.default_rng(0).random((40, 40))) == 0


def test_a_tensor_with_no_elements_says_so_in_the_table_tab(viewer, qtbot):
    """A (0, 5) tensor: the Table tab says it has no elements (it was a blank table); a tensor
    with values shown next brings the table back."""
    show(viewer, qtbot, "empty", np.zeros((0, 5), np.float32))
    viewer.tabs.setCurrentWidget(viewer.table_page)
    page = viewer.table_page
    qtbot.waitUntil(page.empty_note.isVisible, timeout=10000)
    assert not page.view.isVisible() and "no elements" in page.empty_note.text()
    save_shot(viewer, "viewer/empty_tensor_table")
    show(viewer, qtbot, "small", np.arange(6, dtype=np.float32).reshape(2, 3))
    qtbot.waitUntil(page.view.isVisible, timeout=10000)
    assert not page.empty_note.isVisible() and table_texts(viewer.table_model)[0] == ["0.0", "1.0", "2.0"]
