"""Real mouse and key input for the editor tests, the settling steps that have no state to
wait on, and the screenshots people can ask the tests to keep (``save_shot``)."""
from __future__ import annotations

import os
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

SHOTS_ENV = "INDEXFLOW_SHOTS"
"""The environment variable naming a folder for the tests' screenshots (unset: none kept)."""

LEFT = QtCore.Qt.MouseButton.LeftButton
NOMOD = QtCore.Qt.KeyboardModifier.NoModifier


def port_point(window, node_id: str, port: str, is_output: bool) -> QtCore.QPoint:
    """Viewport coordinates of a port."""
    scene_pos = window.scene.node_item(node_id).port_scene_pos(port, is_output)
    return window.view.mapFromScene(scene_pos)


def scene_point(window, x: float, y: float) -> QtCore.QPoint:
    return window.view.mapFromScene(QtCore.QPointF(x, y))


def press_and_move(viewport: QtWidgets.QWidget, start: QtCore.QPoint, end: QtCore.QPoint, steps: int = 6,
                   button=LEFT) -> None:
    """Press at ``start`` and move to ``end`` in steps, the button still held (real QTest mouse
    events): a drag caught before its drop, to look at what hovering shows."""
    QTest.mousePress(viewport, button, NOMOD, start)
    for i in range(1, steps + 1):
        p = start + (end - start) * (i / steps)
        QTest.mouseMove(viewport, QtCore.QPoint(int(p.x()), int(p.y())))


def drag(viewport: QtWidgets.QWidget, start: QtCore.QPoint, end: QtCore.QPoint, steps: int = 6,
         button=LEFT) -> None:
    """Press at ``start``, move in steps, release at ``end`` (real QTest mouse events)."""
    press_and_move(viewport, start, end, steps, button)
    QTest.mouseRelease(viewport, button, NOMOD, end)


def keys(widget: QtWidgets.QWidget, sequence: str) -> None:
    """Type a key sequence such as 'Ctrl+Z' at ``widget`` (shortcuts included)."""
    QTest.keySequence(widget, QtGui.QKeySequence(sequence))


def open_example(window, name: str) -> None:
    """File > Examples > ``name`` through its menu action; returns once it is framed and run."""
    action = next(a for a in window.examples_menu.actions() if a.data() == name)
    action.trigger()
    deliver_posted_events()           # the opening frame is a zero-delay timer
    window.runner.wait()


def nodes_out_of_view(window) -> int:
    """How many node items are not wholly inside the visible part of the canvas."""
    visible = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    return sum(not visible.contains(i.sceneBoundingRect()) for i in window.scene.node_items())


def deliver_posted_events(passes: int = 10) -> None:
    """Deliver the events already posted and run the zero-delay timers already due, such as
    the opening frame ``set_document`` schedules with ``QTimer.singleShot(0, ...)`` or the
    layout requests of a widget just shown, changed or resized.

    Only for a step that leaves nothing to wait on (no state changes that a test could
    watch, or a test that checks that something stays as it was); everything else waits
    for its condition with ``qtbot.waitUntil`` or ``qtbot.waitSignal``. Unlike a fixed
    ``qtbot.wait(N)`` this does not depend on how busy the machine is: each pass delivers
    every event posted before it, however long that takes, and the next pass what the
    previous one posted (a layout that changes a widget's size requests its parent's layout),
    so a few passes settle a cascade. Results of background threads are not covered: wait
    for them (``runner.wait()``, ``viewer.wait_for_background()``, a signal or a state)."""
    for _ in range(passes):
        QtWidgets.QApplication.processEvents()


def save_shot(picture, name: str) -> QtGui.QPixmap | QtGui.QImage:
    """Grab ``picture`` (a widget; a QImage or QPixmap is taken as it is) and return the
    grab. When the environment variable ``INDEXFLOW_SHOTS`` names a folder, the picture is
    also saved there as ``name.png`` (``name`` may name a sub-folder: ``"canvas/hint"``),
    for people to look at; when it is unset nothing is written.

    The widget is grabbed either way, so a test behaves the same with and without the
    variable (a grab paints the widget, and pyqtgraph finishes some layout at paint time)."""
    if isinstance(picture, QtWidgets.QWidget):
        picture = picture.grab()
    folder = os.environ.get(SHOTS_ENV)
    if folder:
        path = Path(folder) / f"{name}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not picture.save(str(path)):
            raise OSError(f"could not save the screenshot {path}")
    return picture


def viewer_settled(viewer) -> bool:
    """The tensor viewer shows all it computes in the background: no job of it is running,
    no picture title still says "refining…" or "computing…" and the statistics are shown."""
    titles = [panel.spec.title for panel in viewer.picture.panels]
    return (viewer.wait_for_background(0)
            and not any("refining…" in title or "computing…" in title for title in titles)
            and "computing…" not in viewer.stats_label.text())


def wait_for_viewer(qtbot, viewer, timeout: int = 30000) -> None:
    """Wait until ``viewer_settled(viewer)``, then let the layout of what it now shows settle
    (``deliver_posted_events``)."""
    qtbot.waitUntil(lambda: viewer_settled(viewer), timeout=timeout)
    deliver_posted_events()


def show_compared(viewer, qtbot, data, out) -> None:
    """Show ``data``, pin it, show ``out`` (as a ScatterElements output) and wait until the
    viewer shows everything (``wait_for_viewer``)."""
    with qtbot.waitSignal(viewer.statsReady, timeout=30000):
        viewer.set_tensor("data", data)
    viewer.pin()
    with qtbot.waitSignal(viewer.statsReady, timeout=30000):
        viewer.set_tensor("scatter_out", out, "ScatterElements")
    wait_for_viewer(qtbot, viewer)


def on_screen(widget: QtWidgets.QWidget) -> QtGui.QImage:
    """What the screen shows where ``widget`` is (the window's backing store, as painted by
    its incremental updates), unlike ``widget.grab()``, which paints the widget afresh."""
    deliver_posted_events()
    top = widget.mapToGlobal(QtCore.QPoint(0, 0))
    screen = widget.screen() or QtGui.QGuiApplication.primaryScreen()
    return screen.grabWindow(0, top.x(), top.y(), widget.width(), widget.height()).toImage()
