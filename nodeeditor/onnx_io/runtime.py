"""Running a graph in onnxruntime: the engine users scale out on.

onnxruntime is optional; without it :func:`run_in_onnxruntime` raises RuntimeError saying
how to install it.
"""
from __future__ import annotations

import numpy as np

from nodeeditor.graph import Graph

from .export import export_with_feeds
from .names import DISPLAY_NAMES_KEY, decode_display_names

INSTALL_HINT = "onnxruntime is not installed; install it with: pip install onnxruntime"


def onnxruntime_session(model_bytes: bytes, threads: int | None = 1):
    """An InferenceSession on the CPU; ``threads=1`` pins intra- and inter-op threads to one
    (multi-threaded ScatterND loses updates on duplicate indices). onnxruntime logs nothing
    below fatal: a failing run's error arrives as the exception ``run`` raises."""
    try:
        import onnxruntime as ort
    except ImportError as exc:  # pragma: no cover - exercised by monkeypatching in tests
        raise RuntimeError(INSTALL_HINT) from exc
    options = ort.SessionOptions()
    if threads is not None:
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = threads
    options.log_severity_level = 4  # fatal only: a failing run raises, and callers say why once
    return ort.InferenceSession(model_bytes, options, providers=["CPUExecutionProvider"])


def run_in_onnxruntime(graph: Graph, opset: int | None = None, threads: int | None = 1) -> dict[str, np.ndarray]:
    """Export ``graph`` in memory, run it in onnxruntime on the editor's values, and return
    output name (the graph's) -> array. ExportError when the graph cannot be exported."""
    model, feeds = export_with_feeds(graph, opset)
    session = onnxruntime_session(model.SerializeToString(), threads)
    # an output whose name the model had to change (a graph input of the same name) is given
    # under its name in the graph, as the numpy engine gives it
    shown = decode_display_names({p.key: p.value for p in model.metadata_props}.get(DISPLAY_NAMES_KEY))
    names = [shown.get(o.name, o.name) for o in session.get_outputs()]
    return dict(zip(names, session.run(None, feeds), strict=True))
