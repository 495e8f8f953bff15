"""Experts (ALGORITHMS.md section 3), pure Python: the specification of mbcore.experts.

The experts' advice comes as a matrix P (one row per round, one column per expert) of predicted
labels, or from a pool of online learners that predict each round and learn every label.

Numerics (the policy both twins follow)
---------------------------------------
Expert i's weight is w_i = beta**m_i; it is kept as its base-2 logarithm l_i (l_i += log2(beta)
on each of its mistakes), so no weight ever underflows to 0.  The sums use a cache
``c_i = 2**(l_i - L)`` with a shared offset L.  The votes are ``q_v = sum_{i: P_i = v} c_i``
summed in expert order into four partial sums (expert i into s[i % 4], combined
(s0 + s1) + (s2 + s3)).  If q0 + q1 < 2**-600, then in a learning round L becomes max_i l_i, the
cache is recomputed and the votes are taken again; in predict the votes are taken from such a
renormalised copy without changing the state.

* Exact mode (beta a power of two, the default 1/2): every l_i is an integer and the prediction
  is exactly "1 iff sum_{P_i=1} 2**l_i >= sum_{P_i=0} 2**l_i" (the notes' q1 >= q0, ties to 1);
  the compiled kernel decides it by a filtered predicate and exact binary addition near ties.
* Otherwise the prediction is q1 >= q0 on the cached float64 sums.
* Randomized WM predicts 1 iff u < q1 / (q0 + q1) with u from splitmix64 (seeded), the same
  generator in both twins.
"""

import math
import numbers
from fractions import Fraction

from .base import NotFittedError, infer_classes, check_labels
from .multiplicative import _finite, _pow2_exponent, _term

__all__ = ["WeightedMajority", "RandomizedWeightedMajority", "SplitMix64"]

_MASK = (1 << 64) - 1
_RENORM_BELOW = math.ldexp(1.0, -600)


class SplitMix64:
    """The splitmix64 generator (Steele, Lea & Flood 2014); uniform() gives k * 2**-53."""

    def __init__(self, seed):
        self.state = int(seed) & _MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 11) * (1.0 / 9007199254740992.0)


