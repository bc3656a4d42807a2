"""The Export ONNX dialog: file, opset, how sources are exported and whether the weights go to
a data file beside the model (ONNX external data, :mod:`nodeeditor.onnx_io.model_files`;
weights over 2 GB go there in any case); "Export" runs the
exporter (which validates the model) and shows the result or the exact problem, with a
button to switch to the suggested opset when the exporter names one. After an export at a
higher opset than the graph's, a button raises the graph's opset to it (one undoable step,
through ``push``), so the editor stops flagging what the model already allows, and says so
through ``status`` (the window's status line) when given.

The file field starts with a proposal (:func:`default_export_path`): the graph's name +
``.onnx`` in the last-used folder, or the home folder. Export never writes over a file the
graph reads (the model its weights stay in), and asks before it replaces any other file."""
from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from nodeeditor.graph.document import Graph

from .properties import MAX_OPSET
from .properties.range_spin_box import RangeSpinBox


def default_export_path(graph: Graph, folder: str | Path | None = None) -> str:
    """``<folder>/<graph name>.onnx`` (``folder``: the last-used folder, else home); characters
    that are not allowed in file names on some systems (``/ \\ : * ? " < > |``) become spaces."""
    name = re.sub(r'[\\/:*?"<>|]+', " ", graph.name or "")
    name = re.sub(r"\s+", " ", name).strip(" .") or "model"
    return str(Path(folder or Path.home()) / f"{name}.onnx")


def with_onnx_suffix(path: str) -> str:
    """``path`` ending in ``.onnx`` (added when it does not: ``model`` -> ``model.onnx``)."""
    return path if path.lower().endswith(".onnx") else path + ".onnx"


SOURCE_MODES = (("initializers", "Sources become initializers (weights travel with the model)"),
                ("inputs", "Sources become graph inputs (fed at run time)"))


