"""Speed of the ops core against onnxruntime and a plain memory copy.

Run as a script (not part of the test suite):

    .venv/bin/python benchmarks/bench_ops.py [--repeat 7] [--only SUBSTRING] [--threads 1,2] [--no-huge]

For each case and thread count it prints the median wall time of ``ops`` (as shipped: with the
optional numba accelerator of :mod:`ops.accel` when it is installed and not switched off),
``ops(numpy)`` (the same call with the accelerator off: the numpy reference path), the best
correct onnxruntime configuration (that many threads, or one), PyTorch's fastest equivalent
when torch is installed (an optional benchmark tool, never a dependency: index_select, gather,
advanced indexing, scatter_, scatter_add_, scatter_reduce_, index_put_/index_copy_; each
checked against ops' result first, on non-negative indices, with ``torch.set_num_threads`` at
the same count), and ``np.copyto`` of the largest operand (input or output), all measured in
this process, then the ratios ops / onnxruntime, ops / torch and ops / copy. It ends with time
against size per op family and the 1-thread / n-thread ratios. The ``1st ms`` column is the
first call of each case in this process: it includes compiling the accelerator's kernels, or
loading them from numba's on-disk cache (``cache=True``). Where multi-threaded onnxruntime is
known to be wrong (ScatterND with duplicate indices loses updates), the ort column is its
one-thread time. Cases marked
``[extra]`` are not among the benchmark cases the ops issue lists; they watch a route that had no
case (GatherElements on axis 0 was 1.7x onnxruntime's time before it ran compiled; indices of
both signs in one row took four times as long as indices of one sign before the elementwise
kernels stopped branching on the sign).

Timing: per case, four phases, each engine in turns with the same copy (so other load on the
machine hits them alike, and the copy evicts the caches before whoever follows it): ops, then
ops(numpy), then torch's equivalents, then onnxruntime's sessions. The phases are separate
because whatever runs between two calls of an engine changes its time: onnxruntime's worker
threads keep spinning for a while after each run and take a core from whatever runs next (with
everything in one rotation, ``--interleaved``, that is charged to ops, e.g. GatherElements 3.3
-> 5.5 ms while onnxruntime's own time does not change), and the numpy path, slow and
allocating, evicts the caches a small call uses, which slowed ops' small calls by a quarter
and torch's by more when either followed it (benchmarks/README.md). With ``--rounds N`` the
phases of each case run N times and each engine keeps its best round (the statistic above,
then the minimum over rounds; the 1e8 cases run one round): the machine's speed drifts by up
to 2x over seconds, and one round can put one engine's phase in a slow moment.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import ops
from ops import accel


@dataclass
class Case:
    name: str
    op: str
    inputs: list
    attrs: dict = field(default_factory=dict)
    ort_multithread_wrong: bool = False
    #: ``(family, elements)`` for the scaling summary: the op family and the elements moved
    scale: tuple[str, int] | None = None
    #: cases of 1e8 elements: skipped (with a note) when the machine cannot hold them
    huge: bool = False


def make_cases(rng: np.random.Generator, huge: bool = True) -> list[Case]:
    f32 = np.float32
    cases = []
    data = rng.standard_normal((100_000, 64)).astype(f32)
    cases.append(Case("Gather axis0 (1e5,64) x 1e6 idx", "Gather", [data, rng.integers(0, 100_000, 1_000_000)],
                      {"axis": 0}, scale=("Gather axis0", 64_000_000)))
    data = rng.standard_normal((1000, 1000)).astype(f32)
    cases.append(Case("Gather axis1 (1000,1000) x 500 idx", "Gather", [data, rng.integers(0, 1000, 500)], {"axis": 1},
                      scale=("Gather inner axis", 500_000)))
    data = rng.standard_normal((2000, 2000)).astype(f32)
    cases.append(Case("GatherElements axis1 (2000,2000)", "GatherElements",
                      [data, rng.integers(0, 2000, (2000, 2000))], {"axis": 1},
                      scale=("GatherElements axis1", 4_000_000)))
    cases.append(Case("GatherElements axis0 (2000,2000) [extra]", "GatherElements",
                      [data, rng.integers(0, 2000, (2000, 2000))], {"axis": 0}))
    data = rng.standard_normal((1000, 1000, 16)).astype(f32)
    cases.append(Case("GatherND (1000,1000,16) x (2e5,2)", "GatherND", [data, rng.integers(0, 1000, (200_000, 2))],
                      scale=("GatherND", 3_200_000)))
    data = rng.standard_normal((2000, 2000)).astype(f32)
    unique_cols = np.argsort(rng.random((2000, 2000)), axis=0)[:1000]
    cases.append(Case("ScatterElements axis0 none, unique", "ScatterElements",
                      [data, unique_cols, rng.standard_normal((1000, 2000)).astype(f32)], {"axis": 0}))
    dup = rng.integers(0, 2000, (2000, 2000))
    upd = rng.standard_normal((2000, 2000)).astype(f32)
    cases.append(Case("ScatterElements axis0 add, dups", "ScatterElements", [data, dup, upd],
                      {"axis": 0, "reduction": "add"}, scale=("ScatterElements add", 4_000_000)))
    cases.append(Case("ScatterElements axis1 max, dups", "ScatterElements", [data, dup, upd],
                      {"axis": 1, "reduction": "max"}))
    data = rng.standard_normal(1_000_000).astype(f32)
    cases.append(Case("ScatterND none (1e6,) x 1e5 unique", "ScatterND",
                      [data, rng.permutation(1_000_000)[:100_000, None], rng.standard_normal(100_000).astype(f32)],
                      scale=("ScatterND none", 1_000_000)))
    data = rng.standard_normal((1000, 1000, 16)).astype(f32)
    idx = rng.integers(0, 1000, (200_000, 2))
    upd = rng.standard_normal((200_000, 16)).astype(f32)
    cases.append(Case("ScatterND add (1000,1000,16) x (2e5,2) dups", "ScatterND", [data, idx, upd],
                      {"reduction": "add"}, ort_multithread_wrong=True))
    cases.append(Case("ScatterND mul (1000,1000,16) x (2e5,2) dups", "ScatterND", [data, idx, upd],
                      {"reduction": "mul"}, ort_multithread_wrong=True))

    # issue #17: an inner axis of a 3-D tensor, small tensors (the editor's), other dtypes, 1e8 elements
    data = rng.standard_normal((64, 256, 64)).astype(f32)
    cases.append(Case("Gather axis2 (64,256,64) x 32 idx", "Gather", [data, rng.integers(0, 64, 32)], {"axis": 2}))
    # elementwise ops on axis 0 of a 3-D tensor with a short last axis (own generator: the cases
    # after it keep the inputs of earlier runs)
    r3 = np.random.default_rng(17)
    cases.append(Case("ScatterElements axis0 add (1000,1000,4) 3-D", "ScatterElements",
                      [r3.standard_normal((1000, 1000, 4)).astype(f32), r3.integers(0, 1000, (1000, 1000, 4)),
                       r3.standard_normal((1000, 1000, 4)).astype(f32)], {"axis": 0, "reduction": "add"}))
    data = rng.standard_normal((100, 100)).astype(f32)
    cases.append(Case("Gather axis1 (100,100) x 50 idx [small]", "Gather", [data, rng.integers(0, 100, 50)],
                      {"axis": 1}, scale=("Gather inner axis", 5_000)))
    data = rng.standard_normal((1000, 10)).astype(f32)
    cases.append(Case("Gather axis0 (1000,10) x 1000 idx [small]", "Gather", [data, rng.integers(0, 1000, 1000)],
                      {"axis": 0}, scale=("Gather axis0", 10_000)))
    data = rng.standard_normal((100_000, 10)).astype(f32)
    cases.append(Case("Gather axis0 (1e5,10) x 1e5 idx", "Gather", [data, rng.integers(0, 100_000, 100_000)],
                      {"axis": 0}, scale=("Gather axis0", 1_000_000)))
    data = rng.standard_normal((100, 100)).astype(f32)
    cases.append(Case("GatherElements axis1 (100,100) [small]", "GatherElements",
                      [data, rng.integers(0, 100, (100, 100))], {"axis": 1}, scale=("GatherElements axis1", 10_000)))
    data = rng.standard_normal((1000, 1000)).astype(f32)
    cases.append(Case("GatherElements axis1 (1000,1000)", "GatherElements",
                      [data, rng.integers(0, 1000, (1000, 1000))], {"axis": 1},
                      scale=("GatherElements axis1", 1_000_000)))
    # indices of both signs in every row (own generator: the cases after it keep their inputs)
    r4 = np.random.default_rng(41)
    pos = r4.integers(0, 1000, (1000, 1000))
    cases.append(Case("GatherElements axis1 (1000,1000) mixed signs [extra]", "GatherElements",
                      [data, np.where(r4.random(pos.shape) < 0.5, pos, pos - 1000)], {"axis": 1}))
    data = rng.standard_normal((20, 20, 16)).astype(f32)
    cases.append(Case("GatherND (20,20,16) x (500,2) [small]", "GatherND", [data, rng.integers(0, 20, (500, 2))],
                      scale=("GatherND", 8_000)))
    data = rng.standard_normal((300, 300, 16)).astype(f32)
    cases.append(Case("GatherND (300,300,16) x (6e4,2)", "GatherND", [data, rng.integers(0, 300, (60_000, 2))],
                      scale=("GatherND", 960_000)))
    data = rng.standard_normal((100, 100)).astype(f32)
    cases.append(Case("ScatterElements axis0 add (100,100) [small]", "ScatterElements",
                      [data, rng.integers(0, 100, (100, 100)), rng.standard_normal((100, 100)).astype(f32)],
                      {"axis": 0, "reduction": "add"}, scale=("ScatterElements add", 10_000)))
    data = rng.standard_normal((1000, 1000)).astype(f32)
    cases.append(Case("ScatterElements axis0 add (1000,1000)", "ScatterElements",
                      [data, rng.integers(0, 1000, (1000, 1000)), rng.standard_normal((1000, 1000)).astype(f32)],
                      {"axis": 0, "reduction": "add"}, scale=("ScatterElements add", 1_000_000)))
    data = rng.standard_normal((100, 100)).astype(f32)
    unique_cols = np.argsort(rng.random((100, 100)), axis=1)[:, :50]
    # the editor's tensors are C-contiguous (every op and source makes its own); a strided slice
    # of a larger index array, which ops copies before its kernel, is the second case
    cases.append(Case("ScatterElements axis1 none (100,100) [small]", "ScatterElements",
                      [data, np.ascontiguousarray(unique_cols), rng.standard_normal((100, 50)).astype(f32)],
                      {"axis": 1}))
    cases.append(Case("ScatterElements axis1 none strided idx [small]", "ScatterElements",
                      [data, unique_cols, rng.standard_normal((100, 50)).astype(f32)], {"axis": 1}))
    data = rng.standard_normal(10_000).astype(f32)
    cases.append(Case("ScatterND none (1e4,) x 1e3 unique [small]", "ScatterND",
                      [data, rng.permutation(10_000)[:1000, None], rng.standard_normal(1000).astype(f32)],
                      scale=("ScatterND none", 10_000)))
    data = rng.standard_normal(100_000_000 // 16).astype(f32)
    cases.append(Case("ScatterND none (6.25e6,) x 6e5 unique", "ScatterND",
                      [data, rng.permutation(data.size)[:600_000, None], rng.standard_normal(600_000).astype(f32)],
                      scale=("ScatterND none", data.size)))
    data = rng.standard_normal((20, 20, 16)).astype(f32)
    cases.append(Case("ScatterND add (20,20,16) x (500,2) [small]", "ScatterND",
                      [data, rng.integers(0, 20, (500, 2)), rng.standard_normal((500, 16)).astype(f32)],
                      {"reduction": "add"}, ort_multithread_wrong=True))
    for dtype in (np.float16, np.int64, np.bool_):
        name = np.dtype(dtype).name
        data = _values(rng, (100_000, 64), dtype)
        cases.append(Case(f"Gather axis0 (1e5,64) {name} x 2e5 idx", "Gather",
                          [data, rng.integers(0, 100_000, 200_000)], {"axis": 0}))
        data = _values(rng, (2000, 2000), dtype)
        cases.append(Case(f"ScatterElements axis0 none {name}, unique", "ScatterElements",
                          [data, np.argsort(rng.random((2000, 2000)), axis=0)[:1000],
                           _values(rng, (1000, 2000), dtype)], {"axis": 0}))
    if huge:
        data = rng.standard_normal((1_000_000, 100)).astype(f32)
        cases.append(Case("Gather axis0 (1e6,100) x 1e6 idx [1e8]", "Gather",
                          [data, rng.integers(0, 1_000_000, 1_000_000)], {"axis": 0},
                          scale=("Gather axis0", 100_000_000), huge=True))
        data = rng.standard_normal((10_000, 10_000)).astype(f32)
        cases.append(Case("ScatterElements axis0 add (1e4,1e4) [1e8]", "ScatterElements",
                          [data, rng.integers(0, 10_000, (10_000, 10_000)),
                           rng.standard_normal((10_000, 10_000)).astype(f32)], {"axis": 0, "reduction": "add"},
                          scale=("ScatterElements add", 100_000_000), huge=True))
    return cases


def _values(rng: np.random.Generator, shape: tuple, dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(-1000, 1000, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


#: Bytes the 1e8-element cases need at most at once (inputs, the three engines' outputs, the copy).
HUGE_BYTES = 6 << 30


def _normalised(case: Case) -> list:
    """The case's inputs with negative indices made non-negative (torch rejects negatives)."""
    inputs = list(case.inputs)
    data = inputs[0]
    if case.op in ("Gather", "GatherElements", "ScatterElements", "Scatter"):
        axis = case.attrs.get("axis", 0) % data.ndim
        idx = inputs[1]
        inputs[1] = np.where(idx < 0, idx + data.shape[axis], idx) if (idx < 0).any() else idx
    elif case.op in ("GatherND", "ScatterND"):
        idx = inputs[1]
        limits = np.array(data.shape[: idx.shape[-1]])
        inputs[1] = np.where(idx < 0, idx + limits, idx) if (idx < 0).any() else idx
    return inputs


