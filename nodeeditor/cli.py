"""The ``indexflow`` command.

    indexflow                      open the editor on the default example
    indexflow GRAPH                open the editor on a graph file
    indexflow run [GRAPH|MODEL.onnx] [--inputs IN.npz] [--output FILE.npz] [--print] [--allow-outside-files]
                                   (.npz added when missing; no folders)
    indexflow check [GRAPH|MODEL.onnx] [--allow-outside-files]
    indexflow examples
    indexflow grad GRAPH [-o GRADS.npz]
    indexflow train GRAPH --steps N [--lr X] [--optimizer sgd|adam] [-o TRAINED.ifg.json]
    indexflow lessons [ID]
    indexflow explain GRAPH NODE [--text] [--gif FILE.gif] [--frames DIR] [--size WxH]

GRAPH is a graph file (``*.ifg.json``) or the name of a bundled example; without it,
``run`` and ``check`` use the default example. ``run`` and ``check`` also take an ONNX model
(a file ending in ``.onnx``): it is imported first (any model; ops other than the seven
indexing ops run in onnxruntime). ``run --inputs IN.npz`` sets the graph inputs to the arrays
of the same names in IN.npz before running. A graph file's file sources read only files in
its own folder unless ``--allow-outside-files`` is given (``nodeeditor.graph.paths.FileScope``).
``run --output`` adds ``.npz`` when missing and refuses a folder. Exit codes: 0 success, 1 the
graph has errors (each printed with its node) or cannot be read, or (``grad``, ``train``) has
no Loss node or no trainable source, 2 usage errors (bad arguments, no such file).

More subcommands are registered as ``(name, register)`` pairs: ``register(subparsers)``
adds a parser whose defaults include ``handler=callable(args) -> int``. Other modules
either call :func:`register_subcommand` or list pairs in a module-level
``CLI_SUBCOMMANDS`` in one of ``PLUGIN_MODULES`` (imported when present), so
``export``/``import`` can live in ``nodeeditor.onnx_io`` without this file changing.
"""
from __future__ import annotations

import argparse
import codecs
import importlib
import os
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import numpy as np

from .cli_paths import output_file
from .cli_report import EXIT_GRAPH_ERROR, EXIT_OK, EXIT_USAGE, print_error

Register = Callable[[argparse._SubParsersAction], None]
SUBCOMMANDS: list[tuple[str, Register]] = []
PLUGIN_MODULES = ("nodeeditor.explain_cli", "nodeeditor.training_cli", "nodeeditor.onnx_io.cli")
SMALL = 100  # outputs with at most this many elements are printed by default


class UsageError(Exception):
    """A problem with the command line itself (exit code 2)."""


def register_subcommand(name: str, register: Register) -> None:
    """Add a subcommand; ``register(subparsers)`` must add a parser called ``name``."""
    if any(existing == name for existing, _ in SUBCOMMANDS):
        raise ValueError(f"subcommand {name!r} is already registered")
    SUBCOMMANDS.append((name, register))


def _load_plugins() -> None:
    for module_name in PLUGIN_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        for name, register in getattr(module, "CLI_SUBCOMMANDS", ()):
            if all(existing != name for existing, _ in SUBCOMMANDS):
                SUBCOMMANDS.append((name, register))


# ---------------------------------------------------------------------- helpers
def is_model_argument(spec: str | None) -> bool:
    """Whether a graph argument names an ONNX model (an existing file ending in ``.onnx``)."""
    from nodeeditor.graph.examples import names_a_path

    return spec is not None and str(spec).lower().endswith(".onnx") and names_a_path(spec)


def open_graph_argument(args: argparse.Namespace):
    """The graph ``args.graph`` names: a file path, an ONNX model (imported) or an example
    name (default example for None, see ``nodeeditor.graph.open_graph``), reading files
    outside its folder only with ``--allow-outside-files``; a name that is none of them is a
    usage error, a model that cannot be imported a GraphFileError."""
    from nodeeditor.graph import GraphArgumentError, GraphFileError, open_graph

    spec = args.graph
    if is_model_argument(spec):
        from nodeeditor.onnx_io import OnnxImportError, import_model

        try:
            return import_model(spec)
        except OnnxImportError as exc:
            raise GraphFileError(spec, str(exc).removeprefix(f"{spec}: ")) from None
    try:
        return open_graph(args.graph, allow_outside_files=args.allow_outside_files)
    except GraphArgumentError as exc:
        raise UsageError(str(exc)) from None


