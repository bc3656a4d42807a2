"""The layered layout: every node right of its inputs, columns without overlaps, sizes
taken into account, outputs on the right."""
import numpy as np
import pytest

from nodeeditor.graph import Graph, layered_positions, list_examples, load_example
from nodeeditor.graph.layout import Block


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


def _chain(n=4):
    """a -> b -> c -> d (Gathers after a literal), at made-up places."""
    g = Graph()
    g.add_literal(np.zeros((4, 3), np.float32), node_id="a", position=(0.0, 0.0))
    g.add_literal(np.array([0], np.int64), node_id="i", position=(0.0, 300.0))
    for k, nid in enumerate("bcd"[:n - 1]):
        g.add_operator("Gather", node_id=nid, position=(500.0 + 40 * k, 900.0 - 100 * k))
        g.connect("abc"[k], "output", nid, "data")
        g.connect("i", "output", nid, "indices")
    return g


def test_a_block_is_laid_out_as_one_node_of_its_size_and_its_members_move_with_it():
    g = _chain()
    sizes = {n: (100.0, 50.0) for n in g.node_ids}
    block = Block(("b", "c"), (300.0, 80.0), (490.0, 790.0))     # drawn at c's place less 10
    pos = layered_positions(g, sizes, blocks=[block])
    assert set(pos) == set(g.node_ids)
    # columns: a and i, then the block (300 wide: the pitch is 300 + 70), then d
    assert pos["a"][0] == 0.0 and pos["d"][0] == 2 * 370.0
    # the members keep their offsets from one another and from the block (b was at (500, 900),
    # c at (540, 800)); the block lands in column 1, 370 from the left
    dx = pos["b"][0] - 500.0
    dy = pos["b"][1] - 900.0
    assert pos["c"] == (540.0 + dx, 800.0 + dy)
    assert 490.0 + dx == 370.0
    # and no other node overlaps the block where it lands
    bx, by = 490.0 + dx, 790.0 + dy
    for nid in ("a", "i", "d"):
        x, y = pos[nid]
        assert x + 100 <= bx or bx + 300 <= x or y + 50 <= by or by + 80 <= y, nid


def test_a_block_that_reads_its_own_output_through_an_outside_node_still_gets_a_layout():
    g = _chain()          # block {b, d} with c between them: b -> c -> d
    pos = layered_positions(g, blocks=[Block(("b", "d"), (230.0, 110.0), (500.0, 700.0))])
    assert set(pos) == set(g.node_ids)
    assert pos["d"][0] - pos["b"][0] == 580.0 - 500.0 and pos["d"][1] - pos["b"][1] == 700.0 - 900.0
