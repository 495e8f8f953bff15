"""The online protocol for the pure-Python twin (standard library only).

Inputs: X is a sequence of equal-length rows of real numbers (lists, tuples, or anything that
iterates like them, NumPy arrays included), or a CSR matrix given by duck typing (an object with
``data``, ``indices``, ``indptr`` and ``shape``, such as ``scipy.sparse.csr_array``).  y is a
sequence of labels.  The same checks as mbcore raise the same exception types.
"""

import copy
import inspect
import math
import numbers
import os
import sys

from ._one import OneExample, OwnRows

__all__ = ["OnlineLearner", "ManyClasses", "NotFittedError", "check_rows", "check_labels",
           "matrix_rows", "dense_rows", "feature_names", "check_feature_names", "check_dims",
           "ndim_error", "empty_error", "input_type_error",
           "infer_classes", "check_labels_k"]


class NotFittedError(ValueError, AttributeError):
    """Raised when predict or decision_function is called before any data was seen."""


def is_csr(X):
    return all(hasattr(X, a) for a in ("data", "indices", "indptr", "shape")) and \
        getattr(X, "format", "csr") == "csr"


def _tolist(a):
    return a.tolist() if hasattr(a, "tolist") else list(a)


def _num(owner, v):
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, numbers.Real):
        f = float(v)
    elif hasattr(v, "dtype") and getattr(v.dtype, "kind", "") in "biuf":
        f = float(v)
    else:
        raise TypeError(f"{owner}: X must hold real numbers, got a value of type "
                        f"{type(v).__name__} ({v!r}); each argument must be a real number "
                        "(bool, int or float), not a string (even one that spells a number) nor "
                        "another object")
    return f


# The one 2-D input check (mbcore._validation: input_type_error, ndim_error, empty_error,
# check_dims), the same words for every matrix a learner reads: X (rows "n_samples", columns
# "feature"), the advice P of the experts and specialists (rows "n_rounds", columns "expert" or
# "specialist"), the categorical X of the pairs (columns "attribute").

def input_type_error(owner, X, *, name="X", rows="n_samples", unit="feature"):
    got = "None" if X is None else type(X).__name__
    return TypeError(f"{owner}: {name} must be a 2-D array-like ({rows}, n_{unit}s) or a sparse "
                     f"matrix, got {got}")


def ndim_error(owner, ndim, *, name="X", rows="n_samples", unit="feature"):
    return ValueError(f"{owner}: {name} must be 2-D ({rows}, n_{unit}s), got ndim={ndim}. "
                      f"Reshape your data: {name}.reshape(1, -1) for a single row, "
                      f"{name}.reshape(-1, 1) for a single {unit}")


def empty_error(owner, *, name="X"):
    return ValueError(f"{owner}: {name} is empty (0 rows); at least one row is required")


def check_dims(owner, shape, n_features=None, *, name="X", rows="n_samples", unit="feature"):
    """Raise unless ``shape`` is (n, d) with n >= 1, d >= 1 and d == n_features (None: any d)."""
    if len(shape) != 2:
        raise ndim_error(owner, len(shape), name=name, rows=rows, unit=unit)
    n, d = shape
    if n == 0:
        raise empty_error(owner, name=name)
    if d == 0:
        raise ValueError(f"{owner}: {name} has 0 {unit}(s) (shape=({n}, 0)) while a minimum of 1 "
                         "is required.")
    if n_features is not None and d != n_features:
        raise ValueError(f"{owner}: {name} has {d} {unit}s, but {owner} is expecting "
                         f"{n_features} {unit}s as input (the number it was fitted with)")


def feature_count(owner, d, n_features):
    """ValueError unless d == n_features (None: any d)."""
    if n_features is not None and d != n_features:
        check_dims(owner, (1, d), n_features)


def dense_rows(owner, X):
    """A sparse matrix (CSR, or any format with tocsr) as lists of floats, its structure
    checked as for the other learners (check_rows)."""
    rows, d = check_rows(owner, X)
    out = []
    for idx, val in rows:
        r = [0.0] * d
        for j, v in zip(idx, val):
            r[j] = v
        out.append(r)
    return out


