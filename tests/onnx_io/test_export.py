"""Export: every example exports, passes the checker and runs in onnxruntime to the engine's
outputs; opset rules name the node and the opset it needs; names, sources and value_info."""

import numpy as np
import onnx
import pytest

from nodeeditor.graph import Engine, Graph, list_examples, load_example
from nodeeditor.onnx_io import ExportError, export_model, save_model
from nodeeditor.onnx_io.export import export_with_feeds

from .conftest import assert_same, ort_run

EXAMPLES = [info.name for info in list_examples()]


@pytest.mark.parametrize("name", EXAMPLES)
@pytest.mark.parametrize("sources", ["initializers", "inputs"])
def test_every_example_exports_and_matches_onnxruntime(name, sources):
    graph = load_example(name)
    result = Engine(graph).run()
    assert result.ok, result.errors()
    model, feeds = export_with_feeds(graph, sources=sources)
    onnx.checker.check_model(model, full_check=True)
    outputs = ort_run(model, feeds)
    assert set(outputs) == set(result.outputs)
    for out_name, value in outputs.items():
        # float add/mul reductions may sum in another order: within rounding; the rest exact
        assert_same(value, result.outputs[out_name], float_tolerance=True)


def _scatter_graph(reduction="none", op="ScatterElements", opset=18, dtype=np.float32):
    g = Graph("t", opset=opset)
    data = g.add_literal(np.zeros((3, 3), dtype), name="data")
    idx = g.add_literal(np.array([[1, 0, 2], [0, 2, 1]]), name="indices")
    upd = g.add_literal(np.arange(6, dtype=dtype).reshape(2, 3), name="updates")
    attrs = {} if op == "Scatter" else {"reduction": reduction}
    s = g.add_operator(op, attrs, name="scatter")
    for port, src in (("data", data), ("indices", idx), ("updates", upd)):
        g.connect(src, "output", s, port)
    out = g.add_output("result")
    g.connect(s, "output", out, "value")
    return g


def test_an_opset_too_low_names_the_node_and_offers_the_lowest_that_works():
    g = _scatter_graph("max")
    with pytest.raises(ExportError) as info:
        export_model(g, opset=16)
    message = str(info.value)
    assert "scatter" in message and "needs opset 18" in message and "reduction='max'" in message
    assert info.value.suggested_opset == 18
    export_model(g, opset=info.value.suggested_opset)  # and the offer works


@pytest.mark.parametrize("what, opset_needed",
                         [("add", 16), ("bfloat16", 13), ("batch_dims", 12), ("tensorscatter", 24)])
def test_opset_rules(what, opset_needed):
    if what == "add":
        g = _scatter_graph("add")
    elif what == "bfloat16":
        import ml_dtypes
        g = Graph("t", opset=opset_needed - 1)
        d = g.add_literal(np.ones((3, 2), ml_dtypes.bfloat16), name="d")
        i = g.add_literal(np.array([0, 2]), name="i")
        n = g.add_operator("Gather", name="gather")
        g.connect(d, "output", n, "data")
        g.connect(i, "output", n, "indices")
        g.connect(n, "output", g.add_output("o"), "value")
    elif what == "batch_dims":
        g = Graph("t", opset=opset_needed - 1)
        d = g.add_literal(np.arange(8.0).reshape(2, 2, 2), name="d")
        i = g.add_literal(np.array([[1], [0]]), name="i")
        n = g.add_operator("GatherND", {"batch_dims": 1}, name="gnd")
        g.connect(d, "output", n, "data")
        g.connect(i, "output", n, "indices")
        g.connect(n, "output", g.add_output("o"), "value")
    else:
        g = Graph("t", opset=24)
        c = g.add_literal(np.zeros((1, 4, 2), np.float32), name="cache")
        u = g.add_literal(np.ones((1, 1, 2), np.float32), name="upd")
        n = g.add_operator("TensorScatter", name="ts")
        g.connect(c, "output", n, "past_cache")
        g.connect(u, "output", n, "update")
        g.connect(n, "present_cache", g.add_output("o"), "value")
    with pytest.raises(ExportError) as info:
        export_model(g, opset=opset_needed - 1)
    assert f"needs opset {opset_needed}" in str(info.value)
    assert info.value.suggested_opset == opset_needed
    model = export_model(g, opset=opset_needed)
    assert model.opset_import[0].version == opset_needed


