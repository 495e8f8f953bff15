"""The additive family, literally from the rules stated in mbcore.linear (pure Python, the
specification).

Shared conventions (mirrored bit for bit by mbcore's kernels):

* ``score = a * (w . x) + b`` with ``a = 1`` except for OnlineHingeSVM, ``b`` the intercept
  (0 without ``fit_intercept``); with normalisation ``score *= inv`` where ``inv = 1/||x'||`` and
  ``x' = (x, 1)`` when there is an intercept.  Dot products use the order of ``mbref._arith``.
* Prediction: +1 iff ``score > 0``, or ``score == 0`` with ``tie="positive"``.
* An update with coefficient ``c`` does ``w[j] += c * x[j]`` (then ``b += c``).

Three classes or more (Perceptron, AveragedPerceptron in mode "average", MarginPerceptron,
OnlineHingeSVM): one weight vector ``w_k`` (and intercept ``b_k``) per class of the sorted
``classes_``; the score of class k is the binary score with ``w_k`` (one scale ``a`` shared by all
classes); labels are class indices.  The argmax is the smallest index among the largest scores.
``multi_class="multiclass"``: Kesler's construction (on an update, ``w_y`` moves towards x and the
rival ``w_r`` away from it, with the binary coefficient).  ``multi_class="ovr"``: learner k is the
binary learner on ``+1 iff y == k``, with its own rule; the prediction is the argmax of their
scores.  Two classes: the binary learner, whatever ``multi_class``.
"""

import math
import numbers

from . import _arith
from ._additive import _Linear, _argmax, _check_choice, _check_real

__all__ = ["Perceptron", "MarginPerceptron", "AveragedPerceptron", "KernelPerceptron",
           "OnlineHingeSVM", "PassiveAggressive"]

_PEGASOS_RESCALE = 1e-9


def _two_classes_only(owner, classes, extra=""):
    """The classes, when there are two; else the ValueError of the binary-only learners."""
    if len(classes) > 2:
        cl = list(classes)
        shown = repr(cl[:10]) + (f" and {len(cl) - 10} more" if len(cl) > 10 else "")
        raise ValueError(f"{owner}: y has more than two labels ({len(cl)}: {shown}). Only "
                         f"binary classification is supported{extra}")
    return classes


class Perceptron(_Linear):
    """Rosenblatt's Perceptron (twin of mbcore.Perceptron); see that class for the documentation."""

    def __init__(self, tie="negative", normalize=False, fit_intercept=False, eta=1.0,
                 max_epochs=100, multi_class="multiclass", n_jobs=None,
                 class_weight=None, record_updates=False):
        self.tie = tie
        self.normalize = normalize
        self.fit_intercept = fit_intercept
        self.eta = eta
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.class_weight = class_weight
        self.record_updates = record_updates
        self.n_jobs = n_jobs        # (checked, no effect: the twin's pass is sequential)

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "eta", self.eta, 0)
        if not isinstance(self.normalize, bool):
            raise ValueError(f"{self._owner}: parameter normalize must be a bool, got "
                             f"{self.normalize!r}")

    def _step(self, x, y, i):
        if self._multi():
            return self._step_multi(x, y, i)
        inv = self._inv(x) if self.normalize else 1.0
        s = self._raw(self._w, 1.0, x, inv)
        if not math.isfinite(s):
            raise self._row_error(i)
        p = self._sign(s)
        if p == y or self._weight(i) == 0.0:
            return p, False
        c = self.eta * y
        if self.normalize:
            c = c * inv
        c = c * self._weight(i)
        if not self._apply(self._w, c, x):
            raise self._row_error(i)
        self._on_update(c, x, i)
        return p, True

    def _on_update(self, c, x, i):
        pass

    def _step_mc(self, x, y, i):
        """Kesler: yhat = argmax_k s_k; on a mistake, c = eta (* inv): w_y += c x, w_yhat -= c x."""
        inv = self._inv(x) if self.normalize else 1.0
        s = self._class_scores(self._W, x, inv, i)
        p = _argmax(s)
        if p == y or self._weight(i) == 0.0:
            return p, False
        c = float(self.eta)
        if self.normalize:
            c = c * inv
        c = c * self._weight(i)
        ok = self._apply(self._W[y], c, x)
        ok = self._apply(self._W[p], -c, x) and ok
        if not ok:
            raise self._row_error(i)
        self._on_update_k(y, c, x, i)
        self._on_update_k(p, -c, x, i)
        return p, True

    def _step_ovr(self, x, y, i):
        """One-vs-rest: learner k is the binary Perceptron on y_k = +1 iff y == k (its own tie
        rule); yhat = argmax_k s_k."""
        inv = self._inv(x) if self.normalize else 1.0
        s = self._class_scores(self._W, x, inv, i)
        p = _argmax(s)
        updated = False
        for k in range(self._K):
            yk = 1 if y == k else -1
            if self._sign(s[k]) == yk or self._weight(i) == 0.0:
                continue
            c = self.eta * yk
            if self.normalize:
                c = c * inv
            c = c * self._weight(i)
            if not self._apply(self._W[k], c, x):
                raise self._row_error(i)
            self._on_update_k(k, c, x, i)
            updated = True
        return p, updated

    def _on_update_k(self, k, c, x, i):
        pass


