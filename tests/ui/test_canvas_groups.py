"""Groups: a chain of foreign ONNX nodes collapsed into one block on the canvas (Ctrl+G, the
menus, Collapse Foreign Chains) and expanded again (double-click, the menu), driven with the
real mouse and keys. The block has one input per tensor entering the chain and one output per
tensor leaving it (read off the model below by hand), wires end at those ports, a wire can be
drawn from one, and undo, save and open keep the collapsed state."""
from __future__ import annotations

import json

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import Graph, load_graph, save_graph
from nodeeditor.graph import nodes as N
from nodeeditor.graph.status import NodeStatus
from nodeeditor.onnx_io import import_model
from nodeeditor.onnx_io.foreign_ops import new_foreign_node

from ..onnx_io.realistic import embedding_model, kv_cache_model
from .helpers import LEFT, NOMOD, deliver_posted_events, drag, keys, press_and_move, save_shot

CTRL = QtCore.Qt.KeyboardModifier.ControlModifier


def _open(window, graph, zoom=0.55):
    window.set_document(graph, None)
    deliver_posted_events()                 # the opening frame (a zero-delay timer)
    window.view.resetTransform()
    window.view.scale(zoom, zoom)
    window.runner.wait()


def _ids(graph):
    """The embedding classifier's node ids by ONNX node or tensor name."""
    by_name = {n.name: n.id for n in graph.nodes}
    return {key: by_name[name] for key, name in (
        ("gather", "look up"), ("matmul", "project"), ("add", "bias"), ("softmax", "softmax"),
        ("weight", "head weight"), ("bias_tensor", "head bias"), ("out", "class probabilities"))}


def _embedding(window, extra_output=False):
    graph = import_model(embedding_model())
    if extra_output:                        # an output nothing feeds yet, for a wire from the block
        graph.add_output("copy", position=(1500.0, 420.0), node_id="copy")
    _open(window, graph)
    ids = _ids(window.graph)
    window.view.centerOn(QtCore.QPointF(950, 260))
    return ids


def _header(window, item) -> QtCore.QPoint:
    """Viewport point on an item's title row."""
    return window.view.mapFromScene(item.mapToScene(QtCore.QPointF(60, 10)))


def _select_by_clicks(window, node_ids):
    vp = window.view.viewport()
    for i, nid in enumerate(node_ids):
        QTest.mouseClick(vp, LEFT, CTRL if i else NOMOD, _header(window, window.scene.node_item(nid)))
    assert set(window.scene.selected_node_ids()) == set(node_ids)


def _focus(window, qtbot):
    """Keys to the canvas: the window active (a closed menu may have left it inactive), the view focused."""
    window.activateWindow()
    window.view.setFocus()
    qtbot.waitUntil(lambda: window.view.hasFocus(), timeout=10000)


def _context_menu(window, point: QtCore.QPoint) -> QtWidgets.QMenu:
    event = QtGui.QContextMenuEvent(QtGui.QContextMenuEvent.Reason.Mouse, point,
                                    window.view.viewport().mapToGlobal(point))
    QtWidgets.QApplication.sendEvent(window.view.viewport(), event)
    menu = window.canvas_menu.menu
    assert menu.isVisible()
    return menu


def _action(menu, text):
    return next(a for a in menu.actions() if a.text().replace("&", "").split("\t")[0] == text)


def _close(a: QtCore.QPointF, b: QtCore.QPointF) -> bool:
    return abs(a.x() - b.x()) < 0.5 and abs(a.y() - b.y()) < 0.5