def matrix_rows(owner, X, n=None, *, dense=None, **names):
    """Rows of values kept as given (lists; NumPy scalars as Python values), after the one 2-D
    input check (mbcore._advice.advice_matrix and object_rows with check_2d): None and strings
    refused, ``ndim`` other than 2, a list of values (1-D), a row that is not a sequence, rows
    of different lengths, no rows, no columns, and a width other than ``n``.  A sparse matrix
    is read through ``dense(owner, X)``, which returns its rows."""
    name = names.get("name", "X")
    if X is None or isinstance(X, (str, bytes)):
        raise input_type_error(owner, X, **names)
    if dense is not None and (is_csr(X) or hasattr(X, "tocsr")):
        X = dense(owner, X)
    elif hasattr(X, "to_numpy") and hasattr(X, "columns"):
        X = X.to_numpy()          # a DataFrame: its rows (iterating it gives the columns)
    ndim = getattr(X, "ndim", None)
    if ndim is not None and ndim != 2:
        raise ndim_error(owner, ndim, **names)
    try:
        raw = list(X)
    except TypeError:
        raise input_type_error(owner, X, **names) from None
    if not raw:
        if ndim is None:          # [] is read as an empty 1-D array
            raise ndim_error(owner, 1, **names)
        raise empty_error(owner, name=name)
    if not any(_is_row(r) for r in raw):      # a list of values is 1-D
        raise ndim_error(owner, 1, **names)
    rows = []
    for r in raw:
        if not _is_row(r):
            raise ValueError(f"{owner}: {name} could not be read as a 2-D array (a row that is "
                             "not a sequence)")
        rows.append([label_key(v) for v in r])
    d = len(rows[0])
    for r in rows:
        if len(r) != d:
            raise ValueError(f"{owner}: {name} could not be read as a 2-D array (rows of "
                             f"different lengths: {len(r)} and {d})")
    check_dims(owner, (len(rows), d), n, **names)
    return rows


def _is_seq(v):
    """A row or a value that NumPy would read as one more dimension."""
    if isinstance(v, (list, tuple)):
        return True
    ndim = getattr(v, "ndim", None)
    return isinstance(ndim, int) and ndim >= 1 and hasattr(v, "__len__")


def _is_row(r):
    return hasattr(r, "__len__") and not isinstance(r, (str, bytes))


def _nesting(X):
    """The number of dimensions NumPy would give X (following the first elements)."""
    k = 0
    while _is_seq(X):
        k += 1
        if len(X) == 0:
            break
        X = X[0]
    return k


_STR_WIDTH = ((bool, 5), (int, 21), (float, 32))  # NumPy's width for a number among strings


def _dtype_error(owner, raw, n_features, boolean):
    """For rows that hold a value that is not a real number: raise mbcore's TypeError when
    NumPy would read them as an array of strings (a list of strings, or of strings and
    numbers: dtype '<U{width}' or '|S{width}'), or, for the Boolean learners, of objects.
    Returns (the caller re-raises) when the rows are ragged (NumPy cannot read them), or
    hold other values (NumPy reads objects: mbcore names the first value that is not real)."""
    d = len(raw[0])
    if any(len(r) != d for r in raw):
        return
    width, kind = 0, None
    for r in raw:
        for v in r:
            if isinstance(v, (str, bytes)):
                width = max(width, len(v))
                kind = "U" if isinstance(v, str) or kind == "U" else "S"
                continue
            for t, w in _STR_WIDTH:
                if type(v) is t and (t is not int or -2 ** 63 <= v < 2 ** 63):
                    width = max(width, w)
                    break
            else:
                kind = "O"
        if kind == "O":
            break
    if kind == "O" and not boolean:
        return
    feature_count(owner, d, n_features)
    dtype = "object" if kind == "O" else (f"<U{width}" if kind == "U" else f"|S{width}")
    if boolean:
        raise TypeError(f"{owner}: X must hold 0/1 values (bool, int or float), got dtype "
                        f"{dtype}")
    raise TypeError(f"{owner}: X must hold real numbers (bool, int or float), got dtype "
                    f"{dtype} ({kind!r})")


