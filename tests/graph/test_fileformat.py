"""The versioned file format: round trips, sidecar, atomic save, clear errors, migration."""
import json
import os
import re
import sys

import numpy as np
import pytest

import ops
from nodeeditor.graph import Graph
from nodeeditor.graph.engine import Engine
from nodeeditor.graph.fileformat import GraphFileError, load_graph, save_graph, sidecar_path
from nodeeditor.graph.serialize import INLINE_LIMIT, VERSION, graph_from_dict, graph_to_dict, inline_tensor


def sample_graph():
    g = Graph(name="sample", description="for tests", opset=18)
    g.add_literal(np.arange(INLINE_LIMIT + 1, dtype=np.float32).reshape(-1, 1), node_id="big", position=(0, 0))
    g.add_literal(np.array([[3], [0]], np.int64), node_id="rows", position=(0, 120))
    g.add_operator("GatherND", node_id="pick", position=(200, 60))
    g.add_output("picked", node_id="out", position=(400, 60))
    g.add_generator("permutation", {"n": 5, "seed": 2}, node_id="perm")
    g.add_input("tokens", np.array([1, 2], np.int32), node_id="tokens")
    g.add_literal(np.array([0.1, np.nan, -np.inf], np.float32), node_id="special")
    g.connect("big", "output", "pick", "data")
    g.connect("rows", "output", "pick", "indices")
    g.connect("pick", "output", "out", "value")
    return g


def test_save_load_save_gives_identical_files(tmp_path):
    first, second = tmp_path / "a.ifg.json", tmp_path / "b" / "a.ifg.json"
    second.parent.mkdir()
    save_graph(sample_graph(), first)
    save_graph(load_graph(first), second)
    assert first.read_bytes() == second.read_bytes()
    assert sidecar_path(first).read_bytes() == sidecar_path(second).read_bytes()


def test_small_tensors_are_inline_and_readable_large_ones_in_the_sidecar(tmp_path):
    path = tmp_path / "g.ifg.json"
    save_graph(sample_graph(), path)
    doc = json.loads(path.read_text())
    nodes = {n["id"]: n for n in doc["nodes"]}
    assert doc["format"] == "indexflow-graph" and doc["version"] == VERSION
    assert nodes["rows"]["value"] == {"dtype": "int64", "shape": [2, 1], "data": [[3], [0]]}
    assert nodes["special"]["value"]["data"] == [0.1, "nan", "-inf"]
    assert nodes["big"]["value"]["sidecar"] == "g.ifg.npz"
    with np.load(sidecar_path(path)) as archive:
        np.testing.assert_array_equal(archive[nodes["big"]["value"]["key"]],
                                      np.arange(INLINE_LIMIT + 1, dtype=np.float32).reshape(-1, 1))


def test_loaded_graph_keeps_ids_settings_and_gives_identical_results(tmp_path):
    g = sample_graph()
    path = save_graph(g, tmp_path / "g.ifg.json")
    h = load_graph(path)
    assert h.node_ids == g.node_ids
    assert h.settings == g.settings
    assert h.node("pick").position == (200.0, 60.0)
    r1, r2 = Engine(g).run(), Engine(h).run()
    np.testing.assert_array_equal(r1.outputs["picked"], [[3.0], [0.0]])  # data[i] == i, rows 3 and 0
    assert r1.outputs["picked"].dtype == np.float32
    np.testing.assert_array_equal(r1.outputs["picked"], r2.outputs["picked"])


def test_stale_sidecar_is_removed_when_no_longer_needed(tmp_path):
    g = sample_graph()
    path = save_graph(g, tmp_path / "g.ifg.json")
    g.remove_node("big")
    save_graph(g, path)
    assert not sidecar_path(path).exists()
    assert load_graph(path).node_ids == g.node_ids


