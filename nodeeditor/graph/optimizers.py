"""Optimizers for a training run: SGD with momentum, and Adam (plain numpy).

An :class:`Optimizer` is made from :class:`OptimizerSettings` and keeps its own state per
parameter (by key: the trainable source's node id). ``step(params, grads)`` returns the new
parameters and never modifies its arguments. The arithmetic is float64 whatever the
sources' dtype (the training run keeps float64 values between steps and rounds to each
source's dtype only to evaluate the graph).

* SGD with momentum ``mu`` (PyTorch's convention, no dampening):
  ``v = mu * v + g`` (``v`` starts at 0, so the first ``v`` is ``g``); ``p = p - lr * v``.
* Adam (Kingma & Ba, with bias correction), at step ``t`` = 1, 2, ...:
  ``m = b1 * m + (1 - b1) * g``; ``v = b2 * v + (1 - b2) * g * g``;
  ``p = p - lr * (m / (1 - b1 ** t)) / (sqrt(v / (1 - b2 ** t)) + eps)``.
"""
from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np


class OptimizerKind(enum.Enum):
    """Which update rule; the value is the name on the command line."""

    SGD = "sgd"
    ADAM = "adam"

    @classmethod
    def parse(cls, value: OptimizerKind | str) -> OptimizerKind:
        if isinstance(value, OptimizerKind):
            return value
        try:
            return cls(str(value).lower())
        except ValueError:
            raise ValueError(f"unknown optimizer {value!r}; choose {' or '.join(k.value for k in cls)}") from None


#: The learning rate each optimizer uses when none is given.
DEFAULT_LEARNING_RATES = {OptimizerKind.SGD: 0.1, OptimizerKind.ADAM: 0.05}


@dataclass(frozen=True)
class OptimizerSettings:
    """How a training run updates its sources. ``learning_rate`` None means the kind's
    default (:data:`DEFAULT_LEARNING_RATES`). ValueError for values outside their range."""

    kind: OptimizerKind = OptimizerKind.SGD
    learning_rate: float | None = None
    momentum: float = 0.9          #: SGD
    beta1: float = 0.9             #: Adam
    beta2: float = 0.999           #: Adam
    epsilon: float = 1e-8          #: Adam

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", OptimizerKind.parse(self.kind))
        if self.learning_rate is not None and not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            raise ValueError(f"the learning rate must be a positive finite number, got {self.learning_rate!r}")
        if not 0.0 <= self.momentum < 1.0:
            raise ValueError(f"momentum must be in [0, 1), got {self.momentum!r}")
        for name in ("beta1", "beta2"):
            if not 0.0 <= getattr(self, name) < 1.0:
                raise ValueError(f"{name} must be in [0, 1), got {getattr(self, name)!r}")
        if not self.epsilon > 0:
            raise ValueError(f"epsilon must be positive, got {self.epsilon!r}")

    @property
    def lr(self) -> float:
        """The learning rate in effect."""
        return DEFAULT_LEARNING_RATES[self.kind] if self.learning_rate is None else float(self.learning_rate)


class Optimizer:
    """Applies one update rule step by step (see the module docstring)."""

    def __init__(self, settings: OptimizerSettings) -> None:
        self.settings = settings
        self.steps = 0
        self._first: dict[str, np.ndarray] = {}    # SGD velocity / Adam first moment
        self._second: dict[str, np.ndarray] = {}   # Adam second moment

    def step(self, params: Mapping[str, np.ndarray], grads: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The parameters after one update (float64 arrays); a parameter without a gradient in
        ``grads`` is returned unchanged."""
        s = self.settings
        self.steps += 1
        out: dict[str, np.ndarray] = {}
        for key, value in params.items():
            p = np.asarray(value, dtype=np.float64)
            if key not in grads:
                out[key] = p.copy()
                continue
            g = np.asarray(grads[key], dtype=np.float64)
            if s.kind is OptimizerKind.SGD:
                v = s.momentum * self._first.get(key, 0.0) + g
                self._first[key] = v
                out[key] = p - s.lr * v
            else:
                m = s.beta1 * self._first.get(key, 0.0) + (1.0 - s.beta1) * g
                v = s.beta2 * self._second.get(key, 0.0) + (1.0 - s.beta2) * g * g
                self._first[key], self._second[key] = m, v
                m_hat = m / (1.0 - s.beta1 ** self.steps)
                v_hat = v / (1.0 - s.beta2 ** self.steps)
                out[key] = p - s.lr * m_hat / (np.sqrt(v_hat) + s.epsilon)
        return out
