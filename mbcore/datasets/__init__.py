"""Real datasets bundled with mbcore, and small readers for svmlight and CSV files.

The bundled files live in ``mbcore/datasets/data`` (see the README there for their provenance) and
are found with :mod:`importlib.resources`, so they load from an installed wheel, a source tree or
a zip archive alike.  Nothing is downloaded and nothing is cached on disk.  Parsing uses the
standard library and NumPy only.

Examples
--------
>>> from mbcore.datasets import load_mushrooms
>>> X, y = load_mushrooms()
>>> X.shape, X.dtype.name, int((y == 1).sum()), int((y == -1).sum())
((8124, 112), 'float64', 4208, 3916)
"""

import gzip
import importlib.resources
import numbers
import os
import warnings

import numpy as np

__all__ = ["DATASETS", "describe", "load_mushrooms", "load_tictactoe", "load_monks",
           "load_svmlight", "load_csv"]

DATASETS = {
    "mushrooms": {
        "summary": ("UCI Mushroom (Schlimmer 1987) as LIBSVM 'mushrooms' (Chang & Lin), from "
                    "ambroiseodt/tsim@c80abbd; 112 binary features, separable"),
        "description": ("UCI Mushroom as the LIBSVM 'mushrooms' file: 8124 rows, 112 binary "
                        "one-hot features (21 active per row), +1 = edible (4208), "
                        "-1 = poisonous (3916); linearly separable."),
        "citation": ("Schlimmer, J. (1987). Mushroom [Dataset]. UCI Machine Learning Repository "
                     "(Dua, D. and Graff, C. (2019), UCI Machine Learning Repository, Irvine, CA: "
                     "University of California, School of Information and Computer Science). "
                     "LIBSVM data page 'mushrooms': Chang, C.-C. and Lin, C.-J. (2011), LIBSVM: a "
                     "library for support vector machines, ACM TIST 2(3), 27:1-27:27."),
        "source": ("GitHub ambroiseodt/tsim@c80abbd765cdaa57ad2b598583251850ded28e62:"
                   "data/mushrooms.txt (repository license MIT, for its code); checked against "
                   "the UCI and LIBSVM row and class counts."),
        "changes": ("CRLF line endings converted to LF and a final newline added; content "
                    "otherwise unchanged. Stored compressed with gzip -9n."),
        "labels": "LIBSVM label 1 = poisonous (3916 rows), 2 = edible (4208 rows).",
        "license": ("None stated by the file or the LIBSVM data page; UCI generally lists its "
                    "datasets under CC BY 4.0 (not checked for this one)."),
        "file": "mushrooms.svm.gz",
        "loader": "load_mushrooms",
        "n_samples": 8124,
        "n_features": 112,
    },
    "tic-tac-toe": {
        "summary": ("UCI Tic-Tac-Toe Endgame (Aha 1991), from AkashKumaravel/Dataset@6c637f2; "
                    "9 squares x/o/b, 958 boards"),
        "description": ("UCI Tic-Tac-Toe Endgame: 958 end positions, 9 categorical squares "
                        "(x, o, b = blank), +1 = x has three in a row (626), -1 otherwise (332); "
                        "not linearly separable in the 27 one-hot indicators."),
        "citation": ("Aha, D. (1991). Tic-Tac-Toe Endgame [Dataset]. UCI Machine Learning "
                     "Repository (Dua, D. and Graff, C. (2019), UCI Machine Learning Repository, "
                     "Irvine, CA: University of California, School of Information and Computer "
                     "Science)."),
        "source": ("GitHub AkashKumaravel/Dataset@6c637f2f809cd28360cc4c769c6073245675d80a:"
                   "tic-tac-toe.data; checked against the UCI row and class counts."),
        "changes": ("The repository owner's header line was removed (958 rows, 25,866 bytes, "
                    "md5 94ad0bb3bc7f39a2fd101ef86d173b65). Stored compressed with gzip -9n."),
        "labels": "'positive' (626 rows) and 'negative' (332 rows); loaded as +1 / -1.",
        "license": ("None stated by the file; UCI generally lists its datasets under CC BY 4.0 "
                    "(not checked for this one)."),
        "file": "tic-tac-toe.data.gz",
        "loader": "load_tictactoe",
        "n_samples": 958,
        "n_features": 9,
    },
    "monks": {
        "summary": ("UCI MONK's Problems 1-3 (Thrun et al. 1991), from "
                    "vishwesh-D-kumar/NaiveBayesClassifier@e6aea3b; 6 categorical attributes"),
        "description": ("UCI MONK's Problems: three targets over 6 categorical attributes "
                        "(a1, a2, a4 in 1..3; a3, a6 in 1..2; a5 in 1..4); training sets of "
                        "124 / 169 / 122 rows and test sets of all 432 points. MONK-1 = "
                        "(a1 = a2) or (a5 = 1); MONK-2 = exactly two of ai = 1; MONK-3 = "
                        "(a5 = 3 and a4 = 1) or (a5 != 4 and a2 != 3), 5% class noise in its "
                        "training set."),
        "citation": ("Thrun, S. et al. (1991). The MONK's Problems: a performance comparison of "
                     "different learning algorithms. CMU-CS-91-197. UCI Machine Learning "
                     "Repository (Dua, D. and Graff, C. (2019))."),
        "source": ("GitHub vishwesh-D-kumar/NaiveBayesClassifier@"
                   "e6aea3b308f2d73ac09aef48dd4e649f744a556a: monks-{1,2,3}.{train,test}; "
                   "monks-1 checked identical to depoale/monk_1's copies."),
        "changes": ("The owner's fake header line was removed from every file. Stored "
                    "compressed with gzip -9n."),
        "labels": "class 1 / 0 per the UCI files; loaded as +1 / -1.",
        "license": ("None stated by the files; UCI generally lists its datasets under CC BY 4.0 "
                    "(not checked for this one)."),
        "file": "monks-{problem}.{split}.gz",
        "loader": "load_monks",
        "n_samples": "124 / 169 / 122 (train), 432 (test)",
        "n_features": 6,
    },
}

