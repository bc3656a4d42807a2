"""ONNX's own backend node tests for the indexing ops, run through ``ops.run_op``.

onnx 1.23 no longer ships the data files; ``tests/node_cases.py`` generates the indexing ops'
cases in memory (``case.model`` is the one-node model, ``case.data_sets`` a list of
``(inputs, expected_outputs)`` with inputs in graph-input order).
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest

import ops
from tests import node_cases

PREFIXES = ("test_gather", "test_scatter", "test_tensorscatter")
EXPECTED_COUNT = 29


CASES = {c.name: c for c in node_cases.cases(node_cases.INDEXING_MODULES) if c.name.startswith(PREFIXES)}


def test_all_29_cases_are_found():
    assert len(CASES) == EXPECTED_COUNT, sorted(CASES)
    # every case is a single node of one of our ops, with a data set
    for case in CASES.values():
        assert len(case.model.graph.node) == 1
        assert case.model.graph.node[0].op_type in ops.OP_NAMES
        assert case.data_sets


def _attrs(node) -> dict:
    attrs = {}
    for a in node.attribute:
        v = onnx.helper.get_attribute_value(a)
        attrs[a.name] = v.decode() if isinstance(v, bytes) else v
    return attrs


def _bind_inputs(case, node, inputs):
    """Graph inputs (data-set order) -> the node's inputs in schema order (None if omitted)."""
    by_name = dict(zip([i.name for i in case.model.graph.input], inputs, strict=True))
    return [by_name[name] if name else None for name in node.input]


@pytest.mark.parametrize("name", sorted(CASES))
def test_node_case(name):
    case = CASES[name]
    node = case.model.graph.node[0]
    op_type = node.op_type
    model_attrs = _attrs(node)
    attrs = {**ops.get_schema(op_type).defaults(), **model_attrs}
    for inputs, expected_outputs in case.data_sets:
        args = _bind_inputs(case, node, inputs)
        before = [None if a is None else a.copy() for a in args]
        got = ops.run_op(op_type, args, attrs)
        (expected,) = expected_outputs
        assert isinstance(got, np.ndarray)
        assert got.dtype == expected.dtype
        assert got.shape == expected.shape
        if attrs.get("reduction") in ("add", "mul") and expected.dtype.kind == "f":
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=0)
        else:
            np.testing.assert_array_equal(got, expected)
        for b, a in zip(before, args, strict=True):
            if b is not None:
                np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(CASES))
def test_node_case_without_explicit_defaults(name):
    """run_op fills omitted attributes from the schema itself (as the contract says)."""
    case = CASES[name]
    node = case.model.graph.node[0]
    for inputs, expected_outputs in case.data_sets:
        got = ops.run_op(node.op_type, _bind_inputs(case, node, inputs), _attrs(node))
        np.testing.assert_allclose(got, expected_outputs[0], rtol=1e-6, atol=0)
