"""Render every viewer mode to PNG (in tmp_path; kept for people to look at when
INDEXFLOW_SHOTS names a folder) and check each picture is a real, non-blank rendering of the
right size."""
import ml_dtypes
import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from nodeeditor.ui.viewer import TensorViewer, thumbnail

from .helpers import save_shot, wait_for_viewer


def _scatter_pair():
    data = np.zeros((8, 8), np.float32)
    out = data.copy()
    out[[1, 3, 3, 6], [2, 0, 5, 7]] = [1.5, -2.0, 4.0, 0.25]
    return data, out


def _nan_inf():
    a = np.linspace(-1, 1, 24).reshape(4, 6)
    a[1, 2] = np.nan
    a[2, 4] = np.inf
    a[3, 0] = -np.inf
    return a


def _mode_nd(viewer):
    viewer.set_tensor("kv_cache", np.arange(2 * 3 * 6 * 7, dtype=np.int32).reshape(2, 3, 6, 7), "ScatterND output")
    viewer.controls.set_index(0, 1)
    viewer.controls.set_index(1, 2)


def _mode_compare(viewer):
    data, out = _scatter_pair()
    viewer.set_tensor("data", data)
    viewer.pin()
    viewer.set_tensor("scatter_out", out, "ScatterElements")


def _mode_compare_1d(viewer):
    viewer.set_tensor("x", np.arange(12, dtype=np.float32))
    viewer.pin()
    y = np.arange(12, dtype=np.float32)
    y[[2, 7]] = [-5, 30]
    viewer.set_tensor("y", y)


def _mode_complex_mag(viewer):
    viewer.set_tensor("fft", np.fft.fft2(np.eye(5)).astype(np.complex64))
    viewer.set_complex_mode("mag_phase")


def _mode_table(viewer):
    viewer.set_tensor("table", (np.arange(60, dtype=np.float64).reshape(6, 10) / 7))
    viewer.tabs.setCurrentIndex(1)


def _mode_32_zoomed(viewer):
    viewer.set_tensor("edge32_zoomed", np.arange(1024, dtype=np.int16).reshape(32, 32))
    viewer.picture.panels[0].plot.vb.setRange(xRange=(-0.5, 9.5), yRange=(-0.5, 7.5), padding=0)


def _mode_compare_complex(viewer):
    z = (np.arange(9).reshape(3, 3) * (1 - 0.5j)).astype(np.complex64)
    viewer.set_tensor("z", z)
    viewer.pin()
    w = z.copy()
    w[1, 1] = 10 + 10j
    viewer.set_tensor("w", w)


def _mode_hover(viewer):
    viewer.set_tensor("hover", np.arange(12, dtype=np.float32).reshape(3, 4) / 3)
    panel = viewer.picture.panels[0]
    viewer.picture.scene().sigMouseMoved.emit(panel.plot.vb.mapViewToScene(QtCore.QPointF(1, 2)))


MODES = {
    "1d_bars": lambda v: v.set_tensor("indices", np.array([3, -1, 4, 1, -5, 9, 2, 6], np.int64), "Gather indices"),
    "1d_line": lambda v: v.set_tensor("signal", (np.sin(np.arange(5000) / 90) * np.arange(5000)).astype(np.float32)),
    "1d_bool": lambda v: v.set_tensor("flags", np.arange(20) % 3 == 0),
    "2d_small_text": lambda v: v.set_tensor("small", (np.arange(30, dtype=np.float32).reshape(5, 6) / 7)),
    "2d_32x32_zoomed": _mode_32_zoomed,
    "compare_complex": _mode_compare_complex,
    "2d_32x32_text": lambda v: v.set_tensor("edge32", np.arange(1024, dtype=np.int16).reshape(32, 32)),
    "2d_medium_f16": lambda v: v.set_tensor(
        "noise", np.random.default_rng(0).normal(size=(100, 140)).astype(np.float16)),
    "2d_nan_inf": lambda v: v.set_tensor("nan_inf", _nan_inf()),
    "2d_bool": lambda v: v.set_tensor("mask", np.add.outer(np.arange(7), np.arange(9)) % 3 == 0),
    "2d_bf16": lambda v: v.set_tensor("bf16", (np.arange(20).reshape(4, 5) / 3).astype(ml_dtypes.bfloat16)),
    "complex_real_imag": lambda v: v.set_tensor("z", (np.arange(9).reshape(3, 3) * (1 - 0.5j)).astype(np.complex64)),
    "complex_mag_phase": _mode_complex_mag,
    "nd_sliders": _mode_nd,
    "strings": lambda v: v.set_tensor("vocab", np.array([["the", "cat"], ["sat", "on"], ["a", "mat"]], dtype=object)),
    "scalar": lambda v: v.set_tensor("axis", np.array(0.1, np.float32)),
    "compare_2d": _mode_compare,
    "compare_1d": _mode_compare_1d,
    "table": _mode_table,
    "hover": _mode_hover,
}


