"""Help for one operator node (its right-click menu): the formula for this node's attributes
and input ranks, IndexFlow's one-line summary, and the ONNX specification's page text for the
op at the graph's opset (``onnx_io.docs``). A non-modal dialog; several can be open.

:func:`node_formula` is also what the property panel shows under an operator's title.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

import ops
from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph
from ops import formula

from .screen_fit import fit_to_screen


def node_formula(graph: Graph, node: N.OperatorNode) -> str:
    """The op's formula for the node's attributes and the ranks of its inputs
    (``ops.formulas``), or the schema's generic text while a rank is unknown."""
    opdef = ops.get_opdef(node.op)

    def input_type(port):
        edge = graph.edge_into(node.id, port)
        return None if edge is None else graph.node_info(edge.src).outputs.get(edge.src_port)

    data, indices = input_type(opdef.data_port), input_type(opdef.index_ports[0])
    text = formula(node.op, node.attributes, data.rank if data else None,
                   indices.rank if indices else None,
                   indices.shape[-1] if indices is not None and indices.rank else None)
    return text or node.schema.doc


class OperatorHelp(QtWidgets.QDialog):
    """The help of ``node_id``'s operator, as the graph has it now."""

    PREFERRED_SIZE = QtCore.QSize(640, 620)

    def __init__(self, parent: QtWidgets.QWidget, graph: Graph, node_id: str) -> None:
        super().__init__(parent)
        node = graph.node(node_id)
        if not isinstance(node, N.OperatorNode):
            raise ValueError(f"{node.label} is not an operator")
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(f"{node.op} — Help")
        from nodeeditor.onnx_io.docs import onnx_doc  # onnx loads when help is first asked for

        version, text = onnx_doc(node.op, graph.opset)
        self.formula = QtWidgets.QLabel(node_formula(graph, node))
        self.formula.setObjectName("formula")
        self.formula.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.formula.setWordWrap(True)
        self.formula.setStyleSheet("font-family: monospace; font-size: 11pt; padding: 6px;")
        summary = QtWidgets.QLabel(f"<b>{node.op}</b> ({node.label}): {node.schema.doc}")
        summary.setWordWrap(True)
        self.page = QtWidgets.QTextBrowser()
        self.page.setOpenExternalLinks(True)
        heading = f"## ONNX {node.op}-{version}\n\n" if version is not None else ""
        self.page.setMarkdown(heading + (text or "This onnx package has no page for this operator."))
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QtWidgets.QVBoxLayout(self)
        layout.addWidget(summary)
        layout.addWidget(QtWidgets.QLabel("For this node:"))
        layout.addWidget(self.formula)
        layout.addWidget(self.page, 1)
        layout.addWidget(buttons)
        fit_to_screen(self, self.PREFERRED_SIZE)

    def page_text(self) -> str:
        return self.page.toPlainText()
