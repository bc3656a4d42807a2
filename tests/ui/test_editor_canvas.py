"""The canvas driven with real mouse and key events: drop, connect, refuse, disconnect,
move, delete, quick add, framing; each edit undone and redone."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import NodeStatus
from nodeeditor.ui.blocks import MIME_TYPE

from .helpers import LEFT, NOMOD, drag, keys, port_point, scene_point


def _send_drop(window, mime: QtCore.QMimeData, at: QtCore.QPoint) -> bool:
    """Send ``mime`` to the canvas as a drag-enter and a drop; whether the enter was accepted."""
    viewport = window.view.viewport()
    actions = QtCore.Qt.DropAction.CopyAction
    enter = QtGui.QDragEnterEvent(at, actions, mime, LEFT, NOMOD)
    QtWidgets.QApplication.sendEvent(viewport, enter)
    QtWidgets.QApplication.sendEvent(viewport, QtGui.QDropEvent(QtCore.QPointF(at), actions, mime, LEFT, NOMOD))
    return enter.isAccepted()


def _drop(window, key: str, at: QtCore.QPoint) -> None:
    """Send the palette's own mime data for ``key`` to the canvas as a drag-enter + drop."""
    item = window.palette.item(key)
    mime = window.palette.tree.mimeData([item])
    assert mime.hasFormat(MIME_TYPE)
    assert _send_drop(window, mime, at)


def test_drop_palette_block_places_node_there_and_undo_redo(small):
    w = small
    before = set(w.graph.node_ids)
    at = scene_point(w, 300, 400)
    _drop(w, "op:ScatterND", at)
    added = set(w.graph.node_ids) - before
    assert len(added) == 1
    nid = added.pop()
    node = w.graph.node(nid)
    assert node.op == "ScatterND"
    item = w.scene.node_item(nid)
    # the block is centred horizontally on the drop point, its top just above it
    assert item.sceneBoundingRect().contains(QtCore.QPointF(300, 400))
    assert w.undo_action.text() == "Undo Add ScatterND"
    w.undo_stack.undo()
    assert not w.graph.has_node(nid)
    w.undo_stack.redo()
    assert w.graph.node(nid) is node and w.scene.node_item(nid) is not None


def test_palette_double_click_adds_at_view_centre(small):
    w = small
    item = w.palette.item("gen:integers")
    w.palette.tree.scrollToItem(item)
    rect = w.palette.tree.visualItemRect(item)
    QTest.mouseClick(w.palette.tree.viewport(), LEFT, NOMOD, rect.center())
    QTest.mouseDClick(w.palette.tree.viewport(), LEFT, NOMOD, rect.center())
    node = w.graph.nodes[-1]
    assert node.kind == "generator" and node.generator == "integers"
    centre = w.view.centre_scene_pos()
    added = w.scene.node_item(node.id).sceneBoundingRect()
    others = [i.sceneBoundingRect() for i in w.scene.node_items() if i.node_id != node.id]
    if not any(r.intersects(added.translated(0, 0)) for r in others) and added.contains(centre):
        return  # the centre was free: the block sits on it
    # the centre was taken (the small graph's Gather sits there): the block goes just below or
    # beside it, burying nothing, and stays in view
    assert not any(r.intersects(added) for r in others)
    assert w.view.mapToScene(w.view.viewport().rect()).boundingRect().intersects(added)


def test_add_at_the_centre_and_paste_never_bury_a_node(small):
    """Double-click "add at the centre" three times and paste twice: no two nodes overlap, and
    the status bar says what the paste did."""
    w = small
    for _ in range(3):
        w.edits.add_block("op:Gather", w.view.centre_scene_pos(), avoid_overlap=True)
    w.scene.select_nodes([w.graph.nodes[-1].id])
    w.copy_action.trigger()
    w.clipboard.paste()
    w.clipboard.paste()
    assert w.statusBar().currentMessage() == "Pasted 1 node"
    rects = [i.sceneBoundingRect() for i in w.scene.node_items()]
    for a in range(len(rects)):
        for b in range(a + 1, len(rects)):
            assert not rects[a].intersects(rects[b]), (a, b)


