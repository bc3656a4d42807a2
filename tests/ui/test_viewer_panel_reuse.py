"""set_tensor reuses the viewer's panels (and their plots) across tensors, display modes and a
compare after unpinning, instead of building new ones; a large slice is sampled before its
float32 copy. Expected values come from the input arrays."""
import numpy as np

from .helpers import save_shot, show_compared


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
    show_compared(viewer, qtbot, data, out)
    first = list(viewer.picture.panels)
    assert len(first) == 3
    viewer.unpin()
    assert viewer.picture.panels[0] in first
    show_compared(viewer, qtbot, out, data)
    assert {id(p) for p in viewer.picture.panels} == {id(p) for p in first}
    pinned, current, diff = viewer.picture.panels
    np.testing.assert_array_equal(pinned.image_item.image, out)
    np.testing.assert_array_equal(current.image_item.image, data)
    np.testing.assert_array_equal(diff.image_item.image, (out != data).astype(np.float32))
    save_shot(viewer, "viewer/compare_reused_panels")
