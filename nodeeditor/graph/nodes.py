"""Node kinds of the document: tensor sources, operators and outputs.

A node is a small record: a stable string ``id``, a display ``name``, a canvas
``position`` and its kind-specific content. Nodes are owned by a
:class:`~nodeeditor.graph.document.Graph`; treat the objects the graph hands out
as read-only and change them only through Graph methods (which keep types,
revisions and listeners in step).

``revision`` changes (to a value unique within the graph) whenever something
that affects the node's computed value changes; the engine keys its cache on it.

Ports: every source has one output port ``"output"``; an operator has the input
and output ports of its ``ops`` schema (names in schema order); an output node
has one input port ``"value"`` and no outputs.

Each tensor source (a :class:`Source`) says itself how to get its tensor and its type
(``source_value``, ``source_type``); type inference, the static checks and the engine all
ask it, so the four kinds are told apart in one place. A :class:`LossNode` likewise says
its own type, value and gradient (``loss_output_type``, ``loss_value``, ``loss_vjp``).

Foreign ONNX ops (any op but the seven indexing ones) are :class:`ForeignNode` records of
plain data, run and typed through the runtime registered in :mod:`nodeeditor.graph.foreign`.
A :class:`ModelTensorSource` is an initializer that stays in its model file and is read on
demand. A graph input may declare a shape with named dimensions (``InputSource.shape``).

Training fields (none of them changes a forward value, so none changes ``revision``):
literal, generator, file and model tensor sources (:class:`TrainableSource`) have ``trainable``;
an operator and a foreign node (:func:`has_training_switch`) have ``training`` (off: no gradient
flows through it to its inputs) and ``loss_coefficient`` (multiplies the gradient it sends to
its inputs).
"""
from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

import ops
from ops import TensorType

from . import dims
from .foreign import (
    AttrKind,
    ForeignAttribute,
    ForeignCall,
    ForeignOpError,
    Opaque,
    check_attribute,
    missing_runtime_text,
    tensor_loader,
)
from .foreign_vjp import foreign_vjp
from .losses import DEFAULT_LOSS, LOSS_PORT, PREDICTION, TARGET, LossKind, loss_type, loss_value, loss_vjp
from .paths import FileScope
from .sources import SourceError, file_stamp, file_type, generate, generator_type, load_file

SOURCE_PORT = "output"
OUTPUT_PORT = "value"

LITERAL = "literal"
GENERATOR = "generator"
FILE = "file"
INPUT = "input"
OPERATOR = "op"
OUTPUT = "output"
LOSS = "loss"
FOREIGN = "foreign"
MODEL_TENSOR = "model_tensor"

SOURCE_KINDS = (LITERAL, GENERATOR, FILE, INPUT, MODEL_TENSOR)
#: Sources an export writes as initializers (all but graph inputs): the ones that may be ``overridable``.
WEIGHT_KINDS = (LITERAL, GENERATOR, FILE, MODEL_TENSOR)
NODE_KINDS = SOURCE_KINDS + (OPERATOR, OUTPUT, LOSS, FOREIGN)
#: Kinds whose ``path`` names a file, relative to the graph file's folder when not absolute.
PATH_KINDS = (FILE, MODEL_TENSOR)


def frozen_array(value: Any) -> np.ndarray:
    """A read-only copy of ``value`` as a numpy array (strings become object arrays of str).

    Raises ValueError for values that are not a tensor of one of the ops dtypes' kinds (an
    object array must hold only str)."""
    arr = np.array(value, copy=True)
    if arr.dtype.kind in "US":
        arr = arr.astype(object)
    if arr.dtype.kind in "OV" and not ops.dtypes.is_ml_dtype(arr.dtype):
        if arr.dtype.kind == "V" or not all(isinstance(v, str) for v in arr.flat):
            raise ValueError("a tensor holds numbers, booleans or strings only")
    if arr.dtype.kind in "mMV" and not ops.dtypes.is_ml_dtype(arr.dtype):
        raise ValueError(f"unsupported dtype {arr.dtype}")
    arr.setflags(write=False)
    return arr


