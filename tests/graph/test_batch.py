"""Graph.batch(): a series of changes infers types once, at the end."""
import numpy as np

from nodeeditor.graph import Graph
from nodeeditor.graph.events import NodeAdded, NodeRemoved, TypesChanged


def _chain(n):
    g = Graph("chain")
    prev = g.add_literal(np.zeros((4, 3), np.float32), name="d")
    idx = g.add_literal(np.array([0, 2]), name="i")
    for k in range(n):
        op = g.add_operator("Gather", name=f"g{k}")
        g.connect(prev, "output", op, "data")
        g.connect(idx, "output", op, "indices")
        prev = op
    return g, prev


def test_batch_emits_types_changed_once_and_ends_with_correct_types():
    g, last = _chain(5)
    seen = []
    g.events.subscribe(lambda e: seen.append(type(e)))
    with g.batch():
        removed = [g.remove_node(nid) for nid in list(g.node_ids)]
        assert seen.count(TypesChanged) == 0  # deferred while the batch is open
        for r in reversed(removed):
            g.restore_node(r)
    assert seen.count(TypesChanged) == 1
    assert seen.count(NodeRemoved) == 7 and seen.count(NodeAdded) == 7
    # 4 rows, gathered 5 times by 2 indices: (2, 3) every time after the first
    assert tuple(g.output_type(last).shape) == (2, 3)
    assert all(g.node_info(nid).ok for nid in g.node_ids)


def test_nested_batches_infer_when_the_outermost_closes():
    g, last = _chain(2)
    seen = []
    g.events.subscribe(lambda e: seen.append(type(e)))
    with g.batch():
        with g.batch():
            g.set_source_value(g.find("d").id, np.zeros((6, 5), np.float32))
        assert TypesChanged not in seen
    assert seen.count(TypesChanged) == 1
    assert tuple(g.output_type(last).shape) == (2, 5)
