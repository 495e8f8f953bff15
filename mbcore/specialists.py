"""Specialists: experts that may sleep, Blum's ``Specialists`` and ``PairSpecialists``, each
with its pure-Python twin of the same name in ``mbref.specialists``.

In each round some specialists are awake (a mask beside the advice matrix P, one column per
specialist) and vote for a label; ``PairSpecialists`` makes its specialists from categorical
data, one per pair of attribute values.  The numerics follow the experts' (log2 weights, exact
votes when both factors are powers of two): see ``mbref.specialists``.  The names are
importable from :mod:`mbcore.experts` too, as they were.
"""

import functools
import math
import numbers

import numpy as np

from ._advice import (advice_classes, advice_matrix, all_labels, check_no_nan, encode_labels_multi,
                      exact_labels, is_nan, object_rows)
from ._kernels import experts as _k
from ._validation import (check_2d, classes_given, encode_codes, input_type_error, is_sparse,
                          same_classes, sparse_to_dense)
from .base import OnlineLearner, Snapshot, accuracy
from ._tags import tags
from . import _params as params
from ._numerics import pow2_exponent as _pow2_exponent
from ._state import (BOOL, COMMON, F8, FLOAT, I4, I8, INT, U1, StateError, arr, finite, need,
                     nonneg, py, shape, values_list)

__all__ = ["Specialists", "PairSpecialists"]


def _is_01(v):
    """An awake flag: a bool, or a number equal to 0 or 1."""
    return isinstance(v, (bool, np.bool_, numbers.Real)) and not is_nan(v) and v in (0, 1)


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


