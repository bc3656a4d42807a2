"""Tensor viewer timings on 1e8-element tensors (offscreen).

Run: ``.venv/bin/python benchmarks/bench_viewer.py``. Prints how long the UI thread is busy
for each step; statistics and large differences run in the background and are timed
separately (until their signal arrives). The first touch of a fresh np.zeros array also
pays the page faults, so the arrays are filled with ones first.
"""
from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np
from PySide6 import QtWidgets

from nodeeditor.ui.viewer import TensorViewer, thumbnail


def timed(label: str, fn, app) -> float:
    start = time.perf_counter()
    fn()
    app.processEvents()
    elapsed = time.perf_counter() - start
    print(f"{label:55s} {elapsed * 1000:8.1f} ms")
    return elapsed


def timed_then_background(label: str, fn, signal, app, timeout: float = 60.0) -> None:
    """Time ``fn`` on the UI thread, then how long until ``signal`` (background work) fires."""
    fired = []
    signal.connect(lambda *args: fired.append(time.perf_counter()))
    start = time.perf_counter()
    timed(label, fn, app)
    while not fired and time.perf_counter() - start < timeout:
        app.processEvents()
        time.sleep(0.001)
    done = f"{(fired[0] - start) * 1000:8.1f} ms" if fired else "  (timed out)"
    print(f"{'  ... until the background result is shown':55s} {done}")


def median_set(label: str, viewer, tensors, app) -> float:
    """Median UI-thread time of ``set_tensor`` over ``tensors`` (the first one only warms
    up), each followed by painting; background work is waited for between the calls."""
    times = []
    for name, array in tensors:
        viewer.wait_for_background()
        app.processEvents()
        start = time.perf_counter()
        viewer.set_tensor(name, array)
        app.processEvents()
        times.append(time.perf_counter() - start)
    median = float(np.median(times[1:]))
    print(f"{label:55s} {median * 1000:8.1f} ms")
    return median


def main() -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    viewer = TensorViewer()
    viewer.resize(900, 650)
    viewer.show()
    app.processEvents()

    square = np.ones((10000, 10000), np.float32)
    timed_then_background("set_tensor 10000 x 10000 float32 (UI thread)",
                          lambda: viewer.set_tensor("square", square), viewer.statsReady, app)

    other = np.full((10000, 10000), 2.0, np.float32)
    median_set("set_tensor another 1e8 2-D tensor (same mode, median of 5)",
               viewer, [("other", other), ("square", square)] * 3, app)
    vector8 = np.ones(10**8, np.float32)
    median_set("set_tensor 1e8 2-D <-> 1e8 1-D (mode change, median of 6)",
               viewer, [("vector", vector8), ("square", square)] * 3 + [("vector", vector8)], app)
    del other, vector8

    cube = np.ones((100, 1000, 1000), np.float32)
    timed("set_tensor 100 x 1000 x 1000 float32", lambda: viewer.set_tensor("cube", cube), app)
    viewer.wait_for_background()
    steps = 20
    elapsed = timed(f"{steps} slider steps on the cube",
                    lambda: [viewer.controls.set_index(0, i) for i in range(steps)], app)
    print(f"{'  per slider step':55s} {elapsed / steps * 1000:8.1f} ms")
    timed("switch displayed axes to (0, 2)", lambda: viewer.controls.set_axes(0, 2), app)

    vector = np.ones(10**8, np.float32)
    timed("set_tensor 1e8 vector (min/max envelope)", lambda: viewer.set_tensor("vector", vector), app)
    viewer.wait_for_background()

    changed = square.copy()
    changed[1234, 4321] = 5.0
    viewer.set_tensor("square", square)
    viewer.pin()
    viewer.wait_for_background()
    timed_then_background("compare two 1e8 tensors (UI thread part)",
                          lambda: viewer.set_tensor("changed", changed), viewer.differenceReady, app)
    viewer.unpin()

    model = viewer.table_model
    viewer.set_tensor("square", square)
    viewer.wait_for_background()
    timed("table: format 40 x 12 visible cells", lambda: [model.data(model.index(r, c)) for r in range(5000, 5040)
                                                         for c in range(12)], app)
    timed("thumbnail 64 x 48 of the 1e8 tensor", lambda: thumbnail(square, 64, 48), app)
    import tempfile

    from nodeeditor.ui.viewer import saving

    with tempfile.TemporaryDirectory() as folder:
        block = np.random.default_rng(0).standard_normal((1000, 1000)).astype(np.float32)
        timed("save a 1000 x 1000 float32 slice as .csv (exact)",
              lambda: saving.save_csv(os.path.join(folder, "slice.csv"), block), app)
    viewer.close()
    viewer.wait_for_background()


if __name__ == "__main__":
    main()
