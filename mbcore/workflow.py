"""Files in, a model out, predictions out: the train / predict / evaluate workflow (the Python
side of ``mbcore train``, ``mbcore predict`` and ``mbcore evaluate``).

:func:`train_file`, :func:`predict_file` and :func:`evaluate_file` read a file (svmlight, CSV or
Vowpal Wabbit text) with the chunked readers of :mod:`mbcore.streaming` and pass it through a
learner.  While the learner passes over one chunk, the next is parsed in a background thread
(:func:`prefetch`): the compiled readers and the kernels both release the GIL, so the two run
on two cores.  A learner trained from a file records how the file was read (its ``reading_``:
:data:`~mbcore.streaming.READING`, :func:`reading_options`), and later reads follow it.

Every public name here is also a name of :mod:`mbcore.streaming` (the same objects), where the
reference documents them.
"""

import copy
import os
import queue
import sys
import threading
import time

import numpy as np

from . import _messages, _params, _readers
from ._kernels.readers import join_labels, join_scores
from ._readers import declared_zero_based
from ._locking import holding
from .online import ClassRates, class_counts, label_classes
from ._streaming import (StreamRun, _at_line, _at_width, _classes_like, _learn_chunk, iter_csv,
                         iter_svmlight, iter_vw, run_stream, shuffle_chunks)
from ._threads import sharing_cores

__all__ = ["read_chunks", "prefetch", "train_file", "predict_file", "evaluate_file",
           "EvaluationReport", "REPORT_HEADER", "report_line", "FORMATS", "default_workers",
           "READING", "reading_options", "evaluate_asking", "ASK_HEADER", "ask_line"]


FORMATS = ("svmlight", "csv", "vw")
CHUNK = 8_192           # the workflow's rows per chunk (measured: bench/README.md)


# -- reading ----------------------------------------------------------------------------------

def read_chunks(source, format="svmlight", chunk_size=CHUNK, **options):
    """The (X, y) chunks of a source in the given format: :func:`mbcore.streaming.iter_svmlight`
    (options ``n_features``, ``zero_based``, ``max_features``, ``labeled``),
    :func:`~mbcore.streaming.iter_csv` (``label_column``, ``delimiter``, ``skip_header``) or
    :func:`~mbcore.streaming.iter_vw` (``bits``).  ``source`` is a path or a binary file
    object.  With ``lines=True`` (every format) each chunk is ``(X, y, lines)``: the 1-based
    line of each row in the source, an int64 array."""
    if format == "svmlight":
        return iter_svmlight(source, chunk_size=chunk_size, **options)
    if format == "csv":
        return iter_csv(source, chunk_size=chunk_size, **options)
    if format == "vw":
        return iter_vw(source, chunk_size=chunk_size, **options)
    raise ValueError(f"read_chunks: parameter format must be one of {list(FORMATS)}, got "
                     f"{format!r}")


class _Failed:
    """An exception raised by the producer, carried to the consumer."""

    __slots__ = ("exc",)

    def __init__(self, exc):
        self.exc = exc


_DONE = object()


def prefetch(iterable, depth=2):
    """Iterate ``iterable`` in a background thread, at most ``depth`` items ahead.

    The next chunk is read and parsed while the caller works on the current one.  Items come in
    order; an exception in the producer is raised in the caller at the point of the item that
    failed; when the caller stops early (``break``, an exception, closing the generator) the
    producer is told to stop and joined, so no thread is left behind.
    """
    if depth < 1:
        raise ValueError(f"prefetch: parameter depth must be >= 1, got {depth!r}")
    q = queue.Queue(maxsize=depth)
    stop = threading.Event()

    def put(item):
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce():
        try:
            for item in iterable:
                if not put(item):
                    return
        except BaseException as exc:           # noqa: BLE001 - carried to the consumer
            put(_Failed(exc))
            return
        put(_DONE)

    worker = threading.Thread(target=produce, name="mbcore-prefetch", daemon=True)
    worker.start()
    try:
        while True:
            item = q.get()
            if item is _DONE:
                return
            if isinstance(item, _Failed):
                raise item.exc
            yield item
    finally:
        stop.set()
        worker.join()
        close = getattr(iterable, "close", None)
        if close is not None:
            close()


