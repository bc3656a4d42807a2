"""Where `--output` / `-o` writes, one rule for every command (`nodeeditor.cli_paths`): the
suffix added, and an empty name, a folder, or a missing parent folder refused up front as a
usage error (export and import ended in a traceback for `-o ""`, `run -o ""` wrote nothing
without a word, `train` added no suffix and ran every step before failing on a folder)."""
from __future__ import annotations

import pytest

from nodeeditor.cli import main


@pytest.mark.parametrize("command", [["run", "embedding_lookup"], ["grad", "train_embedding"],
                                     ["train", "train_embedding", "--steps", "1"],
                                     ["export", "embedding_lookup"]])
def test_an_empty_name_a_folder_or_a_missing_folder_is_refused_before_any_work(command, tmp_path, capsys):
    for output, says in (("", "needs a file name, e.g. "), (str(tmp_path) + "/", "names a folder"),
                         (str(tmp_path / "nowhere" / "x"), f"the folder {tmp_path / 'nowhere'} does not exist")):
        assert main([*command, "-o", output]) == 2, output
        err = capsys.readouterr().err
        assert err.startswith("indexflow: error: ") and says in err and "Traceback" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_train_adds_the_graph_files_suffix(tmp_path, capsys):
    """-o x.onnx wrote graph JSON into x.onnx, which `run` then read as a broken model."""
    assert main(["train", "train_embedding", "--steps", "1", "-o", str(tmp_path / "trained")]) == 0
    assert (tmp_path / "trained.ifg.json").is_file() and f"wrote {tmp_path / 'trained.ifg.json'}" in \
        capsys.readouterr().out


def test_import_refuses_an_empty_name(tmp_path, capsys):
    from nodeeditor.graph import load_example
    from nodeeditor.onnx_io import save_model

    model = tmp_path / "m.onnx"
    save_model(load_example("embedding_lookup"), model)
    assert main(["import", str(model), "-o", ""]) == 2
    assert "-o needs a file name, e.g. out.ifg.json" in capsys.readouterr().err


def test_a_tilde_the_shell_left_is_expanded_and_a_suffix_in_capitals_kept(tmp_path, monkeypatch, capsys):
    """`-o "~/x"` passed the folder check (made on the expanded path) and then failed after the
    run, writing the unexpanded one; `-o M.ONNX` became M.ONNX.onnx."""
    monkeypatch.setenv("HOME", str(tmp_path))
    assert main(["run", "embedding_lookup", "-o", "~/out"]) == 0
    assert (tmp_path / "out.npz").is_file()
    assert main(["export", "embedding_lookup", "-o", str(tmp_path / "M.ONNX")]) == 0
    assert (tmp_path / "M.ONNX").is_file() and not (tmp_path / "M.ONNX.onnx").exists()
