"""`indexflow export` and `indexflow import` from the command line."""
import subprocess
import sys

import numpy as np
import onnx
import pytest

from nodeeditor import cli
from nodeeditor.cli import main
from nodeeditor.graph import Engine, Graph, load_example, load_graph, save_graph

from .conftest import ort_run


def test_export_writes_a_checked_model_that_runs_like_the_graph(tmp_path, capsys):
    target = tmp_path / "segment_sum.onnx"
    assert main(["export", "segment_sum", "-o", str(target)]) == 0
    model = onnx.load(str(target))
    onnx.checker.check_model(model, full_check=True)
    expected = Engine(load_example("segment_sum")).run().outputs
    got = ort_run(model)
    for name, value in expected.items():
        np.testing.assert_allclose(got[name], value, rtol=1e-6)
    assert "onnx.checker: ok" in capsys.readouterr().out


def test_export_at_a_too_low_opset_exits_1_and_names_the_fix(tmp_path, capsys):
    target = tmp_path / "m.onnx"
    assert main(["export", "scatterelements_examples", "-o", str(target), "--opset", "16"]) == 1
    err = capsys.readouterr().err
    assert "needs opset 18" in err and "--opset 18" in err
    assert not target.exists()


def test_export_sources_as_inputs(tmp_path):
    target = tmp_path / "m.onnx"
    assert main(["export", "one_hot", "-o", str(target), "--sources", "inputs"]) == 0
    model = onnx.load(str(target))
    assert not model.graph.initializer and len(model.graph.input) >= 2


def test_import_then_run_from_the_command_line(tmp_path, capsys):
    model_path, graph_path = tmp_path / "m.onnx", tmp_path / "m.ifg.json"
    assert main(["export", "scatternd13_examples", "-o", str(model_path)]) == 0
    assert main(["import", str(model_path), "-o", str(graph_path)]) == 0
    graph = load_graph(graph_path)
    expected = Engine(load_example("scatternd13_examples")).run().outputs
    got = Engine(graph).run().outputs
    assert set(got) == set(expected)
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name])


def test_import_of_a_bad_file_exits_1_with_the_reason(tmp_path, capsys):
    bad = tmp_path / "bad.onnx"
    bad.write_text("not a model")
    assert main(["import", str(bad), "-o", str(tmp_path / "x.ifg.json")]) == 1
    assert "bad.onnx" in capsys.readouterr().err
    assert not (tmp_path / "x.ifg.json").exists()


def test_export_usage_error_exits_2():
    completed = subprocess.run([sys.executable, "-m", "nodeeditor", "export", "one_hot"],
                               capture_output=True, text=True)
    assert completed.returncode == 2 and "--output" in completed.stderr


def test_run_with_the_onnxruntime_engine_gives_the_engine_outputs(tmp_path, capsys):
    ours, theirs = tmp_path / "ours.npz", tmp_path / "theirs.npz"
    assert main(["run", "kv_cache_write", "-o", str(ours)]) == 0
    assert main(["run", "kv_cache_write", "--engine", "onnxruntime", "-o", str(theirs)]) == 0
    assert "engine onnxruntime" in capsys.readouterr().out
    a, b = np.load(ours), np.load(theirs)
    assert sorted(a.files) == sorted(b.files) and a.files
    for name in a.files:
        np.testing.assert_array_equal(a[name], b[name])