def default_workers():
    """The parsing threads the workflow uses by default: the cores of this machine but one (the
    learner's), at most 4, at least 1 (environment variable ``MBCORE_READ_WORKERS`` overrides).
    With one, the reader still parses ahead of the learner, in one background thread."""
    text = os.environ.get("MBCORE_READ_WORKERS")
    if text:
        top = _readers.MAX_WORKERS
        if not (text.strip().isdigit() and 1 <= int(text) <= top):
            raise ValueError(f"MBCORE_READ_WORKERS must be an integer in [1, {top}], "
                             f"got {text!r}")
        return int(text)
    return max(1, min(4, (os.cpu_count() or 1) - 1))


def _background(format, ahead, options):
    """The threads that read ahead of the learner in :func:`_source_chunks` (0 when not
    ahead): the svmlight reader's workers (``default_workers()`` unless given), or the one
    thread of :func:`prefetch`."""
    if not ahead:
        return 0
    if format == "svmlight":
        w = options.get("workers")
        return default_workers() if w is None else int(w)
    return 1


def _source_chunks(source, format, chunk_size, ahead, options):
    """The chunks of a source, read ahead when ``ahead``: svmlight by its parallel reader (its
    threads already parse ahead of the caller), the other formats through :func:`prefetch`."""
    if ahead and format == "svmlight":
        if options.get("workers") is None:
            options = dict(options, workers=default_workers())
        if options["workers"] > 1:
            return read_chunks(source, format, chunk_size, **options)
    chunks = read_chunks(source, format, chunk_size, **options)
    return prefetch(chunks) if ahead else chunks


# -- how a learner read its data --------------------------------------------------------------
#
# A learner trained from a file (train_file, evaluate_file) records how the file was read in
# its fitted attribute ``reading_`` (saved with it), and predict_file, evaluate_file and a
# further train_file read the same way by default: a model whose features came from a
# zero-based file, or were hashed into 2**4 columns, is never fed columns read otherwise.

# The options of each format that decide what the features are (and so must be the same when
# a model trained on them predicts); the others (chunk_size, workers, ...) change nothing.
READING = {"svmlight": ("zero_based",), "csv": ("label_column", "delimiter", "skip_header"),
           "vw": ("bits", "hash_seed")}

_CLI_SPELLING = {
    "format": lambda v: f"--format {v}",
    "zero_based": lambda v: "--zero-based" if v else "one-based indices (no --zero-based)",
    "bits": lambda v: f"--bits {v}",
    "hash_seed": lambda v: f"hash seed {v}",
    "label_column": lambda v: "--no-label" if v is None else f"--label-column {v}",
    "delimiter": lambda v: f"--delimiter {v!r}",
    "skip_header": lambda v: {True: "--skip-header", False: "no header (no --skip-header)",
                              "auto": "a header sniffed from the first line"}.get(v, repr(v)),
}


def _spelled(key, value):
    return _messages.spell(f"{key}={value!r}", _CLI_SPELLING[key](value))


def _reader_defaults(format):
    import inspect
    reader = {"svmlight": iter_svmlight, "csv": iter_csv, "vw": iter_vw}[format]
    params = inspect.signature(reader).parameters
    return {k: params[k].default for k in READING[format]}


