"""A block of pasted text as a grid of cell texts (no widgets, no dtypes).

:func:`parse_block` reads what people copy from a spreadsheet, a CSV file, a Python or NumPy
print-out:

- rows on lines, values separated by tabs (a spreadsheet), else by commas, else by spaces;
- a nested list, ``[[1, 2], [3, 4]]`` (Python, commas) or ``[[1. 2.]\\n [3. 4.]]`` (NumPy's
  print-out, spaces), also inside ``array(..., dtype=...)`` -- any depth: its shape is the
  block's shape.

The result is a :class:`PastedBlock`: the cell texts as rows x last axis, and the shape the
text spells. Ragged rows, unbalanced brackets and empty text raise ``ValueError`` with a
message for people.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

#: ``array([...], dtype=float32)`` and ``tensor([...])`` around a nested list.
_WRAPPER = re.compile(r"^\s*(?:\w+\.)*(?:array|tensor|asarray)\((.*?)(?:,\s*dtype\s*=\s*[\w.'\"]+)?\)\s*$", re.S)
#: A quoted string, a bracket, or a run of anything but separators.
_TOKEN = re.compile(r"'[^']*'|\"[^\"]*\"|[\[\]]|[^\s,\[\]]+")


@dataclass(frozen=True)
class PastedBlock:
    """Cell texts of a pasted block: ``rows`` is a list of equally long rows (the last axis
    of ``shape`` across, the others flattened down); ``nested`` tells whether the text was
    a nested list (whose ``shape`` may have any rank) rather than rows of separated values
    (``shape`` is then ``(rows, columns)``)."""

    rows: tuple[tuple[str, ...], ...]
    shape: tuple[int, ...]
    nested: bool = False

    @property
    def size(self) -> int:
        return math.prod(self.shape)


def parse_block(text: str) -> PastedBlock:
    """The block ``text`` spells (see the module docstring); ValueError when it spells none."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("the clipboard holds no values")
    wrapped = _WRAPPER.match(stripped)
    if wrapped:
        stripped = wrapped.group(1).strip()
    if stripped.startswith("["):
        return _nested(stripped)
    return _rows(text)


def _rows(text: str) -> PastedBlock:
    lines = [line for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n") if line.strip()]
    if "\t" in text:
        split = [[cell.strip() for cell in line.split("\t")] for line in lines]
    elif "," in text:
        split = [[cell.strip() for cell in line.split(",")] for line in lines]
        split = [row[:-1] if len(row) > 1 and row[-1] == "" else row for row in split]   # "1, 2," ends a row
    else:
        split = [line.split() for line in lines]
    width = len(split[0])
    for number, row in enumerate(split[1:], start=2):
        if len(row) != width:
            raise ValueError(f"row {number} has {len(row)} value{'s' * (len(row) != 1)}, "
                             f"row 1 has {width}: every row needs as many")
    return PastedBlock(tuple(tuple(row) for row in split), (len(split), width))


#: The deepest nesting a pasted list may have: a tensor's most dimensions (numpy's).
MAX_DEPTH = 64


def _nested(text: str) -> PastedBlock:
    stack: list[list] = []
    top: list | None = None
    for token in _TOKEN.findall(text):
        if token == "[":
            if len(stack) == MAX_DEPTH:
                raise ValueError(f"the lists nest deeper than {MAX_DEPTH}: a tensor has at most {MAX_DEPTH} "
                                 "dimensions")
            stack.append([])
        elif token == "]":
            if not stack:
                raise ValueError("a ']' closes no '['")
            done = stack.pop()
            if stack:
                stack[-1].append(done)
            elif top is None:
                top = done
            else:
                raise ValueError("the text holds more than one list")
        elif not stack:
            raise ValueError(f"{token!r} stands outside the brackets")
        else:
            stack[-1].append(token[1:-1] if token[0] in "'\"" else token)
    if stack or top is None:
        raise ValueError("a '[' is never closed")
    shape = _shape_of(top)
    flat = list(_flatten(top))
    width = shape[-1] if shape else 1
    rows = tuple(tuple(flat[i:i + width]) for i in range(0, len(flat), width)) if width else ((),)
    return PastedBlock(rows, shape, nested=True)


def _shape_of(value, depth: int = 0) -> tuple[int, ...]:
    if not isinstance(value, list):
        return ()
    shapes = {_shape_of(item, depth + 1) for item in value}
    if len(shapes) > 1:
        raise ValueError(f"the lists at depth {depth + 1} differ in length or depth: "
                         "a tensor needs every row as long as the others")
    inner = shapes.pop() if shapes else ()
    return (len(value),) + inner


def _flatten(value):
    if isinstance(value, list):
        for item in value:
            yield from _flatten(item)
    else:
        yield value
