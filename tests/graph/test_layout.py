"""The layered layout: every node right of its inputs, columns without overlaps, sizes
taken into account, outputs on the right."""
import numpy as np
import pytest

from nodeeditor.graph import Graph, layered_positions, list_examples, load_example


@pytest.mark.parametrize("name", [info.name for info in list_examples()])
def test_every_node_is_right_of_its_inputs(name):
    graph = load_example(name)
    pos = layered_positions(graph)
    assert set(pos) == set(graph.node_ids)
    for e in graph.edges:
        assert pos[e.src][0] < pos[e.dst][0], (name, str(e))


def _diamond():
    """a, b -> g1 -> g2 -> out; a -> g2; one more source c feeding g2 only."""
    g = Graph()
    g.add_literal(np.zeros((4, 3), np.float32), node_id="a")
    g.add_literal(np.array([0, 1], np.int64), node_id="b")
    g.add_literal(np.array([1], np.int64), node_id="c")
    g.add_operator("Gather", node_id="g1")
    g.add_operator("Gather", node_id="g2")
    g.add_output("out", node_id="out")
    g.add_output("early", node_id="early")
    g.connect("a", "output", "g1", "data")
    g.connect("b", "output", "g1", "indices")
    g.connect("g1", "output", "g2", "data")
    g.connect("c", "output", "g2", "indices")
    g.connect("g2", "output", "out", "value")
    g.connect("a", "output", "early", "value")
    return g


def test_sizes_set_the_column_pitch_and_keep_nodes_in_a_column_apart():
    g = _diamond()
    sizes = {nid: (100.0, 50.0 + 30.0 * i) for i, nid in enumerate(g.node_ids)}
    pos = layered_positions(g, sizes)
    xs = sorted({x for x, _ in pos.values()})
    assert xs == [0.0, 170.0, 340.0, 510.0]           # widest node 100 + a gap of 70
    by_column = {}
    for nid, (x, y) in pos.items():
        by_column.setdefault(x, []).append((y, y + sizes[nid][1]))
    for boxes in by_column.values():
        boxes.sort()
        for (_, bottom), (top, _) in zip(boxes, boxes[1:], strict=False):
            assert top - bottom >= 40.0                   # the row gap, never an overlap
    assert min(y for _, y in pos.values()) == 0.0


def test_outputs_go_to_the_last_column_and_sources_next_to_their_consumer():
    pos = layered_positions(_diamond())
    last = max(x for x, _ in pos.values())
    assert pos["out"][0] == pos["early"][0] == last
    assert pos["c"][0] == pos["g1"][0]                    # one column left of g2, not far left
    assert pos["a"][0] == pos["b"][0] == 0.0


def test_origin_moves_the_whole_layout():
    g = _diamond()
    plain = layered_positions(g)
    moved = layered_positions(g, origin=(100.0, -40.0))
    assert moved == {nid: (x + 100.0, y - 40.0) for nid, (x, y) in plain.items()}


def test_an_empty_graph_has_no_positions():
    assert layered_positions(Graph()) == {}


def _chains(count):
    """``count`` separate pieces: two literals into a Gather into an output, each."""
    g = Graph()
    for i in range(count):
        g.add_literal(np.zeros((3, 4), np.float32), node_id=f"d{i}")
        g.add_literal(np.array([0]), node_id=f"i{i}")
        g.add_operator("Gather", node_id=f"g{i}")
        g.add_output(f"y{i}", node_id=f"y{i}")
        g.connect(f"d{i}", "output", f"g{i}", "data")
        g.connect(f"i{i}", "output", f"g{i}", "indices")
        g.connect(f"g{i}", "output", f"y{i}", "value")
    return g


def _boxes(pos, ids, size=(230.0, 110.0)):
    xs = [pos[n][0] for n in ids] + [pos[n][0] + size[0] for n in ids]
    ys = [pos[n][1] for n in ids] + [pos[n][1] + size[1] for n in ids]
    return min(xs), min(ys), max(xs), max(ys)


def test_separate_pieces_are_packed_in_rows_near_a_screens_shape_not_one_tall_column():
    g = _chains(15)
    pos = layered_positions(g)
    left, top, right, bottom = _boxes(pos, g.node_ids)
    assert (left, top) == (0.0, 0.0)
    assert 1.0 <= (right - left) / (bottom - top) <= 2.5      # one column of 15 was 0.2
    pieces = [_boxes(pos, [f"d{i}", f"i{i}", f"g{i}", f"y{i}"]) for i in range(15)]
    for a, b in ((a, b) for k, a in enumerate(pieces) for b in pieces[k + 1:]):
        apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
        assert apart, (a, b)                                  # no two pieces overlap
    for e in g.edges:
        assert pos[e.src][0] < pos[e.dst][0]
    assert pos["d0"] == (0.0, 0.0)                            # the first piece first, top left
