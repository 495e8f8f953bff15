"""The file workflow of the ``mbcore`` command: ``mbcore train``, ``mbcore predict`` and
``mbcore evaluate`` (see :mod:`mbcore.cli`, which wires them into its parser with
:func:`add_workflow_parsers`).

One learner over a file or a pipe (svmlight, CSV or Vowpal Wabbit text), streamed in chunks
by :mod:`mbcore.streaming` (``train_file``, ``predict_file``, ``evaluate_file``), with the
model saved and loaded by :mod:`mbcore.persistence`.  Like :mod:`mbcore.cli`, this module
names no learner: which learners it takes comes from ``mbcore._registry``.
"""

import argparse
import json
import os
import sys
import time

from . import _registry
from ._cli_common import (CLASSES_HELP, K_CLASS_LEARNERS, LEARNERS, Progress, UsageError,
                          add_order_options, class_fields, class_lines, class_rate_table, emit,
                          learner_name, learner_params, number, param, positive_int,
                          sniff_format, stream_classes, warn_sorted)

__all__ = ["add_workflow_parsers"]


def _fixed_width():
    """The learners of the data commands whose state cannot grow with the width (tag
    ``grows``), as the classes declare it."""
    return ", ".join(n for n in LEARNERS if not _registry.learner(n)._TAGS.grows)

_WORKFLOW_LEARNERS = LEARNERS


def _add_source_options(p, predict=False):
    p.add_argument("--data", required=True, metavar="FILE|-",
                   help="the examples: a file (plain or gzip) or - for standard input")
    p.add_argument("--format", dest="fmt", choices=("auto", "svmlight", "csv", "vw"),
                   default=None,
                   help="input format (default: the format a saved model was trained from; "
                        "else auto: sniffed from a file's first lines, svmlight for standard "
                        "input)")
    p.add_argument("--bits", type=positive_int, default=None, metavar="B",
                   help="vw only: hash feature names into 2**B columns (default: a saved "
                        "model's; else 18, as vw -b)")
    p.add_argument("--n-features", type=positive_int, default=None, metavar="D",
                   help="svmlight: the number of columns, checked on every line (default: none "
                        "needed: the width grows as the indices arrive, from a file or standard "
                        "input alike, with no first pass, and so does the learner's state; the "
                        f"learners that need the width up front, {_fixed_width()}, find it by a "
                        "first pass over a file and need --n-features on standard input)")
    p.add_argument("--zero-based", action="store_true", default=None,
                   help="svmlight: index 0 is the first column (default: a saved model's "
                        "reading; else what the file's first comment lines declare, as "
                        "scikit-learn writes '# Column indices are zero-based'; else "
                        "one-based, LIBSVM's convention, and an index 0 is an error naming "
                        "its line)")
    p.add_argument("--max-features", type=positive_int, default=None, metavar="M",
                   help="svmlight without --n-features: the widest the stream may grow "
                        "(default 67,108,864 = 2**26); a larger index is an error naming its "
                        "line, before anything is allocated for it")
    p.add_argument("--label-column", type=int, default=None, metavar="K",
                   help="CSV only: index of the label column, counting from 0, negative from "
                        "the end (default: a saved model's; else -1, the last)")
    p.add_argument("--delimiter", default=None, metavar="CHAR",
                   help="CSV only: field separator (default: a saved model's; else ',')")
    p.add_argument("--skip-header", action="store_true", default=None,
                   help="CSV only: the first line is a header (default: a saved model's "
                        "reading; else sniffed: a first line whose fields are not numbers)")
    if predict:
        p.add_argument("--no-label", action="store_true",
                       help="the rows carry no label: CSV lines hold only the features (every "
                            "column); svmlight lines that start with a feature (idx:value) "
                            "are read without a label whether or not this is given")
    p.add_argument("--override-reading", action="store_true",
                   help="read the data as these options say even where they contradict how a "
                        "saved model's training data was read (which is refused otherwise: "
                        "its features would land in other columns)")
    p.add_argument("--chunk-size", type=positive_int, default=8_192, metavar="N",
                   help=("examples parsed and predicted at a time (default 8,192)" if predict
                         else "examples parsed and learned at a time (default 8,192)"))
    p.add_argument("--workers", type=positive_int, default=None, metavar="N",
                   help="svmlight: threads that parse the input in parallel, ahead of the "
                        "learner (default: the cores but one, at most 4, at least 1; or "
                        "$MBCORE_READ_WORKERS)")
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="show a progress line on stderr (default: when stderr is a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress line")
    p.add_argument("--json", action="store_true", help="print a JSON summary")


