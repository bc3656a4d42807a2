"""What an ONNX model holds besides its nodes, kept so an imported model exports unchanged.

A graph imported from a model remembers, in one :class:`ModelInfo`, the opset of every
domain other than the default one (whose opset is the graph's ``opset`` setting), the
model's metadata (``metadata_props``), its local functions, the types its graph outputs
declare (and its inputs that have a default value in an initializer), and the model-level
fields (IR version, producer, domain, model version, doc string). The graph holds it as a
document value (``Graph.model_info``, changed with ``Graph.set_model_info``); a graph made
in the editor has the empty one. Plain data only: functions stay serialized bytes.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from .foreign import Opaque

DEFAULT_DOMAINS = ("", "ai.onnx")


@dataclass(frozen=True)
class ModelInfo:
    """See the module docstring. ``opsets`` lists ``(domain, version)`` for the domains other
    than the default one, in the model's order; ``metadata`` is ``(key, value)`` pairs in the
    model's order (IndexFlow's own keys are not kept here); ``functions`` the model-local
    functions (``FunctionProto`` bytes); ``outputs`` the type each graph output declared, by
    name, as serialized ``TypeProto`` bytes (an export writes it where the output's inferred
    type fits it, and for outputs that are not tensors); ``inputs`` likewise the type each
    graph input with a default (an initializer of the same name, an ``overridable`` source)
    declared, so its named dimensions survive; ``ir_version`` 0 means: chosen at export."""

    opsets: tuple[tuple[str, int], ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()
    functions: tuple[Opaque, ...] = ()
    outputs: tuple[tuple[str, Opaque], ...] = ()
    inputs: tuple[tuple[str, Opaque], ...] = ()
    ir_version: int = 0
    producer_name: str = ""
    producer_version: str = ""
    domain: str = ""
    model_version: int = 0
    doc_string: str = ""

    def __post_init__(self) -> None:
        for domain, version in self.opsets:
            if not isinstance(domain, str) or domain in DEFAULT_DOMAINS:
                raise ValueError(f"the opsets of ModelInfo name other domains than the default one, got {domain!r}")
            if isinstance(version, bool) or not isinstance(version, int) or version < 1:
                raise ValueError(f"the opset of domain {domain!r} must be a positive integer, got {version!r}")
        if len({d for d, _ in self.opsets}) != len(self.opsets):
            raise ValueError("a domain is listed twice in the opsets")
        for pair in self.metadata:
            if len(pair) != 2 or not all(isinstance(x, str) for x in pair):
                raise ValueError(f"metadata entries are (key, value) text pairs, got {pair!r}")
        if any(not isinstance(f, Opaque) for f in self.functions):
            raise ValueError("functions are kept as Opaque bytes")
        for kind in ("outputs", "inputs"):
            if any(len(o) != 2 or not isinstance(o[0], str) or not isinstance(o[1], Opaque)
                   for o in getattr(self, kind)):
                raise ValueError(f"{kind} are (name, Opaque TypeProto bytes) pairs")

    def opset_map(self, default_opset: int) -> dict[str, int]:
        """domain -> version, with the default domain as ``""``."""
        return {"": int(default_opset), **dict(self.opsets)}

    def output_type(self, name: str) -> Opaque | None:
        """The type the model declared for graph output ``name`` (None: none kept)."""
        return next((t for n, t in self.outputs if n == name), None)

    def input_type(self, name: str) -> Opaque | None:
        """The type the model declared for graph input ``name`` with a default (None: none kept)."""
        return next((t for n, t in self.inputs if n == name), None)

    def with_opsets(self, opsets: Mapping[str, int]) -> ModelInfo:
        """A copy whose non-default domains are ``opsets`` (the default domain is ignored)."""
        return replace(self, opsets=tuple((d, int(v)) for d, v in opsets.items() if d not in DEFAULT_DOMAINS))


EMPTY = ModelInfo()
