"""Graph <-> plain data (the JSON structure of the file format, version 3).

Free functions over the public :class:`~nodeeditor.graph.document.Graph` API:
:func:`graph_to_dict` (a document or a selection, for copy and tests),
:func:`graph_from_dict` (a new graph) and :func:`paste_dict` (add copied nodes to a
graph with fresh ids). ``fileformat`` adds the file, the sidecar and version
migration. Structure::

    {"format": "indexflow-graph", "version": 3,
     "settings": {"name": ..., "description": ..., "opset": 18},
     "model": {...ModelInfo, only when the graph came from a model},
     "nodes": [{"id", "kind", "name", "position": [x, y], ...kind fields}],
     "edges": [{"from": [node_id, port], "to": [node_id, port]}],
     "frames": [{"id", "title", "colour": "#rrggbb", "nodes": [node_id, ...], "collapsed": true}]}

Kind fields: literal ``value`` (tensor); generator ``generator``, ``params`` (a number that
is not finite as ``"inf"``, ``"-inf"``, ``"nan"``: JSON has no such numbers);
file ``path`` (+ ``key``, ``dtype`` when set); input ``example`` (tensor);
op ``op``, ``attributes`` (only explicitly set ones); output none; loss ``loss`` (its
kind, e.g. ``"mean_squared_error"``).

Version 3 (ONNX import of any model): foreign ``op_type``, ``domain`` (when not the default),
``attributes`` (name -> ``{"kind", "value"}``, see :func:`attribute_to_dict`), ``inputs``,
``outputs`` (port names), and when not empty ``optional``, ``captures``, ``tensor_names``;
model_tensor ``path`` (the model, relative to the graph file), ``tensor``, ``dtype``, ``shape``,
``nbytes``, ``checksum`` (the values stay in the model); input ``shape`` (a declared shape with
named dimensions: ints, strings, null) when set; an input of another ONNX type has
``onnx_type`` (``{"base64", "summary"}``) and its ``example`` is ``{"sequence": [tensors]}``,
``{"none": true}`` or a tensor. ``"model"`` holds :class:`ModelInfo`.

Training fields (version 2), written only when they differ from their defaults so files
stay small: op and foreign ``"training": false`` (default true) and ``"loss_coefficient": x``
(default 1); literal, generator, file and model tensor ``"trainable": true`` (default
false). A missing field reads as its default.

Fields of version 3 added later (optional, written only when set; a reader that does not know
them ignores them): op ``tensor_names`` (the ONNX names its outputs had in an imported model);
literal, generator, file and model_tensor ``"overridable": true`` (an export lists the tensor as
a graph input too).

View fields (version 3): op ``"bypassed": true`` when set; any node may have
``"collapsed": true``; an edge with reroute points has ``"via": [[x, y], ...]``; ``frames``
may be left out (no frames). A frame drawn as one group block has ``"collapsed": true``
(written only when set; a missing field reads as false). An optional field of version 3, not a
new version: a reader that does not know it ignores it and shows the frame expanded, and a
file without it loads as before.

A tensor is ``{"dtype", "shape", ...}`` plus one of: ``"data"`` (nested lists, readable:
floats in their shortest round-trip form, ``"nan"``/``"-nan"``/``"inf"``/``"-inf"`` as
strings, complex as ``[re, im]``), ``"base64"`` (raw little-endian bytes: large tensors, and
small ones with a NaN whose payload text would lose), or
``"sidecar"``/``"key"`` (an array in the ``.npz`` beside the file).
"""
from __future__ import annotations

import base64
import functools
import math
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

import ops

from . import nodes as N
from .base import SETTINGS_DEFAULTS, ConnectionRefused
from .dims import ShapeTextError, parse_shape
from .document import Graph
from .foreign import AttrKind, ForeignAttribute, Opaque, check_attribute
from .losses import LossError, LossKind
from .model_info import EMPTY as EMPTY_MODEL_INFO
from .model_info import ModelInfo
from .paths import rebase_path
from .sources import generator_params

FORMAT = "indexflow-graph"
VERSION = 3
INLINE_LIMIT = 4096  # tensors with more elements are not written as readable lists
ALL_DTYPE_NAMES = frozenset(ops.dtypes.HELD_DTYPE_NAMES)

TensorEncoder = Callable[[np.ndarray, str], dict]   # (array, suggested key) -> tensor dict
TensorDecoder = Callable[[Mapping[str, Any]], np.ndarray] | None


# ---------------------------------------------------------------------- tensors
@functools.cache
def _has_signed_nan(dtype: np.dtype) -> bool:
    """True when ``dtype`` has a NaN of each sign (the IEEE formats, float8e4m3fn, float8e5m2),
    False for the formats with one NaN (the ``fnuz`` float8s: 0x80; float8e8m0: 0xff)."""
    neg, pos = (np.array([v]).astype(dtype) for v in (-math.nan, math.nan))
    return math.copysign(1.0, float(neg[0])) != math.copysign(1.0, float(pos[0]))


#: How a number that is not finite is written (JSON has no such numbers).
NON_FINITE_TEXTS = ("nan", "-nan", "inf", "-inf")


