"""The side panels fit their docks: the Properties panel never needs a sideways scroll bar
at the dock's default width (walkthrough shots 47, 48), and the Explainer's grid titles wrap
or elide instead of being cut off (1280x720)."""
from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import default_example, load_example

from .helpers import LEFT, NOMOD, deliver_posted_events, save_shot


def _click_node(window, node_id: str) -> None:
    rect = window.scene.node_item(node_id).sceneBoundingRect()
    window.view.centerOn(rect.center())
    point = window.view.mapFromScene(QtCore.QPointF(rect.left() + 30, rect.top() + 8))
    QTest.mouseClick(window.view.viewport(), LEFT, NOMOD, point)


def _settle(window, qtbot) -> None:
    """The run finished and its results shown; then the layout settled (the checks are that
    nothing sticks out, so there is no state to wait for)."""
    assert window.runner.wait(30)
    deliver_posted_events()


def _fits(window) -> str:
    """'' when the properties page fits its scroll area; else what sticks out."""
    scroll = window.properties._scroll
    page = scroll.widget()
    bar = scroll.horizontalScrollBar()
    if bar.isVisible() or bar.maximum() > 0 or page.width() > scroll.viewport().width():
        wide = sorted(((c.minimumSizeHint().width(), type(c).__name__) for c in page.findChildren(QtWidgets.QWidget)
                       if c.isVisible()), reverse=True)[:3]
        return f"page {page.width()} > viewport {scroll.viewport().width()}; widest {wide}"
    name = window.properties.widgets.get("name")
    if name is not None and name.mapTo(page, name.rect().topRight()).x() > scroll.viewport().width():
        return "the Name field is cut off"
    return ""


@pytest.mark.parametrize("size", [None, (1280, 720), (1920, 1080)])
def test_properties_never_scroll_sideways_at_the_default_dock_width(window, qtbot, size):
    w = window
    if size is not None:
        w.resize(*size)
    deliver_posted_events()                                 # the docks laid out at this size
    dock_width = w.properties_dock.width()
    problems = []
    for graph in (default_example(), load_example("kv_cache_write")):
        w.set_document(graph, None)
        _settle(w, qtbot)
        w.view.resetTransform()
        for node_id in w.graph.node_ids:
            _click_node(w, node_id)
            _settle(w, qtbot)
            assert w.properties.node_id == node_id
            problem = _fits(w)
            if problem:
                problems.append(f"{graph.name} / {w.graph.node(node_id).name}: {problem}")
            if node_id == "tensor_scatter":
                tag = "default" if size is None else f"{size[0]}x{size[1]}"
                save_shot(w, f"window/properties_tensorscatter_{tag}")
        assert w.properties_dock.width() == dock_width      # the dock was not widened to fit
    assert not problems, "\n".join(problems)


def test_explainer_grid_titles_wrap_at_1280x720(window, qtbot):
    w = window
    w.resize(1280, 720)
    w.set_document(load_example("kv_cache_write"), None)
    _settle(w, qtbot)
    w.view.resetTransform()
    _click_node(w, "tensor_scatter")
    qtbot.waitUntil(lambda: w.explainer.count > 0, timeout=10000)
    deliver_posted_events()                                 # the dock opened and laid out
    QTest.mouseClick(w.explainer.next_button, LEFT, NOMOD, w.explainer.next_button.rect().center())
    output = w.explainer.grid("output")
    qtbot.waitUntil(lambda: output.title == "output[0, 0, :, :] after step 2", timeout=10000)
    deliver_posted_events()                                 # the grids laid out for the new titles
    w.explainer.grab()        # paints the grids (the drawn lines are recorded)
    metrics = QtGui.QFontMetrics(output._title_font())
    lines = output.shown_title.split("\n")
    for line in lines:
        assert metrics.horizontalAdvance(line) <= output.width() - 8, (line, output.width())
    # the whole title is there (titles wrap; they are never elided)
    assert " ".join(lines) == output.title
    # the cells sit under the title's lines, inside the widget
    assert output.cell_rect((0, 0)).top() >= 8 + 16 * len(lines)
    assert output.height() >= output.cell_rect((4, 2)).bottom()
    # the grid lies whole inside the scroll area's widget (scrolling reaches all of it)
    assert w.explainer.scroll.widget().rect().contains(output.geometry())
    save_shot(w, "window/explainer_1280x720")


def _dock_tab_problems(window) -> list[str]:
    """What is wrong with the dock tab bars drawn inside ``window``: a tab whose text does
    not fit (elided to "…s"), or a bar showing a tab of a dock that is not shown."""
    shown = {d.windowTitle() for d in window.findChildren(QtWidgets.QDockWidget) if d.isVisible()}
    inside = window.rect()
    problems = []
    for bar in window.findChildren(QtWidgets.QTabBar):
        if bar.parent() is not window or not bar.isVisible() or not bar.geometry().intersects(inside):
            continue       # a viewer's own tabs, or a bar Qt keeps parked outside the window
        metrics = bar.fontMetrics()
        for i in range(bar.count()):
            text = bar.tabText(i)
            if text not in shown:
                problems.append(f"a tab bar at {bar.geometry().topLeft().toTuple()} shows {text!r}, a hidden dock")
            if bar.tabRect(i).width() < metrics.horizontalAdvance(text):
                problems.append(f"the tab {text!r} is {bar.tabRect(i).width()} px wide for its text")
    return problems


def test_no_dock_tab_is_cut_off_or_left_behind_at_800_by_800(window, qtbot):
    window.resize(800, 800)
    deliver_posted_events()
    assert _dock_tab_problems(window) == []
    window.lessons_action.trigger()                 # Help > Lessons: tabbed beside Properties
    qtbot.waitUntil(lambda: window.lessons.dock.isVisible())
    deliver_posted_events()
    bars = [b for b in window.findChildren(QtWidgets.QTabBar) if b.parent() is window and b.isVisible()
            and b.geometry().intersects(window.rect())]
    assert [[b.tabText(i) for i in range(b.count())] for b in bars] == [["Properties", "Lessons"]]
    assert _dock_tab_problems(window) == []
    save_shot(window, "window/lessons_tab_800")
    window.lessons.dock.close()
    qtbot.waitUntil(lambda: not window.lessons.dock.isVisible())
    deliver_posted_events()
    assert _dock_tab_problems(window) == []