def test_scatter_is_written_as_scatter_elements_from_opset_11_and_back():
    g = _scatter_graph(op="Scatter", opset=9)
    assert [n.op_type for n in export_model(g, opset=9).graph.node] == ["Scatter"]
    assert [n.op_type for n in export_model(g, opset=11).graph.node] == ["ScatterElements"]
    g2 = _scatter_graph("none", opset=18)
    assert [n.op_type for n in export_model(g2, opset=10).graph.node] == ["Scatter"]
    # the spec's Scatter-9 example 1 through onnxruntime at both spellings
    expected = np.array([[1, 0, 0], [0, 0, 5], [0, 4, 2]], np.float32) * 0
    for opset in (9, 11, 18):
        (value,) = ort_run(export_model(g, opset=opset)).values()
        want = np.zeros((3, 3), np.float32)
        upd = np.arange(6, dtype=np.float32).reshape(2, 3)
        idx = np.array([[1, 0, 2], [0, 2, 1]])
        for i in range(2):
            for j in range(3):
                want[idx[i, j], j] = upd[i, j]
        np.testing.assert_array_equal(value, want + expected)


def test_names_are_kept_exactly_made_unique_and_outputs_keep_their_names():
    g = Graph("names", opset=18)
    a = g.add_literal(np.arange(6.0).reshape(2, 3), name="my data!")
    b = g.add_literal(np.array([1, 0]), name="my data?")
    n1 = g.add_operator("Gather", name="1 gather")
    g.connect(a, "output", n1, "data")
    g.connect(b, "output", n1, "indices")
    n2 = g.add_operator("Gather", name="1 gather")
    g.connect(n1, "output", n2, "data")
    g.connect(b, "output", n2, "indices")
    o1 = g.add_output("final")
    g.connect(n2, "output", o1, "value")
    o2 = g.add_output("also_first")
    g.connect(n1, "output", o2, "value")
    o3 = g.add_output("again")
    g.connect(n1, "output", o3, "value")
    model = export_model(g)
    tensor_names = [i.name for i in model.graph.initializer] + [o for n in model.graph.node for o in n.output]
    assert len(tensor_names) == len(set(tensor_names))
    assert [i.name for i in model.graph.initializer] == ["my data!", "my data?"]   # any string is a name
    node_names = [n.name for n in model.graph.node]
    assert len(node_names) == len(set(node_names))
    assert sorted(o.name for o in model.graph.output) == ["again", "also_first", "final"]
    # every intermediate has a value_info with its inferred shape
    infos = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in model.graph.value_info}
    gather_outputs = [n.output[0] for n in model.graph.node if n.op_type == "Gather"]
    intermediates = [t for t in gather_outputs if t not in {o.name for o in model.graph.output}]
    assert intermediates and all(infos[t] == [2, 3] for t in intermediates)


def test_sources_as_inputs_keep_their_shapes():
    model = export_model(_scatter_graph("add"), sources="inputs")
    assert not model.graph.initializer
    shapes = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    assert shapes == {"data": [3, 3], "indices": [2, 3], "updates": [2, 3]}


def test_a_graph_with_errors_is_refused_with_the_node_named():
    g = _scatter_graph("add")
    g.set_attribute(g.find("scatter").id, "reduction", "average")  # not a reduction: ops refuses it
    with pytest.raises(ExportError, match="scatter.*average|average.*scatter"):
        export_model(g)


def test_mismatched_update_shapes_are_caught_before_the_checker():
    g = Graph("bad", opset=18)
    d = g.add_literal(np.zeros((4,), np.float32), name="d")
    i = g.add_literal(np.array([[0], [1]]), name="i")
    u = g.add_literal(np.zeros((3,), np.float32), name="u")
    n = g.add_operator("ScatterND", name="snd")
    g.connect(d, "output", n, "data")
    g.connect(i, "output", n, "indices")
    g.connect(u, "output", n, "updates", force=True)
    g.connect(n, "output", g.add_output("o"), "value")
    with pytest.raises(ExportError, match="updates shape"):
        export_model(g)


def test_a_graph_without_outputs_is_refused():
    g = Graph("empty")
    g.add_literal(np.zeros(3))
    with pytest.raises(ExportError, match="no output"):
        export_model(g)


