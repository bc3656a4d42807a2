"""The command line with awkward or bad input, as a demanding user meets it: every verb's
help, bad arguments, awkward paths (a folder, a name too long, not UTF-8, with spaces),
damaged graph files and sidecars, a graph with an error. Each failure must be one clear line
and a non-zero exit code, never a traceback. Expected values are worked out by hand in the
comments."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nodeeditor import cli
from nodeeditor.graph import Graph, save_graph
from nodeeditor.graph.fileformat import sidecar_path
from nodeeditor.graph.serialize import VERSION

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def run_cli(capsys, *argv):
    """(exit code, stdout, stderr) of ``indexflow ARGV`` run in this process."""
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(text):
    """The output holds no traceback and its error is a single line."""
    assert "Traceback" not in text
    errors = [line for line in text.splitlines() if "error" in line.lower()]
    assert errors, text
    return errors[0]


def gather_graph(rows=100, name="big"):
    """data = arange(rows*50) as float32 [rows, 50]; Gather rows [1, 0] -> output 'out'."""
    g = Graph(name=name)
    d = g.add_literal(np.arange(rows * 50, dtype=np.float32).reshape(rows, 50), name="data", node_id="data")
    i = g.add_literal(np.array([1, 0], dtype=np.int64), name="idx", node_id="idx")
    op = g.add_operator("Gather", {"axis": 0}, name="g", node_id="g")
    o = g.add_output("out", node_id="out")
    g.connect(d, "output", op, "data")
    g.connect(i, "output", op, "indices")
    g.connect(op, "output", o, "value")
    return g


# Row 1 then row 0 of arange(rows*50).reshape(rows, 50).
EXPECTED_OUT = np.stack([np.arange(50, 100), np.arange(0, 50)]).astype(np.float32)


# ------------------------------------------------------------------------- help and usage
@pytest.mark.parametrize("verb", ["run", "check", "examples", "export", "import"])
def test_every_verb_has_help(capsys, verb):
    code, out, _ = run_cli(capsys, verb, "--help")
    assert code == 0 and out.startswith(f"usage: indexflow {verb}")


@pytest.mark.parametrize("argv", [
    ["run", "a", "b"], ["export"], ["import"], ["import", "m.onnx"],
    ["export", "one_hot", "-o", "m.onnx", "--opset", "x"],
    ["run", "--engine", "gpu"], ["--bogus"], ["export", "one_hot", "-o", "m.onnx", "--sources", "both"],
])
def test_bad_arguments_are_usage_errors(capsys, argv):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and "error:" in err and "Traceback" not in err


def test_a_name_that_is_neither_file_nor_example_is_a_usage_error(capsys):
    code, _, err = run_cli(capsys, "run", "no_such_graph_anywhere")
    assert code == 2 and "no_such_graph_anywhere: no such file, and no bundled example" in one_line_error(err)


# ------------------------------------------------------------------------- bad paths
@pytest.mark.parametrize("verb", ["run", "check"])
def test_a_folder_is_refused_in_one_line(capsys, tmp_path, verb):
    code, _, err = run_cli(capsys, verb, str(tmp_path))
    assert code == 1 and "Is a directory" in one_line_error(err)


def test_export_of_a_folder_is_refused(capsys, tmp_path):
    code, _, err = run_cli(capsys, "export", str(tmp_path), "-o", str(tmp_path / "m.onnx"))
    assert code == 1 and "Is a directory" in one_line_error(err)


def test_import_of_a_folder_says_it_is_a_folder(capsys, tmp_path):
    # It used to say "no such file" for a folder that plainly exists.
    code, _, err = run_cli(capsys, "import", str(tmp_path), "-o", str(tmp_path / "g.ifg.json"))
    assert code == 1 and "is a folder" in one_line_error(err)


@pytest.mark.parametrize("argv", [
    ["run", "{long}"], ["check", "{long}"], ["run", "{long}/x.ifg.json"],
    ["export", "{long}", "-o", "m.onnx"], ["import", "{long}", "-o", "g.ifg.json"],
    ["export", "one_hot", "-o", "{long}.onnx"], ["run", "one_hot", "-o", "{long}.npz"],
])
def test_a_file_name_too_long_is_one_line_not_a_traceback(capsys, tmp_path, argv):
    # 300 characters: longer than any file system's name limit (255), so the system refuses
    # even to look; Path.exists() raised OSError (ENAMETOOLONG) through every verb.
    long = str(tmp_path / ("a" * 300))
    code, out, err = run_cli(capsys, *[a.format(long=long) for a in argv])
    assert code in (1, 2)
    assert "too long" in one_line_error(out + err).lower()


def test_paths_with_spaces_work_end_to_end(capsys, tmp_path):
    folder = tmp_path / "my graphs"
    folder.mkdir()
    graph = save_graph(gather_graph(), folder / "a graph.ifg.json")
    assert run_cli(capsys, "export", str(graph), "-o", str(folder / "a model.onnx"))[0] == 0
    assert run_cli(capsys, "import", str(folder / "a model.onnx"), "-o", str(folder / "back again.ifg.json"))[0] == 0
    code, out, _ = run_cli(capsys, "run", str(folder / "back again.ifg.json"), "-o", str(folder / "the result.npz"))
    assert code == 0
    with np.load(folder / "the result.npz") as archive:
        np.testing.assert_array_equal(archive["out"], EXPECTED_OUT)


NOT_UTF8 = os.fsdecode(b"n\xffme")  # a Linux file name that is not UTF-8, as Python sees it


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes only on Linux")
def test_non_utf8_names_through_export_import_run(capsys, tmp_path):
    graph = save_graph(gather_graph(rows=4), tmp_path / f"{NOT_UTF8} g.ifg.json")
    model, back = tmp_path / f"{NOT_UTF8}.onnx", tmp_path / f"{NOT_UTF8} back.ifg.json"
    assert run_cli(capsys, "export", str(graph), "-o", str(model))[0] == 0
    assert run_cli(capsys, "import", str(model), "-o", str(back))[0] == 0
    code, out, _ = run_cli(capsys, "run", str(back), "-o", str(tmp_path / f"{NOT_UTF8}.npz"))
    assert code == 0
    with np.load(tmp_path / f"{NOT_UTF8}.npz") as archive:
        np.testing.assert_array_equal(archive["out"], EXPECTED_OUT)


def _script(*argv, **env):
    """The installed entry point in a child process: (exit code, stdout, stderr)."""
    code = "import sys; from nodeeditor.cli import main; sys.argv[0] = 'indexflow'; sys.exit(main())"
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                          env={**os.environ, **env}, timeout=60)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes only on Linux")
def test_a_non_utf8_name_prints_on_a_strict_terminal(tmp_path):
    # A UTF-8 locale other than C.UTF-8 gives Python a strict stdout, which cannot print the
    # lone surrogate a non-UTF-8 file name decodes to: `indexflow run` crashed on its first line.
    graph = save_graph(gather_graph(rows=4), tmp_path / f"{NOT_UTF8}.ifg.json")
    code, out, err = _script("run", str(graph), PYTHONIOENCODING="utf-8:strict")
    assert code == 0, err
    assert "Traceback" not in err and "out: float32[2, 50]" in out


@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pipe")
def test_a_closed_pipe_ends_run_quietly(tmp_path):
    # `indexflow run BIG --print | head -1`: the reader goes away after one line.
    g = Graph(name="long")
    lit = g.add_literal(np.arange(20000.0).reshape(200, 100))
    out = g.add_output("o")
    g.connect(lit, "output", out, "value")
    graph = save_graph(g, tmp_path / "long.ifg.json")
    code = "import sys; from nodeeditor.cli import main; sys.exit(main())"
    proc = subprocess.Popen([sys.executable, "-c", code, "run", str(graph), "--print"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    proc.stderr.close()
    assert "Traceback" not in err and "BrokenPipeError" not in err
    assert proc.returncode != 0


# ------------------------------------------------------------------------- damaged files
@pytest.mark.parametrize("text, phrase", [
    ('{"format": "indexflow-graph", "version": ', "not valid JSON"),
    (f'{{"format": "indexflow-graph", "version": {VERSION + 1}, "nodes": []}}',
     f"newer IndexFlow (format version {VERSION + 1})"),
    ('{"format": "indexflow-graph", "version": "1"}', "must be an integer"),
    ('[1, 2]', "not an IndexFlow graph"),
    ('{"format": "something-else", "version": 1}', "not an IndexFlow graph"),
    ('{"format": "indexflow-graph", "version": 1, "nodes": [{"id": "a", "kind": "warp"}]}', "unknown kind 'warp'"),
    ('{"format": "indexflow-graph", "version": 1, "nodes": [{"id": "a", "kind": "literal", '
     '"value": {"dtype": "int8", "shape": [2], "data": [1, 300]}}]}', "a"),
])
@pytest.mark.parametrize("verb", ["run", "check", "export"])
def test_damaged_graph_files_are_refused_in_one_line(capsys, tmp_path, text, phrase, verb):
    path = tmp_path / "bad.ifg.json"
    path.write_text(text, encoding="utf-8")
    extra = ["-o", str(tmp_path / "m.onnx")] if verb == "export" else []
    code, _, err = run_cli(capsys, verb, str(path), *extra)
    line = one_line_error(err)
    assert code == 1 and str(path) in line and phrase in line


def test_binary_garbage_is_not_a_graph(capsys, tmp_path):
    path = tmp_path / "garbage.ifg.json"
    path.write_bytes(b"\xff\xfe\x00\x81 binary")
    code, _, err = run_cli(capsys, "run", str(path))
    assert code == 1 and "not a text file" in one_line_error(err)


def test_an_onnx_model_given_to_run_is_imported_and_run_and_a_broken_one_refused_in_one_line(capsys, tmp_path):
    assert run_cli(capsys, "export", "one_hot", "-o", str(tmp_path / "m.onnx"))[0] == 0
    code, out, _ = run_cli(capsys, "run", str(tmp_path / "m.onnx"))
    assert code == 0 and "one_hot: float32[4, 5]" in out
    (tmp_path / "broken.onnx").write_bytes(b"\x00\x01 not protobuf" * 4)
    code, _, err = run_cli(capsys, "run", str(tmp_path / "broken.onnx"))
    assert code == 1 and "broken.onnx" in one_line_error(err) and "not a readable ONNX model" in err


@pytest.fixture
def sidecar_graph(tmp_path):
    path = save_graph(gather_graph(), tmp_path / "big.ifg.json")
    assert sidecar_path(path).is_file()  # 5000 elements > the 4096 written inline
    return path


def test_the_sidecar_graph_runs(capsys, sidecar_graph, tmp_path):
    code, _, _ = run_cli(capsys, "run", str(sidecar_graph), "-o", str(tmp_path / "r.npz"))
    assert code == 0
    with np.load(tmp_path / "r.npz") as archive:
        np.testing.assert_array_equal(archive["out"], EXPECTED_OUT)


def _damage(side: Path, how: str) -> None:
    if how == "missing":
        side.unlink()
    elif how == "truncated":
        side.write_bytes(side.read_bytes()[:300])
    elif how == "garbage":
        side.write_bytes(b"garbage\n")
    elif how == "empty":
        side.write_bytes(b"")
    elif how == "folder":
        side.unlink()
        side.mkdir()
    elif how == "wrong array":
        np.savez(side, other=np.zeros(3))
    elif how == "wrong shape":
        with open(side, "wb") as fh:
            np.savez(fh, **{"data.value": np.zeros((2, 2), np.float32)})
    elif how == "pickled":
        with open(side, "wb") as fh:
            np.savez(fh, **{"data.value": np.array([object()] * 5000).reshape(100, 50)})


@pytest.mark.parametrize("how, phrase", [
    ("missing", "is missing"), ("truncated", "damaged or truncated"), ("garbage", "not a NumPy .npz archive"),
    ("empty", "empty"), ("folder", "not a file"), ("wrong array", "no array 'data.value'"),
    ("wrong shape", "shape [2, 2]"), ("pickled", "cannot be read"),
])
def test_a_damaged_sidecar_is_refused_in_one_line(capsys, sidecar_graph, how, phrase):
    _damage(sidecar_path(sidecar_graph), how)
    code, _, err = run_cli(capsys, "check", str(sidecar_graph))
    line = one_line_error(err)
    assert code == 1 and ("big.ifg.npz" in line or "data.value" in line) and phrase in line
    # Garbage used to be reported as numpy's "pickled data ... If you trust the file you can
    # load it unsafely", advice a user must never be given about a file.
    assert "unsafely" not in line and "trust" not in line


def test_run_and_check_exit_1_on_a_graph_error_and_still_print_the_good_output(capsys, tmp_path):
    g = gather_graph(rows=2)
    g.set_source_value("idx", np.array([5]))
    g.add_literal(np.array([0]), node_id="i0")
    g.add_operator("Gather", node_id="g2")
    g.connect("data", "output", "g2", "data")
    g.connect("i0", "output", "g2", "indices")
    g.add_output("fine", node_id="fine")
    g.connect("g2", "output", "fine", "value")
    path = save_graph(g, tmp_path / "half.ifg.json")
    code, out, _ = run_cli(capsys, "run", str(path), "-o", str(tmp_path / "r.npz"))
    assert code == 1 and "indices[0] = 5 is out of range" in out and "fine: float32[1, 50]" in out
    with np.load(tmp_path / "r.npz") as archive:
        assert archive.files == ["fine"]
        np.testing.assert_array_equal(archive["fine"], np.arange(50, dtype=np.float32)[None])
    assert run_cli(capsys, "check", str(path))[0] == 0  # the bad index is a value, not a static error
