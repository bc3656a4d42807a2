"""Copy, paste and duplicate: the selection (with the edges inside it) as ``graph_to_dict``
data, on the system clipboard as JSON under ``MIME_TYPE`` (and as text)."""
from __future__ import annotations

import atexit
import json
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui

from nodeeditor.graph.document import Graph
from nodeeditor.graph.nodes import Edge
from nodeeditor.graph.serialize import graph_to_dict

MIME_TYPE = "application/x-indexflow-graph"
STEP = 30.0


def selection_data(graph: Graph, node_ids: list[str]) -> dict[str, Any] | None:
    """The selected nodes as ``graph_to_dict`` data, plus ``folder``: what their relative file
    paths resolve against (the graph's folder, or the working folder of a graph never saved),
    so a paste into a graph elsewhere still names the same files (``serialize.paste_dict``)."""
    if not node_ids:
        return None
    data = graph_to_dict(graph, node_ids)
    data["folder"] = str(graph.folder if graph.folder is not None else Path.cwd())
    return data


def input_edges(graph: Graph, node_ids: list[str]) -> list[Edge]:
    """The edges into the selected nodes from nodes outside the selection (their inputs from
    the rest of the graph), which ``graph_to_dict`` leaves out and Duplicate draws again."""
    chosen = set(node_ids)
    return [e for e in graph.edges if e.dst in chosen and e.src not in chosen]


def copy_to_clipboard(data: dict[str, Any]) -> None:
    text = json.dumps(data)
    mime = QtCore.QMimeData()
    mime.setData(MIME_TYPE, QtCore.QByteArray(text.encode("utf-8")))
    mime.setText(text)
    QtGui.QGuiApplication.clipboard().setMimeData(mime)
    _release_at_exit()


_release_registered = False


def _release_at_exit() -> None:
    """Clear our data from the clipboard when the interpreter exits. A QMimeData still owned by
    the clipboard when Python tears Qt down crashes the process (segfault at exit, seen with
    PySide6 6.12 on the offscreen platform); the data dies with the app anyway."""
    global _release_registered
    if not _release_registered:
        atexit.register(_clear_own_data)
        _release_registered = True


def _clear_own_data() -> None:
    if QtGui.QGuiApplication.instance() is None:
        return
    board = QtGui.QGuiApplication.clipboard()
    mime = board.mimeData()
    if mime is not None and mime.hasFormat(MIME_TYPE):
        board.clear()


def clipboard_data() -> dict[str, Any] | None:
    """The graph data on the clipboard, or None when it holds something else."""
    mime = QtGui.QGuiApplication.clipboard().mimeData()
    if mime is None:
        return None
    if mime.hasFormat(MIME_TYPE):
        raw = bytes(mime.data(MIME_TYPE)).decode("utf-8")
    elif mime.hasText() and '"indexflow-graph"' in mime.text():
        raw = mime.text()
    else:
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("nodes") else None


def paste_offset(data: dict[str, Any], at: QtCore.QPointF | None, repeat: int) -> tuple[float, float]:
    """Move pasted nodes so their top-left lands at ``at`` (the cursor), or a step down-right
    per repeated paste."""
    if at is not None:
        xs = [float(n["position"][0]) for n in data["nodes"]]
        ys = [float(n["position"][1]) for n in data["nodes"]]
        return at.x() - min(xs), at.y() - min(ys)
    return STEP * repeat, STEP * repeat
