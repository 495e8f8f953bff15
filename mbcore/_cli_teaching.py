"""The teaching commands of the ``mbcore`` command line: ``run``, ``certify``, ``plot``,
``bench`` and ``datasets`` (see :mod:`mbcore.cli`, which holds the entry point and the parser
and adds these commands' parsers with :func:`add_teaching_parsers`).

Their options, the runs (in memory, or streamed with ``run --chunk-size``), the timings against the
pure-Python twin and the peers of scikit-learn, the bounds, the plot and the tables; the data they
read and which learners apply to it are in ``mbcore._cli_data``.  Like the other modules of the
command line it finds the learners in ``mbcore._registry`` and names none.
"""

import argparse
import json
import math
import os
import sys
import time
import warnings

from . import _registry
from ._cli_common import (CLASSES_HELP, K_CLASS_LEARNERS, LEARNERS, Progress, UsageError,
                          add_order_options, class_fields, class_rate_table, did_you_mean, emit,
                          learner_name, learner_params, number, param, positive_int,
                          sniff_format, stream_classes, warn_sorted)
# the data and which learners apply to it (names private to the command line's modules)
from ._cli_data import (_bundled_name, _command_encoding, _csv_options, _data_words, _encodings,
                        _load_data, _na_record, _not_applicable_text, _probe_row, _reasons,
                        _select, _skipped_note, _svmlight_options)

__all__ = ["add_teaching_parsers", "BugFound"]

_MIN_TIMING = 0.2     # seconds of repeated compiled runs behind one timing
_MAX_REPEATS = 20


def add_teaching_parsers(sub):
    """Add the parsers of run, certify, plot, bench and datasets to the subcommands ``sub``."""
    _add_run_parser(sub)
    _add_certify_parser(sub)
    _add_plot_parser(sub)
    _add_bench_parser(sub)
    _add_datasets_parser(sub)


def _add_data_options(p, what="run", margin=True):
    """The options every data command shares: learners, dataset, file format, parameters (and,
    for the commands that certify, --margin)."""
    p.add_argument("--learner", dest="learners", metavar="NAME", nargs="+", action="extend",
                   type=learner_name,
                   help=f"learners to {what} (case-insensitive; default: all of "
                        f"{', '.join(LEARNERS)}).  On data with K >= 3 classes (e.g. mnist "
                        f"without --digit) the default is the learners that take K classes "
                        f"({', '.join(K_CLASS_LEARNERS)}, each in the modes that take them), "
                        f"and a note names the two-class learners not run; "
                        f"a two-class learner named here is listed as not applicable (n/a), "
                        f"and the exit status is 0 when at least one learner ran")
    p.add_argument("--dataset", default="mushrooms", metavar="NAME_OR_PATH",
                   help="a bundled dataset (see 'mbcore datasets'; case-insensitive) or the "
                        "path of an svmlight or CSV file, gzip-compressed or not (default: "
                        "mushrooms)")
    p.add_argument("--format", dest="fmt", choices=("auto", "svmlight", "csv"), default="auto",
                   help="file format of a path given to --dataset (default: auto, i.e. svmlight "
                        "if a line holds idx:value pairs, else CSV)")
    p.add_argument("--label-column", type=int, default=None, metavar="K",
                   help="CSV only: index of the label column, negative counts from the end "
                        "(default: -1)")
    p.add_argument("--delimiter", default=None, metavar="CHAR",
                   help="CSV only: field separator, or 'whitespace' (default: ',')")
    p.add_argument("--skip-header", action="store_true", default=None,
                   help="CSV only: the first line is a header (default: sniffed: a first line "
                        "whose fields are not numbers)")
    p.add_argument("--zero-based", action="store_true",
                   help="svmlight only: the feature indices count from 0 (index 0 is the "
                        "first column)")
    p.add_argument("--encoding", default=None, metavar="ENC",
                   help="bundled datasets only: how the features are read, e.g. boolean (0/1 "
                        "indicators, for the learners that take 0/1 features) or real ('mbcore "
                        "datasets NAME' lists a dataset's encodings).  Default: the dataset's "
                        "own, unless it holds text (tic-tac-toe's squares x/o/b): then boolean")
    p.add_argument("--digit", type=int, default=None, metavar="D",
                   help="mnist only: label digit D as 1 and every other digit as 0 (digit D "
                        "against the rest, for the two-class learners; default: the ten "
                        "digits 0..9 as ten classes)")
    p.add_argument("--param", dest="params", metavar="NAME=VALUE", action="append", default=[],
                   type=param,
                   help="set a parameter on every selected learner that has it, or with "
                        "LEARNER.NAME=VALUE on that learner only (a name that means different "
                        "things in two selected learners, such as a margin and a kernel width, "
                        "must be given this way); VALUE is read as an int, a float, true or "
                        "false, none, LABEL:WEIGHT,LABEL:WEIGHT (class_weight; or "
                        "class_weight=balanced), or else a string (repeatable)")
    if margin:
        p.add_argument("--margin", type=_margin, default=None, metavar="GAMMA",
                       help="a margin gamma > 0 of the data, taken on trust: the bounds of the "
                            "Perceptron family (in the kernel's feature space for the kernel "
                            "Perceptron; the multi-class margin on K >= 3 classes) use it "
                            "instead of the margin searched on the data (marked 'trusted' "
                            "among the assumptions)")


