"""Bigger models: large initializers stay in the model file (the graph file refers to them and
reads them on demand), external data is read from the model's own folder only."""
from __future__ import annotations

import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from nodeeditor.graph import Engine, load_graph, save_graph
from nodeeditor.graph import nodes as N
from nodeeditor.onnx_io import OnnxImportError, import_model

from .conftest import ort_run

ROWS, COLS = 1000, 64


def _model(table: np.ndarray) -> onnx.ModelProto:
    nodes = [helper.make_node("Gather", ["table", "ids"], ["rows"], name="look up"),
             helper.make_node("ReduceSum", ["rows", "axes"], ["total"], name="sum", keepdims=0)]
    graph = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("ids", TensorProto.INT64, ["n"])],
                              [helper.make_tensor_value_info("total", TensorProto.FLOAT, [COLS])],
                              initializer=[numpy_helper.from_array(table, "table"),
                                           numpy_helper.from_array(np.array([0], np.int64), "axes")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.fixture
def table():
    return np.random.default_rng(0).standard_normal((ROWS, COLS)).astype(np.float32)


def _run(graph, ids):
    graph.set_source(graph.find("ids").id, example=ids)
    result = Engine(graph).run()
    assert result.ok, result.errors()
    return result.outputs["total"]


def test_a_large_initializer_stays_in_the_model_and_the_graph_file_stays_small(tmp_path, table):
    model_path = tmp_path / "models" / "big.onnx"
    model_path.parent.mkdir()
    onnx.save(_model(table), model_path)
    graph_path = tmp_path / "graphs" / "big.ifg.json"
    graph_path.parent.mkdir()
    graph = import_model(model_path, graph_folder=graph_path.parent)
    source = graph.find("table")
    assert isinstance(source, N.ModelTensorSource)
    assert source.path == os.path.join("..", "models", "big.onnx") and source.tensor == "table"
    assert (source.dtype, source.shape, source.nbytes) == ("float32", (ROWS, COLS), table.nbytes)
    save_graph(graph, graph_path)
    assert graph_path.stat().st_size < 10_000 and not graph_path.with_suffix(".npz").exists()
    refused = Engine(load_graph(graph_path)).run().errors()   # the model is outside the graph's folder
    assert "outside the graph's folder" in dict(refused)["table"]
    loaded = load_graph(graph_path, allow_outside_files=True)
    ids = np.array([3, 999, 3])
    np.testing.assert_allclose(_run(loaded, ids), ort_run(_model(table), {"ids": ids})["total"], rtol=1e-6)


def test_a_model_changed_since_the_import_is_named_on_the_source(tmp_path, table):
    model_path = tmp_path / "big.onnx"
    onnx.save(_model(table), model_path)
    graph = import_model(model_path)
    onnx.save(_model(table + 1), model_path)
    graph.set_source(graph.find("ids").id, example=np.array([0]))
    error = dict(Engine(graph).run().errors())[graph.find("table").id]
    assert "not the one imported" in error and "import the model again" in error
    os.remove(model_path)
    graph.set_source(graph.find("table").id, path=str(model_path))
    assert "cannot read the model" in dict(Engine(graph).run().errors())[graph.find("table").id]


def test_a_model_read_from_memory_keeps_its_initializers_in_the_graph(table):
    graph = import_model(_model(table))
    assert isinstance(graph.find("table"), N.LiteralSource)


def _external(tmp_path, table, location: str) -> os.PathLike:
    model = _model(table)
    folder = tmp_path / "m"
    folder.mkdir(exist_ok=True)
    path = folder / "ext.onnx"
    onnx.save(model, path, save_as_external_data=True, all_tensors_to_one_file=True, location="weights.bin",
              size_threshold=0)
    if location != "weights.bin":
        model = onnx.load(path, load_external_data=False)
        for entry in model.graph.initializer[0].external_data:
            if entry.key == "location":
                entry.value = location
        onnx.save(model, path)
    return path


def test_external_data_in_the_models_folder_loads(tmp_path, table):
    path = _external(tmp_path, table, "weights.bin")
    graph = import_model(path)
    assert isinstance(graph.find("table"), N.ModelTensorSource)
    ids = np.array([1, 2])
    np.testing.assert_allclose(_run(graph, ids), table[ids].sum(axis=0), rtol=1e-5)


@pytest.mark.parametrize("where", ["absolute", "../outside.bin", "sub/../../outside.bin"])
def test_external_data_outside_the_models_folder_is_refused(tmp_path, table, where):
    outside = tmp_path / "outside.bin"
    outside.write_bytes(table.tobytes())
    location = str(outside) if where == "absolute" else where
    path = _external(tmp_path, table, location)
    with pytest.raises(OnnxImportError) as info:
        import_model(path)
    message = str(info.value)
    assert "'table'" in message and "model's own folder" in message and "\n" not in message


def test_external_data_too_short_for_its_tensor_is_refused(tmp_path, table):
    path = _external(tmp_path, table, "weights.bin")
    (path.parent / "weights.bin").write_bytes(b"\x00" * 16)
    with pytest.raises(OnnxImportError, match="needs 256000 bytes"):
        import_model(path)


@pytest.mark.parametrize("length", ["16", "99999999", "lots"])
def test_external_data_of_another_declared_length_is_refused_naming_it(tmp_path, table, length):
    """A ``length`` that is not the tensor's size: onnxruntime refuses such a model (and
    onnx.load one longer than the file); it was read silently, or refused with "needs 256000
    bytes ... which holds 256000", naming neither the length nor why."""
    import onnxruntime as ort

    path = _external(tmp_path, table, "weights.bin")
    model = onnx.load(path, load_external_data=False)
    for entry in model.graph.initializer[0].external_data:
        if entry.key == "length":
            entry.value = length
    onnx.save(model, path)
    if length != "lots":
        with pytest.raises(Exception, match="(?i)external data|deserialize"):
            ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    with pytest.raises(OnnxImportError) as info:
        import_model(path)
    message = str(info.value)
    assert "'table'" in message and (f"declares {length} bytes" in message if length != "lots"
                                     else "declares a length of 'lots' bytes" in message)


def test_a_model_imported_with_an_absolute_path_is_saved_relative_to_the_graph(tmp_path, table):
    model_path = tmp_path / "models" / "big.onnx"
    model_path.parent.mkdir()
    onnx.save(_model(table), model_path)
    graph = import_model(model_path)   # as the editor imports: no graph file yet
    assert os.path.isabs(graph.find("table").path)
    save_graph(graph, tmp_path / "g.ifg.json")
    assert graph.find("table").path == os.path.join("models", "big.onnx")
    assert '"path": "models/big.onnx"' in (tmp_path / "g.ifg.json").read_text().replace(os.sep, "/")


def test_a_weight_kept_in_the_model_can_be_trained(tmp_path, table):
    """Any real layer imports as a model tensor (over 4096 elements); it could not be made
    trainable ("it is not a tensor source"). Now its gradient is taken, a training step turns
    it into a literal holding the trained tensor, and the flag survives saving."""
    from nodeeditor.graph import Backward, TrainingRun, apply_trained
    from nodeeditor.graph.optimizers import OptimizerSettings

    path = tmp_path / "big.onnx"
    onnx.save(_model(table), str(path))
    g = import_model(path)
    (weights,) = [n for n in g.nodes if isinstance(n, N.ModelTensorSource)]
    g.set_trainable(weights.id, True)
    graph_file = tmp_path / "big.ifg.json"
    save_graph(g, graph_file)
    g = load_graph(graph_file)
    assert g.node(weights.id).trainable
    (ids_input,) = [n.id for n in g.nodes if isinstance(n, N.InputSource) and n.name == "ids"]
    g.set_source(ids_input, example=np.array([3, 3, 7], np.int64))
    g.add_loss("sum", node_id="loss")
    (total,) = [n.id for n in g.nodes if isinstance(n, N.ForeignNode) and n.op_type == "ReduceSum"]
    g.connect(total, g.node(total).output_ports()[0], "loss", N.PREDICTION)
    result = Backward(Engine(g)).run()
    assert result.ok, result.errors
    expected = np.zeros_like(table)
    expected[3], expected[7] = 2, 1                      # d sum(E[ids]) / dE: how often each row is picked
    np.testing.assert_array_equal(result.source_gradients()[weights.id], expected)
    run = TrainingRun(g, OptimizerSettings("sgd", 0.5))
    trained = run.execute(1)
    assert trained.error is None
    apply_trained(g, trained.values)
    assert isinstance(g.node(weights.id), N.LiteralSource) and g.node(weights.id).trainable
    np.testing.assert_allclose(g.node(weights.id).value, table - 0.5 * expected, rtol=1e-6)


def test_an_if_body_keeping_its_tensor_in_external_data_runs(tmp_path):
    """onnx.save_model(save_as_external_data=True) moves a body's initializers of 1 KB or more
    out too: the model imported, but the If failed ("should be stored in model.onnx.data, but it
    is not regular file"): the body went to onnxruntime without the model's folder."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    w = np.arange(256, dtype=np.float32).reshape(16, 16)
    then_graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y_then"])], "then", [],
                                   [helper.make_tensor_value_info("y_then", TensorProto.FLOAT, [1, 16])],
                                   initializer=[numpy_helper.from_array(w, "w")])
    else_graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y_else"])], "else", [],
                                   [helper.make_tensor_value_info("y_else", TensorProto.FLOAT, [1, 16])])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then_graph, else_branch=else_graph)]
    graph = helper.make_graph(nodes, "if", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16]),
                                            helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])])
    path = tmp_path / "if.onnx"
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(path),
                    save_as_external_data=True, location="if.onnx.data", size_threshold=512)
    assert (tmp_path / "if.onnx.data").stat().st_size >= w.nbytes
    g = import_model(path)
    x = np.ones((1, 16), np.float32)
    for node in g.nodes:
        if isinstance(node, N.InputSource):
            g.set_source(node.id, example=x if node.name == "x" else np.array(True))
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"x": x, "c": np.array(True)})
    result = Engine(g).run()
    assert result.ok, result.errors()
    np.testing.assert_array_equal(result.outputs["y"], expected[0])
