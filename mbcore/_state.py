"""State schemas: what each learner's persistent state holds, and the checks a loaded state
must pass before any kernel sees it.

Each learner family declares its own state beside the code that creates it (``_init_state``):

* ``_STATE``: a dict, attribute name -> checker.  A checker takes the loaded value and returns
  None when its type is right, or a phrase saying what is wrong ("is a float64 array of 2
  dimension(s), not int64 of 1").  ``COMMON`` holds what every fitted learner has.
* ``_DERIVED``: attributes rebuilt after loading (caches), never stored.
* ``_NEW_STATE``: attributes of ``_STATE`` that the class gained after files were written: a
  file without them loads, and ``_check_state`` sets what the rest of the state implies.
* ``_check_state(self, st)``: the consistency of a loaded state (array shapes against
  ``n_features_in_`` and the parameters, index ranges, derived values recomputed), run on the
  learner after the attributes were set; it raises :class:`StateError` (or a ValueError /
  TypeError of the family's own validation) for a state no run of the learner reaches.

``mbcore.persistence`` keeps only the file format: it reads the values, asks the class for its
``_STATE`` and ``_DERIVED``, and calls ``_check_state``.  Everything here is shared machinery
for those declarations: the checkers, and small assertions on the learner's attributes.
"""

import numbers

import numpy as np

__all__ = ["StateError", "arr", "arr_list", "py", "int_list", "labels", "values_list",
           "budget", "need", "shape", "finite", "nonneg", "two_labels", "labels_and_counts",
           "failure",
           "COMMON", "FIT_STATE", "ONE_STATE", "INT", "FLOAT", "BOOL", "F8", "I8", "I4", "U1", "U8"]


class StateError(ValueError):
    """A loaded state that no run of the learner reaches (the loader names the file)."""


# ------------------------------------------------------------------------------------------------
# Checkers of one value (types, dtypes, dimensions)
# ------------------------------------------------------------------------------------------------

def arr(dtype, ndim):
    """An ndarray of exactly this dtype and number of dimensions."""
    dt = np.dtype(dtype)

    def check(v):
        if not isinstance(v, np.ndarray):
            return f"is a {type(v).__name__}, not an array"
        if v.dtype != dt or v.ndim != ndim:
            return f"is a {v.dtype} array of {v.ndim} dimension(s), not {dt} of {ndim}"
        return None
    return check


def arr_list(dtype, ndim):
    """A non-empty list of such arrays."""
    one = arr(dtype, ndim)

    def check(v):
        if not isinstance(v, list) or not v:
            return "is not a non-empty list of arrays"
        for a in v:
            p = one(a)
            if p:
                return p
        return None
    return check


def py(*types, low=None):
    """A Python value of one of these exact types (an int at least ``low``)."""
    def check(v):
        if type(v) not in types:
            return f"is a {type(v).__name__}, not {' or '.join(t.__name__ for t in types)}"
        if low is not None and type(v) is int and v < low:
            return f"is {v}, below {low}"
        return None
    return check


def int_list(v):
    if not isinstance(v, list) or any(type(x) is not int or x < 0 for x in v):
        return "is not a list of integers >= 0"
    return None


def labels(v):
    """classes_: a 1-D array of at least two distinct labels, sorted."""
    if not isinstance(v, np.ndarray) or v.ndim != 1 or v.shape[0] < 2:
        return "is not a 1-D array of at least two labels"
    if v.dtype.kind == "f" and np.isnan(v).any():
        return "holds NaN"
    try:
        ordered = all(v[i] < v[i + 1] for i in range(v.shape[0] - 1))
    except TypeError:
        ordered = False
    if not ordered:
        return "is not sorted with distinct labels"
    return None


def values_list(v):
    if not isinstance(v, list) or any(not isinstance(vals, list) for vals in v):
        return "is not a list of lists of values"
    return None


def budget(v):
    if v is None or (isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
                     and int(v) >= 1):
        return None
    return "is not None or an integer >= 1"


INT = py(int, low=0)
FLOAT = py(float)
BOOL = py(bool)
F8, I8, I4, U1, U8 = "<f8", "<i8", "<i4", "|u1", "<u8"

COMMON = {"classes_": labels, "n_features_in_": py(int, low=1), "_counts": arr(I8, 1)}

