"""Copying to the clipboard must not crash the process when it exits (a QMimeData still held by
the clipboard at interpreter teardown used to segfault)."""
import subprocess
import sys
import textwrap


def test_process_exits_cleanly_after_a_copy():
    script = textwrap.dedent("""
        import os
        os.environ["QT_QPA_PLATFORM"] = "offscreen"
        from PySide6 import QtWidgets
        from nodeeditor.ui import clipboard
        app = QtWidgets.QApplication([])
        clipboard.copy_to_clipboard({"format": "indexflow-graph", "nodes": [{"id": "a"}], "edges": []})
        assert clipboard.clipboard_data()["nodes"][0]["id"] == "a"
        print("copied")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "copied" in done.stdout
