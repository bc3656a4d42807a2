"""Reading a file without freezing the window: :func:`read_off_ui_thread`.

Contract: ``read(path)`` runs on a worker thread. A read that ends within ``QUICK_SECONDS``
returns as if it had run on the UI thread (no dialog, no event loop). A longer one shows a
window-modal progress dialog ("Reading model.onnx…", busy indicator, Cancel) and runs a
local event loop, so the window keeps repainting while the file is read; the caller still
gets the result (or the exception ``read`` raised) when the function returns. Cancel raises
:class:`ReadCancelledError` at once; the worker finishes on its own and its result is dropped.
``read`` must not touch Qt (graph files and ONNX import do not).
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from PySide6 import QtCore, QtWidgets

T = TypeVar("T")

#: A read that ends within this many seconds shows no dialog.
QUICK_SECONDS = 0.25
#: How often the local event loop looks whether the worker is done.
POLL_MS = 20


class ReadCancelledError(Exception):
    """The person cancelled the read (nothing was opened)."""


def read_off_ui_thread(read: Callable[[Path], T], path: Path, parent: QtWidgets.QWidget | None) -> T:
    """``read(path)``, with the window responsive meanwhile (see the module docstring)."""
    box: dict[str, object] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = read(path)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller on the UI thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=work, name=f"indexflow-read-{path.name}", daemon=True).start()
    if not done.wait(QUICK_SECONDS):
        _wait_with_dialog(done, path, parent)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


def _wait_with_dialog(done: threading.Event, path: Path, parent: QtWidgets.QWidget | None) -> None:
    dialog = QtWidgets.QProgressDialog(f"Reading {path.name}…", "Cancel", 0, 0, parent)
    dialog.setObjectName("readingDialog")
    dialog.setWindowTitle("Opening")
    dialog.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    dialog.setAutoClose(False)
    dialog.setAutoReset(False)
    loop = QtCore.QEventLoop()
    cancelled = []
    timer = QtCore.QTimer()
    timer.setInterval(POLL_MS)
    timer.timeout.connect(lambda: loop.quit() if done.is_set() else None)
    dialog.canceled.connect(lambda: (cancelled.append(True), loop.quit()))
    timer.start()
    dialog.show()
    try:
        if not done.is_set():
            loop.exec()
    finally:
        timer.stop()
        dialog.canceled.disconnect()
        dialog.close()
        dialog.deleteLater()
    if cancelled and not done.is_set():
        raise ReadCancelledError(f"opening {path.name} was cancelled")
