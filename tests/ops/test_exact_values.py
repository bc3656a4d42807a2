"""Edge cases the broader suites do not reach: index dtypes and byte orders that defeat the
one-pass range check, zero-size and rank-limit shapes, memory layouts, TensorScatter write
indices at the ends of int64, and the form of the errors.

Expected values come from onnxruntime (one thread), the slow reference (tests/ops/reference.py)
or the spec formula written out here with plain numpy on int64 indices, never from ops itself.
Every case runs with the accelerator on and off (:func:`both_paths`); with it on, the size
threshold is lowered so small cases reach the compiled kernels too.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

import ops
from ops import accel

from . import reference
from ._helpers import assert_same
from .test_vs_onnxruntime import run_ort

F32 = np.float32


@pytest.fixture(params=[False, True], ids=["numpy", "accel"])
def both_paths(request, monkeypatch):
    """Run the test once on the numpy path and once with the accelerator (if installed)."""
    if request.param and not accel.available():
        pytest.skip("numba is not installed")
    previous = accel.set_enabled(request.param)
    monkeypatch.setattr(accel, "MIN_SIZE", 0)
    yield request.param
    accel.set_enabled(previous)


def _norm(idx, size):
    """The spec's index normalisation, in int64."""
    i = np.asarray(idx).astype(np.int64)
    return np.where(i < 0, i + size, i)


def _bits(a: np.ndarray) -> bytes:
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


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
    rows = _norm(idx, size)
    assert_same(ops.gather(data, idx, 0), data[rows])
    assert_same(ops.gather(data.T.copy(), idx, 1), data.T[:, rows])
    assert_same(ops.gather_nd(data, idx[:, None]), data[rows])
    # GatherElements / ScatterElements along axis 1 of a (2, size) table
    table = np.arange(2 * size, dtype=F32).reshape(2, size)
    eidx = np.stack([idx, idx[::-1]])
    cols = _norm(eidx, size)
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
    assert_same(ops.gather(data, idx), native[_norm(idx, 70)])
    eidx = rng.integers(-65 if signed else 0, 65, size=(70, 65)).astype(idt)
    assert_same(ops.gather_elements(data, eidx, 1), np.take_along_axis(native, _norm(eidx, 65), 1))
    upd = rng.standard_normal((90, 65)).astype(">f4")
    assert_same(ops.scatter_nd(data, idx[:, None], upd), reference.scatter_nd(native, idx[:, None], upd.astype(F32)))


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
    with pytest.raises(Exception):
        run_ort("TensorScatter", [cache, update, wi], {"axis": 1, "mode": "linear"})
    with pytest.raises(ops.IndexOutOfRangeError, match=re.escape(
            f"TensorScatter: write_indices[{bad}] = {wi[bad]} is out of range for past_cache axis 1 of size 4 "
            f"with an update of length 0 in linear mode (valid 0..4)")):
        ops.tensor_scatter(cache, update, wi, 1, "linear")


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


# ---------------------------------------------------------------------------------------------
# zero-size and rank-limit shapes against onnxruntime


def _i(*v):
    return np.array(v, np.int64)


