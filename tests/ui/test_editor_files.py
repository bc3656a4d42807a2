"""Files through the real menu actions with injected paths: save and reopen, the modified
mark, refusing a corrupt file without touching the open graph, recent files, examples,
export and import ONNX, recovery after a crash, asking before discarding."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from nodeeditor.graph import load_graph
from nodeeditor.ui import settings as S
from nodeeditor.ui.app import create_main_window

from .helpers import keys, save_shot

MB = QtWidgets.QMessageBox


def _inject(monkeypatch, name: str, path) -> None:
    monkeypatch.setattr(QtWidgets.QFileDialog, name, lambda *a, **k: (str(path), ""))


def test_save_and_reopen(small, monkeypatch, tmp_path, dialogs):
    w = small
    w.graph.connect("data", "output", "g", "data")
    assert w.windowTitle().startswith("test graph (not saved)")
    w.push(__import__("nodeeditor.ui.commands", fromlist=["x"]).AttributeCommand(w.graph, "g", "axis", 1))
    assert w.isWindowModified()
    target = tmp_path / "saved"
    _inject(monkeypatch, "getSaveFileName", target)
    w.save_action.trigger()
    path = tmp_path / "saved.ifg.json"
    assert path.is_file()
    assert not w.isWindowModified() and w.windowTitle().startswith("saved.ifg.json")
    assert S.recent_files()[0] == str(path.resolve())
    assert S.last_directory() == str(tmp_path)
    # a change marks the title, undo back to the saved state clears the mark
    w.undo_stack.undo()
    assert w.isWindowModified()
    w.undo_stack.redo()
    assert not w.isWindowModified()
    # reopen through File > Open
    w.set_document(load_graph(path).__class__(), None)          # something else is open now
    _inject(monkeypatch, "getOpenFileName", path)
    w.open_action.trigger()
    assert w.files.current_path == path
    assert w.graph.node("g").attributes == {"axis": 1}
    assert w.graph.edge_into("g", "data").src == "data"
    assert set(w.scene._nodes) == set(w.graph.node_ids)
    assert w.recent_menu.actions()[0].text() == str(path.resolve())


def test_corrupt_file_is_refused_and_graph_untouched(small, monkeypatch, tmp_path, dialogs):
    w = small
    bad = tmp_path / "broken.ifg.json"
    bad.write_text('{"format": "indexflow-graph", "version": 1, "nodes": [', encoding="utf-8")
    graph = w.graph
    ids = graph.node_ids
    _inject(monkeypatch, "getOpenFileName", bad)
    w.open_action.trigger()
    assert w.graph is graph and w.graph.node_ids == ids
    assert dialogs.calls and dialogs.calls[-1][0] == "warning"
    assert "broken.ifg.json" in dialogs.calls[-1][2] and "not valid JSON" in dialogs.calls[-1][2]
    assert "not valid JSON" in w.statusBar().currentMessage()


def test_unsaved_changes_are_asked_about(small, dialogs):
    w = small
    w.edits.add_block("output", QtCore.QPointF(0, 0))
    dialogs.answer = MB.StandardButton.Cancel
    assert not w.files.new()
    assert dialogs.calls[-1][0] == "question" and "unsaved changes" in dialogs.calls[-1][2]
    assert len(w.graph.nodes) == 5
    dialogs.answer = MB.StandardButton.Discard
    assert w.files.new()
    assert len(w.graph.nodes) == 0 and not w.isWindowModified()


def test_examples_menu_opens_every_example(window, dialogs):
    w = window
    actions = [a for a in w.examples_menu.actions() if a.data()]
    assert len(actions) >= 10
    for action in actions:
        action.trigger()
        assert w.graph.node_ids, action.data()
        assert w.files.current_path is None                 # Save asks for a new file
    w.runner.wait()
    assert not dialogs.calls


def _scatter_max_graph():
    from nodeeditor.graph import Graph

    g = Graph(name="scatter max", opset=18)
    g.add_literal(np.zeros((3, 3), np.float32), node_id="d", name="data")
    g.add_literal(np.array([[1, 0, 2]]), node_id="i", name="indices")
    g.add_literal(np.ones((1, 3), np.float32), node_id="u", name="updates")
    g.add_operator("ScatterElements", {"reduction": "max"}, node_id="s", position=(300, 0))
    g.add_output("y", node_id="y", position=(600, 0))
    for src, port in (("d", "data"), ("i", "indices"), ("u", "updates")):
        g.connect(src, "output", "s", port)
    g.connect("s", "output", "y", "value")
    return g


def test_export_dialog_refuses_with_reason_then_exports_and_import_reads_it(window, monkeypatch, tmp_path, dialogs):
    pytest.importorskip("onnx")
    w = window
    w.set_document(_scatter_max_graph(), None)
    target = tmp_path / "model.onnx"
    w.export_action.trigger()
    dialog = w.files.export_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.opset_box.value() == 18                    # the graph's opset by default
    _inject(monkeypatch, "getSaveFileName", tmp_path / "model")
    dialog.browse_button.click()
    assert dialog.path_edit.text() == str(target)
    # reduction='max' needs opset 18: refused with the exporter's exact words and a suggestion
    dialog.opset_box.setValue(16)
    dialog.export_button.click()
    assert dialog.ok is False and dialog.result.text().startswith("Not exported:")
    assert "reduction='max' is not allowed at opset 16" in dialog.result.text()
    assert not target.exists()
    assert dialog.suggest_button.isVisible() and dialog.suggest_button.text() == "Use opset 18"
    dialog.suggest_button.click()
    assert dialog.opset_box.value() == 18
    dialog.sources_combo.setCurrentIndex(dialog.sources_combo.findData("inputs"))
    dialog.export_button.click()
    assert dialog.ok, dialog.result.text()
    assert target.is_file() and "Exported to" in dialog.result.text()
    dialog.close()
    # File > Import ONNX reads it back as an editable graph
    _inject(monkeypatch, "getOpenFileName", target)
    w.import_action.trigger()
    ops_ = [n for n in w.graph.nodes if n.kind == "op"]
    assert [(n.op, n.attributes.get("reduction")) for n in ops_] == [("ScatterElements", "max")]
    assert w.files.current_path is None and w.isWindowModified()


def test_open_onnx_on_the_command_line_path(qtbot, tmp_path, dialogs):
    pytest.importorskip("onnx")
    from nodeeditor.graph import default_example
    from nodeeditor.onnx_io import save_model

    path = tmp_path / "m.onnx"
    save_model(default_example(), path)
    w = create_main_window(path)
    qtbot.addWidget(w)
    assert any(n.kind == "op" for n in w.graph.nodes)
    w.runner.wait()
    w.discard_changes()
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not a model")
    graph = w.graph
    assert not w.files.open_path(bad, ask=False)
    assert w.graph is graph and "bad.onnx" in dialogs.texts("warning")[-1]


def test_recovery_file_written_and_offered_after_crash(small, dialogs, tmp_path):
    w = small
    assert w.files.write_recovery() is None                     # nothing unsaved yet
    w.edits.add_block("op:GatherND", QtCore.QPointF(0, 0))
    written = w.files.write_recovery()
    assert written is not None and written.is_file()
    assert w.files.current_path is None and w.graph.file_path is None   # the copy did not re-point the graph
    assert w.files.pending_recoveries() == []                   # this process is alive: not a crash
    # pretend the file was left by a process that died
    graph_path, meta_path = w.files.recovery_paths()
    dead = 2 ** 22 + 12345
    dead_graph, dead_meta = w.files.recovery_paths(dead)
    os.replace(graph_path, dead_graph)
    meta = json.loads(meta_path.read_text())
    meta["pid"] = dead
    dead_meta.write_text(json.dumps(meta))
    meta_path.unlink()
    w.set_document(load_graph(dead_graph).__class__(), None)
    dialogs.answer = MB.StandardButton.Yes
    assert w.files.offer_recovery()
    assert "did not close properly" in dialogs.texts("question")[-1]
    assert any(n.kind == "op" and n.op == "GatherND" for n in w.graph.nodes)
    assert w.isWindowModified()
    assert not dead_graph.exists() and w.files.pending_recoveries() == []


def test_a_recovery_lists_its_metadata_before_its_graph_exists(small, monkeypatch):
    """A process killed between the two writes of its first recovery must not leave a graph
    that nothing lists (the metadata is what the next start looks for): the metadata is
    written first, and a metadata file whose graph never came is not offered."""
    from nodeeditor.ui import files as F

    w = small
    w.edits.add_block("op:GatherND", QtCore.QPointF(0, 0))
    graph_path, meta_path = w.files.recovery_paths()
    seen = []
    real = F.write_graph_files

    def spy(path, *args, **kwargs):
        seen.append(meta_path.is_file())
        return real(path, *args, **kwargs)

    monkeypatch.setattr(F, "write_graph_files", spy)
    assert w.files.write_recovery() == graph_path
    assert seen == [True]
    dead = 2 ** 22 + 54321
    dead_graph, dead_meta = w.files.recovery_paths(dead)
    meta = json.loads(meta_path.read_text())
    meta["pid"] = dead
    dead_meta.write_text(json.dumps(meta))                      # killed before its graph was written
    assert not dead_graph.exists() and w.files.pending_recoveries() == []
    assert not dead_meta.exists()                                # and it is not left behind
    w.discard_changes()
    w.files.clear_recovery()


def test_two_windows_keep_separate_recovery_files(small, qtbot, dialogs):
    """An extracted region or a second document opens another window in the same process:
    each writes its own recovery file, and closing one leaves the other's unsaved work."""
    first = small
    second = create_main_window()
    qtbot.addWidget(second)
    first.edits.add_block("op:GatherND", QtCore.QPointF(0, 0))
    second.edits.add_block("output", QtCore.QPointF(0, 0))
    first_file, second_file = first.files.write_recovery(), second.files.write_recovery()
    assert first_file is not None and second_file is not None and first_file != second_file
    assert any(n.kind == "op" and n.op == "GatherND" for n in load_graph(first_file).nodes)
    assert not any(n.kind == "op" and n.op == "GatherND" for n in load_graph(second_file).nodes)
    second.discard_changes()
    second.close()
    assert not second_file.exists() and first_file.is_file()
    third = create_main_window()            # the closed window's file name is free again
    qtbot.addWidget(third)
    assert third.files.recovery_paths() == second.files.recovery_paths()
    assert third.files.recovery_paths() != first.files.recovery_paths()


