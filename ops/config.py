"""Every ``INDEXFLOW_*`` environment variable, read here and nowhere else.

``ops`` is the bottom layer, so every layer (the editor's state folder too) reads its
settings from this module. Each accessor reads the environment when it is called; the caller
decides when that is (see :data:`VARIABLES`: ``ops.accel``, ``ops.buffers`` and
``ops.parallel`` read theirs once, at import; the others on each use).

Parsing, the same for every variable:

* unset, or only spaces: the default;
* switches (:func:`flag`): ``0``, ``false``, ``no``, ``off`` (any case) mean off, anything
  else on;
* numbers (:func:`number`): a bad value raises :class:`ConfigError` naming the variable and
  the value, except ``INDEXFLOW_MAX_SOURCE_MB``, which falls back to its default (a typo
  there must not stop the editor from opening a graph).

The README's "Environment variables" table lists :data:`VARIABLES` (a test compares them).
"""
from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

_N = TypeVar("_N", int, float)

#: Values of a switch that mean off (compared stripped and lower-cased).
OFF_WORDS = ("0", "false", "no", "off")


class ConfigError(ValueError):
    """An environment variable holds a value its accessor cannot use."""


@dataclass(frozen=True)
class Variable:
    """One environment variable: its ``name``, the ``default`` (as text) and what it sets."""

    name: str
    default: str
    doc: str
    read: str  # "at import" or "per use"


ACCEL = Variable("INDEXFLOW_ACCEL", "1", "0 turns the compiled kernels (numba) off", "at import")
THREADS = Variable("INDEXFLOW_THREADS", "CPUs this process may use",
                   "at most this many threads per kernel call (1: no threads)", "at import")
BUFFER_POOL_MB = Variable("INDEXFLOW_BUFFER_POOL_MB", "512",
                          "MiB kept for reusing large outputs (0: none)", "at import")
STREAM_STORES = Variable("INDEXFLOW_STREAM_STORES", "1",
                         "0 turns off non-temporal stores for gather outputs of 8 MiB or more", "at import")
MAX_SOURCE_MB = Variable("INDEXFLOW_MAX_SOURCE_MB", "2048",
                         "largest tensor a source, file, sidecar or operator output may be, in MiB", "per use")
STATE_DIR = Variable("INDEXFLOW_STATE_DIR", "the platform's application data folder",
                     "folder for the editor's settings, recovery files and error log", "per use")
RECOVERY_MS = Variable("INDEXFLOW_RECOVERY_MS", "2000",
                       "milliseconds after the last edit before the recovery file is written",
                       "per use (each new window)")

VARIABLES: tuple[Variable, ...] = (ACCEL, THREADS, BUFFER_POOL_MB, STREAM_STORES, MAX_SOURCE_MB, STATE_DIR,
                                   RECOVERY_MS)


def text(var: Variable) -> str | None:
    """The variable's value with surrounding spaces removed; None when unset or blank."""
    value = os.environ.get(var.name)
    if value is None or not value.strip():
        return None
    return value.strip()


def flag(var: Variable, default: bool = True) -> bool:
    """A switch: ``default`` when unset, off for :data:`OFF_WORDS`, on for anything else."""
    value = text(var)
    if value is None:
        return default
    return value.lower() not in OFF_WORDS


def number(var: Variable, default: _N, convert: Callable[[str], _N], what: str) -> _N:
    """``convert(value)``, ``default`` when unset; ConfigError (naming the variable, the value
    and ``what`` it should be) when ``convert`` refuses the value."""
    value = text(var)
    if value is None:
        return default
    try:
        return convert(value)
    except ValueError:
        raise ConfigError(f"environment variable {var.name}={value!r} is not {what}") from None


def accel() -> bool:
    """``INDEXFLOW_ACCEL``: whether the compiled kernels may run (default on)."""
    return flag(ACCEL)


def stream_stores() -> bool:
    """``INDEXFLOW_STREAM_STORES``: whether large gather outputs use non-temporal stores
    (default on)."""
    return flag(STREAM_STORES)


def threads() -> int | None:
    """``INDEXFLOW_THREADS``: the thread cap (values below 1 count as 1); None when unset
    (the caller uses the CPUs this process may run on). ConfigError for a non-integer."""
    n = number(THREADS, None, int, "a whole number of threads")
    return None if n is None else max(1, n)


def _mib(text: str) -> float:
    """A size in MiB: a finite number, 0 or more (``inf``, ``nan``, ``-5`` are refused)."""
    value = float(text)
    if not math.isfinite(value) or value < 0:
        raise ValueError(text)
    return value


def buffer_pool_bytes() -> int:
    """``INDEXFLOW_BUFFER_POOL_MB`` in bytes (default 512 MiB; fractions allowed, 0: no
    pool). ConfigError for a value that is not a finite number of 0 or more."""
    return int(number(BUFFER_POOL_MB, 512.0, _mib, "a finite number of MiB, 0 or more") * (1 << 20))


def max_source_bytes() -> int:
    """``INDEXFLOW_MAX_SOURCE_MB`` in bytes (default 2048 MiB; a value that is not a finite
    number above 0, ``inf`` or ``-5`` say, counts as the default).

    Read on every call (a test or the user may change the variable at any time), but parsed
    only when its text differs from the previous call's: every operator call reads it
    (:mod:`ops.limits`), so the common case is one environment look-up and one comparison."""
    global _max_source_memo
    raw = _ENV_DATA.get(_MAX_SOURCE_KEY) if _ENV_DATA is not None else os.environ.get(MAX_SOURCE_MB.name)
    last = _max_source_memo
    if last[0] == raw and last[1] >= 0:
        return last[1]
    try:
        mib = number(MAX_SOURCE_MB, 2048.0, _mib, "a number of MiB")
    except ConfigError:
        mib = 2048.0
    if mib <= 0:
        mib = 2048.0
    value = int(mib * (1 << 20))
    _max_source_memo = (raw, value)
    return value


#: ``(raw value, bytes)`` of the last :func:`max_source_bytes` parse (bytes -1: none yet).
_max_source_memo: tuple[object, int] = (None, -1)
#: The dict behind ``os.environ`` (CPython keeps every change made through ``os.environ``,
#: ``monkeypatch.setenv`` included, there): one dict look-up instead of ``os.environ.get``'s
#: encode and decode, a few microseconds per operator call. None where it is missing.
_ENV_DATA: dict | None = getattr(os.environ, "_data", None)
try:
    _MAX_SOURCE_KEY = os.environ.encodekey(MAX_SOURCE_MB.name)  # type: ignore[attr-defined]
except AttributeError:
    _ENV_DATA = _MAX_SOURCE_KEY = None
if not isinstance(_ENV_DATA, dict):
    _ENV_DATA = None


def state_dir() -> Path | None:
    """``INDEXFLOW_STATE_DIR``: the folder for the editor's state, or None (the caller uses
    the platform's application data folder)."""
    value = os.environ.get(STATE_DIR.name)
    return Path(value) if value else None


def recovery_ms() -> int:
    """``INDEXFLOW_RECOVERY_MS``: milliseconds after the last edit before the recovery file is
    written (default 2000). ConfigError for a non-integer."""
    return number(RECOVERY_MS, 2_000, int, "a whole number of milliseconds")
