"""Slides of a step-through: one picture per step (plus an optional title picture), drawn by
the same :class:`.widget.ExplainerWidget` as the screen, offscreen, then written as an
animated GIF (Pillow) or as numbered PNG files.

:func:`render_frames` builds its own widget (never shown on a screen: it works with
``QT_QPA_PLATFORM=offscreen`` and no display), sized to the slide, in slide mode (no buttons,
no tabs), with the largest text at which the steps show whole (:func:`slide_zoom`), and grabs
it after each step.
A QApplication must exist. :func:`write_gif` has one GIF frame per picture; :func:`write_frames`
writes ``step_001.png``, ``step_002.png``... (``title.png`` first) into a folder.
"""
from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from ops.steps import Granularity

#: The slide size when none is chosen (a 720p projector).
DEFAULT_SIZE = (1280, 720)
MIN_SIZE, MAX_SIZE = (320, 200), (3840, 2160)
#: A GIF frame's time when none is chosen.
DEFAULT_FRAME_MS = 1000
#: Text sizes tried on a slide, times :func:`slide_zoom`; the largest that shows the steps whole is kept.
FIT_FACTORS = (1.6, 1.4, 1.2, 1.0, 0.85, 0.7)


class SlideError(Exception):
    """Slides cannot be made (the operation cannot run, a bad size, an unwritable file)."""


class SizeError(SlideError):
    """A slide size that is not WIDTHxHEIGHT in the accepted range."""


@dataclass(frozen=True)
class SlideOptions:
    """``size`` (width, height) in pixels; ``title_frame``: a first picture naming the node,
    the op and the number of steps; ``frame_ms``: each GIF frame's time; ``granularity``:
    None for each op's default (slices for GatherND / ScatterND)."""

    size: tuple[int, int] = DEFAULT_SIZE
    title_frame: bool = False
    frame_ms: int = DEFAULT_FRAME_MS
    granularity: Granularity | None = None


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x720"`` -> (1280, 720); a SizeError names the accepted form and range."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        width, height = (int(p) for p in parts)
    except ValueError:
        raise SizeError(f"size {text!r} is not WIDTHxHEIGHT (e.g. 1280x720)") from None
    if not (MIN_SIZE[0] <= width <= MAX_SIZE[0] and MIN_SIZE[1] <= height <= MAX_SIZE[1]):
        raise SizeError(f"size {width}x{height} is outside {MIN_SIZE[0]}x{MIN_SIZE[1]} .. "
                         f"{MAX_SIZE[0]}x{MAX_SIZE[1]}")
    return width, height


def slide_zoom(size: tuple[int, int]) -> float:
    """The Explainer's font zoom on a slide of ``size``: text keeps the same share of the
    picture whatever its size (1.0 at 640x360, 2.0 at 1280x720)."""
    width, height = size
    return max(0.8, min(width / 640, height / 360))


#: What Qt's offscreen platform says each time a hidden top-level widget's size hints change:
#: nothing is wrong (a slide is never on a screen), so it is not printed.
_OFFSCREEN_NOISE = "This plugin does not support propagateSizeHints()"


@contextmanager
def _offscreen_noise_dropped() -> Iterator[None]:
    """Qt messages other than :data:`_OFFSCREEN_NOISE` go on as before (to the handler that
    was installed, else to stderr as Qt prints them)."""
    previous = None

    def handler(mode, context, message) -> None:
        if message == _OFFSCREEN_NOISE:
            return
        if previous is not None:
            previous(mode, context, message)
        else:
            print(message, file=sys.stderr)

    previous = QtCore.qInstallMessageHandler(handler)
    try:
        yield
    finally:
        QtCore.qInstallMessageHandler(previous)


def render_frames(title: str, op: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None,
                  options: SlideOptions = SlideOptions()) -> list[QtGui.QImage]:
    """One picture per step of ``op`` on ``inputs`` (the title picture first when asked)."""
    from .widget import ExplainerWidget

    if QtWidgets.QApplication.instance() is None:
        raise SlideError("slides need a QApplication (QT_QPA_PLATFORM=offscreen works without a display)")
    with _offscreen_noise_dropped():
        return _render(ExplainerWidget(), title, op, inputs, attrs, options)


