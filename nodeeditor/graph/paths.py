"""Relative file-source paths: what folder they are relative to, and moving them to another.

A FileSource path that is not absolute is relative to the folder of the graph's file. A graph
never saved has no folder: its relative paths were typed for wherever it will be saved, so
Save keeps them as they are and they become relative to that first folder. Save As to another
folder, undo of an edit made before it, restoring a deleted node, and pasting from another
graph all re-express a path for the graph's folder now with :func:`rebase_path`.
"""
from __future__ import annotations

import os
from pathlib import Path


def rebase_path(path: str, old_folder: Path | str | None, new_folder: Path | str | None) -> str:
    """``path``, relative to ``old_folder``, re-expressed relative to ``new_folder`` so that it
    names the same file. Absolute and empty paths, and any path when either folder is None,
    stay as they are. Only the folders are resolved (symbolic links in them followed); the
    file's own name is kept, so a link ``current.npy -> v3.npy`` stays ``current.npy``."""
    if not path or Path(path).is_absolute() or old_folder is None or new_folder is None:
        return path
    old, new = Path(old_folder).resolve(), Path(new_folder).resolve()
    if old == new:
        return path
    target = os.path.normpath(os.path.join(old, path))
    try:
        return os.path.relpath(target, new)
    except ValueError:  # another drive (Windows): keep it absolute
        return target
