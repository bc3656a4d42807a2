"""The teaching view: real clicks step through an op; highlights sit on the cells the spec
formula names."""
import numpy as np
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.ui.explainer import ExplainerWidget

from .helpers import deliver_posted_events

SCATTER9_INDICES = np.array([[1, 0, 2], [0, 2, 1]])
SCATTER9_UPDATES = np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]])


def _widget(qtbot):
    w = ExplainerWidget(interval_ms=10)
    qtbot.addWidget(w)
    w.resize(640, 320)
    w.show()
    return w


def test_next_button_walks_the_scatter9_example(qtbot):
    w = _widget(qtbot)
    assert not w.next_button.isEnabled()          # nothing to explain yet
    assert w.set_operation("Scatter example 1", "Scatter", [np.zeros((3, 3)), SCATTER9_INDICES, SCATTER9_UPDATES])
    data_grid, indices_grid, updates_grid, output_grid = w.grids
    for k in range(6):
        i, j = divmod(k, 3)
        assert w.step == k
        assert indices_grid.highlights == {(i, j): "index"}
        assert updates_grid.highlights[(i, j)] == "source"
        # data[indices[i][j]][j] = updates[i][j]  (Scatter-9, axis 0)
        assert output_grid.highlights == {(SCATTER9_INDICES[i, j], j): "target"}
        assert data_grid.highlights == {(SCATTER9_INDICES[i, j], j): "target"}
        assert w.counter.text() == f"{k + 1} / 6"
        QTest.mouseClick(w.next_button, QtCore.Qt.MouseButton.LeftButton)
    assert w.step == 5 and not w.next_button.isEnabled()
    QTest.mouseClick(w.prev_button, QtCore.Qt.MouseButton.LeftButton)
    assert w.step == 4


def test_duplicates_mark_the_other_updates_hitting_the_same_cell(qtbot):
    w = _widget(qtbot)
    w.set_operation("dups", "ScatterND", [np.zeros(4), np.array([[1], [3], [1]]), np.array([7.0, 8.0, 9.0])])
    _, _, updates_grid, output_grid = w.grids
    assert updates_grid.highlights == {(0,): "source", (2,): "also"}
    assert output_grid.highlights == {(1,): "target"}
    assert "overwritten later by updates[2]" in w.sentence.text()


def test_gather_on_3d_output_shows_the_slice_holding_the_element(qtbot):
    w = _widget(qtbot)
    data = np.array([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]])
    w.set_operation("g", "Gather", [data, np.array([[0, 1], [1, 2]])])
    w.set_step(5)                                   # output[1, 0, 1] = data[indices[1, 0], 1] = data[1, 1]
    data_grid, indices_grid, output_grid, unused = w.grids
    assert not unused.isVisible()                   # a gather has nothing to build up
    assert data_grid.highlights == {(1, 1): "source"}
    assert indices_grid.highlights == {(1, 0): "index"}
    assert output_grid.title == "output[1, :, :]" and output_grid.highlights == {(0, 1): "target"}


def test_play_runs_to_the_end_and_stops(qtbot):
    w = _widget(qtbot)
    w.set_operation("g", "Gather", [np.arange(5.0), np.array([4, 0, 2])])
    QTest.mouseClick(w.play_button, QtCore.Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not w.play_button.isChecked(), timeout=10000)
    assert w.step == 2 and w.play_button.text() == "Play"


def test_a_bad_operation_shows_the_ops_message(qtbot):
    w = _widget(qtbot)
    assert not w.set_operation("bad", "Gather", [np.arange(3.0), np.array([5])])
    assert "out of range" in w.title.text() and not w.slider.isEnabled()


def test_a_reduction_shows_the_output_as_it_stands_at_each_step(qtbot):
    """The walkthrough's case: ScatterElements add, two updates into one cell. Step 1's
    sentence folds 2 + 1.1 = 3.1 and the output grid shows 3.1 there (not the final 5.2);
    step 2 shows 5.2; the data grid keeps the starting 2."""
    w = _widget(qtbot)
    data = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]])
    w.set_operation("add", "ScatterElements", [data, np.array([[1, 1]]), np.array([[1.1, 2.1]])],
                    {"axis": 1, "reduction": "add"})
    data_grid, output_grid = w.grid("data"), w.grids[3]
    assert "2 + 1.1 = 3.1" in w.sentence.text()
    assert output_grid.full[0, 1] == np.float64(2.0) + 1.1 and output_grid.title == "output after step 1"
    assert data_grid.full[0, 1] == 2.0 and data_grid.highlights == {(0, 1): "target"}
    w.set_step(1)
    assert "3.1 + 2.1 = 5.2" in w.sentence.text()
    assert output_grid.full[0, 1] == (np.float64(2.0) + 1.1) + 2.1 and output_grid.title == "output"


def test_play_and_pause_keep_the_button_width(qtbot):
    """Play <-> Pause must not shift the slider (the walkthrough saw it jump)."""
    w = _widget(qtbot)
    w.set_operation("s", "Scatter", [np.zeros((3, 3)), SCATTER9_INDICES, SCATTER9_UPDATES])
    qtbot.waitExposed(w)
    deliver_posted_events()                          # the layout settles
    before = (w.play_button.width(), w.slider.width())
    w.play_button.setChecked(True)
    assert w.play_button.text() == "Pause"
    deliver_posted_events()                          # laid out again: the widths must stay as they were
    assert (w.play_button.width(), w.slider.width()) == before
    w.play_button.setChecked(False)


def test_idle_in_a_tall_dock_the_hint_and_the_controls_stay_at_the_top(qtbot):
    """With nothing to step through the tabs are hidden; their height goes below the controls,
    not between the hint, the slider and the sentence (it did, in a dock 320 px tall)."""
    w = _widget(qtbot)
    assert w.set_operation("Scatter example 1", "Scatter", [np.zeros((3, 3)), SCATTER9_INDICES, SCATTER9_UPDATES])
    w.clear()
    deliver_posted_events()
    title_bottom = w.title.geometry().bottom()
    assert not w.tabs.isVisible()
    assert w.slider.geometry().top() - title_bottom < 30, (title_bottom, w.slider.geometry())
    assert w.set_operation("Scatter example 1", "Scatter", [np.zeros((3, 3)), SCATTER9_INDICES, SCATTER9_UPDATES])
    deliver_posted_events()
    assert w.tabs.isVisible() and w.tabs.geometry().bottom() > w.height() - 30   # the tabs take the height again
