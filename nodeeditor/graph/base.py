"""Small things every graph module may share: the document's settings and their defaults,
and the error a refused connection raises. Nothing in ``nodeeditor.graph`` is below this
module (it imports none of it), so any module can use it without making a cycle.
"""
from __future__ import annotations

from typing import Any

import numpy as np

DEFAULT_OPSET = 18
#: The document settings and the value each has in a new graph.
SETTINGS_DEFAULTS: dict[str, Any] = {"name": "untitled", "description": "", "opset": DEFAULT_OPSET}


class ConnectionRefused(ValueError):  # noqa: N818 - public name, used by callers and undo commands
    """``Graph.connect`` refused an edge; ``reason`` (also ``str(exc)``) says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


#: No ONNX opset comes near this (24 in 2026); a larger one is a damaged or hostile file.
MAX_GRAPH_OPSET = 100


def check_opset(value: Any) -> int:
    """``value`` as an int opset; ValueError unless it is an integer (not a bool) from 1 to
    :data:`MAX_GRAPH_OPSET`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or int(value) < 1:
        raise ValueError(f"opset must be a positive integer, got {value!r}")
    if int(value) > MAX_GRAPH_OPSET:
        raise ValueError(f"opset {int(value)} is not an ONNX opset (IndexFlow takes 1 to {MAX_GRAPH_OPSET})")
    return int(value)
