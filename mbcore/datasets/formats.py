"""Text formats: the readers of svmlight (LIBSVM) and CSV files, and the parsing they share
with the chunked readers of :mod:`mbcore.streaming` (tokenising, number parsing, width checks).

Both are re-exported by :mod:`mbcore.datasets` (``mbcore.datasets.load_svmlight``,
``mbcore.datasets.load_csv``, ``mbcore.datasets.MAX_FEATURES``, ...).
"""

import gzip
import numbers
import os

import numpy as np

from .. import _readers

__all__ = ["load_svmlight", "load_csv", "MAX_FEATURES", "open_text", "check_width",
           "check_max_features", "empty_label", "parse_svmlight", "numeric", "too_few_columns"]


def load_svmlight(path, n_features=None, zero_based="auto", max_features=None, labeled=True):
    """Read a LIBSVM / svmlight text file into dense arrays.

    Each non-blank line is ``label idx:value idx:value ...``.  Anything after ``#`` is a comment;
    blank lines (and lines holding only a comment) are skipped; ``qid:`` pairs are ignored; a line
    with a label and no pairs is an all-zero row.  gzip files are decompressed (recognised by
    their first two bytes, whatever their name).  Indices need not be sorted, but an index may appear only once per line.

    Parameters
    ----------
    path : str or os.PathLike
        The file to read.
    n_features : int or None, default=None
        Number of columns of X.  None uses the largest index in the file; give it when a file may
        not mention the last feature (a test file, say).
    zero_based : bool, None or "auto", default="auto"
        Whether index 0 is the first column.  ``"auto"`` takes what the file declares in its
        leading comment lines (scikit-learn's ``# Column indices are zero-based``, or
        ``one-based``), else treats the file as one-based (the LIBSVM convention) unless it
        holds an index 0.  ``None``: what the file declares, else one-based (an index 0 is then
        an error naming the line), the rule of :func:`mbcore.streaming.iter_svmlight`.
    max_features : int or None, default=None
        The most columns an index in the file may make (None: ``MAX_FEATURES``, 67,108,864); a
        file over it is refused naming the line, as is one whose dense array would exceed 4 GiB
        (read such files in CSR chunks with :func:`mbcore.streaming.iter_svmlight`).
    labeled : True or "auto", default=True
        True: every data line starts with its label.  "auto": a line that starts with a
        feature (its first token holds ':') is a row without a label (NaN, or '' among text
        labels), for predicting unlabeled data.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
        Dense and C-contiguous; absent pairs are 0.
    y : ndarray of shape (n_samples,), dtype float64 or str
        The labels as written: numbers, or text when the first line's label is not a number
        (a later label of the other kind is an error naming its line).

    Raises
    ------
    ValueError
        On a malformed line (the message names the file and line), a repeated index, an index out
        of range, a file without data rows, or an invalid parameter.
    OSError
        If the file cannot be opened or decompressed.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = os.path.join(tmp, "tiny.svm")
    ...     with open(p, "w") as f:
    ...         _ = f.write("+1 1:0.5 3:2  # first\\n\\n-1 2:1\\n")
    ...     X, y = load_svmlight(p)
    >>> X.tolist(), y.tolist()
    ([[0.5, 0.0, 2.0], [0.0, 1.0, 0.0]], [1.0, -1.0])
    """
    if n_features is not None and (not isinstance(n_features, numbers.Integral)
                                   or isinstance(n_features, bool) or n_features < 0):
        raise ValueError(f"load_svmlight: parameter n_features must be None or an integer >= 0, "
                         f"got {n_features!r}")
    if not (zero_based is None or isinstance(zero_based, bool) or
            (isinstance(zero_based, str) and zero_based == "auto")):
        raise ValueError(f"load_svmlight: parameter zero_based must be None, True, False or "
                         f"'auto', got {zero_based!r}")
    check_max_features("load_svmlight", max_features)
    if not (labeled is True or (isinstance(labeled, str) and labeled == "auto")):
        raise ValueError(f"load_svmlight: parameter labeled must be True or 'auto', got "
                         f"{labeled!r}")
    name = os.fsdecode(os.fspath(path))
    return parse_svmlight(name, name, n_features, zero_based, max_features, labeled == "auto")