def test_palette_search_filters(small):
    w = small
    w.palette.search_field.setText("scnd")
    assert w.palette.visible_keys()[0] == "op:ScatterND"
    assert "op:Gather" not in w.palette.visible_keys()
    w.palette.search_field.setText("")
    assert len(w.palette.visible_keys()) > 15


def test_connect_with_mouse_drag_then_undo_redo(small, qtbot):
    w = small
    vp = w.view.viewport()
    drag(vp, port_point(w, "data", "output", True), port_point(w, "g", "data", False))
    assert w.graph.edge_into("g", "data") is not None
    assert w.undo_action.text() == "Undo Connect"
    drag(vp, port_point(w, "idx", "output", True), port_point(w, "g", "indices", False))
    drag(vp, port_point(w, "g", "output", True), port_point(w, "out", "value", False))
    assert str(w.graph.output_type("g")) == "float32[2, 4]"
    assert w.scene.node_item("out").port_label("value", False) == ("float32[2, 4]", True)
    w.runner.wait()
    assert w.scene.node_state("g")[0] == NodeStatus.OK
    assert (w.runner.value("out") == [[8, 9, 10, 11], [0, 1, 2, 3]]).all()
    w.undo_stack.undo()
    assert w.graph.edge_into("out", "value") is None
    assert w.scene.node_item("out").port_label("value", False)[0] == "not connected"
    w.undo_stack.redo()
    assert w.graph.edge_into("out", "value") is not None
    # the edge item follows the node when it moves
    edge_item = w.scene.edge_item("g", "data")
    start = edge_item.path().elementAt(0)
    w.graph.set_position("data", (-100, -50))
    assert edge_item.path().elementAt(0).x == pytest.approx(start.x - 100)


def test_refused_connection_shows_document_reason(small):
    w = small
    vp = w.view.viewport()
    # float32 data into the integer-only 'indices' input: the graph refuses
    drag(vp, port_point(w, "data", "output", True), port_point(w, "g", "indices", False))
    assert w.graph.edge_into("g", "indices") is None
    expected = w.graph.can_connect("data", "output", "g", "indices")
    assert expected and w.edits.last_refusal == expected
    assert expected in w.statusBar().currentMessage()
    assert w.undo_stack.count() == 0


def test_drag_edge_end_away_disconnects_and_to_other_input_reconnects(small):
    w = small
    vp = w.view.viewport()
    drag(vp, port_point(w, "idx", "output", True), port_point(w, "g", "indices", False))
    # pick the wire up at its input end and drop it on empty canvas
    drag(vp, port_point(w, "g", "indices", False), scene_point(w, 200, 420))
    assert w.graph.edge_into("g", "indices") is None
    assert w.undo_action.text() == "Undo Disconnect"
    w.undo_stack.undo()
    assert w.graph.edge_into("g", "indices").src == "idx"
    # drawing backwards from a free input to an output also connects
    drag(vp, port_point(w, "g", "data", False), port_point(w, "data", "output", True))
    assert w.graph.edge_into("g", "data").src == "data"


def test_move_node_with_mouse_is_one_undo_step(small):
    w = small
    item = w.scene.node_item("g")
    title = item.mapToScene(QtCore.QPointF(60, 10))
    start = w.view.mapFromScene(title)
    drag(w.view.viewport(), start, start + QtCore.QPoint(80, 40))
    assert w.graph.node("g").position == pytest.approx((400, 100), abs=1.5)
    assert w.undo_action.text() == "Undo Move"
    w.undo_stack.undo()
    assert w.graph.node("g").position == (320, 60)
    assert (item.pos().x(), item.pos().y()) == (320, 60)


