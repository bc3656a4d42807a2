"""The caching engine: incremental recomputation, errors and blocking, progress, cancel,
freeing intermediates, duplicate warnings."""
import threading

import numpy as np
import pytest

import ops
from nodeeditor.graph import Graph
from nodeeditor.graph.engine import Engine
from nodeeditor.graph.status import NodeStatus


class CountingKernel:
    """ops.run_op, counting calls per op node (by op name and call order)."""

    def __init__(self):
        self.calls = []

    def __call__(self, op, inputs, attrs):
        self.calls.append(op)
        return ops.run_op(op, inputs, attrs)


def chain_graph():
    """data -> Gather(axis 0) -> GatherElements -> out1, and an independent ScatterND -> out2."""
    g = Graph()
    g.add_literal(np.arange(12, dtype=np.float32).reshape(4, 3), node_id="data")
    g.add_literal(np.array([3, 0], np.int64), node_id="rows")
    g.add_operator("Gather", node_id="gather")
    g.add_literal(np.array([[2, 1, 0], [0, 0, 0]], np.int64), node_id="cols")
    g.add_operator("GatherElements", {"axis": 1}, node_id="elements")
    g.add_output("out1", node_id="out1")
    g.connect("data", "output", "gather", "data")
    g.connect("rows", "output", "gather", "indices")
    g.connect("gather", "output", "elements", "data")
    g.connect("cols", "output", "elements", "indices")
    g.connect("elements", "output", "out1", "value")
    g.add_literal(np.zeros(4, np.int64), node_id="z")
    g.add_literal(np.array([[1], [3]], np.int64), node_id="nd_idx")
    g.add_literal(np.array([7, 9], np.int64), node_id="nd_upd")
    g.add_operator("ScatterND", node_id="scatter")
    g.add_output("out2", node_id="out2")
    g.connect("z", "output", "scatter", "data")
    g.connect("nd_idx", "output", "scatter", "indices")
    g.connect("nd_upd", "output", "scatter", "updates")
    g.connect("scatter", "output", "out2", "value")
    return g


def expected_out1(data, rows, cols):
    picked = data[rows]                            # Gather axis 0
    return np.take_along_axis(picked, cols, axis=1)  # GatherElements axis 1


def test_values_match_an_independent_numpy_computation():
    g = chain_graph()
    r = Engine(g).run()
    assert r.ok
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(r.outputs["out1"], expected_out1(data, [3, 0], np.array([[2, 1, 0], [0, 0, 0]])))
    np.testing.assert_array_equal(r.outputs["out2"], [0, 7, 0, 9])


def test_changing_one_attribute_recomputes_only_that_node_and_downstream():
    g = chain_graph()
    k = CountingKernel()
    engine = Engine(g, keep_intermediates=True, kernel=k)
    engine.run()
    assert sorted(k.calls) == ["Gather", "GatherElements", "ScatterND"]
    k.calls.clear()
    engine.run()
    assert k.calls == []  # nothing changed, nothing recomputed
    g.set_attribute("elements", "axis", -1)  # same axis, new revision
    r = engine.run()
    assert k.calls == ["GatherElements"]
    assert r.nodes["elements"].recomputed and not r.nodes["gather"].recomputed
    assert not r.nodes["scatter"].recomputed
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    cols = np.array([[2, 1, 0], [0, 0, 0]])
    np.testing.assert_array_equal(engine.value("out1"), expected_out1(data, [3, 0], cols))
    k.calls.clear()
    g.set_source_value("rows", np.array([1, 2], np.int64))
    engine.run()
    assert k.calls == ["Gather", "GatherElements"]
    np.testing.assert_array_equal(engine.value("out1"), expected_out1(data, [1, 2], cols))


def test_moving_a_node_recomputes_nothing():
    g = chain_graph()
    k = CountingKernel()
    engine = Engine(g, keep_intermediates=True, kernel=k)
    engine.run()
    k.calls.clear()
    g.set_position("gather", (300, 40))
    g.rename_node("gather", "rows of data")
    engine.run()
    assert k.calls == []


