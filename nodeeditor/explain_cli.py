"""``indexflow explain GRAPH NODE``: the Explainer's step-through from the command line.

    indexflow explain GRAPH NODE [--text] [--gif FILE.gif] [--frames DIR] [--size WxH]
                                 [--title] [--frame-ms MS] [--elements] [--allow-outside-files]

GRAPH is what ``indexflow run`` takes: a graph file, an ONNX model (imported first) or an
example name.

NODE is an operator node's id or its name. ``--text`` (the default when neither ``--gif`` nor
``--frames`` is given) prints one line per step, the formula with its numbers
(``ops.steps.step_line``), and nothing else on standard output, so it pipes into ``grep`` and
``wc -l``; every other message goes to standard error. ``--gif`` and ``--frames`` draw each step
with the Explainer's own widget, offscreen (``QT_QPA_PLATFORM=offscreen`` is set when there is
no display), at ``--size`` (default 1280x720), one GIF frame or one PNG file per step, after a
title frame with ``--title``. GatherND, ScatterND and TensorScatter move a slice per step unless
``--elements``.

The text path never imports Qt: the steps come from :mod:`ops.explain` on the input values
the engine computes. Exit codes follow ``nodeeditor.cli``: 0 done, 1 the node cannot run or a
file cannot be written, 2 usage errors (no such node, not an operator, a bad size).
"""
from __future__ import annotations

import argparse
import os
import sys

from nodeeditor.cli_paths import output_file
from nodeeditor.cli_report import EXIT_GRAPH_ERROR, EXIT_OK, EXIT_USAGE, print_error


class ExplainUsageError(Exception):
    """The command line names something that cannot be explained (exit code 2)."""


def register(sub: argparse._SubParsersAction) -> None:
    from nodeeditor.cli import add_outside_files_option

    p = sub.add_parser("explain", help="step through how an operator node moves each value (text, GIF or frames)",
                       description="Step through an operator node of a graph, as the Explainer does.")
    p.add_argument("graph", help="graph file, ONNX model (.onnx) or example name")
    p.add_argument("node", help="the operator node's id or name")
    p.add_argument("--text", action="store_true",
                   help="print one line per step (formula and numbers) and nothing else on stdout (the default)")
    p.add_argument("--gif", metavar="FILE.gif", help="write an animated GIF, one frame per step")
    p.add_argument("--frames", metavar="DIR", help="write numbered PNG frames (step_001.png ...) into DIR")
    p.add_argument("--size", metavar="WxH", default="1280x720", help="picture size for --gif/--frames "
                   "(default 1280x720)")
    p.add_argument("--title", action="store_true", help="a title frame before the steps (--gif/--frames)")
    p.add_argument("--frame-ms", type=int, default=1000, metavar="MS", help="time of each GIF frame (default 1000)")
    p.add_argument("--elements", action="store_true",
                   help="GatherND, ScatterND, TensorScatter: one step per element instead of one per slice")
    add_outside_files_option(p)
    p.set_defaults(handler=run)


def find_operator(graph, name_or_id: str):
    """The node with id ``name_or_id``, else the operator node with that name (else the one
    node with that name); an ExplainUsageError lists the operator nodes when that is not one
    operator node."""
    from nodeeditor.graph import ForeignNode, OperatorNode

    node = graph.node(name_or_id) if graph.has_node(name_or_id) else None
    if node is None:
        named = [n for n in graph.nodes if n.name == name_or_id]
        # an operator and its output node often share a name: the operator is meant
        candidates = [n for n in named if isinstance(n, OperatorNode)] or named
        if len(candidates) > 1:
            ids = ", ".join(n.id for n in candidates)
            raise ExplainUsageError(f"{len(candidates)} nodes are called {name_or_id!r} ({ids}); give the node's id")
        node = candidates[0] if candidates else None
    operators = [n for n in graph.nodes if isinstance(n, OperatorNode)]
    listing = ", ".join(f"{n.id} ({n.name}, {n.op})" for n in operators) or "none"
    if node is None:
        raise ExplainUsageError(f"no node {name_or_id!r} in the graph; its operator nodes: {listing}")
    if not isinstance(node, OperatorNode):
        what = f"ONNX op {node.title}" if isinstance(node, ForeignNode) else node.kind
        raise ExplainUsageError(f"{node.name!r} ({what}) is not an indexing operator node; the Explainer steps "
                                f"through those: {listing}")
    return node


