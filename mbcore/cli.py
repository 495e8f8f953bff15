"""The ``mbcore`` command: run the online learners on real data from a shell.

Subcommands
-----------
``mbcore run``
    Stream a dataset once through each selected learner (the online protocol: predict, then see
    the label, then update), and report mistakes, updates, the mistake bound where its assumptions
    hold, the throughput, and the speed-up over the pure-Python twin in ``mbref``.
``mbcore datasets``
    List the bundled datasets, or describe one (``mbcore datasets mushrooms``).

User errors (bad options, unreadable files, invalid parameters) print one line,
``mbcore: error: ...``, on stderr: exit status 2 for command-line usage errors, 1 for the rest.
"""

import argparse
import json
import math
import os
import sys
import time

__all__ = ["main", "LEARNERS"]

LEARNERS = ("Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
            "OnlineHingeSVM", "Winnow", "EliminationWinnow", "WinnowStar", "BalancedWinnow")
_WINNOWS = ("Winnow", "EliminationWinnow", "WinnowStar")

_SEPARATOR_NAME = "(R/γ)² with γ of a separator found by fitting"
_MIN_TIMING = 0.2     # seconds of repeated compiled runs behind one timing
_MAX_REPEATS = 20


class _UsageError(Exception):
    """A command-line usage error (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors become one line instead of usage text and an exit."""

    def error(self, message):
        raise _UsageError(message)


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
        The exit status: 0 on success, 2 for a usage error, 1 for any other error (an unreadable
        file, an invalid learner parameter, ...).  Errors are reported as one line on stderr.
    """
    try:
        args = _build_parser().parse_args(argv)
        if args.command is None:
            raise _UsageError("a command is required: 'run' or 'datasets' (see mbcore --help)")
        return args.handler(args)
    except _UsageError as exc:
        return _fail(exc, 2)
    except SystemExit as exc:  # --help and --version
        return exc.code if isinstance(exc.code, int) else 0
    except BrokenPipeError:
        # Output piped into a command that stopped reading (e.g. head): stop quietly.
        sys.stdout = open(os.devnull, "w")
        return 1
    except (ValueError, TypeError, OSError, ImportError) as exc:
        return _fail(exc, 1)
    except KeyboardInterrupt:
        return 130


def _fail(exc, status):
    message = " ".join(str(exc).split()) or type(exc).__name__
    print(f"mbcore: error: {message}", file=sys.stderr)
    return status


def _build_parser():
    from . import __version__
    parser = _Parser(prog="mbcore", description="Mistake-bound online learners from the shell.")
    parser.add_argument("--version", action="version", version=f"mbcore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _add_run_parser(sub)
    _add_datasets_parser(sub)
    return parser


def _add_run_parser(sub):
    p = sub.add_parser(
        "run", help="stream a dataset once through the learners and report mistakes and bounds",
        description="Stream the data once, in file order, through each learner (predict, then "
                    "learn the label) and report mistakes, updates, the mistake bound where its "
                    "assumptions hold, examples per second, and the speed-up over the "
                    "pure-Python twin (mbref).")
    p.add_argument("--learner", dest="learners", metavar="NAME", nargs="+", action="extend",
                   type=_learner_name,
                   help="learners to run (case-insensitive; default: all of "
                        f"{', '.join(LEARNERS)})")
    p.add_argument("--dataset", default="mushrooms", metavar="NAME_OR_PATH",
                   help="a bundled dataset (see 'mbcore datasets') or the path of an svmlight or "
                        "CSV file (default: mushrooms)")
    p.add_argument("--format", dest="fmt", choices=("auto", "svmlight", "csv"), default="auto",
                   help="file format of a path given to --dataset (default: auto, i.e. svmlight "
                        "if a line holds idx:value pairs, else CSV)")
    p.add_argument("--label-column", type=int, default=None, metavar="K",
                   help="CSV only: index of the label column, negative counts from the end "
                        "(default: -1)")
    p.add_argument("--delimiter", default=None, metavar="CHAR",
                   help="CSV only: field separator, or 'whitespace' (default: ',')")
    p.add_argument("--skip-header", action="store_true",
                   help="CSV only: skip the first line of the file")
    p.add_argument("--param", dest="params", metavar="NAME=VALUE", action="append", default=[],
                   type=_param,
                   help="set a parameter on every selected learner that has it; VALUE is read as "
                        "int, float, true/false, none, or else a string (repeatable)")
    p.add_argument("--twin-rows", type=_positive_int, default=1000, metavar="N",
                   help="rows on which the pure-Python twin is timed (default: 1000)")
    p.add_argument("--no-twin", action="store_true", help="do not time the pure-Python twin")
    p.add_argument("--separator-epochs", type=_positive_int, default=100, metavar="N",
                   help="epochs of Perceptron.fit when looking for a separator for the bounds "
                        "(default: 100)")
    p.add_argument("--json", action="store_true", help="print a JSON list of results instead "
                                                       "of a table")
    p.set_defaults(handler=_cmd_run)


def _add_datasets_parser(sub):
    p = sub.add_parser("datasets", help="list the bundled datasets, or describe one",
                       description="List the bundled datasets with their provenance; with a "
                                   "NAME, print its full provenance and citation.")
    p.add_argument("name", nargs="?", default=None, help="a bundled dataset to describe")
    p.set_defaults(handler=_cmd_datasets)


# -- argument types -------------------------------------------------------------------------------

def _learner_name(text):
    for name in LEARNERS:
        if text.lower() == name.lower():
            return name
    raise argparse.ArgumentTypeError(f"unknown learner {text!r}; choose from "
                                     f"{', '.join(LEARNERS)}")


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _param(text):
    name, sep, raw = text.partition("=")
    name = name.strip()
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    return name, _parse_value(raw.strip())


def _parse_value(raw):
    """Read a --param value as int, float, bool, None or, failing those, str."""
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
    return raw


# -- mbcore datasets ------------------------------------------------------------------------------

def _cmd_datasets(args):
    from . import datasets
    if args.name is not None:
        _emit(datasets.describe(args.name))
        return 0
    width = max(len(name) for name in datasets.DATASETS)
    for name, info in datasets.DATASETS.items():
        shape = f"{info['n_samples']} x {info['n_features']}"
        _emit(f"{name:<{width}}  {shape:>10}  {info['summary']}")
    return 0


# -- mbcore run -----------------------------------------------------------------------------------

def _cmd_run(args):
    import mbcore
    names = list(dict.fromkeys(args.learners or LEARNERS))
    params = _learner_params(mbcore, names, args.params)
    label, X, y = _load_data(args)
    separators = {}
    results = []
    for name in names:
        result = _run_one(mbcore, name, params[name], X, y, args)
        result.update(_bound(mbcore, name, params[name], X, y, args.separator_epochs,
                             separators))
        result["within_bound"] = (None if result["bound"] is None else
                                  result[result["bound_counts"]] <= result["bound"])
        results.append(dict(dataset=label, **result))
    if args.json:
        _emit(json.dumps(results, indent=2, default=str))
    else:
        _emit(_table(label, X, results))
    return 0


def _emit(text):
    """Print text; characters the terminal's encoding lacks (γ, ²) become escapes, not errors."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    print(text.encode(encoding, "backslashreplace").decode(encoding))


