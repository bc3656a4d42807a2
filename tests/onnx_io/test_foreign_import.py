"""Every op imports: foreign nodes keep op type, domain, attributes of every kind, inputs and
outputs exactly; model-local functions, If/Loop bodies, metadata and opsets are kept; foreign
nodes run in onnxruntime, in onnx.reference where onnxruntime has no kernel, and say what is
missing without a runtime."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from nodeeditor.graph import Engine, foreign
from nodeeditor.graph import nodes as N
from nodeeditor.graph.foreign import AttrKind
from nodeeditor.graph.serialize import graph_from_dict, graph_to_dict
from nodeeditor.onnx_io import export_model, foreign_runtime, import_model
from nodeeditor.onnx_io.attributes import from_onnx, to_onnx
from nodeeditor.onnx_io.foreign_ops import attribute_specs, new_foreign_node, op_catalog

from .conftest import ort_run


def _model(nodes, inputs, outputs, initializers=(), opsets=(("", 18),), functions=()):
    graph = helper.make_graph(nodes, "m", inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                             functions=list(functions))


def _fi(name, shape, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


SUB = helper.make_graph([helper.make_node("Neg", ["x"], ["y"])], "body", [_fi("x", [2])], [_fi("y", [2])])

ATTRIBUTES = [
    helper.make_attribute("an_int", -7),
    helper.make_attribute("a_float", 0.1),
    helper.make_attribute("a_string", b"bytes \xff not utf-8"),
    helper.make_attribute("a_tensor", numpy_helper.from_array(np.arange(6, dtype=np.float16).reshape(2, 3), "w")),
    helper.make_attribute("a_graph", SUB),
    helper.make_attribute("ints", [1, -2, 3]),
    helper.make_attribute("floats", [0.5, float("inf")]),
    helper.make_attribute("strings", [b"a", b"b"]),
    helper.make_attribute("tensors", [numpy_helper.from_array(np.array(["x", "y"], dtype=object), "words")]),
    helper.make_attribute("graphs", [SUB, SUB]),
    helper.make_attribute("empty_ints", [], attr_type=onnx.AttributeProto.INTS),
    helper.make_attribute("a_type", helper.make_tensor_type_proto(TensorProto.INT64, ["n"])),
    helper.make_attribute("sparse", helper.make_sparse_tensor(numpy_helper.from_array(np.array([1.0], np.float32)),
                                                              numpy_helper.from_array(np.array([2])), [4])),
]


@pytest.mark.parametrize("attr", ATTRIBUTES, ids=lambda a: a.name)
def test_every_attribute_kind_travels_to_plain_data_and_back_byte_for_byte(attr):
    value = from_onnx(attr)
    assert to_onnx(attr.name, value).SerializeToString() == attr.SerializeToString()


def test_a_foreign_node_keeps_domain_attributes_inputs_and_outputs_through_the_file_format():
    node = helper.make_node("Custom", ["x", "", "x"], ["y", "", "z"], name="my custom op", domain="com.example")
    node.attribute.extend(ATTRIBUTES)
    model = _model([node], [_fi("x", [2])], [_fi("y", [2]), _fi("z", [2])], opsets=(("", 18), ("com.example", 3)))
    graph = graph_from_dict(graph_to_dict(import_model(model)))
    custom = graph.node(next(n.id for n in graph.nodes if isinstance(n, N.ForeignNode)))
    assert (custom.op_type, custom.domain, custom.name) == ("Custom", "com.example", "my custom op")
    assert custom.inputs == ("input0", "input1", "input2") and custom.optional == {"input1"}
    assert custom.tensor_names == ("y", "", "z")
    assert [a.name for a in ATTRIBUTES] == list(custom.attributes)
    assert custom.attributes["a_graph"].kind is AttrKind.GRAPH
    assert custom.attributes["a_graph"].value.summary == "graph 'body': 1 node, inputs x"
    exported = export_model(graph)
    (back,) = exported.graph.node
    assert (back.op_type, back.domain, list(back.input), list(back.output)) == \
        ("Custom", "com.example", ["x", "", "x"], ["y", "", "z"])
    assert [a.SerializeToString() for a in back.attribute] == [a.SerializeToString() for a in ATTRIBUTES]
    assert {(o.domain, o.version) for o in exported.opset_import} == {("", 18), ("com.example", 3)}


def test_model_metadata_fields_and_functions_are_kept():
    fn = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                              [helper.make_opsetid("", 18)])
    model = _model([helper.make_node("Twice", ["x"], ["y"], domain="local")], [_fi("x", [3])], [_fi("y", [3])],
                   opsets=(("", 18), ("local", 1)), functions=[fn])
    model.producer_name, model.producer_version, model.domain, model.model_version = "maker", "2.1", "org.x", 7
    model.doc_string = "a model"
    helper.set_model_props(model, {"license": "MIT", "author": "someone"})
    graph = import_model(model)
    twice = next(n for n in graph.nodes if isinstance(n, N.ForeignNode))
    assert twice.inputs == ("a",) and twice.outputs == ("b",)   # the function's own names
    graph.set_source(graph.find("x").id, example=np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(Engine(graph).run().outputs["y"], [2, 4, 6])
    exported = export_model(graph)
    assert [f.SerializeToString() for f in exported.functions] == [fn.SerializeToString()]
    assert (exported.producer_name, exported.producer_version, exported.domain, exported.model_version,
            exported.doc_string) == ("maker", "2.1", "org.x", 7, "a model")
    props = {p.key: p.value for p in exported.metadata_props}
    assert props["license"] == "MIT" and props["author"] == "someone"


def test_if_and_loop_bodies_read_values_from_the_enclosing_graph_and_run():
    then_ = helper.make_graph([helper.make_node("Add", ["x", "bias"], ["r"])], "then", [], [_fi("r", [2])])
    else_ = helper.make_graph([helper.make_node("Sub", ["x", "bias"], ["r2"])], "else", [], [_fi("r2", [2])])
    body = helper.make_graph(
        [helper.make_node("Add", ["acc", "bias"], ["acc_out"]), helper.make_node("Identity", ["cond"], ["cond_out"])],
        "loop", [_fi("i", [], TensorProto.INT64), _fi("cond", [], TensorProto.BOOL), _fi("acc", [2])],
        [_fi("cond_out", [], TensorProto.BOOL), _fi("acc_out", [2])])
    nodes = [helper.make_node("Relu", ["x_in"], ["x"], name="relu"),
             helper.make_node("If", ["flag"], ["picked"], name="choose", then_branch=then_, else_branch=else_),
             helper.make_node("Loop", ["trips", "", "picked"], ["summed"], name="repeat", body=body)]
    model = _model(nodes, [_fi("x_in", [2]), _fi("flag", [], TensorProto.BOOL), _fi("trips", [], TensorProto.INT64)],
                   [_fi("summed", [2])], [numpy_helper.from_array(np.array([10.0, 20.0], np.float32), "bias")])
    onnx.checker.check_model(model, full_check=True)
    graph = import_model(model)
    choose, repeat = graph.node("choose"), graph.node("repeat")
    assert choose.captures == ("x", "bias") and repeat.captures == ("bias",)
    assert graph.edge_into("choose", N.capture_port("x")).src == "relu"
    feeds = {"x_in": np.array([1.0, -2.0], np.float32), "flag": np.array(True), "trips": np.array(3, np.int64)}
    for name, value in feeds.items():
        graph.set_source(graph.find(name).id, example=value)
    result = Engine(graph).run()
    assert result.ok, result.errors()
    np.testing.assert_array_equal(result.outputs["summed"], ort_run(model, feeds)["summed"])   # [41, 80]
    exported = export_model(graph)
    np.testing.assert_array_equal(ort_run(exported, feeds)["summed"], [41.0, 80.0])


def test_a_com_microsoft_op_runs_in_onnxruntime():
    node = helper.make_node("FastGelu", ["x"], ["y"], domain="com.microsoft", name="gelu")
    model = _model([node], [_fi("x", [3])], [_fi("y", [3])], opsets=(("", 18), ("com.microsoft", 1)))
    graph = import_model(model)
    x = np.array([-1.0, 0.0, 2.0], np.float32)
    graph.set_source(graph.find("x").id, example=x)
    assert graph.node("gelu").title == "com.microsoft::FastGelu"
    assert graph.node_info("gelu").deferred   # ONNX has no schema for it: typed after a run
    np.testing.assert_allclose(Engine(graph).run().outputs["y"], ort_run(model, {"x": x})["y"], rtol=1e-6)


def test_foreign_sessions_workers_block_between_runs_instead_of_spinning(monkeypatch):
    """onnxruntime's idle workers would spin after each foreign node and hold the cores the
    engine's next node runs its own threads on: every foreign session turns spinning off,
    whatever the thread count."""
    monkeypatch.setenv("INDEXFLOW_THREADS", "2")
    foreign_runtime.clear_caches()
    model = _model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [_fi("x", [2])], [_fi("y", [2])])
    runner = foreign_runtime._Runner(model)
    options = runner.session.get_session_options()
    assert options.intra_op_num_threads == 2
    assert options.get_session_config_entry(foreign_runtime.SPINNING) == "0"
    graph = import_model(model)
    graph.set_source(graph.find("x").id, example=np.array([-1.0, 2.0], np.float32))
    np.testing.assert_array_equal(Engine(graph).run().outputs["y"], [0.0, 2.0])


def test_an_op_onnxruntime_has_no_kernel_for_runs_in_onnx_reference():
    import ml_dtypes

    node = helper.make_node("Add", ["a", "b"], ["c"], name="add")   # Add(14) of bfloat16: no CPU kernel
    model = _model([node], [_fi("a", [2], TensorProto.BFLOAT16), _fi("b", [2], TensorProto.BFLOAT16)],
                   [_fi("c", [2], TensorProto.BFLOAT16)])
    graph = import_model(model)
    a = np.array([1.5, 2.0], dtype=ml_dtypes.bfloat16)
    graph.set_source(graph.find("a").id, example=a)
    graph.set_source(graph.find("b").id, example=a)
    result = Engine(graph).run()
    assert result.ok, result.errors()
    np.testing.assert_array_equal(result.outputs["c"].astype(np.float32), [3.0, 4.0])


def test_without_onnxruntime_the_reference_runs_every_foreign_node(monkeypatch):
    monkeypatch.setattr(foreign_runtime, "_ort", lambda: None)
    foreign_runtime.clear_caches()
    node = helper.make_node("Softmax", ["x"], ["y"], name="soft")
    graph = import_model(_model([node], [_fi("x", [2])], [_fi("y", [2])]))
    graph.set_source(graph.find("x").id, example=np.array([0.0, 0.0], np.float32))
    np.testing.assert_allclose(Engine(graph).run().outputs["y"], [0.5, 0.5])
    foreign_runtime.clear_caches()


def test_a_node_that_fails_in_both_runtimes_names_the_op_and_both_reasons():
    node = helper.make_node("Reshape", ["x", "shape"], ["y"], name="bad reshape")
    model = _model([node], [_fi("x", [6])], [_fi("y", None)],
                   [numpy_helper.from_array(np.array([4, 4], np.int64), "shape")])
    graph = import_model(model)
    error = dict(Engine(graph).run().errors())[graph.node_ids[-2]]
    assert "Reshape failed" in error and "onnxruntime:" in error and "onnx.reference:" in error


def test_values_onnxruntime_refuses_are_not_answered_by_onnx_reference():
    """A Loop whose body's ScatterElements reads an index out of range: onnxruntime refuses it
    as an invalid argument; onnx.reference answered zeros in its place, which ran as the node's
    value (exit 0)."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Unsqueeze", ["i", "zero"], ["i1"]),
         helper.make_node("Unsqueeze", ["i1", "zero"], ["i2"]),
         helper.make_node("ScatterElements", ["acc", "i2", "one"], ["acc_out"], axis=0, reduction="add")],
        "body", [_fi("i", [], TensorProto.INT64), _fi("cond", [], TensorProto.BOOL), _fi("acc", [5, 1])],
        [_fi("cond_out", [], TensorProto.BOOL), _fi("acc_out", [5, 1])],
        [numpy_helper.from_array(np.array([0], np.int64), "zero"),
         numpy_helper.from_array(np.ones((1, 1), np.float32), "one")])
    model = _model([helper.make_node("Loop", ["trips", "", "acc0"], ["acc_final"], name="loop", body=body)],
                   [_fi("trips", [], TensorProto.INT64), _fi("acc0", [5, 1])], [_fi("acc_final", [5, 1])],
                   opsets=(("", 21),))
    graph = import_model(model)
    graph.set_source(graph.find("acc0").id, example=np.zeros((5, 1), np.float32))
    graph.set_source(graph.find("trips").id, example=np.array(4, np.int64))
    result = Engine(graph).run()
    assert result.ok, result.errors()
    expected = ort_run(model, {"trips": np.array(4, np.int64), "acc0": np.zeros((5, 1), np.float32)})["acc_final"]
    np.testing.assert_array_equal(result.outputs["acc_final"], expected)        # [1, 1, 1, 1, 0]
    graph.set_source(graph.find("trips").id, example=np.array(7, np.int64))     # index 5 on an axis of 5
    result = Engine(graph).run()
    error = dict(result.errors())["loop"]
    assert "Loop failed: onnxruntime:" in error and "out of data bounds" in error
    assert "acc_final" not in result.outputs