def test_window_layout_persists(window, qtbot):
    window.previews.set(True)
    window.viewer_dock.hide()
    window.save_layout()
    second = create_main_window()
    qtbot.addWidget(second)
    assert second.previews_action.isChecked()
    assert second.viewer_dock.isHidden()


def test_recovery_timer_writes_periodically(qtbot, monkeypatch, dialogs):
    monkeypatch.setenv("INDEXFLOW_RECOVERY_MS", "50")
    w = create_main_window()
    qtbot.addWidget(w)
    graph_path, _ = w.files.recovery_paths()
    w.edits.add_block("output", QtCore.QPointF(0, 0))
    qtbot.waitUntil(graph_path.exists, timeout=20000)
    assert any(n.id == "output1" for n in load_graph(graph_path).nodes)
    w.files.save_as = lambda: True       # pretend "Save" succeeds; closing clears the file
    w.mark_saved()
    assert not graph_path.exists()


def test_closing_with_unsaved_changes_asks(window, dialogs):
    w = window
    w.edits.add_block("output", QtCore.QPointF(0, 0))
    dialogs.answer = MB.StandardButton.Cancel
    assert not w.close()
    assert w.isVisible() and "unsaved changes" in dialogs.texts("question")[-1]
    dialogs.answer = MB.StandardButton.Discard
    assert w.close()


