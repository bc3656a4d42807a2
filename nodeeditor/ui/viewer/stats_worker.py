"""Tensor statistics off the UI thread.

``StatsComputer.request(array)`` returns a generation number. Small tensors are summarised
at once; large ones on a private one-thread QThreadPool, in chunks (``slicing.tensor_stats``).
``ready(generation, stats)`` is emitted on the UI thread; a newer request makes older
workers stop between chunks, and their results are never emitted.
"""
from __future__ import annotations

import threading

import numpy as np
from PySide6 import QtCore

from .slicing import TensorStats, tensor_stats

#: Tensors with more elements than this are summarised in the background.
BACKGROUND_THRESHOLD = 1 << 20


class _Relay(QtCore.QObject):
    finished = QtCore.Signal(int, object)


class _StatsTask(QtCore.QRunnable):
    def __init__(self, array: np.ndarray, generation: int, owner: "StatsComputer"):
        super().__init__()
        self.setAutoDelete(True)
        self._array = array
        self._generation = generation
        self._owner = owner
        self._relay = owner._relay  # keep the relay alive while the task runs

    def run(self) -> None:
        stale = lambda: self._owner.generation != self._generation  # noqa: E731
        try:
            stats = tensor_stats(self._array, cancelled=stale)
        except Exception as exc:  # never let a worker exception vanish silently
            stats = exc
        self._array = None
        if stats is not None and not stale():
            self._relay.finished.emit(self._generation, stats)


class StatsComputer(QtCore.QObject):
    """Computes ``TensorStats`` for the latest requested tensor only."""

    ready = QtCore.Signal(int, object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.generation = 0
        self._lock = threading.Lock()
        self._relay = _Relay()
        self._relay.finished.connect(self._on_finished, QtCore.Qt.ConnectionType.QueuedConnection)
        self.pool = QtCore.QThreadPool()
        self.pool.setMaxThreadCount(1)

    def request(self, array: np.ndarray | None) -> int:
        """Start summarising ``array``; returns its generation. None cancels only."""
        with self._lock:
            self.generation += 1
            generation = self.generation
        if array is None:
            return generation
        if array.size <= BACKGROUND_THRESHOLD:
            self.ready.emit(generation, tensor_stats(array))
        else:
            self.pool.start(_StatsTask(array, generation, self))
        return generation

    def cancel(self) -> None:
        with self._lock:
            self.generation += 1

    def wait(self, msecs: int = 30000) -> bool:
        return self.pool.waitForDone(msecs)

    def _on_finished(self, generation: int, stats: TensorStats | Exception) -> None:
        if generation == self.generation:
            self.ready.emit(generation, stats)
