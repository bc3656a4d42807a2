"""Large tensors: the code paths the small property tests never reach.

ops splits big work across threads (``ops.parallel``, partitioned by output rows / destination
ranges) and hands out reused output buffers from a pool for outputs of 4 MiB and more
(``ops.buffers``). These tests run the benchmark-like shapes at a smaller size with 1, 2 and 3
threads and compare with onnxruntime (one thread; the reference loops would be too slow at this
size); they also check that a pooled result is never overwritten by a later call while it (or a
view of it) is alive.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import ops
import ops.parallel

from ._cases import Case
from ._helpers import CORE_DTYPES, eps, random_values, with_threads
from .test_vs_onnxruntime import run_ort

RNG_SEED = 20261129


@pytest.fixture(params=[1, 2, 3], ids=lambda n: f"threads{n}")
def threads(request):
    yield from with_threads(request)


def _idx(rng, shape, size, negative=True):
    v = rng.integers(0, size, size=shape)
    if negative:
        v = np.where(rng.random(shape) < 0.3, v - size, v)
    return v.astype(np.int64)


def _check(op, inputs, attrs, *, fuzzy_counts=None):
    want = run_ort(op, inputs, attrs)
    before = [None if a is None else a.copy() for a in inputs]
    got = ops.run_op(op, inputs, attrs)
    for b, a in zip(before, inputs, strict=True):
        if b is not None:
            np.testing.assert_array_equal(a, b)
            assert not np.shares_memory(got, a)
    assert got.shape == want.shape and got.dtype == want.dtype
    if fuzzy_counts is None:
        np.testing.assert_array_equal(got, want)
    else:
        scale, counts = fuzzy_counts
        tol = 8.0 * (counts + 1) * eps(want.dtype) * scale
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        assert (err <= tol).all(), f"{int((err > tol).sum())} elements off"
    return got


def _scatter_counts(flat_targets, size):
    return np.bincount(flat_targets.ravel(), minlength=size)


def test_gather_axis0_large(threads):
    rng = np.random.default_rng(RNG_SEED)
    data = rng.standard_normal((5000, 16)).astype(np.float32)
    _check("Gather", [data, _idx(rng, (400, 300), 5000)], {"axis": 0})


def test_gather_axis1_large(threads):
    rng = np.random.default_rng(RNG_SEED + 1)
    data = rng.integers(-1000, 1000, (400, 1000)).astype(np.int64)
    _check("Gather", [data, _idx(rng, (500,), 1000)], {"axis": 1})
    _check("Gather", [data, _idx(rng, (20, 25), 1000).astype(np.int32)], {"axis": -1})


def test_gather_elements_large(threads):
    rng = np.random.default_rng(RNG_SEED + 2)
    data = rng.standard_normal((700, 700)).astype(np.float64)
    _check("GatherElements", [data, _idx(rng, (700, 700), 700)], {"axis": 1})
    _check("GatherElements", [data, _idx(rng, (650, 700), 700)], {"axis": 0})


def test_gather_nd_large(threads):
    rng = np.random.default_rng(RNG_SEED + 3)
    data = rng.standard_normal((200, 300, 16)).astype(np.float32)
    idx = np.stack([_idx(rng, (150000,), 200), _idx(rng, (150000,), 300)], axis=-1)
    _check("GatherND", [data, idx], {"batch_dims": 0})
    # batch_dims = 1
    idx1 = _idx(rng, (200, 700, 1), 300)
    _check("GatherND", [data, idx1], {"batch_dims": 1})


def test_scatter_elements_none_duplicates_large(threads):
    rng = np.random.default_rng(RNG_SEED + 4)
    data = rng.standard_normal((600, 600)).astype(np.float32)
    idx = _idx(rng, (900, 600), 600)  # many duplicates per column: last in row-major wins
    upd = rng.standard_normal((900, 600)).astype(np.float32)
    _check("ScatterElements", [data, idx, upd], {"axis": 0, "reduction": "none"})


@pytest.mark.parametrize("dtype", ["int32", "int8", "uint64"])
@pytest.mark.parametrize("reduction, axis", [("add", 0), ("max", 1), ("min", 0), ("mul", 1)])
def test_scatter_elements_reductions_large_int(threads, reduction, axis, dtype):
    rng = np.random.default_rng(RNG_SEED + 5)
    info = np.iinfo(dtype)  # full range: add and mul wrap around
    data = rng.integers(info.min, info.max, (600, 600), endpoint=True, dtype=dtype)
    idx = _idx(rng, (600, 600), 600)
    upd = rng.integers(info.min, info.max, (600, 600), endpoint=True, dtype=dtype)
    _check("ScatterElements", [data, idx, upd], {"axis": axis, "reduction": reduction})


def test_scatter_elements_add_large_float(threads):
    rng = np.random.default_rng(RNG_SEED + 6)
    data = rng.standard_normal((600, 600)).astype(np.float32)
    idx = _idx(rng, (600, 600), 600, negative=False)
    upd = rng.standard_normal((600, 600)).astype(np.float32)
    flat = idx * 600 + np.arange(600)  # axis 0: target (idx[i, j], j)
    counts = _scatter_counts(flat, data.size).reshape(data.shape)
    scale = np.abs(data).astype(np.float64)
    np.add.at(scale.reshape(-1), flat.ravel(), np.abs(upd).ravel())
    _check("ScatterElements", [data, idx, upd], {"axis": 0, "reduction": "add"},
           fuzzy_counts=(scale, counts))


def test_scatter_nd_none_unique_large(threads):
    rng = np.random.default_rng(RNG_SEED + 7)
    data = rng.standard_normal(1_000_000).astype(np.float32)
    idx = rng.permutation(1_000_000)[:100_000].astype(np.int64)[:, None]
    idx = np.where(rng.random(idx.shape) < 0.3, idx - 1_000_000, idx)
    upd = rng.standard_normal(100_000).astype(np.float32)
    _check("ScatterND", [data, idx, upd], {"reduction": "none"})


def test_scatter_nd_none_duplicates_large(threads):
    rng = np.random.default_rng(RNG_SEED + 8)
    data = rng.integers(0, 100, (300, 300, 4)).astype(np.int64)
    idx = np.stack([_idx(rng, (150000,), 300), _idx(rng, (150000,), 300)], axis=-1)
    upd = rng.integers(0, 100, (150000, 4)).astype(np.int64)
    _check("ScatterND", [data, idx, upd], {"reduction": "none"})


@pytest.mark.parametrize("reduction", ["add", "mul", "max", "min"])
def test_scatter_nd_reductions_large_int(threads, reduction):
    rng = np.random.default_rng(RNG_SEED + 9)
    data = rng.integers(-9, 9, (300, 300, 4)).astype(np.int64)
    idx = np.stack([_idx(rng, (150000,), 300), _idx(rng, (150000,), 300)], axis=-1)
    upd = rng.integers(-9, 9, (150000, 4)).astype(np.int64)
    _check("ScatterND", [data, idx, upd], {"reduction": reduction})


@pytest.mark.parametrize("reduction", ["add", "mul"])
def test_scatter_nd_reductions_large_float(threads, reduction):
    rng = np.random.default_rng(RNG_SEED + 10)
    data = rng.uniform(0.9, 1.1, (300, 300, 4)).astype(np.float32)
    idx = np.stack([_idx(rng, (150000,), 300, False), _idx(rng, (150000,), 300, False)], -1)
    upd = rng.uniform(0.9, 1.1, (150000, 4)).astype(np.float32)
    rows = idx[:, 0] * 300 + idx[:, 1]
    counts = np.repeat(_scatter_counts(rows, 90000)[:, None], 4, axis=1).reshape(data.shape)
    if reduction == "add":
        scale = data.astype(np.float64).reshape(90000, 4).copy()
        np.add.at(scale, rows, upd.astype(np.float64))
        scale = scale.reshape(data.shape)
    else:
        scale = np.full(data.shape, 1.1) ** (counts + 1)
    _check("ScatterND", [data, idx, upd], {"reduction": reduction},
           fuzzy_counts=(scale, counts))


def test_tensor_scatter_large(threads):
    rng = np.random.default_rng(RNG_SEED + 11)
    cache = rng.standard_normal((8, 4, 512, 64)).astype(np.float32)
    update = rng.standard_normal((8, 4, 100, 64)).astype(np.float32)
    wi = rng.integers(0, 512 - 100, 8, endpoint=True).astype(np.int64)
    _check("TensorScatter", [cache, update, wi], {"axis": -2, "mode": "linear"})
    wi = rng.integers(0, 512, 8).astype(np.int64)
    _check("TensorScatter", [cache, update, wi], {"axis": 2, "mode": "circular"})


# ---------------------------------------------------------------------------------------------
# the output buffer pool


def _big_gather_case(rng):
    data = rng.standard_normal((3000, 64)).astype(np.float32)
    idx = _idx(rng, (40000,), 3000)  # output 40000 x 64 float32 = 10 MB: pooled
    return data, idx


def test_live_results_are_never_reused():
    rng = np.random.default_rng(RNG_SEED + 12)
    cases = [_big_gather_case(rng) for _ in range(3)]
    wants = [run_ort("Gather", [d, i], {"axis": 0}) for d, i in cases]
    kept = []
    for _ in range(3):
        for (d, i), w in zip(cases, wants, strict=True):
            got = ops.gather(d, i, axis=0)
            np.testing.assert_array_equal(got, w)
            kept.append((got, w))
    for got, w in kept:  # nothing computed later overwrote an earlier, still alive result
        np.testing.assert_array_equal(got, w)
    for a, _ in kept:
        for b, _ in kept:
            if a is not b:
                assert not np.shares_memory(a, b)


def test_views_keep_their_buffer_alive():
    rng = np.random.default_rng(RNG_SEED + 13)
    (d1, i1), (d2, i2) = _big_gather_case(rng), _big_gather_case(rng)
    w1 = run_ort("Gather", [d1, i1], {"axis": 0})
    view = ops.gather(d1, i1, axis=0)[5:, ::2]  # only a view survives
    sub = ops.gather(d1, i1, axis=0).reshape(-1)[100:200]
    sub_ravel = ops.gather(d1, i1, axis=0).T  # transposed view
    for _ in range(6):
        ops.gather(d2, i2, axis=0)
        ops.scatter_nd(d2, i2[:100, None] % 3000, np.zeros((100, 64), np.float32))
    np.testing.assert_array_equal(view, w1[5:, ::2])
    np.testing.assert_array_equal(sub, w1.reshape(-1)[100:200])
    np.testing.assert_array_equal(sub_ravel, w1.T)


def test_result_fed_back_as_input():
    rng = np.random.default_rng(RNG_SEED + 14)
    data, idx = _big_gather_case(rng)
    w1 = run_ort("Gather", [data, idx], {"axis": 0})
    r1 = ops.gather(data, idx, axis=0)
    rows = _idx(rng, (1000, 1), r1.shape[0], negative=False)
    rows = np.unique(rows, axis=0)
    upd = np.ones((rows.shape[0], 64), np.float32)
    w2 = run_ort("ScatterND", [w1, rows, upd], {"reduction": "none"})
    r2 = ops.scatter_nd(r1, rows, upd)
    np.testing.assert_array_equal(r2, w2)
    np.testing.assert_array_equal(r1, w1)  # the input (a pooled result) is untouched
    r3 = ops.gather(r2, idx[:1000] % r2.shape[0], axis=0)
    np.testing.assert_array_equal(r2, w2)
    np.testing.assert_array_equal(r3, run_ort("Gather", [w2, idx[:1000] % r2.shape[0]],
                                              {"axis": 0}))


@pytest.mark.parametrize("op", ["ScatterElements", "ScatterND"])
@pytest.mark.parametrize("reduction", ["max", "min"])
def test_nan_propagates_on_the_large_path(threads, op, reduction):
    """Expected: onnxruntime's answer with each NaN update replaced by a value that never wins
    (-inf for max, +inf for min), then NaN in every cell some NaN update hits (our rule)."""
    rng = np.random.default_rng(RNG_SEED + 15)
    data = rng.standard_normal((600, 600)).astype(np.float32)
    if op == "ScatterElements":
        idx = _idx(rng, (600, 600), 600, negative=False)
        flat = idx * 600 + np.arange(600)  # axis 0
        upd = rng.standard_normal((600, 600)).astype(np.float32)
    else:
        idx = _idx(rng, (300000, 2), 600, negative=False)
        flat = idx[:, 0] * 600 + idx[:, 1]
        upd = rng.standard_normal(300000).astype(np.float32)
    nan_mask = rng.random(upd.shape) < 0.01
    upd_nan = np.where(nan_mask, np.float32(np.nan), upd)
    never_wins = np.float32(-np.inf if reduction == "max" else np.inf)
    want = run_ort(op, [data, idx, np.where(nan_mask, never_wins, upd)],
                   {"axis": 0, "reduction": reduction} if op == "ScatterElements"
                   else {"reduction": reduction})
    want = want.reshape(-1).copy()
    want[flat[nan_mask]] = np.nan
    attrs = {"reduction": reduction} | ({"axis": 0} if op == "ScatterElements" else {})
    got = ops.run_op(op, [data, idx, upd_nan], attrs)
    np.testing.assert_array_equal(got.reshape(-1), want)


def test_concurrent_callers():
    """The editor evaluates off the UI thread: concurrent calls must not disturb each other
    (shared thread pool, shared output buffer pool)."""
    import threading

    rng = np.random.default_rng(RNG_SEED + 16)
    jobs = []
    for _ in range(4):
        data = rng.standard_normal((2000, 64)).astype(np.float32)
        idx = _idx(rng, (30000,), 2000)
        jobs.append(("Gather", [data, idx], {"axis": 0}))
        sidx = np.stack([_idx(rng, (100000,), 300), _idx(rng, (100000,), 300)], axis=-1)
        jobs.append(("ScatterND", [rng.integers(0, 9, (300, 300, 8)).astype(np.int64), sidx,
                                   rng.integers(0, 9, (100000, 8)).astype(np.int64)],
                     {"reduction": "add"}))
    wants = [run_ort(op, ins, at) for op, ins, at in jobs]
    results = {}
    errors = []

    def worker(t):
        try:
            for rep in range(3):
                for j, (op, ins, at) in enumerate(jobs):
                    if (j + t) % 2 == 0:
                        results[(t, rep, j)] = ops.run_op(op, ins, at)
        except Exception as exc:  # noqa: BLE001 - a worker thread reports any error below  # pragma: no cover
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors
    assert len(results) == 4 * 3 * len(jobs) // 2
    for (t, rep, j), got in results.items():
        np.testing.assert_array_equal(got, wants[j], err_msg=f"thread {t} rep {rep} job {j}")


@pytest.mark.parametrize("op", ["ScatterElements", "ScatterND"])
@pytest.mark.parametrize("reduction", ["add", "mul", "none"])
def test_bool_scatter_large(threads, op, reduction):
    """bool add/mul are or/and (onnxruntime implements them the same way)."""
    rng = np.random.default_rng(RNG_SEED + 17)
    data = rng.random((600, 600)) < 0.5
    if op == "ScatterElements":
        idx = _idx(rng, (600, 600), 600)
        upd = rng.random((600, 600)) < (0.1 if reduction == "add" else 0.9)
        attrs = {"axis": 1, "reduction": reduction}
    else:
        idx = _idx(rng, (200000, 2), 600)
        upd = rng.random(200000) < (0.1 if reduction == "add" else 0.9)
        attrs = {"reduction": reduction}
    _check(op, [data, idx, upd], attrs)


def test_strings_moderately_large():
    rng = np.random.default_rng(RNG_SEED + 18)
    words = np.array(["", "a", "bc", "déf", "日本", "x y"], dtype=object)
    data = words[rng.integers(0, len(words), (300, 200))]
    # Gather on the last axis only (onnxruntime's string Gather is wrong on inner dims)
    _check("Gather", [data, _idx(rng, (50, 40), 200)], {"axis": 1})
    _check("GatherElements", [data, _idx(rng, (300, 200), 300)], {"axis": 0})
    idx = _idx(rng, (30000, 2), 200)
    idx[:, 0] %= 300
    upd = words[rng.integers(0, len(words), 30000)]
    _check("ScatterND", [data, idx, upd], {"reduction": "add"})  # concatenation, in order
    _check("ScatterND", [data, idx, upd], {"reduction": "none"})


@pytest.mark.parametrize("dtype, reduction", [("float16", "add"), ("bfloat16", "max"),
                                              ("complex64", "add")])
def test_large_reductions_onnxruntime_lacks_vs_reference(dtype, reduction):
    """float16/bfloat16/complex reductions at a size past the threading threshold; onnxruntime
    has none of them, so the (slow) reference is the oracle."""
    from . import reference
    from ._cases import Case
    from ._helpers import assert_same, np_dtype, random_values
    from .test_properties import assert_reduction_close

    before = ops.parallel.threads()
    ops.parallel.set_threads(2)
    try:
        rng = np.random.default_rng(RNG_SEED + 19)
        dt = np_dtype(dtype)
        # 160,000 cells and 180,000 updates: past 2 * MIN_PART either way it is split
        data = random_values(rng, dtype, (400, 400), small=True)
        idx = _idx(rng, (450, 400), 400)
        upd = random_values(rng, dtype, (450, 400), small=True)
        if reduction in ("max", "min"):
            upd = np.where(rng.random(upd.shape) < 0.001, np.nan, upd.astype(np.float32)).astype(dt)
        attrs = {"axis": 0, "reduction": reduction}
        got = ops.scatter_elements(data, idx, upd, axis=0, reduction=reduction)
        if reduction == "add":
            assert got.dtype == dt
            assert_reduction_close(Case("ScatterElements", [data, idx, upd], attrs), got)
        else:
            assert_same(got, reference.scatter_elements(data, idx, upd, 0, reduction))
    finally:
        ops.parallel.set_threads(before)


@pytest.mark.parametrize("n_updates", [50, 300_000])
@pytest.mark.parametrize("op", ["ScatterElements", "ScatterND"])
def test_add_keeps_each_cell_separate(threads, op, n_updates):
    """Huge and infinite values in some cells must not leak into other cells (as they would in
    a prefix-sum segment reduction). Integer-valued floats: every cell's sum is exact in any
    order, so the comparison with onnxruntime is exact."""
    rng = np.random.default_rng(RNG_SEED + 20 + n_updates)
    cells = 1000
    data = rng.integers(-5, 5, cells).astype(np.float32)
    targets = rng.integers(0, cells, n_updates)
    upd = rng.integers(-5, 5, n_updates).astype(np.float32)
    # cell 3 only gets +1e30, cell 7 only -1e30, cell 11 only +inf, cell 13 +inf and -inf
    for cell, values in ((3, [1e30]), (7, [-1e30]), (11, [np.inf]), (13, [np.inf, -np.inf])):
        hits = np.flatnonzero(targets == cell)
        for j, h in enumerate(hits):
            upd[h] = values[j % len(values)]
        if len(values) == 2 and len(hits) < 2:
            targets[:2], upd[:2] = cell, values
    if op == "ScatterElements":
        inputs, attrs = [data, targets.astype(np.int64), upd], {"axis": 0, "reduction": "add"}
    else:
        inputs, attrs = [data, targets.astype(np.int64)[:, None], upd], {"reduction": "add"}
    _check(op, inputs, attrs)


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_gather_elements_rank3_large(threads, axis):
    rng = np.random.default_rng(RNG_SEED + 21 + axis)
    data = rng.standard_normal((60, 70, 80)).astype(np.float32)
    ishape = [50, 60, 70]
    ishape[axis] = 90  # the gathered axis may be longer than data's
    _check("GatherElements", [data, _idx(rng, tuple(ishape), data.shape[axis])],
           {"axis": axis})


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_gather_rank3_2d_indices_large(threads, axis):
    rng = np.random.default_rng(RNG_SEED + 25 + axis)
    data = rng.integers(-99, 99, (60, 70, 80)).astype(np.int16)
    _check("Gather", [data, _idx(rng, (30, 20), data.shape[axis])], {"axis": axis})


def test_forked_child_still_computes():
    """A process forked after ops used its thread pool (multiprocessing on Linux) works."""
    import os
    import signal
    import time

    rng = np.random.default_rng(RNG_SEED + 30)
    data = rng.standard_normal((3000, 64)).astype(np.float32)
    idx = _idx(rng, (40000,), 3000)
    want = run_ort("Gather", [data, idx], {"axis": 0})
    before = ops.parallel.threads()
    ops.parallel.set_threads(2)
    try:
        ops.gather(data, idx, axis=0)  # the pool exists now
        pid = os.fork()
        if pid == 0:  # child
            code = 1
            try:
                got = ops.gather(data, idx, axis=0)
                code = 0 if np.array_equal(got, want) else 2
            finally:
                os._exit(code)
        deadline = time.monotonic() + 60
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail("forked child hung (thread pool inherited from the parent?)")
            time.sleep(0.05)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        ops.parallel.set_threads(before)


@pytest.mark.parametrize("reduction", ["none", "add", "max", "mul"])
@pytest.mark.parametrize("axis", [0, 1, -3])
def test_scatter_elements_rank3_large(threads, axis, reduction):
    """Axes other than the last (applied in column bands), duplicates across bands."""
    rng = np.random.default_rng(RNG_SEED + 31 + axis)
    data = rng.integers(-100, 100, (50, 60, 70)).astype(np.int64)
    ishape = [40, 60, 70]
    ishape[axis] = 80  # more updates than cells along the axis: duplicates everywhere
    ishape[2] = 65  # indices narrower than data on the last axis
    idx = _idx(rng, tuple(ishape), data.shape[axis])
    upd = rng.integers(-100, 100, tuple(ishape)).astype(np.int64)
    _check("ScatterElements", [data, idx, upd], {"axis": axis, "reduction": reduction})


# ---------------------------------------------------------------------------------------------
# medium sizes (a few thousand updates): past the size where ops switches to its compiled or
# banded paths, yet small enough for the slow reference, for every dtype and reduction

MEDIUM_REDUCTIONS = ("none", "add", "mul", "max", "min")


def _medium_case(op, dtype, reduction, variant):
    rng = np.random.default_rng(zlib.crc32(f"{op}-{dtype}-{reduction}-{variant}".encode()))
    small = reduction in ("add", "mul")
    nan = reduction in ("none", "max", "min")
    if op == "ScatterElements":
        shape, ishape, axis = [((64, 80), (72, 80), 0), ((40, 30, 8), (40, 30, 5), 2),
                               ((30, 50, 6), (30, 25, 6), 1)][variant]
        data = random_values(rng, dtype, shape, small=small, nan=nan)
        idx = _idx(rng, ishape, shape[axis])
        upd = random_values(rng, dtype, ishape, small=small, nan=nan)
        return Case(op, [data, idx, upd], {"axis": axis, "reduction": reduction})
    if op == "ScatterND":
        shape, n, k = [((50, 40, 3), 2100, 2), ((700, 2), 2200, 1), ((20, 20, 20), 4200, 3)][
            variant]
        data = random_values(rng, dtype, shape, small=small, nan=nan)
        idx = np.stack([_idx(rng, (n,), shape[j]) for j in range(k)], axis=-1)
        upd = random_values(rng, dtype, (n,) + shape[k:], small=small, nan=nan)
        return Case(op, [data, idx, upd], {"reduction": reduction})
    shape, ishape, axis = [((64, 80), (64, 90), 1), ((20, 30, 40), (20, 30, 10), 2),
                           ((20, 30, 40), (20, 12, 40), 1)][variant]
    data = random_values(rng, dtype, shape, nan=True)
    return Case(op, [data, _idx(rng, ishape, shape[axis])], {"axis": axis})


# every variant for the dtypes the compiled folds handle, one variant for the others
ALL_VARIANTS = ("int8", "uint64", "float32", "float64")
MEDIUM_PARAMS = (
    [("GatherElements", None, dt, v) for dt in CORE_DTYPES for v in range(3)
     if v == 0 or dt in ("int8", "float32")]
    + [(op, r, dt, v) for op in ("ScatterElements", "ScatterND") for r in MEDIUM_REDUCTIONS
       for dt in CORE_DTYPES for v in range(3)
       if v == 0 or (dt in ALL_VARIANTS and r != "none")]
)


@pytest.mark.parametrize("op, reduction, dtype, variant", MEDIUM_PARAMS)
def test_medium_sizes_vs_reference(op, reduction, dtype, variant):
    from .test_properties import check_case

    before = ops.parallel.threads()
    ops.parallel.set_threads(2)
    try:
        check_case(_medium_case(op, dtype, reduction, variant))
    finally:
        ops.parallel.set_threads(before)