def test_command_line_example_name_and_missing_file(qtbot, dialogs, tmp_path):
    w = create_main_window("topk_mask")
    qtbot.addWidget(w)
    assert w.graph.name == "Top-k mask" and w.files.current_path is None
    w2 = create_main_window(str(tmp_path / "nope.ifg.json"))
    qtbot.addWidget(w2)
    assert "file not found" in dialogs.texts("warning")[-1]
    assert w2.graph.name == "Embedding look-up"          # the default example stays
    w3 = create_main_window("scatterelements")          # a bare name: an example, mistyped
    qtbot.addWidget(w3)
    assert "did you mean scatterelements_examples?" in dialogs.texts("warning")[-1]
    w3.runner.wait()
    for win in (w, w2):
        win.runner.wait()


DEAD_PID = 2 ** 22 + 12345     # above Linux's largest pid: never a live process


def _crash_leaving_recovery(qtbot, path, drag_ports=None, pid=None, when=None, name=None):
    """Open ``path`` (or, for None, the default example unsaved) in a window, connect
    data -> g.data with a real mouse drag when asked, write the recovery file, then make it
    look left behind by a process that died (``pid``, default one per kind of ``path``; its
    time ``when`` and graph ``name`` when given). Returns the recovered graph's edges."""
    from .helpers import deliver_posted_events, drag, port_point

    w = create_main_window(path)
    qtbot.addWidget(w)
    if name is not None:
        w.graph.set_setting("name", name)
    w.show()
    qtbot.waitExposed(w)
    deliver_posted_events()            # the opening frame (a zero-delay timer) moves the ports
    if drag_ports:
        drag(w.view.viewport(), port_point(w, *drag_ports[0], True), port_point(w, *drag_ports[1], False))
    else:
        w.edits.add_block("output", QtCore.QPointF(0, 0))
    assert w.isWindowModified()
    written = w.files.write_recovery()
    assert written is not None
    edges = sorted(str(e) for e in w.graph.edges)
    graph_path, meta_path = w.files.recovery_paths()
    pid = pid if pid is not None else DEAD_PID if path else DEAD_PID + 1
    dead_graph, dead_meta = w.files.recovery_paths(pid)
    os.replace(graph_path, dead_graph)
    meta = json.loads(meta_path.read_text())
    meta["pid"] = pid
    if when is not None:
        meta["time"] = when
    dead_meta.write_text(json.dumps(meta))
    meta_path.unlink()
    w.runner.wait()
    w.discard_changes()
    w.close()
    return edges


