"""The file format: versioned JSON (``*.ifg.json``) with an optional ``.npz`` sidecar.

- ``{"format": "indexflow-graph", "version": 3, ...}``; see ``serialize.py`` for the
  structure. Tensors with up to ``INLINE_LIMIT`` elements (and all string tensors) are
  written inline as readable nested lists; larger ones go to the sidecar
  ``<name>.ifg.npz`` beside the file (``"sidecar"``/``"key"`` in the JSON).
- Saving is atomic (:mod:`.atomic`): each file is written to a temporary file in the same
  folder (a short name of its own, ``.ifg-<pid>-<tag>-<random>.tmp``, so a target name at the
  length limit still saves) and moved over the old one with ``os.replace``, sidecar first,
  JSON last. Output is deterministic: save, load, save gives byte-identical files (JSON and
  sidecar). The next save of a file removes the temporaries a killed save of it left.
- The pair is stamped (:func:`write_graph_files`): the sidecar's SHA-256 is its zip comment
  and the JSON's ``"sidecar_stamp"``. A JSON and a sidecar that both carry stamps and differ
  come from different saves (:class:`SidecarMismatch`); :func:`load_graph` completes a save
  interrupted between its two renames from the orphaned temporary JSON, or refuses the pair.
  A sidecar without a stamp (older, or made by hand) is read as before.
- Loading never half-loads: any problem (unreadable file, corrupt JSON, another
  format, an unknown or newer version, an unknown node kind, a missing sidecar or
  array, an edge to a missing port, tensor values or bytes that do not match the
  shape, a number too long to read, a graph file or sidecar array larger than the size cap)
  raises :class:`GraphFileError` whose message names the file and the problem. Only regular
  files are read; sidecar arrays are read through :mod:`.arrayfiles` (headers checked before
  reading, nothing unpickled), and only those the document names.
- A graph read from a file reads files outside its folder only when its opener allows it
  (``allow_outside_files``; see :class:`~nodeeditor.graph.paths.FileScope`).
- Older versions are upgraded by the functions in ``MIGRATIONS`` (version n -> n+1),
  applied in order before reading.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ops.dtypes import is_ml_dtype
from ops.limits import limit_bytes, size_text

from . import arrayfiles, atomic
from .document import Graph
from .paths import rebase_path
from .serialize import FORMAT, INLINE_LIMIT, VERSION, graph_from_dict, graph_to_dict, inline_tensor

EXTENSION = ".ifg.json"
SIDECAR_EXTENSION = ".npz"


class GraphFileError(Exception):
    """A graph file could not be read (or written). ``str(exc)`` is ``"<path>: <problem>"``."""

    def __init__(self, path: os.PathLike | str, problem: str) -> None:
        super().__init__(f"{path}: {problem}")
        self.path = Path(path)
        self.problem = problem


def sidecar_path(path: os.PathLike | str) -> Path:
    """Where the sidecar of ``path`` lives: ``x.ifg.json`` -> ``x.ifg.npz``. Never ``path``
    itself: a graph saved as ``x.npz`` keeps its arrays in ``x.npz.npz``."""
    path = Path(path)
    side = path.with_suffix(SIDECAR_EXTENSION)
    return side if side != path else path.with_name(path.name + SIDECAR_EXTENSION)


def _utf8(text: str) -> bytes:
    """``text`` (JSON from :func:`dumps`) as UTF-8. A lone surrogate (a file name that is not
    UTF-8, as Python decodes it, or a string holding one) cannot be encoded; it only occurs
    inside JSON strings, so it is written as the JSON escape ``\\udcff``, which reads back as
    the same character."""
    return text.encode("utf-8", errors="backslashreplace")


# ---------------------------------------------------------------------- migrations
def _v0_to_v1(doc: dict) -> dict:
    """Version 0 (the first prototype's files): top-level ``name``/``opset``; ``nodes`` an object
    keyed by id with ``type``, ``label``, ``pos`` and ``attrs``; tensors as
    ``{"dtype", "shape", "values": flat list}``; ``links`` as ``[src, src_port, dst, dst_port]``."""
    def tensor(t: Mapping) -> dict:
        shape = list(t["shape"])
        values = list(t["values"])
        nested: Any = values
        for dim in reversed(shape[1:]):
            nested = [nested[i:i + dim] for i in range(0, len(nested), dim)] if dim else []
        return {"dtype": t["dtype"], "shape": shape, "data": nested if shape else values[0]}

    nodes = []
    for node_id, old in doc.get("nodes", {}).items():
        new = {"id": node_id, "kind": old["type"], "name": old.get("label", node_id),
               "position": list(old.get("pos", [0, 0]))}
        for key, value in old.items():
            if key in ("type", "label", "pos"):
                continue
            if key == "attrs":
                new["attributes"] = dict(value)
            elif key in ("value", "example"):
                new[key] = tensor(value)
            else:
                new[key] = value
        if new["kind"] == "op":
            new.setdefault("attributes", {})
        nodes.append(new)
    return {
        "format": FORMAT,
        "version": 1,
        "settings": {"name": doc.get("name", "untitled"), "description": "", "opset": doc.get("opset", 18)},
        "nodes": nodes,
        "edges": [{"from": [s, sp], "to": [d, dp]} for s, sp, d, dp in doc.get("links", [])],
    }


def _v1_to_v2(doc: dict) -> dict:
    """Version 2 adds the training fields: an operator's ``training`` switch (default true)
    and ``loss_coefficient`` (default 1), a source's ``trainable`` flag (default false), and
    the ``loss`` node kind. A version-1 file has none of them: each node gets its defaults."""
    nodes = []
    for node in doc.get("nodes", []):
        node = dict(node)
        if node.get("kind") == "op":
            node.setdefault("training", True)
            node.setdefault("loss_coefficient", 1.0)
        elif node.get("kind") in ("literal", "generator", "file"):
            node.setdefault("trainable", False)
        nodes.append(node)
    return {**doc, "version": 2, "nodes": nodes}


def _v2_to_v3(doc: dict) -> dict:
    """Version 3 adds the canvas's frames, reroute points, collapsed and bypassed nodes, and
    ONNX import's foreign nodes (kind ``foreign``), initializers kept in their model (kind
    ``model_tensor``), a graph input's declared ``shape`` and the ``model`` details. A version-2
    file has none of them: the same document with an empty ``frames`` list (every node expanded
    and switched on, every wire plain); every other new field is optional."""
    return {**doc, "version": 3, "frames": []}


MIGRATIONS: dict[int, Callable[[dict], dict]] = {0: _v0_to_v1, 1: _v1_to_v2, 2: _v2_to_v3}


def migrate(doc: dict) -> dict:
    """Upgrade a document of any known older version to ``VERSION``."""
    version = doc["version"]
    while version < VERSION:
        doc = MIGRATIONS[version](doc)
        version = doc["version"]
    return doc


# ---------------------------------------------------------------------- writing
def dumps(doc: Any, indent: int = 0, width: int = 96) -> str:
    """Deterministic, readable JSON: a container goes on one line when it fits in ``width``."""
    compact = json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
    if not isinstance(doc, (dict, list)) or indent + len(compact) <= width:
        return compact
    pad = " " * (indent + 2)
    if isinstance(doc, dict):
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {dumps(v, indent + 2, width)}" for k, v in doc.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + dumps(v, indent + 2, width) for v in doc]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def write_atomically(path: os.PathLike | str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (:func:`nodeeditor.graph.atomic.write_atomically`:
    a synced, short-named temporary file beside it with the permissions ``path`` has or a new
    file would get, then ``os.replace``). Readers see the old file or the new one, never a
    part; on failure no temporary is left and OSError propagates. Used for graph files and
    ONNX models alike."""
    atomic.write_atomically(path, data)