def test_ctrl_g_collapses_a_chain_into_a_block_wired_at_its_boundary_and_a_double_click_expands_it(window, qtbot):
    w = window
    ids = _embedding(w, extra_output=True)
    chain = [ids["matmul"], ids["add"], ids["softmax"]]
    positions = {n.id: n.position for n in w.graph.nodes}
    save_shot(w.view, "canvas/group_before")
    _select_by_clicks(w, chain)
    _focus(w, qtbot)
    keys(w.view, "Ctrl+G")
    (frame,) = w.graph.frames
    assert frame.collapsed and frame.title == "MatMul → Add → Softmax" and set(frame.nodes) == set(chain)
    assert w.undo_action.text() == "Undo Collapse 3 Nodes into a Group"
    block = w.scene.groups.item(frame.id)
    assert block.isVisible() and block.isSelected()
    assert not any(w.scene.node_item(n).isVisible() for n in chain)
    assert not w.scene.frame_item(frame.id).isVisible()
    # inputs: the Gather's output, the weight and the bias (each read by one op of the chain);
    # output: the softmax's probabilities, read by the graph output
    assert list(block.inputs) == [(ids["gather"], "output"), (ids["weight"], "output"),
                                  (ids["bias_tensor"], "output")]
    softmax_out = w.graph.node(ids["softmax"]).outputs[0]
    assert list(block.outputs) == [(ids["softmax"], softmax_out)]
    # wires crossing the boundary end at the block's ports; the ones inside are hidden
    into = w.scene.edge_item(ids["matmul"], "A")
    assert into.isVisible()
    assert _close(into.path().pointAtPercent(1), block.inputs[(ids["gather"], "output")].scenePos())
    assert not w.scene.edge_item(ids["add"], "A").isVisible()
    out = w.scene.edge_item(ids["out"], "value")
    assert _close(out.path().pointAtPercent(0), block.outputs[(ids["softmax"], softmax_out)].scenePos())
    # the block starts at its members' top-left corner (no other node is there)
    assert (block.pos().x(), block.pos().y()) == (min(positions[n][0] for n in chain),
                                                 min(positions[n][1] for n in chain))
    save_shot(w.view, "canvas/group_after")
    # a wire from the block's output port to a free input connects the softmax's tensor
    port = block.outputs[(ids["softmax"], softmax_out)]
    target = w.scene.node_item("copy").port_scene_pos("value", False)
    w.view.centerOn((port.scenePos() + target) / 2)
    drag(w.view.viewport(), w.view.mapFromScene(port.scenePos()), w.view.mapFromScene(target))
    assert w.graph.edge_into("copy", "value") == N.Edge(ids["softmax"], softmax_out, "copy", "value")
    wire = w.scene.edge_item("copy", "value")
    assert _close(wire.path().pointAtPercent(0), port.scenePos())
    # undo the wire, then the collapse: every member drawn again where it was
    _focus(w, qtbot)
    keys(w.view, "Ctrl+Z")
    assert w.graph.edge_into("copy", "value") is None
    keys(w.view, "Ctrl+Z")
    assert not w.graph.frames and all(w.scene.node_item(n).isVisible() for n in chain)
    assert w.scene.edge_item(ids["add"], "A").isVisible()
    assert _close(w.scene.edge_item(ids["matmul"], "A").path().pointAtPercent(1),
                  w.scene.node_item(ids["matmul"]).port_scene_pos("A", False))
    keys(w.view, "Ctrl+Shift+Z")
    (frame,) = w.graph.frames
    block = w.scene.groups.item(frame.id)
    assert frame.collapsed and block.isVisible()
    # double-click the block: expanded, the members where they were, selected, in their frame
    w.view.centerOn(block.sceneBoundingRect().center())
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, _header(w, block))     # a double-click's first click
    QTest.mouseDClick(w.view.viewport(), LEFT, NOMOD, _header(w, block))
    assert not w.graph.frame(frame.id).collapsed
    assert all(w.scene.node_item(n).isVisible() for n in chain)
    assert {n: w.graph.node(n).position for n in chain} == {n: positions[n] for n in chain}
    assert {n: (w.scene.node_item(n).pos().x(), w.scene.node_item(n).pos().y()) for n in chain} == \
        {n: positions[n] for n in chain}
    assert set(w.scene.selected_node_ids()) == set(chain)
    assert w.scene.frame_item(frame.id).isVisible() and not w.scene.groups.items()
    # the expanded group is a frame: its title's menu collapses it again
    title = w.view.mapFromScene(w.scene.frame_item(frame.id).title_rect().center())
    menu = _context_menu(w, title)
    _action(menu, "Collapse into Group").trigger()
    menu.close()
    assert [f.id for f in w.graph.frames] == [frame.id] and w.graph.frame(frame.id).collapsed