def test_run_with_onnxruntime_missing_says_how_to_install_it(monkeypatch, capsys):
    import builtins

    real_import = builtins.__import__

    def no_onnxruntime(name, *args, **kwargs):
        if name == "onnxruntime" or name.startswith("onnxruntime."):
            raise ImportError("No module named 'onnxruntime'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_onnxruntime)
    assert main(["run", "one_hot", "--engine", "onnxruntime"]) == 2
    assert "pip install onnxruntime" in capsys.readouterr().err


def test_onnxruntime_failing_at_run_time_is_an_error_line_not_a_traceback(tmp_path, capsys):
    from nodeeditor.graph import Graph, save_graph

    g = Graph("bad example", opset=13)
    d = g.add_literal(np.arange(6.0).reshape(3, 2), name="d")
    i = g.add_input("idx", np.array([0, 9]))           # a graph input: export accepts it
    n = g.add_operator("Gather", name="gather")
    g.connect(d, "output", n, "data")
    g.connect(i, "output", n, "indices")
    g.connect(n, "output", g.add_output("o"), "value")
    path = tmp_path / "bad.ifg.json"
    save_graph(g, path)
    assert main(["run", str(path), "--engine", "onnxruntime"]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("indexflow: error: onnxruntime failed to run the model")
    assert "Traceback" not in captured.out + captured.err


def test_run_output_into_a_missing_folder_is_an_error_line(tmp_path, capsys):
    """A usage error before the run (it failed writing, after the run)."""
    assert main(["run", "one_hot", "--output", str(tmp_path / "no" / "such" / "x.npz")]) == 2
    assert f"indexflow: error: --output {tmp_path / 'no' / 'such' / 'x.npz'}: the folder " \
        f"{tmp_path / 'no' / 'such'} does not exist" in capsys.readouterr().err


def test_export_of_a_missing_graph_file_is_a_usage_error(tmp_path, capsys):
    assert main(["export", str(tmp_path / "missing.ifg.json"), "-o", str(tmp_path / "m.onnx")]) == 2
    assert "missing.ifg.json" in capsys.readouterr().err


def test_an_onnxruntime_failure_is_one_line(capfd, tmp_path):
    # The graph input's example index 5 is out of range for 2 rows; onnxruntime also wrote its
    # own coloured log line to stderr.
    g = Graph(name="inp")
    g.add_literal(np.arange(6, dtype=np.float32).reshape(2, 3), node_id="d")
    g.add_input("idx", np.array([5]), node_id="idx")
    g.add_operator("Gather", node_id="A")
    g.add_output("y", node_id="y")
    g.connect("d", "output", "A", "data")
    g.connect("idx", "output", "A", "indices")
    g.connect("A", "output", "y", "value")
    path = save_graph(g, tmp_path / "inp.ifg.json")
    assert cli.main(["run", str(path), "--engine", "onnxruntime"]) == 1
    out, err = capfd.readouterr()
    lines = [line for line in (out + err).splitlines() if "error" in line.lower() or "[E:" in line]
    assert len(lines) == 1 and "onnxruntime failed" in lines[0]
# ---------------------------------------------------------------------- any model (issue #13)
def _kv(tmp_path):
    from .realistic import kv_cache_inputs, kv_cache_model

    model_path = tmp_path / "kv.onnx"
    onnx.save(kv_cache_model(), model_path)
    inputs = kv_cache_inputs(batch=2, seq=3, position=1)
    np.savez(tmp_path / "in.npz", **inputs)
    return model_path, inputs


def _weights_model(folder):
    """A Gather on a 5000 x 2 table large enough to stay in its model when imported."""
    from onnx import TensorProto, helper, numpy_helper

    table = np.arange(10000, dtype=np.float32).reshape(5000, 2)
    graph = helper.make_graph([helper.make_node("Gather", ["table", "i"], ["y"], axis=0)], "m",
                              [helper.make_tensor_value_info("i", TensorProto.INT64, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])],
                              [numpy_helper.from_array(table, "table")])
    path = folder / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)
    return path


def test_export_never_writes_over_the_model_the_graph_reads_its_weights_from(tmp_path, capsys):
    """``import m.onnx -o g`` then ``export g -o m.onnx --sources inputs`` replaced the model
    with one without the table, and the graph could not run again."""
    model = _weights_model(tmp_path)
    before = model.read_bytes()
    assert main(["import", str(model), "-o", str(tmp_path / "g.ifg.json")]) == 0
    capsys.readouterr()
    assert main(["export", str(tmp_path / "g.ifg.json"), "-o", str(model), "--sources", "inputs"]) == 2
    assert "is a file the graph reads ('table')" in capsys.readouterr().err
    assert model.read_bytes() == before
    assert main(["run", str(tmp_path / "g.ifg.json")]) == 0


