"""A Loss node in the forward export: written with standard ops when something reads it (its
value in onnxruntime is the engine's), left out when nothing does, and refused below opset 13."""
import numpy as np
import pytest

from nodeeditor.graph import Engine, Graph
from nodeeditor.onnx_io import ExportError
from nodeeditor.onnx_io.export import export_with_feeds

from .conftest import ort_run

RNG = np.random.default_rng(2)


def graph_with_loss(kind, dtype=np.float32, read=True, opset=18):
    g = Graph("l", opset=opset)
    g.add_literal(RNG.normal(size=(3, 4)).astype(dtype), name="prediction", node_id="p")
    g.add_loss(kind, name="my loss", node_id="loss")
    g.connect("p", "output", "loss", "prediction")
    if kind == "mean_squared_error":
        g.add_literal(RNG.normal(size=(3, 4)).astype(dtype), node_id="t")
        g.connect("t", "output", "loss", "target")
    elif kind == "softmax_cross_entropy":
        g.add_literal(np.array([3, 0, 2]), node_id="t")
        g.connect("t", "output", "loss", "target")
    g.add_output("pred_out", node_id="o1")
    g.connect("p", "output", "o1", "value")
    if read:
        g.add_output("loss_value", node_id="o2")
        g.connect("loss", "loss", "o2", "value")
    return g


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("kind", ["sum", "mean", "mean_squared_error", "softmax_cross_entropy"])
def test_a_loss_an_output_reads_is_written_and_onnxruntime_gives_the_engines_value(kind, dtype):
    g = graph_with_loss(kind, dtype)
    expected = Engine(g).run().outputs["loss_value"]
    model, feeds = export_with_feeds(g)
    got = ort_run(model, feeds)["loss_value"]
    assert got.dtype == expected.dtype and got.shape == ()
    np.testing.assert_allclose(got, expected, rtol=1e-3 if dtype == np.float16 else 1e-5)


def test_a_loss_nothing_reads_is_left_out_and_one_read_needs_opset_13():
    model, _ = export_with_feeds(graph_with_loss("mean", read=False))
    assert {n.op_type for n in model.graph.node} <= {"Identity"}
    g = graph_with_loss("mean", opset=12)
    with pytest.raises(ExportError, match="my loss .*needs opset 13") as info:
        export_with_feeds(g)
    assert info.value.suggested_opset == 13
    assert export_with_feeds(graph_with_loss("mean", read=False, opset=12))   # unread: no opset need
