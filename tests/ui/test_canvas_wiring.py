"""Wiring and finding nodes as other node editors do it, driven with real mouse and key
events: ports and wires coloured by element type (with a legend in Help), a refused wire's
reason beside the pointer, a wire dropped on empty canvas offering the blocks that take it,
and Tab adding in free space near the pointer."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore
from PySide6.QtTest import QTest

from .helpers import LEFT, NOMOD, drag, port_point, press_and_move, save_shot, scene_point

FLOAT_TEXT, INTEGER_TEXT, BOOL_TEXT = "floating point", "integer", "bool"


def _legend_colour(window, starts: str) -> str:
    """The colour the Help legend shows for the row whose text starts with ``starts``."""
    from nodeeditor.ui.help import legend_rows

    dialog = window.show_legend()
    try:
        assert any(row.startswith(starts) for row in dialog.rows)
        return next(colour.name() for colour, _style, text in legend_rows() if text.startswith(starts))
    finally:
        dialog.close()


def test_ports_and_wires_take_the_colour_of_their_element_type_as_the_legend_says(small, qtbot):
    w = small
    vp = w.view.viewport()
    flag = w.graph.add_literal(np.array([True, False]), name="flags", node_id="flags", position=(0, 320))
    out2 = w.graph.add_output("flags out", node_id="out2", position=(320, 320))
    float_colour, int_colour = _legend_colour(w, FLOAT_TEXT), _legend_colour(w, INTEGER_TEXT)
    bool_colour = _legend_colour(w, BOOL_TEXT)
    assert len({float_colour, int_colour, bool_colour}) == 3
    # before any wire: Gather's indices input already shows that it wants integers
    assert w.scene.node_item("g").port("indices", False).pen().color().name() == int_colour
    drag(vp, port_point(w, "data", "output", True), port_point(w, "g", "data", False))
    drag(vp, port_point(w, "idx", "output", True), port_point(w, "g", "indices", False))
    drag(vp, port_point(w, flag, "output", True), port_point(w, out2, "value", False))
    assert w.graph.edge_into("g", "indices") is not None and w.graph.edge_into(out2, "value") is not None
    for dst, port, colour in (("g", "data", float_colour), ("g", "indices", int_colour), (out2, "value", bool_colour)):
        edge = w.scene.edge_item(dst, port)
        assert edge.pen().color().name() == colour, (dst, port)
        assert w.scene.node_item(dst).port(port, False).brush().color().name() == colour
    # and on the screen: the middle of the data wire is drawn in the float colour
    path = w.scene.edge_item("g", "data").path()
    middle = w.view.mapFromScene(path.pointAtPercent(0.5))
    image = w.view.viewport().grab().toImage()
    near = [image.pixelColor(middle.x() + dx, middle.y() + dy).name() for dx in (-1, 0, 1) for dy in (-1, 0, 1)]
    assert float_colour in near
    save_shot(w.view, "canvas/wires_by_type")


def test_a_refused_wire_says_why_beside_the_pointer(small, qtbot):
    w = small
    vp = w.view.viewport()
    start = port_point(w, "data", "output", True)
    target = port_point(w, "g", "indices", False)      # float32 into integer-only indices
    press_and_move(vp, start, target)
    tip = w.scene.wire_drag.tip
    reason = w.graph.can_connect("data", "output", "g", "indices")
    assert reason and tip.isVisible() and tip.text == reason
    # beside the pointer: its box starts a few pixels right of and below it, at screen size
    box = w.view.mapFromScene(tip.mapToScene(tip.boundingRect())).boundingRect()
    assert 0 < box.left() - target.x() < 30 and 0 < box.top() - target.y() < 30
    save_shot(w.view, "canvas/refusal_beside_pointer")
    QTest.mouseMove(vp, scene_point(w, 300, 330))      # off the port: the tip goes
    assert not tip.isVisible()
    QTest.mouseMove(vp, target)
    assert tip.isVisible()
    QTest.mouseRelease(vp, LEFT, NOMOD, target)
    assert w.scene.wire_drag is None and not tip.scene()
    assert w.graph.edge_into("g", "indices") is None


def test_a_wire_dropped_on_empty_canvas_offers_the_blocks_that_take_it_and_connects_the_one_chosen(small, qtbot):
    w = small
    vp = w.view.viewport()
    before = set(w.graph.node_ids)
    drop = scene_point(w, 330, 330)
    drag(vp, port_point(w, "idx", "output", True), drop)         # int64 indices, dropped on nothing
    assert w.quick_add.isVisible()
    listed = w.quick_add.keys()
    assert "op:GatherND" in listed and "output" in listed
    assert not any(key.startswith(("literal", "gen:", "file", "input")) for key in listed)   # no inputs
    labels = [w.quick_add.list.item(i).text() for i in range(w.quick_add.list.count())]
    assert any(label.startswith("GatherND") and label.endswith("indices") for label in labels)
    save_shot(w.view, "canvas/wire_drop_quick_add")
    QTest.keyClicks(w.quick_add.field, "gathernd")
    QTest.keyClick(w.quick_add.field, QtCore.Qt.Key.Key_Return)
    (new,) = set(w.graph.node_ids) - before
    assert w.graph.node(new).op == "GatherND"
    edge = w.graph.edge_into(new, "indices")
    assert (edge.src, edge.src_port) == ("idx", "output")
    # beside the drop point, to its right, over no other node
    item = w.scene.node_item(new).sceneBoundingRect()
    others = [i.sceneBoundingRect() for i in w.scene.node_items() if i.node_id != new]
    assert not any(item.intersects(r) for r in others)
    assert QtCore.QLineF(item.topLeft(), QtCore.QPointF(330, 330)).length() < 200
    assert w.undo_action.text() == "Undo Add GatherND and Connect"
    w.undo_stack.undo()                                           # one step: node and wire
    assert set(w.graph.node_ids) == before and w.graph.edge_into("g", "indices") is None
    w.undo_stack.redo()
    assert w.graph.edge_into(new, "indices") is not None


def test_a_wire_drawn_back_from_a_free_input_and_dropped_on_canvas_adds_a_source_for_it(small, qtbot):
    w = small
    vp = w.view.viewport()
    before = set(w.graph.node_ids)
    drag(vp, port_point(w, "g", "indices", False), scene_point(w, 150, 330))
    assert w.quick_add.isVisible()
    listed = w.quick_add.keys()
    assert "literal:indices" in listed and "gen:integers" in listed
    assert "literal" not in listed        # float32: Gather's indices take integers only
    assert "output" not in listed         # an output node has no output port
    QTest.keyClicks(w.quick_add.field, "literal indices")
    QTest.keyClick(w.quick_add.field, QtCore.Qt.Key.Key_Return)
    (new,) = set(w.graph.node_ids) - before
    edge = w.graph.edge_into("g", "indices")
    assert edge.src == new
    # placed to the left of the input it feeds, over no other node
    added = w.scene.node_item(new).sceneBoundingRect()
    assert added.right() <= w.scene.node_item("g").sceneBoundingRect().left()
    assert not any(added.intersects(i.sceneBoundingRect()) for i in w.scene.node_items() if i.node_id != new)


def test_a_wire_dropped_on_canvas_and_the_box_closed_adds_nothing(small, qtbot):
    w = small
    drag(w.view.viewport(), port_point(w, "data", "output", True), scene_point(w, 330, 330))
    assert w.quick_add.isVisible()
    QTest.keyClick(w.quick_add.field, QtCore.Qt.Key.Key_Escape)
    assert not w.quick_add.isVisible() and w.undo_stack.count() == 0
    # Tab afterwards is the ordinary box again: every block, nothing connected
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Tab)
    assert "literal" in w.quick_add.keys() and w.quick_add.wire is None
    QTest.keyClick(w.quick_add.field, QtCore.Qt.Key.Key_Escape)


def test_tab_over_a_node_adds_the_block_in_free_space_near_the_pointer(small, qtbot):
    w = small
    vp = w.view.viewport()
    over = w.view.mapFromScene(w.scene.node_item("g").sceneBoundingRect().center())
    QTest.mouseMove(vp, over)
    qtbot.waitUntil(lambda: w.view.cursor_inside(), timeout=10000)
    w.view.setFocus()
    QTest.keyClick(w.view, QtCore.Qt.Key.Key_Tab)
    QTest.keyClicks(w.quick_add.field, "scatternd")
    QTest.keyClick(w.quick_add.field, QtCore.Qt.Key.Key_Return)
    (new,) = w.scene.selected_node_ids()
    added = w.scene.node_item(new).sceneBoundingRect()
    others = [i.sceneBoundingRect() for i in w.scene.node_items() if i.node_id != new]
    assert not any(added.intersects(r) for r in others), "the new block covers a node"
    assert QtCore.QLineF(added.center(), w.view.mapToScene(over)).length() < 300
    visible = w.view.mapToScene(vp.rect()).boundingRect()
    assert visible.contains(added)


def test_help_lists_the_colour_legend_from_the_same_table_as_the_canvas(small):
    from nodeeditor.ui.canvas import style

    dialog = small.show_legend()
    texts = dialog.rows
    for family, (_colour, text) in style.FAMILY_COLOURS.items():
        assert text in texts, family
    assert any("failed" in t for t in texts) and any("not evaluated" in t for t in texts)
    help_menu = small.menuBar().actions()[-1].menu()
    assert "Port and Wire Colours" in [a.text().replace("&", "") for a in help_menu.actions()]
    dialog.close()
