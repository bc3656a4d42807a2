"""What ONNX says about an op: its ports and attributes, for foreign nodes.

- :func:`ports_for` names a foreign node's ports from the op's ONNX schema (``X``, ``Y``;
  a variadic input repeated as ``inputs[0]``, ``inputs[1]``...), from a model-local
  function's own input and output names, or ``input0``/``output0`` for an op ONNX has no
  schema for (a runtime's own domain such as ``com.microsoft``).
- :func:`new_foreign_node` makes a fresh foreign node of any ONNX op (the editor's "any op"
  palette): every non-variadic formal input and output as a port, a variadic one at its
  minimum count, the schema's optional inputs optional, no attributes (the schema defaults
  apply).
- :func:`op_catalog` lists every op ONNX defines at an opset (default and other domains),
  with its domain, version and first doc line, for a search box.
- :func:`attribute_specs` lists an op's attributes with their kinds, whether required,
  default and doc, for typed fields.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import onnx

from nodeeditor.graph import nodes as N
from nodeeditor.graph.foreign import AttrKind, ForeignAttribute

from .attributes import from_onnx

_OPTIONAL = onnx.defs.OpSchema.FormalParameterOption.Optional
_VARIADIC = onnx.defs.OpSchema.FormalParameterOption.Variadic


def schema(op_type: str, domain: str, opset: int) -> onnx.defs.OpSchema | None:
    """The ONNX schema of ``op_type`` in ``domain`` at ``opset`` (None when ONNX has none)."""
    domain = "" if domain == "ai.onnx" else domain
    try:
        return onnx.defs.get_schema(op_type, max(int(opset), 1), domain)
    except onnx.defs.SchemaError:
        return None


@dataclass(frozen=True)
class Ports:
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    optional: frozenset[str]


def _expand(params, count: int) -> tuple[list[str], set[str]]:
    """Port names for ``count`` positions of formal parameters ``params``, and which are optional."""
    names: list[str] = []
    optional: set[str] = set()
    for i, p in enumerate(params):
        if p.option == _VARIADIC:
            n = max(count - len(names), p.min_arity if hasattr(p, "min_arity") else 1, 0)
            for k in range(n):
                names.append(f"{p.name}[{k}]")
            return names, optional
        if i >= count and p.option == _OPTIONAL:
            names.append(p.name)
            optional.add(p.name)
            continue
        names.append(p.name)
        if p.option == _OPTIONAL:
            optional.add(p.name)
    while len(names) < count:  # more than the schema lists (a model from a newer onnx): plain names
        names.append(f"input{len(names)}")
    return names, optional


def ports_for(op_type: str, domain: str, opset: int, n_inputs: int, n_outputs: int,
              functions: Sequence[onnx.FunctionProto] = ()) -> Ports:
    """Port names for a node with ``n_inputs`` input positions and ``n_outputs`` outputs (see
    the module docstring). Every formal input of the schema is a port, optional ones beyond
    ``n_inputs`` too; outputs likewise."""
    func = next((f for f in functions if f.name == op_type and f.domain == domain), None)
    if func is not None:
        ins = list(func.input) + [f"input{i}" for i in range(len(func.input), n_inputs)]
        outs = list(func.output) + [f"output{i}" for i in range(len(func.output), n_outputs)]
        return Ports(_unique(ins), _unique(outs), frozenset())
    s = schema(op_type, domain, opset)
    if s is None:
        return Ports(tuple(f"input{i}" for i in range(n_inputs)), tuple(f"output{i}" for i in range(n_outputs)),
                     frozenset())
    ins, optional = _expand(s.inputs, n_inputs)
    outs, _ = _expand(s.outputs, n_outputs)
    outs = [f"output{i}" if i >= len(outs) else n for i, n in enumerate(outs)]
    return Ports(_unique(ins), _unique(outs), frozenset(optional) & set(_unique(ins)))


def _unique(names: Sequence[str]) -> tuple[str, ...]:
    out: list[str] = []
    for n in names:
        candidate, k = n, 2
        while candidate in out:
            candidate = f"{n}_{k}"
            k += 1
        out.append(candidate)
    return tuple(out)


def new_foreign_node(op_type: str, domain: str = "", opset: int = 18, *, node_id: str = "", name: str = "",
                     position: tuple[float, float] = (0.0, 0.0)) -> N.ForeignNode:
    """A fresh foreign node of an ONNX op (see the module docstring); ValueError when ONNX has
    no schema for it at ``opset``."""
    s = schema(op_type, domain, opset)
    if s is None:
        raise ValueError(f"ONNX has no op {op_type!r} in domain {domain or 'ai.onnx'!r} at opset {opset}")
    n_in = sum(1 for p in s.inputs if p.option != _VARIADIC) + sum(1 for p in s.inputs if p.option == _VARIADIC)
    n_out = len(s.outputs)
    ports = ports_for(op_type, domain, opset, n_in, n_out)
    optional = ports.optional | {p for p, f in zip(ports.inputs, s.inputs, strict=False) if f.option == _OPTIONAL}
    return N.ForeignNode(id=node_id, name=name, position=position, op_type=op_type, domain=domain,
                         inputs=ports.inputs, outputs=ports.outputs, optional=frozenset(optional))


@dataclass(frozen=True)
class OpEntry:
    """One op ONNX defines: ``domain`` (``""``: the default one), ``op_type``, the version in
    force at the asked opset, and the first line of its documentation."""

    domain: str
    op_type: str
    since_version: int
    summary: str
    deprecated: bool


def op_catalog(opset: int = 18) -> list[OpEntry]:
    """Every op ONNX (this installed onnx) defines, at ``opset`` for the default domain and at
    the latest version for the others; sorted by domain then name."""
    out = {}
    for s in onnx.defs.get_all_schemas_with_history():
        limit = opset if s.domain == "" else 10 ** 6
        if s.since_version > limit:
            continue
        key = (s.domain, s.name)
        if key not in out or out[key].since_version < s.since_version:
            doc = (s.doc or "").strip().splitlines()
            out[key] = OpEntry(s.domain, s.name, s.since_version, doc[0].strip() if doc else "", s.deprecated)
    return sorted(out.values(), key=lambda e: (e.domain, e.op_type))


@dataclass(frozen=True)
class AttributeSpec:
    """An attribute an op's schema declares: its kind, whether it must be given, its default
    (None when it has none) and its description."""

    name: str
    kind: AttrKind
    required: bool
    default: ForeignAttribute | None
    doc: str


def attribute_specs(op_type: str, domain: str = "", opset: int = 18) -> list[AttributeSpec]:
    """The attributes of an op at ``opset`` (empty when ONNX has no schema for it)."""
    s = schema(op_type, domain, opset)
    if s is None:
        return []
    out = []
    for name, attr in sorted(s.attributes.items()):
        kind = AttrKind[str(attr.type).rsplit(".", 1)[-1]]
        default = None
        if attr.default_value is not None and attr.default_value.type != 0:
            default = from_onnx(attr.default_value)
        out.append(AttributeSpec(name, kind, bool(attr.required), default, (attr.description or "").strip()))
    return out
