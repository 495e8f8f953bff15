"""The second-order linear learners (additive family): AROW, ConfidenceWeighted, SCW and NHERD
(a Gaussian over the weights: a mean w and a covariance Sigma), NAROW and SecondOrderPerceptron
(the dual form: theta, the sum of the updates' y x, and w = Sigma theta); two classes and, for
three or more, one-vs-rest or (the first four) the single-constraint K-class form.

Each class validates once in Python, then one compiled kernel (``mbcore._kernels.second_order``)
does the whole pass with the GIL released.  The pure-Python twin of each class, with the same
name, is in ``mbref.second_order`` (the arithmetic in ``mbref._covariance``); the two agree bit
for bit: predictions, mistakes, updates, the mean and the covariance.

State (float64 arrays, ``D = d`` coordinates, ``d + 1`` with ``fit_intercept``, the intercept
last; K = 1 for two classes, else the number of classes, class k's values at ``[k*D, (k+1)*D)``):
``_w`` the means (K x D), ``_S`` the covariances (K x D variances, or K matrices of D x D,
row-major), ``_V`` theta (K x D; empty for the Gaussian learners), ``_full_fitted`` whether
``_S`` holds full matrices.
"""

import math
from statistics import NormalDist

import numpy as np

from ._additive import _CLASS_WEIGHT, _MULTI, _TIES, _Linear, _raise_status, _row_weights
from ._kernels import linear as _k, second_order as _kso
from ._params import Choice, Flag, Integer, Real
from ._so_docs import _EXAMPLE, _PIECES
from ._state import BOOL, COMMON, F8, INT, arr, finite, labels_and_counts, need, shape
from ._tags import tags
from ._threads import N_JOBS, map_rows
from ._validation import Batch, check_X
from .base import ManyClasses, OnlineLearner, Snapshot

__all__ = ["AROW", "ConfidenceWeighted", "SCW", "NHERD", "NAROW", "SecondOrderPerceptron",
           "ALMA"]

# the kernel's rule codes (mbcore/_kernels/second_order.pyx)
_AROW, _CW, _SCW1, _SCW2, _NHERD, _NAROW, _SOP = range(7)

# Full covariance: at most this many matrix entries over all of a learner's matrices (2**27
# doubles, 1 GiB; mbref._covariance.FULL_LIMIT): a wider learner is refused.
FULL_LIMIT = 1 << 27

# a diagonal variance never goes below a * 2**-52 (mbref._covariance.variance_floor)
_FLOOR_SCALE = 2.0 ** -52

_NO_WEIGHTS = "its paper's update has no weighted form"


def _phi(eta):
    """phi = Phi^-1(eta), the standard normal quantile, as the twin computes it."""
    return NormalDist().inv_cdf(float(eta))




