"""Opening a file reads it on a worker thread: a slow read shows a progress dialog while the
window keeps handling events, and Cancel leaves the open graph as it was."""
from __future__ import annotations

import threading

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import Graph, save_graph


def _graph_file(tmp_path):
    g = Graph(name="slow one")
    g.add_literal(np.arange(6, dtype=np.float32), node_id="x")
    g.add_output("y", node_id="y")
    g.connect("x", "output", "y", "value")
    return save_graph(g, tmp_path / "slow.ifg.json")


def _slow_read(w, monkeypatch):
    """``w.files.read`` made to wait until the returned event is set."""
    release = threading.Event()
    real = w.files.read

    def slow(path):
        release.wait(60)
        return real(path)

    monkeypatch.setattr(w.files, "read", slow)
    return release


def _dialog(w):
    return w.findChild(QtWidgets.QProgressDialog, "readingDialog")


def test_a_slow_read_shows_a_dialog_while_the_window_handles_events_then_opens(window, monkeypatch, tmp_path):
    w = window
    path = _graph_file(tmp_path)
    release = _slow_read(w, monkeypatch)
    seen = {}

    def while_reading():   # a timer event: it runs only if the window's events are handled meanwhile
        dialog = _dialog(w)
        seen["shown"] = dialog is not None and dialog.isVisible()
        seen["text"] = dialog.labelText() if dialog is not None else ""
        release.set()

    QtCore.QTimer.singleShot(0, while_reading)
    assert w.files.open_path(path, ask=False)
    assert seen == {"shown": True, "text": "Reading slow.ifg.json…"}
    assert w.graph.name == "slow one" and w.files.current_path == path
    assert _dialog(w) is None or not _dialog(w).isVisible()


def test_cancel_leaves_the_open_graph_as_it_was(window, monkeypatch, tmp_path):
    w = window
    before = w.graph
    path = _graph_file(tmp_path)
    release = _slow_read(w, monkeypatch)

    def press_cancel():
        button = _dialog(w).findChild(QtWidgets.QPushButton)
        QTest.mouseClick(button, QtCore.Qt.MouseButton.LeftButton)

    QtCore.QTimer.singleShot(0, press_cancel)
    try:
        assert not w.files.open_path(path, ask=False)
    finally:
        release.set()   # the worker ends on its own; its graph is dropped
    assert w.graph is before
    assert "cancelled" in w.statusBar().currentMessage()


def test_a_read_error_from_the_worker_is_the_usual_message(window, dialogs, tmp_path):
    w = window
    bad = tmp_path / "bad.ifg.json"
    bad.write_text("{not json")
    assert not w.files.open_path(bad, ask=False)
    assert "bad.ifg.json" in w.statusBar().currentMessage()
