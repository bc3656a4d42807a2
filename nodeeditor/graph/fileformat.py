"""The file format: versioned JSON (``*.ifg.json``) with an optional ``.npz`` sidecar.

- ``{"format": "indexflow-graph", "version": 3, ...}``; see ``serialize.py`` for the
  structure. Tensors with up to ``INLINE_LIMIT`` elements (and all string tensors) are
  written inline as readable nested lists; larger ones go to the sidecar
  ``<name>.ifg.npz`` beside the file (``"sidecar"``/``"key"`` in the JSON).
- Saving is atomic: each file is written to a temporary file in the same folder (a short
  name of its own, ``.ifg-XXXXXXXX.tmp``, so a target name at the length limit still saves)
  and moved over the old one with ``os.replace``, sidecar first, JSON last. Output is
  deterministic: save, load, save gives byte-identical files (JSON and sidecar).
- Loading never half-loads: any problem (unreadable file, corrupt JSON, another
  format, an unknown or newer version, an unknown node kind, a missing sidecar or
  array, an edge to a missing port, tensor values or bytes that do not match the
  shape) raises :class:`GraphFileError` whose message names the file and the problem.
- Older versions are upgraded by the functions in ``MIGRATIONS`` (version n -> n+1),
  applied in order before reading.
"""
from __future__ import annotations

import io
import json
import os
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ops.dtypes import is_ml_dtype

from .document import Graph
from .paths import rebase_path
from .serialize import FORMAT, INLINE_LIMIT, VERSION, graph_from_dict, graph_to_dict, inline_tensor
from .sources import SourceError, check_magic, damage_text

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
    """Version 3 adds foreign ONNX nodes (kind ``foreign``), initializers kept in their model
    (kind ``model_tensor``), a graph input's declared ``shape`` and the ``model`` details. A
    version-2 file has none of them, and every new field is optional: only the number changes."""
    return {**doc, "version": 3}


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


