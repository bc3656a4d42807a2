"""Step-by-step explanations of an op's backward pass: where each gradient element comes from.

:class:`BackwardExplanation` turns the forward explanation around. It is built on the same
:class:`ops.explain.Explanation` (single elements), so on the same IndexMap as the kernel and
:func:`ops.vjp`, and every gradient value it shows is the one ``ops.vjp`` gives. Gradient
tensors are named after what they are the gradient of: ``d output`` (given, d loss / d the
op's output), ``d data``, ``d updates`` (``d past_cache``, ``d update`` for TensorScatter).

The steps, in order:

- a gather (Gather, GatherElements, GatherND): one step per element of ``d output``, in
  row-major order; each adds that gradient to the ``d data`` cell the element read:
  ``d data[2, 0] += d output[1, 0] = 0.5, since indices[1] = 2; d data[2, 0] = 0 + 0.5 = 0.5``
  (a negative term in parentheses: ``0.5 + (-0.25)``).
  :meth:`BackwardExplanation.after` gives ``d data`` as it stands after a step. Cells no
  element read stay 0.
- a scatter (Scatter, ScatterElements, ScatterND, TensorScatter): first one step per update
  element (row-major), giving its ``d updates`` cell, then one step per ``data`` cell the
  scatter writes (row-major), giving its ``d data`` cell; every cell nothing writes has
  ``d data = d output`` (said by :attr:`BackwardExplanation.summary`). By reduction:

  * none (and TensorScatter): the update the output keeps gets ``d output`` of its cell; an
    update a later duplicate overwrote gets ``0 (overwritten by updates[k])``; a written
    data cell gets 0.
  * add: each update and the data cell get ``d output`` of the cell.
  * mul: each factor gets ``d output`` times the product of the cell's other factors.
  * max / min: the contributors equal to the result share its gradient evenly; a tie is
    spelled out (``max(2, 1.1, 2) = 2, a tie shared by 2: g/2``), a loser gets 0.

Steps are :class:`ops.steps.Step` values: ``sources`` are the gradient cells the value comes
from (none for a zero), ``index`` the index cells that decided it, ``destination`` the
gradient cell written. :meth:`BackwardExplanation.also` lists the other cells of the same
sum, product or tie.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .dtypes import dtype_name
from .errors import OpError
from .explain import Explanation, values_text
from .registry import run_op
from .steps import Cell, Granularity, Step, position_text
from .vjp import COMPUTE_DTYPES, vjp

__all__ = ["GRAD_OUTPUT", "BackwardExplanation", "explain_backward", "grad_name"]

#: The name of the given gradient (d loss / d the op's output).
GRAD_OUTPUT = "d output"
_SYMBOL = {"max": "max", "min": "min"}


def grad_name(tensor: str) -> str:
    """The name of the gradient of ``tensor``: ``d data``."""
    return f"d {tensor}"


class BackwardExplanation:
    """The backward steps of one op application (see the module docstring). ``grad_output``
    is d loss / d output (the output's shape; a float dtype the op's values have). Raises
    ``OpError`` like :func:`ops.vjp` (wrong shape or dtype; values with no gradient)."""

    def __init__(self, op: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None,
                 grad_output: np.ndarray | None) -> None:
        self.forward = Explanation(op, inputs, attrs, Granularity.ELEMENT)
        f = self.forward
        self.op, self.opdef, self.schema, self.attrs = op, f.opdef, f.schema, f.attrs
        self.inputs, self.map, self.kind = f.inputs, f.map, f.kind
        self.reduction = self.attrs.get("reduction", "none")
        grads = vjp(op, list(inputs), attrs, grad_output)
        names = [p.name for p in self.schema.inputs]
        #: gradient name -> the gradient ``ops.vjp`` gives (differentiable inputs only)
        self.gradients = {grad_name(n): g for n, g in zip(names, grads, strict=False) if g is not None}
        if not self.gradients:
            data = self.inputs[0]
            raise OpError(f"{op}: its {self.opdef.data_port} is {data.dtype}: no gradient flows through it "
                          f"(gradients are taken of float tensors)")
        self.grad_output = np.asarray(grad_output)
        self.data = self.opdef.data_port
        self.source = self.opdef.updates_port      # scatters: the values written
        #: the dtype ops.vjp computes in (float32 for float16 and bfloat16)
        self._compute = COMPUTE_DTYPES[dtype_name(self.gradients[grad_name(self.data)])]
        self._flat_grad = self.grad_output.reshape(-1)
        if self.kind == "scatter":
            self.output = run_op(op, list(inputs), attrs)
            targets = np.asarray(self.map.flat_offsets()).reshape(-1)
            #: flat data cells a scatter writes, in row-major order
            self.written = np.unique(targets)
            self._updates_count = f.count
        else:
            self.output = None
            self.written = np.zeros(0, np.int64)
            self._updates_count = 0

    # ------------------------------------------------------------------ reading
    @property
    def count(self) -> int:
        """Number of steps (see the module docstring)."""
        if self.kind == "gather":
            return self.forward.count
        return self._updates_count + int(self.written.size)

    @property
    def destination_tensors(self) -> tuple[str, ...]:
        """The gradients the steps write, in step order."""
        if self.kind == "gather":
            return (grad_name(self.data),)
        return (grad_name(self.source), grad_name(self.data))

    @property
    def summary(self) -> str:
        """One sentence on the whole pass (what the steps do and what no step shows)."""
        d, dd = grad_name(self.data), f"d {self.data}"
        if self.kind == "gather":
            return (f"{dd}: each cell adds up the d output elements that read it; a cell no element "
                    f"reads stays 0")
        du = grad_name(self.source)
        rule = {"none": f"{du}: d output where the update landed, 0 where a later one overwrote it; "
                        f"{d}: 0 where written",
                "add": f"{du}: d output where the update was added; {d}: d output",
                "mul": f"{du} and {d}: d output times the other factors of the cell",
                "max": f"{du} and {d}: d output to the contributors equal to the max, shared by ties",
                "min": f"{du} and {d}: d output to the contributors equal to the min, shared by ties"}
        return f"{rule[self.reduction]}; a {self.data} cell nothing writes has {d} = d output"

    def tensor(self, name: str) -> np.ndarray | None:
        """An input by its schema name, ``d output``, or a gradient (``d data``: its final value)."""
        if name == GRAD_OUTPUT:
            return self.grad_output
        if name in self.gradients:
            return self.gradients[name]
        return self.forward.tensor(name)

    def rank(self, name: str) -> int | None:
        tensor = self.tensor(name)
        return None if tensor is None else tensor.ndim

    def panels(self) -> list[tuple[str, np.ndarray | None]]:
        """(name, tensor) of each tensor a step-through shows, in order: the values a rule
        reads (mul, max, min), the index inputs, ``d output``, then the gradients."""
        names = [p.name for p in self.schema.inputs]
        inputs = list(self.inputs) + [None] * (len(names) - len(self.inputs))
        shown = [(n, x) for n, x in zip(names, inputs, strict=True)
                 if n in self.opdef.index_ports or (self.reduction in ("mul", "max", "min"))]
        shown.append((GRAD_OUTPUT, self.grad_output))
        for name in (grad_name(self.data),) + ((grad_name(self.source),) if self.kind == "scatter" else ()):
            shown.append((name, self.gradients[name]))
        return shown

    def after(self, k: int) -> tuple[str, np.ndarray, str] | None:
        """A gather's ``d data`` as it stands after steps ``0..k`` (name, tensor, a note
        "after step N" unless it is the last), None for a scatter (its steps fill cells of
        their own: the final gradients show them)."""
        self._check(k)
        if self.kind != "gather":
            return None
        name = grad_name(self.data)
        final = self.gradients[name]
        offsets = np.asarray(self.map.flat_offsets()).reshape(-1)[: k + 1]
        acc = np.zeros(final.size, dtype=self._compute)
        np.add.at(acc, offsets, self._flat_grad[: k + 1].astype(self._compute))
        note = f"after step {k + 1}" if k < self.count - 1 else ""
        return name, acc.astype(final.dtype).reshape(final.shape), note

    def also(self, k: int) -> list[Cell]:
        """The other cells of step ``k``'s sum, product or tie: the other ``d output``
        elements adding into the same ``d data`` cell (gather), the other updates of the same
        data cell (scatter)."""
        self._check(k)
        f = self.forward
        if self.kind == "gather":
            return [Cell(GRAD_OUTPUT, f.element_position(s)) for s in f.same_destination(k) if s != k]
        du = grad_name(self.source)
        if k < self._updates_count:
            return [Cell(du, f.element_position(s)) for s in f.same_destination(k) if s != k]
        return [Cell(du, f.element_position(s)) for s in f.contributors(self._written_flat(k))]

    def move(self, k: int):
        """The forward move step ``k`` turns around (a data step: the first update of its cell)."""
        self._check(k)
        if self.kind == "gather" or k < self._updates_count:
            return self.forward.move(k)
        return self.forward.move(self.forward.contributors(self._written_flat(k))[0])

    def steps(self):
        return (self.step(k) for k in range(self.count))

    def step(self, k: int) -> Step:
        """Step ``k`` (see the module docstring)."""
        self._check(k)
        if self.kind == "gather":
            return self._gather_step(k)
        if k < self._updates_count:
            return self._update_step(k)
        return self._data_step(k)

    # ------------------------------------------------------------------ gathers
    def _gather_step(self, k: int) -> Step:
        f = self.forward
        m = f.move(k)
        dd = grad_name(self.data)
        g = self.grad_output[m.element]
        same = f.same_destination(k)
        pos = same.index(k)
        before = self._compute(0)
        for s in same[:pos]:
            before = self._compute(before + self._compute(self._flat_grad[s]))
        after = self._compute(before + self._compute(g))
        dest, src = Cell(dd, m.target), Cell(GRAD_OUTPUT, m.element)
        formula = (f"{dest.text()} += {src.text()} = {values_text(g)}, since {f.why(k)}; "
                   f"{dest.text()} = {values_text(before)} + {_term(g)} = {values_text(after)}")
        if len(same) == 1:
            note = f"Only output{position_text(m.element)} reads {self.data}{position_text(m.target)}."
        else:
            final = " (final)" if pos == len(same) - 1 else ""
            note = f"Gradient {pos + 1} of {len(same)} into {dest.text()}{final}"
        return Step(k, (src,), self._index_cells([k]), dest, g, formula, note)

    # ------------------------------------------------------------------ scatters
    def _index_cells(self, steps: Sequence[int]) -> tuple[Cell, ...]:
        cells = []
        for s in steps:
            m = self.forward.move(s)
            if m.index_position is not None:
                cell = Cell(m.index_input, m.index_position)
                if cell not in cells:
                    cells.append(cell)
        return tuple(cells)

    def _written_flat(self, k: int) -> int:
        return int(self.written[k - self._updates_count])

    def _cell_values(self, target: tuple[int, ...], contributors: Sequence[int]) -> list[tuple[str, Any]]:
        """(name, value) of each contributor of a written cell: the data value, then its
        updates in row-major order."""
        updates = self.forward.tensor(self.source)
        out = [(f"{self.data}{position_text(target)}", self.inputs[0][target])]
        for s in contributors:
            e = self.forward.element_position(s)
            out.append((f"{self.source}{position_text(e)}", updates[e]))
        return out

    def _extreme(self, target, contributors) -> tuple[str, Any, list[bool]]:
        """For max / min: the fold's text (``max(2, 1.1, 2) = 2``), the result, and for each
        contributor (data first) whether it equals the result (NaN counts as equal to NaN)."""
        values = [v for _, v in self._cell_values(target, contributors)]
        result = self.output[target]
        nan = bool(np.isnan(result))
        wins = [bool(np.isnan(v)) if nan else bool(v == result) for v in values]
        text = f"{_SYMBOL[self.reduction]}({', '.join(values_text(v) for v in values)}) = {values_text(result)}"
        return text, result, wins

    def _product_text(self, head: str, g, factors: list[tuple[str, Any]], value) -> str:
        names = " × ".join([head] + [n for n, _ in factors])
        numbers = " × ".join([values_text(g)] + [values_text(v) for _, v in factors])
        return f"{names} = {numbers} = {values_text(value)}"

    def _share(self, dest: Cell, target: tuple[int, ...], g, wins: list[bool], value, mine: int) -> tuple[str, str]:
        """(formula head, note) of a max / min contributor (``mine``: its place, data first):
        the result alone, a tie, or a loser."""
        count, out = sum(wins), Cell(GRAD_OUTPUT, target).text()
        if not wins[mine]:
            return f"{dest.text()} = 0", f"not the {self.reduction}: 0"
        if count == 1:
            return f"{dest.text()} = {out} = {values_text(g)}", f"the {self.reduction}, alone: all of d output"
        return (f"{dest.text()} = {out} / {count} = {values_text(g)} / {count} = {values_text(value)}",
                f"a tie of {count}: g/{count}")

    def _update_step(self, k: int) -> Step:
        f = self.forward
        m = f.move(k)
        e, t = m.element, m.target
        du = grad_name(self.source)
        dest = Cell(du, e)
        g = self.grad_output[t]
        value = self.gradients[du][e]
        same = f.same_destination(k)
        why = f.why(k)
        index = self._index_cells([k])
        out_cell = Cell(GRAD_OUTPUT, t)
        if self.reduction == "none":
            winner = same[-1]
            if winner != k:
                w = f.element_position(winner)
                formula = (f"{dest.text()} = 0 (overwritten by {self.source}{position_text(w)}), since {why}")
                note = f"overwritten by {self.source}{position_text(w)}: 0"
                return Step(k, (), index, dest, value, formula, note)
            formula = f"{dest.text()} = {out_cell.text()} = {values_text(g)}, since {why}"
            note = (f"the last of {len(same)} updates of output{position_text(t)}: it stays, so it gets d output"
                    if len(same) > 1 else "the update output keeps: d output")
            return Step(k, (out_cell,), index, dest, value, formula, note)
        if self.reduction == "add":
            formula = f"{dest.text()} = {out_cell.text()} = {values_text(g)}, since {why}"
            return Step(k, (out_cell,), index, dest, value, formula, "added: d output unchanged")
        if self.reduction == "mul":
            factors = [nv for nv, s in zip(self._cell_values(t, same), [None] + list(same), strict=True) if s != k]
            formula = f"{dest.text()} = {self._product_text(out_cell.text(), g, factors, value)}, since {why}"
            return Step(k, (out_cell,), index, dest, value, formula, "d output × the other factors")
        fold, _result, wins = self._extreme(t, same)
        mine = 1 + same.index(k)
        head, note = self._share(dest, t, g, wins, value, mine)
        formula = f"{head}, since {why}; {fold}"
        if not wins[mine]:
            formula += f", not this update's {values_text(self._cell_values(t, same)[mine][1])}"
        elif sum(wins) > 1:
            formula += f", a tie shared by {sum(wins)}: g/{sum(wins)}"
        else:
            formula += ", from this update alone"
        return Step(k, (out_cell,) if wins[mine] else (), index, dest, value, formula, note)

    def _data_step(self, k: int) -> Step:
        f = self.forward
        flat = self._written_flat(k)
        t = tuple(int(i) for i in np.unravel_index(flat, self.inputs[0].shape))
        dd = grad_name(self.data)
        dest = Cell(dd, t)
        g = self.grad_output[t]
        value = self.gradients[dd][t]
        same = f.contributors(flat)
        index = self._index_cells(same)
        out_cell = Cell(GRAD_OUTPUT, t)
        n = len(same)
        updates = f"{n} update" + ("s" if n != 1 else "")
        if self.reduction == "none":
            winner = same[-1]
            w = f.element_position(winner)
            formula = (f"{dest.text()} = 0 (overwritten by {self.source}{position_text(w)}), since {f.why(winner)}")
            return Step(k, (), self._index_cells([winner]), dest, value, formula,
                        f"overwritten by {self.source}{position_text(w)}: 0")
        if self.reduction == "add":
            formula = (f"{dest.text()} = {out_cell.text()} = {values_text(g)}, since output{position_text(t)} = "
                       f"{self.data}{position_text(t)} + {updates}")
            return Step(k, (out_cell,), index, dest, value, formula, "added to: d output unchanged")
        if self.reduction == "mul":
            factors = self._cell_values(t, same)[1:]
            formula = (f"{dest.text()} = {self._product_text(out_cell.text(), g, factors, value)}, since "
                       f"output{position_text(t)} = {self.data}{position_text(t)} × {updates}")
            return Step(k, (out_cell,), index, dest, value, formula, "d output × the updates")
        fold, _result, wins = self._extreme(t, same)
        head, note = self._share(dest, t, g, wins, value, 0)
        formula = f"{head}, since {fold}"
        if not wins[0]:
            formula += f", not {self.data}{position_text(t)}'s {values_text(self.inputs[0][t])}"
        elif sum(wins) > 1:
            formula += f", a tie shared by {sum(wins)}: g/{sum(wins)}"
        else:
            formula += f", from {self.data}{position_text(t)} alone"
        return Step(k, (out_cell,) if wins[0] else (), index, dest, value, formula, note)

    def _check(self, k: int) -> None:
        if not 0 <= k < self.count:
            raise IndexError(f"step {k} is outside 0..{self.count - 1}")


def _term(value: Any) -> str:
    """A number as the second term of a sum: ``(-0.5)`` in parentheses when negative."""
    text = values_text(value)
    return f"({text})" if text.startswith("-") else text


def explain_backward(op: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None,
                     grad_output: np.ndarray) -> BackwardExplanation:
    """A :class:`BackwardExplanation` of ``op`` on ``inputs`` with ``grad_output`` = d loss / d output."""
    return BackwardExplanation(op, inputs, attrs, grad_output)
