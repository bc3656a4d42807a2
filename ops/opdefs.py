"""The seven operators as :class:`ops.opdef.OpDef` values, and the registry of them.

One entry per op: a new OpDef field is one line in each entry below. The kernels, index maps
and shape rules live in the op's own module; the small adapters here only put them into the
common calling convention (inputs in schema order, attributes by keyword).
"""
from __future__ import annotations

import numpy as np

from . import formulas, schemas
from .gather import gather, gather_index_map, gather_output_shape, gather_plan
from .gather_elements import (
    elementwise_output_shape,
    gather_elements,
    gather_elements_index_map,
    gather_elements_plan,
)
from .gather_nd import gather_nd, gather_nd_index_map, gather_nd_output_shape, gather_nd_plan
from .opdef import AxisSpec, OpDef, PortRole
from .reductions import SCATTER_REDUCTIONS
from .scatter_elements import (
    scatter,
    scatter_elements,
    scatter_elements_index_map,
    scatter_elements_output_shape,
    scatter_elements_plan,
    scatter_plan,
)
from .scatter_nd import scatter_nd, scatter_nd_index_map, scatter_nd_output_shape, scatter_nd_plan
from .tensor_scatter import tensor_scatter, tensor_scatter_index_map, tensor_scatter_output_shape
from .vjp_rules import gather_vjp, scatter_vjp, tensor_scatter_vjp

DATA, INDICES, UPDATES = PortRole.DATA, PortRole.INDICES, PortRole.UPDATES
_GATHER_ROLES = {"data": DATA, "indices": INDICES}
_SCATTER_ROLES = {"data": DATA, "indices": INDICES, "updates": UPDATES}
_DATA_AXIS = AxisSpec("axis", "data")


def _gather_elements_shape(data, indices, axis):
    return elementwise_output_shape("GatherElements", data, indices, axis)


def _scatter_map(data, indices, updates, axis):
    return scatter_elements_index_map(data, indices, np.shape(updates), axis, "Scatter")


def _scatter_shape(data, indices, updates, axis):
    return scatter_elements_output_shape(data, indices, updates, axis, "Scatter")


def _scatter_elements_map(data, indices, updates, axis, reduction):
    return scatter_elements_index_map(data, indices, np.shape(updates), axis)


def _scatter_elements_shape(data, indices, updates, axis, reduction):
    return scatter_elements_output_shape(data, indices, updates, axis)


def _scatter_nd_map(data, indices, updates, reduction):
    return scatter_nd_index_map(data, indices, np.shape(updates))


def _scatter_nd_shape(data, indices, updates, reduction):
    return scatter_nd_output_shape(data, indices, updates)


def _tensor_scatter_map(past_cache, update, write_indices, mode, axis):
    return tensor_scatter_index_map(past_cache, np.shape(update), write_indices, axis, mode)


def _tensor_scatter_shape(past_cache, update, write_indices, mode, axis):
    return tensor_scatter_output_shape(past_cache, update, write_indices, axis, mode)


GATHER = OpDef(
    schema=schemas.GATHER,
    kernel=gather,
    index_map=gather_index_map,
    output_shape=gather_output_shape,
    roles=_GATHER_ROLES,
    axis=_DATA_AXIS,
    formula=formulas.gather_formula,
    vjp=gather_vjp,
    plan=gather_plan,
)

GATHER_ELEMENTS = OpDef(
    schema=schemas.GATHER_ELEMENTS,
    kernel=gather_elements,
    index_map=gather_elements_index_map,
    output_shape=_gather_elements_shape,
    roles=_GATHER_ROLES,
    axis=_DATA_AXIS,
    formula=formulas.gather_elements_formula,
    vjp=gather_vjp,
    plan=gather_elements_plan,
)

GATHER_ND = OpDef(
    schema=schemas.GATHER_ND,
    kernel=gather_nd,
    index_map=gather_nd_index_map,
    output_shape=gather_nd_output_shape,
    roles=_GATHER_ROLES,
    formula=formulas.gather_nd_formula,
    vjp=gather_vjp,
    plan=gather_nd_plan,
)

SCATTER = OpDef(
    schema=schemas.SCATTER,
    kernel=scatter,
    index_map=_scatter_map,
    output_shape=_scatter_shape,
    roles=_SCATTER_ROLES,
    axis=_DATA_AXIS,
    formula=formulas.scatter_formula,
    vjp=scatter_vjp,
    plan=scatter_plan,
)

SCATTER_ELEMENTS = OpDef(
    schema=schemas.SCATTER_ELEMENTS,
    kernel=scatter_elements,
    index_map=_scatter_elements_map,
    output_shape=_scatter_elements_shape,
    roles=_SCATTER_ROLES,
    axis=_DATA_AXIS,
    reductions=SCATTER_REDUCTIONS,
    formula=formulas.scatter_elements_formula,
    vjp=scatter_vjp,
    plan=scatter_elements_plan,
)

SCATTER_ND = OpDef(
    schema=schemas.SCATTER_ND,
    kernel=scatter_nd,
    index_map=_scatter_nd_map,
    output_shape=_scatter_nd_shape,
    roles=_SCATTER_ROLES,
    reductions=SCATTER_REDUCTIONS,
    formula=formulas.scatter_nd_formula,
    vjp=scatter_vjp,
    plan=scatter_nd_plan,
)

TENSOR_SCATTER = OpDef(
    schema=schemas.TENSOR_SCATTER,
    kernel=tensor_scatter,
    index_map=_tensor_scatter_map,
    output_shape=_tensor_scatter_shape,
    roles={"past_cache": DATA, "update": UPDATES, "write_indices": INDICES},
    axis=AxisSpec("axis", "past_cache", not_batch=True),
    vjp=tensor_scatter_vjp,
)

OPDEFS: dict[str, OpDef] = {
    d.name: d for d in (GATHER, GATHER_ELEMENTS, GATHER_ND, SCATTER, SCATTER_ELEMENTS, SCATTER_ND, TENSOR_SCATTER)
}


def get_opdef(op_name: str) -> OpDef:
    """The OpDef of ``op_name`` (ONNX spelling); OpError naming the known ops otherwise."""
    schemas.get_schema(op_name)  # raises the one "unknown op" error
    return OPDEFS[op_name]
