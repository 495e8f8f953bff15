"""The ``mbcore`` command: run the online learners on real data from a shell.

Subcommands
-----------
``mbcore run``
    Stream a dataset once through each selected learner (the online protocol: predict, then see
    the label, then update), and report mistakes, updates, the mistake bound where its assumptions
    hold, the throughput, and the speed-up over the pure-Python twin in ``mbref``.
``mbcore certify``
    Run each learner and check it against the mistake bound that applies (``mbcore.certify``).
``mbcore plot``
    Draw the cumulative mistakes of the learners with their bounds into a PNG (matplotlib).
``mbcore bench``
    Time the compiled learners against the pure-Python twin and against scikit-learn.
``mbcore datasets``
    List the bundled datasets, or describe one (``mbcore datasets mushrooms``).
``mbcore train``
    Train one learner on a file or a pipe (svmlight, CSV or Vowpal Wabbit text) and save it:
    ``mbcore train --learner perceptron --data a9a.svm --model a9a.npz [--passes K]
    [--warm-start IN.npz]``.
``mbcore predict``
    Stream predictions of a saved model, one line per example: ``mbcore predict --model
    a9a.npz --data - --out -`` (``--raw`` for scores; an interactive input is answered line by
    line, a file or pipe in chunks).
``mbcore evaluate``
    Progressive validation (predict each example, then learn it) with a report line at 1, 2,
    4, 8, ... examples, as Vowpal Wabbit prints its progress.
``mbcore explain``
    Why a saved model predicts what it does on one line of a file: the prediction, the score,
    the top features and (a model trained with ``--param record_updates=true``) the training
    examples that made it, by their line: ``mbcore explain --model M.npz --data FILE --line N
    [--top K] [--json]`` (``mbcore._cli_explain``).
``mbcore queries graph`` / ``mbcore queries coin``
    Learning with queries on a seeded random target: a hidden graph with edge-detecting
    queries, or defectives by group testing; the queries against their bounds
    (``mbcore._cli_queries``, the place for further ``queries`` subcommands).
``mbcore adversary``
    Walk the witness tree of a finite class's Littlestone dimension against a learner and
    print the game: ``mbcore adversary --class monotone_conjunctions:3 --learner soa``
    (``mbcore._cli_adversary``).

This module holds the entry point (``main``) and the parser; the teaching commands (run,
certify, plot, bench, datasets) are in ``mbcore._cli_teaching`` (the data they read, and which
learners apply to it, in ``mbcore._cli_data``), the file workflow (train, predict, evaluate) in
``mbcore._cli_workflow``, and what the commands share (the learners, the argument types, the
usage error, the output) in ``mbcore._cli_common``.

Exit status: 0 on success; 1 for an error of the data, a file or a parameter (one line on
stderr, ``mbcore: error: ...``, naming the file and line where there is one); 2 for a usage
error of the command line; 3 when a learner exceeds a bound whose assumptions were verified (a
bug in mbcore); 130 on Ctrl-C.
"""

import argparse
import os
import re
import sys
import warnings

from . import _messages
from ._cli_adversary import AdversaryBugFound, add_adversary_parser
from ._cli_common import LEARNERS, UsageError, did_you_mean
from ._cli_explain import add_explain_parser
from ._cli_queries import QueriesBugFound, add_queries_parsers
from ._cli_teaching import BugFound, add_teaching_parsers
from ._cli_teaching import _PEERS  # noqa: F401  (the learners' peers; read as cli._PEERS)
from ._cli_workflow import add_workflow_parsers

