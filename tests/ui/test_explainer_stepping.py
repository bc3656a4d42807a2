"""Stepping through an operation in the Explainer: arrows from the source and the index cell to
the destination, the keys, the play speed, slice or element steps, windows of large tensors
with their coordinates, and stepping back to exactly the state before. Expected cells come
from the spec formulas (Scatter-9: output[indices[i][j]][j] = updates[i][j])."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.ui.explainer import ExplainerWidget
from nodeeditor.ui.explainer.grid import ELLIPSIS
from nodeeditor.ui.explainer.widget import settle

from ..ops.seed_steps import SCATTER9_EX1, SCATTERND_EX2
from .helpers import save_shot

Key = QtCore.Qt.Key


def _widget(qtbot, width=900, height=420, **kwargs) -> ExplainerWidget:
    w = ExplainerWidget(**kwargs)
    qtbot.addWidget(w)
    w.resize(width, height)
    w.show()
    qtbot.waitExposed(w)
    return w


def _centre_in_area(w: ExplainerWidget, grid, pos) -> QtCore.QPointF:
    return grid.cell_rect(pos).center() + QtCore.QPointF(grid.mapTo(w.grid_area, QtCore.QPoint(0, 0)))


def test_arrows_join_the_update_and_the_index_to_the_cell_written(qtbot):
    w = _widget(qtbot)
    assert w.set_operation("ex1", "Scatter", list(SCATTER9_EX1.inputs))
    indices = SCATTER9_EX1.inputs[1]
    updates, index_grid, output = w.grid("updates"), w.grid("indices"), w.grid("output")
    for k, (i, j) in enumerate(np.ndindex(indices.shape)):
        w.set_step(k)
        arrows = {a.role: a for a in w.arrows.arrows()}
        assert set(arrows) == {"source", "index"}
        target = (indices[i, j], j)                   # data[indices[i][j]][j] = updates[i][j]
        for role, grid in (("source", updates), ("index", index_grid)):
            assert arrows[role].start_rect.contains(_centre_in_area(w, grid, (i, j)))
            assert arrows[role].end_rect.contains(_centre_in_area(w, output, target))
            # the arrow starts and ends on its cells' edges
            assert arrows[role].start_rect.adjusted(-1, -1, 1, 1).contains(arrows[role].tail)
            assert arrows[role].end_rect.adjusted(-1, -1, 1, 1).contains(arrows[role].head)
    save_shot(w, "explainer/explainer_arrows_scatter9")


def test_a_gathers_arrow_starts_at_the_data_cell_it_reads(qtbot):
    w = _widget(qtbot)
    data, indices = np.arange(12.0).reshape(3, 4), np.array([2, 0])
    w.set_operation("g", "Gather", [data, indices], {"axis": 0})
    w.set_step(5)                                     # output[1, 1] = data[indices[1], 1] = data[0, 1]
    arrows = {a.role: a for a in w.arrows.arrows()}
    assert arrows["source"].start_rect.contains(_centre_in_area(w, w.grid("data"), (0, 1)))
    assert arrows["index"].start_rect.contains(_centre_in_area(w, w.grid("indices"), (1,)))
    assert arrows["source"].end_rect.contains(_centre_in_area(w, w.grid("output"), (1, 1)))


def test_keys_step_play_and_jump(qtbot):
    w = _widget(qtbot, interval_ms=20)
    w.set_operation("ex1", "Scatter", list(SCATTER9_EX1.inputs))
    w.slider.setFocus()
    qtbot.waitUntil(lambda: w.slider.hasFocus(), timeout=10000)
    QTest.keyClick(w.slider, Key.Key_Right)
    assert w.step == 1
    QTest.keyClick(w.slider, Key.Key_End)
    assert w.step == 5
    QTest.keyClick(w.slider, Key.Key_Left)
    assert w.step == 4
    QTest.keyClick(w.slider, Key.Key_Home)
    assert w.step == 0
    QTest.keyClick(w.slider, Key.Key_Space)          # play ...
    assert w.playing and w.play_button.text() == "Pause"
    qtbot.waitUntil(lambda: w.step >= 2, timeout=10000)
    QTest.keyClick(w.slider, Key.Key_Space)          # ... and pause
    assert not w.playing
    paused_at = w.step
    QTest.keyClick(w.slider, Key.Key_Right)
    assert w.step == paused_at + 1


def test_space_on_a_focused_button_presses_it_instead_of_playing(qtbot):
    """Space on ∇ started playback and left Backward off; Space on ▶ played instead of one
    step (the stepping keys took it from the buttons). A focused button keeps Space."""
    w = _widget(qtbot, interval_ms=20)
    w.set_operation("ex1", "Scatter", list(SCATTER9_EX1.inputs))
    w.next_button.setFocus()
    qtbot.waitUntil(lambda: w.next_button.hasFocus(), timeout=10000)
    QTest.keyClick(w.next_button, Key.Key_Space)
    assert w.step == 1 and not w.playing
    w.backward_button.setFocus()
    qtbot.waitUntil(lambda: w.backward_button.hasFocus(), timeout=10000)
    QTest.keyClick(w.backward_button, Key.Key_Space)
    assert w.backward_action.isChecked() and not w.playing
    w.slider.setFocus()                                 # elsewhere in the widget Space still plays
    qtbot.waitUntil(lambda: w.slider.hasFocus(), timeout=10000)
    QTest.keyClick(w.slider, Key.Key_Space)
    assert w.playing


def test_play_speed_from_the_menu_or_in_steps_per_second(qtbot):
    w = _widget(qtbot)
    w.set_operation("ex1", "Scatter", list(SCATTER9_EX1.inputs))
    assert w.speed_actions["Normal"].isChecked()
    w.speed_actions["Slow"].trigger()
    assert w.speed == 0.5 and w.timer.interval() == 2000 and w.speed_box.value() == 0.5
    w.speed_actions["Fast"].trigger()
    assert w.timer.interval() == 200
    w.speed_box.setValue(4.0)                        # a number of steps per second
    assert w.speed == 4.0 and w.timer.interval() == 250
    assert not any(a.isChecked() for a in w.speed_actions.values())
    w.speed_box.setValue(1000)                       # clamped
    assert w.speed == 100.0
    assert w.speed_menu in (w.play_button.menu(), None) and w.play_button.menu() is w.speed_menu


def test_scatternd_moves_slices_and_single_elements_are_an_option(qtbot):
    w = _widget(qtbot)
    w.set_operation("ex2", "ScatterND", list(SCATTERND_EX2.inputs))
    assert w.count == 2 and w.elements_action.isEnabled() and not w.elements_action.isChecked()
    w.set_step(1)                                    # updates[1] -> output[2, :, :]
    output = w.grid("output")
    assert output.title == "output[2, :, :]"
    assert output.highlights == {(r, c): "target" for r in range(4) for c in range(4)}
    assert w.grid("updates").highlights == {(r, c): "source" for r in range(4) for c in range(4)}
    assert w.grid("indices").highlights == {(1, 0): "index"}
    w.elements_action.trigger()                      # single elements, on the same element
    assert w.count == 32 and w.step == 16 and w.current.destination.position == (2, 0, 0)
    assert output.highlights == {(0, 0): "target"}
    w.set_step(31)
    w.elements_action.trigger()                      # back to slices: element 31 is in slice 1
    assert w.count == 2 and w.step == 1
    # an op without slices offers no option
    w.set_operation("g", "Gather", [np.arange(4.0), np.array([1])])
    assert not w.elements_action.isEnabled()


def test_a_3000_by_3000_gather_shows_the_cells_around_the_step_with_their_coordinates(qtbot):
    w = _widget(qtbot, 900, 520)
    data = np.arange(3000 * 3000, dtype=np.int32).reshape(3000, 3000)
    w.set_operation("big", "Gather", [data, np.array([5, 1500, 2999])], {"axis": 0})
    w.set_step(1 * 3000 + 1000)                      # output[1, 1000] = data[1500, 1000]
    qtbot.waitUntil(lambda: w.destination_row_rect() is not None, timeout=10000)
    grid = w.grid("data")
    assert len(grid.rows) == 12 and 1500 in grid.rows and len(grid.cols) <= 12 and 1000 in grid.cols
    assert grid.highlights == {(1500, 1000): "source"}
    texts = grid.cell_texts()
    assert len(texts) == len(grid.rows) * len(grid.cols) and texts[(1500, 1000)] == str(1500 * 3000 + 1000)
    grid.grab()
    assert "too large" not in grid.shown_title
    output = w.grid("output")
    assert output.highlights == {(1, 1000): "target"} and 1000 in output.cols
    # the last cell: the window moves to the end, the coordinates with it
    w.set_step(w.count - 1)
    assert grid.rows.stop == 3000 and grid.cols.stop == 3000 and grid.highlights == {(2999, 2999): "source"}
    save_shot(w, "explainer/explainer_gather_3000")


def test_the_axes_say_where_a_window_is(qtbot):
    """Drawn coordinates are the tensor's own: a window from column 994 is labelled 994..."""
    w = _widget(qtbot, 900, 520)
    data = np.zeros((3000, 3000), np.float32)
    w.set_operation("big", "Gather", [data, np.array([1500])], {"axis": 0})
    w.set_step(1000)
    grid = w.grid("data")
    labels: list[str] = []
    original = QtGui.QPainter.drawText

    def record(painter, *args):
        labels.append(args[-1] if isinstance(args[-1], str) else "")
        return original(painter, *args)

    QtGui.QPainter.drawText = record
    try:
        grid.grab()
    finally:
        QtGui.QPainter.drawText = original
    for r in grid.rows:
        assert str(r) in labels
    for c in grid.cols:
        assert str(c) in labels
    assert ELLIPSIS in labels and "⋮" in labels         # cut on both sides of both axes


