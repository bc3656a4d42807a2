"""Shared helpers for the ops tests: dtype tables, value generation, exact comparison."""
from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest

from ops import accel, parallel

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


# the extra (small) dtypes TensorScatter allows: our name -> (onnx type, ml_dtypes type)
SMALL_DTYPES = {
    "float8e4m3fn": ("tensor(float8e4m3fn)", ml_dtypes.float8_e4m3fn),
    "float8e4m3fnuz": ("tensor(float8e4m3fnuz)", ml_dtypes.float8_e4m3fnuz),
    "float8e5m2": ("tensor(float8e5m2)", ml_dtypes.float8_e5m2),
    "float8e5m2fnuz": ("tensor(float8e5m2fnuz)", ml_dtypes.float8_e5m2fnuz),
    "float8e8m0": ("tensor(float8e8m0)", ml_dtypes.float8_e8m0fnu),
    "float4e2m1": ("tensor(float4e2m1)", ml_dtypes.float4_e2m1fn),
    "int4": ("tensor(int4)", ml_dtypes.int4),
    "uint4": ("tensor(uint4)", ml_dtypes.uint4),
}
for _name, (_onnx, _t) in SMALL_DTYPES.items():
    ONNX_TYPE_TO_NAME[_onnx] = _name


def np_dtype(name: str) -> np.dtype:
    """Our dtype name -> numpy dtype, independent of ops (strings are object arrays)."""
    if name == "string":
        return np.dtype(object)
    if name == "bfloat16":
        return np.dtype(ml_dtypes.bfloat16)
    if name in SMALL_DTYPES:
        return np.dtype(SMALL_DTYPES[name][1])
    return np.dtype(name)


def is_ml_dtype(dtype: np.dtype) -> bool:
    """bfloat16 and the float8/float4/int4 types come from ml_dtypes."""
    return dtype.type.__module__.startswith("ml_dtypes")


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
    if name == "int4":
        return rng.integers(-8, 8, size=shape).astype(dt)
    if name == "uint4":
        return rng.integers(0, 16, size=shape).astype(dt)
    if name == "float8e8m0":  # powers of two only, no sign, no zero
        return (2.0 ** rng.integers(-4, 5, size=shape)).astype(dt)
    if name in SMALL_DTYPES:
        mag = rng.choice([0.5, 1.0, 1.5, 2.0, 3.0], size=shape)
        return (mag * np.where(rng.integers(0, 2, size=shape) == 1, 1.0, -1.0)).astype(dt)
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

    with np.errstate(all="ignore"):
        if dt.kind == "c":
            re, im = np.asarray(real()), np.asarray(real())
            out = np.empty(shape, dtype=dt)
            out.real, out.imag = re, im
            return out
        return np.asarray(real()).astype(dt)


def copies(arrays):
    return [None if a is None else a.copy() for a in arrays]


def _as_comparable(a: np.ndarray) -> np.ndarray:
    if is_ml_dtype(a.dtype) or a.dtype == np.float16:
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
    np.testing.assert_array_equal(_as_comparable(got), _as_comparable(want), strict=True)


def assert_inputs_unchanged(before, after):
    for i, (b, a) in enumerate(zip(before, after, strict=True)):
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


def spec_index(idx, size: int) -> np.ndarray:
    """The spec's index normalisation (negative counts from the end), in int64."""
    i = np.asarray(idx).astype(np.int64)
    return np.where(i < 0, i + size, i)


def raw_bytes(a: np.ndarray) -> bytes:
    """The array's bytes in C order: equal only when every bit is (NaN payloads, -0.0)."""
    return np.ascontiguousarray(a).view(np.uint8).tobytes()


#: numba is an optional extra of the package (a dependency of its tests): without it the
#: compiled-route tests are skipped, never failed.
NUMBA_INSTALLED = importlib.util.find_spec("numba") is not None


def require_accelerator() -> None:
    """Skip the calling test when numba is not installed; fail it when numba is installed but
    ``ops.accel`` did not load it (a numba built for another numpy, say), so a skip never hides
    a broken accelerator and a compiled-route test never passes on the numpy path instead."""
    if not NUMBA_INSTALLED:
        pytest.skip("numba is not installed (extra 'fast')")
    assert accel.available(), "numba is installed, but ops.accel could not load it"


def with_threads(request):
    """A thread-count fixture's body: ``ops.parallel`` set to ``request.param`` threads while the
    test runs (``yield from with_threads(request)``), the previous count restored after."""
    before = parallel.threads()
    parallel.set_threads(request.param)
    yield request.param
    parallel.set_threads(before)
