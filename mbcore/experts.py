"""Experts: Weighted Majority and randomized Weighted Majority (ALGORITHMS.md section 3), each
with its pure-Python twin of the same name in ``mbref.experts``.

The advice of n experts comes as a matrix P (one row per round, one column per expert, each
entry one of the two labels), or from a pool of online learners (``experts=[...]``) that
predict every round and learn every label.  Numerics: see ``mbref.experts`` (log2 weights, exact
votes for power-of-two beta, a cache with a power-of-two offset renormalised by a fixed rule).
"""

import math
import numbers

import numpy as np

from ._kernels import experts as _k
from ._validation import encode_y, infer_classes
from .base import OnlineLearner
from .multiplicative import _finite, _pow2_exponent

__all__ = ["WeightedMajority", "RandomizedWeightedMajority"]


_ADVICE_DTYPES = {np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.int32, np.int64,
                                         np.float32, np.float64)}


class _Pool(OnlineLearner):
    """Shared machinery: parameters, advice, state, the protocol."""

    _randomized = False

    def _validate_params(self):
        o = self._owner
        b = self.beta
        if not (_finite(b) and 0.0 < b < 1.0):
            raise ValueError(f"{o}: parameter beta must be a real in (0, 1), got {b!r}")
        if self.experts is not None and (not isinstance(self.experts, (list, tuple))
                                         or len(self.experts) == 0):
            raise ValueError(f"{o}: parameter experts must be a non-empty list of learners or "
                             f"None, got {self.experts!r}")

    # -- state ------------------------------------------------------------------------------
    def _init_state(self, n):
        b = float(self.beta)
        k = _pow2_exponent(b)
        self._lb = float(k) if k is not None else math.log2(b)
        self._exact_mode = k is not None
        self._l = np.zeros(n)
        self._m = np.zeros(n, dtype=np.int64)
        self._c = np.ones(n)
        self._aux = np.zeros(1)   # L: the offset of the weight cache
        self._rng = np.array([int(getattr(self, "random_state", 0) or 0) & ((1 << 64) - 1)],
                             dtype=np.uint64)
        self._counts = np.zeros(3, dtype=np.int64)
        self.n_experts_ = n

    @property
    def expert_mistakes_(self):
        """How many mistakes each expert has made."""
        self._check_fitted("expert_mistakes_")
        return self._m.copy()

    @property
    def log2_weights_(self):
        """log2 of each expert's weight (exact integers for power-of-two beta)."""
        self._check_fitted("log2_weights_")
        return self._l.copy()

    @property
    def weights_(self):
        """Each expert's weight relative to the best one (max = 1.0)."""
        self._check_fitted("weights_")
        out = np.empty_like(self._l)
        _k.terms(self._l - self._l.max(), out)   # 2**x exactly as the twin computes it
        return out

    # -- advice -----------------------------------------------------------------------------
    def _advice_matrix(self, P, n):
        o = self._owner
        if P is None or isinstance(P, (str, bytes)):
            raise TypeError(f"{o}: the experts' predictions must be a 2-D array-like (rounds x "
                            f"experts), got {type(P).__name__}")
        A = np.asarray(P)
        if A.ndim != 2:
            raise ValueError(f"{o}: the experts' predictions must be 2-D (rounds x experts), "
                             f"got ndim={A.ndim}")
        if A.shape[0] == 0:
            raise ValueError(f"{o}: no rounds given (0 rows)")
        if A.shape[1] == 0:
            raise ValueError(f"{o}: no experts (0 columns)")
        if n is not None and A.shape[1] != n:
            raise ValueError(f"{o}: {A.shape[1]} expert predictions per round, but the pool has "
                             f"{n} experts")
        return A

    def _encode_advice(self, A):
        neg, pos = self.classes_[0], self.classes_[1]
        if A.dtype in _ADVICE_DTYPES and A.dtype.kind in "iuf":
            try:
                n_, p_ = A.dtype.type(neg), A.dtype.type(pos)
            except (TypeError, ValueError, OverflowError):
                n_ = p_ = None
            if n_ is not None and n_ == neg and p_ == pos:
                A = np.ascontiguousarray(A)
                out = np.empty(A.shape, dtype=np.uint8)
                bad = _k.encode_advice(A, n_, p_, out)
                if bad < 0:
                    return out
        is_pos = A == pos
        ok = is_pos | (A == neg)
        if not np.all(ok):
            t, i = np.argwhere(~np.asarray(ok))[0]
            v = A[t, i]
            v = v.item() if hasattr(v, "item") else v
            raise ValueError(f"{self._owner}: an expert predicted {v!r} in round {t}, outside "
                             f"the labels {[neg.item(), pos.item()]!r}")
        return np.ascontiguousarray(is_pos, dtype=np.uint8)

    # -- the protocol -------------------------------------------------------------------------
    def _kernel(self, adv, yy01, pred, update, share=None, rng=None):
        _k.wm_pass(adv, yy01, self._l, self._m, self._c, self._aux,
                   self._rng if rng is None else rng, self._counts, self._lb, float(self.beta),
                   self._exact_mode,
                   self._randomized, pred, update, share)

    def _learn(self, P, y, classes, record):
        self._validate_params()
        first = getattr(self, "classes_", None) is None
        if not first and classes is not None:
            cl = infer_classes(self._owner, (), classes)
            if cl.tolist() != self.classes_.tolist():
                raise ValueError(f"{self._owner}: classes={cl.tolist()!r} differs from the "
                                 f"fitted classes {self.classes_.tolist()!r}")
        if self.experts is not None:
            return self._learn_pool_all_or_nothing(P, y, classes, first, record)
        try:
            A = self._advice_matrix(P, None if first else self.n_experts_)
            if first:
                if y is None:
                    raise TypeError(f"{self._owner}: y must be a 1-D array-like of labels, got "
                                    "None")
                cl = infer_classes(self._owner, None if classes is not None else
                                   np.concatenate([A.ravel(), np.asarray(y).ravel()]), classes)
                self.classes_ = cl
                self.n_features_in_ = A.shape[1]
                self._init_state(A.shape[1])
            yy = encode_y(self._owner, y, A.shape[0], self.classes_)
            adv = self._encode_advice(A)
        except BaseException:
            if first:
                self._reset()
            raise
        y01 = (yy > 0).astype(np.int8)
        pred = np.empty(A.shape[0], dtype=np.int8)
        self._kernel(adv, y01, pred, True)
        if not record:
            return None
        upd = (adv != y01[:, None].astype(np.uint8)).any(axis=1).astype(np.uint8)
        return (2 * pred - 1).astype(np.int8), upd, yy

    def _learn_pool_all_or_nothing(self, X, y, classes, first, record):
        import copy
        state = None if first else copy.deepcopy(
            {k: v for k, v in self.__dict__.items() if k not in self._get_param_names()})
        experts = copy.deepcopy(self.experts)
        try:
            return self._learn_pool(X, y, classes, first, record)
        except BaseException:
            for e, old in zip(self.experts, experts):  # the pool's learners too
                e.__dict__.clear()
                e.__dict__.update(old.__dict__)
            if first:
                self._reset()
            else:
                self.__dict__.update(state)
            raise

    def _learn_pool(self, X, y, classes, first, record):
        A = np.asarray(X)
        if A.ndim != 2:
            raise ValueError(f"{self._owner}: X must be 2-D (n_samples, n_features), got "
                             f"ndim={A.ndim}")
        rows = list(A)
        ys = np.asarray(y)
        if len(rows) != ys.shape[0]:
            raise ValueError(f"{self._owner}: X has {len(rows)} rows but y has {ys.shape[0]} "
                             "labels")
        if first:
            self.classes_ = infer_classes(self._owner, ys, classes)
            self.n_features_in_ = len(self.experts)
            self._init_state(len(self.experts))
        yy = encode_y(self._owner, ys, ys.shape[0], self.classes_)
        neg = self.classes_[0]
        preds, upds = np.empty(len(rows), dtype=np.int8), np.empty(len(rows), dtype=np.uint8)
        for t, x in enumerate(rows):
            advice = np.array([[e.predict([x])[0] if getattr(e, "classes_", None) is not None
                                else neg for e in self.experts]])
            adv = self._encode_advice(advice)
            y01 = np.array([1 if yy[t] > 0 else 0], dtype=np.int8)
            p = np.empty(1, dtype=np.int8)
            self._kernel(adv, y01, p, True)
            preds[t] = 2 * p[0] - 1
            upds[t] = bool((adv[0] != y01[0]).any())
            for e in self.experts:
                e.partial_fit([x], [ys[t]], classes=list(self.classes_))
        return (preds, upds, yy) if record else None

    def partial_fit(self, P, y, classes=None):
        """One round per row: the pool predicts, then every wrong expert is penalised.

        Parameters
        ----------
        P : array-like of shape (n_rounds, n_experts)
            The experts' predictions (each one of the two labels); with ``experts`` set, the
            instances given to the expert learners instead.
        y : array-like of shape (n_rounds,)
        classes : two labels, optional

        Returns
        -------
        self
        """
        self._learn(P, y, classes, False)
        return self

    def _online(self, P, y, classes=None):
        return self._learn(P, y, classes, True)

    def fit(self, P, y, classes=None):
        """Reset, then one online pass (experts have no epochs)."""
        self._reset()
        return self.partial_fit(P, y, classes)

    def _advice_for(self, P):
        if self.experts is not None:
            neg = self.classes_[0]
            A = np.array([[e.predict([x])[0] if getattr(e, "classes_", None) is not None
                           else neg for e in self.experts] for x in P])
        else:
            A = self._advice_matrix(P, self.n_experts_)
        return self._encode_advice(A)

    def predict(self, P):
        """The pool's prediction for each row of advice (no state change; randomized WM draws
        from a copy of its generator)."""
        self._check_fitted("predict")
        adv = self._advice_for(P)
        pred = np.empty(adv.shape[0], dtype=np.int8)
        self._kernel(adv, None, pred, False, rng=self._rng.copy())
        return self._labels(pred > 0)

    def decision_function(self, P):
        """q1 / (q0 + q1): the share of the weight on the positive label, per row."""
        self._check_fitted("decision_function")
        adv = self._advice_for(P)
        out = np.empty(adv.shape[0])
        self._kernel(adv, None, None, False, share=out, rng=self._rng.copy())
        return out


