"""A model imported and exported again keeps its interface: the names of its tensors, its graph
inputs (an initializer listed as an input stays an overridable default), outputs that are an
input or an initializer as they are; a model that breaks single assignment is refused by name.
Expected values are worked out with numpy in the tests and checked in onnxruntime."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper

from nodeeditor.graph import Engine, load_graph, save_graph
from nodeeditor.graph import nodes as N
from nodeeditor.onnx_io import OnnxImportError, export_model, import_model

from .conftest import ort_run

X = np.arange(6, dtype=np.float32).reshape(3, 2) - 2.5


def _model(nodes, inputs, outputs, initializers=(), ir_version=None, opset=13):
    model = helper.make_model(helper.make_graph(nodes, "t", inputs, outputs, list(initializers)),
                              opset_imports=[helper.make_opsetid("", opset)])
    if ir_version is not None:
        model.ir_version = ir_version
    onnx.checker.check_model(model, full_check=True)
    return model


def _default_index_model():
    """y = Relu(Gather(x, i)), ``i`` an initializer listed as a graph input: its default."""
    return _model(
        [helper.make_node("Gather", ["x", "i"], ["g"], name="pick"), helper.make_node("Relu", ["g"], ["y"])],
        [helper.make_tensor_value_info("x", T.FLOAT, [3, 2]), helper.make_tensor_value_info("i", T.INT64, [2])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2, 2])],
        [numpy_helper.from_array(np.array([0, 2], np.int64), "i")])


def _interface(model):
    g = model.graph
    return ([i.name for i in g.input], sorted(t.name for t in g.initializer), [o.name for o in g.output],
            [(n.op_type, list(n.input), list(n.output)) for n in g.node])


def test_an_indexing_ops_tensor_keeps_its_name_through_import_export_and_the_file(tmp_path):
    model = _default_index_model()
    graph = import_model(model)
    gather = next(n for n in graph.nodes if isinstance(n, N.OperatorNode))
    assert gather.tensor_names == ("g",)
    save_graph(graph, tmp_path / "m.ifg.json")
    for g in (graph, load_graph(tmp_path / "m.ifg.json")):
        nodes = _interface(export_model(g))[3]
        assert nodes == [("Gather", ["x", "i"], ["g"]), ("Relu", ["g"], ["y"])]


def test_an_initializer_listed_as_an_input_stays_an_overridable_default():
    model = _default_index_model()
    graph = import_model(model)
    source = graph.node(next(n.id for n in graph.nodes if n.name == "i"))
    assert isinstance(source, N.LiteralSource) and source.overridable
    assert not any(isinstance(n, N.InputSource) and n.name == "i" for n in graph.nodes)
    exported = export_model(graph)
    assert _interface(exported)[:3] == (["x", "i"], ["i"], ["y"])   # the inputs in the model's order
    onnx.checker.check_model(exported, full_check=True)
    default = np.maximum(X[[0, 2]], 0)
    fed = np.maximum(X[[1, 1]], 0)
    for m in (model, exported):
        np.testing.assert_array_equal(ort_run(m, {"x": X})["y"], default)
        np.testing.assert_array_equal(ort_run(m, {"x": X, "i": np.array([1, -2], np.int64)})["y"], fed)
    graph.set_source(next(n.id for n in graph.nodes if n.name == "x"), example=X)
    result = Engine(graph).run()
    assert result.ok, result.errors()
    np.testing.assert_array_equal(result.outputs["y"], default)


def test_before_ir_4_every_initializer_was_an_input_so_none_becomes_overridable():
    model = _default_index_model()
    model.ir_version = 3
    model.opset_import[0].version = 8
    graph = import_model(model)
    assert not any(getattr(n, "overridable", False) for n in graph.nodes)


def test_overridable_is_saved_and_only_sources_that_are_not_inputs_may_have_it(tmp_path):
    graph = import_model(_default_index_model())
    path = tmp_path / "m.ifg.json"
    save_graph(graph, path)
    text = path.read_text()
    assert text.count('"overridable": true') == 1
    assert load_graph(path).node(next(n.id for n in graph.nodes if n.name == "i")).overridable
    path.write_text(text.replace('"kind": "input",', '"kind": "input", "overridable": true,', 1))
    with pytest.raises(Exception, match="cannot be overridable"):
        load_graph(path)


def test_outputs_that_are_an_input_or_an_initializer_keep_their_names_without_identity():
    a = helper.make_tensor_value_info("a", T.FLOAT, [2])
    model = _model([], [a], [a, helper.make_tensor_value_info("c", T.FLOAT, [2])],
                   [numpy_helper.from_array(np.array([1.5, -2], np.float32), "c")])
    exported = export_model(import_model(model))
    assert _interface(exported) == (["a"], ["c"], ["a", "c"], [])
    onnx.checker.check_model(exported, full_check=True)
    out = ort_run(exported, {"a": np.array([3, 4], np.float32)})
    np.testing.assert_array_equal(out["a"], [3, 4])
    np.testing.assert_array_equal(out["c"], [1.5, -2])


def test_an_output_reading_another_source_of_its_name_still_gets_its_own_tensor():
    """An output "a" reading a literal named "a" while a graph input is also called "a":
    the input keeps "a", the output is the literal's tensor under a new name."""
    a = helper.make_tensor_value_info("a", T.FLOAT, [2])
    graph = import_model(_model([], [a], [a]))
    literal = graph.add_node(N.LiteralSource(id="lit", name="a", value=N.frozen_array(np.float32([7, 8]))))
    out = next(n.id for n in graph.output_nodes())
    graph.disconnect(out, N.OUTPUT_PORT)
    graph.connect(literal, N.SOURCE_PORT, out, N.OUTPUT_PORT)
    exported = export_model(graph)
    onnx.checker.check_model(exported, full_check=True)
    inputs, initializers, outputs, nodes = _interface(exported)
    assert inputs == ["a"] and outputs == ["a_2"] and initializers != ["a"]
    np.testing.assert_array_equal(ort_run(exported, {"a": np.float32([1, 2])})["a_2"], [7, 8])


