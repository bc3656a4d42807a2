"""The Training dock: Train N steps and Step from the dock (a live, falling loss curve; each run
one undo step), Stop, edits refused while a run goes, runs that cannot start, and the canvas's
training mode following the dock. The expected values come from numpy loops written here
(mean squared error of a Gather, SGD with momentum), never from the training code."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import nodes as N

from .helpers import deliver_posted_events, open_example, save_shot

LEFT = QtCore.Qt.MouseButton.LeftButton


def _click(button) -> None:
    QTest.mouseClick(button, LEFT)


def _open_dock(w):
    w.training_dock.show()
    w.training_dock.raise_()
    deliver_posted_events()
    return w.training_panel


def _embedding_inputs(w):
    """(table, token ids, targets) of train_embedding as the runner computed them."""
    return (np.array(w.runner.value("table"), np.float64), np.asarray(w.runner.value("token_ids")),
            np.array(w.runner.value("targets"), np.float64))


def sgd_losses(table, ids, targets, steps, lr=0.1, momentum=0.9):
    """Losses before each of ``steps`` SGD steps on mean((table[ids] - targets)**2), and the table after."""
    p, v, losses = table.copy(), np.zeros_like(table), []
    for _ in range(steps):
        p32 = p.astype(np.float32).astype(np.float64)      # the graph runs in float32
        diff = p32[ids] - targets
        losses.append(np.mean(diff * diff))
        grad = np.zeros_like(p)
        np.add.at(grad, ids, 2.0 * diff / diff.size)
        v = momentum * v + grad
        p = p - lr * v
    return losses, p


def test_fifty_steps_from_the_dock_draw_fifty_falling_points_and_one_undo_restores_the_table(window, qtbot):
    w = window
    open_example(w, "train_embedding")
    panel = _open_dock(w)
    generator = w.graph.node("table")
    table, ids, targets = _embedding_inputs(w)
    assert panel.loss_label.text() == f"loss {np.mean((table[ids] - targets) ** 2):.6g}"   # the document's loss
    panel.steps_box.setValue(50)
    _click(panel.train_button)
    assert w.training.running and not panel.train_button.isEnabled() and panel.stop_button.isEnabled()
    qtbot.waitUntil(lambda: not w.training.running, timeout=60000)
    steps, losses = panel.curve_points()
    assert steps == list(range(1, 51))
    assert all(later < earlier for earlier, later in zip(losses, losses[1:], strict=False))
    want, trained = sgd_losses(table, ids, targets, 50)
    np.testing.assert_allclose(losses, want, rtol=1e-4)
    assert w.undo_stack.count() == 1 and w.undo_action.text() == "Undo Train 50 Steps"
    node = w.graph.node("table")
    assert isinstance(node, N.LiteralSource) and node.trainable and node.name == "embedding table"
    np.testing.assert_allclose(node.value, trained, rtol=1e-4, atol=1e-6)
    assert "Trained 50 steps" in panel.message.text()
    save_shot(w.training_dock, "training/dock_after_50_steps")
    w.view.setFocus()
    QTest.keySequence(w.view, "Ctrl+Z")
    assert w.graph.node("table") is generator              # the very generator, parameters and all
    w.runner.wait()
    np.testing.assert_array_equal(w.runner.value("table"), table.astype(np.float32))


def test_stop_ends_a_long_run_keeping_its_steps_as_one_undo_step(window, qtbot):
    w = window
    open_example(w, "train_embedding")
    panel = _open_dock(w)
    panel.steps_box.setValue(1_000_000)
    _click(panel.train_button)
    qtbot.waitUntil(lambda: len(panel.curve_points()[0]) >= 5, timeout=60000)
    assert w.training.running and panel.progress.isVisible()
    assert panel.progress.maximum() == 1_000_000
    save_shot(w.training_dock, "training/dock_mid_run")
    _click(panel.stop_button)
    qtbot.waitUntil(lambda: not w.training.running, timeout=10000)
    result = w.training.last_result
    assert result.cancelled and 5 <= result.steps_done < 1_000_000
    assert len(panel.curve_points()[0]) == result.steps_done
    assert w.undo_action.text() == f"Undo Train {result.steps_done} Steps" and w.undo_stack.count() == 1
    assert f"Stopped after {result.steps_done} of 1000000 steps" in panel.message.text()
    assert isinstance(w.graph.node("table"), N.LiteralSource)


def test_while_a_run_goes_edits_are_refused_but_moving_works_and_undo_is_off(window, qtbot):
    w = window
    open_example(w, "train_embedding")
    panel = _open_dock(w)
    panel.steps_box.setValue(1_000_000)
    _click(panel.train_button)
    qtbot.waitUntil(lambda: len(panel.curve_points()[0]) >= 1, timeout=60000)
    assert not w.undo_action.isEnabled() and not w.redo_action.isEnabled()
    w.scene.select_nodes(["targets"])
    w.edits.delete_selection()
    assert w.graph.has_node("targets")
    assert "Training is running" in w.statusBar().currentMessage()
    w.scene.select_nodes(["token_ids"])                     # a paste into its table: refused too
    deliver_posted_events()
    table = w.properties.widgets["table"]
    ids = np.array(w.graph.node("token_ids").value, copy=True)
    table.setCurrentCell(0, 0)
    QtWidgets.QApplication.clipboard().setText("0")
    table.setFocus()
    QTest.keyClick(table, QtCore.Qt.Key.Key_V, QtCore.Qt.KeyboardModifier.ControlModifier)
    np.testing.assert_array_equal(w.graph.node("token_ids").value, ids)
    message = w.statusBar().currentMessage()
    assert "Training is running" in message and "Pasted" not in message   # it said "Pasted 1 value"
    name = w.properties.widgets["name"]                      # a rename: refused, and the field says so
    name.setFocus()
    name.selectAll()
    QTest.keyClicks(name, "renamed in training")
    QTest.keyClick(name, QtCore.Qt.Key.Key_Return)
    assert w.graph.node("token_ids").name != "renamed in training"
    assert name.text() == w.graph.node("token_ids").name     # it kept the refused text
    w.scene.select_nodes(["targets"])
    before = w.graph.node("targets").position
    w.scene.nudge_selection(20, 0, burst=1)                # a view-only edit goes through
    assert w.graph.node("targets").position == (before[0] + 20, before[1])
    assert not w.undo_action.isEnabled()                   # the move did not turn Undo back on
    assert w.training.running
    _click(panel.stop_button)
    qtbot.waitUntil(lambda: not w.training.running, timeout=10000)
    assert w.undo_action.isEnabled()
    assert [w.undo_stack.text(i) for i in range(w.undo_stack.count())][-1].startswith("Train ")


def test_each_step_is_one_undo_step_and_the_curve_goes_on_until_the_graph_changes(window, qtbot):
    w = window
    open_example(w, "train_embedding")
    panel = _open_dock(w)
    table, ids, targets = _embedding_inputs(w)
    for n in range(1, 4):
        _click(panel.step_button)
        qtbot.waitUntil(lambda n=n: not w.training.running and w.undo_stack.count() == n, timeout=30000)
    assert [w.undo_stack.text(i) for i in range(3)] == ["Train 1 Step"] * 3
    steps, losses = panel.curve_points()
    assert steps == [1, 2, 3]
    # three runs of one step: plain gradient descent (each run starts a fresh optimizer)
    want = [sgd_losses(table, ids, targets, 1)[0][0]]
    p = table
    for _ in range(2):
        p = sgd_losses(p, ids, targets, 1)[1]
        want.append(sgd_losses(p, ids, targets, 1)[0][0])
    np.testing.assert_allclose(losses, want, rtol=1e-4)
    w.graph.set_source("targets", value=np.zeros((2, 3, 4), np.float32))   # not training: a new curve
    w.runner.wait()
    _click(panel.step_button)
    qtbot.waitUntil(lambda: not w.training.running and w.undo_stack.count() == 4, timeout=30000)
    assert panel.curve_points()[0] == [1]


@pytest.mark.parametrize("example, words", [("embedding_lookup", "no Loss node"),
                                            ("train_embedding", "no tensor source is marked trainable")])
def test_a_graph_that_cannot_train_says_what_is_missing(window, example, words):
    w = window
    open_example(w, example)
    if example == "train_embedding":
        w.graph.set_trainable("table", False)
    panel = _open_dock(w)
    edits = w.undo_stack.count()
    _click(panel.train_button)
    assert not w.training.running and w.undo_stack.count() == edits
    assert words in panel.message.text()


def test_opening_another_graph_drops_a_run_and_applies_nothing(window, qtbot):
    w = window
    open_example(w, "train_embedding")
    panel = _open_dock(w)
    panel.steps_box.setValue(1_000_000)
    _click(panel.train_button)
    qtbot.waitUntil(lambda: len(panel.curve_points()[0]) >= 1, timeout=60000)
    open_example(w, "train_segment_sum")
    assert not w.training.running and w.undo_stack.count() == 0
    assert panel.curve_points() == ([], []) and panel.train_button.isEnabled()
    deliver_posted_events()
    assert w.undo_stack.count() == 0                     # the dropped run's end applies nothing


def test_the_canvas_shows_gradient_wires_while_the_training_dock_is_open(window, qtbot):
    w = window
    open_example(w, "train_embedding")
    assert not w.scene.training_mode
    _open_dock(w)
    qtbot.waitUntil(lambda: w.scene.training_mode, timeout=10000)
    assert {(e.src, e.dst) for e in w.scene.gradient_wires()} == {("table", "lookup"), ("lookup", "loss")}
    save_shot(w, "training/window_training_mode")
    w.training_dock.hide()
    qtbot.waitUntil(lambda: not w.scene.training_mode, timeout=10000)
    assert w.scene.gradient_wires() == []


def test_the_loss_plot_is_made_when_the_panel_is_first_shown_with_the_points_so_far(qtbot):
    """The dock starts closed: its plot is made on the panel's first showing (not with the
    window), and points added before then are on the curve once it is, markers and all."""
    from nodeeditor.ui.training_dock import MARKED_POINTS, TrainingPanel

    panel = TrainingPanel()
    qtbot.addWidget(panel)
    panel.add_points([1, 2, 3], [0.5, 0.25, 0.125])
    assert panel._plot is None
    panel.show()
    qtbot.waitExposed(panel)
    assert panel._plot is not None and panel.plot.isVisible()
    x, y = panel.curve.getData()
    assert x.tolist() == [1, 2, 3] and y.tolist() == [0.5, 0.25, 0.125]
    assert panel.curve.opts["symbol"] == "o"
    panel.add_points(list(range(4, MARKED_POINTS + 2)), [0.1] * (MARKED_POINTS - 2))
    assert panel.curve.opts["symbol"] is None and len(panel.curve.getData()[0]) == MARKED_POINTS + 1
    panel.clear_curve()
    x, _ = panel.curve.getData()
    assert panel.curve.opts["symbol"] == "o" and (x is None or len(x) == 0)


def test_a_run_through_an_op_without_a_gradient_keeps_saying_why_when_it_ends(window, qtbot):
    """The warning that no gradient flows back through a foreign ONNX op (one IndexFlow has no
    rule for: Erf) showed only while the run went; after it the dock said "Trained 3 steps:
    loss 3 → 3" and nothing else."""
    from nodeeditor.graph import Graph
    from nodeeditor.onnx_io.foreign_ops import new_foreign_node

    g = Graph(name="erf in the way", opset=18)
    g.add_literal(np.array([[1.0, -2.0], [3.0, 4.0]], np.float32), name="table", node_id="table", position=(0, 0))
    g.set_trainable("table", True)
    g.add_literal(np.array([1, 0], np.int64), name="ids", node_id="ids", position=(0, 160))
    g.add_operator("Gather", {}, node_id="gather", position=(300, 0))
    g.add_node(new_foreign_node("Erf", node_id="erf", position=(600, 0)))
    g.add_loss("sum", node_id="loss", position=(900, 0))
    g.connect("table", "output", "gather", "data")
    g.connect("ids", "output", "gather", "indices")
    g.connect("gather", "output", "erf", g.node("erf").input_ports()[0])
    g.connect("erf", g.node("erf").output_ports()[0], "loss", N.PREDICTION)
    window.set_document(g, None)
    window.runner.wait()
    panel = _open_dock(window)
    panel.steps_box.setValue(3)
    _click(panel.train_button)
    qtbot.waitUntil(lambda: not window.training.running, timeout=60000)
    text = panel.message.text()
    assert "Trained 3 steps" in text and "no gradient for ONNX op Erf" in text


def test_ctrl_t_brings_the_training_dock_to_the_front_of_its_tabs(window, qtbot):
    """Ctrl+T showed the dock's tab but left the Explainer's page in front."""
    from .helpers import keys

    window.training_dock.hide()
    window.explainer_dock.show()
    window.explainer_dock.raise_()
    deliver_posted_events()
    window.view.setFocus()
    keys(window.view, "Ctrl+T")
    qtbot.waitUntil(lambda: window.training_dock.isVisible() and not window.training_dock.visibleRegion().isEmpty(),
                    timeout=10000)
    assert window.explainer_dock in window.tabifiedDockWidgets(window.training_dock)   # a tab beside it
    assert window.explainer_dock.visibleRegion().isEmpty()
