"""The two realistic models (an embedding classifier; a KV-cache update whose ScatterND indices
are built by Shape, Range, Unsqueeze, Expand and Concat): import, run like onnxruntime, export
unchanged, look at every indexing op's tensors, extract around Gather/ScatterND on real values,
splice an edited region back."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from nodeeditor.graph import Engine, extract_region, splice_region
from nodeeditor.graph import nodes as N
from nodeeditor.onnx_io import export_model, import_model
from nodeeditor.onnx_io.foreign_ops import new_foreign_node
from ops.explain import explain

from .conftest import ort_run
from .realistic import embedding_inputs, embedding_model, kv_cache_inputs, kv_cache_model

MODELS = {"embedding": (embedding_model, embedding_inputs), "kv_cache": (kv_cache_model, kv_cache_inputs)}


def _fed(model, inputs):
    graph = import_model(model)
    for node in graph.nodes:
        if isinstance(node, N.InputSource):
            graph.set_source(node.id, example=inputs[node.name])
    return graph


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def assert_equivalent(original: onnx.ModelProto, exported: onnx.ModelProto) -> None:
    """Same graph inputs and outputs (names, types, shapes), initializers (names, values), nodes
    in the same order (op, domain, attributes, wiring), opset imports and metadata. Names of
    intermediate tensors may differ: wiring is compared as 'output k of node j'."""
    g, h = original.graph, exported.graph
    assert [(v.name, v.type) for v in g.input] == [(v.name, v.type) for v in h.input]
    assert [(v.name, v.type) for v in g.output] == [(v.name, v.type) for v in h.output]
    assert [t.name for t in g.initializer] == [t.name for t in h.initializer]
    for a, b in zip(g.initializer, h.initializer, strict=True):
        np.testing.assert_array_equal(onnx.numpy_helper.to_array(a), onnx.numpy_helper.to_array(b))
    assert len(g.node) == len(h.node)

    def wiring(graph):
        made = {}
        out = []
        for j, node in enumerate(graph.node):
            out.append([made.get(t, t) for t in node.input])
            for k, t in enumerate(node.output):
                made[t] = ("node", j, k)
        outs = [made.get(o.name, o.name) for o in graph.output]
        return out, outs

    assert wiring(g) == wiring(h)
    for a, b in zip(g.node, h.node, strict=True):
        assert (a.op_type, a.domain, len(a.output)) == (b.op_type, b.domain, len(b.output))
        assert [(x.name, helper.get_attribute_value(x)) for x in a.attribute] == \
            [(x.name, helper.get_attribute_value(x)) for x in b.attribute] or \
            [x.SerializeToString() for x in a.attribute] == [x.SerializeToString() for x in b.attribute]
    assert {(o.domain or "", o.version) for o in original.opset_import} == \
        {(o.domain or "", o.version) for o in exported.opset_import}
    theirs = {p.key: p.value for p in original.metadata_props}
    ours = {p.key: p.value for p in exported.metadata_props}
    assert {k: v for k, v in ours.items() if not k.startswith("indexflow.")} == theirs


@pytest.mark.parametrize("name", sorted(MODELS))
def test_the_model_imports_and_runs_to_onnxruntimes_outputs(name):
    build, inputs = MODELS[name]
    model, feeds = build(), inputs()
    graph = _fed(model, feeds)
    assert not graph.problems()
    result = Engine(graph).run()
    assert result.ok, result.errors()
    expected = ort_run(model, feeds)
    assert set(result.outputs) == set(expected)
    for out in expected:
        _same(result.outputs[out], expected[out])


@pytest.mark.parametrize("name", sorted(MODELS))
def test_an_unedited_import_exports_an_equivalent_model(name):
    build, inputs = MODELS[name]
    model = build()
    exported = export_model(import_model(model))
    assert_equivalent(model, exported)
    feeds = inputs(batch=3, seed=7) if name == "embedding" else inputs(batch=3, seq=2, position=5)
    again, first = ort_run(exported, feeds), ort_run(model, feeds)
    for out in first:
        _same(again[out], first[out])


def test_named_dimensions_show_on_the_ports_of_the_embedding_model():
    graph = import_model(embedding_model())
    ids = graph.find("token ids")
    assert ids.shape == ("batch", "seq")
    gather = next(n for n in graph.nodes if isinstance(n, N.OperatorNode))
    assert str(graph.node_info(gather.id).type) == "float32[batch, seq, 8]"
    softmax = next(n for n in graph.nodes if isinstance(n, N.ForeignNode) and n.op_type == "Softmax")
    assert str(graph.node_info(softmax.id).type) == "float32[batch, seq, 4]"
    assert softmax.attributes["axis"].value == -1 and softmax.domain == ""


def test_every_indexing_ops_data_indices_and_output_are_there_after_a_run_and_the_explainer_reads_them():
    model, feeds = kv_cache_model(), kv_cache_inputs(batch=2, seq=3, position=2)
    graph = _fed(model, feeds)
    engine = Engine(graph, keep_intermediates=True)
    assert engine.run().ok
    scatter = next(n for n in graph.nodes if isinstance(n, N.OperatorNode) and n.op == "ScatterND")
    seen = engine.input_values(scatter.id)
    np.testing.assert_array_equal(seen["data"], feeds["key cache"])
    np.testing.assert_array_equal(seen["updates"], feeds["new keys"])
    indices = seen["indices"]
    assert indices.shape == (2, 2, 3, 3)
    np.testing.assert_array_equal(indices[1, 0, 2], [1, 0, 4])   # (b, h, position + i)
    expected = feeds["key cache"].copy()
    expected[:, :, 2:5] = feeds["new keys"]
    np.testing.assert_array_equal(engine.value(scatter.id), expected)
    explanation = explain("ScatterND", [seen["data"], seen["indices"], seen["updates"]], scatter.attributes)
    move = explanation.move(0)
    # a ScatterND step writes a whole slice: update slice (0, 0, 0) lands under indices[0, 0, 0] = (0, 0, 2)
    assert move.target == (0, 0, 2) and move.index_value is not None
    for gather in (n for n in graph.nodes if isinstance(n, N.OperatorNode) and n.op == "Gather"):
        assert set(engine.input_values(gather.id)) == {"data", "indices"} and engine.value(gather.id) is not None


def test_extract_around_the_gather_runs_on_the_real_token_ids():
    model, feeds = embedding_model(), embedding_inputs()
    graph = _fed(model, feeds)
    engine = Engine(graph, keep_intermediates=True)
    engine.run()
    gather = next(n for n in graph.nodes if isinstance(n, N.OperatorNode))
    cut = extract_region(graph, [gather.id], engine)
    inputs = {cut.graph.node(nid).name: cut.graph.node(nid) for nid in cut.inputs}
    assert set(inputs) == {"embedding table", "token ids"}
    np.testing.assert_array_equal(inputs["token ids"].example, feeds["token ids"])
    assert inputs["token ids"].shape == ("batch", "seq")
    result = Engine(cut.graph).run()
    assert result.ok
    (value,) = result.outputs.values()
    np.testing.assert_array_equal(value, engine.value(gather.id))


def test_extract_around_the_scatternd_runs_on_the_indices_the_model_built():
    model, feeds = kv_cache_model(), kv_cache_inputs()
    graph = _fed(model, feeds)
    engine = Engine(graph, keep_intermediates=True)
    engine.run()
    scatter = next(n for n in graph.nodes if isinstance(n, N.OperatorNode) and n.op == "ScatterND")
    cut = extract_region(graph, [scatter.id], engine)
    names = sorted(cut.graph.node(nid).name for nid in cut.inputs)
    assert names == ["key cache", "new keys", "write indices"]   # the Concat's tensor name
    indices = next(cut.graph.node(nid) for nid in cut.inputs if cut.graph.node(nid).name == "write indices")
    np.testing.assert_array_equal(indices.example, engine.input_values(scatter.id)["indices"])
    result = Engine(cut.graph).run()
    (value,) = result.outputs.values()
    np.testing.assert_array_equal(value, engine.value(scatter.id))
    model_cut = export_model(cut.graph)   # the cut-out is a model of its own
    assert [i.name for i in model_cut.graph.input] == [cut.graph.node(n).name for n in cut.inputs]


def test_an_edited_region_splices_back_into_the_model_and_exports():
    model, feeds = embedding_model(), embedding_inputs()
    graph = _fed(model, feeds)
    softmax = next(n for n in graph.nodes if isinstance(n, N.ForeignNode) and n.op_type == "Softmax")
    cut = extract_region(graph, [softmax.id])
    sub = cut.graph
    (out_id,) = [n.id for n in sub.output_nodes() if n.id in cut.outputs] or [next(iter(sub.output_nodes())).id]
    log = sub.add_node(new_foreign_node("LogSoftmax", opset=sub.opset))
    sub.set_foreign_attribute(log, "axis", N.ForeignAttribute(N.AttrKind.INT, -1))
    (inp,) = cut.inputs
    sub.connect(inp, "output", log, "input")
    for output in sub.output_nodes():
        sub.disconnect(output.id, "value")
        sub.connect(log, "output", output.id, "value")
    sub.remove_node(softmax.id)
    splice_region(graph, cut)
    result = Engine(graph).run()
    assert result.ok, result.errors()
    probabilities = ort_run(model, feeds)["class probabilities"]
    np.testing.assert_allclose(result.outputs["class probabilities"], np.log(probabilities), rtol=1e-5, atol=1e-5)
    exported = export_model(graph)
    assert [n.op_type for n in exported.graph.node] == ["Gather", "MatMul", "Add", "LogSoftmax"]
    np.testing.assert_allclose(ort_run(exported, feeds)["class probabilities"], np.log(probabilities),
                               rtol=1e-5, atol=1e-5)
    del out_id