def check_rows(owner, X, n_features=None, boolean=False):
    """Validate X; return (rows, n_features) where each row is a list or an (idx, val) tuple.

    The checks and messages are mbcore's (``mbcore._validation.check_X``; the shape messages
    are the one 2-D input check's, whatever the learner; ``boolean=True`` words the value
    errors as ``mbcore.boolean`` does, for 0/1 values), in the same order: shape, then the
    feature count, then the values.
    """
    if X is None:
        raise input_type_error(owner, X)
    if hasattr(X, "columns") and hasattr(X, "to_numpy"):
        X = X.to_numpy()          # a DataFrame: its rows (iterating it gives the columns)
    if not is_csr(X) and hasattr(X, "tocsr") and hasattr(X, "shape"):
        X = X.tocsr()  # another sparse format (COO, CSC, LIL, DOK, ...)
    if is_csr(X):
        n, d = (int(s) for s in X.shape)
        check_dims(owner, (n, d), n_features)
        indptr = [int(v) for v in _tolist(X.indptr)]
        indices = [int(v) for v in _tolist(X.indices)]
        data = [_num(owner, v) for v in _tolist(X.data)]
        if len(indptr) != n + 1 or indptr[0] != 0 or indptr[-1] != len(indices) \
                or len(indices) != len(data) or any(indptr[i] > indptr[i + 1] for i in range(n)):
            raise ValueError(f"{owner}: X is not a valid CSR matrix (indptr/indices/data disagree)")
        rows = []
        for i in range(n):
            a, b = indptr[i], indptr[i + 1]
            idx = indices[a:b]
            val = data[a:b]
            for k, j in enumerate(idx):
                if j < 0 or j >= d:
                    raise ValueError(f"{owner}: X has a column index {j} out of range "
                                     f"[0, {d}) in row {i}")
                if k and j <= idx[k - 1]:
                    raise ValueError(f"{owner}: X has unsorted or duplicate column indices in row "
                                     f"{i}; call X.sort_indices() and X.sum_duplicates() first")
            rows.append((idx, val))
    else:
        if isinstance(X, (str, bytes)):
            raise input_type_error(owner, X)
        if isinstance(X, numbers.Real):  # NumPy reads a lone number as a 0-D array
            raise ndim_error(owner, 0)
        ndim = getattr(X, "ndim", None)
        if ndim is not None and ndim != 2:
            raise ndim_error(owner, ndim)
        try:
            raw = list(X)
        except TypeError:
            raise input_type_error(owner, X) from None
        if not raw:
            if ndim is None:  # [] is read as an empty 1-D array
                raise ndim_error(owner, 1)
            raise empty_error(owner)
        if not any(_is_row(r) for r in raw):  # a list of numbers (or of strings) is 1-D
            raise ndim_error(owner, 1)
        kind = getattr(getattr(X, "dtype", None), "kind", None)
        if isinstance(kind, str) and kind not in "biufO":
            # An array of strings, complex numbers, dates, ...: shape first, then the dtype.
            d = len(raw[0])
            if d == 0:
                check_dims(owner, (len(raw), 0))
            feature_count(owner, d, n_features)
            if boolean:
                raise TypeError(f"{owner}: X must hold 0/1 values (bool, int or float), got "
                                f"dtype {X.dtype}")
            raise TypeError(f"{owner}: X must hold real numbers (bool, int or float), got dtype "
                            f"{X.dtype} ({kind!r})")
        rows = []
        d = None
        for i, r in enumerate(raw):
            if not _is_row(r):
                if isinstance(r, (str, bytes)):
                    raise TypeError(f"{owner}: X must hold real numbers, got a value of type "
                                    f"{type(r).__name__} ({r!r})")
                raise ndim_error(owner, 1)
            if any(_is_seq(v) for v in r):  # a row of rows: 3-D (or more)
                raise ndim_error(owner, _nesting(raw))
            try:
                row = [_num(owner, v) for v in r]
            except TypeError:
                _dtype_error(owner, raw, n_features, boolean)
                raise
            if d is None:
                d = len(row)
            elif len(row) != d:
                raise ValueError(f"{owner}: X rows have different lengths ({d} and {len(row)})")
            rows.append(row)
        if d == 0:
            check_dims(owner, (len(rows), 0))
    feature_count(owner, d, n_features)
    return rows, d


