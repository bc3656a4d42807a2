"""Property tests: every op, every dtype it allows, ranks 1 to 4, negative indices, duplicates
and every reduction, against the slow reference in ``reference.py``.

Exact equality everywhere except float/complex add and mul, where the kernel may fold in a
different order: there the result must be within a rounding bound computed from a float64
reference (and cells no update touches must be exactly the data). Reductions with no meaning
for the dtype (mul on strings, max/min on complex) must raise ``ops.OpError``.
Inputs must never be modified and the output must not share memory with them.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import ops

from . import reference
from ._cases import VARIANTS, case_strategy
from ._helpers import (
    CORE_DTYPES,
    SMALL_DTYPES,
    assert_inputs_unchanged,
    assert_no_shared_memory,
    assert_same,
    copies,
    eps,
    np_dtype,
)

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,  # deterministic in CI
    database=None,
    suppress_health_check=list(HealthCheck),
)

# VARIANTS: the (op, reduction) pairs; dtypes per op as the ONNX schema allows (Scatter-9 has no
# bfloat16, TensorScatter-24 also allows the float8/float4/int4 types)


def _dtypes_for(op):
    if op == "Scatter":
        return [d for d in CORE_DTYPES if d != "bfloat16"]
    if op == "TensorScatter":
        return list(CORE_DTYPES) + list(SMALL_DTYPES)
    return list(CORE_DTYPES)


PARAMS = [
    pytest.param(op, red, dt, id=f"{op}-{red}-{dt}" if red else f"{op}-{dt}")
    for op, red in VARIANTS
    for dt in _dtypes_for(op)
]


def call_kernel(op, inputs, attrs):
    """The public kernel function for ``op`` (not run_op)."""
    a = attrs
    if op == "Gather":
        return ops.gather(inputs[0], inputs[1], axis=a["axis"])
    if op == "GatherElements":
        return ops.gather_elements(inputs[0], inputs[1], axis=a["axis"])
    if op == "GatherND":
        return ops.gather_nd(inputs[0], inputs[1], batch_dims=a["batch_dims"])
    if op == "Scatter":
        return ops.scatter(inputs[0], inputs[1], inputs[2], axis=a["axis"])
    if op == "ScatterElements":
        return ops.scatter_elements(inputs[0], inputs[1], inputs[2], axis=a["axis"],
                                    reduction=a["reduction"])
    if op == "ScatterND":
        return ops.scatter_nd(inputs[0], inputs[1], inputs[2], reduction=a["reduction"])
    if op == "TensorScatter":
        return ops.tensor_scatter(inputs[0], inputs[1], inputs[2], axis=a["axis"],
                                  mode=a["mode"])
    raise AssertionError(op)


def _flat_positions(shape: tuple, positions: list) -> np.ndarray:
    """Row-major flat offsets of a list of index tuples into an array of ``shape``."""
    if not positions:
        return np.zeros(0, dtype=np.int64)
    if not shape:
        return np.zeros(len(positions), dtype=np.int64)
    return np.ravel_multi_index(np.array(positions, dtype=np.int64).T, shape)


def assert_reduction_close(case, *results):
    """Float/complex add and mul: |got - exact| <= 4 (n+1) eps * scale, per element, where n is
    the number of updates folded into that cell, scale the sum of magnitudes (add) or the
    magnitude of the exact product (mul); untouched cells equal the data exactly. Every result
    in ``results`` is checked against one oracle: the reference's (update, cell) pairs, walked
    once, folded in float64/complex128 by numpy's ``ufunc.at`` in update order (the order in
    which the reference's own loop combines them)."""
    op, (data, _, upd), attrs = case.op, case.inputs, case.attrs
    dt = data.dtype
    wide = np.complex128 if dt.kind == "c" else np.float64
    _, pairs = reference.positions(op, case.inputs, attrs)
    cells = _flat_positions(data.shape, [d for _, d in pairs])
    values = upd.astype(wide).reshape(-1)[_flat_positions(upd.shape, [u for u, _ in pairs])]
    exact = data.astype(wide).reshape(-1)
    if attrs["reduction"] == "add":
        np.add.at(exact, cells, values)
        scale = np.abs(data.astype(wide)).reshape(-1)
        np.add.at(scale, cells, np.abs(values))
    else:
        np.multiply.at(exact, cells, values)
        scale = np.abs(exact)
    counts = np.bincount(cells, minlength=data.size)
    exact, scale, counts = (a.reshape(data.shape) for a in (exact, scale, counts))
    tol = 4.0 * (counts + 1) * eps(dt) * scale
    untouched = counts == 0
    for got in results:
        err = np.abs(got.astype(wide) - exact)
        bad = ~(err <= tol)
        assert not bad.any(), (
            f"{int(bad.sum())} elements off: got {got[bad]}, exact {exact[bad]}, tol {tol[bad]}")
        assert_same(got[untouched], data[untouched])


