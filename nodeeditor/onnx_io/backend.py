"""An ``onnx.backend`` backend that runs models on IndexFlow's engine.

In the style of ``onnxruntime.backend``: :func:`prepare` imports the model as a graph
(:func:`~.importer.import_model`: any valid model, its foreign ops run by onnxruntime with
``onnx.reference`` as the fallback) and returns a :class:`IndexFlowRep`, whose
``run(inputs)`` sets the graph inputs' values and evaluates the graph with
:class:`~nodeeditor.graph.Engine`. ONNX's own ``onnx.backend.test.BackendTest`` runs against
this module.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper
from onnx.backend.base import Backend, BackendRep

import ops
from nodeeditor.graph import Engine, Graph
from nodeeditor.graph import nodes as N

from .importer import import_model

DEVICES = ("CPU",)


class IndexFlowRep(BackendRep):
    """A prepared model: an imported graph and an engine kept between runs (its cache makes a
    second run with the same inputs free)."""

    def __init__(self, graph: Graph, input_names: Sequence[str], output_names: Sequence[str]) -> None:
        self.graph = graph
        self.input_names = list(input_names)
        self.output_names = list(output_names)
        self.engine = Engine(graph)
        self._input_nodes = {n.name: n.id for n in graph.nodes if isinstance(n, N.InputSource)}

    def run(self, inputs: Any, **kwargs: Any) -> tuple[np.ndarray, ...]:
        """``inputs``: a list in graph-input order, a dict by name, or one array. Returns the
        outputs in graph-output order. Raises RuntimeError with the engine's message when a
        node fails."""
        if isinstance(inputs, np.ndarray):
            inputs = [inputs]
        if not isinstance(inputs, Mapping) and len(inputs) != len(self.input_names):
            raise ValueError(f"the model takes {len(self.input_names)} input(s) ({', '.join(self.input_names)}), "
                             f"got {len(inputs)}")
        values: Mapping[str, Any] = (inputs if isinstance(inputs, Mapping)
                                     else dict(zip(self.input_names, inputs, strict=True)))
        missing = [name for name in self.input_names if name not in values]
        if missing:
            raise ValueError(f"missing input(s): {', '.join(missing)}")
        with self.graph.batch():
            for name, value in values.items():
                if name not in self._input_nodes:
                    raise ValueError(f"the model has no input {name!r}; inputs: {', '.join(self.input_names)}")
                node = self.graph.node(self._input_nodes[name])
                is_tensor = getattr(node, "onnx_type", None) is None
                self.graph.set_source(node.id, example=np.asarray(value) if is_tensor else value)
        result = self.engine.run()
        if result.errors():
            raise RuntimeError("; ".join(msg for _, msg in result.errors()))
        return tuple(result.outputs[name] for name in self.output_names)


class IndexFlowBackend(Backend):
    """``onnx.backend.base.Backend`` over the IndexFlow engine (CPU only)."""

    @classmethod
    def is_compatible(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> bool:
        return cls.supports_device(device)

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> IndexFlowRep:
        if not cls.supports_device(device):
            raise RuntimeError(f"IndexFlow runs on {', '.join(DEVICES)} only, not {device!r}")
        graph = import_model(model)
        initializers = {t.name for t in model.graph.initializer}
        input_names = [i.name for i in model.graph.input if i.name not in initializers]
        return IndexFlowRep(graph, input_names, [o.name for o in model.graph.output])

    @classmethod
    def run_model(cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any) -> tuple:
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node: onnx.NodeProto, inputs: Any, device: str = "CPU",
                 outputs_info: Sequence[tuple] | None = None, **kwargs: Any) -> tuple:
        """Run one node: wraps it in a model at the opset given as ``opset_version`` (default 18,
        or the op's first opset when that is later: 24 for TensorScatter) with inputs named after
        the node's inputs."""
        arrays = [np.asarray(x) for x in (inputs.values() if isinstance(inputs, Mapping) else inputs)]
        names = [n for n in node.input if n]
        graph_inputs = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype)
                                                      if a.dtype.kind != "O" else onnx.TensorProto.STRING, a.shape)
                        for n, a in zip(names, arrays, strict=True)]
        graph_outputs = [helper.make_empty_tensor_value_info(o) for o in node.output]
        if node.op_type in ops.SCHEMAS:
            first = ops.SCHEMAS[node.op_type].versions[0]
        else:
            try:
                first = onnx.defs.get_schema(node.op_type, node.domain).since_version if not node.domain else 18
            except onnx.defs.SchemaError:
                first = 18
        opset = kwargs.get("opset_version", max(18, first))
        opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(node.domain, 1)] if node.domain else [])
        model = helper.make_model(helper.make_graph([node], "run_node", graph_inputs, graph_outputs),
                                  opset_imports=opsets)
        return cls.run_model(model, dict(zip(names, arrays, strict=True)), device)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return str(device).upper() in DEVICES


prepare = IndexFlowBackend.prepare
run_model = IndexFlowBackend.run_model
run_node = IndexFlowBackend.run_node
supports_device = IndexFlowBackend.supports_device
is_compatible = IndexFlowBackend.is_compatible
