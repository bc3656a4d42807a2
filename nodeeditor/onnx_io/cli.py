"""``indexflow export`` and ``indexflow import``, registered into ``nodeeditor.cli``.

    indexflow export GRAPH -o MODEL.onnx [--opset N] [--sources initializers|inputs] [--gradients]
                     [--external-data] [--allow-outside-files]
    indexflow import MODEL.onnx -o GRAPH
    indexflow inspect MODEL.onnx

Exit codes follow ``nodeeditor.cli``: 0 success, 1 the graph or model cannot be converted
(the message says why; an export names the nodes that need a higher opset and the lowest
opset that works), 2 usage errors. ``--gradients`` writes the forward graph plus its backward
graph (outputs ``loss`` and ``grad_<source>``, see :mod:`.gradients`). ``--external-data``
writes the weights to ``MODEL.onnx.data`` beside the model (:mod:`.model_files`); without it
they go there only when they do not fit one ONNX file (2 GB). ``import`` takes any
model (ops other than the seven indexing ops become foreign nodes; large initializers stay
in the model, referred to by a path relative to the graph file). ``inspect`` lists every
indexing op of a model with its attributes and the types of its inputs and outputs, after a
summary of the model (opsets, node counts per op).
"""
from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

from nodeeditor.cli_paths import output_file
from nodeeditor.cli_report import EXIT_GRAPH_ERROR, EXIT_OK, EXIT_USAGE, print_error


def _cmd_export(args: argparse.Namespace) -> int:
    from nodeeditor.graph import GraphArgumentError, GraphFileError, open_graph

    from .errors import ExportError
    from .export import save_model
    from .gradients import save_gradient_model
    from .opset_rules import MAX_OPSET

    if args.opset is not None and not 1 <= args.opset <= MAX_OPSET:
        print_error(f"--opset {args.opset}: IndexFlow writes opsets 1 to {MAX_OPSET}")
        return EXIT_USAGE
    try:
        graph = open_graph(args.graph, allow_outside_files=args.allow_outside_files)
    except GraphArgumentError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    except GraphFileError as exc:
        print_error(str(exc))
        return EXIT_GRAPH_ERROR
    output = _output_path(args.output, ".onnx", graph.file_path, "the graph file being exported")
    if output is None:
        return EXIT_USAGE
    readers = graph.readers_of(output)
    if readers:   # the model the graph keeps its weights in: replacing it loses them
        names = ", ".join(repr(n.name) for n in readers[:3]) + (" …" if len(readers) > 3 else "")
        print_error(f"-o {output} is a file the graph reads ({names}); writing there would replace it: "
                    "give another name")
        return EXIT_USAGE
    try:
        save = save_gradient_model if args.gradients else save_model
        written = save(graph, output, opset=args.opset, sources=args.sources,
                       external_data=True if args.external_data else None)
    except ExportError as exc:
        print_error(str(exc))
        if exc.suggested_opset is not None:
            flag = " --gradients" if args.gradients else ""
            print(f"hint: indexflow export {args.graph or ''} -o {args.output} --opset {exc.suggested_opset}{flag}",
                  file=sys.stderr)
        return EXIT_GRAPH_ERROR
    opset = args.opset or graph.opset
    what = ""
    if args.gradients:
        from .gradients import gradient_output_names

        what = f", outputs: the loss and {len(gradient_output_names(graph))} gradient(s)"
    data = f" and its weights {written.data}" if written.data is not None else ""
    if args.external_data and written.data is None:
        print("note: every weight is under 1 KB, so the model holds them all (no data file)", file=sys.stderr)
    print(f"wrote {written.model}{data} (opset {opset}, sources as {args.sources}{what}); onnx.checker: ok")
    return EXIT_OK


