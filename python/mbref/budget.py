"""The budget kernel Perceptrons (pure Python, the specification; issue 39).

Kernel Perceptrons whose memory is bounded: the Stoptron, the Randomized Budget Perceptron
(Cavallanti, Cesa-Bianchi & Gentile 2007), the self-tuned Forgetron (Dekel, Shalev-Shwartz &
Singer 2008), the Projectron and Projectron++ (Orabona, Keshet & Caputo 2009) and BPA-S (Wang &
Vucetic 2010), each written from its paper.  The kernels are ``mbref.kernel.KernelPerceptron``'s
(the same ``_k`` and the same stored rows, ``_dense``); the conventions are the kernel
Perceptron's.

Conventions shared by every class here
--------------------------------------
* A learner holds slots: a support vector z_s (the row as a dense list), its squared norm
  ``zz_s`` (``_arith.dense_sumsq``), its kernel value with itself ``kd_s = K(z_s, z_s)`` (the
  kernel on the stored dense row: ||z||^2 for the linear kernel, (gamma ||z||^2 + coef0)^degree
  for the polynomial one, 1.0 for the RBF kernel) and its coefficient a_s.
* The score of a row x is ``f = 0.0``, then for each slot in slot order ``kv_s = K(x, z_s)``
  and ``f = f + a_s * kv_s`` (the kernel Perceptron's order); the values kv_s are kept for the
  step.  The prediction is +1 iff f > 0 (f == 0: the ``tie`` rule); a mistake is a prediction
  other than the label.  A score that is not finite is a bad row (ValueError naming it; the
  call leaves the learner as it was).
* An eviction replaces the evicted slot in place (the slots are not kept in arrival order);
  the Forgetron's "oldest" is a ring position (``head``), as ``KernelPerceptron(budget=)``'s.
* ``updates_`` counts the rows on which the state changed; ``mistakes_`` the wrong
  predictions.  No sample weights: the papers have no weighted form of these rules.
* Three classes or more: one-vs-rest.  Learner k is the binary learner of its class on the
  labels y_k = +1 iff y == class k (its own slots, and its own Q and mistake count for the
  Forgetron, its own inverse Gram matrix for the Projectrons); the K scores come from the
  states before the row; the prediction is classes_[argmax_k f_k] (the smallest k among the
  largest); then each learner k takes the row with its own rule, k = 0..K-1 in order (the
  Randomized Budget Perceptron's one generator draws in that order).  A row counts as an
  update when a learner's state changed.  Each binary bound then holds for its learner, and a
  wrong argmax is a mistake of at least one learner: the K-class mistakes are at most the sum
  of the K binary bounds.
"""

import math
import numbers

from . import _arith
from ._additive import _TIES, _argmax, _check_choice, _check_int, _check_real
from ._rng import SplitMix64
from .base import ManyClasses, OnlineLearner, check_finite, check_rows
from .kernel import KernelPerceptron

__all__ = ["Stoptron", "RandomizedBudgetPerceptron", "Forgetron", "Projectron", "ProjectronPP",
           "BPA_S"]

_MAX_DEGREE = 2 ** 31 - 1     # as KernelPerceptron: a C int in a compiled kernel
_MAX_BUDGET = 2 ** 62         # as KernelPerceptron: a C Py_ssize_t
_FORGETRON_SHARE = 15.0 / 32.0   # 0.46875, exact in binary


class _Slots:
    """One binary learner: its slots (``sv``, ``svn``, ``kd``, ``coef``) and what its rule
    keeps beside them (``head``: the ring position; ``lab``, ``Q``, ``M``: the Forgetron's
    labels, accumulated removal damage and mistakes; ``kinv``: the Projectrons' inverse Gram
    matrix of the support vectors, a list of rows)."""

    def __init__(self):
        self.sv = []
        self.svn = []
        self.kd = []
        self.coef = []
        self.head = 0
        self.lab = []
        self.Q = 0.0
        self.M = 0
        self.kinv = []

    def put(self, s, z, zz, kd, c):
        """Write slot s (s == len: append) with (z, zz, kd, c)."""
        if s == len(self.sv):
            self.sv.append(z)
            self.svn.append(zz)
            self.kd.append(kd)
            self.coef.append(c)
        else:
            self.sv[s], self.svn[s], self.kd[s], self.coef[s] = z, zz, kd, c


