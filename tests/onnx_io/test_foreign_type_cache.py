"""A model's repeated foreign nodes are typed by one ONNX shape inference per distinct node
(op, attributes, input types), and nodes that differ only in an attribute still get their own
types (the ONNX specification's Transpose: output dimension i is input dimension perm[i])."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from nodeeditor.onnx_io import foreign_runtime, import_model


def _chain_model() -> onnx.ModelProto:
    """x float32[2, 3] -> 30 Relu -> Transpose(perm=[1, 0]) -> Transpose(perm=[1, 0])
    -> Transpose(perm=[0, 1]) -> y."""
    nodes, prev = [], "x"
    for i in range(30):
        nodes.append(helper.make_node("Relu", [prev], [f"r{i}"], name=f"relu{i}"))
        prev = f"r{i}"
    nodes.append(helper.make_node("Transpose", [prev], ["t0"], name="t0", perm=[1, 0]))
    nodes.append(helper.make_node("Transpose", ["t0"], ["t1"], name="t1", perm=[1, 0]))
    nodes.append(helper.make_node("Transpose", ["t1"], ["y"], name="t2", perm=[0, 1]))
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_repeated_nodes_are_inferred_once_and_differing_attributes_apart(monkeypatch):
    calls = []
    real = onnx.shape_inference.infer_shapes

    def counting(model, *args, **kwargs):
        calls.append(model.graph.node[0].op_type)
        return real(model, *args, **kwargs)

    foreign_runtime.clear_caches()
    monkeypatch.setattr(onnx.shape_inference, "infer_shapes", counting)
    graph = import_model(_chain_model())
    # Relu on float32[2, 3]; Transpose perm=[1, 0] on [2, 3] and on [3, 2]; perm=[0, 1] on [2, 3]
    assert sorted(calls) == ["Relu", "Transpose", "Transpose", "Transpose"]
    by_name = {n.name: n.id for n in graph.nodes}
    out = {name: graph.node_info(by_name[name]).outputs["transposed"] for name in ("t0", "t1", "t2")}
    assert [(t.dtype, tuple(t.shape)) for t in out.values()] == [("float32", (3, 2)), ("float32", (2, 3)),
                                                                ("float32", (2, 3))]
    relu = graph.node_info(by_name["relu29"]).outputs["Y"]
    assert (relu.dtype, tuple(relu.shape)) == ("float32", (2, 3))
