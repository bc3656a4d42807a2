"""The property panel: widgets from the ops schema at the graph's opset, edits as undo
commands, the canvas following (the port types change)."""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import NodeStatus

from .helpers import deliver_posted_events, keys


def _wire(w):
    w.graph.connect("data", "output", "g", "data")
    w.graph.connect("idx", "output", "g", "indices")
    w.graph.connect("g", "output", "out", "value")
    w.undo_stack.clear()


def _type_in(box: QtWidgets.QAbstractSpinBox, text: str) -> None:
    box.setFocus()
    box.lineEdit().selectAll()
    QTest.keyClicks(box, text)
    QTest.keyClick(box, QtCore.Qt.Key.Key_Return)


def test_axis_spin_box_changes_port_type_undo_redo(small):
    w = small
    _wire(w)
    w.scene.select_nodes(["g"])
    box = w.properties.widgets["attr:axis"]
    assert isinstance(box, QtWidgets.QSpinBox)
    assert (box.minimum(), box.maximum()) == (-2, 1)           # rank-2 data
    item = w.scene.node_item("g")
    assert item.port_label("output", True)[0] == "float32[2, 4]"
    _type_in(box, "1")
    assert w.graph.node("g").attributes["axis"] == 1
    assert item.port_label("output", True)[0] == "float32[3, 2]"
    assert w.scene.node_item("out").port_label("value", False)[0] == "float32[3, 2]"
    assert "float32[3, 2]" in w.properties.widgets["types"].text()
    assert w.undo_action.text() == "Undo Change axis"
    w.runner.wait()
    assert w.runner.value("out").shape == (3, 2)
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert w.graph.node("g").attributes["axis"] == 0
    assert box.value() == 0                                     # the panel follows undo
    assert item.port_label("output", True)[0] == "float32[2, 4]"
    keys(w.view, "Ctrl+Y")
    assert box.value() == 1 and item.port_label("output", True)[0] == "float32[3, 2]"
    # a wider tensor widens the range
    w.graph.set_source("data", value=np.zeros((2, 3, 4), np.float32))
    assert (box.minimum(), box.maximum()) == (-3, 2)


def test_reduction_offers_only_what_the_opset_allows(small):
    w = small
    nid = w.edits.add_block("op:ScatterElements", QtCore.QPointF(300, 400))
    combo = w.properties.widgets["attr:reduction"]
    assert [combo.itemText(i) for i in range(combo.count())] == ["none", "add", "mul", "max", "min"]
    combo.setCurrentIndex(combo.findText("max"))
    assert w.graph.node(nid).attributes["reduction"] == "max"
    w.scene.clearSelection()
    opset = w.properties.widgets["opset"]
    _type_in(opset, "16")
    assert w.graph.opset == 16 and w.undo_action.text() == "Undo Change Opset"
    w.scene.select_nodes([nid])
    combo = w.properties.widgets["attr:reduction"]
    texts = [combo.itemText(i) for i in range(combo.count())]
    assert texts[:3] == ["none", "add", "mul"] and "max (not allowed at opset 16)" in texts
    assert "max" in (w.graph.node_info(nid).error or "")       # shown as an error on the node
    assert w.scene.node_state(nid)[0] == NodeStatus.ERROR
    w.scene.clearSelection()
    _type_in(w.properties.widgets["opset"], "13")
    w.scene.select_nodes([nid])
    assert "attr:reduction" not in w.properties.widgets        # no such attribute before 16


def test_gathernd_batch_dims_range(small):
    w = small
    nid = w.edits.add_block("op:GatherND", QtCore.QPointF(300, 400))
    box = w.properties.widgets["attr:batch_dims"]
    assert box.maximum() == 31                                 # unknown ranks: loose
    w.graph.connect("data", "output", nid, "data")
    w.graph.connect("idx", "output", nid, "indices")
    assert (box.minimum(), box.maximum()) == (0, 0)            # indices has rank 1


