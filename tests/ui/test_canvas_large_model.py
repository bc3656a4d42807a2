"""Opening a large ONNX model: the framed view shows nodes (the layered layout's first
columns, not the empty corner of its bounding box), only the nodes drawn get port items, and
a node whose port items are not made yet still takes a wire from its port at the first press."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper
from PySide6.QtTest import QTest

from .helpers import LEFT, NOMOD, deliver_posted_events, nodes_out_of_view, save_shot


def _chains_model(chains: int = 12, length: int = 25) -> onnx.ModelProto:
    """``chains`` chains of Relu/Neg/Add (the Add also reads the value two back) from one input,
    summed pairwise into ``y``: a tall, wide layered graph."""
    nodes, ends = [], []
    for c in range(chains):
        before, prev = "x", "x"
        for i in range(length):
            out = f"c{c}_{i}"
            op = ("Relu", "Neg", "Add")[i % 3]
            nodes.append(helper.make_node(op, [prev, before] if op == "Add" else [prev], [out], name=out))
            before, prev = prev, out
        ends.append(prev)
    k = 0
    while len(ends) > 1:
        a, b = ends.pop(0), ends.pop(0)
        out = "y" if not ends else f"j{k}"
        nodes.append(helper.make_node("Add", [a, b], [out], name=f"j{k}"))
        ends.append(out)
        k += 1
    graph = helper.make_graph(nodes, "chains", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_open_shows_nodes_makes_ports_where_drawn_and_a_bare_node_takes_a_wire(window, qtbot, tmp_path):
    w = window
    path = tmp_path / "chains.onnx"
    onnx.save(_chains_model(), str(path))
    assert w.files.open_path(path, ask=False)
    deliver_posted_events()                       # the opening frame
    w.view.viewport().repaint()
    items = w.scene.node_items()
    assert len(items) == 12 * 25 + 11 + 2        # the nodes, the joins, the input and the output
    assert nodes_out_of_view(w) < len(items)      # something to read at once
    visible = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    shown = [i for i in items if visible.intersects(i.sceneBoundingRect())]
    assert shown and all(i.has_port_items for i in shown)
    far = max(items, key=lambda i: i.scenePos().x())             # the output, far right
    assert not far.has_port_items
    save_shot(w, "large_model/opened")

    # a node whose ports are not made: the first press on its input port starts a wire
    target = max((i for i in items if not i.has_port_items and i.node_id != far.node_id),
                 key=lambda i: i.scenePos().x())
    port = next(name for name, is_output in target.port_rows if not is_output)
    at = w.view.mapFromScene(target.port_scene_pos(port, False))
    if not w.view.viewport().rect().contains(at):
        w.view.centerOn(target.port_scene_pos(port, False))
        at = w.view.mapFromScene(target.port_scene_pos(port, False))
    with qtbot.waitSignal(w.scene.portClicked, timeout=10000) as clicked:
        QTest.mousePress(w.view.viewport(), LEFT, NOMOD, at)
    assert clicked.args == [target.node_id, port, False]
    QTest.mouseRelease(w.view.viewport(), LEFT, NOMOD, at)
    assert target.has_port_items
    assert target.port(port, False).scenePos() == target.port_scene_pos(port, False)
