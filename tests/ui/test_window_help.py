"""Help > Keyboard Shortcuts lists every key once, with all the keys of an action (walkthrough
shot 49: Tab twice, Ctrl+Y and Backspace missing)."""
from __future__ import annotations

import re

from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from .helpers import save_shot


def _open_with_f1(window):
    window.view.setFocus()
    before = set(window.findChildren(QtWidgets.QDialog))
    QTest.keyClick(window.view, QtCore.Qt.Key.Key_F1)
    (dialog,) = set(window.findChildren(QtWidgets.QDialog)) - before
    return dialog


def test_shortcuts_list_each_key_once_with_every_key_of_an_action(window, qtbot):
    # an undo step renames the Undo action ("Undo Add Gather"); the list must not follow it
    window.palette.blockActivated.emit("op:Gather")
    assert window.undo_action.text() != "Undo"
    dialog = _open_with_f1(window)
    table = dialog.table
    rows = [(table.item(r, 0).text(), table.item(r, 1).text()) for r in range(table.rowCount())]
    keys = [k.strip() for ks, _ in rows for k in ks.split(",")]
    single = [k for k in keys if " " not in k]       # key names, not gesture sentences
    assert len(single) == len(set(single)), sorted(k for k in single if single.count(k) > 1)
    by_what = {what: ks for ks, what in rows}
    assert by_what["Edit > Redo"] == "Ctrl+Shift+Z, Ctrl+Y"
    assert by_what["Edit > Delete (on the canvas)"] == "Del, Backspace"   # where a key works is said
    assert by_what["Explainer Steps > Play / Pause (in the Explainer)"] == "Space"
    assert by_what["Edit > Find Node…"] == "Ctrl+F"                  # window-wide: nothing added
    assert by_what["Node, frame or canvas menu (the keys: the selected node's, at it)"] == \
        "Right click, or the Menu key / Shift+F10"
    assert by_what["Edit > Undo"] == "Ctrl+Z"
    assert [ks for ks, _ in rows].count("Tab") == 1
    every_key = [k for ks, _ in rows for k in re.split(r",\s*|\s+/\s+|,?\s+or\s+", ks)]
    assert every_key.count("Tab") == 1
    # the canvas's own keys (no menu action) are listed too
    assert by_what["Move the selected nodes (nothing selected: pan)"].startswith("Arrow keys")
    assert "Ctrl+Tab" in every_key and "Ctrl+Shift+Tab" in every_key
    # the table is as wide as the dialog: nothing hides behind a horizontal scroll bar
    dialog.resize(700, 720)
    qtbot.waitUntil(lambda: dialog.table.width() > 600, timeout=10000)   # laid out at the new size
    save_shot(dialog, "window/shortcuts")
    dialog.close()