def _saved_small(tmp_path):
    from nodeeditor.graph import save_graph

    from .conftest import small_graph

    return save_graph(small_graph(), tmp_path / "mine.ifg.json")


def test_starting_on_a_file_offers_that_files_recovery(qtbot, dialogs, tmp_path):
    from nodeeditor.ui.app import start_window

    path = _saved_small(tmp_path)
    edges = _crash_leaving_recovery(qtbot, path, (("data", "output"), ("g", "data")))
    assert edges == ["data.output -> g.data"]
    assert load_graph(path).edges == ()                      # the file itself never got the change
    dialogs.answer = MB.StandardButton.Yes
    w = start_window(path)
    qtbot.addWidget(w)
    question = dialogs.texts("question")[-1]
    assert "did not close properly" in question and "mine.ifg.json" in question
    assert sorted(str(e) for e in w.graph.edges) == ["data.output -> g.data"]
    assert w.files.current_path == path and w.isWindowModified()
    assert w.windowTitle().startswith("mine.ifg.json")
    assert "Restored the unsaved work" in w.statusBar().currentMessage()
    assert w.files.pending_recoveries() == []
    # Ctrl+S writes the recovered work to the file
    w.activateWindow()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is w, timeout=10000)
    w.view.setFocus()
    keys(w.view, "Ctrl+S")
    assert [str(e) for e in load_graph(path).edges] == ["data.output -> g.data"]
    assert not w.isWindowModified()
    w.runner.wait()


def test_declining_keeps_the_file_and_other_files_recoveries_wait(qtbot, dialogs, tmp_path):
    from nodeeditor.ui.app import start_window

    path = _saved_small(tmp_path)
    _crash_leaving_recovery(qtbot, path, (("data", "output"), ("g", "data")))
    _crash_leaving_recovery(qtbot, None)                     # unsaved work on no file at all
    other = tmp_path / "other.ifg.json"
    other.write_bytes(path.read_bytes())
    # a different file: nothing asked, both leftovers stay
    w = start_window(other)
    qtbot.addWidget(w)
    assert dialogs.texts("question") == []
    assert len(w.files.pending_recoveries()) == 2
    # the file itself, answered No: its saved content, and only its leftover removed
    dialogs.answer = MB.StandardButton.No
    w2 = start_window(path)
    qtbot.addWidget(w2)
    assert "mine.ifg.json" in dialogs.texts("question")[-1]
    assert w2.graph.edges == () and not w2.isWindowModified()
    remaining = w2.files.pending_recoveries()
    assert [m["original"] for m in remaining] == [None]
    # no file: the unsaved graph is offered, as before
    dialogs.answer = MB.StandardButton.Yes
    w3 = start_window()
    qtbot.addWidget(w3)
    assert "Restore the unsaved graph" in dialogs.texts("question")[-1]
    assert any(n.kind == "output" and n.id == "output1" for n in w3.graph.nodes)
    assert w3.files.pending_recoveries() == []
    for win in (w, w2, w3):
        win.runner.wait()
        win.discard_changes()