def _margin(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"expected a finite real > 0, got {text!r}")
    return value


def _add_run_parser(sub):
    p = sub.add_parser(
        "run", help="stream a dataset once through the learners and report mistakes and bounds",
        description="Stream the data once, in file order, through each learner (predict, then "
                    "learn the label) and report mistakes, updates, the mistake bound where its "
                    "assumptions hold, examples per second, and the speed-up over the "
                    "pure-Python twin (mbref).")
    _add_data_options(p)
    p.add_argument("--twin-rows", type=positive_int, default=1000, metavar="N",
                   help="rows on which the pure-Python twin is timed (default: 1000)")
    p.add_argument("--no-twin", action="store_true", help="do not time the pure-Python twin")
    add_order_options(p, "both")
    p.add_argument("--chunk-size", type=positive_int, default=None, metavar="N",
                   help="stream the data in chunks of N rows, with bounded memory whatever the "
                        "file size (one timed pass; progressive test-then-train counts; no "
                        "bound: run 'mbcore certify' on data that fits in memory)")
    p.add_argument("--classes", default=None, metavar="A,B[,C...]",
                   help=CLASSES_HELP)
    p.add_argument("--progress", dest="progress", action="store_true", default=None,
                   help="show a progress line on stderr while streaming (default: when stderr "
                        "is a terminal)")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="never show a progress line")
    p.add_argument("--json", action="store_true", help="print a JSON list of results instead "
                                                       "of a table")
    p.set_defaults(handler=_cmd_run)


def _add_certify_parser(sub):
    p = sub.add_parser(
        "certify", help="run the learners and check each against its mistake bound",
        description="Run a fresh copy of each learner over the data (--passes times) and check "
                    "its mistakes against the bound of the notes that applies (mbcore.certify): "
                    "the bound, the quantities it used, and whether each assumption was "
                    "verified on the data.  Exit status 3 if a learner exceeds a bound whose "
                    "assumptions were all verified (a bug in mbcore).")
    _add_data_options(p, "certify")
    add_order_options(p)
    p.add_argument("--passes", type=positive_int, default=1, metavar="N",
                   help="passes over the data, in order (default: 1)")
    p.add_argument("--json", action="store_true", help="print a JSON list of certificates")
    p.set_defaults(handler=_cmd_certify)


def _add_plot_parser(sub):
    p = sub.add_parser(
        "plot", help="draw the cumulative mistakes of the learners with their bounds (PNG, SVG "
                     "or PDF)",
        description="Run each learner as 'mbcore certify' does and draw its cumulative mistakes "
                    "(its updates, where its bound counts them) against the examples seen, with "
                    "its mistake bound as a dashed line, into an image file whose format is its "
                    "suffix (.png, .svg, .pdf, ...; needs matplotlib: pip install "
                    "'mbcore[plot]').")
    _add_data_options(p, "plot")
    add_order_options(p)
    p.add_argument("--passes", type=positive_int, default=1, metavar="N",
                   help="passes over the data, in order (default: 1)")
    p.add_argument("--out", default=None, metavar="FILE.png",
                   help="the image to write, in the format of its suffix: "
                        f"{', '.join(_IMAGE_SUFFIXES)} (default: mistakes-<dataset>.png)")
    p.add_argument("--log", action="store_true", help="logarithmic count axis")
    p.set_defaults(handler=_cmd_plot)


def _add_bench_parser(sub):
    p = sub.add_parser(
        "bench", help="time the compiled learners against the pure-Python twin and peers",
        description="Time one online pass of each compiled learner (best of repeated passes), "
                    "of its pure-Python twin (mbref) on the first --twin-rows rows, and of the "
                    "peers that do the same job when they are installed (one partial_fit "
                    f"epoch: {_peer_list()}).")
    _add_data_options(p, "time", margin=False)
    p.add_argument("--twin-rows", type=positive_int, default=1000, metavar="N",
                   help="rows on which the pure-Python twin is timed (default: 1000)")
    p.add_argument("--json", action="store_true", help="print a JSON list of results")
    p.set_defaults(handler=_cmd_bench)


def _add_datasets_parser(sub):
    p = sub.add_parser("datasets", help="list the bundled datasets, or describe one",
                       description="List the bundled datasets with their provenance; with a "
                                   "NAME, print its full provenance and citation.")
    p.add_argument("name", nargs="?", default=None, help="a bundled dataset to describe")
    p.set_defaults(handler=_cmd_datasets)


# -- mbcore datasets ------------------------------------------------------------------------------

