"""What the experts and the specialists read: a matrix of advice (rounds x advisors, each entry
a predicted label) and labels, each value kept as it is given.

Shared by :mod:`mbcore.experts` (Weighted Majority) and :mod:`mbcore.specialists` (Blum's
specialists): NumPy's own conversions would silently make 1 and "1" the same label, so lists
holding strings or other objects are read value by value, and a NaN prediction is refused
where it would become a label.
"""

import numbers

import numpy as np

from ._validation import (check_2d, check_labels, encode_codes, infer_classes, input_type_error,
                          is_sparse, ndim_error, sparse_to_dense)

__all__ = ["advice_classes", "advice_matrix", "object_rows", "exact_labels", "all_labels",
           "is_nan", "check_no_nan", "encode_labels_multi"]


def advice_classes(owner, y, classes=None):
    """The classes of the expert pools and the specialists: the one path of every learner
    (mbcore._validation.infer_classes), two or more, any labels the experts may predict."""
    return infer_classes(owner, y, classes, max_classes=None, real_labels=True)


def advice_matrix(owner, P, n, who):
    """The advice matrix P (rounds x experts) after the one 2-D input check
    (mbcore._validation.check_2d); ``who`` names a column ("expert", "specialist")."""
    names = dict(name="P", rows="n_rounds", unit=who)
    if P is None or isinstance(P, (str, bytes)):
        raise input_type_error(owner, P, **names)
    if is_sparse(P):
        P = sparse_to_dense(owner, P)
    A = _as_matrix(owner, P, **names)
    check_2d(owner, A, n, **names)
    return A


def object_rows(owner, X, **names):
    """A list of rows as a 2-D object array, each value kept as it is (np.asarray would turn
    1 and "1" into the same string).  The shape messages are check_2d's (``names`` as there)."""
    name = names.get("name", "X")
    try:
        raw = list(X)
    except TypeError:
        raise input_type_error(owner, X, **names) from None
    if raw and not any(_is_row(r) for r in raw):      # a list of values is 1-D
        raise ndim_error(owner, 1, **names)
    rows = []
    for r in raw:
        if not _is_row(r):
            raise ValueError(f"{owner}: {name} could not be read as a 2-D array (a row that is "
                             "not a sequence)")
        rows.append(list(r))
    d = len(rows[0]) if rows else 0
    for r in rows:
        if len(r) != d:
            raise ValueError(f"{owner}: {name} could not be read as a 2-D array (rows of "
                             f"different lengths: {len(r)} and {d})")
    A = np.empty((len(rows), d), dtype=object)
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            A[i, j] = v.item() if isinstance(v, np.generic) else v
    return A


def _is_row(r):
    return hasattr(r, "__len__") and not isinstance(r, (str, bytes))


def _as_matrix(owner, P, **names):
    """A 2-D array-like of labels as an array: lists of numbers as NumPy stores them, lists
    holding strings or other objects value by value (np.asarray would make 1 and "1" equal)."""
    if isinstance(P, np.ndarray):
        return P
    try:
        A = np.asarray(P)
    except ValueError:
        A = None
    if A is not None and A.dtype.kind not in "USO":
        return A
    return object_rows(owner, P, **names)


def _one_kind(values):
    """Python values as a 1-D array without silent coercion: labels of one kind as NumPy would
    store them, mixed kinds (1 and "1") as objects."""
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    kinds = {str if isinstance(v, str) else bytes if isinstance(v, bytes) else
             bool if isinstance(v, bool) else numbers.Real if isinstance(v, numbers.Real)
             else object for v in values}
    if len(kinds) <= 1 and object not in kinds:
        return np.array(values)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def exact_labels(owner, y):
    """y as a 1-D array without silent coercion (see _one_kind); a TypeError naming the
    learner when y is no sequence at all."""
    if isinstance(y, np.ndarray):
        return y
    if y is None or isinstance(y, (str, bytes)) or not hasattr(y, "__iter__"):
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got "
                        f"{type(y).__name__}")
    return _one_kind(y)


def all_labels(owner, A, y):
    """Every label in the advice and in y, as one 1-D array (for inferring the classes)."""
    ya = exact_labels(owner, y).ravel()
    if A.dtype == ya.dtype or (A.dtype.kind in "biuf" and ya.dtype.kind in "biuf"):
        return np.concatenate([A.ravel(), ya])
    return _one_kind(A.ravel().tolist() + ya.tolist())


def is_nan(v):
    return isinstance(v, (float, np.floating)) and v != v


def check_no_nan(owner, A, who, awake=None):
    """ValueError naming the first NaN prediction (its column and round; only the awake ones
    when a mask is given): on a first call the labels are inferred from the advice, and NaN is
    no label."""
    if A.dtype.kind == "f":
        bad = np.isnan(A)
    elif A.dtype.kind == "O":
        bad = np.frompyfunc(is_nan, 1, 1)(A).astype(bool) if A.size else np.zeros(A.shape, bool)
    else:
        return
    if awake is not None:
        bad &= awake
    if bad.any():
        t, i = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"{owner}: the prediction of {who} {i} in round {t} is NaN")


def encode_labels_multi(owner, y, n, classes):
    """The labels y of n rounds as class indices (positions in the sorted ``classes``), each
    value kept as it is given (1 and "1" are two labels); a TypeError or ValueError naming the
    learner for a y that is missing, not 1-D or not n long, or a label outside the classes."""
    ya = check_labels(owner, y, n, nan=False, rounds=True)    # (NaN: encode_codes names it)
    if not isinstance(y, np.ndarray):
        ya = exact_labels(owner, y)
    return encode_codes(owner, ya, classes, lambda b: f"y[{b[0]}]")
