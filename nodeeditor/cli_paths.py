"""Where a command's ``--output`` / ``-o`` writes: one rule for every ``indexflow`` command
(``run``, ``grad``, ``train``, ``export``, ``import``)."""
from __future__ import annotations

import os
from pathlib import Path

from .cli_report import print_error


def output_file(output: str, suffix: str, example: str, flag: str = "--output") -> Path | None:
    """The file ``--output OUTPUT`` (``-o``) writes: OUTPUT with ``suffix`` added when its name
    does not end in it (``out`` -> ``out.npz``, ``model`` -> ``model.onnx``, as the editor's
    dialogs add it). None, after saying why (a usage error, ``example`` offered as a file
    name), for an empty name, a folder (an existing one, or a path ending in a separator):
    there is no file name to write to, or a file in a folder that does not exist."""
    if not output.strip():
        print_error(f"{flag} needs a file name, e.g. {example}")
        return None
    if output.endswith(("/", os.sep)) or os.path.isdir(output):  # isdir: no OSError for long names
        print_error(f"{flag} {output} names a folder; give a file name, e.g. {Path(output) / example}")
        return None
    target = Path(output)
    if not target.expanduser().parent.is_dir():   # said now, not after the work (a training run)
        print_error(f"{flag} {output}: the folder {target.parent} does not exist")
        return None
    return target if target.name.endswith(suffix) else target.with_name(target.name + suffix)
