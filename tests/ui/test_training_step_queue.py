"""How a training run hands its steps to the UI: one wake-up at a time however fast it goes
(so a run of a million steps cannot flood the event loop), every step taken in order, and a
long curve drawn as a plain line."""
from __future__ import annotations

import threading

from nodeeditor.graph.training import TrainingStep
from nodeeditor.ui.training_dock import MARKED_POINTS, TrainingPanel
from nodeeditor.ui.training_runs import StepQueue


def test_a_fast_worker_wakes_the_ui_once_until_it_takes_the_steps():
    wakes = []
    queue = StepQueue(lambda: wakes.append(1))
    worker = threading.Thread(target=lambda: [queue.put(TrainingStep(i, 300, 1.0 / i)) for i in range(1, 301)])
    worker.start()
    worker.join()
    assert len(wakes) == 1                      # 300 steps, one pending wake-up
    taken = queue.take()
    assert [s.step for s in taken] == list(range(1, 301))
    assert queue.take() == []
    queue.put(TrainingStep(301, 301, 0.5))      # the queue was emptied: the next step wakes again
    assert len(wakes) == 2 and [s.step for s in queue.take()] == [301]


def test_a_long_curve_loses_its_markers_and_a_cleared_one_gets_them_back(qtbot):
    panel = TrainingPanel()
    qtbot.addWidget(panel)
    panel.add_points([1, 2, 3], [3.0, 2.0, 1.0])
    assert panel.curve.opts["symbol"] == "o"
    n = MARKED_POINTS + 1
    panel.add_points(list(range(4, 4 + n)), [1.0] * n)
    assert panel.curve.opts["symbol"] is None
    assert panel.curve_points()[0] == list(range(1, 4 + n))
    panel.clear_curve()
    assert panel.curve.opts["symbol"] == "o" and panel.curve_points() == ([], [])


def test_the_loss_axis_shows_the_losses_as_they_are(qtbot):
    panel = TrainingPanel()
    qtbot.addWidget(panel)
    panel.add_points([1, 2], [0.66, 0.004])
    axis = panel.plot.getAxis("left")
    assert axis.labelString().count("x0.001") == 0 and not axis.autoSIPrefix
