"""The explainer dock follows the selected operator node of the editor."""
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.graph import load_example

from .helpers import deliver_posted_events, save_shot


def _click_node(window, node_id):
    """A real left click on the node's title bar."""
    rect = window.scene.node_item(node_id).sceneBoundingRect()
    window.view.centerOn(rect.center())
    point = window.view.mapFromScene(QtCore.QPointF(rect.center().x(), rect.top() + 8))
    QTest.mouseClick(window.view.viewport(), QtCore.Qt.MouseButton.LeftButton,
                     QtCore.Qt.KeyboardModifier.NoModifier, point)


def test_selecting_the_scatter_node_explains_it(window, qtbot):
    window.set_document(load_example("scatter9_examples"), None)
    window.runner.wait()
    op = next(n for n in window.graph.nodes if n.kind == "op")
    _click_node(window, op.id)
    qtbot.waitUntil(lambda: window.explainer.count > 0, timeout=10000)
    assert window.explainer_dock.windowTitle() == "Explainer"
    data = window.runner.value(window.graph.edge_into(op.id, "indices").src)
    updates = window.runner.value(window.graph.edge_into(op.id, "updates").src)
    assert window.explainer.count == updates.size
    # step 0: updates[0, 0] goes to output[indices[0, 0], 0] for axis 0 (Scatter-9 example 1)
    _, indices_grid, updates_grid, output_grid = window.explainer.grids
    axis = op.attributes.get("axis", 0)
    target = (data[0, 0], 0) if axis == 0 else (0, data[0, 0])
    assert output_grid.highlights == {tuple(int(v) for v in target): "target"}


def test_a_source_node_shows_the_hint(window, qtbot):
    window.set_document(load_example("scatter9_examples"), None)
    window.runner.wait()
    src = next(n for n in window.graph.nodes if n.kind == "literal")
    window.scene.select_nodes([src.id])
    qtbot.waitUntil(lambda: "Select an operator node" in window.explainer.title.text(), timeout=10000)
    assert window.explainer.count == 0


def test_the_explainer_sits_under_the_canvas_not_under_the_side_columns(window, qtbot):
    """The side docks run the full height of the window, so showing the Explainer takes
    height from the canvas only, never from the property panel or the tensor viewer."""
    window.resize(1480, 900)
    window.show()
    qtbot.waitExposed(window)
    window.explainer_dock.hide()
    deliver_posted_events()                       # the docks laid out without the Explainer
    viewer_height, canvas_height = window.viewer_dock.height(), window.view.height()
    window.explainer_dock.show()
    qtbot.waitUntil(lambda: window.view.height() < canvas_height, timeout=10000)   # it took its room
    deliver_posted_events()
    explainer = window.explainer_dock.geometry()
    assert window.viewer_dock.height() == viewer_height
    assert explainer.left() >= window.palette_dock.geometry().right()
    assert explainer.right() <= window.viewer_dock.geometry().left()
    assert window.palette_dock.geometry().bottom() >= explainer.bottom()


def test_the_explainers_height_stays_put_whatever_node_is_selected(window, qtbot):
    """The dock grew by ~180 px for an operator and shrank for any other node, so the canvas
    jumped on each click: now a click on an operator, a source or the empty canvas leaves
    the dock and the canvas as they are, also at the height the user gave the dock."""
    window.resize(1480, 900)
    window.show()
    qtbot.waitExposed(window)
    window.set_document(load_example("scatter9_examples"), None)
    window.runner.wait()
    dock = window.explainer_dock
    op = next(n for n in window.graph.nodes if n.kind == "op")
    src = next(n for n in window.graph.nodes if n.kind == "literal")
    for user_height in (None, 340):
        if user_height is not None:
            window.resizeDocks([dock], [user_height], QtCore.Qt.Orientation.Vertical)
            qtbot.waitUntil(lambda h=user_height: abs(dock.height() - h) <= 2, timeout=10000)
        window.scene.clearSelection()
        qtbot.waitUntil(lambda: "Select an operator node" in window.explainer.title.text(), timeout=10000)
        height, canvas = dock.height(), window.view.height()
        _click_node(window, op.id)
        qtbot.waitUntil(lambda: window.explainer.count > 0, timeout=10000)
        deliver_posted_events()
        assert (dock.height(), window.view.height()) == (height, canvas)
        _click_node(window, src.id)
        qtbot.waitUntil(lambda: window.explainer.count == 0, timeout=10000)
        deliver_posted_events()
        assert (dock.height(), window.view.height()) == (height, canvas)


def test_on_a_low_window_the_explainer_leaves_the_canvas_more_than_half(window, qtbot):
    """A projector (1280x720 at 1.5x is 853x480 logical): the explainer takes at most 40%
    of the window's height (or its minimum, when that is more), with an operator shown."""
    window.resize(853, 480)
    qtbot.waitUntil(lambda: window.height() <= 480, timeout=10000)
    window.set_document(load_example("scatter9_examples"), None)
    window.runner.wait()
    op = next(n for n in window.graph.nodes if n.kind == "op")
    _click_node(window, op.id)
    qtbot.waitUntil(lambda: window.explainer.count > 0, timeout=10000)
    from nodeeditor.ui.screen_fit import BOTTOM_DOCK_HEIGHT

    dock = window.explainer_dock
    qtbot.waitUntil(lambda: dock.height() <= max(0.4 * window.height(), dock.minimumSizeHint().height()) + 2,
                    timeout=10000)
    assert dock.height() < BOTTOM_DOCK_HEIGHT        # 290 would leave the canvas a strip
    save_shot(window, "explainer/low_window_explainer")


def test_an_operator_whose_output_has_a_named_dimension_is_explained(window, qtbot):
    """Every dynamic-shape model: the step count was taken from the declared shape
    (``float32[batch, 2]``: int('batch') raised on every selection)."""
    import numpy as np

    from nodeeditor.graph import Graph

    g = Graph(name="declared")
    g.add_input("x", np.arange(12, dtype=np.float32).reshape(3, 4), node_id="x", position=(0, 0))
    g.set_source("x", shape="batch, 4")
    g.add_literal(np.array([3, 1], np.int64), name="idx", node_id="idx", position=(0, 160))
    g.add_operator("Gather", {"axis": 1}, node_id="g", position=(320, 60))
    g.connect("x", "output", "g", "data")
    g.connect("idx", "output", "g", "indices")
    window.set_document(g, None)
    window.runner.wait()
    assert str(window.graph.output_type("g")) == "float32[batch, 2]"
    _click_node(window, "g")
    qtbot.waitUntil(lambda: window.explainer.count > 0, timeout=10000)
    assert window.explainer.count == 6                         # the output's 3 x 2 elements