@pytest.mark.parametrize("mode", list(MODES))
def test_render_mode(qtbot, tmp_path, mode):
    viewer = TensorViewer()
    qtbot.addWidget(viewer)
    viewer.resize(900, 620)
    viewer.show()
    qtbot.waitExposed(viewer)
    MODES[mode](viewer)
    wait_for_viewer(qtbot, viewer)
    image = save_shot(viewer, f"viewer/{mode}").toImage()
    path = tmp_path / f"{mode}.png"
    assert image.save(str(path))
    loaded = QtGui.QImage(str(path))
    assert loaded.width() >= 900 * 0.9 and loaded.height() >= 620 * 0.9
    # not blank: the picture area has many colours
    small = loaded.scaled(90, 62)
    colours = {small.pixel(x, y) for x in range(90) for y in range(62)}
    assert len(colours) > 10


@pytest.mark.parametrize("mode", ["nd_sliders", "compare_2d", "complex_real_imag"])
def test_render_dock_size(qtbot, tmp_path, mode):
    """The size the editor's dock gives the viewer (about 420 x 470): nothing cut off."""
    viewer = TensorViewer()
    qtbot.addWidget(viewer)
    viewer.resize(420, 470)
    viewer.show()
    qtbot.waitExposed(viewer)
    MODES[mode](viewer)
    wait_for_viewer(qtbot, viewer)
    image = save_shot(viewer, f"viewer/dock_{mode}").toImage()
    assert image.save(str(tmp_path / f"dock_{mode}.png"))
    assert viewer.minimumSizeHint().width() <= 420


def test_render_1e8(qtbot, tmp_path):
    viewer = TensorViewer()
    qtbot.addWidget(viewer)
    viewer.resize(900, 620)
    viewer.show()
    qtbot.waitExposed(viewer)
    big = np.zeros((10000, 10000), np.float32)
    big[2000:2600, 3000:7000] = 1.0
    big[::1000, :] = 2.0
    with qtbot.waitSignal(viewer.statsReady, timeout=20000):
        viewer.set_tensor("big", big, "1e8 elements")
    wait_for_viewer(qtbot, viewer)
    image = save_shot(viewer, "viewer/1e8")
    assert image.save(str(tmp_path / "big.png"))


def test_render_thumbnails(qtbot, tmp_path):
    arrays = [
        np.add.outer(np.arange(20), np.arange(30)).astype(np.float32),
        np.sin(np.arange(40) / 4),
        np.eye(8, dtype=bool),
        np.arange(3 * 4 * 5).reshape(3, 4, 5),
        np.array(["a"], dtype=object),
        np.array(2.5),
    ]
    sheet = QtGui.QImage(6 * 72, 56, QtGui.QImage.Format.Format_RGBA8888)
    sheet.fill(QtGui.QColor("white"))
    painter = QtGui.QPainter(sheet)
    for i, a in enumerate(arrays):
        thumb = thumbnail(a, 64, 48)
        assert (thumb.width(), thumb.height()) == (64, 48)
        painter.drawImage(i * 72 + 4, 4, thumb)
    painter.end()
    assert sheet.save(str(tmp_path / "thumbs.png"))
    save_shot(sheet.scaled(sheet.width() * 2, sheet.height() * 2), "viewer/thumbnails")
