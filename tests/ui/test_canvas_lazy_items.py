"""A large graph's items made when needed (``GraphScene``, "Items made when needed"): the first
paint makes what is in view; a node scrolled into view gets its item and takes a wire; Find
Node, Select All and a move reach nodes that have no item yet; the rest are made after the
first paint. The size limit is lowered so that a small graph takes the large graph's path."""
from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore

from nodeeditor.graph import Graph
from nodeeditor.graph import nodes as N
from nodeeditor.ui import commands as C
from nodeeditor.ui.canvas import scene as S

from .helpers import deliver_posted_events, drag, port_point

FAR = (9000.0, 6000.0)    # far below and right of the rows the opening view shows


def _rows_and_a_far_pair(rows: int = 24) -> Graph:
    """``rows`` literal -> output pairs 200 units apart, and far away a literal 'far_d' beside an
    unconnected Gather 'far_g'."""
    g = Graph(name="lazy")
    for r in range(rows):
        d = g.add_literal(np.arange(4, dtype=np.float32), name=f"d{r}", node_id=f"d{r}", position=(0, 200 * r))
        o = g.add_output(f"o{r}", node_id=f"o{r}", position=(400, 200 * r))
        g.connect(d, "output", o, "value")
    g.add_literal(np.arange(4, dtype=np.float32), name="far_d", node_id="far_d", position=(FAR[0] - 400, FAR[1]))
    g.add_operator("Gather", {"axis": 0}, node_id="far_g", position=FAR)
    return g


@pytest.fixture
def lazy(window, monkeypatch):
    """The window showing ``_rows_and_a_far_pair()`` with items made only when needed (no
    slices of the rest after the first paint)."""
    monkeypatch.setattr(S, "EAGER_NODES", 10)
    monkeypatch.setattr(S, "BUILD_SLICE_S", 0.0)
    window.set_document(_rows_and_a_far_pair(), None)
    deliver_posted_events()              # the opening frame and its paint
    window.view.viewport().repaint()
    return window


def _visible(w) -> QtCore.QRectF:
    return w.view.mapToScene(w.view.viewport().rect()).boundingRect()


def test_the_first_paint_makes_the_items_in_view_and_a_far_node_gets_its_item_and_a_wire_when_scrolled_to(lazy):
    w = lazy
    assert w.scene.building
    assert w.scene.has_node_item("d0") and w.scene.has_node_item("o0")
    assert not w.scene.has_node_item("far_g") and not w.scene.has_node_item("far_d")
    assert w.scene.edge_item("o0", "value").isVisible()     # the wire in view is drawn

    w.view.centerOn(QtCore.QPointF(FAR[0] - 60, FAR[1] + 40))
    w.view.viewport().repaint()
    assert w.scene.has_node_item("far_g") and w.scene.has_node_item("far_d")
    drag(w.view.viewport(), port_point(w, "far_d", "output", True), port_point(w, "far_g", "data", False))
    assert w.graph.edge_into("far_g", "data").src == "far_d"
    assert w.scene.edge_item("far_g", "data").edge.src == "far_d"
    w.undo_stack.undo()
    assert w.graph.edge_into("far_g", "data") is None


def test_find_node_frames_a_node_that_has_no_item_yet(lazy):
    w = lazy
    assert not w.scene.has_node_item("far_g")
    w.find_node.go_to("far_g")
    assert w.scene.selected_node_ids() == ["far_g"]
    assert _visible(w).contains(w.scene.node_item("far_g").sceneBoundingRect().center())


def test_a_move_and_select_all_reach_nodes_without_items(lazy):
    w = lazy
    assert not w.scene.has_node_item("o23")            # the last row: below the opening view
    old = w.graph.node("o23").position
    w.push(C.MoveCommand(w.graph, {"o23": (old, (600.0, 4600.0))}))
    assert w.scene.node_item("o23").pos() == QtCore.QPointF(600, 4600)
    wire = w.scene.edge_item("o23", "value")                  # its wire follows it
    assert wire.path().pointAtPercent(1.0) == w.scene.node_item("o23").port_scene_pos("value", False)

    assert not w.scene.has_node_item("far_d")
    w.select_all_action.trigger()
    assert w.scene.selected_node_ids() == list(w.graph.node_ids)


def test_the_remaining_items_are_made_after_the_first_paint(window, monkeypatch, qtbot):
    monkeypatch.setattr(S, "EAGER_NODES", 10)
    w = window
    graph = _rows_and_a_far_pair()
    w.set_document(graph, None)
    qtbot.waitUntil(lambda: not w.scene.building, timeout=10000)
    assert all(w.scene.has_node_item(nid) for nid in graph.node_ids)
    assert {(i.edge.dst, i.edge.dst_port) for i in w.scene.edge_items()} == {(e.dst, e.dst_port) for e in graph.edges}
    for nid in ("o5", "far_g"):
        assert (w.scene.node_item(nid).pos().x(), w.scene.node_item(nid).pos().y()) == graph.node(nid).position


def test_a_frame_fits_members_that_have_no_item_and_a_collapsed_one_hides_the_items_made_later(window, monkeypatch):
    monkeypatch.setattr(S, "EAGER_NODES", 10)
    monkeypatch.setattr(S, "BUILD_SLICE_S", 0.0)
    w = window
    graph = _rows_and_a_far_pair()
    graph.add_frame(N.Frame("far", "Far pair", nodes=("far_d", "far_g")))
    graph.add_frame(N.Frame("rows", "Rows 20-21", nodes=("d20", "o20", "d21", "o21"), collapsed=True))
    w.set_document(graph, None)
    deliver_posted_events()
    box = w.scene.frame_item("far").box()
    assert not w.scene.has_node_item("far_g")            # fitted around where the members will be
    assert box.contains(QtCore.QPointF(*FAR)) and box.contains(QtCore.QPointF(FAR[0] - 400, FAR[1]))
    assert not w.scene.frame_item("rows").isVisible()     # collapsed: its block is drawn
    assert not w.scene.node_item("d21").isVisible()        # a member's item, made now, hidden
    w.scene.make_all_items()
    assert not w.scene.edge_item("o20", "value").isVisible()   # a wire inside the group
    assert w.scene.node_item("d5").isVisible()
