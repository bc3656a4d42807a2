"""Reading and writing ``.npy``, ``.npz`` and ``.csv`` files safely: the one home of the rules
every array file IndexFlow touches follows (file sources, graph sidecars, ``run --output``).

Reading (:func:`read_array`, :func:`array_type`):

- Only regular files are opened (:func:`open_regular`): a FIFO, a device or a folder, also
  behind a symbolic link, is an error, never a read that waits forever. The file is opened
  without blocking and checked on the open handle, so nothing can swap it in between.
- The size is checked before anything is allocated: a ``.npy`` (or an ``.npz`` member) by the
  shape and dtype its header declares, a ``.csv`` by its length, against the size cap
  (:mod:`ops.limits`, ``INDEXFLOW_MAX_SOURCE_MB``).
- Nothing is unpickled (object arrays are refused from the header), and an ``.npz`` member is
  read only when asked for.
- Errors are :class:`ArrayFileError`, ``str(exc)`` ``"<path>: <problem>"``; the problem says
  what is wrong with the file's structure (empty, truncated, not this format, a row that is not
  a number) and never quotes the file's content.

Writing (:func:`write_npz`): every array as a member ``<member name>.npy``, the member name
from :func:`member_name` (any key written faithfully and safely), streamed into an open binary
handle (the caller makes it atomic).
"""
from __future__ import annotations

import enum
import errno
import hashlib
import io
import math
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

import ops
from ops import TensorType
from ops.limits import SizeLimitError, check_size, limit_bytes, size_text

NPY, NPZ, CSV = ".npy", ".npz", ".csv"
SUFFIXES = (NPY, NPZ, CSV)
#: The first bytes of each binary format (a .npz is a zip archive).
MAGIC = {NPY: (b"\x93NUMPY", "a NumPy .npy file"), NPZ: (b"PK", "a NumPy .npz archive (zip)")}
#: Longest member name a zip archive can hold (its header stores the length in 16 bits).
MAX_MEMBER_BYTES = 0xFFFF


class Problem(enum.Enum):
    """What kind of problem an :class:`ArrayFileError` is."""

    MISSING = "missing"
    NOT_REGULAR = "not a regular file"      # a folder, a FIFO, a device
    UNREADABLE = "unreadable"               # damaged, truncated, of another format, no permission
    TOO_LARGE = "too large"                 # over the size cap
    NO_ARRAY = "no such array"              # an .npz without the key asked for
    CHOICE = "bad choice"                   # a suffix, key or dtype that cannot be used


_CANNOT_READ = "cannot read: "
#: What the readers raise on a damaged file (zip structure, compressed data, the .npy header).
_DAMAGE = (ValueError, EOFError, OSError, SyntaxError, MemoryError, RecursionError, zipfile.BadZipFile, zlib.error,
           NotImplementedError, RuntimeError)


class ArrayFileError(ValueError):
    """An array file cannot be read; ``str(exc)`` is ``"<path>: <problem>"``, ``kind`` a
    :class:`Problem`, and ``detail`` the problem without a leading ``cannot read:``."""

    def __init__(self, path: os.PathLike | str, problem: str, kind: Problem = Problem.UNREADABLE) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = Path(path)
        self.problem = problem
        self.kind = kind

    @property
    def detail(self) -> str:
        return self.problem[len(_CANNOT_READ):] if self.problem.startswith(_CANNOT_READ) else self.problem


# ---------------------------------------------------------------------- opening
_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def not_regular_text(mode: int) -> str:
    """Why a file of ``mode`` is not read: ``cannot read: Is a directory`` (the system's own
    words, as for any other file that cannot be read), ``is a FIFO (named pipe), not a regular
    file; only regular files are read`` and the like."""
    if stat.S_ISDIR(mode):
        return f"cannot read: {os.strerror(errno.EISDIR)}"
    what = next((name for test, name in _KINDS if test(mode)), "something other than a file")
    return f"is {what}, not a regular file; only regular files are read"


