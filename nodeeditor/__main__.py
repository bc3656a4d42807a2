"""``python -m nodeeditor``: the same as the ``indexflow`` command."""
import sys

from nodeeditor.cli import main

sys.exit(main())
