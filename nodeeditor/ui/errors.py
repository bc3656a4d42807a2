"""Unexpected errors: a dialog with the message and expandable details, a log entry, and
the app keeps running (``install_excepthook``). Tests replace ``show_error`` to see what
would have been shown."""
from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

from PySide6 import QtCore, QtWidgets

log = logging.getLogger("indexflow.ui")
_showing = False
shown: list[tuple[str, str]] = []   # (message, details) of every reported error, newest last


def show_error(parent: QtWidgets.QWidget | None, title: str, message: str, details: str) -> None:
    """A non-blocking message box; ``details`` sits behind "Show Details..."."""
    box = QtWidgets.QMessageBox(parent)
    box.setIcon(QtWidgets.QMessageBox.Icon.Critical)
    box.setWindowTitle(title)
    box.setText(message)
    box.setInformativeText("IndexFlow keeps running; the details were written to the log.")
    box.setDetailedText(details)
    box.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()


def report_exception(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None,
                     parent: QtWidgets.QWidget | None = None) -> None:
    """Log the exception and show it (never raises)."""
    global _showing
    details = "".join(traceback.format_exception(exc_type, exc, tb))
    message = f"{exc_type.__name__}: {exc}"
    log.error("unexpected error\n%s", details)
    shown.append((message, details))
    if _showing:
        return
    _showing = True
    try:
        show_error(parent, "Unexpected error", f"Something went wrong: {message}", details)
    except Exception:  # pragma: no cover - the dialog itself failed; the log has it
        log.exception("cannot show the error dialog")
    finally:
        _showing = False


def install_excepthook(parent_getter=lambda: None, log_path=None) -> None:
    """Route uncaught exceptions (including those raised in Qt slots and virtuals) to
    ``report_exception``; KeyboardInterrupt keeps its default behaviour."""
    if log_path is not None and not any(isinstance(h, logging.FileHandler) for h in log.handlers):
        handler = logging.FileHandler(log_path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        log.addHandler(handler)

    def hook(exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        report_exception(exc_type, exc, tb, parent_getter())

    sys.excepthook = hook