def _cmd_import(args: argparse.Namespace) -> int:
    from nodeeditor.graph import EXTENSION, GraphFileError, save_graph
    from nodeeditor.graph.examples import names_a_path
    from nodeeditor.graph.fileformat import through_link
    from nodeeditor.graph.paths import OUTSIDE_FLAG

    from .errors import OnnxImportError
    from .importer import import_model

    if not names_a_path(args.model):
        print_error(f"no such file: {args.model}")
        return EXIT_USAGE
    output = _output_path(args.output, EXTENSION, Path(args.model), "the model being imported")
    if output is not None:
        output = through_link(output)   # the graph goes where a link points: paths are relative to there
    if output is None:
        return EXIT_USAGE
    try:
        graph = import_model(args.model, graph_folder=output.absolute().parent)
    except OnnxImportError as exc:
        print_error(str(exc))
        return EXIT_GRAPH_ERROR
    try:
        path = save_graph(graph, output)
    except (GraphFileError, OSError) as exc:
        print_error(str(exc))
        return EXIT_GRAPH_ERROR
    print(f"wrote {path}: {len(graph.nodes)} nodes, {len(graph.edges)} edges, opset {graph.opset}")
    outside = _outside_reads(graph)
    if outside:
        print(f"note: {len(outside)} tensor(s) stay in {outside[0]}, outside the graph's folder: run, check and "
              f"export of {path.name} need {OUTSIDE_FLAG} (or write the graph beside the model)")
    return EXIT_OK


def _outside_reads(graph) -> list[str]:
    """The paths (one entry per source) that ``graph``'s sources read from outside its folder."""
    from nodeeditor.graph import nodes as N

    scope = graph.file_scope
    return [n.path for n in graph.nodes if n.kind in N.PATH_KINDS and scope.is_outside(n.path)]


def _output_path(output: str, suffix: str, source: Path | None, what: str) -> Path | None:
    """The file ``-o OUTPUT`` writes (:func:`nodeeditor.cli_paths.output_file`: ``suffix``
    added). None, after saying why, for an empty name, a folder, or the file the command reads
    (``source``, ``what`` it is): writing there would destroy it (an import over its own model
    lost the model's weights)."""
    target = output_file(output, suffix, "out" + suffix, flag="-o")
    if target is None:
        return None
    if source is not None and _same_file(target, source):
        print_error(f"-o {target} is {what}; writing there would replace it: give another name")
        return None
    return target


