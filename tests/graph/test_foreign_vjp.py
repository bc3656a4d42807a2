"""Gradients through foreign ONNX ops (nodeeditor.graph.foreign_vjp): each rule against central
finite differences of the op as onnxruntime computes it (float64), and a backward pass and a
training run that go on through an imported model's MatMul, Relu and ReduceMean."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import nodeeditor.onnx_io  # noqa: F401  (it registers the runtime of foreign nodes)
from nodeeditor.graph import Backward, Engine, Graph
from nodeeditor.graph import nodes as N
from nodeeditor.graph.foreign import AttrKind, ForeignAttribute
from nodeeditor.graph.foreign_vjp import FOREIGN_VJP_OPS, foreign_vjp

RNG = np.random.default_rng(11)


def _ort_forward(op, inputs, attrs, opset):
    """The op's output in onnxruntime (one node, float64 or the inputs' own dtypes)."""
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op, names, ["y"], **attrs)
    declared = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)
                for n, x in zip(names, inputs, strict=True)]
    out_type = attrs.get("to", helper.np_dtype_to_tensor_dtype(inputs[0].dtype))
    graph = helper.make_graph([node], "g", declared, [helper.make_tensor_value_info("y", out_type, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, dict(zip(names, inputs, strict=True)))[0]


def _numeric_gradients(op, inputs, attrs, opset, weights, eps=1e-6):
    """d sum(weights * op(inputs)) / d each float input, by central differences."""
    out = []
    for i, x in enumerate(inputs):
        if x.dtype.kind != "f":
            out.append(None)
            continue
        grad = np.zeros_like(x)
        for index in np.ndindex(x.shape):
            values = []
            for step in (eps, -eps):
                moved = [v.copy() for v in inputs]
                moved[i][index] += step
                values.append(float((weights * _ort_forward(op, moved, attrs, opset)).sum()))
            grad[index] = (values[0] - values[1]) / (2 * eps)
        out.append(grad)
    return out


def f64(*shape):
    return RNG.standard_normal(shape)


CASES = [
    ("Identity", [f64(2, 3)], {}, 18),
    ("Add", [f64(2, 3), f64(3)], {}, 18),
    ("Sub", [f64(2, 1), f64(1, 3)], {}, 18),
    ("Mul", [f64(2, 3), f64(2, 1)], {}, 18),
    ("Div", [f64(2, 3), f64(3) + 3.0], {}, 18),
    ("Neg", [f64(4)], {}, 18),
    ("Relu", [f64(3, 4)], {}, 18),
    ("LeakyRelu", [f64(3, 4)], {"alpha": 0.2}, 18),
    ("Sigmoid", [f64(5)], {}, 18),
    ("Tanh", [f64(5)], {}, 18),
    ("Exp", [f64(2, 2)], {}, 18),
    ("Log", [np.abs(f64(2, 2)) + 0.5], {}, 18),
    ("Sqrt", [np.abs(f64(2, 2)) + 0.5], {}, 18),
    ("MatMul", [f64(2, 3), f64(3, 4)], {}, 18),
    ("MatMul", [f64(2, 2, 3), f64(3, 2)], {}, 18),
    ("MatMul", [f64(3), f64(2, 3, 2)], {}, 18),
    ("MatMul", [f64(2, 3), f64(3)], {}, 18),
    ("MatMul", [f64(3), f64(3)], {}, 18),                        # a dot product: the gradient is a scalar
    ("MatMul", [f64(2, 1, 2, 3), f64(4, 3, 2)], {}, 18),
    ("Gemm", [f64(2, 3), f64(3, 4)], {}, 18),                    # no C
    ("Gemm", [f64(3, 2), f64(4, 3), f64(4)], {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0}, 18),
    ("Gemm", [f64(2, 3), f64(3, 4), f64(2, 1)], {}, 18),
    ("Reshape", [f64(2, 3), np.array([3, 2], np.int64)], {}, 18),
    ("Flatten", [f64(2, 3, 2)], {"axis": 2}, 18),
    ("Squeeze", [f64(2, 1, 3), np.array([1], np.int64)], {}, 18),
    ("Unsqueeze", [f64(2, 3), np.array([0, 3], np.int64)], {}, 18),
    ("Transpose", [f64(2, 3, 4)], {"perm": [1, 2, 0]}, 18),
    ("Transpose", [f64(2, 3)], {}, 18),
    ("Expand", [f64(3, 1), np.array([2, 3, 4], np.int64)], {}, 18),
    ("Concat", [f64(2, 3), f64(1, 3)], {"axis": 0}, 18),
    ("Concat", [f64(2, 1), f64(2, 2)], {"axis": -1}, 18),
    ("Softmax", [f64(2, 4)], {}, 18),
    ("Softmax", [f64(2, 3, 2)], {"axis": 1}, 18),
    ("Softmax", [f64(2, 3, 2)], {"axis": 1}, 11),               # before 13: flattened from the axis on
    ("LogSoftmax", [f64(3, 4)], {"axis": 0}, 18),
    ("LogSoftmax", [f64(2, 3, 2)], {}, 11),
    ("ReduceSum", [f64(2, 3, 2), np.array([1], np.int64)], {"keepdims": 0}, 18),
    ("ReduceSum", [f64(2, 3)], {}, 18),
    ("ReduceSum", [f64(2, 3)], {"axes": [0], "keepdims": 1}, 11),
    ("ReduceMean", [f64(2, 3, 2), np.array([0, -1], np.int64)], {"keepdims": 1}, 18),
    ("ReduceMean", [f64(4, 2)], {"axes": [1], "keepdims": 0}, 13),
    ("Cast", [f64(2, 3)], {"to": TensorProto.FLOAT}, 18),
]


@pytest.mark.parametrize(("op", "inputs", "attrs", "opset"), CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_rule_agrees_with_finite_differences_of_onnxruntime(op, inputs, attrs, opset):
    output = _ort_forward(op, inputs, attrs, opset)
    weights = RNG.standard_normal(output.shape)
    rule = foreign_vjp(op, "", 1)
    got = rule([x.copy() for x in inputs], attrs, output, weights.astype(output.dtype), opset)
    expected = _numeric_gradients(op, inputs, attrs, opset, weights)
    assert len(got) == len(inputs)
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        if e is None:
            assert g is None, (op, i)
            continue
        if op == "Cast":   # a step function in float32: differences measure its rounding; its slope is 1
            np.testing.assert_allclose(g, weights.astype(np.float32), rtol=1e-7)
        else:
            assert g.shape == inputs[i].shape and g.dtype == inputs[i].dtype, (op, i, g.shape, g.dtype)
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7, err_msg=f"{op} input {i}")


def test_every_rule_is_tested_and_other_ops_have_none():
    assert {c[0] for c in CASES} == set(FOREIGN_VJP_OPS)
    assert foreign_vjp("Erf", "", 1) is None
    assert foreign_vjp("Relu", "com.microsoft", 1) is None
    assert foreign_vjp("Relu", "ai.onnx", 1) is not None
    assert foreign_vjp("Split", "", 2) is None                  # one output only
    cast = foreign_vjp("Cast", "", 1)
    assert cast([f64(2)], {"to": TensorProto.INT64}, np.zeros(2, np.int64), np.zeros(2, np.int64), 18) == [None]


def _foreign(node_id, op, inputs, attrs=None):
    attributes = {name: ForeignAttribute(kind, value) for name, (kind, value) in (attrs or {}).items()}
    return N.ForeignNode(id=node_id, name=node_id, op_type=op, inputs=inputs, outputs=("Y",), attributes=attributes)


def _model_graph():
    """An imported model's shape: a trainable embedding table -> Gather -> MatMul (weights,
    trainable) -> Relu -> ReduceMean -> mean squared error against a target."""
    rng = np.random.default_rng(5)                           # the same graph at each call
    g = Graph("model", opset=18)
    g.add_literal(rng.standard_normal((5, 3)), name="table", node_id="table")
    g.add_literal(rng.standard_normal((3, 4)), name="w", node_id="w")
    g.add_literal(np.array([[0, 4], [2, 4]], np.int64), name="ids", node_id="ids")
    for sid in ("table", "w"):
        g.set_trainable(sid, True)
    g.add_operator("Gather", {}, node_id="gather")
    g.connect("table", "output", "gather", "data")
    g.connect("ids", "output", "gather", "indices")
    g.add_node(_foreign("matmul", "MatMul", ("A", "B")))
    g.connect("gather", "output", "matmul", "A")
    g.connect("w", "output", "matmul", "B")
    g.add_node(_foreign("relu", "Relu", ("X",)))
    g.connect("matmul", "Y", "relu", "X")
    g.add_node(_foreign("mean", "ReduceMean", ("data",),
                        {"axes": (AttrKind.INTS, (1,)), "keepdims": (AttrKind.INT, 0)}))
    g.connect("relu", "Y", "mean", "data")
    g.add_loss("mean_squared_error", node_id="loss")
    g.connect("mean", "Y", "loss", "prediction")
    g.add_literal(np.full((2, 4), 0.5), name="target", node_id="target")
    g.connect("target", "output", "loss", "target")
    return g


def test_a_backward_pass_goes_on_through_an_imported_models_ops():
    """It stopped at MatMul ("no gradient for ONNX op MatMul") and gave zeros for both sources."""
    g = _model_graph()
    result = Backward(Engine(g)).run()
    assert result.ok, result.errors
    assert result.warnings == []
    grads = result.source_gradients()

    def loss_at(sid, value):
        h = _model_graph()
        h.set_source(sid, value=value)
        return Backward(Engine(h)).run().loss

    for sid in ("table", "w"):
        base = g.node(sid).value
        numeric = np.zeros_like(base)
        for index in np.ndindex(base.shape):
            up, down = base.copy(), base.copy()
            up[index] += 1e-6
            down[index] -= 1e-6
            numeric[index] = (loss_at(sid, up) - loss_at(sid, down)) / 2e-6
        assert np.abs(grads[sid]).max() > 0.01, sid
        np.testing.assert_allclose(grads[sid], numeric, rtol=1e-5, atol=1e-8, err_msg=sid)
    assert not grads["table"][[1, 3]].any()                  # rows no index picks


def test_an_op_without_a_rule_still_says_so_and_sends_nothing():
    g = Graph("erf", opset=18)
    g.add_literal(RNG.standard_normal(3), name="x", node_id="x")
    g.set_trainable("x", True)
    g.add_node(_foreign("erf", "Erf", ("input",)))
    g.connect("x", "output", "erf", "input")
    g.add_loss("mean_squared_error", node_id="loss")
    g.connect("erf", "Y", "loss", "prediction")
    g.add_literal(np.zeros(3), name="t", node_id="t")
    g.connect("t", "output", "loss", "target")
    result = Backward(Engine(g)).run()
    assert result.ok and result.warnings == ["erf: IndexFlow has no gradient for ONNX op Erf; "
                                             "no gradient flows back through it"]
    assert not result.source_gradients()["x"].any()


def _split_graph():
    """x (4, 3) -> Split into rows 0-1 and 2-3 -> the second half times a trainable W."""
    g = Graph("split", opset=18)
    g.add_literal(np.arange(12.0).reshape(4, 3), name="x", node_id="x")
    g.add_node(N.ForeignNode(id="split", name="split", op_type="Split", inputs=("input",), outputs=("a", "b"),
                             attributes={"axis": ForeignAttribute(AttrKind.INT, 0),
                                         "num_outputs": ForeignAttribute(AttrKind.INT, 2)}))
    g.connect("x", "output", "split", "input")
    g.add_literal(np.ones((2, 3)), name="W", node_id="W")
    g.set_trainable("W", True)
    return g


def test_an_input_from_a_second_output_is_read_from_that_output():
    """The backward pass read every input from its source's first output: d sum(b * W) / dW came
    out as Split's first half, [[0, 1, 2], [3, 4, 5]], with no warning."""
    g = _split_graph()
    g.add_node(_foreign("mul", "Mul", ("A", "B")))
    g.connect("split", "b", "mul", "A")
    g.connect("W", "output", "mul", "B")
    g.add_loss("sum", node_id="loss")
    g.connect("mul", "Y", "loss", "prediction")
    result = Backward(Engine(g)).run()
    assert result.ok, result.errors
    np.testing.assert_array_equal(result.source_gradients()["W"], [[6, 7, 8], [9, 10, 11]])   # = x[2:]


