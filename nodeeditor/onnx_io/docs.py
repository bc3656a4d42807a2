"""The ONNX specification's own text for an operator (``onnx.defs``), for the editor's Help."""
from __future__ import annotations

import onnx.defs


def onnx_doc(op: str, opset: int) -> tuple[int | None, str]:
    """(the version of ``op`` in force at ``opset``, the ONNX page's text in Markdown). When
    ``op`` does not exist yet at ``opset``, its first version; (None, "") when this onnx
    package does not know ``op`` at all."""
    try:
        schema = onnx.defs.get_schema(op, opset, "")
    except onnx.defs.SchemaError:
        try:
            schema = onnx.defs.get_schema(op, onnx.defs.onnx_opset_version(), "")
        except onnx.defs.SchemaError:
            return None, ""
        versions = [s.since_version for s in onnx.defs.get_all_schemas_with_history()
                    if s.name == op and s.domain == ""]
        schema = onnx.defs.get_schema(op, min(versions), "")
    return schema.since_version, schema.doc or ""
