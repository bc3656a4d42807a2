"""Entry points: ``run_app(path)`` for the ``indexflow`` command, ``start_window(path)`` for
what it does before the event loop, and ``create_main_window`` for tests and scripts."""
from __future__ import annotations

import gc
import logging
import sys
from pathlib import Path

from PySide6 import QtCore, QtWidgets

import nodeeditor.onnx_io  # noqa: F401 - registers the runtime of foreign ONNX ops with the graph layer
from nodeeditor.graph import GraphArgumentError, default_example, resolve_graph_argument

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
        try:
            target = resolve_graph_argument(path)
        except GraphArgumentError as exc:
            window.files.report_not_opened(str(exc))
        else:
            if target.example is not None:
                window.files.open_example(target.example)
            else:
                window.files.open_path(target.path, ask=False)
    return window


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
    code = app.exec()
    tear_down_windows(app)
    return code


def tear_down_windows(app: QtWidgets.QApplication) -> None:
    """Destroy every top-level widget while the QApplication still exists, each graphics
    scene emptied first. A scene destroyed inside its view's destructor deletes pyqtgraph's
    QGraphicsWidgets in an order that can crash (QGraphicsScene::clear from
    ~QGraphicsScene, seen about once in twenty exits when the interpreter's shutdown did it,
    three times in four when the windows were deleted with their scenes full)."""
    views: list[QtWidgets.QGraphicsView] = []
    for widget in app.topLevelWidgets():
        try:
            views += widget.findChildren(QtWidgets.QGraphicsView)
        except RuntimeError:   # already deleted with its parent
            continue
    for view in views:
        scene = view.scene()
        if scene is not None:
            scene.clear()
    for widget in app.topLevelWidgets():
        widget.deleteLater()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    gc.collect()
