"""The budget kernel Perceptrons: kernel Perceptrons whose memory is bounded.

The Stoptron, the Randomized Budget Perceptron (Cavallanti, Cesa-Bianchi & Gentile 2007), the
self-tuned Forgetron (Dekel, Shalev-Shwartz & Singer 2008), the Projectron and Projectron++
(Orabona, Keshet & Caputo 2009) and BPA-S (Wang & Vucetic 2010).  Each class validates once in
Python, then one compiled kernel (``mbcore._kernels.budget``) does the whole pass with the GIL
released.  The pure-Python twins, with the same names, are in ``mbref.budget`` (the
specification); the two agree bit for bit.  The kernels are ``KernelPerceptron``'s.

Conventions shared by every class here: a learner holds slots (a support vector z_s, its
squared norm, its self-kernel value K(z_s, z_s) and its coefficient a_s); the score of a row x
is f(x) = sum_s a_s K(x, z_s) summed in slot order; the prediction is +1 iff f > 0 (f = 0: the
``tie`` rule).  An eviction replaces the evicted slot in place.  ``updates_`` counts the rows on
which the state changed.  No sample weights (the papers have no weighted form of these rules).
Three classes or more: one-vs-rest (learner k on y_k = +1 iff y == class k, its own slots and
extras; the K scores come from the states before the row; the prediction is the smallest k
among the largest scores; then each learner k = 0..K-1 takes the row with its rule).
"""

from typing import Tuple

import numpy as np

from ._additive import _TIES, _raise_status
from ._kernels import budget as _bk
from ._params import Choice, Integer, Real
from ._state import (COMMON, F8, FLOAT, I8, INT, U8, arr, budget, finite, labels_and_counts,
                     need, shape)
from ._tags import tags
from ._validation import check_finite, row_error
from .base import ManyClasses, OnlineLearner

__all__ = ["Stoptron", "RandomizedBudgetPerceptron", "Forgetron", "Projectron", "ProjectronPP",
           "BPA_S"]

_KERNELS = {"linear": 0, "poly": 1, "rbf": 2}
_MAX_DEGREE = 2 ** 31 - 1     # the polynomial degree is a C int in the kernels
_MAX_BUDGET = 2 ** 62         # the budget is a C Py_ssize_t (and far beyond any memory)
_MASK = (1 << 64) - 1

_EXAMPLE = """
    >>> from mbcore.datasets import load_a9a
    >>> X, y = load_a9a()
    >>> X, y = X[:1000], y[:1000]          # the first 1,000 rows of a9a (123 binary features)"""


def _kernel_params(cls_budget):
    return {"budget": cls_budget, "kernel": Choice(*_KERNELS), "degree": Integer(1, _MAX_DEGREE),
            "gamma": Real(0, none=True), "coef0": Real(), "tie": Choice(*_TIES),
            "max_epochs": Integer(1)}


_BUDGET = Integer(1, _MAX_BUDGET)
_BUDGET_OR_NONE = Integer(1, _MAX_BUDGET, none=True,
                          what=f"None or an integer in [1, {_MAX_BUDGET}]")


def _fitted_value(v):
    """A parameter as the state keeps it (ints and floats as Python's, None and str as they
    are)."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return int(v)
    return float(v)


def _fitted_kernel(v):
    """The Projectrons' fitted kernel parameters: [kernel, degree, gamma, coef0]."""
    if not (isinstance(v, list) and len(v) == 4 and type(v[0]) is str and type(v[1]) is int
            and (v[2] is None or type(v[2]) in (int, float)) and type(v[3]) in (int, float)):
        return "is not [kernel, degree, gamma, coef0]"
    return None


