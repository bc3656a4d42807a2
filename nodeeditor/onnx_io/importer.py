"""ONNX model -> editable graph.

Contract of :func:`import_model`:

- Accepts a path, serialized bytes or a ``ModelProto`` whose nodes are only the seven indexing
  ops, ``Constant`` and ``Identity`` (default domain). Anything else is refused with the list
  of unsupported op types and the nodes where they stand.
- A node with more outputs than its op defines, or an attribute whose ONNX type is not the
  schema's (a FLOAT ``axis``), is refused in one line naming the node, the op and the problem.
- Initializers and ``Constant`` nodes become literal sources; graph inputs that are not
  initializers become graph-input nodes whose example value is zeros of the declared shape
  (unknown dimensions become 1; an input with no shape at all, rank unknown, gets shape
  ``[1]``, not a scalar: data inputs of every op need rank >= 1); ``Identity`` nodes are
  folded into wires; each graph output becomes an output node of the same name.
- Nodes get the display names an IndexFlow export carried (``names.DISPLAY_NAMES_KEY``),
  else their ONNX names.
- The model's opset is kept as the graph's opset; node positions come from the graph's
  layered layout (``nodeeditor.graph.layout``), wires pointing right.
- External-data models and files over 2 GB are refused with a clear message, as are files
  that are not ONNX models (empty, a folder, an IndexFlow graph, bytes protobuf cannot
  parse); every message is one line naming the file.
"""
from __future__ import annotations

import math
import os
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

import ops
from nodeeditor.graph import Graph
from nodeeditor.graph import nodes as N
from nodeeditor.graph.layout import layered_positions
from ops.limits import SizeLimitError, check_size

from .errors import OnnxImportError
from .examples_meta import PREFIX, decode_example
from .names import DISPLAY_NAMES_KEY, decode_display_names
from .types import dtype_name_of_elem

SUPPORTED_OPS = frozenset(ops.OP_NAMES) | {"Constant", "Identity"}
MAX_PROTO_BYTES = 2 * 1024 ** 3


def import_model(source: os.PathLike | str | bytes | onnx.ModelProto, name: str | None = None) -> Graph:
    """An editable :class:`Graph` for the model (see the module contract); OnnxImportError otherwise."""
    model, where = _load(source)
    return _to_graph(model, where, name)


# ---------------------------------------------------------------------------------- loading
def _load(source) -> tuple[onnx.ModelProto, str]:
    if isinstance(source, onnx.ModelProto):
        return source, "the model"
    if isinstance(source, (bytes, bytearray)):
        try:
            return onnx.load_model_from_string(bytes(source)), "the model"
        except Exception as exc:  # protobuf raises DecodeError and friends
            raise OnnxImportError(f"the bytes are not an ONNX model: {exc}") from exc
    path = Path(source)
    try:
        if path.is_dir():
            raise OnnxImportError(f"{path}: is a folder, not an ONNX model file")
        size = path.stat().st_size
        with open(path, "rb"):
            pass
    except FileNotFoundError:
        raise OnnxImportError(f"{path}: no such file") from None
    except OSError as exc:
        raise OnnxImportError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if size > MAX_PROTO_BYTES:
        raise OnnxImportError(f"{path}: the file is {size / 1024 ** 3:.1f} GB; models over 2 GB keep their weights "
                              "as external data, which IndexFlow does not import")
    if size == 0:
        raise OnnxImportError(f"{path}: the file is empty, not an ONNX model")
    if path.name.endswith(".ifg.json"):
        raise OnnxImportError(f"{path}: this is an IndexFlow graph file, not an ONNX model; "
                              "run it or export it as it is")
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise OnnxImportError(f"{path}: not a readable ONNX model ({type(exc).__name__}: {first})") from exc
    if not model.HasField("graph") and not model.opset_import:
        raise OnnxImportError(f"{path}: not an ONNX model (it holds no graph and no opset)")
    return model, str(path)


def _external(tensor: onnx.TensorProto) -> bool:
    return tensor.data_location == onnx.TensorProto.EXTERNAL


# ---------------------------------------------------------------------------------- converting
def _texts(model: onnx.ModelProto):
    """(what, value) for every name and text field the importer reads."""
    g = model.graph
    yield "the graph's name", g.name
    yield "the graph's doc string", g.doc_string
    for o in model.opset_import:
        yield "an opset domain", o.domain
    for p in model.metadata_props:
        yield "a metadata key", p.key
        yield f"metadata {p.key!r}", p.value
    for kind, infos in (("input", g.input), ("output", g.output)):
        for v in infos:
            yield f"a graph {kind} name", v.name
    for t in g.initializer:
        yield "an initializer name", t.name
    for i, n in enumerate(g.node):
        label = f"node #{i}"
        yield f"{label}'s name", n.name
        yield f"{label}'s op type", n.op_type
        yield f"{label}'s domain", n.domain
        for field, names in (("input", n.input), ("output", n.output)):
            for value in names:
                yield f"an {field} of {label}", value
        for attr in n.attribute:
            yield f"an attribute name of {label}", attr.name


