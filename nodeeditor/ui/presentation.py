"""View > Presentation (F5): the editor as a teacher shows it on a projector.

Entering: the window goes full screen; the palette, the properties and the tensor viewer are
hidden (View > Show Panels, F6, brings them back and hides them again, still presenting;
View > Show Lesson Text, F7, puts the *aside* dock, the lesson's text, above the stage and
takes it away again, :data:`ASIDE_SHARE` of the height);
the Explainer moves beside the canvas and takes :data:`EXPLAINER_SHARE` of the width; its
texts grow to the largest of :data:`ZOOMS` at which the current step shows whole (grids,
formula) without scrolling, never below 1.0; the canvas frames the explained operator with
its inputs and outputs at :data:`MIN_CANVAS_ZOOM` at least, so node titles and port labels
are read from the back of the room; the Explainer's keys (Space, Left, Right, Home, End) work
window-wide. Esc (or F5 again) leaves: the window's geometry, full-screen state, docks and
their places, the Explainer's text size and keys come back as they were; Run > Cancel Run
has Esc again.

The dock beside the canvas is the *stage* (:meth:`Presentation.set_stage`): the Explainer, or
the Quiz while a quiz runs (the Explainer, which would show the answers, then stays hidden;
the Quiz's text grows as the Explainer's does; the lesson's text, with F6 or F7, is
:data:`LESSON_TEXT_ZOOM` times its size). A quiz started or ended while presenting takes
the stage or gives it back (:meth:`restage`); leaving keeps the quiz running.

:class:`Presentation` owns only this mode's state; it changes the window through Qt (dock
visibility and places, full screen), the Explainer through its public methods, the canvas
view's transform, and the shortcut of the cancel action it is given.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from .canvas import GraphScene, GraphView
from .explainer import ExplainerWidget
from .explainer.widget import settle

#: The Explainer's share of the window's width while presenting.
EXPLAINER_SHARE = 0.58
#: Text zooms tried for the Explainer, largest first; the first that fits is kept.
ZOOMS = (1.6, 1.45, 1.3, 1.15, 1.0)
#: The canvas never frames below this zoom while presenting (node titles stay readable).
MIN_CANVAS_ZOOM = 1.0
MAX_CANVAS_ZOOM = 1.6
FRAME_MARGIN = 24.0
LEAVE_KEY = "Esc"
#: The lesson's text (the Lessons dock, shown with F6 or F7) is this many times its usual size while
#: presenting: read from the back of the room like the Explainer's.
LESSON_TEXT_ZOOM = 1.45
#: The aside's share of the stage column's height (F7), the stage below it.
ASIDE_SHARE = 0.36


def framed_centre(rect: QtCore.QRectF, focus: QtCore.QRectF, width: float, height: float) -> QtCore.QPointF:
    """Where a view ``width`` x ``height`` (scene units) centres to show ``rect`` (the operator
    with its inputs and outputs) around ``focus`` (the operator): ``rect``'s centre when it
    fits; else, along a side where it does not, as much of it from its start (the inputs, read
    first) as keeps ``focus`` whole, or ``focus``'s centre when even that is wider."""
    def along(lo: float, hi: float, f_lo: float, f_hi: float, room: float) -> float:
        if hi - lo <= room:
            return (lo + hi) / 2
        if f_hi - f_lo + 2 * FRAME_MARGIN > room:
            return (f_lo + f_hi) / 2
        start = max(lo, f_hi + FRAME_MARGIN - room)
        return start + room / 2

    return QtCore.QPointF(along(rect.left(), rect.right(), focus.left(), focus.right(), width),
                          along(rect.top(), rect.bottom(), focus.top(), focus.bottom(), height))


@dataclass(frozen=True)
class _Saved:
    """What entering changed, to put back."""

    geometry: QtCore.QRect
    state: QtCore.QByteArray
    full_screen: bool
    maximized: bool
    cancel_keys: tuple[QtGui.QKeySequence, ...]
    zoom: float
    transform: QtGui.QTransform | None    # None: another document shown since (framed on leaving)
    centre: QtCore.QPointF | None


