"""Each op's defining formula written out for concrete ranks and attributes, for people.

Each op's :class:`ops.opdef.OpDef` names its function here; :func:`ops.registry.formula` looks
it up by op name: ``formula("GatherElements", {"axis": 1}, data_rank=2)`` gives
``output[i, j] = data[i, indices[i, j]]``: the spec's formula with the axis in its place
and one coordinate per dimension, so a reader sees exactly which coordinate the index
replaces. Naming: coordinates over ``indices`` are ``i, j, k, ..``; over the other axes of
``data`` ``a, b, c, ..`` (Gather) or ``s, t, u, ..`` (the trailing slice of GatherND and
ScatterND); batch coordinates ``n0, n1, ..``. Returns None when a rank it needs is unknown
(the caller shows the schema's generic text instead).
"""
from __future__ import annotations

_INDEX_NAMES = "ijklmh"
_DATA_NAMES = "abcdefg"
_SLICE_NAMES = "stuvwxyz"


def _names(letters: str, n: int, prefix: str) -> list[str]:
    return list(letters[:n]) if n <= len(letters) else [f"{prefix}{d}" for d in range(n)]


def _at(names: list[str]) -> str:
    """``[i, j]``; nothing for a rank-0 tensor."""
    return "[" + ", ".join(names) + "]" if names else ""


def _assign(target: str, value: str, reduction: str) -> str:
    """``target = value`` folded with ``reduction`` (ScatterElements/ScatterND)."""
    if reduction == "add":
        return f"{target} += {value}"
    if reduction == "mul":
        return f"{target} *= {value}"
    if reduction in ("max", "min"):
        return f"{target} = {reduction}({target}, {value})"
    return f"{target} = {value}"


def gather_formula(attrs, r, q, _k):
    a = int(attrs.get("axis", 0)) % r
    idx = _names(_INDEX_NAMES, q, "i")
    data = _names(_DATA_NAMES, r, "d")
    out = data[:a] + idx + data[a + 1:]
    return f"output{_at(out)} = data{_at(data[:a] + ['indices' + _at(idx)] + data[a + 1:])}"


def gather_elements_formula(attrs, r, _q, _k):
    a = int(attrs.get("axis", 0)) % r
    idx = _names(_INDEX_NAMES, r, "i")
    picked = idx[:a] + [f"indices{_at(idx)}"] + idx[a + 1:]
    return f"output{_at(idx)} = data{_at(picked)}"


def scatter_elements_formula(attrs, r, _q, _k):
    a = int(attrs.get("axis", 0)) % r
    idx = _names(_INDEX_NAMES, r, "i")
    target = "output" + _at(idx[:a] + [f"indices{_at(idx)}"] + idx[a + 1:])
    return _assign(target, f"updates{_at(idx)}", attrs.get("reduction", "none"))


def _nd_parts(attrs, r, q, k):
    b = int(attrs.get("batch_dims", 0))
    if not isinstance(k, int) or not 1 <= k <= r - b or q < b + 1:
        raise ValueError
    batch = [f"n{d}" for d in range(b)]
    idx = _names(_INDEX_NAMES, q - 1 - b, "i")
    rest = _names(_SLICE_NAMES, r - b - k, "s")
    picks = [f"indices{_at(batch + idx + [str(c)])}" for c in range(k)]
    return batch, idx, rest, picks


def gather_nd_formula(attrs, r, q, k):
    batch, idx, rest, picks = _nd_parts(attrs, r, q, k)
    return f"output{_at(batch + idx + rest)} = data{_at(batch + picks + rest)}"


def scatter_nd_formula(attrs, r, q, k):
    batch, idx, rest, picks = _nd_parts({}, r, q, k)
    return _assign(f"output{_at(picks + rest)}", f"updates{_at(idx + rest)}", attrs.get("reduction", "none"))


def scatter_formula(attrs, r, q, k):
    """Scatter (opsets 9, 10): ScatterElements with reduction none."""
    return scatter_elements_formula({**attrs, "reduction": "none"}, r, q, k)
