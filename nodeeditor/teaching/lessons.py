"""Lessons: one short text per op case, beside a worked example graph (Help > Lessons,
``indexflow lessons``).

A lesson is a TOML file in ``resources/lessons`` (or its installed copy, see
:mod:`.resources`), so a teacher adds one without code; the README documents the format:

    id = "scatter9-axis0"                 # unique; letters, digits, "-" and "_"
    title = "Scatter (opset 9): rows by index"
    op = "Scatter"                        # one of the seven ops
    reduction = "add"                     # optional; only for ops with a reduction attribute
    example = "scatter9_examples"         # a bundled example, or instead:
    # graph = "my_graph.ifg.json"         # a graph file beside the lesson
    node = "ex1_op"                       # the id of the operator node the lesson is about
    quiz = "place"                        # optional: "fill" or "place" (see teaching.quiz)
    source = "ONNX Scatter-9, Example 1"  # optional: where the worked example comes from
    what = "..."                          # what the op does, in plain words
    formula = "..."                       # the formula
    mistake = "..."                       # one common mistake

Lessons are listed in the order of their file names. Loading validates everything, the graph
and the node included: a :class:`LessonError` names the file and the field. TOML is read with
the standard library's ``tomllib`` (Python 3.11+) or, on 3.10, the ``tomli`` package it was
taken from (a dependency there). No Qt; call from any one thread.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ops
from nodeeditor.graph import nodes as N
from nodeeditor.graph.document import Graph
from nodeeditor.graph.engine import Engine
from nodeeditor.graph.examples import example_path, is_example
from nodeeditor.graph.fileformat import GraphFileError, load_graph
from nodeeditor.graph.resources import resource_dir

from .quiz import Quiz, QuizMode, default_mode

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: ``resources/lessons``, or its installed copy (:func:`.resources.resource_dir`).
LESSONS_DIR = resource_dir("lessons")
LESSON_EXTENSION = ".toml"

_REQUIRED = ("id", "title", "op", "node", "what", "formula", "mistake")
_OPTIONAL = ("reduction", "example", "graph", "quiz", "source")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")


class LessonError(ValueError):
    """A lesson file that cannot be used. ``str(exc)`` is ``"<file>: <field>: <problem>"``
    (no field when the file as a whole is wrong)."""

    def __init__(self, path: Path | str, field_name: str | None, problem: str) -> None:
        self.path, self.field, self.problem = Path(path), field_name, problem
        super().__init__(f"{path}: {field_name}: {problem}" if field_name else f"{path}: {problem}")


@dataclass(frozen=True)
class Lesson:
    """One validated lesson (see the module docstring for the fields). ``graph_path`` is the
    example's or the graph file's path; ``example`` the bundled example's name (None for a
    graph beside the lesson); ``reduction`` None for ops without one; ``path`` the lesson file."""

    id: str
    title: str
    op: str
    node: str
    what: str
    formula: str
    mistake: str
    graph_path: Path
    path: Path
    example: str | None = None
    reduction: str | None = None
    quiz: QuizMode = QuizMode.FILL
    source: str = ""

    @property
    def case(self) -> str:
        """``ScatterElements, reduction add`` / ``Gather``: what the lesson is about."""
        return f"{self.op}, reduction {self.reduction}" if self.reduction else self.op

    def load_graph(self) -> Graph:
        """A fresh copy of the lesson's graph."""
        return load_graph(self.graph_path)

    def make_quiz(self, graph: Graph | None = None) -> Quiz:
        """A quiz on the lesson's node with the inputs and attributes it has in ``graph`` (a
        copy of the lesson's graph, perhaps edited; None: the lesson's own file), ``seed``
        None; :meth:`Quiz.another` makes new ones."""
        inputs, attrs = node_inputs(self.load_graph() if graph is None else graph, self.node)
        return self.quiz_on(inputs, attrs)

    def quiz_on(self, inputs: list, attrs: dict[str, Any]) -> Quiz:
        """The lesson's quiz (its op and mode) on these inputs and attributes (``seed`` None)."""
        return Quiz(self.op, inputs, attrs, self.quiz)


