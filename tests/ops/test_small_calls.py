"""Plans of repeated small calls (ops/small_calls.py): a call repeated with inputs of the same
shapes, dtypes and attributes runs its op's plan, which gives the slow reference's result
(tests/ops/reference.py), raises the long path's exact error for a bad index, obeys the size
cap read on every call, and is never used for attribute values of another type. Each case runs
with the compiled plans (the accelerator on, its size threshold lowered so tiny tensors reach
the kernels) and with the numpy ones."""
from __future__ import annotations

import numpy as np
import pytest

import ops
from ops import accel, small_calls
from ops.limits import SizeLimitError

from . import reference
from ._helpers import require_accelerator


@pytest.fixture(params=[True, False], ids=["compiled", "numpy"])
def accelerated(request, monkeypatch):
    if request.param:
        require_accelerator()
    previous = accel.set_enabled(request.param)
    monkeypatch.setattr(accel, "MIN_SIZE", 0)
    yield request.param
    accel.set_enabled(previous)


def _cases(rng):
    """(op, inputs, attrs): every op with a plan, on float32 data of shape (6, 5, 4) with int64
    indices holding negatives and (for the scatters with a reduction) duplicates."""
    data = rng.standard_normal((6, 5, 4)).astype(np.float32)
    f32 = np.float32
    perm = np.argsort(rng.random((6, 5, 4)), axis=1)[:, :3] - 5  # unique along axis 1, negative
    tuples = np.stack([rng.integers(-6, 6, 7), rng.integers(-5, 5, 7)], axis=-1)
    cells = np.array([[0, 1, 2], [-1, -2, -3], [5, 4, 3], [2, 0, 1]])
    return [
        ("Gather", [data, rng.integers(-5, 5, (3, 2))], {"axis": 1}),
        ("Gather", [data, rng.integers(-6, 6, 9)], {"axis": 0}),
        ("Gather", [data, rng.integers(-4, 4, (2, 3))], {"axis": 2}),  # the last axis: its compiled route
        ("GatherElements", [data, rng.integers(-5, 5, (6, 2, 4))], {"axis": 1}),
        ("GatherND", [data, tuples], {}),
        ("GatherND", [data, tuples[:, :1]], {}),
        ("ScatterElements", [data, perm, rng.standard_normal((6, 3, 4)).astype(f32)], {"axis": 1}),
        ("ScatterElements", [data, rng.integers(-5, 5, (6, 5, 4)), rng.standard_normal((6, 5, 4)).astype(f32)],
         {"axis": 1, "reduction": "add"}),
        ("Scatter", [data, perm, rng.standard_normal((6, 3, 4)).astype(f32)], {"axis": 1}),
        ("ScatterElements", [data, np.argsort(rng.random((6, 5, 4)), axis=2)[..., :3] - 4,
                             rng.standard_normal((6, 5, 3)).astype(f32)], {"axis": 2}),  # the last axis
        ("ScatterND", [data, cells, rng.standard_normal(4).astype(f32)], {}),
        ("ScatterND", [data, np.unique(tuples % [6, 5], axis=0), None], {}),
        ("ScatterND", [data, tuples, rng.standard_normal((7, 4)).astype(f32)], {"reduction": "add"}),
    ]


def _filled(rng, inputs):
    """Updates of the right shape where the case leaves them to be made (unique tuples)."""
    if len(inputs) == 3 and inputs[2] is None:
        data, idx = inputs[0], inputs[1]
        inputs = [data, idx, rng.standard_normal(idx.shape[:-1] + data.shape[idx.shape[-1]:]).astype(np.float32)]
    return inputs


def _ids():
    return [f"{op}-{i}" for i, (op, _, _) in enumerate(_cases(np.random.default_rng(0)))]


@pytest.mark.parametrize("case", range(len(_ids())), ids=_ids())
def test_a_repeated_call_gives_the_references_result_every_time(case, accelerated):
    rng = np.random.default_rng(case)
    op, inputs, attrs = _cases(rng)[case]
    inputs = _filled(rng, inputs)
    want = reference.run(op, inputs, attrs)
    for _ in range(3):  # the first call makes the plan, the others run it
        got = ops.run_op(op, inputs, attrs)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    strided = [np.asfortranarray(a) for a in inputs]  # the same shapes and dtypes, other strides
    assert ops.run_op(op, strided, attrs).tobytes() == want.tobytes()
    out = ops.run_op(op, inputs, attrs)
    assert not any(np.shares_memory(out, a) for a in inputs)


