"""The Explainer on a projector (QT_SCALE_FACTOR=1.5 on 1280x720: 853x480 logical px): it
asks for little width, its grids scroll inside the dock, and no cell, cell text or grid
title is cut or elided."""
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import load_example
from nodeeditor.graph import nodes as N
from nodeeditor.ui.explainer import ExplainerWidget
from nodeeditor.ui.explainer.widget import settle

from .helpers import save_shot
from .presentation_check import grid_problems

EXAMPLES = sorted(p.name[: -len(".ifg.json")]
                  for p in (Path(__file__).resolve().parents[2] / "resources" / "examples").glob("*.ifg.json"))
MAX_MIN_WIDTH = 260


def _reachable_problems(w: ExplainerWidget) -> list[str]:
    """Every drawn cell and title line lies inside its grid, and every grid inside the scroll
    area's widget (so scrolling reaches it); cell texts fit their cells; titles are whole."""
    scroll = w.scroll
    if not isinstance(scroll, QtWidgets.QScrollArea) or not scroll.widget().isAncestorOf(w.grids[0]):
        return ["the grids are not in a scroll area"]
    problems = []
    area = scroll.widget()
    area_rect = area.rect()
    for grid in w.grids:
        if not grid.isVisible():
            continue
        grid.grab()                                  # paints: records the drawn title lines
        if not area.isAncestorOf(grid):
            problems.append(f"{grid.name}: not inside the scroll area")
        box = QtCore.QRect(grid.mapTo(area, QtCore.QPoint(0, 0)), grid.size())
        if not area_rect.contains(box):
            problems.append(f"{grid.name}: grid {box} outside the scroll area's widget {area_rect}")
        lines = grid.shown_title.split("\n")
        if " ".join(lines) != grid.title:
            problems.append(f"{grid.name}: title shown as {lines!r}, not {grid.title!r}")
        title_metrics = QtGui.QFontMetrics(grid._title_font())
        for line in lines:
            if title_metrics.horizontalAdvance(line) > grid.width() - 6:
                problems.append(f"{grid.name}: title line {line!r} wider than the grid ({grid.width()} px)")
        metrics = QtGui.QFontMetrics(grid.font())
        inside = QtCore.QRectF(grid.rect())
        for pos, text in grid.cell_texts().items():
            rect = grid.cell_rect(pos)
            if not inside.contains(rect):
                problems.append(f"{grid.title}: cell {pos} at {rect} outside the grid {grid.rect()}")
            if metrics.horizontalAdvance(text) > rect.width() - 2:
                problems.append(f"{grid.title}: cell {pos} text {text!r} wider than its cell")
    return problems


def _problems_once_laid_out(qtbot, w: ExplainerWidget) -> list[str]:
    """The problems ``_reachable_problems`` finds once the widget has been laid out: waits
    until there are none (the layout runs from the event loop), and if they stay, returns
    them."""
    try:
        qtbot.waitUntil(lambda: not _reachable_problems(w), timeout=10000)
    except qtbot.TimeoutError:
        pass
    return _reachable_problems(w)


def _widget(qtbot, width=420, height=300):
    w = ExplainerWidget(interval_ms=10)
    qtbot.addWidget(w)
    w.resize(width, height)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_the_explainer_asks_for_little_width_and_reaches_every_cell_of_every_example(window, qtbot):
    """Every operator of every bundled example, at its first and last step: the explainer's
    minimum width stays <= 260 px, and every cell is inside the scroll area's widget."""
    w = window
    w.resize(1280, 720)
    problems, widths, seen = [], {}, 0
    for name in EXAMPLES:
        w.set_document(load_example(name), None)
        w.runner.wait()
        for node in [n for n in w.graph.nodes if isinstance(n, N.OperatorNode)]:
            w.scene.clearSelection()
            w.scene.select_nodes([node.id])           # the explainer follows synchronously
            if w.explainer.count == 0:
                continue
            seen += 1
            for step in (0, w.explainer.count - 1):
                w.explainer.set_step(step)
                found = _problems_once_laid_out(qtbot, w.explainer)
                width = w.explainer.minimumSizeHint().width()
                widths[f"{name}/{node.name}"] = width
                if width > MAX_MIN_WIDTH:
                    problems.append(f"{name}/{node.name}: minimum width {width} px")
                problems += [f"{name}/{node.name} step {step + 1}: {p}" for p in found]
    assert seen >= 20, seen
    print("widest minimum width:", max(widths.values()), max(widths, key=widths.get))
    assert not problems, "\n".join(problems)