class _SecondOrder(ManyClasses, OnlineLearner):
    """What the second-order learners share: the state (means, covariances, theta), the
    compiled passes (binary, one-vs-rest, single-constraint K classes), the scores, the growth
    of the width, persistence."""

    # rows are feature vectors; learn_one on dicts: a new name is a new column (its mean 0,
    # its variance the initial one); the state grows with the width of a stream
    _TAGS = tags(takes="features", dict_features="grow", grows=True, needs_width=None,
                 weighted=False, no_weights=_NO_WEIGHTS,
                 no_mix=("its state is a Gaussian over the weights (a mean and a covariance): "
                         "no rule for mixing covariances across shards is stated"))

    _sk_sparse = True

    # mbcore.explain: the score w . x' + b split over the features (the mean w); the updates
    # (Sigma x scaled) do not split into one coefficient per example: no example parts
    def _explanation(self, x, X_train):
        from .explain import additive_explanation
        return additive_explanation(self, x, X_train)

    def _explain_post(self, x):
        return None, None

    def _explain_record(self):
        return None
    _sk_multiclass = True
    class_weight = None          # (the weighted learners, SCW and NHERD, have the parameter)
    _DUAL = False                # theta beside the mean (NAROW, SecondOrderPerceptron)
    _MC_FORM = True              # has the single-constraint K-class form

    _PARAMETERS = {"a": Real(0), "covariance": Choice("diagonal", "full"),
                   "tie": Choice(*_TIES), "fit_intercept": Flag(), "max_epochs": Integer(1),
                   "multi_class": Choice(*_MULTI), "n_jobs": N_JOBS}

    # for the tests (tests/_cases.py): NotFittedError before fit; not exact on integers
    _FITTED: "tuple[str, ...]" = ("coef_", "intercept_", "covariance_")
    _INTEGER_EXACT = False

    # -- the rule's parameters for the kernel ----------------------------------------------
    def _rule(self):
        """(rule code, p0, p1) of the kernel."""
        raise NotImplementedError

    def _full(self):
        return self.covariance == "full"

    def _cov0(self):
        """The initial value on the covariance's diagonal (Sigma_0 = a I)."""
        return float(self.a)

    def _floor(self):
        """The diagonal variances' floor, a * 2**-52 (mbref._covariance.variance_floor)."""
        return float(self.a) * _FLOOR_SCALE

    def _validate_params(self):
        super()._validate_params()
        o = self._owner
        w = self.__dict__.get("_w")
        if w is None:
            return
        if w.shape[0] != self._K() * (self._d + bool(self.fit_intercept)):
            raise ValueError(f"{o}: parameter fit_intercept was changed to "
                             f"{self.fit_intercept!r} after fitting; call fit, or clone the "
                             "learner, to start again with it")
        if self._full_fitted != self._full():
            raise ValueError(f"{o}: parameter covariance was changed to {self.covariance!r} "
                             "after fitting; call fit, or clone the learner, to start again "
                             "with it")

    # -- state -------------------------------------------------------------------------------
    def _init_state(self, d, w_init=None):
        o, K, full = self._owner, self._K(), self._full()
        D = d + (1 if self.fit_intercept else 0)
        if K > 1 and self.multi_class == "multiclass":
            if not self._MC_FORM:
                raise ValueError(f"{o}: multi_class='multiclass' with {K} classes is not "
                                 "defined for this learner (no single-constraint K-class form "
                                 "in its paper); use multi_class='ovr'")
            if full:
                raise ValueError(f"{o}: covariance='full' with {K} classes and "
                                 f"multi_class='multiclass' would keep one ({K * D} x {K * D}) "
                                 "matrix; use covariance='diagonal' (one variance vector per "
                                 f"class) or multi_class='ovr' (one {D} x {D} matrix per class)")
        if full and K * D * D > FULL_LIMIT:
            raise ValueError(f"{o}: covariance='full' would keep {K} matrix(es) of {D} x {D} "
                             f"({K * D * D * 8} bytes), over the limit of {FULL_LIMIT * 8} "
                             "bytes; use covariance='diagonal'")
        self._d = d
        self._w = np.zeros(K * D) if w_init is None else w_init
        a = self._cov0()
        self._S = np.tile(np.eye(D).ravel() * a, K) if full else np.full(K * D, a)
        self._V = np.zeros(K * D if self._DUAL else 0)
        self._full_fitted = full

    # -- persistent state (mbcore._state; mbcore.persistence stores what _STATE names) -------
    _STATE = dict(COMMON, _d=INT, _w=arr(F8, 1), _S=arr(F8, 1), _V=arr(F8, 1),
                  _full_fitted=BOOL)

    def _check_state(self, st):
        o, d, K = self._owner, st["n_features_in_"], self._K()
        labels_and_counts(self, st)
        need(st["_d"] == d, f"{o}: _d != n_features_in_")
        full = st["_full_fitted"]
        need(full == self._full(), f"{o}: the covariance fitted differs from the parameter")
        D = d + bool(self.fit_intercept)
        need(not (K > 1 and self.multi_class == "multiclass" and
                  (full or not self._MC_FORM)),
             f"{o}: a K-class state of a form this learner refuses")
        need(not full or K * D * D <= FULL_LIMIT, f"{o}: the covariance is over the limit")
        shape(self, "_w", (K * D,))
        shape(self, "_S", (K * D * D,) if full else (K * D,))
        shape(self, "_V", (K * D,) if self._DUAL else (0,))
        finite(self, "_w", "_S", "_V")
        S = st["_S"]
        if full:
            M = S.reshape(K, D, D)
            need(bool((M == M.transpose(0, 2, 1)).all()), f"{o}: a covariance is not symmetric")
            need(bool((np.diagonal(M, axis1=1, axis2=2) > 0.0).all()),
                 f"{o}: a covariance has a diagonal entry <= 0")
        else:
            need(bool((S >= self._floor()).all()) if self._rule()[0] != _SOP else
                 bool((S > 0.0).all()), f"{o}: a variance is below a * 2**-52")

    # -- a stream of unknown width (mbcore.streaming, learn_one on new names) ---------------
    # A feature that was 0 in every row so far has, in a run given the full width from the
    # start, mean 0, theta 0, variance the initial one and no covariance with the others.
    def _widened(self, d):
        """(w, S, V) widened from self._d to d features, the intercept kept last."""
        K, d0, icpt, full = self._K(), self._d, bool(self.fit_intercept), self._full_fitted
        D0, D1 = d0 + icpt, d + icpt
        where = list(range(d0)) + ([d] if icpt else [])

        def vec(a, fill):
            if a.shape[0] == 0:
                return a.copy()
            out = np.full((K, D1), fill)
            out[:, where] = a.reshape(K, D0)
            return out.ravel()

        a0 = self._cov0()
        if full:
            S = np.tile(np.eye(D1) * a0, (K, 1, 1))
            S[np.ix_(range(K), where, where)] = self._S.reshape(K, D0, D0)
            S = S.ravel()
        else:
            S = vec(self._S, a0)
        return vec(self._w, 0.0), S, vec(self._V, 0.0)

    def _grow_state(self, d):
        self._w, self._S, self._V = self._widened(d)
        self._d = d

    def _grow_features(self, d):
        """learn_one: widen the state to d features; returns the function that undoes it."""
        old = (self._w, self._S, self._V, self._d)
        self._grow_state(d)
        self.n_features_in_ = d

        def undo():
            self._w, self._S, self._V, self._d = old
            self.n_features_in_ = old[3]

        return undo

    # -- the passes ----------------------------------------------------------------------------
    def _check_X_learn(self, X, n_features):
        # CSR column indices are checked by the pass, row by row, as it reads them
        return check_X(self._owner, X, n_features, check_indices=False)

    def _select_pass(self, batch, start, label0, yy, *sel, query=0, kappa=0.0):
        """mbcore.selective's pass (so_select_pass; so_ovr_select_pass for one-vs-rest);
        query 1: BBQ's query (the full second-order Perceptron)."""
        (r, p0, p1), K = self._rule(), self._K()
        if K > 1 and self.multi_class != "ovr":
            raise ValueError(f"SelectiveSampler: {type(self).__name__} with K classes is "
                             "sampled one-vs-rest only: multi_class='ovr'")
        head = (r, self._full_fitted, self.fit_intercept, self.tie == "positive", p0, p1,
                self._floor(), self._w, self._S, self._d) + ((K,) if K > 1 else ())
        return (_kso.so_ovr_select_pass if K > 1 else _kso.so_select_pass)(
            *head, self._counts, batch.arrays, start, label0, yy, *sel[:8], not batch.checked,
            sel[8], self._V if self._DUAL else None, query, kappa)

    def _pass(self, batch, yy, pred, upd):
        self._validate_params()
        K = self._K()
        if K > 1 and self.multi_class == "ovr":
            self._pass_ovr(batch, yy, pred, upd)
        elif K > 1:
            rule, p0, p1 = self._rule()
            status, bad = _kso.so_mc_pass(rule, self.fit_intercept, p0, p1, self._floor(), K,
                                          self._w, self._S, self._d, self._counts,
                                          batch.arrays, yy, pred, upd, not batch.checked,
                                          batch.sw)
            _raise_status(self, batch, status, bad)
        else:
            status, bad = self._binary(0, batch, yy, pred, upd, None, self._counts,
                                       not batch.checked, self._w, self._S, self._V)
            _raise_status(self, batch, status, bad)
        batch.checked = True            # (later epochs over this batch skip the index checks)

    # -- one row (partial_fit of one dense float64 row; learn_one's step) -------------------
    def _fast_path(self):
        """The one-row binding: two classes, no class weights (the one-row step is
        unweighted): (the kernel's ``OneBinding`` of the current arrays, d, positive label,
        negative label), which learn_one and predict_one run in one compiled call each
        (``OneSecondOrder``); else True (partial_fit's one-row path alone) or None."""
        cl = self.__dict__.get("classes_")
        if cl is None:
            return None
        if self._K() > 1 or self.class_weight is not None or \
                self._w.shape[0] != self._d + bool(self.fit_intercept):
            return True
        pos, neg = cl[1], cl[0]
        return (self._binding(), self._d, pos.item() if isinstance(pos, np.generic) else pos,
                neg.item() if isinstance(neg, np.generic) else neg)

    def _binding(self):
        rule, p0, p1 = self._rule()
        return _kso.so_binding(rule, self._full_fitted, self.fit_intercept,
                               self.tie == "positive", p0, p1, self._floor(), self._w, self._S,
                               self._d, self._counts, self._V if self._DUAL else None)

    def _one_binder(self, fast, one):
        # learn_one / predict_one: the row, the label and the one-row step in one compiled call
        if type(fast) is not tuple:
            return None
        return _kso.OneSecondOrder(self, fast, one)

    def _fast_step(self, fast, X, y):
        """The pass on one dense float64 row of the fitted width, without the batch checks;
        False (the general path, which says what is wrong) for anything else."""
        if type(X) is not np.ndarray or X.ndim != 2 or X.shape != (1, self._d) or \
                X.dtype.char != "d" or not X.dtype.isnative or not X.flags.c_contiguous:
            return False
        try:
            yy = self._encode_y(y, 1, self.classes_)
        except (ValueError, TypeError):
            return False
        batch = Batch(X=X, n=1, d=self._d)
        if self._K() > 1 and self.multi_class == "ovr":
            with Snapshot(self):         # (the one-vs-rest pass is all or nothing by this)
                self._pass(batch, yy, None, None)
        else:
            self._pass(batch, yy, None, None)       # (the kernel's pass is all or nothing)
        return True

    def _slot(self, k):
        """Class k's (w, S, V) views (one-vs-rest)."""
        D = self._d + bool(self.fit_intercept)
        size = D * D if self._full_fitted else D
        return (self._w[k * D:(k + 1) * D], self._S[k * size:(k + 1) * size],
                self._V[k * D:(k + 1) * D] if self._DUAL else self._V)

    def _binary(self, k, batch, y8, pred, upd, scores, counts, check, w, S, V, sw=False):
        """so_pass of the binary rule on (w, S, V) over the batch; (status, bad row)."""
        rule, p0, p1 = self._rule()
        return _kso.so_pass(rule, self._full_fitted, self.fit_intercept, self.tie == "positive",
                            p0, p1, self._floor(), w, S, self._d, counts, batch.arrays, y8, pred,
                            upd, scores, check, batch.sw if sw is False else sw,
                            V if self._DUAL else None)

    def _pass_ovr(self, batch, yy, pred, upd):
        """One-vs-rest: learner k is independent of the others, so each runs its whole pass in
        turn (the twin's row-by-row result); the prediction is the argmax of their scores; the
        first bad row over the learners is the twin's (the caller's Snapshot restores)."""
        K, n = self._K(), batch.n
        F = np.zeros((K, n))
        U = np.zeros((K, n), dtype=np.uint8)
        limit, first = n, (0, -1)
        for k in range(K):
            if limit == 0:
                break
            sub = batch.rows(0, limit) if limit < n else batch
            yk = np.where(yy[:limit] == k, 1, -1).astype(np.int8)
            status, bad = self._binary(k, sub, yk, None, U[k, :limit], F[k, :limit],
                                       np.zeros(3, dtype=np.int64), k == 0 and not batch.checked,
                                       *self._slot(k))
            if status:
                limit, first = bad, (status, bad)
        _raise_status(self, batch, *first)
        p = np.argmax(F.T, axis=1)
        if pred is not None:
            pred[:] = p
        u = np.bitwise_or.reduce(U, axis=0)
        if upd is not None:
            upd[:] = u
        self._counts[0] += n
        self._counts[1] += int(np.count_nonzero(p != yy))
        self._counts[2] += int(np.count_nonzero(u))

    # -- scores --------------------------------------------------------------------------------
    def _class_score(self, k, batch):
        """Class k's (or the binary learner's) score of each row, and (status, bad row)."""
        w, S, V = self._slot(k)
        out = np.empty(batch.n)
        if self._DUAL:
            # f, the prediction with the row's own term: the pass with every row of weight 0
            # (no update) on copies of the state
            y8 = np.ones(batch.n, dtype=np.int8)
            st = self._binary(k, batch, y8, None, None, out, np.zeros(3, dtype=np.int64), False,
                              w.copy(), S.copy(), V.copy(), sw=np.zeros(batch.n))
            return out, st
        d, icpt = self._d, self.fit_intercept

        def score(b, o):
            return _k.lin_scores(w, 1.0, d, icpt, False, b.arrays, o)

        return out, map_rows(batch, score, out)

    def _scores(self, batch):
        self._validate_params()
        K = self._K()
        if K == 1:
            out, st = self._class_score(0, batch)
            _raise_status(self, batch, *st)
            return out
        out = np.empty((batch.n, K))
        first = (0, -1)
        for k in range(K):
            col, (status, bad) = self._class_score(k, batch)
            if status and (first[0] == 0 or bad < first[1]):
                first = (status, bad)
            out[:, k] = col
        _raise_status(self, batch, *first)
        return out

    def _predict_flags(self, batch):
        if self._K() > 1:      # the class indices (np.argmax: ties -> the smallest index)
            return np.argmax(self._scores(batch), axis=1)
        return super()._predict_flags(batch)

    # -- fit -----------------------------------------------------------------------------------
    def fit(self, X, y, classes=None, coef_init=None, intercept_init=None, sample_weight=None):
        """Reset (optionally to the means ``coef_init``/``intercept_init``; the covariance
        starts at its initial value), then cycle through the data until a pass with no update
        (``converged_``) or ``max_epochs``.  ``sample_weight``: see the class."""
        self._refuse_weights(sample_weight)
        with Snapshot(self, copy_arrays=False):     # (the reset replaces every state array)
            self._reset()
            batch, yy = self._prepare(X, y, classes)
            batch.sw = self._row_weights(sample_weight, yy, batch.n, True)
            if coef_init is not None:
                self._init_state(self._d, self._mean_init(coef_init, intercept_init))
            self._epochs(batch, yy)
        return self

    def _mean_init(self, coef_init, intercept_init):
        """coef_init (d,) or (K, d) and intercept_init as the flat class-major means."""
        o, K, d = self._owner, self._K(), self._d
        if self._DUAL:
            raise ValueError(f"{o}: coef_init is not supported (its state is theta, the sum of "
                             "the updates' y x, with w = Sigma theta); fit from w = 0")
        if K > 1:       # (the linear learners' checks; their W is feature-major)
            w0 = _Linear._matrix_init(self, coef_init, intercept_init)
            w0 = np.ascontiguousarray(w0.reshape(-1, K).T).ravel()
        else:
            w0 = np.array(coef_init, dtype=np.float64).ravel()
            if w0.shape[0] != d:
                raise ValueError(f"{o}: coef_init has {w0.shape[0]} values, X has {d} features")
            if self.fit_intercept:
                w0 = np.append(w0, float(intercept_init or 0.0))
        if not np.isfinite(w0).all():
            raise ValueError(f"{o}: coef_init contains NaN or infinity")
        return w0

    # -- fitted attributes -------------------------------------------------------------------
    def _per_class(self, a, D):
        return a.reshape(self._K(), D)

    @property
    def coef_(self):
        """The mean w, shape (n_features,); with K >= 3 classes one per class, shape
        (K, n_features)."""
        self._check_fitted("coef_")
        D = self._d + bool(self.fit_intercept)
        W = self._w.reshape(self._K(), D)[:, :self._d]
        return W.copy() if self._K() > 1 else W[0].copy()

    @property
    def intercept_(self):
        """The intercept (the mean's constant coordinate), 0.0 without one; with K >= 3
        classes one per class, shape (K,)."""
        self._check_fitted("intercept_")
        K, d = self._K(), self._d
        if not self.fit_intercept:
            return np.zeros(K) if K > 1 else 0.0
        b = self._w.reshape(K, d + 1)[:, d].copy()
        return b if K > 1 else float(b[0])

    @property
    def covariance_(self):
        """The covariance, intercept coordinate last: D variances (diagonal) or a D x D matrix
        (full); with K >= 3 classes one per class, shape (K, D) or (K, D, D)
        (SecondOrderPerceptron's diagonal form: the diagonal of its correlation matrix
        a I + sum x x^T, a precision)."""
        self._check_fitted("covariance_")
        K, D = self._K(), self._d + bool(self.fit_intercept)
        S = self._S.reshape((K, D, D) if self._full_fitted else (K, D)).copy()
        return S if K > 1 else S[0]


