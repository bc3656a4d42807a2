"""The teaching explanations: each step names the cell the spec formula says, with the value
that moves and, for scatters, the fate of the update. Expected values come from the spec's
worked examples and from the spec formulas written out here."""
import numpy as np
import pytest

import ops
from ops.explain import Granularity, explain, value_text


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


def test_tensor_scatter_circular_writes_the_modulo_with_max_sequence_length():
    """Circular mode: present[b, (write_indices[b] + s) mod max_sequence_length] = update[b, s];
    the sentence writes that arithmetic out, never "3 + 1 = 0"."""
    e = explain("TensorScatter", [np.zeros((2, 4), np.float32), np.ones((2, 2), np.float32), np.array([1, 3])],
                {"axis": 1, "mode": "circular"})
    assert "sequence position (1 + 1) mod 4 = 2" in e.move(1).text
    wrapped = e.move(3)                                # (3 + 1) mod 4 = 0
    assert wrapped.target == (1, 0)
    assert "(write_indices[1] = 3; sequence position (3 + 1) mod 4 = 0, wrapped to the start)" in wrapped.text
    assert "3 + 1 = 0" not in wrapped.text.replace("(3 + 1) mod 4 = 0", "")
    # a negative write index wraps too (Python %): (-1 + 0) mod 4 = 3
    e = explain("TensorScatter", [np.zeros((1, 4, 2)), np.ones((1, 1, 2)), np.array([-1])],
                {"axis": 1, "mode": "circular"})
    assert e.move(0).target == (0, 3)                 # the whole row at sequence position 3 moves
    assert explain("TensorScatter", [np.zeros((1, 4, 2)), np.ones((1, 1, 2)), np.array([-1])],
                   {"axis": 1, "mode": "circular"}, Granularity.ELEMENT).move(1).target == (0, 3, 1)
    assert "sequence position (-1 + 0) mod 4 = 3, a negative write index counts from the end" in e.move(0).text
    # linear mode never wraps: plain addition
    e = explain("TensorScatter", [np.zeros((1, 5)), np.ones((1, 2)), np.array([2])], {"axis": 1})
    assert "(write_indices[0] = 2; sequence position 2 + 1 = 3)" in e.move(1).text


@pytest.mark.parametrize("op,inputs,attrs,step,expected", [
    # Gather axis 1: output[i, j] = data[i, indices[j]]; -1 on an axis of 4 is 3
    ("Gather", [np.arange(12.0).reshape(3, 4), np.array([-1, 0])], {"axis": 1}, 0,
     "output[0, 0] = data[0, 3] = 3   (indices[0] = -1, from the end: 4 - 1 = 3)"),
    # GatherElements axis 0: output[i, j] = data[indices[i, j], j]; -2 on an axis of 3 is 1
    ("GatherElements", [np.arange(6.0).reshape(3, 2), np.array([[-2, 0]])], {"axis": 0}, 0,
     "output[0, 0] = data[1, 0] = 2   (indices[0, 0] = -2, from the end: 3 - 2 = 1)"),
    # GatherND: each tuple entry counts along its own axis: [0, -1] on (3, 4) is [0, 3]
    ("GatherND", [np.arange(12.0).reshape(3, 4), np.array([[0, -1], [-3, 2]])], {}, 1,
     "output[1] = data[0, 2] = 2   (indices[1] = [-3, 2], from the end: [3 - 3, 2] = [0, 2])"),
    # GatherND with batch_dims 1: the tuple indexes data axes 1.. (size 4)
    ("GatherND", [np.arange(12.0).reshape(3, 4), np.array([[-1], [0], [1]])], {"batch_dims": 1}, 0,
     "output[0] = data[0, 3] = 3   (indices[0] = [-1], from the end: [4 - 1] = [3])"),
])
def test_negative_gather_indices_say_they_count_from_the_end(op, inputs, attrs, step, expected):
    assert explain(op, inputs, attrs).move(step).text == expected


