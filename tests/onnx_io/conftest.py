"""Shared helpers for the onnx_io tests: a one-thread onnxruntime session."""
import numpy as np
import onnxruntime as ort
import pytest


def ort_run(model, feeds=None):
    """Outputs of ``model`` in onnxruntime with one thread (multi-threaded ScatterND loses
    updates on duplicate indices), by output name."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds or {}), strict=True))


def assert_same(actual: np.ndarray, expected: np.ndarray, float_tolerance: bool = False) -> None:
    assert actual.shape == expected.shape and actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    if float_tolerance and actual.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(actual, expected)


@pytest.fixture
def run_in_ort():
    return ort_run