def test_the_menus_collapse_and_expand_and_the_block_moves_shows_copies_and_deletes_its_members(window, qtbot):
    w = window
    ids = _embedding(w)
    chain = [ids["matmul"], ids["add"], ids["softmax"]]
    _select_by_clicks(w, chain)
    menu = _context_menu(w, _header(w, w.scene.node_item(ids["add"])))
    _action(menu, "Collapse into Group").trigger()
    menu.close()
    (frame,) = w.graph.frames
    block = w.scene.groups.item(frame.id)
    # the property panel says what is inside
    qtbot.waitUntil(lambda: w.properties.group_id == frame.id, timeout=10000)
    inside = w.properties.widgets["group_members"].text()
    assert all(f"{w.graph.node(n).name} <span" in inside for n in chain)
    assert "ONNX op MatMul" in inside and "ONNX op Softmax" in inside
    assert "head weight" in w.properties.widgets["group_inputs"].text()
    assert "class probabilities" in w.properties.widgets["group_outputs"].text()
    assert w.viewer_target.target.node_id == ids["softmax"]     # the tensor the group gives out
    members = w.properties.widgets["group_members"]
    qtbot.waitUntil(lambda: members.height() >= members.sizeHint().height(), timeout=10000)   # laid out
    assert w.scene.card is None                       # no card left for the softmax the pointer was on
    save_shot(w, "canvas/group_properties")
    # a click on empty canvas: the panel shows the graph again
    empty = QtCore.QPoint(5, 5)
    assert not w.scene.items(w.view.mapToScene(empty))
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, empty)
    assert w.properties.group_id is None and w.properties.node_id is None
    assert "graph_name" in w.properties.widgets
    # drag the block: its members move with it, one undo step
    before = {n: w.graph.node(n).position for n in chain}
    start = _header(w, block)
    drag(w.view.viewport(), start, start + QtCore.QPoint(60, 40))
    dx, dy = 60 / w.view.zoom, 40 / w.view.zoom
    for n in chain:
        assert abs(w.graph.node(n).position[0] - (before[n][0] + dx)) < 2
        assert abs(w.graph.node(n).position[1] - (before[n][1] + dy)) < 2
    w.undo_stack.undo()
    assert {n: w.graph.node(n).position for n in chain} == before
    # copy and paste: a second collapsed group of the copies
    w.scene.clearSelection()
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, _header(w, block))
    assert set(w.scene.selected_node_ids()) == set(chain)
    _focus(w, qtbot)
    keys(w.view, "Ctrl+C")
    keys(w.view, "Ctrl+V")
    pasted = [f for f in w.graph.frames if f.id != frame.id]
    assert len(pasted) == 1 and pasted[0].collapsed and len(pasted[0].nodes) == 3
    assert not set(pasted[0].nodes) & set(chain)
    w.undo_stack.undo()
    # F2 renames the group in place
    w.scene.clearSelection()
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, _header(w, block))
    _focus(w, qtbot)
    keys(w.view, "F2")
    editor = w.node_actions.editor
    assert editor.isVisible() and editor.text() == "MatMul → Add → Softmax"
    QTest.keyClicks(editor, "classifier head")
    QTest.keyClick(editor, QtCore.Qt.Key.Key_Return)
    assert w.graph.frame(frame.id).title == "classifier head"
    # Delete with the block selected: its members and its frame go; undo brings them back collapsed
    w.scene.clearSelection()
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, _header(w, block))
    _focus(w, qtbot)
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Delete)
    assert not w.graph.frames and not any(w.graph.has_node(n) for n in chain)
    w.undo_stack.undo()
    assert w.graph.frame(frame.id).collapsed and w.graph.frame(frame.id).nodes == tuple(chain)
    block = w.scene.groups.item(frame.id)
    assert block.isVisible() and not any(w.scene.node_item(n).isVisible() for n in chain)
    # the block's menu: expand
    menu = _context_menu(w, _header(w, block))
    texts = [a.text().replace("&", "").split("\t")[0] for a in menu.actions() if a.text()]
    assert texts[:3] == ["Expand Group", "Rename Group…", "Colour"]
    assert "Remove Group (Keep Its Nodes)" in texts
    _action(menu, "Expand Group").trigger()
    menu.close()
    assert not w.graph.frame(frame.id).collapsed and all(w.scene.node_item(n).isVisible() for n in chain)


