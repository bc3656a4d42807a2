"""Explainer > Export Slides…: where (a GIF file, or a folder of numbered PNG frames), at which
size, with or without a title frame, and each GIF frame's time (from the play speed); then
:mod:`.slides` renders the step-through offscreen and writes it. Errors are shown in a
message box; the dialog stays open so the person can fix the path or the size."""
from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets

from . import slides

GIF, FRAMES = "gif", "frames"


#: The path box shows about this many characters without scrolling.
PATH_CHARS = 48


class SlidesDialog(QtWidgets.QDialog):
    """Export the operation ``explainer`` shows, proposed into ``folder`` (the last-used one;
    None: the home folder). ``written`` lists the files once done."""

    def __init__(self, explainer, parent: QtWidgets.QWidget | None = None, folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export Slides")
        self.explainer = explainer
        self.written: list[Path] = []
        self.gif_button = QtWidgets.QRadioButton("Animated &GIF")
        self.frames_button = QtWidgets.QRadioButton("Numbered &PNG frames in a folder")
        self.gif_button.setChecked(True)
        title, op = explainer.operation()[:2]
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in title).strip("_") or op
        base = folder if folder is not None else Path.home()
        self._defaults = {GIF: str(base / f"{stem}.gif"), FRAMES: str(base / f"{stem}_frames")}
        self.path = QtWidgets.QLineEdit(self._defaults[GIF])
        # a usual path whole (it showed 20 characters: "ad/s21/slides/frames")
        self.path.setMinimumWidth(self.path.fontMetrics().horizontalAdvance("x" * PATH_CHARS))
        browse = QtWidgets.QPushButton("&Browse…")
        browse.clicked.connect(self._browse)
        self.width_box, self.height_box = QtWidgets.QSpinBox(), QtWidgets.QSpinBox()
        for i, box in enumerate((self.width_box, self.height_box)):
            box.setRange(slides.MIN_SIZE[i], slides.MAX_SIZE[i])
            box.setValue(slides.DEFAULT_SIZE[i])
            box.setSuffix(" px")
        self.title_box = QtWidgets.QCheckBox("&Title frame first")
        self.frame_ms = QtWidgets.QSpinBox()
        self.frame_ms.setRange(50, 20000)
        self.frame_ms.setSingleStep(100)
        self.frame_ms.setSuffix(" ms per step")
        self.frame_ms.setValue(round(1000 / explainer.speed))
        for button, kind in ((self.gif_button, GIF), (self.frames_button, FRAMES)):
            button.toggled.connect(lambda on, k=kind: on and self._switch(k))

        where = QtWidgets.QHBoxLayout()
        where.addWidget(self.path, 1)
        where.addWidget(browse)
        size = QtWidgets.QHBoxLayout()
        size.addWidget(self.width_box)
        size.addWidget(QtWidgets.QLabel("×"))
        size.addWidget(self.height_box)
        size.addStretch(1)
        form = QtWidgets.QFormLayout()
        form.addRow(self.gif_button)
        form.addRow(self.frames_button)
        form.addRow("Save to:", where)
        form.addRow("Size:", size)
        form.addRow("GIF speed:", self.frame_ms)
        form.addRow(self.title_box)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Save
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.export)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        self._exporting = False
        layout = QtWidgets.QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    @property
    def kind(self) -> str:
        return GIF if self.gif_button.isChecked() else FRAMES

    def _switch(self, kind: str) -> None:
        if self.path.text() in self._defaults.values():
            self.path.setText(self._defaults[kind])
        self.frame_ms.setEnabled(kind == GIF)

    def _browse(self) -> None:
        if self.kind == GIF:
            path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save GIF", self.path.text(), "GIF images (*.gif)")
        else:
            path = QtWidgets.QFileDialog.getExistingDirectory(self, "Folder for the frames", self.path.text())
        if path:
            self.path.setText(path)

    def options(self) -> slides.SlideOptions:
        return slides.SlideOptions((self.width_box.value(), self.height_box.value()), self.title_box.isChecked(),
                                   self.frame_ms.value(), self.explainer.granularity)

    def reject(self) -> None:
        if not self._exporting:   # Esc while drawing: the progress dialog's Cancel stops it
            super().reject()

    def export(self) -> bool:
        """Render and write; True when written (the dialog closes), else a message box says why.
        While drawing (events are handled between pictures) the dialog takes no second Save."""
        if self._exporting:
            return False
        text = self.path.text().strip()
        if not text:
            QtWidgets.QMessageBox.warning(self, "Export Slides", "Choose where to save the slides.")
            return False
        path = slides.gif_path(text) if self.kind == GIF else Path(text).expanduser()
        title, op, inputs, attrs = self.explainer.operation()
        progress = QtWidgets.QProgressDialog("Drawing the slides…", "Cancel", 0, 0, self)
        progress.setWindowTitle("Export Slides")
        progress.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
        progress.setMinimumDuration(0)   # shown (and modal) from the first picture

        def step(done: int, total: int) -> bool:
            # the pictures are drawn by a widget, so on this thread; the dialog stays live
            progress.setMaximum(total)
            progress.setValue(done)
            progress.setLabelText(f"Drawing slide {done} of {total}…")
            QtWidgets.QApplication.processEvents()
            return not progress.wasCanceled()

        self._exporting = True
        self.buttons.setEnabled(False)
        try:
            self.written, _count = slides.write_slides(title, op, inputs, attrs, self.options(),
                                                       gif=path if self.kind == GIF else None,
                                                       folder=path if self.kind == FRAMES else None, progress=step)
        except slides.SlidesCancelledError:
            return False
        except slides.SlideError as exc:
            progress.close()
            QtWidgets.QMessageBox.warning(self, "Export Slides", str(exc))
            return False
        finally:
            progress.close()
            self._exporting = False
            self.buttons.setEnabled(True)
        self.accept()
        return True
