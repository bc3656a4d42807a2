"""A node's error as the user reads it: said once (``TensorScatter: TensorScatter: ...``
repeated the op on a node named after it), whole in the node's tooltip and on the properties
page, and the input port it is about highlighted on the node and in the Ports row."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from nodeeditor.graph import NodeStatus

from .helpers import deliver_posted_events, open_example, save_shot

RED = QtGui.QColor("#d43c3c")


def _reddish_pixels(image: QtGui.QImage, centre: QtCore.QPoint) -> int:
    """Red pixels in a box just right of a port, inside the node (its left border is red
    too when it has an error) and short of the next port's row."""
    count = 0
    for x in range(centre.x() + 3, centre.x() + 12):
        for y in range(centre.y() - 6, centre.y() + 7):
            c = image.pixelColor(x, y)
            if c.red() > 170 and c.green() < 110 and c.blue() < 110:
                count += 1
    return count


def _break_write_indices(w) -> str:
    """kv_cache_write with a write position past the cache: TensorScatter fails at run time."""
    open_example(w, "kv_cache_write")
    w.graph.set_source("write_indices", value=np.array([4, 0], np.int64))   # 4 + 2 rows > 5
    w.runner.wait()
    w.scene.select_nodes(["tensor_scatter"])
    w.runner.wait()
    deliver_posted_events()
    return "tensor_scatter"


def test_a_run_error_is_said_once_and_whole_where_the_user_reads_it(window, qtbot):
    w = window
    nid = _break_write_indices(w)
    state, message = w.scene.node_state(nid)
    assert state == NodeStatus.ERROR
    assert message.startswith("TensorScatter: write_indices[0] = 4 is out of range")
    assert "use mode='circular' to wrap" in message          # the end of a long message
    item = w.scene.node_item(nid)
    panel = w.properties.widgets["problem"]
    explained = w.explainer.title.text()
    for text in (message, item.toolTip(), panel.text(), w.statusBar().currentMessage(), explained):
        assert "TensorScatter: TensorScatter" not in text and "[tensor_scatter]: TensorScatter" not in text
        assert text.count("write_indices[0] = 4") == 1
    assert message in panel.text() and panel.isVisible()    # the properties page shows all of it
    assert message.replace("<", "&lt;") in item.toolTip()    # so does the node's tooltip
    assert "use mode='circular' to wrap" in explained
    save_shot(w, "canvas/error_text_once")


def test_the_port_an_error_is_about_is_highlighted_on_the_node_and_in_the_ports_row(window, qtbot):
    w = window
    nid = _break_write_indices(w)
    assert w.scene.problem_port(nid) == "write_indices"
    ports = w.properties.widgets["types"].text()
    wrong_row = next(row for row in ports.split("<br>") if "write_indices" in row)
    assert RED.name() in wrong_row and all(RED.name() not in row for row in ports.split("<br>") if row != wrong_row)
    item = w.scene.node_item(nid)
    assert "out of range" in item.port("write_indices", False).toolTip()
    assert "out of range" not in item.port("update", False).toolTip()
    w.scene.clearSelection()          # the selection border is blue: look at the node alone
    w.view.centerOn(item.sceneBoundingRect().center())
    deliver_posted_events()
    image = w.view.viewport().grab().toImage()
    at = lambda port: w.view.mapFromScene(item.port_scene_pos(port, False))  # noqa: E731
    assert _reddish_pixels(image, at("write_indices")) > 8
    assert _reddish_pixels(image, at("update")) == 0
    # fixed: no highlight left
    w.graph.set_source("write_indices", value=np.array([1, 3], np.int64))
    w.runner.wait()
    assert w.scene.problem_port(nid) is None


def test_a_shape_error_found_before_running_highlights_its_port_too(window, qtbot):
    w = window
    open_example(w, "kv_cache_write")
    w.graph.set_source("update", value=np.zeros((2, 1, 2, 4), np.float32))   # D is 3 in the cache
    w.runner.wait()
    assert w.graph.node_info("tensor_scatter").status == NodeStatus.ERROR
    assert w.scene.problem_port("tensor_scatter") == "update"
    assert w.scene.problem_port("scatter_nd") == "updates"
    message = w.graph.node_info("tensor_scatter").error
    assert message == "TensorScatter: update (2, 1, 2, 4) differs from past_cache (2, 1, 5, 3) in dimension 3"
    w.scene.select_nodes(["tensor_scatter"])
    assert w.properties.widgets["problem"].text() == message
    assert message in w.scene.node_item("tensor_scatter").toolTip()