def _cmd_datasets(args):
    from . import datasets
    if args.name is not None:
        name = next((n for n in datasets.DATASETS if n.lower() == args.name.lower()), None)
        if name is None:
            raise UsageError(f"unknown dataset {args.name!r}"
                             f"{did_you_mean(args.name, datasets.DATASETS)}; the bundled "
                             f"datasets: {', '.join(datasets.DATASETS)}")
        text = datasets.describe(name)
        loader = getattr(datasets, datasets.DATASETS[name]["loader"])
        encodings = _encodings(loader)
        if len(encodings) > 1:
            default = _command_encoding(loader, {})
            text += "\nEncodings (--encoding): " + ", ".join(
                e + (" (the default)" if e == default else
                     " (text, which no learner takes)" if e == encodings[0] else "")
                for e in encodings)
        emit(text)
        return 0
    shapes = {name: f"{info['n_samples']} x {info['n_features']}"
              for name, info in datasets.DATASETS.items()}
    width = max(len(name) for name in datasets.DATASETS)
    shape_width = max(len(shape) for shape in shapes.values())
    for name, info in datasets.DATASETS.items():
        emit(f"{name:<{width}}  {shapes[name]:<{shape_width}}  {info['summary']}")
    return 0


# -- mbcore run -----------------------------------------------------------------------------------

def _cmd_run(args):
    import mbcore
    names = list(dict.fromkeys(args.learners or LEARNERS))
    params = learner_params(names, args.params)
    if args.chunk_size is not None:
        if args.margin is not None:
            raise UsageError("--margin applies to the bounds of runs held in memory, and a "
                             "streamed run (--chunk-size) computes none")
        if any(p.get("class_weight") == "balanced" for p in params.values()):
            raise UsageError("--param class_weight=balanced needs the whole data's label counts, "
                             "and a streamed run (--chunk-size) reads it once; give the weights "
                             "as --param class_weight=LABEL:WEIGHT,LABEL:WEIGHT")
        return _cmd_run_stream(args, names, params)
    if args.classes is not None:
        raise UsageError("--classes applies to streamed runs (--chunk-size)")
    label, X, y = _load_data(args)
    _balanced(params, y)
    classes = _classes(y)
    k = None if classes is None else len(classes)
    run, na, skipped = _select(args, names, params, label, k, _probe_row(X))
    results = []
    for name in names:
        if name not in run:
            if name in na or args.json:
                results.append(_na_record(args, label, name, params[name],
                                          na.get(name) or skipped[name], k))
            continue
        result = _run_one(mbcore, name, params[name], X, y, args)
        result.update(_bound(mbcore, name, params[name], X, y, classes, args.margin))
        result["within_bound"] = (None if result["bound"] is None else
                                  result[result["bound_counts"]] <= result["bound"])
        results.append(dict(dataset=label, applicable=True, n_classes=k, **result))
    if args.json:
        emit(json.dumps(results, indent=2, default=str))
    else:
        emit(_table(label, X, results, k=k, skipped=_skipped_note(args, label, k, skipped)))
    return 0


# -- streamed runs --------------------------------------------------------------------------------

def _bundled_names():
    from . import datasets
    return datasets.DATASETS


def _stream_source(args):
    """(label, make_chunks) where make_chunks(chunk_size, dense) yields (X, y) chunks."""
    from . import streaming
    if _bundled_name(args) is not None:
        label, X, y = _load_data(args)

        def bundled(size, dense):
            for a in range(0, X.shape[0], size):
                yield X[a:a + size], y[a:a + size]
        return label, bundled
    if not os.path.isfile(args.dataset):
        _load_data(args)                       # raises the usual one-line error
    fmt = sniff_format(args.dataset) if args.fmt == "auto" else args.fmt
    path = args.dataset
    if fmt == "svmlight":
        if _csv_options(args):
            raise UsageError("--label-column, --delimiter and --skip-header apply to CSV files; "
                             f"{path!r} is read as svmlight")
        return os.path.basename(path), lambda size, dense: streaming.iter_svmlight(
            path, chunk_size=size, dense=dense, **_svmlight_options(args))
    if args.zero_based:
        raise UsageError(f"--zero-based applies to svmlight files; {path!r} is read as CSV")
    delimiter = "," if args.delimiter is None else args.delimiter
    column = -1 if args.label_column is None else args.label_column
    header = {} if args.skip_header is None else {"skip_header": args.skip_header}
    return os.path.basename(path), lambda size, dense: streaming.iter_csv(
        path, chunk_size=size, label_column=column,
        delimiter=None if delimiter == "whitespace" else delimiter, **header)


