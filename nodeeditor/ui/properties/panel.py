"""The property panel: widgets for the selected node, built from the ``ops`` schema at the
graph's opset (operators), the op's ONNX schema (foreign ONNX ops, :mod:`.foreign_form`) or
from the source kind (sources); with nothing selected, the graph's name, description and
opset.

Every edit becomes an undo command handed to ``push``; the panel then follows the graph's
events (``on_event``) and updates its widgets in place, so undo/redo show up here too.
"""
from __future__ import annotations

import html
from collections.abc import Callable

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph import events as E
from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph
from nodeeditor.graph.status import NodeStatus

from .. import commands as C
from ..canvas.style import STATE_COLOURS
from ..status_line import ShowStatus
from .file_form import FileForm
from .foreign_form import ForeignForm
from .generator_form import GeneratorForm
from .group_form import GroupForm
from .interface_form import InterfaceForm
from .operator_form import OperatorForm
from .range_spin_box import RangeSpinBox
from .training_form import TrainingForm
from .value_form import ValueForm
from .values import MAX_OPSET, muted

#: The statuses whose message the panel shows (in the status's colour, ``style.STATE_COLOURS``).
PROBLEM_STATES = frozenset({NodeStatus.ERROR, NodeStatus.BLOCKED, NodeStatus.WARNING, NodeStatus.INCOMPLETE})


def _print_status(message: str, error: bool = False) -> None:
    print(("error: " if error else "") + message)


class _WrappedLineEdit(QtWidgets.QPlainTextEdit):
    """A text field that wraps its words over up to three lines (a graph's description is a
    sentence, which a one-line field shows only the end of). It behaves like a QLineEdit for
    the panel: ``text()``/``setText()``, and ``editingFinished`` on focus out or Enter
    (Shift+Enter for a line break)."""

    editingFinished = QtCore.Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setTabChangesFocus(True)
        lines = 3
        self.setFixedHeight(self.fontMetrics().lineSpacing() * lines + 12)

    def text(self) -> str:
        return self.toPlainText()

    def setText(self, text: str) -> None:  # the QLineEdit name the panel uses
        self.setPlainText(text)

    def focusOutEvent(self, event) -> None:
        super().focusOutEvent(event)
        self.editingFinished.emit()

    def keyPressEvent(self, event) -> None:
        enter = event.key() in (QtCore.Qt.Key.Key_Return, QtCore.Qt.Key.Key_Enter)
        if enter and not event.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier:
            self.editingFinished.emit()
            return
        super().keyPressEvent(event)


