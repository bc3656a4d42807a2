"""Blocks for the ONNX ops other than the seven indexing ops ("any op"): the Tab box finds
``MatMul`` and adds a foreign node with the ports of its ONNX schema
(``onnx_io.foreign_ops.new_foreign_node``; no attributes set, so the schema's defaults apply).

- Keys are ``onnx:<op>`` for the default domain (``onnx:MatMul``) and ``onnx:<domain>::<op>``
  otherwise; :func:`onnx_block` makes the block of any such key, listed or not.
- A block's node is made at the graph's opset; an op that is not in that opset (or that
  ONNX has no schema for) raises ValueError from ``make``, with a message for people.
- :func:`catalog_blocks` lists the default domain's ops (not deprecated, not the seven,
  which are first-class blocks), read once per process on the thread that first asks (the
  Tab box's first search, on the UI thread: short enough, ``benchmarks/README.md``; no
  thread to stop at exit).
- :func:`wire_ports` says, for a wire dropped on empty canvas, which catalog ops have a port
  that takes it and which port: the first whose ONNX type constraint allows the wire's dtype
  (read from the schemas once per opset). The schema is the only judge here: a foreign node
  has no type rules of its own in the graph layer (``rules.type_refusal``).

No Qt here.
"""
from __future__ import annotations

import functools

import ops
from nodeeditor.graph import Graph
from nodeeditor.graph import nodes as N
from ops.dtypes import INTEGER_NAMES

from .block_type import Block

KEY_PREFIX = "onnx:"
CATEGORY = "ONNX"
#: The opset the catalog lists ops at (an op newer than a graph's opset is refused by ``make``).
CATALOG_OPSET = ops.MAX_OPSET


def onnx_key(op_type: str, domain: str = "") -> str:
    return KEY_PREFIX + (f"{domain}::{op_type}" if domain not in ("", "ai.onnx") else op_type)


def is_onnx_key(key: str) -> bool:
    return key.startswith(KEY_PREFIX) and len(key) > len(KEY_PREFIX)


def _split(key: str) -> tuple[str, str]:
    """(domain, op type) of a key; KeyError for a key that is not an ONNX op's."""
    if not is_onnx_key(key):
        raise KeyError(f"no block {key!r}")
    rest = key[len(KEY_PREFIX):]
    domain, _, op_type = rest.rpartition("::")
    if not op_type:
        raise KeyError(f"no block {key!r}")
    return domain, op_type


def onnx_block(key: str, summary: str = "") -> Block:
    """The block adding a foreign node of the op ``key`` names (KeyError for a key that is
    not ``onnx:...``)."""
    domain, op_type = _split(key)

    def make(graph: Graph, position: tuple[float, float]) -> N.Node:
        from nodeeditor.onnx_io.foreign_ops import new_foreign_node

        opset = graph.opsets().get(domain, graph.opset) if domain else graph.opset
        return new_foreign_node(op_type, domain, opset, node_id=graph.new_id(op_type.lower()), position=position)

    where = f" ({domain})" if domain else ""
    description = (summary + " " if summary else "") + f"ONNX op{where}, run by onnxruntime."
    return Block(key, op_type if not domain else f"{domain}::{op_type}", CATEGORY, description, make)


@functools.lru_cache(maxsize=1)
def catalog_blocks() -> tuple[Block, ...]:
    """The default domain's ONNX ops as blocks (not deprecated, not the seven), read once per
    process on the calling thread. Empty when onnx cannot be read."""
    try:
        from nodeeditor.onnx_io.foreign_ops import op_catalog

        own = set(ops.OP_NAMES)
        entries = [e for e in op_catalog(CATALOG_OPSET) if e.domain == "" and not e.deprecated and e.op_type not in own]
    except Exception:  # noqa: BLE001 - no onnx, a broken install: only the editor's own blocks are offered
        return ()
    return tuple(onnx_block(onnx_key(e.op_type), e.summary) for e in entries)


#: ONNX's names for the dtypes whose numpy name differs (``tensor(float)`` is float32).
_ONNX_DTYPE = {"float32": "float", "float64": "double", "str": "string"}


def _onnx_type(dtype: str) -> str:
    return f"tensor({_ONNX_DTYPE.get(dtype, dtype)})"


def _typed(ports, params: list, allowed: dict) -> tuple[tuple[str, frozenset[str]], ...]:
    """Each port with the type strings its formal parameter allows (a variadic last parameter
    stands for every port from its place on)."""
    pairs = []
    for i, port in enumerate(ports):
        if params:
            param = params[min(i, len(params) - 1)]
            pairs.append((port, allowed.get(param.type_str, frozenset({param.type_str}))))
    return tuple(pairs)


@functools.lru_cache(maxsize=4)
def _port_types(opset: int) -> tuple[tuple[str, tuple[tuple[str, frozenset[str]], ...],
                                           tuple[tuple[str, frozenset[str]], ...]], ...]:
    """For every catalog op ONNX has at ``opset``: (key, ((input port, allowed type strings),
    ...), ((output port, allowed), ...)), ports named as the node the block makes names them."""
    from nodeeditor.onnx_io.foreign_ops import new_foreign_node, schema

    out = []
    for b in catalog_blocks():
        domain, op_type = _split(b.key)
        s = schema(op_type, domain, opset)
        if s is None:
            continue
        try:
            node = new_foreign_node(op_type, domain, opset)
        except ValueError:
            continue
        allowed = {c.type_param_str: frozenset(c.allowed_type_strs) for c in s.type_constraints}
        inputs = _typed(node.input_ports(), list(s.inputs), allowed)
        outputs = _typed(node.output_ports(), list(s.outputs), allowed)
        out.append((b.key, inputs, outputs))
    return tuple(out)


def wire_ports(opset: int, dtype: str | None, to_input: bool, *, integer: bool = False) -> dict[str, str]:
    """Catalog op key -> the port a dropped wire would take on a new node of that op at
    ``opset``: with ``to_input`` (the wire comes from an output) the first input whose type
    allows ``dtype`` (any tensor when ``dtype`` is None); else (the wire was drawn back from
    an input) the first output giving a tensor, an integer one when ``integer``. Ops with no
    such port are left out."""
    wanted = _onnx_type(dtype) if dtype is not None else None
    out: dict[str, str] = {}
    for key, inputs, outputs in _port_types(int(opset)):
        for port, allowed in (inputs if to_input else outputs):
            if wanted is not None and to_input:
                fits = wanted in allowed
            elif integer and not to_input:
                fits = any(_onnx_type(d) in allowed for d in INTEGER_NAMES)
            else:
                fits = any(t.startswith("tensor(") for t in allowed)
            if fits:
                out[key] = port
                break
    return out
