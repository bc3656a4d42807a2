"""An audit of the ONNX bridge: every bundled example at every opset it can be written at,
run in onnxruntime (one thread) and imported back; models built by hand with onnx.helper
(omitted attributes, initializers, inputs without shapes, other domains, unsupported ops);
every dtype through export and import; refusals that name the node and the opset. Expected
values come from onnxruntime or are worked out by hand in the comments."""
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

import ops
from nodeeditor import cli
from nodeeditor.graph import Engine, Graph, list_examples, load_example, save_graph
from nodeeditor.onnx_io import ExportError
from nodeeditor.onnx_io.export import export_model, export_with_feeds, lowest_working_opset
from nodeeditor.onnx_io.importer import import_model
from nodeeditor.onnx_io.opset_rules import MAX_OPSET

from .conftest import ort_run

# The lowest opset of each example, from the ONNX operator changelog: Gather exists from 1,
# Scatter 9 (ScatterElements from 11), GatherElements and ScatterND 11, GatherND batch_dims
# 12, ScatterElements reduction add 16 and max/min 18, TensorScatter 24.
LOWEST = {
    "embedding_lookup": 1, "gather11_examples": 1, "one_hot": 9, "scatter9_examples": 9,
    "gatherelements_examples": 11, "scatternd13_examples": 11, "topk_mask": 11,
    "batched_row_gather": 12, "gathernd_examples": 12, "segment_sum": 16,
    "scatterelements_examples": 18, "kv_cache_write": 24, "tensorscatter_examples": 24,
    # the training examples: their Loss nodes feed nothing, so the forward export leaves them out
    "train_embedding": 1, "toolkit_training": 9, "train_segment_sum": 16,
}
NAMES = [e.name for e in list_examples()]
_ENGINE = {}


def engine_outputs(name):
    if name not in _ENGINE:
        result = Engine(load_example(name)).run()
        assert result.ok, result.errors()
        _ENGINE[name] = result.outputs
    return _ENGINE[name]


def test_every_example_has_a_known_lowest_opset():
    assert sorted(LOWEST) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_every_example_at_every_opset_matches_onnxruntime_and_round_trips(name):
    graph = load_example(name)
    assert lowest_working_opset(graph) == LOWEST[name]
    expected = engine_outputs(name)
    for opset in range(1, MAX_OPSET + 1):
        if opset < LOWEST[name]:
            with pytest.raises(ExportError) as info:
                export_with_feeds(graph, opset)
            assert info.value.suggested_opset == LOWEST[name], (opset, str(info.value))
            continue
        model, feeds = export_with_feeds(graph, opset)
        assert model.opset_import[0].version == opset
        ran = ort_run(model, feeds)
        assert sorted(ran) == sorted(expected)
        for key, value in expected.items():
            assert ran[key].dtype == value.dtype and ran[key].shape == value.shape, (opset, key)
            np.testing.assert_array_equal(ran[key], value, err_msg=f"{name} at opset {opset}: {key}")
        back = Engine(import_model(model)).run()
        assert back.ok, back.errors()
        for key, value in expected.items():
            assert back.outputs[key].dtype == value.dtype
            np.testing.assert_array_equal(back.outputs[key], value, err_msg=f"{name} re-imported at {opset}")


@pytest.mark.parametrize("name", NAMES)
def test_cli_run_in_onnxruntime_writes_what_run_writes(capsys, tmp_path, name):
    assert cli.main(["run", name, "--engine", "onnxruntime", "-o", str(tmp_path / "ort.npz")]) == 0
    assert cli.main(["run", name, "-o", str(tmp_path / "np.npz")]) == 0
    with np.load(tmp_path / "ort.npz") as a, np.load(tmp_path / "np.npz") as b:
        assert sorted(a.files) == sorted(b.files)
        for key in a.files:
            np.testing.assert_array_equal(a[key], b[key])


def test_cli_export_then_import_then_run_round_trips(capsys, tmp_path):
    assert cli.main(["export", "scatterelements_examples", "-o", str(tmp_path / "m.onnx"), "--opset", "18"]) == 0
    assert cli.main(["import", str(tmp_path / "m.onnx"), "-o", str(tmp_path / "g.ifg.json")]) == 0
    assert cli.main(["run", str(tmp_path / "g.ifg.json"), "-o", str(tmp_path / "r.npz")]) == 0
    with np.load(tmp_path / "r.npz") as archive:
        # ONNX ScatterElements page, reduction add: [[1,2,3,4,5]] with 1.1 and 2.1 at column 1.
        np.testing.assert_allclose(archive["reduction_add"], [[1.0, 5.2, 3.0, 4.0, 5.0]], rtol=1e-6)


