"""Saving what the viewer shows as CSV: values round-trip exactly for every dtype, strings are
quoted, a large slice is written off the UI thread, numbers are formatted a block at a time,
and a cancelled save leaves no file. Expected values come from the input arrays."""
import ml_dtypes
import numpy as np
import pytest

from .helpers import save_shot


def _round_trip_cases():
    rng = np.random.default_rng(7)
    wide = rng.standard_normal((40, 30)) * 10.0 ** rng.integers(-30, 30, (40, 30))
    f32 = wide.astype(np.float32)
    f32[0, :4] = [np.nan, np.inf, -np.inf, -0.0]
    f32[1, 0] = np.float32(1e-45)  # smallest subnormal
    f32[1, 1] = np.finfo(np.float32).max
    f64 = wide.copy()
    f64[0, :3] = [0.1, 1 / 3, np.finfo(np.float64).tiny]
    f16 = (rng.standard_normal((7, 9)) * 100).astype(np.float16)
    f16[0, :2] = [np.float16(6e-8), np.finfo(np.float16).max]
    bf16 = (rng.standard_normal((5, 6)) * 1e10).astype(ml_dtypes.bfloat16)
    ints = {dt: np.array([[np.iinfo(dt).min, 3, 0], [1, 7, np.iinfo(dt).max]], dt)
            for dt in (np.int8, np.int32, np.int64, np.uint8, np.uint64)}
    c64 = (rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))).astype(np.complex64)
    c64[0, 0] = complex(1.5, -0.0)
    c64[0, 1] = complex(np.nan, np.inf)
    c128 = (rng.standard_normal((3, 4)) - 1j * rng.standard_normal((3, 4))) * 1e-200
    return [("float32", f32, np.float32), ("float64", f64, np.float64), ("float16", f16, np.float16),
            ("bfloat16", bf16, np.float32), ("bool", np.eye(3, 4, dtype=bool), bool),
            ("complex64", c64, np.complex64), ("complex128", c128, np.complex128)] + [
            (np.dtype(dt).name, a, dt) for dt, a in ints.items()]


def _bits(a):
    a = np.ascontiguousarray(a)
    return a.view(np.uint8) if a.dtype != bool else a


@pytest.mark.parametrize("name,array,read_as", _round_trip_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_csv_values_round_trip_exactly(make_viewer, qtbot, tmp_path, name, array, read_as):
    viewer = make_viewer(600)
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor(name, array)
    viewer.save_tensor(tmp_path / "v.csv")
    back = np.loadtxt(tmp_path / "v.csv", delimiter=",", dtype=read_as, ndmin=2)
    expected = array.astype(read_as) if array.dtype != np.dtype(read_as) else array
    assert back.shape == array.shape
    if np.dtype(read_as).kind in "fc":  # bit for bit: -0.0, NaN and subnormals included
        np.testing.assert_array_equal(_bits(back), _bits(expected))
    else:
        np.testing.assert_array_equal(back, expected)


def test_csv_strings_are_quoted_and_ints_exact(tmp_path):
    from nodeeditor.ui.viewer import saving

    words = np.array([["plain", 'say "hi"'], ["a,b", "two\nlines"]], dtype=object)
    saving.save_csv(tmp_path / "s.csv", words)
    import csv

    with open(tmp_path / "s.csv", newline="", encoding="utf-8") as handle:
        assert list(csv.reader(handle)) == words.tolist()
    saving.save_csv(tmp_path / "b.csv", np.array([b"x,y", b"z"], dtype="S3"))
    with open(tmp_path / "b.csv", newline="", encoding="utf-8") as handle:
        assert list(csv.reader(handle)) == [["x,y"], ["z"]]


def test_large_csv_is_written_off_the_ui_thread(make_viewer, qtbot, tmp_path):
    from nodeeditor.ui.viewer import saving

    a = np.random.default_rng(3).standard_normal((4, 700, 800)).astype(np.float32)
    viewer = make_viewer(700)
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor("big", a)
    viewer.controls.set_index(0, 2)
    assert a[2].size > saving.CSV_BACKGROUND_CELLS
    target = tmp_path / "big.csv"
    with qtbot.waitSignal(viewer.saved, timeout=60000) as blocker:
        viewer.save_tensor(target, background=True)
        assert "saving big.csv" in viewer.status_label.text()
        save_shot(viewer, "viewer/csv_saving_status")
        with pytest.raises(RuntimeError, match="still saving"):
            viewer.save_tensor(tmp_path / "other.csv", background=True)
    assert blocker.args == [str(target), None]
    assert viewer.status_label.text() == "saved big.csv"
    back = np.loadtxt(target, delimiter=",", dtype=np.float32)
    np.testing.assert_array_equal(_bits(back), _bits(a[2]))


def test_numeric_csv_never_formats_one_value_at_a_time(tmp_path, monkeypatch):
    from nodeeditor.ui.viewer import saving

    def per_value(value):
        raise AssertionError("numeric CSV must be formatted a block at a time")

    monkeypatch.setattr(saving, "format_value", per_value)
    monkeypatch.setattr(saving, "_text", per_value)
    for array in (np.arange(12, dtype=np.float32).reshape(3, 4) / 3, np.arange(5, dtype=np.int16),
                  np.array(2.5 - 1j), np.ones((2, 2), ml_dtypes.bfloat16), np.eye(2, dtype=bool)):
        saving.save_csv(tmp_path / "n.csv", array)


def test_save_csv_cancelled_leaves_no_file(tmp_path):
    from nodeeditor.ui.viewer import saving

    calls = []
    result = saving.save_csv(tmp_path / "c.csv", np.zeros((300_000, 1), np.float32),
                             cancelled=lambda: calls.append(1) or len(calls) > 1)
    assert result is None and not (tmp_path / "c.csv").exists()
