"""Zero-size and rank-limit shapes (empty indices, empty axes, GatherND with k = 0 or k = rank,
batch_dims at its maximum, empty batches) give onnxruntime's result, and bad indices are
refused like onnxruntime refuses them even when the output is empty. Expected values come
from onnxruntime (one thread) and the slow reference (tests/ops/reference.py); every case
runs with the accelerator on and off."""
from __future__ import annotations

import re

import numpy as np
import pytest

import ops

from . import reference
from ._helpers import assert_same, raw_bytes
from .test_vs_onnxruntime import run_ort

F32 = np.float32


def _i(*v):
    return np.array(v, np.int64)


# ---------------------------------------------------------------------------------------------
# zero-size and rank-limit shapes against onnxruntime


ORT_CASES = {
    "gather-empty-indices": ("Gather", [np.arange(6, dtype=F32).reshape(2, 3), np.zeros((0,), np.int64)], {"axis": 1}),
    "gather-empty-axis-empty-indices": ("Gather", [np.zeros((0, 3), F32), np.zeros((2, 0), np.int64)], {"axis": 0}),
    "gather-scalar-index": ("Gather", [np.arange(6, dtype=F32).reshape(2, 3), np.array(-1, np.int64)], {"axis": 1}),
    "gather-scalar-index-axis0": ("Gather", [np.arange(6, dtype=F32).reshape(2, 3), np.array(1, np.int64)],
                                  {"axis": 0}),
    "gather-zero-block": ("Gather", [np.zeros((3, 0), F32), _i(2, -3)], {"axis": 0}),
    "gather-elements-empty": ("GatherElements", [np.zeros((0, 3), F32), np.zeros((0, 3), np.int64)], {"axis": 0}),
    "gather-elements-empty-non-axis": ("GatherElements", [np.ones((2, 3), F32), np.zeros((2, 0), np.int64)],
                                       {"axis": 0}),
    "gather-nd-k0": ("GatherND", [np.arange(6, dtype=F32).reshape(2, 3), np.zeros((4, 0), np.int64)], {}),
    "gather-nd-k-is-rank": ("GatherND", [np.arange(6, dtype=F32).reshape(2, 3), _i(1, -1)], {}),
    "gather-nd-k-is-rank-2d": ("GatherND", [np.arange(6, dtype=F32).reshape(2, 3), np.array([[1, 2], [-2, 0]])], {}),
    "gather-nd-empty": ("GatherND", [np.arange(6, dtype=F32).reshape(2, 3), np.zeros((0, 2), np.int64)], {}),
    "gather-nd-batch-k0": ("GatherND", [np.arange(6, dtype=F32).reshape(2, 3), np.zeros((2, 0), np.int64)],
                           {"batch_dims": 1}),
    "gather-nd-batch-max": ("GatherND", [np.arange(24, dtype=F32).reshape(2, 3, 4),
                                         np.array([[[1], [0], [3]], [[2], [-1], [-4]]], np.int64)], {"batch_dims": 2}),
    "gather-nd-batch-scalars": ("GatherND", [np.arange(24, dtype=F32).reshape(2, 3, 4),
                                             np.array([[1, 2], [-1, 0]], np.int64)], {"batch_dims": 1}),
    "gather-nd-empty-batch": ("GatherND", [np.zeros((0, 3), F32), np.zeros((0, 1), np.int64)], {"batch_dims": 1}),
    "scatter-elements-empty": ("ScatterElements", [np.ones((2, 3), F32), np.zeros((0, 3), np.int64),
                                                   np.zeros((0, 3), F32)], {"axis": 0, "reduction": "add"}),
    "scatter-elements-empty-axis": ("ScatterElements", [np.zeros((2, 0), F32), np.zeros((2, 0), np.int64),
                                                        np.zeros((2, 0), F32)], {"axis": 1}),
    "scatter-nd-empty": ("ScatterND", [np.ones((2, 3), F32), np.zeros((0, 2), np.int64), np.zeros((0,), F32)],
                         {"reduction": "mul"}),
    "scatter-nd-k0": ("ScatterND", [np.ones((2, 3), F32), np.zeros((1, 0), np.int64), np.full((1, 2, 3), 5, F32)], {}),
    "scatter-nd-scalars": ("ScatterND", [np.zeros((2, 3), F32), np.array([[1, -1], [0, 0], [1, 2]]),
                                         np.array([1, 2, 3], F32)], {"reduction": "add"}),
    "tensor-scatter-empty-batch": ("TensorScatter", [np.zeros((0, 4, 3), F32), np.ones((0, 2, 3), F32),
                                                     np.zeros((0,), np.int64)], {"axis": 1}),
    "tensor-scatter-empty-cache": ("TensorScatter", [np.zeros((2, 0, 3), F32), np.ones((2, 0, 3), F32), _i(0, 0)],
                                   {"axis": 1, "mode": "circular"}),
}


@pytest.mark.parametrize("name", sorted(ORT_CASES))
def test_zero_size_and_rank_limits_match_onnxruntime(name, both_paths):
    op, inputs, attrs = ORT_CASES[name]
    before = [x.copy() for x in inputs]
    want = run_ort(op, inputs, attrs)
    assert_same(ops.run_op(op, inputs, attrs), want)
    if op != "TensorScatter" and all(x.size < 100 for x in inputs):
        assert_same(reference.run(op, inputs, attrs), want)
    for b, x in zip(before, inputs, strict=True):
        assert raw_bytes(b) == raw_bytes(x)


ORT_REFUSES = {
    "gather-index-into-empty-axis": ("Gather", [np.zeros((0, 3), F32), _i(0)], {"axis": 0},
                                     "Gather: indices[0] = 0 is out of range for data axis 0 of size 0 "
                                     "(no index is valid in an empty axis)"),
    "gather-bad-index-empty-output": ("Gather", [np.zeros((0, 3), F32), _i(5)], {"axis": 1},
                                      "Gather: indices[0] = 5 is out of range for data axis 1 of size 3 (valid -3..2)"),
    "gather-bad-index-zero-block": ("Gather", [np.zeros((2, 0), F32), _i(0, -3)], {"axis": 0},
                                    "Gather: indices[1] = -3 is out of range for data axis 0 of size 2 (valid -2..1)"),
    "scatter-nd-bad-index-zero-block": ("ScatterND", [np.zeros((2, 0), F32), np.array([[5]]), np.zeros((1, 0), F32)],
                                        {}, "ScatterND: indices[0, 0] = 5 is out of range for data axis 0 of size 2"),
    "scatter-elements-into-empty-axis": ("ScatterElements", [np.zeros((0, 3), F32), np.zeros((1, 3), np.int64),
                                                             np.zeros((1, 3), F32)], {"axis": 0},
                                         "ScatterElements: indices[0, 0] = 0 is out of range for data axis 0 "
                                         "of size 0 (no index is valid in an empty axis)"),
}


@pytest.mark.parametrize("name", sorted(ORT_REFUSES))
def test_bad_indices_with_empty_outputs_are_refused_like_onnxruntime(name, both_paths):
    op, inputs, attrs, msg = ORT_REFUSES[name]
    with pytest.raises(Exception, match=r"\[ONNXRuntimeError\]"):
        run_ort(op, inputs, attrs)
    with pytest.raises(ops.IndexOutOfRangeError, match=re.escape(msg)):
        ops.run_op(op, inputs, attrs)
