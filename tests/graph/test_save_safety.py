"""Saving never leaves a file that cannot be loaded, and Save As elsewhere keeps file sources
pointing at the same files."""
import os

import numpy as np
import pytest

from nodeeditor.graph import Engine, Graph, GraphFileError, atomic, fileformat, load_graph, save_graph


def _big_graph(value):
    g = Graph("big")
    g.add_literal(np.full((100, 100), value, np.float32), name="big")  # > inline limit: sidecar
    return g


def test_a_failed_json_write_leaves_the_previous_pair_loadable(tmp_path, monkeypatch):
    path = tmp_path / "g.ifg.json"
    save_graph(_big_graph(1.0), path)
    before = (path.read_bytes(), fileformat.sidecar_path(path).read_bytes())
    real = atomic.write_temp

    def disk_full_on_json(target, data):
        if target.suffix == ".json":
            raise OSError(28, "No space left on device")
        return real(target, data)

    monkeypatch.setattr(atomic, "write_temp", disk_full_on_json)
    with pytest.raises(GraphFileError, match="No space left"):
        save_graph(_big_graph(2.0), path)
    assert (path.read_bytes(), fileformat.sidecar_path(path).read_bytes()) == before
    monkeypatch.undo()
    assert float(load_graph(path).find("big").value[0, 0]) == 1.0
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_save_as_in_another_folder_rebases_relative_file_paths(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    np.save(a / "data.npy", np.arange(5.0))
    g = Graph("files")
    src = g.add_file_source("data.npy", name="data")
    g.connect(src, "output", g.add_output("out"), "value")
    save_graph(g, a / "g.ifg.json")
    loaded = load_graph(a / "g.ifg.json")
    save_graph(loaded, b / "g.ifg.json")
    assert loaded.find("data").path == os.path.join("..", "a", "data.npy")
    np.testing.assert_array_equal(Engine(loaded).run().outputs["out"], np.arange(5.0))
    # the file written there names the same file, now outside its folder: opened afresh, it
    # reads it once the opener allows files outside the folder (the open one lived in a/)
    assert "outside" in load_graph(b / "g.ifg.json").node_info(loaded.find("data").id).error
    again = load_graph(b / "g.ifg.json", allow_outside_files=True)
    np.testing.assert_array_equal(Engine(again).run().outputs["out"], np.arange(5.0))


def test_saved_files_get_the_usual_permissions_not_mkstemps_private_ones(tmp_path):
    """A new file gets 0666 less the umask, like any program's; saving over an existing file
    keeps its permissions (the temporary file of the atomic write is 0600 otherwise)."""
    import os
    import stat

    g = Graph()
    g.add_literal(np.arange(5000, dtype=np.float32), node_id="big")   # large: a sidecar too
    old = os.umask(0o022)
    try:
        path = save_graph(g, tmp_path / "g.ifg.json")
    finally:
        os.umask(old)
    for f in (path, tmp_path / "g.ifg.npz"):
        assert stat.S_IMODE(os.stat(f).st_mode) == 0o644, f
    os.chmod(path, 0o640)
    save_graph(g, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640


def _name_max(folder):
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return 255


@pytest.mark.parametrize("big", [False, True])
def test_a_name_at_the_length_limit_saves(tmp_path, big):
    # The temporary files used to be named ".NAME.xxxxxxxx.tmp" (NAME plus 14 bytes), so a name
    # that itself fits (here exactly the file system's limit, 255 bytes on ext4/tmpfs) could not
    # be saved: ENAMETOOLONG. Its sidecar NAME.ifg.npz is one byte shorter and fits too.
    limit = _name_max(tmp_path)
    path = tmp_path / ("g" * (limit - len(".ifg.json")) + ".ifg.json")
    assert len(os.fsencode(path.name)) == limit
    graph = _big_graph(3.0) if big else Graph("small")
    save_graph(graph, path)
    assert sorted(os.listdir(tmp_path)) == sorted([path.name] + ([fileformat.sidecar_path(path).name] if big else []))
    if big:
        assert float(load_graph(path).find("big").value[0, 0]) == 3.0


def test_temporary_files_stay_short_and_beside_the_target(tmp_path, monkeypatch):
    # os.replace is atomic only within one file system: the temporary must be in the same folder
    made = []
    real = atomic.write_temp

    def spy(target, data):
        tmp = real(target, data)
        made.append(tmp)
        return tmp

    monkeypatch.setattr(atomic, "write_temp", spy)
    save_graph(_big_graph(1.0), tmp_path / ("x" * 200 + ".ifg.json"))
    assert len(made) == 2
    for tmp in made:
        assert os.path.dirname(tmp) == str(tmp_path)
        assert len(os.path.basename(tmp)) <= 32


def test_a_generator_of_minus_infinity_saves_and_loads_back(tmp_path):
    """A ``full`` of -inf, the start of a running maximum, ran and could never be saved (a
    bare ValueError from the JSON writer; the editor's Save and ``train -o`` lost the work)."""
    g = Graph("segment max")
    init = g.add_generator("full", {"shape": [3], "dtype": "float32", "value": float("-inf")}, name="init")
    noise = g.add_generator("normal", {"shape": [2], "dtype": "float32", "std": float("nan")}, name="noise")
    idx = g.add_literal(np.array([0, 0, 2], np.int64), name="idx")
    upd = g.add_literal(np.array([5.0, 7.0, 1.0], np.float32), name="upd")
    op = g.add_operator("ScatterElements", {"reduction": "max"})
    out = g.add_output("m")
    for src, port in ((init, "data"), (idx, "indices"), (upd, "updates")):
        g.connect(src, "output", op, port)
    g.connect(op, "output", out, "value")
    path = tmp_path / "g.ifg.json"
    save_graph(g, path)
    back = load_graph(path)
    assert back.node(init).params["value"] == float("-inf") and np.isnan(back.node(noise).params["std"])
    np.testing.assert_array_equal(Engine(back).run().outputs["m"], [7.0, -np.inf, 1.0])   # max of (-inf, 5, 7)


@pytest.mark.parametrize("text", ["1e999", "-Infinity", "NaN"])
def test_a_position_that_is_not_finite_is_refused_by_name(tmp_path, text):
    g = Graph("g")
    g.add_literal(np.zeros(2, np.float32), name="a", node_id="a", position=(0, 0))
    path = tmp_path / "g.ifg.json"
    save_graph(g, path)
    path.write_text(path.read_text().replace('"position": [0, 0]', f'"position": [{text}, 0]'))
    with pytest.raises(GraphFileError, match="node 'a': 'position' must be \\[x, y\\], two finite numbers"):
        load_graph(path)
    with pytest.raises(ValueError, match="position must be two finite numbers"):
        g.set_position("a", (float("inf"), 0.0))


def test_any_other_number_json_cannot_hold_is_named_and_nothing_is_written(tmp_path, monkeypatch):
    g = Graph("g")
    g.add_literal(np.zeros(2, np.float32), name="a")
    real = fileformat.graph_document

    def with_inf(graph, sidecar):
        doc, arrays = real(graph, sidecar)
        doc["settings"] = {**doc.get("settings", {}), "learning_rate": float("inf")}
        return doc, arrays

    monkeypatch.setattr(fileformat, "graph_document", with_inf)
    path = tmp_path / "g.ifg.json"
    with pytest.raises(GraphFileError, match="settings.learning_rate is not a finite number"):
        save_graph(g, path)
    assert not path.exists()


def test_a_graph_opened_and_saved_through_a_symbolic_link_stays_the_linked_file(tmp_path):
    """Through a link (``work/model.ifg.json -> repo/model.ifg.json``): the sidecar is the one
    beside the real file (it was looked for beside the link: "the sidecar ... is missing"), and
    a save writes the real file and keeps the link (it replaced the link with a new file)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    g = Graph("linked")
    g.add_literal(np.arange(5000, dtype=np.float32), name="big", node_id="big")   # in the sidecar
    save_graph(g, repo / "model.ifg.json")
    link = tmp_path / "model.ifg.json"
    link.symlink_to("repo/model.ifg.json")
    loaded = load_graph(link)
    np.testing.assert_array_equal(loaded.node("big").value, np.arange(5000, dtype=np.float32))
    loaded.rename_node("big", "renamed")
    save_graph(loaded, link)
    assert link.is_symlink() and load_graph(repo / "model.ifg.json").node("big").name == "renamed"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.ifg.json", "repo"]