@dataclass(eq=False)
class Node:
    """Common part of every node. ``kind`` names the subclass."""

    id: str
    name: str
    position: tuple[float, float] = (0.0, 0.0)
    revision: int = 0
    #: drawn small (its title only): a view state, saved in the file, no effect on values
    collapsed: bool = False
    kind: ClassVar[str] = ""

    @property
    def label(self) -> str:
        """How messages name the node: its name, and its id when they differ."""
        return self.name if self.name == self.id else f"{self.name} [{self.id}]"

    def input_ports(self) -> tuple[str, ...]:
        """Input port names in order."""
        return ()

    def optional_inputs(self) -> frozenset[str]:
        """Input ports that may stay unconnected."""
        return frozenset()

    def output_ports(self) -> tuple[str, ...]:
        """Output port names in order."""
        return (SOURCE_PORT,)

    @property
    def is_source(self) -> bool:
        return self.kind in SOURCE_KINDS

    @property
    def id_prefix(self) -> str:
        """What a fresh id for a node like this starts with (``gather``, ``matmul``, ``literal``)."""
        return self.kind

    def clone(self) -> Node:
        """An independent copy (arrays are read-only, so they are shared)."""
        out = copy.copy(self)
        for name in ("params", "attributes"):
            if hasattr(out, name):
                setattr(out, name, copy.deepcopy(getattr(self, name)))
        return out


@dataclass(eq=False)
class Source(Node):
    """A tensor source (one output port). ``scope`` in the methods below is the graph's
    :class:`~nodeeditor.graph.paths.FileScope`: the folder a relative file path resolves
    against and which files may be read.

    ``overridable`` (every source but a graph input, which is one already): an export lists
    the tensor as a graph input as well as an initializer, so a runtime's feed of that name
    replaces it and the value is its default (ONNX's initializer that is also an input). It
    changes no value here."""

    overridable: bool = False

    def source_type(self, scope: FileScope) -> TensorType:
        """The type of the tensor, without building it where that is cheaper. SourceError
        (or ``ops.OpError``) when the source cannot produce one."""
        return TensorType.of(self.source_value(scope))

    def source_value(self, scope: FileScope) -> np.ndarray:
        """The tensor (SourceError when the source cannot produce it)."""
        raise NotImplementedError

    def outside_stamp(self, scope: FileScope) -> tuple:
        """What the value depends on besides the node itself (a file's modification stamp),
        so a cache keyed on it notices a change; () when nothing."""
        return ()


@dataclass(eq=False)
class TrainableSource(Source):
    """A source whose tensor a training run may change (literal, generator, file, an imported
    model's tensor): with ``trainable`` set, ``indexflow grad`` reports its gradient and a
    training run updates it (a trained generator, file or model tensor becomes a literal, see
    ``nodeeditor.graph.training``)."""

    trainable: bool = False


@dataclass(eq=False)
class LiteralSource(TrainableSource):
    """A tensor typed in by hand. ``value`` is a read-only numpy array."""

    value: np.ndarray = field(default_factory=lambda: frozen_array(0.0))
    kind: ClassVar[str] = LITERAL

    def source_type(self, scope: FileScope) -> TensorType:
        return TensorType.of(self.value)

    def source_value(self, scope: FileScope) -> np.ndarray:
        return self.value


@dataclass(eq=False)
class GeneratorSource(TrainableSource):
    """A generated tensor: ``generator`` is a key of ``sources.GENERATORS``; ``params`` holds
    only the parameters that differ from its defaults' keys (any subset of them)."""

    generator: str = "zeros"
    params: dict[str, Any] = field(default_factory=dict)
    kind: ClassVar[str] = GENERATOR

    def source_type(self, scope: FileScope) -> TensorType:
        return generator_type(self.generator, self.params)

    def source_value(self, scope: FileScope) -> np.ndarray:
        return generate(self.generator, self.params)


@dataclass(eq=False)
class FileSource(TrainableSource):
    """A tensor read from a file: ``.npy``, one ``key`` of an ``.npz``, or a ``.csv`` read as
    ``dtype``. A relative ``path`` is resolved against the graph file's folder; a file the
    scope refuses (:meth:`~nodeeditor.graph.paths.FileScope.refusal`: outside the folder and
    not allowed) is an error on the node and is never opened."""

    path: str = ""
    key: str | None = None
    dtype: str | None = None
    kind: ClassVar[str] = FILE

    def source_type(self, scope: FileScope) -> TensorType:
        return file_type(readable_path(self.path, scope), self.key, self.dtype)

    def source_value(self, scope: FileScope) -> np.ndarray:
        return load_file(readable_path(self.path, scope), self.key, self.dtype)

    def outside_stamp(self, scope: FileScope) -> tuple:
        return path_stamp(self.path, scope)


