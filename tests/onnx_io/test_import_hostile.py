"""Hostile models: each malformed model that used to end in a traceback (or a giant allocation)
is refused with one line naming the model, the node or tensor, the value and what is allowed."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from nodeeditor.onnx_io import OnnxImportError, import_model


def _model(nodes, inputs=(), outputs=(), initializers=(), opset=18):
    graph = helper.make_graph(list(nodes), "hostile", list(inputs), list(outputs), list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return model


def _gather_of(input_info):
    """A model whose Gather reads the graph input ``input_info`` (its example tensor is made)."""
    idx = helper.make_tensor("idx", TensorProto.INT64, [1], [0])
    out = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    return _model([helper.make_node("Gather", ["x", "idx"], ["y"], name="g")], [input_info], [out], [idx])


def _refused(model, *phrases):
    with pytest.raises(OnnxImportError) as info:
        import_model(model)
    text = str(info.value)
    assert "\n" not in text.strip()
    for phrase in phrases:
        assert phrase in text, text
    return text


def test_a_negative_input_dimension_is_refused_with_the_input_and_the_dimension():
    model = _gather_of(helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, -2]))
    _refused(model, "'x'", "-2", "dimension 1")


@pytest.mark.parametrize("dims", [[2 ** 40], [100_000, 100_000]])
def test_a_huge_input_is_refused_before_its_example_tensor_is_allocated(dims, monkeypatch):
    monkeypatch.setenv("INDEXFLOW_MAX_SOURCE_MB", "64")
    model = _gather_of(helper.make_tensor_value_info("x", TensorProto.FLOAT, dims))
    _refused(model, "'x'", "64.0 MiB", "INDEXFLOW_MAX_SOURCE_MB")


def test_a_huge_initializer_is_refused_from_its_declared_shape(monkeypatch):
    monkeypatch.setenv("INDEXFLOW_MAX_SOURCE_MB", "1")
    big = helper.make_tensor("big", TensorProto.FLOAT, [1024, 1024], np.zeros(1 << 20, np.float32).tobytes(),
                             raw=True)
    out = helper.make_tensor_value_info("big", TensorProto.FLOAT, [1024, 1024])
    _refused(_model([], [], [out], [big]), "'big'", "4.0 MiB", "1.0 MiB")


@pytest.mark.parametrize("node, what", [
    (helper.make_node("Identity", [], ["y"], name="id"), "Identity needs 1 input"),
    (helper.make_node("Constant", [], [], name="c", value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
     "Constant needs 1 output"),
    (helper.make_node("ScatterND", ["d", "i"], ["y"], name="s"), "ScatterND needs 3 inputs"),
    (helper.make_node("Gather", ["d", "i"], [], name="g0"), "Gather needs 1 output"),
])
def test_a_node_missing_inputs_or_outputs_its_op_needs_is_refused(node, what):
    d = helper.make_tensor("d", TensorProto.FLOAT, [2], [1.0, 2.0])
    i = helper.make_tensor("i", TensorProto.INT64, [1, 1], [0])
    model = _model([node], [], [helper.make_tensor_value_info("d", TensorProto.FLOAT, [2])], [d, i])
    _refused(model, node.name, what)


def test_a_string_attribute_that_is_not_utf8_is_refused():
    d = helper.make_tensor("d", TensorProto.FLOAT, [2], [1.0, 2.0])
    i = helper.make_tensor("i", TensorProto.INT64, [1, 1], [0])
    u = helper.make_tensor("u", TensorProto.FLOAT, [1], [5.0])
    node = helper.make_node("ScatterND", ["d", "i", "u"], ["y"], name="s")
    node.attribute.append(helper.make_attribute("reduction", b"\xffadd"))
    model = _model([node], [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [d, i, u])
    _refused(model, "s (ScatterND)", "'reduction'", "UTF-8")


def test_string_tensors_that_are_not_utf8_are_refused():
    bad = helper.make_tensor("words", TensorProto.STRING, [2], [b"ok", b"\xff\xfe"])
    model = _model([], [], [helper.make_tensor_value_info("words", TensorProto.STRING, [2])], [bad])
    _refused(model, "'words'", "UTF-8")
    const = helper.make_node("Constant", [], ["c"], name="k", value_strings=[b"\xc3"])
    model = _model([const], [], [helper.make_tensor_value_info("c", TensorProto.STRING, [1])])
    _refused(model, "k", "UTF-8")


@pytest.mark.parametrize("elem", [TensorProto.FLOAT6E2M3, TensorProto.FLOAT6E3M2])
def test_an_initializer_of_a_dtype_indexflow_does_not_hold_names_the_tensor_and_the_dtypes(elem):
    name = TensorProto.DataType.Name(elem)
    tensor = helper.make_tensor("w", elem, [2], [0, 1])
    model = _model([], [], [helper.make_tensor_value_info("w", elem, [2])], [tensor])
    _refused(model, "'w'", name, "float32", "int64")


def test_an_input_of_a_dtype_indexflow_does_not_hold_names_the_dtypes():
    model = _gather_of(helper.make_tensor_value_info("x", TensorProto.FLOAT6E2M3, [2]))
    _refused(model, "'x'", "FLOAT6E2M3", "float32")


@pytest.mark.parametrize("version", [0, -3])
def test_an_opset_version_below_1_is_refused(version):
    model = _gather_of(helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]))
    model.opset_import[0].version = version
    _refused(model, f"opset version {version}", "1 or more")


def test_models_read_from_bytes_give_the_same_refusals():
    model = _gather_of(helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, -2]))
    with pytest.raises(OnnxImportError, match="-2"):
        import_model(model.SerializeToString())


def test_a_sound_model_still_imports():
    model = _gather_of(helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2]))
    graph = import_model(model)
    assert graph.find("x").example.shape == (3, 2)


def test_a_name_that_is_not_utf8_is_refused():
    # Found by tests/test_fuzz.py: protobuf hands out bytes for such a name, which crashed.
    model = _gather_of(helper.make_tensor_value_info("name_here", TensorProto.FLOAT, [3]))
    model.graph.node[0].input[0] = "name_here"
    raw = model.SerializeToString().replace(b"name_here", b"\xffame_here")
    _refused(raw, "not UTF-8")


def test_a_metadata_key_that_is_not_utf8_is_refused_before_it_is_read():
    # found by the fuzzer: the importer read metadata keys (for carried examples) before it
    # checked that every text field is UTF-8, and str.startswith met bytes
    model = _gather_of(helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]))
    helper.set_model_props(model, {"key_here": "v"})
    raw = model.SerializeToString().replace(b"key_here", b"\xffey_here")
    _refused(raw, "metadata key", "not UTF-8")


@pytest.mark.parametrize("version, words", [(-1, "opset versions are 1 or more"),
                                             (1_000_000, r"which is no ONNX opset \(IndexFlow takes 1 to 100\)")])
def test_an_opset_version_no_onnx_has_is_refused_by_name(version, words):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    model = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x],
                                                [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])]),
                              opset_imports=[helper.make_opsetid("", version)])
    with pytest.raises(OnnxImportError, match=words):
        import_model(model)