class _BudgetKernel(ManyClasses, OnlineLearner):
    """What the budget kernel Perceptrons share: kernel parameters, slots, scores, one-vs-rest
    (the state of m binary learners, m = 1 for two classes and K for K >= 3 classes, of cap
    slots each: learner k's at rows [k cap, (k + 1) cap) of ``_sv``, ``_svn``, ``_kd``,
    ``_coef``; ``_meta[3k:3k+3]`` = [slots held, ring position, mistakes])."""

    _RULE = -1
    _EXTRA = ()                   # the rule's own state arrays, beside the slots
    _REFIT_PARAMS: Tuple[str, ...] = ()   # parameters whose change after fitting is refused

    _TAGS = tags(takes="features", weighted=False,
                 no_weights="the papers of the budget kernel Perceptrons give no weighted form "
                            "of them",
                 needs_width="its default RBF gamma is 1/n and its support vectors are n wide",
                 no_mix=("its state is a set of at most budget support vectors: mixing would "
                         "join the sets of every shard, beyond the budget"))

    _sk_sparse = True
    _sk_multiclass = True
    _FITTED = ("support_vectors_", "dual_coef_", "n_support_")
    _INTEGER_EXACT = False

    _PARAMETERS = _kernel_params(_BUDGET)

    # -- parameters ------------------------------------------------------------------------
    def _validate_params(self):
        super()._validate_params()
        o = self._owner
        if self.__dict__.get("_meta") is not None:
            for name in ("budget",) + self._REFIT_PARAMS:
                if getattr(self, name) != self._fitted_param(name):
                    raise ValueError(f"{o}: parameter {name} was changed to "
                                     f"{getattr(self, name)!r} after fitting; call fit, or "
                                     "clone the learner, to start again with it")
            self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / self._d

    def _fitted_param(self, name):
        if name == "budget":
            return self._budget_fitted
        return self._kernel_fitted[("kernel", "degree", "gamma", "coef0").index(name)]

    def _rule_args(self):
        """(eta, C) for the kernel (the rules that have none pass 0.0 and 1.0)."""
        return 0.0, 1.0

    # -- state -----------------------------------------------------------------------------
    def _init_state(self, d):
        self._d = d
        self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / d
        m = self._K()
        cap = 16 if self.budget is None else min(16, int(self.budget))
        self._sv = np.zeros((m * cap, d))
        self._svn = np.zeros(m * cap)
        self._kd = np.zeros(m * cap)
        self._coef = np.zeros(m * cap)
        self._meta = np.zeros(3 * m, dtype=np.int64)
        self._budget_fitted = _fitted_value(self.budget)
        self._init_extra(m, cap)

    def _init_extra(self, m, cap):
        """The rule's own state (the Forgetron's labels and damage, the Projectrons' inverse
        Gram matrices, the Randomized Budget Perceptron's generator)."""

    _STATE = dict(COMMON, _d=INT, gamma_=FLOAT, _sv=arr(F8, 2), _svn=arr(F8, 1),
                  _kd=arr(F8, 1), _coef=arr(F8, 1), _meta=arr(I8, 1), _budget_fitted=budget)

    def _check_state(self, st):
        o, d = self._owner, st["n_features_in_"]
        m = self._K()
        labels_and_counts(self, st)
        need(st["_d"] == d, f"{o}: _d != n_features_in_")
        sv = st["_sv"]
        cap = sv.shape[0] // m
        need(cap >= 1 and sv.shape == (m * cap, d), f"{o}: _sv has shape {sv.shape}")
        for name in ("_svn", "_kd", "_coef"):
            shape(self, name, (m * cap,))
        shape(self, "_meta", (3 * m,))
        finite(self, "_sv", "_svn", "_kd", "_coef")
        b = self.budget
        need(st["_budget_fitted"] == b, f"{o}: the budget fitted differs from the parameter")
        need(b is None or cap <= b, f"{o}: {cap} slots beyond the budget {b}")
        for k in range(m):
            n_sv, head, M = (int(v) for v in st["_meta"][3 * k:3 * k + 3])
            need(0 <= n_sv <= cap, f"{o}: {n_sv} support vectors in {cap} slots")
            self._check_learner(st, k, cap, n_sv, head, M)
        self._check_extra(st, m, cap)

    def _check_learner(self, st, k, cap, n_sv, head, M):
        need(head == 0 and M == 0, f"{self._owner}: a ring position or a mistake count its "
                                   "rule never keeps")

    def _check_extra(self, st, m, cap):
        pass

    def _grow(self):
        """Double the slots of every learner (at most to the budget)."""
        m = self._meta.shape[0] // 3
        cap = self._sv.shape[0] // m
        new = 2 * cap if self.budget is None else min(2 * cap, int(self.budget))
        d = self._d

        def widen(a, width=1):
            out = np.zeros((m, new * width) if a.ndim == 1 else (m, new, d), dtype=a.dtype)
            if a.ndim == 1:
                out[:, :cap * width] = a.reshape(m, cap * width)
                return out.ravel()
            out[:, :cap] = a.reshape(m, cap, d)
            return out.reshape(m * new, d)
        self._sv = widen(self._sv)
        self._svn, self._kd, self._coef = widen(self._svn), widen(self._kd), widen(self._coef)
        self._grow_extra(m, cap, new, widen)

    def _grow_extra(self, m, cap, new, widen):
        pass

    def _extra_arrays(self):
        """(lab, Q, kinv, rng) for the kernel: the rule's arrays, None for the others."""
        return None, None, None, None

    def _kargs(self):
        return (_KERNELS[self.kernel], int(self.degree), self.tie == "positive",
                float(self.gamma_), float(self.coef0))

    # -- the online pass -------------------------------------------------------------------
    def _pass(self, batch, yy, pred, upd):
        """One pass (a failure is put back by the caller's Snapshot: the state arrays, the
        counts and the generator)."""
        self._validate_params()
        check_finite(self._owner, batch)
        n = batch.n
        y32 = np.ascontiguousarray(yy, dtype=np.int32)
        p32 = np.empty(n, dtype=np.int32)
        if upd is None:
            upd = np.empty(n, dtype=np.uint8)
        budget = -1 if self.budget is None else int(self.budget)
        eta, C = self._rule_args()
        start = 0
        while True:
            status, row = _bk.bk_pass(self._RULE, *self._kargs(), budget, eta, C, self._sv,
                                      self._svn, self._kd, self._coef, self._meta,
                                      *self._extra_arrays(), self._counts, batch.arrays, start,
                                      y32, p32, upd)
            if status == 2:
                self._grow()
                start = row
                continue
            break
        if status:
            raise row_error(self._owner, batch, row, hint=self._OVERFLOW_HINT)
        if pred is not None:
            pred[:] = p32

    # -- reading ---------------------------------------------------------------------------
    def _scores(self, batch):
        self._validate_params()
        check_finite(self._owner, batch)
        m = self._K()
        kind, degree, _, gamma, coef0 = self._kargs()
        out = np.empty((batch.n, m))
        status, bad = _bk.bk_scores(kind, degree, gamma, coef0, self._sv, self._svn,
                                    self._coef, self._meta, batch.arrays, out)
        _raise_status(self, batch, status, bad)
        return out.ravel() if m == 1 else out

    def _predict_flags(self, batch):
        if self._K() > 1:      # the class indices (np.argmax: ties -> the smallest index)
            return np.argmax(self._scores(batch), axis=1)
        return super()._predict_flags(batch)

    def _per_learner(self, a):
        m = self._K()
        cap = self._sv.shape[0] // m
        out = [a[k * cap:k * cap + int(self._meta[3 * k])].copy() for k in range(m)]
        return out if m > 1 else out[0]

    @property
    def support_vectors_(self):
        """The support vectors in slot order, shape (n_support, n_features) (K >= 3 classes:
        a list of K such arrays, learner k's)."""
        self._check_fitted("support_vectors_")
        return self._per_learner(self._sv)

    @property
    def dual_coef_(self):
        """The coefficients a_s of the support vectors in slot order (K >= 3 classes: a list
        of K arrays)."""
        self._check_fitted("dual_coef_")
        return self._per_learner(self._coef)

    @property
    def n_support_(self):
        """The number of support vectors held (K >= 3 classes: a list of K ints)."""
        self._check_fitted("n_support_")
        out = [int(self._meta[3 * k]) for k in range(self._K())]
        return out if len(out) > 1 else out[0]


