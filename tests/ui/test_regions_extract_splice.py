"""Extract Selection and Splice Back, driven with real mouse and key input on an imported ONNX
model (Gather, then MatMul, then Relu, built with onnx.helper in the test). Expected values come
from onnxruntime: the extracted window's inputs hold the tensors of the whole model's run and its
output equals onnxruntime's intermediate; after an edit in the extracted window (the Gather's
axis), Splice Back makes the original compute what onnxruntime computes on a model built with
that axis, the re-export too; Ctrl+Z in the original restores the old region, Ctrl+Shift+Z
splices again. An empty selection, or a tensor entering the region that cannot be computed, is
refused with the reason; asked before the run is current, Extract waits for it. A boundary
changed in the original, or the original closed, refuses the splice with the reason and changes
nothing."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import nodes as N

from .helpers import deliver_posted_events, keys, save_shot

TABLE = np.arange(9, dtype=np.float32).reshape(3, 3) - 4.0
W = np.array([[1.0, -2.0], [0.5, 1.0], [-1.0, 0.25]], np.float32)
IDS = np.array([2, 0, 1], np.int64)
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier
LEFT = QtCore.Qt.MouseButton.LeftButton


def _model(axis: int, extra_outputs: tuple[str, ...] = ()) -> onnx.ModelProto:
    """ids -> Gather(table, ids, axis) -> MatMul(., W) -> Relu -> out."""
    nodes = [helper.make_node("Gather", ["table", "ids"], ["emb"], name="embed", axis=axis),
             helper.make_node("MatMul", ["emb", "W"], ["y"], name="project"),
             helper.make_node("Relu", ["y"], ["out"], name="act")]
    outputs = [helper.make_tensor_value_info("out", TensorProto.FLOAT, [3, 2])]
    outputs += [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in extra_outputs]
    graph = helper.make_graph(nodes, "embed", [helper.make_tensor_value_info("ids", TensorProto.INT64, [3])],
                              outputs, [numpy_helper.from_array(TABLE, "table"), numpy_helper.from_array(W, "W")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _ort(model: onnx.ModelProto, feeds: dict) -> dict[str, np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in session.get_outputs()], session.run(None, feeds), strict=True))


@pytest.fixture
def model_window(window, tmp_path):
    from nodeeditor.onnx_io import import_model

    path = tmp_path / "embed.onnx"
    onnx.save(_model(axis=0), path)
    graph = import_model(path)
    ids_node = next(n for n in graph.nodes if isinstance(n, N.InputSource))
    graph.set_source(ids_node.id, example=IDS)
    window.set_document(graph, None)
    deliver_posted_events()          # the opening frame
    window.runner.wait()
    return window


def _node(graph, op: str) -> str:
    for n in graph.nodes:
        if (isinstance(n, N.OperatorNode) and n.op == op) or (isinstance(n, N.ForeignNode) and n.op_type == op):
            return n.id
    raise AssertionError(f"no {op} node")


def _click_node(w, node_id: str, modifier=QtCore.Qt.KeyboardModifier.NoModifier) -> None:
    rect = w.scene.node_item(node_id).sceneBoundingRect()
    QTest.mouseClick(w.view.viewport(), LEFT, modifier, w.view.mapFromScene(QtCore.QPointF(rect.center().x(),
                                                                                            rect.top() + 10)))


def _extract(w, qtbot, node_ids: list[str]):
    """Select ``node_ids`` with the mouse, press Ctrl+Shift+X; the window it opens."""
    for i, nid in enumerate(node_ids):
        _click_node(w, nid, CTRL if i else QtCore.Qt.KeyboardModifier.NoModifier)
    assert sorted(w.scene.selected_node_ids()) == sorted(node_ids)
    w.view.setFocus()
    keys(w.view, "Ctrl+Shift+X")
    qtbot.waitUntil(lambda: w.regions.last_window is not None and w.regions.last_window.isVisible(), timeout=10000)
    new = w.regions.last_window
    new.runner.wait()
    deliver_posted_events()
    return new


def _close(new) -> None:
    new.discard_changes()
    new.close()


def _splice_from_menu(new, qtbot) -> None:
    """Right-click the extracted window's canvas, click Splice Back in the menu."""
    vp, at = new.view.viewport(), QtCore.QPoint(20, 20)
    event = QtGui.QContextMenuEvent(QtGui.QContextMenuEvent.Reason.Mouse, at, vp.mapToGlobal(at))
    QtWidgets.QApplication.sendEvent(vp, event)
    menu = new.canvas_menu.menu
    assert menu.isVisible()
    save_shot(menu, "regions/canvas_menu_splice")
    action = new.regions.splice_action
    assert action in menu.actions()
    QTest.mouseClick(menu, LEFT, QtCore.Qt.KeyboardModifier.NoModifier, menu.actionGeometry(action).center())


