"""The bundled example graphs in ``resources/examples`` (``*.ifg.json``).

Each example's title and one-line description are its graph's ``name`` and
``description`` settings. The folder is found beside the package (a source checkout
or an editable install).
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from .document import Graph
from .fileformat import EXTENSION, GraphFileError, load_graph


def _examples_dir() -> Path:
    """``resources/examples`` of the source tree (a checkout or an editable install), else the
    copy a regular install puts in ``<prefix>/share/indexflow/examples`` (pyproject data-files)."""
    in_tree = Path(__file__).resolve().parents[2] / "resources" / "examples"
    if in_tree.is_dir():
        return in_tree
    return Path(sys.prefix) / "share" / "indexflow" / "examples"


EXAMPLES_DIR = _examples_dir()
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


def open_graph(spec: str | Path | None) -> Graph:
    """What ``indexflow run SPEC`` opens: None -> the default example; an existing file ->
    that file; otherwise the bundled example of that name. GraphFileError when it is
    neither (or the file cannot be read)."""
    if spec is None:
        return default_example()
    path = Path(spec)
    if names_a_path(path):
        return load_graph(path)
    if isinstance(spec, str) and is_example(spec):
        return load_example(spec)
    raise GraphFileError(path, "no such file, and no bundled example has that name" + example_suggestion(str(spec)))


def example_suggestion(spec: str) -> str:
    """``; did you mean scatterelements_examples?`` for a near miss, else where to look."""
    import difflib

    names = [e.name for e in list_examples()]
    close = [n for n in names if spec.lower() in n] or difflib.get_close_matches(spec.lower(), names, n=3, cutoff=0.5)
    if close:
        return f"; did you mean {' or '.join(close[:3])}?"
    return " (indexflow examples lists them)"
