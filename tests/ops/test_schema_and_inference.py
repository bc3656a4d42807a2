"""Schemas against onnx.defs, type inference against the kernels and onnx.shape_inference,
and the index maps against the slow reference."""
from __future__ import annotations

import math

import numpy as np
import onnx
import onnx.defs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from onnx import TensorProto, helper, shape_inference

import ops

from . import reference
from ._cases import INPUT_NAMES, case_strategy
from ._helpers import CORE_DTYPES, ONNX_TYPE_TO_NAME, SMALL_DTYPES, np_dtype

OP_NAMES = ("Gather", "GatherElements", "GatherND", "Scatter", "ScatterElements", "ScatterND",
            "TensorScatter")
MAX_OPSET = onnx.defs.onnx_opset_version()

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))


def onnx_schema(op, opset):
    """The onnx schema in force at ``opset``, or None (absent, or deprecated like Scatter-11)."""
    try:
        s = onnx.defs.get_schema(op, opset)
    except onnx.defs.SchemaError:
        return None
    return None if s.deprecated else s


def opsets_of(op):
    return [o for o in range(1, MAX_OPSET + 1) if onnx_schema(op, o) is not None]


# ---------------------------------------------------------------------------------------------
# schemas


def test_op_names_and_registry():
    assert tuple(ops.OP_NAMES) == OP_NAMES
    assert set(ops.SCHEMAS) == set(OP_NAMES)
    for op in OP_NAMES:
        assert ops.get_schema(op) is ops.SCHEMAS[op]
        assert ops.get_schema(op).name == op


def test_dtype_names():
    assert tuple(ops.DTYPE_NAMES[:16]) == CORE_DTYPES
    for name in CORE_DTYPES:
        assert ops.dtype_of(name) == np_dtype(name)
        assert ops.dtype_name(np_dtype(name)) == name
        assert ops.dtype_name(np.zeros(2, dtype=np_dtype(name))) == name
    for dt in (np.dtype("U3"), np.dtype("S2"), np.dtype(object)):
        assert ops.dtype_name(dt) == "string"
    for name in SMALL_DTYPES:  # TensorScatter's float8 / float4 / int4 types
        assert ops.dtype_of(name) == np_dtype(name)
        assert ops.dtype_name(np_dtype(name)) == name


def test_dtype_name_ignores_byte_order():
    """'>i2' is int16 and '>c16' is complex128: byte order is storage, not type."""
    for name in CORE_DTYPES:
        dt = np_dtype(name)
        if dt.kind in "iufc" and dt.itemsize > 1 and name != "bfloat16":
            assert ops.dtype_name(dt.newbyteorder("S")) == name


@pytest.mark.parametrize("op", OP_NAMES)
def test_versions_and_deprecation(op):
    s = ops.get_schema(op)
    history = [x for x in onnx.defs.get_all_schemas_with_history()
               if x.name == op and x.domain == ""]
    assert s.versions == tuple(sorted(x.since_version for x in history if not x.deprecated))
    deprecated = [x.since_version for x in history if x.deprecated]
    assert s.deprecated_since == (min(deprecated) if deprecated else None)


def test_versions_as_in_the_issue():
    expect = {"Gather": (1, 11, 13), "GatherElements": (11, 13), "GatherND": (11, 12, 13),
              "Scatter": (9,), "ScatterElements": (11, 13, 16, 18),
              "ScatterND": (11, 13, 16, 18), "TensorScatter": (24,)}
    for op, versions in expect.items():
        assert ops.get_schema(op).versions == versions
    assert ops.get_schema("Scatter").deprecated_since == 11


@pytest.mark.parametrize("op", OP_NAMES)
def test_version_for_every_opset(op):
    s = ops.get_schema(op)
    for opset in range(1, MAX_OPSET + 1):
        o = onnx_schema(op, opset)
        assert s.version_for(opset) == (o.since_version if o else None), opset


@pytest.mark.parametrize("op", OP_NAMES)
def test_inputs_outputs_and_defaults(op):
    s = ops.get_schema(op)
    latest = onnx_schema(op, max(opsets_of(op)))
    assert [p.name for p in s.inputs] == [p.name for p in latest.inputs]
    optional = onnx.defs.OpSchema.FormalParameterOption.Optional
    assert [p.optional for p in s.inputs] == [p.option == optional for p in latest.inputs]
    assert [p.name for p in s.outputs] == [p.name for p in latest.outputs]
    want = {}
    for name, a in latest.attributes.items():
        v = helper.get_attribute_value(a.default_value)
        want[name] = v.decode() if isinstance(v, bytes) else v
    assert s.defaults() == want
    for a in s.attributes:
        assert a.default == want[a.name]
        assert a.kind == {"INT": "int", "STRING": "string"}[
            onnx.defs.OpSchema.AttrType(latest.attributes[a.name].type).name]


