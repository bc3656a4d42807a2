"""The onnx_io layer: ONNX export, import, an ``onnx.backend`` style backend, and the runtime
of foreign nodes. The only layer that imports onnx.

    export_model(graph, opset=None, sources="initializers") -> onnx.ModelProto   (ExportError)
    save_model(graph, path, opset=None, sources="initializers", external_data=None)
        -> Written(model, data)                                                   (ExportError)
    import_model(path | bytes | ModelProto) -> Graph                              (OnnxImportError)
    export_gradient_model(graph, opset=None, sources="initializers") -> onnx.ModelProto  (ExportError)

Importing this package registers the foreign-node runtime (onnxruntime with ``onnx.reference``
as the fallback, ONNX shape inference, model-file tensors) with ``nodeeditor.graph.foreign``.
"""
from . import foreign_runtime as _foreign_runtime
from .errors import ExportError, OnnxImportError
from .export import export_model, lowest_working_opset, opset_problems, save_model, validate_model
from .gradients import export_gradient_model, save_gradient_model
from .importer import import_model

_foreign_runtime.install()

__all__ = ["export_model", "save_model", "import_model", "validate_model", "lowest_working_opset",
           "opset_problems", "ExportError", "OnnxImportError", "export_gradient_model", "save_gradient_model"]