@dataclass(frozen=True)
class LessonScan:
    """What a folder holds: the good lessons in file-name order, and one error per bad file."""

    lessons: tuple[Lesson, ...] = ()
    errors: tuple[LessonError, ...] = field(default=())


def node_inputs(graph: Graph, node_id: str) -> tuple[list, dict[str, Any]]:
    """The input values (schema order, None for an unconnected optional input) and the
    explicit attributes of operator node ``node_id``, evaluating what feeds it. GraphFileError
    is not raised here; an input that cannot be computed raises ValueError with the engine's
    message."""
    node = graph.node(node_id)
    engine = Engine(graph, keep_intermediates=True)
    sources = {port: graph.edge_into(node_id, port) for port in node.input_ports()}
    wanted = [e.src for e in sources.values() if e is not None]
    result = engine.run(wanted)
    if not result.ok:
        raise ValueError("; ".join(message for _, message in result.errors()) or "the inputs were not computed")
    inputs = [None if edge is None else engine.value(edge.src, edge.src_port) for edge in sources.values()]
    return inputs, dict(node.attributes)


# ---------------------------------------------------------------------- reading
def read_lesson(path: Path | str) -> Lesson:
    """The lesson in ``path``, validated (fields, graph, node); LessonError otherwise."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            raw = tomllib.load(f)
    except OSError as exc:
        raise LessonError(path, None, f"cannot be read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise LessonError(path, None, f"not valid TOML: {exc}") from None
    return _lesson_from(raw, path)


def _lesson_from(raw: Mapping[str, Any], path: Path) -> Lesson:
    unknown = sorted(set(raw) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise LessonError(path, unknown[0], f"unknown field; the fields are {', '.join(_REQUIRED + _OPTIONAL)}")
    for name in _REQUIRED:
        if name not in raw:
            raise LessonError(path, name, "missing (every lesson has " + ", ".join(_REQUIRED) + ")")
    for name in _REQUIRED + _OPTIONAL:
        if name in raw and (not isinstance(raw[name], str) or not raw[name].strip()):
            raise LessonError(path, name, f"must be a non-empty text, not {raw[name]!r}")
    text = {name: raw[name].strip() for name in raw}
    if not _ID.fullmatch(text["id"]):
        raise LessonError(path, "id", f"{text['id']!r}: use letters, digits, '-' and '_' only")
    op = text["op"]
    if op not in ops.OP_NAMES:
        raise LessonError(path, "op", f"{op!r} is not one of {', '.join(ops.OP_NAMES)}")
    reduction = _reduction(text, path)
    graph_path, example = _graph_source(text, path)
    quiz = _quiz_mode(text, path, reduction)
    lesson = Lesson(id=text["id"], title=text["title"], op=op, node=text["node"], what=text["what"],
                    formula=text["formula"], mistake=text["mistake"], graph_path=graph_path, path=path,
                    example=example, reduction=reduction, quiz=quiz, source=text.get("source", ""))
    _check_node(lesson)
    return lesson


def _reduction(text: Mapping[str, str], path: Path) -> str | None:
    opdef = ops.get_opdef(text["op"])
    if opdef.reductions is None:
        if "reduction" in text:
            raise LessonError(path, "reduction", f"{text['op']} has no reduction attribute; leave the field out")
        return None
    reduction = text.get("reduction", "none")
    if reduction not in opdef.reductions.names:
        raise LessonError(path, "reduction", f"{reduction!r} is not one of {', '.join(opdef.reductions.names)}")
    return reduction


def _graph_source(text: Mapping[str, str], path: Path) -> tuple[Path, str | None]:
    if ("example" in text) == ("graph" in text):
        raise LessonError(path, "example", "give either example (a bundled example) or graph (a file beside "
                                           "the lesson), not both and not neither")
    if "example" in text:
        name = text["example"]
        if not is_example(name):
            raise LessonError(path, "example", f"no bundled example {name!r} (indexflow examples lists them)")
        return example_path(name), name
    graph_path = path.parent / text["graph"]
    if not graph_path.is_file():
        raise LessonError(path, "graph", f"no file {graph_path}")
    return graph_path, None


def _quiz_mode(text: Mapping[str, str], path: Path, reduction: str | None) -> QuizMode:
    if "quiz" not in text:
        return default_mode(text["op"], reduction)
    try:
        mode = QuizMode(text["quiz"])
    except ValueError:
        raise LessonError(path, "quiz", f"{text['quiz']!r} is not one of "
                                        f"{', '.join(m.value for m in QuizMode)}") from None
    if mode is QuizMode.PLACE and not ops.get_opdef(text["op"]).writes:
        raise LessonError(path, "quiz", f"{text['op']} is a gather: nothing lands anywhere, use fill")
    return mode


def _check_node(lesson: Lesson) -> None:
    where = "example" if lesson.example else "graph"
    try:
        graph = lesson.load_graph()
    except GraphFileError as exc:
        raise LessonError(lesson.path, where, f"the graph cannot be read: {exc}") from None
    if not graph.has_node(lesson.node):
        ops_here = [n.id for n in graph.nodes if isinstance(n, N.OperatorNode)]
        raise LessonError(lesson.path, "node", f"{lesson.graph_path.name} has no node {lesson.node!r}; "
                                               f"its operator nodes are {', '.join(ops_here) or 'none'}")
    node = graph.node(lesson.node)
    if not isinstance(node, N.OperatorNode) or node.op != lesson.op:
        what = node.op if isinstance(node, N.OperatorNode) else f"a {node.kind} node"
        raise LessonError(lesson.path, "node", f"{lesson.node!r} is {what}, not {lesson.op}")
    if lesson.reduction is not None:
        actual = node.schema.check_attributes(node.attributes).get("reduction", "none")
        if actual != lesson.reduction:
            raise LessonError(lesson.path, "reduction", f"the node {lesson.node!r} has reduction {actual}, "
                                                        f"the lesson says {lesson.reduction}")


# ---------------------------------------------------------------------- listing
def scan_lessons(folder: Path | str | None = None) -> LessonScan:
    """Every ``*.toml`` in ``folder`` (default :data:`LESSONS_DIR`) by file name: the good
    lessons and an error for each bad file (a second lesson with an id already used is one)."""
    folder = LESSONS_DIR if folder is None else Path(folder)
    lessons: list[Lesson] = []
    errors: list[LessonError] = []
    seen: dict[str, Path] = {}
    for path in sorted(folder.glob(f"*{LESSON_EXTENSION}")):
        try:
            lesson = read_lesson(path)
        except LessonError as exc:
            errors.append(exc)
            continue
        if lesson.id in seen:
            errors.append(LessonError(path, "id", f"{lesson.id!r} is used by {seen[lesson.id].name} already"))
            continue
        seen[lesson.id] = path
        lessons.append(lesson)
    return LessonScan(tuple(lessons), tuple(errors))


def list_lessons(folder: Path | str | None = None) -> list[Lesson]:
    """The lessons of ``folder`` (see :func:`scan_lessons`); the first bad file's LessonError."""
    scan = scan_lessons(folder)
    if scan.errors:
        raise scan.errors[0]
    return list(scan.lessons)


def find_lesson(lesson_id: str, folder: Path | str | None = None) -> Lesson:
    """The lesson called ``lesson_id``; KeyError naming the known ids otherwise."""
    lessons = scan_lessons(folder).lessons
    for lesson in lessons:
        if lesson.id == lesson_id:
            return lesson
    raise KeyError(f"no lesson {lesson_id!r}; lessons are: {', '.join(x.id for x in lessons)}")
