"""The backward pass: gradients against central finite differences of the forward pass
(float64), the training switch, the loss coefficient, fan-out, several losses, the cache,
cancellation, progress and the messages for what is missing."""
import threading

import numpy as np
import pytest

import ops
from nodeeditor.graph import Backward, BackwardSetupError, Engine, Graph

RNG = np.random.default_rng(5)


def fan_graph(dtype=np.float64):
    """table -> a (Gather rows 0, 2) -> sum.data; table -> b (Gather rows 2, 3) -> c (GatherElements)
    -> sum.updates; sum (ScatterElements add) -> loss (mean squared error against target)."""
    g = Graph("fan")
    g.add_literal(RNG.normal(size=(4, 3)).astype(dtype), name="table", node_id="table")
    g.set_trainable("table", True)
    g.add_literal(np.array([0, 2]), node_id="a_ids")
    g.add_literal(np.array([2, 3]), node_id="b_ids")
    g.add_literal(np.array([[0, 1, 2], [2, 1, 0]]), node_id="cols")
    g.add_literal(np.array([[0, 1, 1], [1, 0, 0]]), node_id="rows")
    g.add_literal(RNG.normal(size=(2, 3)).astype(dtype), name="target", node_id="target")
    g.add_operator("Gather", name="a", node_id="a")
    g.add_operator("Gather", name="b", node_id="b")
    g.add_operator("GatherElements", {"axis": 1}, name="c", node_id="c")
    g.add_operator("ScatterElements", {"reduction": "add"}, name="sum", node_id="sum")
    g.add_loss("mean_squared_error", node_id="loss")
    for src, dst, port in (("table", "a", "data"), ("a_ids", "a", "indices"), ("table", "b", "data"),
                           ("b_ids", "b", "indices"), ("b", "c", "data"), ("cols", "c", "indices"),
                           ("a", "sum", "data"), ("rows", "sum", "indices"), ("c", "sum", "updates"),
                           ("sum", "loss", "prediction"), ("target", "loss", "target")):
        g.connect(src, "output", dst, port)
    return g


def _loss(g):
    engine = Engine(g, keep_intermediates=True)
    engine.run()
    return float(engine.value("loss"))


def finite_difference(g, source, eps=1e-6):
    base = np.array(g.node(source).value, dtype=np.float64)
    grad = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        up, down = base.copy(), base.copy()
        up[i] += eps
        down[i] -= eps
        g.set_source(source, value=up)
        hi = _loss(g)
        g.set_source(source, value=down)
        lo = _loss(g)
        grad[i] = (hi - lo) / (2 * eps)
    g.set_source(source, value=base)
    return grad


def test_gradients_through_fan_out_equal_finite_differences():
    g = fan_graph()
    result = Backward(Engine(g)).run()
    assert result.ok and result.sources == ("table",)
    np.testing.assert_allclose(result.source_gradients()["table"], finite_difference(g, "table"), rtol=1e-6,
                               atol=1e-9)
    assert result.loss == pytest.approx(_loss(g), rel=1e-12)


def test_training_off_blocks_the_gradient_through_that_node_only():
    g = fan_graph()
    g.set_training("b", False)
    got = Backward(Engine(g)).run().source_gradients()["table"]
    # oracle: the same graph with b reading a frozen copy of the table (a constant)
    frozen = fan_graph()
    frozen.set_source("table", value=g.node("table").value)
    frozen.set_source("target", value=g.node("target").value)
    frozen.add_literal(g.node("table").value, node_id="frozen_table")
    frozen.disconnect("b", "data")
    frozen.connect("frozen_table", "output", "b", "data")
    np.testing.assert_allclose(got, finite_difference(frozen, "table"), rtol=1e-6, atol=1e-9)
    assert not got[3].any()   # row 3 is read only through b


