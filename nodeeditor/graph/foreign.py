"""Foreign ONNX ops as plain data, and the runtime a higher layer lends the graph to run them.

The graph layer imports no onnx. A foreign node (:class:`~nodeeditor.graph.nodes.ForeignNode`)
holds its op type, domain and attributes as the plain typed values defined here; to run one,
infer its types or read a tensor stored in a model file, the graph asks the functions a higher
layer registered (``nodeeditor.onnx_io`` registers all three when it is imported; the command
line and the editor import it):

- :func:`register_executor` ``(call, inputs) -> outputs``: run the node on concrete values
  (each an ``np.ndarray``, or a list of them for an ONNX sequence, or None for an omitted
  optional input); returns one value per output port.
- :func:`register_type_inferrer` ``(call, input_types, constants) -> InferredTypes``: the
  output types (a :class:`ops.TensorType` per output port, None where static inference cannot
  tell) and warnings.
  ``constants`` maps input position -> the value of an input fed by a literal source (small
  ones only), so shape inference can read e.g. the axes of an Unsqueeze.
- :func:`register_tensor_loader` ``(model path, tensor name) -> np.ndarray``: one initializer
  of a model file (for :class:`~nodeeditor.graph.nodes.ModelTensorSource`).
- :func:`register_group_executor` ``(group, inputs) -> outputs per member`` (optional): run a
  connected group of foreign nodes at once (:class:`GroupCall`), which costs far less than
  one call per node (``benchmarks/README.md``). It may refuse any group by raising; the engine
  then runs the members one by one through the executor, which gives each node its own result
  or error.

Each raises :class:`ForeignOpError` with a message for the user. With nothing registered a
foreign node is an error on that node (:func:`missing_runtime_text`), never a crash.
Registration is process-wide; the last registration wins (tests may register fakes and
:func:`restore` what was there).
"""
from __future__ import annotations

import enum
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: The package a user installs to run foreign ops (named in every "missing runtime" message).
RUNTIME_PACKAGE = "onnxruntime"


class ForeignOpError(Exception):
    """A foreign op cannot run, be typed or be loaded; ``str(exc)`` is shown on the node."""


class AttrKind(enum.Enum):
    """The kind of a foreign attribute: ONNX's ``AttributeProto`` types, by their lower-case names."""

    FLOAT = "float"
    INT = "int"
    STRING = "string"
    TENSOR = "tensor"
    GRAPH = "graph"
    SPARSE_TENSOR = "sparse_tensor"
    TYPE_PROTO = "type_proto"
    FLOATS = "floats"
    INTS = "ints"
    STRINGS = "strings"
    TENSORS = "tensors"
    GRAPHS = "graphs"
    SPARSE_TENSORS = "sparse_tensors"
    TYPE_PROTOS = "type_protos"

    @property
    def is_list(self) -> bool:
        return self.value.endswith("s")

    @property
    def element(self) -> AttrKind:
        """The kind of one element of a list kind (the kind itself otherwise)."""
        if not self.is_list:
            return self
        return AttrKind(self.value[:-1])

    @property
    def opaque(self) -> bool:
        """Kinds kept as serialized protobuf bytes (:class:`Opaque`): graphs, sparse tensors, types."""
        return self.element in (AttrKind.GRAPH, AttrKind.SPARSE_TENSOR, AttrKind.TYPE_PROTO)


@dataclass(frozen=True)
class Opaque:
    """A value the graph layer keeps as bytes: the serialized protobuf (a ``GraphProto`` for a
    graph attribute such as an ``If`` branch or a ``Loop`` body). ``summary`` is a short text to
    show, e.g. ``"graph 'then_branch': 3 nodes"``."""

    data: bytes
    summary: str = ""