def test_an_onnxruntime_failure_is_one_line(capfd, tmp_path):
    # The graph input's example index 5 is out of range for 2 rows; onnxruntime also wrote its
    # own coloured log line to stderr.
    g = Graph(name="inp")
    g.add_literal(np.arange(6, dtype=np.float32).reshape(2, 3), node_id="d")
    g.add_input("idx", np.array([5]), node_id="idx")
    g.add_operator("Gather", node_id="A")
    g.add_output("y", node_id="y")
    g.connect("d", "output", "A", "data")
    g.connect("idx", "output", "A", "indices")
    g.connect("A", "output", "y", "value")
    path = save_graph(g, tmp_path / "inp.ifg.json")
    assert cli.main(["run", str(path), "--engine", "onnxruntime"]) == 1
    out, err = capfd.readouterr()
    lines = [line for line in (out + err).splitlines() if "error" in line.lower() or "[E:" in line]
    assert len(lines) == 1 and "onnxruntime failed" in lines[0]


# ------------------------------------------------------------------------- hand-built models
DATA = np.arange(12, dtype=np.float32).reshape(3, 4)


def model_of(nodes, inputs=(), outputs=("y",), inits=(), opset=18, extra=(), out_type=T.FLOAT):
    graph = helper.make_graph(
        nodes, "hand", list(inputs), [helper.make_tensor_value_info(o, out_type, None) for o in outputs],
        initializer=[numpy_helper.from_array(np.asarray(v), k) for k, v in dict(inits).items()])
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in extra]
    return helper.make_model(graph, opset_imports=imports)


def same_as_onnxruntime(model):
    """Import ``model``, run it on IndexFlow's engine, and run the original in onnxruntime fed
    the imported graph's input examples; the two must agree."""
    graph = import_model(model)
    result = Engine(graph).run()
    assert result.ok, result.errors()
    feeds = {n.name: n.example for n in graph.nodes if n.kind == "input"}
    ran = ort_run(model, feeds)
    for key, value in ran.items():
        assert result.outputs[key].dtype == value.dtype
        np.testing.assert_array_equal(result.outputs[key], value)
    return result.outputs


def test_omitted_attributes_take_their_defaults():
    # Gather axis 0: rows 2 and 0; ScatterElements axis 0 reduction none; GatherND batch_dims 0;
    # ScatterND reduction none.
    model = model_of([
        helper.make_node("Gather", ["data", "idx"], ["g"]),
        helper.make_node("ScatterElements", ["data", "ei", "eu"], ["se"]),
        helper.make_node("GatherElements", ["data", "ei"], ["ge"]),
        helper.make_node("GatherND", ["data", "ndi"], ["gn"]),
        helper.make_node("ScatterND", ["data", "ndi", "ndu"], ["sn"]),
    ], outputs=("g", "se", "ge", "gn", "sn"), inits={
        "data": DATA, "idx": np.array([2, 0]), "ei": np.array([[2, 1, 0, 0]]),
        "eu": np.array([[-1, -2, -3, -4]], np.float32), "ndi": np.array([[1]]), "ndu": np.full((1, 4), 9, np.float32)})
    out = same_as_onnxruntime(model)
    np.testing.assert_array_equal(out["g"], [[8, 9, 10, 11], [0, 1, 2, 3]])
    # ScatterElements axis 0: column j of row ei[0][j] gets eu[0][j]: (2,0)=-1, (1,1)=-2, (0,2)=-3, (0,3)=-4.
    np.testing.assert_array_equal(out["se"], [[0, 1, -3, -4], [4, -2, 6, 7], [-1, 9, 10, 11]])
    np.testing.assert_array_equal(out["ge"], [[8, 5, 2, 3]])
    np.testing.assert_array_equal(out["gn"], [[4, 5, 6, 7]])
    np.testing.assert_array_equal(out["sn"], [[0, 1, 2, 3], [9, 9, 9, 9], [8, 9, 10, 11]])


def test_a_graph_input_without_a_shape_gets_a_usable_example():
    # No shape at all (rank unknown) became a scalar example, which no op takes as data.
    model = model_of([helper.make_node("Gather", ["x", "idx"], ["y"], axis=0)],
                     inputs=[helper.make_tensor_value_info("x", T.FLOAT, None)], inits={"idx": np.array([0, 0])})
    graph = import_model(model)
    assert graph.find("x").example.shape == (1,)
    np.testing.assert_array_equal(same_as_onnxruntime(model)["y"], [0.0, 0.0])