@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
def test_scatter_on_the_last_axis_takes_a_slice_of_columns_of_indices(index_dtype, accelerated):
    """ScatterElements (reduction none) on the last axis with indices that are a slice of the
    columns of a larger array (each row contiguous, the rows apart), or of its columns reversed
    (negative strides): the reference's result on the first call and from the plan, and a bad
    index inside the slice gets the long path's error."""
    rng = np.random.default_rng([48, len(index_dtype)])
    data = rng.standard_normal((30, 40)).astype(np.float32)
    upd = rng.standard_normal((30, 25)).astype(np.float32)
    for flip in (False, True):
        wide = (np.argsort(rng.random((30, 40)), axis=1) - 40).astype(index_dtype)  # unique per row, negative
        idx = (wide[:, ::-1] if flip else wide)[:, :25]
        assert not idx.flags.c_contiguous
        want = reference.run("ScatterElements", [data, idx, upd], {"axis": 1})
        for _ in range(3):
            assert ops.run_op("ScatterElements", [data, idx, upd], {"axis": 1}).tobytes() == want.tobytes()
        idx[7, 3] = 40
        with pytest.raises(ops.IndexOutOfRangeError, match=r"indices\[7, 3\] = 40 is out of range"):
            ops.run_op("ScatterElements", [data, idx, upd], {"axis": 1})


def _bad(inputs):
    """``inputs`` with their last index out of range."""
    idx = inputs[1].copy()
    idx.reshape(-1)[-1] = 99
    return [inputs[0], idx, *inputs[2:]]


@pytest.mark.parametrize("case", range(len(_ids())), ids=_ids())
def test_a_bad_index_after_a_planned_call_gets_the_long_paths_error(case, accelerated):
    rng = np.random.default_rng(case)
    op, inputs, attrs = _cases(rng)[case]
    inputs = _filled(rng, inputs)
    bad = _bad(inputs)
    with pytest.raises(ops.IndexOutOfRangeError) as first:
        ops.run_op(op, bad, attrs)  # the long path, no plan yet
    ops.run_op(op, inputs, attrs)
    ops.run_op(op, inputs, attrs)  # the plan
    with pytest.raises(ops.IndexOutOfRangeError) as again:
        ops.run_op(op, bad, attrs)
    assert str(again.value) == str(first.value) and again.value.port == "indices"


def test_the_size_cap_is_read_on_every_planned_call(monkeypatch):
    data, idx = np.zeros((64, 64), np.float32), np.arange(64)
    for _ in range(2):
        assert ops.run_op("Gather", [data, idx], {"axis": 1}).shape == (64, 64)
    monkeypatch.setenv("INDEXFLOW_MAX_SOURCE_MB", "0.001")
    with pytest.raises(SizeLimitError, match="Gather: output shape"):
        ops.run_op("Gather", [data, idx], {"axis": 1})


def test_attribute_values_of_another_type_never_use_a_plan():
    data, idx = np.zeros((3, 4), np.float32), np.array([0, 1])
    for _ in range(2):
        assert ops.run_op("Gather", [data, idx], {"axis": 1}).shape == (3, 2)
    for wrong in (True, 1.0, np.int64(1)):
        assert small_calls.key("Gather", [data, idx], {"axis": wrong}, True) is None
    with pytest.raises(ops.OpError, match="must be an integer"):
        ops.run_op("Gather", [data, idx], {"axis": 1.0})
    with pytest.raises(ops.OpError, match="must be an integer"):
        ops.run_op("Gather", [data, idx], {"axis": True})


def test_inputs_that_are_not_plain_arrays_never_use_a_plan():
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert small_calls.key("Gather", [data.tolist(), [0, 1]], {"axis": 1}, True) is None
    assert small_calls.key("Gather", [np.ma.masked_array(data), np.array([0])], {"axis": 1}, True) is None
    strings = np.array(["a", "b", "c"], dtype=object)
    for _ in range(2):
        assert ops.run_op("Gather", [strings, np.array([2, 0])], {"axis": 0}).tolist() == ["c", "a"]
    swapped = data.astype(">f4")
    for _ in range(2):
        got = ops.run_op("Gather", [swapped, np.array([1])], {"axis": 0})
        assert got.dtype.isnative and got.tolist() == [[4.0, 5.0, 6.0, 7.0]]


@pytest.mark.parametrize("split", [False, True], ids=["one-part copy", "split copy"])
def test_a_planned_scatter_copies_data_as_the_long_path_does(split, monkeypatch):
    """The compiled plan of ScatterElements chooses its copy of data once (ops.apply.copier):
    numpy's own copy for data copied in one part, ops.apply.copy_of (split across two threads)
    for data worth splitting. Either way the planned calls give the reference's result, with
    updates in another byte order made native."""
    from ops import apply, parallel
    require_accelerator()
    monkeypatch.setattr(accel, "MIN_SIZE", 0)
    monkeypatch.setattr(parallel, "COPY_MIN_PART_BYTES", 1 << 10 if split else 1 << 30)
    small_calls.forget()  # plans read route-choosing constants when they are made
    parts = []
    real_run_parts = parallel.run_parts
    monkeypatch.setattr(parallel, "run_parts", lambda *a, **k: parts.append(k.get("work")) or real_run_parts(*a, **k))
    before = parallel.threads()
    parallel.set_threads(2)
    try:
        rng = np.random.default_rng(31)
        data = rng.standard_normal((64, 40)).astype(np.float32)  # 10 KiB
        idx = np.argsort(rng.random((64, 40)), axis=1)[:, :3]
        upd = rng.standard_normal((64, 3)).astype(">f4")
        want = reference.scatter_elements(data, idx, upd.astype(np.float32), 1)
        for _ in range(3):
            parts.clear()
            got = ops.run_op("ScatterElements", [data, idx, upd], {"axis": 1})
            np.testing.assert_array_equal(got, want)
            assert parts == ([data.nbytes] if split else [])
    finally:
        parallel.set_threads(before)
        small_calls.forget()
    assert apply.copier(data) is (apply.copy_of if split else np.ndarray.copy)


