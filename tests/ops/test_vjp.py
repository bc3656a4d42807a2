"""ops.vjp: every op, rank, axis and reduction, with negative and duplicate indices, against a
loop-by-loop reference VJP (``vjp_reference.py``, written from the rules) and against central
finite differences in float64 away from ties; ties against the even-share rule; overwritten
duplicates get 0; dtypes, None for what has no gradient, and the errors.

The finite differences differentiate the forward op as shipped (``ops.run_op``, itself checked
against the spec reference in test_properties.py); the expected gradients never come from
``ops.vjp``.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import ops
from ops import accel

from . import vjp_reference
from ._cases import VARIANTS, case_strategy
from ._helpers import assert_inputs_unchanged, copies

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))

IDS = [f"{op}-{r}" if r else op for op, r in VARIANTS]


def _value_positions(op: str) -> tuple[int, ...]:
    """Positions of the differentiable inputs (written out here, not read from ops)."""
    if op in ("Gather", "GatherElements", "GatherND"):
        return (0,)
    return (0, 1) if op == "TensorScatter" else (0, 2)


def _revalue(case, rng, kind: str):
    """The case with fresh float64 values: ``spread`` distinct values at least 0.01 apart over
    all value inputs together (no ties anywhere), ``small`` magnitudes in [0.5, 2] with random
    signs (products stay tame), ``ties`` values from {1, 2, 3} (many ties), ``nans`` distinct
    values with about 30% NaN."""
    inputs = list(case.inputs)
    positions = _value_positions(case.op)
    sizes = [inputs[p].size for p in positions]
    total = sum(sizes)
    if kind == "spread":
        pool = (rng.permutation(total) - total / 2) * 0.01 * rng.uniform(1, 3)
    elif kind == "nans":
        pool = (rng.permutation(total) - total / 2) * 0.01
        pool[rng.random(total) < 0.3] = np.nan
    elif kind == "small":
        pool = rng.uniform(0.5, 2.0, total) * rng.choice([-1.0, 1.0], total)
    else:
        pool = rng.integers(1, 4, total).astype(np.float64)
    start = 0
    for p, n in zip(positions, sizes, strict=True):
        inputs[p] = pool[start:start + n].reshape(inputs[p].shape).astype(np.float64)
        start += n
    return inputs


def _grad_for(case, inputs, rng):
    out = ops.run_op(case.op, inputs, case.attrs)
    return rng.standard_normal(out.shape)


def _finite_differences(op, inputs, attrs, grad, h=1e-6):
    """d sum(grad * op(inputs)) / d input, by central differences, for each value input."""
    grads = [None] * len(inputs)
    for p in _value_positions(op):
        d = np.zeros(inputs[p].shape)
        for i in np.ndindex(*inputs[p].shape):
            sums = []
            for step in (h, -h):
                moved = [a if a is None else a.copy() for a in inputs]
                moved[p][i] += step
                sums.append(float(np.sum(grad * ops.run_op(op, moved, attrs))))
            d[i] = (sums[0] - sums[1]) / (2 * h)
        grads[p] = d
    return grads


def _assert_grads(got, want, rtol=1e-12, atol=1e-12):
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        if w is None:
            assert g is None
        else:
            assert g is not None and g.shape == w.shape and g.dtype == np.float64
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _padded(got, n):
    return tuple(got) + (None,) * (n - len(got))


@pytest.mark.parametrize("op, reduction", VARIANTS, ids=IDS)
def test_vjp_matches_the_loop_reference_for_every_op_rank_axis_and_reduction(op, reduction):
    @SETTINGS
    @given(case=case_strategy(op, "float64", reduction))
    def run(case):
        rng = np.random.default_rng(len(repr(case.attrs)) + case.inputs[0].size)
        inputs = _revalue(case, rng, "small" if reduction == "mul" else "spread")
        grad = _grad_for(case, inputs, rng)
        got = ops.vjp(case.op, inputs, case.attrs, grad)
        want = vjp_reference.vjp(case.op, inputs, case.attrs, grad)
        _assert_grads(got, _padded(want, len(got)))

    run()


@pytest.mark.parametrize("op, reduction", VARIANTS, ids=IDS)
def test_vjp_matches_central_finite_differences_away_from_ties(op, reduction):
    @settings(SETTINGS, max_examples=8)
    @given(case=case_strategy(op, "float64", reduction))
    def run(case):
        rng = np.random.default_rng(7 + case.inputs[0].size)
        inputs = _revalue(case, rng, "small" if reduction == "mul" else "spread")
        grad = _grad_for(case, inputs, rng)
        got = ops.vjp(case.op, inputs, case.attrs, grad)
        want = _finite_differences(case.op, inputs, case.attrs, grad)
        _assert_grads(got, _padded(want, len(got)), rtol=1e-6, atol=1e-6)

    run()


@pytest.mark.parametrize("op", ["ScatterElements", "ScatterND"])
@pytest.mark.parametrize("reduction", ["max", "min"])
def test_ties_share_the_gradient_evenly_as_the_reference_says(op, reduction):
    @SETTINGS
    @given(case=case_strategy(op, "float64", reduction))
    def run(case):
        rng = np.random.default_rng(case.inputs[0].size)
        inputs = _revalue(case, rng, "ties")
        grad = _grad_for(case, inputs, rng)
        got = ops.vjp(case.op, inputs, case.attrs, grad)
        _assert_grads(got, vjp_reference.vjp(case.op, inputs, case.attrs, grad))

    run()


@pytest.mark.parametrize("op", ["ScatterElements", "ScatterND"])
@pytest.mark.parametrize("reduction", ["max", "min"])
def test_nan_results_go_to_the_nan_contributors_as_the_reference_says(op, reduction):
    @SETTINGS
    @given(case=case_strategy(op, "float64", reduction))
    def run(case):
        rng = np.random.default_rng(case.inputs[0].size + 1)
        inputs = _revalue(case, rng, "nans")
        grad = _grad_for(case, inputs, rng)
        got = ops.vjp(case.op, inputs, case.attrs, grad)
        _assert_grads(got, vjp_reference.vjp(case.op, inputs, case.attrs, grad))

    run()


def _last_writer_mask(imap) -> np.ndarray:
    """True for each update element that is the last (row-major) to write its target cell: a
    plain loop over the flat offsets, independent of ops' own winner computation."""
    offsets = imap.flat_offsets().reshape(-1)
    last = {}
    for position, offset in enumerate(offsets.tolist()):
        last[offset] = position
    mask = np.zeros(offsets.size, dtype=bool)
    mask[list(last.values())] = True
    return mask.reshape(imap.element_shape)


