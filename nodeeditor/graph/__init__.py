"""nodeeditor.graph: the headless document model (no Qt, no onnx).

Public API: :class:`Graph` (the document), node and edge records, the caching
:class:`Engine`, the file format (:func:`load_graph`, :func:`save_graph`,
:class:`GraphFileError`) and the bundled examples.
"""
from .document import DEFAULT_OPSET, ConnectionRefused, Graph, RemovedNode
from .events import EVENT_KINDS, GraphEvent
from .inference import NodeInfo
from .nodes import (
    Edge, FileSource, GeneratorSource, InputSource, LiteralSource, Node, OperatorNode, OutputNode,
    NODE_KINDS, OUTPUT_PORT, SOURCE_PORT,
)
from .sources import GENERATORS

__all__ = [
    "Graph", "ConnectionRefused", "RemovedNode", "DEFAULT_OPSET", "GraphEvent", "EVENT_KINDS", "NodeInfo",
    "Node", "Edge", "LiteralSource", "GeneratorSource", "FileSource", "InputSource", "OperatorNode", "OutputNode",
    "NODE_KINDS", "SOURCE_PORT", "OUTPUT_PORT", "GENERATORS",
]
