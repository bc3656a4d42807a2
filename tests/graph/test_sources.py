"""Tensor sources: generators (shapes known without generating) and files (.npy, .npz, .csv)."""
import numpy as np
import pytest

from nodeeditor.graph import Engine, Graph, NodeStatus, load_graph, save_graph
from nodeeditor.graph.sources import GENERATORS, SourceError, file_type, generate, generator_type, load_file
from ops import TensorType


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_generator_type_matches_what_it_generates(name):
    arr = generate(name, {})
    assert generator_type(name, {}) == TensorType.of(arr)


def test_generator_values():
    np.testing.assert_array_equal(generate("arange", {"start": 1, "stop": 2, "step": 0.25, "dtype": "float32"}),
                                  [1.0, 1.25, 1.5, 1.75])
    np.testing.assert_array_equal(generate("eye", {"n": 2, "m": 3, "k": 1, "dtype": "int64"}), [[0, 1, 0], [0, 0, 1]])
    ints = generate("integers", {"shape": [1000], "low": 3, "high": 5, "seed": 1})
    assert set(np.unique(ints)) == {3, 4}
    n = generate("normal", {"shape": [20000], "mean": 5.0, "std": 2.0, "seed": 0, "dtype": "float64"})
    assert abs(n.mean() - 5.0) < 0.1 and abs(n.std() - 2.0) < 0.1


@pytest.mark.parametrize("name,params,message", [
    ("zeros", {"shape": [-1]}, "negative"),
    ("arange", {"step": 0}, "step must not be 0"),
    ("zeros", {"dtype": "float99"}, "unknown dtype"),
    ("nope", {}, "unknown generator"),
    ("zeros", {"seed": 1}, "no parameter 'seed'"),
])
def test_bad_generator_parameters(name, params, message):
    with pytest.raises(SourceError, match=message):
        generate(name, params)


def test_npy_npz_csv_files(tmp_path):
    np.save(tmp_path / "a.npy", np.arange(6, dtype=np.int32).reshape(2, 3))
    np.savez(tmp_path / "b.npz", first=np.ones(2), second=np.zeros((4, 1), np.float16))
    (tmp_path / "c.csv").write_text("1,2,3\n4,5,6\n")
    assert file_type(tmp_path / "a.npy") == TensorType("int32", (2, 3))
    assert file_type(tmp_path / "b.npz", "second") == TensorType("float16", (4, 1))
    assert file_type(tmp_path / "c.csv", dtype="int64") == TensorType("int64", (2, 3))
    np.testing.assert_array_equal(load_file(tmp_path / "c.csv"), [[1, 2, 3], [4, 5, 6]])
    assert load_file(tmp_path / "c.csv").dtype == np.float32
    with pytest.raises(SourceError, match="choose a key"):
        load_file(tmp_path / "b.npz")
    with pytest.raises(SourceError, match="no array 'third'"):
        load_file(tmp_path / "b.npz", "third")
    (tmp_path / "d.txt").write_text("x")
    with pytest.raises(SourceError, match="unsupported file type"):
        load_file(tmp_path / "d.txt")
    (tmp_path / "bad.npy").write_bytes(b"not numpy")
    with pytest.raises(SourceError, match="cannot read"):
        file_type(tmp_path / "bad.npy")


def _damaged_files(tmp_path):
    """(file, what the message must say): damaged files of each kind, as users meet them."""
    np.save(tmp_path / "whole.npy", np.arange(1000.0))
    raw = (tmp_path / "whole.npy").read_bytes()
    np.savez(tmp_path / "whole.npz", a=np.arange(1000.0))
    zipped = (tmp_path / "whole.npz").read_bytes()
    files = {
        "cut_data.npy": (raw[:500], "truncated"),
        "cut_header.npy": (raw[:20], "truncated"),
        "text.npy": (b"1,2,3\n", "not a NumPy .npy file"),
        "empty.npy": (b"", "the file is empty"),
        "cut.npz": (zipped[:300], "archive is damaged or truncated"),
        "text.npz": (b"hello", "not a NumPy .npz archive"),
    }
    for name, (content, _) in files.items():
        (tmp_path / name).write_bytes(content)
    return [(tmp_path / name, expected) for name, (_, expected) in files.items()]


def test_damaged_files_say_what_is_wrong(tmp_path):
    for path, expected in _damaged_files(tmp_path):
        for read in (load_file, file_type):
            with pytest.raises(SourceError) as info:
                read(path)
            message = str(info.value)
            assert str(path) in message and expected in message, (read.__name__, message)
            assert "pickle" not in message.lower() or "never loads" in message


def test_generators_refuse_tensors_over_the_size_limit(monkeypatch):
    with pytest.raises(SourceError, match=r"zeros: shape \[100000, 100000\] of float32 needs 37\.3 GiB; "
                                          r"generated tensors are limited to 2\.0 GiB"):
        generator_type("zeros", {"shape": [100000, 100000]})
    with pytest.raises(SourceError, match="arange: .* needs 7.5 GiB"):
        generate("arange", {"stop": 10**9, "dtype": "float64"})
    monkeypatch.setenv("INDEXFLOW_MAX_SOURCE_MB", "1")
    assert generate("zeros", {"shape": [512, 512]}).nbytes == 1 << 20  # exactly at the limit
    with pytest.raises(SourceError, match="limited to 1.0 MiB"):
        generate("normal", {"shape": [512, 513]})


