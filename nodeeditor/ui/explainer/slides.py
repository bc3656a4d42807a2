"""Slides of a step-through: one picture per step (plus an optional title picture), drawn by
the same :class:`.widget.ExplainerWidget` as the screen, offscreen, then written as an
animated GIF (Pillow) or as numbered PNG files.

:func:`frames` builds its own widget (never shown on a screen: it works with
``QT_QPA_PLATFORM=offscreen`` and no display), sized to the slide, in slide mode (no buttons,
no tabs), with the largest text at which the steps show whole (:func:`slide_zoom`), and grabs
it after each step, one picture at a time; :func:`write_slides` writes them as they come (a
PNG file each; a GIF keeps one byte a pixel per frame until it is written), reporting progress
and stopping when the progress callback says so (:class:`SlidesCancelledError`). A step-through of
more than :data:`MAX_FRAMES` pictures (or a GIF of more than :data:`MAX_GIF_PIXELS` pixels in
all) is refused before anything is drawn: slides are for a class, the Explainer and
``indexflow explain --text`` take any size. :func:`render_frames` keeps every picture (small
step-throughs, tests). A QApplication must exist.
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
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
#: The most pictures one export makes (four minutes of one-second frames).
MAX_FRAMES = 240
#: The most pixels a GIF's frames hold in all while it is being written (one byte each).
MAX_GIF_PIXELS = 250_000_000


class SlideError(Exception):
    """Slides cannot be made (the operation cannot run, a bad size, too many steps, an
    unwritable file)."""


class SlidesCancelledError(SlideError):
    """The progress callback asked to stop; nothing more is written."""


class SizeError(SlideError):
    """A slide size that is not WIDTHxHEIGHT in the accepted range."""


@dataclass(frozen=True)
class SlideOptions:
    """``size`` (width, height) in pixels; ``title_frame``: a first picture naming the node,
    the op and the number of steps; ``frame_ms``: each GIF frame's time; ``granularity``:
    None for each op's default (slices for GatherND, ScatterND, TensorScatter)."""

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
    """One picture per step of ``op`` on ``inputs`` (the title picture first when asked), all
    kept: see :class:`Slides`."""
    return list(Slides(title, op, inputs, attrs, options))


class Slides:
    """The pictures of one step-through, drawn one at a time as it is iterated (the title
    picture first when asked), once. ``total`` is their number. SlideError from the
    constructor when the step-through cannot be drawn or is too long for slides (more than
    :data:`MAX_FRAMES` pictures; with ``gif``, more than :data:`MAX_GIF_PIXELS` pixels)."""

    def __init__(self, title: str, op: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None,
                 options: SlideOptions = SlideOptions(), gif: bool = False) -> None:
        from .widget import ExplainerWidget

        if QtWidgets.QApplication.instance() is None:
            raise SlideError("slides need a QApplication (QT_QPA_PLATFORM=offscreen works without a display)")
        self.options = options
        self._widget = ExplainerWidget()
        try:
            with _offscreen_noise_dropped():
                self.total = _prepare(self._widget, title, op, inputs, attrs, options, gif)
        except BaseException:
            self.close()
            raise

    def __iter__(self) -> Iterator[QtGui.QImage]:
        from .widget import settle

        widget, options = self._widget, self.options
        if widget is None:
            return
        try:
            with _offscreen_noise_dropped():
                if options.title_frame:
                    yield title_frame(widget, options.size)
                for k in range(widget.count):
                    widget.set_step(k)
                    settle(widget)
                    yield _sized(widget.grab().toImage(), options.size)
        finally:
            self.close()

    def close(self) -> None:
        if self._widget is not None:
            self._widget.close()
            self._widget.deleteLater()
            self._widget = None