def test_delete_key_deletes_selection_and_undo_restores_edges(small):
    w = small
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("g", "output", "out", "value")
    w.scene.select_nodes(["g"])
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Delete)
    assert not w.graph.has_node("g")
    assert w.undo_action.text() == "Undo Delete 1 Node"
    keys(w.view, "Ctrl+Z")
    assert w.graph.has_node("g")
    assert {str(e) for e in w.graph.edges} == {"data.output -> g.data", "g.output -> out.value"}
    keys(w.view, "Ctrl+Shift+Z")
    assert not w.graph.has_node("g")
    keys(w.view, "Ctrl+Y")   # nothing left to redo: harmless
    keys(w.view, "Ctrl+Z")
    assert w.graph.has_node("g")


def test_rubber_band_selects_and_f_frames_selection(small):
    w = small
    vp = w.view.viewport()
    drag(vp, scene_point(w, -40, -40), scene_point(w, 260, 260))
    assert set(w.scene.selected_node_ids()) == {"data", "idx"}
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_F)
    centre = w.view.centre_scene_pos()
    rect = w.scene.nodes_rect({"data", "idx"})
    assert abs(centre.x() - rect.center().x()) < 2 and abs(centre.y() - rect.center().y()) < 2


def test_wheel_zoom_keeps_point_under_cursor(small):
    w = small
    vp = w.view.viewport()
    at = QtCore.QPoint(200, 150)
    before = w.view.mapToScene(at)
    event = QtGui.QWheelEvent(QtCore.QPointF(at), QtCore.QPointF(vp.mapToGlobal(at)), QtCore.QPoint(),
                              QtCore.QPoint(0, 240), QtCore.Qt.MouseButton.NoButton, NOMOD,
                              QtCore.Qt.ScrollPhase.NoScrollPhase, False)
    QtWidgets.QApplication.sendEvent(vp, event)
    assert w.view.zoom == pytest.approx(1.15 ** 2)
    after = w.view.mapToScene(at)
    assert abs(after.x() - before.x()) < 1.5 and abs(after.y() - before.y()) < 1.5


def test_middle_button_and_space_drag_pan(small):
    w = small
    vp = w.view.viewport()
    centre = w.view.centre_scene_pos()
    drag(vp, QtCore.QPoint(300, 300), QtCore.QPoint(200, 250), button=QtCore.Qt.MouseButton.MiddleButton)
    moved = w.view.centre_scene_pos()
    assert moved.x() == pytest.approx(centre.x() + 100, abs=2) and moved.y() == pytest.approx(centre.y() + 50, abs=2)
    w.view.setFocus()
    QTest.keyPress(w.view, QtCore.Qt.Key.Key_Space)
    drag(vp, QtCore.QPoint(300, 300), QtCore.QPoint(350, 300))
    QTest.keyRelease(w.view, QtCore.Qt.Key.Key_Space)
    assert w.view.centre_scene_pos().x() == pytest.approx(moved.x() - 50, abs=2)
    assert w.scene.selected_node_ids() == []


def test_tab_quick_add_fuzzy_search_adds_at_cursor(small):
    w = small
    w.view.setFocus()
    # below the nodes and inside the canvas (the Explainer keeps its height under it)
    QTest.mouseMove(w.view.viewport(), scene_point(w, 100, 330))
    assert w.view.cursor_inside()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Tab)
    box = w.quick_add
    assert box.isVisible()
    QTest.keyClicks(box.field, "gelem")
    assert box.keys()[0] == "op:GatherElements"
    QTest.keyClick(box.field, QtCore.Qt.Key.Key_Return)
    assert not box.isVisible()
    node = w.graph.nodes[-1]
    assert node.op == "GatherElements"
    assert w.scene.node_item(node.id).sceneBoundingRect().contains(box.scene_pos)


