"""`indexflow export --gradients` through foreign ONNX ops (nodeeditor.onnx_io.foreign_vjp_ops):
for every op the engine differentiates, the gradient model written in standard ONNX, run by
onnxruntime, gives the engine's loss and gradients (the engine's rules are checked against
finite differences in tests/graph/test_foreign_vjp.py); and an imported model's chain of
Gather, MatMul, Relu and ReduceMean. It refused any path through a foreign op."""
from __future__ import annotations

import numpy as np
import pytest

from nodeeditor.graph import Backward, Engine, Graph
from nodeeditor.graph import nodes as N
from nodeeditor.graph.foreign import AttrKind, ForeignAttribute
from nodeeditor.onnx_io import ExportError
from nodeeditor.onnx_io.gradients import export_gradients_with_feeds, gradient_output_names

from ..graph.test_foreign_vjp import CASES, _model_graph
from .conftest import ort_run

_KINDS = {int: AttrKind.INT, float: AttrKind.FLOAT}


def _attribute(value) -> ForeignAttribute:
    if isinstance(value, (list, tuple)):
        return ForeignAttribute(AttrKind.INTS, tuple(int(v) for v in value))
    return ForeignAttribute(_KINDS[type(value)], value)


def _one_op_graph(op, inputs, attrs) -> Graph:
    """Sources (the float ones trainable) -> the foreign op -> mean squared error."""
    g = Graph("one", opset=18)
    ports = tuple(f"in{i}" for i in range(len(inputs)))
    node = N.ForeignNode(id="op", name="op", op_type=op, inputs=ports, outputs=("Y",),
                         attributes={k: _attribute(v) for k, v in attrs.items()})
    g.add_node(node)
    for port, value in zip(ports, inputs, strict=True):
        g.add_literal(value, name=f"s_{port}", node_id=f"s_{port}")
        g.connect(f"s_{port}", "output", "op", port)
        if value.dtype.kind == "f":
            g.set_trainable(f"s_{port}", True)
    out = g.output_type("op", "Y")
    assert out is not None, g.node_info("op")
    g.add_loss("mean_squared_error", node_id="loss")
    g.connect("op", "Y", "loss", "prediction")
    g.add_literal(np.random.default_rng(2).standard_normal(out.shape).astype(out.dtype), name="target",
                  node_id="target")
    g.connect("target", "output", "loss", "target")
    return g


def _assert_export_matches_the_engine(g, float32_inside: bool = False, zeros: bool = False):
    model, feeds = export_gradients_with_feeds(g)
    ran = ort_run(model, feeds)
    result = Backward(Engine(g)).run()
    assert result.ok, result.errors
    names = gradient_output_names(g)
    np.testing.assert_allclose(ran["loss"], result.loss, rtol=1e-6 if ran["loss"].dtype == np.float32 else 1e-9)
    for sid, grad in result.source_gradients().items():
        got = ran[names[sid]]
        assert got.shape == grad.shape and got.dtype == grad.dtype, (sid, got.shape, grad.shape)
        tight = got.dtype == np.float64 and not float32_inside
        np.testing.assert_allclose(got, grad, rtol=1e-9 if tight else 1e-6, atol=1e-12 if tight else 1e-7, err_msg=sid)
        assert zeros or np.abs(grad).max() > 0 or sid == "s_in1", sid   # not a test of zeros unless meant


@pytest.mark.parametrize(("op", "inputs", "attrs", "opset"), [c for c in CASES if c[3] >= 18],
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES) if c[3] >= 18])
def test_each_ops_gradient_model_gives_the_engines_gradients(op, inputs, attrs, opset):
    _assert_export_matches_the_engine(_one_op_graph(op, inputs, attrs), float32_inside=op == "Cast")


