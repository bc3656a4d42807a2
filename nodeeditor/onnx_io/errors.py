"""Errors of the ONNX bridge. Each message is meant to be shown to a user as it is."""
from __future__ import annotations


class ExportError(ValueError):
    """The graph cannot be written as a valid model at the requested opset.

    ``str(exc)`` states the exact problem (which node needs which opset, or the checker's
    message); ``suggested_opset`` is the lowest opset at which every node can be written,
    or None when no opset helps (the graph itself has errors).
    """

    def __init__(self, message: str, suggested_opset: int | None = None) -> None:
        super().__init__(message)
        self.suggested_opset = suggested_opset


class OnnxImportError(ValueError):
    """A model cannot become an editable graph; the message names the file and the problem
    (unsupported op types and where they are, external data, size, a bad file)."""
