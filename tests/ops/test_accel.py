"""The optional compiled accelerator (ops/accel.py) against the numpy path it replaces.

Every accelerated kernel and dtype must give the numpy path's result bit for bit: results are
compared as raw bytes, so NaN payloads, NaN vs number and -0.0 vs 0.0 all count. Cases are
random, ranks 1 to 4, with duplicates, negative indices, NaNs in data and in updates (both
orders of a NaN meeting a number), signed zeros, and sizes on both sides of the thread split.
The accelerator's size threshold is lowered so small cases reach the kernels too.
"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ops
from ops import accel, accel_kernels, parallel, small_calls

from . import reference
from ._helpers import NUMBA_INSTALLED, require_accelerator, with_threads

pytestmark = pytest.mark.skipif(not NUMBA_INSTALLED, reason="numba is not installed (extra 'fast')")

FOLD_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
REDUCTIONS = ["add", "mul", "max", "min"]
GATHER_DTYPES = ["bool", "int8", "uint16", "int32", "uint64", "float16", "bfloat16", "float32", "float64", "complex64"]


#: The row gather's thresholds as the module sets them (the fixture below lowers them to 0).
ROWS_MIN_ROW_BYTES, ROWS_MIN_TABLE_BYTES = accel.ROWS_MIN_ROW_BYTES, accel.ROWS_MIN_TABLE_BYTES


@pytest.fixture(autouse=True)
def accel_state(monkeypatch):
    """Restore the switch after each test; let small cases reach the kernels."""
    require_accelerator()
    previous = accel.set_enabled(True)
    monkeypatch.setattr(accel, "MIN_SIZE", 0)
    monkeypatch.setattr(accel, "SMALL_WORK", 0)
    monkeypatch.setattr(accel, "ROWS_MIN_ROW_BYTES", 0)
    monkeypatch.setattr(accel, "ROWS_MIN_TABLE_BYTES", 0)
    yield
    accel.set_enabled(previous)


@pytest.fixture(params=[False, True], ids=["cached", "streamed"])
def stream(request, monkeypatch):
    """Gather outputs written with ordinary or (thresholds lowered to 0) streaming stores."""
    if request.param:
        monkeypatch.setattr(accel, "STREAM_MIN_BYTES", 0)
        monkeypatch.setattr(accel, "ROWS_STREAM_MIN_ROW_BYTES", 0)
    return request.param


@pytest.fixture(params=[1, 2], ids=lambda n: f"threads{n}")
def threads(request):
    yield from with_threads(request)


def values(dtype: str, shape, rng, payloads: bool = True) -> np.ndarray:
    """Small values with many ties; floats also get -0.0, 0.0 and NaNs: with ``payloads``,
    NaNs of three bit patterns (both signs) and infinities, else only ``np.nan`` and no
    infinities (so add/mul never make a NaN of another pattern, see :func:`fold_values`)."""
    dt = np.dtype(ml_dtypes.bfloat16) if dtype == "bfloat16" else np.dtype(dtype)
    if dt == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    raw = rng.integers(-6, 7, size=shape)
    if dt.kind == "c":
        return (raw + 1j * rng.integers(-3, 4, size=shape)).astype(dt)
    out = raw.astype(dt)
    if dt.kind == "f":
        specials = np.array([np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf] if payloads else [np.nan, -0.0, 0.0],
                            dtype=dt)
        if payloads and dt in (np.float32, np.float64):  # a NaN with another payload
            bits = np.array([0x7FC00001 if dt == np.float32 else 0x7FF8000000000001],
                            dtype=np.uint32 if dt == np.float32 else np.uint64)
            specials = np.concatenate([specials, bits.view(dt)])
        mask = rng.random(shape) < 0.15
        out[mask] = rng.choice(specials, size=int(mask.sum()))
    return out


def fold_payloads(reduction: str) -> bool:
    """Which NaN patterns a ScatterND test may use. numpy's own add/mul loops do not agree on
    which payload survives when two *different* NaNs meet (``ufunc.at`` and the scalar loop keep
    the first operand's, the SIMD loop's tail the second's, so ScatterND's numpy fold depends on
    the position in the block); the kernels keep the first, as ``ufunc.at`` does
    (:func:`test_fold_kernels_match_ufunc_at_on_every_nan`). max/min agree everywhere."""
    return reduction in ("max", "min")


def elementwise_case(rng, rank: int, dtype: str, big: bool = False, axis: int | None = None,
                     payloads: bool = True):
    """data, indices (negative ones included, many duplicates), updates and axis for
    GatherElements/ScatterElements: indices no larger than data off the axis."""
    if big:
        dshape = {1: (3000,), 2: (300, 260), 3: (40, 30, 50), 4: (12, 10, 9, 30)}[rank]
    else:
        dshape = tuple(int(n) for n in rng.integers(1, 6, size=rank))
    axis = int(rng.integers(-rank, rank)) if axis is None else axis
    a = axis % rank
    ishape = tuple(int(rng.integers(1, n + 1)) if d != a else int(rng.integers(1, 2 * n + 2))
                   for d, n in enumerate(dshape))
    if big:
        ishape = tuple(n if d != a else 2 * n for d, n in enumerate(dshape))
    idx = rng.integers(-dshape[a], dshape[a], size=ishape)
    return values(dtype, dshape, rng, payloads), idx, values(dtype, ishape, rng, payloads), axis


def nd_case(rng, rank: int, dtype: str, big: bool = False, payloads: bool = True):
    """data, indices (k index columns, negatives, duplicates), updates for ScatterND."""
    dshape = (tuple(int(n) for n in rng.integers(1, 6, size=rank)) if not big
              else {1: (3000,), 2: (300, 40), 3: (60, 50, 8), 4: (10, 12, 9, 16)}[rank])
    k = int(rng.integers(1, rank + 1))
    lead = (int(rng.integers(1, 12)),) if not big else (2000, 3)
    idx = np.stack([rng.integers(-dshape[c], dshape[c], size=lead) for c in range(k)], axis=-1)
    return values(dtype, dshape, rng, payloads), idx, values(dtype, lead + dshape[k:], rng, payloads)


def both(fn):
    """fn() with the accelerator on and off, as owned copies."""
    accel.set_enabled(True)
    fast = np.array(fn(), copy=True)
    accel.set_enabled(False)
    slow = np.array(fn(), copy=True)
    accel.set_enabled(True)
    return fast, slow


def assert_same_bits(fast: np.ndarray, slow: np.ndarray) -> None:
    assert fast.dtype == slow.dtype and fast.shape == slow.shape
    if fast.tobytes() != slow.tobytes():
        flat_fast, flat_slow = fast.reshape(-1), slow.reshape(-1)
        bad = [i for i in range(fast.size) if flat_fast[i:i + 1].tobytes() != flat_slow[i:i + 1].tobytes()]
        raise AssertionError(f"{len(bad)} elements differ, first at flat {bad[0]}: "
                             f"accelerated {fast.reshape(-1)[bad[0]]!r} vs numpy {slow.reshape(-1)[bad[0]]!r}")


def count_calls(monkeypatch, name: str) -> list:
    calls = []
    original = getattr(accel, name)

    def spy(*args, **kwargs):
        calls.append(name)
        return original(*args, **kwargs)

    monkeypatch.setattr(accel, name, spy)
    return calls


def count_plan_calls(monkeypatch, name: str) -> list:
    """Count the calls of the functions ``accel.<name>`` returns (a plan maker's one-call
    routes), whoever made them."""
    calls = []
    original = getattr(accel, name)

    def spy(*args, **kwargs):
        route = original(*args, **kwargs)
        if route is None:
            return None

        def counted(*route_args):
            calls.append(name)
            return route(*route_args)

        return counted

    monkeypatch.setattr(accel, name, spy)
    small_calls.forget()  # plans made before the spy would bypass it
    return calls


def watch_shares(monkeypatch, seen) -> None:
    """Call ``seen(name, args, n, work)`` with each call of :func:`ops.accel._share` (the kernel's
    name and operands, its rows, the work that decides the split) before it runs."""
    share = accel._share

    def spy(name, args, n, work, *more, **kw):
        seen(name, args, n, work)
        return share(name, args, n, work, *more, **kw)

    monkeypatch.setattr(accel, "_share", spy)


# ---------------------------------------------------------------- ScatterElements


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", FOLD_DTYPES)
def test_scatter_elements_bit_identical(dtype, reduction, monkeypatch):
    calls = count_calls(monkeypatch, "scatter_elements")
    rng = np.random.default_rng([1, FOLD_DTYPES.index(dtype), REDUCTIONS.index(reduction)])
    for trial in range(24):
        data, idx, upd, axis = elementwise_case(rng, 1 + trial % 4, dtype)  # numpy path: ufunc.at, every NaN
        fast, slow = both(partial(ops.scatter_elements, data, idx, upd, axis, reduction))
        assert_same_bits(fast, slow)
    assert len(calls) == 24


@pytest.mark.parametrize("rank", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype,reduction", [("float32", "max"), ("float64", "min"), ("float32", "add"),
                                             ("int8", "mul"), ("uint64", "add"), ("int64", "max")])
def test_scatter_elements_big_every_axis_threads(dtype, reduction, rank, threads):
    rng = np.random.default_rng([2, rank, REDUCTIONS.index(reduction)])
    for axis in range(-rank, rank):
        data, idx, upd, _ = elementwise_case(rng, rank, dtype, big=True, axis=axis)
        fast, slow = both(partial(ops.scatter_elements, data, idx, upd, axis, reduction))
        assert_same_bits(fast, slow)


@pytest.mark.parametrize("dtype", GATHER_DTYPES)
def test_scatter_elements_none_bit_identical(dtype, monkeypatch):
    """Reduction none through the assigning kernel: duplicates' last update wins, NaN payloads
    and signed zeros arrive bit for bit, every element size."""
    calls = count_calls(monkeypatch, "scatter_elements")
    rng = np.random.default_rng([16, GATHER_DTYPES.index(dtype)])
    for trial in range(24):
        data, idx, upd, axis = elementwise_case(rng, 1 + trial % 4, dtype)
        fast, slow = both(partial(ops.scatter_elements, data, idx, upd, axis))
        assert_same_bits(fast, slow)
    assert len(calls) == 24


@pytest.mark.parametrize("rank", [1, 2, 3, 4])
def test_scatter_elements_none_big_every_axis_threads_matches_reference(rank, threads):
    rng = np.random.default_rng([17, rank])
    for axis in range(-rank, rank):
        data, idx, upd, _ = elementwise_case(rng, rank, "float32", big=True, axis=axis, payloads=False)
        fast, slow = both(partial(ops.scatter_elements, data, idx, upd, axis))
        assert_same_bits(fast, slow)
        np.testing.assert_array_equal(fast, reference.scatter_elements(data, idx, upd, axis))


@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "uint16", "float32", "int64"])
def test_scatter_elements_bands_hold_bytes_of_narrow_elements(dtype, threads, monkeypatch):
    """On an axis other than the last, the columns go in bands of at least ``BAND_BYTES`` of
    each target row (256 columns of 1-byte elements, 128 of 2-byte ones, ``BAND`` of wider),
    split across the threads band by band; bands that end inside the columns (600 of them)
    change nothing: reduction none (the last duplicate wins) and add give the numpy path's bits
    and the reference's values."""
    monkeypatch.setattr(parallel, "MIN_PART", 1 << 10)  # 18,000 updates: several parts' worth
    widths = []
    watch_shares(monkeypatch, lambda name, args, n, work: name == "scatter_elements" and widths.append(args[9]))
    rng = np.random.default_rng([21, len(dtype)])
    data = values(dtype, (40, 600), rng, payloads=False)
    idx = rng.integers(-40, 40, (30, 600))
    upd = values(dtype, (30, 600), rng, payloads=False)
    for reduction in ("none", "add") if dtype in FOLD_DTYPES else ("none",):
        fast, slow = both(partial(ops.scatter_elements, data, idx, upd, 0, reduction))
        assert_same_bits(fast, slow)
        np.testing.assert_array_equal(fast, reference.scatter_elements(data, idx, upd, 0, reduction))
    assert widths and set(widths) == {{1: 256, 2: 128}.get(np.dtype(dtype).itemsize, accel.BAND)}