def add_outside_files_option(parser: argparse.ArgumentParser) -> None:
    """``--allow-outside-files``, for every subcommand that opens a graph file."""
    from nodeeditor.graph.paths import OUTSIDE_FLAG, OUTSIDE_HELP

    parser.add_argument(OUTSIDE_FLAG, action="store_true", help=OUTSIDE_HELP)


def feed_inputs(graph, path: str) -> list[str]:
    """Set each graph input of ``graph`` to the array of the same name in the ``.npz`` file
    ``path`` (a unicode array becomes strings). Returns notes to print (inputs the file does
    not set keep their example). UsageError for a file that cannot be read, a name that is no
    graph input, or an array the input cannot take: another dtype or rank than the input's
    type, or a size its declared shape does not allow (the message names the input).

    An overridable source (an initializer that is also an input of the exported model) is an
    input with a default: an array of the type its model input declares (its dtype, its rank,
    any size a named dimension allows: ``export.overridable_input_type``) replaces it for this
    run, as a feed replaces it in onnxruntime; a default with no value now takes any array."""
    from nodeeditor.graph import InputSource, dims
    from nodeeditor.graph import nodes as N
    from nodeeditor.onnx_io.export import overridable_input_type
    from ops import TensorType, dtype_name

    file = Path(path)
    if not file.is_file():
        raise UsageError(f"--inputs {path}: " + ("no such file" if not file.exists() else "not a regular file"))
    arrays = _read_npz(path, file)
    clashes = graph.name_clashes(of=("inputs",))
    if clashes:
        raise UsageError(f"--inputs {path}: {clashes[0]}; the archive's arrays are fed by name: rename all but one")
    inputs = {n.name: n for n in graph.nodes if isinstance(n, InputSource)}
    defaults = {n.name: n for n in graph.nodes if n.is_source and n.overridable and n.name not in inputs}
    unknown = sorted(set(arrays) - set(inputs) - set(defaults))
    if unknown:
        raise UsageError(f"--inputs {path}: {', '.join(map(repr, unknown))} "
                         f"{'is not a graph input' if len(unknown) == 1 else 'are not graph inputs'}; "
                         f"the inputs are {', '.join([*map(repr, inputs), *map(_a_default, defaults)]) or 'none'}")
    with graph.batch():
        for name, value in arrays.items():
            if value.dtype.byteorder not in "=|":   # big-endian data is its native type, converted
                value = value.astype(value.dtype.newbyteorder("="))
            if value.dtype.kind in "US":
                value = value.astype(object)
            if name in defaults:
                node = defaults[name]
                have = overridable_input_type(graph, node.id)
                fed = TensorType.of(value)
                if have is not None and (fed.dtype != have.dtype or dims.fit_problem(have.shape, fed.shape)):
                    raise UsageError(f"--inputs {path}: {name!r} is a default of type {have}; the array is {fed}")
                graph.replace_node(node.id, N.LiteralSource(id=node.id, name=name, position=node.position,
                                                            value=N.frozen_array(value), overridable=True))
                continue
            node = inputs[name]
            if node.onnx_type is None and (value.dtype != node.example.dtype or value.ndim != node.example.ndim
                                           or node.shape is not None and dims.fit_problem(node.shape, value.shape)):
                # an input's dtype, rank and declared sizes are part of its type (a model's, or
                # the graph's when exported): an array of another one is refused, as
                # onnxruntime refuses it
                raise UsageError(f"--inputs {path}: input {name!r} is {graph.output_type(node.id)}; the array is "
                                 f"{dtype_name(value)}[{', '.join(map(str, value.shape))}]")
            try:
                graph.set_source(inputs[name].id, example=value)
            except ValueError as exc:
                raise UsageError(f"--inputs {path}: input {name!r}: {exc}") from None
    return [f"note: input {name!r} is not in {path}; it keeps its example value"
            for name in inputs if name not in arrays]


