"""The kernel Perceptron, literally from the rules stated in mbcore.kernel (pure Python, the
specification; see ``mbref.linear`` for the conventions it shares with the linear learners).
``mbref.linear`` imports it too, as before."""

import math
import numbers

from . import _arith
from ._additive import _TIES, _argmax, _check_choice, _check_int, _check_real
from .base import ManyClasses, OnlineLearner, check_class_weight, check_rows, row_weights

__all__ = ["KernelPerceptron"]

_MAX_DEGREE = 2 ** 31 - 1     # the polynomial degree is a C int in mbcore's kernels
_MAX_BUDGET = 2 ** 62         # the budget is a C Py_ssize_t in mbcore's kernels


class KernelPerceptron(ManyClasses, OnlineLearner):
    """The kernelised Perceptron (twin of mbcore.KernelPerceptron).

    Two classes: the binary rule, whatever ``multi_class``.  Three classes or more (labels are
    class indices of the sorted ``classes_``; the argmax is the smallest index among the largest
    scores):

    * ``multi_class="multiclass"`` (Kesler's construction in feature space; Crammer & Singer
      2003): each slot s holds a support vector z_s and a coefficient row a_s (K floats);
      ``f_k = 0.0``, then for each slot in order ``kv = K(x, z_s)`` (once per slot) and
      ``f_k = f_k + a_s[k] * kv`` for k = 0..K-1.  On a mistake (yhat != y) the row becomes a
      slot with +1.0 at y, -1.0 at yhat and 0.0 elsewhere (appended, or with a budget replacing
      the oldest slot, the binary ring).  ``updates_ == mistakes_``.
    * ``multi_class="ovr"``: K binary kernel perceptrons (learner k on +1 iff y == k), each with
      its own support vectors, coefficients +-1 and budget ring; the scores come from the states
      before the row; yhat = argmax_k f_k; a row counts as an update when a learner updated.

    ``budget=B``: a mistake with B slots held overwrites the oldest slot (a ring), and nothing
    else changes; no mistake bound survives that.  The budget kernel Perceptrons with
    guarantees are in ``mbref.budget`` (compiled: ``mbcore.Forgetron``,
    ``mbcore.RandomizedBudgetPerceptron``, ``mbcore.Projectron``, ``mbcore.ProjectronPP``,
    ``mbcore.BPA_S``, ``mbcore.Stoptron``): the self-tuned Forgetron (which shrinks every
    coefficient before it forgets the oldest, and has a mistake bound), the Projectron and
    Projectron++ (a mistake bound through eta), the Randomized Budget Perceptron (a bound in
    expectation), beside BPA-S and the Stoptron.
    """

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

    # sample weights: a mistake on a row of weight s stores it with the coefficient y * s
    # (s = 0: the mistake is counted, nothing is stored)
    _WEIGHTED = True

    def _row_weights(self, sample_weight, yy, n, fitting):
        return row_weights(self, sample_weight, yy, n, fitting)

    def _validate_params(self):
        o = self._owner
        _check_choice(o, "kernel", self.kernel, ("linear", "poly", "rbf"))
        _check_choice(o, "tie", self.tie, _TIES)
        d = self.degree
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or not 1 <= d <= _MAX_DEGREE:
            raise ValueError(f"{o}: parameter degree must be an integer in [1, {_MAX_DEGREE}], "
                             f"got {d!r}")
        _check_int(o, "max_epochs", self.max_epochs, 1)
        g = self.gamma
        if g is not None and not (isinstance(g, numbers.Real) and not isinstance(g, bool)
                                  and math.isfinite(float(g)) and g > 0):
            raise ValueError(f"{o}: parameter gamma must be a finite real > 0 or None, got {g!r}")
        _check_real(o, "coef0", self.coef0)
        b = self.budget
        if b is not None and (isinstance(b, bool) or not isinstance(b, numbers.Integral)
                              or not 1 <= b <= _MAX_BUDGET):
            raise ValueError(f"{o}: parameter budget must be None or an integer in [1, "
                             f"{_MAX_BUDGET}], got {b!r}")
        if getattr(self, "_sv", None) is not None:
            if self.budget != self._budget_fitted:
                raise ValueError(f"{o}: parameter budget was changed to {self.budget!r} after "
                                 "fitting; call fit, or clone the learner, to start again "
                                 "with it")
            self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / self._d
        _check_choice(o, "multi_class", self.multi_class, ("multiclass", "ovr"))
        check_class_weight(o, "class_weight", self.class_weight)
        if self._multi() and self.multi_class != self._mc_fitted:
            # the state of K >= 3 classes is laid out for the strategy it was fitted with
            raise ValueError(f"{o}: parameter multi_class was changed to {self.multi_class!r} "
                             "after fitting; call fit, or clone the learner, to start again "
                             "with it")

    def _init_state(self, d):
        self._d = d
        self._K = len(self.classes_)
        self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / d
        self._budget_fitted = self.budget
        if self._K > 2 and self.multi_class == "ovr":
            # learner k: its support vectors, their squared norms, its coefficients, its head
            self._mc_fitted = "ovr"
            self._sv = [[] for _ in range(self._K)]
            self._svn = [[] for _ in range(self._K)]
            self._coef = [[] for _ in range(self._K)]
            self._head = [0] * self._K
            return
        # two classes, or "multiclass" (then each coefficient is a row of K floats)
        self._mc_fitted = self.multi_class
        self._sv = []
        self._svn = []
        self._coef = []
        self._head = 0

    def _state_dict(self):
        return {"sv": self._sv, "svn": self._svn, "coef": self._coef, "head": self._head}

    def _load_state_dict(self, s):
        self._sv, self._svn, self._coef, self._head = s["sv"], s["svn"], s["coef"], s["head"]

    def _prepare(self, X, y, classes, check_values=True):
        return super()._prepare(X, y, classes, check_values=True)

    def _k(self, x, z, zz):
        if self.kernel == "linear":
            return _arith.dot(z, x)
        if self.kernel == "poly":
            base = self.gamma_ * _arith.dot(z, x) + float(self.coef0)
            r = base
            for _ in range(self.degree - 1):
                r = r * base
            return r
        return math.exp(-self.gamma_ * _arith.sqdist(x, z, zz))

    def _score_of(self, sv, svn, coef, x):
        """The binary score sum_s c_s K(x, z_s) of one learner's slots, in slot order."""
        f = 0.0
        for z, zz, c in zip(sv, svn, coef):
            f = f + c * self._k(x, z, zz)
        return f

    def _score(self, x):
        return self._score_of(self._sv, self._svn, self._coef, x)

    def _dense(self, x, i):
        """The row as a stored support vector (a dense list) and its squared norm; a squared
        norm that overflows is a bad row i."""
        if isinstance(x, tuple):
            z = [0.0] * self._d
            for j, v in zip(*x):
                z[j] = v
        else:
            z = list(x)
        zz = _arith.dense_sumsq(z, self._d)
        if not math.isfinite(zz):         # a support vector whose squared norm overflows
            raise self._row_error(i)
        return z, zz

    def _store(self, sv, svn, coef, head, z, zz, c):
        """Append the slot (z, zz, c), or with a full budget replace the slot at head (the
        oldest); returns the new head."""
        if self.budget is not None and len(sv) == self.budget:
            sv[head], svn[head], coef[head] = z, zz, c
            return (head + 1) % self.budget
        sv.append(z)
        svn.append(zz)
        coef.append(c)
        return head

    def _step(self, x, y, i):
        if self._multi():
            if self.multi_class == "ovr":
                return self._step_ovr(x, y, i)
            return self._step_mc(x, y, i)
        s = self._score(x)
        if not math.isfinite(s):
            raise self._row_error(i)
        p = self._sign(s)
        if p == y or self._weight(i) == 0.0:
            return p, False
        z, zz = self._dense(x, i)
        self._head = self._store(self._sv, self._svn, self._coef, self._head, z, zz,
                                 float(y) * self._weight(i))
        return p, True

    # -- three classes or more ------------------------------------------------------------
    def _class_scores(self, x):
        """f_k, k = 0..K-1, of the rule of multi_class (no state change)."""
        if self.multi_class == "ovr":
            return [self._score_of(self._sv[k], self._svn[k], self._coef[k], x)
                    for k in range(self._K)]
        f = [0.0] * self._K
        for z, zz, a in zip(self._sv, self._svn, self._coef):
            kv = self._k(x, z, zz)
            for k in range(self._K):
                f[k] = f[k] + a[k] * kv
        return f

    def _step_mc(self, x, y, i):
        """Kesler: yhat = argmax_k f_k; on a mistake the row becomes a slot with the
        coefficient row +1.0 at y, -1.0 at yhat, 0.0 elsewhere."""
        f = self._class_scores(x)
        if not all(math.isfinite(v) for v in f):
            raise self._row_error(i)
        p = _argmax(f)
        if p == y or self._weight(i) == 0.0:
            return p, False
        z, zz = self._dense(x, i)
        a = [0.0] * self._K
        a[y] = 1.0 * self._weight(i)
        a[p] = -1.0 * self._weight(i)
        self._head = self._store(self._sv, self._svn, self._coef, self._head, z, zz, a)
        return p, True

    def _step_ovr(self, x, y, i):
        """One-vs-rest: learner k is the binary kernel perceptron on y_k = +1 iff y == k (its
        tie rule, its update, its ring); yhat = argmax_k f_k of the states before the row."""
        f = self._class_scores(x)
        if not all(math.isfinite(v) for v in f):
            raise self._row_error(i)
        p = _argmax(f)
        updated = False
        z = zz = None
        for k in range(self._K):
            yk = 1 if y == k else -1
            if self._sign(f[k]) == yk or self._weight(i) == 0.0:
                continue
            if z is None:
                z, zz = self._dense(x, i)
            # each learner stores its own copy of the row
            self._head[k] = self._store(self._sv[k], self._svn[k], self._coef[k],
                                        self._head[k], list(z), zz,
                                        float(yk) * self._weight(i))
            updated = True
        return p, updated

    def _scores(self, X):
        from .base import check_finite, check_rows
        self._check_fitted("predict")
        self._validate_params()
        rows, _ = check_rows(self._owner, X, self.n_features_in_)
        check_finite(self._owner, rows)
        out = []
        for i, x in enumerate(rows):
            s = self._class_scores(x) if self._multi() else self._score(x)
            if not all(math.isfinite(v) for v in (s if self._multi() else [s])):
                raise ValueError(f"{self._owner}: overflow in row {i} (the score is not finite)")
            out.append(s)
        return out

    def decision_function(self, X):
        """The real-valued score of each row; with K >= 3 classes, the K scores f_k of each row
        (no state change)."""
        return self._scores(X)

    def predict(self, X):
        """The predicted label of each row; with K >= 3 classes, classes_[argmax_k f_k] (no
        state change)."""
        if not self._multi():
            return super().predict(X)
        return [self.classes_[_argmax(s)] for s in self._scores(X)]

    @property
    def support_vectors_(self):
        """In slot order; with "ovr" (K >= 3), one list per learner."""
        self._check_fitted("support_vectors_")
        if self._multi() and self._mc_fitted == "ovr":
            return [[list(z) for z in sv] for sv in self._sv]
        return [list(z) for z in self._sv]

    @property
    def dual_coef_(self):
        """The labels +-1 of the support vectors; with "multiclass" (K >= 3) the coefficient
        rows (n_support, K); with "ovr" one list of +-1 per learner."""
        self._check_fitted("dual_coef_")
        if self._multi():
            return [list(c) for c in self._coef]
        return list(self._coef)

    @property
    def n_support_(self):
        """An int; with "ovr" (K >= 3) one int per learner."""
        self._check_fitted("n_support_")
        if self._multi() and self._mc_fitted == "ovr":
            return [len(sv) for sv in self._sv]
        return len(self._sv)
