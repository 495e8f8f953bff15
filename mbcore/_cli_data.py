"""The data of the teaching commands (``mbcore._cli_teaching``: run, certify, plot, bench,
datasets): the dataset ``--dataset`` names, bundled or a file (svmlight or CSV, with its
options), read into memory in file order or shuffled; and which of the selected learners apply
to it (a learner that takes two classes on data of K >= 3, a row a learner refuses), with the
words of the notes and records that name the others.  Like the other modules of the command
line it finds the learners in ``mbcore._registry`` and names none.
"""

import os

from . import _registry
from ._cli_common import K_CLASS_LEARNERS, UsageError, did_you_mean, sniff_format, warn_sorted


def _load_data(args):
    """Return (label, X, y) for --dataset, a bundled name or a file path; in a random order
    with --shuffle (by --seed), else with a warning on stderr if the labels arrive sorted
    (the commands that have --shuffle: run, certify, plot)."""
    label, X, y = _read_data(args)
    if not hasattr(args, "shuffle"):
        return label, X, y
    if args.shuffle:
        import numpy as np
        order = np.random.default_rng(args.seed).permutation(len(y))
        return label, X[order], np.asarray(y)[order]
    from .streaming import LabelRuns
    warn_sorted(LabelRuns().add(y), label)
    return label, X, y


def _bundled_name(args):
    """The bundled dataset --dataset names (case-insensitive, as --learner; a file of that
    name wins over a case-insensitive match), set back on ``args``; None for a file."""
    from . import datasets
    if args.dataset in datasets.DATASETS:
        return args.dataset
    if os.path.isfile(args.dataset):
        return None
    for name in datasets.DATASETS:
        if args.dataset.lower() == name.lower():
            args.dataset = name
            return name
    return None


def _read_data(args):
    """(label, X, y) for --dataset, a bundled name or a file path, in file order."""
    from . import datasets
    name = _bundled_name(args)
    if name is not None:
        if args.fmt != "auto" or _csv_options(args) or args.zero_based:
            raise UsageError(f"--format, --label-column, --delimiter, --skip-header and "
                             f"--zero-based apply to files, not to the bundled dataset {name!r}")
        loader = getattr(datasets, datasets.DATASETS[name]["loader"])
        options = _loader_options(args, loader)
        X, y = loader(**options)
        if "encoding" not in options and _encodings(loader):
            args.encoding = _encodings(loader)[0]          # the loader's own
            if X.dtype.kind not in "biuf":                 # text: see _command_encoding
                args.encoding = _command_encoding(loader, options)
                X, y = loader(**options, encoding=args.encoding)
        return name, X, y
    if not os.path.isfile(args.dataset):
        raise OSError(f"--dataset {args.dataset!r} is neither a bundled dataset "
                      f"({', '.join(datasets.DATASETS)})"
                      f"{did_you_mean(args.dataset, datasets.DATASETS)} nor an existing file")
    if args.encoding is not None or args.digit is not None:
        raise UsageError("--encoding and --digit apply to the bundled datasets, not to files")
    fmt = sniff_format(args.dataset) if args.fmt == "auto" else args.fmt
    if fmt == "svmlight":
        if _csv_options(args):
            raise UsageError("--label-column, --delimiter and --skip-header apply to CSV files; "
                             f"{args.dataset!r} is read as svmlight")
        X, y = datasets.load_svmlight(args.dataset, **_svmlight_options(args))
        _finite_or_line(args, fmt, X, _svmlight_options(args))
    else:
        if args.zero_based:
            raise UsageError(f"--zero-based applies to svmlight files; {args.dataset!r} is read "
                             "as CSV")
        delimiter = "," if args.delimiter is None else args.delimiter
        column = -1 if args.label_column is None else args.label_column
        csv = {"label_column": column,
               "delimiter": None if delimiter == "whitespace" else delimiter}
        if args.skip_header is not None:
            csv["skip_header"] = args.skip_header
        X, y = datasets.load_csv(args.dataset, **csv)
        _finite_or_line(args, "csv", X, csv)
    return os.path.basename(args.dataset), X, y


def _svmlight_options(args):
    """The reading options of an svmlight file: zero_based=True with --zero-based, else the
    one rule of every command (zero_based=None): what the file declares (scikit-learn's
    "# Column indices are zero-based"), else one-based, an index 0 an error naming its line."""
    return {"zero_based": True} if args.zero_based else {"zero_based": None}