def test_collapse_foreign_chains_groups_the_index_builders_and_the_groups_survive_save_and_open(
        window, qtbot, tmp_path):
    w = window
    _open(w, import_model(kv_cache_model()), zoom=0.4)
    names = {n.id: n.name for n in w.graph.nodes}
    menu = _context_menu(w, QtCore.QPoint(5, 5))
    _action(menu, "Collapse Foreign Chains").trigger()
    menu.close()
    groups = {frozenset(names[n] for n in f.nodes) for f in w.graph.frames}
    # read off the model: every foreign node whose one reader is a foreign node joins it. The
    # three Gathers (first-class) and the ScatterND stay out; "shape of new", "const zero" and
    # "const one" have several readers, "grid shape" three Expands.
    assert groups == {
        frozenset({"const last", "const slice starts", "const slice ends", "bhs", "grid shape"}),
        frozenset({"const axes b", "const axes h", "const axes p", "end", "b range", "h range", "p range",
                   "b col", "h col", "p col", "b grid", "h grid", "p grid", "write indices"}),
        frozenset({"keys t", "scores"}),
    }
    assert all(f.collapsed for f in w.graph.frames)
    assert w.undo_action.text() == "Undo Collapse 3 Foreign Chains"
    # each block is drawn where it covers no node still drawn and no other block
    def outline(item):
        return item.mapRectToScene(item.shape().boundingRect())

    blocks = w.scene.groups.items()
    drawn = [outline(i) for i in w.scene.node_items() if i.isVisible()]
    for block in blocks:
        others = drawn + [outline(b) for b in blocks if b is not block]
        assert not any(outline(block).intersects(r) for r in others), block.frame().title
    write = next(n.id for n in w.graph.nodes if n.name == "write keys")
    assert w.scene.node_item(write).isVisible()
    _focus(w, qtbot)
    keys(w.view, "Ctrl+A")                      # select all: the blocks too
    assert all(block.isSelected() for block in w.scene.groups.items())
    assert set(w.scene.selected_node_ids()) == set(w.graph.node_ids)
    keys(w.view, "Ctrl+Shift+G")                # expand every selected group, one undo step
    assert not any(f.collapsed for f in w.graph.frames) and not w.scene.groups.items()
    assert all(item.isVisible() for item in w.scene.node_items())
    assert w.undo_action.text() == "Undo Expand 3 Groups"
    keys(w.view, "Ctrl+Z")
    assert all(f.collapsed for f in w.graph.frames) and len(w.scene.groups.items()) == 3
    w.view.frame(False, readable=False)
    save_shot(w.view, "canvas/group_foreign_chains")
    # saved and opened again: still three blocks, the members hidden
    save_graph(w.graph, tmp_path / "kv.ifg.json")
    _open(w, load_graph(tmp_path / "kv.ifg.json"))
    assert len(w.scene.groups.items()) == 3
    assert not any(w.scene.node_item(n).isVisible() for f in w.graph.frames for n in f.nodes)
    # a file written before groups existed (no "collapsed" field): its frames open expanded
    raw = json.loads((tmp_path / "kv.ifg.json").read_text())
    for frame in raw["frames"]:
        del frame["collapsed"]
    (tmp_path / "old.ifg.json").write_text(json.dumps(raw))
    _open(w, load_graph(tmp_path / "old.ifg.json"))
    assert len(w.graph.frames) == 3 and not w.scene.groups.items()
    assert all(w.scene.frame_item(f.id).isVisible() for f in w.graph.frames)
    assert all(item.isVisible() for item in w.scene.node_items())