def _short_float(x: Any, dtype: np.dtype) -> float | str:
    """``x`` as a JSON value that reads back as the same bits: the shortest decimal that does,
    else the float; ``"nan"``, ``"-nan"`` (the sign bit set, for dtypes with a NaN of each
    sign), ``"inf"``, ``"-inf"``. NaN payloads are not kept: NaNs read back as the quiet NaN
    (:func:`inline_tensor` keeps the bytes of a tensor with any other NaN)."""
    f = float(x)
    if math.isnan(f):
        return "-nan" if math.copysign(1.0, f) < 0 and _has_signed_nan(dtype) else "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    try:
        candidate = float(str(x))
        if np.array(candidate, dtype=dtype) == x:
            return candidate
    except (ValueError, OverflowError):
        pass
    return f


def _readable(arr: np.ndarray) -> list:
    """The values of ``arr`` as a flat list of JSON values."""
    kind = arr.dtype.kind
    if kind in "biu":
        return arr.ravel().tolist()
    if ops.dtypes.is_ml_dtype(arr) and not ops.dtypes.is_ml_float(arr):   # int4, uint4, int2, uint2
        return arr.astype(np.int64).ravel().tolist()
    if arr.dtype == object:
        return [str(v) for v in arr.flat]
    if kind == "c":
        part = arr.real.dtype
        flat = [[_short_float(v.real, part), _short_float(v.imag, part)] for v in arr.flat]
    else:  # float16/32/64 and the ml_dtypes floats
        flat = [_short_float(v, arr.dtype) for v in arr.flat]
    return flat


def _nest(flat: list, shape: tuple[int, ...]) -> Any:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = len(flat) // shape[0] if shape[0] else 0
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _nan_bits_kept(arr: np.ndarray) -> bool:
    """Whether every NaN of ``arr`` reads back bit for bit from its text (``"nan"`` is the
    quiet NaN): a NaN with a payload, or a signalling one, is kept only by the raw bytes."""
    kind = arr.dtype.kind
    if kind not in "fcV" and not ops.dtypes.is_ml_float(arr):
        return True
    flat = np.ascontiguousarray(arr)
    if kind == "c":
        flat = flat.view(np.float32 if arr.dtype.itemsize == 8 else np.float64)
    flat = flat.reshape(-1)
    try:
        nans = flat[np.isnan(flat)]
    except TypeError:   # a format numpy cannot test: keep its bytes
        return False
    back = np.array([float(_short_float(v, flat.dtype)) for v in nans], dtype=flat.dtype)
    return back.tobytes() == nans.tobytes()


def inline_tensor(arr: np.ndarray, key: str = "") -> dict:
    """Tensor dict with the values inline: readable lists up to INLINE_LIMIT elements
    (and always for strings), base64 bytes above, or where a NaN's bits would be lost in
    text (:func:`_nan_bits_kept`)."""
    arr = np.asarray(arr)
    head = {"dtype": ops.dtype_name(arr), "shape": list(arr.shape)}
    if arr.dtype == object or arr.size <= INLINE_LIMIT and _nan_bits_kept(arr):
        return {**head, "data": _nest(_readable(arr), arr.shape)}
    raw = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    return {**head, "base64": base64.b64encode(raw).decode("ascii")}


def _flatten(data: Any, shape: tuple[int, ...], complex_: bool, where: str = "") -> list:
    if not shape:
        if isinstance(data, list) and not (complex_ and len(data) == 2 and not isinstance(data[0], list)):
            raise ValueError(f"tensor data{where} is a list where the shape says a single value")
        return [data]
    if not isinstance(data, list) or len(data) != shape[0]:
        got = f"{len(data)} entries" if isinstance(data, list) else "a single value"
        raise ValueError(f"tensor data{where} has {got} where the shape says {shape[0]}")
    out: list = []
    for i, item in enumerate(data):
        out.extend(_flatten(item, shape[1:], complex_, f"{where}[{i}]"))
    return out


def _number(v: Any, kind: str) -> Any:
    if kind in "iu":
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"expected an integer, got {v!r}")
        return v
    if kind == "b":
        if not isinstance(v, bool):
            raise ValueError(f"expected true or false, got {v!r}")
        return v
    if isinstance(v, str) and v in NON_FINITE_TEXTS:
        return float(v)  # float("-nan") has the sign bit set; casts to every float dtype keep it
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"expected a number, got {v!r}")
    return float(v)


