"""The gradient export: the forward graph plus its backward graph, in standard ONNX ops.

Contract of :func:`export_gradient_model`:

- The model computes what :class:`nodeeditor.graph.Backward` computes: its outputs are
  ``loss`` (the total loss, the sum of every Loss node, a scalar of the prediction's
  dtype) and one ``grad_<source name>`` per trainable float source (the name made a valid
  identifier, see :class:`~.names.NameTable`), d loss / d that source; no other outputs.
  The forward part is written as :func:`~.export.export_model` writes it (sources as
  initializers, or graph inputs with ``sources="inputs"``).
- The backward part follows the backward pass node by node (its plan is the engine's own,
  :meth:`Backward.plan`): reverse topological order over the path from the sources to the
  losses, fan-out gradients added with ``Sum``, an operator's gradient to its inputs times
  its ``loss_coefficient`` (``Mul``; left out at 1), nothing through an operator (or foreign
  op) whose training switch is off, a source no gradient reaches gets zeros. Each op's rule is
  in :mod:`.vjp_ops` (foreign ops: :mod:`.foreign_vjp_ops`), the losses' in :mod:`.loss_ops`.
- Refused with :class:`ExportError` naming what is wrong: no Loss node or no trainable
  source (the backward pass's own message); an opset below :data:`GRADIENT_MIN_OPSET` (the
  rules use ScatterElements and ScatterND with reduction ``max``) with that opset offered;
  a tensor on the path that is not float32 or float64 (named by node); Loss nodes of
  different dtypes; trainable sources that share a name; and everything the forward
  export refuses.
- The model passes ``onnx.checker.check_model(full_check=True)`` and strict shape inference.
"""
from __future__ import annotations

import os

import numpy as np
import onnx

import ops
from nodeeditor.graph import Backward, Engine, Graph
from nodeeditor.graph import nodes as N
from nodeeditor.graph.backward import BackwardSetupError, gradient_name_clashes
from nodeeditor.graph.losses import PREDICTION, TARGET

from . import model_files
from .errors import ExportError
from .export import (
    assemble,
    build_parts,
    detach_weights,
    prepare_export,
    refuse_writing_what_it_reads,
    validate_model,
)
from .foreign_vjp_ops import foreign_op_vjp
from .loss_ops import Emitter, loss_backward
from .types import value_info
from .vjp_ops import op_vjp

#: The lowest opset the backward graph is written at (reduction max of the scatters).
GRADIENT_MIN_OPSET = 18
#: Tensor dtypes the backward graph is written for.
GRADIENT_DTYPES = ("float32", "float64")
LOSS_OUTPUT = "loss"


def gradient_output_name(source_name: str) -> str:
    """The output a source's gradient is written to, before it is made an identifier."""
    return f"grad_{source_name}"


def export_gradient_model(graph: Graph, opset: int | None = None, sources: str = "initializers") -> onnx.ModelProto:
    """The forward and backward graph as a checked model (see the module contract)."""
    return export_gradients_with_feeds(graph, opset, sources)[0]


def export_gradients_with_feeds(graph: Graph, opset: int | None = None,
                                sources: str = "initializers") -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """Like :func:`export_gradient_model`, plus the feeds (graph input name -> value) that run
    it on the editor's values."""
    model, feeds, _detached = _export_gradients(graph, opset, sources, external_data=False)
    return model, feeds


