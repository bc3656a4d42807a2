"""The document: :class:`Graph` owns nodes, edges and settings.

Contract:

- Every change goes through a Graph method; each one emits one or more events
  (the dataclasses in ``events.py``: ``NodeAdded``, ``EdgeRemoved``, ...) after the
  change is complete, then ``TypesChanged`` for the nodes whose inferred
  :class:`~nodeeditor.graph.info.NodeInfo` changed.
- Mutations come in symmetric pairs so undo commands need nothing but Graph
  methods: ``add_node``/``remove_node`` (which returns a :class:`RemovedNode`
  holding the node and its edges for ``restore_node``), ``connect``/``disconnect``,
  and setters that return the old value (``set_attribute``, ``set_position``,
  ``rename_node``, ``set_source``, ``set_source_value``, ``set_setting``, ``set_bypassed``,
  ``set_collapsed``, ``set_frame``, ``set_route``, and for training ``set_training``,
  ``set_loss_coefficient``, ``set_trainable``, ``set_loss_kind``), ``add_frame``/``remove_frame``;
  ``replace_node`` returns the node it replaced.
- The training fields (an operator's switch and coefficient, a source's trainable flag)
  change no forward value: they leave the node's ``revision`` alone, so the engine's
  forward cache stays valid; the backward pass reads them.
- Besides nodes and edges the document holds view objects that never change a value:
  frames (:class:`~nodeeditor.graph.nodes.Frame`, a titled box around member nodes, or when
  ``collapsed`` one group block in their place; removing a node takes it out of its frames,
  restoring it puts it back), reroute points on edges
  (``route``; they go with the edge and come back with ``restore_node``) and each node's
  ``collapsed`` flag.
- Types are inferred eagerly after every change (static, no kernels run) and
  read with :meth:`Graph.node_info`.
- Foreign ONNX nodes (``ForeignNode``) change through ``set_foreign_attribute``; the ONNX
  model details an import keeps (other domains' opsets, metadata, functions) are the document
  value ``model_info`` (``set_model_info``). A graph input's declared shape (named
  dimensions) is a source field (``set_source(id, shape="batch, 4")``); symbols are bound over
  all graph inputs at once (``dims.bind_inputs``), so changing one input re-checks the others.
- Serialisation (``to_dict``/``from_dict``, paste) lives in ``serialize.py`` as free
  functions over this public API; the file format in ``fileformat.py``.
- ``generation`` increases with every change; a background run started at one
  generation is stale once it differs.
- Not thread-safe: change a graph from one thread only.
"""
from __future__ import annotations

import heapq
import itertools
import math
import os
import weakref
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import ops

from . import dims
from . import events as E
from . import nodes as N
from .base import DEFAULT_OPSET, SETTINGS_DEFAULTS, ConnectionRefused, check_opset
from .foreign import ForeignAttribute, ForeignCall, check_attribute
from .inference import infer_node
from .info import NodeInfo
from .losses import DEFAULT_LOSS, LossKind
from .model_info import EMPTY as EMPTY_MODEL_INFO
from .model_info import ModelInfo
from .paths import FileScope, rebase_path
from .rules import connection_refusal, replacement_refusal, structural_refusal
from .sources import SourceError, generator_params


@dataclass(frozen=True)
class RemovedNode:
    """Everything ``Graph.restore_node`` needs to undo ``Graph.remove_node``."""

    node: N.Node
    edges: tuple[N.Edge, ...]
    index: int = -1                      # the node's place in the node order
    edge_indices: tuple[int, ...] = ()   # each edge's place in the edge order
    folder: Path | None = None           # the graph's folder when it was removed (file paths)
    frames: tuple[tuple[str, int], ...] = ()                       # (frame id, place in its members)
    routes: tuple[tuple[N.Edge, tuple[N.Point, ...]], ...] = ()    # the edges' reroute points


@dataclass(frozen=True)
class RemovedFrame:
    """What ``Graph.add_frame(removed.frame, index=removed.index)`` needs to undo ``remove_frame``."""

    frame: N.Frame
    index: int


class _WithNode:
    """A read-only :class:`~nodeeditor.graph.view.GraphView` of ``graph`` with one more node,
    not connected to anything (its type inferred on its own)."""

    def __init__(self, graph: Graph, node: N.Node) -> None:
        self._graph, self._node = graph, node
        self.opset, self.folder, self.file_scope = graph.opset, graph.folder, graph.file_scope
        self.nodes = graph.nodes + (node,)
        self.edges = graph.edges
        self._info = infer_node(self, node, {})

    def opsets(self) -> dict[str, int]:
        return self._graph.opsets()

    def foreign_call(self, node_id: str) -> ForeignCall:
        if node_id != self._node.id:
            return self._graph.foreign_call(node_id)
        if not isinstance(self._node, N.ForeignNode):
            raise ValueError(f"{self._node.label} is a {self._node.kind} node, not a foreign ONNX op")
        return self._node.call(self.opsets(), self._graph.model_functions())   # nothing reads it yet

    def symbol_conflict(self, node_id: str) -> dims.SymbolConflict | None:
        return None if node_id == self._node.id else self._graph.symbol_conflict(node_id)

    def has_node(self, node_id: str) -> bool:
        return node_id == self._node.id or self._graph.has_node(node_id)

    def node(self, node_id: str) -> N.Node:
        return self._node if node_id == self._node.id else self._graph.node(node_id)

    def node_info(self, node_id: str) -> NodeInfo:
        return self._info if node_id == self._node.id else self._graph.node_info(node_id)

    def edge_into(self, node_id: str, port: str) -> N.Edge | None:
        return None if node_id == self._node.id else self._graph.edge_into(node_id, port)

    def downstream(self, node_id: str) -> set[str]:
        return set() if node_id == self._node.id else self._graph.downstream(node_id)

    def topological_order(self, node_ids: Iterable[str] | None = None) -> list[str]:
        order = self._graph.topological_order(node_ids) + [self._node.id]
        return [n for n in order if node_ids is None or n in set(node_ids)]


