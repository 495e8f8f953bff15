"""Experts: Weighted Majority and randomized Weighted Majority, each
with its pure-Python twin of the same name in ``mbref.experts``.

The advice of n experts comes as a matrix P (one row per round, one column per expert, each
entry one of the two labels), or from a pool of online learners (``experts=[...]``) that
predict every round and learn every label.  Numerics: see ``mbref.experts`` (log2 weights, exact
votes for power-of-two beta, a cache with a power-of-two offset renormalised by a fixed rule).
"""

import functools
import math
import numbers
import re

import numpy as np

from ._kernels import experts as _k
from ._validation import (encode_codes, encode_y, infer_classes_multi, is_sparse, label_array,
                          sparse_to_dense)
from .base import OnlineLearner, Snapshot, accuracy
from . import _params as params
from ._numerics import pow2_exponent as _pow2_exponent
from ._state import (BOOL, COMMON, F8, FLOAT, I4, I8, INT, U1, U8, StateError, arr, finite,
                     need, nonneg, py, shape, values_list)

__all__ = ["WeightedMajority", "RandomizedWeightedMajority", "Specialists", "PairSpecialists"]


def _advice(owner, P, n, who, holder):
    """The advice matrix (rounds x experts) after the shape checks; ``who`` names a column
    ("expert", "specialist"), ``holder`` what holds n of them."""
    if P is None or isinstance(P, (str, bytes)):
        raise TypeError(f"{owner}: the {who}s' predictions must be a 2-D array-like (rounds x "
                        f"{who}s), got {type(P).__name__}")
    if is_sparse(P):
        P = sparse_to_dense(owner, P)
    A = _as_matrix(owner, P)
    if A.ndim != 2:
        raise ValueError(f"{owner}: the {who}s' predictions must be 2-D (rounds x {who}s), got "
                         f"ndim={A.ndim}")
    if A.shape[0] == 0:
        raise ValueError(f"{owner}: no rounds given (0 rows)")
    if A.shape[1] == 0:
        raise ValueError(f"{owner}: no {who}s (0 columns)")
    if n is not None and A.shape[1] != n:
        raise ValueError(f"{owner}: {A.shape[1]} {who} predictions per round, but {holder} has "
                         f"{n} {who}s")
    return A


def _object_rows(owner, X):
    """A list of rows as a 2-D object array, each value kept as it is (np.asarray would turn
    1 and "1" into the same string)."""
    try:
        raw = list(X)
    except TypeError:
        raise TypeError(f"{owner}: X must be a 2-D array-like (rows of values), got "
                        f"{type(X).__name__}") from None
    rows = []
    for r in raw:
        if isinstance(r, (str, bytes)) or not hasattr(r, "__len__"):
            raise ValueError(f"{owner}: X must be 2-D (n_samples, n_attributes), got a row that "
                             "is not a sequence")
        rows.append(list(r))
    d = len(rows[0]) if rows else 0
    for r in rows:
        if len(r) != d:
            raise ValueError(f"{owner}: X has rows of different lengths ({len(r)} and {d})")
    A = np.empty((len(rows), d), dtype=object)
    for i, r in enumerate(rows):
        for j, v in enumerate(r):
            A[i, j] = v.item() if isinstance(v, np.generic) else v
    return A


def _as_matrix(owner, P):
    """A 2-D array-like of labels as an array: lists of numbers as NumPy stores them, lists
    holding strings or other objects value by value (np.asarray would make 1 and "1" equal)."""
    if isinstance(P, np.ndarray):
        return P
    try:
        A = np.asarray(P)
    except ValueError:
        A = None
    if A is not None and A.dtype.kind not in "USO":
        return A
    return _object_rows(owner, P)


