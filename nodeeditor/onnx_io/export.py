"""Graph -> ONNX model, validated before it is handed out.

Contract of :func:`export_model`:

- Nodes are written in topological order (ties in the graph's node order, so an imported
  model's nodes keep their order); names are kept exactly, only made unique
  (:class:`~.names.NameTable`): graph inputs and outputs keep theirs, an imported operator's
  or foreign node's outputs keep the tensor names they had in the model
  (:func:`~nodeeditor.graph.nodes.kept_tensor_name`), and an output reading a source of its
  own name is that source's tensor itself (no ``Identity``). The names the nodes have in the
  editor, where they differ, travel in ``metadata_props`` (``names.DISPLAY_NAMES_KEY``), so an
  import shows them again.
- Foreign nodes are written verbatim: op type, domain, attributes in their order, inputs (an
  unconnected optional input as an empty name), outputs (an output the model left unnamed and
  nothing reads stays unnamed). A value a graph attribute reads from outside (a capture) is
  the tensor of that name (an ``Identity`` gives it the name when the producer's tensor has
  another). The graph's ``model_info`` is written back: every domain's opset, the metadata,
  local functions, IR version and model fields, and the type each graph output declared
  (where the inferred type fits it). A graph input keeps its declared shape (named and unknown
  dimensions); an initializer kept in its model file is read from it.
- Tensor sources (literal, generator, file, model tensor) become initializers, or graph inputs
  with their shapes when ``sources="inputs"``; an ``overridable`` source is an initializer
  listed as a graph input too (its value the default); graph-input nodes stay inputs; each
  output node becomes a graph output of that name; ``value_info`` carries every inferred
  intermediate type.
- Every graph input's value (a graph-input node's example; with ``sources="inputs"``, each
  source's value) travels in ``metadata_props`` when small (see ``examples_meta``), so an
  import gets the values back, not zeros.
- The opset is the one asked for (default: the graph's). When a node cannot be written at it,
  :class:`ExportError` says which node needs which opset and why, and offers the lowest opset
  that works (``suggested_opset``). ``Scatter`` is written as ``ScatterElements`` from 11 on.
  Foreign nodes are written as they are: one that is another version of its op at the asked
  opset than at the graph's is such a problem (nothing converts it).
- The model passes ``onnx.checker.check_model(full_check=True)`` and strict shape inference
  (an output whose type only a run tells is typed by ONNX shape inference of the whole model,
  else by a run); otherwise ExportError carries the checker's message. Our own inference (``ops``) runs first
  and is stricter (unknown reduction strings, mismatched update shapes).
- A Loss node some node reads is written with standard ops (:mod:`.loss_ops`, opset 13 or
  later); one nothing reads is for training only and is left out (:func:`written_losses`).
  The training switch and loss coefficient change nothing here. The gradient export
  (:mod:`.gradients`) builds on the same steps: :func:`prepare_export`, :func:`build_parts`,
  :func:`assemble`.
- A source whose string tensor has no UTF-8 form (a lone surrogate, from a file name that is
  not UTF-8) is refused by name; an output written as ``Identity`` (it reads a source of
  another name, or its tensor feeds several outputs) needs the opset at which Identity takes
  its dtype.
- A bypassed operator (``OperatorNode.bypassed``) is written as an ``Identity`` of its data
  input (its other inputs stay in the model unused), under the same opset rule.
- Initializers over what one ONNX file holds (2 GB) are refused by :func:`export_model`, before
  any weight is read; :func:`save_model` writes them to a data file beside the model instead
  (ONNX external data, :mod:`.model_files`), as it does for any model when asked.
"""
from __future__ import annotations

import functools
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

import ops
from nodeeditor.graph import Graph
from nodeeditor.graph import nodes as N
from nodeeditor.graph.engine import Engine
from nodeeditor.graph.foreign import AttrKind, ForeignAttribute
from nodeeditor.graph.inference import not_connected_text
from nodeeditor.graph.losses import LossError
from nodeeditor.graph.status import NodeStatus

from . import model_files
from .attributes import tensor_proto, to_onnx
from .errors import ExportError
from .examples_meta import PREFIX, encode_example
from .loss_ops import LOSS_MIN_OPSET, Emitter, loss_forward
from .names import DISPLAY_NAMES_KEY, NameTable, encode_display_names
from .opset_rules import MAX_OPSET, MIN_EXPORT_OPSET, check_at, lowest_opset, onnx_op_type
from .types import elem_type, tensor_type_of, tensor_type_proto, value_info

SOURCES_MODES = ("initializers", "inputs")
PRODUCER = "IndexFlow"


@dataclass
class _Analysis:
    """Types of every port at one opset, and the operator nodes that cannot be written there."""

    types: dict = field(default_factory=dict)       # (node id, port) -> TensorType
    problems: list = field(default_factory=list)    # (node label, lowest opset or None, reason)
    untyped: set = field(default_factory=set)       # (node id, port) whose type only a run tells


def written_losses(graph: Graph) -> frozenset[str]:
    """The Loss nodes a forward export writes: those whose loss some node reads (an output or
    an operator). A loss nothing reads is for training only and is left out."""
    return frozenset(n.id for n in graph.loss_nodes() if graph.consumers(n.id))


