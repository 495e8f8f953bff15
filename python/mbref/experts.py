"""Experts, pure Python: the specification of mbcore.experts.

The experts' advice comes as a matrix P (one row per round, one column per expert) of predicted
labels, or from a pool of online learners that predict each round and learn every label.  Labels
may be multi-valued (Blum's calendar study): with K classes (sorted, ``classes_``), the pool
predicts the class with the largest total weight, ties going to the later class in ``classes_``
(for two labels: the notes' tie -> 1).  The experts that may sleep, ``Specialists`` and
``PairSpecialists``, are in ``mbref.specialists`` (importable from here too, as they were).

Numerics (the policy both twins follow)
---------------------------------------
Expert i's weight is w_i = beta**m_i; it is kept as its base-2 logarithm l_i (l_i += log2(beta)
on each of its mistakes), so no weight ever underflows to 0.  The sums use a cache
``c_i = 2**(l_i - L)`` with a shared offset L.  The votes are ``q_v = sum_{i: P_i = v} c_i``
summed in expert order into sixteen partial sums per class (expert i into s_v[i % 16]),
combined as u_j = (s_j + s_{4+j}) + (s_{8+j} + s_{12+j}) and q_v = (u_0 + u_1) + (u_2 + u_3)
(sixteen independent sums let the compiled loops run in vectors); the total is T = (...((q_0 + q_1) + q_2) + ...) + q_{K-1}.  If
T < 2**-600, then in a learning round L becomes max_i l_i, the cache is recomputed and the votes
are taken again; in predict the votes are taken from such a renormalised copy without changing
the state.

* Exact mode (beta a power of two, the default 1/2): every l_i is an integer and the prediction
  is exactly the last class v maximising S_v = sum_{P_i=v} 2**l_i (for two labels: "1 iff
  S_1 >= S_0", the notes' q1 >= q0, ties to 1); the compiled kernel decides it by a filtered
  predicate and exact binary addition near ties.
* Otherwise the prediction is the last class maximising the cached float64 sums q_v.
* Randomized WM draws u from splitmix64 (seeded, the same generator in both twins) and predicts
  the first v, going down from K-1 to 1, with u < (q_{K-1} + ... + q_v) / T, else class 0 (for
  two labels: 1 iff u < q1 / (q0 + q1)).
"""

import math
import numbers
import re
from fractions import Fraction

from ._advice import (AdviceLearner, advice_classes, check_y, first_nan, fold, label_codes,
                      last_argmax, lookup)
from .base import keep_on_failure, label_key
from ._rng import SplitMix64
from ._numerics import finite as _finite, pow2_exponent as _pow2_exponent, term as _term

__all__ = ["WeightedMajority", "RandomizedWeightedMajority", "Specialists", "PairSpecialists",
           "SplitMix64"]

_RENORM_BELOW = math.ldexp(1.0, -600)


def _expert_error(owner, k, t, exc):
    """The error a pool's expert k raised on row t of X (given to it alone, as a one-row
    batch), re-raised as the pool's: naming the pool, the expert and the row of X, then the
    expert's own message."""
    own = re.sub(r"\brow 0\b", f"row {t}", str(exc))   # row 0 of its batch is row t of X
    said = f"{owner}: expert {k} refused row {t} of X: {own}"
    return ValueError(said) if isinstance(exc, ValueError) else TypeError(said)


def _fold16(s):
    """Sixteen partial sums combined: u_j = (s_j + s_{4+j}) + (s_{8+j} + s_{12+j}), then
    (u_0 + u_1) + (u_2 + u_3)."""
    u = [(s[j] + s[4 + j]) + (s[8 + j] + s[12 + j]) for j in range(4)]
    return (u[0] + u[1]) + (u[2] + u[3])