def test_a_loss_target_from_a_second_output_is_read_from_that_output():
    g = _split_graph()
    g.add_loss("mean_squared_error", node_id="loss")
    g.connect("W", "output", "loss", "prediction")
    g.connect("split", "b", "loss", "target")
    result = Backward(Engine(g)).run()
    assert result.ok, result.errors
    target = np.arange(6.0, 12.0).reshape(2, 3)
    np.testing.assert_allclose(result.loss, ((1 - target) ** 2).mean())
    np.testing.assert_allclose(result.source_gradients()["W"], 2 * (1 - target) / 6)


def _two_casts(first: int, second: int, w: np.ndarray) -> Graph:
    """W (trainable) -> Cast(first) -> Cast(second) -> sum."""
    g = Graph("casts", opset=18)
    g.add_literal(w, name="W", node_id="W")
    g.set_trainable("W", True)
    g.add_node(_foreign("first", "Cast", ("input",), {"to": (AttrKind.INT, first)}))
    g.add_node(_foreign("second", "Cast", ("input",), {"to": (AttrKind.INT, second)}))
    g.connect("W", "output", "first", "input")
    g.connect("first", "Y", "second", "input")
    g.add_loss("sum", node_id="loss")
    g.connect("second", "Y", "loss", "prediction")
    return g


