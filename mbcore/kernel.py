"""The kernel Perceptron (additive family): the Perceptron in the feature space of a kernel,
binary and, for three classes or more, Kesler's construction or one-vs-rest.

The class validates once in Python, then one compiled kernel (``mbcore._kernels.kernel``) does the
whole pass with the GIL released.  Its pure-Python twin, with the same name, is in
``mbref.kernel``; the two agree bit for bit.  ``mbcore.linear`` imports it too (its home before
0.2), so old imports and pickles keep working.
"""

import numpy as np

from ._additive import (_CLASS_WEIGHT, _EXAMPLE_DATA, _MULTI, _TIES, _raise_status,
                        _row_weights)
from ._kernels import kernel as _kk
from ._params import Choice, Integer, Real
from ._validation import check_finite, row_error
from ._state import (COMMON, F8, FLOAT, I8, INT, arr, budget, finite, labels_and_counts, need,
                     shape)
from ._tags import tags
from .base import ManyClasses, OnlineLearner

__all__ = ["KernelPerceptron"]

_KERNELS = {"linear": 0, "poly": 1, "rbf": 2}
_MAX_DEGREE = 2 ** 31 - 1     # the polynomial degree is a C int in the kernels
_MAX_BUDGET = 2 ** 62         # the budget is a C Py_ssize_t (and far beyond any memory)