def readable_path(path: str, scope: FileScope) -> Path:
    """The file a source's ``path`` names; SourceError when there is none or ``scope`` refuses
    it (the one check every source that reads a file makes before opening it)."""
    if not path:
        raise SourceError("no file chosen")
    refusal = scope.refusal(path)
    if refusal is not None:
        raise SourceError(refusal)
    return scope.resolve(path)


def path_stamp(path: str, scope: FileScope) -> tuple:
    """What changes when the file ``path`` names changes (see :meth:`Source.outside_stamp`);
    a refused file is not looked at."""
    if path and scope.refusal(path) is not None:
        return ("refused",)
    try:
        return file_stamp(scope.resolve(path))
    except OSError:
        return ("missing",)


def frozen_example(value: Any, onnx_type: Opaque | None) -> Any:
    """A graph input's example as the input holds it: a read-only array for a tensor input;
    for an input of another ONNX type (``onnx_type`` set): a tuple of read-only arrays for a
    sequence, None for an empty optional, an array for an optional holding a tensor."""
    if onnx_type is None:
        return frozen_array(value)
    if value is None:
        return None
    if isinstance(value, (list, tuple)):
        return tuple(frozen_array(v) for v in value)
    return frozen_array(value)


@dataclass(eq=False)
class InputSource(Source):
    """A graph input. ``name`` is the input's name in an exported model; ``example`` is the
    value used when running in the editor (read-only array). ``shape`` (None: the example's
    shape) declares the input's shape with named or unknown dimensions, e.g. ``("batch", 4)``
    (see :mod:`nodeeditor.graph.dims`): the port's type carries the names, the example must
    fit it, and an export writes it.

    An input of an ONNX type other than a tensor (a sequence or an optional, from an imported
    model) has ``onnx_type``, the serialized ``TypeProto``, and its example is what
    :func:`frozen_example` makes; its port has no static type (known after a run)."""

    example: Any = field(default_factory=lambda: frozen_array(np.zeros((1,), np.float32)))
    shape: tuple[dims.Dim, ...] | None = None
    onnx_type: Opaque | None = None
    kind: ClassVar[str] = INPUT

    def source_type(self, scope: FileScope) -> TensorType:
        if self.onnx_type is not None:
            raise SourceError(f"a {self.onnx_type.summary or 'non-tensor'} input has no tensor type")
        concrete = TensorType.of(self.example)
        if self.shape is None:
            return concrete
        problem = dims.fit_problem(self.shape, self.example.shape)
        if problem is not None:
            raise SourceError(problem)
        return TensorType(concrete.dtype, dims.merged_type_shape(self.shape, self.example.shape))

    def source_value(self, scope: FileScope) -> np.ndarray:
        return self.example


@dataclass(eq=False)
class ModelTensorSource(TrainableSource):
    """An initializer that stays in the ONNX model it came from (trainable like the other
    weights: a trained one becomes a literal holding the trained tensor): ``path`` (the model file,
    relative to the graph file's folder when not absolute), ``tensor`` (its name there), its
    ``dtype`` and ``shape`` (known without reading it), and ``nbytes`` and ``checksum``
    (:func:`tensor_checksum` of the values at import), so a model changed since is noticed.
    The value is read on demand through the tensor loader registered in
    :mod:`nodeeditor.graph.foreign` (external data only from the model's own folder)."""

    path: str = ""
    tensor: str = ""
    dtype: str = "float32"
    shape: tuple[int, ...] = ()
    nbytes: int = 0
    checksum: str = ""
    kind: ClassVar[str] = MODEL_TENSOR

    def source_type(self, scope: FileScope) -> TensorType:
        return TensorType(self.dtype, tuple(self.shape))

    def source_value(self, scope: FileScope) -> np.ndarray:
        loader = tensor_loader()
        if loader is None:
            raise SourceError(missing_runtime_text(f"reading tensor {self.tensor!r} of {self.path}"))
        where = readable_path(self.path, scope)
        try:
            value = loader(str(where), self.tensor)
        except ForeignOpError as exc:
            raise SourceError(str(exc)) from None
        value = np.asarray(value)
        got = TensorType.of(value)
        if got != self.source_type(scope) or (self.checksum and tensor_checksum(value) != self.checksum):
            raise SourceError(f"tensor {self.tensor!r} in {where} is not the one imported (now {got}, was "
                              f"{self.source_type(scope)}, or its values changed); import the model again")
        value.setflags(write=False)
        return value

    def outside_stamp(self, scope: FileScope) -> tuple:
        return path_stamp(self.path, scope)