def _add_learner_options(p):
    """The learner options that train and evaluate share."""
    p.add_argument("--param", dest="params", metavar="NAME=VALUE", action="append", default=[],
                   type=param, help="a parameter of the learner (repeatable)")
    p.add_argument("--classes", default=None, metavar="A,B[,C...]", help=CLASSES_HELP)


def _add_ask_options(p, train=False):
    p.add_argument("--ask", type=_positive_real, action="append", default=None, metavar="B",
                   help="selective sampling: the learner (a linear learner, the "
                        "Perceptron by default) asks for a row's label with probability "
                        "B / (B + |score|) (K classes: the gap between its two highest "
                        "scores) and learns from the asked rows only; " +
                        ("--model saves the sampler (its learner, B and generator: "
                         "--warm-start continues it, predict predicts with its learner)"
                         if train else
                         "the report gives the labels asked beside the mistakes (on every "
                         "row).  Repeat it (--ask 0.1 --ask 1 --ask 10) for the "
                         "labels-vs-mistakes curve") +
                        "; --seed S seeds its coin (default 0), and the rows are taken in "
                        "the order of the source (no --shuffle)")
    p.add_argument("--adaptive", action="store_true",
                   help="with --ask: the adaptive B of Cesa-Bianchi, Gentile & Zaniboni")


def add_workflow_parsers(sub):
    p = sub.add_parser("train", help="train one learner on a file or a pipe and save the model",
                       description="Train one learner online (predict, then learn, every "
                                   "example in order) and save it with learner.save (a .npz "
                                   "that 'mbcore predict' and mbcore.load read).")
    p.add_argument("--learner", type=learner_name, default=None, metavar="NAME",
                   help="the learner (case-insensitive): " + ", ".join(_WORKFLOW_LEARNERS) +
                        "; on data of K >= 3 classes: " + ", ".join(K_CLASS_LEARNERS) +
                        " (the others take two classes).  Required unless --warm-start "
                        "gives the learner")
    p.add_argument("--model", required=True, metavar="OUT.npz", help="where to save the model")
    p.add_argument("--passes", type=positive_int, default=1, metavar="K",
                   help="passes over the data (more than one needs a file)")
    p.add_argument("--warm-start", default=None, metavar="IN.npz",
                   help="continue the run of a saved model (exactly as one longer run): the "
                        "learner, its parameters and how its data was read come from the file "
                        "(--learner, if given, must name the same learner); data of another "
                        "width or format than the model's is refused.  A saved selective "
                        "sampler (--ask) goes on asking, with its B and its generator")
    _add_ask_options(p, train=True)
    _add_learner_options(p)
    _add_source_options(p)
    add_order_options(p, stream=True)
    p.set_defaults(handler=_cmd_train)

    p = sub.add_parser("predict", help="stream the predictions of a saved model",
                       description="Predict every example of a file or a pipe with a saved "
                                   "model, one line each (the label as written in the training "
                                   "data, or with --raw the score, K scores for K >= 3 "
                                   "classes); the model does not change.  The data is read as "
                                   "the model's training data was (format, --zero-based, "
                                   "--bits, the CSV options: recorded in the model).  Labels "
                                   "in the data are read and ignored, and rows may have none "
                                   "(svmlight lines that start with a feature; CSV with "
                                   "--no-label).")
    p.add_argument("--model", required=True, metavar="M.npz", help="a model saved by train")
    p.add_argument("--out", default="-", metavar="FILE|-",
                   help="where to write the predictions (default: - for standard output)")
    p.add_argument("--raw", action="store_true",
                   help="write decision_function scores instead of labels: one score per line "
                        "for a two-class model; for a model of K >= 3 classes, K scores per "
                        "line, space-separated, in the order of the model's classes_ (the "
                        "labels sorted)")
    p.add_argument("--line-buffered", dest="line_buffered", action="store_true", default=None,
                   help="answer each input line as it arrives (default: when the input is a "
                        "terminal)")
    p.add_argument("--no-line-buffered", dest="line_buffered", action="store_false",
                   help="read the input in chunks")
    _add_source_options(p, predict=True)
    p.set_defaults(handler=_cmd_predict)

    p = sub.add_parser("evaluate", help="progressive validation of a learner on a file or pipe",
                       description="Predict each example, then learn it, and report the "
                                   "mistakes at 1, 2, 4, 8, ... examples and at the end (as "
                                   "Vowpal Wabbit reports its progressive loss).")
    p.add_argument("--learner", type=learner_name, default=None, metavar="NAME",
                   help="the learner (or --warm-start to continue a saved model)")
    p.add_argument("--warm-start", default=None, metavar="IN.npz",
                   help="continue the run of a saved model (its learner, parameters and "
                        "reading, as for train); a saved selective sampler goes on asking, "
                        "with its B and its generator")
    p.add_argument("--model", default=None, metavar="OUT.npz",
                   help="also save the learner at the end (with --ask B: the selective "
                        "sampler, one B)")
    _add_ask_options(p)
    _add_learner_options(p)
    _add_source_options(p)
    add_order_options(p, stream=True)
    p.set_defaults(handler=_cmd_evaluate)