def torch_candidates(case: Case) -> dict[str, Callable[[], object]]:
    """PyTorch's equivalents of ``case`` (on the normalised inputs, as torch tensors sharing
    memory with them), by name; the caller checks each against ops and times the fastest."""
    import torch

    # the same memory layout ops gets (a strided index slice stays strided): torch.from_numpy
    # takes any non-negative strides, so only a negatively strided view is copied
    t = [torch.from_numpy(a if all(s >= 0 for s in a.strides) else np.ascontiguousarray(a))
         for a in map(np.asarray, _normalised(case))]
    data, idx = t[0], t[1]
    axis = case.attrs.get("axis", 0) % data.ndim
    reduction = case.attrs.get("reduction", "none")
    if case.op == "Gather":
        shape = tuple(data.shape[:axis]) + tuple(idx.shape) + tuple(data.shape[axis + 1:])
        flat = idx.reshape(-1)
        return {"index_select": lambda: torch.index_select(data, axis, flat).reshape(shape)}
    if case.op == "GatherElements":
        return {"gather": lambda: torch.gather(data, axis, idx)}
    if case.op == "GatherND":
        cols = tuple(idx[..., c] for c in range(idx.shape[-1]))
        return {"advanced indexing": lambda: data[cols]}
    upd = t[2]
    if case.op in ("ScatterElements", "Scatter"):
        if reduction == "none":
            return {"scatter_": lambda: data.clone().scatter_(axis, idx, upd)}
        if reduction == "add":
            return {"scatter_add_": lambda: data.clone().scatter_add_(axis, idx, upd)}
        name = {"mul": "prod", "max": "amax", "min": "amin"}[reduction]
        return {f"scatter_reduce_({name})": lambda: data.clone().scatter_reduce_(axis, idx, upd, name)}
    if case.op == "ScatterND":
        k = idx.shape[-1]
        cols = tuple(idx[..., c] for c in range(k))
        block = data[(0,) * k].numel()
        if reduction == "none":
            out = {"index_put_": lambda: data.clone().index_put_(cols, upd)}
            if k == 1 and idx.ndim == 2:
                out["index_copy_"] = lambda: data.clone().index_copy_(0, cols[0], upd)
            return out
        if reduction == "add":
            return {"index_put_(accumulate)": lambda: data.clone().index_put_(cols, upd, accumulate=True)}
        name = {"mul": "prod", "max": "amax", "min": "amin"}[reduction]
        strides = [int(np.prod(data.shape[c + 1:k])) for c in range(k)]

        def reduce_rows():
            rows = sum(col * s for col, s in zip(cols, strides, strict=True)).reshape(-1, 1).expand(-1, block)
            out = data.clone()
            out.view(-1, block).scatter_reduce_(0, rows, upd.reshape(-1, block), name)
            return out

        return {f"scatter_reduce_({name})": reduce_rows}
    return {}


