"""Named (symbolic) dimensions: how a shape is written and read, and how symbols are bound.

A dimension of a :class:`ops.TensorType` is an int (its size), a str (a named size, e.g.
``"batch"``: one name is one size everywhere in the graph) or None (unknown). A graph input
may declare such a shape (:attr:`~nodeeditor.graph.nodes.InputSource.shape`) while its
example value is concrete; the graph always runs on concrete values, and its static types
carry the names.

Unification lives here, in one place: :func:`bind_inputs` binds every symbol to the size the
graph inputs' examples give it, in node order. An input whose example gives a symbol another
size than an earlier input did is an error on that input, naming both inputs and dimensions
(:class:`SymbolConflict`). Shape rules elsewhere (the ``ops`` rules, ONNX shape inference for
foreign nodes) carry symbols through and treat one symbol as equal to itself only.

Text form (the property panel, the command line): ``"batch, 4"``; ``?`` for an unknown
dimension; brackets are optional (``"[batch, 4]"``); an empty text is a scalar. A symbol is
any text without a comma or a bracket that is not a number (``"seq len"`` is allowed).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Dim = int | str | None


class ShapeTextError(ValueError):
    """A shape text that cannot be read; the message says which part and why."""


def parse_shape(text: str | Sequence[Dim]) -> tuple[Dim, ...]:
    """``"batch, 4"`` -> ``("batch", 4)``; a sequence of dims is checked and returned as a
    tuple. ShapeTextError for a negative size, an empty part or a bool."""
    if not isinstance(text, str):
        out = []
        for i, d in enumerate(text):
            if isinstance(d, bool) or not (d is None or isinstance(d, (int, str))):
                raise ShapeTextError(f"dimension {i} must be a size, a name or None, got {d!r}")
            if isinstance(d, int) and d < 0:
                raise ShapeTextError(f"dimension {i} is negative ({d})")
            if isinstance(d, str) and (not d.strip() or d.strip() != d):
                raise ShapeTextError(f"dimension {i} is a name with no text or with spaces around it ({d!r})")
            out.append(int(d) if isinstance(d, int) else d)
        return tuple(out)
    body = text.strip()
    if body.startswith(("[", "(")) and body.endswith(("]", ")")):
        body = body[1:-1].strip()
    if not body:
        return ()
    dims: list[Dim] = []
    for i, part in enumerate(p.strip() for p in body.split(",")):
        if not part:
            if i == len(body.split(",")) - 1 and i > 0:
                continue  # "4," is a rank-1 shape
            raise ShapeTextError(f"dimension {i} is empty in {text!r}")
        if any(c in part for c in "[]()"):
            raise ShapeTextError(f"dimension {i} ({part!r}) holds a bracket")
        if part == "?":
            dims.append(None)
            continue
        try:
            size = int(part)
        except ValueError:
            dims.append(part)
            continue
        if size < 0:
            raise ShapeTextError(f"dimension {i} is negative ({size}); write a name for a size known later")
        dims.append(size)
    return tuple(dims)


def format_shape(shape: Sequence[Dim]) -> str:
    """``("batch", 4)`` -> ``"batch, 4"`` (the text :func:`parse_shape` reads back)."""
    return ", ".join("?" if d is None else str(d) for d in shape)


def symbols(shape: Iterable[Dim]) -> tuple[str, ...]:
    """The names in ``shape``, each once, in order."""
    return tuple(dict.fromkeys(d for d in shape if isinstance(d, str)))


def fit_problem(declared: Sequence[Dim], concrete: Sequence[int]) -> str | None:
    """Why a value of shape ``concrete`` cannot stand for ``declared`` (rank, or a fixed size
    that differs), or None when it can. Symbols and unknowns take any size here; whether one
    symbol keeps one size is :func:`bind_inputs`' question."""
    if len(declared) != len(concrete):
        return (f"the example has shape [{format_shape(concrete)}] (rank {len(concrete)}), "
                f"the declared shape [{format_shape(declared)}] has rank {len(declared)}")
    for i, (d, c) in enumerate(zip(declared, concrete, strict=True)):
        if isinstance(d, int) and d != c:
            return f"dimension {i} of the example is {c}, the declared shape [{format_shape(declared)}] says {d}"
    return None


def merged_type_shape(declared: Sequence[Dim] | None, concrete: Sequence[int]) -> tuple[Dim, ...]:
    """The static shape of a value of shape ``concrete`` declared as ``declared``: the names
    (and unknowns) where declared, the concrete sizes elsewhere; ``concrete`` when nothing is
    declared or it does not fit."""
    if declared is None or fit_problem(declared, concrete) is not None:
        return tuple(int(c) for c in concrete)
    return tuple(d if d is None or isinstance(d, str) else int(c) for d, c in zip(declared, concrete, strict=True))


@dataclass(frozen=True)
class Binding:
    """A symbol's size, and where it was bound: the input's label and the dimension."""

    size: int
    where: str
    dim: int


@dataclass(frozen=True)
class SymbolConflict:
    """One input gives a symbol another size than an earlier input (or itself) did."""

    symbol: str
    size: int
    dim: int
    earlier: Binding

    def message(self) -> str:
        here = f"dimension {self.dim} of this input's example"
        return (f"named dimension {self.symbol!r} is {self.size} here ({here}) but {self.earlier.size} in "
                f"{self.earlier.where} (dimension {self.earlier.dim}); one name is one size, so the examples "
                "must agree")


def bind_inputs(inputs: Iterable[tuple[str, str, Sequence[Dim] | None, Sequence[int]]]
                ) -> tuple[dict[str, Binding], dict[str, SymbolConflict]]:
    """Bind symbols over graph inputs given as ``(node id, label, declared shape or None,
    example shape)`` in node order. Returns symbol -> :class:`Binding` (the first size seen)
    and node id -> the first :class:`SymbolConflict` of that input. An input whose declared
    shape does not fit its example binds nothing (its own error says why)."""
    bound: dict[str, Binding] = {}
    conflicts: dict[str, SymbolConflict] = {}
    for node_id, label, declared, concrete in inputs:
        if declared is None or fit_problem(declared, concrete) is not None:
            continue
        for i, (d, c) in enumerate(zip(declared, concrete, strict=True)):
            if not isinstance(d, str):
                continue
            if d not in bound:
                bound[d] = Binding(int(c), label, i)
            elif bound[d].size != c and node_id not in conflicts:
                conflicts[node_id] = SymbolConflict(d, int(c), i, bound[d])
    return bound, conflicts
