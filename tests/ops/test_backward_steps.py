"""The backward steps of the seed examples (ops.backward_steps), against loops written out here
from the rules of the gradient (never from ops.vjp or ops.explain): each gather adds d output
into the d data cell it read, in row-major order; each scatter update gets d output of its
cell (0 when overwritten; the other factors for mul; a share of a tie for max/min), and each
written data cell likewise. The seed inputs come from tests/ops/seed_steps.py (the pages)."""
from __future__ import annotations

import numpy as np
import pytest

from ops.backward_steps import GRAD_OUTPUT, explain_backward
from ops.errors import OpError
from ops.steps import Cell, step_line

from .seed_steps import (
    GATHER11_AXIS0,
    GATHER11_AXIS1,
    SCATTER9_EX1,
    SCATTER9_EX2,
    SCATTERELEMENTS,
    SCATTERND_EX1,
    SCATTERND_EX2,
    idx_text,
    num,
    pos,
)

F32 = np.float32


def grad_like(shape) -> np.ndarray:
    """d output: 0.5, -1, 1.5, -2, ... in row-major order (exact in float32)."""
    n = int(np.prod(shape))
    signs = np.where(np.arange(n) % 2 == 0, 1, -1).astype(F32)
    return (np.arange(1, n + 1, dtype=F32) * F32(0.5) * signs).reshape(shape)


# ---------------------------------------------------------------------- the loops
def gather_lines(data, indices, axis, g):
    """Gather: output[..i..] = data[..indices[i]..]; d data[src] += d output[out]."""
    q = indices.ndim
    acc = np.zeros(data.shape, F32)
    lines = []
    for n, out in enumerate(np.ndindex(g.shape)):
        i = out[axis:axis + q]
        k = int(indices[i])
        src = out[:axis] + (k % data.shape[axis],) + out[axis + q:]
        before = acc[src]
        acc[src] = F32(before + g[out])
        term = num(g[out]) if g[out] >= 0 else f"({num(g[out])})"
        lines.append(f"{n + 1}: d data{pos(src)} += d output{pos(out)} = {num(g[out])}, since "
                     f"indices{pos(i)} = {idx_text(k, data.shape[axis])}; d data{pos(src)} = {num(before)} + "
                     f"{term} = {num(acc[src])}")
    return lines, acc


def scatter_lines(data, updates, targets, whys, reduction, g):
    """A scatter's backward steps: ``targets[e]`` is the data cell update element ``e`` (row-major)
    writes, ``whys[e]`` the index clause. Update steps first, then the written data cells."""
    elements = list(np.ndindex(updates.shape))
    by_cell: dict[tuple, list] = {}
    for e in elements:
        by_cell.setdefault(targets[e], []).append(e)
    out = data.copy()
    for t, es in by_cell.items():
        values = [data[t]] + [updates[e] for e in es]
        if reduction == "none":
            out[t] = updates[es[-1]]
        elif reduction == "add":
            out[t] = F32(sum(values[1:], data[t]))
        elif reduction == "mul":
            r = data[t]
            for v in values[1:]:
                r = F32(r * v)
            out[t] = r
        else:
            out[t] = max(values) if reduction == "max" else min(values)
    lines, d_updates, d_data = [], np.zeros(updates.shape, F32), g.copy()
    for n, e in enumerate(elements):
        t = targets[e]
        es = by_cell[t]
        head = f"{n + 1}: d updates{pos(e)}"
        if reduction == "none":
            if es[-1] != e:
                line = f"{head} = 0 (overwritten by updates{pos(es[-1])}), since {whys[e]}"
            else:
                d_updates[e] = g[t]
                line = f"{head} = d output{pos(t)} = {num(g[t])}, since {whys[e]}"
        elif reduction == "add":
            d_updates[e] = g[t]
            line = f"{head} = d output{pos(t)} = {num(g[t])}, since {whys[e]}"
        elif reduction == "mul":
            others = [(f"data{pos(t)}", data[t])] + [(f"updates{pos(o)}", updates[o]) for o in es if o != e]
            v = g[t]
            for _, x in others:
                v = F32(v * x)
            d_updates[e] = v
            line = (f"{head} = d output{pos(t)} × {' × '.join(name for name, _ in others)} = {num(g[t])} × "
                    f"{' × '.join(num(x) for _, x in others)} = {num(v)}, since {whys[e]}")
        else:
            line = _extreme_line(head, f"d output{pos(t)}", g[t], [data[t]] + [updates[o] for o in es],
                                 1 + es.index(e), out[t], reduction, f"since {whys[e]}; ", "this update's",
                                 "this update")
            d_updates[e] = _share(g[t], [data[t]] + [updates[o] for o in es], 1 + es.index(e), out[t])
        lines.append(line)
    for m, t in enumerate(sorted(by_cell), start=len(elements) + 1):
        es = by_cell[t]
        head = f"{m}: d data{pos(t)}"
        count = f"{len(es)} update" + ("s" if len(es) != 1 else "")
        if reduction == "none":
            d_data[t] = 0
            line = f"{head} = 0 (overwritten by updates{pos(es[-1])}), since {whys[es[-1]]}"
        elif reduction == "add":
            line = f"{head} = d output{pos(t)} = {num(g[t])}, since output{pos(t)} = data{pos(t)} + {count}"
        elif reduction == "mul":
            v = g[t]
            for o in es:
                v = F32(v * updates[o])
            d_data[t] = v
            line = (f"{head} = d output{pos(t)} × {' × '.join(f'updates{pos(o)}' for o in es)} = {num(g[t])} × "
                    f"{' × '.join(num(updates[o]) for o in es)} = {num(v)}, since output{pos(t)} = data{pos(t)} "
                    f"× {count}")
        else:
            values = [data[t]] + [updates[o] for o in es]
            line = _extreme_line(head, f"d output{pos(t)}", g[t], values, 0, out[t], reduction, "since ",
                                 f"data{pos(t)}'s", f"data{pos(t)}")
            d_data[t] = _share(g[t], values, 0, out[t])
        lines.append(line)
    return lines, d_data, d_updates


