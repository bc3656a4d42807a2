"""The small-call routes (issue #17: the editor's tensors of 1e3-1e4 elements): Gather's one
checked ``np.take``, GatherND's and ScatterND's rows from one checking pass
(:func:`ops.index_map.checked_tuple_rows`), and the checks remembered per shape
(:func:`ops.checks.checked_once`). Each gives the slow reference's result (tests/ops/reference.py)
for in-range, negative and mixed indices of every integer type, and for a bad index the same
error as the long path, every time it is asked (nothing refused is remembered)."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

import ops
from ops import accel

from . import reference

INDEX_TYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


@pytest.fixture(params=[True, False], ids=["small-routes", "long-path"])
def small_routes(request, monkeypatch):
    """Once as shipped (the small routes on), once with them off (the numpy long path)."""
    if not request.param:
        monkeypatch.setattr(accel, "SMALL_WORK", 0)
        monkeypatch.setattr(importlib.import_module("ops.gather"), "SMALL_TAKE", 0)
    return request.param


def _indices(rng, size: int, shape, dtype: str, negatives: bool) -> np.ndarray:
    lo = -size if negatives and dtype.startswith("int") else 0
    return rng.integers(lo, size, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", INDEX_TYPES)
@pytest.mark.parametrize("negatives", [False, True], ids=["non-negative", "with-negatives"])
def test_small_gathers_and_scatter_nd_match_the_reference(dtype, negatives, small_routes):
    rng = np.random.default_rng([INDEX_TYPES.index(dtype), negatives])
    data = rng.standard_normal((6, 5, 4)).astype(np.float32)
    for axis in (0, 1, 2, -1):
        idx = _indices(rng, data.shape[axis], (3, 7), dtype, negatives)
        np.testing.assert_array_equal(ops.run_op("Gather", [data, idx], {"axis": axis}),
                                      reference.gather(data, idx, axis))
    for k in (1, 2, 3):
        cols = [_indices(rng, data.shape[c], (9,), dtype, negatives) for c in range(k)]
        idx = np.stack(cols, axis=-1)
        np.testing.assert_array_equal(ops.run_op("GatherND", [data, idx]), reference.gather_nd(data, idx))
        upd = rng.standard_normal((9,) + data.shape[k:]).astype(np.float32)
        for reduction in ("none", "add", "max"):
            got = ops.run_op("ScatterND", [data, idx, upd], {"reduction": reduction})
            np.testing.assert_array_equal(got, reference.scatter_nd(data, idx, upd, reduction))


BAD = [
    ("Gather", lambda d: [d, np.array([0, 5, 1])], {"axis": 1},
     "Gather: indices[1] = 5 is out of range for data axis 1 of size 5 (valid -5..4)"),
    ("Gather", lambda d: [d, np.array([[0], [-7]])], {"axis": 0},
     "Gather: indices[1, 0] = -7 is out of range for data axis 0 of size 6 (valid -6..5)"),
    ("Gather", lambda d: [d, np.array([1, 2**64 - 1], dtype=np.uint64)], {"axis": 2},
     "Gather: indices[1] = 18446744073709551615 is out of range for data axis 2 of size 4"),
    ("GatherND", lambda d: [d, np.array([[1, 2], [3, 5]])], {},
     "GatherND: indices[1, 1] = 5 is out of range for data axis 1 of size 5"),
    ("ScatterND", lambda d: [d, np.array([[1], [-7]]), np.zeros((2, 5, 4), np.float32)], {},
     "ScatterND: indices[1, 0] = -7 is out of range for data axis 0 of size 6"),
    ("ScatterND", lambda d: [d, np.array([[0, 0, 4]], dtype=np.uint64), np.zeros(1, np.float32)],
     {"reduction": "add"}, "ScatterND: indices[0, 2] = 4 is out of range for data axis 2 of size 4"),
]


@pytest.mark.parametrize("op, inputs, attrs, message", BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_a_bad_index_gets_the_long_paths_error_every_time(op, inputs, attrs, message, small_routes):
    data = np.arange(120, dtype=np.float32).reshape(6, 5, 4)
    for _ in range(2):
        with pytest.raises(ops.IndexOutOfRangeError) as err:
            ops.run_op(op, inputs(data), attrs)
        assert message in str(err.value)


@pytest.mark.parametrize("data", [np.array([7, 8], np.int16), np.array(["a", "b"], dtype=object)],
                         ids=["int16", "string"])
def test_a_zero_d_gather_is_an_array(data, small_routes):
    """Gather of a 0-d index from a 1-D tensor is a 0-d array of data's dtype (np.take alone
    would give a scalar, or a Python str for strings)."""
    got = ops.run_op("Gather", [data, np.array(-1)], {"axis": 0})
    assert isinstance(got, np.ndarray) and got.shape == () and got.dtype == data.dtype and got[()] == data[-1]


def test_remembered_shape_checks_still_refuse_a_bad_axis_and_a_bool_axis():
    """checked_once keys hold the attribute's type: axis True is refused even after axis 1
    passed on the same shapes, and an axis out of range is refused on every call."""
    data, idx = np.zeros((3, 4), np.float32), np.array([0, 1])
    assert ops.run_op("Gather", [data, idx], {"axis": 1}).shape == (3, 2)
    for _ in range(2):
        with pytest.raises(ops.OpError, match="axis must be an integer"):
            ops.gather(data, idx, True)
        with pytest.raises(ops.OpError, match="axis=2 is out of range"):
            ops.gather(data, idx, 2)
        with pytest.raises(ops.OpError, match="axis must be an integer"):
            ops.gather(data, idx, [1])  # unhashable: not remembered, refused by the check itself
        with pytest.raises(ops.OpError, match="batch_dims must be an integer"):
            ops.gather_nd(data, np.array([[0]]), [0])
        with pytest.raises(ops.OpError, match="updates shape"):
            ops.scatter_nd(data, np.array([[0]]), np.zeros((2, 4), np.float32))
