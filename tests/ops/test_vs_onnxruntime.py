"""ops against onnxruntime (CPU, one thread) on random one-node models.

onnxruntime is a second, independent oracle, used only where it supports the case. The
combinations it cannot run (checked with onnxruntime 1.32: NOT_IMPLEMENTED / type errors) are
left out *by construction* in ``ORT_DTYPES``; they are covered by the reference tests in
test_properties.py.

Known onnxruntime defects we do not take as truth:
- multi-threaded ScatterND loses updates on duplicate indices -> every session uses one thread
  (intra_op_num_threads = inter_op_num_threads = 1);
- string Gather on data with inner dimensions (axis is not the last axis) returns empty
  strings in 1.32 -> string Gather is compared only with axis = last axis;
- max/min do not propagate NaN in onnxruntime (std::max semantics; our decision is that NaN
  propagates) -> NaN and inf are replaced by finite values in max/min cases;
- no float16/bfloat16 add/mul, no float16 ScatterND max/min, no bool max/min, no bfloat16 or
  complex at all, no string TensorScatter, no mul/max/min on strings -> not generated.
onnxruntime does implement bool add/mul (as or/and), string add (concatenation) and float16
ScatterElements max/min; those are compared.
"""
from __future__ import annotations

import functools

import numpy as np
import onnxruntime as ort
import pytest
from hypothesis import HealthCheck, given, settings
from onnx import TensorProto, helper

import ops

from . import reference
from ._cases import INPUT_NAMES, case_strategy
from ._helpers import assert_same, eps, np_dtype

ort.set_default_logger_severity(3)  # TensorScatter logs a warning per run

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))

INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
PLAIN = ("bool",) + INTS + ("float16", "float32", "float64", "string")

# (op, reduction) -> dtypes onnxruntime 1.32 CPU runs (probed op by op, dtype by dtype)
ORT_DTYPES = {
    ("Gather", None): PLAIN,
    ("GatherElements", None): PLAIN,
    ("GatherND", None): PLAIN,
    ("Scatter", None): PLAIN,
    ("ScatterElements", "none"): PLAIN,
    ("ScatterElements", "add"): ("bool",) + INTS + ("float32", "float64", "string"),
    ("ScatterElements", "mul"): ("bool",) + INTS + ("float32", "float64"),
    ("ScatterElements", "max"): INTS + ("float16", "float32", "float64"),
    ("ScatterElements", "min"): INTS + ("float16", "float32", "float64"),
    ("ScatterND", "none"): PLAIN,
    ("ScatterND", "add"): ("bool",) + INTS + ("float32", "float64", "string"),
    ("ScatterND", "mul"): ("bool",) + INTS + ("float32", "float64"),
    ("ScatterND", "max"): INTS + ("float32", "float64"),
    ("ScatterND", "min"): INTS + ("float32", "float64"),
    ("TensorScatter", None): ("bool",) + INTS + ("float16", "float32", "float64"),
}

OPSET = {"Scatter": 10, "TensorScatter": 24}  # everything else at opset 18



def _elem_type(arr: np.ndarray) -> int:
    if arr.dtype == object:
        return TensorProto.STRING
    return helper.np_dtype_to_tensor_dtype(arr.dtype)


def _session_options():
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    return so


@functools.cache
def _session(op, signature, attrs_items):
    """One-node model; signature = ((elem_type, rank) or None per input)."""
    names = INPUT_NAMES[op]
    node_inputs, graph_inputs = [], []
    for name, sig in zip(names, signature, strict=True):
        if sig is None:
            continue
        elem, rank = sig
        node_inputs.append(name)
        graph_inputs.append(helper.make_tensor_value_info(name, elem, [None] * rank))
    node = helper.make_node(op, node_inputs, ["y"], **dict(attrs_items))
    out = helper.make_tensor_value_info("y", signature[0][0], None)
    model = helper.make_model(helper.make_graph([node], op, graph_inputs, [out]),
                              opset_imports=[helper.make_opsetid("", OPSET.get(op, 18))])
    model.ir_version = 10
    sess = ort.InferenceSession(model.SerializeToString(), _session_options(),
                                providers=["CPUExecutionProvider"])
    return sess, tuple(node_inputs)


def run_ort(op, inputs, attrs):
    signature = tuple(None if a is None else (_elem_type(a), a.ndim) for a in inputs)
    attrs = {k: v for k, v in attrs.items() if not (op == "ScatterND" and k == "axis")}
    sess, names = _session(op, signature, tuple(sorted(attrs.items())))
    feed = {n: a for n, a in zip(INPUT_NAMES[op], inputs, strict=True) if a is not None}
    (y,) = sess.run(None, {n: feed[n] for n in names})
    return y


def _finite(case):
    """Replace NaN/inf (onnxruntime's max/min do not propagate NaN)."""
    for i, a in enumerate(case.inputs):
        if a is not None and a.dtype.kind in "fc":
            case.inputs[i] = np.asarray(np.nan_to_num(a, nan=1.5, posinf=3.0, neginf=-3.0),
                                        dtype=a.dtype)
    return case


PARAMS = [
    pytest.param(op, red, dt, id=f"{op}-{red}-{dt}" if red else f"{op}-{dt}")
    for (op, red), dts in ORT_DTYPES.items()
    for dt in dts
]