class AveragedPerceptron(Perceptron):
    """Averaged / voted Perceptron (twin of mbcore.AveragedPerceptron)."""

    _MULTI_STATE = ("_W", "_a", "_U")

    def __init__(self, mode="average", tie="negative", normalize=False, fit_intercept=False,
                 eta=1.0, max_epochs=100, multi_class="multiclass", n_jobs=None,
                 class_weight=None, record_updates=False):
        self.mode = mode
        super().__init__(tie=tie, normalize=normalize, fit_intercept=fit_intercept, eta=eta,
                         max_epochs=max_epochs, multi_class=multi_class, n_jobs=n_jobs,
                         class_weight=class_weight, record_updates=record_updates)

    def _validate_params(self):
        super()._validate_params()
        _check_choice(self._owner, "mode", self.mode, ("average", "vote"))
        if self.mode == "vote" and self._multi():
            _two_classes_only(self._owner, self.classes_, " with mode='vote'")

    def _infer_classes(self, y, classes):
        cl = super()._infer_classes(y, classes)
        if self.mode == "vote":
            if classes is not None and len(cl) > 2:
                raise ValueError(f"{self._owner}: classes must hold exactly two distinct labels "
                                 f"with mode='vote' (only binary classification is supported), "
                                 f"got {cl!r}")
            _two_classes_only(self._owner, cl, " with mode='vote'")
        return cl

    def _init_state(self, d):
        super()._init_state(d)
        if self._multi():
            self._U = [list(w) for w in self._W]
            self._votes = []
            return
        self._u = list(self._w)
        self._votes = [[list(self._w), 0]]

    def _state_dict(self):
        if self._multi():
            return super()._state_dict()
        return {"w": self._w, "a": self._a, "u": self._u, "votes": self._votes}

    def _dict_mode(self):
        return "fixed" if self.mode == "vote" else "grow"

    def _grow_features(self, d):
        if self._multi():
            self._U = [self._widened(u, d) for u in self._U]
        else:
            self._u = self._widened(self._u, d)
            self._votes = [[self._widened(v, d), c] for v, c in self._votes]
        super()._grow_features(d)

    def _load_state_dict(self, s):
        if self._multi():
            super()._load_state_dict(s)
            return
        self._w, self._a, self._u, self._votes = s["w"], s["a"], s["u"], s["votes"]

    def _step(self, x, y, i):
        p, upd = super()._step(x, y, i)
        if upd:
            if self.mode == "vote":
                self._votes.append([list(self._w), 1])
        elif self.mode == "vote":
            self._votes[-1][1] += 1
        return p, upd

    def _on_update(self, c, x, i):
        tc = float(self.n_seen_) * c
        if not self._apply(self._u, tc, x):
            raise self._row_error(i)

    def _on_update_k(self, k, c, x, i):
        """u_k += (t*c) x (for the rival of Kesler's update, c is -c: t*(-c) == -(t*c))."""
        tc = float(self.n_seen_) * c
        if not self._apply(self._U[k], tc, x):
            raise self._row_error(i)

    def _rec_effective(self, r):
        """The average w + (w - u)/T: start w0 + (w0 - u0)/T, coefficients c_j (T - i_j)/T."""
        T = self.n_seen_
        if T == 0:
            return super()._rec_effective(r)
        start = [w + (w - u) / T for w, u in zip(r["w0"], r["u0"])]
        return start, [c * ((T - i) / T) for c, i in zip(r["coef"], r["idx"])], None, 3

    def _explanation(self, x, X_train):
        if self.mode == "vote":
            raise ValueError(f"{self._owner}: parameter mode is 'vote': the voted Perceptron's "
                             "prediction is a vote, not a sum, and has no explanation (use "
                             "mode='average')")
        return super()._explanation(x, X_train)

    def _average(self):
        T = float(self.n_seen_)
        if T == 0.0:
            return list(self._w)
        return [w + (w - u) / T for w, u in zip(self._w, self._u)]

    def _hypothesis(self):
        """The averaged weights of every class: W + (W - U) / T per entry."""
        T = float(self.n_seen_)
        if T == 0.0:
            return [list(w) for w in self._W]
        return [[w + (w - u) / T for w, u in zip(wk, uk)] for wk, uk in zip(self._W, self._U)]

    @property
    def coef_(self):
        self._check_fitted("coef_")
        if self._multi():
            return [w[:self._d] for w in self._hypothesis()]
        return self._average()[:self._d]

    @property
    def intercept_(self):
        self._check_fitted("intercept_")
        if self._multi():
            return [w[self._d] if self.fit_intercept else 0.0 for w in self._hypothesis()]
        return self._average()[self._d] if self.fit_intercept else 0.0

    @property
    def vote_vectors_(self):
        self._check_fitted("vote_vectors_")
        return [v for v, c in self._votes if c > 0]

    @property
    def vote_counts_(self):
        self._check_fitted("vote_counts_")
        return [c for v, c in self._votes if c > 0]

    def _score(self, x):
        inv = self._inv(x) if self.normalize else 1.0
        if self.mode == "average":
            return self._raw(self._average(), 1.0, x, inv)
        total = 0.0
        for v, c in self._votes:
            if c > 0:
                s = self._raw(v, 1.0, x, inv)
                if not math.isfinite(s):
                    return s
                total = total + float(c * self._sign(s))
        return total


