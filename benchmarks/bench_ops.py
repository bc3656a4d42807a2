"""Speed of the ops core against onnxruntime and a plain memory copy.

Run as a script (not part of the test suite):

    .venv/bin/python benchmarks/bench_ops.py [--repeat 7] [--only SUBSTRING]

For each case it prints the median wall time of ``ops`` (as shipped: with the optional numba
accelerator of :mod:`ops.accel` when it is installed and not switched off), ``ops(numpy)`` (the
same call with the accelerator off: the numpy reference path), onnxruntime with its default
threads, onnxruntime with one thread, and ``np.copyto`` of the largest operand (input or output),
all measured in this process, then the ratio ops / best correct onnxruntime and ops / copy (both
for the default ``ops``). The ``1st ms`` column is the first call of each case in this process: it
includes compiling the accelerator's kernels, or loading them from numba's on-disk cache
(``cache=True``). Where multi-threaded onnxruntime is known to be wrong (ScatterND with duplicate
indices loses updates), its time is shown but the ratio uses the one-thread time. Cases marked
``[extra]`` are not among the benchmark cases the ops issue lists; they watch a route that had no
case (GatherElements on axis 0 was 1.7x onnxruntime's time before it ran compiled).

Timing: per case, two phases. First ops, ops(numpy) and the copy run in turns (so other load
on the machine hits them alike, and the copy evicts the caches before whoever follows it);
then onnxruntime's two sessions with the same copy. The phases are separate because
onnxruntime's worker threads keep spinning for a while after each run and take a core from
whatever runs next: with everything in one rotation (``--interleaved``) that is charged to
ops, e.g. GatherElements 3.3 -> 5.5 ms while onnxruntime's own time does not change.
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


def make_cases(rng: np.random.Generator) -> list[Case]:
    f32 = np.float32
    cases = []
    data = rng.standard_normal((100_000, 64)).astype(f32)
    cases.append(Case("Gather axis0 (1e5,64) x 1e6 idx", "Gather", [data, rng.integers(0, 100_000, 1_000_000)],
                      {"axis": 0}))
    data = rng.standard_normal((1000, 1000)).astype(f32)
    cases.append(Case("Gather axis1 (1000,1000) x 500 idx", "Gather", [data, rng.integers(0, 1000, 500)], {"axis": 1}))
    data = rng.standard_normal((2000, 2000)).astype(f32)
    cases.append(Case("GatherElements axis1 (2000,2000)", "GatherElements",
                      [data, rng.integers(0, 2000, (2000, 2000))], {"axis": 1}))
    cases.append(Case("GatherElements axis0 (2000,2000) [extra]", "GatherElements",
                      [data, rng.integers(0, 2000, (2000, 2000))], {"axis": 0}))
    data = rng.standard_normal((1000, 1000, 16)).astype(f32)
    cases.append(Case("GatherND (1000,1000,16) x (2e5,2)", "GatherND", [data, rng.integers(0, 1000, (200_000, 2))]))
    data = rng.standard_normal((2000, 2000)).astype(f32)
    unique_cols = np.argsort(rng.random((2000, 2000)), axis=0)[:1000]
    cases.append(Case("ScatterElements axis0 none, unique", "ScatterElements",
                      [data, unique_cols, rng.standard_normal((1000, 2000)).astype(f32)], {"axis": 0}))
    dup = rng.integers(0, 2000, (2000, 2000))
    upd = rng.standard_normal((2000, 2000)).astype(f32)
    cases.append(Case("ScatterElements axis0 add, dups", "ScatterElements", [data, dup, upd],
                      {"axis": 0, "reduction": "add"}))
    cases.append(Case("ScatterElements axis1 max, dups", "ScatterElements", [data, dup, upd],
                      {"axis": 1, "reduction": "max"}))
    data = rng.standard_normal(1_000_000).astype(f32)
    cases.append(Case("ScatterND none (1e6,) x 1e5 unique", "ScatterND",
                      [data, rng.permutation(1_000_000)[:100_000, None], rng.standard_normal(100_000).astype(f32)]))
    data = rng.standard_normal((1000, 1000, 16)).astype(f32)
    idx = rng.integers(0, 1000, (200_000, 2))
    upd = rng.standard_normal((200_000, 16)).astype(f32)
    cases.append(Case("ScatterND add (1000,1000,16) x (2e5,2) dups", "ScatterND", [data, idx, upd],
                      {"reduction": "add"}, ort_multithread_wrong=True))
    cases.append(Case("ScatterND mul (1000,1000,16) x (2e5,2) dups", "ScatterND", [data, idx, upd],
                      {"reduction": "mul"}, ort_multithread_wrong=True))
    return cases


STAT = statistics.median


def interleaved_times(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median (or best, ``--stat min``) time of each function, timed in turns after one warm-up
    each, so a burst of other load on the machine hits every contender alike instead of
    whichever happened to be running; the order rotates every turn, so no contender always runs
    right after the one that evicted the caches."""
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    names = list(fns)
    for turn in range(repeat):
        # rotate who goes first: whoever follows the large copy finds the caches cold
        for name in names[turn % len(names):] + names[: turn % len(names)]:
            t0 = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t0)
    return {name: STAT(ts) for name, ts in times.items()}