def test_literal_value_table_dtype_and_shape(small):
    w = small
    w.scene.select_nodes(["idx"])
    table = w.properties.widgets["table"]
    assert (table.rowCount(), table.columnCount()) == (1, 2)
    table.item(0, 1).setText("1")
    assert w.graph.node("idx").value.tolist() == [2, 1]
    assert w.undo_action.text() == "Undo Edit Value"
    table.item(0, 0).setText("oops")                            # refused, value unchanged
    assert w.graph.node("idx").value.tolist() == [2, 1]
    assert "oops" in w.statusBar().currentMessage()
    assert table.item(0, 0).text() == "oops" and "not an integer" in table.item(0, 0).toolTip()
    table.setFocus()
    table.setCurrentCell(0, 0)
    QTest.keyClick(table, QtCore.Qt.Key.Key_Escape)             # Esc puts the value back
    assert table.item(0, 0).text() == "2"
    shape = w.properties.widgets["shape"]
    shape.setText("2, 2")
    shape.editingFinished.emit()
    assert w.graph.node("idx").value.tolist() == [[2, 1], [0, 0]]
    dtype = w.properties.widgets["dtype"]
    dtype.setCurrentText("int32")
    assert w.graph.node("idx").value.dtype == np.int32
    w.undo_stack.undo()
    w.undo_stack.undo()
    w.undo_stack.undo()
    assert w.graph.node("idx").value.tolist() == [2, 0]
    assert table.item(0, 1).text() == "0"


def test_generator_params_and_seed(small):
    w = small
    nid = w.edits.add_block("gen:uniform", QtCore.QPointF(300, 400))
    w.runner.wait()
    first = w.runner.value(nid).copy()
    seed = w.properties.widgets["param:seed:box"]
    _type_in(seed, "7")
    assert w.graph.node(nid).params["seed"] == 7
    w.runner.wait()
    assert not np.array_equal(first, w.runner.value(nid))
    shape = w.properties.widgets["param:shape"]
    shape.setText("4, 5")
    shape.editingFinished.emit()
    assert str(w.graph.output_type(nid)) == "float32[4, 5]"
    w.properties.widgets["generator"].setCurrentText("arange")
    assert w.graph.node(nid).generator == "arange"
    assert "param:stop" in w.properties.widgets


