"""The multiplicative family, literally from the rules stated in mbcore.multiplicative (pure
Python, the specification).

Numerics (the policy both twins follow)
---------------------------------------
Weights are kept as base-2 logarithms ``l_i`` (w_i = 2**l_i; elimination sets l_i = -inf, a weight
of exactly 0).  A promotion adds ``x_i * log2(alpha)``, a demotion ``x_i * log2(beta)``.

* **Exact mode** (Boolean features and alpha, beta (or 0) and w0 all powers of two): every l_i is
  an integer, so the state is exact for any run length, and the prediction is the exact one:
  ``sum_{x_i = 1} 2**l_i >= theta`` decided with exact rational arithmetic (the compiled kernel
  decides it with a filtered predicate: a float64 sum with a rigorous error bound, and an exact
  binary comparison when theta falls inside the bound).
  BalancedWinnow likewise (its own two weight vectors ``l+``, ``l-``, both integral): the
  prediction is the exact ``sum 2**l+_i - sum 2**l-_i >= theta`` (the compiled kernel: float64
  sums of both sides with rigorous error bounds, and exact binary sums of ``2**l+`` against those
  of ``2**l-`` and theta's bits when the difference is within the bounds).
* **Real mode** (real-valued features, or factors that are not powers of two): the score is
  ``sum_i x_i * 2**l_i`` summed in float64 in the four-partial-sum order of ``mbref._arith`` (each
  term ``x_i * w_i`` with ``w_i = 2.0 ** l_i``; BalancedWinnow: ``x_i * (w+_i - w-_i)``), and the
  prediction is ``score >= theta``.  No weight ever underflows to 0 or overflows: only its
  logarithm is stored.  A score that cannot be decided in this arithmetic (NaN, from inf - inf;
  for BalancedWinnow, whose terms cancel, any score past the float64 range) makes the call raise
  ValueError naming the row (``_nonfinite``), never a silent answer, and the learner is left as
  it was.  Winnow's score inf (a positive weight past 2**1023) is >= theta.

``decision_function`` (two classes, and each column of one-vs-rest) is ``score - theta``, with
the score as above (exact mode: the float64 four-partial-sum of the active weights, or of
``w+ - w-``), so that ``decision_function(X) > 0`` exactly where the rule predicts the positive
class and ``< 0`` where it predicts the negative one (a 0 is a tie, predicted positive as the rule
``>= theta`` says).  Where the rounded value has the wrong sign (exact mode, within the float
sum's error of theta) it is replaced by ``0.0`` (the rule predicts positive) or by the smallest
negative double ``-2**-1074`` (the rule predicts negative): ``_signed_margin``.

Three classes or more (K >= 3, ``classes_`` sorted, labels are class indices)
--------------------------------------------------------------------------------
One row of log-weights ``L[k]`` per class (BalancedWinnow: ``L+[k]`` and ``L-[k]``), all starting
at log2(w0).  The score ``S_k`` of class k is the binary score with class k's weights: in exact
mode the exact rational ``sum_{x_i = 1} 2**L[k][i]``, compared exactly; in real mode the float64
four-partial-sum of ``x_i * 2**L[k][i]`` (BalancedWinnow: of ``x_i * (2**L+ - 2**L-)``).  The
prediction is the argmax of the ``S_k``, the smallest index among ties (exact comparisons in exact
mode).  ``multi_class="multiclass"`` (Mesterharm's Committee rule on attributes): on a mistake,
class y gets the binary promotion and the predicted class the binary demotion, on the active
features in increasing order (``updates_ == mistakes_``).  ``multi_class="ovr"``: learner k is
the binary learner on ``+1 iff y == k`` (its own decision ``S_k >= theta_``, its own binary
update); all decide from the state before the row; a row is an update when one of them
updated.  Two classes: the binary learner, whatever ``multi_class``.
"""

import math
import numbers
from fractions import Fraction

from ._numerics import finite as _finite, pow2_exponent as _pow2_exponent, term as _term
from .base import ManyClasses, OnlineLearner, check_n_jobs, check_rows, feature_count