# The command-line options of each reader option that decides the features.
_FLAGS = {"zero_based": "zero_based", "bits": "bits", "label_column": "label_column",
          "delimiter": "delimiter", "skip_header": "skip_header"}
_FORMAT_OF = {"zero_based": "svmlight", "bits": "vw", "label_column": "csv", "delimiter": "csv",
              "skip_header": "csv"}
_OPTION = {"zero_based": "--zero-based", "bits": "--bits", "label_column": "--label-column",
           "delimiter": "--delimiter", "skip_header": "--skip-header"}


def _recorded(model):
    """How a saved model's training data was read (``reading_``), or None."""
    if model is None or not model._is_fitted():
        return None
    return getattr(model, "reading_", None)


def _source(args, model=None, model_file=None):
    """(source for the readers, display name, format, reader options).  The format and the
    options that decide the features come from the command line where given, else from how
    the model's training data was read (mbcore.streaming.reading_options, which also refuses
    an option that contradicts it)."""
    stdin = args.data == "-"
    rec = _recorded(model)
    if stdin:
        source, name = sys.stdin.buffer, "<stdin>"
    else:
        if not os.path.exists(args.data):
            raise OSError(f"--data {args.data!r}: no such file")
        if os.path.isdir(args.data):
            raise OSError(f"--data {args.data!r} is a folder, not a file")
        source, name = args.data, args.data
    if args.fmt not in (None, "auto"):
        fmt = args.fmt
    elif rec is not None and args.fmt is None:
        fmt = rec["format"]
    else:
        fmt = "svmlight" if stdin else sniff_format(args.data)
    given = {key: getattr(args, flag) for key, flag in _FLAGS.items()
             if getattr(args, flag) is not None}
    for key in given:
        if _FORMAT_OF[key] != fmt:
            which = {"svmlight": "svmlight", "vw": "Vowpal Wabbit's text (vw)",
                     "csv": "CSV"}[_FORMAT_OF[key]]
            raise UsageError(f"{_OPTION[key]} applies to {which} input; {name} is read as "
                             f"{fmt}")
    if getattr(args, "no_label", False):
        if fmt == "csv":
            given["label_column"] = None
        elif fmt == "vw":
            raise UsageError("--no-label applies to CSV (and svmlight) input; in Vowpal "
                             f"Wabbit's text a line without a label starts with '|'")
    options = dict(given)
    if fmt == "svmlight":
        # No first pass: --n-features, or the width of a saved model that cannot grow, else
        # the width grows as the indices arrive (mbcore.streaming.train_file / evaluate_file).
        d = args.n_features if args.n_features is not None else (
            model.n_features_in_ if model is not None and model._is_fitted() and
            not model._TAGS.grows else None)
        if d is None and stdin and model is not None and not model._TAGS.grows:
            raise UsageError(f"--learner {type(model).__name__} needs --n-features D: it needs "
                             f"the number of features up front ({model._TAGS.needs_width}), and "
                             "standard input cannot be read twice to find it")
        if d is not None:
            options["n_features"] = d
            if args.max_features is not None:
                raise UsageError("--max-features caps a stream of unknown width; with "
                                 "--n-features the width is known")
        elif args.max_features is not None:
            options["max_features"] = args.max_features
        if args.workers is not None:
            options["workers"] = args.workers
    if fmt != "svmlight" and args.max_features is not None:
        raise UsageError(f"--max-features applies to svmlight input; {name} is read as {fmt}")
    if fmt != "svmlight" and args.workers is not None:
        raise UsageError(f"--workers applies to svmlight input; {name} is read as {fmt}")
    if fmt != "svmlight" and args.n_features is not None:
        raise UsageError(f"--n-features applies to svmlight input; {name} is read as {fmt}")
    if model is not None and model._is_fitted() and rec is None and model_file is not None:
        _unknown_reading(model_file, name, fmt, given)
    return source, name, fmt, options


