"""Peak-preserving heat maps: ``slicing.peak_blocks`` / ``peak_downsample_2d`` against a slow
reference written here (Python loops over blocks), and the TensorViewer's progressive
refinement (stride sample at once, the peak picture from the background, stale results
dropped, an honest hover).

Expected pictures come from the input arrays (the reference, or the known outlier
positions), never from the widget. Pictures of the 1e8 case are kept for people to look at
when INDEXFLOW_SHOTS names a folder (``helpers.save_shot``)."""
import math
import tracemalloc

import ml_dtypes
import numpy as np
import pytest
from PySide6 import QtCore

from nodeeditor.ui.viewer import colors
from nodeeditor.ui.viewer import slicing as S
from nodeeditor.ui.viewer.panels import HeatPanel

from .helpers import deliver_posted_events, save_shot, wait_for_viewer

BIG = float(np.finfo(np.float32).max)

# ---------------------------------------------------------------------------- reference


def _as_float(value) -> float:
    return float(np.float32(value))


def reference_block_value(cells: list[float], top_left: float) -> float:
    """The rule, one block at a time: NaN ignored unless every cell is NaN; min or max,
    whichever is farther from the mean (+-inf counted as +-float32 max for the decision);
    a tie goes to the one farther from the top-left cell, then to the max."""
    present = [v for v in cells if not math.isnan(v)]
    if not present:
        return math.nan
    lo, hi = min(present), max(present)
    clip = lambda v: max(-BIG, min(BIG, v))  # noqa: E731
    mean = math.fsum(clip(v) for v in present) / len(present)
    below, above = mean - clip(lo), clip(hi) - mean
    if above > below:
        return hi
    if below > above:
        return lo
    if not math.isnan(top_left) and clip(top_left) - clip(lo) > clip(hi) - clip(top_left):
        return lo
    return hi


def reference_peaks(values: np.ndarray, step_r: int, step_c: int) -> np.ndarray:
    """``values``: a 2-D array of Python-convertible numbers (already the drawn floats)."""
    rows, cols = values.shape
    out = np.empty((math.ceil(rows / step_r), math.ceil(cols / step_c)), np.float32)
    for br in range(out.shape[0]):
        for bc in range(out.shape[1]):
            block = values[br * step_r : (br + 1) * step_r, bc * step_c : (bc + 1) * step_c]
            cells = [_as_float(v) for v in block.ravel()]
            out[br, bc] = reference_block_value(cells, cells[0])
    return out


def drawn_floats(array: np.ndarray) -> np.ndarray:
    """What a heat map draws for a real array, elementwise: float32 of each value."""
    return np.array([[_as_float(v) for v in row] for row in array.tolist()], np.float32).reshape(array.shape)


def _random_array(rng, shape, dtype):
    if dtype == np.bool_:
        return rng.random(shape) < rng.choice([0.02, 0.5, 0.98])
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape, endpoint=True).astype(dtype)
    values = rng.normal(size=shape) * 10.0 ** rng.integers(-3, 4)
    if rng.random() < 0.5:
        values = np.round(values)  # integers: exact ties between min and max happen
    special = rng.random(shape)
    values[special < 0.08] = np.nan
    values[(special >= 0.08) & (special < 0.1)] = np.inf
    values[(special >= 0.1) & (special < 0.11)] = -np.inf
    if rng.random() < 0.2:
        values[: shape[0] // 2] = np.nan  # whole blocks of NaN
    return values.astype(dtype)


def _assert_same_picture(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.dtype == np.float32 and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)  # NaN == NaN here; -0.0 == 0.0


# ---------------------------------------------------------------------------- pure functions


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, ml_dtypes.bfloat16,
                                   np.int8, np.int32, np.uint16, np.int64, np.bool_])
def test_peak_downsample_matches_the_slow_reference(dtype):
    rng = np.random.default_rng(sum(map(ord, np.dtype(dtype).name)))  # fixed per dtype
    for _ in range(25):
        shape = tuple(int(n) for n in rng.integers(1, 70, size=2))
        max_size = int(rng.integers(1, 14))
        array = _random_array(rng, shape, dtype)
        chunk = int(rng.choice([7, 64, 1000, S.CHUNK]))
        got, steps = S.peak_downsample_2d(array, max_size, chunk=chunk)
        small, stride_steps = S.downsample_2d(array, max_size)
        assert steps == stride_steps and got.shape == small.shape  # the stride sample's grid
        _assert_same_picture(got, reference_peaks(drawn_floats(array), *steps))