def test_onnx_shape_inference_types_the_outputs_and_a_wrong_input_type_is_named():
    node = helper.make_node("MatMul", ["a", "b"], ["c"], name="mm")
    graph = import_model(_model([node], [_fi("a", ["n", 3]), _fi("b", [3, 5])], [_fi("c", None)]))
    assert str(graph.node_info("mm").type) == "float32[n, 5]"
    graph.set_source(graph.find("b").id, example=np.zeros((3, 5), np.int64))   # MatMul of float and int64
    info = graph.node_info("mm")
    assert info.warnings and "ONNX shape inference" in info.warnings[0]
    assert "MatMul failed" in dict(Engine(graph).run().errors())["mm"]


def test_without_a_runtime_registered_an_imported_model_shows_errors_not_crashes():
    model = _model([helper.make_node("Relu", ["x"], ["y"], name="r")], [_fi("x", [2])], [_fi("y", [2])])
    saved = (foreign.register_executor(None), foreign.register_type_inferrer(None),
             foreign.register_tensor_loader(None), foreign.register_group_executor(None))
    try:
        graph = import_model(model)
        assert graph.node_info("r").error == "running ONNX op Relu needs onnxruntime or onnx: pip install onnxruntime"
        assert not Engine(graph).run().ok
    finally:
        foreign.restore(*saved)


