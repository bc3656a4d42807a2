"""The step model of the teaching view: one step moves the value of some source cells to one
destination cell, decided by some index cells, and says so in a formula with its numbers.

A step is op-agnostic: :mod:`ops.explain` builds the steps of a forward op application (a
gather reads ``data`` into ``output``, a scatter writes ``updates`` into ``output``); a
backward pass can build its own (``grad_output`` cells into ``grad_data``) with the same types,
and every view of steps (the Explainer's grids and arrows, ``indexflow explain --text``, the
slides) draws them the same way.

A :class:`Cell` names a tensor and a position in it; a position shorter than the tensor's rank
is a prefix and stands for the whole slice under it (``Cell("output", (2,))`` of a 3-d output
is ``output[2, :, :]``), which is how a GatherND / ScatterND / TensorScatter step moves a slice.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

#: Slices with more elements than this are summarised in texts ("[1, 2, 3, …, 98, 99]").
SUMMARY_ELEMENTS = 32
#: A summarised axis keeps this many entries at each end.
EDGE_ITEMS = 3


class Granularity(Enum):
    """What one step moves: one element, or a whole slice (GatherND / ScatterND with k < rank,
    as the ONNX pages explain them: ``updates[1] → output[2, :, :]``; TensorScatter's rows)."""

    ELEMENT = "element"
    SLICE = "slice"


@dataclass(frozen=True)
class Cell:
    """A position in a named tensor (``tensor`` is an input's schema name, or ``output``); a
    position shorter than the tensor's rank covers the slice under it."""

    tensor: str
    position: tuple[int, ...]

    def text(self, rank: int | None = None) -> str:
        """``output[2, 1]``; with the tensor's ``rank``, a prefix shows its slice:
        ``output[2, :, :]``."""
        return self.tensor + position_text(self.position, rank)

    def covers(self, position: Sequence[int]) -> bool:
        """Whether ``position`` (a full position of the tensor) lies in this cell's slice."""
        return tuple(int(p) for p in position[: len(self.position)]) == self.position


@dataclass(frozen=True)
class Step:
    """One step (``number`` counts from 0): the values of ``sources`` arrive at ``destination``
    because of the index values at ``index`` (empty when no index decides it, e.g. a
    TensorScatter without write_indices). ``value`` is what moves (an array for a slice step);
    ``formula`` is one line with the numbers ("updates[1] = 10 → output[3]   (indices[1] =
    [3])", with a reduction's arithmetic after "; "); ``note`` says what becomes of the
    value (overwritten later, fold 1 of 2...), "" when nothing needs saying."""

    number: int
    sources: tuple[Cell, ...]
    index: tuple[Cell, ...]
    destination: Cell
    value: Any
    formula: str
    note: str = ""


def position_text(pos: Sequence[int], rank: int | None = None) -> str:
    """``[1, 2]``; ``[]`` for a scalar position; with ``rank`` larger than the position, the
    rest as ``:`` (``[1, :, :]``)."""
    parts = [str(int(p)) for p in pos]
    if rank is not None:
        parts += [":"] * max(0, rank - len(parts))
    return "[" + ", ".join(parts) + "]"


def step_line(step: Step) -> str:
    """The one-line text of a step, as ``indexflow explain --text`` prints it:
    ``3: updates[2] = 11 → output[1]   (indices[2] = [1])``."""
    return f"{step.number + 1}: {step.formula}"


def array_text(array: np.ndarray, element_text) -> str:
    """A nested-list text of ``array`` on one line, each element through ``element_text``;
    an axis longer than ``2 * EDGE_ITEMS`` is summarised with "…" when the array has more than
    :data:`SUMMARY_ELEMENTS` elements."""
    array = np.asarray(array)
    summarise = array.size > SUMMARY_ELEMENTS

    def text(a: np.ndarray) -> str:
        if a.ndim == 0:
            return element_text(a[()])
        n = a.shape[0]
        if summarise and n > 2 * EDGE_ITEMS:
            parts = [text(a[i]) for i in range(EDGE_ITEMS)] + ["…"] + [text(a[i]) for i in range(n - EDGE_ITEMS, n)]
        else:
            parts = [text(a[i]) for i in range(n)]
        return "[" + ", ".join(parts) + "]"

    return text(array)
