"""Work-around for a PySide6 6.12 reference-count bug on Python < 3.12.

Observed in this environment (PySide6-Essentials 6.12.0 abi3 wheels, CPython 3.11.7):
every call of a void Qt method (``widget.setEnabled(True)``) and every Python override
of a C++ virtual that returns ``None`` (``QAbstractItemModel.data``, ``paint``) drops one
reference to ``None`` it never took; every ``Signal.emit()`` drops one to ``True``. On
Python >= 3.12 these singletons are immortal, so the bug is invisible there; on 3.11 the
interpreter aborts with "none_dealloc: deallocating None" (or "bool_dealloc") after a few
thousand Qt calls — within seconds of using a pyqtgraph view.

``immortalize_singletons()`` does what Python 3.12 does: it gives ``None``, ``True`` and
``False`` a reference count so large that no leak can reach zero (2**40; refcounts are
64-bit). These objects are never freed anyway, so nothing else changes. It runs once, only
on CPython < 3.12, and only when the header layout is the plain one (refcount first).

This belongs in ``nodeeditor/ui/__init__.py`` for the whole ui layer; it lives here until
the owner of that module moves it (the viewer imports it so its own tests run).
"""
from __future__ import annotations

import ctypes
import platform
import sys

_BOOST = 1 << 40
_done = False


def _affected_pyside() -> bool:
    """True for the PySide6 releases known to drop the references (6.12.x). pyproject.toml
    excludes them (``<6.12``; 6.10.3 and 6.11.3 were checked clean), so the guard only acts
    where someone installed 6.12 by hand."""
    try:
        from importlib.metadata import version

        release = version("PySide6-Essentials")
    except Exception:  # noqa: BLE001 - the full PySide6 wheel, or no metadata: check the module
        import PySide6

        release = PySide6.__version__
    return release.startswith("6.12")


def immortalize_singletons() -> bool:
    """Raise the refcounts of None/True/False out of reach; returns True if applied."""
    global _done
    if _done or sys.version_info >= (3, 12) or platform.python_implementation() != "CPython":
        return False
    if not _affected_pyside():
        return False
    if hasattr(sys, "gettotalrefcount"):  # debug build: different object header layout
        return False
    for obj in (None, True, False):
        before = sys.getrefcount(obj)
        cell = ctypes.c_ssize_t.from_address(id(obj))
        if not 0 < cell.value <= before + 16:  # not the refcount field: leave it alone
            return False
        cell.value += _BOOST
        if sys.getrefcount(obj) < _BOOST:  # pragma: no cover - layout check failed
            cell.value -= _BOOST
            return False
    _done = True
    return True