def parse_svmlight(source, name, n_features, zero_based, max_features=None, optional=False):
    """Parse an svmlight file (a path, or a binary file object: plain or gzip, by its magic
    bytes) into dense (X, y) with the compiled reader; ``name`` names it in error messages."""
    owner = "load_svmlight"
    reader = _readers.Reader(name, lambda r: iter(()))
    st = np.zeros(_readers.SVM_STATE, dtype=np.int64)
    given = zero_based
    declared = None
    if zero_based is None or zero_based == "auto":
        declared = _readers.declared_zero_based(source)
        if declared is not None:
            zero_based = declared
        elif zero_based is None:
            zero_based = False
    why = None if zero_based is False and given is False else \
        _readers.zero_reason(given, declared)
    low = []

    def column_of(col):                  # a repeated index's column, for the message
        if zero_based != "auto":
            return col
        if not low:
            low.append(_readers.svmlight_scan_file(source, owner, name)[0])
        return col - (low[0] != 0)

    with _readers.open_source(source) as f:
        parts = list(_readers.svmlight_chunks(
            _readers.line_blocks(f, owner, name, lambda: int(st[1])), reader, owner,
            _ALL_ROWS, None, 1 if zero_based is False else 0, False, column_of, st, why=why,
            optional=optional))
    if not parts:
        raise ValueError(f"load_svmlight: {name} holds no data rows")
    labels, indptr, cols, vals = parts[0][:4]
    m = labels.shape[0]
    high = int(st[5])
    if zero_based == "auto" and cols.size and int(st[4]) > 0:
        cols = cols - 1
        high -= 1
    needed = high + 1 if cols.size else 0
    if n_features is None:
        where = f", line {int(st[6])}" if cols.size else ""
        check_width("load_svmlight", name, needed, max_features, where)
        d = needed
    elif needed > n_features:
        raise ValueError(f"load_svmlight: {name} uses column {needed - 1} (counting from 0) but "
                         f"n_features={n_features}")
    else:
        d = int(n_features)
    if m * d * 8 > _MAX_DENSE_BYTES:
        raise ValueError(f"load_svmlight: {name} has {m:,} rows and {d:,} columns: "
                         f"a dense float64 array of {m * d * 8 / 2**30:.1f} GiB, over "
                         f"the {_MAX_DENSE_BYTES >> 30} GiB load_svmlight makes; read it in CSR "
                         "chunks with mbcore.streaming.iter_svmlight")
    return _readers.to_dense(m, d, indptr, cols, vals), labels


_ALL_ROWS = 1 << 62


MAX_FEATURES = 1 << 26
"""The most columns a reader makes (67,108,864) unless told otherwise with ``max_features=``:
a file that names a larger index is refused with a message, rather than the learner asking for
gigabytes of weights (or ``load_svmlight`` for a dense array) it never meant to."""

_MAX_DENSE_BYTES = 1 << 32      # load_svmlight's dense array: 4 GiB at most


def check_width(owner, source, needed, max_features, where=""):
    """Refuse a file whose largest index makes more columns than ``max_features``."""
    limit = MAX_FEATURES if max_features is None else max_features
    if needed > limit:
        raise ValueError(f"{owner}: {source}{where} uses column {needed - 1:,} (counting from 0), "
                         f"more than the {limit:,} columns allowed (max_features={limit}); "
                         "pass a larger max_features if the file really has that many features")


def check_max_features(owner, max_features):
    if max_features is not None and (not isinstance(max_features, numbers.Integral) or
                                     isinstance(max_features, bool) or max_features < 1):
        raise ValueError(f"{owner}: parameter max_features must be None or an integer >= 1, "
                         f"got {max_features!r}")