def test_a_tensor_written_twice_is_refused_naming_both_writers():
    a = helper.make_tensor_value_info("a", T.FLOAT, [2])
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["a"], ["z"], name="first"), helper.make_node("Neg", ["a"], ["z"])], "t", [a],
        [helper.make_tensor_value_info("z", T.FLOAT, [2])]), opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(model)
    with pytest.raises(OnnxImportError, match=r"tensor 'z' has two producers, first \(Relu\) and node #1 \(Neg\)"):
        import_model(model)


def test_an_indexing_op_writing_a_graph_inputs_name_is_refused():
    a = helper.make_tensor_value_info("a", T.FLOAT, [3])
    i = helper.make_tensor_value_info("i", T.INT64, [1])
    model = helper.make_model(helper.make_graph([helper.make_node("Gather", ["a", "i"], ["a"])], "t", [a, i], [a]),
                              opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(OnnxImportError, match="tensor 'a' has two producers, input 'a' and node #0"):
        import_model(model)


def test_a_graph_input_listed_twice_is_refused():
    a = helper.make_tensor_value_info("a", T.FLOAT, [2])
    model = helper.make_model(helper.make_graph([], "t", [a, a], [a]), opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(OnnxImportError, match="input 'a' is listed twice"):
        import_model(model)


def test_a_graph_output_listed_twice_is_one_output():
    a = helper.make_tensor_value_info("a", T.FLOAT, [2])
    z = helper.make_tensor_value_info("z", T.FLOAT, [2])
    model = _model([helper.make_node("Relu", ["a"], ["z"])], [a], [z, z])
    graph = import_model(model)
    assert [n.name for n in graph.output_nodes()] == ["z"]
    exported = export_model(graph)
    onnx.checker.check_model(exported, full_check=True)
    np.testing.assert_array_equal(ort_run(exported, {"a": np.float32([-1, 2])})["z"], [0, 2])


@pytest.mark.parametrize("engine", ["numpy", "onnxruntime"])
def test_run_inputs_replaces_a_default_as_onnxruntime_does(tmp_path, capsys, engine):
    from nodeeditor import cli

    onnx.save(_default_index_model(), tmp_path / "m.onnx")
    np.savez(tmp_path / "in.npz", x=X, i=np.array([1, -2], np.int64))
    args = ["run", str(tmp_path / "m.onnx"), "--engine", engine, "--inputs", str(tmp_path / "in.npz")]
    assert cli.main([*args, "-o", str(tmp_path / "out.npz")]) == 0
    with np.load(tmp_path / "out.npz") as out:
        np.testing.assert_array_equal(out["y"], np.maximum(X[[1, 1]], 0))
    capsys.readouterr()
    np.savez(tmp_path / "bad.npz", i=np.array([1, 0, 1], np.int64))
    assert cli.main([*args[:-1], str(tmp_path / "bad.npz")]) == 2
    assert "'i' is a default of type int64[2]; the array is int64[3]" in capsys.readouterr().err
    np.savez(tmp_path / "unknown.npz", j=np.array([1], np.int64))
    assert cli.main([*args[:-1], str(tmp_path / "unknown.npz")]) == 2
    assert "the inputs are 'x', 'i' (a default)" in capsys.readouterr().err


def test_an_output_that_is_its_input_needs_no_identity_so_no_higher_opset():
    """Identity takes bfloat16 from opset 13: an output "a" that is the bfloat16 input "a"
    itself is written at opset 11; an output "b" reading it is an Identity and needs 13."""
    import ml_dtypes

    from nodeeditor.graph import Graph
    from nodeeditor.onnx_io.export import lowest_working_opset

    g = Graph(name="t", opset=11)
    a = g.add_input("a", np.array([1.5, -2], ml_dtypes.bfloat16))
    g.connect(a, "output", g.add_output("a"), "value")
    assert lowest_working_opset(g) == 1
    model = export_model(g, 11)
    onnx.checker.check_model(model, full_check=True)
    assert _interface(model) == (["a"], [], ["a"], [])
    g.connect(a, "output", g.add_output("b"), "value")
    assert lowest_working_opset(g) == 13


def _named_default_model():
    """y = Gather(W, i): ``W`` float[V, 3] a graph input whose default is a 4 x 3 initializer."""
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    return _model([helper.make_node("Gather", ["W", "i"], ["y"])],
                  [helper.make_tensor_value_info("i", T.INT64, ["n"]), helper.make_tensor_value_info("W", T.FLOAT,
                                                                                                  ["V", 3])],
                  [helper.make_tensor_value_info("y", T.FLOAT, ["n", 3])], [numpy_helper.from_array(w, "W")])


def test_a_defaults_named_dimensions_survive_and_a_feed_of_another_size_replaces_it(tmp_path, capsys):
    from nodeeditor import cli
    from nodeeditor.onnx_io.types import shape_of

    model = _named_default_model()
    graph = import_model(model)
    save_graph(graph, tmp_path / "g.ifg.json")
    for g in (graph, load_graph(tmp_path / "g.ifg.json")):
        exported = export_model(g)
        assert {i.name: shape_of(i.type) for i in exported.graph.input} == {"i": ("n",), "W": ("V", 3)}
    onnx.save(model, tmp_path / "m.onnx")
    bigger = np.ones((6, 3), np.float32) * np.arange(6, dtype=np.float32)[:, None]
    np.savez(tmp_path / "in.npz", i=np.array([5, -1, 0]), W=bigger)
    expected = ort_run(model, {"i": np.array([5, -1, 0]), "W": bigger})["y"]
    np.testing.assert_array_equal(expected, bigger[[5, 5, 0]])
    for engine in ("numpy", "onnxruntime"):
        out = tmp_path / f"{engine}.npz"
        assert cli.main(["run", str(tmp_path / "m.onnx"), "--inputs", str(tmp_path / "in.npz"), "--engine", engine,
                         "-o", str(out)]) == 0, capsys.readouterr()
        with np.load(out) as written:
            np.testing.assert_array_equal(written["y"], expected)
    np.savez(tmp_path / "bad.npz", W=np.ones((6, 4), np.float32))
    assert cli.main(["run", str(tmp_path / "m.onnx"), "--inputs", str(tmp_path / "bad.npz")]) == 2
    assert "'W' is a default of type float32[V, 3]; the array is float32[6, 4]" in capsys.readouterr().err


@pytest.mark.parametrize("coordinates", [False, True], ids=["flat", "coordinates"])
def test_a_sparse_initializer_imports_as_the_dense_tensor_it_stands_for(coordinates):
    """S is 2 x 4 with 5 at [0, 1] and 7 at [1, 2] (flat positions 1 and 6); y = Gather(S, i)."""
    values = numpy_helper.from_array(np.array([5.0, 7.0], np.float32), "S")
    indices = numpy_helper.from_array(np.array([[0, 1], [1, 2]] if coordinates else [1, 6], np.int64), "S_idx")
    sparse = helper.make_sparse_tensor(values, indices, [2, 4])
    graph = helper.make_graph([helper.make_node("Gather", ["S", "i"], ["y"])], "t",
                              [helper.make_tensor_value_info("i", T.INT64, [2])],
                              [helper.make_tensor_value_info("y", T.FLOAT, [2, 4])])
    graph.sparse_initializer.append(sparse)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    dense = np.array([[0, 5, 0, 0], [0, 0, 7, 0]], np.float32)
    feeds = {"i": np.array([1, 0])}
    np.testing.assert_array_equal(ort_run(model, feeds)["y"], dense[[1, 0]])
    imported = import_model(model)
    imported.set_source(next(n.id for n in imported.nodes if n.name == "i"), example=feeds["i"])
    result = Engine(imported).run()
    assert result.ok, result.errors()
    np.testing.assert_array_equal(result.outputs["y"], dense[[1, 0]])
    np.testing.assert_array_equal(ort_run(export_model(imported), feeds)["y"], dense[[1, 0]])


@pytest.mark.parametrize("bad", [[1, -1], [1, 8]])
def test_sparse_indices_outside_the_shape_are_refused_by_name(bad):
    sparse = helper.make_sparse_tensor(numpy_helper.from_array(np.array([5.0, 7.0], np.float32), "S"),
                                       numpy_helper.from_array(np.array(bad, np.int64), "S_idx"), [2, 4])
    graph = helper.make_graph([helper.make_node("Gather", ["S", "i"], ["y"])], "t",
                              [helper.make_tensor_value_info("i", T.INT64, [2])],
                              [helper.make_tensor_value_info("y", T.FLOAT, [2, 4])])
    graph.sparse_initializer.append(sparse)
    with pytest.raises(OnnxImportError, match="sparse initializer 'S': its indices do not fit shape"):
        import_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


def test_a_large_sparse_initializer_of_a_model_file_is_read_when_imported(tmp_path):
    """More elements than the importer leaves in the file (a sparse tensor is not in the
    file's dense initializers, so it could never be read later)."""
    from nodeeditor.onnx_io.importer import LAZY_ELEMENTS

    n = LAZY_ELEMENTS + 10
    values = numpy_helper.from_array(np.array([5.0, 7.0], np.float32), "S")
    sparse = helper.make_sparse_tensor(values, numpy_helper.from_array(np.array([3, n - 1], np.int64), "S_i"), [n])
    graph = helper.make_graph([helper.make_node("Gather", ["S", "i"], ["y"])], "t",
                              [helper.make_tensor_value_info("i", T.INT64, [2])],
                              [helper.make_tensor_value_info("y", T.FLOAT, [2])])
    graph.sparse_initializer.append(sparse)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), tmp_path / "m.onnx")
    imported = import_model(tmp_path / "m.onnx")
    imported.set_source(next(n_.id for n_ in imported.nodes if n_.name == "i"), example=np.array([3, -1]))
    result = Engine(imported).run()
    assert result.ok, result.errors()
    np.testing.assert_array_equal(result.outputs["y"], [5.0, 7.0])


