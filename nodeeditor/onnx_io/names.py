"""Unique, valid tensor and node names for an exported model."""
from __future__ import annotations

import re

_INVALID = re.compile(r"[^A-Za-z0-9_]")


class NameTable:
    """Hands out names that are C identifiers and unique within one model.

    ``claim(wanted)`` returns ``wanted`` cleaned of characters outside ``[A-Za-z0-9_]`` (a
    leading digit gets a ``_`` prefix), with ``_2``, ``_3``... appended when already taken.
    Names claimed first keep their spelling, so claim graph inputs and outputs before
    intermediates.
    """

    def __init__(self) -> None:
        self._taken: set[str] = set()

    def claim(self, wanted: str) -> str:
        base = _INVALID.sub("_", wanted.strip()) or "t"
        if base[0].isdigit():
            base = "_" + base
        name, n = base, 1
        while name in self._taken:
            n += 1
            name = f"{base}_{n}"
        self._taken.add(name)
        return name

    def __contains__(self, name: str) -> bool:
        return name in self._taken
