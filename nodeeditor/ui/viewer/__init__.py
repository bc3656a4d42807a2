"""Tensor viewer: a reusable widget that shows any tensor as a picture and as exact numbers.

Public API:
- ``TensorViewer`` (QWidget): ``set_tensor(name, array, subtitle="")``, ``pin()``,
  ``unpin()``, ``save_tensor(path)``, ``set_complex_mode(mode)``; signals
  ``tensorChanged(str)``, ``statsReady(object)``, ``hoverChanged(str)``, ``pinChanged(bool)``.
- ``thumbnail(array, width, height) -> QImage``: a small preview for canvas nodes.
- ``TensorStats`` / ``tensor_stats``: chunked statistics (also usable without a widget).

Module map: ``slicing`` (pure numpy: slices, downsampling, stats, exact text), ``colors``,
``panels`` (pyqtgraph items), ``controls`` (axis/slider controls), ``table`` (lazy model),
``stats_worker`` (background statistics), ``saving``, ``thumbnail``, ``viewer``.
"""
from .slicing import TensorStats, tensor_stats
from .thumbnail import thumbnail
from .viewer import TensorViewer

__all__ = ["TensorViewer", "TensorStats", "tensor_stats", "thumbnail"]