#: ``--ort-no-spin``: onnxruntime's worker threads sleep as soon as a run ends.
ORT_SPIN = True


def ort_session(case: Case, threads: int | None):
    import onnx
    import onnxruntime as ort
    from onnx import helper

    names = [p.name for p in ops.get_schema(case.op).inputs][: len(case.inputs)]
    elem = {np.dtype(np.float32): onnx.TensorProto.FLOAT, np.dtype(np.int64): onnx.TensorProto.INT64}
    graph_inputs = [helper.make_tensor_value_info(n, elem[np.asarray(a).dtype], list(np.shape(a)))
                    for n, a in zip(names, case.inputs, strict=True)]
    out = helper.make_tensor_value_info("output", onnx.TensorProto.FLOAT, None)
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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", default="")
    parser.add_argument("--stat", choices=("median", "min"), default="median",
                        help="median (default) or min: the best run, less sensitive to other load on the machine")
    parser.add_argument("--no-ort", action="store_true", help="skip onnxruntime (ops and copy only)")
    parser.add_argument("--interleaved", dest="phases", action="store_false",
                        help="time ops, onnxruntime and the copy in one rotation (onnxruntime's spinning "
                             "threads then slow ops' next run)")
    parser.add_argument("--phases", dest="phases", action="store_true", default=True,
                        help="(the default) per case, time ops/numpy/copy before any onnxruntime session exists, then "
                             "onnxruntime/copy: its idle threads spin after each run and slow whatever runs next, "
                             "which --interleaved charges to ops")
    parser.add_argument("--ort-no-spin", action="store_true",
                        help="onnxruntime sessions with session.intra_op.allow_spinning=0 (a diagnostic: with "
                             "--interleaved it shows how much of ops' time is onnxruntime's spinning threads)")
    args = parser.parse_args(argv)
    global STAT, ORT_SPIN
    ORT_SPIN = not args.ort_no_spin
    STAT = min if args.stat == "min" else statistics.median
    rng = np.random.default_rng(0)
    header = (f"{'case':46} {'ops ms':>8} {'numpy ms':>8} {'ort ms':>8} {'ort1 ms':>8} {'copy ms':>8} "
              f"{'ops/ort':>8} {'ops/copy':>8} {'1st ms':>8}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# {os.cpu_count()} CPUs, load average {load:.2f} at start; {args.stat} of {args.repeat} interleaved runs"
          + ("; ops and onnxruntime timed in separate phases" if args.phases else "; all in one rotation")
          + ("; onnxruntime threads do not spin" if args.ort_no_spin else ""))
    t0 = time.perf_counter()
    on = accel.enabled()  # imports numba (once per process)
    compiler = "numba " + __import__("numba").__version__ if accel.available() else "numba not installed"
    switched_off = "; INDEXFLOW_ACCEL=0" if accel.available() and not on else ""
    print(f"# accelerator: {'on' if on else 'off'} ({compiler}{switched_off}), "
          f"import {1e3 * (time.perf_counter() - t0):.0f} ms; "
          f"ops = default path, numpy = ops(numpy), the accelerator off")
    print(header)
    print("-" * len(header))
    for case in make_cases(rng):
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
        fns = {"ops": run, "numpy": run_numpy, "copy": partial(np.copyto, scratch, largest)}
        times = interleaved_times(fns, args.repeat) if args.phases else {}
        if not args.no_ort:
            ort_default, ort_one = ort_session(case, None), ort_session(case, 1)
            if case.attrs.get("reduction", "none") in ("none", "max", "min"):
                np.testing.assert_array_equal(ort_one(), expected)
            else:
                np.testing.assert_allclose(ort_one(), expected, rtol=1e-4, atol=1e-4)
            ort_fns = {"ort": ort_default, "ort1": ort_one}
            if args.phases:
                # the copy runs in this phase too, so onnxruntime meets the same evicted caches
                ort_times = interleaved_times({**ort_fns, "copy": fns["copy"]}, args.repeat)
                times.update(ort=ort_times["ort"], ort1=ort_times["ort1"])
            else:
                fns.update(ort_fns)
            del ort_default, ort_one
        if not args.phases:
            times = interleaved_times(fns, args.repeat)
        t_ops, t_copy = times["ops"], times["copy"]
        t_ort, t_ort1 = times.get("ort", float("nan")), times.get("ort1", float("nan"))
        best = t_ort1 if case.ort_multithread_wrong else min(t_ort, t_ort1)
        mark = "*" if case.ort_multithread_wrong else " "
        print(f"{case.name:46} {t_ops*1e3:8.2f} {times['numpy']*1e3:8.2f} {t_ort*1e3:8.2f}{mark}{t_ort1*1e3:8.2f} "
              f"{t_copy*1e3:8.2f} {t_ops/best:8.2f} {t_ops/t_copy:8.2f} {t_first*1e3:8.1f}", flush=True)
    print("\n* multi-threaded onnxruntime loses updates on duplicate ScatterND indices; ratio uses one thread.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
