"""Constants and text <-> value helpers of the property panel (no widgets but one label)."""
from __future__ import annotations

import decimal
import math
from typing import Any

import numpy as np
from PySide6 import QtCore, QtWidgets

from ops import MAX_OPSET  # noqa: F401 - re-exported to the panel and the export dialog
from ops import dtype_name as ops_dtype_name

from ..viewer.slicing import exact_decimal, format_value
from .pasted_text import PastedBlock

EDITABLE_LIMIT = 400          # elements (and rows, and columns) a value table edits in place
MAX_RANK = 64                 # numpy's most dimensions
COMMON_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                 "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "string")


def parse_shape(text: str) -> tuple[int, ...]:
    """'2, 3' or '[2, 3]' or '' (a scalar) -> (2, 3); ValueError with a message for people on
    anything else (never Python's own ``invalid literal for int()``)."""
    cleaned = text.strip().strip("[]()").replace("x", ",").replace("×", ",")
    if not cleaned:
        return ()
    dims = []
    for part in (p for p in cleaned.replace(" ", ",").split(",") if p.strip()):
        try:
            dims.append(int(part))
        except ValueError:
            raise ValueError(f"{part!r} is not a size: a shape is whole numbers separated by commas, "
                             "e.g. 2, 3") from None
    if any(d < 0 for d in dims):
        raise ValueError("dimensions must not be negative")
    if len(dims) > MAX_RANK:
        raise ValueError(f"{len(dims)} dimensions: a tensor has at most {MAX_RANK}")
    if 0 not in dims and math.prod(dims) > np.iinfo(np.int64).max:
        raise ValueError(f"{math.prod(dims):,} elements is more than any tensor can hold")
    if math.prod(d for d in dims if d) * 16 > np.iinfo(np.int64).max:   # numpy sizes the bytes, zeros aside
        raise ValueError("the sizes other than 0 multiply to more than any tensor can hold")
    if any(d > np.iinfo(np.int64).max for d in dims):
        raise ValueError(f"a dimension of {max(dims):,} is more than any tensor can hold")
    return tuple(dims)


def shape_text(shape) -> str:
    return ", ".join(str(d) for d in shape)


def parse_value(text: str, dtype: np.dtype) -> Any:
    """A cell's text as a value of ``dtype``; ValueError with a message for people when it is
    not one (never Python's own ``invalid literal for int()``). Integers also take whole
    numbers written as floats (``2.0``, ``1e3``), as a spreadsheet copies them, exactly
    (``9007199254740993.0`` is not rounded through a float). A finite number past a float
    dtype's range is refused (float16 would have made ``70000`` infinite)."""
    text = text.strip()
    if dtype.kind == "O":
        return text
    spaced = text.replace(" + ", "+").replace(" - ", "-") if dtype.kind == "c" else text
    if len(spaced.replace(",", " ").split()) > 1:
        raise ValueError(f"{text!r} is several values; a cell holds one "
                         "(paste them with Ctrl+V to fill several cells)")
    if dtype.kind == "b":
        if text.lower() in ("1", "true", "t", "yes"):
            return True
        if text.lower() in ("0", "false", "f", "no", ""):
            return False
        raise ValueError(f"{text!r} is not a bool (true/false or 1/0)")
    if not text:
        raise ValueError("the cell is empty; type a number")
    if dtype.kind == "c":
        try:
            return complex(spaced.replace("i", "j"))
        except ValueError:
            raise ValueError(f"{text!r} is not a complex number (e.g. 1+2j)") from None
    if dtype.kind in "iu":
        try:
            value = int(text)
        except ValueError:
            try:
                number = decimal.Decimal(text)
            except decimal.InvalidOperation:
                number = None
            if number is None or not number.is_finite() or number != number.to_integral_value():
                raise ValueError(f"{text!r} is not an integer ({dtype})") from None
            if number.adjusted() > 20:   # int() of 1e1000000 would take the UI thread for a minute
                info = np.iinfo(dtype)
                raise ValueError(f"{text} does not fit {dtype} ({info.min}..{info.max})") from None
            value = int(number)
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise ValueError(f"{value} does not fit {dtype} ({info.min}..{info.max})")
        return value
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    with np.errstate(over="ignore"):
        stored = np.asarray(number).astype(dtype)
    if math.isinf(number) and "inf" not in text.lower():   # 1e309: past float64 itself
        raise ValueError(f"{text} is past {ops_dtype_name(dtype)}'s range (largest {_largest(dtype):g})")
    if math.isfinite(number) and not np.isfinite(stored.astype(np.float64)):
        raise ValueError(f"{text} is past {ops_dtype_name(dtype)}'s range (largest {_largest(dtype):g})")
    return number


