"""The reading half of :mod:`mbcore.streaming`: the chunked readers of svmlight, CSV and Vowpal
Wabbit text, the CSR chunk they yield, progressive evaluation (:func:`run_stream`) and the order
of a stream (shuffling, labels that arrive sorted).

Its public names are documented, and imported, as ``mbcore.streaming.X`` (``streaming``
re-exports them with the file workflow of :mod:`mbcore.workflow`).  They live here, below both,
so that the workflow can use them while ``streaming`` re-exports the workflow, without an import
cycle; the ``_`` names are shared with :mod:`mbcore.workflow` (this module's API for it).
"""

import os
import re
import stat
import time
from typing import Any, Callable, Iterable, Iterator, Optional, Tuple, Union

import numpy as np

from . import _messages, _params, _readers
from ._readers import declared_zero_based
from .datasets.formats import MAX_FEATURES, check_max_features, check_width, too_few_columns
from ._locking import holding
from .base import Snapshot
from .online import ClassRates, run_online

__all__ = ["iter_svmlight", "iter_csv", "iter_vw", "run_stream", "StreamRun", "CSRChunk",
           "shuffle_chunks", "LabelRuns", "SHUFFLE_BUFFER", "SORTED_MIN_ROWS",
           "declared_zero_based"]


PathLike = Union[str, bytes, "os.PathLike[str]"]


class CSRChunk:
    """A chunk of rows in compressed sparse row (CSR) layout, as :func:`iter_svmlight` yields.

    Every mbcore learner accepts it as X (like ``scipy.sparse.csr_array``): row ``i`` holds the
    values ``data[indptr[i]:indptr[i + 1]]`` in the columns ``indices[indptr[i]:indptr[i + 1]]``,
    sorted and distinct within each row.  It needs no SciPy; :meth:`to_scipy` makes a SciPy
    array of it (sharing the arrays) and :meth:`toarray` a dense one.

    Attributes
    ----------
    data : ndarray of float64, shape (nnz,)
        The values as written in the file (explicit zeros included).
    indices : ndarray of int32 (int64 for more than 2**31 - 1 columns or non-zeros)
    indptr : ndarray of the same dtype as ``indices``, shape (n_rows + 1,)
    shape : tuple (n_rows, n_features)
    """

    format = "csr"
    __slots__ = ("data", "indices", "indptr", "shape")

    def __init__(self, data, indices, indptr, shape):
        self.data, self.indices, self.indptr = data, indices, indptr
        self.shape = (int(shape[0]), int(shape[1]))

    @property
    def nnz(self) -> int:
        """Number of stored values."""
        return int(self.data.shape[0])

    def toarray(self) -> np.ndarray:
        """The rows as a dense C-contiguous float64 array."""
        out = np.zeros(self.shape, dtype=self.data.dtype)
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        out[rows, self.indices] = self.data
        return out

    def to_scipy(self):
        """The rows as a ``scipy.sparse.csr_array`` (needs SciPy; shares the arrays)."""
        try:
            import scipy.sparse as sp
        except ImportError:
            raise ImportError("CSRChunk.to_scipy needs SciPy, which is not installed; use "
                              "toarray() or the data, indices and indptr arrays") from None
        return sp.csr_array((self.data, self.indices, self.indptr), shape=self.shape)

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return f"CSRChunk(shape={self.shape}, nnz={self.nnz})"


# -- reading files ------------------------------------------------------------------------------

def _check_readable(owner, name):
    """Raise now (not at the first chunk) if the file does not exist or is a directory."""
    st = os.stat(name)
    if stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"{owner}: {name} is a directory, not a file")
    return stat.S_ISREG(st.st_mode)


# -- svmlight -----------------------------------------------------------------------------------