def decode_tensor(spec: Mapping[str, Any], sidecar: TensorDecoder = None) -> np.ndarray:
    """The array a tensor dict describes; ValueError saying what does not fit (unknown dtype,
    values vs shape, byte count vs shape). ``sidecar`` reads ``"sidecar"`` tensors."""
    if not isinstance(spec, Mapping):
        raise ValueError(f"a tensor must be an object, got {type(spec).__name__}")
    name = spec.get("dtype")
    if name not in ALL_DTYPE_NAMES:
        raise ValueError(f"unknown dtype {name!r}")
    dtype = np.dtype(ops.dtype_of(name))
    shape_list = spec.get("shape")
    if not isinstance(shape_list, list) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape_list):
        raise ValueError(f"tensor shape must be a list of non-negative integers, got {shape_list!r}")
    shape = tuple(shape_list)
    count = math.prod(shape)
    if "data" in spec:
        data = spec["data"]
        if dtype.kind in "biu" and shape and not isinstance(data, list):
            raise ValueError(f"tensor data is a single value where the shape says {shape[0]}")
        flat = _flatten(data, shape, dtype.kind == "c")
        if dtype.kind == "O":
            if not all(isinstance(v, str) for v in flat):
                raise ValueError("string tensor data must hold only strings")
            arr = np.empty(count, dtype=object)
            arr[:] = flat
            return arr.reshape(shape)
        if dtype.kind == "c":
            pairs = []
            for v in flat:
                if not (isinstance(v, list) and len(v) == 2):
                    raise ValueError(f"complex values are written [re, im], got {v!r}")
                pairs.append(complex(_number(v[0], "f"), _number(v[1], "f")))
            return np.array(pairs, dtype=dtype).reshape(shape)
        values = [_number(v, dtype.kind if dtype.kind in "biu" else "f") for v in flat]
        if dtype.kind in "biu":
            try:
                return np.array(values, dtype=dtype).reshape(shape)
            except OverflowError:  # an integer outside the dtype's range (numpy refuses to wrap it)
                low, high = (0, 1) if dtype.kind == "b" else (np.iinfo(dtype).min, np.iinfo(dtype).max)
                first = next((i for i, v in enumerate(values) if not low <= v <= high), 0)
                raise ValueError(f"tensor value {values[first]} (element {first}) does not fit {name} "
                                 f"({low} to {high})") from None
        wide = np.array(values, dtype=np.float64)
        with np.errstate(over="ignore"):
            arr = wide.astype(dtype)
        overflow = np.isfinite(wide) & ~np.isfinite(arr.astype(np.float64))
        if overflow.any():
            first = int(np.argmax(overflow))
            raise ValueError(f"tensor value {float(wide[first])!r} (element {first}) is too large for {name}")
        return arr.reshape(shape)
    if "base64" in spec:
        try:
            raw = base64.b64decode(spec["base64"], validate=True)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"tensor base64 data is not valid: {exc}") from None
        if dtype.kind == "O":
            raise ValueError("string tensors cannot be stored as bytes")
        expected = count * dtype.itemsize
        if len(raw) != expected:
            raise ValueError(f"tensor has {len(raw)} bytes but dtype {name} and shape {list(shape)} need {expected}")
        return np.frombuffer(raw, dtype=dtype.newbyteorder("<")).astype(dtype).reshape(shape)
    if "sidecar" in spec:
        if sidecar is None:
            raise ValueError("tensor refers to a sidecar file but none is available here")
        arr = np.asarray(sidecar(spec))
        if ops.dtypes.is_ml_dtype(dtype) and arr.dtype == np.dtype(f"u{dtype.itemsize}"):
            arr = arr.view(dtype)  # ml_dtypes arrays are stored as their bits
        if arr.shape != shape:
            raise ValueError(f"sidecar array {spec.get('key')!r} has shape {list(arr.shape)}, "
                             f"the file says {list(shape)}")
        if ops.dtype_name(arr) != name:
            raise ValueError(f"sidecar array {spec.get('key')!r} has dtype {ops.dtype_name(arr)}, the file says {name}")
        return arr
    raise ValueError("tensor has none of 'data', 'base64' or 'sidecar'")


# ---------------------------------------------------------------------- nodes and graphs
def node_to_dict(node: N.Node, encode: TensorEncoder) -> dict[str, Any]:
    """One node as plain data (see the module docstring)."""
    out: dict[str, Any] = {"id": node.id, "kind": node.kind, "name": node.name,
                           "position": [_num(node.position[0]), _num(node.position[1])]}
    if isinstance(node, N.LiteralSource):
        out["value"] = encode(node.value, f"{node.id}.value")
    elif isinstance(node, N.InputSource) and node.onnx_type is not None:
        out["onnx_type"] = _opaque_to_dict(node.onnx_type)
        example = node.example
        out["example"] = ({"none": True} if example is None else
                          {"sequence": [encode(v, f"{node.id}.example.{i}") for i, v in enumerate(example)]}
                          if isinstance(example, tuple) else encode(example, f"{node.id}.example"))
    elif isinstance(node, N.InputSource):
        out["example"] = encode(node.example, f"{node.id}.example")
    elif isinstance(node, N.GeneratorSource):
        out["generator"] = node.generator
        out["params"] = {k: _param_json(v) for k, v in node.params.items()}
    elif isinstance(node, N.FileSource):
        out["path"] = node.path
        if node.key is not None:
            out["key"] = node.key
        if node.dtype is not None:
            out["dtype"] = node.dtype
    elif isinstance(node, N.OperatorNode):
        out["op"] = node.op
        out["attributes"] = dict(node.attributes)
        out.update(_training_to_dict(node))
        if node.bypassed:
            out["bypassed"] = True
        if node.tensor_names:
            out["tensor_names"] = list(node.tensor_names)
    elif isinstance(node, N.LossNode):
        out["loss"] = node.loss.value
    elif isinstance(node, N.ForeignNode):
        out.update(foreign_to_dict(node, encode))
        out.update(_training_to_dict(node))
    elif isinstance(node, N.ModelTensorSource):
        out.update(path=node.path, tensor=node.tensor, dtype=node.dtype, shape=list(node.shape),
                   nbytes=node.nbytes, checksum=node.checksum)
    if isinstance(node, N.InputSource) and node.shape is not None:
        out["shape"] = list(node.shape)
    if isinstance(node, N.TrainableSource) and node.trainable:
        out["trainable"] = True
    if isinstance(node, N.Source) and node.overridable:
        out["overridable"] = True
    if node.collapsed:
        out["collapsed"] = True
    return out


