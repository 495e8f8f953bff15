"""Exact attributions: why a learner scored a row as it did.

An additive learner's weights are the sum of its updates, ``w = w_start + sum_j c_j x_j``
(``c_j`` the coefficient of the j-th update, ``x_j`` its row; the intercept gets ``c_j`` too),
so its score of a row ``x`` splits exactly twice:

* over the features: ``score = post(sum_i w_i x_i + b)``, the feature parts ``w_i x_i`` and the
  intercept part ``b``;
* over the past examples (the dual form, the kernel Perceptron's own):
  ``score = post(w_start . x + sum_j c_j (<x_j, x> + [intercept]))``, one part per example
  that caused an update (its coefficients summed when it updated more than once).

``post`` is the learner's last step: nothing, a product by ``1/||x'||`` (``normalize=True``),
or a division by ``||w||`` (MarginPerceptron's normalised margin).  The example parts need the
record of the updates (``record_updates=True`` on the learner) and the rows it learned from.

:func:`explain` asks the learner's family for its :class:`Explanation`; a family that splits
its state differently (Winnow's log-weights, Weighted Majority's experts) adds its own items
under :attr:`Explanation.extra`.
"""

import math
import warnings

import numpy as np

__all__ = ["Explanation", "explain"]

_EPS = 2.0 ** -52


def _apply_post(total, multiplier, divisor):
    """The learner's last step on a raw score (a float or one per class), as it does it."""
    if multiplier is not None:
        total = total * multiplier
    if divisor is not None:
        if np.ndim(divisor):
            d = np.asarray(divisor, dtype=np.float64)
            t = np.asarray(total, dtype=np.float64)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(d > 0.0, t / np.where(d > 0.0, d, 1.0), 0.0)
        total = total / divisor if divisor > 0.0 else 0.0 * total
    return total


def _fsum(parts, axis_k):
    """The correctly rounded sum of parts (per class when axis_k: columns)."""
    if not axis_k:
        return math.fsum(np.asarray(parts, dtype=np.float64).ravel().tolist())
    P = np.asarray(parts, dtype=np.float64)
    return np.array([math.fsum(P[:, k].tolist()) for k in range(P.shape[1])])


