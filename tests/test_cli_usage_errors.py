"""A usage error found by the argument parser starts, as every message that stops a command,
with `indexflow: error:` on its first line (argparse printed the usage first)."""
from __future__ import annotations

import pytest

from nodeeditor.cli import main


@pytest.mark.parametrize("argv, says", [
    (["run", "embedding_lookup", "--engine", "onnx"], "run: argument --engine: invalid choice: 'onnx'"),
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["train", "train_embedding"], "train: the following arguments are required: --steps"),
])
def test_the_first_line_is_the_error(argv, says, capsys):
    assert main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("indexflow: error: ") and says in lines[0], lines
    assert lines[1].startswith("usage: indexflow")


@pytest.mark.parametrize("word, command", [("exmaples", "examples"), ("lesons", "lessons"), ("exprot", "export")])
def test_a_mistyped_command_is_named_not_opened_as_a_file(word, command, tmp_path, monkeypatch, capsys):
    """`indexflow exmaples` tried to open a graph file of that name (with a display, an error
    box in the editor)."""
    monkeypatch.chdir(tmp_path)
    assert main([word]) == 2
    assert capsys.readouterr().err == (f"indexflow: error: {word!r} is neither a command nor a graph file or "
                                       f"example; did you mean 'indexflow {command}'?\n")


def test_a_file_of_a_commands_look_is_still_opened(tmp_path, monkeypatch):
    """A graph file called `exmaples` in the working folder is opened, not corrected."""
    import nodeeditor.cli as cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "exmaples").write_text("{}")
    opened = []
    monkeypatch.setattr(cli, "_open_editor", lambda path: opened.append(path) or 0)
    assert main(["exmaples"]) == 0 and opened == ["exmaples"]


def test_check_says_when_the_graphs_opset_is_past_what_an_export_writes(tmp_path, capsys):
    """`check` said ok for an opset-99 graph that `export` then refused."""
    import numpy as np

    from nodeeditor.graph import Graph, save_graph
    from nodeeditor.onnx_io.opset_rules import MAX_OPSET

    g = Graph("future", opset=99)
    g.connect(g.add_literal(np.arange(3.0), name="x"), "output", g.add_output("y"), "value")
    path = save_graph(g, tmp_path / "future.ifg.json")
    assert main(["check", str(path)]) == 0
    assert f"warning: opset 99: IndexFlow exports opsets up to {MAX_OPSET} (export with --opset {MAX_OPSET} " \
           "or lower)" in capsys.readouterr().out