_SHARED = """
    budget : int >= 1, default=100
        The most support vectors held (per learner with K >= 3 classes).
    kernel : {"linear", "poly", "rbf"}, default="rbf"
    degree : int, default=3
    gamma : float > 0 or None, default=None
        None means 1/n_features (``gamma_`` holds the value used).
    coef0 : float, default=1.0
    tie : {"negative", "positive"}, default="negative"
    max_epochs : int, default=100"""

_ATTRIBUTES = """
    Attributes
    ----------
    support_vectors_ : ndarray of shape (n_support, n_features)
        In slot order (K >= 3 classes: a list of K arrays, learner k's).
    dual_coef_ : ndarray of shape (n_support,)
        The coefficients a_s (K >= 3 classes: a list of K arrays).
    n_support_ : int (K >= 3 classes: a list of K ints)
    gamma_ : float"""


def _doc(text):
    return text.replace("{_SHARED}", _SHARED.strip("\n").lstrip()).replace(
        "{_ATTRIBUTES}", _ATTRIBUTES.strip("\n").lstrip()).replace(
        "{_EXAMPLE}", _EXAMPLE.strip("\n").lstrip())


class Stoptron(_BudgetKernel):
    __doc__ = _doc("""The Stoptron: the kernel Perceptron that stops storing once it holds
    ``budget`` support vectors (the baseline of Orabona, Keshet & Caputo 2009, "Bounded
    kernel-based online learning", JMLR 10, and of the budget papers).

    Rule: on a mistake (prediction != y), while fewer than ``budget`` slots are held, append
    (x, coefficient y); once ``budget`` are held, the mistake is counted and nothing changes.

    Mistake bound: none (after the budget is reached it makes no update at all).  Before it,
    the kernel Perceptron's (its first ``budget`` mistakes are the kernel Perceptron's).

    Parameters
    ----------
    {_SHARED}

    {_ATTRIBUTES}

    See Also
    --------
    KernelPerceptron : ``budget=B`` overwrites the oldest support vector instead.

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import Stoptron
    >>> st = Stoptron(budget=50, gamma=0.05).partial_fit(X, y)
    >>> st.n_support_, st.mistakes_, st.updates_
    (50, 238, 50)
    """)

    _RULE = 0
    _TAGS = tags(no_bound="certify checks none for Stoptron: it stops updating once its "
                          "budget is full, and no mistake bound holds after that")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"budget": 5, "gamma": 0.5}]

    def __init__(self, budget=100, kernel="rbf", degree=3, gamma=None, coef0=1.0, tie="negative",
                 max_epochs=100):
        self.budget = budget
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tie = tie
        self.max_epochs = max_epochs