def test_the_circular_tensorscatter_at_a_projector_width_scrolls_to_its_last_column(qtbot):
    """The reviewer's screenshot 15: past_cache/update/output of shape (2, 1, 4, 5) in a
    dock about 450 px wide; the 5th column was cut. Now the grids wrap onto more lines (no
    sideways scrolling) and the output's 5th column is inside the scroll area's widget, fully
    drawn, and scrolled into view with the row being written."""
    w = _widget(qtbot, 450, 300)
    past = np.arange(40, dtype=np.float32).reshape(2, 1, 4, 5) % 10
    update = np.full((2, 1, 2, 5), 2, np.float32)
    w.set_operation("circular", "TensorScatter", [past, update, np.array([1, 3])], {"mode": "circular"})
    w.set_step(w.count - 1)
    assert not _problems_once_laid_out(qtbot, w)
    assert w.minimumSizeHint().width() <= MAX_MIN_WIDTH
    output = w.grid("output")
    assert w.scroll.horizontalScrollBar().maximum() == 0   # too wide for one line at 450 px: it wraps
    # the last step writes output[1, 0, 0, :]: its row is scrolled into view, to the last column
    qtbot.waitUntil(lambda: w.scroll.viewport().rect().contains(
        output.mapTo(w.scroll.viewport(), output.cell_rect((0, 4)).bottomRight().toPoint())), timeout=10000)
    assert output.highlights == {(0, c): "target" for c in range(5)}
    save_shot(w, "explainer/scroll_tensorscatter_circular_last")


def test_grid_titles_show_the_whole_slice_on_two_lines(qtbot):
    """"past_cache[1, …" told nothing: the slice title is whole, and the output's note goes
    to a second line when the grid is narrow."""
    w = _widget(qtbot, 300, 300)
    past = np.zeros((2, 1, 4, 5), np.float32)
    w.set_operation("circular", "TensorScatter", [past, np.ones((2, 1, 2, 5), np.float32), np.array([1, 3])],
                    {"mode": "circular"})
    w.set_step(2)                                      # batch 1's first row: update[1, 0, :, :]
    assert not _problems_once_laid_out(qtbot, w)
    assert w.grid("past_cache").title == "past_cache[1, 0, :, :]"
    assert w.grid("update").title == "update[1, 0, :, :]"
    output = w.grid("output")
    assert output.title == "output[1, 0, :, :] after step 3"
    for name in ("past_cache", "update"):
        grid = w.grid(name)
        assert grid.shown_title == grid.title and "…" not in grid.shown_title
    save_shot(w, "explainer/titles_whole")


def test_cells_show_the_viewers_short_values_with_the_exact_value_as_tooltip(qtbot):
    """Cells read 0.126 / -0.132 (as the tensor viewer draws them), not "0.1257…"; hovering a
    cell shows its exact value."""
    w = _widget(qtbot, 700, 320)
    data = np.array([[0.12573022, -0.13210486, 0.64042264, 0.10490011],
                     [-0.53566937, 0.36159506, 1.30400005, 0.94708096]], np.float32)
    w.set_operation("g", "Gather", [data, np.array([1, 0])])
    assert not _problems_once_laid_out(qtbot, w)
    grid = w.grid("data")
    texts = grid.cell_texts()
    assert texts[(0, 0)] == "0.126" and texts[(0, 1)] == "-0.132" and texts[(1, 2)] == "1.3"
    assert grid.cell_tooltip((0, 0)) == "0.12573022"
    # a real hover: the tooltip event over cell (0, 1) shows its exact value
    center = grid.cell_rect((0, 1)).center().toPoint()
    event = QtGui.QHelpEvent(QtCore.QEvent.Type.ToolTip, center, grid.mapToGlobal(center))
    QtWidgets.QApplication.sendEvent(grid, event)
    qtbot.waitUntil(lambda: QtWidgets.QToolTip.isVisible(), timeout=10000)
    assert QtWidgets.QToolTip.text() == "-0.13210486"
    QtWidgets.QToolTip.hideText()
    ints = w.grid("indices").cell_texts()
    assert ints == {(0,): "1", (1,): "0"}
    save_shot(w, "explainer/cells_short_values")


