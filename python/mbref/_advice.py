"""What the experts and the specialists share, pure Python (the twins of ``mbcore._advice``
and of what the two families have in common): the classes of K labels, the labels as class
indices, a NaN prediction refused, the last argmax and the left-to-right sum of the votes, and
``AdviceLearner``, the base of both families' learners.
"""

import math

from ._one import OneExample
from .base import NotFittedError, dense_rows, infer_classes, label_key, matrix_rows

__all__ = ["advice_classes", "check_y", "label_codes", "lookup", "first_nan",
           "last_argmax", "fold", "AdviceLearner"]


def advice_classes(owner, labels, classes=None):
    """The classes of the expert pools and the specialists (mbref.base.infer_classes): two or
    more, any labels the experts may predict."""
    return infer_classes(owner, labels, classes, max_classes=None, real_labels=True)


def check_y(owner, y, n):
    if y is None:
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got None")
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got a string")
    if getattr(y, "ndim", 1) != 1:
        raise ValueError(f"{owner}: y must be 1-D, got ndim={y.ndim}")
    if not hasattr(y, "__iter__"):
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got {type(y).__name__}")
    ys = [label_key(v) for v in y]
    for v in ys:
        if isinstance(v, (list, tuple, dict, set)):
            raise ValueError(f"{owner}: y must be 1-D, got a label that is a "
                             f"{type(v).__name__}")
    if n is not None and len(ys) != n:
        raise ValueError(f"{owner}: {n} rounds but y has {len(ys)} labels")
    for v in ys:
        if isinstance(v, float) and math.isnan(v):
            raise ValueError(f"{owner}: y contains NaN")
    return ys


def label_codes(owner, classes, ys):
    """Labels -> class indices (positions in the sorted classes)."""
    index = {c: k for k, c in enumerate(classes)}
    out = []
    for v in ys:
        k = lookup(index, v)
        if k is None:
            raise ValueError(f"{owner}: y has the label {v!r}, outside the fitted classes "
                             f"{list(classes)!r}")
        out.append(k)
    return out


def lookup(index, v):
    """index.get(v); None for an unhashable value (a dict, a list), which is no label."""
    try:
        return index.get(v)
    except TypeError:
        return None


def first_nan(rows, who, owner, mask=None):
    """ValueError naming the first NaN prediction (its column and round; only the awake ones
    with a mask): on a first call the labels are inferred from the advice, and NaN is none."""
    for t, r in enumerate(rows):
        for i, v in enumerate(r):
            if (mask is None or mask[t][i]) and isinstance(v, float) and math.isnan(v):
                raise ValueError(f"{owner}: the prediction of {who} {i} in round {t} is NaN")


def last_argmax(q):
    """The last index of the largest value (ties go to the later class)."""
    best = 0
    for v in range(1, len(q)):
        if q[v] >= q[best]:
            best = v
    return best


def fold(q):
    t = q[0]
    for v in q[1:]:
        t = t + v
    return t


class AdviceLearner(OneExample):
    """What the learners that weigh advice share (Weighted Majority and the specialists):
    scikit-learn's parameters, the fitted checks, the counters, each advisor's mistakes
    and log2 weight, and the advice matrix read as rows of labels."""

    _advice_unit = "expert"      # what a column of P is, in the messages

    def _owner_name(self):
        return type(self).__name__

    _NO_WEIGHTS = "its update rule has no weighted form in the notes"

    def _refuse_weights(self, sample_weight):
        """sample_weight: None only (mbcore.base.OnlineLearner._refuse_weights)."""
        if sample_weight is not None:
            raise TypeError(f"{type(self).__name__}: sample_weight is not supported: "
                            f"{self._NO_WEIGHTS}; pass sample_weight=None")

    @classmethod
    def _param_names(cls):
        import inspect
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in self._param_names()}

    def set_params(self, **params):
        for k, v in params.items():
            if k not in self._param_names():
                raise ValueError(f"{type(self).__name__}: invalid parameter {k!r}; valid "
                                 f"parameters are {self._param_names()}")
            setattr(self, k, v)
        return self

    def _is_fitted(self):
        return getattr(self, "classes_", None) is not None

    def _check_fitted(self, what):
        if not self._is_fitted():
            raise NotFittedError(f"{type(self).__name__}: call partial_fit before {what}")

    @property
    def mistakes_(self):
        self._check_fitted("mistakes_")
        return self._counts[1]

    @property
    def updates_(self):
        self._check_fitted("updates_")
        return self._counts[2]

    @property
    def n_seen_(self):
        self._check_fitted("n_seen_")
        return self._counts[0]

    @property
    def expert_mistakes_(self):
        """How many mistakes each expert has made."""
        self._check_fitted("expert_mistakes_")
        return list(self._m)

    @property
    def log2_weights_(self):
        """log2 of each expert's weight (exact integers in exact mode)."""
        self._check_fitted("log2_weights_")
        return list(self._l)

    # -- input ----------------------------------------------------------------------------
    def _advice(self, P, n=None):
        return matrix_rows(type(self).__name__, P, n, dense=dense_rows, name="P",
                           rows="n_rounds", unit=self._advice_unit)