def _analyse(graph: Graph, opset: int, losses: frozenset[str] | None = None) -> _Analysis:
    """Infer every port's type at ``opset`` with the export's spelling rules (Scatter written as
    ScatterElements from 11), independent of the graph's own opset. ``losses``: the Loss nodes
    to write (default :func:`written_losses`)."""
    out = _Analysis()
    losses = written_losses(graph) if losses is None else losses
    for node_id in graph.topological_order():
        node = graph.node(node_id)
        if node.is_source:
            out.types[(node_id, N.SOURCE_PORT)] = graph.output_type(node_id)
            continue
        if isinstance(node, N.LossNode) and node_id in losses:
            _analyse_loss(graph, node, opset, out)
            continue
        if isinstance(node, N.ForeignNode):
            _analyse_foreign(graph, node, opset, out)
            continue
        if not isinstance(node, N.OperatorNode):
            continue
        through = N.bypassed_port(node)
        if through is not None:
            edge = graph.edge_into(node_id, through)
            ttype = None if edge is None else out.types.get((edge.src, edge.src_port))
            if ttype is None:
                continue
            out.types[(node_id, node.output_ports()[0])] = ttype
            if not _identity_takes(ttype.dtype, opset):
                need = next((o for o in range(opset + 1, MAX_OPSET + 1) if _identity_takes(ttype.dtype, o)), None)
                out.problems.append((node.label, need, f"it is bypassed, so it is written as an Identity, "
                                                       f"and Identity does not take {ttype.dtype} at opset {opset}"))
            continue
        types = []
        for port in node.input_ports():
            edge = graph.edge_into(node_id, port)
            types.append(None if edge is None else out.types.get((edge.src, edge.src_port)))
        edges = [graph.edge_into(node_id, port) for port in node.input_ports()]
        if any(e is not None and (e.src, e.src_port) in out.untyped for e in edges):
            out.untyped.update((node_id, port) for port in node.output_ports())
            continue  # an input's type is known only after a run: written as it is, untyped
        required = [t for t, port in zip(types, node.input_ports(), strict=True) if port not in node.optional_inputs()]
        if any(t is None for t in required):
            continue  # blocked upstream, or an input left unconnected (a graph error reported elsewhere)
        while types and types[-1] is None:
            types.pop()
        reason = check_at(node.op, types, node.attributes, opset)
        if reason is not None:
            out.problems.append((node.label, lowest_opset(node.op, types, node.attributes).opset, reason))
            continue
        written = onnx_op_type(node.op, node.attributes, opset)
        try:
            (ttype,) = ops.infer_types(written, types, _written_attributes(written, node.attributes, opset), opset)
        except ops.ShapeUnknownError:
            out.untyped.update((node_id, port) for port in node.output_ports())
            continue
        out.types[(node_id, node.output_ports()[0])] = ttype
    for node in graph.output_nodes():
        edge = graph.edge_into(node.id, N.OUTPUT_PORT)
        ttype = None if edge is None else out.types.get((edge.src, edge.src_port))
        if edge is not None and output_is_its_source(graph, node, graph.node(edge.src)):
            continue   # the output is the source's tensor itself (build_parts): no Identity
        if ttype is not None and not _identity_takes(ttype.dtype, opset):
            need = next((o for o in range(opset + 1, MAX_OPSET + 1) if _identity_takes(ttype.dtype, o)), None)
            source = graph.node(edge.src).label
            out.problems.append((node.label, need, f"the output is written as an Identity of {source}, "
                                                   f"and Identity does not take {ttype.dtype} at opset {opset}"))
    return out


def _analyse_foreign(graph: Graph, node: N.ForeignNode, opset: int, out: _Analysis) -> None:
    """A foreign node's types are the graph's (ONNX shape inference at the graph's opsets); its
    own error is a problem no opset fixes. An ONNX op of the default domain whose version at
    ``opset`` is not the one it runs as at the graph's opset is a problem too: IndexFlow writes
    foreign nodes as they are, and Softmax-11 is not Softmax-13."""
    info = graph.node_info(node.id)
    if info.error and not info.blocked:
        out.problems.append((node.label, None, info.error))
        return
    changed = _version_change(node, graph.opset, opset)
    if changed is not None:
        out.problems.append((node.label, *changed))
    if info.blocked and not info.deferred:
        return  # waits for a node with an error, reported there
    for port in node.output_ports():
        if port in info.outputs:
            out.types[(node.id, port)] = info.outputs[port]
        else:
            out.untyped.add((node.id, port))


def _version_change(node: N.ForeignNode, runs_at: int, opset: int) -> tuple[int, str] | None:
    """(the lowest opset that keeps the node's version, why) when ``node``, an op of the default
    domain, would change meaning if written at ``opset`` instead of ``runs_at``. The same
    version is no change; a newer one is none when ONNX's version converter carries the node
    over unchanged (Relu-13 to Relu-14 only adds types); an older one, or a node the converter
    rewrites (Softmax-11 to 13) or cannot carry, is."""
    domain = "" if node.domain == "ai.onnx" else node.domain
    if domain != "" or opset == runs_at:
        return None
    try:
        version = onnx.defs.get_schema(node.op_type, runs_at, domain).since_version
    except onnx.defs.SchemaError:
        return None        # no schema at the graph's opset: an error of its own, reported there
    try:
        there = onnx.defs.get_schema(node.op_type, opset, domain).since_version
    except onnx.defs.SchemaError:
        there = None
    if there == version or there is not None and opset > runs_at and _carried_unchanged(node, runs_at, opset):
        return None
    at = f"is {node.op_type}-{there}" if there is not None else "does not exist"
    return (version, f"at opset {opset} {node.op_type} {at}, not the {node.op_type}-{version} it runs as at the "
                     f"graph's opset {runs_at}, and ONNX does not carry it over unchanged (IndexFlow writes other "
                     f"ONNX ops as they are, so their meaning would change)")


def _carried_unchanged(node: N.ForeignNode, runs_at: int, opset: int) -> bool:
    """Whether ONNX's version converter takes the node alone from ``runs_at`` up to ``opset``
    as the very same node (same op, inputs, outputs and attributes). The node is asked with
    each tensor attribute cut to its first element (a Constant's 16 MB value is not what an
    adapter reads, and would be the cache's key)."""
    proto = helper.make_node(node.op_type, [f"i{k}" for k in range(len(node.input_ports()))],
                             [f"o{k}" for k in range(len(node.output_ports()))])
    proto.attribute.extend(to_onnx(name, _probe(attr)) for name, attr in node.attributes.items())
    return _converter_keeps(proto.SerializeToString(), runs_at, opset)


