"""nodeeditor.graph and the CLI's run path load neither Qt nor onnx."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_graph_layer_imports_no_qt_and_no_onnx():
    code = ("import sys, nodeeditor.graph as g; g.Engine(g.default_example()).run(); "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph', 'onnx', 'onnxruntime')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
