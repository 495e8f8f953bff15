"""One example at a time, on dict features (twin of ``mbcore._one``): ``learn_one``,
``predict_one``, ``predict_proba_one``.

Written literally: the names seen so far are a list (name j is column j, in the order the names
first arrived); an example ``{name: value}`` becomes the row of that many values, zero where a
name is missing, and goes to ``partial_fit`` (or ``predict``) as a one-row X.  A name seen for
the first time (``_DICT_FEATURES = "grow"``) widens the state first (``_grow_features``: the new
weights at zero), so the stream gives what ``partial_fit`` gives on the matrix whose columns are
the names in order of arrival.  Learners whose rule depends on the number of features
(``"fixed"``) take their names up front (``features=``).  The values are checked in the order
of the dict's items: a real number (bool, int, float, or a NumPy scalar of those kinds), then
finite, then (``"fixed"``) a known name.
"""

import math
import numbers

__all__ = ["OneExample"]


def _fail(owner, kind, k, v, n=0):
    if kind == "real":
        return TypeError(f"{owner}: x[{k!r}] = {v!r} is not a real number (a value of type "
                         f"{type(v).__name__}); the values of x must be bool, int or float")
    if kind == "finite":
        return ValueError(f"{owner}: x[{k!r}] = {v!r} is not finite (NaN, infinity, or an "
                          "int too large for a float)")
    return ValueError(f"{owner}: feature {k!r} is not one of the {n} names the learner "
                      "was given (features=); its rule depends on the number of features, so "
                      "they are fixed at the first call")


def _value(owner, k, v):
    if type(v) is float:
        f = v
    elif type(v) in (int, bool) or isinstance(v, numbers.Real) or \
            (hasattr(v, "dtype") and getattr(v.dtype, "kind", "") == "b"):
        try:
            f = float(v)
        except OverflowError:
            raise _fail(owner, "finite", k, v) from None
    else:
        raise _fail(owner, "real", k, v)
    if not math.isfinite(f):
        raise _fail(owner, "finite", k, v)
    return f


# learn_one's words for the label errors its partial_fit call words for partial_fit (as
# mbcore._one.learn_one_error says them)
_FIRST_CALL = ("the first partial_fit", "the first learn_one")
_BALANCED = ("is not supported for partial_fit", "is not supported for learn_one")
_NEW_LABEL = "outside the fitted classes"
LEARN_ONE_NEW_LABEL = ("; a learner's classes are fixed when it starts (one that took a class "
                       "later would not be the learner that knew it from the start): give every "
                       "label up front, as classes=")


def learn_one_error(exc):
    """The ValueError ``exc`` raised under learn_one in learn_one's words, or ``exc``."""
    msg = str(exc)
    said = [pair for pair in (_FIRST_CALL, _BALANCED) if pair[0] in msg]
    if said:                               # partial_fit's words, the first pair found
        return ValueError(msg.replace(*said[0]))
    new_label = _NEW_LABEL in msg and not msg.endswith(LEARN_ONE_NEW_LABEL)
    return ValueError(msg + LEARN_ONE_NEW_LABEL) if new_label else exc


class NoProbabilities(AttributeError, NotImplementedError):
    """predict_proba_one of a learner without probabilities (as mbcore's)."""


class _ProbaOne:
    """predict_proba_one where the class defines probabilities (``_proba_one_row``), else
    absent: an AttributeError that says why (``hasattr`` is False), as in mbcore."""

    def __init__(self, method):
        self.method = method
        self.__doc__ = method.__doc__
        method.__name__ = "predict_proba_one"            # its public name, also in __qualname__
        method.__qualname__ = "predict_proba_one".join(
            method.__qualname__.split("_predict_proba_one"))

    def __get__(self, obj, cls=None):
        if cls is None:
            cls = type(obj)
        no_probabilities = cls._proba_one_row is OneExample._proba_one_row
        if no_probabilities:
            raise NoProbabilities(
                f"{cls.__name__} predicts labels, not probabilities: it has no "
                "predict_proba_one, so a metric that needs probabilities (river's ROCAUC, "
                "LogLoss) cannot score it; score its labels (Accuracy, F1)")
        return self.method if obj is None else self.method.__get__(obj, cls)


class OwnRows(list):
    """The rows learn_one and predict_one pass to the general path (the learner's own, built
    from the names): the checks of X's column names let them through."""


