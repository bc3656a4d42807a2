"""Writing the viewed tensor to disk: ``.npy``, ``.csv`` (exact values) and ``.png``.

Format is chosen by the file suffix (``SUFFIXES``). ml_dtypes floats (bfloat16 ...) have no
``.npy`` type code, so they are stored as float32, which holds every such value exactly.
CSV is written a row block at a time (vectorised formatting, see ``save_csv``), so it
never builds the whole text in memory.
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np

from .slicing import BOOL, COMPLEX, FLOAT, INT, dtype_kind, format_value

SUFFIXES = (".npy", ".csv", ".png")
FILE_FILTER = "NumPy array (*.npy);;CSV values (*.csv);;PNG picture (*.png)"


def save_npy(path: str | os.PathLike, array: np.ndarray) -> Path:
    """Save the whole tensor; ml_dtypes floats as float32 (exact)."""
    path = Path(path)
    if array.dtype.kind == "V" and dtype_kind(array.dtype) == FLOAT:
        array = array.astype(np.float32)
    with open(path, "wb") as handle:
        np.save(handle, array, allow_pickle=array.dtype.kind == "O")
    return path


#: Slices with more cells than this (about 0.1 s of formatting) are written off the UI
#: thread by the viewer's Save… button.
CSV_BACKGROUND_CELLS = 250_000
#: Cells formatted by one ``%`` operation (about 1 MB of text).
_CELLS_PER_WRITE = 1 << 16

#: printf format per float dtype: enough significant digits that every value round-trips
#: through its text (np.loadtxt with the same dtype gives the same bits back).
_FLOAT_FORMATS = {np.dtype(np.float16): "%.5g", np.dtype(np.float32): "%.9g", np.dtype(np.float64): "%.17g"}


def csv_cell_format(dtype: np.dtype) -> tuple[str, np.dtype | None] | None:
    """``(printf format of one cell, dtype to convert to first)`` for the vectorised CSV
    writer, or None when cells need the per-value path (strings, objects, other dtypes).

    float16/32/64: ``%.5g`` / ``%.9g`` / ``%.17g``; ml_dtypes floats (bfloat16, float8 ...)
    through float32 (``%.9g``, exact); ints ``%d``; bool ``%d`` (1/0, what ``np.loadtxt``
    and the File source read back); complex ``a+bj`` with both parts exact.
    """
    dtype = np.dtype(dtype)
    kind = dtype_kind(dtype)
    if kind == BOOL or kind == INT:
        return "%d", None
    if kind == FLOAT:
        if dtype in _FLOAT_FORMATS:
            return _FLOAT_FORMATS[dtype], None
        if dtype.kind == "V":  # ml_dtypes: every value is exact in float32
            return "%.9g", np.dtype(np.float32)
        return None  # longdouble: exact per-value text
    if kind == COMPLEX:
        part = {np.dtype(np.complex64): "%.9g", np.dtype(np.complex128): "%.17g"}.get(dtype)
        if part is None:
            return None
        return part + part.replace("%", "%+") + "j", None
    return None


def save_csv(path: str | os.PathLike, values: np.ndarray, cancelled=None) -> Path | None:
    """Save a 0-D, 1-D (one value per line) or 2-D array as CSV with exact values.

    Numbers are formatted a block of rows at a time by one ``%`` operation on a row format
    (``csv_cell_format``), not one Python call per value: 1e6 float32 cells take about
    0.3 s instead of 3.5 s. Strings are quoted by the ``csv`` module. ``cancelled`` (a
    callable) is checked between blocks; when it turns True the partial file is removed and
    None is returned.
    """
    path = Path(path)
    if values.ndim > 2:
        raise ValueError(f"CSV holds at most 2-D; got shape {values.shape} (slice it first)")
    table = values.reshape(-1, 1) if values.ndim < 2 else values
    rows, cols = table.shape
    fast = csv_cell_format(table.dtype) if cols else None
    rows_per_write = max(1, _CELLS_PER_WRITE // max(1, cols))
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = None if fast else csv.writer(handle, lineterminator="\n")
        for start in range(0, rows, rows_per_write):
            if cancelled is not None and cancelled():
                break
            block = table[start : start + rows_per_write]
            if fast is None:
                writer.writerows([_text(v) for v in row] for row in block)
                continue
            cell, convert = fast
            if convert is not None:
                block = block.astype(convert)
            if dtype_kind(block.dtype) == COMPLEX:
                flat = np.stack([block.real, block.imag], axis=-1).ravel().tolist()
            else:
                flat = block.ravel().tolist()
            line = ",".join([cell] * cols) + "\n"
            handle.write((line * block.shape[0]) % tuple(flat))
        else:
            return path
    path.unlink(missing_ok=True)  # cancelled: no half-written file is left behind
    return None


def _text(value) -> str:
    return format_value(value)


def save_png(path: str | os.PathLike, widget) -> Path:
    """Save a picture of ``widget`` (its ``grab()``)."""
    path = Path(path)
    if not widget.grab().save(str(path), "PNG"):
        raise OSError(f"could not write {path}")
    return path
