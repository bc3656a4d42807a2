"""Foreign ONNX nodes in the graph layer: plain data, typed and run through whatever runtime a
higher layer registers, and an error on the node (never a crash) when none is registered."""
from __future__ import annotations

import numpy as np
import pytest

from nodeeditor.graph import Engine, Graph, NodeStatus, foreign
from nodeeditor.graph import nodes as N
from nodeeditor.graph.fileformat import load_graph, save_graph
from nodeeditor.graph.foreign import AttrKind, ForeignAttribute, ForeignOpError, InferredTypes, Opaque
from nodeeditor.graph.model_info import ModelInfo
from nodeeditor.graph.serialize import graph_from_dict, graph_to_dict
from ops import TensorType


@pytest.fixture
def no_runtime():
    """No executor, type inferrer or tensor loader registered (restored afterwards)."""
    saved = (foreign.register_executor(None), foreign.register_type_inferrer(None),
             foreign.register_tensor_loader(None))
    yield
    foreign.restore(*saved)


@pytest.fixture
def fake_runtime():
    """A runtime that knows two ops: ``Double`` (x -> 2x) and ``Split2`` (x -> first half,
    second half), typed by hand; it records the calls it gets."""
    calls = []

    def run(call, values):
        calls.append((call.op_type, [None if v is None else np.asarray(v).copy() for v in values]))
        x = np.asarray(values[0])
        if call.op_type == "Double":
            return [x * 2]
        if call.op_type == "Split2":
            half = x.shape[0] // 2
            return [x[:half], x[half:]]
        raise ForeignOpError(f"{call.title}: no such op here")

    def infer(call, types, constants):
        (t,) = types[:1]
        if call.op_type == "Double":
            return InferredTypes((t,))
        if call.op_type == "Split2":
            return InferredTypes((None, None))   # known only after a run
        return InferredTypes((None,) * call.n_outputs, ("no idea",))

    saved = (foreign.register_executor(run), foreign.register_type_inferrer(infer),
             foreign.register_tensor_loader(None))
    yield calls
    foreign.restore(*saved)


def _double(node_id="d", **extra) -> N.ForeignNode:
    fields = {"inputs": ("X",), "outputs": ("Y",), "tensor_names": ("y",), **extra}
    return N.ForeignNode(id=node_id, name="", op_type="Double", **fields)


def _graph_with(node: N.ForeignNode) -> Graph:
    g = Graph("f")
    g.add_literal(np.arange(4, dtype=np.float32), node_id="x")
    g.add_node(node)
    g.connect("x", "output", node.id, node.inputs[0])
    g.add_output("out", node_id="o")
    g.connect(node.id, node.outputs[0], "o", "value")
    return g


def test_without_a_runtime_a_foreign_node_is_an_error_naming_the_package_and_nothing_crashes(no_runtime):
    g = _graph_with(_double())
    info = g.node_info("d")
    assert info.status == NodeStatus.ERROR
    assert info.error == "running ONNX op Double needs onnxruntime or onnx: pip install onnxruntime"
    result = Engine(g).run()
    assert dict(result.errors())["d"].endswith("pip install onnxruntime")
    assert result.nodes["o"].status == NodeStatus.BLOCKED


def test_a_registered_runtime_types_and_runs_the_node(fake_runtime):
    g = _graph_with(_double())
    assert g.node_info("d").outputs == {"Y": TensorType("float32", (4,))}
    np.testing.assert_array_equal(Engine(g).run().outputs["out"], [0, 2, 4, 6])
    assert [op for op, _ in fake_runtime] == ["Double"]


def test_a_node_with_two_outputs_gives_each_reader_its_own_port(fake_runtime):
    split = N.ForeignNode(id="s", name="", op_type="Split2", inputs=("X",), outputs=("A", "B"))
    g = _graph_with(split)
    g.add_output("second", node_id="o2")
    g.connect("s", "B", "o2", "value")
    engine = Engine(g, keep_intermediates=True)
    result = engine.run()
    np.testing.assert_array_equal(result.outputs["out"], [0, 1])
    np.testing.assert_array_equal(result.outputs["second"], [2, 3])
    np.testing.assert_array_equal(engine.value("s", "B"), [2, 3])
    np.testing.assert_array_equal(engine.value("s"), [0, 1])   # the first output by default


def test_types_known_only_after_a_run_leave_readers_blocked_statically_but_they_run(fake_runtime):
    split = N.ForeignNode(id="s", name="", op_type="Split2", inputs=("X",), outputs=("A", "B"))
    g = _graph_with(split)
    g.add_operator("Gather", {"axis": 0}, node_id="g")
    g.add_literal(np.array([1, 0]), node_id="i")
    g.connect("s", "A", "g", "data")
    g.connect("i", "output", "g", "indices")
    assert g.node_info("s").deferred and g.node_info("s").ok
    info = g.node_info("g")
    assert info.blocked and info.deferred and "known only after a run" in info.error
    engine = Engine(g, keep_intermediates=True)
    result = engine.run()
    assert result.ok, result.errors()
    np.testing.assert_array_equal(engine.value("g"), [1, 0])