def load_csv(path, label_column=-1, delimiter=",", skip_header="auto"):
    """Read a delimited text file of numeric features and one label column.

    Read with :func:`numpy.loadtxt`; gzip files are decompressed (recognised by their first two
    bytes, whatever their name), blank lines are skipped and text after ``#`` is a comment.  Every column except the label column must be numeric; the
    labels may be numbers or words (the learners accept any two distinct labels).

    Parameters
    ----------
    path : str or os.PathLike
        The file to read.
    label_column : int or None, default=-1
        Index of the label column; negative values count from the end (-1 = last).  None: no
        label column (every column is a feature; y is NaN).
    delimiter : str or None, default=","
        The field separator; None splits on runs of whitespace.
    skip_header : bool or "auto", default="auto"
        Skip the first line (a header).  "auto": skip it when it is a header: some of its
        fields outside the label column are not numbers and the next data line has a number in
        one of those columns (as pandas' ``to_csv`` writes).

    Returns
    -------
    X : ndarray of shape (n_samples, n_columns - 1), dtype float64
        The other columns, in file order, C-contiguous.
    y : ndarray of shape (n_samples,)
        float64 if every label is a number, otherwise the labels as strings.

    Raises
    ------
    ValueError
        If a feature is not a number (the message names the data row and column), rows have
        different lengths, the file has no data rows or fewer than two columns, or a parameter
        is invalid.
    OSError
        If the file cannot be opened.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     p = os.path.join(tmp, "tiny.csv")
    ...     with open(p, "w") as f:
    ...         _ = f.write("a,b,class\\n1,0,yes\\n0,2.5,no\\n")
    ...     X, y = load_csv(p, skip_header=True)
    >>> X.tolist(), y.tolist()
    ([[1.0, 0.0], [0.0, 2.5]], ['yes', 'no'])
    """
    if label_column is not None and (not isinstance(label_column, numbers.Integral) or
                                     isinstance(label_column, bool)):
        raise ValueError(f"load_csv: parameter label_column must be an integer or None, got "
                         f"{label_column!r}")
    if not (isinstance(skip_header, bool) or
            (isinstance(skip_header, str) and skip_header == "auto")):
        raise ValueError(f"load_csv: parameter skip_header must be True, False or 'auto', got "
                         f"{skip_header!r}")
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1):
        raise ValueError(f"load_csv: parameter delimiter must be one character or None, got "
                         f"{delimiter!r}")
    if delimiter is not None and (delimiter in "\n\r#" or not delimiter.isascii()):
        raise ValueError(f"load_csv: parameter delimiter must be one ASCII character (not a "
                         f"line break or '#') or None, got {delimiter!r}")
    name = os.fsdecode(os.fspath(path))
    owner = "load_csv"
    reader = _readers.Reader(name, lambda r: iter(()))
    with _readers.open_source(name) as f:
        parts = list(_readers.csv_chunks(
            _readers.line_blocks(f, owner, name, lambda: 0), reader, owner, _ALL_ROWS,
            None if label_column is None else int(label_column), delimiter, skip_header, False,
            row_name=lambda line, row: f"data row {row}",
            too_few_columns=lambda n: too_few_columns(owner, name, n)))
    if not parts:
        raise ValueError(f"load_csv: {name} holds no data rows")
    X, y = parts[0]
    return np.ascontiguousarray(X), y


def empty_label(owner, source, labels, row_name):
    """Refuse an empty label field (it would otherwise become a class of its own, '')."""
    empty = np.char.strip(labels.astype(str)) == ""
    if empty.any():
        i = int(np.argmax(empty))
        raise ValueError(f"{owner}: {source}, {row_name(i)}: the label field is empty")


def open_text(name):
    """Open a text file for reading, gzip-decompressed when its first two bytes are gzip's
    magic number (whatever its name), as UTF-8."""
    with open(name, "rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(name, "rt", encoding="utf-8")
    return open(name, "rt", encoding="utf-8")


def numeric(cells, name, columns, skip_header, row_name=None, owner="load_csv"):
    """cells (str array) -> float64, or the ValueError naming the first cell that is not a
    number: its row (``row_name(i)``, by default "data row i + 1") and its column."""
    try:
        return cells.astype(np.float64)
    except ValueError as e:
        error = e
    for i, row in enumerate(cells):
        for j, cell in enumerate(row):
            try:
                np.asarray(cell).astype(np.float64)
            except ValueError:
                hint = "" if i or skip_header else \
                    " (if the first line is a header, pass skip_header=True)"
                where = f"data row {i + 1}" if row_name is None else row_name(i)
                raise ValueError(f"{owner}: {name}: {where}, column {columns[j]} "
                                 f"(counting from 0) holds {str(cell)!r}, which is not a number; "
                                 f"only the label column may hold text{hint}") from None
    raise ValueError(f"{owner}: {name}: {error}")


def too_few_columns(owner, name, n_cols):
    return ValueError(f"{owner}: {name} has {n_cols} column per row; at least two are needed "
                      "(features and a label); check the delimiter")