def _probe(attr: ForeignAttribute) -> ForeignAttribute:
    """``attr`` with each tensor cut to its first element (same dtype)."""
    if attr.kind is AttrKind.TENSOR:
        return ForeignAttribute(attr.kind, np.asarray(attr.value).reshape(-1)[:1])
    if attr.kind is AttrKind.TENSORS:
        return ForeignAttribute(attr.kind, tuple(np.asarray(v).reshape(-1)[:1] for v in attr.value))
    return attr


@functools.lru_cache(maxsize=1024)
def _converter_keeps(node_bytes: bytes, runs_at: int, opset: int) -> bool:
    """:func:`_carried_unchanged` for a serialized one-node ``NodeProto`` (a model's repeated
    layers, and the opsets an offer tries, ask it once)."""
    from onnx import version_converter

    proto = onnx.NodeProto.FromString(node_bytes)
    model = helper.make_model(helper.make_graph([proto], "one", [onnx.ValueInfoProto(name=n) for n in proto.input],
                                                [onnx.ValueInfoProto(name=n) for n in proto.output]),
                              opset_imports=[helper.make_opsetid("", runs_at)])
    try:
        converted = version_converter.convert_version(model, opset)
    except Exception:  # noqa: BLE001 - the converter asserts and raises RuntimeError and friends
        return False
    return len(converted.graph.node) == 1 and converted.graph.node[0] == proto


def _analyse_loss(graph: Graph, node: N.LossNode, opset: int, out: _Analysis) -> None:
    """The loss's type, or a problem when it cannot be written at ``opset``."""
    types = []
    for port in node.input_ports():
        edge = graph.edge_into(node.id, port)
        types.append(None if edge is None else out.types.get((edge.src, edge.src_port)))
    if types[0] is None or (types[1] is None and node.loss.needs_target):
        return  # unconnected or blocked: reported elsewhere
    if opset < LOSS_MIN_OPSET:
        out.problems.append((node.label, LOSS_MIN_OPSET, f"a {node.loss.title} loss is written with ops that take "
                                                         f"their axes as an input, from opset {LOSS_MIN_OPSET}"))
        return
    try:
        out.types[(node.id, N.LOSS_PORT)] = node.loss_output_type(types[0], types[1])
    except LossError:
        return  # the node's own error, reported with the static problems


def _identity_takes(dtype: str, opset: int) -> bool:
    """Whether ONNX ``Identity`` at ``opset`` accepts tensors of ``dtype`` (an output that
    reads a source, or a tensor read by several outputs, is written through one)."""
    schema = onnx.defs.get_schema("Identity", opset, "")
    type_str = f"tensor({onnx.TensorProto.DataType.Name(elem_type(dtype)).lower()})"
    return any(type_str in c.allowed_type_strs for c in schema.type_constraints)


def opset_problems(graph: Graph, opset: int, losses: frozenset[str] | None = None) -> list[tuple[str, int | None, str]]:
    """(node label, lowest opset that works or None, reason) for each operator node (and each
    Loss node written, see :func:`written_losses`) that cannot be written at ``opset``."""
    return _analyse(graph, opset, losses).problems


def lowest_working_opset(graph: Graph, losses: frozenset[str] | None = None, start: int = 1) -> int | None:
    """The lowest opset from ``start`` at which every node can be written (None if there is none)."""
    for opset in range(start, MAX_OPSET + 1):
        if not opset_problems(graph, opset, losses):
            return opset
    return None


def export_model(graph: Graph, opset: int | None = None, sources: str = "initializers") -> onnx.ModelProto:
    """The graph as a checked ONNX model (see the module contract). Raises ExportError."""
    return export_with_feeds(graph, opset, sources)[0]


def export_with_feeds(graph: Graph, opset: int | None = None,
                      sources: str = "initializers") -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """Like :func:`export_model`, plus a feed dict (graph input name -> the value the editor
    uses: a graph input's example, or a source's value in ``sources="inputs"`` mode), so the
    model can be run on exactly what the engine ran."""
    model, feeds, _detached = _export(graph, opset, sources, external_data=False)
    return model, feeds


def _export(graph: Graph, opset: int | None, sources: str, external_data: bool | None
            ) -> tuple[onnx.ModelProto, dict[str, np.ndarray], model_files.Detached | None]:
    """The model, its feeds, and the weights detached from it to be written beside it
    (:func:`.model_files.detach`; with ``external_data``, or when None, when the initializers
    exceed one file; None: the model is written in one file, and validated here; one with
    detached weights is validated once written, :func:`save_model`)."""
    prepared = prepare_export(graph, opset, sources, oversized_ok=external_data is not False)
    parts = build_parts(prepared)
    detached = detach_weights(parts, external_data)
    model = assemble(prepared, parts)
    if detached is None:
        validate_model(model, lenient_inference=has_foreign_nodes(graph))
    return model, parts.feeds, detached


def detach_weights(parts: Parts, external_data: bool | None) -> model_files.Detached | None:
    """The large initializers' data taken out of ``parts`` when the model is to be written with
    external data (``external_data``; None: when they would not fit one file)."""
    if external_data is False or external_data is None and not model_files.too_big_for_one_file(parts.initializers):
        return None
    return model_files.detach(parts.initializers)


def has_foreign_nodes(graph: Graph) -> bool:
    """Whether the checks take ONNX's own shape inference leniently (:func:`validate_model`)."""
    return any(isinstance(n, N.ForeignNode) for n in graph.nodes)


@dataclass(frozen=True)
class Prepared:
    """A graph checked for export at ``opset``: every port's type, the sources' values, and
    the Loss nodes to write (see :func:`prepare_export`)."""

    graph: Graph
    opset: int
    sources: str
    types: Mapping
    values: Mapping
    losses: frozenset[str]
    outputs: bool = True
    untyped: frozenset = frozenset()   # (node id, port) whose type only a run tells


