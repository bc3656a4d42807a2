"""The Explainer's "All steps" tab: the whole index map as a table, one row per step, in step
with the stepper both ways. Expected rows come from the ONNX ScatterElements doc example
(data [[1, 2, 3, 4, 5]], indices [[1, 3]], updates [[1.1, 2.1]], axis 1)."""
from __future__ import annotations

from PySide6 import QtCore
from PySide6.QtTest import QTest

from .helpers import save_shot


def _explainer(w):
    from nodeeditor.ui.explainer.widget import ExplainerWidget

    (widget,) = w.findChildren(ExplainerWidget)
    return widget


def test_all_steps_lists_the_index_map_and_follows_the_stepper(window, qtbot):
    w = window
    w.files.open_example("scatterelements_examples")
    w.runner.wait()
    w.find_node.go_to(next(n.id for n in w.graph.nodes if n.name == "with axis"))
    ex = _explainer(w)
    qtbot.waitUntil(lambda: ex.count == 2, timeout=10000)
    bar = ex.tabs.tabBar()
    QTest.mouseClick(bar, QtCore.Qt.MouseButton.LeftButton, pos=bar.tabRect(1).center())
    assert ex.tabs.currentWidget() is ex.steps
    model = ex.steps.steps_model
    assert model.rowCount() == 2
    assert model.row_texts(0)[:5] == ("1", "updates[0, 0]", "indices[0, 0] = 1", "output[0, 1]", "1.1")
    assert model.row_texts(1)[:5] == ("2", "updates[0, 1]", "indices[0, 1] = 3", "output[0, 3]", "2.1")
    assert "replaces 4" in model.row_texts(1)[5]
    # choosing a row (a real click on its cell) moves the stepper there
    qtbot.waitUntil(lambda: ex.steps.isVisible() and ex.steps.viewport().rect().contains(
        ex.steps.visualRect(model.index(1, 1)).center()), timeout=10000)
    rect = ex.steps.visualRect(model.index(1, 1))
    QTest.mouseClick(ex.steps.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    assert ex.step == 1 and ex.counter.text() == "2 / 2"
    # and the stepper moves the table's current row
    ex.prev_button.click()
    assert ex.step == 0 and ex.steps.currentIndex().row() == 0 and model.current == 0
    save_shot(ex, "explainer/all_steps")


def test_a_large_explanation_opens_without_building_every_row(qapp):
    import numpy as np

    from nodeeditor.ui.explainer.steps_table import StepsView
    from ops.explain import explain

    view = StepsView()
    data = np.arange(400 * 500, dtype=np.float32).reshape(400, 500)
    e = explain("Gather", [data, np.arange(400)[::-1].copy()], {"axis": 0})
    view.show_explanation(e)
    assert view.steps_model.rowCount() == 200_000
    assert len(view.steps_model._cache) == 0            # nothing built until a row is shown
    assert view.steps_model.row_texts(199_999)[1:4] == ("data[0, 499]", "indices[399] = 0", "output[399, 499]")


def test_columns_hold_long_coordinates_and_values_at_any_text_size(qtbot):
    """A Gather on axis 1 of a (3, 12345, 40) float tensor: coordinates like data[2, 12344, 39]
    and float values like 0.41465586 show whole (no "…"), also at presentation mode's zoom."""
    import numpy as np
    from PySide6 import QtGui

    from nodeeditor.ui.explainer import ExplainerWidget
    from nodeeditor.ui.explainer.steps_table import COLUMNS

    data = np.random.default_rng(0).random((3, 12345, 40), dtype=np.float32)
    w = ExplainerWidget()
    qtbot.addWidget(w)
    w.resize(900, 400)
    w.show()
    assert w.set_operation("pick", "Gather", [data, np.array([2, 12344, -1])], {"axis": 1})
    view, model = w.steps, w.steps.steps_model
    last = model.rowCount() - 1
    assert model.row_texts(last)[1] == "data[2, 12344, 39]"
    for zoom in (1.0, 1.6):
        w.set_zoom(zoom)
        bold = QtGui.QFont(view.font())
        bold.setBold(True)
        metrics = QtGui.QFontMetrics(bold)
        for row in (0, 1, last):
            for column in range(len(COLUMNS) - 1):
                text = model.row_texts(row)[column]
                assert metrics.horizontalAdvance(text) < view.columnWidth(column), (zoom, row, COLUMNS[column], text)
