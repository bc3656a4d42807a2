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

Training fields (none of them changes a forward value, so none changes ``revision``):
literal, generator and file sources (:class:`TrainableSource`) have ``trainable``; an
operator has ``training`` (off: no gradient flows through it to its inputs) and
``loss_coefficient`` (multiplies the gradient it sends to its inputs).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

import ops
from ops import TensorType

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

SOURCE_KINDS = (LITERAL, GENERATOR, FILE, INPUT)
NODE_KINDS = SOURCE_KINDS + (OPERATOR, OUTPUT, LOSS)


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
    against and which files may be read."""

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
    """A source whose tensor a training run may change (literal, generator, file): with
    ``trainable`` set, ``indexflow grad`` reports its gradient and a training run updates it
    (a trained generator or file source becomes a literal, see ``nodeeditor.graph.training``)."""

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

    def readable_path(self, scope: FileScope) -> Path:
        """The file to read; SourceError when there is none or the scope refuses it."""
        if not self.path:
            raise SourceError("no file chosen")
        refusal = scope.refusal(self.path)
        if refusal is not None:
            raise SourceError(refusal)
        return scope.resolve(self.path)

    def source_type(self, scope: FileScope) -> TensorType:
        return file_type(self.readable_path(scope), self.key, self.dtype)

    def source_value(self, scope: FileScope) -> np.ndarray:
        return load_file(self.readable_path(scope), self.key, self.dtype)

    def outside_stamp(self, scope: FileScope) -> tuple:
        if self.path and scope.refusal(self.path) is not None:
            return ("refused",)
        try:
            return file_stamp(scope.resolve(self.path))
        except OSError:
            return ("missing",)


@dataclass(eq=False)
class InputSource(Source):
    """A graph input. ``name`` is the input's name in an exported model; ``example`` is the
    value used when running in the editor (read-only array)."""

    example: np.ndarray = field(default_factory=lambda: frozen_array(np.zeros((1,), np.float32)))
    kind: ClassVar[str] = INPUT

    def source_type(self, scope: FileScope) -> TensorType:
        return TensorType.of(self.example)

    def source_value(self, scope: FileScope) -> np.ndarray:
        return self.example


@dataclass(eq=False)
class OperatorNode(Node):
    """One ``ops`` operator. ``attributes`` holds only explicitly set values (the schema's
    defaults apply to the rest). ``training`` and ``loss_coefficient`` are the toolkit's
    training switch and loss-derivative coefficient: they act on the backward pass only.
    ``bypassed``: the op is switched off and passes its data input through unchanged (only
    where :func:`bypass_refusal` allows it)."""

    op: str = "Gather"
    attributes: dict[str, Any] = field(default_factory=dict)
    training: bool = True
    loss_coefficient: float = 1.0
    bypassed: bool = False
    kind: ClassVar[str] = OPERATOR

    @property
    def schema(self) -> ops.OpSchema:
        return ops.get_schema(self.op)

    def input_ports(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.schema.inputs)

    def optional_inputs(self) -> frozenset[str]:
        return frozenset(p.name for p in self.schema.inputs if p.optional)

    def output_ports(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.schema.outputs)


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


NODE_CLASSES: dict[str, type[Node]] = {
    cls.kind: cls
    for cls in (LiteralSource, GeneratorSource, FileSource, InputSource, OperatorNode, OutputNode, LossNode)
}

# Source fields that Graph.set_source may change, per kind.
SOURCE_FIELDS: dict[str, tuple[str, ...]] = {
    LITERAL: ("value",),
    GENERATOR: ("generator", "params"),
    FILE: ("path", "key", "dtype"),
    INPUT: ("example",),
}


@dataclass(eq=False)
class Frame:
    """A titled, coloured box drawn around a group of nodes (``nodes``: their ids); moving
    it moves them. ``colour`` is ``#rrggbb``. A view object: no effect on values."""

    id: str
    title: str = "Frame"
    colour: str = "#5a7bb5"
    nodes: tuple[str, ...] = ()

    def clone(self) -> Frame:
        return copy.copy(self)


#: The fields of a Frame that ``Graph.set_frame`` may change.
FRAME_FIELDS = ("title", "colour", "nodes")


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