_TTT_VALUES = ("x", "o", "b")
_MONKS_SIZES = {1: (124, 62), 2: (169, 64), 3: (122, 60)}   # train rows, positives
_MONKS_VALUES = (3, 3, 2, 3, 4, 2)


def _one_hot(C, values_per_column):
    """Categorical codes (0-based, per column) -> uint8 one-hot columns, column by column."""
    out = np.zeros((C.shape[0], sum(values_per_column)), dtype=np.uint8)
    start = 0
    for j, k in enumerate(values_per_column):
        out[np.arange(C.shape[0]), start + C[:, j]] = 1
        start += k
    return out


def load_tictactoe(encoding="categorical"):
    """Load the bundled UCI Tic-Tac-Toe Endgame data.

    958 final boards of games in which x moved first; each of the 9 squares (row by row) is
    ``"x"``, ``"o"`` or ``"b"`` (blank).  The label is +1 when x has three in a row.
    Provenance and citation: ``describe("tic-tac-toe")``.

    Parameters
    ----------
    encoding : {"categorical", "boolean"}, default="categorical"
        ``"categorical"``: X is an array of one-letter strings, shape (958, 9).  ``"boolean"``:
        27 uint8 one-hot columns, column 3*i + k meaning "square i holds ("x", "o", "b")[k]".

    Returns
    -------
    X : ndarray, y : ndarray of int64 (+1 positive: 626 rows, -1 negative: 332 rows)

    Examples
    --------
    >>> X, y = load_tictactoe()
    >>> X.shape, X[0].tolist(), int(y[0])
    ((958, 9), ['x', 'x', 'x', 'x', 'o', 'o', 'x', 'o', 'o'], 1)
    >>> load_tictactoe(encoding="boolean")[0].shape
    (958, 27)
    """
    if encoding not in ("categorical", "boolean"):
        raise ValueError(f"load_tictactoe: parameter encoding must be 'categorical' or "
                         f"'boolean', got {encoding!r}")
    info = DATASETS["tic-tac-toe"]
    with _bundled(info["file"]).open("rb") as raw, \
            gzip.open(raw, "rt", encoding="utf-8") as f:
        rows = [line.strip().split(",") for line in f if line.strip()]
    ok = len(rows) == info["n_samples"] and all(
        len(r) == 10 and set(r[:9]) <= set(_TTT_VALUES) and r[9] in ("positive", "negative")
        for r in rows)
    if not ok:
        raise OSError(f"the bundled file {info['file']} is damaged; reinstall mbcore")
    X = np.array([r[:9] for r in rows])
    y = np.array([1 if r[9] == "positive" else -1 for r in rows], dtype=np.int64)
    if encoding == "boolean":
        codes = np.searchsorted(np.array(["b", "o", "x"]), X)   # b=0, o=1, x=2
        codes = 2 - codes                                        # x=0, o=1, b=2
        return _one_hot(codes, [3] * 9), y
    return X, y


