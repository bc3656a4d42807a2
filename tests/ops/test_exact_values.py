"""Values move exactly, whatever their layout: the accelerator and the numpy path give the
same bits for C, Fortran, reversed, read-only and strided inputs on both sides of the size
thresholds, and leave the inputs untouched; uint64 extremes and NaN payloads move bit for
bit; max and min fold inf, NaN and signed zeros as the reference does; strings of different
widths are never truncated.

Expected values come from the slow reference (tests/ops/reference.py) or plain numpy on
int64 indices, never from ops itself; the cases marked ``both_paths`` run with the
accelerator on and off.
"""
from __future__ import annotations

import numpy as np
import pytest

import ops
from ops import accel

from . import reference
from ._helpers import assert_same, raw_bytes, spec_index

F32 = np.float32


def _i(*v):
    return np.array(v, np.int64)


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
        "gather": data[spec_index(idx, rows)],
        "gather_nd": data[spec_index(idx, rows)],
        "gather_elements": np.take_along_axis(data, spec_index(eidx, 64), 1),
    }
    sn = data.copy()
    for r, u in zip(spec_index(idx, rows), upd, strict=True):  # last duplicate wins
        sn[r] = u
    want["scatter_nd"] = sn
    sa = data.copy()
    np.add.at(sa, (np.arange(rows)[:, None], spec_index(eidx, 64)), upd)
    want["scatter_elements_add"] = sa
    for accel_on in ([False, True] if accel.available() else [False]):
        previous = accel.set_enabled(accel_on)
        try:
            for (ld, d), (li, i), (le, e), (lu, u) in zip(_layouts(data), _layouts(idx[:, None]), _layouts(eidx),
                                                         _layouts(upd), strict=True):
                saved = [raw_bytes(x) for x in (d, i, e, u)]
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
                    assert raw_bytes(got[name]) == raw_bytes(w), (label, name)
                assert [raw_bytes(x) for x in (d, i, e, u)] == saved, label
        finally:
            accel.set_enabled(previous)


def test_uint64_extremes_and_nan_payloads_move_bit_for_bit(both_paths):
    data = np.array([0, 1, 2**64 - 1, 2**63, 2**63 - 1], np.uint64)
    idx = np.array([2, -1, 3, -3], np.int64)
    assert_same(ops.gather(data, idx), data[spec_index(idx, 5)])
    want = data.copy()
    np.add.at(want, spec_index(idx, 5), data[spec_index(idx, 5)])  # wraps modulo 2**64
    assert_same(ops.scatter_elements(data, idx, data[spec_index(idx, 5)], 0, "add"), want)
    want = data.copy()
    np.maximum.at(want, spec_index(idx, 5), np.array([1, 2**64 - 2, 5, 2**64 - 1], np.uint64))
    assert_same(ops.scatter_elements(data, idx, np.array([1, 2**64 - 2, 5, 2**64 - 1], np.uint64), 0, "max"), want)
    nans = np.array([0x7FC00001, 0xFFC00000, 0x7F800001, 0x80000000], np.uint32).view(F32)  # ..., -0.0
    got = ops.gather(nans, _i(3, 2, 1, 0))
    assert raw_bytes(got) == raw_bytes(nans[[3, 2, 1, 0]])
    got = ops.scatter_nd(np.zeros(4, F32), _i(3, 2, 1, 0)[:, None], nans)
    assert raw_bytes(got) == raw_bytes(nans[[3, 2, 1, 0]])


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