def test_extract_opens_the_region_on_the_real_values_and_splice_back_after_an_edit_is_undoable(
        model_window, qtbot, dialogs):
    w = model_window
    g = w.graph
    gather, matmul, relu = _node(g, "Gather"), _node(g, "MatMul"), _node(g, "Relu")
    run0 = _ort(_model(0, ("emb", "y")), {"ids": IDS})
    new = _extract(w, qtbot, [gather, matmul])
    save_shot(new, "regions/extracted_window")
    cut = new.graph
    assert new is not w and new.is_modified() and set(cut.node_ids) >= {gather, matmul}
    inputs = {n.name: n.example for n in cut.nodes if isinstance(n, N.InputSource)}
    assert set(inputs) == {"table", "ids", "W"}                 # the tensors that cross into the region
    np.testing.assert_array_equal(inputs["ids"], IDS)
    np.testing.assert_array_equal(inputs["table"], TABLE)
    np.testing.assert_array_equal(inputs["W"], W)
    (out_node,) = [n.id for n in cut.nodes if isinstance(n, N.OutputNode)]
    np.testing.assert_allclose(new.runner.value(out_node), run0["y"], rtol=1e-6)   # onnxruntime's intermediate

    # the edit, in the extracted window: the Gather's axis 0 -> 1 through the property panel
    _click_node(new, gather)
    qtbot.waitUntil(lambda: new.properties.node_id == gather, timeout=10000)
    box = new.properties.widgets["attr:axis"]
    box.setFocus()
    box.lineEdit().selectAll()
    QTest.keyClicks(box, "1")
    QTest.keyClick(box, QtCore.Qt.Key.Key_Return)
    assert cut.node(gather).attributes["axis"] == 1

    _splice_from_menu(new, qtbot)
    assert dialogs.texts("warning") == []
    qtbot.waitUntil(lambda: g.node(gather).attributes.get("axis") == 1, timeout=10000)
    assert w.undo_action.text() == "Undo Splice Region"
    w.runner.wait()
    want = _ort(_model(1), {"ids": IDS})["out"]                 # onnxruntime on the model built with axis 1
    np.testing.assert_allclose(w.runner.value(relu), want, rtol=1e-6)
    from nodeeditor.onnx_io import export_model

    np.testing.assert_allclose(_ort(export_model(g), {"ids": IDS})["out"], want, rtol=1e-6)   # the re-export
    save_shot(w, "regions/original_after_splice")

    w.activateWindow()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is w, timeout=10000)
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert g.node(gather).attributes["axis"] == 0
    w.runner.wait()
    np.testing.assert_allclose(w.runner.value(relu), run0["out"], rtol=1e-6)
    np.testing.assert_allclose(_ort(export_model(g), {"ids": IDS})["out"], run0["out"], rtol=1e-6)
    keys(w.view, "Ctrl+Shift+Z")                                # redo: the same splice again
    assert g.node(gather).attributes["axis"] == 1
    w.runner.wait()
    np.testing.assert_allclose(w.runner.value(relu), want, rtol=1e-6)
    _close(new)