class _BudgetKernel(ManyClasses, OnlineLearner):
    """What the budget kernel Perceptrons share: kernel parameters, slots, scores, one-vs-rest."""

    _BUDGET_REQUIRED = True       # Projectron and Projectron++: budget may be None
    _REFIT_PARAMS = ()            # parameters whose change after fitting is refused
    _WEIGHTED = False
    _NO_WEIGHTS = "the papers of the budget kernel Perceptrons give no weighted form of them"

    # the kernel and the stored rows of mbref.kernel.KernelPerceptron, as they are
    _k = KernelPerceptron._k
    _dense = KernelPerceptron._dense

    # -- parameters ---------------------------------------------------------------------------
    def _validate_params(self):
        o = self._owner
        b = self.budget
        if self._BUDGET_REQUIRED:
            if isinstance(b, bool) or not isinstance(b, numbers.Integral) or \
                    not 1 <= b <= _MAX_BUDGET:
                raise ValueError(f"{o}: parameter budget must be an integer in [1, "
                                 f"{_MAX_BUDGET}], got {b!r}")
        elif b is not None and (isinstance(b, bool) or not isinstance(b, numbers.Integral)
                                or not 1 <= b <= _MAX_BUDGET):
            raise ValueError(f"{o}: parameter budget must be None or an integer in [1, "
                             f"{_MAX_BUDGET}], got {b!r}")
        _check_choice(o, "kernel", self.kernel, ("linear", "poly", "rbf"))
        d = self.degree
        if isinstance(d, bool) or not isinstance(d, numbers.Integral) or not 1 <= d <= _MAX_DEGREE:
            raise ValueError(f"{o}: parameter degree must be an integer in [1, {_MAX_DEGREE}], "
                             f"got {d!r}")
        g = self.gamma
        if g is not None and not (isinstance(g, numbers.Real) and not isinstance(g, bool)
                                  and math.isfinite(float(g)) and g > 0):
            raise ValueError(f"{o}: parameter gamma must be a finite real > 0 or None, got {g!r}")
        _check_real(o, "coef0", self.coef0)
        _check_choice(o, "tie", self.tie, _TIES)
        _check_int(o, "max_epochs", self.max_epochs, 1)
        self._validate_rule_params()
        if "_fitted_params" in vars(self):
            for name in ("budget",) + self._REFIT_PARAMS:
                if getattr(self, name) != self._fitted_params[name]:
                    raise ValueError(f"{o}: parameter {name} was changed to "
                                     f"{getattr(self, name)!r} after fitting; call fit, or "
                                     "clone the learner, to start again with it")
            self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / self._d

    def _validate_rule_params(self):
        """The rule's own parameters (eta, C, random_state)."""

    # -- state --------------------------------------------------------------------------------
    def _init_state(self, d):
        self._d = d
        self._K = len(self.classes_)
        self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / d
        self._fitted_params = {name: getattr(self, name)
                               for name in ("budget",) + self._REFIT_PARAMS}
        self._m = [_Slots() for _ in range(self._K if self._K > 2 else 1)]

    def _state_dict(self):
        return {"m": self._m}

    def _load_state_dict(self, s):
        self._m = s["m"]

    def _prepare(self, X, y, classes, check_values=True):
        return super()._prepare(X, y, classes, check_values=True)

    # -- scores -------------------------------------------------------------------------------
    def _kvals(self, m, x):
        """(f, kv): the score of row x under learner m and the kernel values K(x, z_s) in slot
        order (f = f + a_s * kv_s)."""
        f = 0.0
        kv = []
        for z, zz, c in zip(m.sv, m.svn, m.coef):
            v = self._k(x, z, zz)
            kv.append(v)
            f = f + c * v
        return f, kv

    def _score(self, x):
        return self._kvals(self._m[0], x)[0]

    def _class_scores(self, x):
        return [self._kvals(m, x)[0] for m in self._m]

    def _stored(self, x, i):
        """The row as a slot: (z, zz, K(z, z)); a squared norm or a self-kernel value that is
        not finite is a bad row i."""
        z, zz = self._dense(x, i)
        kd = self._k(z, z, zz)
        if not math.isfinite(kd):
            raise self._row_error(i)
        return z, zz, kd

    # -- the online step ----------------------------------------------------------------------
    def _step(self, x, y, i):
        if not self._multi():
            m = self._m[0]
            f, kv = self._kvals(m, x)
            if not math.isfinite(f):
                raise self._row_error(i)
            p = self._sign(f)
            return p, self._update(m, x, y, f, kv, p, i)
        fk = [self._kvals(m, x) for m in self._m]
        if not all(math.isfinite(f) for f, _ in fk):
            raise self._row_error(i)
        p = _argmax([f for f, _ in fk])
        updated = False
        for k, (m, (f, kv)) in enumerate(zip(self._m, fk)):
            yk = 1 if y == k else -1
            if self._update(m, x, yk, f, kv, self._sign(f), i):
                updated = True
        return p, updated

    def _update(self, m, x, y, f, kv, p, i):
        """The rule's step on learner m for the row x of label y (+-1), its score f, its kernel
        values kv and its prediction p; True when m's state changed."""
        raise NotImplementedError

    # -- reading ------------------------------------------------------------------------------
    def _scores(self, X):
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
        """In slot order; with K >= 3 classes, one list per learner."""
        self._check_fitted("support_vectors_")
        out = [[list(z) for z in m.sv] for m in self._m]
        return out if self._multi() else out[0]

    @property
    def dual_coef_(self):
        """The coefficients a_s of the support vectors in slot order; with K >= 3 classes, one
        list per learner."""
        self._check_fitted("dual_coef_")
        out = [list(m.coef) for m in self._m]
        return out if self._multi() else out[0]

    @property
    def n_support_(self):
        """An int; with K >= 3 classes, one int per learner."""
        self._check_fitted("n_support_")
        out = [len(m.sv) for m in self._m]
        return out if self._multi() else out[0]