def test_a_runtime_error_is_the_nodes_error(fake_runtime):
    g = _graph_with(N.ForeignNode(id="u", name="", op_type="Unknown", inputs=("X",), outputs=("Y",)))
    assert g.node_info("u").warnings == ("no idea",)
    assert dict(Engine(g).run().errors())["u"] == "u: Unknown: no such op here"


def test_an_optional_input_may_stay_unconnected_and_the_runtime_gets_none(fake_runtime):
    node = _double(inputs=("X", "scale"), optional=frozenset({"scale"}))
    g = _graph_with(node)
    assert g.node_info("d").ok
    Engine(g).run()
    assert fake_runtime[-1][1][1] is None


def test_attributes_change_through_the_graph_and_undo_exactly(fake_runtime):
    g = _graph_with(_double(attributes={"alpha": ForeignAttribute(AttrKind.FLOAT, 0.5)}))
    seen = []
    g.events.subscribe(seen.append)
    revision = g.node("d").revision
    old = g.set_foreign_attribute("d", "alpha", ForeignAttribute(AttrKind.FLOAT, 2.0))
    assert old.value == 0.5 and g.node("d").attributes["alpha"].value == 2.0
    assert g.node("d").revision != revision
    assert g.set_foreign_attribute("d", "alpha", old).value == 2.0
    assert g.node("d").attributes["alpha"].same(ForeignAttribute(AttrKind.FLOAT, 0.5))
    g.set_foreign_attribute("d", "beta", ForeignAttribute(AttrKind.INTS, [1, 2]))
    assert g.node("d").attributes["beta"].value == (1, 2)
    assert g.set_foreign_attribute("d", "beta", None).value == (1, 2) and "beta" not in g.node("d").attributes
    with pytest.raises(ValueError, match="int attribute holds an integer"):
        g.set_foreign_attribute("d", "n", ForeignAttribute(AttrKind.INT, 1.5))
    assert sum(1 for e in seen if type(e).__name__ == "AttributeChanged") == 4


def test_ports_must_be_unique_and_optional_ports_must_be_inputs():
    with pytest.raises(ValueError, match="unique"):
        N.ForeignNode(id="a", name="a", op_type="Add", inputs=("A", "A"), outputs=("C",))
    with pytest.raises(ValueError, match="not inputs"):
        N.ForeignNode(id="a", name="a", op_type="Add", inputs=("A",), outputs=("C",), optional=frozenset({"Z"}))


def test_a_capture_is_an_input_port_of_its_own(fake_runtime):
    node = N.ForeignNode(id="if", name="", op_type="If", inputs=("cond",), outputs=("out",), captures=("x",))
    assert node.input_ports() == ("cond", "outer:x")
    assert N.capture_port("x") == "outer:x"


def _every_kind() -> dict[str, ForeignAttribute]:
    table = np.arange(6, dtype=np.float32).reshape(2, 3)
    table.setflags(write=False)
    words = np.array(["a", "b\udcff"], dtype=object)   # a byte that is not UTF-8, kept as it came
    words.setflags(write=False)
    return {
        "i": ForeignAttribute(AttrKind.INT, -3), "f": ForeignAttribute(AttrKind.FLOAT, float("nan")),
        "s": ForeignAttribute(AttrKind.STRING, "mode \udcff"), "t": ForeignAttribute(AttrKind.TENSOR, table),
        "g": ForeignAttribute(AttrKind.GRAPH, Opaque(b"\x08\x01", "graph 'body': 1 node")),
        "ints": ForeignAttribute(AttrKind.INTS, (1, 2)),
        "floats": ForeignAttribute(AttrKind.FLOATS, (0.25, float("inf"))),
        "strings": ForeignAttribute(AttrKind.STRINGS, ("x", "y")),
        "tensors": ForeignAttribute(AttrKind.TENSORS, (words,)),
        "graphs": ForeignAttribute(AttrKind.GRAPHS, (Opaque(b"\x00"), Opaque(b"\x01"))),
        "sparse": ForeignAttribute(AttrKind.SPARSE_TENSOR, Opaque(b"\x02")),
        "type": ForeignAttribute(AttrKind.TYPE_PROTO, Opaque(b"\x03", "type tensor(float)")),
        "empty": ForeignAttribute(AttrKind.INTS, ()),
    }


def _saved_and_loaded(g: Graph, tmp_path) -> Graph:
    path = tmp_path / "g.ifg.json"
    save_graph(g, path)
    return load_graph(path)


