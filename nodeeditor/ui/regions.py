"""Edit > Extract Selection and Edit > Splice Back: cut a region out of a document into a new
window, work on it alone on real data, and write it back.

Extract Selection (Ctrl+Shift+X, also on the canvas's right-click menu): the selected nodes
are cut out (:mod:`nodeeditor.graph.regions`), the tensors entering the region taken from the
whole graph's run. That run is the window's own evaluation runner, off the UI thread: when its
values are current they are used at once (the runner's engine keeps every intermediate, so
nothing is computed again); while it is still running, or stale, the extraction waits for it
to end. On the UI thread only what the cut reads from the document is taken
(``plan_region``: the region's nodes and the wires crossing it, no run and no evaluation
plan) with the entering values from the engine's cache (``cached_values``); the cut-out is
built on a background worker (``build_region``), its progress on the status line; Run > Cancel
Run (Esc), another Extract or another document cancels it. A value the engine lacks (never
kept) is computed there too, from a plan of its producers. The cut-out opens as a new
untitled document (marked modified) in a new window, which remembers where it came from
(:class:`RegionLink`). No selection, a run that failed or was cancelled, a crossing tensor
that cannot be computed: the status line says why (a warning box too for the last two) and
nothing changes.

Splice Back, in the extracted window: the cut-out as it is now replaces the old region in
the original document, as one undo command (:class:`SpliceCommand`, "Splice Region") pushed
to the original window, so Ctrl+Z there restores the old region exactly and Ctrl+Shift+Z
splices again. It is refused, with a warning naming the reason and nothing changed, when the
original window was closed or shows another document, or when the region no longer matches
there (:func:`nodeeditor.graph.regions.splice_refusal`: a region node gone or edited since the
cut, a wire into the region removed, added or re-pointed, a tensor read outside no longer
given out). A later Splice Back from the same window replaces the region the previous one
wrote (or, once that splice is undone, the old region again).

UI thread only. New windows are kept alive here until they are closed (they delete
themselves on close).
"""
from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph.document import Graph
from nodeeditor.graph.regions import (
    Extraction,
    RegionBody,
    Splice,
    build_region,
    cached_values,
    plan_region,
    splice,
    splice_refusal,
    unsplice,
)

from . import lifecycle
from .background import BackgroundWorker
from .canvas import GraphScene
from .runner import EvaluationRunner
from .status_line import ShowStatus

MB = QtWidgets.QMessageBox
#: How many progress reports building a cut-out sends at most.
PROGRESS_STEPS = 40


class RegionHost(Protocol):
    """What the region actions need from the window that shows a document."""

    graph: Graph
    scene: GraphScene
    runner: EvaluationRunner
    regions: RegionActions
    documentChanged: QtCore.SignalInstance

    def set_document(self, graph: Graph, path: Path | None, modified: bool = False) -> None: ...
    def push(self, command: QtGui.QUndoCommand) -> bool: ...   # False: refused (a training run)
    def show_status(self, message: str, error: bool = False) -> None: ...


@dataclass
class RegionLink:
    """An extracted window's tie to where it was cut from: the original window (weakly), the
    document it showed then, the cut-out document, and the extraction as it now stands in the
    original (a splice moves it to the spliced nodes; undoing the splice moves it back)."""

    source: weakref.ReferenceType
    source_graph: Graph
    cut_graph: Graph
    extraction: Extraction


class SpliceCommand(QtGui.QUndoCommand):
    """Write ``body`` in place of the region ``link.extraction`` names in ``graph`` (checked by
    the caller with ``splice_refusal``); undo restores the old region exactly.

    The region is the one the link names when the command is done, not when it was made: a
    redo of an earlier splice names the region anew, and a later splice's redo must find it
    (a second splice could not be redone). A redo that can no longer splice changes nothing
    and leaves the history (the command goes obsolete) instead of raising."""

    def __init__(self, graph: Graph, link: RegionLink, body: RegionBody) -> None:
        super().__init__("Splice Region")
        self.graph, self.link, self.body = graph, link, body
        self.before = link.extraction
        self.done: Splice | None = None

    def redo(self) -> None:
        self.before = self.link.extraction
        try:
            self.done = splice(self.graph, self.before, self.body)
        except ValueError:
            self.done = None
            self.setObsolete(True)
            return
        self.link.extraction = self.done.region

    def undo(self) -> None:
        if self.done is None:
            return
        unsplice(self.graph, self.done)
        self.link.extraction = self.before


