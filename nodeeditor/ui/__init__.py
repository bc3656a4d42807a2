"""The ui layer: PySide6 windows, canvas, docks. The only layer that imports Qt.

Module map: ``app`` (entry points), ``main_window`` (menus, docks, wiring), ``canvas``
(scene mirroring the Graph, items, view), ``blocks`` (what can be added), ``palette``,
``quick_add``, ``properties``, ``commands`` (undo), ``clipboard``, ``layout``, ``runner``
(engine off the UI thread), ``files`` (open/save/recent/recovery), ``export_dialog``,
``errors`` (excepthook dialog), ``settings`` (QSettings and state folder), ``viewer``.
"""
from .viewer._refcount_guard import immortalize_singletons

# PySide6 6.12 on Python 3.11 drops references to None/True (see viewer/_refcount_guard.py);
# the whole ui layer needs the guard, not only the viewer.
immortalize_singletons()
