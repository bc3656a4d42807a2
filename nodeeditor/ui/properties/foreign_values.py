"""Text <-> value of a foreign node's attributes, for the typed fields of the property panel.

Contract:

- :func:`editable` says which kinds a person types (int, float, string and their lists);
  tensors, graphs, sparse tensors and type protos are shown, never typed.
- :func:`attribute_text` is the text a field shows for a value, and :func:`parse_attribute`
  reads it back: ``parse_attribute(kind, attribute_text(a))`` gives a value ``same`` as
  ``a`` for every editable kind, floats up to the float32 an ONNX attribute holds (a float
  attribute's text is the shortest that gives back the same float32).
- :func:`parse_attribute` raises ValueError with a message for people (what is not a value of
  the kind, and which list element), never Python's own ``invalid literal`` text.

Lists are typed as ``1, 2, 3`` or ``[1, 2, 3]``; a list of strings as ``a, b`` or a Python
list of quoted strings (``['a, b', 'c']``) when an element holds a comma. No widgets here.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from nodeeditor.graph.foreign import AttrKind, ForeignAttribute

#: The kinds a field edits as text or a number.
EDITABLE_KINDS = frozenset({AttrKind.INT, AttrKind.FLOAT, AttrKind.STRING,
                            AttrKind.INTS, AttrKind.FLOATS, AttrKind.STRINGS})


def editable(kind: AttrKind) -> bool:
    return kind in EDITABLE_KINDS


def _float_text(value: float) -> str:
    """The shortest text of ``value`` as the float32 ONNX stores (``0.01`` for the float32
    nearest 0.01, which is 0.009999999776... as a Python float); ``repr`` for a value that
    is not a float32."""
    value = float(value)
    as_float32 = np.float32(value)
    if math.isfinite(value) and float(as_float32) == value:
        return str(as_float32)
    return repr(value)


def attribute_text(attr: ForeignAttribute) -> str:
    """The text a field shows: ``3``, ``1e-05``, ``nearest``, ``0, 1, 3, 2``; a list of strings
    with a comma in an element as a Python list (``['a, b', 'c']``). Other kinds: their
    summary (``ForeignAttribute.text``)."""
    kind, value = attr.kind, attr.value
    if kind is AttrKind.INT:
        return str(value)
    if kind is AttrKind.FLOAT:
        return _float_text(value)
    if kind is AttrKind.STRING:
        return value
    if kind is AttrKind.INTS:
        return ", ".join(str(v) for v in value)
    if kind is AttrKind.FLOATS:
        return ", ".join(_float_text(v) for v in value)
    if kind is AttrKind.STRINGS:
        if any("," in v or v != v.strip() or not v for v in value):
            return repr(list(value))
        return ", ".join(value)
    return attr.text(120)


def _int(text: str, where: str) -> int:
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{where}{text!r} is not an integer") from None
    if not math.isfinite(number) or number != int(number):
        raise ValueError(f"{where}{text!r} is not a whole number")
    return int(number)


def _float(text: str, where: str) -> float:
    text = text.strip()
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{where}{text!r} is not a number") from None


def _items(text: str) -> list[str]:
    """The elements of a typed list: ``1, 2`` or ``[1, 2]`` (``[]``/empty: no elements)."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    text = text.strip()
    if not text:
        return []
    return [part for part in (p.strip() for p in text.split(","))]


def _strings(text: str) -> list[str]:
    stripped = text.strip()
    if stripped.startswith("[") and stripped.endswith("]"):
        try:
            value = ast.literal_eval(stripped)
        except (ValueError, SyntaxError):
            value = None
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return value
    return _items(stripped)


def parse_attribute(kind: AttrKind, text: str) -> ForeignAttribute:
    """The attribute of ``kind`` a person typed as ``text`` (see the module docstring)."""
    if kind is AttrKind.INT:
        return ForeignAttribute(kind, _int(text, ""))
    if kind is AttrKind.FLOAT:
        return ForeignAttribute(kind, _float(text, ""))
    if kind is AttrKind.STRING:
        return ForeignAttribute(kind, text)
    if kind in (AttrKind.INTS, AttrKind.FLOATS):
        read = _int if kind is AttrKind.INTS else _float
        items = _items(text)
        values = []
        for i, item in enumerate(items):
            if not item:
                raise ValueError(f"element {i + 1} is empty")
            values.append(read(item, f"element {i + 1}: "))
        return ForeignAttribute(kind, tuple(values))
    if kind is AttrKind.STRINGS:
        return ForeignAttribute(kind, tuple(_strings(text)))
    raise ValueError(f"a {kind.value} attribute cannot be typed in")
