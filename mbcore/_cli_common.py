"""What the commands of ``mbcore`` (:mod:`mbcore.cli`) share: the learners they run, the
argument types, the usage error, the data sniffing, the progress line and the printing.

The teaching commands (run, certify, plot, bench, datasets) live in :mod:`mbcore.cli` with the
entry point; the file workflow (train, predict, evaluate) in ``mbcore._cli_workflow``.  Like
them, this module names no learner: the learners are the classes that declare themselves in
``mbcore._registry``.
"""

import argparse
import collections
import sys
import time

from . import _registry

__all__ = ["LEARNERS", "K_CLASS_LEARNERS", "CLASSES_HELP", "UsageError", "learner_name",
           "positive_int", "param", "learner_params", "did_you_mean", "emit", "number",
           "sniff_format", "Progress", "stream_classes", "add_order_options", "warn_sorted",
           "class_fields", "class_lines", "class_rate_table"]

# The learners of the data commands: those whose rows are feature vectors, as the classes
# declare themselves (tag takes, mbcore._registry: every family), in the families' order.
LEARNERS = tuple(n for n, c in _registry.learners() if c._TAGS.takes == "features")
# The ones that take K >= 3 classes (tag k_classes; some in some modes only); the others take
# two.  For the help texts: which learners run is decided by asking each learner (mbcore.cli's
# _not_applicable), so this list cannot make the CLI refuse a learner that takes K classes.
K_CLASS_LEARNERS = tuple(n for n, c in _registry.learners()
                         if c._TAGS.takes == "features" and c._TAGS.k_classes)
CLASSES_HELP = ("every label of the data, comma-separated (two or more), when the first chunk "
                "may not show them all (e.g. a stream that starts with one label); read as "
                "numbers when the data's labels are numbers, else as strings")


class UsageError(Exception):
    """A command-line usage error (exit status 2)."""


# -- argument types -------------------------------------------------------------------------------

def learner_name(text):
    for name in LEARNERS:
        if text.lower() == name.lower():
            return name
    raise argparse.ArgumentTypeError(f"unknown learner {text!r}{did_you_mean(text, LEARNERS)}; "
                                     f"choose from {', '.join(LEARNERS)}")


def did_you_mean(text, choices):
    """' (did you mean X?)' (or 'X or Y') for the choices nearest to a mistyped ``text``
    (case-insensitive), else ''."""
    import difflib
    lowered = {c.lower(): c for c in choices}
    text = str(text).lower()
    close = list(dict.fromkeys([c for c in lowered if text and c.startswith(text)] +
                               difflib.get_close_matches(text, list(lowered), n=2,
                                                         cutoff=0.6)))[:2]
    if not close:
        return ""
    return f" (did you mean {' or '.join(lowered[c] for c in close)}?)"


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


# One --param: the learner named by the qualified form LEARNER.NAME=VALUE (None when
# unqualified), the parameter, its value, and the argument as given.
Param = collections.namedtuple("Param", "learner name value text")


def param(text):
    """A --param argument: ``NAME=VALUE``, or ``LEARNER.NAME=VALUE`` for one learner only (its
    name case-insensitive)."""
    name, sep, raw = text.partition("=")
    owner, dot, name = name.strip().rpartition(".")
    name = name.strip()
    if not sep or not name.isidentifier() or (dot and not owner.strip()):
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE or LEARNER.NAME=VALUE, got "
                                         f"{text!r}")
    learner = learner_name(owner.strip()) if dot else None
    return Param(learner, name, _parse_value(raw.strip()), text)


def _parse_value(raw):
    """Read a --param value as int, float, bool (true/false), None, a dict ``K:V,K:V`` (keys
    read as these, values as numbers; braces optional: class_weight) or, failing those, str."""
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    pairs = raw[1:-1] if raw.startswith("{") and raw.endswith("}") else raw
    if ":" in pairs:
        out = {}
        for item in pairs.split(","):
            key, colon, value = item.partition(":")
            key = key.strip().strip("'\"")
            number = _parse_value(value.strip()) if colon else None
            if not key or isinstance(number, (bool, dict, str)) or number is None:
                return raw
            out[_parse_value(key)] = number
        return out
    return raw


# parameter domains whose values are spelled in words on the command line
_WORDS = {"a bool": "true or false"}