def _finite_or_line(args, fmt, X, options):
    """A file's rows hold no NaN or infinity (no learner takes them), or the error names the
    file and the line of the first that does (found by reading the file again with each row's
    line: only when there is one)."""
    import numpy as np
    values = X.data if hasattr(X, "tocsr") else np.asarray(X)
    if values.dtype.kind != "f" or np.isfinite(values).all():
        return
    from . import streaming
    at = 0
    for X_, _, lines in streaming.read_chunks(args.dataset, fmt, 65_536, lines=True, **options):
        dense = X_.toarray() if hasattr(X_, "toarray") else np.asarray(X_, dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(dense).all(axis=1))
        if bad.shape[0]:
            raise ValueError(f"{args.dataset}, line {int(lines[bad[0]]):,}: holds NaN or "
                             "infinity, which no learner takes")
        at += dense.shape[0]


def _command_encoding(loader, options):
    """The encoding the commands read a bundled dataset in by default: the loader's own,
    unless it holds text, which no learner takes: then the first of its other encodings that
    holds numbers."""
    encodings = _encodings(loader)
    for encoding in encodings:
        if loader(**options, encoding=encoding)[0].dtype.kind in "biuf":
            return encoding
    return encodings[0]


def _encodings(loader):
    """The encodings a bundled dataset's loader takes, its default first, as its docstring
    lists them (``encoding : {"real", "boolean"}, default="real"``); () when it has none."""
    import inspect
    import re
    parameter = inspect.signature(loader).parameters.get("encoding")
    if parameter is None:
        return ()
    found = re.search(r"^\s*encoding\s*:\s*\{([^}]*)\}", loader.__doc__ or "", re.M)
    names = re.findall(r"[\"']([^\"']+)[\"']", found.group(1)) if found else []
    return tuple(dict.fromkeys([parameter.default] + names))


def _loader_options(args, loader):
    """--encoding and --digit for a bundled dataset's loader."""
    import inspect
    accepted = inspect.signature(loader).parameters
    options = {}
    if args.encoding is not None:
        if "encoding" not in accepted:
            raise UsageError(f"--encoding: the bundled dataset {args.dataset!r} has one encoding")
        encodings = _encodings(loader)
        encoding = args.encoding.lower()
        if encoding not in encodings:
            raise UsageError(f"--encoding {args.encoding}: {args.dataset} is read as "
                             f"{' or '.join(encodings)}{did_you_mean(encoding, encodings)}")
        options["encoding"] = args.encoding = encoding
    if "digit" in accepted:
        if args.digit is not None:       # else the loader's default: every digit, K classes
            options["digit"] = args.digit
    elif args.digit is not None:
        raise UsageError(f"--digit applies to mnist, not to {args.dataset!r}")
    return options


def _csv_options(args):
    return args.label_column is not None or args.delimiter is not None or args.skip_header


# -- K classes: which learners take them ----------------------------------------------------------

def _probe(name, params, k):
    """The error of a fresh learner given k classes on one all-zero row (valid input for every
    family), or None when it takes them."""
    import numpy as np
    try:
        _registry.learner(name)(**params).partial_fit(np.zeros((1, 1)), [0],
                                                    classes=list(range(k)))
    except (ValueError, TypeError) as exc:
        return exc
    return None


def _row_problem(args, name, params, row, k):
    """Why a fresh learner cannot take the data's rows (text features; real values for the
    learners of 0/1 features), from its own error on the first row, with the option that
    would include it; None when it takes the row."""
    if row is None:
        return None

    def refusal(p):
        try:
            _registry.learner(name)(**p).partial_fit(row, [0], classes=list(range(max(k or 2,
                                                                                    2))))
        except (ValueError, TypeError) as exc:
            return " ".join(str(exc).split())
        return None

    msg = refusal(params)
    if msg is None:
        return None
    encodings = _dataset_encodings(args)
    if row.dtype.kind not in "biuf":
        hint = (" (--encoding boolean reads it as 0/1 features)"
                if "boolean" in encodings and args.encoding != "boolean" else "")
        return f"{name} takes numbers and the data holds text{hint}"
    if "Boolean" in msg or "0/1" in msg:
        hints = []
        if "boolean" in encodings and args.encoding != "boolean":
            hints.append("--encoding boolean")
        if params.get("features", "real") != "real" and \
                refusal({**params, "features": "real"}) is None:
            hints.append("--param features=real")
        hint = f" ({' or '.join(hints)})" if hints else ""
        return f"{name} takes 0/1 features and the data is real-valued{hint}"
    return None


def _dataset_encodings(args):
    """The encodings of the bundled dataset of --dataset, () for a file."""
    from . import datasets
    info = datasets.DATASETS.get(args.dataset)
    return () if info is None else _encodings(getattr(datasets, info["loader"]))


