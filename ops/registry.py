"""Dispatch by ONNX op name: run a kernel, build an index map, or infer output types."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .checks import fmt_shape
from .errors import OpError
from .gather import gather, gather_index_map, gather_output_shape
from .gather_elements import elementwise_output_shape, gather_elements, gather_elements_index_map
from .gather_nd import gather_nd, gather_nd_index_map, gather_nd_output_shape
from .index_map import IndexMap
from .scatter_elements import scatter, scatter_elements, scatter_elements_index_map, scatter_elements_output_shape
from .scatter_nd import scatter_nd, scatter_nd_index_map, scatter_nd_output_shape
from .schemas import get_schema
from .tensor_scatter import tensor_scatter, tensor_scatter_index_map, tensor_scatter_output_shape
from .tensor_type import TensorType

_KERNELS: dict[str, Callable[..., np.ndarray]] = {
    "Gather": lambda d, i, axis: gather(d, i, axis),
    "GatherElements": lambda d, i, axis: gather_elements(d, i, axis),
    "GatherND": lambda d, i, batch_dims: gather_nd(d, i, batch_dims),
    "Scatter": lambda d, i, u, axis: scatter(d, i, u, axis),
    "ScatterElements": lambda d, i, u, axis, reduction: scatter_elements(d, i, u, axis, reduction),
    "ScatterND": lambda d, i, u, reduction: scatter_nd(d, i, u, reduction),
    "TensorScatter": lambda c, u, w, mode, axis: tensor_scatter(c, u, w, axis, mode),
}

_INDEX_MAPS: dict[str, Callable[..., IndexMap]] = {
    "Gather": lambda d, i, axis: gather_index_map(d, i, axis),
    "GatherElements": lambda d, i, axis: gather_elements_index_map(d, i, axis),
    "GatherND": lambda d, i, batch_dims: gather_nd_index_map(d, i, batch_dims),
    "Scatter": lambda d, i, u, axis: scatter_elements_index_map(d, i, np.shape(u), axis, "Scatter"),
    "ScatterElements": lambda d, i, u, axis, reduction: scatter_elements_index_map(d, i, np.shape(u), axis),
    "ScatterND": lambda d, i, u, reduction: scatter_nd_index_map(d, i, np.shape(u)),
    "TensorScatter": lambda c, u, w, mode, axis: tensor_scatter_index_map(c, np.shape(u), w, axis, mode),
}

_SHAPES: dict[str, Callable[..., tuple]] = {
    "Gather": lambda d, i, axis: gather_output_shape(d, i, axis),
    "GatherElements": lambda d, i, axis: elementwise_output_shape("GatherElements", d, i, axis),
    "GatherND": lambda d, i, batch_dims: gather_nd_output_shape(d, i, batch_dims),
    "Scatter": lambda d, i, u, axis: scatter_elements_output_shape(d, i, u, axis, "Scatter"),
    "ScatterElements": lambda d, i, u, axis, reduction: scatter_elements_output_shape(d, i, u, axis),
    "ScatterND": lambda d, i, u, reduction: scatter_nd_output_shape(d, i, u),
    "TensorScatter": lambda c, u, w, mode, axis: tensor_scatter_output_shape(c, u, w, axis, mode),
}


def _arguments(op_name: str, inputs: Sequence[Any], attrs: Mapping[str, Any] | None,
               opset: int | None) -> tuple[list, dict]:
    schema = get_schema(op_name)
    inputs = list(inputs)
    n_required = sum(not p.optional for p in schema.inputs)
    if not n_required <= len(inputs) <= len(schema.inputs):
        names = ", ".join(p.name + ("?" if p.optional else "") for p in schema.inputs)
        raise OpError(f"{op_name}: expected inputs ({names}), got {len(inputs)}")
    inputs += [None] * (len(schema.inputs) - len(inputs))
    for port, value in zip(schema.inputs, inputs, strict=True):
        if value is None and not port.optional:
            raise OpError(f"{op_name}: input {port.name} is missing")
    return inputs, schema.check_attributes(attrs, opset)


def run_op(op_name: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None = None) -> np.ndarray:
    """Run ``op_name`` on ``inputs`` (schema order; None for an omitted optional input).
    Attributes not given take the schema default."""
    inputs, attrs = _arguments(op_name, inputs, attrs, None)
    return _KERNELS[op_name](*inputs, **attrs)


def index_map(op_name: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None = None) -> IndexMap:
    """The IndexMap the kernel of ``op_name`` would apply to ``inputs``."""
    inputs, attrs = _arguments(op_name, inputs, attrs, None)
    return _INDEX_MAPS[op_name](*inputs, **attrs)


def infer_types(op_name: str, input_types: Sequence[TensorType | None], attrs: Mapping[str, Any] | None = None,
                opset: int = 18) -> tuple[TensorType, ...]:
    """Output types of ``op_name`` at ``opset`` without running it.

    Checks that the op exists at the opset, every attribute is allowed there, each input's dtype
    is allowed by its type constraint at that version, and the shapes fit together. Raises
    OpError saying what is wrong.
    """
    schema = get_schema(op_name)
    schema.require_version(opset)
    input_types, attrs = _arguments(op_name, input_types, attrs, opset)
    bound: dict[str, str] = {}
    for port, ttype in zip(schema.inputs, input_types, strict=True):
        if ttype is None:
            continue
        allowed = schema.allowed_dtypes(port.type_param, opset)
        if ttype.dtype not in allowed:
            later = [v for v in schema.versions if ttype.dtype in schema.allowed_dtypes(port.type_param, v)]
            hint = f" (allowed from opset {later[0]})" if later else ""
            raise OpError(
                f"{op_name}: input {port.name} has dtype {ttype.dtype}, not allowed at opset {opset}{hint}; "
                f"allowed: {', '.join(allowed)}"
            )
        if port.type_param in bound and bound[port.type_param] != ttype.dtype:
            first = next(p.name for p in schema.inputs if p.type_param == port.type_param)
            raise OpError(f"{op_name}: {port.name} dtype {ttype.dtype} differs from "
                          f"{first} dtype {bound[port.type_param]}")
        bound.setdefault(port.type_param, ttype.dtype)
    shapes = [None if t is None else tuple(t.shape) for t in input_types]
    attrs = {**schema.defaults(), **attrs}  # the semantics of attributes the opset lacks: their defaults
    out_shape = _SHAPES[op_name](*shapes, **attrs)
    if op_name in ("ScatterElements", "ScatterND") and attrs.get("reduction", "none") != "none":
        _check_reduction_dtype(op_name, attrs["reduction"], input_types[0].dtype)
    out_dtype = input_types[0].dtype
    return (TensorType(out_dtype, tuple(out_shape)),)


def _check_reduction_dtype(op_name: str, reduction: str, dtype: str) -> None:
    if dtype == "string" and reduction == "mul":
        raise OpError(f"{op_name}: reduction 'mul' has no meaning for string tensors (use none, add, max or min)")
    if dtype.startswith("complex") and reduction in ("max", "min"):
        raise OpError(f"{op_name}: reduction {reduction!r} has no meaning for complex tensors (no ordering); "
                      "use none, add or mul")


__all__ = ["run_op", "index_map", "infer_types", "fmt_shape"]