class RandomizedBudgetPerceptron(_BudgetKernel):
    __doc__ = _doc("""The Randomized Budget Perceptron (Cavallanti, Cesa-Bianchi & Gentile
    2007, "Tracking the best hyperplane with a simple budget Perceptron", Machine Learning 69).

    Rule: on a mistake, while fewer than ``budget`` slots are held, append (x, y); once
    ``budget`` are held, draw u from the splitmix64 generator seeded with ``random_state``
    (one generator, seeded at the first call, persisting across calls, epochs and saved
    files; one draw per eviction), evict slot j = min(floor(u * budget), budget - 1) (uniform
    over the ``budget`` slots) and write (x, y) into slot j.  One-vs-rest learners share the
    generator, drawing in the order k = 0..K-1.

    Mistake bound: the paper bounds the *expected* number of mistakes (a shifting bound
    against sequences of comparison vectors of norm at most U, with U = Theta(sqrt(budget)));
    its exact statement is not quoted here, and ``certify`` checks none.

    Parameters
    ----------
    {_SHARED}
    random_state : int >= 0, default=0
        The seed of the splitmix64 generator (taken modulo 2**64).

    {_ATTRIBUTES}

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import RandomizedBudgetPerceptron
    >>> rbp = RandomizedBudgetPerceptron(budget=50, gamma=0.05, random_state=1)
    >>> rbp = rbp.partial_fit(X, y)
    >>> rbp.n_support_, rbp.mistakes_, rbp.updates_
    (50, 240, 240)
    """)

    _RULE = 1
    _TAGS = tags(no_bound="certify checks none for RandomizedBudgetPerceptron (its paper, "
                          "Cavallanti, Cesa-Bianchi & Gentile, Machine Learning 2007, bounds "
                          "the expected mistakes, a shifting bound)")
    _PARAMETERS = {"random_state": Integer(0)}
    _STATE = dict(_BudgetKernel._STATE, _rng=arr(U8, 1))

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"budget": 5, "gamma": 0.5, "random_state": 3}]

    def __init__(self, budget=100, kernel="rbf", degree=3, gamma=None, coef0=1.0, tie="negative",
                 max_epochs=100, random_state=0):
        self.budget = budget
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tie = tie
        self.max_epochs = max_epochs
        self.random_state = random_state

    def _init_extra(self, m, cap):
        self._rng = np.array([int(self.random_state) & _MASK], dtype=np.uint64)

    def _check_extra(self, st, m, cap):
        shape(self, "_rng", (1,))

    def _extra_arrays(self):
        return None, None, None, self._rng