class _Weighted:
    """SCW and NHERD: a row of sample weight s has the aggressiveness C s (weight 0 changes
    nothing); ``class_weight`` as for PassiveAggressive.  Mixed in before _SecondOrder."""

    _TAGS = tags(weighted=True, no_weights=None)

    def _row_weights(self, sample_weight, yy, n, fitting):
        return _row_weights(self, sample_weight, yy, n, fitting)


class AROW(_SecondOrder):
    __doc__ = """Adaptive Regularization of Weights (Crammer, Kulesza & Dredze, NIPS 2009;
    MLJ 2013).

    Rule (two classes, labels y = +-1).  State: the mean w (0) and the covariance Sigma (a I).
    Predict by the sign of s = w . x.  With m = y s and v = x' Sigma x': if m < 1 (the hinge
    loss 1 - m is positive) and v > 0::

        beta  = 1 / (v + r)
        alpha = (1 - m) beta
        w     = w + (alpha y) Sigma x'
        Sigma = Sigma - beta (Sigma x')(Sigma x')^T          (covariance="full")
        1/Sigma_jj += x_j^2 / r                              (covariance="diagonal")

    The diagonal form keeps the diagonal of the update of the inverse covariance (which grows
    by x x^T / r).  A row with v = 0 (a zero row without intercept) is not an update.

    Mistake bound (the paper's Theorem 2, full covariance; no separability assumed): for any
    u, with X_A the sum of x x^T over the updates, U the number of updates that were not
    mistakes and H the hinge losses of u on the updates, M <= sqrt(r ||u||^2 / a + u^T X_A u)
    sqrt(log det(I + a X_A / r) + U) + H - U (a = 1 in the paper;
    :func:`mbcore.bounds.arow_bound`).  ``certify`` checks it for ``covariance="full"``; the
    diagonal form has none.

    {_COMMON_DOC}

    {_K_DOC}

    ``sample_weight`` is refused (TypeError): the paper's update has no weighted form.

    Parameters
    ----------
    r : float > 0, default=1.0
        The regularisation (the paper's r; LIBOL's and SOL's default 1).
    {_A_PARAM}
    covariance : {{"diagonal", "full"}}, default="diagonal"
    tie : {{"negative", "positive"}}, default="negative"
    fit_intercept : bool, default=False
    max_epochs : int, default=100
        ``fit`` cycles until a pass with no update or this many.
    multi_class : {{"multiclass", "ovr"}}, default="multiclass"
    n_jobs : int or None, default=None
        Checked as the linear learners' (the pass runs on one thread).

    {_ATTRS}

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import AROW
    >>> arow = AROW(r=1.0).partial_fit(X[:30000], y[:30000])
    >>> arow.mistakes_, arow.updates_
    (4666, 18032)
    >>> round(arow.score(X[30000:], y[30000:]), 3)
    0.843
    """.format(**_PIECES)

    _PARAMETERS = {"r": Real(0)}
    _TAGS = tags(bound="arow", multi_bound="one-vs-rest")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"r": 0.5, "covariance": "full", "fit_intercept": True,
                 "multi_class": "ovr", "tie": "positive"}]

    def __init__(self, r=1.0, a=1.0, covariance="diagonal", tie="negative",
                 fit_intercept=False, max_epochs=100, multi_class="multiclass", n_jobs=None):
        self.r = r
        self.a = a
        self.covariance = covariance
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs

    def _rule(self):
        return _AROW, float(self.r), 0.0


