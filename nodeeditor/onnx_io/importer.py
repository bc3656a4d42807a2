"""ONNX model -> editable graph: every valid model imports.

Contract of :func:`import_model`:

- Accepts a path, serialized bytes or a ``ModelProto``. Every node imports, in the model's
  order: the seven indexing ops (default domain) as first-class operator nodes run by
  ``ops``; every other op, of any domain (``com.microsoft`` included, and calls of the
  model's own functions), as a foreign node (:class:`~nodeeditor.graph.nodes.ForeignNode`)
  holding its op type, domain, attributes of every kind (``If``/``Loop``/``Scan`` bodies as
  serialized graphs; the enclosing-graph values they read become extra inputs), its inputs
  and its outputs exactly as in the model.
- Names are kept exactly (any string the ONNX IR allows): graph inputs, outputs and nodes
  keep their model names, and the tensors an indexing op writes theirs
  (``OperatorNode.tensor_names``, as a foreign node's); an IndexFlow export's display names
  (``names.DISPLAY_NAMES_KEY``) are put back. A graph output listed twice is one output node.
- Graph inputs become graph-input nodes. Their declared shape is kept with its named and
  unknown dimensions (``InputSource.shape``); the example value is the one an IndexFlow
  export carried in the metadata when it fits that shape (it may differ in a named
  dimension), else zeros with named or unknown dimensions 1 (rank unknown: ``[1]``). A
  sequence or optional input keeps its ONNX type (``InputSource.onnx_type``); its example
  is an empty sequence or an empty optional.
- Initializers become literal sources (a sparse initializer as the dense tensor it stands
  for), except, when the model was read from a file,
  those of more than ``lazy_elements`` elements: they stay in the model and are read on
  demand (:class:`~nodeeditor.graph.nodes.ModelTensorSource`, the path relative to
  ``graph_folder`` when given). External data is read from the model's own folder only; a
  ``location`` that is absolute or leaves it is refused. An initializer the model also lists
  as a graph input (IR version 4 on: an input with a default; before 4 every initializer was
  listed) is ``overridable``, and takes the input's place in the node order.
- The opset of every domain, the model's metadata, local functions and model fields are
  kept in ``Graph.model_info``; each graph output becomes an output node of the same name.
  Node positions come from the layered layout.
- Refusals are :class:`OnnxImportError`, one line naming the model and the node, tensor or
  value: a file that is not a model (empty, a folder, an IndexFlow graph, bytes protobuf
  cannot parse, over 2 GB), a default-domain opset below 1, an indexing op with too few
  inputs, too many outputs or an attribute of the wrong type or bytes that are not UTF-8, a
  foreign node missing inputs or outputs its op needs, an initializer or input of an
  element type IndexFlow does not hold, a negative dimension or a tensor over the size cap
  (``INDEXFLOW_MAX_SOURCE_MB``), string tensors or names that are not UTF-8, a graph input
  that is not a tensor, a sequence or an optional, a node reading a name nothing produces,
  and a tensor name with two producers (single static assignment; a graph input listed twice).
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

import ops
from nodeeditor.graph import Graph
from nodeeditor.graph import nodes as N
from nodeeditor.graph.base import MAX_GRAPH_OPSET
from nodeeditor.graph.foreign import ForeignOpError, Opaque
from nodeeditor.graph.layout import layered_positions
from nodeeditor.graph.model_info import DEFAULT_DOMAINS, ModelInfo
from ops.limits import SizeLimitError, check_size

from .attributes import from_onnx, outer_names
from .errors import OnnxImportError
from .examples_meta import PREFIX, decode_example
from .foreign_ops import Ports, ports_for, schema
from .foreign_runtime import read_tensor
from .model_files import attribute_tensors
from .names import DISPLAY_NAMES_KEY, decode_display_names
from .types import dtype_name_of_elem, shape_of

MAX_PROTO_BYTES = 2 * 1024 ** 3
#: Initializers with more elements than this stay in a model read from a file.
LAZY_ELEMENTS = 4096
#: metadata_props keys IndexFlow writes itself (not kept in ModelInfo: an export writes them anew)
_OWN_KEYS = (DISPLAY_NAMES_KEY,)


def import_model(source: os.PathLike | str | bytes | onnx.ModelProto, name: str | None = None, *,
                 graph_folder: os.PathLike | str | None = None, lazy_elements: int = LAZY_ELEMENTS) -> Graph:
    """An editable :class:`Graph` for the model (see the module contract); OnnxImportError otherwise."""
    model, where, path = _load(source)
    return _Importer(model, where, path, Path(graph_folder) if graph_folder is not None else None,
                     lazy_elements).graph(name)


def is_indexing_node(node: onnx.NodeProto) -> bool:
    """Whether the node is one of the seven indexing ops (default domain), run by ``ops``."""
    return node.domain in DEFAULT_DOMAINS and node.op_type in ops.OP_NAMES


# ---------------------------------------------------------------------------------- loading
def _load(source) -> tuple[onnx.ModelProto, str, Path | None]:
    if isinstance(source, onnx.ModelProto):
        return source, "the model", None
    if isinstance(source, (bytes, bytearray)):
        try:
            return onnx.load_model_from_string(bytes(source)), "the model", None
        except Exception as exc:  # noqa: BLE001 - protobuf raises DecodeError and friends
            raise OnnxImportError(f"the bytes are not an ONNX model: {_first_line(exc)}") from None
    path = Path(source)
    try:
        if path.is_dir():
            raise OnnxImportError(f"{path}: is a folder, not an ONNX model file")
        if not path.exists():
            raise FileNotFoundError
        if not path.is_file():
            raise OnnxImportError(f"{path}: is not a regular file")
        size = path.stat().st_size
        with open(path, "rb"):
            pass
    except FileNotFoundError:
        raise OnnxImportError(f"{path}: no such file") from None
    except OSError as exc:
        raise OnnxImportError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if size > MAX_PROTO_BYTES:
        raise OnnxImportError(f"{path}: the file is {size / 1024 ** 3:.1f} GB; a model file over 2 GB cannot be "
                              "read (save its weights as external data beside it)")
    if size == 0:
        raise OnnxImportError(f"{path}: the file is empty, not an ONNX model")
    if path.name.endswith(".ifg.json"):
        raise OnnxImportError(f"{path}: this is an IndexFlow graph file, not an ONNX model; "
                              "run it or export it as it is")
    try:
        model = onnx.load(str(path), load_external_data=False)
    except Exception as exc:  # noqa: BLE001 - protobuf raises many kinds
        raise OnnxImportError(f"{path}: not a readable ONNX model ({type(exc).__name__}: {_first_line(exc)})") \
            from None
    if not model.HasField("graph") and not model.opset_import:
        raise OnnxImportError(f"{path}: not an ONNX model (it holds no graph and no opset)")
    _read_in_attribute_tensors(model, path)
    return model, str(path), path


def _read_in_attribute_tensors(model: onnx.ModelProto, path: Path) -> None:
    """Tensors in node attributes (a Constant's value, the initializers of If, Loop and Scan
    bodies) that keep their data in a file beside the model are read in now, from the model's
    own folder (:func:`.foreign_runtime.read_tensor`): the bodies go to onnxruntime as
    attributes, with no folder to read from. The main graph's initializers stay where they are
    (read lazily, or at once when small)."""
    nodes = list(model.graph.node) + [node for function in model.functions for node in function.node]
    for node in nodes:
        for tensor in attribute_tensors(node):
            if tensor.data_location == onnx.TensorProto.EXTERNAL:
                try:
                    value = read_tensor(tensor, path.parent, str(path))
                except ForeignOpError as exc:
                    raise OnnxImportError(str(exc)) from None
                tensor.CopyFrom(numpy_helper.from_array(value, tensor.name))


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# ---------------------------------------------------------------------------------- checks
def _supported_text() -> str:
    return ", ".join(ops.dtypes.HELD_DTYPE_NAMES)


def _dtype_of(elem: int, what: str, where: str) -> str:
    """Our dtype name for an ONNX element type; OnnxImportError naming ``what``, the type and
    the types IndexFlow holds for one it does not (INT2, FLOAT6E2M3, ...)."""
    try:
        return dtype_name_of_elem(elem)
    except (ValueError, KeyError, TypeError) as exc:
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


def _texts(model: onnx.ModelProto):
    """(what, value) for every name and text field the importer reads."""
    g = model.graph
    for what in ("producer_name", "producer_version", "domain", "doc_string"):
        yield f"the model's {what.replace('_', ' ')}", getattr(model, what)
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
    for f in model.functions:
        yield "a function's name", f.name
        yield "a function's domain", f.domain


def _require_text(model: onnx.ModelProto, where: str) -> None:
    """OnnxImportError when a name or text field is not UTF-8 (protobuf then hands out bytes)."""
    for what, value in _texts(model):
        if not isinstance(value, str):
            raise OnnxImportError(f"{where}: {what} holds bytes that are not UTF-8 text; ONNX names are UTF-8")


# ---------------------------------------------------------------------------------- converting
class _Importer:
    """One import: the model, where it came from, and the graph being built."""

    def __init__(self, model: onnx.ModelProto, where: str, path: Path | None, graph_folder: Path | None,
                 lazy_elements: int) -> None:
        _require_text(model, where)   # before any name or metadata key is read
        self.model, self.where, self.path = model, where, path
        self.graph_folder = graph_folder
        self.lazy_elements = lazy_elements
        self.producer: dict[str, tuple[str, str]] = {}   # tensor name -> (node id, port)
        self.producer_label: dict[str, str] = {}         # tensor name -> how messages name its producer
        props = {p.key: p.value for p in model.metadata_props}
        self.carried = {k[len(PREFIX):]: v for k, v in props.items() if k.startswith(PREFIX)}
        self.shown = decode_display_names(props.get(DISPLAY_NAMES_KEY))
        self.functions = list(model.functions)
        # per (op type, domain, opset[, arity]): a model repeats a few kinds of node thousands of times
        self._schemas: dict[tuple, onnx.defs.OpSchema | None] = {}
        self._ports: dict[tuple, Ports] = {}

    # -------------------------------------------------------------- the whole model
    def graph(self, name: str | None) -> Graph:
        model, where = self.model, self.where
        g = model.graph
        opsets: dict[str, int] = {}
        for o in model.opset_import:
            domain = "" if o.domain in DEFAULT_DOMAINS else o.domain
            opsets.setdefault(domain, int(o.version))
        default = opsets.pop("", None)
        if default is not None and default < 1:
            raise OnnxImportError(f"{where}: the model imports opset version {default} of the default ONNX domain; "
                                  "opset versions are 1 or more")
        if default is not None and default > MAX_GRAPH_OPSET:
            raise OnnxImportError(f"{where}: the model imports opset version {default} of the default ONNX domain, "
                                  f"which is no ONNX opset (IndexFlow takes 1 to {MAX_GRAPH_OPSET})")
        bad = [(d, v) for d, v in opsets.items() if v < 1]
        if bad:
            raise OnnxImportError(f"{where}: the model imports opset version {bad[0][1]} of domain {bad[0][0]!r}; "
                                  "opset versions are 1 or more")
        self.opsets = {"": default or 1, **opsets}
        graph = Graph(name=name or g.name or "imported", opset=default or 1, description=g.doc_string)
        dense = list(g.initializer) + [self._dense(s) for s in g.sparse_initializer]
        self._sparse = {s.values.name for s in g.sparse_initializer}   # read here, so never lazily from the file
        initializers: dict[str, onnx.TensorProto] = {}
        for t in dense:
            if t.name in initializers:
                raise OnnxImportError(f"{where}: initializer {t.name!r} is listed twice")
            initializers[t.name] = t
        # Before IR version 4 every initializer had to be listed as an input too; a later
        # model lists one to make it an overridable default, kept in the inputs' order.
        defaults = {i.name for i in g.input} & set(initializers) if model.ir_version >= 4 else set()
        info = ModelInfo(
            opsets=tuple(opsets.items()),
            metadata=tuple((p.key, p.value) for p in model.metadata_props
                           if p.key not in _OWN_KEYS and not p.key.startswith(PREFIX)),
            functions=tuple(Opaque(f.SerializeToString(), f"function {f.domain}::{f.name}") for f in self.functions),
            outputs=tuple((o.name, Opaque(o.type.SerializeToString(), helper.printable_type(o.type)))
                          for o in g.output if o.HasField("type")),
            inputs=tuple((i.name, Opaque(i.type.SerializeToString(), helper.printable_type(i.type)))
                         for i in g.input if i.name in defaults and i.HasField("type")),
            ir_version=int(model.ir_version), producer_name=model.producer_name,
            producer_version=model.producer_version, domain=model.domain, model_version=int(model.model_version),
            doc_string=model.doc_string)
        with graph.batch():
            graph.set_model_info(info)
            for tensor in dense:
                if tensor.name not in defaults:
                    self._initializer(graph, tensor, overridable=False)
            for inp in g.input:
                if inp.name in defaults:
                    if inp.name not in initializers:
                        raise OnnxImportError(f"{where}: graph input {inp.name!r} is listed twice")
                    self._initializer(graph, initializers.pop(inp.name), overridable=True)
                elif inp.name not in initializers:
                    self._input(graph, inp)
            for i, node in enumerate(g.node):
                label = f"{node.name or f'node #{i}'} ({node.op_type})"
                if is_indexing_node(node):
                    self._operator(graph, node, label)
                else:
                    self._foreign(graph, node, label)
            for out in _unique_names(g.output):
                if out.name not in self.producer:
                    raise OnnxImportError(f"{where}: graph output {out.name!r} is produced by no node")
                src, src_port = self.producer[out.name]
                nid = graph.add_node(N.OutputNode(id=_id(graph, out.name, "output"),
                                                  name=self.shown.get(out.name, out.name)))
                graph.connect(src, src_port, nid, N.OUTPUT_PORT, force=True)
        for node_id, pos in layered_positions(graph).items():
            graph.set_position(node_id, pos)
        return graph

    # -------------------------------------------------------------- sources
    def _initializer(self, graph: Graph, tensor: onnx.TensorProto, overridable: bool) -> None:
        where = self.where
        what = f"tensor {tensor.name!r}"
        dtype = _dtype_of(tensor.data_type, what, where)
        shape = tuple(int(d) for d in tensor.dims)
        display = self.shown.get(tensor.name, tensor.name)
        node_id = _id(graph, tensor.name, "literal")
        if self.path is not None and math.prod(shape) > self.lazy_elements and dtype != "string" \
                and tensor.name not in self._sparse:
            if any(d < 0 for d in shape):
                _checked_shape(shape, what, where, dtype)
            value = self._read(tensor, what, dtype, shape)
            model_path = self.path.resolve()
            if self.graph_folder is not None:
                model_path = Path(os.path.relpath(model_path, self.graph_folder.resolve()))
            node: N.Node = N.ModelTensorSource(id=node_id, name=display, path=str(model_path), tensor=tensor.name,
                                               dtype=dtype, shape=shape, nbytes=int(value.nbytes),
                                               checksum=N.tensor_checksum(value), overridable=overridable)
        else:
            shape = _checked_shape(shape, what, where, dtype)
            node = N.LiteralSource(id=node_id, name=display, overridable=overridable,
                                   value=N.frozen_array(self._read(tensor, what, dtype, shape)))
        self._produce(tensor.name, graph.add_node(node), N.SOURCE_PORT, what)

    def _dense(self, sparse: onnx.SparseTensorProto) -> onnx.TensorProto:
        """A sparse initializer as the dense tensor it stands for (zeros but at its indices:
        flat positions, or one row of coordinates per value); OnnxImportError for indices that
        do not fit its shape."""
        name = sparse.values.name
        what = f"sparse initializer {name!r}"
        dtype = _dtype_of(sparse.values.data_type, what, self.where)
        shape = _checked_shape(sparse.dims, what, self.where, dtype)
        values = self._read(sparse.values, what, dtype, tuple(int(d) for d in sparse.values.dims))
        indices = np.asarray(numpy_helper.to_array(sparse.indices), dtype=np.int64)
        out = np.zeros(math.prod(shape), dtype=values.dtype) if dtype != "string" else np.full(math.prod(shape), "",
                                                                                               dtype=object)
        try:
            flat = indices.reshape(-1) if indices.ndim == 1 else np.ravel_multi_index(tuple(indices.T), shape)
            if flat.size and flat.min() < 0:
                raise ValueError(f"index {int(flat.min())} is negative")
            out[flat] = values.reshape(-1)
        except (ValueError, IndexError) as exc:
            raise OnnxImportError(f"{self.where}: {what}: its indices do not fit shape {list(shape)} ({exc})") from None
        return numpy_helper.from_array(out.reshape(shape), name)

    def _read(self, tensor: onnx.TensorProto, what: str, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
        where = self.where
        if dtype == "string":
            if tensor.data_location == onnx.TensorProto.EXTERNAL:
                raise OnnxImportError(f"{where}: {what} is a string tensor stored as external data, which ONNX "
                                      "does not allow")
            if len(tensor.string_data) != math.prod(shape):
                raise OnnxImportError(f"{where}: {what} holds {len(tensor.string_data)} strings; its shape "
                                      f"{list(shape)} needs {math.prod(shape)}")
            texts = [_utf8(raw, what, where) for raw in tensor.string_data]
            out = np.empty(len(texts), dtype=object)
            out[:] = texts
            return out.reshape(shape)
        try:
            value = read_tensor(tensor, self.path.parent if self.path is not None else None, where)
        except ForeignOpError as exc:
            raise OnnxImportError(str(exc)) from None
        if tuple(value.shape) != shape:
            raise OnnxImportError(f"{where}: {what} holds {value.size} values; its shape {list(shape)} needs "
                                  f"{math.prod(shape)}")
        return value

    def _input(self, graph: Graph, inp: onnx.ValueInfoProto) -> None:
        where = self.where
        what = f"input {inp.name!r}"
        kind = inp.type.WhichOneof("value")
        if kind in ("sequence_type", "optional_type"):
            onnx_type = Opaque(inp.type.SerializeToString(), helper.printable_type(inp.type))
            example = () if kind == "sequence_type" else None
            node = N.InputSource(id=_id(graph, inp.name, "input"), name=self.shown.get(inp.name, inp.name),
                                 example=example, onnx_type=onnx_type)
            self._produce(inp.name, graph.add_node(node), N.SOURCE_PORT, what)
            return
        if kind != "tensor_type":
            raise OnnxImportError(f"{where}: {what} is a {(kind or 'value of no type').replace('_type', '')}, not a "
                                  "tensor, a sequence or an optional; IndexFlow does not hold it")
        dtype = _dtype_of(inp.type.tensor_type.elem_type, what, where)
        declared = shape_of(inp.type)
        if declared is not None:
            bad = next((i for i, d in enumerate(declared) if isinstance(d, int) and d < 0), None)
            if bad is not None:
                raise OnnxImportError(f"{where}: {what} has dimension {bad} = {declared[bad]}; "
                                      "dimensions are 0 or more")
        example_shape = _checked_shape([d if isinstance(d, int) else 1 for d in declared] if declared is not None
                                       else [1], what, where, dtype)
        example = (np.full(example_shape, "", dtype=object) if dtype == "string"
                   else np.zeros(example_shape, dtype=ops.dtype_of(dtype)))
        stored = decode_example(self.carried[inp.name]) if inp.name in self.carried else None
        if stored is not None and ops.dtype_name(stored) == ops.dtype_name(example) and (
                stored.shape == example.shape or declared is not None and _fits(declared, stored.shape)):
            example = stored
        shape = declared   # the model's contract: a run may feed other values, not other sizes
        node = N.InputSource(id=_id(graph, inp.name, "input"), name=self.shown.get(inp.name, inp.name),
                             example=N.frozen_array(example), shape=shape)
        self._produce(inp.name, graph.add_node(node), N.SOURCE_PORT, what)

    # -------------------------------------------------------------- nodes
    def _produce(self, tensor: str, node_id: str, port: str, what: str) -> None:
        """Record ``tensor`` as the output ``port`` of ``node_id``; OnnxImportError when something
        produced it already (a model is in single static assignment form: one producer per name)."""
        if tensor in self.producer:
            first = self.producer_label[tensor]
            if first == what:
                raise OnnxImportError(f"{self.where}: {what} is listed twice")
            raise OnnxImportError(f"{self.where}: tensor {tensor!r} has two producers, {first} and {what}; a model "
                                  "gives each tensor name one producer (single static assignment)")
        self.producer[tensor] = (node_id, port)
        self.producer_label[tensor] = what

    def _reads(self, node: onnx.NodeProto, label: str, names) -> None:
        for tensor in names:
            if tensor and tensor not in self.producer:
                raise OnnxImportError(f"{self.where}: {label} reads {tensor!r}, which nothing produces before it")

    def _operator(self, graph: Graph, node: onnx.NodeProto, label: str) -> None:
        where = self.where
        schema_ = ops.get_schema(node.op_type)
        ports = [p.name for p in schema_.inputs]
        need = sum(not p.optional for p in schema_.inputs)
        given = [t for t in node.input[:need] if t]
        if len(given) < need:
            raise OnnxImportError(f"{where}: {label} has {len(given)} input(s); {node.op_type} needs {need} "
                                  f"input{'s' if need != 1 else ''} ({', '.join(ports[:need])})")
        if len(node.input) > len(ports):
            raise OnnxImportError(f"{where}: {label} has {len(node.input)} inputs; {node.op_type} takes {len(ports)}")
        defined = [p.name for p in schema_.outputs]
        if len(node.output) > len(defined):
            raise OnnxImportError(f"{where}: {label} has {len(node.output)} outputs; {node.op_type} defines "
                                  f"{len(defined)} ({', '.join(defined)})")
        if not node.output or not node.output[0]:
            raise OnnxImportError(f"{where}: {label} has no output; {node.op_type} needs 1 output")
        self._reads(node, label, node.input)
        attrs = _attributes(node, schema_, where, label)
        op_node = N.OperatorNode(id=_id(graph, node.name, node.op_type.lower()),
                                 name=self.shown.get(node.name, node.name) if node.name else "",
                                 op=node.op_type, attributes=attrs,
                                 tensor_names=tuple(node.output) + ("",) * (len(defined) - len(node.output)))
        nid = graph.add_node(op_node)
        for port, tensor in zip(ports, node.input, strict=False):  # optional inputs may be omitted
            if tensor:
                src, src_port = self.producer[tensor]
                graph.connect(src, src_port, nid, port, force=True)
        for port, tensor in zip(defined, node.output, strict=False):
            if tensor:
                self._produce(tensor, nid, port, label)

    def _foreign(self, graph: Graph, node: onnx.NodeProto, label: str) -> None:
        where = self.where
        domain = "" if node.domain in DEFAULT_DOMAINS else node.domain
        opset = self.opsets.get(domain, 1)
        kind = (node.op_type, domain, opset)
        if kind not in self._schemas:
            self._schemas[kind] = schema(*kind)
        s = self._schemas[kind]
        if s is not None:
            need_in = sum(1 for p in s.inputs if p.option == onnx.defs.OpSchema.FormalParameterOption.Single)
            given = sum(1 for t in node.input[:need_in] if t)
            if given < need_in:
                names = ", ".join(p.name for p in s.inputs[:need_in])
                raise OnnxImportError(f"{where}: {label} has {given} input(s); {node.op_type} needs {need_in} "
                                      f"input{'s' if need_in != 1 else ''} ({names})")
            if s.min_output > 0 and not any(node.output):
                raise OnnxImportError(f"{where}: {label} has no output; {node.op_type} needs "
                                      f"{s.min_output} output{'s' if s.min_output != 1 else ''}")
            if len(node.output) > s.max_output:
                names = ", ".join(p.name for p in s.outputs)
                raise OnnxImportError(f"{where}: {label} has {len(node.output)} outputs; {node.op_type} defines "
                                      f"{s.max_output} ({names})")
            if len(node.input) > s.max_input:
                raise OnnxImportError(f"{where}: {label} has {len(node.input)} inputs; {node.op_type} takes at most "
                                      f"{s.max_input}")
        self._reads(node, label, node.input)
        _require_utf8_tensors(node, label, where)
        attributes = {}
        for attr in node.attribute:
            try:
                attributes[attr.name] = from_onnx(attr)
            except ValueError as exc:
                raise OnnxImportError(f"{where}: {label}: {exc}") from None
        captures: list[str] = []
        for attr in node.attribute:
            subs = [attr.g] if attr.type == onnx.AttributeProto.GRAPH else \
                list(attr.graphs) if attr.type == onnx.AttributeProto.GRAPHS else []
            for sub in subs:
                for outer in outer_names(sub):
                    if outer not in captures:
                        captures.append(outer)
        self._reads(node, f"{label} (in a graph attribute)", captures)
        shape = (*kind, len(node.input), len(node.output))
        ports = self._ports.get(shape)
        if ports is None:
            ports = self._ports[shape] = ports_for(*shape, self.functions)
        inputs = ports.inputs
        optional = set(ports.optional) | {p for p, t in zip(inputs, node.input, strict=False) if not t}
        optional |= set(inputs[len(node.input):])
        tensor_names = tuple(node.output) + ("",) * (len(ports.outputs) - len(node.output))
        foreign_node = N.ForeignNode(
            id=_id(graph, node.name, node.op_type.lower()),
            name=self.shown.get(node.name, node.name) if node.name else "",
            op_type=node.op_type, domain=domain, attributes=attributes, inputs=inputs, outputs=ports.outputs,
            optional=frozenset(optional), captures=tuple(captures), tensor_names=tensor_names)
        nid = graph.add_node(foreign_node)
        for port, tensor in zip(inputs, node.input, strict=False):
            if tensor:
                src, src_port = self.producer[tensor]
                graph.connect(src, src_port, nid, port, force=True)
        for outer in captures:
            src, src_port = self.producer[outer]
            graph.connect(src, src_port, nid, N.capture_port(outer), force=True)
        for port, tensor in zip(ports.outputs, node.output, strict=False):
            if tensor:
                self._produce(tensor, nid, port, label)


def _require_utf8_tensors(node: onnx.NodeProto, label: str, where: str) -> None:
    """String tensors are UTF-8 in ONNX: a tensor attribute, or a Constant's ``value_string(s)``,
    holding other bytes is refused (string attributes of other ops keep their bytes)."""
    for attr in node.attribute:
        what = f"{label} attribute {attr.name!r}"
        if node.op_type == "Constant" and attr.name in ("value_string", "value_strings"):
            for raw in ([attr.s] if attr.type == onnx.AttributeProto.STRING else list(attr.strings)):
                _utf8(raw, what, where)
        tensors = [attr.t] if attr.type == onnx.AttributeProto.TENSOR else \
            list(attr.tensors) if attr.type == onnx.AttributeProto.TENSORS else []
        for t in tensors:
            if t.data_type == onnx.TensorProto.STRING:
                for raw in t.string_data:
                    _utf8(raw, what, where)


def _unique_names(values):
    """``values`` (ValueInfoProtos) without the later ones of a name listed twice: a graph
    output listed twice is one tensor, one output node."""
    seen: set[str] = set()
    for v in values:
        if v.name not in seen:
            seen.add(v.name)
            yield v


def _fits(declared, shape) -> bool:
    return len(declared) == len(shape) and all(not isinstance(d, int) or d == s for d, s in zip(declared, shape,
                                                                                                  strict=True))


def _id(graph: Graph, wanted: str, prefix: str) -> str:
    """``wanted`` as an id if it is a clean identifier not yet used, else a fresh prefixed id."""
    if wanted and wanted.replace("_", "a").isalnum() and wanted.isascii() and not graph.has_node(wanted):
        return wanted
    return graph.new_id(prefix)


#: The ONNX attribute type each schema attribute kind must arrive as.
_ATTRIBUTE_TYPES = {"int": onnx.AttributeProto.INT, "string": onnx.AttributeProto.STRING}


def _attributes(node: onnx.NodeProto, schema_: ops.OpSchema, where: str, label: str) -> dict[str, Any]:
    """An indexing op's attributes as a dict; OnnxImportError (one line naming the node, the op
    and the attribute) for an attribute the op lacks, one whose ONNX type is not the schema's
    (a FLOAT ``axis``, an INT ``reduction``: ONNX never converts between attribute types), or
    a string that is not UTF-8."""
    known = {a.name: a for a in schema_.attributes}
    attrs: dict[str, Any] = {}
    for attr in node.attribute:
        if attr.name not in known:
            raise OnnxImportError(f"{where}: {label} has attribute {attr.name!r}, which "
                                  f"{node.op_type} does not have")
        wanted = _ATTRIBUTE_TYPES[known[attr.name].kind]
        if attr.type != wanted:
            raise OnnxImportError(
                f"{where}: {label} has attribute {attr.name!r} of type "
                f"{onnx.AttributeProto.AttributeType.Name(attr.type)}; {node.op_type} needs type "
                f"{onnx.AttributeProto.AttributeType.Name(wanted)}")
        value = helper.get_attribute_value(attr)
        if isinstance(value, bytes):
            value = _utf8(value, f"{label} attribute {attr.name!r}", where)
        attrs[attr.name] = value
    return attrs