def test_a_failing_node_keeps_its_error_dependants_are_blocked_rest_runs():
    g = chain_graph()
    g.set_source_value("rows", np.array([7, 0], np.int64))  # 7 is out of range for 4 rows
    g.rename_node("gather", "pick rows")
    r = Engine(g).run()
    assert r.nodes["gather"].status == NodeStatus.ERROR
    msg = r.nodes["gather"].error
    assert msg.startswith("Gather: indices[0] = 7") and "pick rows" not in msg   # the node's own message
    assert r.nodes["gather"].error_port == "indices"
    assert dict(r.errors())["gather"] == "pick rows [gather]: " + msg             # named away from the node
    assert r.nodes["elements"].status == NodeStatus.BLOCKED
    assert r.nodes["out1"].status == NodeStatus.BLOCKED
    assert r.nodes["out2"].status == NodeStatus.OK
    assert "out1" not in r.outputs and "out2" in r.outputs
    assert [nid for nid, _ in r.errors()] == ["gather"]


def test_static_errors_are_reported_without_running_the_kernel():
    g = chain_graph()
    g.set_attribute("gather", "axis", 5)
    k = CountingKernel()
    r = Engine(g, kernel=k).run()
    assert "Gather" not in k.calls
    assert r.nodes["gather"].status == NodeStatus.ERROR and "axis" in r.nodes["gather"].error
    assert r.nodes["out1"].status == NodeStatus.BLOCKED


def test_progress_reports_each_computed_node():
    g = chain_graph()
    seen = []
    Engine(g).run(progress=lambda done, total, nid: seen.append((done, total, nid)))
    total = len(g.nodes)
    assert [d for d, _, _ in seen] == list(range(1, total + 1))
    assert {t for _, t, _ in seen} == {total}
    assert {nid for _, _, nid in seen} == set(g.node_ids)


def test_cancel_stops_and_leaves_the_rest_for_the_next_run():
    g = chain_graph()
    stop = threading.Event()
    k = CountingKernel()
    engine = Engine(g, keep_intermediates=True, kernel=k)

    def progress(done, total, nid):
        if nid == "gather":
            stop.set()

    r = engine.run(progress=progress, cancel=stop)
    assert r.cancelled and not r.ok
    assert r.nodes["elements"].status == NodeStatus.CANCELLED
    assert k.calls == ["Gather"]
    r2 = engine.run()
    assert r2.ok and sorted(k.calls) == ["Gather", "GatherElements", "ScatterND"]  # Gather not again
    assert engine.run(cancel=lambda: True).nodes["out1"].status == NodeStatus.OK  # all cached: nothing to cancel


def test_intermediates_are_freed_unless_kept():
    g = chain_graph()
    engine = Engine(g)
    engine.run()
    assert engine.value("gather") is None
    assert engine.value("out1") is not None
    kept = Engine(g)
    kept.run(keep=["gather"])
    assert kept.value("gather").shape == (2, 3)
    everything = Engine(g, keep_intermediates=True)
    everything.run()
    assert everything.value("gather") is not None


def test_freed_values_are_recomputed_when_needed_again():
    g = chain_graph()
    k = CountingKernel()
    engine = Engine(g, kernel=k)
    engine.run()
    k.calls.clear()
    engine.run()
    assert k.calls == []  # results are current, values not needed
    g.set_attribute("elements", "axis", -1)
    engine.run()
    assert k.calls == ["Gather", "GatherElements"]  # gather's value was freed


def test_targets_limit_the_run_to_what_they_need():
    g = chain_graph()
    k = CountingKernel()
    r = Engine(g, kernel=k).run(["out2"])
    assert k.calls == ["ScatterND"]
    assert set(r.nodes) == {"z", "nd_idx", "nd_upd", "scatter", "out2"}


