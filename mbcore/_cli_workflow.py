"""The file workflow of the ``mbcore`` command: ``mbcore train``, ``mbcore predict`` and
``mbcore evaluate`` (see :mod:`mbcore.cli`, which wires them into its parser with
:func:`add_workflow_parsers`).

One learner over a file or a pipe (svmlight, CSV or Vowpal Wabbit text), streamed in chunks
by :mod:`mbcore.streaming` (``train_file``, ``predict_file``, ``evaluate_file``), with the
model saved and loaded by :mod:`mbcore.persistence`.  Like :mod:`mbcore.cli`, this module
names no learner: which learners it takes comes from ``mbcore._registry``.
"""

import json
import os
import sys
import time

from ._cli_common import (CLASSES_HELP, K_CLASS_LEARNERS, LEARNERS, Progress, UsageError,
                          add_order_options, emit, learner_name, learner_params, number, param,
                          positive_int, sniff_format, stream_classes, warn_sorted)

__all__ = ["add_workflow_parsers"]

_WORKFLOW_LEARNERS = LEARNERS


def _add_source_options(p):
    p.add_argument("--data", required=True, metavar="FILE|-",
                   help="the examples: a file (plain or gzip) or - for standard input")
    p.add_argument("--format", dest="fmt", choices=("auto", "svmlight", "csv", "vw"),
                   default="auto",
                   help="input format (default: auto: sniffed from a file's first lines; "
                        "svmlight for standard input)")
    p.add_argument("--bits", type=positive_int, default=18, metavar="B",
                   help="vw only: hash feature names into 2**B columns (default 18, as vw -b)")
    p.add_argument("--n-features", type=positive_int, default=None, metavar="D",
                   help="svmlight: the number of columns, checked on every line (default: none "
                        "needed: the width grows as the indices arrive, from a file or standard "
                        "input alike, with no first pass, and so does the learner's state; the "
                        "learners that need the width up front, Winnow's family (theta = n), "
                        "KernelPerceptron and the Boolean learners, find it by a first pass "
                        "over a file and need --n-features on standard input)")
    p.add_argument("--zero-based", action="store_true",
                   help="svmlight: index 0 is the first column (default: one-based, LIBSVM's "
                        "convention, decided before any line is read; an index 0 is then an "
                        "error naming its line)")
    p.add_argument("--max-features", type=positive_int, default=None, metavar="M",
                   help="svmlight without --n-features: the widest the stream may grow "
                        "(default 67,108,864 = 2**26); a larger index is an error naming its "
                        "line, before anything is allocated for it")
    p.add_argument("--label-column", type=int, default=None, metavar="K",
                   help="CSV only: index of the label column (default: -1)")
    p.add_argument("--delimiter", default=None, metavar="CHAR",
                   help="CSV only: field separator (default: ',')")
    p.add_argument("--skip-header", action="store_true", help="CSV only: skip the first line")
    p.add_argument("--chunk-size", type=positive_int, default=8_192, metavar="N",
                   help="examples parsed and learned at a time (default 8,192)")
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


