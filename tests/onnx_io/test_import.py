"""Import: models become editable graphs (the indexing ops first-class, every other op a foreign
node); round trips both ways; invalid models are refused with a clear message."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from nodeeditor import cli
from nodeeditor.graph import Engine, list_examples, load_example
from nodeeditor.onnx_io import OnnxImportError, export_model, import_model
from nodeeditor.onnx_io.export import export_with_feeds
from tests import node_cases

from .conftest import assert_same, ort_run

NODE_CASES = {c.name: c for c in node_cases.cases(node_cases.INDEXING_MODULES)
              if c.name.startswith(("test_gather", "test_scatter", "test_tensorscatter"))}


def _feeds(case):
    inputs, _ = case.data_sets[0]
    names = [i.name for i in case.model.graph.input]
    return {n: numpy_helper.to_array(v) if isinstance(v, onnx.TensorProto) else np.asarray(v)
            for n, v in zip(names, inputs, strict=True)}


@pytest.mark.parametrize("name", sorted(NODE_CASES))
def test_export_of_import_runs_like_the_original_in_onnxruntime(name):
    case = NODE_CASES[name]
    feeds = _feeds(case)
    graph = import_model(case.model)
    for node in graph.nodes:  # run the imported graph on the test's inputs
        if node.kind == "input":
            graph.set_source(node.id, example=feeds[node.name])
    original = ort_run(case.model, feeds)
    model, new_feeds = export_with_feeds(graph, opset=graph.opset)
    again = ort_run(model, new_feeds)
    assert set(again) == set(original)
    for out_name in original:
        assert_same(again[out_name], original[out_name], float_tolerance=True)


@pytest.mark.parametrize("name", [info.name for info in list_examples()])
def test_import_of_export_runs_to_the_same_outputs(name):
    graph = load_example(name)
    expected = Engine(graph).run().outputs
    again = import_model(export_model(graph))
    assert again.opset == graph.opset
    got = Engine(again).run().outputs
    assert set(got) == set(expected)
    for out_name in expected:
        assert_same(got[out_name], expected[out_name])


def test_layout_puts_sources_left_of_the_ops_that_read_them():
    graph = import_model(export_model(load_example("segment_sum")))
    for edge in graph.edges:
        assert graph.node(edge.src).position[0] < graph.node(edge.dst).position[0]
    assert min(n.position[0] for n in graph.nodes if n.is_source) == 0.0


def test_layout_keeps_each_op_beside_its_own_sources_and_nodes_apart():
    graph = import_model(export_model(load_example("scatterelements_examples")))
    positions = [n.position for n in graph.nodes]
    for i, (x1, y1) in enumerate(positions):       # no two nodes share a spot
        for x2, y2 in positions[i + 1:]:
            assert x1 != x2 or abs(y1 - y2) >= 150
    for node in graph.nodes:
        if node.kind != "op":
            continue
        sources = [graph.node(e.src) for e in graph.edges if e.dst == node.id]
        for src in sources:                      # one column left, within the op's 3-row band
            assert node.position[0] - src.position[0] == 300  # a node 230 wide, a 70 gap
            assert abs(src.position[1] - node.position[1]) <= 150


def _model(nodes, inputs=(), outputs=(), initializers=(), opset=18):
    g = helper.make_graph(nodes, "m", list(inputs), list(outputs), initializer=list(initializers))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def test_a_model_with_other_ops_imports_them_as_foreign_nodes_that_run():
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [3])
    model = _model([helper.make_node("Relu", ["x"], ["r"], name="relu_1"),
                    helper.make_node("Relu", ["r"], ["s"], name="relu_2"),
                    helper.make_node("Softmax", ["s"], ["y"], name="sm")], [x], [y])
    graph = import_model(model)
    assert [(n.kind, getattr(n, "op_type", None)) for n in graph.nodes if n.kind == "foreign"] == \
        [("foreign", "Relu"), ("foreign", "Relu"), ("foreign", "Softmax")]
    value = np.array([-1.0, 0.5, 2.0], np.float32)
    graph.set_source(graph.find("x").id, example=value)
    np.testing.assert_allclose(Engine(graph).run().outputs["y"], ort_run(model, {"x": value})["y"], rtol=1e-6)


def test_constants_identity_and_inputs_become_nodes():
    idx = helper.make_node("Constant", [], ["idx"], value=numpy_helper.from_array(np.array([2, 0]), "v"))
    gather = helper.make_node("Gather", ["data", "idx"], ["g"], name="pick")
    ident = helper.make_node("Identity", ["g"], ["out"])
    data = helper.make_tensor_value_info("data", onnx.TensorProto.FLOAT, ["n", 2])
    out = helper.make_tensor_value_info("out", onnx.TensorProto.FLOAT, None)
    graph = import_model(_model([idx, gather, ident], [data], [out], opset=13))
    assert [n.kind for n in graph.nodes] == ["input", "foreign", "op", "foreign", "output"]
    assert [n.op_type for n in graph.nodes if n.kind == "foreign"] == ["Constant", "Identity"]
    assert graph.opset == 13
    data_node = graph.find("data")
    assert data_node.example.shape == (1, 2)  # the named dimension's example size is 1
    assert data_node.shape == ("n", 2)        # and the name is kept
    graph.set_source(data_node.id, example=np.array([[1, 2], [3, 4], [5, 6]], np.float32))
    np.testing.assert_array_equal(Engine(graph).run().outputs["out"], [[5, 6], [1, 2]])


def test_external_data_of_a_model_in_memory_and_huge_files_give_a_clear_message(tmp_path):
    t = numpy_helper.from_array(np.zeros(4, np.float32), "w")
    t.data_location = onnx.TensorProto.EXTERNAL
    t.ClearField("raw_data")
    entry = t.external_data.add()
    entry.key, entry.value = "location", "weights.bin"
    out = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)
    model = _model([helper.make_node("Gather", ["w", "i"], ["y"])], [], [out],
                   [t, numpy_helper.from_array(np.array([0]), "i")])
    with pytest.raises(OnnxImportError, match="'w' keeps its data in another file.*no folder"):
        import_model(model)
    huge = tmp_path / "huge.onnx"
    with open(huge, "wb") as fh:  # a sparse file: no disk is used
        fh.truncate(2 * 1024 ** 3 + 1)
    with pytest.raises(OnnxImportError, match="2 GB"):
        import_model(huge)


def test_bad_files_are_refused_with_their_name(tmp_path):
    bad = tmp_path / "notamodel.onnx"
    bad.write_bytes(b"\x00\x01garbage" * 10)
    with pytest.raises(OnnxImportError, match="notamodel.onnx"):
        import_model(bad)
    with pytest.raises(OnnxImportError, match="no such file"):
        import_model(tmp_path / "missing.onnx")


def _gather_model(node):
    data = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "data")
    idx = numpy_helper.from_array(np.array([0, 2], np.int64), "idx")
    out = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)
    return _model([node], [], [out], [data, idx], opset=13)


def _refused_by_checker_and_importer(model) -> str:
    """The import error's message for a model onnx.checker also rejects (the independent
    judge that the model is invalid)."""
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(model)
    with pytest.raises(OnnxImportError) as info:
        import_model(model)
    return str(info.value)


def test_a_node_with_more_outputs_than_its_op_defines_is_refused():
    # Gather defines one output (output); the checker agrees the node is invalid
    node = helper.make_node("Gather", ["data", "idx"], ["y", "extra"], name="pick", axis=1)
    message = _refused_by_checker_and_importer(_gather_model(node))
    assert "\n" not in message
    assert "pick" in message and "Gather" in message and "2 outputs" in message, message


@pytest.mark.parametrize("op", ["Identity", "Constant"])
def test_identity_and_constant_with_two_outputs_are_refused(op):
    # both define a single output in the ONNX spec
    if op == "Identity":
        node = helper.make_node("Identity", ["data"], ["y", "extra"], name="same")
    else:
        node = helper.make_node("Constant", [], ["y", "extra"], name="same",
                                value=numpy_helper.from_array(np.zeros(2, np.float32), "v"))
    message = _refused_by_checker_and_importer(_gather_model(node))
    assert "\n" not in message and "same" in message and op in message and "2 outputs" in message, message


@pytest.mark.parametrize("op, attr, make", [
    ("Gather", "axis", lambda: helper.make_attribute("axis", 1.0)),                 # FLOAT
    ("Gather", "axis", lambda: helper.make_attribute("axis", "1")),                 # STRING
    ("Gather", "axis", lambda: helper.make_attribute("axis", [1])),                 # INTS
    ("ScatterElements", "reduction", lambda: helper.make_attribute("reduction", 1)),  # INT
])
def test_an_attribute_of_the_wrong_type_is_refused(op, attr, make):
    # the ONNX schema declares axis an INT and reduction a STRING attribute
    if op == "Gather":
        node = helper.make_node("Gather", ["data", "idx"], ["y"], name="pick")
        model = _gather_model(node)
    else:
        node = helper.make_node("ScatterElements", ["data", "idx", "upd"], ["y"], name="pick")
        model = _gather_model(node)
        model.graph.initializer[1].CopyFrom(numpy_helper.from_array(np.array([[0, 1]], np.int64), "idx"))
        model.graph.initializer.append(numpy_helper.from_array(np.ones((1, 2), np.float32), "upd"))
    node = model.graph.node[0]
    node.attribute.append(make())
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(model)
    with pytest.raises(OnnxImportError) as info:
        import_model(model)
    message = str(info.value)
    wanted = "INT" if attr == "axis" else "STRING"
    assert "\n" not in message
    assert "pick" in message and op in message and repr(attr) in message and wanted in message, message


def test_attributes_of_the_right_type_still_import():
    node = helper.make_node("Gather", ["data", "idx"], ["y"], name="pick", axis=1)
    graph = import_model(_gather_model(node))
    np.testing.assert_array_equal(Engine(graph).run().outputs["y"], [[0, 2], [3, 5]])


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
                       inits={"data": DATA, "idx": np.array([0])}),
              str(good))
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
