"""The Explainer docked in the editor at 853x480 (a projector at QT_SCALE_FACTOR=1.5), 1280x720
and 1600x900: for every operator of every bundled example, at its first and last step, no cell
is drawn outside its grid, the grids never scroll sideways, and the output row being written is
in view."""
from __future__ import annotations

import pytest
from PySide6 import QtCore

from nodeeditor.graph import list_examples, load_example
from nodeeditor.graph import nodes as N
from nodeeditor.ui.screen_fit import bottom_dock_height

from .helpers import save_shot
from .presentation_check import grid_problems


@pytest.mark.parametrize("size", [(853, 480), (1280, 720), (1600, 900)])
def test_every_example_step_shows_its_output_row_and_clips_nothing(window, qtbot, size):
    w = window
    w.resize(*size)
    problems, seen = [], 0
    for info in list_examples():
        w.set_document(load_example(info.name), None)
        w.runner.wait()
        for node in [n for n in w.graph.nodes if isinstance(n, N.OperatorNode)]:
            if not w.explainer_controller.explain(node.id):
                continue
            seen += 1
            # the dock at the window's height for it (less on a low window)
            # (its minimum follows what it shows, so it is read again while waiting)
            def wanted() -> int:
                return max(bottom_dock_height(w.height()), w.explainer_dock.minimumSizeHint().height())

            w.resizeDocks([w.explainer_dock], [wanted()], QtCore.Qt.Orientation.Vertical)
            qtbot.waitUntil(lambda: abs(w.explainer_dock.height() - wanted()) <= 2, timeout=10000)
            for step in sorted({0, w.explainer.count - 1}):
                w.explainer.set_step(step)
                try:   # the row is scrolled into view once the layout has settled
                    qtbot.waitUntil(lambda: not grid_problems(w.explainer, whole=False), timeout=10000)
                except qtbot.TimeoutError:
                    pass
                problems += [f"{info.name}/{node.name} step {step + 1}: {p}"
                             for p in grid_problems(w.explainer, whole=False)]
            if node.id == "ex2_op" and info.name == "scatternd13_examples":
                save_shot(w, f"explainer/docked_{size[0]}x{size[1]}")
    assert seen >= 20
    assert not problems, "\n".join(problems)
