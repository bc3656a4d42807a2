"""TensorType: what a port carries, known before anything runs."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dtypes import dtype_name

Shape = tuple  # tuple[int | str | None, ...]; see TensorType


def is_known(dim) -> bool:
    """Whether ``dim`` is a concrete size (an int), not a symbol (str) or unknown (None)."""
    return isinstance(dim, int) and not isinstance(dim, bool)


@dataclass(frozen=True)
class TensorType:
    """A dtype name (see :mod:`ops.dtypes`) and a shape. A dimension is an int (its size), a
    str (a named, symbolic size such as ``"batch"``: the same name is the same size, and what
    it equals is known only at run time) or None (unknown). Shape rules carry symbols through
    unchanged and treat them as unknown when they compare sizes."""

    dtype: str
    shape: Shape

    @property
    def rank(self) -> int:
        return len(self.shape)

    @classmethod
    def of(cls, array) -> TensorType:
        """The type of a concrete array."""
        arr = np.asarray(array)
        return cls(dtype_name(arr), tuple(int(d) for d in arr.shape))

    def __str__(self) -> str:
        dims = ", ".join("?" if d is None else str(d) for d in self.shape)  # a symbol shows as its name
        return f"{self.dtype}[{dims}]"
