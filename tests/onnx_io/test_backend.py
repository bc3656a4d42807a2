"""ONNX's own backend test harness (``onnx.backend.test.BackendTest``), run against IndexFlow's
backend for the gather, scatter and tensorscatter node tests (29 in onnx 1.23, generated in
memory).

The harness normally loads every node-test case (generating all of them) and expands into a
unittest class with a skipped test for every one of its ~4000 other cases; here it is handed
the indexing ops' cases only (``tests/node_cases.py``), only the included CPU items are turned
into pytest cases, and each runs the harness's own test function (which prepares the model
through our backend, runs it, and compares with ONNX's expected outputs).
"""
import re
from unittest import mock

import onnx
import onnx.backend.test
import onnx.backend.test.runner
import pytest

from nodeeditor.onnx_io import backend as indexflow_backend
from tests import node_cases


def _indexing_cases_only(data_dir=None, kind=None):
    return node_cases.cases(node_cases.INDEXING_MODULES) if kind == "node" else []


with mock.patch.object(onnx.backend.test.runner, "load_model_tests", _indexing_cases_only):
    _runner = onnx.backend.test.BackendTest(indexflow_backend, __name__)
_INCLUDED = re.compile(r"^test_(gather|scatter|tensorscatter).*_cpu$")
_runner.include(_INCLUDED.pattern)
_ITEMS = {name: item for items in _runner._filtered_test_items.values() for name, item in items.items()
          if _INCLUDED.match(name)}

EXPECTED_CASES = 29


def test_the_harness_selects_all_29_indexing_cases():
    assert len(_ITEMS) == EXPECTED_CASES, sorted(_ITEMS)


@pytest.mark.parametrize("name", sorted(_ITEMS))
def test_onnx_backend_node_test(name):
    item = _ITEMS[name]
    item.func(None)  # the harness appends the device ("CPU") itself


def test_unknown_device_is_refused():
    assert indexflow_backend.supports_device("CPU")
    assert not indexflow_backend.supports_device("CUDA")
    with pytest.raises(RuntimeError, match="CPU"):
        indexflow_backend.prepare(onnx.ModelProto(), device="CUDA")


def test_run_node_runs_a_single_node():
    import numpy as np
    from onnx import helper

    node = helper.make_node("ScatterND", ["data", "indices", "updates"], ["out"])
    data = np.array([1, 2, 3, 4, 5, 6, 7, 8], dtype=np.float32)
    (out,) = indexflow_backend.run_node(node, [data, np.array([[4], [3], [1], [7]]),
                                              np.array([9, 10, 11, 12], dtype=np.float32)])
    np.testing.assert_array_equal(out, [1, 11, 3, 10, 9, 6, 7, 12])  # ScatterND-13 example 1


def test_a_run_with_missing_inputs_is_refused_not_served_stale_values():
    import numpy as np
    from onnx import helper

    node = helper.make_node("Gather", ["data", "indices"], ["out"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("data", onnx.TensorProto.FLOAT, [3]),
                                            helper.make_tensor_value_info("indices", onnx.TensorProto.INT64, [1])],
                              [helper.make_tensor_value_info("out", onnx.TensorProto.FLOAT, [1])])
    rep = indexflow_backend.prepare(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))
    (out,) = rep.run([np.array([1.0, 2.0, 3.0], np.float32), np.array([2])])
    assert out.tolist() == [3.0]
    with pytest.raises(ValueError, match="2 input"):
        rep.run([np.array([4.0, 5.0, 6.0], np.float32)])
    with pytest.raises(ValueError, match="missing input.*indices"):
        rep.run({"data": np.array([4.0, 5.0, 6.0], np.float32)})
