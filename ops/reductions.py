"""Scatter reductions: which exist, what each does to a dtype, and where one has no meaning.

The one home of the rule that the kernels (:mod:`ops.apply`), type inference
(:func:`ops.infer_types`) and the explainer (:mod:`ops.explain`) share. ScatterElements and
ScatterND carry :data:`SCATTER_REDUCTIONS` in their :class:`ops.opdef.OpDef`.

* ``none`` replaces the cell; ``add``, ``mul``, ``max``, ``min`` fold the update into the
  current value (:meth:`ReductionRules.ufunc`, applied in row-major order by the kernels).
* bool: ``add`` and ``max`` are logical or, ``mul`` and ``min`` logical and.
* string: ``add`` concatenates, ``max``/``min`` compare lexicographically; ``mul`` has no meaning.
* complex: ``max``/``min`` have no meaning (no ordering).
* of two equal values (``0.0`` and ``-0.0``) ``max``/``min`` keep the update, in every float
  dtype: numpy's float16 ``maximum``/``minimum`` keep the current value instead, so a float16
  max/min folds in float32 (:meth:`ReductionRules.fold_dtype`; exact: float32 holds every
  float16, and the fold picks one of its operands).

Which reductions exist at which opset is the schema's (the ``reduction`` attribute of
:mod:`ops.schemas`); :data:`REDUCTIONS` is that attribute's values at its newest opset.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dtypes import COMPLEX_NAMES, dtype_name
from .errors import OpError
from .schemas import REDUCTION

#: Every reduction the schemas know, in schema order: ``none`` first.
REDUCTIONS: tuple[str, ...] = REDUCTION.allowed[max(REDUCTION.allowed)]

_FOLDS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
_BOOL_FOLDS = {"add": np.logical_or, "mul": np.logical_and, "max": np.logical_or, "min": np.logical_and}


@dataclass(frozen=True)
class NoMeaning:
    """``reductions`` have no meaning for the dtype names in ``dtypes``; ``why`` ends the
    error message (``{op}: reduction 'mul' has no meaning for {why}``)."""

    dtypes: frozenset[str]
    reductions: tuple[str, ...]
    why: str


@dataclass(frozen=True)
class ReductionRules:
    """The reductions an op takes (``names``) and the dtypes where one has no meaning."""

    names: tuple[str, ...]
    no_meaning: tuple[NoMeaning, ...]

    def refusal(self, reduction: str, dtype: str) -> NoMeaning | None:
        """The rule that refuses ``reduction`` on dtype name ``dtype``, or None."""
        for rule in self.no_meaning:
            if dtype in rule.dtypes and reduction in rule.reductions:
                return rule
        return None

    def meaningful(self, reduction: str, dtype: str) -> bool:
        """True when ``reduction`` is one of :attr:`names` and has a meaning for ``dtype``."""
        return reduction in self.names and self.refusal(reduction, dtype) is None

    def check(self, op: str, reduction: str, dtype: str) -> None:
        """OpError for a reduction not in :attr:`names`, or one with no meaning for dtype name
        ``dtype`` (the message names the op and the reductions that do work)."""
        if reduction not in self.names:
            raise OpError(f"{op}: unknown reduction {reduction!r}; expected one of {', '.join(self.names)}")
        rule = self.refusal(reduction, dtype)
        if rule is not None:
            raise OpError(f"{op}: reduction {reduction!r} has no meaning for {rule.why}")

    @staticmethod
    def fold_dtype(reduction: str, dtype: np.dtype) -> np.dtype | None:
        """The dtype a fold of ``dtype`` values must run in for the update to win ties (see
        the module docstring), or None for ``dtype`` itself."""
        return np.dtype(np.float32) if reduction in ("max", "min") and dtype == np.float16 else None

    def fold(self, op: str, reduction: str, dtype: np.dtype) -> Fold:
        """The fold of one update into a value for ``reduction`` (not ``none``) on ``dtype``,
        ties to the update in every float dtype (:class:`Fold`); OpError as :meth:`check`."""
        dtype = np.dtype(dtype)
        return Fold(self.ufunc(op, reduction, dtype_name(np.empty(0, dtype))), dtype,
                    self.fold_dtype(reduction, dtype))

    def ufunc(self, op: str, reduction: str, dtype: str) -> np.ufunc:
        """The ufunc that folds one update into the current value for ``reduction`` (not
        ``none``) on dtype name ``dtype``; OpError as :meth:`check`."""
        self.check(op, reduction, dtype)
        if reduction == "none":
            raise ValueError("reduction none replaces; it has no fold")
        return (_BOOL_FOLDS if dtype == "bool" else _FOLDS)[reduction]


@dataclass(frozen=True)
class Fold:
    """``f(current, update)`` of one reduction on values of ``dtype``, computed in ``wide``
    where the dtype's own ufunc would let the current value win a tie (float16 max/min; None:
    in ``dtype``). A call folds two values; :meth:`at` is ``ufunc.at``'s sequential fold."""

    ufunc: np.ufunc
    dtype: np.dtype
    wide: np.dtype | None = None

    def __call__(self, current, update):
        if self.wide is None:
            return self.ufunc(current, update)
        return self.ufunc(np.asarray(current, self.wide), np.asarray(update, self.wide)).astype(self.dtype)[()]

    def at(self, out: np.ndarray, targets, updates) -> None:
        """Fold ``updates`` into ``out[targets]`` in order, in place (``ufunc.at``)."""
        if self.wide is None:
            self.ufunc.at(out, targets, updates)
            return
        work = out.astype(self.wide)
        self.ufunc.at(work, targets, np.asarray(updates).astype(self.wide))
        out[...] = work


SCATTER_REDUCTIONS = ReductionRules(
    names=REDUCTIONS,
    no_meaning=(
        NoMeaning(frozenset({"string"}), ("mul",), "string tensors (use none, add, max or min)"),
        NoMeaning(COMPLEX_NAMES, ("max", "min"), "complex tensors (no ordering); use none, add or mul"),
    ),
)