def test_stepping_back_restores_the_previous_state_exactly(qtbot):
    w = _widget(qtbot)
    data = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]], np.float32)
    w.set_operation("add", "ScatterElements", [data, np.array([[1, 1, 3]]), np.array([[1.1, 2.1, 7.0]], np.float32)],
                    {"axis": 1, "reduction": "add"})

    def state():
        settle(w)                                      # layouts and the scroll to the row done
        return (w.sentence.text(), w.counter.text(),
                [(g.title, None if g.full is None else g.full.tobytes(), dict(g.highlights), g.rows, g.cols)
                 for g in w.grids],
                [(a.role, a.start_rect, a.end_rect) for a in w.arrows.arrows()], w.grab().toImage())

    w.slider.setFocus()
    qtbot.waitUntil(lambda: w.slider.hasFocus(), timeout=10000)
    for k in range(w.count - 1):
        w.set_step(k)
        before = state()
        QTest.keyClick(w.slider, Key.Key_Right)
        assert w.step == k + 1 and state()[0] != before[0]
        QTest.keyClick(w.slider, Key.Key_Left)
        after = state()
        assert after[:4] == before[:4]
        assert after[4] == before[4]                   # the very same picture


def test_the_right_click_menu_offers_single_elements_and_slides(qtbot):
    w = _widget(qtbot)
    w.set_operation("ex2", "ScatterND", list(SCATTERND_EX2.inputs))
    seen = []

    def look():
        popup = QtWidgets.QApplication.activePopupWidget()
        seen.append(popup)
        if popup is not None:
            popup.close()

    QtCore.QTimer.singleShot(0, look)
    point = w.rect().center()
    QtWidgets.QApplication.sendEvent(w, QtGui.QContextMenuEvent(QtGui.QContextMenuEvent.Reason.Mouse, point,
                                                                w.mapToGlobal(point)))
    qtbot.waitUntil(lambda: bool(seen), timeout=10000)
    assert seen[0] is w.menu
    texts = [a.text().replace("&", "") for a in w.menu.actions()]
    assert "Single Elements" in texts and "Export Slides…" in texts and "Play / Pause" in texts