class MarginPerceptron(_Linear):
    """Balcan's Margin Perceptron(gamma) (twin of mbcore.MarginPerceptron)."""

    _MULTI_STATE = ("_W", "_a", "_sqs")

    def __init__(self, gamma=0.1, margin_fraction=0.5, tie="negative", fit_intercept=False,
                 max_epochs=100, multi_class="multiclass", n_jobs=None, class_weight=None,
                 record_updates=False):
        self.gamma = gamma
        self.margin_fraction = margin_fraction
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.class_weight = class_weight
        self.record_updates = record_updates
        self.n_jobs = n_jobs        # (checked, no effect: the twin's pass is sequential)

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "gamma", self.gamma, 0)
        _check_real(self._owner, "margin_fraction", self.margin_fraction, 0, 1)

    def _normalizes(self):
        return True

    def _init_state(self, d):
        super()._init_state(d)
        if self._multi():
            self._sqs = [self._sqnorm(w) for w in self._W]
            return
        self._sq = self._sqnorm(self._w)

    def _state_dict(self):
        if self._multi():
            return super()._state_dict()
        return {"w": self._w, "a": self._a, "sq": self._sq}

    def _load_state_dict(self, s):
        if self._multi():
            super()._load_state_dict(s)
            return
        self._w, self._a, self._sq = s["w"], s["a"], s["sq"]

    def _sqnorm(self, w):
        sq = _arith.dense_sumsq(w, self._d)
        if self.fit_intercept:
            sq = sq + w[self._d] * w[self._d]
        return sq

    def _margin(self, s):
        nw = math.sqrt(self._sq)
        return s / nw if nw > 0.0 else 0.0

    def _score(self, x):
        return self._margin(super()._score(x))

    def _step(self, x, y, i):
        if self._multi():
            return self._step_multi(x, y, i)
        inv = self._inv(x)
        s = self._raw(self._w, 1.0, x, inv)
        if not math.isfinite(s):
            raise self._row_error(i)
        m = self._margin(s)
        p = self._sign(m)
        thr = self.margin_fraction * self.gamma
        if (p == y and not (-thr < m < thr)) or self._weight(i) == 0.0:
            return p, False
        c = (y * inv) * self._weight(i)
        if not self._apply(self._w, c, x):
            raise self._row_error(i)
        self._sq = self._sqnorm(self._w)
        if not math.isfinite(self._sq):
            raise self._row_error(i)
        return p, True

    def _sq_total(self):
        """||W||_F^2 = sum of the sq_k, k = 0..K-1, left to right."""
        sq = 0.0
        for v in self._sqs:
            sq = sq + v
        return sq

    def _margin_k(self, k, s):
        """The binary margin of learner k (one-vs-rest): s / ||w_k||, 0.0 when w_k = 0."""
        nw = math.sqrt(self._sqs[k])
        return s / nw if nw > 0.0 else 0.0

    def _step_mc(self, x, y, i):
        """Kesler: r = argmax_{k != y} s_k, m = (s_y - s_r) / ||W||_F (0.0 when W = 0); update
        iff yhat != y or m < margin_fraction * gamma: w_y += inv x, w_r -= inv x."""
        inv = self._inv(x)
        s = self._class_scores(self._W, x, inv, i)
        p = _argmax(s)
        r = _argmax(s, skip=y)
        nw = math.sqrt(self._sq_total())
        m = (s[y] - s[r]) / nw if nw > 0.0 else 0.0
        thr = self.margin_fraction * self.gamma
        if (p == y and not m < thr) or self._weight(i) == 0.0:
            return p, False
        c = inv * self._weight(i)
        ok = self._apply(self._W[y], c, x)
        ok = self._apply(self._W[r], -c, x) and ok
        if not ok:
            raise self._row_error(i)
        self._sqs = [self._sqnorm(w) for w in self._W]
        if not math.isfinite(self._sq_total()):
            raise self._row_error(i)
        return p, True

    def _step_ovr(self, x, y, i):
        """One-vs-rest: learner k is the binary Margin Perceptron on y_k = +1 iff y == k;
        yhat = argmax_k of the binary margins s_k / ||w_k||."""
        inv = self._inv(x)
        s = self._class_scores(self._W, x, inv, i)
        m = [self._margin_k(k, s[k]) for k in range(self._K)]
        p = _argmax(m)
        thr = self.margin_fraction * self.gamma
        updated = False
        for k in range(self._K):
            yk = 1 if y == k else -1
            if (self._sign(m[k]) == yk and not (-thr < m[k] < thr)) or self._weight(i) == 0.0:
                continue
            c = (yk * inv) * self._weight(i)
            if not self._apply(self._W[k], c, x):
                raise self._row_error(i)
            self._sqs[k] = self._sqnorm(self._W[k])
            if not math.isfinite(self._sqs[k]):
                raise self._row_error(i)
            updated = True
        return p, updated

    def _rule_scores(self, x):
        s = super()._rule_scores(x)
        if self.multi_class == "ovr":
            return [self._margin_k(k, s[k]) for k in range(self._K)]
        return s

    def _explain_post(self, x):
        inv = super()._explain_post(x)[0]
        if not self._multi():
            return inv, math.sqrt(self._sq)
        if self.multi_class == "ovr":
            return inv, [math.sqrt(v) for v in self._sqs]
        return inv, math.sqrt(self._sq_total())

    def _decision_scores(self, x):
        s = self._rule_scores(x)
        if self.multi_class == "ovr":
            return s
        nw = math.sqrt(self._sq_total())
        return [v / nw if nw > 0.0 else 0.0 for v in s]