def iter_svmlight(path: PathLike, chunk_size: int = 10_000, n_features: Optional[int] = None,
                  zero_based: Union[bool, str, None] = "auto",
                  dense: bool = False,
                  max_features: Optional[int] = None,
                  on_error: str = "raise", workers: int = 1,
                  interactive: bool = False,
                  grow: bool = False, lines: bool = False,
                  labeled: Union[bool, str] = True) -> Iterator[Tuple[Any, ...]]:
    """Read a LIBSVM / svmlight file in chunks of rows.

    The format and its rules are those of :func:`mbcore.datasets.load_svmlight` (``label
    idx:value ...`` per line, ``#`` comments, blank lines skipped, ``qid:`` ignored, indices in
    any order but each at most once per line), and the rows, values and labels are exactly
    what it returns for the whole file.  The file may be gzip-compressed (recognised by its
    magic bytes, whatever its name).  It is read in blocks of 256 KiB, so memory stays
    O(chunk_size + 256 KiB) whatever the size of the file (with ``workers``, about
    ``workers + 1`` groups of 1 MiB of text and their rows).

    **Zero-based indices.**  A file's own word comes first: its leading comment lines may
    declare its indices, as scikit-learn's ``dump_svmlight_file`` writes when given a comment
    (``# Column indices are zero-based``, or ``one-based``;
    :func:`declared_zero_based`).  ``zero_based=None`` is one rule for every
    reader: what the file declares, else one-based (LIBSVM's convention), decided before any
    row is read; an index 0 in a one-based reading raises, naming the line.  ``"auto"`` (the
    default) takes the file's declaration, else reads zero-based if the file holds an index 0
    (a first pass, as :func:`~mbcore.datasets.load_svmlight` does; one-based when read
    width-free).  ``True`` or ``False`` says it.

    **Width.**  Every chunk has the same number of columns, ``n_features``.  When it is None,
    or when ``zero_based="auto"`` finds no declaration, a first quick pass over the file
    (indices only, O(1) memory, about an eighth of the time of the full read) finds the
    largest index (and whether index 0 occurs), exactly as
    :func:`~mbcore.datasets.load_svmlight` decides them for the whole file; then the chunks are
    read.  Give ``n_features`` to read in one pass, which is also the only way to read a file
    that cannot be read twice (a pipe).  A chunk with an index outside ``n_features`` raises,
    naming the line.

    **Width-free** (``grow=True``, what ``train_file`` and ``evaluate_file`` read by
    default): no first pass, for files and pipes alike.  The width grows as indices arrive:
    each chunk is as wide as the largest column of the rows read so far (its own and the
    earlier chunks'), so the widths never decrease, and a learner given the chunks in order
    grows its state with them (see :func:`~mbcore.streaming.train_file`).  Indices follow the
    rule above, decided before any row arrives (``"auto"`` without a declaration means
    one-based; an index 0 then raises, naming the line, rather than shifting the columns read
    so far).
    The width may grow up to ``max_features`` columns (default
    ``mbcore.datasets.MAX_FEATURES``, 2**26): an index past it raises, naming the line,
    before anything is allocated for it.  ``n_features`` must then be None.

    **Labels** are numbers or text: the first row with a label decides.  A number makes the
    labels float64 (as written); text makes them str (a NumPy str array, as :func:`iter_csv`
    gives), and a later label of the other kind raises, naming its line.  A line that starts
    with a feature (its first token holds ':') has no label: an error, unless
    ``labeled="auto"``, which reads it as a row without a label (label NaN, or '' among text
    labels), for predicting unlabeled data.

    **Reader.**  Lines are parsed by the compiled reader (``mbcore._kernels.readers``, with
    the GIL released; 620-700 MB/s on a9a / w8a text in the one-pass mode, 44-61x
    scikit-learn's ``load_svmlight_file``, on one thread: bench/README.md), whose semantics
    are those of the twin ``mbref.formats`` (values exactly as ``float()`` gives them).  A
    path or a binary file object (``sys.stdin.buffer``, an open file: one-pass mode only) may
    be read.

    **Bad lines.**  ``on_error="raise"`` (the default) raises at the first malformed line, and
    nothing of the chunk holding it is yielded; ``on_error="skip"`` drops every malformed line
    and counts it: the returned iterator's ``skipped`` attribute (and ``first_skipped_line``).

    Parameters
    ----------
    path : str or os.PathLike
        The file: plain text or gzip.
    chunk_size : int, default=10_000
        Rows per chunk; every chunk but the last has exactly this many.
    n_features : int or None, default=None
        Number of columns; None takes the largest index in the file (first pass).
    zero_based : bool, None or "auto", default="auto"
        Whether index 0 is the first column.  None: as the file declares (scikit-learn's
        comment), else one-based.  "auto": as the file declares, else one-based unless the
        file holds an index 0 (first pass).
    dense : bool, default=False
        False: X is a :class:`CSRChunk` (float64 values, int32 indices, sorted within rows),
        which every mbcore learner accepts, without SciPy.  True: X is a dense C-contiguous
        float64 array of shape (rows, n_features) (chunk_size * n_features * 8 bytes: for
        moderate widths).
    max_features : int or None, default=None
        The most columns the largest index may make when ``n_features`` is None (None:
        ``mbcore.datasets.MAX_FEATURES``, 67,108,864); a file over it is refused with a message
        rather than making a learner allocate weights for every column up to a stray index.
    on_error : {"raise", "skip"}, default="raise"
        What a malformed line does: raise, or be skipped and counted (``.skipped``).
    workers : int, default=1
        Threads that parse at once.  With more than one, the file is cut into groups of whole
        lines (about 1 MiB each) that ``workers`` threads parse in parallel, in the background,
        while the caller works on the chunks already read (at most ``workers + 1`` groups
        ahead); the rows, their order, the errors and their line numbers are the same, but a
        chunk then holds *at most* ``chunk_size`` rows, as it ends where its group ends.
        ``train_file``, ``predict_file`` and ``evaluate_file`` use
        :func:`~mbcore.streaming.default_workers` threads.
    interactive : bool, default=False
        Read the source as its data arrives (a pipe fed a line at a time, a terminal): never
        wait for a full block, and yield the rows of each arrival as a chunk at once (of at
        most ``chunk_size`` rows).  The rows, errors and line numbers are the same.
    grow : bool, default=False
        Read width-free (see **Width-free** above): no first pass; chunks as wide as the
        largest column so far; CSR chunks only.
    lines : bool, default=False
        Also yield, with each chunk, the line of each row in the source (1-based, counting
        every line: blank, comment and skipped ones too, as the errors do).
    labeled : True or "auto", default=True
        True: every data line starts with its label.  "auto": a line that starts with a
        feature is a row without a label (NaN, or '' among text labels).

    Yields
    ------
    X : CSRChunk or ndarray of shape (rows, n_features)
    y : ndarray of float64 or str, shape (rows,)
        The labels as written (see **Labels**).
    lines : ndarray of int64, shape (rows,)
        With ``lines=True`` only: the line of each row.

    Raises
    ------
    ValueError
        On an invalid parameter (at the call), or, while iterating, on a malformed line, a
        repeated index, an index out of range (the message names the file and line) or a file
        without data rows.
    OSError
        If the file cannot be opened (at the call), or the gzip data is truncated or damaged
        (naming the line reached).

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "tiny.svm")
    ...     with open(path, "w") as f:
    ...         _ = f.write("+1 1:0.5 3:2  # first\\n\\n-1 2:1\\n+1 3:1\\n")
    ...     chunks = list(iter_svmlight(path, chunk_size=2))
    >>> [(X.shape, y.tolist()) for X, y in chunks]
    [((2, 3), [1.0, -1.0]), ((1, 3), [1.0])]
    >>> chunks[0][0].toarray().tolist()
    [[0.5, 0.0, 2.0], [0.0, 1.0, 0.0]]
    """
    owner = "iter_svmlight"
    o = _readers.Options(owner, chunk_size=chunk_size, n_features=n_features,
                         zero_based=zero_based, lines=lines, labeled=labeled, dense=dense,
                         on_error=on_error, workers=workers, interactive=interactive, grow=grow)
    zero_based, grow = o.zero_based, o.grow
    name = _readers.source_name(path, owner)
    regular = not _readers.is_file_object(path) and _check_readable(owner, name)
    source = name if not _readers.is_file_object(path) else path
    declared = None
    if (zero_based is None or zero_based == "auto") and (regular or source is not name):
        declared = _readers.declared_zero_based(source)      # (a pipe's path: not opened)
    given = zero_based
    if declared is not None:
        zero_based = declared                  # the file says
    elif zero_based is None or (grow and zero_based == "auto"):
        zero_based = False                     # one-based: decided before any row arrives
    scan = not grow and (o.n_features is None or zero_based == "auto")
    if scan and not regular:
        raise ValueError(f"{owner}: {name} is not a regular file, so it cannot be read twice; "
                         "pass n_features and zero_based (True, False, or None: as the file "
                         "declares, else one-based) to read it in one pass")
    check_max_features(owner, max_features)
    why = _readers.zero_reason(given, declared, grow)
    return _readers.Reader(name, lambda reader: _svmlight_chunks(
        source, o, reader, zero_based, scan, max_features, why))