def _require_text(model: onnx.ModelProto, where: str) -> None:
    """OnnxImportError when a name or text field is not UTF-8 (protobuf then hands out bytes)."""
    for what, value in _texts(model):
        if not isinstance(value, str):
            raise OnnxImportError(f"{where}: {what} holds bytes that are not UTF-8 text; ONNX names are UTF-8")


def _to_graph(model: onnx.ModelProto, where: str, name: str | None) -> Graph:
    _require_text(model, where)
    g = model.graph
    unsupported = [(n.op_type if not n.domain or n.domain == "ai.onnx" else f"{n.domain}::{n.op_type}",
                    n.name or f"node #{i}")
                   for i, n in enumerate(g.node)
                   if n.op_type not in SUPPORTED_OPS or n.domain not in ("", "ai.onnx")]
    if unsupported:
        counts = Counter(op for op, _ in unsupported)
        listing = "; ".join(f"{op} ({counts[op]}x: {', '.join(w for o, w in unsupported if o == op)[:200]})"
                            for op in counts)
        raise OnnxImportError(f"{where}: IndexFlow imports only {', '.join(sorted(SUPPORTED_OPS))}; "
                              f"unsupported: {listing}")
    external = [t.name for t in g.initializer if _external(t)]
    external += [n.name or n.output[0] for n in g.node if n.op_type == "Constant"
                 and any(a.t and _external(a.t) for a in n.attribute)]
    if external:
        raise OnnxImportError(f"{where}: tensors stored as external data are not imported "
                              f"({', '.join(external[:10])}); "
                              "save the model with its data inside (onnx.save(..., save_as_external_data=False))")
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
    if opset is None:
        raise OnnxImportError(f"{where}: the model imports no version of the default ONNX domain")
    if opset < 1:
        raise OnnxImportError(f"{where}: the model imports opset version {opset} of the default ONNX domain; "
                              "opset versions are 1 or more")

    graph = Graph(name=name or g.name or "imported", opset=int(opset), description=g.doc_string)
    producer: dict[str, tuple[str, str]] = {}  # tensor name -> (node id, port)
    pending_edges: list[tuple[str, str, str]] = []  # (tensor, dst node id, dst port)
    initializer_names = {t.name for t in g.initializer}
    carried = {p.key[len(PREFIX):]: p.value for p in model.metadata_props if p.key.startswith(PREFIX)}
    shown = decode_display_names(next((p.value for p in model.metadata_props if p.key == DISPLAY_NAMES_KEY), None))
    for tensor in g.initializer:
        value = _array(tensor, where)
        nid = graph.add_node(N.LiteralSource(id=_id(graph, tensor.name, "literal"),
                                             name=shown.get(tensor.name, tensor.name), value=N.frozen_array(value)))
        producer[tensor.name] = (nid, N.SOURCE_PORT)
    for inp in g.input:
        if inp.name in initializer_names:
            continue
        example = _example_for(inp, where)
        stored = decode_example(carried[inp.name]) if inp.name in carried else None
        if stored is not None and stored.shape == example.shape and stored.dtype == example.dtype:
            example = stored
        nid = graph.add_node(N.InputSource(id=_id(graph, inp.name, "input"), name=shown.get(inp.name, inp.name),
                                           example=N.frozen_array(example)))
        producer[inp.name] = (nid, N.SOURCE_PORT)

    for i, node in enumerate(g.node):
        label = node.name or f"{node.op_type} #{i}"
        defined = ["output"] if node.op_type in ("Identity", "Constant") else \
            [p.name for p in ops.get_schema(node.op_type).outputs]
        if len(node.output) > len(defined):
            raise OnnxImportError(f"{where}: {label} has {len(node.output)} outputs; {node.op_type} defines "
                                  f"{len(defined)} ({', '.join(defined)})")
        _require_arity(node, label, where)
        if node.op_type == "Identity":
            if node.input[0] not in producer:
                raise OnnxImportError(f"{where}: {label} reads {node.input[0]!r}, which nothing produces before it")
            producer[node.output[0]] = producer[node.input[0]]
            continue
        if node.op_type == "Constant":
            value = _constant_value(node, where, label)
            nid = graph.add_node(N.LiteralSource(id=_id(graph, node.output[0], "literal"),
                                                 name=shown.get(node.output[0], node.output[0]),
                                                 value=N.frozen_array(value)))
            producer[node.output[0]] = (nid, N.SOURCE_PORT)
            continue
        schema = ops.get_schema(node.op_type)
        attrs = _attributes(node, schema, where, label)
        op_node = N.OperatorNode(id=_id(graph, node.name or node.op_type, node.op_type.lower()),
                                 name=shown.get(node.name, node.name) if node.name else "",
                                 op=node.op_type, attributes=attrs)
        ports = [p.name for p in schema.inputs]
        if len(node.input) > len(ports):
            raise OnnxImportError(f"{where}: {label} has {len(node.input)} inputs; {node.op_type} takes {len(ports)}")
        for tensor in node.input:
            if tensor and tensor not in producer:
                raise OnnxImportError(f"{where}: {label} reads {tensor!r}, which nothing produces before it")
        nid = graph.add_node(op_node)
        for port, tensor in zip(ports, node.input, strict=False):  # optional inputs may be omitted
            if tensor:
                pending_edges.append((tensor, nid, port))
        out_ports = [p.name for p in schema.outputs]
        for port, tensor in zip(out_ports, node.output, strict=False):  # outputs may be left unnamed
            producer[tensor] = (nid, port)
        for tensor, dst, port in pending_edges:
            src, src_port = producer[tensor]
            graph.connect(src, src_port, dst, port, force=True)
        pending_edges.clear()

    for out in g.output:
        if out.name not in producer:
            raise OnnxImportError(f"{where}: graph output {out.name!r} is produced by no node")
        src, src_port = producer[out.name]
        nid = graph.add_node(N.OutputNode(id=_id(graph, out.name, "output"), name=shown.get(out.name, out.name)))
        graph.connect(src, src_port, nid, N.OUTPUT_PORT, force=True)

    positions = layered_positions(graph)
    for node_id, pos in positions.items():
        graph.set_position(node_id, pos)
    return graph


