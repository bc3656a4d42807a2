"""The Explainer's arrows pass behind the grids' titles and coordinates: every pixel of every
label glyph looks the same with the arrows drawn as without them (the seed steps whose arrows
cross a heading: Gather-11's first step arches over "indices", ScatterND's slice arrow runs
down through "output[0, :, :] after step 1")."""
from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui

from nodeeditor.ui.explainer import ExplainerWidget
from nodeeditor.ui.explainer.widget import settle

from ..ops.seed_steps import SEEDS
from .helpers import save_shot

CASES = [(s, 0) for s in SEEDS if (s.graph, s.node) in (("gather11_examples", "axis0_op"),
                                                          ("scatternd13_examples", "ex2_op"))]


def _glyph_pixels(image: QtGui.QImage, rect: QtCore.QRect, background: QtGui.QColor) -> list[tuple[int, int]]:
    return [(x, y) for y in range(max(0, rect.top()), min(image.height(), rect.bottom() + 1))
            for x in range(max(0, rect.left()), min(image.width(), rect.right() + 1))
            if image.pixelColor(x, y) != background]


def _explaining(qtbot, seed) -> ExplainerWidget:
    """A shown Explainer on the seed's operation."""
    w = ExplainerWidget()
    qtbot.addWidget(w)
    w.resize(900, 560)
    w.show()
    qtbot.waitExposed(w)
    assert w.set_operation(seed.node, seed.op, list(seed.inputs), dict(seed.attrs))
    return w


def _with_and_without_arrows(w: ExplainerWidget) -> tuple[QtGui.QImage, QtGui.QImage]:
    with_arrows = w.grid_area.grab().toImage()
    w.arrows.hide()
    without = w.grid_area.grab().toImage()
    w.arrows.show()
    return with_arrows, without


@pytest.mark.parametrize("seed, step", CASES, ids=lambda c: getattr(c, "node", c))
def test_no_arrow_covers_a_label(qtbot, seed, step):
    w = _explaining(qtbot, seed)
    w.set_step(step)
    settle(w)
    assert w.arrows.arrows(), "the step draws arrows"
    with_arrows, without = _with_and_without_arrows(w)
    background = w.grid_area.palette().color(QtGui.QPalette.ColorRole.Window)
    checked = 0
    for grid in w.grids + w.more_grids:
        if not grid.isVisible():
            continue
        offset = grid.mapTo(w.grid_area, QtCore.QPoint(0, 0))
        for label in grid.labels():
            rect = label.rect.toAlignedRect().translated(offset)
            for x, y in _glyph_pixels(without, rect, background):
                checked += 1
                assert with_arrows.pixelColor(x, y) == without.pixelColor(x, y), \
                    f"{grid.name}: label {label.text!r} covered at ({x}, {y})"
    assert checked > 500
    save_shot(w, f"explainer/labels_over_arrows_{seed.graph}")


@pytest.mark.parametrize("seed", [s for s in SEEDS if s.graph in ("scatter9_examples", "scatterelements_examples",
                                                                    "gather11_examples")][:6],
                         ids=lambda s: f"{s.graph}-{s.node}")
def test_no_arrow_crosses_out_a_number(qtbot, seed):
    """A cell's number under an arrow (Scatter-9's last step crossed out output[0, 2]) looks
    the same with the arrows drawn as without them, at every step."""
    w = _explaining(qtbot, seed)
    checked = 0
    for step in range(w.count):
        w.set_step(step)
        settle(w)
        with_arrows, without = _with_and_without_arrows(w)
        for grid in w.grids + w.more_grids:
            if not grid.isVisible():
                continue
            offset = grid.mapTo(w.grid_area, QtCore.QPoint(0, 0))
            for label, fill in grid.value_labels():
                rect = label.rect.toAlignedRect().adjusted(3, 3, -3, -3).translated(offset)   # inside the border
                for x, y in _glyph_pixels(without, rect, fill):
                    checked += 1
                    assert with_arrows.pixelColor(x, y) == without.pixelColor(x, y), \
                        f"step {step + 1}, {grid.name}: {label.text!r} crossed at ({x}, {y})"
    assert checked > 500