def _learner_params(mbcore, names, pairs):
    """The constructor parameters of each learner, with the --param values applied."""
    params = {name: getattr(mbcore, name)().get_params() for name in names}
    for key, value in pairs:
        takers = [name for name in names if key in params[name]]
        if not takers:
            raise _UsageError(f"argument --param: none of the selected learners "
                              f"({', '.join(names)}) has a parameter {key!r}")
        for name in takers:
            params[name][key] = value
    return params


def _load_data(args):
    """Return (label, X, y) for --dataset, a bundled name or a file path."""
    from . import datasets
    if args.dataset in datasets.DATASETS:
        if args.fmt != "auto" or _csv_options(args):
            raise _UsageError(f"--format, --label-column, --delimiter and --skip-header apply to "
                              f"files, not to the bundled dataset {args.dataset!r}")
        loader = getattr(datasets, datasets.DATASETS[args.dataset]["loader"])
        X, y = loader()
        return args.dataset, X, y
    if not os.path.isfile(args.dataset):
        raise OSError(f"--dataset {args.dataset!r} is neither a bundled dataset "
                      f"({', '.join(datasets.DATASETS)}) nor an existing file")
    fmt = _sniff_format(args.dataset) if args.fmt == "auto" else args.fmt
    if fmt == "svmlight":
        if _csv_options(args):
            raise _UsageError("--label-column, --delimiter and --skip-header apply to CSV files; "
                              f"{args.dataset!r} is read as svmlight")
        X, y = datasets.load_svmlight(args.dataset)
    else:
        delimiter = "," if args.delimiter is None else args.delimiter
        column = -1 if args.label_column is None else args.label_column
        X, y = datasets.load_csv(args.dataset, label_column=column,
                                 delimiter=None if delimiter == "whitespace" else delimiter,
                                 skip_header=args.skip_header)
    return os.path.basename(args.dataset), X, y