_CW_STEP = """alpha = max(0, (-m psi + sqrt(m^2 phi^4 / 4 + v phi^2 xi)) / (v xi)),
                psi = 1 + phi^2 / 2, xi = 1 + phi^2"""

_CW_COV = """sqrt(u) = (-alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v)) / 2
            beta    = alpha phi / (sqrt(u) + v alpha phi)
            w       = w + (alpha y) Sigma x'
            Sigma   = Sigma - beta (Sigma x')(Sigma x')^T         (full)
            1/Sigma_jj += (alpha phi / sqrt(u)) x_j^2              (diagonal)"""


class ConfidenceWeighted(_SecondOrder):
    __doc__ = """Confidence-weighted learning, the exact closed form (Crammer, Dredze & Pereira,
    JMLR 13, 2012, "Confidence-weighted linear classification for text categorization";
    Dredze, Crammer & Pereira, ICML 2008).

    Rule (two classes).  State: the mean w (0) and the covariance Sigma (a I);
    phi = Phi^-1(eta) > 0, the standard normal quantile of the confidence eta.  Predict by the
    sign of s = w . x.  With m = y s and v = x' Sigma x' > 0::

        {_CW_STEP}
        if alpha > 0 (equivalently m < phi sqrt(v)):
            {_CW_COV}

    The update is the smallest change (in KL divergence) of the Gaussian that gives the row a
    probability of at least eta of being right.  sqrt(u) is computed without the cancellation
    ((2 v) / (sqrt(t^2 + 4 v) + t), t = alpha v phi); the diagonal form keeps the diagonal of
    the update of the inverse covariance (the paper's diagonal approximation).

    Mistake bound: none checked by ``certify`` (the paper's could not be checked here).

    {_COMMON_DOC}

    {_K_DOC}

    ``sample_weight`` is refused (TypeError): the paper's update has no weighted form.

    Parameters
    ----------
    eta : float in (0.5, 1), default=0.7
        The confidence (phi = Phi^-1(0.7) = 0.5244; LIBOL's and SOL's default).
    {_A_PARAM}
    {_PARAMS}

    {_ATTRS}

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import ConfidenceWeighted
    >>> cw = ConfidenceWeighted(eta=0.7).partial_fit(X[:4000], y[:4000])
    >>> cw.mistakes_, cw.updates_
    (888, 1459)
    >>> round(cw.score(X[30000:], y[30000:]), 3)
    0.76
    """.format(_CW_STEP=_CW_STEP, _CW_COV=_CW_COV, **_PIECES)

    _PARAMETERS = {"eta": Real(0.5, 1, high_inclusive=False)}
    _TAGS = tags(no_bound="certify checks none for ConfidenceWeighted yet (its paper, "
                 "Crammer, Dredze & Pereira, NIPS 2008, analyses it in the mistake bound "
                 "model)")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"eta": 0.6, "covariance": "full", "fit_intercept": True,
                 "multi_class": "ovr"}]

    def __init__(self, eta=0.7, a=1.0, covariance="diagonal", tie="negative",
                 fit_intercept=False, max_epochs=100, multi_class="multiclass", n_jobs=None):
        self.eta = eta
        self.a = a
        self.covariance = covariance
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs

    def _rule(self):
        return _CW, _phi(self.eta), 0.0


