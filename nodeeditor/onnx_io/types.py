"""Conversions between ``ops.TensorType`` / dtype names and ONNX type protos.

Named dimensions travel as ONNX ``dim_param`` (a str dimension of a TensorType), unknown ones
as a dimension with neither a value nor a name (None).
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

import ops


def elem_type(dtype_name: str) -> int:
    """The ONNX ``TensorProto`` element type for one of our dtype names."""
    if dtype_name == "string":
        return onnx.TensorProto.STRING
    return helper.np_dtype_to_tensor_dtype(ops.dtype_of(dtype_name))


def dtype_name_of_elem(elem: int) -> str:
    """Our dtype name for an ONNX element type (OnnxImportError-free: ValueError if unknown)."""
    if elem == onnx.TensorProto.STRING:
        return "string"
    return ops.dtype_name(np.dtype(helper.tensor_dtype_to_np_dtype(elem)))


def _dims(shape) -> list:
    return [d if d is None or isinstance(d, str) else int(d) for d in shape]


def tensor_type_proto(ttype: ops.TensorType) -> onnx.TypeProto:
    return helper.make_tensor_type_proto(elem_type(ttype.dtype), _dims(ttype.shape))


def value_info(name: str, ttype: ops.TensorType) -> onnx.ValueInfoProto:
    """A ValueInfoProto for ``name`` carrying ``ttype``'s element type and shape (names as
    ``dim_param``)."""
    return helper.make_tensor_value_info(name, elem_type(ttype.dtype), _dims(ttype.shape))


def shape_of(type_proto: onnx.TypeProto) -> tuple | None:
    """The shape of a tensor type: ints, names (``dim_param``) and None for unknown dimensions;
    None when the rank is unknown (or it is not a tensor type)."""
    if type_proto.WhichOneof("value") != "tensor_type" or not type_proto.tensor_type.HasField("shape"):
        return None
    out: list = []
    for d in type_proto.tensor_type.shape.dim:
        if d.HasField("dim_value"):
            out.append(int(d.dim_value))
        elif d.HasField("dim_param") and d.dim_param:
            out.append(d.dim_param)
        else:
            out.append(None)
    return tuple(out)


def tensor_type_of(type_proto: onnx.TypeProto) -> ops.TensorType | None:
    """The TensorType of an ONNX type, or None when it is not a tensor of a dtype we hold, its
    rank is unknown, or a dimension is negative."""
    shape = shape_of(type_proto)
    if shape is None or any(isinstance(d, int) and d < 0 for d in shape):
        return None
    try:
        dtype = dtype_name_of_elem(type_proto.tensor_type.elem_type)
    except (ValueError, KeyError, TypeError):
        return None
    return ops.TensorType(dtype, shape)
