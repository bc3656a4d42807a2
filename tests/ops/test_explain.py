"""The teaching explanations: each step names the cell the spec formula says, with the value
that moves and, for scatters, the fate of the update. Expected values come from the spec's
worked examples and from the spec formulas written out here."""
import numpy as np
import pytest

import ops
from ops.explain import explain, value_text


def test_gather_axis0_steps_follow_the_formula():
    data = np.array([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]])
    indices = np.array([[0, 1], [1, 2]])
    e = explain("Gather", [data, indices])
    assert e.count == 8
    for k in range(e.count):
        i, j, c = np.unravel_index(k, (2, 2, 2))
        m = e.move(k)
        assert m.element == (i, j, c)
        assert m.target == (indices[i, j], c)          # output[i, j, c] = data[indices[i, j], c]
        assert m.index_position == (i, j) and m.index_value == indices[i, j]
        assert m.value == data[indices[i, j], c]
    assert e.move(2).text.startswith("output[0, 1, 0] = data[1, 0] = 2.3")


def test_gather_axis1_names_the_index_between_the_outer_and_inner_dims():
    data = np.array([[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]])
    e = explain("Gather", [data, np.array([[0, 2]])], {"axis": 1})
    m = e.move(e.count - 1)                            # output[2, 0, 1] = data[2, indices[0, 1]]
    assert m.element == (2, 0, 1) and m.target == (2, 2) and m.index_position == (0, 1) and m.value == 5.9


def test_scatter9_example1_each_update_lands_where_the_spec_says():
    indices = np.array([[1, 0, 2], [0, 2, 1]])
    updates = np.array([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]])
    e = explain("Scatter", [np.zeros((3, 3)), indices, updates])
    for k in range(6):
        i, j = divmod(k, 3)
        m = e.move(k)
        assert m.target == (indices[i, j], j)          # data[indices[i][j]][j] = updates[i][j]
        assert m.value == updates[i, j]
        assert "Only this update writes" in m.text


def test_duplicates_with_reduction_none_say_who_wins():
    e = explain("ScatterND", [np.zeros(4, np.float32), np.array([[1], [1], [-1]]), np.array([5, 6, 7], np.float32)])
    assert "overwritten later by updates[1]" in e.move(0).text
    assert "last in row-major order, so it stays" in e.move(1).text
    third = e.move(2)
    assert third.target == (3,) and third.index_value == (-1,) and "indices[2] = [-1]" in third.text


def test_reduction_steps_show_the_running_fold_of_the_onnx_example():
    # ScatterElements docs, reduction add: data [[1, 2, 3, 4, 5]], indices [[1, 1]],
    # updates [[1.1, 2.1]], axis 1 -> output [[1, 5.2, 3, 4, 5]]
    e = explain("ScatterElements", [np.array([[1.0, 2, 3, 4, 5]], np.float32), np.array([[1, 1]]),
                                    np.array([[1.1, 2.1]], np.float32)], {"axis": 1, "reduction": "add"})
    assert "Fold 1 of 2 into this cell: 2 + 1.1 = 3.1" in e.move(0).text
    assert "Fold 2 of 2 into this cell: 3.1 + 2.1 = 5.2 (final)" in e.move(1).text
    e = explain("ScatterElements", [np.array([[1.0, 2, 3, 4, 5]]), np.array([[1, 1]]), np.array([[1.1, 2.1]])],
                {"axis": 1, "reduction": "max"})
    assert "max(2, 1.1) = 2" in e.move(0).text and "max(2, 2.1) = 2.1 (final)" in e.move(1).text


def test_tensor_scatter_circular_says_it_wraps():
    e = explain("TensorScatter", [np.zeros((2, 5), np.float32), np.ones((2, 2), np.float32), np.array([1, 4])],
                {"axis": 1, "mode": "circular"})
    last = e.move(3)                                   # batch 1, sequence step 1: (4 + 1) % 5 = 0
    assert last.target == (1, 0) and "wrapped" in last.text


def test_step_outside_the_range_is_an_index_error():
    e = explain("Gather", [np.arange(3), np.array([0])])
    with pytest.raises(IndexError):
        e.move(1)


@pytest.mark.parametrize("op,attrs", [
    ("ScatterElements", {"axis": 1, "reduction": "none"}),
    ("ScatterElements", {"axis": 0, "reduction": "add"}),
    ("ScatterElements", {"axis": 1, "reduction": "max"}),
    ("ScatterND", {"reduction": "mul"}),
    ("ScatterND", {"reduction": "none"}),
])
def test_output_after_each_step_is_the_running_state_of_the_scatter(op, attrs):
    """Step by step, the output builds up exactly as the spec's loop does: after step k it is
    the scatter of the first k+1 updates (a slow reference loop here), after the last step the
    op's output; and the fold sentence's result is the target cell's value at that step."""
    rng = np.random.default_rng(len(op) + len(attrs["reduction"]))
    data = rng.integers(-5, 6, (3, 4)).astype(np.float64)
    if op == "ScatterElements":
        axis = attrs["axis"]
        indices = rng.integers(0, data.shape[axis], (3, 4) if axis == 1 else (5, 4))
        updates = rng.integers(-5, 6, indices.shape).astype(np.float64)
    else:
        indices = rng.integers(0, 3, (6, 1))
        updates = rng.integers(-5, 6, (6, 4)).astype(np.float64)
    e = explain(op, [data, indices, updates], attrs)
    fold = {"none": lambda a, b: b, "add": np.add, "mul": np.multiply, "max": np.maximum}[attrs["reduction"]]
    running = data.copy()
    for k in range(e.count):
        move = e.move(k)
        running[move.target] = fold(running[move.target], updates.reshape(-1)[k])
        after = e.output_after(k)
        np.testing.assert_array_equal(after, running)
        if attrs["reduction"] != "none":
            assert move.text.split(" = ")[-1].split(" ")[0] == value_text(after[move.target])
    np.testing.assert_array_equal(e.output_after(e.count - 1), ops.run_op(op, [data, indices, updates], attrs))
