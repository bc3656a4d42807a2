"""The teaching view: step through which index sends which value where (see ``ops.explain``)."""
from .widget import ExplainerWidget, TensorGrid

__all__ = ["ExplainerWidget", "TensorGrid"]
