"""Every bundled example runs, and each worked example's output equals the output printed
in its source document (typed in here from the page, not computed by our code)."""
import filecmp

import numpy as np
import pytest

from nodeeditor.graph import DEFAULT_EXAMPLE, Engine, default_example, list_examples, load_example

# (example, output name) -> documented output, copied from the page named in the comment.
DOCUMENTED = {
    # seed page Scatter-9.txt, Example 1 and Example 2
    ("scatter9_examples", "example1"): [[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]],
    ("scatter9_examples", "example2"): [[1.0, 1.1, 3.0, 2.1, 5.0]],
    # seed page ScatterND-13.txt, Example 1 and Example 2
    ("scatternd13_examples", "example1"): [1, 11, 3, 10, 9, 6, 7, 12],
    ("scatternd13_examples", "example2"): [
        [[5, 5, 5, 5], [6, 6, 6, 6], [7, 7, 7, 7], [8, 8, 8, 8]],
        [[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]],
        [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]],
        [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]],
    # seed page Gather-11.txt, axis = 0 and axis = 1
    ("gather11_examples", "axis0"): [[[1.0, 1.2], [2.3, 3.4]], [[2.3, 3.4], [4.5, 5.7]]],
    ("gather11_examples", "axis1"): [[[1.0, 1.9]], [[2.3, 3.9]], [[4.5, 5.9]]],
    # ONNX GatherElements doc, Example 1 and Example 2
    ("gatherelements_examples", "example1"): [[1, 1], [4, 3]],
    ("gatherelements_examples", "example2"): [[4, 8, 3], [7, 2, 3]],
    # ONNX GatherND doc, Examples 1-5
    ("gathernd_examples", "example1"): [0, 3],
    ("gathernd_examples", "example2"): [[2, 3], [0, 1]],
    ("gathernd_examples", "example3"): [[2, 3], [4, 5]],
    ("gathernd_examples", "example4"): [[[2, 3]], [[4, 5]]],
    ("gathernd_examples", "example5"): [[2, 3], [4, 5]],
    # ONNX ScatterElements doc Examples 1, 2 and the operator page's reduction examples
    ("scatterelements_examples", "without_axis"): [[2.0, 1.1, 0.0], [1.0, 0.0, 2.2], [0.0, 2.1, 1.2]],
    ("scatterelements_examples", "with_axis"): [[1.0, 1.1, 3.0, 2.1, 5.0]],
    ("scatterelements_examples", "negative_indices"): [[1.0, 1.1, 2.1, 4.0, 5.0]],
    ("scatterelements_examples", "reduction_add"): [[1.0, 5.2, 3.0, 4.0, 5.0]],
    ("scatterelements_examples", "reduction_mul"): [[1.0, 4.62, 3.0, 4.0, 5.0]],
    ("scatterelements_examples", "reduction_max"): [[1.0, 2.1, 3.0, 4.0, 5.0]],
    ("scatterelements_examples", "reduction_min"): [[1.0, 1.1, 3.0, 4.0, 5.0]],
    # ONNX TensorScatter operator page examples (tensorscatter, _circular, _3d)
    ("tensorscatter_examples", "linear"): [
        [[[1, 2, 3, 4, 5], [5, 5, 5, 5, 5], [8, 7, 6, 5, 4], [4, 3, 2, 1, 0]]],
        [[[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [1, 1, 1, 1, 1], [4, 3, 2, 1, 0]]]],
    ("tensorscatter_examples", "circular"): [
        [[[1, 2, 3, 4, 5], [5, 5, 5, 5, 5], [6, 6, 6, 6, 6], [4, 3, 2, 1, 0]]],
        [[[2, 2, 2, 2, 2], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [1, 1, 1, 1, 1]]]],
    ("tensorscatter_examples", "three_d"): [
        [[1, 2, 3, 4, 5], [4, 4, 4, 4, 4], [5, 5, 5, 5, 5], [5, 4, 3, 2, 1]],
        [[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [6, 6, 6, 6, 6], [7, 7, 7, 7, 7]],
        [[2, 2, 2, 2, 2], [3, 3, 3, 3, 3], [8, 7, 6, 5, 4], [5, 4, 3, 2, 1]]],
}

_RUNS = {}


def outputs_of(name):
    if name not in _RUNS:
        result = Engine(load_example(name)).run()
        assert result.ok, result.errors()
        _RUNS[name] = result.outputs
    return _RUNS[name]


@pytest.mark.parametrize("example,output", sorted(DOCUMENTED))
def test_worked_example_matches_the_document(example, output):
    got = outputs_of(example)[output]
    expected = np.array(DOCUMENTED[(example, output)])
    assert got.shape == expected.shape
    if expected.dtype.kind == "f" or got.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    else:
        np.testing.assert_array_equal(got, expected)


def test_every_document_output_is_covered():
    documented = {}
    for example, output in DOCUMENTED:
        documented.setdefault(example, set()).add(output)
    for example, outs in documented.items():
        assert set(outputs_of(example)) == outs


# ---------------------------------------------------------------------- recipes, checked against plain numpy
def test_embedding_lookup():
    g = load_example("embedding_lookup")
    table, ids = g.node("table").value, g.node("token_ids").example
    np.testing.assert_array_equal(outputs_of("embedding_lookup")["embeddings"], table[ids])


def test_one_hot():
    labels = [1, 4, 0, 2]
    np.testing.assert_array_equal(outputs_of("one_hot")["one_hot"], np.eye(5, dtype=np.float32)[labels])


def test_segment_sum_and_histogram():
    values = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0]
    segments = [0, 2, 0, 1, 2, 2]
    out = outputs_of("segment_sum")
    np.testing.assert_allclose(out["segment_sums"], np.bincount(segments, weights=values, minlength=3))
    np.testing.assert_array_equal(out["histogram"], np.bincount(segments, minlength=3))


