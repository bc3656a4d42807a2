"""A real ONNX model in the editor: File > Import ONNX opens the KV-cache update model, the
person pastes input values into the property panel, clicks the ScatterND node on the canvas,
and the Explainer steps through the indices the model itself built (Shape, Range, Unsqueeze,
Expand, Concat). Expected indices and output come from onnxruntime running the original
model file, and each step is checked against the ScatterND formula of the ONNX spec
(``output[indices[idx]] = updates[idx]``)."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import nodes as N

from ..onnx_io.realistic import kv_cache_inputs, kv_cache_model
from .helpers import LEFT, NOMOD, deliver_posted_events, save_shot

Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier


def _onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray], extra: str) -> dict[str, np.ndarray]:
    """The model's outputs and the intermediate tensor ``extra``, computed by onnxruntime."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    model.graph.output.append(onnx.helper.make_empty_tensor_value_info(extra))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds), strict=True))


def _click_node(window, node_id: str) -> None:
    """A real left click on the node's header, the node scrolled into view first."""
    rect = window.scene.node_item(node_id).sceneBoundingRect()
    window.view.centerOn(rect.center())
    point = window.view.mapFromScene(QtCore.QPointF(rect.center().x(), rect.top() + 8))
    QTest.mouseClick(window.view.viewport(), LEFT, NOMOD, point)


def _paste_value(window, qtbot, node_id: str, value: np.ndarray) -> None:
    """Select the input on the canvas, select every cell of its value table and paste
    ``value`` as a nested list (Ctrl+A, Ctrl+V): the tensor takes the pasted shape."""
    _click_node(window, node_id)
    qtbot.waitUntil(lambda: window.properties.node_id == node_id, timeout=10000)
    table = window.properties.widgets["table"]
    QtWidgets.QApplication.clipboard().setText(repr(value.tolist()))
    table.setFocus()
    QTest.keyClick(table, Key.Key_A, CTRL)
    QTest.keyClick(table, Key.Key_V, CTRL)
    qtbot.waitUntil(lambda: np.array_equal(window.graph.node(node_id).example, value), timeout=10000)


@pytest.fixture
def kv_window(window, qtbot, tmp_path, monkeypatch):
    """The window with the KV-cache model imported through File > Import ONNX (the file
    dialog answers with a model file under ``tmp_path``); returns (window, model, feeds)."""
    model = kv_cache_model()
    path = tmp_path / "kv_cache.onnx"
    onnx.save(model, str(path))
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    window.import_action.trigger()
    qtbot.waitUntil(lambda: any(isinstance(n, N.ForeignNode) for n in window.graph.nodes), timeout=10000)
    deliver_posted_events()            # the opening frame (a zero-delay timer)
    window.runner.wait()
    return window, model, kv_cache_inputs(batch=2, seq=3, position=2)


def test_the_explainer_steps_through_the_indices_the_kv_cache_model_built(kv_window, qtbot):
    w, model, feeds = kv_window
    inputs = {n.name: n.id for n in w.graph.nodes if isinstance(n, N.InputSource)}
    assert set(inputs) == set(feeds)
    for name in ("key cache", "new keys", "query", "position"):
        _paste_value(w, qtbot, inputs[name], feeds[name])
    w.runner.wait()
    scatter = next(n for n in w.graph.nodes if isinstance(n, N.OperatorNode) and n.op == "ScatterND")
    _click_node(w, scatter.id)
    qtbot.waitUntil(lambda: w.explainer.operation() is not None and w.explainer.operation()[1] == "ScatterND",
                    timeout=10000)
    expected = _onnxruntime(model, feeds, "write indices")
    indices = expected["write indices"]
    assert indices.shape == (2, 2, 3, 3)              # [batch, heads, seq, (b, h, pos)]
    _, _, (data, shown_indices, updates), _ = w.explainer.operation()
    np.testing.assert_array_equal(shown_indices, indices)
    np.testing.assert_array_equal(data, feeds["key cache"])
    np.testing.assert_array_equal(updates, feeds["new keys"])
    # one step per update slice (b, h, i), in row-major order, stepped with the keyboard
    assert w.explainer.count == 2 * 2 * 3
    w.explainer.slider.setFocus()
    qtbot.waitUntil(lambda: w.explainer.slider.hasFocus(), timeout=10000)
    QTest.keyClick(w.explainer.slider, Key.Key_Home)
    output = feeds["key cache"].copy()
    for k, position in enumerate(np.ndindex(indices.shape[:-1])):
        assert w.explainer.step == k
        step = w.explainer.current
        target = tuple(int(v) for v in indices[position])   # ScatterND: output[indices[idx]] = updates[idx]
        assert step.destination.position == target
        assert [c.position for c in step.sources] == [position]
        assert [c.position for c in step.index] == [position]
        output[target] = feeds["new keys"][position]
        if k == 4:
            deliver_posted_events()               # the layout of the labels the step changed
            save_shot(w, "onnx/kv_cache_explainer")
        QTest.keyClick(w.explainer.slider, Key.Key_Right)
    np.testing.assert_array_equal(output, expected["updated cache"])   # the steps rebuild onnxruntime's output
    np.testing.assert_allclose(w.runner.value(scatter.id), expected["updated cache"], rtol=1e-6)