def _csv_options(args):
    return args.label_column is not None or args.delimiter is not None or args.skip_header


def _sniff_format(path, max_lines=50):
    """'svmlight' if a data line holds an idx:value pair after its label, else 'csv'."""
    import gzip
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        seen = 0
        for line in f:
            tokens = line.split("#", 1)[0].split()
            if not tokens:
                continue
            if any(":" in tok for tok in tokens[1:]):
                return "svmlight"
            seen += 1
            if seen >= max_lines:
                break
    return "csv"


def _best_time(make, X, y, classes, run_online):
    """Fastest of repeated runs of a fresh learner over (X, y): (seconds, first run record)."""
    best, first, total, repeats = math.inf, None, 0.0, 0
    while repeats < _MAX_REPEATS and (repeats == 0 or total < _MIN_TIMING):
        learner = make()
        start = time.perf_counter()
        record = run_online(learner, X, y, classes=classes)
        elapsed = time.perf_counter() - start
        first = record if first is None else first
        best, total, repeats = min(best, elapsed), total + elapsed, repeats + 1
    return best, first


def _field(record, name):
    """A field of a run record: mbcore returns an object, mbref a dict."""
    return record[name] if isinstance(record, dict) else getattr(record, name)


def _run_one(mbcore, name, params, X, y, args):
    """One online pass of the compiled learner, timed, and the twin comparison on a prefix."""
    cls = getattr(mbcore, name)
    classes = _classes(y)
    seconds, record = _best_time(lambda: cls(**params), X, y, classes, mbcore.run_online)
    result = {"learner": name, "params": params, "n_samples": int(X.shape[0]),
              "n_features": int(X.shape[1]), "mistakes": int(record.mistakes),
              "updates": int(record.updates), "seconds": seconds,
              "examples_per_second": X.shape[0] / seconds if seconds > 0 else None,
              "twin_rows": None, "twin_seconds": None, "compiled_seconds_on_twin_rows": None,
              "speedup_vs_twin": None, "twin_agrees": None}
    if not args.no_twin:
        result.update(_twin(mbcore, name, params, X, y, classes,
                            min(args.twin_rows, X.shape[0])))
    return result


def _classes(y):
    """Both labels of the whole dataset, so that a prefix holding one class runs too.

    None when y does not hold exactly two labels: the learner then reports the problem.
    """
    import numpy as np
    labels = np.unique(y)
    return labels.tolist() if labels.shape[0] == 2 else None


def _twin(mbcore, name, params, X, y, classes, rows):
    """Time the mbref twin and the compiled learner on the first ``rows`` rows."""
    import mbref
    Xp, yp = X[:rows], y[:rows]
    twin = getattr(mbref, name)(**params)
    start = time.perf_counter()
    twin_record = mbref.run_online(twin, Xp, yp, classes=classes)
    twin_seconds = time.perf_counter() - start
    cls = getattr(mbcore, name)
    seconds, record = _best_time(lambda: cls(**params), Xp, yp, classes, mbcore.run_online)
    agrees = list(_field(twin_record, "predictions")) == list(record.predictions) and \
        _field(twin_record, "updates") == record.updates
    return {"twin_rows": rows, "twin_seconds": twin_seconds,
            "compiled_seconds_on_twin_rows": seconds,
            "speedup_vs_twin": twin_seconds / seconds if seconds > 0 else None,
            "twin_agrees": agrees}


# -- bounds ---------------------------------------------------------------------------------------

def _na(reason):
    return {"bound": None, "bound_counts": None, "bound_name": None, "bound_note": reason}