def check_n_jobs(owner, value):
    """The parameter n_jobs of mbcore's learners: None, -1 or a positive int (the twin accepts
    it for the same names and checks it with the same message; it always runs sequentially,
    which is what mbcore's exact speculative passes reproduce for any number of threads)."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or \
            not (value == -1 or value >= 1):
        raise ValueError(f"{owner}: parameter n_jobs must be None, -1 (every core) or a "
                         f"positive integer, got {value!r}")


def check_finite(owner, rows):
    for i, r in enumerate(rows):
        vals = r[1] if isinstance(r, tuple) else r
        for v in vals:
            if not math.isfinite(v):
                raise ValueError(f"{owner}: X contains NaN or infinity in row {i}")


def label_key(v):
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    return v


def _label_values(labels):
    """The labels as NumPy reads them (``np.asarray(labels).ravel()``): (dtype kind, values,
    the labels themselves).

    An array keeps its dtype; a lone string is one label; a list of bools is Boolean ("b"), of
    ints and bools integer ("i", bools read as 0/1), of numbers with a float among them float
    ("f", every value a float); strings are "U", bytes "S", anything else "O" (values as they
    are).  The values are what ``tolist()`` gives (Python scalars).
    """
    if isinstance(labels, (str, bytes)):
        return ("U" if isinstance(labels, str) else "S"), [labels], [labels]
    kind = getattr(getattr(labels, "dtype", None), "kind", None)
    if isinstance(kind, str) and hasattr(labels, "ndim"):
        flat = labels.ravel() if labels.ndim != 1 and hasattr(labels, "ravel") else labels
        raw = [label_key(v) for v in flat]
        # tolist() gives Python strings (numpy.str_ is a str, and keeps its own repr)
        return kind, [str(v) if type(v) is not str and isinstance(v, str) else
                      bytes(v) if type(v) is not bytes and isinstance(v, bytes) else v
                      for v in raw], raw
    vals = [label_key(v) for v in labels]
    if not vals:
        return "f", vals, vals
    if all(isinstance(v, bool) for v in vals):
        return "b", vals, vals
    if all(isinstance(v, int) for v in vals):
        return "i", [int(v) for v in vals], vals
    if all(isinstance(v, (int, float)) for v in vals):
        try:
            return "f", [float(v) for v in vals], vals
        except OverflowError:  # an int too large for a float64: NumPy keeps objects
            return "O", vals, vals
    if all(isinstance(v, str) for v in vals):
        return "U", vals, vals
    if all(isinstance(v, bytes) for v in vals):
        return "S", vals, vals
    return "O", vals, vals


def _too_many_labels(owner, kind, uniq):
    """The message for more than two labels (at most ten of them shown)."""
    n = len(uniq)
    shown = repr(uniq[:10]) + (f" and {n - 10} more" if n > 10 else "")
    msg = (f"{owner}: y has more than two labels ({n}: {shown}). Only binary classification is "
           "supported: these learners are binary")
    if kind == "f" and any(math.isfinite(v) and v != math.floor(v) for v in uniq):
        msg += ("; y looks continuous (real values that are not integers): a regression "
                "target?")
    return msg


def infer_classes(owner, labels, classes=None, *, max_classes=2, real_labels=False):
    """The classes, sorted, from an explicit list or from the labels (mbcore's one path):
    ``max_classes=2`` for the binary learners (the second class is the positive one), ``None``
    for two or more.

    ``labels`` is y as given (a sequence or an array; a lone string is one label, as NumPy reads
    it).  The messages show the labels as mbcore does (as NumPy reads them: ``[1, 2.5]`` is
    ``[1.0, 2.5]``); the classes returned are the labels themselves.  One label alone names its
    pair: -1 -> (-1, 1), 0 -> (0, 1), a bool -> (False, True).  ``real_labels``: real labels
    that are not integers are classes too (the expert pools), not a regression target.
    """
    if classes is not None:
        if isinstance(classes, (str, bytes)):
            raise ValueError(f"{owner}: classes must be a list of labels, got {classes!r}")
        try:
            cl = sorted({label_key(c) for c in classes})
        except TypeError:
            raise TypeError(f"{owner}: the classes cannot be put in order (labels of different "
                            "kinds); use labels of one kind") from None
        if max_classes == 2 and len(cl) != 2:
            raise ValueError(f"{owner}: classes must hold exactly two distinct labels, got {cl!r}")
        if len(cl) < 2:
            raise ValueError(f"{owner}: classes must hold at least two distinct labels, got "
                             f"{cl!r}")
        return cl
    kind, vals, raw = _label_values(labels)
    if any(isinstance(v, float) and v != v for v in vals):
        raise ValueError(f"{owner}: y contains NaN")
    if any(isinstance(v, complex) for v in vals):
        raise TypeError(f"{owner}: y must hold labels (numbers, strings or bools), got complex "
                        "values")
    try:
        uniq = sorted(set(raw))
    except TypeError:
        raise TypeError(f"{owner}: the labels cannot be put in order (labels of different "
                        f"kinds, e.g. numbers and strings, in {vals[:10]!r}); use labels of one "
                        "kind") from None
    if len(uniq) > 2:
        if max_classes == 2:
            raise ValueError(_too_many_labels(owner, kind, sorted(set(vals))))
        if not real_labels and kind == "f" and any(math.isfinite(v) and v != math.floor(v)
                                                   for v in uniq):
            shown = repr(sorted(set(vals))[:10]) + (f" and {len(uniq) - 10} more"
                                                    if len(uniq) > 10 else "")
            raise ValueError(f"{owner}: y looks continuous (real values that are not integers: "
                             f"{len(uniq)} labels, {shown}): a regression target? Give class "
                             "labels (integers or strings), or classes= to use these values")
    if len(uniq) >= 2:
        return uniq
    v = uniq[0] if uniq else None
    if isinstance(v, bool):
        return [False, True]
    if isinstance(v, numbers.Real) and v == -1:
        return [-1, 1]
    if isinstance(v, numbers.Real) and v == 0:
        return [0, 1]
    raise ValueError(f"{owner}: cannot tell the two classes from y={sorted(set(vals))!r} alone "
                     "(one class); pass classes=[-1, 1], classes=[0, 1] or the two labels to the "
                     "first partial_fit")


def _label_list(owner, y, n):
    """y as a list of n labels (no NaN), with the messages of mbcore's encode_y."""
    if y is None:
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got None")
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got a string")
    ndim = getattr(y, "ndim", 1)
    if ndim != 1:
        raise ValueError(f"{owner}: y must be 1-D, got ndim={ndim}")
    lab = [label_key(v) for v in y]
    if len(lab) != n:
        raise ValueError(f"{owner}: X has {n} rows but y has {len(lab)} labels")
    for v in lab:
        if isinstance(v, float) and math.isnan(v):
            raise ValueError(f"{owner}: y contains NaN")
    return lab


def check_labels(owner, y, n, classes):
    """Map labels to +1 (classes[1]) / -1 (classes[0])."""
    lab = _label_list(owner, y, n)
    neg, pos = classes
    out = []
    for v in lab:
        if v == pos:
            out.append(1)
        elif v == neg:
            out.append(-1)
        else:
            raise ValueError(f"{owner}: y has the label {v!r}, outside the fitted classes "
                             f"{[neg, pos]!r}")
    return out


def check_labels_k(owner, y, n, classes):
    """Map labels to class indices 0..K-1 (positions in the sorted classes); the checks and
    messages of check_labels."""
    lab = _label_list(owner, y, n)
    index = {c: k for k, c in enumerate(classes)}
    out = []
    for v in lab:
        try:
            k = index.get(v)
        except TypeError:             # unhashable (a list, a dict): no label
            k = None
        if k is None:
            raise ValueError(f"{owner}: y has the label {v!r}, outside the fitted classes "
                             f"{list(classes)!r}")
        out.append(k)
    return out



class ManyClasses:
    """The labels of the learners that take two classes or more (the linear, kernel and
    Winnow twins): two classes keep the binary codes (+-1), K >= 3 classes use class indices;
    ``_init_state`` sets ``_K``, the number of classes.  Mixed in before OnlineLearner."""

    def _multi(self):
        """True when fitted with three classes or more."""
        return vars(self).get("_K", 2) > 2

    def _infer_classes(self, y, classes):
        return infer_classes(self._owner, y, classes, max_classes=None)

    def _check_labels(self, y, n, classes):
        if len(classes) > 2:
            return check_labels_k(self._owner, y, n, classes)
        return check_labels(self._owner, y, n, classes)


class keep_on_failure:
    """``with keep_on_failure(learner):`` puts the learner's attributes back as they were if
    the block raises (KeyboardInterrupt included).  For blocks that start with a reset: the
    reset replaces every state object, so keeping the old objects is enough."""

    def __init__(self, learner):
        self.learner = learner
        self.saved = dict(vars(learner))

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is not None:
            d = vars(self.learner)
            d.clear()
            d.update(self.saved)
        return False

def feature_names(owner, X):
    """The column names of a DataFrame-like X as a list when they are all strings, else None
    (mbcore._validation.feature_names: names of several types, strings among them, refused)."""
    cols = getattr(X, "columns", None)
    if cols is None or not hasattr(X, "to_numpy"):
        return None
    try:
        names = list(cols)
    except TypeError:
        return None
    kinds = sorted({type(v).__qualname__ for v in names})
    if len(kinds) > 1 and "str" in kinds:
        raise TypeError(f"{owner}: feature names are only supported if all input features have "
                        f"string names, but X has {kinds} as feature name / column name types; "
                        "convert them all to strings (X.columns = X.columns.astype(str)) or "
                        "to a non-string type")
    return names if kinds == ["str"] else None


def _listed(names):
    return "".join(f"- {n}\n" for n in names[:5]) + ("- ...\n" if len(names) > 5 else "")


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_user(message, category=UserWarning):
    """warnings.warn attributed to the first caller outside mbref (as mbcore's)."""
    import warnings
    level, frame = 1, sys._getframe(0)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


def check_feature_names(owner, fitted, X):
    """A later call's X against the fitted names (mbcore._validation.check_feature_names)."""
    if isinstance(X, OwnRows):          # (learn_one's and predict_one's own row)
        return
    names = feature_names(owner, X)
    if names is None and fitted is None:
        return
    if fitted is None:
        warn_user(f"{owner}: X has feature names, but {owner} was fitted without feature "
                  "names")
        return
    if names is None:
        warn_user(f"{owner}: X does not have valid feature names, but {owner} was fitted "
                  "with feature names")
        return
    if list(names) == list(fitted):
        return
    unexpected = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))
    msg = f"{owner}: The feature names should match those that were passed during fit.\n"
    if unexpected:
        msg += "Feature names unseen at fit time:\n" + _listed(unexpected)
    if missing:
        msg += "Feature names seen at fit time, yet now missing:\n" + _listed(missing)
    if not unexpected and not missing:
        msg += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(msg)


