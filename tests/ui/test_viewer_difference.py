"""Reviewer findings on the viewer: changed cells stay visible after downsampling, the
compare panels fit, CSV is exact and vectorised, and set_tensor reuses its panels.

Expected values come from the input arrays; pictures are kept for people to look at when
INDEXFLOW_SHOTS names a folder (``helpers.save_shot``)."""
import ml_dtypes
import numpy as np
import pytest
from PySide6 import QtCore

from nodeeditor.ui.viewer import colors
from nodeeditor.ui.viewer.panels import HeatPanel, max_pool_2d

from .helpers import save_shot, wait_for_viewer


def _near(rgb, target, tol=8):
    return all(abs(a - b) <= tol for a, b in zip(rgb, target))


def _red_near(image, x, y, radius=2):
    for dx in range(-radius, radius + 1):
        for dy in range(-radius, radius + 1):
            if 0 <= x + dx < image.width() and 0 <= y + dy < image.height():
                c = image.pixelColor(x + dx, y + dy)
                if _near((c.red(), c.green(), c.blue()), colors.CHANGED_RGB):
                    return True
    return False


def _compare(viewer, qtbot, data, out):
    with qtbot.waitSignal(viewer.statsReady, timeout=30000):
        viewer.set_tensor("data", data)
    viewer.pin()
    with qtbot.waitSignal(viewer.statsReady, timeout=30000):
        viewer.set_tensor("scatter_out", out, "ScatterElements")
    wait_for_viewer(qtbot, viewer)