class OnlineHingeSVM(_Linear):
    """Online subgradient descent on the regularised hinge loss (twin of mbcore.OnlineHingeSVM)."""

    _scale_a = True

    def __init__(self, lam=0.01, eta="pegasos", tie="negative", normalize=False,
                 fit_intercept=False, max_epochs=5, multi_class="multiclass", class_weight=None,
                 record_updates=False):
        self.lam = lam
        self.eta = eta
        self.tie = tie
        self.normalize = normalize
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.class_weight = class_weight
        self.record_updates = record_updates

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "lam", self.lam, 0)
        if not (isinstance(self.eta, str) and self.eta == "pegasos"):
            e = self.eta
            if not (isinstance(e, numbers.Real) and not isinstance(e, bool)
                    and math.isfinite(float(e)) and e > 0):
                raise ValueError(f'{self._owner}: parameter eta must be "pegasos" or a finite '
                                 f'real > 0, got {e!r}')
            if self.eta * self.lam > 1.0:
                raise ValueError(f"{self._owner}: parameters eta * lam must be <= 1 (the weights "
                                 f"would change sign), got eta={self.eta!r}, lam={self.lam!r}")
        if not isinstance(self.normalize, bool):
            raise ValueError(f"{self._owner}: parameter normalize must be a bool, got "
                             f"{self.normalize!r}")

    def _cycle_key(self):
        return None

    def _step(self, x, y, i):
        if self._multi():
            return self._step_multi(x, y, i)
        inv = self._inv(x) if self.normalize else 1.0
        s = self._raw(self._w, self._a, x, inv)
        if not math.isfinite(s):
            raise self._row_error(i)
        p = self._sign(s)
        viol = y * s < 1.0 and self._weight(i) != 0.0
        t = float(self.n_seen_)
        if self.eta == "pegasos":
            eta_t = 1.0 / (self.lam * t)
            factor = 1.0 - 1.0 / t
        else:
            eta_t = float(self.eta)
            factor = 1.0 - float(self.eta) * self.lam
        a = self._a * factor
        d = self._d
        if a == 0.0:
            for j in range(d):
                self._w[j] = 0.0
            a = 1.0
        elif a < _PEGASOS_RESCALE:
            for j in range(d):
                self._w[j] = self._w[j] * a
            a = 1.0
        self._a = a
        if viol:
            c = eta_t * y
            if self.normalize:
                c = c * inv
            c = c * self._weight(i)
            ca = c / a
            ok = _arith.axpy(self._w, ca, x)
            if self.fit_intercept:
                self._w[d] = self._w[d] + c
                ok = ok and math.isfinite(self._w[d])
            if not ok:
                raise self._row_error(i)
            if self.__dict__.get("_rec") is not None:
                self._rec_note(-1, c)
        return p, viol

    def _rec_effective(self, r):
        """w = a v: update j (row t_j) weighs c_j t_j / T (Pegasos) or c_j f^(T - t_j) in the
        features, c_j in the intercept; the start a0 w0 likewise from t0."""
        T, t0 = self.n_seen_, r["t"][0]
        K = len(self._W) if self._multi() else 1
        if self.eta == "pegasos":
            F = [(i + 1) / T for i in r["idx"]]
            Fs = t0 / T if T else 1.0
        else:
            f = 1.0 - float(self.eta) * self.lam
            F = [f ** float(T - (i + 1)) for i in r["idx"]]
            Fs = f ** float(T - t0)
        start = list(r["w0"])
        for j in range(self._d * K):
            start[j] = (r["a0"] * start[j]) * Fs
        return start, [c * g for c, g in zip(r["coef"], F)], list(r["coef"]), T - t0 + 2

    def _shrink_all(self):
        """The binary shrink step on every class at once (one shared scale a); returns eta_t."""
        t = float(self.n_seen_)
        if self.eta == "pegasos":
            eta_t = 1.0 / (self.lam * t)
            factor = 1.0 - 1.0 / t
        else:
            eta_t = float(self.eta)
            factor = 1.0 - float(self.eta) * self.lam
        a = self._a * factor
        d = self._d
        if a == 0.0:
            for w in self._W:
                for j in range(d):
                    w[j] = 0.0
            a = 1.0
        elif a < _PEGASOS_RESCALE:
            for w in self._W:
                for j in range(d):
                    w[j] = w[j] * a
            a = 1.0
        self._a = a
        return eta_t

    def _move(self, k, c, x, i):
        """w_k += (c / a) x, b_k += c (the binary hinge step of class k)."""
        if self.__dict__.get("_rec") is not None:
            self._rec_note(k, c)
        ok = _arith.axpy(self._W[k], c / self._a, x)
        if self.fit_intercept:
            d = self._d
            self._W[k][d] = self._W[k][d] + c
            ok = ok and math.isfinite(self._W[k][d])
        if not ok:
            raise self._row_error(i)

    def _step_mc(self, x, y, i):
        """Kesler: r = argmax_{k != y} s_k, viol = s_y - s_r < 1 (scores before the step); the
        shrink step; if viol, c = eta_t (* inv): w_y += (c/a) x, b_y += c; w_r -= (c/a) x,
        b_r -= c."""
        inv = self._inv(x) if self.normalize else 1.0
        s = self._class_scores(self._W, x, inv, i)
        p = _argmax(s)
        r = _argmax(s, skip=y)
        viol = (s[y] - s[r]) < 1.0 and self._weight(i) != 0.0
        eta_t = self._shrink_all()
        if viol:
            c = eta_t
            if self.normalize:
                c = c * inv
            c = c * self._weight(i)
            self._move(y, c, x, i)
            self._move(r, -c, x, i)
        return p, viol

    def _step_ovr(self, x, y, i):
        """One-vs-rest: learner k is the binary hinge learner on y_k = +1 iff y == k (viol_k =
        y_k s_k < 1); one shared shrink step; yhat = argmax_k s_k."""
        inv = self._inv(x) if self.normalize else 1.0
        s = self._class_scores(self._W, x, inv, i)
        p = _argmax(s)
        viol = [(1 if y == k else -1) * s[k] < 1.0 and self._weight(i) != 0.0
                for k in range(self._K)]
        eta_t = self._shrink_all()
        for k in range(self._K):
            if viol[k]:
                c = eta_t * (1 if y == k else -1)
                if self.normalize:
                    c = c * inv
                c = c * self._weight(i)
                self._move(k, c, x, i)
        return p, any(viol)