def _names_checked(f):
    """A reading method whose X is checked for its column names first (as mbcore's
    OnlineLearner.predict and decision_function do)."""
    def read(self, X, *args, **kwargs):
        if self._is_fitted():
            check_feature_names(self._owner, self.__dict__.get("_feature_names"), X)
        return f(self, X, *args, **kwargs)
    read.__name__, read.__doc__, read._names_checked = f.__name__, f.__doc__, True
    return read


class OnlineLearner(OneExample):
    """Base of the twins: parameters, label handling, the online protocol and epochs, and one
    example at a time on dict features (``learn_one``/``predict_one``: ``mbref._one``)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ("predict", "decision_function"):
            f = cls.__dict__.get(name)
            if f is not None and not getattr(f, "_names_checked", False):
                setattr(cls, name, _names_checked(f))

    def __init__(self):
        pass

    # -- parameters ------------------------------------------------------------------------
    @classmethod
    def _param_names(cls):
        sig = inspect.signature(cls.__init__)
        return [p for p in sig.parameters if p != "self"]

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in self._param_names()}

    def set_params(self, **params):
        names = self._param_names()
        for k, v in params.items():
            if k not in names:
                raise ValueError(f"{type(self).__name__}: invalid parameter {k!r}; valid "
                                 f"parameters are {names}")
            setattr(self, k, v)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    # -- protocol --------------------------------------------------------------------------
    _owner = property(lambda self: type(self).__name__, doc="The class name errors give.")

    def _is_fitted(self):
        """A learner is fitted once it knows its classes."""
        return getattr(self, "classes_", None) is not None

    def _check_fitted(self, what):
        """NotFittedError (naming ``what``) unless a first partial_fit or fit has run."""
        if self._is_fitted():
            return
        raise NotFittedError(f"{self._owner}: call partial_fit or fit before {what}")

    def _count(i, doc):  # noqa: N805 - a property factory used in the class body
        def get(self):
            if "_counts" not in vars(self):
                raise NotFittedError(f"{type(self).__name__}: call partial_fit or fit first")
            return self._counts[i]

        def put(self, v):
            self._counts[i] = v
        return property(get, put, doc=doc)

    n_seen_ = _count(0, "Examples seen so far (over all calls and epochs).")
    mistakes_ = _count(1, "Wrong online predictions so far.")
    updates_ = _count(2, "State changes so far.")
    del _count

    def _reset(self):
        """Forget everything but the constructor parameters."""
        keep = set(self._param_names())
        for k in list(vars(self)):
            if k not in keep:
                delattr(self, k)
        self.classes_ = None

    _boolean_x = False  # the Boolean learners word the value errors for 0/1 values

    def _expected_features(self, first):
        """The number of features X must have (None: any, on the first call)."""
        return None if first else self.n_features_in_

    def _prepare(self, X, y, classes, check_values=False):
        if not hasattr(self, "classes_"):
            self.classes_ = None
        self._validate_params()
        first = self.classes_ is None
        if first:
            names = feature_names(self._owner, X)
        else:
            check_feature_names(self._owner, self.__dict__.get("_feature_names"), X)
        rows, d = check_rows(self._owner, X, self._expected_features(first),
                             boolean=self._boolean_x)
        if check_values:
            check_finite(self._owner, rows)
        if first:
            if y is None:
                raise TypeError(f"{self._owner}: y must be a 1-D array-like of labels, got None")
            cl = self._infer_classes(y, classes)
            yy = self._check_labels(y, len(rows), cl)
            self.classes_ = cl          # before _init_state: the state may depend on K
            self._init_state(d)
            self.n_features_in_ = d
            if names is not None:
                self._feature_names = names
            self._counts = [0, 0, 0]
        else:
            if classes is not None:
                cl = self._infer_classes((), classes)
                if cl != list(self.classes_):
                    raise ValueError(f"{self._owner}: classes={cl!r} differs from the fitted "
                                     f"classes {list(self.classes_)!r} (the labels are fixed "
                                     "by the first call: fit a new learner for others)")
            yy = self._check_labels(y, len(rows), self.classes_)
        return rows, yy

    def _infer_classes(self, y, classes):
        """The classes of the first call: two (the learners that take K classes override)."""
        return infer_classes(self._owner, y, classes)

    def _check_labels(self, y, n, classes):
        """The labels as the steps read them: +1 / -1 (K-class learners: class indices)."""
        return check_labels(self._owner, y, n, classes)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Run the online protocol over the rows of X in order; returns self."""
        self._learn(X, y, classes, sample_weight)
        return self

    # sample weights: the additive learners only (mbcore.base.OnlineLearner, same reasons)
    _WEIGHTED = False
    _NO_WEIGHTS = "its update rule has no weighted form in the notes"

    def _refuse_weights(self, sample_weight):
        if sample_weight is not None and not self._WEIGHTED:
            raise TypeError(f"{self._owner}: sample_weight is not supported: "
                            f"{self._NO_WEIGHTS}; pass sample_weight=None")

    def _row_weights(self, sample_weight, yy, n, fitting):
        """The rows' weights (a list of floats), or None for none."""
        return None

    def _learn(self, X, y, classes, sample_weight=None):
        """One pass, all or nothing: a failed first call leaves the learner unfitted."""
        self._refuse_weights(sample_weight)
        first = getattr(self, "classes_", None) is None
        try:
            rows, yy = self._prepare(X, y, classes)
            sw = self._row_weights(sample_weight, yy, len(rows), False)
            return self._run(rows, yy, sw)
        except BaseException:
            if first:
                self._reset()
            raise

    def _weight(self, i):
        """The sample weight of row i of the current pass (1.0 without weights)."""
        sw = self._sw
        return 1.0 if sw is None else sw[i]

    def _run(self, rows, yy, sw=None):
        """Predict then update on each row; returns the predictions (+-1, or class indices for
        the K-class learners with K >= 3) and the update flags.

        All or nothing: if a row fails (non-finite value or overflow), the learner is left as it
        was before the call and ValueError names the row.
        """
        self._last_labels = yy
        self._sw = sw
        saved = copy.deepcopy(self._state_dict())
        counts = (self.n_seen_, self.mistakes_, self.updates_)
        preds, upd = [], []
        try:
            for i, (x, yi) in enumerate(zip(rows, yy)):
                self.n_seen_ += 1
                p, u = self._step(x, yi, i)
                preds.append(p)
                upd.append(u)
                if p != yi:
                    self.mistakes_ += 1
                if u:
                    self.updates_ += 1
        except BaseException:
            self._load_state_dict(saved)
            self.n_seen_, self.mistakes_, self.updates_ = counts
            raise
        return preds, upd

    def _row_error(self, i, what="NaN, infinity or an overflow"):
        return ValueError(f"{self._owner}: {what} in row {i} (X contains NaN or infinity, or the "
                          "weights overflowed); the learner was left as before the call")

    def _scores(self, X):
        self._check_fitted("predict")
        self._validate_params()
        rows, _ = check_rows(self._owner, X, self.n_features_in_, boolean=self._boolean_x)
        out = []
        for i, x in enumerate(rows):
            s = self._score(x)
            if not math.isfinite(s):
                raise ValueError(f"{self._owner}: NaN or infinity in row {i} (X contains NaN or "
                                 "infinity)")
            out.append(s)
        return out

    def decision_function(self, X):
        """The real-valued score of each row (no state change)."""
        return self._scores(X)

    def predict(self, X):
        """The predicted label of each row (no state change)."""
        neg, pos = self.classes_ if self._is_fitted() else (None, None)
        return [pos if self._sign(s) > 0 else neg for s in self._scores(X)]

    def _sign(self, s):
        return 1 if (s > 0.0 or (s == 0.0 and self.tie == "positive")) else -1

    def fit(self, X, y, classes=None, sample_weight=None):
        """Reset, then cycle through the data until a pass with no update or max_epochs.
        A call that raises leaves the learner as it was before it."""
        self._refuse_weights(sample_weight)
        with keep_on_failure(self):
            self._reset()
            rows, yy = self._prepare(X, y, classes)
            sw = self._row_weights(sample_weight, yy, len(rows), True)
            self._epochs(rows, yy, sw)
        return self

    def _epochs(self, rows, yy, sw=None):
        self.converged_ = False
        self.cycled_ = False
        self.epoch_mistakes_ = []
        self.epoch_updates_ = []
        seen = set()                     # the states met after each epoch (when keyed)
        while len(self.epoch_updates_) < self.max_epochs:
            before = (self.mistakes_, self.updates_)
            self._run(rows, yy, sw)
            self.epoch_mistakes_.append(self.mistakes_ - before[0])
            self.epoch_updates_.append(self.updates_ - before[1])
            self.converged_ = self.epoch_updates_[-1] == 0      # a clean epoch: done
            key = None if self.converged_ else self._cycle_key()
            self.cycled_ = key is not None and key in seen       # a state met before: a cycle
            if self.converged_ or self.cycled_:
                break
            if key is not None:
                seen.add(key)
        self.n_iter_ = len(self.epoch_updates_)

    def _cycle_key(self):
        return None

    # -- hooks for subclasses -------------------------------------------------------------
    def _validate_params(self):
        pass

    # Subclasses define: _init_state(d), _state_dict(), _load_state_dict(s), _step(x, y, i)
    # (returns the prediction, +-1 or a class index, and whether the state changed) and
    # _score(x).


