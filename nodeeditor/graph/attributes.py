"""Checking an attribute value an operator node is given (by a person, a file or a paste).

TODO(opdef): ``ops`` is getting a public coercion on the op schema (``OpDef``); once it has
landed, :func:`check_attribute` should call it instead of re-encoding the int/string rule
(``ops/schema.py::_coerce`` holds the same rule today).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .nodes import OperatorNode


def check_attribute(node: OperatorNode, name: str, value: Any) -> Any:
    """The value as plain int/str; ValueError for a name the op never has and for a value of
    the wrong kind (opset rules are checked by inference and shown on the node)."""
    specs = {a.name: a for a in node.schema.attributes}
    if name not in specs:
        raise ValueError(f"{node.op} has no attribute {name!r}; it has {', '.join(specs) or 'none'}")
    kind = specs[name].kind
    if kind == "int" and (isinstance(value, bool) or not isinstance(value, (int, np.integer))):
        raise ValueError(f"{node.op} attribute {name!r} must be an integer, got {value!r}")
    if kind == "string" and not isinstance(value, str):
        raise ValueError(f"{node.op} attribute {name!r} must be a string, got {value!r}")
    return int(value) if kind == "int" else value