class Specialists(OnlineLearner):
    __doc__ = """Specialists (sleeping experts) combined as in Blum's calendar study.

    Update rule (Blum 1997; Angluin lecture 20): in each round some specialists are awake (the
    ``awake`` mask) and vote for a class.  Predict the class with the largest total weight of
    the awake voters (ties go to the later class in ``classes_``; if nobody votes, the most
    frequent label so far).  On a mistake, every awake voter that was wrong is multiplied by
    ``demote`` (½) and every awake voter that was right by ``promote`` (3/2); otherwise nothing
    changes.  Every specialist starts with weight 1.

    Mistake bound: if some r specialists never vote wrongly and in every round at least one of
    them votes, then M ≤ r · log_promote(n) for n specialists (M ≤ 1.71 r log₂ n for ½, 3/2;
    it needs demote + promote ≤ 2, so that no mistake increases the awake weight).

    Parameters
    ----------
    demote : float in (0, 1), default=0.5
    promote : float >= 1, default=1.5
    threshold : float in [0, 1], default=0.0
        Coverage option (Blum 1997): a round counts as *covered* only if the top class holds
        at least this share of the awake voters' weight.  Learning is unchanged; the coverage
        and the mistakes in covered rounds are reported (``coverage_``, ``covered_mistakes_``)
        and ``predict_covered`` tells which predictions to trust.
    prune_below : float in (0, 1) or None, default=None
        Prune low-weight specialists: one whose weight falls below this value is asleep for
        good (``pruned_``).

    Attributes
    ----------
    expert_mistakes_ : ndarray of shape (n_experts,)
        Wrong votes of each specialist (in every round it voted, mistake of the learner or not).
    log2_weights_ : ndarray
    weights_ : ndarray
        Relative to the largest.
    coverage_ : float
    n_covered_ : int
    covered_mistakes_ : int
    pruned_ : ndarray of bool
    mistakes_, updates_ (rounds in which weights changed), n_seen_, classes_, n_experts_

    Notes
    -----
    Numerics: a weight is demote**d · promote**p, kept as the two counts; log₂ of it is
    recomputed from the counts (no rounding accumulates over 10⁸ rounds, and it never
    underflows), split into an integer exponent and a cached mantissa, and each round's votes
    are summed relative to the round's largest exponent, so the top term is in [1, 2).  When
    both factors are powers of two the prediction is exact (as for Weighted Majority).  The
    twin ``mbref.Specialists`` defines the arithmetic.

    Examples
    --------
    On the mushrooms, one specialist per (feature, label): "if feature j is present, the
    mushroom is edible" and "... poisonous", awake on the rows where feature j is present.

    >>> import numpy as np
    >>> from mbcore import Specialists
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms(encoding="boolean")
    >>> P = np.tile(np.r_[np.ones(112, int), -np.ones(112, int)], (len(y), 1))
    >>> awake = np.hstack([X, X]).astype(bool)
    >>> sp = Specialists().partial_fit(P, y, awake=awake)
    >>> bool(sp.mistakes_ < 0.05 * len(y))
    True
    >>> cautious = Specialists(threshold=0.9).partial_fit(P, y, awake=awake)
    >>> bool(cautious.covered_mistakes_ <= cautious.mistakes_), cautious.coverage_ < 1.0
    (True, True)
    """

    # sample_weight refused (OnlineLearner._refuse_weights)
    _TAGS = tags(takes="awake advice", k_classes=True,
                 no_weights=("a mistake multiplies the awake specialists' weights by the fixed "
                             "factors 1/2 and 3/2, and the notes give no weighted form of the "
                             "rule"),
                 bound="specialists", multi_bound="specialists")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}]

    # (no decision_function here; the twin's ties go to classes_[1]: tests/_cases.py)
    _TIE_AT_ZERO = "positive"

    def __init__(self, demote=0.5, promote=1.5, threshold=0.0, prune_below=None):
        self.demote = demote
        self.promote = promote
        self.threshold = threshold
        self.prune_below = prune_below

    _PARAMETERS = {
        "demote": params.Real(0.0, 1.0, high_inclusive=False, what="a real in (0, 1)"),
        "promote": params.Real(1.0, 2.0 ** 64, low_inclusive=True, what="a real >= 1"),
        "threshold": params.Real(0.0, 1.0, low_inclusive=True, what="a real in [0, 1]"),
        "prune_below": params.Real(0.0, 1.0, high_inclusive=False, none=True,
                                   what="None or a real in (0, 1)")}

    # -- state ------------------------------------------------------------------------------
    def _init_state(self, n):
        kd, kp = _pow2_exponent(float(self.demote)), _pow2_exponent(float(self.promote))
        self._ld = float(kd) if kd is not None else math.log2(float(self.demote))
        self._lp = float(kp) if kp is not None else math.log2(float(self.promote))
        self._exact_mode = kd is not None and kp is not None
        self._prune_l = (0.0 if self.prune_below is None
                         else math.log2(float(self.prune_below)))
        self._n = 0
        self._nd = np.zeros(0, dtype=np.int64)
        self._np = np.zeros(0, dtype=np.int64)
        self._l = np.zeros(0)
        self._e = np.zeros(0)
        self._c = np.zeros(0)
        self._alive = np.zeros(0, dtype=np.uint8)
        self._m = np.zeros(0, dtype=np.int64)
        self._label_counts = np.zeros(len(self.classes_), dtype=np.int64)
        self._counts = np.zeros(5, dtype=np.int64)
        self._grow(n)

    # -- persistent state (mbcore._state; mbcore.persistence stores what _STATE names) -------
    _STATE = dict(COMMON, n_experts_=INT, _ld=FLOAT, _lp=FLOAT, _exact_mode=BOOL,
                  _prune_l=FLOAT, _n=INT, _nd=arr(I8, 1), _np=arr(I8, 1), _l=arr(F8, 1),
                  _e=arr(F8, 1), _c=arr(F8, 1), _alive=arr(U1, 1), _m=arr(I8, 1),
                  _label_counts=arr(I8, 1))

    def _check_state(self, st):
        o, n = self._owner, st["_n"]
        cap = st["_l"].shape[0]
        need(n <= cap, f"{o}: {n} specialists in {cap} slots")
        for k in self._GROWN:
            shape(self, k, (cap,))
        shape(self, "_label_counts", (st["classes_"].shape[0],))
        shape(self, "_counts", (5,))
        nonneg(self, "_counts", "_nd", "_np", "_m", "_label_counts")
        need((st["_alive"] <= 1).all(), f"{o}: _alive is not 0/1")
        finite(self, "_l", "_e", "_c")
        self._validate_params()
        kd = _pow2_exponent(float(self.demote))
        kp = _pow2_exponent(float(self.promote))
        need(st["_ld"] == (float(kd) if kd is not None else math.log2(float(self.demote))) and
             st["_lp"] == (float(kp) if kp is not None else math.log2(float(self.promote))) and
             st["_exact_mode"] == (kd is not None and kp is not None) and
             st["_prune_l"] == (0.0 if self.prune_below is None
                                else math.log2(float(self.prune_below))),
             f"{o}: the log factors do not match the parameters")
        self._check_specialists(st)

    def _check_specialists(self, st):
        """Who the specialists are: here one per expert of the advice."""
        need(st["n_experts_"] == st["_n"] == st["n_features_in_"],
             f"{self._owner}: n_experts_, _n and n_features_in_ differ")


    _GROWN = ("_nd", "_np", "_l", "_e", "_c", "_alive", "_m")

    def _grow(self, n):
        """Room for n specialists (new ones: weight 1, alive); capacity doubles."""
        cap = self._l.shape[0]
        if n > cap:
            new = max(n, 2 * cap, 16)
            for name in self._GROWN:
                old = getattr(self, name)
                a = np.zeros(new, dtype=old.dtype)
                a[:cap] = old
                if name in ("_c", "_alive"):
                    a[cap:] = 1
                setattr(self, name, a)
            self._grow_more(cap, new)
        self._n = max(self._n, n)

    def _grow_more(self, cap, new):
        pass

    @property
    def expert_mistakes_(self):
        """Wrong votes of each specialist so far."""
        self._check_fitted("expert_mistakes_")
        return self._m[:self._n].copy()

    @property
    def log2_weights_(self):
        """log2 of each specialist's weight."""
        self._check_fitted("log2_weights_")
        return self._l[:self._n].copy()

    @property
    def weights_(self):
        """Each specialist's weight relative to the largest (max = 1.0)."""
        self._check_fitted("weights_")
        l = self._l[:self._n]
        out = np.empty_like(l)
        _k.terms(l - l.max(), out)
        return out

    @property
    def pruned_(self):
        """Which specialists were pruned (asleep for good)."""
        self._check_fitted("pruned_")
        return self._alive[:self._n] == 0

    @property
    def coverage_(self):
        """The share of rounds in which the learner committed to a prediction (some
        specialist voted and the top class held at least ``threshold`` of the awake weight)."""
        self._check_fitted("coverage_")
        return float(self._counts[3] / self._counts[0]) if self._counts[0] else 0.0

    @property
    def n_covered_(self):
        self._check_fitted("n_covered_")
        return int(self._counts[3])

    @property
    def covered_mistakes_(self):
        """Mistakes made in covered rounds."""
        self._check_fitted("covered_mistakes_")
        return int(self._counts[4])

    # -- the kernel -------------------------------------------------------------------------
    def _pass(self, indptr, ids, codes, yy, pred, covered, update, updated=None, hist=None):
        h = hist if hist is not None else (None, None, None)
        _k.specialists_pass(indptr, ids, codes, yy, self._nd, self._np, self._l, self._e,
                            self._c, self._alive, self._m, self._label_counts, self._counts,
                            self._ld, self._lp, self._exact_mode, float(self.threshold),
                            self.prune_below is not None, self._prune_l, len(self.classes_),
                            pred, covered, update, h[0], h[1], h[2], updated)

    # -- input ------------------------------------------------------------------------------
    def _rounds(self, P, awake, n):
        """(P array, the awake mask as bool) after the shape checks."""
        o = self._owner
        A = advice_matrix(o, P, n, "specialist")
        if awake is None:
            return A, np.ones(A.shape, dtype=bool)
        if isinstance(awake, (str, bytes)):
            raise ValueError(f"{o}: awake must be a 2-D mask (rounds x specialists) like P")
        try:
            W = np.asarray(awake)
        except ValueError:                       # ragged rows
            raise ValueError(f"{o}: awake must be a 2-D mask (rounds x specialists) like P") \
                from None
        if W.shape != A.shape:
            raise ValueError(f"{o}: awake has shape {W.shape}, but P has shape {A.shape}; "
                             "they must match")
        if W.dtype != bool:
            if W.dtype.kind in "iuf":
                ok = (W == 0) | (W == 1)
            else:                                # objects, strings, ...: value by value
                ok = np.frompyfunc(_is_01, 1, 1)(W).astype(bool)
            if not ok.all():
                t, i = (int(v) for v in np.argwhere(~ok)[0])
                v = W[t, i]
                raise ValueError(f"{o}: awake must hold booleans (or 0/1), got "
                                 f"{v.item() if isinstance(v, np.generic) else v!r} for "
                                 f"specialist {i} in round {t}")
            W = W.astype(bool)
        return A, W

    def _sparse_rounds(self, A, W, offset=0):
        rows, cols = np.nonzero(W)
        indptr = np.zeros(A.shape[0] + 1, dtype=np.int64)
        np.cumsum(W.sum(axis=1), out=indptr[1:])
        codes = encode_codes(self._owner, A[rows, cols], self.classes_,
                             lambda b: f"the prediction of specialist {cols[b[0]]} in round "
                                       f"{rows[b[0]] + offset}")
        return indptr, cols.astype(np.int64), np.ascontiguousarray(codes, dtype=np.int32)

    # The awake (round, specialist) pairs are listed a block of rounds at a time, so memory
    # stays O(block x specialists) however many rounds come (a broadcast mask of 10**7 rounds
    # would otherwise list 10**9 pairs at once).
    _BLOCK_ENTRIES = 1 << 22

    def _blocks(self, A):
        step = max(1, self._BLOCK_ENTRIES // max(1, A.shape[1]))
        return [(a, min(a + step, A.shape[0])) for a in range(0, A.shape[0], step)]

    def _encode_y_multi(self, y, n):
        return encode_labels_multi(self._owner, y, n, self.classes_)

    def _record_labels(self, pred):
        return self.classes_[pred]

    # -- the protocol -------------------------------------------------------------------------
    def partial_fit(self, P, y, classes=None, *, awake=None, sample_weight=None):
        """One round per row: the awake specialists vote, the learner predicts, and on a
        mistake the voters are demoted (wrong) or promoted (right).

        Parameters
        ----------
        P : array-like of shape (n_rounds, n_specialists)
            Each specialist's predicted label (entries of sleeping specialists are ignored).
        y : array-like of shape (n_rounds,)
        classes : the labels, optional (at least two); third, as for every learner
        awake : array-like of bool, shape (n_rounds, n_specialists), optional (all awake)
            Keyword-only.

        Returns
        -------
        self
        """
        self._refuse_weights(sample_weight)
        _mask_as_classes(self._owner, classes)
        self._learn(P, y, classes, False, awake)
        return self

    def _online(self, P, y, classes=None, *, awake=None, sample_weight=None):
        self._refuse_weights(sample_weight)
        return self._learn(P, y, classes, True, awake)

    def fit(self, P, y, classes=None, *, awake=None, sample_weight=None):
        """Reset, then one online pass (the arguments of ``partial_fit``)."""
        self._refuse_weights(sample_weight)
        with Snapshot(self, copy_arrays=False):     # (the reset replaces every state array)
            self._reset()
            return self.partial_fit(P, y, classes, awake=awake)

    def _check_classes(self, classes):
        if classes is not None and getattr(self, "classes_", None) is not None and \
                not same_classes(self.__dict__, classes):
            cl = advice_classes(self._owner, (), classes)
            if cl.tolist() != self.classes_.tolist():
                raise ValueError(f"{self._owner}: classes={cl.tolist()!r} differs from the "
                                 f"fitted classes {self.classes_.tolist()!r}")
            self._classes_given = classes_given(classes)      # (known from now on)

    def _learn(self, P, y, classes, record, awake=None):
        self._validate_params()
        self._check_classes(classes)
        with Snapshot(self):      # a call that raises leaves the learner as it was
            first = getattr(self, "classes_", None) is None
            A, W = self._rounds(P, awake, None if first else self.n_experts_)
            if first:
                if y is None:
                    raise TypeError(f"{self._owner}: y must be a 1-D array-like of labels, "
                                    "got None")
                if classes is None:
                    check_no_nan(self._owner, A, "specialist", W)
                self.classes_ = advice_classes(
                    self._owner, None if classes is not None else
                    all_labels(self._owner, A[W][None, :], y),
                    classes)
                if classes is not None:
                    self._classes_given = classes_given(classes)
                self.n_experts_ = A.shape[1]
                self.n_features_in_ = A.shape[1]
                self._init_state(A.shape[1])
            yy = self._encode_y_multi(y, A.shape[0])
            out = [self._run(*self._sparse_rounds(A[a:b], W[a:b], a), yy[a:b], record)
                   for a, b in self._blocks(A)]
            if not record:
                return None
            return tuple(np.concatenate(parts) for parts in zip(*out))

    def _run(self, indptr, ids, codes, yy, record, hist=None):
        n = yy.shape[0]
        pred = np.empty(n, dtype=np.int32)
        upd = np.empty(n, dtype=np.uint8) if record else None
        self._pass(indptr, ids, codes, yy, pred, None, True, upd, hist)
        return (pred, upd, yy) if record else None

    def _predictions(self, P, awake):
        self._check_fitted("predict")
        A, W = self._rounds(P, awake, self.n_experts_)
        out = [self._predict_rounds(*self._sparse_rounds(A[a:b], W[a:b], a))
               for a, b in self._blocks(A)]
        return tuple(np.concatenate(parts) for parts in zip(*out))

    def _predict_rounds(self, indptr, ids, codes, hist=None):
        n = indptr.shape[0] - 1
        pred = np.empty(n, dtype=np.int32)
        cov = np.empty(n, dtype=np.uint8)
        self._pass(indptr, ids, codes, None, pred, cov, False, None, hist)
        return pred, cov.astype(bool)

    def predict(self, P, *, awake=None):
        """The prediction for each round (no state change): the top class of the awake
        voters, or the most frequent label so far when nobody votes."""
        pred = self._predictions(P, awake)[0]
        return self.classes_[pred]

    def predict_covered(self, P, *, awake=None):
        """(predictions, covered): whether the learner would commit to each prediction (some
        specialist votes and the top class holds at least ``threshold`` of their weight)."""
        pred, cov = self._predictions(P, awake)
        return self.classes_[pred], cov

    def score(self, P, y, *, awake=None):
        """Accuracy of predict(P, awake=awake) on y (y checked like ``partial_fit`` checks
        it)."""
        self._check_fitted("score")
        return accuracy(self, self.predict(P, awake=awake), y)

    def _label_codes(self, y, n):
        return self._encode_y_multi(y, n)

    @property
    def decision_function(self):
        """Not available: the specialists' vote is relative to each round's awake weight, so
        there is no score to report; ``predict_covered`` tells whether the learner commits.
        (A property that raises AttributeError, so ``hasattr(learner, "decision_function")``
        is False, as scikit-learn's tools expect of a classifier without scores.)"""
        raise AttributeError(f"{self._owner} has no decision_function (its vote has no score "
                             "to report); use predict or predict_covered")


class PairSpecialists(Specialists):
    __doc__ = """Blum's pair-of-attribute specialists over categorical data.

    Rule (Blum 1997; Angluin lecture 20): for rows of d categorical attributes, there is one
    specialist per pair of conditions (a = u, b = v), a < b, created the first time that pair
    of values occurs (weight 1).  It is awake on the rows that satisfy both conditions and
    votes for the most frequent label among the last ``history`` labels of the rows on which
    it was awake (ties: the most recent of the tied labels); with no history yet it abstains.
    The votes are combined by ``Specialists`` (½ wrong, 3/2 right on a mistake; the coverage
    threshold and pruning options); after each row its label joins the history of every awake
    specialist.

    Mistake bound: that of ``Specialists``, with n the number of specialists created
    (≤ C(d, 2) · (values per attribute)²), for streams on which some r specialists never vote
    wrongly and one of them votes in every round.

    Parameters
    ----------
    history : int in [1, 255], default=5
    demote, promote, threshold, prune_below : as for ``Specialists``
    max_specialists : int >= 1, default=10**7
        The most specialists the learner may hold.  Before a batch creates any, the learner
        counts how many it could hold afterwards, and refuses the batch (ValueError, the
        learner unchanged) when that is more than ``max_specialists``.  With m rows, u_a
        distinct values of attribute a in the batch, S_a values of a known once the batch is
        read, and h_ab specialists held for the pair of attributes (a, b), the count is
        Σ_{a<b} min(h_ab + min(u_a·u_b, m), S_a·S_b): an upper bound on the number reached,
        exact for instance on a first batch whose rows never repeat a pair of values, or when
        every pair of known values is held already.  A specialist takes 120 bytes (its
        weight counts and label history, its key and hash-table slots; measured), up to 250
        just after the arrays double, and a call that creates some peaks near 400 bytes per
        specialist held (the copy that undoes a failed call, the arrays that grow): the
        default allows 1.2 to 2.5 GB held, peaks near 4 GB.

    Attributes
    ----------
    specialists_ : list of ((a, value_a), (b, value_b)), in order of creation
    n_specialists_ : int
    n_attributes_ : int
    expert_mistakes_, log2_weights_, weights_, pruned_, coverage_, n_covered_,
    covered_mistakes_, mistakes_, updates_, n_seen_, classes_

    Raises
    ------
    ValueError
        For X of more than 2048 attributes (the pairs of attributes are numbered in 21 bits),
        and for a batch that could take the specialists past ``max_specialists``.

    Examples
    --------
    MONK-1's target is (a1 = a2) or (a5 = 1): some pairs of conditions decide it.  Two passes
    over the 432 points of its domain:

    >>> from mbcore import PairSpecialists, run_online
    >>> from mbcore.datasets import load_monks
    >>> X, y = load_monks(1, split="test")
    >>> ps = PairSpecialists()
    >>> first, second = run_online(ps, X, y), run_online(ps, X, y)
    >>> ps.n_specialists_   # sum over the 15 pairs of attributes of |values a| x |values b|
    119
    >>> ps.specialists_[0]
    ((0, 1), (1, 1))
    >>> bool(first.mistakes < 0.15 * len(y)), bool(second.mistakes < first.mistakes)
    (True, True)

    A limit below what a batch could create refuses it before creating any specialist:

    >>> PairSpecialists(max_specialists=100).fit(X, y)
    Traceback (most recent call last):
    ...
    ValueError: PairSpecialists: X could bring ... specialists to 119 ... max_specialists=100; ...
    """

    # (no bound: specialists created as the data comes)
    _TAGS = tags(takes="categorical", bound=None, multi_bound=None)

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"history": 3}]

    def __init__(self, history=5, demote=0.5, promote=1.5, threshold=0.0, prune_below=None,
                 max_specialists=10_000_000):
        self.history = history
        self.demote = demote
        self.promote = promote
        self.threshold = threshold
        self.prune_below = prune_below
        self.max_specialists = max_specialists

    # added after 0.1.0: files of 0.1.0 lack it (its default never refuses what 0.1.0 held)
    _NEW_PARAMS = frozenset(("max_specialists",))

    _PARAMETERS = {"history": params.Integer(1, 255), "max_specialists": params.Integer(1)}

    def _init_state(self, n):
        H = int(self.history)
        self._hist = np.zeros((0, H), dtype=np.int32)
        self._hcnt = np.zeros(0, dtype=np.int32)
        self._hnext = np.zeros(0, dtype=np.int32)
        self._cats = [dict() for _ in range(self.n_attributes_)]   # value -> code
        self._cat_values = [[] for _ in range(self.n_attributes_)]  # code -> value
        self._tkeys = np.full(1024, -1, dtype=np.int64)             # key -> id hash table
        self._tids = np.zeros(1024, dtype=np.int64)
        self._nid = np.zeros(1, dtype=np.int64)
        self._keys = np.zeros(512, dtype=np.int64)                   # id -> key
        super()._init_state(n)

    # -- persistent state: the specialists' state, their label histories, the categories seen
    # per attribute and the pair keys with their hash table (rebuilt and compared)
    _STATE = dict({k: v for k, v in Specialists._STATE.items() if k != "n_experts_"},
                  n_attributes_=py(int, low=2), _hist=arr(I4, 2), _hcnt=arr(I4, 1),
                  _hnext=arr(I4, 1), _cat_values=values_list, _tkeys=arr(I8, 1),
                  _tids=arr(I8, 1), _nid=arr(I8, 1), _keys=arr(I8, 1))
    _DERIVED = frozenset(("_cats",))

    def _check_specialists(self, st):
        o, n = self._owner, st["_n"]
        K = st["classes_"].shape[0]
        cap = st["_l"].shape[0]
        A = st["n_attributes_"]
        need(A == st["n_features_in_"], f"{o}: n_attributes_ != n_features_in_")
        need(A <= _MAX_ATTRIBUTES, f"{o}: n_attributes_ = {A}, more than {_MAX_ATTRIBUTES}")
        H = int(self.history)
        shape(self, "_hist", (cap, H))
        shape(self, "_hcnt", (cap,))
        shape(self, "_hnext", (cap,))
        need(((st["_hist"] >= 0) & (st["_hist"] < K)).all() and
             ((st["_hcnt"] >= 0) & (st["_hcnt"] <= H)).all() and
             ((st["_hnext"] >= 0) & (st["_hnext"] < H)).all(),
             f"{o}: label histories out of range")
        vals = st["_cat_values"]
        need(len(vals) == A, f"{o}: _cat_values has {len(vals)} attributes, not {A}")
        cats = []
        for a, vs in enumerate(vals):
            try:
                dct = {v: k for k, v in enumerate(vs)}
            except TypeError:
                raise StateError(f"{o}: a category of attribute {a} is not hashable") from None
            need(len(dct) == len(vs) and len(vs) <= _CODE_MASK,
                 f"{o}: the categories of attribute {a} repeat")
            cats.append(dct)
        shape(self, "_nid", (1,))
        need(int(st["_nid"][0]) == n, f"{o}: _nid != _n")
        keys = st["_keys"]
        need(keys.shape[0] >= max(n, 1), f"{o}: _keys is too short")
        pa, pb = _pair_index(A)
        ks = keys[:n]
        p, ca, cb = ks >> 42, (ks >> 21) & _CODE_MASK, ks & _CODE_MASK
        ok = (ks >= 0).all() and (p < len(pa)).all() and np.unique(ks).shape[0] == n
        if ok and n:
            sizes = np.array([len(v) for v in vals])
            ok = bool((ca < sizes[pa[p]]).all() and (cb < sizes[pb[p]]).all())
        need(ok, f"{o}: specialist keys out of range")
        T = st["_tkeys"].shape[0]
        shape(self, "_tids", (T,))
        need(T >= 2 and T & (T - 1) == 0 and 2 * n <= T, f"{o}: a hash table of size {T}")
        tk, ti = np.full(T, -1, dtype=np.int64), np.zeros(T, dtype=np.int64)
        _k.pair_rehash(np.ascontiguousarray(keys), n, tk, ti)
        need(np.array_equal(tk, st["_tkeys"]) and np.array_equal(ti, st["_tids"]),
             f"{o}: the hash table does not match the specialist keys")
        self.__dict__["_cats"] = cats


    def _grow_more(self, cap, new):
        for name in ("_hist", "_hcnt", "_hnext"):
            old = getattr(self, name)
            a = np.zeros((new,) + old.shape[1:], dtype=old.dtype)
            a[:cap] = old[:cap]
            setattr(self, name, a)

    @property
    def n_specialists_(self):
        self._check_fitted("n_specialists_")
        return int(self._n)

    @property
    def specialists_(self):
        """The specialists in order of creation, as ((a, value_a), (b, value_b))."""
        self._check_fitted("specialists_")
        out = []
        pa, pb = _pair_index(self.n_attributes_)
        for key in self._keys[:self._n].tolist():
            p, ca, cb = key >> 42, (key >> 21) & _CODE_MASK, key & _CODE_MASK
            a, b = int(pa[p]), int(pb[p])
            out.append(((a, self._cat_values[a][ca]), (b, self._cat_values[b][cb])))
        return out

    @property
    def n_experts_(self):
        return int(self._n) if hasattr(self, "_n") else None

    @n_experts_.setter
    def n_experts_(self, v):
        pass

    # -- input ------------------------------------------------------------------------------
    def _categorical(self, X, first):
        o = self._owner
        names = dict(unit="attribute")
        if X is None or isinstance(X, (str, bytes)):
            raise input_type_error(o, X, **names)
        if is_sparse(X):
            # dense values (the implicit zeros are the category 0), the structure checked
            # before anything reads through it
            X = sparse_to_dense(o, X)
        elif hasattr(X, "to_numpy") and hasattr(X, "columns"):
            X = X.to_numpy()          # a DataFrame: its rows (iterating it gives the columns)
        A = X if isinstance(X, np.ndarray) else object_rows(o, X, **names)
        check_2d(o, A, **names)
        if A.shape[1] < 2:
            raise ValueError(f"{o}: X has {A.shape[1]} attributes; pairs need at least 2")
        if A.shape[1] > _MAX_ATTRIBUTES:
            raise ValueError(f"{o}: X has {A.shape[1]} attributes; at most {_MAX_ATTRIBUTES} "
                             "(the pairs of attributes are numbered in 21 bits)")
        if not first:            # (the limits first: they hold whatever the fitted width)
            check_2d(o, A, self.n_attributes_, **names)
        if A.dtype.kind == "f" and np.isnan(A).any():
            t = int(np.flatnonzero(np.isnan(A).any(axis=1))[0])
            raise ValueError(f"{o}: X contains NaN in row {t}; encode missing values as a "
                             "category of their own")
        if A.dtype.kind == "O":
            for k, v in enumerate(A.ravel()):
                if isinstance(v, float) and v != v:
                    raise ValueError(f"{o}: X contains NaN in row {k // A.shape[1]}; encode "
                                     "missing values as a category of their own")
                try:
                    hash(v)
                except TypeError:
                    raise TypeError(f"{o}: X values must be hashable categories, got "
                                    f"{type(v).__name__} in row {k // A.shape[1]}") from None
        return A

    def _column_codes(self, A, create):
        """Per attribute, the code of each value (-1 for a value never seen when not
        creating); new values get the next codes.  Returns the codes and, per attribute, the
        number of distinct codes in the batch."""
        C = np.empty(A.shape, dtype=np.int64)
        u = np.empty(A.shape[1], dtype=np.int64)
        for a in range(A.shape[1]):
            col = A[:, a]
            try:
                uniq, inv = np.unique(col, return_inverse=True)
            except TypeError:      # mixed types: one dictionary pass per value
                uniq, inv = None, None
            cats, vals = self._cats[a], self._cat_values[a]
            if uniq is None:
                for t, v in enumerate(col.tolist()):
                    k = cats.get(v)
                    if k is None and create:
                        k = cats[v] = len(vals)
                        vals.append(v)
                    C[t, a] = -1 if k is None else k
                u[a] = np.unique(C[:, a]).shape[0]
            else:
                ucodes = np.empty(uniq.shape[0], dtype=np.int64)
                for j, v in enumerate(uniq.tolist()):
                    k = cats.get(v)
                    if k is None and create:
                        k = cats[v] = len(vals)
                        vals.append(v)
                    ucodes[j] = -1 if k is None else k
                C[:, a] = ucodes[inv.reshape(-1)]
                u[a] = len(set(ucodes.tolist()))
            if len(vals) > _CODE_MASK:
                raise ValueError(f"{self._owner}: attribute {a} has more than {_CODE_MASK} "
                                 "distinct values")
        return C, u

    def _check_room(self, m, u):
        """Refuse a batch of m rows (u: the distinct values per attribute, the batch's values
        already coded) that could take the specialists past max_specialists, before any is
        created.  For the pair of attributes (a, b) the batch adds at most min(u_a u_b, m)
        specialists (the pairs of its values, one per row at most), and the pair holds at most
        S_a S_b (the pairs of the known values): the count is Σ_{a<b} min(h_ab + min(u_a u_b,
        m), S_a S_b).  Only pairs already holding specialists can have that below h_ab + min(u_a
        u_b, m) (u_a <= S_a), so the count is n + Σ min(u_a u_b, m) (without a list of the pairs)
        less a correction over those pairs, needed only when the first is past the limit."""
        limit = int(self.max_specialists)
        n, d = int(self._n), u.shape[0]
        if n + m * (d * (d - 1) // 2) <= limit:        # (each term is at most m)
            return
        total = n + _sum_min_products(u, m)
        if total <= limit:
            return
        if n:
            pa, pb = _pair_index(u.shape[0])
            held = np.bincount(self._keys[:n] >> 42, minlength=pa.shape[0])
            p = np.flatnonzero(held)
            a, b = pa[p], pb[p]
            S = np.array([len(v) for v in self._cat_values], dtype=np.int64)
            add = np.minimum(u[a] * u[b], m)
            total -= int((held[p] + add - np.minimum(held[p] + add, S[a] * S[b])).sum())
        if total > limit:
            raise ValueError(_too_many(self._owner, total, limit))

    def _round_keys(self, C):
        """The (rows x pairs) matrix of specialist keys (pair index, code a, code b); -1 where
        a value is unknown."""
        ia, ib = _pair_index(C.shape[1])
        ca, cb = C[:, ia], C[:, ib]
        keys = (np.arange(ia.shape[0], dtype=np.int64) << 42) | (ca << 21) | cb
        keys[(ca < 0) | (cb < 0)] = -1
        return keys

    def _lookup(self, keys, create):
        """Specialist ids of the keys (-1 for unknown ones when not creating); new keys get
        ids in order of first occurrence in the stream (a hash table in the kernel)."""
        flat = np.ascontiguousarray(keys.ravel())
        out = np.empty(flat.shape[0], dtype=np.int64)
        pos = 0
        while True:
            stop = _k.pair_lookup(flat, self._tkeys, self._tids, self._keys, self._nid, out,
                                  pos, create)
            if stop < 0:
                break
            n = int(self._nid[0])
            cap = 2 * self._tkeys.shape[0]
            while 2 * (n + 1) > cap:
                cap *= 2
            keys_by_id = np.zeros(max(2 * self._keys.shape[0], n + 1), dtype=np.int64)
            keys_by_id[:n] = self._keys[:n]
            tkeys, tids = np.full(cap, -1, dtype=np.int64), np.zeros(cap, dtype=np.int64)
            _k.pair_rehash(keys_by_id, n, tkeys, tids)
            self._keys, self._tkeys, self._tids = keys_by_id, tkeys, tids
            pos = stop
        if create:
            self._grow(int(self._nid[0]))
        return out.reshape(keys.shape)

    def _hist_state(self):
        return (self._hist, self._hcnt, self._hnext)

    # -- the protocol -------------------------------------------------------------------------
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One round per row: the awake pair specialists vote, the learner predicts and
        learns (weights on a mistake; the histories always)."""
        self._refuse_weights(sample_weight)
        self._learn(X, y, classes, False)
        return self

    def _online(self, X, y, classes=None, sample_weight=None):
        self._refuse_weights(sample_weight)
        return self._learn(X, y, classes, True)

    def fit(self, X, y, classes=None, sample_weight=None):
        """Reset, then one online pass."""
        self._refuse_weights(sample_weight)
        with Snapshot(self, copy_arrays=False):     # (the reset replaces every state array)
            self._reset()
            return self.partial_fit(X, y, classes=classes)

    def _learn(self, X, y, classes, record, awake=None):
        self._validate_params()
        self._check_classes(classes)
        with Snapshot(self):      # a call that raises leaves the learner as it was
            first = getattr(self, "classes_", None) is None
            A = self._categorical(X, first)
            if first:
                if y is None:
                    raise TypeError(f"{self._owner}: y must be a 1-D array-like of labels, "
                                    "got None")
                self.classes_ = advice_classes(self._owner, exact_labels(self._owner, y),
                                                    classes)
                if classes is not None:
                    self._classes_given = classes_given(classes)
                self.n_attributes_ = A.shape[1]
                self.n_features_in_ = A.shape[1]
                self._init_state(0)
            yy = self._encode_y_multi(y, A.shape[0])
            C, u = self._column_codes(A, True)
            self._check_room(A.shape[0], u)
            # a block of rows at a time: memory O(block x pairs), the ids of a block created
            # (in stream order) just before its rounds run
            out = []
            for a, b in self._blocks(A):
                ids = self._lookup(self._round_keys(C[a:b]), True)
                npairs = ids.shape[1]
                indptr = np.arange(0, (b - a + 1) * npairs, npairs, dtype=np.int64)
                out.append(self._run(indptr, np.ascontiguousarray(ids.ravel()), None, yy[a:b],
                                     record, self._hist_state()))
            if not record:
                return None
            return tuple(np.concatenate(parts) for parts in zip(*out))

    def _blocks(self, A):
        step = max(1, self._BLOCK_ENTRIES // (A.shape[1] * (A.shape[1] - 1) // 2))
        return [(a, min(a + step, A.shape[0])) for a in range(0, A.shape[0], step)]

    def _predictions(self, X, awake=None):
        self._check_fitted("predict")
        A = self._categorical(X, False)
        C = self._column_codes(A, False)[0]
        out = []
        for a, b in self._blocks(A):
            ids = self._lookup(self._round_keys(C[a:b]), False)
            known = ids >= 0
            indptr = np.zeros(b - a + 1, dtype=np.int64)
            np.cumsum(known.sum(axis=1), out=indptr[1:])
            out.append(self._predict_rounds(indptr, np.ascontiguousarray(ids[known]), None,
                                            self._hist_state()))
        return tuple(np.concatenate(parts) for parts in zip(*out))

    def predict(self, X):
        """The prediction for each row from the current state (no state change)."""
        pred = self._predictions(X)[0]
        return self.classes_[pred]

    def predict_covered(self, X):
        """(predictions, covered) for each row from the current state."""
        pred, cov = self._predictions(X)
        return self.classes_[pred], cov

    def score(self, X, y):
        """Accuracy of predict(X) on y (y checked like ``partial_fit`` checks it)."""
        self._check_fitted("score")
        return accuracy(self, self.predict(X), y)


_CODE_MASK = (1 << 21) - 1
# A specialist's key is (pair of attributes << 42) | (code a << 21) | code b: the pairs are
# numbered in 21 bits, C(2048, 2) < 2**21 <= C(2049, 2).
_MAX_ATTRIBUTES = 2048


@functools.lru_cache(maxsize=2)
def _pair_index(d):
    """The pairs of attributes (a, b), a < b, in lexicographic order (pair p is (ia[p], ib[p]),
    the order of the rounds' voters), as two read-only int32 arrays."""
    ia, ib = np.triu_indices(d, 1)
    ia, ib = ia.astype(np.int32), ib.astype(np.int32)
    ia.flags.writeable = ib.flags.writeable = False
    return ia, ib


def _sum_min_products(u, m):
    """Σ_{a<b} min(u_a u_b, m) for positive integers u (each below 2**21) in O(d log d): with
    u sorted, the b > a with u_a u_b <= m come first; each term is below 2**42, so no sum of
    at most C(2048, 2) of them overflows an int64."""
    v = np.sort(u.astype(np.int64))
    d = v.shape[0]
    cs = np.zeros(d + 1, dtype=np.int64)
    np.cumsum(v, out=cs[1:])
    i = np.arange(d)
    k = np.maximum(np.searchsorted(v, np.int64(m) // v, side="right"), i + 1)
    return int((v * (cs[k] - cs[i + 1]) + np.int64(m) * (d - k)).sum())


def _too_many(owner, total, limit):
    return (f"{owner}: X could bring the number of specialists to {total} (those held and the "
            f"pairs of values X may add, counted before creating any), more than the parameter "
            f"max_specialists={limit}; raise max_specialists or pass fewer rows or attributes")
