"""Damaged documents: whatever is changed, loading gives a Graph or a GraphFileError, never
another exception."""
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from nodeeditor.graph import GraphFileError, graph_to_dict, load_example, loads_graph

BASE = graph_to_dict(load_example("segment_sum"))

junk = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10**20) | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)


def paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from paths(value, prefix + (key,))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            yield from paths(value, prefix + (i,))


ALL_PATHS = [p for p in paths(BASE) if p]


def replaced(doc, path, value):
    doc = json.loads(json.dumps(doc))
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL_PATHS), junk)
def test_any_damaged_value_is_a_clear_error_or_a_graph(path, value):
    text = json.dumps(replaced(BASE, path, value))
    try:
        loads_graph(text, "damaged.ifg.json")
    except GraphFileError as exc:
        assert str(exc).startswith("damaged.ifg.json: ")


def test_deeply_nested_json_is_a_clear_error():
    try:
        loads_graph("[" * 100000 + "]" * 100000, "deep.ifg.json")
    except GraphFileError as exc:
        assert "deep.ifg.json" in str(exc)