def reading_options(owner, learner, source, format, options, override=False):
    """How to read ``source`` for ``learner``: the options given, and for the others the
    reading the learner recorded when it was trained from a file (its ``reading_``), else the
    readers' defaults (svmlight; indices zero-based when the file declares it, else
    one-based).  :func:`train_file`, :func:`predict_file` and :func:`evaluate_file` call it.

    Parameters
    ----------
    owner : str
        The name errors start with.
    learner : an mbcore learner
    source : str, os.PathLike or binary file object
        Read only for its declaration of zero-based indices (:func:`declared_zero_based`).
    format : {"svmlight", "csv", "vw"} or None
        None: the recorded format, else svmlight.
    options : dict
        The reader options given (an option of :data:`READING` absent, or ``zero_based=None``,
        is not given).
    override : bool, default=False
        Options given win over the recorded reading instead of being refused.

    Returns
    -------
    (format, options, reading)
        The format, the reader options to use (every option of :data:`READING` for the
        format set), and the dict a learner trained on this source records as ``reading_``.

    Raises
    ------
    ValueError
        An option given (or ``format``) contradicts the recorded reading, naming both values
        (as the command's options when the ``mbcore`` command is the caller).
    """
    with holding(learner):
        rec = getattr(learner, "reading_", None) if learner._is_fitted() else None
    name = type(learner).__name__
    override = _params.flag(owner, "override_reading", override)

    def refuse(key, was, now):
        fix = _messages.spell("leave it out (the recorded reading is the default) or pass "
                              "override_reading=True",
                              "leave the option out (the recorded reading is the default) or "
                              "give --override-reading")
        return ValueError(f"{owner}: the {name} was trained on data read with "
                          f"{_spelled(key, was)}, but {_spelled(key, now)} was given: its "
                          f"features would be read into other columns and its predictions "
                          f"be wrong; {fix}")

    if format is None:
        format = rec["format"] if rec is not None else "svmlight"
    elif rec is not None and rec.get("format") != format and not override:
        raise refuse("format", rec.get("format"), format)
    if format not in FORMATS:
        raise ValueError(f"{owner}: parameter format must be one of {list(FORMATS)}, got "
                         f"{format!r}")
    if rec is not None and rec.get("format") != format:
        rec = None
    options = dict(options)
    reading = {"format": format}
    defaults = _reader_defaults(format)
    for key in READING[format]:
        given = key in options and not (key == "zero_based" and options[key] is None)
        if given:
            value = options[key]
            if rec is not None and key in rec and rec[key] != value and not override and \
                    not (key == "label_column" and value is None):
                raise refuse(key, rec[key], value)
        elif rec is not None and key in rec:
            value = rec[key]
        else:           # (svmlight: what the file declares, else one-based: the one rule)
            value = None if key == "zero_based" else defaults[key]
        if key == "zero_based" and value in (None, "auto"):
            declared = declared_zero_based(source)
            value = bool(declared) if value is None or declared is not None else value
        options[key] = value
        if not (key == "label_column" and value is None):
            reading[key] = value
    if rec is not None:
        for key in READING[format]:
            reading.setdefault(key, rec.get(key))
    return format, options, reading


def _record_reading(learner, reading):
    with holding(learner, write=True):
        learner.reading_ = dict(reading)


# -- the width of svmlight input --------------------------------------------------------------

def _width_options(owner, learner, source, format, options):
    """The svmlight reader's options for ``train_file`` and ``evaluate_file``.  Indices are
    one-based unless ``zero_based`` says otherwise (decided before any line is read), and:

    * ``n_features`` given: that width, checked on every line; no first pass;
    * else a fitted learner (a warm start) that cannot grow: its width; no first pass;
    * else a learner that grows (its ``grows`` tag: the additive learners): ``grow=True``, the width
      grows as the indices arrive, and so does the learner's state; no first pass;
    * else (a learner that needs its width up front, whose ``needs_width`` tag says why): a
      regular file is read twice, a first pass finding its width; a stream that cannot be read
      twice (a pipe, a file object) is refused here, before anything is read, with a message
      naming the learner and ``n_features``.

    ``grow`` given by the caller is kept as given."""
    if format != "svmlight" or "grow" in options:
        return options
    options = dict(options)
    options.setdefault("zero_based", False)
    if options.get("n_features") is not None:
        return options
    with holding(learner):
        fitted = learner._is_fitted()
        d = learner.n_features_in_ if fitted else None
    if learner._TAGS.grows:
        options["grow"] = True
    elif fitted:
        options["n_features"] = d
    elif _readers.is_file_object(source) or not os.path.isfile(source):
        raise ValueError(f"{owner}: {type(learner).__name__} needs the number of features up "
                         f"front ({learner._TAGS.needs_width}), so it cannot read a stream of "
                         "unknown width; pass n_features=D (--n-features D on the command line)")
    return options


# -- train ------------------------------------------------------------------------------------