def test_save_model_is_atomic_and_leaves_the_old_file_on_failure(tmp_path):
    target = tmp_path / "m.onnx"
    save_model(_scatter_graph("add"), target)
    before = target.read_bytes()
    onnx.checker.check_model(onnx.load(str(target)), full_check=True)
    with pytest.raises(ExportError):
        save_model(_scatter_graph("max"), target, opset=16)
    assert target.read_bytes() == before
    assert not list(tmp_path.glob("*.tmp"))


def test_opsets_outside_the_writable_range_are_refused_and_old_ones_work():
    from nodeeditor.onnx_io.opset_rules import MAX_OPSET

    assert MAX_OPSET == max(24, onnx.defs.onnx_opset_version())   # what the installed onnx knows
    g = _scatter_graph(op="Scatter", opset=9)
    for bad in (0, MAX_OPSET + 1, 99):
        with pytest.raises(ExportError, match="outside"):
            export_model(g, opset=bad)
    model = export_model(_gather_graph(), opset=1)   # IR 3: initializers are also graph inputs
    assert {i.name for i in model.graph.initializer} <= {i.name for i in model.graph.input}
    (value,) = ort_run(model).values()
    np.testing.assert_array_equal(value, np.arange(6.0).reshape(3, 2)[[2, 0]])


def _gather_graph(indices=(2, 0)):
    g = Graph("gather", opset=13)
    d = g.add_literal(np.arange(6.0).reshape(3, 2), name="d")
    i = g.add_literal(np.array(indices), name="i")
    n = g.add_operator("Gather", name="gather")
    g.connect(d, "output", n, "data")
    g.connect(i, "output", n, "indices")
    g.connect(n, "output", g.add_output("o"), "value")
    return g


def test_a_node_failing_on_fixed_values_is_refused_but_inputs_mode_writes_it():
    g = _gather_graph(indices=(2, 7))                  # 7 is out of range for 3 rows
    with pytest.raises(ExportError, match="(?s)could never run.*indices\\[1\\] = 7"):
        export_model(g)
    model = export_model(g, sources="inputs")          # the values are only examples there
    assert len(model.graph.input) == 2


def test_unconnected_inputs_are_named():
    g = Graph("open", opset=18)
    d = g.add_literal(np.zeros(3), name="d")
    n = g.add_operator("Gather", name="ga")
    g.connect(d, "output", n, "data")
    g.connect(n, "output", g.add_output("o"), "value")
    with pytest.raises(ExportError, match="indices"):
        export_model(g)


def test_duplicate_output_names_are_refused():
    g = _gather_graph()
    g.connect(g.find("gather").id, "output", g.add_output("o"), "value")
    with pytest.raises(ExportError, match="unique"):
        export_model(g)


def test_save_model_to_a_name_at_the_length_limit(tmp_path):
    # The temporary file used to be NAME.tmp: 4 bytes over the limit for a NAME that fits.
    import os
    try:
        limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        limit = 255
    target = tmp_path / ("m" * (limit - len(".onnx")) + ".onnx")
    assert len(os.fsencode(target.name)) == limit
    save_model(_gather_graph(), target)
    assert os.listdir(tmp_path) == [target.name]
    (value,) = ort_run(onnx.load(str(target))).values()
    np.testing.assert_array_equal(value, np.arange(6.0).reshape(3, 2)[[2, 0]])


def test_save_model_gives_the_usual_permissions(tmp_path):
    # 0666 less the umask for a new file, as open() gives; an existing file keeps its own
    import os
    import stat
    umask = os.umask(0o022)
    os.umask(umask)
    target = tmp_path / "m.onnx"
    save_model(_gather_graph(), target)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o666 & ~umask
    os.chmod(target, 0o640)
    save_model(_gather_graph(), target)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640


def test_unconnected_inputs_are_named_as_everywhere_else():
    """Export words a missing wire as the node's own problem line does."""
    import numpy as np

    from nodeeditor.graph import Graph
    from nodeeditor.onnx_io import ExportError, export_model

    g = Graph(name="half wired")
    g.add_literal(np.arange(4, dtype=np.float32), name="data", node_id="d", position=(0, 0))
    g.add_operator("ScatterElements", {}, node_id="s", name="scatter", position=(200, 0))
    g.add_output("out", node_id="o", position=(400, 0))
    g.connect("d", "output", "s", "data")
    g.connect("s", "output", "o", "value")
    with pytest.raises(ExportError) as info:
        export_model(g)
    assert "scatter [s]: inputs 'indices' and 'updates' are not connected" in str(info.value)
    assert g.node_info("s").error == "inputs 'indices' and 'updates' are not connected"