@pytest.mark.parametrize("op", OP_NAMES)
def test_attributes_at_each_opset(op):
    s = ops.get_schema(op)
    for opset in opsets_of(op):
        want = set(onnx_schema(op, opset).attributes)
        assert {a.name for a in s.attributes_at(opset)} == want, opset


def test_attribute_since_versions():
    assert {a.name: a.since for a in ops.get_schema("GatherND").attributes}["batch_dims"] == 12
    assert {a.name: a.since for a in ops.get_schema("ScatterND").attributes}["reduction"] == 16
    se = {a.name: a.since for a in ops.get_schema("ScatterElements").attributes}
    assert se["reduction"] == 16


@pytest.mark.parametrize("op", ["ScatterElements", "ScatterND"])
def test_reduction_values_per_opset(op):
    s = ops.get_schema(op)
    for opset in (16, 17):
        assert set(s.allowed_values("reduction", opset)) == {"none", "add", "mul"}
    for opset in (18, 19, 24, MAX_OPSET):
        assert set(s.allowed_values("reduction", opset)) == {"none", "add", "mul", "max", "min"}
    if op == "ScatterElements":
        assert s.allowed_values("axis", 18) is None  # any integer in range


def test_tensor_scatter_mode_values():
    assert set(ops.get_schema("TensorScatter").allowed_values("mode", 24)) == {"linear",
                                                                              "circular"}


def _onnx_allowed(schema, port_name):
    (param,) = [p for p in schema.inputs if p.name == port_name]
    constraints = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
    types = constraints.get(param.type_str, [param.type_str])
    return {ONNX_TYPE_TO_NAME[t] for t in types}


@pytest.mark.parametrize("op", OP_NAMES)
def test_allowed_dtypes_per_version(op):
    s = ops.get_schema(op)
    for opset in opsets_of(op):
        o = onnx_schema(op, opset)
        for port in s.inputs:
            got = set(s.allowed_dtypes(port.type_param, opset))
            assert got == _onnx_allowed(o, port.name), (opset, port.name)


def test_allowed_dtypes_key_facts():
    g = ops.get_schema("Gather")
    assert "bfloat16" not in g.allowed_dtypes("T", 11)
    assert "bfloat16" in g.allowed_dtypes("T", 13)
    assert "bfloat16" not in ops.get_schema("Scatter").allowed_dtypes("T", 10)
    for op in ("GatherND", "ScatterND"):
        s = ops.get_schema(op)
        (port,) = [p for p in s.inputs if p.name == "indices"]
        for opset in (11, 13, 18):
            assert tuple(s.allowed_dtypes(port.type_param, opset)) == ("int64",)
    ts = ops.get_schema("TensorScatter")
    assert set(ts.allowed_dtypes("T", 24)) >= set(CORE_DTYPES) | set(SMALL_DTYPES)


def test_check_attributes_repeated_gives_fresh_equal_answers_and_refuses_again():
    """Accepted attributes are remembered: the same call again gives an equal dict that the
    caller may change without changing later answers; a refusal raises every time; a value of
    another type that compares equal (True and 1) is judged on its own."""
    se = ops.get_schema("ScatterElements")
    first = se.check_attributes({"axis": 1, "reduction": "add"}, 18)
    first["axis"] = 7
    assert se.check_attributes({"axis": 1, "reduction": "add"}, 18) == {"axis": 1, "reduction": "add"}
    assert se.check_attributes({"axis": np.int64(1)}, None) == {"axis": 1, "reduction": "none"}
    for _ in range(2):
        with pytest.raises(ops.OpError, match="needs opset 18"):
            se.check_attributes({"reduction": "max"}, 16)
        with pytest.raises(ops.OpError, match="must be an integer"):
            se.check_attributes({"axis": True}, 18)
    with pytest.raises(ops.OpError, match="must be an integer"):
        se.check_attributes({"axis": [1]}, 18)  # unhashable: checked the long way