@pytest.mark.parametrize("op", ["Scatter", "ScatterND", "TensorScatter"])
def test_the_updates_that_get_no_gradient_are_exactly_those_a_later_duplicate_overwrites(op):
    @SETTINGS
    @given(case=case_strategy(op, "float64", "none" if op == "ScatterND" else None))
    def run(case):
        inputs = _revalue(case, np.random.default_rng(2), "spread")
        grad = np.ones(ops.run_op(case.op, inputs, case.attrs).shape)
        d_updates = ops.vjp(case.op, inputs, case.attrs, grad)[_value_positions(op)[1]]
        np.testing.assert_array_equal(d_updates != 0, _last_writer_mask(ops.index_map(case.op, inputs, case.attrs)))

    run()


def test_a_tie_between_the_data_value_and_two_updates_splits_the_gradient_in_three():
    data = np.array([2.0, 5.0])
    indices = np.array([0, 0, 0, 1])
    updates = np.array([2.0, 1.0, 2.0, 4.0])
    grad = np.array([6.0, 10.0])
    d_data, _, d_updates = ops.vjp("ScatterElements", [data, indices, updates], {"reduction": "max"}, grad)
    np.testing.assert_array_equal(d_data, [2.0, 10.0])   # 5 beats 4: data keeps cell 1
    np.testing.assert_array_equal(d_updates, [2.0, 0.0, 2.0, 0.0])


