"""How a node stands, as one enum shared by the engine, the runner and the views.

Who produces which member:

- the engine's :class:`~nodeeditor.graph.engine.NodeResult` carries ``OK``, ``ERROR``,
  ``BLOCKED`` or ``CANCELLED``;
- static type inference (:attr:`NodeInfo.status <nodeeditor.graph.info.NodeInfo.status>`)
  gives ``INCOMPLETE``, ``BLOCKED``, ``ERROR``, ``WARNING`` or ``OK``;
- a background runner says ``RUNNING`` (a pending run will compute the node) or ``STALE``
  (it must be computed again and no run is going);
- a view combines these into what it shows: every member but ``CANCELLED`` (a cancelled
  node is shown ``STALE``: it was not evaluated).

The values are the lower-case names, for messages and files.
"""
from __future__ import annotations

from enum import Enum


class NodeStatus(Enum):
    OK = "ok"                    #: computed (or statically fine) and up to date
    ERROR = "error"              #: the node itself is wrong or its kernel failed
    BLOCKED = "blocked"          #: an input has no value/type because of a problem upstream
    CANCELLED = "cancelled"      #: the run stopped before computing it
    RUNNING = "running"          #: a pending run will compute it
    STALE = "stale"              #: must be computed again; no run is going
    WARNING = "warning"          #: fine, with remarks (duplicate scatter targets, ...)
    INCOMPLETE = "incomplete"    #: a required input is not connected yet: unfinished work

    def __str__(self) -> str:
        return self.value