class Presentation(QtCore.QObject):
    """View > Presentation for ``window`` (see the module docstring). ``panels`` are the
    docks hidden while presenting; ``explainer_dock`` holds ``explainer``; ``cancel_action``
    gives Esc up while presenting. ``changed(bool)``: entered (True) or left (False)."""

    changed = QtCore.Signal(bool)

    def __init__(self, window: QtWidgets.QMainWindow, view: GraphView, scene: GraphScene,
                 explainer: ExplainerWidget, explainer_dock: QtWidgets.QDockWidget,
                 panels: list[QtWidgets.QDockWidget], cancel_action: QtGui.QAction) -> None:
        super().__init__(window)
        self.window, self.view, self.scene = window, view, scene
        self.explainer, self.explainer_dock, self.panels = explainer, explainer_dock, list(panels)
        self.cancel_action = cancel_action
        self._stages: list[QtWidgets.QDockWidget] = [explainer_dock]
        self._stage = lambda: explainer_dock
        self._stage_zoom = lambda factor: None
        self._stage_fit = lambda zooms: None
        self._restored = lambda: None
        self._saved: _Saved | None = None
        self._fitting = False
        self._aside: QtWidgets.QDockWidget | None = None
        self.action = self._make("&Presentation", "F5", self.set_active, checkable=True,
                                 tip="Full screen, canvas and Explainer only, large text (Esc leaves)")
        self.panels_action = self._make("Show &Panels", "F6", self.show_panels, checkable=True,
                                        tip="While presenting: show or hide the palette, properties and viewer")
        self.panels_action.setEnabled(False)
        self.aside_action = self._make("Show &Lesson Text", "F7", self.show_aside, checkable=True,
                                       tip="While presenting: the lesson's text above the Explainer, in large print")
        self.aside_action.setEnabled(False)
        # Esc is Run > Cancel Run's key; while presenting it is this action's (set on entering)
        self.leave_action = self._make("Leave Presentation", "", lambda: self.set_active(False))
        self.leave_action.setEnabled(False)
        explainer.operationChanged.connect(self._refit_later)

    def _make(self, text: str, key: str, slot, checkable: bool = False, tip: str = "") -> QtGui.QAction:
        action = QtGui.QAction(text, self.window)
        if key:
            action.setShortcut(QtGui.QKeySequence(key))
        action.setCheckable(checkable)
        if tip:
            action.setStatusTip(tip)
        action.triggered.connect(slot)
        self.window.addAction(action)
        return action

    # ------------------------------------------------------------------ public
    @property
    def active(self) -> bool:
        return self._saved is not None

    def set_stage(self, docks: list[QtWidgets.QDockWidget], current: Callable[[], QtWidgets.QDockWidget],
                  zoom: Callable[[float], None], restored: Callable[[], None],
                  fit: Callable[[Sequence[float]], float] | None = None) -> None:
        """The docks that can take the place beside the canvas (``docks``, the Explainer's
        first), ``current()`` the one that has it now, ``zoom(factor)`` the text size of a
        stage other than the Explainer (1.0 after presenting) and ``fit(zooms)`` the largest of
        ``zooms`` at which it shows whole (default: the largest); ``restored()`` after the docks
        were put back as they were on entering (F6, leaving): the stages' owner shows what it
        shows now (a quiz that started or ended since)."""
        self._stages = [self.explainer_dock] + [d for d in docks if d is not self.explainer_dock]
        self._stage, self._stage_zoom, self._restored = current, zoom, restored
        self._stage_fit = fit or (lambda zooms: zoom(max(zooms)) or max(zooms))

    def set_aside(self, dock: QtWidgets.QDockWidget) -> None:
        """The dock F7 shows above the stage while presenting (one of the panels)."""
        self._aside = dock

    def show_aside(self, on: bool) -> None:
        """While presenting: the aside above the stage (True) or not (False); with the panels
        shown (F6), it takes effect when they are hidden again."""
        if not self.active or self._aside is None:
            self.aside_action.setChecked(False)
            return
        self.aside_action.setChecked(bool(on))
        self.restage()

    def restage(self) -> None:
        """The current stage beside the canvas again, the panels hidden (a quiz started or
        ended, a lesson opened)."""
        if self.active and not self.panels_action.isChecked():
            self._present_layout()
            self._refit_later()

    def document_changed(self) -> None:
        """Another document is shown: leaving frames it instead of putting back the view of
        the one shown on entering."""
        if self._saved is not None:
            self._saved = dataclasses.replace(self._saved, transform=None, centre=None)

    def set_active(self, on: bool) -> None:
        if bool(on) == self.active:
            self.action.setChecked(self.active)
            return
        self._enter() if on else self._leave()
        self.action.setChecked(self.active)
        self.panels_action.setEnabled(self.active)
        self.aside_action.setEnabled(self.active and self._aside is not None)
        self.leave_action.setEnabled(self.active)
        self.changed.emit(self.active)

    def show_panels(self, on: bool) -> None:
        """While presenting: the window's usual docks back where they were (True), or the
        presentation's canvas and Explainer only (False)."""
        if not self.active:
            self.panels_action.setChecked(False)
            return
        self.panels_action.setChecked(bool(on))
        if on:
            self.window.restoreState(self._saved.state)
            self._restored()
            self._stage().show()
        else:
            self._present_layout()
        self._refit_later()

    def refit(self) -> None:
        """The Explainer's text zoom (the largest of ZOOMS that shows the step whole) and the
        canvas framing; called when entering, on a new operator and when the window resizes."""
        if not self.active or self._fitting:
            return
        self._fitting = True
        try:
            settle(self.window)
            if self._stage() is self.explainer_dock:
                self.explainer.fit_zoom(ZOOMS)
            else:
                self._stage_fit(ZOOMS)
            self.frame_canvas()
        finally:
            self._fitting = False

    def frame_canvas(self) -> None:
        """Frame the explained operator with its inputs and outputs (everything when no node
        is selected), at MIN_CANVAS_ZOOM at least, centred on the operator."""
        graph = self.scene.graph
        selected = [nid for nid in self.scene.selected_node_ids() if graph.has_node(nid)]
        ids = set(selected)
        for nid in selected:
            ids |= {edge.src for edge in graph.inputs_of(nid).values()} | set(graph.consumers(nid))
        rect = self.scene.nodes_rect(ids or None)
        if rect.isNull():
            return
        focus = self.scene.nodes_rect(set(selected)) if selected else rect
        rect = rect.adjusted(-FRAME_MARGIN, -FRAME_MARGIN, FRAME_MARGIN, FRAME_MARGIN)
        viewport = self.view.viewport().rect()
        s = min(viewport.width() / rect.width(), viewport.height() / rect.height(), MAX_CANVAS_ZOOM)
        s = max(MIN_CANVAS_ZOOM, s)
        self.view.resetTransform()
        self.view.scale(s, s)
        self.view.centerOn(framed_centre(rect, focus, viewport.width() / s, viewport.height() / s))
        self.view.hide_overflow_hint()
        self.view.minimap.refresh()

    # ------------------------------------------------------------------ internals
    def _enter(self) -> None:
        w = self.window
        self._saved = _Saved(QtCore.QRect(w.normalGeometry() if w.isMaximized() or w.isFullScreen() else w.geometry()),
                             w.saveState(), w.isFullScreen(), w.isMaximized(),
                             tuple(self.cancel_action.shortcuts()), self.explainer.zoom,
                             QtGui.QTransform(self.view.transform()),
                             self.view.mapToScene(self.view.viewport().rect().center()))
        self.cancel_action.setShortcuts([])          # Esc leaves the presentation
        self.leave_action.setShortcut(QtGui.QKeySequence(LEAVE_KEY))
        for action in self.explainer.key_actions:
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WindowShortcut)
        self.panels_action.setChecked(False)
        self.view.minimap.suppressed = True   # no overview over the nodes the class reads
        self.view.minimap.refresh()
        w.showFullScreen()
        self._present_layout()
        w.installEventFilter(self)
        self._refit_later()

    def _present_layout(self) -> None:
        w = self.window
        stage = self._stage()
        aside = self._aside if self.aside_action.isChecked() else None
        hidden = [d for d in self.panels + [d for d in self._stages if d is not stage] if d is not aside]
        focus = QtWidgets.QApplication.focusWidget()
        # the focus in a panel about to go: the canvas takes it (Qt would hand it to the next
        # widget in the chain, an Explainer button, which would then keep Space from Play)
        focus_leaves = focus is None or any(d.isAncestorOf(focus) for d in hidden)
        for dock in hidden:
            dock.hide()
        right = QtCore.Qt.DockWidgetArea.RightDockWidgetArea
        for dock in (aside, stage):
            if dock is not None and dock.isFloating():
                dock.setFloating(False)
        if aside is None:
            w.addDockWidget(right, stage)
        else:   # the aside above the stage, one column
            w.addDockWidget(right, aside)
            w.splitDockWidget(aside, stage, QtCore.Qt.Orientation.Vertical)
            aside.show()
        stage.show()
        stage.raise_()
        w.resizeDocks([stage], [int(w.width() * EXPLAINER_SHARE)], QtCore.Qt.Orientation.Horizontal)
        if aside is not None:
            height = w.centralWidget().height() if w.centralWidget() is not None else w.height()
            w.resizeDocks([aside, stage], [int(height * ASIDE_SHARE), int(height * (1 - ASIDE_SHARE))],
                          QtCore.Qt.Orientation.Vertical)
        if focus_leaves:
            self.view.setFocus()

    def _leave(self) -> None:
        saved, self._saved = self._saved, None
        self.view.minimap.suppressed = False
        w = self.window
        w.removeEventFilter(self)
        self.panels_action.setChecked(False)
        self.aside_action.setChecked(False)
        for action in self.explainer.key_actions:
            action.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.leave_action.setShortcut(QtGui.QKeySequence())
        self.cancel_action.setShortcuts(list(saved.cancel_keys))
        self.explainer.set_zoom(saved.zoom)
        self._stage_zoom(1.0)
        w.showNormal()
        w.setGeometry(saved.geometry)
        if saved.full_screen:
            w.showFullScreen()
        elif saved.maximized:
            w.showMaximized()
        w.restoreState(saved.state)
        self._restored()
        if saved.transform is None:
            QtCore.QTimer.singleShot(0, lambda: self.view.frame(True))   # once the docks are back
        else:
            self.view.setTransform(saved.transform)
            self.view.centerOn(saved.centre)

    def _refit_later(self) -> None:
        if self.active:
            QtCore.QTimer.singleShot(0, self.refit)

    def eventFilter(self, watched, event) -> bool:
        if watched is self.window and event.type() == QtCore.QEvent.Type.Resize:
            w = self.window
            if not self.panels_action.isChecked():
                w.resizeDocks([self._stage()], [int(event.size().width() * EXPLAINER_SHARE)],
                              QtCore.Qt.Orientation.Horizontal)
            self._refit_later()
        return False