def test_a_new_node_of_any_op_has_the_schemas_ports_and_the_catalog_lists_every_op():
    clip = new_foreign_node("Clip", opset=18)
    assert clip.inputs == ("input", "min", "max") and clip.optional == {"min", "max"} and clip.outputs == ("output",)
    with pytest.raises(ValueError, match="no op 'Nope'"):
        new_foreign_node("Nope")
    names = {(e.domain, e.op_type) for e in op_catalog(18)}
    assert {("", "MatMul"), ("", "Gather"), ("ai.onnx.ml", "TreeEnsembleClassifier")} <= names
    assert ("", "TensorScatter") not in names   # from opset 24
    specs = {s.name: s for s in attribute_specs("Softmax", "", 13)}
    assert specs["axis"].kind is AttrKind.INT and specs["axis"].default.value == -1 and not specs["axis"].required


def test_int2_tensors_import_and_an_element_type_indexflow_does_not_hold_is_named():
    cast = helper.make_node("Cast", ["x"], ["y"], name="widen", to=TensorProto.INT8)
    model = _model([cast], [_fi("x", [4], TensorProto.INT2)], [_fi("y", [4], TensorProto.INT8)], opsets=(("", 25),))
    graph = import_model(model)
    import ml_dtypes

    x = np.array([-2, -1, 0, 1], dtype=ml_dtypes.int2)
    graph.set_source(graph.find("x").id, example=x)
    np.testing.assert_array_equal(Engine(graph).run().outputs["y"], [-2, -1, 0, 1])
    odd = _model([helper.make_node("Identity", ["x"], ["y"])], [_fi("x", [4], TensorProto.FLOAT6E2M3)],
                 [_fi("y", [4], TensorProto.FLOAT6E2M3)], opsets=(("", 25),))
    with pytest.raises(Exception, match="FLOAT6E2M3, which IndexFlow does not hold"):
        import_model(odd)


