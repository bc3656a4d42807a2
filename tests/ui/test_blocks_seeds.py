"""Random blocks added one after another draw different values (each gets the next seed)."""
from __future__ import annotations

import numpy as np


def test_two_new_random_blocks_differ_and_stay_reproducible(window, qtbot):
    w = window
    w.new_action.trigger()
    first = w.edits.add_block("gen:normal", w.view.mapToScene(w.view.viewport().rect().center()))
    second = w.edits.add_block("gen:normal", w.view.mapToScene(w.view.viewport().rect().center()))
    w.runner.wait()
    a, b = w.runner.value(first), w.runner.value(second)
    assert a.shape == b.shape and not np.array_equal(a, b)
    seeds = [w.graph.node(n).params.get("seed", 0) for n in (first, second)]
    assert seeds == [0, 1]
    # the values are numpy's for those seeds: reproducible, not random per session
    np.testing.assert_array_equal(b, np.random.default_rng(1).normal(0.0, 1.0, a.shape).astype(np.float32))
    integers = w.edits.add_block("gen:integers", w.view.mapToScene(w.view.viewport().rect().center()))
    assert w.graph.node(integers).params.get("seed") == 2
    zeros = w.edits.add_block("gen:zeros", w.view.mapToScene(w.view.viewport().rect().center()))
    assert "seed" not in w.graph.node(zeros).params