class Stoptron(_BudgetKernel):
    """The Stoptron: the kernel Perceptron that stops storing once it holds ``budget``
    support vectors (the baseline of Orabona, Keshet & Caputo 2009 and of the budget papers).

    Rule: on a mistake (prediction != y), while fewer than ``budget`` slots are held, append
    (x, coefficient y); once ``budget`` are held, the mistake is counted and nothing changes.

    Mistake bound: none (after the budget is reached it makes no update at all).  Before it,
    the kernel Perceptron's (its first ``budget`` mistakes are the kernel Perceptron's).

    Parameters
    ----------
    budget : int >= 1, default=100
    kernel, degree, gamma, coef0, tie, max_epochs : as ``KernelPerceptron``
    """

    def __init__(self, budget=100, kernel="rbf", degree=3, gamma=None, coef0=1.0, tie="negative",
                 max_epochs=100):
        self.budget = budget
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tie = tie
        self.max_epochs = max_epochs

    def _update(self, m, x, y, f, kv, p, i):
        if p == y or len(m.sv) == self.budget:
            return False
        z, zz, kd = self._stored(x, i)
        m.put(len(m.sv), z, zz, kd, float(y))
        return True


class RandomizedBudgetPerceptron(_BudgetKernel):
    """The Randomized Budget Perceptron (Cavallanti, Cesa-Bianchi & Gentile 2007, "Tracking the
    best hyperplane with a simple budget Perceptron", Machine Learning 69).

    Rule: on a mistake, while fewer than ``budget`` slots are held, append (x, y); once
    ``budget`` are held, draw u = ``SplitMix64(random_state).uniform()`` (one generator per
    learner, seeded at the first call, persisting across calls and epochs; one draw per
    eviction), evict slot j = min(floor(u * budget), budget - 1) (uniform over the ``budget``
    slots; the min never acts for budget < 2**53) and write (x, y) into slot j.  One-vs-rest
    learners share the generator, drawing in the order k = 0..K-1.

    Mistake bound: the paper bounds the *expected* number of mistakes (its Theorem on the
    randomized budget Perceptron, a shifting bound against sequences of comparison vectors of
    norm at most U with the trade-off U = Theta(sqrt(budget)), in the paper's abstract).  Its
    exact statement was not at hand when this twin was written: it is not quoted here (see
    the report of issue 39).

    Parameters
    ----------
    budget : int >= 1, default=100
    kernel, degree, gamma, coef0, tie, max_epochs : as ``KernelPerceptron``
    random_state : int >= 0, default=0
        The seed of the splitmix64 generator (``mbref._rng``; the compiled twin draws the same
        doubles).
    """

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

    def _validate_rule_params(self):
        r = self.random_state
        if isinstance(r, bool) or not isinstance(r, numbers.Integral) or r < 0:
            raise ValueError(f"{self._owner}: parameter random_state must be an integer >= 0, "
                             f"got {r!r}")

    def _init_state(self, d):
        super()._init_state(d)
        self._rng = SplitMix64(self.random_state)

    def _state_dict(self):
        return {"m": self._m, "rng": self._rng}

    def _load_state_dict(self, s):
        self._m, self._rng = s["m"], s["rng"]

    def _update(self, m, x, y, f, kv, p, i):
        if p == y:
            return False
        z, zz, kd = self._stored(x, i)
        B = self.budget
        if len(m.sv) < B:
            m.put(len(m.sv), z, zz, kd, float(y))
            return True
        j = min(int(self._rng.uniform() * B), B - 1)
        m.put(j, z, zz, kd, float(y))
        return True


