"""Suite-wide settings: Qt runs offscreen so a plain `pytest` works without a display."""
import os

# A 1920x1080 desktop screen (Qt's offscreen default is 800x800, smaller than the editor's
# window, which sizes itself to the screen): tests see what a desktop user sees.
_SCREEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "offscreen_screen.json")
if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_SCREEN}"


def pytest_sessionfinish(session, exitstatus):
    """Take Qt down in order while the interpreter is still whole: delete every top-level
    window left (without close(), which could ask to save; a QThreadPool waits for its jobs
    when deleted), deliver the deferred deletes, and wait for Qt's global pool. Left to
    interpreter teardown, Qt objects go in arbitrary order; two fresh-clone CI runs ended in a
    segmentation fault there, after every test had passed."""
    import sys

    if "PySide6" not in sys.modules:
        return
    from PySide6 import QtCore, QtWidgets

    app = QtWidgets.QApplication.instance()
    if app is None:
        return
    for widget in app.topLevelWidgets():
        widget.hide()
        widget.deleteLater()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    QtCore.QThreadPool.globalInstance().waitForDone(5000)