def _one_kind(values):
    """Python values as a 1-D array without silent coercion: labels of one kind as NumPy would
    store them, mixed kinds (1 and "1") as objects."""
    values = [v.item() if isinstance(v, np.generic) else v for v in values]
    kinds = {str if isinstance(v, str) else bytes if isinstance(v, bytes) else
             bool if isinstance(v, bool) else numbers.Real if isinstance(v, numbers.Real)
             else object for v in values}
    if len(kinds) <= 1 and object not in kinds:
        return np.array(values)
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _label_array(owner, y):
    """y as a 1-D array without silent coercion (see _one_kind); a TypeError naming the
    learner when y is no sequence at all."""
    if isinstance(y, np.ndarray):
        return y
    if y is None or isinstance(y, (str, bytes)) or not hasattr(y, "__iter__"):
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got "
                        f"{type(y).__name__}")
    return _one_kind(y)


def _all_labels(owner, A, y):
    """Every label in the advice and in y, as one 1-D array (for inferring the classes)."""
    ya = _label_array(owner, y).ravel()
    if A.dtype == ya.dtype or (A.dtype.kind in "biuf" and ya.dtype.kind in "biuf"):
        return np.concatenate([A.ravel(), ya])
    return _one_kind(A.ravel().tolist() + ya.tolist())


def _is_01(v):
    """An awake flag: a bool, or a number equal to 0 or 1."""
    return isinstance(v, (bool, np.bool_, numbers.Real)) and not _is_nan(v) and v in (0, 1)


def _is_nan(v):
    return isinstance(v, (float, np.floating)) and v != v


def _check_no_nan(owner, A, who, awake=None):
    """ValueError naming the first NaN prediction (its column and round; only the awake ones
    when a mask is given): on a first call the labels are inferred from the advice, and NaN is
    no label."""
    if A.dtype.kind == "f":
        bad = np.isnan(A)
    elif A.dtype.kind == "O":
        bad = np.frompyfunc(_is_nan, 1, 1)(A).astype(bool) if A.size else np.zeros(A.shape, bool)
    else:
        return
    if awake is not None:
        bad &= awake
    if bad.any():
        t, i = (int(v) for v in np.argwhere(bad)[0])
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


_ADVICE_DTYPES = {np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.int32, np.int64,
                                         np.float32, np.float64)}


def _check_experts(owner, name, value):
    if value is not None and (not isinstance(value, (list, tuple)) or len(value) == 0):
        raise params.bad(owner, name, value, "a non-empty list of learners or None")
    return value


