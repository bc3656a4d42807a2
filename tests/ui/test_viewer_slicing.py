"""nodeeditor.ui.viewer.slicing: pure numpy, no Qt. Expected values come from numpy directly."""
import math

import ml_dtypes
import numpy as np
import pytest

from nodeeditor.ui.viewer import slicing as S


def test_slice_2d_is_a_view_and_follows_the_chosen_axes():
    a = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    s = S.slice_2d(a, (3, 1), [1, 0, 2, 0])
    assert np.shares_memory(s, a)
    np.testing.assert_array_equal(s, a[1, :, 2, :].T)  # rows follow axis 3
    assert S.full_index((3, 1), [1, 0, 2, 0], row=4, col=2) == (1, 2, 2, 4)
    with pytest.raises(IndexError):
        S.slice_2d(a, (2, 3), [2, 0, 0, 0])
    with pytest.raises(ValueError):
        S.slice_2d(a, (2, 2), [0, 0, 0, 0])


def test_downsample_2d_is_a_strided_view_within_the_limit():
    a = np.zeros((5000, 300), np.float32)
    small, steps = S.downsample_2d(a, 2048)
    assert steps == (3, 1)
    assert small.shape == (1667, 300)
    assert np.shares_memory(small, a)


def test_downsample_1d_envelope_keeps_a_single_spike():
    v = np.zeros(1_000_003, np.float32)
    v[777_777] = 5.0
    v[12] = -2.0
    x, y = S.downsample_1d(v, max_points=1000)
    assert len(y) <= 1000
    assert y.max() == 5.0 and y.min() == -2.0
    assert x.max() < len(v)


@pytest.mark.parametrize("order", ["C", "F", "strided"])
def test_iter_chunks_covers_every_element_once(order):
    base = np.arange(7 * 11 * 13, dtype=np.int64).reshape(7, 11, 13)
    a = {"C": base, "F": np.asfortranarray(base), "strided": base[:, ::2, 1:]}[order]
    pieces = list(S.iter_chunks(a, chunk=10))
    assert all(p.size <= 10 for p in pieces)
    joined = np.concatenate(pieces)
    assert joined.size == a.size
    np.testing.assert_array_equal(np.sort(joined), np.sort(a.ravel()))


def test_stats_float_with_nan_and_inf_in_small_chunks():
    rng = np.random.default_rng(1)
    a = rng.normal(size=(40, 50)).astype(np.float32)
    a[3, 4] = np.nan
    a[5, 6] = np.inf
    a[7, 8] = -np.inf
    a[9, 10] = -np.inf
    view = a[:, ::2]  # not contiguous: walked by rows
    st = S.tensor_stats(view, chunk=64)
    finite = view[np.isfinite(view)]
    assert st.count == view.size
    assert st.minimum == float(finite.min()) and st.maximum == float(finite.max())
    assert math.isclose(st.mean, float(finite.astype(np.float64).mean()), rel_tol=1e-9)
    expected = (int(np.isnan(view).sum()), int(np.isposinf(view).sum()), int(np.isneginf(view).sum()))
    assert (st.nan, st.posinf, st.neginf) == expected
    st_full = S.tensor_stats(a, chunk=64)
    assert (st_full.nan, st_full.posinf, st_full.neginf) == (1, 1, 2)
    assert "NaN 1" in st_full.describe() and "inf 3" in st_full.describe()


def test_stats_for_ints_bool_bfloat16_complex_strings():
    ints = np.array([[3, -7], [12, 0]], np.int32)
    st = S.tensor_stats(ints)
    assert (st.minimum, st.maximum, st.mean) == (-7, 12, 2.0)
    assert isinstance(st.minimum, int)
    st = S.tensor_stats(np.array([True, False, True, True]))
    assert (st.minimum, st.maximum, st.mean) == (0, 1, 0.75)
    bf = np.array([0.1, 2.5, -3.0, np.nan], ml_dtypes.bfloat16)
    st = S.tensor_stats(bf)
    as32 = bf.astype(np.float32)
    assert st.minimum == -3.0 and st.maximum == 2.5 and st.nan == 1
    assert math.isclose(st.mean, float(np.nanmean(as32.astype(np.float64))))
    z = np.array([3 + 4j, 0, np.nan + 1j], np.complex64)
    st = S.tensor_stats(z)
    assert (st.minimum, st.maximum, st.nan) == (0.0, 5.0, 1) and st.of_magnitude
    st = S.tensor_stats(np.array(["a", "bc"], dtype=object))
    assert st.count == 2 and st.minimum is None


def test_stats_cancel_returns_none():
    assert S.tensor_stats(np.zeros(100), chunk=10, cancelled=lambda: True) is None


def test_changed_blocks_never_hides_a_change_when_downsampled():
    a = np.zeros((1000, 999), np.float32)
    b = a.copy()
    b[501, 997] = 1.0
    b[0, 0] = np.nan
    a[0, 0] = np.nan  # NaN in both: not a change
    blocks, steps, count = S.changed_blocks(a, b, max_size=100)
    assert steps == (10, 10) and blocks.shape == (100, 100)
    assert count == 1
    assert np.argwhere(blocks).tolist() == [[50, 99]]


def test_changed_mask_exact_for_small_arrays():
    a = np.arange(12).reshape(3, 4)
    b = a.copy()
    np.put(b, [1, 6, 11], [100, 200, 300])
    blocks, steps, count = S.changed_blocks(a, b)
    assert steps == (1, 1) and count == 3
    expected = np.zeros(12, bool)
    expected[[1, 6, 11]] = True
    np.testing.assert_array_equal(blocks, expected.reshape(3, 4))


@pytest.mark.parametrize(
    "value, text",
    [
        (np.float32(0.1), "0.1"),
        (np.float64(0.1) + np.float64(0.2), "0.30000000000000004"),
        (np.float16(0.1), "0.1"),
        (np.int64(-9007199254740993), "-9007199254740993"),
        (np.True_, "True"),
        (np.complex128(1.5 - 0.25j), "1.5-0.25j"),
        ("héllo", "héllo"),
        (b"raw", "raw"),
    ],
)
def test_format_value_is_exact(value, text):
    assert S.format_value(value) == text


def test_format_value_round_trips_for_every_float_dtype():
    rng = np.random.default_rng(3)
    for dtype in (np.float16, np.float32, np.float64, ml_dtypes.bfloat16):
        values = (rng.normal(size=50) * 10.0 ** rng.integers(-4, 4, size=50)).astype(dtype)
        for v in values:
            assert np.array(float(S.format_value(v)), dtype=dtype) == v


def test_dtype_kinds():
    assert S.dtype_kind(np.dtype(ml_dtypes.bfloat16)) == S.FLOAT
    assert S.dtype_kind(np.dtype(np.uint8)) == S.INT
    assert S.dtype_kind(np.dtype(np.complex64)) == S.COMPLEX
    assert S.dtype_kind(np.dtype("U3")) == S.STRING
    assert S.dtype_kind(np.dtype(object)) == S.STRING
    assert not S.is_drawable(np.dtype(object))