def test_symbolic_dimensions_become_one():
    model = model_of([helper.make_node("Gather", ["x", "idx"], ["y"], axis=1)],
                     inputs=[helper.make_tensor_value_info("x", T.FLOAT, ["N", 4])], inits={"idx": np.array([3, 1])})
    assert import_model(model).find("x").example.shape == (1, 4)
    np.testing.assert_array_equal(same_as_onnxruntime(model)["y"], [[0.0, 0.0]])


def test_other_domains_in_opset_imports_are_ignored_and_ai_onnx_is_the_default_domain():
    for extra in ([("com.microsoft", 1), ("ai.onnx.ml", 3)], [("ai.onnx", 18)]):
        model = model_of([helper.make_node("Gather", ["data", "idx"], ["y"], axis=1)],
                         inits={"data": DATA, "idx": np.array([3])}, extra=extra)
        assert import_model(model).opset == 18
        np.testing.assert_array_equal(same_as_onnxruntime(model)["y"], [[3], [7], [11]])


def test_ops_of_other_domains_import_and_a_runtime_without_them_names_them():
    model = model_of([helper.make_node("Relu", ["data"], ["r"], name="my_relu"),
                      helper.make_node("Gather", ["r", "idx"], ["y"], domain="com.me", name="their_gather")],
                     inits={"data": DATA, "idx": np.array([0])}, extra=[("com.me", 1)])
    graph = import_model(model)
    theirs = graph.node("their_gather")
    assert theirs.kind == "foreign" and theirs.domain == "com.me" and theirs.title == "com.me::Gather"
    assert graph.opsets() == {"": 18, "com.me": 1}
    errors = dict(Engine(graph).run().errors())
    assert "com.me::Gather" in errors["their_gather"] and "\n" not in errors["their_gather"]


def test_constants_scatter9_and_identity_chains():
    model = model_of([
        helper.make_node("Constant", [], ["ci"], value_ints=[2, 0]),
        helper.make_node("Constant", [], ["cu"], value=numpy_helper.from_array(np.array([[5.0, 6.0]], np.float32))),
        helper.make_node("Identity", ["data"], ["d1"]), helper.make_node("Identity", ["d1"], ["d2"]),
        helper.make_node("Constant", [], ["row"], value=numpy_helper.from_array(np.array([[1, 1]]))),
        helper.make_node("Scatter", ["d2", "row", "cu"], ["y"], axis=1),
    ], inits={"data": DATA[:2]}, opset=9)
    # Scatter-9 axis 1 with indices [[1, 1]]: row 0, column 1 gets 5, then 6 (the last wins).
    out = same_as_onnxruntime(model)
    np.testing.assert_array_equal(out["y"], [[0, 6, 2, 3], [4, 5, 6, 7]])


def test_bad_model_files_are_refused_in_one_line(capsys, tmp_path):
    good = tmp_path / "good.onnx"
    onnx.save(model_of([helper.make_node("Gather", ["data", "idx"], ["y"])],
                       inits={"data": DATA, "idx": np.array([0])}), str(good))
    cases = {
        "empty.onnx": (b"", "empty"),
        "garbage.onnx": (b"\xff\x00garbage bytes", "not a readable ONNX model"),
        "truncated.onnx": (good.read_bytes()[:60], "not a readable ONNX model"),
        "graph.ifg.json": (b'{"format": "indexflow-graph", "version": 1}', "IndexFlow graph file"),
        "model.json": (b'{"format": "indexflow-graph", "version": 1}', "not a readable ONNX model"),
    }
    for file_name, (data, phrase) in cases.items():
        (tmp_path / file_name).write_bytes(data)
        code = cli.main(["import", str(tmp_path / file_name), "-o", str(tmp_path / "x.ifg.json")])
        err = capsys.readouterr().err
        assert code == 1 and phrase in err and file_name in err, (file_name, err)
        assert len(err.strip().splitlines()) == 1, err
    assert cli.main(["import", str(tmp_path / "missing.onnx"), "-o", str(tmp_path / "x.ifg.json")]) == 2
    assert "no such file" in capsys.readouterr().err


