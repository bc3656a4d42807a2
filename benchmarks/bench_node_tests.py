"""ONNX's node-test suite (every case, 1,884 in onnx 1.23) through IndexFlow's backend,
onnxruntime (one thread), ``onnx.reference`` and the unedited import-export round trip.

Run as a script (``tests/onnx_io/test_node_suite.py`` asserts the same of every case; this
counts and times them):

    .venv/bin/python benchmarks/bench_node_tests.py [--only indexflow,roundtrip] [--json OUT.json]
        [--match SUBSTRING] [--slowest 20]

It prints, per way, how many cases pass and how long they took, then the union of
onnxruntime and the reference, the cases IndexFlow fails that one of them passes, and the
slowest cases. The round trip counts only the cases onnxruntime passes on the original model.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.onnx_io.node_suite import RUNNERS, load_cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="onnxruntime,reference,indexflow,roundtrip")
    parser.add_argument("--json", help="write every failure and time to this file")
    parser.add_argument("--match", help="only cases whose name holds this text")
    parser.add_argument("--slowest", type=int, default=15)
    args = parser.parse_args()
    start = time.perf_counter()
    cases = load_cases()
    if args.match:
        cases = [c for c in cases if args.match in c.name]
    print(f"{len(cases)} cases loaded in {time.perf_counter() - start:.1f} s")
    ways = args.only.split(",")
    if "roundtrip" in ways and "onnxruntime" not in ways:
        ways.insert(0, "onnxruntime")
    failures: dict[str, dict[str, str]] = {}
    times: dict[str, dict[str, float]] = {}
    for way in ways:
        run = RUNNERS[way]
        failures[way], times[way] = {}, {}
        begin = time.perf_counter()
        for case in cases:
            if way == "roundtrip" and case.name in failures["onnxruntime"]:
                continue
            t = time.perf_counter()
            problem = run(case)
            times[way][case.name] = time.perf_counter() - t
            if problem is not None:
                failures[way][case.name] = problem
        ran = len(times[way])
        print(f"{way:<12} {ran - len(failures[way]):>5} of {ran} pass  ({time.perf_counter() - begin:.1f} s)")
    names = {c.name for c in cases}
    if "onnxruntime" in failures and "reference" in failures:
        union = names - (set(failures["onnxruntime"]) & set(failures["reference"]))
        print(f"{'union':<12} {len(union):>5} of {len(names)} pass in onnxruntime or the reference")
        if "indexflow" in failures:
            behind = sorted(n for n in union if n in failures["indexflow"])
            print(f"IndexFlow fails {len(behind)} case(s) that onnxruntime or the reference passes:")
            for name in behind:
                print(f"  {name}: {failures['indexflow'][name]}")
    for way in ways:
        slow = sorted(times[way].items(), key=lambda kv: -kv[1])[: args.slowest]
        print(f"slowest in {way}: " + ", ".join(f"{n} {t:.2f}s" for n, t in slow))
    if args.json:
        Path(args.json).write_text(json.dumps({"failures": failures, "times": times}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
