"""Where the bundled data folders (``resources/<name>``: the example graphs, the lessons) are.

:func:`resource_dir` is the one place that decides it: the folder of the source tree (a
checkout or an editable install), else the copy a regular install puts in
``<prefix>/share/indexflow/<name>`` (pyproject's ``[tool.setuptools.data-files]``, which must
list every file pattern of the folder).
"""
from __future__ import annotations

import sys
from pathlib import Path


def resource_dir(name: str) -> Path:
    """``resources/<name>`` of the source tree when it exists, else
    ``<sys.prefix>/share/indexflow/<name>`` (which need not exist either)."""
    in_tree = Path(__file__).resolve().parents[2] / "resources" / name
    if in_tree.is_dir():
        return in_tree
    return Path(sys.prefix) / "share" / "indexflow" / name
