"""On a projector the viewer's dock is narrow and its statistics line wraps: it must wrap
between the `` · `` separated items, never inside one (walkthrough shots 07 and 17 showed a
lone ``0`` and ``inf 0`` on lines of their own)."""
from __future__ import annotations

import numpy as np
from PySide6 import QtGui, QtWidgets

from .helpers import deliver_posted_events, save_shot

ITEMS = ("min", "max", "mean", "NaN", "inf", "|z|")


def _lines(label: QtWidgets.QLabel) -> list[str]:
    """The lines the label shows (its displayed text laid out at its width, word wrap)."""
    shown = QtWidgets.QLabel.text(label)
    layout = QtGui.QTextLayout(shown, label.font())
    option = QtGui.QTextOption()
    option.setWrapMode(QtGui.QTextOption.WrapMode.WordWrap)
    layout.setTextOption(option)
    layout.beginLayout()
    lines = []
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(label.contentsRect().width())
        lines.append(shown[line.textStart():line.textStart() + line.textLength()])
    layout.endLayout()
    return lines


def test_the_statistics_line_wraps_between_items_only(make_viewer, qtbot):
    viewer = make_viewer(420, 500)
    array = np.array([[0, 1.1, 2.2], [1, 0, 2.2], [0, 2.1, 1.2]], np.float32)
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor("without axis.output", array, "output")
    label = viewer.stats_label
    assert "min 0" in label.text() and "inf 0" in label.text()   # text() stays plain
    wrapped = 0
    try:
        for width in range(180, 421, 6):
            viewer.resize(width, 500)
            deliver_posted_events()         # laid out at this width (a check of every line: no state to wait for)
            lines = _lines(label)
            wrapped += len(lines) > 1
            for line in lines:
                assert line.strip().startswith(ITEMS), (width, lines)   # never "0" or "2.2" alone
            if width == 228:
                save_shot(viewer, "viewer/stats_wrap_228")
        assert wrapped, "the line never wrapped: the test proves nothing"
    finally:
        viewer.wait_for_background()
