"""Tensor viewer: a reusable widget that shows any tensor as a picture and as exact numbers.

Public API:
- ``TensorViewer(parent=None, max_display=1024)`` (QWidget):
  ``set_tensor(name, array, subtitle="")``, ``pin()``, ``unpin()``, ``save_tensor(path, background=False)``,
  ``set_complex_mode("real_imag" | "mag_phase")``, ``current_view()``,
  ``current_index(row, col)``, ``wait_for_background()``; signals ``tensorChanged(str)``,
  ``statsReady(object)``, ``hoverChanged(str)``, ``pinChanged(bool)``,
  ``differenceReady(int)``, ``saved(str, object)`` (a background CSV save finished),
  ``pictureRefined()`` (a downsampled heat map was replaced by its peak-preserving picture,
  computed in the background: each block drawn as its min or max, whichever lies farther from
  the block's mean, so one written cell in 1e8 is still drawn).
- ``thumbnail(array, width, height) -> QImage``: a small preview for canvas nodes.
- ``TensorStats`` / ``tensor_stats``: chunked statistics (also usable without a widget).

Module map: ``slicing`` (pure numpy: slices, downsampling, stats, differences, exact text),
``colors``, ``panels`` (pyqtgraph items and the picture area), ``controls`` (axis/slider
controls), ``table`` (lazy, windowed model), ``stats_worker`` and ``background`` (work off
the UI thread, newest result wins), ``saving``, ``thumbnail``, ``viewer``.
"""
from ._refcount_guard import immortalize_singletons

immortalize_singletons()  # PySide6 6.12 on Python 3.11 drops refs to None/True (see module)

# E402: the guard runs before the viewer makes its first Qt calls
from .slicing import TensorStats, tensor_stats  # noqa: E402
from .thumbnail import thumbnail  # noqa: E402
from .viewer import TensorViewer  # noqa: E402

__all__ = ["TensorViewer", "TensorStats", "tensor_stats", "thumbnail"]
