"""The runtime behind foreign nodes: onnxruntime, ``onnx.reference`` where it has no kernel,
ONNX shape inference for types, and initializers read from model files.

:func:`install` registers :func:`execute`, :func:`execute_group`, :func:`infer` and
:func:`load_tensor` with :mod:`nodeeditor.graph.foreign`; importing ``nodeeditor.onnx_io``
calls it.

- :func:`execute` wraps the node in a one-node model (inputs typed by the values' dtypes and
  ranks, every dimension left open, so one session serves every shape) and runs it in an
  onnxruntime session cached per node revision and input signature (``call.key`` plus the
  dtypes and ranks); where onnxruntime cannot build or run it (no kernel for the op, the
  type or the domain, a limitation), it runs the same model in ``onnx.reference``. Where
  onnxruntime refuses the values as invalid (an index out of range), that refusal is the
  node's error: another runtime's answer on values onnxruntime calls invalid would pass for a
  result. Without onnxruntime
  installed, ``onnx.reference`` runs everything. An output the model left unnamed (an
  optional output nobody asked for) is not computed: its value is None.
- :func:`infer` runs ONNX shape inference (strict, with data propagation) on the one-node
  model with the input types (named dimensions as ``dim_param``) and the constant inputs as
  initializers; a dimension ONNX invents (``unk__0``) comes back unknown (None). When strict
  inference refuses the node, a lenient pass gives the types and the refusal becomes a
  warning: ONNX's own inference refuses some valid nodes (MeanVarianceNormalization at opset
  13), and a real mistake still fails when the node runs. Results are cached per node
  content (op, attributes, arity, opsets, captures, functions, which outputs are named), input
  types and constants, so identical nodes (a model's repeated layers) are inferred once.
  Non-tensor types (sequences, maps, optionals) and unknown ranks come back as None (typed
  after a run).
- :func:`load_tensor` reads one initializer of a model file; data stored outside the model
  (external data) is read only from the model's own folder (:func:`external_path`).

A few onnxruntime kernels disagree with the ONNX specification (ONNX's own node tests
show it, see :data:`REFERENCE_FIRST`); nodes they would run go to ``onnx.reference`` first.

- :func:`execute_group` runs a connected group of foreign nodes (the engine forms them, see
  :mod:`nodeeditor.graph.engine`) as one model in one onnxruntime session, cached per the
  members' revisions, their wiring and the input signature; every member's named outputs are
  outputs of that model, so each port's value is still there. It refuses (raises) a group
  with a member :data:`REFERENCE_FIRST` names, or one onnxruntime cannot build or run: the
  engine then runs the members one by one through :func:`execute`.

One session per group of foreign nodes rather than one per node: ``benchmarks/README.md``
has the measurement behind the choice.
"""
from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import helper

from nodeeditor.graph import foreign
from nodeeditor.graph.foreign import ForeignCall, ForeignOpError
from ops import TensorType, config

from .attributes import tensor_proto, to_onnx
from .types import elem_type, tensor_type_of

SESSION_CACHE = 256
#: onnxruntime's session option for whether idle intra-op workers busy-wait for the next run.
SPINNING = "session.intra_op.allow_spinning"
TYPE_CACHE = 8192