def train_file(learner, source, *, format=None, passes=1, chunk_size=CHUNK,
               classes=None, ahead=True, callback=None, shuffle=None, labels_seen=None,
               override_reading=False, **options):
    """Train ``learner`` online on every example of a file, in order (``passes`` times).

    Each chunk goes through :func:`mbcore.run_online` (predict, then learn, every example), so
    the returned :class:`~mbcore.streaming.StreamRun` counts the progressive mistakes of the
    first pass and of the later ones together; the learner ends exactly as one
    ``partial_fit`` over the concatenated examples would leave it.  A fitted learner (e.g. one
    loaded with :func:`mbcore.load`) continues its run: a warm start.

    Parameters
    ----------
    learner : an mbcore learner (updated in place)
    source : str, os.PathLike or binary file object
        More than one pass needs a path (the file is read again).
    format : {"svmlight", "csv", "vw"}, optional
        Default: the format the learner was trained from (its ``reading_``), else svmlight.
    passes : int, default=1
    chunk_size : int, default=8_192
        Rows per chunk: small enough that the learner starts early and the last chunk's
        learning (not overlapped by any parsing) is short.
    classes : the labels, optional (as for ``partial_fit``)
        Every label, when the first chunk may not show them all (as for :func:`run_stream`:
        labels given as text are read as numbers when the file's labels are numbers).
    ahead : bool, default=True
        Parse ahead in background threads while the learner learns: svmlight by
        ``workers`` threads in parallel when there are more than one (default
        :func:`default_workers`; a chunk then holds at most ``chunk_size`` rows), else, and
        for the other formats, by one (:func:`prefetch`).  The learner's result does not
        depend on it.
    callback : callable, optional
        ``callback(stats)`` after each chunk (progress display).
    shuffle : (seed, buffer_size), optional
        Present the rows in the random order of :func:`shuffle_chunks` (a shuffle buffer:
        bounded memory), pass ``k`` (from 0) with the seed ``seed + k``.
    labels_seen : callable, optional
        Called with each chunk's labels in the order learned, in the first pass (e.g.
        ``LabelRuns().add``).
    override_reading : bool, default=False
        A learner already trained from a file (``reading_``) reads this one the same way
        (``zero_based``, ``bits``, ``label_column``, ...: the options it was not given); an
        option given that contradicts that reading raises ValueError naming both, unless
        ``override_reading=True``.
    **options : passed to the reader (:func:`read_chunks`), e.g. ``workers`` for svmlight

    Returns
    -------
    StreamRun

    Notes
    -----
    The learner records how the file was read in its fitted attribute ``reading_`` (a dict:
    ``format`` and the options that decide the features: ``zero_based`` for svmlight,
    ``label_column``, ``delimiter`` and ``skip_header`` for CSV, ``bits`` and ``hash_seed``
    for Vowpal Wabbit's text), which ``learner.save`` stores and :func:`predict_file` and
    :func:`evaluate_file` follow.  A value the learner refuses in a row (NaN, infinity, a 2
    for a learner of 0/1 features) raises ValueError naming the file and the row's line.
    """
    passes = _params.integer("train_file", "passes", passes, 1)
    if passes > 1 and hasattr(source, "read"):
        raise ValueError("train_file: more than one pass needs a file path (a stream cannot be "
                         "read again)")
    format, options, reading = reading_options("train_file", learner, source, format, options,
                                               override_reading)
    options = _width_options("train_file", learner, source, format, options)
    name = _readers.source_name(source, "train_file")
    total = None
    for k in range(passes):
        chunks = _source_chunks(source, format, chunk_size, ahead, _with_lines(options))
        if shuffle is not None:
            seed, buffer_size = shuffle
            chunks = shuffle_chunks(chunks, seed=(seed + k) % 2 ** 63, buffer_size=buffer_size,
                                    chunk_size=chunk_size)
        if labels_seen is not None and k == 0:
            chunks = _seen(chunks, labels_seen)
        with _closing(chunks), sharing_cores(_background(format, ahead, options)):
            stats = run_stream(learner, chunks,
                               classes=classes, callback=callback,
                               grow=options.get("grow", False), source_name=name)
        if total is None:
            total = stats
        else:
            for n, m, u in zip(stats._n, stats._m, stats._u):
                total._add(n, m, u)
            total._add_classes(stats)
            total.seconds += stats.seconds
            total.learn_seconds += stats.learn_seconds
    if total.n:
        _record_reading(learner, reading)
    return total


