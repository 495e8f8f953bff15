"""Experts, pure Python: the specification of mbcore.experts.

The experts' advice comes as a matrix P (one row per round, one column per expert) of predicted
labels, or from a pool of online learners that predict each round and learn every label.  Labels
may be multi-valued (Blum's calendar study): with K classes (sorted, ``classes_``), the pool
predicts the class with the largest total weight, ties going to the later class in ``classes_``
(for two labels: the notes' tie -> 1).  ``Specialists`` are experts that may sleep (an ``awake``
mask per round); ``PairSpecialists`` builds Blum's pair-of-attribute specialists from
categorical data.

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

import copy
import math
import numbers
import re
from fractions import Fraction

from .base import NotFittedError, check_rows, infer_classes, is_csr, label_key, keep_on_failure
from ._numerics import finite as _finite, pow2_exponent as _pow2_exponent, term as _term

__all__ = ["WeightedMajority", "RandomizedWeightedMajority", "Specialists", "PairSpecialists",
           "SplitMix64", "infer_classes_multi"]

_MASK = (1 << 64) - 1
_RENORM_BELOW = math.ldexp(1.0, -600)


def infer_classes_multi(owner, labels, classes=None):
    """The classes, sorted: from ``classes`` (at least two) or from the labels seen (two or
    more; one label alone names its pair as for the binary learners)."""
    if classes is not None:
        if isinstance(classes, (str, bytes)):
            raise ValueError(f"{owner}: classes must be a list of at least two labels, got "
                             f"{classes!r}")
        try:
            cl = sorted({label_key(c) for c in classes})
        except TypeError:
            raise TypeError(f"{owner}: the classes cannot be put in order (labels of different "
                            "kinds); use labels of one kind") from None
        if len(cl) < 2:
            raise ValueError(f"{owner}: classes must hold at least two distinct labels, got "
                             f"{cl!r}")
        return cl
    keys = [label_key(v) for v in labels]
    for v in keys:
        if isinstance(v, float) and math.isnan(v):
            raise ValueError(f"{owner}: the labels contain NaN")
    try:
        uniq = sorted(set(keys))
    except TypeError:
        raise TypeError(f"{owner}: the labels cannot be put in order (labels of different "
                        f"kinds, e.g. numbers and strings, in {keys[:10]!r}); use labels of one "
                        "kind") from None
    if len(uniq) >= 2:
        return uniq
    return infer_classes(owner, uniq)


def _check_y(owner, y, n):
    if y is None:
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got None")
    if isinstance(y, (str, bytes)):
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got a string")
    if getattr(y, "ndim", 1) != 1:
        raise ValueError(f"{owner}: y must be 1-D, got ndim={y.ndim}")
    if not hasattr(y, "__iter__"):
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got {type(y).__name__}")
    ys = [label_key(v) for v in y]
    for v in ys:
        if isinstance(v, (list, tuple, dict, set)):
            raise ValueError(f"{owner}: y must be 1-D, got a label that is a "
                             f"{type(v).__name__}")
    if n is not None and len(ys) != n:
        raise ValueError(f"{owner}: {n} rounds but y has {len(ys)} labels")
    for v in ys:
        if isinstance(v, float) and math.isnan(v):
            raise ValueError(f"{owner}: y contains NaN")
    return ys


def _codes(owner, classes, ys):
    """Labels -> class indices (positions in the sorted classes)."""
    index = {c: k for k, c in enumerate(classes)}
    out = []
    for v in ys:
        k = _lookup(index, v)
        if k is None:
            raise ValueError(f"{owner}: y has the label {v!r}, outside the fitted classes "
                             f"{list(classes)!r}")
        out.append(k)
    return out


def _lookup(index, v):
    """index.get(v); None for an unhashable value (a dict, a list), which is no label."""
    try:
        return index.get(v)
    except TypeError:
        return None


def _first_nan(rows, who, owner, mask=None):
    """ValueError naming the first NaN prediction (its column and round; only the awake ones
    with a mask): on a first call the labels are inferred from the advice, and NaN is none."""
    for t, r in enumerate(rows):
        for i, v in enumerate(r):
            if (mask is None or mask[t][i]) and isinstance(v, float) and math.isnan(v):
                raise ValueError(f"{owner}: the prediction of {who} {i} in round {t} is NaN")


def _mask_as_classes(owner, classes):
    """Refuse a 2-D mask where ``classes`` goes (the third argument of ``Specialists``'
    partial_fit and fit was ``awake`` until it became keyword-only)."""
    if classes is None or isinstance(classes, (str, bytes)):
        return
    if getattr(classes, "ndim", None) == 2 or (
            isinstance(classes, (list, tuple)) and len(classes) > 0 and
            all(isinstance(r, (list, tuple)) for r in classes)):
        raise ValueError(f"{owner}: classes must be a 1-D list of labels, got a 2-D mask; the "
                         "awake mask is keyword-only: partial_fit(P, y, awake=W)")


def _expert_error(owner, k, t, exc):
    """The error a pool's expert k raised on row t of X (given to it alone, as a one-row
    batch), re-raised as the pool's: naming the pool, the expert and the row of X, then the
    expert's own message."""
    msg = re.sub(r"\brow 0\b", f"row {t}", str(exc))  # its one-row batch is row t of X
    kind = ValueError if isinstance(exc, ValueError) else TypeError
    return kind(f"{owner}: expert {k} refused row {t} of X: {msg}")