# ------------------------------------------------------------------------- dtypes
ALL_DTYPES = sorted(set(ops.DTYPE_NAMES) | set(getattr(ops, "SMALL_DTYPE_NAMES", ())))
# The opset from which ONNX Identity takes each dtype (onnx/defs/operators.md, Identity-13, -19,
# -21, -23, -24): the export writes an output that reads a source as an Identity.
IDENTITY_FROM = {"bfloat16": 13, "float8e4m3fn": 19, "float8e4m3fnuz": 19, "float8e5m2": 19, "float8e5m2fnuz": 19,
                 "int4": 21, "uint4": 21, "float4e2m1": 23, "float8e8m0": 24}


def _values(name):
    if name == "string":
        return np.array(["a", "", "\u00fc\u4e2d", "x\ny"], dtype=object)
    if name == "bool":
        return np.array([True, False, True, False])
    dtype = np.dtype(ops.dtype_of(name))
    if name in ("int4", "uint4"):
        return np.array([-8, -1, 0, 7] if name == "int4" else [0, 1, 14, 15]).astype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.array([info.min, info.max, 0, 1], dtype=dtype)
    if dtype.kind == "c":
        return np.array([1 + 2j, -0.0 - 1e-30j, complex(np.inf, 1), 1 / 3 + 0.1j], dtype=dtype)
    return np.array([1.0, 0.5, -0.0, 2.0]).astype(dtype)


def _literal_to_output(value):
    g = Graph(name="dtype")
    g.add_literal(value, node_id="v", name="v")
    g.add_output("out", node_id="out")
    g.connect("v", "output", "out", "value")
    return g


@pytest.mark.parametrize("name", ALL_DTYPES)
def test_every_dtype_exports_imports_bit_exactly(name):
    value = _values(name)
    graph = _literal_to_output(value)
    need = IDENTITY_FROM.get(name, 1)
    assert lowest_working_opset(graph) == need
    if need > 1:
        # It used to fail in onnx's checker with a message that named no opset.
        with pytest.raises(ExportError) as info:
            export_model(graph, need - 1)
        assert info.value.suggested_opset == need and f"needs opset {need}" in str(info.value)
    model = export_model(graph, 24)
    back = import_model(model).find("v").value
    assert back.dtype == value.dtype and back.shape == value.shape
    if value.dtype == object:
        assert list(back) == list(value)
    else:
        assert back.tobytes() == value.tobytes()
    if name in ops.DTYPE_NAMES and name not in ("bfloat16", "complex64", "complex128"):  # what onnxruntime runs
        ran = ort_run(model)["out"]
        assert ran.dtype == value.dtype and (ran.tobytes() == value.tobytes() if value.dtype != object
                                             else list(ran) == list(value))


def test_a_string_without_a_utf8_form_is_refused_by_name(capsys, tmp_path):
    graph = _literal_to_output(np.array([os.fsdecode(b"n\xffme"), "b"], dtype=object))
    with pytest.raises(ExportError, match="v: 'n.udcffme' is not valid Unicode"):
        export_model(graph)
    path = save_graph(graph, tmp_path / "s.ifg.json")
    assert cli.main(["export", str(path), "-o", str(tmp_path / "s.onnx")]) == 1
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("name", NAMES)
def test_sources_as_inputs_match_onnxruntime_and_import_with_their_values(name):
    # With --sources inputs the sources' values used to be lost on import (zeros came back).
    graph = load_example(name)
    expected = engine_outputs(name)
    model, feeds = export_with_feeds(graph, max(LOWEST[name], 13), sources="inputs")
    assert not model.graph.initializer
    ran = ort_run(model, feeds)
    back = Engine(import_model(model)).run()
    assert back.ok, back.errors()
    for key, value in expected.items():
        np.testing.assert_array_equal(ran[key], value)
        np.testing.assert_array_equal(back.outputs[key], value)


@pytest.mark.parametrize("name", ["bfloat16", "float8e4m3fn", "int4", "float16", "string", "bool"])
def test_graph_input_examples_of_every_kind_of_dtype_survive_export_and_import(name):
    # .npy cannot name bfloat16 or the other ml_dtypes types: their example came back as zeros.
    value = _values(name)
    g = Graph(name="inputs", opset=24)
    g.add_input("x", value, node_id="x")
    g.add_output("out", node_id="out")
    g.connect("x", "output", "out", "value")
    back = import_model(export_model(g)).find("x").example
    assert back.dtype == value.dtype and back.shape == value.shape
    assert list(back.ravel()) == list(value.ravel()) if value.dtype == object else back.tobytes() == value.tobytes()