def test_the_coefficient_scales_what_a_node_sends_exactly():
    g = Graph("one")
    g.add_literal(RNG.normal(size=(4, 3)).astype(np.float32), node_id="table")
    g.set_trainable("table", True)
    g.add_literal(np.array([1, 1, 3]), node_id="ids")
    g.add_operator("Gather", node_id="gather")
    g.add_loss("sum", node_id="loss")
    for src, dst, port in (("table", "gather", "data"), ("ids", "gather", "indices"), ("gather", "loss", "prediction")):
        g.connect(src, "output", dst, port)
    backward = Backward(Engine(g))
    plain = backward.run().source_gradients()["table"]
    np.testing.assert_array_equal(plain[1], [2, 2, 2])   # row 1 read twice, d sum = 1 each
    for coefficient in (3.0, -0.25, 0.0):
        g.set_loss_coefficient("gather", coefficient)
        scaled = backward.run().source_gradients()["table"]
        np.testing.assert_array_equal(scaled, np.float32(coefficient) * plain)
    g2 = fan_graph(np.float32)   # on an inner node of a longer path: a power of two stays exact
    b2 = Backward(Engine(g2))
    before = b2.run()
    g2.set_loss_coefficient("c", 0.5)
    after = b2.run()
    np.testing.assert_array_equal(after.gradient("b"), 0.5 * before.gradient("b"))
    np.testing.assert_array_equal(after.gradient("a"), before.gradient("a"))


def test_a_source_feeding_two_ports_of_one_node_gets_both_gradients():
    g = Graph("both")
    g.add_literal(np.array([1.0, 2.0, 3.0]), node_id="x")
    g.set_trainable("x", True)
    g.add_literal(np.array([2, 0, 2]), node_id="idx")
    g.add_operator("ScatterElements", {"reduction": "add"}, node_id="s")
    g.add_loss("sum", node_id="loss")
    for src, port in (("x", "data"), ("idx", "indices"), ("x", "updates")):
        g.connect(src, "output", "s", port)
    g.connect("s", "output", "loss", "prediction")
    # sum(out) = sum(x) + sum(x): d x = 1 (as data) + 1 (as updates) = 2 everywhere
    np.testing.assert_array_equal(Backward(Engine(g)).run().source_gradients()["x"], [2.0, 2.0, 2.0])


def test_several_losses_add_up():
    g = fan_graph()
    g.add_loss("sum", node_id="loss2")
    g.connect("a", "output", "loss2", "prediction")
    result = Backward(Engine(g)).run()
    engine = Engine(g, keep_intermediates=True)
    engine.run()
    assert result.losses == {"loss": pytest.approx(float(engine.value("loss"))),
                             "loss2": pytest.approx(float(engine.value("loss2")))}
    assert result.loss == pytest.approx(sum(result.losses.values()))
    np.testing.assert_allclose(result.source_gradients()["table"], finite_difference_total(g), rtol=1e-6, atol=1e-9)


def finite_difference_total(g, eps=1e-6):
    base = np.array(g.node("table").value)
    grad = np.zeros_like(base)
    for i in np.ndindex(base.shape):
        totals = []
        for step in (eps, -eps):
            moved = base.copy()
            moved[i] += step
            g.set_source("table", value=moved)
            engine = Engine(g, keep_intermediates=True)
            engine.run()
            totals.append(float(engine.value("loss")) + float(engine.value("loss2")))
        grad[i] = (totals[0] - totals[1]) / (2 * eps)
    g.set_source("table", value=base)
    return grad


class CountingVjp:
    def __init__(self):
        self.calls = []

    def __call__(self, op, inputs, attrs, grad):
        self.calls.append(op)
        return ops.vjp(op, inputs, attrs, grad)


