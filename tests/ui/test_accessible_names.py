"""What a screen reader reads: a button drawn with a symbol only (◀ ▶ ⋯ ∇ ‹ ›) and the
controls that have no label of their own (the palette's search field and list, the
Explainer's slider, the tables, the quiz's seed, an attribute's spin box) carry an
accessible name; they had none, or the symbol."""
from __future__ import annotations

import re

import numpy as np
from PySide6 import QtWidgets

from nodeeditor.graph import Graph
from nodeeditor.teaching.lessons import find_lesson


def _unnamed_symbol_buttons(root: QtWidgets.QWidget) -> list[str]:
    out = []
    for button in root.findChildren(QtWidgets.QAbstractButton):
        text = button.text().replace("&", "")
        if text and not re.search(r"\w", text) and not button.accessibleName():
            out.append(f"{type(button).__name__} {text!r} ({button.toolTip()!r})")
    return out


def test_symbol_buttons_and_unlabelled_controls_have_accessible_names(window, qtbot):
    g = Graph("names", opset=18)
    g.add_literal(np.arange(6.0).reshape(2, 3), name="data", node_id="data")
    g.add_literal(np.array([1, 0], np.int64), name="ids", node_id="ids")
    g.add_operator("Gather", {}, node_id="gather")
    g.connect("data", "output", "gather", "data")
    g.connect("ids", "output", "gather", "indices")
    window.set_document(g, None)
    window.runner.wait()
    window.properties.show_node("gather")
    assert window.properties.widgets["attr:axis"].accessibleName() == "axis"
    window.properties.show_node("data")
    assert window.properties.widgets["table"].accessibleName() == "Values"
    window.lessons.open_lesson(find_lesson("scatter9-axis0"))
    window.runner.wait()
    window.lessons.start_quiz()
    qtbot.waitUntil(lambda: window.lessons.quizzing, timeout=10000)
    assert _unnamed_symbol_buttons(window) == []
    palette, explainer, quiz = window.palette, window.explainer, window.lessons.quiz_widget
    named = {palette.search_field: "Search blocks", palette.tree: "Blocks", explainer.slider: "Step",
             explainer.backward_button: "Backward pass", window.lessons.panel.tree: "Lessons",
             window.lessons.panel.text: "Lesson text", quiz.seed_box: "Seed",
             quiz.output_table: "output (to answer)", quiz.tables["indices"]: "indices"}
    assert {w.accessibleName(): name for w, name in named.items()} == {name: name for name in named.values()}
    assert window.viewer.findChild(QtWidgets.QTableView).accessibleName() == "Tensor values"
