"""Graph-input example values carried in a model's ``metadata_props``.

An ONNX model has no place for the example value the editor runs a graph input with, so an
export stores small examples (up to ``MAX_ELEMENTS``) under the key
``indexflow.example.<input name>`` and an import restores them; runtimes ignore the entries.
Numbers travel as base64 ``.npy`` bytes (``npy:`` prefix, loaded without pickle), strings as
JSON (``json:`` prefix): nothing read from a model can execute code. ``.npy`` cannot name the
ml_dtypes types (bfloat16, float8, int4...), so they travel as their bits with the dtype named
(``bits:<dtype>:`` then the ``.npy`` of the unsigned integers of the same size).
"""
from __future__ import annotations

import base64
import io
import json

import numpy as np

import ops

PREFIX = "indexflow.example."
MAX_ELEMENTS = 4096


def encode_example(value: np.ndarray) -> str | None:
    """The text for ``value``, or None when it is too large to carry."""
    value = np.asarray(value)
    if value.size > MAX_ELEMENTS:
        return None
    if value.dtype.kind == "O":
        return "json:" + json.dumps({"shape": list(value.shape), "strings": [str(x) for x in value.ravel()]})
    prefix = "npy:"
    if ops.dtypes.is_ml_dtype(value.dtype):
        prefix = f"bits:{ops.dtype_name(value)}:"
        value = value.view(f"u{value.dtype.itemsize}")
    buf = io.BytesIO()
    np.save(buf, value, allow_pickle=False)
    return prefix + base64.b64encode(buf.getvalue()).decode("ascii")


def decode_example(text: str) -> np.ndarray | None:
    """The array stored by :func:`encode_example`, or None when the text is not one."""
    try:
        if text.startswith("json:"):
            doc = json.loads(text[5:])
            arr = np.empty(len(doc["strings"]), dtype=object)
            arr[:] = [str(s) for s in doc["strings"]]
            return arr.reshape(doc["shape"])
        if text.startswith("npy:"):
            raw = base64.b64decode(text[4:].encode("ascii"), validate=True)
            return np.load(io.BytesIO(raw), allow_pickle=False)
        if text.startswith("bits:"):
            _, name, payload = text.split(":", 2)
            dtype = np.dtype(ops.dtype_of(name))
            bits = np.load(io.BytesIO(base64.b64decode(payload.encode("ascii"), validate=True)), allow_pickle=False)
            return bits.view(dtype) if bits.dtype == np.dtype(f"u{dtype.itemsize}") else None
    except Exception:  # noqa: BLE001 - text that is not ours (json, base64, npy) can fail in many ways
        return None
    return None
