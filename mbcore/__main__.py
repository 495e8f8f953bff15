"""``python -m mbcore``: the ``mbcore`` command (:func:`mbcore.cli.main`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