def test_duplicate_targets_with_reduction_none_warn():
    g = Graph()
    g.add_literal(np.zeros(4, np.float32), node_id="d")
    g.add_literal(np.array([[1], [1]], np.int64), node_id="i")
    g.add_literal(np.array([5.0, 6.0], np.float32), node_id="u")
    g.add_operator("ScatterND", node_id="s")
    for port, src in (("data", "d"), ("indices", "i"), ("updates", "u")):
        g.connect(src, "output", "s", port)
    r = Engine(g).run()
    assert r.nodes["s"].status == NodeStatus.OK
    assert len(r.nodes["s"].warnings) == 1 and "1 target cell" in r.nodes["s"].warnings[0]
    g.set_attribute("s", "reduction", "add")
    r = Engine(g).run()
    assert r.nodes["s"].warnings == ()


def test_file_source_change_on_disk_is_noticed(tmp_path):
    path = tmp_path / "x.npy"
    np.save(path, np.array([1, 2, 3]))
    g = Graph()
    g.add_file_source(str(path), node_id="f")
    g.add_output("y", node_id="y")
    g.connect("f", "output", "y", "value")
    engine = Engine(g)
    assert engine.run().outputs["y"].tolist() == [1, 2, 3]
    np.save(path, np.array([4, 5, 6, 7]))
    import os
    os.utime(path, ns=(1, 10**18))
    assert engine.run().outputs["y"].tolist() == [4, 5, 6, 7]


def test_generation_marks_stale_results():
    g = chain_graph()
    engine = Engine(g)
    plan = engine.plan()
    g.set_attribute("gather", "axis", 0)
    result = engine.execute(plan)
    assert result.generation != g.generation


@pytest.mark.parametrize("generator,params,expected", [
    ("arange", {"start": 2, "stop": 8, "step": 2}, [2, 4, 6]),
    ("eye", {"n": 2, "dtype": "int32"}, [[1, 0], [0, 1]]),
    ("full", {"shape": [2], "value": 7, "dtype": "int64"}, [7, 7]),
])
def test_generators(generator, params, expected):
    g = Graph()
    n = g.add_generator(generator, params)
    engine = Engine(g, keep_intermediates=True)
    engine.run()
    assert engine.value(n).tolist() == expected


def test_seeded_random_generators_are_reproducible_and_permutation_is_unique():
    g = Graph()
    n = g.add_generator("permutation", {"n": 10, "seed": 3})
    u = g.add_generator("uniform", {"shape": [3], "seed": 1})
    e1, e2 = Engine(g, keep_intermediates=True), Engine(g, keep_intermediates=True)
    e1.run(), e2.run()
    assert sorted(e1.value(n).tolist()) == list(range(10))
    np.testing.assert_array_equal(e1.value(u), e2.value(u))
    np.testing.assert_array_equal(e1.value(u), np.random.default_rng(1).uniform(0, 1, 3).astype(np.float32))


def test_execute_on_a_worker_thread_while_the_graph_changes():
    g = chain_graph()
    engine = Engine(g, keep_intermediates=True)
    plan = engine.plan()
    results = []
    worker = threading.Thread(target=lambda: results.append(engine.execute(plan)))
    worker.start()
    g.set_source_value("rows", np.array([0, 0], np.int64))  # the plan holds the old value
    worker.join(30)
    (result,) = results
    assert result.ok and result.generation != g.generation  # stale: the view drops it
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(result.outputs["out1"],
                                  expected_out1(data, [3, 0], np.array([[2, 1, 0], [0, 0, 0]])))
    fresh = engine.run()
    np.testing.assert_array_equal(fresh.outputs["out1"],
                                  expected_out1(data, [0, 0], np.array([[2, 1, 0], [0, 0, 0]])))