def test_a_problem_inside_a_collapsed_group_shows_on_the_blocks_border(window, qtbot):
    w = window
    g = Graph("bad shapes")
    g.add_literal(np.ones((2, 3), np.float32), name="x", node_id="x", position=(0, 0))
    g.add_literal(np.ones((4, 4), np.float32), name="w", node_id="w", position=(0, 160))
    g.add_node(new_foreign_node("MatMul", node_id="mm", name="mm", position=(300, 40)))
    g.add_node(new_foreign_node("Relu", node_id="relu", name="relu", position=(600, 40)))
    g.add_output("out", node_id="out", position=(900, 40))
    mm = g.node("mm")
    g.connect("x", "output", "mm", mm.inputs[0])
    g.connect("w", "output", "mm", mm.inputs[1])
    g.connect("mm", mm.outputs[0], "relu", g.node("relu").inputs[0])
    g.connect("relu", g.node("relu").outputs[0], "out", "value")
    _open(w, g, zoom=0.8)
    w.view.centerOn(QtCore.QPointF(450, 80))
    # MatMul of [2, 3] by [4, 4]: the inner dimensions differ (ONNX MatMul, numpy matmul rules)
    assert w.scene.node_state("mm")[0] == NodeStatus.ERROR
    _select_by_clicks(w, ["mm", "relu"])
    _focus(w, qtbot)
    keys(w.view, "Ctrl+G")
    (frame,) = w.graph.frames
    assert frame.title == "MatMul → Relu"
    block = w.scene.groups.item(frame.id)
    assert block.state() == NodeStatus.ERROR and block.problem()[1].startswith("mm: ")
    w.scene.clearSelection()          # the border in the error's colour, not the selection's
    save_shot(w.view, "canvas/group_error")


def _scatter_chain(window):
    """x -> s1 -> s2 -> s3 -> out, three ScatterElements (operators that can be bypassed), each
    writing upd at idx; s1 and s2 collapsed into a group (Ctrl+G); returns the block."""
    g = Graph("scatters")
    g.add_literal(np.zeros(4, np.float32), name="x", node_id="x", position=(0, 0))
    g.add_literal(np.array([1], np.int64), name="idx", node_id="idx", position=(0, 160))
    g.add_literal(np.ones(1, np.float32), name="upd", node_id="upd", position=(0, 320))
    previous = "x"
    for i, nid in enumerate(("s1", "s2", "s3")):
        g.add_operator("ScatterElements", node_id=nid, position=(300 + 300 * i, 40))
        g.connect(previous, "output", nid, "data")
        g.connect("idx", "output", nid, "indices")
        g.connect("upd", "output", nid, "updates")
        previous = nid
    g.add_output("out", node_id="out", position=(1200, 40))
    g.connect("s3", "output", "out", "value")
    _open(window, g, zoom=0.5)
    window.view.centerOn(QtCore.QPointF(600, 150))
    _select_by_clicks(window, ["s1", "s2"])
    return window.node_actions.groups, g


def test_node_actions_with_a_group_block_selected_are_refused_with_a_reason_and_change_nothing(window, qtbot):
    w = window
    groups, _ = _scatter_chain(w)
    _focus(w, qtbot)
    keys(w.view, "Ctrl+G")
    (frame,) = w.graph.frames
    block = w.scene.groups.item(frame.id)
    w.scene.clearSelection()
    QTest.mouseClick(w.view.viewport(), LEFT, NOMOD, _header(w, block))
    assert block.isSelected()
    steps = w.undo_stack.count()
    # Ctrl+B, H, Ctrl+J: nothing happens to the hidden members, the status line says why
    _focus(w, qtbot)
    for key, what in (("Ctrl+B", "Bypass"), ("H", "Collapse"), ("Ctrl+J", "New Frame Around Selection")):
        w.statusBar().clearMessage()
        keys(w.view, key)
        assert w.statusBar().currentMessage().startswith(f"{what} works on nodes, and a group block is not one")
    deliver_posted_events()                 # the layout requests of the panel's labels, as a paint would
    inside = w.properties.widgets["group_members"]
    assert inside.text().count("<br>") == 1 and inside.height() >= inside.heightForWidth(inside.width())
    save_shot(w, "canvas/group_refused_action")
    assert w.undo_stack.count() == steps
    assert not any(w.graph.node(n).bypassed or w.graph.node(n).collapsed for n in ("s1", "s2"))
    assert [f.id for f in w.graph.frames] == [frame.id]
    # the Edit menu shows them disabled, each with the reason as its tooltip
    na = w.node_actions
    for action in (na.bypass_action, na.collapse_action, na.frame_action):
        assert not action.isEnabled() and "expand the group (Ctrl+Shift+G)" in action.toolTip()
    assert na.rename_action.isEnabled() and na.groups.expand_action.isEnabled()
    # the block and a node drawn beside it: Ctrl+B bypasses the drawn node only, one undo step
    QTest.mouseClick(w.view.viewport(), LEFT, CTRL, _header(w, w.scene.node_item("s3")))
    assert block.isSelected() and w.scene.node_item("s3").isSelected()
    _focus(w, qtbot)
    keys(w.view, "Ctrl+B")
    assert w.graph.node("s3").bypassed and not w.graph.node("s1").bypassed and not w.graph.node("s2").bypassed
    assert w.undo_action.text() == "Undo Bypass s3"


