"""Copy, paste and duplicate with the real shortcuts; auto-layout; all undoable."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from nodeeditor.ui import clipboard

from .helpers import keys, save_shot


def _wire(w):
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.graph.connect("g", "output", "out", "value")


def test_copy_paste_keeps_inner_edges_new_ids_offset_and_undo(small):
    w = small
    _wire(w)
    w.scene.select_nodes(["data", "g"])
    w.view.setFocus()
    keys(w.view, "Ctrl+C")
    data = clipboard.clipboard_data()
    assert [n["id"] for n in data["nodes"]] == ["data", "g"]
    assert len(data["edges"]) == 1                         # only the edge inside the selection
    before = set(w.graph.node_ids)
    # the pointer leaves the canvas: paste lands offset
    QtWidgets.QApplication.sendEvent(w.view.viewport(), QtCore.QEvent(QtCore.QEvent.Type.Leave))
    keys(w.view, "Ctrl+V")
    new = set(w.graph.node_ids) - before
    assert len(new) == 2 and not new & before
    assert set(w.scene.selected_node_ids()) == new         # the pasted nodes are selected
    new_gather = next(n for n in new if w.graph.node(n).kind == "op")
    new_data = next(n for n in new if n != new_gather)
    assert w.graph.edge_into(new_gather, "data").src == new_data
    assert w.graph.edge_into(new_gather, "indices") is None
    # a step down-right, and further down when that would land on nodes already there
    x, y = w.graph.node(new_gather).position
    assert x == 320 + clipboard.STEP and y >= 60 + clipboard.STEP
    for nid in new:
        mine = w.scene.node_item(nid).sceneBoundingRect()
        assert not any(w.scene.node_item(o).sceneBoundingRect().intersects(mine) for o in before)
    assert w.undo_action.text() == "Undo Paste"
    keys(w.view, "Ctrl+V")                                 # a second paste lands further on
    assert len(w.graph.nodes) == 8
    keys(w.view, "Ctrl+Z")
    keys(w.view, "Ctrl+Z")
    assert set(w.graph.node_ids) == before
    keys(w.view, "Ctrl+Shift+Z")
    assert set(w.graph.node_ids) == before | new


def test_paste_at_cursor(small):
    w = small
    w.scene.select_nodes(["idx"])
    w.clipboard.copy()
    ids = w.clipboard.paste(at=QtCore.QPointF(500, 500))
    assert w.graph.node(ids[0]).position == (500, 500)
    # with the pointer over the canvas, Ctrl+V pastes there
    from PySide6.QtTest import QTest
    QTest.mouseMove(w.view.viewport(), w.view.mapFromScene(QtCore.QPointF(100, 300)))
    w.view.setFocus()
    keys(w.view, "Ctrl+V")
    x, y = w.graph.node(w.scene.selected_node_ids()[0]).position
    assert abs(x - 100) <= 1.5 and abs(y - 300) <= 1.5


def test_duplicate_ctrl_d(small):
    w = small
    w.scene.select_nodes(["g"])
    w.view.setFocus()
    keys(w.view, "Ctrl+D")
    assert len(w.graph.nodes) == 5
    dup = w.scene.selected_node_ids()[0]
    assert dup != "g" and w.graph.node(dup).op == "Gather"
    assert w.undo_action.text() == "Undo Duplicate"


def test_ctrl_d_keeps_the_copies_input_wires_and_ctrl_shift_d_does_not(small):
    """Ctrl+D as in other node editors: the copy of a Gather fed by data and idx is fed by
    them too (it had no inputs at all), ready for another attribute; its output is free.
    Within a duplicated group the copies feed each other. Ctrl+Shift+D copies unwired."""
    w = small
    _wire(w)
    w.scene.select_nodes(["g"])
    w.view.setFocus()
    keys(w.view, "Ctrl+D")
    (dup,) = w.scene.selected_node_ids()
    assert w.graph.edge_into(dup, "data").src == "data" and w.graph.edge_into(dup, "indices").src == "idx"
    assert w.graph.edge_into("out", "value").src == "g"              # outputs stay with the original
    assert w.undo_action.text() == "Undo Duplicate"
    w.runner.wait()
    assert w.runner.value(dup).tolist() == w.runner.value("g").tolist()
    keys(w.view, "Ctrl+Z")                                            # one step: node and wires
    assert not w.graph.has_node(dup) and len(w.graph.edges) == 3
    keys(w.view, "Ctrl+Shift+Z")
    assert w.graph.edge_into(dup, "indices").src == "idx"
    # a group: the copy of g reads the copy of data, and idx from outside
    w.scene.select_nodes(["data", "g"])
    keys(w.view, "Ctrl+D")
    copies = w.scene.selected_node_ids()
    new_g = next(n for n in copies if w.graph.node(n).kind == "op")
    new_data = next(n for n in copies if n != new_g)
    assert w.graph.edge_into(new_g, "data").src == new_data and w.graph.edge_into(new_g, "indices").src == "idx"
    # without wires
    w.scene.select_nodes(["g"])
    keys(w.view, "Ctrl+Shift+D")
    (bare,) = w.scene.selected_node_ids()
    assert w.graph.edge_into(bare, "data") is None and w.graph.edge_into(bare, "indices") is None
    assert w.duplicate_unwired_action in w.edit_menu.actions()


def test_auto_layout_left_to_right_and_undo(small):
    w = small
    _wire(w)
    for nid in w.graph.node_ids:
        w.graph.set_position(nid, (0, 0))
    w.undo_stack.clear()
    w.layout_action.trigger()
    pos = {n.id: n.position for n in w.graph.nodes}
    assert pos["data"][0] < pos["g"][0] < pos["out"][0]
    assert pos["idx"][0] == pos["data"][0] and pos["idx"][1] != pos["data"][1]
    assert w.undo_action.text() == "Undo Auto Layout"
    w.undo_stack.undo()
    assert all(n.position == (0, 0) for n in w.graph.nodes)


def test_pasted_and_duplicated_nodes_get_unique_names(small):
    """Copies are "scatternd write 2", "scatternd write 3", ... never a second "scatternd write"."""
    w = small
    w.graph.rename_node("g", "scatternd write")
    w.scene.select_nodes(["g"])
    w.view.setFocus()
    keys(w.view, "Ctrl+C")
    keys(w.view, "Ctrl+V")
    first = w.scene.selected_node_ids()[0]
    assert w.graph.node(first).name == "scatternd write 2"
    keys(w.view, "Ctrl+V")
    assert w.graph.node(w.scene.selected_node_ids()[0]).name == "scatternd write 3"
    keys(w.view, "Ctrl+D")              # a duplicate of "scatternd write 3"
    assert w.graph.node(w.scene.selected_node_ids()[0]).name == "scatternd write 4"
    names = [n.name for n in w.graph.nodes]
    assert len(names) == len(set(names)), names
    # undo and redo keep the names
    keys(w.view, "Ctrl+Z")
    keys(w.view, "Ctrl+Shift+Z")
    assert sorted(n.name for n in w.graph.nodes if n.kind == "op") == [
        "scatternd write", "scatternd write 2", "scatternd write 3", "scatternd write 4"]
    # a group: each copy its own number
    w.graph.rename_node("data", "values")
    w.graph.rename_node("idx", "positions 7")
    w.scene.select_nodes(["data", "idx"])
    keys(w.view, "Ctrl+D")
    assert sorted(w.graph.node(n).name for n in w.scene.selected_node_ids()) == ["positions 8", "values 2"]
    w.view.frame(False, readable=False)
    save_shot(w, "window/unique_paste_names")
