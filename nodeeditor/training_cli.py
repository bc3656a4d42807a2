"""``indexflow grad`` and ``indexflow train``, registered into ``nodeeditor.cli`` (one of its
``PLUGIN_MODULES``).

    indexflow grad GRAPH [-o GRADS.npz]
    indexflow train GRAPH --steps N [--lr X] [--optimizer sgd|adam] [-o TRAINED.ifg.json]

``grad`` runs one forward and backward pass and prints the loss and d(loss)/d(source) for each
trainable source (and writes them under the sources' names); ``train`` runs N optimizer steps,
printing the loss as it goes (a bar on a terminal), and writes the trained graph. A graph with
no Loss node or no trainable source, or two trainable sources of one name, is exit code 1 with
what is missing; the other exit codes are ``nodeeditor.cli``'s.
"""
from __future__ import annotations

import argparse
import sys
import textwrap
import time
from pathlib import Path

import numpy as np

from .cli import (
    SMALL,
    TerminalProgress,
    UsageError,
    add_outside_files_option,
    describe_graph,
    open_graph_argument,
    write_arrays,
)
from .cli_paths import output_file
from .cli_report import EXIT_GRAPH_ERROR, EXIT_OK, EXIT_USAGE, print_error


def _training_setup(graph) -> int | None:
    """EXIT_GRAPH_ERROR after saying what is missing for a backward pass (no Loss node, no
    trainable source) or which trainable sources share a name; None when it can start."""
    from nodeeditor.graph.backward import gradient_name_clashes, setup_problem

    problem = setup_problem(graph)
    if problem is not None:
        print_error(str(problem))
        return EXIT_GRAPH_ERROR
    clashes = gradient_name_clashes(graph)
    for clash in clashes:
        print_error(f"{clash}; gradients are named after their source, so rename one")
    return EXIT_GRAPH_ERROR if clashes else None


def _show(name: str, value: np.ndarray) -> None:
    from ops import dtype_name

    print(f"{name}: {dtype_name(value)}[{', '.join(map(str, value.shape))}]")
    if value.size <= SMALL:
        print(textwrap.indent(np.array2string(value) if value.ndim else repr(value.item()), "  "))


def _cmd_grad(args: argparse.Namespace) -> int:
    from nodeeditor.graph import Backward, Engine

    target = None if args.output is None else output_file(args.output, ".npz", "gradients.npz")
    if args.output is not None and target is None:
        return EXIT_USAGE
    graph = open_graph_argument(args)
    print(describe_graph(graph))
    refused = _training_setup(graph)
    if refused is not None:
        return refused
    progress = TerminalProgress(sys.stderr)
    try:
        result = Backward(Engine(graph)).run(progress=progress)
    finally:
        progress.finish()
    for warning in result.warnings:
        print(f"warning: {warning}")
    if not result.ok:
        for _, message in result.errors:
            print(f"error: {message}")
        return EXIT_GRAPH_ERROR
    print(f"loss: {result.loss!r}")
    grads = {graph.node(sid).name: grad for sid, grad in result.source_gradients().items()}
    for name, grad in grads.items():
        _show(f"d loss / d {name}", grad)
    if target is not None:
        return write_arrays(target, grads, "gradient", ", one per trainable source, under its name")
    return EXIT_OK


class TrainingBar:
    """``[#####.....] step 57/200  loss 0.0123`` on a terminal once a run has taken a moment."""

    def __init__(self, stream, delay: float = 0.5, width: int = 30) -> None:
        self.stream, self.delay, self.width = stream, delay, width
        self.start = time.monotonic()
        self.shown = False
        self.enabled = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, step: int, steps: int, loss: float) -> None:
        if self.enabled and time.monotonic() - self.start >= self.delay:
            filled = self.width * step // max(steps, 1)
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] step {step}/{steps}  loss {loss:.6g}")
            self.stream.flush()
            self.shown = True

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * (self.width + 50) + "\r")
            self.stream.flush()