def _last_argmax(q):
    """The last index of the largest value (ties go to the later class)."""
    best = 0
    for v in range(1, len(q)):
        if q[v] >= q[best]:
            best = v
    return best


def _fold16(s):
    """Sixteen partial sums combined: u_j = (s_j + s_{4+j}) + (s_{8+j} + s_{12+j}), then
    (u_0 + u_1) + (u_2 + u_3)."""
    u = [(s[j] + s[4 + j]) + (s[8 + j] + s[12 + j]) for j in range(4)]
    return (u[0] + u[1]) + (u[2] + u[3])


def _fold(q):
    t = q[0]
    for v in q[1:]:
        t = t + v
    return t


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
    """Shared machinery of the Weighted Majority learners (binary or multi-valued labels)."""

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
        return [[label_key(v) for v in r] for r in rows]

    def _encode_advice(self, rows):
        index = {c: k for k, c in enumerate(self.classes_)}
        out = []
        for i, r in enumerate(rows):
            e = []
            for v in r:
                k = _lookup(index, v)
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

    def _state(self):
        return (list(self._l), list(self._m), self._L, list(self._c), list(self._counts),
                self._rng.state)

    def _restore(self, s):
        (self._l, self._m, self._L, self._c, self._counts, self._rng.state) = s

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
        if _fold(q) >= _RENORM_BELOW:
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
            return _last_argmax(S)
        return _last_argmax(q)

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
            cl = infer_classes_multi(type(self).__name__, (), classes)
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
        ys = _check_y(o, y, len(rows))
        if first:
            if classes is None:
                _first_nan(rows, "expert", o)
            values = [v for r in rows for v in r]
            self.classes_ = infer_classes_multi(o, values + ys, classes)
            self._init_state(len(rows[0]))
            self.n_experts_ = len(rows[0])
        yy = _codes(o, self.classes_, ys)
        adv = self._encode_advice(rows)
        return [self._round(p, t) for p, t in zip(adv, yy)]

    def _learn_pool(self, X, y, classes, first):
        o = type(self).__name__
        rows = [list(r) for r in X]
        ys = _check_y(o, y, None)
        if len(rows) != len(ys):
            raise ValueError(f"{o}: X has {len(rows)} rows but y has {len(ys)} labels")
        if first:
            self.classes_ = infer_classes_multi(o, ys, classes)
            self._init_state(len(self.experts))
            self.n_experts_ = len(self.experts)
        yy = _codes(o, self.classes_, ys)   # all labels checked before learning
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
            T = _fold(q)
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

    def __init__(self, beta=0.5, experts=None):
        self.beta = beta
        self.experts = experts

    _randomized = False

    def _decide(self, p, q):
        return self._deterministic(p, q)


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

    _randomized = True

    def _decide(self, p, q):
        u = self._rng.uniform()
        T = _fold(q)
        acc = 0.0
        for v in range(len(q) - 1, 0, -1):
            acc = acc + q[v]
            if u < acc / T:
                return v
        return 0