class _Lru:
    """A small thread-safe LRU dict."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Any, default: Any = None) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        return default

    def put(self, key: Any, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_sessions = _Lru(SESSION_CACHE)
_types = _Lru(TYPE_CACHE)


def clear_caches() -> None:
    """Forget every cached session and inferred type."""
    _sessions.clear()
    _types.clear()


# ---------------------------------------------------------------------------------- the wrapper model
def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:300] if text else type(exc).__name__


def _opset_imports(call: ForeignCall) -> list[onnx.OperatorSetIdProto]:
    opsets = dict(call.opsets)
    domain = "" if call.domain == "ai.onnx" else call.domain
    if domain not in opsets:
        opsets[domain] = 1
    return [helper.make_opsetid(d, v) for d, v in opsets.items()]


def _functions(call: ForeignCall) -> list[onnx.FunctionProto]:
    out = []
    for data in call.functions:
        f = onnx.FunctionProto()
        f.ParseFromString(data)
        out.append(f)
    return out


def _input_names(call: ForeignCall) -> list[str]:
    taken = set(call.captures)
    prefix = "in"
    while any(c.startswith(prefix) for c in taken):
        prefix += "_"
    return [f"{prefix}{i}" for i in range(call.n_inputs)] + list(call.captures)


def _output_names(call: ForeignCall) -> list[str]:
    taken = set(call.captures)
    prefix = "out"
    while any(c.startswith(prefix) for c in taken):
        prefix += "_"
    names = list(call.output_names) if call.output_names else ["x"] * call.n_outputs
    return ["" if n == "" else f"{prefix}{i}" for i, n in enumerate(names)]


def node_model(call: ForeignCall, input_types: Sequence[onnx.TypeProto | None],
               constants: Mapping[int, np.ndarray] | None = None) -> onnx.ModelProto:
    """The node alone in a model: graph input ``i`` (or the initializer of ``constants[i]``)
    feeds node input ``i`` (an input whose type is None is left out: an omitted optional
    input); captures are graph inputs of their own names; outputs are untyped."""
    names = _input_names(call)
    constants = constants or {}
    node_inputs, graph_inputs, initializers = [], [], []
    for i, (name, ttype) in enumerate(zip(names, input_types, strict=True)):
        if i in constants:
            initializers.append(tensor_proto(constants[i], name))
            used = name
        elif ttype is None:
            used = ""
        else:
            graph_inputs.append(helper.make_value_info(name, ttype))
            used = name
        if i < call.n_inputs:
            node_inputs.append(used)
    while node_inputs and node_inputs[-1] == "":
        node_inputs.pop()
    outputs = _output_names(call)
    while outputs and outputs[-1] == "":
        outputs.pop()
    node = helper.make_node(call.op_type, node_inputs, outputs, domain=call.domain)
    node.attribute.extend(to_onnx(name, attr) for name, attr in call.attributes.items())
    graph = helper.make_graph([node], "foreign", graph_inputs, [onnx.ValueInfoProto(name=o) for o in outputs if o],
                              initializer=initializers)
    return helper.make_model(graph, opset_imports=_opset_imports(call), functions=_functions(call))


# ---------------------------------------------------------------------------------- types
def _type_of_value(value: Any) -> onnx.TypeProto | None:
    """The type of a runtime value with every dimension left open (None: omitted)."""
    if value is None:
        return None
    if isinstance(value, list):
        elem = _type_of_value(value[0]) if value else helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, None)
        return helper.make_sequence_type_proto(elem)
    arr = np.asarray(value)
    from ops import dtype_name

    return helper.make_tensor_type_proto(elem_type(dtype_name(arr)), [None] * arr.ndim)


def _type_of(ttype: TensorType | None) -> onnx.TypeProto | None:
    if ttype is None:
        return None
    return helper.make_tensor_type_proto(elem_type(ttype.dtype),
                                         [d if d is None or isinstance(d, str) else int(d) for d in ttype.shape])


def _constants_key(constants: Mapping[int, np.ndarray]) -> tuple:
    out = []
    for i in sorted(constants):
        arr = np.asarray(constants[i])
        data = tuple(str(v) for v in arr.flat) if arr.dtype == object else np.ascontiguousarray(arr).tobytes()
        out.append((i, arr.dtype.str, arr.shape, data))
    return tuple(out)


def _value_key(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_value_key(v) for v in value)
    if isinstance(value, np.ndarray):
        return _constants_key({0: value})
    if isinstance(value, foreign.Opaque):
        return ("opaque", value.data)
    return (type(value).__name__, repr(value) if isinstance(value, float) else value)   # -0.0 is not 0.0


def _content_key(call: ForeignCall) -> tuple:
    """What the one-node model of ``call`` is made of (:func:`node_model`): two nodes with the
    same op, attributes, arity, opsets, captures, functions and named outputs get the same types
    for the same inputs, so a model's repeated layers are inferred once."""
    attributes = tuple((name, attr.kind, _value_key(attr.value), attr.tensor_names)
                       for name, attr in sorted(call.attributes.items()))
    return (call.op_type, call.domain, call.n_inputs, call.n_outputs, tuple(sorted(call.opsets.items())),
            call.captures, call.functions, tuple(n == "" for n in call.output_names), attributes)


def infer(call: ForeignCall, input_types: Sequence[TensorType | None],
          constants: Mapping[int, np.ndarray]) -> foreign.InferredTypes:
    """Output types of a foreign node by ONNX shape inference (see the module docstring)."""
    key = (_content_key(call), tuple(input_types), _constants_key(constants))
    cached = _types.get(key)
    if cached is not None:
        return cached
    result = _infer(call, input_types, constants)
    _types.put(key, result)
    return result