class ExportDialog(QtWidgets.QDialog):
    exported = QtCore.Signal(str)

    def __init__(self, graph: Graph, start_path: str = "", parent: QtWidgets.QWidget | None = None,
                 push: Callable[[QtGui.QUndoCommand], None] | None = None,
                 status: Callable[[str], None] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export ONNX model")
        self.graph = graph
        self.push = push
        self._status = status
        self.path_edit = QtWidgets.QLineEdit(start_path or default_export_path(graph))
        self._base_folder = Path(self.path_edit.text()).expanduser().parent
        self.path_edit.setPlaceholderText("model.onnx")
        browse = QtWidgets.QPushButton("Browse…")
        browse.clicked.connect(self.browse)
        self.browse_button = browse
        row = QtWidgets.QHBoxLayout()
        row.addWidget(self.path_edit, 1)
        row.addWidget(browse)
        self.opset_box = RangeSpinBox()
        self.opset_box.setRange(1, MAX_OPSET)
        self.opset_box.refused.connect(lambda text: self._show(False, self.opset_box.refusal("opset", text)))
        self.opset_box.setValue(graph.opset)
        self.opset_box.setToolTip("The model's ai.onnx opset; the graph's opset is the default.")
        self.sources_combo = QtWidgets.QComboBox()
        for key, text in SOURCE_MODES:
            self.sources_combo.addItem(text, key)
        self.external_box = QtWidgets.QCheckBox("Weights in a data file beside the model (MODEL.onnx.data)")
        self.external_box.setToolTip("ONNX external data: the model file stays small. Weights over 2 GB, more "
                                     "than one ONNX file holds, go there in any case.")
        self.sources_combo.currentIndexChanged.connect(
            lambda _i: self.external_box.setEnabled(self.sources_combo.currentData() == "initializers"))
        self.result = QtWidgets.QLabel("Choose a file and press Export: the model is checked with "
                                       "onnx.checker and strict shape inference before it is written.")
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.setAlignment(QtCore.Qt.AlignmentFlag.AlignTop | QtCore.Qt.AlignmentFlag.AlignLeft)
        self.result.setStyleSheet("padding: 6px; background: palette(alternate-base); border-radius: 4px;")
        # an exporter's message can run to many lines: it scrolls, and the dialog grows to show it
        self.result_area = QtWidgets.QScrollArea()
        self.result_area.setWidgetResizable(True)
        self.result_area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.result_area.setWidget(self.result)
        self.result_area.setMinimumHeight(80)
        self.suggest_button = QtWidgets.QPushButton()
        self.suggest_button.hide()
        self.suggest_button.clicked.connect(self._use_suggestion)
        self._suggested: int | None = None
        self.raise_button = QtWidgets.QPushButton()
        self.raise_button.hide()
        self.raise_button.clicked.connect(self.raise_graph_opset)
        self._exported_opset: int | None = None
        self.export_button = QtWidgets.QPushButton("Export")
        self.export_button.setDefault(True)
        self.export_button.clicked.connect(self.export)
        close = QtWidgets.QPushButton("Close")
        close.clicked.connect(self.reject)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.suggest_button)
        buttons.addWidget(self.raise_button)
        buttons.addStretch(1)
        buttons.addWidget(self.export_button)
        buttons.addWidget(close)
        form = QtWidgets.QFormLayout()
        form.addRow("File", row)
        form.addRow("Opset", self.opset_box)
        form.addRow("Sources", self.sources_combo)
        form.addRow("", self.external_box)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.result_area, 1)
        layout.addLayout(buttons)
        self.resize(560, 260)
        self.ok: bool | None = None
        self._may_replace: Path | None = None    # the existing file the user agreed to replace

    def browse(self) -> None:
        start = self.path_edit.text() or default_export_path(self.graph)
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export ONNX model", start, "ONNX models (*.onnx)")
        if path:
            self.path_edit.setText(with_onnx_suffix(path))
            if path == with_onnx_suffix(path):   # the file dialog asked before replacing this very file
                self._may_replace = _real(Path(path))

    def _may_write(self, target: Path) -> bool:
        """Whether ``target`` may be written: never a file the graph reads (a model its weights
        stay in, a file source's array), and an existing file only when the user agreed
        (asked here, or already in Browse…'s file dialog, or written by this dialog before)."""
        real = _real(target)
        readers = self.graph.readers_of(target)
        if readers:
            names = ", ".join(f"“{n.label}”" for n in readers[:3]) + (" …" if len(readers) > 3 else "")
            self._show(False, f"Not exported: {target} is a file this graph reads ({names}); "
                              "export to another file.")
            return False
        from nodeeditor.onnx_io.model_files import data_path  # where export() imports the exporter

        data = data_path(target)   # one a model the graph reads keeps weights in: save_model refuses
        replacing_data = self._external_asked() and data.is_file()
        if not (target.is_file() or replacing_data) or real == self._may_replace:
            return True
        if target.is_file():
            question = f"“{target.name}” already exists in {target.parent}.\n\nReplace it with the exported model?"
            if replacing_data:
                question += f" Its weights file “{data.name}” is replaced too."
        else:
            question = (f"“{data.name}” already exists in {target.parent}.\n\nReplace it with the exported "
                        "model's weights?")
        buttons = QtWidgets.QMessageBox.StandardButton
        answer = QtWidgets.QMessageBox.question(self, "Replace file?", question, buttons.Yes | buttons.No,
                                                buttons.No)
        if answer != buttons.Yes:
            kept = target.name if target.is_file() else data.name
            self._show(None, f"Not exported: {kept} is kept. Choose another file, or Export again "
                             "and answer Yes.")
            return False
        self._may_replace = real
        return True

    def _external_asked(self) -> bool:
        return self.external_box.isEnabled() and self.external_box.isChecked()

    def _show(self, ok: bool | None, text: str) -> None:
        """Show ``text`` as a success (True), a failure (False) or a hint (None), the dialog
        taller when it needs the room (up to most of the screen; beyond that it scrolls)."""
        self.ok = ok
        if ok is None:
            self.result.setStyleSheet("padding: 6px; background: palette(alternate-base); border-radius: 4px;")
        else:
            colour = "#1f7a4a" if ok else "#c62828"
            self.result.setStyleSheet(f"padding: 6px; border-radius: 4px; color: {colour}; "
                                      f"background: {'#eaf6ef' if ok else '#fdeeee'};")
        self.result.setText(text)
        self._fit_result()

    def _fit_result(self) -> None:
        """Grow the dialog so that the whole result shows, within 80% of its screen's height."""
        needed = self.result.heightForWidth(self.result_area.viewport().width())
        extra = needed - self.result_area.viewport().height()
        if extra <= 0:
            return
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        limit = int(screen.height() * 0.8) if screen is not None else self.height() + extra
        self.resize(self.width(), min(self.height() + extra, max(self.height(), limit)))

    def _target(self) -> Path | None:
        """The path to write: the field's text ending in ``.onnx`` (as Browse… makes it), a
        relative one taken in the folder the field first proposed (the graph's folder or the
        last-used one, not wherever the program was started); None when empty."""
        text = self.path_edit.text().strip()
        if not text:
            return None
        path = Path(with_onnx_suffix(text)).expanduser()
        if not path.is_absolute():
            path = self._base_folder / path
        return path

    def export(self) -> bool:
        """Run the exporter; True when the model was written."""
        self.suggest_button.hide()
        self.raise_button.hide()
        if not self.path_edit.text().strip():
            self.browse()
            if not self.path_edit.text().strip():
                self._show(None, "Choose a file to export to (type a path or press Browse…).")
                return False
        target = self._target()
        path = str(target)
        self.path_edit.setText(path)
        if not self._may_write(target):
            return False
        try:
            from nodeeditor.onnx_io import ExportError, save_model
        except ImportError as exc:
            self._show(False, f"ONNX export is not available in this build: {exc}")
            return False
        QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)
        try:
            written = save_model(self.graph, path, opset=self.opset_box.value(),
                                 sources=self.sources_combo.currentData(),
                                 external_data=True if self._external_asked() else None)
        except ExportError as exc:
            self._show(False, f"Not exported: {exc}")
            suggested = getattr(exc, "suggested_opset", None)
            if suggested is not None and suggested != self.opset_box.value():
                self._suggested = int(suggested)
                self.suggest_button.setText(f"Use opset {suggested}")
                self.suggest_button.show()
            return False
        except OSError as exc:
            self._show(False, f"Cannot write {path}: {exc.strerror or exc}")
            return False
        finally:
            QtWidgets.QApplication.restoreOverrideCursor()
        opset = self.opset_box.value()
        data = f", its weights to {written.data.name} beside it" if written.data is not None else ""
        text = (f"Exported to {path}{data} (opset {opset}, sources as {self.sources_combo.currentData()}). "
                "The model passed onnx.checker (full check) and strict shape inference.")
        if opset > self.graph.opset:
            # the model is valid at this opset; the graph itself still targets the old one (and
            # its nodes that need the new one stay red) until the user raises it
            self._exported_opset = opset
            text += (f"\n\nThe graph is still at opset {self.graph.opset}: “Set graph to opset {opset}” "
                     f"raises it (one step, Ctrl+Z undoes it).")
            self.raise_button.setText(f"Set graph to opset {opset}")
            self.raise_button.show()
        self._may_replace = _real(target)     # exporting again to it asks no more
        self._show(True, text)
        self.exported.emit(path)
        return True

    def raise_graph_opset(self) -> bool:
        """Set the graph's opset to the one just exported at (an undo step when ``push`` was
        given); True when it changed."""
        opset, old = self._exported_opset, self.graph.opset
        self.raise_button.hide()
        if opset is None or opset == old:
            return False
        if self.push is not None:
            from .commands import SettingCommand

            self.push(SettingCommand(self.graph, "opset", opset))
        else:
            self.graph.set_setting("opset", opset)
        self.opset_box.setValue(self.graph.opset)
        message = f"Graph opset raised from {old} to {opset} (Ctrl+Z undoes it)."
        self._show(True, self.result.text().split("\n\n")[0] + "\n\n" + message)
        if self._status is not None:
            self._status(message)
        return True

    def _use_suggestion(self) -> None:
        if self._suggested is not None:
            self.opset_box.setValue(self._suggested)
            self.suggest_button.hide()


def _real(path: Path) -> Path:
    """``path`` with its folder's links followed (the file need not exist)."""
    return Path(os.path.realpath(Path(path).expanduser()))