class Specialists(_Pool):
    """Specialists (sleeping experts; twin of mbcore.Specialists): see that class.

    The rule (Blum 1997): in each round some specialists are awake and
    vote for a class; the learner predicts the class with the largest total awake weight (ties to
    the later class; if no specialist votes, the most frequent label so far, ties again to the
    later class).  On a mistake, every voter that was wrong is multiplied by ``demote`` (1/2) and
    every voter that was right by ``promote`` (3/2); nothing changes otherwise.

    Numerics: specialist i's weight is demote**d_i * promote**p_i, kept as the two counts; its
    log2 weight l_i = d_i * log2(demote) + p_i * log2(promote) is recomputed from the counts
    (float64, no accumulated rounding), split into an integer e_i = floor(l_i) and a cached
    mantissa c_i = 2**(l_i - e_i).  A round's votes are
    ``q_v = sum ldexp(c_i, e_i - E)`` over the voters for v, with E the largest e_i among the
    round's voters, summed in the round's order j into four partial sums s_v[j % 4] (j is the
    voter's position in the round's awake list).  No renormalisation is ever needed: the top term
    is in [1, 2).  When demote and promote are both powers of two (exact mode) the prediction is
    decided exactly on sum 2**e_i, as for Weighted Majority.  The coverage test
    ``q_pred >= threshold * T`` (T the total) uses the float64 votes.
    """

    def __init__(self, demote=0.5, promote=1.5, threshold=0.0, prune_below=None):
        self.demote = demote
        self.promote = promote
        self.threshold = threshold
        self.prune_below = prune_below

    experts = None

    def _validate_params(self):
        o = type(self).__name__
        d, p, t, b = self.demote, self.promote, self.threshold, self.prune_below
        if not (_finite(d) and 0.0 < d < 1.0):
            raise ValueError(f"{o}: parameter demote must be a real in (0, 1), got {d!r}")
        if not (_finite(p) and 1.0 <= p <= 2.0 ** 64):
            raise ValueError(f"{o}: parameter promote must be a real >= 1, got {p!r}")
        if not (_finite(t) and 0.0 <= t <= 1.0):
            raise ValueError(f"{o}: parameter threshold must be a real in [0, 1], got {t!r}")
        if b is not None and not (_finite(b) and 0.0 < b < 1.0):
            raise ValueError(f"{o}: parameter prune_below must be None or a real in (0, 1), "
                             f"got {b!r}")

    # -- state ----------------------------------------------------------------------------
    def _init_state(self, n):
        kd, kp = _pow2_exponent(float(self.demote)), _pow2_exponent(float(self.promote))
        self._ld = float(kd) if kd is not None else math.log2(float(self.demote))
        self._lp = float(kp) if kp is not None else math.log2(float(self.promote))
        self._exact_mode = kd is not None and kp is not None
        self._prune_l = (None if self.prune_below is None
                         else math.log2(float(self.prune_below)))
        self._n = 0
        self._nd, self._np, self._l, self._e, self._c, self._alive, self._m = \
            [], [], [], [], [], [], []
        self._label_counts = [0] * len(self.classes_)
        self._counts = [0, 0, 0, 0, 0]   # seen, mistakes, updates, covered, covered mistakes
        self._grow(n)

    def _grow(self, n):
        k = n - self._n
        if k <= 0:
            return
        self._nd += [0] * k
        self._np += [0] * k
        self._l += [0.0] * k
        self._e += [0] * k
        self._c += [1.0] * k
        self._alive += [True] * k
        self._m += [0] * k
        self._n = n

    def _state(self):
        return copy.deepcopy({k: v for k, v in vars(self).items()
                              if k not in self._param_names()})

    def _restore(self, s):
        for k in [k for k in vars(self) if k not in self._param_names()]:
            delattr(self, k)
        self.__dict__.update(s)

    def _set_weight(self, i):
        l = self._nd[i] * self._ld + self._np[i] * self._lp
        e = math.floor(l)
        self._l[i] = l
        self._e[i] = e
        self._c[i] = _term(l - e)

    @property
    def coverage_(self):
        """The share of the rounds in which the learner predicted (some specialist voted and the
        top class held at least ``threshold`` of the awake weight)."""
        self._check_fitted("coverage_")
        return self._counts[3] / self._counts[0] if self._counts[0] else 0.0

    @property
    def covered_mistakes_(self):
        """Mistakes made in the covered rounds (the accuracy side of the coverage trade-off)."""
        self._check_fitted("covered_mistakes_")
        return self._counts[4]

    @property
    def n_covered_(self):
        self._check_fitted("n_covered_")
        return self._counts[3]

    @property
    def pruned_(self):
        """Which specialists were pruned (weight fell below ``prune_below``; asleep for good)."""
        self._check_fitted("pruned_")
        return [not a for a in self._alive]

    @property
    def weights_(self):
        """Each specialist's weight relative to the largest (max = 1.0)."""
        self._check_fitted("weights_")
        top = max(self._l)
        return [_term(v - top) for v in self._l]

    # -- one round ------------------------------------------------------------------------
    def _default(self):
        return _last_argmax(self._label_counts)

    def _vote(self, ids, codes):
        """(prediction, covered, voters) of a round; voters = [(j, i, v)]."""
        voters = [(j, i, v) for j, (i, v) in enumerate(zip(ids, codes))
                  if v >= 0 and self._alive[i]]
        if not voters:
            return self._default(), False, voters
        K = len(self.classes_)
        E = max(self._e[i] for _, i, _ in voters)
        s = [[0.0] * 4 for _ in range(K)]
        for j, i, v in voters:
            s[v][j & 3] += math.ldexp(self._c[i], self._e[i] - E)
        q = [(a[0] + a[1]) + (a[2] + a[3]) for a in s]
        if self._exact_mode:
            S = [Fraction(0)] * K
            for _, i, v in voters:
                S[v] += Fraction(2) ** self._e[i]
            pred = _last_argmax(S)
        else:
            pred = _last_argmax(q)
        covered = q[pred] >= self.threshold * _fold(q)
        return pred, covered, voters

    def _round(self, ids, codes, y):
        pred, covered, voters = self._vote(ids, codes)
        c = self._counts
        c[0] += 1
        self._label_counts[y] += 1
        for _, i, v in voters:
            if v != y:
                self._m[i] += 1
        if covered:
            c[3] += 1
        if pred != y:
            c[1] += 1
            if covered:
                c[4] += 1
            if voters:
                c[2] += 1
                for _, i, v in voters:
                    if v == y:
                        self._np[i] += 1
                    else:
                        self._nd[i] += 1
                    self._set_weight(i)
                    if self._prune_l is not None and self._l[i] < self._prune_l:
                        self._alive[i] = False
        return pred, pred != y and bool(voters)

    # -- the dense protocol: advice P and an awake mask -----------------------------------
    def _awake_rows(self, awake, rows):
        o = type(self).__name__
        if awake is None:
            return [[True] * len(r) for r in rows]
        if isinstance(awake, (str, bytes)) or getattr(awake, "ndim", 2) != 2:
            raise ValueError(f"{o}: awake must be a 2-D mask (rounds x specialists) like P")
        a = []
        for r in awake:
            if isinstance(r, (str, bytes)) or not hasattr(r, "__len__"):
                raise ValueError(f"{o}: awake must be a 2-D mask (rounds x specialists) like P")
            a.append(list(r))
        if len(a) != len(rows) or any(len(r) != len(p) for r, p in zip(a, rows)):
            raise ValueError(f"{o}: awake has shape ({len(a)}, {len(a[0]) if a else 0}), but P "
                             f"has shape ({len(rows)}, {len(rows[0])}); they must match")
        out = []
        for t, r in enumerate(a):
            row = []
            for i, v in enumerate(r):
                v = label_key(v)
                if isinstance(v, numbers.Real) and not (isinstance(v, float) and
                                                        math.isnan(v)) and v in (0, 1):
                    row.append(bool(v))
                else:
                    raise ValueError(f"{o}: awake must hold booleans (or 0/1), got {v!r} for "
                                     f"specialist {i} in round {t}")
            out.append(row)
        return out

    def partial_fit(self, P, y, classes=None, *, awake=None):
        """One round per row: the awake specialists vote, the learner predicts, and on a
        mistake the voters are demoted (wrong) or promoted (right).  ``awake`` (the mask of
        who votes, all awake by default) is keyword-only: ``classes`` is third, as for every
        learner."""
        _mask_as_classes(type(self).__name__, classes)
        self._learn(P, y, classes, awake)
        return self

    def _learn(self, P, y, classes, awake=None):
        self._validate_params()
        first = not self._is_fitted()
        if not first and classes is not None:
            cl = infer_classes_multi(type(self).__name__, (), classes)
            if cl != list(self.classes_):
                raise ValueError(f"{type(self).__name__}: classes={cl!r} differs from the "
                                 f"fitted classes {list(self.classes_)!r}")
        saved = None if first else self._state()
        try:
            return self._learn_rounds(P, y, classes, first, awake)
        except BaseException:
            if first:
                for k in [k for k in vars(self) if k not in self._param_names()]:
                    delattr(self, k)
            else:
                self._restore(saved)
            raise

    def _rounds_of(self, P, awake, first):
        rows = self._advice(P, None if first else self._n)
        return rows, self._awake_rows(awake, rows)

    def _encode_awake(self, rows, mask):
        o = type(self).__name__
        index = {c: k for k, c in enumerate(self.classes_)}
        out = []
        for t, (r, a) in enumerate(zip(rows, mask)):
            ids, codes = [], []
            for i, (v, w) in enumerate(zip(r, a)):
                if w:
                    k = _lookup(index, v)
                    if k is None:
                        raise ValueError(f"{o}: specialist {i} predicted {v!r} in round {t}, "
                                         f"outside the labels {list(self.classes_)!r}")
                    ids.append(i)
                    codes.append(k)
            out.append((ids, codes))
        return out

    def _learn_rounds(self, P, y, classes, first, awake):
        o = type(self).__name__
        rows, mask = self._rounds_of(P, awake, first)
        ys = _check_y(o, y, len(rows))
        if first:
            if classes is None:
                _first_nan(rows, "specialist", o, mask)
            values = [v for r, a in zip(rows, mask) for v, w in zip(r, a) if w]
            self.classes_ = infer_classes_multi(o, values + ys, classes)
            self.n_experts_ = len(rows[0])
            self._init_state(len(rows[0]))
        yy = _codes(o, self.classes_, ys)
        rounds = self._encode_awake(rows, mask)
        return [self._round(ids, codes, t) for (ids, codes), t in zip(rounds, yy)]

    def _predictions(self, P, awake):
        self._check_fitted("predict")
        rows, mask = self._rounds_of(P, awake, False)
        return [self._vote(ids, codes)[:2] for ids, codes in self._encode_awake(rows, mask)]

    def predict(self, P, *, awake=None):
        """The learner's prediction for each round (no state change): the top class, or the
        most frequent label so far when no specialist votes."""
        return [self.classes_[p] for p, _ in self._predictions(P, awake)]

    @property
    def decision_function(self):
        """Not available (as in mbcore): the specialists' vote has no score to report."""
        raise AttributeError(f"{type(self).__name__} has no decision_function (its vote has no "
                             "score to report); use predict or predict_covered")

    def predict_covered(self, P, *, awake=None):
        """(predictions, covered): covered[t] says whether the learner would commit to its
        prediction (some specialist votes and the top class holds >= threshold of the awake
        weight)."""
        out = self._predictions(P, awake)
        return [self.classes_[p] for p, _ in out], [c for _, c in out]

    def fit(self, P, y, classes=None, *, awake=None):
        """Forget everything, then one online pass."""
        with keep_on_failure(self):
            for k in [k for k in vars(self) if k not in self._param_names()]:
                delattr(self, k)
            return self.partial_fit(P, y, classes, awake=awake)

    def score(self, P, y, *, awake=None):
        """Accuracy of predict(P, awake=awake) on y."""
        pred = self.predict(P, awake=awake)
        ys = _check_y(type(self).__name__, y, len(pred))
        return sum(a == b for a, b in zip(pred, ys)) / len(ys)