def test_check_attributes():
    se = ops.get_schema("ScatterElements")
    assert se.check_attributes({}, 18) == {"axis": 0, "reduction": "none"}
    assert se.check_attributes({"reduction": "max"}, 18)["reduction"] == "max"
    with pytest.raises(ops.OpError):
        se.check_attributes({"reduction": "add"}, 13)  # reduction exists from 16
    with pytest.raises(ops.OpError):
        se.check_attributes({"reduction": "max"}, 16)  # max from 18
    with pytest.raises(ops.OpError):
        se.check_attributes({"reduction": "sum"}, 18)
    with pytest.raises(ops.OpError):
        se.check_attributes({"axes": 0}, 18)
    gnd = ops.get_schema("GatherND")
    assert gnd.check_attributes({}, 12) == {"batch_dims": 0}
    with pytest.raises(ops.OpError):
        gnd.check_attributes({"batch_dims": 1}, 11)
    with pytest.raises(ops.OpError):
        ops.get_schema("TensorScatter").check_attributes({"mode": "ring"}, 24)


def test_check_attributes_keeps_to_the_opset():
    """The filled-in dict holds only attributes that exist at that opset: an exporter that
    writes it into an opset-13 model must not emit reduction (added in 16), and an opset-11
    GatherND has no batch_dims."""
    assert ops.get_schema("ScatterElements").check_attributes({"axis": 1}, 13) == {"axis": 1}
    assert ops.get_schema("ScatterND").check_attributes({}, 13) == {}
    assert ops.get_schema("GatherND").check_attributes({}, 11) == {}


def test_schema_doc_is_a_paragraph():
    for op in OP_NAMES:
        assert isinstance(ops.get_schema(op).doc, str) and len(ops.get_schema(op).doc) > 20


# ---------------------------------------------------------------------------------------------
# type inference

OPSET_FOR = {"Scatter": 10, "TensorScatter": 24}
INFER_PARAMS = [
    (op, red, dt)
    for op, red in [("Gather", None), ("GatherElements", None), ("GatherND", None),
                    ("Scatter", None), ("ScatterElements", "add"), ("ScatterND", "none"),
                    ("TensorScatter", None)]
    for dt in ("float32", "string", "bfloat16", "bool", "complex64")
    if not (op == "Scatter" and dt == "bfloat16")
]


def _tensor_type(a):
    return None if a is None else ops.TensorType(ops.dtype_name(a), tuple(a.shape))


def _onnx_elem(name):
    if name == "string":
        return TensorProto.STRING
    if name == "bfloat16":
        return TensorProto.BFLOAT16
    return helper.np_dtype_to_tensor_dtype(np_dtype(name))


def onnx_inferred(op, input_types, attrs, opset):
    """(dtype name, shape) from onnx's strict shape inference of a one-node model."""
    names = INPUT_NAMES[op]
    vis, used = [], []
    for name, t in zip(names, input_types, strict=True):
        if t is None:
            continue
        used.append(name)
        dims = [d if d is not None else f"d_{name}_{i}" for i, d in enumerate(t.shape)]
        vis.append(helper.make_tensor_value_info(name, _onnx_elem(t.dtype), dims))
    node = helper.make_node(op, used, ["y"], **attrs)
    out = helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)
    model = helper.make_model(helper.make_graph([node], "g", vis, [out]),
                              opset_imports=[helper.make_opsetid("", opset)])
    inferred = shape_inference.infer_shapes(model, strict_mode=True, check_type=True)
    tt = inferred.graph.output[0].type.tensor_type
    dtype = ONNX_TYPE_TO_NAME[
        "tensor(" + {"FLOAT": "float", "DOUBLE": "double"}.get(
            TensorProto.DataType.Name(tt.elem_type),
            TensorProto.DataType.Name(tt.elem_type).lower()) + ")"]
    shape = tuple(d.dim_value if d.HasField("dim_value") else None for d in tt.shape.dim)
    return dtype, shape


@pytest.mark.parametrize("op, reduction, dtype", INFER_PARAMS)
def test_infer_types_matches_kernel_and_onnx(op, reduction, dtype):
    opset = OPSET_FOR.get(op, 18)

    @SETTINGS
    @given(case=case_strategy(op, dtype, reduction))
    def run(case):
        types = [_tensor_type(a) for a in case.inputs]
        (inferred,) = ops.infer_types(case.op, types, case.attrs, opset=opset)
        out = ops.run_op(case.op, case.inputs, case.attrs)
        assert inferred == ops.TensorType(dtype, tuple(out.shape))
        assert inferred.shape == reference.run(case.op, case.inputs, case.attrs).shape
        assert onnx_inferred(case.op, types, case.attrs, opset) == (dtype, inferred.shape)

    run()