def prepare_export(graph: Graph, opset: int | None = None, sources: str = "initializers", *,
                   losses: frozenset[str] | None = None, outputs: bool = True, min_opset: int = 1,
                   oversized_ok: bool = False) -> Prepared:
    """Every check of :func:`export_model` before a node is written (ExportError on the first
    that fails). ``losses``: the Loss nodes to write (default :func:`written_losses`);
    ``outputs=False`` writes no graph outputs (the caller adds its own; the gradient export);
    ``min_opset``: the lowest opset the caller's own nodes need (offered in the error);
    ``oversized_ok``: initializers over one file's size are not refused (the model is to be
    written with external data)."""
    if sources not in SOURCES_MODES:
        raise ExportError(f"sources must be one of {', '.join(SOURCES_MODES)}, got {sources!r}")
    opset = graph.opset if opset is None else int(opset)
    if not MIN_EXPORT_OPSET <= opset <= MAX_OPSET:
        raise ExportError(f"opset {opset} is outside what IndexFlow writes ({MIN_EXPORT_OPSET}..{MAX_OPSET})")
    losses = written_losses(graph) if losses is None else frozenset(losses)
    _refuse_static_problems(graph, losses)
    if outputs:
        clashes = graph.name_clashes()
        if clashes:
            raise ExportError("Graph input and output names must be unique in a model: " + "; ".join(clashes))
        if not graph.output_nodes():
            raise ExportError("the graph has no output node; add one so the model has something to return")
    analysis = _analyse(graph, opset, losses)
    problems = analysis.problems
    broken = [(label, reason) for label, need, reason in problems if need is None]
    if broken:
        raise ExportError("The graph has errors; fix them before exporting:\n"
                          + "\n".join(f"- {label}: {reason}" for label, reason in broken))
    if problems or opset < min_opset:
        suggested = lowest_working_opset(graph, losses, min_opset)
        lines = [f"- {label} needs opset {need}: {reason}" for label, need, reason in problems]
        offer = f"The lowest opset that works for this graph is {suggested}." if suggested else \
            "No single opset can express every node of this graph."
        why = f"Cannot export at opset {opset}:\n" + "".join(f"{line}\n" for line in lines)
        if opset < min_opset and not problems:
            why = f"Cannot export at opset {opset}: this export needs opset {min_opset} or later.\n"
        raise ExportError(why + offer, suggested)

    missing = [_why_untyped(graph, node, analysis.types) for node in graph.nodes
               if (isinstance(node, (N.OperatorNode, N.ForeignNode)) or node.id in losses)
               and (node.id, node.output_ports()[0]) not in analysis.types
               and (node.id, node.output_ports()[0]) not in analysis.untyped]
    if missing:
        raise ExportError("Cannot export:\n" + "\n".join(f"- {m}" for m in missing))
    if sources == "initializers" and not oversized_ok:
        _refuse_oversized(graph, analysis.types)
    values = _source_values(graph)
    _refuse_unencodable_strings(graph, values)
    if sources == "initializers":
        _refuse_failing_nodes(graph, values)
    return Prepared(graph, opset, sources, analysis.types, values, losses, outputs, frozenset(analysis.untyped))


def save_model(graph: Graph, path: os.PathLike | str, opset: int | None = None,
               sources: str = "initializers", external_data: bool | None = None) -> model_files.Written:
    """Export and write (:func:`.model_files.write_model`): one file replaced atomically, or,
    with ``external_data`` (None: when the initializers exceed what one ONNX file holds), the
    model and its weights in :func:`.model_files.data_path` beside it, checked by path before
    either replaces anything. Returns the files written; ExportError when the model is
    refused or cannot be written (the old files stay)."""
    model, _feeds, detached = _export(graph, opset, sources, external_data)
    path = model_files.followed(path)   # checked and written where a link leads, the data beside it
    refuse_writing_what_it_reads(graph, path, detached is not None)
    lenient = has_foreign_nodes(graph)
    return model_files.write_model(model, path, detached, lambda written: validate_model(written, lenient))


def refuse_writing_what_it_reads(graph: Graph, path: Path, writes_data: bool) -> None:
    """ExportError when writing the model to ``path`` (and, with ``writes_data``, its data file)
    would replace a file the graph reads: a file source's array, the model its weights stay in,
    or the data file such a model keeps them in (two models may share one)."""
    readers = graph.readers_of(path)
    if readers:
        raise ExportError(f"{path} is a file this graph reads ({readers[0].label}); export to another file")
    written = [Path(os.path.realpath(path))] + ([Path(os.path.realpath(model_files.data_path(path)))]
                                                if writes_data else [])
    scope = graph.file_scope
    for model in {scope.real(n.path) for n in graph.nodes if n.kind == N.MODEL_TENSOR and n.path}:
        kept = model_files.data_files_of(model)
        for target in written:
            if target in kept:
                raise ExportError(f"{target} is where {model.name}, which this graph reads, keeps its weights; "
                                  "export to another file")


def validate_model(model: onnx.ModelProto | os.PathLike, lenient_inference: bool = False) -> None:
    """``onnx.checker`` (full check) and strict shape inference; ExportError with their message.
    ``lenient_inference`` (a model with foreign nodes): when only strict shape inference
    refuses it, the plain checker and lenient inference decide, since ONNX's own inference
    refuses some valid ops (MeanVarianceNormalization at opset 13). ``model`` may be the path
    of a written model (one with external data beside it): the checker's full check on the
    file runs the strict inference, and the lenient one is the plain check."""
    on_file = not isinstance(model, onnx.ModelProto)
    try:
        if on_file:
            onnx.checker.check_model(os.fspath(model), full_check=True)
        else:
            onnx.checker.check_model(model, full_check=True)
            onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError) as exc:
        if lenient_inference:
            try:
                onnx.checker.check_model(os.fspath(model) if on_file else model)
                if not on_file:
                    onnx.shape_inference.infer_shapes(model, strict_mode=False)
                return
            except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
                pass
        raise ExportError(f"the ONNX checker refused the model: {exc}") from exc


