"""The viewer's difference view of a pinned tensor and the current one: changed cells stay
visible (red) after downsampling, a few are ringed, a 1e8 difference is computed off the UI
thread, and the compare panels and their legend fit inside the picture.

Expected values come from the input arrays; pictures are kept for people to look at when
INDEXFLOW_SHOTS names a folder (``helpers.save_shot``)."""
import numpy as np
import pytest
from PySide6 import QtCore

from nodeeditor.ui.viewer import colors
from nodeeditor.ui.viewer.panels import HeatPanel, max_pool_2d

from .helpers import save_shot, show_compared, wait_for_viewer


def _near(rgb, target, tol=8):
    return all(abs(a - b) <= tol for a, b in zip(rgb, target, strict=True))


def _red_near(image, x, y, radius=2):
    for dx in range(-radius, radius + 1):
        for dy in range(-radius, radius + 1):
            if 0 <= x + dx < image.width() and 0 <= y + dy < image.height():
                c = image.pixelColor(x + dx, y + dy)
                if _near((c.red(), c.green(), c.blue()), colors.CHANGED_RGB):
                    return True
    return False


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
    show_compared(viewer, qtbot, data, out)
    diff = [p for p in viewer.picture.panels if p.spec.title.startswith("difference")]
    assert len(diff) == 1 and isinstance(diff[0], HeatPanel)
    (diff,) = diff
    changed = int(np.count_nonzero(data != out))
    assert f"{changed:,} of {data.size:,}" in diff.spec.title
    image = viewer.picture.grab().toImage()
    save_shot(viewer, f"viewer/diff_1000x1000_{width}px")
    for r, c in zip(rows, cols, strict=True):
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
    show_compared(viewer, qtbot, data, out)
    area = viewer.picture.viewport().rect()
    for panel in viewer.picture.panels:
        for item in panel.items():
            rect = viewer.picture.mapFromScene(item.sceneBoundingRect()).boundingRect()
            assert area.contains(rect), \
                f"{type(item).__name__} of {panel.spec.title!r} is clipped: {rect} not in {area}"


def test_1e8_difference_shows_one_changed_cell(make_viewer, qtbot):
    data = np.ones((10000, 10000), np.float32)
    out = data.copy()
    out[1234, 4321] = 5.0
    viewer = make_viewer(900)
    with qtbot.waitSignal(viewer.differenceReady, timeout=60000) as blocker:
        show_compared(viewer, qtbot, data, out)
    wait_for_viewer(qtbot, viewer)
    assert blocker.args == [1]
    (diff,) = [p for p in viewer.picture.panels if p.spec.title.startswith("difference")]
    image = viewer.picture.grab().toImage()
    save_shot(viewer, "viewer/diff_1e8_900px")
    scene = diff.plot.vb.mapViewToScene(QtCore.QPointF(4321.0, 1234.0))
    pos = viewer.picture.mapFromScene(scene)
    assert _red_near(image, pos.x(), pos.y())


def test_a_few_changed_cells_of_a_large_difference_are_ringed(make_viewer, qtbot):
    data = np.zeros((1000, 1000), np.float32)
    out = data.copy()
    rows, cols = np.array([10, 200, 500]), np.array([5, 600, 500])
    out[rows, cols] = 1.0
    viewer = make_viewer(900)
    show_compared(viewer, qtbot, data, out)
    (diff,) = [p for p in viewer.picture.panels if p.spec.title.startswith("difference")]
    xs, ys = diff.marks_item.getData()
    marked = sorted(zip(ys.tolist(), xs.tolist(), strict=True))
    assert marked == sorted(zip(rows.astype(float).tolist(), cols.astype(float).tolist(), strict=True))
    save_shot(viewer, "viewer/diff_rings_900px")