@pytest.mark.parametrize("op,attrs", [("ScatterElements", {"axis": 1}), ("Scatter", {"axis": 1})])
def test_negative_scatter_elements_index_says_it_counts_from_the_end(op, attrs):
    """The reviewer's case: data (2, 5), indices[1, 0] = -1 on axis 1 writes column 5 - 1 = 4."""
    e = explain(op, [np.zeros((2, 5)), np.array([[0], [-1]]), np.array([[1.0], [0.5]])], attrs)
    assert e.move(1).text.splitlines()[0] == \
        "updates[1, 0] = 0.5 → output[1, 4]   (indices[1, 0] = -1, from the end: 5 - 1 = 4)"
    assert "from the end" not in e.move(0).text      # a non-negative index is just its value


def test_negative_scatter_nd_tuple_says_it_counts_from_the_end():
    e = explain("ScatterND", [np.zeros((2, 3)), np.array([[-1, -3], [0, 1]]), np.array([7.0, 8.0])])
    assert e.move(0).text.splitlines()[0] == \
        "updates[0] = 7 → output[1, 0]   (indices[0] = [-1, -3], from the end: [2 - 1, 3 - 3] = [1, 0])"
    assert "(indices[1] = [0, 1])" in e.move(1).text


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
    op's output; and the fold sentence's result is the target cell's value at that step.
    (Element steps: ScatterND's slice steps are tested in test_explain_steps.py.)"""
    rng = np.random.default_rng(len(op) + len(attrs["reduction"]))
    data = rng.integers(-5, 6, (3, 4)).astype(np.float64)
    if op == "ScatterElements":
        axis = attrs["axis"]
        indices = rng.integers(0, data.shape[axis], (3, 4) if axis == 1 else (5, 4))
        updates = rng.integers(-5, 6, indices.shape).astype(np.float64)
    else:
        indices = rng.integers(0, 3, (6, 1))
        updates = rng.integers(-5, 6, (6, 4)).astype(np.float64)
    e = explain(op, [data, indices, updates], attrs, granularity=Granularity.ELEMENT)
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


def test_a_float16_max_tie_of_signed_zeros_is_explained_as_the_op_computes_it():
    """max(0, -0) keeps the update (-0) in float16 as in float32: the sentence said 0 while the
    op and the step's output said -0."""
    for dtype in (np.float16, np.float32):
        inputs = [np.array([0.0], dtype), np.array([0]), np.array([-0.0], dtype)]
        e = explain("ScatterElements", inputs, {"reduction": "max"})
        assert "max(0, -0) = -0" in e.move(0).text
        assert np.signbit(e.output_after(0)[0]) and np.signbit(ops.run_op("ScatterElements", inputs,
                                                                          {"reduction": "max"})[0])


def test_inputs_by_name_as_the_engine_reads_them():
    """README: `explain(op, inputs, attrs)` steps through a node's values read with
    `Engine.input_values` (a dict by input name); the dict raised "data must have rank >= 1"
    (its keys were taken as the inputs). Named, they give the steps of the same values in
    order; an unknown name is said."""
    data, indices, updates = np.zeros((3, 3)), np.array([[1, 0, 2], [0, 2, 1]]), np.arange(6.0).reshape(2, 3)
    by_name = explain("ScatterElements", {"indices": indices, "updates": updates, "data": data}, {"axis": 0})
    in_order = explain("ScatterElements", [data, indices, updates], {"axis": 0})
    assert by_name.count == in_order.count == 6
    assert [by_name.why(k) for k in range(6)] == [in_order.why(k) for k in range(6)]
    np.testing.assert_array_equal(by_name.output_after(5), in_order.output_after(5))
    with pytest.raises(ops.OpError, match="no input called 'idx'; its inputs are data, indices"):
        explain("Gather", {"data": data, "idx": indices})