def _largest(dtype: np.dtype) -> float:
    try:
        return float(np.finfo(dtype).max)
    except ValueError:   # ml_dtypes formats (bfloat16, float8...)
        import ml_dtypes

        return float(ml_dtypes.finfo(dtype).max)


def cell_text(value: Any) -> tuple[str, str]:
    """(text, tooltip) of one element in a value table: the shortest text that reads back
    exactly (the viewer's :func:`~nodeeditor.ui.viewer.slicing.format_value`), and the exact
    stored value where that text is not it (``float32 1.1``), else an empty tooltip."""
    exact = exact_decimal(value)
    return format_value(value), (f"stored exactly as {exact}" if exact is not None else "")


def muted(text: str) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text)
    label.setWordWrap(True)
    # no taller than its text: a wrapping label may otherwise take a page's spare height
    label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Maximum)
    label.setStyleSheet("color: #6a7285;")
    label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class CellError(ValueError):
    """A text that is not a value of the tensor's dtype, at grid cell (``row``, ``col``)."""

    def __init__(self, row: int, col: int, message: str) -> None:
        super().__init__(message)
        self.row, self.col = row, col


def grid_shape(shape: tuple[int, ...]) -> tuple[int, int]:
    """(rows, columns) of a value table: the last axis across, the others flattened down."""
    if not shape:
        return 1, 1
    cols = shape[-1]
    rows = math.prod(shape[:-1]) if len(shape) > 1 else 1
    return rows, cols


def editable_in_place(shape: tuple[int, ...]) -> bool:
    """Whether a value table shows and edits a tensor of ``shape``: few enough elements, and
    few enough rows and columns (an empty tensor of shape (0, 200000) would have 200,000
    column headers)."""
    rows, cols = grid_shape(shape)
    return math.prod(shape) <= EDITABLE_LIMIT and rows <= EDITABLE_LIMIT and cols <= EDITABLE_LIMIT


def _floats_at_once(texts: list[str], dtype: np.dtype) -> np.ndarray | None:
    """``texts`` as a float array of ``dtype`` read in one vectorised pass (a million pasted
    values took seconds one by one on the UI thread), or None where that pass cannot decide:
    not a float dtype, a text that is not one plain number, a finite number past the dtype's
    range, so :func:`parse_value` reads them one by one and names the cell."""
    if dtype.kind != "f":
        return None
    try:   # Python's float() on each text, as parse_value reads one
        wide = np.array(texts, dtype=object).astype(np.float64)
    except (TypeError, ValueError):
        return None
    with np.errstate(over="ignore"):
        out = wide.astype(dtype)
    if (np.isfinite(wide) & ~np.isfinite(out)).any():
        return None
    return out


def pasted_value(value: np.ndarray, block: PastedBlock, row: int, col: int, whole: bool) -> tuple[np.ndarray, int]:
    """``value`` with ``block`` pasted at grid cell (``row``, ``col``); returns the new array
    and how many pasted values fell outside the table (dropped).

    With ``whole`` (every cell selected) the block replaces the tensor and gives it its
    shape: a nested list's own shape; rows of values ``(rows, columns)``, or ``(columns,)``
    for one row pasted over a 1-D tensor, ``()`` for one value over a scalar. Otherwise the
    block fills the cells from (``row``, ``col``) right and down, as far as the table goes.
    Every text is read with :func:`parse_value`; the first that is not a value raises
    :class:`CellError` naming its cell (nothing is changed then)."""
    dtype = value.dtype
    cells = [list(r) for r in block.rows]
    if whole:
        shape = block.shape
        if not block.nested and shape[0] == 1 and value.ndim <= 1:
            shape = (shape[1],) if value.ndim == 1 or shape[1] != 1 else ()
        flat = [t for r in cells for t in r]
        width = block.shape[-1] if block.shape else 1
        new = _floats_at_once(flat, dtype)
        if new is None:
            new = np.empty(block.size, dtype=dtype)
            for i, text in enumerate(flat):
                try:
                    new[i] = parse_value(text, dtype)
                except ValueError as exc:
                    raise CellError(i // width if width else 0, i % width if width else 0, str(exc)) from None
        return new.reshape(shape), 0
    rows, cols = grid_shape(value.shape)
    new = np.array(value, copy=True).reshape(rows, cols)
    dropped = 0
    for i, line in enumerate(cells):
        for j, text in enumerate(line):
            r, c = row + i, col + j
            if r >= rows or c >= cols:
                dropped += 1
                continue
            try:
                new[r, c] = parse_value(text, dtype)
            except ValueError as exc:
                raise CellError(r, c, str(exc)) from None
    return new.reshape(value.shape), dropped