_DEFAULT_READING = {
    "zero_based": "indices one-based unless the file declares them zero-based (--zero-based)",
    "bits": "2**18 hashed columns (--bits)",
    "label_column": "the label in the last column (--label-column)",
    "delimiter": "',' between fields (--delimiter)",
    "skip_header": "a header only when the first line is not numbers (--skip-header)",
}


def _unknown_reading(model_file, name, fmt, given):
    """A model that does not record how its data was read (saved by mbcore 0.2.0): say once
    how the data will be read, when an option that decides it was not given."""
    from .workflow import READING
    missing = [_DEFAULT_READING[k] for k in READING[fmt] if k not in given and
               k in _DEFAULT_READING]
    if not missing:
        return
    print(f"mbcore: warning: {model_file} does not record how its training data was read (a "
          f"file of mbcore 0.2.0, or a model not trained from a file): {name} is read as "
          f"{fmt}, {'; '.join(missing)}; if the training data was read otherwise, give the "
          "same options", file=sys.stderr)


def _load_model(path, option):
    """mbcore.load, a missing file said as a missing --data is."""
    import mbcore
    if not os.path.exists(path):
        raise OSError(f"{option} {path!r}: no such file")
    if os.path.isdir(path):
        raise OSError(f"{option} {path!r} is a folder, not a model file")
    return mbcore.load(path)


def _workflow_learner(args):
    if args.warm_start is not None:
        if args.params:
            raise UsageError("--param and --warm-start: the saved model keeps its parameters")
        learner = getattr(args, "_warm", None) or _load_model(args.warm_start, "--warm-start")
        if args.learner is not None and type(learner).__name__ != args.learner:
            raise UsageError(f"--learner {args.learner} but --warm-start {args.warm_start!r} "
                             f"holds a {type(learner).__name__}: leave --learner out (the "
                             "file gives the learner) or start a new model")
        return learner
    if args.learner is None:
        raise UsageError("--learner NAME is required (or --warm-start IN.npz to continue a "
                         "saved model)")
    params = learner_params([args.learner], args.params)[args.learner]
    return _registry.learner(args.learner)(**params)


def _check_output(path, option="--model"):
    """Refuse, before any work, a path the model cannot be written to (naming it as given)."""
    if path is None:
        return
    if os.path.isdir(path):
        raise OSError(f"{option} {path!r} is a folder; give a file name, e.g. "
                      f"{os.path.join(path, 'model.npz')!r}")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise OSError(f"{option} {path!r}: the folder {os.path.dirname(path) or '.'!r} does "
                      "not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (
            os.path.exists(path) and not os.access(path, os.W_OK)):
        raise OSError(f"{option} {path!r}: cannot be written (permission denied)")


def _check_warm_width(learner, args, source, name, fmt, options):
    """A warm start on data of another width than the model's is refused, naming both: a
    file's width is read before any learning (svmlight: its largest index, by a scan; CSV:
    the columns of its first row); standard input is left to the learner's own checks."""
    if args.warm_start is None or args.data == "-" or args.override_reading or \
            not learner._is_fitted():
        return
    from .workflow import read_chunks, reading_options
    # (an option that contradicts the model's reading is refused first, naming both)
    fmt, resolved, _ = reading_options("--warm-start", learner, source, fmt, options)
    d = learner.n_features_in_
    if fmt == "svmlight":
        if "n_features" in options and args.n_features is not None:
            if args.n_features != d:
                raise ValueError(f"--n-features {args.n_features} but the model "
                                 f"{args.warm_start} has {d:,} features")
            return
        from ._readers import svmlight_scan_file
        low, high = svmlight_scan_file(source, "iter_svmlight", name)
        if high < 0:
            return
        width = high + (1 if resolved.get("zero_based") else 0)
        if width != d:
            raise ValueError(f"{name} has {width:,} features (its largest index is {high}) but "
                             f"the model {args.warm_start} has {d:,}: other data than the "
                             f"model's? If {name} has the model's {d:,} columns and only "
                             f"leaves the last ones unused, give --n-features {d}; "
                             "--override-reading continues on it as it is")
    elif fmt == "csv":
        for item in read_chunks(source, "csv", 1, **resolved):
            width = item[0].shape[1]
            if width != d:
                raise ValueError(f"{name} has {width:,} feature columns but the model "
                                 f"{args.warm_start} has {d:,}: other data than the model's "
                                 "(or another --label-column)?")
            break


