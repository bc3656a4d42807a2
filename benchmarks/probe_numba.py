"""How much a compiled kernel (numba) would buy over the numpy paths of ``ops``: a probe, not a
product path. ``ops`` now has one (ops/accel.py, the ``fast`` extra); this script measured whether
an optional accelerator would be worth adding (the issue allows one, with the numpy path kept as
the reference).

    .venv/bin/python benchmarks/probe_numba.py            # needs numba importable
    PYTHONPATH=/some/dir/with/numba .venv/bin/python benchmarks/probe_numba.py

It times, on the benchmark shapes (float32, int64 indices), the inner loop onnxruntime runs:
GatherElements on the last axis, ScatterElements max on the last axis (sequential fold per
row, numpy's maximum semantics), and the ScatterND add fold (no output copy), each checked
against ``ops``. Compile time of the first call is printed separately. The kernels are
single-threaded on purpose: numba's parallel loops spin-wait and, on a machine shared with
other work, came out slower than serial (7.4 vs 1.3 ms for the same GatherElements).
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ops

try:
    from numba import njit
except ImportError:  # pragma: no cover - probe only
    raise SystemExit("numba is not importable; install it somewhere and put it on PYTHONPATH") from None


@njit
def gather_elements_last(data, idx, out):
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[i, j] = data[i, idx[i, j]]


@njit
def scatter_max_last(out, idx, upd):
    for i in range(idx.shape[0]):  # rows are independent destinations: prange would be safe
        for j in range(idx.shape[1]):
            k, v = idx[i, j], upd[i, j]
            c = out[i, k]
            out[i, k] = c if (c >= v or np.isnan(c)) else v  # numpy's scalar maximum, branch-free


@njit
def scatter_add_rows(out, rows, upd):
    for i in range(rows.shape[0]):
        r = rows[i]
        for b in range(upd.shape[1]):
            out[r, b] += upd[i, b]


def best(fn, repeat=9) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times) * 1e3, statistics.median(times) * 1e3


def main() -> int:
    rng = np.random.default_rng(0)
    data = rng.standard_normal((2000, 2000)).astype(np.float32)
    idx = rng.integers(0, 2000, (2000, 2000))
    upd = rng.standard_normal((2000, 2000)).astype(np.float32)
    out = np.empty_like(data)
    t0 = time.perf_counter()
    gather_elements_last(data, idx, out)
    print(f"compile gather_elements_last: {time.perf_counter() - t0:.2f} s")
    assert np.array_equal(out, ops.gather_elements(data, idx, 1))
    print("GatherElements axis1   numba {:.2f} / {:.2f} ms   ops {:.2f} / {:.2f} ms  (min / median)"
          .format(*best(lambda: gather_elements_last(data, idx, out)),
                  *best(lambda: ops.gather_elements(data, idx, 1))))

    o2 = np.empty_like(data)  # reused output, as ops.buffers does: no page faults

    def numba_max():
        np.copyto(o2, data)
        scatter_max_last(o2, idx, upd)
        return o2

    assert np.array_equal(numba_max(), ops.scatter_elements(data, idx, upd, 1, "max"))
    print("ScatterElements max ax1 numba {:.2f} / {:.2f} ms   ops {:.2f} / {:.2f} ms  (with output copy)"
          .format(*best(numba_max), *best(lambda: ops.scatter_elements(data, idx, upd, 1, "max"))))

    d3 = rng.standard_normal((1000, 1000, 16)).astype(np.float32)
    i3 = rng.integers(0, 1000, (200_000, 2))
    u3 = rng.standard_normal((200_000, 16)).astype(np.float32)
    rows = i3[:, 0] * 1000 + i3[:, 1]

    o3 = np.empty_like(d3)

    def numba_add():
        np.copyto(o3, d3)
        scatter_add_rows(o3.reshape(-1, 16), rows, u3)
        return o3

    assert np.array_equal(numba_add(), ops.scatter_nd(d3, i3, u3, "add"))  # same order: bit-identical
    print("ScatterND add           numba {:.2f} / {:.2f} ms   ops {:.2f} / {:.2f} ms  (with output copy)"
          .format(*best(numba_add), *best(lambda: ops.scatter_nd(d3, i3, u3, "add"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