@pytest.mark.parametrize("pack", [True, False], ids=["packed", "in-place"])
@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "int64"])
def test_scatter_elements_folds_packed_bands_as_numpy(dtype, pack, threads, monkeypatch):
    """On an axis other than the last, from PACKED_FOLDS_MIN_SPAN_BYTES of table up (lowered to
    0 here), each band of ScatterElements' targets is copied together, folded there and copied
    back (once per run of rows sharing a start; where the bands cover the whole output, read
    from data and written to the output, which is never copied first), or folded in place on
    a copy of data: every reduction gives the
    numpy path's bits (add and mul in the same order of updates) and the reference's values,
    with duplicates, negative indices, one start (axis 0), six (a middle axis, later axes
    merged) and a start per row (a later extent differs: never packed); a bad index in the
    last band is named exactly."""
    monkeypatch.setattr(parallel, "MIN_PART", 1 << 10)  # split-sized work, which is what takes the bands
    monkeypatch.setattr(accel, "PACKED_FOLDS_MIN_SPAN_BYTES", 0)
    monkeypatch.setattr(accel, "PACK_BANDS", pack)
    packed, filled = [], []

    def seen(name, args, n, work):
        if name == "scatter_elements":
            packed.append(args[10])
            filled.append(not np.shares_memory(args[0], args[-1]))  # the folds read data, not out

    watch_shares(monkeypatch, seen)
    rng = np.random.default_rng([47, np.dtype(dtype).itemsize])
    cases = [
        ((60, 300), rng.integers(-60, 60, (40, 300)), 0),
        ((6, 40, 6, 5), rng.integers(-40, 40, (6, 50, 6, 5)), 1),
        # int32 indices on one dtype: each index type is a compiled kernel of its own per dtype
        ((30, 40, 20), rng.integers(-30, 30, (45, 10, 20)).astype(np.int32 if dtype == "float32" else np.int64), 0),
    ]
    reductions = ("none", "add", "mul", "max", "min") if dtype in FOLD_DTYPES else ("none",)
    for shape, idx, axis in cases:
        data = values(dtype, shape, rng, payloads=False)
        upd = values(dtype, idx.shape, rng, payloads=False)
        for reduction in reductions:
            fast, slow = both(partial(ops.scatter_elements, data, idx, upd, axis, reduction))
            assert_same_bits(fast, slow)
            np.testing.assert_array_equal(fast, reference.scatter_elements(data, idx, upd, axis, reduction))
    assert packed == [p for p in (pack, pack, False) for _ in reductions], packed
    assert filled == packed  # packed folds cover the whole output in the first two cases
    shape, idx, _ = cases[0]
    idx[39, 299] = 60
    with pytest.raises(ops.IndexOutOfRangeError, match=r"indices\[39, 299\] = 60 is out of range"):
        ops.scatter_elements(values(dtype, shape, rng, payloads=False), idx, values(dtype, idx.shape, rng), 0, "none")


# ---------------------------------------------------------------- ScatterND


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", FOLD_DTYPES)
def test_scatter_nd_bit_identical(dtype, reduction, monkeypatch):
    calls = count_calls(monkeypatch, "scatter_rows_fold")
    rng = np.random.default_rng([3, FOLD_DTYPES.index(dtype), REDUCTIONS.index(reduction)])
    for trial in range(24):
        data, idx, upd = nd_case(rng, 1 + trial % 4, dtype, payloads=fold_payloads(reduction))
        fast, slow = both(partial(ops.scatter_nd, data, idx, upd, reduction))
        assert_same_bits(fast, slow)
    assert len(calls) == 24


@pytest.mark.parametrize("rank", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype,reduction", [("float32", "add"), ("float32", "mul"), ("float64", "max"),
                                             ("float32", "min"), ("int16", "add")])
def test_scatter_nd_big_threads(dtype, reduction, rank, threads):
    rng = np.random.default_rng([4, rank, REDUCTIONS.index(reduction)])
    data, idx, upd = nd_case(rng, rank, dtype, big=True, payloads=fold_payloads(reduction))
    fast, slow = both(partial(ops.scatter_nd, data, idx, upd, reduction))
    assert_same_bits(fast, slow)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fold_kernels_match_ufunc_at_on_every_nan(dtype, reduction):
    """Both kernels against ``ufunc.at``, the sequential fold they implement, with NaNs of
    several payloads and signs, infinities (NaNs made by inf - inf, 0 * inf) and signed zeros."""
    rng = np.random.default_rng([10, REDUCTIONS.index(reduction)])
    ufunc = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}[reduction]
    data = values(dtype, (40, 6), rng)
    upd = values(dtype, (300, 6), rng)
    rows = rng.integers(0, 40, size=300)
    want = data.copy()
    with np.errstate(all="ignore"):
        ufunc.at(want.reshape(-1), (rows[:, None] * 6 + np.arange(6)).reshape(-1), upd.reshape(-1))
    got = data.copy()
    accel.scatter_rows_fold(got, rows, upd, reduction)
    assert_same_bits(got, want)
    idx = rng.integers(-6, 6, size=(40, 50))  # ScatterElements on the last axis: row i writes row i
    flat = np.arange(40)[:, None] * 6 + idx % 6
    upd = values(dtype, (40, 50), rng)
    want = data.copy()
    with np.errstate(all="ignore"):
        ufunc.at(want.reshape(-1), flat.reshape(-1), upd.reshape(-1))
    got = data.copy()
    assert accel.scatter_elements(got, idx, upd, 1, reduction)
    assert_same_bits(got, want)