def _bound(mbcore, name, params, X, y, epochs, separators):
    """The mistake bound for this learner on (X, y) where its assumptions hold, else n/a."""
    if name in ("Perceptron", "AveragedPerceptron"):
        return _perceptron_bound(mbcore, params, X, y, epochs, separators)
    if name == "MarginPerceptron":
        return _margin_perceptron_bound(mbcore, params, X, y, epochs, separators)
    if name == "KernelPerceptron":
        return _kernel_perceptron_bound(mbcore, params, X, y, epochs, separators)
    if name in _WINNOWS:
        return _winnow_bound(name, params, X, y)
    if name == "BalancedWinnow":
        return _na("no bound from the notes applies to Balanced Winnow")
    return _na("no mistake bound: the hinge-loss analysis (Kakade §3) bounds the loss, not the "
               "number of mistakes")


def _disjunction(X, y):
    """Variables of a monotone disjunction consistent with Boolean (X, y), or why there is none.

    The variables that are 0 in every negative row are the largest candidate; the data is a
    monotone disjunction iff each positive row has one of them set.  A greedy set cover of the
    positive rows by those variables gives a small consistent disjunction (any consistent one
    certifies the bounds)."""
    import numpy as np
    A = np.asarray(X)
    if not np.isin(A, (0, 1)).all():
        return "the features are not Boolean"
    pos, neg = A[y == 1].astype(bool), A[y != 1].astype(bool)
    cand = ~neg.any(axis=0) if neg.shape[0] else np.ones(A.shape[1], dtype=bool)
    covered = pos[:, cand].any(axis=1) if pos.shape[0] else np.ones(0, dtype=bool)
    if not covered.all():
        return (f"no monotone disjunction is consistent with the data ({int((~covered).sum())} "
                "positive rows have no variable that is 0 in every negative row)")
    chosen, left = [], pos[:, cand]
    idx = np.flatnonzero(cand)
    while left.shape[0]:
        best = int(left.sum(axis=0).argmax())
        chosen.append(int(idx[best]))
        left = left[~left[:, best]]
    return chosen


def _winnow_bound(name, params, X, y):
    import numpy as np
    defaults = {"Winnow": {"alpha": 2.0, "beta": None, "theta": None, "w0": 1.0,
                           "features": "boolean"},
                "EliminationWinnow": {"theta": None}, "WinnowStar": {"alpha": 2.0,
                                                                      "theta": None}}[name]
    changed = [k for k, v in defaults.items() if params.get(k, v) != v]
    if changed:
        return _na(f"the bound is proved for the default parameters ({', '.join(changed)} "
                   "changed)")
    labels = np.unique(np.asarray(y))
    ypos = (np.asarray(y) == labels[-1]).astype(int)
    found = _disjunction(X, ypos)
    if isinstance(found, str):
        return _na(found)
    from . import bounds
    k, n = len(found), np.asarray(X).shape[1]
    if name == "Winnow":
        bound, text = bounds.winnow_bound(k, n), "2 + 3k(1 + log₂ n) (Angluin lecture 18)"
    elif name == "EliminationWinnow":
        bound, text = bounds.elimination_winnow_bound(k, n), "2k log₂ n + 2 (Kanade Thm 12)"
    else:
        bound = bounds.winnow_star_bound(n, k)
        text = "4 + 5(1 + log₂ 2n)·C_a with C_a = k (Angluin lecture 19)"
    return {"bound": bound, "bound_counts": "mistakes", "bound_name": text,
            "bound_note": f"k = {k} variables of a monotone disjunction consistent with the "
                          f"data (greedy cover), n = {n}; holds for any ordering"}


def _separator(mbcore, X, y, fit_intercept, epochs, separators):
    """A strict separator found by fitting (cached per fit_intercept), or why there is none.

    Returns ``(Xe, ypm, u, how)`` or a string (the reason): ``Xe`` is X with a column of ones
    appended when ``fit_intercept``, ``ypm`` the labels as -1/+1, ``u`` weights with
    ``ypm * (Xe @ u) > 0`` on every row, and ``how`` says how u was found.
    """
    if fit_intercept not in separators:
        separators[fit_intercept] = _find_separator(mbcore, X, y, fit_intercept, epochs)
    return separators[fit_intercept]