class _Pool(OnlineLearner):
    """Shared machinery: parameters, advice, state, the protocol."""

    _TAKES = "advice"
    _K_CLASSES = True       # any number of labels

    _randomized = False

    _PARAMETERS = {"beta": params.Real(0.0, 1.0, high_inclusive=False, what="a real in (0, 1)"),
                   "experts": params.Custom(_check_experts,
                                            "a non-empty list of learners or None",
                                            refused=([], (), "learners", 3))}

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

    # -- persistent state (mbcore._state; mbcore.persistence stores what _STATE names) -------
    _STATE = dict(COMMON, n_experts_=INT, _lb=FLOAT, _exact_mode=BOOL, _l=arr(F8, 1),
                  _m=arr(I8, 1), _c=arr(F8, 1), _aux=arr(F8, 1), _rng=arr(U8, 1), _multi=BOOL)

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
        return _advice(self._owner, P, n, "expert", "the pool")

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
        o = self._owner
        if y is None:
            raise TypeError(f"{o}: y must be a 1-D array-like of labels, got None")
        if isinstance(y, (str, bytes)):
            raise TypeError(f"{o}: y must be a 1-D array-like of labels, got a string")
        try:
            ya = np.asarray(y)
        except ValueError:
            raise ValueError(f"{o}: y must be 1-D (a sequence of labels)") from None
        if ya.ndim != 1:
            raise ValueError(f"{o}: y must be 1-D, got ndim={ya.ndim}")
        if ya.shape[0] != n:
            raise ValueError(f"{o}: {n} rounds but y has {ya.shape[0]} labels")
        if not isinstance(y, np.ndarray):
            ya = _label_array(o, y)
        return encode_codes(o, ya, self.classes_, lambda b: f"y[{b[0]}]")

    def _label_codes(self, y, n):
        if self._multi:
            return self._encode_y_multi(y, n)
        return encode_y(self._owner, y, n, self.classes_)

    def _record_labels(self, pred):
        if self._multi:
            return self.classes_[pred]
        return self._labels(pred > 0)

    def _kernel_multi(self, adv, yy, pred, update, share=None, rng=None):
        _k.wm_multi_pass(adv, yy, self._l, self._m, self._c, self._aux,
                         self._rng if rng is None else rng, self._counts, self._lb,
                         float(self.beta), self._exact_mode, self._randomized,
                         len(self.classes_), pred, update, share)

    # -- the protocol -------------------------------------------------------------------------
    def _kernel(self, adv, yy01, pred, update, share=None, rng=None):
        _k.wm_pass(adv, yy01, self._l, self._m, self._c, self._aux,
                   self._rng if rng is None else rng, self._counts, self._lb, float(self.beta),
                   self._exact_mode,
                   self._randomized, pred, update, share)

    def _learn(self, P, y, classes, record):
        self._validate_params()
        with Snapshot(self):      # a call that raises leaves the learner as it was
            return self._learn_checked(P, y, classes, record)

    def _learn_checked(self, P, y, classes, record):
        first = getattr(self, "classes_", None) is None
        if not first and classes is not None:
            cl = infer_classes_multi(self._owner, (), classes)
            if cl.tolist() != self.classes_.tolist():
                raise ValueError(f"{self._owner}: classes={cl.tolist()!r} differs from the "
                                 f"fitted classes {self.classes_.tolist()!r}")
        if self.experts is not None:
            return self._learn_pool_all_or_nothing(P, y, classes, first, record)
        A = self._advice_matrix(P, None if first else self.n_experts_)
        if first:
            if y is None:
                raise TypeError(f"{self._owner}: y must be a 1-D array-like of labels, got "
                                "None")
            if classes is None:
                _check_no_nan(self._owner, A, "expert")
            cl = infer_classes_multi(self._owner, None if classes is not None else
                                     _all_labels(self._owner, A, y), classes)
            self.classes_ = cl
            self.n_features_in_ = A.shape[1]
            self._init_state(A.shape[1])
        if self._multi:
            yy = self._encode_y_multi(y, A.shape[0])
            adv = self._encode_advice(A)
        else:
            yy = encode_y(self._owner, y, A.shape[0], self.classes_)
            adv = self._encode_advice(A)
        if self._multi:
            pred = np.empty(A.shape[0], dtype=np.int32)
            self._kernel_multi(adv, yy, pred, True)
            if not record:
                return None
            return pred, (adv != yy[:, None]).any(axis=1), yy
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

    def _pool_rows(self, X):
        """The instances given to a pool of learners, as a list of rows (each expert checks
        its own input; here only the shape)."""
        if X is None or isinstance(X, (str, bytes)):
            raise TypeError(f"{self._owner}: X must be a 2-D array-like (the instances for the "
                            f"pool's learners), got {type(X).__name__}")
        if is_sparse(X):
            X = sparse_to_dense(self._owner, X)
        try:
            A = np.asarray(X)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{self._owner}: X could not be read as a 2-D array ({exc})") \
                from None
        if A.ndim != 2:
            raise ValueError(f"{self._owner}: X must be 2-D (n_samples, n_features), got "
                             f"ndim={A.ndim}")
        if A.shape[0] == 0:
            raise ValueError(f"{self._owner}: X is empty (0 rows); at least one row is "
                             "required")
        if A.shape[1] == 0:
            raise ValueError(f"{self._owner}: X has 0 features (shape={A.shape}); the pool's "
                             "learners need at least one")
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
            self.classes_ = infer_classes_multi(self._owner, y, classes)
            self.n_features_in_ = len(self.experts)
            self._init_state(len(self.experts))
        if self._multi:
            yy = self._encode_y_multi(ys, ys.shape[0])
        else:
            yy = encode_y(self._owner, ys, ys.shape[0], self.classes_)
        preds = np.empty(len(rows), dtype=np.int32 if self._multi else np.int8)
        upds = np.empty(len(rows), dtype=np.uint8)
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

    _BOUND = "weighted majority"
    _MULTI_BOUND = "weighted majority"

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"beta": 0.3}]

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

    _BOUND = "randomized weighted majority"
    _MULTI_BOUND = "randomized weighted majority"

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{"random_state": 3}]

    def __init__(self, beta=0.5, random_state=0, experts=None):
        self.beta = beta
        self.random_state = random_state
        self.experts = experts

    _PARAMETERS = {"random_state": params.Integer(0)}


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

    _TAKES = "awake advice"
    _K_CLASSES = True

    _BOUND = "specialists"
    _MULTI_BOUND = "specialists"

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}]

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
        A = _advice(o, P, n, "specialist", "the learner")
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
        return _Pool._encode_y_multi(self, y, n)

    def _record_labels(self, pred):
        return self.classes_[pred]

    # -- the protocol -------------------------------------------------------------------------
    def partial_fit(self, P, y, classes=None, *, awake=None):
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
        _mask_as_classes(self._owner, classes)
        self._learn(P, y, classes, False, awake)
        return self

    def _online(self, P, y, classes=None, *, awake=None):
        return self._learn(P, y, classes, True, awake)

    def fit(self, P, y, classes=None, *, awake=None):
        """Reset, then one online pass (the arguments of ``partial_fit``)."""
        with Snapshot(self, copy_arrays=False):     # (the reset replaces every state array)
            self._reset()
            return self.partial_fit(P, y, classes, awake=awake)

    def _check_classes(self, classes):
        if classes is not None and getattr(self, "classes_", None) is not None:
            cl = infer_classes_multi(self._owner, (), classes)
            if cl.tolist() != self.classes_.tolist():
                raise ValueError(f"{self._owner}: classes={cl.tolist()!r} differs from the "
                                 f"fitted classes {self.classes_.tolist()!r}")

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
                    _check_no_nan(self._owner, A, "specialist", W)
                self.classes_ = infer_classes_multi(
                    self._owner, None if classes is not None else
                    _all_labels(self._owner, A[W][None, :], y),
                    classes)
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

    _TAKES = "categorical"

    _BOUND = None  # type: ignore[assignment]  # (specialists created as the data comes)
    _MULTI_BOUND = None  # type: ignore[assignment]

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
        if X is None or isinstance(X, (str, bytes)):
            raise TypeError(f"{o}: X must be a 2-D array-like of categorical values, got "
                            f"{type(X).__name__}")
        if is_sparse(X):
            # dense values (the implicit zeros are the category 0), the structure checked
            # before anything reads through it
            X = sparse_to_dense(o, X)
        elif hasattr(X, "to_numpy") and hasattr(X, "columns"):
            X = X.to_numpy()          # a DataFrame: its rows (iterating it gives the columns)
        A = X if isinstance(X, np.ndarray) else _object_rows(o, X)
        if A.ndim != 2:
            raise ValueError(f"{o}: X must be 2-D (n_samples, n_attributes), got "
                             f"ndim={A.ndim}")
        if A.shape[0] == 0:
            raise ValueError(f"{o}: X is empty (0 rows); at least one row is required")
        if A.shape[1] < 2:
            raise ValueError(f"{o}: X has {A.shape[1]} attributes; pairs need at least 2")
        if A.shape[1] > _MAX_ATTRIBUTES:
            raise ValueError(f"{o}: X has {A.shape[1]} attributes; at most {_MAX_ATTRIBUTES} "
                             "(the pairs of attributes are numbered in 21 bits)")
        if not first and A.shape[1] != self.n_attributes_:
            raise ValueError(f"{o}: X has rows of {A.shape[1]} attributes, expected "
                             f"{self.n_attributes_}")
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
    def partial_fit(self, X, y, classes=None):
        """One round per row: the awake pair specialists vote, the learner predicts and
        learns (weights on a mistake; the histories always)."""
        self._learn(X, y, classes, False)
        return self

    def _online(self, X, y, classes=None):
        return self._learn(X, y, classes, True)

    def fit(self, X, y, classes=None):
        """Reset, then one online pass."""
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
                self.classes_ = infer_classes_multi(self._owner, _label_array(self._owner, y),
                                                    classes)
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