def open_regular(path: os.PathLike | str) -> BinaryIO:
    """``path`` opened for binary reading if it is a regular file (after following symbolic
    links); ArrayFileError otherwise (missing, unreadable, a FIFO, a device, a folder). Opening
    does not block (``O_NONBLOCK``), and the type is checked on the open handle."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise ArrayFileError(path, "file not found", Problem.MISSING) from None
    except IsADirectoryError:
        raise ArrayFileError(path, not_regular_text(stat.S_IFDIR), Problem.NOT_REGULAR) from None
    except OSError as exc:
        raise ArrayFileError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise ArrayFileError(path, not_regular_text(mode), Problem.NOT_REGULAR)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _check_magic(handle: BinaryIO, path: Path, suffix: str) -> None:
    magic, what = MAGIC[suffix]
    head = handle.read(len(magic))
    handle.seek(0)
    if not head:
        raise ArrayFileError(path, "cannot read: the file is empty")
    if head != magic:
        raise ArrayFileError(path, f"cannot read: this is not {what} (its first bytes are not the format's "
                                   f"signature); the file is damaged or of another type")


# ---------------------------------------------------------------------- headers
@dataclass(frozen=True)
class Header:
    """What a ``.npy`` header declares."""

    shape: tuple[int, ...]
    dtype: np.dtype
    fortran_order: bool

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def read_header(handle: BinaryIO, path: Path, what: str = "the file") -> Header:
    """The header of the ``.npy`` data at the handle's position, checked: a known version, a
    parsable header, non-negative dimensions, no Python objects, and a size within the cap
    (:func:`ops.limits.check_size`). The handle is left at the start of the data."""
    try:
        major, _minor = np.lib.format.read_magic(handle)
        if major == 1:
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(handle)
        elif major == 2:
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(handle)
        else:
            raise ArrayFileError(path, f"cannot read: {what} is a .npy of format version {major}, "
                                       "which IndexFlow does not read (versions 1 and 2)")
    except ArrayFileError:
        raise
    except _DAMAGE as exc:
        raise ArrayFileError(path, f"cannot read: {damage_text(exc, what)}") from None
    if any(d < 0 for d in shape):
        raise ArrayFileError(path, f"cannot read: the header of {what} declares a negative dimension")
    if dtype.hasobject:
        raise ArrayFileError(path, f"cannot read: {what} holds Python objects (pickled data), which IndexFlow "
                                   "never loads")
    try:
        name = ops.dtype_name(dtype)
    except ops.OpError:
        raise ArrayFileError(path, f"cannot read: {what} has dtype {dtype}, which IndexFlow does not hold") from None
    try:
        check_size(f"{what} declares", shape, dtype)
    except SizeLimitError as exc:
        raise ArrayFileError(path, f"too large: {exc}", Problem.TOO_LARGE) from None
    del name
    return Header(tuple(int(d) for d in shape), dtype, bool(fortran))


def _read_data(handle: BinaryIO, header: Header, path: Path, what: str) -> np.ndarray:
    """The array after :func:`read_header` (the handle at the start of the data), read straight
    into its own buffer."""
    order = "F" if header.fortran_order else "C"
    array = np.empty(header.shape, dtype=header.dtype, order=order)
    view = memoryview(array.reshape(-1, order="A").view(np.uint8)) if array.size else memoryview(b"")
    done = 0
    try:
        while done < view.nbytes:
            n = handle.readinto(view[done:])
            if not n:
                break
            done += n
    except _DAMAGE as exc:
        raise ArrayFileError(path, f"cannot read: {damage_text(exc, what)}") from None
    _require_data(done, header, path, what)
    return array if array.flags.c_contiguous else array.copy(order="C")


# ---------------------------------------------------------------------- npz members
def npz_keys(archive: zipfile.ZipFile) -> list[str]:
    """The array names of an ``.npz`` (its ``.npy`` members without the suffix), as numpy lists them."""
    return [name[:-len(NPY)] for name in archive.namelist() if name.endswith(NPY)]


@contextmanager
def _member(archive: zipfile.ZipFile, key: str, path: Path):
    """Member ``key + ".npy"`` open for reading; errors opening or closing it (not those of
    the block, which says its own) become ArrayFileError."""
    try:
        member = archive.open(key + NPY)
    except KeyError:
        raise ArrayFileError(path, f"no array {key!r} in the archive (it holds {npz_keys(archive)})",
                             Problem.NO_ARRAY) from None
    except _DAMAGE as exc:
        raise ArrayFileError(path, f"cannot read: array {key!r}: {damage_text(exc)}") from None
    try:
        yield member
    finally:
        try:
            member.close()
        except _DAMAGE:  # a damaged member may fail again when closed; the block said why
            pass


def read_member(archive: zipfile.ZipFile, key: str, path: Path) -> np.ndarray:
    """Array ``key`` of an open ``.npz`` archive (header checked first, see :func:`read_header`)."""
    what = f"array {key!r}"
    with _member(archive, key, path) as member:
        header = read_header(member, path, what)
        return _read_data(member, header, path, what)


def member_header(archive: zipfile.ZipFile, key: str, path: Path) -> Header:
    """The checked header of array ``key`` of an open ``.npz`` archive, without reading its data
    (a member shorter than its header promises is refused, as reading it would be)."""
    what = f"array {key!r}"
    with _member(archive, key, path) as member:
        header = read_header(member, path, what)
        _require_data(archive.getinfo(key + NPY).file_size - member.tell(), header, path, what)
        return header


def _require_data(available: int, header: Header, path: Path, what: str) -> None:
    if available < header.nbytes:
        raise ArrayFileError(path, f"cannot read: {what} is truncated: it holds less data than its header promises")


def open_npz(handle: BinaryIO, path: Path) -> zipfile.ZipFile:
    """The zip archive of an open ``.npz`` handle; ArrayFileError for a damaged one."""
    _check_magic(handle, path, NPZ)
    try:
        return zipfile.ZipFile(handle)
    except _DAMAGE as exc:
        raise ArrayFileError(path, f"cannot read: {damage_text(exc)}") from None


def _choose_key(archive: zipfile.ZipFile, key: str | None, path: Path) -> str:
    keys = npz_keys(archive)
    if key is None:
        if len(keys) != 1:
            raise ArrayFileError(path, f"choose a key, the archive holds {keys}", Problem.CHOICE)
        return keys[0]
    if key not in keys:
        raise ArrayFileError(path, f"no array {key!r} in the archive (it holds {keys})", Problem.NO_ARRAY)
    return key


# ---------------------------------------------------------------------- whole files
def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ArrayFileError(path, f"unsupported file type {suffix!r} (use {', '.join(SUFFIXES)})", Problem.CHOICE)
    return suffix


def read_array(path: os.PathLike | str, key: str | None = None, dtype: str | None = None) -> np.ndarray:
    """A ``.npy``, one array (``key``) of an ``.npz`` or a ``.csv`` (2-D, comma separated, read
    as ``dtype``, default float32); ArrayFileError on any problem (see the module docstring)."""
    path = Path(path)
    suffix = _suffix(path)
    with open_regular(path) as handle:
        if suffix == NPY:
            _check_magic(handle, path, NPY)
            header = read_header(handle, path)
            return _read_data(handle, header, path, "the file")
        if suffix == NPZ:
            with open_npz(handle, path) as archive:
                return read_member(archive, _choose_key(archive, key, path), path)
        return _read_csv(handle, path, dtype)


def array_type(path: os.PathLike | str, key: str | None = None, dtype: str | None = None) -> TensorType:
    """The TensorType :func:`read_array` would give, read from the header alone for ``.npy``
    and ``.npz`` (the ``.csv`` is read)."""
    path = Path(path)
    suffix = _suffix(path)
    if suffix == CSV:
        return TensorType.of(read_array(path, key, dtype))
    with open_regular(path) as handle:
        if suffix == NPY:
            _check_magic(handle, path, NPY)
            header = read_header(handle, path)
            _require_data(os.fstat(handle.fileno()).st_size - handle.tell(), header, path, "the file")
        else:
            with open_npz(handle, path) as archive:
                header = member_header(archive, _choose_key(archive, key, path), path)
    return TensorType(ops.dtype_name(header.dtype), header.shape)


_CSV_ROW = re.compile(r"at row (\d+), column (\d+)")


def _read_csv(handle: BinaryIO, path: Path, dtype: str | None) -> np.ndarray:
    name = dtype or "float32"
    try:
        np_dtype = np.dtype(ops.dtype_of(name))
    except ops.OpError:
        raise ArrayFileError(path, f"unknown dtype {name!r}", Problem.CHOICE) from None
    size = os.fstat(handle.fileno()).st_size
    if size > limit_bytes():
        raise ArrayFileError(path, f"too large: the .csv file is {size_text(size)}; files read as text are "
                                   f"limited to {size_text(limit_bytes())} (environment variable "
                                   "INDEXFLOW_MAX_SOURCE_MB)", Problem.TOO_LARGE)
    try:
        text = io.TextIOWrapper(handle, encoding="utf-8", newline="")
        return np.loadtxt(text, delimiter=",", ndmin=2, dtype=np_dtype)
    except UnicodeDecodeError:
        raise ArrayFileError(path, "cannot read: the .csv file is not UTF-8 text") from None
    except (ValueError, TypeError, OverflowError) as exc:
        where = _CSV_ROW.search(str(exc))
        if where:
            row, column = int(where.group(1)) + 1, int(where.group(2))  # numpy: rows from 0, columns from 1
            raise ArrayFileError(path, f"cannot read: row {row}, column {column} is not a value of dtype "
                                       f"{name}") from None
        if "number of columns" in str(exc):
            raise ArrayFileError(path, "cannot read: the rows of the .csv file have different numbers of "
                                       "columns") from None
        raise ArrayFileError(path, f"cannot read: the .csv file does not hold comma-separated values of "
                                   f"dtype {name}") from None


_TRUNCATED = ("EOF", "Failed to read all data", "mmap length is greater", "buffer is smaller", "cannot reshape")


def damage_text(exc: BaseException, what: str = "the file") -> str:
    """What a reader's exception says about a damaged file, in a user's terms and without
    quoting the file's content: a zip archive's own message about its structure is kept,
    numpy's messages (which may quote header text or values) are not."""
    text = str(exc)
    if isinstance(exc, zipfile.BadZipFile):
        return f"the archive is damaged or truncated ({text})"
    if isinstance(exc, zlib.error):
        return "the archive is damaged: its compressed data cannot be unpacked"
    if isinstance(exc, EOFError) or any(marker in text for marker in _TRUNCATED):
        return f"{what} is truncated: it holds less data than its header promises"
    if "pickled" in text.lower() or "allow_pickle" in text:
        return f"{what} is damaged (numpy took it for pickled Python objects, which IndexFlow never loads)"
    if isinstance(exc, MemoryError):
        return f"{what} declares more data than there is memory for"
    return f"{what} is damaged or not in NumPy's format (its header cannot be read)"


