"""Conversions between ``ops.TensorType`` / dtype names and ONNX type protos."""
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


def tensor_type_proto(ttype: ops.TensorType) -> onnx.TypeProto:
    return helper.make_tensor_type_proto(elem_type(ttype.dtype), [d if d is not None else None for d in ttype.shape])


def value_info(name: str, ttype: ops.TensorType) -> onnx.ValueInfoProto:
    """A ValueInfoProto for ``name`` carrying ``ttype``'s element type and shape."""
    return helper.make_tensor_value_info(name, elem_type(ttype.dtype), list(ttype.shape))
