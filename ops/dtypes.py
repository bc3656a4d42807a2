"""Tensor element types by name, and their numpy dtypes.

The names are the ones the whole product uses (schemas, the file format, the UI):
``bool``, ``int8``..``int64``, ``uint8``..``uint64``, ``float16``, ``bfloat16``, ``float32``,
``float64``, ``complex64``, ``complex128``, ``string`` and the small float/int formats from
ml_dtypes that TensorScatter allows; ``int2`` and ``uint2`` (ONNX from opset 25) are held too,
for graphs imported from models, though no indexing op takes them (:data:`HELD_DTYPE_NAMES`).
Strings are numpy object arrays holding Python ``str``.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from .errors import OpError

_NUMPY_NAMES = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
)
_ML_DTYPES = {
    "bfloat16": "bfloat16",
    "float8e4m3fn": "float8_e4m3fn",
    "float8e4m3fnuz": "float8_e4m3fnuz",
    "float8e5m2": "float8_e5m2",
    "float8e5m2fnuz": "float8_e5m2fnuz",
    "float8e8m0": "float8_e8m0fnu",
    "float4e2m1": "float4_e2m1fn",
    "int4": "int4",
    "uint4": "uint4",
}

#: Held (a graph value may have them) but taken by no indexing op.
_OTHER_ML_DTYPES = {"int2": "int2", "uint2": "uint2"}

_BY_NAME: dict[str, np.dtype] = {name: np.dtype(name) for name in _NUMPY_NAMES}
_BY_NAME["string"] = np.dtype(object)
for _name, _attr in {**_ML_DTYPES, **_OTHER_ML_DTYPES}.items():
    if hasattr(ml_dtypes, _attr):
        _BY_NAME[_name] = np.dtype(getattr(ml_dtypes, _attr))

#: The element types every indexing op allows (TensorScatter allows the small formats too).
DTYPE_NAMES: tuple[str, ...] = (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "string",
)
#: The small float and int formats (ml_dtypes) that only TensorScatter allows.
SMALL_DTYPE_NAMES: tuple[str, ...] = tuple(n for n in _ML_DTYPES if n != "bfloat16" and n in _BY_NAME)
#: Every element type a value in a graph may have (the file format and an import accept them).
HELD_DTYPE_NAMES: tuple[str, ...] = tuple(_BY_NAME)

_NAME_BY_DTYPE: dict[np.dtype, str] = {dt: name for name, dt in _BY_NAME.items()}

INTEGER_NAMES = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"})
FLOAT_NAMES = frozenset({"float16", "bfloat16", "float32", "float64"})
COMPLEX_NAMES = frozenset({"complex64", "complex128"})


def dtype_of(name: str) -> np.dtype:
    """The numpy dtype for a dtype name; ``string`` is the object dtype. Unknown names raise OpError."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise OpError(f"unknown dtype {name!r}; known: {', '.join(_BY_NAME)}") from None


def dtype_name(value) -> str:
    """The dtype name of a numpy dtype or array. Any str, bytes or object dtype is ``string``."""
    dt = value.dtype if hasattr(value, "dtype") else np.dtype(value)
    if dt.kind in "OUS":
        return "string"
    if not dt.isnative:
        dt = dt.newbyteorder("=")
    try:
        return _NAME_BY_DTYPE[dt]
    except KeyError:
        raise OpError(f"unsupported dtype {dt}") from None


def _as_dtype(value) -> np.dtype:
    """``value`` if it is a dtype, an array's or scalar's dtype, else ``np.dtype(value)``."""
    if isinstance(value, np.dtype):
        return value
    dt = getattr(value, "dtype", None)
    return dt if isinstance(dt, np.dtype) else np.dtype(value)


def is_ml_dtype(value) -> bool:
    """True when ``value`` (a dtype, an array, or what ``np.dtype`` takes) is one of the
    ml_dtypes types (bfloat16, float8, float4, int4 ...): numpy kind ``'V'``, and ``.npy``
    cannot name them."""
    return _as_dtype(value).type.__module__.split(".")[0] == "ml_dtypes"


def is_ml_float(value) -> bool:
    """True for the ml_dtypes floating-point types (bfloat16, float8 ...; not int4/uint4)."""
    if not is_ml_dtype(value):
        return False
    try:
        ml_dtypes.finfo(_as_dtype(value))
    except ValueError:  # an ml_dtypes integer type
        return False
    return True


def as_tensor(value, name_for_errors: str = "input") -> np.ndarray:
    """``value`` as an ndarray; fixed-width str/bytes arrays become object arrays of ``str``,
    and non-native byte order (a big-endian ``.npy`` file) becomes native.

    Bytes that are not UTF-8 raise OpError (ONNX strings are UTF-8).
    Fixed-width unicode arrays would silently truncate longer strings written into them, so
    strings are always handled as object arrays.
    """
    arr = np.asarray(value)
    if not arr.dtype.isnative and arr.dtype.kind not in "OUS":
        return arr.astype(arr.dtype.newbyteorder("="))
    if arr.dtype.kind in "US":
        if arr.dtype.kind == "S":
            try:
                arr = np.char.decode(arr, "utf-8")
            except UnicodeDecodeError as exc:
                raise OpError(f"{name_for_errors}: a bytes string tensor must hold UTF-8 text ({exc})") from None
        return arr.astype(object)
    return arr