def _cmd_run_stream(args, names, params):
    """Stream the data through each learner (run_stream): one pass, bounded memory."""
    import mbcore
    from .streaming import run_stream
    label, chunks = _stream_source(args)
    runs, warned = None, False
    if args.dataset not in _bundled_names():       # a file, streamed: order as it streams
        read = chunks
        if args.shuffle:
            from .streaming import shuffle_chunks

            def chunks(size, dense):
                return shuffle_chunks(read(size, dense), seed=args.seed,
                                      buffer_size=args.shuffle_buffer, chunk_size=size)
        else:
            from .streaming import LabelRuns
            runs = LabelRuns()

            def chunks(size, dense):
                runs.__init__()                        # each pass counts from its start
                for X, y in read(size, dense):
                    runs.add(y)
                    yield X, y
    classes = stream_classes(args)
    # the first chunk: its first row tells which learners take the rows (0/1 or real), and
    # without --classes its labels are the classes the learners will take
    first = next(iter(chunks(args.chunk_size, False)), None)
    if classes is not None:
        k = len(set(classes))
    else:
        import numpy as np
        k = None if first is None else int(np.unique(first[1]).shape[0])
    row = None if first is None else next(iter(chunks(1, True)))[0]     # dense, one row
    run, na, skipped = _select(args, names, params, label, k, row)
    show = sys.stderr.isatty() if args.progress is None else args.progress
    results = []
    for name in names:
        if name not in run:
            if name in na or args.json:
                results.append(_na_record(args, label, name, params[name],
                                          na.get(name) or skipped[name], k))
            continue
        progress = Progress(name, show)
        learner = _registry.learner(name)(**params[name])
        try:
            stats = run_stream(learner, chunks(args.chunk_size, False), classes=classes,
                               callback=progress)
        finally:
            progress.close()
        if runs is not None and not warned:
            warn_sorted(runs, label)
            warned = True
        result = {"dataset": label, "learner": name, "params": params[name], "applicable": True,
                  "n_classes": len(learner.classes_) if stats.n else None,
                  "n_samples": stats.n, "chunks": stats.n_chunks, "chunk_size": args.chunk_size,
                  "mistakes": stats.mistakes, "updates": stats.updates,
                  "error_rate": stats.error_rate, "seconds": stats.seconds,
                  "examples_per_second": stats.n / stats.seconds if stats.seconds > 0 else None,
                  "bound": None, "bound_counts": None, "bound_name": None,
                  "bound_note": "streamed (--chunk-size): the data is not held in memory, so no "
                                "bound is computed; run 'mbcore certify' on data that fits",
                  "within_bound": None, "twin_rows": None, "twin_seconds": None,
                  "compiled_seconds_on_twin_rows": None, "speedup_vs_twin": None,
                  "twin_agrees": None, **class_fields(stats if stats.n else None)}
        if not args.no_twin and stats.n:
            Xt, yt = next(iter(chunks(args.twin_rows, True)))
            # the classes the streamed learner took (--classes read as the data's labels)
            result.update(_twin(mbcore, name, params[name], Xt, yt, learner.classes_.tolist(),
                                len(yt)))
        results.append(result)
    if args.json:
        emit(json.dumps(results, indent=2, default=str))
    else:
        n = next(r["n_samples"] for r in results if r["applicable"])
        kinds = f" of {k} classes" if k is not None and k > 2 else ""
        emit(_table(label, None, results, f"{label}: {n:,} rows{kinds} streamed in chunks of "
                    f"{args.chunk_size:,}; one pass per learner in file order (predict, then "
                    "learn the label)", footer="examples/s: one streamed pass, reading and "
                    "parsing included.  vs twin: time of the pure-Python twin (mbref) / time of "
                    "the compiled learner on the same first rows.",
                    skipped=_skipped_note(args, label, k, skipped)))
    return 0


# -- mbcore certify / plot / bench ----------------------------------------------------------------

class BugFound(Exception):
    """A learner exceeded a verified bound (exit status 3)."""


def _certificates(args):
    """(label, X, k, certificates, {name: reason} n/a, {name: reason} skipped) for the selected
    learners (see _select); raises BugFound on a violation."""
    import mbcore
    names = list(dict.fromkeys(args.learners or LEARNERS))
    params = learner_params(names, args.params)
    label, X, y = _load_data(args)
    _balanced(params, y)
    classes = _classes(y)
    k = None if classes is None else len(classes)
    run, na, skipped = _select(args, names, params, label, k, _probe_row(X))
    certs = []
    for name in run:
        try:
            certs.append(mbcore.certify(_registry.learner(name)(**params[name]), X, y,
                                        classes=classes, passes=args.passes,
                                        gamma=args.margin))
        except mbcore.BoundViolationError as exc:
            raise BugFound(str(exc)) from None
    return label, X, k, certs, na, skipped


def _cmd_certify(args):
    label, X, k, certs, na, skipped = _certificates(args)
    if args.json:
        out = [dict(dataset=label, passes=args.passes, applicable=True, n_classes=k,
                    **c.to_dict()) for c in certs]
        out += [{"dataset": label, "passes": args.passes, "learner": name, "applicable": False,
                 "n_classes": k,
                 "reason": _not_applicable_text(args, k, name, why)}
                for name, why in {**na, **skipped}.items()]
        emit(json.dumps(out, indent=2, default=str))
    else:
        kinds = f", {k} classes" if k is not None and k > 2 else ""
        from .online import plural
        emit(f"{label}: {X.shape[0]} rows x {X.shape[1]} features{kinds}, "
             f"{plural(args.passes, 'pass')}\n")
        emit("\n\n".join([c.summary() for c in certs] +
                         [f"{name}: {_not_applicable_text(args, k, name, why)}"
                          for name, why in na.items()]))
        if skipped:
            emit("\n" + _skipped_note(args, label, k, skipped))
    return 0


# the image formats of ``mbcore plot --out`` (matplotlib's writers, by suffix)
_IMAGE_SUFFIXES = (".png", ".svg", ".pdf", ".eps", ".ps", ".jpg", ".jpeg", ".tif", ".tiff",
                   ".webp")


