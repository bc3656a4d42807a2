"""A frame on the canvas: a titled, coloured box around its member nodes (one document
:class:`~nodeeditor.graph.nodes.Frame`, its ``frame_id``). It keeps nothing of its own: its
box is the members' box plus a margin and a title bar, recomputed whenever a member moves.

Only the title bar takes the mouse (the inside stays canvas: rubber-band selection works
there). Dragging the title bar moves the members with it; the scene reports the move like a
node drag (``nodesMoved``), so it is one undo step. Double-clicking the title asks the scene
to rename the frame (``GraphScene.frameRenameRequested``). A collapsed frame is not drawn
here but as a group block (:mod:`.group_item`).
"""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from . import style
from .node_item import legible_font, screen_scale

MARGIN = 18.0        # scene units between the members and the frame
TITLE_HEIGHT = 28.0  # the title bar above the members


def report_member_moves(scene, starts: dict[str, QtCore.QPointF]) -> None:
    """A box dragged its members from ``starts``: the scene reports those that moved (from, to)
    as one ``nodesMoved``, like a node drag, so the drag is one undo step."""
    moves = {}
    for nid, start in starts.items():
        now = scene.node_item(nid).pos()
        if now != start:
            moves[nid] = ((start.x(), start.y()), (now.x(), now.y()))
    if moves:
        scene.nodesMoved.emit(moves)


class FrameItem(QtWidgets.QGraphicsItem):
    def __init__(self, frame_id: str) -> None:
        super().__init__()
        self.frame_id = frame_id
        self.setZValue(-5)
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable)
        self.setAcceptHoverEvents(True)
        self.setCursor(QtCore.Qt.CursorShape.SizeAllCursor)
        self._box = QtCore.QRectF()
        self._drag_from: QtCore.QPointF | None = None
        self._starts: dict[str, QtCore.QPointF] = {}

    def _frame(self):
        return self.scene().graph.frame(self.frame_id)

    def relayout(self) -> None:
        """Fit the box around the members as they are drawn now (hidden when none is on the
        canvas, or while the frame is collapsed: its group block, ``group_item``, is drawn)."""
        scene = self.scene()
        if scene is None or not scene.graph.has_frame(self.frame_id):
            return
        frame = self._frame()
        if frame.collapsed:            # its block is drawn instead (the box comes back on expanding)
            self.setVisible(False)
            return
        rect = QtCore.QRectF()
        for node_id in frame.nodes:    # the members' boxes only (not a walk over every node)
            try:
                rect = rect.united(scene.node_box(node_id))   # without making an item not made yet
            except KeyError:
                continue
        self.setVisible(not rect.isNull())
        box = rect.adjusted(-MARGIN, -MARGIN - TITLE_HEIGHT, MARGIN, MARGIN) if not rect.isNull() else QtCore.QRectF()
        if box != self._box:
            self.prepareGeometryChange()
            self._box = box
        self.update()

    def box(self) -> QtCore.QRectF:
        """The frame's rectangle in scene coordinates."""
        return QtCore.QRectF(self._box)

    def title_rect(self) -> QtCore.QRectF:
        return QtCore.QRectF(self._box.left(), self._box.top(), self._box.width(), TITLE_HEIGHT)

    def boundingRect(self) -> QtCore.QRectF:
        return self._box.adjusted(-2, -2, 2, 2)

    def shape(self) -> QtGui.QPainterPath:   # only the title bar takes the mouse
        path = QtGui.QPainterPath()
        path.addRect(self.title_rect())
        return path

    def paint(self, painter: QtGui.QPainter, option, widget=None) -> None:
        scene = self.scene()
        if scene is None or not scene.graph.has_frame(self.frame_id) or self._box.isNull():
            return
        frame = self._frame()
        colour = QtGui.QColor(frame.colour)
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        fill = QtGui.QColor(colour)
        fill.setAlpha(34 if style.canvas_colours() is style.LIGHT else 52)
        pen = QtGui.QPen(style.SELECTION if self.isSelected() else colour, 2.4 if self.isSelected() else 1.4)
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(self._box, 8, 8)
        bar = QtGui.QColor(colour)
        bar.setAlpha(210)
        painter.setPen(QtCore.Qt.PenStyle.NoPen)
        painter.setBrush(bar)
        title = self.title_rect()
        painter.drawRoundedRect(title, 8, 8)
        painter.drawRect(title.adjusted(0, TITLE_HEIGHT / 2, 0, 0))
        font = legible_font(painter.font(), 11.0, screen_scale(painter))
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(QtGui.QColor("#ffffff"))
        text_rect = title.adjusted(10, 0, -10, 0)
        metrics = QtGui.QFontMetricsF(font)
        painter.drawText(text_rect, QtCore.Qt.AlignmentFlag.AlignVCenter,
                         metrics.elidedText(frame.title, QtCore.Qt.TextElideMode.ElideRight, text_rect.width()))

    # ------------------------------------------------------------------ dragging the members
    def mousePressEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        if event.button() != QtCore.Qt.MouseButton.LeftButton:
            super().mousePressEvent(event)
            return
        scene = self.scene()
        self._drag_from = event.scenePos()
        self._starts = {nid: scene.node_item(nid).pos() for nid in self._frame().nodes if nid in scene.node_ids()}
        if not self.isSelected():
            scene.clearSelection()
            self.setSelected(True)
        event.accept()

    def mouseMoveEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        if self._drag_from is None:
            return
        delta = event.scenePos() - self._drag_from
        scene = self.scene()
        for nid, start in self._starts.items():
            scene.node_item(nid).setPos(start + delta)
        event.accept()

    def mouseReleaseEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        if self._drag_from is None:
            return
        starts, self._drag_from, self._starts = self._starts, None, {}
        report_member_moves(self.scene(), starts)
        event.accept()

    def mouseDoubleClickEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        self.scene().frameRenameRequested.emit(self.frame_id)
        event.accept()