def add_workflow_parsers(sub):
    p = sub.add_parser("train", help="train one learner on a file or a pipe and save the model",
                       description="Train one learner online (predict, then learn, every "
                                   "example in order) and save it with learner.save (a .npz "
                                   "that 'mbcore predict' and mbcore.load read).")
    p.add_argument("--learner", required=True, type=learner_name, metavar="NAME",
                   help="the learner (case-insensitive): " + ", ".join(_WORKFLOW_LEARNERS) +
                        "; on data of K >= 3 classes: " + ", ".join(K_CLASS_LEARNERS) +
                        " (the others take two classes)")
    p.add_argument("--model", required=True, metavar="OUT.npz", help="where to save the model")
    p.add_argument("--passes", type=positive_int, default=1, metavar="K",
                   help="passes over the data (more than one needs a file)")
    p.add_argument("--warm-start", default=None, metavar="IN.npz",
                   help="continue the run of a saved model (exactly as one longer run)")
    _add_learner_options(p)
    _add_source_options(p)
    p.set_defaults(handler=_cmd_train)

    p = sub.add_parser("predict", help="stream the predictions of a saved model",
                       description="Predict every example of a file or a pipe with a saved "
                                   "model, one line each (the label as written in the training "
                                   "data, or with --raw the score, K scores for K >= 3 "
                                   "classes); the model does not change.")
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
    _add_source_options(p)
    p.set_defaults(handler=_cmd_predict)

    p = sub.add_parser("evaluate", help="progressive validation of a learner on a file or pipe",
                       description="Predict each example, then learn it, and report the "
                                   "mistakes at 1, 2, 4, 8, ... examples and at the end (as "
                                   "Vowpal Wabbit reports its progressive loss).")
    p.add_argument("--learner", type=learner_name, default=None, metavar="NAME",
                   help="the learner (or --warm-start to continue a saved model)")
    p.add_argument("--warm-start", default=None, metavar="IN.npz",
                   help="continue the run of a saved model")
    p.add_argument("--model", default=None, metavar="OUT.npz",
                   help="also save the learner at the end")
    _add_learner_options(p)
    _add_source_options(p)
    add_order_options(p, stream=True)
    p.set_defaults(handler=_cmd_evaluate)


def _source(args, model=None):
    """(source for the readers, display name, format, reader options)."""
    stdin = args.data == "-"
    if stdin:
        source, name = sys.stdin.buffer, "<stdin>"
        fmt = "svmlight" if args.fmt == "auto" else args.fmt
    else:
        if not os.path.exists(args.data):
            raise OSError(f"--data {args.data!r}: no such file")
        source, name = args.data, args.data
        fmt = sniff_format(args.data) if args.fmt == "auto" else args.fmt
    options = {}
    if fmt == "svmlight":
        # No first pass: --n-features, or the width of a saved model that cannot grow, else
        # the width grows as the indices arrive (mbcore.streaming.train_file / evaluate_file).
        d = args.n_features if args.n_features is not None else (
            model.n_features_in_ if model is not None and model._is_fitted() and
            not model._GROWS else None)
        if d is None and stdin and model is not None and not model._GROWS:
            raise UsageError(f"--learner {type(model).__name__} needs --n-features D: it needs "
                             f"the number of features up front ({model._NEEDS_WIDTH}), and "
                             "standard input cannot be read twice to find it")
        if d is not None:
            options["n_features"] = d
            if args.max_features is not None:
                raise UsageError("--max-features caps a stream of unknown width; with "
                                 "--n-features the width is known")
        elif args.max_features is not None:
            options["max_features"] = args.max_features
        options["zero_based"] = bool(args.zero_based)
        if args.workers is not None:
            options["workers"] = args.workers
    elif fmt == "csv":
        options["label_column"] = -1 if args.label_column is None else args.label_column
        options["delimiter"] = "," if args.delimiter is None else args.delimiter
        options["skip_header"] = bool(args.skip_header)
    else:
        options["bits"] = args.bits
    if fmt != "csv" and (args.label_column is not None or args.delimiter is not None or
                         args.skip_header):
        raise UsageError(f"--label-column, --delimiter and --skip-header apply to CSV input; "
                         f"{name} is read as {fmt}")
    if fmt != "svmlight" and args.max_features is not None:
        raise UsageError(f"--max-features applies to svmlight input; {name} is read as {fmt}")
    if fmt != "svmlight" and args.workers is not None:
        raise UsageError(f"--workers applies to svmlight input; {name} is read as {fmt}")
    return source, name, fmt, options


def _workflow_learner(args):
    import mbcore
    if args.warm_start is not None:
        if args.params:
            raise UsageError("--param and --warm-start: the saved model keeps its parameters")
        learner = mbcore.load(args.warm_start)
        if args.learner is not None and type(learner).__name__ != args.learner:
            raise UsageError(f"--learner {args.learner} but --warm-start {args.warm_start!r} "
                             f"holds a {type(learner).__name__}")
        return learner
    if args.learner is None:
        raise UsageError("--learner NAME is required (or --warm-start IN.npz)")
    params = learner_params(mbcore, [args.learner], args.params)[args.learner]
    return getattr(mbcore, args.learner)(**params)


