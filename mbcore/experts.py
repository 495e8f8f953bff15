"""Experts: Weighted Majority and randomized Weighted Majority, each
with its pure-Python twin of the same name in ``mbref.experts``.

The advice of n experts comes as a matrix P (one row per round, one column per expert, each
entry one of the two labels), or from a pool of online learners (``experts=[...]``) that
predict every round and learn every label.  Numerics: see ``mbref.experts`` (log2 weights, exact
votes for power-of-two beta, a cache with a power-of-two offset renormalised by a fixed rule).

The experts that may sleep, ``Specialists`` and ``PairSpecialists``, live in
:mod:`mbcore.specialists`; they are importable from here too, as they were (old pickles name
them here).
"""

import math
import re

import numpy as np

from ._advice import (advice_classes, advice_matrix, all_labels, check_no_nan,
                      encode_labels_multi)
from ._kernels import experts as _k
from ._validation import (check_2d, classes_given, encode_codes, encode_y, label_array, read_2d,
                          same_classes)
from .base import OnlineLearner, Snapshot, append_record
from . import _params as params
from ._numerics import pow2_exponent as _pow2_exponent
from ._state import BOOL, COMMON, F8, FLOAT, I8, INT, U8, arr, finite, need, nonneg, shape
from ._tags import tags

__all__ = ["WeightedMajority", "RandomizedWeightedMajority", "Specialists", "PairSpecialists"]


def _expert_error(owner, k, t, exc):
    """The error a pool's expert k raised on row t of X (given to it alone, as a one-row
    batch), re-raised as the pool's: naming the pool, the expert and the row of X, then the
    expert's own message."""
    msg = re.sub(r"\brow 0\b", f"row {t}", str(exc))  # its one-row batch is row t of X
    kind = ValueError if isinstance(exc, ValueError) else TypeError
    return kind(f"{owner}: expert {k} refused row {t} of X: {msg}")


_ADVICE_DTYPES = {np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.int32, np.int64,
                                         np.float32, np.float64)}


def _check_experts(owner, name, value):
    if value is not None and (not isinstance(value, (list, tuple)) or len(value) == 0):
        raise params.bad(owner, name, value, "a non-empty list of learners or None")
    return value


