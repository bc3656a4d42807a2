"""Atomic file replacement: readers see the old file or the new one, never a part.

Each file is written to a temporary file in the target's folder (so ``os.replace`` stays
atomic), synced, given the permissions the target has or a new file would get, and moved over
the target. Temporary names are short and their own, ``.ifg-<pid>-<random>.tmp``, whatever
the target is called (a target name at the file system's length limit still saves), and name
the writing process and the target: ``.ifg-<pid>-<tag>-<random>.tmp``, where the tag is a
short hash of the target's file name. A temporary left by a process that no longer runs (killed
mid-save) is an orphan of its target; :func:`sweep_orphans` removes a target's orphans (the
next save of that file does), and :mod:`.fileformat` may complete an interrupted save from one.

Used for graph files and their sidecars (:mod:`.fileformat`), ``indexflow run --output``
archives and ONNX models.
"""
from __future__ import annotations

import hashlib
import os
import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

#: Temporary files are ``.ifg-<pid>-<tag: 6 hex digits>-<6 random hex digits>.tmp``.
TEMP_PREFIX, TEMP_SUFFIX = ".ifg-", ".tmp"
_TEMP_NAME = re.compile(r"^\.ifg-(\d+)-([0-9a-f]{6})-[0-9a-f]{6}\.tmp$")

#: What writes a file's content into an open binary handle.
Writer = Callable[[BinaryIO], None]


def _umask() -> int:
    """The process umask, read without changing it where the system says (Linux), since
    ``os.umask`` can only be read by setting it, briefly, for every thread."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def file_mode(path: Path) -> int:
    """The permissions the file should get: those of the file it replaces, else what a plain
    ``open(path, "w")`` would give (0666 less the umask); a temporary file is 0600 otherwise,
    which would leave a saved file unreadable to anyone else."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


def _tag(target: Path) -> str:
    return hashlib.sha256(os.fsencode(Path(target).name)).hexdigest()[:6]


def temp_name(target: Path) -> str:
    """A fresh temporary file name for this process writing ``target`` (see the module docstring)."""
    return f"{TEMP_PREFIX}{os.getpid()}-{_tag(target)}-{secrets.token_hex(3)}{TEMP_SUFFIX}"


def _create_temp(path: Path) -> tuple[Path, int]:
    """A new, empty temporary file beside ``path`` with the permissions of :func:`file_mode`:
    (its path, an open descriptor for writing)."""
    while True:
        tmp = path.parent / temp_name(path)
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
            break
        except FileExistsError:  # pragma: no cover - 32 random bits collided
            continue
    try:
        os.chmod(tmp, file_mode(path))
    except BaseException:
        os.close(fd)
        tmp.unlink()
        raise
    return tmp, fd


@contextmanager
def _temp_handle(path: Path) -> Iterator[tuple[Path, BinaryIO]]:
    """A temporary beside ``path`` open for writing; synced and closed when the block ends,
    removed when it raises."""
    tmp, fd = _create_temp(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield tmp, handle
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        if tmp.exists():
            tmp.unlink()
        raise


def write_temp(path: Path, content: bytes | Writer) -> Path:
    """``content`` (bytes, or a writer given the open handle) written and synced to a new
    temporary file beside ``path``, with the permissions of :func:`file_mode`; returns its
    path. On failure nothing is left and the error propagates."""
    with _temp_handle(Path(path)) as (tmp, handle):
        if isinstance(content, (bytes, bytearray, memoryview)):
            handle.write(content)
        else:
            content(handle)
    return tmp


def replace_all(files: list[tuple[Path, bytes | Writer]]) -> None:
    """Write every file to a temporary first; only when all are complete (a full disk fails
    here, with nothing replaced) replace them in order, the last one last. No temporary is
    left behind unless the process dies (see :func:`sweep_orphans`)."""
    temps: list[tuple[Path, Path]] = []
    try:
        for path, content in files:
            temps.append((write_temp(path, content), Path(path)))
        for tmp, path in temps:
            os.replace(tmp, path)
    finally:
        for tmp, _ in temps:
            if tmp.exists():
                tmp.unlink()


def write_atomically(path: os.PathLike | str, data: bytes | Writer) -> None:
    """Write ``data`` (bytes or a writer) to ``path`` atomically (see the module docstring);
    OSError propagates and no temporary is left."""
    replace_all([(Path(path), data)])


@contextmanager
def atomic_open(path: os.PathLike | str) -> Iterator[BinaryIO]:
    """A binary handle whose content replaces ``path`` atomically when the block ends
    without an exception (on one, ``path`` is untouched and the temporary removed)."""
    path = Path(path)
    with _temp_handle(path) as (tmp, handle):
        yield handle
    try:
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (this one, or another that a signal 0 reaches or may not
    be sent to)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but belongs to someone else
        return True
    return True


def orphans(targets: list[Path]) -> list[Path]:
    """Temporary files written for any of ``targets`` (in their folders) by a process that no
    longer runs (it was killed, or the machine stopped, mid-save)."""
    found = []
    for folder in dict.fromkeys(Path(t).parent for t in targets):
        tags = {_tag(t) for t in targets if Path(t).parent == folder}
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            match = _TEMP_NAME.match(name)
            if match and match.group(2) in tags and not pid_alive(int(match.group(1))):
                found.append(folder / name)
    return found


def sweep_orphans(targets: list[Path]) -> list[Path]:
    """Remove the :func:`orphans` of ``targets``; returns what was removed. Failures to
    remove are ignored (another process may be sweeping too)."""
    removed = []
    for path in orphans(targets):
        try:
            path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed
