"""Op schemas as data: versions, ports, attributes and type constraints per version.

The editor (property panel), the exporter (opset rules) and the validator (type inference)
all read these objects, so there is one description of each op in the product.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .errors import OpError


@dataclass(frozen=True)
class PortSpec:
    """An input or output of an op: its name, the type parameter that constrains it, and
    whether it may be omitted."""

    name: str
    type_param: str
    optional: bool = False
    doc: str = ""


@dataclass(frozen=True)
class AttrSpec:
    """An attribute: ``kind`` is ``"int"`` or ``"string"``; it exists from opset ``since``.

    ``allowed`` maps a since-version to the values allowed from that version on (None: any
    value of the kind; the op's own checks bound integers such as ``axis``).
    """

    name: str
    kind: str
    default: Any
    doc: str = ""
    since: int = 1
    allowed: Mapping[int, tuple] | None = None

    def allowed_at(self, opset: int) -> tuple | None:
        """The values allowed at ``opset``, or None when any value of the kind is allowed."""
        if self.allowed is None:
            return None
        best = None
        for since, values in self.allowed.items():
            if since <= opset and (best is None or since > best[0]):
                best = (since, values)
        return best[1] if best else ()


@dataclass(frozen=True)
class OpSchema:
    """One op, all its versions.

    ``types`` maps a type parameter (``"T"``, ``"Tind"``) to ``{since_version: dtype names}``;
    the entry with the largest since-version not above an opset is the one in force there.
    ``replaced_by`` names the op that replaces a deprecated one from ``deprecated_since`` on
    (Scatter: ScatterElements).
    """

    name: str
    versions: tuple[int, ...]
    inputs: tuple[PortSpec, ...]
    outputs: tuple[PortSpec, ...]
    attributes: tuple[AttrSpec, ...]
    types: Mapping[str, Mapping[int, tuple[str, ...]]]
    doc: str = ""
    deprecated_since: int | None = None
    kind: str = field(default="gather")  # "gather" or "scatter": what its index map describes
    replaced_by: str | None = None

    def version_for(self, opset: int) -> int | None:
        """The since-version in force at ``opset``, or None when the op does not exist there."""
        if self.deprecated_since is not None and opset >= self.deprecated_since:
            return None
        candidates = [v for v in self.versions if v <= opset]
        return max(candidates) if candidates else None

    def require_version(self, opset: int) -> int:
        """Like :meth:`version_for` but raises OpError naming the opsets where the op exists."""
        version = self.version_for(opset)
        if version is None:
            if self.deprecated_since is not None and opset >= self.deprecated_since:
                where = (f"opsets {self.versions[0]} to {self.deprecated_since - 1} "
                         f"(deprecated from {self.deprecated_since})")
            else:
                where = f"opset {self.versions[0]} and later"
            raise OpError(f"{self.name} does not exist at opset {opset}; it exists in {where}")
        return version

    def attribute(self, name: str) -> AttrSpec:
        """The attribute spec called ``name``; OpError if the op has none."""
        for spec in self.attributes:
            if spec.name == name:
                return spec
        known = ", ".join(a.name for a in self.attributes) or "none"
        raise OpError(f"{self.name} has no attribute {name!r}; it has {known}")

    def attributes_at(self, opset: int) -> tuple[AttrSpec, ...]:
        """The attributes that exist at ``opset``."""
        return tuple(a for a in self.attributes if a.since <= opset)

    def allowed_values(self, attr_name: str, opset: int) -> tuple | None:
        """Values ``attr_name`` may take at ``opset`` (None: any value of its kind)."""
        return self.attribute(attr_name).allowed_at(opset)

    def allowed_dtypes(self, type_param: str, opset: int) -> tuple[str, ...]:
        """The dtype names ``type_param`` allows at ``opset`` (empty if the op does not exist)."""
        version = self.version_for(opset)
        if version is None:
            return ()
        table = self.types[type_param]
        since = max(v for v in table if v <= version)
        return table[since]

    def coerce_attribute(self, name: str, value: Any) -> Any:
        """``value`` as the plain ``int`` or ``str`` attribute ``name`` holds, the rule the
        document applies to every attribute it stores (opset rules are left to
        :meth:`check_attributes`). Stricter than :meth:`check_attributes`: an int attribute
        takes a Python or numpy integer (not a bool), a string attribute a ``str`` (not bytes).

        OpError for an attribute the op never has (``Gather has no attribute 'mode'; it has
        axis``) or a value of the wrong kind (``Gather attribute 'axis' must be an integer, got
        '1'``).
        """
        spec = self.attribute(name)
        if spec.kind == "int":
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise OpError(f"{self.name} attribute {name!r} must be an integer, got {value!r}")
            return int(value)
        if spec.kind == "string":
            if not isinstance(value, str):
                raise OpError(f"{self.name} attribute {name!r} must be a string, got {value!r}")
            return value
        raise AssertionError(spec.kind)

    def defaults(self) -> dict[str, Any]:
        """Attribute name -> default value, for every attribute of the latest version."""
        return {a.name: a.default for a in self.attributes}

    def check_attributes(self, attrs: Mapping[str, Any] | None, opset: int | None = None) -> dict[str, Any]:
        """``attrs`` completed with defaults and checked. With an ``opset``, the result holds only
        the attributes that exist at that opset (what an exporter may write there).

        Raises OpError for an unknown attribute, a value of the wrong kind, and (when ``opset`` is
        given) an attribute the opset lacks set to a non-default value, or a value the opset does
        not allow.

        Every operator call passes through here, so an accepted set of attributes (keyed by the
        schema, the opset and each name, value and value type) is remembered and the next call
        with the same ones gets a copy of the same answer without re-checking; refusals are
        not remembered (they raise again, with the same message).
        """
        try:
            key = (id(self), opset, tuple(attrs.items()), tuple(map(type, attrs.values()))) if attrs \
                else (id(self), opset)
            known = _CHECKED.get(key)
        except TypeError:  # an unhashable value: check it the long way (it is refused or coerced)
            key, known = None, None
        if known is not None and known[0] is self:
            return dict(known[1])
        out = self._check_attributes(attrs, opset)
        if key is not None:
            if len(_CHECKED) >= _CHECKED_MAX:
                _CHECKED.clear()
            _CHECKED[key] = (self, dict(out))
        return out

    def _check_attributes(self, attrs: Mapping[str, Any] | None, opset: int | None) -> dict[str, Any]:
        attrs = dict(attrs or {})
        out = self.defaults() if opset is None else {a.name: a.default for a in self.attributes_at(opset)}
        for name, value in attrs.items():
            spec = self.attribute(name)
            value = _coerce(self.name, spec, value)
            if opset is not None:
                if spec.since > opset and value != spec.default:
                    needs = [v for v, vals in (spec.allowed or {}).items() if value in vals]
                    first = max(spec.since, min(needs)) if needs else spec.since
                    raise OpError(
                        f"{self.name}: attribute {name}={value!r} needs opset {first} or later (this is opset {opset})"
                    )
                allowed = spec.allowed_at(opset)
                if allowed is not None and value not in allowed:
                    needs = [s for s, vals in (spec.allowed or {}).items() if value in vals]
                    hint = f"; {value!r} needs opset {min(needs)}" if needs else ""
                    raise OpError(
                        f"{self.name}: {name}={value!r} is not allowed at opset {opset} "
                        f"(allowed: {', '.join(map(repr, allowed))}){hint}"
                    )
            else:
                everything = set().union(*(spec.allowed or {}).values()) if spec.allowed else None
                if everything is not None and value not in everything:
                    raise OpError(
                        f"{self.name}: {name}={value!r} is not one of {', '.join(map(repr, sorted(everything)))}"
                    )
            if opset is None or spec.since <= opset:
                out[name] = value
        return out


#: :meth:`OpSchema.check_attributes`' accepted answers: ``(id(schema), opset, attributes)`` ->
#: ``(schema, result)`` (the schema is kept so an id reused after a schema is freed never matches).
_CHECKED: dict[tuple, tuple[OpSchema, dict[str, Any]]] = {}
_CHECKED_MAX = 4096


def _coerce(op: str, spec: AttrSpec, value: Any) -> Any:
    if spec.kind == "int":
        if isinstance(value, bool) or not isinstance(value, (int,)) and not hasattr(value, "__index__"):
            raise OpError(f"{op}: attribute {spec.name} must be an integer, got {value!r}")
        return int(value)
    if spec.kind == "string":
        if isinstance(value, bytes):
            value = value.decode("utf-8")
        if not isinstance(value, str):
            raise OpError(f"{op}: attribute {spec.name} must be a string, got {value!r}")
        return value
    raise AssertionError(spec.kind)