class _Pool(AdviceLearner):
    """Shared machinery of the Weighted Majority learners (binary or multi-valued labels)."""

    # (sample_weight: refused, OnlineLearner._refuse_weights)
    _NO_WEIGHTS = ("a round multiplies the wrong experts' weights by the fixed factor "
                   "beta, and the notes give no weighted form of the rule")

    def _validate_params(self):
        o = type(self).__name__
        b = self.beta
        if not (_finite(b) and 0.0 < b < 1.0):
            raise ValueError(f"{o}: parameter beta must be a real in (0, 1), got {b!r}")
        if self.experts is not None and (not isinstance(self.experts, (list, tuple))
                                         or len(self.experts) == 0):
            raise ValueError(f"{o}: parameter experts must be a non-empty list of learners or "
                             f"None, got {self.experts!r}")
        r = getattr(self, "record_updates", False)
        if type(r) is not bool and type(r).__name__ != "bool_":
            raise ValueError(f"{o}: parameter record_updates must be a bool, got {r!r}")

    @property
    def weights_(self):
        """Each expert's weight relative to the best one (max = 1.0)."""
        self._check_fitted("weights_")
        top = max(self._l)
        return [_term(v - top) for v in self._l]

    def _encode_advice(self, rows):
        index = {c: k for k, c in enumerate(self.classes_)}
        out = []
        for i, r in enumerate(rows):
            e = []
            for v in r:
                k = lookup(index, v)
                if k is None:
                    raise ValueError(f"{type(self).__name__}: an expert predicted {v!r} in round "
                                     f"{i}, outside the labels {list(self.classes_)!r}")
                e.append(k)
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
        # the record (record_updates=True): per round in which an expert lost weight, the
        # round's place in the stream and the true label's index in classes_ (a float)
        self._rec_idx, self._rec_dir = [], []

    def _state(self):
        return (list(self._l), list(self._m), self._L, list(self._c), list(self._counts),
                self._rng.state, len(self._rec_idx))

    def _restore(self, s):
        (self._l, self._m, self._L, self._c, self._counts, self._rng.state, r) = s
        del self._rec_idx[r:], self._rec_dir[r:]

    @property
    def update_record_(self):
        """(rounds, labels) of the recorded updates (lists)."""
        self._check_fitted("update_record_")
        return list(self._rec_idx), list(self._rec_dir)

    # -- the explanation (twin of mbcore's: mbcore._explain_log.experts_explanation) --------
    def _explanation(self, p, X_train):
        from .explain import Explanation
        o = type(self).__name__
        self._check_fitted("explain")
        rows = [list(p)] if not (p and isinstance(list(p)[0], (list, tuple))) else \
            [list(r) for r in p]
        if len(rows) != 1:
            raise ValueError(f"{o}: explain takes one round of advice, got {len(rows)}")
        votes = self._advice_for(rows)[0]
        K, n = len(self.classes_), self._n
        top = max(self._l)
        rel = [_term(v - top) for v in self._l]
        sums = [math.fsum(rel[i] for i in range(n) if votes[i] == v) for v in range(K)]
        T = math.fsum(sums)
        pred = self.predict(rows)[0]
        score = self.decision_function(rows)[0]
        if K > 2:
            parts = [[rel[i] / T if votes[i] == v else 0.0 for v in range(K)] for i in range(n)]
            icpt = [0.0] * K
        elif self._randomized:
            parts, icpt = [rel[i] / T if votes[i] == 1 else 0.0 for i in range(n)], 0.0
        else:
            parts, icpt = [rel[i] / T if votes[i] == 1 else -rel[i] / T for i in range(n)], 0.0
        from_counts = [m * self._lb for m in self._m]
        bound = []
        for m, f in zip(self._m, from_counts):
            g = max(m - 1, 0) * 2.0 ** -53
            bound.append(g / (1 - g) * abs(f))
        exact = self._l == from_counts if self._exact_mode else all(
            abs(a - b) <= c for a, b, c in zip(self._l, from_counts, bound))
        complete = len(self._rec_idx) == self._counts[2]
        extra = {"votes": [self.classes_[v] for v in votes], "log2_weights": list(self._l),
                 "weights": rel, "sums": sums, "expert_mistakes": list(self._m),
                 "log2_weights_from_counts": from_counts, "counts_bound": bound,
                 "counts_exact": exact, "record": bool(self._rec_idx),
                 "complete_record": complete}
        e = Explanation(o, pred, score, list(self.classes_), parts, icpt,
                        feature_names=[f"expert {i}" for i in range(n)], extra=extra)
        e.log_indices = e.log_parts = e.replay_exact = None
        if X_train is None:
            return e
        if not complete:
            raise ValueError(f"{o}: parameter X_train was given, but the learner did not "
                             "record all its updates (construct it with record_updates=True "
                             "and fit it again)")
        if self.experts is not None:
            raise ValueError(f"{o}: X_train must be the experts' advice (a matrix of rounds x "
                             "experts); a pool of learners (experts=...) keeps no advice to "
                             "explain its rounds by")
        A = self._encode_advice(self._advice(X_train, n))
        if self._rec_idx and max(self._rec_idx) >= len(A):
            raise ValueError(f"{o}: the record names round {max(self._rec_idx)}, but X_train "
                             f"has {len(A)} rounds (give every round the learner was trained "
                             "on, in order)")
        lost = [[] for _ in range(n)]
        l = [0.0] * n
        pi = list(self.classes_).index(pred)
        sup = [v == pi for v in votes]          # the experts that back the prediction
        e.log_indices, e.log_parts = [], []
        for t, c in zip(self._rec_idx, self._rec_dir):
            wrong = [A[t][i] != int(c) for i in range(n)]
            for i in range(n):
                if wrong[i]:
                    lost[i].append(t)
                    l[i] = l[i] + self._lb
            if any(wrong):
                e.log_indices.append(t)
                e.log_parts.append(self._lb * float(
                    sum(1 for i in range(n) if wrong[i] and sup[i]) -
                    sum(1 for i in range(n) if wrong[i] and not sup[i])))
        extra["rounds_lost"] = lost
        extra["example_units"] = "log2 of the weights"
        e.replay_exact = [len(r) for r in lost] == list(self._m) and l == list(self._l)
        return e

    def _votes(self, p):
        K = len(self.classes_)
        s = [[0.0] * 16 for _ in range(K)]
        for i, v in enumerate(p):
            s[v][i & 15] += self._c[i]
        return [_fold16(a) for a in s]

    def _renormalize(self):
        self._L = max(self._l)
        self._c = [_term(v - self._L) for v in self._l]

    def _round_votes(self, p, update):
        q = self._votes(p)
        if fold(q) >= _RENORM_BELOW:
            return q
        if update:
            self._renormalize()
            return self._votes(p)
        L = max(self._l)
        saved, self._c = self._c, [_term(v - L) for v in self._l]
        try:
            return self._votes(p)
        finally:
            self._c = saved

    def _deterministic(self, p, q):
        if self._exact_mode:
            S = [Fraction(0)] * len(q)
            for l, v in zip(self._l, p):
                S[v] += Fraction(2) ** int(l)
            return last_argmax(S)
        return last_argmax(q)

    def _round(self, p, y):
        """One round: predict (a class index), learn y (a class index); returns (prediction,
        any expert wrong)."""
        q = self._round_votes(p, True)
        pred = self._decide(p, q)
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
            if self.record_updates:
                self._rec_idx.append(self._counts[0] - 1)
                self._rec_dir.append(float(y))
        return pred, wrong

    # -- protocol -------------------------------------------------------------------------
    def partial_fit(self, P, y, classes=None, sample_weight=None):
        """One round per row: the pool predicts, then every wrong expert is penalised.

        P holds the experts' predictions (rounds x experts); with ``experts`` set, P is the
        instance matrix X given to the expert learners instead.
        """
        self._learn(P, y, classes, sample_weight)
        return self

    def fit(self, P, y, classes=None, sample_weight=None):
        """Forget everything, then one online pass (experts have no epochs)."""
        with keep_on_failure(self):
            for k in [k for k in vars(self) if k not in self._param_names()]:
                delattr(self, k)
            return self.partial_fit(P, y, classes, sample_weight)

    def _learn(self, P, y, classes, sample_weight=None):
        import copy
        self._refuse_weights(sample_weight)
        self._validate_params()
        first = not self._is_fitted()
        if not first and classes is not None:
            cl = advice_classes(type(self).__name__, (), classes)
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
        ys = check_y(o, y, len(rows))
        if first:
            if classes is None:
                first_nan(rows, "expert", o)
            values = [v for r in rows for v in r]
            self.classes_ = advice_classes(o, values + ys, classes)
            self._init_state(len(rows[0]))
            self.n_experts_ = len(rows[0])
        yy = label_codes(o, self.classes_, ys)
        adv = self._encode_advice(rows)
        return [self._round(p, t) for p, t in zip(adv, yy)]

    def _learn_pool(self, X, y, classes, first):
        o = type(self).__name__
        rows = [list(r) for r in X]
        ys = check_y(o, y, None)
        if len(rows) != len(ys):
            raise ValueError(f"{o}: X has {len(rows)} rows but y has {len(ys)} labels")
        if first:
            self.classes_ = advice_classes(o, ys, classes)
            self._init_state(len(self.experts))
            self.n_experts_ = len(self.experts)
        yy = label_codes(o, self.classes_, ys)   # all labels checked before learning
        for r in rows:
            if len(r) != len(rows[0]):
                raise ValueError(f"{o}: X rows have different lengths")
        preds = []
        for row, (x, t, yi) in enumerate(zip(rows, ys, yy)):
            p = self._encode_advice([self._pool_advice(x, row)])[0]
            preds.append(self._round(p, yi))
            for k, e in enumerate(self.experts):
                try:
                    e.partial_fit([x], [t], classes=list(self.classes_))
                except (ValueError, TypeError) as exc:
                    raise _expert_error(o, k, row, exc) from exc
        return preds

    def _pool_advice(self, x, row):
        """The learners' predictions on row ``row`` of X (x); an unfitted one advises the
        first class."""
        out = []
        for k, e in enumerate(self.experts):
            if getattr(e, "classes_", None) is None:
                out.append(self.classes_[0])
                continue
            try:
                out.append(label_key(e.predict([x])[0]))
            except (ValueError, TypeError) as exc:
                raise _expert_error(type(self).__name__, k, row, exc) from exc
        return out

    def predict(self, P):
        """The pool's prediction for each row of advice (no state change; randomized WM draws
        from a copy of its generator)."""
        self._check_fitted("predict")
        adv = self._advice_for(P)
        saved = self._state()
        out = []
        try:
            for p in adv:
                q = self._round_votes(p, False)
                out.append(self.classes_[self._decide(p, q)])
        finally:
            self._restore(saved)
        return out

    def _advice_for(self, P):
        if self.experts is not None:
            rows = [self._pool_advice(list(x), t) for t, x in enumerate(P)]
        else:
            rows = self._advice(P, self._n)
        return self._encode_advice(rows)

    def decision_function(self, P):
        """Per row: with two labels, Weighted Majority's 2 q1 / (q0 + q1) - 1, its sign that
        of the vote (0.0 or -2**-1074 where rounding would give the wrong sign); Randomized
        Weighted Majority's share q1 / (q0 + q1); more labels: the K shares q_v / T."""
        self._check_fitted("decision_function")
        out = []
        for p in self._advice_for(P):
            q = self._round_votes(p, False)
            T = fold(q)
            if len(q) != 2:
                out.append([v / T for v in q])
            elif self._randomized:
                out.append(q[1] / T)
            else:
                d = 2.0 * (q[1] / T) - 1.0
                if self._deterministic(p, q) == 1:
                    out.append(d if d >= 0.0 else 0.0)
                else:
                    out.append(d if d < 0.0 else -5e-324)
        return out