STAT = statistics.median
#: ``--gap-ms``: seconds of idle time before each timed call (0: calls back to back). The
#: editor's calls come one per edit, after the engine's worker threads have gone to sleep and
#: the cores have idled; torch's OpenMP workers and onnxruntime's spin for milliseconds after a
#: run, ops' pool threads do not, so back-to-back and after-a-pause times can rank differently.
GAP = 0.0


def interleaved_times(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median (or best, ``--stat min``) time of each function, timed in turns after one warm-up
    each, so a burst of other load on the machine hits every contender alike instead of
    whichever happened to be running; the order rotates every turn, so no contender always runs
    right after the one that evicted the caches. With ``--gap-ms``, each timed call comes after
    that much idle time (:data:`GAP`)."""
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    for turn in range(repeat):
        # rotate who goes first: whoever follows the large copy finds the caches cold
        for name in names[turn % len(names):] + names[: turn % len(names)]:
            if GAP:
                time.sleep(GAP)
            t0 = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t0)
    return {name: STAT(ts) for name, ts in times.items()}


#: ``--ort-no-spin``: onnxruntime's worker threads sleep as soon as a run ends.
ORT_SPIN = True


def ort_session(case: Case, threads: int | None):
    import onnxruntime as ort
    from onnx import helper

    names = [p.name for p in ops.get_schema(case.op).inputs][: len(case.inputs)]
    graph_inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(np.asarray(a).dtype),
                                                  list(np.shape(a)))
                    for n, a in zip(names, case.inputs, strict=True)]
    out = helper.make_tensor_value_info("output", helper.np_dtype_to_tensor_dtype(case.inputs[0].dtype), None)
    node = helper.make_node(case.op, names, ["output"], **case.attrs)
    model = helper.make_model(helper.make_graph([node], "bench", graph_inputs, [out]),
                              opset_imports=[helper.make_opsetid("", 18)])
    so = ort.SessionOptions()
    if not ORT_SPIN:
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if threads is not None:
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = threads
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    feed = dict(zip(names, case.inputs, strict=True))
    return lambda: sess.run(None, feed)[0]


def _matches(case: Case, got, expected: np.ndarray) -> bool:
    """``got`` equals ops' result: exactly, except float add/mul (another summation order)."""
    got = got.numpy() if hasattr(got, "numpy") else np.asarray(got)
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return False
    if case.attrs.get("reduction", "none") in ("add", "mul") and expected.dtype.kind == "f":
        return bool(np.allclose(got, expected, rtol=1e-4, atol=1e-4))
    return got.tobytes() == expected.tobytes()


def _round_times(run, run_numpy, copy, torch_fns: dict, ort_fns: dict, repeat: int, args) -> tuple[dict, dict]:
    """One round of a case at one thread count: the times of ops, numpy, the copy and
    onnxruntime's sessions (``ort1``, ``ort``), and, apart, torch's candidates (``torch <route>``):
    in phases (ops with the copy, then numpy, then torch, then onnxruntime, each with the copy)
    or, with ``--interleaved``, all in one rotation."""
    if not args.phases:
        times = interleaved_times({"ops": run, "numpy": run_numpy, "copy": copy, **torch_fns, **ort_fns}, repeat)
        return ({k: v for k, v in times.items() if not k.startswith("torch ")},
                {k: v for k, v in times.items() if k.startswith("torch ")})
    if args.numpy_beside_ops:
        times = interleaved_times({"ops": run, "numpy": run_numpy, "copy": copy}, repeat)
    else:
        times = interleaved_times({"ops": run, "copy": copy}, repeat)
        times["numpy"] = interleaved_times({"numpy": run_numpy, "copy": copy}, repeat)["numpy"]
    tt = {}
    if torch_fns:
        tt = interleaved_times({**torch_fns, "copy": copy}, repeat)
        tt.pop("copy")
    if ort_fns:
        ot = interleaved_times({**ort_fns, "copy": copy}, repeat)
        times.update({k: v for k, v in ot.items() if k != "copy"})
    return times, tt


def _best_of(best: dict, new: dict) -> dict:
    """Per name, the smaller of two rounds' times (``--rounds``: each engine's best round)."""
    return {k: min(v, best.get(k, v)) for k, v in new.items()}


def _available_bytes() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _repeats(first: float, repeat: int) -> int:
    """More turns for fast cases (a call of 50 us is timed a few hundred times)."""
    return int(min(max(repeat, 0.25 / max(first, 1e-6)), 301))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="turns per engine (at least; fast cases take more)")
    parser.add_argument("--only", default="")
    parser.add_argument("--threads", default="1,2",
                        help="comma-separated thread counts: ops (ops.parallel.set_threads), torch "
                             "(torch.set_num_threads) and onnxruntime's multi-threaded session all use each")
    parser.add_argument("--stat", choices=("median", "min"), default="median",
                        help="median (default) or min: the best run, less sensitive to other load on the machine")
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat each case's phases (or rotation) this many times and keep each engine's best "
                             "round: on a machine whose speed drifts, every engine then gets its quiet moment")
    parser.add_argument("--no-ort", action="store_true", help="skip onnxruntime")
    parser.add_argument("--no-torch", action="store_true", help="skip PyTorch (skipped anyway when not installed)")
    parser.add_argument("--no-huge", action="store_true", help="skip the 1e8-element cases")
    parser.add_argument("--interleaved", dest="phases", action="store_false",
                        help="time ops, onnxruntime, torch and the copy in one rotation (onnxruntime's spinning "
                             "threads then slow ops' next run)")
    parser.add_argument("--phases", dest="phases", action="store_true", default=True,
                        help="(the default) per case, time ops/copy, then numpy/copy, then torch/copy, then "
                             "onnxruntime/copy: idle worker threads spin after each run and slow whatever runs "
                             "next, which --interleaved charges to ops")
    parser.add_argument("--numpy-beside-ops", action="store_true",
                        help="time ops and ops(numpy) in one phase (ops/numpy/copy), as the tables in "
                             "benchmarks/README.md before 2026-12-02 (second session) did: the numpy path "
                             "evicts the caches before ops' next call")
    parser.add_argument("--ort-no-spin", action="store_true",
                        help="onnxruntime sessions with session.intra_op.allow_spinning=0 (a diagnostic: with "
                             "--interleaved it shows how much of ops' time is onnxruntime's spinning threads)")
    parser.add_argument("--gap-ms", type=float, default=0.0,
                        help="idle milliseconds before each timed call, as between the editor's runs "
                             "(default 0: back to back); 50 lets every engine's worker threads stop spinning")
    args = parser.parse_args(argv)
    global STAT, ORT_SPIN, GAP
    GAP = max(0.0, args.gap_ms) / 1e3
    ORT_SPIN = not args.ort_no_spin
    STAT = min if args.stat == "min" else statistics.median
    thread_counts = [int(n) for n in args.threads.split(",")]
    torch = None
    if not args.no_torch:
        try:
            import torch
        except ImportError:
            print("# PyTorch not installed: no torch column (pip install torch to compare)")
    huge = not args.no_huge
    if huge and _available_bytes() < HUGE_BYTES:
        print(f"# the 1e8-element cases are skipped: {_available_bytes() / 2**30:.1f} GiB available, "
              f"they need about {HUGE_BYTES / 2**30:.0f} GiB")
        huge = False
    rng = np.random.default_rng(0)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {os.cpu_count()} CPUs, load average {load:.2f} at start; {args.stat} of at least {args.repeat} "
          f"interleaved runs (fast cases more)"
          + (("; ops, numpy, torch and onnxruntime timed in separate phases" if not args.numpy_beside_ops
              else "; ops and numpy, torch, onnxruntime timed in separate phases") if args.phases
             else "; all in one rotation")
          + (f"; each engine's best of {args.rounds} rounds (the 1e8 cases one)" if args.rounds > 1 else "")
          + ("; onnxruntime threads do not spin" if args.ort_no_spin else "")
          + (f"; {args.gap_ms:g} ms idle before each timed call" if GAP else ""))
    t0 = time.perf_counter()
    on = accel.enabled()  # imports numba (once per process)
    compiler = "numba " + __import__("numba").__version__ if accel.available() else "numba not installed"
    switched_off = "; INDEXFLOW_ACCEL=0" if accel.available() and not on else ""
    print(f"# accelerator: {'on' if on else 'off'} ({compiler}{switched_off}), "
          f"import {1e3 * (time.perf_counter() - t0):.0f} ms; "
          f"ops = default path, numpy = ops(numpy), the accelerator off; "
          f"torch {torch.__version__ if torch else '-'}; ort = best correct of onnxruntime with the thread count "
          f"and with one thread")
    header = (f"{'case':46} {'thr':>3} {'ops ms':>8} {'numpy ms':>8} {'ort ms':>8} {'torch ms':>8} {'copy ms':>8} "
              f"{'ops/ort':>7} {'ops/tch':>7} {'ops/copy':>8} {'1st ms':>7}  torch route")
    print(header)
    print("-" * len(header))
    results = []
    for case in make_cases(rng, huge):
        if args.only and args.only.lower() not in case.name.lower():
            continue
        run = partial(ops.run_op, case.op, case.inputs, case.attrs)

        def run_numpy(c=case):
            previous = accel.set_enabled(False)
            try:
                return ops.run_op(c.op, c.inputs, c.attrs)
            finally:
                accel.set_enabled(previous)

        t0 = time.perf_counter()
        expected = run()
        t_first = time.perf_counter() - t0
        reference = run_numpy()
        assert expected.tobytes() == reference.tobytes(), f"{case.name}: accelerated result differs from the numpy path"
        del reference
        largest = max([np.asarray(a) for a in case.inputs] + [expected], key=lambda a: a.nbytes)
        scratch = np.empty_like(largest)
        copy = partial(np.copyto, scratch, largest)
        t0 = time.perf_counter()
        run()
        repeat = _repeats(time.perf_counter() - t0, args.repeat)
        if case.huge:
            repeat = min(repeat, 5)  # seconds per turn: five turns of each engine
        torch_fns, torch_notes = {}, []
        if torch is not None:
            for name, fn in torch_candidates(case).items():
                try:
                    ok = _matches(case, fn(), expected)
                except (RuntimeError, TypeError) as exc:
                    torch_notes.append(f"{name}: {str(exc).splitlines()[0][:60]}")
                    continue
                if ok:
                    torch_fns["torch " + name] = fn
                else:
                    torch_notes.append(f"{name} differs from ops")
        ort_one = None
        if not args.no_ort:
            ort_one = ort_session(case, 1)
            if not _matches(case, ort_one(), expected):
                raise AssertionError(f"{case.name}: onnxruntime differs from ops")
        for n in thread_counts:
            ops.parallel.set_threads(n)
            if torch is not None:
                torch.set_num_threads(n)
            ort_fns = {}
            if ort_one is not None:
                ort_fns = {"ort1": ort_one}
                if n > 1:
                    ort_fns["ort"] = ort_session(case, n)
            times, tt = {}, {}
            for _ in range(1 if case.huge else args.rounds):  # a 1e8 case's round takes minutes
                t_round, tt_round = _round_times(run, run_numpy, copy, torch_fns, ort_fns, repeat, args)
                times = _best_of(times, t_round)
                tt = _best_of(tt, tt_round)
            t_torch, route = float("nan"), "; ".join(torch_notes) or "-"
            if torch_fns:
                best_torch = min(tt, key=tt.get)
                t_torch, route = tt[best_torch], best_torch[len("torch "):]
            t_ops, t_copy = times["ops"], times["copy"]
            t_ort1 = times.get("ort1", float("nan"))
            t_ortn = times.get("ort", float("nan"))
            t_ort = t_ort1 if case.ort_multithread_wrong or n == 1 else min(t_ortn, t_ort1)
            mark = "*" if case.ort_multithread_wrong and n > 1 else " "
            print(f"{case.name:46} {n:3d} {t_ops*1e3:8.3f} {times['numpy']*1e3:8.3f} {t_ort*1e3:8.3f}{mark}"
                  f"{t_torch*1e3:8.3f} {t_copy*1e3:8.3f} {t_ops/t_ort:7.2f} {t_ops/t_torch:7.2f} "
                  f"{t_ops/t_copy:8.2f} {t_first*1e3:7.1f}  {route}", flush=True)
            results.append({"case": case.name, "threads": n, "ops": t_ops, "numpy": times["numpy"], "ort": t_ort,
                            "torch": t_torch, "copy": t_copy, "scale": case.scale})
            ort_fns.clear()
        del expected, scratch, largest, torch_fns, ort_one
        case.inputs.clear()
    print("\n* multi-threaded onnxruntime loses updates on duplicate ScatterND indices; the ort column is one thread.")
    _summaries(results, thread_counts)
    return 0