# ---------------------------------------------------------------------------------- internals
def _why_untyped(graph: Graph, node: N.Node, types: Mapping) -> str:
    """Why an operator node has no type at the export opset: its unconnected inputs, or the
    upstream node it waits for."""
    unconnected = [p for p in node.input_ports()
                   if p not in node.optional_inputs() and graph.edge_into(node.id, p) is None]
    if unconnected:
        return f"{node.label}: {not_connected_text(node, unconnected)}"
    waiting = [graph.node(e.src).label for e in (graph.edge_into(node.id, p) for p in node.input_ports())
               if e is not None and (e.src, e.src_port) not in types]
    return f"{node.label}: depends on {', '.join(waiting)}, which cannot be exported"


def _refuse_failing_nodes(graph: Graph, source_values: Mapping[str, np.ndarray]) -> None:
    """With sources as initializers the model's values are fixed: a node that fails on them
    (an index out of range in a literal, say) would fail in every runtime, so refuse. The
    kernels run directly (no opset: that was checked already), in topological order."""
    values = dict(source_values)
    failures = []
    for node_id in graph.topological_order():
        node = graph.node(node_id)
        if not isinstance(node, N.OperatorNode):
            continue
        edges = [graph.edge_into(node_id, port) for port in node.input_ports()]
        through = N.bypassed_port(node)
        if through is not None:   # only its data input matters
            edges = [e if p == through else None for e, p in zip(edges, node.input_ports(), strict=True)]
        if any(e is not None and e.src not in values for e in edges):
            continue  # downstream of a failure (reported through it) or of a graph input
        if any(isinstance(graph.node(e.src), N.InputSource) for e in edges if e is not None):
            continue  # a graph input's example is only an example: the model may get other values
        inputs = [None if e is None else values[e.src] for e in edges]
        through = N.bypassed_port(node)
        if through is not None:
            values[node_id] = inputs[node.input_ports().index(through)]
            continue
        try:
            values[node_id] = ops.run_op(node.op, inputs, node.attributes)
        except ops.OpError as exc:
            failures.append(f"{node.label}: {exc}")
    if failures:
        raise ExportError("These nodes fail on the graph's own values, so the model could never run:\n"
                          + "\n".join(f"- {message}" for message in failures))


def _refuse_unencodable_strings(graph: Graph, values: Mapping[str, np.ndarray]) -> None:
    """ONNX stores strings as UTF-8; a string holding a lone surrogate (text decoded from a
    file name that is not UTF-8) has no UTF-8 form, so its source is named and refused."""
    bad = []
    for node_id, value in values.items():
        if not isinstance(value, np.ndarray) or value.dtype != object:
            continue
        for s in value.flat:
            try:
                str(s).encode("utf-8")
            except UnicodeEncodeError:
                bad.append(f"- {graph.node(node_id).label}: '{str(s).encode('utf-8', 'backslashreplace').decode()}' "
                           "is not valid Unicode text")
                break
    if bad:
        raise ExportError("ONNX strings are UTF-8; these string tensors hold text that has no UTF-8 form:\n"
                          + "\n".join(bad))


def _refuse_static_problems(graph: Graph, losses: frozenset[str]) -> None:
    """Errors on sources, outputs and the Loss nodes written; operator nodes are judged at the
    export opset instead (a node invalid at the graph's opset may be fine at the one asked for)."""
    problems = [(nid, msg) for nid, msg in graph.problems()
                if not isinstance(graph.node(nid), N.OperatorNode)
                and (not isinstance(graph.node(nid), N.LossNode) or nid in losses)]
    if problems:
        lines = [f"- {graph.node(nid).label}: {msg}" for nid, msg in problems]
        raise ExportError("The graph has errors; fix them before exporting:\n" + "\n".join(lines))


def _refuse_oversized(graph: Graph, types: Mapping) -> None:
    """ExportError, before any weight is read, when the tensors written as initializers
    would not fit one ONNX file (a 2.4 GB model failed deep in the checker with "Failed to
    serialize proto", after 31 s and 9 GB of memory). Only the initializers' bytes count (the
    nodes and metadata are small beside them): a model just under the limit may still fail
    in the checker."""
    total = 0
    for node in graph.nodes:
        if not node.is_source or isinstance(node, N.InputSource):
            continue
        ttype = types.get((node.id, N.SOURCE_PORT))
        if ttype is None or not all(isinstance(d, int) for d in ttype.shape) or ttype.dtype == "string":
            continue
        total += math.prod(ttype.shape) * ops.dtype_of(ttype.dtype).itemsize
    if total > model_files.MODEL_BYTES_LIMIT:
        raise ExportError(f"Cannot export: the tensors written as initializers take {total / 1e9:.1f} GB, more "
                          f"than one ONNX file holds (2 GB, protobuf's limit). Write the weights to a data file "
                          f"beside the model (save_model, or indexflow export --external-data), or export with "
                          f"sources as graph inputs (--sources inputs) and feed the weights at run time.")


def _source_values(graph: Graph) -> Mapping[str, np.ndarray]:
    """Values of every tensor source, computed by the engine."""
    source_ids = [n.id for n in graph.nodes if n.is_source]
    if not source_ids:
        return {}
    engine = Engine(graph, keep_intermediates=True)
    result = engine.run(source_ids)
    failed = [(nid, result.message(nid)) for nid, r in result.nodes.items() if r.status != NodeStatus.OK]
    if failed:
        raise ExportError("Cannot read the graph's sources:\n" + "\n".join(f"- {e}" for _, e in failed))
    return {nid: engine.value(nid) for nid in source_ids}