def _require_arity(node: onnx.NodeProto, label: str, where: str) -> None:
    """OnnxImportError (naming the node, its op and the counts) for a node with fewer inputs
    or outputs than its op needs: Identity without input, Constant without output, ScatterND
    without its updates. An empty name counts as an omitted input."""
    if node.op_type in ("Identity", "Constant"):
        need_in = 1 if node.op_type == "Identity" else 0
        ports = ["input"] if need_in else []
    else:
        schema = ops.get_schema(node.op_type)
        need_in = sum(not p.optional for p in schema.inputs)
        ports = [p.name for p in schema.inputs]
    given = [name for name in node.input[:need_in] if name]
    if len(given) < need_in:
        names = ", ".join(ports[:need_in])
        raise OnnxImportError(f"{where}: {label} has {len(given)} input(s); {node.op_type} needs {need_in} "
                              f"input{'s' if need_in != 1 else ''} ({names})")
    if not node.output or not node.output[0]:
        raise OnnxImportError(f"{where}: {label} has no output; {node.op_type} needs 1 output")


def _id(graph: Graph, wanted: str, prefix: str) -> str:
    """``wanted`` as an id if it is a clean identifier not yet used, else a fresh prefixed id."""
    if wanted and wanted.replace("_", "a").isalnum() and not graph.has_node(wanted):
        return wanted
    return graph.new_id(prefix)


def _supported_text() -> str:
    return ", ".join(ops.DTYPE_NAMES + ops.SMALL_DTYPE_NAMES)


def _dtype_of(elem: int, what: str, where: str) -> str:
    """Our dtype name for an ONNX element type; OnnxImportError naming ``what`` (``tensor 'w'``),
    the type and the types IndexFlow holds for one it does not (INT2, FLOAT6E2M3, ...)."""
    try:
        return dtype_name_of_elem(elem)
    except (ValueError, KeyError, TypeError) as exc:  # OpError is a ValueError
        try:
            type_name = onnx.TensorProto.DataType.Name(elem)
        except ValueError:
            type_name = f"number {elem}"
        raise OnnxImportError(f"{where}: {what} has element type {type_name}, which IndexFlow does not hold; "
                              f"supported: {_supported_text()}") from exc


def _checked_shape(dims, what: str, where: str, dtype: str) -> tuple[int, ...]:
    """``dims`` as a shape: OnnxImportError for a negative dimension, or a tensor larger than
    the size cap (:func:`ops.limits.check_size`), before anything is allocated."""
    shape = tuple(int(d) for d in dims)
    bad = next((i for i, d in enumerate(shape) if d < 0), None)
    if bad is not None:
        raise OnnxImportError(f"{where}: {what} has dimension {bad} = {shape[bad]}; dimensions are 0 or more")
    try:
        check_size(f"{where}: {what}:", shape, dtype)
    except SizeLimitError as exc:
        raise OnnxImportError(str(exc)) from None
    return shape


