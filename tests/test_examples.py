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


# ---------------------------------------------------------------------- training examples
TRAINING_EXAMPLES = ["train_embedding", "train_segment_sum", "toolkit_training"]


def source_values(graph):
    """Every source's tensor (generators generated), by node id."""
    engine = Engine(graph, keep_intermediates=True)
    assert engine.run([n.id for n in graph.nodes if n.is_source]).ok
    return {n.id: engine.value(n.id) for n in graph.nodes if n.is_source}


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("name", TRAINING_EXAMPLES)
def test_training_brings_each_examples_loss_down_100_fold_within_200_steps(name, optimizer):
    from nodeeditor.graph import OptimizerSettings, train

    result = train(load_example(name), 200, OptimizerSettings(optimizer))
    assert result.ok and len(result.losses) == 200
    assert result.final_loss <= result.losses[0] / 100, (result.losses[0], result.final_loss)


def test_indexflow_train_writes_a_trained_graph_whose_loss_is_100_fold_lower(tmp_path, capsys):
    from nodeeditor import cli
    from nodeeditor.graph import Backward, load_graph

    for name in TRAINING_EXAMPLES:
        before = Backward(Engine(load_example(name))).run().loss
        out = tmp_path / f"{name}.ifg.json"
        assert cli.main(["train", name, "--steps", "200", "-o", str(out)]) == 0
        text = capsys.readouterr().out
        assert "step   1/200  loss" in text and "step 200/200  loss" in text and f"wrote {out}" in text
        trained = load_graph(out)
        after = Backward(Engine(trained)).run().loss
        assert after <= before / 100, (name, before, after)
        for node in trained.trainable_sources():   # trained generators became literals, same ids
            assert node.kind == "literal" and load_example(name).node(node.id).name == node.name


def test_train_embedding_gradient_matches_the_hand_derived_formula():
    from nodeeditor.graph import Backward

    g = load_example("train_embedding")
    values = source_values(g)
    table, target, ids = values["table"].astype(np.float64), values["targets"].astype(np.float64), values["token_ids"]
    # loss = mean over the N target numbers of (table[ids] - target)^2, so
    # d table[r] = sum over the positions p with ids[p] == r of 2/N (table[r] - target[p])
    expected = np.zeros_like(table)
    n = target.size
    for p in np.ndindex(ids.shape):
        expected[ids[p]] += 2.0 / n * (table[ids[p]] - target[p])
    result = Backward(Engine(g)).run()
    np.testing.assert_allclose(result.source_gradients()["table"], expected, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(result.loss, np.mean((table[ids] - target) ** 2), rtol=1e-6)


def test_train_segment_sum_gradient_matches_the_hand_derived_formula():
    from nodeeditor.graph import Backward

    g = load_example("train_segment_sum")
    values = source_values(g)
    v, seg, target = values["values"].astype(np.float64), values["segments"], values["targets"].astype(np.float64)
    sums = np.zeros(3)
    for j, s_ in enumerate(seg):
        sums[s_] += v[j]
    # loss = mean over the 3 segments of (sum_s - target_s)^2: each value of segment s gets 2/3 (sum_s - target_s)
    expected = np.array([2.0 / 3 * (sums[s_] - target[s_]) for s_ in seg])
    result = Backward(Engine(g)).run()
    np.testing.assert_allclose(result.source_gradients()["values"], expected, rtol=1e-6)


def _toolkit_expected(values, coefficient):
    """The toolkit example by hand: out = canvas with out[indices[i, j], j] = table[rows[i], j];
    d out = 2/9 (out - target); the block sends coefficient * d out on: to the canvas where
    it was not written, to the table row each written cell came from."""
    table, canvas, target = (values[k].astype(np.float64) for k in ("table", "canvas", "target"))
    rows, idx = values["rows"], values["indices"]
    out = canvas.copy()
    written = np.zeros(canvas.shape, bool)
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[idx[i, j], j] = table[rows[i], j]
            written[idx[i, j], j] = True
    d_out = 2.0 / out.size * (out - target)
    d_canvas = np.where(written, 0.0, coefficient * d_out)
    d_table = np.zeros_like(table)
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            d_table[rows[i], j] += coefficient * d_out[idx[i, j], j]
    return d_table, d_canvas


def test_toolkit_training_coefficient_scales_every_upstream_gradient():
    from nodeeditor.graph import Backward

    g = load_example("toolkit_training")
    block = g.node("block")
    assert block.op == "ScatterElements" and block.training and block.loss_coefficient == 0.5
    values = source_values(g)
    backward = Backward(Engine(g))
    for coefficient in (0.5, 1.0, 2.0):
        g.set_loss_coefficient("block", coefficient)
        grads = backward.run().source_gradients()
        d_table, d_canvas = _toolkit_expected(values, coefficient)
        np.testing.assert_allclose(grads["table"], d_table, rtol=1e-5, atol=1e-8)
        np.testing.assert_allclose(grads["canvas"], d_canvas, rtol=1e-5, atol=1e-8)
    g.set_training("block", False)
    grads = backward.run().source_gradients()
    assert not grads["table"].any() and not grads["canvas"].any()


# ---------------------------------------------------------------------- the collection itself
def test_examples_have_titles_descriptions_and_a_default():
    infos = list_examples()
    assert infos[0].name == DEFAULT_EXAMPLE
    assert len(infos) == 16
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