def test_empty_selection_says_so_and_a_changed_boundary_or_a_closed_original_refuses_the_splice(
        model_window, qtbot, dialogs):
    w = model_window
    g = w.graph
    w.scene.clearSelection()
    w.view.setFocus()
    keys(w.view, "Ctrl+Shift+X")
    assert "select the nodes" in w.statusBar().currentMessage() and w.regions.last_window is None
    matmul, gather = _node(g, "MatMul"), _node(g, "Gather")
    ids_node = next(n.id for n in g.nodes if isinstance(n, N.InputSource))
    # a tensor entering the region that cannot be computed (an index out of range): refused, said why
    g.set_source(ids_node, example=np.array([5, 0, 1]))
    _click_node(w, matmul)
    keys(w.view, "Ctrl+Shift+X")
    qtbot.waitUntil(lambda: len(dialogs.texts("warning")) == 1, timeout=10000)
    assert "cannot be computed" in dialogs.texts("warning")[0] and w.regions.last_window is None
    # asked while the run is still to come (an edit just made): it waits for the run and uses it
    new_ids = np.array([1, 1, 2])
    g.set_source(ids_node, example=new_ids)
    assert w.runner.busy
    new = _extract(w, qtbot, [matmul])
    emb = next(n.example for n in new.graph.nodes if isinstance(n, N.InputSource) and n.name != "W")
    np.testing.assert_array_equal(emb, _ort(_model(0, ("emb",)), {"ids": new_ids})["emb"])
    # in the original, the MatMul's first input is re-pointed at the table: the boundary changed
    table = next(e.src for e in g.edges if e.dst == gather and e.dst_port == "data")
    g.disconnect(matmul, "A")
    g.connect(table, "output", matmul, "A", force=True)
    before = (g.node_ids, g.edges)
    new.activateWindow()
    assert not new.regions.splice_back()
    text = dialogs.texts("warning")[-1]
    assert "wires into the region changed" in text and "is gone" in text
    assert (g.node_ids, g.edges) == before and w.undo_stack.count() == 0
    save_shot(new, "regions/splice_refused")
    w.discard_changes()
    w.close()
    assert not new.regions.splice_back()
    assert "no longer open" in dialogs.texts("warning")[-1]
    _close(new)


def test_extract_builds_the_cut_out_off_the_ui_thread_computes_nothing_again_and_esc_cancels_it(
        model_window, qtbot, monkeypatch):
    import threading

    from nodeeditor.ui import regions

    w = model_window
    gather, matmul = _node(w.graph, "Gather"), _node(w.graph, "MatMul")
    release, threads = threading.Event(), []
    real_build = regions.build_region

    def held_build(plan, values, cancel, progress):     # the build, held until the test lets it go
        threads.append(threading.current_thread())
        release.wait(10)
        return real_build(plan, values, cancel, progress)

    monkeypatch.setattr(regions, "build_region", held_build)
    engine = w.runner.engine
    runs = []
    monkeypatch.setattr(engine, "execute", lambda *a, **k: runs.append(a))
    for i, nid in enumerate([gather, matmul]):
        _click_node(w, nid, CTRL if i else QtCore.Qt.KeyboardModifier.NoModifier)
    w.view.setFocus()
    keys(w.view, "Ctrl+Shift+X")
    qtbot.waitUntil(lambda: bool(threads), timeout=10000)
    assert threads[0] is not threading.main_thread() and w.regions.building
    assert w.statusBar().currentMessage().startswith("Extract: building the cut-out of 2 nodes")
    keys(w.view, "Esc")                                  # Run > Cancel Run stops the extraction too
    assert not w.regions.building and w.statusBar().currentMessage() == "Extract cancelled"
    release.set()
    # again, let through: the window opens on the run's values; the engine ran nothing for it
    new = _extract(w, qtbot, [gather, matmul])
    assert len(threads) == 2 and threads[1] is not threading.main_thread()
    inputs = {n.name: n.example for n in new.graph.nodes if isinstance(n, N.InputSource)}
    np.testing.assert_array_equal(inputs["table"], TABLE)
    np.testing.assert_array_equal(inputs["ids"], IDS)
    assert runs == []
    _close(new)


def test_two_splices_are_undone_and_redone_in_turn(model_window, qtbot, dialogs):
    """Edit, splice, edit, splice; then Undo twice and Redo twice in the original: the second
    redo raised ("the region was edited in the original since it was extracted") and its edit
    was lost while the history moved on."""
    from nodeeditor.ui import commands as C

    w = model_window
    g = w.graph
    gather = _node(g, "Gather")
    new = _extract(w, qtbot, [gather])
    for name in ("first edit", "second edit"):
        new.push(C.RenameCommand(new.graph, gather, name))
        new.regions.splice_action.trigger()
        qtbot.waitUntil(lambda name=name: g.node(gather).name == name, timeout=10000)
    assert dialogs.texts("warning") == []
    w.undo_stack.undo()
    w.undo_stack.undo()
    assert g.node(gather).name != "first edit"
    w.undo_stack.redo()
    assert g.node(gather).name == "first edit"
    w.undo_stack.redo()
    assert g.node(gather).name == "second edit" and w.undo_stack.index() == 2
    w.undo_stack.undo()
    assert g.node(gather).name == "first edit"
    _close(new)
