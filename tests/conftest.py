"""Suite-wide settings: Qt runs offscreen so a plain `pytest` works without a display."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
