"""Steps in the op-agnostic form (ops.steps): for every seed example, the sequence (source,
index, destination, formula, value) is the seed page's loop order (tests/ops/seed_steps.py
writes it out from the pages); GatherND and ScatterND move a slice per step by default, single
elements on request."""
import numpy as np
import pytest

import ops
from ops.explain import Explanation, explain
from ops.steps import Cell, Granularity, array_text, position_text, step_line

from .seed_steps import SCATTERND_EX2, SEEDS


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"{s.graph}/{s.node}")
def test_every_seed_example_steps_in_the_loop_order_of_its_page(seed):
    e = explain(seed.op, list(seed.inputs), seed.attrs)
    assert e.count == len(seed.steps)
    for n, (step, want) in enumerate(zip(e.steps(), seed.steps, strict=True)):
        assert step.number == n
        assert step.sources == (Cell(*want.source),)
        assert step.index == (Cell(*want.index),)
        assert step.destination == Cell(*want.destination)
        np.testing.assert_array_equal(step.value, want.value)
        assert step_line(step) == want.line


def test_scatternd_example2_is_two_slice_steps_as_the_onnx_page_explains_it():
    """"updates[1] → output[2, :, :]": two steps, not 32."""
    e = explain("ScatterND", list(SCATTERND_EX2.inputs))
    assert e.granularity is Granularity.SLICE and e.slices_possible and e.count == 2
    second = e.step(1)
    assert second.sources == (Cell("updates", (1,)),) and second.destination == Cell("output", (2,))
    assert "updates[1, :, :] = [[1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3], [4, 4, 4, 4]] → output[2, :, :]" \
        in second.formula
    assert second.note == "Only this update writes output[2, :, :]."


def test_single_elements_are_an_option_for_slice_ops():
    data, indices, updates = SCATTERND_EX2.inputs
    e = explain("ScatterND", [data, indices, updates], granularity=Granularity.ELEMENT)
    assert e.count == 32 and e.granularity is Granularity.ELEMENT
    # the 17th element step: updates[1, 0, 0] -> output[indices[1], 0, 0] = output[2, 0, 0]
    step = e.step(16)
    assert step.sources == (Cell("updates", (1, 0, 0)),) and step.destination == Cell("output", (2, 0, 0))
    assert step.index == (Cell("indices", (1,)),) and step.value == 1


def test_ops_without_slices_step_by_element_whatever_is_asked():
    e = explain("Gather", [np.arange(6).reshape(3, 2), np.array([2, 0])], granularity=Granularity.SLICE)
    assert not e.slices_possible and e.granularity is Granularity.ELEMENT and e.count == 4
    # GatherND with k == rank moves single elements: no slices there either
    e = explain("GatherND", [np.arange(4).reshape(2, 2), np.array([[0, 0], [1, 1]])])
    assert not e.slices_possible and e.count == 2


def test_gathernd_slices_follow_the_spec_with_batch_dims():
    """GatherND example 5 (batch_dims 1): output[b, ...] = data[b, indices[b]] -- one step
    per index tuple, each reading a row of data."""
    data = np.array([[[0, 1], [2, 3]], [[4, 5], [6, 7]]])
    indices = np.array([[1], [0]])
    e = explain("GatherND", [data, indices], {"batch_dims": 1})
    assert e.count == 2
    want = [((0,), (0, 1), [2, 3]), ((1,), (1, 0), [4, 5])]     # output[b] = data[b, indices[b]]
    for step, (out, src, value) in zip(e.steps(), want, strict=True):
        assert step.destination == Cell("output", out) and step.sources == (Cell("data", src),)
        assert step.index == (Cell("indices", out),)
        np.testing.assert_array_equal(step.value, value)
    assert e.step(0).formula == "output[0, :] = data[0, 1, :] = [2, 3]   (indices[0] = [1])"


@pytest.mark.parametrize("reduction", ["none", "add", "max"])
def test_slice_steps_build_the_output_as_the_spec_loop_does(reduction):
    """After slice step k the output is the spec loop run over the first k + 1 index tuples;
    a reduction's formula ends with the slice it leaves."""
    rng = np.random.default_rng(7)
    data = rng.integers(-5, 6, (3, 4)).astype(np.float64)
    indices = np.array([[2], [0], [2]])
    updates = rng.integers(-5, 6, (3, 4)).astype(np.float64)
    attrs = {"reduction": reduction}
    e = explain("ScatterND", [data, indices, updates], attrs)
    f = {"none": lambda a, b: b, "add": np.add, "max": np.maximum}[reduction]
    running = data.copy()
    for k, idx in enumerate(np.ndindex(indices.shape[:-1])):
        running[tuple(indices[idx])] = f(running[tuple(indices[idx])], updates[idx])
        np.testing.assert_array_equal(e.output_after(k), running)
        if reduction != "none":
            assert e.step(k).formula.endswith("= [" + ", ".join(f"{v:g}" for v in running[indices[idx][0]]) + "]")
    assert "overwritten later by updates[2, :]" in e.step(0).note if reduction == "none" else True
    np.testing.assert_array_equal(e.output_after(e.count - 1), ops.run_op("ScatterND", [data, indices, updates], attrs))


def test_stepping_back_gives_the_same_state_as_before():
    """Going k -> k+1 -> k gives exactly the step and the output state of k."""
    data, indices, updates = SCATTERND_EX2.inputs
    e = Explanation("ScatterND", [data, indices, updates], {"reduction": "add"}, Granularity.ELEMENT)
    for k in range(e.count - 1):
        before, state = e.step(k), e.output_after(k).copy()
        e.step(k + 1)
        e.output_after(k + 1)
        assert e.step(k) == before
        np.testing.assert_array_equal(e.output_after(k), state)


def test_texts_of_cells_and_long_slices():
    assert Cell("output", (2,)).text(3) == "output[2, :, :]" and Cell("output", (2, 1)).text() == "output[2, 1]"
    assert Cell("output", (2,)).covers((2, 0, 3)) and not Cell("output", (2,)).covers((1, 0, 3))
    assert position_text((), 2) == "[:, :]"
    assert array_text(np.arange(5), str) == "[0, 1, 2, 3, 4]"
    assert array_text(np.arange(100), str) == "[0, 1, 2, …, 97, 98, 99]"
