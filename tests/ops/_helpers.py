"""Shared helpers for the ops tests: dtype tables, value generation, exact comparison."""
from __future__ import annotations

import ml_dtypes
import numpy as np

# The 16 dtypes every indexing op allows (our names, see ops/CONTRACT.md).
CORE_DTYPES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "string",
)

# onnx type strings -> our names
ONNX_TYPE_TO_NAME = {
    "tensor(bool)": "bool",
    "tensor(int8)": "int8", "tensor(int16)": "int16", "tensor(int32)": "int32",
    "tensor(int64)": "int64",
    "tensor(uint8)": "uint8", "tensor(uint16)": "uint16", "tensor(uint32)": "uint32",
    "tensor(uint64)": "uint64",
    "tensor(float16)": "float16", "tensor(bfloat16)": "bfloat16", "tensor(float)": "float32",
    "tensor(double)": "float64", "tensor(complex64)": "complex64",
    "tensor(complex128)": "complex128", "tensor(string)": "string",
}


def np_dtype(name: str) -> np.dtype:
    """Our dtype name -> numpy dtype, independent of ops (strings are object arrays)."""
    if name == "string":
        return np.dtype(object)
    if name == "bfloat16":
        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def eps(dtype: np.dtype) -> float:
    if dtype == np.dtype(ml_dtypes.bfloat16):
        return float(ml_dtypes.finfo(ml_dtypes.bfloat16).eps)
    return float(np.finfo(dtype).eps)


def is_float_like(dtype: np.dtype) -> bool:
    return dtype.kind in "fc" or dtype == np.dtype(ml_dtypes.bfloat16)


_WORDS = ("", "a", "b", "ab", "xyz", "é", "日本", "a b", "Z", "0", "long string value")


def random_values(rng: np.random.Generator, name: str, shape, *, nan=False, small=False):
    """Random values of dtype ``name``.

    small: magnitudes in [0.5, 2] with random sign (so products of a dozen factors neither
    overflow nor go subnormal, even in float16); nan: sprinkle NaN/inf into float data.
    """
    shape = tuple(shape)
    dt = np_dtype(name)
    if name == "string":
        out = np.empty(shape, dtype=object)
        for i in np.ndindex(*shape):
            out[i] = _WORDS[rng.integers(len(_WORDS))] + str(rng.integers(0, 3))
        return out
    if name == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        if small:
            lo, hi = max(int(info.min), -3), min(int(info.max), 3)
            return rng.integers(lo, hi, size=shape, endpoint=True).astype(dt)
        return rng.integers(int(info.min), int(info.max), size=shape, endpoint=True,
                            dtype=np.int64 if dt != np.uint64 else np.uint64).astype(dt)

    def real():
        if small:
            mag = rng.uniform(0.5, 2.0, size=shape)
            sign = np.where(rng.integers(0, 2, size=shape) == 1, 1.0, -1.0)
            return mag * sign
        x = np.round(rng.standard_normal(size=shape) * 8, 2)
        if nan:
            r = rng.random(size=shape)
            x = np.where(r < 0.1, np.nan, x)
            x = np.where((r >= 0.1) & (r < 0.13), np.inf, x)
            x = np.where((r >= 0.13) & (r < 0.16), -np.inf, x)
        return x

    if dt.kind == "c":
        return (real() + 1j * real()).astype(dt)
    return real().astype(dt)


def copies(arrays):
    return [None if a is None else a.copy() for a in arrays]


def _as_comparable(a: np.ndarray) -> np.ndarray:
    if a.dtype == np.dtype(ml_dtypes.bfloat16) or a.dtype == np.float16:
        return a.astype(np.float32)
    return a


def assert_same(got, want, *, check_dtype=True):
    """Exact equality: shape, dtype and every value (NaN equals NaN)."""
    assert isinstance(got, np.ndarray), f"expected an ndarray, got {type(got).__name__}"
    assert got.shape == want.shape, f"shape {got.shape} != expected {want.shape}"
    if check_dtype:
        assert got.dtype == want.dtype, f"dtype {got.dtype} != expected {want.dtype}"
    if want.dtype == object:
        for i in np.ndindex(*want.shape):
            assert type(got[i]) is str, f"element {i} is {type(got[i]).__name__}, not str"
            assert got[i] == want[i], f"at {i}: {got[i]!r} != expected {want[i]!r}"
        return
    np.testing.assert_array_equal(_as_comparable(got), _as_comparable(want), strict=False)


def assert_inputs_unchanged(before, after):
    for i, (b, a) in enumerate(zip(before, after)):
        if b is None:
            continue
        try:
            assert_same(a, b)
        except AssertionError as e:
            raise AssertionError(f"input {i} was modified: {e}") from None


def assert_no_shared_memory(out, inputs):
    for i, a in enumerate(inputs):
        if a is not None and a.size and out.size:
            assert not np.shares_memory(out, a), f"output shares memory with input {i}"
