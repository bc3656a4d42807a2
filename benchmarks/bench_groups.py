"""Collapse Foreign Chains on the generated 5,000-node ONNX model (``bench_ui.big_model``): how
long the one undo step takes, its undo and redo, and what the canvas costs to pan and zoom
with the chains collapsed and expanded, measured interleaved in one process (medians).

    python benchmarks/bench_groups.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from PySide6 import QtWidgets

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ui import big_model, pan_and_zoom_steps, repaint_cost, wait_finished

from nodeeditor.ui.app import create_main_window


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    QtWidgets.QApplication.instance().processEvents()
    return time.perf_counter() - t0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    _app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    window = create_main_window()
    window.resize(1480, 900)
    window.show()
    wait_finished(window)
    rows: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.onnx"
        onnx.save(big_model(), str(path))
        assert window.files.open_path(path, ask=False)
        wait_finished(window)
        view = window.view
        view.frame(False, readable=False)
        groups = window.node_actions.groups
        pan, zoom = pan_and_zoom_steps(view)

        for _ in range(args.repeat):
            rows.setdefault("overview pan, expanded", []).append(repaint_cost(window, pan))
            rows.setdefault("overview zoom, expanded", []).append(repaint_cost(window, zoom))
            made: list[str] = []
            members = 0
            rows.setdefault("Collapse Foreign Chains", []).append(
                timed(lambda m=made: m.extend(groups.collapse_foreign_chains())))
            members = sum(len(window.graph.frame(f).nodes) for f in made)
            rows.setdefault("overview pan, collapsed", []).append(repaint_cost(window, pan))
            rows.setdefault("overview zoom, collapsed", []).append(repaint_cost(window, zoom))
            rows.setdefault("undo", []).append(timed(window.undo_stack.undo))
            rows.setdefault("redo", []).append(timed(window.undo_stack.redo))
            rows.setdefault("undo again", []).append(timed(window.undo_stack.undo))
        print(f"{len(window.graph.nodes)} graph nodes; {len(made)} chains of {members} nodes collapsed")
    for name, values in rows.items():
        unit = 1000.0
        print(f"  {name}: median {np.median(values) * unit:.1f} ms (runs: "
              + ", ".join(f"{v * unit:.0f}" for v in values) + ")")
    window.discard_changes()
    window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