def _utf8(raw: bytes, what: str, where: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OnnxImportError(f"{where}: {what} holds bytes that are not UTF-8 text (byte {exc.start}); "
                              "ONNX strings are UTF-8") from None


def _array(tensor: onnx.TensorProto, where: str) -> np.ndarray:
    """The tensor as an array: its dtype one IndexFlow holds, its declared shape checked before
    anything is read (:func:`_checked_shape`), string elements UTF-8; OnnxImportError naming the
    tensor otherwise."""
    what = f"tensor {tensor.name!r}"
    dtype = _dtype_of(tensor.data_type, what, where)
    shape = _checked_shape(tensor.dims, what, where, dtype)
    if dtype == "string":
        if len(tensor.string_data) != math.prod(shape):
            raise OnnxImportError(f"{where}: {what} holds {len(tensor.string_data)} strings; its shape "
                                  f"{list(shape)} needs {math.prod(shape)}")
        texts = [_utf8(raw, what, where) for raw in tensor.string_data]
        out = np.empty(len(texts), dtype=object)
        out[:] = texts
        return out.reshape(shape)
    try:
        return numpy_helper.to_array(tensor)
    except Exception as exc:  # noqa: BLE001 - onnx raises many kinds on a damaged tensor
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise OnnxImportError(f"{where}: {what} cannot be read: {first}") from None


def _example_for(value_info: onnx.ValueInfoProto, where: str) -> np.ndarray:
    """Zeros (empty strings) of the input's declared type: unknown dimensions become 1, an
    unknown rank ``[1]``; the shape checked (:func:`_checked_shape`) before allocating."""
    ttype = value_info.type.tensor_type
    what = f"input {value_info.name!r}"
    if not value_info.type.HasField("tensor_type"):
        raise OnnxImportError(f"{where}: {what} is not a tensor")
    dtype = _dtype_of(ttype.elem_type, what, where)
    if ttype.HasField("shape"):
        dims = [d.dim_value if d.HasField("dim_value") else 1 for d in ttype.shape.dim]
    else:  # rank unknown: a vector suits more inputs than a scalar (no op takes scalar data)
        dims = [1]
    shape = _checked_shape(dims, what, where, dtype)
    if dtype == "string":
        return np.full(shape, "", dtype=object)
    return np.zeros(shape, dtype=ops.dtype_of(dtype))


def _constant_value(node: onnx.NodeProto, where: str, label: str) -> np.ndarray:
    if len(node.attribute) != 1:
        raise OnnxImportError(f"{where}: {label} (Constant) must have exactly one value attribute")
    attr = node.attribute[0]
    if attr.name == "value":
        return _array(attr.t, where)
    simple = {"value_float": np.float32, "value_floats": np.float32, "value_int": np.int64, "value_ints": np.int64}
    if attr.name in simple:
        return np.asarray(helper.get_attribute_value(attr), dtype=simple[attr.name])
    if attr.name in ("value_string", "value_strings"):
        raw = helper.get_attribute_value(attr)
        what = f"{label} (Constant) attribute {attr.name!r}"
        text = _utf8(raw, what, where) if isinstance(raw, bytes) else [_utf8(b, what, where) for b in raw]
        return np.asarray(text, dtype=object)
    raise OnnxImportError(f"{where}: {label} (Constant) uses {attr.name}, which IndexFlow does not import")


#: The ONNX attribute type each schema attribute kind must arrive as.
_ATTRIBUTE_TYPES = {"int": onnx.AttributeProto.INT, "string": onnx.AttributeProto.STRING}


def _attributes(node: onnx.NodeProto, schema: ops.OpSchema, where: str, label: str) -> dict[str, Any]:
    """The node's attributes as a dict; OnnxImportError (one line naming the node, the op and the
    attribute) for an attribute the op lacks or one whose ONNX type is not the schema's (a FLOAT
    ``axis``, an INT ``reduction``): ONNX never converts between attribute types."""
    known = {a.name: a for a in schema.attributes}
    attrs: dict[str, Any] = {}
    for attr in node.attribute:
        if attr.name not in known:
            raise OnnxImportError(f"{where}: {label} ({node.op_type}) has attribute {attr.name!r}, which "
                                  f"{node.op_type} does not have")
        wanted = _ATTRIBUTE_TYPES[known[attr.name].kind]
        if attr.type != wanted:
            raise OnnxImportError(
                f"{where}: {label} ({node.op_type}) has attribute {attr.name!r} of type "
                f"{onnx.AttributeProto.AttributeType.Name(attr.type)}; {node.op_type} needs type "
                f"{onnx.AttributeProto.AttributeType.Name(wanted)}")
        value = helper.get_attribute_value(attr)
        if isinstance(value, bytes):
            value = _utf8(value, f"{label} ({node.op_type}) attribute {attr.name!r}", where)
        attrs[attr.name] = value
    return attrs