@pytest.fixture
def two_threads_parts(monkeypatch):
    """Two threads (compiled routes, plans made afresh) and the list of how many parts each
    ``ops.parallel.run_parts`` call ran in, or how many threads each ``ops.parallel.map_woken``
    call (the shared kernels') ran in, cleared by the test before each call it counts."""
    from ops import parallel
    require_accelerator()
    parts: list[int] = []
    real_run_parts, real_map_woken = parallel.run_parts, parallel.map_woken
    monkeypatch.setattr(parallel, "run_parts", lambda fn, n, **k: parts.append(n) or real_run_parts(fn, n, **k))
    monkeypatch.setattr(parallel, "map_woken", lambda fn, n: parts.append(n) or real_map_woken(fn, n))
    before = parallel.threads()
    parallel.set_threads(2)
    small_calls.forget()
    yield parts
    parallel.set_threads(before)
    small_calls.forget()


@pytest.mark.parametrize("op, axis", [("GatherElements", 1), ("Gather", 1), ("Gather", 0)])
def test_planned_routes_that_split_their_work_split_it_at_every_call(op, axis, two_threads_parts):
    """GatherElements beyond one part and Gather on either axis (the row gather on axis 0 from a
    table of 2 MiB or more) plan their compiled route, which splits the work across threads
    when it runs: with two threads every planned call of two threads' worth runs in two parts,
    gives numpy's picks (negative indices included), and a bad index after planned calls gets
    the long path's error."""
    from ops import parallel
    parts = two_threads_parts
    rng = np.random.default_rng(37)
    data = rng.standard_normal((2048 if axis == 0 else 64, 300)).astype(np.float32)
    size = data.shape[axis]
    idx = rng.integers(-size, size, (64, 2100) if op == "GatherElements" else 2100)
    assert idx.size * (1 if op == "GatherElements" else data.size // size) >= 2 * parallel.MIN_PART
    wrapped = idx % size  # numpy's own picks with the indices made non-negative
    want = np.take_along_axis(data, wrapped, 1) if op == "GatherElements" else np.take(data, wrapped, axis)
    for _ in range(3):
        parts.clear()
        got = ops.run_op(op, [data, idx], {"axis": axis})
        assert got.tobytes() == want.tobytes() and parts == [2]
    assert small_calls.PLANS[small_calls.key(op, [data, idx], {"axis": axis}, True)] is not None
    bad = idx.copy()
    bad.reshape(-1)[-1] = size
    with pytest.raises(ops.IndexOutOfRangeError, match=rf"= {size} is out of range"):
        ops.run_op(op, [data, bad], {"axis": axis})


@pytest.mark.parametrize("reduction", ["none", "add"])
def test_a_planned_scatter_elements_beyond_one_part_splits_at_every_call(reduction, two_threads_parts):
    """ScatterElements of two threads' worth plans its compiled route, which splits the rows
    across threads when it runs: every planned call runs in two parts and gives what numpy's
    own in-order writes give (np.add.at, or fancy assignment where the last duplicate wins),
    and a bad index after planned calls gets the long path's error."""
    parts = two_threads_parts
    rng = np.random.default_rng(41)
    data = rng.standard_normal((64, 300)).astype(np.float32)
    idx = rng.integers(-300, 300, (64, 2100))  # duplicates in every row
    upd = rng.standard_normal(idx.shape).astype(np.float32)
    want = data.copy()
    rows = np.arange(64)[:, None].repeat(2100, axis=1)
    if reduction == "add":
        np.add.at(want, (rows, idx % 300), upd)
    else:
        want[rows, idx % 300] = upd
    attrs = {"axis": 1, "reduction": reduction}
    for _ in range(3):
        parts.clear()
        got = ops.run_op("ScatterElements", [data, idx, upd], attrs)
        assert got.tobytes() == want.tobytes() and parts == [2]
    assert small_calls.PLANS[small_calls.key("ScatterElements", [data, idx, upd], attrs, True)] is not None
    bad = idx.copy()
    bad[-1, -1] = 300
    with pytest.raises(ops.IndexOutOfRangeError, match=r"indices\[63, 2099\] = 300 is out of range"):
        ops.run_op("ScatterElements", [data, bad, upd], attrs)