def test_auto_layout_places_each_block_whole_and_no_node_on_a_block(window, qtbot):
    w = window
    _open(w, import_model(kv_cache_model()), zoom=0.4)
    menu = _context_menu(w, QtCore.QPoint(5, 5))
    _action(menu, "Collapse Foreign Chains").trigger()
    menu.close()
    assert len(w.scene.groups.items()) == 3
    before = {n.id: n.position for n in w.graph.nodes}
    _focus(w, qtbot)
    keys(w.view, "Ctrl+L")                       # Edit > Auto Layout
    assert w.undo_action.text() == "Undo Auto Layout"
    blocks = w.scene.groups.items()
    for block in blocks:                          # every member moved by the same step
        members = block.frame().nodes
        steps = {(round(w.graph.node(n).position[0] - before[n][0], 6), round(w.graph.node(n).position[1]
                                                                               - before[n][1], 6)) for n in members}
        assert len(steps) == 1, block.frame().title
    drawn = [(i.node_id, i.sceneBoundingRect()) for i in w.scene.node_items() if i.isVisible()]
    for block in blocks:
        outline = block.drawn_rect()
        assert not [nid for nid, rect in drawn if rect.intersects(outline)], block.frame().title
        assert not any(outline.intersects(b.drawn_rect()) for b in blocks if b is not block)
    w.view.frame(False, readable=False)
    save_shot(w.view, "canvas/group_auto_layout")
    keys(w.view, "Ctrl+Z")
    assert {n.id: n.position for n in w.graph.nodes} == before