def graph_folder(graph: Graph) -> Path | None:
    """The folder relative file-source paths of ``graph`` resolve against (None: never saved)."""
    return graph.folder


def _rebase_file_paths(graph: Graph, doc: dict, target: Path) -> dict[str, str]:
    """Relative file-source paths in ``doc`` rewritten for a file saved at ``target`` (see
    :func:`rebase_path`); a model tensor's model path is always written relative to the
    graph file (an import from the editor gives an absolute one), so graph and model move
    together. Returns node id -> new path for the nodes whose path changed."""
    changed = {}
    for entry in doc.get("nodes", []):
        if entry.get("kind") not in ("file", "model_tensor") or not entry.get("path"):
            continue
        new = rebase_path(entry["path"], graph_folder(graph), target.parent)
        if entry["kind"] == "model_tensor" and os.path.isabs(new):
            try:
                new = os.path.relpath(new, target.parent.resolve())
            except ValueError:  # another drive (Windows): it stays absolute
                pass
        if new != entry["path"]:
            entry["path"] = new
            changed[entry["id"]] = new
    return changed


def graph_document(graph: Graph, sidecar_name: str | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """The JSON document of ``graph`` and the arrays that go to the sidecar (none when
    ``sidecar_name`` is None: everything inline). Sidecar keys are safe member names
    (:func:`nodeeditor.graph.arrayfiles.short_member_name` of ``<node id>.value``): a node id
    can never name a path outside the archive or overflow a zip header. The arrays are the
    graph's own read-only arrays (no copies), so the pair can be written on another thread."""
    arrays: dict[str, np.ndarray] = {}

    def encode(arr: np.ndarray, key: str) -> dict:
        arr = np.asarray(arr)
        if sidecar_name is None or arr.size <= INLINE_LIMIT or arr.dtype == object:
            return inline_tensor(arr)
        key = arrayfiles.short_member_name(key)
        # .npy cannot name the ml_dtypes types (bfloat16, float8, int4): store their bits
        arrays[key] = arr.view(f"u{arr.dtype.itemsize}") if is_ml_dtype(arr.dtype) else arr
        from ops import dtype_name

        return {"dtype": dtype_name(arr), "shape": list(arr.shape), "sidecar": sidecar_name, "key": key}

    return graph_to_dict(graph, None, encode), arrays


#: The top-level key of the JSON that holds its sidecar's stamp (see :func:`write_graph_files`).
STAMP_KEY = "sidecar_stamp"
#: The sidecar's zip comment is this prefix followed by the stamp.
STAMP_PREFIX = b"indexflow-sidecar sha256="


def write_graph_files(path: os.PathLike | str, doc: dict, arrays: Mapping[str, np.ndarray]) -> None:
    """Write the document ``doc`` to ``path`` and ``arrays`` (when any) to its sidecar, as a
    pair: the sidecar's stamp (a SHA-256 of its members, also its zip comment) is written into
    the JSON (``"sidecar_stamp"``), so a JSON and a sidecar from different saves are told
    apart on loading. Both go to temporaries first, the sidecar is replaced first and the JSON
    last (:func:`nodeeditor.graph.atomic.replace_all`); orphaned temporaries of earlier,
    interrupted saves of ``path`` are removed first. A sidecar left from an earlier save is
    removed when none is needed now. Reads nothing but ``doc`` and ``arrays``, so it may run on
    any thread. OSError propagates."""
    path = Path(path)
    side = sidecar_path(path)
    atomic.sweep_orphans([path, side])
    stamp: dict[str, str] = {}

    def write_sidecar(handle) -> None:
        stamp["value"] = arrayfiles.write_npz(handle, arrays, compress=True, stamp_prefix=STAMP_PREFIX)

    def write_json(handle) -> None:
        full = {**doc, STAMP_KEY: stamp["value"]} if arrays else doc
        handle.write(_utf8(dumps(full) + "\n"))

    atomic.replace_all(([(side, write_sidecar)] if arrays else []) + [(path, write_json)])
    if not arrays and side.exists():
        side.unlink()  # a stale sidecar of an earlier save


def through_link(path: Path) -> Path:
    """``path``, or the file it points to when it is a symbolic link (a graph opened through a
    link looked for its sidecar beside the link, and a save replaced the link with a file)."""
    return Path(os.path.realpath(path)) if os.path.islink(path) else path   # islink: False on any OSError


def save_graph(graph: Graph, path: os.PathLike | str) -> Path:
    """Write ``graph`` to ``path`` (and its sidecar when large tensors need one), atomically
    and paired (:func:`write_graph_files`). Sets ``graph.file_path``. Returns the path. OSError
    becomes GraphFileError. A symbolic link is written through: the file it points to gets the
    graph, the link stays."""
    path = through_link(Path(path))
    doc, arrays = graph_document(graph, sidecar_path(path).name)
    rebased = _rebase_file_paths(graph, doc, path)
    try:
        write_graph_files(path, doc, arrays)   # nothing is replaced unless every file is complete
    except OSError as exc:
        raise GraphFileError(path, f"cannot write: {exc.strerror or exc}") from None
    except ValueError:   # JSON has no such numbers: say which (looked for only when one failed)
        where = _non_finite(doc) or "a number"
        raise GraphFileError(path, f"cannot write: {where} is not a finite number, which a graph file "
                                   "cannot hold") from None
    with graph.batch():
        graph.file_path = path
        for node_id, new_path in rebased.items():
            graph.set_source(node_id, path=new_path)
    return path


def _non_finite(doc: Any, where: str = "") -> str | None:
    """The place (``nodes[3].params.value``) of the first float in ``doc`` that is infinite or
    NaN, or None. Tensors and generator parameters write theirs as text; this names anything
    else before a write fails on it."""
    if isinstance(doc, float):
        return None if math.isfinite(doc) else (where or "a value")
    if isinstance(doc, dict):
        items = ((f"{where}.{k}" if where else str(k), v) for k, v in doc.items())
    elif isinstance(doc, (list, tuple)):
        items = ((f"{where}[{i}]", v) for i, v in enumerate(doc))
    else:
        return None
    return next((found for place, v in items if (found := _non_finite(v, place)) is not None), None)


# ---------------------------------------------------------------------- reading
def _long_integer_text(text: str) -> str:
    """Where the first integer too long to read is, and the limit (json refuses integers of
    more than ``sys.get_int_max_str_digits()`` digits with a bare ValueError)."""
    limit = sys.get_int_max_str_digits() or 4300
    match = re.search(rf"\d{{{limit + 1},}}", text)
    if match is None:  # pragma: no cover - json raised ValueError for another reason
        return "not valid JSON (a number cannot be read)"
    line = text.count("\n", 0, match.start()) + 1
    column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
    return (f"not valid JSON (line {line}, column {column}: an integer of {len(match.group())} digits; "
            f"numbers in a graph file have at most {limit} digits)")


class SidecarMismatch(GraphFileError):  # noqa: N818 - a kind of GraphFileError, named for what it says
    """The graph file and its sidecar come from different saves (their stamps differ)."""

    def __init__(self, path: Path, side: Path, found: str | None) -> None:
        super().__init__(path, f"the graph file and its sidecar {side.name} come from different saves (a save was "
                               "interrupted between the two, or one of them was replaced); IndexFlow does not mix "
                               "them: restore the pair from a backup, or save the graph again from where it is open")
        self.side = side
        self.found = found


def _read_text(path: Path) -> str:
    """The graph file's text: a regular file (a FIFO would block forever), at most the size
    cap, UTF-8. GraphFileError otherwise."""
    try:
        with arrayfiles.open_regular(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > limit_bytes():
                raise GraphFileError(path, f"the file is {size_text(size)}; graph files are limited to "
                                           f"{size_text(limit_bytes())} (environment variable "
                                           "INDEXFLOW_MAX_SOURCE_MB); large tensors belong in the sidecar")
            return handle.read().decode("utf-8")
    except arrayfiles.ArrayFileError as exc:
        raise GraphFileError(path, exc.problem) from None
    except UnicodeDecodeError:
        hint = "; an ONNX model becomes a graph with: indexflow import MODEL -o GRAPH.ifg.json" \
            if path.suffix.lower() == ".onnx" else ""
        raise GraphFileError(path, f"not a text file (expected IndexFlow graph JSON){hint}") from None
    except OSError as exc:
        raise GraphFileError(path, f"cannot read: {exc.strerror or exc}") from None


def load_graph(path: os.PathLike | str, *, allow_outside_files: bool = False) -> Graph:
    """Read a graph file (any known version). Raises GraphFileError naming the file and the
    problem; never returns a partly loaded graph.

    A graph read from a file may name files anywhere; its file sources read only files inside
    its folder unless ``allow_outside_files`` (or the opener allows them later with
    ``Graph.set_outside_files_allowed``): the node shows why it has no value (see
    :class:`~nodeeditor.graph.paths.FileScope`). The allowance is never read from the file.

    A graph file whose sidecar comes from another save (:class:`SidecarMismatch`) is the trace
    of a save interrupted between its two renames: the new sidecar is in place, the new graph
    file is still its complete temporary. That save is completed (the temporary moved over the
    graph file) and the graph loaded from it; without such a temporary the mismatch is the
    error.

    A path that is a symbolic link is followed: the graph is the file it points to (its sidecar
    and relative file sources beside that file), and saving it writes there."""
    path = through_link(Path(path))
    try:
        return loads_graph(_read_text(path), path, allow_outside_files=allow_outside_files)
    except SidecarMismatch as exc:
        if not _complete_interrupted_save(path, exc):
            raise
        return loads_graph(_read_text(path), path, allow_outside_files=allow_outside_files)


def _complete_interrupted_save(path: Path, mismatch: SidecarMismatch) -> bool:
    """Move the orphaned temporary JSON of ``path`` whose stamp is the sidecar's over ``path``;
    False when there is none (or it cannot be moved)."""
    if mismatch.found is None:
        return False
    for orphan in atomic.orphans([path]):
        try:
            with arrayfiles.open_regular(orphan) as handle:
                if os.fstat(handle.fileno()).st_size > limit_bytes():
                    continue
                doc = json.loads(handle.read().decode("utf-8"))
        except (arrayfiles.ArrayFileError, OSError, ValueError, RecursionError):
            continue
        if isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get(STAMP_KEY) == mismatch.found:
            try:
                os.replace(orphan, path)
            except OSError:
                return False
            return True
    return False


def _sidecar_problem(side: Path, exc: arrayfiles.ArrayFileError, key: str | None = None) -> str:
    """What is wrong with a sidecar, for a GraphFileError of the graph file."""
    kind = exc.kind
    if kind is arrayfiles.Problem.MISSING:
        return f"the sidecar file {side} is missing"
    if kind is arrayfiles.Problem.NOT_REGULAR:
        return f"the sidecar file {side} is not a file ({exc.detail})"
    if kind is arrayfiles.Problem.NO_ARRAY:
        return f"the sidecar file {side.name} has no array {key!r}"
    if kind is arrayfiles.Problem.TOO_LARGE:
        return f"the sidecar file {side} is refused: {exc.detail}"
    return f"the sidecar file {side} cannot be read: {exc.detail}"


def loads_graph(text: str, path: os.PathLike | str | None = None, *, allow_outside_files: bool = False) -> Graph:
    """Like :func:`load_graph` for JSON text read from ``path``: a sidecar is looked for beside
    it, and it becomes the graph's ``file_path``. Without a path (text from elsewhere) the graph
    has no folder, so no file source reads anything unless ``allow_outside_files``."""
    file_path = None if path is None else Path(path)
    path = Path("<text>") if path is None else Path(path)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GraphFileError(path, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise GraphFileError(path, "not valid JSON (nested too deeply)") from None
    except ValueError:  # an integer longer than Python converts (sys.get_int_max_str_digits)
        raise GraphFileError(path, _long_integer_text(text)) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise GraphFileError(path, f"not an IndexFlow graph (expected \"format\": \"{FORMAT}\", found {found!r})")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise GraphFileError(path, f"the format version must be an integer, found {version!r}")
    if version > VERSION:
        raise GraphFileError(path, f"written by a newer IndexFlow (format version {version}); "
                                   f"this version reads versions up to {VERSION}")
    if version != VERSION and version not in MIGRATIONS:
        raise GraphFileError(path, f"unknown format version {version}")
    try:
        doc = migrate(doc)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        raise GraphFileError(path, f"the file says format version {version}, but its contents do not have "
                                   f"that version's layout (is the version number right?)") from None

    archives: dict[str, zipfile.ZipFile] = {}
    handles: list[Any] = []
    expected_stamp = doc.get(STAMP_KEY)

    def read_sidecar(spec: Mapping[str, Any]) -> np.ndarray:
        name, key = spec.get("sidecar"), spec.get("key")
        if not isinstance(name, str) or not isinstance(key, str) or os.path.basename(name) != name \
                or name in ("", ".", ".."):
            raise ValueError(f"bad sidecar reference {dict(spec)!r}")
        side = path.parent / name
        if name not in archives:
            try:
                handle = arrayfiles.open_regular(side)
                handles.append(handle)
                archive = arrayfiles.open_npz(handle, side)
            except arrayfiles.ArrayFileError as exc:
                raise ValueError(_sidecar_problem(side, exc)) from None
            if isinstance(expected_stamp, str):
                comment = archive.comment
                found = comment[len(STAMP_PREFIX):].decode("ascii", "replace") \
                    if comment.startswith(STAMP_PREFIX) else None
                if found is not None and found != expected_stamp:  # an unstamped sidecar: made by hand
                    raise SidecarMismatch(path, side, found)
            archives[name] = archive
        try:
            return arrayfiles.read_member(archives[name], key, side)
        except arrayfiles.ArrayFileError as exc:
            raise ValueError(_sidecar_problem(side, exc, key)) from None

    try:
        graph = graph_from_dict(doc, read_sidecar, file_path=file_path, outside_allowed=allow_outside_files)
    except SidecarMismatch:
        raise
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError, MemoryError) as exc:
        # ValueError is what the readers raise on purpose; the others mean the document has a
        # shape no reader expected: still the file's fault, still reported without a traceback.
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        if not isinstance(exc, ValueError):
            message = f"malformed document ({type(exc).__name__}: {message})"
        raise GraphFileError(path, str(message)) from None
    finally:
        for archive in archives.values():
            archive.close()
        for handle in handles:
            handle.close()
    return graph