def _svmlight_chunks(source, o, reader, zero_based, scan, max_features, why):
    """The chunks of :func:`iter_svmlight` (options ``o``, ``zero_based`` as decided)."""
    name, owner, lines, optional = reader.name, o.owner, o.lines, o.labeled == "auto"
    if o.grow:
        yield from _svmlight_grow(source, o, reader, zero_based, max_features, why)
        return
    n_features = o.n_features
    if scan:
        low, high = _readers.svmlight_scan_file(source, owner, name)
        if zero_based == "auto":
            zero_based = low == 0
            why = None if zero_based else why
        if n_features is None:
            n_features = 0 if high < 0 else (high + 1 if zero_based else max(high, 0))
            check_width(owner, name, int(n_features), max_features)
    d = int(n_features)
    shift = 0 if zero_based else 1

    def finish(labels, indptr, indices, data, high, rl):
        m = labels.shape[0]
        if o.dense:
            X = _readers.to_dense(m, d, indptr, indices, data)
        else:
            idx, ptr = _readers.to_csr_parts(indptr, indices, d, data.shape[0])
            X = CSRChunk(data, idx, ptr, (m, d))
        return (X, labels, rl) if lines else (X, labels)

    with _readers.open_source(source, o.interactive) as f:
        if o.workers > 1:
            yield from _readers.svmlight_parallel(f, reader, owner, o.chunk_size, d, shift,
                                                  o.skip, o.workers, finish, lines=lines,
                                                  optional=optional, why=why)
        else:
            st = np.zeros(_readers.SVM_STATE, dtype=np.int64)
            blocks = _readers.line_blocks(f, owner, name, lambda: int(st[1]))
            for parts in _readers.svmlight_chunks(blocks, reader, owner, o.chunk_size, d, shift,
                                                  o.skip, st=st, flush=o.interactive,
                                                  lines=lines, optional=optional, why=why):
                yield finish(*parts)
    if not reader.rows:
        raise ValueError(f"{owner}: {name} holds no data rows")


def _svmlight_grow(source, o, reader, zero_based, max_features, why):
    """The chunks of a stream read width-free: the parser checks every column against the cap
    (``max_features``), and each chunk is given the width of the largest column so far."""
    name, owner, lines, optional = reader.name, o.owner, o.lines, o.labeled == "auto"
    cap = MAX_FEATURES if max_features is None else int(max_features)
    shift = 0 if zero_based else 1
    width = 0                                  # the columns seen so far (in the stream's order)

    def finish(labels, indptr, indices, data, high, rl):
        m = labels.shape[0]
        idx, ptr = _readers.to_csr_parts(indptr, indices, cap, data.shape[0])
        X = CSRChunk(data, idx, ptr, (m, high + 1))
        return (X, labels, rl) if lines else (X, labels)

    with _readers.open_source(source, o.interactive) as f:
        if o.workers > 1:
            chunks = _readers.svmlight_parallel(f, reader, owner, o.chunk_size, cap, shift,
                                                o.skip, o.workers, finish, widening=True,
                                                lines=lines, optional=optional, why=why)
        else:
            st = np.zeros(_readers.SVM_STATE, dtype=np.int64)
            blocks = _readers.line_blocks(f, owner, name, lambda: int(st[1]))
            chunks = (finish(*parts) for parts in _readers.svmlight_chunks(
                blocks, reader, owner, o.chunk_size, cap, shift, o.skip, st=st,
                flush=o.interactive, widening=True, lines=lines, optional=optional, why=why))
        for item in chunks:
            X = item[0]
            if X.shape[1] > width:
                width = X.shape[1]
            X.shape = (X.shape[0], width)
            yield item
    if not reader.rows:
        raise ValueError(f"{owner}: {name} holds no data rows")


# -- CSV ----------------------------------------------------------------------------------------

