"""Two realistic models built with onnx.helper (shared by the tests and benchmarks/bench_foreign.py).

- :func:`embedding_model`: token ids -> Gather from an embedding table -> MatMul -> Add ->
  Softmax (a tiny classifier head), ids of shape ``[batch, seq]``.
- :func:`kv_cache_model`: a KV-cache update. Shape, Gather, Range, Unsqueeze, Expand and Concat
  build the ScatterND indices ``[batch, heads, seq, 3]`` = (b, h, pos + i) from the shapes of
  the inputs and the write position; ScatterND writes the new keys into the cache; Transpose
  and MatMul score a query against the updated cache. Named dimensions ``batch`` and ``seq``.
- :func:`chain_model`: ``n`` small foreign ops in a row (Add, Mul, Relu, Neg, Abs cycling), for
  the executor benchmark.
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB, DIM, CLASSES = 50, 8, 4
HEADS, MAX_SEQ, HEAD_DIM = 2, 8, 4


def embedding_model(seed: int = 0) -> onnx.ModelProto:
    rng = np.random.default_rng(seed)
    table = rng.standard_normal((VOCAB, DIM)).astype(np.float32)
    weight = rng.standard_normal((DIM, CLASSES)).astype(np.float32)
    bias = rng.standard_normal((CLASSES,)).astype(np.float32)
    nodes = [
        helper.make_node("Gather", ["embedding table", "token ids"], ["embedded"], name="look up", axis=0),
        helper.make_node("MatMul", ["embedded", "head weight"], ["logits raw"], name="project"),
        helper.make_node("Add", ["logits raw", "head bias"], ["logits"], name="bias"),
        helper.make_node("Softmax", ["logits"], ["class probabilities"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "embedding classifier",
        [helper.make_tensor_value_info("token ids", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("class probabilities", TensorProto.FLOAT, ["batch", "seq", CLASSES])],
        initializer=[numpy_helper.from_array(table, "embedding table"), numpy_helper.from_array(weight, "head weight"),
                     numpy_helper.from_array(bias, "head bias")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], producer_name="tests")
    helper.set_model_props(model, {"author": "tests", "task": "classify tokens"})
    onnx.checker.check_model(model, full_check=True)
    return model


def embedding_inputs(batch: int = 2, seq: int = 3, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"token ids": rng.integers(0, VOCAB, (batch, seq)).astype(np.int64)}


def kv_cache_model() -> onnx.ModelProto:
    i64 = TensorProto.INT64

    def const(name, values):
        return helper.make_node("Constant", [], [name], name=f"const {name}",
                                value=numpy_helper.from_array(np.asarray(values, dtype=np.int64), name))

    nodes = [
        const("zero", 0), const("one", 1), const("two", 2), const("last", [1]),
        const("axes b", [1, 2, 3]), const("axes h", [0, 2, 3]), const("axes p", [0, 1, 3]),
        const("slice starts", [0]), const("slice ends", [3]),
        helper.make_node("Shape", ["new keys"], ["new shape"], name="shape of new"),
        helper.make_node("Gather", ["new shape", "zero"], ["batch size"], name="batch size", axis=0),
        helper.make_node("Gather", ["new shape", "one"], ["head count"], name="head count", axis=0),
        helper.make_node("Gather", ["new shape", "two"], ["seq len"], name="seq len", axis=0),
        helper.make_node("Add", ["position", "seq len"], ["end"], name="end"),
        helper.make_node("Range", ["zero", "batch size", "one"], ["b range"], name="b range"),
        helper.make_node("Range", ["zero", "head count", "one"], ["h range"], name="h range"),
        helper.make_node("Range", ["position", "end", "one"], ["p range"], name="p range"),
        helper.make_node("Unsqueeze", ["b range", "axes b"], ["b col"], name="b col"),
        helper.make_node("Unsqueeze", ["h range", "axes h"], ["h col"], name="h col"),
        helper.make_node("Unsqueeze", ["p range", "axes p"], ["p col"], name="p col"),
        helper.make_node("Slice", ["new shape", "slice starts", "slice ends"], ["bhs"], name="bhs"),
        helper.make_node("Concat", ["bhs", "last"], ["grid shape"], name="grid shape", axis=0),
        helper.make_node("Expand", ["b col", "grid shape"], ["b grid"], name="b grid"),
        helper.make_node("Expand", ["h col", "grid shape"], ["h grid"], name="h grid"),
        helper.make_node("Expand", ["p col", "grid shape"], ["p grid"], name="p grid"),
        helper.make_node("Concat", ["b grid", "h grid", "p grid"], ["write indices"], name="write indices", axis=-1),
        helper.make_node("ScatterND", ["key cache", "write indices", "new keys"], ["updated cache"],
                         name="write keys"),
        helper.make_node("Transpose", ["updated cache"], ["keys t"], name="keys t", perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["query", "keys t"], ["scores"], name="scores"),
    ]
    graph = helper.make_graph(
        nodes, "kv cache update",
        [helper.make_tensor_value_info("key cache", TensorProto.FLOAT, ["batch", HEADS, MAX_SEQ, HEAD_DIM]),
         helper.make_tensor_value_info("new keys", TensorProto.FLOAT, ["batch", HEADS, "seq", HEAD_DIM]),
         helper.make_tensor_value_info("position", i64, []),
         helper.make_tensor_value_info("query", TensorProto.FLOAT, ["batch", HEADS, 1, HEAD_DIM])],
        [helper.make_tensor_value_info("updated cache", TensorProto.FLOAT, ["batch", HEADS, MAX_SEQ, HEAD_DIM]),
         helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", HEADS, 1, MAX_SEQ])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], producer_name="tests")
    onnx.checker.check_model(model, full_check=True)
    return model


def kv_cache_inputs(batch: int = 2, seq: int = 3, position: int = 2, seed: int = 2) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"key cache": rng.standard_normal((batch, HEADS, MAX_SEQ, HEAD_DIM)).astype(np.float32),
            "new keys": rng.standard_normal((batch, HEADS, seq, HEAD_DIM)).astype(np.float32),
            "position": np.array(position, dtype=np.int64),
            "query": rng.standard_normal((batch, HEADS, 1, HEAD_DIM)).astype(np.float32)}


def chain_model(n: int = 50, size: int = 16) -> onnx.ModelProto:
    ops = ["Relu", "Neg", "Abs", "Add", "Mul"]
    nodes, prev = [], "x"
    inits = [numpy_helper.from_array(np.full((size,), 0.5, np.float32), "c")]
    for i in range(n):
        op = ops[i % len(ops)]
        out = f"t{i}" if i < n - 1 else "y"
        nodes.append(helper.make_node(op, [prev, "c"] if op in ("Add", "Mul") else [prev], [out], name=f"op{i}"))
        prev = out
    graph = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [size])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [size])], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