ORT_CASES = {
    "gather-empty-indices": ("Gather", [np.arange(6, dtype=F32).reshape(2, 3), np.zeros((0,), np.int64)], {"axis": 1}),
    "gather-empty-axis-empty-indices": ("Gather", [np.zeros((0, 3), F32), np.zeros((2, 0), np.int64)], {"axis": 0}),
    "gather-scalar-index": ("Gather", [np.arange(6, dtype=F32).reshape(2, 3), np.array(-1, np.int64)], {"axis": 1}),
    "gather-scalar-index-axis0": ("Gather", [np.arange(6, dtype=F32).reshape(2, 3), np.array(1, np.int64)], {"axis": 0}),
    "gather-zero-block": ("Gather", [np.zeros((3, 0), F32), _i(2, -3)], {"axis": 0}),
    "gather-elements-empty": ("GatherElements", [np.zeros((0, 3), F32), np.zeros((0, 3), np.int64)], {"axis": 0}),
    "gather-elements-empty-non-axis": ("GatherElements", [np.ones((2, 3), F32), np.zeros((2, 0), np.int64)], {"axis": 0}),
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
    for b, x in zip(before, inputs):
        assert _bits(b) == _bits(x)


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
    with pytest.raises(Exception):
        run_ort(op, inputs, attrs)
    with pytest.raises(ops.IndexOutOfRangeError, match=re.escape(msg)):
        ops.run_op(op, inputs, attrs)


# ---------------------------------------------------------------------------------------------
# layouts and thresholds: accelerator and numpy bit-identical, inputs untouched


def _layouts(a: np.ndarray):
    yield "C", a
    yield "F", np.asfortranarray(a)
    yield "reversed", np.ascontiguousarray(a[::-1])[::-1]
    ro = a.copy()
    ro.flags.writeable = False
    yield "read-only", ro
    wide = np.repeat(a, 2, axis=-1)
    yield "strided", wide[..., ::2]


@pytest.mark.parametrize("rows", [63, 64, 65, 1025])  # 64 columns: work crosses 4096 and 65536
def test_layouts_and_thresholds_bit_identical(rows, monkeypatch):
    rng = np.random.default_rng(rows)
    data = rng.standard_normal((rows, 64)).astype(F32)
    data[0, :4] = [np.nan, -0.0, np.inf, -np.inf]
    data.view(np.uint32)[1, 0] = 0x7FC0_0ABC  # a NaN with a payload
    idx = rng.integers(-rows, rows, size=(rows,)).astype(np.int32)
    eidx = rng.integers(-64, 64, size=(rows, 64))
    upd = rng.standard_normal((rows, 64)).astype(F32)
    want = {
        "gather": data[_norm(idx, rows)],
        "gather_nd": data[_norm(idx, rows)],
        "gather_elements": np.take_along_axis(data, _norm(eidx, 64), 1),
    }
    sn = data.copy()
    for r, u in zip(_norm(idx, rows), upd):  # last duplicate wins
        sn[r] = u
    want["scatter_nd"] = sn
    sa = data.copy()
    np.add.at(sa, (np.arange(rows)[:, None], _norm(eidx, 64)), upd)
    want["scatter_elements_add"] = sa
    for accel_on in ([False, True] if accel.available() else [False]):
        previous = accel.set_enabled(accel_on)
        try:
            for (ld, d), (li, i), (le, e), (lu, u) in zip(_layouts(data), _layouts(idx[:, None]), _layouts(eidx),
                                                         _layouts(upd)):
                saved = [_bits(x) for x in (d, i, e, u)]
                label = f"accel={accel_on} layouts {ld}/{li}/{le}/{lu}"
                got = {
                    "gather": ops.gather(d, i[:, 0]),
                    "gather_nd": ops.gather_nd(d, i),
                    "gather_elements": ops.gather_elements(d, e, 1),
                    "scatter_nd": ops.scatter_nd(d, i, u),
                    "scatter_elements_add": ops.scatter_elements(d, e, u, 1, "add"),
                }
                for name, w in want.items():
                    assert got[name].shape == w.shape, (label, name)
                    assert _bits(got[name]) == _bits(w), (label, name)
                assert [_bits(x) for x in (d, i, e, u)] == saved, label
        finally:
            accel.set_enabled(previous)


def test_uint64_extremes_and_nan_payloads_move_bit_for_bit(both_paths):
    data = np.array([0, 1, 2**64 - 1, 2**63, 2**63 - 1], np.uint64)
    idx = np.array([2, -1, 3, -3], np.int64)
    assert_same(ops.gather(data, idx), data[_norm(idx, 5)])
    want = data.copy()
    np.add.at(want, _norm(idx, 5), data[_norm(idx, 5)])  # wraps modulo 2**64
    assert_same(ops.scatter_elements(data, idx, data[_norm(idx, 5)], 0, "add"), want)
    want = data.copy()
    np.maximum.at(want, _norm(idx, 5), np.array([1, 2**64 - 2, 5, 2**64 - 1], np.uint64))
    assert_same(ops.scatter_elements(data, idx, np.array([1, 2**64 - 2, 5, 2**64 - 1], np.uint64), 0, "max"), want)
    nans = np.array([0x7FC00001, 0xFFC00000, 0x7F800001, 0x80000000], np.uint32).view(F32)  # ..., -0.0
    got = ops.gather(nans, _i(3, 2, 1, 0))
    assert _bits(got) == _bits(nans[[3, 2, 1, 0]])
    got = ops.scatter_nd(np.zeros(4, F32), _i(3, 2, 1, 0)[:, None], nans)
    assert _bits(got) == _bits(nans[[3, 2, 1, 0]])


def test_max_min_with_inf_nan_and_signed_zero_follow_the_reference(both_paths):
    data = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, np.nan], F32)
    idx = _i(0, 1, 2, 3, 4, 5, 4, 0)
    upd = np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, 3.0, np.nan, 2.0], F32)
    for red in ("max", "min", "add", "mul"):
        want = reference.scatter_elements(data, idx, upd, 0, red)
        got = ops.scatter_elements(data, idx, upd, 0, red)
        np.testing.assert_array_equal(got, want)  # NaN where the reference has NaN; -0.0 == 0.0 here
        assert (np.isnan(got) == np.isnan(want)).all(), red


