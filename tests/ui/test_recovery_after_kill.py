"""The recovery file follows the edits: written a couple of seconds after the last one, so an
editor killed mid-session loses at most those seconds; a large graph is written off the UI
thread."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
from PySide6 import QtCore

from nodeeditor.graph import load_graph
from nodeeditor.ui import files as F

ROOT = Path(__file__).resolve().parents[2]

EDITOR = """
import sys
from PySide6 import QtCore
from nodeeditor.ui.app import create_main_window, ensure_application

app = ensure_application()
window = create_main_window()
window.show()
wanted, made = int(sys.argv[1]), [0]

def edit():
    window.edits.add_block("output", QtCore.QPointF(60 * made[0], 700))
    made[0] += 1
    if made[0] < wanted:
        QtCore.QTimer.singleShot(40, edit)
    else:
        print("edits done", flush=True)

QtCore.QTimer.singleShot(0, edit)
app.exec()
"""


def _outputs_in(path):
    try:
        return sum(1 for n in load_graph(path).nodes if n.kind == "output")
    except Exception:  # noqa: BLE001 - not written yet, or being replaced
        return -1


def test_an_editor_killed_mid_session_leaves_its_last_edits_in_the_recovery_file(tmp_path):
    state = tmp_path / "state"
    env = {**os.environ, "INDEXFLOW_STATE_DIR": str(state), "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("INDEXFLOW_RECOVERY_MS", None)          # the default: two seconds after the last edit
    editor = subprocess.Popen([sys.executable, "-c", EDITOR, "24"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        line = editor.stdout.readline()
        assert line.strip() == "edits done", editor.stderr.read() if editor.poll() is not None else line
        done = time.monotonic()
        recovery = state / "recovery" / f"recovery-{editor.pid}.ifg.json"
        before = 1  # the default example has one output; 24 were added
        while _outputs_in(recovery) != before + 24 and time.monotonic() - done < 20:
            time.sleep(0.1)
        written_after = time.monotonic() - done
    finally:
        editor.send_signal(signal.SIGKILL)
        editor.wait(timeout=30)
        editor.stdout.close()
        editor.stderr.close()
    assert _outputs_in(recovery) == before + 24, "the recovery file does not hold every edit"
    assert written_after < 20          # well inside the minute the old periodic write waited
    meta = recovery.with_name(f"recovery-{editor.pid}.json")
    assert meta.is_file()


def test_a_large_graph_is_written_on_a_background_thread(small, monkeypatch):
    w = small
    w.graph.add_literal(np.zeros((200, 200), np.float32), node_id="big")   # a sidecar
    w.edits.add_block("output", QtCore.QPointF(0, 0))
    threads = []
    real = F.write_graph_files

    def spy(*args, **kwargs):
        threads.append(threading.current_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(F, "write_graph_files", spy)
    path = w.files.write_recovery(wait=False)
    assert w.files.recovery_writer.wait(30)
    assert threads and threads[0] is not threading.main_thread()
    assert load_graph(path).node("big").value.shape == (200, 200)
    w.discard_changes()
    w.files.clear_recovery()
    assert not path.exists()


def test_edits_restart_the_delay_and_a_stream_of_edits_still_writes(small, qtbot, monkeypatch):
    w = small
    w.files.recovery_timer.setInterval(200)
    graph_path, _ = w.files.recovery_paths()
    start = time.monotonic()
    while time.monotonic() - start < 1.6:        # an edit every 50 ms, longer than 5 delays
        w.edits.add_block("output", QtCore.QPointF(0, 0))
        qtbot.wait(50)
        if graph_path.exists():
            break
    assert graph_path.exists(), "continuous edits postponed the recovery file for ever"
    w.discard_changes()
    w.files.clear_recovery()