@pytest.mark.parametrize("op, reduction, dtype", PARAMS)
def test_matches_onnxruntime(op, reduction, dtype):
    strategy = case_strategy(op, dtype, reduction)
    if op == "Gather" and dtype == "string":
        # onnxruntime 1.32 returns empty strings for string Gather with inner dimensions:
        # compare only the cases where the gathered axis is the last one
        strategy = strategy.filter(lambda c: c.attrs["axis"] in (-1, c.inputs[0].ndim - 1))

    @SETTINGS
    @given(case=strategy)
    def run(case):
        if reduction in ("max", "min"):
            case = _finite(case)
        want = run_ort(case.op, case.inputs, case.attrs)
        got = ops.run_op(case.op, case.inputs, case.attrs)
        if reduction in ("add", "mul") and want.dtype.kind == "f":
            counts = reference.target_counts(case.op, case.inputs, case.attrs)
            d, idx, u = (x.astype(np.float64) if x.dtype.kind == "f" else x for x in case.inputs)
            scale = (reference.run(case.op, [np.abs(d), idx, np.abs(u)], case.attrs)
                     if reduction == "add" else np.abs(want.astype(np.float64)))
            tol = 8.0 * (counts + 1) * eps(want.dtype) * scale
            assert got.shape == want.shape and got.dtype == want.dtype
            err = np.abs(got.astype(np.float64) - want.astype(np.float64))
            assert (err <= tol).all(), (got, want)
        else:
            if want.dtype.kind == "U":  # onnxruntime returns str arrays; ours are object
                want = want.astype(object)
            assert_same(got, want)

    run()


def test_onnxruntime_version_checked():
    """The exclusions above were probed on onnxruntime 1.32 (major.minor)."""
    major, minor = (int(x) for x in ort.__version__.split(".")[:2])
    assert (major, minor) >= (1, 20)


def test_string_gather_inner_dims_is_an_onnxruntime_defect_not_ours():
    """Documents why string Gather is filtered above: ops gives the spec answer."""
    data = np.array([["a", "b"], ["c", "d"], ["e", "f"]], dtype=object)
    idx = np.array([2, 0], np.int64)
    assert_same(ops.gather(data, idx, axis=0),
                np.array([["e", "f"], ["a", "b"]], dtype=object))
    assert_same(ops.gather(data, idx, axis=0), reference.gather(data, idx, 0))


def test_nan_in_max_onnxruntime_differs_by_design():
    """onnxruntime drops the NaN (std::max); our documented decision propagates it."""
    data = np.array([np.nan, 1.0], np.float32)
    idx, upd = np.array([0, 1], np.int64), np.array([5.0, np.nan], np.float32)
    got = ops.scatter_elements(data, idx, upd, reduction="max")
    assert np.isnan(got).all()
    assert_same(got, reference.scatter_elements(data, idx, upd, 0, "max"))
    assert np_dtype("float32") == got.dtype


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("reduction", ["max", "min"])
@pytest.mark.parametrize("rows, block", [(2, 1), (3000, 1), (400, 16)])
def test_max_min_ties_of_signed_zeros_keep_the_update_in_every_float_dtype(dtype, reduction, rows, block):
    """0.0 against -0.0: the update wins, as onnxruntime and every other dtype (float16 kept
    the current value: numpy's float16 maximum/minimum), small and large, elements and
    ScatterND's rows of a block."""
    rng = np.random.default_rng(rows + block)
    data = np.where(rng.random((rows, block)) < 0.5, 0.0, -0.0).astype(np_dtype(dtype))
    targets = rng.permutation(rows)
    updates = -data[targets]                                  # the other zero of each target
    scatter_nd = ("ScatterND", [data, targets.reshape(-1, 1).astype(np.int64), updates], {"reduction": reduction})
    cases = [scatter_nd]
    if block == 1:
        flat = [data.reshape(-1), targets.astype(np.int64), updates.reshape(-1)]
        cases.append(("ScatterElements", flat, {"axis": 0, "reduction": reduction}))
    for op, inputs, attrs in cases:
        got = ops.run_op(op, inputs, attrs)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(updates[np.argsort(targets)].reshape(got.shape)))
        if op == "ScatterND" and dtype == "float16":
            continue       # onnxruntime has no float16 ScatterND max/min kernel; its ScatterElements agrees
        want = run_ort(op, inputs, attrs)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=op)


@pytest.mark.parametrize("write_index", [0, 3, 4, 5, 7, 13])
@pytest.mark.parametrize("seq", [1, 2, 5])
def test_tensor_scatter_circular_write_index_beyond_the_cache(write_index, seq):
    """Circular mode: the write index is taken modulo max_sequence_length, even when it is
    larger than the cache (onnxruntime agrees; negative ones it rejects, so not compared)."""
    rng = np.random.default_rng(write_index * 10 + seq)
    cache = rng.standard_normal((2, 3, 5, 2)).astype(np.float32)
    update = rng.standard_normal((2, 3, seq, 2)).astype(np.float32)
    wi = np.array([write_index, (write_index * 3) % 11], np.int64)
    attrs = {"axis": 2, "mode": "circular"}
    want = run_ort("TensorScatter", [cache, update, wi], attrs)
    assert_same(ops.run_op("TensorScatter", [cache, update, wi], attrs), want)
    assert_same(reference.tensor_scatter(cache, update, wi, 2, "circular"), want)