class PropertyPanel(OperatorForm, ForeignForm, ValueForm, GeneratorForm, FileForm, TrainingForm, InterfaceForm,
                    GroupForm, QtWidgets.QWidget):
    """Shows and edits one node (or the graph). ``push(command)`` receives every edit;
    ``status(message, error=False)`` receives what the user should read (a value that does
    not parse, what a paste did)."""

    def __init__(self, push: Callable[[QtGui.QUndoCommand], bool | None], status: ShowStatus = _print_status,
                 parent: QtWidgets.QWidget | None = None,
                 state_of: Callable[[str], tuple[NodeStatus, str]] | None = None,
                 problem_port_of: Callable[[str], str | None] | None = None) -> None:
        super().__init__(parent)
        self.push = push
        self.status = status
        #: node id -> (state, message), e.g. the canvas's view of run results; None: static only
        self.state_of = state_of
        #: node id -> the input port its error is about (shown red in the Ports row); None:
        #: the static one (``NodeInfo.error_port``)
        self.problem_port_of = problem_port_of
        self.graph: Graph | None = None
        self.node_id: str | None = None
        self.widgets: dict[str, QtWidgets.QWidget] = {}
        self._refreshers: list[Callable[[], None]] = []
        self._scroll = QtWidgets.QScrollArea()
        self._scroll.setWidgetResizable(True)
        self._scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self._scroll.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)   # no invisible stop for Tab
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self._scroll)
        self.title = QtWidgets.QLabel()
        self._selection_count = 0
        self.group_id: str | None = None     # the group block shown (a collapsed frame), if any
        #: node id -> why its values are not the ones in use now ("": they are); see :meth:`withhold`
        self._withheld: Callable[[str], str] | None = None

    # ------------------------------------------------------------------ public
    def set_graph(self, graph: Graph) -> None:
        self.graph = graph
        self.show_node(None)

    def withhold(self, withheld: Callable[[str], str] | None) -> None:
        """During a quiz: a source's values page says, above its values, why they are not the
        ones in use (``withheld(node_id)``, e.g. the quiz drew new inputs; ``""``: nothing to
        say), asked at each refresh; None: nothing said."""
        self._withheld = withheld
        self.refresh()

    def _withheld_why(self) -> str:
        return self._withheld(self.node_id) if self._withheld is not None and self.node_id is not None else ""

    def set_selection_count(self, count: int) -> None:
        """How many nodes are selected: with several, the graph page says so (there is no one
        node to edit) instead of "nothing selected"."""
        self._selection_count = count
        if self.node_id is None:
            self.title.setText(self._heading_html("Graph", self._graph_subtitle()))

    def _graph_subtitle(self) -> str:
        if self._selection_count > 1:
            return f"{self._selection_count} nodes selected (select one to edit it) — these are the document's settings"
        return "nothing selected — these are the document's settings"

    @staticmethod
    def _heading_html(title: str, subtitle: str) -> str:
        return (f"<b style='font-size:12pt'>{html.escape(title)}</b><br>"
                f"<span style='color:#6a7285'>{html.escape(subtitle)}</span>")

    def commit_pending(self) -> None:
        """Finish an edit still open on the page (a value cell or a field being typed in) for the
        node the page shows: the widget with the focus gives it up, which commits its text. Called
        before the page moves to another node and before a menu opens, so a typed value never
        lands on another node or is lost."""
        focus = QtWidgets.QApplication.focusWidget()
        page = self._scroll.widget()
        if focus is not None and page is not None and page.isAncestorOf(focus):
            focus.clearFocus()

    def show_node(self, node_id: str | None) -> None:
        self.commit_pending()
        self.node_id = node_id if node_id and self.graph is not None and self.graph.has_node(node_id) else None
        self.group_id = None
        self._rebuild()

    def show_group(self, frame_id: str) -> None:
        """Show a group block's page (``frame_id``: its collapsed frame): what is inside it."""
        self.commit_pending()
        self.node_id = None
        self.group_id = frame_id if self.graph is not None and self.graph.has_frame(frame_id) else None
        self._rebuild()

    def on_event(self, event: E.GraphEvent) -> None:
        """Follow a graph change (called by the main window for every event)."""
        if self.graph is None:
            return
        nid = self.node_id
        if nid is not None and not self.graph.has_node(nid):
            self.show_node(None)
            return
        if self.group_id is not None and not (self.graph.has_frame(self.group_id)
                                              and self.graph.frame(self.group_id).collapsed):
            self.show_node(None)      # the group was expanded or removed
            return
        match event:
            case E.SettingChanged(name="opset"):
                self._rebuild()
            case E.FrameChanged(frame_id=fid) if fid == self.group_id:
                self.refresh()
            case E.SourceChanged(field="generator") if event.node_id == nid:
                self._rebuild()
            case E.TypesChanged() | E.SettingChanged():
                self.refresh()
            case E.AttributeChanged() | E.SourceChanged() | E.NodeRenamed() if event.node_id == nid:
                self.refresh()
            case E.TrainingChanged() | E.LossCoefficientChanged() | E.TrainableChanged() | E.LossKindChanged() \
                    | E.OverridableChanged() if event.node_id == nid:
                self.refresh()
            case E.EdgeAdded(edge=edge) | E.EdgeRemoved(edge=edge) if nid is None or nid in (edge.src, edge.dst):
                self.refresh()
            case E.NodeAdded() | E.NodeRemoved() if nid is None:
                self.refresh()

    def refresh(self) -> None:
        for refresh in self._refreshers:
            refresh()

    # ------------------------------------------------------------------ building
    def _rebuild(self) -> None:
        self.widgets = {}
        self._refreshers = []
        page = QtWidgets.QWidget()
        outer = QtWidgets.QVBoxLayout(page)
        self._form = QtWidgets.QFormLayout()
        outer.addLayout(self._form)
        outer.addStretch(1)   # spare height below the rows, not between them
        self._form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self._form.setLabelAlignment(QtCore.Qt.AlignmentFlag.AlignRight)
        # rows from the top, whatever the style's default: the heading stays put between nodes
        self._form.setFormAlignment(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
        if self.graph is not None:
            if self.node_id is None and self.group_id is not None:
                self._build_group(self.group_id)
            elif self.node_id is None:
                self._build_graph()
            else:
                node = self.graph.node(self.node_id)
                self._heading(node.name, self._kind_text(node))
                heading = self.title
                # the heading follows a rename (the Name row, the canvas, undo)
                self._refreshers.append(lambda: heading.setText(self._heading_html(
                    self.graph.node(self.node_id).name, self._kind_text(self.graph.node(self.node_id)))))
                self._name_row(node)
                if isinstance(node, N.OperatorNode):
                    self._build_operator(node)
                    self._build_operator_training(node)
                elif isinstance(node, N.LiteralSource) or isinstance(node, N.InputSource) and node.onnx_type is None:
                    self._build_value(node)
                elif isinstance(node, N.GeneratorSource):
                    self._build_generator(node)
                elif isinstance(node, N.FileSource):
                    self._build_file(node)
                elif isinstance(node, N.LossNode):
                    self._build_loss(node)
                elif isinstance(node, N.ForeignNode):
                    self._build_foreign(node)
                    if N.has_training_switch(node):   # the ops a gradient goes through
                        self._build_operator_training(node)
                if isinstance(node, N.TrainableSource):
                    self._build_trainable(node)
                if node.kind in N.WEIGHT_KINDS:
                    self._build_overridable(node)
                self._types_rows(node)
                self._problem_row()
        old = self._scroll.takeWidget()
        if old is not None:
            # the edit that caused this rebuild may still be running inside an old widget
            # (a spin box's Enter, a combo's signal): delete the old page later, not now
            old.hide()
            old.deleteLater()
        self._scroll.setWidget(page)
        self.refresh()

    def _kind_text(self, node: N.Node) -> str:
        if isinstance(node, N.OperatorNode):
            version = node.schema.version_for(self.graph.opset)
            where = f"version {version} at opset {self.graph.opset}" if version else f"not in opset {self.graph.opset}"
            return f"{node.op} — {where}"
        if isinstance(node, N.ForeignNode):
            return f"ONNX op {node.title}"
        return {"literal": "Literal tensor", "generator": "Generated tensor", "file": "Tensor from a file",
                "input": "Graph input (its name is the model input's name)", "output": "Graph output",
                "loss": "Loss (training)", "model_tensor": "Tensor read from its ONNX model"}[node.kind]

    def _heading(self, title: str, subtitle: str) -> None:
        label = QtWidgets.QLabel(self._heading_html(title, subtitle))
        label.setWordWrap(True)
        # no taller than its text: a wrapping label may otherwise take a page's spare height
        label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Maximum)
        self.title = label
        self._form.addRow(label)

    def _add(self, label: str, key: str, widget: QtWidgets.QWidget, refresh: Callable[[], None] | None = None) -> None:
        self.widgets[key] = widget
        self._form.addRow(label, widget)
        if refresh is not None:
            self._refreshers.append(refresh)

    def _name_row(self, node: N.Node) -> None:
        edit = QtWidgets.QLineEdit()

        def commit() -> None:
            text = edit.text().strip()
            name = self.graph.node(self.node_id).name
            if not text:
                edit.setText(name)
                self.status(f"A name cannot be empty: it stays “{name}”", error=True)
            elif text != name and self.push(C.RenameCommand(self.graph, self.node_id, text)) is False:
                edit.setText(name)      # refused (a training run): the field shows the name kept
                edit.selectAll()

        def refresh() -> None:
            if not edit.hasFocus():
                edit.setText(self.graph.node(self.node_id).name)

        edit.editingFinished.connect(commit)
        self._add("Name", "name", edit, refresh)

    # ------------------------------------------------------------------ graph
    def _build_graph(self) -> None:
        g = self.graph
        self._heading("Graph", self._graph_subtitle())
        name = QtWidgets.QLineEdit()
        name.editingFinished.connect(lambda: name.text().strip() and name.text() != g.name and
                                     self.push(C.SettingCommand(g, "name", name.text().strip())))
        description = _WrappedLineEdit()
        description.editingFinished.connect(lambda: description.text() != g.settings["description"] and
                                            self.push(C.SettingCommand(g, "description", description.text())))
        opset = RangeSpinBox()
        opset.setRange(1, MAX_OPSET)
        opset.refused.connect(lambda text: self.status(opset.refusal("opset", text), error=True))
        opset.setKeyboardTracking(False)
        opset.setToolTip("The ONNX opset the graph targets: it decides which op versions, attributes "
                         "and attribute values are allowed.")
        opset.valueChanged.connect(lambda v: v != g.opset and self.push(C.SettingCommand(g, "opset", v)))
        summary = muted("")

        def refresh() -> None:
            if not name.hasFocus():
                name.setText(g.name)
            if not description.hasFocus():
                description.setText(g.settings["description"])
            opset.blockSignals(True)
            opset.setRange(1, max(MAX_OPSET, g.opset))   # a model's newer opset shows as it is
            opset.setValue(g.opset)
            opset.blockSignals(False)
            problems = g.problems()
            text = f"{len(g.nodes)} nodes, {len(g.edges)} edges"
            if problems:
                text += "<br><span style='color:#d43c3c'>" + "<br>".join(
                    f"{g.node(n).label}: {m}" for n, m in problems[:8]) + "</span>"
            summary.setText(text)

        self._add("Name", "graph_name", name, refresh)
        self._add("Description", "description", description)
        self._add("Opset", "opset", opset)
        self._form.addRow(summary)

    # ------------------------------------------------------------------ types and problems
    def _types_rows(self, node: N.Node) -> None:
        label = QtWidgets.QLabel()
        label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        # a long type and source name ("float32[2, 1, 5, 3] (past cache [B, H, S, D])") wraps
        # within the dock instead of widening the page past it (a sideways scroll bar)
        label.setWordWrap(True)
        label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Maximum)
        g = self.graph

        def refresh() -> None:
            n = g.node(self.node_id)
            info = g.node_info(self.node_id)
            wrong = self.problem_port_of(n.id) if self.problem_port_of is not None else info.error_port
            rows = []
            for port in n.input_ports():
                edge = g.edge_into(n.id, port)
                t = g.node_info(edge.src).outputs.get(edge.src_port) if edge else None
                src = (g.node(edge.src).name if edge
                       else "optional" if port in n.optional_inputs() else "not connected")
                row = f"in <b>{port}</b>: <tt>{t if t else '—'}</tt> <span style='color:#6a7285'>({src})</span>"
                if port == wrong:   # the input the error below is about
                    row = (f"<span style='color:{STATE_COLOURS[NodeStatus.ERROR].name()}'>in <b>{port}</b>: "
                           f"<tt>{t if t else '—'}</tt> ({src}) ◀</span>")
                rows.append(row)
            for port in n.output_ports():
                t = info.outputs.get(port)
                rows.append(f"out <b>{port}</b>: <tt>{t if t else '?'}</tt>")
            label.setText("<br>".join(rows))

        self.widgets["types"] = label
        self._form.addRow("Ports", label)
        self._refreshers.append(refresh)

    def _problem_row(self) -> None:
        label = QtWidgets.QLabel()
        label.setWordWrap(True)
        label.setStyleSheet("color: #d43c3c;")
        label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)

        def refresh() -> None:
            info = self.graph.node_info(self.node_id)
            state = info.status
            text = info.error or "\n".join(info.warnings)
            if self.state_of is not None:
                state, message = self.state_of(self.node_id)
                text = message if state in PROBLEM_STATES else ""
            label.setStyleSheet(f"color: {STATE_COLOURS.get(state, STATE_COLOURS[NodeStatus.WARNING]).name()};")
            label.setText(text)
            label.setVisible(bool(text))

        self.widgets["problem"] = label
        self._form.addRow(label)
        self._refreshers.append(refresh)