@pytest.mark.parametrize("mode", ["real_imag", "mag_phase"])
def test_peak_downsample_of_complex_parts_matches_the_reference(mode):
    rng = np.random.default_rng(5)
    for _ in range(10):
        shape = tuple(int(n) for n in rng.integers(2, 50, size=2))
        z = (rng.normal(size=shape) + 1j * np.round(rng.normal(size=shape) * 3)).astype(np.complex64)
        z[rng.random(shape) < 0.05] = complex(np.nan, 1.0)
        for part in (0, 1):
            got, steps = S.peak_downsample_2d(z, 7, part_index=part, mode=mode, chunk=50)
            drawn = S.complex_parts(z, mode)[part]  # the existing whole-array conversion
            _assert_same_picture(got, reference_peaks(drawn, *steps))


def test_views_transposed_and_strided_give_the_same_picture_as_a_copy():
    rng = np.random.default_rng(11)
    base = np.round(rng.normal(size=(4, 97, 131)) * 5).astype(np.float32)
    base[1, 50, 60] = 1e6
    for view in (base[1], base[1].T, base[:, 40, :], base[2, ::-1, 3:], np.asfortranarray(base[1])):
        got, steps = S.peak_downsample_2d(view, 16, chunk=333)
        expected, expected_steps = S.peak_downsample_2d(np.ascontiguousarray(view), 16)
        assert steps == expected_steps
        _assert_same_picture(got, expected)
        _assert_same_picture(got, reference_peaks(view, *steps))


def test_an_isolated_outlier_is_drawn_wherever_it_sits_in_its_block():
    for r in range(4):
        for c in range(5):
            for outlier in (5.0, -5.0):
                a = np.full((8, 10), 2.0, np.float32)
                a[4 + r, 5 + c] = outlier
                got = S.peak_blocks(a, 4, 5)
                expected = np.full((2, 2), 2.0, np.float32)
                expected[1, 1] = outlier  # also when it is the block's top-left element
                _assert_same_picture(got, expected)


def test_uniform_nan_inf_and_tie_blocks():
    a = np.array([[3, 3, np.nan, np.nan, np.inf, 1, -np.inf, 0],
                  [3, 3, np.nan, np.nan, np.inf, np.inf, 4, 7]], np.float32)
    # uniform 3 | all NaN | one finite cell among infinities | a -inf among finite values
    _assert_same_picture(S.peak_blocks(a, 2, 2), np.array([[3, np.nan, 1, -np.inf]], np.float32))
    uniform = np.repeat(np.repeat(np.array([[1, np.nan], [-np.inf, 4]], np.float32), 3, axis=0), 2, axis=1)
    _assert_same_picture(S.peak_blocks(uniform, 3, 2), np.array([[1, np.nan], [-np.inf, 4]], np.float32))
    one_nan = np.array([[np.nan, 0.0], [0.0, 9.0]], np.float32)
    assert S.peak_blocks(one_nan, 2, 2)[0, 0] == 9.0  # NaN ignored, not drawn
    ramp = np.arange(6, dtype=np.float32).reshape(1, 6)  # ties: min and max equally far from the mean
    _assert_same_picture(S.peak_blocks(ramp, 1, 3), np.array([[2, 5]], np.float32))
    falling = ramp[:, ::-1]  # ties go to the extreme farther from the top-left element
    _assert_same_picture(S.peak_blocks(falling, 1, 3), np.array([[3, 0]], np.float32))


def test_display_part_matches_complex_parts():
    z = np.array([[1 + 2j, -3 - 4j], [np.nan, 0]], np.complex128)
    for mode in ("real_imag", "mag_phase"):
        for part in (0, 1):
            np.testing.assert_array_equal(S.display_part(z, part, mode), S.complex_parts(z, mode)[part])
    with pytest.raises(ValueError):
        S.display_part(z, 2, "real_imag")
    with pytest.raises(TypeError):
        S.display_part(z)