def test_strings_of_different_widths_are_never_truncated():
    data = np.array(["a", "bb", "ccc"])  # <U3
    long = np.array(["a much longer string"])  # <U20
    got = ops.scatter_elements(data, _i(1), long)
    assert got.dtype == object and got.tolist() == ["a", "a much longer string", "ccc"]
    got = ops.scatter_nd(data, _i(1, 1)[:, None], np.array(["xy", "zzzz"]), "add")
    assert got.tolist() == ["a", "bbxyzzzz", "ccc"]
    got = ops.gather(np.array([["a", "bb"], ["ccc", "dddd"]]), np.array(1, np.int64), 0)
    assert got.dtype == object and got.tolist() == ["ccc", "dddd"]


# ---------------------------------------------------------------------------------------------
# errors are OpError with a message, never a bare Python or numpy error


@pytest.mark.parametrize("batch_dims", ["1", 1.5, 1.0, None, True])
def test_gather_nd_batch_dims_must_be_an_integer(batch_dims):
    """A str, float or None batch_dims was a bare TypeError; True was taken for 1."""
    with pytest.raises(ops.OpError, match=re.escape(f"GatherND: batch_dims must be an integer, got {batch_dims!r}")):
        ops.gather_nd(np.zeros((4, 3), F32), np.zeros((4, 1), np.int64), batch_dims)


def test_bytes_that_are_not_utf8_are_an_op_error():
    """np.char.decode's bare UnicodeDecodeError escaped before."""
    with pytest.raises(ops.OpError, match=re.escape("Gather: data: a bytes string tensor must hold UTF-8 text")):
        ops.gather(np.array([b"a", b"\xff"]), _i(1))
    assert ops.gather(np.array([b"a", "é".encode()]), _i(1)).tolist() == ["é"]


def test_scatter_nd_message_exactly_as_in_the_contract(both_paths):
    data = np.zeros((4, 5000), F32)  # big enough for the accelerated ScatterND
    idx = np.array([[0], [1], [5]], np.int64)
    with pytest.raises(ops.IndexOutOfRangeError) as err:
        ops.scatter_nd(data, idx, np.zeros((3, 5000), F32))
    assert str(err.value) == "ScatterND: indices[2, 0] = 5 is out of range for data axis 0 of size 4 (valid -4..3)"
