"""The property panel (see ``panel.py``); one module per kind of form."""
from .panel import PropertyPanel
from .values import COMMON_DTYPES, EDITABLE_LIMIT, MAX_OPSET, cell_text, parse_shape, parse_value, shape_text

__all__ = ["PropertyPanel", "MAX_OPSET", "COMMON_DTYPES", "EDITABLE_LIMIT", "parse_shape", "parse_value",
           "shape_text", "cell_text"]