def _npz_bytes(arrays: Mapping[str, np.ndarray]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for key in sorted(arrays):
            info = zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            member = io.BytesIO()
            np.lib.format.write_array(member, np.ascontiguousarray(arrays[key]), allow_pickle=False)
            archive.writestr(info, member.getvalue())
    return buffer.getvalue()


def _file_mode(path: Path) -> int:
    """The permissions the file should get: those of the file it replaces, else what a plain
    ``open(path, "w")`` would give (0666 less the umask). ``mkstemp`` makes its files 0600,
    which would leave a saved graph unreadable to anyone else."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


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


#: Temporary files are ``.ifg-XXXXXXXX.tmp`` (8 random characters): 17 bytes whatever the
#: target is called, so any name that fits the file system's limit can be saved.
TEMP_PREFIX, TEMP_SUFFIX = ".ifg-", ".tmp"


def _write_temp(path: Path, data: bytes) -> str:
    """``data`` written and synced to a temporary file beside ``path`` (same folder, so the
    final ``os.replace`` stays atomic; a short name of its own, see ``TEMP_PREFIX``), with the
    permissions of :func:`_file_mode`; returns its name."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=TEMP_PREFIX, suffix=TEMP_SUFFIX)
    try:
        os.chmod(tmp, _file_mode(path))
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return tmp


def _atomic_write_all(files: list[tuple[Path, bytes]]) -> None:
    """Write every file to a temporary first; only when all are complete (a full disk fails
    here, with nothing replaced) replace them, last one last. The JSON goes last, so the
    window in which a crash leaves a new sidecar beside the old JSON is two renames wide."""
    temps: list[tuple[str, Path]] = []
    try:
        for path, data in files:
            temps.append((_write_temp(path, data), path))
        for tmp, path in temps:
            os.replace(tmp, path)
    finally:
        for tmp, _ in temps:
            if os.path.exists(tmp):
                os.unlink(tmp)


def write_atomically(path: os.PathLike | str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a synced temporary file beside it (short name,
    the permissions ``path`` has or a new file would get), then ``os.replace``. Readers see
    the old file or the new one, never a part; on failure no temporary is left and OSError
    propagates. Used for graph files and ONNX models alike."""
    _atomic_write_all([(Path(path), data)])


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
    ``sidecar_name`` is None: everything inline)."""
    arrays: dict[str, np.ndarray] = {}

    def encode(arr: np.ndarray, key: str) -> dict:
        arr = np.asarray(arr)
        if sidecar_name is None or arr.size <= INLINE_LIMIT or arr.dtype == object:
            return inline_tensor(arr)
        # .npy cannot name the ml_dtypes types (bfloat16, float8, int4): store their bits
        arrays[key] = arr.view(f"u{arr.dtype.itemsize}") if is_ml_dtype(arr.dtype) else arr
        from ops import dtype_name

        return {"dtype": dtype_name(arr), "shape": list(arr.shape), "sidecar": sidecar_name, "key": key}

    return graph_to_dict(graph, None, encode), arrays


def save_graph(graph: Graph, path: os.PathLike | str) -> Path:
    """Write ``graph`` to ``path`` (and its sidecar when large tensors need one), atomically.
    Sets ``graph.file_path``. Returns the path. OSError becomes GraphFileError."""
    path = Path(path)
    side = sidecar_path(path)
    doc, arrays = graph_document(graph, side.name)
    rebased = _rebase_file_paths(graph, doc, path)
    text = dumps(doc) + "\n"
    files = ([(side, _npz_bytes(arrays))] if arrays else []) + [(path, _utf8(text))]
    try:
        _atomic_write_all(files)
        if not arrays and side.exists():
            side.unlink()  # a stale sidecar of an earlier save
    except OSError as exc:
        raise GraphFileError(path, f"cannot write: {exc.strerror or exc}") from None
    with graph.batch():
        graph.file_path = path
        for node_id, new_path in rebased.items():
            graph.set_source(node_id, path=new_path)
    return path


# ---------------------------------------------------------------------- reading
def load_graph(path: os.PathLike | str) -> Graph:
    """Read a graph file (any known version). Raises GraphFileError naming the file and the
    problem; never returns a partly loaded graph."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GraphFileError(path, "file not found") from None
    except UnicodeDecodeError:
        hint = "; an ONNX model becomes a graph with: indexflow import MODEL -o GRAPH.ifg.json" \
            if path.suffix.lower() == ".onnx" else ""
        raise GraphFileError(path, f"not a text file (expected IndexFlow graph JSON){hint}") from None
    except OSError as exc:
        raise GraphFileError(path, f"cannot read: {exc.strerror or exc}") from None
    graph = loads_graph(text, path)
    graph.file_path = path
    return graph


def loads_graph(text: str, path: os.PathLike | str = "<text>") -> Graph:
    """Like :func:`load_graph` for JSON text; a sidecar is looked for beside ``path``."""
    path = Path(path)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GraphFileError(path, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise GraphFileError(path, "not valid JSON (nested too deeply)") from None
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
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise GraphFileError(path, f"cannot upgrade from format version {version}: "
                                   f"malformed document ({exc!r})") from None

    archives: dict[str, Any] = {}

    def read_sidecar(spec: Mapping[str, Any]) -> np.ndarray:
        name, key = spec.get("sidecar"), spec.get("key")
        if not isinstance(name, str) or not isinstance(key, str) or os.path.basename(name) != name:
            raise ValueError(f"bad sidecar reference {dict(spec)!r}")
        if name not in archives:
            side = path.parent / name
            if not side.exists():
                raise ValueError(f"the sidecar file {side} is missing")
            if not side.is_file():
                raise ValueError(f"the sidecar file {side} is not a file")
            try:
                check_magic(side, SIDECAR_EXTENSION)
                with np.load(side, allow_pickle=False) as archive:
                    archives[name] = {k: archive[k] for k in archive.files}
            except SourceError as exc:  # names the file already
                raise ValueError(f"the sidecar file {exc}") from None
            except Exception as exc:  # noqa: BLE001 - numpy raises many kinds on a damaged archive
                raise ValueError(f"the sidecar file {side} cannot be read: {damage_text(exc)}") from None
        if key not in archives[name]:
            raise ValueError(f"the sidecar file {name} has no array {key!r}")
        return archives[name][key]

    try:
        graph = graph_from_dict(doc, read_sidecar)
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError, MemoryError) as exc:
        # ValueError is what the readers raise on purpose; the others mean the document has a
        # shape no reader expected: still the file's fault, still reported without a traceback.
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        if not isinstance(exc, ValueError):
            message = f"malformed document ({type(exc).__name__}: {message})"
        raise GraphFileError(path, str(message)) from None
    return graph
