"""The gradient export (``indexflow export --gradients``): the model passes the full checker,
and onnxruntime's loss and gradients equal the engine's backward pass (``indexflow grad``)
on small graphs of every op and reduction, every loss kind, the training switch, the loss
coefficient and fan-out; what cannot be written is refused by name."""
import numpy as np
import onnx
import pytest

from nodeeditor import cli
from nodeeditor.graph import Backward, Engine, Graph
from nodeeditor.onnx_io import ExportError
from nodeeditor.onnx_io.gradients import export_gradients_with_feeds, gradient_output_names

from .conftest import ort_run

f32 = np.float32
RNG = np.random.default_rng(7)


def loss_graph(op, inputs, attrs=None, trainable=("data",), opset=18, loss="mean_squared_error", coefficient=1.0,
               training=True):
    """Sources -> op -> Loss (mean squared error against a fixed random target, so the
    gradient reaching the op is not uniform)."""
    g = Graph("t", opset=opset)
    op_id = g.add_operator(op, attrs or {}, name="op", node_id="op")
    for port, value in inputs.items():
        g.add_literal(value, name=port, node_id=port)
        g.connect(port, "output", op_id, port)
        if port in trainable:
            g.set_trainable(port, True)
    g.set_loss_coefficient(op_id, coefficient)
    g.set_training(op_id, training)
    out = g.output_type(op_id)
    assert out is not None, g.node_info(op_id)
    g.add_loss(loss, node_id="loss")
    g.connect(op_id, g.node(op_id).output_ports()[0], "loss", "prediction")
    if loss == "mean_squared_error":
        g.add_literal(RNG.normal(size=out.shape).astype(out.dtype), name="target", node_id="target")
        g.connect("target", "output", "loss", "target")
    return g


def assert_onnxruntime_matches_the_engine(g, opset=None, rtol=1e-5):
    model, feeds = export_gradients_with_feeds(g, opset)
    onnx.checker.check_model(model, full_check=True)
    read = {name for node in model.graph.node for name in node.input} | {o.name for o in model.graph.output}
    unread = [o for node in model.graph.node if node.op_type == "Constant" for o in node.output if o not in read]
    assert not unread, f"constants no node reads (onnxruntime warns about each): {unread}"
    ran = ort_run(model, feeds)
    result = Backward(Engine(g)).run()
    assert result.ok, result.errors
    names = gradient_output_names(g)
    assert sorted(ran) == sorted(["loss", *names.values()])
    np.testing.assert_allclose(ran["loss"], result.loss, rtol=rtol)
    for sid, grad in result.source_gradients().items():
        got = ran[names[sid]]
        assert got.dtype == grad.dtype and got.shape == grad.shape
        np.testing.assert_allclose(got, grad, rtol=rtol, atol=1e-6, err_msg=names[sid])
    return ran, result


def rand(*shape):
    return RNG.normal(size=shape).astype(f32)


def i64(v):
    return np.array(v, np.int64)


GATHERS = [
    ("Gather", {"data": rand(4, 3), "indices": i64([[0, 3], [3, -1]])}, {}),
    ("Gather", {"data": rand(2, 5, 3), "indices": i64([4, 0, 4, -5])}, {"axis": 1}),
    ("Gather", {"data": rand(3, 4), "indices": np.array(2, np.int64)}, {"axis": -1}),
    ("Gather", {"data": rand(4, 3), "indices": np.array([1, 1, -4], np.int32)}, {}),
    ("GatherElements", {"data": rand(3, 4), "indices": i64([[0, 0, 3], [2, -1, 1]])}, {"axis": 1}),
    ("GatherElements", {"data": rand(3, 4), "indices": i64([[2, 2, 0, 1], [2, 0, 0, -3]])}, {"axis": 0}),
    ("GatherND", {"data": rand(3, 4), "indices": i64([[0, 1], [2, -1], [0, 1]])}, {}),
    ("GatherND", {"data": rand(3, 4, 2), "indices": i64([[1], [-1], [1]])}, {}),
    ("GatherND", {"data": rand(2, 4, 3), "indices": i64([[[3], [0], [3]], [[1], [-1], [1]]])}, {"batch_dims": 1}),
]


@pytest.mark.parametrize("op, inputs, attrs", GATHERS, ids=lambda v: v if isinstance(v, str) else None)
def test_gather_gradients_in_onnxruntime_equal_the_engines(op, inputs, attrs):
    assert_onnxruntime_matches_the_engine(loss_graph(op, inputs, attrs))


def scatter_elements_inputs():
    return {"data": rand(3, 4), "indices": i64([[1, 0, 2, 1], [1, -3, 0, 1]]), "updates": rand(2, 4)}


def scatter_nd_inputs():
    return {"data": rand(4, 3), "indices": i64([[1], [3], [-3], [0]]), "updates": rand(4, 3)}


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("op, make", [("ScatterElements", scatter_elements_inputs), ("ScatterND", scatter_nd_inputs)])
def test_scatter_gradients_in_onnxruntime_equal_the_engines(op, make, reduction):
    # duplicate targets in both (row 1 of ScatterElements' axis 0, ScatterND's [1] and [-3])
    g = loss_graph(op, make(), {"reduction": reduction}, trainable=("data", "updates"))
    assert_onnxruntime_matches_the_engine(g)