__all__ = ["Winnow", "EliminationWinnow", "WinnowStar", "BalancedWinnow"]

_X_LIMIT = 2.0 ** 100


def _sum4(terms):
    s0 = s1 = s2 = s3 = 0.0
    for k, t in enumerate(terms):
        r = k & 3
        if r == 0:
            s0 += t
        elif r == 1:
            s1 += t
        elif r == 2:
            s2 += t
        else:
            s3 += t
    return (s0 + s1) + (s2 + s3)


def _argmax(scores):
    """The smallest index k with the largest score: scan k = 0..K-1, replacing the best only on
    a strictly greater score (Fractions in exact mode: exact comparisons)."""
    best = 0
    for k in range(1, len(scores)):
        if scores[k] > scores[best]:
            best = k
    return best


_MULTI_CLASS = ("multiclass", "ovr")

_TINY = 5e-324      # 2**-1074, the smallest positive double


def _pow2(e):
    """2**e for an integral log-weight e (-inf: 0), exactly."""
    return Fraction(0) if e == -math.inf else Fraction(2) ** int(e)


def _signed_margin(score, theta, positive):
    """decision_function's value: score - theta, its sign made that of the rule's decision
    (``positive``: score >= theta, exactly in exact mode)."""
    d = score - theta
    if positive and not d >= 0.0:
        return 0.0
    if not positive and not d < 0.0:
        return -_TINY
    return d


def _nonfinite(owner, i):
    """The error of a score that is not finite in float arithmetic (real mode)."""
    return ValueError(f"{owner}: the score of row {i} is not finite in float64 arithmetic (a "
                      "weight has left float64's range); use features='boolean' with "
                      "power-of-two alpha and w0 (exact arithmetic), scale X down, or learn "
                      "fewer passes; the learner was left as before the call")


