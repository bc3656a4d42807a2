"""A spin box for a bounded whole number that reports a number typed outside its bounds."""
from __future__ import annotations

import re

from PySide6 import QtCore, QtGui, QtWidgets

_WHOLE = re.compile(r"\s*[+-]?\d+\s*")


class RangeSpinBox(QtWidgets.QSpinBox):
    """A QSpinBox whose out-of-range numbers are refused in words. A plain QSpinBox drops the
    keystroke that would leave its range, so ``99`` typed into a box of 1..24 silently became
    9 (for the graph's opset: every op switched to an old version). This one keeps such a
    number as typed; when the edit finishes (Enter, focus out) it emits ``refused`` with the
    text, and shows again the value it holds (which does not change)."""

    refused = QtCore.Signal(str)

    #: True while the value changes by a step (arrows, wheel, Up/Down keys), not by a typed number
    stepping = False

    def stepBy(self, steps: int) -> None:
        self.stepping = True
        try:
            super().stepBy(steps)
        finally:
            self.stepping = False

    def validate(self, text: str, pos: int):
        result = super().validate(text, pos)
        state = result[0] if isinstance(result, tuple) else result
        if state == QtGui.QValidator.State.Invalid and _WHOLE.fullmatch(self._number_text(text)):
            return QtGui.QValidator.State.Intermediate, text, pos
        return result

    def fixup(self, text: str):
        number = self._number_text(text)
        if _WHOLE.fullmatch(number):
            self.refused.emit(number.strip())
        return super().fixup(text)

    def _number_text(self, text: str) -> str:
        return text.removeprefix(self.prefix()).removesuffix(self.suffix())

    def refusal(self, what: str, text: str) -> str:
        """The message for ``text`` refused as ``what`` (e.g. ``opset 99 is not allowed: from 1 to 24``)."""
        return f"{what} {text} is not allowed here: it must be from {self.minimum()} to {self.maximum()}"
