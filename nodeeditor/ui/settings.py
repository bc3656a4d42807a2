"""Where the editor keeps its state: QSettings (window layout, recent files, last folder)
and a state folder (recovery files, the error log).

Both follow ``INDEXFLOW_STATE_DIR`` when it is set (tests point it at a temporary folder);
otherwise QSettings uses the organisation/application names below and the folder is
``QStandardPaths.AppDataLocation``.
"""
from __future__ import annotations

import os
from pathlib import Path

from PySide6 import QtCore

from ops import config

ORGANISATION = "IndexFlow"
APPLICATION = "IndexFlow"
MAX_RECENT = 8


def state_dir() -> Path:
    """The folder for recovery files and the log (created on demand)."""
    override = config.state_dir()
    if override is not None:
        path = override
    else:
        location = QtCore.QStandardPaths.writableLocation(QtCore.QStandardPaths.StandardLocation.AppDataLocation)
        path = Path(location or Path.home() / ".indexflow")
    path.mkdir(parents=True, exist_ok=True)
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