class OneExample:
    """Mixed into the twins' base classes (see the module's docstring)."""

    _DICT_FEATURES = "fixed"

    @property
    def _owner(self):
        return type(self).__name__

    def _is_fitted(self):
        return getattr(self, "classes_", None) is not None

    def _dict_mode(self):
        return self._DICT_FEATURES

    @property
    def feature_names_in_(self):
        names = vars(self).get("_feature_names")
        if names is None:
            raise AttributeError(f"{type(self).__name__} has no feature_names_in_: it was "
                                 "not given dict examples (learn_one)")
        return list(names)

    def _checked_features(self, features):
        o = self._owner
        if isinstance(features, (str, bytes, dict)) or not hasattr(features, "__iter__"):
            raise TypeError(f"{o}: parameter features must be a list of feature names, got "
                            f"{type(features).__name__}")
        names = list(features)
        if not names:
            raise ValueError(f"{o}: parameter features must name at least one feature, got []")
        seen = set()
        for k in names:
            try:
                if k in seen:
                    raise ValueError(f"{o}: parameter features: the feature name {k!r} is "
                                     "given twice")
            except TypeError:
                raise TypeError(f"{o}: parameter features must hold hashable names") from None
            seen.add(k)
        return names

    def _row(self, x, names, mode):
        """(row, new names): mode "grow" adds new names, "ignore" skips them, "fixed" refuses
        them."""
        o = self._owner
        if not isinstance(x, dict):
            raise TypeError(f"{o}: x must be a dict {{feature name: value}}, got "
                            f"{type(x).__name__}")
        index = {k: j for j, k in enumerate(names)}
        new = []
        vals = {}
        for k, v in x.items():
            f = _value(o, k, v)
            j = index.get(k)
            if j is None:
                if mode == "ignore":
                    continue
                if mode == "fixed":
                    raise _fail(o, "unknown", k, v, len(names))
                j = len(names) + len(new)
                index[k] = j
                new.append(k)
            vals[j] = f
        row = [0.0] * (len(names) + len(new))
        for j, f in vals.items():
            row[j] = f
        return row, new

    def _names_for(self, features):
        o = self._owner
        names = vars(self).get("_feature_names")
        if names is None:
            if features is None:
                raise ValueError(f"{o}: the learner was fitted on arrays, whose columns have no "
                                 "names; pass features=[one name per column] to learn_one to "
                                 "name them")
            names = self._checked_features(features)
            if len(names) != self.n_features_in_:
                raise ValueError(f"{o}: features has {len(names)} names, the learner has "
                                 f"{self.n_features_in_} features")
        elif features is not None and list(features) != names:
            raise ValueError(f"{o}: features={list(features)!r} differs from the names "
                             f"the learner has ({names!r})")
        return names

    def learn_one(self, x, y, *, classes=None, features=None):
        """Learn from one example (see mbcore's ``learn_one``); returns self."""
        o = self._owner
        mode = self._dict_mode()
        if mode is None:
            raise TypeError(f"{o}: learn_one takes dict features, and {o}'s examples are not "
                            f"feature vectors (its rows are {self._TAKES})")
        saved = dict(vars(self))
        try:
            if not self._is_fitted():
                if mode == "fixed" and features is None:
                    raise ValueError(f"{o}: its rule depends on the number of features, so "
                                     "learn_one needs every feature name up front: pass "
                                     "features=[names] at the first call")
                names = self._checked_features(features) if features is not None else []
                row, new = self._row(x, names, mode)
                if not row:
                    raise ValueError(f"{o}: the first example has no features (x = {x!r}); "
                                     "learn_one needs at least one to start")
                self.partial_fit(OwnRows([row]), [y], classes)
            else:
                names = self._names_for(features)
                row, new = self._row(x, names, mode)
                if new:
                    self._grow_features(len(row))
                self.partial_fit(OwnRows([row]), [y], classes)
            self._feature_names = names + new
        except BaseException as exc:
            d = vars(self)
            d.clear()
            d.update(saved)
            worded = learn_one_error(exc) if isinstance(exc, ValueError) else exc
            if worded is exc:
                raise
            raise worded from None
        return self

    def _grow_features(self, d):
        # (only asked of a learner whose _dict_mode() is "grow"; as mbcore._one says)
        raise ValueError(f"{self._owner}: cannot add features to grow from "
                         f"{self.n_features_in_} to {d} (its names are fixed: "
                         f"_DICT_FEATURES = {self._dict_mode()!r})")

    def _one_row(self, x):
        if not self._is_fitted():
            if not isinstance(x, dict):
                raise TypeError(f"{self._owner}: x must be a dict {{feature name: value}}, "
                                f"got {type(x).__name__}")
            return None
        names = self._names_for(None)
        mode = self._dict_mode()
        row, _ = self._row(x, names, "ignore" if mode == "grow" else "fixed")
        return row

    def predict_one(self, x):
        """The predicted label of one example; None before any example."""
        row = self._one_row(x)
        if row is None:
            return None
        return self.predict(OwnRows([row]))[0]

    def _predict_proba_one(self, x):
        """``{class: probability}`` (the randomized Weighted Majority); the others have no
        predict_proba_one (hasattr is False)."""
        row = self._one_row(x)
        if row is None:
            return {}
        return dict(zip(self.classes_, (float(q) for q in self._proba_one_row(row))))

    predict_proba_one = _ProbaOne(_predict_proba_one)

    def _proba_one_row(self, row):
        """The probability of each class for the row (the learners that predict them)."""
        raise NotImplementedError(f"{type(self).__name__} defines no probabilities of classes")
