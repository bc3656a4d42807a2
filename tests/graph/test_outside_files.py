"""Files outside a graph's folder: a graph read from a file reads files in its own folder; one
outside (absolute, ``../..``, a link whose target is outside) is shown on the node and read only
once whoever opened the graph allows it (nodeeditor/graph/paths.py FileScope)."""
import os

import numpy as np
import pytest

from nodeeditor import cli
from nodeeditor.graph import Engine, Graph, NodeStatus, arrayfiles, load_graph, save_graph
from nodeeditor.graph.paths import FileScope


@pytest.fixture
def opened(tmp_path, monkeypatch):
    """Every path the array readers open, in order."""
    seen = []
    real = arrayfiles.open_regular

    def spy(path):
        seen.append(os.path.realpath(path))
        return real(path)

    monkeypatch.setattr(arrayfiles, "open_regular", spy)
    return seen

#: the outside file's value: digits no temporary path holds (42 showed up in "pytest-423")
SECRET = 7.0397531
SECRET_TEXT = "7.03975"


def _layout(tmp_path):
    """graph folder ``g/`` with ``inside.npy``; ``secret.npy`` beside it (outside)."""
    folder = tmp_path / "g"
    folder.mkdir()
    np.save(folder / "inside.npy", np.arange(3.0))
    np.save(tmp_path / "secret.npy", np.array([SECRET]))
    return folder


def _graph_reading(folder, *paths):
    g = Graph()
    for i, path in enumerate(paths):
        g.add_file_source(path, node_id=f"f{i}")
        g.connect(f"f{i}", "output", g.add_output(f"out{i}", node_id=f"o{i}"), "value")
    return save_graph(g, folder / "g.ifg.json")


@pytest.mark.parametrize("spelled", ["relative", "absolute"])
def test_a_file_outside_the_folder_is_refused_on_the_node_and_never_opened(tmp_path, opened, spelled):
    folder = _layout(tmp_path)
    secret = "../secret.npy" if spelled == "relative" else str(tmp_path / "secret.npy")
    path = _graph_reading(folder, "inside.npy", secret)
    opened.clear()
    g = load_graph(path)
    result = Engine(g).run()
    assert result.nodes["f0"].status == NodeStatus.OK
    error = g.node_info("f1").error
    assert "outside the graph's folder" in error and secret in error and "--allow-outside-files" in error
    assert result.nodes["f1"].status == NodeStatus.ERROR and "out1" not in result.outputs
    assert str(tmp_path / "secret.npy") not in opened


def test_a_link_is_judged_by_its_target(tmp_path, opened):
    folder = _layout(tmp_path)
    os.symlink(tmp_path / "secret.npy", folder / "link_out.npy")
    os.symlink(folder / "inside.npy", folder / "link_in.npy")
    (folder / "sub").mkdir()
    os.symlink(folder / "inside.npy", folder / "sub" / "deeper.npy")
    path = _graph_reading(folder, "link_out.npy", "link_in.npy", "sub/deeper.npy")
    opened.clear()
    g = load_graph(path)
    assert "outside the graph's folder" in g.node_info("f0").error
    assert g.node_info("f1").ok and g.node_info("f2").ok
    assert str(tmp_path / "secret.npy") not in opened


def test_allowing_outside_files_reads_them(tmp_path):
    folder = _layout(tmp_path)
    path = _graph_reading(folder, "../secret.npy")
    assert Engine(load_graph(path, allow_outside_files=True)).run().outputs["out0"].tolist() == [SECRET]
    g = load_graph(path)
    assert not g.node_info("f0").ok
    engine = Engine(g)
    assert engine.run().nodes["f0"].status == NodeStatus.ERROR
    assert g.set_outside_files_allowed(True) is False
    assert g.node_info("f0").ok
    assert engine.run().outputs["out0"].tolist() == [SECRET]          # the cached refusal is not kept


def test_a_file_chosen_at_the_editor_is_allowed_alone(tmp_path):
    folder = _layout(tmp_path)
    np.save(tmp_path / "other.npy", np.array([7.0]))
    path = _graph_reading(folder, "../secret.npy", "../other.npy")
    g = load_graph(path)
    g.allow_file("../other.npy")
    assert not g.node_info("f0").ok and g.node_info("f1").ok


def test_the_allowance_is_not_saved_with_the_graph(tmp_path):
    folder = _layout(tmp_path)
    path = _graph_reading(folder, "../secret.npy")
    g = load_graph(path, allow_outside_files=True)
    g.allow_file("../secret.npy")
    save_graph(g, path)
    assert "allow" not in path.read_text()
    assert not load_graph(path).node_info("f0").ok


def test_graphs_made_in_this_session_read_any_file(tmp_path):
    np.save(tmp_path / "anywhere.npy", np.arange(2))
    g = Graph()
    g.add_file_source(str(tmp_path / "anywhere.npy"), node_id="f")
    assert g.node_info("f").ok and g.outside_files_allowed


def test_save_as_elsewhere_keeps_what_was_inside_readable(tmp_path):
    folder = _layout(tmp_path)
    path = _graph_reading(folder, "inside.npy")
    g = load_graph(path)
    (tmp_path / "elsewhere").mkdir()
    save_graph(g, tmp_path / "elsewhere" / "g.ifg.json")
    assert g.node("f0").path == os.path.join("..", "g", "inside.npy")
    assert g.node_info("f0").ok


def test_a_graph_text_without_a_file_reads_no_file(tmp_path):
    from nodeeditor.graph import graph_to_dict, loads_graph
    from nodeeditor.graph.fileformat import dumps

    np.save(tmp_path / "x.npy", np.arange(2))
    g = Graph()
    g.add_file_source(str(tmp_path / "x.npy"), node_id="f")
    text = dumps(graph_to_dict(g))
    assert "the graph has none" in loads_graph(text).node_info("f").error
    assert loads_graph(text, allow_outside_files=True).node_info("f").ok


def test_the_rule_itself():
    scope = FileScope(folder=None, outside_allowed=False)
    assert scope.is_outside("x.npy")
    assert FileScope(folder=None).refusal("/anything.npy") is None


@pytest.mark.parametrize("verb", ["check", "run", "export"])
def test_the_command_line_reads_outside_files_only_with_the_flag(tmp_path, capsys, verb):
    folder = _layout(tmp_path)
    path = _graph_reading(folder, "../secret.npy")
    extra = ["-o", str(tmp_path / "m.onnx")] if verb == "export" else []
    assert cli.main([verb, str(path), *extra]) == 1
    captured = capsys.readouterr()
    assert "--allow-outside-files" in captured.out + captured.err and SECRET_TEXT not in captured.out
    assert cli.main([verb, str(path), *extra, "--allow-outside-files"]) == 0
    if verb == "run":
        assert SECRET_TEXT in capsys.readouterr().out