@dataclass(frozen=True, eq=False)
class ForeignAttribute:
    """One attribute of a foreign node, of ``kind``:

    - ``int``/``float``: a Python int / float; ``string``: a str (bytes that are not UTF-8 are
      kept with ``surrogateescape``, so they travel back to ONNX byte for byte);
    - ``tensor``: a read-only numpy array (strings as an object array of str);
    - ``graph``, ``sparse_tensor``, ``type_proto``: an :class:`Opaque`;
    - the list kinds: a tuple of the element values.

    ``tensor_names`` keeps the names the tensors of a ``tensor``/``tensors`` attribute had (one
    per tensor; empty: unnamed). Compare with :meth:`same`, not ``==`` (arrays)."""

    kind: AttrKind
    value: Any
    tensor_names: tuple[str, ...] = ()

    def same(self, other: ForeignAttribute) -> bool:
        """Whether both hold the same kind, value (arrays compared by dtype, shape and bits) and
        tensor names."""
        if not isinstance(other, ForeignAttribute) or other.kind is not self.kind:
            return False
        return _same_value(self.value, other.value) and self.tensor_names == other.tensor_names

    def text(self, limit: int = 60) -> str:
        """A short text of the value for lists and panels, e.g. ``[1, 2, 3]``, ``float32[3, 4]``."""
        return _value_text(self.value, limit)


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return False
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == object:
            return bool(np.all(a == b)) if a.size else True
        return np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True  # NaN is NaN here
    return type(a) is type(b) and a == b


def _value_text(value: Any, limit: int) -> str:
    if isinstance(value, tuple):
        text = "[" + ", ".join(_value_text(v, limit) for v in value) + "]"
    elif isinstance(value, np.ndarray):
        from ops import dtype_name

        text = f"{dtype_name(value)}[{', '.join(map(str, value.shape))}]"
        if value.size <= 8:
            text += " " + np.array2string(value, separator=", ", threshold=8).replace("\n", "")
    elif isinstance(value, Opaque):
        text = value.summary or f"{len(value.data)} bytes"
    elif isinstance(value, str):
        text = repr(value)
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_attribute(attr: ForeignAttribute) -> ForeignAttribute:
    """``attr`` with its value in the canonical form of its kind (tuples for lists, read-only
    arrays); ValueError naming what does not fit."""
    if not isinstance(attr, ForeignAttribute) or not isinstance(attr.kind, AttrKind):
        raise ValueError(f"not a foreign attribute: {attr!r}")
    kind = attr.kind
    names = tuple(attr.tensor_names)
    if names and (kind.element is not AttrKind.TENSOR or not all(isinstance(n, str) for n in names)):
        raise ValueError("only tensor attributes have tensor names, one text per tensor")
    if kind.is_list:
        if isinstance(attr.value, (str, bytes)) or not isinstance(attr.value, (list, tuple)):
            raise ValueError(f"a {kind.value} attribute holds a list, got {type(attr.value).__name__}")
        items = tuple(_check_one(kind.element, v) for v in attr.value)
        if names and len(names) != len(items):
            raise ValueError(f"{len(names)} tensor names for {len(items)} tensors")
        return ForeignAttribute(kind, items, names)
    if names and len(names) != 1:
        raise ValueError(f"{len(names)} tensor names for one tensor")
    return ForeignAttribute(kind, _check_one(kind, attr.value), names)


def _check_one(kind: AttrKind, value: Any) -> Any:
    if kind is AttrKind.INT:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"an int attribute holds an integer, got {value!r}")
        return int(value)
    if kind is AttrKind.FLOAT:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ValueError(f"a float attribute holds a number, got {value!r}")
        return float(value)
    if kind is AttrKind.STRING:
        if isinstance(value, bytes):
            return value.decode("utf-8", "surrogateescape")
        if not isinstance(value, str):
            raise ValueError(f"a string attribute holds text, got {value!r}")
        return value
    if kind is AttrKind.TENSOR:
        if isinstance(value, Opaque):
            return value
        if not isinstance(value, np.ndarray):
            raise ValueError(f"a tensor attribute holds an array, got {type(value).__name__}")
        if value.flags.writeable:
            value = value.copy()
            value.setflags(write=False)
        return value
    if not isinstance(value, Opaque):
        raise ValueError(f"a {kind.value} attribute is kept as serialized bytes, got {type(value).__name__}")
    return value