def test_states_warning_error_blocked_and_edge_colours(small):
    import numpy as np

    w = small
    g = w.graph
    # duplicate targets with reduction none: a warning, not an error
    g.add_literal(np.zeros((4,), np.float32), node_id="d4")
    g.add_literal(np.array([1, 1], np.int64), node_id="i2")
    g.add_literal(np.array([5.0, 6.0], np.float32), node_id="u2")
    g.add_operator("ScatterElements", node_id="sc")
    for src, port in (("d4", "data"), ("i2", "indices"), ("u2", "updates")):
        g.connect(src, "output", "sc", port)
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.graph.connect("g", "output", "out", "value")
    w.runner.wait()
    state, message = w.scene.node_state("sc")
    assert state == NodeStatus.WARNING and "more than once" in message
    assert "more than once" in w.scene.node_item("sc").toolTip()
    assert w.scene.edge_item("out", "value").state == NodeStatus.OK
    g.set_source("idx", value=np.array([9, 0], np.int64))
    w.runner.wait()
    assert w.scene.node_state("g")[0] == NodeStatus.ERROR
    assert w.scene.node_state("out")[0] == NodeStatus.BLOCKED
    assert w.scene.edge_item("out", "value").state == NodeStatus.ERROR  # the wire carries no value
    assert "out of range" in w.scene.node_item("g").toolTip()
    w.scene.select_nodes(["g"])
    assert "out of range" in w.properties.widgets["problem"].text()


def test_clicking_a_port_shows_its_tensor_in_the_viewer(small):
    w = small
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.graph.connect("g", "output", "out", "value")
    w.runner.wait()
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, port_point(w, "g", "indices", False))
    assert w.viewer.current.name == "g.indices"
    assert w.viewer.current.array.tolist() == [2, 0]
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, port_point(w, "g", "output", True))
    assert w.viewer.current.name == "g.output" and w.viewer.current.array.shape == (2, 4)
    # selecting a node shows its output
    w.scene.select_nodes(["data"])
    assert w.viewer.current.name == "data.output" and w.viewer.current.array.shape == (3, 4)
    assert w.graph.edges and w.undo_stack.count() == 0             # clicks changed nothing


def test_inline_previews_toggle(small):
    w = small
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.runner.wait()
    item = w.scene.node_item("g")
    short = item.boundingRect().height()
    w.previews_action.trigger()
    assert w.previews_action.isChecked()
    assert item._preview is not None and item._preview.width() > 0
    assert item.boundingRect().height() > short
    before = item._preview
    w.graph.set_attribute("g", "axis", 1)          # a new value: a new thumbnail
    w.runner.wait()
    assert item._preview is not before and item._preview.size() == before.size()
    w.previews_action.trigger()
    assert item.boundingRect().height() == short


def test_click_edge_then_delete_disconnects(small):
    w = small
    w.graph.connect("idx", "output", "g", "indices")
    w.undo_stack.clear()
    edge_item = w.scene.edge_item("g", "indices")
    middle = edge_item.path().pointAtPercent(0.5)
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, w.view.mapFromScene(middle))
    assert w.scene.selected_edges() == [edge_item.edge]
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Delete)
    assert w.graph.edge_into("g", "indices") is None
    assert w.undo_action.text() == "Undo Delete 1 Edge"
    w.undo_stack.undo()
    assert w.graph.edge_into("g", "indices").src == "idx"
    assert "int64[2]" in w.scene.node_item("g").port("indices", False).toolTip()


def test_quick_add_escape_closes_without_adding(small):
    w = small
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Tab)
    assert w.quick_add.isVisible()
    QTest.keyClicks(w.quick_add.field, "gath")
    QTest.keyClick(w.quick_add.field, QtCore.Qt.Key.Key_Escape)
    assert not w.quick_add.isVisible()
    assert len(w.graph.nodes) == 4 and w.undo_stack.count() == 0


def test_wire_turns_red_over_a_refusing_port_with_the_reason(small):
    w = small
    vp = w.view.viewport()
    start = port_point(w, "data", "output", True)
    over = port_point(w, "g", "indices", False)
    QTest.mousePress(vp, LEFT, NOMOD, start)
    QTest.mouseMove(vp, (start + over) / 2)
    QTest.mouseMove(vp, over)
    draft = w.scene.wire_drag.draft
    reason = w.graph.can_connect("data", "output", "g", "indices")
    assert draft.refusal == reason and reason in w.statusBar().currentMessage()
    QTest.mouseMove(vp, port_point(w, "g", "data", False))
    assert draft.refusal is None
    QTest.mouseRelease(vp, LEFT, NOMOD, port_point(w, "g", "data", False))
    assert w.graph.edge_into("g", "data").src == "data"