def _read_npz(path: str, file: Path) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` archive ``file``; UsageError saying what the file is when it
    is not one (numpy's own words were about pickles and context managers)."""
    try:
        with open(file, "rb") as handle:
            magic = handle.read(6)
    except OSError as exc:
        raise UsageError(f"--inputs {path}: cannot read it ({exc.strerror or exc})") from None
    if magic == b"\x93NUMPY":
        raise UsageError(f"--inputs {path}: a single .npy array, not an .npz archive of named inputs; "
                         "write one with numpy.savez(file, NAME=array, ...)")
    if not magic.startswith(b"PK"):
        raise UsageError(f"--inputs {path}: not an .npz archive (a zip of named arrays, as numpy.savez writes)")
    try:
        with np.load(file, allow_pickle=False) as archive:
            return {k: archive[k] for k in archive.files}
    except Exception as exc:  # noqa: BLE001 - numpy raises many kinds on a damaged archive
        raise UsageError(f"--inputs {path}: not a readable .npz file ({type(exc).__name__}: {exc})") from None


def _a_default(name: str) -> str:
    return f"{name!r} (a default)"


def describe_graph(graph) -> str:
    where = f" ({graph.file_path.name})" if graph.file_path else ""
    return f"graph: {graph.name}{where}, opset {graph.opset}"


class TerminalProgress:
    """Shows ``[done/total] node`` on a terminal once a run has taken a moment."""

    def __init__(self, stream, delay: float = 0.5) -> None:
        self.stream, self.delay = stream, delay
        self.start = time.monotonic()
        self.shown = False
        self.enabled = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, done: int, total: int, node_id: str) -> None:
        if self.enabled and time.monotonic() - self.start >= self.delay:
            self.stream.write(f"\r[{done}/{total}] {node_id[:50]:<50}")
            self.stream.flush()
            self.shown = True

    def finish(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * 60 + "\r")
            self.stream.flush()


def savable(value: np.ndarray) -> np.ndarray:
    """A plain-numpy version for ``.npz``: strings as unicode; the ml_dtypes types (which
    ``.npy`` cannot name) widened to float32, int4/uint4 to int8/uint8."""
    from ops.dtypes import is_ml_dtype

    if value.dtype == object:
        return value.astype(str)
    if is_ml_dtype(value.dtype):
        name = value.dtype.name
        return value.astype(np.uint8 if name.startswith("uint") else np.int8 if name.startswith("int") else np.float32)
    return value


# ---------------------------------------------------------------------- subcommands
def _cmd_run(args: argparse.Namespace) -> int:
    from nodeeditor.graph import Engine
    from ops import dtype_name

    target = None if args.output is None else output_file(args.output, ".npz", "outputs.npz")
    if args.output is not None and target is None:
        return EXIT_USAGE
    graph = open_graph_argument(args)
    notes = feed_inputs(graph, args.inputs) if args.inputs else []
    print(describe_graph(graph) + ("" if args.engine == "numpy" else f", engine {args.engine}"))
    for note in notes:
        print(note)
    clashes = graph.name_clashes(of=("outputs",))
    if clashes:   # the outputs are printed and written by name: one value would be lost
        print_error(f"{clashes[0]}; rename all but one (outputs are written by name)")
        return EXIT_GRAPH_ERROR
    if args.engine == "onnxruntime":
        outcome = _run_in_onnxruntime(graph)
        if isinstance(outcome, int):
            return outcome
        outputs, ok = outcome, True
    else:
        progress = TerminalProgress(sys.stderr)
        try:
            result = Engine(graph).run(progress=progress)
        finally:
            progress.finish()
        for _, message in result.errors():
            print(f"error: {message}")
        for _, message in result.warnings():
            print(f"warning: {message}")
        outputs, ok = result.outputs, result.ok
    for name, value in outputs.items():
        dims = ", ".join(map(str, value.shape))
        print(f"{name}: {dtype_name(value)}[{dims}]")
        if args.print or value.size <= SMALL:
            options = {"threshold": sys.maxsize} if args.print else {}
            with np.printoptions(**options):
                print(textwrap.indent(np.array2string(value) if value.ndim else repr(value.item()), "  "))
    if target is not None:
        code = write_arrays(target, outputs)
        if code != EXIT_OK:
            return code
    if not graph.output_nodes():
        print("warning: the graph has no output nodes; nothing to write")
    return EXIT_OK if ok else EXIT_GRAPH_ERROR


def write_arrays(target: Path, outputs: dict[str, np.ndarray], what: str = "output", wrote_note: str = "") -> int:
    """Write ``outputs`` to the ``.npz`` ``target`` atomically (a temporary beside it, then
    replaced: a reader sees the old archive or the new one), one array per ``what`` (an
    output, a gradient), under
    :func:`nodeeditor.graph.arrayfiles.member_name` of its name: any name is written faithfully
    (``np.load(target)[name]`` for a plain name; a name holding ``/``, ``\\``, ``:``, ``%`` or
    control characters is percent-escaped, and a note says under which key) and safely (no
    member names a path outside the archive). A name too long for a zip header refuses the
    whole file. ``wrote_note`` ends the line that says what was written. Returns an exit code."""
    from nodeeditor.graph import arrayfiles
    from nodeeditor.graph.atomic import atomic_open
    from ops import dtype_name

    members = {arrayfiles.member_name(name): name for name in outputs}
    too_long = [name for member, name in members.items() if not arrayfiles.member_fits(member)]
    if too_long:
        size = len(arrayfiles.member_name(too_long[0]).encode("utf-8"))
        print_error(f"cannot write {target}: {what} name {too_long[0][:40]!r}... is {size} bytes long; "
                    f"names in an .npz are at most {arrayfiles.MAX_MEMBER_BYTES - len(arrayfiles.NPY)} bytes")
        return EXIT_GRAPH_ERROR
    try:
        with atomic_open(target) as handle:
            arrayfiles.write_npz(handle, {member: savable(outputs[name]) for member, name in members.items()})
    except OSError as exc:
        print_error(f"cannot write {target}: {exc.strerror or exc}")
        return EXIT_GRAPH_ERROR
    print(f"wrote {len(outputs)} {what}(s) to {target}{wrote_note}")
    for member, name in members.items():
        value = outputs[name]
        widened = savable(value)
        if value.dtype != object and widened.dtype != value.dtype:
            print(f"note: {name} ({dtype_name(value)}) was written as {widened.dtype}: "
                  f".npz cannot name {dtype_name(value)}")
        if member != name:
            print(f"note: {what} {name!r} was written as {member!r} (characters that could name a path are "
                  f"escaped; urllib.parse.unquote gives the name back)")
    return EXIT_OK


def _run_in_onnxruntime(graph) -> dict | int:
    """Outputs of the graph exported in memory and run in onnxruntime (one thread), or an exit
    code after printing why that is not possible."""
    try:
        import onnxruntime  # noqa: F401 - only checks that it is installed
    except ImportError:
        print_error("--engine onnxruntime needs onnxruntime, which is not installed; install it with:\n"
                    "  pip install onnxruntime")
        return EXIT_USAGE
    from nodeeditor.onnx_io import ExportError
    from nodeeditor.onnx_io.runtime import run_in_onnxruntime

    try:
        return run_in_onnxruntime(graph)
    except ExportError as exc:
        print_error(f"the graph cannot be exported for onnxruntime: {exc}")
        return EXIT_GRAPH_ERROR
    except Exception as exc:  # noqa: BLE001 - onnxruntime's own errors (bad index values...) have many types
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print_error(f"onnxruntime failed to run the model: {first_line}")
        return EXIT_GRAPH_ERROR


def _cmd_check(args: argparse.Namespace) -> int:
    from nodeeditor.graph.checks import static_duplicate_warnings

    graph = open_graph_argument(args)
    print(describe_graph(graph))
    duplicates = static_duplicate_warnings(graph)
    errors = 0
    for node_id in graph.topological_order():
        node = graph.node(node_id)
        info = graph.node_info(node_id)
        what = node.op if node.kind == "op" else node.title if node.kind == "foreign" else node.kind
        types = ", ".join(str(t) for t in info.outputs.values()) or "-"
        print(f"{node.label:<32} {what:<16} {types}")
        if info.error and not info.blocked:
            errors += 1
            print(f"  error: {info.error}")
        elif info.blocked:
            print(f"  blocked: {info.error}")
        for warning in info.warnings:
            print(f"  warning: {warning}")
        if node_id in duplicates:
            print(f"  warning: {duplicates[node_id]}")
        training = _training_note(node)
        if training:
            print(f"  training: {training}")
        if node.kind not in ("output", "loss") and not graph.consumers(node_id):
            print("  warning: its result is not used by any node")
    if not graph.output_nodes():
        print("warning: the graph has no output nodes")
    try:
        from nodeeditor.onnx_io import opset_rules
        export_limit = opset_rules.MAX_OPSET
    except ImportError:   # the ONNX layer is not installed: nothing to say about exports
        export_limit = None
    if export_limit is not None and graph.opset > export_limit:   # it runs, but an export needs --opset
        print(f"warning: opset {graph.opset}: IndexFlow exports opsets up to {export_limit} "
              f"(export with --opset {export_limit} or lower)")
    for clash in graph.name_clashes():
        errors += 1
        print(f"error: {clash}")
    print(f"{errors} error(s)" if errors else "ok")
    return EXIT_GRAPH_ERROR if errors else EXIT_OK


def _training_note(node) -> str:
    """What ``check`` says about a node's training fields where they are not the defaults."""
    from nodeeditor.graph import LossNode, TrainableSource
    from nodeeditor.graph.nodes import has_training_switch

    if isinstance(node, TrainableSource) and node.trainable:
        return "trainable"
    if isinstance(node, LossNode):
        return f"{node.loss.title} loss"
    if has_training_switch(node):   # an operator, or a foreign op a gradient goes through
        notes = ([] if node.training else ["switched off (no gradient to its inputs)"]) + \
            ([f"loss coefficient {node.loss_coefficient:g}"] if node.loss_coefficient != 1.0 else [])
        return ", ".join(notes)
    return ""


def _cmd_examples(args: argparse.Namespace) -> int:
    from nodeeditor.graph import DEFAULT_EXAMPLE, list_examples

    infos = list_examples()
    width = max(len(i.name) for i in infos)
    for info in infos:
        mark = "*" if info.name == DEFAULT_EXAMPLE else " "
        print(f"{mark} {info.name:<{width}}  {info.title}: {info.description}")
    print("(* the default; run one with: indexflow run NAME)")
    return EXIT_OK


def _cmd_lessons(args: argparse.Namespace) -> int:
    """List the lessons (one line each), or print the one called ``args.lesson``; a lesson
    file that cannot be used is an error line naming the file and field (exit code 1)."""
    from nodeeditor.teaching.lessons import scan_lessons

    scan = scan_lessons()
    if args.lesson is not None:
        lesson = next((x for x in scan.lessons if x.id == args.lesson), None)
        if lesson is None:
            import difflib

            ids = [x.id for x in scan.lessons]
            close = [i for i in ids if args.lesson.lower() in i] or difflib.get_close_matches(args.lesson, ids, 3, 0.6)
            hint = f"did you mean {' or '.join(close)}?" if close else "indexflow lessons lists them"
            raise UsageError(f"no lesson {args.lesson!r}; {hint}")
        graph = lesson.example or lesson.graph_path.name
        print(f"{lesson.title}\n{lesson.case}: node {lesson.node} of {graph}"
              + (f" ({lesson.source})" if lesson.source else ""))
        for heading, text in (("What it does", lesson.what), ("Formula", lesson.formula),
                              ("Common mistake", lesson.mistake)):
            print(f"\n{heading}:\n{textwrap.indent(text, '  ')}")
        return EXIT_OK
    width = max((len(x.id) for x in scan.lessons), default=0)
    cases = max((len(x.case) for x in scan.lessons), default=0)
    for lesson in scan.lessons:
        print(f"{lesson.id:<{width}}  {lesson.case:<{cases}}  {lesson.title}")
    for error in scan.errors:
        print(f"error: {error}")
    print(f"({len(scan.lessons)} lessons; read one with: indexflow lessons ID; "
          "open them in the editor: Help > Lessons)")
    return EXIT_GRAPH_ERROR if scan.errors else EXIT_OK


def _register_run(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="evaluate a graph (or an ONNX model) and print (and optionally save) its outputs")
    p.add_argument("graph", nargs="?",
                   help="graph file, ONNX model (.onnx) or example name (default: the default example)")
    p.add_argument("--inputs", metavar="IN.npz",
                   help="set the graph inputs to the arrays of the same names in IN.npz before running")
    p.add_argument("--output", "-o", metavar="FILE.npz",
                   help="write the outputs to FILE.npz, one array per output name; .npz is added when the name "
                        "does not end in it (out -> out.npz); a folder is refused")
    p.add_argument("--print", action="store_true", help="print every output's values in full")
    p.add_argument("--engine", choices=("numpy", "onnxruntime"), default="numpy",
                   help="numpy: IndexFlow's own engine (default); onnxruntime: export in memory and run the "
                        "model in onnxruntime (optional dependency)")
    add_outside_files_option(p)
    p.set_defaults(handler=_cmd_run)


def _register_check(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check",
                       help="validate a graph and print every node's type, errors and warnings (no kernels run)")
    p.add_argument("graph", nargs="?",
                   help="graph file, ONNX model (.onnx) or example name (default: the default example)")
    add_outside_files_option(p)
    p.set_defaults(handler=_cmd_check)


def _register_examples(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("examples", help="list the bundled example graphs")
    p.set_defaults(handler=_cmd_examples)


def _register_lessons(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lessons", help="list the lessons (Help > Lessons in the editor), or print one")
    p.add_argument("lesson", nargs="?", metavar="ID", help="print this lesson's text")
    p.set_defaults(handler=_cmd_lessons)


for _name, _register in (("run", _register_run), ("check", _register_check), ("examples", _register_examples),
                         ("lessons", _register_lessons)):
    register_subcommand(_name, _register)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("indexflow")
    except Exception:  # noqa: BLE001 - not installed (running from a checkout)
        return "(not installed)"


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors start with ``indexflow: error:`` on the first line
    (the one form of a message that stops a command, :mod:`.cli_report`), the usage after it
    (argparse prints the usage first). Subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("indexflow").strip()
        print_error(f"{command}: {message}" if command else message)
        self.print_usage(sys.stderr)
        raise SystemExit(EXIT_USAGE)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every registered subcommand (plugins included)."""
    _load_plugins()
    parser = _Parser(
        prog="indexflow",
        description="IndexFlow: a node editor and headless engine for the ONNX indexing operators. "
                    "Without a subcommand, opens the editor (on GRAPH if given).")
    parser.add_argument("--version", action="version", version=f"indexflow {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for _, register in SUBCOMMANDS:
        register(sub)
    return parser


# ---------------------------------------------------------------------- the editor
def _no_display_reason() -> str | None:
    """Why Qt cannot open a window here (Linux without X11/Wayland and no platform chosen), or
    None. Qt itself would abort the process with a plugin message."""

    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return ("no display found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the editor cannot open a "
            "window. Run it on a desktop, or use the command line: indexflow run / check / export")


def _mistyped_command(word: str, commands: set[str]) -> str | None:
    """The command ``word`` is close to (``exmaples`` -> ``examples``) when ``word`` is no file,
    no bundled example and looks like no file name (no folder, no extension); else None (the
    editor opens it, or says it cannot)."""
    import difflib

    from nodeeditor.graph.examples import is_example

    if os.sep in word or "/" in word or "." in word or os.path.exists(word) or is_example(word):
        return None
    close = difflib.get_close_matches(word, sorted(commands), n=1, cutoff=0.75)
    return close[0] if close else None


def _open_editor(path: str | None) -> int:
    """Open the GUI editor (``nodeeditor.ui.app.run_app(path) -> int``). Without a display
    say so and stop (usage error); without PySide6 or pyqtgraph, say so and run the graph
    headless instead."""
    reason = _no_display_reason()
    if reason is not None:
        print(f"indexflow: {reason}", file=sys.stderr)
        return EXIT_USAGE
    try:
        from nodeeditor.ui.app import run_app
    except ModuleNotFoundError as exc:
        if exc.name not in ("nodeeditor.ui.app", "PySide6", "pyqtgraph") \
                and not str(exc.name).startswith(("PySide6.", "pyqtgraph.")):
            raise
        print(f"note: the graphical editor is not available ({exc.name} not found); "
              f"running {'the default example' if path is None else path} headless instead.", file=sys.stderr)
        return main(["run"] + ([path] if path else []))
    return int(run_app(path) or 0)


#: The error handler a ``surrogateescape`` stream gets (see :func:`_tolerant_streams`).
ESCAPE_OR_BACKSLASH = "indexflow-surrogateescape"


def _escape_or_backslash(exc: UnicodeError) -> tuple[str | bytes, int]:
    """``surrogateescape`` where it applies (U+DC80..U+DCFF stand for the bytes of a non-UTF-8
    file name, written back as those bytes, so the name prints as it is on disk), else
    ``backslashreplace`` (a lone surrogate such as U+D800 in a node name prints as ``\\ud800``)."""
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    char = exc.object[exc.start]
    if 0xDC80 <= ord(char) <= 0xDCFF:
        return bytes([ord(char) - 0xDC00]), exc.start + 1
    return char.encode("ascii", "backslashreplace").decode("ascii"), exc.start + 1


codecs.register_error(ESCAPE_OR_BACKSLASH, _escape_or_backslash)


def _tolerant_streams() -> None:
    """Let stdout and stderr print any text. A path that is not valid UTF-8 reaches Python as
    lone surrogates, which a strict stream (a UTF-8 locale other than C.UTF-8, or
    ``PYTHONIOENCODING=utf-8:strict``) refuses with a traceback: strict streams get
    ``backslashreplace`` (the path is shown as ``na\\xffme``). A ``surrogateescape`` stream
    (C.UTF-8) prints such a path as its bytes but refuses other lone surrogates (a node
    named ``"\\ud800"`` in a graph file): it gets :func:`_escape_or_backslash`. Other
    streams are left alone."""
    for stream in (sys.stdout, sys.stderr):
        errors = getattr(stream, "errors", None)
        if errors in ("strict", "surrogateescape") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace" if errors == "strict" else ESCAPE_OR_BACKSLASH)
            except (ValueError, OSError):  # pragma: no cover - a stream that cannot change
                pass


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``indexflow`` console script; returns the exit code. Makes the
    output streams tolerant first (:func:`_tolerant_streams`), and ends quietly with exit
    code 1 when the reader of its output goes away (``indexflow run | head``). A setting
    that does not parse (``INDEXFLOW_THREADS=abc``, read as the kernels load) is a usage
    error in one line naming the variable, not a traceback."""
    _tolerant_streams()
    try:
        # the kernels read their settings as they load: a bad one fails this import
        from ops.config import ConfigError
    except ValueError as exc:   # ConfigError is a ValueError
        print_error(str(exc))
        return EXIT_USAGE
    try:
        return _main(argv)
    except ConfigError as exc:
        print_error(str(exc))
        return EXIT_USAGE


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    names = {name for name, _ in SUBCOMMANDS}
    if not argv or (len(argv) == 1 and argv[0] not in names and not argv[0].startswith("-")):
        typo = _mistyped_command(argv[0], names) if argv else None
        if typo is not None:
            print_error(f"{argv[0]!r} is neither a command nor a graph file or example; did you mean "
                        f"'indexflow {typo}'?")
            return EXIT_USAGE
        return _open_editor(argv[0] if argv else None)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    if getattr(args, "handler", None) is None:
        parser.print_usage(sys.stderr)
        return EXIT_USAGE
    from nodeeditor.graph import GraphFileError

    try:
        return int(args.handler(args))
    except BrokenPipeError:
        # The reader closed the pipe: stop writing, and keep Python's exit-time flush of stdout
        # from failing again (https://docs.python.org/3/library/signal.html#note-on-sigpipe).
        import os

        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError, AttributeError):  # not a real file (captured output)
            pass
        return EXIT_GRAPH_ERROR
    except UsageError as exc:
        print_error(str(exc))
        return EXIT_USAGE
    except GraphFileError as exc:
        print_error(str(exc))
        return EXIT_GRAPH_ERROR