def load_monks(problem=1, split="train", encoding="categorical"):
    """Load one of the bundled UCI MONK's Problems.

    Six categorical attributes a1..a6 (a1, a2, a4 in 1..3; a3, a6 in 1..2; a5 in 1..4) and a
    known target: MONK-1 = (a1 = a2) or (a5 = 1); MONK-2 = exactly two of the ai equal 1;
    MONK-3 = (a5 = 3 and a4 = 1) or (a5 != 4 and a2 != 3), with 5% label noise in its training
    set.  Each test set is the whole 432-point domain.  Provenance: ``describe("monks")``.

    Parameters
    ----------
    problem : {1, 2, 3}, default=1
    split : {"train", "test"}, default="train"
    encoding : {"categorical", "boolean"}, default="categorical"
        ``"categorical"``: X holds the values (int64, 1-based as in the UCI files), shape
        (n, 6).  ``"boolean"``: 17 uint8 one-hot columns, attribute by attribute, value by
        value (a1 = 1, a1 = 2, a1 = 3, a2 = 1, ...).

    Returns
    -------
    X : ndarray, y : ndarray of int64 (+1 = class 1, -1 = class 0)

    Examples
    --------
    >>> X, y = load_monks(1)
    >>> X.shape, int((y == 1).sum())
    ((124, 6), 62)
    >>> bool(np.all((y == 1) == ((X[:, 0] == X[:, 1]) | (X[:, 4] == 1))))
    True
    """
    if problem not in (1, 2, 3) or isinstance(problem, bool):
        raise ValueError(f"load_monks: parameter problem must be 1, 2 or 3, got {problem!r}")
    if split not in ("train", "test"):
        raise ValueError(f"load_monks: parameter split must be 'train' or 'test', got "
                         f"{split!r}")
    if encoding not in ("categorical", "boolean"):
        raise ValueError(f"load_monks: parameter encoding must be 'categorical' or 'boolean', "
                         f"got {encoding!r}")
    name = f"monks-{problem}.{split}.gz"
    with _bundled(name).open("rb") as raw, gzip.open(raw, "rt", encoding="ascii") as f:
        rows = [line.split() for line in f if line.strip()]
    n = _MONKS_SIZES[problem][0] if split == "train" else 432
    try:
        y = np.array([int(r[0]) for r in rows], dtype=np.int64)
        X = np.array([[int(v) for v in r[1:7]] for r in rows], dtype=np.int64)
    except (ValueError, IndexError):
        raise OSError(f"the bundled file {name} is damaged; reinstall mbcore") from None
    if X.shape != (n, 6) or not np.isin(y, (0, 1)).all() or \
            not ((X >= 1) & (X <= np.array(_MONKS_VALUES))).all():
        raise OSError(f"the bundled file {name} is damaged; reinstall mbcore")
    y = np.where(y == 1, 1, -1).astype(np.int64)
    if encoding == "boolean":
        return _one_hot(X - 1, list(_MONKS_VALUES)), y
    return X, y


def describe(name):
    """Return the provenance of a bundled dataset as readable text.

    Parameters
    ----------
    name : str
        A key of :data:`DATASETS`, for example ``"mushrooms"``.  Each entry of :data:`DATASETS` is
        a dict with the keys ``summary`` (one line), ``description``, ``citation``, ``source``,
        ``changes``, ``labels``, ``license``, ``file``, ``loader`` (the name of the function in
        this module that loads it), ``n_samples`` and ``n_features``.

    Returns
    -------
    str
        Several lines: the description, the shape, the source repository and commit, the changes
        made to the file, the labels, the license situation and the citation.

    Raises
    ------
    ValueError
        If ``name`` is not a bundled dataset.
    """
    info = _info(name)
    lines = [
        f"{name}: {info['description']}",
        f"  shape: {info['n_samples']} rows x {info['n_features']} features "
        f"(loader: mbcore.datasets.{info['loader']})",
        f"  source: {info['source']}",
        f"  changes: {info['changes']}",
        f"  labels: {info['labels']}",
        f"  license: {info['license']}",
        f"  cite: {info['citation']}",
    ]
    return "\n".join(lines)


