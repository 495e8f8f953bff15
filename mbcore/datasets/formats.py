"""Text formats: the readers of svmlight (LIBSVM) and CSV files, and the parsing they share
with the chunked readers of :mod:`mbcore.streaming` (tokenising, number parsing, width checks).

Both are re-exported by :mod:`mbcore.datasets` (``mbcore.datasets.load_svmlight``,
``mbcore.datasets.load_csv``, ``mbcore.datasets.MAX_FEATURES``, ...).
"""

import gzip
import numbers
import os
import warnings

import numpy as np

__all__ = ["load_svmlight", "load_csv", "MAX_FEATURES", "open_text", "check_width",
           "check_max_features", "empty_label", "parse_svmlight", "svmlight_tokens", "numeric",
           "too_few_columns"]


def load_svmlight(path, n_features=None, zero_based="auto", max_features=None):
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
    zero_based : bool or "auto", default="auto"
        Whether index 0 is the first column.  ``"auto"`` treats the file as one-based (the LIBSVM
        convention) unless it holds an index 0.
    max_features : int or None, default=None
        The most columns an index in the file may make (None: ``MAX_FEATURES``, 67,108,864); a
        file over it is refused naming the line, as is one whose dense array would exceed 4 GiB
        (read such files in CSR chunks with :func:`mbcore.streaming.iter_svmlight`).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), dtype float64
        Dense and C-contiguous; absent pairs are 0.
    y : ndarray of shape (n_samples,), dtype float64
        The labels as written.

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
    if not (isinstance(zero_based, bool) or (isinstance(zero_based, str) and zero_based == "auto")):
        raise ValueError(f"load_svmlight: parameter zero_based must be True, False or 'auto', "
                         f"got {zero_based!r}")
    check_max_features("load_svmlight", max_features)
    name = os.fspath(path)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    try:
        with open_text(name) as f:
            return parse_svmlight(f, name, n_features, zero_based, max_features)
    except UnicodeDecodeError as e:
        raise ValueError(f"load_svmlight: {name} is not a UTF-8 text file ({e.reason} at byte "
                         f"{e.start})") from None
    except (EOFError, gzip.BadGzipFile) as e:
        raise OSError(f"load_svmlight: {name} is not a valid gzip file ({e})") from None


def parse_svmlight(lines, source, n_features, zero_based, max_features=None):
    """Parse svmlight lines into (X, y); ``source`` names the input in error messages."""
    labels, line_of_row, rows, cols, vals = svmlight_tokens(enumerate(lines, 1), source)
    if not labels:
        raise ValueError(f"load_svmlight: {source} holds no data rows")
    cols = _shift_indices(np.asarray(cols, dtype=np.int64), source, zero_based)
    d = _n_columns(cols, source, n_features, max_features,
                   lambda k: line_of_row[rows[k]])
    rows = np.asarray(rows, dtype=np.int64)
    _check_unique(rows, cols, d, line_of_row, source)
    if len(labels) * d * 8 > _MAX_DENSE_BYTES:
        raise ValueError(f"load_svmlight: {source} has {len(labels):,} rows and {d:,} columns: "
                         f"a dense float64 array of {len(labels) * d * 8 / 2**30:.1f} GiB, over "
                         f"the {_MAX_DENSE_BYTES >> 30} GiB load_svmlight makes; read it in CSR "
                         "chunks with mbcore.streaming.iter_svmlight")
    X = np.zeros((len(labels), d), dtype=np.float64)
    X[rows, cols] = np.asarray(vals, dtype=np.float64)
    return X, np.asarray(labels, dtype=np.float64)


def svmlight_tokens(numbered_lines, source, owner="load_svmlight"):
    """Tokenize svmlight text lines, given as (line number, str) pairs.

    Returns the lists (labels, line_of_row, rows, cols, vals): one label and one line number per
    data row, and per idx:value pair its row (counting data rows from 0), its index as written
    and its value.  Raises ValueError naming ``source`` and the line on a malformed line; the
    messages start with ``owner``.  Shared by :func:`load_svmlight` and
    :func:`mbcore.streaming.iter_svmlight` (which uses it for the lines its fast path declines).
    """
    labels, line_of_row, rows, cols, vals = [], [], [], [], []
    for lineno, line in numbered_lines:
        tokens = line.split("#", 1)[0].split()
        if not tokens:
            continue
        r = len(labels)
        labels.append(_number(tokens[0], source, lineno, "label", owner))
        line_of_row.append(lineno)
        for tok in tokens[1:]:
            key, sep, value = tok.partition(":")
            if not sep or not key or not value:
                raise ValueError(f"{owner}: {source}, line {lineno}: expected idx:value, "
                                 f"got {tok!r}")
            if key == "qid":
                continue
            if not key.isdecimal():     # isdigit() would let '²' through to int()
                raise ValueError(f"{owner}: {source}, line {lineno}: the index in {tok!r} "
                                 "is not a non-negative integer")
            rows.append(r)
            cols.append(int(key))
            vals.append(_number(value, source, lineno, "value", owner))
    return labels, line_of_row, rows, cols, vals