def check_case(case):
    op, inputs, attrs = case.op, case.inputs, case.attrs
    before = copies(inputs)
    data_type = inputs[0].dtype
    fuzzy = (attrs.get("reduction") in ("add", "mul")
             and (data_type.kind in "fc" or data_type == np_dtype("bfloat16")))
    if fuzzy:  # a scatter: the output has data's shape and type, its values are checked below
        results = [call_kernel(op, inputs, attrs), ops.run_op(op, inputs, attrs)]
        assert_inputs_unchanged(before, inputs)
        for got in results:
            assert_no_shared_memory(got, inputs)
            assert got.shape == inputs[0].shape and got.dtype == data_type, (got.shape, got.dtype)
        assert_reduction_close(case, *results)
        return
    try:
        want = reference.run(op, inputs, attrs)
    except reference.NoMeaningError:
        with pytest.raises(ops.OpError) as exc:
            call_kernel(op, inputs, attrs)
        assert op in str(exc.value)
        with pytest.raises(ops.OpError):
            ops.run_op(op, inputs, attrs)
        assert_inputs_unchanged(before, inputs)
        return
    results = [call_kernel(op, inputs, attrs), ops.run_op(op, inputs, attrs)]
    assert_inputs_unchanged(before, inputs)
    for got in results:
        assert_no_shared_memory(got, inputs)
        assert got.shape == want.shape, (got.shape, want.shape)
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        assert_same(got, want)


@pytest.mark.parametrize("op, reduction, dtype", PARAMS)
def test_matches_reference(op, reduction, dtype):
    @SETTINGS
    @given(case=case_strategy(op, dtype, reduction))
    def run(case):
        check_case(case)

    run()


# ---------------------------------------------------------------------------------------------
# The semantic decisions, by hand (DESIGN.md), independent of the random cases above


def test_duplicates_last_update_wins_scatter_elements():
    data = np.zeros((2, 3), np.float32)
    idx = np.array([[1, 1, 0], [1, -2, 0], [1, 1, 0]], np.int64)
    upd = np.arange(1, 10, dtype=np.float32).reshape(3, 3)
    # column 0: rows 1, 1, 1 <- 1, 4, 7; column 1: rows 1, 0, 1 <- 2, 5, 8;
    # column 2: rows 0, 0, 0 <- 3, 6, 9
    expected = np.array([[0, 5, 9], [7, 8, 0]], np.float32)
    np.testing.assert_array_equal(ops.scatter_elements(data, idx, upd, axis=0), expected)
    np.testing.assert_array_equal(ops.scatter(data, idx, upd, axis=0), expected)


def test_duplicates_last_update_wins_scatter_nd():
    data = np.zeros((3, 2), np.int64)
    idx = np.array([[2], [0], [-1], [2]], np.int64)
    upd = np.array([[1, 2], [3, 4], [5, 6], [7, 8]], np.int64)
    out = ops.scatter_nd(data, idx, upd)
    np.testing.assert_array_equal(out, np.array([[3, 4], [0, 0], [7, 8]], np.int64))