def test_a_bfloat16_cast_passes_the_gradient_on():
    """Mixed precision, float32 weights through a bfloat16 Cast: the rules kept only dtypes of
    numpy kind "f" (ml_dtypes' bfloat16 is not), so the gradient was zeros, with no warning."""
    from onnx import TensorProto

    g = _two_casts(TensorProto.BFLOAT16, TensorProto.FLOAT, np.array([1.0, 2.0, 3.0], np.float32))
    result = Backward(Engine(g)).run()
    assert result.ok and result.warnings == [], (result.errors, result.warnings)
    np.testing.assert_array_equal(result.source_gradients()["W"], [1, 1, 1])   # d sum(x) / dx


def test_a_cast_to_integers_says_no_gradient_flows_through_it():
    """Its gradient is zero (right), but nothing said so: a training run reported "1-fold lower"."""
    from onnx import TensorProto

    g = _two_casts(TensorProto.INT64, TensorProto.DOUBLE, np.array([1.5, 2.5]))
    result = Backward(Engine(g)).run()
    assert result.ok and result.warnings == ["first: its output is int64, so no gradient flows back through it"]
    assert not result.source_gradients()["W"].any()


def test_an_op_without_a_rule_read_through_a_later_output_says_it_stops_the_gradient():
    """W -> Split -> its second output -> Relu -> sum: the gradient is zero (Split has no rule);
    the warning was only given for a first output read on the path, so nothing was said."""
    g = Graph("later", opset=18)
    g.add_literal(np.arange(4.0), name="W", node_id="W")
    g.set_trainable("W", True)
    g.add_node(N.ForeignNode(id="split", name="split", op_type="Split", inputs=("input",), outputs=("a", "b"),
                             attributes={"num_outputs": ForeignAttribute(AttrKind.INT, 2)}))
    g.add_node(_foreign("relu", "Relu", ("X",)))
    g.connect("W", "output", "split", "input")
    g.connect("split", "b", "relu", "X")
    g.add_loss("sum", node_id="loss")
    g.connect("relu", "Y", "loss", "prediction")
    result = Backward(Engine(g)).run()
    assert result.warnings == ["split: IndexFlow has no gradient for ONNX op Split; no gradient flows back "
                               "through it"]


def test_a_foreign_op_without_a_rule_has_no_training_switch():
    """Accepted before, with a badge the panel (which shows no switch for it) could not clear."""
    g = Graph("erf", opset=18)
    g.add_node(_foreign("erf", "Erf", ("input",)))
    g.add_node(_foreign("relu", "Relu", ("X",)))
    with pytest.raises(ValueError, match="no gradient goes through ONNX op Erf, so it has no training switch"):
        g.set_training("erf", False)
    with pytest.raises(ValueError, match="no gradient goes through ONNX op Erf"):
        g.set_loss_coefficient("erf", 2.0)
    g.set_loss_coefficient("relu", 2.0)
    assert g.node("relu").loss_coefficient == 2.0 and N.has_training_switch(g.node("relu"))
