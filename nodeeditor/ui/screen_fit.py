"""Fitting top-level windows to the screen they are on.

On a small screen (a projector: QT_SCALE_FACTOR=1.5 on 1280x720 is 853x480 logical) a window
must neither open larger than the screen's available area nor grow past it later:

- :func:`initial_size`: a window's preferred size, shrunk to the available area;
- :func:`initial_dock_widths`: the main window's side docks on a first start, narrower on a
  small window so the canvas keeps about half the width; :func:`side_dock_widths`, the same
  limit when the window gets narrower later;
- :func:`bottom_dock_height`: the dock under the canvas (the Explainer) on a first start,
  and the most it may keep when the window gets lower: the canvas keeps more than half;
- :func:`fit_to_screen`: shrink a shown window (frame included) to the available area and
  move it inside; the main window calls it when shown and after a resize past the area,
  the Keyboard Shortcuts dialog when built and shown;
- :class:`DockScroll`: a dock's content that scrolls vertically on a low screen instead of
  raising the window's minimum height.

Everything here runs on the UI thread and changes only the widget it is given.
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

#: The side docks' widths on a first start, and the most of the window's width each may
#: take then: on 818 px (a projector) 180 and 245, the canvas keeps ~46% of the width.
DOCK_WIDTHS = (220, 420)
DOCK_SHARES = (0.22, 0.30)

#: The Explainer's height on a first start, and the most of the window's height it may take.
#: Its height stays put between selected nodes (the canvas above it must not jump); the
#: user's own size is kept, except that a lower window shrinks it to the share.
BOTTOM_DOCK_HEIGHT = 290
BOTTOM_DOCK_SHARE = 0.4

_fitting: set[int] = set()   # ids of widgets being fitted (a resize re-enters through events)


def available_area(widget: QtWidgets.QWidget) -> QtCore.QRect | None:
    """The available geometry of the screen ``widget`` is on (its parent's, for a dialog;
    else the primary screen's); None when there is no screen."""
    parent = widget.parentWidget()
    screen = (parent.screen() if parent is not None else None) or widget.screen() \
        or QtGui.QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else None


def initial_size(widget: QtWidgets.QWidget, preferred: tuple[int, int]) -> QtCore.QSize:
    """``preferred`` (width, height), shrunk to 96% x 92% of the available area, so a window
    never opens larger than the screen with its docks cut off."""
    width, height = preferred
    area = available_area(widget)
    if area is not None:
        width = min(width, int(area.width() * 0.96))
        height = min(height, int(area.height() * 0.92))
    return QtCore.QSize(width, height)


def initial_dock_widths(width: int) -> tuple[int, int]:
    """(palette, right column) widths for a main window ``width`` wide: :data:`DOCK_WIDTHS`,
    or less on a small window so the canvas is not squeezed to a strip."""
    return side_dock_widths(width, DOCK_WIDTHS)


def side_dock_widths(window_width: int, current: tuple[int, int]) -> tuple[int, int]:
    """The (palette, right column) widths for a window ``window_width`` wide that had the
    ``current`` ones: each limited to its :data:`DOCK_SHARES` of the window, so a window made
    narrower (a laptop, a projector) keeps the canvas about half its width, as on a first
    start; a wider window leaves the user's widths alone."""
    return tuple(min(w, int(window_width * share)) for w, share in zip(current, DOCK_SHARES, strict=True))


def bottom_dock_height(window_height: int, current: int | None = None) -> int:
    """The height for the dock under the canvas in a window ``window_height`` high:
    ``current`` (the user's size; :data:`BOTTOM_DOCK_HEIGHT` on a first start) limited to
    :data:`BOTTOM_DOCK_SHARE` of the window."""
    wanted = BOTTOM_DOCK_HEIGHT if current is None else current
    return min(wanted, int(window_height * BOTTOM_DOCK_SHARE))


def fit_to_screen(widget: QtWidgets.QWidget, preferred: QtCore.QSize | None = None) -> None:
    """Resize ``widget`` (a top-level window) to ``preferred`` (default: its current size)
    shrunk to the available area less its frame, and move it inside that area when shown.
    It never gets smaller than its minimum size; a maximised or full-screen window is left
    alone."""
    area = available_area(widget)
    if area is None or widget.isMaximized() or widget.isFullScreen() or id(widget) in _fitting:
        return
    frame = widget.frameGeometry().size() - widget.size() if widget.isVisible() else QtCore.QSize(0, 0)
    size = preferred or widget.size()
    size = QtCore.QSize(min(size.width(), area.width() - frame.width()),
                        min(size.height(), area.height() - frame.height())).expandedTo(widget.minimumSizeHint())
    _fitting.add(id(widget))
    try:
        if size != widget.size():
            widget.resize(size)
        if widget.isVisible():
            box = widget.frameGeometry()
            x = max(area.left(), min(box.x(), area.right() + 1 - box.width()))
            y = max(area.top(), min(box.y(), area.bottom() + 1 - box.height()))
            if (x, y) != (box.x(), box.y()):
                widget.move(x, y)
    finally:
        _fitting.discard(id(widget))


def exceeds_screen(widget: QtWidgets.QWidget, size: QtCore.QSize) -> bool:
    """Whether ``size`` is wider or higher than the available area of ``widget``'s screen."""
    area = available_area(widget)
    return area is not None and (size.width() > area.width() or size.height() > area.height())


class DockScroll(QtWidgets.QScrollArea):
    """A dock's content that scrolls vertically when the dock is lower than the content's
    minimum height; its minimum width is still the content's (no sideways scrolling in the
    normal case), and it follows the content's minimum as that changes."""

    MIN_HEIGHT = 120

    def __init__(self, widget: QtWidgets.QWidget) -> None:
        super().__init__()
        self.setWidgetResizable(True)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setWidget(widget)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)   # no invisible stop for Tab
        widget.installEventFilter(self)

    def minimumSizeHint(self) -> QtCore.QSize:
        inner = self.widget().minimumSizeHint()
        bar = self.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_ScrollBarExtent)
        return QtCore.QSize(inner.width() + bar, min(inner.height(), self.MIN_HEIGHT))

    def eventFilter(self, watched, event) -> bool:
        if watched is self.widget() and event.type() == QtCore.QEvent.Type.LayoutRequest:
            self.updateGeometry()   # the dock learns the content's new minimum width
        return super().eventFilter(watched, event)