def test_another_ops_version_change_at_the_asked_opset_is_refused_naming_it():
    """A Softmax imported at opset 13 and exported at 11 was written unchanged, where it is
    Softmax-11 (which flattens to 2-D first): the model passed the checker and computed
    something else. The export names the node and both versions, and offers 13."""
    from onnx import TensorProto, helper

    from nodeeditor.onnx_io import import_model

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])
    node = helper.make_node("Softmax", ["x"], ["y"], name="soft", axis=1)
    model = helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 13)])
    graph = import_model(model)
    value = np.random.default_rng(0).normal(size=(2, 3, 4)).astype(np.float32)
    graph.set_source(graph.find("x").id, example=value)
    at_11 = model.__class__()
    at_11.CopyFrom(model)
    at_11.opset_import[0].version = 11
    flat = ort_run(at_11, {"x": value})["y"]                   # what the opset-11 model would compute
    assert not np.allclose(flat, ort_run(model, {"x": value})["y"], atol=1e-3)
    with pytest.raises(ExportError, match=r"soft needs opset 13: at opset 11 Softmax is Softmax-11, not the "
                                          r"Softmax-13") as refused:
        export_model(graph, opset=11)
    assert refused.value.suggested_opset == 13
    exported = export_model(graph, opset=13)
    np.testing.assert_allclose(ort_run(exported, {"x": value})["y"], ort_run(model, {"x": value})["y"], rtol=1e-6)


def test_an_ops_newer_version_that_only_adds_types_does_not_stop_an_export_at_a_later_opset():
    """Relu-13 is Relu-14 with bfloat16 added: an opset-13 graph exports at 18 (it was refused
    as another version); a Relu-14 of an opset-14 graph exported at 13 is still refused (an
    older version: nothing says it means the same), and the domain "ai.onnx" is the default."""
    from onnx import TensorProto, helper

    from nodeeditor.onnx_io import import_model

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    value = np.array([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]], np.float32)
    for domain in ("", "ai.onnx"):
        node = helper.make_node("Relu", ["x"], ["y"], name="relu", domain=domain)
        model = helper.make_model(helper.make_graph([node], "g", [x], [y]), opset_imports=[helper.make_opsetid("", 13)])
        graph = import_model(model)
        graph.set_source(graph.find("x").id, example=value)
        np.testing.assert_array_equal(ort_run(export_model(graph, opset=18), {"x": value})["y"], np.maximum(value, 0))
        graph.set_setting("opset", 14)
        with pytest.raises(ExportError, match="relu needs opset 14: at opset 13 Relu is Relu-13"):
            export_model(graph, opset=13)


def test_weights_over_what_one_onnx_file_holds_are_refused_before_they_are_read(monkeypatch):
    """A 2.4 GB model failed deep in the checker ("Failed to serialize proto") after 31 s and
    9 GB of memory: the export now refuses at once, naming the size and the way out. The
    tables are never made (reading a source fails this test)."""
    from nodeeditor.onnx_io import export as export_module

    g = Graph(name="big")
    g.add_literal(np.array([0, 5], np.int64), name="ids", node_id="ids")
    for k in range(5):                                       # 5 tables of 0.5 GB (each under the source cap)
        g.add_generator("zeros", {"shape": [125_000_000], "dtype": "float32"}, name=f"t{k}", node_id=f"t{k}")
        g.add_operator("Gather", {}, node_id=f"gather{k}")
        g.add_output(f"out{k}", node_id=f"out{k}")
        g.connect(f"t{k}", "output", f"gather{k}", "data")
        g.connect("ids", "output", f"gather{k}", "indices")
        g.connect(f"gather{k}", "output", f"out{k}", "value")
    monkeypatch.setattr(export_module, "_source_values", lambda graph: pytest.fail("a source was read"))
    with pytest.raises(ExportError, match=r"take 2\.5 GB, more than one ONNX file holds .*--sources inputs"):
        export_model(g)


def test_two_graph_inputs_of_one_name_are_refused_in_words_about_inputs():
    """The refusal said "Output names must be unique" about two inputs."""
    g = _gather_graph()
    for nid in ("a", "b"):
        g.add_input("x", np.zeros(2, np.float32), node_id=nid)
    with pytest.raises(ExportError, match=r"Graph input and output names must be unique in a model: "
                                          r"2 inputs are called 'x' \(a, b\)"):
        export_model(g)