def _param_json(v: Any) -> Any:
    """A generator parameter as JSON: a non-finite float as tensors write it (``"-inf"``;
    JSON has no such numbers, and a ``full`` of -inf is the start of a running maximum)."""
    if isinstance(v, (float, np.floating)) and not math.isfinite(v):
        return _short_float(v, np.dtype(np.float64))
    return v


def _param_value(v: Any) -> Any:
    """:func:`_param_json` read back (no generator parameter is one of those words otherwise)."""
    return float(v) if isinstance(v, str) and v in NON_FINITE_TEXTS else v


def _num(x: float) -> float | int:
    return int(x) if float(x).is_integer() else float(x)


def _require(d: Mapping[str, Any], key: str, types: type | tuple, what: str) -> Any:
    if key not in d:
        raise ValueError(f"{what} has no {key!r}")
    value = d[key]
    allowed = types if isinstance(types, tuple) else (types,)
    if not isinstance(value, types) or isinstance(value, bool) and bool not in allowed:
        raise ValueError(f"{what}: {key!r} has the wrong type ({type(value).__name__})")
    return value


def _optional_bool(d: Mapping[str, Any], key: str, default: bool) -> bool:
    value = d.get(key, default)
    if not isinstance(value, bool):
        raise ValueError(f"{key!r} must be true or false, got {value!r}")
    return value


def node_from_dict(d: Mapping[str, Any], sidecar: TensorDecoder) -> N.Node:
    """A node from plain data; ValueError naming the node on any problem."""
    if not isinstance(d, Mapping):
        raise ValueError(f"a node must be an object, got {type(d).__name__}")
    node_id = _require(d, "id", str, "a node")
    what = f"node {node_id!r}"
    kind = _require(d, "kind", str, what)
    if kind not in N.NODE_CLASSES:
        raise ValueError(f"{what} has unknown kind {kind!r} (known: {', '.join(N.NODE_KINDS)})")
    name = d.get("name", node_id)
    if not isinstance(name, str):
        raise ValueError(f"{what}: 'name' must be a string")
    pos = d.get("position", [0, 0])
    if not (isinstance(pos, list) and len(pos) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in pos)):
        raise ValueError(f"{what}: 'position' must be [x, y], two finite numbers")
    flags = {key: d.get(key, False) for key in ("collapsed", "bypassed")}
    if not all(isinstance(v, bool) for v in flags.values()):
        raise ValueError(f"{what}: 'collapsed' and 'bypassed' must be true or false")
    if flags["bypassed"] and kind != N.OPERATOR:
        raise ValueError(f"{what}: only an operator can be bypassed")
    common = dict(id=node_id, name=name, position=(float(pos[0]), float(pos[1])), collapsed=flags["collapsed"])
    try:
        if "trainable" in d and kind not in (N.LITERAL, N.GENERATOR, N.FILE, N.MODEL_TENSOR):
            raise ValueError(f"a {kind} node cannot be trainable (only literal, generator, file and model tensor "
                             "sources)")
        trainable = _optional_bool(d, "trainable", False)
        if kind in (N.LITERAL, N.GENERATOR, N.FILE, N.MODEL_TENSOR):
            common["trainable"] = trainable
        if "overridable" in d and kind not in N.WEIGHT_KINDS:
            raise ValueError(f"a {kind} node cannot be overridable (only literal, generator, file and model_tensor "
                             "sources: a graph input is one already)")
        if kind in N.WEIGHT_KINDS:
            common["overridable"] = _optional_bool(d, "overridable", False)
        if kind == N.LITERAL:
            value = decode_tensor(_require(d, "value", dict, what), sidecar)
            return N.LiteralSource(**common, value=N.frozen_array(value))
        if kind == N.INPUT and "onnx_type" in d:
            onnx_type = _opaque_from_dict(d["onnx_type"])
            raw = _require(d, "example", dict, what)
            if raw.get("none") is True:
                value = None
            elif "sequence" in raw:
                if not isinstance(raw["sequence"], list):
                    raise ValueError("'sequence' must be a list of tensors")
                value = [decode_tensor(t, sidecar) for t in raw["sequence"]]
            else:
                value = decode_tensor(raw, sidecar)
            return N.InputSource(**common, example=N.frozen_example(value, onnx_type), onnx_type=onnx_type)
        if kind == N.INPUT:
            example = decode_tensor(_require(d, "example", dict, what), sidecar)
            shape = d.get("shape")
            if shape is not None:
                if not isinstance(shape, list):
                    raise ValueError(f"'shape' must be a list of sizes and names, got {shape!r}")
                try:
                    shape = parse_shape(shape)
                except ShapeTextError as exc:
                    raise ValueError(f"'shape': {exc}") from None
            return N.InputSource(**common, example=N.frozen_array(example), shape=shape)
        if kind == N.FOREIGN:
            return foreign_from_dict(d, common, sidecar, what)
        if kind == N.MODEL_TENSOR:
            return model_tensor_from_dict(d, common, what)
        if kind == N.GENERATOR:
            params = {k: _param_value(v) for k, v in _require(d, "params", dict, what).items()}
            node = N.GeneratorSource(**common, generator=_require(d, "generator", str, what), params=params)
            generator_params(node.generator, node.params)
            return node
        if kind == N.FILE:
            key, dtype = d.get("key"), d.get("dtype")
            if key is not None and not isinstance(key, str) or dtype is not None and dtype not in ALL_DTYPE_NAMES:
                raise ValueError("bad 'key' or 'dtype'")
            return N.FileSource(**common, path=_require(d, "path", str, what), key=key, dtype=dtype)
        if kind == N.OPERATOR:
            op = _require(d, "op", str, what)
            if op not in ops.OP_NAMES:
                raise ValueError(f"unknown operator {op!r} (known: {', '.join(ops.OP_NAMES)})")
            node = N.OperatorNode(**common, op=op, **_training_from_dict(d), bypassed=flags["bypassed"],
                                  tensor_names=tuple(_str_list(d, "tensor_names", [])))
            if node.bypassed and N.bypass_refusal(op):
                raise ValueError(f"it cannot be bypassed: {N.bypass_refusal(op)}")
            for key, value in _require(d, "attributes", dict, what).items():
                node.attributes[key] = node.schema.coerce_attribute(key, value)
            return node
        if kind == N.LOSS:
            try:
                loss = LossKind.parse(_require(d, "loss", str, what))
            except LossError as exc:
                raise ValueError(str(exc)) from None
            return N.LossNode(**common, loss=loss)
        return N.OutputNode(**common)
    except ValueError as exc:
        msg = str(exc)
        raise ValueError(msg if msg.startswith(what) else f"{what}: {msg}") from None