def test_min_gives_the_gradient_to_the_smallest_contributor_only():
    data = np.array([[3.0, 3.0]])
    indices = np.array([[0], [0]])
    updates = np.array([[1.0, 7.0], [2.0, 3.0]])
    d_data, _, d_updates = ops.vjp("ScatterND", [data, np.zeros((2, 1), np.int64), updates], {"reduction": "min"},
                                   np.array([[1.0, 1.0]]))
    assert indices.shape == (2, 1)
    np.testing.assert_array_equal(d_data, [[0.0, 0.5]])
    np.testing.assert_array_equal(d_updates, [[1.0, 0.0], [0.0, 0.5]])


def test_a_nan_result_is_shared_by_the_contributors_that_are_nan():
    data = np.array([np.nan, 1.0])
    indices = np.array([0, 0, 0, 1])
    updates = np.array([4.0, np.nan, -1.0, np.nan])
    d_data, _, d_updates = ops.vjp("ScatterElements", [data, indices, updates], {"reduction": "max"},
                                   np.array([8.0, 3.0]))
    np.testing.assert_array_equal(d_data, [4.0, 0.0])
    np.testing.assert_array_equal(d_updates, [0.0, 4.0, 0.0, 3.0])


@pytest.mark.parametrize("op", ["Scatter", "ScatterElements", "ScatterND"])
def test_an_update_overwritten_by_a_later_duplicate_gets_exactly_zero(op):
    data = np.array([1.0, 2.0, 3.0, 4.0])
    indices = np.array([2, -2, 0, 2])  # -2 is 2 as well: three writes to cell 2, the last wins
    updates = np.array([10.0, 20.0, 30.0, 40.0])
    grad = np.array([0.5, 1.5, 2.5, 3.5])
    if op == "ScatterND":
        indices = indices[:, None]
    attrs = {} if op == "Scatter" else {"reduction": "none"}
    d_data, d_indices, d_updates = ops.vjp(op, [data, indices, updates], attrs, grad)
    assert d_indices is None
    np.testing.assert_array_equal(d_data, [0.0, 1.5, 0.0, 3.5])
    np.testing.assert_array_equal(d_updates, [0.0, 0.0, 0.5, 2.5])
    assert np.signbit(d_updates).sum() == 0  # +0, not -0


def test_reduction_is_respected_unlike_onnxruntimes_scatter_elements_gradient():
    """onnxruntime's training gradient for ScatterElements ignores ``reduction``: it returns
    grad_output gathered at every update's target, overwritten duplicates included. Here the
    correct answers are worked out by hand for none, add and mul."""
    data = np.array([1.0, 2.0, 3.0])
    indices = np.array([1, 1, 2])
    updates = np.array([4.0, 5.0, 6.0])
    grad = np.array([10.0, 20.0, 30.0])
    gathered = np.array([20.0, 20.0, 30.0])  # what a reduction-blind gradient gives every reduction
    expected = {
        # out = [1, 5, 6]: update 0 is overwritten by update 1
        "none": ([10.0, 0.0, 0.0], [0.0, 20.0, 30.0]),
        # out = [1, 2+4+5, 3+6]
        "add": ([10.0, 20.0, 30.0], [20.0, 20.0, 30.0]),
        # out = [1, 2*4*5, 3*6]: each factor gets grad times the product of the others
        "mul": ([10.0, 20.0 * 4 * 5, 30.0 * 6], [20.0 * 2 * 5, 20.0 * 2 * 4, 30.0 * 3]),
    }
    for reduction, (want_data, want_updates) in expected.items():
        d_data, _, d_updates = ops.vjp("ScatterElements", [data, indices, updates], {"reduction": reduction}, grad)
        np.testing.assert_array_equal(d_data, want_data)
        np.testing.assert_array_equal(d_updates, want_updates)
        if reduction != "add":
            assert not np.array_equal(d_updates, gathered)


@pytest.mark.parametrize("values, want", [
    # one zero among the contributors: only the zero gets a nonzero gradient
    ([2.0, 0.0, 3.0, 5.0], [0.0, 30.0, 0.0, 0.0]),
    # the data value is the zero
    ([0.0, 4.0, 3.0, 5.0], [60.0, 0.0, 0.0, 0.0]),
    # two zeros: nobody gets anything
    ([2.0, 0.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0]),
    # no zero: the product of the others
    ([2.0, -1.0, 3.0, 5.0], [-15.0, 30.0, -10.0, -6.0]),
])
def test_mul_gives_each_factor_the_product_of_the_others_exactly_with_zeros(values, want):
    data = np.array([values[0], 7.0])
    updates = np.array(values[1:])
    d_data, _, d_updates = ops.vjp("ScatterElements", [data, np.zeros(3, np.int64), updates], {"reduction": "mul"},
                                   np.array([1.0, 1.0]))
    np.testing.assert_array_equal(np.concatenate([d_data[:1], d_updates]), want)
    assert d_data[1] == 1.0  # an unwritten cell