def _image_format(out):
    """The format of --out from its suffix (before any work), or a usage error that lists the
    supported suffixes."""
    suffix = os.path.splitext(out)[1].lower()
    if suffix not in _IMAGE_SUFFIXES:
        what = f"the suffix {suffix!r} names no image format" if suffix else "no suffix"
        raise UsageError(f"--out {out}: {what}; the plot writes the format of the suffix: "
                         f"{', '.join(_IMAGE_SUFFIXES)}")
    return suffix[1:]


def _cmd_plot(args):
    from .online import require_matplotlib
    if args.out is not None:
        _image_format(args.out)                   # an unknown suffix: refused before any work
    plt = require_matplotlib("mbcore plot")
    label, X, k, certs, na, skipped = _certificates(args)
    out = args.out or f"mistakes-{label}.png"
    left_out = {**na, **skipped}
    note = ""
    if left_out:
        note = f"Not drawn on {_data_words(label, k)}: {_reasons(args, left_out)}."
    fig = _draw_plot(plt, label, X.shape[0], certs, args.passes, log=args.log, note=note)
    _save_figure(fig, out)
    plt.close(fig)
    emit(f"wrote {out}")
    for name, why in na.items():
        emit(f"not drawn: {name}: {_not_applicable_text(args, k, name, why)}")
    if skipped:
        emit(_skipped_note(args, label, k, skipped))
    return 0


def _draw_plot(plt, label, n_rows, certs, passes, log=False, note=""):
    """The figure of ``mbcore plot``: small multiples, one panel per learner (a grid sharing
    the examples axis), each with its cumulative count (mistakes; updates for a learner whose
    bound counts them, tag ``bound_counts``) and its bound as a dashed line of the same
    colour, labelled with its value and theorem.  A panel's count axis is logarithmic when its
    total and its bound are more than a decade apart (``log``: every panel), else linear.
    Every learner has its own colour (``distinct_colours``), so no legend is needed: each
    panel is titled with its learner.
    ``note`` (the learners not drawn) goes under the grid."""
    import textwrap
    import numpy as np
    from .online import (BOUND_GID, CURVE_GID, count_text, decades_spanned, distinct_colours,
                         plural)

    n = len(certs)
    ncols = 1 if n == 1 else 2 if n in (2, 4) else 3 if n <= 9 else 4
    nrows = -(-n // ncols)
    width = {1: 6.4, 2: 9.0, 3: 11.0, 4: 13.0}[ncols]
    foot = textwrap.wrap(note, width=int(width * 15)) if note else []
    foot_in = 0.16 * len(foot) + (0.1 if foot else 0.0)
    row_in, axes_in = 2.35, 1.7              # a row of panels; the data area in it, about
    height = 0.9 + row_in * nrows + foot_in
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), sharex=True, squeeze=False,
                             layout="constrained")
    if foot:                            # under the grid; the layout makes room for it
        fig.supxlabel("\n".join(foot), x=0.01, ha="left", fontsize=7.5, color="0.25")
    flat = list(axes.flat)
    xlabel = "examples seen" + (" (dotted: a new pass)" if passes > 1 else "")
    for i in range(n, len(flat)):                       # an incomplete last row
        flat[i - ncols].tick_params(labelbottom=True)
        flat[i - ncols].set_xlabel(xlabel)
        fig.delaxes(flat[i])
    for ax in axes[-1][:n - (nrows - 1) * ncols]:
        ax.set_xlabel(xlabel)
    chars = int((width / ncols - 0.9) * 18)            # a label's line across a panel
    for ax, cert, colour in zip(flat, certs, distinct_colours(n)):
        run = cert.run
        noun = "update" if cert.counted == "updates" else "mistake"
        curve = run.update_curve if noun == "update" else run.mistake_curve
        line, = ax.plot(np.arange(1, run.n + 1), curve, color=colour, linewidth=1.8)
        line.set_gid(CURVE_GID)
        top = max(float(curve[-1]) if run.n else 0.0, 1.0)
        bound = cert.bound
        if bound is not None:
            ax.axhline(bound, color=colour, linestyle="--", linewidth=1.2).set_gid(BOUND_GID)
            text = [f"bound {count_text(bound)}: {cert.bound_name}"]
            if len(text[0]) > chars:                    # the theorem under the value
                text = [f"bound {count_text(bound)}:"] + textwrap.wrap(
                    cert.bound_name, chars, break_on_hyphens=False)
            ax.annotate("\n".join(text), xy=(0.02, bound), xycoords=("axes fraction", "data"),
                        xytext=(0, 2.5), textcoords="offset points", color=colour,
                        fontsize=7.5, va="bottom", ha="left").set_in_layout(False)
        logy = log or decades_spanned(ax) > 1.0
        lo = 0.7 if logy else 0.0

        def t(v):                                       # the axis' scale
            return np.log10(max(v, lo)) if logy else v

        def frac(v, hi):                                # v's height in the panel, 0..1
            return (t(v) - t(lo)) / (t(hi) - t(lo))

        hi = top * 1.5 if logy else top * 1.06
        if bound is not None:                           # room above the bound for its label
            room = 1 - (len(text) * 7.5 * 1.2 + 5) / 72 / axes_in
            need = 10 ** (t(lo) + (t(bound) - t(lo)) / room) if logy else bound / room
            hi = max(hi, need)
        else:
            # "no bound" in an empty corner: under the end of the rising curve (bottom
            # right), else over its start (top left, raising the top if the curve is there)
            def at(f):                                  # the curve at a fraction of the run
                return float(curve[min(int(f * run.n), run.n - 1)]) if run.n else 0.0

            corner = (0.97, 0.04, "bottom", "right")
            if frac(at(0.42), hi) < 0.24:
                corner = (0.03, 0.96, "top", "left")
                if frac(at(0.58), hi) > 0.74:
                    hi = 10 ** (t(lo) + (t(at(0.58)) - t(lo)) / 0.74) if logy else \
                        at(0.58) / 0.74
            ax.text(corner[0], corner[1], _no_bound_text(cert.reason), transform=ax.transAxes,
                    fontsize=7.5, color="0.35", va=corner[2], ha=corner[3], style="italic")
        if logy:
            ax.set_yscale("log")
        ax.set_ylim(lo, hi)
        for p in range(1, passes):
            ax.axvline(p * n_rows, color="0.75", linewidth=0.8, linestyle=":", zorder=0)
        ax.set_xlim(0, n_rows * passes)
        ax.set_title(f"{cert.learner}: {plural(int(curve[-1]) if run.n else 0, noun)}",
                     fontsize=9.5, loc="left")
        ax.set_ylabel(f"cumulative {noun}s", fontsize=8.5)
        ax.tick_params(labelsize=8)
        ax.grid(True, color="0.92", linewidth=0.6)
    updates = [c.learner for c in certs if c.counted == "updates"]
    counted = f"mistakes (updates for {', '.join(updates)})" if updates else "mistakes"
    title = (f"{label}: cumulative {counted} and mistake bounds (dashed), "
             f"{plural(passes, 'pass')} over {plural(n_rows, 'example')}")
    fig.suptitle("\n".join(textwrap.wrap(title, int(width * 11))), fontsize=11)
    return fig


