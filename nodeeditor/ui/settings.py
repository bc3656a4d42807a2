"""Where the editor keeps its state: QSettings (window layout, recent files, last folder)
and a state folder (recovery files, the error log).

Both follow ``INDEXFLOW_STATE_DIR`` when it is set (tests point it at a temporary folder);
otherwise QSettings uses the organisation/application names below and the folder is
``QStandardPaths.AppDataLocation``.
"""
from __future__ import annotations

import os
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from ops import config

ORGANISATION = "IndexFlow"
APPLICATION = "IndexFlow"
MAX_RECENT = 8


def state_dir() -> Path:
    """The folder for recovery files and the log (created on demand). ConfigError (one line
    from ``indexflow``) when ``INDEXFLOW_STATE_DIR`` names what cannot be that folder (a
    file, a place that cannot be written)."""
    override = config.state_dir()
    if override is not None:
        path = override
    else:
        location = QtCore.QStandardPaths.writableLocation(QtCore.QStandardPaths.StandardLocation.AppDataLocation)
        path = Path(location or Path.home() / ".indexflow")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        if override is None:
            raise
        raise config.ConfigError(f"environment variable {config.STATE_DIR.name}={str(override)!r} cannot be the "
                                 f"editor's folder: {exc.strerror or exc}") from None
    return path


def settings() -> QtCore.QSettings:
    """The editor's QSettings."""
    override = config.state_dir()
    if override is not None:
        return QtCore.QSettings(str(override / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    return QtCore.QSettings(ORGANISATION, APPLICATION)


def recent_files() -> list[str]:
    value = settings().value("recent_files", [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in (value or [])]


def add_recent_file(path: str | os.PathLike) -> list[str]:
    path = str(Path(path).resolve())
    files = [path] + [f for f in recent_files() if f != path]
    files = files[:MAX_RECENT]
    settings().setValue("recent_files", files)
    return files


def last_directory() -> str:
    return str(settings().value("last_directory", "") or "")


def set_last_directory(path: str | os.PathLike) -> None:
    p = Path(path)
    settings().setValue("last_directory", str(p if p.is_dir() else p.parent))


def save_window_layout(window: QtWidgets.QMainWindow, previews: bool) -> None:
    """Remember ``window``'s geometry, its docks and whether inline previews are shown."""
    s = settings()
    s.setValue("window/geometry", window.saveGeometry())
    s.setValue("window/state", window.saveState())
    s.setValue("view/previews", "true" if previews else "false")
    s.sync()


def restore_window_layout(window: QtWidgets.QMainWindow) -> bool:
    """Give ``window`` the geometry and docks :func:`save_window_layout` remembered (nothing
    on a first start); returns whether inline previews were shown."""
    s = settings()
    geometry = s.value("window/geometry")
    state = s.value("window/state")
    if geometry is not None:
        window.restoreGeometry(geometry)
    if state is not None:
        window.restoreState(state)
    return str(s.value("view/previews", "false")).lower() == "true"
