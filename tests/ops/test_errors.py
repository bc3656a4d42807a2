"""Errors: out-of-range indices name the op, input, first bad element, its value and the valid
range; shape, dtype and attribute mistakes are ``OpError`` naming the shapes; never a bare
numpy error, never a wrapped-around result; inputs are untouched when a call fails."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ops

from ._helpers import assert_inputs_unchanged, assert_same, copies

i64, i32, f32 = np.int64, np.int32, np.float32


def test_error_classes():
    assert issubclass(ops.OpError, ValueError)
    assert issubclass(ops.IndexOutOfRangeError, ops.OpError)
    assert issubclass(ops.IndexOutOfRangeError, IndexError)


def test_scatter_nd_message_exactly_as_in_the_contract():
    data = np.arange(4, dtype=f32)
    indices = np.array([[0], [1], [5], [2]], dtype=i64)  # indices[2, 0] = 5
    updates = np.ones(4, dtype=f32)
    before = copies([data, indices, updates])
    with pytest.raises(ops.IndexOutOfRangeError) as exc:
        ops.scatter_nd(data, indices, updates)
    assert str(exc.value) == (
        "ScatterND: indices[2, 0] = 5 is out of range for data axis 0 of size 4 (valid -4..3)")
    assert isinstance(exc.value, IndexError)
    assert isinstance(exc.value, ops.OpError)
    assert isinstance(exc.value, ValueError)
    assert_inputs_unchanged(before, [data, indices, updates])
    with pytest.raises(ops.IndexOutOfRangeError) as exc2:
        ops.run_op("ScatterND", [data, indices, updates])
    assert str(exc2.value) == str(exc.value)


# (op, inputs, attrs, position of the first bad element, its value, data axis, axis size)
D23 = np.arange(6, dtype=f32).reshape(2, 3)
D234 = np.arange(24, dtype=f32).reshape(2, 3, 4)
OUT_OF_RANGE = [
    ("Gather", [D23, np.array([[0, 1], [2, 9]], i64)], {"axis": 0}, "1, 0", 2, 0, 2),
    ("Gather", [D23, np.array([[0, 3]], i32)], {"axis": 1}, "0, 1", 3, 1, 3),
    ("Gather", [D23, np.array([[0, -4], [5, 0]], i64)], {"axis": -1}, "0, 1", -4, 1, 3),
    ("Gather", [D234, np.array([1, 2, 3, -4, -5], i64)], {"axis": 2}, "4", -5, 2, 4),
    ("GatherElements", [D23, np.array([[0, 2], [0, 3]], i64)], {"axis": 1}, "1, 1", 3, 1, 3),
    ("GatherElements", [D23, np.array([[0, 0, -3]], i32)], {"axis": 0}, "0, 2", -3, 0, 2),
    ("GatherND", [D234, np.array([[1, 2], [2, 0], [0, 9]], i64)], {"batch_dims": 0},
     "1, 0", 2, 0, 2),
    ("GatherND", [D234, np.array([[1, 2], [0, 3], [1, 7]], i64)], {"batch_dims": 0},
     "1, 1", 3, 1, 3),
    ("GatherND", [D234, np.array([[[1, 4]], [[0, 0]]], i64)], {"batch_dims": 1},
     "0, 0, 1", 4, 2, 4),
    ("Scatter", [D23, np.array([[0, 2], [0, -4]], i64), np.ones((2, 2), f32)], {"axis": 1},
     "1, 1", -4, 1, 3),
    ("ScatterElements", [D23, np.array([[1, 2, 2]], i32), np.ones((1, 3), f32)],
     {"axis": 0, "reduction": "add"}, "0, 1", 2, 0, 2),
    ("ScatterElements", [D23, np.array([[0], [3]], i64), np.ones((2, 1), f32)],
     {"axis": -1, "reduction": "none"}, "1, 0", 3, 1, 3),
    ("ScatterND", [D234, np.array([[0, 1], [1, -4]], i64), np.ones((2, 4), f32)],
     {"reduction": "mul"}, "1, 1", -4, 1, 3),
    ("ScatterND", [D234, np.array([[0, 1, 4]], i64), np.ones((1,), f32)],
     {"reduction": "none"}, "0, 2", 4, 2, 4),
]


@pytest.mark.parametrize("op, inputs, attrs, pos, value, axis, size", OUT_OF_RANGE,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(OUT_OF_RANGE)])
def test_out_of_range_index_message(op, inputs, attrs, pos, value, axis, size):
    before = copies(inputs)
    with pytest.raises(ops.IndexOutOfRangeError) as exc:
        ops.run_op(op, inputs, attrs)
    msg = str(exc.value)
    assert msg.startswith(f"{op}: "), msg
    assert f"indices[{pos}] = {value}" in msg, msg
    assert f"axis {axis} of size {size}" in msg, msg
    assert f"(valid {-size}..{size - 1})" in msg, msg
    # the contract's wording, in full
    assert msg == (f"{op}: indices[{pos}] = {value} is out of range for data axis {axis} "
                   f"of size {size} (valid {-size}..{size - 1})"), msg
    # the same element as data, for callers that mark it (the Explainer)
    assert exc.value.port == "indices" and exc.value.position == tuple(int(p) for p in pos.split(", "))
    assert inputs[1][exc.value.position] == value
    assert_inputs_unchanged(before, inputs)


def test_scalar_index_out_of_range():
    with pytest.raises(ops.IndexOutOfRangeError) as exc:
        ops.gather(D23, np.array(-3, i64), axis=0)
    msg = str(exc.value)
    assert msg.startswith("Gather: ") and "-3" in msg and "(valid -2..1)" in msg, msg


@pytest.mark.parametrize("bad", [2**31 - 1, -(2**31), 2**62, -(2**63)])
def test_huge_indices_are_not_wrapped(bad):
    dt = i32 if abs(bad) < 2**31 else i64
    with pytest.raises(ops.IndexOutOfRangeError):
        ops.gather(np.arange(5.0), np.array([0, bad], dt))
    with pytest.raises(ops.IndexOutOfRangeError):
        ops.scatter_elements(np.arange(5.0), np.array([0, bad], dt), np.zeros(2))


# ---------------------------------------------------------------------------------------------
# TensorScatter: linear refuses writes past the end, circular wraps


def test_tensor_scatter_linear_past_the_end_is_op_error():
    cache = np.zeros((2, 5, 3), f32)
    update = np.ones((2, 2, 3), f32)
    before = copies([cache, update])
    with pytest.raises(ops.OpError) as exc:
        ops.tensor_scatter(cache, update, np.array([1, 4], i64), mode="linear")
    msg = str(exc.value)
    assert msg.startswith("TensorScatter: ") and "write_indices" in msg, msg
    assert_inputs_unchanged(before, [cache, update])
    with pytest.raises(ops.OpError):
        ops.tensor_scatter(cache, update, np.array([0, 4], i64))  # default mode is linear
    # the last valid position is fine: 3 + 2 == 5
    out = ops.tensor_scatter(cache, update, np.array([3, 0], i64))
    expected = np.zeros((2, 5, 3), f32)
    expected[0, 3:5] = 1
    expected[1, 0:2] = 1
    assert_same(out, expected)


def test_tensor_scatter_circular_wraps():
    cache = np.arange(10, dtype=f32).reshape(2, 5)  # axis -2 would be the batch axis: use 1
    update = -np.array([[1, 2, 3], [4, 5, 6]], f32)
    out = ops.tensor_scatter(cache, update, np.array([4, 1], i64), axis=1, mode="circular")
    # batch 0 writes positions 4, 0, 1; batch 1 writes positions 1, 2, 3
    assert_same(out, np.array([[-2, -3, 2, 3, -1], [5, -4, -5, -6, 9]], f32))


def test_tensor_scatter_update_longer_than_cache_is_op_error():
    with pytest.raises(ops.OpError):
        ops.tensor_scatter(np.zeros((1, 2, 3)), np.zeros((1, 3, 3)), mode="circular")


# ---------------------------------------------------------------------------------------------
# shape / dtype / attribute mistakes: OpError naming the op and the shapes


def mentions_shape(msg: str, shape) -> bool:
    dims = [str(d) for d in shape]
    pats = [r"\(" + r",\s*".join(dims) + (r",\)" if len(dims) == 1 else r"\)"),
            r"\[" + r",\s*".join(dims) + r"\]",
            r"\b" + "x".join(dims) + r"\b"]
    return any(re.search(p, msg) for p in pats)


SHAPE_ERRORS = [
    # op, inputs, attrs, shapes that must be named
    ("GatherElements", [D23, np.zeros((2,), i64)], {"axis": 0}, [(2, 3), (2,)]),
    ("GatherElements", [D23, np.zeros((3, 3), i64)], {"axis": 1}, [(2, 3), (3, 3)]),
    ("GatherND", [D23, np.zeros((2, 3), i64)], {"batch_dims": 0}, [(2, 3)]),
    ("GatherND", [D234, np.zeros((3, 1), i64)], {"batch_dims": 1}, [(2, 3, 4), (3, 1)]),
    ("Scatter", [D23, np.zeros((2, 2), i64), np.zeros((2, 3), f32)], {"axis": 0},
     [(2, 2), (2, 3)]),
    ("ScatterElements", [D23, np.zeros((2, 2), i64), np.zeros((2, 3), f32)],
     {"axis": 0, "reduction": "none"}, [(2, 2), (2, 3)]),
    ("ScatterElements", [D23, np.zeros((2,), i64), np.zeros((2,), f32)],
     {"axis": 0, "reduction": "none"}, [(2, 3), (2,)]),
    ("ScatterElements", [D23, np.zeros((2, 4), i64), np.zeros((2, 4), f32)],
     {"axis": 0, "reduction": "none"}, [(2, 3), (2, 4)]),
    ("ScatterND", [D234, np.zeros((2, 1), i64), np.zeros((2, 3, 5), f32)],
     {"reduction": "none"}, [(2, 3, 5)]),
    ("ScatterND", [D23, np.zeros((2, 3), i64), np.zeros((2,), f32)], {"reduction": "none"},
     [(2, 3)]),
    ("TensorScatter", [np.zeros((2, 5, 3), f32), np.zeros((2, 2, 4), f32), None],
     {"axis": -2, "mode": "linear"}, [(2, 5, 3), (2, 2, 4)]),
    ("TensorScatter", [np.zeros((2, 5, 3), f32), np.zeros((2, 2, 3), f32),
                       np.zeros((3,), i64)], {"axis": -2, "mode": "linear"}, [(3,)]),
]


@pytest.mark.parametrize("op, inputs, attrs, shapes", SHAPE_ERRORS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(SHAPE_ERRORS)])
def test_shape_mistakes(op, inputs, attrs, shapes):
    before = copies(inputs)
    with pytest.raises(ops.OpError) as exc:
        ops.run_op(op, inputs, attrs)
    msg = str(exc.value)
    assert msg.startswith(f"{op}"), msg
    for shape in shapes:
        assert mentions_shape(msg, shape), f"{shape} not named in: {msg}"
    assert_inputs_unchanged(before, inputs)


ATTR_AND_DTYPE_ERRORS = [
    ("Gather", [D23, np.array([0])], {"axis": 2}),
    ("Gather", [D23, np.array([0])], {"axis": -3}),
    ("Gather", [np.array(1.0), np.array(0)], {"axis": 0}),  # data rank 0
    ("Gather", [D23, np.array([0.0])], {"axis": 0}),  # float indices
    ("Gather", [D23, np.array([True])], {"axis": 0}),  # bool indices
    ("GatherElements", [D23, np.zeros((2, 3), i64)], {"axis": 5}),
    ("GatherND", [D23, np.zeros((2, 1), i64)], {"batch_dims": 2}),
    ("GatherND", [D23, np.zeros((2, 1), i64)], {"batch_dims": -1}),
    ("GatherND", [D23, np.zeros((2, 1), f32)], {"batch_dims": 0}),
    ("ScatterElements", [D23, np.zeros((1, 3), i64), np.zeros((1, 3), f32)],
     {"axis": 0, "reduction": "sum"}),
    ("ScatterElements", [D23, np.zeros((1, 3), i64), np.zeros((1, 3), f32)],
     {"axis": 2, "reduction": "none"}),
    ("ScatterElements", [D23, np.zeros((1, 3), i64), np.zeros((1, 3), i64)],
     {"axis": 0, "reduction": "none"}),  # updates dtype differs from data
    ("ScatterND", [D23, np.zeros((1, 1), i64), np.zeros((1, 3), f32)],
     {"reduction": "average"}),
    ("ScatterND", [D23, np.zeros((1, 1), i64), np.zeros((1, 3), np.float64)],
     {"reduction": "none"}),  # updates dtype differs from data
    ("TensorScatter", [np.zeros((2, 5, 3), f32), np.zeros((2, 2, 3), f32), None],
     {"axis": -2, "mode": "wrap"}),
    ("TensorScatter", [np.zeros((2, 5, 3), f32), np.zeros((2, 5, 3), f32), None],
     {"axis": 0, "mode": "linear"}),  # the batch axis cannot be the sequence axis
    ("TensorScatter", [np.zeros((2, 5, 3), f32), np.zeros((2, 2, 3), f32),
                       np.zeros((2,), f32)], {"axis": 1, "mode": "linear"}),
    ("TensorScatter", [np.zeros((2, 5, 3), f32), np.zeros((2, 2, 3), np.float64), None],
     {"axis": 1, "mode": "linear"}),
    ("Gather", [D23, np.array([0])], {"axes": 0}),  # unknown attribute
    ("Scatter", [D23, np.zeros((1, 3), i64), np.zeros((1, 3), f32)],
     {"reduction": "add"}),  # Scatter-9 has no reduction
    ("GatherND", [D23, np.zeros((2, 1), i64)], {"axis": 1}),  # GatherND has no axis
    ("ScatterND", [D23, np.zeros((1, 1), i64), np.zeros((1, 3), f32)], {"axis": 0}),
]


@pytest.mark.parametrize("op, inputs, attrs", ATTR_AND_DTYPE_ERRORS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(ATTR_AND_DTYPE_ERRORS)])
def test_attribute_and_dtype_mistakes(op, inputs, attrs):
    before = copies(inputs)
    with pytest.raises(ops.OpError) as exc:
        ops.run_op(op, inputs, attrs)
    assert not isinstance(exc.value, ops.IndexOutOfRangeError) or "indices" in str(exc.value)
    assert str(exc.value).startswith(op), str(exc.value)
    assert_inputs_unchanged(before, inputs)


def test_direct_calls_raise_op_error_too():
    with pytest.raises(ops.OpError):
        ops.gather(D23, np.array([0]), axis=7)
    with pytest.raises(ops.OpError):
        ops.gather_elements(D23, np.zeros((2,), i64))
    with pytest.raises(ops.OpError):
        ops.gather_nd(D23, np.zeros((1, 3), i64))
    with pytest.raises(ops.OpError):
        ops.scatter(D23, np.zeros((1, 3), i64), np.zeros((1, 2), f32))
    with pytest.raises(ops.OpError):
        ops.scatter_elements(D23, np.zeros((1, 3), i64), np.zeros((1, 3), f32),
                             reduction="avg")
    with pytest.raises(ops.OpError):
        ops.scatter_nd(D23, np.zeros((1, 3), i64), np.zeros((1,), f32))
    with pytest.raises(ops.OpError):
        ops.tensor_scatter(np.zeros((2, 5, 3)), np.zeros((2, 2, 3)), mode="ring")


# ---------------------------------------------------------------------------------------------
# big index arrays: the bounds check has a fast path (one pass, split across threads) that
# must still find the first bad element, at any position, too large or too negative


@pytest.mark.parametrize("nthreads", [1, 2, 3])
@pytest.mark.parametrize("where", [0, 70_000, 131_071, 199_999])
@pytest.mark.parametrize("bad", [1000, -1001, 2**40, -(2**40)])
@pytest.mark.parametrize("op", ["Gather", "GatherElements", "ScatterElements", "ScatterND",
                                "GatherND"])
def test_first_bad_index_found_in_big_index_arrays(op, bad, where, nthreads):
    import ops.parallel

    before = ops.parallel.threads()
    ops.parallel.set_threads(nthreads)
    try:
        rng = np.random.default_rng(where)
        n = 200_000
        idx = rng.integers(-1000, 1000, n).astype(np.int64)
        idx[where] = bad
        if abs(bad) < 2**31 and op in ("Gather", "GatherElements", "ScatterElements"):
            idx = idx.astype(np.int32)
        second = min(where + 12345, n - 1)
        if second != where:
            idx[second] = 5000  # a later bad element must not be the one reported
        data = np.arange(1000, dtype=f32)
        if op in ("GatherND", "ScatterND"):
            idx = idx[:, None]
            pos = f"{where}, 0"
        else:
            pos = f"{where}"
        inputs = {
            "Gather": [data, idx],
            "GatherElements": [data, idx],
            "GatherND": [data, idx],
            "ScatterElements": [data, idx, np.ones(n, f32)],
            "ScatterND": [data, idx, np.ones(n, f32)],
        }[op]
        with pytest.raises(ops.IndexOutOfRangeError) as exc:
            ops.run_op(op, inputs, {})
        assert str(exc.value) == (f"{op}: indices[{pos}] = {bad} is out of range for data "
                                  f"axis 0 of size 1000 (valid -1000..999)")
    finally:
        ops.parallel.set_threads(before)


# ---------------------------------------------------------------------------------------------
# data of a dtype ONNX has no tensor type for (or one the op's type constraint T excludes):
# OpError naming the op, the input and the dtype, from every kernel. The ONNX spec's tensor
# types have no datetime, timedelta, void/structured or extended-precision float, and a string
# tensor holds text only; Gather..ScatterND allow no float8 (only TensorScatter-24 does), and
# Scatter-9/10 no bfloat16.

def _unsupported_data():
    import ml_dtypes
    return [
        ("datetime64[D]", np.array(["2020-01-01", "2021-01-01", "2022-01-01"], dtype="datetime64[D]")),
        ("timedelta64[s]", np.arange(3).astype("timedelta64[s]")),
        ("|V4", np.zeros(3, dtype="V4")),
        ("[('a', '<i4'), ('b', '<f4')]", np.zeros(3, dtype=[("a", "<i4"), ("b", "<f4")])),
        ("object holding int", np.array([1, 2, 3], dtype=object)),
        ("object holding bytes", np.array(["a", b"b", "c"], dtype=object)),
        ("object holding NoneType", np.array(["a", "b", None], dtype=object)),
    ] + ([("float128", np.zeros(3, dtype=np.longdouble))] if np.dtype(np.longdouble).itemsize > 8 else []) \
      + [("float8e4m3fn", np.zeros(3, dtype=ml_dtypes.float8_e4m3fn))]


def _bad_dtype_cases():
    i1 = np.array([0, 1], i64)
    cases = []
    for shown, d in _unsupported_data():
        cases += [
            ("Gather", "data", shown, [d, i1], {}),
            ("GatherElements", "data", shown, [d, i1], {}),
            ("GatherND", "data", shown, [d, i1[:, None]], {}),
            ("Scatter", "data", shown, [d, i1, d[:2]], {}),
            ("ScatterElements", "data", shown, [d, i1, d[:2]], {"reduction": "none"}),
            ("ScatterElements", "data", shown, [d, i1, d[:2]], {"reduction": "add"}),
            ("ScatterND", "data", shown, [d, i1[:, None], d[:2]], {}),
        ]
        if not shown.startswith("float8"):  # TensorScatter-24 allows the float8 types
            cases.append(("TensorScatter", "past_cache", shown,
                          [np.stack([d, d]), np.stack([d[:1], d[:1]]), None], {"axis": 1}))
    import ml_dtypes
    bf = np.zeros(3, dtype=ml_dtypes.bfloat16)
    cases.append(("Scatter", "data", "bfloat16", [bf, i1, bf[:2]], {}))  # Scatter-9/10: no bfloat16
    # string data but updates of another object type: the updates are named
    s = np.array(["a", "b", "c"], dtype=object)
    cases.append(("ScatterElements", "updates", "object holding int", [s, i1, np.array([1, 2], dtype=object)],
                  {"reduction": "none"}))
    cases.append(("TensorScatter", "update", "object holding int",
                  [np.stack([s, s]), np.array([[1], [2]], dtype=object), None], {"axis": 1}))
    return cases


BAD_DTYPE_CASES = _bad_dtype_cases()


@pytest.mark.parametrize("op, port, shown, inputs, attrs", BAD_DTYPE_CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}-{i}" for i, c in enumerate(BAD_DTYPE_CASES)])
def test_dtype_the_spec_does_not_allow_is_refused(op, port, shown, inputs, attrs):
    # (the shared helper only compares tensors of the dtypes the ops allow)
    before = [None if x is None else (x.dtype, x.tolist() if x.dtype.hasobject else x.tobytes()) for x in inputs]
    with pytest.raises(ops.OpError) as exc:
        ops.run_op(op, inputs, attrs)
    msg = str(exc.value)
    assert msg.startswith(f"{op}: input {port} has dtype {shown}"), msg
    assert "\n" not in msg
    after = [None if x is None else (x.dtype, x.tolist() if x.dtype.hasobject else x.tobytes()) for x in inputs]
    assert after == before


def test_string_data_in_every_spelling_still_runs():
    # str objects, numpy str_ (a str subclass) and fixed-width unicode are all ONNX strings
    for data in (np.array(["a", "b", "c"], dtype=object), np.array(["a", "b", "c"]),
                 np.array([np.str_("a"), np.str_("b"), np.str_("c")], dtype=object)):
        out = ops.gather(data, np.array([2, 0]))
        assert out.tolist() == ["c", "a"]


# ---------------------------------------------------------------------------------------------
# errors are OpError with a message, never a bare Python or numpy error


@pytest.mark.parametrize("batch_dims", ["1", 1.5, 1.0, None, True])
def test_gather_nd_batch_dims_must_be_an_integer(batch_dims):
    """A str, float or None batch_dims was a bare TypeError; True was taken for 1."""
    with pytest.raises(ops.OpError, match=re.escape(f"GatherND: batch_dims must be an integer, got {batch_dims!r}")):
        ops.gather_nd(np.zeros((4, 3), f32), np.zeros((4, 1), np.int64), batch_dims)


def test_bytes_that_are_not_utf8_are_an_op_error():
    """np.char.decode's bare UnicodeDecodeError escaped before."""
    with pytest.raises(ops.OpError, match=re.escape("Gather: data: a bytes string tensor must hold UTF-8 text")):
        ops.gather(np.array([b"a", b"\xff"]), np.array([1], np.int64))
    assert ops.gather(np.array([b"a", "é".encode()]), np.array([1], np.int64)).tolist() == ["é"]