class Explanation:
    """Why a learner scored one row as it did: its score split over the features and, when
    the learner recorded its updates, over the training examples.

    Attributes
    ----------
    learner : str
        The class name of the explained learner.
    prediction : object
        What ``predict`` gives for the row.
    score : float or ndarray of shape (K,)
        What ``decision_function`` gives for the row (K scores with K >= 3 classes).
    classes : ndarray
        The learner's ``classes_``.
    feature_parts : ndarray of shape (n_features,) or (n_features, K)
        ``w_i x_i`` (per class), in the raw score's units (before ``multiplier``/``divisor``).
    intercept_part : float or ndarray of shape (K,)
        The intercept ``b`` (0.0 without one).
    feature_names : list of str or None
        The learner's ``feature_names_in_`` when it has them.
    multiplier, divisor : float, ndarray or None
        The learner's last step: ``score = raw * multiplier`` (``1/||x'||`` under
        ``normalize=True``) or ``raw / divisor`` (a normalised margin; per class for the
        one-vs-rest MarginPerceptron); None when absent.
    start_part : float, ndarray or None
        ``w_start . x`` (+ the starting intercept): the weights the record started from (zero
        for a record started by ``fit``); None without example parts.
    example_indices : ndarray of int64 or None
        The rows of ``X_train`` that updated the learner, increasing (a row's index in the
        stream the learner read: the count of rows seen before it, across ``partial_fit``
        calls; with ``fit``, the row of fit's X, its updates in every epoch summed).
    example_parts : ndarray or None
        Per example index, ``sum_j c_j (<x_j, x> + [intercept])`` over its updates (per class
        with K >= 3 classes, shape (n_examples, K)).
    extra : dict
        What a family adds (JSON-safe values), shown by :meth:`to_dict`.

    Notes
    -----
    **The bound of** :meth:`check`.  Let ``n`` be the number of terms of a sum, ``eps`` =
    2**-52 and ``M`` the sum of the terms' magnitudes (for the example parts,
    ``M = |w_start|.|x| + sum_j |c_j| (|x_j|.|x| + [intercept])``, which bounds the
    cancellations inside each ``<x_j, x>``).  The learner's own score is a sum of at most ``n``
    rounded products; the weights it holds are sums of at most ``m`` rounded updates (m the
    number of updates); the parts here are rounded products summed exactly
    (``math.fsum``).  Their difference is at most ``(n + m + 3) * eps * M`` in the raw units,
    times ``|multiplier|`` or over ``divisor``: :meth:`check` tests the parts against that.
    On integer data with an integer rule (the Perceptron and MarginPerceptron with ``eta=1``,
    no normalisation) every product and sum is exact: the sums equal ``score`` to the last bit.
    The averaged Perceptron's and the hinge SVM's dual coefficients are rescaled (by
    ``(T + 1 - t_j) / T``, and by the shrink since ``t_j``), each by one more rounding per
    factor: the bound holds with ``m`` counting them.

    Examples
    --------
    >>> import mbcore
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms()
    >>> clf = mbcore.Perceptron(record_updates=True).fit(X[:2000], y[:2000])
    >>> e = mbcore.explain(clf, X[2004], X_train=X[:2000])
    >>> s = clf.decision_function(X[2004:2005])[0]
    >>> float(s), bool(e.feature_score() == s), bool(e.example_score() == s), e.check()
    (-5.0, True, True, True)

    Which mushrooms taught it that this one is poisonous (the prediction -1): each training
    row's part c_j <x_j, x> and its share of the score (a part against the prediction has a
    negative share):

    >>> [(int(i), part, share) for i, part, share in e.top_examples(3)]
    [(28, 28.0, -5.6), (1916, -20.0, 4.0), (25, -18.0, 3.6)]
    """

    def __init__(self, learner, prediction, score, classes, feature_parts, intercept_part,
                 feature_names=None, multiplier=None, divisor=None, start_part=None,
                 example_indices=None, example_parts=None, example_mass=None, n_updates=0,
                 extra=None):
        self.learner = learner
        self.prediction = prediction
        self.score = score
        self.classes = classes
        self.feature_parts = feature_parts
        self.intercept_part = intercept_part
        self.feature_names = feature_names
        self.multiplier = multiplier
        self.divisor = divisor
        self.start_part = start_part
        self.example_indices = example_indices
        self.example_parts = example_parts
        self._example_mass = example_mass
        self._n_updates = n_updates
        self.extra = {} if extra is None else extra

    # -- the sums ----------------------------------------------------------------------------
    def _multi(self):
        return np.ndim(self.score) > 0

    def feature_score(self):
        """The feature parts and the intercept summed exactly, then the learner's last step:
        the score as the features give it (== ``score`` on integer data)."""
        if self.feature_parts is None:
            raise ValueError(f"{self.learner}: this explanation has no feature parts")
        return _apply_post(self._raw_total(), self.multiplier, self.divisor)

    def example_score(self):
        """The start part and the example parts summed exactly, then the learner's last step:
        the score as the training examples give it; None without example parts."""
        if self.example_parts is None:
            return None
        K = np.shape(self.score)
        rows = np.vstack([np.reshape(self.start_part, (1, -1)),
                          np.reshape(self.example_parts, (-1,) + (K if K else (1,)))])
        if not K:
            rows = rows[:, 0]
        return _apply_post(_fsum(rows, self._multi()), self.multiplier, self.divisor)

    def _scale(self, v):
        v = np.abs(np.asarray(v, dtype=np.float64))
        if self.multiplier is not None:
            v = v * abs(self.multiplier)
        if self.divisor is not None:
            d = np.asarray(self.divisor, dtype=np.float64)
            v = np.where(d > 0.0, v / np.where(d > 0.0, d, 1.0), 0.0)
        return v

    def bounds(self):
        """The stated bounds of :meth:`check` (see the Notes): ``{"features": (error,
        bound), "examples": (error, bound)}``, the largest error over the classes."""
        out = {}
        score = np.asarray(self.score, dtype=np.float64)
        if self.feature_parts is not None:
            P = np.asarray(self.feature_parts, dtype=np.float64)
            n = P.shape[0] + 1
            P = P.reshape(P.shape[0], -1)
            mass = _fsum(np.abs(np.vstack([P, np.reshape(self.intercept_part, (1, -1))])),
                         self._multi())
            err = np.abs(np.asarray(self.feature_score()) - score)
            out["features"] = (float(np.max(err)),
                               float(np.max((n + 3) * _EPS * self._scale(mass))))
        if self.example_parts is not None:
            n = (0 if self.feature_parts is None else np.shape(self.feature_parts)[0]) + 1
            err = np.abs(np.asarray(self.example_score()) - score)
            out["examples"] = (float(np.max(err)), float(np.max(
                (n + self._n_updates + 3) * _EPS * self._scale(self._example_mass))))
        return out

    def check(self):
        """Whether every sum of parts is within its stated bound of ``score`` (exactly equal on
        integer data with an integer rule; see the Notes)."""
        return all(err <= bound for err, bound in self.bounds().values())

    # -- the largest parts -------------------------------------------------------------------
    def _top(self, labels, parts, k, cls):
        P = np.asarray(parts, dtype=np.float64)
        if P.ndim == 2:
            if cls is None:
                cls = int(np.argmax(self.score)) if self._multi() else 0
            P = P[:, cls]
            total = float(np.asarray(self._raw_total())[cls])
        else:
            total = float(self._raw_total())
        order = np.argsort(-np.abs(P), kind="stable")[:k]
        return [(labels[i], float(P[i]), float(P[i]) / total if total != 0.0 else math.nan)
                for i in order]

    def _raw_total(self):
        """The feature parts and the intercept, summed exactly (per class)."""
        P = np.asarray(self.feature_parts, dtype=np.float64)
        P = P.reshape(P.shape[0], -1)
        return _fsum(np.vstack([P, np.reshape(self.intercept_part, (1, -1))]), self._multi())

    def top_features(self, k=10, cls=None):
        """The k features with the largest ``|part|`` first: (name or index, part, share of
        the raw score); with K >= 3 classes, of class index ``cls`` (default: the predicted
        class)."""
        names = self.feature_names if self.feature_names is not None else \
            list(range(np.shape(self.feature_parts)[0]))
        return self._top(names, self.feature_parts, k, cls)

    def top_examples(self, k=10, cls=None):
        """The k training examples with the largest ``|part|`` first: (example index, part,
        share of the raw score); [] without example parts."""
        if self.example_parts is None:
            return []
        return self._top(self.example_indices.tolist(), self.example_parts, k, cls)

    def to_dict(self, k=10):
        """A JSON-safe summary: the prediction, the score, the top k features and examples,
        the sums and their bounds, and the family's ``extra``."""
        def plain(v):
            if isinstance(v, np.ndarray):
                return v.tolist()
            if isinstance(v, np.generic):
                return v.item()
            return v

        out = {"learner": self.learner, "prediction": plain(self.prediction),
               "score": plain(self.score), "classes": plain(self.classes)}
        if self.feature_parts is not None:
            out["intercept_part"] = plain(self.intercept_part)
            out["top_features"] = [[plain(a), b, c] for a, b, c in self.top_features(k)]
        if self.example_parts is not None:
            out["start_part"] = plain(self.start_part)
            out["top_examples"] = [[a, b, c] for a, b, c in self.top_examples(k)]
        out["bounds"] = {k_: list(v) for k_, v in self.bounds().items()}
        out["extra"] = {k_: plain(v) for k_, v in self.extra.items()}
        return out

    def __repr__(self):
        return (f"Explanation({self.learner}, prediction={self.prediction!r}, "
                f"score={self.score!r})")