# ---------------------------------------------------------------------- foreign ops (version 3)
def _float_json(x: float) -> float | str:
    return _short_float(x, np.dtype(np.float64))


def _opaque_to_dict(value: Opaque) -> dict:
    return {"base64": base64.b64encode(value.data).decode("ascii"), "summary": value.summary}


def _opaque_from_dict(d: Any) -> Opaque:
    if not isinstance(d, Mapping) or not isinstance(d.get("base64"), str):
        raise ValueError(f"a serialized attribute value is {{\"base64\": ..., \"summary\": ...}}, got {d!r}")
    try:
        data = base64.b64decode(d["base64"], validate=True)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"attribute bytes are not valid base64: {exc}") from None
    summary = d.get("summary", "")
    return Opaque(data, summary if isinstance(summary, str) else "")


def attribute_to_dict(attr: ForeignAttribute, encode: TensorEncoder, key: str) -> dict:
    """``{"kind": "ints", "value": [1, 2]}`` (plus ``"tensor_names"`` for named tensors): ints and
    strings as JSON numbers and text, floats
    in their shortest round-trip form (``"nan"``, ``"inf"`` as text), tensors as tensor dicts
    (large ones through ``encode``, e.g. to the sidecar), graphs and other protobuf values as
    ``{"base64", "summary"}`` (a tensor the graph layer keeps as bytes: ``{"opaque": ...}``)."""
    def one(kind: AttrKind, value: Any, k: str) -> Any:
        if kind is AttrKind.FLOAT:
            return _float_json(value)
        if kind is AttrKind.TENSOR:
            return {"opaque": _opaque_to_dict(value)} if isinstance(value, Opaque) else encode(value, k)
        if kind.opaque:
            return _opaque_to_dict(value)
        return value

    kind = attr.kind
    if kind.is_list:
        value: Any = [one(kind.element, v, f"{key}.{i}") for i, v in enumerate(attr.value)]
    else:
        value = one(kind, attr.value, key)
    out = {"kind": kind.value, "value": value}
    if attr.tensor_names:
        out["tensor_names"] = list(attr.tensor_names)
    return out


def attribute_from_dict(d: Any, sidecar: TensorDecoder) -> ForeignAttribute:
    """The attribute :func:`attribute_to_dict` wrote; ValueError on anything else."""
    if not isinstance(d, Mapping) or "value" not in d:
        raise ValueError(f"an attribute is {{\"kind\": ..., \"value\": ...}}, got {d!r}")
    try:
        kind = AttrKind(d.get("kind"))
    except ValueError:
        raise ValueError(f"unknown attribute kind {d.get('kind')!r}") from None

    def one(k: AttrKind, v: Any) -> Any:
        if k is AttrKind.FLOAT:
            return _number(v, "f")
        if k is AttrKind.INT:
            return _number(v, "i")
        if k is AttrKind.STRING:
            if not isinstance(v, str):
                raise ValueError(f"a string attribute holds text, got {v!r}")
            return v
        if k is AttrKind.TENSOR:
            if isinstance(v, Mapping) and "opaque" in v:
                return _opaque_from_dict(v["opaque"])
            return N.frozen_array(decode_tensor(v, sidecar))
        return _opaque_from_dict(v)

    raw = d["value"]
    names = d.get("tensor_names", [])
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"'tensor_names' must be a list of strings, got {names!r}")
    if kind.is_list:
        if not isinstance(raw, list):
            raise ValueError(f"a {kind.value} attribute holds a list, got {raw!r}")
        return check_attribute(ForeignAttribute(kind, tuple(one(kind.element, v) for v in raw), tuple(names)))
    return check_attribute(ForeignAttribute(kind, one(kind, raw), tuple(names)))


def foreign_to_dict(node: N.ForeignNode, encode: TensorEncoder) -> dict[str, Any]:
    """The kind fields of a foreign node (see the module docstring)."""
    out: dict[str, Any] = {"op_type": node.op_type}
    if node.domain:
        out["domain"] = node.domain
    out["attributes"] = {name: attribute_to_dict(attr, encode, f"{node.id}.attr.{name}")
                         for name, attr in node.attributes.items()}
    out["inputs"] = list(node.inputs)
    out["outputs"] = list(node.outputs)
    if node.optional:
        out["optional"] = [p for p in node.inputs if p in node.optional]
    if node.captures:
        out["captures"] = list(node.captures)
    if node.tensor_names:
        out["tensor_names"] = list(node.tensor_names)
    return out


