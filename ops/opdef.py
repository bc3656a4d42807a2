"""OpDef: everything IndexFlow knows about one operator, in one value.

Each of the seven ops is one :class:`OpDef` (:mod:`ops.opdefs`), and every layer reads it: the
registry dispatches :func:`ops.run_op`, :func:`ops.index_map` and :func:`ops.infer_types`
through it; the editor reads its port roles, axis attribute and formula; the graph's checks
read whether it writes. Nothing else says per op name what an op is.

An OpDef is data plus functions, not a class hierarchy: adding a field (as the backward
pass ``vjp`` was) is one field here and one entry per op in :mod:`ops.opdefs`.

Calling conventions (inputs and attributes as :func:`ops.run_op` passes them: inputs in schema
order, None for an omitted optional input; every attribute of the schema by keyword):

* ``kernel(*inputs, **attrs) -> np.ndarray``
* ``index_map(*inputs, **attrs) -> IndexMap``
* ``output_shape(*input_shapes, **attrs) -> tuple``: the output shape from input shapes
  (None for an omitted input, None for an unknown dimension); OpError when they do not fit.
  The output dtype is the one bound to the output's type parameter (``T``), so it needs no
  rule of its own.
* ``plan(*inputs, **attrs) -> Callable | None``: for inputs and attributes the kernel has just
  accepted, the op's small route as a function of inputs of the same shapes and dtypes alone
  (``plan(*inputs) -> np.ndarray | None``, None on a bad index), or None when there is none
  (:mod:`ops.small_calls`, which says what a plan may skip).
* ``formula(attrs, data_rank, indices_rank, tuple_length) -> str``: the spec's formula written
  out for those ranks (:mod:`ops.formulas`); it may raise on ranks that do not fit
  (:meth:`OpDef.formula_text` turns that into None).
"""
from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .index_map import IndexMap
from .reductions import ReductionRules
from .schema import OpSchema


class PortRole(enum.Enum):
    """What an input is to its op."""

    #: The tensor read from (gathers) or copied and written into (scatters): data, past_cache.
    DATA = "data"
    #: Integer positions: indices, write_indices.
    INDICES = "indices"
    #: The values a scatter writes: updates, update.
    UPDATES = "updates"

    @property
    def differentiable(self) -> bool:
        """Whether a gradient flows into an input of this role (positions have none)."""
        return self is not PortRole.INDICES


@dataclass(frozen=True)
class AxisSpec:
    """An attribute that names an axis of one input: ``attribute`` (``"axis"``) ranges over
    ``[-r, r-1]`` where ``r`` is the rank of input ``bounded_by``; with ``not_batch`` axis 0
    (the batch axis) is refused (TensorScatter's sequence axis)."""

    attribute: str
    bounded_by: str
    not_batch: bool = False


@dataclass(frozen=True)
class OpDef:
    """One operator: its schema and the functions and facts every layer reads (see the module
    docstring for the calling conventions).

    ``roles`` maps every schema input to its :class:`PortRole`. ``axis`` is None for ops with no
    axis attribute (GatherND, ScatterND). ``reductions`` is None for ops without a reduction
    attribute. ``formula`` is None where there is no per-rank formula (the schema's ``doc`` is
    the text then). ``vjp`` is the backward pass in :func:`ops.vjp`'s per-op convention
    ``(imap, inputs, attrs, grad) -> one gradient or None per schema input`` (:mod:`ops.vjp_rules`).
    ``plan`` makes the plans of repeated small calls (:mod:`ops.small_calls`); None: the op has none.
    """

    schema: OpSchema
    kernel: Callable[..., np.ndarray]
    index_map: Callable[..., IndexMap]
    output_shape: Callable[..., tuple]
    roles: Mapping[str, PortRole]
    axis: AxisSpec | None = None
    reductions: ReductionRules | None = None
    formula: Callable[..., str] | None = None
    vjp: Callable[..., Any] | None = None
    plan: Callable[..., Callable[..., np.ndarray | None] | None] | None = None

    def __post_init__(self) -> None:
        inputs = [p.name for p in self.schema.inputs]
        if sorted(self.roles) != sorted(inputs):
            raise ValueError(f"{self.name}: roles {sorted(self.roles)} must name the inputs {inputs}")
        if len(self.ports(PortRole.DATA)) != 1:
            raise ValueError(f"{self.name}: exactly one input has the role DATA")
        if self.axis is not None:
            self.schema.attribute(self.axis.attribute)
            if self.axis.bounded_by not in inputs:
                raise ValueError(f"{self.name}: the axis is bounded by {self.axis.bounded_by!r}, not an input")
        if self.reductions is not None:
            self.schema.attribute("reduction")

    @property
    def name(self) -> str:
        """The ONNX op name."""
        return self.schema.name

    @property
    def writes(self) -> bool:
        """True for scatters: the op writes into a copy of its data, so duplicate targets matter."""
        return self.schema.kind == "scatter"

    def role(self, port: str) -> PortRole:
        """The role of input ``port``."""
        return self.roles[port]

    def ports(self, role: PortRole) -> tuple[str, ...]:
        """The inputs of ``role``, in schema order."""
        return tuple(p.name for p in self.schema.inputs if self.roles[p.name] is role)

    def input_index(self, port: str) -> int:
        """Position of input ``port`` in schema order (the order of ``inputs`` lists)."""
        try:
            return self._positions[port]
        except KeyError:
            raise ValueError(f"{port!r} is not an input of {self.name}") from None

    @cached_property
    def _positions(self) -> dict[str, int]:
        return {p.name: i for i, p in enumerate(self.schema.inputs)}

    @cached_property
    def data_port(self) -> str:
        """The input read from or written into (``data``, ``past_cache``)."""
        return self.ports(PortRole.DATA)[0]

    @cached_property
    def index_ports(self) -> tuple[str, ...]:
        """The integer position inputs (``indices``, ``write_indices``)."""
        return self.ports(PortRole.INDICES)

    @property
    def updates_port(self) -> str | None:
        """The input whose values a scatter writes (``updates``, ``update``); None for gathers."""
        ports = self.ports(PortRole.UPDATES)
        return ports[0] if ports else None

    @property
    def differentiable_inputs(self) -> tuple[str, ...]:
        """The inputs a gradient flows into, in schema order."""
        return tuple(p.name for p in self.schema.inputs if self.roles[p.name].differentiable)

    def formula_text(self, attrs: Mapping[str, Any], data_rank: int | None = None,
                     indices_rank: int | None = None, tuple_length: int | None = None) -> str | None:
        """The formula for these attributes and ranks, or None when the op has none, a needed
        rank is unknown, or the attributes do not fit the ranks."""
        if self.formula is None:
            return None
        try:
            return self.formula(attrs, data_rank, indices_rank, tuple_length)
        except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError):
            return None

    def inputs_by_role(self, inputs: Sequence[Any], role: PortRole) -> list[Any]:
        """The entries of ``inputs`` (schema order, possibly shorter when optional inputs are
        left off) whose port has ``role``."""
        return [inputs[i] if i < len(inputs) else None
                for i, p in enumerate(self.schema.inputs) if self.roles[p.name] is role]