def test_removed_nodes_leave_the_cache_and_a_new_node_with_the_same_id_is_computed():
    g = chain_graph()
    k = CountingKernel()
    engine = Engine(g, keep_intermediates=True, kernel=k)
    engine.run()
    g.remove_node("gather")
    engine.run()
    assert "gather" not in engine._cache
    g.add_operator("Gather", {"axis": 1}, node_id="gather")
    g.connect("data", "output", "gather", "data")
    g.connect("rows", "output", "gather", "indices")
    k.calls.clear()
    r = engine.run(["gather"])
    assert k.calls == ["Gather"] and r.nodes["gather"].recomputed
    other = Graph()
    other.add_literal(np.zeros(4, np.float32), node_id="data")  # a node object from another graph
    moved = other.remove_node("data").node
    g.remove_node("data")
    g.add_node(moved)
    assert engine.run(["data"]).nodes["data"].recomputed


def test_blocked_messages_name_the_node_they_wait_for():
    g = chain_graph()
    g.set_source_value("rows", np.array([7, 0], np.int64))
    g.rename_node("gather", "pick rows")
    r = Engine(g).run()
    assert r.nodes["elements"].error == "input 'data' waits for pick rows [gather], which failed"
    assert r.nodes["out1"].error == "input 'value' waits for elements, which is blocked"
    assert r.message("out1") == "out1: input 'value' waits for elements, which is blocked"


def test_a_missing_file_is_an_error_until_it_appears(tmp_path):
    g = Graph()
    g.add_file_source(str(tmp_path / "later.npy"), node_id="f")
    engine = Engine(g)
    r = engine.run()
    assert r.nodes["f"].status == NodeStatus.ERROR and "not found" in r.nodes["f"].error
    np.save(tmp_path / "later.npy", np.array([1.5]))
    assert Engine(g, keep_intermediates=True).run().nodes["f"].status == NodeStatus.OK
    assert engine.run().nodes["f"].status == NodeStatus.OK


def test_running_out_of_memory_is_a_node_error_and_the_rest_runs():
    """A kernel that cannot allocate its result fails that node with a plain message; an
    independent branch still runs."""
    def kernel(op, inputs, attrs):
        if op == "GatherElements":
            raise MemoryError("Unable to allocate 37.3 GiB")
        return ops.run_op(op, inputs, attrs)

    g = chain_graph()
    r = Engine(g, keep_intermediates=True, kernel=kernel).run()
    assert r.nodes["elements"].status == NodeStatus.ERROR
    assert "not enough memory" in r.nodes["elements"].error and "internal error" not in r.nodes["elements"].error
    assert r.nodes["scatter"].status == NodeStatus.OK and r.nodes["gather"].status == NodeStatus.OK


def test_cancel_abandons_a_long_node_at_once_and_keeps_the_cache(monkeypatch):
    """A large node computes on a helper thread: cancelling mid-way returns within a poll,
    reports it and what follows as cancelled, and caches nothing from it; the next run
    computes it again."""
    import threading

    from nodeeditor.graph import engine as engine_module

    monkeypatch.setattr(engine_module, "WATCH_MIN_ELEMENTS", 1)  # every node counts as large
    entered, release, left = threading.Event(), threading.Event(), threading.Event()
    calls = []

    def slow_kernel(op, inputs, attrs):
        calls.append(op)
        if len(calls) == 1:  # "a 1e8-element kernel": it ends when the test lets it
            entered.set()
            release.wait(60)
            left.set()
        return ops.run_op(op, inputs, attrs)

    g = chain_graph()
    engine = Engine(g, keep_intermediates=True, kernel=slow_kernel)
    r = engine.run(cancel=entered.is_set)  # cancelled once the long kernel is running
    returned_while_it_ran = not left.is_set()
    release.set()
    assert returned_while_it_ran  # returned on cancel, not after the kernel
    assert r.cancelled
    first = calls[0]
    node = next(s for s in engine.plan().steps if s.op == first).node_id
    assert r.nodes[node].status == NodeStatus.CANCELLED and engine.value(node) is None
    again = engine.run()
    assert not again.cancelled and all(n.status == NodeStatus.OK for n in again.nodes.values())
    np.testing.assert_array_equal(again.outputs["out2"], [0, 7, 0, 9])