def test_a_wire_dropped_on_a_blocks_input_feeds_every_member_reading_it_and_one_picked_up_leaves_them(
        window, qtbot):
    w = window
    _, g = _scatter_chain(w)
    w.graph.add_literal(np.array([3], np.int64), name="idx2", node_id="idx2", position=(0, 480))
    _focus(w, qtbot)
    keys(w.view, "Ctrl+G")                       # s1 and s2 each read idx (indices) and upd (updates)
    (frame,) = w.graph.frames
    block = w.scene.groups.item(frame.id)
    w.view.centerOn(QtCore.QPointF(500, 300))
    vp = w.view.viewport()

    def at(item):
        return w.view.mapFromScene(item.scenePos())

    def fed(port):
        return {n: (e.src if (e := w.graph.edge_into(n, port)) else None) for n in ("s1", "s2", "s3")}

    # a new wire from idx2 dropped on the block's "idx" input: both members read idx2 now
    steps = w.undo_stack.count()
    drag(vp, w.view.mapFromScene(w.scene.node_item("idx2").port_scene_pos("output", True)),
         at(block.inputs[("idx", "output")]))
    assert fed("indices") == {"s1": "idx2", "s2": "idx2", "s3": "idx"}
    assert w.undo_stack.count() == steps + 1 and w.undo_action.text() == "Undo Replace Connection (2 Inputs)"
    assert ("idx2", "output") in block.inputs and ("idx", "output") not in block.inputs
    # picked up from that input and dropped on s3's indices: s3 reads idx2, the members nothing
    drag(vp, at(block.inputs[("idx2", "output")]),
         w.view.mapFromScene(w.scene.node_item("s3").port_scene_pos("indices", False)))
    assert fed("indices") == {"s1": None, "s2": None, "s3": "idx2"}
    assert w.undo_stack.count() == steps + 2
    _focus(w, qtbot)
    keys(w.view, "Ctrl+Z")
    assert fed("indices") == {"s1": "idx2", "s2": "idx2", "s3": "idx"}
    # the "upd" input dragged off to empty canvas: both members let go of it, one undo step
    mark = at(block.inputs[("upd", "output")])
    empty = mark + QtCore.QPoint(-60, 150)
    assert not [i for i in w.scene.items(w.view.mapToScene(empty)) if i.isVisible() and i.parentItem() is None
                and not isinstance(i, QtWidgets.QGraphicsPathItem)]
    drag(vp, mark, empty)
    assert fed("updates") == {"s1": None, "s2": None, "s3": "upd"}
    _focus(w, qtbot)
    keys(w.view, "Ctrl+Z")
    assert fed("updates") == {"s1": "upd", "s2": "upd", "s3": "upd"}
    keys(w.view, "Ctrl+Z")
    assert fed("indices") == {"s1": "idx", "s2": "idx", "s3": "idx"}
    save_shot(w.view, "canvas/group_input_marks")


def test_a_wire_over_a_blocks_input_is_refused_when_any_member_reading_it_refuses(window, qtbot):
    """The mark for idx stands for Identity's input (which takes any tensor) and s1's indices
    (integers only): a float wire held over it is refused, with s1's reason on the status line,
    and dropping it changes nothing."""
    w = window
    g = Graph("readers")
    g.add_literal(np.zeros(4, np.float32), name="x", node_id="x", position=(0, 0))
    g.add_literal(np.array([1], np.int64), name="idx", node_id="idx", position=(0, 160))
    g.add_literal(np.ones(1, np.float32), name="upd", node_id="upd", position=(0, 320))
    g.add_literal(np.ones(1, np.float32), name="f", node_id="f", position=(0, 480))
    g.add_node(new_foreign_node("Identity", node_id="ident", name="ident", position=(300, 200)))
    g.add_operator("ScatterElements", node_id="s1", position=(600, 40))
    g.connect("idx", "output", "ident", "input")
    g.connect("x", "output", "s1", "data")
    g.connect("idx", "output", "s1", "indices")
    g.connect("upd", "output", "s1", "updates")
    g.add_output("out", node_id="out", position=(900, 40))
    g.connect("s1", "output", "out", "value")
    _open(w, g, zoom=0.5)
    w.view.centerOn(QtCore.QPointF(450, 250))
    _select_by_clicks(w, ["ident", "s1"])
    _focus(w, qtbot)
    keys(w.view, "Ctrl+G")
    (frame,) = w.graph.frames
    block = w.scene.groups.item(frame.id)
    mark = block.inputs[("idx", "output")]
    assert mark.readers == [("ident", "input"), ("s1", "indices")]   # the first reader accepts floats
    refusal = w.graph.can_replace("f", "output", "s1", "indices")
    assert refusal is not None and w.graph.can_replace("f", "output", "ident", "input") is None
    vp = w.view.viewport()
    start = w.view.mapFromScene(w.scene.node_item("f").port_scene_pos("output", True))
    end = w.view.mapFromScene(mark.scenePos())
    steps = w.undo_stack.count()
    press_and_move(vp, start, end)
    assert w.statusBar().currentMessage() == f"Cannot connect here: {refusal}"   # while hovering
    save_shot(w.view, "canvas/group_mark_refused")
    QTest.mouseRelease(vp, LEFT, NOMOD, end)
    assert w.undo_stack.count() == steps
    assert w.graph.edge_into("ident", "input").src == "idx" and w.graph.edge_into("s1", "indices").src == "idx"
    assert refusal in w.statusBar().currentMessage()