def test_file_source_browse(small, tmp_path, monkeypatch):
    w = small
    path = tmp_path / "t.npy"
    np.save(path, np.ones((3, 2), np.float64))
    nid = w.edits.add_block("file", QtCore.QPointF(300, 400))
    assert w.scene.node_state(nid)[0] == NodeStatus.ERROR  # no file chosen yet
    monkeypatch.setattr(QtWidgets.QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
    w.properties.widgets["browse"].click()
    assert w.graph.node(nid).path == str(path)
    assert str(w.graph.output_type(nid)) == "float64[3, 2]"


def test_nothing_selected_shows_graph_settings(small):
    w = small
    w.scene.clearSelection()
    name = w.properties.widgets["graph_name"]
    assert name.text() == "test graph"
    name.setText("renamed")
    name.editingFinished.emit()
    assert w.graph.name == "renamed"
    assert "renamed" in w.windowTitle()


def test_spin_box_steps_merge_into_one_undo_step(small):
    w = small
    _wire(w)
    w.scene.select_nodes(["g"])
    box = w.properties.widgets["attr:axis"]
    box.stepUp()
    box.stepDown()
    box.stepDown()
    assert w.graph.node("g").attributes["axis"] == -1
    assert w.undo_stack.count() == 1 and w.undo_action.text() == "Undo Change axis"
    box.stepUp()                                   # back to where it started: nothing to undo
    assert w.undo_stack.count() == 0


def test_an_unset_attribute_stepped_back_to_its_default_is_unset_and_nothing_to_undo(small):
    """axis unset (the default 0), stepped to 1 and back: the document is as before (no explicit
    axis to save) and there is no undo step that changes nothing."""
    w = small
    _wire(w)
    w.graph.set_attribute("g", "axis", None)
    w.undo_stack.clear()
    w.scene.select_nodes(["g"])
    box = w.properties.widgets["attr:axis"]
    box.stepUp()
    assert w.graph.node("g").attributes == {"axis": 1} and w.undo_stack.count() == 1
    box.stepDown()
    assert w.graph.node("g").attributes == {}
    assert w.undo_stack.count() == 0 and not w.undo_action.isEnabled()


def test_typed_values_and_choices_are_each_an_undo_step(small):
    """Only a spin box's arrow steps merge: two typed axes, or reduction add then mul then
    max, are undone one at a time (one Ctrl+Z went back from max to none)."""
    w = small
    _wire(w)
    w.scene.select_nodes(["g"])
    box = w.properties.widgets["attr:axis"]
    _type_in(box, "1")
    _type_in(box, "-1")
    assert w.undo_stack.count() == 2
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert w.graph.node("g").attributes["axis"] == 1
    nid = w.edits.add_block("op:ScatterElements", QtCore.QPointF(300, 400))
    combo = w.properties.widgets["attr:reduction"]
    for choice in ("add", "mul", "max"):
        combo.setCurrentText(choice)
    w.view.setFocus()
    keys(w.view, "Ctrl+Z")
    assert w.graph.node(nid).attributes["reduction"] == "mul"
    keys(w.view, "Ctrl+Z")
    assert w.graph.node(nid).attributes["reduction"] == "add"


def test_tensor_scatter_mode_and_axis(small):
    import numpy as np

    w = small
    w.scene.clearSelection()
    _type_in(w.properties.widgets["opset"], "24")
    nid = w.edits.add_block("op:TensorScatter", QtCore.QPointF(300, 400))
    mode = w.properties.widgets["attr:mode"]
    assert [mode.itemText(i) for i in range(mode.count())] == ["linear", "circular"]
    mode.setCurrentText("circular")
    assert w.graph.node(nid).attributes["mode"] == "circular"
    cache = w.graph.add_literal(np.zeros((2, 3, 8, 4), np.float32))
    w.graph.connect(cache, "output", nid, "past_cache")
    axis = w.properties.widgets["attr:axis"]
    # rank-4 cache: any axis but the batch axis 0, i.e. -3..-1 counted from the back
    assert (axis.minimum(), axis.maximum(), axis.value()) == (-3, -1, -2)


def test_a_fixed_error_leaves_the_status_bar(small, qtbot):
    """The status bar's error message goes (and its red with it) once an evaluation no longer
    has the error; the run summary on the right is never painted red."""
    import numpy as np

    w = small
    _wire(w)
    w.runner.wait()
    w.scene.select_nodes(["g"])
    w.graph.set_source("idx", value=np.array([9, 0], np.int64))
    w.runner.wait()
    assert "out of range" in w.statusBar().currentMessage()
    assert "#c62828" in w.statusBar().styleSheet() and "QStatusBar" in w.statusBar().styleSheet()
    w.graph.set_source("idx", value=np.array([1, 0], np.int64))
    w.runner.wait()
    assert "out of range" not in w.statusBar().currentMessage()
    assert w.statusBar().styleSheet() == ""
    assert "error" not in w.run_status.run_label.text()


def test_the_formula_follows_the_axis_and_the_ranks(small):
    """The panel writes the op's formula for this node: the axis in its place, one coordinate
    per dimension (generic text while the inputs are not wired)."""
    w = small
    w.scene.select_nodes(["g"])
    label = w.properties.widgets["formula"]
    assert label.text() == w.graph.node("g").schema.doc        # nothing wired: the generic text
    _wire(w)
    assert label.text() == "output[i, b] = data[indices[i], b]"   # data (3, 4), indices (2,), axis 0
    _type_in(w.properties.widgets["attr:axis"], "1")
    assert label.text() == "output[a, i] = data[a, indices[i]]"
    w.undo_stack.undo()
    assert label.text() == "output[i, b] = data[indices[i], b]"


def test_integers_says_that_high_is_excluded(small):
    w = small
    nid = w.graph.add_generator("integers", {"low": 0, "high": 10})
    w.scene.select_nodes([nid])
    assert "excluded" in w.properties.widgets["param:high"].toolTip()
    form = w.properties._form
    labels = [form.itemAt(i, QtWidgets.QFormLayout.ItemRole.LabelRole) for i in range(form.rowCount())]
    texts = [item.widget().text() for item in labels if item is not None and item.widget() is not None]
    assert "high (excl.)" in texts and "low" in texts


def test_the_description_wraps_and_commits_on_enter(small, qtbot):
    """A sentence long description is shown whole (wrapped), and typing then Enter is one
    undoable edit."""
    w = small
    w.scene.clearSelection()
    field = w.properties.widgets["description"]
    long = "Gather rows of an embedding table by token id: each id becomes its row vector, row by row."
    field.setFocus()
    field.selectAll()
    QTest.keyClicks(field, long)
    QTest.keyClick(field, QtCore.Qt.Key.Key_Return)
    assert w.graph.settings["description"] == long
    assert w.undo_action.text() == "Undo Change Graph Description"
    assert field.document().lineCount() >= 1 and field.height() >= 3 * field.fontMetrics().lineSpacing()
    field.document().setTextWidth(field.viewport().width())
    assert field.document().size().height() <= field.viewport().height() + 2   # all of it visible


def test_the_panel_heading_stays_put_between_the_graph_and_a_node(small, qtbot):
    """Rows start at the top on every page; spare height goes below them (the walkthrough saw
    the heading jump ~30 px between the graph's page and a node's)."""
    w = small
    w.scene.clearSelection()
    deliver_posted_events()          # the graph's page laid out: nothing to watch, it must stay put

    def heading_top() -> int:
        t = w.properties.title
        return t.mapTo(w.properties, t.rect().topLeft()).y()
    graph_top, graph_height = heading_top(), w.properties.title.height()
    w.scene.select_nodes(["g"])
    assert w.properties.node_id == "g"
    deliver_posted_events()          # the node's page laid out
    assert heading_top() == graph_top
    assert graph_height <= w.properties.title.sizeHint().height() + 2


def test_arange_takes_fractional_steps_and_keeps_whole_numbers_whole(small):
    w = small
    nid = w.edits.add_block("gen:arange", QtCore.QPointF(300, 400))
    step, stop = w.properties.widgets["param:step"], w.properties.widgets["param:stop"]
    assert (step.text(), stop.text()) == ("1", "6")           # whole numbers read as such
    w.properties.widgets["param:dtype"].setCurrentText("float32")
    step, stop = w.properties.widgets["param:step"], w.properties.widgets["param:stop"]
    _type_in(step, "0.25")
    _type_in(stop, "2")
    params = w.graph.node(nid).params
    assert params["step"] == 0.25                              # not truncated by an integer box
    assert params["stop"] == 2 and isinstance(params["stop"], int)
    w.runner.wait()
    np.testing.assert_array_equal(w.runner.value(nid), np.array([0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75], np.float32))
    assert w.properties.widgets["param:step"].text() == "0.25"


def test_several_selected_nodes_are_counted_on_the_graph_page(small):
    w = small
    w.scene.select_nodes(["data", "idx"])
    assert w.properties.node_id is None
    assert "2 nodes selected" in w.properties.title.text()
    w.scene.select_nodes(["data", "idx", "g"])
    assert "3 nodes selected" in w.properties.title.text()
    w.scene.clearSelection()
    assert "nothing selected" in w.properties.title.text()
    w.scene.select_nodes(["g"])
    assert w.properties.node_id == "g"


def test_the_heading_follows_a_rename_and_its_undo(small):
    """The Properties header kept the old name after a rename."""
    w = small
    w.scene.select_nodes(["g"])
    name = w.properties.widgets["name"]
    name.setFocus()
    name.selectAll()
    QTest.keyClicks(name, "pick rows")
    QTest.keyClick(name, QtCore.Qt.Key.Key_Return)
    assert w.graph.node("g").name == "pick rows"
    assert "pick rows" in w.properties.title.text() and "Gather" in w.properties.title.text()
    w.undo_stack.undo()
    assert w.properties.title.text().startswith("<b style='font-size:12pt'>g</b>")


def _type_line(edit: QtWidgets.QLineEdit, text: str) -> None:
    edit.setFocus()
    edit.selectAll()
    QTest.keyClicks(edit, text)
    QTest.keyClick(edit, QtCore.Qt.Key.Key_Return)


def test_a_shape_that_is_not_one_says_why_in_words_and_the_field_shows_the_nodes_shape(small):
    """``abc`` typed as a generator's or a literal's shape: the status line names the part that
    is not a size (it said Python's ``invalid literal for int() with base 10``), as an error,
    and the field shows the shape the node still has, selected for retyping (it kept ``abc``)."""
    w = small
    nid = w.edits.add_block("gen:uniform", QtCore.QPointF(300, 400))
    w.runner.wait()
    shape = w.properties.widgets["param:shape"]
    before, params, port = shape.text(), dict(w.graph.node(nid).params), str(w.graph.output_type(nid))
    assert before
    _type_line(shape, "2, abc")
    message = w.statusBar().currentMessage()
    assert "'abc' is not a size" in message and "invalid literal" not in message
    assert w.graph.node(nid).params == params and str(w.graph.output_type(nid)) == port
    assert shape.text() == before and shape.selectedText() == before
    w.scene.select_nodes(["idx"])
    deliver_posted_events()
    assert w.properties.node_id == "idx"
    literal_shape = w.properties.widgets["shape"]
    _type_line(literal_shape, "3 x y")
    message = w.statusBar().currentMessage()
    assert "'y' is not a size" in message and "invalid literal" not in message
    assert w.graph.node("idx").value.tolist() == [2, 0] and literal_shape.text() == "2"


def test_absurd_literal_shapes_are_refused_in_words_and_an_empty_wide_one_is_not_tabled(small, qtbot):
    """``4294967296, 4294967296`` (numpy's product wrapped to 0), 70 dimensions or a size past
    any integer raised inside the form; ``0, 200000`` froze the window for 11 s making 200,000
    column headers for a tensor of no elements."""
    w = small
    w.scene.select_nodes(["idx"])
    deliver_posted_events()
    literal_shape = w.properties.widgets["shape"]
    for text, words in (("4294967296, 4294967296", "more than any tensor can hold"),
                        ("0, 99999999999999999999", "more than any tensor can hold"),
                        ("0, 1099511627776, 1099511627776", "more than any tensor can hold"),   # numpy: too big
                        (", ".join(["1"] * 70), "70 dimensions: a tensor has at most 64")):
        _type_line(literal_shape, text)
        assert words in w.statusBar().currentMessage()
        assert w.graph.node("idx").value.tolist() == [2, 0]
    _type_line(literal_shape, "0, 200000")
    assert w.graph.node("idx").value.shape == (0, 200000)
    table = w.properties.widgets["table"]
    assert not table.isVisible() and table.columnCount() < 200000
    assert w.properties.widgets["too_big"].text().startswith("200,000 columns: too many to edit here")


def test_a_number_typed_outside_a_boxs_range_is_refused_in_words_not_cut_short(small):
    """``99`` typed as the graph's opset (allowed up to MAX_OPSET): the opset stays what it was
    and the status line says why (the box dropped the second 9 and set opset 9, every op
    switching to an old version, without a word). ``5`` as the axis of a Gather on rank-2
    data: refused the same way, naming the range and why."""
    from nodeeditor.ui.properties import MAX_OPSET

    w = small
    _wire(w)
    w.scene.clearSelection()
    before = w.graph.opset
    opset = w.properties.widgets["opset"]
    _type_in(opset, "99")
    assert w.graph.opset == before and opset.value() == before
    message = w.statusBar().currentMessage()
    assert f"opset 99 is not allowed here: it must be from 1 to {MAX_OPSET}" in message
    assert w.undo_stack.count() == 0
    w.scene.select_nodes(["g"])
    deliver_posted_events()
    axis = w.properties.widgets["attr:axis"]
    _type_in(axis, "5")
    assert w.graph.node("g").attributes.get("axis", 0) == 0 and axis.value() == 0
    message = w.statusBar().currentMessage()
    assert "axis 5 is not allowed here: [-2, 1] for rank-2 data" in message
    _type_in(axis, "-2")                                          # in range: taken as before
    assert w.graph.node("g").attributes["axis"] == -2


def test_an_emptied_name_says_it_stays_and_edits_of_nothing_say_so(small):
    """Clearing Name and pressing Enter kept the name without a word; Duplicate and Delete
    with nothing selected did nothing, the status line still showing an older message."""
    w = small
    w.scene.select_nodes(["g"])
    name = w.properties.widgets["name"]
    name.setFocus()
    name.selectAll()
    QTest.keyClick(name, QtCore.Qt.Key.Key_Delete)
    QTest.keyClick(name, QtCore.Qt.Key.Key_Return)
    assert w.graph.node("g").name == "g" and name.text() == "g"
    assert w.statusBar().currentMessage() == "A name cannot be empty: it stays “g”"
    w.scene.clearSelection()
    w.view.setFocus()
    keys(w.view, "Ctrl+D")
    assert w.statusBar().currentMessage() == "Nothing is selected to duplicate"
    keys(w.view, "Delete")
    assert w.statusBar().currentMessage() == "Nothing is selected to delete"
    assert w.undo_stack.count() == 0