# ---------------------------------------------------------------------- writing
#: Characters a member name never holds as they are: path separators (so no member can point
#: outside the folder it is unpacked into), ``:`` (drives), control characters, and ``%``
#: (the escape character itself).
_UNSAFE = re.compile(r"[%/\\:\x00-\x1f\x7f]|[\ud800-\udfff]")
#: What no member name written holds (an escaped name keeps its ``%``).
_NEVER = re.compile(r"[/\\:\x00-\x1f\x7f]|[\ud800-\udfff]")


def member_name(key: str) -> str:
    """The ``.npz`` array name (member name without ``.npy``) that stores ``key``: ``key`` itself
    when it is safe, else ``key`` with each unsafe character (see ``_UNSAFE``) written as
    ``%XX`` per UTF-8 byte (a lone surrogate as the bytes ``surrogatepass`` gives it), so
    ``urllib.parse.unquote(name, errors="surrogatepass") == key``: ``../x`` -> ``..%2Fx``."""
    return _UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode("utf-8", "surrogatepass")), key)


def member_fits(name: str) -> bool:
    """Whether the member ``name + ".npy"`` fits a zip header."""
    return len((name + NPY).encode("utf-8")) <= MAX_MEMBER_BYTES


def short_member_name(key: str, limit: int = 200) -> str:
    """:func:`member_name` of ``key``, or when that is longer than ``limit`` bytes, its start and
    a hash of ``key`` (for stores whose keys are recorded elsewhere, such as a sidecar)."""
    name = member_name(key)
    if len(name.encode("utf-8")) <= limit:
        return name
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    head = name.encode("utf-8")[: limit - 33].decode("utf-8", "ignore")
    return f"{head}~{digest}"


