"""Text labels of the viewer that never widen it.

The viewer lives in a narrow dock: a label whose minimum width follows its text (a long
warning in the info line, a long node name) would raise the dock's minimum width, and the
dock would keep that width after the text is gone. Both labels here ask for no width:

- ``WrapLabel`` wraps at spaces to whatever width the layout gives it (its height follows);
  a single word wider than that is cut at the edge, and the full text is in the tooltip.
- ``ElidedLabel`` is one line, cut with "…" when it does not fit; the full text is in the
  tooltip and in ``text()``.
- ``ItemsLabel`` is a ``WrapLabel`` for a line of `` · `` separated items (the statistics
  ``min 0  ·  max 2.2  ·  NaN 0  ·  inf 0``): it wraps only between items, never inside one,
  so no lone ``0`` or ``inf 0`` ends up on a line of its own; ``text()`` is the plain text.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

_Policy = QtWidgets.QSizePolicy.Policy


class WrapLabel(QtWidgets.QLabel):
    """A word-wrapped QLabel whose minimum width is 0 (see the module docstring)."""

    def __init__(self, text: str = "", parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        # Ignored: the layout takes neither the size hint nor the widest word as a minimum.
        # The label keeps its height-for-width (QLabel sets it again for wrapped text).
        self.setSizePolicy(_Policy.Ignored, _Policy.Preferred)
        self.setWordWrap(True)
        self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._update_tooltip()

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._update_tooltip()

    def _update_tooltip(self) -> None:
        """The full text as the tooltip while some word of it is cut at the edge."""
        text = self.text()
        metrics = self.fontMetrics()
        room = self.contentsRect().width()
        cut = any(metrics.horizontalAdvance(word) > room for word in text.split()) if text else False
        self.setToolTip(text if cut else "")


NBSP = "\u00a0"


def keep_items_together(text: str, separator: str = "·") -> str:
    """``text`` with the spaces inside each ``separator``-separated item made non-breaking,
    and the separator glued to the item before it: a wrap can only fall after a separator."""
    items = [item.strip() for item in text.split(separator)]
    if len(items) < 2:
        return text
    glued = [item.replace(" ", NBSP) for item in items]
    return f"{NBSP}{separator} ".join(glued)


class ItemsLabel(WrapLabel):
    """A ``WrapLabel`` that wraps between `` · `` separated items only (see the module
    docstring); ``text()`` gives the text as set, with ordinary spaces."""

    def __init__(self, text: str = "", parent: QtWidgets.QWidget | None = None, separator: str = "·"):
        self._separator = separator
        self._plain = ""
        super().__init__(text, parent)

    def setText(self, text: str) -> None:
        self._plain = text
        super().setText(keep_items_together(text, self._separator))

    def text(self) -> str:
        return self._plain

    def _update_tooltip(self) -> None:
        """The full text as the tooltip while some item is wider than the label."""
        shown = QtWidgets.QLabel.text(self)
        metrics = self.fontMetrics()
        room = self.contentsRect().width()
        cut = any(metrics.horizontalAdvance(part) > room for part in shown.split(" ") if part) if shown else False
        self.setToolTip(self._plain if cut else "")


class ElidedLabel(QtWidgets.QLabel):
    """A one-line QLabel that shows ``…`` where its text does not fit; ``text()`` and the
    tooltip (set only while cut) give the full text."""

    def __init__(self, text: str = "", parent: QtWidgets.QWidget | None = None):
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(_Policy.Ignored, _Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:
        self._full = text
        self._elide()

    def text(self) -> str:
        return self._full

    def sizeHint(self) -> QtCore.QSize:
        hint = super().sizeHint()
        return QtCore.QSize(self.fontMetrics().horizontalAdvance(self._full) + 2 * self.margin() + 4, hint.height())

    def minimumSizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(0, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def changeEvent(self, event) -> None:
        super().changeEvent(event)
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange):
            self._elide()

    def _elide(self) -> None:
        room = self.contentsRect().width()
        shown = self.fontMetrics().elidedText(self._full, QtCore.Qt.TextElideMode.ElideRight, max(0, room))
        if shown != super().text():
            super().setText(shown)
        self.setToolTip(self._full if shown != self._full else "")
