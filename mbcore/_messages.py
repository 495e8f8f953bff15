"""How a message spells what the user can change: the Python parameter (``zero_based=True``),
or the option of the ``mbcore`` command (``--zero-based``) when the command is the caller.

:func:`mbcore.cli.main` sets :data:`CLI` for the duration of a command (:func:`command_line`);
the readers, the streaming functions and the learners build their hints with :func:`spell`, so
that one message serves both callers and a command-line user is never told a Python spelling.
A module-wide flag (not a context variable) because messages are also made in the readers'
worker threads.
"""

import contextlib

__all__ = ["CLI", "spell", "command_line"]

CLI = False


def spell(python, cli):
    """``cli`` while the ``mbcore`` command runs, else ``python``."""
    return cli if CLI else python


@contextlib.contextmanager
def command_line():
    """Messages made inside use the command line's spellings."""
    global CLI
    before = CLI
    CLI = True
    try:
        yield
    finally:
        CLI = before
