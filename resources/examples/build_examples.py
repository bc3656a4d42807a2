"""Build the bundled example graphs (``*.ifg.json`` in this folder) with the Graph API.

Run ``python resources/examples/build_examples.py`` after changing an example; a test
checks that the files here are exactly what this script writes. The worked examples are
typed from the ONNX operator pages (the seed pages for Scatter-9, ScatterND-13 and
Gather-11; ``onnx.defs.get_schema(op).doc`` and the ONNX operator docs' examples for the
others). Their documented outputs live in ``tests/test_examples.py``, not here.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from nodeeditor.graph import Graph
from nodeeditor.graph.fileformat import EXTENSION, save_graph

HERE = Path(__file__).resolve().parent

SRC_X, OP_X, OUT_X = 0.0, 300.0, 560.0
ROW = 120.0
COLUMN = OUT_X + 230.0 + 130.0   # one worked example (sources, op, output 230 wide) and a gap
MAX_COLUMNS = 3
ASPECT = 16 / 9                  # the shape a page of worked examples aims for


def chain(g: Graph, prefix: str, top: float, op: str, inputs: dict, attrs: dict | None = None,
          output: str = "output", op_name: str | None = None, left: float = 0.0) -> float:
    """Sources (one per op input, in schema order) on the left, the op in the middle, an
    output on the right, starting at (``left``, ``top``); returns the y below this chain."""
    ports = [p.name for p in __import__("ops").get_schema(op).inputs]
    y = top
    ids = {}
    for port in ports:
        if port not in inputs:
            continue
        value = inputs[port]
        if isinstance(value, tuple) and value and value[0] == "gen":
            _, gen, params = value
            ids[port] = g.add_generator(gen, params, name=f"{port}", position=(left + SRC_X, y),
                                        node_id=f"{prefix}_{port}")
        else:
            ids[port] = g.add_literal(value, name=port, position=(left + SRC_X, y), node_id=f"{prefix}_{port}")
        y += ROW
    middle = top + (y - top - ROW) / 2
    # the op is named after its case (its subtitle names the op), so a page of worked
    # examples says which is which: "reduction add" rather than seven "ScatterElements"
    caption = output.replace("_", " ") if output != "output" else op
    op_id = g.add_operator(op, attrs or {}, name=op_name or caption, position=(left + OP_X, middle),
                           node_id=f"{prefix}_op")
    for port, src in ids.items():
        g.connect(src, "output", op_id, port)
    out_port = __import__("ops").get_schema(op).outputs[0].name
    out = g.add_output(output, position=(left + OUT_X, middle), node_id=f"{prefix}_out")
    g.connect(op_id, out_port, out, "value")
    return y + ROW / 2


def chain_height(inputs: dict) -> float:
    """The height :func:`chain` uses for these inputs (with the gap below)."""
    return len(inputs) * ROW + ROW / 2


def grid(g: Graph, examples: list[dict]) -> None:
    """Add worked examples (each the keyword arguments of :func:`chain` but ``top``) in a
    grid read row by row, left to right. The number of columns (1 to MAX_COLUMNS) is the one
    whose bounding box is closest to ASPECT, so a page fits a wide view instead of being one
    tall column; each row is as tall as its tallest example."""
    def rows(columns: int) -> list[list[dict]]:
        return [examples[i:i + columns] for i in range(0, len(examples), columns)]

    def misfit(columns: int) -> float:
        width = min(columns, len(examples)) * COLUMN
        height = sum(max(chain_height(e["inputs"]) for e in r) for r in rows(columns))
        return abs(np.log(width / height / ASPECT))

    columns = min(range(1, MAX_COLUMNS + 1), key=misfit)
    top = 0.0
    for r in rows(columns):
        for i, example in enumerate(r):
            chain(g, top=top, left=i * COLUMN, **example)
        top += max(chain_height(e["inputs"]) for e in r)


def f32(v) -> np.ndarray:
    return np.array(v, dtype=np.float32)


def i64(v) -> np.ndarray:
    return np.array(v, dtype=np.int64)


# ---------------------------------------------------------------------- worked examples
def scatter9() -> Graph:
    g = Graph("Scatter-9: worked examples", 9, "Both examples of the ONNX Scatter (opset 9) page: axis 0 and axis 1.")
    grid(g, [
        dict(prefix="ex1", op="Scatter", inputs={
            "data": f32(np.zeros((3, 3))), "indices": i64([[1, 0, 2], [0, 2, 1]]),
            "updates": f32([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]])}, output="example1"),
        dict(prefix="ex2", op="Scatter", inputs={
            "data": f32([[1.0, 2.0, 3.0, 4.0, 5.0]]), "indices": i64([[1, 3]]), "updates": f32([[1.1, 2.1]])},
            attrs={"axis": 1}, output="example2"),
    ])
    return g


def scatternd13() -> Graph:
    g = Graph("ScatterND-13: worked examples", 13,
              "Both examples of the ONNX ScatterND (opset 13) page: single elements, then whole slices.")
    block = [[1, 2, 3, 4], [5, 6, 7, 8], [8, 7, 6, 5], [4, 3, 2, 1]]
    flip = [[8, 7, 6, 5], [4, 3, 2, 1], [1, 2, 3, 4], [5, 6, 7, 8]]
    grid(g, [
        dict(prefix="ex1", op="ScatterND", inputs={
            "data": i64([1, 2, 3, 4, 5, 6, 7, 8]), "indices": i64([[4], [3], [1], [7]]),
            "updates": i64([9, 10, 11, 12])}, output="example1"),
        dict(prefix="ex2", op="ScatterND", inputs={
            "data": i64([block, block, flip, flip]), "indices": i64([[0], [2]]),
            "updates": i64([[[5] * 4, [6] * 4, [7] * 4, [8] * 4], [[1] * 4, [2] * 4, [3] * 4, [4] * 4]])},
            output="example2"),
    ])
    return g


def gather11() -> Graph:
    g = Graph("Gather-11: worked examples", 11, "Both examples of the ONNX Gather (opset 11) page: axis 0 and axis 1.")
    grid(g, [
        dict(prefix="axis0", op="Gather", inputs={
            "data": f32([[1.0, 1.2], [2.3, 3.4], [4.5, 5.7]]), "indices": i64([[0, 1], [1, 2]])}, output="axis0"),
        dict(prefix="axis1", op="Gather", inputs={
            "data": f32([[1.0, 1.2, 1.9], [2.3, 3.4, 3.9], [4.5, 5.7, 5.9]]), "indices": i64([[0, 2]])},
            attrs={"axis": 1}, output="axis1"),
    ])
    return g


def gatherelements() -> Graph:
    g = Graph("GatherElements: worked examples", 18, "Both examples of the ONNX GatherElements page (axis 1, axis 0).")
    grid(g, [
        dict(prefix="ex1", op="GatherElements", inputs={
            "data": i64([[1, 2], [3, 4]]), "indices": i64([[0, 0], [1, 0]])},
            attrs={"axis": 1}, output="example1"),
        dict(prefix="ex2", op="GatherElements", inputs={
            "data": i64([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), "indices": i64([[1, 2, 0], [2, 0, 0]])},
            attrs={"axis": 0}, output="example2"),
    ])
    return g


def gathernd() -> Graph:
    g = Graph("GatherND: worked examples", 18,
              "The five examples of the ONNX GatherND page, the last with batch_dims=1.")
    cube = i64([[[0, 1], [2, 3]], [[4, 5], [6, 7]]])
    cases = [
        (i64([[0, 1], [2, 3]]), i64([[0, 0], [1, 1]]), 0),
        (i64([[0, 1], [2, 3]]), i64([[1], [0]]), 0),
        (cube, i64([[0, 1], [1, 0]]), 0),
        (cube, i64([[[0, 1]], [[1, 0]]]), 0),
        (cube, i64([[1], [0]]), 1),
    ]
    grid(g, [dict(prefix=f"ex{n}", op="GatherND", inputs={"data": data, "indices": indices},
                  attrs={"batch_dims": batch_dims} if batch_dims else {}, output=f"example{n}")
             for n, (data, indices, batch_dims) in enumerate(cases, 1)])
    return g


def scatterelements() -> Graph:
    g = Graph("ScatterElements: worked examples", 18,
              "The ONNX ScatterElements examples: without and with axis, negative indices, "
              "and duplicate indices with each reduction (add, mul, max, min).")
    row = f32([[1.0, 2.0, 3.0, 4.0, 5.0]])
    examples = [
        dict(prefix="ex1", op="ScatterElements", inputs={
            "data": f32(np.zeros((3, 3))), "indices": i64([[1, 0, 2], [0, 2, 1]]),
            "updates": f32([[1.0, 1.1, 1.2], [2.0, 2.1, 2.2]])}, output="without_axis"),
        dict(prefix="ex2", op="ScatterElements", inputs={
            "data": row, "indices": i64([[1, 3]]), "updates": f32([[1.1, 2.1]])},
            attrs={"axis": 1}, output="with_axis"),
        dict(prefix="neg", op="ScatterElements", inputs={
            "data": row, "indices": i64([[1, -3]]), "updates": f32([[1.1, 2.1]])},
            attrs={"axis": 1}, output="negative_indices"),
    ]
    examples += [dict(prefix=reduction, op="ScatterElements",
                      inputs={"data": row, "indices": i64([[1, 1]]), "updates": f32([[1.1, 2.1]])},
                      attrs={"axis": 1, "reduction": reduction}, output=f"reduction_{reduction}")
                 for reduction in ("add", "mul", "max", "min")]
    grid(g, examples)
    return g


def tensorscatter() -> Graph:
    g = Graph("TensorScatter: worked examples", 24,
              "The ONNX TensorScatter examples: a linear write, a circular write that wraps, and a 3-D cache.")
    cache4 = f32([[[[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [4, 3, 2, 1, 0]]]] * 2)
    cache3 = f32([[[1, 2, 3, 4, 5], [5, 6, 7, 8, 9], [8, 7, 6, 5, 4], [5, 4, 3, 2, 1]]] * 3)
    grid(g, [
        dict(prefix="linear", op="TensorScatter", inputs={
            "past_cache": cache4, "update": f32([[[[5] * 5]], [[[1] * 5]]]), "write_indices": i64([1, 2])},
            attrs={"mode": "linear"}, output="linear"),
        dict(prefix="circular", op="TensorScatter", inputs={
            "past_cache": cache4, "update": f32([[[[5] * 5, [6] * 5]], [[[1] * 5, [2] * 5]]]),
            "write_indices": i64([1, 3])}, attrs={"mode": "circular"}, output="circular"),
        dict(prefix="cube", op="TensorScatter", inputs={
            "past_cache": cache3, "update": f32([[[4] * 5, [5] * 5], [[6] * 5, [7] * 5], [[2] * 5, [3] * 5]]),
            "write_indices": i64([1, 2, 0])}, output="three_d"),
    ])
    return g


# ---------------------------------------------------------------------- recipes
def embedding_lookup() -> Graph:
    g = Graph("Embedding look-up", 18,
              "Gather rows of an embedding table by token id: each id becomes its row vector.")
    table = f32(np.round(np.arange(6)[:, None] + np.linspace(0.0, 0.3, 4)[None, :], 2))
    g.add_literal(table, name="embedding table", position=(SRC_X, 0), node_id="table")
    g.add_input("token_ids", i64([[0, 3, 3], [5, 1, 0]]), position=(SRC_X, ROW * 1.5), node_id="token_ids")
    g.add_operator("Gather", {"axis": 0}, name="look up rows", position=(OP_X, ROW * 0.75), node_id="lookup")
    g.add_output("embeddings", position=(OUT_X, ROW * 0.75), node_id="embeddings")
    g.connect("table", "output", "lookup", "data")
    g.connect("token_ids", "output", "lookup", "indices")
    g.connect("lookup", "output", "embeddings", "value")
    return g


def one_hot() -> Graph:
    g = Graph("One-hot encoding", 18,
              "ScatterElements writes a 1 into a zero matrix at each label's column (axis 1).")
    g.add_generator("zeros", {"shape": [4, 5], "dtype": "float32"}, name="zeros [4, 5]",
                    position=(SRC_X, 0), node_id="zeros")
    g.add_literal(i64([[1], [4], [0], [2]]), name="labels", position=(SRC_X, ROW), node_id="labels")
    g.add_generator("ones", {"shape": [4, 1], "dtype": "float32"}, name="ones [4, 1]",
                    position=(SRC_X, 2 * ROW), node_id="ones")
    g.add_operator("ScatterElements", {"axis": 1}, name="put ones", position=(OP_X, ROW), node_id="scatter")
    g.add_output("one_hot", position=(OUT_X, ROW), node_id="one_hot")
    for port, src in (("data", "zeros"), ("indices", "labels"), ("updates", "ones")):
        g.connect(src, "output", "scatter", port)
    g.connect("scatter", "output", "one_hot", "value")
    return g


def segment_sum() -> Graph:
    g = Graph("Segment sum and histogram", 18,
              "ScatterElements with reduction add sums values per segment id; adding ones counts them.")
    g.add_literal(f32([0.5, 1.0, 2.0, 4.0, 8.0, 16.0]), name="values", position=(SRC_X, 0), node_id="values")
    g.add_literal(i64([0, 2, 0, 1, 2, 2]), name="segment ids", position=(SRC_X, ROW), node_id="segments")
    g.add_generator("zeros", {"shape": [3], "dtype": "float32"}, name="zeros [3]",
                    position=(SRC_X, 2 * ROW), node_id="zeros")
    g.add_generator("ones", {"shape": [6], "dtype": "float32"}, name="ones [6]",
                    position=(SRC_X, 3 * ROW), node_id="ones")
    g.add_operator("ScatterElements", {"reduction": "add"}, name="sum per segment",
                   position=(OP_X, 0.5 * ROW), node_id="sum")
    g.add_operator("ScatterElements", {"reduction": "add"}, name="count per segment",
                   position=(OP_X, 2.5 * ROW), node_id="count")
    g.add_output("segment_sums", position=(OUT_X, 0.5 * ROW), node_id="segment_sums")
    g.add_output("histogram", position=(OUT_X, 2.5 * ROW), node_id="histogram")
    for op, upd in (("sum", "values"), ("count", "ones")):
        g.connect("zeros", "output", op, "data")
        g.connect("segments", "output", op, "indices")
        g.connect(upd, "output", op, "updates")
    g.connect("sum", "output", "segment_sums", "value")
    g.connect("count", "output", "histogram", "value")
    return g


def topk_mask() -> Graph:
    g = Graph("Top-k mask", 18,
              "Given the top-2 column indices of each row of scores, GatherElements picks their values and "
              "ScatterElements marks them in a 0/1 mask.")
    g.add_literal(f32([[0.1, 0.9, 0.3, 0.7, 0.2], [0.8, 0.05, 0.6, 0.4, 0.95]]), name="scores",
                  position=(SRC_X, 0), node_id="scores")
    g.add_literal(i64([[1, 3], [4, 0]]), name="top-2 indices", position=(SRC_X, ROW), node_id="topk")
    g.add_generator("zeros", {"shape": [2, 5], "dtype": "float32"}, name="zeros [2, 5]",
                    position=(SRC_X, 2 * ROW), node_id="zeros")
    g.add_generator("ones", {"shape": [2, 2], "dtype": "float32"}, name="ones [2, 2]",
                    position=(SRC_X, 3 * ROW), node_id="ones")
    g.add_operator("GatherElements", {"axis": 1}, name="top-k values", position=(OP_X, 0.5 * ROW), node_id="values")
    g.add_operator("ScatterElements", {"axis": 1}, name="mark top-k", position=(OP_X, 2.5 * ROW), node_id="mark")
    g.add_output("topk_values", position=(OUT_X, 0.5 * ROW), node_id="topk_values")
    g.add_output("mask", position=(OUT_X, 2.5 * ROW), node_id="mask")
    g.connect("scores", "output", "values", "data")
    g.connect("topk", "output", "values", "indices")
    g.connect("zeros", "output", "mark", "data")
    g.connect("topk", "output", "mark", "indices")
    g.connect("ones", "output", "mark", "updates")
    g.connect("values", "output", "topk_values", "value")
    g.connect("mark", "output", "mask", "value")
    return g


def kv_cache_write() -> Graph:
    g = Graph("KV-cache write", 24,
              "Append new key/value rows after each sample's last token: TensorScatter, and the same "
              "write spelled as ScatterND with explicit (batch, head, position) indices.")
    past = f32(np.arange(2 * 1 * 5 * 3).reshape(2, 1, 5, 3))
    update = f32(-np.arange(1, 2 * 1 * 2 * 3 + 1).reshape(2, 1, 2, 3))
    g.add_literal(past, name="past cache [B, H, S, D]", position=(SRC_X, 0), node_id="past")
    g.add_literal(update, name="new rows [B, H, 2, D]", position=(SRC_X, ROW), node_id="update")
    g.add_literal(i64([1, 3]), name="write positions", position=(SRC_X, 2 * ROW), node_id="write_indices")
    positions = np.array([[[[0, 0, 1], [0, 0, 2]]], [[[1, 0, 3], [1, 0, 4]]]], np.int64)
    g.add_literal(positions, name="(b, h, s) indices", position=(SRC_X, 3 * ROW), node_id="nd_indices")
    g.add_operator("TensorScatter", {"axis": -2, "mode": "linear"}, name="TensorScatter",
                   position=(OP_X, ROW), node_id="tensor_scatter")
    g.add_operator("ScatterND", name="ScatterND", position=(OP_X, 2.5 * ROW), node_id="scatter_nd")
    g.add_output("present_cache", position=(OUT_X, ROW), node_id="present_cache")
    g.add_output("present_cache_scatternd", position=(OUT_X, 2.5 * ROW), node_id="present_cache_scatternd")
    g.connect("past", "output", "tensor_scatter", "past_cache")
    g.connect("update", "output", "tensor_scatter", "update")
    g.connect("write_indices", "output", "tensor_scatter", "write_indices")
    g.connect("past", "output", "scatter_nd", "data")
    g.connect("nd_indices", "output", "scatter_nd", "indices")
    g.connect("update", "output", "scatter_nd", "updates")
    g.connect("tensor_scatter", "present_cache", "present_cache", "value")
    g.connect("scatter_nd", "output", "present_cache_scatternd", "value")
    return g


def batched_row_gather() -> Graph:
    g = Graph("Batched gather of rows", 18,
              "GatherND with batch_dims=1: for each batch, pick rows of that batch's matrix by index.")
    g.add_literal(f32(np.arange(3 * 4 * 2).reshape(3, 4, 2)), name="data [batch, rows, 2]",
                  position=(SRC_X, 0), node_id="data")
    g.add_literal(i64([[[3], [0]], [[1], [1]], [[2], [3]]]), name="row ids [batch, k, 1]",
                  position=(SRC_X, ROW), node_id="rows")
    g.add_operator("GatherND", {"batch_dims": 1}, name="rows per batch",
                   position=(OP_X, 0.5 * ROW), node_id="gather_nd")
    g.add_output("rows", position=(OUT_X, 0.5 * ROW), node_id="out")
    g.connect("data", "output", "gather_nd", "data")
    g.connect("rows", "output", "gather_nd", "indices")
    g.connect("gather_nd", "output", "out", "value")
    return g


# ---------------------------------------------------------------------- training
def train_embedding() -> Graph:
    g = Graph("Training: an embedding table", 18,
              "Learn an embedding table through Gather: each looked-up row moves towards its target vector "
              "(indexflow train train_embedding --steps 200).")
    true_table = np.round(np.sin(np.arange(24, dtype=np.float64) * 0.7).reshape(6, 4), 2)
    ids = i64([[0, 3, 5], [2, 3, 1]])
    g.add_generator("normal", {"shape": [6, 4], "dtype": "float32", "std": 0.5, "seed": 1},
                    name="embedding table", position=(SRC_X, 0), node_id="table")
    g.set_trainable("table", True)
    g.add_literal(ids, name="token ids", position=(SRC_X, ROW), node_id="token_ids")
    g.add_literal(f32(true_table[ids]), name="target vectors", position=(SRC_X, 2 * ROW), node_id="targets")
    g.add_operator("Gather", {"axis": 0}, name="look up rows", position=(OP_X, 0.5 * ROW), node_id="lookup")
    g.add_loss("mean_squared_error", name="loss", position=(OUT_X, 1.5 * ROW), node_id="loss")
    g.add_output("embeddings", position=(OUT_X, 0), node_id="embeddings")
    g.connect("table", "output", "lookup", "data")
    g.connect("token_ids", "output", "lookup", "indices")
    g.connect("lookup", "output", "embeddings", "value")
    g.connect("lookup", "output", "loss", "prediction")
    g.connect("targets", "output", "loss", "target")
    return g


def train_segment_sum() -> Graph:
    g = Graph("Training: values behind a segment sum", 18,
              "Learn the values that ScatterElements (reduction add) sums per segment, so each segment's "
              "sum meets its target (indexflow train train_segment_sum --steps 200).")
    g.add_generator("zeros", {"shape": [6], "dtype": "float32"}, name="values", position=(SRC_X, 0),
                    node_id="values")
    g.set_trainable("values", True)
    g.add_literal(i64([0, 2, 0, 1, 2, 2]), name="segment ids", position=(SRC_X, ROW), node_id="segments")
    g.add_generator("zeros", {"shape": [3], "dtype": "float32"}, name="zeros [3]",
                    position=(SRC_X, 2 * ROW), node_id="zeros")
    g.add_literal(f32([1.5, -2.0, 4.0]), name="target sums", position=(SRC_X, 3 * ROW), node_id="targets")
    g.add_operator("ScatterElements", {"reduction": "add"}, name="sum per segment",
                   position=(OP_X, ROW), node_id="sum")
    g.add_loss("mean_squared_error", name="loss", position=(OUT_X, 2 * ROW), node_id="loss")
    g.add_output("segment_sums", position=(OUT_X, 0.5 * ROW), node_id="segment_sums")
    g.connect("zeros", "output", "sum", "data")
    g.connect("segments", "output", "sum", "indices")
    g.connect("values", "output", "sum", "updates")
    g.connect("sum", "output", "segment_sums", "value")
    g.connect("sum", "output", "loss", "prediction")
    g.connect("targets", "output", "loss", "target")
    return g


#: The loss coefficient of the toolkit example's ScatterElements block.
TOOLKIT_COEFFICIENT = 0.5


def toolkit_training() -> Graph:
    g = Graph("Training: the toolkit's ScatterElements block", 18,
              f"The ScatterElements block with its training switch on and a loss coefficient of "
              f"{TOOLKIT_COEFFICIENT}: every gradient it sends upstream (to the canvas and through the "
              f"Gather to the table) is scaled by it; change it and the gradients scale with it.")
    rng = np.random.default_rng(3)
    g.add_literal(f32(np.round(rng.normal(size=(4, 3)), 2)), name="row table", position=(SRC_X, 0), node_id="table")
    g.set_trainable("table", True)
    g.add_literal(i64([3, 1]), name="rows", position=(SRC_X, ROW), node_id="rows")
    g.add_generator("normal", {"shape": [3, 3], "dtype": "float32", "seed": 4}, name="canvas",
                    position=(SRC_X, 2 * ROW), node_id="canvas")
    g.set_trainable("canvas", True)
    g.add_literal(i64([[1, 0, 2], [2, 1, 0]]), name="target rows", position=(SRC_X, 3 * ROW), node_id="indices")
    g.add_literal(f32([[1.0, -1.0, 0.5], [0.0, 2.0, -0.5], [1.5, 0.25, -2.0]]), name="target",
                  position=(SRC_X, 4 * ROW), node_id="target")
    g.add_operator("Gather", {"axis": 0}, name="pick rows", position=(OP_X, 0.5 * ROW), node_id="pick")
    g.add_operator("ScatterElements", {"axis": 0}, name="ScatterElements block",
                   position=(OP_X + 260.0, 2 * ROW), node_id="block")
    g.set_training("block", True)
    g.set_loss_coefficient("block", TOOLKIT_COEFFICIENT)
    g.add_loss("mean_squared_error", name="loss", position=(OUT_X + 260.0, 3 * ROW), node_id="loss")
    g.add_output("result", position=(OUT_X + 260.0, ROW), node_id="result")
    g.connect("table", "output", "pick", "data")
    g.connect("rows", "output", "pick", "indices")
    g.connect("canvas", "output", "block", "data")
    g.connect("indices", "output", "block", "indices")
    g.connect("pick", "output", "block", "updates")
    g.connect("block", "output", "result", "value")
    g.connect("block", "output", "loss", "prediction")
    g.connect("target", "output", "loss", "target")
    return g


EXAMPLES = {
    "embedding_lookup": embedding_lookup,
    "one_hot": one_hot,
    "segment_sum": segment_sum,
    "topk_mask": topk_mask,
    "kv_cache_write": kv_cache_write,
    "batched_row_gather": batched_row_gather,
    "scatter9_examples": scatter9,
    "scatternd13_examples": scatternd13,
    "gather11_examples": gather11,
    "gatherelements_examples": gatherelements,
    "gathernd_examples": gathernd,
    "scatterelements_examples": scatterelements,
    "tensorscatter_examples": tensorscatter,
    "train_embedding": train_embedding,
    "train_segment_sum": train_segment_sum,
    "toolkit_training": toolkit_training,
}


def build(folder: Path = HERE) -> list[Path]:
    """Write every example into ``folder``; returns the paths written."""
    return [save_graph(make(), folder / f"{name}{EXTENSION}") for name, make in EXAMPLES.items()]


if __name__ == "__main__":
    for path in build():
        print(path)