def iter_csv(path: PathLike, chunk_size: int = 10_000, label_column: Optional[int] = -1,
             delimiter: Optional[str] = ",",
             skip_header: Union[bool, str] = "auto",
             on_error: str = "raise",
             interactive: bool = False,
             lines: bool = False) -> Iterator[Tuple[np.ndarray, ...]]:
    """Read a delimited text file of numeric features and one label column in chunks of rows.

    The format and its rules are those of :func:`mbcore.datasets.load_csv` (text after ``#`` is
    a comment, blank lines are skipped, every column but the label column is a number), and the
    rows are exactly what it returns for the whole file.  The file may be gzip-compressed
    (recognised by its magic bytes, whatever its name), a pipe or a binary file object; it is
    read in blocks of 256 KiB and parsed by the compiled reader (``mbcore._kernels.readers``,
    GIL released; the twin ``mbref.formats`` defines it), so memory stays
    O(chunk_size + 256 KiB).

    Two rules come with reading in chunks: the **width** of every row must be that of the first
    data row; and the **labels** are numbers (float64) for the whole stream if every label of
    the first chunk is a number, and strings otherwise (:func:`~mbcore.datasets.load_csv`
    decides this over the whole file).  A row that breaks either rule raises, naming its line.

    **Header.**  With ``skip_header="auto"`` (the default) the first data line is a header,
    and skipped, when some of its fields outside the label column are not numbers and the next
    data line has a number in one of those columns (as pandas' ``to_csv`` writes: column names,
    the label column's included).  When the first block read holds a single line (an interactive
    stream's first arrival), its fields alone decide.

    Parameters
    ----------
    path : str or os.PathLike
        The file: plain text or gzip.
    chunk_size : int, default=10_000
        Rows per chunk; every chunk but the last has exactly this many.
    label_column : int or None, default=-1
        Index of the label column; negative values count from the end (-1 = last).  None: no
        label column (rows to predict): every column is a feature, and y is NaN.
    delimiter : str or None, default=","
        The field separator (one character); None splits on runs of whitespace.
    skip_header : bool or "auto", default="auto"
        Skip the first line of the file (a header): True, False, or "auto" (see **Header**).
    on_error : {"raise", "skip"}, default="raise"
        What a malformed line does: raise, or be skipped and counted (``.skipped``).
    interactive : bool, default=False
        Read the source as its data arrives (a pipe fed a line at a time, a terminal): never
        wait for a full block, and yield the rows of each arrival as a chunk at once (of at
        most ``chunk_size`` rows).  The rows, errors and line numbers are the same.
    lines : bool, default=False
        Also yield, with each chunk, the line of each row in the source (1-based, counting
        every line: the header, blank, comment and skipped ones too, as the errors do).

    Yields
    ------
    X : ndarray of float64, shape (rows, n_columns - 1), C-contiguous
        The other columns, in file order (all the columns with ``label_column=None``).
    y : ndarray of shape (rows,)
        float64 or str, as decided by the first chunk (NaN with ``label_column=None``).
    lines : ndarray of int64, shape (rows,)
        With ``lines=True`` only: the line of each row.

    Raises
    ------
    ValueError
        On an invalid parameter (at the call), or, while iterating, on a feature that is not a
        number, a row of another width, a label that is not a number when the first chunk's
        were (each naming the file and line), fewer than two columns, or no data rows.
    OSError
        If the file cannot be opened (at the call), or the gzip data is truncated or damaged.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "tiny.csv")
    ...     with open(path, "w") as f:
    ...         _ = f.write("a,b,class\\n1,0,yes\\n0,2.5,no\\n1,1,no\\n")
    ...     chunks = list(iter_csv(path, chunk_size=2, skip_header=True))
    >>> [(X.tolist(), y.tolist()) for X, y in chunks]
    [([[1.0, 0.0], [0.0, 2.5]], ['yes', 'no']), ([[1.0, 1.0]], ['no'])]
    """
    owner = "iter_csv"
    o = _readers.Options(owner, chunk_size=chunk_size, label_column=label_column,
                         skip_header=skip_header, lines=lines, delimiter=delimiter,
                         on_error=on_error, interactive=interactive)
    name = _readers.source_name(path, owner)
    if not _readers.is_file_object(path):
        _check_readable(owner, name)
        path = name
    return _readers.Reader(name, lambda reader: _csv_chunks(path, o, reader))


def _csv_chunks(source, o, reader):
    """The chunks of :func:`iter_csv` (options ``o``)."""
    name, owner = reader.name, o.owner
    st = np.zeros(1, dtype=np.int64)      # the lines passed, for the message of a gzip error
    with _readers.open_source(source, o.interactive) as f:
        blocks = _readers.line_blocks(f, owner, name, lambda: int(st[0]))
        yield from _readers.csv_chunks(
            blocks, reader, owner, o.chunk_size, o.label_column, o.delimiter, o.skip_header,
            o.skip, row_name=lambda line, row: f"line {line}",
            too_few_columns=lambda n: too_few_columns(owner, name, n), line_counter=st,
            flush=o.interactive, lines=o.lines)
    if not reader.rows:
        raise ValueError(f"{owner}: {name} holds no data rows")


# -- progressive evaluation ---------------------------------------------------------------------

class StreamRun(ClassRates):
    """The record of :func:`run_stream`: totals and per-chunk counts, O(number of chunks).

    Attributes
    ----------
    n, mistakes, updates : int
        Totals over the stream so far.  Every example was predicted before it was learned, so
        ``mistakes`` are the progressive (test-then-train) mistakes.
    seconds : float
        Wall-clock time since the start of the run, reading the chunks included.
    learn_seconds : float
        The part of ``seconds`` spent in the learner (``mbcore.run_online``).
    n_chunks : int
    chunk_n, chunk_mistakes, chunk_updates : ndarray of int64, shape (n_chunks,)
        Examples, mistakes and updates in each chunk.
    n_curve, mistake_curve : ndarray of int64, shape (n_chunks,)
        Cumulative examples and mistakes at the end of each chunk.
    error_rate : float
        The progressive error rate, ``mistakes / n`` (NaN before any example).
    chunk_error_rates : ndarray of float64, shape (n_chunks,)
        ``chunk_mistakes / chunk_n``.
    classes, class_counts, class_mistakes : ndarray
        The learner's classes and, for each, the examples of the stream of that true class
        and the mistakes made on them (added over the chunks), as :class:`mbcore.OnlineRun`
        has them, with its ``class_error_rates``, ``balanced_error_rate``,
        ``false_positive_rate`` and ``false_negative_rate``; None before any example.
    """

    __slots__ = ("n", "mistakes", "updates", "seconds", "learn_seconds", "_n", "_m", "_u",
                 "classes", "class_counts", "class_mistakes")

    def __init__(self):
        self.n = self.mistakes = self.updates = 0
        self.seconds = self.learn_seconds = 0.0
        self._n, self._m, self._u = [], [], []
        self.classes = self.class_counts = self.class_mistakes = None

    def _add(self, n, mistakes, updates, record=None):
        self.n += n
        self.mistakes += mistakes
        self.updates += updates
        self._n.append(n)
        self._m.append(mistakes)
        self._u.append(updates)
        if record is not None:
            self._add_classes(record)

    def _add_classes(self, record):
        """Add the per-class counts of ``record`` (an OnlineRun or a StreamRun)."""
        if record.class_counts is not None:
            if self.class_counts is None:
                self.classes = record.classes
                self.class_counts = record.class_counts.copy()
                self.class_mistakes = record.class_mistakes.copy()
            else:
                self.class_counts += record.class_counts
                self.class_mistakes += record.class_mistakes

    @property
    def n_chunks(self) -> int:
        return len(self._n)

    @property
    def chunk_n(self) -> np.ndarray:
        return np.array(self._n, dtype=np.int64)

    @property
    def chunk_mistakes(self) -> np.ndarray:
        return np.array(self._m, dtype=np.int64)

    @property
    def chunk_updates(self) -> np.ndarray:
        return np.array(self._u, dtype=np.int64)

    @property
    def n_curve(self) -> np.ndarray:
        return np.cumsum(self.chunk_n)

    @property
    def mistake_curve(self) -> np.ndarray:
        return np.cumsum(self.chunk_mistakes)

    @property
    def error_rate(self) -> float:
        return self.mistakes / self.n if self.n else float("nan")

    @property
    def chunk_error_rates(self) -> np.ndarray:
        n = self.chunk_n
        return self.chunk_mistakes / np.maximum(n, 1)

    def __repr__(self):
        return (f"StreamRun(n={self.n}, chunks={self.n_chunks}, mistakes={self.mistakes}, "
                f"updates={self.updates}, error_rate={self.error_rate:.4g})")


