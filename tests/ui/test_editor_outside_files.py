"""Opening a graph whose file sources name files outside its folder asks once whether to read
them; until allowed the nodes show the refusal; a file chosen in the property panel is read
wherever it is."""
from __future__ import annotations

import os

import numpy as np
from PySide6 import QtWidgets

from nodeeditor.graph import Graph, NodeStatus, save_graph
from nodeeditor.ui.app import create_main_window

MB = QtWidgets.QMessageBox


def _graph_with_outside_file(tmp_path):
    folder = tmp_path / "sent"
    folder.mkdir()
    np.save(folder / "inside.npy", np.arange(4.0))
    np.save(tmp_path / "private.npy", np.array([42.0, 43.0]))
    g = Graph(name="sent to you")
    g.add_file_source("inside.npy", node_id="inside", position=(0, 0))
    g.add_file_source("../private.npy", node_id="private", position=(0, 160))
    for src in ("inside", "private"):
        g.connect(src, "output", g.add_output(f"{src} out", node_id=f"{src}_out", position=(320, 0)), "value")
    return save_graph(g, folder / "sent.ifg.json")


def _open(qtbot, path):
    w = create_main_window(path)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.runner.wait()
    return w


def _shot(w, name):
    shots = os.environ.get("INDEXFLOW_SHOTS")
    if shots:
        w.grab().save(os.path.join(shots, name))


def test_refusing_leaves_the_outside_file_unread_and_says_why_on_the_node(qtbot, dialogs, tmp_path):
    path = _graph_with_outside_file(tmp_path)
    dialogs.answer = MB.StandardButton.No
    w = _open(qtbot, path)
    questions = dialogs.texts("question")
    assert len(questions) == 1 and "../private.npy" in questions[0] and "inside.npy" not in questions[0]
    qtbot.waitUntil(lambda: w.scene.node_state("inside")[0] == NodeStatus.OK)
    state, message = w.scene.node_state("private")
    assert state == NodeStatus.ERROR and "outside the graph's folder" in message
    assert w.runner.value("private") is None
    _shot(w, "outside_files_refused.png")
    w.discard_changes()


def test_allowing_reads_the_outside_file(qtbot, dialogs, tmp_path):
    path = _graph_with_outside_file(tmp_path)
    dialogs.answer = MB.StandardButton.Yes
    w = _open(qtbot, path)
    assert len(dialogs.texts("question")) == 1
    qtbot.waitUntil(lambda: w.scene.node_state("private")[0] == NodeStatus.OK)
    assert w.runner.value("private").tolist() == [42.0, 43.0]
    w.discard_changes()


def test_a_graph_with_only_inside_files_asks_nothing(qtbot, dialogs, tmp_path):
    folder = tmp_path / "own"
    folder.mkdir()
    np.save(folder / "a.npy", np.arange(3))
    g = Graph()
    g.add_file_source("a.npy", node_id="a")
    w = _open(qtbot, save_graph(g, folder / "own.ifg.json"))
    assert dialogs.texts("question") == []
    assert w.graph.node_info("a").ok
    w.discard_changes()


def test_a_file_chosen_in_the_property_panel_is_read_wherever_it_is(qtbot, dialogs, tmp_path, monkeypatch):
    path = _graph_with_outside_file(tmp_path)
    dialogs.answer = MB.StandardButton.No
    w = _open(qtbot, path)
    np.save(tmp_path / "chosen.npy", np.array([7.0]))
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", lambda *a, **k: (str(tmp_path / "chosen.npy"), ""))
    w.properties.show_node("inside")
    w.properties.widgets["browse"].click()
    assert w.graph.node("inside").path == str(tmp_path / "chosen.npy")
    qtbot.waitUntil(lambda: w.scene.node_state("inside")[0] == NodeStatus.OK)
    assert w.runner.value("inside").tolist() == [7.0]
    assert w.scene.node_state("private")[0] == NodeStatus.ERROR       # the other stays refused
    w.discard_changes()