def test_scatter_nd_of_single_elements_with_duplicates():
    inputs = {"data": rand(3, 3), "indices": i64([[0, 1], [2, 2], [0, 1], [-1, -1]]), "updates": rand(4)}
    for reduction in ("none", "mul", "max"):
        assert_onnxruntime_matches_the_engine(
            loss_graph("ScatterND", inputs, {"reduction": reduction}, trainable=("data", "updates")))


def test_mul_with_zero_updates_and_ties_for_max():
    # one zero in a cell (only it gets a gradient), two zeros in a cell (nobody does)
    inputs = {"data": rand(1, 4), "indices": i64([[0, 0, 1, 1, 2]]), "updates": f32([[0.0, 2.0, 0.0, 0.0, 3.0]])}
    assert_onnxruntime_matches_the_engine(
        loss_graph("ScatterElements", inputs, {"axis": 1, "reduction": "mul"}, trainable=("data", "updates")))
    ties = {"data": f32([[1.0, 5.0, 2.0]]), "indices": i64([[0, 0, 1, 2]]), "updates": f32([[1.0, 1.0, 5.0, 0.5]])}
    for reduction in ("max", "min"):
        assert_onnxruntime_matches_the_engine(
            loss_graph("ScatterElements", ties, {"axis": 1, "reduction": reduction}, trainable=("data", "updates")))


@pytest.mark.parametrize("mode, write", [("linear", [1, 0]), ("circular", [3, 2])])
def test_tensor_scatter_gradients_in_onnxruntime_equal_the_engines(mode, write):
    inputs = {"past_cache": rand(2, 1, 4, 3), "update": rand(2, 1, 2, 3), "write_indices": i64(write)}
    g = loss_graph("TensorScatter", inputs, {"mode": mode}, trainable=("past_cache", "update"), opset=24)
    assert_onnxruntime_matches_the_engine(g)


def test_a_scatter_of_opset_10_is_written_as_scatter_elements_at_18():
    inputs = {"data": rand(3, 3), "indices": i64([[1, 0, 2], [1, 2, 0]]), "updates": rand(2, 3)}
    g = loss_graph("Scatter", inputs, trainable=("data", "updates"), opset=10)
    assert_onnxruntime_matches_the_engine(g, opset=18)


@pytest.mark.parametrize("loss", ["sum", "mean", "mean_squared_error"])
def test_each_loss_kind(loss):
    g = loss_graph("Gather", {"data": rand(4, 3), "indices": i64([1, 1, 3])}, loss=loss)
    assert_onnxruntime_matches_the_engine(g)


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
def test_softmax_cross_entropy(dtype):
    g = Graph("ce")
    g.add_literal(rand(5, 4), name="logits table", node_id="table")
    g.set_trainable("table", True)
    g.add_literal(i64([[0, 4], [2, 2], [1, 3]]), name="ids", node_id="ids")
    g.add_operator("Gather", node_id="gather")
    g.add_literal(np.array([[3, 0], [1, 1], [2, 3]], dtype), name="classes", node_id="classes")
    g.add_loss("softmax_cross_entropy", node_id="loss")
    for src, dst, port in (("table", "gather", "data"), ("ids", "gather", "indices"),
                           ("gather", "loss", "prediction"), ("classes", "loss", "target")):
        g.connect(src, "output", dst, port)
    assert_onnxruntime_matches_the_engine(g)


def test_the_target_of_a_mean_squared_error_gets_its_gradient_too():
    g = loss_graph("Gather", {"data": rand(4, 3), "indices": i64([1, 1, 3])})
    g.set_trainable("target", True)
    ran, result = assert_onnxruntime_matches_the_engine(g)
    np.testing.assert_allclose(ran["grad_target"], -result.gradient("op"), rtol=1e-6)   # d/dt (p-t)^2 = -d/dp


def test_coefficient_training_switch_and_fan_out():
    # table feeds two gathers (fan-out); one of them has coefficient 3, a later one training off
    g = Graph("fan")
    g.add_literal(rand(4, 3), name="table", node_id="table")
    g.set_trainable("table", True)
    g.add_literal(i64([0, 2]), node_id="a_ids")
    g.add_literal(i64([2, 3]), node_id="b_ids")
    g.add_operator("Gather", name="a", node_id="a")
    g.add_operator("Gather", name="b", node_id="b")
    g.add_literal(i64([[0, 1, 2], [2, 1, 0]]), node_id="cols")
    g.add_operator("GatherElements", {"axis": 1}, name="c", node_id="c")
    g.add_literal(i64([[0, 1, 1], [1, 0, 0]]), node_id="rows")
    g.add_operator("ScatterElements", {"reduction": "add"}, name="sum", node_id="sum")
    g.add_loss("mean_squared_error", node_id="loss")
    g.add_literal(rand(2, 3), node_id="target")
    for src, dst, port in (("table", "a", "data"), ("a_ids", "a", "indices"), ("table", "b", "data"),
                           ("b_ids", "b", "indices"), ("b", "c", "data"), ("cols", "c", "indices"),
                           ("a", "sum", "data"), ("rows", "sum", "indices"), ("c", "sum", "updates"),
                           ("sum", "loss", "prediction"), ("target", "loss", "target")):
        g.connect(src, "output", dst, port)
    g.set_loss_coefficient("b", 3.0)
    assert_onnxruntime_matches_the_engine(g)
    g.set_training("c", False)
    ran, _ = assert_onnxruntime_matches_the_engine(g)
    assert not np.any(ran["grad_table"][3])   # row 3 is read only by b, behind c
    g.set_training("a", False)
    g.set_training("c", True)
    g.set_loss_coefficient("sum", -0.5)
    assert_onnxruntime_matches_the_engine(g)


