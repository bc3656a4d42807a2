"""What tensor sources produce: generators (seeded, deterministic) and files.

Pure functions, no graph state. ``*_type`` functions give the TensorType without
building the tensor (generators) or with a cheap, cached read (files), so the
document can infer types eagerly.
"""
from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

import ops
from ops import TensorType, config, limits

from . import arrayfiles

# generator name -> default parameters. Every generator takes "dtype".
GENERATORS: dict[str, dict[str, Any]] = {
    "zeros": {"shape": [2, 3], "dtype": "float32"},
    "ones": {"shape": [2, 3], "dtype": "float32"},
    "full": {"shape": [2, 3], "dtype": "float32", "value": 1.0},
    "arange": {"start": 0, "stop": 6, "step": 1, "dtype": "int64"},
    "eye": {"n": 3, "m": None, "k": 0, "dtype": "float32"},
    "uniform": {"shape": [2, 3], "dtype": "float32", "low": 0.0, "high": 1.0, "seed": 0},
    "normal": {"shape": [2, 3], "dtype": "float32", "mean": 0.0, "std": 1.0, "seed": 0},
    "integers": {"shape": [2, 3], "dtype": "int64", "low": 0, "high": 10, "seed": 0},
    "permutation": {"n": 6, "dtype": "int64", "seed": 0},
}


class SourceError(ValueError):
    """A source cannot produce its tensor (bad parameters, missing or unreadable file)."""


def max_generated_bytes() -> int:
    """Largest tensor a generator may make: ``INDEXFLOW_MAX_SOURCE_MB`` (default 2048) MiB
    (:func:`ops.config.max_source_bytes`, read on each call), so a slip in a shape field
    (``[100000, 100000]``) is an error on the node, not an exhausted machine."""
    return config.max_source_bytes()


def _check_size(generator: str, ttype: TensorType) -> TensorType:
    try:
        limits.check_size(f"{generator}:", ttype.shape, ttype.dtype, noun="generated tensors")
    except limits.SizeLimitError as exc:
        raise SourceError(str(exc)) from None
    return ttype