def test_an_imported_models_chain_exports_its_gradients():
    """The engine's test model (Gather, MatMul, Relu, ReduceMean), its axes an input as opset 18
    has them."""
    g = _model_graph()
    g.remove_node("mean")
    g.add_node(N.ForeignNode(id="mean", name="mean", op_type="ReduceMean", inputs=("data", "axes"), outputs=("Y",),
                             attributes={"keepdims": ForeignAttribute(AttrKind.INT, 0)}))
    g.add_literal(np.array([1], np.int64), name="axes", node_id="axes")
    g.connect("relu", "Y", "mean", "data")
    g.connect("axes", "output", "mean", "axes")
    g.connect("mean", "Y", "loss", "prediction")
    _assert_export_matches_the_engine(g)


def test_a_named_dimension_that_may_be_broadcast_is_refused_by_name():
    """Add of a[n] and b[3]: whether n is 1 (a broadcast to sum back) is known only at run time."""
    from nodeeditor.onnx_io.foreign_vjp_ops import foreign_op_vjp
    from nodeeditor.onnx_io.loss_ops import Emitter
    from nodeeditor.onnx_io.names import NameTable
    from ops import TensorType

    emit = Emitter(NameTable(), [], "add")
    inputs = [("a", TensorType("float32", ("n",))), ("b", TensorType("float32", (3,)))]
    with pytest.raises(ExportError, match=r"add \[op\]: input 0 of shape \('n',\) against the output's \(3,\)"):
        foreign_op_vjp(emit, "add [op]", "Add", {}, inputs, ("c", TensorType("float32", (3,))), "g", [True, True])


@pytest.mark.parametrize("kind", ["sum", "mean", "mean_squared_error"])
def test_a_prediction_with_a_named_batch_dimension_exports_its_gradients(kind):
    """An imported model's input float[batch, 3] through MatMul into a loss: the loss's
    gradient took the prediction's shape as numbers ("invalid literal for int() ... 'batch'",
    a traceback from indexflow export --gradients). It is read at run time now."""
    rng = np.random.default_rng(0)
    g = Graph("batch", opset=18)
    g.add_literal(rng.standard_normal((3, 4)), name="w", node_id="w")
    g.set_trainable("w", True)
    g.add_node(N.InputSource(id="x", name="x", example=N.frozen_array(rng.standard_normal((2, 3))), shape=("batch", 3)))
    g.add_node(N.ForeignNode(id="mm", name="mm", op_type="MatMul", inputs=("A", "B"), outputs=("Y",)))
    g.connect("x", "output", "mm", "A")
    g.connect("w", "output", "mm", "B")
    g.add_loss(kind, node_id="loss")
    g.connect("mm", "Y", "loss", "prediction")
    if kind == "mean_squared_error":
        g.add_node(N.InputSource(id="t", name="t", example=N.frozen_array(rng.standard_normal((2, 4))),
                                 shape=("batch", 4)))
        g.connect("t", "output", "loss", "target")
    assert g.output_type("mm", "Y").shape == ("batch", 4)
    _assert_export_matches_the_engine(g)


def test_two_unknown_dimensions_are_not_taken_for_equal():
    """A [?, 3] tensor that is [1, 3] against a [?, 3] output that is [2, 3]: the gradient was not
    summed back (equal unknowns were taken for equal sizes), and onnxruntime gave wrong numbers."""
    from nodeeditor.onnx_io.foreign_vjp_ops import foreign_op_vjp
    from nodeeditor.onnx_io.loss_ops import Emitter
    from nodeeditor.onnx_io.names import NameTable
    from ops import TensorType

    emit = Emitter(NameTable(), [], "add")
    inputs = [("a", TensorType("float32", (None, 3))), ("b", TensorType("float32", (None, 3)))]
    with pytest.raises(ExportError, match="which dimensions were broadcast is not known"):
        foreign_op_vjp(emit, "add [op]", "Add", {}, inputs, ("c", TensorType("float32", (None, 3))), "g",
                       [True, False])