def _classes_like(owner, classes, y):
    """``classes=`` read as the labels' kind: labels given as text (as a command line gives
    them, ``--classes 1,2,3``) are read as numbers when ``y`` holds numbers (ints for integer
    labels, floats for float labels, true/false for bools); anything else is left as given."""
    if classes is None or isinstance(classes, (str, bytes)) or \
            not isinstance(classes, (list, tuple)):
        return classes
    kind = np.asarray(y).dtype.kind
    if kind not in "biuf" or not any(isinstance(c, str) for c in classes):
        return classes
    out = []
    for c in classes:
        if not isinstance(c, str):
            out.append(c)
            continue
        text = c.strip()
        try:
            if kind == "b":
                value = {"true": True, "1": True, "false": False, "0": False}[text.lower()]
            elif kind in "iu":
                try:
                    value = int(text)
                except ValueError:
                    f = float(text)
                    value = int(f) if f.is_integer() else f
            else:
                value = float(text)
        except (KeyError, ValueError, OverflowError):
            raise ValueError(f"{owner}: the class {c!r} is not a number, but the labels read "
                             f"are numbers ({np.asarray(y).dtype}); give the labels as "
                             "written in the data") from None
        out.append(value)
    return out


def _at_width(X, d):
    """A CSR chunk narrower than d columns given the width d (its rows unchanged); any other
    chunk as it is."""
    if X.shape[1] < d and isinstance(X, CSRChunk):
        return CSRChunk(X.data, X.indices, X.indptr, (X.shape[0], d))
    return X


def _widen_to_chunk(learner, X):
    """For a stream of growing width: the chunk X as wide as the fitted learner (a narrower
    CSR chunk is only given the learner's width), and the learner grown to a wider chunk
    (``learner._widen``).  Returns (X, snapshot to restore if the chunk then fails, or None).
    A learner's first chunk without any feature yet (rows with no index: width 0) is read one
    column wide, the least a learner takes.  The caller holds the write lock."""
    if not learner._is_fitted():
        if X.shape[1] == 0 and isinstance(X, CSRChunk):
            return CSRChunk(X.data, X.indices, X.indptr, (X.shape[0], 1)), None
        return X, None
    if X.shape[1] == learner.n_features_in_:
        return X, None
    d = learner.n_features_in_
    if X.shape[1] < d:
        return _at_width(X, d), None       # (a dense one: the learner's check names the widths)
    snap = Snapshot(learner)
    try:
        learner._widen(X.shape[1])
    except BaseException:
        snap.restore()
        raise
    return X, snap


# A learner's message about one row of its input names it "in row R" (of the array it was given):
# a stream read from a file names the file and the line instead.
_IN_ROW = re.compile(r"\bin row (\d+)\b")


def _at_line(exc, lines, name):
    """``exc`` with its "in row R" (R counted in the chunk) replaced by the file and the line of
    that row (``lines``: the 1-based line of each row of the chunk, as the readers give it with
    ``lines=True``), or ``exc`` itself when it names no row or nothing says where the row was."""
    if lines is None or name is None:
        return exc
    text = str(exc)
    m = _IN_ROW.search(text)
    if m is None or int(m.group(1)) >= len(lines):
        return exc
    text = f"{text[:m.start()]}on {name}, line {int(lines[int(m.group(1))]):,}{text[m.end():]}"
    try:
        out = type(exc)(text)
    except Exception:               # noqa: BLE001 - an exception class with other arguments
        out = ValueError(text)
    out.__cause__ = exc
    return out


def _learn_chunk(owner, learner, X, y, classes, i, first, fresh, fit_params, grow=False,
                 lines=None, name=None):
    """One chunk through run_online; when the learner took its classes from the stream (no
    ``classes=``), an error caused by a label the first chunks did not show says so (the
    classes it names are those of the state the chunk was refused by: the write lock is held
    across both).  ``grow``: the chunks' width grows (:func:`_widen_to_chunk`); a chunk that fails
    leaves the learner as it was before it, its growth undone.  ``lines`` and ``name``: the
    line of each row in the source called ``name``, so that an error about a row names its
    line (:func:`_at_line`)."""
    with holding(learner, write=True):
        snap = None
        try:
            if grow:
                X, snap = _widen_to_chunk(learner, X)
            return run_online(learner, X, y, classes=classes, **fit_params)
        except BaseException as e:
            if snap is not None:
                snap.restore()
            if not isinstance(e, ValueError):
                raise
            every = _messages.spell(f"pass classes=[...] (every label) to {owner}",
                                    "pass --classes A,B,... (every label)")
            if classes is None and first and "classes" in str(e) and \
                    np.unique(np.asarray(y)).shape[0] == 1:
                detail = _messages.spell(f" ({e})", "")     # (its hint is partial_fit's)
                raise ValueError(f"{owner}: the first chunk holds a single label; {every}"
                                 f"{detail}") from e
            fitted = getattr(learner, "classes_", None)
            if classes is None and fresh and not first and fitted is not None:
                try:
                    new = sorted(set(np.asarray(y).tolist())
                                 - set(np.asarray(fitted).tolist()))
                except TypeError:
                    new = None
                if new:
                    where = f"chunk {i}"
                    if lines is not None and name is not None:
                        at = int(np.flatnonzero(np.isin(np.asarray(y), new))[0])
                        where = f"{name}, line {int(lines[at]):,},"
                    raise ValueError(f"{owner}: {where} holds the label(s) {new[:5]!r}, which "
                                     f"the earlier chunks did not show (the learner took its "
                                     f"classes {np.asarray(fitted).tolist()!r} from them); "
                                     f"{every} ({e})") from e
            bad = _at_line(e, lines, name)
            if bad is not e:
                raise bad from e
            raise