def _no_bound_text(reason):
    """Why a panel of ``mbcore plot`` has no bound, in a few words ('mbcore certify' says it
    in full)."""
    if "violated" in reason:
        return "no bound: an assumption\nfails on these data"
    if "give no mistake bound" in reason:
        return "no bound in the notes"
    return "no bound computed\n(see mbcore certify)"


def _save_figure(fig, out):
    """Write the image, in the format of the suffix of ``out`` (png, svg, pdf, ...), to memory
    first, then to ``out`` in one write that is flushed and closed here, so a full disk or an
    unwritable path is an error, not a "wrote" line."""
    import io
    buf = io.BytesIO()
    fig.savefig(buf, dpi=110, format=_image_format(out))
    try:
        with open(out, "wb") as f:
            f.write(buf.getvalue())
            f.flush()
    except OSError as exc:
        raise OSError(f"cannot write the figure to {out}: {exc.strerror or exc}") from None


def _cmd_bench(args):
    import mbcore
    names = list(dict.fromkeys(args.learners or LEARNERS))
    params = learner_params(names, args.params)
    label, X, y = _load_data(args)
    _balanced(params, y)
    classes = _classes(y)
    k = None if classes is None else len(classes)
    run, na, skipped = _select(args, names, params, label, k, _probe_row(X))
    results = []
    for name in names:
        if name not in run:
            if name in na or args.json:
                rec = _na_record(args, label, name, params[name], na.get(name) or skipped[name], k)
                rec.update(peer=None, peer_seconds=None, speedup_vs_peer=None)
                results.append(rec)
            continue
        seconds, _ = _best_time(lambda: _registry.learner(name)(**params[name]), X, y, classes,
                                mbcore.run_online)
        rec = {"dataset": label, "learner": name, "applicable": True, "n_classes": k,
               "n_samples": int(X.shape[0]), "seconds": seconds,
               "examples_per_second": X.shape[0] / seconds}
        rec.update(_twin(mbcore, name, params[name], X, y, classes,
                         min(args.twin_rows, X.shape[0])))
        rec.update(_peer(name, params[name], X, y, classes, seconds))
        results.append(rec)
    if args.json:
        emit(json.dumps(results, indent=2, default=str))
        return 0
    kinds = f", {k} classes" if k is not None and k > 2 else ""
    lines = [f"{label}: {X.shape[0]} rows x {X.shape[1]} features{kinds}; one online pass each",
             ""]
    head = ("learner", "examples/s", "vs twin", "peer", "vs peer")
    notes = []

    def mark(text):
        if text not in notes:
            notes.append(text)
        return f"[{notes.index(text) + 1}]"
    rows = [(r["learner"], "n/a " + mark(r["reason"]), "-", "-", "-")
            if not r["applicable"] else
            (r["learner"], number(r["examples_per_second"]), _twin_cell(r, mark),
             r["peer"] or "-", "-" if r["speedup_vs_peer"] is None else
             f"{r['speedup_vs_peer']:,.1f}x") for r in results]
    widths = [max(len(row[i]) for row in rows + [head]) for i in range(len(head))]
    for row in [head] + rows:
        lines.append("  ".join([row[0].ljust(widths[0])] +
                               [c.rjust(w) for c, w in zip(row[1:], widths[1:])]).rstrip())
    lines.append("")
    lines += [f"[{i + 1}] {text}" for i, text in enumerate(notes)]
    if skipped:
        lines.append(_skipped_note(args, label, k, skipped))
    lines.append("vs twin: pure-Python twin time / compiled time on the same rows.  vs peer: the "
                 "peer's time for one partial_fit epoch / the compiled pass (peers use their own "
                 "update rules; they are timed, not compared for results).")
    emit("\n".join(lines))
    return 0