def test_small_nodes_and_runs_without_cancel_stay_on_the_calling_thread(monkeypatch):
    import threading

    threads = []

    def kernel(op, inputs, attrs):
        threads.append(threading.current_thread())
        return ops.run_op(op, inputs, attrs)

    g = chain_graph()
    Engine(g, kernel=kernel).run(cancel=threading.Event())   # small: no helper thread
    Engine(g, kernel=kernel).run()                           # no cancel flag: nothing to watch
    assert set(threads) == {threading.current_thread()}


def test_a_cancelled_long_node_is_adopted_by_the_next_run_when_its_key_is_unchanged(monkeypatch):
    """An edit downstream cancels the run while an upstream node computes; the next run picks
    that computation up instead of starting it again (the kernel runs once)."""
    import threading

    from nodeeditor.graph import engine as engine_module

    monkeypatch.setattr(engine_module, "WATCH_MIN_ELEMENTS", 1)
    calls = []
    entered, release = threading.Event(), threading.Event()

    def kernel(op, inputs, attrs):
        calls.append(op)
        if op == "Gather":  # a long computation: it ends when the test lets it
            entered.set()
            release.wait(60)
        return ops.run_op(op, inputs, attrs)

    g = chain_graph()
    engine = Engine(g, keep_intermediates=True, kernel=kernel)
    # cancelled while the Gather computes
    assert engine.run(targets=["out1"], cancel=entered.is_set).cancelled
    g.set_attribute("elements", "axis", -1)                      # downstream of gather only
    release.set()
    r = engine.run(targets=["out1"], cancel=threading.Event())
    assert not r.cancelled and r.nodes["gather"].status == NodeStatus.OK
    assert calls.count("Gather") == 1
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(r.outputs["out1"], expected_out1(data, [3, 0], np.array([[2, 1, 0], [0, 0, 0]])))


def test_edits_that_cancel_a_long_node_again_and_again_never_pile_computations_up(monkeypatch):
    import threading
    import time

    from nodeeditor.graph import engine as engine_module

    monkeypatch.setattr(engine_module, "WATCH_MIN_ELEMENTS", 1)
    running = []
    most = []
    lock = threading.Lock()

    def kernel(op, inputs, attrs):
        if op == "Gather":
            with lock:
                running.append(1)
                most.append(len(running))
            time.sleep(0.3)
            with lock:
                running.pop()
        return ops.run_op(op, inputs, attrs)

    g = chain_graph()
    engine = Engine(g, keep_intermediates=True, kernel=kernel)
    for axis in (0, -2, 0, -2):                                   # each edit changes gather's key
        g.set_attribute("gather", "axis", axis)
        gathers = len(most)
        # cancelled once this run's Gather computes (it goes on for 0.3 s after the run returns)
        assert engine.run(targets=["out1"], cancel=lambda before=gathers: len(most) > before).cancelled
    r = engine.run(targets=["out1"], cancel=threading.Event())
    assert not r.cancelled and r.nodes["out1"].status == NodeStatus.OK
    assert max(most) == 1                                          # one Gather at a time, ever


def test_out_of_memory_is_not_remembered_as_the_nodes_result():
    """MemoryError is this run's error, but the next run tries again (memory may be free)."""
    state = {"fail": True}

    def kernel(op, inputs, attrs):
        if op == "ScatterND" and state["fail"]:
            raise MemoryError("no room")
        return ops.run_op(op, inputs, attrs)

    g = chain_graph()
    engine = Engine(g, keep_intermediates=True, kernel=kernel)
    assert "not enough memory" in engine.run().nodes["scatter"].error
    state["fail"] = False
    r = engine.run()
    assert r.nodes["scatter"].status == NodeStatus.OK and r.nodes["scatter"].recomputed
    np.testing.assert_array_equal(r.outputs["out2"], [0, 7, 0, 9])