class _Pool:
    """Shared machinery of the binary experts learners."""

    def _owner_name(self):
        return type(self).__name__

    @classmethod
    def _param_names(cls):
        import inspect
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in self._param_names()}

    def set_params(self, **params):
        for k, v in params.items():
            if k not in self._param_names():
                raise ValueError(f"{type(self).__name__}: invalid parameter {k!r}; valid "
                                 f"parameters are {self._param_names()}")
            setattr(self, k, v)
        return self

    def _validate_params(self):
        o = type(self).__name__
        b = self.beta
        if not (_finite(b) and 0.0 < b < 1.0):
            raise ValueError(f"{o}: parameter beta must be a real in (0, 1), got {b!r}")
        if self.experts is not None and (not isinstance(self.experts, (list, tuple))
                                         or len(self.experts) == 0):
            raise ValueError(f"{o}: parameter experts must be a non-empty list of learners or "
                             f"None, got {self.experts!r}")

    def _is_fitted(self):
        return getattr(self, "classes_", None) is not None

    def _check_fitted(self, what):
        if not self._is_fitted():
            raise NotFittedError(f"{type(self).__name__}: call partial_fit before {what}")

    @property
    def mistakes_(self):
        self._check_fitted("mistakes_")
        return self._counts[1]

    @property
    def updates_(self):
        self._check_fitted("updates_")
        return self._counts[2]

    @property
    def n_seen_(self):
        self._check_fitted("n_seen_")
        return self._counts[0]

    @property
    def expert_mistakes_(self):
        """How many mistakes each expert has made."""
        self._check_fitted("expert_mistakes_")
        return list(self._m)

    @property
    def log2_weights_(self):
        """log2 of each expert's weight (exact integers in exact mode)."""
        self._check_fitted("log2_weights_")
        return list(self._l)

    @property
    def weights_(self):
        """Each expert's weight relative to the best one (max = 1.0)."""
        self._check_fitted("weights_")
        top = max(self._l)
        return [_term(v - top) for v in self._l]

    # -- input ----------------------------------------------------------------------------
    def _advice(self, P, n=None):
        o = type(self).__name__
        if P is None or isinstance(P, (str, bytes)):
            raise TypeError(f"{o}: the experts' predictions must be a 2-D array-like (rounds x "
                            f"experts), got {type(P).__name__}")
        ndim = getattr(P, "ndim", None)
        if ndim is not None and ndim != 2:
            raise ValueError(f"{o}: the experts' predictions must be 2-D (rounds x experts), "
                             f"got ndim={ndim}")
        raw = list(P)
        for r in raw:
            if isinstance(r, (str, bytes)) or not hasattr(r, "__len__"):
                raise ValueError(f"{o}: the experts' predictions must be 2-D (rounds x experts), "
                                 "got a row that is not a sequence")
        rows = [list(r) for r in raw]
        if not rows:
            raise ValueError(f"{o}: no rounds given (0 rows)")
        width = len(rows[0])
        if width == 0:
            raise ValueError(f"{o}: no experts (0 columns)")
        for r in rows:
            if len(r) != width:
                raise ValueError(f"{o}: rows of expert predictions have different lengths")
        if n is not None and width != n:
            raise ValueError(f"{o}: {width} expert predictions per round, but the pool has {n} "
                             "experts")
        return [[v.item() if hasattr(v, "item") else v for v in r] for r in rows]

    def _encode_advice(self, rows):
        neg, pos = self.classes_
        out = []
        for i, r in enumerate(rows):
            e = []
            for v in r:
                if v == pos:
                    e.append(1)
                elif v == neg:
                    e.append(0)
                else:
                    raise ValueError(f"{type(self).__name__}: an expert predicted {v!r} in round "
                                     f"{i}, outside the labels {[neg, pos]!r}")
            out.append(e)
        return out

    # -- state ----------------------------------------------------------------------------
    def _init_state(self, n):
        self._n = n
        b = float(self.beta)
        k = _pow2_exponent(b)
        self._lb = float(k) if k is not None else math.log2(b)
        self._exact_mode = k is not None
        self._l = [0.0] * n
        self._m = [0] * n
        self._L = 0.0
        self._c = [1.0] * n
        self._counts = [0, 0, 0]
        self._rng = SplitMix64(getattr(self, "random_state", 0) or 0)

    def _state(self):
        return (list(self._l), list(self._m), self._L, list(self._c), list(self._counts),
                self._rng.state)

    def _restore(self, s):
        (self._l, self._m, self._L, self._c, self._counts, self._rng.state) = s

    def _votes(self, p):
        s = [[0.0] * 4, [0.0] * 4]
        for i, v in enumerate(p):
            s[v][i & 3] += self._c[i]
        q0 = (s[0][0] + s[0][1]) + (s[0][2] + s[0][3])
        q1 = (s[1][0] + s[1][1]) + (s[1][2] + s[1][3])
        return q0, q1

    def _renormalize(self):
        self._L = max(self._l)
        self._c = [_term(v - self._L) for v in self._l]

    def _round_votes(self, p, update):
        q0, q1 = self._votes(p)
        if q0 + q1 >= _RENORM_BELOW:
            return q0, q1
        if update:
            self._renormalize()
            return self._votes(p)
        L = max(self._l)
        saved, self._c = self._c, [_term(v - L) for v in self._l]
        try:
            return self._votes(p)
        finally:
            self._c = saved

    def _deterministic(self, p, q0, q1):
        if self._exact_mode:
            s1 = sum((Fraction(2) ** int(l) for l, v in zip(self._l, p) if v == 1), Fraction(0))
            s0 = sum((Fraction(2) ** int(l) for l, v in zip(self._l, p) if v == 0), Fraction(0))
            return 1 if s1 >= s0 else 0
        return 1 if q1 >= q0 else 0

    def _round(self, p, y):
        """One round: predict (0/1), learn y (0/1); returns (prediction, any expert wrong)."""
        q0, q1 = self._round_votes(p, True)
        pred = self._decide(p, q0, q1)
        wrong = False
        for i, v in enumerate(p):
            if v != y:
                wrong = True
                self._m[i] += 1
                self._l[i] = self._l[i] + self._lb
                self._c[i] = _term(self._l[i] - self._L)
        self._counts[0] += 1
        if pred != y:
            self._counts[1] += 1
        if wrong:
            self._counts[2] += 1
        return pred, wrong

    # -- protocol -------------------------------------------------------------------------
    def partial_fit(self, P, y, classes=None):
        """One round per row: the pool predicts, then every wrong expert is penalised.

        P holds the experts' predictions (rounds x experts); with ``experts`` set, P is the
        instance matrix X given to the expert learners instead.
        """
        self._learn(P, y, classes)
        return self

    def _learn(self, P, y, classes):
        import copy
        self._validate_params()
        first = not self._is_fitted()
        if not first and classes is not None:
            cl = infer_classes(type(self).__name__, (), classes)
            if cl != list(self.classes_):
                raise ValueError(f"{type(self).__name__}: classes={cl!r} differs from the "
                                 f"fitted classes {list(self.classes_)!r}")
        saved = None if first else self._state()
        experts = copy.deepcopy(self.experts) if self.experts is not None else None
        try:
            preds = self._learn_rounds(P, y, classes, first)
        except BaseException:
            if experts is not None:  # the pool's learners are restored too: all or nothing
                for e, old in zip(self.experts, experts):
                    e.__dict__.clear()
                    e.__dict__.update(old.__dict__)
            if first:
                for k in [k for k in vars(self) if k not in self._param_names()]:
                    delattr(self, k)
            else:
                self._restore(saved)
            raise
        return preds

    def _learn_rounds(self, P, y, classes, first):
        o = type(self).__name__
        if self.experts is not None:
            return self._learn_pool(P, y, classes, first)
        rows = self._advice(P, None if first else self._n)
        if first:
            values = [v for r in rows for v in r]
            ys = [v.item() if hasattr(v, "item") else v for v in y] if y is not None else None
            if ys is None:
                raise TypeError(f"{o}: y must be a 1-D array-like of labels, got None")
            self.classes_ = infer_classes(o, values + ys, classes)
            self._init_state(len(rows[0]))
            self.n_experts_ = len(rows[0])
        yy = check_labels(o, y, len(rows), self.classes_)
        adv = self._encode_advice(rows)
        preds = []
        for p, t in zip(adv, yy):
            preds.append(self._round(p, 1 if t > 0 else 0)[0])
        return preds

    def _learn_pool(self, X, y, classes, first):
        o = type(self).__name__
        rows = [list(r) for r in X]
        ys = [v.item() if hasattr(v, "item") else v for v in y]
        if len(rows) != len(ys):
            raise ValueError(f"{o}: X has {len(rows)} rows but y has {len(ys)} labels")
        if first:
            self.classes_ = infer_classes(o, ys, classes)
            self._init_state(len(self.experts))
            self.n_experts_ = len(self.experts)
        neg, pos = self.classes_
        yy = check_labels(o, ys, len(ys), self.classes_)  # all labels checked before learning
        for r in rows:
            if len(r) != len(rows[0]):
                raise ValueError(f"{o}: X rows have different lengths")
        preds = []
        for x, t, yv in zip(rows, ys, yy):
            advice = [e.predict([x])[0] if getattr(e, "classes_", None) is not None else neg
                      for e in self.experts]
            p = self._encode_advice([advice])[0]
            yi = 1 if yv > 0 else 0
            preds.append(self._round(p, yi)[0])
            for e in self.experts:
                e.partial_fit([x], [t], classes=list(self.classes_))
        return preds

    def predict(self, P):
        """The pool's prediction for each row of advice (no state change; randomized WM draws
        from a copy of its generator)."""
        self._check_fitted("predict")
        neg, pos = self.classes_
        adv = self._advice_for(P)
        saved = self._state()
        out = []
        try:
            for p in adv:
                q0, q1 = self._round_votes(p, False)
                out.append(pos if self._decide(p, q0, q1) else neg)
        finally:
            self._restore(saved)
        return out

    def _advice_for(self, P):
        neg = self.classes_[0]
        if self.experts is not None:
            rows = [[e.predict([list(x)])[0] if getattr(e, "classes_", None) is not None
                     else neg for e in self.experts] for x in P]
        else:
            rows = self._advice(P, self._n)
        return self._encode_advice(rows)

    def decision_function(self, P):
        """q1 / (q0 + q1): the share of the weight on the positive label, per row."""
        self._check_fitted("decision_function")
        out = []
        for p in self._advice_for(P):
            q0, q1 = self._round_votes(p, False)
            out.append(q1 / (q0 + q1))
        return out