def _info(name):
    if not isinstance(name, str) or name not in DATASETS:
        raise ValueError(f"unknown dataset name={name!r}; bundled datasets are "
                         f"{sorted(DATASETS)}")
    return DATASETS[name]


def load_mushrooms(encoding="real", as_frame=False):
    """Load the bundled UCI Mushroom data (LIBSVM ``mushrooms``).

    8124 mushrooms described by 22 nominal attributes, one-hot encoded by LIBSVM into 112 binary
    indicators; every row has exactly 21 active indicators.  The data is linearly separable, so it
    satisfies the assumptions of the Perceptron convergence theorem.  Provenance and citation:
    ``describe("mushrooms")``.

    Parameters
    ----------
    encoding : {"real", "boolean"}, default="real"
        ``"real"`` returns X as float64 (for the additive learners); ``"boolean"`` returns X as
        uint8 zeros and ones (for the Boolean learners).
    as_frame : bool, default=False
        If True, return a ``pandas.DataFrame`` (columns ``x1`` .. ``x112``, the LIBSVM indices) and
        a ``pandas.Series`` named ``label``.  Needs pandas, which mbcore does not require.

    Returns
    -------
    X : ndarray of shape (8124, 112)
        C-contiguous; float64 for ``encoding="real"``, uint8 for ``encoding="boolean"``.  LIBSVM
        index *i* is column *i* - 1.
    y : ndarray of shape (8124,), dtype int64
        +1 = edible (LIBSVM label 2, 4208 rows), -1 = poisonous (LIBSVM label 1, 3916 rows).

    Raises
    ------
    ValueError
        If ``encoding`` or ``as_frame`` has an invalid value.
    ImportError
        If ``as_frame=True`` and pandas is not installed.

    Examples
    --------
    >>> X, y = load_mushrooms(encoding="boolean")
    >>> X.dtype.name, sorted(set(X.sum(axis=1).tolist()))
    ('uint8', [21])
    """
    if encoding not in ("real", "boolean"):
        raise ValueError(f"load_mushrooms: parameter encoding must be 'real' or 'boolean', "
                         f"got {encoding!r}")
    if not isinstance(as_frame, bool):
        raise ValueError(f"load_mushrooms: parameter as_frame must be a bool, got {as_frame!r}")
    info = DATASETS["mushrooms"]
    with _bundled(info["file"]).open("rb") as raw, \
            gzip.open(raw, "rt", encoding="utf-8") as f:
        X, labels = _parse_svmlight(f, info["file"], info["n_features"], False)
    if X.shape != (info["n_samples"], info["n_features"]) or \
            not np.isin(labels, (1.0, 2.0)).all():
        raise OSError(f"the bundled file {info['file']} is damaged: got shape {X.shape}; "
                      "reinstall mbcore")
    y = np.where(labels == 2.0, 1, -1).astype(np.int64)
    if encoding == "boolean":
        X = X.astype(np.uint8)
    if as_frame:
        return _as_frame(X, y)
    return X, y


def _as_frame(X, y):
    try:
        import pandas as pd
    except ImportError:
        raise ImportError("load_mushrooms(as_frame=True) needs pandas, which is not installed; "
                          "use as_frame=False for NumPy arrays") from None
    columns = [f"x{j + 1}" for j in range(X.shape[1])]
    return pd.DataFrame(X, columns=columns), pd.Series(y, name="label")


def _bundled(filename):
    """The bundled file as an importlib.resources Traversable, wherever the package lives."""
    return importlib.resources.files(__name__).joinpath("data").joinpath(filename)


