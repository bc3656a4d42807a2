"""nodeeditor.graph: the headless document model (no Qt, no onnx).

Public API: :class:`Graph` (the document, every change through its methods, events
to listeners), node and edge records, static type info (:class:`NodeInfo`), the
caching :class:`Engine`, the file format (:func:`load_graph`, :func:`save_graph`,
:class:`GraphFileError`) and the bundled examples (:func:`list_examples`,
:func:`load_example`, :func:`default_example`).
"""
from .document import DEFAULT_OPSET, ConnectionRefused, Graph, RemovedNode
from .engine import Engine, NodeResult, Plan, RunResult
from .events import EVENT_KINDS, GraphEvent
from .examples import (
    DEFAULT_EXAMPLE,
    ExampleInfo,
    default_example,
    example_path,
    is_example,
    list_examples,
    load_example,
    open_graph,
)
from .fileformat import EXTENSION, GraphFileError, load_graph, loads_graph, save_graph
from .inference import NodeInfo
from .nodes import (
    NODE_KINDS,
    OUTPUT_PORT,
    SOURCE_PORT,
    Edge,
    FileSource,
    GeneratorSource,
    InputSource,
    LiteralSource,
    Node,
    OperatorNode,
    OutputNode,
)
from .sources import GENERATORS

__all__ = [
    "Graph", "ConnectionRefused", "RemovedNode", "DEFAULT_OPSET", "GraphEvent", "EVENT_KINDS", "NodeInfo",
    "Node", "Edge", "LiteralSource", "GeneratorSource", "FileSource", "InputSource", "OperatorNode", "OutputNode",
    "NODE_KINDS", "SOURCE_PORT", "OUTPUT_PORT", "GENERATORS",
    "Engine", "RunResult", "NodeResult", "Plan",
    "load_graph", "loads_graph", "save_graph", "GraphFileError", "EXTENSION",
    "list_examples", "load_example", "default_example", "example_path", "ExampleInfo", "DEFAULT_EXAMPLE",
    "is_example", "open_graph",
]