def _infer(call: ForeignCall, input_types: Sequence[TensorType | None],
           constants: Mapping[int, np.ndarray]) -> foreign.InferredTypes:
    model = node_model(call, [_type_of(t) for t in input_types], constants)
    known = {d for t in input_types if t is not None for d in t.shape if isinstance(d, str)}
    warnings: tuple[str, ...] = ()
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True, data_prop=True)
    except onnx.shape_inference.InferenceError as exc:
        message = _first_line(exc).removeprefix("[ShapeInferenceError] ").removeprefix("Inference error(s): ")
        warnings = (f"ONNX shape inference: {message}",)
        try:
            inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=True)
        except Exception:  # noqa: BLE001 - a run still tells the types
            return foreign.InferredTypes((None,) * call.n_outputs, warnings)
    except Exception:  # noqa: BLE001 - onnx raises other kinds for ops it cannot handle: not the node's fault
        return foreign.InferredTypes((None,) * call.n_outputs)
    by_name = {v.name: v.type for v in list(inferred.graph.output) + list(inferred.graph.value_info)}
    out: list[TensorType | None] = []
    for name in _output_names(call):
        ttype = tensor_type_of(by_name[name]) if name and name in by_name else None
        if ttype is not None and any(isinstance(d, str) and d not in known for d in ttype.shape):
            ttype = TensorType(ttype.dtype, tuple(None if isinstance(d, str) and d not in known else d
                                                  for d in ttype.shape))
        out.append(ttype)
    return foreign.InferredTypes(tuple(out), warnings)


# ---------------------------------------------------------------------------------- running
def _attr(call: ForeignCall, name: str, default: Any = None) -> Any:
    attr = call.attributes.get(name)
    return default if attr is None else attr.value


def _is_true(value: Any) -> bool:
    return value is not None and isinstance(value, np.ndarray) and value.size == 1 and bool(value.reshape(()))


_FLOAT8E4M3FN = onnx.TensorProto.FLOAT8E4M3FN

#: Where onnxruntime 1.32's CPU kernels give other values than the ONNX specification, found
#: by ONNX's node tests (``benchmarks/bench_node_tests.py``): op type -> a test on the call and
#: its input values (``values`` None: not known yet, as when a group is formed; the test then
#: answers whether it may hold). Those nodes run in ``onnx.reference``.
REFERENCE_FIRST: dict[str, Any] = {
    "DFT": lambda call, values: True,
    "STFT": lambda call, values: True,
    # with the output_shape input, onnxruntime places the values in another order
    "MaxUnpool": lambda call, values: call.n_inputs > 2 and (values is None or values[2] is not None),
    # float8 e4m3fn: onnxruntime rounds values beyond the largest finite number differently
    "Cast": lambda call, values: _attr(call, "to") == _FLOAT8E4M3FN,
    # (in a group the target's dtype is not known yet: it stays in the group, float8 being rare)
    "CastLike": lambda call, values: values is not None and len(values) > 1 and isinstance(values[1], np.ndarray)
    and values[1].dtype.name == "float8_e4m3fn",
    # align_corners with linear or cubic downsampling
    "Resize": lambda call, values: _attr(call, "coordinate_transformation_mode", "half_pixel") == "align_corners"
    and _attr(call, "mode", "nearest") in ("linear", "cubic"),
    # a causal mask (with past keys, or in float16)
    "Attention": lambda call, values: bool(_attr(call, "is_causal", 0)),
    # training mode draws its mask with numpy's generator in the specification's tests
    "Dropout": lambda call, values: call.n_inputs > 2 and (values is None or _is_true(values[2])),
}


def reference_first(call: ForeignCall, values: Sequence[Any] | None) -> bool:
    """Whether the node goes to ``onnx.reference`` before onnxruntime (:data:`REFERENCE_FIRST`);
    ``values`` None: whether it may, its input values not known yet."""
    if call.domain not in ("", "ai.onnx"):
        return False
    rule = REFERENCE_FIRST.get(call.op_type)
    return bool(rule and rule(call, values))


def _ort():
    try:
        import onnxruntime
    except ImportError:
        return None
    return onnxruntime


