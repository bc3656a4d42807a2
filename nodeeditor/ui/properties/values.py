"""Constants and text <-> value helpers of the property panel (no widgets but one label)."""
from __future__ import annotations

from typing import Any

import numpy as np
from PySide6 import QtCore, QtWidgets

from ops import MAX_OPSET  # noqa: F401 - re-exported to the panel and the export dialog

EDITABLE_LIMIT = 400          # elements a value table edits in place
COMMON_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                 "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "string")


def parse_shape(text: str) -> tuple[int, ...]:
    """'2, 3' or '[2, 3]' or '' (a scalar) -> (2, 3); ValueError on anything else."""
    cleaned = text.strip().strip("[]()").replace("x", ",").replace("×", ",")
    if not cleaned:
        return ()
    dims = tuple(int(p) for p in cleaned.replace(" ", ",").split(",") if p.strip())
    if any(d < 0 for d in dims):
        raise ValueError("dimensions must not be negative")
    return dims


def shape_text(shape) -> str:
    return ", ".join(str(d) for d in shape)


def parse_value(text: str, dtype: np.dtype) -> Any:
    """A cell's text as a value of ``dtype`` (ValueError when it is not one)."""
    text = text.strip()
    if dtype.kind == "O":
        return text
    if dtype.kind == "b":
        if text.lower() in ("1", "true", "t", "yes"):
            return True
        if text.lower() in ("0", "false", "f", "no", ""):
            return False
        raise ValueError(f"{text!r} is not a bool")
    if dtype.kind == "c":
        return complex(text.replace(" ", "").replace("i", "j"))
    if dtype.kind in "iu":
        value = int(text)
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise ValueError(f"{value} does not fit {dtype}")
        return value
    return float(text)


def format_cell(value: Any) -> str:
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (complex, np.complexfloating)):
        return str(complex(value)).strip("()")
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    return str(value)


def muted(text: str) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text)
    label.setWordWrap(True)
    # no taller than its text: a wrapping label may otherwise take a page's spare height
    label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Maximum)
    label.setStyleSheet("color: #6a7285;")
    label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
    return label
