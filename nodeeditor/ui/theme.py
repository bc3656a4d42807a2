"""Light and dark: which one the editor shows, and the colours every part reads from it.

A person picks View > Theme > System, Light or Dark (:class:`ThemeChoice`, kept in the
settings under ``view/theme``; System by default). System follows the desktop's colour
scheme (``QStyleHints.colorScheme()``, and its changes while the editor runs); a scheme Qt
does not know counts as light. What is shown is a :class:`Mode`.

Who reads what:

- widgets: the application palette (:meth:`Theme.apply` sets it; in light mode on a light
  desktop the palette Qt started with, so the light editor looks as it always did);
- the canvas: ``canvas.style.canvas_colours()`` (its own light and dark tables);
- pyqtgraph plots and the explainer's grids: :func:`plot_colours` and :func:`grid_colours`,
  read when they paint or when :attr:`Theme.changed` fires (``theme().changed.connect``).

:func:`mode` is the mode shown now (LIGHT before any :class:`Theme` exists, as in a headless
test). UI thread only.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from . import settings as S

SETTINGS_KEY = "view/theme"


class ThemeChoice(enum.Enum):
    """What the View > Theme menu offers."""

    SYSTEM = "system"
    LIGHT = "light"
    DARK = "dark"


class Mode(enum.Enum):
    """What is shown."""

    LIGHT = "light"
    DARK = "dark"


@dataclass(frozen=True)
class PlotColours:
    """pyqtgraph plots (the tensor viewer): background, axes and text drawn over a plot."""

    background: str
    foreground: str
    text: str


@dataclass(frozen=True)
class GridColours:
    """The explainer's value grids: an unhighlighted cell's fill, border and text."""

    cell: str
    border: str
    text: str
    muted: str


PLOTS = {Mode.LIGHT: PlotColours("#fbfbfd", "#4a5162", "#1d2330"),
         Mode.DARK: PlotColours("#1e1e24", "#b4b9c6", "#ebebeb")}
GRIDS = {Mode.LIGHT: GridColours("#ffffff", "#c9ccd3", "#1d2030", "#7a8090"),
         Mode.DARK: GridColours("#262932", "#4a505e", "#e6e8ee", "#9aa1b1")}

#: The dark widget palette: (role, colour) for every colour group, then the disabled ones.
_DARK_ROLES = {
    "Window": "#2b2e35", "WindowText": "#e6e8ee", "Base": "#1f2127", "AlternateBase": "#272a31",
    "ToolTipBase": "#3a3e47", "ToolTipText": "#f0f1f4", "PlaceholderText": "#8a90a0", "Text": "#e6e8ee",
    "Button": "#353941", "ButtonText": "#e6e8ee", "BrightText": "#ffffff", "Light": "#4a4f5a",
    "Midlight": "#3e424c", "Mid": "#2f3239", "Dark": "#1a1c21", "Shadow": "#101114",
    "Highlight": "#2f7cf6", "HighlightedText": "#ffffff", "Link": "#6ea8ff", "LinkVisited": "#b08cff",
}
_DARK_DISABLED = {"WindowText": "#737986", "Text": "#737986", "ButtonText": "#737986",
                  "Base": "#25272d", "Button": "#2e3138"}

_current = Mode.LIGHT


def mode() -> Mode:
    """The mode shown now."""
    return _current


def plot_colours() -> PlotColours:
    return PLOTS[_current]


def grid_colours() -> GridColours:
    return GRIDS[_current]


def dark_palette() -> QtGui.QPalette:
    """The widget palette of the dark mode."""
    palette = QtGui.QPalette()
    Role, Group = QtGui.QPalette.ColorRole, QtGui.QPalette.ColorGroup  # noqa: N806 - Qt enum aliases
    for name, colour in _DARK_ROLES.items():
        palette.setColor(getattr(Role, name), QtGui.QColor(colour))
    for name, colour in _DARK_DISABLED.items():
        palette.setColor(Group.Disabled, getattr(Role, name), QtGui.QColor(colour))
    return palette


def system_mode() -> Mode:
    """The desktop's colour scheme (light when Qt cannot tell)."""
    hints = QtGui.QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)
    return Mode.DARK if scheme is not None and scheme() == QtCore.Qt.ColorScheme.Dark else Mode.LIGHT


class Theme(QtCore.QObject):
    """The application's theme. ``changed(Mode)`` after the mode shown changed."""

    changed = QtCore.Signal(object)

    def __init__(self, app: QtWidgets.QApplication) -> None:
        super().__init__(app)
        self._app = app
        self._started_with = QtGui.QPalette(app.palette())   # the light palette of a light desktop
        self._shown: tuple[Mode, Mode] | None = None         # (mode, desktop's mode) last applied
        self.choice = saved_choice()
        hints = QtGui.QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(lambda _scheme: self.apply())

    def reload(self) -> None:
        """Take the choice from the settings again (a new window) and apply it."""
        self.choice = saved_choice()
        self.apply()

    @property
    def mode(self) -> Mode:
        """What ``choice`` means on this desktop now."""
        return {ThemeChoice.LIGHT: Mode.LIGHT, ThemeChoice.DARK: Mode.DARK}.get(self.choice) or system_mode()

    def set_choice(self, choice: ThemeChoice) -> None:
        """Show ``choice`` and remember it for the next start."""
        self.choice = ThemeChoice(choice)
        S.settings().setValue(SETTINGS_KEY, self.choice.value)
        self.apply()

    def apply(self) -> None:
        """Set the application palette for :attr:`mode` (unless it is set already); emit
        ``changed`` when the mode changed."""
        global _current
        new = self.mode
        if self._shown == (new, system_mode()):
            return
        self._shown = (new, system_mode())
        if new is Mode.DARK:
            palette = dark_palette()
        elif system_mode() is Mode.LIGHT:
            palette = self._started_with
        else:                        # light chosen on a dark desktop
            palette = self._app.style().standardPalette()
        self._app.setPalette(palette)
        QtWidgets.QToolTip.setPalette(palette)
        for widget in self._app.allWidgets():
            if widget.styleSheet():   # a widget with a style sheet keeps its old palette otherwise
                widget.setStyleSheet(widget.styleSheet())
        old, _current = _current, new
        if old is not new:
            self.changed.emit(new)


def saved_choice() -> ThemeChoice:
    """The choice in the settings (System when none or an unknown one is stored)."""
    value = str(S.settings().value(SETTINGS_KEY, ThemeChoice.SYSTEM.value))
    try:
        return ThemeChoice(value)
    except ValueError:
        return ThemeChoice.SYSTEM


_theme: Theme | None = None


def theme() -> Theme:
    """The application's :class:`Theme` (made, with the saved choice applied, on first use;
    needs a QApplication)."""
    global _theme
    app = QtWidgets.QApplication.instance()
    if _theme is None or _theme.parent() is not app:
        _theme = Theme(app)
        _theme.apply()
    return _theme
