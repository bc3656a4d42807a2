"""Entry points: ``run_app(path)`` for the ``indexflow`` command, ``start_window(path)`` for
what it does before the event loop, and ``create_main_window`` for tests and scripts."""
from __future__ import annotations

import logging
import sys
from pathlib import Path

from PySide6 import QtWidgets

from nodeeditor.graph import default_example

from . import lifecycle
from . import settings as S
from .errors import install_excepthook
from .main_window import MainWindow


def ensure_application() -> QtWidgets.QApplication:
    app = QtWidgets.QApplication.instance()
    if app is None:
        app = QtWidgets.QApplication(sys.argv[:1])
    app.setOrganizationName(S.ORGANISATION)
    app.setApplicationName(S.APPLICATION)
    app.setApplicationDisplayName("IndexFlow")
    return app


def create_main_window(path: str | Path | None = None) -> MainWindow:
    """A main window showing ``path`` (a graph file, an ``.onnx`` model, or the name of a
    bundled example, like ``indexflow run``) or the default example. A file that cannot be
    opened leaves the default example and shows why."""
    ensure_application()
    window = MainWindow(default_example())
    if path is not None:
        if not Path(path).exists() and isinstance(path, str) and _is_example(path):
            window.files.open_example(path)
        elif not Path(path).exists() and isinstance(path, str) and Path(path).name == path and "." not in path:
            from nodeeditor.graph.examples import example_suggestion  # a bare name: an example, mistyped

            message = f"{path}: no such file, and no bundled example has that name{example_suggestion(str(path))}"
            window.files.report_not_opened(message)
        else:
            window.files.open_path(path, ask=False)
    return window


def _is_example(name: str) -> bool:
    try:
        from nodeeditor.graph.examples import is_example
    except ImportError:  # an older graph layer
        return False
    return is_example(name)


def start_window(path: str | Path | None = None) -> MainWindow:
    """The shown main window on ``path`` (see ``create_main_window``), after offering what a
    crashed session left: with no path, the newest unsaved graph; with a path, only unsaved
    work on that same file (``FileController.offer_recovery``)."""
    window = create_main_window(path)
    window.show()
    window.files.offer_recovery(for_path=path)
    return window


def run_app(path: str | None = None) -> int:
    """Start the editor; returns the exit code."""
    app = ensure_application()
    logging.basicConfig(level=logging.INFO)
    window = None
    install_excepthook(lambda: window, S.state_dir() / "indexflow.log")
    window = start_window(path)
    app.aboutToQuit.connect(lifecycle.shutdown_all)  # no background job outlives the loop
    return app.exec()
