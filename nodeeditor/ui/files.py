"""The File menu's work: New, Open, Open Recent, Save, Save As, Examples, Import/Export ONNX,
asking before unsaved changes are discarded, asking once whether a graph just opened may read
files outside its folder, and the recovery file.

Recovery: the host calls :meth:`FileController.note_edit` after every edit; the recovery file
is written ``INDEXFLOW_RECOVERY_MS`` (default 2000) after the last one, and at least every five
times that while edits keep coming, so a crash loses at most the last few seconds. The graph is
snapshot on the UI thread (:func:`nodeeditor.graph.fileformat.graph_document`: plain data and
the graph's own read-only arrays); a large graph's files are written on a background thread
(:class:`RecoveryWriter`), one write at a time, the latest snapshot winning.

:class:`FileController` talks to the main window through :class:`DocumentHost`, a small
surface: the shown ``graph``, ``set_document``, ``is_modified``, ``mark_saved``, ``push`` and
``show_status``. It fills the File menu's Examples and Open Recent submenus
(:meth:`FileController.fill_examples_menu`, :meth:`FileController.set_recent_menu`) and keeps
the second up to date. Dialogs (parented to ``dialog_parent``) go through QMessageBox and
QFileDialog static functions so tests can replace them.
"""
from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from typing import ClassVar, Protocol

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import EXTENSION, GraphFileError, list_examples, load_example, load_graph, save_graph
from nodeeditor.graph import nodes as N
from nodeeditor.graph.atomic import pid_alive
from nodeeditor.graph.document import Graph
from nodeeditor.graph.examples import EXAMPLES_DIR
from nodeeditor.graph.fileformat import graph_document, sidecar_path, write_atomically, write_graph_files
from ops import config

from . import lifecycle
from . import settings as S
from .reading import ReadCancelledError, read_off_ui_thread

GRAPH_FILTER = f"IndexFlow graphs (*{EXTENSION});;ONNX models (*.onnx);;All files (*)"
MB = QtWidgets.QMessageBox


class DocumentHost(Protocol):
    """What the File menu needs from the window that shows the document."""

    graph: Graph

    def set_document(self, graph: Graph, path: Path | None, modified: bool = False) -> None: ...
    def is_modified(self) -> bool: ...
    def mark_saved(self) -> None: ...
    def push(self, command: QtGui.QUndoCommand) -> None: ...
    def show_status(self, message: str, error: bool = False) -> None: ...