def test_topk_mask():
    g = load_example("topk_mask")
    scores = g.node("scores").value
    top2 = np.argsort(-scores, axis=1)[:, :2]
    out = outputs_of("topk_mask")
    assert set(map(tuple, np.sort(top2, 1))) == set(map(tuple, np.sort(g.node("topk").value, 1)))
    expected_mask = np.zeros_like(scores)
    np.put_along_axis(expected_mask, top2, 1.0, axis=1)
    np.testing.assert_array_equal(out["mask"], expected_mask)
    np.testing.assert_array_equal(np.sort(out["topk_values"], 1), np.sort(np.take_along_axis(scores, top2, 1), 1))


def test_kv_cache_write_tensorscatter_and_scatternd_agree_with_a_plain_loop():
    g = load_example("kv_cache_write")
    past, update = g.node("past").value, g.node("update").value
    write = g.node("write_indices").value
    expected = past.copy()
    for b in range(past.shape[0]):
        for s in range(update.shape[2]):
            expected[b, :, write[b] + s] = update[b, :, s]
    out = outputs_of("kv_cache_write")
    np.testing.assert_array_equal(out["present_cache"], expected)
    np.testing.assert_array_equal(out["present_cache_scatternd"], expected)


def test_batched_row_gather():
    g = load_example("batched_row_gather")
    data, rows = g.node("data").value, g.node("rows").value
    expected = np.stack([data[b][rows[b, :, 0]] for b in range(data.shape[0])])
    np.testing.assert_array_equal(outputs_of("batched_row_gather")["rows"], expected)


# ---------------------------------------------------------------------- the collection itself
def test_examples_have_titles_descriptions_and_a_default():
    infos = list_examples()
    assert infos[0].name == DEFAULT_EXAMPLE
    assert len(infos) == 13
    for info in infos:
        assert info.title and info.description and "\n" not in info.description
    g = default_example()
    xs = {n.kind: n.position[0] for n in g.nodes}
    assert xs["literal"] < xs["op"] < xs["output"]  # laid out left to right
    assert len({n.position for n in g.nodes}) == len(g.nodes)  # no two nodes on top of each other


def test_example_files_are_what_the_build_script_writes(tmp_path):
    import importlib.util

    from nodeeditor.graph.examples import EXAMPLES_DIR

    spec = importlib.util.spec_from_file_location("build_examples", EXAMPLES_DIR / "build_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for path in module.build(tmp_path):
        assert filecmp.cmp(path, EXAMPLES_DIR / path.name, shallow=False), f"{path.name} is out of date"


def test_open_graph_takes_a_file_an_example_name_or_nothing(tmp_path):
    from nodeeditor.graph import GraphFileError, open_graph, save_graph

    assert open_graph(None).name == default_example().name
    assert open_graph("one_hot").name == "One-hot encoding"
    path = save_graph(load_example("one_hot"), tmp_path / "mine.ifg.json")
    assert open_graph(str(path)).file_path == path
    with pytest.raises(GraphFileError, match="no bundled example"):
        open_graph("definitely_not_an_example")