@dataclass
class Parts:
    """A model being built: its names, nodes, graph inputs/outputs, initializers and
    value_info, and the tensor name of every (node id, port) written so far. The gradient
    export adds its own nodes and outputs before :func:`assemble`."""

    names: NameTable                                       # tensor names
    tensor_name: dict = field(default_factory=dict)        # (node id, port) -> tensor name
    inputs: list = field(default_factory=list)
    initializers: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    nodes: list = field(default_factory=list)
    infos: list = field(default_factory=list)
    feeds: dict = field(default_factory=dict)
    operator_names: dict = field(default_factory=dict)     # node id -> ONNX node name
    output_names: dict = field(default_factory=dict)       # output node id -> tensor name
    node_names: NameTable = field(default_factory=NameTable)
    untyped_outputs: list = field(default_factory=list)    # graph outputs whose type only a run tells


def build_parts(prepared: Prepared, reserved: tuple[str, ...] = ()) -> Parts:
    """The sources and nodes of a prepared graph (and its outputs unless ``prepared.outputs``
    is False). ``reserved`` names are claimed first, so the caller's outputs keep them."""
    graph, sources, types, values = prepared.graph, prepared.sources, prepared.types, prepared.values
    parts = Parts(NameTable())
    names, tensor_name = parts.names, parts.tensor_name
    for name in reserved:
        names.claim(name)

    # 1. Names that users see first: graph inputs and outputs keep their spelling.
    for node in graph.nodes:
        if isinstance(node, N.InputSource):
            tensor_name[(node.id, N.SOURCE_PORT)] = names.claim(node.name)
    output_nodes = graph.output_nodes() if prepared.outputs else ()
    for node in output_nodes:
        edge = graph.edge_into(node.id, N.OUTPUT_PORT)
        if edge is not None and _names_its_source(graph, node, edge, tensor_name, names):
            # the output is a source's tensor under the source's own name: no Identity
            if (edge.src, N.SOURCE_PORT) not in tensor_name:
                tensor_name[(edge.src, N.SOURCE_PORT)] = names.claim(node.name)
            parts.output_names[node.id] = node.name
        else:
            parts.output_names[node.id] = names.claim(node.name)
    # An operator output read by exactly one output node is named after that output.
    renamed: dict[tuple[str, str], str] = {}
    for node in output_nodes:
        edge = graph.edge_into(node.id, N.OUTPUT_PORT)
        if edge is None:
            raise ExportError(f"output {node.label} is not connected")
        producer = graph.node(edge.src)
        readers = [e for e in graph.edges if (e.src, e.src_port) == (edge.src, edge.src_port)
                   and graph.node(e.dst).kind == N.OUTPUT and e.dst in parts.output_names]
        if isinstance(producer, (N.OperatorNode, N.LossNode, N.ForeignNode)) and len(readers) == 1:
            renamed[(edge.src, edge.src_port)] = parts.output_names[node.id]
    # An imported node's outputs keep their model names where those are free.
    for node in graph.nodes:
        for port in node.output_ports():
            hint = N.kept_tensor_name(node, port)
            if hint and (node.id, port) not in renamed and hint not in names:
                renamed[(node.id, port)] = names.claim(hint)

    # 2. Sources.
    for node in graph.nodes:
        if not node.is_source:
            continue
        value = values[node.id]
        if isinstance(node, N.InputSource) and node.onnx_type is not None:
            declared_type = onnx.TypeProto()
            declared_type.ParseFromString(node.onnx_type.data)
            parts.inputs.append(helper.make_value_info(tensor_name[(node.id, N.SOURCE_PORT)], declared_type))
            parts.feeds[tensor_name[(node.id, N.SOURCE_PORT)]] = list(value) if isinstance(value, tuple) else value
            continue
        if isinstance(node, N.InputSource):
            declared = graph.output_type(node.id) or ops.TensorType.of(value)
            parts.inputs.append(value_info(tensor_name[(node.id, N.SOURCE_PORT)], declared))
            parts.feeds[tensor_name[(node.id, N.SOURCE_PORT)]] = value
            continue
        name = tensor_name.get((node.id, N.SOURCE_PORT)) or names.claim(node.name)
        tensor_name[(node.id, N.SOURCE_PORT)] = name
        if sources == "inputs":
            parts.inputs.append(value_info(name, ops.TensorType.of(value)))
            parts.feeds[name] = value
        else:
            parts.initializers.append(tensor_proto(np.asarray(value), name))
            if node.overridable:   # an initializer listed as an input: its default value
                declared = _default_input_type(graph, node, ops.TensorType.of(value))
                parts.inputs.append(helper.make_value_info(name, declared))

    # 3. Operators, foreign nodes (and the Loss nodes written) in topological order.
    read = {(e.src, e.src_port) for e in graph.edges}
    for node_id in graph.topological_order():
        node = graph.node(node_id)
        if isinstance(node, N.LossNode) and node_id in prepared.losses:
            out = renamed.get((node.id, N.LOSS_PORT)) or names.claim(f"{node.name}_{N.LOSS_PORT}")
            tensor_name[(node.id, N.LOSS_PORT)] = out
            inputs = [graph.edge_into(node.id, port) for port in node.input_ports()]
            pred, target = (None if e is None else tensor_name[(e.src, e.src_port)] for e in inputs)
            emit = Emitter(names, parts.nodes, node.name)
            loss_forward(emit, node.loss, pred, target, types[(inputs[0].src, inputs[0].src_port)], out)
            continue
        if isinstance(node, N.ForeignNode):
            _write_foreign(graph, node, parts, renamed, types, read)
            continue
        if not isinstance(node, N.OperatorNode):
            continue
        for port in node.output_ports():
            tensor_name[(node.id, port)] = renamed.get((node.id, port)) or names.claim(f"{node.name}_{port}")
        input_names = []
        for port in node.input_ports():
            edge = graph.edge_into(node.id, port)
            input_names.append("" if edge is None else tensor_name[(edge.src, edge.src_port)])
        while input_names and input_names[-1] == "":
            input_names.pop()
        parts.operator_names[node.id] = parts.node_names.claim(node.name)
        through = N.bypassed_port(node)
        if through is not None:
            output = (node.id, node.output_ports()[0])
            parts.nodes.append(helper.make_node("Identity", [input_names[node.input_ports().index(through)]],
                                                [tensor_name[output]], name=parts.operator_names[node.id]))
            if output not in renamed:
                parts.infos.append(value_info(tensor_name[output], types[output]))
            continue
        written = onnx_op_type(node.op, node.attributes, prepared.opset)
        attrs = _written_attributes(written, node.attributes, prepared.opset)
        parts.nodes.append(helper.make_node(written, input_names,
                                            [tensor_name[(node.id, p)] for p in node.output_ports()],
                                            name=parts.operator_names[node.id], **attrs))
        for port in node.output_ports():
            if (node.id, port) not in renamed and (node.id, port) in types:
                parts.infos.append(value_info(tensor_name[(node.id, port)], types[(node.id, port)]))

    # 4. Outputs.
    for node in output_nodes:
        edge = graph.edge_into(node.id, N.OUTPUT_PORT)
        source_name = tensor_name[(edge.src, edge.src_port)]
        out_name = parts.output_names[node.id]
        if source_name != out_name:
            parts.nodes.append(helper.make_node("Identity", [source_name], [out_name],
                                                name=parts.node_names.claim(f"{node.name}_identity")))
        type_proto = _declared_type(graph.model_info.output_type(node.name), types.get((edge.src, edge.src_port)))
        if type_proto is None:
            parts.untyped_outputs.append((out_name, edge.src, edge.src_port))
            parts.outputs.append(onnx.ValueInfoProto(name=out_name))
        else:
            parts.outputs.append(helper.make_value_info(out_name, type_proto))
    return parts