def _export_gradients(graph: Graph, opset: int | None, sources: str, external_data: bool | None
                      ) -> tuple[onnx.ModelProto, dict[str, np.ndarray], model_files.Detached | None]:
    """The gradient model, its feeds and the weights detached from it (as
    :func:`.export._export`: validated here only when written in one file)."""
    try:
        plan = Backward(Engine(graph)).plan()
    except BackwardSetupError as exc:
        raise ExportError(f"Cannot export gradients: {exc}") from None
    clashes = gradient_name_clashes(graph)
    if clashes:
        raise ExportError("Gradient outputs are named after their source: " + "; ".join(clashes))
    prepared = prepare_export(graph, opset, sources, losses=frozenset(plan.losses), outputs=False,
                              min_opset=GRADIENT_MIN_OPSET, oversized_ok=external_data is not False)
    types = prepared.types
    _refuse_dtypes(graph, plan, types)
    reserved = (LOSS_OUTPUT,) + tuple(gradient_output_name(graph.node(s).name) for s in plan.sources)
    parts = build_parts(prepared, reserved)
    forward_nodes = len(parts.nodes)
    names = parts.names
    # the reserved names came out of the table first, in order: the outputs' own spellings
    claimed = _claimed_spellings(reserved)
    on_path = {s.node_id for s in plan.steps}
    sent: dict[tuple[str, str], str] = {}       # (consumer, input port) -> gradient it sends there
    grads: dict[str, str | None] = {}
    for step in reversed(plan.steps):
        node = graph.node(step.node_id)
        port = node.output_ports()[0]
        out_type = types[(node.id, port)]
        emit = Emitter(names, parts.nodes, f"{node.name}_backward")
        terms = [sent[(c, p)] for c, p in step.consumers if (c, p) in sent]
        if step.seed:
            terms.insert(0, emit.const(np.ones((), dtype=ops.dtype_of(out_type.dtype)), "seed"))
        grad = None if not terms else terms[0] if len(terms) == 1 else emit("Sum", terms, "d_output")
        grads[node.id] = grad
        if grad is None or step.is_source:
            continue
        inputs = {p: ("", None) if src is None else (parts.tensor_name[(src, _src_port(graph, node.id, p))],
                                                     types[(src, _src_port(graph, node.id, p))])
                  for p, src in step.inputs}
        if isinstance(node, N.ForeignNode):
            if step.rule is not None and node.training:   # the same rule the engine took (foreign_vjp_ops)
                ports = [p for p, _ in step.inputs][:len(node.inputs)]
                wanted = [src in on_path for _, src in step.inputs][:len(node.inputs)]
                output = (parts.tensor_name[(node.id, port)], out_type)
                names_out = foreign_op_vjp(emit, node.label, node.op_type, step.attrs, [inputs[p] for p in ports],
                                           output, grad, wanted)
                sent.update({(node.id, p): _scaled(emit, name, node.loss_coefficient, inputs[p][1].dtype, p)
                             for p, name in zip(ports, names_out, strict=True) if name})
            continue     # one without a rule, or with training off, sends nothing, as in the engine
        if isinstance(node, N.LossNode):
            d_pred, d_target = loss_backward(emit, node.loss, inputs[PREDICTION][0], inputs[TARGET][0],
                                             inputs[PREDICTION][1], grad)
            sent[(node.id, PREDICTION)] = d_pred
            if d_target is not None:
                sent[(node.id, TARGET)] = d_target
            continue
        if not node.training:
            continue
        differentiable = set(ops.OPDEFS[node.op].differentiable_inputs)
        wanted = {p for p, src in step.inputs if src in on_path and p in differentiable}
        output = (parts.tensor_name[(node.id, port)], out_type)
        for p, name in op_vjp(emit, node.op, step.attrs, inputs, output, grad, wanted).items():
            sent[(node.id, p)] = _scaled(emit, name, node.loss_coefficient, out_type.dtype, p)

    emit = Emitter(names, parts.nodes, "total")
    loss_names = [parts.tensor_name[(lid, N.LOSS_PORT)] for lid in plan.losses]
    loss_type = types[(plan.losses[0], N.LOSS_PORT)]
    emit("Sum" if len(loss_names) > 1 else "Identity", loss_names, out=claimed[0])
    parts.outputs.append(value_info(claimed[0], ops.TensorType(loss_type.dtype, ())))
    for sid, out in zip(plan.sources, claimed[1:], strict=True):
        ttype = types[(sid, N.SOURCE_PORT)]
        if grads.get(sid) is None:
            emit.const(np.zeros(ttype.shape, dtype=ops.dtype_of(ttype.dtype)), out=out)
        else:
            emit("Identity", [grads[sid]], out=out)
        parts.outputs.append(value_info(out, ttype))
    _drop_unread_constants(parts, forward_nodes)
    detached = detach_weights(parts, external_data)
    model = assemble(prepared, parts)
    if detached is None:
        validate_model(model)
    return model, parts.feeds, detached


def _scaled(emit: Emitter, name: str, coefficient: float, dtype: str, port: str) -> str:
    """The gradient ``name`` times the node's loss ``coefficient`` (itself at 1)."""
    if coefficient == 1.0:
        return name
    factor = emit.const(np.asarray(coefficient, dtype=ops.dtype_of(dtype)), "loss_coefficient")
    return emit("Mul", [name, factor], f"d_{port}_scaled")


def _drop_unread_constants(parts, first: int) -> None:
    """Remove the backward's Constant nodes (from node ``first`` on) whose value no node and no
    output reads (a rule's zero that a reduction then did not need): onnxruntime warned about
    each one as an unused initializer."""
    read = {name for node in parts.nodes for name in node.input} | {v.name for v in parts.outputs}
    parts.nodes[first:] = [node for node in parts.nodes[first:]
                           if node.op_type != "Constant" or any(out in read for out in node.output)]


def save_gradient_model(graph: Graph, path: os.PathLike | str, opset: int | None = None,
                        sources: str = "initializers", external_data: bool | None = None) -> model_files.Written:
    """Export the gradient model and write it as :func:`.export.save_model` writes a model
    (``external_data`` likewise); returns the files written (ExportError)."""
    model, _feeds, detached = _export_gradients(graph, opset, sources, external_data)
    path = model_files.followed(path)
    refuse_writing_what_it_reads(graph, path, detached is not None)
    return model_files.write_model(model, path, detached, validate_model)


def gradient_output_names(graph: Graph) -> dict[str, str]:
    """Source id -> the output its gradient is written to, for the sources a gradient
    export differentiates (the same names :func:`export_gradient_model` writes)."""
    plan = Backward(Engine(graph)).plan()
    reserved = (LOSS_OUTPUT,) + tuple(gradient_output_name(graph.node(s).name) for s in plan.sources)
    return dict(zip(plan.sources, _claimed_spellings(reserved)[1:], strict=True))


# ---------------------------------------------------------------------------------- internals
def _claimed_spellings(reserved: tuple[str, ...]) -> list[str]:
    """What a fresh NameTable gives for ``reserved``, claimed in order."""
    from .names import NameTable

    table = NameTable()
    return [table.claim(name) for name in reserved]


def _src_port(graph: Graph, node_id: str, port: str) -> str:
    return graph.edge_into(node_id, port).src_port


def _refuse_dtypes(graph: Graph, plan, types) -> None:
    bad = []
    for step in plan.steps:
        node = graph.node(step.node_id)
        ttype = types.get((node.id, node.output_ports()[0]))
        if ttype is not None and ttype.dtype not in GRADIENT_DTYPES:
            bad.append(f"- {node.label}: its tensor is {ttype.dtype}")
    if bad:
        raise ExportError(f"The gradient export writes {' and '.join(GRADIENT_DTYPES)} tensors only; on the way "
                          "from the trainable sources to the loss:\n" + "\n".join(bad))
    dtypes = {types[(lid, N.LOSS_PORT)].dtype for lid in plan.losses}
    if len(dtypes) > 1:
        raise ExportError(f"The losses have different dtypes ({', '.join(sorted(dtypes))}); their total has none")