def test_an_oversized_generator_is_a_node_error_not_a_crash():
    graph = Graph()
    src = graph.add_generator("uniform", {"shape": [200000, 200000]})
    assert "limited to" in graph.node_info(src).error  # shown on the node before anything runs
    result = Engine(graph).run()
    assert result.nodes[src].status == NodeStatus.ERROR and "limited to" in result.nodes[src].error


def test_relative_file_paths_resolve_against_the_graph_file(tmp_path):
    (tmp_path / "data").mkdir()
    np.save(tmp_path / "data" / "idx.npy", np.array([2, 0], np.int64))
    g = Graph()
    g.add_file_source("data/idx.npy", node_id="f")
    g.add_output("y", node_id="y")
    g.connect("f", "output", "y", "value")
    path = save_graph(g, tmp_path / "g.ifg.json")
    h = load_graph(path)
    assert h.output_type("f") == TensorType("int64", (2,))
    assert Engine(h).run().outputs["y"].tolist() == [2, 0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int32", "uint64",
                                   "bool", "complex64"])
@pytest.mark.parametrize("name,params", [
    ("uniform", {"low": -2.0, "high": 3.0}),
    ("normal", {"mean": 0.5, "std": 2.0}),
    ("integers", {"low": -5, "high": 300}),
])
def test_random_generators_drawn_in_chunks_equal_one_draw(monkeypatch, name, params, dtype):
    """The chunked draw (no full-size float64 temporary) gives exactly the values of the one-shot
    formula ``rng.<method>(..., shape).astype(dtype)``, across chunk boundaries."""
    import ml_dtypes

    from nodeeditor.graph import sources

    monkeypatch.setattr(sources, "DRAW_CHUNK", 97)  # many chunks, boundaries mid-row
    shape = (13, 41)
    seed = 11
    got = generate(name, {"shape": list(shape), "dtype": dtype, "seed": seed, **params})
    rng = np.random.default_rng(seed)
    method = {"uniform": rng.uniform, "normal": rng.normal, "integers": rng.integers}[name]
    args = {"uniform": ("low", "high"), "normal": ("mean", "std"), "integers": ("low", "high")}[name]
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    with np.errstate(all="ignore"):
        want = method(params[args[0]], params[args[1]], shape).astype(np_dtype)
    assert got.dtype == want.dtype and got.shape == shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("generator, params, message", [
    ("arange", {"stop": "banana"}, "arange: parameter 'stop' must be a number, not 'banana'"),
    ("arange", {"step": None}, "arange: parameter 'step' must be a number, not None"),
    ("zeros", {"shape": "abc"}, "zeros: parameter 'shape' must be a list of integers, not 'abc'"),
    ("zeros", {"shape": [2, 2.7]}, "zeros: parameter 'shape' must be a list of integers, not [2, 2.7]"),
    ("zeros", {"dtype": 5}, "zeros: parameter 'dtype' must be a dtype name, not 5"),
    ("full", {"value": "banana"}, "full: parameter 'value' must be a number, not 'banana'"),
    ("eye", {"n": "3"}, "eye: parameter 'n' must be an integer, not '3'"),
    ("eye", {"m": 2.5}, "eye: parameter 'm' must be an integer or empty, not 2.5"),
    ("uniform", {"low": [1]}, "uniform: parameter 'low' must be a number, not [1]"),
    ("integers", {"high": True}, "integers: parameter 'high' must be an integer, not True"),
    ("permutation", {"seed": "s"}, "permutation: parameter 'seed' must be an integer, not 's'"),
])
def test_a_parameter_of_the_wrong_type_is_named(generator, params, message):
    with pytest.raises(SourceError) as info:
        generate(generator, params)
    assert str(info.value) == message


def test_a_damaged_parameter_in_a_file_names_the_node_and_the_parameter(tmp_path):
    import json

    from nodeeditor.graph.fileformat import GraphFileError, load_graph

    path = tmp_path / "bad.ifg.json"
    path.write_text(json.dumps({
        "format": "indexflow-graph", "version": 1, "settings": {"name": "g", "opset": 18},
        "nodes": [{"id": "arange1", "kind": "generator", "name": "arange1", "position": [0, 0],
                   "generator": "arange", "params": {"stop": "banana"}}],
        "edges": []}))
    with pytest.raises(GraphFileError) as info:
        load_graph(path)
    assert str(info.value).endswith("node 'arange1': arange: parameter 'stop' must be a number, not 'banana'")


@pytest.mark.parametrize("generator, params", [
    ("arange", {"start": 1, "stop": 2, "step": 0.25}), ("eye", {"m": None}), ("eye", {"m": 2}),
    ("uniform", {"low": -1, "high": 2.5}), ("full", {"value": 3}), ("zeros", {"shape": (2, np.int64(3))}),
])
def test_parameters_of_the_right_type_are_accepted(generator, params):
    generate(generator, params)