def _plain_failure(exc, written):
    """An error of the learner, said for the command line: 'the learner was left as before
    the call' means nothing to a user of the command; what matters is the file."""
    if not isinstance(exc, ValueError):
        return exc
    text = str(exc)
    for phrase in ("; the learner was left as before the call",
                   ", and the learner was left as before the call",
                   "the learner was left as before the call"):
        text = text.replace(phrase, "")
    if written:
        text += "; no model was written"
    if text == str(exc):
        return exc
    try:
        return type(exc)(text)
    except Exception:               # noqa: BLE001 - an exception class with other arguments
        return ValueError(text)


def _label_hint(exc, fmt, options):
    """A CSV whose label column holds real values: the labels are likely in another column."""
    text = str(exc)
    if fmt != "csv" or "looks continuous" not in text:
        return exc
    col = options.get("label_column", -1)
    where = "the last column" if col in (None, -1) else f"column {col} (counting from 0)"
    head = text.split(" a regression target?")[0].rstrip(":; ")
    return ValueError(f"{head}: the label column, {where}, holds real values, not class "
                      "labels; if the labels are in another column, give --label-column K "
                      "(0 for the first column, as pandas' to_csv writes a column inserted "
                      "first)")


def _summary(stats, name, learner, fmt, extra, passes=1):
    out = {"data": name, "format": fmt, "learner": type(learner).__name__,
           "n_samples": stats.n // passes, "n_steps": stats.n, "mistakes": stats.mistakes,
           "updates": stats.updates,
           "error_rate": stats.error_rate if stats.n else None, "seconds": stats.seconds,
           "examples_per_second": stats.n / stats.seconds if stats.seconds > 0 else None}
    out.update(extra)
    return out


def _plural(n, word, plural=None):
    return f"{n:,} {word if n == 1 else (plural or word + 's')}"


def _cmd_train(args):
    from .streaming import LabelRuns
    from .workflow import train_file
    warm = _selective_warm(args)
    if args.ask or warm is not None:
        return _cmd_train_asking(args, warm)
    if args.adaptive:
        raise UsageError("--adaptive goes with --ask B (selective sampling)")
    _check_output(args.model)
    learner = _workflow_learner(args)
    source, name, fmt, options = _source(args, learner, args.warm_start)
    if args.passes > 1 and args.data == "-":
        raise UsageError("--passes: standard input can be read once; give a file")
    _check_warm_width(learner, args, source, name, fmt, options)
    show = sys.stderr.isatty() if args.progress is None else args.progress
    progress = Progress(type(learner).__name__, show)
    runs = LabelRuns()
    order = {"shuffle": (args.seed, args.shuffle_buffer)} if args.shuffle else \
        {"labels_seen": runs.add}
    try:
        stats = train_file(learner, source, format=fmt, passes=args.passes,
                           chunk_size=args.chunk_size, classes=stream_classes(args),
                           callback=progress, override_reading=args.override_reading,
                           **order, **options)
    except ValueError as exc:
        raise _label_hint(_plain_failure(exc, True), fmt, options) from exc
    finally:
        progress.close()
    warn_sorted(runs, name)
    if stats.n == 0:
        raise ValueError(f"{name} holds no examples: nothing to train on; no model was written")
    learner.save(args.model)
    summary = _summary(stats, name, learner, fmt, {"passes": args.passes, "model": args.model,
                                                   "warm_start": args.warm_start},
                       args.passes)
    if args.json:
        emit(json.dumps(summary, indent=2, default=str))
    else:
        rows = stats.n // args.passes
        emit(f"{summary['learner']}: {_plural(rows, 'example')} ({_plural(args.passes, 'pass', 'passes')}), "
             f"{_plural(stats.mistakes, 'mistake')} "
             f"({100.0 * stats.error_rate:.2f}% progressive), {_plural(stats.updates, 'update')}, "
             f"{number(summary['examples_per_second'] or 0.0)} examples/s; saved to "
             f"{args.model}")
    return 0