def _str_list(d: Mapping[str, Any], key: str, default: list | None = None) -> list[str]:
    value = d.get(key, default)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{key!r} must be a list of strings, got {value!r}")
    return value


def _training_to_dict(node: N.Node) -> dict[str, Any]:
    """An operator's or foreign op's training switch and coefficient, where not the defaults."""
    out: dict[str, Any] = {}
    if not node.training:
        out["training"] = False
    if node.loss_coefficient != 1.0:
        out["loss_coefficient"] = _num(node.loss_coefficient)
    return out


def _training_from_dict(d: Mapping[str, Any]) -> dict[str, Any]:
    coefficient = d.get("loss_coefficient", 1.0)
    if isinstance(coefficient, bool) or not isinstance(coefficient, (int, float)) or not math.isfinite(coefficient):
        raise ValueError(f"'loss_coefficient' must be a finite number, got {coefficient!r}")
    return {"training": _optional_bool(d, "training", True), "loss_coefficient": float(coefficient)}


def foreign_from_dict(d: Mapping[str, Any], common: dict, sidecar: TensorDecoder, what: str) -> N.ForeignNode:
    op_type = _require(d, "op_type", str, what)
    domain = d.get("domain", "")
    if not isinstance(domain, str):
        raise ValueError(f"'domain' must be a string, got {domain!r}")
    raw = _require(d, "attributes", dict, what)
    attributes = {}
    for name, value in raw.items():
        try:
            attributes[name] = attribute_from_dict(value, sidecar)
        except ValueError as exc:
            raise ValueError(f"attribute {name!r}: {exc}") from None
    return N.ForeignNode(**common, op_type=op_type, domain=domain, attributes=attributes,
                         inputs=tuple(_str_list(d, "inputs")), outputs=tuple(_str_list(d, "outputs")),
                         optional=frozenset(_str_list(d, "optional", [])),
                         captures=tuple(_str_list(d, "captures", [])),
                         tensor_names=tuple(_str_list(d, "tensor_names", [])), **_training_from_dict(d))


def model_tensor_from_dict(d: Mapping[str, Any], common: dict, what: str) -> N.ModelTensorSource:
    dtype = _require(d, "dtype", str, what)
    if dtype not in ALL_DTYPE_NAMES:
        raise ValueError(f"unknown dtype {dtype!r}")
    shape = _require(d, "shape", list, what)
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in shape):
        raise ValueError(f"'shape' must be a list of non-negative integers, got {shape!r}")
    nbytes = d.get("nbytes", 0)
    if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes < 0:
        raise ValueError(f"'nbytes' must be a non-negative integer, got {nbytes!r}")
    checksum = d.get("checksum", "")
    if not isinstance(checksum, str):
        raise ValueError(f"'checksum' must be text, got {checksum!r}")
    return N.ModelTensorSource(**common, path=_require(d, "path", str, what), tensor=_require(d, "tensor", str, what),
                               dtype=dtype, shape=tuple(shape), nbytes=nbytes, checksum=checksum)


def model_info_to_dict(info: ModelInfo) -> dict[str, Any]:
    """The non-default fields of ``info`` (functions as ``{"base64", "summary"}``)."""
    out: dict[str, Any] = {}
    if info.opsets:
        out["opsets"] = [[d, v] for d, v in info.opsets]
    if info.metadata:
        out["metadata"] = [[k, v] for k, v in info.metadata]
    if info.functions:
        out["functions"] = [_opaque_to_dict(f) for f in info.functions]
    for kind in ("outputs", "inputs"):
        if getattr(info, kind):
            out[kind] = [[name, _opaque_to_dict(t)] for name, t in getattr(info, kind)]
    for name in ("ir_version", "producer_name", "producer_version", "domain", "model_version", "doc_string"):
        value = getattr(info, name)
        if value:
            out[name] = value
    return out


def model_info_from_dict(d: Any) -> ModelInfo:
    if not isinstance(d, Mapping):
        raise ValueError(f"'model' must be an object, got {type(d).__name__}")
    fields: dict[str, Any] = {}
    for key in ("opsets", "metadata"):
        pairs = d.get(key, [])
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
            raise ValueError(f"model {key!r} must be a list of pairs, got {pairs!r}")
        fields[key] = tuple(tuple(p) for p in pairs)
    functions = d.get("functions", [])
    if not isinstance(functions, list):
        raise ValueError("model 'functions' must be a list")
    fields["functions"] = tuple(_opaque_from_dict(f) for f in functions)
    for kind in ("outputs", "inputs"):
        entries = d.get(kind, [])
        if not isinstance(entries, list):
            raise ValueError(f"model {kind!r} must be a list")
        typed = []
        for entry in entries:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)):
                raise ValueError(f"a model {kind[:-1]} is [name, type], got {entry!r}")
            typed.append((entry[0], _opaque_from_dict(entry[1])))
        fields[kind] = tuple(typed)
    for name, typ in (("ir_version", int), ("model_version", int), ("producer_name", str),
                      ("producer_version", str), ("domain", str), ("doc_string", str)):
        if name in d:
            if isinstance(d[name], bool) or not isinstance(d[name], typ):
                raise ValueError(f"model {name!r} has the wrong type ({type(d[name]).__name__})")
            fields[name] = d[name]
    unknown = set(d) - set(fields)
    if unknown:
        raise ValueError(f"unknown model field(s) {sorted(unknown)}")
    try:
        return ModelInfo(**fields)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"model: {exc}") from None


