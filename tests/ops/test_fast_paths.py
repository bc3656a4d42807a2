"""The fast paths of the ops core (threads, reused buffers, one-pass index checks, segment
reductions) against simple numpy references: fancy indexing for gathers, fancy assignment
(last write wins) and ``ufunc.at`` (sequential fold) for scatters.

Sizes are chosen to cross the thresholds where the fast paths switch on (``parallel.MIN_PART``
elements per thread, ``buffers.MIN_POOLED_BYTES``) and to put duplicates on both sides of a
thread boundary.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ops
from ops import buffers, parallel

from ._helpers import with_threads

BIG = 2 * parallel.MIN_PART + 7  # enough work for two threads, not a multiple of anything

NUMERIC = ["bool", "int8", "int32", "int64", "uint8", "uint64", "float16", "bfloat16", "float32", "float64",
           "complex64", "complex128"]
ALL = NUMERIC + ["string"]


@pytest.fixture(params=[1, 2, 3], ids=lambda n: f"threads{n}")
def threads(request):
    yield from with_threads(request)


def make(dtype: str, shape, rng) -> np.ndarray:
    """Values of ``dtype`` with many repeats (so reductions see ties) and, for floats, a NaN."""
    raw = rng.integers(-50, 50, size=shape)
    if dtype == "string":
        return np.array([f"s{v}" for v in raw.ravel()], dtype=object).reshape(shape)
    if dtype == "bool":
        return raw > 0
    out = raw.astype(ops.dtype_of(dtype)) if not dtype.startswith("complex") else (raw + 1j * raw[::-1]).astype(dtype)
    return out


# ---------------------------------------------------------------- gathers


@pytest.mark.parametrize("dtype", ALL)
def test_gather_axis0_big_matches_fancy_indexing(dtype, threads):
    rng = np.random.default_rng(1)
    data = make(dtype, (300, 5), rng)
    idx = rng.integers(-300, 300, size=BIG // 5)
    np.testing.assert_array_equal(ops.gather(data, idx, 0), data[idx])


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "string", "complex128"])
def test_gather_inner_axis_and_elements_and_nd(dtype, threads):
    rng = np.random.default_rng(2)
    data = make(dtype, (40, 31, 9), rng)
    idx = rng.integers(-31, 31, size=(7, 3))
    np.testing.assert_array_equal(ops.gather(data, idx, 1), data[:, idx])
    big = make(dtype, (40, 400, 9), rng)
    el = rng.integers(-400, 400, size=big.shape)
    np.testing.assert_array_equal(ops.gather_elements(big, el, 1), np.take_along_axis(big, el % 400, 1))
    tup = np.stack([rng.integers(-40, 40, BIG // 9), rng.integers(-400, 400, BIG // 9)], axis=-1)
    np.testing.assert_array_equal(ops.gather_nd(big, tup), big[tup[:, 0], tup[:, 1]])


def test_gather_elements_every_axis_and_index_dtype(threads):
    rng = np.random.default_rng(3)
    data = rng.standard_normal((61, 47, 53)).astype(np.float32)
    for axis in range(3):
        for idt in (np.int32, np.int64, np.uint16, np.uint64):
            n = data.shape[axis]
            shape = list(data.shape)
            shape[axis] = 29
            idx = rng.integers(0, n, size=shape).astype(idt)
            np.testing.assert_array_equal(ops.gather_elements(data, idx, axis),
                                          np.take_along_axis(data, idx.astype(np.int64), axis))


def test_out_of_range_is_still_reported_on_the_fast_path():
    data = np.zeros((10, 3), np.float32)
    idx = np.zeros(BIG, np.int64)
    idx[BIG - 3] = 10
    with pytest.raises(ops.IndexOutOfRangeError, match=rf"indices\[{BIG - 3}\] = 10 .*size 10"):
        ops.gather(data, idx)
    idx[BIG - 3] = -11
    with pytest.raises(ops.IndexOutOfRangeError, match=rf"indices\[{BIG - 3}\] = -11"):
        ops.gather(data, idx)
    tup = np.zeros((BIG, 2), np.int64)
    tup[5, 1] = 3
    with pytest.raises(ops.IndexOutOfRangeError, match=r"indices\[5, 1\] = 3 .*axis 1 of size 3"):
        ops.gather_nd(data, tup)


# ---------------------------------------------------------------- buffers


def test_reused_buffers_never_alias_live_results():
    rng = np.random.default_rng(4)
    data = rng.standard_normal((1000, 64)).astype(np.float32)
    idx = rng.integers(0, 1000, size=(buffers.MIN_POOLED_BYTES // 256) + 10)
    first = ops.gather(data, idx)
    second = ops.gather(data, idx[::-1].copy())
    assert not np.shares_memory(first, second)
    view = second[3:5]
    del second
    third = ops.gather(data, idx)
    assert not np.shares_memory(third, view) and not np.shares_memory(third, first)
    np.testing.assert_array_equal(view, data[idx[::-1]][3:5])
    np.testing.assert_array_equal(third, data[idx])
    del first
    fourth = ops.gather(data, idx[::-1].copy())  # may reuse first's buffer: third must not change
    np.testing.assert_array_equal(third, data[idx])
    np.testing.assert_array_equal(fourth, data[idx[::-1]])
    assert not np.shares_memory(fourth, data) and not np.shares_memory(fourth, idx)


@pytest.mark.parametrize("dtype", ["uint8", "float32", "complex128"])
def test_pooled_buffers_start_on_a_cache_line(dtype):
    """Streaming stores (ops/accel_intrinsics.py) write whole 64-byte lines of pooled outputs."""
    held = []
    for extra in range(5):  # several live buffers, so some are fresh allocations and some reused
        arr = buffers.empty((buffers.MIN_POOLED_BYTES // np.dtype(dtype).itemsize + extra * 7,), dtype)
        assert arr.ctypes.data % buffers.ALIGN == 0 and arr.dtype == np.dtype(dtype)
        arr[...] = 1  # the whole requested extent is writable
        held.append(arr) if extra % 2 else None


def test_scatter_output_is_a_copy_even_when_pooled():
    data = np.arange(buffers.MIN_POOLED_BYTES // 4 + 5, dtype=np.float32)
    before = data.copy()
    out = ops.scatter_nd(data, np.array([[0], [7]]), np.array([-1, -2], np.float32))
    np.testing.assert_array_equal(data, before)
    assert out[0] == -1 and out[7] == -2 and not np.shares_memory(out, data)


# ---------------------------------------------------------------- scatters

UFUNCS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
BOOL_UFUNCS = {"add": np.logical_or, "mul": np.logical_and, "max": np.logical_or, "min": np.logical_and}


def bits(a: np.ndarray) -> np.ndarray:
    """Raw bytes, so -0.0 != 0.0 and NaN == NaN: 'bit-identical' comparisons."""
    return np.ascontiguousarray(a).view(np.uint8)


def reference_scatter_nd(data, rows, updates, reduction):
    """ufunc.at / fancy assignment on the (-1, block) table: the sequential row-major fold (a
    float16 max/min in float32, where numpy's ufuncs let the update win ties of 0.0 and -0.0,
    as onnxruntime does and numpy's float16 ones do not)."""
    if data.dtype == np.float16 and reduction in ("max", "min"):
        wide = reference_scatter_nd(data.astype(np.float32), rows, updates.astype(np.float32), reduction)
        return wide.astype(np.float16)
    block = int(np.prod(data.shape[1:]))
    out = data.copy().reshape(-1, block)
    values = updates.reshape(-1, block)
    if reduction == "none":
        out[rows] = values
    else:
        ufunc = (BOOL_UFUNCS if data.dtype == bool else UFUNCS)[reduction]
        with np.errstate(all="ignore"):
            ufunc.at(out, rows, values)
    return out.reshape(data.shape)


def with_nans(a: np.ndarray, rng) -> np.ndarray:
    if a.dtype.kind == "f" or a.dtype in (np.dtype(ml_dtypes.bfloat16),):
        a = a.copy()
        a.reshape(-1)[rng.integers(0, a.size, 5)] = np.nan
        a.reshape(-1)[rng.integers(0, a.size, 5)] = -0.0
    return a


def _meaningful(dtypes, reductions):
    """(dtype, reduction) pairs where the reduction has a meaning for the dtype (complex has no
    ordering; strings no product): the rest are OpErrors, tested in test_errors.py."""
    return [(d, r) for d in dtypes for r in reductions
            if not (d.startswith("complex") and r in ("max", "min")) and not (d == "string" and r == "mul")]


@pytest.mark.parametrize("dtype, reduction", _meaningful(NUMERIC, ["none", "add", "mul", "max", "min"]))
@pytest.mark.parametrize("dups", ["few", "many"])
def test_scatter_nd_blocks_match_sequential_fold_bit_for_bit(dtype, reduction, dups, threads):
    rng = np.random.default_rng(5)
    n_rows = 30000 if dups == "few" else 7  # 'many': a round would leave most updates -> ufunc.at fallback
    data = with_nans(make(dtype, (n_rows, 6, 4), rng), rng)
    rows = rng.integers(0, n_rows, size=BIG // 24)
    rows[: BIG // 48] = rows[BIG // 48: 2 * (BIG // 48)]  # duplicates across the thread boundary
    updates = with_nans(make(dtype, (rows.size, 6, 4), rng), rng)
    if dtype not in ("bool",) and reduction == "mul":
        updates = updates if dtype.startswith(("int", "uint")) else (updates / 40).astype(updates.dtype)
    got = ops.scatter_nd(data, rows[:, None], updates, reduction)
    want = reference_scatter_nd(data, rows, updates, reduction)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("reduction", ["none", "add", "max"])
def test_scatter_nd_strings_keep_the_generic_path(reduction):
    rng = np.random.default_rng(6)
    data = make("string", (50, 3), rng)
    rows = rng.integers(0, 50, size=200)
    updates = make("string", (200, 3), rng)
    np.testing.assert_array_equal(ops.scatter_nd(data, rows[:, None], updates, reduction),
                                  reference_scatter_nd(data, rows, updates, reduction))


@pytest.mark.parametrize("reduction", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("dtype", ["float32", "int16", "bool", "bfloat16", "float16"])
@pytest.mark.parametrize("axis", [0, 1])
def test_scatter_elements_big_matches_ufunc_at(dtype, reduction, axis, threads):
    rng = np.random.default_rng(7)
    data = with_nans(make(dtype, (300, 700), rng), rng)
    idx = rng.integers(-data.shape[axis], data.shape[axis], size=data.shape)
    updates = with_nans(make(dtype, data.shape, rng), rng)
    got = ops.scatter_elements(data, idx, updates, axis, reduction)
    flat = (idx % data.shape[axis]) * (700 if axis == 0 else 1) + (
        np.arange(700) if axis == 0 else (np.arange(300) * 700)[:, None])
    want = reference_scatter_nd(data.reshape(-1, 1), flat.reshape(-1), updates.reshape(-1, 1),
                                reduction).reshape(data.shape)
    np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("dtype", ["float32", "int8", "bool", "bfloat16", "complex64", "uint64"])
@pytest.mark.parametrize("shape, idx_shape, axis", [
    ((300, 900), (300, 900), 1),          # many leading rows per staged run
    ((301, 900), (77, 1500 // 2), 1),     # indices smaller than data on the leading axis
    ((3, 70000), (3, 65000), 1),          # one leading row bigger than a staged run
    ((40, 50, 60), (39, 17, 60), 1),      # rank 3, middle axis
    ((40, 50, 60), (40, 50, 33), -1),     # rank 3, last axis, indices narrower
    ((2, 3, 4, 5), (2, 3, 4, 9), 3),
])
def test_gather_elements_staged_runs_match_take_along_axis(dtype, shape, idx_shape, axis, threads, monkeypatch):
    from ops import apply
    monkeypatch.setattr(apply, "STAGE_BYTES", 4096)  # many runs even on small tensors
    rng = np.random.default_rng(8)
    data = make(dtype, shape, rng)
    n = shape[axis]
    idx = rng.integers(-n, n, size=idx_shape)
    region = tuple(slice(0, s) if d != axis % len(shape) else slice(None) for d, s in enumerate(idx_shape))
    want = np.take_along_axis(data[region], idx % n, axis)
    np.testing.assert_array_equal(ops.gather_elements(data, idx, axis), want)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_threads_work_in_a_forked_child():
    import os
    parallel.set_threads(2)
    data = np.arange(4 * BIG, dtype=np.float32).reshape(-1, 4)
    idx = np.arange(data.shape[0])[::-1].copy()
    ops.gather(data, idx)  # the pool exists in the parent now
    pid = os.fork()
    if pid == 0:  # child: must not wait forever on the parent's (absent) worker threads
        try:
            ok = np.array_equal(ops.gather(data, idx), data[idx])
        finally:
            os._exit(0 if ok else 1)
    import time
    deadline = time.monotonic() + 60
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the forked child hung waiting for the parent's worker threads")
    assert os.waitstatus_to_exitcode(done[1]) == 0


@pytest.mark.parametrize("dtype, reduction", _meaningful(["float32", "int64", "bool", "float16", "complex64", "string"],
                                                         ["none", "add", "mul", "max", "min"]))
@pytest.mark.parametrize("shape, idx_shape, axis", [
    ((50, 300), (80, 300), 0),            # more updates than rows: duplicates in every column
    ((50, 300), (20, 290), 0),            # indices narrower than data
    ((6, 7, 200), (6, 9, 170), 1),        # rank 3, middle axis
    ((30, 4, 100), (40, 4, 100), 0),
])
def test_scatter_elements_column_bands_match_ufunc_at(dtype, reduction, shape, idx_shape, axis, monkeypatch):
    from ops import apply
    monkeypatch.setattr(apply, "BAND_BYTES", 64)  # force many narrow bands
    monkeypatch.setattr(apply, "MIN_BAND", 3)
    rng = np.random.default_rng(9)
    data = with_nans(make(dtype, shape, rng), rng)
    n = shape[axis]
    idx = rng.integers(-n, n, size=idx_shape)
    updates = with_nans(make(dtype, idx_shape, rng), rng)
    got = ops.scatter_elements(data, idx, updates, axis, reduction)
    strides = np.array(data.strides) // data.itemsize
    coords = list(np.indices(idx_shape))
    coords[axis] = idx % n
    flat = sum(c * s for c, s in zip(coords, strides, strict=True))
    want = reference_scatter_nd(data.reshape(-1, 1), flat.reshape(-1), updates.reshape(-1, 1), reduction).reshape(shape)
    if dtype == "string":
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_array_equal(bits(got), bits(want))


@pytest.mark.parametrize("idt", [np.int8, np.uint8, np.int32, np.uint64, np.int64])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_gather_any_axis_and_index_dtype_big(idt, axis, threads):
    rng = np.random.default_rng(10)
    data = rng.standard_normal((16, 50, 20)).astype(np.float32)
    n = data.shape[axis]
    idx = rng.integers(0, n, size=(30, 30)).astype(idt)  # output: > 2 * MIN_PART elements
    if np.issubdtype(idt, np.signedinteger):
        idx = np.where(rng.random(idx.shape) < 0.3, idx - n, idx).astype(idt)
    want = np.take(data, idx.astype(np.int64) % n, axis=axis)
    np.testing.assert_array_equal(ops.gather(data, idx, axis), want)