def test_import_to_a_link_writes_the_model_path_relative_to_where_the_link_points(tmp_path, capsys):
    """``-o LINK`` with the link into another folder: the graph is saved where the link points
    (the link kept), so its model path must be relative to that folder (it named ``m.onnx``
    beside the link, and ``run`` found no model)."""
    model = _weights_model(tmp_path)
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "g.ifg.json").write_text("{}")
    link = tmp_path / "g.ifg.json"
    link.symlink_to("repo/g.ifg.json")
    assert main(["import", str(model), "-o", str(link)]) == 0
    assert link.is_symlink() and '"path": "../m.onnx"' in (tmp_path / "repo" / "g.ifg.json").read_text()
    assert "outside the graph's folder" in capsys.readouterr().out   # the model is outside repo/
    assert main(["run", str(link), "--allow-outside-files"]) == 0, capsys.readouterr().err


def test_run_takes_a_model_and_inputs_by_name_and_both_engines_write_the_same_names(tmp_path, capsys):
    from .realistic import kv_cache_model

    model_path, inputs = _kv(tmp_path)
    expected = ort_run(kv_cache_model(), inputs)
    for engine, out in (("numpy", "a.npz"), ("onnxruntime", "b.npz")):
        code = main(["run", str(model_path), "--inputs", str(tmp_path / "in.npz"), "-o", str(tmp_path / out),
                     "--engine", engine])
        assert code == 0, capsys.readouterr()
        with np.load(tmp_path / out) as written:
            assert sorted(written.files) == ["scores", "updated cache"]   # names kept exactly
            for name in written.files:
                np.testing.assert_allclose(written[name], expected[name], rtol=1e-5, atol=1e-6)


def test_run_inputs_naming_no_graph_input_is_a_usage_error_listing_the_inputs(tmp_path, capsys):
    model_path, _ = _kv(tmp_path)
    np.savez(tmp_path / "bad.npz", keys=np.zeros(3))
    assert main(["run", str(model_path), "--inputs", str(tmp_path / "bad.npz")]) == 2
    err = capsys.readouterr().err
    assert "'keys' is not a graph input" in err and "'key cache'" in err
    assert main(["run", str(model_path), "--inputs", str(tmp_path / "missing.npz")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_run_inputs_sets_a_graph_files_inputs_and_notes_the_ones_it_leaves(tmp_path, capsys):
    model_path, inputs = _kv(tmp_path)
    graph_path = tmp_path / "kv.ifg.json"
    assert main(["import", str(model_path), "-o", str(graph_path)]) == 0
    partial = {k: v for k, v in inputs.items() if k != "position"}
    np.savez(tmp_path / "part.npz", **partial)
    capsys.readouterr()
    assert main(["run", str(graph_path), "--inputs", str(tmp_path / "part.npz")]) == 0
    assert "input 'position' is not in" in capsys.readouterr().out
    del partial["query"]   # its example's batch (1) then disagrees with the cache's (2): named on the input
    np.savez(tmp_path / "part.npz", **partial)
    assert main(["run", str(graph_path), "--inputs", str(tmp_path / "part.npz")]) == 1
    out = capsys.readouterr().out
    assert "error: query: named dimension 'batch' is 1 here" in out and "2 in input 'key cache'" in out


def test_inspect_lists_every_indexing_op_with_attributes_and_types(tmp_path, capsys):
    model_path, _ = _kv(tmp_path)
    assert main(["inspect", str(model_path)]) == 0
    out = capsys.readouterr().out
    assert "opsets: ai.onnx 18" in out and "4 indexing op(s)" in out
    assert "ScatterND 'write keys' (reduction='none')" in out
    assert "  data: float32[batch, 2, 8, 4] from 'key cache' (input)" in out
    assert "  indices: int64[?, ?, ?, ?] from 'write indices' (Concat)" in out
    assert "  output: float32[batch, 2, 8, 4]" in out
    assert "Gather 'seq len' (axis=0)" in out
    assert main(["inspect", str(tmp_path / "nope.onnx")]) == 2


def test_inspect_counts_the_indexing_ops_inside_if_and_loop_bodies(tmp_path, capsys):
    """A Loop whose body scatters, inside an If's branch: "no indexing op" was all it said."""
    from onnx import TensorProto, helper, numpy_helper

    def info(name, shape, elem=TensorProto.FLOAT):
        return helper.make_tensor_value_info(name, elem, shape)

    body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("ScatterElements", ["acc", "ids", "ups"], ["acc_out"], reduction="add"),
         helper.make_node("Gather", ["acc_out", "ids"], ["unused"])],
        "body", [info("i", [], TensorProto.INT64), info("cond", [], TensorProto.BOOL), info("acc", [3])],
        [info("cond_out", [], TensorProto.BOOL), info("acc_out", [3])])
    then = helper.make_graph([helper.make_node("Loop", ["n", "", "x"], ["looped"], body=body)], "then", [],
                             [info("looped", [3])])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["same"])], "else", [], [info("same", [3])])
    model = helper.make_model(helper.make_graph(
        [helper.make_node("If", ["flag"], ["y"], name="choose", then_branch=then, else_branch=other)], "nested",
        [info("flag", [], TensorProto.BOOL), info("n", [], TensorProto.INT64), info("x", [3])], [info("y", [3])],
        [numpy_helper.from_array(np.array([0, 2], np.int64), "ids"),
         numpy_helper.from_array(np.ones(2, np.float32), "ups")]),
        opset_imports=[helper.make_opsetid("", 18)])
    onnx.save(model, tmp_path / "nested.onnx")
    assert main(["inspect", str(tmp_path / "nested.onnx")]) == 0
    out = capsys.readouterr().out
    assert "no indexing op in the main graph" in out
    assert "inside choose (If): Gather x1, ScatterElements x1 (in its subgraphs" in out


