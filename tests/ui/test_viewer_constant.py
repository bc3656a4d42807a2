"""A tensor whose elements are all one value is drawn as one colour with that value written
on it, under its whole title: the picture of a uniform 10000 x 10000 tensor showed a colour
bar of made-up extremes and a title cut at "(10 …" by its block note."""
from __future__ import annotations

import numpy as np
import pytest

from .helpers import deliver_posted_events, save_shot


def _panel(viewer, qtbot):
    viewer.wait_for_background()
    qtbot.waitUntil(lambda: viewer.stats is not None, timeout=10000)
    deliver_posted_events()   # the redraw the statistics asked for
    (panel,) = viewer.picture.heat_panels()
    return panel


def test_a_large_constant_tensor_is_one_colour_with_its_value_stated(make_viewer, qtbot):
    """3000 x 2500 is larger than the picture (sampled, then refined in blocks): once the
    statistics show one value, the picture is that value, written once, with no colour bar."""
    viewer = make_viewer(420, 480)
    viewer.set_tensor("big constant.output", np.full((3000, 2500), 7.5, np.float32), "output")
    panel = _panel(viewer, qtbot)
    assert panel.colorbar is None
    assert panel.spec.cell_texts == [["every element = 7.5"]]
    assert np.unique(panel.spec.values).tolist() == [7.5]
    assert panel.title.full == "big constant.output  [3000 × 2500]"
    assert panel.title.label.toolTip() == ""                        # shown whole, not cut
    save_shot(viewer, "viewer/viewer_constant_large")


def test_a_small_constant_tensor_writes_its_value_in_every_cell_without_a_colour_bar(make_viewer, qtbot):
    viewer = make_viewer(420, 480)
    viewer.set_tensor("halves", np.full((4, 5), 2.5, np.float32))
    panel = _panel(viewer, qtbot)
    assert panel.colorbar is None
    assert panel.spec.cell_texts == [["2.5"] * 5] * 4
    viewer.set_tensor("mask", np.ones((3, 3), bool))
    panel = _panel(viewer, qtbot)
    assert panel.colorbar is None and panel.spec.cell_texts == [["T"] * 3] * 3


@pytest.mark.parametrize("make", [
    lambda: np.where(np.arange(3000 * 2500).reshape(3000, 2500) == 1234567, 5.0, 0.0).astype(np.float32),
    lambda: np.where(np.eye(4, 5, dtype=bool), np.nan, 1.0).astype(np.float32),
    lambda: np.full((4, 5), np.nan, np.float32),
], ids=["one_outlier", "nan_among_ones", "all_nan"])
def test_a_tensor_that_is_not_one_value_keeps_its_colour_scale(make_viewer, qtbot, make):
    viewer = make_viewer(420, 480)
    viewer.set_tensor("t", make())
    panel = _panel(viewer, qtbot)
    assert panel.colorbar is not None
    assert not (panel.spec.cell_texts or [[""]])[0][0].startswith("every element")