def load_svmlight(path, n_features=None, zero_based="auto"):
    """Read a LIBSVM / svmlight text file into dense arrays.

    Each non-blank line is ``label idx:value idx:value ...``.  Anything after ``#`` is a comment;
    blank lines (and lines holding only a comment) are skipped; ``qid:`` pairs are ignored; a line
    with a label and no pairs is an all-zero row.  Files whose name ends in ``.gz`` are
    decompressed.  Indices need not be sorted, but an index may appear only once per line.

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
    name = os.fspath(path)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    opener = gzip.open if name.endswith(".gz") else open
    try:
        with opener(name, "rt", encoding="utf-8") as f:
            return _parse_svmlight(f, name, n_features, zero_based)
    except UnicodeDecodeError as e:
        raise ValueError(f"load_svmlight: {name} is not a UTF-8 text file ({e.reason} at byte "
                         f"{e.start})") from None
    except (EOFError, gzip.BadGzipFile) as e:
        raise OSError(f"load_svmlight: {name} is not a valid gzip file ({e})") from None


def _parse_svmlight(lines, source, n_features, zero_based):
    """Parse svmlight lines into (X, y); ``source`` names the input in error messages."""
    labels, line_of_row, rows, cols, vals = [], [], [], [], []
    for lineno, line in enumerate(lines, 1):
        tokens = line.split("#", 1)[0].split()
        if not tokens:
            continue
        r = len(labels)
        labels.append(_number(tokens[0], source, lineno, "label"))
        line_of_row.append(lineno)
        for tok in tokens[1:]:
            key, sep, value = tok.partition(":")
            if not sep or not key or not value:
                raise ValueError(f"load_svmlight: {source}, line {lineno}: expected idx:value, "
                                 f"got {tok!r}")
            if key == "qid":
                continue
            if not key.isdigit():
                raise ValueError(f"load_svmlight: {source}, line {lineno}: the index in {tok!r} "
                                 "is not a non-negative integer")
            rows.append(r)
            cols.append(int(key))
            vals.append(_number(value, source, lineno, "value"))
    if not labels:
        raise ValueError(f"load_svmlight: {source} holds no data rows")
    cols = _shift_indices(np.asarray(cols, dtype=np.int64), source, zero_based)
    d = _n_columns(cols, source, n_features)
    rows = np.asarray(rows, dtype=np.int64)
    _check_unique(rows, cols, d, line_of_row, source)
    X = np.zeros((len(labels), d), dtype=np.float64)
    X[rows, cols] = np.asarray(vals, dtype=np.float64)
    return X, np.asarray(labels, dtype=np.float64)


def _number(text, source, lineno, what):
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"load_svmlight: {source}, line {lineno}: the {what} {_short(text)} is "
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


def _n_columns(cols, source, n_features):
    needed = int(cols.max()) + 1 if cols.size else 0
    if n_features is None:
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

    Read with :func:`numpy.loadtxt`, so ``.gz`` files are decompressed, blank lines are skipped and
    text after ``#`` is a comment.  Every column except the label column must be numeric; the
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
    X = _numeric(np.delete(raw, k, axis=1), name, [j for j in range(n_cols) if j != k],
                 skip_header)
    labels = raw[:, k]
    try:
        y = labels.astype(np.float64)
    except ValueError:
        y = labels
    return np.ascontiguousarray(X), y


def _read_table(name, delimiter, skip_header):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            raw = np.loadtxt(name, dtype=str, delimiter=delimiter, skiprows=int(skip_header),
                             ndmin=2)
    except ValueError as e:
        raise ValueError(f"load_csv: {name}: {e}") from None
    if raw.shape[0] == 0:
        raise ValueError(f"load_csv: {name} holds no data rows")
    if raw.shape[1] < 2:
        raise ValueError(f"load_csv: {name} has {raw.shape[1]} column per row; at least two are "
                         "needed (features and a label); check the delimiter")
    return np.char.strip(raw)


def _numeric(cells, name, columns, skip_header):
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
                raise ValueError(f"load_csv: {name}: data row {i + 1}, column {columns[j]} "
                                 f"(counting from 0) holds {str(cell)!r}, which is not a number; "
                                 f"only the label column may hold text{hint}") from None
    raise ValueError(f"load_csv: {name}: {error}")
