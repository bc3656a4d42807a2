"""Export dialog follow-ups (walkthrough shots 39-41): a proposed file name for examples and
unsaved graphs, and after an export at a higher opset, a button that raises the graph's
opset (one undo step) so its nodes stop being flagged."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import NodeStatus
from nodeeditor.ui import commands as C
from nodeeditor.ui import settings as S

from .helpers import LEFT, NOMOD, keys, save_shot


def _click(button: QtWidgets.QAbstractButton) -> None:
    assert button.isVisible() and button.isEnabled(), button.text()
    QTest.mouseClick(button, LEFT, NOMOD, button.rect().center())


def _open_segment_sum(window):
    action = next(a for a in window.examples_menu.actions() if a.data() == "segment_sum")
    action.trigger()
    window.runner.wait()


def _export_dialog(window):
    window.view.setFocus()
    keys(window.view, "Ctrl+E")
    dialog = window.files.export_dialog
    assert dialog is not None and dialog.isVisible()
    return dialog


def test_export_proposes_the_graphs_name_in_the_home_folder(window, qtbot, monkeypatch, tmp_path):
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: tmp_path / "home"))
    _open_segment_sum(window)
    dialog = _export_dialog(window)
    assert dialog.path_edit.text() == str(tmp_path / "home" / "Segment sum and histogram.onnx")
    dialog.close()
    # an unsaved graph named with characters a file name cannot hold, last folder known
    (tmp_path / "work").mkdir()
    S.set_last_directory(tmp_path / "work")
    window.push(C.SettingCommand(window.graph, "name", "ScatterElements: worked/examples"))
    dialog = _export_dialog(window)
    assert dialog.path_edit.text() == str(tmp_path / "work" / "ScatterElements worked examples.onnx")
    save_shot(dialog, "window/export_default_path")
    dialog.close()


def test_after_exporting_at_a_higher_opset_the_graph_can_be_raised_to_it(window, qtbot, tmp_path, dialogs):
    pytest.importorskip("onnx")
    dialogs.answer = QtWidgets.QMessageBox.StandardButton.Yes   # a new dialog replaces the file after asking
    w = window
    _open_segment_sum(w)
    S.set_last_directory(tmp_path)
    w.push(C.AttributeCommand(w.graph, "sum", "reduction", "max"))
    w.push(C.SettingCommand(w.graph, "opset", 16))
    w.runner.wait()
    assert w.scene.node_state("sum")[0] == NodeStatus.ERROR
    dialog = _export_dialog(w)
    target = tmp_path / "Segment sum and histogram.onnx"
    assert dialog.path_edit.text() == str(target)
    assert dialog.opset_box.value() == 16
    _click(dialog.export_button)
    assert dialog.ok is False and dialog.suggest_button.text() == "Use opset 18"
    assert not dialog.raise_button.isVisible()
    _click(dialog.suggest_button)
    _click(dialog.export_button)
    assert dialog.ok, dialog.result.text()
    assert target.is_file()
    # the model is at 18, the graph still at 16: the dialog says so and offers to raise it
    assert w.graph.opset == 16
    assert "still at opset 16" in dialog.result.text()
    assert dialog.raise_button.text() == "Set graph to opset 18"
    save_shot(w, "window/window_before_raising")
    save_shot(dialog, "window/export_ok_offers_opset")
    _click(dialog.raise_button)
    assert w.graph.opset == 18
    assert "raised from 16 to 18" in dialog.result.text()
    assert "raised from 16 to 18" in w.statusBar().currentMessage()
    assert not dialog.raise_button.isVisible()
    save_shot(dialog, "window/export_dialog_after_raising")
    w.runner.wait()
    qtbot.waitUntil(lambda: w.scene.node_state("sum")[0] == NodeStatus.OK, timeout=10000)
    save_shot(w, "window/graph_raised_to_18")
    dialog.close()
    # one undo step takes the graph back to 16
    w.activateWindow()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is w, timeout=10000)
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert w.graph.opset == 16 and w.undo_action.text() == "Undo Change Opset"
    # an export at the graph's own opset offers nothing
    dialog = _export_dialog(w)
    w.push(C.AttributeCommand(w.graph, "sum", "reduction", "add"))
    _click(dialog.export_button)
    assert dialog.ok and not dialog.raise_button.isVisible()
    dialog.close()


def _open_example(window, name: str) -> None:
    action = next(a for a in window.examples_menu.actions() if a.data() == name)
    action.trigger()
    window.runner.wait()


def test_a_long_refusal_shows_whole_in_the_dialog(window, qtbot, tmp_path):
    """The exporter's refusal of ScatterElements with reductions at opset 11 runs to several
    lines, the last naming the lowest opset that works: the dialog grows to show all of it (at
    its fixed 560 x 260 the end was cut off, with no way to scroll)."""
    pytest.importorskip("onnx")
    S.set_last_directory(tmp_path)
    _open_example(window, "scatterelements_examples")
    dialog = _export_dialog(window)
    dialog.opset_box.setValue(11)
    _click(dialog.export_button)
    assert dialog.ok is False and "lowest opset that works for this graph is 18" in dialog.result.text()
    area = dialog.result_area
    qtbot.waitUntil(lambda: area.verticalScrollBar().maximum() == 0, timeout=10000)
    assert dialog.result.height() >= dialog.result.heightForWidth(dialog.result.width())
    save_shot(dialog, "window/export_long_refusal")
    dialog.close()


def test_a_typed_file_name_is_written_in_the_proposed_folder_as_onnx(window, qtbot, tmp_path, monkeypatch):
    """A bare name typed into the field goes to the folder the dialog proposed (not the folder
    the program started in), with ``.onnx`` added as Browse… adds it; the field and the message
    show where it went. An emptied field with Browse… cancelled says what to do, replacing the
    last result."""
    pytest.importorskip("onnx")
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    S.set_last_directory(work)
    _open_segment_sum(window)
    dialog = _export_dialog(window)
    dialog.path_edit.setText("justname")
    _click(dialog.export_button)
    assert dialog.ok, dialog.result.text()
    assert (work / "justname.onnx").is_file() and not list(elsewhere.iterdir())
    assert dialog.path_edit.text() == str(work / "justname.onnx")
    assert str(work / "justname.onnx") in dialog.result.text()
    monkeypatch.setattr(QtWidgets.QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: ("", "")))
    dialog.path_edit.setText("")
    _click(dialog.export_button)
    assert dialog.ok is None and "Choose a file" in dialog.result.text()
    dialog.close()


def test_export_asks_before_replacing_a_file_and_never_writes_over_what_the_graph_reads(
        window, qtbot, tmp_path, dialogs):
    """An existing file is replaced only after Yes (it was written over at once, the model just
    imported included); a second export to it from the same dialog asks no more; a model the
    graph reads its weights from is never written over."""
    from nodeeditor.ui.export_dialog import ExportDialog

    pytest.importorskip("onnx")
    w = window
    _open_segment_sum(w)
    target = tmp_path / "model.onnx"
    target.write_bytes(b"keep me")
    dialog = ExportDialog(w.graph, str(target), w)
    qtbot.addWidget(dialog)
    dialog.show()
    dialogs.answer = QtWidgets.QMessageBox.StandardButton.No
    _click(dialog.export_button)
    assert target.read_bytes() == b"keep me" and dialog.ok is None
    assert "“model.onnx” already exists" in dialogs.texts("question")[-1]
    assert "model.onnx is kept" in dialog.result.text()
    dialogs.answer = QtWidgets.QMessageBox.StandardButton.Yes
    _click(dialog.export_button)
    assert dialog.ok and target.read_bytes() != b"keep me"
    asked = len(dialogs.texts("question"))
    _click(dialog.export_button)                   # exported there already: no second question
    assert dialog.ok and len(dialogs.texts("question")) == asked
    # the model a source keeps its weights in (as an imported model's large initializers)
    from nodeeditor.graph.nodes import ModelTensorSource

    w.graph.add_node(ModelTensorSource(id="w", name="weights", path=str(target), tensor="W", shape=(4,)))
    before = target.read_bytes()
    _click(dialog.export_button)
    assert target.read_bytes() == before and dialog.ok is False
    assert "is a file this graph reads (“weights [w]”)" in dialog.result.text()
    dialog.close()


def test_export_can_put_the_weights_in_a_data_file_beside_the_model(window, qtbot, tmp_path, dialogs):
    """The dialog's "Weights in a data file" box writes MODEL.onnx.data beside the model
    (onnxruntime runs the pair as the graph runs), says so, names the data file when it asks
    before replacing, and is off for sources written as graph inputs (no weights to move)."""
    import numpy as np
    import onnxruntime as ort

    from nodeeditor.graph import Engine, Graph
    from nodeeditor.ui.export_dialog import ExportDialog

    g = Graph("table", opset=18)
    table = np.random.default_rng(5).standard_normal((1000, 64)).astype(np.float32)
    g.add_literal(table, name="table", node_id="table")
    g.add_literal(np.array([7, -2], np.int64), name="ids", node_id="ids")
    g.add_operator("Gather", {}, node_id="gather")
    g.connect("table", "output", "gather", "data")
    g.connect("ids", "output", "gather", "indices")
    g.connect("gather", "output", g.add_output("rows"), "value")
    window.set_document(g, None)
    window.runner.wait()
    target = tmp_path / "table.onnx"
    dialog = ExportDialog(window.graph, str(target), window)
    qtbot.addWidget(dialog)
    dialog.show()
    box = dialog.external_box
    assert box.isEnabled() and not box.isChecked()
    _click(box)
    _click(dialog.export_button)
    assert dialog.ok, dialog.result.text()
    assert "its weights to table.onnx.data beside it" in dialog.result.text()
    assert target.stat().st_size < 4096 < (tmp_path / "table.onnx.data").stat().st_size
    session = ort.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    np.testing.assert_array_equal(session.run(["rows"], {})[0], Engine(window.graph).run().outputs["rows"])
    save_shot(dialog, "window/export_external_data")
    dialog.close()
    again = ExportDialog(window.graph, str(target), window)        # a new dialog asks before replacing
    qtbot.addWidget(again)
    again.show()
    _click(again.external_box)
    dialogs.answer = QtWidgets.QMessageBox.StandardButton.No
    _click(again.export_button)
    assert "Its weights file “table.onnx.data” is replaced too." in dialogs.texts("question")[-1]
    again.sources_combo.setCurrentIndex(again.sources_combo.findData("inputs"))
    assert not again.external_box.isEnabled()
    again.close()
    # a data file of that name with no model beside it was replaced without a question
    lone = tmp_path / "lone.onnx.data"
    lone.write_bytes(b"keep me")
    third = ExportDialog(window.graph, str(tmp_path / "lone.onnx"), window)
    qtbot.addWidget(third)
    third.show()
    _click(third.external_box)
    _click(third.export_button)
    assert "“lone.onnx.data” already exists" in dialogs.texts("question")[-1]
    assert lone.read_bytes() == b"keep me" and not (tmp_path / "lone.onnx").exists()
    assert "lone.onnx.data is kept" in third.result.text()
    third.close()
