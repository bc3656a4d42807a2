"""A setting that does not parse stops `indexflow` with one line naming the variable (exit 2),
not a traceback: the kernels read their settings as they load, before any command runs."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.parametrize("name, value", [("INDEXFLOW_THREADS", "abc"), ("INDEXFLOW_THREADS", "1.5"),
                                         ("INDEXFLOW_BUFFER_POOL_MB", "inf")])
def test_a_bad_setting_is_one_line_and_exit_2(name, value, tmp_path):
    env = dict(os.environ, **{name: value})
    done = subprocess.run([sys.executable, "-m", "nodeeditor", "examples"], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"indexflow: error: environment variable {name}={value!r} is not ")
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_an_infinite_source_cap_keeps_the_default(tmp_path):
    env = dict(os.environ, INDEXFLOW_MAX_SOURCE_MB="inf")
    done = subprocess.run([sys.executable, "-m", "nodeeditor", "run", "embedding_lookup"], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


def test_a_state_folder_that_is_a_file_stops_the_editor_in_one_line(tmp_path):
    """The editor ended in a FileExistsError traceback."""
    afile = tmp_path / "afile"
    afile.write_text("")
    env = dict(os.environ, INDEXFLOW_STATE_DIR=str(afile), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-m", "nodeeditor"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done.stderr
    assert f"INDEXFLOW_STATE_DIR={str(afile)!r} cannot be the editor's folder" in done.stderr
    assert "Traceback" not in done.stderr
