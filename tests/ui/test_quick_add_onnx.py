"""The Tab box adds any ONNX op by name: typing ``MatMul`` lists it (after the editor's own
blocks, the seven indexing ops first), Enter adds a foreign node with the ports ONNX's schema
gives it, as one undo step; its attributes are the schema's, shown at their defaults. The
expected ports and defaults are read from ``onnx.defs`` in the test."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from PySide6 import QtCore, QtWidgets
from PySide6.QtTest import QTest

from nodeeditor.graph import nodes as N

from .helpers import save_shot, scene_point

Key = QtCore.Qt.Key
SEVEN = {"op:Gather", "op:GatherElements", "op:GatherND", "op:Scatter", "op:ScatterElements", "op:ScatterND",
         "op:TensorScatter"}


def _open_box(w, qtbot):
    w.view.setFocus()
    QTest.mouseMove(w.view.viewport(), scene_point(w, 100, 330))
    QTest.keyClick(w.view, Key.Key_Tab)
    assert w.quick_add.isVisible()
    return w.quick_add


def _type(box, qtbot, text: str, wanted: str) -> list[str]:
    """Type ``text``; the list holds ``wanted``."""
    QTest.keyClicks(box.field, text)
    keys = box.keys()
    assert wanted in keys
    return keys


def test_typing_matmul_and_enter_adds_a_foreign_matmul_with_its_schemas_ports(small, qtbot):
    w = small
    box = _open_box(w, qtbot)
    keys = _type(box, qtbot, "MatMul", "onnx:MatMul")
    assert keys[0] == "onnx:MatMul"
    save_shot(w, "onnx/quick_add_matmul")
    before = len(w.graph.nodes)
    QTest.keyClick(box.field, Key.Key_Return)
    assert not box.isVisible() and len(w.graph.nodes) == before + 1
    node = w.graph.nodes[-1]
    schema = onnx.defs.get_schema("MatMul", w.graph.opset)
    assert isinstance(node, N.ForeignNode) and (node.op_type, node.domain) == ("MatMul", "")
    assert node.input_ports() == tuple(p.name for p in schema.inputs)          # A, B
    assert node.output_ports() == tuple(p.name for p in schema.outputs)        # Y
    assert node.attributes == {}
    assert w.undo_action.text() == "Undo Add MatMul"
    assert w.scene.node_item(node.id).sceneBoundingRect().contains(box.scene_pos)
    # wired to float32[3, 4] @ float32[4, 2], ONNX shape inference types the output
    w.graph.add_literal(np.ones((4, 2), np.float32), node_id="w", position=(0, 300))
    w.graph.connect("data", "output", node.id, "A")
    w.graph.connect("w", "output", node.id, "B")
    assert str(w.graph.output_type(node.id, "Y")) == "float32[3, 2]"
    w.runner.wait()
    assert w.runner.value(node.id).shape == (3, 2)


@pytest.mark.parametrize(("text", "onnx_op"), [("gather", None), ("scatter", None), ("sca", "onnx:Scan"),
                                               ("el", "onnx:Elu")])
def test_the_editors_own_blocks_and_the_seven_ops_come_before_any_onnx_op(small, qtbot, text, onnx_op):
    w = small
    box = _open_box(w, qtbot)
    QTest.keyClicks(box.field, text)
    keys = box.keys()
    onnx_at = [i for i, k in enumerate(keys) if k.startswith("onnx:")]
    own_at = [i for i, k in enumerate(keys) if not k.startswith("onnx:")]
    assert own_at and (not onnx_at or max(own_at) < min(onnx_at))
    assert onnx_op is None or onnx_op in keys
    seven = [i for i, k in enumerate(keys) if k in SEVEN]
    assert seven and max(seven) < (min(onnx_at) if onnx_at else len(keys))
    assert not {"onnx:Gather", "onnx:GatherElements", "onnx:GatherND", "onnx:ScatterND",
                "onnx:ScatterElements", "onnx:Scatter", "onnx:TensorScatter"} & set(keys)


def test_an_added_gemm_shows_its_schemas_attributes_at_their_defaults(small, qtbot):
    w = small
    box = _open_box(w, qtbot)
    _type(box, qtbot, "Gemm", "onnx:Gemm")
    box.list.setCurrentRow(box.keys().index("onnx:Gemm"))
    QTest.keyClick(box.field, Key.Key_Return)
    node = w.graph.nodes[-1]
    assert isinstance(node, N.ForeignNode) and node.op_type == "Gemm"
    qtbot.waitUntil(lambda: w.properties.node_id == node.id, timeout=10000)
    schema = onnx.defs.get_schema("Gemm", w.graph.opset)
    alpha = onnx.helper.get_attribute_value(schema.attributes["alpha"].default_value)
    trans_a = onnx.helper.get_attribute_value(schema.attributes["transA"].default_value)
    field = w.properties.widgets["attr:alpha"]
    assert isinstance(field, QtWidgets.QLineEdit) and field.text() == ""
    assert field.placeholderText() == f"{alpha} (default)"
    box_a = w.properties.widgets["attr:transA"]
    assert isinstance(box_a, QtWidgets.QSpinBox) and box_a.value() == trans_a and "default" in box_a.suffix()



def test_the_palette_search_finds_onnx_ops_and_a_double_click_adds_one(small, qtbot):
    """The palette's search lists the ONNX ops under "ONNX ops" (only those matching), below
    the editor's own blocks; double-clicking MatMul adds a foreign MatMul. Expanding the
    category shows every op of the default domain that is not one of the seven."""
    w = small
    w.show()
    qtbot.waitExposed(w)
    palette = w.palette
    assert palette.visible_onnx_keys() == []                    # not read before it is wanted
    QTest.keyClicks(palette.search_field, "MatMul")
    assert "onnx:MatMul" in palette.visible_onnx_keys()
    assert "onnx:Softmax" not in palette.visible_onnx_keys()
    item = palette._onnx_items["onnx:MatMul"]
    palette.tree.scrollToItem(item)
    rect = palette.tree.visualItemRect(item)
    assert rect.isValid() and palette.tree.viewport().rect().contains(rect.center())
    save_shot(w, "onnx/palette_matmul")
    before = len(w.graph.nodes)
    left, none = QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.KeyboardModifier.NoModifier
    QTest.mouseClick(palette.tree.viewport(), left, none, rect.center())
    QTest.mouseDClick(palette.tree.viewport(), left, none, rect.center())
    qtbot.waitUntil(lambda: len(w.graph.nodes) == before + 1, timeout=10000)
    node = w.graph.nodes[-1]
    assert isinstance(node, N.ForeignNode) and (node.op_type, node.domain) == ("MatMul", "")
    palette.search_field.clear()
    palette.tree.expandItem(palette._onnx_top)
    import ops

    expected = set()
    for name in {s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain == ""}:
        try:
            schema = onnx.defs.get_schema(name, ops.MAX_OPSET, "")      # the op as of IndexFlow's newest opset
        except onnx.defs.SchemaError:
            continue                                                      # newer than that opset
        if not schema.deprecated:
            expected.add(name)
    expected -= {k[3:] for k in SEVEN}
    assert {k.removeprefix("onnx:") for k in palette.visible_onnx_keys()} == expected