def test_save_is_atomic_a_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "g.ifg.json"
    save_graph(Graph(name="old"), path)
    before = path.read_bytes()

    def crash(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(GraphFileError, match="No space left"):
        save_graph(Graph(name="new"), path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["g.ifg.json"]  # no temporary left behind


def write(tmp_path, doc, name="bad.ifg.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return path


def good_doc():
    return graph_to_dict(graph_from_dict(graph_to_dict(sample_graph(), ["rows", "pick", "out"])))


@pytest.mark.parametrize("mutate,expected", [
    (lambda d: "{ not json", "not valid JSON (line 1"),
    (lambda d: {**d, "format": "something-else"}, "not an IndexFlow graph"),
    (lambda d: [1, 2], "not an IndexFlow graph"),
    (lambda d: {**d, "version": VERSION + 1}, f"newer IndexFlow (format version {VERSION + 1})"),
    (lambda d: {**d, "version": -3}, "unknown format version -3"),
    (lambda d: {**d, "version": "1"}, "version must be an integer"),
    (lambda d: {**d, "nodes": d["nodes"] + [{"id": "x", "kind": "teapot"}]}, "node 'x' has unknown kind 'teapot'"),
    (lambda d: {**d, "nodes": d["nodes"] + [{"id": "x", "kind": "op", "op": "Conv", "attributes": {}}]},
     "unknown operator 'Conv'"),
    (lambda d: {**d, "edges": d["edges"] + [{"from": ["rows", "output"], "to": ["pick", "updates"]}]},
     "has no input 'updates'"),
    (lambda d: {**d, "edges": d["edges"] + [{"from": ["ghost", "output"], "to": ["pick", "data"]}]},
     "there is no node 'ghost'"),
    (lambda d: {**d, "nodes": [{**d["nodes"][0], "value": {"dtype": "int64", "shape": [2, 2], "data": [[3], [0]]}}]
                + d["nodes"][1:]}, "has 1 entries where the shape says 2"),
    (lambda d: {**d, "nodes": [{**d["nodes"][0], "value": {"dtype": "int64", "shape": [3], "base64": "AAAAAAAAAAA="}}]
                + d["nodes"][1:]}, "has 8 bytes but dtype int64 and shape [3] need 24"),
    (lambda d: {**d, "nodes": [{**d["nodes"][0], "value": {"dtype": "int64", "shape": [1], "data": [1.5]}}]
                + d["nodes"][1:]}, "expected an integer"),
    (lambda d: {**d, "nodes": [{**d["nodes"][0], "value": {"dtype": "float99", "shape": [1], "data": [1]}}]
                + d["nodes"][1:]}, "unknown dtype 'float99'"),
    (lambda d: {**d, "nodes": d["nodes"] + d["nodes"][:1]}, "two nodes have the id 'rows'"),
    # opened silently, ran as the newest opset and showed as 24 in the property panel
    (lambda d: {**d, "settings": {**d["settings"], "opset": 1_000_000}}, "opset 1000000 is not an ONNX opset"),
    # a finite number that the dtype cannot hold would silently become inf (or NaN for float8)
    (lambda d: {**d, "nodes": [{**d["nodes"][0], "value": {"dtype": "float16", "shape": [2], "data": [1.0, 1e6]}}]
                + d["nodes"][1:]}, "tensor value 1000000.0 (element 1) is too large for float16"),
    (lambda d: {**d, "nodes": [{**d["nodes"][0], "value": {"dtype": "float32", "shape": [1], "data": [1e300]}}]
                + d["nodes"][1:]}, "tensor value 1e+300 (element 0) is too large for float32"),
])
def test_bad_files_raise_a_clear_error_naming_the_file(tmp_path, mutate, expected):
    path = write(tmp_path, mutate(good_doc()))
    with pytest.raises(GraphFileError) as info:
        load_graph(path)
    message = str(info.value)
    assert message.startswith(str(path) + ": ")
    assert expected in message


def test_missing_file_and_missing_sidecar(tmp_path):
    with pytest.raises(GraphFileError, match="file not found"):
        load_graph(tmp_path / "nope.ifg.json")
    path = save_graph(sample_graph(), tmp_path / "g.ifg.json")
    sidecar_path(path).unlink()
    with pytest.raises(GraphFileError, match="sidecar file .*g.ifg.npz is missing"):
        load_graph(path)


def test_sidecar_array_with_wrong_shape_is_refused(tmp_path):
    path = save_graph(sample_graph(), tmp_path / "g.ifg.json")
    np.savez(sidecar_path(path), **{"big.value": np.zeros((2, 2), np.float32)})
    with pytest.raises(GraphFileError, match=r"has shape \[2, 2\], the file says \[4097, 1\]"):
        load_graph(path)


def test_version_0_file_migrates(tmp_path):
    """A hand-made file in the prototype's version-0 layout."""
    v0 = {
        "format": "indexflow-graph",
        "version": 0,
        "name": "old gather",
        "opset": 13,
        "nodes": {
            "d": {"type": "literal", "label": "data", "pos": [0, 0],
                  "value": {"dtype": "float32", "shape": [3, 2], "values": [1.0, 1.2, 2.3, 3.4, 4.5, 5.7]}},
            "i": {"type": "literal", "pos": [0, 100],
                  "value": {"dtype": "int64", "shape": [2, 2], "values": [0, 1, 1, 2]}},
            "g": {"type": "op", "op": "Gather", "attrs": {"axis": 0}, "pos": [200, 50]},
            "o": {"type": "output", "label": "output", "pos": [400, 50]},
        },
        "links": [["d", "output", "g", "data"], ["i", "output", "g", "indices"], ["g", "output", "o", "value"]],
    }
    g = load_graph(write(tmp_path, v0, "old.ifg.json"))
    assert g.settings == {"name": "old gather", "description": "", "opset": 13}
    assert g.node("d").name == "data" and g.node("g").attributes == {"axis": 0}
    # Gather-11 axis 0 worked example (seed page Gather-11)
    out = Engine(g).run().outputs["output"]
    np.testing.assert_allclose(out, [[[1.0, 1.2], [2.3, 3.4]], [[2.3, 3.4], [4.5, 5.7]]], rtol=1e-6)
    # and it saves as the current version
    path = save_graph(g, tmp_path / "new.ifg.json")
    assert json.loads(path.read_text())["version"] == VERSION


def test_a_current_file_labelled_version_0_says_its_layout_is_not_version_0s(tmp_path):
    """It said "malformed document (AttributeError(\"'list' object has no attribute
    'items'\"))": Python's words, not the file's problem."""
    doc = good_doc()
    doc["version"] = 0
    with pytest.raises(GraphFileError) as info:
        load_graph(write(tmp_path, doc))
    message = str(info.value)
    assert "says format version 0, but its contents do not have that version's layout" in message
    assert "Error" not in message and "'items'" not in message


def test_nothing_half_loaded_on_error(tmp_path):
    doc = good_doc()
    doc["edges"].append({"from": ["rows", "output"], "to": ["nope", "data"]})
    seen = []
    import nodeeditor.graph.document as document

    original = document.Graph.__init__

    def spy(self, *a, **k):
        original(self, *a, **k)
        seen.append(self)

    document.Graph.__init__ = spy
    try:
        with pytest.raises(GraphFileError):
            load_graph(write(tmp_path, doc))
    finally:
        document.Graph.__init__ = original
    assert len(seen) == 1  # the graph under construction was never handed out


@pytest.mark.parametrize("arr", [
    np.array([[1.5, -0.0], [1e-30, 3.4028235e38]], np.float32),
    np.array([1 + 2j, np.nan], np.complex128),
    np.array(7, np.int8),
    np.array([], np.float64).reshape(0, 3),
    np.array([2**64 - 1], np.uint64),
    np.arange(INLINE_LIMIT + 10, dtype=np.int16),
])
def test_tensor_encoding_round_trips_exactly(arr):
    from nodeeditor.graph.serialize import decode_tensor

    spec = json.loads(json.dumps(inline_tensor(arr)))
    back = decode_tensor(spec)
    assert back.dtype == arr.dtype and back.shape == arr.shape
    np.testing.assert_array_equal(back, arr)
    assert ("base64" in spec) == (arr.size > INLINE_LIMIT)


def _sample(name):
    import ops

    if name == "string":
        return np.array([["a", "bc"], ["", "é"]], dtype=object)
    if name == "bool":
        return np.array([[True, False], [False, True]])
    values = np.array([[0, 1], [2, 3]])
    return values.astype(ops.dtype_of(name))


def _all_dtypes():
    import ops

    return list(ops.DTYPE_NAMES) + list(getattr(ops, "SMALL_DTYPE_NAMES", ()))


@pytest.mark.parametrize("name", _all_dtypes())
def test_every_dtype_survives_a_file_round_trip(tmp_path, name):
    import ops

    arr = _sample(name)
    big = np.resize(arr, (INLINE_LIMIT + 2,)) if name != "string" else arr
    g = Graph()
    g.add_literal(arr, node_id="small")
    g.add_literal(big, node_id="big")
    h = load_graph(save_graph(g, tmp_path / "g.ifg.json"))
    for node_id, expected in (("small", arr), ("big", big)):
        got = h.node(node_id).value
        assert ops.dtype_name(got) == name and got.shape == expected.shape
        assert np.array_equal(got.astype(object) if name == "string" else got.view(np.uint8),
                              expected.astype(object) if name == "string" else expected.view(np.uint8))


# A NaN's sign bit is data (np.signbit, copysign, and every indexing op copies it through);
# inline tensors used to write any NaN as "nan", so a small tensor lost it on save while a
# large one (sidecar / base64: raw bytes) kept it. Expected bits: IEEE 754 quiet NaN, sign
# bit set for the negative one: float16 0x7e00 / 0xfe00, bfloat16 0x7fc0 / 0xffc0,
# float32 0x7fc00000 / 0xffc00000, float64 0x7ff8000000000000 / 0xfff8000000000000.
NAN_BITS = {
    "float16": (0x7E00, 0xFE00), "bfloat16": (0x7FC0, 0xFFC0),
    "float32": (0x7FC00000, 0xFFC00000), "float64": (0x7FF8000000000000, 0xFFF8000000000000),
}


def _from_bits(name, bits):
    import ops
    dtype = ops.dtype_of(name)
    return np.array(bits, dtype=f"u{dtype.itemsize}").view(dtype)


@pytest.mark.parametrize("name", sorted(NAN_BITS))
def test_the_sign_of_a_nan_survives_save_and_load_bit_exactly(tmp_path, name):
    pos, neg = NAN_BITS[name]
    one = {"float16": 0x3C00, "bfloat16": 0x3F80, "float32": 0x3F800000, "float64": 0x3FF0000000000000}[name]
    bits = [neg, pos, one, neg]
    g = Graph()
    g.add_literal(_from_bits(name, bits), node_id="v")
    path = save_graph(g, tmp_path / "g.ifg.json")
    doc = json.loads(path.read_text())
    assert doc["nodes"][0]["value"]["data"] == ["-nan", "nan", 1.0, "-nan"]
    back = load_graph(path).node("v").value
    assert back.dtype == _from_bits(name, bits).dtype
    assert back.view(f"u{back.dtype.itemsize}").tolist() == bits


@pytest.mark.parametrize("dtype, part_bits", [("complex64", "u4"), ("complex128", "u8")])
def test_the_sign_of_a_nan_survives_in_complex_parts(tmp_path, dtype, part_bits):
    part = "float32" if dtype == "complex64" else "float64"
    pos, neg = NAN_BITS[part]
    g = Graph()
    g.add_literal(np.array([neg, pos, pos, neg], dtype=part_bits).view(dtype), node_id="v")
    path = save_graph(g, tmp_path / "g.ifg.json")
    assert json.loads(path.read_text())["nodes"][0]["value"]["data"] == [["-nan", "nan"], ["nan", "-nan"]]
    back = load_graph(path).node("v").value
    assert back.view(part_bits).tolist() == [neg, pos, pos, neg]


def test_files_from_before_negative_nans_still_read():
    # version 1 files only ever held "nan"; they read as the positive quiet NaN, as before
    text = json.dumps({"format": "indexflow-graph", "version": 1, "settings": {"name": "old"},
                       "nodes": [{"id": "v", "kind": "literal", "name": "v", "position": [0, 0],
                                  "value": {"dtype": "float32", "shape": [2], "data": ["nan", "-inf"]}}],
                       "edges": []})
    from nodeeditor.graph.fileformat import loads_graph
    value = loads_graph(text).node("v").value
    assert value.view("u4").tolist() == [0x7FC00000, 0xFF800000]


def test_nans_of_formats_with_one_nan_are_still_written_nan(tmp_path):
    # float8e4m3fnuz / float8e5m2fnuz have a single NaN (0x80, the bits of -0): no sign to keep,
    # so it stays "nan" and older IndexFlow versions read the file as before
    import ops
    for name in ("float8e4m3fnuz", "float8e5m2fnuz"):
        if name not in ops.SMALL_DTYPE_NAMES:
            continue
        g = Graph()
        g.add_literal(np.array([0x80], np.uint8).view(ops.dtype_of(name)), node_id="v")
        path = save_graph(g, tmp_path / f"{name}.ifg.json")
        assert json.loads(path.read_text())["nodes"][0]["value"]["data"] == ["nan"]
        assert load_graph(path).node("v").value.view(np.uint8).tolist() == [0x80]


NOT_UTF8 = os.fsdecode(b"n\xffme")  # a Linux file name that is not UTF-8, as Python sees it


def gather_graph_with_sidecar(rows=100, name="big"):
    """data = arange(rows*50) as float32 [rows, 50] (in the sidecar from 100 rows); Gather
    rows [1, 0] -> output 'out'."""
    g = Graph(name=name)
    d = g.add_literal(np.arange(rows * 50, dtype=np.float32).reshape(rows, 50), name="data", node_id="data")
    i = g.add_literal(np.array([1, 0], dtype=np.int64), name="idx", node_id="idx")
    op = g.add_operator("Gather", {"axis": 0}, name="g", node_id="g")
    o = g.add_output("out", node_id="out")
    g.connect(d, "output", op, "data")
    g.connect(i, "output", op, "indices")
    g.connect(op, "output", o, "value")
    return g


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes only on Linux")
def test_a_graph_with_a_sidecar_saves_under_a_non_utf8_name(tmp_path):
    # The sidecar's name (derived from the file name) goes into the JSON; encoding it used to
    # raise UnicodeEncodeError out of save_graph.
    path = tmp_path / f"{NOT_UTF8}.ifg.json"
    save_graph(gather_graph_with_sidecar(), path)
    assert sidecar_path(path).is_file()
    loaded = load_graph(path)
    np.testing.assert_array_equal(loaded.node("data").value, np.arange(5000, dtype=np.float32).reshape(100, 50))
    first = path.read_bytes()
    save_graph(loaded, path)
    assert path.read_bytes() == first  # saving a loaded file again gives identical bytes


def test_a_graph_saved_as_npz_keeps_its_sidecar_apart(tmp_path):
    # x.npz with_suffix('.npz') is x.npz itself: the JSON replaced its own sidecar and the
    # file could not be opened again.
    path = save_graph(gather_graph_with_sidecar(), tmp_path / "graph.npz")
    assert sidecar_path(path) != path
    np.testing.assert_array_equal(load_graph(path).node("data").value,
                                  np.arange(5000, dtype=np.float32).reshape(100, 50))


def _values(name):
    """Five values of ``name`` covering its edges: extremes, zero, signed zero, NaN, inf."""
    if name == "string":
        return np.array(["a", "", "\u00fc\u00e9 \u4e2d", "x\ny\t\"q\"", "\\u0041"], dtype=object)
    if name == "bool":
        return np.array([True, False, True, False, True])
    if name in ("int4", "uint4"):
        return np.array([-8, -1, 0, 3, 7] if name == "int4" else [0, 1, 2, 14, 15]).astype(ops.dtype_of(name))
    dtype = np.dtype(ops.dtype_of(name))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.array([info.min, info.max, 0, 1, info.max - 1], dtype=dtype)
    if dtype.kind == "c":
        return np.array([1 + 2j, -0.0 - 1e-30j, complex(np.inf, 1), complex(np.nan, 0), 1 / 3 + 0.1j], dtype=dtype)
    return np.array([np.inf, 1e-3, -0.0, 1 / 3, np.nan]).astype(dtype)


ALL_DTYPES = sorted(set(ops.DTYPE_NAMES) | set(getattr(ops, "SMALL_DTYPE_NAMES", ())))


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    if a.dtype == object:
        assert list(a.flat) == list(b.flat)
    else:
        assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


@pytest.mark.parametrize("big", [False, True], ids=["inline", "sidecar"])
@pytest.mark.parametrize("name", ALL_DTYPES)
def test_every_dtype_saves_and_loads_exactly(tmp_path, name, big):
    value = _values(name)
    if big:
        value = np.tile(value, 1000)  # 5000 elements: the sidecar (strings stay inline)
    g = Graph(name=name)
    g.add_literal(value, node_id="v")
    g.add_output("out", node_id="out")
    g.connect("v", "output", "out", "value")
    path = save_graph(g, tmp_path / "t.ifg.json")
    loaded = load_graph(path)
    _same_bits(value, loaded.node("v").value)
    first = path.read_bytes()
    save_graph(loaded, path)
    assert path.read_bytes() == first


def test_strings_with_lone_surrogates_save_and_load(tmp_path):
    # A string from a non-UTF-8 file name: save_graph raised UnicodeEncodeError.
    value = np.array([NOT_UTF8, "a\ud800b", "plain"], dtype=object)
    g = Graph(name=f"graph {NOT_UTF8}")
    g.add_literal(value, node_id="v", name=f"node {NOT_UTF8}")
    path = save_graph(g, tmp_path / "s.ifg.json")
    loaded = load_graph(path)
    assert list(loaded.node("v").value) == list(value)
    assert loaded.node("v").name == f"node {NOT_UTF8}" and loaded.name == f"graph {NOT_UTF8}"
    path.read_bytes().decode("utf-8")  # the file itself is valid UTF-8


def test_zero_size_and_scalar_tensors_round_trip(tmp_path):
    g = Graph()
    for node_id, value in {"e": np.zeros((0, 3), np.float32), "s": np.array(2.5), "t": np.array("x", dtype=object),
                           "es": np.empty((2, 0), dtype=object)}.items():
        g.add_literal(value, node_id=node_id)
    loaded = load_graph(save_graph(g, tmp_path / "z.ifg.json"))
    assert loaded.node("e").value.shape == (0, 3) and loaded.node("e").value.dtype == np.float32
    assert loaded.node("s").value.shape == () and loaded.node("s").value.item() == 2.5
    assert loaded.node("t").value.shape == () and loaded.node("t").value.item() == "x"
    assert loaded.node("es").value.shape == (2, 0) and loaded.node("es").value.dtype == object


@pytest.mark.parametrize(("dtype", "data", "named"), [
    ("int64", [1, 10 ** 30], "tensor value 1000000000000000000000000000000 (element 1) does not fit int64"),
    ("uint8", [300, 0], "tensor value 300 (element 0) does not fit uint8 (0 to 255)"),
    ("int8", [0, -129], "tensor value -129 (element 1) does not fit int8 (-128 to 127)"),
])
def test_an_integer_literal_out_of_its_dtypes_range_is_named_in_the_message(tmp_path, dtype, data, named):
    """A literal whose integer does not fit its dtype: the load names the node, the value and
    the range (it said "malformed document (OverflowError: Python int too large to convert to
    C long)")."""
    doc = {"format": "indexflow-graph", "version": 3, "settings": {"name": "g", "opset": 18},
           "nodes": [{"id": "labels", "kind": "literal", "name": "labels", "position": [0, 0],
                      "value": {"dtype": dtype, "shape": [2], "data": data}}], "edges": []}
    path = tmp_path / "g.ifg.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(GraphFileError, match=re.escape(f"node 'labels': {named}")):
        load_graph(path)


@pytest.mark.parametrize("dtype, bits", [("float32", [0x7FC00001, 0x7F800001, 0xFFC00000]),
                                         ("float64", [0x7FF8000000000001, 0x7FF0000000000001]),
                                         ("float16", [0x7E01, 0x7C01]),
                                         ("complex64", [0x7FC00001, 0x3F800000])])
def test_small_tensors_keep_every_nan_bit_for_bit(tmp_path, dtype, bits):
    """A NaN with a payload, or a signalling one, in a tensor small enough to be written as
    text came back as the quiet NaN (a sidecar kept the bits); the quiet NaN stays text."""
    ints = {2: np.uint16, 4: np.uint32, 8: np.uint64}
    part = np.dtype(dtype) if np.dtype(dtype).kind == "f" else np.dtype(np.float32)
    raw = np.array(bits, dtype=ints[part.itemsize]).view(part)
    value = raw.view(dtype) if np.dtype(dtype).kind == "c" else raw
    g = Graph("nans")
    g.add_literal(value, node_id="v")
    g.add_literal(np.array([np.nan, 1.0], dtype), node_id="quiet")
    path = tmp_path / "g.ifg.json"
    save_graph(g, path)
    back = load_graph(path)
    assert back.node("v").value.tobytes() == value.tobytes()
    assert '"data"' in json.dumps(json.loads(path.read_text())["nodes"][1])   # the quiet NaN: readable text