def test_a_second_pass_comes_from_the_cache_and_an_edit_recomputes_only_upstream_of_it():
    g = fan_graph()
    vjp = CountingVjp()
    backward = Backward(Engine(g), vjp=vjp)
    first = backward.run()
    assert first.recomputed == {"table", "a", "b", "c", "sum", "loss"}
    assert len(vjp.calls) == 4
    again = backward.run()
    assert again.recomputed == frozenset() and len(vjp.calls) == 4
    np.testing.assert_array_equal(again.source_gradients()["table"], first.source_gradients()["table"])
    g.set_loss_coefficient("c", 2.0)   # the forward pass is untouched; c and what is upstream of it redo
    third = backward.run()
    assert third.recomputed == {"c", "b", "table"} and third.forward.nodes["sum"].recomputed is False
    g.set_source("target", value=np.zeros((2, 3)))   # the loss changes: the whole path redoes
    assert backward.run().recomputed == {"table", "a", "b", "c", "sum", "loss"}


def test_cancel_before_and_during_the_backward_walk():
    g = fan_graph()
    backward = Backward(Engine(g, keep_intermediates=True))
    stop = threading.Event()
    stop.set()
    assert backward.run(cancel=stop).cancelled
    assert backward.engine.run().ok   # values cached and kept: the next run checks only backward nodes
    checks = []

    def cancel_at_the_third_backward_node():
        checks.append(1)
        return len(checks) > 2

    result = backward.run(cancel=cancel_at_the_third_backward_node)
    assert result.cancelled and not result.gradients and not result.ok
    finished = backward.run()   # the two nodes finished before the cancel are not done again
    assert finished.ok and finished.recomputed == {"c", "b", "a", "table"}


def test_progress_counts_the_backward_nodes():
    g = fan_graph()
    seen = []
    Backward(Engine(g)).run(progress=lambda done, total, node: seen.append((done, total, node)))
    backward_part = seen[-6:]
    assert [d for d, _, _ in backward_part] == [1, 2, 3, 4, 5, 6] and {t for _, t, _ in backward_part} == {6}
    assert backward_part[0][2] == "loss" and backward_part[-1][2] == "table"


def test_missing_loss_or_trainable_source_is_said():
    g = Graph("empty")
    g.add_literal(np.zeros(3), node_id="x")
    with pytest.raises(BackwardSetupError) as info:
        Backward(Engine(g)).plan()
    assert info.value.missing_loss and info.value.missing_sources
    assert "no Loss node" in str(info.value) and "no tensor source is marked trainable" in str(info.value)
    g.add_loss("sum", node_id="loss")
    g.connect("x", "output", "loss", "prediction")
    with pytest.raises(BackwardSetupError, match="^no tensor source is marked trainable"):
        Backward(Engine(g)).plan()
    g.add_literal(np.array([1, 2]), node_id="ints")
    g.set_trainable("ints", True)
    assert "no gradient" in g.node_info("ints").warnings[0]
    with pytest.raises(BackwardSetupError, match="no tensor source is marked trainable"):
        Backward(Engine(g)).plan()
    g.set_trainable("x", True)
    result = Backward(Engine(g)).run()
    assert result.ok and result.sources == ("x",)
    assert any("ints" in w and "left out" in w for w in result.warnings)


def test_a_forward_failure_is_reported_by_node():
    g = fan_graph()
    g.set_source("a_ids", value=np.array([0, 9]))
    result = Backward(Engine(g)).run()
    assert not result.ok and result.errors and "a" in result.errors[0][1] and "9" in result.errors[0][1]


def test_gradient_edges_are_the_float_wires_on_the_path_into_differentiable_inputs():
    from nodeeditor.graph.backward import gradient_edges

    g = fan_graph()
    want = {("table", "a", "data"), ("table", "b", "data"), ("b", "c", "data"), ("a", "sum", "data"),
            ("c", "sum", "updates"), ("sum", "loss", "prediction")}
    assert {(e.src, e.dst, e.dst_port) for e in gradient_edges(g)} == want
    g.set_training("c", False)   # nothing flows back through c, so none reaches b or its input either
    got = {(e.src, e.dst, e.dst_port) for e in gradient_edges(g)}
    assert got == want - {("b", "c", "data"), ("table", "b", "data")}
    g.remove_node("loss")
    assert gradient_edges(g) == frozenset()
