"""A tiny observer: the graph tells its listeners what changed, nothing more.

No Qt here. A view subscribes a callable and receives every :class:`GraphEvent`
after the change it describes is complete (the graph is consistent when the
callback runs). Listeners are called in subscription order, synchronously, on
the thread that made the change. An exception raised by a listener propagates
to the code that made the change; the change itself has already happened.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

# Event kinds and their payload keys (all payload values are plain data or
# graph value objects; listeners must not mutate them).
NODE_ADDED = "node_added"                # node_id
NODE_REMOVED = "node_removed"            # node_id, node (the removed Node object)
EDGE_ADDED = "edge_added"                # edge (Edge)
EDGE_REMOVED = "edge_removed"            # edge (Edge)
ATTRIBUTE_CHANGED = "attribute_changed"  # node_id, name, old, new (None = unset, schema default)
SOURCE_CHANGED = "source_changed"        # node_id, field, old, new
NODE_RENAMED = "node_renamed"            # node_id, old, new
POSITION_CHANGED = "position_changed"    # node_id, old, new  ((x, y) tuples)
SETTING_CHANGED = "setting_changed"      # name, old, new
TYPES_CHANGED = "types_changed"          # node_ids (frozenset of ids whose NodeInfo changed)

EVENT_KINDS = (
    NODE_ADDED, NODE_REMOVED, EDGE_ADDED, EDGE_REMOVED, ATTRIBUTE_CHANGED,
    SOURCE_CHANGED, NODE_RENAMED, POSITION_CHANGED, SETTING_CHANGED, TYPES_CHANGED,
)


@dataclass(frozen=True)
class GraphEvent:
    """One change to a graph: ``kind`` is one of ``EVENT_KINDS``; ``data`` holds its payload."""

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]


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

    def emit(self, kind: str, **data: Any) -> GraphEvent:
        """Build a :class:`GraphEvent` and hand it to every listener (a snapshot of the list)."""
        event = GraphEvent(kind, data)
        for listener in list(self._listeners):
            listener(event)
        return event
