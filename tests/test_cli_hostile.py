"""The indexflow command on hostile input: output names that used to crash `run --output` or
lose data, names `check` could not print, archives written in place under concurrent readers."""
import os
import subprocess
import sys
import threading
import urllib.parse
import zipfile

import numpy as np
import pytest

from nodeeditor import cli
from nodeeditor.graph import Graph, save_graph


def _outputs_graph(tmp_path, names, values=None):
    """A literal wired to one output per name (the first name gets ``values`` if given)."""
    g = Graph(name="names")
    for i, name in enumerate(names):
        lit = g.add_literal(np.arange(3) + i if values is None or i else values, node_id=f"v{i}")
        out = g.add_output(name, node_id=f"o{i}")
        g.connect(lit, "output", out, "value")
    return save_graph(g, tmp_path / "names.ifg.json")


@pytest.mark.parametrize("name", ["file", "allow_pickle", "args", "kwds", "compress"])
def test_outputs_named_like_savez_arguments_are_written(tmp_path, capsys, name):
    # np.savez(target, **outputs): "file" crashed with a TypeError, "allow_pickle" was taken
    # for the argument and the archive was left empty while the command said it wrote it.
    path = _outputs_graph(tmp_path, [name, "other"])
    target = tmp_path / "out.npz"
    assert cli.main(["run", str(path), "-o", str(target)]) == 0
    assert "wrote 2 output(s)" in capsys.readouterr().out
    with np.load(target) as archive:
        assert sorted(archive.files) == sorted([name, "other"])
        assert archive[name].tolist() == [0, 1, 2] and archive["other"].tolist() == [1, 2, 3]


@pytest.mark.parametrize("name", ["../../x", "/etc/passwd", "a\\b", "c:d", "50%", "tab\there", "\ud800"])
def test_names_that_could_name_a_path_are_escaped_and_can_be_read_back(tmp_path, capsys, name):
    path = _outputs_graph(tmp_path, [name])
    target = tmp_path / "out.npz"
    assert cli.main(["run", str(path), "-o", str(target)]) == 0
    text = capsys.readouterr().out
    with zipfile.ZipFile(target) as archive:
        (member,) = archive.namelist()
    assert "/" not in member and "\\" not in member and ":" not in member
    key = member[:-len(".npy")]
    assert urllib.parse.unquote(key, errors="surrogatepass") == name
    assert f"was written as {key!r}" in text
    with np.load(target) as archive:
        assert archive[key].tolist() == [0, 1, 2]


def test_a_name_too_long_for_a_zip_header_is_an_error_and_nothing_is_written(tmp_path, capsys):
    path = _outputs_graph(tmp_path, ["n" * 70_000, "short"])
    target = tmp_path / "out.npz"
    assert cli.main(["run", str(path), "-o", str(target)]) == 1
    err = capsys.readouterr().err
    assert "70000 bytes long" in err and "at most 65531 bytes" in err and "Traceback" not in err
    assert not target.exists()
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_readers_see_a_whole_archive_while_writers_replace_it(tmp_path):
    # Eight writers rewrite the same archive while a reader polls it: written in place, a
    # reader found a truncated zip on most reads.
    values = np.arange(200_000, dtype=np.float64)
    path = _outputs_graph(tmp_path, ["big"], values)
    target = tmp_path / "out.npz"
    assert cli.main(["run", str(path), "-o", str(target)]) == 0
    failures, reads, stop = [], [0], threading.Event()

    def reader():
        while not stop.is_set():
            try:
                with np.load(target) as archive:
                    assert archive["big"].shape == (200_000,)
            except Exception as exc:  # noqa: BLE001 - any failure to read is what is counted
                failures.append(repr(exc))
            reads[0] += 1

    code = "import sys; from nodeeditor.cli import main; sys.exit(main())"
    poll = threading.Thread(target=reader)
    poll.start()
    try:
        writers = [subprocess.Popen([sys.executable, "-c", code, "run", str(path), "-o", str(target)],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(8)]
        errors = [w.communicate(timeout=120)[1] for w in writers]
    finally:
        stop.set()
        poll.join()
    assert all(w.returncode == 0 for w in writers), errors
    assert reads[0] > 0 and failures == []
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def _script(*argv, **env):
    code = "import sys; from nodeeditor.cli import main; sys.argv[0] = 'indexflow'; sys.exit(main())"
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                          env={**os.environ, **env}, timeout=120)
    return proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("encoding", ["utf-8:surrogateescape", "utf-8:strict", "ascii"])
def test_check_prints_a_name_holding_a_lone_surrogate(tmp_path, encoding):
    # C.UTF-8 gives Python a surrogateescape stdout, which cannot encode U+D800.
    text = ('{"format": "indexflow-graph", "version": 1, "settings": {"name": "s\\ud800", "description": "", '
            '"opset": 18}, "nodes": [{"id": "a", "kind": "literal", "name": "\\ud800x", "position": [0, 0], '
            '"value": {"dtype": "float32", "shape": [1], "data": [1]}}, '
            '{"id": "o", "kind": "output", "name": "o", "position": [0, 0]}], '
            '"edges": [{"from": ["a", "output"], "to": ["o", "value"]}]}')
    path = tmp_path / "surrogate.ifg.json"
    path.write_text(text, encoding="ascii")
    code, out, err = _script("check", str(path), PYTHONIOENCODING=encoding)
    assert code == 0, err
    assert "Traceback" not in err and "\\ud800x [a]" in out


@pytest.mark.parametrize("where", ["position", "from"])
def test_a_5000_digit_integer_is_a_one_line_error(tmp_path, capsys, where):
    big = "9" * 5000
    position = f"[{big}, 0]" if where == "position" else "[0, 0]"
    source = big if where == "from" else '"a"'
    text = ('{"format": "indexflow-graph", "version": 1, "nodes": [{"id": "a", "kind": "literal", "name": "a", '
            f'"position": {position}, "value": {{"dtype": "float32", "shape": [1], "data": [1]}}}}], '
            f'"edges": [{{"from": [{source}, "output"], "to": ["a", "value"]}}]}}')
    path = tmp_path / "digits.ifg.json"
    path.write_text(text, encoding="ascii")
    assert cli.main(["check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err and "5000 digits" in err and "at most 4300 digits" in err and "line 1, column" in err