def learner_params(names, pairs):
    """The constructor parameters of each learner, with the --param values applied.

    An unqualified ``NAME=VALUE`` goes to every selected learner that has NAME; when the
    learners that have it declare different domains for it (``_PARAMETERS``: the same name
    meaning different things, as a margin and a kernel width), it is refused, naming them and
    the qualified form ``LEARNER.NAME=VALUE``.
    """
    params = {name: _registry.learner(name)().get_params() for name in names}
    domains = {name: _registry.learner(name)._parameter_constraints() for name in names}
    for item in pairs:
        owner, key, value, text = item
        if owner is not None:
            if owner not in names:
                raise UsageError(f"argument --param {text}: {owner} is not among the selected "
                                 f"learners ({', '.join(names)})")
            if key not in params[owner]:
                raise UsageError(f"argument --param {text}: {owner} has no parameter {key!r}"
                                 f"{did_you_mean(key, params[owner])}; its parameters: "
                                 f"{', '.join(params[owner])}")
            takers = [owner]
        else:
            takers = [name for name in names if key in params[name]]
        if not takers:
            known = list(dict.fromkeys(k for name in names for k in params[name]))
            raise UsageError(f"argument --param {text}: none of the selected learners "
                             f"({', '.join(names)}) has a parameter {key!r}"
                             f"{did_you_mean(key, known)}; their parameters: {', '.join(known)}")
        meanings = {}
        for name in takers:
            domain = domains[name].get(key)
            meanings.setdefault(None if domain is None else domain.describe(), []).append(name)
        if len(meanings) > 1:
            raw = text.partition("=")[2]
            raise UsageError(
                f"argument --param {text}: {key} means different things in "
                + "; ".join(f"{', '.join(who)} ({what or 'undeclared'})"
                            for what, who in meanings.items())
                + "; name the learner it is meant for: "
                + ", ".join(f"--param {name}.{key}={raw}" for name in takers)
                + " (repeatable)")
        for name in takers:
            domain = domains[name].get(key)
            if domain is not None and domain.describe() in _WORDS:
                try:
                    domain.check(name, key, value)
                except ValueError:
                    raise UsageError(f"argument --param {text}: {name}'s {key} is "
                                     f"{_WORDS[domain.describe()]}, got "
                                     f"{text.partition('=')[2].strip()!r}") from None
            params[name][key] = value
    return params


# -- output ---------------------------------------------------------------------------------------

def emit(text):
    """Print text; characters the terminal's encoding lacks (γ, ²) become escapes, not errors."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    print(text.encode(encoding, "backslashreplace").decode(encoding))


def number(value):
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


# -- the mistakes on each true class ---------------------------------------------------------------
# A stream where 2 % of the examples are positive can be predicted with a 2 % error rate by a
# learner that gets every positive wrong: evaluate, run and evaluate --ask print the rate on
# each class beside the overall one (the counts of mbcore.OnlineRun and StreamRun).

def class_fields(record):
    """The per-class fields of a JSON result from a record with per-class counts (an OnlineRun,
    a StreamRun, evaluate_asking's lines), or None for each when it has none."""
    if record is None or record.class_counts is None:
        return {"per_class": None, "balanced_error_rate": None, "false_positive_rate": None,
                "false_negative_rate": None}
    return {"per_class": record.per_class(), "balanced_error_rate": record.balanced_error_rate,
            "false_positive_rate": record.false_positive_rate,
            "false_negative_rate": record.false_negative_rate}


def _class_text(label):
    """A class as the data writes it: an integral float without '.0' (svmlight's '+1' is read
    as 1.0 and shown 1), anything else as str()."""
    if hasattr(label, "item"):
        label = label.item()
    if isinstance(label, float) and label.is_integer():
        label = int(label)
    return str(label)


def _two_classes_note(texts):
    return (f"{texts[1]} is the positive class: the rate on {texts[0]} is the false positive "
            f"rate, on {texts[1]} the false negative rate")


def class_lines(record):
    """The report of the mistakes on each true class of one run: one line per class (its
    examples, the mistakes made on them, their rate; with two classes, the rate's name), then
    the balanced error rate (the mean of the classes' rates)."""
    texts = [_class_text(c) for c in record.classes]
    w = max([5] + [len(t) for t in texts])
    names = ["   false positive rate", "   false negative rate (1 - recall)"] \
        if len(texts) == 2 else [""] * len(texts)
    out = [f"{'class':<{w}}   examples   mistakes   error rate"]
    for t, n, m, name in zip(texts, record.class_counts, record.class_mistakes, names):
        rate = f"{m / n:>10.6f}{name}" if n else f"{'-':>10}"
        out.append(f"{t:<{w}}   {int(n):>8,}   {int(m):>8,}   {rate}")
    k = sum(1 for n in record.class_counts if n)
    out.append(f"balanced error rate (the mean of the {k} classes' rates): "
               f"{record.balanced_error_rate:.6f}")
    return out


def class_rate_table(rows):
    """The error rate on each true class of several runs over the same examples, compactly: a
    column per class (its label, then its examples), a row per run with the rates in %, and
    the balanced error rate last.  ``rows``: (name, :func:`class_fields` of the run)."""
    first = rows[0][1]["per_class"]
    texts = [_class_text(c["class"]) for c in first]
    head = ["class"] + texts + ["balanced"]
    table = [head, ["examples"] + [f"{c['examples']:,}" for c in first] + [""]]
    for name, fields in rows:
        cells = ["-" if c["error_rate"] is None else f"{100.0 * c['error_rate']:.2f}"
                 for c in fields["per_class"]]
        table.append([name] + cells + [f"{100.0 * fields['balanced_error_rate']:.2f}"])
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    out = ["error rate on each true class, in % (mistakes / examples of the class), and their "
           "mean (balanced):"]
    for r in table:
        out.append("  ".join([r[0].ljust(widths[0])] +
                             [c.rjust(w) for c, w in zip(r[1:], widths[1:])]).rstrip())
    if len(texts) == 2:
        out.append(_two_classes_note(texts))
    return out


class Progress:
    """A progress line on stderr, rewritten in place at most five times a second."""

    def __init__(self, name, enabled, total=None):
        self.name, self.enabled, self.total = name, enabled, total
        self.last = 0.0

    def __call__(self, stats):
        now = time.perf_counter()
        if not self.enabled or now - self.last < 0.2:
            return
        self.last = now
        rate = stats.n / stats.seconds if stats.seconds > 0 else 0.0
        done = f"{stats.n:,}" + (f"/{self.total:,}" if self.total else "")
        sys.stderr.write(f"\r{self.name}: {done} rows, {stats.mistakes:,} mistakes "
                         f"({100.0 * stats.error_rate:.2f}%), {number(rate)} rows/s ")
        sys.stderr.flush()

    def close(self):
        if self.enabled and self.last:
            sys.stderr.write("\n")
            sys.stderr.flush()


# -- data -----------------------------------------------------------------------------------------

def sniff_format(path, max_lines=50):
    """'vw' if a line holds a '|' (Vowpal Wabbit's namespaces), 'svmlight' if a data line holds
    an idx:value pair after its label, else 'csv'."""
    import gzip
    import zlib

    from .datasets import open_text
    try:
        with open_text(path) as f:
            seen = 0
            for line in f:
                if "|" in line:
                    return "vw"
                tokens = line.split("#", 1)[0].split()
                if not tokens:
                    continue
                if any(":" in tok for tok in tokens[1:]):
                    return "svmlight"
                seen += 1
                if seen >= max_lines:
                    break
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise ValueError(f"{path} is not a valid gzip file ({exc})") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path} is not a UTF-8 text file ({exc.reason} at byte "
                         f"{exc.start})") from None
    return "csv"