def test_max_pool_2d_keeps_any_lit_cell():
    mask = np.zeros((10, 7), np.float32)
    mask[9, 6] = 1.0
    mask[3, 0] = 1.0
    pooled = max_pool_2d(mask, 4, 3)
    expected = np.zeros((3, 3), np.float32)
    expected[9 // 4, 6 // 3] = expected[3 // 4, 0 // 3] = 1.0
    np.testing.assert_array_equal(pooled, expected)


@pytest.mark.parametrize("width", [900, 1500])
def test_five_changed_cells_of_a_million_are_red_on_screen(make_viewer, qtbot, width):
    data = np.zeros((1000, 1000), np.float32)
    out = data.copy()
    rows, cols = np.array([10, 200, 500, 777, 990]), np.array([5, 600, 500, 30, 999])
    out[rows, cols] = 1.0
    viewer = make_viewer(width)
    _compare(viewer, qtbot, data, out)
    diff = [p for p in viewer.picture.panels if p.spec.title.startswith("difference")]
    assert len(diff) == 1 and isinstance(diff[0], HeatPanel)
    (diff,) = diff
    changed = int(np.count_nonzero(data != out))
    assert f"{changed:,} of {data.size:,}" in diff.spec.title
    image = viewer.picture.grab().toImage()
    save_shot(viewer, f"viewer/diff_1000x1000_{width}px")
    for r, c in zip(rows, cols):
        scene = diff.plot.vb.mapViewToScene(QtCore.QPointF(float(c), float(r)))
        pos = viewer.picture.mapFromScene(scene)
        assert _red_near(image, pos.x(), pos.y()), f"changed cell ({r}, {c}) not drawn red at {width}px"
    # a cell far from every change is drawn as 'same'
    scene = diff.plot.vb.mapViewToScene(QtCore.QPointF(300.0, 350.0))
    pos = viewer.picture.mapFromScene(scene)
    c = image.pixelColor(pos.x(), pos.y())
    assert _near((c.red(), c.green(), c.blue()), colors.SAME_RGB)


@pytest.mark.parametrize("width", [900, 1500])
def test_compare_panels_and_legend_fit_inside_the_picture(make_viewer, qtbot, width):
    data = np.zeros((1000, 1000), np.float32)
    out = data.copy()
    out[3, 4] = 1.0
    viewer = make_viewer(width)
    _compare(viewer, qtbot, data, out)
    area = viewer.picture.viewport().rect()
    for panel in viewer.picture.panels:
        for item in panel.items():
            rect = viewer.picture.mapFromScene(item.sceneBoundingRect()).boundingRect()
            assert area.contains(rect), f"{type(item).__name__} of {panel.spec.title!r} is clipped: {rect} not in {area}"


def test_1e8_difference_shows_one_changed_cell(make_viewer, qtbot):
    data = np.ones((10000, 10000), np.float32)
    out = data.copy()
    out[1234, 4321] = 5.0
    viewer = make_viewer(900)
    with qtbot.waitSignal(viewer.differenceReady, timeout=60000) as blocker:
        _compare(viewer, qtbot, data, out)
    wait_for_viewer(qtbot, viewer)
    assert blocker.args == [1]
    (diff,) = [p for p in viewer.picture.panels if p.spec.title.startswith("difference")]
    image = viewer.picture.grab().toImage()
    save_shot(viewer, "viewer/diff_1e8_900px")
    scene = diff.plot.vb.mapViewToScene(QtCore.QPointF(4321.0, 1234.0))
    pos = viewer.picture.mapFromScene(scene)
    assert _red_near(image, pos.x(), pos.y())


# ---------------------------------------------------------------------------- CSV


def _round_trip_cases():
    rng = np.random.default_rng(7)
    wide = rng.standard_normal((40, 30)) * 10.0 ** rng.integers(-30, 30, (40, 30))
    f32 = wide.astype(np.float32)
    f32[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    f32[1, 0] = np.float32(1e-45)  # smallest subnormal
    f32[1, 1] = np.finfo(np.float32).max
    f64 = wide.copy()
    f64[0, :3] = [0.1, 1 / 3, np.finfo(np.float64).tiny]
    f16 = (rng.standard_normal((7, 9)) * 100).astype(np.float16)
    f16[0, :2] = [np.float16(6e-8), np.finfo(np.float16).max]
    bf16 = (rng.standard_normal((5, 6)) * 1e10).astype(ml_dtypes.bfloat16)
    ints = {dt: np.array([[np.iinfo(dt).min, 3, 0], [1, 7, np.iinfo(dt).max]], dt)
            for dt in (np.int8, np.int32, np.int64, np.uint8, np.uint64)}
    c64 = (rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))).astype(np.complex64)
    c64[0, 0] = complex(1.5, -0.0)
    c64[0, 1] = complex(np.nan, np.inf)
    c128 = (rng.standard_normal((3, 4)) - 1j * rng.standard_normal((3, 4))) * 1e-200
    return [("float32", f32, np.float32), ("float64", f64, np.float64), ("float16", f16, np.float16),
            ("bfloat16", bf16, np.float32), ("bool", np.eye(3, 4, dtype=bool), bool),
            ("complex64", c64, np.complex64), ("complex128", c128, np.complex128)] + [
            (np.dtype(dt).name, a, dt) for dt, a in ints.items()]


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8) if a.dtype != bool else a