def trained_path(spec: str | None, graph) -> Path:
    """Where ``train`` writes without ``-o``: beside a graph file as ``NAME.trained.ifg.json``;
    for a bundled example, that name in the working folder."""
    from nodeeditor.graph import EXTENSION
    from nodeeditor.graph.examples import EXAMPLES_DIR

    path = graph.file_path or Path(f"{spec or 'graph'}{EXTENSION}")
    stem = path.name[: -len(EXTENSION)] if path.name.endswith(EXTENSION) else path.stem
    folder = Path.cwd() if path.parent.resolve() == EXAMPLES_DIR.resolve() else path.parent
    return folder / f"{stem}.trained{EXTENSION}"


def _cmd_train(args: argparse.Namespace) -> int:
    from nodeeditor.graph import EXTENSION, OptimizerSettings, TrainingRun, apply_trained, save_graph

    if args.steps < 1:
        raise UsageError(f"--steps must be at least 1, got {args.steps}")
    try:
        settings = OptimizerSettings(args.optimizer, args.lr)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    target = None
    if args.output is not None:
        target = output_file(args.output, EXTENSION, "trained" + EXTENSION)
        if target is None:
            return EXIT_USAGE
    graph = open_graph_argument(args)
    print(describe_graph(graph))
    refused = _training_setup(graph)
    if refused is not None:
        return refused
    run = TrainingRun(graph, settings)
    for warning in run.warnings:
        print(f"warning: {warning}")
    names = ", ".join(graph.node(sid).name for sid in run.sources)
    rule = f"momentum {settings.momentum}" if settings.kind.value == "sgd" else \
        f"betas {settings.beta1}, {settings.beta2}"
    print(f"training {names}: {args.steps} steps of {settings.kind.value} (learning rate {settings.lr}, {rule})")
    every = max(1, args.steps // 10)
    bar = TrainingBar(sys.stderr)

    def on_step(step) -> None:
        bar(step.step, step.steps, step.loss)
        if step.step == 1 or step.step % every == 0 or step.step == step.steps:
            bar.finish()
            print(f"step {step.step:>{len(str(step.steps))}}/{step.steps}  loss {step.loss:.6g}")

    try:
        result = run.execute(args.steps, on_step=on_step)
    finally:
        bar.finish()
    if result.error is not None:
        print_error(result.error)
        return EXIT_GRAPH_ERROR
    first = result.losses[0]
    ratio = f" ({first / result.final_loss:.4g}-fold lower)" if result.final_loss > 0 else ""
    print(f"final loss {result.final_loss:.6g}, from {first:.6g}{ratio}")
    apply_trained(graph, result.values)
    target = target or trained_path(args.graph, graph)
    path = save_graph(graph, target)
    print(f"wrote {path}")
    return EXIT_OK


def _register_grad(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("grad", help="one forward and backward pass: print the loss and d(loss)/d(source) "
                                    "for each trainable source")
    p.add_argument("graph", help="graph file, ONNX model (.onnx) or example name")
    p.add_argument("--output", "-o", metavar="GRADS.npz",
                   help="write each trainable source's gradient to GRADS.npz under the source's name "
                        "(.npz is added when missing)")
    add_outside_files_option(p)
    p.set_defaults(handler=_cmd_grad)


def _register_train(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="update the trainable sources for N optimizer steps and write the trained graph")
    p.add_argument("graph", help="graph file, ONNX model (.onnx) or example name")
    p.add_argument("--steps", type=int, required=True, metavar="N", help="how many optimizer steps")
    from nodeeditor.graph.optimizers import DEFAULT_LEARNING_RATES, OptimizerKind, OptimizerSettings

    defaults = ", ".join(f"{rate} for {kind.value}" for kind, rate in DEFAULT_LEARNING_RATES.items())
    p.add_argument("--lr", type=float, default=None, metavar="X", help=f"learning rate (default: {defaults})")
    p.add_argument("--optimizer", choices=[k.value for k in OptimizerKind], default=OptimizerKind.SGD.value,
                   help=f"sgd: SGD with momentum {OptimizerSettings().momentum} (default); "
                        "adam: Adam with bias correction")
    p.add_argument("--output", "-o", metavar="TRAINED.ifg.json",
                   help="where to write the trained graph (.ifg.json is added when missing; default: "
                        "NAME.trained.ifg.json beside the graph file, or in the working folder for a bundled example)")
    add_outside_files_option(p)
    p.set_defaults(handler=_cmd_train)


CLI_SUBCOMMANDS = (("grad", _register_grad), ("train", _register_train))