class FileController(QtCore.QObject):
    def __init__(self, host: DocumentHost, dialog_parent: QtWidgets.QWidget) -> None:
        super().__init__(dialog_parent)
        self.host = host
        self.parent_widget = dialog_parent
        self.current_path: Path | None = None
        self.export_dialog = None   # the last File > Export ONNX dialog (non-modal)
        self._recent_menu: QtWidgets.QMenu | None = None
        self.recovery_timer = QtCore.QTimer(self)
        self.recovery_timer.setSingleShot(True)
        self.recovery_timer.setInterval(config.recovery_ms())  # INDEXFLOW_RECOVERY_MS, read per window
        self.recovery_timer.timeout.connect(lambda: self.write_recovery(wait=False))
        self._edits_pending_since: float | None = None
        self.recovery_writer = RecoveryWriter()
        self.recovery_key = self._claim_recovery_key()

    # ------------------------------------------------------------------ menus
    def fill_examples_menu(self, menu: QtWidgets.QMenu) -> None:
        """One action per bundled example (its name as the action's data) that opens it."""
        for info in self.examples():
            action = menu.addAction(info.title)
            action.setStatusTip(info.description)
            action.setToolTip(info.description)
            action.setData(info.name)
            action.triggered.connect(lambda _=False, n=info.name: self.open_example(n))

    def set_recent_menu(self, menu: QtWidgets.QMenu) -> None:
        """Keep ``menu`` listing the recent files (newest first), from now on."""
        self._recent_menu = menu
        self.update_recent_menu()

    def update_recent_menu(self) -> None:
        menu = self._recent_menu
        if menu is None:
            return
        menu.clear()
        recent = S.recent_files()
        for path in recent:
            action = menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_path(p))
        if not recent:
            menu.addAction("(none)").setEnabled(False)

    # ------------------------------------------------------------------ helpers
    def _dir(self) -> str:
        return S.last_directory() or str(Path.home())

    def warn(self, title: str, text: str) -> None:
        """A warning box over the window (a file that cannot be opened, saved or recovered)."""
        MB.warning(self.parent_widget, title, text)

    def report_not_opened(self, message: str) -> None:
        """Say why a file was not opened: a warning box, and the reason in the status line."""
        self.warn("Cannot open file", message)
        self.host.show_status(f"Not opened: {message}", error=True)

    def maybe_discard(self) -> bool:
        """True when the current graph may be replaced (saved, discarded, or unchanged)."""
        if not self.host.is_modified():
            return True
        name = self.current_path.name if self.current_path else self.host.graph.name
        answer = MB.question(self.parent_widget, "Unsaved changes",
                             f"“{name}” has unsaved changes. Save them first?",
                             MB.StandardButton.Save | MB.StandardButton.Discard | MB.StandardButton.Cancel,
                             MB.StandardButton.Save)
        if answer == MB.StandardButton.Save:
            return self.save()
        return answer == MB.StandardButton.Discard

    # ------------------------------------------------------------------ open
    def new(self) -> bool:
        if not self.maybe_discard():
            return False
        self.host.set_document(Graph(), None)
        return True

    def open_dialog(self) -> bool:
        if not self.maybe_discard():
            return False
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self.parent_widget, "Open graph", self._dir(), GRAPH_FILTER)
        return bool(path) and self.open_path(path, ask=False)

    def read(self, path: str | os.PathLike) -> Graph:
        """A graph from a graph file or (``.onnx``) through the importer; raises
        GraphFileError / OnnxImportError / ImportError with a message for people."""
        path = Path(path)
        if path.suffix.lower() == ".onnx":
            from nodeeditor.onnx_io import import_model

            return import_model(path)
        return load_graph(path)

    def open_path(self, path: str | os.PathLike, ask: bool = True) -> bool:
        """Open a file (read off the UI thread: a long read shows a progress dialog with
        Cancel, see :mod:`.reading`); on any problem show the message and leave the open graph untouched. A
        graph whose file sources name files outside its folder asks once whether it may read
        them (:meth:`ask_outside_files`)."""
        if ask and not self.maybe_discard():
            return False
        path = Path(path)
        try:
            graph = read_off_ui_thread(self.read, path, self.parent_widget)
        except ReadCancelledError:
            self.host.show_status(f"Not opened: reading {path.name} was cancelled")
            return False
        except Exception as exc:  # noqa: BLE001 - GraphFileError, OnnxImportError, OSError...: all shown
            message = str(exc) if isinstance(exc, GraphFileError) or str(path) in str(exc) else f"{path}: {exc}"
            self.report_not_opened(message)
            return False
        self.ask_outside_files(graph, path)
        is_graph_file = path.suffix.lower() != ".onnx"
        if is_graph_file and path.resolve().parent == EXAMPLES_DIR.resolve():
            # a bundled example opened by its path is a template too (Save asks for a file), as
            # from the Examples menu: saving over the installed copy would change it for good
            self.host.set_document(graph, None)
            self.host.show_status(f"Opened example {path.name}: Save asks where to keep your copy")
            return True
        # a graph file is the file a link points to (graph.file_path): its folder is where
        # relative file sources and the recovery's restore resolve
        self.host.set_document(graph, graph.file_path if is_graph_file else None, modified=not is_graph_file)
        if not is_graph_file:
            self.note_edit()   # an imported model is unsaved work from the start
        S.add_recent_file(path)
        S.set_last_directory(path)
        self.update_recent_menu()
        self.host.show_status(f"Opened {path}")
        return True

    def ask_outside_files(self, graph: Graph, path: Path) -> bool:
        """When ``graph`` (just read from ``path``) has file sources naming files outside its
        folder and may not read them yet, ask once whether it may; True when allowed (or
        nothing to ask). Until allowed, each such node shows why it has no value."""
        if graph.outside_files_allowed:
            return True
        scope = graph.file_scope
        outside = [n for n in graph.nodes if isinstance(n, N.FileSource) and n.path and scope.is_outside(n.path)]
        if not outside:
            return True
        listing = "\n".join(f"• {n.label}: {n.path}" for n in outside[:8])
        more = f"\n… and {len(outside) - 8} more" if len(outside) > 8 else ""
        text = (f"“{path.name}” reads {len(outside)} file(s) outside its folder:\n\n{listing}{more}\n\n"
                "A graph someone sends you can name any file you can read, and its contents would show in the "
                "editor and go into exported models. Read these files?\n\n"
                "If you say No, those nodes show the refusal; files inside the graph's folder are read either way.")
        answer = MB.question(self.parent_widget, "Read files outside the graph's folder?", text,
                             MB.StandardButton.Yes | MB.StandardButton.No, MB.StandardButton.No)
        if answer == MB.StandardButton.Yes:
            graph.set_outside_files_allowed(True)
            return True
        self.host.show_status(f"{len(outside)} file(s) outside the graph's folder are not read", error=True)
        return False

    def open_example(self, name: str) -> bool:
        if not self.maybe_discard():
            return False
        try:
            graph = load_example(name)
        except (KeyError, GraphFileError) as exc:  # no such example, or a damaged one
            self.warn("Cannot open example", str(exc))
            return False
        self.host.set_document(graph, None)   # an example is a template: Save asks for a file
        title = next((info.title for info in self.examples() if info.name == name), None) or graph.name
        self.host.show_status(f"Opened example: {title}")
        return True

    def examples(self):
        try:
            return list_examples()
        except (GraphFileError, OSError):  # a damaged bundle: no examples to offer
            return []

    def open_dropped(self, paths: list[str]) -> bool:
        """Files dropped on the canvas: the first is opened as File > Open would (a graph file,
        or an ONNX model imported), asking first about unsaved changes; more are named, not
        opened (one document per window)."""
        if not paths:
            return False
        opened = self.open_path(paths[0])
        if opened and len(paths) > 1:
            self.host.show_status(f"Opened {Path(paths[0]).name}; {len(paths) - 1} more dropped file(s) not "
                                  "opened (one document at a time)")
        return opened

    def import_onnx(self) -> bool:
        if not self.maybe_discard():
            return False
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self.parent_widget, "Import ONNX model", self._dir(),
                                                        "ONNX models (*.onnx);;All files (*)")
        return bool(path) and self.open_path(path, ask=False)

    # ------------------------------------------------------------------ save
    def save(self) -> bool:
        if self.current_path is None:
            return self.save_as()
        return self._save_to(self.current_path)

    def save_as(self) -> bool:
        start = str(Path(self._dir()) / f"{self.host.graph.name or 'untitled'}{EXTENSION}")
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self.parent_widget, "Save graph", start,
                                                        f"IndexFlow graphs (*{EXTENSION})")
        if not path:
            return False
        if not path.endswith(EXTENSION):
            path += EXTENSION
        graph = self.host.graph
        if graph.name in ("", "untitled"):
            # a new graph takes its file's name (the model's too); not an undo step: the next
            # Ctrl+Z undoes the last edit, not the save
            graph.set_setting("name", Path(path).name[: -len(EXTENSION)])
        return self._save_to(Path(path))

    def _save_to(self, path: Path) -> bool:
        try:
            save_graph(self.host.graph, path)
        except GraphFileError as exc:
            self.warn("Cannot save", str(exc))
            self.host.show_status(f"Not saved: {exc}", error=True)   # not the last save's "Saved …"
            return False
        self.current_path = self.host.graph.file_path   # where a link points (save_graph followed it)
        self.host.mark_saved()
        S.add_recent_file(path)
        S.set_last_directory(path)
        self.update_recent_menu()
        self.host.show_status(f"Saved {path}")
        return True

    def export_onnx(self) -> None:
        from .export_dialog import ExportDialog, default_export_path

        if self.current_path is not None:
            start = str(self.current_path.with_name(self.current_path.name.replace(EXTENSION, "") + ".onnx"))
        else:   # an example or a graph never saved: its name in the last-used (or home) folder
            start = default_export_path(self.host.graph, self._dir())
        dialog = ExportDialog(self.host.graph, start, self.parent_widget, push=self.host.push,
                              status=self.host.show_status)
        dialog.exported.connect(lambda p: S.set_last_directory(p))
        self.export_dialog = dialog
        dialog.open()

    # ------------------------------------------------------------------ recovery
    #: The recovery keys of this process's open windows (each window has its own file).
    _keys_in_use: ClassVar[set[str]] = set()

    @classmethod
    def _claim_recovery_key(cls) -> str:
        """``"<pid>"`` for the process's first window, ``"<pid>-<n>"`` (the lowest free n) for
        each other window open at the same time (an extracted region, a second document)."""
        pid = os.getpid()
        key, n = str(pid), 2
        while key in cls._keys_in_use:
            key, n = f"{pid}-{n}", n + 1
        cls._keys_in_use.add(key)
        return key

    def recovery_paths(self, key: int | str | None = None) -> tuple[Path, Path]:
        """(graph file, metadata file) of the recovery written under ``key``: this window's
        by default, or a leftover's (its key, or the pid of a process's first window)."""
        key = self.recovery_key if key is None else str(key)
        folder = S.state_dir() / "recovery"
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"recovery-{key}{EXTENSION}", folder / f"recovery-{key}.json"

    #: While edits keep coming, the recovery file is still written at least this many delays apart.
    MAX_DELAYS = 5

    def note_edit(self) -> None:
        """The document changed: write the recovery file ``INDEXFLOW_RECOVERY_MS`` after the
        last edit (the timer restarts with each one), but no later than ``MAX_DELAYS`` delays
        after the first edit not yet written."""
        now = time.monotonic()
        if self._edits_pending_since is None:
            self._edits_pending_since = now
        overdue = now - self._edits_pending_since >= self.MAX_DELAYS * self.recovery_timer.interval() / 1000
        if not (overdue and self.recovery_timer.isActive()):
            self.recovery_timer.start()

    def write_recovery(self, wait: bool = True) -> Path | None:
        """Write the graph to this window's recovery file when it has unsaved changes; returns
        the file (None when nothing needed writing). The graph is snapshot now, on the UI
        thread; the files are written now, or with ``wait=False`` for a large graph on the
        background writer. The shown graph is never touched (no path is re-pointed or rebased:
        relative file paths stay relative to the graph's own folder, which the metadata
        records)."""
        self._edits_pending_since = None
        if not self.host.is_modified():
            return None
        graph_path, meta_path = self.recovery_paths()
        graph = self.host.graph
        doc, arrays = graph_document(graph, sidecar_path(graph_path).name)
        meta = {"pid": os.getpid(), "time": time.strftime("%Y-%m-%d %H:%M:%S"), "name": graph.name,
                "original": str(self.current_path) if self.current_path else None,
                "outside_files_allowed": graph.outside_files_allowed,
                "allowed_files": sorted(str(p) for p in graph.file_scope.allowed_files)}
        job = RecoveryJob(graph_path, meta_path, doc, arrays, meta)
        if wait or not job.large:
            self.recovery_writer.wait()
            return graph_path if job.run() else None
        self.recovery_writer.submit(job)
        return graph_path

    def stop_recovery(self) -> None:
        """The window is closing: no more recovery writes, and this window's file goes (its key
        is free for another window)."""
        self.recovery_timer.stop()
        self.clear_recovery()
        self._keys_in_use.discard(self.recovery_key)

    def clear_recovery(self, key: int | str | None = None) -> None:
        """Remove the recovery written under ``key`` (default: this window's)."""
        if key is None or str(key) == self.recovery_key:
            self.recovery_timer.stop()
            self._edits_pending_since = None
            self.recovery_writer.wait()   # a write in flight must not bring the file back
        graph_path, meta_path = self.recovery_paths(key)
        for p in (graph_path, meta_path, sidecar_path(graph_path)):
            if p.exists():
                p.unlink()

    def pending_recoveries(self, for_path: str | os.PathLike | None = None) -> list[dict]:
        """Recovery files left by processes that are gone (a crash), newest first; with
        ``for_path``, only those whose graph had been opened from or saved to that file."""
        found = []
        for meta_path in (S.state_dir() / "recovery").glob("recovery-*.json"):
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
                pid = int(meta["pid"])
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if pid_alive(pid):
                continue
            graph_path = self.recovery_paths(meta_path.stem.removeprefix("recovery-"))[0]
            if not graph_path.is_file():   # killed before its first graph was written: nothing to restore
                meta_path.unlink(missing_ok=True)
                continue
            if for_path is not None and not _same_file(meta.get("original"), for_path):
                continue
            meta["key"] = meta_path.stem.removeprefix("recovery-")
            meta["graph_path"] = str(graph_path)
            found.append(meta)
        found.sort(key=lambda m: m.get("time", ""), reverse=True)
        return found

    def offer_recovery(self, for_path: str | os.PathLike | None = None) -> bool:
        """Ask to restore what a crashed session left; True when a graph was restored.

        Without ``for_path`` (the app started on no file): the newest leftover is offered
        and removed after the answer (No discards it, and the question says so); older ones
        stay, each offered at a later start, so a second crashed session's work is never
        removed unseen. With ``for_path`` (the app started on that file): only the work on
        that same file is offered — restoring it shows the recovered graph in place of the
        file's saved content, still pointing at the file and marked unsaved — and only those
        leftovers are removed; work on other files or on unsaved graphs stays for a later
        start, so opening one file never replaces it with unrelated work."""
        pending = self.pending_recoveries(for_path)
        if not pending:
            return False
        meta = pending[0]
        if for_path is None:
            text = (f"IndexFlow did not close properly. Restore the unsaved graph "
                    f"“{meta.get('name')}” from {meta.get('time')}? No discards it.")
            if len(pending) > 1:
                more = len(pending) - 1
                text += (f" ({more} older unsaved graph{'s are' if more > 1 else ' is'} kept and offered "
                         "at the next start.)")
            handled = pending[:1]
        else:
            text = (f"IndexFlow did not close properly while “{Path(for_path).name}” had unsaved changes. "
                    f"Restore them (from {meta.get('time')}) instead of the saved file? No discards them.")
            handled = pending
        answer = MB.question(self.parent_widget, "Recover unsaved work?", text,
                             MB.StandardButton.Yes | MB.StandardButton.No, MB.StandardButton.Yes)
        restored = False
        if answer == MB.StandardButton.Yes:
            try:
                graph = load_graph(meta["graph_path"], allow_outside_files=meta.get("outside_files_allowed") is True)
            except GraphFileError as exc:
                self.warn("Cannot recover", str(exc))
            else:
                original = Path(meta["original"]) if meta.get("original") else None
                graph.file_path = original   # relative file paths are relative to the original's folder
                for allowed in meta.get("allowed_files") or ():
                    if isinstance(allowed, str):
                        graph.allow_file(allowed)   # files chosen in the panel before the crash
                self.host.set_document(graph, original, modified=True)
                where = f"; Save writes it to {original.name}" if original else ""
                self.host.show_status(f"Restored the unsaved work from {meta.get('time')}{where}")
                restored = True
        for m in handled:
            self.clear_recovery(m["key"])
        if restored:
            self.note_edit()   # the restored work is unsaved: it has a recovery file of its own again
        return restored


