"""The canvas: a QGraphicsScene that mirrors a Graph through its events, and its view."""
from .scene import GraphScene
from .view import GraphView

__all__ = ["GraphScene", "GraphView"]