class Forgetron(_BudgetKernel):
    __doc__ = _doc("""The self-tuned Forgetron (Dekel, Shalev-Shwartz & Singer 2008, "The
    Forgetron: a kernel-based Perceptron on a budget", SIAM J. Computing 37(5)).

    Each slot holds (z_s, y_s, sigma_s) with the coefficient a_s = sigma_s y_s; the learner
    keeps Q (the accumulated removal damage, 0 at first) and M (its mistakes).

    Rule: on a mistake (prediction != y), M = M + 1, then

    * fewer than ``budget`` slots held: append (x, y, sigma = 1);
    * ``budget`` held: r = the oldest slot (a ring).  With f' = f + y K(x, .) the hypothesis
      after the Perceptron step, sigma_r = a_r y_r, f_r = sum_s a_s K(z_r, z_s) and
      mu = y_r (f_r + y K(x, z_r)) = y_r f'(z_r); phi is the largest phi in (0, 1] with
      Q + Psi(sigma_r phi, phi mu) <= (15/32) M, Psi(l, m) = l^2 + 2l - 2lm (1 when phi = 1
      is feasible, else the root of the quadratic, written without cancellation); every
      coefficient is shrunk, a_s = phi a_s, Q = Q + Psi(sigma_r phi, phi mu), and the oldest
      slot is overwritten by (x, y, a = y phi).

    Mistake bound (the paper's theorem for the self-tuned Forgetron): if K(x_t, x_t) <= 1 on
    every row and budget >= 83, then for every g of the kernel's space with
    ||g|| <= U = (1/4) sqrt((budget + 1) / ln(budget + 1)),
    M <= 2 ||g||^2 + 4 sum_t max(0, 1 - y_t g(x_t)).  As code:
    :func:`mbcore.bounds.forgetron_bound`; :func:`mbcore.certify` checks it.

    Parameters
    ----------
    {_SHARED}

    {_ATTRIBUTES}
    Q_ : float (K >= 3 classes: a list of K floats)
        The accumulated removal damage.
    M_ : int (K >= 3 classes: a list of K ints)
        The mistakes of the binary learner(s), as the rule counts them.

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import Forgetron
    >>> fg = Forgetron(budget=50, gamma=0.05).partial_fit(X, y)
    >>> fg.n_support_, fg.mistakes_, fg.M_, bool(fg.Q_ <= 15 / 32 * fg.M_)
    (50, 269, 269, True)
    """)

    _RULE = 2
    _TAGS = tags(bound="forgetron", multi_bound="one-vs-rest")
    _STATE = dict(_BudgetKernel._STATE, _lab=arr("|i1", 1), _Q=arr(F8, 1))

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"budget": 8, "gamma": 0.2}]   # (scikit-learn's training check: 0.83)

    def __init__(self, budget=100, kernel="rbf", degree=3, gamma=None, coef0=1.0, tie="negative",
                 max_epochs=100):
        self.budget = budget
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tie = tie
        self.max_epochs = max_epochs

    def _init_extra(self, m, cap):
        self._lab = np.zeros(m * cap, dtype=np.int8)
        self._Q = np.zeros(m)

    def _grow_extra(self, m, cap, new, widen):
        self._lab = widen(self._lab)

    def _check_learner(self, st, k, cap, n_sv, head, M):
        o, b = self._owner, int(self.budget)
        need(M >= n_sv and (head == 0 if n_sv < b else 0 <= head < cap),
             f"{o}: ring position {head} or mistakes {M} with {n_sv} of {b} slots")
        lab = st["_lab"][k * cap:k * cap + n_sv]
        need(bool(np.all((lab == 1) | (lab == -1))), f"{o}: a label that is not +-1")

    def _check_extra(self, st, m, cap):
        shape(self, "_lab", (m * cap,))
        shape(self, "_Q", (m,))
        finite(self, "_Q")

    def _extra_arrays(self):
        return self._lab, self._Q, None, None

    @property
    def Q_(self):
        """The accumulated removal damage Q (K >= 3 classes: one per learner)."""
        self._check_fitted("Q_")
        out = [float(q) for q in self._Q]
        return out if len(out) > 1 else out[0]

    @property
    def M_(self):
        """The mistakes M of the rule (K >= 3 classes: one per learner)."""
        self._check_fitted("M_")
        out = [int(v) for v in self._meta[2::3]]
        return out if len(out) > 1 else out[0]