def _close(chunks):
    """Close a chunk iterator the workflow made (its reading threads stop and are joined now,
    in this thread, not whenever the collector finds it, possibly inside the reader itself)."""
    close = getattr(chunks, "close", None)
    if close is not None:
        close()


class _closing:
    def __init__(self, chunks):
        self.chunks = chunks

    def __enter__(self):
        return self.chunks

    def __exit__(self, *exc):
        _close(self.chunks)
        return False


def _seen(chunks, labels_seen):
    for item in chunks:
        labels_seen(item[1])
        yield item


def _with_lines(options):
    """The reader's options asking for each row's line (``lines=True``)."""
    return dict(options, lines=True)


# -- predict ----------------------------------------------------------------------------------

def _label_text(classes):
    """The text of each class as predictions are written: integral floats without '.0'
    (svmlight labels are read as floats: '+1' is written '1'), other values as str()."""
    out = []
    for c in classes.tolist():
        if isinstance(c, float) and c.is_integer():
            c = int(c)
        out.append(str(c).encode("utf-8"))
    return out


def _format(learner, X, raw, table):
    """The prediction lines of the rows X (compiled writers: labels from their table, scores
    as repr(float) writes them).  ``table`` is ``[classes, their texts]``: the predictions and
    the classes they are coded against are read under one hold of the read lock, and the
    table follows the classes when a ``fit`` of another thread has replaced them."""
    if raw:
        scores = np.asarray(learner.decision_function(X), dtype=np.float64)
        return join_scores(np.ascontiguousarray(scores.reshape(scores.shape[0], -1)))
    with holding(learner):
        pred = learner.predict(X)
        cl = learner.classes_
    if table[0] is not cl:
        table[:] = [cl, _label_text(cl)]
    codes = np.searchsorted(cl, pred).astype(np.int64, copy=False)
    return join_labels(codes, table[1])


def _predicting_width(learner, X):
    """(model, X) to predict a chunk of a stream of growing width with a learner that grows
    (its ``grows`` tag): a narrower CSR chunk is given the learner's width; a chunk wider than the
    learner (a feature it never saw, as in a test file with an index past the training file's
    last) is predicted by a copy of the learner grown to its width (``_widen``: every new
    feature in the state a run given that width from the start would have left it, weight 0),
    so the predictions are those of that run; the learner itself does not change."""
    with holding(learner):
        d = learner.n_features_in_
        if X.shape[1] <= d:
            return learner, _at_width(X, d)
        wide = copy.deepcopy(learner)
    wide._widen(X.shape[1])
    return wide, X


