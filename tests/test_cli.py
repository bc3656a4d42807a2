"""The indexflow command: run, check, examples, lessons, exit codes, the editor entry, plugins."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from nodeeditor import cli
from nodeeditor.graph import Graph, save_graph

ROOT = Path(__file__).resolve().parents[1]


def broken_graph(tmp_path):
    """One good branch and one Gather whose index 9 is out of range for 3 rows."""
    g = Graph(name="broken")
    g.add_literal(np.array([10, 20, 30], np.int64), node_id="data")
    g.add_literal(np.array([9], np.int64), node_id="bad_idx")
    g.add_literal(np.array([2, 0], np.int64), node_id="good_idx")
    g.add_operator("Gather", name="bad gather", node_id="bad")
    g.add_operator("Gather", node_id="good")
    g.add_output("bad_out", node_id="bad_out")
    g.add_output("good_out", node_id="good_out")
    for op, idx, out in (("bad", "bad_idx", "bad_out"), ("good", "good_idx", "good_out")):
        g.connect("data", "output", op, "data")
        g.connect(idx, "output", op, "indices")
        g.connect(op, "output", out, "value")
    return save_graph(g, tmp_path / "broken.ifg.json")


def test_run_prints_types_and_values_and_writes_npz(tmp_path, capsys):
    out = tmp_path / "out.npz"
    assert cli.main(["run", "gather11_examples", "--output", str(out)]) == 0
    text = capsys.readouterr().out
    assert "axis0: float32[2, 2, 2]" in text and "axis1: float32[3, 1, 2]" in text
    assert "5.9" in text  # small outputs are printed
    with np.load(out) as archive:
        assert sorted(archive.files) == ["axis0", "axis1"]
        # Gather-11 seed page, axis = 1
        np.testing.assert_allclose(archive["axis1"], [[[1.0, 1.9]], [[2.3, 3.9]], [[4.5, 5.9]]], rtol=1e-6)


def test_run_without_graph_uses_the_default_example(capsys):
    assert cli.main(["run"]) == 0
    assert "embeddings: float32[2, 3, 4]" in capsys.readouterr().out


def test_run_reports_errors_with_the_node_and_exits_1(tmp_path, capsys):
    path = broken_graph(tmp_path)
    out = tmp_path / "partial.npz"
    assert cli.main(["run", str(path), "-o", str(out)]) == 1
    text = capsys.readouterr().out
    assert "error: bad gather [bad]:" in text and "9" in text
    assert "good_out: int64[2]" in text
    with np.load(out) as archive:
        assert archive.files == ["good_out"]
        assert archive["good_out"].tolist() == [30, 10]


def test_large_outputs_are_summarised_unless_print(tmp_path, capsys):
    g = Graph()
    g.add_generator("arange", {"start": 0, "stop": 1000}, node_id="a")
    g.add_output("big", node_id="o")
    g.connect("a", "output", "o", "value")
    path = save_graph(g, tmp_path / "big.ifg.json")
    assert cli.main(["run", str(path)]) == 0
    assert "999" not in capsys.readouterr().out
    assert cli.main(["run", str(path), "--print"]) == 0
    text = capsys.readouterr().out
    assert "999" in text and "..." not in text


def test_check_prints_types_and_errors_without_running(tmp_path, capsys, monkeypatch):
    import ops
    monkeypatch.setattr(ops, "run_op", lambda *a, **k: pytest.fail("check must not run kernels"))
    assert cli.main(["check", "one_hot"]) == 0
    text = capsys.readouterr().out
    assert "float32[4, 5]" in text and text.rstrip().endswith("ok")
    g = Graph(opset=18)
    g.add_operator("Scatter", node_id="old")
    path = save_graph(g, tmp_path / "old.ifg.json")
    assert cli.main(["check", str(path)]) == 1
    text = capsys.readouterr().out
    assert "old" in text and "error: Scatter does not exist at opset 18" in text


def test_examples_lists_every_bundled_example(capsys):
    assert cli.main(["examples"]) == 0
    text = capsys.readouterr().out
    for name in ("embedding_lookup", "one_hot", "segment_sum", "topk_mask", "kv_cache_write",
                 "batched_row_gather", "scatter9_examples", "tensorscatter_examples"):
        assert name in text
    assert "* embedding_lookup" in text


def test_lessons_lists_every_lesson_with_its_op(capsys):
    assert cli.main(["lessons"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["gather-axis0", "Gather"]
    assert any(line.split()[:4] == ["scatterelements-mul", "ScatterElements,", "reduction", "mul"] for line in lines)
    assert lines[-1].startswith("(19 lessons;")


def test_lessons_id_prints_the_lesson(capsys):
    assert cli.main(["lessons", "scatter9-axis0"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Scatter (opset 9), axis 0: write into rows\nScatter: node ex1_op of scatter9_examples")
    assert "What it does:" in text and "Common mistake:" in text
    assert "  output[indices[i, j], j] = updates[i, j]" in text
    assert cli.main(["lessons", "scatter9-axis"]) == 2
    assert "did you mean scatter9-axis0 or scatter9-axis1?" in capsys.readouterr().err


def test_a_bad_lesson_file_is_listed_as_an_error_and_exits_1(tmp_path, capsys, monkeypatch):
    from nodeeditor.teaching import lessons

    (tmp_path / "x.toml").write_text('id = "x"\ntitle = "X"\n', encoding="utf-8")
    monkeypatch.setattr(lessons, "LESSONS_DIR", tmp_path)
    assert cli.main(["lessons"]) == 1
    assert f"error: {tmp_path / 'x.toml'}: op: missing" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["run", "--bogus"], ["run", "no/such/file.ifg.json"], ["no-such-command", "x"]])
def test_usage_errors_exit_2(argv, capsys):
    assert cli.main(argv) == 2


def test_corrupt_file_exits_1_with_a_message_naming_it(tmp_path, capsys):
    path = tmp_path / "corrupt.ifg.json"
    path.write_text("{")
    assert cli.main(["run", str(path)]) == 1
    err = capsys.readouterr().err
    assert str(path) in err and "not valid JSON" in err and "Traceback" not in err


def test_help_exits_0(capsys):
    assert cli.main(["--help"]) == 0
    assert "run" in capsys.readouterr().out


def test_no_arguments_and_a_file_open_the_editor(monkeypatch):
    opened = []
    monkeypatch.setattr(cli, "_open_editor", lambda path: opened.append(path) or 0)
    assert cli.main([]) == 0
    assert cli.main(["some.ifg.json"]) == 0
    assert opened == [None, "some.ifg.json"]


def test_editor_falls_back_to_running_when_the_ui_is_missing(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "nodeeditor.ui.app", None)  # makes the import fail
    assert cli._open_editor(None) == 0
    captured = capsys.readouterr()
    assert "not available" in captured.err
    assert "embeddings: float32[2, 3, 4]" in captured.out


def test_editor_uses_run_app_when_present(monkeypatch):
    import types
    fake = types.ModuleType("nodeeditor.ui.app")
    fake.run_app = lambda path: 7 if path == "x.ifg.json" else 0
    monkeypatch.setitem(sys.modules, "nodeeditor.ui.app", fake)
    assert cli._open_editor("x.ifg.json") == 7


def test_subcommands_can_be_registered_from_other_modules(monkeypatch, capsys):
    monkeypatch.setattr(cli, "SUBCOMMANDS", list(cli.SUBCOMMANDS))

    def register(sub):
        p = sub.add_parser("frobnicate", help="a test subcommand")
        p.add_argument("graph")
        p.set_defaults(handler=lambda args: print(f"frobnicating {args.graph}") or 0)

    cli.register_subcommand("frobnicate", register)
    assert cli.main(["frobnicate", "g.ifg.json"]) == 0
    assert "frobnicating g.ifg.json" in capsys.readouterr().out
    with pytest.raises(ValueError):
        cli.register_subcommand("frobnicate", register)


def test_console_script_in_a_subprocess(tmp_path):
    out = tmp_path / "o.npz"
    proc = subprocess.run([sys.executable, "-m", "nodeeditor", "run", "scatternd13_examples", "--output", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "example1: int64[8]" in proc.stdout
    with np.load(out) as archive:
        # ScatterND-13 seed page, Example 1
        assert archive["example1"].tolist() == [1, 11, 3, 10, 9, 6, 7, 12]
    bad = subprocess.run([sys.executable, "-m", "nodeeditor", "check", str(tmp_path / "missing.ifg.json")],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_progress_is_shown_on_a_terminal_only():
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    tty = Terminal()
    progress = cli.TerminalProgress(tty, delay=0)
    progress(1, 3, "gather1")
    progress.finish()
    assert "[1/3] gather1" in tty.getvalue() and tty.getvalue().endswith("\r")
    pipe = io.StringIO()
    progress = cli.TerminalProgress(pipe, delay=0)
    progress(1, 3, "gather1")
    progress.finish()
    assert pipe.getvalue() == ""


def test_outputs_sharing_a_name_are_an_error_for_check_and_run(tmp_path, capsys):
    g = Graph()
    g.add_literal(np.array([1]), node_id="a")
    g.add_output("y", node_id="y1")
    g.add_output("y", node_id="y2")
    g.connect("a", "output", "y1", "value")
    g.connect("a", "output", "y2", "value")
    path = save_graph(g, tmp_path / "clash.ifg.json")
    assert cli.main(["check", str(path)]) == 1
    assert "error: 2 outputs are called 'y' (y1, y2)" in capsys.readouterr().out
    # run writes outputs by name: it refuses too (it wrote one value, dropped the other, exit 0)
    out = tmp_path / "out.npz"
    assert cli.main(["run", str(path), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("indexflow: error: 2 outputs are called 'y' (y1, y2); rename all but one")
    assert not out.exists()


def test_inputs_sharing_a_name_run_but_cannot_be_fed_by_name(tmp_path, capsys):
    """Two graph inputs of one name run (their outputs are apart); ``--inputs`` refuses them,
    since it feeds by name (the last one took both)."""
    g = Graph()
    g.add_input("x", np.array([1.0], np.float32), node_id="x1")
    g.add_input("x", np.array([2.0], np.float32), node_id="x2")
    g.add_output("a", node_id="a")
    g.add_output("b", node_id="b")
    g.connect("x1", "output", "a", "value")
    g.connect("x2", "output", "b", "value")
    path = save_graph(g, tmp_path / "clash.ifg.json")
    assert cli.main(["run", str(path)]) == 0
    capsys.readouterr()
    np.savez(tmp_path / "in.npz", x=np.array([5.0], np.float32))
    assert cli.main(["run", str(path), "--inputs", str(tmp_path / "in.npz")]) == 2
    assert "2 inputs are called 'x' (x1, x2); the archive's arrays are fed by name" in capsys.readouterr().err


def test_check_warns_about_duplicate_scatter_targets_fed_by_sources(tmp_path, capsys):
    g = Graph()
    g.add_literal(np.zeros(4, np.float32), node_id="d")
    g.add_literal(np.array([[2], [2], [0]], np.int64), node_id="i")  # cell 2 is written twice
    g.add_literal(np.array([1.0, 2.0, 3.0], np.float32), node_id="u")
    g.add_operator("ScatterND", node_id="s")
    for port, src in (("data", "d"), ("indices", "i"), ("updates", "u")):
        g.connect(src, "output", "s", port)
    path = save_graph(g, tmp_path / "dup.ifg.json")
    assert cli.main(["check", str(path)]) == 0
    assert "warning: s: 1 target cell(s) are written more than once" in capsys.readouterr().out


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("indexflow ")


def test_without_a_display_the_editor_explains_instead_of_aborting(monkeypatch, capsys):
    import nodeeditor.cli as cli

    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(cli.sys, "platform", "linux")
    assert cli._open_editor(None) == 2
    assert "no display found" in capsys.readouterr().err


def test_a_mistyped_example_name_gets_a_suggestion(capsys):
    from nodeeditor.cli import main

    assert main(["run", "scatterelements"]) == 2
    assert "did you mean scatterelements_examples?" in capsys.readouterr().err
    assert main(["run", "zzz"]) == 2
    assert "indexflow examples lists them" in capsys.readouterr().err


@pytest.mark.parametrize("how", ["existing folder", "trailing slash"])
def test_run_refuses_a_folder_as_the_output(tmp_path, capsys, how):
    # np.savez(folder) used to write folder.npz beside the folder and report success
    if how == "existing folder":
        target = tmp_path / "results"
        target.mkdir()
        arg = str(target)
    else:
        arg = str(tmp_path / "results") + "/"
    assert cli.main(["run", "gather11_examples", "-o", arg]) == 2   # a usage error (README: exit codes)
    out, err = capsys.readouterr()
    errors = [line for line in (out + err).splitlines() if "error" in line]
    assert len(errors) == 1 and "folder" in errors[0] and "results" in errors[0], out + err
    assert "Traceback" not in out + err
    assert sorted(p.name for p in tmp_path.iterdir()) == (["results"] if how == "existing folder" else [])


@pytest.mark.parametrize("given, written", [("out", "out.npz"), ("out.npz", "out.npz"),
                                            ("out.txt", "out.txt.npz")])
def test_run_output_without_npz_gets_it_and_says_so(tmp_path, capsys, given, written):
    assert cli.main(["run", "gather11_examples", "-o", str(tmp_path / given)]) == 0
    text = capsys.readouterr().out
    assert f"wrote 2 output(s) to {tmp_path / written}" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == [written]
    with np.load(tmp_path / written) as archive:
        assert sorted(archive.files) == ["axis0", "axis1"]


def test_run_help_says_what_output_names_become(capsys):
    assert cli.main(["run", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert ".npz is added" in text and "folder is refused" in text, text


def test_an_inputs_file_that_cannot_be_opened_is_a_usage_error(tmp_path, capsys, monkeypatch):
    """The check of what the file is read it before the guarded load: a PermissionError went
    through as a traceback."""
    g = Graph()
    g.add_input("x", np.array([1.0], np.float32), node_id="x")
    g.connect("x", "output", g.add_output("y", node_id="y"), "value")
    path = save_graph(g, tmp_path / "g.ifg.json")
    archive = tmp_path / "in.npz"
    np.savez(archive, x=np.array([5.0], np.float32))

    def refused(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cli, "open", refused, raising=False)
    assert cli.main(["run", str(path), "--inputs", str(archive)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"indexflow: error: --inputs {archive}: cannot read it (Permission denied)")