class _Runner:
    """One node at one input signature: an onnxruntime session, or ``onnx.reference`` where
    onnxruntime has none; ``ort_error`` says why onnxruntime was not used."""

    def __init__(self, model: onnx.ModelProto) -> None:
        self.model = model
        self.session = None
        self.reference = None
        self.ort_error: str | None = None
        ort = _ort()
        if ort is None:
            self.ort_error = "onnxruntime is not installed"
            return
        options = ort.SessionOptions()
        options.intra_op_num_threads = config.threads() or 1   # a thread pool per session costs more than
        options.inter_op_num_threads = 1                       # one small node gains (benchmarks/README.md)
        # the pool's workers block after a run instead of spinning: spinning, they hold the cores
        # the engine's next node (ops' own threads) needs (benchmarks/README.md)
        options.add_session_config_entry(SPINNING, "0")
        options.log_severity_level = 4
        try:
            self.session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own kinds (NOT_IMPLEMENTED, Fail...)
            self.ort_error = _first_line(exc)

    def run_reference(self, feeds: dict) -> list:
        if self.reference is None:
            from onnx.reference import ReferenceEvaluator

            self.reference = ReferenceEvaluator(self.model)
        return list(self.reference.run(None, feeds))


def _value(v: Any) -> Any:
    """A value as the runtimes take it: an array, a list of arrays (a sequence), or None."""
    if v is None:
        return None
    if isinstance(v, (list, tuple)):
        return [np.asarray(x) for x in v]
    return np.asarray(v)


def _signature(values: Sequence[Any]) -> tuple:
    out = []
    for v in values:
        if v is None:
            out.append(None)
        elif isinstance(v, list):
            out.append(("seq", tuple(_signature(v[:1]))))
        else:
            arr = np.asarray(v)
            out.append((arr.dtype.str, arr.ndim))
    return tuple(out)


def execute(call: ForeignCall, values: Sequence[Any]) -> list:
    """The outputs of the node on ``values`` (see the module docstring)."""
    values = [_value(v) for v in values]
    key = (call.key, _signature(values))
    runner = _sessions.get(key) if call.key else None
    if runner is None:
        model = node_model(call, [_type_of_value(v) for v in values])
        runner = _Runner(model)
        if call.key:
            _sessions.put(key, runner)
    names = _input_names(call)
    feeds = {name: v for name, v in zip(names, values, strict=True) if v is not None}
    wanted = [n for n in _output_names(call) if n]
    problems = []
    if reference_first(call, values):
        try:
            return _ordered(call, dict(zip(wanted, runner.run_reference(feeds), strict=True)))
        except Exception as exc:  # noqa: BLE001 - the reference raises many kinds; onnxruntime may still run it
            problems.append(f"onnx.reference: {_first_line(exc)}")
    if runner.session is not None:
        try:
            got = dict(zip(wanted, runner.session.run(wanted, feeds), strict=True))
            return _ordered(call, got)
        except Exception as exc:  # noqa: BLE001 - a bad value, or a kernel missing for this case
            if _refused_values(exc):   # that refusal is the node's error
                raise ForeignOpError(f"{call.title} failed: onnxruntime: {_first_line(exc)}") from None
            problems.append(f"onnxruntime: {_first_line(exc)}")
    elif runner.ort_error:
        problems.append(f"onnxruntime: {runner.ort_error}")
    if problems and problems[0].startswith("onnx.reference"):
        raise ForeignOpError(f"{call.title} failed: " + "; ".join(problems))
    try:
        got = dict(zip(wanted, runner.run_reference(feeds), strict=True))
    except Exception as exc:  # noqa: BLE001 - the reference raises many kinds
        problems.append(f"onnx.reference: {_first_line(exc)}")
        raise ForeignOpError(f"{call.title} failed: " + "; ".join(problems)) from None
    return _ordered(call, got)


#: Words of onnxruntime's refusals of index values that it reports as a plain FAIL
#: (GatherElements: "Value in indices must be within bounds [-5 , 4]").
_INDEX_REFUSAL = re.compile(r"(?i)out of (data )?(bounds|range)|within (the )?(inclusive )?(bounds|range)|"
                            r"invalid ind(ex|ice)")


def _refused_values(exc: Exception) -> bool:
    """Whether onnxruntime refused the values it was given (its INVALID_ARGUMENT, or an index
    out of range in its words), so that no other runtime's answer may stand in. Its other
    failures (no kernel, a limitation such as ReduceMax of an empty bool set, values its
    binding cannot take) leave ``onnx.reference`` to try."""
    if not type(exc).__module__.endswith("onnxruntime_pybind11_state"):
        return False
    return type(exc).__name__ == "InvalidArgument" or bool(_INDEX_REFUSAL.search(str(exc)))