def test_import_of_any_model_writes_a_graph_that_runs(tmp_path, capsys):
    from .realistic import embedding_inputs, embedding_model

    model_path = tmp_path / "emb.onnx"
    onnx.save(embedding_model(), model_path)
    assert main(["import", str(model_path), "-o", str(tmp_path / "emb.ifg.json")]) == 0
    graph = load_graph(tmp_path / "emb.ifg.json")
    feeds = embedding_inputs()
    graph.set_source(graph.find("token ids").id, example=feeds["token ids"])
    np.testing.assert_allclose(Engine(graph).run().outputs["class probabilities"],
                               ort_run(embedding_model(), feeds)["class probabilities"], rtol=1e-5)


def test_import_into_another_folder_says_the_graph_reads_the_model_from_outside(tmp_path, capsys):
    """A large initializer stays in the model; a graph written in another folder reads it from
    outside its own, which run allows only with --allow-outside-files: import says so."""
    (tmp_path / "models").mkdir()
    (tmp_path / "graphs").mkdir()
    model = tmp_path / "models" / "m.onnx"
    onnx.save(_gather_model((100, 50), None, index=[3, 0]), model)   # 5,000 elements: kept in the model
    assert main(["import", str(model), "-o", str(tmp_path / "graphs" / "g")]) == 0
    out = capsys.readouterr().out
    assert "note: 1 tensor(s) stay in ../models/m.onnx, outside the graph's folder" in out
    assert "--allow-outside-files" in out
    assert main(["run", str(tmp_path / "graphs" / "g.ifg.json")]) == 1
    assert main(["run", str(tmp_path / "graphs" / "g.ifg.json"), "--allow-outside-files"]) == 0
    assert main(["import", str(model), "-o", str(tmp_path / "models" / "beside")]) == 0
    assert "note:" not in capsys.readouterr().out


