"""The viewer at the editor's dock size: no text widens it, compare panels stay readable,
short vectors write their values. Pictures go to /tmp/viewerfix/ for people to look at."""
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.ui.viewer import TensorViewer

SHOTS = Path("/tmp/viewerfix")
LONG_WARNING = ("warning: 2 target cell(s) are written more than once with reduction 'none' and the "
                "specification leaves the order of the writes open; IndexFlow keeps the last update "
                "in row-major order, onnxruntime may keep another one, so do not rely on it at all.")
assert len(LONG_WARNING) >= 300 - 60


def _shot(widget, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / f"{name}.png"))


@pytest.fixture
def make_viewer(qtbot):
    made = []

    def make(width, height):
        viewer = TensorViewer()
        qtbot.addWidget(viewer)
        viewer.resize(width, height)
        viewer.show()
        qtbot.waitExposed(viewer)
        made.append(viewer)
        return viewer

    yield make
    for viewer in made:
        viewer.wait_for_background()


# ---------------------------------------------------------------------------- 1: long texts


@pytest.mark.parametrize("text", [LONG_WARNING + " " + LONG_WARNING[:60], "x" * 300],
                         ids=["words", "one_word"])
def test_a_long_message_or_name_does_not_raise_the_minimum_width(make_viewer, qtbot, text):
    viewer = make_viewer(420, 470)
    viewer.set_tensor("scatterelements1.output", np.arange(6, dtype=np.float32).reshape(2, 3), "output")
    viewer.wait_for_background()
    qtbot.wait(20)
    base = viewer.minimumSizeHint().width()
    assert base <= 420
    assert len(text) >= 300
    viewer.set_tensor("scatterelements1.output", np.arange(6, dtype=np.float32).reshape(2, 3), text)
    viewer.pin()
    viewer.set_tensor("n" * 120 + ".output", np.arange(6, dtype=np.float32), text)  # long name too
    viewer.wait_for_background()
    qtbot.wait(20)
    _shot(viewer, f"long_message_{'words' if ' ' in text else 'one_word'}")
    assert viewer.minimumSizeHint().width() <= base
    assert viewer.width() == 420
    # the text is all there: wrapped on screen, or in the tooltip where a word is cut
    assert text in viewer.info_label.text()
    assert viewer.info_label.height() >= viewer.info_label.fontMetrics().height() * 2   # wrapped
    if " " not in text:
        assert text in viewer.info_label.toolTip()
    assert viewer.name_label.text() == "n" * 120 + ".output"
    assert viewer.name_label.toolTip() == viewer.name_label.text()   # cut with "…": full name here
    # the picture keeps most of its room: the wrapped lines take what they need, no more
    assert viewer.picture.height() > 150


def test_the_editor_dock_keeps_its_width_for_a_scatter_warning(window, qtbot):
    """The user's steps: a ScatterElements with duplicate indices and reduction none gets a
    warning; selecting it used to widen the Properties / Tensor viewer column from 420 to
    597 px for good."""
    from nodeeditor.graph import Graph

    g = Graph(name="dup")
    g.add_literal(np.zeros((2, 3), np.float32), name="data", node_id="data", position=(0, 0))
    g.add_literal(np.array([[1, 0, 1], [0, 0, 0]], np.int64), name="idx", node_id="idx", position=(0, 160))
    g.add_literal(np.arange(6, dtype=np.float32).reshape(2, 3), name="upd", node_id="upd", position=(0, 320))
    g.add_operator("ScatterElements", {"axis": 0}, node_id="se", position=(320, 60))
    g.add_output("out", node_id="out", position=(640, 60))
    g.connect("data", "output", "se", "data")
    g.connect("idx", "output", "se", "indices")
    g.connect("upd", "output", "se", "updates")
    g.connect("se", "output", "out", "value")
    window.set_document(g, None)
    window.runner.wait()
    qtbot.wait(50)
    before = window.viewer_dock.width()
    item = window.scene.node_item("se")
    window.view.centerOn(item)
    point = window.view.mapFromScene(item.sceneBoundingRect().center())
    QTest.mouseClick(window.view.viewport(), QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier, point)
    window.runner.wait()
    qtbot.waitUntil(lambda: "warning" in window.viewer.info_label.text(), timeout=5000)
    qtbot.wait(100)
    _shot(window, "editor_scatter_warning")
    assert window.viewer_dock.width() == before
    assert window.viewer.minimumSizeHint().width() <= before
