"""The main window on a projector (QT_SCALE_FACTOR=1.5 on 1280x720: 853x480 logical, 853x440
with a task bar): selecting any node of any bundled example keeps the window's minimum size
inside the screen (shot 12: 870-886 px wide, a 3-d tensor's viewer 320 px high), the side
docks start narrow enough to leave the canvas about half the width, and the window is capped
to the available area when shown or resized."""
from __future__ import annotations

from PySide6 import QtCore, QtGui

from nodeeditor.graph.examples import list_examples, load_example

from .helpers import deliver_posted_events, save_shot


def _projector(monkeypatch, size):
    area = QtCore.QRect(0, 0, *size)
    monkeypatch.setattr(QtGui.QScreen, "availableGeometry", lambda self: QtCore.QRect(area))
    return area


def test_every_node_of_every_example_keeps_the_window_inside_the_screen(qtbot, dialogs, monkeypatch):
    """On the smaller of the two projector areas (853x440, with a task bar): every bound checked
    here holds a fortiori on 853x480 (the window is capped to either area)."""
    from nodeeditor.ui.app import create_main_window

    size = (853, 440)
    area = _projector(monkeypatch, size)
    w = create_main_window()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.runner.wait()
    assert area.contains(w.frameGeometry())
    problems = []
    for info in list_examples():
        w.set_document(load_example(info.name), None)
        w.runner.wait()
        for node_id in w.graph.node_ids:
            w.scene.select_nodes([node_id])
            w.runner.wait()
            deliver_posted_events()     # the docks laid out for this node; the checks are bounds
            docks = {d.objectName(): d.minimumSizeHint() for d in (w.palette_dock, w.properties_dock, w.viewer_dock)}
            right = docks["propertiesDock"].height() + docks["viewerDock"].height()
            chrome = w.menuBar().sizeHint().height() + w.statusBar().minimumSizeHint().height()
            mine = docks["paletteDock"].width() + max(docks["propertiesDock"].width(), docks["viewerDock"].width())
            where = f"{info.name} / {w.graph.node(node_id).name}"
            if right + chrome > area.height():
                problems.append(f"{where}: right column {right} + {chrome} > {area.height()}")
            if mine + w.statusBar().minimumSizeHint().width() > area.width():
                problems.append(f"{where}: side docks {mine} too wide")
            if w.explainer_dock.minimumSizeHint().width() <= 300:      # the Explainer's own share
                hint = w.minimumSizeHint()
                if hint.width() > area.width() or hint.height() > area.height():
                    problems.append(f"{where}: window minimum {hint.width()}x{hint.height()}")
                if not area.contains(w.frameGeometry()):
                    problems.append(f"{where}: window {w.frameGeometry()}")
            if node_id == "tensor_scatter":
                save_shot(w, f"window/window_{size[0]}x{size[1]}_{info.name}_{node_id}")
    w.runner.wait()
    assert not problems, "\n".join(problems[:20])


def test_the_canvas_keeps_about_half_of_a_small_window_and_the_window_is_capped(qtbot, dialogs, monkeypatch):
    from nodeeditor.ui.app import create_main_window

    area = _projector(monkeypatch, (853, 480))
    w = create_main_window()
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.runner.wait()
    deliver_posted_events()                   # the first layout settled; the checks are bounds
    save_shot(w, "window/first_start_853x480")
    assert w.view.width() >= 0.4 * w.width(), (w.view.width(), w.width())
    assert w.palette_dock.width() <= 0.25 * w.width() + 2
    w.resize(1400, 900)                       # a saved desktop size, or a drag past the edge
    qtbot.waitUntil(lambda: area.contains(w.frameGeometry()), timeout=10000)
    w.runner.wait()
