"""Specialists, pure Python: the specification of mbcore.specialists.

Specialists are experts that may sleep: in each round an ``awake`` mask says which of them
vote (Blum's calendar study); ``PairSpecialists`` builds Blum's pair-of-attribute specialists
from categorical data.  Their numerics are in ``Specialists``' docstring; the labels, the
classes and the sum of the votes follow the experts' (``mbref.experts``).  The names are
importable from ``mbref.experts`` too, as they were.
"""

import copy
import math
import numbers
from fractions import Fraction

from ._advice import (AdviceLearner, advice_classes, check_y, first_nan, fold, label_codes,
                      last_argmax, lookup)
from .base import check_dims, dense_rows, keep_on_failure, label_key, matrix_rows
from ._numerics import finite as _finite, pow2_exponent as _pow2_exponent, term as _term

__all__ = ["Specialists", "PairSpecialists"]


def _mask_as_classes(owner, classes):
    """Refuse a 2-D mask where ``classes`` goes (the third argument of ``Specialists``'
    partial_fit and fit was ``awake`` until it became keyword-only)."""
    if classes is None or isinstance(classes, (str, bytes)):
        return
    rows_of_lists = isinstance(classes, (list, tuple)) and bool(classes) and \
        all(isinstance(r, (list, tuple)) for r in classes)
    if rows_of_lists or getattr(classes, "ndim", None) == 2:
        raise ValueError(f"{owner}: classes must be a 1-D list of labels, got a 2-D mask; the "
                         "awake mask is keyword-only: partial_fit(P, y, awake=W)")


class Specialists(AdviceLearner):
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

    _advice_unit = "specialist"

    # (sample_weight: refused, OnlineLearner._refuse_weights)
    _NO_WEIGHTS = ("a mistake multiplies the awake specialists' weights by the fixed "
                   "factors 1/2 and 3/2, and the notes give no weighted form of the rule")

    _TAKES = "awake advice"     # rows come with an awake mask, not as feature dicts
    _DICT_FEATURES = None

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
        return last_argmax(self._label_counts)

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
            pred = last_argmax(S)
        else:
            pred = last_argmax(q)
        covered = q[pred] >= self.threshold * fold(q)
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

    def partial_fit(self, P, y, classes=None, *, awake=None, sample_weight=None):
        """One round per row: the awake specialists vote, the learner predicts, and on a
        mistake the voters are demoted (wrong) or promoted (right).  ``awake`` (the mask of
        who votes, all awake by default) is keyword-only: ``classes`` is third, as for every
        learner."""
        self._refuse_weights(sample_weight)
        _mask_as_classes(type(self).__name__, classes)
        self._learn(P, y, classes, awake)
        return self

    def _learn(self, P, y, classes, awake=None, sample_weight=None):
        self._refuse_weights(sample_weight)
        self._validate_params()
        first = not self._is_fitted()
        if not first and classes is not None:
            cl = advice_classes(type(self).__name__, (), classes)
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
                    k = lookup(index, v)
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
        ys = check_y(o, y, len(rows))
        if first:
            if classes is None:
                first_nan(rows, "specialist", o, mask)
            values = [v for r, a in zip(rows, mask) for v, w in zip(r, a) if w]
            self.classes_ = advice_classes(o, values + ys, classes)
            self.n_experts_ = len(rows[0])
            self._init_state(len(rows[0]))
        yy = label_codes(o, self.classes_, ys)
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

    def fit(self, P, y, classes=None, *, awake=None, sample_weight=None):
        """Forget everything, then one online pass."""
        self._refuse_weights(sample_weight)
        with keep_on_failure(self):
            for k in [k for k in vars(self) if k not in self._param_names()]:
                delattr(self, k)
            return self.partial_fit(P, y, classes, awake=awake)

    def score(self, P, y, *, awake=None):
        """Accuracy of predict(P, awake=awake) on y."""
        pred = self.predict(P, awake=awake)
        ys = check_y(type(self).__name__, y, len(pred))
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

    _TAKES = "categorical"

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
        rows = matrix_rows(o, X, dense=dense_rows, unit="attribute")
        if len(rows[0]) < 2:
            raise ValueError(f"{o}: X has {len(rows[0])} attributes; pairs need at least 2")
        if len(rows[0]) > 2048:
            raise ValueError(f"{o}: X has {len(rows[0])} attributes; at most 2048 (the pairs of "
                             "attributes are numbered in 21 bits)")
        if not first:            # (the limits first: they hold whatever the fitted width)
            check_dims(o, (len(rows), len(rows[0])), self.n_attributes_, unit="attribute")
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

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One round per row: the awake pair specialists vote, the learner predicts and learns
        (weights on a mistake; histories always)."""
        self._learn(X, y, classes, sample_weight=sample_weight)
        return self

    def _learn_rounds(self, X, y, classes, first, awake=None):
        o = type(self).__name__
        rows = self._rows(X, first)
        ys = check_y(o, y, len(rows))
        if first:
            self.classes_ = advice_classes(o, ys, classes)
            self.n_attributes_ = len(rows[0])
            self._init_state(0)
        yy = label_codes(o, self.classes_, ys)
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

    def fit(self, X, y, classes=None, sample_weight=None):
        """Forget everything, then one online pass."""
        self._refuse_weights(sample_weight)
        with keep_on_failure(self):
            for k in [k for k in vars(self) if k not in self._param_names()]:
                delattr(self, k)
            return self.partial_fit(X, y, classes=classes)

    def score(self, X, y):
        pred = self.predict(X)
        ys = check_y(type(self).__name__, y, len(pred))
        return sum(a == b for a, b in zip(pred, ys)) / len(ys)

