"""Unexpected errors become a dialog (message + details), a log line, and the app lives on.
Also the pure helpers: fuzzy block search and the layered layout; and the app entry point."""
from __future__ import annotations

import sys

import pytest
from PySide6 import QtCore, QtWidgets

from nodeeditor.graph import load_example
from nodeeditor.ui import errors
from nodeeditor.ui import settings as S
from nodeeditor.ui.blocks import BLOCKS, search
from nodeeditor.ui.layout import layered_layout


@pytest.fixture
def shown(monkeypatch):
    calls = []
    monkeypatch.setattr(errors, "show_error", lambda parent, title, message, details: calls.append((message, details)))
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)   # restored afterwards
    return calls


@pytest.mark.qt_no_exception_capture
def test_exception_in_a_slot_is_reported_and_app_keeps_running(window, qtbot, shown):
    errors.install_excepthook(lambda: window, S.state_dir() / "indexflow.log")

    def boom():
        raise RuntimeError("kaboom from a slot")

    QtCore.QTimer.singleShot(0, boom)
    qtbot.waitUntil(lambda: bool(shown), timeout=10000)
    message, details = shown[-1]
    assert "RuntimeError: kaboom from a slot" in message
    assert "Traceback" in details and "boom" in details
    assert "kaboom" in (S.state_dir() / "indexflow.log").read_text()
    # still alive and editable
    window.edits.add_block("output", QtCore.QPointF(0, 0))
    assert window.isVisible()


def test_real_error_dialog_is_not_modal_blocking(window, qtbot):
    errors.show_error(window, "Unexpected error", "Something went wrong: X", "details here")
    box = next(w for w in QtWidgets.QApplication.topLevelWidgets()
               if isinstance(w, QtWidgets.QMessageBox) and w.isVisible())
    assert box.text() == "Something went wrong: X" and box.detailedText() == "details here"
    box.close()


def test_fuzzy_search_finds_blocks():
    assert search("gnd")[0].key == "op:GatherND"
    assert search("scel")[0].key == "op:ScatterElements"
    assert search("rand int")[0].key == "gen:integers"
    assert search("zzzz") == []
    assert len(search("")) == len(BLOCKS)


def test_layered_layout_points_every_edge_right():
    for name in ("kv_cache_write", "segment_sum", "scatterelements_examples"):
        graph = load_example(name)
        pos = layered_layout(graph)
        assert set(pos) == set(graph.node_ids)
        for e in graph.edges:
            assert pos[e.src][0] < pos[e.dst][0], (name, str(e))
        # no two nodes in a column overlap
        columns = {}
        for x, y in pos.values():
            columns.setdefault(x, []).append(y)
        for ys in columns.values():
            ys.sort()
            assert all(b - a >= 60 for a, b in zip(ys, ys[1:], strict=False))  # neighbouring pairs


RUN_APP_SCRIPT = """
import sys
from PySide6 import QtCore, QtWidgets
from nodeeditor.ui import app as A
from nodeeditor.ui.main_window import MainWindow

def quit_soon():
    window = next(w for w in QtWidgets.QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible())
    window.runner.wait()
    print("TITLE", window.windowTitle())
    print("EVALUATED", window.runner.last_result is not None and window.runner.last_result.ok)
    print("NODES", len(window.scene.node_items()))
    window.close()
    QtWidgets.QApplication.instance().quit()

A.ensure_application()
QtCore.QTimer.singleShot(300, quit_soon)
sys.exit(A.run_app(sys.argv[1] if len(sys.argv) > 1 else None))
"""


@pytest.mark.parametrize("arg", [None, "segment_sum"])
def test_run_app_opens_a_graph_evaluated_and_exits(arg, tmp_path):
    """In a subprocess: quitting the QApplication would stop timers for the rest of the session."""
    import os
    import subprocess
    from pathlib import Path

    from nodeeditor.graph import example_path

    root = Path(__file__).resolve().parents[2]
    args = [sys.executable, "-c", RUN_APP_SCRIPT] + ([str(example_path(arg))] if arg else [])
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", INDEXFLOW_STATE_DIR=str(tmp_path / "state"),
               PYTHONPATH=str(root))
    done = subprocess.run(args, capture_output=True, text=True, timeout=60, cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines() if " " in line)
    # a bundled example opened by its path is a template, as from the Examples menu
    expected = "Embedding look-up (example)[*] — IndexFlow" if arg is None else \
        "Segment sum and histogram (example)[*] — IndexFlow"
    assert lines["TITLE"] == expected
    assert lines["EVALUATED"] == "True" and int(lines["NODES"]) > 2


def test_closing_the_window_stops_the_viewers_background_jobs(window, qtbot):
    """A picture refinement still running in a Qt pool thread when the interpreter shuts
    down can crash the process (a CI run ended with a segfault after all tests passed):
    closing the window stops and waits for every viewer job and the engine's thread."""
    import numpy as np

    big = np.zeros((6000, 6000), np.float32)
    window.viewer.set_tensor("big", big)               # starts statistics and a refinement
    window.discard_changes()
    window.close()
    for job in (window.viewer._stats, window.viewer._diff_job, window.viewer._envelope_job, window.viewer._peak_job):
        assert not job.busy
    assert window.runner.shutdown(timeout=0)            # its thread has ended already