def _probe_row(X):
    """The row of X (as a 1-row matrix) that a learner of 0/1 features is asked about: the
    first that holds a value other than 0 and 1, else the first row."""
    import numpy as np
    if X.shape[0] == 0 or X.dtype.kind not in "biuf":
        return X[:1]
    other = np.flatnonzero(((X != 0) & (X != 1)).any(axis=1))
    i = int(other[0]) if other.shape[0] else 0
    return X[i:i + 1]


def _not_applicable(name, params, k):
    """None when the learner (with these parameters) takes k classes, else why not.

    Two classes are taken by every learner.  For k >= 3 the learner itself is asked (a probe
    on one row), so this follows the library; a learner that refuses two classes as well (a bad
    parameter) is left to run and report its own error.
    """
    if k is None or k <= 2:
        return None
    exc = _probe(name, params, k)
    if exc is None or _probe(name, params, 2) is not None:
        return None
    if _probe(name, _registry.learner(name)().get_params(), k) is None:
        return " ".join(str(exc).split())         # takes k classes, but not with these params
    return f"{name} takes two classes only"


def _digit_hint(args):
    """What to do for the two-class learners on a dataset that has a --digit option."""
    from . import datasets
    info = datasets.DATASETS.get(args.dataset)
    if info is None:
        return ""
    import inspect
    loader = getattr(datasets, info["loader"])
    if "digit" not in inspect.signature(loader).parameters:
        return ""
    return f" (with --digit D, {args.dataset} is digit D against the rest: two classes)"


def _select(args, names, params, label, k, row=None):
    """The learners to run on data of k classes whose first row is ``row``: (names that run,
    {name: reason} of the learners named with --learner that do not take k classes or these
    rows (n/a rows), {name: reason} of the default learners left out (a note)).  Raises when
    none of them takes the data."""
    run, out = [], {}
    for name in names:
        why = _not_applicable(name, params[name], k) or \
            _row_problem(args, name, params[name], row, k)
        if why is None:
            run.append(name)
        else:
            out[name] = why
    if not run:
        classes = any(_is_two_class_reason(n, why) for n, why in out.items())
        raise ValueError((f"{label} has {k} classes and none of the selected learners takes "
                          "the data" if k is not None and k > 2 else
                          f"none of the selected learners takes the data of {label}")
                         + f": {_reasons(args, out)}"
                         + (f"; the learners for K classes: {', '.join(K_CLASS_LEARNERS)}"
                            if classes else ""))
    return (run, out, {}) if args.learners else (run, {}, out)


def _is_two_class_reason(name, why):
    return why == f"{name} takes two classes only"


def _reasons(args, out):
    """The reasons of _not_applicable and _row_problem, the learners with the same reason in
    one group ("A, B take two classes only")."""
    groups = {}
    for name, why in out.items():
        key = why[len(name):] if why.startswith(name + " ") else None
        groups.setdefault(key if key is not None else why, []).append((name, key))
    parts = []
    for text, members in groups.items():
        names = [n for n, _ in members]
        if members[0][1] is None:
            parts.append(text)
            continue
        if len(names) > 1 and text.startswith(" takes "):
            text = " take " + text[len(" takes "):]
        if _is_two_class_reason(names[0], names[0] + members[0][1]):
            text += _digit_hint(args)
        parts.append(", ".join(names) + text)
    return "; ".join(parts)


def _not_applicable_text(args, k, name, why):
    """'not applicable to K classes: ...' (or 'not applicable: ...' for a reason of the data's
    features) for the table, the JSON and certify's lines."""
    if why.startswith((f"{name} takes 0/1 features ", f"{name} takes numbers ")):
        return f"not applicable: {_reasons(args, {name: why})}"
    return f"not applicable to {k} classes: {_reasons(args, {name: why})}"


def _skipped_note(args, label, k, skipped):
    """One line naming the default learners left out (k classes, or the data's features), with
    the reasons."""
    if not skipped:
        return ""
    return f"Not run on {_data_words(label, k)}: {_reasons(args, skipped)}."


def _data_words(label, k):
    """'mnist (10 classes)', or the label alone for two classes."""
    return f"{label} ({k} classes)" if k is not None and k > 2 else label


def _na_record(args, label, name, params, why, k):
    """The result of a learner that does not take the data's k classes (JSON and table)."""
    rec = {"dataset": label, "learner": name, "params": params, "applicable": False,
           "reason": _not_applicable_text(args, k, name, why),
           "n_classes": k}
    for key in ("n_samples", "mistakes", "updates", "seconds", "examples_per_second", "bound",
                "bound_counts", "bound_name", "bound_note", "within_bound", "twin_rows",
                "twin_seconds", "compiled_seconds_on_twin_rows", "speedup_vs_twin",
                "twin_agrees", "per_class", "balanced_error_rate", "false_positive_rate",
                "false_negative_rate"):
        rec[key] = None
    return rec