def test_peak_downsample_is_chunked_and_cancellable():
    a = np.zeros((3000, 2000), np.float64)  # 48 MB
    a[1234, 1567] = -3.0
    tracemalloc.start()
    try:
        picture, steps = S.peak_downsample_2d(a, 300, chunk=1 << 16)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert steps == (10, 7)
    assert picture[1234 // 10, 1567 // 7] == -3.0 and np.count_nonzero(picture) == 1
    assert peak < a.nbytes / 20  # tiles, never a full-size temporary
    polls = []
    assert S.peak_downsample_2d(a, 300, chunk=1 << 16, cancelled=lambda: polls.append(1) or len(polls) > 3) is None
    assert len(polls) == 4


# ---------------------------------------------------------------------------- the viewer


def heat_panels(viewer):
    return [p for p in viewer.picture.panels if isinstance(p, HeatPanel)]


def wait_refined(viewer, qtbot, count=1):
    qtbot.waitUntil(lambda: sum(p.spec.refined for p in heat_panels(viewer)) == count,
                    timeout=30000)


def hover_at(viewer, qtbot, panel, x, y):
    scene_pos = panel.plot.vb.mapViewToScene(QtCore.QPointF(x, y))
    with qtbot.waitSignal(viewer.hoverChanged, timeout=10000) as blocker:
        viewer.picture.scene().sigMouseMoved.emit(scene_pos)
    return blocker.args[0]


def screen_colours_near(viewer, panel, row, col, radius=2):
    """RGB of the on-screen pixels around cell (row, col) of a heat panel."""
    image = viewer.picture.grab().toImage()
    pos = viewer.picture.mapFromScene(panel.plot.vb.mapViewToScene(QtCore.QPointF(float(col), float(row))))
    return [image.pixelColor(pos.x() + dx, pos.y() + dy).getRgb()[:3]
            for dx in range(-radius, radius + 1) for dy in range(-radius, radius + 1)]


def _near(rgb, target, tol=10):
    return all(abs(a - b) <= tol for a, b in zip(rgb, target, strict=True))


LUT = colors.lookup_table(colors.colormap())
TOP, BOTTOM = tuple(int(v) for v in LUT[-1][:3]), tuple(int(v) for v in LUT[0][:3])


def test_1e8_single_outliers_are_drawn_after_refinement(viewer, qtbot):
    big = np.zeros((10000, 10000), np.float32)  # the one 400 MB array of this file
    step = math.ceil(10000 / S.MAX_DISPLAY)
    cases = [((4321, 8765), 5.0, "viewer/peaks"), ((6543, 1238), -5.0, "viewer/peaks_negative")]
    for (r, c), value, shots in cases:
        big[:] = 0.0
        big[r, c] = value
        assert r % step and c % step  # between the sampled rows and columns
        viewer.set_tensor("scatter_out", big)
        (panel,) = heat_panels(viewer)
        before = panel.image_item.image
        np.testing.assert_array_equal(before, big[::step, ::step])  # the stride sample, at once
        assert not (before == value).any() and "refining" in panel.spec.title
        save_shot(viewer, f"{shots}_before")
        assert not any(_near(rgb, TOP if value > 0 else BOTTOM) for rgb in screen_colours_near(viewer, panel, r, c))
        wait_refined(viewer, qtbot)
        (panel,) = heat_panels(viewer)
        after = panel.image_item.image
        expected = np.zeros_like(before)
        expected[r // step, c // step] = value
        np.testing.assert_array_equal(after, expected)
        assert panel.spec.refined and "blocks, extremes" in panel.spec.title
        assert panel.image_item.levels[0 if value < 0 else 1] == value
        deliver_posted_events()   # the new levels drawn; the panel kept its place (no state to wait for)
        save_shot(viewer, f"{shots}_after")
        # the outlier's screen pixel has the colour of the extreme, though the panel is
        # narrower than the 1000-pixel picture (the screen reduction keeps peaks too)
        assert any(_near(rgb, TOP if value > 0 else BOTTOM) for rgb in screen_colours_near(viewer, panel, r, c))
        r0, c0 = r - r % step, c - c % step
        text = hover_at(viewer, qtbot, panel, c0 + 0.2, r0 + 0.1)
        lo, hi = sorted([0.0, value])
        assert text == (f"scatter_out [{r0}..{r0 + step - 1}, {c0}..{c0 + step - 1}]: "
                        f"min {lo}, max {hi}; drawn [{r}, {c}] = {value}")
        text = hover_at(viewer, qtbot, panel, 5.0, 5.0)  # a block of zeros
        assert text == f"scatter_out [0..{step - 1}, 0..{step - 1}]: min 0.0, max 0.0; drawn [0, 0] = 0.0"
    viewer.wait_for_background()


@pytest.mark.parametrize("first_job", ["running", "finished, not delivered"])
def test_a_newer_tensor_wins_and_the_stale_picture_is_dropped(viewer, qtbot, first_job):
    first = np.zeros((6000, 6000), np.float32)
    first[1001, 2003] = 9.0
    second = np.zeros((4000, 3000), np.float32)
    second[2222, 1111] = -4.0
    shown = []  # (name, picture) at each refinement
    viewer.pictureRefined.connect(lambda: shown.append((viewer.current.name, heat_panels(viewer)[0].image_item.image)))
    viewer.set_tensor("first", first)
    if first_job != "running":
        assert viewer.wait_for_background()  # the first picture is computed; its delivery waits in the queue
    viewer.set_tensor("second", second)
    wait_refined(viewer, qtbot)
    assert viewer.wait_for_background()
    deliver_posted_events()  # a late result of the first job would be posted by now: delivered here
    steps = (math.ceil(4000 / S.MAX_DISPLAY), math.ceil(3000 / S.MAX_DISPLAY))
    expected = np.zeros((math.ceil(4000 / steps[0]), math.ceil(3000 / steps[1])), np.float32)
    expected[2222 // steps[0], 1111 // steps[1]] = -4.0
    assert [name for name, _ in shown] == ["second"]
    np.testing.assert_array_equal(shown[0][1], expected)
    (panel,) = heat_panels(viewer)
    np.testing.assert_array_equal(panel.image_item.image, expected)
    assert panel.spec.title.startswith("second")


def test_moving_the_slider_drops_the_old_slice_picture(viewer, qtbot):
    cube = np.zeros((3, 2100, 2100), np.float32)
    cube[0, 1001, 1001] = 7.0
    cube[2, 1502, 401] = 3.0
    viewer.set_tensor("cube", cube)
    viewer.controls.set_index(0, 2)  # before the picture of slice 0 is back
    wait_refined(viewer, qtbot)
    assert viewer.wait_for_background()
    deliver_posted_events()  # a late picture of slice 0 would be posted by now: delivered here
    (panel,) = heat_panels(viewer)
    image = panel.image_item.image
    assert np.argwhere(image).tolist() == [[1502 // 3, 401 // 3]] and image.max() == 3.0
    text = hover_at(viewer, qtbot, panel, 401.0, 1502.0)
    assert text == "cube [2, 1500..1502, 399..401]: min 0.0, max 3.0; drawn [2, 1502, 401] = 3.0"


def test_bool_int_and_complex_pictures_are_refined(viewer, qtbot):
    mask = np.zeros((2500, 2500), bool)
    mask[1234, 2345] = True
    viewer.set_tensor("mask", mask)
    wait_refined(viewer, qtbot)
    (panel,) = heat_panels(viewer)
    assert np.argwhere(panel.image_item.image).tolist() == [[1234 // 3, 2345 // 3]]
    assert hover_at(viewer, qtbot, panel, 2345.0, 1234.0) == (
        "mask [1233..1235, 2343..2345]: min False, max True; drawn [1234, 2345] = True")

    ints = np.full((1100, 3000), 7, np.int64)
    ints[1099, 2999] = -(2**40)  # in the last block (2 x 3 cells); not exact in float32
    viewer.set_tensor("ints", ints)
    wait_refined(viewer, qtbot)
    (panel,) = heat_panels(viewer)
    image = panel.image_item.image
    assert image.shape == (550, 1000) and image[-1, -1] == np.float32(-(2**40)) and (image[:-1] == 7).all()
    assert hover_at(viewer, qtbot, panel, 2999.0, 1099.0) == (
        f"ints [1098..1099, 2997..2999]: min {-(2**40)}, max 7; drawn [1099, 2999] = {-(2**40)}")

    z = np.ones((2048, 1500), np.complex64)
    z[1001, 777] = 1 + 50j
    viewer.set_tensor("z", z)
    wait_refined(viewer, qtbot, count=2)
    real, imag = heat_panels(viewer)
    assert (real.image_item.image == 1).all()  # the real part has no outlier
    assert np.argwhere(imag.image_item.image).tolist() == [[1001 // 2, 777 // 2]]
    assert hover_at(viewer, qtbot, imag, 777.0, 1001.0) == (
        "z · imag [1000..1001, 776..777]: min 0.0, max 50.0; drawn [1001, 777] = 1.0+50.0j")
    viewer.set_complex_mode("mag_phase")
    wait_refined(viewer, qtbot, count=2)
    magnitude, phase = heat_panels(viewer)
    assert np.argwhere(magnitude.image_item.image != 1).tolist() == [[1001 // 2, 777 // 2]]
    assert magnitude.image_item.image.max() == np.abs(z)[1001, 777]
    assert np.argwhere(phase.image_item.image).tolist() == [[1001 // 2, 777 // 2]]


def test_pinned_and_current_are_both_refined_and_small_slices_are_not(viewer, qtbot):
    data = np.zeros((2100, 2100), np.float32)
    data[1500, 300] = -1.0     # not one value throughout (that is drawn as one colour, unrefined)
    out = data.copy()
    out[700, 1400] = 2.5
    viewer.set_tensor("data", data)
    wait_refined(viewer, qtbot)
    viewer.pin()
    viewer.set_tensor("out", out)
    wait_refined(viewer, qtbot, count=2)
    pinned, current = heat_panels(viewer)[:2]
    assert np.argwhere(pinned.image_item.image).tolist() == [[500, 100]]
    assert np.argwhere(current.image_item.image).tolist() == [[700 // 3, 1400 // 3], [500, 100]]
    viewer.unpin()
    small = np.zeros((1000, 1000), np.float32)  # stride 1: every cell is drawn, nothing to refine
    small[999, 1] = 1.0
    viewer.set_tensor("small", small)
    (panel,) = heat_panels(viewer)
    assert "refining" not in panel.spec.title and not panel.spec.refined
    np.testing.assert_array_equal(panel.image_item.image, small)
    assert hover_at(viewer, qtbot, panel, 1.0, 999.0) == "small [999, 1] = 1.0"


def test_a_failed_refinement_says_so_instead_of_promising_one(viewer, qtbot, monkeypatch):
    """If the background pass raises (say, out of memory), the title stops saying
    "refining…", the hover line gives the reason, and the stride sample stays drawn."""
    from nodeeditor.ui.viewer import viewer as viewer_module

    def failing(*args, **kwargs):
        raise MemoryError("no room for the picture")

    monkeypatch.setattr(viewer_module, "_compute_peaks", failing)
    # not constant: statistics that find a large slice constant redraw it as one value, which
    # needs no refinement and so drops the failing one (when they came first the failure never
    # showed: this test failed once in CI)
    big = (np.arange(3000 * 2500, dtype=np.float32) % 7).reshape(3000, 2500)
    viewer.set_tensor("big", big)
    (panel,) = heat_panels(viewer)
    assert "refining…" in panel.spec.title
    qtbot.waitUntil(lambda: "failed" in viewer.hover_label.text(), timeout=10000)
    (panel,) = heat_panels(viewer)
    assert "refining" not in panel.spec.title and "not refined" in panel.spec.title
    assert "no room for the picture" in viewer.hover_label.text()
    np.testing.assert_array_equal(panel.image_item.image, big[::3, ::3])


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
           if not _near(tuple(image.pixelColor(x, y).getRgb()[:3]), zero, tol=8)]
    for r in lines:
        y = viewer.picture.mapFromScene(panel.plot.vb.mapViewToScene(QtCore.QPointF(500.0, float(r)))).y()
        # the 1000-row peak picture is scaled onto ~390 screen rows by Qt (nearest row), so a
        # line lands up to 1.5 px from its exact place: within 2 px is "drawn where it is"
        assert any(abs(y - got) <= 2 for got in lit), f"row {r} (screen y {y}) not drawn; lit: {lit}"
    pos = viewer.picture.mapFromScene(panel.plot.vb.mapViewToScene(QtCore.QPointF(500.0, 1500.0)))
    c = image.pixelColor(pos.x(), pos.y())
    assert _near((c.red(), c.green(), c.blue()), zero, tol=8)