def test_the_legend_says_what_each_colour_means(qtbot):
    from nodeeditor.ui.explainer.grid import ROLE_COLOURS

    w = _widget(qtbot)
    tip = w.legend.toolTip()
    assert [line.split(":")[0] for line in tip.splitlines()] == list(ROLE_COLOURS)
    assert "also: the other updates that reach the same output cell" in tip


def test_an_index_out_of_range_shows_the_inputs_with_that_index_marked(window, qtbot):
    """Gather axis 1 of a (3, 4) table with indices [[0, 2], [7, 1]]: 7 is out of range (the
    valid ones are -4..3). The Explainer says so and shows data and indices, indices[1, 0] in
    the error colour; nothing to step through."""
    from nodeeditor.graph import Graph
    from nodeeditor.ui.explainer.grid import ERROR_COLOURS

    g = Graph(name="bad", opset=18)
    d = g.add_input("data", np.arange(12, dtype=np.float32).reshape(3, 4))
    i = g.add_input("indices", np.array([[0, 2], [7, 1]]))
    op = g.add_operator("Gather", {"axis": 1}, name="gbad")
    g.connect(d, "output", op, "data")
    g.connect(i, "output", op, "indices")
    g.connect(op, "output", g.add_output("out"), "value")
    window.set_document(g, None)
    window.runner.wait()
    window.explainer_dock.show()
    window.scene.select_nodes([op])
    ex = window.explainer
    qtbot.waitUntil(lambda: "is out of range" in ex.title.text(), timeout=10000)
    assert ex.title.text() == "gbad: indices[1, 0] = 7 is out of range for data axis 1 of size 4 (valid -4..3)"
    data_grid, index_grid = ex.grids[0], ex.grids[1]
    assert data_grid.isVisible() and data_grid.name == "data" and index_grid.name == "indices"
    assert index_grid.highlights == {(1, 0): "error"} and not data_grid.highlights
    assert not ex.play_button.isEnabled() and ex.count == 0
    image = index_grid.grab().toImage()
    centre = index_grid.cell_rect((1, 0)).center().toPoint()
    assert image.pixelColor(centre + QtCore.QPoint(0, 6)).name() == ERROR_COLOURS[0]
    save_shot(window.explainer_dock, "explainer/index_out_of_range")