class WeightedMajority(_Pool):
    """Weighted Majority (twin of mbcore.WeightedMajority); see that class for the documentation."""

    def __init__(self, beta=0.5, experts=None, record_updates=False):
        self.beta = beta
        self.experts = experts
        self.record_updates = record_updates

    _randomized = False

    def _decide(self, p, q):
        return self._deterministic(p, q)


class RandomizedWeightedMajority(_Pool):
    """Randomized Weighted Majority (twin of mbcore.RandomizedWeightedMajority)."""

    def _proba_one_row(self, row):
        s = self.decision_function([row])[0]
        return s if isinstance(s, list) else [1.0 - s, s]

    def __init__(self, beta=0.5, random_state=0, experts=None, record_updates=False):
        self.beta = beta
        self.random_state = random_state
        self.experts = experts
        self.record_updates = record_updates

    def _validate_params(self):
        super()._validate_params()
        r = self.random_state
        if isinstance(r, bool) or not isinstance(r, numbers.Integral) or r < 0:
            raise ValueError(f"{type(self).__name__}: parameter random_state must be an integer "
                             f">= 0, got {r!r}")

    _randomized = True

    def _decide(self, p, q):
        u = self._rng.uniform()
        T = fold(q)
        acc = 0.0
        for v in range(len(q) - 1, 0, -1):
            acc = acc + q[v]
            if u < acc / T:
                return v
        return 0


# Defined in mbref.specialists; importable from here, as before the split.
from .specialists import PairSpecialists, Specialists  # noqa: E402