#: Windows opened by Extract, kept alive until closed.
_windows: set[QtWidgets.QWidget] = set()


class RegionActions(QtCore.QObject):
    """The two actions of one window (``extract_action``, ``splice_action``) and their work.
    ``new_window()`` makes an empty window of the same kind (shown by the caller)."""

    def __init__(self, host: RegionHost, dialog_parent: QtWidgets.QWidget, new_window: Callable[[], RegionHost],
                 status: ShowStatus) -> None:
        super().__init__(dialog_parent)
        self.host, self.parent_widget, self._new_window, self._status = host, dialog_parent, new_window, status
        self.link: RegionLink | None = None
        self.last_window: RegionHost | None = None   # the window the last extraction opened
        self._pending: tuple[list[str], Graph] | None = None
        self.extract_action = QtGui.QAction("E&xtract Selection to New Window", dialog_parent)
        self.extract_action.setShortcut(QtGui.QKeySequence("Ctrl+Shift+X"))
        self.extract_action.setStatusTip("Cut the selected nodes out into a new window; the tensors entering them "
                                         "become graph inputs holding the values of the whole graph's run")
        self.extract_action.triggered.connect(self.extract)
        self.splice_action = QtGui.QAction("S&plice Back into Original", dialog_parent)
        self.splice_action.setStatusTip("Write this extracted region back into the document it was cut from, in "
                                        "place of the old region (one undo step there)")
        self.splice_action.triggered.connect(self.splice_back)
        self.splice_action.setEnabled(False)
        dialog_parent.addAction(self.extract_action)
        dialog_parent.addAction(self.splice_action)
        host.runner.busyChanged.connect(self._on_busy_changed)
        host.documentChanged.connect(self._on_document_changed)
        self._worker = BackgroundWorker("indexflow-extract", self._built, self._build_progress)
        self._building: Graph | None = None     # the document a cut-out is being built from
        lifecycle.register(self)

    @property
    def building(self) -> bool:
        """A cut-out is being built on the worker."""
        return self._building is not None

    def cancel_extract(self) -> bool:
        """Stop building a cut-out (True if one was being built)."""
        if self._building is None:
            return False
        self._building = None
        self._worker.abandon()
        self._status("Extract cancelled")
        return True

    def shutdown(self) -> None:
        self._building = None
        self._worker.abandon()
        self._worker.join(5.0)

    # ------------------------------------------------------------------ extract
    def extract(self) -> None:
        """Extract Selection (see the module docstring)."""
        ids = self.host.scene.selected_node_ids()
        if not ids:
            self._status("Extract: select the nodes to cut out first", error=True)
            return
        self._pending = (list(ids), self.host.graph)
        runner = self.host.runner
        if runner.busy or not runner.is_current():
            self._status("Extract: waiting for the run of the whole graph…")
            if not runner.busy:
                runner.schedule()
            return
        self._finish_extract()

    def _on_busy_changed(self, busy: bool) -> None:
        if not busy and self._pending is not None:
            self._finish_extract()

    def _finish_extract(self) -> None:
        ids, graph = self._pending
        self._pending = None
        if graph is not self.host.graph:
            return   # another document is shown now: the request went with the old one
        if not self.host.runner.is_current():
            self._refuse_extract("the run of the whole graph was cancelled or did not finish: "
                                 "Run > Evaluate Now (Ctrl+R), then extract again")
            return
        ids = [nid for nid in ids if graph.has_node(nid)]
        engine = self.host.runner.engine
        try:
            plan = plan_region(graph, ids)
            values, missing = cached_values(plan, engine)
        except ValueError as exc:
            self._refuse_extract(str(exc))
            return
        run = engine.plan(missing) if missing else None   # (kept values make this rare)

        def job(cancel, report) -> Extraction | None:
            found = values
            if run is not None:
                engine.execute(run, cancel=cancel, keep=missing)
                found = cached_values(plan, engine)[0]
                if len(found) < len(plan.tensors_in):
                    gone = next(t for t in plan.tensors_in if t not in found)
                    raise ValueError(f"cannot extract: the tensor {plan.labels[gone]!r} that enters the region "
                                     "cannot be computed (it has no value)")
            shown = [-1]

            def every_step(done: int, total: int) -> None:    # a few dozen reports, not one per node
                if done * PROGRESS_STEPS // total != shown[0]:
                    shown[0] = done * PROGRESS_STEPS // total
                    report(done, total)

            return build_region(plan, found, cancel.is_set, every_step)

        if self._building is not None:
            self._worker.abandon()        # another Extract: the newer request wins
        self._building = graph
        self._worker.start(job)
        self._status(f"Extract: building the cut-out of {len(plan.region)} nodes…")

    def _build_progress(self, token: int, done: int, total: int) -> None:
        if token == self._worker.token and self._building is not None:
            self._status(f"Extract: building the cut-out… {done}/{total}")

    def _built(self, token: int, outcome: object) -> None:
        graph = self._building
        if token != self._worker.token or graph is None:
            return       # cancelled, or a newer request
        self._building = None
        if outcome is None:
            self._status("Extract cancelled")
            return
        if isinstance(outcome, ValueError):
            self._refuse_extract(str(outcome))
            return
        if isinstance(outcome, BaseException):
            self._refuse_extract(f"{type(outcome).__name__}: {outcome}")
            return
        if graph is not self.host.graph:
            return       # another document is shown now: the request went with the old one
        self._open_cut(graph, outcome)

    def _open_cut(self, graph: Graph, cut: Extraction) -> None:
        window = self._new_window()
        window.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        _windows.add(window)
        window.destroyed.connect(lambda _obj=None, w=window: _windows.discard(w))
        window.set_document(cut.graph, None, modified=True)
        window.regions.set_link(RegionLink(weakref.ref(self.host), graph, cut.graph, cut))
        window.show()
        self.last_window = window
        n, k = len(cut.nodes), len(cut.inputs)
        self._status(f"Extracted {n} node{'s' if n != 1 else ''} into a new window")
        window.show_status(f"Extracted from “{graph.name}”: {k} input{'s' if k != 1 else ''} hold the values of "
                           "its run. Edit > Splice Back into Original writes the region back.")

    def _refuse_extract(self, reason: str) -> None:
        reason = reason.removeprefix("cannot extract: ")
        self._status(f"Not extracted: {reason}", error=True)
        MB.warning(self.parent_widget, "Cannot extract", reason)

    # ------------------------------------------------------------------ splice
    def set_link(self, link: RegionLink | None) -> None:
        """This window shows ``link.cut_graph``, cut from ``link``'s source (None: no link)."""
        self.link = link
        self.splice_action.setEnabled(link is not None)

    def _on_document_changed(self) -> None:
        if self._building is not None and self._building is not self.host.graph:
            self.cancel_extract()
        if self.link is not None and self.host.graph is not self.link.cut_graph:
            self.set_link(None)   # File > New / Open here: no longer the cut-out

    def splice_back(self) -> bool:
        """Splice Back (see the module docstring); True when the region was written back."""
        link = self.link
        if link is None or self.host.graph is not link.cut_graph:
            self._status("Splice Back: this window does not show an extracted region", error=True)
            return False
        source = link.source()
        alive = source is not None
        try:
            alive = alive and source.isVisible() and source.graph is link.source_graph
        except RuntimeError:   # the window was deleted
            alive = False
        if not alive:
            return self._refuse_splice("the original document is no longer open (its window was closed or now "
                                       "shows another document)")
        body = RegionBody.of(self.host.graph)
        reason = splice_refusal(link.source_graph, link.extraction, body)
        if reason is not None:
            return self._refuse_splice(reason)
        command = SpliceCommand(link.source_graph, link, body)
        if source.push(command) is False:
            return self._refuse_splice("the original window refuses edits now (a training run is going)")
        if command.done is None:        # checked above, yet the graph would not take it
            return self._refuse_splice("the region could not be written back (it changed in the original)")
        n = len(link.extraction.nodes)
        source.scene.select_nodes(list(link.extraction.nodes))   # where the region now is
        source.show_status(f"Spliced the edited region ({n} node{'s' if n != 1 else ''}) back; "
                           "Ctrl+Z restores the old region")
        self._status("Spliced back into the original document")
        return True

    def _refuse_splice(self, reason: str) -> bool:
        reason = reason.removeprefix("cannot splice: ")
        self._status(f"Not spliced: {reason}", error=True)
        MB.warning(self.parent_widget, "Cannot splice back", reason)
        return False
