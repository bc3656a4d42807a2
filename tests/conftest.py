"""Suite-wide settings: Qt runs offscreen so a plain `pytest` works without a display."""
import os

# A 1920x1080 desktop screen (Qt's offscreen default is 800x800, smaller than the editor's
# window, which sizes itself to the screen): tests see what a desktop user sees.
_SCREEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "offscreen_screen.json")
if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={_SCREEN}"
