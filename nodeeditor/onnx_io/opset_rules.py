"""Which opset each operator node needs, and the op type it is written as at an opset.

The rules are not written out by hand: a node needs the lowest opset at which ``ops``' own
type inference (schema versions, attribute values, dtypes) accepts it. Two spellings differ
by opset: ``Scatter`` exists only at opsets 9 and 10 and is written as ``ScatterElements`` from
11 on (which ``onnx.checker`` and onnxruntime require); a ``ScatterElements`` with reduction
none is written as ``Scatter`` at 9 and 10.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import onnx

import ops

#: The highest opset this exporter writes: the newest the installed onnx knows, or the newest the
#: indexing ops' schemas describe (TensorScatter's 24), whichever is later.
MAX_OPSET = max(ops.MAX_OPSET, onnx.defs.onnx_opset_version())
MIN_OPSET = 1
#: The lowest opset an exported model may declare (onnx's IR version table starts there).
MIN_EXPORT_OPSET = 1


def onnx_op_type(op: str, attrs: Mapping[str, Any], opset: int) -> str:
    """The op type a node of ``op`` is written as at ``opset`` (the schemas' ``replaced_by``): a
    deprecated op, from the opset that deprecates it, as the op that replaced it; below that
    opset, the replacing op as the deprecated one when every attribute the old op lacks holds
    its default (ScatterElements with reduction none)."""
    schema = ops.get_schema(op)
    if schema.replaced_by is not None and opset >= schema.deprecated_since:
        return schema.replaced_by
    defaults = schema.defaults()
    for older in ops.SCHEMAS.values():
        if older.replaced_by == op and opset < older.deprecated_since:
            kept = {a.name for a in older.attributes}
            if all(name in kept or value == defaults.get(name) for name, value in attrs.items()):
                return older.name
    return op


def _as_written(op: str, attrs: Mapping[str, Any], opset: int) -> tuple[str, dict]:
    """The op type and the attributes it is written with (those the written op has)."""
    written = onnx_op_type(op, attrs, opset)
    if written != op:
        kept = {a.name for a in ops.get_schema(written).attributes}
        attrs = {name: value for name, value in attrs.items() if name in kept}
    return written, dict(attrs)


def check_at(op: str, input_types: Sequence[ops.TensorType | None], attrs: Mapping[str, Any], opset: int) -> str | None:
    """None when the node can be written at ``opset``, else the reason (``ops``' message)."""
    written, attrs = _as_written(op, attrs, opset)
    try:
        ops.infer_types(written, input_types, attrs, opset)
    except ops.OpError as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class OpsetNeed:
    """The lowest opset a node can be written at, and why a lower one fails (empty if none)."""

    opset: int | None
    reason: str


def lowest_opset(op: str, input_types: Sequence[ops.TensorType | None], attrs: Mapping[str, Any]) -> OpsetNeed:
    """The lowest opset in ``MIN_OPSET..MAX_OPSET`` where the node is valid (None if none is).

    ``reason`` is the message from the opset just below the answer, so a user reads exactly
    what that opset lacks (e.g. ``reduction='max' is not allowed at opset 17 ...``).
    """
    previous = ""
    for opset in range(MIN_OPSET, MAX_OPSET + 1):
        problem = check_at(op, input_types, attrs, opset)
        if problem is None:
            return OpsetNeed(opset, previous)
        previous = problem
    return OpsetNeed(None, previous)
