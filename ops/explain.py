"""Step-by-step explanations of what an op does, built on its IndexMap.

The teaching view walks the elements of the output (gather ops) or of the updates (scatter
ops) in row-major order. Step ``k`` says which index decided it, which data cell it reads or
writes, the value that moves, and, for scatters, what happens in that cell: the update wins or
is overwritten by a later one (reduction none), or how the running value is folded (add, mul,
max, min). GatherND and ScatterND with ``k = indices.shape[-1]`` below the rank of ``data``
move a whole slice per step by default, as the spec's loop does (``for idx in
np.ndindex(indices.shape[:-1]): output[indices[idx]] = updates[idx]``), and TensorScatter a
whole sequence row (what one write index moves; its quiz asks one question per row); ``granularity=
Granularity.ELEMENT`` steps through the slices' elements one by one instead. Each step is also
available in the op-agnostic form of :mod:`ops.steps` (:meth:`Explanation.step`).
A negative index says where it lands ("indices[1, 0] = -1, from the end: 5 - 1 = 4"); a circular
TensorScatter writes its position as "(3 + 1) mod 4 = 0" (4: max_sequence_length).
Everything comes from :func:`ops.index_map`, the same map the kernels apply, so an
explanation cannot drift from the semantics.

Cost: building an :class:`Explanation` builds the index map once; each :meth:`Explanation.move`
is O(number of index rows), to find the others hitting the same target.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .dtypes import is_ml_dtype
from .errors import OpError
from .opdefs import get_opdef
from .reductions import Fold
from .registry import index_map
from .steps import Cell, Granularity, Step, array_text, position_text

_SYMBOL = {"add": "+", "mul": "×", "max": "max", "min": "min"}
#: The ops that step a slice at a time: GatherND and ScatterND when the index tuples are shorter
#: than the rank of ``data`` (k < r: "each update entry specifies an update to a slice"), and
#: TensorScatter, whose write index moves a whole sequence row.
SLICE_OPS = frozenset({"GatherND", "ScatterND", "TensorScatter"})

__all__ = ["SLICE_OPS", "Cell", "Explanation", "Granularity", "Move", "Step", "explain", "position_text", "values_text",
           "value_text"]


def value_text(value: Any) -> str:
    """A short exact rendering of one element (repr-level for floats)."""
    if isinstance(value, (np.floating, float)) or np.asarray(value).dtype.kind == "V" or \
            is_ml_dtype(np.asarray(value)):
        try:
            return np.format_float_positional(value, trim="-", unique=True)
        except TypeError:  # ml_dtypes scalars (bfloat16, float8): shortest text of the float32 value
            return np.format_float_positional(np.float32(value), trim="-", unique=True)
    if isinstance(value, str):
        return repr(value)
    item = value.item() if hasattr(value, "item") else value
    return str(item)


def values_text(value: Any) -> str:
    """:func:`value_text` of one element, or the nested list of a slice (:func:`ops.steps.array_text`)."""
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return array_text(value, value_text)
    return value_text(value)


@dataclass(frozen=True)
class Move:
    """One step: element ``element`` (of the output for gathers, of the updates for scatters)
    reads/writes data cell ``target``; ``index_position`` is where in the index tensor the
    deciding value ``index_value`` stands (None for TensorScatter without write_indices).
    A slice step's ``element`` and ``target`` are prefixes (the slice under them) and its
    ``value`` is the slice."""

    step: int
    element: tuple[int, ...]
    target: tuple[int, ...]
    index_input: str
    index_position: tuple[int, ...] | None
    index_value: Any
    value: Any
    text: str


class Explanation:
    """The moves of one op application (see the module docstring)."""

    def __init__(self, op: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None = None,
                 granularity: Granularity | None = None) -> None:
        self.op = op
        self.opdef = get_opdef(op)
        self.schema = self.opdef.schema
        self.attrs = self.schema.check_attributes(attrs)
        self.inputs = [None if x is None else np.asarray(x) for x in inputs]
        self.map = index_map(op, self.inputs, self.attrs)
        self.kind = self.map.kind
        self.reduction = self.attrs.get("reduction", "none")
        self._flat_rows = np.asarray(self.map.rows).reshape(-1)
        #: The input whose values a scatter writes (``updates``, ``update``); None for gathers.
        self.source = self.opdef.updates_port
        #: Whether a step may move a whole slice (:data:`SLICE_OPS` with a block of more than one).
        self.slices_possible = op in SLICE_OPS and len(self.map.block_shape) > 0
        wanted = granularity or (Granularity.SLICE if self.slices_possible else Granularity.ELEMENT)
        #: What one step moves (ELEMENT where slices are not possible, whatever was asked).
        self.granularity = wanted if self.slices_possible else Granularity.ELEMENT
        self._slices = self.granularity is Granularity.SLICE
        #: Elements moved per step.
        self.unit = self.map.block if self._slices else 1
        self._element_rank = len(self.map.element_shape)
        self._target_rank = len(self.map.target_shape)

    @property
    def count(self) -> int:
        """Number of steps: elements of the output (gather) or of the updates (scatter), or
        their slices (one per index tuple) when steps move slices."""
        if self._slices:
            return int(self._flat_rows.size) if self.map.block else 0
        return int(np.prod(self.map.element_shape, dtype=np.int64))

    @property
    def destination_tensor(self) -> str:
        """The tensor every step writes: ``output``."""
        return "output"

    def _target_flat(self, k: int) -> int:
        """Step ``k``'s target: a flat element offset (element steps) or a row of the
        ``(-1, block)`` target (slice steps)."""
        if self._slices:
            return int(self._flat_rows[k])
        block = self.map.block
        return int(self._flat_rows[k // block]) * block + k % block

    def _element(self, k: int) -> tuple[int, ...]:
        shape = self.map.rows.shape if self._slices else self.map.element_shape
        return tuple(int(i) for i in np.unravel_index(k, shape)) if shape else ()

    def _target(self, flat: int) -> tuple[int, ...]:
        """The target position (a prefix for a slice step) of a :meth:`_target_flat` value."""
        shape = self.map.target_shape[: self._target_rank - len(self.map.block_shape)] if self._slices \
            else self.map.target_shape
        return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()

    def _index_info(self, element: tuple[int, ...]) -> tuple[str, tuple | None, Any]:
        op, data, idx = self.op, self.inputs[0], self.inputs[1]
        if op == "Gather":
            axis = self.attrs["axis"] % data.ndim
            pos = element[axis:axis + idx.ndim]
            return "indices", pos, idx[pos] if pos else idx[()]
        if op in ("GatherElements", "ScatterElements", "Scatter"):
            return "indices", element, idx[element]
        if op in ("GatherND", "ScatterND"):
            pos = element[: idx.ndim - 1]
            return "indices", pos, tuple(int(v) for v in idx[pos])
        if op == "TensorScatter":
            writes = self.inputs[2] if len(self.inputs) > 2 else None
            if writes is None:
                return "write_indices", None, 0
            return "write_indices", (element[0],), writes[element[0]]
        raise AssertionError(op)

    def _index_dims(self) -> list[int]:
        """The sizes of the data axes the index values count along (one per tuple entry for
        GatherND / ScatterND), for saying where a negative index lands."""
        op, data = self.op, self.inputs[0]
        if op in ("GatherND", "ScatterND"):
            batch = int(self.attrs.get("batch_dims", 0)) if op == "GatherND" else 0
            k = self.inputs[1].shape[-1]
            return [int(n) for n in data.shape[batch:batch + k]]
        return [int(data.shape[self.attrs.get("axis", 0) % data.ndim])]

    def _index_text(self, value: Any) -> str:
        """``-1, from the end: 5 - 1 = 4`` for a negative index (counted from the end of its axis of
        size 5); GatherND / ScatterND tuples: ``[0, -1], from the end: [0, 5 - 1] = [0, 4]``."""
        values = [int(v) for v in value] if isinstance(value, tuple) else [int(value)]
        if all(v >= 0 for v in values):
            return _index_text(value)
        dims = self._index_dims()
        sums = [f"{n} - {-v}" if v < 0 else str(v) for v, n in zip(values, dims, strict=True)]
        landed = [v + n if v < 0 else v for v, n in zip(values, dims, strict=True)]
        if isinstance(value, tuple):
            return f"{_index_text(value)}, from the end: [{', '.join(sums)}] = {_index_text(tuple(landed))}"
        return f"{values[0]}, from the end: {sums[0]} = {landed[0]}"

    def contributors(self, target_flat: int) -> list[int]:
        """Element steps (row-major) whose element touches data cell ``target_flat`` (counted
        in elements whatever the granularity; see :meth:`same_destination` for steps)."""
        block = self.map.block
        row, col = divmod(int(target_flat), block)
        hits = np.flatnonzero(self._flat_rows == row)
        return [int(h) * block + col for h in hits]

    def same_destination(self, k: int) -> list[int]:
        """The steps (in order, ``k`` included) whose destination is step ``k``'s."""
        if self._slices:
            return [int(h) for h in np.flatnonzero(self._flat_rows == self._flat_rows[k])]
        return self.contributors(self._target_flat(k))

    def element_position(self, k: int) -> tuple[int, ...]:
        """Where step ``k``'s element stands: in the output (gather) or the updates (scatter);
        a prefix for a slice step. Cheaper than :meth:`step` (no texts)."""
        return self._element(k)

    def tensor(self, name: str) -> np.ndarray | None:
        """The input called ``name`` in the schema (None: omitted or unknown)."""
        names = [p.name for p in self.schema.inputs]
        i = names.index(name) if name in names else -1
        return self.inputs[i] if 0 <= i < len(self.inputs) else None

    def rank(self, name: str) -> int | None:
        """The rank of the tensor ``name`` (an input, or ``output``), for :meth:`ops.steps.Cell.text`."""
        if name == "output":
            return len(self.map.target_shape if self.kind == "scatter" else self.map.element_shape)
        tensor = self.tensor(name)
        return None if tensor is None else tensor.ndim

    def _text(self, tensor: str, pos: Sequence[int], rank: int) -> str:
        return tensor + position_text(pos, rank if self._slices else None)

    def move(self, k: int) -> Move:
        """Step ``k`` (0 <= k < count)."""
        return self._build(k)[0]

    def step(self, k: int) -> Step:
        """Step ``k`` in the op-agnostic form of :mod:`ops.steps`: the data cell a gather
        reads (the update a scatter writes), the deciding index cell, the output cell."""
        move, formula, note = self._build(k)
        index = () if move.index_position is None else (Cell(move.index_input, move.index_position),)
        if self.kind == "gather":
            sources, destination = (Cell("data", move.target),), Cell("output", move.element)
        else:
            sources, destination = (Cell(self.source, move.element),), Cell("output", move.target)
        return Step(k, sources, index, destination, move.value, formula, note)

    def steps(self):
        """Every :meth:`step`, in order."""
        return (self.step(k) for k in range(self.count))

    def _build(self, k: int) -> tuple[Move, str, str]:
        """(move, one-line formula, note) of step ``k``."""
        if not 0 <= k < self.count:
            raise IndexError(f"step {k} is outside 0..{self.count - 1}")
        element = self._element(k)
        flat = self._target_flat(k)
        target = self._target(flat)
        index_input, index_pos, index_value = self._index_info(element)
        out_text = self._text("output", target, self._target_rank)
        where = self._why(element, target, index_input, index_pos, index_value)
        if self.kind == "gather":
            value = self._data_value(flat)
            read = self._text("data", target, self._target_rank)
            text = (f"{self._text('output', element, self._element_rank)} = {read} = {values_text(value)}"
                    f"   ({where})")
            return Move(k, element, target, index_input, index_pos, index_value, value, text), text, ""
        else:
            value = self._update_value(k)
            source = self.source
            head = (f"{self._text(source, element, self._element_rank)} = {values_text(value)} → {out_text}"
                    f"   ({where})")
            fate, arithmetic, note = self._fate(k, flat, source)
            formula = head if not arithmetic else f"{head}; {out_text} = {arithmetic}"
            return Move(k, element, target, index_input, index_pos, index_value, value, head + "\n" + fate), \
                formula, note

    def why(self, k: int) -> str:
        """What decided step ``k``, as its formula says it in parentheses: ``indices[1] = 2``
        (a negative index says where it lands; a TensorScatter adds the sequence position)."""
        element = self._element(k)
        index_input, index_pos, index_value = self._index_info(element)
        return self._why(element, self._target(self._target_flat(k)), index_input, index_pos, index_value)

    def _why(self, element: tuple[int, ...], target: tuple[int, ...], index_input: str,
             index_pos: tuple | None, index_value: Any) -> str:
        if self.op != "TensorScatter":
            return f"{index_input}{position_text(index_pos)} = {self._index_text(index_value)}"
        data = self.inputs[0]
        where = (f"{index_input}{position_text(index_pos)} = {_index_text(index_value)}"
                 if index_pos is not None else "write_indices omitted: 0")
        axis = self.attrs["axis"] % data.ndim
        offset, start = element[axis], int(index_value)
        if self.attrs.get("mode", "linear") == "circular":
            # present[.., (write_indices[b] + s) mod max_sequence_length, ..]
            where += f"; sequence position ({start} + {offset}) mod {data.shape[axis]} = {target[axis]}"
            if start < 0:
                where += ", a negative write index counts from the end"
            elif start + offset >= data.shape[axis]:
                where += ", wrapped to the start"
        else:
            where += f"; sequence position {start} + {offset} = {target[axis]}"
        return where

    def _fate(self, k: int, flat: int, source: str) -> tuple[str, str, str]:
        """(what becomes of step ``k``'s update, the reduction's arithmetic or "", the same
        without the arithmetic: a step's note, whose formula holds it)."""
        steps = self.same_destination(k)
        pos = steps.index(k)
        where = "slice" if self._slices else "cell"

        def name(step: int) -> str:
            return self._text(source, self._element(step), self._element_rank)
        if self.reduction == "none":
            if len(steps) == 1:
                note = f"Only this update writes {self._text('output', self._target(flat), self._target_rank)}"
                # a slice's old values are in the data grid; a cell's fit in the sentence
                note += "." if self._slices else f": it replaces {values_text(self._data_value(flat))}."
            elif steps[pos + 1:]:
                note = (f"{len(steps)} updates hit this {where}; this one is overwritten later by "
                        f"{name(steps[-1])} (the last in row-major order wins; the spec leaves the order open).")
            else:
                note = (f"{len(steps)} updates hit this {where}; this one is the last in row-major order, so it "
                        f"stays (IndexFlow's rule; the spec leaves the order open).")
            return note, "", note
        fold = self._fold()
        running = self._data_value(flat)
        with np.errstate(all="ignore"):
            for s in steps[:pos]:
                running = fold(running, self._update_value(s))
            update = self._update_value(k)
            after = fold(running, update)
        symbol = _SYMBOL[self.reduction]
        expr = (f"{symbol}({values_text(running)}, {values_text(update)})" if symbol in ("max", "min")
                else f"{values_text(running)} {symbol} {values_text(update)}")
        arithmetic = f"{expr} = {values_text(after)}"
        head, final = f"Fold {pos + 1} of {len(steps)} into this {where}", (" (final)" if pos == len(steps) - 1 else "")
        return f"{head}: {arithmetic}{final}", arithmetic, head + final

    def _data_value(self, flat: int) -> Any:
        """The element (or slice) of ``data`` at a :meth:`_target_flat` value."""
        data = self.inputs[0]
        if self._slices:
            return data.reshape(-1, self.map.block)[flat].reshape(self.map.block_shape)
        return data.reshape(-1)[flat]

    def _update_value(self, k: int) -> Any:
        """The element (or slice) a scatter's step ``k`` writes."""
        if self._slices:
            return self._updates().reshape(-1, self.map.block)[k].reshape(self.map.block_shape)
        return self._updates()[k]

    def output_after(self, k: int) -> np.ndarray:
        """A scatter's output as it stands after steps ``0..k`` (row-major): ``data`` with the
        updates of the first ``k + 1`` steps written (reduction none: in order, so a later
        duplicate overwrites) or folded in. After the last step it is the op's output. O(k)."""
        if self.kind != "scatter":
            raise ValueError(f"{self.op} is a gather: its output does not build up step by step")
        if not 0 <= k < self.count:
            raise IndexError(f"step {k} is outside 0..{self.count - 1}")
        data = self.inputs[0]
        updates = self._updates()
        out = np.array(data, copy=True)
        flat_out = out.reshape(-1)
        block = self.map.block
        done = (k + 1) * self.unit            # elements written so far
        steps = np.arange(done)
        targets = self._flat_rows[steps // block] * block + steps % block
        if self.reduction == "none":
            flat_out[targets] = updates[:done]  # assigns in order: the last write wins (as ops does)
            return out
        fold = self._fold()
        with np.errstate(all="ignore"):
            fold.at(flat_out, targets, updates[:done])
        return out

    def _updates(self) -> np.ndarray:
        """A scatter's written values, flat (row-major), as step ``k`` counts them."""
        return self.inputs[self.opdef.input_index(self.source)].reshape(-1)

    def _fold(self) -> Fold:
        """How an update folds into a cell under this reduction (:mod:`ops.reductions`)."""
        return self.opdef.reductions.fold(self.op, self.reduction, self.inputs[0].dtype)



def _index_text(value: Any) -> str:
    if isinstance(value, tuple):
        return "[" + ", ".join(str(int(v)) for v in value) + "]"
    return str(int(value))


def explain(op: str, inputs: Sequence[np.ndarray | None] | Mapping[str, np.ndarray | None],
            attrs: Mapping[str, Any] | None = None, granularity: Granularity | None = None) -> Explanation:
    """An :class:`Explanation` of ``op`` applied to ``inputs`` (raises like the kernel would):
    in the schema's order, or by input name (``{"data": ..., "indices": ...}``, as
    ``Engine.input_values`` gives them; a name the op does not have is an OpError).
    ``granularity`` None: slices where the op moves them (:data:`SLICE_OPS`), else elements."""
    if isinstance(inputs, Mapping):
        names = [spec.name for spec in get_opdef(op).schema.inputs]
        unknown = sorted(set(inputs) - set(names))
        if unknown:
            raise OpError(f"{op}: no input called {', '.join(map(repr, unknown))}; its inputs are "
                          f"{', '.join(names)}")
        inputs = [inputs.get(name) for name in names]
    return Explanation(op, inputs, attrs, granularity)