@pytest.mark.parametrize("name,array,read_as", _round_trip_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_csv_values_round_trip_exactly(make_viewer, qtbot, tmp_path, name, array, read_as):
    viewer = make_viewer(600)
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor(name, array)
    viewer.save_tensor(tmp_path / "v.csv")
    back = np.loadtxt(tmp_path / "v.csv", delimiter=",", dtype=read_as, ndmin=2)
    expected = array.astype(read_as) if array.dtype != np.dtype(read_as) else array
    assert back.shape == array.shape
    if np.dtype(read_as).kind in "fc":  # bit for bit: -0.0, NaN and subnormals included
        np.testing.assert_array_equal(_bits(back), _bits(expected))
    else:
        np.testing.assert_array_equal(back, expected)


def test_csv_strings_are_quoted_and_ints_exact(tmp_path):
    from nodeeditor.ui.viewer import saving

    words = np.array([["plain", 'say "hi"'], ["a,b", "two\nlines"]], dtype=object)
    saving.save_csv(tmp_path / "s.csv", words)
    import csv

    with open(tmp_path / "s.csv", newline="", encoding="utf-8") as handle:
        assert list(csv.reader(handle)) == words.tolist()
    saving.save_csv(tmp_path / "b.csv", np.array([b"x,y", b"z"], dtype="S3"))
    with open(tmp_path / "b.csv", newline="", encoding="utf-8") as handle:
        assert list(csv.reader(handle)) == [["x,y"], ["z"]]


def test_large_csv_is_written_off_the_ui_thread(make_viewer, qtbot, tmp_path):
    from nodeeditor.ui.viewer import saving

    a = np.random.default_rng(3).standard_normal((4, 700, 800)).astype(np.float32)
    viewer = make_viewer(700)
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor("big", a)
    viewer.controls.set_index(0, 2)
    assert a[2].size > saving.CSV_BACKGROUND_CELLS
    target = tmp_path / "big.csv"
    with qtbot.waitSignal(viewer.saved, timeout=60000) as blocker:
        viewer.save_tensor(target, background=True)
        assert "saving big.csv" in viewer.status_label.text()
        save_shot(viewer, "viewer/csv_saving_status")
        with pytest.raises(RuntimeError, match="still saving"):
            viewer.save_tensor(tmp_path / "other.csv", background=True)
    assert blocker.args == [str(target), None]
    assert viewer.status_label.text() == "saved big.csv"
    back = np.loadtxt(target, delimiter=",", dtype=np.float32)
    np.testing.assert_array_equal(_bits(back), _bits(a[2]))


def test_numeric_csv_never_formats_one_value_at_a_time(tmp_path, monkeypatch):
    from nodeeditor.ui.viewer import saving

    def per_value(value):
        raise AssertionError("numeric CSV must be formatted a block at a time")

    monkeypatch.setattr(saving, "format_value", per_value)
    monkeypatch.setattr(saving, "_text", per_value)
    for array in (np.arange(12, dtype=np.float32).reshape(3, 4) / 3, np.arange(5, dtype=np.int16),
                  np.array(2.5 - 1j), np.ones((2, 2), ml_dtypes.bfloat16), np.eye(2, dtype=bool)):
        saving.save_csv(tmp_path / "n.csv", array)


def test_save_csv_cancelled_leaves_no_file(tmp_path):
    from nodeeditor.ui.viewer import saving

    calls = []
    result = saving.save_csv(tmp_path / "c.csv", np.zeros((300_000, 1), np.float32),
                             cancelled=lambda: calls.append(1) or len(calls) > 1)
    assert result is None and not (tmp_path / "c.csv").exists()


# ---------------------------------------------------------------------------- set_tensor cost


def test_panels_are_reused_across_tensors_and_mode_changes(make_viewer, qtbot):
    from nodeeditor.ui.viewer.panels import LinePanel
    from nodeeditor.ui.viewer.slicing import MAX_DISPLAY

    viewer = make_viewer(900)
    a = np.arange(5000 * 3000, dtype=np.float32).reshape(5000, 3000)
    b = -np.arange(40 * 70, dtype=np.float64).reshape(40, 70)
    v = np.sin(np.arange(300)).astype(np.float32)
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor("a", a)
    (heat,) = viewer.picture.panels
    plot = heat.plot
    heat.plot.vb.setRange(xRange=(10, 20), yRange=(10, 20), padding=0)  # zoomed in on a
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor("v", v)  # 1-D: another mode
    (line,) = viewer.picture.panels
    assert isinstance(line, LinePanel)
    np.testing.assert_array_equal(line.curve.getData()[1], v)
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor("b", b)  # back to 2-D: the same panel and PlotItem, showing b
    assert viewer.picture.panels == [heat] and heat.plot is plot
    np.testing.assert_array_equal(heat.image_item.image, b.astype(np.float32))
    x_range, y_range = heat.plot.vb.viewRange()
    assert x_range[0] <= -0.5 and x_range[1] >= b.shape[1] - 0.5  # all of b, not a's zoom
    assert y_range[0] <= -0.5 and y_range[1] >= b.shape[0] - 0.5
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor("v", v)
    assert viewer.picture.panels == [line]
    # a large slice is sampled to at most MAX_DISPLAY per side before the float32 copy: the
    # picture at once (the peak-preserving one may replace it while the statistics run)
    step = max(-(-a.shape[0] // MAX_DISPLAY), 1), max(-(-a.shape[1] // MAX_DISPLAY), 1)
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor("a", a)
        assert viewer.picture.panels == [heat]
        np.testing.assert_array_equal(heat.image_item.image, a[::step[0], ::step[1]])
    assert viewer.picture.panels == [heat]
    save_shot(viewer, "viewer/reused_panel_5000x3000")


def test_compare_after_unpin_reuses_all_three_heat_panels(make_viewer, qtbot):
    viewer = make_viewer(900)
    data = np.zeros((6, 7), np.float32)
    out = data.copy()
    out[2, 3] = 9.0
    _compare(viewer, qtbot, data, out)
    first = list(viewer.picture.panels)
    assert len(first) == 3
    viewer.unpin()
    assert viewer.picture.panels[0] in first
    _compare(viewer, qtbot, out, data)
    assert {id(p) for p in viewer.picture.panels} == {id(p) for p in first}
    pinned, current, diff = viewer.picture.panels
    np.testing.assert_array_equal(pinned.image_item.image, out)
    np.testing.assert_array_equal(current.image_item.image, data)
    np.testing.assert_array_equal(diff.image_item.image, (out != data).astype(np.float32))
    save_shot(viewer, "viewer/compare_reused_panels")


def test_one_row_lines_of_a_1e8_heat_map_all_reach_the_screen(make_viewer, qtbot):
    big = np.zeros((10000, 10000), np.float32)
    lines = np.arange(0, 10000, 1000)
    big[lines, :] = 2.0
    viewer = make_viewer(900, 620)
    # the stride sample shown at once misses the lines; the peak picture, computed in the
    # background, must bring every one of them to the screen
    with qtbot.waitSignals([viewer.statsReady, viewer.pictureRefined], timeout=60000):
        viewer.set_tensor("big", big)
    wait_for_viewer(qtbot, viewer)
    (panel,) = viewer.picture.panels
    image = viewer.picture.grab().toImage()
    save_shot(viewer, "viewer/heat_1e8_row_lines")
    zero = tuple(int(v) for v in colors.lookup_table(colors.colormap())[0][:3])
    x = viewer.picture.mapFromScene(panel.plot.vb.mapViewToScene(QtCore.QPointF(500.0, 0.0))).x()
    top, bottom = (viewer.picture.mapFromScene(panel.plot.vb.mapViewToScene(QtCore.QPointF(500.0, r))).y()
                   for r in (0.0, 10000.0))
    lit = [y for y in range(top, bottom + 1)
           if not _near(tuple(image.pixelColor(x, y).getRgb()[:3]), zero)]
    for r in lines:
        y = viewer.picture.mapFromScene(panel.plot.vb.mapViewToScene(QtCore.QPointF(500.0, float(r)))).y()
        # the 1000-row peak picture is scaled onto ~390 screen rows by Qt (nearest row), so a
        # line lands up to 1.5 px from its exact place: within 2 px is "drawn where it is"
        assert any(abs(y - got) <= 2 for got in lit), f"row {r} (screen y {y}) not drawn; lit: {lit}"
    pos = viewer.picture.mapFromScene(panel.plot.vb.mapViewToScene(QtCore.QPointF(500.0, 1500.0)))
    c = image.pixelColor(pos.x(), pos.y())
    assert _near((c.red(), c.green(), c.blue()), zero)


def test_a_few_changed_cells_of_a_large_difference_are_ringed(make_viewer, qtbot):
    data = np.zeros((1000, 1000), np.float32)
    out = data.copy()
    rows, cols = np.array([10, 200, 500]), np.array([5, 600, 500])
    out[rows, cols] = 1.0
    viewer = make_viewer(900)
    _compare(viewer, qtbot, data, out)
    (diff,) = [p for p in viewer.picture.panels if p.spec.title.startswith("difference")]
    xs, ys = diff.marks_item.getData()
    assert sorted(zip(ys.tolist(), xs.tolist())) == sorted(zip(rows.astype(float).tolist(), cols.astype(float).tolist()))
    save_shot(viewer, "viewer/diff_rings_900px")