def test_mul_with_many_updates_in_one_cell_matches_the_reference():
    rng = np.random.default_rng(3)
    data = rng.uniform(0.9, 1.1, (5, 3))
    indices = rng.integers(-5, 5, (200, 1))
    indices[:150] = 2  # one cell gets 150 factors: many doubling steps
    updates = rng.uniform(0.9, 1.1, (200, 3))
    updates[17, 1] = 0.0
    grad = rng.standard_normal((5, 3))
    got = ops.vjp("ScatterND", [data, indices, updates], {"reduction": "mul"}, grad)
    want = vjp_reference.vjp("ScatterND", [data, indices, updates], {"reduction": "mul"}, grad)
    _assert_grads(got, want, rtol=1e-12, atol=1e-300)


def test_gather_adds_up_duplicate_reads_and_leaves_unread_rows_zero():
    data = np.arange(8.0).reshape(4, 2)
    grad = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    d_data, d_indices = ops.vjp("Gather", [data, np.array([3, -1, 0])], None, grad)
    assert d_indices is None
    np.testing.assert_array_equal(d_data, [[5.0, 6.0], [0.0, 0.0], [0.0, 0.0], [4.0, 6.0]])


def test_tensor_scatter_routes_the_gradient_through_the_written_positions_in_circular_mode():
    cache = np.zeros((2, 4, 1))
    update = np.ones((2, 2, 1))
    grad = np.arange(8.0).reshape(2, 4, 1)
    d_cache, d_update, d_write = ops.vjp("TensorScatter", [cache, update, np.array([3, 1])],
                                         {"axis": 1, "mode": "circular"}, grad)
    assert d_write is None
    np.testing.assert_array_equal(d_cache[..., 0], [[0, 1, 2, 0], [4, 0, 0, 7]])
    np.testing.assert_array_equal(d_update[..., 0], [[3, 0], [5, 6]])


def test_an_omitted_optional_input_gets_none():
    grads = ops.vjp("TensorScatter", [np.zeros((1, 3, 2)), np.ones((1, 2, 2))], None, np.ones((1, 3, 2)))
    assert len(grads) == 3 and grads[2] is None
    np.testing.assert_array_equal(grads[1], np.ones((1, 2, 2)))


def test_attributes_not_given_take_the_schema_defaults():
    data = np.arange(6.0).reshape(2, 3)
    indices = np.array([[1, 0, 1]])
    updates = np.array([[7.0, 8.0, 9.0]])
    grad = np.arange(6.0).reshape(2, 3) + 1
    explicit = ops.vjp("ScatterElements", [data, indices, updates], {"axis": 0, "reduction": "none"}, grad)
    for attrs in (None, {}):
        implicit = ops.vjp("ScatterElements", [data, indices, updates], attrs, grad)
        _assert_grads(implicit, explicit)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("op, reduction", [("Gather", None), ("ScatterElements", "none"), ("ScatterND", "add"),
                                           ("ScatterElements", "mul"), ("ScatterND", "max"),
                                           ("TensorScatter", None)])
def test_narrow_floats_get_gradients_of_their_own_dtype_computed_in_float32(dtype, op, reduction):
    np_type = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)

    @settings(SETTINGS, max_examples=10)
    @given(case=case_strategy(op, "float64", reduction))
    def run(case):
        rng = np.random.default_rng(case.inputs[0].size)
        wide = _revalue(case, rng, "small" if reduction == "mul" else "spread")
        narrow = [a.astype(np_type) if i in _value_positions(op) else a for i, a in enumerate(wide)]
        grad = _grad_for(case, wide, rng).astype(np_type)
        got = ops.vjp(case.op, narrow, case.attrs, grad)
        as_f64 = [a.astype(np.float64) if i in _value_positions(op) else a for i, a in enumerate(narrow)]
        want = vjp_reference.vjp(case.op, as_f64, case.attrs, grad.astype(np.float64))
        for p in _value_positions(op):
            assert got[p].dtype == np_type and got[p].shape == narrow[p].shape
            # one rounding to the narrow type at the end (float32: also the float32 arithmetic)
            tol = float(ml_dtypes.finfo(np_type).eps) * (4 if dtype == "float32" else 1)
            np.testing.assert_allclose(got[p].astype(np.float64), want[p], rtol=tol, atol=tol)

    run()