def test_a_node_fed_twice_by_one_source_is_evaluated():
    """Gather of a tensor by itself (data and indices from one node): the topological order
    counted that node's inputs per edge but released it per source, so it never ran. Found by
    the random-edit property test."""
    g = Graph()
    t = g.add_literal(np.array([2, 0, 1], np.int64))
    op = g.add_operator("Gather")
    g.connect(t, "output", op, "data")
    g.connect(t, "output", op, "indices")
    out = g.add_output("y")
    g.connect(op, "output", out, "value")
    assert g.topological_order() == [t, op, out]
    np.testing.assert_array_equal(Engine(g).run().outputs["y"], [1, 2, 0])   # t[t]


def test_an_error_in_one_branch_leaves_the_others_running():
    # data [[0,1,2],[3,4,5]]; A reads row 7 (out of range), B row 0, C has no indices wired.
    g = Graph()
    g.add_literal(np.arange(6, dtype=np.float32).reshape(2, 3), node_id="d")
    g.add_literal(np.array([7]), node_id="bad")
    g.add_literal(np.array([0]), node_id="ok")
    for op in "ABC":
        g.add_operator("Gather", node_id=op)
        g.connect("d", "output", op, "data")
        g.add_output(f"o{op}", node_id=f"o{op}")
        g.connect(op, "output", f"o{op}", "value")
    g.connect("bad", "output", "A", "indices")
    g.connect("ok", "output", "B", "indices")
    engine = Engine(g)
    result = engine.run()
    assert not result.ok
    status = {k: r.status for k, r in result.nodes.items()}
    assert status["A"] == status["C"] == NodeStatus.ERROR and status["oA"] == status["oC"] == NodeStatus.BLOCKED
    assert status["B"] == NodeStatus.OK
    np.testing.assert_array_equal(result.outputs["oB"], [[0, 1, 2]])
    errors = dict(result.errors())
    assert "7" in errors["A"] and "not connected" in errors["C"]

    # After edits the cache gives the new values, never stale ones.
    g.set_source_value("ok", np.array([1]))
    np.testing.assert_array_equal(engine.run().outputs["oB"], [[3, 4, 5]])
    g.connect("ok", "output", "C", "indices")
    np.testing.assert_array_equal(engine.run().outputs["oC"], [[3, 4, 5]])
    g.set_attribute("B", "axis", 1)  # column 1 of each row
    np.testing.assert_array_equal(engine.run().outputs["oB"], [[1], [4]])
    g.disconnect("B", "indices")
    result = engine.run()
    assert "oB" not in result.outputs and result.nodes["B"].status == NodeStatus.ERROR
    g.set_source_value("bad", np.array([-2]))  # -2 is row 0
    np.testing.assert_array_equal(engine.run().outputs["oA"], [[0, 1, 2]])


def test_a_shape_error_is_told_once_on_the_node_with_the_port_it_is_about():
    """A node named like its op ("TensorScatter") read ``TensorScatter: TensorScatter: ...``:
    the node's message is the op's, once; its label is added only away from the node."""
    g = Graph(opset=24)
    g.add_literal(np.zeros((2, 4, 3), np.float32), node_id="cache")
    g.add_literal(np.zeros((2, 1, 5), np.float32), node_id="upd")
    g.add_operator("TensorScatter", node_id="ts", name="TensorScatter")
    g.connect("cache", "output", "ts", "past_cache")
    g.connect("upd", "output", "ts", "update", force=True)
    info = g.node_info("ts")
    assert info.error.count("TensorScatter") == 1 and info.error_port == "update"
    r = Engine(g).run()
    assert r.nodes["ts"].error == info.error and r.nodes["ts"].error_port == "update"
    assert r.message("ts") == "TensorScatter [ts]: " + info.error