def test_two_crashed_sessions_are_each_offered_and_neither_is_removed_unseen(qtbot, dialogs, tmp_path):
    """Two editors with unsaved graphs both crashed: a start on no file offers the newer, says
    the older is kept, and leaves it (it removed every leftover after one answer: the older
    work was deleted without ever being offered); the next start offers the older, and No
    discards it, as the question says."""
    from nodeeditor.ui.app import start_window

    _crash_leaving_recovery(qtbot, None, pid=DEAD_PID + 2, when="2026-01-01 09:00:00", name="Older work")
    _crash_leaving_recovery(qtbot, None, pid=DEAD_PID + 3, when="2026-01-01 10:00:00", name="Newer work")
    dialogs.answer = MB.StandardButton.Yes
    w = start_window()
    qtbot.addWidget(w)
    question = dialogs.texts("question")[-1]
    assert "“Newer work”" in question and "1 older unsaved graph is kept" in question
    assert w.graph.name == "Newer work" and w.isWindowModified()
    assert [m["name"] for m in w.files.pending_recoveries()] == ["Older work"]
    w.runner.wait()
    w.discard_changes()
    w.close()
    dialogs.answer = MB.StandardButton.No
    w2 = start_window()
    qtbot.addWidget(w2)
    question = dialogs.texts("question")[-1]
    assert "“Older work”" in question and "No discards it" in question and "kept" not in question
    assert w2.graph.name != "Older work" and w2.files.pending_recoveries() == []
    w2.runner.wait()


def test_a_failed_save_says_so_in_the_status_line(small, monkeypatch, tmp_path, dialogs):
    """A save that fails after one that worked: the warning box, and the status line says "Not
    saved" (it kept the last save's "Saved …", as if this one had worked)."""
    from nodeeditor.ui.commands import AttributeCommand

    w = small
    _inject(monkeypatch, "getSaveFileName", tmp_path / "first")
    w.save_as_action.trigger()
    assert w.statusBar().currentMessage().startswith("Saved ")
    w.push(AttributeCommand(w.graph, "g", "axis", 1))
    blocker = tmp_path / "not a folder"
    blocker.write_text("a file where the folder should be")
    _inject(monkeypatch, "getSaveFileName", blocker / "second")
    w.save_as_action.trigger()
    assert dialogs.texts("warning") and "not a folder" in dialogs.texts("warning")[-1]
    assert w.statusBar().currentMessage().startswith("Not saved: ")
    assert w.isWindowModified()


def test_a_bundled_example_opened_by_its_path_is_a_template(qtbot, dialogs, monkeypatch, tmp_path):
    """``indexflow resources/examples/one_hot.ifg.json`` (or File > Open on it): Ctrl+S asks for a
    file, as for an example from the menu, and the installed example keeps its bytes (it was
    saved over in place). The bundle here is a copy under tmp_path: a failing test must not
    write into the installed examples."""
    from nodeeditor.graph.examples import EXAMPLES_DIR
    from nodeeditor.ui import files, main_window
    from nodeeditor.ui.commands import SettingCommand

    copies = tmp_path / "installed examples"
    copies.mkdir()
    bundled = copies / "one_hot.ifg.json"
    bundled.write_bytes((EXAMPLES_DIR / "one_hot.ifg.json").read_bytes())
    for module in (files, main_window):
        monkeypatch.setattr(module, "EXAMPLES_DIR", copies)
    before = bundled.read_bytes()
    w = create_main_window(str(bundled))
    qtbot.addWidget(w)
    w.runner.wait()
    assert w.files.current_path is None and "(example)" in w.windowTitle()
    w.push(SettingCommand(w.graph, "description", "my notes"))
    _inject(monkeypatch, "getSaveFileName", tmp_path / "mine")
    w.save_action.trigger()
    assert w.files.current_path == tmp_path / "mine.ifg.json"
    assert load_graph(tmp_path / "mine.ifg.json").settings["description"] == "my notes"
    assert bundled.read_bytes() == before
    w.runner.wait()


