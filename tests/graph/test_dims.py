"""Named dimensions: a graph input's shape field reads ``batch, 4``, ports show the names, the
graph runs on concrete examples, and two inputs that give one name two sizes are an error
naming both."""
from __future__ import annotations

import numpy as np
import pytest

from nodeeditor.graph import Engine, Graph
from nodeeditor.graph.dims import ShapeTextError, format_shape, parse_shape
from nodeeditor.graph.fileformat import load_graph, save_graph
from nodeeditor.graph.serialize import graph_from_dict, graph_to_dict
from ops import TensorType


@pytest.mark.parametrize("text, shape", [
    ("batch, 4", ("batch", 4)), ("[batch, 4]", ("batch", 4)), ("(2, ?)", (2, None)), ("", ()),
    ("seq len, 3,", ("seq len", 3)), (" 7 ", (7,)),
])
def test_shape_text_reads_sizes_names_and_unknowns(text, shape):
    assert parse_shape(text) == shape
    assert parse_shape(format_shape(shape)) == shape


@pytest.mark.parametrize("text, words", [("2, -1", "negative"), ("2,,3", "empty"), ("a[1], 2", "bracket")])
def test_bad_shape_text_says_which_dimension(text, words):
    with pytest.raises(ShapeTextError, match=words):
        parse_shape(text)


def _gather_graph() -> Graph:
    g = Graph("dims")
    g.add_input("table", np.arange(12, dtype=np.float32).reshape(6, 2), node_id="t")
    g.add_input("ids", np.array([[0, 5, 1]], dtype=np.int64), node_id="i")
    g.add_operator("Gather", {"axis": 0}, node_id="g")
    g.connect("t", "output", "g", "data")
    g.connect("i", "output", "g", "indices")
    g.add_output("rows", node_id="o")
    g.connect("g", "output", "o", "value")
    return g


def test_a_declared_shape_types_the_port_and_the_names_flow_through_an_indexing_op():
    g = _gather_graph()
    g.set_source("i", shape="batch, seq")
    assert g.node_info("i").outputs["output"] == TensorType("int64", ("batch", "seq"))
    assert str(g.node_info("g").type) == "float32[batch, seq, 2]"
    np.testing.assert_array_equal(Engine(g).run().outputs["rows"], [[[0, 1], [10, 11], [2, 3]]])


def test_an_example_that_does_not_fit_its_declared_shape_is_an_error_on_the_input():
    g = _gather_graph()
    g.set_source("i", shape="batch, 4")
    assert "dimension 1 of the example is 3" in g.node_info("i").error


def test_two_inputs_giving_one_name_two_sizes_is_an_error_naming_both():
    g = _gather_graph()
    g.set_source("t", shape="rows, 2")
    g.set_source("i", shape="batch, rows")   # ids' example gives 'rows' = 3, the table 6
    error = g.node_info("i").error
    assert "'rows' is 3 here" in error and "6 in input 'table'" in error and "dimension 1" in error
    assert g.node_info("t").ok
    g.set_source("t", example=np.zeros((3, 2), np.float32))   # fixing the other input fixes this one
    assert g.node_info("i").ok
    assert g.symbol_binding("rows").size == 3


def test_one_name_twice_in_one_input_must_be_one_size():
    g = _gather_graph()
    g.set_source("i", shape="n, n")
    assert "'n' is 3 here" in g.node_info("i").error
    g.set_source("i", example=np.zeros((2, 2), np.int64))
    assert g.node_info("i").ok


def test_the_declared_shape_undoes_and_survives_the_file_format(tmp_path):
    g = _gather_graph()
    old = g.set_source("i", shape="batch, ?")
    assert old == {"shape": None}
    assert g.node("i").shape == ("batch", None)
    assert graph_from_dict(graph_to_dict(g)).node("i").shape == ("batch", None)
    path = tmp_path / "dims.ifg.json"
    save_graph(g, path)
    assert load_graph(path).node("i").shape == ("batch", None)
    g.set_source("i", **old)
    assert g.node("i").shape is None and g.node_info("i").type == TensorType("int64", (1, 3))


def test_a_bad_shape_text_is_refused_naming_the_input():
    g = _gather_graph()
    with pytest.raises(ValueError, match=r"shape of ids \[i\]: dimension 0 is negative"):
        g.set_source("i", shape="-1, 3")
