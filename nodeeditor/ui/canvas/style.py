"""Colours and sizes of the canvas, in one place (the status colours serve the whole UI)."""
from PySide6 import QtGui

from nodeeditor.graph.status import NodeStatus

BACKGROUND = QtGui.QColor("#f3f4f7")
GRID_MINOR = QtGui.QColor("#e6e8ee")
GRID_MAJOR = QtGui.QColor("#d6d9e2")
GRID_STEP = 20

NODE_WIDTH = 230.0
HEADER_HEIGHT = 24.0
SUBTITLE_HEIGHT = 18.0
ROW_HEIGHT = 20.0
PREVIEW_HEIGHT = 72.0
PORT_RADIUS = 5.5
NODE_BODY = QtGui.QColor("#ffffff")
NODE_TEXT = QtGui.QColor("#1d2330")
NODE_MUTED = QtGui.QColor("#6a7285")
SELECTION = QtGui.QColor("#2f7cf6")

CATEGORY_COLOURS = {
    "source": QtGui.QColor("#3d9a6a"),
    "gather": QtGui.QColor("#3a6fc4"),
    "scatter": QtGui.QColor("#c77a2a"),
    "output": QtGui.QColor("#7c56b8"),
    "foreign": QtGui.QColor("#5f6b7a"),   # an ONNX op other than the seven (a plain fallback)
}

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
#: A wire takes the status of the node it comes from, in quieter colours.
EDGE_COLOURS = {
    INCOMPLETE: QtGui.QColor("#9aa1b1"),
    OK: QtGui.QColor("#5f6778"),
    RUNNING: QtGui.QColor("#2f7cf6"),
    STALE: QtGui.QColor("#9aa1b1"),
    ERROR: QtGui.QColor("#d43c3c"),
    BLOCKED: QtGui.QColor("#b39a66"),
    WARNING: QtGui.QColor("#c99000"),
}
