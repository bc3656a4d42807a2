"""Blocks: everything a person can add to a graph, for the palette and the quick-add box.

A :class:`Block` (:mod:`.block_type`) has a stable ``key`` (also the drag-and-drop payload), a
title, a category and a ``make(graph, position)`` that builds a fresh, not yet added node
object (so an undo command can add and remove that same object). No Qt here.
"""
from __future__ import annotations

import numpy as np

import ops
from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph
from nodeeditor.graph.losses import DEFAULT_LOSS
from nodeeditor.graph.sources import GENERATORS

from .block_type import Block
from .onnx_blocks import is_onnx_key, onnx_block

MIME_TYPE = "application/x-indexflow-block"
CATEGORIES = ("Sources", "Gather", "Scatter", "Training", "Outputs")


def _op_block(op: str, category: str) -> Block:
    schema = ops.get_schema(op)
    since = f"opset {schema.versions[0]}+" if schema.deprecated_since is None else \
        f"opset {schema.versions[0]}-{schema.deprecated_since - 1}"

    def make(graph: Graph, position: tuple[float, float]) -> N.Node:
        return N.OperatorNode(id=graph.new_id(op), name="", position=position, op=op)

    return Block(f"op:{op}", op, category, f"{schema.doc} ({since})", make)


def next_seed(graph: Graph) -> int:
    """The seed for a new random generator: one more than the largest seed in ``graph`` (0 in
    a graph without one), so two random blocks added one after the other draw different
    values (two equal tensors look like a wiring mistake) and the graph stays reproducible."""
    seeds = [int(n.params.get("seed", 0)) for n in graph.nodes
             if isinstance(n, N.GeneratorSource) and "seed" in GENERATORS.get(n.generator, {})]
    return max(seeds) + 1 if seeds else 0


def _generator_block(generator: str, title: str, description: str) -> Block:
    def make(graph: Graph, position: tuple[float, float]) -> N.Node:
        seeded = "seed" in GENERATORS[generator]
        seed = next_seed(graph) if seeded else 0
        return N.GeneratorSource(id=graph.new_id(generator), name="", position=position, generator=generator,
                                 params={"seed": seed} if seed else {})

    return Block(f"gen:{generator}", title, "Sources", description, make)


def _literal(graph: Graph, position: tuple[float, float]) -> N.Node:
    value = N.frozen_array(np.arange(6, dtype=np.float32).reshape(2, 3))
    return N.LiteralSource(id=graph.new_id("literal"), name="", position=position, value=value)


def _indices(graph: Graph, position: tuple[float, float]) -> N.Node:
    value = N.frozen_array(np.array([0, 1], dtype=np.int64))
    return N.LiteralSource(id=graph.new_id("indices"), name="", position=position, value=value)


def _file(graph: Graph, position: tuple[float, float]) -> N.Node:
    return N.FileSource(id=graph.new_id("file"), name="", position=position)


def _input(graph: Graph, position: tuple[float, float]) -> N.Node:
    node_id = graph.new_id("input")
    return N.InputSource(id=node_id, name=node_id, position=position,
                         example=N.frozen_array(np.zeros((2, 3), np.float32)))


def _loss(graph: Graph, position: tuple[float, float]) -> N.Node:
    return N.LossNode(id=graph.new_id("loss"), name="", position=position, loss=DEFAULT_LOSS)


def _output(graph: Graph, position: tuple[float, float]) -> N.Node:
    node_id = graph.new_id("output")
    return N.OutputNode(id=node_id, name=node_id, position=position)


BLOCKS: tuple[Block, ...] = (
    Block("literal", "Literal tensor", "Sources", "A small tensor typed in by hand (editable value table).", _literal),
    Block("literal:indices", "Literal indices", "Sources", "An int64 index vector typed in by hand.", _indices),
    _generator_block("arange", "Arange", "0, 1, 2, ... (start, stop, step)."),
    _generator_block("zeros", "Zeros", "A tensor of zeros of a given shape and dtype."),
    _generator_block("ones", "Ones", "A tensor of ones of a given shape and dtype."),
    _generator_block("full", "Full", "A tensor filled with one value."),
    _generator_block("eye", "Eye", "An identity matrix."),
    _generator_block("uniform", "Random uniform", "Seeded uniform random values in [low, high)."),
    _generator_block("normal", "Random normal", "Seeded normal random values."),
    _generator_block("integers", "Random integers", "Seeded random integers in [low, high): handy as indices."),
    _generator_block("permutation", "Random permutation", "A seeded permutation of 0..n-1."),
    Block("file", "File (.npy/.npz/.csv)", "Sources", "A tensor read from a file.", _file),
    Block("input", "Graph input", "Sources", "A named model input with an example value.", _input),
    *(_op_block(op, "Scatter" if ops.get_opdef(op).writes else "Gather") for op in ops.OP_NAMES),
    Block("loss", "Loss", "Training", "A scalar loss of a prediction (mean squared error against a target, "
          "softmax cross-entropy, sum or mean): where training starts. Mark a source trainable and open "
          "the Training dock.", _loss),
    Block("output", "Graph output", "Outputs", "A named model output.", _output),
)
BY_KEY: dict[str, Block] = {b.key: b for b in BLOCKS}


def block(key: str) -> Block:
    """The block with that key, an ONNX op's for ``onnx:MatMul`` (:mod:`.onnx_blocks`);
    KeyError naming it otherwise."""
    try:
        return BY_KEY[key]
    except KeyError:
        pass
    if is_onnx_key(key):
        return onnx_block(key)
    raise KeyError(f"no block {key!r}")


def fuzzy_score(query: str, text: str) -> int | None:
    """How well ``query`` matches ``text`` as an in-order subsequence (higher is better);
    None when it does not match. Consecutive letters and word starts score extra."""
    q = query.lower().replace(" ", "")
    t = text.lower()
    if not q:
        return 0
    score, pos, last = 0, 0, -2
    for ch in q:
        found = t.find(ch, pos)
        if found < 0:
            return None
        score += 1
        if found == last + 1:
            score += 3
        if found == 0 or not t[found - 1].isalnum() or (text[found].isupper() and found > 0):
            score += 2
        last, pos = found, found + 1
    if t.startswith(q):
        score += 10
    return score - len(t) // 8


def search(query: str, blocks=BLOCKS) -> list[Block]:
    """Blocks matching ``query`` (title, key or category), best first."""
    scored = []
    for i, b in enumerate(blocks):
        best = max((s for s in (fuzzy_score(query, b.title), fuzzy_score(query, b.key),
                                fuzzy_score(query, b.category)) if s is not None), default=None)
        if best is not None:
            scored.append((-best, i, b))
    return [b for _, _, b in sorted(scored, key=lambda x: (x[0], x[1]))]