class RecoveryJob:
    """One recovery write: the snapshot (document, arrays, metadata) and where it goes."""

    #: A snapshot with a sidecar, or this many nodes, is written off the UI thread.
    LARGE_NODES = 200

    def __init__(self, graph_path: Path, meta_path: Path, doc: dict, arrays: dict, meta: dict) -> None:
        self.graph_path, self.meta_path = graph_path, meta_path
        self.doc, self.arrays, self.meta = doc, arrays, meta
        self.large = bool(arrays) or len(doc.get("nodes", ())) >= self.LARGE_NODES

    def run(self) -> bool:
        """Write the metadata, then the graph pair, each atomically; False when the disk refused.
        The metadata goes first so that a process killed between the two never leaves a graph
        nobody lists (a metadata file without its graph is not offered)."""
        try:
            write_atomically(self.meta_path, json.dumps(self.meta).encode("utf-8"))
            write_graph_files(self.graph_path, self.doc, self.arrays)
        except (OSError, ValueError):   # ValueError: a number JSON cannot hold (save names it)
            return False
        return True


class RecoveryWriter:
    """Writes recovery snapshots on one background thread, one at a time; a snapshot handed
    over while one is being written replaces any still waiting (only the latest matters).
    ``wait()`` returns once nothing is pending; ``shutdown()`` (registered with
    :mod:`.lifecycle`) is the same."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._next: RecoveryJob | None = None
        self._thread: threading.Thread | None = None
        lifecycle.register(self)

    def submit(self, job: RecoveryJob) -> None:
        with self._lock:
            self._next = job
            self._idle.clear()
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="indexflow-recovery", daemon=True)
                self._thread.start()

    def _work(self) -> None:
        while True:
            with self._lock:
                job, self._next = self._next, None
                if job is None:
                    self._thread = None
                    self._idle.set()
                    return
            job.run()

    def wait(self, timeout: float | None = None) -> bool:
        return self._idle.wait(timeout)

    def shutdown(self) -> None:
        self.wait()


def _same_file(a: str | os.PathLike | None, b: str | os.PathLike) -> bool:
    """Whether two paths name the same file (the file need not exist any more)."""
    if not a:
        return False
    try:
        return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()
    except (OSError, RuntimeError):
        return False
