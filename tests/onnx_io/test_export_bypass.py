"""A bypassed scatter exports as an Identity of its data input: the model passes the checker
and onnxruntime gives what the engine gives."""
import numpy as np
import onnx

from nodeeditor.graph import Engine, Graph
from nodeeditor.onnx_io.export import export_with_feeds

from .conftest import assert_same, ort_run


def _graph(op="ScatterND"):
    g = Graph("bypass", opset=18)
    data = g.add_literal(np.arange(6, dtype=np.float32).reshape(2, 3), name="data")
    idx = g.add_literal(np.array([[1]], np.int64), name="indices")
    upd = g.add_literal(np.full((1, 3), 9, np.float32), name="updates")
    s = g.add_operator(op, name="write row")
    for port, src in (("data", data), ("indices", idx), ("updates", upd)):
        g.connect(src, "output", s, port)
    out = g.add_output("y")
    g.connect(s, "output", out, "value")
    return g, s


def test_a_bypassed_scatter_is_written_as_identity_and_runs_like_the_engine():
    g, s = _graph()
    g.set_bypassed(s, True)
    for sources in ("initializers", "inputs"):
        model, feeds = export_with_feeds(g, sources=sources)
        onnx.checker.check_model(model, full_check=True)
        assert [n.op_type for n in model.graph.node] == ["Identity"]
        outputs = ort_run(model, feeds)
        assert_same(outputs["y"], np.arange(6, dtype=np.float32).reshape(2, 3))
        assert_same(outputs["y"], Engine(g).run().outputs["y"])


def test_a_bypassed_scatter_between_two_ops_keeps_the_chain_valid():
    g, s = _graph()
    # a second scatter reads the bypassed one; its output feeds the graph output
    idx = g.add_literal(np.array([[0]], np.int64), name="indices 2")
    upd = g.add_literal(np.full((1, 3), -1, np.float32), name="updates 2")
    t = g.add_operator("ScatterND", name="write row 0")
    g.disconnect(g.output_nodes()[0].id, "value")
    for port, src in (("data", s), ("indices", idx), ("updates", upd)):
        g.connect(src, "output", t, port)
    g.connect(t, "output", g.output_nodes()[0].id, "value")
    g.set_bypassed(s, True)
    model, feeds = export_with_feeds(g)
    onnx.checker.check_model(model, full_check=True)
    assert [n.op_type for n in model.graph.node] == ["Identity", "ScatterND"]
    expected = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected[0] = -1
    assert_same(ort_run(model, feeds)["y"], expected)
    assert_same(Engine(g).run().outputs["y"], expected)