def test_fold_kernel_on_a_table_it_prefetches_matches_ufunc_at(threads):
    """A ScatterND fold into a table of the prefetching loop's size (below it a plain loop
    folds) gives ``ufunc.at``'s result, duplicates folded in order, in every thread's share."""
    from ops import accel_kernels

    rng = np.random.default_rng(11)
    n_rows = accel_kernels.ROWS_PREFETCH_MIN_BYTES // (16 * 4)
    data = rng.standard_normal((n_rows, 16)).astype(np.float32)
    rows = rng.integers(0, n_rows // 64, size=10_000) * 64  # few distinct rows: many duplicates; two parts
    upd = rng.standard_normal((10_000, 16)).astype(np.float32)
    for reduction, ufunc in (("add", np.add), ("max", np.maximum)):
        want = data.copy()
        ufunc.at(want, rows, upd)
        got = data.copy()
        accel.scatter_rows_fold(got, rows, upd, reduction)
        assert_same_bits(got, want)


# ---------------------------------------------------------------- GatherElements


@pytest.mark.parametrize("index_dtype", ["int64", "int32", "int16", "uint8"])
@pytest.mark.parametrize("dtype", GATHER_DTYPES)
def test_gather_elements_bit_identical(dtype, index_dtype, monkeypatch):
    calls = count_calls(monkeypatch, "gather_elements")
    rng = np.random.default_rng([5, GATHER_DTYPES.index(dtype), len(index_dtype)])
    for trial in range(24):
        rank = 1 + trial % 4
        data, idx, _, axis = elementwise_case(rng, rank, dtype)
        if index_dtype == "uint8":
            idx = idx % data.shape[axis % rank]
        idx = idx.astype(index_dtype)
        fast, slow = both(partial(ops.gather_elements, data, idx, axis))
        assert_same_bits(fast, slow)
    assert len(calls) == 24  # every axis runs compiled


@pytest.mark.parametrize("rank", [2, 3, 4])
@pytest.mark.parametrize("dtype", ["float32", "float16", "int64"])
def test_gather_elements_big_every_axis_threads(dtype, rank, threads, stream):
    rng = np.random.default_rng([6, rank])
    for axis in range(rank):
        data, idx, _, _ = elementwise_case(rng, rank, dtype, big=True, axis=axis)
        fast, slow = both(partial(ops.gather_elements, data, idx, axis))
        assert_same_bits(fast, slow)


def count_kernel_calls(monkeypatch, *names: str) -> dict:
    """Count the calls of the compiled kernels ``names`` (as ops.accel looks them up)."""
    kernels = accel._load()
    ran = dict.fromkeys(names, 0)

    def spy(name, kernel):
        def counted(*args):
            ran[name] += 1
            return kernel(*args)
        return counted

    for name in names:
        monkeypatch.setitem(kernels, name, spy(name, kernels[name]))
    return ran


@pytest.mark.parametrize("pack", [True, False], ids=["packed", "in-place"])
@pytest.mark.parametrize("dtype", ["int8", "float16", "float32", "int64"])
def test_gather_elements_in_bands_of_columns_gives_numpys_bits(dtype, pack, threads, stream, monkeypatch):
    """On an axis other than the last, from BANDS_MIN_SPAN_BYTES of table up
    (PACKED_BANDS_MIN_SPAN_BYTES where they pack; both lowered to 0 here), GatherElements
    gathers bands of columns row after row, across threads by whole bands, from a packed copy
    of each band or from the table in place: the numpy path's bits on axis 0 and a middle axis,
    with the later axes merged into the columns (one row start, then six, each packed again)
    and not (a later extent differs: a start per row, never packed), bands that do not divide
    the columns, negative indices and int32 ones; a bad index
    in the last band is named exactly."""
    monkeypatch.setattr(parallel, "MIN_PART", 1 << 10)  # split-sized work from 2,048 picks
    monkeypatch.setattr(accel, "BANDS_MIN_SPAN_BYTES", 0)
    monkeypatch.setattr(accel, "PACKED_BANDS_MIN_SPAN_BYTES", 0)
    monkeypatch.setattr(accel, "PACK_BANDS", pack)
    ran = count_kernel_calls(monkeypatch, "gather_elements_bands", "gather_elements_bands_shared")
    packed = []
    watch_shares(monkeypatch, lambda name, args, n, work: name == "gather_elements_bands" and packed.append(args[8]))
    rng = np.random.default_rng([31, np.dtype(dtype).itemsize])
    cases = [
        (values(dtype, (60, 300), rng), rng.integers(-60, 60, (90, 300)), 0),
        (values(dtype, (6, 40, 6, 5), rng), rng.integers(-40, 40, (6, 60, 6, 5)), 1),
        (values(dtype, (20, 40, 30), rng), rng.integers(-20, 20, (30, 20, 30)).astype(np.int32), 0),
    ]
    for data, idx, axis in cases:
        assert idx.size >= 2 * parallel.MIN_PART  # split-sized work, which is what takes the bands
        fast, slow = both(partial(ops.gather_elements, data, idx, axis))
        assert_same_bits(fast, slow)
        assert_same_bits(fast, reference.gather_elements(data, idx, axis))
    assert packed == [pack, pack, False], packed  # one compiled call per case (the numpy twin makes none)
    data, idx, _ = cases[0]
    idx[89, 299] = 60
    with pytest.raises(ops.IndexOutOfRangeError, match=r"indices\[89, 299\] = 60 is out of range"):
        ops.gather_elements(data, idx, 0)
    assert sum(ran.values()) >= 4, ran  # the three good calls and the bad one took the bands


def test_bands_pack_only_copies_that_fit_pack_max_bytes(monkeypatch):
    """A band's packed copy is one per thread: GatherElements' bands and ScatterElements' folds
    pack only while it takes at most PACK_MAX_BYTES (the axis' extent times a band's bytes), and
    give numpy's bits either way."""
    monkeypatch.setattr(accel, "BANDS_MIN_SPAN_BYTES", 0)
    monkeypatch.setattr(accel, "PACKED_BANDS_MIN_SPAN_BYTES", 0)
    monkeypatch.setattr(accel, "PACKED_FOLDS_MIN_SPAN_BYTES", 0)
    packed = []
    watch_shares(monkeypatch, lambda name, args, n, work: packed.append(
        args[8] if name == "gather_elements_bands" else args[10]))
    rng = np.random.default_rng(48)
    data = values("float32", (300, 517), rng, payloads=False)
    idx = rng.integers(-300, 300, (600, 517))
    upd = values("float32", idx.shape, rng, payloads=False)
    copy_bytes = 300 * accel.band(4) * 4
    for limit, expected in ((copy_bytes, True), (copy_bytes - 1, False)):
        monkeypatch.setattr(accel, "PACK_MAX_BYTES", limit)
        packed.clear()
        assert_same_bits(*both(partial(ops.gather_elements, data, idx, 0)))
        assert_same_bits(*both(partial(ops.scatter_elements, data, idx, upd, 0, "add")))
        assert packed == [expected, expected], (limit, packed)


@pytest.mark.parametrize("layout", ["last-cached", "last-large", "axis0", "axis0-bands"])
def test_rows_of_mixed_signs_and_a_bad_index_after_negatives(layout, monkeypatch):
    """Rows whose indices change sign anywhere (the kernels read indices in [0, size) with one
    predicted comparison, and a row from its first other index on, or again from its start,
    with the branch-free normalisation): GatherElements and ScatterElements (none, add, max)
    give numpy's bits on the last axis from a cached table (rows checked first) and a large
    one (each index tested as read), and on axis 0 by rows and by bands; an index outside
    [-size, size) after negative ones in its row is named exactly."""
    if layout == "axis0-bands":
        monkeypatch.setattr(accel, "BANDS_MIN_SPAN_BYTES", 0)
        monkeypatch.setattr(accel, "PACKED_BANDS_MIN_SPAN_BYTES", 0)
    rng = np.random.default_rng([41, len(layout)])
    ran = count_kernel_calls(monkeypatch, "gather_elements_bands", "gather_elements_bands_shared")
    shapes = {"last-cached": (300, 100), "last-large": (1200, 300), "axis0": (300, 300), "axis0-bands": (400, 400)}
    shape = shapes[layout]
    axis = 1 if layout.startswith("last") else 0
    size = shape[axis]
    data = values("float32", shape, rng, payloads=False)
    pos = rng.integers(0, size, shape)
    idx = np.where(rng.random(shape) < 0.5, pos, pos - size)
    idx[: shape[0] // 3] = pos[: shape[0] // 3] - size  # some rows all negative, the rest mixed
    upd = values("float32", shape, rng, payloads=False)
    assert_same_bits(*both(partial(ops.gather_elements, data, idx, axis)))
    assert_same_bits(ops.gather_elements(data, idx, axis), reference.gather_elements(data, idx, axis))
    for reduction in ("none", "add", "max"):
        assert_same_bits(*both(partial(ops.scatter_elements, data, idx, upd, axis, reduction)))
    bad = idx.copy()
    bad[7, 40] = -size - 1  # after negatives in an all-negative row
    bad[200, 5] = size
    with pytest.raises(ops.IndexOutOfRangeError, match=rf"indices\[7, 40\] = {-size - 1} is out of range"):
        ops.gather_elements(data, bad, axis)
    with pytest.raises(ops.IndexOutOfRangeError, match=rf"indices\[7, 40\] = {-size - 1} is out of range"):
        ops.scatter_elements(data, bad, upd, axis, "add")
    assert (sum(ran.values()) > 0) == (layout == "axis0-bands")


@pytest.mark.parametrize("dtype", ["int8", "float32", "float64"])
def test_gather_elements_prefetching_picks_from_a_large_table_gives_numpys_bits(dtype, threads):
    """From PICKS_PREFETCH_MIN_BYTES of table spanned by one row's picks (compiled in), the
    checked rows on an axis other than the last prefetch the pick PICKS_AHEAD on: numpy's bits
    for rows longer and shorter than that distance, rows with negative indices (not checked
    rows), and a bad index named exactly."""
    itemsize = np.dtype(dtype).itemsize
    rng = np.random.default_rng([43, itemsize])
    ahead = accel_kernels.PICKS_AHEAD
    for columns in (3 * ahead + 5, ahead // 2):
        size = accel_kernels.PICKS_PREFETCH_MIN_BYTES // (columns * itemsize) + 1
        data = values(dtype, (size, columns), rng)
        idx = rng.integers(0, size, (200, columns))
        idx[50:60] -= size
        fast, slow = both(partial(ops.gather_elements, data, idx, 0))
        assert_same_bits(fast, slow)
        assert_same_bits(fast, reference.gather_elements(data, idx, 0))
        idx[150, 3] = size
        with pytest.raises(ops.IndexOutOfRangeError, match=rf"indices\[150, 3\] = {size} is out of range"):
            ops.gather_elements(data, idx, 0)


def test_gather_elements_streams_prefetched_picks_in_one_thread_only(threads, monkeypatch):
    """Rows whose picks are prefetched (a span of PICKS_PREFETCH_MIN_BYTES or more, below the
    band span) are written with streaming stores when one thread runs them and with ordinary
    ones when they are split across threads; the last axis streams at any thread count. The
    result is numpy's either way."""
    monkeypatch.setattr(accel, "STREAM_MIN_BYTES", 0)
    kernels = accel._load()
    streamed = []

    def spy(kernel):
        def recorded(*args):
            streamed.append(bool(args[7]))
            return kernel(*args)
        return recorded

    for name in ("gather_elements", "gather_elements_shared"):
        monkeypatch.setitem(kernels, name, spy(kernels[name]))
    rng = np.random.default_rng(44)
    columns = 400
    size = accel_kernels.PICKS_PREFETCH_MIN_BYTES // (columns * 4) + 1
    data = values("float32", (size, columns), rng)
    idx = rng.integers(-size, size, (2 * parallel.MIN_PART // columns + 1, columns))
    np.testing.assert_array_equal(ops.gather_elements(data, idx, 0), np.take_along_axis(data, idx, 0))
    assert streamed and set(streamed) == {threads <= accel.PREFETCHED_PICKS_STREAM_THREADS}
    streamed.clear()
    idx = rng.integers(-columns, columns, (size // 4, columns))
    np.testing.assert_array_equal(ops.gather_elements(data[:size // 4], idx, 1),
                                  np.take_along_axis(data[:size // 4], idx, 1))
    assert streamed and set(streamed) == {True}


def test_gather_elements_keeps_rows_below_the_band_span(monkeypatch):
    """Below BANDS_MIN_SPAN_BYTES (PACKED_BANDS_MIN_SPAN_BYTES for bands that pack), and on the
    last axis at any size, GatherElements gathers whole rows."""
    monkeypatch.setattr(accel, "BANDS_MIN_SPAN_BYTES", 300 * 517 * 4 + 1)
    monkeypatch.setattr(accel, "PACKED_BANDS_MIN_SPAN_BYTES", 300 * 517 * 4 + 1)
    ran = count_kernel_calls(monkeypatch, "gather_elements_bands", "gather_elements_bands_shared")
    rng = np.random.default_rng(32)
    data = values("float32", (300, 517), rng)
    ops.gather_elements(data, rng.integers(0, 300, (600, 517)), 0)
    monkeypatch.setattr(accel, "BANDS_MIN_SPAN_BYTES", 0)
    monkeypatch.setattr(accel, "PACKED_BANDS_MIN_SPAN_BYTES", 0)
    ops.gather_elements(data, rng.integers(0, 517, (300, 1000)), 1)
    assert sum(ran.values()) == 0


@pytest.mark.parametrize("reduction", ["none", "add"])
def test_elementwise_rows_merge_the_axes_after_the_axis(reduction, threads, monkeypatch):
    """On an axis other than the last, where the indices have data's extents on every later
    axis, those axes form the columns of the kernels' view (one row per leading position): a
    (60, 50, 4) tensor scattered on axis 0 by (100, 50, 4) indices is 100 rows of 200 columns,
    not 5,000 rows of 4. Where a later extent differs, the columns stay the last axis. Both
    views give the reference's result, split across threads."""
    monkeypatch.setattr(parallel, "MIN_PART", 1 << 10)  # 100 x 50 x 4 updates: two threads' worth of work
    rng = np.random.default_rng([23, len(reduction)])
    data = values("float32", (60, 50, 4), rng, payloads=False)
    for idx in (rng.integers(-60, 60, size=(100, 50, 4)), rng.integers(-60, 60, size=(100, 49, 4))):
        assert parallel.part_count(idx.size) == parallel.threads()
        idx2, bases, stride, last = accel._element_rows(data.shape, idx, 0)
        merged = idx.shape[1:] == data.shape[1:]
        assert idx2.shape == ((100, 200) if merged else (100 * 49, 4)) and stride == 200 and not last
        upd = values("float32", idx.shape, rng, payloads=False)
        np.testing.assert_array_equal(ops.gather_elements(data, idx, 0), reference.gather_elements(data, idx, 0))
        got = ops.scatter_elements(data, idx, upd, 0, reduction)
        np.testing.assert_allclose(got, reference.scatter_elements(data, idx, upd, 0, reduction), rtol=1e-6)
        assert_same_bits(*both(partial(ops.scatter_elements, data, idx, upd, 0, reduction)))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "float64"])
def test_gather_elements_last_axis_rows_checked_first(dtype, monkeypatch):
    """Rows of CHECKED_LAST_MIN or more picks from a table that fits the caches are checked in
    one pass and then copied without a test; rows with negative indices, and rows shorter than
    that, take the inline test. Both kinds, mixed in one call, pick what numpy's
    take_along_axis picks with the indices made non-negative, and a bad index after a checked
    row is named exactly."""
    calls = count_calls(monkeypatch, "gather_elements")
    rng = np.random.default_rng([23, np.dtype(dtype).itemsize])
    data = values(dtype, (40, 100), rng)
    for width in (accel_kernels.CHECKED_LAST_MIN - 1, accel_kernels.CHECKED_LAST_MIN, 64):
        idx = rng.integers(0, 100, size=(40, width))
        idx[20:30] -= 100  # ten rows of negative indices
        fast, slow = both(partial(ops.gather_elements, data, idx, 1))
        assert_same_bits(fast, slow)
        assert_same_bits(fast, np.take_along_axis(data, idx % 100, 1))
        idx[35, 10] = 100
        with pytest.raises(ops.IndexOutOfRangeError, match=r"indices\[35, 10\] = 100 is out of range"):
            ops.gather_elements(data, idx, 1)
    assert len(calls) == 6  # three good calls and three bad ones ran compiled


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("dtype", ["int8", "uint16", "float32", "float64"])
def test_gather_elements_small_calls_check_all_their_indices_in_one_pass(dtype, index_dtype, monkeypatch):
    """A plan's call on the last axis of a table the caches hold, with at most
    CHECK_FIRST_MAX_INDICES indices, checks them all in one pass and then picks with no test
    (rows short or long, ranks 2 and 3): numpy's bits; indices of both signs give numpy's bits
    through the row-by-row kernel, and a bad index (either side, among non-negative indices or
    indices of both signs, before another bad one) is named exactly on the long path, the plan
    and the numpy path. Calls with more indices, on
    another axis or from a larger table do not take that kernel."""
    ran = count_kernel_calls(monkeypatch, "gather_elements_last_checked")
    small_calls.forget()  # plans made before the spy would bypass it
    rng = np.random.default_rng([59, np.dtype(dtype).itemsize, len(index_dtype)])
    expected = 0
    for dshape, width in (((40, 100), 8), ((40, 100), 100), ((3, 7, 50), 33)):
        data = values(dtype, dshape, rng)
        size, axis = dshape[-1], len(dshape) - 1
        idx = rng.integers(0, size, size=dshape[:-1] + (width,)).astype(index_dtype)
        for _ in range(2):  # the long path, then the plan
            got = ops.run_op("GatherElements", [data, idx], {"axis": axis})
            assert_same_bits(got, np.take_along_axis(data, idx, axis))
        mixed = np.where(rng.random(idx.shape) < 0.5, idx - size, idx).astype(index_dtype)
        for _ in range(2):
            fast, slow = both(partial(ops.run_op, "GatherElements", [data, mixed], {"axis": axis}))
            assert_same_bits(fast, slow)
            assert_same_bits(fast, np.take_along_axis(data, mixed % size, axis))
        expected += 4
        assert ran["gather_elements_last_checked"] == expected
        for bad, among in ((size, idx), (size, mixed), (-size - 1, mixed)):
            wrong = among.copy()
            wrong.flat[-3] = bad
            wrong.flat[-1] = 10 * size  # a later bad index must not be the one named
            where = ", ".join(str(int(i)) for i in np.unravel_index(wrong.size - 3, wrong.shape))
            for flag in (True, True, False):  # the plan then the long path (twice), the numpy path
                accel.set_enabled(flag)
                with pytest.raises(ops.IndexOutOfRangeError, match=rf"indices\[{where}\] = {bad} is out of range"):
                    ops.run_op("GatherElements", [data, wrong], {"axis": axis})
            accel.set_enabled(True)
        expected += 12
        assert ran["gather_elements_last_checked"] == expected
    more = rng.integers(0, 100, size=(accel.CHECK_FIRST_MAX_INDICES // 100 + 1, 100))
    larger = values(dtype, (-(-accel_kernels.WARM_MIN_BYTES // (100 * np.dtype(dtype).itemsize)), 100), rng)
    for data, idx, axis in ((values(dtype, (more.shape[0], 100), rng), more, 1),
                            (values(dtype, (100, 40), rng), rng.integers(0, 100, size=(100, 40)), 0),
                            (larger, rng.integers(0, 100, size=(50, 100)), 1)):
        for _ in range(2):
            got = ops.run_op("GatherElements", [data, idx.astype(index_dtype)], {"axis": axis})
            assert_same_bits(got, reference.gather_elements(data, idx, axis))
    assert ran["gather_elements_last_checked"] == expected


@pytest.mark.parametrize("dtype", ["int8", "int16", "float32", "float64"])
def test_last_axis_kernels_that_read_each_row_first_give_numpys_bits(dtype, threads, monkeypatch):
    """From tables of 1 MiB up (the compiled-in WARM_MIN_BYTES; 8 MiB for Gather,
    LAST_WARM_MIN_BYTES) with at least as many picks or updates per row as the row has cache
    lines, GatherElements, ScatterElements and Gather on the last axis first read each row in
    order, a line's worth of elements apart (warm_row's step): the same bits as numpy, for each
    word size and rows of 509 elements, which do not start on a cache line."""
    calls = [count_calls(monkeypatch, name) for name in ("gather_elements", "gather_last", "scatter_elements")]
    rng = np.random.default_rng([21, np.dtype(dtype).itemsize])
    width = 509
    rows = (1 << 20) // (width * np.dtype(dtype).itemsize) + 1
    data = values(dtype, (rows, width), rng)
    idx = rng.integers(-width, width, size=(rows, 64))
    upd = values(dtype, idx.shape, rng)
    assert_same_bits(*both(partial(ops.gather_elements, data, idx, 1)))
    big = values(dtype, ((8 << 20) // (width * np.dtype(dtype).itemsize) + 1, width), rng)
    assert_same_bits(*both(partial(ops.gather, big, rng.integers(-width, width, size=64), 1)))
    for reduction in ("add", "max"):
        assert_same_bits(*both(partial(ops.scatter_elements, data, idx, upd, 1, reduction)))
    assert [len(c) for c in calls] == [1, 1, 2]  # each ran compiled


def test_unsupported_dtypes_stay_on_numpy(monkeypatch):
    folds = count_calls(monkeypatch, "scatter_elements")
    gathers = count_calls(monkeypatch, "gather_elements")
    rng = np.random.default_rng(7)
    for dtype in ["bool", "float16", "bfloat16", "complex64"]:
        data, idx, upd, axis = elementwise_case(rng, 2, dtype)
        ops.scatter_elements(data, idx, upd, axis, "add")
    data = np.arange(12, dtype=np.complex128).reshape(3, 4)
    ops.gather_elements(data, np.zeros((3, 4), dtype=np.int64), 1)
    strings = np.array([["a", "b"], ["c", "d"]], dtype=object)
    ops.gather_elements(strings, np.array([[1, 0], [0, 0]]), 1)
    assert folds == [] and gathers == []


# ---------------------------------------------------------------- Gather axis 0, GatherND, ScatterND none

TUPLE_DTYPES = GATHER_DTYPES + ["int8", "complex128"]


def gather_case(rng, rank: int, dtype: str, big: bool = False):
    """data and indices (any rank, negatives, duplicates) for Gather on axis 0."""
    dshape = ((int(rng.integers(1, 7)),) + tuple(int(n) for n in rng.integers(1, 5, size=rank - 1)) if not big
              else {1: (3000,), 2: (300, 33), 3: (60, 5, 7), 4: (10, 3, 4, 5)}[rank])
    ishape = tuple(int(n) for n in rng.integers(1, 5, size=int(rng.integers(0, 3)))) if not big else (50, 80)
    return values(dtype, dshape, rng), rng.integers(-dshape[0], dshape[0], size=ishape)


@pytest.mark.parametrize("index_dtype", ["int64", "int32", "int16", "uint8", "uint64"])
@pytest.mark.parametrize("dtype", TUPLE_DTYPES)
def test_gather_axis0_and_gather_nd_bit_identical(dtype, index_dtype, monkeypatch):
    """Row blocks of every byte width (1-byte rows of int8 copy as uint8 words, complex128 as
    two uint64), scalar and N-D indices, negatives and duplicates."""
    calls = count_calls(monkeypatch, "gather_tuples")
    rng = np.random.default_rng([12, TUPLE_DTYPES.index(dtype), len(index_dtype)])
    for trial in range(24):
        rank = 1 + trial % 4
        data, idx = gather_case(rng, rank, dtype)
        if index_dtype.startswith("u"):  # no negative indices in an unsigned type
            idx = idx % data.shape[0]
        idx = idx.astype(index_dtype)
        fast, slow = both(partial(ops.gather, data, idx, 0))
        assert_same_bits(fast, slow)
        data, nd_idx, _ = nd_case(rng, rank, dtype)
        if index_dtype.startswith("u"):
            nd_idx = nd_idx % np.array(data.shape[:nd_idx.shape[-1]])
        nd_idx = nd_idx.astype(index_dtype)
        fast, slow = both(partial(ops.gather_nd, data, nd_idx))
        assert_same_bits(fast, slow)
    assert len(calls) == (48 if index_dtype != "uint64" else 0)  # uint64 could wrap: numpy path


LAST_AXIS_DTYPES = ["bool", "int8", "uint16", "float16", "bfloat16", "int32", "float32", "float64", "uint64",
                    "complex64", "complex128"]


@pytest.mark.parametrize("index_dtype", ["int64", "int32", "uint8", "uint64"])
@pytest.mark.parametrize("dtype", LAST_AXIS_DTYPES)
def test_gather_last_axis_bit_identical_and_as_the_reference(dtype, index_dtype, monkeypatch):
    """Gather on the last axis (ranks 2-4; scalar and N-D indices, negatives, duplicates):
    elements of 1, 2, 4 or 8 bytes run the compiled element gather, the result is the numpy
    path's bit for bit and the reference's value for value; 16-byte complex stays on numpy.
    int32/int64 indices (either sign) are checked in the kernel's own call."""
    calls = count_calls(monkeypatch, "gather_last")
    checked = count_plan_calls(monkeypatch, "gather_last_plan")
    rng = np.random.default_rng([31, LAST_AXIS_DTYPES.index(dtype), len(index_dtype)])
    for trial in range(12):
        rank = 2 + trial % 3
        dshape = tuple(int(n) for n in rng.integers(1, 6, size=rank))
        data = values(dtype, dshape, rng)
        ishape = tuple(int(n) for n in rng.integers(1, 5, size=int(rng.integers(0, 3))))
        low = 0 if index_dtype.startswith("u") else -dshape[-1]
        idx = rng.integers(low, dshape[-1], size=ishape).astype(index_dtype)
        axis = (-1, rank - 1)[trial % 2]
        fast, slow = both(partial(ops.gather, data, idx, axis))
        assert_same_bits(fast, slow)
        assert_same_bits(fast, reference.gather(data, idx, rank - 1))
    assert len(calls) + len(checked) == (0 if dtype == "complex128" else 12)
    assert len(checked) == (12 if index_dtype in ("int32", "int64") and dtype != "complex128" else 0)


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
def test_gather_last_axis_names_the_first_bad_index_as_numpy_does(index_dtype, monkeypatch):
    """The last-axis kernel that checks its own indices (either sign) gathers nothing from a bad
    one: Gather then raises the numpy path's error, naming the first bad index (before a later
    one, among indices of both signs), on the first call and on its plan's."""
    checked = count_plan_calls(monkeypatch, "gather_last_plan")
    rng = np.random.default_rng([47, len(index_dtype)])
    data = values("float32", (9, 40), rng)
    for at, bad in ((0, 40), (13, -41), (29, 1000)):
        idx = rng.integers(-40, 40, size=(3, 10)).astype(index_dtype)
        idx.flat[at] = bad
        if at != idx.size - 1:
            idx.flat[-1] = -77  # a later bad index must not be the one named
        where = f"indices\\[{at // 10}, {at % 10}\\] = {bad} is out of range"
        for flag in (True, True, False):  # the long path, the plan, the numpy path
            accel.set_enabled(flag)
            with pytest.raises(ops.IndexOutOfRangeError, match=where):
                ops.run_op("Gather", [data, idx], {"axis": 1})
        accel.set_enabled(True)
    assert len(checked) == 6  # the checked kernel ran twice per index array


@pytest.mark.parametrize("shape", [(300, 200), (7, 40, 64)])
def test_gather_last_axis_big_threads(shape, threads):
    """Rows split across threads: the same bits as numpy and the reference."""
    rng = np.random.default_rng([32, len(shape)])
    data = values("float32", shape, rng)
    idx = rng.integers(-shape[-1], shape[-1], size=(3, 50))
    fast, slow = both(partial(ops.gather, data, idx, len(shape) - 1))
    assert_same_bits(fast, slow)
    assert_same_bits(fast, reference.gather(data, idx, len(shape) - 1))


@pytest.mark.parametrize("dtype", ["int8", "float32", "float64"])
def test_gather_last_axis_prefetching_the_next_row_gives_numpys_bits(dtype, threads):
    """From tables of LAST_AHEAD_MIN_BYTES up to LAST_WARM_MIN_BYTES with rows of
    LAST_AHEAD_MIN_ROW_BYTES or more and at least as many picks per row as the row has lines,
    Gather on the last axis prefetches the row LAST_AHEAD on (compiled in): the same bits as
    numpy and the reference, for rows that do not start on a cache line, split across threads
    (the last rows of each chunk have no row on to prefetch)."""
    itemsize = np.dtype(dtype).itemsize
    width = accel_kernels.LAST_AHEAD_MIN_ROW_BYTES // itemsize + 3
    rows = accel_kernels.LAST_AHEAD_MIN_BYTES // (width * itemsize) + 7
    assert rows * width * itemsize < accel_kernels.LAST_WARM_MIN_BYTES
    rng = np.random.default_rng([46, itemsize])
    data = values(dtype, (rows, width), rng)
    idx = rng.integers(-width, width, size=width // 8)
    fast, slow = both(partial(ops.gather, data, idx, 1))
    assert_same_bits(fast, slow)
    assert_same_bits(fast, reference.gather(data, idx, 1))


def test_records_of_odd_widths_move_as_bytes():
    """Rows whose items are 3, 5 or 6 bytes wide (structured records) copy through a byte view
    (numpy refuses to view a 3-byte item as 2-byte words directly). No ONNX dtype has such
    items and the ops refuse structured data, so the row gather is called directly."""
    rng = np.random.default_rng(17)
    for fields in ([("a", "i1"), ("b", "i2")], [("a", "i1"), ("b", "i4")], [("a", "i2"), ("b", "i4")]):
        dt = np.dtype(fields)
        for cols in (1, 2, 3):
            data = np.zeros((50, cols), dtype=dt)
            data["a"] = rng.integers(-100, 100, (50, cols))
            data["b"] = rng.integers(-1000, 1000, (50, cols))
            idx = rng.integers(-50, 50, 300)
            fast = accel.gather_tuples(data, idx[:, None], 1)
            assert fast.tobytes() == data[idx].tobytes()


@pytest.mark.parametrize("rank", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", ["float32", "bool", "float64"])
def test_gather_axis0_and_gather_nd_big_threads(dtype, rank, threads, stream):
    rng = np.random.default_rng([13, rank])
    data, idx = gather_case(rng, rank, dtype, big=True)
    fast, slow = both(partial(ops.gather, data, idx, 0))
    assert_same_bits(fast, slow)
    np.testing.assert_array_equal(fast, reference.gather(data, idx, 0))
    data, nd_idx, _ = nd_case(rng, rank, dtype, big=True)
    fast, slow = both(partial(ops.gather_nd, data, nd_idx))
    assert_same_bits(fast, slow)


@pytest.mark.parametrize("width", [3, 16, 40], ids=["12-byte rows", "64-byte rows", "160-byte rows"])
def test_gather_axis0_look_ahead_meets_bad_and_negative_indices_before_their_rows(width, stream):
    """The row gather prefetches the row of an index some rows before it copies it (more rows
    ahead for rows under a cache line): negative indices there are read as ONNX does, and a bad
    index met while looking ahead (near the start, at the look-ahead distances, near the end)
    is still the one the error names."""
    rng = np.random.default_rng([18, width])
    size, n = 50, 120
    data = values("float32", (size, width), rng)
    idx = rng.integers(-size, size, n)
    fast, slow = both(partial(ops.gather, data, idx, 0))
    assert_same_bits(fast, slow)
    assert_same_bits(fast, reference.gather(data, idx, 0))
    for at in (0, 1, 15, 16, 17, 31, 32, 33, 60, n - 33, n - 17, n - 1):
        bad = size if at % 2 else -size - 1
        bad_idx = idx.copy()
        bad_idx[at] = bad
        for flag in (True, False):
            accel.set_enabled(flag)
            with pytest.raises(ops.IndexOutOfRangeError, match=rf"indices\[{at}\] = {bad} is out of range"):
                ops.gather(data, bad_idx, 0)


@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("width", [3, 16, 40], ids=["12-byte rows", "64-byte rows", "160-byte rows"])
def test_gather_nd_checks_each_block_of_tuples_before_copying_it(k, width, stream, threads, monkeypatch):
    """GatherND's row gather checks the index tuples of a block of rows in one pass, then
    copies them with no test: a negative component or a bad one in any block (its first row,
    its last, the last row of all) sends that block and the rest to the checked copy, with the
    numpy path's bits, the reference's values, and the error naming the element."""
    calls = count_calls(monkeypatch, "gather_tuples")
    block = accel_kernels.CHECK_BLOCK
    rng = np.random.default_rng([19, k, width])
    data = values("float32", (6, 5, 4)[:k] + (width,), rng)
    limits = np.array(data.shape[:k])
    n = 3 * block + 17
    idx = rng.integers(0, limits, (n, k))
    expected = reference.gather_nd(data, idx)  # a negative component names the same element
    for at in (None, 0, block - 1, block, 2 * block + 5, n - 1):
        for c in range(k) if at is not None else (0,):
            if at is not None:
                negative = idx.copy()
                negative[at, c] -= limits[c]
            else:
                negative = idx
            fast, slow = both(partial(ops.gather_nd, data, negative))
            assert_same_bits(fast, slow)
            assert_same_bits(fast, expected)
            if at is None:
                continue
            bad = idx.copy()
            bad[at, c] = limits[c] if at % 2 else -limits[c] - 1
            with pytest.raises(ops.IndexOutOfRangeError, match=rf"indices\[{at}, {c}\] = {bad[at, c]} is out of range"):
                ops.gather_nd(data, bad)
    assert len(calls) >= 1 + 2 * 5 * k


@pytest.mark.parametrize("dtype, width", [("uint8", 63), ("uint8", 65), ("int16", 33), ("float32", 17),
                                          ("float64", 9), ("float32", 100)],
                         ids=["63 bytes", "65 bytes", "66 bytes", "68 bytes", "72 bytes", "400 bytes"])
def test_gather_axis0_streams_rows_16_bytes_at_a_time_from_every_alignment(dtype, width, threads, monkeypatch):
    """Streamed rows of a cache line or more (row-width threshold lowered) are written as single
    words up to a 16-byte boundary, then 16 bytes at a time, then single words; rows of 1-, 2-,
    4- and 8-byte words whose widths put successive output rows at every phase of 16 bytes,
    split across threads, with the non-temporal prefetches of huge tables (threshold lowered),
    give numpy's bits."""
    monkeypatch.setattr(accel, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(accel, "ROWS_STREAM_MIN_ROW_BYTES", 0)
    monkeypatch.setattr(accel, "ROWS_ONCE_MIN_BYTES", 0)
    calls = count_calls(monkeypatch, "gather_tuples")
    rng = np.random.default_rng([20, width])
    data = values(dtype, (40, width), rng)
    idx = rng.integers(-40, 40, 2100)  # 2100 rows of 63+ elements: two threads' worth of work
    fast, slow = both(partial(ops.gather, data, idx, 0))
    assert_same_bits(fast, slow)
    assert_same_bits(fast, np.take(data, idx, axis=0))
    assert len(calls) == 1


@pytest.mark.parametrize("words", [1, 2, 3, 4, 5, 7, 8, 9, 12, 17])
def test_rows_of_every_word_count_move_whole(words, stream, threads):
    """The row copy (:func:`ops.accel_kernels.move_row`: one word, two overlapping pairs,
    two overlapping fours, or a loop past eight words) moves every word of every row for the
    row gathers (Gather axis 0, GatherND) and ScatterND none, as numpy's fancy indexing does;
    ScatterND's duplicates end with the last update (a loop in row-major order, here)."""
    rng = np.random.default_rng([22, words])
    table = rng.integers(0, 2**63, size=(300, 4, words), dtype=np.uint64)
    # at least two parts' worth of elements moved by each gather (2 * parallel.MIN_PART), so two
    # threads split them
    n = 2 * parallel.MIN_PART // words + 1
    rows = rng.integers(-300, 300, n)
    pairs = np.stack([rng.integers(-300, 300, n), rng.integers(-4, 4, n)], axis=-1)
    got = accel.gather_tuples(table, rows[:, None], 1)
    np.testing.assert_array_equal(got, table[rows])
    got = accel.gather_tuples(table, pairs, 2)
    np.testing.assert_array_equal(got, table[pairs[:, 0], pairs[:, 1]])
    pairs = pairs[:3000]  # ScatterND none writes in one thread: its reference loop needs no more
    updates = rng.integers(0, 2**63, size=(len(pairs), words), dtype=np.uint64)
    expected = table.copy()
    for i in range(len(pairs)):
        expected[pairs[i, 0], pairs[i, 1]] = updates[i]
    got = accel.scatter_tuples(table, pairs, updates)
    np.testing.assert_array_equal(got, expected)


def test_rows_of_up_to_a_line_stream_only_from_more_bytes_touched():
    """GatherND's row gather streams its output from STREAM_MIN_BYTES touched, rows of a cache
    line or less (a line or two of random reads each, streamed no faster) only from
    SHORT_ROWS_STREAM_FACTOR times that; Gather on axis 0 (one index per row) the same for rows
    of ROWS_STREAM_MIN_ROW_BYTES or more, never for shorter ones."""
    low, high = accel.STREAM_MIN_BYTES, accel.SHORT_ROWS_STREAM_FACTOR * accel.STREAM_MIN_BYTES
    wide = accel.ROWS_STREAM_MIN_ROW_BYTES
    for row_bytes in (4, 40, 64):
        assert not accel._rows_stream(high - 1, row_bytes, 2) and accel._rows_stream(high, row_bytes, 2)
        assert not accel._rows_stream(1 << 40, row_bytes, 1)
    for row_bytes in (65, wide - 1):
        assert not accel._rows_stream(low - 1, row_bytes, 2) and accel._rows_stream(low, row_bytes, 2)
        assert not accel._rows_stream(1 << 40, row_bytes, 1)
    for row_bytes in (wide, 256, 4096):
        for k in (1, 2):
            assert not accel._rows_stream(low - 1, row_bytes, k) and accel._rows_stream(low, row_bytes, k)


def test_gather_axis0_runs_compiled_from_rows_and_tables_large_enough(monkeypatch):
    """Rows of ``ROWS_MIN_ROW_BYTES`` from a table of ``ROWS_MIN_TABLE_BYTES`` (the module's
    values, not the tests' zeros) run the compiled row gather; narrower rows or a smaller table
    stay on numpy's take. Either way the result is numpy's, bit for bit."""
    monkeypatch.setattr(accel, "ROWS_MIN_ROW_BYTES", ROWS_MIN_ROW_BYTES)
    monkeypatch.setattr(accel, "ROWS_MIN_TABLE_BYTES", ROWS_MIN_TABLE_BYTES)
    calls = count_calls(monkeypatch, "gather_tuples")
    rng = np.random.default_rng(19)
    width = ROWS_MIN_ROW_BYTES // 4
    table_rows = -(-ROWS_MIN_TABLE_BYTES // ROWS_MIN_ROW_BYTES)
    base = rng.standard_normal((table_rows, width)).astype(np.float32)
    idx = rng.integers(-table_rows + 1, table_rows - 1, 3000)  # in range for every table below
    for data, compiled in ((base, True), (base[1:], False), (np.ascontiguousarray(base[:, 1:]), False)):
        before = len(calls)
        fast, slow = both(partial(ops.gather, data, idx, 0))
        assert_same_bits(fast, slow)
        assert (len(calls) > before) == compiled


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("dtype", TUPLE_DTYPES)
def test_scatter_nd_none_bit_identical(dtype, index_dtype, monkeypatch):
    """Duplicates: the last update in row-major order wins on both paths."""
    calls = count_calls(monkeypatch, "scatter_tuples")
    rng = np.random.default_rng([14, TUPLE_DTYPES.index(dtype), len(index_dtype)])
    for trial in range(24):
        data, idx, upd = nd_case(rng, 1 + trial % 4, dtype)
        idx = idx.astype(index_dtype)
        fast, slow = both(partial(ops.scatter_nd, data, idx, upd))
        assert_same_bits(fast, slow)
    assert len(calls) == 24


@pytest.mark.parametrize("rank", [1, 2, 3, 4])
def test_scatter_nd_none_big_matches_reference(rank, threads):
    rng = np.random.default_rng([15, rank])
    data, idx, upd = nd_case(rng, rank, "float32", big=True)
    fast, slow = both(partial(ops.scatter_nd, data, idx, upd))
    assert_same_bits(fast, slow)
    np.testing.assert_array_equal(fast, reference.scatter_nd(data, idx, upd))


def split_nd_case(rng, case: str):
    """ScatterND none with two threads' worth of work (data and updates together at least
    ``2 * parallel.MIN_PART`` elements): duplicates (also on the rows either side of the middle,
    where two ranges meet, and at both ends), negative indices; element rows (k = rank), block
    rows (k = 2 of 3), and strided (not C-contiguous) data."""
    f32 = np.float32
    if case == "elements":
        data = values("float32", (140_000,), rng)
    else:
        data = values("float32", (400, 300, 3), rng)
        if case == "strided":
            data = values("float32", (400, 600, 3), rng)[:, ::2]
    k = 1 if case == "elements" else 2
    lead = data.shape[:k]
    n = 3000 if case == "elements" else 2000  # data alone is two parts of work
    idx = np.stack([rng.integers(-s, s, n) for s in lead], axis=-1)
    rows = int(np.prod(lead))
    edges = [0, rows // 2 - 1, rows // 2, rows // 2 + 1, rows - 1]
    picks = rng.integers(0, n, 4 * len(edges))
    idx[picks] = np.array(np.unravel_index(np.repeat(edges, 4), lead)).T  # each edge row four times
    return data, idx, values("float32", (n,) + data.shape[k:], rng).astype(f32)


@pytest.mark.parametrize("case", ["elements", "blocks", "strided"])
def test_scatter_nd_none_split_by_target_rows_is_bit_identical(case, threads, monkeypatch):
    """With two threads (and ``ND_SPLIT_WRITES``) each takes one range of target rows, copies
    those rows and writes, in order, the updates whose row is in its range: the numpy path's
    bits (the last duplicate wins, also on the rows where two ranges meet) and the reference's
    values."""
    monkeypatch.setattr(accel, "ND_SPLIT_WRITES", True)
    ranges = []
    kernels = accel._load()
    original = kernels["scatter_tuples"]

    def spy(table, idx, limits, strides, vals, r0, r1):
        ranges.append((r0, r1))
        return original(table, idx, limits, strides, vals, r0, r1)

    monkeypatch.setitem(kernels, "scatter_tuples", spy)
    monkeypatch.setattr(parallel, "COPY_MIN_PART_BYTES", 1 << 10)  # data this small splits too
    data, idx, upd = split_nd_case(np.random.default_rng([18, len(case)]), case)
    fast, slow = both(partial(ops.scatter_nd, data, idx, upd))
    assert_same_bits(fast, slow)
    assert_same_bits(fast, reference.scatter_nd(data, idx, upd))
    rows = int(np.prod(data.shape[:idx.shape[-1]]))
    assert sorted(ranges) == ([(0, rows)] if threads == 1 else [(0, rows // 2), (rows // 2, rows)])


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("value", ["size", "-size-1", "huge"])
def test_checking_kernels_refuse_every_bad_index(where, value, threads, stream, monkeypatch):
    """An index just past either end (or far past) anywhere, including in the second thread's
    share, raises the numpy path's exact error instead of reading or writing out of bounds."""
    rng = np.random.default_rng(16)
    size, rows = 700, 30
    n = size * rows
    bad = {"size": size, "-size-1": -size - 1, "huge": 2**62}[value]
    at = {"first": 0, "middle": n // 2 + 3, "last": n - 1}[where]
    idx = rng.integers(-size, size, n)
    idx[at] = bad
    if at != n - 1:
        idx[-1] = size + 5  # a later bad index must not be the one named
    data = rng.standard_normal((size, 8)).astype(np.float32)
    upd = rng.standard_normal((n, 8)).astype(np.float32)
    ge_data = rng.standard_normal((rows, size)).astype(np.float32)
    names = ("gather_tuples", "scatter_tuples", "gather_elements", "scatter_elements")
    calls = {name: count_calls(monkeypatch, name) for name in names}
    message = rf"indices\[{at}\] = {bad} is out of range"
    nd_message = rf"indices\[{at}, 0\] = {bad} is out of range"
    ge_message = rf"indices\[{at // size}, {at % size}\] = {bad} is out of range"
    se_idx = idx.reshape(rows, size)
    se_data, se_upd = rng.standard_normal((size, size)).astype(np.float32), ge_data
    for flag in (True, False):
        accel.set_enabled(flag)
        with pytest.raises(ops.IndexOutOfRangeError, match=message):
            ops.gather(data, idx, 0)
        with pytest.raises(ops.IndexOutOfRangeError, match=nd_message):
            ops.gather_nd(data, idx[:, None])
        with pytest.raises(ops.IndexOutOfRangeError, match=nd_message):
            ops.scatter_nd(data, idx[:, None], upd)
        with pytest.raises(ops.IndexOutOfRangeError, match=ge_message):
            ops.gather_elements(ge_data, se_idx, 1)
        for axis, reduction in ((1, "add"), (0, "max"), (1, "none"), (0, "none")):  # rows split, column bands
            with pytest.raises(ops.IndexOutOfRangeError, match=ge_message):
                ops.scatter_elements(se_data, se_idx, se_upd, axis, reduction)
    # the kernels ran (with the accelerator on): Gather and GatherND, ScatterND, GatherElements, ScatterElements
    assert {name: len(c) for name, c in calls.items()} == {
        "gather_tuples": 2, "scatter_tuples": 1, "gather_elements": 1, "scatter_elements": 4}


@pytest.mark.parametrize("block", [1, 4])
def test_scatter_nd_none_into_a_table_it_prefetches_matches_the_reference(block, threads):
    """ScatterND none into a table of ``SCATTER_PREFETCH_MIN_BYTES`` or more, where the writes
    prefetch the row of the update 32 later (from its index clamped into range: negative ones
    among them): duplicates keep the last value, the numpy path's bits and the reference's."""
    rng = np.random.default_rng([23, block])
    rows = accel_kernels.SCATTER_PREFETCH_MIN_BYTES // (4 * block) + 1000
    data = values("float32", (rows, block) if block > 1 else (rows,), rng, payloads=False)
    idx = rng.integers(-rows, rows, (20_000, 1))
    idx[1::50] = idx[::50][: idx[1::50].shape[0]]  # duplicates, the later one 1 update after
    upd = values("float32", (20_000,) + data.shape[1:], rng, payloads=False)
    fast, slow = both(partial(ops.scatter_nd, data, idx, upd))
    assert_same_bits(fast, slow)
    np.testing.assert_array_equal(fast, reference.scatter_nd(data, idx, upd))


@pytest.mark.parametrize("case", ["elements", "blocks", "strided"])
def test_scatter_nd_none_copy_splits_and_the_caller_writes(case, threads, monkeypatch):
    """By default data whose copy splits is copied in parts across the threads (along its first
    axis, whatever its layout), then written by the calling thread in one kernel call over all
    target rows: the numpy path's bits (the last duplicate wins) and the reference's values."""
    calls, parts = [], []
    kernels = accel._load()
    original, run_parts = kernels["scatter_tuples"], parallel.run_parts

    def spy(table, idx, limits, strides, vals, r0, r1):
        calls.append((r0, r1, threading.get_ident()))
        return original(table, idx, limits, strides, vals, r0, r1)

    def parts_spy(fn, n, work=None, min_part=parallel.MIN_PART):
        return run_parts(lambda a, b: (parts.append((a, b)), fn(a, b))[1], n, work, min_part)

    monkeypatch.setitem(kernels, "scatter_tuples", spy)
    monkeypatch.setattr(parallel, "run_parts", parts_spy)
    monkeypatch.setattr(parallel, "COPY_MIN_PART_BYTES", 1 << 10)  # data this small splits too
    data, idx, upd = split_nd_case(np.random.default_rng([19, len(case)]), case)
    fast = np.array(ops.scatter_nd(data, idx, upd), copy=True)  # the accelerator is on
    rows, half, lead = int(np.prod(data.shape[:idx.shape[-1]])), data.shape[0] // 2, data.shape[0]
    assert calls == [(0, rows, threading.get_ident())]
    assert sorted(parts) == ([(0, lead)] if threads == 1 else [(0, half), (half, lead)])
    accel.set_enabled(False)
    assert_same_bits(fast, ops.scatter_nd(data, idx, upd))
    assert_same_bits(fast, reference.scatter_nd(data, idx, upd))


# ---------------------------------------------------------------- switch, errors, reference


def test_switch_and_errors_unchanged():
    data = np.zeros((3, 4), dtype=np.float32)
    bad = np.array([[0, 4]], dtype=np.int64)
    for flag in (True, False):
        accel.set_enabled(flag)
        assert accel.enabled() is flag
        with pytest.raises(ops.IndexOutOfRangeError, match=r"indices\[0, 1\] = 4 is out of range"):
            ops.scatter_elements(data, bad, np.ones((1, 2), np.float32), 1, "max")
        with pytest.raises(ops.IndexOutOfRangeError, match=r"indices\[0, 1\] = 4 is out of range"):
            ops.gather_elements(data, bad, 1)
        with pytest.raises(ops.OpError, match="unknown reduction"):
            ops.scatter_nd(data, np.array([[0]]), np.ones((1, 4), np.float32), "sum")


def test_env_switch_and_missing_numba_turn_it_off():
    """INDEXFLOW_ACCEL=0 switches it off; without numba it is off, silently, and ops still works."""
    script = (
        "import sys\n"
        "if sys.argv[1] == 'hide': sys.modules['numba'] = None  # import numba raises ImportError\n"
        "import numpy as np, ops\n"
        "from ops import accel\n"
        "d = np.arange(20000, dtype=np.float32).reshape(100, 200)\n"
        "out = ops.scatter_elements(d, np.zeros((100, 200), np.int64), d, 1, 'add')\n"
        "print(accel.enabled(), accel.available(), float(out[1, 0]))\n"
    )
    root = Path(__file__).resolve().parents[2]
    results = {}
    for mode, accel_env in (("env", "0"), ("hide", "1"), ("on", "1")):
        env = dict(os.environ, INDEXFLOW_ACCEL=accel_env, PYTHONPATH=str(root))
        done = subprocess.run([sys.executable, "-c", script, mode], env=env, cwd=root, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0 and not done.stderr.strip(), done.stderr
        results[mode] = done.stdout.split()
    assert results["env"] == ["False", "True", results["on"][2]]
    assert results["hide"] == ["False", "False", results["on"][2]]
    assert results["on"][:2] == ["True", "True"]


def test_the_helpers_are_inlined_into_the_kernel_that_calls_them():
    """``accel.INLINED`` (LLVM's alwaysinline) leaves no helper of ops/accel_kernels.py or
    ops/accel_intrinsics.py as a function of its own in a kernel's machine code: GatherElements'
    kernel calls eight of them (checks, row warming, streaming stores and the fence), and only the
    kernel and numba's wrappers of it are defined, with no reference to any helper. On x86-64 the
    intrinsics' instructions are there: non-temporal stores and the fence."""
    import platform
    import re

    import numba

    require_accelerator()
    kernel = numba.njit(nogil=True)(accel_kernels.gather_elements)   # not cached: its code can be inspected
    data, out = np.zeros(20000, np.uint32), np.zeros((1000, 20), np.uint32)
    assert kernel(data, np.zeros((1000, 20), np.int64), out, np.zeros(1000, np.int64), 1, True, 20, True, 0,
                  1000) == -1
    asm = kernel.inspect_asm(kernel.signatures[0])
    defined = [line[:-1] for line in asm.splitlines() if re.match(r"^[_A-Za-z][\w.]*:$", line)]
    ours = [name for name in defined if re.search(r"accel_(kernels|intrinsics)", name)]
    assert ours and all("15gather_elements" in name for name in ours), ours
    referenced = set(re.findall(r"\$(_ZN\w+)", asm))
    assert all("15gather_elements" in name for name in referenced if "accel_" in name), referenced
    if platform.machine().lower() in ("x86_64", "amd64"):
        instructions = {line.split()[0] for line in asm.splitlines() if line.startswith("\t") and line.split()}
        assert "sfence" in instructions and any(i.startswith("movnt") for i in instructions), sorted(instructions)


#: The other kernels that write with streaming stores, and arguments that make them stream: the
#: kernel, then its arguments as a function of numpy (the output array last but the ranges).
STREAMING_KERNELS = {
    "gather_elements_bands": lambda u: (np.zeros(20000, u), np.zeros((1000, 20), np.int64), np.zeros((1000, 20), u),
                                        np.zeros(1000, np.int64), 20, 1000, True, 64, True, 0, 20),
    "gather_rows": lambda u: (np.zeros((100, 32), u), np.zeros(1000, np.int64), 100, np.zeros((1000, 32), u), True,
                              False, 0, 1000),
    "gather_tuples": lambda u: (np.zeros((100, 32), u), np.zeros((1000, 2), np.int64), (10, 10), (10, 1),
                                np.zeros((1000, 32), u), True, 0, 1000),
}


@pytest.mark.parametrize("name", sorted(STREAMING_KERNELS))
def test_the_other_streaming_kernels_keep_their_non_temporal_stores(name):
    """GatherElements' bands, the row gather (Gather axis 0) and GatherND's row gather, compiled
    afresh, run, and hold non-temporal stores and the fence after them in their machine code on
    x86-64:
    LLVM can merge a streaming store with an ordinary one on another branch and drop the
    streaming mark (it did in GatherElements' kernel, tested above), so a change to these kernels
    that loses them fails here rather than only in a benchmark."""
    import platform

    import numba

    require_accelerator()
    kernel = numba.njit(nogil=True)(getattr(accel_kernels, name))   # not cached: its code can be inspected
    assert kernel(*STREAMING_KERNELS[name](np.uint32)) == -1
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return
    asm = kernel.inspect_asm(kernel.signatures[0])
    instructions = {line.split()[0] for line in asm.splitlines() if line.startswith("\t") and line.split()}
    assert "sfence" in instructions and any(i.startswith("movnt") for i in instructions), sorted(instructions)


@pytest.mark.parametrize("stream", [False, True], ids=["ordinary", "streamed"])
def test_the_row_gather_takes_short_rows_of_either_sign_and_stops_at_the_first_bad_index(stream):
    """The compiled row gather on rows under a cache line (ops' callers stream only wider ones;
    a streamed short row takes the loop for indices of both signs): the rows of indices in
    ``[-size, size)`` are ``table[index % size]``, first all non-negative, then from a
    negative index on; an index outside returns its position, with every row before it
    written."""
    require_accelerator()
    kernel = accel._load()["gather_rows"]
    rng = np.random.default_rng(7)
    table = rng.integers(0, 2**32, (100, 5), dtype=np.uint64).astype(np.uint32)  # 20-byte rows
    idx = rng.integers(0, 100, 600)
    idx[300:] -= rng.integers(0, 2, 300) * 100  # the second half of mixed signs
    out = np.zeros((600, 5), np.uint32)
    assert kernel(table, idx, 100, out, stream, False, 0, 600) == -1
    np.testing.assert_array_equal(out, table[idx % 100])
    for bad_at, bad in ((250, 100), (450, -101)):  # among non-negative indices, among mixed ones
        wrong = idx.copy()
        wrong[bad_at] = bad
        out[:] = 0
        assert kernel(table, wrong, 100, out, stream, False, 0, 600) == bad_at
        np.testing.assert_array_equal(out[:bad_at], table[idx[:bad_at] % 100])


#: Two ways numba's internals could move, and what each run checks. Either way ``_load`` takes the
#: same fallback (plain helpers), so the costly row gather is compiled with it only once.
BREAK_INTRINSICS = {
    # the module does not import (llvmlite or numba.extending moved)
    "import": ("sys.modules['ops.accel_intrinsics'] = None\n", ("gather_elements",)),
    # it imports, but code generation fails when a kernel is compiled (cgutils moved)
    "codegen": ("import ops.accel_intrinsics as intrinsics\nintrinsics.cgutils = object()\n",
                ("gather", "gather_elements")),
}


@pytest.mark.parametrize("how", sorted(BREAK_INTRINSICS))
def test_without_intrinsics_the_kernels_still_run(tmp_path, how):
    """If numba's internals that ops/accel_intrinsics.py uses ever move, the gathers run without
    prefetches, warming loads and streaming stores: same results, accelerator still on. (A fresh
    numba cache, so the kernels are compiled with the fallback rather than loaded; the row
    gather and GatherElements between them use all four intrinsics.)"""
    breaking, checked = BREAK_INTRINSICS[how]
    script = (
        "import sys\n"
        + breaking
        + "import numpy as np, ops\n"
        "from ops import accel\n"
        "accel.STREAM_MIN_BYTES = accel.ROWS_STREAM_MIN_ROW_BYTES = 0\n"
        "accel.MIN_SIZE = accel.SMALL_WORK = accel.ROWS_MIN_ROW_BYTES = accel.ROWS_MIN_TABLE_BYTES = 0\n"
        "d = np.arange(20000, dtype=np.float32).reshape(1000, 20)\n"
        "i = np.arange(-1000, 1000)\n"
        "cols = (np.arange(20000).reshape(1000, 20) * 7) % 20\n"
        "ok = {'gather': lambda: (ops.gather(d, i) == d[i]).all(),\n"
        "      'gather_elements': lambda: (ops.gather_elements(d, cols, 1) == np.take_along_axis(d, cols, 1)).all()}\n"
        f"print(accel.enabled(), all(bool(ok[name]()) for name in {checked!r}))\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, INDEXFLOW_ACCEL="1", PYTHONPATH=str(root), NUMBA_CACHE_DIR=str(tmp_path))
    done = subprocess.run([sys.executable, "-c", script], env=env, cwd=root, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    assert done.stdout.split() == ["True", "True"]


def test_read_only_and_strided_inputs():
    rng = np.random.default_rng(11)
    data, idx, upd, _ = elementwise_case(rng, 3, "float32", big=True, axis=2)
    for arr in (data, idx, upd):
        arr.setflags(write=False)
    t_data = np.ascontiguousarray(data.transpose(1, 0, 2)).transpose(1, 0, 2)  # same values, strided
    be_idx = idx.astype(">i8")  # non-native byte order
    for d, i in ((data, idx), (t_data, be_idx)):
        fast, slow = both(partial(ops.gather_elements, d, i[:, :, :50], 2))
        assert_same_bits(fast, slow)
        fast, slow = both(partial(ops.scatter_elements, d, i, upd, 2, "max"))
        assert_same_bits(fast, slow)
        fast, slow = both(partial(ops.scatter_nd, d, i[:3, :4, :2] % 30, upd[:3, :4, :50], "add"))
        assert_same_bits(fast, slow)


def test_inputs_not_modified():
    rng = np.random.default_rng(8)
    data, idx, upd, axis = elementwise_case(rng, 3, "float32", big=True)
    saved = data.copy(), idx.copy(), upd.copy()
    out = ops.scatter_elements(data, idx, upd, axis, "add")
    assert not np.shares_memory(out, data)
    for a, b in zip((data, idx, upd), saved, strict=True):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_reference_catches_a_wrong_kernel(reduction, monkeypatch):
    """The semantic tests would see an accelerator bug: both paths match the slow reference,
    and a kernel with a swapped reduction does not."""
    rng = np.random.default_rng(9)
    cases = [elementwise_case(rng, 1 + t % 4, "float32") for t in range(12)]
    cases = [(np.nan_to_num(d, nan=1.5), i, np.nan_to_num(u, nan=-2.5), a) for d, i, u, a in cases]
    for flag in (True, False):
        accel.set_enabled(flag)
        for d, i, u, a in cases:
            got = ops.scatter_elements(d, i, u, a, reduction)
            want = reference.scatter_elements(d, i, u, a, reduction)
            np.testing.assert_array_equal(got, want)
    accel.set_enabled(True)
    swapped = {"add": "mul", "mul": "add", "max": "min", "min": "max"}
    monkeypatch.setattr(accel, "OPS", {r: accel.OPS[swapped[r]] for r in accel.OPS})
    mismatches = 0
    for d, i, u, a in cases:
        got = ops.scatter_elements(d, i, u, a, reduction)
        mismatches += not np.array_equal(got, reference.scatter_elements(d, i, u, a, reduction))
    assert mismatches > 0


# ---------------------------------------------------------------- every path against the index map

UFUNC_OF = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}


def map_cases(rng):
    """(op, inputs, attrs) large enough for the compiled paths, one per accelerated route and
    axis kind, with negative indices and duplicates (unique targets where reduction is none)."""
    f32 = np.float32
    data2 = rng.standard_normal((300, 260)).astype(f32)
    data3 = rng.standard_normal((40, 30, 50)).astype(f32)
    dup2 = rng.integers(-260, 260, (300, 260))
    dup0 = rng.integers(-300, 300, (300, 260))
    perm0 = np.argsort(rng.random((300, 260)), axis=0)[:150] - 300  # unique per column, negative
    perm1 = np.argsort(rng.random((300, 260)), axis=1)[:, :130]  # unique per row
    tuples = np.stack([rng.integers(-40, 40, 5000), rng.integers(-30, 30, 5000)], axis=1)
    return [
        ("Gather", [data2, rng.integers(-300, 300, (50, 80))], {"axis": 0}),
        ("Gather", [data3, rng.integers(-30, 30, 70)], {"axis": 1}),
        ("GatherElements", [data2, dup2], {"axis": 1}),
        ("GatherElements", [data3, rng.integers(-30, 30, (40, 60, 50))], {"axis": 1}),
        ("GatherElements", [data2, dup0], {"axis": 0}),
        ("GatherND", [data3, tuples], {}),
        ("ScatterElements", [data2, perm1, rng.standard_normal((300, 130)).astype(f32)], {"axis": 1}),
        ("ScatterElements", [data2, perm0, rng.standard_normal((150, 260)).astype(f32)], {"axis": 0}),
        ("ScatterElements", [data2, dup2, rng.standard_normal((300, 260)).astype(f32)],
         {"axis": 1, "reduction": "add"}),
        ("ScatterElements", [data3, rng.integers(-40, 40, (40, 30, 50)), rng.standard_normal((40, 30, 50)).astype(f32)],
         {"axis": 0, "reduction": "max"}),
        ("ScatterND", [data3, np.unique(tuples % [40, 30], axis=0)[::-1],
                       rng.standard_normal((len(np.unique(tuples % [40, 30], axis=0)), 50)).astype(f32)], {}),
        ("ScatterND", [data3, tuples, rng.standard_normal((5000, 50)).astype(f32)], {"reduction": "mul"}),
    ]


@pytest.mark.parametrize("accelerated", [True, False], ids=["compiled", "numpy"])
def test_every_path_reads_and_writes_what_the_index_map_says(accelerated, threads, monkeypatch):
    """The index map is the contract the teaching view shows: each kernel route, compiled or
    numpy, must read (gathers) or write (scatters) exactly the flat offsets
    ``ops.index_map(...).flat_offsets()`` gives, in row-major order of the elements. The
    expected results here apply those offsets directly: a take, an assignment of distinct
    targets, or a sequential ``ufunc.at`` fold."""
    names = ("gather_tuples", "gather_elements", "scatter_elements", "scatter_tuples", "scatter_rows_fold")
    calls = {name: count_calls(monkeypatch, name) for name in names}
    accel.set_enabled(accelerated)
    for op, inputs, attrs in map_cases(np.random.default_rng(30)):
        offsets = ops.index_map(op, inputs, attrs).flat_offsets().reshape(-1)
        got = ops.run_op(op, inputs, attrs)
        data = inputs[0]
        if op.startswith("Gather"):
            want = data.reshape(-1)[offsets].reshape(got.shape)
        else:
            want = data.copy().reshape(-1)
            updates = inputs[2].reshape(-1)
            reduction = attrs.get("reduction", "none")
            if reduction == "none":
                assert len(set(offsets.tolist())) == offsets.size  # distinct targets: order cannot matter
                want[offsets] = updates
            else:
                UFUNC_OF[reduction].at(want, offsets, updates)
            want = want.reshape(data.shape)
        assert_same_bits(got, want)
    ran = {name: len(c) for name, c in calls.items()}
    if accelerated:  # every compiled route was taken (the numpy routes are the rest)
        assert ran == {"gather_tuples": 2, "gather_elements": 3, "scatter_elements": 4, "scatter_tuples": 1,
                       "scatter_rows_fold": 1}, ran
    else:
        assert sum(ran.values()) == 0


def test_fetch_add_gives_threads_that_share_a_counter_distinct_values():
    """The compiled ``fetch_add`` (one atomic read-modify-write): two threads bumping one
    counter 200,000 times each, at once and without the GIL, get every value from 0 once
    between them, and the counter ends at their sum. A plain load and store would lose
    bumps and hand out some values twice."""
    import numba

    require_accelerator()
    accel._load()

    @numba.njit(nogil=True)
    def bump(counter, got):
        for i in range(got.size):
            got[i] = accel_kernels.fetch_add(counter, 0, 1)

    counter = np.zeros(1, np.int64)
    got = [np.full(200_000, -1, np.int64) for _ in range(2)]
    bump(np.zeros(1, np.int64), np.zeros(1, np.int64))  # compiled before the threads start
    workers = [threading.Thread(target=bump, args=(counter, g)) for g in got]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert counter[0] == 400_000
    assert np.array_equal(np.sort(np.concatenate(got)), np.arange(400_000))


@pytest.mark.parametrize("callers", [1, 2, 3])
def test_shared_kernels_write_every_chunk_once_whoever_takes_it(callers):
    """Callers of a shared kernel with one counter take its chunks between them: the output is
    numpy's whoever took which chunk, and each caller's last claim finds none left (the counter
    ends at the chunk count plus one per caller); a caller that comes after the rest finds no
    chunk and writes nothing."""
    require_accelerator()
    shared = accel._load()["gather_elements_shared"]
    rng = np.random.default_rng(11)
    data = rng.standard_normal((300, 50)).astype(np.float32)
    idx = rng.integers(-50, 50, (300, 40))
    idx2, bases, sa, last = accel._element_rows(data.shape, idx, 1)
    out = np.zeros(idx.shape, np.uint32)
    args = (data.reshape(-1).view(np.uint32), idx2, out, bases, sa, last, 50, False)
    counter, chunk = np.zeros(1, np.int64), 7  # 43 chunks, the last of 6 rows
    results = []
    workers = [threading.Thread(target=lambda: results.append(
        shared(*args, 0, 300, chunk, counter, parallel.NO_WORDS, 0))) for _ in range(callers)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert results == [-1] * callers and counter[0] == 43 + callers
    assert out.view(np.float32).tobytes() == np.take_along_axis(data, idx % 50, 1).tobytes()
    out[:] = 0
    assert shared(*args, 0, 300, chunk, counter, parallel.NO_WORDS, 0) == -1 and not out.any()


def test_a_shared_kernel_wakes_the_threads_it_is_told_to_before_its_rows():
    """The caller's shared kernel bumps the signal words ``words[0, 0..woken)`` once each (the
    pool threads of :func:`ops.parallel.map_woken` wait for that) and no other word, even with
    no chunk left to take; it returns with their finish words at their goals."""
    require_accelerator()
    shared = accel._load()["gather_last_shared"]
    data, out = np.arange(12, dtype=np.uint32).reshape(3, 4), np.zeros((3, 2), np.uint32)
    words = np.array([[5, 7, 9], [2, 4, 0], [2, 4, 6]], np.int64)
    assert shared(data, np.array([3, 0]), out, 0, 3, 1, np.array([3], np.int64), words, 2) == -1
    assert words.tolist() == [[6, 8, 9], [2, 4, 0], [2, 4, 6]] and not out.any()


def test_await_parts_returns_once_every_woken_thread_has_reported():
    """:func:`ops.accel_kernels.await_parts` (a shared kernel's last step in the calling thread)
    returns only once each of the first ``n`` finish words ``words[1, i]`` has reached its goal
    ``words[2, i]``, holding no GIL while it polls: a Python thread reports after it has started
    and it returns after that report, not before. (Called here with an endless poll budget,
    so that the test does not depend on how fast the reporting thread runs.)"""
    require_accelerator()
    import numba

    @numba.njit(nogil=True)
    def waiting(words, n):
        accel_kernels.wake(words, n)
        accel_kernels.await_parts(words, n, 1 << 62)

    words = np.array([[0, 0, 0], [3, 5, 9], [4, 6, 1]], np.int64)
    order = []

    def report():
        while words[0, 1] == 0:  # the waiting call's first step: it is past the GIL now
            threading.Event().wait(1e-4)
        order.append("thread 0")
        words[1, 0] = 4
        threading.Event().wait(1e-3)
        order.append("thread 1")
        words[1, 1] = 6

    waiter = threading.Thread(target=lambda: (waiting(words, 2), order.append("returned")))
    reporter = threading.Thread(target=report)
    reporter.start()
    waiter.start()
    waiter.join(60)
    reporter.join(60)
    assert not waiter.is_alive() and order == ["thread 0", "thread 1", "returned"]
    assert words[1].tolist() == [4, 6, 9]  # the third thread was not woken: not waited for


@pytest.mark.parametrize("atomic", [True, False], ids=["shared", "no-atomics"])
def test_split_routes_give_numpys_result_with_or_without_atomic_counters(atomic, monkeypatch):
    """With two threads the split routes (GatherElements on rows and on bands of columns, Gather
    on the last axis and on axis 0, GatherND, ScatterElements on rows and on bands of columns)
    give the numpy path's bits,
    whether the threads share chunks through an atomic counter or, where the intrinsics did
    not install, take a range each."""
    require_accelerator()
    accel._load()
    monkeypatch.setitem(accel._state, "atomic", atomic)
    monkeypatch.setattr(accel, "BANDS_MIN_SPAN_BYTES", 0)
    monkeypatch.setattr(accel, "PACKED_BANDS_MIN_SPAN_BYTES", 0)
    split = []
    watch_shares(monkeypatch, lambda name, args, n, work: split.append(n > 1 and parallel.part_count(work) > 1))
    before = parallel.threads()
    parallel.set_threads(2)
    try:
        rng = np.random.default_rng(5)
        data = rng.standard_normal((600, 400)).astype(np.float32)
        idx = rng.integers(-400, 400, (600, 400))
        upd = rng.standard_normal(idx.shape).astype(np.float32)
        rows = rng.integers(-600, 600, 2000)
        tuples = np.stack([rng.integers(-600, 600, 200_000), rng.integers(-400, 400, 200_000)], axis=1)
        calls = [
            ("GatherElements", [data, idx], {"axis": 1}),
            ("GatherElements", [data, idx % 600], {"axis": 0}),  # in bands of columns (span lowered below)
            ("Gather", [data, idx[:8, :300] % 400], {"axis": 1}),
            ("Gather", [data, rows], {"axis": 0}),
            ("GatherND", [data[:, :, None].repeat(2, 2), tuples], {}),
            ("ScatterElements", [data, idx, upd], {"axis": 1, "reduction": "add"}),
            ("ScatterElements", [data, idx % 600, upd], {"axis": 0, "reduction": "max"}),
        ]
        for op, inputs, attrs in calls:
            small_calls.forget()
            split.clear()
            got = ops.run_op(op, inputs, attrs)
            assert any(split), (op, attrs, split)  # the route was split across the two threads
            accel.set_enabled(False)
            try:
                want = ops.run_op(op, inputs, attrs)
            finally:
                accel.set_enabled(True)
            assert got.tobytes() == want.tobytes(), op
    finally:
        parallel.set_threads(before)
        small_calls.forget()
