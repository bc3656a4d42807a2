"""Where a command's ``--output`` / ``-o`` writes: one rule for every ``indexflow`` command
(``run``, ``grad``, ``train``, ``export``, ``import``)."""
from __future__ import annotations

import os
from pathlib import Path

from .cli_report import print_error


def output_file(output: str, suffix: str, example: str, flag: str = "--output") -> Path | None:
    """The file ``--output OUTPUT`` (``-o``) writes: OUTPUT (``~`` expanded) with ``suffix``
    added when its name does not end in it, in any case (``out`` -> ``out.npz``, ``model`` ->
    ``model.onnx``, ``M.ONNX`` stays, as the editor's dialogs do). None, after saying why (a
    usage error, ``example`` offered as a file name), for an empty name, a folder (an existing
    one, or a path ending in a separator: no file name to write to), or a file in a folder
    that does not exist."""
    if not output.strip():
        print_error(f"{flag} needs a file name, e.g. {example}")
        return None
    if output.endswith(("/", os.sep)) or os.path.isdir(output):  # isdir: no OSError for long names
        print_error(f"{flag} {output} names a folder; give a file name, e.g. {Path(output) / example}")
        return None
    target = Path(output).expanduser()   # `-o ~/x` reaches here unexpanded: checked and written the same
    if not target.parent.is_dir():   # said now, not after the work (a training run)
        print_error(f"{flag} {output}: the folder {target.parent} does not exist")
        return None
    return target if target.name.lower().endswith(suffix.lower()) else target.with_name(target.name + suffix)
