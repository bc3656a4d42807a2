"""Repeated small calls: what depends only on a call's shapes, dtypes and attributes, done once.

The editor re-runs a node on every edit, on tensors of 1e3-1e4 elements, where a call's fixed
costs (checking attributes, dtypes and shapes, choosing a route, preparing a compiled kernel's
operands) are as large as moving the data. :func:`ops.run_op` therefore keeps, per call
:func:`key` (op, every input's shape and dtype, the attributes as given, the accelerator
switch), the op's **plan**: a function of the inputs alone that checks the indices and moves
the data in one step (one ``np.take``, one compiled kernel call) and returns the result, or
None when an index is out of range, so that run_op takes the long path, which raises the exact
error (the same code as always, so messages never differ).

Who makes plans: each op's ``OpDef.plan`` (the op's own module, where its small route is
decided, and where its kernel runs the same plan for its own small calls), from a call the long
path has just accepted. That makes skipping the checks safe: attribute values and types,
dtypes, shapes and the axis are all in the key, so a call with the same key passes them too.
What a plan cannot know from the key, it checks on every call: index values (the plan's
kernel or ``np.take`` checks each one) and the size cap (:func:`ops.limits.limit_bytes`, read
from the environment on every call, compared with the output's bytes before the plan runs).
Inputs whose key is not enough (not a plain ``np.ndarray``, an attribute that is not a plain
``int`` or ``str``) never use a plan; neither do object (string), non-native byte order or
ml_dtypes inputs (the ops' plan functions decline them).

Threads: plans exist only for work done in one part (:mod:`ops.parallel`), or for routes that
split their work when they run (the compiled routes of Gather, GatherElements and
ScatterElements), so the thread count is not part of the key. Module constants that choose
routes (``ops.accel.MIN_SIZE`` and the like) are read when a plan is made; tests that change
them call :func:`forget` first.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

#: A plan: the inputs in schema order -> the result, or None (take the long path).
Plan = Callable[..., "np.ndarray | None"]

_PLANS_MAX = 1024
_ARRAY = np.ndarray


def key(op_name: str, inputs: Sequence[Any], attrs: Mapping[str, Any] | None, accel_on: bool) -> tuple | None:
    """The plan key of a call of two or three inputs, all plain ``np.ndarray``, whose attributes
    are plain ``int`` or ``str`` values; None for any other call (it never uses a plan)."""
    if attrs:
        for value in attrs.values():  # True is 1 and 1.0 is 1 as keys: only exact int/str values are keyed
            kind = type(value)
            if kind is not int and kind is not str:
                return None
        named = tuple(attrs.items())
    else:
        named = ()
    n = len(inputs)
    if n == 2:
        a, b = inputs
        if type(a) is _ARRAY and type(b) is _ARRAY:
            return op_name, accel_on, named, a.shape, a.dtype, b.shape, b.dtype
    elif n == 3:
        a, b, c = inputs
        if type(a) is _ARRAY and type(b) is _ARRAY and type(c) is _ARRAY:
            return op_name, accel_on, named, a.shape, a.dtype, b.shape, b.dtype, c.shape, c.dtype
    return None


#: key -> ``(plan, output bytes)``; None where the op has no plan for that key; a key not here
#: has not been asked for yet (:func:`remember` one after the long path). Read by
#: :func:`ops.run_op` directly (one dictionary look-up per call).
PLANS: dict[tuple, tuple[Plan, int] | None] = {}


def remember(call_key: tuple, plan: Plan | None, nbytes: int) -> None:
    """Keep ``plan`` (None: no plan) for ``call_key``; ``nbytes`` is its result's size."""
    if len(PLANS) >= _PLANS_MAX:
        PLANS.clear()
    PLANS[call_key] = None if plan is None else (plan, nbytes)


def forget() -> None:
    """Drop every plan (after a change to a route-choosing constant)."""
    PLANS.clear()


def plain(array: np.ndarray) -> bool:
    """``array``'s values need no per-call check and no conversion (a native byte order, no
    strings: :func:`ops.dtypes.as_tensor` returns it as it is and its dtype check depends on the
    dtype alone), so a plan may take it as it comes."""
    dt = array.dtype
    return dt.isnative and dt.kind not in "OUS"