__all__ = ["main", "LEARNERS"]


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors become one line instead of usage text and an exit."""

    def error(self, message):
        raise UsageError(_with_suggestion(message))


# -- entry point ----------------------------------------------------------------------------------

def main(argv=None):
    """Run the ``mbcore`` command.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; ``sys.argv[1:]`` when None.

    Returns
    -------
    int
        The exit status: 0 on success (and when the reader of the output stops early, as
        ``| head`` does), 2 for a usage error, 1 for any other error (an unreadable file, an
        invalid learner parameter, ...).  Errors are reported as one line on stderr, and so is
        every warning (``mbcore: warning: ...``).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    with _messages.command_line(), warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            args = _build_parser().parse_args(_joined_values(argv))
            if args.command is None:
                raise UsageError("a command is required: run, certify, plot, bench, datasets, "
                                 "train, predict, evaluate, explain or queries (see mbcore "
                                 "--help)")
            _check_order_options(args)
            return args.handler(args)
        except UsageError as exc:
            return _fail(exc, 2)
        except (BugFound, QueriesBugFound, AdversaryBugFound) as exc:
            return _fail(exc, 3)
        except SystemExit as exc:  # --help and --version
            return exc.code if isinstance(exc.code, int) else 0
        except BrokenPipeError:
            # Output piped into a command that stopped reading (e.g. head): what it read was
            # right, so stop quietly with success, as the shell's own tools do under SIGPIPE.
            _quiet_stdout()
            return 0
        except (ValueError, TypeError, OSError, ImportError) as exc:
            return _fail(exc, 1)
        except KeyboardInterrupt:
            return 130


# Options whose value may start with '-' (--classes -1,1: the labels most svmlight files use),
# which argparse would otherwise take for an option.
_VALUE_OPTIONS = ("--classes",)


def _joined_values(argv):
    """``--classes -1,1`` as ``--classes=-1,1``: argparse reads a value that starts with '-'
    only when it is joined to its option."""
    out = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in _VALUE_OPTIONS and i + 1 < len(argv) and argv[i + 1].startswith("-") and \
                argv[i + 1] not in ("-", "--") and not argv[i + 1].startswith("--"):
            out.append(f"{a}={argv[i + 1]}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def _check_order_options(args):
    """--seed only orders what --shuffle shuffles (or, with --ask, seeds the sampler's coin):
    alone it would be ignored, so refuse it."""
    if not hasattr(args, "shuffle"):
        return
    asking = bool(getattr(args, "ask", None))       # (--ask: --seed seeds the sampler's coin)
    if args.seed is not None and not args.shuffle and not asking:
        raise UsageError("--seed S sets the order of --shuffle; give --shuffle too (without "
                         "it the rows come in file order)")
    if args.seed is None and not asking:
        args.seed = 0


def _quiet_stdout():
    """Standard output to /dev/null, so that the interpreter's last flush finds no pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    sys.stdout = open(os.devnull, "w")


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """A warning as one line on stderr, ``mbcore: warning: ...`` (never Python's source line)."""
    text = " ".join(str(message).split())
    print(f"mbcore: warning: {_plain(text)}", file=sys.stderr if file is None else file)


# What a message of the Python API starts with when it names the function that raised it
# (iter_svmlight:, run_stream:, load_tictactoe:): words a command-line user never typed.
# Class names (Perceptron:) stay: they name the learner the user chose.
_FUNCTION_PREFIX = re.compile(r"^(?:[a-z][a-z0-9]*_[a-z0-9_]*|load|save|lstar)(?:\.[a-z_]+)?: ")


def _plain(message):
    while True:
        cut = _FUNCTION_PREFIX.sub("", message, count=1)
        if cut == message:
            return message
        message = cut


def _fail(exc, status):
    message = " ".join(str(exc).split()) or type(exc).__name__
    print(f"mbcore: error: {_plain(message)}", file=sys.stderr)
    return status


def _with_suggestion(message):
    """argparse's "invalid choice: 'rnu' (choose from 'run', ...)" (a sub-command, --format,
    ...) with "did you mean run?" added when a choice is near; other messages unchanged.
    For the parser's error handler (``_Parser.error``)."""
    import re
    found = re.search(r"invalid choice: '?([^' ]*)'? \(choose from (.*)\)$", message)
    if found is None:
        return message
    choices = [c.strip().strip("'") for c in found.group(2).split(",")]
    return message + did_you_mean(found.group(1), choices)


def _build_parser():
    from . import __version__
    parser = _Parser(prog="mbcore", description="Mistake-bound online learners from the shell.")
    parser.add_argument("--version", action="version", version=f"mbcore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    add_teaching_parsers(sub)
    add_workflow_parsers(sub)
    add_explain_parser(sub)
    add_queries_parsers(sub)
    add_adversary_parser(sub)
    return parser


if __name__ == "__main__":
    sys.exit(main())
