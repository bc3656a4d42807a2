"""File sources: path with a Browse button, .npz key and .csv dtype."""
from __future__ import annotations

from PySide6 import QtWidgets

from nodeeditor.graph import nodes as N

from .. import commands as C
from .values import COMMON_DTYPES


class FileForm:
    """Mixin of :class:`PropertyPanel` (uses its ``graph``, ``node_id``, ``push``, ``status``,
    ``widgets``, ``_form``, ``_add``)."""

    def _build_file(self, node: N.FileSource) -> None:
        g = self.graph
        path = QtWidgets.QLineEdit()
        browse = QtWidgets.QPushButton("Browse…")
        row = QtWidgets.QWidget()
        lay = QtWidgets.QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(path, 1)
        lay.addWidget(browse)
        key = QtWidgets.QLineEdit()
        key.setPlaceholderText(".npz only: the array's name")
        dtype = QtWidgets.QComboBox()
        dtype.addItem("(default)", None)
        for name in COMMON_DTYPES:
            if name != "string":
                dtype.addItem(name, name)

        def set_field(**fields) -> None:
            n = g.node(self.node_id)
            if all(getattr(n, k) == v for k, v in fields.items()):
                return
            if fields.get("path"):
                g.allow_file(fields["path"])   # chosen here by the person at the editor: readable wherever it is
            self.push(C.SourceCommand(g, self.node_id, "Change File", **fields))

        def choose() -> None:
            start = str(g.file_path.parent) if g.file_path else ""
            chosen, _ = QtWidgets.QFileDialog.getOpenFileName(
                self, "Choose a tensor file", start, "Tensors (*.npy *.npz *.csv);;All files (*)")
            if chosen:
                set_field(path=chosen)

        path.editingFinished.connect(lambda: set_field(path=path.text().strip()))
        browse.clicked.connect(choose)
        key.editingFinished.connect(lambda: set_field(key=key.text().strip() or None))
        dtype.currentIndexChanged.connect(lambda _i: set_field(dtype=dtype.currentData()))

        def refresh() -> None:
            n = g.node(self.node_id)
            if not path.hasFocus():
                path.setText(n.path)
            if not key.hasFocus():
                key.setText(n.key or "")
            dtype.blockSignals(True)
            dtype.setCurrentIndex(max(0, dtype.findData(n.dtype)) if n.dtype else 0)
            dtype.blockSignals(False)

        self.widgets["browse"] = browse
        self._add("path", "path", row, refresh)
        self.widgets["path"] = path
        self._add("key", "key", key)
        self._add("dtype (.csv)", "file_dtype", dtype)