def _prepare(widget, title: str, op: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None,
             options: SlideOptions, gif: bool) -> int:
    """Set ``widget`` up for slides of ``options.size`` pixels; the number of pictures."""
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
    if not widget.set_operation(title, op, inputs, attrs):
        raise SlideError(widget.title.text())
    count = widget.count + (1 if options.title_frame else 0)
    area = options.size[0] * options.size[1]
    if count > MAX_FRAMES or gif and count * area > MAX_GIF_PIXELS:
        most = min(MAX_FRAMES, MAX_GIF_PIXELS // area) if gif else MAX_FRAMES
        steps = f"{widget.count:,} steps" + (" and a title" if options.title_frame else "")
        raise SlideError(f"{title} ({op}) has {steps}; slides hold at most {most:,} pictures at "
                         f"{options.size[0]}x{options.size[1]}: step through it in the Explainer, or use a smaller "
                         "example (indexflow explain --text prints every step)")
    # the largest text at which the first and the last step show whole
    base = slide_zoom(logical)
    widget.fit_zoom([base * f for f in FIT_FACTORS], steps=sorted({0, widget.count - 1}))
    return count


def write_slides(title: str, op: str, inputs: Sequence[np.ndarray | None], attrs: Mapping[str, Any] | None,
                 options: SlideOptions, gif: str | Path | None = None, folder: str | Path | None = None,
                 progress: Callable[[int, int], bool] | None = None) -> tuple[list[Path], int]:
    """Draw the slides once and write them as a GIF at ``gif`` and/or numbered PNG files in
    ``folder`` (as :func:`write_gif`, :func:`write_frames` do), each picture as it is drawn.
    ``progress(done, total)`` after each picture; False from it stops (SlidesCancelledError: the
    PNG files written so far stay, no GIF is written). Returns the files written (the GIF
    first) and the number of pictures."""
    if gif is not None:
        _require_pillow()   # before anything is drawn or written
    slides = Slides(title, op, inputs, attrs, options, gif=gif is not None)
    target = None if folder is None else _frames_folder(folder)
    kept, written = [], []
    pictures = iter(slides)
    try:
        for done, image in enumerate(pictures, start=1):
            if target is not None:
                written.append(_write_png(image, target, done - 1, slides.total, options.title_frame))
            if gif is not None:
                kept.append(_pil(image).quantize())   # one byte a pixel until the GIF is written
            if progress is not None and not progress(done, slides.total):
                raise SlidesCancelledError("cancelled")
    finally:
        pictures.close()
        slides.close()
    if gif is not None:
        written.insert(0, _save_gif(kept, Path(gif), options.frame_ms))
    return written, slides.total


def gif_path(text: str | Path) -> Path:
    """Where a GIF named ``text`` is written: ``.gif`` added when its name lacks it."""
    path = Path(text).expanduser()
    return path if path.suffix.lower() == ".gif" else path.with_name(path.name + ".gif")


def _sized(image: QtGui.QImage, size: tuple[int, int]) -> QtGui.QImage:
    """``image`` as a picture of exactly ``size`` pixels (a pixel ratio's rounding rescaled)."""
    if (image.width(), image.height()) != tuple(size):
        image = image.scaled(size[0], size[1], QtCore.Qt.AspectRatioMode.IgnoreAspectRatio,
                             QtCore.Qt.TransformationMode.SmoothTransformation)
    image.setDevicePixelRatio(1.0)
    return image


def title_frame(widget, size: tuple[int, int]) -> QtGui.QImage:
    """A picture with the node's title, the op with its attributes (``ScatterElements (axis 1,
    reduction add)``: the node's name need not say them) and what one step is, in the
    widget's font."""
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
    attributes = ", ".join(f"{name} {value}" for name, value in e.attrs.items())
    case = f"{e.op} ({attributes})" if attributes else e.op
    lines = f"{case}\n{e.count} step{'s' * (e.count != 1)}, one {what} each\n{shapes}"
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


def _require_pillow() -> None:
    try:
        import PIL  # noqa: F401 - only checks that Pillow is installed
    except ImportError:
        raise SlideError("GIF export needs Pillow, which is not installed: pip install pillow") from None


def write_gif(frames: Sequence[QtGui.QImage], path: str | Path, frame_ms: int = DEFAULT_FRAME_MS) -> Path:
    """An animated GIF with one frame per picture, each shown ``frame_ms``, looping."""
    _require_pillow()
    return _save_gif([_pil(f) for f in frames], Path(path), frame_ms)


def _save_gif(images: list, path: Path, frame_ms: int) -> Path:
    if not images:
        raise SlideError("no frames to write")
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
    target = _frames_folder(folder)
    return [_write_png(image, target, i, len(frames), title_frame) for i, image in enumerate(frames)]


def _frames_folder(folder: str | Path) -> Path:
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SlideError(f"cannot create {folder}: {exc.strerror or exc}") from None
    return folder


def _write_png(image: QtGui.QImage, folder: Path, i: int, total: int, title_frame: bool) -> Path:
    """Picture ``i`` of ``total`` as ``title.png`` (the first, with a title) or ``step_NNN.png``."""
    steps = total - (1 if title_frame else 0)
    digits = max(3, len(str(steps)))
    name = "title.png" if title_frame and i == 0 else f"step_{i + (0 if title_frame else 1):0{digits}d}.png"
    target = folder / name
    if not image.save(str(target), "PNG"):
        raise SlideError(f"cannot write {target}")
    return target