def _group_model(group: foreign.GroupCall, values: Sequence[Any]) -> tuple[onnx.ModelProto, list[list[str]]]:
    """The group as one model: input ``x<k>`` is the group's k-th input value, output ``o`` of
    member ``j`` is ``n<j>_<o>`` (unnamed where the member's model left it unnamed)."""
    outputs: list[list[str]] = []
    nodes, graph_outputs, functions = [], [], {}
    for j, (call, wires) in enumerate(zip(group.calls, group.wiring, strict=True)):
        if call.captures:
            raise ForeignOpError("a node whose graph attributes read enclosing values runs alone")
        inputs = ["" if w is None else f"x{w[1]}" if w[0] == "input" else f"n{w[1]}_{w[2]}" for w in wires]
        while inputs and inputs[-1] == "":
            inputs.pop()
        named = list(call.output_names) if call.output_names else ["x"] * call.n_outputs
        outs = ["" if name == "" else f"n{j}_{o}" for o, name in enumerate(named)]
        outputs.append(outs)
        written = list(outs)
        while written and written[-1] == "":
            written.pop()
        node = helper.make_node(call.op_type, inputs, written, domain=call.domain, name=f"n{j}")
        node.attribute.extend(to_onnx(name, attr) for name, attr in call.attributes.items())
        nodes.append(node)
        graph_outputs += [onnx.ValueInfoProto(name=o) for o in outs if o]
        for data in call.functions:
            functions.setdefault(data, None)
    graph_inputs = [helper.make_value_info(f"x{k}", _type_of_value(v)) for k, v in enumerate(values)]
    opsets: dict[str, int] = {}
    for call in group.calls:
        opsets.update(call.opsets)
        domain = "" if call.domain == "ai.onnx" else call.domain
        opsets.setdefault(domain, 1)
    funcs = []
    for data in functions:
        f = onnx.FunctionProto()
        f.ParseFromString(data)
        funcs.append(f)
    model = helper.make_model(helper.make_graph(nodes, "foreign group", graph_inputs, graph_outputs),
                              opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()], functions=funcs)
    return model, outputs


def execute_group(group: foreign.GroupCall, values: Sequence[Any]) -> list[list]:
    """Every member's outputs, from one onnxruntime session (see the module docstring)."""
    if any(reference_first(c, None) for c in group.calls):
        raise ForeignOpError("a member goes to onnx.reference first")
    if any(v is None for v in values):
        raise ForeignOpError("an input without a value")
    values = [_value(v) for v in values]
    keyed = all(c.key for c in group.calls)
    key = ("group", tuple(c.key for c in group.calls), group.wiring, _signature(values))
    cached = _sessions.get(key) if keyed else None
    if cached is None:
        model, outputs = _group_model(group, values)
        runner = _Runner(model)
        cached = (runner, outputs)
        if keyed:
            _sessions.put(key, cached)
    runner, outputs = cached
    if runner.session is None:
        raise ForeignOpError(runner.ort_error or "no onnxruntime session")
    wanted = [o for outs in outputs for o in outs if o]
    got = dict(zip(wanted, runner.session.run(wanted, {f"x{k}": v for k, v in enumerate(values)}), strict=True))
    return [[_plain(got[o]) if o else None for o in outs] for outs in outputs]


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.dtype.kind in "US":
        return value.astype(object)
    if isinstance(value, np.generic):
        return np.asarray(value)
    return value


def _ordered(call: ForeignCall, got: Mapping[str, Any]) -> list:
    out = []
    for name in _output_names(call):
        value = got.get(name) if name else None
        if isinstance(value, np.ndarray) and value.dtype.kind in "US":
            value = value.astype(object)
        if isinstance(value, np.generic):
            value = np.asarray(value)
        out.append(value)
    return out


# ---------------------------------------------------------------------------------- model tensors
def external_path(model_dir: Path, location: str, tensor: str, where: str) -> Path:
    """Where an external-data ``location`` points, checked: relative, inside ``model_dir``
    (symbolic links followed), a regular file. ForeignOpError naming the tensor otherwise."""
    loc = Path(location)
    if not location or loc.is_absolute() or loc.drive:
        raise ForeignOpError(f"{where}: tensor {tensor!r} keeps its data at {location!r}; external data is "
                             "read only from the model's own folder (a relative path inside it)")
    base = model_dir.resolve()
    target = (base / loc).resolve()
    if target != base and base not in target.parents:
        raise ForeignOpError(f"{where}: tensor {tensor!r} keeps its data at {location!r}, which leaves the "
                             "model's folder; external data is read only from the model's own folder")
    if not target.exists():
        raise ForeignOpError(f"{where}: the external data file {location!r} of tensor {tensor!r} is missing")
    if not target.is_file():
        raise ForeignOpError(f"{where}: the external data {location!r} of tensor {tensor!r} is not a regular file")
    return target