def test_an_initializer_listed_twice_is_refused_also_when_it_is_an_input():
    i = helper.make_tensor_value_info("i", T.INT64, [1])
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["y"])], "t", [helper.make_tensor_value_info("x", T.FLOAT, [3]), i],
        [helper.make_tensor_value_info("y", T.FLOAT, [1])],
        [numpy_helper.from_array(np.array([1]), "i"), numpy_helper.from_array(np.array([2]), "i")]),
        opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(OnnxImportError, match="initializer 'i' is listed twice"):
        import_model(model)


def test_an_output_named_like_a_graph_input_but_reading_a_literal_is_an_identity_and_says_its_opset():
    """Input "a" (float32) keeps the name; output "a" reads a bfloat16 literal also called "a":
    it is written as an Identity, which takes bfloat16 from opset 13, so the export says so
    (a checker error before)."""
    import ml_dtypes

    from nodeeditor.graph import Graph
    from nodeeditor.onnx_io import ExportError
    from nodeeditor.onnx_io.export import lowest_working_opset

    g = Graph(name="t", opset=11)
    g.add_input("a", np.float32([1, 2]))
    lit = g.add_node(N.LiteralSource(id="lit", name="a", value=N.frozen_array(np.array([1], ml_dtypes.bfloat16))))
    g.connect(lit, "output", g.add_output("a"), "value")
    assert lowest_working_opset(g) == 13
    with pytest.raises(ExportError) as info:
        export_model(g, 11)
    assert info.value.suggested_opset == 13