class SCW(_Weighted, _SecondOrder):
    __doc__ = """Soft confidence-weighted learning, SCW-I and SCW-II (Wang, Zhao & Hoi, ICML 2012,
    "Exact soft confidence-weighted learning").

    Rule (two classes).  State: the mean w (0) and the covariance Sigma (a I);
    phi = Phi^-1(eta).  Predict by the sign of s = w . x.  With m = y s and v = x' Sigma x' > 0,
    the loss is l = phi sqrt(v) - m; if l > 0::

        SCW-I:  alpha = min(C, max(0, (-m psi + sqrt(m^2 phi^4 / 4 + v phi^2 xi)) / (v xi)))
                (psi = 1 + phi^2 / 2, xi = 1 + phi^2: CW's step, capped at C)
        SCW-II: n = v + 1 / (2 C)
                gamma = phi sqrt(phi^2 m^2 v^2 + 4 n v (n + v phi^2))
                alpha = max(0, (gamma - (2 m n + phi^2 m v)) / (2 (n^2 + n v phi^2)))
        if alpha > 0: ConfidenceWeighted's update of w and Sigma with this alpha.

    CW's constraint made soft: SCW-I pays the loss linearly (a cap on the step, as PA-I),
    SCW-II quadratically (as PA-II).  This is the paper's SCW-II (LIBOL's ``SCW2`` and other
    ports differ from it; the twin's docstring lists how).

    Sample weights: a row of weight s has the aggressiveness C s (SCW-I's cap C s, SCW-II's
    n = v + 1 / (2 C s)), as PassiveAggressive; a row of weight 0 changes nothing;
    ``class_weight`` likewise.

    Loss bound: the paper's; ``certify`` checks no mistake bound for SCW.

    {_COMMON_DOC}

    {_K_DOC}

    Parameters
    ----------
    C : float > 0, default=1.0
        The aggressiveness (LIBOL's default).
    eta : float in (0.5, 1), default=0.75
        The confidence (LIBOL's SCW-I default).
    variant : {{"SCW-I", "SCW-II"}}, default="SCW-I"
    {_A_PARAM}
    {_PARAMS}
    {_CLASS_WEIGHT_PARAM}

    {_ATTRS}

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import SCW
    >>> scw = SCW(C=0.1, variant="SCW-I").partial_fit(X[:30000], y[:30000])
    >>> scw.mistakes_, scw.updates_
    (4643, 8710)
    >>> round(scw.score(X[30000:], y[30000:]), 3)
    0.848
    """.format(**_PIECES)

    _PARAMETERS = {"C": Real(0), "eta": Real(0.5, 1, high_inclusive=False),
                   "variant": Choice("SCW-I", "SCW-II"), "class_weight": _CLASS_WEIGHT}
    _TAGS = tags(no_bound="certify checks none for SCW (its paper, Wang, Zhao & "
                 "Hoi, ICML 2012, is cited for a loss bound, not a mistake bound)")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"variant": "SCW-II", "C": 0.3, "covariance": "full", "fit_intercept": True,
                 "multi_class": "ovr"}]

    def __init__(self, C=1.0, eta=0.75, variant="SCW-I", a=1.0, covariance="diagonal",
                 tie="negative", fit_intercept=False, max_epochs=100, multi_class="multiclass",
                 n_jobs=None, class_weight=None):
        self.C = C
        self.eta = eta
        self.variant = variant
        self.a = a
        self.covariance = covariance
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs
        self.class_weight = class_weight

    def _rule(self):
        return (_SCW1 if self.variant == "SCW-I" else _SCW2), float(self.C), _phi(self.eta)