class WeightedMajority(_Pool):
    __doc__ = """Littlestone & Warmuth's Weighted Majority over a pool of experts.

    Update rule (Angluin lecture 20): every expert starts with weight 1; q1 (q0) is the total
    weight of the experts predicting the positive (negative) label; predict positive iff
    q1 ≥ q0.  After the label, every expert that was wrong is multiplied by β (= ½), whether
    or not the pool erred.

    Mistake bound (Angluin lecture 20): M ≤ (m_i log₂(1/β) + log₂ n) / log₂(2/(1+β)) for every
    expert i with m_i mistakes; β = ½ gives M ≤ 2.41 (m_i + log₂ n).

    Parameters
    ----------
    beta : float in (0, 1), default=0.5
    experts : list of mbcore learners or None, default=None
        A pool of online learners that predict each round and learn every label (a Python loop
        per round); None means the advice is given as a matrix.

    Attributes
    ----------
    expert_mistakes_ : ndarray of shape (n_experts,)
    log2_weights_ : ndarray of shape (n_experts,)
        The exact state (integers for power-of-two beta).
    weights_ : ndarray, the weights relative to the best expert.
    mistakes_, updates_, n_seen_, classes_, n_experts_

    Notes
    -----
    Numerics: the weights are kept as logarithms, so none ever underflows (a plain β^m weight is
    0.0 after about 1,075 mistakes, and a NumPy WM then predicts garbage).  For power-of-two β
    the prediction is exactly the notes' q1 ≥ q0, decided by a float64 sum with an error bound
    and, near a tie, by exact binary addition.  ``updates_`` counts the rounds in which some
    expert was wrong (the state changed).

    Examples
    --------
    >>> import numpy as np
    >>> from mbcore import WeightedMajority
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms(encoding="boolean")
    >>> # 112 experts: "edible iff feature j is on", and 112 more for "iff feature j is off"
    >>> P = np.where(np.hstack([X, 1 - X]) == 1, 1, -1)
    >>> wm = WeightedMajority().partial_fit(P, y)
    >>> best = int(wm.expert_mistakes_.min())
    >>> bound = (best * 1 + np.log2(P.shape[1])) / np.log2(2 / 1.5)
    >>> bool(wm.mistakes_ <= bound)
    True
    """

    def __init__(self, beta=0.5, experts=None):
        self.beta = beta
        self.experts = experts


