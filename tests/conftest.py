"""Suite-wide settings: Qt runs offscreen so a plain `pytest` works without a display."""
import os

# A 1920x1080 desktop screen (Qt's offscreen default is 800x800, smaller than the editor's
# window, which sizes itself to the screen): tests see what a desktop user sees.
_SCREEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "offscreen_screen.json")
if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_SCREEN}"


def pytest_sessionfinish(session, exitstatus):
    """Stop every background job while the interpreter and Qt are still whole (a Qt pool
    thread still running Python during interpreter teardown can crash the process). Only
    the objects that registered themselves are touched (``nodeeditor.ui.lifecycle``):
    walking ``QApplication.allWidgets()`` here crashed a CI run, and deleting windows from
    C++ crashed a later import."""
    import sys

    lifecycle = sys.modules.get("nodeeditor.ui.lifecycle")
    if lifecycle is not None:
        lifecycle.shutdown_all()
