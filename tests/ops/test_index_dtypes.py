"""Unsigned and odd index or attribute types never wrap around or escape as bare errors; narrow
signed and non-native byte-order indices, which defeat the one-pass range check, give the
spec's result or a clear out-of-range error. Expected values come from plain numpy on int64
indices or the slow reference (tests/ops/reference.py), never from ops itself; the cases
marked ``both_paths`` run with the accelerator on and off."""
import re

import numpy as np
import pytest

import ops

from . import reference
from ._helpers import assert_same, spec_index

F32 = np.float32

HUGE = np.array([2**64 - 1], np.uint64)


@pytest.mark.parametrize("call", [
    lambda: ops.gather_nd(np.arange(4.0), HUGE.reshape(1, 1)),
    lambda: ops.scatter_nd(np.arange(4.0), HUGE.reshape(1, 1), np.ones(1)),
    lambda: ops.gather(np.arange(4.0), HUGE),
    lambda: ops.gather_elements(np.arange(4.0), HUGE),
    lambda: ops.scatter_elements(np.arange(4.0), HUGE, np.ones(1)),
    lambda: ops.tensor_scatter(np.zeros((1, 4, 1)), np.ones((1, 1, 1)), HUGE, axis=1),
])
def test_uint64_max_is_out_of_range_not_minus_one(call):
    with pytest.raises(ops.IndexOutOfRangeError, match="18446744073709551615"):
        call()


def test_unsigned_indices_in_range_work():
    np.testing.assert_array_equal(ops.gather_nd(np.arange(4.0), np.array([[3]], np.uint64)), [3.0])


@pytest.mark.parametrize("axis", ["1", 1.5, True, None])
def test_a_non_integer_axis_is_an_op_error(axis):
    with pytest.raises(ops.OpError, match="axis must be an integer"):
        ops.gather(np.zeros((2, 2)), np.array([0]), axis=axis)


# ---------------------------------------------------------------------------------------------
# narrow signed index types: a negative index read as unsigned must not pass for a valid one


@pytest.mark.parametrize("idt, size, values", [
    (np.int8, 200, [-100, 5, -128, -57]),
    (np.int8, 129, [-128, 3]),
    (np.int16, 40000, [-30000, 7, -32768]),
])
def test_negative_narrow_indices_on_an_axis_longer_than_their_max(idt, size, values, both_paths):
    """int8 -100 into an axis of 200: read as uint8 it is 156 < 200, which the one-pass check
    took for "already in range"; np.take(mode="clip") then read row 0 (was: silent wrong rows,
    and ScatterElements on a 2-D table wrote the previous row). Every value here reads as
    unsigned below ``size``: one that does not (-1 -> 255) sent the whole array down the slow,
    correct path."""
    idx = np.array(values, idt)
    data = np.arange(size * 3, dtype=F32).reshape(size, 3)
    rows = spec_index(idx, size)
    assert_same(ops.gather(data, idx, 0), data[rows])
    assert_same(ops.gather(data.T.copy(), idx, 1), data.T[:, rows])
    assert_same(ops.gather_nd(data, idx[:, None]), data[rows])
    # GatherElements / ScatterElements along axis 1 of a (2, size) table
    table = np.arange(2 * size, dtype=F32).reshape(2, size)
    eidx = np.stack([idx, idx[::-1]])
    cols = spec_index(eidx, size)
    assert_same(ops.gather_elements(table, eidx, 1), np.take_along_axis(table, cols, 1))
    want = table.copy()
    np.put_along_axis(want, cols, np.float32(-7), 1)
    assert_same(ops.scatter_elements(table, eidx, np.full(eidx.shape, -7, F32), 1), want)
    want = table.copy()
    np.add.at(want, (np.arange(2)[:, None].repeat(eidx.shape[1], 1), cols), np.float32(1))
    assert_same(ops.scatter_elements(table, eidx, np.ones(eidx.shape, F32), 1, "add"), want)
    want = data.copy()
    want[rows] = 9
    assert_same(ops.scatter_nd(data, idx[:, None], np.full((idx.size, 3), 9, F32)), want)
    assert_same(ops.index_map("Gather", [data, idx]).rows, rows)


def test_narrow_indices_out_of_range_still_raise():
    data = np.zeros((200, 2), F32)
    with pytest.raises(ops.IndexOutOfRangeError, match=re.escape(
            "Gather: indices[1] = -128 is out of range for data axis 0 of size 100 (valid -100..99)")):
        ops.gather(data[:100], np.array([3, -128], np.int8))
    assert_same(ops.gather(data, np.array([-128, 127], np.int8)), data[[72, 127]])


# ---------------------------------------------------------------------------------------------
# non-native byte order


@pytest.mark.parametrize("bad, idt", [(2**56, ">i8"), (2**24, ">i4"), (2**8, ">i2")])
def test_big_endian_indices_out_of_range_raise(bad, idt, both_paths):
    """2**56 stored big-endian reads as 1 in a native unsigned view: it passed the range check
    and was clipped (Gather, GatherND, ScatterND none: silent wrong result) or reached numpy as
    a bare IndexError (ScatterElements, ScatterND add)."""
    data = np.arange(12, dtype=F32).reshape(4, 3)
    idx = np.array([bad, 2 * bad], idt)  # byte-swapped: 1 and 2, both "in range"
    msg = f" = {bad} is out of range for data axis 0 of size 4 (valid -4..3)"
    calls = {
        "Gather: indices[0]": lambda: ops.gather(data, idx),
        "GatherND: indices[0, 0]": lambda: ops.gather_nd(data, idx[:, None]),
        "ScatterND: indices[0, 0]": lambda: ops.scatter_nd(data, idx[:, None], np.ones((2, 3), F32)),
        "ScatterND: indices[0, 0] ": lambda: ops.scatter_nd(data, idx[:, None], np.ones((2, 3), F32), "add"),
        "ScatterElements: indices[0, 0]": lambda: ops.scatter_elements(data, eidx, np.ones((1, 3), F32), 0, "add"),
        "GatherElements: indices[0, 0]": lambda: ops.gather_elements(data, eidx, 0),
    }
    eidx = np.array([[bad, 0, 0]], idt)
    for where, call in calls.items():
        with pytest.raises(ops.IndexOutOfRangeError, match=re.escape(where.strip() + msg)):
            call()


@pytest.mark.parametrize("idt", [">i8", ">i4", ">u4", ">i2"])
def test_big_endian_indices_and_data_in_range(idt, both_paths):
    rng = np.random.default_rng(1)
    data = rng.standard_normal((70, 65)).astype(">f4")
    native = data.astype(F32)
    signed = np.dtype(idt).kind == "i"
    idx = rng.integers(-70 if signed else 0, 70, size=(90,)).astype(idt)
    assert_same(ops.gather(data, idx), native[spec_index(idx, 70)])
    eidx = rng.integers(-65 if signed else 0, 65, size=(70, 65)).astype(idt)
    assert_same(ops.gather_elements(data, eidx, 1), np.take_along_axis(native, spec_index(eidx, 65), 1))
    upd = rng.standard_normal((90, 65)).astype(">f4")
    assert_same(ops.scatter_nd(data, idx[:, None], upd), reference.scatter_nd(native, idx[:, None], upd.astype(F32)))
