"""Render the editor to PNG (in tmp_path; kept for people to look at when INDEXFLOW_SHOTS
names a folder): the main window on an example, property panels for an operator and a source, the
quick-add box, the export dialog, an error state, inline previews."""
from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import NodeStatus

from .helpers import deliver_posted_events, save_shot


def _save(widget: QtWidgets.QWidget, tmp_path: Path, name: str) -> QtGui.QImage:
    deliver_posted_events()   # the last step laid out, as a user would see it (nothing to wait for)
    image = save_shot(widget, f"editor/{name}").toImage()
    assert image.save(str(tmp_path / f"{name}.png"))
    return image


def _distinct_colours(image: QtGui.QImage) -> int:
    small = image.scaled(120, 80)
    return len({small.pixel(x, y) for x in range(small.width()) for y in range(small.height())})


def test_main_window_with_example(window, tmp_path):
    w = window
    w.files.open_example("embedding_lookup")
    w.runner.wait()
    w.view.frame(False)
    w.scene.select_nodes(["lookup"])
    image = _save(w, tmp_path, "main_window")
    assert image.width() >= 1000 and _distinct_colours(image) > 40
    assert w.viewer.current.name == "look up rows.output"
    w.files.open_example("scatterelements_examples")
    w.runner.wait()
    w.view.frame(False)
    _save(w, tmp_path, "main_window_large_example")
    # the canvas draws every node of the example
    assert len(w.scene.node_items()) == len(w.graph.nodes)


def test_operator_and_source_panels(small, tmp_path):
    w = small
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.graph.connect("g", "output", "out", "value")
    w.runner.wait()
    w.scene.select_nodes(["g"])
    _save(w.properties_dock, tmp_path, "properties_operator")
    w.scene.select_nodes(["data"])
    _save(w.properties_dock, tmp_path, "properties_literal")
    nid = w.edits.add_block("gen:integers", QtCore.QPointF(0, 420))
    w.runner.wait()
    _save(w.properties_dock, tmp_path, "properties_generator")
    w.edits.add_block("op:ScatterElements", QtCore.QPointF(300, 420))
    image = _save(w.properties_dock, tmp_path, "properties_scatter")
    assert _distinct_colours(image) > 5 and w.graph.has_node(nid)


def test_quick_add_and_error_state(small, tmp_path):
    w = small
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.graph.connect("g", "output", "out", "value")
    # an index out of range: a run-time error on g, blocked downstream
    w.graph.set_source("idx", value=np.array([7, 0], np.int64))
    w.runner.wait()
    assert w.scene.node_state("g")[0] == NodeStatus.ERROR and w.scene.node_state("out")[0] == NodeStatus.BLOCKED
    w.scene.select_nodes(["g"])
    assert "out of range" in w.statusBar().currentMessage()
    _save(w, tmp_path, "error_state")
    w.edits.open_quick_add_at(QtCore.QPointF(120, 300))
    w.quick_add.field.setText("scat")
    _save(w, tmp_path, "quick_add")
    w.quick_add.close_box()


def test_previews_and_export_dialog(window, tmp_path):
    w = window
    w.files.open_example("kv_cache_write")
    w.runner.wait()
    w.previews_action.trigger()
    w.view.frame(False)
    _save(w, tmp_path, "inline_previews")
    w.export_action.trigger()
    dialog = w.files.export_dialog
    dialog.path_edit.setText(str(tmp_path / "kv.onnx"))
    dialog.opset_box.setValue(18)
    dialog.export_button.click()
    _save(dialog, tmp_path, "export_dialog")
    assert dialog.ok is False and dialog.suggest_button.isVisible()
    dialog.suggest_button.click()
    dialog.export_button.click()
    _save(dialog, tmp_path, "export_dialog_ok")
    assert dialog.ok, dialog.result.text()
    dialog.close()
