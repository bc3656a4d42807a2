"""Exporting with the weights in a data file beside the model (ONNX external data): written
by `save_model(external_data=True)` and `indexflow export --external-data`, and on its own
when the weights do not fit one ONNX file (2 GB; the limit is lowered here so the tests stay
small). The model passes the checker by path, onnxruntime runs it from its folder with the
results of the model written in one file, an import reads it back, and a refused model
replaces nothing."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import numpy_helper

from nodeeditor.cli import main
from nodeeditor.graph import Engine, Graph, save_graph
from nodeeditor.onnx_io import ExportError, export_model, import_model, model_files, save_model
from nodeeditor.onnx_io import export as export_module
from nodeeditor.onnx_io.gradients import export_gradients_with_feeds, save_gradient_model

from .conftest import ort_run

ROWS, COLS = 1000, 64


def _table() -> np.ndarray:
    return np.random.default_rng(3).standard_normal((ROWS, COLS)).astype(np.float32)


def _graph(tables: int = 2) -> Graph:
    """Gathers from ``tables`` tables of 256 KB each, with a small index literal."""
    g = Graph("big", opset=18)
    g.add_literal(np.array([3, -1, 999, 0], np.int64), name="ids", node_id="ids")
    for k in range(tables):
        g.add_literal(_table() + k, name=f"table{k}", node_id=f"table{k}")
        g.add_operator("Gather", {}, name=f"look up {k}", node_id=f"gather{k}")
        g.connect(f"table{k}", "output", f"gather{k}", "data")
        g.connect("ids", "output", f"gather{k}", "indices")
        g.connect(f"gather{k}", "output", g.add_output(f"rows{k}"), "value")
    return g


def _ort_from_path(path) -> dict[str, np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return dict(zip([o.name for o in session.get_outputs()], session.run(None, {}), strict=True))


def test_the_weights_go_beside_the_model_and_onnxruntime_runs_it_as_the_one_file_model(tmp_path):
    g = _graph()
    target = tmp_path / "big.onnx"
    written = save_model(g, target, external_data=True)
    assert written == (target, tmp_path / "big.onnx.data")
    assert target.stat().st_size < 8_000                       # the 2 x 256 KB went to the data file
    assert written.data.stat().st_size >= 2 * ROWS * COLS * 4
    model = onnx.load(str(target), load_external_data=False)
    big = [t for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
    assert sorted(t.name for t in big) == ["table0", "table1"]
    for t in big:
        info = {e.key: e.value for e in t.external_data}
        assert info["location"] == "big.onnx.data" and int(info["offset"]) % model_files.ALIGNMENT == 0
    small = [t for t in model.graph.initializer if t.data_location != onnx.TensorProto.EXTERNAL]
    assert [t.name for t in small] == ["ids"]                  # small tensors stay in the model
    loaded = onnx.load(str(target))                            # the data read back from its folder
    np.testing.assert_array_equal(numpy_helper.to_array(
        next(t for t in loaded.graph.initializer if t.name == "table1")), _table() + 1)
    onnx.checker.check_model(str(target), full_check=True)
    expected = ort_run(export_model(g))                        # the model in one file
    got = _ort_from_path(target)
    assert sorted(got) == sorted(expected) == ["rows0", "rows1"]
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value)
    np.testing.assert_array_equal(got["rows1"], (_table() + 1)[[3, -1, 999, 0]])


def test_a_model_written_with_external_data_imports_and_runs_again(tmp_path):
    g = _graph(tables=1)
    target = tmp_path / "m.onnx"
    save_model(g, target, external_data=True)
    back = import_model(target)
    outputs = Engine(back).run().outputs
    np.testing.assert_array_equal(outputs["rows0"], _table()[[3, -1, 999, 0]])


def test_weights_too_big_for_one_file_go_to_a_data_file_without_being_asked(tmp_path, monkeypatch):
    """The 2 GB limit lowered to 300 KB: one 256 KB table stays in the file, two do not; the
    model kept in memory (export_model) is refused before a source is read, naming the way out."""
    monkeypatch.setattr(model_files, "MODEL_BYTES_LIMIT", 300_000)
    assert save_model(_graph(tables=1), tmp_path / "one.onnx").data is None
    assert not (tmp_path / "one.onnx.data").exists()
    written = save_model(_graph(tables=2), tmp_path / "two.onnx")
    assert written.data == tmp_path / "two.onnx.data" and written.data.stat().st_size > 500_000
    assert sorted(_ort_from_path(written.model)) == ["rows0", "rows1"]
    with pytest.raises(ExportError, match="more than one ONNX file holds.*--external-data.*--sources inputs"):
        export_model(_graph(tables=2))
    with pytest.raises(ExportError, match="more than one ONNX file holds"):
        save_model(_graph(tables=2), tmp_path / "refused.onnx", external_data=False)
    assert not (tmp_path / "refused.onnx").exists()


def test_a_model_with_only_small_tensors_writes_no_data_file(tmp_path):
    g = Graph("small", opset=18)
    g.add_literal(np.arange(6.0, dtype=np.float32).reshape(3, 2), name="d", node_id="d")
    g.add_literal(np.array([2, 0], np.int64), name="i", node_id="i")
    g.add_operator("Gather", {}, node_id="gather")
    g.connect("d", "output", "gather", "data")
    g.connect("i", "output", "gather", "indices")
    g.connect("gather", "output", g.add_output("o"), "value")
    written = save_model(g, tmp_path / "s.onnx", external_data=True)
    assert written.data is None and not (tmp_path / "s.onnx.data").exists()
    np.testing.assert_array_equal(_ort_from_path(written.model)["o"], [[4.0, 5.0], [0.0, 1.0]])


def test_a_model_refused_by_the_checker_replaces_neither_file(tmp_path, monkeypatch):
    target = tmp_path / "m.onnx"
    first = save_model(_graph(), target, external_data=True)
    before = (first.model.read_bytes(), first.data.read_bytes())

    def refuse(model, lenient_inference=False):
        raise ExportError("the ONNX checker refused the model: (test)")

    monkeypatch.setattr(export_module, "validate_model", refuse)
    with pytest.raises(ExportError, match="refused the model"):
        save_model(_graph(tables=1), target, external_data=True)   # another model, smaller
    assert (first.model.read_bytes(), first.data.read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "m.onnx.data"]   # no staging folder left


def test_the_gradient_export_writes_its_weights_beside_it_too(tmp_path):
    g = Graph("train", opset=18)
    g.add_literal(_table(), name="table", node_id="table")
    g.set_trainable("table", True)
    g.add_literal(np.array([[3, 5], [5, 7]], np.int64), name="ids", node_id="ids")
    g.add_operator("Gather", {}, node_id="gather")
    g.connect("table", "output", "gather", "data")
    g.connect("ids", "output", "gather", "indices")
    g.add_loss("mean_squared_error", node_id="loss")
    g.connect("gather", "output", "loss", "prediction")
    g.add_literal(np.zeros((2, 2, COLS), np.float32), name="target", node_id="target")
    g.connect("target", "output", "loss", "target")
    written = save_gradient_model(g, tmp_path / "grad.onnx", external_data=True)
    assert written.data is not None and written.model.stat().st_size < written.data.stat().st_size
    model, feeds = export_gradients_with_feeds(g)
    expected = ort_run(model, feeds)
    got = _ort_from_path(written.model)
    assert sorted(got) == sorted(expected)
    for name, value in expected.items():
        np.testing.assert_array_equal(got[name], value)


def test_indexflow_export_external_data(tmp_path, capsys):
    graph_file = tmp_path / "big.ifg.json"
    save_graph(_graph(tables=1), graph_file)
    target = tmp_path / "out.onnx"
    assert main(["export", str(graph_file), "-o", str(target), "--external-data"]) == 0
    out = capsys.readouterr().out
    assert f"wrote {target} and its weights {target}.data" in out and "onnx.checker: ok" in out
    np.testing.assert_array_equal(_ort_from_path(target)["rows0"], _table()[[3, -1, 999, 0]])
    assert main(["export", str(graph_file), "-o", str(tmp_path / "plain.onnx")]) == 0
    assert "its weights" not in capsys.readouterr().out and not (tmp_path / "plain.onnx.data").exists()


def test_a_failed_move_of_the_model_puts_the_old_data_back(tmp_path, monkeypatch):
    """The data file was moved in first with no way back: a model whose own move failed was
    left beside the new data (onnx.load: "offset exceeds file size", or wrong weights)."""
    import os

    target = tmp_path / "m.onnx"
    first = save_model(_graph(), target, external_data=True)
    before = (first.model.read_bytes(), first.data.read_bytes())
    real_replace = os.replace

    def refuse_the_model(src, dst):
        if str(dst) == str(target):
            raise PermissionError(13, "Permission denied", str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(model_files.os, "replace", refuse_the_model)
    with pytest.raises(ExportError, match=f"cannot write {target}: Permission denied"):
        save_model(_graph(tables=1), target, external_data=True)
    monkeypatch.undo()
    assert (first.model.read_bytes(), first.data.read_bytes()) == before
    assert sorted(_ort_from_path(target)) == ["rows0", "rows1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "m.onnx.data"]


def test_the_files_keep_the_permissions_of_those_they_replace(tmp_path):
    target = tmp_path / "m.onnx"
    first = save_model(_graph(), target, external_data=True)
    first.model.chmod(0o600)
    first.data.chmod(0o600)
    again = save_model(_graph(), target, external_data=True)
    assert (again.model.stat().st_mode & 0o777, again.data.stat().st_mode & 0o777) == (0o600, 0o600)


def test_the_data_file_another_model_of_the_graph_reads_is_never_replaced_or_removed(tmp_path):
    """Two models sharing one data file (an edited copy of a big model keeps the original's
    weights): a graph imported from the copy, exported over the original, deleted the shared
    data file or rewrote it (the copy then read missing or moved weights)."""
    import shutil

    from onnx import TensorProto, helper, numpy_helper

    table = _table()
    nodes = [helper.make_node("Gather", ["E", "ids"], ["rows"]), helper.make_node("Relu", ["rows"], ["out"])]
    graph = helper.make_graph(nodes, "copy", [], [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
                              initializer=[numpy_helper.from_array(table, "E"),
                                           numpy_helper.from_array(np.array([1, 3], np.int64), "ids")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.save_model(model, str(tmp_path / "model.onnx"), save_as_external_data=True,
                    location="model.onnx.data", size_threshold=1024)
    shutil.copy(tmp_path / "model.onnx", tmp_path / "model_relu.onnx")   # the copy reads the same data file
    shared = (tmp_path / "model.onnx.data").read_bytes()
    g = import_model(tmp_path / "model_relu.onnx", lazy_elements=1000)
    assert any(n.kind == "model_tensor" for n in g.nodes)
    with pytest.raises(ExportError, match=r"model.onnx.data is where model_relu.onnx, which this graph reads, "
                                          r"keeps its weights"):
        save_model(g, tmp_path / "model.onnx", external_data=True)
    save_model(g, tmp_path / "model.onnx")                         # in one file: the data file is left
    assert (tmp_path / "model.onnx.data").read_bytes() == shared
    np.testing.assert_array_equal(Engine(g).run().outputs["out"], np.maximum(table[[1, 3]], 0))
    with pytest.raises(ExportError, match="model_relu.onnx is a file this graph reads"):
        save_model(g, tmp_path / "model_relu.onnx")


@pytest.mark.parametrize("external", [False, True])
def test_a_link_as_the_target_is_kept_and_the_file_it_names_replaced(tmp_path, external):
    real = tmp_path / "real.onnx"
    save_model(_graph(tables=1), real)
    link = tmp_path / "link.onnx"
    link.symlink_to(real)
    written = save_model(_graph(), link, external_data=external)
    assert link.is_symlink() and written.model == real
    assert sorted(_ort_from_path(link)) == ["rows0", "rows1"]


def test_a_folder_where_the_data_file_goes_is_named(tmp_path, capsys):
    (tmp_path / "m.onnx.data").mkdir()
    with pytest.raises(ExportError, match=r"cannot write .*m\.onnx\.data: "):
        save_model(_graph(), tmp_path / "m.onnx", external_data=True)
    graph_file = tmp_path / "small.ifg.json"
    g = Graph("small", opset=18)
    g.add_literal(np.arange(4.0), name="d", node_id="d")
    g.connect(g.add_literal(np.arange(4.0), name="e"), "output", g.add_output("o"), "value")
    save_graph(g, graph_file)
    assert main(["export", str(graph_file), "-o", str(tmp_path / "small.onnx"), "--external-data"]) == 0
    assert "note: every weight is under 1 KB, so the model holds them all" in capsys.readouterr().err


def _model_keeping_w_in(folder, location: str) -> np.ndarray:
    """A.onnx in ``folder``, its MatMul weight W in the file ``location`` beside it."""
    from onnx import TensorProto, helper, numpy_helper

    w = np.random.default_rng(0).standard_normal((64, 80)).astype(np.float32)
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], "m",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 80])],
                              [numpy_helper.from_array(w, "W")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(folder / "A.onnx"),
              save_as_external_data=True, location=location, size_threshold=0)
    return w


def test_a_file_a_read_model_keeps_its_weights_in_is_never_written_over(tmp_path):
    """A keeps W in weights.onnx: exporting a model in one file to weights.onnx replaced it (A's W
    then failed its check); through a link to B.onnx, whose data file B.onnx.data is A's, the
    check looked beside the link and the write beside its target."""
    w = _model_keeping_w_in(tmp_path, "weights.onnx")
    g = import_model(tmp_path / "A.onnx")
    with pytest.raises(ExportError, match=r"weights.onnx is where A.onnx, which this graph reads, keeps its weights"):
        save_model(g, tmp_path / "weights.onnx")
    other = tmp_path / "other"
    other.mkdir()
    _model_keeping_w_in(other, "B.onnx.data")
    g = import_model(other / "A.onnx")
    (tmp_path / "link.onnx").symlink_to(other / "B.onnx")
    before = (other / "B.onnx.data").read_bytes()
    with pytest.raises(ExportError, match=r"B.onnx.data is where A.onnx, which this graph reads, keeps its weights"):
        save_model(g, tmp_path / "link.onnx", external_data=True)
    assert (other / "B.onnx.data").read_bytes() == before
    np.testing.assert_array_equal(numpy_helper.to_array(onnx.load(str(other / "A.onnx")).graph.initializer[0]), w)


def test_a_data_file_linked_to_another_file_system_is_replaced_there(tmp_path, monkeypatch):
    """The data file a link to another file system: the rename across them failed ("Invalid
    cross-device link", naming the temporary); the link is kept and the file it names replaced."""
    import errno
    import os

    target = tmp_path / "m.onnx"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    save_model(_graph(), target, external_data=True)
    (tmp_path / "m.onnx.data").rename(elsewhere / "m.onnx.data")
    (tmp_path / "m.onnx.data").symlink_to(elsewhere / "m.onnx.data")
    real_replace = os.replace

    def across(src, dst):   # a rename into the other folder crosses file systems
        if str(dst).startswith(str(elsewhere)) and not str(src).startswith(str(elsewhere)):
            raise OSError(errno.EXDEV, "Invalid cross-device link", str(src), None, str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(model_files.os, "replace", across)
    written = save_model(_graph(tables=1), target, external_data=True)
    monkeypatch.undo()
    assert (tmp_path / "m.onnx.data").is_symlink() and written.data == tmp_path / "m.onnx.data"
    assert sorted(_ort_from_path(target)) == ["rows0"]
    assert sorted(p.name for p in elsewhere.iterdir()) == ["m.onnx.data"]