def _number(text, source, lineno, what, owner="load_svmlight"):
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{owner}: {source}, line {lineno}: the {what} {_short(text)} is "
                         "not a number") from None


def _short(text, limit=30):
    """repr of a token, cut short so that an error message stays on one line."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _shift_indices(cols, source, zero_based):
    """Turn file indices into column numbers (0 = first column)."""
    if zero_based == "auto":
        zero_based = bool(cols.size) and int(cols.min()) == 0
    if zero_based:
        return cols
    if cols.size and int(cols.min()) == 0:
        raise ValueError(f"load_svmlight: {source} has index 0 but zero_based=False; pass "
                         "zero_based=True or 'auto'")
    return cols - 1


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


def _n_columns(cols, source, n_features, max_features=None, line_of=None):
    needed = int(cols.max()) + 1 if cols.size else 0
    if n_features is None:
        where = f", line {line_of(int(np.argmax(cols)))}" if line_of is not None and cols.size \
            else ""
        check_width("load_svmlight", source, needed, max_features, where)
        return needed
    if needed > n_features:
        raise ValueError(f"load_svmlight: {source} uses column {needed - 1} (counting from 0) but "
                         f"n_features={n_features}")
    return int(n_features)


def _check_unique(rows, cols, d, line_of_row, source):
    keys = rows * max(d, 1) + cols
    uniq, first, counts = np.unique(keys, return_index=True, return_counts=True)
    if uniq.size == keys.size:
        return
    k = first[np.argmax(counts > 1)]
    raise ValueError(f"load_svmlight: {source}, line {line_of_row[rows[k]]}: column {cols[k]} "
                     "(counting from 0) appears more than once")


def load_csv(path, label_column=-1, delimiter=",", skip_header=False):
    """Read a delimited text file of numeric features and one label column.

    Read with :func:`numpy.loadtxt`; gzip files are decompressed (recognised by their first two
    bytes, whatever their name), blank lines are skipped and text after ``#`` is a comment.  Every column except the label column must be numeric; the
    labels may be numbers or words (the learners accept any two distinct labels).

    Parameters
    ----------
    path : str or os.PathLike
        The file to read.
    label_column : int, default=-1
        Index of the label column; negative values count from the end (-1 = last).
    delimiter : str or None, default=","
        The field separator; None splits on runs of whitespace.
    skip_header : bool, default=False
        Skip the first line (a header).

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
    if not isinstance(label_column, numbers.Integral) or isinstance(label_column, bool):
        raise ValueError(f"load_csv: parameter label_column must be an integer, got "
                         f"{label_column!r}")
    if not isinstance(skip_header, bool):
        raise ValueError(f"load_csv: parameter skip_header must be a bool, got {skip_header!r}")
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1):
        raise ValueError(f"load_csv: parameter delimiter must be one character or None, got "
                         f"{delimiter!r}")
    name = os.fsdecode(os.fspath(path))
    raw = _read_table(name, delimiter, skip_header)
    n_cols = raw.shape[1]
    if not -n_cols <= label_column < n_cols:
        raise ValueError(f"load_csv: label_column={label_column} is out of range for {name}, "
                         f"which has {n_cols} columns")
    k = label_column % n_cols
    X = numeric(np.delete(raw, k, axis=1), name, [j for j in range(n_cols) if j != k],
                skip_header)
    labels = raw[:, k]
    empty_label("load_csv", name, labels, lambda i: f"data row {i}")
    try:
        y = labels.astype(np.float64)
    except ValueError:
        y = labels
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


def _read_table(name, delimiter, skip_header):
    try:
        with warnings.catch_warnings(), open_text(name) as f:
            warnings.simplefilter("ignore", UserWarning)
            raw = np.loadtxt(f, dtype=str, delimiter=delimiter, skiprows=int(skip_header),
                             ndmin=2)
    except ValueError as e:
        raise ValueError(f"load_csv: {name}: {e}") from None
    except (EOFError, gzip.BadGzipFile) as e:
        raise OSError(f"load_csv: {name} is not a valid gzip file ({e})") from None
    if raw.shape[0] == 0:
        raise ValueError(f"load_csv: {name} holds no data rows")
    if raw.shape[1] < 2:
        raise too_few_columns("load_csv", name, raw.shape[1])
    return np.char.strip(raw)


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