def _find_separator(mbcore, X, y, fit_intercept, epochs):
    """Perceptron.fit with tie="negative"; if that leaves a point at score 0, also tie="positive".

    A converged fit with tie="negative" scores every positive > 0 and every negative <= 0; with
    tie="positive", every positive >= 0 and every negative < 0.  So if each leaves a point on its
    hyperplane, the sum of the two unit-length weight vectors separates strictly.
    """
    import numpy as np
    from . import bounds
    Xe = np.asarray(X, dtype=np.float64)
    if fit_intercept:
        Xe = np.hstack([Xe, np.ones((Xe.shape[0], 1))])
    found, ypm = [], None
    for tie in ("negative", "positive"):
        fitted = mbcore.Perceptron(tie=tie, fit_intercept=fit_intercept,
                                   max_epochs=epochs).fit(X, y)
        if getattr(fitted, "cycled_", False):
            return "not linearly separable: Perceptron.fit's weights repeated (cycling theorem)"
        if not fitted.converged_:
            return (f"no separator: Perceptron.fit did not converge in {epochs} epochs (the data "
                    "may not be linearly separable; try --separator-epochs)")
        u = np.asarray(fitted.coef_, dtype=np.float64)
        if fit_intercept:
            u = np.append(u, fitted.intercept_)
        ypm = np.where(np.asarray(y) == fitted.classes_[1], 1, -1)
        if u.any() and bounds.margin(Xe, ypm, u) > 0:
            return _widen(mbcore, X, y, Xe, ypm, fit_intercept, epochs, u,
                          f"Perceptron.fit, tie={tie!r}, {fitted.n_iter_} epochs")
        found.append(u)
    if all(u.any() for u in found):
        u = found[0] / np.linalg.norm(found[0]) + found[1] / np.linalg.norm(found[1])
        if u.any() and bounds.margin(Xe, ypm, u) > 0:
            return _widen(mbcore, X, y, Xe, ypm, fit_intercept, epochs, u,
                          "sum of the unit weights of the tie='negative' and tie='positive' "
                          "Perceptron fits, each of which leaves a point at score 0")
    return "the separators found by fitting have zero margin"


_WIDEN_GAMMAS = (0.2, 0.1, 0.05, 0.02, 0.01, 0.005)


def _widen(mbcore, X, y, Xe, ypm, fit_intercept, epochs, u, how):
    """A larger-margin separator, if the Margin Perceptron finds one.

    On separable data MarginPerceptron(gamma).fit converges when the data has margin gamma,
    and then every unit-length example has margin >= gamma/2.  Try decreasing gammas and keep
    the separator with the largest normalised margin (any separator certifies the bounds).
    """
    import numpy as np
    from . import bounds
    best = bounds.margin(Xe, ypm, u, normalize=True)
    for g in _WIDEN_GAMMAS:
        if g / 2 <= best:
            break
        mp = mbcore.MarginPerceptron(gamma=g, fit_intercept=fit_intercept,
                                     max_epochs=epochs).fit(X, y)
        if mp.converged_:
            v = mp.coef_.copy()
            if fit_intercept:
                v = np.append(v, mp.intercept_)
            m = bounds.margin(Xe, ypm, v, normalize=True)
            if m > best:
                return Xe, ypm, v, f"MarginPerceptron(gamma={g}).fit, {mp.n_iter_} epochs"
            break
    return Xe, ypm, u, how


def _perceptron_bound(mbcore, params, X, y, epochs, separators):
    from . import bounds
    found = _separator(mbcore, X, y, params["fit_intercept"], epochs, separators)
    if isinstance(found, str):
        return _na(found)
    Xe, ypm, u, how = found
    if params["normalize"]:
        if not (Xe != 0).any(axis=1).all():
            return _na("a zero row cannot be normalised, so the unit-length bound does not apply")
        gamma = bounds.margin(Xe, ypm, u, normalize=True)
        return {"bound": bounds.perceptron_bound(1.0, gamma), "bound_counts": "mistakes",
                "bound_name": "(1/γ)² with unit-length examples and γ of a separator found by "
                              "Perceptron.fit",
                "bound_note": f"normalised margin γ = {gamma:.6g} (separator: {how}); holds for "
                              "any ordering"}
    R, gamma = bounds.radius(Xe), bounds.margin(Xe, ypm, u)
    return {"bound": bounds.perceptron_bound(R, gamma), "bound_counts": "mistakes",
            "bound_name": _SEPARATOR_NAME,
            "bound_note": f"R = {R:.6g}, γ = {gamma:.6g} (separator: {how}); holds for any "
                          "ordering"}


