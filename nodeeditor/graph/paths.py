"""File-source paths: what folder they are relative to, moving them to another, and which
files a graph may read (:class:`FileScope`).

A FileSource path that is not absolute is relative to the folder of the graph's file. A graph
never saved has no folder: its relative paths were typed for wherever it will be saved, so
Save keeps them as they are and they become relative to that first folder. Save As to another
folder, undo of an edit made before it, restoring a deleted node, and pasting from another
graph all re-express a path for the graph's folder now with :func:`rebase_path`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
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


# ---------------------------------------------------------------------- which files may be read
#: The command-line switch that allows files outside a graph's folder, and its help text.
OUTSIDE_FLAG = "--allow-outside-files"
OUTSIDE_HELP = ("let file sources read files outside the graph's folder (by default a graph file reads only files "
                "in its own folder, so a graph someone sends cannot read yours)")


@dataclass(frozen=True)
class FileScope:
    """Where a graph's file sources resolve and which files they may read: the one rule,
    :meth:`refusal`, that inference, the engine and the static checks all ask.

    The trust model is the one people know from notebooks and office macros: a graph someone
    sends may name any path, so a file outside the graph's ``folder`` loads only after the
    person who opened the graph allows it. ``outside_allowed`` allows every file (a graph
    made in this session, ``--allow-outside-files``, the editor's question answered yes);
    ``trusted_folders`` are other folders the graph lived in this session (Save As elsewhere
    keeps what was inside the old folder readable); ``allowed_files`` are files allowed one
    by one (chosen in the editor). A path is judged by its real target, symbolic links
    followed, so a link inside the folder to a file outside it is outside. The allowance is
    held by whoever opened the graph (the document in memory), never read from the file.
    """

    folder: Path | None = None
    outside_allowed: bool = True
    trusted_folders: frozenset[Path] = frozenset()
    allowed_files: frozenset[Path] = frozenset()

    def resolve(self, path: str) -> Path:
        """``path`` made absolute against ``folder`` (None: left relative to the working folder)."""
        p = Path(path)
        if not p.is_absolute() and self.folder is not None:
            p = Path(self.folder) / p
        return p

    def real(self, path: str) -> Path:
        """The file ``path`` names, symbolic links followed (nothing is opened)."""
        return Path(os.path.realpath(self.resolve(path)))

    def is_outside(self, path: str) -> bool:
        """Whether ``path`` names a file outside the graph's folder (and the trusted folders);
        a graph without a folder has nothing inside it."""
        real = self.real(path)
        for folder in ([self.folder] if self.folder is not None else []) + sorted(self.trusted_folders):
            root = os.path.realpath(folder)
            try:
                if os.path.commonpath([root, real]) == root:
                    return False
            except ValueError:  # another drive (Windows)
                continue
        return True

    def refusal(self, path: str) -> str | None:
        """Why ``path`` may not be read, or None when it may (see the class docstring)."""
        if self.outside_allowed or not self.is_outside(path) or self.real(path) in self.allowed_files:
            return None
        where = f"the graph's folder {self.folder}" if self.folder is not None else "a folder (the graph has none)"
        return (f"{path} is outside {where}; files outside it are read only when you allow them (the editor asks "
                f"when it opens the graph; on the command line add {OUTSIDE_FLAG})")
