"""Relative file-source paths follow the graph's folder: Save As, restoring a removed node,
pasting from a graph elsewhere (nodeeditor/graph/paths.py)."""
import os

import numpy as np

from nodeeditor.graph import Graph, graph_to_dict, paste_dict, save_graph
from nodeeditor.graph.paths import rebase_path


def test_rebase_path_keeps_the_files_own_name_and_leaves_absolute_paths(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "a" / "b").mkdir(parents=True)
    np.save(tmp_path / "data" / "v3.npy", np.zeros(2))
    os.symlink(tmp_path / "data" / "v3.npy", tmp_path / "data" / "current.npy")
    assert rebase_path("../data/current.npy", tmp_path / "a", tmp_path / "a" / "b") == "../../data/current.npy"
    assert rebase_path("data/x.npy", tmp_path, tmp_path) == "data/x.npy"
    assert rebase_path("/abs/x.npy", tmp_path, tmp_path / "a") == "/abs/x.npy"
    assert rebase_path("x.npy", None, tmp_path) == "x.npy" and rebase_path("x.npy", tmp_path, None) == "x.npy"


def _two_folders(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second" / "deeper"
    (first / "data").mkdir(parents=True)
    second.mkdir(parents=True)
    np.save(first / "data" / "a.npy", np.arange(3))
    return first, second


def test_a_removed_file_node_restored_after_save_as_names_the_same_file(tmp_path):
    first, second = _two_folders(tmp_path)
    g = Graph()
    g.add_file_source("data/a.npy", node_id="f")
    save_graph(g, first / "g.ifg.json")
    removed = g.remove_node("f")
    save_graph(g, second / "g.ifg.json")
    g.restore_node(removed)
    assert (second / g.node("f").path).resolve() == (first / "data" / "a.npy").resolve()
    assert g.output_type("f").shape == (3,)


def test_a_node_removed_before_the_first_save_is_relative_to_the_first_folder(tmp_path):
    first, second = _two_folders(tmp_path)
    g = Graph()
    g.add_file_source("data/a.npy", node_id="f")
    removed = g.remove_node("f")                     # the graph has no file yet
    save_graph(g, first / "g.ifg.json")              # relative paths now mean first/
    save_graph(g, second / "g.ifg.json")
    g.restore_node(removed)
    assert (second / g.node("f").path).resolve() == (first / "data" / "a.npy").resolve()


def test_paste_from_a_graph_elsewhere_names_the_same_file(tmp_path):
    first, second = _two_folders(tmp_path)
    source = Graph()
    source.add_file_source("data/a.npy", node_id="f")
    save_graph(source, first / "g.ifg.json")
    data = graph_to_dict(source, ["f"])
    data["folder"] = str(source.folder)              # what the clipboard records
    target = Graph()
    save_graph(target, second / "t.ifg.json")
    (new_id,) = paste_dict(target, data).values()
    assert (second / target.node(new_id).path).resolve() == (first / "data" / "a.npy").resolve()
    assert target.output_type(new_id).shape == (3,)
    unsaved = Graph()
    (new_id,) = paste_dict(unsaved, data).values()    # no folder to be relative to: absolute
    assert unsaved.node(new_id).path == str((first / "data" / "a.npy").resolve())