def predict_file(learner, source, out=None, *, format=None, raw=False,
                 chunk_size=CHUNK, line_buffered=False, ahead=True, override_reading=False,
                 **options):
    """Write the learner's prediction for every example of a source, one line each.

    ``learner.predict`` (or ``decision_function`` with ``raw=True``) on the rows, in order,
    written as text to ``out`` (a path, a binary file object, or None for standard output):
    labels as written in the training data, scores as Python's ``repr`` of the float (exact
    round trip): one per line for two classes, and for a learner of K >= 3 classes the K
    scores of a row on its line, separated by spaces, in the order of ``learner.classes_``.
    The learner does not change.  ``line_buffered=True`` answers each line as soon as it has
    arrived (for an interactive pipe: the source is read as its data arrives, never waiting
    for a full block, and the lines of each arrival are predicted, written and flushed
    together); otherwise the source is read in chunks.  The rows' labels, if any, are
    read and ignored.  Returns the number of examples.

    svmlight is read in one pass.  For a learner that grows (the additive family) the width is
    free: a feature past the learner's width (one it never saw) is predicted as a run given
    that width from the start would predict it (its weight 0), never refused, as Vowpal Wabbit
    treats a new feature; pass ``n_features`` to check the width instead.  The other learners
    (whose rule depends on n) read the source at their own width, and an index past it is an
    error naming its line.

    The source is read as the learner's training data was (its ``reading_``, recorded by
    :func:`train_file` and :func:`evaluate_file` and saved with it): the format (when
    ``format`` is None) and every option that decides the features (``zero_based``,
    ``bits``, ``label_column``, ...) not given; an option given that contradicts that reading
    raises ValueError naming both, unless ``override_reading=True``.  A value the learner
    refuses in a row (NaN, infinity) raises ValueError naming the file and the row's line.

    Each chunk (each arrival, line-buffered) is predicted by one whole state of the learner,
    under its read lock; while another thread trains the learner, later chunks may see later
    states.  Hold ``learner.reading()`` around the call for one state over the whole source.
    """
    with holding(learner):
        learner._check_fitted("predict_file")
    format, options, _ = reading_options("predict_file", learner, source, format, options,
                                         override_reading)
    name = _readers.source_name(source, "predict_file")
    if format == "svmlight":        # labels are read and ignored: a row may have none
        options.setdefault("labeled", "auto")
    with holding(learner):          # (one state: not a fit of another thread half done)
        learner._check_fitted("predict_file")
        if format == "svmlight":    # one pass (a pipe cannot be read twice)
            if learner._TAGS.grows and "n_features" not in options and options.get("grow", True):
                # width-free: a feature the model never saw has weight 0 (_predicting_width)
                options["grow"] = True
            else:
                options.setdefault("n_features", learner.n_features_in_)
        cl = learner.classes_
    table = [cl, _label_text(cl)]
    close = False
    if out is None:
        sink = sys.stdout.buffer
    elif hasattr(out, "write"):
        sink = out
    else:
        sink, close = open(os.fspath(out), "wb"), True
    n = 0
    chunks = None
    try:
        options = _with_lines(options)
        if line_buffered:                   # one arrival at a time: no parsing threads
            options.pop("workers", None)
            chunks = read_chunks(source, format, chunk_size, interactive=True, **options)
        else:
            chunks = _source_chunks(source, format, chunk_size, ahead, options)
        for item in chunks:
            X, lines = item[0], (item[2] if len(item) == 3 else None)
            try:
                text = _format(*_predicting_width(learner, X), raw, table)
            except ValueError as e:
                bad = _at_line(e, lines, name)
                if bad is e:
                    raise
                raise bad from e
            sink.write(text)
            if line_buffered:
                sink.flush()
            n += X.shape[0]
        sink.flush()
    finally:
        _close(chunks)
        if close:
            sink.close()
    return n


# -- evaluate ---------------------------------------------------------------------------------

class EvaluationReport:
    """Progressive validation (predict each example, then learn it), reported as Vowpal Wabbit
    prints it: one line at 1, 2, 4, 8, ... examples and one at the end.

    Attributes
    ----------
    lines : list of (examples, mistakes, since_examples, since_mistakes)
        At each reported count: examples so far, mistakes so far, and the examples and
        mistakes since the previous line.
    stats : StreamRun
        The whole run's counts.
    """

    __slots__ = ("lines", "stats")

    def __init__(self):
        self.lines = []
        self.stats = None

    def text(self):
        """The report as a table (the last line is the total)."""
        return "\n".join([REPORT_HEADER] + [report_line(line) for line in self.lines])


REPORT_HEADER = "examples   mistakes   error rate   since last: examples   mistakes   error rate"


def report_line(line):
    """One line of the progressive report: (examples, mistakes, since_examples, since_mistakes)
    as text under :data:`REPORT_HEADER`."""
    n, m, dn, dm = line
    return (f"{n:>8,}   {m:>8,}   {m / n:>10.6f}   {dn:>20,}   {dm:>8,}   "
            f"{(dm / dn if dn else 0.0):>10.6f}")


ASK_HEADER = "examples   labels asked   mistakes   error rate"


def ask_line(line):
    """One line of :func:`evaluate_asking`'s report: (examples, labels asked, mistakes) as text
    under :data:`ASK_HEADER`."""
    n, a, m = line
    return f"{n:>8,}   {a:>12,}   {m:>8,}   {m / n:>10.6f}"


