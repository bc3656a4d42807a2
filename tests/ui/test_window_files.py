"""File menu follow-ups from the walkthrough: New starts at 100% (shot 07), opening an example
says so in the status bar."""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore
from PySide6.QtTest import QTest

from .helpers import LEFT, NOMOD, keys

SHOTS = Path("/tmp/panelfix")


def _example_action(window, name: str):
    return next(a for a in window.examples_menu.actions() if a.data() == name)


def test_opening_an_example_says_so_in_the_status_bar(window, qtbot, dialogs):
    action = _example_action(window, "segment_sum")
    action.trigger()
    assert window.statusBar().currentMessage() == f"Opened example: {action.text()}"
    assert action.text() == "Segment sum and histogram"
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(SHOTS / "08_opened_example_status.png"))