def _summary(stats, name, learner, fmt, extra):
    out = {"data": name, "format": fmt, "learner": type(learner).__name__,
           "n_samples": stats.n, "mistakes": stats.mistakes, "updates": stats.updates,
           "error_rate": stats.error_rate if stats.n else None, "seconds": stats.seconds,
           "examples_per_second": stats.n / stats.seconds if stats.seconds > 0 else None}
    out.update(extra)
    return out


def _cmd_train(args):
    from .streaming import train_file
    learner = _workflow_learner(args)
    source, name, fmt, options = _source(args, learner)
    if args.passes > 1 and args.data == "-":
        raise UsageError("--passes: standard input can be read once; give a file")
    show = sys.stderr.isatty() if args.progress is None else args.progress
    progress = Progress(type(learner).__name__, show)
    try:
        stats = train_file(learner, source, format=fmt, passes=args.passes,
                           chunk_size=args.chunk_size, classes=stream_classes(args),
                           callback=progress, **options)
    finally:
        progress.close()
    if stats.n == 0:
        raise ValueError(f"{name} holds no examples: nothing to train on")
    learner.save(args.model)
    summary = _summary(stats, name, learner, fmt, {"passes": args.passes, "model": args.model,
                                                   "warm_start": args.warm_start})
    if args.json:
        emit(json.dumps(summary, indent=2, default=str))
    else:
        emit(f"{summary['learner']}: {stats.n:,} examples ({args.passes} "
             f"pass{'es' if args.passes > 1 else ''}), {stats.mistakes:,} mistakes "
             f"({100.0 * stats.error_rate:.2f}% progressive), {stats.updates:,} updates, "
             f"{number(summary['examples_per_second'] or 0.0)} examples/s; saved to "
             f"{args.model}")
    return 0


def _cmd_predict(args):
    import mbcore
    from .streaming import predict_file
    if args.progress:
        raise UsageError("--progress: predict writes its output as it goes; no progress line")
    model = mbcore.load(args.model)
    if not model._is_fitted():
        raise ValueError(f"{args.model} holds an unfitted {type(model).__name__}: train it first")
    source, name, fmt, options = _source(args, model)
    line = args.line_buffered
    if line is None:
        line = args.data == "-" and sys.stdin.isatty()
    out = None if args.out == "-" else args.out
    start = time.perf_counter()
    n = predict_file(model, source, out, format=fmt, raw=args.raw, chunk_size=args.chunk_size,
                     line_buffered=line, **options)
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps({"data": name, "model": args.model, "n_samples": n,
                          "seconds": seconds, "out": args.out,
                          "examples_per_second": n / seconds if seconds > 0 else None}),
              file=sys.stderr if out is None else sys.stdout)
    return 0


def _cmd_evaluate(args):
    from .streaming import REPORT_HEADER, LabelRuns, evaluate_file, report_line
    learner = _workflow_learner(args)
    source, name, fmt, options = _source(args, learner)

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
    report = evaluate_file(learner, source, format=fmt, chunk_size=args.chunk_size,
                           classes=stream_classes(args), on_line=show, **options)
    warn_sorted(runs, name)
    stats = report.stats
    if stats.n == 0:
        raise ValueError(f"{name} holds no examples: nothing to evaluate")
    if args.model is not None:
        learner.save(args.model)
    summary = _summary(stats, name, learner, fmt, {"model": args.model,
                                                   "warm_start": args.warm_start,
                                                   "report": [list(r) for r in report.lines]})
    if args.json:
        emit(json.dumps(summary, indent=2, default=str))
    else:
        emit(f"{summary['learner']}: {stats.n:,} examples, {stats.mistakes:,} progressive "
             f"mistakes ({100.0 * stats.error_rate:.4f}%), "
             f"{number(summary['examples_per_second'] or 0.0)} examples/s")
    return 0