def test_drag_moves_the_whole_selection_and_select_all_delete(small):
    w = small
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.undo_stack.clear()
    w.scene.select_nodes(["data", "idx"])
    start = w.view.mapFromScene(w.scene.node_item("data").mapToScene(QtCore.QPointF(60, 10)))
    drag(w.view.viewport(), start, start + QtCore.QPoint(-30, 20))
    assert w.graph.node("data").position == pytest.approx((-30, 20), abs=1.5)
    assert w.graph.node("idx").position == pytest.approx((-30, 180), abs=1.5)
    assert w.undo_action.text() == "Undo Move 2 Nodes"
    w.view.setFocus()
    keys(w.view, "Ctrl+A")
    assert len(w.scene.selected_node_ids()) == 4
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Delete)
    assert not w.graph.nodes and not w.scene.items()
    w.undo_stack.undo()
    assert len(w.graph.nodes) == 4 and len(w.graph.edges) == 2
    assert len(w.scene.edge_items()) == 2


def test_palette_greys_out_ops_missing_at_the_opset(small):
    w = small
    grey = lambda key: w.palette.item(key).foreground(0).color().name()  # noqa: E731
    plain = lambda key: w.palette.item(key).foreground(0).style() == QtCore.Qt.BrushStyle.NoBrush  # noqa: E731
    assert grey("op:Scatter") == "#9aa1b1" and "replaced from opset 11" in w.palette.item("op:Scatter").toolTip(0)
    assert grey("op:TensorScatter") == "#9aa1b1" and "needs opset 24" in w.palette.item("op:TensorScatter").toolTip(0)
    assert plain("op:Gather")                  # the palette's own text colour, in either theme
    w.graph.set_setting("opset", 24)
    assert plain("op:TensorScatter")


def test_right_click_menu_selects_node_and_offers_actions(small):
    w = small
    at = w.view.mapFromScene(w.scene.node_item("g").mapToScene(QtCore.QPointF(60, 10)))
    event = QtGui.QContextMenuEvent(QtGui.QContextMenuEvent.Reason.Mouse, at, w.view.viewport().mapToGlobal(at))
    QtWidgets.QApplication.sendEvent(w.view.viewport(), event)
    menu = w.canvas_menu.menu
    assert menu.isVisible()
    assert w.scene.selected_node_ids() == ["g"]
    texts = [a.text() for a in menu.actions() if a.text()]
    assert texts[0] == "&Rename…"                    # on a node: the node's own actions first
    assert any(t.startswith("Add Block Here") for t in texts) and "&Duplicate" in texts and "Paste Here" in texts
    w.duplicate_action.trigger()
    assert len(w.graph.nodes) == 5
    menu.close()


def _wired(w):
    """small graph fully wired by hand, plus a spare int64 literal idx2 = [1, 1]."""
    import numpy as np

    g = w.graph
    g.connect("data", "output", "g", "data")
    g.connect("idx", "output", "g", "indices")
    g.connect("g", "output", "out", "value")
    g.add_literal(np.array([1, 1], np.int64), name="idx2", node_id="idx2", position=(0, 300))
    w.undo_stack.clear()
    w.runner.wait()
    return ["data.output -> g.data", "idx.output -> g.indices", "g.output -> out.value"]


def _hover_wire(w, src: tuple[str, str], dst: tuple[str, str]):
    """Press on output port ``src`` and drag, not yet released, over input port ``dst``;
    returns (viewport, the point over ``dst``)."""
    vp = w.view.viewport()
    start, over = port_point(w, *src, True), port_point(w, *dst, False)
    QTest.mousePress(vp, LEFT, NOMOD, start)
    QTest.mouseMove(vp, (start + over) / 2)
    QTest.mouseMove(vp, over)
    return vp, over


