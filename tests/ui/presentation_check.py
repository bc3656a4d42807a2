"""Run in a fresh process by test_presentation.py: the editor on the screen Qt is given (the
test passes a 1280x720 offscreen screen and QT_SCALE_FACTOR=1.5, a classroom projector), View >
Presentation on each seed example's operators at their first and last step, and a geometry
check of the Explainer. Prints one JSON object: the screen, and per case the text zoom, the
canvas zoom and the problems found; saves a PNG of each case into argv[1] when given."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from PySide6 import QtCore, QtWidgets

CASES = [("scatter9_examples", "ex1_op"), ("scatter9_examples", "ex2_op"), ("scatternd13_examples", "ex1_op"),
         ("scatternd13_examples", "ex2_op"), ("gather11_examples", "axis0_op"), ("gather11_examples", "axis1_op"),
         ("scatterelements_examples", "ex1_op"), ("scatterelements_examples", "add_op")]


def grid_problems(explainer, whole: bool) -> list[str]:
    """Every drawn cell inside its grid, the output row being written in view, nothing cut
    sideways; with ``whole``, every grid wholly in the viewport (no scrolling needed) and
    showing every column it would with room."""
    e = explainer
    out = []
    viewport = e.scroll.viewport()
    seen = viewport.rect()
    for grid in e.grids:
        if not grid.isVisible():
            continue
        inside = QtCore.QRectF(grid.rect())
        for pos in grid.drawn_cells():
            if not inside.contains(grid.cell_rect(pos)):
                out.append(f"{grid.name}: cell {pos} outside its grid")
        box = QtCore.QRect(grid.mapTo(viewport, QtCore.QPoint(0, 0)), grid.size())
        if whole and not seen.contains(box):
            out.append(f"{grid.name}: grid {box.getRect()} not wholly in the viewport {seen.getRect()}")
        if whole and len(grid.cols) < grid.wanted_columns():
            out.append(f"{grid.name}: {len(grid.cols)} of {grid.wanted_columns()} columns shown")
    row = e.destination_row_rect()
    if row is None or not seen.contains(QtCore.QRect(e.grid_area.mapTo(viewport, row.topLeft()), row.size())):
        out.append(f"output row {row} not in view")
    if e.scroll.horizontalScrollBar().maximum() > 0:
        out.append("the grids scroll sideways")
    return out


def problems_of(window) -> list[str]:
    """:func:`grid_problems` (whole), the window covering the screen, the side panels hidden."""
    out = grid_problems(window.explainer, whole=True)
    screen = window.screen().geometry()
    if window.geometry() != screen:
        out.append(f"window {window.geometry().getRect()} is not the screen {screen.getRect()}")
    for dock in (window.palette_dock, window.properties_dock, window.viewer_dock):
        if dock.isVisible():
            out.append(f"{dock.objectName()} visible")
    if not window.explainer_dock.isVisible():
        out.append("the Explainer is hidden")
    return out


def main() -> int:
    shots = Path(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] else None
    app = QtWidgets.QApplication(sys.argv[:1])
    from nodeeditor.graph import load_example
    from nodeeditor.ui.app import create_main_window
    from nodeeditor.ui.explainer.widget import settle

    w = create_main_window()
    w.show()

    def wait():
        w.runner.wait()
        settle(w)
        for _ in range(5):
            app.processEvents()

    wait()
    report = {"screen": list(w.screen().geometry().getRect()), "dpr": w.devicePixelRatioF(), "cases": []}
    for example, node in CASES:
        w.set_document(load_example(example), None)
        wait()
        w.explainer_controller.explain(node)
        wait()
        w.presentation.set_active(True)
        wait()
        for step in sorted({0, w.explainer.count - 1}):
            w.explainer.set_step(step)
            wait()
            w.presentation.refit()
            wait()
            case = {"case": f"{example}/{node}", "step": step, "zoom": w.explainer.zoom,
                    "canvas_zoom": round(w.view.zoom, 3), "problems": problems_of(w)}
            report["cases"].append(case)
            if shots is not None:
                shots.mkdir(parents=True, exist_ok=True)
                w.grab().save(str(shots / f"presentation_{example}_{node}_{step + 1}.png"))
    w.presentation.set_active(False)
    wait()
    report["after"] = {"full_screen": w.isFullScreen(), "panels": w.palette_dock.isVisible()}
    w.discard_changes()
    w.close()
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