def _row(learner, x, name="x"):
    """x as one dense float64 row of the learner's width (a 1-D array, a (1, d) array or a
    one-row CSR matrix); the error names the class, the parameter and the value."""
    o = type(learner).__name__
    A = x.toarray() if hasattr(x, "toarray") else x
    try:
        A = np.array(A, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{o}: parameter {name} must be one row of real numbers, got "
                        f"{type(x).__name__}") from None
    if A.ndim == 2 and A.shape[0] == 1:
        A = A[0]
    d = learner.n_features_in_
    if A.ndim != 1 or A.shape[0] != d:
        raise ValueError(f"{o}: parameter {name} must be one row of {d} features (the fitted "
                         f"width), got shape {np.shape(x)}")
    if not np.isfinite(A).all():
        raise ValueError(f"{o}: parameter {name} contains NaN or infinity")
    return A


def _rows(learner, X, need):
    """X_train as dense float64 rows of the learner's width, or a CSR matrix (the rows the
    record indexes: at least ``need`` of them)."""
    o = type(learner).__name__
    d = learner.n_features_in_
    if hasattr(X, "tocsr"):
        A = X.tocsr()
        if A.shape[1] != d:
            raise ValueError(f"{o}: parameter X_train must have {d} features (the fitted "
                             f"width), got {A.shape[1]}")
        A = A.astype(np.float64)
    else:
        try:
            A = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{o}: parameter X_train must be a 2-D array of real numbers or a "
                            f"CSR matrix, got {type(X).__name__}") from None
        if A.ndim != 2 or A.shape[1] != d:
            raise ValueError(f"{o}: parameter X_train must have shape (n_rows, {d}), got "
                             f"shape {A.shape}")
    if A.shape[0] < need:
        raise ValueError(f"{o}: parameter X_train has {A.shape[0]} rows, but the record of "
                         f"updates names row {need - 1} (X_train must hold every row the "
                         "learner learned from, in order)")
    return A