class _Winnow(ManyClasses, OnlineLearner):
    """Shared machinery: validation, log-weights, the score, the protocol.

    ``n_jobs`` (mbcore's threads of the online pass) is accepted, checked and stored, with no
    effect: the twin is sequential (mbcore's results are the same for any number of threads)."""

    # (sample_weight: refused, OnlineLearner._refuse_weights)
    _NO_WEIGHTS = ("a mistake multiplies the active weights by the fixed factors alpha "
                   "and beta, and the notes give no weighted form of the rule")

    _variant = "winnow2"
    _theta_required = False

    def _validate_params(self):
        o = self._owner
        a = self._alpha()
        if not (_finite(a) and a > 1):
            raise ValueError(f"{o}: parameter alpha must be a finite real > 1, got {a!r}")
        b = self._beta()
        if not (_finite(b) and 0 <= b < 1):
            raise ValueError(f"{o}: parameter beta must be a real in [0, 1), got {b!r}")
        t = getattr(self, "theta", None)
        if (t is None and self._theta_required) or (t is not None and not (_finite(t) and t > 0)):
            what = "a finite real > 0" + ("" if self._theta_required else " or None")
            raise ValueError(f"{o}: parameter theta must be {what}, got {t!r}")
        w0 = self._w0()
        if not (_finite(w0) and w0 > 0):
            raise ValueError(f"{o}: parameter w0 must be a finite real > 0, got {w0!r}")
        nf = getattr(self, "n_features", None)
        if nf is not None and (isinstance(nf, bool) or not isinstance(nf, numbers.Integral)
                               or nf < 1):
            raise ValueError(f"{o}: parameter n_features must be an integer >= 1 or None, got "
                             f"{nf!r}")
        if self.features not in ("boolean", "real"):
            raise ValueError(f"{o}: parameter features must be one of ['boolean', 'real'], got "
                             f"{self.features!r}")
        m = self.max_epochs
        if isinstance(m, bool) or not isinstance(m, numbers.Integral) or m < 1:
            raise ValueError(f"{o}: parameter max_epochs must be an integer >= 1, got {m!r}")
        v = self.multi_class
        if not isinstance(v, str) or v not in _MULTI_CLASS:
            raise ValueError(f"{o}: parameter multi_class must be one of {list(_MULTI_CLASS)}, "
                             f"got {v!r}")
        check_n_jobs(o, getattr(self, "n_jobs", None))
        r = getattr(self, "record_updates", False)
        if type(r) is not bool and type(r).__name__ != "bool_":
            raise ValueError(f"{o}: parameter record_updates must be a bool, got {r!r}")

    # parameters with variant-specific defaults
    def _alpha(self):
        return self.alpha

    def _beta(self):
        return 1.0 / self.alpha if self.beta is None else self.beta

    def _w0(self):
        return self.w0

    def _theta(self, d):
        return float(d) if self.theta is None else float(self.theta)

    def _exact(self):
        b = self._beta()
        return (self.features == "boolean" and _pow2_exponent(float(self._alpha())) is not None
                and (b == 0 or _pow2_exponent(float(b)) is not None)
                and _pow2_exponent(float(self._w0())) is not None)

    def _logs(self):
        """log2(alpha), log2(beta) (-inf for 0), log2(w0); exact integers in exact mode."""
        out = []
        for v in (float(self._alpha()), float(self._beta()), float(self._w0())):
            k = _pow2_exponent(v) if v > 0 else None
            out.append(float(k) if k is not None else (math.log2(v) if v > 0 else -math.inf))
        return out

    def _init_state(self, d):
        feature_count(self._owner, d, getattr(self, "n_features", None))
        self._d = d
        self.theta_ = self._theta(d)
        self._la, self._lb, lw0 = self._logs()
        self._K = len(self.classes_)
        if self._K > 2:
            self._L = [[lw0] * d for _ in range(self._K)]
            self._l = None
        else:
            self._l = [lw0] * d
        self._exact_mode = self._exact()
        self._rec_idx, self._rec_dir = [], []

    def _state_dict(self):
        if self._multi():
            return {"L": self._L}
        return {"l": self._l}

    def _load_state_dict(self, s):
        if self._multi():
            self._L = s["L"]
            return
        self._l = s["l"]

    def _expected_features(self, first):
        # With n_features set, X must have that many features from the first call on.
        nf = super()._expected_features(first)
        return int(self.n_features) if nf is None and self.n_features is not None else nf

    def _prepare(self, X, y, classes, check_values=False):
        self._validate_params()  # n_features is read while converting index lists
        rows, yy = super()._prepare(_as_rows(self, X), y, classes)
        self._check_values(rows, _integer_values(self, X))
        return rows, yy

    def _check_values(self, rows, integers=False):
        """The first value out of the domain (NaN and infinity included), row by row, as the
        compiled kernel meets it; ``integers``: X holds uint8 values (shown as ints)."""
        o = self._owner
        boolean = self.features == "boolean"
        for i, r in enumerate(rows):
            vals = r[1] if isinstance(r, tuple) else r
            for v in vals:
                if (v != 0.0 and v != 1.0) if boolean else not abs(v) <= _X_LIMIT:
                    break
            else:
                continue
            if boolean:
                if not math.isfinite(v):
                    raise ValueError(f"{o}: X contains NaN or infinity ({v!r}) in row {i}; X "
                                     "must be Boolean (0/1) with features='boolean'")
                raise ValueError(f"{o}: X must be Boolean (0/1) with features='boolean', got "
                                 f"{int(v) if integers else v!r} in row {i}")
            if not math.isfinite(v):
                raise ValueError(f"{o}: X contains NaN or infinity ({v!r}) in row {i}; X must "
                                 "be finite with |x| <= 2**100 with features='real'")
            raise ValueError(f"{o}: X must be finite with |x| <= 2**100 with features='real', "
                             f"got {v!r} in row {i}")

    def _active(self, x):
        """(index, value) of the row's non-zero features, in the row's order."""
        if isinstance(x, tuple):
            return [(j, v) for j, v in zip(*x) if v != 0.0]
        return [(j, v) for j, v in enumerate(x) if v != 0.0]

    def _positive(self, x, i):
        """The rule's decision on row i (score >= theta_), exactly in exact mode."""
        return self._class_positive(self._exact_score(self._active(x), i))

    def _exact_score(self, act, i, k=None):
        """The score that decides (of class k's weights with K >= 3 classes): the exact
        Fraction in exact mode, else the float64 score, which must be finite (row i)."""
        if self._exact_mode:
            return self._exact_sum(act, k)
        s = self._score_real(act, self._l if k is None else self._L[k], k)
        if not self._decidable(s):
            raise _nonfinite(self._owner, i)
        return s

    def _decidable(self, s):
        """Whether a real-mode score decides: not NaN (inf - inf); Winnow's inf >= theta (a
        positive weight past 2**1023) does."""
        return s == s

    def _exact_sum(self, act, k=None):
        """sum of 2**l over the active features, exactly (exact mode)."""
        logs = self._l if k is None else self._L[k]
        return sum((_pow2(logs[j]) for j, _ in act), Fraction(0))

    def _score_real(self, act, logs, k=None):
        return _sum4([v * _term(logs[j]) for j, v in act])

    def _score(self, act, k=None):
        """The float64 score of decision_function (class k's with K >= 3 classes)."""
        logs = self._l if k is None else self._L[k]
        if self._exact_mode:
            return _sum4([_term(logs[j]) for j, _ in act])
        return self._score_real(act, logs, k)

    # -- the record of updates (record_updates=True) ------------------------------------------
    # Per update of a weight vector: the row's place in the training stream (fit's epochs
    # repeat X's rows; partial_fit calls follow each other) and the direction, +1.0 a promotion,
    # -1.0 a demotion; with K >= 3 classes +-(k + 1) for class k's weights (a mistake promotes
    # the true class, then demotes the predicted one).  multi_class="ovr" with K >= 3 refuses it.
    def _run(self, rows, yy, sw=None):
        rec = self.record_updates
        if rec and self._multi() and self.multi_class == "ovr":
            raise ValueError(f"{self._owner}: record_updates=True takes two classes or "
                             "multi_class='multiclass', got multi_class='ovr' with "
                             f"{self._K} classes")
        self._pending = [] if rec else None
        self._base = 0 if getattr(self, "_in_epochs", False) else self.n_seen_
        out = super()._run(rows, yy, sw)
        if rec:
            self._rec_idx.extend(i for i, _ in self._pending)
            self._rec_dir.extend(v for _, v in self._pending)
        self._pending = None
        return out

    def _epochs(self, rows, yy, sw=None):
        self._in_epochs = True
        try:
            super()._epochs(rows, yy, sw)
        finally:
            self._in_epochs = False

    def _note(self, y, k):
        """Record one update of the current row (y: +1 promotion, -1 demotion; k: the class)."""
        if getattr(self, "_pending", None) is not None:
            self._pending.append((self._base + self._row,
                                  float(y) * (1.0 if k is None else float(k + 1))))

    @property
    def update_record_(self):
        """(indices, directions) of the recorded updates (lists)."""
        self._check_fitted("update_record_")
        return list(self._rec_idx), list(self._rec_dir)

    def _step(self, x, y, i):
        self._row = i
        if self._multi():
            if self.multi_class == "ovr":
                return self._step_ovr(x, y, i)
            return self._step_mc(x, y, i)
        p = 1 if self._positive(x, i) else -1
        if p == y:
            return p, False
        self._update(self._active(x), y)
        return p, True

    def _update(self, act, y, k=None):
        """The binary update (y = +1 a promotion, -1 a demotion) of the weights, or of class k's
        weights with K >= 3 classes."""
        self._note(y, k)
        l = self._l if k is None else self._L[k]
        for j, v in act:
            if y > 0:
                l[j] = l[j] + v * self._la
            elif self._lb == -math.inf:
                l[j] = -math.inf
            else:
                l[j] = l[j] + v * self._lb

    # -- three classes or more ------------------------------------------------------------
    def _class_scores(self, act, i):
        """S_k for k = 0..K-1: exact Fractions in exact mode, else the binary float64 score
        (every one finite, or the row i raises)."""
        return [self._exact_score(act, i, k) for k in range(self._K)]

    def _class_positive(self, s):
        """The binary decision of one class's learner (one-vs-rest): S_k >= theta_, exactly in
        exact mode."""
        if self._exact_mode:
            return s >= Fraction(self.theta_)
        return s >= self.theta_

    def _step_mc(self, x, y, i):
        """yhat = argmax_k S_k; on a mistake class y is promoted and class yhat demoted (the
        binary updates), on the active features."""
        act = self._active(x)
        p = _argmax(self._class_scores(act, i))
        if p == y:
            return p, False
        self._update(act, 1, y)
        self._update(act, -1, p)
        return p, True

    def _step_ovr(self, x, y, i):
        """Learner k: the binary learner on y_k = +1 iff y == k; every learner decides from the
        state before the row; yhat = argmax_k S_k."""
        act = self._active(x)
        s = self._class_scores(act, i)
        p = _argmax(s)
        flips = []
        for k in range(self._K):
            yk = 1 if y == k else -1
            if (1 if self._class_positive(s[k]) else -1) != yk:
                flips.append((k, yk))
        for k, yk in flips:
            self._update(act, yk, k)
        return p, bool(flips)

    def _class_decision(self, act, i):
        """The K columns of decision_function (float64): the class scores S_k ("multiclass"),
        or each binary learner's ``S_k - theta_`` with the sign of its decision ("ovr")."""
        s = self._class_scores(act, i)
        if self.multi_class == "ovr":
            return [_signed_margin(self._score(act, k), self.theta_, self._class_positive(s[k]))
                    for k in range(self._K)]
        return [self._score(act, k) for k in range(self._K)]

    def _scores(self, X):
        self._check_fitted("predict")
        self._validate_params()
        rows, _ = check_rows(self._owner, _as_rows(self, X), self.n_features_in_)
        self._check_values(rows, _integer_values(self, X))
        return rows

    def decision_function(self, X):
        """score - theta_ of each row (float64; its sign is the rule's decision: > 0 positive,
        < 0 negative, 0 a tie, predicted positive); with K >= 3 classes, the K class scores
        ("multiclass") or each class learner's score - theta_ ("ovr")."""
        rows = self._scores(X)
        if self._is_fitted() and self._multi():
            return [self._class_decision(self._active(x), i) for i, x in enumerate(rows)]
        return [_signed_margin(self._score(self._active(x)), self.theta_, self._positive(x, i))
                for i, x in enumerate(rows)]

    def predict(self, X):
        rows = self._scores(X)
        if self._is_fitted() and self._multi():
            return [self.classes_[_argmax(self._class_scores(self._active(x), i))]
                    for i, x in enumerate(rows)]
        neg, pos = self.classes_ if self._is_fitted() else (None, None)
        return [pos if self._positive(x, i) else neg for i, x in enumerate(rows)]

    @property
    def log2_coef_(self):
        """The exact state: log2 of each weight (-inf for a weight of 0); K rows with K >= 3
        classes."""
        self._check_fitted("log2_coef_")
        if self._multi():
            return [list(L) for L in self._L]
        return list(self._l)

    @property
    def coef_(self):
        """The weights 2**l_i as float64 (0.0 or inf where they leave the float64 range); K rows
        with K >= 3 classes."""
        self._check_fitted("coef_")
        if self._multi():
            return [[_term(v) for v in L] for L in self._L]
        return [_term(v) for v in self._l]

    def _cycle_key(self):
        if self._multi():
            return tuple(v for L in self._L for v in L)
        return tuple(self._l)

    # -- the explanation (twin of mbcore's: mbcore._explain_log.winnow_explanation) ----------
    def _weight_lists(self, k):
        """Class k's log-weights (the binary learner's with k = 0 and two classes), and the
        negative ones (Balanced Winnow) or None."""
        lp = self._L[k] if self._multi() else self._l
        neg = getattr(self, "_Ln" if self._multi() else "_ln", None)
        return lp, (neg[k] if self._multi() else neg) if neg is not None else None

    def _replay(self, rows, focus):
        """The record replayed on the training rows by the rule: the log-weights (K lists),
        the negative ones, per (class, feature) the promotions, applied and skipped demotions
        and the rows, and per row what it added to the focus weights' log2."""
        K = self._K if self._multi() else 1
        d = self.n_features_in_
        lw0 = self._logs()[2]
        L = [[lw0] * d for _ in range(K)]
        Ln = [[lw0] * d for _ in range(K)] if isinstance(self, BalancedWinnow) else None
        cnt = {}
        parts = {}
        la, lb = self._la, self._lb
        if self._rec_idx and max(self._rec_idx) >= len(rows):
            raise ValueError(f"{self._owner}: the record names row {max(self._rec_idx)} of the "
                             f"training stream, but X_train has {len(rows)} rows (give every "
                             "row the learner was trained on, in order)")
        for i, v in zip(self._rec_idx, self._rec_dir):
            k = int(abs(v)) - 1
            l, ln = L[k], (Ln[k] if Ln is not None else None)
            for j, x in self._active(rows[i]):
                c = cnt.setdefault((k, j), [0, 0, 0, []])
                c[3].append(i)
                before, before_n = l[j], (ln[j] if ln is not None else 0.0)
                if v > 0:
                    c[0] += 1
                    l[j] = l[j] + x * la
                    if ln is not None:
                        ln[j] = ln[j] + x * lb
                elif isinstance(self, WinnowStar) and not l[j] >= 0.0:
                    c[2] += 1
                else:
                    c[1] += 1
                    l[j] = -math.inf if lb == -math.inf else l[j] + x * lb
                    if ln is not None:
                        ln[j] = ln[j] + x * la
                if (k, j) in focus and l[j] != before:
                    parts.setdefault(i, []).append(
                        (l[j] - before) - ((ln[j] - before_n) if ln is not None else 0.0))
        return L, Ln, cnt, parts

    def _explanation(self, x, X_train):
        from .explain import Explanation
        self._check_fitted("explain")
        rows = self._scores([x] if not (isinstance(x, (list, tuple)) and x and
                                        isinstance(x[0], (list, tuple))) else x)
        if len(rows) != 1:
            raise ValueError(f"{self._owner}: explain takes one row, got {len(rows)}")
        act = self._active(rows[0])
        multi = self._multi()
        K = self._K if multi else 1
        pred = self.predict(rows)[0]
        score = self.decision_function(rows)[0]
        k = list(self.classes_).index(pred) if multi else 0
        d = self.n_features_in_

        def w(kk, j):
            lp, ln = self._weight_lists(kk)
            return _term(lp[j]) - (_term(ln[j]) if ln is not None else 0.0)
        if multi:
            parts = [[0.0] * K for _ in range(d)]
            for j, v in act:
                for kk in range(K):
                    parts[j][kk] = v * w(kk, j)
            icpt = [0.0] * K
        else:
            parts = [0.0] * d
            for j, v in act:
                parts[j] = v * w(0, j)
            icpt = -self.theta_
        lp, ln = self._weight_lists(k)
        cols = [j for j, _ in act]
        per = 2 if multi else 1
        complete = len(self._rec_idx) == per * self.updates_
        extra = {"threshold": None if multi else self.theta_, "class_index": k,
                 "active_features": cols, "log2_weights": [lp[j] for j in cols],
                 "log_alpha_weights": [lp[j] / self._la for j in cols],
                 "record": bool(self._rec_idx), "complete_record": complete}
        if ln is not None:
            extra["log2_weights_neg"] = [ln[j] for j in cols]
        names = self.__dict__.get("_feature_names")
        e = Explanation(type(self).__name__, pred, score, list(self.classes_), parts, icpt,
                        feature_names=None if names is None else list(names), extra=extra)
        e.log_indices = e.log_parts = e.replay_exact = None
        if X_train is None:
            return e
        if not complete:
            raise ValueError(f"{self._owner}: parameter X_train was given, but the learner did "
                             "not record all its updates (construct it with "
                             "record_updates=True and fit it again)")
        train, _ = check_rows(self._owner, _as_rows(self, X_train), d)
        L, Ln, cnt, ex = self._replay(train, {(k, j) for j in cols})
        got = [c for c in (cnt.get((k, j), [0, 0, 0, []]) for j in cols)]
        extra.update(promotions=[c[0] for c in got], demotions=[c[1] for c in got],
                     skipped_demotions=[c[2] for c in got], rows=[c[3] for c in got],
                     example_units="log2 of the weights")
        mine = [self._weight_lists(kk) for kk in range(K)]
        e.replay_exact = all(L[kk] == list(mine[kk][0]) and
                             (Ln is None or Ln[kk] == list(mine[kk][1])) for kk in range(K))
        e.log_indices = sorted(ex)
        e.log_parts = [math.fsum(ex[i]) if all(math.isfinite(u) for u in ex[i]) else -math.inf
                       for i in e.log_indices]
        return e


