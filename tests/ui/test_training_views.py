"""Gradients in the viewer (Value / Gradient) and in the Explainer (Backward): d loss / d a
node's output shown with the same panels, the backward steps of the selected node with their
numbers, and what each says where there is no gradient. Expected gradients are computed here
with numpy (mean squared error: 2 (prediction - target) / size), never by the backward pass."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.ui.explainer.widget import Direction
from nodeeditor.ui.viewer_target import ViewerMode

from .helpers import deliver_posted_events, open_example, save_shot, wait_for_viewer

LEFT = QtCore.Qt.MouseButton.LeftButton


def _num(x) -> str:
    return np.format_float_positional(np.float32(x), trim="-", unique=True)


def _mse_gradient(w):
    """d loss / d the Gather's output of train_embedding: 2 (table[ids] - targets) / 24, in float32."""
    table, ids, targets = (np.asarray(w.runner.value(n)) for n in ("table", "token_ids", "targets"))
    diff = table[ids].astype(np.float64) - targets.astype(np.float64)
    return (2.0 * diff / diff.size).astype(np.float32)


def test_the_viewers_gradient_switch_shows_d_loss_d_the_selected_node(window, qtbot):
    w = window
    open_example(w, "train_embedding")
    w.scene.select_nodes(["lookup"])
    QTest.mouseClick(w.viewer_target.mode_buttons[ViewerMode.GRADIENT], LEFT)
    assert w.viewer_target.mode is ViewerMode.GRADIENT
    qtbot.waitUntil(lambda: w.viewer.current is not None and w.viewer.current.name.startswith("d loss"),
                    timeout=20000)
    assert w.viewer.current.name == "d loss / d look up rows"
    np.testing.assert_allclose(w.viewer.current.array, _mse_gradient(w), rtol=1e-6, atol=1e-9)
    assert w.viewer.controls.isVisible()                        # 3-d: the same slice controls
    wait_for_viewer(qtbot, w.viewer)
    save_shot(w, "training/viewer_gradient")
    # the table's gradient: each row adds the gradients of the outputs that read it
    w.scene.select_nodes(["table"])
    qtbot.waitUntil(lambda: w.viewer.current is not None and w.viewer.current.name == "d loss / d embedding table",
                    timeout=20000)
    want = np.zeros((6, 4))
    np.add.at(want, np.asarray(w.runner.value("token_ids")), _mse_gradient(w).astype(np.float64))
    np.testing.assert_allclose(w.viewer.current.array, want, rtol=1e-5, atol=1e-8)
    # indices are on no path from a trainable source: the viewer says so instead of a picture
    w.scene.select_nodes(["token_ids"])
    qtbot.waitUntil(lambda: w.viewer.current is None and "no path" in w.viewer.info_label.text(), timeout=20000)
    assert w.viewer.picture.panels[0].spec.text == "no gradient"
    # Value again: the values
    QTest.mouseClick(w.viewer_target.mode_buttons[ViewerMode.VALUE], LEFT)
    assert w.viewer.current.name == "token ids.output" and not w.gradients.wanted


def test_without_a_loss_node_the_gradient_view_says_what_is_missing(window, qtbot):
    w = window
    open_example(w, "embedding_lookup")
    w.viewer_target.set_mode(ViewerMode.GRADIENT)
    qtbot.waitUntil(lambda: "no Loss node" in w.viewer.info_label.text(), timeout=20000)
    assert w.viewer.current is None
    deliver_posted_events()
    save_shot(w.viewer_dock, "training/viewer_gradient_no_loss")


def test_the_viewer_gradient_follows_an_edit(window, qtbot):
    w = window
    open_example(w, "train_embedding")
    w.scene.select_nodes(["lookup"])
    w.viewer_target.set_mode(ViewerMode.GRADIENT)
    qtbot.waitUntil(lambda: w.viewer.current is not None, timeout=20000)
    w.graph.set_source("targets", value=np.zeros((2, 3, 4), np.float32))
    w.runner.wait()
    want = _mse_gradient(w)
    qtbot.waitUntil(lambda: w.viewer.current is not None and np.allclose(w.viewer.current.array, want, atol=1e-7),
                    timeout=20000)