def _render(widget, title: str, op: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None,
            options: SlideOptions) -> list[QtGui.QImage]:
    from .widget import settle

    widget.setAttribute(QtCore.Qt.WidgetAttribute.WA_DontShowOnScreen)
    widget.set_slide_mode(True)
    widget.setAutoFillBackground(True)
    widget.show()
    # a picture of exactly options.size pixels on a scaled screen too (QT_SCALE_FACTOR=1.5
    # for a projector): the widget is that size divided by the screen's pixel ratio
    ratio = widget.devicePixelRatioF() or 1.0
    logical = (max(1, round(options.size[0] / ratio)), max(1, round(options.size[1] / ratio)))
    widget.resize(*logical)
    widget.granularity = options.granularity
    try:
        if not widget.set_operation(title, op, inputs, attrs):
            raise SlideError(widget.title.text())
        # the largest text at which the first and the last step show whole
        base = slide_zoom(logical)
        widget.fit_zoom([base * f for f in FIT_FACTORS], steps=sorted({0, widget.count - 1}))
        frames = [title_frame(widget, options.size)] if options.title_frame else []
        for k in range(widget.count):
            widget.set_step(k)
            settle(widget)
            frames.append(_sized(widget.grab().toImage(), options.size))
        return frames
    finally:
        widget.close()
        widget.deleteLater()


def _sized(image: QtGui.QImage, size: tuple[int, int]) -> QtGui.QImage:
    """``image`` as a picture of exactly ``size`` pixels (a pixel ratio's rounding rescaled)."""
    if (image.width(), image.height()) != tuple(size):
        image = image.scaled(size[0], size[1], QtCore.Qt.AspectRatioMode.IgnoreAspectRatio,
                             QtCore.Qt.TransformationMode.SmoothTransformation)
    image.setDevicePixelRatio(1.0)
    return image


def title_frame(widget, size: tuple[int, int]) -> QtGui.QImage:
    """A picture with the node's title, the op and what one step is, in the widget's font."""
    e = widget.explanation
    image = QtGui.QImage(size[0], size[1], QtGui.QImage.Format.Format_RGB32)
    image.fill(widget.palette().color(QtGui.QPalette.ColorRole.Window))
    p = QtGui.QPainter(image)
    p.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
    font = QtGui.QFont(widget.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    font.setBold(True)
    p.setFont(font)
    p.setPen(QtGui.QColor("#1d2330"))
    head = QtCore.QRectF(0, size[1] * 0.25, size[0], size[1] * 0.25)
    p.drawText(head, QtCore.Qt.AlignmentFlag.AlignCenter | QtCore.Qt.TextFlag.TextWordWrap, widget.operation()[0])
    font.setBold(False)
    font.setPointSizeF(font.pointSizeF() / 1.6)
    p.setFont(font)
    shapes = ", ".join(f"{name} {list(np.shape(t))}" for name, t in widget._panels() if t is not None)
    what = "slice" if e.granularity is Granularity.SLICE else "element"
    lines = f"{e.op}: {e.count} step{'s' * (e.count != 1)}, one {what} each\n{shapes}"
    flags = QtCore.Qt.AlignmentFlag.AlignHCenter | QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.TextFlag.TextWordWrap
    p.drawText(QtCore.QRectF(size[0] * 0.05, size[1] * 0.5, size[0] * 0.9, size[1] * 0.4), flags, lines)
    p.end()
    return image


def _pil(image: QtGui.QImage):
    from PIL import Image

    rgba = image.convertToFormat(QtGui.QImage.Format.Format_RGBA8888)
    data = bytes(rgba.constBits())
    return Image.frombuffer("RGBA", (rgba.width(), rgba.height()), data, "raw", "RGBA",
                            rgba.bytesPerLine(), 1).convert("RGB")


def write_gif(frames: Sequence[QtGui.QImage], path: str | Path, frame_ms: int = DEFAULT_FRAME_MS) -> Path:
    """An animated GIF with one frame per picture, each shown ``frame_ms``, looping."""
    if not frames:
        raise SlideError("no frames to write")
    try:
        import PIL  # noqa: F401 - only checks that Pillow is installed
    except ImportError:
        raise SlideError("GIF export needs Pillow, which is not installed: pip install pillow") from None
    path = Path(path)
    images = [_pil(f) for f in frames]
    try:
        # every frame kept whole (no frame merged away, even two equal ones): one per step
        images[0].save(path, format="GIF", save_all=True, append_images=images[1:], duration=int(frame_ms),
                       loop=0, optimize=False, disposal=1)
    except OSError as exc:
        raise SlideError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def write_frames(frames: Sequence[QtGui.QImage], folder: str | Path, title_frame: bool = False) -> list[Path]:
    """Numbered PNG files in ``folder`` (created when missing): ``title.png`` for a title
    picture (the first, when ``title_frame``), then ``step_001.png``... one per step."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SlideError(f"cannot create {folder}: {exc.strerror or exc}") from None
    steps = len(frames) - (1 if title_frame else 0)
    digits = max(3, len(str(steps)))
    written = []
    for i, image in enumerate(frames):
        name = "title.png" if title_frame and i == 0 else f"step_{i + (0 if title_frame else 1):0{digits}d}.png"
        target = folder / name
        if not image.save(str(target), "PNG"):
            raise SlideError(f"cannot write {target}")
        written.append(target)
    return written
