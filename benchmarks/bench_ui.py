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

import numpy as np
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


def main() -> int:
    _app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])  # kept alive until main returns
    window = create_main_window()
    window.show()
    wait_finished(window)
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