def _share(g, values, mine, result):
    winners = [v == result for v in values]
    return F32(g / F32(sum(winners))) if winners[mine] else F32(0)


def _extreme_line(head, out, g, values, mine, result, reduction, since, whose, alone):
    winners = [v == result for v in values]
    count = sum(winners)
    fold = f"{reduction}({', '.join(num(v) for v in values)}) = {num(result)}"
    if not winners[mine]:
        return f"{head} = 0, {since}{fold}, not {whose} {num(values[mine])}"
    if count == 1:
        return f"{head} = {out} = {num(g)}, {since}{fold}, from {alone} alone"
    return f"{head} = {out} / {count} = {num(g)} / {count} = {num(F32(g / F32(count)))}, {since}{fold}, " \
        f"a tie shared by {count}: g/{count}"


def elements_targets(data, indices, axis):
    """Scatter-9 / ScatterElements on 2-D: (target per update element, index clause per element)."""
    targets, whys = {}, {}
    for i, j in np.ndindex(indices.shape):
        k = int(indices[i, j])
        k_pos = k + data.shape[axis] if k < 0 else k
        targets[(i, j)] = (k_pos, j) if axis == 0 else (i, k_pos)
        whys[(i, j)] = f"indices{pos((i, j))} = {idx_text(k, data.shape[axis])}"
    return targets, whys


def nd_targets(data, indices, updates):
    """ScatterND: update element (idx + rest) writes data[indices[idx] + rest]."""
    targets, whys = {}, {}
    k = indices.shape[-1]
    for e in np.ndindex(updates.shape):
        idx, rest = e[: indices.ndim - 1], e[indices.ndim - 1:]
        dst = tuple(int(v) for v in indices[idx])
        targets[e] = dst + rest
        whys[e] = f"indices{pos(idx)} = {pos(dst)}"
        assert len(dst) == k
    return targets, whys


# ---------------------------------------------------------------------- tests
@pytest.mark.parametrize("seed", [GATHER11_AXIS0, GATHER11_AXIS1], ids=lambda s: s.node)
def test_a_gathers_backward_steps_add_each_output_gradient_into_the_data_cell_it_read(seed):
    data, indices = seed.inputs
    out_shape = data.shape[:seed.attrs["axis"]] + indices.shape + data.shape[seed.attrs["axis"] + 1:]
    g = grad_like(out_shape)
    want, acc = gather_lines(data, indices, seed.attrs["axis"], g)
    e = explain_backward(seed.op, list(seed.inputs), seed.attrs, g)
    assert [step_line(s) for s in e.steps()] == want
    name, built, note = e.after(e.count - 1)
    assert name == "d data" and note == ""
    np.testing.assert_array_equal(built, acc)
    np.testing.assert_array_equal(e.gradients["d data"], acc)


SCATTER_SEEDS = [SCATTER9_EX1, SCATTER9_EX2, *SCATTERELEMENTS]