class Graph:
    """A document of tensor sources, operator nodes and outputs wired by edges."""

    def __init__(self, name: str = "untitled", opset: int = DEFAULT_OPSET, description: str = "") -> None:
        self.events = E.Observable()
        self._nodes: dict[str, N.Node] = {}
        self._edges: dict[tuple[str, str], N.Edge] = {}  # (dst, dst_port) -> edge
        self._out: dict[str, dict[N.Edge, None]] = {}     # src -> its outgoing edges (ordered set)
        self._in: dict[str, dict[N.Edge, None]] = {}      # dst -> its incoming edges (ordered set)
        self._deferred = 0                                 # > 0 inside batch(): inference waits
        self._pending_all = False                          # a change was deferred: infer everything
        self._settings: dict[str, Any] = dict(SETTINGS_DEFAULTS)
        self._settings.update(name=str(name), description=str(description), opset=check_opset(opset))
        self._infos: dict[str, NodeInfo] = {}
        self._frames: dict[str, N.Frame] = {}
        self._grouped: dict[str, str] = {}   # node id -> the collapsed frame it is in (at most one)
        self._frame_hint = 1                 # no frame<i> id below this is free (new_frame_id)
        self._routes: dict[N.Edge, tuple[N.Point, ...]] = {}   # edge -> its reroute points
        self._stamps = itertools.count(1)
        self._issued: dict[int, weakref.ref] = {}          # revision -> the node it was given to
        self.generation = 0
        self._file_path: Path | None = None
        self._first_folder: Path | None = None
        # which files file sources may read (paths.FileScope); held here, never saved
        self._outside_allowed = True
        self._trusted_folders: frozenset[Path] = frozenset()
        self._allowed_files: frozenset[Path] = frozenset()
        self._model_info: ModelInfo = EMPTY_MODEL_INFO
        self._token = object()   # names this graph in runtime caches (see ForeignNode.call)
        self._symbols: dict[str, dims.Binding] = {}
        self._conflicts: dict[str, dims.SymbolConflict] = {}

    # ------------------------------------------------------------------ reading
    @property
    def file_path(self) -> Path | None:
        """The file this graph was loaded from / saved to; relative FileSource paths resolve
        against its folder. Set by the file functions; not part of the document (no undo),
        but setting it re-infers types (``TypesChanged``) since file sources may resolve
        differently."""
        return self._file_path

    @file_path.setter
    def file_path(self, path: Path | str | None) -> None:
        path = None if path is None else Path(path)
        if path != self._file_path:
            if self._file_path is not None:   # what was inside the old folder stays readable
                self._trusted_folders |= {self._file_path.parent}
            self._file_path = path
            if path is not None and self._first_folder is None:
                self._first_folder = path.parent
            self._reinfer([n.id for n in self._nodes.values() if n.kind in N.PATH_KINDS])

    @property
    def folder(self) -> Path | None:
        """The folder relative file-source paths resolve against (None: never saved)."""
        return None if self._file_path is None else self._file_path.parent

    @property
    def file_scope(self) -> FileScope:
        """Where file sources resolve and which files they may read (see
        :class:`~nodeeditor.graph.paths.FileScope`)."""
        return FileScope(self.folder, self._outside_allowed, self._trusted_folders, self._allowed_files)

    def readers_of(self, path: str | os.PathLike) -> list[N.Node]:
        """The sources that read the file ``path`` (a file source's array, the model a model
        tensor stays in), links followed: an export or a save must not write over it."""
        target = Path(os.path.realpath(Path(path).expanduser()))
        scope = self.file_scope
        return [n for n in self._nodes.values() if n.kind in N.PATH_KINDS and n.path and scope.real(n.path) == target]

    @property
    def outside_files_allowed(self) -> bool:
        """Whether file sources may read files outside the graph's folder (True for a graph
        made in this session; a graph read from a file says no until its opener allows it)."""
        return self._outside_allowed

    def set_outside_files_allowed(self, allowed: bool) -> bool:
        """Allow (or refuse) files outside the graph's folder; returns the old setting. Not
        part of the document (never saved, no undo): the person who opened it decides. File
        sources are inferred again (``TypesChanged``)."""
        old, self._outside_allowed = self._outside_allowed, bool(allowed)
        if old != self._outside_allowed:
            self._reinfer([n.id for n in self._nodes.values() if isinstance(n, N.FileSource)])
        return old

    def share_file_scope(self, scope: FileScope) -> None:
        """Take over another graph's allowance (``scope``: its :attr:`file_scope`): whether
        outside files may be read, the folders it trusts and the files allowed one by one. For
        a private copy of a graph (a training run) that must read exactly what the original
        may. File sources are inferred again."""
        self._outside_allowed = scope.outside_allowed
        self._trusted_folders = frozenset(scope.trusted_folders)
        self._allowed_files = frozenset(scope.allowed_files)
        self._reinfer([n.id for n in self._nodes.values() if isinstance(n, N.FileSource)])

    def allow_file(self, path: str) -> None:
        """Allow the file ``path`` names (resolved as file sources resolve it, links followed)
        wherever it is: the person at the editor chose it. File sources are inferred again."""
        real = self.file_scope.real(path)
        if real not in self._allowed_files:
            self._allowed_files |= {real}
            self._reinfer([n.id for n in self._nodes.values() if isinstance(n, N.FileSource)])

    def rebase_file_path(self, path: str, typed_in: Path | None) -> str:
        """A relative file path written when the graph's folder was ``typed_in`` (None: before
        the graph had a file, so relative to the first folder it was saved to), re-expressed
        for the graph's folder now (see :mod:`nodeeditor.graph.paths`)."""
        return rebase_path(path, typed_in if typed_in is not None else self._first_folder, self.folder)

    @property
    def name(self) -> str:
        return self._settings["name"]

    @property
    def opset(self) -> int:
        return self._settings["opset"]

    @property
    def settings(self) -> dict[str, Any]:
        """A copy of the settings: name, description, opset."""
        return dict(self._settings)

    @property
    def model_info(self) -> ModelInfo:
        """The ONNX model details kept from an import (see :mod:`.model_info`)."""
        return self._model_info

    def opsets(self) -> dict[str, int]:
        """domain -> opset for every domain the graph uses (``""``: the default domain, at
        the ``opset`` setting)."""
        return self._model_info.opset_map(self.opset)

    def foreign_call(self, node_id: str) -> ForeignCall:
        """The foreign node as a :class:`~.foreign.ForeignCall` at the graph's opsets, with the
        model's local functions (what the registered runtime needs to run or type it)."""
        node = self.node(node_id)
        if not isinstance(node, N.ForeignNode):
            raise ValueError(f"{node.label} is a {node.kind} node, not a foreign ONNX op")
        wanted = frozenset(e.src_port for e in self._out.get(node_id, ()))
        return node.call(self.opsets(), self.model_functions(), self._token, wanted)

    def model_functions(self) -> tuple[bytes, ...]:
        """The serialized model-local functions foreign nodes may call."""
        return tuple(f.data for f in self._model_info.functions)

    def symbol_binding(self, symbol: str) -> dims.Binding | None:
        """The size the graph inputs' examples give a named dimension, and where (None:
        no input binds it)."""
        return self._symbols.get(symbol)

    def symbol_conflict(self, node_id: str) -> dims.SymbolConflict | None:
        """The named dimension on which this graph input's example disagrees with an earlier
        input (see :func:`dims.bind_inputs`), or None."""
        return self._conflicts.get(node_id)

    @property
    def nodes(self) -> tuple[N.Node, ...]:
        """All nodes in insertion order."""
        return tuple(self._nodes.values())

    @property
    def node_ids(self) -> tuple[str, ...]:
        return tuple(self._nodes)

    @property
    def edges(self) -> tuple[N.Edge, ...]:
        """All edges, in the order they were made."""
        return tuple(self._edges.values())

    def has_node(self, node_id: str) -> bool:
        return node_id in self._nodes

    @property
    def frames(self) -> tuple[N.Frame, ...]:
        """All frames, in drawing order (later ones on top)."""
        return tuple(self._frames.values())

    def frame(self, frame_id: str) -> N.Frame:
        """The frame with that id; KeyError naming it otherwise."""
        try:
            return self._frames[frame_id]
        except KeyError:
            raise KeyError(f"no frame {frame_id!r}") from None

    def has_frame(self, frame_id: str) -> bool:
        return frame_id in self._frames

    def route(self, edge: N.Edge) -> tuple[N.Point, ...]:
        """The reroute points ``edge`` is drawn through, in order (empty: a plain curve)."""
        return self._routes.get(edge, ())

    def node(self, node_id: str) -> N.Node:
        """The node with that id; KeyError naming it otherwise."""
        try:
            return self._nodes[node_id]
        except KeyError:
            raise KeyError(f"no node {node_id!r}") from None

    def find(self, name: str) -> N.Node:
        """The first node whose ``name`` is ``name`` (KeyError if none)."""
        for node in self._nodes.values():
            if node.name == name:
                return node
        raise KeyError(f"no node named {name!r}")

    def edge_into(self, node_id: str, port: str) -> N.Edge | None:
        """The edge feeding that input port, if any."""
        return self._edges.get((node_id, port))

    def edges_of(self, node_id: str) -> tuple[N.Edge, ...]:
        """Edges into or out of the node, in edge order."""
        mine = set(self._in.get(node_id, ())) | set(self._out.get(node_id, ()))
        return tuple(e for e in self._edges.values() if e in mine)

    def edge_index(self, edge: N.Edge) -> int:
        """The edge's place in the edge order (pass it to ``connect(index=...)`` to undo a
        ``disconnect`` exactly); ValueError if the edge is not in the graph."""
        return list(self._edges.values()).index(edge)

    def inputs_of(self, node_id: str) -> dict[str, N.Edge]:
        """Input port -> edge, for the node's connected inputs."""
        return {e.dst_port: e for e in self._in.get(node_id, ())}

    def consumers(self, node_id: str) -> tuple[str, ...]:
        """Ids of the nodes fed by this node (each once)."""
        return tuple(dict.fromkeys(e.dst for e in self._out.get(node_id, ())))

    def downstream(self, node_id: str) -> set[str]:
        """Ids of every node reachable from ``node_id`` (not including itself unless in a cycle)."""
        out: set[str] = set()
        stack = [node_id]
        while stack:
            for nxt in self.consumers(stack.pop()):
                if nxt not in out:
                    out.add(nxt)
                    stack.append(nxt)
        return out

    def upstream(self, node_id: str | Iterable[str]) -> set[str]:
        """Ids of every node ``node_id`` (or any of several ids) depends on."""
        out: set[str] = set()
        stack = [node_id] if isinstance(node_id, str) else list(node_id)
        while stack:
            for e in self.inputs_of(stack.pop()).values():
                if e.src not in out:
                    out.add(e.src)
                    stack.append(e.src)
        return out

    def topological_order(self, node_ids: Iterable[str] | None = None) -> list[str]:
        """Node ids so every node comes after its inputs; ties keep insertion order.
        With ``node_ids``, only those nodes (in an order valid for the whole graph)."""
        wanted = set(self._nodes if node_ids is None else node_ids)
        indegree = {n: 0 for n in self._nodes}
        for e in self._edges.values():
            indegree[e.dst] += 1
        ready = [n for n in self._nodes if indegree[n] == 0]
        order: list[str] = []
        position = {n: i for i, n in enumerate(self._nodes)}
        heap = [(position[n], n) for n in ready]
        heapq.heapify(heap)
        while heap:
            _, current = heapq.heappop(heap)
            order.append(current)
            for edge in self._out.get(current, ()):   # per edge: one source may feed two ports
                nxt = edge.dst
                indegree[nxt] -= 1
                if indegree[nxt] == 0:
                    heapq.heappush(heap, (position[nxt], nxt))
        return [n for n in order if n in wanted]

    def node_info(self, node_id: str) -> NodeInfo:
        """Static type information of the node (see :class:`NodeInfo`). Inside a batch of
        changes (paste), a node added in the batch reads as blocked until the batch ends."""
        self.node(node_id)
        return self._infos.get(node_id) or NodeInfo(error="type not inferred yet", blocked=True)

    def output_type(self, node_id: str, port: str | None = None) -> ops.TensorType | None:
        """Inferred type on an output port (default: the first one), or None if unknown."""
        info = self.node_info(node_id)
        return info.type if port is None else info.outputs.get(port)

    def output_nodes(self) -> tuple[N.OutputNode, ...]:
        return tuple(n for n in self._nodes.values() if isinstance(n, N.OutputNode))

    def problems(self) -> list[tuple[str, str]]:
        """(node id, message) for every node with a static error (blocked nodes excluded)."""
        return [(nid, info.error) for nid, info in self._infos.items() if info.error and not info.blocked]

    def name_clashes(self, of: tuple[str, ...] = ("inputs", "outputs")) -> list[str]:
        """Messages for graph inputs or outputs (``of``) that share a name (their names must be
        unique in an exported model, in ``run --output`` files and ``--inputs`` archives)."""
        out = []
        for kind, what in ((N.INPUT, "inputs"), (N.OUTPUT, "outputs")):
            if what not in of:
                continue
            seen: dict[str, list[str]] = {}
            for node in self._nodes.values():
                if node.kind == kind:
                    seen.setdefault(node.name, []).append(node.id)
            out += [f"{len(ids)} {what} are called {name!r} ({', '.join(ids)})"
                    for name, ids in seen.items() if len(ids) > 1]
        return out

    def can_connect(self, src: str, src_port: str, dst: str, dst_port: str) -> str | None:
        """None when ``connect`` would accept the edge, otherwise the reason it would refuse."""
        return connection_refusal(self, src, src_port, dst, dst_port)

    def can_connect_new(self, node: N.Node, src: str, src_port: str, dst: str, dst_port: str) -> str | None:
        """Like ``can_connect`` for a wire with one end on ``node``, a node not in the graph
        yet (a block about to be added): None when, once ``node`` were added, ``connect``
        would accept the edge, otherwise the reason. Changes nothing."""
        if node.id in self._nodes:
            raise ValueError(f"a node with id {node.id!r} is already in the graph")
        return connection_refusal(_WithNode(self, node), src, src_port, dst, dst_port)

    def can_replace(self, src: str, src_port: str, dst: str, dst_port: str) -> str | None:
        """None when ``disconnect(dst, dst_port)`` (if that input is connected) followed by
        ``connect(src, src_port, dst, dst_port)`` would be accepted, otherwise the reason the
        connect would refuse. Changes nothing. For an input that is not connected it is
        ``can_connect``."""
        return replacement_refusal(self, src, src_port, dst, dst_port)

    def new_id(self, prefix: str) -> str:
        """An id not used in this graph: ``prefix`` + the smallest free number from 1."""
        prefix = "".join(c if c.isalnum() or c == "_" else "_" for c in prefix.lower()) or "node"
        for i in itertools.count(1):
            candidate = f"{prefix}{i}"
            if candidate not in self._nodes:
                return candidate
        raise AssertionError  # pragma: no cover

    # ------------------------------------------------------------------ changing: nodes
    def add_node(self, node: N.Node, *, index: int | None = None) -> str:
        """Insert ``node`` (its ``id`` must be unused; an empty id gets a fresh one). Emits
        ``NodeAdded``. Returns the id. A node object seen before (``restore_node``) keeps its
        revision, so cached results stay valid; any other gets a fresh revision. ``index`` puts
        it at that place in the node order (default: last)."""
        if not isinstance(node, N.Node) or type(node).kind not in N.NODE_KINDS:
            raise TypeError(f"not a node: {node!r}")
        if not node.id:
            node.id = self.new_id(node.id_prefix)
        if node.id in self._nodes:
            raise ValueError(f"a node with id {node.id!r} already exists")
        if isinstance(node, N.OperatorNode):
            ops.get_schema(node.op)  # raises for an unknown op
        if not node.name:
            node.name = node.id
        owner = self._issued.get(node.revision)
        if owner is None or owner() is not node:  # new here (or from another graph): a fresh revision
            node.revision = self._stamp(node)
        node.position = _finite_position(node.position)
        self._nodes[node.id] = node
        if index is not None and 0 <= index < len(self._nodes) - 1:
            items = list(self._nodes.items())
            items.insert(index, items.pop())
            self._nodes = dict(items)
        self._changed()
        self.events.emit(E.NodeAdded(node.id))
        self._reinfer({node.id})
        return node.id

    def add_operator(self, op: str, attributes: Mapping[str, Any] | None = None, *, name: str = "",
                     position: tuple[float, float] = (0.0, 0.0), node_id: str = "") -> str:
        """Add an operator node for ``op`` (an ``ops.OP_NAMES`` name). Returns its id."""
        node = N.OperatorNode(id=node_id, name=name, position=position, op=op)
        for key, value in (attributes or {}).items():
            node.attributes[key] = node.schema.coerce_attribute(key, value)
        return self.add_node(node)

    def add_literal(self, value: Any, *, dtype: str | None = None, name: str = "",
                    position: tuple[float, float] = (0.0, 0.0), node_id: str = "") -> str:
        """Add a literal tensor source holding ``value`` (as ``dtype`` if given)."""
        arr = np.asarray(value) if dtype is None else np.asarray(value, dtype=ops.dtype_of(dtype))
        return self.add_node(N.LiteralSource(id=node_id, name=name, position=position, value=N.frozen_array(arr)))

    def add_generator(self, generator: str, params: Mapping[str, Any] | None = None, *, name: str = "",
                      position: tuple[float, float] = (0.0, 0.0), node_id: str = "") -> str:
        """Add a generator source (see ``sources.GENERATORS`` for names and parameters)."""
        params = dict(params or {})
        generator_params(generator, params)  # SourceError on unknown names
        return self.add_node(N.GeneratorSource(id=node_id, name=name, position=position,
                                               generator=generator, params=params))

    def add_file_source(self, path: str, *, key: str | None = None, dtype: str | None = None, name: str = "",
                        position: tuple[float, float] = (0.0, 0.0), node_id: str = "") -> str:
        """Add a file source (``.npy``, ``.npz`` + key, ``.csv`` + dtype)."""
        return self.add_node(N.FileSource(id=node_id, name=name, position=position,
                                          path=str(path), key=key, dtype=dtype))

    def add_input(self, name: str, example: Any, *, position: tuple[float, float] = (0.0, 0.0),
                  node_id: str = "") -> str:
        """Add a graph input called ``name`` with an example value for running in the editor."""
        return self.add_node(N.InputSource(id=node_id, name=name, position=position, example=N.frozen_array(example)))

    def add_output(self, name: str, *, position: tuple[float, float] = (0.0, 0.0), node_id: str = "") -> str:
        """Add a graph output called ``name``."""
        return self.add_node(N.OutputNode(id=node_id, name=name, position=position))

    def add_loss(self, loss: LossKind | str = DEFAULT_LOSS, *, name: str = "",
                 position: tuple[float, float] = (0.0, 0.0), node_id: str = "") -> str:
        """Add a Loss node of kind ``loss`` (a :class:`LossKind` or its name). Returns its id."""
        kind = LossKind.parse(loss)
        return self.add_node(N.LossNode(id=node_id, name=name, position=position, loss=kind))

    def remove_node(self, node_id: str) -> RemovedNode:
        """Remove the node and its edges. Emits ``EdgeRemoved`` per edge, then ``NodeRemoved``.
        Returns what ``restore_node`` needs to put everything back."""
        node = self.node(node_id)
        edges = self.edges_of(node_id)
        all_edges = list(self._edges.values())
        edge_indices = tuple(all_edges.index(e) for e in edges)
        index = list(self._nodes).index(node_id)
        routes = tuple((e, self._routes[e]) for e in edges if e in self._routes)
        frames = tuple((f.id, f.nodes.index(node_id)) for f in self._frames.values() if node_id in f.nodes)
        for frame_id, _ in frames:
            self.set_frame(frame_id, nodes=tuple(n for n in self._frames[frame_id].nodes if n != node_id))
        for edge in edges:
            self._drop_edge(edge)
            self._changed()
            self.events.emit(E.EdgeRemoved(edge))
        del self._nodes[node_id]
        self._infos.pop(node_id, None)
        self._changed()
        self.events.emit(E.NodeRemoved(node_id, node))
        self._reinfer({e.dst for e in edges if e.dst != node_id})
        return RemovedNode(node, edges, index, edge_indices, self.folder, frames, routes)

    def restore_node(self, removed: RemovedNode) -> None:
        """Undo ``remove_node``: the same node object at its old place, then its edges at their
        old places (not re-checked against the type rules, since they held when removed), so the
        document is exactly as before. A file source's relative path is re-expressed for the
        graph's folder if that changed meanwhile (Save As), so it names the same file."""
        if removed.node.kind in N.PATH_KINDS and removed.node.path:
            removed.node.path = self.rebase_file_path(removed.node.path, removed.folder)
        self.add_node(removed.node, index=removed.index if removed.index >= 0 else None)
        for e, at in zip(removed.edges, removed.edge_indices or (None,) * len(removed.edges), strict=True):
            self.connect(e.src, e.src_port, e.dst, e.dst_port, force=True, index=at)
        for edge, points in removed.routes:
            self.set_route(edge, points)
        for frame_id, at in removed.frames:
            if frame_id in self._frames:
                members = list(self._frames[frame_id].nodes)
                members.insert(at, removed.node.id)
                self.set_frame(frame_id, nodes=tuple(members))

    def replace_node(self, node_id: str, node: N.Node) -> N.Node:
        """Put ``node`` (whose id must be ``node_id``) in the place of node ``node_id``: the same
        place in the node order, the same edges (``node`` must have the ports they use).
        Returns the node object it replaced; ``replace_node(node_id, old)`` undoes it exactly
        (a node object seen before keeps its revision, so cached results stay valid). Emits
        what ``remove_node`` then ``restore_node`` emit (``EdgeRemoved``..., ``NodeRemoved``,
        ``NodeAdded``, ``EdgeAdded``...). A training run uses it to turn a trained generator
        or file source into a literal."""
        old = self.node(node_id)
        if not isinstance(node, N.Node) or node.id != node_id:
            raise ValueError(f"the replacement of {old.label} must be a node with the id {node_id!r}")
        for edge in self.edges_of(node_id):
            port, have = ((edge.src_port, node.output_ports()) if edge.src == node_id
                          else (edge.dst_port, node.input_ports()))
            if port not in have:
                raise ValueError(f"the replacement of {old.label} has no port {port!r}, which the edge {edge} uses")
        with self.batch():
            removed = self.remove_node(node_id)
            self.restore_node(RemovedNode(node, removed.edges, removed.index, removed.edge_indices, removed.folder))
        return old

    # ------------------------------------------------------------------ changing: edges
    def connect(self, src: str, src_port: str, dst: str, dst_port: str, *, force: bool = False,
                index: int | None = None) -> N.Edge:
        """Wire ``src.src_port`` to ``dst.dst_port``. Raises :class:`ConnectionRefused` with the
        reason (see ``rules.py``); ``force=True`` skips the type rules (for undo, paste and
        loading) but never the structural ones. ``index``: place in the edge order (default
        last). Emits ``EdgeAdded``."""
        reason = (structural_refusal if force else connection_refusal)(self, src, src_port, dst, dst_port)
        if reason is not None:
            raise ConnectionRefused(reason)
        edge = N.Edge(src, src_port, dst, dst_port)
        self._edges[(dst, dst_port)] = edge
        self._out.setdefault(src, {})[edge] = None
        self._in.setdefault(dst, {})[edge] = None
        if index is not None and 0 <= index < len(self._edges) - 1:
            items = list(self._edges.items())
            items.insert(index, items.pop())
            self._edges = dict(items)
        self._changed()
        self.events.emit(E.EdgeAdded(edge))
        self._reinfer({dst})
        return edge

    def disconnect(self, dst: str, dst_port: str) -> N.Edge:
        """Remove the edge feeding ``dst.dst_port`` and return it (KeyError if none).
        Emits ``EdgeRemoved``."""
        edge = self._edges.get((dst, dst_port))
        if edge is None:
            raise KeyError(f"input {dst_port!r} of {dst!r} is not connected")
        self._drop_edge(edge)
        self._changed()
        self.events.emit(E.EdgeRemoved(edge))
        self._reinfer({dst})
        return edge

    # ------------------------------------------------------------------ changing: content
    def set_attribute(self, node_id: str, name: str, value: Any) -> Any:
        """Set (``value=None``: unset, back to the schema default) an attribute of an operator
        node and return the old explicit value (None if it was unset). An unknown attribute
        name or a value of the wrong kind raises ValueError; a value the graph's opset does not
        allow is accepted and shown as an error on the node. Emits ``AttributeChanged``."""
        node = self._operator(node_id)
        if value is not None:
            value = node.schema.coerce_attribute(name, value)
        elif name not in {a.name for a in node.schema.attributes}:
            raise ValueError(f"{node.op} has no attribute {name!r}")
        old = node.attributes.get(name)
        if old == value and type(old) is type(value):
            return old
        if value is None:
            node.attributes.pop(name, None)
        else:
            node.attributes[name] = value
        self._bump(node)
        self.events.emit(E.AttributeChanged(node_id, name, old, value))
        self._reinfer({node_id})
        return old

    def set_foreign_attribute(self, node_id: str, name: str, value: ForeignAttribute | None) -> ForeignAttribute | None:
        """Set (``value=None``: remove) an attribute of a foreign node; returns the old one (None
        if it had none), so ``set_foreign_attribute(id, name, old)`` undoes it. ValueError for a
        value that does not fit its kind. Emits ``AttributeChanged``; the node's types are
        inferred again (ONNX shape inference says whether the op accepts it)."""
        node = self.node(node_id)
        if not isinstance(node, N.ForeignNode):
            raise ValueError(f"{node.label} is a {node.kind} node, not a foreign ONNX op")
        if not isinstance(name, str) or not name:
            raise ValueError("an attribute name must be a non-empty string")
        if value is not None:
            value = check_attribute(value)
        old = node.attributes.get(name)
        if old is None and value is None or old is not None and value is not None and old.same(value):
            return old
        attributes = dict(node.attributes)
        if value is None:
            attributes.pop(name, None)
        else:
            attributes[name] = value
        node.attributes = attributes
        self._bump(node)
        self.events.emit(E.AttributeChanged(node_id, name, old, value))
        self._reinfer({node_id})
        return old

    def set_model_info(self, info: ModelInfo) -> ModelInfo:
        """Replace the ONNX model details (see :mod:`.model_info`); returns the old ones. Emits
        ``SettingChanged("model_info", old, new)``; foreign nodes are typed again (their
        domains' opsets may have changed) and recomputed."""
        if not isinstance(info, ModelInfo):
            raise ValueError(f"not a ModelInfo: {info!r}")
        old = self._model_info
        if old == info:
            return old
        self._model_info = info
        for node in self._nodes.values():
            if isinstance(node, N.ForeignNode):
                self._bump(node)
        self._changed()
        self.events.emit(E.SettingChanged("model_info", old, info))
        self._reinfer([n.id for n in self._nodes.values() if isinstance(n, N.ForeignNode)])
        return old

    def set_position(self, node_id: str, position: tuple[float, float]) -> tuple[float, float]:
        """Move a node on the canvas; returns the old position. Emits ``PositionChanged``."""
        node = self.node(node_id)
        old = node.position
        node.position = _finite_position(position)
        self._changed()
        self.events.emit(E.PositionChanged(node_id, old, node.position))
        return old

    def rename_node(self, node_id: str, name: str) -> str:
        """Change a node's display name (for inputs/outputs: the graph input/output name);
        returns the old name. Emits ``NodeRenamed``."""
        node = self.node(node_id)
        if not isinstance(name, str) or not name.strip():
            raise ValueError("a node name must be a non-empty string")
        old = node.name
        node.name = name
        self._changed()
        self.events.emit(E.NodeRenamed(node_id, old, name))
        self._reinfer({node_id})
        return old

    def set_source(self, node_id: str, **fields: Any) -> dict[str, Any]:
        """Change fields of a source node (literal: value; generator: generator, params;
        file: path, key, dtype; input: example). Returns the old values as a dict that
        ``set_source(node_id, **old)`` restores. Emits one ``SourceChanged`` per field."""
        node = self.node(node_id)
        allowed = N.SOURCE_FIELDS.get(node.kind)
        if allowed is None:
            raise ValueError(f"{node.label} is not a tensor source")
        unknown = set(fields) - set(allowed)
        if unknown:
            raise ValueError(f"a {node.kind} source has no field(s) {sorted(unknown)}; it has {list(allowed)}")
        new = dict(fields)
        if "value" in new:
            new["value"] = N.frozen_array(new["value"])
        if "example" in new:
            new["example"] = N.frozen_example(new["example"], new.get("onnx_type", getattr(node, "onnx_type", None)))
        if "shape" in new and new["shape"] is not None:
            try:
                new["shape"] = dims.parse_shape(new["shape"])
            except dims.ShapeTextError as exc:
                raise ValueError(f"shape of {node.label}: {exc}") from None
        if "params" in new:
            new["params"] = dict(new["params"] or {})
        if node.kind == N.GENERATOR:
            try:
                generator_params(new.get("generator", node.generator), new.get("params", node.params))
            except SourceError as exc:
                raise ValueError(str(exc)) from None
        old = {key: getattr(node, key) for key in new}
        for key, value in new.items():
            setattr(node, key, value)
        self._bump(node)
        for key in new:
            self.events.emit(E.SourceChanged(node_id, key, old[key], new[key]))
        self._reinfer({node_id})
        return old

    def set_source_value(self, node_id: str, value: Any) -> np.ndarray:
        """The tensor of a literal source or the example of a graph input; returns the old one."""
        node = self.node(node_id)
        field = {N.LITERAL: "value", N.INPUT: "example"}.get(node.kind)
        if field is None:
            raise ValueError(f"{node.label} is a {node.kind} node; only literal and input sources hold a value")
        return self.set_source(node_id, **{field: value})[field]

    def set_training(self, node_id: str, on: bool) -> bool:
        """Turn an operator's (or a foreign op's) training switch on or off (off: no gradient
        flows through the node to its inputs); returns the old value. Emits ``TrainingChanged``
        when it changes. The forward result is not affected."""
        return self._set_flag_field(self._switchable(node_id), "training", _flag(on, "training"),
                                    E.TrainingChanged)

    def set_loss_coefficient(self, node_id: str, coefficient: float) -> float:
        """Set the number an operator (or a foreign op) multiplies the gradient it sends to its
        inputs by (any finite number; 1 leaves it as it is); returns the old one. Emits
        ``LossCoefficientChanged`` when it changes. The forward result is not affected."""
        node = self._switchable(node_id)
        if isinstance(coefficient, bool) or not isinstance(coefficient, (int, float, np.integer, np.floating)) \
                or not np.isfinite(coefficient):
            raise ValueError(f"the loss coefficient of {node.label} must be a finite number, got {coefficient!r}")
        return self._set_flag_field(node, "loss_coefficient", float(coefficient), E.LossCoefficientChanged)

    def set_trainable(self, node_id: str, on: bool) -> bool:
        """Mark a literal, generator, file or model tensor source trainable (or not); returns the old flag.
        Emits ``TrainableChanged`` when it changes. The forward result is not affected."""
        node = self.node(node_id)
        if not isinstance(node, N.TrainableSource):
            why = ("its value comes from outside the model" if isinstance(node, N.InputSource)
                   else "it is not a tensor source")
            raise ValueError(f"{node.label} is a {node.kind} node and cannot be trainable ({why}); "
                             "literal, generator, file and model tensor sources can")
        on = _flag(on, "trainable")
        old = self._set_flag_field(node, "trainable", on, E.TrainableChanged)
        if old != on:
            self._reinfer({node_id})   # a trainable integer source gets a warning
        return old

    def set_overridable(self, node_id: str, on: bool) -> bool:
        """Make a literal, generator, file or model tensor source overridable (or not): an
        export then lists it as a graph input with its value as the default. Returns the old
        flag; emits ``OverridableChanged`` when it changes. No value changes."""
        node = self.node(node_id)
        if node.kind not in N.WEIGHT_KINDS:
            why = "it is a graph input already" if node.kind == N.INPUT else "it is not a tensor source"
            raise ValueError(f"{node.label} is a {node.kind} node and cannot be overridable ({why})")
        return self._set_flag_field(node, "overridable", _flag(on, "overridable"), E.OverridableChanged)

    def _set_flag_field(self, node: N.Node, field: str, value: Any, event: type) -> Any:
        """Set ``node.<field>``, a field that changes no computed value (so no revision), to
        ``value``; when it changes, mark the document changed and emit ``event(id, old, new)``.
        Returns the old value."""
        old = getattr(node, field)
        if old != value:
            setattr(node, field, value)
            self._changed()
            self.events.emit(event(node.id, old, value))
        return old

    def set_loss_kind(self, node_id: str, loss: LossKind | str) -> LossKind:
        """Change what a Loss node computes (a :class:`LossKind` or its name); returns the old
        kind. Emits ``LossKindChanged``; the loss value changes, so the node's revision does."""
        node = self.node(node_id)
        if not isinstance(node, N.LossNode):
            raise ValueError(f"{node.label} is a {node.kind} node, not a loss")
        try:
            kind = LossKind.parse(loss)
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        old = node.loss
        if old != kind:
            node.loss = kind
            self._bump(node)
            self.events.emit(E.LossKindChanged(node_id, old, kind))
            self._reinfer({node_id})
        return old

    def set_setting(self, name: str, value: Any) -> Any:
        """Change a document setting (``name``, ``description``, ``opset``); returns the old
        value. Emits ``SettingChanged``; an opset change re-checks every operator."""
        if name not in SETTINGS_DEFAULTS:
            raise ValueError(f"unknown setting {name!r}; settings are {', '.join(SETTINGS_DEFAULTS)}")
        value = check_opset(value) if name == "opset" else str(value)
        old = self._settings[name]
        self._settings[name] = value
        self._changed()
        self.events.emit(E.SettingChanged(name, old, value))
        self._reinfer()
        return old

    # ------------------------------------------------------------------ reading: training
    def loss_nodes(self) -> tuple[N.LossNode, ...]:
        """The Loss nodes, in node order."""
        return tuple(n for n in self._nodes.values() if isinstance(n, N.LossNode))

    def trainable_sources(self) -> tuple[N.TrainableSource, ...]:
        """The sources marked trainable, in node order."""
        return tuple(n for n in self._nodes.values() if isinstance(n, N.TrainableSource) and n.trainable)

    def set_bypassed(self, node_id: str, bypassed: bool) -> bool:
        """Switch an operator off (it passes its data input through unchanged) or on again;
        returns the old flag. ValueError, with the reason, for an op that cannot be bypassed
        (``nodes.bypass_refusal``). Emits ``BypassChanged``; types downstream are re-inferred."""
        node = self._operator(node_id)
        bypassed = bool(bypassed)
        if bypassed:
            reason = N.bypass_refusal(node.op)
            if reason is not None:
                raise ValueError(f"{node.label} cannot be bypassed: {reason}")
        old = node.bypassed
        if old == bypassed:
            return old
        node.bypassed = bypassed
        self._bump(node)
        self.events.emit(E.BypassChanged(node_id, old, bypassed))
        self._reinfer({node_id})
        return old

    def set_collapsed(self, node_id: str, collapsed: bool) -> bool:
        """Draw a node as its title only (or in full again); returns the old flag. Emits
        ``CollapsedChanged``. No value depends on it."""
        node = self.node(node_id)
        old, node.collapsed = node.collapsed, bool(collapsed)
        if old != node.collapsed:
            self._changed()
            self.events.emit(E.CollapsedChanged(node_id, old, node.collapsed))
        return old

    # ------------------------------------------------------------------ changing: frames and routes
    def new_frame_id(self) -> str:
        """A frame id not used in this graph: ``frame`` + the smallest free number from 1."""
        for i in itertools.count(self._frame_hint):
            if f"frame{i}" not in self._frames:
                self._frame_hint = i
                return f"frame{i}"
        raise AssertionError  # pragma: no cover

    def add_frame(self, frame: N.Frame, *, index: int | None = None) -> str:
        """Insert ``frame`` (an empty id gets a fresh one; its colour must be ``#rrggbb``; its
        member ids must be nodes of this graph; when ``collapsed``, none of them may be in
        another collapsed frame). ``index``: its place in the drawing order (default: last, on
        top). Emits ``FrameAdded``; returns the id."""
        if not isinstance(frame, N.Frame):
            raise TypeError(f"not a frame: {frame!r}")
        if not frame.id:
            frame.id = self.new_frame_id()
        if frame.id in self._frames:
            raise ValueError(f"a frame with id {frame.id!r} already exists")
        frame.colour = N.check_colour(frame.colour)
        frame.title = str(frame.title)
        frame.nodes = self._members(frame.nodes)
        frame.collapsed = bool(frame.collapsed)
        self._check_collapsed(frame.id, frame.nodes, frame.collapsed)
        self._frames[frame.id] = frame
        self._index_group(frame.id)
        if index is not None and 0 <= index < len(self._frames) - 1:
            items = list(self._frames.items())
            items.insert(index, items.pop())
            self._frames = dict(items)
        self._changed()
        self.events.emit(E.FrameAdded(frame.id))
        return frame.id

    def remove_frame(self, frame_id: str) -> RemovedFrame:
        """Remove a frame (its nodes stay). Emits ``FrameRemoved``; returns what ``add_frame``
        needs to put it back in its place."""
        frame = self.frame(frame_id)
        index = list(self._frames).index(frame_id)
        del self._frames[frame_id]
        self._index_group(frame_id, frame.nodes)
        self._frame_hint = 1
        self._changed()
        self.events.emit(E.FrameRemoved(frame_id, frame))
        return RemovedFrame(frame, index)

    def set_frame(self, frame_id: str, **fields: Any) -> dict[str, Any]:
        """Change a frame's ``title``, ``colour``, member ``nodes`` and/or ``collapsed`` flag;
        returns the old values (``set_frame(frame_id, **old)`` restores them). Emits one
        ``FrameChanged`` per field that changed. ValueError when a collapsed frame would share
        a node with another collapsed one."""
        frame = self.frame(frame_id)
        unknown = set(fields) - set(N.FRAME_FIELDS)
        if unknown:
            raise ValueError(f"a frame has no field(s) {sorted(unknown)}; it has {list(N.FRAME_FIELDS)}")
        new = dict(fields)
        if "colour" in new:
            new["colour"] = N.check_colour(new["colour"])
        if "title" in new:
            new["title"] = str(new["title"])
        if "nodes" in new:
            new["nodes"] = self._members(new["nodes"])
        if "collapsed" in new:
            new["collapsed"] = bool(new["collapsed"])
        self._check_collapsed(frame_id, new.get("nodes", frame.nodes), new.get("collapsed", frame.collapsed))
        old = {key: getattr(frame, key) for key in new}
        for key, value in new.items():
            setattr(frame, key, value)
        if "nodes" in new or "collapsed" in new:
            self._index_group(frame_id, old.get("nodes", frame.nodes))
        self._changed()
        for key in new:
            if old[key] != new[key]:
                self.events.emit(E.FrameChanged(frame_id, key, old[key], new[key]))
        return old

    def collapsed_frame_of(self, node_id: str) -> str | None:
        """The collapsed frame (group) ``node_id`` belongs to, if any (there is at most one)."""
        return self._grouped.get(node_id)

    def _check_collapsed(self, frame_id: str, members: tuple[str, ...], collapsed: bool) -> None:
        """ValueError when a collapsed frame would share a node with another collapsed frame."""
        if not collapsed:
            return
        for node_id in members:
            other = self._grouped.get(node_id)
            if other is not None and other != frame_id:
                raise ValueError(f"node {node_id!r} is already in the collapsed group "
                                 f"{self._frames[other].title!r} [{other}]; a node can be in one collapsed group only")

    def _index_group(self, frame_id: str, old_members: Iterable[str] = ()) -> None:
        """Keep ``_grouped`` in step with frame ``frame_id`` (its members were ``old_members``)."""
        for node_id in old_members:
            if self._grouped.get(node_id) == frame_id:
                del self._grouped[node_id]
        frame = self._frames.get(frame_id)
        if frame is not None and frame.collapsed:
            for node_id in frame.nodes:
                self._grouped[node_id] = frame_id

    def _members(self, node_ids: Iterable[str]) -> tuple[str, ...]:
        members = tuple(dict.fromkeys(node_ids))
        missing = [n for n in members if n not in self._nodes]
        if missing:
            raise ValueError(f"a frame can only hold nodes of the graph; there is no node {missing[0]!r}")
        return members

    def set_route(self, edge: N.Edge, points: Iterable[tuple[float, float]]) -> tuple[N.Point, ...]:
        """The reroute points ``edge`` is drawn through (empty: none); returns the old ones.
        KeyError when the edge is not in the graph. Emits ``RouteChanged``."""
        if self._edges.get((edge.dst, edge.dst_port)) != edge:
            raise KeyError(f"no edge {edge}")
        new = tuple((float(x), float(y)) for x, y in points)
        old = self._routes.get(edge, ())
        if new:
            self._routes[edge] = new
        else:
            self._routes.pop(edge, None)
        if new != old:
            self._changed()
            self.events.emit(E.RouteChanged(edge, old, new))
        return old

    # ------------------------------------------------------------------ internals
    def _switchable(self, node_id: str) -> N.Node:
        node = self.node(node_id)
        if isinstance(node, N.ForeignNode) and not N.has_training_switch(node):
            raise ValueError(f"{node.label}: no gradient goes through ONNX op {node.title}, so it has no training "
                             "switch or loss coefficient")
        if not N.has_training_switch(node):
            raise ValueError(f"{node.label} is a {node.kind} node, not an operator")
        return node

    def _operator(self, node_id: str) -> N.OperatorNode:
        node = self.node(node_id)
        if not isinstance(node, N.OperatorNode):
            raise ValueError(f"{node.label} is a {node.kind} node, not an operator")
        return node

    def _drop_edge(self, edge: N.Edge) -> None:
        self._routes.pop(edge, None)   # the points go with the wire (RemovedNode keeps them)
        del self._edges[(edge.dst, edge.dst_port)]
        self._out[edge.src].pop(edge, None)
        self._in[edge.dst].pop(edge, None)

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Context manager: a series of changes whose type inference runs once, at the end
        (events are still emitted per change; ``TypesChanged`` comes once when the outermost
        batch closes). Loading, pasting and undoing the deletion of many nodes use it."""
        self._deferred += 1
        try:
            yield
        finally:
            self._deferred -= 1
            if not self._deferred:
                self._reinfer()

    def _stamp(self, node: N.Node) -> int:
        stamp = next(self._stamps)
        self._issued[stamp] = weakref.ref(node, lambda _ref, s=stamp: self._issued.pop(s, None))
        return stamp

    def _bump(self, node: N.Node) -> None:
        self._issued.pop(node.revision, None)
        node.revision = self._stamp(node)
        self._changed()

    def _changed(self) -> None:
        self.generation += 1

    def _reinfer(self, dirty: Iterable[str] | None = None) -> None:
        """Re-infer ``dirty`` nodes and everything downstream of them (all nodes for None)."""
        if self._deferred:
            self._pending_all = True
            return
        self._bind_symbols()
        if dirty is not None and not getattr(self, "_pending_all", False):
            dirty = {n for n in dirty if n in self._nodes}
            if any(self._nodes[n].kind == N.INPUT for n in dirty):
                dirty |= {n.id for n in self._nodes.values() if n.kind == N.INPUT}  # symbols bind across inputs
            affected = dirty | set().union(*(self.downstream(n) for n in dirty)) if dirty else set()
            order = self.topological_order(affected)
        else:
            order = self.topological_order()
        self._pending_all = False
        new = dict(self._infos)
        for node_id in list(new):
            if node_id not in self._nodes:
                del new[node_id]
        changed = set()
        for node_id in order:
            info = infer_node(self, self._nodes[node_id], new)
            if new.get(node_id) != info:
                changed.add(node_id)
            new[node_id] = info
        self._infos = new
        if changed:
            self.events.emit(E.TypesChanged(frozenset(changed)))


    def _bind_symbols(self) -> None:
        """Bind named dimensions over the graph inputs (:func:`dims.bind_inputs`), in node order."""
        inputs = [(n.id, f"input {n.name!r}", n.shape, n.example.shape)
                  for n in self._nodes.values() if isinstance(n, N.InputSource) and n.onnx_type is None]
        self._symbols, self._conflicts = dims.bind_inputs(inputs)


def _flag(value: Any, what: str) -> bool:
    """``value`` as a bool; ValueError for anything but a bool (or numpy bool)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{what} must be true or false, got {value!r}")
    return bool(value)


def _finite_position(position) -> tuple[float, float]:
    """``position`` as two floats; ValueError when either is not finite (no canvas place, and
    no graph file could hold it)."""
    x, y = float(position[0]), float(position[1])
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ValueError(f"a node's position must be two finite numbers, not ({x}, {y})")
    return x, y