def _psi(lam, mu):
    """The Forgetron's Psi(lambda, mu) = lambda^2 + 2 lambda - 2 lambda mu, evaluated as
    ``(lam * lam + 2.0 * lam) - (2.0 * lam) * mu``."""
    return (lam * lam + 2.0 * lam) - (2.0 * lam) * mu


class Forgetron(_BudgetKernel):
    """The self-tuned Forgetron (Dekel, Shalev-Shwartz & Singer 2008, "The Forgetron: a
    kernel-based Perceptron on a budget", SIAM J. Computing 37(5)).

    Each slot holds (z_s, y_s, sigma_s) with the coefficient a_s = sigma_s * y_s; the learner
    keeps Q (the accumulated removal damage, 0.0 at first) and M (its mistakes).

    Rule: on a mistake (prediction != y), M = M + 1, then

    * fewer than ``budget`` slots held: append (x, y, sigma = 1), a = y;
    * ``budget`` held: r = the oldest slot (the ring position ``head``).  With f' = f + y K(x, .)
      the hypothesis after the Perceptron step,
      ``sigma_r = a_r * y_r``; ``f_r = sum_s a_s K(z_r, z_s)`` (slot order, each K on the
      stored z_r as a dense row, ``f = f + a_s * K``); ``mu = y_r * (f_r + y * K(x, z_r))``
      (= y_r f'(x_r); K(x, z_r) is the score's value); then phi is the largest phi in (0, 1]
      with ``Q + Psi(sigma_r phi, phi mu) <= (15/32) M``, Psi(l, m) = l^2 + 2l - 2lm:

      - phi = 1.0 if ``Q + Psi(sigma_r, mu) <= 0.46875 * M``;
      - else, with ``a = sigma_r*sigma_r - (2.0*sigma_r)*mu``, ``b = 2.0*sigma_r``,
        ``c = Q - 0.46875*M`` (< 0) and ``D = b*b - (4.0*a)*c``, the root
        ``phi = (-2.0*c) / (b + sqrt(max(D, 0.0)))`` (the root (-b + sqrt D)/(2a) of
        a phi^2 + b phi + c written without cancellation; it is the largest feasible phi for
        a > 0, a = 0 and a < 0 alike), then ``phi = min(phi, 1.0)``;

      every coefficient is shrunk, ``a_s = a_s * phi`` (the new example's too),
      ``Q = Q + Psi(sigma_r * phi, phi * mu)`` (the removal damage: y_r f''(x_r) = phi mu with
      f'' = phi f'), and the oldest slot is overwritten by (x, y, a = y * phi);
      ``head = (head + 1) % budget``.

    Mistake bound (the paper's theorem for the self-tuned Forgetron): if K(x_t, x_t) <= 1 on
    every row and budget >= 83, then for every g of the kernel's space with
    ||g|| <= U = (1/4) sqrt((budget + 1) / ln(budget + 1)),
    ``M <= 2 ||g||^2 + 4 sum_t max(0, 1 - y_t g(x_t))`` (the sum over every row).  (The
    removal damage is kept at most 15/32 of the mistakes and the shrinking damage at most 1/32
    by U; the Perceptron progress 1 - 2 l_t then leaves M/2.)

    Notes
    -----
    The brief of issue 39 wrote the condition as ``Q + Psi(sigma_r phi, mu) <= (15/32) B``.
    Here the budget of the damage is (15/32) M, M the mistakes so far (the damage grows with
    the mistakes; the mistake bound above needs Q <= 15/32 M), and Psi's second argument is
    y_r f''(x_r) = phi mu, the margin of the removed example under the *shrunk* hypothesis,
    which is what the removal costs: ||f'' - g||^2 - ||f_{t+1} - g||^2 >= -Psi(sigma_r phi,
    y_r f''(x_r)) once the 2 lambda y_r g(x_r) it contains is charged to the step that stored
    x_r.  Orabona's DOGMA code (``k_forgetron_st_train.m``) solves the same quadratic.

    Parameters
    ----------
    budget : int >= 1, default=100
    kernel, degree, gamma, coef0, tie, max_epochs : as ``KernelPerceptron``
    """

    def __init__(self, budget=100, kernel="rbf", degree=3, gamma=None, coef0=1.0, tie="negative",
                 max_epochs=100):
        self.budget = budget
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tie = tie
        self.max_epochs = max_epochs

    def _update(self, m, x, y, f, kv, p, i):
        if p == y:
            return False
        m.M += 1
        z, zz, kd = self._stored(x, i)
        B = self.budget
        if len(m.sv) < B:
            m.put(len(m.sv), z, zz, kd, float(y))
            m.lab.append(y)
            return True
        r = m.head
        sigma = m.coef[r] * m.lab[r]
        zr = m.sv[r]
        fr = 0.0
        for zs, zzs, c in zip(m.sv, m.svn, m.coef):
            fr = fr + c * self._k(zr, zs, zzs)
        mu = m.lab[r] * (fr + y * kv[r])
        cap = _FORGETRON_SHARE * m.M
        if m.Q + _psi(sigma, mu) <= cap:
            phi = 1.0
        else:
            a = sigma * sigma - (2.0 * sigma) * mu
            b = 2.0 * sigma
            c = m.Q - cap
            D = b * b - (4.0 * a) * c
            phi = (-2.0 * c) / (b + math.sqrt(max(D, 0.0)))
            phi = min(phi, 1.0)
        if not (math.isfinite(mu) and phi > 0.0):      # (phi > 0 also refuses NaN)
            raise self._row_error(i)
        for s in range(B):
            m.coef[s] = m.coef[s] * phi
        m.Q = m.Q + _psi(sigma * phi, phi * mu)
        m.put(r, z, zz, kd, y * phi)
        m.lab[r] = y
        m.head = (r + 1) % B
        return True


