"""TensorType: what a port carries, known before anything runs."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dtypes import dtype_name

Shape = tuple  # tuple[int | None, ...]; None is a dimension not known until run time


@dataclass(frozen=True)
class TensorType:
    """A dtype name (see :mod:`ops.dtypes`) and a shape whose unknown dimensions are None."""

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
        dims = ", ".join("?" if d is None else str(d) for d in self.shape)
        return f"{self.dtype}[{dims}]"
