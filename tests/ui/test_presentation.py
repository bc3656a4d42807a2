"""View > Presentation (F5): full screen, canvas and Explainer only, one key (F6) for the other
panels, large text, the Explainer's keys window-wide, Esc leaves and everything comes back;
on a classroom projector (1280x720 at QT_SCALE_FACTOR=1.5, a fresh process with that screen)
every seed example's step shows whole, nothing clipped."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6 import QtCore, QtGui
from PySide6.QtTest import QTest

from nodeeditor.graph import load_example

ROOT = Path(__file__).resolve().parents[2]
Key = QtCore.Qt.Key


def _open(window, example="scatter9_examples", node="ex1_op"):
    window.set_document(load_example(example), None)
    window.runner.wait()
    assert window.explainer_controller.explain(node)


def test_f5_presents_f6_shows_the_panels_and_esc_leaves_as_it_was(window, qtbot):
    w = window
    _open(w)
    geometry, zoom = w.geometry(), w.view.transform()
    docks = {d.objectName(): d.isVisible() for d in (w.palette_dock, w.properties_dock, w.viewer_dock)}
    area = w.dockWidgetArea(w.explainer_dock)
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_F5)
    qtbot.waitUntil(lambda: w.isFullScreen(), timeout=10000)
    assert w.presentation.active and w.presentation.action.isChecked()
    assert not any(d.isVisible() for d in (w.palette_dock, w.properties_dock, w.viewer_dock))
    assert w.explainer_dock.isVisible() and w.explainer.zoom >= 1.0
    qtbot.waitUntil(lambda: w.explainer.zoom > 1.0, timeout=10000)   # the step fits larger text on a desktop screen
    assert w.view.zoom >= 0.8                           # node titles readable
    QTest.keyClick(w.view, Key.Key_F6)                  # the panels, still presenting
    assert w.palette_dock.isVisible() and w.properties_dock.isVisible() and w.presentation.active
    QTest.keyClick(w.view, Key.Key_F6)
    assert not w.palette_dock.isVisible() and w.explainer_dock.isVisible()
    QTest.keyClick(w.view, Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.isFullScreen(), timeout=10000)
    assert not w.presentation.active and w.explainer.zoom == 1.0
    assert {d.objectName(): d.isVisible() for d in (w.palette_dock, w.properties_dock, w.viewer_dock)} == docks
    assert w.dockWidgetArea(w.explainer_dock) == area
    qtbot.waitUntil(lambda: w.geometry() == geometry, timeout=10000)
    assert w.view.transform() == zoom
    assert w.cancel_action.shortcut() == QtGui.QKeySequence("Esc")   # Run > Cancel Run has Esc again


def test_while_presenting_the_stepping_keys_work_from_the_canvas(window, qtbot):
    """Space, Right, End... step the Explainer even with the focus on the canvas (where the
    arrow keys otherwise move the selected node)."""
    w = _open(window) or window
    position = w.graph.node("ex1_op").position
    w.presentation.set_active(True)
    w.view.setFocus()
    qtbot.waitUntil(lambda: w.view.hasFocus(), timeout=10000)
    QTest.keyClick(w.view, Key.Key_Right)
    assert w.explainer.step == 1 and w.graph.node("ex1_op").position == position
    QTest.keyClick(w.view, Key.Key_End)
    assert w.explainer.step == w.explainer.count - 1
    QTest.keyClick(w.view, Key.Key_Home)
    QTest.keyClick(w.view, Key.Key_Space)
    assert w.explainer.playing
    QTest.keyClick(w.view, Key.Key_Space)
    assert not w.explainer.playing
    w.presentation.set_active(False)
    # outside presentation the canvas keeps its arrow keys (a nudge of the selected node)
    QTest.keyClick(w.view, Key.Key_Right)
    qtbot.waitUntil(lambda: w.graph.node("ex1_op").position != position, timeout=10000)


def test_evaluate_now_is_ctrl_r_and_f5_is_presentation(window):
    assert window.run_action.shortcut() == QtGui.QKeySequence("Ctrl+R")
    assert window.presentation.action.shortcut() == QtGui.QKeySequence("F5")
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert window.presentation.action in view_menu.actions()
    assert window.explainer.menu.menuAction() in view_menu.actions()


def test_closing_while_presenting_saves_the_usual_layout(window, qtbot):
    _open(window)
    window.presentation.set_active(True)
    qtbot.waitUntil(lambda: window.isFullScreen(), timeout=10000)
    window.close()
    assert not window.presentation.active and not window.isFullScreen()


def test_on_a_1280x720_projector_at_scale_1_5_every_seed_step_shows_whole(tmp_path):
    """A fresh process with a 1280x720 offscreen screen and QT_SCALE_FACTOR=1.5 (853x480
    logical): in presentation, each seed example's first and last step shows every grid whole,
    no cell outside its grid, the output row in view, with text at 1.0x or larger."""
    screen = tmp_path / "projector.json"
    screen.write_text(json.dumps({"synchronousWindowSystemEvents": False, "windowFrameMargins": False, "screens": [
        {"name": "projector", "x": 0, "y": 0, "width": 1280, "height": 720, "logicalDpiX": 96, "logicalDpiY": 96,
         "dpr": 1}]}))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QT_SCALE_FACTOR": "1.5",
           "QT_QPA_PLATFORM": f"offscreen:configfile={screen}", "INDEXFLOW_STATE_DIR": str(tmp_path / "state")}
    result = subprocess.run([sys.executable, str(Path(__file__).with_name("presentation_check.py")),
                             os.environ.get("INDEXFLOW_SHOTS", "")], capture_output=True, text=True, env=env,
                            cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["screen"] == [0, 0, 853, 480] and report["dpr"] == 1.5
    assert len(report["cases"]) >= 14
    problems = [f"{c['case']} step {c['step'] + 1}: {p}" for c in report["cases"] for p in c["problems"]]
    assert not problems, "\n".join(problems)
    assert all(c["zoom"] >= 1.0 and c["canvas_zoom"] >= 0.8 for c in report["cases"]), report["cases"]
    assert report["after"] == {"full_screen": False, "panels": True}


def test_the_canvas_shows_the_operators_inputs_whole_and_no_minimap_covers_them(window, qtbot):
    """At 1920x1080 the operator with its inputs and output is wider than the canvas at the
    readable zoom: the inputs (read first) and the operator show whole, the output may be cut;
    the minimap stays hidden while presenting and comes back after."""
    from nodeeditor.ui.canvas.node_item import NodeItem

    w = window
    _open(w, "scatter9_examples", "ex1_op")
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_F5)
    qtbot.waitUntil(lambda: w.isFullScreen(), timeout=10000)
    w.presentation.refit()
    visible = w.view.mapToScene(w.view.viewport().rect()).boundingRect()
    m = NodeItem.MARGIN
    for nid in ["ex1_op", *(e.src for e in w.graph.inputs_of("ex1_op").values())]:
        box = w.scene.node_item(nid).sceneBoundingRect().adjusted(m, m, -m, -m)
        assert visible.contains(box), (nid, box, visible)
    assert not w.view.minimap.isVisible()
    QTest.keyClick(w.view, Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.isFullScreen(), timeout=10000)
    assert not w.view.minimap.suppressed


def test_framed_centre_keeps_the_inputs_and_the_operator_when_all_does_not_fit():
    from nodeeditor.ui.presentation import FRAME_MARGIN, framed_centre

    rect, focus = QtCore.QRectF(0, 0, 1000, 300), QtCore.QRectF(500, 100, 200, 100)
    assert framed_centre(rect, focus, 1200, 400) == rect.center()                # fits: its centre
    centre = framed_centre(rect, focus, 800, 400)                                # too wide: from the left
    assert centre.x() - 400 == 0 and centre.y() == 150
    centre = framed_centre(rect, focus, 600, 400)            # the inputs cut so that the operator stays whole
    assert centre.x() + 300 == focus.right() + FRAME_MARGIN
    assert framed_centre(rect, focus, 150, 400).x() == focus.center().x()        # even the operator is wider


def test_hiding_the_panels_gives_the_focus_to_the_canvas(window, qtbot):
    """F6 with the focus in a panel's field handed it to the next widget in Qt's chain, an
    Explainer button (Space then pressed that button instead of playing), or to none."""
    w = window
    _open(w)
    w.activateWindow()
    w.view.setFocus()
    QTest.keyClick(w.view, Key.Key_F5)
    qtbot.waitUntil(lambda: w.isFullScreen(), timeout=10000)
    QTest.keyClick(w.view, Key.Key_F6)                  # the panels back
    qtbot.waitUntil(lambda: w.palette_dock.isVisible(), timeout=10000)
    w.palette.search_field.setFocus()
    qtbot.waitUntil(lambda: w.palette.search_field.hasFocus(), timeout=10000)
    QTest.keyClick(w.palette.search_field, Key.Key_F6)  # and away again
    qtbot.waitUntil(lambda: not w.palette_dock.isVisible(), timeout=10000)
    qtbot.waitUntil(lambda: w.view.hasFocus(), timeout=10000)
    QTest.keyClick(w.view, Key.Key_Escape)
    qtbot.waitUntil(lambda: not w.presentation.active, timeout=10000)
