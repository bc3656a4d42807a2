"""Fixtures for the ops tests."""
from __future__ import annotations

import pytest

from ops import accel, small_calls

from ._helpers import require_accelerator


@pytest.fixture(params=[False, True], ids=["numpy", "accel"])
def both_paths(request, monkeypatch):
    """Run the test once on the numpy path and once with the accelerator (if installed);
    with it on, the size thresholds are lowered so small cases reach the compiled kernels too
    (and skip the numpy small routes that would run ahead of them)."""
    if request.param:
        require_accelerator()
    previous = accel.set_enabled(request.param)
    monkeypatch.setattr(accel, "MIN_SIZE", 0)
    if request.param:
        monkeypatch.setattr(accel, "SMALL_WORK", 0)
    monkeypatch.setattr(accel, "ROWS_MIN_ROW_BYTES", 0)
    monkeypatch.setattr(accel, "ROWS_MIN_TABLE_BYTES", 0)
    yield request.param
    accel.set_enabled(previous)


@pytest.fixture(autouse=True)
def no_remembered_plans():
    """Each test starts with no plans remembered (:mod:`ops.small_calls`): tests lower the
    constants that choose routes, which a plan reads when it is made."""
    small_calls.forget()