# the peers the learners name (tag peer: a dotted path and the keyword arguments for the params)
_PEERS = {n: c._TAGS.peer for n, c in _registry.learners() if c._TAGS.peer is not None}


def _peer_list():
    """"sklearn.linear_model.Perceptron for Perceptron; ...": the peers, from the classes."""
    by = {}
    for name, (path, _) in _PEERS.items():
        by.setdefault(path, []).append(name)
    return "; ".join(f"{path} for {', '.join(names)}" for path, names in by.items())


def _peer(name, params, X, y, classes, seconds):
    """Time scikit-learn's estimator for the same job, one partial_fit epoch, when installed."""
    none = {"peer": None, "peer_seconds": None, "speedup_vs_peer": None}
    if name not in _PEERS:
        return none
    import importlib
    path, kw = _PEERS[name]
    module, cls = path.rsplit(".", 1)
    try:
        est_cls = getattr(importlib.import_module(module), cls)
    except ImportError:
        return none
    best = math.inf
    for _ in range(3):
        est = est_cls(**kw(params))
        start = time.perf_counter()
        est.partial_fit(X, y, classes=classes)
        best = min(best, time.perf_counter() - start)
    return {"peer": path.replace("sklearn.linear_model.", "sklearn "), "peer_seconds": best,
            "speedup_vs_peer": best / seconds if seconds > 0 else None}


def _best_time(make, X, y, classes, run_online, quiet=False):
    """Fastest of repeated runs of a fresh learner over (X, y): (seconds, first run record).
    The learner's warnings are shown once, on the first run (none with ``quiet``: a run whose
    warnings were shown already)."""
    best, first, total, repeats = math.inf, None, 0.0, 0
    while repeats < _MAX_REPEATS and (repeats == 0 or total < _MIN_TIMING):
        learner = make()
        with warnings.catch_warnings():
            if quiet or repeats:
                warnings.simplefilter("ignore")
            start = time.perf_counter()
            record = run_online(learner, X, y, classes=classes)
            elapsed = time.perf_counter() - start
        first = record if first is None else first
        best, total, repeats = min(best, elapsed), total + elapsed, repeats + 1
    return best, first


def _run_one(mbcore, name, params, X, y, args):
    """One online pass of the compiled learner, timed, and the twin comparison on a prefix."""
    cls = _registry.learner(name)
    classes = _classes(y)
    seconds, record = _best_time(lambda: cls(**params), X, y, classes, mbcore.run_online)
    result = {"learner": name, "params": params, "n_samples": int(X.shape[0]),
              "n_features": int(X.shape[1]), "mistakes": int(record.mistakes),
              "updates": int(record.updates), "seconds": seconds,
              "examples_per_second": X.shape[0] / seconds if seconds > 0 else None,
              "twin_rows": None, "twin_seconds": None, "compiled_seconds_on_twin_rows": None,
              "speedup_vs_twin": None, "twin_agrees": None, **class_fields(record)}
    if not args.no_twin:
        result.update(_twin(mbcore, name, params, X, y, classes,
                            min(args.twin_rows, X.shape[0])))
    return result


def _balanced(params, y):
    """class_weight="balanced" (which a run of partial_fit cannot compute from one batch) as
    the weights of the whole data, n_samples / (n_classes * rows of the label), as
    scikit-learn's compute_class_weight gives them."""
    import numpy as np
    if not any(isinstance(p.get("class_weight"), str) and p["class_weight"] == "balanced"
               for p in params.values()):
        return
    labels, counts = np.unique(y, return_counts=True)
    weights = {label.item(): len(y) / (len(labels) * int(c)) for label, c in zip(labels, counts)}
    for p in params.values():
        if isinstance(p.get("class_weight"), str) and p["class_weight"] == "balanced":
            p["class_weight"] = dict(weights)


def _classes(y):
    """Every label of the whole dataset, sorted, so that a prefix missing some class runs too.

    None when y holds fewer than two labels: the learner then reports the problem.
    """
    import numpy as np
    labels = np.unique(y)
    return labels.tolist() if labels.shape[0] >= 2 else None


_TWIN_SECONDS = 2.0    # the twin's time budget: it stops at the first chunk past it