def stream_classes(args):
    """--classes as a list of label texts (the streaming functions read them as numbers when
    the data's labels are numbers), or None."""
    if args.classes is not None:
        parts = [v.strip() for v in args.classes.split(",")]
        if any(not v for v in parts) or len(set(parts)) < 2:
            raise UsageError(f"argument --classes: expected two or more distinct labels "
                             f"A,B[,C...], got {args.classes!r}")
        return parts
    return None


# -- order: --shuffle, and labels that arrive sorted -------------------------------------------

def add_order_options(p, stream=False):
    """--shuffle and --seed (and, for a command that streams, --shuffle-buffer)."""
    memory = "in memory (the whole data: a uniform random order)"
    buffer = ("in a shuffle buffer of --shuffle-buffer rows (a stream: bounded memory; a file "
              "sorted in blocks longer than the buffer is only shuffled locally)")
    where = {False: memory, True: buffer,
             "both": memory + "; a file streamed with --chunk-size " + buffer}[stream]
    p.add_argument("--shuffle", action="store_true",
                   help=f"present the rows in a random order, {where}; the same --seed gives "
                        "the same order.  Without it the rows come in file order, and a "
                        "one-line warning on stderr says when their labels arrive sorted "
                        "(at least 100 rows and at most two runs of equal labels per label, "
                        "as in a file sorted by label)")
    p.add_argument("--seed", type=_seed, default=None, metavar="S",
                   help="the seed of --shuffle's order (default 0; only with --shuffle), or "
                        "with --ask B of the sampler's coin")
    if stream in (True, "both"):
        p.add_argument("--shuffle-buffer", type=positive_int, default=65_536, metavar="N",
                       help="rows --shuffle holds at a time (default 65,536)")


def _seed(text):
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value < 2 ** 63:
        raise argparse.ArgumentTypeError(f"expected an integer in [0, 2**63), got {text!r}")
    return value


def warn_sorted(runs, name):
    """Print the one-line warning of a ``LabelRuns`` whose labels arrive sorted."""
    if runs.sorted:
        print(runs.warning(name), file=sys.stderr)
