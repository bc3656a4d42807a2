"""Tensor statistics off the UI thread.

``StatsComputer.request(array)`` returns a generation number. Small tensors are summarised
at once; large ones on a one-thread pool (:class:`~.background.BackgroundCall`), in chunks
(``slicing.tensor_stats``). ``ready(generation, stats)`` is emitted on the UI thread; a newer
request makes older workers stop between chunks, and their results are never emitted.
"""
from __future__ import annotations

import numpy as np
from PySide6 import QtCore

from .background import BackgroundCall
from .slicing import tensor_stats

#: Tensors with more elements than this are summarised in the background.
BACKGROUND_THRESHOLD = 1 << 20


class StatsComputer(BackgroundCall):
    """Computes ``TensorStats`` for the latest requested tensor only."""

    ready = QtCore.Signal(int, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.finished.connect(self.ready.emit)

    def request(self, array: np.ndarray | None) -> int:
        """Start summarising ``array``; returns its generation. None cancels only."""
        if array is None:
            return self.cancel()
        if array.size <= BACKGROUND_THRESHOLD:
            generation = self.cancel()
            self.ready.emit(generation, tensor_stats(array))
            return generation
        return self.submit(tensor_stats, array, cancellable=True)