def test_a_source_no_gradient_reaches_gets_zeros_and_sources_may_be_graph_inputs():
    g = loss_graph("Gather", {"data": rand(4, 3), "indices": i64([1, 1, 3])})
    g.add_literal(rand(2, 2), name="unused weights", node_id="unused")
    g.set_trainable("unused", True)
    ran, _ = assert_onnxruntime_matches_the_engine(g)
    assert not np.any(ran["grad_unused weights"]) and ran["grad_unused weights"].shape == (2, 2)
    model, feeds = export_gradients_with_feeds(g, sources="inputs")
    assert sorted(feeds) == sorted(["data", "indices", "target", "unused weights"])
    np.testing.assert_allclose(ort_run(model, feeds)["grad_data"], ran["grad_data"])


def test_refusals_name_what_is_missing_or_cannot_be_written():
    g = loss_graph("Gather", {"data": rand(4, 3), "indices": i64([1, 1, 3])})
    with pytest.raises(ExportError, match="opset 18") as info:
        export_gradients_with_feeds(g, opset=16)
    assert info.value.suggested_opset == 18
    half = loss_graph("Gather", {"data": rand(4, 3).astype(np.float16), "indices": i64([1])})
    with pytest.raises(ExportError, match=r"float32 and float64 tensors only(.|\n)*- op: its tensor is float16"):
        export_gradients_with_feeds(half)
    no_trainable = loss_graph("Gather", {"data": rand(4, 3), "indices": i64([1])}, trainable=())
    with pytest.raises(ExportError, match="no tensor source is marked trainable"):
        export_gradients_with_feeds(no_trainable)
    no_loss = Graph("n")
    no_loss.add_literal(rand(2), node_id="x")
    no_loss.set_trainable("x", True)
    with pytest.raises(ExportError, match="no Loss node"):
        export_gradients_with_feeds(no_loss)
    twins = loss_graph("Gather", {"data": rand(4, 3), "indices": i64([1])})
    twins.set_trainable("target", True)
    twins.rename_node("target", "data")
    with pytest.raises(ExportError, match="2 trainable sources are called 'data'"):
        export_gradients_with_feeds(twins)


def test_cli_export_gradients_writes_a_model_of_loss_and_gradients(tmp_path, capsys):
    g = loss_graph("GatherElements", {"data": rand(3, 4), "indices": i64([[0, 0, 3], [2, -1, 1]])}, {"axis": 1})
    from nodeeditor.graph import save_graph

    path = save_graph(g, tmp_path / "g.ifg.json")
    assert cli.main(["export", str(path), "--gradients", "-o", str(tmp_path / "m.onnx")]) == 0
    assert "loss and 1 gradient" in capsys.readouterr().out
    model = onnx.load(str(tmp_path / "m.onnx"))
    assert [o.name for o in model.graph.output] == ["loss", "grad_data"]
    assert cli.main(["export", str(path), "--gradients", "--opset", "17", "-o", str(tmp_path / "m2.onnx")]) == 1
    assert "opset 18" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["train_embedding", "train_segment_sum", "toolkit_training"])
def test_every_training_example_exported_with_gradients_equals_indexflow_grad(name, tmp_path, capsys):
    """The issue's proof: the exported gradient model, run in onnxruntime as it is (its
    sources are literals and generators), gives what ``indexflow grad`` writes."""
    from nodeeditor.graph import load_example

    assert cli.main(["grad", name, "-o", str(tmp_path / "grads.npz")]) == 0
    loss_line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("loss: "))
    assert cli.main(["export", name, "--gradients", "-o", str(tmp_path / "m.onnx")]) == 0
    model = onnx.load(str(tmp_path / "m.onnx"))
    onnx.checker.check_model(model, full_check=True)
    assert not model.graph.input   # runs as it is: no feeds
    ran = ort_run(model)
    graph = load_example(name)
    names = gradient_output_names(graph)
    np.testing.assert_allclose(ran["loss"], float(loss_line.split()[1]), rtol=1e-5)
    with np.load(tmp_path / "grads.npz") as grads:
        assert sorted(grads.files) == sorted(graph.node(sid).name for sid in names)
        for sid, output in names.items():
            np.testing.assert_allclose(ran[output], grads[graph.node(sid).name], rtol=1e-5, atol=1e-7)