def test_a_name_that_is_not_utf8_is_refused_in_one_line():
    model = _model([helper.make_node("Relu", ["name_here"], ["y"])], [_fi("name_here", [3])], [_fi("y", [3])])
    raw = model.SerializeToString().replace(b"name_here", b"\xffame_here")
    with pytest.raises(Exception, match="not UTF-8 text; ONNX names are UTF-8"):
        import_model(raw)


def test_an_inputs_named_dimensions_and_its_example_survive_export_and_import():
    from nodeeditor.graph import Graph

    g = Graph("dims", opset=18)
    g.add_input("x", np.arange(12, dtype=np.float32).reshape(3, 4), node_id="x")
    g.set_source("x", shape="batch, 4")
    relu = g.add_node(new_foreign_node("Relu", opset=18))
    g.connect("x", "output", relu, "X")
    g.add_output("y", node_id="y")
    g.connect(relu, "Y", "y", "value")
    assert str(g.node_info(relu).type) == "float32[batch, 4]"
    model = export_model(g)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == ["batch", 4]
    back = import_model(model)
    x = back.find("x")
    assert x.shape == ("batch", 4)
    np.testing.assert_array_equal(x.example, np.arange(12, dtype=np.float32).reshape(3, 4))   # not zeros [1, 4]


def test_an_index_out_of_range_onnxruntime_reports_as_a_plain_failure_is_the_nodes_error():
    """GatherElements in an If branch: onnxruntime refuses index 7 on an axis of 5 with FAIL
    (not INVALID_ARGUMENT) and onnx.reference answered 2.0, which ran as the node's value."""
    then = helper.make_graph([helper.make_node("GatherElements", ["data", "idx"], ["o"])], "then", [], [_fi("o", None)],
                             [numpy_helper.from_array(np.array([[7]], np.int64), "idx")])
    other = helper.make_graph([helper.make_node("Identity", ["data"], ["o2"])], "else", [], [_fi("o2", None)])
    model = _model([helper.make_node("If", ["cond"], ["out"], name="iff", then_branch=then, else_branch=other)],
                   [_fi("cond", [], TensorProto.BOOL), _fi("data", [5, 1])], [_fi("out", None)], opsets=(("", 21),))
    graph = import_model(model)
    graph.set_source(graph.find("cond").id, example=np.array(True))
    graph.set_source(graph.find("data").id, example=np.arange(5, dtype=np.float32).reshape(5, 1))
    result = Engine(graph).run()
    error = dict(result.errors())["iff"]
    assert "If failed: onnxruntime:" in error and "onnx.reference" not in error and "out" not in result.outputs