def _two_data_folders(tmp_path):
    """first/ with data/a.npy (3 values) and data/b.npy (2 values), and an empty folder
    elsewhere/deeper/ to Save As into."""
    first, second = tmp_path / "first", tmp_path / "elsewhere" / "deeper"
    (first / "data").mkdir(parents=True)
    second.mkdir(parents=True)
    np.save(first / "data" / "a.npy", np.array([1, 2, 3], np.int64))
    np.save(first / "data" / "b.npy", np.array([7, 8], np.int64))
    return first, second


def test_undoing_a_file_path_edit_after_save_as_to_another_folder_restores_the_same_file(
        small, monkeypatch, tmp_path, dialogs):
    """Relative file paths follow the graph's folder; an undo made after Save As to another
    folder must bring back the file that was there before the edit, not the old text."""
    from nodeeditor.ui.commands import SourceCommand

    w = small
    first, second = _two_data_folders(tmp_path)
    node = w.graph.add_file_source("data/a.npy", node_id="f")
    _inject(monkeypatch, "getSaveFileName", first / "g")
    w.save_action.trigger()
    w.push(SourceCommand(w.graph, node, path="data/b.npy"))           # typed relative to first/
    _inject(monkeypatch, "getSaveFileName", second / "g")
    w.save_as_action.trigger()                                          # now relative to elsewhere/deeper/
    resolved = lambda: (second / w.graph.node(node).path).resolve()   # noqa: E731
    assert resolved() == (first / "data" / "b.npy").resolve()
    w.undo_stack.undo()
    assert resolved() == (first / "data" / "a.npy").resolve()
    assert w.graph.output_type(node).shape == (3,)
    w.undo_stack.redo()
    assert resolved() == (first / "data" / "b.npy").resolve()
    assert w.graph.output_type(node).shape == (2,)


def test_undo_after_save_as_also_restores_the_same_file_for_edits_before_the_first_save_and_deletes(
        small, monkeypatch, tmp_path, dialogs):
    """Two cases the first fix missed: a path edit made while the graph had no file yet (its
    paths are relative to the first folder it is saved to), and a deleted file node brought
    back by undo after Save As."""
    from nodeeditor.ui.commands import DeleteCommand, SourceCommand

    w = small
    first, second = _two_data_folders(tmp_path)
    node = w.graph.add_file_source("data/a.npy", node_id="f")
    w.push(SourceCommand(w.graph, node, path="data/b.npy"))             # before any save
    _inject(monkeypatch, "getSaveFileName", first / "g")
    w.save_action.trigger()
    w.push(DeleteCommand(w.graph, [node]))
    _inject(monkeypatch, "getSaveFileName", second / "g")
    w.save_as_action.trigger()
    w.undo_stack.undo()                                                  # the delete
    resolved = lambda: (second / w.graph.node(node).path).resolve()    # noqa: E731
    assert resolved() == (first / "data" / "b.npy").resolve()
    w.undo_stack.undo()                                                  # the path edit
    assert resolved() == (first / "data" / "a.npy").resolve()
    w.undo_stack.redo()
    assert resolved() == (first / "data" / "b.npy").resolve()
    assert w.graph.output_type(node).shape == (2,)


def test_copy_a_file_node_and_paste_it_into_a_graph_in_another_folder(small, monkeypatch, tmp_path, dialogs):
    from nodeeditor.graph import Graph, save_graph

    w = small
    first, second = tmp_path / "first", tmp_path / "second"
    (first / "data").mkdir(parents=True)
    second.mkdir()
    np.save(first / "data" / "a.npy", np.array([1, 2, 3], np.int64))
    w.graph.add_file_source("data/a.npy", node_id="f")
    _inject(monkeypatch, "getSaveFileName", first / "g")
    w.save_action.trigger()
    w.scene.select_nodes(["f"])
    w.copy_action.trigger()
    other = Graph(name="other")
    save_graph(other, second / "other.ifg.json")
    w.set_document(other, second / "other.ifg.json")
    w.paste_action.trigger()
    (pasted,) = [n for n in w.graph.nodes if n.kind == "file"]
    assert (second / pasted.path).resolve() == (first / "data" / "a.npy").resolve()
    assert w.graph.output_type(pasted.id).shape == (3,)