def additive_explanation(learner, x, X_train):
    """The Explanation of an additive learner: its effective weights (``coef_``,
    ``intercept_``), its last step (``_explain_post``) and its record of updates
    (``_explain_record``)."""
    o = type(learner).__name__
    learner._check_fitted("explain")
    xd = _row(learner, x)
    x2 = xd[None, :]
    with warnings.catch_warnings():     # (the row is a bare array of the fitted width)
        warnings.filterwarnings("ignore", message=".*feature names", category=UserWarning)
        score = learner.decision_function(x2)[0]
        prediction = learner.predict(x2)[0]
    multi = np.ndim(score) > 0
    coef = np.asarray(learner.coef_, dtype=np.float64)
    icpt = learner.intercept_
    if multi:
        parts = coef.T * xd[:, None]                        # (d, K)
        icpt = np.asarray(icpt, dtype=np.float64)
    else:
        parts = coef * xd
        icpt = float(icpt)
    multiplier, divisor = learner._explain_post(xd)
    names = learner.__dict__.get("_feature_names")
    e = Explanation(o, prediction, score if not multi else np.asarray(score), learner.classes_,
                    parts, icpt, feature_names=None if names is None else list(names),
                    multiplier=multiplier, divisor=divisor)
    rec = learner._explain_record()
    if X_train is None:
        return e
    if rec is None:
        if "record_updates" not in learner.get_params():
            raise ValueError(f"{o}: parameter X_train was given, but {o} keeps no record of "
                             "its updates (its updates do not split into one coefficient per "
                             "example): explain it without X_train, over the features")
        raise ValueError(f"{o}: parameter X_train was given, but the learner did not record "
                         "its updates (construct it with record_updates=True and fit it again)")
    _example_parts(learner, e, xd, X_train, rec)
    return e