@pytest.mark.parametrize("op, reduction", [("Gather", None), ("GatherElements", None),
                                           ("GatherND", None), ("ScatterND", "none"),
                                           ("TensorScatter", None)])
def test_infer_types_with_unknown_dims(op, reduction):
    """Unknown (None) input dims: where onnx infers a number, ops infers the same number."""
    opset = OPSET_FOR.get(op, 18)

    @SETTINGS
    @given(case=case_strategy(op, "float32", reduction), mask_seed=st.integers(0, 2**16))
    def run(case, mask_seed):
        rng = np.random.default_rng(mask_seed)
        types = []
        for a in case.inputs:
            if a is None:
                types.append(None)
                continue
            shape = [None if rng.random() < 0.4 else d for d in a.shape]
            if case.op in ("GatherND", "ScatterND") and a is case.inputs[1]:
                # the tuple length k fixes the output rank; TensorType cannot express an
                # unknown rank, so k stays known
                shape[-1] = a.shape[-1]
            shape = tuple(shape)
            types.append(ops.TensorType(ops.dtype_name(a), shape))
        (inferred,) = ops.infer_types(case.op, types, case.attrs, opset=opset)
        dtype, shape = onnx_inferred(case.op, types, case.attrs, opset)
        assert inferred.dtype == dtype
        assert len(inferred.shape) == len(shape)
        actual = ops.run_op(case.op, case.inputs, case.attrs).shape
        for mine, theirs, real in zip(inferred.shape, shape, actual, strict=True):
            if theirs is not None:
                assert mine == theirs
            assert mine is None or mine == real

    run()


T = ops.TensorType
INFER_ERRORS = [
    ("Gather", [T("float32", (2, 3)), T("int64", (4,))], {"axis": 2}, 18),  # axis out of range
    ("Gather", [T("float32", ()), T("int64", (4,))], {"axis": 0}, 18),  # rank 0 data
    ("Gather", [T("bfloat16", (2, 3)), T("int64", (4,))], {"axis": 0}, 11),  # bf16 from 13
    ("Gather", [T("float32", (2, 3)), T("float32", (4,))], {"axis": 0}, 18),
    ("GatherElements", [T("float32", (2, 3)), T("int64", (4,))], {"axis": 0}, 18),  # rank
    ("GatherND", [T("float32", (2, 3)), T("int32", (4, 1))], {"batch_dims": 0}, 18),
    ("GatherND", [T("float32", (2, 3)), T("int64", (4, 3))], {"batch_dims": 0}, 18),
    ("GatherND", [T("float32", (2, 3)), T("int64", (2, 1))], {"batch_dims": 1}, 11),
    ("GatherND", [T("float32", (2, 3)), T("int64", (3, 1))], {"batch_dims": 1}, 18),
    ("Scatter", [T("float32", (2, 3)), T("int64", (2, 3)), T("float32", (2, 3))], {}, 11),
    ("Scatter", [T("float32", (2, 3)), T("int64", (2, 3)), T("float32", (2, 3))], {}, 18),
    ("ScatterElements", [T("float32", (2, 3)), T("int64", (2, 3)), T("float32", (2, 2))],
     {}, 18),
    ("ScatterElements", [T("float32", (2, 3)), T("int64", (2, 3)), T("int64", (2, 3))],
     {}, 18),
    ("ScatterElements", [T("float32", (2, 3)), T("int64", (2, 3)), T("float32", (2, 3))],
     {"reduction": "add"}, 13),
    ("ScatterElements", [T("float32", (2, 3)), T("int64", (2, 3)), T("float32", (2, 3))],
     {"reduction": "max"}, 16),
    ("ScatterND", [T("float32", (2, 3)), T("int64", (2, 1)), T("float32", (2, 4))], {}, 18),
    ("ScatterND", [T("float32", (2, 3)), T("int32", (2, 1)), T("float32", (2, 3))], {}, 18),
    ("ScatterND", [T("string", (2, 3)), T("int64", (2, 1)), T("string", (2, 3))],
     {"reduction": "mul"}, 18),
    ("ScatterND", [T("complex64", (2, 3)), T("int64", (2, 1)), T("complex64", (2, 3))],
     {"reduction": "max"}, 18),
    ("TensorScatter", [T("float32", (2, 5, 3)), T("float32", (2, 2, 3)), None], {}, 18),
    ("TensorScatter", [T("float32", (2, 5, 3)), T("float32", (2, 2, 4)), None], {}, 24),
    ("TensorScatter", [T("float32", (2, 5, 3)), T("float32", (2, 6, 3)), None], {}, 24),
    ("TensorScatter", [T("float32", (2, 5, 3)), T("float32", (2, 2, 3)), T("int64", (3,))],
     {}, 24),
    ("TensorScatter", [T("float32", (2, 5, 3)), T("float32", (2, 2, 3)), T("int32", (2,))],
     {}, 24),  # write_indices int64 only
    ("TensorScatter", [T("float32", (2, 5, 3)), T("float32", (2, 5, 3)), None],
     {"axis": 0}, 24),  # the batch axis
    ("TensorScatter", [T("float32", (2, 5, 3)), T("float32", (2, 2, 3)), None],
     {"mode": "ring"}, 24),
    ("Scatter", [T("bfloat16", (2, 3)), T("int64", (2, 3)), T("bfloat16", (2, 3))], {}, 10),
    ("GatherElements", [T("bfloat16", (2, 3)), T("int64", (2, 3))], {}, 12),
    ("Gather", [T("float8e4m3fn", (2, 3)), T("int64", (2,))], {}, 24),  # TensorScatter only
    ("Gather", [T("float32", (2, 3)), T("uint64", (2,))], {}, 18),
    ("Gather", [T("float32", (2, 3)), T("int64", (2,))], {"axes": 0}, 18),
    ("NoSuchOp", [T("float32", (2, 3)), T("int64", (2,))], {}, 18),
]