def test_a_new_graph_takes_its_files_name_when_first_saved(window, monkeypatch, tmp_path, dialogs):
    """An "untitled" graph saved as mygraph is called mygraph (window title, panel, ONNX
    model), and the save leaves it unmodified; a graph that has a name keeps it."""
    from nodeeditor.graph import Graph

    w = window
    w.set_document(Graph(), None)
    _inject(monkeypatch, "getSaveFileName", tmp_path / "mygraph")
    w.save_as_action.trigger()
    assert w.graph.name == "mygraph" and not w.isWindowModified()
    assert load_graph(tmp_path / "mygraph.ifg.json").name == "mygraph"
    _inject(monkeypatch, "getSaveFileName", tmp_path / "copy")
    w.save_as_action.trigger()
    assert w.graph.name == "mygraph"


def test_save_is_not_an_undo_step(window, monkeypatch, tmp_path, dialogs):
    """Saving a new graph names it after its file, but the first Ctrl+Z after Save undoes the
    last real edit (it undid the save's rename and marked the graph unsaved); Ctrl+Shift+Z
    brings the document back to what was saved, unmodified."""
    from nodeeditor.graph import Graph

    w = window
    w.set_document(Graph(), None)
    nid = w.edits.add_block("literal", QtCore.QPointF(100, 100))
    assert w.isWindowModified()
    _inject(monkeypatch, "getSaveFileName", tmp_path / "mygraph")
    w.view.setFocus()
    keys(w.view, "Ctrl+S")
    assert w.graph.name == "mygraph" and not w.isWindowModified()
    assert w.undo_action.text() == "Undo Add Literal tensor"
    keys(w.view, "Ctrl+Z")
    assert not w.graph.has_node(nid)                     # the edit is undone, not the name
    assert w.graph.name == "mygraph" and w.isWindowModified()
    keys(w.view, "Ctrl+Shift+Z")
    assert w.graph.has_node(nid) and not w.isWindowModified()


def test_help_lists_the_shortcuts_from_the_menus(window, qtbot):
    """F1 opens a table of every menu shortcut (read from the actions) and the canvas gestures."""
    from PySide6.QtTest import QTest

    window.view.setFocus()
    dialogs_before = set(window.findChildren(QtWidgets.QDialog))
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_F1)
    (dialog,) = set(window.findChildren(QtWidgets.QDialog)) - dialogs_before
    rows = {dialog.table.item(r, 0).text(): dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())}
    assert rows["Ctrl+S"] == "File > Save" and rows["Ctrl+0"] == "View > Frame All"
    assert rows["Ctrl+Q"] == "File > Quit"
    assert rows["F"] == "View > Frame Selection (or All)" and "quick add" in rows["Tab"]
    save_shot(dialog, "window/help_shortcuts")
    dialog.close()


def test_an_example_is_titled_as_one_not_as_unsaved_work(window):
    action = next(a for a in window.examples_menu.actions() if a.data() == "segment_sum")
    action.trigger()
    assert window.windowTitle().startswith(f"{window.graph.name} (example)")
    window.new_action.trigger()
    assert "(not saved)" in window.windowTitle()


def test_a_graph_opened_through_a_link_is_the_linked_file_for_saves_and_recovery(small, tmp_path):
    """Its folder is where a link points: the recovery records that file (it recorded the link,
    and a restore resolved the graph's relative file sources beside the link: "file not
    found"), and Save writes there, keeping the link."""
    from nodeeditor.graph import Graph, save_graph

    repo, work = tmp_path / "repo", tmp_path / "work"
    repo.mkdir()
    work.mkdir()
    np.save(repo / "data.npy", np.array([1.0, 2.0, 3.0], np.float32))
    g = Graph("linked")
    f = g.add_file_source("data.npy", name="data")
    y = g.add_output("y")
    g.connect(f, "output", y, "value")
    save_graph(g, repo / "model.ifg.json")
    link = work / "model.ifg.json"
    link.symlink_to("../repo/model.ifg.json")
    w = small
    w.discard_changes()
    assert w.files.open_path(link, ask=False)
    assert w.files.current_path == repo / "model.ifg.json"
    w.edits.add_block("output", QtCore.QPointF(0, 300))
    w.files.write_recovery()
    _graph_path, meta_path = w.files.recovery_paths()
    assert json.loads(meta_path.read_text())["original"] == str(repo / "model.ifg.json")
    w.runner.wait()
    np.testing.assert_array_equal(w.runner.value(y), [1.0, 2.0, 3.0])
    assert w.files.save()
    assert link.is_symlink() and load_graph(link).node(f).path == "data.npy"
    w.files.clear_recovery()