def tensor_checksum(value: np.ndarray) -> str:
    """A short digest of a tensor's dtype, shape and bytes (strings: their UTF-8 text)."""
    import hashlib

    arr = np.asarray(value)
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{arr.dtype.str}{arr.shape}".encode())
    if arr.dtype == object:
        for item in arr.flat:
            digest.update(str(item).encode("utf-8", "surrogateescape") + b"\0")
    else:
        digest.update(np.ascontiguousarray(arr).tobytes())
    return digest.hexdigest()


@dataclass(eq=False)
class OperatorNode(Node):
    """One ``ops`` operator. ``attributes`` holds only explicitly set values (the schema's
    defaults apply to the rest). ``training`` and ``loss_coefficient`` are the toolkit's
    training switch and loss-derivative coefficient: they act on the backward pass only.
    ``bypassed``: the op is switched off and passes its data input through unchanged (only
    where :func:`bypass_refusal` allows it). ``tensor_names``: the ONNX names its outputs had in
    the model it was imported from (see :func:`kept_tensor_name`); () for a block of the editor."""

    op: str = "Gather"
    attributes: dict[str, Any] = field(default_factory=dict)
    training: bool = True
    loss_coefficient: float = 1.0
    bypassed: bool = False
    tensor_names: tuple[str, ...] = ()
    kind: ClassVar[str] = OPERATOR

    def __post_init__(self) -> None:
        self.tensor_names = tuple(self.tensor_names)
        if self.tensor_names and len(self.tensor_names) != len(self.output_ports()):
            raise ValueError(f"{self.op}: {len(self.tensor_names)} tensor names for "
                             f"{len(self.output_ports())} output(s)")

    @property
    def schema(self) -> ops.OpSchema:
        return ops.get_schema(self.op)

    def input_ports(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.schema.inputs)

    def optional_inputs(self) -> frozenset[str]:
        return frozenset(p.name for p in self.schema.inputs if p.optional)

    def output_ports(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.schema.outputs)

    @property
    def id_prefix(self) -> str:
        return self.op.lower()


@dataclass(eq=False)
class OutputNode(Node):
    """A named graph output; ``name`` is the output's name (the key in ``run --output`` files)."""

    kind: ClassVar[str] = OUTPUT

    def input_ports(self) -> tuple[str, ...]:
        return (OUTPUT_PORT,)

    def output_ports(self) -> tuple[str, ...]:
        return ()


@dataclass(eq=False)
class LossNode(Node):
    """A loss: ``prediction`` (and ``target`` for the kinds that need one) in, one scalar
    ``loss`` out (see :mod:`nodeeditor.graph.losses`). ``loss`` is its :class:`LossKind`."""

    loss: LossKind = DEFAULT_LOSS
    kind: ClassVar[str] = LOSS

    def input_ports(self) -> tuple[str, ...]:
        return (PREDICTION, TARGET)

    def optional_inputs(self) -> frozenset[str]:
        return frozenset() if self.loss.needs_target else frozenset({TARGET})

    def output_ports(self) -> tuple[str, ...]:
        return (LOSS_PORT,)

    def loss_output_type(self, prediction: TensorType, target: TensorType | None) -> TensorType:
        """The scalar type of the loss (``losses.LossError`` when the inputs do not fit)."""
        return loss_type(self.loss, prediction, target)

    def loss_value(self, prediction: np.ndarray, target: np.ndarray | None) -> np.ndarray:
        """The loss (a 0-d array of the prediction's dtype)."""
        return loss_value(self.loss, prediction, target)

    def loss_vjp(self, prediction: np.ndarray, target: np.ndarray | None,
                 grad: np.ndarray | float) -> tuple[np.ndarray, np.ndarray | None]:
        """(d prediction, d target or None) for ``grad`` = d(total)/d(loss)."""
        return loss_vjp(self.loss, prediction, target, grad)


def bypass_refusal(op: str) -> str | None:
    """Why an ``op`` node cannot be bypassed (None: it can). Bypassing passes the data input
    through unchanged, which keeps the graph's types only where the output has the data's
    type: a scatter's output is a copy of its data with some cells written, a gather's is
    shaped by its indices."""
    opdef = ops.get_opdef(op)
    if opdef.writes:
        return None
    return (f"{op}'s output is shaped by its indices, not like its {opdef.data_port!r}, so passing "
            f"{opdef.data_port!r} through would change every type downstream")