def _example_parts(learner, e, xd, X_train, rec):
    """The dual form's parts: rec = (start weights (D*K flat, feature-major), example index
    per update, its coefficient in the features and in the intercept (None: the same), class
    per update or None, the row of X_train of each update, the roundings the learner's
    rescaling adds), all in the learner's effective weights (``coef_``, ``intercept_``)."""
    start, idx, cf, ci, cls, rows, extra = rec
    d, K = learner.n_features_in_, (1 if cls is None else len(learner.classes_))
    icpt = bool(learner.fit_intercept)
    if ci is None:
        ci = cf
    A = _rows(learner, X_train, int(rows.max()) + 1 if rows.shape[0] else 0)
    ax = np.abs(xd)
    # <x_j, x> and |x_j|.|x| per training row, each product rounded once and summed exactly
    # (math.fsum: the twin gets the same floats)
    dot, adot = {}, {}
    for r in np.unique(rows).tolist():
        if hasattr(A, "indptr"):
            lo, hi = A.indptr[r], A.indptr[r + 1]
            v, j = A.data[lo:hi], A.indices[lo:hi]
            p, q = v * xd[j], np.abs(v) * ax[j]
        else:
            p, q = A[r] * xd, np.abs(A[r]) * ax
        dot[r] = math.fsum(p.tolist())
        adot[r] = math.fsum(q.tolist())
    S = np.asarray(start, dtype=np.float64).reshape(-1, K)
    sp = [math.fsum((S[:d, k] * xd).tolist() + ([S[d, k]] if icpt else [])) for k in range(K)]
    sm = [math.fsum((np.abs(S[:d, k]) * ax).tolist() + ([abs(S[d, k])] if icpt else []))
          for k in range(K)]
    terms, mass = {}, [[v] for v in sm]
    for t, (i, r, c, b) in enumerate(zip(idx.tolist(), rows.tolist(), cf.tolist(),
                                         ci.tolist())):
        k = 0 if cls is None else int(cls[t])
        terms.setdefault((r, k), []).extend((c * dot[r], b) if icpt else (c * dot[r],))
        mass[k].extend((abs(c) * adot[r], abs(b)) if icpt else (abs(c) * adot[r],))
    uniq = sorted({i for i, _ in terms})
    at = {i: n for n, i in enumerate(uniq)}
    parts = np.zeros((len(uniq), K))
    for (i, k), v in terms.items():
        parts[at[i], k] = math.fsum(v)
    e.example_indices = np.array(uniq, dtype=np.int64)
    if cls is None:
        e.start_part = sp[0]
        e.example_parts = parts[:, 0]
        e._example_mass = math.fsum(mass[0])
    else:
        e.start_part = np.array(sp)
        e.example_parts = parts
        e._example_mass = np.array([math.fsum(m) for m in mass])
    e._n_updates = int(idx.shape[0]) + int(extra)


def explain(learner, x, X_train=None):
    """Split a fitted learner's score of one row exactly: over the features (``w_i x_i``) and,
    when the learner recorded its updates (``record_updates=True``) and ``X_train`` holds the
    rows it learned from, over those training examples (``c_j <x_j, x>``).

    Parameters
    ----------
    learner : fitted learner
        An additive learner (Perceptron, AveragedPerceptron in mode "average",
        MarginPerceptron, OnlineHingeSVM, PassiveAggressive; their K-class forms), or any
        learner whose family defines an explanation.
    x : array-like of shape (n_features,) or (1, n_features), or a one-row CSR matrix
        The row to explain.
    X_train : array-like or CSR matrix, optional
        The rows the learner learned from, in the order it read them (row i = example index
        i; with ``fit``, fit's X).

    Returns
    -------
    Explanation
        See :class:`Explanation` (its ``check()`` tests that the parts add up to the score).

    Examples
    --------
    >>> import mbcore
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms()
    >>> clf = mbcore.PassiveAggressive(record_updates=True).partial_fit(X[:1000], y[:1000])
    >>> e = mbcore.explain(clf, X[1000], X_train=X[:1000])
    >>> e.check()                      # both sums within the stated bound of the score
    True
    >>> len(e.top_features(3)), len(e.top_examples(3))
    (3, 3)
    """
    how = getattr(type(learner), "_explanation", None)
    if how is None:
        raise TypeError(f"{type(learner).__name__}: this learner has no explanation (explain "
                        "splits the scores of the additive learners and of the families that "
                        "define one)")
    return how(learner, x, X_train)