# ---------------------------------------------------------------------- what a runtime is given
@dataclass(frozen=True)
class ForeignCall:
    """Everything an executor or type inferrer needs about one foreign node, as plain data:
    the op, its attributes, its input and output arity, the ONNX names its graph attributes
    read from the enclosing graph (``captures``: fed after the regular inputs, in this order),
    and the opset of each domain (``opsets``: domain -> version; ``""`` the default domain) and
    the model's local functions (serialized ``FunctionProto`` bytes), which a call of a
    function defined in the model needs."""

    op_type: str
    domain: str
    attributes: Mapping[str, ForeignAttribute]
    n_inputs: int
    n_outputs: int
    opsets: Mapping[str, int]
    captures: tuple[str, ...] = ()
    functions: tuple[bytes, ...] = ()
    output_names: tuple[str, ...] = ()
    #: identifies the node and its revision, for caches (sessions, types)
    key: tuple = field(default=(), compare=False)

    @property
    def title(self) -> str:
        """``MatMul`` or ``com.microsoft::Attention``."""
        return self.op_type if self.domain in ("", "ai.onnx") else f"{self.domain}::{self.op_type}"


@dataclass(frozen=True)
class InferredTypes:
    """What a type inferrer found: one ``ops.TensorType`` or None (known only after a run) per
    output port, and remarks that do not stop the node from running (ONNX's strict shape
    inference refusing a node a lenient pass accepts)."""

    types: tuple[Any, ...]
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class GroupCall:
    """Foreign nodes run together: ``calls`` in an order that respects their edges, and for
    each call its inputs in port order, each ``None`` (not connected), ``("input", k)`` (the
    group's k-th input value) or ``("node", j, o)`` (output ``o`` of ``calls[j]``, an earlier
    member)."""

    calls: tuple[ForeignCall, ...]
    wiring: tuple[tuple[tuple | None, ...], ...]


Executor = Callable[[ForeignCall, Sequence[Any]], Sequence[Any]]
GroupExecutor = Callable[[GroupCall, Sequence[Any]], Sequence[Sequence[Any]]]
TypeInferrer = Callable[[ForeignCall, Sequence[Any], Mapping[int, np.ndarray]], InferredTypes]
TensorLoader = Callable[[str, str], np.ndarray]

_lock = threading.Lock()
_registry: dict[str, Callable | None] = {"executor": None, "types": None, "loader": None, "group": None}


def register_executor(fn: Executor | None) -> Executor | None:
    """Use ``fn`` to run foreign nodes; returns what was registered before (None: nothing)."""
    return _swap("executor", fn)


def register_group_executor(fn: GroupExecutor | None) -> GroupExecutor | None:
    """Use ``fn`` to run connected groups of foreign nodes at once; returns the previous one."""
    return _swap("group", fn)


def register_type_inferrer(fn: TypeInferrer | None) -> TypeInferrer | None:
    """Use ``fn`` to infer foreign nodes' output types; returns the previous one."""
    return _swap("types", fn)


def register_tensor_loader(fn: TensorLoader | None) -> TensorLoader | None:
    """Use ``fn`` to read initializers of model files; returns the previous one."""
    return _swap("loader", fn)


def _swap(slot: str, fn: Callable | None) -> Callable | None:
    with _lock:
        old, _registry[slot] = _registry[slot], fn
    return old


def executor() -> Executor | None:
    return _registry["executor"]


def group_executor() -> GroupExecutor | None:
    return _registry["group"]


def type_inferrer() -> TypeInferrer | None:
    return _registry["types"]


def tensor_loader() -> TensorLoader | None:
    return _registry["loader"]


def restore(executor_fn: Executor | None, types_fn: TypeInferrer | None, loader_fn: TensorLoader | None,
            group_fn: GroupExecutor | None = None) -> None:
    """Put back registrations saved from the ``register_*`` return values (tests)."""
    _swap("executor", executor_fn)
    _swap("types", types_fn)
    _swap("loader", loader_fn)
    _swap("group", group_fn)


def missing_runtime_text(what: str) -> str:
    """The error of a foreign node (or a model tensor) when no runtime is registered:
    ``running ONNX op MatMul needs onnxruntime or onnx: pip install onnxruntime``."""
    return f"{what} needs {RUNTIME_PACKAGE} or onnx: pip install {RUNTIME_PACKAGE}"
