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