def output_is_its_source(graph: Graph, output: N.Node, source: N.Node) -> bool:
    """Whether graph output ``output`` is written as ``source``'s tensor itself (no Identity):
    it reads the source directly, under the source's own name, and no graph input other than
    the source holds that name (graph inputs keep theirs first)."""
    if not source.is_source or source.name != output.name:
        return False
    return isinstance(source, N.InputSource) or not any(
        isinstance(n, N.InputSource) and n.name == output.name for n in graph.nodes)


def _names_its_source(graph: Graph, output: N.Node, edge: N.Edge, tensor_name: Mapping, names: NameTable) -> bool:
    """:func:`output_is_its_source`, and the name still free (or the source's) in this export."""
    source = graph.node(edge.src)
    if not output_is_its_source(graph, output, source):
        return False
    claimed = tensor_name.get((source.id, N.SOURCE_PORT))
    return claimed == output.name if claimed is not None else output.name not in names


def overridable_input_type(graph: Graph, node_id: str) -> ops.TensorType | None:
    """The type an export declares for the graph input of overridable source ``node_id`` (the
    one its model declared, named dimensions and all, when its value fits it; else the
    value's), so a feed must fit it; None when the source has no value now (a file that is
    missing or not allowed), so any feed replaces it."""
    value_type = graph.output_type(node_id)
    if value_type is None:
        return None
    declared = tensor_type_of(_default_input_type(graph, graph.node(node_id), value_type))
    return declared if declared is not None else value_type


def _default_input_type(graph: Graph, node: N.Node, value_type: ops.TensorType) -> onnx.TypeProto:
    """The one rule for an overridable source's graph input: the type its model declared for
    it when its value fits (:func:`_declared_type`), else the value's."""
    return _declared_type(graph.model_info.input_type(node.name), value_type)


def _declared_type(kept, inferred: ops.TensorType | None) -> onnx.TypeProto | None:
    """The type a graph output (or an input with a default) is written with: ``kept``, the one
    the imported model declared, when it fits the inferred type (same dtype and rank, equal
    where both are sizes) or when nothing is inferred (a sequence, say), else the inferred
    one."""
    declared = None
    if kept is not None:
        declared = onnx.TypeProto()
        declared.ParseFromString(kept.data)
    if declared is None:
        return None if inferred is None else tensor_type_proto(inferred)
    if inferred is None:
        return declared
    as_tensor = tensor_type_of(declared)
    if as_tensor is None or as_tensor.dtype != inferred.dtype or len(as_tensor.shape) != len(inferred.shape):
        return tensor_type_proto(inferred)
    pairs = zip(as_tensor.shape, inferred.shape, strict=True)
    if any(ops.is_known(a) and ops.is_known(b) and a != b for a, b in pairs):
        return tensor_type_proto(inferred)
    return declared


def _write_foreign(graph: Graph, node: N.ForeignNode, parts: Parts, renamed: Mapping, types: Mapping,
                   read: set) -> None:
    """A foreign node as it came (see the module contract); ``read``: the (node id, port)
    pairs some edge reads."""
    names, tensor_name = parts.names, parts.tensor_name
    consumed = {port for port in node.output_ports() if (node.id, port) in read}
    hints = node.tensor_names or ("x",) * len(node.outputs)
    outputs = []
    for port, hint in zip(node.output_ports(), hints, strict=True):
        if (node.id, port) in renamed:
            tensor_name[(node.id, port)] = renamed[(node.id, port)]
        elif hint == "" and port not in consumed:
            outputs.append("")
            continue
        else:
            tensor_name[(node.id, port)] = names.claim(f"{node.name}_{port}")
        outputs.append(tensor_name[(node.id, port)])
    while outputs and outputs[-1] == "":
        outputs.pop()
    inputs = []
    for port in node.inputs:
        edge = graph.edge_into(node.id, port)
        inputs.append("" if edge is None else tensor_name[(edge.src, edge.src_port)])
    while inputs and inputs[-1] == "":
        inputs.pop()
    for outer in node.captures:   # a graph attribute reads the value under its own name
        edge = graph.edge_into(node.id, N.capture_port(outer))
        if edge is None:
            raise ExportError(f"{node.label}: its graph attribute reads {outer!r}, and input "
                              f"{N.capture_port(outer)!r} is not connected")
        have = tensor_name[(edge.src, edge.src_port)]
        if have != outer:
            if outer in names:
                raise ExportError(f"{node.label}: its graph attribute reads {outer!r}, a name another tensor "
                                  "of the model has; rename that node")
            names.claim(outer)
            parts.nodes.append(helper.make_node("Identity", [have], [outer],
                                                name=parts.node_names.claim(f"{node.name}_{outer}")))
    parts.operator_names[node.id] = parts.node_names.claim(node.name)
    proto = helper.make_node(node.op_type, inputs, outputs, name=parts.operator_names[node.id],
                             domain=node.domain)
    proto.attribute.extend(to_onnx(name, attr) for name, attr in node.attributes.items())
    parts.nodes.append(proto)
    for port in node.output_ports():
        if (node.id, port) in tensor_name and (node.id, port) in types and (node.id, port) not in renamed:
            parts.infos.append(value_info(tensor_name[(node.id, port)], types[(node.id, port)]))


