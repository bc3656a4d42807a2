"""``TensorViewer``: name, dtype, shape and statistics of one tensor, as a picture and a table.

The widget is self-contained (no editor imports) so the editor can put it in a dock and
call ``set_tensor`` whenever the selection changes.

Data flow: ``set_tensor`` keeps a reference to the array (never a copy). Each refresh takes
the 2-D slice chosen by the slice controls (a view), downsamples it by stride to at most
``max_display`` per side (a view), and converts only that to float32 for pyqtgraph. When
that stride is more than 1, a peak-preserving picture of the same grid
(``slicing.peak_downsample_2d``: every element read, each pixel one extreme of its block)
is computed in the background and replaces the stride sample when it is ready, if the
same slice is still shown (``pictureRefined`` is emitted then); the hover label then
describes the block under the cursor. The table reads single elements from the slice view
on demand. Statistics run in chunks, off the UI thread for large tensors.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtWidgets

from . import colors, saving
from .background import BackgroundCall
from .controls import SliceControls
from .labels import ElidedLabel, ItemsLabel, WrapLabel
from .panels import PanelSpec, PictureArea, PictureScroll, Pool
from .slicing import (
    BOOL,
    COMPLEX,
    MAX_DISPLAY,
    TensorStats,
    changed_blocks,
    complex_parts,
    display_part,
    display_step,
    downsample_1d,
    downsample_2d,
    dtype_kind,
    finite_bounds,
    format_short,
    format_value,
    full_index,
    is_drawable,
    peak_downsample_2d,
    slice_2d,
    to_display_float,
    uniform_slice,
)
from .stats_worker import StatsComputer
from .table import TablePage

#: 1-D vectors up to this length are drawn as bars, longer ones as a line.
BAR_LIMIT = 64
#: Bar charts of up to this many values get each value written above its bar.
VALUE_TEXT_LIMIT = 32
#: 2-D slices up to this many rows and columns get their values written in the cells.
CELL_TEXT_LIMIT = 32
#: Differences of slices with more elements than this are computed off the UI thread.
ASYNC_DIFF_LIMIT = 1 << 22


def _legend(*entries: tuple[str, tuple[int, int, int]]) -> str:
    """Rich-text colour legend for a plot title: a coloured square before each word."""
    return "  ".join(f"<span style='color:rgb{rgb}'>&#9632;</span> {word}" for word, rgb in entries)


def _share_levels(specs: list[PanelSpec]) -> None:
    """Pinned and current heat maps of the same part (values, real, imag, ...) share one
    colour scale, so the same colour means the same value on both sides. Difference and
    bool panels keep their own fixed scales."""
    groups: dict[str, list[PanelSpec]] = {}
    for spec in specs:
        if spec.kind == "heat" and spec.level_group is not None:
            groups.setdefault(spec.level_group, []).append(spec)
    for shared in groups.values():
        if len(shared) < 2:
            continue
        lo = min(s.finite_range[0] for s in shared)
        hi = max(s.finite_range[1] for s in shared)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        for s in shared:
            s.levels = (lo, hi)


@dataclass(frozen=True)
class ShownTensor:
    """A tensor as handed to the viewer (the array is a reference, not a copy)."""

    name: str
    array: np.ndarray
    subtitle: str = ""


class TensorViewer(QtWidgets.QWidget):
    """Shows one tensor (plus an optional pinned one to compare against).

    Signals:
        tensorChanged(str): after ``set_tensor``; carries the name ('' for None).
        statsReady(object): the ``TensorStats`` of the current tensor, once computed.
        hoverChanged(str): the hover label's new text (index and exact value).
        pinChanged(bool): True after ``pin()``, False after ``unpin()``.
        differenceReady(int): a large difference view (computed in the background) is
            now shown; carries the number of changed cells in the slice.
        pictureRefined(): the peak-preserving pictures of the downsampled heat maps on
            screen (computed in the background) now replace their stride samples.
        saved(str, object): a save started with ``background=True`` finished; carries
            the path and None, or the exception that stopped it.
    """

    tensorChanged = QtCore.Signal(str)
    statsReady = QtCore.Signal(object)
    differenceReady = QtCore.Signal(int)
    pictureRefined = QtCore.Signal()
    hoverChanged = QtCore.Signal(str)
    pinChanged = QtCore.Signal(bool)
    saved = QtCore.Signal(str, object)

    def __init__(self, parent: QtWidgets.QWidget | None = None, max_display: int = MAX_DISPLAY):
        super().__init__(parent)
        self.max_display = int(max_display)
        self.current: ShownTensor | None = None
        self.pinned: ShownTensor | None = None
        self.stats: TensorStats | None = None
        self.complex_mode = "real_imag"
        self._table_forced = False

        # no text may widen the viewer: the editor's dock is narrow and would keep the width
        # a long warning gave it (labels.py); names are cut with "…", messages wrap
        self.name_label = ElidedLabel()
        self.name_label.setStyleSheet("font-weight: bold; font-size: 13pt;")
        self.name_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.info_label = WrapLabel()
        self.info_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.stats_label = ItemsLabel()   # wraps between "min 0 · max 3" items, not inside one
        self.stats_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.pinned_label = WrapLabel()
        self.pinned_label.setStyleSheet("color: #b05000;")

        self.complex_combo = QtWidgets.QComboBox()
        self.complex_combo.addItem("real / imag", "real_imag")
        self.complex_combo.addItem("magnitude / phase", "mag_phase")
        self.complex_combo.setToolTip("how complex values are drawn")
        self.complex_combo.currentIndexChanged.connect(
            lambda _: self.set_complex_mode(self.complex_combo.currentData()))
        self.pin_button = QtWidgets.QPushButton("Pin")
        self.pin_button.setToolTip("keep this tensor and show the next one beside it")
        self.pin_button.clicked.connect(self.pin)
        self.unpin_button = QtWidgets.QPushButton("Unpin")
        self.unpin_button.clicked.connect(self.unpin)
        self.save_button = QtWidgets.QPushButton("Save…")
        self.save_button.setToolTip("save the tensor as .npy, the slice as .csv, or the picture as .png")
        self.save_button.clicked.connect(self._save_dialog)

        self.status_label = ElidedLabel()  # a long file name must not widen the viewer
        self.status_label.setStyleSheet("color: #606060;")

        self.controls = SliceControls()
        self.controls.changed.connect(self._refresh_views)

        self.picture = PictureArea()
        self.picture.hovered.connect(self._on_hover)
        self.hover_label = ElidedLabel(" ")  # a block's description is long
        self.hover_label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.hover_label.setStyleSheet("font-family: monospace;")
        picture_page = QtWidgets.QWidget()
        picture_layout = QtWidgets.QVBoxLayout(picture_page)
        picture_layout.setContentsMargins(0, 0, 0, 0)
        self.picture_scroll = PictureScroll(self.picture)  # compare rows scroll when the dock is low
        picture_layout.addWidget(self.picture_scroll, 1)
        picture_layout.addWidget(self.hover_label)

        self.table_page = TablePage()
        self.table_view = self.table_page.view
        self.table_model = self.table_page.model
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(picture_page, "Picture")
        self.tabs.addTab(self.table_page, "Table")

        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.complex_combo)
        buttons.addWidget(self.status_label, 1)
        buttons.addWidget(self.pin_button)
        buttons.addWidget(self.unpin_button)
        buttons.addWidget(self.save_button)

        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(4)
        self._name_row = QtWidgets.QHBoxLayout()
        self._name_row.addWidget(self.name_label, 1)
        layout.addLayout(self._name_row)
        layout.addWidget(self.info_label)
        layout.addWidget(self.stats_label)
        layout.addWidget(self.pinned_label)
        layout.addLayout(buttons)
        layout.addWidget(self.controls)
        layout.addWidget(self.tabs, 1)

        self._stats = StatsComputer(self)
        self._stats.ready.connect(self._on_stats)
        self._diff_job = BackgroundCall(self)
        self._diff_job.finished.connect(self._on_difference)
        self._diff_key: tuple | None = None  # what the running/finished job compares
        self._diff_result: tuple | None = None  # (blocks, steps, count) for _diff_key
        self._diff_arrays: tuple | None = None  # the two arrays of _diff_key, kept alive
        self._save_job = BackgroundCall(self)
        self._save_job.finished.connect(self._on_saved)
        self._saving: Path | None = None  # the file a background save is writing
        self._envelope_job = BackgroundCall(self)
        self._envelope_job.finished.connect(self._on_envelopes)
        # id(vector) -> (vector, x, y); holding the vector keeps its id from being reused
        self._envelopes: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._pending_envelopes: dict[int, np.ndarray] = {}
        self._envelopes_in_flight: frozenset[int] = frozenset()
        self._peak_job = BackgroundCall(self)
        self._peak_job.finished.connect(self._on_peaks)
        # peak key -> (view, picture); holding the view keeps its memory from being reused
        self._peaks: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._pending_peaks: dict[tuple, tuple[np.ndarray, int | None, str]] = {}
        self._peaks_shown: set[tuple] = set()  # the keys of the heat maps on screen
        self._peaks_in_flight: frozenset[tuple] = frozenset()
        self._empty_name = ""   # a node shown without a value (its reason is the subtitle)
        self._placeholder = ""  # what the picture says instead of a missing value
        self._title_slice = ""  # "[0, :, :]" while the current N-D tensor's panels are built
        self.set_tensor("", None)

    # ------------------------------------------------------------------ public API

    def add_control(self, widget: QtWidgets.QWidget) -> None:
        """Put ``widget`` at the right of the tensor's name (the editor's Value / Gradient
        switch; the name is cut short first, so the viewer asks for no more width)."""
        self._name_row.addWidget(widget, 0, QtCore.Qt.AlignmentFlag.AlignTop)

    def set_tensor(self, name: str, array: np.ndarray | None, subtitle: str = "",
                   placeholder: str = "") -> None:
        """Show ``array`` (kept by reference). None clears the viewer; ``placeholder`` is then
        what the picture says instead ("no value" for a named tensor, by default)."""
        if array is not None:
            array = np.asarray(array)
        self.current = None if array is None else ShownTensor(name, array, subtitle)
        self.stats = None
        self._stats.cancel()  # the previous tensor's statistics stop between chunks
        # pictures are cached by memory address, and an array set again may have been written
        # to since: keep only the pinned tensor's pictures (unless it is the one set again)
        pinned = self.pinned.array if self.pinned is not None else None
        self._peaks = {k: v for k, v in self._peaks.items()
                       if pinned is not None and np.may_share_memory(v[0], pinned)
                       and (array is None or not np.may_share_memory(v[0], array))}
        self._peaks_in_flight = frozenset()
        self._peaks_failed = False  # the last refinement raised: titles stop promising one
        self._empty_name = name if array is None else ""
        self._placeholder = placeholder if array is None else ""
        if array is None:
            self.name_label.setText(name or "no tensor")
            self.info_label.setText(subtitle)
            self.stats_label.setText("")
            self._stats.request(None)
        else:
            self.name_label.setText(name)
            count = f"{array.size:,} element" + ("" if array.size == 1 else "s")
            info = f"{array.dtype}   shape {tuple(array.shape)}   {count}"
            self.info_label.setText(info + (f"   ·   {subtitle}" if subtitle else ""))
            self.stats_label.setText("statistics: computing…")
        shape = () if array is None else array.shape
        self.controls.blockSignals(True)
        self.controls.set_shape(shape)
        self.controls.blockSignals(False)
        self.controls.setVisible(array is not None and array.ndim >= 3)
        self._update_buttons()
        self.table_model.row_offset = self.table_model.col_offset = 0  # a new tensor starts at the top
        drawable = array is None or is_drawable(array.dtype)
        self.tabs.setTabEnabled(0, drawable)
        if not drawable:
            self.tabs.setCurrentIndex(1)
            self._table_forced = True
        elif self._table_forced:
            self.tabs.setCurrentIndex(0)
            self._table_forced = False
        self._refresh_views()
        if array is not None:
            # after the picture: the statistics thread streams the whole tensor and would
            # compete with the UI thread's strided sample for memory bandwidth and the GIL
            self._stats.request(array)
        self.tensorChanged.emit(name if array is not None else "")

    def pin(self) -> None:
        """Pin the current tensor: later tensors are shown beside it, with a difference view."""
        if self.current is None:
            return
        self.pinned = self.current
        self._update_buttons()
        self._refresh_views()
        self.pinChanged.emit(True)

    def unpin(self) -> None:
        if self.pinned is None:
            return
        self.pinned = None
        self._update_buttons()
        self._refresh_views()
        self.pinChanged.emit(False)

    def set_complex_mode(self, mode: str) -> None:
        """``'real_imag'`` or ``'mag_phase'``: how complex tensors are drawn."""
        if mode not in ("real_imag", "mag_phase"):
            raise ValueError(f"unknown complex mode {mode!r}")
        self.complex_mode = mode
        index = self.complex_combo.findData(mode)
        if self.complex_combo.currentIndex() != index:
            self.complex_combo.setCurrentIndex(index)  # re-enters via the signal
            return
        self._refresh_views()

    def current_view(self) -> np.ndarray | None:
        """The part of the current tensor on screen at full resolution: the 2-D slice
        (a view), or the whole 1-D / 0-D tensor. An empty tensor gives an empty array."""
        if self.current is None:
            return None
        if self.current.array.size == 0:
            array = self.current.array
            return array.reshape(0) if array.ndim < 2 else np.zeros((0, 0), array.dtype)
        return self._view(self.current.array)

    def current_index(self, row: int, col: int = 0) -> tuple[int, ...]:
        """The N-D index of cell (row, col) of ``current_view()``."""
        array = self.current.array
        if array.ndim == 0:
            return ()
        if array.ndim == 1:
            return (row,)
        return full_index(self.controls.axes, self.controls.indices, row, col)

    def save_tensor(self, path: str | os.PathLike, background: bool = False) -> Path:
        """Save by suffix: ``.npy`` the whole tensor, ``.csv`` the values on screen (the 2-D
        slice, the vector or the scalar, exact), ``.png`` a picture of the Picture tab.

        With ``background=True`` (the Save… button) a CSV of more than
        ``saving.CSV_BACKGROUND_CELLS`` cells is written off the UI thread: the status line
        says so, ``saved`` is emitted when it is done, and another save is refused until
        then. Otherwise the file is written before this returns."""
        if self.current is None:
            raise ValueError("no tensor to save")
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".npy":
            return saving.save_npy(path, self.current.array)
        if suffix == ".csv":
            view = self.current_view()
            if background and view.size > saving.CSV_BACKGROUND_CELLS:
                if self._saving is not None:
                    raise RuntimeError(f"still saving {self._saving.name}; wait until it is done")
                self._saving = path
                self.status_label.setText(f"saving {path.name} ({view.size:,} values)…")
                self._save_job.submit(saving.save_csv, path, view)
                return path
            return saving.save_csv(path, view)
        if suffix == ".png":
            return saving.save_png(path, self.picture)
        raise ValueError(f"unknown file type {suffix!r}; use one of {', '.join(saving.SUFFIXES)}")

    def wait_for_stats(self, msecs: int = 30000) -> bool:
        """Block until background statistics are done (for tests and scripts)."""
        return self._stats.wait(msecs)

    # ------------------------------------------------------------------ building views

    def _view(self, array: np.ndarray, axes=None, indices=None) -> np.ndarray:
        if array.ndim < 2:
            return array
        if array.ndim == 2 and axes is None and self.controls.axes == (0, 1):
            return array
        return slice_2d(array, axes or self.controls.axes, indices if indices is not None else self.controls.indices)

    def _pinned_view(self) -> tuple[np.ndarray, tuple | None]:
        """The pinned tensor's slice: the same axes/indices when they fit, else its first slice."""
        array = self.pinned.array
        if array.size == 0:
            return np.zeros((0, 0), array.dtype), None
        if array.ndim < 2:
            return array, None
        current = self.current.array if self.current is not None else None
        if current is not None and current.ndim == array.ndim and array.ndim >= 2:
            indices = self.controls.indices
            if all(i < s for i, s in zip(indices, array.shape, strict=True)):
                axes = self.controls.axes
                return slice_2d(array, axes, indices), (axes, indices)
        axes = (array.ndim - 2, array.ndim - 1)
        indices = [0] * array.ndim
        return slice_2d(array, axes, indices), (axes, indices)

    def _refresh_views(self) -> None:
        specs: list[PanelSpec] = []
        self._peaks_shown = set()
        current = self.current
        view = self.current_view()
        reference = None
        if self.pinned is not None and self.pinned is not current:
            pinned_view, where = self._pinned_view()
            index_of = self._index_function(self.pinned.array, where)
            if is_drawable(self.pinned.array.dtype):
                specs += self._specs_for(f"pinned: {self.pinned.name}", pinned_view, index_of)
            else:
                specs.append(PanelSpec("text", f"pinned: {self.pinned.name}", text="strings: see the table"))
            if current is not None and view.size and pinned_view.shape == view.shape:
                reference = pinned_view
        pinned_count = len(specs)
        if current is None:
            if not specs:  # a node without a value says so (its reason is in the line above)
                specs.append(PanelSpec("text", text=self._placeholder or (
                    "no value" if self._empty_name else "no tensor selected")))
        elif is_drawable(current.array.dtype):
            self._title_slice = self._slice_text(current.array)
            specs += self._specs_for(current.name, view, self._index_function(current.array, None),
                                     known_constant=self._stats_say_constant())
            self._title_slice = ""
            if reference is not None and is_drawable(self.pinned.array.dtype):
                specs.append(self._diff_spec(reference, view))
        else:
            specs.append(PanelSpec("text", current.name, text="strings are shown in the Table tab"))
        if not any(s.title.startswith("difference") for s in specs) and self._diff_key is not None:
            self._diff_job.cancel()  # nothing to compare any more: drop a pending result
            self._diff_key = self._diff_result = self._diff_arrays = None
        _share_levels(specs)
        for spec in specs[pinned_count:]:  # the picture area wraps groups when narrow
            spec.row = 1 if pinned_count else 0
        self.picture.show_panels(specs)
        self._submit_envelopes()
        self._submit_peaks()
        self.table_model.set_values(view, reference=reference,
                                    index_of=self.current_index if current is not None else None)
        self.hover_label.setText(" ")

    def _index_function(self, array: np.ndarray, where):
        if array.ndim < 2:
            return lambda r, c: (r,) if array.ndim == 1 else ()
        axes, indices = where if where is not None else (self.controls.axes, self.controls.indices)
        return lambda r, c: full_index(axes, indices, r, c)

    def _slice_text(self, array: np.ndarray) -> str:
        """``[0, :, 2, :]`` for the slice of an N-D tensor on screen; nothing up to 2-D."""
        if array.ndim <= 2:
            return ""
        axes, indices = self.controls.axes, self.controls.indices
        return "[" + ", ".join(":" if k in axes else str(indices[k]) for k in range(array.ndim)) + "]"

    def _stats_say_constant(self) -> bool:
        """The current tensor's statistics (once computed) show every element equal: no NaN,
        no infinity, minimum == maximum (real values only: complex statistics are of |z|)."""
        s = self.stats
        return (s is not None and s.minimum is not None and not s.of_magnitude and s.nan == 0 and s.inf == 0
                and s.minimum == s.maximum)

    def _specs_for(self, title: str, view: np.ndarray, index_of, known_constant: bool = False) -> list[PanelSpec]:
        kind = dtype_kind(view.dtype)
        if view.size == 0:
            return [PanelSpec("text", title, text="empty tensor")]
        if view.ndim == 0:
            return [PanelSpec("text", title, text=format_value(view[()]))]
        if kind == COMPLEX:
            names = ("real", "imag") if self.complex_mode == "real_imag" else ("magnitude", "phase")
            if view.ndim == 1:
                return [self._line_spec(f"{title} · {part}", view, index_of, part_index=i)
                        for i, part in enumerate(names)]
            return [self._heat_spec(f"{title} · {part}", view, index_of, part_index=i)
                    for i, part in enumerate(names)]
        if view.ndim == 1:
            return [self._line_spec(title, view, index_of)]
        if known_constant or uniform_slice(view, self.max_display):
            return [self._constant_spec(title, view, index_of)]
        return [self._heat_spec(title, view, index_of)]

    def _display_values(self, values: np.ndarray, part_index: int | None) -> np.ndarray:
        if part_index is None:
            return to_display_float(values)
        return complex_parts(values, self.complex_mode)[part_index]

    def _line_spec(self, title: str, vector: np.ndarray, index_of, part_index=None) -> PanelSpec:
        kind = dtype_kind(vector.dtype)
        n = vector.shape[0]
        bars = n <= BAR_LIMIT
        if part_index is not None:  # complex: stride-sample, then take the part
            step = max(1, math.ceil(n / 4096))
            y = self._display_values(vector[::step], part_index)
            x = np.arange(len(y), dtype=np.float64) * step
        elif bars:
            x, y = np.arange(n, dtype=np.float64), to_display_float(vector)
        elif n <= ASYNC_DIFF_LIMIT:
            x, y = downsample_1d(vector)
        else:  # a huge vector: stride sample now, the min/max envelope from the background
            envelope = self._envelopes.get(id(vector))
            if envelope is None:
                self._pending_envelopes[id(vector)] = vector
                step = math.ceil(n / 8192)
                y = to_display_float(vector[::step])
                x = np.arange(len(y), dtype=np.float64) * step
                title += " (sampled; envelope computing…)"
            else:
                _, x, y = envelope
        colours = None
        categorical = kind == BOOL and bars
        shown = f"{title}  [{n}]"
        if categorical:
            colours = [colors.TRUE_RGB if v else colors.FALSE_RGB for v in y]
            y = np.ones_like(y)  # every bool gets a full-height bar in its colour
            shown += "   " + _legend(("True", colors.TRUE_RGB), ("False", colors.FALSE_RGB))
        value_texts = None
        if bars and not categorical and n <= VALUE_TEXT_LIMIT:
            # the numbers themselves (a 0 is otherwise only a line at the base)
            short_kind = kind if part_index is None else "float"
            source = vector if part_index is None else y
            value_texts = [format_short(source[i], short_kind) for i in range(len(y))]
        return PanelSpec("line", shown, values=y, x=x, bars=bars, bar_colours=colours,
                         hover=self._vector_hover(title, vector, index_of), categorical=categorical,
                         value_texts=value_texts)

    def _peak_key(self, view: np.ndarray, part_index: int | None) -> tuple:
        """What a peak-preserving picture depends on: the slice's memory, shape, strides
        and dtype (the very cells), the complex part and mode, and the display size."""
        mode = self.complex_mode if part_index is not None else None
        return (view.__array_interface__["data"][0], view.shape, view.strides, view.dtype, part_index, mode,
                self.max_display)

    def _heat_spec(self, title: str, view: np.ndarray, index_of, part_index=None) -> PanelSpec:
        kind = dtype_kind(view.dtype)
        small, steps = downsample_2d(view, self.max_display)
        refined = None
        if steps != (1, 1):  # the stride sample now; the peak-preserving picture from the background
            key = self._peak_key(view, part_index)
            self._peaks_shown.add(key)
            cached = self._peaks.get(key)
            if cached is None:
                self._pending_peaks[key] = (view, part_index, self.complex_mode)
            else:
                refined = cached[1]
        values = refined if refined is not None else self._display_values(small, part_index)
        rows, cols = view.shape
        bounds = None
        if kind == BOOL:
            levels, cmap, ticks = (0.0, 1.0), colors.bool_colormap(), [(0.25, "False"), (0.75, "True")]
        else:
            bounds = finite_bounds(values)
            lo, hi = bounds if bounds is not None else (0.0, 1.0)
            levels = (lo, hi) if lo != hi else (lo - 0.5, hi + 0.5)
            cmap, ticks = colors.colormap(), None
        texts = None
        if rows <= CELL_TEXT_LIMIT and cols <= CELL_TEXT_LIMIT:
            source = small if part_index is None else values
            short_kind = kind if part_index is None else "float"
            texts = [[format_short(source[r, c], short_kind) for c in range(cols)] for r in range(rows)]
        shown = f"{title}{self._title_slice}  [{rows} × {cols}]"
        # short: a long title widens the panel
        if refined is not None:
            shown += f"  ({steps[0]} × {steps[1]} blocks, extremes)"
        elif steps != (1, 1):
            state = "not refined: see the hover line" if self._peaks_failed else "refining…"
            shown += f"  (stride {steps[0]} × {steps[1]}, {state})"
        finite_range = level_group = None
        if kind != BOOL:
            finite_range = bounds if bounds is not None else levels
            level_group = f"part{part_index}"
        if refined is not None:
            hover = self._block_hover(title, view, index_of, steps, values, part_index, self.complex_mode)
        else:
            hover = self._cell_hover(title, view, index_of)
        return PanelSpec("heat", shown, values=values, levels=levels, cmap=cmap, extent=(cols, rows),
                         cell_texts=texts, colorbar_ticks=ticks, hover=hover, pool=Pool.PEAK,
                         refined=refined is not None, finite_range=finite_range, level_group=level_group)

    def _constant_spec(self, title: str, view: np.ndarray, index_of) -> PanelSpec:
        """A slice whose elements are all one value: one colour, no colour bar (a scale of
        one value says nothing), and the value written: in every cell of a small slice, once
        across a large one. Nothing to refine: every block is that value."""
        kind = dtype_kind(view.dtype)
        rows, cols = view.shape
        value = view[0, 0]
        shown_value = float(to_display_float(np.asarray([value]))[0])
        if rows <= CELL_TEXT_LIMIT and cols <= CELL_TEXT_LIMIT:
            values = np.full((rows, cols), shown_value, np.float32)
            texts = [[format_short(value, kind)] * cols for _ in range(rows)]
        else:
            values = np.full((1, 1), shown_value, np.float32)
            texts = [[f"every element = {format_value(value)}"]]
        if kind == BOOL:
            levels, cmap, finite_range, level_group = (0.0, 1.0), colors.bool_colormap(), None, None
        else:
            levels, cmap = (shown_value - 0.5, shown_value + 0.5), colors.colormap()
            part_index = None  # shares a scale with the pinned tensor's values, as _heat_spec's
            finite_range, level_group = (shown_value, shown_value), f"part{part_index}"
        shown = f"{title}{self._title_slice}  [{rows} × {cols}]"
        return PanelSpec("heat", shown, values=values, levels=levels, cmap=cmap, extent=(cols, rows),
                         cell_texts=texts, colorbar=False, hover=self._cell_hover(title, view, index_of),
                         finite_range=finite_range, level_group=level_group)

    def _diff_spec(self, reference: np.ndarray, view: np.ndarray) -> PanelSpec:
        ticks = [(0.25, "same"), (0.75, "changed")]
        if view.ndim == 0:
            same = format_value(reference[()]) == format_value(view[()])
            return PanelSpec("text", "difference", text="same" if same else "changed")
        if view.ndim == 1:
            blocks, steps, count = changed_blocks(reference[None, :], view[None, :], self.max_display)
            y = blocks[0].astype(np.float32)
            x = np.arange(len(y), dtype=np.float64) * steps[1]
            bars = view.shape[0] <= BAR_LIMIT
            colours = [colors.CHANGED_RGB if v else colors.SAME_RGB for v in y] if bars else None
            if bars:
                y = np.ones_like(y)
            legend = _legend(("changed", colors.CHANGED_RGB), ("same", colors.SAME_RGB))
            return PanelSpec("line", f"difference: {count:,} of {view.size:,} changed  {legend}", values=y, x=x,
                             bars=bars, bar_colours=colours, hover=self._diff_hover(reference, view),
                             categorical=True, mask=blocks[0])
        rows, cols = view.shape
        if view.size > ASYNC_DIFF_LIMIT:
            key = (id(self.pinned.array), id(self.current.array), self.controls.axes, tuple(self.controls.indices))
            if self._diff_key == key and self._diff_result is not None:
                blocks, steps, count = self._diff_result
            else:
                if self._diff_key != key:
                    self._diff_key, self._diff_result = key, None
                    self._diff_arrays = (self.pinned.array, self.current.array)  # keep the ids unique
                    self._diff_job.submit(changed_blocks, reference, view, self.max_display)
                steps = (display_step(rows, self.max_display), display_step(cols, self.max_display))
                blocks = np.zeros((math.ceil(rows / steps[0]), math.ceil(cols / steps[1])), bool)
                return PanelSpec("heat", "difference: computing…", values=blocks.astype(np.float32),
                                 levels=(0.0, 1.0), cmap=colors.diff_colormap(), extent=(cols, rows),
                                 colorbar_ticks=ticks, pending=True, pool=Pool.MAX)
        else:
            blocks, steps, count = changed_blocks(reference, view, self.max_display)
        marks = _ring_marks(blocks, steps) if view.size > RING_MIN_CELLS else None
        return PanelSpec("heat", f"difference: {count:,} of {view.size:,} changed",
                         values=blocks.astype(np.float32), levels=(0.0, 1.0), cmap=colors.diff_colormap(),
                         extent=(cols, rows), colorbar_ticks=ticks, pool=Pool.MAX, mask=blocks, marks=marks,
                         hover=self._diff_hover(reference, view))

    # ------------------------------------------------------------------ hover texts

    @staticmethod
    def _cell_hover(title, view, index_of):
        rows, cols = view.shape

        def hover(x: float, y: float):
            r, c = math.floor(y + 0.5), math.floor(x + 0.5)
            if 0 <= r < rows and 0 <= c < cols:
                return f"{title} {list(index_of(r, c))} = {format_value(view[r, c])}"
            return None

        return hover

    @staticmethod
    def _block_hover(title, view, index_of, steps, picture, part_index, mode):
        """Hover for a refined heat map, whose pixel (br, bc) stands for the block of rows
        ``br*steps[0] ...`` and columns ``bc*steps[1] ...``: the block's index range, its
        minimum and maximum (exact for bool/int/float, the drawn float32 part for complex;
        NaN ignored), and the index and exact value of the element whose colour is drawn."""
        rows, cols = view.shape
        step_r, step_c = steps

        def hover(x: float, y: float):
            r, c = math.floor(y + 0.5), math.floor(x + 0.5)
            if not (0 <= r < rows and 0 <= c < cols):
                return None
            r0, c0 = r - r % step_r, c - c % step_c
            r1, c1 = min(rows, r0 + step_r) - 1, min(cols, c0 + step_c) - 1
            block = view[r0 : r1 + 1, c0 : c1 + 1]
            drawn_as = display_part(block, part_index, mode)
            drawn = picture[r0 // step_r, c0 // step_c]
            span = ", ".join(str(a) if a == b else f"{a}..{b}"
                             for a, b in zip(index_of(r0, c0), index_of(r1, c1), strict=True))
            missing = np.isnan(drawn_as)
            if np.isnan(drawn) or missing.all():
                return f"{title} [{span}]: all NaN"
            with np.errstate(invalid="ignore"):  # inf - inf; the drawn element is at distance 0
                distance = np.where(drawn_as == drawn, 0.0, np.abs(drawn_as.astype(np.float64) - drawn))
            i, j = divmod(int(np.nanargmin(np.where(missing, np.inf, distance))), drawn_as.shape[1])
            where = f"drawn {list(index_of(r0 + i, c0 + j))} = {format_value(view[r0 + i, c0 + j])}"
            exact = drawn_as if part_index is not None else (
                block if block.dtype.kind in "biuf" else block.astype(np.float32))
            if exact.dtype.kind == "f":
                lo, hi = np.nanmin(exact), np.nanmax(exact)
            else:
                lo, hi = exact.min(), exact.max()
            return f"{title} [{span}]: min {format_value(lo)}, max {format_value(hi)}; {where}"

        return hover

    @staticmethod
    def _vector_hover(title, vector, index_of):
        n = vector.shape[0]

        def hover(x: float, y: float):
            i = int(round(x))
            if 0 <= i < n:
                return f"{title} [{i}] = {format_value(vector[i])}"
            return None

        return hover

    @staticmethod
    def _diff_hover(reference, view):
        def hover(x: float, y: float):
            if view.ndim == 1:
                key = (int(round(x)),)
            else:
                key = (math.floor(y + 0.5), math.floor(x + 0.5))
            if all(0 <= k < s for k, s in zip(key, view.shape, strict=True)):
                a, b = format_value(reference[key]), format_value(view[key])
                mark = "changed" if a != b else "same"
                return f"difference {list(key)}: pinned {a} → {b} ({mark})"
            return None

        return hover

    # ------------------------------------------------------------------ slots

    def _on_hover(self, text: str) -> None:
        self.hover_label.setText(text)
        self.hoverChanged.emit(text)

    def _on_envelopes(self, generation: int, result) -> None:
        if isinstance(result, Exception):
            self.hover_label.setText(f"plot failed: {result}")
            return
        self._envelopes_in_flight = frozenset()
        self._envelopes.update(result)
        self._refresh_views()

    def _submit_envelopes(self) -> None:
        """Start (or restart) the background envelopes for the vectors now on screen."""
        shown = {id(t.array) for t in (self.current, self.pinned) if t is not None}
        self._envelopes = {k: v for k, v in self._envelopes.items() if k in shown}
        pending = {k: v for k, v in self._pending_envelopes.items() if k in shown and k not in self._envelopes}
        self._pending_envelopes = {}
        if pending and not set(pending) <= self._envelopes_in_flight:
            self._envelopes_in_flight = frozenset(pending)
            self._envelope_job.submit(lambda: {k: (v,) + downsample_1d(v) for k, v in pending.items()})
        elif not pending and self._envelopes_in_flight:
            self._envelope_job.cancel()
            self._envelopes_in_flight = frozenset()

    def _submit_peaks(self) -> None:
        """Start (or restart) the background peak-preserving pictures of the downsampled
        heat maps now on screen; forget those no longer shown; cancel a job that is only
        computing pictures no longer wanted (its result would be dropped anyway)."""
        shown = self._peaks_shown
        self._peaks = {k: v for k, v in self._peaks.items() if k in shown}
        pending = {k: v for k, v in self._pending_peaks.items() if k in shown and k not in self._peaks}
        self._pending_peaks = {}
        if pending and not set(pending) <= self._peaks_in_flight:
            self._peaks_failed = False
            self._peaks_in_flight = frozenset(pending)
            self._peak_job.submit(_compute_peaks, pending, self.max_display, cancellable=True)
        elif not pending and self._peaks_in_flight:
            self._peak_job.cancel()
            self._peaks_in_flight = frozenset()

    def _on_peaks(self, generation: int, result) -> None:
        self._peaks_in_flight = frozenset()
        if isinstance(result, Exception):
            self._peaks_failed = True
            self._refresh_views()
            self.hover_label.setText(f"refining the picture failed: {result}")
            return
        if result is None:  # cancelled (not normally delivered: a newer job superseded it)
            return
        wanted = {k: v for k, v in result.items() if k in self._peaks_shown and k not in self._peaks}
        if not wanted:  # every picture is of a slice no longer shown
            return
        self._peaks.update(wanted)
        self._refresh_views()
        self.pictureRefined.emit()

    def _on_difference(self, generation: int, result) -> None:
        if isinstance(result, Exception):
            self.hover_label.setText(f"difference failed: {result}")
            return
        self._diff_result = result
        if not self._show_difference_only():
            self._refresh_views()
        self.differenceReady.emit(int(result[2]))

    def _show_difference_only(self) -> bool:
        """Put a finished background difference into the panel that waits for it, leaving
        the other panels and the table as they are (rebuilding them all took as long again
        on two 1e8 tensors). False when there is no such panel (the caller refreshes all)."""
        waiting = [i for i, p in enumerate(self.picture.panels) if p.spec.pending]
        if len(waiting) != 1 or self.pinned is None or self.current is None:
            return False
        reference, _ = self._pinned_view()
        view = self.current_view()
        if reference.shape != view.shape:
            return False
        spec = self._diff_spec(reference, view)
        if spec.pending:  # the result is for another slice than the one shown
            return False
        spec.row = self.picture.panels[waiting[0]].spec.row
        self.picture.update_panel(waiting[0], spec)
        return True

    def wait_for_background(self, msecs: int = 30000) -> bool:
        """Block until statistics, difference, plot, picture and save jobs are done (tests and
        scripts). A finished job's result is delivered by the event loop afterwards."""
        return (self._stats.wait(msecs) and self._diff_job.wait(msecs) and self._envelope_job.wait(msecs)
                and self._peak_job.wait(msecs) and self._save_job.wait(msecs))

    def _on_saved(self, generation: int, result) -> None:
        path, self._saving = self._saving, None
        if isinstance(result, Exception):
            self.status_label.setText(f"could not save {path.name}")
            if self.isVisible():
                QtWidgets.QMessageBox.warning(self, "Save tensor", f"Could not save {path}:\n{result}")
            self.saved.emit(str(path), result)
            return
        self.status_label.setText(f"saved {path.name}")
        self.saved.emit(str(path), None)

    def _on_stats(self, generation: int, stats) -> None:
        if generation != self._stats.generation:  # a newer tensor has been set since
            return
        if isinstance(stats, Exception):
            self.stats_label.setText(f"statistics failed: {stats}")
            return
        self.stats = stats
        self.stats_label.setText(stats.describe())
        view = self.current_view() if self.current is not None else None
        if self._stats_say_constant() and view is not None and view.ndim == 2 and max(view.shape) > self.max_display:
            self._refresh_views()   # a large slice seen constant only now: draw it as one value
        self.statsReady.emit(stats)

    def _update_buttons(self) -> None:
        self.pin_button.setEnabled(self.current is not None)
        self.unpin_button.setEnabled(self.pinned is not None)
        self.save_button.setEnabled(self.current is not None)
        shown = [t for t in (self.current, self.pinned) if t is not None]
        self.complex_combo.setVisible(any(dtype_kind(t.array.dtype) == COMPLEX for t in shown))
        if self.pinned is not None:
            p = self.pinned
            self.pinned_label.setText(f"pinned: {p.name}   {p.array.dtype}   shape {tuple(p.array.shape)}")
        self.pinned_label.setVisible(self.pinned is not None)

    def _save_dialog(self) -> None:
        if self.current is None:
            return
        default = f"{self.current.name or 'tensor'}.npy"
        path, chosen = QtWidgets.QFileDialog.getSaveFileName(self, "Save tensor", default, saving.FILE_FILTER)
        if not path:
            return
        if Path(path).suffix.lower() not in saving.SUFFIXES:
            path += "." + chosen.split("*.")[-1].rstrip(")")
        try:
            self.save_tensor(path, background=True)
        except Exception as exc:  # noqa: BLE001 - a failed save is reported, never a crash
            QtWidgets.QMessageBox.warning(self, "Save tensor", f"Could not save {path}:\n{exc}")

    def shutdown(self) -> None:
        """Stop the background jobs (statistics, pictures, differences) and wait for them,
        and for a CSV save to finish (never leave a file half written). Called when the viewer
        or the window holding it closes: a job still running in a Qt pool thread while the
        interpreter shuts down can crash the process."""
        for job in (self._stats, self._diff_job, self._envelope_job, self._peak_job):
            job.cancel()
        for job in (self._stats, self._diff_job, self._envelope_job, self._peak_job):
            job.wait(5000)
        self._save_job.wait(-1 if self._saving is not None else 5000)

    def closeEvent(self, event) -> None:
        self.shutdown()
        super().closeEvent(event)


def _compute_peaks(jobs: dict, max_display: int, cancelled=None) -> dict | None:
    """Background job: ``{key: (view, peak picture)}`` for ``{key: (view, part_index,
    mode)}``; None when ``cancelled()`` turned True (polled between tiles)."""
    out = {}
    for key, (view, part_index, mode) in jobs.items():
        result = peak_downsample_2d(view, max_display, part_index, mode, cancelled=cancelled)
        if result is None:
            return None
        out[key] = (view, result[0])
    return out


#: A difference picture of more cells than this rings the changed cells, which would
#: otherwise be a pixel or two wide on screen.
RING_MIN_CELLS = 64 * 64
#: With more changed blocks than this the picture itself shows where they are.
MAX_RINGS = 500


def _ring_marks(blocks: np.ndarray, steps: tuple[int, int]) -> tuple[np.ndarray, np.ndarray] | None:
    """(rows, cols) centres, in original index units, of the changed blocks of a pooled
    difference mask; None when there are none or too many to ring."""
    r, c = np.nonzero(blocks)
    if r.size == 0 or r.size > MAX_RINGS:
        return None
    return r * steps[0] + (steps[0] - 1) / 2.0, c * steps[1] + (steps[1] - 1) / 2.0
