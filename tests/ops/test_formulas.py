"""ops.formulas: each op's formula written out for concrete ranks and attributes. The text is
checked twice: against hand-written expectations from the spec, and by *running* it as Python
(a loop over the coordinates it names, in row-major order) and comparing with ops."""
import re

import numpy as np
import pytest

import ops
from ops import formula


@pytest.mark.parametrize("op,attrs,ranks,expected", [
    ("Gather", {"axis": 1}, (2, 1, None), "output[a, i] = data[a, indices[i]]"),
    ("Gather", {}, (2, 2, None), "output[i, j, b] = data[indices[i, j], b]"),
    ("Gather", {}, (1, 0, None), "output = data[indices]"),
    ("GatherElements", {"axis": 1}, (2, None, None), "output[i, j] = data[i, indices[i, j]]"),
    ("GatherElements", {"axis": -1}, (3, None, None), "output[i, j, k] = data[i, j, indices[i, j, k]]"),
    ("ScatterElements", {"axis": 1, "reduction": "add"}, (2, None, None), "output[i, indices[i, j]] += updates[i, j]"),
    ("ScatterElements", {"reduction": "max"}, (2, None, None),
     "output[indices[i, j], j] = max(output[indices[i, j], j], updates[i, j])"),
    ("Scatter", {}, (2, None, None), "output[indices[i, j], j] = updates[i, j]"),
    ("GatherND", {}, (2, 2, 2), "output[i] = data[indices[i, 0], indices[i, 1]]"),
    ("GatherND", {"batch_dims": 1}, (3, 3, 1), "output[n0, i, s] = data[n0, indices[n0, i, 0], s]"),
    ("ScatterND", {"reduction": "mul"}, (3, 2, 1), "output[indices[i, 0], s, t] *= updates[i, s, t]"),
])
def test_formulas_read_as_the_spec_writes_them(op, attrs, ranks, expected):
    assert formula(op, attrs, *ranks) == expected


def test_unknown_ranks_or_ops_give_none():
    assert formula("GatherElements", {"axis": 1}, None) is None
    assert formula("GatherND", {}, 2, 2, None) is None          # the tuple length is not known
    assert formula("GatherND", {}, 2, 2, 3) is None             # k larger than the rank: an error elsewhere
    assert formula("TensorScatter", {}, 4, None) is None


def _run(text: str, env: dict, loop_over: str, shape: tuple) -> None:
    """Execute ``text`` once per coordinate of ``shape`` (row-major), binding the names inside
    ``loop_over[...]`` in the formula (``output`` for gathers, ``updates`` for scatters)."""
    m = re.match(r"output(\[[^=]*?\])? (\+|\*)?=", text) if loop_over == "output" else None
    bracket = re.search(rf"{loop_over}\[([^\[\]]*)\]", text) if loop_over == "updates" else m
    names = [] if bracket is None or bracket.group(1) is None else \
        [n.strip() for n in bracket.group(1).strip("[]").split(",")]
    unpack = ", ".join(names) + ", = _c" if names else "pass"
    program = compile(f"for _c in np.ndindex(*_shape):\n    {unpack}\n    {text}", "<formula>", "exec")
    exec(program, {"np": np, **env, "_shape": shape})


CASES = [  # op, attrs, data shape, indices shape (or None: same as data), k
    ("Gather", {"axis": 0}, (5, 3), (2, 4), None),
    ("Gather", {"axis": 1}, (2, 6, 3), (4,), None),
    ("GatherElements", {"axis": 0}, (4, 3), None, None),
    ("GatherElements", {"axis": 2}, (2, 3, 5), None, None),
    ("GatherND", {}, (4, 5, 3), (6, 2), 2),
    ("GatherND", {"batch_dims": 1}, (3, 4, 2), (3, 5, 1), 1),
    ("ScatterElements", {"axis": 1, "reduction": "add"}, (3, 5), (3, 4), None),
    ("ScatterElements", {"axis": 0, "reduction": "max"}, (4, 3), (6, 3), None),
    ("ScatterElements", {"axis": 0}, (4, 3), (6, 3), None),
    ("ScatterND", {"reduction": "mul"}, (4, 3), (5, 1), 1),
    ("ScatterND", {}, (4, 3, 2), (7, 2), 2),
]


@pytest.mark.parametrize("op,attrs,dshape,ishape,k", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_running_the_formula_gives_what_ops_gives(op, attrs, dshape, ishape, k):
    """Duplicates and reductions included: the formula run in row-major order is the spec."""
    rng = np.random.default_rng(len(op) + len(dshape))
    data = rng.integers(-9, 10, dshape)
    a = attrs.get("axis", 0) % len(dshape)
    if op in ("Gather",):
        indices = rng.integers(0, dshape[a], ishape)
    elif op in ("GatherElements", "ScatterElements"):
        ishape = ishape or dshape
        indices = rng.integers(0, dshape[a], ishape)
    else:
        b = attrs.get("batch_dims", 0)
        cols = [rng.integers(0, dshape[b + c], ishape[:-1]) for c in range(k)]
        indices = np.stack(cols, axis=-1)
    text = formula(op, attrs, len(dshape), indices.ndim, indices.shape[-1])
    if op.startswith("Gather"):
        expected = ops.run_op(op, [data, indices], attrs)
        out = np.zeros_like(expected)
        _run(text, {"output": out, "data": data, "indices": indices}, "output", expected.shape)
    else:
        b_updates = indices.shape if op == "ScatterElements" else indices.shape[:-1] + dshape[k:]
        updates = rng.integers(-3, 4, b_updates)
        expected = ops.run_op(op, [data, indices, updates], attrs)
        out = data.copy()
        _run(text, {"output": out, "data": data, "indices": indices, "updates": updates}, "updates", updates.shape)
    np.testing.assert_array_equal(out, expected)
