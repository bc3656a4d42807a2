"""The bundled example graphs in ``resources/examples`` (``*.ifg.json``).

Each example's title and one-line description are its graph's ``name`` and
``description`` settings. The folder is found beside the package (a source checkout
or an editable install) or where a regular install puts it (:mod:`.resources`).

:func:`resolve_graph_argument` is the one place that decides whether a graph named on a
command line (``indexflow run X``, ``indexflow export X``, ``indexflow X``) is a file or a
bundled example.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .document import Graph
from .fileformat import EXTENSION, GraphFileError, load_graph
from .resources import resource_dir

#: ``resources/examples``, or its installed copy (:func:`.resources.resource_dir`).
EXAMPLES_DIR = resource_dir("examples")
DEFAULT_EXAMPLE = "embedding_lookup"


@dataclass(frozen=True)
class ExampleInfo:
    """One bundled example: ``name`` (the file stem, what ``load_example`` takes), ``title``,
    one-line ``description`` and ``path``."""

    name: str
    title: str
    description: str
    path: Path


def list_examples() -> list[ExampleInfo]:
    """Every bundled example, the default first, then by name."""
    infos = []
    for path in sorted(EXAMPLES_DIR.glob(f"*{EXTENSION}")):
        name = path.name[: -len(EXTENSION)]
        try:
            settings = json.loads(path.read_text(encoding="utf-8")).get("settings", {})
        except (OSError, ValueError) as exc:
            raise GraphFileError(path, f"bundled example cannot be read: {exc}") from None
        infos.append(ExampleInfo(name, settings.get("name", name), settings.get("description", ""), path))
    infos.sort(key=lambda e: (e.name != DEFAULT_EXAMPLE, e.name))
    return infos


def example_path(name: str) -> Path:
    """The file of the example called ``name``; KeyError listing the known names otherwise."""
    path = EXAMPLES_DIR / f"{name}{EXTENSION}"
    if not path.is_file():
        known = ", ".join(e.name for e in list_examples())
        raise KeyError(f"no example {name!r}; examples are: {known}")
    return path


def load_example(name: str) -> Graph:
    """A fresh Graph of the example called ``name``."""
    return load_graph(example_path(name))


def default_example() -> Graph:
    """The graph the app and ``indexflow run`` open when given no file."""
    return load_example(DEFAULT_EXAMPLE)


def is_example(name: str) -> bool:
    """Whether ``name`` names a bundled example (False, never an exception, for a name the
    system cannot look up: too long, or holding a NUL)."""
    try:
        return (EXAMPLES_DIR / f"{name}{EXTENSION}").is_file()
    except (OSError, ValueError):
        return False


def names_a_path(spec: str | Path) -> bool:
    """Whether ``spec`` is to be opened as a path rather than looked up as an example name:
    something exists there, or the system refuses to look (a name too long, a folder this
    user may not enter): then loading it raises GraphFileError with the system's reason,
    where ``Path.exists`` would raise OSError."""
    try:
        return Path(spec).exists()
    except OSError:
        return True
    except ValueError:  # an embedded NUL: no file can have that name
        return False


class GraphArgumentError(GraphFileError):
    """A graph argument names neither a file nor a bundled example. ``str(exc)`` is
    ``"<argument>: <problem>"``; ``argument`` is the text as given."""

    def __init__(self, argument: str | Path, problem: str) -> None:
        super().__init__(argument, problem)
        self.argument = str(argument)


@dataclass(frozen=True)
class GraphArgument:
    """What a graph argument names: the file to load, and the example's name when it named a
    bundled example (an editor opens that as a template, not as the file)."""

    path: Path
    example: str | None = None


def resolve_graph_argument(text: str | Path) -> GraphArgument:
    """What a graph named on a command line stands for. Something there (or a name the system
    refuses to look up, see :func:`names_a_path`) is that file, whatever else it could be;
    otherwise a bundled example of that name. :class:`GraphArgumentError` naming ``text``
    when it is neither: a bare name (no folder, no suffix) is taken for a mistyped example
    and gets a suggestion, anything else is a file that is not there."""
    if names_a_path(text):
        return GraphArgument(Path(text))
    if isinstance(text, str) and is_example(text):
        return GraphArgument(example_path(text), text)
    spelled = str(text)
    if Path(spelled).name != spelled or "." in spelled:
        raise GraphArgumentError(spelled, "file not found")
    raise GraphArgumentError(spelled, "no such file, and no bundled example has that name"
                             + example_suggestion(spelled))


def open_graph(spec: str | Path | None, *, allow_outside_files: bool = False) -> Graph:
    """What ``indexflow run SPEC`` opens: None -> the default example; otherwise what
    :func:`resolve_graph_argument` says SPEC names. GraphArgumentError when it names
    nothing, GraphFileError when the file cannot be read. File sources read files outside
    the graph's folder only with ``allow_outside_files`` (see :func:`load_graph`)."""
    if spec is None:
        return default_example()
    return load_graph(resolve_graph_argument(spec).path, allow_outside_files=allow_outside_files)


def example_suggestion(spec: str) -> str:
    """``; did you mean scatterelements_examples?`` for a near miss, else where to look."""
    import difflib

    names = [e.name for e in list_examples()]
    close = [n for n in names if spec.lower() in n] or difflib.get_close_matches(spec.lower(), names, n=3, cutoff=0.5)
    if close:
        return f"; did you mean {' or '.join(close[:3])}?"
    return " (indexflow examples lists them)"