def test_drop_on_a_connected_input_replaces_its_wire_in_one_undo_step(small):
    w = small
    before = _wired(w)
    vp, over = _hover_wire(w, ("idx2", "output"), ("g", "indices"))
    # preview: the wire is not red, and the wire it would replace is drawn faded
    assert w.scene.wire_drag.draft.refusal is None
    assert w.scene.edge_item("g", "indices").opacity() == pytest.approx(0.25)
    assert w.statusBar().currentMessage() == "Release to replace the wire from idx"
    QTest.mouseRelease(vp, LEFT, NOMOD, over)
    assert [str(e) for e in w.graph.edges] == \
        ["data.output -> g.data", "g.output -> out.value", "idx2.output -> g.indices"]
    assert w.undo_action.text() == "Undo Replace Connection"
    assert w.undo_stack.count() == 1
    w.runner.wait()
    assert w.runner.value("out").tolist() == [[4, 5, 6, 7], [4, 5, 6, 7]]    # rows 1 and 1 of arange(12)
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert [str(e) for e in w.graph.edges] == before          # the old wire, at its old place
    assert w.scene.edge_item("g", "indices").edge.src == "idx"
    assert w.scene.edge_item("g", "indices").opacity() == 1.0
    w.runner.wait()
    assert w.runner.value("out").tolist() == [[8, 9, 10, 11], [0, 1, 2, 3]]  # rows 2 and 0
    keys(w.view, "Ctrl+Shift+Z")
    assert w.graph.edge_into("g", "indices").src == "idx2"


def test_drop_on_a_connected_input_still_refuses_for_type_reasons(small):
    w = small
    before = _wired(w)
    # float32 'data' onto the connected integer-only 'indices': red while hovering, refused on drop
    vp, over = _hover_wire(w, ("data", "output"), ("g", "indices"))
    refusal = w.scene.wire_drag.draft.refusal
    assert refusal and "integer" in refusal and "float32" in refusal
    assert "already connected" not in refusal
    assert w.scene.edge_item("g", "indices").opacity() == 1.0    # nothing would be replaced
    QTest.mouseRelease(vp, LEFT, NOMOD, over)
    assert [str(e) for e in w.graph.edges] == before
    assert w.edits.last_refusal == refusal and w.undo_stack.count() == 0
    # a cycle is refused too: out's source g may not feed g itself
    drag(vp, port_point(w, "g", "output", True), port_point(w, "g", "data", False))
    assert "cycle" in w.edits.last_refusal and [str(e) for e in w.graph.edges] == before
    # dropping the same wire again changes nothing
    drag(vp, port_point(w, "idx", "output", True), port_point(w, "g", "indices", False))
    assert [str(e) for e in w.graph.edges] == before and w.undo_stack.count() == 0


def test_dragged_wire_end_onto_a_connected_input_replaces_it(small):
    w = small
    _wired(w)
    g = w.graph
    g.add_operator("Gather", {"axis": 1}, node_id="g2", position=(320, 300))
    g.connect("data", "output", "g2", "data")
    g.connect("idx2", "output", "g2", "indices")
    w.undo_stack.clear()
    before = [str(e) for e in g.edges]
    # pick up the end of idx -> g.indices and drop it on g2.indices (fed by idx2)
    drag(w.view.viewport(), port_point(w, "g", "indices", False), port_point(w, "g2", "indices", False))
    assert g.edge_into("g", "indices") is None
    assert g.edge_into("g2", "indices").src == "idx"
    assert len(g.edges) == len(before) - 1
    assert w.undo_action.text() == "Undo Replace Connection"
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert [str(e) for e in g.edges] == before
    keys(w.view, "Ctrl+Shift+Z")
    assert g.edge_into("g", "indices") is None and g.edge_into("g2", "indices").src == "idx"
    keys(w.view, "Ctrl+Z")
    assert [str(e) for e in g.edges] == before