class KernelPerceptron(ManyClasses, OnlineLearner):
    __doc__ = """The kernel Perceptron: the Perceptron in the feature space of a kernel.

    Update rule (Kakade CSE 546 lecture 9: "the algorithm can be kernelized"):
    f(x) = Σ_{i∈S} y_i K(x_i, x); predict +1 iff f(x) > 0 (tie rule as the Perceptron); on a
    mistake append (x, y) to S.  Kernels: linear x·z, polynomial (γ x·z + c₀)^degree,
    RBF exp(−γ‖x − z‖²).

    Mistake bound: the Perceptron's, in the feature space: (R/γ)² with R² = max_t K(x_t, x_t)
    and γ the margin of a unit-norm separator in that space (Novikoff; Kakade).

    Budget (beyond the notes): with ``budget=B`` at most B support vectors are kept; a new one
    overwrites the oldest (ring order) and nothing else changes.  No mistake bound survives
    that rule: the budget algorithms with guarantees are other learners, in ``mbcore.budget``:
    :class:`Forgetron` (Dekel, Shalev-Shwartz & Singer 2008: it shrinks the old coefficients
    before it forgets), :class:`RandomizedBudgetPerceptron` (a bound in expectation),
    :class:`Projectron` and :class:`ProjectronPP` (they project instead of adding), beside
    :class:`BPA_S` and :class:`Stoptron`.

    More than two classes (K >= 3; ``classes_`` sorted; ties to the smallest class index):

    * ``multi_class="multiclass"`` (the default): Kesler's construction in the feature space
      (Crammer & Singer 2003): each support vector carries a row of K coefficients,
      f_k(x) = Σ_{i∈S} a_{i,k} K(x_i, x) (each kernel value computed once, summed in slot
      order); predict argmax_k f_k; on a mistake store x with +1 for its class and −1 for the
      predicted one.  Bound: 2R²/γ² with R² = max K(x, x) and γ the multi-class margin of a
      unit-norm separator in feature space (no budget).
    * ``multi_class="ovr"``: K binary kernel Perceptrons, learner k on (y = class k), each with
      its own support vectors (and budget ring); predict the class of the largest f_k.
      Guarantee: the sum of the K binary bounds.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf"}, default="rbf"
    degree : int, default=3
    gamma : float or None, default=None
        None means 1/n_features (``gamma_`` holds the value used).
    coef0 : float, default=1.0
    budget : int or None, default=None
    tie : {"negative", "positive"}, default="negative"
    max_epochs : int, default=100
    multi_class : {"multiclass", "ovr"}, default="multiclass"
        The rule for three classes or more (two classes always take the binary rule).
    class_weight : dict, "balanced" or None, default=None
        As for :class:`Perceptron`.  A mistake on a row of sample weight s stores it with the
        coefficient y·s (multi-class: +s for its class, −s for the predicted one); a row of
        weight 0 is never stored.

    Attributes
    ----------
    support_vectors_ : ndarray of shape (n_support, n_features)
        In slot order (one-vs-rest with K >= 3 classes: a list of K such arrays, learner k's).
    dual_coef_ : ndarray of shape (n_support,)
        The labels ±1 of the support vectors (K >= 3 classes: shape (n_support, K), the
        coefficient rows; one-vs-rest: a list of K arrays of ±1).
    n_support_ : int (one-vs-rest with K >= 3 classes: a list of K ints)
    gamma_ : float

    Notes
    -----
    f(x) sums the support vectors in slot order; ‖x − z‖² is summed in the four-partial-sum
    order for dense rows and computed as (‖x‖² + ‖z‖²) − 2x·z (clipped at 0) for sparse rows.

    The pass runs on one thread (there is no ``n_jobs``).

    Examples
    --------
    {_EXAMPLE_DATA}
    >>> from mbcore import KernelPerceptron
    >>> kp = KernelPerceptron(kernel="poly", degree=2).partial_fit(X[::2], y[::2])
    >>> kp.n_support_ == kp.mistakes_
    True
    >>> bool(kp.score(X[1::2], y[1::2]) > 0.9)
    True

    Ten classes (the bundled MNIST digits): one support vector per mistake, with a row of ten
    coefficients.

    >>> from mbcore.datasets import load_mnist
    >>> Xd, yd = load_mnist()
    >>> kp10 = KernelPerceptron(kernel="poly", degree=2).partial_fit(Xd[::2], yd[::2])
    >>> kp10.mistakes_, kp10.dual_coef_.shape, round(kp10.score(Xd[1::2], yd[1::2]), 3)
    (328, (328, 10), 0.662)
    """.replace("{_EXAMPLE_DATA}", _EXAMPLE_DATA.strip("\n").lstrip())

    _sk_sparse = True
    _sk_multiclass = True
    # (added after 0.1.0: files of 0.1.0 lack them)
    _NEW_PARAMS = frozenset(("multi_class", "class_weight"))

    def _row_weights(self, sample_weight, yy, n, fitting):
        return _row_weights(self, sample_weight, yy, n, fitting)

    _TAGS = tags(takes="features", weighted=True, no_weights=None,
                 needs_width="its default RBF gamma is 1/n and its support vectors are n wide",
                 no_mix=("its state is a set of support vectors: mixing would join the sets of "
                         "every shard, growing with shards x epochs"),
                 bound="kernel perceptron", multi_bound="multiclass kernel")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"kernel": "poly", "degree": 2}, {"kernel": "rbf", "budget": 5}]

    # for the tests (tests/_cases.py): NotFittedError before fit; exact on small integer data
    _FITTED = ("support_vectors_", "dual_coef_", "n_support_")
    _INTEGER_EXACT = True

    def __init__(self, kernel="rbf", degree=3, gamma=None, coef0=1.0, budget=None,
                 tie="negative", max_epochs=100, multi_class="multiclass", class_weight=None):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.budget = budget
        self.tie = tie
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.class_weight = class_weight

    # -- classes: two (the binary rule), or K >= 3 --------------------------------------------
    # "multiclass": the support vectors carry a row of K coefficients (_coef, flat, cap x K);
    # "ovr": K binary learners, learner k's slots at rows [k cap, (k + 1) cap) of _sv (and of
    # _svn, _coef), its [n_sv, head] at _meta[2k : 2k + 2].
    def _ovr_layout(self):
        return self._K() > 1 and self.__dict__["_meta"].shape[0] == 2 * self._K()

    _PARAMETERS = {"kernel": Choice(*_KERNELS), "degree": Integer(1, _MAX_DEGREE),
                   "gamma": Real(0, none=True), "coef0": Real(),
                   "budget": Integer(1, _MAX_BUDGET, none=True,
                                     what=f"None or an integer in [1, {_MAX_BUDGET}]"), "tie": Choice(*_TIES),
                   "max_epochs": Integer(1), "multi_class": Choice(*_MULTI),
                   "class_weight": _CLASS_WEIGHT}

    def _validate_params(self):
        super()._validate_params()
        o = self._owner
        meta = self.__dict__.get("_meta")
        if meta is not None:
            if self.budget != self._budget_fitted:
                raise ValueError(f"{o}: parameter budget was changed to {self.budget!r} after "
                                 "fitting; call fit, or clone the learner, to start again "
                                 "with it")
            self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / self._d
        if meta is not None and self._K() > 1 and \
                self._ovr_layout() != (self.multi_class == "ovr"):
            raise ValueError(f"{o}: parameter multi_class was changed to {self.multi_class!r} "
                             "after fitting; call fit, or clone the learner, to start again "
                             "with it")

    def _init_state(self, d):
        self._d = d
        self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / d
        cap = 16 if self.budget is None else min(16, int(self.budget))
        K = self._K()
        m = K if K > 1 and self.multi_class == "ovr" else 1     # binary learners kept
        self._sv = np.zeros((m * cap, d))
        self._svn = np.zeros(m * cap)
        self._coef = np.zeros(cap * K if m == 1 else m * cap)
        self._meta = np.zeros(2 * m, dtype=np.int64)  # n_sv, head (per binary learner)
        self._budget_fitted = self.budget

    # -- persistent state --------------------------------------------------------------------
    _STATE = dict(COMMON, _d=INT, gamma_=FLOAT, _sv=arr(F8, 2), _svn=arr(F8, 1),
                  _coef=arr(F8, 1), _meta=arr(I8, 1), _budget_fitted=budget)

    def _check_state(self, st):
        o, d = self._owner, st["n_features_in_"]
        K = self._K()
        labels_and_counts(self, st)
        need(st["_d"] == d, f"{o}: _d != n_features_in_")
        m = K if K > 1 and self.multi_class == "ovr" else 1     # binary learners kept
        sv = st["_sv"]
        cap = sv.shape[0] // m
        need(cap >= 1 and sv.shape[0] == m * cap and sv.shape[1] == d,
             f"{o}: _sv has shape {sv.shape}")
        shape(self, "_svn", (m * cap,))
        shape(self, "_coef", (cap * K if m == 1 else m * cap,))
        shape(self, "_meta", (2 * m,))
        finite(self, "_sv", "_svn", "_coef")
        b = self.budget
        need(st["_budget_fitted"] == b, f"{o}: the budget fitted differs from the parameter")
        for k in range(m):
            n_sv, head = (int(v) for v in st["_meta"][2 * k:2 * k + 2])
            need(0 <= n_sv <= cap, f"{o}: {n_sv} support vectors in {cap} slots")
            if b is None:
                need(head == 0, f"{o}: ring position {head} without a budget")
            else:
                need(cap <= b and (head == 0 if n_sv < b else 0 <= head < cap),
                     f"{o}: ring position {head} with {n_sv} of {b} slots")


    def _kargs(self):
        return (_KERNELS[self.kernel], int(self.degree), self.tie == "positive",
                float(self.gamma_), float(self.coef0))

    def _grow(self):
        m = self._meta.shape[0] // 2                  # binary learners kept (ovr: K)
        cap = self._sv.shape[0] // m
        new = 2 * cap if self.budget is None else min(2 * cap, int(self.budget))
        sv = np.zeros((m, new, self._d))
        sv[:, :cap] = self._sv.reshape(m, cap, self._d)
        self._sv = sv.reshape(m * new, self._d)
        svn = np.zeros((m, new))
        svn[:, :cap] = self._svn.reshape(m, cap)
        self._svn = svn.ravel()
        c = self._coef.shape[0] // (m * cap)          # coefficients per slot (multiclass: K)
        coef = np.zeros((m, new * c))
        coef[:, :cap * c] = self._coef.reshape(m, cap * c)
        self._coef = coef.ravel()

    def _pass(self, batch, yy, pred, upd):
        self._validate_params()
        check_finite(self._owner, batch)
        if self._K() > 1:
            return self._pass_k(batch, yy, pred, upd)
        n_sv0 = int(self._meta[0])
        meta0, counts0 = self._meta.copy(), self._counts.copy()
        # Appends are undone by restoring n_sv; a budget may overwrite slots, so save them.
        saved = (self._sv[:n_sv0].copy(), self._svn[:n_sv0].copy(),
                 self._coef[:n_sv0].copy()) if self.budget is not None else None
        if pred is None:
            pred = np.empty(batch.n, dtype=np.int8)
        if upd is None:
            upd = np.empty(batch.n, dtype=np.uint8)
        budget = -1 if self.budget is None else int(self.budget)
        start = 0
        while True:
            status, row = _kk.kp_pass(*self._kargs(), self._sv, self._svn, self._coef,
                                      self._meta, budget, self._counts, batch.arrays, start, yy,
                                      pred, upd, None, batch.sw)
            if status == 2:
                self._grow()
                start = row
                continue
            break
        if status:
            self._meta[:] = meta0
            self._counts[:] = counts0
            if saved is not None:
                self._sv[:n_sv0], self._svn[:n_sv0], self._coef[:n_sv0] = saved
            raise row_error(self._owner, batch, row, hint=self._OVERFLOW_HINT)

    def _pass_k(self, batch, yy, pred, upd):
        """K >= 3 classes (the state is put back by the caller's Snapshot on failure)."""
        budget = -1 if self.budget is None else int(self.budget)
        if pred is None:
            pred = np.empty(batch.n, dtype=np.int32)
        if upd is None:
            upd = np.empty(batch.n, dtype=np.uint8)
        kind, degree, tie, gamma, coef0 = self._kargs()
        if not self._ovr_layout():
            start = 0
            while True:
                cap = self._sv.shape[0]
                A = self._coef.reshape(cap, self._K())
                status, row = _kk.kpm_pass(kind, degree, gamma, coef0, self._sv, self._svn, A,
                                           self._meta, budget, self._counts, batch.arrays, start,
                                           yy, pred, upd, batch.sw)
                if status != 2:
                    break
                self._grow()
                start = row
            if status:
                raise row_error(self._owner, batch, row, hint=self._OVERFLOW_HINT)
            return
        # one-vs-rest: the K binary learners are independent, so each runs its whole pass in
        # turn; the rows' class scores are kept, and the prediction is their argmax.  A row
        # that fails for learner k fails the pass at the first such row of any learner.
        K, n = self._K(), batch.n
        F = np.zeros((n, K))
        U = np.zeros((K, n), dtype=np.uint8)
        p8 = np.empty(n, dtype=np.int8)
        limit = n
        sw = batch.sw
        for k in range(K):
            yk = np.where(yy == k, 1, -1).astype(np.int8)
            counts = np.zeros(3, dtype=np.int64)
            f = np.zeros(n)
            start = 0
            while True:
                cap = self._sv.shape[0] // K
                sv, svn = self._sv[k * cap:(k + 1) * cap], self._svn[k * cap:(k + 1) * cap]
                coef, meta = self._coef[k * cap:(k + 1) * cap], self._meta[2 * k:2 * k + 2]
                sub = batch.rows(0, limit) if limit < n else batch
                status, row = _kk.kp_pass(kind, degree, tie, gamma, coef0, sv, svn, coef, meta,
                                          budget, counts, sub.arrays, start, yk[:limit],
                                          p8[:limit], U[k, :limit], f[:limit], sub.sw)
                if status != 2:
                    break
                self._grow()
                start = row
            if status:
                limit = row           # (the rows before it: every other learner is checked)
            F[:, k] = f
        if limit < n:
            raise row_error(self._owner, batch, limit, hint=self._OVERFLOW_HINT)
        pred[:] = np.argmax(F, axis=1)
        np.bitwise_or.reduce(U, axis=0, out=upd)
        self._counts[0] += n
        self._counts[1] += int(np.count_nonzero(pred != yy))
        self._counts[2] += int(np.count_nonzero(upd))

    def _scores(self, batch):
        self._validate_params()
        check_finite(self._owner, batch)
        K = self._K()
        if K > 1:
            return self._scores_k(batch)
        out = np.empty(batch.n)
        kind, degree, _, gamma, coef0 = self._kargs()
        n_sv = int(self._meta[0])
        status, bad = _kk.kp_scores(kind, degree, gamma, coef0, self._sv, self._svn,
                                    self._coef, n_sv, batch.arrays, out)
        _raise_status(self, batch, status, bad)
        return out

    def _predict_flags(self, batch):
        if self._K() > 1:      # the class indices (np.argmax: ties -> the smallest index)
            return np.argmax(self._scores(batch), axis=1)
        return super()._predict_flags(batch)

    def _scores_k(self, batch):
        K = self._K()
        kind, degree, _, gamma, coef0 = self._kargs()
        out = np.empty((batch.n, K))
        if not self._ovr_layout():
            cap = self._sv.shape[0]
            A = self._coef.reshape(cap, K)
            n_sv = int(self._meta[0])
            status, bad = _kk.kpm_scores(kind, degree, gamma, coef0, self._sv, self._svn, A,
                                         n_sv, batch.arrays, out)
            _raise_status(self, batch, status, bad)
            return out
        first = (0, -1)
        for k in range(K):
            sv, svn, coef, n_sv = self._slots(k)
            col = np.empty(batch.n)
            status, bad = _kk.kp_scores(kind, degree, gamma, coef0, sv, svn, coef, n_sv,
                                        batch.arrays, col)
            if status and (first[0] == 0 or bad < first[1]):
                first = (status, bad)
            out[:, k] = col
        _raise_status(self, batch, *first)
        return out

    def _slots(self, k):
        """Binary learner k's (sv, svn, coef, n_sv) of the one-vs-rest layout."""
        cap = self._sv.shape[0] // self._K()
        return (self._sv[k * cap:(k + 1) * cap], self._svn[k * cap:(k + 1) * cap],
                self._coef[k * cap:(k + 1) * cap], int(self._meta[2 * k]))

    def _per_learner(self, what):
        """The one-vs-rest learners' support vectors (what=0) or labels (what=1), a list."""
        out = []
        for k in range(self._K()):
            sv, _, coef, n_sv = self._slots(k)
            out.append((sv if what == 0 else coef)[:n_sv].copy())
        return out

    @property
    def support_vectors_(self):
        """The stored examples, in slot order (one-vs-rest with K >= 3 classes: a list of K
        arrays, learner k's)."""
        self._check_fitted("support_vectors_")
        if self._K() > 1 and self._ovr_layout():
            return self._per_learner(0)
        return self._sv[:int(self._meta[0])]

    @property
    def dual_coef_(self):
        """The label (±1) of each support vector; with K >= 3 classes the coefficient rows,
        shape ``(n_support_, K)`` (one-vs-rest: a list of K arrays of ±1, learner k's)."""
        self._check_fitted("dual_coef_")
        K = self._K()
        if K > 1 and self._ovr_layout():
            return self._per_learner(1)
        if K > 1:
            return self._coef.reshape(-1, K)[:int(self._meta[0])]
        return self._coef[:int(self._meta[0])]

    @property
    def n_support_(self):
        """The number of support vectors kept (one-vs-rest with K >= 3 classes: a list of K
        counts)."""
        self._check_fitted("n_support_")
        if self._K() > 1 and self._ovr_layout():
            return [int(self._meta[2 * k]) for k in range(self._K())]
        return int(self._meta[0])