class NHERD(_Weighted, _SecondOrder):
    __doc__ = """Normal Herd (Crammer & Lee, NIPS 2010, "Learning via Gaussian herding").

    Rule (two classes).  State: the mean w (0) and the covariance Sigma (a I).  Predict by the
    sign of s = w . x.  With m = y s and v = x' Sigma x' > 0: if m < 1::

        alpha = (1 - m) / (v + 1 / C)
        w     = w + (alpha y) Sigma x'
        Sigma = Sigma - ((C^2 v + 2 C) / (1 + C v)^2) (Sigma x')(Sigma x')^T     (full)
        1/Sigma_jj += (C^2 v + 2 C) x_j^2                                        (diagonal)

    The herd of weight vectors all take PA-II's step, and the Gaussian follows them: the
    covariance coefficient is (C^2 v + 2 C) / (1 + C v)^2 (the paper's full update; ports that
    use its square differ).  The diagonal form is the paper's "project" approximation: the
    same increase of the inverse covariance kept on its diagonal.

    Sample weights: a row of weight s has C s in place of C; a row of weight 0 changes
    nothing; ``class_weight`` likewise.

    Mistake bound: none checked by ``certify`` (none could be checked in the paper's text).

    {_COMMON_DOC}

    {_K_DOC}

    Parameters
    ----------
    C : float > 0, default=1.0
        The aggressiveness (LIBOL's default).
    {_A_PARAM}
    {_PARAMS}
    {_CLASS_WEIGHT_PARAM}

    {_ATTRS}

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import NHERD
    >>> nherd = NHERD(C=0.1).partial_fit(X[:30000], y[:30000])
    >>> nherd.mistakes_, nherd.updates_
    (4652, 19101)
    >>> round(nherd.score(X[30000:], y[30000:]), 3)
    0.843
    """.format(**_PIECES)

    _PARAMETERS = {"C": Real(0), "class_weight": _CLASS_WEIGHT}
    _TAGS = tags(no_bound="certify checks none for NHERD (its paper, Crammer & "
                 "Lee, NIPS 2010, states none in its abstract)")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"C": 0.3, "covariance": "full", "fit_intercept": True,
                 "multi_class": "ovr"}]

    def __init__(self, C=1.0, a=1.0, covariance="diagonal", tie="negative",
                 fit_intercept=False, max_epochs=100, multi_class="multiclass", n_jobs=None,
                 class_weight=None):
        self.C = C
        self.a = a
        self.covariance = covariance
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs
        self.class_weight = class_weight

    def _rule(self):
        return _NHERD, float(self.C), 0.0


class _Dual(_SecondOrder):
    """NAROW and SecondOrderPerceptron: theta (the sum of y x' over the updates, 0 at start)
    beside Sigma, and w = Sigma theta (rebuilt after each update); K >= 3 classes: one-vs-rest
    only."""

    _DUAL = True
    _MC_FORM = False
    _PARAMETERS = {"multi_class": Choice(*_MULTI)}
    # no explanation: the score is the row's own f, not w . x' (None marks it for explain)
    _explanation = None  # type: ignore[assignment]


class NAROW(_Dual):
    __doc__ = """NAROW, the narrow adaptive regularisation of weights (Orabona & Crammer, NIPS
    2010, "New adaptive algorithms for online classification").

    Rule (two classes).  State: theta (0), Sigma (a I; the inverse of the paper's A) and
    w = Sigma theta.  For each row, with s = w . x' and chi = x' Sigma x'::

        if b chi > 1:  r = chi / (b chi - 1),  f = (r s) / (chi + r)
        else:          r = infinity,           f = s

    f is the prediction with the row's own term, x'^T (A + x' x'^T / r)^-1 theta; predict by
    its sign.  If y f < 1 (a margin error): theta += y x'; if r is finite, Sigma <- Sigma -
    Sigma x' x'^T Sigma / (r + chi) (full) or 1/Sigma_jj += x_j^2 / r (diagonal); then
    w = Sigma theta.  So theta moves on every margin error and the matrix only when r_t is
    finite (the paper's algorithm; LIBOL's port makes no update at all when r_t is infinite and
    predicts with w . x).  A zero row is treated as the Perceptron treats it (a margin error
    on it is an update that adds 0).  ``decision_function`` is f.

    Mistake bound: none checked by ``certify`` (the paper's could not be checked here).

    {_COMMON_DOC}

    Three classes or more (``classes_`` sorted; argmax ties to the smallest index): one-vs-rest
    only (learner k on +1 iff y is class k, each with its own theta and covariance, diagonal or
    full; the prediction is the argmax of their f); ``multi_class="multiclass"`` is refused
    (the paper gives no single-constraint form).

    ``sample_weight`` is refused (TypeError), and ``fit``'s ``coef_init`` (the state is theta).

    Parameters
    ----------
    b : float > 0, default=1.0
        The paper's b (LIBOL's and DOGMA's default 1).
    {_A_PARAM}
    {_DUAL_PARAMS}

    {_ATTRS}

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import NAROW
    >>> narow = NAROW(b=1.0).partial_fit(X[:30000], y[:30000])
    >>> narow.mistakes_, narow.updates_
    (5026, 9638)
    >>> round(narow.score(X[30000:], y[30000:]), 3)
    0.833
    """.format(**_PIECES)

    _PARAMETERS = {"b": Real(0)}
    _TAGS = tags(no_bound="certify checks none for NAROW yet (its paper, Orabona & "
                 "Crammer, NIPS 2010, proves mistake bounds in a general framework)")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"b": 0.3, "covariance": "full", "fit_intercept": True, "tie": "positive"}]

    def __init__(self, b=1.0, a=1.0, covariance="diagonal", tie="negative",
                 fit_intercept=False, max_epochs=100, multi_class="ovr", n_jobs=None):
        self.b = b
        self.a = a
        self.covariance = covariance
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs

    def _rule(self):
        return _NAROW, float(self.b), 0.0