def edge_from_dict(d: Any) -> N.Edge:
    """An edge from ``{"from": [id, port], "to": [id, port]}`` (its ``via`` points: :func:`route_from_dict`)."""
    ok = (isinstance(d, Mapping) and all(
        isinstance(d.get(k), list) and len(d[k]) == 2 and all(isinstance(v, str) for v in d[k])
        for k in ("from", "to")))
    if not ok:
        raise ValueError(f"an edge must look like {{\"from\": [node, port], \"to\": [node, port]}}, got {d!r}")
    return N.Edge(d["from"][0], d["from"][1], d["to"][0], d["to"][1])


def edge_to_dict(graph: Graph, edge: N.Edge) -> dict[str, Any]:
    """An edge as plain data, with its reroute points when it has any."""
    out: dict[str, Any] = {"from": [edge.src, edge.src_port], "to": [edge.dst, edge.dst_port]}
    points = graph.route(edge)
    if points:
        out["via"] = [[_num(x), _num(y)] for x, y in points]
    return out


def route_from_dict(d: Mapping[str, Any]) -> tuple[N.Point, ...]:
    """The ``via`` points of an edge's plain data (none when absent)."""
    via = d.get("via", [])
    if not isinstance(via, list) or not all(
            isinstance(p, list) and len(p) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in p)
            for p in via):
        raise ValueError(f"edge {edge_from_dict(d)}: 'via' must be a list of [x, y] points")
    return tuple((float(x), float(y)) for x, y in via)


def frame_to_dict(frame: N.Frame, node_ids: Iterable[str] | None = None) -> dict[str, Any]:
    """A frame as plain data (only the members among ``node_ids`` when given)."""
    members = [n for n in frame.nodes if node_ids is None or n in node_ids]
    out = {"id": frame.id, "title": frame.title, "colour": frame.colour, "nodes": members}
    if frame.collapsed:
        out["collapsed"] = True
    return out


def frame_from_dict(d: Any) -> N.Frame:
    """A frame from plain data; ValueError naming what does not fit."""
    if not isinstance(d, Mapping):
        raise ValueError(f"a frame must be an object, got {type(d).__name__}")
    frame_id = _require(d, "id", str, "a frame")
    what = f"frame {frame_id!r}"
    title = d.get("title", "")
    members = d.get("nodes", [])
    if not isinstance(title, str):
        raise ValueError(f"{what}: 'title' must be a string")
    if not isinstance(members, list) or not all(isinstance(n, str) for n in members):
        raise ValueError(f"{what}: 'nodes' must be a list of node ids")
    collapsed = d.get("collapsed", False)
    if not isinstance(collapsed, bool):
        raise ValueError(f"{what}: 'collapsed' must be true or false")
    try:
        colour = N.check_colour(d.get("colour", N.Frame.colour))
    except ValueError as exc:
        raise ValueError(f"{what}: {exc}") from None
    return N.Frame(frame_id, title, colour, tuple(members), collapsed)


def graph_to_dict(graph: Graph, node_ids: Iterable[str] | None = None,
                  encode: TensorEncoder = inline_tensor) -> dict[str, Any]:
    """The document (or the nodes ``node_ids`` and the edges between them) as plain data;
    tensors through ``encode`` (default: every tensor inline, as for copy and paste)."""
    selected = list(graph.node_ids if node_ids is None else dict.fromkeys(node_ids))
    for node_id in selected:
        graph.node(node_id)
    chosen = set(selected)
    order = [n for n in graph.node_ids if n in chosen]
    model = model_info_to_dict(graph.model_info)
    out = {
        "format": FORMAT,
        "version": VERSION,
        "settings": graph.settings,
        **({"model": model} if model else {}),
        "nodes": [node_to_dict(graph.node(n), encode) for n in order],
        "edges": [edge_to_dict(graph, e) for e in graph.edges if e.src in chosen and e.dst in chosen],
    }
    # a frame goes with a selection when all of its members do
    frames = [frame_to_dict(f) for f in graph.frames
              if node_ids is None or (f.nodes and set(f.nodes) <= chosen)]
    if frames:
        out["frames"] = frames
    return out


def nodes_from_dict(data: Mapping[str, Any], sidecar: TensorDecoder) -> tuple[list[N.Node], list[N.Edge]]:
    """Nodes and edges of plain data, checked for duplicate ids; not yet in any graph."""
    if not isinstance(data, Mapping):
        raise ValueError("the document must be a JSON object")
    if data.get("format", FORMAT) != FORMAT or data.get("version", VERSION) != VERSION:
        raise ValueError(f"expected {FORMAT} version {VERSION} data, got {data.get('format')!r} "
                         f"version {data.get('version')!r} (files of other versions: use load_graph)")
    raw_nodes = data.get("nodes", [])
    raw_edges = data.get("edges", [])
    if not isinstance(raw_nodes, list) or not isinstance(raw_edges, list):
        raise ValueError("'nodes' and 'edges' must be lists")
    nodes = [node_from_dict(d, sidecar) for d in raw_nodes]
    seen: set[str] = set()
    for node in nodes:
        if not node.id:
            raise ValueError("a node has an empty id")
        if node.id in seen:
            raise ValueError(f"two nodes have the id {node.id!r}")
        seen.add(node.id)
    return nodes, [edge_from_dict(d) for d in raw_edges]