def run_stream(learner, chunks: Iterable[Tuple[Any, Any]], classes=None,
               callback: Optional[Callable[[StreamRun], Any]] = None, grow: bool = False,
               source_name: Optional[str] = None, **fit_params) -> StreamRun:
    """Progressive (test-then-train) evaluation of a learner over a stream of chunks.

    Each chunk goes through :func:`mbcore.run_online`: every example is predicted, then its label
    is revealed and learned, in order, so the mistakes counted are those of the online protocol
    over the whole stream, exactly as one ``run_online`` over the concatenated chunks.  Only the
    per-chunk counts are kept (:class:`StreamRun`), so memory does not grow with the stream.

    Parameters
    ----------
    learner : an mbcore learner
        Updated in place (it may already be fitted: the stream continues its run).
    chunks : iterable of (X, y) or of (X, y, lines)
        For example :func:`iter_svmlight` or :func:`iter_csv` (with ``lines=True``, each chunk
        comes with the 1-based line of each of its rows in the file); chunks without rows are
        skipped.
    classes : the labels, optional
        Passed with every chunk (as to ``partial_fit``): every label of the stream, two or more.
        Needed when the first chunk may hold a single label that does not name its pair (only
        -1, 0 and booleans do), or, for a learner of K >= 3 classes, may not show them all.
        Labels given as text (``["1", "2", "3"]``, as a command line gives them) are read as
        numbers when the stream's labels are numbers.
    callback : callable, optional
        Called as ``callback(stats)`` after each chunk with the :class:`StreamRun` so far
        (for a progress display).
    grow : bool, default=False
        The chunks' width may grow (``iter_svmlight(..., grow=True)``): a chunk wider than the
        learner first grows its state (new features at their initial value: weight 0 for the
        additive learners; a learner that needs its width up front raises ValueError naming
        it), a narrower CSR chunk is read at the learner's width.  The learner ends exactly as
        one run given the final width from the start would leave it.
    source_name : str, optional
        The name of the file the chunks come from: with chunks that carry their lines, an
        error the learner finds in a row (a value it refuses: NaN, infinity, a 2 for a learner
        of 0/1 features) names this file and the row's line instead of its row in the chunk.
    **fit_params : passed on to :func:`mbcore.run_online` (e.g. ``awake=`` for ``Specialists``)

    Returns
    -------
    StreamRun

    Notes
    -----
    Each chunk's pass holds the learner's write lock; another thread's calls may come between
    two chunks.  Hold ``learner.writing()`` around the call to make the stream one run.

    Examples
    --------
    >>> from mbcore import Winnow
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms(encoding="boolean")
    >>> stream = ((X[i:i + 1000], y[i:i + 1000]) for i in range(0, len(y), 1000))
    >>> stats = run_stream(Winnow(), stream)
    >>> stats.n, stats.n_chunks, int(stats.mistake_curve[-1]) == stats.mistakes
    (8124, 9, True)
    """
    if callback is not None and not callable(callback):
        raise TypeError(f"run_stream: callback must be callable, got {type(callback).__name__}")
    stats = StreamRun()
    start = time.perf_counter()
    with holding(learner):                  # (not a fit of another thread half done)
        fresh = getattr(learner, "classes_", None) is None    # its classes come from this stream
    for i, item in enumerate(chunks):
        lines = None
        try:
            if isinstance(item, tuple) and len(item) == 3:
                X, y, lines = item
            else:
                X, y = item
        except (TypeError, ValueError):
            raise TypeError(f"run_stream: chunk {i} is not an (X, y) pair, got "
                            f"{type(item).__name__}") from None
        if y is None or np.shape(y)[:1] == (0,):
            if y is None:
                raise TypeError(f"run_stream: chunk {i} has y=None; labels are needed")
            continue
        if stats.n == 0:
            classes = _classes_like("run_stream", classes, y)
        t = time.perf_counter()
        record = _learn_chunk("run_stream", learner, X, y, classes, i, stats.n == 0, fresh,
                              fit_params, grow, lines, source_name)
        now = time.perf_counter()
        stats.learn_seconds += now - t
        stats._add(record.n, record.mistakes, record.updates, record)
        stats.seconds = now - start
        if callback is not None:
            callback(stats)
    stats.seconds = time.perf_counter() - start
    return stats



# -- Vowpal Wabbit text -------------------------------------------------------------------------