def test_every_attribute_kind_survives_the_file_format(fake_runtime, tmp_path):
    node = N.ForeignNode(id="n", name="my op", op_type="Custom", domain="com.example", inputs=("X", "Y"),
                         outputs=("Z", "W"), optional=frozenset({"Y"}), captures=("outer value",),
                         tensor_names=("z", ""), attributes=_every_kind())
    g = Graph("kinds")
    g.add_node(node)
    g.set_model_info(ModelInfo(opsets=(("com.example", 3),), metadata=(("k", "v"),),
                               functions=(Opaque(b"\x0a\x01f", "function f"),), ir_version=9,
                               outputs=(("z", Opaque(b"\x0a\x02\x08\x01", "tensor(float)")),)))
    for back in (graph_from_dict(graph_to_dict(g)), _saved_and_loaded(g, tmp_path)):
        copy = back.node("n")
        assert (copy.op_type, copy.domain, copy.inputs, copy.outputs, copy.optional, copy.captures,
                copy.tensor_names) == (node.op_type, node.domain, node.inputs, node.outputs, node.optional,
                                       node.captures, node.tensor_names)
        assert list(copy.attributes) == list(node.attributes)
        for name, attr in node.attributes.items():
            assert copy.attributes[name].same(attr), name
        assert copy.attributes["g"].value.summary == "graph 'body': 1 node"
        assert back.model_info == g.model_info
        assert back.opsets() == {"": 18, "com.example": 3}


def test_a_large_tensor_attribute_goes_to_the_sidecar(fake_runtime, tmp_path):
    big = np.arange(10_000, dtype=np.float32)
    g = _graph_with(_double(attributes={"table": ForeignAttribute(AttrKind.TENSOR, big)}))
    path = tmp_path / "g.ifg.json"
    save_graph(g, path)
    assert "sidecar" in path.read_text() and path.with_suffix(".npz").exists()
    np.testing.assert_array_equal(load_graph(path).node("d").attributes["table"].value, big)


def test_a_version_2_file_loads_as_version_3(tmp_path):
    path = tmp_path / "old.ifg.json"
    path.write_text('{"format": "indexflow-graph", "version": 2, "settings": {"name": "old", "description": "", '
                    '"opset": 13}, "nodes": [{"id": "x", "kind": "input", "name": "x", "position": [0, 0], '
                    '"example": {"dtype": "float32", "shape": [2], "data": [1.0, 2.0]}}], "edges": []}')
    g = load_graph(path)
    assert g.node("x").shape is None and g.model_info == ModelInfo() and g.opset == 13


def test_the_model_info_changes_through_the_graph_and_retypes_foreign_nodes(fake_runtime):
    g = _graph_with(_double())
    revision = g.node("d").revision
    seen = []
    g.events.subscribe(seen.append)
    old = g.set_model_info(ModelInfo(opsets=(("com.x", 2),)))
    assert old == ModelInfo() and g.opsets() == {"": 18, "com.x": 2}
    assert g.node("d").revision != revision
    assert [type(e).__name__ for e in seen][0] == "SettingChanged"
    with pytest.raises(ValueError, match="positive integer"):
        ModelInfo(opsets=(("com.x", 0),))
    with pytest.raises(ValueError, match="other domains"):
        ModelInfo(opsets=(("", 13),))


def test_a_model_tensor_source_without_a_loader_names_the_package(no_runtime):
    g = Graph("lazy")
    g.add_node(N.ModelTensorSource(id="w", name="w", path="model.onnx", tensor="w", dtype="float32", shape=(3, 2)))
    assert g.node_info("w").outputs == {"output": TensorType("float32", (3, 2))}   # typed without reading
    error = dict(Engine(g).run().errors())["w"]
    assert "needs onnxruntime or onnx" in error and "'w'" in error


def test_a_model_tensor_source_checks_what_it_reads(tmp_path):
    value = np.arange(6, dtype=np.float32).reshape(3, 2)
    store = {"w": value}
    saved = foreign.register_tensor_loader(lambda path, name: store[name])
    try:
        g = Graph("lazy")
        g.add_node(N.ModelTensorSource(id="w", name="w", path="model.onnx", tensor="w", dtype="float32",
                                       shape=(3, 2), nbytes=24, checksum=N.tensor_checksum(value)))
        engine = Engine(g, keep_intermediates=True)
        assert engine.run().ok
        np.testing.assert_array_equal(engine.value("w"), value)
        store["w"] = value + 1
        g.set_source("w", path="model.onnx")   # a new revision: read again
        assert "not the one imported" in dict(engine.run().errors())["w"]
    finally:
        foreign.register_tensor_loader(saved)


def test_a_backward_pass_through_a_foreign_node_says_no_gradient_flows_through_it(fake_runtime):
    from nodeeditor.graph import Backward

    g = _graph_with(_double())
    g.set_trainable("x", True)
    g.add_loss("mean", node_id="loss")
    g.connect("d", "Y", "loss", "prediction")
    result = Backward(Engine(g)).run()
    assert any("no gradient for ONNX op Double" in w for w in result.warnings)
    assert not np.any(result.source_gradients()["x"])
