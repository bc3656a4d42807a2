"""The palette dock's widget: blocks by category with a search field. Dragging a block
carries its key as ``blocks.MIME_TYPE``; double-click (or Enter) emits ``blockActivated``.

Below the editor's own blocks, the "ONNX ops" category lists every other op of the default
ONNX domain (:func:`.onnx_blocks.catalog_blocks`, added as foreign nodes). Reading the ONNX
schemas takes a moment, so the category is filled the first time it is expanded or a search
is typed, not when the window opens."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from .blocks import BLOCKS, CATEGORIES, MIME_TYPE, search
from .onnx_blocks import catalog_blocks

KEY_ROLE = QtCore.Qt.ItemDataRole.UserRole


class BlockTree(QtWidgets.QTreeWidget):
    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setHeaderHidden(True)
        self.setDragEnabled(True)
        self.setDragDropMode(QtWidgets.QAbstractItemView.DragDropMode.DragOnly)
        self.setRootIsDecorated(True)
        self.setIndentation(14)

    def mimeTypes(self) -> list[str]:
        return [MIME_TYPE]

    def mimeData(self, items) -> QtCore.QMimeData:
        data = QtCore.QMimeData()
        keys = [i.data(0, KEY_ROLE) for i in items if i.data(0, KEY_ROLE)]
        if keys:
            data.setData(MIME_TYPE, QtCore.QByteArray(keys[0].encode("utf-8")))
            data.setText(keys[0])
        return data


class Palette(QtWidgets.QWidget):
    blockActivated = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.search_field = QtWidgets.QLineEdit()
        self.search_field.setPlaceholderText("Search blocks…")
        self.search_field.setAccessibleName("Search blocks")
        self.search_field.setClearButtonEnabled(True)
        self.search_field.textChanged.connect(self.filter)
        self.search_field.returnPressed.connect(self._activate_first)
        self.tree = BlockTree()
        self.tree.setAccessibleName("Blocks")
        self.tree.itemActivated.connect(self._on_activated)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.search_field)
        layout.addWidget(self.tree)
        hint = QtWidgets.QLabel("Drag onto the canvas, or double-click to add at the centre. "
                                "Tab on the canvas searches.")
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #6a7285; font-size: 8pt;")
        layout.addWidget(hint)
        self._items: dict[str, QtWidgets.QTreeWidgetItem] = {}
        self._blocks = {b.key: b for b in BLOCKS}
        self._categories: dict[str, QtWidgets.QTreeWidgetItem] = {}
        for category in CATEGORIES:
            top = QtWidgets.QTreeWidgetItem([category])
            top.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled)
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            self.tree.addTopLevelItem(top)
            self._categories[category] = top
        for b in BLOCKS:
            item = QtWidgets.QTreeWidgetItem([b.title])
            item.setData(0, KEY_ROLE, b.key)
            item.setToolTip(0, b.description)
            item.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled | QtCore.Qt.ItemFlag.ItemIsSelectable
                          | QtCore.Qt.ItemFlag.ItemIsDragEnabled)
            self._categories[b.category].addChild(item)
            self._items[b.key] = item
        self.tree.expandAll()
        self._onnx_top = QtWidgets.QTreeWidgetItem(["ONNX ops"])
        self._onnx_top.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled)
        self._onnx_top.setFont(0, font)
        self._onnx_top.setToolTip(0, "Every other ONNX op, added as a foreign node run by onnxruntime")
        self._onnx_top.setChildIndicatorPolicy(QtWidgets.QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
        self.tree.addTopLevelItem(self._onnx_top)
        self._onnx_items: dict[str, QtWidgets.QTreeWidgetItem] | None = None   # filled on demand
        self.tree.itemExpanded.connect(lambda item: item is self._onnx_top and self._fill_onnx())

    def _fill_onnx(self) -> dict[str, QtWidgets.QTreeWidgetItem]:
        """The ONNX ops' items, made the first time they are needed."""
        if self._onnx_items is None:
            self._onnx_items = {}
            for b in catalog_blocks():
                item = QtWidgets.QTreeWidgetItem([b.title])
                item.setData(0, KEY_ROLE, b.key)
                item.setToolTip(0, b.description)
                item.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled | QtCore.Qt.ItemFlag.ItemIsSelectable
                              | QtCore.Qt.ItemFlag.ItemIsDragEnabled)
                self._onnx_top.addChild(item)
                self._onnx_items[b.key] = item
            self._onnx_top.setText(0, f"ONNX ops ({len(self._onnx_items)})")
        return self._onnx_items

    def set_opset(self, opset: int) -> None:
        """Grey out operators that do not exist at ``opset`` (they can still be added: the
        node then says which opset it needs)."""
        import ops

        for key, item in self._items.items():
            b = self._blocks[key]
            if not key.startswith("op:"):
                continue
            schema = ops.get_schema(key[3:])
            missing = schema.version_for(opset) is None
            # available ones in the palette's text colour (light or dark theme), missing ones grey
            item.setForeground(0, QtGui.QBrush(QtGui.QColor("#9aa1b1")) if missing else QtGui.QBrush())
            note = ""
            if missing:
                note = (f"\n\nNot in opset {opset}: " + (f"replaced from opset {schema.deprecated_since}"
                        if schema.deprecated_since is not None and opset >= schema.deprecated_since
                        else f"needs opset {schema.versions[0]}"))
            item.setToolTip(0, b.description + note)

    def item(self, key: str) -> QtWidgets.QTreeWidgetItem:
        return self._items[key]

    def visible_keys(self) -> list[str]:
        """The editor's own blocks the search leaves shown."""
        return [k for k, i in self._items.items() if not i.isHidden()]

    def visible_onnx_keys(self) -> list[str]:
        """The ONNX ops the search leaves shown (none before the category is first filled)."""
        return [k for k, i in (self._onnx_items or {}).items() if not i.isHidden()]

    def filter(self, text: str) -> None:
        matches = {b.key for b in search(text)} if text.strip() else set(self._items)
        for key, item in self._items.items():
            item.setHidden(key not in matches)
        for top in self._categories.values():
            top.setHidden(all(top.child(i).isHidden() for i in range(top.childCount())))
        if text.strip():
            onnx_items = self._fill_onnx()
            found = {b.key for b in search(text, catalog_blocks())}
            for key, item in onnx_items.items():
                item.setHidden(key not in found)
            self._onnx_top.setHidden(not found)
            self._onnx_top.setExpanded(bool(found))
        elif self._onnx_items is not None:
            for item in self._onnx_items.values():
                item.setHidden(False)
            self._onnx_top.setHidden(False)
            self._onnx_top.setExpanded(False)

    def _activate_first(self) -> None:
        text = self.search_field.text()
        keys = [b.key for b in search(text)] or [b.key for b in search(text, catalog_blocks())]
        if keys:
            self.blockActivated.emit(keys[0])

    def _on_activated(self, item: QtWidgets.QTreeWidgetItem, _column: int) -> None:
        key = item.data(0, KEY_ROLE)
        if key:
            self.blockActivated.emit(key)
