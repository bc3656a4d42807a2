"""The Help menu. Keyboard Shortcuts: every menu action that has a shortcut, the canvas keys
and gestures, in one table built from the window's own actions (so it cannot fall out of
date). Port and Wire Colours (:class:`ColourLegend`): what each colour on the canvas means,
built from ``canvas.style``'s tables. About IndexFlow: the version and what the editor is
for (:func:`show_about`).

The dialog fits the screen's available area (``screen_fit.fit_to_screen``): on a projector
(QT_SCALE_FACTOR=1.5 on 1280x720, 853x480 logical) it is shorter than its preferred 620x520,
the table scrolls and the Close button stays on screen."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from .canvas import style
from .canvas.view import KEYBOARD_HELP
from .screen_fit import fit_to_screen

#: What the canvas does without a menu action.
CANVAS_GESTURES = (
    ("Drag from an output port to an input port", "Connect (dropping on a connected input replaces its wire)"),
    ("Drag a wire's end away", "Disconnect"),
    ("Mouse wheel", "Zoom at the pointer (View > Zoom In / Out: about the middle)"),
    ("Middle button drag, or Space + drag", "Pan"),
    ("Drag on empty canvas", "Select with a rubber band"),
    ("Click a port", "Show that tensor in the viewer"),
    ("Drop a new wire on empty canvas", "Choose a block that takes it; it is added and connected"),
    ("Double-click a wire", "Add a reroute point (drag it; double-click it to remove it)"),
    ("Drag a frame's title", "Move the frame with its nodes (double-click: rename it)"),
    ("Click or drag on the minimap", "Move the view there"),
    ("Right click, or the Menu key / Shift+F10", "Node, frame or canvas menu (the keys: the selected node's, at it)"),
)

#: What the line styles and the other colours of wires and nodes mean (after the type colours).
STATE_LEGEND = (
    (style.STATE_COLOURS[style.ERROR], QtCore.Qt.PenStyle.SolidLine,
     "a wire from a node that failed (the node has a red border)"),
    (style.EDGE_COLOURS[style.BLOCKED], QtCore.Qt.PenStyle.DashLine, "a wire from a blocked node"),
    (style.FAMILY_COLOURS[style.DtypeFamily.FLOAT][0], QtCore.Qt.PenStyle.DashLine,
     "dashed: not evaluated yet"),
)


def legend_rows() -> list[tuple[QtGui.QColor, QtCore.Qt.PenStyle, str]]:
    """(colour, line style, meaning) for each row of the legend: the element type families
    (``style.FAMILY_COLOURS``), then the wire states."""
    rows = [(colour, QtCore.Qt.PenStyle.SolidLine, text) for colour, text in style.FAMILY_COLOURS.values()]
    return rows + list(STATE_LEGEND)


def swatch(colour: QtGui.QColor, pen_style: QtCore.Qt.PenStyle, width: int = 64, height: int = 20) -> QtGui.QPixmap:
    """A short wire ending in a filled port, as the canvas draws them."""
    pixmap = QtGui.QPixmap(width, height)
    pixmap.fill(QtCore.Qt.GlobalColor.transparent)
    p = QtGui.QPainter(pixmap)
    p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
    pen = QtGui.QPen(colour, 2.4)
    pen.setStyle(pen_style)
    p.setPen(pen)
    p.drawLine(QtCore.QPointF(4, height / 2), QtCore.QPointF(width - 14, height / 2))
    p.setPen(QtGui.QPen(colour, 1.8))
    p.setBrush(colour)
    p.drawEllipse(QtCore.QPointF(width - 9, height / 2), style.PORT_RADIUS, style.PORT_RADIUS)
    p.end()
    return pixmap


class ColourLegend(QtWidgets.QDialog):
    """Help > Port and Wire Colours."""

    def __init__(self, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.setWindowTitle("Port and Wire Colours")
        layout = QtWidgets.QVBoxLayout(self)
        intro = QtWidgets.QLabel("Ports and wires take the colour of the element type they carry. "
                                 "An input not connected yet shows the type its operator needs there.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        grid = QtWidgets.QGridLayout()
        self.rows: list[str] = []
        for r, (colour, pen_style, text) in enumerate(legend_rows()):
            picture = QtWidgets.QLabel()
            picture.setPixmap(swatch(colour, pen_style))
            grid.addWidget(picture, r, 0)
            label = QtWidgets.QLabel(text)
            label.setWordWrap(True)
            grid.addWidget(label, r, 1)
            self.rows.append(text)
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(480, self.sizeHint().height())


def shortcut_rows(window: QtWidgets.QMainWindow) -> list[tuple[str, str]]:
    """(keys, what) for each menu action of ``window`` with a shortcut, in menu order, then
    the canvas's own keys and its mouse gestures. A key that works only while the focus is in
    one part of the window (the canvas's node keys, the Explainer's stepping keys) says where."""
    rows: list[tuple[str, str]] = []
    seen: set[int] = set()
    parts = ((getattr(window, "view", None), "on the canvas"), (getattr(window, "explainer", None), "in the Explainer"))
    places = {id(widget): text for widget, text in parts if widget is not None}

    def where(action: QtGui.QAction) -> str:
        if action.shortcutContext() != QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut:
            return ""
        found = [places[id(o)] for o in action.associatedObjects() if id(o) in places]
        return f" ({found[0]})" if found else ""

    # the undo stack's actions are named after the next command ("Undo Delete 1 Node")
    fixed = {id(getattr(window, name)): text for name, text in
             (("undo_action", "Undo"), ("redo_action", "Redo")) if hasattr(window, name)}
    notes = {"Add Block…": "Add Block… (quick add on the canvas: type a block's name)"}

    def walk(menu: QtWidgets.QMenu) -> None:
        for action in menu.actions():
            if action.menu() is not None:
                walk(action.menu())
                continue
            # every key of an action (Redo: Ctrl+Shift+Z and Ctrl+Y; Delete: Del and Backspace)
            keys = ", ".join(k.toString(QtGui.QKeySequence.SequenceFormat.NativeText)
                             for k in action.shortcuts() if not k.isEmpty())
            text = fixed.get(id(action)) or action.text().replace("&", "").split("\t")[0]
            text = notes.get(text, text)
            if "\t" in action.text() and not keys:
                keys = action.text().split("\t", 1)[1]
            if keys and id(action) not in seen:
                seen.add(id(action))
                rows.append((keys, f"{menu.title().replace('&', '')} > {text}{where(action)}"))

    for action in window.menuBar().actions():
        if action.menu() is not None:
            walk(action.menu())
    return rows + list(KEYBOARD_HELP) + list(CANVAS_GESTURES)


class ShortcutsDialog(QtWidgets.QDialog):
    PREFERRED_SIZE = QtCore.QSize(620, 520)

    def __init__(self, window: QtWidgets.QMainWindow) -> None:
        super().__init__(window)
        self.setWindowTitle("Keyboard Shortcuts")
        rows = shortcut_rows(window)
        self.table = QtWidgets.QTableWidget(len(rows), 2, self)
        self.table.setTabKeyNavigation(False)   # Tab reaches the Close button
        self.table.setHorizontalHeaderLabels(["Keys", "Does"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        for r, (keys, what) in enumerate(rows):
            self.table.setItem(r, 0, QtWidgets.QTableWidgetItem(keys))
            self.table.setItem(r, 1, QtWidgets.QTableWidgetItem(what))
        self.table.setWordWrap(True)
        self.table.setColumnWidth(0, 230)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        fit_to_screen(self, self.PREFERRED_SIZE)

    def showEvent(self, event: QtGui.QShowEvent) -> None:
        super().showEvent(event)
        fit_to_screen(self)   # now the frame is known, and where Qt placed the dialog


def show_about(parent: QtWidgets.QWidget) -> None:
    """Help > About IndexFlow: the installed version ("development" in a source checkout)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        v = version("indexflow")
    except PackageNotFoundError:
        v = "development"
    QtWidgets.QMessageBox.about(
        parent, "About IndexFlow",
        f"<b>IndexFlow</b> {v}<br>A node editor for the ONNX indexing operators: Gather, "
        "GatherElements, GatherND, Scatter, ScatterElements, ScatterND and TensorScatter.<br><br>"
        "Build a graph from the palette, watch every tensor, step through the Explainer, "
        "and export to ONNX (File > Export ONNX).")