def iter_vw(path: PathLike, chunk_size: int = 10_000, bits: int = 18, hash_seed: int = 0,
            sample_weight: bool = False, on_error: str = "raise",
            interactive: bool = False, lines: bool = False) -> Iterator[Tuple[Any, ...]]:
    """Read Vowpal Wabbit's text format in chunks of rows, its features hashed as VW hashes them.

    Each line is ``label [importance [base]] ['tag]|namespace[:weight] feature[:value] ...``
    (more ``|namespace ...`` groups may follow).  Features are hashed exactly as Vowpal Wabbit
    hashes them (MurmurHash3 x86_32 and VW's rules for namespaces, integer names and anonymous
    features) into ``2**bits`` columns, VW's ``-b bits``; a value is the namespace weight times
    the feature's value, features of value 0 are dropped, repeated columns of a line are summed
    (VW's linear model adds them).  So a VW user's files are read as they are, into the columns
    VW's own weights use.  The grammar, hashing and errors are defined by the pure-Python twin
    ``mbref.vw`` (its docstring has the details), and the compiled parser
    (``mbcore._kernels.vw``, GIL released) gives the same rows, values and messages.

    **Not supported**, each an error naming the line rather than a guess: ``name:string``
    features, label-dependent, cost-sensitive and contextual-bandit labels (``:`` in the
    label), multiline examples (``shared``), a non-zero base (initial prediction), values that
    are not finite numbers.  VW's constant feature is not added (mbcore's learners have their
    own intercept), and options such as ``--hash all``, ``-q``, ``--redefine`` do not apply.
    Values are float64 (VW keeps float32).

    The source may be gzip-compressed (recognised by its magic bytes), a pipe or a binary file
    object; it is read once, in blocks of 256 KiB, so memory is O(chunk_size + 256 KiB).

    Parameters
    ----------
    path : str, os.PathLike or binary file object
        The file: plain text or gzip.
    chunk_size : int, default=10_000
        Rows per chunk; every chunk but the last has exactly this many.
    bits : int, default=18
        Columns are the hashes masked to ``bits`` bits (VW's ``-b``), 1 to 31.
    hash_seed : int, default=0
        VW's ``--hash_seed``.
    sample_weight : bool, default=False
        Also yield the importance weights (default 1).
    on_error : {"raise", "skip"}, default="raise"
        What a malformed line does: raise, or be skipped and counted (the returned iterator's
        ``skipped`` and ``first_skipped_line``).
    interactive : bool, default=False
        Read the source as its data arrives (a pipe fed a line at a time, a terminal): never
        wait for a full block, and yield the rows of each arrival as a chunk at once (of at
        most ``chunk_size`` rows).  The rows, errors and line numbers are the same.
    lines : bool, default=False
        Also yield, last, the line of each row in the source (1-based, counting every line:
        blank and skipped ones too, as the errors do).

    Yields
    ------
    X : CSRChunk of shape (rows, 2**bits)
    y : ndarray of float64, shape (rows,)
        The labels as written (``-1``/``1``, or ``1..K`` for ``--oaa``).
    w : ndarray of float64, shape (rows,)
        The importance weights, with ``sample_weight=True`` only.
    lines : ndarray of int64, shape (rows,)
        With ``lines=True`` only: the line of each row.

    Raises
    ------
    ValueError
        On an invalid parameter (at the call), or, while iterating, on a malformed line (the
        message names the file and the line) or a file without data rows.
    OSError
        If the file cannot be opened (at the call), or the gzip data is truncated or damaged.

    Examples
    --------
    >>> import os, tempfile
    >>> from mbref.vw import feature_index
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "tiny.vw")
    ...     with open(path, "w") as f:
    ...         _ = f.write("1 2.0 'ex1|user:0.5 age:4 7 |item hat\\n-1 | hat\\n")
    ...     chunks = list(iter_vw(path, chunk_size=1, sample_weight=True))
    >>> [(X.shape, y.tolist(), w.tolist()) for X, y, w in chunks]
    [((1, 262144), [1.0], [2.0]), ((1, 262144), [-1.0], [1.0])]
    >>> X = chunks[0][0]
    >>> row = dict(zip(X.indices.tolist(), X.data.tolist()))
    >>> [row[feature_index(ns, f)] for ns, f in [(b"user", b"age"), (b"user", b"7"),
    ...                                          (b"item", b"hat")]]
    [2.0, 0.5, 1.0]
    """
    from . import _vw_format
    owner = "iter_vw"
    o = _readers.Options(owner, chunk_size=chunk_size, bits=bits, hash_seed=hash_seed,
                         sample_weight=sample_weight, on_error=on_error,
                         interactive=interactive, lines=lines)
    name = _readers.source_name(path, owner)
    if not _readers.is_file_object(path):
        _check_readable(owner, name)
        path = name

    def chunks(reader):
        d = 1 << o.bits
        for y, w, indptr, indices, data, rl in _vw_format.vw_chunks(
                path, reader, owner, o.chunk_size, o.bits, o.hash_seed, o.skip, o.interactive,
                o.lines):
            idx, ptr = _readers.to_csr_parts(indptr, indices, d, data.shape[0])
            X = CSRChunk(data, idx, ptr, (y.shape[0], d))
            item = (X, y, w) if o.sample_weight else (X, y)
            yield item + (rl,) if o.lines else item
        if not reader.rows:
            raise ValueError(f"{owner}: {name} holds no data rows")

    return _vw_format.VWReader(name, chunks)


# -- order: shuffling, and labels that arrive sorted --------------------------------------------

SHUFFLE_BUFFER = 65_536     # rows a stream's shuffle holds (shuffle_chunks)
SORTED_MIN_ROWS = 100       # the least rows for which "sorted" is said (LabelRuns)


