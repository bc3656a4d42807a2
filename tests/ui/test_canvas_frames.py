"""Frames (a titled, coloured box around a group of nodes that moves with them) and reroute
points on wires, driven with the real mouse and keys; undoable and saved in the file."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import load_graph, save_graph

from .helpers import LEFT, NOMOD, drag, keys, port_point, save_shot


def _frame_the_sources(w, qtbot, title="Example 1: axis 0"):
    """Select data and idx, Ctrl+J, type the title; returns the frame id."""
    w.scene.select_nodes(["data", "idx"])
    w.view.setFocus()
    keys(w.view, "Ctrl+J")
    (fid,) = [f.id for f in w.graph.frames]
    editor = w.node_actions.editor
    assert editor.isVisible()                      # the new frame's title, ready to type
    QTest.keyClicks(editor, title)
    QTest.keyClick(editor, QtCore.Qt.Key.Key_Return)
    return fid


def test_a_frame_surrounds_its_nodes_moves_them_and_is_saved(small, qtbot, tmp_path):
    w = small
    fid = _frame_the_sources(w, qtbot)
    frame = w.graph.frame(fid)
    assert frame.title == "Example 1: axis 0" and set(frame.nodes) == {"data", "idx"}
    box = w.scene.frame_item(fid).box()
    for nid in ("data", "idx"):
        assert box.contains(w.scene.node_item(nid).sceneBoundingRect())
    assert not box.intersects(w.scene.node_item("g").sceneBoundingRect())
    save_shot(w.view, "canvas/frame")
    # drag the title bar: the frame's nodes move with it, in one undo step
    title = w.view.mapFromScene(w.scene.frame_item(fid).title_rect().center())
    before = {nid: w.graph.node(nid).position for nid in ("data", "idx", "g")}
    drag(w.view.viewport(), title, title + QtCore.QPoint(100, 50))
    for nid in ("data", "idx"):
        x, y = before[nid]
        assert w.graph.node(nid).position == (x + 100, y + 50)
    assert w.graph.node("g").position == before["g"]
    assert w.scene.frame_item(fid).box().topLeft() == box.topLeft() + QtCore.QPointF(100, 50)
    w.undo_stack.undo()
    assert {nid: w.graph.node(nid).position for nid in before} == before
    # saved with the file
    save_graph(w.graph, tmp_path / "f.ifg.json")
    back = load_graph(tmp_path / "f.ifg.json").frame(fid)
    assert (back.title, set(back.nodes)) == ("Example 1: axis 0", {"data", "idx"})


def test_the_frame_menu_recolours_renames_and_removes_it_keeping_its_nodes(small, qtbot):
    w = small
    fid = _frame_the_sources(w, qtbot, "first")
    at = w.view.mapFromScene(w.scene.frame_item(fid).title_rect().center())
    event = QtGui.QContextMenuEvent(QtGui.QContextMenuEvent.Reason.Mouse, at, w.view.viewport().mapToGlobal(at))
    QtWidgets.QApplication.sendEvent(w.view.viewport(), event)
    menu = w.canvas_menu.menu
    texts = [a.text() for a in menu.actions() if a.text()]
    assert texts[0] == "Rename Frame…" and "Colour" in texts
    colours = next(a.menu() for a in menu.actions() if a.text() == "Colour")
    next(a for a in colours.actions() if a.text() == "Green").trigger()
    menu.close()
    assert w.graph.frame(fid).colour == "#4e9a6e"
    # double-click the title: rename in place
    QTest.mouseDClick(w.view.viewport(), LEFT, NOMOD, at)
    editor = w.node_actions.editor
    assert editor.isVisible() and editor.text() == "first"
    QTest.keyClicks(editor, "second")
    QTest.keyClick(editor, QtCore.Qt.Key.Key_Return)
    assert w.graph.frame(fid).title == "second"
    # Delete with the frame selected: the frame goes, its nodes stay
    w.scene.clearSelection()
    w.scene.frame_item(fid).setSelected(True)
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Delete)
    assert not w.graph.frames and w.graph.has_node("data") and w.graph.has_node("idx")
    w.undo_stack.undo()
    assert w.graph.frame(fid).title == "second"


def test_deleting_a_framed_node_and_undoing_puts_it_back_in_its_frame(small, qtbot):
    w = small
    fid = _frame_the_sources(w, qtbot)
    w.scene.select_nodes(["idx"])
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Delete)
    assert w.graph.frame(fid).nodes == ("data",)
    w.undo_stack.undo()
    assert set(w.graph.frame(fid).nodes) == {"data", "idx"}
    assert w.scene.frame_item(fid).box().contains(w.scene.node_item("idx").sceneBoundingRect())


def test_a_reroute_point_bends_the_wire_drags_and_goes_and_is_saved(small, qtbot, tmp_path):
    w = small
    vp = w.view.viewport()
    drag(vp, port_point(w, "data", "output", True), port_point(w, "g", "data", False))
    edge = w.graph.edge_into("g", "data")
    item = w.scene.edge_item("g", "data")
    middle = w.view.mapFromScene(item.path().pointAtPercent(0.5))
    QTest.mouseDClick(vp, LEFT, NOMOD, middle)                  # double-click the wire
    (point,) = w.graph.route(edge)
    at = w.view.mapToScene(middle)
    assert abs(point[0] - at.x()) <= 1 and abs(point[1] - at.y()) <= 1
    assert w.undo_action.text() == "Undo Add Reroute Point"
    # drag the point down: the wire passes through it
    handle = w.view.mapFromScene(QtCore.QPointF(*point))
    drag(vp, handle, handle + QtCore.QPoint(0, 120))
    (moved,) = w.graph.route(edge)
    assert abs(moved[1] - (point[1] + 120)) <= 1
    path = item.path()
    assert min(QtCore.QLineF(path.pointAtPercent(t / 200), QtCore.QPointF(*moved)).length()
               for t in range(201)) < 1.5
    save_shot(w.view, "canvas/reroute")
    save_graph(w.graph, tmp_path / "r.ifg.json")
    assert load_graph(tmp_path / "r.ifg.json").route(edge) == w.graph.route(edge)
    w.undo_stack.undo()
    assert w.graph.route(edge) == (point,)
    # double-click the point: it goes
    QTest.mouseDClick(vp, LEFT, NOMOD, w.view.mapFromScene(QtCore.QPointF(*point)))
    assert w.graph.route(edge) == ()
    # deleting the wire and undoing brings its bend back
    w.undo_stack.undo()
    item = w.scene.edge_item("g", "data")
    item.setSelected(True)
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Delete)
    assert w.graph.edge_into("g", "data") is None
    w.undo_stack.undo()
    assert w.graph.route(edge) == (point,) and len(w.scene.edge_item("g", "data").reroutes) == 1


def test_copying_a_framed_group_pastes_a_frame_around_the_copies_in_one_undo_step(small, qtbot):
    w = small
    fid = _frame_the_sources(w, qtbot, "sources")
    w.scene.select_nodes(["data", "idx"])
    w.view.setFocus()
    keys(w.view, "Ctrl+C")
    keys(w.view, "Ctrl+V")
    assert len(w.graph.frames) == 2
    pasted = w.graph.frames[-1]
    assert pasted.id != fid and pasted.title == "sources" and set(pasted.nodes) == set(w.scene.selected_node_ids())
    w.undo_stack.undo()
    assert [f.id for f in w.graph.frames] == [fid] and len(w.graph.nodes) == 4
    w.undo_stack.redo()
    assert [f.id for f in w.graph.frames] == [fid, pasted.id]
    assert set(w.graph.frame(pasted.id).nodes) == set(pasted.nodes)
    assert w.scene.frame_item(pasted.id).isVisible()