@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool", "string"])
def test_integer_bool_and_string_inputs_have_no_gradient(dtype):
    data = np.array([1, 0, 1]).astype(object if dtype == "string" else dtype)
    if dtype == "string":
        data = np.array(["a", "b", "c"], dtype=object)
    updates = data[:2].copy()
    assert ops.vjp("ScatterElements", [data, np.array([0, 2]), updates], None, None) == (None, None, None)
    assert ops.vjp("Gather", [data, np.array([2])], {"axis": 0}, np.zeros(1)) == (None, None)
    with pytest.raises(ops.OpError, match=r"has shape \(2,\); expected \(1,\)"):
        ops.vjp("Gather", [data, np.array([2])], {"axis": 0}, np.zeros(2))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_tensors_raise_an_op_error_naming_the_dtype(dtype):
    with pytest.raises(ops.OpError, match=f"no gradient for {dtype}"):
        ops.vjp("Gather", [np.zeros(3, dtype), np.array([0])], None, np.zeros(1, dtype))


def test_the_small_float_formats_of_tensor_scatter_raise_an_op_error_naming_the_dtype():
    cache = np.zeros((1, 2, 1), ml_dtypes.float8_e4m3fn)
    with pytest.raises(ops.OpError, match="no gradient for float8e4m3fn"):
        ops.vjp("TensorScatter", [cache, cache[:, :1]], None, cache)


def test_a_wrong_grad_output_shape_raises_saying_what_was_expected():
    data = np.zeros((4, 3))
    with pytest.raises(ops.OpError, match=r"Gather: grad_output has shape \(3, 2\); expected \(2, 3\)"):
        ops.vjp("Gather", [data, np.array([0, 1])], None, np.zeros((3, 2)))
    with pytest.raises(ops.OpError, match=r"grad_output has shape \(2, 3\); expected \(4, 3\)"):
        ops.vjp("ScatterND", [data, np.array([[0]]), np.ones((1, 3))], None, np.zeros((2, 3)))


def test_a_wrong_grad_output_dtype_raises_saying_what_was_expected():
    data = np.zeros((4, 3), np.float32)
    with pytest.raises(ops.OpError, match="grad_output has dtype float64; expected float32"):
        ops.vjp("Gather", [data, np.array([0, 1])], None, np.zeros((2, 3)))


def test_a_missing_grad_output_for_a_float_op_raises():
    with pytest.raises(ops.OpError, match=r"grad_output is missing; expected float64 of shape \(2,\)"):
        ops.vjp("Gather", [np.zeros(3), np.array([0, 1])], None, None)


def test_data_and_updates_of_different_dtypes_raise():
    with pytest.raises(ops.OpError, match="updates dtype float32 differs from data dtype float64"):
        ops.vjp("ScatterND", [np.zeros(3), np.array([[0]]), np.ones(1, np.float32)], None, np.zeros(3))


def test_bad_inputs_raise_the_forward_ops_errors():
    with pytest.raises(ops.IndexOutOfRangeError, match="out of range"):
        ops.vjp("Gather", [np.zeros(3), np.array([3])], None, np.zeros(1))
    with pytest.raises(ops.OpError, match="unknown op"):
        ops.vjp("Scatterz", [np.zeros(3)], None, np.zeros(3))
    with pytest.raises(ops.OpError, match="reduction"):
        ops.vjp("ScatterND", [np.zeros(3), np.array([[0]]), np.ones(1)], {"reduction": "avg"}, np.zeros(3))


