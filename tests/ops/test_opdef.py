"""ops.opdef / ops.opdefs: one OpDef per operator, and the facts the other layers read from it.

Oracles: the ONNX operator documentation (which inputs are positions, which ops write, which
attribute names an axis), onnx.defs for the opsets, and messages written out here."""
from __future__ import annotations

import dataclasses

import ml_dtypes
import numpy as np
import onnx.defs
import pytest

import ops
from ops import formula
from ops.dtypes import INTEGER_NAMES, is_ml_dtype, is_ml_float
from ops.opdef import AxisSpec, OpDef, PortRole

T = ops.TensorType

#: From the ONNX operator documentation.
INDEX_INPUTS = {"Gather": ("indices",), "GatherElements": ("indices",), "GatherND": ("indices",),
                "Scatter": ("indices",), "ScatterElements": ("indices",), "ScatterND": ("indices",),
                "TensorScatter": ("write_indices",)}
DIFFERENTIABLE = {"Gather": ("data",), "GatherElements": ("data",), "GatherND": ("data",),
                  "Scatter": ("data", "updates"), "ScatterElements": ("data", "updates"),
                  "ScatterND": ("data", "updates"), "TensorScatter": ("past_cache", "update")}
WRITERS = {"Scatter", "ScatterElements", "ScatterND", "TensorScatter"}
AXIS_BOUND_BY = {"Gather": "data", "GatherElements": "data", "Scatter": "data", "ScatterElements": "data",
                 "TensorScatter": "past_cache"}


def test_every_op_has_one_opdef_holding_its_schema():
    assert set(ops.OPDEFS) == set(ops.OP_NAMES)
    for op in ops.OP_NAMES:
        opdef = ops.get_opdef(op)
        assert opdef is ops.OPDEFS[op]
        assert opdef.name == op
        assert opdef.schema is ops.get_schema(op)


def test_an_unknown_op_has_no_opdef_and_the_error_names_the_known_ones():
    with pytest.raises(ops.OpError, match=r"unknown op 'Gathr'; known: Gather, GatherElements"):
        ops.get_opdef("Gathr")


@pytest.mark.parametrize("op", sorted(INDEX_INPUTS))
def test_port_roles_name_exactly_the_schema_inputs(op):
    opdef = ops.get_opdef(op)
    assert sorted(opdef.roles) == sorted(p.name for p in opdef.schema.inputs)
    assert all(isinstance(role, PortRole) for role in opdef.roles.values())


@pytest.mark.parametrize("op", sorted(INDEX_INPUTS))
def test_the_index_inputs_are_the_documented_ones_and_exactly_those_with_an_integer_type(op):
    opdef = ops.get_opdef(op)
    assert opdef.index_ports == INDEX_INPUTS[op]
    schema = opdef.schema
    integer_typed = tuple(
        p.name for p in schema.inputs
        if all(set(schema.allowed_dtypes(p.type_param, v)) <= INTEGER_NAMES for v in schema.versions)
    )
    assert opdef.index_ports == integer_typed


@pytest.mark.parametrize("op", sorted(DIFFERENTIABLE))
def test_data_and_updates_are_differentiable_and_positions_are_not(op):
    opdef = ops.get_opdef(op)
    assert opdef.differentiable_inputs == DIFFERENTIABLE[op]
    assert opdef.data_port == DIFFERENTIABLE[op][0]
    assert opdef.updates_port == (DIFFERENTIABLE[op][1] if op in WRITERS else None)


def test_the_scatters_write_and_the_gathers_do_not():
    assert {op for op in ops.OP_NAMES if ops.get_opdef(op).writes} == WRITERS


@pytest.mark.parametrize("op", ops.OP_NAMES)
def test_the_axis_attribute_is_bounded_by_the_rank_of_the_documented_input(op):
    axis = ops.get_opdef(op).axis
    if op not in AXIS_BOUND_BY:
        assert axis is None
        assert "axis" not in {a.name for a in ops.get_schema(op).attributes}
        return
    assert axis.attribute == "axis" and axis.bounded_by == AXIS_BOUND_BY[op]
    assert axis.not_batch == (op == "TensorScatter")  # its sequence axis may not be the batch axis 0


@pytest.mark.parametrize("op", ops.OP_NAMES)
def test_ops_with_a_reduction_attribute_have_reduction_rules_listing_every_value_the_schema_allows(op):
    opdef = ops.get_opdef(op)
    names = {a.name for a in opdef.schema.attributes}
    if "reduction" not in names:
        assert opdef.reductions is None
        return
    allowed = set().union(*opdef.schema.attribute("reduction").allowed.values())
    assert set(opdef.reductions.names) == allowed == {"none", "add", "mul", "max", "min"}


@pytest.mark.parametrize("op, inputs", [
    ("ScatterElements", [T("string", (3,)), T("int64", (2,)), T("string", (2,))]),
    ("ScatterND", [T("string", (3,)), T("int64", (2, 1)), T("string", (2,))]),
])
def test_infer_types_refuses_mul_on_strings_and_allows_the_other_reductions(op, inputs):
    with pytest.raises(ops.OpError, match=f"^{op}: reduction 'mul' has no meaning for string tensors "
                                          r"\(use none, add, max or min\)$"):
        ops.infer_types(op, inputs, {"reduction": "mul"})
    for reduction in ("none", "add", "max", "min"):
        assert ops.infer_types(op, inputs, {"reduction": reduction}) == (T("string", (3,)),)


