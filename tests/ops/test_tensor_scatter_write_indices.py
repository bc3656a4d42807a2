"""TensorScatter's write indices: circular positions near the ends of int64, the linear-mode
check of an empty update, empty updates at the ends, the last slot on every axis, and the
errors for a wrong mode or axis. Expected values come from onnxruntime (one thread), the slow
reference (tests/ops/reference.py) or the spec formula written out here, never from ops."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ops

from . import reference
from ._helpers import assert_same
from .test_vs_onnxruntime import run_ort

F32 = np.float32


# ---------------------------------------------------------------------------------------------
# TensorScatter: write indices at the ends of int64, empty updates


@pytest.mark.parametrize("w", [2**63 - 1, 2**63 - 2, -2**63, -2**63 + 1, -1, 13])
@pytest.mark.parametrize("max_len", [5, 7])
def test_tensor_scatter_circular_write_index_near_the_int64_limits(w, max_len):
    """write index + s overflowed int64 before the modulo (2**63-1 + 1 wrapped to -2**63), so
    with a max_sequence_length not dividing 2**64 positions were wrong and one step overwrote
    another. Spec: (w + s) % max_sequence_length, in exact integers."""
    cache = np.zeros((2, max_len, 2))
    update = np.arange(1, 13, dtype=np.float64).reshape(2, 3, 2)
    wi = np.array([w, 0], np.int64)
    want = cache.copy()
    for b in range(2):
        for s in range(3):
            want[b, (int(wi[b]) + s) % max_len] = update[b, s]
    assert_same(ops.tensor_scatter(cache, update, wi, 1, "circular"), want)
    rows = ops.index_map("TensorScatter", [cache, update, wi], {"axis": 1, "mode": "circular"}).rows
    assert rows.min() >= 0 and rows.max() < 2 * max_len


@pytest.mark.parametrize("wi, bad", [([9, 0], 0), ([0, -3], 1), ([5, 0], 0)])
def test_tensor_scatter_linear_checks_write_indices_of_an_empty_update(wi, bad):
    """sequence_length 0 skipped the linear-mode check; the spec requires write_indices +
    sequence_length <= max_sequence_length and onnxruntime refuses both cases."""
    cache, update = np.zeros((2, 4, 3), F32), np.zeros((2, 0, 3), F32)
    wi = np.array(wi, np.int64)
    with pytest.raises(Exception, match=r"\[ONNXRuntimeError\]"):  # ort's errors subclass only Exception
        run_ort("TensorScatter", [cache, update, wi], {"axis": 1, "mode": "linear"})
    with pytest.raises(ops.IndexOutOfRangeError, match=re.escape(
            f"TensorScatter: write_indices[{bad}] = {wi[bad]} is out of range for past_cache axis 1 of size 4 "
            f"with an update of length 0 in linear mode (valid 0..4)")) as info:
        ops.tensor_scatter(cache, update, wi, 1, "linear")
    assert info.value.port == "write_indices" and info.value.position == (bad,)


@pytest.mark.parametrize("wi", [[4, 0], [0, 0], [2, 4]])
@pytest.mark.parametrize("mode", ["linear", "circular"])
def test_tensor_scatter_empty_update_at_the_ends_is_a_copy(wi, mode):
    cache = np.arange(24, dtype=F32).reshape(2, 4, 3)
    update, wi = np.zeros((2, 0, 3), F32), np.array(wi, np.int64)
    want = run_ort("TensorScatter", [cache, update, wi], {"axis": -2, "mode": mode})
    assert_same(ops.tensor_scatter(cache, update, wi, -2, mode), want)


@pytest.mark.parametrize("mode", ["linear", "circular"])
@pytest.mark.parametrize("axis", [1, 2, -1, -2])
def test_tensor_scatter_write_indices_at_the_last_slot(axis, mode):
    cache = np.arange(2 * 4 * 5, dtype=F32).reshape(2, 4, 5)
    a = axis % 3
    max_len = cache.shape[a]
    ushape = list(cache.shape)
    ushape[a] = 2
    update = -np.arange(1, 1 + int(np.prod(ushape)), dtype=F32).reshape(ushape)
    wi = np.array([max_len - 2, max_len - 1 if mode == "circular" else 0], np.int64)
    attrs = {"axis": axis, "mode": mode}
    want = run_ort("TensorScatter", [cache, update, wi], attrs)
    assert_same(ops.tensor_scatter(cache, update, wi, axis, mode), want)
    assert_same(reference.tensor_scatter(cache, update, wi, axis, mode), want)


def test_tensor_scatter_mode_and_axis_errors():
    cache, update = np.zeros((2, 4, 3), F32), np.zeros((2, 1, 3), F32)
    with pytest.raises(ops.OpError, match=re.escape("TensorScatter: mode='Linear' is not one of linear, circular")):
        ops.tensor_scatter(cache, update, None, 1, "Linear")
    with pytest.raises(ops.OpError, match=re.escape("axis=-3 is the batch axis; the sequence axis must be 1..2")):
        ops.tensor_scatter(cache, update, None, -3)
    with pytest.raises(ops.OpError, match=re.escape("axis=3 is out of range for past_cache of rank 3 (valid -3..2)")):
        ops.tensor_scatter(cache, update, None, 3)