@pytest.mark.parametrize("op, reduction", VARIANTS, ids=IDS)
def test_inputs_are_not_modified_and_results_share_no_memory_with_them(op, reduction):
    @settings(SETTINGS, max_examples=5)
    @given(case=case_strategy(op, "float32", reduction))
    def run(case):
        rng = np.random.default_rng(1)
        grad = _grad_for(case, case.inputs, rng).astype(np.float32)
        before = copies(case.inputs + [grad])
        got = ops.vjp(case.op, case.inputs, case.attrs, grad)
        assert_inputs_unchanged(before, case.inputs + [grad])
        for g in got:
            for a in case.inputs + [grad]:
                if g is not None and a is not None and g.size:
                    assert not np.shares_memory(g, a)

    run()


@pytest.mark.skipif(not accel.available(), reason="numba not installed")
@pytest.mark.parametrize("op, reduction", [("Gather", None), ("GatherElements", None), ("ScatterElements", "none"),
                                           ("ScatterND", "mul"), ("ScatterElements", "max"), ("ScatterND", "min")])
def test_large_inputs_give_the_same_bits_with_the_accelerator_on_and_off(op, reduction):
    rng = np.random.default_rng(5)
    data = rng.integers(-3, 4, (300, 40)).astype(np.float64)  # small integers: ties and duplicates
    if op == "Gather":
        inputs, out_shape = [data, rng.integers(-300, 300, 9000)], (9000, 40)
    elif op == "GatherElements":
        inputs, out_shape = [data, rng.integers(0, 300, (400, 40))], (400, 40)
    elif op == "ScatterElements":
        inputs, out_shape = [data, rng.integers(0, 300, (500, 40)), rng.integers(-3, 4, (500, 40)) * 1.0], data.shape
    else:
        inputs, out_shape = [data, rng.integers(0, 300, (500, 1)), rng.integers(-3, 4, (500, 40)) * 1.0], data.shape
    attrs = {"reduction": reduction} if reduction else {}
    grad = rng.standard_normal(out_shape)
    previous = accel.set_enabled(True)
    try:
        fast = ops.vjp(op, inputs, attrs, grad)
        accel.set_enabled(False)
        slow = ops.vjp(op, inputs, attrs, grad)
    finally:
        accel.set_enabled(previous)
    for f, s in zip(fast, slow, strict=True):
        assert (f is None) == (s is None)
        if f is not None:
            assert f.tobytes() == s.tobytes()


def test_vjp_agrees_with_torch_autograd_where_torch_is_installed():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    data = rng.standard_normal((4, 5))
    indices = rng.integers(0, 4, (6, 5))
    updates = rng.standard_normal((6, 5))
    grad = rng.standard_normal((4, 5))
    for reduction, torch_name in (("add", "sum"), ("mul", "prod"), ("max", "amax"), ("min", "amin")):
        d = torch.tensor(data, requires_grad=True)
        u = torch.tensor(updates, requires_grad=True)
        out = d.scatter_reduce(0, torch.tensor(indices), u, torch_name, include_self=True)
        out.backward(torch.tensor(grad))
        got = ops.vjp("ScatterElements", [data, indices, updates], {"axis": 0, "reduction": reduction}, grad)
        np.testing.assert_allclose(got[0], d.grad.numpy(), rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got[2], u.grad.numpy(), rtol=1e-12, atol=1e-12)
    d = torch.tensor(data, requires_grad=True)
    idx = rng.integers(-4, 4, (3, 2))
    g_out = rng.standard_normal((3, 2, 5))
    d[torch.tensor(idx % 4)].backward(torch.tensor(g_out))
    got = ops.vjp("Gather", [data, idx], {"axis": 0}, g_out)
    np.testing.assert_allclose(got[0], d.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_the_stable_order_of_target_rows_is_the_same_by_sorted_keys_and_by_stable_argsort():
    from ops.vjp_rules import _stable_order

    rng = np.random.default_rng(4)
    rows = rng.integers(0, 50, 3000)
    want = np.argsort(rows, kind="stable")
    for target_rows in (50, 2**61):  # keys fit in int64 / they do not: the argsort route
        order, cells = _stable_order(rows, target_rows)
        np.testing.assert_array_equal(order, want)
        np.testing.assert_array_equal(cells, rows[want])
