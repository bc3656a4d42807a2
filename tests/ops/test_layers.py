"""The layer rules: import-linter contracts in pyproject.toml pass, and ``import ops`` (and
using it) loads no Qt, no pyqtgraph and no onnx."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]  # tests/ops/test_layers.py -> project root


def _contracts():
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["importlinter"]["contracts"]


def test_pyproject_has_the_ops_contracts():
    contracts = _contracts()
    forbidden = [c for c in contracts if c["type"] == "forbidden"]
    assert any("ops" in c["source_modules"] and "nodeeditor" in c["forbidden_modules"]
               for c in forbidden), "missing: ops imports nothing from nodeeditor"
    assert any({"ops", "nodeeditor.graph"} <= set(c["source_modules"])
               and {"PySide6", "pyqtgraph", "onnx"} <= set(c["forbidden_modules"])
               for c in forbidden), "missing: ops and nodeeditor.graph stay headless"


def _lint_imports():
    script = textwrap.dedent("""
        import sys
        from importlinter.cli import lint_imports
        sys.exit(lint_imports(no_cache=True))
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    return proc.returncode, proc.stdout + proc.stderr


def test_import_linter_ops_contracts_kept():
    """The two contracts about ops (bottom layer; headless) are each reported KEPT."""
    _, out = _lint_imports()
    for c in _contracts():
        if "ops" in c.get("source_modules", []):
            assert f"{c['name']} KEPT" in out, out


def test_import_linter_all_contracts_pass():
    code, out = _lint_imports()
    assert code == 0, out
    n = len(_contracts())
    assert f"Contracts: {n} kept, 0 broken." in out, out


def test_import_ops_loads_no_qt_pyqtgraph_or_onnx():
    script = textwrap.dedent("""
        import sys
        import numpy as np
        import ops
        # use it too: lazy imports inside functions must not pull them in either
        d = np.arange(6.0).reshape(2, 3)
        ops.run_op("Gather", [d, np.array([1, 0])], {"axis": 1})
        ops.run_op("ScatterND", [d, np.array([[1]]), np.ones((1, 3))], {"reduction": "add"})
        ops.index_map("GatherND", [d, np.array([[1, 2]])]).flat_offsets()
        ops.infer_types("TensorScatter", [ops.TensorType("float32", (2, 4, 3)),
                                          ops.TensorType("float32", (2, 1, 3)), None], opset=24)
        try:
            ops.gather(d, np.array([5]))
        except ops.OpError:
            pass
        bad = sorted(m for m in sys.modules
                     if m.split(".")[0] in ("PySide6", "pyqtgraph", "onnx", "onnxruntime",
                                            "nodeeditor"))
        print("LOADED:", bad)
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "LOADED: []" in proc.stdout, proc.stdout