def test_a_freshly_dropped_block_is_unfinished_work_not_an_error(small):
    """A block whose inputs are not connected yet is drawn calmly (dashed grey outline, its
    own header colour, "connect data, indices, updates"), the panel says what to connect in
    grey, and the status bar counts it as "to connect", not as an error; wiring it up makes
    it an ordinary node."""
    import numpy as np

    w = small
    before = set(w.graph.node_ids)
    _drop(w, "op:ScatterND", scene_point(w, 300, 420))
    (nid,) = set(w.graph.node_ids) - before
    w.runner.wait()
    state, message = w.scene.node_state(nid)
    assert state == NodeStatus.INCOMPLETE
    assert message == "inputs 'data', 'indices' and 'updates' are not connected"
    w.scene.select_nodes([nid])
    problem = w.properties.widgets["problem"]
    assert problem.text() == message and "#d43c3c" not in problem.styleSheet()
    w.run_action.trigger()
    assert w.runner.wait(10)
    # the small graph's Gather and output are not wired up either: 3 blocks to connect
    assert "3 to connect" in w.run_status.run_label.text() and "error" not in w.run_status.run_label.text()
    image = w.view.grab().toImage()
    header = w.view.mapFromScene(w.scene.node_item(nid).sceneBoundingRect().topLeft() + QtCore.QPointF(40, 6))
    red = image.pixelColor(header)
    assert not (red.red() > 180 and red.green() < 90), red.name()   # not the error red
    g = w.graph
    g.add_literal(np.zeros((4,), np.float32), node_id="d")
    g.add_literal(np.array([[1]], np.int64), node_id="i")
    g.add_literal(np.array([5.0], np.float32), node_id="u")
    g.connect("d", "output", nid, "data")
    assert w.scene.node_state(nid) == (NodeStatus.INCOMPLETE, "inputs 'indices' and 'updates' are not connected")
    g.connect("i", "output", nid, "indices")
    g.connect("u", "output", nid, "updates")
    w.runner.wait()
    assert w.scene.node_state(nid)[0] == NodeStatus.OK
    assert w.runner.value(nid).tolist() == [0.0, 5.0, 0.0, 0.0]


def test_a_drop_of_block_data_that_is_not_utf8_is_an_unknown_block(small):
    """Another application's bytes under the palette's format raised UnicodeDecodeError."""
    w = small
    before = set(w.graph.node_ids)
    mime = QtCore.QMimeData()
    mime.setData(MIME_TYPE, QtCore.QByteArray(b"\xff\xfe\x00"))
    _send_drop(w, mime, scene_point(w, 300, 400))
    assert set(w.graph.node_ids) == before
    assert "unknown block" in w.statusBar().currentMessage()


def test_a_name_with_line_breaks_is_drawn_on_one_line_with_the_breaks_shown(small):
    """A name holding line breaks (any string is a valid name) showed one of its lines only."""
    w = small

    def drawn(name: str) -> bytes:
        w.graph.rename_node("g", name)
        item = w.scene.node_item("g")
        rect = item.sceneBoundingRect()
        image = QtGui.QImage(int(rect.width()), int(rect.height()), QtGui.QImage.Format.Format_ARGB32)
        image.fill(0)
        painter = QtGui.QPainter(image)
        w.scene.render(painter, QtCore.QRectF(image.rect()), rect)
        painter.end()
        return bytes(image.constBits())

    broken = drawn("top\nbottom")
    assert w.graph.node("g").name == "top\nbottom"          # the name itself is kept as given
    assert broken == drawn("top⏎bottom")
    assert drawn("tab\there") == drawn("tab·here")


def test_a_graph_file_dropped_from_a_file_manager_opens(small, qtbot, tmp_path, dialogs):
    """A .ifg.json file dropped on the canvas was taken and ignored; it opens as File > Open
    would (after asking about unsaved changes), and an ONNX model is imported."""
    from nodeeditor.graph import Graph, save_graph

    w = small
    other = Graph(name="dropped graph")
    other.add_literal(np.arange(3, dtype=np.float32), name="v", node_id="v")
    path = save_graph(other, tmp_path / "dropped.ifg.json")
    mime = QtCore.QMimeData()
    mime.setUrls([QtCore.QUrl.fromLocalFile(str(path))])
    assert _send_drop(w, mime, scene_point(w, 300, 400))
    qtbot.waitUntil(lambda: w.graph.name == "dropped graph", timeout=10000)   # opened after the drop returns
    assert w.files.current_path == path