class RandomizedWeightedMajority(_Pool):
    __doc__ = """Randomized Weighted Majority: predict by drawing from the experts' weights.

    Update rule (Angluin lecture 20 remark; Littlestone & Warmuth 1994): as Weighted Majority,
    but predict the positive label with probability q1 / (q0 + q1).  Seeded: the same
    ``random_state`` gives the same run (splitmix64, the same generator in the twin).

    Mistake bound: E[M] ≤ (m_i ln(1/β) + ln n) / (1 − β) for every expert i.

    Parameters
    ----------
    beta : float in (0, 1), default=0.5
    random_state : int >= 0, default=0
    experts : list of mbcore learners or None, default=None

    Attributes
    ----------
    expert_mistakes_, log2_weights_, weights_, mistakes_, updates_, n_seen_, classes_,
    n_experts_

    Examples
    --------
    >>> import numpy as np
    >>> from mbcore import RandomizedWeightedMajority
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms(encoding="boolean")
    >>> P = np.where(np.hstack([X, 1 - X]) == 1, 1, -1)
    >>> runs = [RandomizedWeightedMajority(random_state=s).partial_fit(P, y) for s in range(5)]
    >>> mean = np.mean([r.mistakes_ for r in runs])
    >>> m_best = min(int(r.expert_mistakes_.min()) for r in runs)
    >>> bool(mean <= (m_best * np.log(2) + np.log(P.shape[1])) / 0.5)
    True
    """

    _randomized = True

    def __init__(self, beta=0.5, random_state=0, experts=None):
        self.beta = beta
        self.random_state = random_state
        self.experts = experts

    def _validate_params(self):
        super()._validate_params()
        r = self.random_state
        if isinstance(r, (bool, np.bool_)) or not isinstance(r, numbers.Integral) or r < 0:
            raise ValueError(f"{self._owner}: parameter random_state must be an integer >= 0, "
                             f"got {r!r}")