class _Pool(OnlineLearner):
    """Shared machinery: parameters, advice, state, the protocol."""

    # any number of labels; sample_weight refused (OnlineLearner._refuse_weights)
    _TAGS = tags(takes="advice", k_classes=True,
                 no_weights=("a round multiplies the wrong experts' weights by the fixed "
                             "factor beta, and the notes give no weighted form of the rule"))

    _randomized = False

    _PARAMETERS = {"beta": params.Real(0.0, 1.0, high_inclusive=False, what="a real in (0, 1)"),
                   "experts": params.Custom(_check_experts,
                                            "a non-empty list of learners or None",
                                            refused=([], (), "learners", 3)),
                   "record_updates": params.Flag()}
    # parameters and state added after 0.1.0 (older files load without a record)
    _NEW_PARAMS = frozenset(("record_updates",))
    _NEW_STATE = frozenset(("_rec_idx", "_rec_dir"))

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
        self._multi = len(self.classes_) > 2
        self._rec_idx = np.zeros(0, dtype=np.int64)
        self._rec_dir = np.zeros(0)

    # -- persistent state (mbcore._state; mbcore.persistence stores what _STATE names) -------
    _STATE = dict(COMMON, n_experts_=INT, _lb=FLOAT, _exact_mode=BOOL, _l=arr(F8, 1),
                  _m=arr(I8, 1), _c=arr(F8, 1), _aux=arr(F8, 1), _rng=arr(U8, 1), _multi=BOOL,
                  _rec_idx=arr(I8, 1), _rec_dir=arr(F8, 1))

    def _check_state(self, st):
        o, n = self._owner, st["n_experts_"]
        shape(self, "_counts", (3,))
        nonneg(self, "_counts")
        need(n == st["n_features_in_"] and n >= 1, f"{o}: n_experts_ != n_features_in_")
        if self.experts is not None:
            need(isinstance(self.experts, list) and len(self.experts) == n,
                 f"{o}: {n} experts in the state, another number in the parameter")
        for k in ("_l", "_m", "_c"):
            shape(self, k, (n,))
        shape(self, "_aux", (1,))
        shape(self, "_rng", (1,))
        finite(self, "_c", "_aux")
        need(not np.isnan(st["_l"]).any() and (st["_l"] < np.inf).all(),
             f"{o}: _l holds NaN or +inf")
        nonneg(self, "_m", "_c")
        need(st["_multi"] == (st["classes_"].shape[0] > 2), f"{o}: _multi does not match classes_")
        b = float(self.beta)
        k = _pow2_exponent(b)
        need(st["_lb"] == (float(k) if k is not None else math.log2(b)) and
             st["_exact_mode"] == (k is not None), f"{o}: the log of beta does not match")
        if "_rec_idx" not in st or "_rec_dir" not in st:      # a file without the record
            self._rec_idx, self._rec_dir = np.zeros(0, dtype=np.int64), np.zeros(0)
            return
        idx, lab = st["_rec_idx"], st["_rec_dir"]
        need(idx.shape == lab.shape and idx.size <= st["_counts"][2] and
             (idx.size == 0 or (idx.min() >= 0 and idx.max() < st["_counts"][0] and
                                (np.diff(idx) > 0).all())) and
             bool(np.isin(lab, np.arange(float(st["classes_"].shape[0]))).all()),
             f"{o}: the record of updates does not match the state")

    def _append_record(self, base, upd, yy):
        """The record (record_updates=True): per round in which an expert lost weight, the
        round's place in the stream and the true label's index in classes_ (as a float)."""
        t = np.flatnonzero(upd)
        if t.size:
            append_record(self, "_rec_idx", t.astype(np.int64) + base)
            append_record(self, "_rec_dir", np.asarray(yy)[t].astype(np.float64))

    @property
    def update_record_(self):
        """The record of updates (``record_updates=True``): ``(rounds, labels)``, per round in
        which some expert lost weight its place in the stream (int64) and the true label's index
        in ``classes_`` (float64)."""
        self._check_fitted("update_record_")
        return self._rec_idx.copy(), self._rec_dir.copy()


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

    # -- the explanation of a prediction (mbcore.explain) -------------------------------------
    def _explain(self, p, X_train=None):
        """The explanation of the pool's prediction on one round of advice ``p``: a dict (see
        ``mbcore.explain``).  ``X_train``: the advice matrix of the training rounds (with the
        record, the rounds in which each expert lost weight)."""
        self._check_fitted("explain")
        if not hasattr(p, "tocsr") and np.ndim(p) == 1:
            p = np.asarray(p)[None, :]                  # one round, as a (1, n) matrix
        adv = self._advice_for(p)
        if adv.shape[0] != 1:
            raise ValueError(f"{self._owner}: explain takes one round of advice, got "
                             f"{adv.shape[0]}")
        votes = adv[0].astype(np.int64)
        K = len(self.classes_)
        top = float(self._l.max())
        rel = self.weights_
        sums = np.array([math.fsum(rel[votes == v].tolist()) for v in range(K)])
        pred = self.predict(p)[0]
        lost = self._m.copy()
        out = {"kind": "experts", "label": pred, "votes": self.classes_[votes],
               "vote_index": votes, "log2_weights": self._l.copy(), "weights": rel,
               "log2_top": top, "sums": sums, "decision": self.decision_function(p)[0],
               "expert_mistakes": lost, "rounds_lost": None, "exact": None,
               "record": self._rec_idx.size > 0,
               "complete": self._rec_idx.size == int(self._counts[2])}
        # the weights from the counts: l_i is log2(beta) added m_i times (integers, exact, for a
        # power-of-two beta; else within the sum's rounding, gamma_{m-1} = (m-1)u/(1-(m-1)u)
        # relative to m_i |log2 beta|, u = 2**-53)
        m = lost.astype(np.float64)
        from_counts = m * self._lb
        gamma = np.maximum(m - 1, 0) * 2.0 ** -53
        gamma = gamma / (1 - gamma)
        out["log2_weights_from_counts"] = from_counts
        out["counts_bound"] = gamma * np.abs(from_counts)
        out["counts_exact"] = bool(np.array_equal(self._l, from_counts)) if self._exact_mode \
            else bool((np.abs(self._l - from_counts) <= out["counts_bound"]).all())
        if X_train is not None and not out["complete"]:
            raise ValueError(f"{self._owner}: parameter X_train was given, but the learner did "
                             "not record all its updates (construct it with record_updates=True "
                             "and fit it again)")
        if X_train is not None:
            if self.experts is not None:
                raise ValueError(f"{self._owner}: X_train must be the experts' advice (a "
                                 "matrix of rounds x experts); a pool of learners (experts=...) "
                                 "keeps no advice to explain its rounds by")
            T = self._encode_advice(self._advice_matrix(X_train, self.n_experts_))
            n = T.shape[0]
            idx, lab = self._rec_idx, self._rec_dir.astype(np.int64)
            if idx.size and idx.max() >= n:
                raise ValueError(f"{self._owner}: the record names round {int(idx.max())}, but "
                                 f"X_train has {n} rounds (give every round the learner was "
                                 "trained on, in order)")
            wrong = T[idx].astype(np.int64) != lab[:, None]     # rounds x experts
            out["rounds_lost"] = [idx[wrong[:, i]] for i in range(self.n_experts_)]
            l = np.zeros(self.n_experts_)
            for r in range(wrong.shape[0]):                  # the kernel's additions, replayed
                l[wrong[r]] = l[wrong[r]] + self._lb
            out["exact"] = bool(np.array_equal(wrong.sum(axis=0), lost) and
                                np.array_equal(l, self._l))
            # a round's part: what it added to log2 of the weights of the experts that voted
            # for this prediction, less what it added to the others' (log2(beta) per loss)
            sup = votes == int(np.flatnonzero(self.classes_ == pred)[0])
            keep = wrong.any(axis=1)
            out["example_rows"] = idx[keep]
            out["example_parts"] = self._lb * (wrong[keep][:, sup].sum(axis=1) -
                                               wrong[keep][:, ~sup].sum(axis=1)).astype(float)
        else:
            out["example_rows"] = out["example_parts"] = None
        return out

    def _explanation(self, p, X_train):
        from ._explain_log import experts_explanation
        return experts_explanation(self, p, X_train)

    # -- advice -----------------------------------------------------------------------------
    def _advice_matrix(self, P, n):
        return advice_matrix(self._owner, P, n, "expert")

    def _encode_advice(self, A):
        if self._multi:
            codes = encode_codes(self._owner, A, self.classes_,
                                 lambda b: f"the prediction of expert {b[1]} in round {b[0]}",
                                 np.uint8 if len(self.classes_) <= 255 else np.int32)
            return np.ascontiguousarray(codes)
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

    def _encode_y_multi(self, y, n):
        return encode_labels_multi(self._owner, y, n, self.classes_)

    def _label_codes(self, y, n):
        if self._multi:
            return self._encode_y_multi(y, n)
        return encode_y(self._owner, y, n, self.classes_)

    def _record_labels(self, pred):
        if self._multi:
            return self.classes_[pred]
        return self._labels(pred > 0)

    def _kernel_multi(self, adv, yy, pred, update, share=None, rng=None, wrong=None):
        _k.wm_multi_pass(adv, yy, self._l, self._m, self._c, self._aux,
                         self._rng if rng is None else rng, self._counts, self._lb,
                         float(self.beta), self._exact_mode, self._randomized,
                         len(self.classes_), pred, update, share, wrong)

    # -- the protocol -------------------------------------------------------------------------
    def _kernel(self, adv, yy01, pred, update, share=None, rng=None, wrong=None):
        _k.wm_pass(adv, yy01, self._l, self._m, self._c, self._aux,
                   self._rng if rng is None else rng, self._counts, self._lb, float(self.beta),
                   self._exact_mode,
                   self._randomized, pred, update, share, wrong)

    def _learn(self, P, y, classes, record):
        self._validate_params()
        with Snapshot(self):      # a call that raises leaves the learner as it was
            return self._learn_checked(P, y, classes, record)

    def _learn_checked(self, P, y, classes, record):
        first = getattr(self, "classes_", None) is None
        if not first and classes is not None and not same_classes(self.__dict__, classes):
            cl = advice_classes(self._owner, (), classes)
            if cl.tolist() != self.classes_.tolist():
                raise ValueError(f"{self._owner}: classes={cl.tolist()!r} differs from the "
                                 f"fitted classes {self.classes_.tolist()!r}")
            self._classes_given = classes_given(classes)      # (known from now on)
        if self.experts is not None:
            return self._learn_pool_all_or_nothing(P, y, classes, first, record)
        A = self._advice_matrix(P, None if first else self.n_experts_)
        if first:
            if y is None:
                raise TypeError(f"{self._owner}: y must be a 1-D array-like of labels, got "
                                "None")
            if classes is None:
                check_no_nan(self._owner, A, "expert")
            cl = advice_classes(self._owner, None if classes is not None else
                                     all_labels(self._owner, A, y), classes)
            self.classes_ = cl
            if classes is not None:
                self._classes_given = classes_given(classes)
            self.n_features_in_ = A.shape[1]
            self._init_state(A.shape[1])
        if self._multi:
            yy = self._encode_y_multi(y, A.shape[0])
            adv = self._encode_advice(A)
        else:
            yy = encode_y(self._owner, y, A.shape[0], self.classes_)
            adv = self._encode_advice(A)
        base = int(self._counts[0])
        # (the kernel flags the rounds in which some expert was wrong: the updates)
        upd = np.empty(A.shape[0], dtype=np.uint8) if record or self.record_updates else None
        if self._multi:
            pred = np.empty(A.shape[0], dtype=np.int32)
            self._kernel_multi(adv, yy, pred, True, wrong=upd)
            if self.record_updates:
                self._append_record(base, upd, yy)
            if not record:
                return None
            return pred, upd.view(np.bool_), yy
        y01 = (yy > 0).astype(np.int8)
        pred = np.empty(A.shape[0], dtype=np.int8)
        self._kernel(adv, y01, pred, True, wrong=upd)
        if self.record_updates:
            self._append_record(base, upd, y01)
        if not record:
            return None
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

    def _pool_rows(self, X):
        """The instances given to a pool of learners, as a list of rows (each expert checks
        its own input; here only the shape)."""
        A = read_2d(self._owner, X)
        check_2d(self._owner, A)
        return list(A)

    def _pool_advice_row(self, t, x):
        """The pool's learners' predictions on row t of X (x): an unfitted learner advises the
        first class.  A learner's error names the pool, the learner and the row of X."""
        neg = self.classes_[0]
        out = []
        for k, e in enumerate(self.experts):
            if getattr(e, "classes_", None) is None:
                out.append(neg)
                continue
            try:
                out.append(e.predict([x])[0])
            except (ValueError, TypeError) as exc:
                raise _expert_error(self._owner, k, t, exc) from exc
        return out

    def _learn_pool(self, X, y, classes, first, record):
        rows = self._pool_rows(X)
        if y is None or isinstance(y, (str, bytes)):
            raise TypeError(f"{self._owner}: y must be a 1-D array-like of labels, got "
                            f"{type(y).__name__}")
        ys = label_array(self._owner, y)
        if ys.ndim != 1:
            raise ValueError(f"{self._owner}: y must be 1-D, got ndim={ys.ndim}")
        if len(rows) != ys.shape[0]:
            raise ValueError(f"{self._owner}: X has {len(rows)} rows but y has {ys.shape[0]} "
                             "labels")
        if first:   # (y as given: a list mixing numbers and strings is refused)
            self.classes_ = advice_classes(self._owner, y, classes)
            if classes is not None:
                self._classes_given = classes_given(classes)
            self.n_features_in_ = len(self.experts)
            self._init_state(len(self.experts))
        if self._multi:
            yy = self._encode_y_multi(ys, ys.shape[0])
        else:
            yy = encode_y(self._owner, ys, ys.shape[0], self.classes_)
        preds = np.empty(len(rows), dtype=np.int32 if self._multi else np.int8)
        upds = np.empty(len(rows), dtype=np.uint8)
        base = int(self._counts[0])
        for t, x in enumerate(rows):
            adv = self._encode_advice(np.array([self._pool_advice_row(t, x)]))
            if self._multi:
                y01 = yy[t:t + 1]
                p = np.empty(1, dtype=np.int32)
                self._kernel_multi(adv, y01, p, True)
                preds[t] = p[0]
            else:
                y01 = np.array([1 if yy[t] > 0 else 0], dtype=np.int8)
                p = np.empty(1, dtype=np.int8)
                self._kernel(adv, y01, p, True)
                preds[t] = 2 * p[0] - 1
            upds[t] = bool((adv[0] != y01[0]).any())
            for k, e in enumerate(self.experts):
                try:
                    e.partial_fit([x], [ys[t]], classes=list(self.classes_))
                except (ValueError, TypeError) as exc:
                    raise _expert_error(self._owner, k, t, exc) from exc
        if self.record_updates:
            self._append_record(base, upds, yy if self._multi else (yy > 0).astype(np.int8))
        return (preds, upds, yy) if record else None

    def partial_fit(self, P, y, classes=None, sample_weight=None):
        """One round per row: the pool predicts, then every wrong expert is penalised.
        ``sample_weight``: None only (the rule has no weighted form; anything else raises
        TypeError).

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
        self._refuse_weights(sample_weight)
        self._learn(P, y, classes, False)
        return self

    def _online(self, P, y, classes=None, sample_weight=None):
        self._refuse_weights(sample_weight)
        return self._learn(P, y, classes, True)

    def fit(self, P, y, classes=None, sample_weight=None):
        """Reset, then one online pass (experts have no epochs)."""
        self._refuse_weights(sample_weight)
        with Snapshot(self, copy_arrays=False):     # (the reset replaces every state array)
            self._reset()
            return self.partial_fit(P, y, classes)

    def _advice_for(self, P):
        if self.experts is not None:
            A = np.array([self._pool_advice_row(t, x) for t, x in enumerate(self._pool_rows(P))])
        else:
            A = self._advice_matrix(P, self.n_experts_)
        return self._encode_advice(A)

    def predict(self, P):
        """The pool's prediction for each row of advice (no state change; randomized WM draws
        from a copy of its generator)."""
        self._check_fitted("predict")
        adv = self._advice_for(P)
        if self._multi:
            pred = np.empty(adv.shape[0], dtype=np.int32)
            self._kernel_multi(adv, None, pred, False, rng=self._rng.copy())
            return self.classes_[pred]
        pred = np.empty(adv.shape[0], dtype=np.int8)
        self._kernel(adv, None, pred, False, rng=self._rng.copy())
        return self._labels(pred > 0)

    def decision_function(self, P):
        """Per row: with two labels, Weighted Majority's (q1 - q0) / (q0 + q1) as
        2 q1/(q0 + q1) - 1, in [-1, 1], > 0 exactly where it predicts ``classes_[1]`` and < 0
        where it predicts ``classes_[0]`` (0: the tie q1 = q0, predicted ``classes_[1]``);
        its sign is the exact vote's (where rounding would give the wrong sign: 0.0 or
        -2**-1074), shape (n_rounds,).  Randomized Weighted Majority: the positive label's
        share q1 / (q0 + q1), the probability that it predicts ``classes_[1]``.  More labels:
        the shares q_v / T, shape (n_rounds, n_classes)."""
        self._check_fitted("decision_function")
        adv = self._advice_for(P)
        if self._multi:
            out = np.empty((adv.shape[0], len(self.classes_)))
            self._kernel_multi(adv, None, None, False, share=out, rng=self._rng.copy())
            return out
        out = np.empty(adv.shape[0])
        self._kernel(adv, None, None, False, share=out, rng=self._rng.copy())
        if self._randomized:
            return out
        pred = np.empty(adv.shape[0], dtype=np.int8)
        self._kernel(adv, None, pred, False, rng=self._rng.copy())
        out = 2.0 * out - 1.0
        out[(pred > 0) & ~(out >= 0.0)] = 0.0
        out[(pred < 0) & ~(out < 0.0)] = -5e-324
        return out

    # (decision_function 0: the tie q1 = q0, predicted classes_[1]; for tests/_cases.py)
    _TIE_AT_ZERO = "positive"


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
    record_updates : bool, default=False
        Keep the record of updates (``update_record_``): per round in which some expert lost
        weight, the round's place in the stream and the true label's index in ``classes_``
        (one index and one float), so that ``mbcore.explain`` can name the rounds in which
        each expert lost weight.

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

    Why the pool predicts what it does in a round (``mbcore.explain``): each expert's weight
    and vote, and with the record the rounds in which each expert lost weight, checked against
    ``expert_mistakes_`` (weight = beta ** rounds lost, exactly for beta = 1/2):

    >>> import mbcore
    >>> rec = WeightedMajority(record_updates=True).partial_fit(P, y)
    >>> e = mbcore.explain(rec, P[0], X_train=P)
    >>> lost = [len(r) for r in e.extra["rounds_lost"]]
    >>> e.check(), lost == rec.expert_mistakes_.tolist(), e.extra["counts_exact"]
    (True, True, True)
    """

    _TAGS = tags(bound="weighted majority", multi_bound="weighted majority")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"beta": 0.3}]

    def __init__(self, beta=0.5, experts=None, record_updates=False):
        self.beta = beta
        self.experts = experts
        self.record_updates = record_updates


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
    record_updates : bool, default=False
        Keep the record of updates (``update_record_``): per round in which some expert lost
        weight, the round's place in the stream and the true label's index in ``classes_``
        (one index and one float), so that ``mbcore.explain`` can name the rounds in which
        each expert lost weight.

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

    _TAGS = tags(bound="randomized weighted majority",
                 multi_bound="randomized weighted majority")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"random_state": 3}]

    _TIE_AT_ZERO = "random"     # (its prediction is a draw, not a function of its score)

    def _proba_one_row(self, view):
        # predict_proba_one: the probability of each class of the draw (decision_function's
        # share q1 / (q0 + q1), or the K shares)
        s = self.decision_function(view)
        return s[0] if self._multi else [1.0 - float(s[0]), float(s[0])]

    def __init__(self, beta=0.5, random_state=0, experts=None, record_updates=False):
        self.beta = beta
        self.random_state = random_state
        self.experts = experts
        self.record_updates = record_updates

    _PARAMETERS = {"random_state": params.Integer(0)}


# Defined in mbcore.specialists; importable from here, as before the split (imported after the
# classes above, so that the registry meets this module's learners first).
from .specialists import PairSpecialists, Specialists  # noqa: E402
