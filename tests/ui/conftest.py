"""Fixtures for the editor tests: a state folder in tmp (QSettings, recovery, log), message
boxes that record instead of blocking, and a shown main window on a small test graph."""
from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _state_dir(tmp_path, monkeypatch):
    """Settings, recovery files and the log go to a temporary folder for every ui test."""
    monkeypatch.setenv("INDEXFLOW_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("INDEXFLOW_RECOVERY_MS", "600000")


@pytest.fixture(scope="session", autouse=True)
def _collect_garbage_only_between_tests():
    """The garbage collector runs only between ui tests, never in the middle of one.

    Each test leaves windows, scenes and items behind; collected at an arbitrary moment, their
    Qt objects are destroyed while the next test's evaluation thread is running, and two
    fresh-clone CI runs hung that way (the main thread blocked "Garbage-collecting" inside
    ``runner.wait``, the evaluation thread waiting for the GIL). The per-test fixture below
    collects once every background thread has stopped."""
    import gc

    gc.disable()
    yield
    gc.enable()


#: Every this many ui tests the garbage collection between tests is a full one; the others
#: collect the two young generations, which hold what the test itself made. A full collection
#: walks every object of the worker (0.15-0.19 s with 130,000 objects, after two files of ui
#: tests; more in a worker that ran other tests first): with one after every ui test, their
#: teardowns took 316 s of the suite's 914 s of test time.
FULL_COLLECTION_EVERY = 20
_tests_since_full = [0]


@pytest.fixture(autouse=True)
def _no_background_work_left(_collect_garbage_only_between_tests):
    """After each ui test, every background job it started has stopped (no thread of one
    test runs into the next, or into interpreter teardown), and then the garbage is
    collected, with no other thread running: the young generations after each test, every
    generation after every :data:`FULL_COLLECTION_EVERY` tests (older cycles wait there, still
    between tests)."""
    yield
    import gc

    from nodeeditor.ui import lifecycle

    lifecycle.shutdown_all()
    _tests_since_full[0] += 1
    if _tests_since_full[0] >= FULL_COLLECTION_EVERY:
        _tests_since_full[0] = 0
        gc.collect()
    else:
        gc.collect(1)


class Dialogs:
    """Replaces the QMessageBox static functions; records (kind, title, text) and answers
    questions with ``answer`` (default: Discard)."""

    def __init__(self):
        from PySide6 import QtWidgets

        self.calls: list[tuple[str, str, str]] = []
        self.answer = QtWidgets.QMessageBox.StandardButton.Discard

    def texts(self, kind=None):
        return [c[2] for c in self.calls if kind is None or c[0] == kind]


@pytest.fixture
def dialogs(monkeypatch):
    from PySide6 import QtWidgets

    d = Dialogs()
    MB = QtWidgets.QMessageBox

    def record(kind):
        def fn(parent, title, text, *args, **kwargs):
            d.calls.append((kind, title, text))
            return d.answer if kind == "question" else MB.StandardButton.Ok
        return staticmethod(fn)

    for kind in ("warning", "critical", "information", "question"):
        monkeypatch.setattr(MB, kind, record(kind))
    return d


def small_graph():
    """data float32[3, 4] and idx int64[2] literals, an unconnected Gather 'g', an output 'out'."""
    from nodeeditor.graph import Graph

    g = Graph(name="test graph")
    g.add_literal(np.arange(12, dtype=np.float32).reshape(3, 4), name="data", node_id="data", position=(0, 0))
    g.add_literal(np.array([2, 0], dtype=np.int64), name="idx", node_id="idx", position=(0, 160))
    g.add_operator("Gather", {"axis": 0}, node_id="g", position=(320, 60))
    g.add_output("out", node_id="out", position=(640, 60))
    return g


def _shown(qtbot, w):
    """Shows the main window ``w`` and waits for its first evaluation; afterwards (the
    generator's second step) drops its changes and stops its work."""
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w, timeout=20000)
    w.runner.wait()
    yield w
    w.discard_changes()
    w.runner.cancel()
    w.runner.wait()
    w.close()


@pytest.fixture
def window(qtbot, dialogs):
    """A shown main window on the default example (as the editor starts), evaluated."""
    from nodeeditor.ui.app import create_main_window

    yield from _shown(qtbot, create_main_window())


@pytest.fixture
def small(qtbot, dialogs):
    """A shown main window on ``small_graph()`` framed 1:1 (evaluated). Made on that graph
    rather than on the default example then switched: the example's evaluation and views
    cost a third of a window's making, for nothing here."""
    from nodeeditor.ui.app import ensure_application
    from nodeeditor.ui.main_window import MainWindow

    from .helpers import deliver_posted_events

    ensure_application()
    shown = _shown(qtbot, MainWindow(small_graph()))
    window = next(shown)
    deliver_posted_events()           # the opening frame (a zero-delay timer) before the 1:1 framing
    window.view.resetTransform()
    window.view.centerOn(360, 120)
    window.runner.wait()
    yield window
    next(shown, None)


@pytest.fixture
def viewer(qtbot):
    """A shown 900x650 TensorViewer; background jobs are waited for afterwards."""
    from nodeeditor.ui.viewer import TensorViewer

    widget = TensorViewer()
    qtbot.addWidget(widget)
    widget.resize(900, 650)
    widget.show()
    qtbot.waitExposed(widget, timeout=20000)
    yield widget
    widget.wait_for_background()


@pytest.fixture
def make_viewer(qtbot):
    """``make_viewer(width, height=650)``: a shown TensorViewer of that size (as many as a
    test needs); background jobs are waited for afterwards."""
    from nodeeditor.ui.viewer import TensorViewer

    made = []

    def make(width, height=650):
        widget = TensorViewer()
        qtbot.addWidget(widget)
        widget.resize(width, height)
        widget.show()
        qtbot.waitExposed(widget, timeout=20000)
        made.append(widget)
        return widget

    yield make
    for widget in made:
        widget.wait_for_background()