def generator_params(generator: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults of ``generator`` overlaid with ``params``. SourceError for an unknown
    generator or parameter, or a value of the wrong type (see :func:`_check_param`)."""
    if generator not in GENERATORS:
        raise SourceError(f"unknown generator {generator!r}; known: {', '.join(GENERATORS)}")
    merged = dict(GENERATORS[generator])
    for key, value in (params or {}).items():
        if key not in merged:
            raise SourceError(f"generator {generator!r} has no parameter {key!r}")
        _check_param(generator, key, value, merged[key])
        merged[key] = value
    return merged


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_param(generator: str, key: str, value: Any, default: Any) -> None:
    """A parameter has its default's type (what the property panel edits): ``shape`` a list
    of integers, ``dtype`` a name, an integer where the default is an integer (``m`` may also
    be empty), a number where it is a float and for arange's start, stop and step. A file
    edited by hand or damaged gets a message that names the parameter, never a Python error
    from deep inside numpy."""
    if key == "shape":
        ok = isinstance(value, (list, tuple)) and all(_is_int(d) for d in value)
        wanted = "a list of integers"
    elif key == "dtype":
        ok, wanted = isinstance(value, str), "a dtype name"
    elif default is None or key == "m":
        ok, wanted = value is None or _is_int(value), "an integer or empty"
    elif _is_int(default) and generator != "arange":  # arange(0, 1, 0.25) is a float range
        ok, wanted = _is_int(value), "an integer"
    else:
        ok = _is_int(value) or (isinstance(value, (float, np.floating)) and not isinstance(value, bool))
        wanted = "a number"
    if not ok:
        raise SourceError(f"{generator}: parameter {key!r} must be {wanted}, not {value!r}")


def _shape(value: Any) -> tuple[int, ...]:
    try:
        shape = tuple(int(d) for d in value)
    except TypeError as exc:
        raise SourceError(f"shape must be a list of integers, got {value!r}") from exc
    if any(d < 0 for d in shape):
        raise SourceError(f"shape must not have negative dimensions, got {list(shape)}")
    return shape


def _dtype(name: str) -> np.dtype:
    try:
        return np.dtype(ops.dtype_of(name))
    except Exception as exc:  # ops raises for unknown names; say it our way
        raise SourceError(f"unknown dtype {name!r}") from exc


def generator_type(generator: str, params: Mapping[str, Any] | None) -> TensorType:
    """The dtype and shape ``generate`` would return, computed without generating. SourceError
    for bad parameters or a tensor larger than :func:`max_generated_bytes`."""
    return _check_size(generator, _generator_type(generator, params))


def _generator_type(generator: str, params: Mapping[str, Any] | None) -> TensorType:
    p = generator_params(generator, params)
    _dtype(p["dtype"])
    if generator == "arange":
        step = p["step"]
        if step == 0:
            raise SourceError("arange step must not be 0")
        n = max(0, math.ceil((p["stop"] - p["start"]) / step))
        return TensorType(p["dtype"], (n,))
    if generator == "eye":
        n = int(p["n"])
        m = n if p["m"] is None else int(p["m"])
        return TensorType(p["dtype"], _shape([n, m]))
    if generator == "permutation":
        return TensorType(p["dtype"], _shape([p["n"]]))
    return TensorType(p["dtype"], _shape(p["shape"]))


#: Random generators draw this many values at a time (see :func:`_drawn`).
DRAW_CHUNK = 1 << 20


def _drawn(shape: tuple[int, ...], dtype: np.dtype, draw) -> np.ndarray:
    """``draw(size).astype(dtype)`` reshaped to ``shape``, drawn ``DRAW_CHUNK`` values at a
    time into the result. numpy's Generator gives the same stream whether a size is drawn at
    once or in pieces (tests/graph/test_sources.py checks it against the one-shot formula),
    so the values are those of one big draw, without its float64/int64 temporary: a 1e8
    float32 ``normal`` needed 1.2 GB and 4.1 s, now 0.4 GB and about 3 s."""
    out = np.empty(shape, dtype=dtype)
    flat = out.reshape(-1)
    for start in range(0, flat.size, DRAW_CHUNK):
        stop = min(flat.size, start + DRAW_CHUNK)
        flat[start:stop] = draw(stop - start)
    return out


def generate(generator: str, params: Mapping[str, Any] | None) -> np.ndarray:
    """Build the tensor. Random generators use ``numpy.random.default_rng(seed)``, so the
    same parameters always give the same tensor."""
    p = generator_params(generator, params)
    dtype = _dtype(p["dtype"])
    try:
        generator_type(generator, p)  # validates parameters and the size before allocating
        if generator == "zeros":
            return np.zeros(_shape(p["shape"]), dtype=dtype)
        if generator == "ones":
            return np.ones(_shape(p["shape"]), dtype=dtype)
        if generator == "full":
            return np.full(_shape(p["shape"]), p["value"], dtype=dtype)
        if generator == "arange":
            return np.arange(p["start"], p["stop"], p["step"]).astype(dtype)
        if generator == "eye":
            return np.eye(int(p["n"]), None if p["m"] is None else int(p["m"]), int(p["k"]), dtype=dtype)
        rng = np.random.default_rng(int(p["seed"]))
        if generator == "uniform":
            return _drawn(_shape(p["shape"]), dtype, lambda n: rng.uniform(p["low"], p["high"], n))
        if generator == "normal":
            return _drawn(_shape(p["shape"]), dtype, lambda n: rng.normal(p["mean"], p["std"], n))
        if generator == "integers":
            return _drawn(_shape(p["shape"]), dtype, lambda n: rng.integers(p["low"], p["high"], n))
        if generator == "permutation":
            return rng.permutation(int(p["n"])).astype(dtype)
    except SourceError:
        raise
    except (ValueError, TypeError, OverflowError) as exc:
        raise SourceError(f"{generator}: {exc}") from exc
    raise SourceError(f"unknown generator {generator!r}")  # pragma: no cover - guarded above


FILE_SUFFIXES = arrayfiles.SUFFIXES

# (resolved path, key, dtype, mtime_ns, size) -> TensorType
_TYPE_CACHE: dict[tuple, TensorType] = {}


def file_stamp(path: Path) -> tuple[int, int]:
    """(mtime_ns, size) of a file, used to notice that a file changed on disk."""
    st = os.stat(path)
    return st.st_mtime_ns, st.st_size


def load_file(path: Path, key: str | None = None, dtype: str | None = None) -> np.ndarray:
    """Read a ``.npy``, one array (``key``) of an ``.npz`` or a ``.csv`` (2-D, comma separated,
    ``dtype`` default float32) with :func:`nodeeditor.graph.arrayfiles.read_array`: regular files
    only, the size checked against the cap before reading, nothing unpickled. Raises SourceError
    naming the file on any problem (never quoting its content)."""
    try:
        return arrayfiles.read_array(path, key, dtype)
    except arrayfiles.ArrayFileError as exc:
        raise SourceError(str(exc)) from None


def file_type(path: Path, key: str | None = None, dtype: str | None = None) -> TensorType:
    """The type of what :func:`load_file` returns; ``.npy`` and ``.npz`` from their headers
    without reading the data; results are cached until the file changes."""
    path = Path(path)
    try:
        stamp = file_stamp(path)
    except OSError:
        raise SourceError(f"{path}: file not found") from None
    cache_key = (str(path.resolve()), key, dtype, *stamp)
    cached = _TYPE_CACHE.get(cache_key)
    if cached is not None:
        return cached
    try:
        result = arrayfiles.array_type(path, key, dtype)
    except arrayfiles.ArrayFileError as exc:
        raise SourceError(str(exc)) from None
    _TYPE_CACHE[cache_key] = result
    return result