def _integer_values(owner, X):
    """True when mbcore reads X's values as integers (features='boolean' with unsigned or bool
    values, dense or sparse), so that a bad value is shown as an int (2, not 2.0)."""
    if owner.features != "boolean":
        return False
    if hasattr(X, "shape") and hasattr(X, "data") and hasattr(X, "indptr"):
        return str(getattr(X.data, "dtype", "")) in ("uint8", "bool")     # CSR: uint8 kept
    if hasattr(X, "tocsr") and hasattr(X, "shape"):
        return str(getattr(X.tocsr().data, "dtype", "")) in ("uint8", "bool")
    return str(getattr(X, "dtype", "")) in ("uint8", "uint16", "uint32", "uint64", "bool")


def _as_rows(owner, X):
    """Lists of active indices become a CSR-like object (data all ones)."""
    if isinstance(X, (list, tuple)) and X and all(
            isinstance(r, (list, tuple)) and all(isinstance(j, numbers.Integral) and
                                                 not isinstance(j, bool) for j in r)
            for r in X) and getattr(owner, "n_features", None) is not None:
        return _IndexRows(owner, X)
    return X


class _IndexRows:
    """Rows given as lists of active feature indices (needs the learner's n_features)."""

    format = "csr"

    def __init__(self, owner, rows):
        n = owner.n_features
        idx, ptr = [], [0]
        for i, r in enumerate(rows):
            s = sorted(int(j) for j in r)
            for k, j in enumerate(s):
                if j < 0 or j >= n:
                    raise ValueError(f"{type(owner).__name__}: active index {j} out of range "
                                     f"[0, {n}) in row {i}")
                if k and s[k - 1] == j:
                    raise ValueError(f"{type(owner).__name__}: active index {j} repeated in "
                                     f"row {i}")
            idx.extend(s)
            ptr.append(len(idx))
        self.indices, self.indptr = idx, ptr
        self.data = [1.0] * len(idx)
        self.shape = (len(rows), n)