class SecondOrderPerceptron(_Dual):
    _TAGS = tags(bound="second order perceptron", multi_bound="one-vs-rest")
    __doc__ = """The second-order Perceptron (Cesa-Bianchi, Conconi & Gentile, SIAM J. Comput.
    34(3), 2005, "A second-order Perceptron algorithm").

    Rule (two classes).  State: theta = the sum of y x' over the mistakes (0), the correlation
    matrix A = a I + the sum of x' x'^T over the mistakes, and w = A^-1 theta.  Each row is
    predicted with its own term added, f = x'^T (A + x' x'^T)^-1 theta, by the sign of f.  On a
    mistake only: theta += y x' and A += x' x'^T (correct rows never join the matrix).

    * Full form: Sigma = A^-1 is kept (Sigma_0 = (1/a) I); with u = Sigma x',
      chi = x' Sigma x' and s = w . x', f = s / (1 + chi) (the sign of x'^T A^-1 theta with the
      row's term); on a mistake Sigma <- Sigma - u u^T / (1 + chi) (Sherman-Morrison) and
      w = Sigma theta.
    * Diagonal form (A and x' x'^T each replaced by their diagonal): A's diagonal is kept
      (``covariance_``: a precision, starting at a); f = sum_j theta_j x_j / (A_jj + x_j^2)
      (the intercept's theta_d / (A_dd + 1) last); on a mistake A_jj += x_j^2 and
      w_j = theta_j / A_jj on the row's coordinates.

    ``decision_function`` is f.  A zero row is treated as the Perceptron treats it.

    Mistake bound (the paper's Theorem 1; no separability assumed): for any u and gamma > 0,
    with X_M the matrix of the mistakes' x, lambda_i the eigenvalues of X_M X_M^T and
    D_gamma(u) = sum over the mistakes of max(0, gamma - y u . x),
    M <= D_gamma(u) / gamma + (1 / gamma) sqrt((a ||u||^2 + u^T X_M X_M^T u)
    sum_i ln(1 + lambda_i / a)) (:func:`mbcore.bounds.second_order_perceptron_bound`).
    ``certify`` checks it for ``covariance="full"``; the diagonal form has none.

    ``update="every"``: theta and A take every row, right or wrong: the regularized least
    squares classifier of Vovk, Azoury & Warmuth, which the BBQ selective sampler runs
    (:class:`SelectiveSampler` ``query="bbq"``); the bound above is then not claimed.

    {_COMMON_DOC}

    Three classes or more (``classes_`` sorted; argmax ties to the smallest index): one-vs-rest
    only (learner k on +1 iff y is class k; the prediction is the argmax of their f);
    ``multi_class="multiclass"`` is refused (no single-constraint form in the paper).

    ``sample_weight`` is refused (TypeError), and ``fit``'s ``coef_init`` (the state is theta).

    Parameters
    ----------
    a : float > 0, default=1.0
        The paper's a (A_0 = a I; LIBOL's, DOGMA's and SOL's default 1).
    update : {{"mistakes", "every"}}, default="mistakes"
        The rows the step takes: the paper's mistakes, or every row.
    {_DUAL_PARAMS}

    {_ATTRS}

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import SecondOrderPerceptron
    >>> sop = SecondOrderPerceptron(a=1.0).partial_fit(X[:30000], y[:30000])
    >>> sop.mistakes_ == sop.updates_
    True
    >>> sop.mistakes_, round(sop.score(X[30000:], y[30000:]), 3)
    (6174, 0.788)
    """.format(**_PIECES)

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"a": 0.5, "covariance": "full", "fit_intercept": True, "tie": "positive"}]

    _PARAMETERS = {"update": Choice("mistakes", "every")}

    def __init__(self, a=1.0, covariance="diagonal", tie="negative", fit_intercept=False,
                 max_epochs=100, multi_class="ovr", n_jobs=None, update="mistakes"):
        self.a = a
        self.update = update
        self.covariance = covariance
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs

    def _cov0(self):
        # full: Sigma_0 = (1/a) I; diagonal: A's diagonal, a
        return 1.0 / float(self.a) if self._full() else float(self.a)

    def _rule(self):
        return _SOP, 0.0, 1.0 if self.update == "every" else 0.0