def bypassed_port(node: Node) -> str | None:
    """The input a bypassed operator passes through (its data input), None when the node is
    not a bypassed operator."""
    if isinstance(node, OperatorNode) and node.bypassed:
        return ops.get_opdef(node.op).data_port
    return None


#: The input port through which a foreign node's graph attributes read ``name`` from the graph.
CAPTURE_PREFIX = "outer:"


def kept_tensor_name(node: Node, port: str) -> str:
    """The ONNX name the tensor of ``node``'s output ``port`` had in the model it was imported
    from (an operator's or a foreign node's ``tensor_names``), "" when it had none: an export
    keeps it where it is free, and a group block shows it."""
    names = getattr(node, "tensor_names", ())
    ports = node.output_ports()
    return names[ports.index(port)] if names and port in ports else ""


def tensor_label(node: Node, port: str) -> str:
    """How a group block or a cut-out region names the tensor of ``node``'s output ``port``:
    the ONNX tensor name an import kept, else the node's name (with the port when it has
    several outputs)."""
    return kept_tensor_name(node, port) or (node.name if len(node.output_ports()) == 1 else f"{node.name}.{port}")


def capture_port(name: str) -> str:
    """The input port of a foreign node that feeds the enclosing-graph value ``name`` to its
    graph attributes (an ``If`` branch or ``Loop`` body reading a tensor from outside)."""
    return CAPTURE_PREFIX + name


@dataclass(eq=False)
class ForeignNode(Node):
    """An ONNX op other than the seven indexing ops, kept verbatim as data.

    ``op_type`` and ``domain`` (``""``: the default ONNX domain) name the op; ``attributes``
    maps each attribute, in the model's order, to a :class:`ForeignAttribute`. ``inputs`` and
    ``outputs`` are the port names in ONNX order (an ONNX input list may leave positions
    empty: those ports are unconnected and must be in ``optional``). ``captures`` are the
    ONNX names the graph attributes read from the enclosing graph; each has an input port
    (:func:`capture_port`) after the regular ones. ``tensor_names`` are the ONNX names the
    outputs had in the model (``""``: unnamed, an optional output the model did not ask
    for); an export keeps them where it can.

    Running and typing go through :mod:`nodeeditor.graph.foreign`; see :meth:`call`."""

    op_type: str = "Identity"
    domain: str = ""
    attributes: dict[str, ForeignAttribute] = field(default_factory=dict)
    inputs: tuple[str, ...] = ("input",)
    outputs: tuple[str, ...] = ("output",)
    optional: frozenset[str] = frozenset()
    captures: tuple[str, ...] = ()
    tensor_names: tuple[str, ...] = ()
    #: the toolkit's training switch and loss coefficient, as an operator has them (they act on
    #: the backward pass only, through ops nodeeditor.graph.foreign_vjp has a rule for)
    training: bool = True
    loss_coefficient: float = 1.0
    kind: ClassVar[str] = FOREIGN

    def __post_init__(self) -> None:
        self.inputs, self.outputs = tuple(self.inputs), tuple(self.outputs)
        self.captures, self.optional = tuple(self.captures), frozenset(self.optional)
        ports = self.input_ports()
        if len(set(ports)) != len(ports) or len(set(self.outputs)) != len(self.outputs):
            raise ValueError(f"{self.op_type}: port names must be unique, got inputs {ports} "
                             f"and outputs {self.outputs}")
        if not self.optional <= set(self.inputs):
            extra = sorted(self.optional - set(self.inputs))
            raise ValueError(f"{self.op_type}: optional ports {extra} are not inputs")
        if self.tensor_names and len(self.tensor_names) != len(self.outputs):
            raise ValueError(f"{self.op_type}: {len(self.tensor_names)} tensor names for {len(self.outputs)} outputs")
        self.attributes = {str(k): check_attribute(v) for k, v in self.attributes.items()}

    @property
    def title(self) -> str:
        """``MatMul``, or ``com.microsoft::Attention`` outside the default domain."""
        return self.op_type if self.domain in ("", "ai.onnx") else f"{self.domain}::{self.op_type}"

    @property
    def id_prefix(self) -> str:
        return self.op_type.lower()

    def input_ports(self) -> tuple[str, ...]:
        if not self.captures:
            return self.inputs
        return self.inputs + tuple(capture_port(c) for c in self.captures)

    def optional_inputs(self) -> frozenset[str]:
        return self.optional

    def output_ports(self) -> tuple[str, ...]:
        return self.outputs

    def clone(self) -> Node:
        out = copy.copy(self)
        out.attributes = dict(self.attributes)   # the attribute values are immutable
        return out

    def call(self, opsets: Mapping[str, int], functions: tuple[bytes, ...] = (), token: Any = None,
             wanted: frozenset[str] = frozenset()) -> ForeignCall:
        """The node as a :class:`ForeignCall` for the registered runtime, at ``opsets``
        (domain -> version); ``token`` names the graph, so caches keyed on
        ``call.key`` (token, id, revision, wanted) never mix two graphs up. An output the
        model left unnamed is computed only when its port is in ``wanted`` (it has readers)."""
        names = tuple(n or (p if p in wanted else "") for n, p in zip(self.tensor_names, self.outputs, strict=True)) \
            if self.tensor_names else ()
        return ForeignCall(self.op_type, self.domain, dict(self.attributes), len(self.inputs), len(self.outputs),
                           dict(opsets), self.captures, tuple(functions), names,
                           key=(token, self.id, self.revision, names))

    def constant_value(self) -> np.ndarray | None:
        """The value of an ONNX ``Constant`` node (default domain), from its one value
        attribute; None for any other node, or a Constant whose value is not an array."""
        if self.op_type != "Constant" or self.domain not in ("", "ai.onnx") or len(self.attributes) != 1:
            return None
        (name, attr), = self.attributes.items()
        if attr.kind is AttrKind.TENSOR and isinstance(attr.value, np.ndarray):
            return attr.value
        simple = {"value_int": np.int64, "value_ints": np.int64, "value_float": np.float32,
                  "value_floats": np.float32}
        if name in simple:
            return np.asarray(attr.value, dtype=simple[name])
        if name in ("value_string", "value_strings"):
            return np.asarray(attr.value, dtype=object)
        return None