def _take_rows(X, rows):
    """The rows ``rows`` of X (a CSRChunk, a SciPy sparse array or a NumPy array), in order."""
    if isinstance(X, CSRChunk):
        starts, ends = X.indptr[rows].astype(np.int64), X.indptr[rows + 1].astype(np.int64)
        lengths = ends - starts
        indptr = np.zeros(rows.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        pos = np.repeat(starts - indptr[:-1], lengths) + np.arange(indptr[-1], dtype=np.int64)
        return CSRChunk(X.data[pos], X.indices[pos], indptr.astype(X.indptr.dtype),
                        (rows.shape[0], X.shape[1]))
    return X[rows]


def _join_rows(parts):
    """One chunk of the rows of ``parts`` (CSRChunks, as wide as the widest, or NumPy arrays)."""
    if len(parts) == 1:
        return parts[0]
    if isinstance(parts[0], CSRChunk):
        d = max(p.shape[1] for p in parts)
        ends = np.cumsum([p.nnz for p in parts])
        indptr = np.concatenate([np.zeros(1, dtype=np.int64)] +
                                [p.indptr[1:].astype(np.int64) + (e - p.nnz)
                                 for p, e in zip(parts, ends)])
        indices = np.concatenate([p.indices.astype(np.int64) for p in parts])
        idx, ptr = _readers.to_csr_parts(indptr, indices, d, int(indptr[-1]))
        return CSRChunk(np.concatenate([p.data for p in parts]), idx, ptr,
                        (sum(p.shape[0] for p in parts), d))
    if hasattr(parts[0], "tocsr"):          # SciPy sparse
        import scipy.sparse as sp
        return sp.vstack(parts, format="csr")
    return np.concatenate(parts)


def shuffle_chunks(chunks: Iterable[Tuple[Any, Any]], seed: int = 0,
                   buffer_size: int = SHUFFLE_BUFFER,
                   chunk_size: int = 8_192) -> Iterator[Tuple[Any, np.ndarray]]:
    """The rows of a stream of ``(X, y)`` chunks in a random order, with bounded memory.

    A shuffle buffer of ``buffer_size`` rows (as Vowpal Wabbit's and tf.data's): rows enter
    the buffer in the stream's order, and each time it holds ``buffer_size + chunk_size``
    rows, ``chunk_size`` of them drawn at random leave as the next chunk; at the end of the
    stream the buffer leaves in a random order.  So a row leaves at most about
    ``buffer_size`` rows before where it came (a stream longer than the buffer is shuffled
    locally, not wholly: a file sorted by label in blocks much longer than the buffer stays
    mostly sorted; load it in memory for a full shuffle), memory is
    O(buffer_size + chunk_size + one input chunk), and the order depends only on ``seed``,
    ``buffer_size``, ``chunk_size`` and the rows (not on how the input was cut into chunks).
    The chunks' widths may grow (CSR chunks of ``iter_svmlight(..., grow=True)``): a chunk
    leaving is as wide as the widest that entered before it.

    Parameters
    ----------
    chunks : iterable of (X, y) or of (X, y, lines)
        X a :class:`CSRChunk`, a NumPy array or a SciPy sparse array; ``lines`` (the readers'
        ``lines=True``), when given, travel with their rows.
    seed : int, default=0
        The seed of the random order (``numpy.random.default_rng(seed)``).
    buffer_size : int, default=65_536
        Rows the buffer holds between two chunks.
    chunk_size : int, default=8_192
        Rows per chunk yielded (the last may hold fewer).

    Yields
    ------
    (X, y) chunks, or (X, y, lines) for chunks that carry their lines
    """
    owner = "shuffle_chunks"
    seed = _params.integer(owner, "seed", seed, 0, 2 ** 63 - 1)
    buffer_size = _params.integer(owner, "buffer_size", buffer_size, 1, 1 << 40)
    step = _params.integer(owner, "chunk_size", chunk_size, 1)
    return _shuffled(chunks, np.random.default_rng(seed), buffer_size, step)


def _shuffled(chunks, rng, buffer_size, step):
    """The shuffle buffer of :func:`shuffle_chunks`; chunks of (X, y, lines) keep each row's
    line with it (so an error about a row names the line it came from)."""
    held = []                    # (X, y[, lines]) pieces: the buffer, then the rows since
    count = 0
    full = buffer_size + step
    with_lines = None

    def take(piece, rows):
        return (_take_rows(piece[0], rows),) + tuple(a[rows] for a in piece[1:])

    def pool():
        return (_join_rows([p[0] for p in held]),) + tuple(
            np.concatenate([p[k] for p in held]) for k in range(1, len(held[0])))

    for item in chunks:
        if with_lines is None:
            with_lines = len(item) == 3
        X, y = item[0], np.asarray(item[1])
        piece_all = (X, y) + ((np.asarray(item[2]),) if with_lines else ())
        m = y.shape[0]
        at = 0
        while at < m:
            n = min(m - at, full - count)
            piece = piece_all if at == 0 and n == m else take(piece_all, np.arange(at, at + n))
            held.append(piece)
            count += n
            at += n
            if count == full:
                whole = pool()
                order = rng.permutation(full)
                keep = np.sort(order[step:])
                held = [take(whole, keep)]
                count = buffer_size
                yield take(whole, order[:step])
    if count:
        whole = pool()
        order = rng.permutation(count)
        for a in range(0, count, step):
            yield take(whole, order[a:a + step])


_RUNS_ENOUGH = 2 * 128      # LabelRuns: past this many runs, the labels cannot arrive sorted


class LabelRuns:
    """Whether the labels of a stream arrive sorted, counted as they go.

    A *run* is a maximal block of consecutive rows with the same label.  The labels **arrive
    sorted** when there are at least ``SORTED_MIN_ROWS`` (100) rows and at most two runs per
    distinct label (``runs <= 2 k``): every label comes in at most two blocks, as in a file
    sorted by label (UCI spambase: 1,813 spam rows, then 2,788 others: two runs).  In a
    random order of n rows the runs are about n (1 - sum of p_i^2), far more.  Then the
    progressive mistakes measure little (a learner that sees one label for a long run learns
    to say it), and ``mbcore run`` / ``certify`` / ``plot`` / ``evaluate`` warn on stderr
    (``--shuffle`` to mix them).

    ``add(y)`` takes each chunk's labels in order; ``sorted`` is the verdict so far.
    """

    __slots__ = ("n", "runs", "labels", "_last")

    def __init__(self):
        self.n = self.runs = 0
        self.labels = set()
        self._last = None

    def add(self, y):
        """Count the labels ``y`` of the next chunk (in the stream's order); returns self.

        Cheap on the workflow's path: the labels are read at the starts of the chunk's runs
        only, and not at all once the stream has more than ``2 * 128`` runs (no order of at
        most 128 labels in at most two runs each has that many): then only the rows and the
        runs are counted."""
        y = np.asarray(y)
        m = y.shape[0]
        if m == 0:
            return self
        self.n += m
        change = y[1:] != y[:-1]
        first = y[0].item() if hasattr(y[0], "item") else y[0]
        before = self.runs
        new_run = self._last is None or first != self._last
        last = y[-1]
        self._last = last.item() if hasattr(last, "item") else last
        if before > _RUNS_ENOUGH or len(self.labels) > 64:   # (k matters only while runs <= 2k)
            self.runs += int(np.count_nonzero(change)) + new_run
            return self
        starts = np.flatnonzero(change)
        self.runs += starts.shape[0] + new_run
        heads = y[np.concatenate((np.zeros(1, dtype=np.intp), starts + 1))]
        self.labels.update(np.unique(heads).tolist())
        return self

    @property
    def sorted(self) -> bool:
        """Whether the labels so far arrive sorted (the rule above)."""
        return self.n >= SORTED_MIN_ROWS and self.runs <= 2 * len(self.labels)

    def warning(self, name):
        """The one-line warning for data ``name`` whose labels arrive sorted."""
        return (f"mbcore: warning: the labels of {name} arrive sorted ({self.runs} runs of "
                f"{len(self.labels)} labels over {self.n:,} rows): the online mistakes "
                "describe that order, not the data; pass --shuffle (--seed S) for a random "
                "order")
