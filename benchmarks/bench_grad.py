"""Speed of ``ops.vjp`` against the forward op, and against torch autograd when torch is installed.

Run as a script (not part of the test suite):

    .venv/bin/python benchmarks/bench_grad.py [--repeat 7] [--only SUBSTRING] [--stat min]

The cases are those of ``benchmarks/bench_ops.py`` (its ``make_cases``), float32, plus a few
marked ``[extra]`` that watch routes those cases miss (TensorScatter, ScatterElements mul with
duplicates). For each case it prints the median (or best, ``--stat min``) wall time of the
forward op (``ops.run_op``), of ``ops.vjp`` with a random ``grad_output``, their ratio, and,
with torch installed, torch's backward alone (``torch.autograd.grad`` on a graph built once,
``retain_graph=True``) and the ratio vjp / torch. The three are timed in turns
(``bench_ops.interleaved_times``), so other load on the machine hits them alike.

torch's gradient is not always the same function: its ``scatter``/``index_put`` give an
overwritten duplicate update the gradient of its target (ours gives 0), so those timings
compare work, not answers.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import bench_ops
from bench_ops import Case, interleaved_times, make_cases

import ops


def extra_cases(rng: np.random.Generator) -> list[Case]:
    f32 = np.float32
    cache = rng.standard_normal((4, 8, 1024, 64)).astype(f32)
    update = rng.standard_normal((4, 8, 16, 64)).astype(f32)
    data = rng.standard_normal((2000, 2000)).astype(f32)
    upd = rng.uniform(0.5, 2.0, (2000, 2000)).astype(f32)
    return [
        Case("TensorScatter (4,8,1024,64) + 16 steps [extra]", "TensorScatter",
             [cache, update, rng.integers(0, 1008, 4)], {"axis": 2}),
        Case("ScatterElements axis0 mul, dups [extra]", "ScatterElements",
             [data, rng.integers(0, 2000, (2000, 2000)), upd], {"axis": 0, "reduction": "mul"}),
    ]


def torch_backward(case: Case, grad: np.ndarray):
    """A function running torch's backward of the case's forward (graph built once), or None
    when torch is missing or has no counterpart."""
    try:
        import torch
    except ImportError:
        return None
    t = [None if a is None else torch.from_numpy(np.ascontiguousarray(a)) for a in case.inputs]
    data = t[0].clone().requires_grad_(True)
    wrt = [data]
    axis = case.attrs.get("axis", 0)
    reduction = case.attrs.get("reduction", "none")
    if case.op == "Gather":
        idx = t[1] % case.inputs[0].shape[axis]
        out = torch.index_select(data, axis, idx.reshape(-1))
        out = out.reshape(case.inputs[0].shape[:axis] + case.inputs[1].shape + case.inputs[0].shape[axis + 1:])
    elif case.op == "GatherElements":
        out = torch.gather(data, axis, t[1])
    elif case.op == "GatherND":
        out = data[tuple(t[1][..., j] for j in range(case.inputs[1].shape[-1]))]
    elif case.op == "ScatterElements":
        updates = t[2].clone().requires_grad_(True)
        wrt.append(updates)
        if reduction == "none":
            out = data.scatter(axis, t[1], updates)
        else:
            name = {"add": "sum", "mul": "prod", "max": "amax", "min": "amin"}[reduction]
            out = data.scatter_reduce(axis, t[1], updates, name, include_self=True)
    elif case.op == "ScatterND":
        updates = t[2].clone().requires_grad_(True)
        wrt.append(updates)
        k = case.inputs[1].shape[-1]
        if reduction in ("none", "add"):
            out = data.index_put(tuple(t[1][..., j] for j in range(k)), updates, accumulate=reduction == "add")
        else:
            shape = case.inputs[0].shape
            flat = np.ravel_multi_index(tuple(case.inputs[1][..., j] for j in range(k)), shape[:k])
            name = {"mul": "prod", "max": "amax", "min": "amin"}[reduction]
            out = data.reshape((-1,) + shape[k:]).index_reduce(
                0, torch.from_numpy(flat.reshape(-1)), updates.reshape((-1,) + shape[k:]), name,
                include_self=True).reshape(shape)
    else:
        return None
    g = torch.from_numpy(grad)
    return lambda: torch.autograd.grad(out, wrt, g, retain_graph=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--only", default="")
    parser.add_argument("--stat", choices=("median", "min"), default="median")
    args = parser.parse_args(argv)
    if args.stat == "min":
        bench_ops.STAT = min
    rng = np.random.default_rng(0)
    cases = [c for c in make_cases(rng) + extra_cases(rng) if args.only in c.name]
    header = f"{'case':52s} {'fwd ms':>9s} {'vjp ms':>9s} {'vjp/fwd':>8s} {'torch ms':>9s} {'vjp/torch':>9s}"
    print(header)
    print("-" * len(header))
    for case in cases:
        out = ops.run_op(case.op, case.inputs, case.attrs)
        grad = rng.standard_normal(out.shape).astype(out.dtype)
        del out
        fns = {
            "fwd": lambda c=case: ops.run_op(c.op, c.inputs, c.attrs),
            "vjp": lambda c=case, g=grad: ops.vjp(c.op, c.inputs, c.attrs, g),
        }
        torch_fn = torch_backward(case, grad)
        if torch_fn is not None:
            fns["torch"] = torch_fn
        times = {name: t * 1e3 for name, t in interleaved_times(fns, args.repeat).items()}
        torch_ms = f"{times['torch']:9.1f}" if "torch" in times else f"{'-':>9s}"
        torch_ratio = f"{times['vjp'] / times['torch']:9.2f}" if "torch" in times else f"{'-':>9s}"
        print(f"{case.name:52s} {times['fwd']:9.1f} {times['vjp']:9.1f} {times['vjp'] / times['fwd']:8.2f} "
              f"{torch_ms} {torch_ratio}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