class WeightedMajority(_Pool):
    """Weighted Majority (twin of mbcore.WeightedMajority); see that class for the documentation."""

    def __init__(self, beta=0.5, experts=None):
        self.beta = beta
        self.experts = experts

    def _decide(self, p, q0, q1):
        return self._deterministic(p, q0, q1)


class RandomizedWeightedMajority(_Pool):
    """Randomized Weighted Majority (twin of mbcore.RandomizedWeightedMajority)."""

    def __init__(self, beta=0.5, random_state=0, experts=None):
        self.beta = beta
        self.random_state = random_state
        self.experts = experts

    def _validate_params(self):
        super()._validate_params()
        r = self.random_state
        if isinstance(r, bool) or not isinstance(r, numbers.Integral) or r < 0:
            raise ValueError(f"{type(self).__name__}: parameter random_state must be an integer "
                             f">= 0, got {r!r}")

    def _decide(self, p, q0, q1):
        u = self._rng.uniform()
        return 1 if u < q1 / (q0 + q1) else 0


def run_online(learner, P, y, classes=None):
    """The online record of an experts learner (twin of mbcore.run_online)."""
    preds = learner._learn(P, y, classes)
    neg, pos = learner.classes_
    ys = [v.item() if hasattr(v, "item") else v for v in y]
    predictions = [pos if p else neg for p in preds]
    errors = [a != b for a, b in zip(predictions, ys)]
    curve, m = [], 0
    for e in errors:
        m += e
        curve.append(m)
    return {"predictions": predictions, "errors": errors, "mistakes": m,
            "mistake_curve": curve, "n": len(preds)}
