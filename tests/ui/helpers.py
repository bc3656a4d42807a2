"""Real mouse and key input for the editor tests."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

LEFT = QtCore.Qt.MouseButton.LeftButton
NOMOD = QtCore.Qt.KeyboardModifier.NoModifier


def port_point(window, node_id: str, port: str, is_output: bool) -> QtCore.QPoint:
    """Viewport coordinates of a port."""
    scene_pos = window.scene.node_item(node_id).port_scene_pos(port, is_output)
    return window.view.mapFromScene(scene_pos)


def scene_point(window, x: float, y: float) -> QtCore.QPoint:
    return window.view.mapFromScene(QtCore.QPointF(x, y))


def drag(viewport: QtWidgets.QWidget, start: QtCore.QPoint, end: QtCore.QPoint, steps: int = 6,
         button=LEFT) -> None:
    """Press at ``start``, move in steps, release at ``end`` (real QTest mouse events)."""
    QTest.mousePress(viewport, button, NOMOD, start)
    for i in range(1, steps + 1):
        p = start + (end - start) * (i / steps)
        QTest.mouseMove(viewport, QtCore.QPoint(int(p.x()), int(p.y())))
    QTest.mouseRelease(viewport, button, NOMOD, end)


def keys(widget: QtWidgets.QWidget, sequence: str) -> None:
    """Type a key sequence such as 'Ctrl+Z' at ``widget`` (shortcuts included)."""
    QTest.keySequence(widget, QtGui.QKeySequence(sequence))


def open_example(window, name: str) -> None:
    """File > Examples > ``name`` through its menu action; returns once it is framed and run."""
    action = next(a for a in window.examples_menu.actions() if a.data() == name)
    action.trigger()
    QTest.qWait(1)                    # the opening frame runs on the next event-loop turn
    window.runner.wait()


def nodes_out_of_view(window) -> int:
    """How many node items are not wholly inside the visible part of the canvas."""
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    return sum(not visible.contains(i.sceneBoundingRect()) for i in window.scene.node_items())


def on_screen(widget: QtWidgets.QWidget) -> QtGui.QImage:
    """What the screen shows where ``widget`` is (the window's backing store, as painted by
    its incremental updates), unlike ``widget.grab()``, which paints the widget afresh."""
    QtWidgets.QApplication.processEvents()
    top = widget.mapToGlobal(QtCore.QPoint(0, 0))
    screen = widget.screen() or QtGui.QGuiApplication.primaryScreen()
    return screen.grabWindow(0, top.x(), top.y(), widget.width(), widget.height()).toImage()


def save_shot(image_or_widget, name: str) -> None:
    """Save a screenshot under $INDEXFLOW_SHOTS (nothing when it is not set)."""
    import os

    folder = os.environ.get("INDEXFLOW_SHOTS")
    if not folder:
        return
    os.makedirs(folder, exist_ok=True)
    image = image_or_widget.grab() if isinstance(image_or_widget, QtWidgets.QWidget) else image_or_widget
    image.save(os.path.join(folder, name))