def test_scatter_nd_message_exactly_as_in_the_contract_on_the_accelerated_path_too(both_paths):
    data = np.zeros((4, 5000), f32)  # big enough for the accelerated ScatterND
    idx = np.array([[0], [1], [5]], np.int64)
    with pytest.raises(ops.IndexOutOfRangeError) as err:
        ops.scatter_nd(data, idx, np.zeros((3, 5000), f32))
    assert str(err.value) == "ScatterND: indices[2, 0] = 5 is out of range for data axis 0 of size 4 (valid -4..3)"


@pytest.mark.parametrize(("op", "inputs", "attrs", "port"), [
    ("ScatterND", [np.zeros(4, f32), np.array([[5]], i64), np.ones(1, f32)], {}, "indices"),
    ("ScatterElements", [np.zeros((2, 2), f32), np.zeros((1, 2), i64), np.ones((2, 2), f32)], {}, "updates"),
    ("ScatterElements", [np.zeros((2, 2), f32), np.zeros((1, 2), i64), np.ones((1, 2), i32)], {}, "updates"),
    ("GatherElements", [np.zeros((2, 2), f32), np.zeros(2, i64)], {}, "indices"),
    ("Gather", [np.zeros(3, f32), np.array([0.5], f32)], {}, "indices"),
    ("TensorScatter", [np.zeros((2, 4, 3), f32), np.zeros((2, 1, 5), f32)], {}, "update"),
    ("TensorScatter", [np.zeros((2, 4, 3), f32), np.zeros((2, 1, 3), f32), np.array([4, 0], i64)], {},
     "write_indices"),
    ("Gather", [np.zeros(3, f32), np.zeros(1, i64)], {"axis": 3}, None),   # an attribute: no port
])
def test_an_error_names_the_input_port_it_is_about_as_data(op, inputs, attrs, port):
    """``OpError.port`` is the input to change (the editor highlights it), never read from
    the message; None for an attribute."""
    with pytest.raises(ops.OpError) as exc:
        ops.run_op(op, inputs, attrs)
    assert exc.value.port == port