def assemble(prepared: Prepared, parts: Parts) -> onnx.ModelProto:
    """The model of ``parts`` (not yet validated), with the display names and input examples
    in its metadata, and the graph's ``model_info`` (opsets, metadata, functions, fields)."""
    graph, opset, sources, values = prepared.graph, prepared.opset, prepared.sources, prepared.values
    info = graph.model_info
    tensor_name = parts.tensor_name
    inputs = list(parts.inputs)
    ir_version = max(ir_version_for(opset), info.ir_version, 8 if info.functions else 0)
    if ir_version < 4:  # before IR 4 every initializer must also be a graph input
        listed = {v.name for v in inputs}
        inputs += [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in parts.initializers
                   if t.name not in listed]   # from the tensor's header: its data may be detached
    graph_proto = helper.make_graph(parts.nodes, graph.name or "indexflow", inputs, parts.outputs,
                                    initializer=parts.initializers, value_info=parts.infos,
                                    doc_string=graph.settings.get("description", ""))
    opset_ids = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in info.opsets]
    functions = []
    for f in info.functions:
        proto = onnx.FunctionProto()
        proto.ParseFromString(f.data)
        functions.append(proto)
    model = helper.make_model(graph_proto, opset_imports=opset_ids, producer_name=info.producer_name or PRODUCER,
                              ir_version=ir_version, functions=functions)
    if info.producer_version:
        model.producer_version = info.producer_version
    if info.domain:
        model.domain = info.domain
    if info.model_version:
        model.model_version = info.model_version
    if info.doc_string:
        model.doc_string = info.doc_string
    props: dict[str, str] = dict(info.metadata)
    for node in graph.nodes:
        if isinstance(node, N.InputSource) and node.onnx_type is not None:
            continue   # a sequence or optional: its example does not travel
        if isinstance(node, N.InputSource) or (sources == "inputs" and node.is_source):
            text = encode_example(values[node.id])
            if text is not None:
                props[PREFIX + tensor_name[(node.id, N.SOURCE_PORT)]] = text
    shown = {tensor_name[(n.id, N.SOURCE_PORT)]: n.name for n in graph.nodes if n.is_source}
    shown.update({parts.output_names[n.id]: n.name for n in graph.output_nodes() if n.id in parts.output_names})
    shown.update({onnx_name: graph.node(nid).name for nid, onnx_name in parts.operator_names.items()})
    text = encode_display_names(shown)
    if text is not None:
        props[DISPLAY_NAMES_KEY] = text
    if props:
        helper.set_model_props(model, props)
    if parts.untyped_outputs:
        _type_outputs(model, prepared, parts)
    return model


def _type_outputs(model: onnx.ModelProto, prepared: Prepared, parts: Parts) -> None:
    """Give the graph outputs whose type only a run tells a type: ONNX shape inference of the
    whole model first, else the dtype and rank of the value a run of the graph gives."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
        found = {v.name: v.type for v in list(inferred.graph.output) + list(inferred.graph.value_info)}
    except Exception:  # noqa: BLE001 - inference of an unusual model may fail; a run still tells
        found = {}
    run: dict = {}
    for out_name, src, src_port in parts.untyped_outputs:
        ttype = tensor_type_of(found[out_name]) if out_name in found else None
        if ttype is None:
            if not run:
                engine = Engine(prepared.graph)
                engine.run([src])
                run["engine"] = engine
            value = run["engine"].value(src, src_port)
            type_proto = _type_of_value(value)
            if type_proto is None:
                raise ExportError(f"output {out_name!r}: its type is known only after a run, and the run gave "
                                  "no value for it")
        else:
            type_proto = tensor_type_proto(ttype)
        for v in model.graph.output:
            if v.name == out_name:
                v.CopyFrom(helper.make_value_info(out_name, type_proto))


def _type_of_value(value) -> onnx.TypeProto | None:
    """The ONNX type of a value a run gave: a tensor (its dtype and rank, sizes left open) or a
    sequence of them; None for no value."""
    if isinstance(value, list):
        inner = _type_of_value(value[0]) if value else tensor_type_proto(ops.TensorType("float32", ()))
        return None if inner is None else helper.make_sequence_type_proto(inner)
    if not isinstance(value, np.ndarray):
        return None
    return tensor_type_proto(ops.TensorType(ops.dtype_name(value), (None,) * value.ndim))


def ir_version_for(opset: int) -> int:
    """The lowest IR version whose ONNX release knows ``opset`` (onnx's own table skips some
    opsets, e.g. 2, that no release was cut at)."""
    candidates = [ir for _release, ir, ai_onnx, *_ in helper.VERSION_TABLE if ai_onnx >= opset]
    if not candidates:
        raise ExportError(f"this onnx package knows no IR version for opset {opset}")
    return min(candidates)


def _written_attributes(written_op: str, attrs: Mapping, opset: int) -> dict:
    """The node's explicit attributes that exist for ``written_op`` at ``opset``."""
    schema = ops.get_schema(written_op)
    present = {a.name for a in schema.attributes_at(opset)}
    return {k: v for k, v in attrs.items() if k in present}
