"""Colours and sizes of the canvas, in one place (the status colours serve the whole UI).

- Sizes: module constants.
- Surfaces, text and grid: :class:`CanvasColours`, one table per theme mode
  (:data:`LIGHT`, :data:`DARK`); :func:`canvas_colours` is the one shown now
  (``nodeeditor.ui.theme``). The old module names (``BACKGROUND``, ``NODE_TEXT``, ...) are
  the light table's colours.
- Tensor element types: :class:`DtypeFamily` and :data:`FAMILY_COLOURS`, the one table
  ports, wires and the Help legend read (:func:`family_colour`).
- Node and wire states: :data:`STATE_COLOURS`, :data:`EDGE_COLOURS`.
- Training: :class:`TrainingMark` and :data:`TRAINING_MARKS` (the badges on nodes),
  :data:`GRADIENT_COLOUR` (the halo of a wire that carries a gradient in training mode).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from PySide6 import QtGui

from nodeeditor.graph.status import NodeStatus
from ops.dtypes import COMPLEX_NAMES, FLOAT_NAMES, INTEGER_NAMES, SMALL_DTYPE_NAMES

from .. import theme

GRID_STEP = 20

NODE_WIDTH = 230.0
HEADER_HEIGHT = 24.0
SUBTITLE_HEIGHT = 18.0
ROW_HEIGHT = 20.0
PREVIEW_HEIGHT = 72.0
PORT_RADIUS = 5.5
#: Text on a node is never drawn below this many screen pixels: at a low zoom (Frame All on a
#: large graph) it is drawn larger in scene units, as long as it fits its row...
MIN_LABEL_PX = 9.0
#: ...which the port type labels do down to this zoom (beside the port name),
LABEL_ZOOM = 0.5
#: the port names and the subtitle down to this one (a row is then MIN_LABEL_PX high);
NAMES_ZOOM = 0.42
#: below it a node shows its title (as large as its title row allows) and, while the
#: pointer is over it, a card with every port and its type at screen size (``PortCard``).
#: Below this zoom (a title row under 5 screen pixels: no text is readable) a node is drawn
#: as a plain box (its body, its title row's colour, its state or selection border) and the
#: wires without antialiasing: an overview of thousands of nodes redraws quickly.
OUTLINE_ZOOM = 0.2
SELECTION = QtGui.QColor("#2f7cf6")


@dataclass(frozen=True)
class CanvasColours:
    """The canvas in one theme mode."""

    background: QtGui.QColor
    grid_minor: QtGui.QColor
    grid_major: QtGui.QColor
    node_body: QtGui.QColor
    node_error_body: QtGui.QColor
    node_border: QtGui.QColor
    node_text: QtGui.QColor
    node_muted: QtGui.QColor
    node_faint: QtGui.QColor      # a type not known yet, "not connected"
    shadow: QtGui.QColor
    port_ring: QtGui.QColor
    hint_text: QtGui.QColor       # the empty-canvas hint
    preview_empty: QtGui.QColor
    bypassed_header: QtGui.QColor
    minimap_back: QtGui.QColor


LIGHT = CanvasColours(
    background=QtGui.QColor("#f3f4f7"), grid_minor=QtGui.QColor("#e6e8ee"), grid_major=QtGui.QColor("#d6d9e2"),
    node_body=QtGui.QColor("#ffffff"), node_error_body=QtGui.QColor("#fff1f1"), node_border=QtGui.QColor("#c5cad6"),
    node_text=QtGui.QColor("#1d2330"), node_muted=QtGui.QColor("#6a7285"), node_faint=QtGui.QColor("#b0b5c2"),
    shadow=QtGui.QColor(0, 0, 0, 28), port_ring=QtGui.QColor("#4a5162"), hint_text=QtGui.QColor("#6e7482"),
    preview_empty=QtGui.QColor("#f7f8fa"), bypassed_header=QtGui.QColor("#7d8597"),
    minimap_back=QtGui.QColor(255, 255, 255, 215))
DARK = CanvasColours(
    background=QtGui.QColor("#1b1d22"), grid_minor=QtGui.QColor("#23262c"), grid_major=QtGui.QColor("#2e3239"),
    node_body=QtGui.QColor("#2b2e36"), node_error_body=QtGui.QColor("#3a2628"), node_border=QtGui.QColor("#474c58"),
    node_text=QtGui.QColor("#e6e8ee"), node_muted=QtGui.QColor("#a3a9b7"), node_faint=QtGui.QColor("#6c7281"),
    shadow=QtGui.QColor(0, 0, 0, 90), port_ring=QtGui.QColor("#b4b9c6"), hint_text=QtGui.QColor("#8d93a1"),
    preview_empty=QtGui.QColor("#24272e"), bypassed_header=QtGui.QColor("#5d636f"),
    minimap_back=QtGui.QColor(30, 32, 38, 220))
MODES = {theme.Mode.LIGHT: LIGHT, theme.Mode.DARK: DARK}


def canvas_colours() -> CanvasColours:
    """The canvas colours of the theme mode shown now."""
    return MODES[theme.mode()]


# the light table under the names the canvas used before it had themes
BACKGROUND, GRID_MINOR, GRID_MAJOR = LIGHT.background, LIGHT.grid_minor, LIGHT.grid_major
NODE_BODY, NODE_TEXT, NODE_MUTED = LIGHT.node_body, LIGHT.node_text, LIGHT.node_muted

CATEGORY_COLOURS = {
    "source": QtGui.QColor("#3d9a6a"),
    "gather": QtGui.QColor("#3a6fc4"),
    "scatter": QtGui.QColor("#c77a2a"),
    "output": QtGui.QColor("#7c56b8"),
    "loss": QtGui.QColor("#b8406a"),
    "foreign": QtGui.QColor("#5f6b7a"),   # an ONNX op other than the seven (a plain fallback)
}


# ---------------------------------------------------------------------- element types
class DtypeFamily(enum.Enum):
    """The kinds of tensor element a port or wire is coloured by."""

    FLOAT = "float"
    INTEGER = "integer"
    BOOL = "bool"
    STRING = "string"
    COMPLEX = "complex"
    UNKNOWN = "unknown"


def dtype_family(dtype: str | None) -> DtypeFamily:
    """The family of an ``ops`` dtype name (None or an unknown name: UNKNOWN)."""
    if dtype in INTEGER_NAMES or dtype in ("int4", "uint4"):
        return DtypeFamily.INTEGER
    if dtype in FLOAT_NAMES or dtype in SMALL_DTYPE_NAMES:
        return DtypeFamily.FLOAT
    if dtype in COMPLEX_NAMES:
        return DtypeFamily.COMPLEX
    if dtype == "bool":
        return DtypeFamily.BOOL
    if dtype == "string":
        return DtypeFamily.STRING
    return DtypeFamily.UNKNOWN


#: family -> (colour, what the Help legend says). Read by ports, wires and the legend.
FAMILY_COLOURS: dict[DtypeFamily, tuple[QtGui.QColor, str]] = {
    DtypeFamily.FLOAT: (QtGui.QColor("#4f8ff0"), "floating point: float16/32/64, bfloat16, float8"),
    DtypeFamily.INTEGER: (QtGui.QColor("#27a678"), "integer: int8..int64, uint8..uint64 (indices)"),
    DtypeFamily.BOOL: (QtGui.QColor("#d9508f"), "bool"),
    DtypeFamily.STRING: (QtGui.QColor("#9a6ad6"), "string"),
    DtypeFamily.COMPLEX: (QtGui.QColor("#e07f3c"), "complex64, complex128"),
    DtypeFamily.UNKNOWN: (QtGui.QColor("#8d94a5"), "type not known yet (an input not connected, or an error)"),
}


def family_colour(dtype: str | None) -> QtGui.QColor:
    """The colour of a port or wire carrying elements of ``dtype``."""
    return FAMILY_COLOURS[dtype_family(dtype)][0]


# ---------------------------------------------------------------------- states
# node / edge states: the graph's NodeStatus (the short names are aliases of its members)
OK, RUNNING, STALE, ERROR, BLOCKED, WARNING = (NodeStatus.OK, NodeStatus.RUNNING, NodeStatus.STALE,
                                               NodeStatus.ERROR, NodeStatus.BLOCKED, NodeStatus.WARNING)
#: a required input is not connected yet: unfinished work, drawn calmly (not as an error)
INCOMPLETE = NodeStatus.INCOMPLETE
#: The colour of each status, wherever it is shown: node badges on the canvas, the property
#: panel's problem text. (CANCELLED is never shown: a cancelled node shows as STALE.)
STATE_COLOURS = {
    INCOMPLETE: QtGui.QColor("#7d8597"),
    OK: QtGui.QColor("#3d9a6a"),
    RUNNING: QtGui.QColor("#2f7cf6"),
    STALE: QtGui.QColor("#9aa1b1"),
    ERROR: QtGui.QColor("#d43c3c"),
    BLOCKED: QtGui.QColor("#a08a5c"),
    WARNING: QtGui.QColor("#e0a000"),
}
STATE_LABELS = {OK: "up to date", RUNNING: "running…", STALE: "not evaluated", ERROR: "error",
                BLOCKED: "blocked", WARNING: "warning", INCOMPLETE: "inputs to connect"}
#: A wire takes the status of the node it comes from, in quieter colours. A wire whose
#: source is fine (OK, STALE, RUNNING, INCOMPLETE) is drawn in its element type's
#: :func:`family_colour` instead; ERROR and BLOCKED keep theirs, so a problem still shows.
EDGE_COLOURS = {
    INCOMPLETE: QtGui.QColor("#9aa1b1"),
    OK: QtGui.QColor("#5f6778"),
    RUNNING: QtGui.QColor("#2f7cf6"),
    STALE: QtGui.QColor("#9aa1b1"),
    ERROR: QtGui.QColor("#d43c3c"),
    BLOCKED: QtGui.QColor("#b39a66"),
    WARNING: QtGui.QColor("#c99000"),
}


# ---------------------------------------------------------------------- training
class TrainingMark(enum.Enum):
    """A badge in a node's header about training."""

    TRAINABLE = "trainable"           # a source a training run updates
    TRAINING_OFF = "training off"     # an operator whose training switch is off
    COEFFICIENT = "coefficient"       # an operator whose loss coefficient is not 1 (the badge shows it)


