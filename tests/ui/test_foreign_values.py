"""The text of a foreign attribute and back (the property panel's typed fields): every editable
kind reads back what it shows, floats as the float32 ONNX stores, and a wrong text names the
element that is wrong."""
from __future__ import annotations

import numpy as np
import pytest

from nodeeditor.graph.foreign import AttrKind, ForeignAttribute, Opaque
from nodeeditor.ui.properties.foreign_values import attribute_text, editable, parse_attribute

K = AttrKind


@pytest.mark.parametrize("attr", [
    ForeignAttribute(K.INT, -1), ForeignAttribute(K.INT, 2 ** 40), ForeignAttribute(K.FLOAT, 0.5),
    ForeignAttribute(K.FLOAT, float("inf")), ForeignAttribute(K.STRING, "half_pixel"),
    ForeignAttribute(K.STRING, " spaced "), ForeignAttribute(K.INTS, (0, 1, 3, 2)), ForeignAttribute(K.INTS, ()),
    ForeignAttribute(K.FLOATS, (1.5, -0.25)), ForeignAttribute(K.STRINGS, ("a", "b")),
    ForeignAttribute(K.STRINGS, ("a, b", "", "c")),
])
def test_every_editable_kind_reads_back_what_it_shows(attr):
    assert editable(attr.kind)
    assert parse_attribute(attr.kind, attribute_text(attr)).same(attr)


def test_a_float_shows_the_shortest_text_of_its_float32_and_reads_back_to_the_same_float32():
    stored = float(np.float32(0.01))                     # what an ONNX float attribute holds
    text = attribute_text(ForeignAttribute(K.FLOAT, stored))
    assert text == "0.01"
    assert np.float32(parse_attribute(K.FLOAT, text).value) == np.float32(stored)


def test_lists_take_brackets_or_none_and_whole_floats_as_ints():
    assert parse_attribute(K.INTS, "[1, 2,3]").value == (1, 2, 3)
    assert parse_attribute(K.INTS, "4.0, -1").value == (4, -1)
    assert parse_attribute(K.STRINGS, "['x, y', 'z']").value == ("x, y", "z")


@pytest.mark.parametrize(("kind", "text", "message"), [
    (K.INT, "1.5", "'1.5' is not a whole number"),
    (K.INT, "two", "'two' is not an integer"),
    (K.FLOAT, "abc", "'abc' is not a number"),
    (K.INTS, "1, , 2", "element 2 is empty"),
    (K.FLOATS, "1, x", "element 2: 'x' is not a number"),
    (K.TENSOR, "1", "a tensor attribute cannot be typed in"),
])
def test_a_wrong_text_says_what_is_wrong(kind, text, message):
    with pytest.raises(ValueError, match="^" + message.replace("[", r"\[") + "$"):
        parse_attribute(kind, text)


def test_tensors_and_graphs_are_shown_not_typed():
    tensor = ForeignAttribute(K.TENSOR, np.array([1, 2, 3], np.int64))
    graph = ForeignAttribute(K.GRAPH, Opaque(b"\x00", "graph 'body': 3 nodes"))
    assert not editable(K.TENSOR) and not editable(K.GRAPH)
    assert attribute_text(tensor) == "int64[3] [1, 2, 3]"
    assert attribute_text(graph) == "graph 'body': 3 nodes"
