"""The onnx_io layer: ONNX export, import and backend. The only layer that imports onnx."""