def test_an_output_that_is_its_input_claims_no_second_name():
    """Input "a" and output "a" (the input itself) and an overridable literal called "a_2": the
    literal keeps "a_2" (a name claimed and thrown away made it "a_2_2")."""
    from nodeeditor.graph import Graph

    g = Graph(name="t", opset=13)
    a = g.add_input("a", np.float32([1, 2]))
    g.connect(a, "output", g.add_output("a"), "value")
    lit = g.add_node(N.LiteralSource(id="lit", name="a_2", value=N.frozen_array(np.float32([3])), overridable=True))
    g.connect(lit, "output", g.add_output("b"), "value")
    assert [i.name for i in export_model(g).graph.input] == ["a", "a_2"]


def test_run_inputs_replaces_a_default_that_has_no_value_now(tmp_path, capsys):
    """An overridable file source whose file is missing: --inputs gives it a value (before: a
    traceback from its unknown type)."""
    from nodeeditor import cli
    from nodeeditor.graph import Graph

    g = Graph(name="t", opset=13)
    f = g.add_node(N.FileSource(id="w", name="w", path="missing.npy", overridable=True))
    g.connect(f, "output", g.add_output("y"), "value")
    save_graph(g, tmp_path / "g.ifg.json")
    np.savez(tmp_path / "in.npz", w=np.float32([4, 5]))
    assert cli.main(["run", str(tmp_path / "g.ifg.json"), "--inputs", str(tmp_path / "in.npz"),
                     "-o", str(tmp_path / "out.npz")]) == 0, capsys.readouterr()
    with np.load(tmp_path / "out.npz") as out:
        np.testing.assert_array_equal(out["y"], [4, 5])