#: mark -> (badge fill, badge text colour, the badge's words; "{}" takes the coefficient).
TRAINING_MARKS: dict[TrainingMark, tuple[QtGui.QColor, QtGui.QColor, str]] = {
    TrainingMark.TRAINABLE: (QtGui.QColor("#fff4e6"), QtGui.QColor("#d9480f"), "∇ trainable"),
    TrainingMark.TRAINING_OFF: (QtGui.QColor("#343a40"), QtGui.QColor("#f1f3f5"), "training off"),
    TrainingMark.COEFFICIENT: (QtGui.QColor("#fff4e6"), QtGui.QColor("#d9480f"), "∇ ×{}"),
}
#: The halo under a wire that carries a gradient back towards a trainable source (shown while
#: the Training dock is open), and its width in scene units.
GRADIENT_COLOUR = QtGui.QColor(240, 140, 0, 140)
GRADIENT_WIDTH = 8.0


def one_line(text: str) -> str:
    """``text`` for a one-line label: line breaks shown as ⏎ and other control characters as
    · (a name may hold any string; drawn as it is, only one of its lines showed)."""
    return "".join("⏎" if ch in "\r\n\x85\u2028\u2029" else "·" if ord(ch) < 32 or ch == "\x7f" else ch
                   for ch in text.replace("\r\n", "\n"))