# -- sample and class weights (twin of mbcore._validation's) --------------------------------------

def _weight_error(owner, what, got):
    return ValueError(f"{owner}: parameter sample_weight must be {what}, got {got}")


def _is_weight(v):
    return isinstance(v, numbers.Real) and not isinstance(v, (str, bytes))


def check_sample_weight(owner, sample_weight, n):
    """``sample_weight`` as a new list of n finite floats >= 0 (a real number: n copies)."""
    if _is_weight(sample_weight) and not isinstance(sample_weight, bool) and \
            type(sample_weight).__name__ != "bool_":
        sample_weight = [sample_weight] * n
    if isinstance(sample_weight, (str, bytes)):
        raise _weight_error(owner, "an array-like of real numbers", repr(sample_weight))
    shape = getattr(sample_weight, "shape", None)
    items = list(sample_weight) if shape is None or len(shape) > 0 else None
    if shape is None:
        nested = [hasattr(v, "__len__") and not isinstance(v, (str, bytes)) for v in items]
        if any(nested) and not (all(nested) and len({len(v) for v in items}) == 1):
            raise _weight_error(owner, "1-D (one weight per row)", "a ragged sequence")
        shape = (len(items), len(items[0])) if items and all(nested) else (len(items),)
    shape = tuple(int(s) for s in shape)
    if len(shape) != 1:
        raise _weight_error(owner, "1-D (one weight per row)", f"an array of shape {shape}")
    if shape[0] != n:
        raise _weight_error(owner, f"of length n_samples = {n}", f"{shape[0]} values")
    for i, v in enumerate(items):
        if not _is_weight(v) and type(v).__name__ != "bool_":
            raise _weight_error(owner, "an array-like of real numbers", f"{v!r} at row {i}")
    a = [float(v) for v in items]
    for i, v in enumerate(a):
        if not math.isfinite(v):
            raise _weight_error(owner, "finite", f"{v!r} at row {i}")
    for i, v in enumerate(a):
        if v < 0.0:
            raise _weight_error(owner, "non-negative", f"{v!r} at row {i}")
    return a