class PairSpecialists(Specialists):
    """Blum's pair-of-attribute specialists (twin of mbcore.PairSpecialists): see that class.

    For categorical rows x = (x_0, ..., x_{d-1}): one specialist per pair of conditions
    (a = x_a, b = x_b), a < b, created the first time the pair of values occurs (weight 1, empty
    history).  A specialist is awake when its two conditions hold; it votes for the most frequent
    label among the last ``history`` labels of the rounds in which it was awake (ties: the most
    recent of the tied labels), and abstains while its history is empty.  After every round the
    label is appended to the history of each awake specialist.  The votes are combined by
    ``Specialists`` (round order: the pairs (a, b) in lexicographic order).

    At most 2048 attributes (mbcore numbers the pairs of attributes in 21 bits).  Before a batch
    creates any specialist, the number it could bring them to is counted (``_room``): for each
    pair of attributes a < b, with m rows, u_a distinct values of attribute a in the batch, S_a
    values of a known once the batch is read and h_ab specialists held for the pair,
    min(h_ab + min(u_a * u_b, m), S_a * S_b); the batch is refused (nothing created) when the
    sum is more than ``max_specialists``.
    """

    def __init__(self, history=5, demote=0.5, promote=1.5, threshold=0.0, prune_below=None,
                 max_specialists=10_000_000):
        self.history = history
        self.demote = demote
        self.promote = promote
        self.threshold = threshold
        self.prune_below = prune_below
        self.max_specialists = max_specialists

    def _validate_params(self):
        super()._validate_params()
        o = type(self).__name__
        h = self.history
        if isinstance(h, bool) or not isinstance(h, numbers.Integral) or not 1 <= h <= 255:
            raise ValueError(f"{o}: parameter history must be an integer in [1, 255], got "
                             f"{h!r}")
        k = self.max_specialists
        if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not k >= 1:
            raise ValueError(f"{o}: parameter max_specialists must be an integer >= 1, got "
                             f"{k!r}")

    def _init_state(self, n):
        super()._init_state(0)
        self._index = {}
        self._keys = []
        self._hist = []

    @property
    def specialists_(self):
        """The specialists in order of creation, each as ((a, value_a), (b, value_b))."""
        self._check_fitted("specialists_")
        return [((a, u), (b, v)) for a, b, u, v in self._keys]

    @property
    def n_specialists_(self):
        self._check_fitted("n_specialists_")
        return self._n

    def _rows(self, X, first):
        o = type(self).__name__
        if X is None or isinstance(X, (str, bytes)):
            raise TypeError(f"{o}: X must be a 2-D array-like of categorical values, got "
                            f"{type(X).__name__}")
        if is_csr(X) or hasattr(X, "tocsr"):
            X = _dense_rows(o, X)     # the implicit zeros are the category 0
        elif hasattr(X, "to_numpy") and hasattr(X, "columns"):
            X = X.to_numpy()          # a DataFrame: its rows (iterating it gives the columns)
        if getattr(X, "ndim", 2) != 2:
            raise ValueError(f"{o}: X must be 2-D (n_samples, n_attributes), got "
                             f"ndim={X.ndim}")
        if not hasattr(X, "__iter__"):
            raise TypeError(f"{o}: X must be a 2-D array-like (rows of values), got "
                            f"{type(X).__name__}")
        rows = []
        for r in X:
            if isinstance(r, (str, bytes)) or not hasattr(r, "__len__"):
                raise ValueError(f"{o}: X must be 2-D (n_samples, n_attributes), got a row that "
                                 "is not a sequence")
            rows.append([label_key(v) for v in r])
        if not rows:
            raise ValueError(f"{o}: X is empty (0 rows); at least one row is required")
        d = len(rows[0]) if first else self.n_attributes_
        if len(rows[0]) < 2:
            raise ValueError(f"{o}: X has {len(rows[0])} attributes; pairs need at least 2")
        if len(rows[0]) > 2048:
            raise ValueError(f"{o}: X has {len(rows[0])} attributes; at most 2048 (the pairs of "
                             "attributes are numbered in 21 bits)")
        for r in rows:
            if len(r) != d:
                raise ValueError(f"{o}: X has rows of {len(r)} attributes, expected {d}")
        for t, r in enumerate(rows):
            for v in r:
                if isinstance(v, float) and math.isnan(v):
                    raise ValueError(f"{o}: X contains NaN in row {t}; encode missing values "
                                     "as a category of their own")
                try:
                    hash(v)
                except TypeError:
                    raise TypeError(f"{o}: X values must be hashable categories, got "
                                    f"{type(v).__name__} in row {t}") from None
        return rows

    def _hist_vote(self, i):
        h = self._hist[i]
        best, best_n = -1, 0
        for v in reversed(h):          # most recent first: ties keep the most recent
            n = h.count(v)
            if n > best_n:
                best, best_n = v, n
        return best

    def _room(self, rows):
        """Refuse the batch (before creating anything) if it could bring the specialists past
        max_specialists: the sum over the pairs of attributes a < b of
        min(h_ab + min(u_a * u_b, m), S_a * S_b) (see the class)."""
        m, d = len(rows), len(rows[0])
        batch = [set(r[a] for r in rows) for a in range(d)]
        known = [set(vs) for vs in batch]
        held = {}
        for a, b, u, v in self._keys:
            known[a].add(u)
            known[b].add(v)
            held[a, b] = held.get((a, b), 0) + 1
        total = 0
        for a in range(d):
            for b in range(a + 1, d):
                new = min(len(batch[a]) * len(batch[b]), m)
                total += min(held.get((a, b), 0) + new, len(known[a]) * len(known[b]))
        if total > self.max_specialists:
            raise ValueError(f"{type(self).__name__}: X could bring the number of specialists "
                             f"to {total} (those held and the pairs of values X may add, "
                             f"counted before creating any), more than the parameter "
                             f"max_specialists={self.max_specialists}; raise max_specialists or "
                             "pass fewer rows or attributes")

    def _pair_ids(self, x, create):
        d = len(x)
        ids = []
        for a in range(d):
            for b in range(a + 1, d):
                key = (a, b, x[a], x[b])
                i = self._index.get(key)
                if i is None:
                    if not create:
                        continue
                    i = self._n
                    self._index[key] = i
                    self._keys.append(key)
                    self._hist.append([])
                    self._grow(i + 1)
                ids.append(i)
        return ids

    def partial_fit(self, X, y, classes=None):
        """One round per row: the awake pair specialists vote, the learner predicts and learns
        (weights on a mistake; histories always)."""
        self._learn(X, y, classes)
        return self

    def _learn_rounds(self, X, y, classes, first, awake=None):
        o = type(self).__name__
        rows = self._rows(X, first)
        ys = _check_y(o, y, len(rows))
        if first:
            self.classes_ = infer_classes_multi(o, ys, classes)
            self.n_attributes_ = len(rows[0])
            self._init_state(0)
        yy = _codes(o, self.classes_, ys)
        self._room(rows)
        preds = []
        for x, t in zip(rows, yy):
            ids = self._pair_ids(x, True)
            codes = [self._hist_vote(i) for i in ids]
            preds.append(self._round(ids, codes, t))
            for i in ids:
                h = self._hist[i]
                h.append(t)
                if len(h) > self.history:
                    del h[0]
        return preds

    def _predictions(self, X, awake=None):
        self._check_fitted("predict")
        out = []
        for x in self._rows(X, False):
            ids = self._pair_ids(x, False)
            out.append(self._vote(ids, [self._hist_vote(i) for i in ids])[:2])
        return out

    def predict(self, X):
        """The prediction for each row from the current state (no state change)."""
        return [self.classes_[p] for p, _ in self._predictions(X)]

    def predict_covered(self, X):
        out = self._predictions(X)
        return [self.classes_[p] for p, _ in out], [c for _, c in out]

    def fit(self, X, y, classes=None):
        """Forget everything, then one online pass."""
        with keep_on_failure(self):
            for k in [k for k in vars(self) if k not in self._param_names()]:
                delattr(self, k)
            return self.partial_fit(X, y, classes=classes)

    def score(self, X, y):
        pred = self.predict(X)
        ys = _check_y(type(self).__name__, y, len(pred))
        return sum(a == b for a, b in zip(pred, ys)) / len(ys)

def _dense_rows(owner, X):
    """A sparse matrix (CSR, or any format with tocsr) as lists of floats, its structure
    checked as for the other learners (check_rows)."""
    rows, d = check_rows(owner, X)
    out = []
    for idx, val in rows:
        r = [0.0] * d
        for j, v in zip(idx, val):
            r[j] = v
        out.append(r)
    return out