@pytest.mark.parametrize("reduction", ["max", "min"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_max_min_propagate_nan(reduction, dtype):
    dt = np_dtype(dtype)
    nan = np.nan
    data = np.array([nan, 1.0, 1.0, 2.0], dtype=dt)
    # cell 0: NaN in data stays; cell 1: NaN then a number -> NaN; cell 2: number then NaN -> NaN
    idx = np.array([0, 1, 1, 2, 2], np.int64)
    upd = np.array([5.0, nan, 7.0, -7.0, nan], dtype=dt)
    out = ops.scatter_elements(data, idx, upd, reduction=reduction)
    expected = np.array([nan, nan, nan, 2.0], dtype=dt)
    assert_same(out, expected)
    out = ops.scatter_nd(data, idx[:, None], upd, reduction=reduction)
    assert_same(out, expected)


def test_bool_reductions_are_or_and():
    data = np.array([False, False, True, True])
    idx = np.array([[0], [1], [1], [2], [3], [3]], np.int64)
    upd = np.array([False, True, False, False, True, False])
    # per cell: 0: F with [F]; 1: F with [T, F]; 2: T with [F]; 3: T with [T, F]
    expect = {
        "add": [False, True, True, True],   # or
        "max": [False, True, True, True],   # or
        "mul": [False, False, False, False],  # and
        "min": [False, False, False, False],  # and
    }
    for reduction, want in expect.items():
        out = ops.scatter_nd(data, idx, upd, reduction=reduction)
        assert_same(out, np.array(want))
        out = ops.scatter_elements(data, idx[:, 0], upd, reduction=reduction)
        assert_same(out, np.array(want))


def test_string_add_concatenates_in_row_major_order():
    data = np.array([["a", "b"], ["c", "d"]], dtype=object)
    idx = np.array([[1, 1], [1, 0]], np.int64)
    upd = np.array([["x", "y"], ["z", "w"]], dtype=object)
    out = ops.scatter_elements(data, idx, upd, axis=0, reduction="add")
    # (1,0) <- "x" then "z"; (1,1) <- "y"; (0,1) <- "w"
    assert_same(out, np.array([["a", "bw"], ["cxz", "dy"]], dtype=object))


def test_integer_add_wraps_around():
    data = np.array([120, -128], np.int8)
    out = ops.scatter_elements(data, np.array([0, 0, 1], np.int64), np.array([5, 5, -1], np.int8),
                               reduction="add")
    assert_same(out, np.array([-126, 127], np.int8))


@pytest.mark.parametrize("op", ["ScatterElements", "ScatterND"])
@pytest.mark.parametrize("dtype, reduction", [("string", "mul"), ("complex64", "max"),
                                              ("complex128", "min")])
def test_reduction_without_meaning_is_op_error(op, dtype, reduction):
    dt = np_dtype(dtype)
    data = np.array(["a", "b"], dtype=object) if dtype == "string" else np.array([1, 2], dt)
    upd = data[::-1].copy()
    idx = np.array([1, 0], np.int64)
    if op == "ScatterND":
        idx = idx[:, None]
    before = copies([data, idx, upd])
    with pytest.raises(ops.OpError) as exc:
        ops.run_op(op, [data, idx, upd], {"reduction": reduction})
    msg = str(exc.value)
    assert op in msg and reduction in msg
    assert_inputs_unchanged(before, [data, idx, upd])


@pytest.mark.parametrize(
    "op, inputs, attrs",
    [
        ("Gather", [np.zeros((0, 3), np.float32), np.zeros((0,), np.int64)], {"axis": 0}),
        ("Gather", [np.zeros((2, 0), np.float32), np.array([1, -2], np.int64)], {"axis": 0}),
        ("Gather", [np.arange(6.0).reshape(2, 3), np.zeros((2, 0), np.int64)], {"axis": 1}),
        ("GatherElements", [np.arange(6.0).reshape(2, 3), np.zeros((0, 3), np.int64)],
         {"axis": 0}),
        ("GatherND", [np.arange(6.0).reshape(2, 3), np.zeros((0, 2), np.int64)],
         {"batch_dims": 0}),
        ("ScatterElements", [np.arange(6.0).reshape(2, 3), np.zeros((0, 3), np.int64),
                             np.zeros((0, 3))], {"axis": 0, "reduction": "add"}),
        ("ScatterND", [np.arange(6.0).reshape(2, 3), np.zeros((0, 1), np.int64),
                       np.zeros((0, 3))], {"reduction": "mul"}),
        ("TensorScatter", [np.arange(6.0).reshape(1, 3, 2), np.zeros((1, 0, 2)),
                           np.array([3], np.int64)], {"axis": 1, "mode": "linear"}),
        ("TensorScatter", [np.zeros((0, 3, 2)), np.zeros((0, 1, 2)), None],
         {"axis": -2, "mode": "circular"}),
    ],
)
def test_empty_tensors_match_reference(op, inputs, attrs):
    want = reference.run(op, inputs, attrs)
    got = ops.run_op(op, inputs, attrs)
    assert_same(got, want)


# ---------------------------------------------------------------------------------------------
# memory layouts: the kernels work on flat offsets into raveled views, so every input layout
# must give the answer the reference gives on plain C-contiguous copies

LAYOUTS = ("C", "F", "strided", "readonly", "byteswapped")


def _relayout(a, layout, rng):
    if a is None:
        return a
    if layout == "byteswapped" and a.dtype.kind in "iufc" and a.dtype.itemsize > 1:
        return a.astype(a.dtype.newbyteorder("S"))  # all inputs, 0-d included
    if a.ndim == 0:
        return a
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "strided":  # a view into a bigger buffer with steps of 2 on every axis
        big = np.empty(tuple(2 * s + 1 for s in a.shape), dtype=a.dtype)
        view = big[tuple(slice(1, None, 2) for _ in a.shape)]
        view[...] = a
        assert not view.flags.c_contiguous or a.size <= 1
        return view
    if layout == "readonly":
        b = a.copy()
        b.flags.writeable = False
        return b
    return a


LAYOUT_VARIANTS = [("Gather", None), ("GatherElements", None), ("GatherND", None),
                   ("ScatterElements", "none"), ("ScatterElements", "max"),
                   ("ScatterND", "add"), ("ScatterND", "none"), ("TensorScatter", None)]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("op, reduction", LAYOUT_VARIANTS)
def test_any_input_layout(op, reduction, layout):
    dtypes = ("int16", "float64", "string") if layout != "byteswapped" else ("int16", "float64")

    @settings(max_examples=15, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=case_strategy(op, dtypes[0], reduction) | case_strategy(op, dtypes[1], reduction)
           | case_strategy(op, dtypes[-1], reduction))
    def run(case):
        rng = np.random.default_rng(0)
        want = reference.run(case.op, case.inputs, case.attrs)
        inputs = [_relayout(a, layout, rng) for a in case.inputs]
        before = copies(inputs)
        got = ops.run_op(case.op, inputs, case.attrs)
        assert_inputs_unchanged(before, inputs)
        assert got.dtype.kind == want.dtype.kind and got.dtype.itemsize == want.dtype.itemsize
        if case.attrs.get("reduction") == "add" and want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        else:
            assert_same(got.astype(want.dtype), want)

    run()


@pytest.mark.parametrize("layout", ["F", "strided", "reversed"])
@pytest.mark.parametrize("size", [12, 5000])     # the small route and the index map's
def test_scatter_nd_duplicates_keep_the_last_in_row_major_order_in_any_layout(layout, size):
    """ScatterND none with whole-element index tuples, many hitting one cell: the spec's loop
    (tests/ops/reference.py) keeps the last in row-major order whatever the inputs' memory
    layout (a Fortran-ordered or reversed view kept an earlier one on the small route)."""
    rng = np.random.default_rng(size)
    data = np.zeros((3, 4), np.float32)
    indices = rng.integers(0, 3, (size // 4, 4, 2)) % np.array([3, 4])
    updates = np.arange(indices.shape[0] * 4, dtype=np.float32).reshape(indices.shape[:-1])

    def relaid(a):
        if layout == "reversed":       # the same values through negative strides on every axis
            flipped = np.ascontiguousarray(a[(slice(None, None, -1),) * a.ndim])
            return flipped[(slice(None, None, -1),) * a.ndim]
        return _relayout(a, layout, rng)

    want = reference.scatter_nd(data, indices, updates)
    got = ops.run_op("ScatterND", [data, relaid(indices), relaid(updates)])
    assert_same(got, want)


def test_numpy_str_and_bytes_arrays_are_strings_and_never_truncated():
    data = np.array(["a", "b", "c"])  # dtype <U1
    out = ops.scatter_nd(data, np.array([[1]], np.int64), np.array(["xyz"]))
    assert_same(out, np.array(["a", "xyz", "c"], dtype=object))
    out = ops.scatter_elements(data, np.array([2, 2], np.int64), np.array(["long", "er"]),
                               reduction="add")
    assert_same(out, np.array(["a", "b", "clonger"], dtype=object))
    out = ops.gather(np.array(["ab", "c"]), np.array([1, 0, 1], np.int64))
    assert_same(out, np.array(["c", "ab", "c"], dtype=object))


def test_updates_may_differ_from_data_in_byte_order_only():
    """'>f8' and '<f8' are both ONNX double: the same T."""
    data = np.arange(6.0).reshape(2, 3).astype(">f8")
    out = ops.scatter_nd(data, np.array([[1]], np.int64), np.ones((1, 3), "<f8"))
    np.testing.assert_array_equal(out, [[0, 1, 2], [1, 1, 1]])
    out = ops.scatter_elements(np.zeros(3, "<i4"), np.array([2], np.int64),
                               np.array([7], ">i4"))
    np.testing.assert_array_equal(out, [0, 0, 7])


# ---------------------------------------------------------------------------------------------
# documented float semantics (NaN propagates, float16 overflows to inf) must not depend on the
# caller's numpy error state or warning filters: never a bare numpy error

FLOAT_EDGE_CASES = [
    ("ScatterElements", "max", "float32"), ("ScatterElements", "min", "float64"),
    ("ScatterND", "max", "float16"), ("ScatterND", "min", "bfloat16"),
    ("ScatterElements", "add", "float16"), ("ScatterND", "mul", "float32"),
]


def _float_edge_inputs(op, dtype):
    dt = np_dtype(dtype)
    data = np.array([np.nan, 1.0, 2.0, 60000.0, -1.0], dtype=np.float32).astype(dt)
    idx = np.array([0, 1, 1, 3, 3, 4], np.int64)
    upd = np.array([5.0, np.nan, np.inf, 60000.0, 60000.0, np.inf], np.float32).astype(dt)
    if op == "ScatterND":
        idx = idx[:, None]
    return [data, idx, upd]


@pytest.mark.parametrize("op, reduction, dtype", FLOAT_EDGE_CASES)
def test_float_edge_cases_under_numpy_errstate_raise(op, reduction, dtype):
    inputs = _float_edge_inputs(op, dtype)
    attrs = {"reduction": reduction} | ({"axis": 0} if op == "ScatterElements" else {})
    with np.errstate(all="ignore"):
        want = reference.run(op, inputs, attrs)
    with np.errstate(all="raise"):
        got = ops.run_op(op, inputs, attrs)
    assert_same(got, want)


@pytest.mark.parametrize("op, reduction, dtype", FLOAT_EDGE_CASES)
def test_float_edge_cases_emit_no_runtime_warning(op, reduction, dtype):
    import warnings

    inputs = _float_edge_inputs(op, dtype)
    attrs = {"reduction": reduction} | ({"axis": 0} if op == "ScatterElements" else {})
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        ops.run_op(op, inputs, attrs)
