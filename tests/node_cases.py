"""ONNX's node-test cases, generated in memory one generator module at a time.

onnx 1.23 ships no data files: ``onnx.backend.test.loader.load_model_tests(kind="node")``
imports every module of ``onnx.backend.test.case.node``, and each import runs that module's
``export_*`` functions, which compute the expected outputs. Three of them (AveragePool, LpPool,
MaxPool) compute theirs with ``onnx.reference``'s pure-Python pooling: about 20 s of CPU per
process, four fifths of the whole, in every pytest-xdist worker at collection. So the tests ask
for the modules they need: :func:`cases` imports only those, once per process, and remembers
which cases each module made.
"""
from __future__ import annotations

import importlib
import pkgutil
import sys
import warnings

import onnx

#: The generator modules of the seven indexing ops (29 cases in onnx 1.23).
INDEXING_MODULES = ("gather", "gatherelements", "gathernd", "scatter", "scatterelements", "scatternd",
                    "tensorscatter")

_PACKAGE = "onnx.backend.test.case.node"
_made: dict[str, list] = {}


def module_names() -> list[str]:
    """Every generator module, as its name under ``onnx.backend.test.case.node`` (a subpackage's
    modules as ``package.module``), in the order ONNX's own loader imports them."""
    package = importlib.import_module(_PACKAGE)
    names = []

    def walk(path, prefix: str) -> None:
        for _loader, name, is_package in pkgutil.iter_modules(path):
            full = f"{prefix}{name}"
            if not onnx.ONNX_ML and full.startswith("ai_onnx_ml"):
                continue
            if is_package:
                walk(importlib.import_module(f"{_PACKAGE}.{full}").__path__, f"{full}.")
            else:
                names.append(full)

    walk(package.__path__, "")
    return names


def cases(modules=None, skip=()) -> list:
    """The cases (``onnx.backend.test.case.test_case.TestCase``) that the named generator modules
    make (every module when ``modules`` is None), leaving out the modules in ``skip``, in the
    order given. Each module runs once per process; the generators of unrelated ops warn about
    overflow, and those warnings are silenced."""
    from onnx.backend.test.case.node import _NodeTestCases

    wanted = module_names() if modules is None else list(modules)
    made = []
    for name in wanted:
        if name in skip:
            continue
        if name not in _made:
            module = f"{_PACKAGE}.{name}"
            if module in sys.modules:  # imported by ONNX's own loader: its cases cannot be told apart
                raise RuntimeError(f"{module} was imported before node_cases.cases(); load node cases "
                                   "through tests/node_cases.py only")
            before = len(_NodeTestCases)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                importlib.import_module(module)
            _made[name] = _NodeTestCases[before:]
        made.extend(_made[name])
    return made
