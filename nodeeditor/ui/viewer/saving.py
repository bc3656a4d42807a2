"""Writing the viewed tensor to disk: ``.npy``, ``.csv`` (exact values) and ``.png``.

Format is chosen by the file suffix (``SUFFIXES``). ml_dtypes floats (bfloat16 ...) have no
``.npy`` type code, so they are stored as float32, which holds every such value exactly.
CSV is written a row block at a time, so it never builds the whole text in memory.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .slicing import FLOAT, dtype_kind, format_value

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


def save_csv(path: str | os.PathLike, values: np.ndarray, rows_per_write: int = 1024) -> Path:
    """Save a 0-D, 1-D (one value per line) or 2-D array as CSV with exact values."""
    path = Path(path)
    if values.ndim > 2:
        raise ValueError(f"CSV holds at most 2-D; got shape {values.shape} (slice it first)")
    table = values.reshape(-1, 1) if values.ndim < 2 else values
    with open(path, "w", newline="", encoding="utf-8") as handle:
        for start in range(0, table.shape[0], rows_per_write):
            block = table[start : start + rows_per_write]
            handle.write("".join(",".join(_csv_cell(v) for v in row) + "\n" for row in block))
    return path


def _csv_cell(value) -> str:
    text = format_value(value)
    if any(ch in text for ch in ',"\n\r'):
        text = '"' + text.replace('"', '""') + '"'
    return text


def save_png(path: str | os.PathLike, widget) -> Path:
    """Save a picture of ``widget`` (its ``grab()``)."""
    path = Path(path)
    if not widget.grab().save(str(path), "PNG"):
        raise OSError(f"could not write {path}")
    return path
