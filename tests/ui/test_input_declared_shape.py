"""A graph input's declared shape in the property panel: ``batch, 4`` types the ports with the
name, one undo step; an example that does not fit is an error on the node; a text that is no
shape changes nothing and says why."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.graph import Graph

from .helpers import keys, save_shot


def _typed(edit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, QtCore.Qt.Key.Key_Return)


def test_typing_batch_4_names_the_dimension_on_every_port_downstream(window, qtbot):
    w = window
    g = Graph(name="declared")
    g.add_input("x", np.zeros((3, 4), np.float32), node_id="x", position=(0, 0))
    g.add_literal(np.array([3, 1], np.int64), name="idx", node_id="idx", position=(0, 160))
    g.add_operator("Gather", {"axis": 1}, node_id="g", position=(320, 60))
    g.add_output("out", node_id="out", position=(640, 60))
    g.connect("x", "output", "g", "data")
    g.connect("idx", "output", "g", "indices")
    g.connect("g", "output", "out", "value")
    w.set_document(g, None)
    w.scene.select_nodes(["x"])
    edit = w.properties.widgets["declared_shape"]
    assert edit.text() == "" and "batch, 4" in edit.placeholderText()
    _typed(edit, "batch, 4")
    assert w.graph.node("x").shape == ("batch", 4)
    item = w.scene.node_item("g")
    assert item.port_label("output", True)[0] == "float32[batch, 2]"     # Gather axis 1 of [batch, 4] by 2
    assert w.undo_action.text() == "Undo Change Declared Shape"
    save_shot(w, "properties/declared_shape")
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert w.graph.node("x").shape is None and edit.text() == ""
    assert item.port_label("output", True)[0] == "float32[3, 2]"
    # an example of 3 x 4 does not fit [batch, 5]: the input says so, nothing is lost
    _typed(edit, "batch, 5")
    assert w.graph.node("x").shape == ("batch", 5)
    assert "5" in (w.graph.node_info("x").error or "")
    # not a shape: nothing changes, the status line says why
    _typed(edit, "4,,3")
    assert w.graph.node("x").shape == ("batch", 5)
    assert "declared shape" in w.statusBar().currentMessage() and edit.text() == "batch, 5"
