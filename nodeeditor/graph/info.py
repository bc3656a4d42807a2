"""What is known about a node before running it (:class:`NodeInfo`), the result of static
type inference (:mod:`nodeeditor.graph.inference`) that the document keeps per node."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ops import TensorType

from .status import NodeStatus


@dataclass(frozen=True)
class NodeInfo:
    """What is known about a node before running it.

    ``outputs`` maps output port -> TensorType (empty when unknown); ``error`` is a message
    when the node itself is wrong (it does not name the node: whoever shows it away from the
    node adds its label); ``error_port`` is the input port whose shape, dtype or values the
    error is about (``ops.OpError.port``), None when it is about no one input; ``blocked``
    is True when an input has no type because of a problem upstream (``error`` then says
    which input); ``warnings`` are static remarks.
    """

    outputs: Mapping[str, TensorType] = field(default_factory=dict)
    error: str | None = None
    blocked: bool = False
    warnings: tuple[str, ...] = ()
    #: a required input is not connected yet (``error`` names them): the node is unfinished
    #: work rather than a mistake, and the editor shows it so
    incomplete: bool = False
    error_port: str | None = None
    #: some output type is known only after a run (a foreign op whose output shape ONNX shape
    #: inference cannot tell, or a node that waits for one): nothing is wrong, the engine runs it
    deferred: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and not self.blocked

    @property
    def type(self) -> TensorType | None:
        """The type of the first output port, if known."""
        return next(iter(self.outputs.values()), None)

    @property
    def status(self) -> NodeStatus:
        """The static status: ``INCOMPLETE``, ``BLOCKED``, ``ERROR``, ``WARNING`` (no problem
        but ``warnings``) or ``OK``, in that order of precedence."""
        if self.incomplete:
            return NodeStatus.INCOMPLETE
        if self.blocked:
            return NodeStatus.BLOCKED
        if self.error:
            return NodeStatus.ERROR
        if self.warnings:
            return NodeStatus.WARNING
        return NodeStatus.OK