class AskingLines(ClassRates, list):
    """What :func:`evaluate_asking` returns: its report's lines, (examples, labels asked,
    mistakes) each, in a list that also counts, for each true class, the examples and the
    mistakes made on them (on every row: the source holds every label): ``classes``,
    ``class_counts``, ``class_mistakes`` and the rates of :class:`mbcore.OnlineRun`
    (``class_error_rates``, ``balanced_error_rate``, ``false_positive_rate``,
    ``false_negative_rate``); None before any row."""

    __slots__ = ("classes", "class_counts", "class_mistakes")

    def __init__(self):
        super().__init__()
        self.classes = self.class_counts = self.class_mistakes = None

    def _add_classes(self, classes, codes, errors):
        counts, mistakes = class_counts(codes, errors, len(classes))
        if self.class_counts is None:
            self.classes, self.class_counts, self.class_mistakes = classes, counts, mistakes
        else:
            self.class_counts += counts
            self.class_mistakes += mistakes


def evaluate_asking(sampler, source, *, format=None, chunk_size=CHUNK, classes=None,
                    on_line=None, override_reading=False, **options):
    """Progressive validation of a :class:`mbcore.SelectiveSampler` over a source: each row is
    predicted, its label asked for or not by the sampler's coin, and learned only when asked;
    the labels asked and the mistakes (on every row: the source holds every label) are
    reported at doubling row counts (1, 2, 4, ...) and at the end.  ``options`` are the
    reader's (as for :func:`evaluate_file`); an error about a row names the source's line.
    A fitted sampler (e.g. one loaded with :func:`mbcore.load`) continues its run: its
    learner's width, and the reading its learner recorded (``reading_``, as for
    :func:`evaluate_file`, ``override_reading`` included), are those of this source; the
    learner records how the source was read.  Returns the report's lines, (examples, labels
    asked, mistakes) each, in a list (``AskingLines``) that also counts the examples and
    the mistakes of each true class (``class_counts``, ``class_mistakes``, their rates)."""
    name = _readers.source_name(source, "evaluate_asking")
    # the file read as evaluate_file reads it for the same learner (one-based unless said or
    # declared, the recorded reading of a saved model's), but at a width known up front: the
    # sampler's learner does not grow with the stream, so a regular file gets the reader's
    # first pass (or the width of a warm-started learner) and a stream needs its width
    with holding(sampler):
        fitted = sampler._is_fitted()
        learner = sampler.learner_ if fitted else sampler.base_learner
    format, options, reading = reading_options("evaluate_asking", learner, source, format,
                                               options, override_reading)
    if format == "svmlight":
        options = dict(options)
        options.setdefault("zero_based", False)
        if options.get("n_features") is None and fitted:
            options["n_features"] = learner.n_features_in_
        if options.get("n_features") is None and (_readers.is_file_object(source) or
                                                  not os.path.isfile(source)):
            raise ValueError(f"evaluate_asking: {name} is a stream, which the selective run "
                             "reads at a width known up front; pass n_features=D "
                             "(--n-features D on the command line)")
    lines_out = AskingLines()
    n = asked = mistakes = 0
    next_at = 1
    chunks = _source_chunks(source, format, chunk_size, False, _with_lines(options))
    try:
        for item in chunks:
            X, y, where = item if len(item) == 3 else (item[0], item[1], None)
            if X.shape[0] == 0:
                continue
            if n == 0:
                classes = _classes_like("evaluate_asking", classes, y)
            try:
                run = sampler.run_online(X, y, classes=classes if n == 0 else None)
            except ValueError as e:
                raise _at_line(e, where, name) from e
            wrong = np.nan_to_num(run.errors) > 0
            cum_a = np.cumsum(run.asked)
            cum_m = np.cumsum(wrong)
            with holding(sampler):
                learned = sampler.learner_
                lines_out._add_classes(learned.classes_, label_classes(
                    learned, learned._label_codes(y, run.n)), wrong)
            while next_at <= n + run.n:
                k = next_at - n - 1
                line = (next_at, asked + int(cum_a[k]), mistakes + int(cum_m[k]))
                lines_out.append(line)
                if on_line is not None:
                    on_line(line)
                next_at *= 2
            n += run.n
            asked += run.labels_asked
            mistakes += run.mistakes
    finally:
        _close(chunks)
    if n and (not lines_out or lines_out[-1][0] != n):
        line = (n, asked, mistakes)
        lines_out.append(line)
        if on_line is not None:
            on_line(line)
    if n:
        _record_reading(sampler.learner_, reading)
    return lines_out


