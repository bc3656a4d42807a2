"""A tiny observer: the graph tells its listeners what changed, nothing more.

No Qt here. A view subscribes a callable and receives every event after the change it
describes is complete (the graph is consistent when the callback runs). Listeners are
called in subscription order, synchronously, on the thread that made the change. An
exception raised by a listener propagates to the code that made the change; the change
itself has already happened.

Each kind of change is its own small frozen dataclass (all subclasses of
:class:`GraphEvent`); a listener dispatches on the type (``match event: case
NodeAdded(node_id=nid): ...``). Payload values are plain data or graph value objects;
listeners must not mutate them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import nodes as N
from .losses import LossKind


@dataclass(frozen=True)
class GraphEvent:
    """Base class of every event a graph emits."""


@dataclass(frozen=True)
class NodeAdded(GraphEvent):
    node_id: str


@dataclass(frozen=True)
class NodeRemoved(GraphEvent):
    node_id: str
    node: N.Node              #: the removed node object


@dataclass(frozen=True)
class EdgeAdded(GraphEvent):
    edge: N.Edge


@dataclass(frozen=True)
class EdgeRemoved(GraphEvent):
    edge: N.Edge


@dataclass(frozen=True)
class AttributeChanged(GraphEvent):
    node_id: str
    name: str
    old: Any                  #: None: it was unset (the schema default)
    new: Any                  #: None: now unset


@dataclass(frozen=True)
class SourceChanged(GraphEvent):
    node_id: str
    field: str                #: a name in ``nodes.SOURCE_FIELDS`` for the node's kind
    old: Any
    new: Any


@dataclass(frozen=True)
class NodeRenamed(GraphEvent):
    node_id: str
    old: str
    new: str


@dataclass(frozen=True)
class PositionChanged(GraphEvent):
    node_id: str
    old: tuple[float, float]
    new: tuple[float, float]


@dataclass(frozen=True)
class SettingChanged(GraphEvent):
    name: str                 #: a key of ``base.SETTINGS_DEFAULTS``, or ``"model_info"``
    old: Any
    new: Any


@dataclass(frozen=True)
class TrainingChanged(GraphEvent):
    """An operator's training switch (``OperatorNode.training``) was turned on or off."""

    node_id: str
    old: bool
    new: bool


@dataclass(frozen=True)
class LossCoefficientChanged(GraphEvent):
    """An operator's ``loss_coefficient`` changed."""

    node_id: str
    old: float
    new: float


@dataclass(frozen=True)
class TrainableChanged(GraphEvent):
    """A source's ``trainable`` flag changed."""

    node_id: str
    old: bool
    new: bool


@dataclass(frozen=True)
class OverridableChanged(GraphEvent):
    """A source's ``overridable`` flag changed (an export lists it as a graph input or not)."""

    node_id: str
    old: bool
    new: bool


@dataclass(frozen=True)
class LossKindChanged(GraphEvent):
    """A Loss node's kind changed (its value changes with it)."""

    node_id: str
    old: LossKind
    new: LossKind


@dataclass(frozen=True)
class TypesChanged(GraphEvent):
    node_ids: frozenset[str]  #: the nodes whose NodeInfo changed


@dataclass(frozen=True)
class BypassChanged(GraphEvent):
    node_id: str
    old: bool
    new: bool                 #: True: the operator passes its data input through


@dataclass(frozen=True)
class CollapsedChanged(GraphEvent):
    node_id: str
    old: bool
    new: bool                 #: True: the node is drawn as its title only


@dataclass(frozen=True)
class FrameAdded(GraphEvent):
    frame_id: str


@dataclass(frozen=True)
class FrameRemoved(GraphEvent):
    frame_id: str
    frame: N.Frame            #: the removed frame object


@dataclass(frozen=True)
class FrameChanged(GraphEvent):
    frame_id: str
    field: str                #: a name in ``nodes.FRAME_FIELDS``
    old: Any
    new: Any


@dataclass(frozen=True)
class RouteChanged(GraphEvent):
    edge: N.Edge
    old: tuple[N.Point, ...]  #: the reroute points the wire passed through, in order
    new: tuple[N.Point, ...]


EVENT_TYPES: tuple[type[GraphEvent], ...] = (
    NodeAdded, NodeRemoved, EdgeAdded, EdgeRemoved, AttributeChanged,
    SourceChanged, NodeRenamed, PositionChanged, SettingChanged, TypesChanged,
    TrainingChanged, LossCoefficientChanged, TrainableChanged, LossKindChanged,
    BypassChanged, CollapsedChanged, FrameAdded, FrameRemoved, FrameChanged, RouteChanged,
)

Listener = Callable[[GraphEvent], None]


class Observable:
    """Keeps listeners and calls them with each emitted event."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` for every later event; returns a function that unsubscribes."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: GraphEvent) -> GraphEvent:
        """Hand ``event`` to every listener (a snapshot of the list) and return it."""
        for listener in list(self._listeners):
            listener(event)
        return event

#: Events about view objects only (positions, reroute points, collapsed nodes, frames): no
#: value, type or gradient depends on them.
VIEW_EVENTS: tuple[type[GraphEvent], ...] = (PositionChanged, RouteChanged, CollapsedChanged, FrameAdded,
                                             FrameRemoved, FrameChanged)
