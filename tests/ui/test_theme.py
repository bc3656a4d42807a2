"""Light and dark: View > Theme > System / Light / Dark, remembered in the settings; the
widgets, the canvas and its grid, the tensor viewer's plots and the explainer's grids all
follow it; System follows the desktop's colour scheme."""
from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.ui import theme as T

from .helpers import open_example, save_shot


def _dark(colour: QtGui.QColor) -> bool:
    return colour.lightness() < 90


def _light(colour: QtGui.QColor) -> bool:
    return colour.lightness() > 170


def _looks(w) -> dict[str, QtGui.QColor]:
    """Colours as drawn: the canvas background (an empty corner of the viewport), the window's
    palette, the viewer's plot background."""
    canvas = w.view.viewport().grab().toImage().pixelColor(3, 3)
    window = w.view.palette().color(QtGui.QPalette.ColorRole.Window)
    plots = [a for a in w.viewer.findChildren(QtWidgets.QGraphicsView) if hasattr(a, "panels")]
    plot = plots[0].backgroundBrush().color()
    return {"canvas": canvas, "window": window, "plot": plot}


@pytest.fixture(autouse=True)
def _back_to_system(qapp):
    yield
    T.theme().set_choice(T.ThemeChoice.SYSTEM)


def test_view_theme_dark_and_light_restyle_every_part_and_are_remembered(window, qtbot):
    w = window
    open_example(w, "scatterelements_examples")
    w.scene.select_nodes([n.id for n in w.graph.nodes if n.kind == "op"][:1])
    qtbot.waitUntil(lambda: w.explainer.isEnabled(), timeout=10000)
    actions = {a.text().replace("&", ""): a for a in w.theme_menu.actions()}
    assert set(actions) == {"System", "Light", "Dark"} and actions["System"].isChecked()
    actions["Dark"].trigger()
    assert T.mode() is T.Mode.DARK and actions["Dark"].isChecked()
    qtbot.waitUntil(lambda: _dark(_looks(w)["window"]), timeout=10000)    # widgets take a new palette on the next turn
    looks = _looks(w)
    assert _dark(looks["canvas"]) and _dark(looks["window"]) and _dark(looks["plot"])
    assert _light(w.view.palette().color(QtGui.QPalette.ColorRole.WindowText))
    # a node's body is dark too, its title text light
    item = w.scene.node_items()[0]
    body = w.view.mapFromScene(item.mapToScene(QtCore.QPointF(item.boundingRect().width() - 30,
                                                              item.boundingRect().height() - 12)))
    assert _dark(w.view.viewport().grab().toImage().pixelColor(body))
    save_shot(w, "canvas/theme_dark")
    # remembered: a new window starts dark
    from nodeeditor.ui import settings as S

    assert S.settings().value(T.SETTINGS_KEY) == "dark"
    actions["Light"].trigger()
    qtbot.waitUntil(lambda: _light(_looks(w)["window"]), timeout=10000)
    looks = _looks(w)
    assert _light(looks["canvas"]) and _light(looks["window"]) and _light(looks["plot"])
    save_shot(w, "canvas/theme_light")


def test_the_explainer_grid_follows_the_theme(window, qtbot):
    from nodeeditor.ui.explainer.grid import TensorGrid

    w = window
    open_example(w, "scatterelements_examples")
    op = next(n.id for n in w.graph.nodes if n.kind == "op")
    w.scene.select_nodes([op])
    w.explainer_dock.show()
    grids = w.explainer.findChildren(TensorGrid)
    qtbot.waitUntil(lambda: any(g.isVisible() and g.array is not None for g in w.explainer.findChildren(TensorGrid)),
                    timeout=10000)
    grid = next(g for g in grids if g.isVisible() and g.array is not None and g.drawable(g.array))
    plain = next(pos for pos in __import__("numpy").ndindex(grid.array.shape) if pos not in grid.highlights)
    spot = grid.cell_rect(plain).adjusted(3, 3, -3, -3).topLeft().toPoint()
    assert _light(grid.grab().toImage().pixelColor(spot))
    T.theme().set_choice(T.ThemeChoice.DARK)
    assert _dark(grid.grab().toImage().pixelColor(spot))


def test_system_follows_the_desktop_colour_scheme(window, monkeypatch):
    monkeypatch.setattr(T, "system_mode", lambda: T.Mode.DARK)
    T.theme().set_choice(T.ThemeChoice.SYSTEM)
    assert T.mode() is T.Mode.DARK and _dark(window.view.viewport().grab().toImage().pixelColor(3, 3))
    monkeypatch.setattr(T, "system_mode", lambda: T.Mode.LIGHT)
    T.theme().apply()                      # what the desktop's colorSchemeChanged does
    assert T.mode() is T.Mode.LIGHT and _light(window.view.viewport().grab().toImage().pixelColor(3, 3))