class Projectron(_BudgetKernel):
    __doc__ = _doc("""The Projectron (Orabona, Keshet & Caputo 2009, "Bounded kernel-based
    online learning", JMLR 10).

    The learner keeps the support vectors' inverse Gram matrix K_S^-1.

    Rule: on a mistake (prediction != y), with k_t = (K(x, z_s))_s, d = K_S^-1 k_t,
    N = d . k_t (the squared norm of the projection of K(x, .) onto the span of the support
    vectors), Delta = K(x, x) - N and delta = sqrt(max(Delta, 0)) (the distance to that span):

    * delta <= eta, or ``budget`` slots held: project, a_s = a_s + y d_s;
    * else add (x, a = y) and grow K_S^-1 by the block (Schur complement) formula with
      e = (d, -1): K_S^-1 + e e^T / Delta.

    ``budget`` (beyond the paper, whose Projectron bounds its support set through eta only):
    None, or a cap after which every mistake is projected (LIBOKL's fixed-budget variant).

    Mistake bound (the form of the paper's Theorem 1): if K(x_t, x_t) <= 1 on every row, then
    for every g of the kernel's space with eta ||g|| < 1,
    M <= ||g||^2 / (1 - eta ||g||)^2 + 2 L / (1 - eta ||g||), L = sum_t max(0, 1 - y_t g(x_t)).
    With a budget, eta is to be replaced by the largest delta of the run's projected mistakes.
    As code: :func:`mbcore.bounds.projectron_bound`; :func:`mbcore.certify` checks it (without
    a budget).

    eta is compared with the distance delta (the paper's delta_t); DOGMA's code compares the
    squared distance with eta.

    Parameters
    ----------
    budget : int >= 1 or None, default=None
        None: the support set grows as the rule adds.
    eta : float >= 0, default=0.1
    kernel, degree, gamma, coef0, tie, max_epochs : as :class:`Stoptron`
        A change of kernel, degree, gamma or coef0 after fitting is refused (K_S^-1 holds the
        kernel's values).

    {_ATTRIBUTES}

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import Projectron
    >>> pj = Projectron(eta=0.5, gamma=0.05).partial_fit(X, y)
    >>> pj.n_support_, pj.mistakes_      # (the other mistakes were projected)
    (100, 226)
    """)

    _RULE = 3
    _REFIT_PARAMS = ("kernel", "degree", "gamma", "coef0")
    _TAGS = tags(bound="projectron", multi_bound="one-vs-rest")
    _PARAMETERS = {"budget": _BUDGET_OR_NONE, "eta": Real(0, low_inclusive=True)}
    _STATE = dict(_BudgetKernel._STATE, _kinv=arr(F8, 1), _kernel_fitted=_fitted_kernel)

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"budget": 5, "eta": 0.2, "gamma": 0.5}]

    def __init__(self, budget=None, eta=0.1, kernel="rbf", degree=3, gamma=None, coef0=1.0,
                 tie="negative", max_epochs=100):
        self.budget = budget
        self.eta = eta
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tie = tie
        self.max_epochs = max_epochs

    def _rule_args(self):
        return float(self.eta), 1.0

    def _init_extra(self, m, cap):
        self._kinv = np.zeros(m * cap * cap)
        self._kernel_fitted = [str(self.kernel), int(self.degree),
                               _fitted_value(self.gamma), _fitted_value(self.coef0)]

    def _grow_extra(self, m, cap, new, widen):
        kinv = np.zeros((m, new, new))
        kinv[:, :cap, :cap] = self._kinv.reshape(m, cap, cap)
        self._kinv = kinv.ravel()

    def _check_extra(self, st, m, cap):
        o = self._owner
        shape(self, "_kinv", (m * cap * cap,))
        finite(self, "_kinv")
        need(st["_kernel_fitted"] == [self.kernel, self.degree, self.gamma, self.coef0],
             f"{o}: the kernel parameters fitted differ from the parameters")

    def _extra_arrays(self):
        return None, None, self._kinv, None