def _twin(mbcore, name, params, X, y, classes, rows):
    """Time the mbref twin and the compiled learner on the first ``rows`` rows (fewer when
    the twin runs past _TWIN_SECONDS: chunks of doubling size, the rows done reported).  Their
    warnings are not shown: the learner's full run showed them."""
    import mbref
    twin = getattr(mbref, name)(**params)
    preds, updates, done, size = [], 0, 0, 16
    start = time.perf_counter()
    while done < rows:
        stop = min(rows, done + size)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            part = mbref.run_online(twin, X[done:stop], y[done:stop],
                                    classes=classes if done == 0 else None)
        preds += list(part.predictions)
        updates += part.updates
        done, size = stop, 2 * size
        if time.perf_counter() - start > _TWIN_SECONDS:
            break
    twin_seconds = time.perf_counter() - start
    rows = done
    Xp, yp = X[:rows], y[:rows]
    cls = _registry.learner(name)
    seconds, record = _best_time(lambda: cls(**params), Xp, yp, classes, mbcore.run_online,
                                 quiet=True)
    agrees = preds == list(record.predictions) and updates == record.updates
    return {"twin_rows": rows, "twin_seconds": twin_seconds,
            "compiled_seconds_on_twin_rows": seconds,
            "speedup_vs_twin": twin_seconds / seconds if seconds > 0 else None,
            "twin_agrees": agrees}


# -- bounds ---------------------------------------------------------------------------------------

def _bound(mbcore, name, params, X, y, classes, margin=None):
    """The certificate of this learner on (X, y) (``mbcore.certify``), as result fields (the
    run's warnings were shown by the timed run)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cert = mbcore.certify(_registry.learner(name)(**params), X, y, classes=classes,
                                  gamma=margin)
    except mbcore.BoundViolationError as exc:         # reported in the table as a bug
        cert = exc.certificate
    checks = "; ".join(f"{text} [{status}]" for text, status in cert.assumptions)
    if cert.bound is None:
        return {"bound": None, "bound_counts": None, "bound_name": None,
                "bound_note": cert.reason + (f" ({checks})" if checks else "")}
    return {"bound": cert.bound, "bound_counts": cert.counted,
            "bound_name": f"{cert.bound_name} ({cert.source})",
            "bound_note": f"{cert.quantities_text()}; {checks}; holds for any ordering"}


def _table(label, X, results, header_line=None,
           footer=("examples/s: best of repeated passes, each by a fresh learner.  vs twin: time "
                   "of the pure-Python twin (mbref) / time of the compiled learner on the same "
                   "first rows."), k=None, skipped=""):
    """The readable report: a header, one row per learner, numbered footnotes, and the error
    rate of each learner on each true class (:func:`class_rate_table`)."""
    notes = []

    def mark(text):
        if text not in notes:
            notes.append(text)
        return f"[{notes.index(text) + 1}]"

    header = ("learner", "mistakes", "updates", "bound", "examples/s", "vs twin")
    rows = []
    for r in results:
        if not r.get("applicable", True):
            rows.append((r["learner"], "-", "-", "n/a " + mark(r["reason"]), "-", "-"))
            continue
        if r["bound"] is None:
            bound = "n/a " + mark(f"n/a: {r['bound_note']}")
        else:
            bound = _bound_text(r["bound"]) + " " + mark(
                f"{r['bound_name']}: {r['bound_note']}; bounds the {r['bound_counts']}")
            if not r["within_bound"]:
                bound += " " + mark(f"EXCEEDED: {r['learner']} made {r[r['bound_counts']]} "
                                    f"{r['bound_counts']}; this is a bug in the library")
        speed = "-" if r["examples_per_second"] is None else number(r["examples_per_second"])
        rows.append((r["learner"], str(r["mistakes"]), str(r["updates"]), bound, speed,
                     _twin_cell(r, mark)))
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    kinds = f", {k} classes" if k is not None and k > 2 else ""
    lines = [header_line or f"{label}: {X.shape[0]} rows x {X.shape[1]} features{kinds}; one "
             "online pass per learner in file order (predict, then learn the label)", ""]
    for row in [header] + rows:
        cells = [row[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(row[1:], widths[1:])]
        lines.append("  ".join(cells).rstrip())
    lines.append("")
    lines += [f"[{i + 1}] {text}" for i, text in enumerate(notes)]
    if skipped:
        lines.append(skipped)
    lines.append(footer)
    ran = [(r["learner"], r) for r in results
           if r.get("applicable", True) and r.get("per_class") is not None]
    if ran:
        lines += [""] + class_rate_table(ran)
    return "\n".join(lines)


def _bound_text(value):
    """A bound in the table: as 'mbcore certify' prints it (six significant digits, 1.60184e+16)
    from a million up, where digit groups would be a long row of figures; below, a count."""
    return f"{value:g}" if value >= 1e6 else number(value)


def _twin_cell(r, mark):
    if r["speedup_vs_twin"] is None:
        return "-"
    cell = f"{r['speedup_vs_twin']:,.0f}x on {r['twin_rows']} rows"
    if not r["twin_agrees"]:
        cell += " " + mark(f"{r['learner']}: the twin's predictions or updates differ from the "
                           f"compiled learner's on the first {r['twin_rows']} rows; this is a "
                           "bug in the library")
    return cell