def extras_from_dict(data: Mapping[str, Any]) -> tuple[list[N.Frame], dict[N.Edge, tuple[N.Point, ...]]]:
    """The frames and the edges' reroute points of plain data (see the module docstring)."""
    raw_frames = data.get("frames", [])
    if not isinstance(raw_frames, list):
        raise ValueError("'frames' must be a list")
    frames = [frame_from_dict(d) for d in raw_frames]
    if len({f.id for f in frames}) != len(frames):
        raise ValueError("two frames have the same id")
    routes = {}
    for d in data.get("edges", []):
        points = route_from_dict(d)
        if points:
            routes[edge_from_dict(d)] = points
    return frames, routes


def graph_from_dict(data: Mapping[str, Any], sidecar: TensorDecoder = None, *, file_path: Path | None = None,
                    outside_allowed: bool = True) -> Graph:
    """A new Graph from plain data of the current version (same ids). ValueError (or
    KeyError/TypeError) on bad data; ``sidecar`` reads ``"sidecar"`` tensors. ``file_path``
    and ``outside_allowed`` are set before any node is added, so no file source is read
    that they do not allow (see :class:`~nodeeditor.graph.paths.FileScope`)."""
    nodes, edges = nodes_from_dict(data, sidecar)
    frames, routes = extras_from_dict(data)
    settings = data.get("settings", {})
    if not isinstance(settings, Mapping):
        raise ValueError("'settings' must be an object")
    unknown = set(settings) - set(SETTINGS_DEFAULTS)
    if unknown:
        raise ValueError(f"unknown setting(s) {sorted(unknown)}")
    graph = Graph(**{**SETTINGS_DEFAULTS, **settings})
    graph.set_outside_files_allowed(outside_allowed)
    graph.file_path = file_path
    info = model_info_from_dict(data["model"]) if "model" in data else EMPTY_MODEL_INFO
    with graph.batch():
        graph.set_model_info(info)
        for node in nodes:
            graph.add_node(node)
        for edge in edges:
            try:
                graph.connect(edge.src, edge.src_port, edge.dst, edge.dst_port, force=True)
            except ConnectionRefused as exc:
                raise ValueError(f"edge {edge}: {exc.reason}") from None
        for edge, points in routes.items():
            graph.set_route(edge, points)
        for frame in frames:
            try:
                graph.add_frame(frame)
            except ValueError as exc:
                raise ValueError(f"frame {frame.id!r}: {exc}") from None
    return graph


def paste_dict(graph: Graph, data: Mapping[str, Any], offset: tuple[float, float] = (30.0, 30.0)) -> dict[str, str]:
    """Add the nodes and edges of :func:`graph_to_dict` data to ``graph`` with fresh ids, moved
    by ``offset``; returns old id -> new id. A copy whose name is taken gets the next free
    number (:func:`unique_name`). The graph emits its usual ``NodeAdded``/``EdgeAdded``
    events. Relative file paths are re-expressed for the graph's folder when
    ``data["folder"]`` says which folder they were relative to (the clipboard records it)."""
    nodes, edges = nodes_from_dict(data, None)
    frames, routes = extras_from_dict(data)
    source_folder = data.get("folder")
    if source_folder:
        for node in nodes:
            if node.kind in N.PATH_KINDS and node.path and not Path(node.path).is_absolute():
                if graph.folder is None:  # nothing to be relative to yet: name the file outright
                    node.path = str(Path(source_folder).resolve() / node.path)
                else:
                    node.path = rebase_path(node.path, Path(source_folder), graph.folder)
    mapping: dict[str, str] = {}
    with graph.batch():
        taken = {n.name for n in graph.nodes}
        for node in nodes:
            old_id = node.id
            node.id = graph.new_id(node.id_prefix)
            if node.name == old_id:
                node.name = node.id
            node.name = unique_name(node.name, taken)   # a copy is "scatternd write 2", not a twin
            taken.add(node.name)
            node.revision = 0
            node.position = (node.position[0] + offset[0], node.position[1] + offset[1])
            mapping[old_id] = graph.add_node(node)
        for e in edges:
            new = graph.connect(mapping[e.src], e.src_port, mapping[e.dst], e.dst_port, force=True)
            if e in routes:
                graph.set_route(new, [(x + offset[0], y + offset[1]) for x, y in routes[e]])
        for frame in frames:
            members = [mapping[n] for n in frame.nodes if n in mapping]
            if members:
                graph.add_frame(N.Frame("", frame.title, frame.colour, tuple(members), frame.collapsed))
    return mapping


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or when it is taken, its base with the next free number: "scatternd write"
    -> "scatternd write 2"; "scatternd write 2" -> "scatternd write 3"."""
    if name not in taken:
        return name
    base, _, tail = name.rpartition(" ")
    number = 2
    if base and tail.isdigit():
        number = max(2, int(tail) + 1)   # the copy of "positions 7" is "positions 8"
    else:
        base = name
    while f"{base} {number}" in taken:
        number += 1
    return f"{base} {number}"