def evaluate_file(learner, source, *, format=None, chunk_size=CHUNK, classes=None,
                  ahead=True, on_line=None, shuffle=None, labels_seen=None,
                  override_reading=False, **options):
    """Progressive validation of ``learner`` over a source: each example is predicted, then
    learned (the learner is trained as it goes), and the mistakes are reported at doubling
    example counts (1, 2, 4, ...) and at the end, as Vowpal Wabbit reports its progressive loss.

    A mistake is a predicted label other than the true one, for two classes or K.  ``classes``
    is as for :func:`run_stream`.  ``on_line(line)`` is called with each report line as it is
    reached (for printing as the stream goes).  ``shuffle=(seed, buffer_size)`` presents the
    rows in the random order of :func:`shuffle_chunks` (a shuffle buffer: bounded memory);
    ``labels_seen(y)`` is called with each chunk's labels in the order learned (e.g.
    ``LabelRuns().add``).  svmlight input is read without a first pass, as by
    :func:`train_file` (the width grows with the stream unless ``n_features`` is given).
    As in :func:`train_file`, a learner trained from a file reads this one the same way
    (``override_reading``), records how it was read (``reading_``), and an error about a row
    names the file and its line (with ``shuffle``, the line it came from).
    Returns an :class:`EvaluationReport`.
    """
    report = EvaluationReport()
    stats = StreamRun()
    start = time.perf_counter()
    next_at, last_n, last_m = 1, 0, 0
    format, options, reading = reading_options("evaluate_file", learner, source, format,
                                               options, override_reading)
    options = _width_options("evaluate_file", learner, source, format, options)
    grow = options.get("grow", False)
    name = _readers.source_name(source, "evaluate_file")
    with holding(learner):                  # (not a fit of another thread half done)
        fresh = getattr(learner, "classes_", None) is None
    chunks = _source_chunks(source, format, chunk_size, ahead, _with_lines(options))
    busy = _background(format, ahead, options)
    if shuffle is not None:
        seed, buffer_size = shuffle
        chunks = shuffle_chunks(chunks, seed=seed, buffer_size=buffer_size,
                                chunk_size=chunk_size)
    try:
        for i, item in enumerate(chunks):
            X, y, lines = item if len(item) == 3 else (item[0], item[1], None)
            if X.shape[0] == 0:
                continue
            if labels_seen is not None:
                labels_seen(y)
            if stats.n == 0:
                classes = _classes_like("evaluate_file", classes, y)
            t = time.perf_counter()
            with sharing_cores(busy):
                rec = _learn_chunk("evaluate_file", learner, X, y, classes, i, stats.n == 0, fresh,
                                   {}, grow, lines, name)
            stats.learn_seconds += time.perf_counter() - t
            base_n, base_m = stats.n, stats.mistakes
            stats._add(rec.n, rec.mistakes, rec.updates, rec)
            curve = rec.mistake_curve
            while next_at <= stats.n:
                m = base_m + int(curve[next_at - base_n - 1])
                line = (next_at, m, next_at - last_n, m - last_m)
                report.lines.append(line)
                if on_line is not None:
                    on_line(line)
                last_n, last_m = next_at, m
                next_at *= 2
    finally:
        _close(chunks)
    if stats.n and last_n != stats.n:
        line = (stats.n, stats.mistakes, stats.n - last_n, stats.mistakes - last_m)
        report.lines.append(line)
        if on_line is not None:
            on_line(line)
    stats.seconds = time.perf_counter() - start
    report.stats = stats
    if stats.n:
        _record_reading(learner, reading)
    return report