@pytest.mark.parametrize("seed", SCATTER_SEEDS, ids=lambda s: f"{s.graph}/{s.node}")
def test_a_scatters_backward_steps_give_each_update_and_each_written_cell_its_gradient(seed):
    data, indices, updates = seed.inputs
    g = grad_like(data.shape)
    targets, whys = elements_targets(data, indices, seed.attrs.get("axis", 0))
    want, d_data, d_updates = scatter_lines(data, updates, targets, whys, seed.attrs.get("reduction", "none"), g)
    e = explain_backward(seed.op, list(seed.inputs), seed.attrs, g)
    assert [step_line(s) for s in e.steps()] == want
    np.testing.assert_array_equal(e.gradients["d data"], d_data)
    np.testing.assert_array_equal(e.gradients["d updates"], d_updates)


@pytest.mark.parametrize("seed", [SCATTERND_EX1, SCATTERND_EX2], ids=lambda s: s.node)
def test_scatternd_backward_steps_go_element_by_element_through_the_slices(seed):
    data, indices, updates = (np.asarray(seed.inputs[0], F32), seed.inputs[1], np.asarray(seed.inputs[2], F32))
    g = grad_like(data.shape)
    targets, whys = nd_targets(data, indices, updates)
    want, d_data, d_updates = scatter_lines(data, updates, targets, whys, "none", g)
    e = explain_backward("ScatterND", [data, indices, updates], {}, g)
    assert [step_line(s) for s in e.steps()] == want
    np.testing.assert_array_equal(e.gradients["d data"], d_data)
    np.testing.assert_array_equal(e.gradients["d updates"], d_updates)


def test_an_overwritten_update_gets_zero_and_names_the_update_that_overwrote_it():
    data = np.zeros(3, F32)
    e = explain_backward("ScatterElements", [data, np.array([2, 0, 2]), np.array([5, 6, 7], F32)], {},
                         np.array([0.5, 1.0, 1.5], F32))
    first = e.step(0)
    assert first.formula == "d updates[0] = 0 (overwritten by updates[2]), since indices[0] = 2"
    assert first.sources == () and first.value == 0
    assert first.destination == Cell("d updates", (0,)) and first.index == (Cell("indices", (0,)),)
    assert e.also(0) == [Cell("d updates", (2,))]
    last_update = e.step(2)
    assert last_update.sources == (Cell(GRAD_OUTPUT, (2,)),) and last_update.value == 1.5


def test_a_max_tie_of_three_is_shared_by_three():
    """data 4 and two updates 4 tie for max(4, 4, 1, 4) = 4: each gets g/3."""
    data = np.array([4.0, 0.0], F32)
    e = explain_backward("ScatterElements", [data, np.array([0, 0, 0]), np.array([4, 1, 4], F32)],
                         {"reduction": "max"}, np.array([3.0, 1.0], F32))
    assert e.step(0).formula == ("d updates[0] = d output[0] / 3 = 3 / 3 = 1, since indices[0] = 0; "
                                 "max(4, 4, 1, 4) = 4, a tie shared by 3: g/3")
    assert e.step(1).formula == "d updates[1] = 0, since indices[1] = 0; max(4, 4, 1, 4) = 4, not this update's 1"
    assert e.step(3).formula == ("d data[0] = d output[0] / 3 = 3 / 3 = 1, since max(4, 4, 1, 4) = 4, "
                                 "a tie shared by 3: g/3")
    assert e.step(0).note == "a tie of 3: g/3" and e.count == 4


def test_a_cell_read_by_several_outputs_marks_the_others_as_the_same_sum():
    data = np.arange(4, dtype=F32)
    e = explain_backward("Gather", [data, np.array([1, 3, 1])], {}, np.array([1.0, 2.0, 4.0], F32))
    assert e.also(0) == [Cell(GRAD_OUTPUT, (2,))]
    assert e.step(2).formula == "d data[1] += d output[2] = 4, since indices[2] = 1; d data[1] = 1 + 4 = 5"
    assert e.after(0)[1].tolist() == [0, 1, 0, 0] and e.after(0)[2] == "after step 1"


def test_integer_values_have_no_backward_steps():
    with pytest.raises(OpError, match="no gradient"):
        explain_backward("Gather", [np.arange(4), np.array([1])], {}, None)


def test_a_gradient_of_the_wrong_shape_is_refused_as_the_vjp_refuses_it():
    with pytest.raises(OpError, match="grad_output has shape"):
        explain_backward("Gather", [np.arange(4, dtype=F32), np.array([1])], {}, np.zeros(2, F32))
