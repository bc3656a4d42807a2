"""The menu bar: every entry, down every submenu, has a name a user can read (the Explainer's
stepping menu sat in View as a blank row with only an arrow)."""
from __future__ import annotations

from PySide6 import QtWidgets


def _entries(menu, path):
    for action in menu.actions():
        if action.isSeparator() or not action.isVisible() or isinstance(action, QtWidgets.QWidgetAction):
            continue      # a widget in the menu (the speed box) shows its own label
        yield path, action
        if action.menu() is not None:
            yield from _entries(action.menu(), f"{path} > {action.text()}")


def test_every_menu_entry_has_a_name(window):
    menus = [a for a in window.menuBar().actions() if a.menu() is not None]
    assert [m.text().replace("&", "") for m in menus][:3] == ["File", "Edit", "View"]
    blank = [path for m in menus for path, action in _entries(m.menu(), m.text()) if not action.text().strip()]
    assert blank == []
    view = next(m.menu() for m in menus if m.text().replace("&", "") == "View")
    assert "Explainer Steps" in [a.text().replace("&", "") for a in view.actions()]