NODE_CLASSES: dict[str, type[Node]] = {
    cls.kind: cls
    for cls in (LiteralSource, GeneratorSource, FileSource, InputSource, OperatorNode, OutputNode, LossNode,
                ForeignNode, ModelTensorSource)
}

# Source fields that Graph.set_source may change, per kind.
SOURCE_FIELDS: dict[str, tuple[str, ...]] = {
    LITERAL: ("value",),
    GENERATOR: ("generator", "params"),
    FILE: ("path", "key", "dtype"),
    INPUT: ("example", "shape", "onnx_type"),
    MODEL_TENSOR: ("path",),
}


@dataclass(eq=False)
class Frame:
    """A titled, coloured box drawn around a group of nodes (``nodes``: their ids); moving
    it moves them. ``colour`` is ``#rrggbb``. ``collapsed``: the canvas draws the members as
    one group block (its ports are the tensors crossing the frame's boundary) instead of the
    box; a node is in at most one collapsed frame. A view object: no effect on values (the
    graph stays flat: running, inference and export never look at frames)."""

    id: str
    title: str = "Frame"
    colour: str = "#5a7bb5"
    nodes: tuple[str, ...] = ()
    collapsed: bool = False

    def clone(self) -> Frame:
        return copy.copy(self)


#: The fields of a Frame that ``Graph.set_frame`` may change.
FRAME_FIELDS = ("title", "colour", "nodes", "collapsed")


def check_colour(value: Any) -> str:
    """``value`` as a lower-case ``#rrggbb`` string; ValueError otherwise."""
    text = str(value).strip().lower() if isinstance(value, str) else ""
    if len(text) != 7 or text[0] != "#" or any(c not in "0123456789abcdef" for c in text[1:]):
        raise ValueError(f"a colour is written #rrggbb, got {value!r}")
    return text


Point = tuple[float, float]


@dataclass(frozen=True)
class Edge:
    """A wire from an output port to an input port."""

    src: str
    src_port: str
    dst: str
    dst_port: str

    def __str__(self) -> str:
        return f"{self.src}.{self.src_port} -> {self.dst}.{self.dst_port}"


def has_training_switch(node: Node) -> bool:
    """Whether ``node`` has the toolkit's training switch and loss coefficient: an indexing
    operator, or a foreign ONNX op a gradient goes through (a rule in
    :mod:`nodeeditor.graph.foreign_vjp`)."""
    if isinstance(node, ForeignNode):
        return foreign_vjp(node.op_type, node.domain, len(node.outputs)) is not None
    return isinstance(node, OperatorNode)