class Winnow(_Winnow):
    """Littlestone's Winnow2 (twin of mbcore.Winnow); see that class for the documentation."""

    def __init__(self, alpha=2.0, beta=None, theta=None, w0=1.0, features="boolean",
                 n_features=None, max_epochs=100, multi_class="multiclass", n_jobs=None,
                 record_updates=False):
        self.alpha = alpha
        self.beta = beta
        self.theta = theta
        self.w0 = w0
        self.features = features
        self.n_features = n_features
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs
        self.record_updates = record_updates


class EliminationWinnow(_Winnow):
    """Winnow1 / Kanade's Alg. 4 (twin of mbcore.EliminationWinnow)."""

    def __init__(self, theta=None, n_features=None, max_epochs=100, multi_class="multiclass",
                 n_jobs=None, record_updates=False):
        self.theta = theta
        self.n_features = n_features
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs
        self.record_updates = record_updates

    features = "boolean"

    def _alpha(self):
        return 2.0

    def _beta(self):
        return 0.0

    def _w0(self):
        return 1.0

    def _theta(self, d):
        return d / 2.0 if self.theta is None else float(self.theta)


class WinnowStar(_Winnow):
    """Winnow* for drifting targets (twin of mbcore.WinnowStar)."""

    def __init__(self, alpha=2.0, theta=None, n_features=None, max_epochs=100,
                 multi_class="multiclass", n_jobs=None, record_updates=False):
        self.alpha = alpha
        self.theta = theta
        self.n_features = n_features
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs
        self.record_updates = record_updates

    features = "boolean"
    beta = None
    w0 = 1.0

    def _update(self, act, y, k=None):
        self._note(y, k)
        l = self._l if k is None else self._L[k]
        for j, v in act:
            if y > 0:
                l[j] = l[j] + self._la
            elif l[j] >= 0.0:  # demote only the weights >= 1
                l[j] = l[j] + self._lb