def _cmd_predict(args):
    from .workflow import predict_file
    if args.progress:
        raise UsageError("--progress: predict writes its output as it goes; no progress line")
    if args.out != "-":
        _check_output(args.out, "--out")
    model = _load_model(args.model, "--model")
    if not model._is_fitted():
        raise ValueError(f"{args.model} holds an unfitted {type(model).__name__}: train it first")
    from .selective import SelectiveSampler
    if isinstance(model, SelectiveSampler):     # (its learner predicts)
        model = model.learner_
    source, name, fmt, options = _source(args, model, args.model)
    line = args.line_buffered
    if line is None:
        line = args.data == "-" and sys.stdin.isatty()
    out = None if args.out == "-" else args.out
    start = time.perf_counter()
    try:
        n = predict_file(model, source, out, format=fmt, raw=args.raw,
                         chunk_size=args.chunk_size, line_buffered=line,
                         override_reading=args.override_reading, **options)
    except ValueError as exc:
        text = str(exc)
        if fmt == "csv" and not args.no_label and "features, but" in text and \
                f"has {model.n_features_in_ - 1} features" in text:
            exc = ValueError(f"{text}; do the rows carry no label? give --no-label")
        raise _plain_failure(exc, False) from exc
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps({"data": name, "model": args.model, "n_samples": n,
                          "seconds": seconds, "out": args.out,
                          "examples_per_second": n / seconds if seconds > 0 else None}),
              file=sys.stderr if out is None else sys.stdout)
    return 0


def _positive_real(text):
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (v > 0.0 and v < float("inf")):
        raise argparse.ArgumentTypeError(f"expected a real number > 0, got {text!r}")
    return v


def _warm_sampler(args, sampler):
    """``--warm-start`` of a saved selective sampler: what the command line gives must agree
    with the file (which keeps the learner, its parameters, b, the variant and the generator)."""
    if args.params:
        raise UsageError("--param and --warm-start: the saved sampler keeps its learner's "
                         "parameters")
    if not sampler._is_fitted():
        raise ValueError(f"{args.warm_start} holds a selective sampler that has seen no "
                         "example: start a new run with --ask B instead")
    learned = type(sampler.learner_).__name__
    if args.learner is not None and args.learner != learned:
        raise UsageError(f"--learner {args.learner} but --warm-start {args.warm_start!r} holds "
                         f"a selective sampler of a {learned}: leave --learner out (the file "
                         "gives the learner) or start a new run")
    if args.ask and (len(args.ask) > 1 or args.ask[0] != float(sampler.b)):
        raise UsageError(f"--ask {' --ask '.join(f'{b:g}' for b in args.ask)} but "
                         f"--warm-start {args.warm_start!r} holds a selective sampler of B "
                         f"{float(sampler.b):g}: leave --ask out (the saved sampler keeps its "
                         "B) or give that one")
    if args.adaptive and not sampler.adaptive:
        raise UsageError(f"--adaptive but --warm-start {args.warm_start!r} holds a selective "
                         "sampler with a fixed B: leave --adaptive out or start a new run")
    if args.ask and args.seed is not None:
        raise UsageError("--seed and --warm-start: the saved sampler's generator goes on "
                         "where it stopped (a seed would start it again)")
    args.ask = [float(sampler.b)]
    args.adaptive = bool(sampler.adaptive)
    return learned


def _run_asking(args, samplers, source, shown, fmt, options, passes=1, quiet=False):
    """One selective run over the source per sampler (each ``passes`` times); a run of a
    fitted (warm-started) sampler continues it.  Returns the curve, one entry per sampler."""
    from .workflow import ASK_HEADER, ask_line, evaluate_asking
    name = args.learner
    curve = []
    for b, sampler in samplers:
        def show(line, first=[True], b=b):      # (the heading with the first line reached)
            if first[0]:
                emit(f"{name + ', ' if name else ''}--ask {b:g}"
                     f"{' --adaptive' if args.adaptive else ''}:")
                emit(ASK_HEADER)
                first[0] = False
            emit(ask_line(line))
        total = [0, 0, 0]
        report = []
        counted = None                  # (the per-class counts of every pass)
        for _ in range(passes):
            try:
                lines = evaluate_asking(sampler, source, format=fmt,
                                        chunk_size=args.chunk_size,
                                        classes=stream_classes(args),
                                        on_line=None if args.json or quiet else show,
                                        override_reading=args.override_reading, **options)
            except ValueError as exc:
                raise _plain_failure(exc, args.model is not None) from exc
            if not lines:
                raise ValueError(f"{shown} holds no examples: nothing to "
                                 f"{'train on' if quiet else 'evaluate'}"
                                 f"{'; no model was written' if args.model else ''}")
            for k in range(3):
                total[k] += lines[-1][k]
            report += [list(x) for x in lines]
            if counted is None:
                counted = lines
            elif lines.class_counts is not None:
                counted.class_counts = counted.class_counts + lines.class_counts
                counted.class_mistakes = counted.class_mistakes + lines.class_mistakes
        n, asked, mistakes = total
        curve.append({"b": b, "examples": n, "labels_asked": asked, "mistakes": mistakes,
                      "report": report, **class_fields(counted)})
    return curve


