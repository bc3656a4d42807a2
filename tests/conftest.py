"""Suite-wide settings: Qt runs offscreen so a plain `pytest` works without a display."""
import os

# A 1920x1080 desktop screen (Qt's offscreen default is 800x800, smaller than the editor's
# window, which sizes itself to the screen): tests see what a desktop user sees.
_SCREEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "offscreen_screen.json")
if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_SCREEN}"


def pytest_sessionfinish(session, exitstatus):
    """Stop Qt's background work while the interpreter is still whole: every tensor viewer
    still alive stops and waits for its pool jobs, and Qt's global pool drains. Left to
    interpreter teardown, a pool thread running Python can crash the process (two fresh-clone
    CI runs ended in a segmentation fault after every test had passed). Windows are not
    deleted here: deleting Python-owned widgets from C++ crashed a later import."""
    import sys

    if "PySide6" not in sys.modules:
        return
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance()
    if app is None:
        return
    from nodeeditor.ui.viewer import TensorViewer

    for widget in app.allWidgets():
        if isinstance(widget, TensorViewer):
            widget.shutdown()
    QtCore.QThreadPool.globalInstance().waitForDone(5000)