def operator_inputs(graph, node) -> list:
    """The values of ``node``'s inputs in port order (None for an unconnected optional input),
    computed by the engine; a RuntimeError names the node's error or the missing input."""
    from nodeeditor.graph import Engine, NodeStatus

    engine = Engine(graph)
    sources = {port: edge.src for port, edge in graph.inputs_of(node.id).items()}
    result = engine.run(targets=[node.id], keep=set(sources.values()))
    outcome = result.nodes.get(node.id)
    if outcome is not None and outcome.status in (NodeStatus.ERROR, NodeStatus.BLOCKED, NodeStatus.CANCELLED):
        raise RuntimeError(outcome.error or f"{node.name}: {outcome.status.value}")
    read = engine.input_values(node.id)   # each from its producer's own output port
    values = []
    for port in node.input_ports():
        value = read.get(port)
        if value is None and port not in node.optional_inputs():
            raise RuntimeError(f"{node.name}: input {port} is not connected")
        values.append(value)
    return values


def run(args: argparse.Namespace) -> int:
    from nodeeditor.cli import open_graph_argument
    from ops import OpError
    from ops.explain import Granularity, explain
    from ops.steps import step_line

    if args.frame_ms <= 0:
        print_error(f"--frame-ms must be a positive number of milliseconds, got {args.frame_ms}")
        return EXIT_USAGE
    gif = None if args.gif is None else output_file(args.gif, ".gif", "steps.gif", flag="--gif")
    if args.gif is not None and gif is None:
        return EXIT_USAGE
    graph = open_graph_argument(args)   # UsageError, GraphFileError: nodeeditor.cli.main reports them
    try:
        node = find_operator(graph, args.node)
    except ExplainUsageError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    granularity = Granularity.ELEMENT if args.elements else None
    try:
        inputs = operator_inputs(graph, node)
        explanation = explain(node.op, inputs, dict(node.attributes), granularity)
    except (RuntimeError, OpError) as exc:
        print_error(str(exc))
        return EXIT_GRAPH_ERROR
    if explanation.count == 0:
        print(f"note: {node.name} ({node.op}) has no steps: nothing is read or written (an empty tensor)",
              file=sys.stderr)
    if args.text or not (args.gif or args.frames):
        for step in explanation.steps():
            sys.stdout.write(step_line(step) + "\n")
        sys.stdout.flush()
    if args.gif or args.frames:
        return _slides(args, gif, node, inputs, granularity)
    return EXIT_OK


def _slides(args, gif, node, inputs, granularity) -> int:
    """Draw the steps offscreen and write the GIF and/or the frames (messages on stderr)."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and sys.platform.startswith("linux"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    try:
        from PySide6 import QtWidgets

        from nodeeditor.ui.explainer import slides
    except ImportError as exc:
        print_error(f"--gif/--frames need the editor's Qt packages ({exc.name} not found)")
        return EXIT_GRAPH_ERROR
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(["indexflow"])  # noqa: F841 - kept alive
    try:
        size = slides.parse_size(args.size)
        options = slides.SlideOptions(size, args.title, args.frame_ms, granularity)
        written, pictures = slides.write_slides(node.name, node.op, inputs, dict(node.attributes), options,
                                                gif=gif,
                                                folder=args.frames)
        if args.gif:
            print(f"wrote {pictures} frames to {written[0]}", file=sys.stderr)
        if args.frames:
            print(f"wrote {pictures} PNG files to {args.frames}", file=sys.stderr)
    except slides.SlideError as exc:
        print_error(str(exc))
        return EXIT_USAGE if isinstance(exc, slides.SizeError) else EXIT_GRAPH_ERROR
    return EXIT_OK


#: Registered into ``nodeeditor.cli`` (one of its ``PLUGIN_MODULES``; its own module: the text
#: path never imports Qt).
CLI_SUBCOMMANDS = (("explain", register),)