def feature_names(v):
    """_feature_names: the names of the columns (learn_one on dicts), distinct."""
    if not isinstance(v, list) or not v:
        return "is not a non-empty list of names"
    try:
        if len(set(v)) != len(v):
            return "holds a name twice"
    except TypeError:
        return "holds a name that is not hashable"
    return None


# What learn_one on dict examples adds to any learner (mbcore._one): the names of the columns,
# as many as n_features_in_ (checked by the loader).
ONE_STATE = {"_feature_names": feature_names}

def reading(v):
    """reading_: how the learner's data was read from a file (mbcore.streaming), as the
    persistence format stores it: a tuple of (name, value) pairs, the names among the
    readers' options, the values JSON scalars."""
    if v is None:
        return None
    if not isinstance(v, tuple) or not all(
            isinstance(p, tuple) and len(p) == 2 and p[0] in READING_NAMES and
            (p[1] is None or type(p[1]) in (bool, int, float, str)) for p in v):
        return "is not a tuple of (option, value) pairs of the readers"
    if len({p[0] for p in v}) != len(v) or "format" not in {p[0] for p in v}:
        return "names an option twice, or no format"
    return None


# The options of the readers a learner's reading_ records (mbcore.streaming.READING).
READING_NAMES = frozenset(("format", "zero_based", "bits", "hash_seed", "label_column",
                           "delimiter", "skip_header", "labels"))

# What training from a file (mbcore.streaming.train_file, evaluate_file) adds to any learner:
# how it read the file, so that predicting reads the same way.
READ_STATE = {"reading_": reading}

# What fit() adds to any learner (all of them or none).
FIT_STATE = {"converged_": py(bool), "cycled_": py(bool), "n_iter_": py(int, low=0),
             "epoch_mistakes_": int_list, "epoch_updates_": int_list}


# ------------------------------------------------------------------------------------------------
# Assertions on a loaded learner's attributes
# ------------------------------------------------------------------------------------------------

def need(cond, why):
    if not cond:
        raise StateError(why)


def shape(obj, name, expected):
    a = obj.__dict__[name]
    need(a.shape == tuple(expected),
         f"{type(obj).__name__}: {name} has shape {a.shape}, expected {tuple(expected)}")


def finite(obj, *names):
    for n in names:
        need(np.isfinite(obj.__dict__[n]).all(),
             f"{type(obj).__name__}: {n} holds NaN or infinity")


def nonneg(obj, *names):
    for n in names:
        need((obj.__dict__[n] >= 0).all(), f"{type(obj).__name__}: {n} holds negative values")


def labels_and_counts(obj, st):
    """The learners of two or more classes: two_labels for two classes, else (K >= 3 classes,
    K weight vectors) the counters [seen, mistakes, updates] alone."""
    if st["classes_"].shape[0] <= 2:
        two_labels(obj, st)
    else:
        shape(obj, "_counts", (3,))
        nonneg(obj, "_counts")


def two_labels(obj, st, n_counts=3):
    """The two-label learners: two classes and the counters [seen, mistakes, updates]."""
    o = type(obj).__name__
    need(st["classes_"].shape[0] == 2, f"{o}: classes_ holds {st['classes_'].shape[0]} "
                                       "labels, not 2")
    shape(obj, "_counts", (n_counts,))
    nonneg(obj, "_counts")


def failure(obj, st, failed, reason):
    """``_failure`` (the fitted ``failure_``): None while the learner follows its rule, else
    (the example, an int below ``n_seen_``, or None when unknown; ``reason``), and not None
    exactly when the rest of the state says the learner ``failed``.  A file written before it
    existed (the family's ``_NEW_STATE``) gets what the rest implies, the example unknown."""
    o = type(obj).__name__
    if "_failure" not in st:
        obj.__dict__["_failure"] = (None, reason) if failed else None
    f = obj.__dict__["_failure"]
    need((f is None) == (not failed), f"{o}: failure_ does not match the rest of the state")
    need(f is None or (len(f) == 2 and f[1] == reason and (f[0] is None or (
        type(f[0]) is int and 0 <= f[0] < int(st["_counts"][0])))),
         f"{o}: failure_ is not (an example seen, {reason!r})")