@pytest.mark.parametrize("op, types, attrs, opset", INFER_ERRORS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(INFER_ERRORS)])
def test_infer_types_errors(op, types, attrs, opset):
    with pytest.raises(ops.OpError) as exc:
        ops.infer_types(op, types, attrs, opset=opset)
    assert str(exc.value)


def test_infer_types_accepts_what_opsets_allow():
    assert ops.infer_types("Gather", [T("bfloat16", (2, 3)), T("int32", ())], {"axis": 1},
                           opset=13) == (T("bfloat16", (2,)),)
    assert ops.infer_types("Scatter", [T("string", (2, 3)), T("int64", (1, 3)),
                                       T("string", (1, 3))], {}, opset=9) == (
        T("string", (2, 3)),)
    assert ops.infer_types("GatherND", [T("int8", (2, 3, 4)), T("int64", (2, 7, 1))],
                           {"batch_dims": 1}, opset=12) == (T("int8", (2, 7, 4)),)
    assert ops.infer_types("ScatterElements", [T("float32", (2, 3)), T("int64", (2, 3)),
                                               T("float32", (2, 3))], {"reduction": "min"},
                           opset=18) == (T("float32", (2, 3)),)
    assert ops.infer_types("GatherElements", [T("bfloat16", (2, 3)), T("int32", (2, 3))],
                           {}, opset=13) == (T("bfloat16", (2, 3)),)
    assert ops.infer_types("TensorScatter", [T("float8e4m3fn", (2, 5, 3)),
                                             T("float8e4m3fn", (2, 2, 3)), T("int64", (2,))],
                           {"mode": "circular"}, opset=24) == (T("float8e4m3fn", (2, 5, 3)),)
    # attributes omitted take the schema defaults (GatherND batch_dims 0 at opset 11)
    assert ops.infer_types("GatherND", [T("float32", (2, 3, 4)), T("int64", (5, 2))], {},
                           opset=11) == (T("float32", (5, 4)),)


# ---------------------------------------------------------------------------------------------
# index maps against the reference

MAP_PARAMS = [("Gather", None), ("GatherElements", None), ("GatherND", None), ("Scatter", None),
              ("ScatterElements", "none"), ("ScatterND", "add"), ("TensorScatter", None)]


