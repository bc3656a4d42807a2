"""IndexFlow's ops core: the ONNX indexing operators as schema + index map + apply.

Pure numpy (and ml_dtypes for bfloat16); no Qt, no onnx. See ``ops/CONTRACT.md`` for the full
public contract. Each op is one :class:`OpDef` (``get_opdef(name)``): schema, kernel, index map,
shape rule, port roles, reduction rules, formula; every layer reads it. Every kernel validates
its inputs (OpError), normalises indices (IndexOutOfRangeError naming the first bad element),
builds an :class:`IndexMap` and applies it with one vectorised take, put or ufunc reduction.
Inputs are never modified.

Semantic decisions the spec leaves open: with reduction ``none`` the last duplicate update in
row-major order wins; reductions fold into the existing value in row-major order; max/min
propagate NaN; on bool, add/mul/max/min are or/and/or/and; string add concatenates.
"""
from .dtypes import DTYPE_NAMES, SMALL_DTYPE_NAMES, dtype_name, dtype_of
from .errors import IndexOutOfRangeError, OpError, ShapeUnknownError
from .gather import gather
from .gather_elements import gather_elements
from .gather_nd import gather_nd
from .index_map import IndexMap
from .opdef import AxisSpec, OpDef, PortRole
from .opdefs import OPDEFS, get_opdef
from .registry import formula, index_map, infer_types, run_op
from .scatter_elements import scatter, scatter_elements
from .scatter_nd import scatter_nd
from .schema import AttrSpec, OpSchema, PortSpec
from .schemas import MAX_OPSET, OP_NAMES, SCHEMAS, get_schema
from .tensor_scatter import tensor_scatter
from .tensor_type import TensorType, is_known
from .vjp import vjp

__all__ = [
    "gather", "gather_elements", "gather_nd", "scatter", "scatter_elements", "scatter_nd", "tensor_scatter",
    "run_op", "index_map", "infer_types", "formula", "vjp",
    "OpError", "IndexOutOfRangeError", "ShapeUnknownError", "is_known",
    "IndexMap", "TensorType", "OpSchema", "PortSpec", "AttrSpec", "SCHEMAS", "OP_NAMES", "get_schema", "MAX_OPSET",
    "OpDef", "PortRole", "AxisSpec", "OPDEFS", "get_opdef",
    "DTYPE_NAMES", "SMALL_DTYPE_NAMES", "dtype_of", "dtype_name",
]