class PassiveAggressive(_Linear):
    """PA, PA-I and PA-II of Crammer et al. 2006 (twin of mbcore.PassiveAggressive).

    Two classes: s = w . x (+ b); predict by the sign (tie rule); when y s < 1,
    loss = 1.0 - y * s, sq = sumsq(x) (+ 1.0 with an intercept), den = sq + lam (lam = 0.5 / C
    for PA-II, else 0.0); if 0 < den < inf: tau = loss / den, then tau = C if tau > C (PA-I);
    c = tau * y and, if c != 0, w += c x (b += c): an update.  Otherwise no change.
    K >= 3, "multiclass": r = argmax_{k != y} s_k; when s_y - s_r < 1, the same tau from
    loss = 1.0 - (s_y - s_r) and sq' = 2.0 * sq; w_y += tau x, w_r -= tau x.  "ovr": learner k
    the binary rule on +1 iff y == k (one sq for all).
    """

    def __init__(self, C=1.0, variant="PA-I", tie="negative", fit_intercept=False,
                 max_epochs=100, multi_class="multiclass", n_jobs=None, class_weight=None,
                 record_updates=False):
        self.C = C
        self.variant = variant
        self.tie = tie
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.class_weight = class_weight
        self.record_updates = record_updates
        self.n_jobs = n_jobs        # (checked, no effect: the twin's pass is sequential)

    normalize = False

    def _validate_params(self):
        super()._validate_params()
        _check_real(self._owner, "C", self.C, 0)
        _check_choice(self._owner, "variant", self.variant, ("PA", "PA-I", "PA-II"))

    def _sq(self, x):
        sq = _arith.sumsq(x)
        if self.fit_intercept:
            sq = sq + 1.0
        return sq

    def _tau(self, loss, sq, sw=1.0):
        """The step; a row of sample weight sw > 0 has the aggressiveness C * sw: lam / sw
        (PA-II's 1/(2C) divided by sw) and the cap C * sw (PA-I)."""
        den = sq + (0.5 / float(self.C) if self.variant == "PA-II" else 0.0) / sw
        if not 0.0 < den < math.inf:
            return 0.0
        tau = loss / den
        if self.variant == "PA-I" and tau > float(self.C) * sw:
            tau = float(self.C) * sw
        return tau

    def _step(self, x, y, i):
        if self._multi():
            return self._step_multi(x, y, i)
        s = self._raw(self._w, 1.0, x, 1.0)
        if not math.isfinite(s):
            raise self._row_error(i)
        p = self._sign(s)
        if not y * s < 1.0 or self._weight(i) == 0.0:
            return p, False
        c = self._tau(1.0 - y * s, self._sq(x), self._weight(i)) * y
        if c == 0.0:
            return p, False
        if not self._apply(self._w, c, x):
            raise self._row_error(i)
        return p, True

    def _step_mc(self, x, y, i):
        s = self._class_scores(self._W, x, 1.0, i)
        p = _argmax(s)
        r = _argmax(s, skip=y)
        if not (s[y] - s[r]) < 1.0 or self._weight(i) == 0.0:
            return p, False
        c = self._tau(1.0 - (s[y] - s[r]), 2.0 * self._sq(x), self._weight(i))
        if c == 0.0:
            return p, False
        ok = self._apply(self._W[y], c, x)
        ok = self._apply(self._W[r], -c, x) and ok
        if not ok:
            raise self._row_error(i)
        return p, True

    def _step_ovr(self, x, y, i):
        s = self._class_scores(self._W, x, 1.0, i)
        p = _argmax(s)
        sq = self._sq(x)
        updated = False
        for k in range(self._K):
            yk = 1 if y == k else -1
            if not yk * s[k] < 1.0 or self._weight(i) == 0.0:
                continue
            c = self._tau(1.0 - yk * s[k], sq, self._weight(i)) * yk
            if c == 0.0:
                continue
            if not self._apply(self._W[k], c, x):
                raise self._row_error(i)
            updated = True
        return p, updated


# Defined in mbref.kernel; importable from here, as before the split.
from .kernel import KernelPerceptron  # noqa: E402
