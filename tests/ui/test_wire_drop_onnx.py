"""A wire dropped on empty canvas offers the ONNX ops as Tab does: typing ``MatMul`` lists it
with the port the wire goes to, Enter adds the foreign node wired to it in one undo step; an
op whose ONNX schema does not take the wire's dtype is not offered; a wire drawn back from an
indices input offers the ops that can give integers. What takes what is read from ``onnx.defs``
in the test."""
from __future__ import annotations

import onnx
from PySide6 import QtCore
from PySide6.QtTest import QTest

from nodeeditor.graph import nodes as N

from .helpers import drag, port_point, save_shot, scene_point

Key = QtCore.Qt.Key


def _takes(op: str, opset: int, onnx_type: str) -> bool:
    """Whether some input of ``op`` at ``opset`` allows ``onnx_type`` (from ONNX's schema)."""
    schema = onnx.defs.get_schema(op, opset)
    allowed = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    return any(onnx_type in allowed.get(p.type_str, {p.type_str}) for p in schema.inputs)


def test_a_float_wire_dropped_on_canvas_adds_a_matmul_wired_to_its_first_input_and_no_op_that_refuses_floats(
        small, qtbot):
    w = small
    opset = w.graph.opset
    assert not _takes("BitShift", opset, "tensor(float)") and _takes("BitShift", opset, "tensor(uint8)")
    assert _takes("Relu", opset, "tensor(float)")
    before = set(w.graph.node_ids)
    drag(w.view.viewport(), port_point(w, "data", "output", True), scene_point(w, 330, 330))   # float32[3, 4]
    box = w.quick_add
    assert box.isVisible() and not any(k.startswith("onnx:") for k in box.keys())   # empty text: own blocks
    QTest.keyClicks(box.field, "MatMul")
    keys = box.keys()
    assert "onnx:MatMul" in keys
    labels = [box.list.item(i).text() for i in range(box.list.count())]
    first_input = onnx.defs.get_schema("MatMul", w.graph.opset).inputs[0].name          # A
    assert labels[keys.index("onnx:MatMul")].endswith(first_input)
    save_shot(w.view, "onnx/wire_drop_matmul")
    box.list.setCurrentRow(keys.index("onnx:MatMul"))
    QTest.keyClick(box.field, Key.Key_Return)
    (new,) = set(w.graph.node_ids) - before
    node = w.graph.node(new)
    assert isinstance(node, N.ForeignNode) and node.op_type == "MatMul"
    edge = w.graph.edge_into(new, first_input)
    assert (edge.src, edge.src_port) == ("data", "output")
    assert w.undo_action.text() == "Undo Add MatMul and Connect"
    w.undo_stack.undo()
    assert set(w.graph.node_ids) == before
    # the same wire again: BitShift (unsigned integers only) is not offered, Relu is
    drag(w.view.viewport(), port_point(w, "data", "output", True), scene_point(w, 330, 330))
    QTest.keyClicks(box.field, "BitShift")
    assert "onnx:BitShift" not in box.keys()
    box.field.clear()
    QTest.keyClicks(box.field, "Relu")
    assert "onnx:Relu" in box.keys()
    QTest.keyClick(box.field, Key.Key_Escape)
    assert set(w.graph.node_ids) == before


def _gives_integers(op: str, opset: int) -> bool:
    """Whether some output of ``op`` at ``opset`` can be an int64 tensor (from ONNX's schema)."""
    schema = onnx.defs.get_schema(op, opset)
    allowed = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}
    return any("tensor(int64)" in allowed.get(p.type_str, {p.type_str}) for p in schema.outputs)


def test_a_wire_drawn_back_from_an_indices_input_offers_ops_that_give_integers_and_wires_the_one_chosen(
        small, qtbot):
    w = small
    opset = w.graph.opset
    assert _gives_integers("ArgMax", opset) and not _gives_integers("Softmax", opset)
    before = set(w.graph.node_ids)
    drag(w.view.viewport(), port_point(w, "g", "indices", False), scene_point(w, 150, 330))
    box = w.quick_add
    QTest.keyClicks(box.field, "Softmax")
    assert "onnx:Softmax" not in box.keys()
    box.field.clear()
    QTest.keyClicks(box.field, "ArgMax")
    assert "onnx:ArgMax" in box.keys()
    box.list.setCurrentRow(box.keys().index("onnx:ArgMax"))
    QTest.keyClick(box.field, Key.Key_Return)
    (new,) = set(w.graph.node_ids) - before
    edge = w.graph.edge_into("g", "indices")
    output = onnx.defs.get_schema("ArgMax", opset).outputs[0].name           # reduced
    assert (edge.src, edge.src_port) == (new, output)
