"""ops.config: every INDEXFLOW_* environment variable, its default, a good value and a bad one;
and that no other module reads one."""
from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ops import config

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch):
    for var in config.VARIABLES:
        monkeypatch.delenv(var.name, raising=False)


@pytest.mark.parametrize("accessor, var", [(config.accel, config.ACCEL), (config.stream_stores, config.STREAM_STORES)])
@pytest.mark.parametrize("value, expected", [
    (None, True), ("", True), ("   ", True), ("1", True), ("yes", True), ("on", True), ("anything", True),
    ("0", False), ("false", False), ("No", False), (" OFF ", False),
])
def test_switches_are_on_unless_set_to_an_off_word(monkeypatch, accessor, var, value, expected):
    if value is not None:
        monkeypatch.setenv(var.name, value)
    assert accessor() is expected


@pytest.mark.parametrize("value, expected", [(None, None), ("", None), ("3", 3), (" 2 ", 2), ("0", 1), ("-4", 1)])
def test_threads_is_a_whole_number_of_at_least_one_or_none_when_unset(monkeypatch, value, expected):
    if value is not None:
        monkeypatch.setenv("INDEXFLOW_THREADS", value)
    assert config.threads() == expected


@pytest.mark.parametrize("accessor, name, value, what", [
    (config.threads, "INDEXFLOW_THREADS", "two", "a whole number of threads"),
    (config.threads, "INDEXFLOW_THREADS", "1.5", "a whole number of threads"),
    (config.buffer_pool_bytes, "INDEXFLOW_BUFFER_POOL_MB", "lots", "a finite number of MiB, 0 or more"),
    (config.buffer_pool_bytes, "INDEXFLOW_BUFFER_POOL_MB", "inf", "a finite number of MiB, 0 or more"),
    (config.buffer_pool_bytes, "INDEXFLOW_BUFFER_POOL_MB", "-1", "a finite number of MiB, 0 or more"),
    (config.recovery_ms, "INDEXFLOW_RECOVERY_MS", "soon", "a whole number of milliseconds"),
])
def test_a_bad_number_is_an_error_naming_the_variable_and_the_value(monkeypatch, accessor, name, value, what):
    monkeypatch.setenv(name, value)
    with pytest.raises(config.ConfigError) as info:
        accessor()
    assert str(info.value) == f"environment variable {name}={value!r} is not {what}"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("value, expected", [(None, 512 << 20), ("0", 0), ("1.5", 3 << 19), ("64", 64 << 20)])
def test_buffer_pool_bytes_is_mebibytes_with_a_default_of_512(monkeypatch, value, expected):
    if value is not None:
        monkeypatch.setenv("INDEXFLOW_BUFFER_POOL_MB", value)
    assert config.buffer_pool_bytes() == expected


@pytest.mark.parametrize("value, expected", [(None, 2048 << 20), ("1", 1 << 20), ("0.5", 1 << 19), ("big", 2048 << 20),
                                             ("inf", 2048 << 20), ("nan", 2048 << 20), ("1e400", 2048 << 20),
                                             ("-5", 2048 << 20), ("0", 2048 << 20)])
def test_max_source_bytes_is_mebibytes_and_a_bad_value_falls_back_to_2048(monkeypatch, value, expected):
    if value is not None:
        monkeypatch.setenv("INDEXFLOW_MAX_SOURCE_MB", value)
    assert config.max_source_bytes() == expected


def test_max_source_bytes_follows_every_change_of_the_variable(monkeypatch):
    """The parsed value is remembered only while the variable's text stays the same."""
    for value, expected in (("1", 1 << 20), ("2", 2 << 20), ("2", 2 << 20), ("big", 2048 << 20), ("0.5", 1 << 19)):
        monkeypatch.setenv("INDEXFLOW_MAX_SOURCE_MB", value)
        assert config.max_source_bytes() == expected
    monkeypatch.delenv("INDEXFLOW_MAX_SOURCE_MB")
    assert config.max_source_bytes() == 2048 << 20


def test_state_dir_is_the_path_given_or_none(monkeypatch, tmp_path):
    assert config.state_dir() is None
    monkeypatch.setenv("INDEXFLOW_STATE_DIR", "")
    assert config.state_dir() is None
    monkeypatch.setenv("INDEXFLOW_STATE_DIR", str(tmp_path / "state"))
    assert config.state_dir() == tmp_path / "state"


@pytest.mark.parametrize("value, expected", [(None, 2_000), ("50", 50), (" 600000 ", 600_000)])
def test_recovery_ms_defaults_to_two_seconds(monkeypatch, value, expected):
    if value is not None:
        monkeypatch.setenv("INDEXFLOW_RECOVERY_MS", value)
    assert config.recovery_ms() == expected


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_only_ops_config_names_an_indexflow_variable_in_code():
    """Docstrings may mention a variable; code that reads one goes through ops.config."""
    readers = {}
    for folder in ("ops", "nodeeditor"):
        for path in (ROOT / folder).rglob("*.py"):
            names = {s for s in _string_constants(path) if re.fullmatch(r"INDEXFLOW_[A-Z_]+", s)}
            if names:
                readers[str(path.relative_to(ROOT))] = names
    assert set(readers) == {"ops/config.py"}
    assert readers["ops/config.py"] == {v.name for v in config.VARIABLES}


def test_every_variable_is_in_the_readmes_environment_table():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Environment variables", 1)[1].split("\n## ", 1)[0]
    rows = {m.group(1) for m in re.finditer(r"^\| `(INDEXFLOW_[A-Z_]+)`", section, re.MULTILINE)}
    assert rows == {v.name for v in config.VARIABLES}


def test_the_import_time_readers_take_their_values_from_the_environment():
    code = ("import ops.accel, ops.buffers, ops.parallel\n"
            "print(ops.parallel.threads(), ops.buffers._cap_bytes, ops.accel.STREAM_MIN_BYTES,"
            " ops.accel._state['enabled'])\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), INDEXFLOW_THREADS="3", INDEXFLOW_BUFFER_POOL_MB="2",
               INDEXFLOW_STREAM_STORES="off", INDEXFLOW_ACCEL="no")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", str(2 << 20), str(1 << 62), "False"]
    env["INDEXFLOW_THREADS"] = "many"
    out = subprocess.run([sys.executable, "-c", "import ops"], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "environment variable INDEXFLOW_THREADS='many' is not a whole number of threads" in out.stderr