def _margin_perceptron_bound(mbcore, params, X, y, epochs, separators):
    from . import bounds
    if params["margin_fraction"] != 0.5:
        return _na(f"12/γ² is proved for margin_fraction=0.5, not "
                   f"{params['margin_fraction']!r}")
    found = _separator(mbcore, X, y, params["fit_intercept"], epochs, separators)
    if isinstance(found, str):
        return _na(found)
    Xe, ypm, u, how = found
    g = params["gamma"]
    if not (Xe != 0).any(axis=1).all():
        return _na("a zero row cannot be normalised, so Balcan's theorem does not apply")
    star = bounds.margin(Xe, ypm, u, normalize=True)
    if star < g:
        return _na(f"12/γ² needs a separator with normalised margin >= gamma={g}; the best "
                   f"separator found by fitting has {star:.6g} (a larger-margin one may exist)")
    return {"bound": bounds.margin_perceptron_bound(g), "bound_counts": "updates",
            "bound_name": "12/γ² (Balcan Thm 2; updates incl. margin mistakes)",
            "bound_note": f"γ = gamma = {g}; a separator found by fitting has normalised "
                          f"margin {star:.6g} >= gamma (separator: {how}); holds for any ordering"}


def _kernel_perceptron_bound(mbcore, params, X, y, epochs, separators):
    from . import bounds
    if params["budget"] is not None:
        return _na("a support-vector budget forgets mistakes, which voids the bound")
    if params["kernel"] != "linear":
        return _na(f"R²/γ² needs the margin in the {params['kernel']} kernel's feature space, "
                   "which is not computed")
    found = _separator(mbcore, X, y, False, epochs, separators)
    if isinstance(found, str):
        return _na(found)
    Xe, ypm, u, how = found
    R, gamma = bounds.radius(Xe), bounds.margin(Xe, ypm, u)
    return {"bound": bounds.kernel_perceptron_bound(R * R, gamma), "bound_counts": "mistakes",
            "bound_name": "R²/γ² (linear kernel: K(x,x) = ||x||²) with γ of a separator found "
                          "by Perceptron.fit",
            "bound_note": f"R = {R:.6g}, γ = {gamma:.6g} (separator: {how}); holds for any "
                          "ordering"}


# -- table ----------------------------------------------------------------------------------------

def _number(value):
    if value >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def _table(label, X, results):
    """The readable report: a header, one row per learner, and numbered footnotes."""
    notes = []

    def mark(text):
        if text not in notes:
            notes.append(text)
        return f"[{notes.index(text) + 1}]"

    header = ("learner", "mistakes", "updates", "bound", "examples/s", "vs twin")
    rows = []
    for r in results:
        if r["bound"] is None:
            bound = "n/a " + mark(f"n/a: {r['bound_note']}")
        else:
            bound = _number(r["bound"]) + " " + mark(
                f"{r['bound_name']}: {r['bound_note']}; bounds the {r['bound_counts']}")
            if not r["within_bound"]:
                bound += " " + mark(f"EXCEEDED: {r['learner']} made {r[r['bound_counts']]} "
                                    f"{r['bound_counts']}; this is a bug in the library")
        speed = "-" if r["examples_per_second"] is None else _number(r["examples_per_second"])
        rows.append((r["learner"], str(r["mistakes"]), str(r["updates"]), bound, speed,
                     _twin_cell(r, mark)))
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    lines = [f"{label}: {X.shape[0]} rows x {X.shape[1]} features; one online pass per learner "
             "in file order (predict, then learn the label)", ""]
    for row in [header] + rows:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    lines += [f"[{i + 1}] {text}" for i, text in enumerate(notes)]
    lines.append("examples/s: best of repeated passes, each by a fresh learner.  vs twin: time of "
                 "the pure-Python twin (mbref) / time of the compiled learner on the same first "
                 "rows.")
    return "\n".join(lines)


def _twin_cell(r, mark):
    if r["speedup_vs_twin"] is None:
        return "-"
    cell = f"{r['speedup_vs_twin']:,.0f}x on {r['twin_rows']} rows"
    if not r["twin_agrees"]:
        cell += " " + mark(f"{r['learner']}: the twin's predictions or updates differ from the "
                           f"compiled learner's on the first {r['twin_rows']} rows; this is a "
                           "bug in the library")
    return cell


if __name__ == "__main__":
    sys.exit(main())
