"""Unique tensor and node names for an exported model, and the editor's own names carried
beside them.

Names are kept exactly as they are (the ONNX IR allows any string; ``onnx.checker`` and
onnxruntime accept them), so a graph input called "token ids" is the model input "token ids"
and ``run --output`` writes the same array names for both engines. Only a clash changes a
name: the second "x" becomes "x_2". Where a node's ONNX name differs from its name in the
editor (a clash, or a tensor named after its node and port), the editor's name travels in
the model's ``metadata_props`` under ``DISPLAY_NAMES_KEY``, as a JSON object from the ONNX
name (of the node for an operator, of the tensor for a source or an output) to the display
name; runtimes ignore it and an import puts the names back.
"""
from __future__ import annotations

import json


class NameTable:
    """Hands out names that are unique within one namespace of one model (tensors, or nodes).

    ``claim(wanted)`` returns ``wanted`` itself (an empty name becomes ``t``), with ``_2``,
    ``_3``... appended when already taken. Names claimed first keep their spelling, so claim
    graph inputs and outputs before intermediates.
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def claim(self, wanted: str) -> str:
        base = wanted if wanted else "t"
        name, n = base, 1
        while name in self._taken:
            n += 1
            name = f"{base}_{n}"
        self._taken.add(name)
        return name

    def __contains__(self, name: str) -> bool:
        return name in self._taken


DISPLAY_NAMES_KEY = "indexflow.names"


def encode_display_names(names: dict[str, str]) -> str | None:
    """The metadata text for ``{onnx name: display name}``, or None when every display name
    is already its ONNX name."""
    differing = {k: v for k, v in names.items() if k != v}
    return json.dumps(differing, ensure_ascii=False, sort_keys=True) if differing else None


def decode_display_names(text: str | None) -> dict[str, str]:
    """``{onnx name: display name}`` from the metadata text; anything malformed (another
    tool's entry under the same key, a damaged file) gives no names rather than an error:
    the model still imports, with its ONNX names."""
    if not text:
        return {}
    try:
        loaded = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(loaded, dict):
        return {}
    return {k: v for k, v in loaded.items() if isinstance(k, str) and isinstance(v, str) and v.strip()}