def test_the_explainers_backward_toggle_steps_through_where_each_gradient_comes_from(window, qtbot):
    w = window
    open_example(w, "train_embedding")
    e = w.explainer
    w.scene.select_nodes(["lookup"])
    assert e.explanation is not None and not e.backward
    QTest.mouseClick(e.backward_button, LEFT)
    qtbot.waitUntil(lambda: e.backward, timeout=20000)
    g = _mse_gradient(w)
    ids = np.asarray(w.runner.value("token_ids"))
    assert e.count == g.size
    # step 5 is output element [0, 1, 0], which reads data[ids[0, 1], 0]
    e.set_step(4)
    row = int(ids[0, 1])
    value = g[0, 1, 0]
    term = _num(value) if value >= 0 else f"({_num(value)})"
    assert e.sentence.text().splitlines()[0] == (
        f"d data[{row}, 0] += d output[0, 1, 0] = {_num(value)}, since indices[0, 1] = {row}; "
        f"d data[{row}, 0] = 0 + {term} = {_num(value)}")
    assert [grid.name for grid in e.grids + e.more_grids if grid.isVisible()] == ["indices", "d output", "d data"]
    deliver_posted_events()
    save_shot(w.explainer_dock, "training/explainer_backward")
    # the last step leaves d data equal to the table's gradient
    e.set_step(e.count - 1)
    want = np.zeros((6, 4), np.float32)
    np.add.at(want, ids, g)
    np.testing.assert_allclose(e.grid("d data").full, want, rtol=1e-6)
    # Forward again
    QTest.mouseClick(e.backward_button, LEFT)
    qtbot.waitUntil(lambda: e.explanation is not None and not e.backward, timeout=20000)
    assert e.sentence.text().startswith("output[0, 0, 0] = data[")


def test_the_explainer_says_why_there_is_no_backward_pass(window, qtbot):
    w = window
    open_example(w, "embedding_lookup")
    op = next(n.id for n in w.graph.nodes if n.kind == "op")
    w.explainer_controller.set_direction(Direction.BACKWARD)
    w.scene.select_nodes([op])
    qtbot.waitUntil(lambda: "no Loss node" in w.explainer.title.text(), timeout=20000)
    assert w.explainer.explanation is None
    w.explainer_controller.explain(op)                    # lessons and presentations: the forward pass
    assert not w.explainer_controller.backward and w.explainer.explanation is not None


def test_the_gradient_of_a_later_output_is_said_to_be_kept_only_for_the_first(window, qtbot):
    """Split's second output q: the viewer's Gradient mode showed d loss / d p (the first
    output's gradient) under q's name."""
    import numpy as np

    from nodeeditor.graph import Graph
    from nodeeditor.graph import nodes as N
    from nodeeditor.graph.foreign import AttrKind, ForeignAttribute
    from nodeeditor.ui.viewer_target import ViewerMode

    g = Graph("split", opset=18)
    g.add_literal(np.array([1.0, 2.0]), name="a", node_id="a")
    g.set_trainable("a", True)
    g.add_literal(np.array([10.0, 20.0]), name="b", node_id="b")
    g.add_node(N.ForeignNode(id="cat", name="cat", op_type="Concat", inputs=("x0", "x1"), outputs=("Y",),
                             attributes={"axis": ForeignAttribute(AttrKind.INT, 0)}))
    g.add_node(N.ForeignNode(id="split", name="split", op_type="Split", inputs=("input",), outputs=("p", "q"),
                             attributes={"num_outputs": ForeignAttribute(AttrKind.INT, 2)}))
    g.add_node(N.ForeignNode(id="mul", name="mul", op_type="Mul", inputs=("A", "B"), outputs=("Y",)))
    g.connect("a", "output", "cat", "x0")
    g.connect("b", "output", "cat", "x1")
    g.connect("cat", "Y", "split", "input")
    g.connect("split", "p", "mul", "A")
    g.connect("split", "q", "mul", "B")
    g.add_loss("sum", node_id="loss")
    g.connect("mul", "Y", "loss", "prediction")
    window.set_document(g, None)
    window.runner.wait()
    window.viewer_dock.show()
    window.viewer_target.set_mode(ViewerMode.GRADIENT)
    window.viewer_target._on_port_clicked("mul", "A", False)              # from p, the first output
    qtbot.waitUntil(lambda: window.viewer.current is not None, timeout=20000)
    np.testing.assert_array_equal(window.viewer.current.array, [10.0, 20.0])   # d sum(p q) / dp = q
    window.viewer_target._on_port_clicked("mul", "B", False)              # from q
    qtbot.waitUntil(lambda: window.viewer.current is None, timeout=20000)
    assert "gradients are kept for a node's first output only (split.p), not for q" in \
        window.viewer.info_label.text()