def check_class_weight(owner, name, value):
    """The domain of the parameter class_weight."""
    if value is None or (isinstance(value, str) and value == "balanced"):
        return value
    if type(value) is dict and all(
            isinstance(w, numbers.Real) and not isinstance(w, bool) and
            type(w).__name__ != "bool_" and math.isfinite(float(w)) and float(w) >= 0.0
            for w in value.values()):
        return value
    raise ValueError(f'{owner}: parameter {name} must be None, "balanced" or a dict '
                     f'{{label: finite weight >= 0}}, got {value!r}')


def class_weights(owner, class_weight, classes, idx, fitting):
    """The weight of each class under class_weight, for rows of class indices idx."""
    K = len(classes)
    labels = list(classes)
    if isinstance(class_weight, str):
        if not fitting:
            raise ValueError(
                f"{owner}: class_weight 'balanced' is not supported for partial_fit (one "
                "batch's class frequencies are not the stream's); compute the weights once "
                "from a large enough sample of the labels, n_samples / (n_classes * "
                "np.bincount(y)) (scikit-learn's compute_class_weight('balanced', "
                "classes=classes, y=y)), and pass them as a dict")
        counts = [0] * K
        for k in idx:
            counts[k] += 1
        present = sum(1 for c in counts if c > 0)
        return [len(idx) / (present * float(c)) if c > 0 else 1.0 for c in counts]
    extra = [k for k in class_weight if k not in labels]
    if extra:
        raise ValueError(f"{owner}: class_weight has labels that are not among the classes "
                         f"{labels!r}: {extra!r}")
    return [float(class_weight.get(c, 1.0)) for c in labels]


def row_weights(learner, sample_weight, yy, n, fitting):
    """sample_weight times the class weight of each row (None when both are None)."""
    owner, cw = learner._owner, learner.class_weight
    given = None if sample_weight is None else check_sample_weight(owner, sample_weight, n)
    if cw is None:
        sw = given
    else:
        binary = len(learner.classes_) <= 2
        cls = [(1 if v > 0 else 0) if binary else int(v) for v in yy]   # each row's class
        per_class = class_weights(owner, cw, learner.classes_, cls, fitting)
        sw = [per_class[k] * (1.0 if given is None else given[i]) for i, k in enumerate(cls)]
    if sw is None:
        return None
    if fitting and n and all(v == 0.0 for v in sw):
        raise ValueError(f"{owner}: parameter sample_weight must give fit at least one non-zero "
                         "weight (times class_weight), got every row's weight zero")
    return sw