def _cmd_evaluate_asking(args, warm=None):
    """``evaluate --ask B ...``: one selective run per B over the source, each reported at
    doubling row counts, then the curve: labels asked against mistakes, one line per B.
    ``--model OUT`` saves the sampler (one B); ``--warm-start IN`` (``warm``: the sampler it
    holds) continues a saved one."""
    from .selective import SelectiveSampler
    if args.shuffle:
        raise UsageError("--ask and --shuffle: the sampler draws its coin row by row in the "
                         "order of the source (its seed replays a run only in that order); "
                         "shuffle the file itself, or leave one of them out")
    if args.model is not None and len(args.ask or ()) > 1:
        raise UsageError("--model saves one selective sampler: give one --ask B with it")
    _check_output(args.model)
    if warm is not None:
        _warm_sampler(args, warm)
    elif args.data == "-" and len(args.ask) > 1:
        raise UsageError("--ask more than once reads the data once per B: give a file, not "
                         "standard input")
    name = args.learner                 # (None: the sampler's default learner)
    if name is None and args.params:
        raise UsageError("--param goes with --learner NAME (the learner it sets)")
    params = learner_params([name], args.params)[name] if name is not None else {}
    if warm is not None:
        samplers = [(float(warm.b), warm)]
        source, shown, fmt, options = _source(args, warm.learner_, args.warm_start)
        _check_warm_width(warm.learner_, args, source, shown, fmt, options)
    else:
        samplers = [(b, SelectiveSampler(None if name is None else
                                         _registry.learner(name)(**params),
                                         b=b, adaptive=args.adaptive,
                                         random_state=args.seed or 0)) for b in args.ask]
        source, shown, fmt, options = _source(args, None, None)
    curve = _run_asking(args, samplers, source, shown, fmt, options)
    sampler = samplers[-1][1]
    if args.model is not None:
        sampler.save(args.model)
    learned = type(sampler.learner_).__name__
    if args.json:
        emit(json.dumps({"learner": learned, "data": shown, "adaptive": args.adaptive,
                         "model": args.model, "warm_start": args.warm_start,
                         "curve": curve}, indent=2))
        return 0
    emit(f"{learned} (selective sampling), the labels asked against the mistakes:")
    emit("")
    emit("        b   labels asked   mistakes   error rate")
    for c in curve:
        emit(f"{c['b']:>9g}   {c['labels_asked']:>12,}   {c['mistakes']:>8,}   "
             f"{c['mistakes'] / c['examples']:>10.6f}   ({c['labels_asked'] / c['examples']:.1%}"
             " of the labels)")
    if curve[0]["per_class"] is not None:
        emit("")
        for line in class_rate_table([(f"b = {c['b']:g}", c) for c in curve]):
            emit(line)
    if args.model is not None:
        emit(f"saved to {args.model}")
    return 0


