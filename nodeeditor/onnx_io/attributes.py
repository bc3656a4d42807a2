"""ONNX ``AttributeProto`` <-> the graph layer's :class:`ForeignAttribute`, both ways exactly.

- ``int``, ``float``, ``string`` (and their lists) become Python values; a string that is not
  UTF-8 is decoded with ``surrogateescape``, so its bytes come back unchanged.
- a ``tensor`` becomes a read-only numpy array (strings as str); one numpy cannot hold (data
  stored outside the model, an unknown element type) stays serialized (:class:`Opaque`).
- ``graph``, ``sparse_tensor`` and ``type_proto`` values stay serialized (:class:`Opaque`), with
  a short summary for display (``graph 'body': 4 nodes, inputs i, cond``).
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import AttributeProto, helper, numpy_helper

from nodeeditor.graph.foreign import AttrKind, ForeignAttribute, Opaque

_KIND_OF = {getattr(AttributeProto, kind.name): kind for kind in AttrKind}
_TYPE_OF = {kind: code for code, kind in _KIND_OF.items()}


def attribute_kind(attr: AttributeProto) -> AttrKind:
    """The kind of an ONNX attribute (ValueError for an undefined type)."""
    try:
        return _KIND_OF[attr.type]
    except KeyError:
        raise ValueError(f"attribute {attr.name!r} has no type") from None


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _raw(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def _graph_summary(g: onnx.GraphProto) -> str:
    inputs = ", ".join(i.name for i in g.input)
    return f"graph {g.name!r}: {len(g.node)} node{'s' if len(g.node) != 1 else ''}" + \
        (f", inputs {inputs}" if inputs else "")


def _tensor_value(t: onnx.TensorProto) -> np.ndarray | Opaque:
    if t.data_location == onnx.TensorProto.EXTERNAL:
        return Opaque(t.SerializeToString(), f"tensor {t.name!r} stored outside the model")
    try:
        arr = numpy_helper.to_array(t)
    except Exception:  # noqa: BLE001 - an element type numpy cannot hold, or bytes that are not UTF-8
        name = onnx.TensorProto.DataType.Name(t.data_type) if t.data_type in onnx.TensorProto.DataType.values() \
            else str(t.data_type)
        return Opaque(t.SerializeToString(), f"{name.lower()}[{', '.join(map(str, t.dims))}] tensor")
    if arr.dtype.kind in "US":
        arr = arr.astype(object)
    arr = np.array(arr, copy=True)
    arr.setflags(write=False)
    return arr


def _one(kind: AttrKind, value) -> object:
    if kind is AttrKind.STRING:
        return _text(value)
    if kind is AttrKind.TENSOR:
        return _tensor_value(value)
    if kind is AttrKind.GRAPH:
        return Opaque(value.SerializeToString(), _graph_summary(value))
    if kind is AttrKind.SPARSE_TENSOR:
        return Opaque(value.SerializeToString(), f"sparse tensor [{', '.join(map(str, value.dims))}]")
    if kind is AttrKind.TYPE_PROTO:
        return Opaque(value.SerializeToString(), "type " + helper.printable_type(value))
    if kind is AttrKind.INT:
        return int(value)
    if kind is AttrKind.FLOAT:
        return float(value)
    raise AssertionError(kind)  # pragma: no cover


_FIELD = {AttrKind.FLOAT: "f", AttrKind.INT: "i", AttrKind.STRING: "s", AttrKind.TENSOR: "t", AttrKind.GRAPH: "g",
          AttrKind.SPARSE_TENSOR: "sparse_tensor", AttrKind.TYPE_PROTO: "tp",
          AttrKind.FLOATS: "floats", AttrKind.INTS: "ints", AttrKind.STRINGS: "strings",
          AttrKind.TENSORS: "tensors", AttrKind.GRAPHS: "graphs", AttrKind.SPARSE_TENSORS: "sparse_tensors",
          AttrKind.TYPE_PROTOS: "type_protos"}


def from_onnx(attr: AttributeProto) -> ForeignAttribute:
    """The attribute as plain data (see the module docstring)."""
    kind = attribute_kind(attr)
    raw = getattr(attr, _FIELD[kind])
    names: tuple[str, ...] = ()
    if kind is AttrKind.TENSOR and raw.name:
        names = (raw.name,)
    elif kind is AttrKind.TENSORS and any(t.name for t in raw):
        names = tuple(t.name for t in raw)
    if kind.is_list:
        return ForeignAttribute(kind, tuple(_one(kind.element, v) for v in raw), names)
    return ForeignAttribute(kind, _one(kind, raw), names)


def tensor_proto(value: np.ndarray | Opaque, name: str = "") -> onnx.TensorProto:
    """A TensorProto of an array (strings written byte for byte, see ``surrogateescape``) or
    the stored bytes of an :class:`Opaque` tensor."""
    if isinstance(value, Opaque):
        t = onnx.TensorProto()
        t.ParseFromString(value.data)
        if name:
            t.name = name
        return t
    arr = np.asarray(value)
    if arr.dtype == object:
        return helper.make_tensor(name, onnx.TensorProto.STRING, list(arr.shape), [_raw(str(s)) for s in arr.flat])
    return numpy_helper.from_array(arr, name)


def _proto(cls, data: bytes):
    out = cls()
    out.ParseFromString(data)
    return out


def to_onnx(name: str, attr: ForeignAttribute) -> AttributeProto:
    """The ONNX attribute ``name`` holding ``attr`` (the inverse of :func:`from_onnx`)."""
    out = AttributeProto(name=name, type=_TYPE_OF[attr.kind])
    kind, value = attr.kind, attr.value
    if kind is AttrKind.INT:
        out.i = value
    elif kind is AttrKind.FLOAT:
        out.f = value
    elif kind is AttrKind.STRING:
        out.s = _raw(value)
    elif kind is AttrKind.TENSOR:
        out.t.CopyFrom(tensor_proto(value, attr.tensor_names[0] if attr.tensor_names else ""))
    elif kind is AttrKind.GRAPH:
        out.g.CopyFrom(_proto(onnx.GraphProto, value.data))
    elif kind is AttrKind.SPARSE_TENSOR:
        out.sparse_tensor.CopyFrom(_proto(onnx.SparseTensorProto, value.data))
    elif kind is AttrKind.TYPE_PROTO:
        out.tp.CopyFrom(_proto(onnx.TypeProto, value.data))
    elif kind is AttrKind.INTS:
        out.ints.extend(value)
    elif kind is AttrKind.FLOATS:
        out.floats.extend(value)
    elif kind is AttrKind.STRINGS:
        out.strings.extend(_raw(v) for v in value)
    elif kind is AttrKind.TENSORS:
        names = attr.tensor_names or ("",) * len(value)
        out.tensors.extend(tensor_proto(v, n) for v, n in zip(value, names, strict=True))
    elif kind is AttrKind.GRAPHS:
        out.graphs.extend(_proto(onnx.GraphProto, v.data) for v in value)
    elif kind is AttrKind.SPARSE_TENSORS:
        out.sparse_tensors.extend(_proto(onnx.SparseTensorProto, v.data) for v in value)
    elif kind is AttrKind.TYPE_PROTOS:
        out.type_protos.extend(_proto(onnx.TypeProto, v.data) for v in value)
    return out


def graph_attributes(attrs) -> list[onnx.GraphProto]:
    """Every graph held by the attributes (``If`` branches, ``Loop``/``Scan`` bodies), parsed."""
    out = []
    for attr in attrs.values():
        if attr.kind is AttrKind.GRAPH:
            out.append(_proto(onnx.GraphProto, attr.value.data))
        elif attr.kind is AttrKind.GRAPHS:
            out.extend(_proto(onnx.GraphProto, v.data) for v in attr.value)
    return out


def outer_names(graph: onnx.GraphProto) -> list[str]:
    """The names a graph (and the graphs nested in it) reads without defining them: the values it
    takes from the enclosing graph, in the order first read."""
    defined = {i.name for i in graph.input} | {t.name for t in graph.initializer} | \
        {t.values.name for t in graph.sparse_initializer}
    out: dict[str, None] = {}
    for node in graph.node:
        for name in node.input:
            if name and name not in defined:
                out.setdefault(name, None)
        for attr in node.attribute:
            subs = [attr.g] if attr.type == AttributeProto.GRAPH else \
                list(attr.graphs) if attr.type == AttributeProto.GRAPHS else []
            for sub in subs:
                for name in outer_names(sub):
                    if name not in defined:
                        out.setdefault(name, None)
        defined.update(o for o in node.output if o)
    return list(out)