def read_tensor(tensor: onnx.TensorProto, model_dir: Path | None, where: str) -> np.ndarray:
    """The values of an initializer; external data read from ``model_dir`` only (checked by
    :func:`external_path`, and against the tensor's declared size)."""
    from onnx import numpy_helper

    if tensor.data_location == onnx.TensorProto.EXTERNAL:
        if model_dir is None:
            raise ForeignOpError(f"{where}: tensor {tensor.name!r} keeps its data in another file, and a model "
                                 "read from memory has no folder to read it from")
        info = {e.key: e.value for e in tensor.external_data}
        path = external_path(model_dir, info.get("location", ""), tensor.name, where)
        offset, length = int(info.get("offset", 0) or 0), info.get("length")
        itemsize = np.dtype(helper.tensor_dtype_to_np_dtype(tensor.data_type)).itemsize
        need = math.prod(tensor.dims) * itemsize
        if tensor.data_type in (onnx.TensorProto.INT4, onnx.TensorProto.UINT4, onnx.TensorProto.FLOAT4E2M1):
            need = (math.prod(tensor.dims) + 1) // 2
        size = path.stat().st_size
        place = f"{info.get('location')!r}"
        if length is not None:   # the bytes the tensor says it takes: as onnx.load, they must be there and fit
            try:
                declared = int(length)
            except ValueError:
                raise ForeignOpError(f"{where}: tensor {tensor.name!r} declares a length of {length!r} bytes, "
                                     "which is not a number") from None
            if declared != need:
                raise ForeignOpError(f"{where}: tensor {tensor.name!r} declares {declared} bytes of external "
                                     f"data, but its type and shape take {need}")
        if offset < 0 or offset + need > size:
            raise ForeignOpError(f"{where}: tensor {tensor.name!r} needs {need} bytes at offset {offset} of "
                                 f"{place}, which holds {size}")
        with open(path, "rb") as handle:
            handle.seek(offset)
            raw = handle.read(need)
        copy = onnx.TensorProto()
        copy.CopyFrom(tensor)
        copy.ClearField("external_data")
        copy.data_location = onnx.TensorProto.DEFAULT
        copy.raw_data = raw
        tensor = copy
    try:
        arr = numpy_helper.to_array(tensor)
    except Exception as exc:  # noqa: BLE001 - onnx raises many kinds on a damaged tensor
        raise ForeignOpError(f"{where}: tensor {tensor.name!r} cannot be read: {_first_line(exc)}") from None
    return arr.astype(object) if arr.dtype.kind in "US" else arr


_models = _Lru(2)


def load_tensor(model_path: str, name: str) -> np.ndarray:
    """Initializer ``name`` of the model file ``model_path`` (the parsed model is kept while the
    file's size and modification time stay the same)."""
    path = Path(model_path)
    try:
        stat = path.stat()
    except OSError as exc:
        raise ForeignOpError(f"{path}: cannot read the model: {exc.strerror or exc}") from None
    if not path.is_file():
        raise ForeignOpError(f"{path}: the model is not a regular file")
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    model = _models.get(key)
    if model is None:
        try:
            model = onnx.load(str(path), load_external_data=False)
        except Exception as exc:  # noqa: BLE001 - protobuf raises DecodeError and friends
            raise ForeignOpError(f"{path}: not a readable ONNX model ({_first_line(exc)})") from None
        _models.put(key, model)
    for tensor in model.graph.initializer:
        if tensor.name == name:
            return read_tensor(tensor, path.parent, str(path))
    raise ForeignOpError(f"{path}: the model has no initializer {name!r} any more; import it again")


def install() -> None:
    """Register :func:`execute`, :func:`execute_group`, :func:`infer` and :func:`load_tensor` with
    the graph layer."""
    foreign.register_executor(execute)
    foreign.register_type_inferrer(infer)
    foreign.register_tensor_loader(load_tensor)
    foreign.register_group_executor(execute_group)
