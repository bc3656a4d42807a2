"""Editor responsiveness (not part of the test suite):

    .venv/bin/python benchmarks/bench_ui.py

1. open a generated 500-node graph file (load + build the canvas) and until it is evaluated;
2. re-evaluate after one attribute edit (an undo command) on a 1e6-element graph;
3. the longest stall of the UI thread while a 1e8-element ScatterElements runs, measured by a
   5 ms QTimer on the event loop (the gap between two ticks), from opening the graph until the
   result is on screen (runner finished, canvas and viewer updated): dock closed, open (the
   viewer then shows the 1e8-element output), closed again. The first run also pays for
   faulting in ~800 MB of fresh memory, so it is the slowest.

Runs offscreen unless QT_QPA_PLATFORM is set. State (settings, recovery) goes to a temp dir.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("INDEXFLOW_STATE_DIR", tempfile.mkdtemp(prefix="indexflow-bench-"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import argparse
import cProfile
import io
import pstats

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from PySide6 import QtCore, QtWidgets

from nodeeditor.graph import Graph, save_graph
from nodeeditor.ui import commands as C
from nodeeditor.ui.app import create_main_window


def generated_graph(nodes: int = 500) -> Graph:
    """Chains of 5 nodes: data and index sources -> Gather -> Gather (same indices) -> output."""
    g = Graph(name=f"generated {nodes}")
    for c in range(nodes // 5):
        y = c * 220.0
        d = g.add_generator("uniform", {"shape": [64, 32], "seed": c}, position=(0, y))
        i = g.add_generator("integers", {"shape": [16], "low": 0, "high": 16, "seed": c}, position=(0, y + 110))
        a = g.add_operator("Gather", {"axis": 0}, position=(300, y))
        b = g.add_operator("Gather", {"axis": 0}, position=(600, y))
        o = g.add_output(f"out{c}", position=(900, y))
        g.connect(d, "output", a, "data")
        g.connect(i, "output", a, "indices")
        g.connect(a, "output", b, "data")
        g.connect(i, "output", b, "indices")
        g.connect(b, "output", o, "value")
    assert len(g.nodes) == nodes
    return g


def wait_finished(window, timeout: float = 600.0) -> None:
    app = QtWidgets.QApplication.instance()
    deadline = time.monotonic() + timeout
    while window.runner.busy and time.monotonic() < deadline:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    app.processEvents()


def bench_open(window, folder: Path) -> tuple[float, float]:
    path = folder / "generated500.ifg.json"
    save_graph(generated_graph(500), path)
    app = QtWidgets.QApplication.instance()
    t0 = time.perf_counter()
    assert window.files.open_path(path, ask=False)
    app.processEvents()
    shown = time.perf_counter() - t0
    wait_finished(window)
    evaluated = time.perf_counter() - t0
    assert window.runner.last_result is not None and window.runner.last_result.ok
    return shown, evaluated


def bench_edit_1e6(window) -> tuple[float, int]:
    g = Graph(name="1e6")
    d = g.add_generator("uniform", {"shape": [1000, 1000], "seed": 1}, node_id="data")
    i = g.add_generator("integers", {"shape": [1000, 1000], "low": 0, "high": 1000, "seed": 2}, node_id="idx")
    op = g.add_operator("GatherElements", {"axis": 0}, node_id="ge", position=(300, 0))
    o = g.add_output("y", node_id="y", position=(600, 0))
    g.connect(d, "output", op, "data")
    g.connect(i, "output", op, "indices")
    g.connect(op, "output", o, "value")
    window.set_document(g, None)
    wait_finished(window)
    window.scene.select_nodes(["ge"])
    wait_finished(window)
    t0 = time.perf_counter()
    window.push(C.AttributeCommand(window.graph, "ge", "axis", 1))
    wait_finished(window)
    took = time.perf_counter() - t0
    recomputed = sum(1 for r in window.runner.last_result.nodes.values() if r.recomputed)
    assert window.runner.value("y").shape == (1000, 1000)
    return took, recomputed


def bench_stall_1e8(window) -> tuple[float, float, int]:
    g = Graph(name="1e8 scatter")
    d = g.add_generator("zeros", {"shape": [10_000, 10_000]}, node_id="data")
    i = g.add_generator("integers", {"shape": [100, 10_000], "low": 0, "high": 10_000, "seed": 3}, node_id="idx")
    u = g.add_generator("uniform", {"shape": [100, 10_000], "seed": 4}, node_id="upd")
    op = g.add_operator("ScatterElements", {"axis": 0, "reduction": "add"}, node_id="sc", position=(300, 0))
    o = g.add_output("y", node_id="y", position=(600, 0))
    for src, port in ((d, "data"), (i, "indices"), (u, "updates")):
        g.connect(src, "output", op, port)
    g.connect(op, "output", o, "value")
    app = QtWidgets.QApplication.instance()
    ticks: list[float] = []
    timer = QtCore.QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start()
    t0 = time.perf_counter()
    ticks.append(t0)
    window.set_document(g, None)       # the viewer shows the first output (1e8 elements) when it arrives
    wait_finished(window)
    total = time.perf_counter() - t0
    app.processEvents()
    timer.stop()
    gaps = np.diff(ticks)
    assert window.runner.value("y").size == 100_000_000
    return float(gaps.max()), total, len(ticks)


FOREIGN_CYCLE = ("Relu", "Neg", "Add", "Mul", "Abs", "Sigmoid", "Add", "Tanh")


def big_model(nodes: int = 5000, chains: int = 50, size: int = 16) -> onnx.ModelProto:
    """An ONNX model of ``nodes`` nodes: ``chains`` chains from one input ``x`` (float32[size]),
    each of foreign ops cycling through :data:`FOREIGN_CYCLE` (an Add or Mul adds the value
    from two ops back, a residual connection), with a Gather every 7th op and a
    ScatterElements every 11th (indices and updates: initializers of that chain), joined by a
    tree of Adds into the output ``y``. Each initializer feeds its own chain only, as the
    weights of a real model feed their own layer."""
    rng = np.random.default_rng(0)
    joins = chains - 1
    per_chain = (nodes - joins) // chains
    extra = nodes - joins - per_chain * chains
    made, ends, inits = [], [], []
    for c in range(chains):
        inits += [numpy_helper.from_array(rng.permutation(size).astype(np.int64), f"perm{c}"),
                  numpy_helper.from_array(rng.standard_normal(size).astype(np.float32), f"upd{c}")]
        before, prev = "x", "x"
        for i in range(per_chain + (1 if c < extra else 0)):
            out = f"c{c}_{i}"
            if i % 7 == 6:
                made.append(helper.make_node("Gather", [prev, f"perm{c}"], [out], name=out, axis=0))
            elif i % 11 == 10:
                made.append(helper.make_node("ScatterElements", [prev, f"perm{c}", f"upd{c}"], [out], name=out,
                                             axis=0))
            else:
                op = FOREIGN_CYCLE[(i + c) % len(FOREIGN_CYCLE)]
                made.append(helper.make_node(op, [prev, before] if op in ("Add", "Mul") else [prev], [out], name=out))
            before, prev = prev, out
        ends.append(prev)
    k = 0
    while len(ends) > 1:
        a, b = ends.pop(0), ends.pop(0)
        out = "y" if not ends else f"join{k}"
        made.append(helper.make_node("Add", [a, b], [out], name=f"join{k}"))
        ends.append(out)
        k += 1
    graph = helper.make_graph(made, f"generated {nodes}",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [size])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [size])], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    assert len(model.graph.node) == nodes
    return model


def pan_and_zoom_steps(view):
    """(pan, zoom): one step each, alternating direction so that repeats stay where they started
    (pan 120 pixels sideways, zoom by 1.15)."""
    bar = view.horizontalScrollBar()
    sign = [1]

    def pan() -> None:
        sign[0] = -sign[0]
        bar.setValue(bar.value() + sign[0] * 120)

    def zoom() -> None:
        factor = 1.15 if sign[0] > 0 else 1 / 1.15
        sign[0] = -sign[0]
        view.scale(factor, factor)

    return pan, zoom


def repaint_cost(window, change, repeat: int = 10) -> float:
    """Median seconds of ``change()`` plus a synchronous repaint of the canvas."""
    viewport = window.view.viewport()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        change()
        viewport.repaint()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def bench_onnx_model(window, folder: Path, profile: bool = False) -> dict[str, float]:
    from nodeeditor.onnx_io import foreign_runtime, import_model

    path = folder / "big.onnx"
    onnx.save(big_model(), str(path))
    t0 = time.perf_counter()
    graph = import_model(path)
    out = {"import": time.perf_counter() - t0, "graph nodes": float(len(graph.nodes))}
    foreign_runtime.clear_caches()     # the window opens the model as a fresh process would: no types known
    app = QtWidgets.QApplication.instance()
    profiler = cProfile.Profile() if profile else None
    painted: list[float] = []          # when each paint of the canvas showing the model ended
    view_paint = window.view.paintEvent
    before = window.graph

    def timed_paint(event) -> None:
        view_paint(event)
        if window.graph is not before:
            painted.append(time.perf_counter())

    window.view.paintEvent = timed_paint
    t0, cpu0 = time.perf_counter(), time.process_time()
    if profiler is not None:
        profiler.enable()
    assert window.files.open_path(path, ask=False)
    app.processEvents()                # the opening frame (a zero-delay timer) and the first paint
    window.view.viewport().repaint()
    if profiler is not None:
        profiler.disable()
    out["open"] = time.perf_counter() - t0
    # the end of the first paint after File > Import: what the person sees first (the first
    # run's plan, queued behind it, is not in it)
    out["first paint"] = painted[0] - t0
    del window.view.paintEvent
    out["open cpu"] = time.process_time() - cpu0   # every thread's (the import runs on a worker)
    wait_finished(window)
    out["evaluated"] = time.perf_counter() - t0
    assert window.runner.last_result is not None and window.runner.last_result.ok
    while getattr(window.scene, "building", False):   # the items not drawn yet are made after the first paint
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    out["items made"] = time.perf_counter() - t0
    view = window.view
    pan, zoom = pan_and_zoom_steps(view)

    out["zoom level"] = view.zoom
    out["pan"] = repaint_cost(window, pan)
    out["zoom"] = repaint_cost(window, zoom)
    view.frame(False, readable=False)  # View > Frame All: every node on screen
    out["overview zoom level"] = view.zoom
    out["overview pan"] = repaint_cost(window, pan)
    out["overview zoom"] = repaint_cost(window, zoom)
    if profiler is not None:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(30)
        print(text.getvalue())
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["onnx"], help="run one case only")
    parser.add_argument("--profile", action="store_true", help="profile opening the 5,000-node model")
    args = parser.parse_args()
    _app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])  # kept alive until main returns
    window = create_main_window()
    window.resize(1480, 900)
    window.show()
    wait_finished(window)
    with tempfile.TemporaryDirectory() as tmp:
        r = bench_onnx_model(window, Path(tmp), args.profile)
    print(f"5,000-node ONNX model ({r['graph nodes']:.0f} graph nodes): import {r['import']:.2f} s; "
          f"File > Import until the first paint {r['first paint']:.2f} s, "
          f"until shown and planned {r['open']:.2f} s (CPU {r['open cpu']:.2f} s), "
          f"until evaluated {r['evaluated']:.2f} s, every item made {r['items made']:.2f} s; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"  at zoom {r['zoom level']:.2f}: pan step {r['pan'] * 1000:.1f} ms, zoom step {r['zoom'] * 1000:.1f} ms; "
          f"overview (zoom {r['overview zoom level']:.3f}): pan step {r['overview pan'] * 1000:.1f} ms, "
          f"zoom step {r['overview zoom'] * 1000:.1f} ms")
    if args.only == "onnx":
        window.discard_changes()
        window.close()
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        shown, evaluated = bench_open(window, Path(tmp))
    print(f"open 500-node graph: canvas shown {shown * 1000:.0f} ms, evaluated {evaluated * 1000:.0f} ms")
    took, recomputed = bench_edit_1e6(window)
    print(f"1e6-element graph, one attribute edit -> result on screen: {took * 1000:.0f} ms "
          f"({recomputed} node(s) recomputed)")
    for label, dock_open in (("closed", False), ("open", True), ("closed", False)):
        window.viewer_dock.setVisible(dock_open)
        stall, total, ticks = bench_stall_1e8(window)
        print(f"1e8-element ScatterElements, viewer dock {label}: run + display {total:.2f} s, longest "
              f"UI-thread stall {stall * 1000:.0f} ms ({ticks} timer ticks)")
    window.discard_changes()
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