class Projectron(_BudgetKernel):
    """The Projectron (Orabona, Keshet & Caputo 2009, "Bounded kernel-based online learning",
    JMLR 10).

    The learner keeps the support vectors' inverse Gram matrix Kinv (K_S^-1, a list of rows).

    Rule: on a mistake (prediction != y), with kv = (K(x, z_s))_s the score's kernel values and
    n the slots held:
    ``d_s = _arith.dot(Kinv[s], kv)`` (d* = K_S^-1 k_t), ``N = _arith.dot(d, kv)`` (=
    ||P k_t||^2, the projection of K(x, .) onto the span of the support vectors),
    ``Delta = k_tt - N`` with k_tt = K(z, z) on the stored row z, and
    ``delta = sqrt(max(Delta, 0.0))`` (the distance from K(x, .) to that span; n = 0: d = [],
    N = 0.0, delta = sqrt(k_tt)).

    * ``delta <= eta``, or ``budget`` slots held: project, ``a_s = a_s + y * d_s`` (an update
      when n > 0; with n = 0 there is nothing to project onto and nothing changes);
    * else add: append (x, a = y) and grow Kinv by the block (Schur complement) formula with
      e = (d_0, ..., d_{n-1}, -1): ``Kinv'[i][j] = Kinv[i][j] + (e_i * e_j) / Delta``, Kinv
      padded with zeros (0.0 + v) to (n+1) x (n+1).

    ``budget`` (beyond the paper, whose Projectron bounds its support set through eta only):
    None, or the fixed-budget variant of LIBOKL's ``kernel_projectron.h``, which projects
    every mistake once the budget is full; here the eta test still applies before it.

    Mistake bound (the form of the paper's Theorem 1, written here along its proof): if
    K(x_t, x_t) <= 1 on every row, then for every g of the kernel's space with eta ||g|| < 1,
    ``M <= ||g||^2 / (1 - eta ||g||)^2 + 2 L / (1 - eta ||g||)``, L = sum_t max(0, 1 - y_t
    g(x_t)) (every row).  (A projected mistake loses at most 2 ||g|| delta_t <= 2 eta ||g||
    against a stored one; compare with g / (1 - eta ||g||).)  With a budget, eta is to be
    replaced by the largest delta of the run's projected mistakes.

    Notes
    -----
    eta is compared with the *distance* delta_t = ||P k_t - k_t|| (the paper's delta_t, and
    JSAT's reading of it); the brief of issue 39 and DOGMA's ``k_projectron_train.m`` compare
    the squared distance Delta with eta.  A run with eta here is theirs with eta**2 (up to the
    rounding of the square root).

    Parameters
    ----------
    budget : int >= 1 or None, default=None
    eta : float >= 0, default=0.1
    kernel, degree, gamma, coef0, tie, max_epochs : as ``KernelPerceptron``
    """

    _BUDGET_REQUIRED = False
    # Kinv holds the kernel's values: the kernel cannot change under it
    _REFIT_PARAMS = ("kernel", "degree", "gamma", "coef0")

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

    def _validate_rule_params(self):
        _check_real(self._owner, "eta", self.eta, 0, low_open=False)

    def _project(self, m, kv):
        """(d, N): d = Kinv kv and N = d . kv for the kernel values kv of a row against m's
        slots."""
        d = [_arith.dot(row, kv) for row in m.kinv]
        return d, _arith.dot(d, kv)

    def _mistake(self, m, x, y, kv, i):
        z, zz, kd = self._stored(x, i)
        d, N = self._project(m, kv)
        Delta = kd - N
        delta = math.sqrt(max(Delta, 0.0))
        n = len(m.sv)
        if not all(math.isfinite(v) for v in d) or not math.isfinite(Delta):
            raise self._row_error(i)
        if delta <= float(self.eta) or n == self.budget:
            if n == 0:
                return False
            c = float(y)
            for s in range(n):
                m.coef[s] = m.coef[s] + c * d[s]
            return True
        e = d + [-1.0]
        grown = []
        for a in range(n + 1):
            row = m.kinv[a] + [0.0] if a < n else [0.0] * (n + 1)
            grown.append([row[b] + (e[a] * e[b]) / Delta for b in range(n + 1)])
        if not all(math.isfinite(v) for r in grown for v in r):
            raise self._row_error(i)
        m.kinv = grown
        m.put(n, z, zz, kd, float(y))
        return True

    def _update(self, m, x, y, f, kv, p, i):
        if p == y:
            return False
        return self._mistake(m, x, y, kv, i)