def _cmd_train_asking(args, warm=None):
    """``train --ask B --model OUT``: one selective run (``--passes`` times) over the source,
    the sampler saved; ``--warm-start IN`` continues a saved sampler."""
    from .selective import SelectiveSampler
    if args.shuffle:
        raise UsageError("--ask and --shuffle: the sampler draws its coin row by row in the "
                         "order of the source (its seed replays a run only in that order); "
                         "shuffle the file itself, or leave one of them out")
    if len(args.ask or ()) > 1:
        raise UsageError("train --ask saves one selective sampler: give one --ask B (evaluate "
                         "--ask B --ask B2 ... gives the curve)")
    if args.passes > 1 and args.data == "-":
        raise UsageError("--passes: standard input can be read once; give a file")
    _check_output(args.model)
    if warm is not None:
        _warm_sampler(args, warm)
        sampler = warm
        source, shown, fmt, options = _source(args, warm.learner_, args.warm_start)
        _check_warm_width(warm.learner_, args, source, shown, fmt, options)
    else:
        name = args.learner
        if name is None and args.params:
            raise UsageError("--param goes with --learner NAME (the learner it sets)")
        params = learner_params([name], args.params)[name] if name is not None else {}
        sampler = SelectiveSampler(None if name is None else _registry.learner(name)(**params),
                                   b=args.ask[0], adaptive=args.adaptive,
                                   random_state=args.seed or 0)
        source, shown, fmt, options = _source(args, None, None)
    start = time.perf_counter()
    c = _run_asking(args, [(args.ask[0], sampler)], source, shown, fmt, options,
                    passes=args.passes, quiet=True)[0]
    seconds = time.perf_counter() - start
    sampler.save(args.model)
    learned = type(sampler.learner_).__name__
    if args.json:
        emit(json.dumps({"data": shown, "format": fmt, "learner": learned,
                         "selective": {"b": c["b"], "adaptive": args.adaptive},
                         "n_samples": c["examples"] // args.passes, "n_steps": c["examples"],
                         "labels_asked": c["labels_asked"], "mistakes": c["mistakes"],
                         "error_rate": c["mistakes"] / c["examples"],
                         "seconds": seconds, "passes": args.passes, "model": args.model,
                         "warm_start": args.warm_start}, indent=2))
        return 0
    emit(f"{learned} (selective sampling, --ask {c['b']:g}"
         f"{' --adaptive' if args.adaptive else ''}): "
         f"{_plural(c['examples'] // args.passes, 'example')} "
         f"({_plural(args.passes, 'pass', 'passes')}), "
         f"{_plural(c['labels_asked'], 'label')} asked ({c['labels_asked'] / c['examples']:.1%}), "
         f"{_plural(c['mistakes'], 'mistake')} ({100.0 * c['mistakes'] / c['examples']:.2f}% "
         f"progressive); saved to {args.model}")
    return 0


def _selective_warm(args):
    """The saved selective sampler of ``--warm-start``, or None (no --warm-start, or a file of
    another learner)."""
    from .selective import SelectiveSampler
    if args.warm_start is None:
        return None
    model = _load_model(args.warm_start, "--warm-start")
    if isinstance(model, SelectiveSampler):
        return model
    if args.ask:
        raise UsageError(f"--ask and --warm-start {args.warm_start!r}, which holds a "
                         f"{type(model).__name__}, not a selective sampler: --warm-start "
                         "continues a sampler saved with --ask B --model OUT; leave one of "
                         "them out")
    args._warm = model                  # (loaded once: the learner's own run takes it)
    return None


def _cmd_evaluate(args):
    from .streaming import LabelRuns
    from .workflow import REPORT_HEADER, evaluate_file, report_line
    warm = _selective_warm(args)
    if args.ask or warm is not None:
        return _cmd_evaluate_asking(args, warm)
    if args.adaptive:
        raise UsageError("--adaptive goes with --ask B (selective sampling)")
    _check_output(args.model)
    learner = _workflow_learner(args)
    source, name, fmt, options = _source(args, learner, args.warm_start)
    _check_warm_width(learner, args, source, name, fmt, options)

    def show(line):
        if args.json:
            return
        if show.first:
            emit(REPORT_HEADER)
            show.first = False
        emit(report_line(line))
        sys.stdout.flush()
    show.first = True
    runs = LabelRuns()
    if args.shuffle:
        options["shuffle"] = (args.seed, args.shuffle_buffer)
    else:
        options["labels_seen"] = runs.add
    try:
        report = evaluate_file(learner, source, format=fmt, chunk_size=args.chunk_size,
                               classes=stream_classes(args), on_line=show,
                               override_reading=args.override_reading, **options)
    except ValueError as exc:
        raise _label_hint(_plain_failure(exc, args.model is not None), fmt, options) from exc
    warn_sorted(runs, name)
    stats = report.stats
    if stats.n == 0:
        raise ValueError(f"{name} holds no examples: nothing to evaluate")
    if args.model is not None:
        learner.save(args.model)
    summary = _summary(stats, name, learner, fmt, {"model": args.model,
                                                   "warm_start": args.warm_start,
                                                   "report": [list(r) for r in report.lines],
                                                   **class_fields(stats)})
    if args.json:
        emit(json.dumps(summary, indent=2, default=str))
    else:
        emit(f"{summary['learner']}: {_plural(stats.n, 'example')}, "
             f"{_plural(stats.mistakes, 'progressive mistake')} "
             f"({100.0 * stats.error_rate:.4f}%), "
             f"{number(summary['examples_per_second'] or 0.0)} examples/s")
        if stats.class_counts is not None:
            emit("")
            for line in class_lines(stats):
                emit(line)
    return 0
