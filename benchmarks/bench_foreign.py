"""Foreign nodes in onnxruntime: one session per node, or one per maximal run of foreign nodes?

Run as a script (not part of the test suite):

    .venv/bin/python benchmarks/bench_foreign.py [--repeat 9]

For each model (the two realistic ones of ``tests/onnx_io/realistic.py``, and a chain of 50
small foreign ops) it imports the model and measures the time spent running its foreign
nodes, timed around the runtime's calls during engine runs:

- **per node**: the engine with no group executor registered: one session per node.
- **engine groups**: what the engine does: connected groups of foreign nodes in one session
  (``foreign_runtime.execute_group``).
- **cut-out groups** (the first prototype): each maximal connected group of foreign nodes cut
  out of the graph (``extract_region``), exported as one model and run in one session, timed
  directly.

*Cold*: every cache empty (sessions are built). *Warm*: the sessions exist; a new input value
is fed (every node runs again). *Edit*: the last foreign node changes (its revision bumps),
then a run: its session (per node) or its group's (groups) is built again.

Times are medians over ``--repeat`` rounds, in milliseconds; onnxruntime with one intra-op
thread, as the executor uses.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nodeeditor.graph import Engine, extract_region, foreign
from nodeeditor.graph import nodes as N
from nodeeditor.onnx_io import foreign_runtime, import_model
from nodeeditor.onnx_io.export import export_with_feeds
from tests.onnx_io import realistic
from tests.onnx_io.node_suite import ort_session


def _timed(fn):
    spent = [0.0]

    def run(*args):
        t = time.perf_counter()
        try:
            return fn(*args)
        finally:
            spent[0] += time.perf_counter() - t

    return run, spent


def _feed(graph, inputs, bump: float = 0.0) -> None:
    for node in graph.nodes:
        if isinstance(node, N.InputSource) and node.name in inputs:
            value = inputs[node.name]
            if bump and value.dtype.kind == "f":
                value = value + np.float32(bump)
            graph.set_source(node.id, example=value)


def in_engine(model, inputs, repeat: int, grouped: bool) -> tuple[float, float, float]:
    run, spent = _timed(foreign_runtime.execute)
    group_run, group_spent = _timed(foreign_runtime.execute_group)
    saved = foreign.register_executor(run), foreign.register_group_executor(group_run if grouped else None)

    class _Total:
        def __setitem__(self, i, value):
            spent[0] = group_spent[0] = value

        def __getitem__(self, i):
            return spent[0] + group_spent[0]

    total = _Total()
    try:
        cold, warm, edit = [], [], []
        for r in range(repeat):
            foreign_runtime.clear_caches()
            graph = import_model(model)
            _feed(graph, inputs)
            engine = Engine(graph)
            total[0] = 0.0
            engine.run()
            cold.append(total[0])
            _feed(graph, inputs, bump=0.5 + r)
            total[0] = 0.0
            engine.run()
            warm.append(total[0])
            last = [n for n in graph.nodes if isinstance(n, N.ForeignNode)][-1]
            graph._bump(last)   # as an edit of the last foreign node does: its session is built again
            total[0] = 0.0
            engine.run()
            edit.append(total[0])
    finally:
        foreign.register_executor(saved[0])
        foreign.register_group_executor(saved[1])
    return tuple(1000 * statistics.median(x) for x in (cold, warm, edit))


def _groups(graph) -> list[list[str]]:
    """Maximal connected groups of foreign nodes (edges between foreign nodes join them)."""
    ids = [n.id for n in graph.nodes if isinstance(n, N.ForeignNode)]
    parent = {i: i for i in ids}

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for e in graph.edges:
        if e.src in parent and e.dst in parent:
            parent[find(e.src)] = find(e.dst)
    groups: dict[str, list[str]] = {}
    for i in graph.topological_order(ids):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def per_group(model, inputs, repeat: int) -> tuple[float, float, float, int]:
    graph = import_model(model)
    _feed(graph, inputs)
    engine = Engine(graph, keep_intermediates=True)
    engine.run()
    parts = []
    for group in _groups(graph):
        cut = extract_region(graph, group, engine)
        exported, feeds = export_with_feeds(cut.graph)
        parts.append((exported.SerializeToString(), feeds))
    cold, warm, edit = [], [], []
    import onnx

    for _ in range(repeat):
        t_cold = t_warm = t_edit = 0.0
        for i, (data, feeds) in enumerate(parts):
            t = time.perf_counter()
            session = ort_session(onnx.load_model_from_string(data))
            names = [o.name for o in session.get_outputs()]
            session.run(names, feeds)
            t_cold += time.perf_counter() - t
            t = time.perf_counter()
            session.run(names, feeds)
            t_warm += time.perf_counter() - t
            if i == len(parts) - 1:   # the edited node's group is built again and run
                t = time.perf_counter()
                session = ort_session(onnx.load_model_from_string(data))
                session.run(names, feeds)
                t_edit += time.perf_counter() - t
            else:
                t = time.perf_counter()
                session.run(names, feeds)
                t_edit += time.perf_counter() - t
        cold.append(t_cold)
        warm.append(t_warm)
        edit.append(t_edit)
    return (*(1000 * statistics.median(x) for x in (cold, warm, edit)), len(parts))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    models = [("embedding (Gather, MatMul, Add, Softmax)", realistic.embedding_model(), realistic.embedding_inputs()),
              ("KV-cache update (29 nodes)", realistic.kv_cache_model(), realistic.kv_cache_inputs()),
              ("chain of 50 small ops", realistic.chain_model(50), {"x": np.linspace(-1, 1, 16, dtype=np.float32)})]
    print(f"{'model':<42} {'way':<14} {'cold ms':>8} {'warm ms':>8} {'edit ms':>8}")
    for title, model, inputs in models:
        n_foreign = sum(1 for n in import_model(model).nodes if isinstance(n, N.ForeignNode))
        cold, warm, edit = in_engine(model, inputs, args.repeat, grouped=False)
        print(f"{title:<42} {'per node':<14} {cold:8.2f} {warm:8.2f} {edit:8.2f}   ({n_foreign} foreign nodes)")
        cold, warm, edit = in_engine(model, inputs, args.repeat, grouped=True)
        print(f"{'':<42} {'engine groups':<14} {cold:8.2f} {warm:8.2f} {edit:8.2f}")
        cold, warm, edit, groups = per_group(model, inputs, args.repeat)
        print(f"{'':<42} {'cut-out groups':<14} {cold:8.2f} {warm:8.2f} {edit:8.2f}   ({groups} group(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