class ProjectronPP(Projectron):
    """Projectron++ (Orabona, Keshet & Caputo 2009, JMLR 10): the Projectron, and a projected
    step on the margin errors.

    Rule: a mistake is the Projectron's.  A margin error is a row predicted right with
    ``y * f < 1.0`` (the paper's 0 < y f < 1, and y f = 0 where the tie rule predicted right):
    with l = 1.0 - y * f, d, N and delta as for a mistake (n > 0), the step is taken when
    eta > 0, N > 0 and ``l - delta / eta > 0``:
    ``tau = min(l / N, 1.0, (2.0 * (l - delta / eta)) / N)`` and ``a_s = a_s + (tau * y) *
    d_s``.  tau <= 2 (l - delta/eta) / N is the paper's condition beta_t = tau (2 l - tau N -
    2 delta / eta) >= 0, under which the step does not add to the mistake bound; the other two
    terms are the passive-aggressive step onto P k_t capped at 1 (DOGMA's
    ``k_projectron2_train.m`` takes the same three-way minimum).  A margin error never adds a
    support vector.

    Mistake bound: the Projectron's (the same statement holds, each margin step's progress
    against g / (1 - eta ||g||) being at least -2 tau_t l_t(g) when delta_t < eta); the
    paper's Theorem for Projectron++ is sharper (it subtracts the margin steps' gains).

    Parameters
    ----------
    as ``Projectron``
    """

    def _update(self, m, x, y, f, kv, p, i):
        if p != y:
            return self._mistake(m, x, y, kv, i)
        if not y * f < 1.0 or not m.sv:
            return False
        eta = float(self.eta)
        if eta == 0.0:
            return False
        loss = 1.0 - y * f
        kd = self._stored(x, i)[2]
        d, N = self._project(m, kv)
        delta = math.sqrt(max(kd - N, 0.0))
        if not N > 0.0 or not loss - delta / eta > 0.0:
            return False
        tau = min(loss / N, 1.0, (2.0 * (loss - delta / eta)) / N)
        c = tau * y
        for s in range(len(m.sv)):
            m.coef[s] = m.coef[s] + c * d[s]
        if not all(math.isfinite(v) for v in m.coef):
            raise self._row_error(i)
        return True