class BalancedWinnow(_Winnow):
    """Balanced Winnow (twin of mbcore.BalancedWinnow): w+ and w-, score (w+ - w-) . x."""

    def __init__(self, alpha=2.0, theta=1.0, w0=1.0, features="boolean", n_features=None,
                 max_epochs=100, multi_class="multiclass", n_jobs=None, record_updates=False):
        self.alpha = alpha
        self.theta = theta
        self.w0 = w0
        self.features = features
        self.n_features = n_features
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs
        self.record_updates = record_updates

    beta = None
    _theta_required = True

    def _theta(self, d):
        return float(self.theta)

    def _init_state(self, d):
        super()._init_state(d)
        if self._multi():
            self._Ln = [list(L) for L in self._L]
            self._ln = None
            return
        self._ln = list(self._l)

    def _state_dict(self):
        if self._multi():
            return {"L": self._L, "Ln": self._Ln}
        return {"l": self._l, "ln": self._ln}

    def _load_state_dict(self, s):
        if self._multi():
            self._L, self._Ln = s["L"], s["Ln"]
            return
        self._l, self._ln = s["l"], s["ln"]

    def _decidable(self, s):
        """Its terms cancel: a score past the float64 range (inf, or inf - inf) is
        meaningless."""
        return math.isfinite(s)

    def _negative_logs(self, k):
        return self._ln if k is None else self._Ln[k]

    def _exact_sum(self, act, k=None):
        """sum 2**l+ - sum 2**l- over the active features, exactly (exact mode)."""
        lp, ln = (self._l, self._ln) if k is None else (self._L[k], self._Ln[k])
        return sum((_pow2(lp[j]) - _pow2(ln[j]) for j, _ in act), Fraction(0))

    def _score_real(self, act, logs, k=None):
        ln = self._negative_logs(k)
        return _sum4([v * (_term(logs[j]) - _term(ln[j])) for j, v in act])

    def _score(self, act, k=None):
        """The float64 score (w+ - w-) . x in the four-partial-sum order, in either mode."""
        return self._score_real(act, self._l if k is None else self._L[k], k)

    def _update(self, act, y, k=None):
        self._note(y, k)
        lp, ln = (self._l, self._ln) if k is None else (self._L[k], self._Ln[k])
        for j, v in act:
            if y > 0:
                lp[j] = lp[j] + v * self._la
                ln[j] = ln[j] + v * self._lb
            else:
                lp[j] = lp[j] + v * self._lb
                ln[j] = ln[j] + v * self._la

    @property
    def log2_coef_neg_(self):
        """log2 of each negative weight w-_i; K rows with K >= 3 classes."""
        self._check_fitted("log2_coef_neg_")
        if self._multi():
            return [list(L) for L in self._Ln]
        return list(self._ln)

    @property
    def coef_(self):
        """w+ - w- as float64; K rows with K >= 3 classes."""
        self._check_fitted("coef_")
        if self._multi():
            return [[_term(a) - _term(b) for a, b in zip(Lp, Ln)]
                    for Lp, Ln in zip(self._L, self._Ln)]
        return [_term(a) - _term(b) for a, b in zip(self._l, self._ln)]

    def _cycle_key(self):
        if self._multi():
            return tuple(v for L in self._L + self._Ln for v in L)
        return tuple(self._l) + tuple(self._ln)