def _same_file(a: Path, b: Path) -> bool:
    """Both name one existing file (False for names the system cannot even look up)."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _register_export(sub: argparse._SubParsersAction) -> None:
    from nodeeditor.graph.paths import OUTSIDE_FLAG, OUTSIDE_HELP

    p = sub.add_parser("export", help="export a graph as a validated ONNX model")
    p.add_argument("graph", nargs="?", help="graph file or example name (default: the default example)")
    p.add_argument("-o", "--output", required=True, metavar="MODEL.onnx", help="where to write the model")
    p.add_argument("--opset", type=int, default=None, help="ONNX opset to write (default: the graph's)")
    p.add_argument("--sources", choices=("initializers", "inputs"), default="initializers",
                   help="write tensor sources as initializers (default) or as graph inputs with their shapes")
    p.add_argument("--gradients", action="store_true",
                   help="write the forward graph plus its backward graph: outputs 'loss' and one "
                        "'grad_<source name>' per trainable source (needs a Loss node; opset 18 or later)")
    p.add_argument("--external-data", action="store_true",
                   help="write the weights to MODEL.onnx.data beside the model (ONNX external data); without "
                        "it they go there only when they do not fit one ONNX file (2 GB)")
    p.add_argument(OUTSIDE_FLAG, action="store_true", help=OUTSIDE_HELP)
    p.set_defaults(handler=_cmd_export)


def _register_import(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="turn an ONNX model (any model) into a graph file")
    p.add_argument("model", metavar="MODEL.onnx")
    p.add_argument("-o", "--output", required=True, metavar="GRAPH", help="the graph file to write (*.ifg.json)")
    p.set_defaults(handler=_cmd_import)


def _cmd_inspect(args: argparse.Namespace) -> int:
    from nodeeditor.graph.examples import names_a_path

    from .errors import OnnxImportError
    from .importer import import_model

    if not names_a_path(args.model):
        print_error(f"no such file: {args.model}")
        return EXIT_USAGE
    try:
        graph = import_model(args.model)
    except OnnxImportError as exc:
        print_error(str(exc))
        return EXIT_GRAPH_ERROR
    for line in inspect_lines(graph):
        print(line)
    return EXIT_OK


def inspect_lines(graph) -> list[str]:
    """What ``indexflow inspect`` prints for an imported model."""
    from nodeeditor.graph import nodes as N

    opsets = ", ".join(f"{d or 'ai.onnx'} {v}" for d, v in graph.opsets().items())
    ops_count = Counter(n.op if isinstance(n, N.OperatorNode) else n.title
                        for n in graph.nodes if isinstance(n, (N.OperatorNode, N.ForeignNode)))
    indexing = [n for n in graph.nodes if isinstance(n, N.OperatorNode)]
    lines = [f"model: {graph.name}, opsets: {opsets}",
             f"{sum(ops_count.values())} nodes: {len(indexing)} indexing op(s), "
             f"{sum(ops_count.values()) - len(indexing)} other op(s)",
             "ops: " + ", ".join(f"{op} x{k}" for op, k in sorted(ops_count.items(), key=lambda x: (-x[1], x[0])))]
    for node in graph.nodes:   # graph inputs, and initializers listed as inputs (a default value)
        if isinstance(node, N.InputSource) or getattr(node, "overridable", False):
            default = "" if isinstance(node, N.InputSource) else " (a default)"
            lines.append(f"input {node.name!r}: {graph.output_type(node.id)}{default}")
    for node in graph.output_nodes():
        lines.append(f"output {node.name!r}: {graph.output_type(node.id) or 'type known after a run'}")
    inside = _indexing_in_bodies(graph)
    if not indexing:
        lines.append("no indexing op" + (" in the main graph" if inside else "")
                     + " (Gather, GatherElements, GatherND, Scatter, ScatterElements, ScatterND, TensorScatter)")
    for label, found in inside.items():
        lines.append(f"inside {label}: " + ", ".join(f"{op} x{k}" for op, k in sorted(found.items()))
                     + " (in its subgraphs; onnxruntime runs them as part of it)")
    for node in indexing:
        info = graph.node_info(node.id)
        attrs = {**node.schema.defaults(), **node.attributes}
        shown = ", ".join(f"{k}={v!r}" for k, v in attrs.items())
        lines.append("")
        lines.append(f"{node.op} {node.name!r}" + (f" ({shown})" if shown else ""))
        for port in node.input_ports():
            edge = graph.edge_into(node.id, port)
            if edge is None:
                lines.append(f"  {port}: not connected")
                continue
            src = graph.node(edge.src)
            ttype = graph.output_type(edge.src, edge.src_port)
            what = src.title if isinstance(src, N.ForeignNode) else src.op if isinstance(src, N.OperatorNode) \
                else src.kind
            lines.append(f"  {port}: {ttype or 'type known after a run'} from {src.name!r} ({what})")
        for port in node.output_ports():
            lines.append(f"  {port}: {info.outputs.get(port) or 'type known after a run'}")
        if info.error and not info.blocked:
            lines.append(f"  error: {info.error}")
    return lines


def _indexing_in_bodies(graph) -> dict[str, Counter]:
    """The indexing ops inside each foreign node's graph attributes (an If's branches, a
    Loop's body, nested ones too), by the node's label; nodes with none are left out."""
    import onnx

    import ops
    from nodeeditor.graph import nodes as N
    from nodeeditor.graph.foreign import AttrKind

    def count(body: onnx.GraphProto, found: Counter) -> None:
        for node in body.node:
            if node.domain in ("", "ai.onnx") and node.op_type in ops.OP_NAMES:
                found[node.op_type] += 1
            for attr in node.attribute:
                for sub in ([attr.g] if attr.type == onnx.AttributeProto.GRAPH else list(attr.graphs)):
                    count(sub, found)

    out = {}
    for node in graph.nodes:
        if not isinstance(node, N.ForeignNode):
            continue
        found: Counter = Counter()
        for attr in node.attributes.values():
            if attr.kind in (AttrKind.GRAPH, AttrKind.GRAPHS):
                for opaque in (attr.value if attr.kind.is_list else (attr.value,)):
                    count(onnx.GraphProto.FromString(opaque.data), found)
        if found:
            out[f"{node.label} ({node.title})"] = found
    return out


def _register_inspect(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("inspect", help="list every indexing op of an ONNX model with its attributes and the "
                                       "types of its inputs and outputs")
    p.add_argument("model", metavar="MODEL.onnx")
    p.set_defaults(handler=_cmd_inspect)


CLI_SUBCOMMANDS = (("export", _register_export), ("import", _register_import), ("inspect", _register_inspect))
