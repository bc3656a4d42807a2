"""The background runner: results arrive off the UI thread, stale ones are dropped, long
runs show progress and can be cancelled."""
from __future__ import annotations

import threading
import time

import numpy as np

import ops
from nodeeditor.graph import NodeStatus


def _wire(w):
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.graph.connect("g", "output", "out", "value")


def _slow_kernel(seconds: float, threads: list):
    def kernel(op, inputs, attrs):
        threads.append(threading.current_thread().name)
        time.sleep(seconds)
        return ops.run_op(op, inputs, attrs)
    return kernel


class GatedKernel:
    """A kernel that computes only once the test opens its gate (a long node whose length the
    test decides, whatever the machine's load): ``entered`` is set when a call starts,
    ``left`` when one returns."""

    def __init__(self):
        self.gate, self.entered, self.left = threading.Event(), threading.Event(), threading.Event()

    def __call__(self, op, inputs, attrs):
        self.entered.set()
        self.gate.wait(60)
        self.left.set()
        return ops.run_op(op, inputs, attrs)


def test_stale_result_is_dropped_and_the_newest_wins(small, qtbot):
    w = small
    _wire(w)
    w.runner.wait()
    threads: list[str] = []
    w.runner.engine.kernel = _slow_kernel(0.5, threads)
    finished = []
    w.runner.finished.connect(lambda r: finished.append((r.generation, w.graph.generation)))
    started = []
    w.runner.runStarted.connect(lambda: started.append(1))
    with qtbot.waitSignal(w.runner.runStarted, timeout=10000):
        w.graph.set_attribute("g", "axis", 1)
    assert w.runner.busy
    assert w.scene.node_state("g")[0] == NodeStatus.RUNNING
    w.graph.set_attribute("g", "axis", 0)          # while the first run is busy
    assert w.runner.wait(30)
    assert len(started) >= 2
    assert finished and all(gen == now for gen, now in finished)
    assert len(finished) == 1                      # the stale run's result never arrived
    assert w.runner.value("out").shape == (2, 4)  # axis 0, the latest edit
    assert threads and all(name.startswith("indexflow-run") for name in threads)
    assert w.scene.node_state("g")[0] == NodeStatus.OK


def _start_slow_run(w, qtbot) -> GatedKernel:
    """Wire the small graph, give it a kernel that waits for the test's gate, edit, and wait
    until the run shows its Cancel button; returns the kernel."""
    _wire(w)
    w.runner.wait()
    kernel = w.runner.engine.kernel = GatedKernel()
    w.graph.set_source("idx", value=np.array([1, 1], np.int64))
    qtbot.waitUntil(lambda: w.run_status.cancel_button.isVisible(), timeout=10000)
    return kernel


def test_long_run_shows_progress_and_cancel(small, qtbot):
    w = small
    kernel = _start_slow_run(w, qtbot)
    assert w.run_status.progress.isVisible()
    w.run_status.cancel_button.click()
    kernel.gate.set()                              # the node under way ends; the run stops after it
    assert w.runner.wait(30)
    assert not w.run_status.cancel_button.isVisible()
    # g may have finished; the output after it was not evaluated
    assert w.scene.node_state("out")[0] == NodeStatus.STALE
    assert "cancelled" in w.statusBar().currentMessage()
    w.runner.engine.kernel = ops.run_op
    w.run_action.trigger()                         # F5 evaluates again
    assert w.runner.wait(30)
    assert w.scene.node_state("out")[0] == NodeStatus.OK
    assert w.runner.value("out").tolist() == [[4, 5, 6, 7], [4, 5, 6, 7]]


def test_cancel_during_one_long_node_returns_at_once(small, qtbot, monkeypatch):
    """The Cancel button does not wait for a long kernel to finish: the node is abandoned
    (watched nodes poll the flag; the threshold is lowered so this small graph counts)."""
    from nodeeditor.graph import engine as engine_module

    monkeypatch.setattr(engine_module, "WATCH_MIN_ELEMENTS", 1)
    w = small
    kernel = _start_slow_run(w, qtbot)
    qtbot.waitUntil(kernel.entered.is_set, timeout=10000)
    w.run_status.cancel_button.click()
    assert w.runner.wait(30)
    assert not kernel.left.is_set()              # the run ended while its kernel still computes
    kernel.gate.set()
    assert w.scene.node_state("g")[0] == NodeStatus.STALE and w.scene.node_state("out")[0] == NodeStatus.STALE
    assert "cancelled" in w.statusBar().currentMessage()
    w.runner.engine.kernel = ops.run_op
    w.run_action.trigger()
    assert w.runner.wait(30)
    assert w.runner.value("out").tolist() == [[4, 5, 6, 7], [4, 5, 6, 7]]


def test_graph_replaced_while_running(small, qtbot):
    w = small
    _wire(w)
    w.runner.wait()
    w.runner.engine.kernel = _slow_kernel(0.3, [])
    with qtbot.waitSignal(w.runner.runStarted, timeout=10000):
        w.graph.set_attribute("g", "axis", 1)
    w.files.open_example("embedding_lookup")
    assert w.runner.wait(30)
    assert w.runner.last_result is not None and w.runner.last_result.generation == w.graph.generation
    assert w.runner.value("lookup") is not None
