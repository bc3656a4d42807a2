"""The onnx_io layer: ONNX export, import and an ``onnx.backend`` style backend.
The only layer that imports onnx.

    export_model(graph, opset=None, sources="initializers") -> onnx.ModelProto   (ExportError)
    save_model(graph, path, opset=None, sources="initializers") -> Path          (ExportError)
    import_model(path | bytes | ModelProto) -> Graph                              (OnnxImportError)
    export_gradient_model(graph, opset=None, sources="initializers") -> onnx.ModelProto  (ExportError)
"""
from .errors import ExportError, OnnxImportError
from .export import export_model, lowest_working_opset, opset_problems, save_model, validate_model
from .gradients import export_gradient_model, save_gradient_model
from .importer import import_model

__all__ = ["export_model", "save_model", "import_model", "validate_model", "lowest_working_opset",
           "opset_problems", "ExportError", "OnnxImportError", "export_gradient_model", "save_gradient_model"]
