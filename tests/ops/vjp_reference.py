"""A slow, loop-by-loop reference for ``ops.vjp``, written from the rules (not from ops).

Positions come from :mod:`tests.ops.reference` (the spec formulas, one element at a time):
for every output element (gathers) or update element (scatters), in row-major order, the data
cell it reads or writes. Everything here is a Python loop over those pairs, in float64.
"""
from __future__ import annotations

import math

import numpy as np

from . import reference

GATHERS = ("Gather", "GatherElements", "GatherND")


def _updates_position(op: str) -> int:
    return 1 if op == "TensorScatter" else 2


def _same(a: float, b: float) -> bool:
    """Equal, with NaN equal to NaN (a NaN result is shared by the NaN contributors)."""
    return a == b or (math.isnan(a) and math.isnan(b))


def vjp(op: str, inputs: list, attrs: dict | None, grad: np.ndarray) -> tuple:
    """(d input for each input in schema order, None for index inputs and omitted ones)."""
    attrs = dict(attrs or {})
    inputs = list(inputs) + [None] * (3 - len(inputs))
    data = np.asarray(inputs[0], dtype=np.float64)
    grad = np.asarray(grad, dtype=np.float64)
    _, pairs = reference.positions(op, inputs, attrs)
    if op in GATHERS:
        d_data = np.zeros(data.shape)
        for e, t in pairs:
            d_data[t] += grad[e]
        return d_data, None
    u_pos = _updates_position(op)
    updates = np.asarray(inputs[u_pos], dtype=np.float64)
    reduction = attrs.get("reduction", "none")
    writers: dict[tuple, list[tuple]] = {}  # data cell -> update elements, row-major
    for e, t in pairs:
        writers.setdefault(t, []).append(e)
    d_data = grad.copy()
    d_updates = np.zeros(updates.shape)
    if reduction in ("max", "min"):
        result = reference.run(op, [data, inputs[1], updates], attrs)
    for t, es in writers.items():
        g = grad[t]
        if reduction == "none":
            d_data[t] = 0.0
            d_updates[es[-1]] = g  # the last write wins; the others are overwritten
        elif reduction == "add":
            for e in es:
                d_updates[e] = g
        elif reduction == "mul":
            contributors = [data[t]] + [updates[e] for e in es]
            grads = []
            for k in range(len(contributors)):
                product = g
                for j, c in enumerate(contributors):
                    if j != k:
                        product = product * c
                grads.append(product)
            d_data[t] = grads[0]
            for e, gk in zip(es, grads[1:], strict=True):
                d_updates[e] = gk
        else:
            r = float(result[t])
            winners = [_same(float(data[t]), r)] + [_same(float(updates[e]), r) for e in es]
            share = g / sum(winners)
            d_data[t] = share if winners[0] else 0.0
            for e, w in zip(es, winners[1:], strict=True):
                d_updates[e] = share if w else 0.0
    out = [None, None, None]
    out[0], out[u_pos] = d_data, d_updates
    return tuple(out)