class BPA_S(_BudgetKernel):
    """BPA-S, the budgeted Passive-Aggressive algorithm with the simple removal (Wang & Vucetic
    2010, "Online passive-aggressive algorithms on a budget", AISTATS).

    Rule: on a row with y * f < 1.0 (hinge loss l = 1.0 - y * f > 0), with k_tt = K(z, z) on
    the stored row z: if not 0 < k_tt < inf nothing changes; else tau = min(C, l / k_tt)
    (PA-I) and

    * fewer than ``budget`` slots held: append (x, a = tau * y);
    * ``budget`` held: r = the slot with the smallest
      ``(a_r * a_r) * (kd_r - (kv_r * kv_r) / k_tt)`` (the first on ties), kv_r = K(x, z_r)
      the score's value; slot r is overwritten by (x, a = (a_r * kv_r) / k_tt + tau * y).

    That is the paper's BPA-S: w' = w - a_r phi(x_r) + beta phi(x_t), with r and beta
    minimising 1/2 ||w' - w||^2 + C xi subject to y w'.phi(x_t) >= 1 - xi: for each r the
    best beta is a_r K(x_r, x_t) / k_tt + tau y with the PA-I tau of the loss before the step
    (the removal's term and the projection's cancel in the constraint), and the objective is
    then 1/2 a_r^2 (K(x_r, x_r) - K(x_r, x_t)^2 / k_tt) plus terms that do not depend on r.

    Mistake bound: none is stated here (the paper's analysis was not at hand; PA-I's own
    bound does not survive the removals).

    Parameters
    ----------
    budget : int >= 1, default=100
    C : float > 0, default=1.0
    kernel, degree, gamma, coef0, tie, max_epochs : as ``KernelPerceptron``
    """

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

    def _validate_rule_params(self):
        _check_real(self._owner, "C", self.C, 0)

    def _update(self, m, x, y, f, kv, p, i):
        if not y * f < 1.0:
            return False
        z, zz, kd = self._stored(x, i)
        if not 0.0 < kd < math.inf:
            return False
        tau = min(float(self.C), (1.0 - y * f) / kd)
        n = len(m.sv)
        if n < self.budget:
            m.put(n, z, zz, kd, tau * y)
            return True
        r, best = 0, None
        for s in range(n):
            a = m.coef[s]
            v = (a * a) * (m.kd[s] - (kv[s] * kv[s]) / kd)
            if best is None or v < best:
                r, best = s, v
        beta = (m.coef[r] * kv[r]) / kd + tau * y
        if not math.isfinite(beta):
            raise self._row_error(i)
        m.put(r, z, zz, kd, beta)
        return True
