"""The scatter output's copy of data (ops.apply.copy_of): split across threads from two parts of
``parallel.COPY_MIN_PART_BYTES``, whatever the layout of data; the same values as the data, C-ordered,
never sharing memory with it. The threshold is lowered so small arrays split."""
from __future__ import annotations

import numpy as np
import pytest

import ops
from ops import apply, parallel

from ._helpers import with_threads


@pytest.fixture(params=[1, 2], ids=lambda n: f"threads{n}")
def threads(request):
    yield from with_threads(request)


@pytest.fixture
def parts(monkeypatch):
    """Parts of 64 bytes; the ranges each copy covers, as ``(start, stop)`` of the first axis."""
    monkeypatch.setattr(parallel, "COPY_MIN_PART_BYTES", 64)
    ranges = []
    run_parts = parallel.run_parts

    def spy(fn, n, work=None, min_part=parallel.MIN_PART):
        def part(a, b):
            ranges.append((a, b))
            return fn(a, b)

        return run_parts(part, n, work, min_part)

    monkeypatch.setattr(parallel, "run_parts", spy)
    return ranges


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_copy_of_splits_along_the_first_axis_and_copies_exactly(layout, threads, parts):
    rng = np.random.default_rng(19)
    base = rng.standard_normal((90, 70)).astype(np.float32)
    data = {"contiguous": base, "transposed": base.T, "strided": base[::2, ::3]}[layout]
    out = apply.copy_of(data)
    assert out.flags.c_contiguous and not np.shares_memory(out, data)
    assert out.tobytes() == np.ascontiguousarray(data).tobytes()
    assert sorted(parts) == parallel.split(data.shape[0], threads)


@pytest.mark.parametrize("data", [np.float32(3.5), np.ones((1, 500), np.float32),
                                  np.array(["a", "bc"] * 40, dtype=object)], ids=["scalar", "one-row", "strings"])
def test_copy_of_keeps_one_thread_where_there_is_nothing_to_split(data, threads, parts):
    out = apply.copy_of(np.asarray(data))
    assert np.array_equal(out, data) and not np.shares_memory(out, data)
    assert parts == []


def test_a_scatter_on_a_split_copy_leaves_data_alone(threads, parts):
    data = np.arange(4000, dtype=np.float64).reshape(400, 10)
    before = data.copy()
    out = ops.scatter_elements(data, np.array([[0, 9]]), np.array([[-1.0, -2.0]]), axis=1)
    np.testing.assert_array_equal(data, before)
    assert out[0, 0] == -1 and out[0, 9] == -2 and np.array_equal(out[1:], data[1:]) and parts
