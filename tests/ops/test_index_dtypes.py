"""Unsigned and odd index or attribute types never wrap around or escape as bare errors."""
import numpy as np
import pytest

import ops

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