@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
def test_scatterelements_reduction_examples_show_their_last_cell(qtbot, reduction):
    """Screenshot 07: the 5th data/output cell of the reduction examples was cut in a
    narrow dock."""
    w = _widget(qtbot, 360, 300)
    data = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]], np.float32)
    w.set_operation(reduction, "ScatterElements", [data, np.array([[1, 1]]), np.array([[1.1, 2.1]], np.float32)],
                    {"axis": 1, "reduction": reduction})
    w.set_step(1)
    assert not _problems_once_laid_out(qtbot, w)
    assert w.minimumSizeHint().width() <= MAX_MIN_WIDTH
    if reduction == "add":
        save_shot(w, "explainer/scatterelements_add_step2")


def test_a_wide_float_tensor_in_a_narrow_explainer_shows_the_columns_that_fit_around_each_step(qtbot):
    """The Explainer docked beside the other panels at 853x480 has about 170 px for its grids;
    a float tensor's cells ("-0.652", "-1.23e+05") need more for three columns. At every
    step each grid shows a window of columns holding the step's column (down to that column
    alone), every cell inside its grid, the output row being written in view, and nothing
    scrolls sideways; columns of very different widths side by side do not leave the first
    layout with more columns than the grid holds."""
    w = _widget(qtbot, 200, 420)
    rng = np.random.default_rng(7)
    scale = np.array([1, 1e3, 1, 1e-3, 1, 1, 1e5, 1, 1, 1])
    data = (rng.standard_normal((6, 10)) * scale).astype(np.float32)
    w.set_operation("wide", "Gather", [data, np.array([4, 1])], {"axis": 0})
    assert w.scroll.viewport().width() < 200
    found = []
    for k in range(w.count):
        w.set_step(k)
        try:
            qtbot.waitUntil(lambda: not grid_problems(w, whole=False) and not _reachable_problems(w),
                            timeout=10000)
        except qtbot.TimeoutError:
            pass
        found += [f"step {k + 1}: {p}" for p in grid_problems(w, whole=False) + _reachable_problems(w)]
        column = w.current.destination.position[-1]          # output[i, c] = data[indices[i], c]
        for name in ("data", "output"):
            grid = w.grid(name)
            if column not in grid.cols or not 1 <= len(grid.cols) < 10:
                found.append(f"step {k + 1}: {name} shows columns {grid.cols}, not a window around {column}")
    assert not found, "\n".join(found)
    save_shot(w, "explainer/narrow_wide_floats_last")


def test_narrowing_the_explainer_keeps_the_output_row_being_written_in_view(qtbot):
    """A step shown in a wide Explainer, then the dock made narrow and low (a panel dragged
    beside it): the grids are laid out again, and the output row being written is scrolled
    back into view without another step; a scroll by hand afterwards stays."""
    w = _widget(qtbot, 700, 600)
    data = np.random.default_rng(7).standard_normal((6, 10)).astype(np.float32)
    w.set_operation("wide", "Gather", [data, np.array([4, 1, 3, 5])], {"axis": 0})
    w.set_step(w.count - 1)                              # output[3, 9]: the last row
    qtbot.waitUntil(lambda: not grid_problems(w, whole=False), timeout=10000)
    settle(w)                                            # the step's own deferred scroll done too
    w.resize(200, 300)
    qtbot.waitUntil(lambda: w.scroll.viewport().width() < 200, timeout=10000)
    try:
        qtbot.waitUntil(lambda: not grid_problems(w, whole=False), timeout=10000)
    except qtbot.TimeoutError:
        pass
    assert not grid_problems(w, whole=False)
    assert w.scroll.verticalScrollBar().value() > 0      # the last row is below the first view
    save_shot(w, "explainer/narrowed_last_row")
    # scrolling by hand is not undone (only a new layout or a new step scrolls back)
    settle(w)
    w.scroll.verticalScrollBar().setValue(0)
    settle(w)
    assert w.scroll.verticalScrollBar().value() == 0
