"""``indexflow export`` and ``indexflow import``, registered into ``nodeeditor.cli``.

    indexflow export GRAPH -o MODEL.onnx [--opset N] [--sources initializers|inputs] [--gradients]
                     [--allow-outside-files]
    indexflow import MODEL.onnx -o GRAPH

Exit codes follow ``nodeeditor.cli``: 0 success, 1 the graph or model cannot be converted
(the message says why; an export names the nodes that need a higher opset and the lowest
opset that works), 2 usage errors. ``--gradients`` writes the forward graph plus its backward
graph (outputs ``loss`` and ``grad_<source>``, see :mod:`.gradients`).
"""
from __future__ import annotations

import argparse
import sys

EXIT_OK, EXIT_GRAPH_ERROR, EXIT_USAGE = 0, 1, 2


def _cmd_export(args: argparse.Namespace) -> int:
    from nodeeditor.graph import GraphArgumentError, GraphFileError, open_graph

    from .errors import ExportError
    from .export import save_model
    from .gradients import save_gradient_model

    try:
        graph = open_graph(args.graph, allow_outside_files=args.allow_outside_files)
    except GraphArgumentError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except GraphFileError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_GRAPH_ERROR
    try:
        save = save_gradient_model if args.gradients else save_model
        path = save(graph, args.output, opset=args.opset, sources=args.sources)
    except ExportError as exc:
        print(f"error: {exc}", file=sys.stderr)
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
    print(f"wrote {path} (opset {opset}, sources as {args.sources}{what}); onnx.checker: ok")
    return EXIT_OK


def _cmd_import(args: argparse.Namespace) -> int:
    from nodeeditor.graph import GraphFileError, save_graph
    from nodeeditor.graph.examples import names_a_path

    from .errors import OnnxImportError
    from .importer import import_model

    if not names_a_path(args.model):
        print(f"error: no such file: {args.model}", file=sys.stderr)
        return EXIT_USAGE
    try:
        graph = import_model(args.model)
    except OnnxImportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_GRAPH_ERROR
    try:
        path = save_graph(graph, args.output)
    except (GraphFileError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_GRAPH_ERROR
    print(f"wrote {path}: {len(graph.nodes)} nodes, {len(graph.edges)} edges, opset {graph.opset}")
    return EXIT_OK


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
    p.add_argument(OUTSIDE_FLAG, action="store_true", help=OUTSIDE_HELP)
    p.set_defaults(handler=_cmd_export)


def _register_import(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("import", help="turn an ONNX model made of the indexing ops into a graph file")
    p.add_argument("model", metavar="MODEL.onnx")
    p.add_argument("-o", "--output", required=True, metavar="GRAPH", help="the graph file to write (*.ifg.json)")
    p.set_defaults(handler=_cmd_import)


CLI_SUBCOMMANDS = (("export", _register_export), ("import", _register_import))