class ProjectronPP(Projectron):
    __doc__ = _doc("""Projectron++ (Orabona, Keshet & Caputo 2009, "Bounded kernel-based
    online learning", JMLR 10): the Projectron, and a projected step on the margin errors.

    Rule: a mistake is the Projectron's.  A margin error is a row predicted right with
    y f < 1: with l = 1 - y f, d, N and delta as for a mistake (at least one support vector
    held), the step is taken when eta > 0, N > 0 and l - delta / eta > 0:
    tau = min(l / N, 1, 2 (l - delta / eta) / N) and a_s = a_s + tau y d_s (the paper's
    condition beta_t >= 0 and the passive-aggressive step onto the projection, capped at 1,
    as DOGMA's code).  A margin error never adds a support vector.

    Mistake bound: the Projectron's (the same statement holds); the paper's theorem for
    Projectron++ is sharper (it subtracts the margin steps' gains).

    Parameters
    ----------
    budget, eta, kernel, degree, gamma, coef0, tie, max_epochs : as :class:`Projectron`

    {_ATTRIBUTES}

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import ProjectronPP
    >>> pp = ProjectronPP(budget=50, eta=0.5, gamma=0.05).partial_fit(X, y)
    >>> pp.n_support_, pp.mistakes_, pp.updates_    # (updates: also the margin errors)
    (50, 226, 249)
    """)

    _RULE = 4

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"budget": 5, "eta": 0.2, "gamma": 0.5}]


class BPA_S(_BudgetKernel):
    __doc__ = _doc("""BPA-S, the budgeted Passive-Aggressive algorithm with the simple removal
    (Wang & Vucetic 2010, "Online passive-aggressive algorithms on a budget", AISTATS).

    Rule: on a row with y f < 1 (hinge loss l = 1 - y f > 0), with k_tt = K(x, x) > 0:
    tau = min(C, l / k_tt) (PA-I) and

    * fewer than ``budget`` slots held: append (x, a = tau y);
    * ``budget`` held: r = the slot with the smallest a_r^2 (K(z_r, z_r) - K(x, z_r)^2 / k_tt)
      (the first on ties); slot r is overwritten by (x, a = a_r K(x, z_r) / k_tt + tau y).

    That is the paper's BPA-S: w' = w - a_r phi(z_r) + beta phi(x), with r and beta
    minimising 1/2 ||w' - w||^2 + C xi subject to y w'(x) >= 1 - xi.

    Mistake bound: none is stated here (PA-I's own bound does not survive the removals).

    Parameters
    ----------
    {_SHARED}
    C : float > 0, default=1.0
        PA-I's cap on the step.

    {_ATTRIBUTES}

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import BPA_S
    >>> bpa = BPA_S(budget=50, C=0.5, gamma=0.05).partial_fit(X, y)
    >>> bpa.n_support_, bpa.mistakes_, bpa.updates_
    (50, 215, 631)
    """)

    _RULE = 5
    _TAGS = tags(no_bound="certify checks none for BPA_S (its paper, Wang & Vucetic, "
                          "AISTATS 2010, is not read here for a mistake bound)")
    _PARAMETERS = {"C": Real(0)}

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"budget": 5, "C": 0.5, "gamma": 0.5}]

    def __init__(self, budget=100, C=1.0, kernel="rbf", degree=3, gamma=None, coef0=1.0,
                 tie="negative", max_epochs=100):
        self.budget = budget
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tie = tie
        self.max_epochs = max_epochs

    def _rule_args(self):
        return 0.0, float(self.C)