@pytest.mark.parametrize("op, inputs", [
    ("ScatterElements", [T("complex64", (3,)), T("int64", (2,)), T("complex64", (2,))]),
    ("ScatterND", [T("complex128", (3,)), T("int64", (2, 1)), T("complex128", (2,))]),
])
@pytest.mark.parametrize("reduction", ["max", "min"])
def test_infer_types_refuses_max_and_min_on_complex(op, inputs, reduction):
    with pytest.raises(ops.OpError, match=rf"^{op}: reduction '{reduction}' has no meaning for complex tensors "
                                          r"\(no ordering\); use none, add or mul$"):
        ops.infer_types(op, inputs, {"reduction": reduction})
    assert ops.infer_types(op, inputs, {"reduction": "mul"})[0].dtype == inputs[0].dtype


def test_the_kernels_refuse_the_same_reductions_with_the_same_words():
    data = np.array(["a", "b"], dtype=object)
    with pytest.raises(ops.OpError, match=r"^ScatterElements: reduction 'mul' has no meaning for string tensors"):
        ops.run_op("ScatterElements", [data, np.array([0]), np.array(["c"], dtype=object)], {"reduction": "mul"})
    with pytest.raises(ops.OpError, match=r"^ScatterND: reduction 'max' has no meaning for complex tensors"):
        ops.scatter_nd(np.zeros(2, np.complex64), np.array([[0]]), np.ones(1, np.complex64), reduction="max")
    with pytest.raises(ops.OpError,
                       match=r"^ScatterND: unknown reduction 'sum'; expected one of none, add, mul, max, min$"):
        ops.scatter_nd(np.zeros(2), np.array([[0]]), np.ones(1), reduction="sum")


def test_an_opdef_whose_roles_miss_an_input_is_refused_when_it_is_defined():
    gather = ops.get_opdef("Gather")
    with pytest.raises(ValueError, match="must name the inputs"):
        dataclasses.replace(gather, roles={"data": PortRole.DATA})
    with pytest.raises(ValueError, match="exactly one input has the role DATA"):
        dataclasses.replace(gather, roles={"data": PortRole.DATA, "indices": PortRole.DATA})
    with pytest.raises(ValueError, match="not an input"):
        dataclasses.replace(gather, axis=AxisSpec("axis", "updates"))
    assert isinstance(gather, OpDef)


def test_every_opdef_has_a_backward_pass_that_ops_vjp_calls():
    for name in ops.OP_NAMES:
        assert callable(ops.get_opdef(name).vjp), name


def test_the_formula_of_an_op_is_its_opdefs_and_none_where_the_ranks_do_not_fit():
    assert formula("GatherElements", {"axis": 1}, 2, 2) == "output[i, j] = data[i, indices[i, j]]"
    assert formula("Gather", {"axis": 0}, 0, 1) is None  # scalar data: no axis to write out
    assert formula("TensorScatter", {}, 3, 1) is None  # no per-rank formula: the schema's doc is shown
    assert formula("NoSuchOp", {}, 2, 2) is None


@pytest.mark.parametrize("value, expected", [(1, 1), (np.int64(-2), -2), (np.int8(3), 3)])
def test_coerce_attribute_gives_a_plain_int(value, expected):
    result = ops.get_schema("Gather").coerce_attribute("axis", value)
    assert result == expected and type(result) is int


@pytest.mark.parametrize("op, name, value, message", [
    ("Gather", "axis", "1", "Gather attribute 'axis' must be an integer, got '1'"),
    ("Gather", "axis", True, "Gather attribute 'axis' must be an integer, got True"),
    ("Gather", "axis", 1.0, "Gather attribute 'axis' must be an integer, got 1.0"),
    ("ScatterND", "reduction", b"add", "ScatterND attribute 'reduction' must be a string, got b'add'"),
    ("ScatterND", "reduction", 1, "ScatterND attribute 'reduction' must be a string, got 1"),
    ("Gather", "mode", "linear", "Gather has no attribute 'mode'; it has axis"),
])
def test_coerce_attribute_refuses_the_wrong_kind_in_the_editors_words(op, name, value, message):
    with pytest.raises(ops.OpError) as info:
        ops.get_schema(op).coerce_attribute(name, value)
    assert str(info.value) == message


def test_coerce_attribute_keeps_a_string_as_it_is():
    assert ops.get_schema("TensorScatter").coerce_attribute("mode", "circular") == "circular"


def test_max_opset_is_the_newest_opset_onnx_defines_any_of_the_seven_ops_at():
    newest = max(s.since_version for s in onnx.defs.get_all_schemas_with_history()
                 if s.domain == "" and s.name in ops.OP_NAMES)
    assert ops.MAX_OPSET == newest == 24


@pytest.mark.parametrize("dtype, ml, ml_float", [
    (ml_dtypes.bfloat16, True, True), (ml_dtypes.float8_e4m3fn, True, True), (ml_dtypes.int4, True, False),
    (np.float32, False, False), (object, False, False), ("U3", False, False), ("V4", False, False),
    ([("a", np.int8)], False, False),
])
def test_ml_dtypes_are_told_apart_from_numpys_own(dtype, ml, ml_float):
    dt = np.dtype(dtype)
    assert is_ml_dtype(dt) is ml and is_ml_dtype(np.zeros(1, dt)) is ml
    assert is_ml_float(dt) is ml_float


def test_scatter_is_replaced_by_scatter_elements_from_the_opset_that_deprecates_it():
    deprecated = [s.since_version for s in onnx.defs.get_all_schemas_with_history()
                  if s.domain == "" and s.name == "Scatter" and s.deprecated]
    first_elements = min(s.since_version for s in onnx.defs.get_all_schemas_with_history()
                         if s.domain == "" and s.name == "ScatterElements")
    scatter = ops.get_schema("Scatter")
    assert scatter.replaced_by == "ScatterElements"
    assert scatter.deprecated_since == deprecated[0] == first_elements == 11
    assert [op for op in ops.OP_NAMES if ops.get_schema(op).replaced_by] == ["Scatter"]