def _summaries(results: list[dict], thread_counts: list[int]) -> None:
    """Scaling (time against size per op family) and threads (1 against n)."""
    families: dict[str, list[dict]] = {}
    for r in results:
        if r["scale"] is not None:
            families.setdefault(r["scale"][0], []).append(r)
    if families:
        print("\n# scaling: ops ms and ns per element moved, by size (columns: threads)")
        for family, rows in families.items():
            cells = []
            for size in sorted({r["scale"][1] for r in rows}):
                per = {r["threads"]: r["ops"] for r in rows if r["scale"][1] == size}
                cells.append(f"{size:.0e}: " + " / ".join(f"{per[n]*1e3:.3g} ms ({per[n]/size*1e9:.2f} ns)"
                                                          for n in thread_counts if n in per))
            print(f"{family:24} " + "; ".join(cells))
    if len(thread_counts) > 1:
        a, b = thread_counts[0], thread_counts[-1]
        print(f"\n# threads: time with {a} / time with {b} (ops, torch, onnxruntime best)")
        by_case: dict[str, dict[int, dict]] = {}
        for r in results:
            by_case.setdefault(r["case"], {})[r["threads"]] = r
        for name, per in by_case.items():
            if a in per and b in per:
                print(f"{name:46} " + "  ".join(f"{k} {per[a][k] / per[b][k]:5.2f}" for k in ("ops", "torch", "ort")))


if __name__ == "__main__":
    raise SystemExit(main())
