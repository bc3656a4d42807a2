"""Blocks for the ONNX ops other than the seven indexing ops ("any op"): the Tab box finds
``MatMul`` and adds a foreign node with the ports of its ONNX schema
(``onnx_io.foreign_ops.new_foreign_node``; no attributes set, so the schema's defaults apply).

- Keys are ``onnx:<op>`` for the default domain (``onnx:MatMul``) and ``onnx:<domain>::<op>``
  otherwise; :func:`onnx_block` makes the block of any such key, listed or not.
- A block's node is made at the graph's opset; an op that is not in that opset (or that
  ONNX has no schema for) raises ValueError from ``make``, with a message for people.
- :class:`OnnxCatalog` lists the default domain's ops (not deprecated, not the seven, which
  are first-class blocks) once per process. Reading ONNX's schemas takes about half a
  second, so it is read on a background thread started by :meth:`OnnxCatalog.start`; until
  it is done :meth:`OnnxCatalog.blocks` is empty. ``shutdown()`` waits for that thread
  (``lifecycle``).

No Qt here.
"""
from __future__ import annotations

import threading

import ops
from nodeeditor.graph import Graph
from nodeeditor.graph import nodes as N

from . import lifecycle
from .blocks import Block

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


class OnnxCatalog:
    """The default domain's ONNX ops as blocks, read once on a background thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._blocks: tuple[Block, ...] | None = None
        self._error: str | None = None
        lifecycle.register(self)

    def start(self) -> None:
        """Start reading the catalog (once; later calls do nothing)."""
        with self._lock:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._read, name="onnx op catalog", daemon=True)
            self._thread.start()

    def _read(self) -> None:
        try:
            from nodeeditor.onnx_io.foreign_ops import op_catalog

            own = set(ops.OP_NAMES)
            entries = [e for e in op_catalog(CATALOG_OPSET)
                       if e.domain == "" and not e.deprecated and e.op_type not in own]
            blocks = tuple(onnx_block(onnx_key(e.op_type), e.summary) for e in entries)
        except Exception as exc:  # noqa: BLE001 - no onnx, a broken install: the Tab box lists the built-in blocks
            self._error, blocks = str(exc), ()
        self._blocks = blocks

    def ready(self) -> bool:
        return self._blocks is not None

    def blocks(self) -> tuple[Block, ...]:
        """The ONNX op blocks (empty until read, or when onnx could not be read)."""
        return self._blocks or ()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the catalog (started if it was not); True when it is read."""
        self.start()
        self._thread.join(timeout)
        return self.ready()

    def shutdown(self) -> None:
        if self._thread is not None:
            self._thread.join()


_catalog: OnnxCatalog | None = None


def catalog() -> OnnxCatalog:
    """The process's catalog (made on first use, not yet started)."""
    global _catalog
    if _catalog is None:
        _catalog = OnnxCatalog()
    return _catalog