def test_a_shape_computed_on_the_path_neither_blocks_nor_warns():
    """w -> MatMul -> Reshape(mm, Shape(mm)), as torch exports a flatten: the Shape node (int64)
    counted as on the path, so the gradient export refused it ("its tensor is int64") and the
    engine warned that no gradient flows back through Shape."""
    rng = np.random.default_rng(4)
    g = Graph("reshape", opset=18)
    g.add_literal(rng.standard_normal((2, 3)), name="x", node_id="x")
    g.add_literal(rng.standard_normal((3, 4)), name="w", node_id="w")
    g.set_trainable("w", True)
    g.add_node(N.ForeignNode(id="mm", name="mm", op_type="MatMul", inputs=("A", "B"), outputs=("Y",)))
    g.add_node(N.ForeignNode(id="shape", name="shape", op_type="Shape", inputs=("data",), outputs=("shape",)))
    g.add_node(N.ForeignNode(id="reshape", name="reshape", op_type="Reshape", inputs=("data", "shape"),
                             outputs=("reshaped",)))
    g.connect("x", "output", "mm", "A")
    g.connect("w", "output", "mm", "B")
    g.connect("mm", "Y", "shape", "data")
    g.connect("mm", "Y", "reshape", "data")
    g.connect("shape", "shape", "reshape", "shape")
    g.add_loss("mean_squared_error", node_id="loss")
    g.connect("reshape", "reshaped", "loss", "prediction")
    g.add_literal(np.zeros((2, 4)), name="t", node_id="t")
    g.connect("t", "output", "loss", "target")
    result = Backward(Engine(g)).run()
    assert result.ok and result.warnings == [], (result.errors, result.warnings)
    x, w = g.node("x").value, g.node("w").value
    np.testing.assert_allclose(result.source_gradients()["w"], x.T @ (2 * (x @ w) / 8))   # d mean((xw)^2) / dw
    _assert_export_matches_the_engine(g)


def test_every_op_the_engine_differentiates_has_its_onnx_gradient():
    from nodeeditor.graph.foreign_vjp import FOREIGN_VJP_OPS
    from nodeeditor.onnx_io.foreign_vjp_ops import WRITTEN

    assert sorted(WRITTEN) == sorted(FOREIGN_VJP_OPS)


def _relu_chain():
    """W (trainable) -> Relu -> Mul by x -> sum."""
    g = Graph("switch", opset=18)
    g.add_literal(np.array([1.0, -2.0, 3.0]), name="W", node_id="W")
    g.set_trainable("W", True)
    g.add_literal(np.array([2.0, 5.0, 7.0]), name="x", node_id="x")
    g.add_node(N.ForeignNode(id="relu", name="relu", op_type="Relu", inputs=("X",), outputs=("Y",)))
    g.add_node(N.ForeignNode(id="mul", name="mul", op_type="Mul", inputs=("A", "B"), outputs=("C",)))
    g.connect("W", "output", "relu", "X")
    g.connect("relu", "Y", "mul", "A")
    g.connect("x", "output", "mul", "B")
    g.add_loss("sum", node_id="loss")
    g.connect("mul", "C", "loss", "prediction")
    return g


def test_a_foreign_ops_training_switch_and_loss_coefficient_act_as_an_operators():
    """The toolkit's training switch and loss coefficient, on foreign ops too: the coefficient
    multiplies what the node sends back, the switch off sends nothing (engine and export)."""
    from nodeeditor.graph import load_graph, save_graph

    g = _relu_chain()
    g.set_loss_coefficient("relu", 0.5)
    result = Backward(Engine(g)).run()
    np.testing.assert_array_equal(result.source_gradients()["W"], [0.5 * 2, 0.0, 0.5 * 7])   # x where W > 0
    _assert_export_matches_the_engine(g)
    g.set_training("mul", False)
    result = Backward(Engine(g)).run()
    assert not result.source_gradients()["W"].any() and result.blocked == frozenset({"mul"})
    _assert_export_matches_the_engine(g, zeros=True)
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = save_graph(g, Path(folder) / "switch.ifg.json")
        back = load_graph(path)
    assert (back.node("mul").training, back.node("relu").loss_coefficient) == (False, 0.5)
