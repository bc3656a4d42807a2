"""What every ``indexflow`` subcommand shares about ending: the exit codes, and the one form
of a message that stops a command.

A command's report (``run``'s outputs, node errors and warnings; ``check``'s per-node lines)
goes to standard output. A message that stops the command (a file that cannot be read or
written, a usage error, a graph that cannot be exported) goes to standard error, its first
line starting ``indexflow: error:`` (an export's refusal lists the nodes on the lines after
it), so a script that reads the report never sees it mixed in.
"""
from __future__ import annotations

import sys

#: 0 success; 1 the graph or model has errors, cannot be read, converted or written; 2 usage errors
EXIT_OK, EXIT_GRAPH_ERROR, EXIT_USAGE = 0, 1, 2

ERROR_PREFIX = "indexflow: error: "


def print_error(message: str) -> None:
    """``message`` as the line that stops a command, on standard error."""
    print(ERROR_PREFIX + message, file=sys.stderr)
