"""Training runs: they leave the document alone, follow the optimizer step by step, report
each step, stop on cancel or divergence, and their result is applied as one edit that
undoes exactly."""
import threading

import numpy as np
import pytest

from nodeeditor.graph import (
    Backward,
    BackwardSetupError,
    Engine,
    Graph,
    OptimizerSettings,
    TrainingRun,
    apply_trained,
    graph_to_dict,
    train,
    trained_edit,
)
from nodeeditor.graph import events as E


def line_graph(generator=True):
    """w (trainable, generator zeros [3] or literal) -> Gather [0, 1, 2, 2] -> mse against t."""
    g = Graph("line")
    if generator:
        g.add_generator("zeros", {"shape": [3], "dtype": "float32"}, name="weights", node_id="w")
    else:
        g.add_literal(np.zeros(3, np.float32), name="weights", node_id="w")
    g.set_trainable("w", True)
    g.add_literal(np.array([0, 1, 2, 2]), node_id="ids")
    g.add_literal(np.array([1.0, -2.0, 3.0, 3.0], np.float32), node_id="t")
    g.add_operator("Gather", node_id="gather")
    g.add_loss("mean_squared_error", node_id="loss")
    for src, dst, port in (("w", "gather", "data"), ("ids", "gather", "indices"), ("gather", "loss", "prediction"),
                           ("t", "loss", "target")):
        g.connect(src, "output", dst, port)
    return g


def test_a_run_follows_sgd_step_by_step_and_leaves_the_graph_alone():
    g = line_graph()
    before = graph_to_dict(g)
    steps = []
    result = train(g, 2, OptimizerSettings("sgd", learning_rate=0.1, momentum=0.9), on_step=steps.append)
    assert graph_to_dict(g) == before and g.node("w").kind == "generator"
    # by hand: loss = mean((w[ids] - t)^2); at w = 0: loss = (1 + 4 + 9 + 9) / 4 = 5.75,
    # d w = 2/4 * [0 - 1, 0 + 2, 2 * (0 - 3)] = [-0.5, 1, -3]; v = g; w1 = -0.1 g = [0.05, -0.1, 0.3]
    # at w1: residuals [-0.95, 1.9, -2.7, -2.7]: loss = (0.9025 + 3.61 + 7.29 * 2) / 4 = 4.773125,
    # g2 = 0.5 * [-0.95, 1.9, -5.4] ; v2 = 0.9 g + g2; w2 = w1 - 0.1 v2
    g1 = np.array([-0.5, 1.0, -3.0])
    w1 = -0.1 * g1
    g2 = 0.5 * np.array([-0.95, 1.9, -5.4])
    w2 = w1 - 0.1 * (0.9 * g1 + g2)
    assert [s.step for s in steps] == [1, 2] and steps[0].steps == 2
    np.testing.assert_allclose(result.losses, [5.75, 4.773125], rtol=1e-6)
    np.testing.assert_allclose(result.values["w"], w2, rtol=1e-6)
    assert result.values["w"].dtype == np.float32 and result.steps_done == 2 and result.ok
    expected_final = np.mean((w2[[0, 1, 2, 2]] - np.array([1.0, -2.0, 3.0, 3.0])) ** 2)
    assert result.final_loss == pytest.approx(expected_final, rel=1e-5)


def test_applying_a_run_is_one_edit_that_undoes_and_redoes_exactly():
    g = line_graph()
    result = train(g, 50, OptimizerSettings("adam"))
    old = g.node("w")
    edges = g.edges
    events = []
    g.events.subscribe(events.append)
    edit = trained_edit(g, result.values)
    assert g.node("w") is old   # described, not applied
    edit.redo(g)
    new = g.node("w")
    assert new.kind == "literal" and new.trainable and new.name == "weights" and g.edges == edges
    np.testing.assert_array_equal(new.value, result.values["w"])
    assert sum(isinstance(e, E.TypesChanged) for e in events) == 1   # one batch
    edit.undo(g)
    assert g.node("w") is old and g.edges == edges
    edit.redo(g)
    assert g.node("w") is new
    assert Backward(Engine(g)).run().loss == pytest.approx(result.final_loss, rel=1e-5)


def test_a_trained_literal_keeps_training_from_where_it_is():
    g = line_graph(generator=False)
    first = train(g, 30)
    apply_trained(g, first.values)
    second = train(g, 30)
    assert second.losses[0] == pytest.approx(first.final_loss, rel=1e-5)


def test_cancel_returns_the_steps_completed():
    g = line_graph()
    stop = threading.Event()

    def on_step(step):
        if step.step == 3:
            stop.set()

    result = train(g, 100, on_step=on_step, cancel=stop)
    assert result.cancelled and result.steps_done == 3 and len(result.losses) == 3 and not result.ok
    assert result.final_loss is None


def test_divergence_stops_the_run_with_a_message():
    g = line_graph()
    result = train(g, 200, OptimizerSettings("sgd", learning_rate=50.0))
    assert result.error is not None and "smaller learning rate" in result.error and result.steps_done < 200


def test_a_run_needs_a_loss_and_a_trainable_source():
    g = line_graph()
    g.set_trainable("w", False)
    with pytest.raises(BackwardSetupError, match="no tensor source is marked trainable"):
        TrainingRun(g)
    with pytest.raises(ValueError, match="non-negative integer"):
        TrainingRun(line_graph()).execute(-1)


def test_trained_values_must_fit_their_source():
    g = line_graph()
    with pytest.raises(ValueError, match="float32\\[4\\], the source gives float32\\[3\\]"):
        trained_edit(g, {"w": np.zeros(4, np.float32)})
    with pytest.raises(ValueError, match="only literal, generator, file and model tensor sources"):
        trained_edit(g, {"gather": np.zeros(4, np.float32)})


def test_a_runs_private_copy_reads_only_the_files_the_original_may(tmp_path):
    """A graph from someone else may not read files outside its folder until allowed: the
    copy a training run works on must not quietly allow them."""
    from nodeeditor.graph.training import private_copy

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    np.save(outside / "secret.npy", np.arange(3.0))
    (tmp_path / "graph").mkdir()
    g = Graph()
    g.file_path = tmp_path / "graph" / "g.ifg.json"
    g.add_file_source(str(outside / "secret.npy"), node_id="f")
    g.set_outside_files_allowed(False)
    assert g.node_info("f").error is not None                    # refused in the original
    copy = private_copy(g)
    assert not copy.outside_files_allowed and copy.node_info("f").error == g.node_info("f").error
    g.allow_file(str(outside / "secret.npy"))
    assert g.node_info("f").ok and private_copy(g).node_info("f").ok   # allowed one by one: so in the copy