def _gather_model(data_shape, index_shape, index=None):
    """Gather axis 0 of float32 ``data`` by int64 ``i``: graph inputs of those shapes, or, with
    ``index``, both initializers (no inputs)."""
    from onnx import TensorProto, helper, numpy_helper

    node = helper.make_node("Gather", ["d", "i"], ["o"], axis=0)
    out = helper.make_tensor_value_info("o", TensorProto.FLOAT, None)
    if index is None:
        ins = [helper.make_tensor_value_info("d", TensorProto.FLOAT, list(data_shape)),
               helper.make_tensor_value_info("i", TensorProto.INT64, list(index_shape))]
        graph = helper.make_graph([node], "m", ins, [out])
    else:
        inits = [numpy_helper.from_array(np.arange(np.prod(data_shape), dtype=np.float32).reshape(data_shape), "d"),
                 numpy_helper.from_array(np.asarray(index, np.int64), "i")]
        graph = helper.make_graph([node], "m", [], [out], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_run_output_writes_a_scalar_output_as_a_scalar(tmp_path, capsys):
    """A Gather by a scalar index gives a 0-d output: ``run -o`` writes shape (), as onnxruntime
    gives it, with either engine (the archive writer made it shape (1,))."""
    model = _gather_model((3,), (), index=-1)
    onnx.save(model, tmp_path / "scalar.onnx")
    expected = ort_run(model)["o"]
    assert expected.shape == ()
    for engine in ("numpy", "onnxruntime"):
        out = tmp_path / f"{engine}.npz"
        code = main(["run", str(tmp_path / "scalar.onnx"), "-o", str(out), "--engine", engine])
        assert code == 0, capsys.readouterr()
        with np.load(out) as written:
            assert written["o"].shape == () and written["o"].dtype == expected.dtype
            assert written["o"] == expected


def test_run_inputs_of_another_dtype_rank_or_size_than_the_inputs_type_are_usage_errors(tmp_path, capsys):
    """``--inputs`` with an array whose rank, dtype or fixed size is not the input's (int64[2, 3]
    fed a vector, float32[3, 4] fed float64 or [5, 4]): exit 2 naming the input's type and the
    array's, with either engine, as onnxruntime refuses them (they ran: the float64 one gave
    float64 outputs, the [5, 4] one a [5, 4]-based output)."""
    import onnxruntime as ort

    model = _gather_model((3, 4), (2, 3))
    onnx.save(model, tmp_path / "m.onnx")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    cases = {"rank": ({"d": np.ones((3, 4), np.float32), "i": np.zeros(6, np.int64)},
                      "input 'i' is int64[2, 3]; the array is int64[6]"),
             "dtype": ({"d": np.ones((3, 4), np.float64), "i": np.zeros((2, 3), np.int64)},
                       "input 'd' is float32[3, 4]; the array is float64[3, 4]"),
             "size": ({"d": np.ones((5, 4), np.float32), "i": np.zeros((2, 3), np.int64)},
                      "input 'd' is float32[3, 4]; the array is float32[5, 4]")}
    for name, (arrays, message) in cases.items():
        with pytest.raises(Exception, match="(?i)invalid rank|unexpected input data type|invalid dimensions"):
            session.run(None, arrays)
        np.savez(tmp_path / f"{name}.npz", **arrays)
        for engine in ("numpy", "onnxruntime"):
            assert main(["run", str(tmp_path / "m.onnx"), "--inputs", str(tmp_path / f"{name}.npz"),
                         "--engine", engine]) == 2
            assert message in capsys.readouterr().err
    np.savez(tmp_path / "good.npz", d=np.ones((3, 4), np.float32), i=np.zeros((2, 3), np.int64))
    assert main(["run", str(tmp_path / "m.onnx"), "--inputs", str(tmp_path / "good.npz")]) == 0


def test_run_inputs_big_endian_is_its_native_type_and_other_files_are_named(tmp_path, capsys):
    """A big-endian float32 array is float32 (ops/CONTRACT.md; the refusal read "input 'd' is
    float32[3, 4]; the array is float32[3, 4]"); a single .npy or a text file is said to be
    that, not in numpy's words about pickles or context managers."""
    model = _gather_model((3, 4), (2, 3))
    onnx.save(model, tmp_path / "m.onnx")
    data = np.arange(12, dtype=">f4").reshape(3, 4)
    indices = np.array([[0, 2, 1], [2, 2, 0]], np.int64)
    np.savez(tmp_path / "big.npz", d=data, i=indices)
    out = tmp_path / "out.npz"
    assert main(["run", str(tmp_path / "m.onnx"), "--inputs", str(tmp_path / "big.npz"), "-o", str(out)]) == 0
    with np.load(out) as got:
        (value,) = got.values()
    (want,) = ort_run(model, {"d": data.astype("<f4"), "i": indices}).values()
    np.testing.assert_array_equal(value, want)
    np.save(tmp_path / "one.npy", data)
    (tmp_path / "text.npz").write_text("d,1,2,3\n")
    for name, message in (("one.npy", "a single .npy array, not an .npz archive of named inputs"),
                          ("text.npz", "not an .npz archive (a zip of named arrays")):
        assert main(["run", str(tmp_path / "m.onnx"), "--inputs", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert message in err and "pickle" not in err and "context manager" not in err


def test_import_and_export_never_write_over_what_they_read_and_add_their_suffix(tmp_path, capsys):
    """``-o`` naming the file being read (``import m.onnx -o m.onnx`` wrote graph JSON over the
    model, whose weights the graph referred to) is refused, exit 2, the file intact; a name
    without the output's suffix gets it (``.onnx``, ``.ifg.json``); a folder and an opset
    outside what IndexFlow writes are usage errors (exit 2)."""
    model_path, _ = _kv(tmp_path)
    model_bytes = model_path.read_bytes()
    disguised = tmp_path / "model.ifg.json"     # a model under a graph file's name
    disguised.write_bytes(model_bytes)
    assert main(["import", str(disguised), "-o", str(disguised)]) == 2
    assert "is the model being imported" in capsys.readouterr().err
    assert disguised.read_bytes() == model_bytes
    assert main(["import", str(model_path), "-o", str(tmp_path / "kv")]) == 0
    graph_path = tmp_path / "kv.ifg.json"
    assert graph_path.is_file() and model_path.read_bytes() == model_bytes
    graph_bytes = graph_path.read_bytes()
    assert main(["export", str(graph_path), "-o", str(tmp_path / "again")]) == 0
    assert onnx.load(tmp_path / "again.onnx").graph.node and graph_path.read_bytes() == graph_bytes
    onnx_named = tmp_path / "g.onnx"            # a graph file under a model's name
    onnx_named.write_bytes(graph_bytes)
    assert main(["export", str(onnx_named), "-o", str(onnx_named)]) == 2
    assert "is the graph file being exported" in capsys.readouterr().err
    assert onnx_named.read_bytes() == graph_bytes
    for command in (["import", str(model_path), "-o", str(tmp_path)],
                    ["export", str(graph_path), "-o", str(tmp_path) + "/"],
                    ["export", str(graph_path), "-o", str(tmp_path / "x.onnx"), "--opset", "0"],
                    ["export", str(graph_path), "-o", str(tmp_path / "x.onnx"), "--opset", "99"]):
        assert main(command) == 2, command
        assert "error: " in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()


def test_both_engines_write_an_output_that_is_also_an_input_under_its_own_name(tmp_path, capsys):
    """A model whose outputs include a graph input ('a') and an initializer ('c') as they are:
    ``run -o`` writes 'a', 'c' and 'g' with either engine, the values onnxruntime gives for
    the model itself (the onnxruntime engine wrote 'a_2', the name the export had to give it)."""
    from onnx import TensorProto, helper, numpy_helper

    value = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node("Gather", ["a", "i"], ["g"], axis=0)], "m",
        [value("a", TensorProto.FLOAT, [3, 2]), value("i", TensorProto.INT64, [2])],
        [value("a", TensorProto.FLOAT, [3, 2]), value("g", TensorProto.FLOAT, [2, 2]),
         value("c", TensorProto.FLOAT, [2])],
        initializer=[numpy_helper.from_array(np.array([1.5, 2.5], np.float32), "c")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, tmp_path / "m.onnx")
    feeds = {"a": np.arange(6, dtype=np.float32).reshape(3, 2), "i": np.array([-1, 0], np.int64)}
    np.savez(tmp_path / "in.npz", **feeds)
    expected = ort_run(model, feeds)
    for engine in ("numpy", "onnxruntime"):
        out = tmp_path / f"{engine}.npz"
        code = main(["run", str(tmp_path / "m.onnx"), "--inputs", str(tmp_path / "in.npz"), "-o", str(out),
                     "--engine", engine])
        assert code == 0, capsys.readouterr()
        with np.load(out) as written:
            assert sorted(written.files) == ["a", "c", "g"], engine
            for name in written.files:
                np.testing.assert_array_equal(written[name], expected[name])


def test_inspect_lists_an_input_with_a_default(tmp_path, capsys):
    """An initializer also listed as a graph input (an input with a default) was left out,
    though `run --inputs` feeds it."""
    from onnx import TensorProto, helper, numpy_helper

    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["z"])], "m8",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [3])],
                              initializer=[numpy_helper.from_array(np.array([1, -2, 3], np.float32), "x")])
    path = tmp_path / "m8.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    assert main(["inspect", str(path)]) == 0
    out = capsys.readouterr().out
    assert "input 'x': float32[3] (a default)" in out and "output 'z': float32[3]" in out