class ALMA(_SecondOrder):
    __doc__ = """ALMA_p, the approximate large margin algorithm (Gentile, JMLR 2, 2001, "A new
    approximate maximal margin classification algorithm"); ALMA_2 by default.

    Rule (two classes, labels y = +-1).  q = p / (p - 1); f is the link function of index q
    (the gradient of ||w||_q^2 / 2) and f^-1 the one of index p.  State: theta = f(w) (0),
    w = f^-1(theta) and k = 1 (one more than the number of updates).  Each row is normalised
    in p-norm, x^ = x' / ||x'||_p (x' = (x, 1) with an intercept); a zero row changes nothing.
    Predict by the sign of s = w . x^.  With gamma_k = B sqrt(p - 1) / sqrt(k), if
    y s <= (1 - alpha) gamma_k::

        eta_k = C / (sqrt(p - 1) sqrt(k))
        theta = theta + eta_k y x^
        theta = theta / max(1, ||theta||_p)        (w / max(1, ||w||_q): the projection)
        w     = f^-1(theta)                          (w = theta for p = 2)
        k     = k + 1

    Defaults (D15 of the project's notes on other ports): the paper proves its bound for
    B = 1 / alpha and C = sqrt(2), the defaults here and river's; it gives no default alpha:
    0.9 is river's (JSAT uses 0.8; DOGMA alpha 0, B 1, C sqrt(2) - 1).  For p > 2 the
    weights live in the dual norm through the link function, as in the paper (LIBOL's ALMA
    only scales ALMA_2's steps by sqrt(p - 1)).  River's ``ALMAClassifier`` differs from the
    paper in three places: it does not normalise x, it divides only the current row's
    coordinates by max(1, ||w||), and its test is strict (<); on rows of unit norm that hold
    every feature the two agree.

    Mistake bound (the paper's Theorem 3, with B = 1 / alpha and C = sqrt(2)): on rows whose
    normalised p-norm margin is gamma, at most 2 (p - 1) / (alpha^2 gamma^2) + 8 / alpha - 4
    corrections (updates; :func:`mbcore.bounds.alma_bound`, which ``certify`` checks; the
    constants are not checked against the paper's text).

    Prediction: +1 iff the score is > 0, or == 0 with ``tie="positive"`` (default "negative",
    river's).  A row whose score or update is not finite raises ValueError naming the row; the
    learner is left as before the call.

    Three classes or more: one-vs-rest (``multi_class="ovr"``, the default; "multiclass" is
    refused: the paper has no K-class form), learner k the binary rule on +1 iff y is class k,
    the prediction the argmax of their scores.

    ``sample_weight`` is refused (TypeError): the paper's update has no weighted form.

    Parameters
    ----------
    p : float >= 2, default=2
    alpha : float in (0, 1], default=0.9
    B : float > 0 or None, default=None
        None is 1 / alpha.
    C : float > 0, default=sqrt(2)
    tie : {{"negative", "positive"}}, default="negative"
    fit_intercept : bool, default=False
    max_epochs : int, default=100
    multi_class : {{"ovr", "multiclass"}}, default="ovr"
    n_jobs : int or None, default=None
        Checked as the linear learners' (the pass runs on one thread).


    Attributes
    ----------
    coef_, intercept_, mistakes_, updates_, n_seen_, classes_, n_features_in_

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import ALMA
    >>> alma = ALMA(alpha=0.9).partial_fit(X[:30000], y[:30000])
    >>> alma.mistakes_, alma.updates_
    (5987, 6613)
    >>> round(alma.score(X[30000:], y[30000:]), 3)
    0.801
    """.format(_EXAMPLE=_EXAMPLE)

    # no explanation: the score is of the p-normalised row (None marks it for explain)
    _explanation = None  # type: ignore[assignment]

    _PARAMETERS = {"p": Real(2, low_inclusive=True), "alpha": Real(0, 1),
                   "B": Real(0, none=True), "C": Real(0), "tie": Choice(*_TIES),
                   "fit_intercept": Flag(), "max_epochs": Integer(1),
                   "multi_class": Choice(*_MULTI), "n_jobs": N_JOBS}
    _FITTED = ("coef_", "intercept_")
    _MC_FORM = False
    _TAGS = tags(bound="alma", multi_bound="one-vs-rest", bound_counts="updates")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"p": 3.0, "alpha": 0.5, "fit_intercept": True, "tie": "positive"}]

    def __init__(self, p=2, alpha=0.9, B=None, C=math.sqrt(2.0), tie="negative",
                 fit_intercept=False, max_epochs=100, multi_class="ovr", n_jobs=None):
        self.p = p
        self.alpha = alpha
        self.B = B
        self.C = C
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs

    covariance = "diagonal"         # (no covariance: the base's checks read this)

    def _full(self):
        return False

    def _cov0(self):
        return 1.0

    def _rule(self):
        raise AssertionError("ALMA has no rule code of so_pass (its kernel is alma_pass)")

    def _B(self):
        return 1.0 / float(self.alpha) if self.B is None else float(self.B)

    @property
    def covariance_(self):
        raise AttributeError("ALMA has no covariance")

    # -- state: w, theta (_T) and k (_k, one per class) -----------------------------------
    def _init_state(self, d, w_init=None):
        super()._init_state(d, w_init)
        K, p = self._K(), float(self.p)
        self._S = np.zeros(0)
        self._ks = np.ones(K)
        if p == 2.0:
            self._T = self._w.copy()
        else:
            D = d + bool(self.fit_intercept)
            self._T = np.empty_like(self._w)
            for c in range(K):
                w = self._w[c * D:(c + 1) * D]
                if w.any():
                    _kso.alma_link(w, p / (p - 1.0), self.fit_intercept,
                                   self._T[c * D:(c + 1) * D])
                else:
                    self._T[c * D:(c + 1) * D] = 0.0

    _STATE = dict(COMMON, _d=INT, _w=arr(F8, 1), _S=arr(F8, 1), _V=arr(F8, 1),
                  _full_fitted=BOOL, _T=arr(F8, 1), _ks=arr(F8, 1))

    def _check_state(self, st):
        o, d, K = self._owner, st["n_features_in_"], self._K()
        labels_and_counts(self, st)
        need(st["_d"] == d, f"{o}: _d != n_features_in_")
        need(not st["_full_fitted"], f"{o}: ALMA has no covariance")
        need(not (K > 1 and self.multi_class == "multiclass"),
             f"{o}: a K-class state of a form this learner refuses")
        D = d + bool(self.fit_intercept)
        shape(self, "_w", (K * D,))
        shape(self, "_T", (K * D,))
        shape(self, "_ks", (K,))
        shape(self, "_S", (0,))
        shape(self, "_V", (0,))
        finite(self, "_w", "_T", "_ks")
        need(bool((st["_ks"] >= 1.0).all()), f"{o}: a correction count below 1")

    def _widened(self, d):
        w, S, V = super()._widened(d)
        K, d0, icpt = self._K(), self._d, bool(self.fit_intercept)
        D0, D1 = d0 + icpt, d + icpt
        T = np.zeros((K, D1))
        T[:, list(range(d0)) + ([d] if icpt else [])] = self._T.reshape(K, D0)
        return w, S, V, T.ravel()

    def _grow_state(self, d):
        self._w, self._S, self._V, self._T = self._widened(d)
        self._d = d

    def _grow_features(self, d):
        old = (self._w, self._S, self._V, self._T, self._d)
        self._grow_state(d)
        self.n_features_in_ = d

        def undo():
            self._w, self._S, self._V, self._T, self._d = old
            self.n_features_in_ = old[4]

        return undo

    # -- the passes -----------------------------------------------------------------------
    def _slot(self, k):
        D = self._d + bool(self.fit_intercept)
        return (self._w[k * D:(k + 1) * D], self._T[k * D:(k + 1) * D], self._ks[k:k + 1])

    def _pass(self, batch, yy, pred, upd):
        self._validate_params()
        if self._K() > 1:                   # (one-vs-rest: "multiclass" is refused at fit)
            self._pass_ovr(batch, yy, pred, upd)
        else:
            status, bad = self._binary(0, batch, yy, pred, upd, None, self._counts,
                                       not batch.checked, *self._slot(0))
            _raise_status(self, batch, status, bad)
        batch.checked = True

    def _binary(self, k, batch, y8, pred, upd, scores, counts, check, w, T, kk, sw=False,
                learn=True):
        """alma_pass of the binary rule on (w, theta, k) over the batch; (status, bad row)."""
        return _kso.alma_pass(float(self.p), float(self.alpha), self._B(), float(self.C),
                              self.fit_intercept, self.tie == "positive", w, T, kk, self._d,
                              counts, batch.arrays, y8, pred, upd, scores, check, learn)

    def _binding(self):
        return _kso.alma_binding(float(self.p), float(self.alpha), self._B(), float(self.C),
                                 self.fit_intercept, self.tie == "positive", self._w, self._T,
                                 self._ks, self._d, self._counts)

    def _class_score(self, k, batch):
        out = np.empty(batch.n)
        w, T, kk = self._slot(k)
        y8 = np.ones(batch.n, dtype=np.int8)
        st = self._binary(k, batch, y8, None, None, out, np.zeros(3, dtype=np.int64), False,
                          w, T, kk, learn=False)
        return out, st