@pytest.mark.parametrize("op, reduction", MAP_PARAMS)
def test_index_map_matches_reference(op, reduction):
    @SETTINGS
    @given(case=case_strategy(op, "int32", reduction))
    def run(case):
        m = ops.index_map(case.op, case.inputs, case.attrs)
        data = case.inputs[0]
        want_offsets = reference.flat_offsets(case.op, case.inputs, case.attrs)
        gather = case.op.startswith("Gather")
        assert m.kind == ("gather" if gather else "scatter")
        assert tuple(m.target_shape) == data.shape
        assert tuple(m.element_shape) == want_offsets.shape
        assert tuple(m.element_shape) == tuple(m.rows.shape) + tuple(m.block_shape)
        assert m.block == math.prod(m.block_shape)
        assert m.rows.dtype == np.int64 and (m.rows >= 0).all()
        offsets = m.flat_offsets()
        assert offsets.dtype == np.int64
        np.testing.assert_array_equal(offsets, want_offsets)
        # rows index the target viewed as a (-1, block) matrix
        np.testing.assert_array_equal(
            offsets.reshape(-1, m.block) if m.block else offsets.reshape(0, 0),
            (m.rows.reshape(-1, 1) * m.block + np.arange(m.block)) if m.block
            else offsets.reshape(0, 0))
        counts = reference.target_counts(case.op, case.inputs, case.attrs)
        np.testing.assert_array_equal(m.target_counts(), counts)
        # duplicates, brute force
        flat_want = want_offsets.reshape(-1)
        brute = np.array([int((flat_want == t).sum()) > 1 for t in flat_want], dtype=bool)
        np.testing.assert_array_equal(m.duplicate_mask(), brute.reshape(want_offsets.shape))
        assert m.has_duplicates() == bool(brute.any())
        # source positions of a few targets
        for t in sorted(set(flat_want.tolist()))[:3] + [data.size - 1]:
            want_pos = sorted(tuple(int(x) for x in np.unravel_index(i, want_offsets.shape))
                              for i in np.flatnonzero(flat_want == t))
            got_pos = sorted(tuple(int(x) for x in p) for p in m.source_positions(t))
            assert got_pos == want_pos
        # the kernel reads exactly what the map says
        if gather:
            out = ops.run_op(case.op, case.inputs, case.attrs)
            np.testing.assert_array_equal(out.reshape(-1), data.reshape(-1)[offsets.reshape(-1)])

    run()


def test_index_map_hand_example():
    # ScatterND doc example 1: indices [[4], [3], [1], [7]] write offsets 4, 3, 1, 7
    m = ops.index_map("ScatterND", [np.arange(8), np.array([[4], [3], [1], [7]]),
                                    np.zeros(4, np.int64)])
    np.testing.assert_array_equal(m.flat_offsets(), [4, 3, 1, 7])
    assert not m.has_duplicates()
    # Gather axis 1 on (3, 3) with [[0, 2]]: output (3, 1, 2) reads 0, 2, 3, 5, 6, 8
    m = ops.index_map("Gather", [np.zeros((3, 3)), np.array([[0, 2]])], {"axis": 1})
    np.testing.assert_array_equal(m.flat_offsets().reshape(-1), [0, 2, 3, 5, 6, 8])
    assert m.kind == "gather" and tuple(m.element_shape) == (3, 1, 2)
    # ScatterElements with a duplicate: both updates of column 0 hit row 1
    m = ops.index_map("ScatterElements", [np.zeros((2, 2)), np.array([[1, 0], [1, 1]]),
                                          np.zeros((2, 2))], {"axis": 0})
    np.testing.assert_array_equal(m.duplicate_mask(), [[True, False], [True, False]])
    np.testing.assert_array_equal(m.target_counts(), [[0, 1], [2, 1]])


@pytest.mark.parametrize("op, inputs, attrs", [
    ("Gather", [np.zeros((3, 2)), np.array([2, 0, 1], np.int32)], {"axis": 0}),
    ("Gather", [np.zeros((3, 2)), np.array(1, np.int32)], {"axis": 0}),
    ("Gather", [np.zeros((3, 2)), np.array([[1, 0]], np.int32)], {"axis": 1}),
    ("GatherElements", [np.zeros((3, 2)), np.array([[2, 0]], np.int32)], {"axis": 0}),
    ("Scatter", [np.zeros((3, 2)), np.array([[2, 0]], np.int32), np.ones((1, 2))],
     {"axis": 0}),
    ("ScatterElements", [np.zeros((3, 2)), np.array([[1], [0]], np.int32),
                         np.ones((2, 1))], {"axis": 1}),
])
def test_index_map_rows_are_int64_for_int32_indices(op, inputs, attrs):
    """CONTRACT.md: rows is np.ndarray[int64], whatever the index dtype."""
    m = ops.index_map(op, inputs, attrs)
    assert m.rows.dtype == np.int64
    assert m.flat_offsets().dtype == np.int64
    np.testing.assert_array_equal(m.flat_offsets(), reference.flat_offsets(op, inputs, attrs))
