"""nodeeditor.graph: the headless document model (no Qt, no onnx).

Public API: :class:`Graph` (the document, every change through its methods, events
to listeners as small dataclasses), node and edge records, static type info
(:class:`NodeInfo`), :class:`NodeStatus`, the caching :class:`Engine`, plain-data
serialisation (:func:`graph_to_dict`, :func:`graph_from_dict`, :func:`paste_dict`), the
file format (:func:`load_graph`, :func:`save_graph`, :class:`GraphFileError`), the
layered layout (:func:`layered_positions`) and the bundled examples
(:func:`list_examples`, :func:`load_example`, :func:`resolve_graph_argument`).

ONNX models (issue #13): :class:`ForeignNode` (any ONNX op other than the seven indexing ops,
as data; run and typed through the runtime ``nodeeditor.onnx_io`` registers in
:mod:`.foreign`), :class:`ModelTensorSource` (an initializer read from its model on demand),
:class:`ModelInfo` (the model details an import keeps), named dimensions (:mod:`.dims`), and
cutting a region out and splicing it back (:func:`extract_region`, :func:`splice_region`).

Training (issue #14): the :class:`LossNode` and :class:`LossKind`, the backward pass
(:class:`Backward`, :class:`GradientResult`), optimizers (:class:`OptimizerSettings`,
:class:`OptimizerKind`) and training runs (:func:`train`, :class:`TrainingRun`,
:func:`trained_edit`, :func:`apply_trained`); the modules' docstrings hold the contracts.
"""
from . import dims, foreign
from .backward import Backward, BackwardPlan, BackwardSetupError, GradientResult, gradient_sources, setup_problem
from .base import DEFAULT_OPSET, ConnectionRefused
from .document import Graph, RemovedFrame, RemovedNode
from .engine import Engine, NodeResult, Plan, PortValues, RunResult
from .events import (
    EVENT_TYPES,
    AttributeChanged,
    BypassChanged,
    CollapsedChanged,
    EdgeAdded,
    EdgeRemoved,
    FrameAdded,
    FrameChanged,
    FrameRemoved,
    GraphEvent,
    LossCoefficientChanged,
    LossKindChanged,
    NodeAdded,
    NodeRemoved,
    NodeRenamed,
    OverridableChanged,
    PositionChanged,
    RouteChanged,
    SettingChanged,
    SourceChanged,
    TrainableChanged,
    TrainingChanged,
    TypesChanged,
)
from .examples import (
    DEFAULT_EXAMPLE,
    ExampleInfo,
    GraphArgument,
    GraphArgumentError,
    default_example,
    example_path,
    is_example,
    list_examples,
    load_example,
    open_graph,
    resolve_graph_argument,
)
from .fileformat import EXTENSION, GraphFileError, load_graph, loads_graph, save_graph
from .foreign import AttrKind, ForeignAttribute, ForeignOpError, Opaque
from .info import NodeInfo
from .layout import layered_positions
from .losses import LossError, LossKind
from .model_info import ModelInfo
from .nodes import (
    NODE_KINDS,
    OUTPUT_PORT,
    SOURCE_PORT,
    Edge,
    FileSource,
    ForeignNode,
    Frame,
    GeneratorSource,
    InputSource,
    LiteralSource,
    LossNode,
    ModelTensorSource,
    Node,
    OperatorNode,
    OutputNode,
    Source,
    TrainableSource,
)
from .optimizers import OptimizerKind, OptimizerSettings
from .regions import Extraction, extract_region, splice_region
from .serialize import graph_from_dict, graph_to_dict, paste_dict
from .sources import GENERATORS
from .status import NodeStatus
from .training import TrainedEdit, TrainingResult, TrainingRun, TrainingStep, apply_trained, train, trained_edit

__all__ = [
    "Graph", "ConnectionRefused", "RemovedNode", "DEFAULT_OPSET", "NodeInfo", "NodeStatus",
    "GraphEvent", "EVENT_TYPES", "NodeAdded", "NodeRemoved", "EdgeAdded", "EdgeRemoved", "AttributeChanged",
    "SourceChanged", "NodeRenamed", "PositionChanged", "SettingChanged", "TypesChanged",
    "BypassChanged", "CollapsedChanged", "FrameAdded", "FrameRemoved", "FrameChanged", "RouteChanged",
    "Frame", "RemovedFrame",
    "Node", "Edge", "Source", "LiteralSource", "GeneratorSource", "FileSource", "InputSource", "OperatorNode",
    "OutputNode", "NODE_KINDS", "SOURCE_PORT", "OUTPUT_PORT", "GENERATORS",
    "Engine", "RunResult", "NodeResult", "Plan",
    "graph_to_dict", "graph_from_dict", "paste_dict",
    "load_graph", "loads_graph", "save_graph", "GraphFileError", "EXTENSION",
    "layered_positions",
    "list_examples", "load_example", "default_example", "example_path", "ExampleInfo", "DEFAULT_EXAMPLE",
    "is_example", "open_graph", "resolve_graph_argument", "GraphArgument", "GraphArgumentError",
    "TrainingChanged", "LossCoefficientChanged", "TrainableChanged", "OverridableChanged", "LossKindChanged",
    "LossNode", "TrainableSource", "LossKind", "LossError",
    "Backward", "BackwardPlan", "BackwardSetupError", "GradientResult", "gradient_sources", "setup_problem",
    "OptimizerKind", "OptimizerSettings",
    "train", "TrainingRun", "TrainingResult", "TrainingStep", "TrainedEdit", "trained_edit", "apply_trained",
    "dims", "foreign", "ForeignNode", "ModelTensorSource", "ModelInfo", "AttrKind", "ForeignAttribute", "Opaque",
    "ForeignOpError", "PortValues", "Extraction", "extract_region", "splice_region",
]
