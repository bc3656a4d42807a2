"""Writing an exported model to disk: one ``.onnx`` file, or the model and its weights in a
data file beside it (ONNX *external data*), for models whose initializers do not fit one file.

Contract:

- :func:`detach` takes the raw data of every initializer holding :data:`EXTERNAL_MIN_BYTES` or
  more out of its tensor (before the model is assembled, so that assembling copies no weights)
  and makes the tensor refer to the data file, at offsets that are multiples of
  :data:`ALIGNMENT`; smaller tensors (the shape of a Reshape, which shape inference reads) stay.
- :func:`write_model` with nothing detached: the serialized model replaces ``path`` atomically
  (:func:`nodeeditor.graph.fileformat.write_atomically`). With detached data: the data goes to
  :func:`data_path` (``NAME.onnx.data`` beside ``NAME.onnx``), which the model names relative
  to its own folder (as onnxruntime and ``onnx.load`` resolve it). Both files are written
  complete in a temporary folder beside ``path`` first, the written model is checked there by
  path (``check(model_path)``, e.g. the ONNX checker, which reads the data file), and only then
  are they moved into place, the data file first and the model last. A refused model or a full
  disk leaves the old files as they were; a process killed between the two moves (two renames)
  leaves the new data beside the old model (one killed just before, the old data as
  ``.ifg-previous-NAME.onnx.data`` beside it), and one killed while writing leaves its temporary folder
  (``.ifg-export-*``) behind; a failed move of the model puts the old data file back.
  The files get the permissions of those they replace. A model written in one file over one
  that kept its weights in ``NAME.onnx.data`` leaves that file (another model may read it).
- :func:`data_files_of` names the files a model keeps initializers in (the exporter refuses
  to write over one that a model the graph reads keeps its weights in).
- :func:`too_big_for_one_file`: whether initializers exceed what one ONNX file holds
  (:data:`MODEL_BYTES_LIMIT`, protobuf's 2 GiB limit on a message).
"""
from __future__ import annotations

import errno
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import onnx

from nodeeditor.graph.atomic import file_mode
from nodeeditor.graph.fileformat import write_atomically

from .errors import ExportError

#: The most bytes one ONNX file holds: protobuf's limit on a message (2 GiB).
MODEL_BYTES_LIMIT = 2 ** 31 - 1
#: Initializers with at least this many bytes of raw data go to the data file.
EXTERNAL_MIN_BYTES = 1024
#: Each tensor in the data file starts at a multiple of this many bytes (a memory page: a
#: runtime may map the file instead of reading it).
ALIGNMENT = 4096
#: The location detached tensors name until :func:`write_model` knows the data file's name.
_UNNAMED = "\0data file"
#: Bytes written at a time from one tensor's raw data.
_CHUNK = 64 << 20


class Written(NamedTuple):
    """What :func:`write_model` wrote: the model, and its data file (None: none)."""

    model: Path
    data: Path | None


@dataclass(frozen=True)
class Detached:
    """Raw data taken out of tensors by :func:`detach`: ``(offset, bytes)`` in file order."""

    pieces: tuple[tuple[int, bytes], ...]


def data_path(path: os.PathLike | str) -> Path:
    """Where :func:`write_model` puts the weights of the model written to ``path``."""
    path = Path(path)
    return path.with_name(path.name + ".data")


def too_big_for_one_file(tensors: Iterable[onnx.TensorProto]) -> bool:
    return sum(_nbytes(t) for t in tensors) > MODEL_BYTES_LIMIT


def _nbytes(tensor: onnx.TensorProto) -> int:
    """The bytes of a tensor's elements, from its header (reading ``raw_data`` copies it, and
    ``ByteSize`` serializes the tensor); 0 for strings, which are not raw data."""
    if tensor.data_type == onnx.TensorProto.STRING:
        return 0
    return math.prod(tensor.dims) * onnx.helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize


def detach(tensors: Iterable[onnx.TensorProto]) -> Detached | None:
    """Take the raw data of the large ``tensors`` out of them (see the module contract); None
    when none is large (nothing changed: the model is written in one file)."""
    pieces, end = [], 0
    for tensor in tensors:
        if _nbytes(tensor) < EXTERNAL_MIN_BYTES or not tensor.HasField("raw_data"):
            continue
        raw = tensor.raw_data
        size = len(raw)
        if size < EXTERNAL_MIN_BYTES:
            continue
        offset = -(-end // ALIGNMENT) * ALIGNMENT
        pieces.append((offset, raw))
        end = offset + size
        tensor.ClearField("raw_data")
        tensor.data_location = onnx.TensorProto.EXTERNAL
        del tensor.external_data[:]
        for key, value in (("location", _UNNAMED), ("offset", str(offset)), ("length", str(size))):
            entry = tensor.external_data.add()
            entry.key, entry.value = key, value
    return Detached(tuple(pieces)) if pieces else None


def write_model(model: onnx.ModelProto, path: os.PathLike | str, detached: Detached | None,
                check: Callable[[Path], None]) -> Written:
    """Write ``model`` to ``path``, with ``detached`` data beside it (see the module contract);
    ``check(model_path)`` raises ExportError for a model that must not be written (called on
    the written files when there is detached data; the caller checked a model in one file
    already). ExportError when it cannot be written."""
    try:
        path = followed(path)
        if detached is None:
            write_atomically(path, model.SerializeToString())
            return Written(path, None)
        return _write_with_data(model, path, detached, check)
    except OSError as exc:
        # the file meant, not a temporary's name: a move's target, else the model
        raise ExportError(f"cannot write {exc.filename2 or path}: {exc.strerror or exc}") from exc


def followed(path: os.PathLike | str) -> Path:
    """``path``, or the file it links to: a link is kept and what it names replaced (as graph
    saves do), and the data file goes beside that file."""
    path = Path(path)
    try:
        return Path(os.path.realpath(path)) if path.is_symlink() else path
    except OSError:   # a name the system cannot even look up (too long): no link; the write says why
        return path


def data_files_of(model_path: os.PathLike | str) -> set[Path]:
    """The files (real paths) the model at ``model_path`` keeps initializers in, its main graph's
    and its functions' and subgraphs' alike; empty for a file that is not such a model."""
    model_path = Path(model_path)
    try:
        model = onnx.load(str(model_path), load_external_data=False)
    except Exception:   # noqa: BLE001 - any file that does not parse as a model keeps nothing elsewhere
        return set()
    found = set()
    nodes = [node for function in model.functions for node in function.node]
    sparse = [t for s in model.graph.sparse_initializer for t in (s.values, s.indices)]
    for tensor in [*_graph_tensors(model.graph), *sparse, *(t for node in nodes for t in attribute_tensors(node))]:
        for entry in tensor.external_data:
            if entry.key == "location" and entry.value:
                found.add(Path(os.path.realpath(model_path.parent / entry.value)))
    return found


def _graph_tensors(graph: onnx.GraphProto):
    """Every tensor a graph holds: initializers, and those in its nodes' attributes and bodies."""
    yield from graph.initializer
    for node in graph.node:
        yield from attribute_tensors(node)


def attribute_tensors(node: onnx.NodeProto):
    """Every tensor a node's attributes hold: tensor values, and all of its bodies' (If, Loop)."""
    for attribute in node.attribute:
        if attribute.HasField("t"):
            yield attribute.t
        yield from attribute.tensors
        if attribute.HasField("g"):
            yield from _graph_tensors(attribute.g)
        for body in attribute.graphs:
            yield from _graph_tensors(body)


def _write_with_data(model: onnx.ModelProto, path: Path, detached: Detached,
                     check: Callable[[Path], None]) -> Written:
    data = data_path(path)
    for tensor in model.graph.initializer:
        for entry in tensor.external_data:
            if entry.key == "location" and entry.value == _UNNAMED:
                entry.value = data.name
    staging = Path(tempfile.mkdtemp(prefix=".ifg-export-", dir=path.parent))
    try:
        staged_data, staged_model = staging / data.name, staging / path.name
        with open(staged_data, "wb") as handle:
            end = 0
            for offset, raw in detached.pieces:
                handle.write(b"\0" * (offset - end))
                view = memoryview(raw)
                for at in range(0, len(view), _CHUNK):
                    handle.write(view[at:at + _CHUNK])
                end = offset + len(view)
            _sync(handle)
        with open(staged_model, "wb") as handle:
            handle.write(model.SerializeToString())
            _sync(handle)
        for staged, target in ((staged_data, data), (staged_model, path)):   # the replaced files' permissions
            os.chmod(staged, file_mode(target))
        check(staged_model)
        _move_in(staged_data, data, staged_model, path)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Written(path, data)


def _move_in(staged_data: Path, data: Path, staged_model: Path, path: Path) -> None:
    """The data file, then the model, into place; when the model's move fails (a lock, a
    folder in its place), the old data file goes back, so the old model still reads its own.
    A data file that is a link: the file it names is replaced (copied there when it lies on
    another file system); the old one waits beside it until the model is in place."""
    data = followed(data)
    backup = data.with_name(f".ifg-previous-{data.name}")   # beside it: a rename on its own file system
    had_data = data.is_file()
    if had_data:
        os.replace(data, backup)
    moved = False
    try:
        _move(staged_data, data)
        moved = True
        os.replace(staged_model, path)
    except OSError:
        if had_data:
            os.replace(backup, data)
        elif moved:
            data.unlink()
        raise
    if had_data:
        backup.unlink(missing_ok=True)


def _move(source: Path, target: Path) -> None:
    try:
        os.replace(source, target)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        shutil.copyfile(source, target)   # another file system (the data file a link there)


def _sync(handle) -> None:
    handle.flush()
    os.fsync(handle.fileno())