class _Tee:
    """A writable that passes bytes on and feeds them to a hash."""

    def __init__(self, target, digest) -> None:
        self.target, self.digest = target, digest

    def write(self, data) -> int:
        self.digest.update(data)
        return self.target.write(data)


def write_npz(handle: BinaryIO, arrays: Mapping[str, np.ndarray], *, compress: bool = False,
              stamp_prefix: bytes | None = None) -> str:
    """Write ``arrays`` (member name without ``.npy`` -> array; names from :func:`member_name`)
    as an ``.npz`` into ``handle``, in sorted order, with fixed timestamps (the same arrays give
    the same bytes), streamed member by member (no copy of the archive in memory), without
    pickling. Returns a hex digest of the members (names and ``.npy`` bytes); with
    ``stamp_prefix`` the archive's comment is ``stamp_prefix + digest``. ValueError for a name
    that is not safe or too long (see :func:`member_name`, :func:`member_fits`)."""
    digest = hashlib.sha256()
    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(handle, "w", compression=method, allowZip64=True) as archive:
        for name in sorted(arrays):
            if _NEVER.search(name) or not member_fits(name):
                raise ValueError(f"array name {name[:50]!r}... is not a safe member name")
            info = zipfile.ZipInfo(name + NPY, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = method
            digest.update(name.encode("utf-8") + b"\0")
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(_Tee(member, digest), np.asarray(arrays[name], order="C"), allow_pickle=False)
        stamp = digest.hexdigest()
        if stamp_prefix is not None:
            archive.comment = stamp_prefix + stamp.encode("ascii")
    return stamp
