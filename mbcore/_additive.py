"""What the additive family's modules share (``mbcore.linear`` and ``mbcore.kernel``): the
parameter domains of the tie and the multi-class rules, ``class_weight`` and its file codec, the
weights of a pass's rows, and the error of a failed pass; and the base class of
``mbcore.linear``'s learners, ``_Linear`` (their state, the compiled passes, the small-input
paths, the growth of the width, mixing), importable from ``mbcore.linear`` as before."""

import math

import numpy as np

from ._kernels import linear as _k, multiclass as _kmc
from ._params import Choice, Custom, Flag, Integer
from ._validation import (CLASS_WEIGHT_DOMAIN, Batch, check_class_weight, check_sample_weight,
                          check_X, class_weights, csr_index_error, row_error)
from ._state import COMMON, F8, I8, INT, arr, finite, labels_and_counts, need, shape
from ._threads import N_JOBS, map_rows
from ._one import widen
from ._tags import tags
from .base import ManyClasses, OnlineLearner, Snapshot, append_record
from . import _registry

_TIES = ("negative", "positive")
_MULTI = ("multiclass", "ovr")


def _raise_status(learner, batch, status, bad):
    if status:
        # 3, 4: a CSR row's column indices, checked as the pass read it (csr_check's 1, 2)
        raise csr_index_error(learner._owner, batch.d, status - 2, bad) if status in (3, 4) \
            else row_error(learner._owner, batch, bad, hint=learner._OVERFLOW_HINT)


_CLASS_WEIGHT = Custom(check_class_weight, CLASS_WEIGHT_DOMAIN,
                       refused=["Balanced", 1.0, [1.0, 2.0], {1: -1.0}, {1: float("nan")},
                                {1: "2"}])


def _row_weights(learner, sample_weight, yy, n, fitting):
    """The weights of the rows of a pass of an additive learner (float64, finite, >= 0):
    ``sample_weight`` times the weight of each row's class under ``class_weight`` (as
    scikit-learn multiplies them); None when both are None (the unweighted pass, unchanged)."""
    cw = learner.class_weight
    if sample_weight is None and cw is None:
        return None
    o = learner._owner
    sw = None if sample_weight is None else check_sample_weight(o, sample_weight, n)
    if cw is not None:
        idx = yy.astype(np.intp) if learner._K() > 1 else (yy > 0).astype(np.intp)
        rw = class_weights(o, cw, learner.classes_, idx, fitting)[idx]
        sw = rw if sw is None else rw * sw
    if fitting and n and not sw.any():
        raise _all_zero(o)
    return sw


def _all_zero(owner):
    """fit with every row of weight 0 (nothing to learn; scikit-learn refuses it too)."""
    return ValueError(f"{owner}: parameter sample_weight must give fit at least one non-zero "
                      "weight (times class_weight), got every row's weight zero")


def _encode_dict(v, enc, problem):
    """The file format's fields of a dict parameter (class_weight): its keys and values."""
    return {"keys": enc(list(v.keys()), "keys"), "values": enc(list(v.values()), "values")}


def _decode_dict(v, dec, bad):
    keys, values = dec(v.get("keys")), dec(v.get("values"))
    if not (isinstance(keys, list) and isinstance(values, list) and len(keys) == len(values)):
        raise bad("a dict whose keys and values are not two lists of one length")
    try:
        out = dict(zip(keys, values))
    except TypeError:
        raise bad("a dict with a key that cannot be one") from None
    if len(out) != len(keys):
        raise bad("a dict whose keys repeat")
    return out


_registry.register_codec("dict", dict, _encode_dict, _decode_dict)


_EXAMPLE_DATA = """
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms()          # 8124 x 112 one-hot, y = +1 edible / -1 poisonous"""


_PERCEPTRON, _MARGIN, _HINGE, _PA = 0, 1, 2, 3


class _Linear(ManyClasses, OnlineLearner):
    """Shared state of the linear learners.

    Two classes: ``_w``: weights, with the intercept at index d when ``fit_intercept``;
    ``_u``: the averaging accumulator (AveragedPerceptron) or empty; ``_aux`` = [scale a,
    ||w||^2]; ``_counts`` = [n_seen, mistakes, updates].

    K >= 3 classes: ``_w`` is the D x K weight matrix W, feature-major and flattened
    (``_w[j * K + k]`` is the weight of feature j for class k; row d holds the intercepts),
    ``_u`` the same for the accumulator, ``_aux`` = [scale a, ||W||_F^2, ||w_0||^2, ...,
    ||w_{K-1}||^2] (the norms kept by the Margin Perceptron, zero otherwise).
    """

    # rows are feature vectors; shards mix by averaging their weights (mbcore.distributed:
    # _mix_vectors below); learn_one on dicts: a new name is a new column, its weights zero
    # (mbcore._one); sample_weight scales each row's update; the state grows with the width
    # of a stream (_grow_state below)
    _TAGS = tags(takes="features", mix="additive", no_mix=None, dict_features="grow",
                 weighted=True, no_weights=None, grows=True, needs_width=None)

    _algo = _PERCEPTRON
    normalize = False
    multi_class = "multiclass"
    _sk_sparse = True
    _sk_multiclass = True
    # parameters added after 0.1.0 (files of 0.1.0 lack them: mbcore.persistence gives them
    # their defaults, under which two classes behave as they did)
    _NEW_PARAMS = frozenset(("multi_class", "n_jobs", "class_weight", "record_updates"))
    record_updates = False

    _PARAMETERS = {"tie": Choice(*_TIES), "max_epochs": Integer(1), "fit_intercept": Flag(),
                   "multi_class": Choice(*_MULTI), "n_jobs": N_JOBS, "normalize": Flag(),
                   "class_weight": _CLASS_WEIGHT, "record_updates": Flag()}

    def _row_weights(self, sample_weight, yy, n, fitting):
        return _row_weights(self, sample_weight, yy, n, fitting)

    def _validate_params(self):
        super()._validate_params()
        o = self._owner
        w = self.__dict__.get("_w")
        if w is not None and w.shape[0] != (self._d + bool(self.fit_intercept)) * self._K():
            raise ValueError(f"{o}: parameter fit_intercept was changed to "
                             f"{self.fit_intercept!r} after fitting; call fit, or clone the "
                             "learner, to start again with it")

    def _init_state(self, d, w_init=None):
        D = d + (1 if self.fit_intercept else 0)
        K = self._K()
        self._d = d
        self._w = np.zeros(D * K) if w_init is None else w_init
        self._u = self._w.copy() if self._averaging() else np.zeros(0)
        self._aux = np.array([1.0, 0.0] + ([0.0] * K if K > 1 else []))
        self._kstate = None

    def _averaging(self):
        return False

    # for the tests (tests/_cases.py): the attributes that raise NotFittedError before fit, and
    # whether the state stays exact on small integer data (not with a margin's scaling, the
    # hinge's shrink or PA's step)
    _FITTED: "tuple[str, ...]" = ("coef_", "intercept_")
    _INTEGER_EXACT = False

    # -- a stream of unknown width (mbcore.streaming, grow=True) -------------------------------
    # A feature that was 0 in every row so far has weight 0 (and accumulator 0) in a run given
    # the full width from the start: no additive update touches it, and the norms and the
    # scale do not see it.  So the new rows of W are zeros, inserted before the intercepts.

    def _widened(self, w, d):
        """The flat weights ``w`` (of ``self._d`` features) with zero rows for the features
        ``self._d .. d - 1``, the intercept row (if any) kept last."""
        K, icpt, old = self._K(), int(bool(self.fit_intercept)), self._d
        W = w.reshape(-1, K) if w.ndim == 1 else w.reshape(w.shape[0], -1, K)
        out = np.zeros(W.shape[:-2] + (d + icpt, K))
        out[..., :old, :] = W[..., :old, :]
        if icpt:
            out[..., d, :] = W[..., old, :]
        return out.reshape(-1) if w.ndim == 1 else out.reshape(w.shape[0], -1)

    def _grow_state(self, d):
        self._w = self._widened(self._w, d)
        if self._u.shape[0]:
            self._u = self._widened(self._u, d)
        if "_rec_w0" in self.__dict__:
            self._rec_w0 = self._widened(self._rec_w0, d)
            if self._rec_u0.shape[0]:
                self._rec_u0 = self._widened(self._rec_u0, d)
        self._d = d

    def _grow_features(self, d):
        """Widen the state to d features (learn_one: new names), their weights zero, in place
        where the arrays have room (capacity doubling); returns the function that undoes it."""
        K, d0 = self._K(), self._d
        tail = K if self.fit_intercept else 0
        dd = self.__dict__
        saved = []
        for name in ("_w", "_u", "_rec_w0", "_rec_u0"):
            a = dd.get(name)
            if a is not None and a.shape[0]:
                saved.append((name, a, a[d0 * K:].copy()))
                dd[name] = widen(a, d0 * K, d * K, tail)

        def undo():
            for name, a, t in saved:
                a[d0 * K:] = t
                dd[name] = a
            self._d = self.n_features_in_ = d0
            self._kstate = self._fast = None

        self._d = self.n_features_in_ = d
        self._kstate = self._fast = None
        return undo

    def _one_binder(self, fast, one):
        # learn_one / predict_one: the row, the label and the one-row kernel in one compiled
        # call each (predict: where the flag comes from the state's own w and scale); not
        # while recording (the record is kept by _step1)
        if self.record_updates:
            return None
        return _k.OneLinear(self, fast, one, type(self)._flag_weights is _Linear._flag_weights)

    def _one_step(self, fast, view, y):
        # learn_one's step: the one-row kernel of partial_fit's fast path; the row is the
        # name index's own float64 buffer, so only the label is left to check
        if view.shape[1] != fast[1]:
            return False
        return self._step1(fast, view, y)

    def _step1(self, fast, X, v):
        """The one-row step of partial_fit's and learn_one's fast paths: the label's code,
        then lin_step1 on the one dense float64 row X; False for a label of neither class
        (the general path then says so)."""
        st, d, pos, neg = fast[:4]
        if v == pos:
            code = 1
        elif v == neg:
            code = -1
        else:
            return False
        if self.record_updates:
            return self._step1_recorded(st, d, X, code)
        if _k.lin_step1(st, X, code):
            raise row_error(self._owner, Batch(X=X, n=1, d=d), 0)
        return True

    def _step1_recorded(self, st, d, X, code):
        """_step1 with the record: the kernel gives the row's coefficient when it updated."""
        self._rec_sync()
        out = np.empty(2)
        t = int(self._counts[0])
        if _k.lin_step1(st, X, code, out):
            raise row_error(self._owner, Batch(X=X, n=1, d=d), 0)
        if out[1]:
            append_record(self, "_rec_idx", [t])
            append_record(self, "_rec_coef", out[:1])
        return True

    def _predict_one_row(self, view):
        # predict_one: predict's flag on the one row, without the batch checks
        fast = self.__dict__.get("_fast")
        if fast is None or view.shape[1] != fast[1]:
            return super()._predict_one_row(view)
        st, d, pos, neg = fast[:4]
        if type(self)._flag_weights is _Linear._flag_weights:     # (the state's w and scale)
            f = _k.lin_flag1(st, view)
        else:
            wa = self._flag_weights()
            if wa is None:
                return super()._predict_one_row(view)
            out = np.empty(1, dtype=np.uint8)
            f = -1 if _k.lin_flags(wa[0], wa[1], d, self.fit_intercept, self._normalizes(),
                                   self.tie == "positive", view, out)[0] else int(out[0])
        if f < 0:
            raise row_error(self._owner, Batch(X=view, n=1, d=d), 0)
        return pos if f else neg

    # -- attributions (mbcore.explain) --------------------------------------------------------
    def _explanation(self, x, X_train):
        from .explain import additive_explanation    # (mbcore.explain imports no learner)
        return additive_explanation(self, x, X_train)

    def _explain_post(self, x):
        """The learner's last step on the raw score of the dense row x: (multiplier, divisor),
        ``1/||x'||`` under normalisation (x' = (x, 1) with an intercept; summed exactly)."""
        if not self._normalizes():
            return None, None
        ss = math.fsum((x * x).tolist()) + (1.0 if self.fit_intercept else 0.0)
        return (1.0 / math.sqrt(ss) if ss > 0.0 else 0.0), None

    # -- the record of updates (record_updates=True; mbcore.explain's example parts) ----------
    # _rec_idx: each update's example index (the rows seen before it: n_seen_ - 1 at it);
    # _rec_coef: its coefficient c (w += c x, the intercept += c; the hinge SVM's c before its
    # division by the scale); _rec_cls: its class with K >= 3 classes (a Kesler update is two
    # entries, +c and -c), empty with two; _rec_w0, _rec_u0: the weights and the averaging
    # accumulator when the record started; _rec_a0 = [the scale then]; _rec_t = [n_seen_ then,
    # fit's row count (0: a stream), n_seen_ when fit's epochs started].
    _REC = ("_rec_idx", "_rec_coef", "_rec_cls", "_rec_w0", "_rec_u0", "_rec_a0", "_rec_t")

    def _rec_sync(self):
        """Start the record (the state as it is now: its start) when record_updates is on and
        there is none; drop it when the parameter is off.  Returns whether to record."""
        dd = self.__dict__
        if not self.record_updates:
            for k in self._REC:
                dd.pop(k, None)
            return False
        if "_rec_idx" not in dd:
            self._rec_idx = np.zeros(0, dtype=np.int64)
            self._rec_coef = np.zeros(0)
            self._rec_cls = np.zeros(0, dtype=np.int64)
            self._rec_w0 = self._w.copy()
            self._rec_u0 = self._u.copy()
            self._rec_a0 = np.array([float(self._aux[0])])
            self._rec_t = np.array([int(self._counts[0]), 0, 0], dtype=np.int64)
        return True

    def _rec_add(self, t_before, upd, coef):
        """Append a pass's updates (rows with upd set; their coefficients from coef)."""
        rows = upd.view(np.bool_).nonzero()[0]      # (0/1 flags; a bool scan is 8x faster)
        K = self._K()
        if K > 1:
            C = coef.reshape(-1, K)[rows]
            r, k = np.nonzero(C)
            idx, c, cls = rows[r] + t_before, C[r, k], k.astype(np.int64)
            append_record(self, "_rec_cls", cls)
        else:
            idx, c = rows + t_before, coef[rows]
        append_record(self, "_rec_idx", idx)
        append_record(self, "_rec_coef", c)

    def _epochs(self, batch, yy):
        if self._rec_sync():     # (fit's epochs: example i of epoch e is row i of its X)
            self._rec_t[1] = batch.n
            self._rec_t[2] = self._counts[0]
        super()._epochs(batch, yy)

    def _rec_check(self, st):
        """A loaded record: all of it or none, consistent with the state."""
        o = self._owner
        have = [k for k in self._REC if k in st]
        if not have:
            return
        need(len(have) == len(self._REC), f"{o}: the record of updates is incomplete "
                                          f"({have})")
        need(bool(self.record_updates), f"{o}: a record of updates with record_updates=False")
        idx, coef, cls, t = st["_rec_idx"], st["_rec_coef"], st["_rec_cls"], st["_rec_t"]
        K, n = self._K(), int(st["_counts"][0])
        need(t.shape == (3,) and 0 <= t[0] <= n and t[1] >= 0 and 0 <= t[2] <= n,
             f"{o}: _rec_t is not [start, rows, epochs' start]")
        need(idx.shape == coef.shape and (idx.shape[0] == 0 or (
            idx[0] >= t[0] and idx[-1] < n and (np.diff(idx) >= 0).all())),
             f"{o}: the record's example indices are not in order within the rows seen")
        need(cls.shape == (idx.shape if K > 1 else (0,)) and
             (cls.shape[0] == 0 or (cls.min() >= 0 and cls.max() < K)),
             f"{o}: the record's classes do not match the updates")
        need(st["_rec_w0"].shape == st["_w"].shape and
             st["_rec_u0"].shape == st["_u"].shape and st["_rec_a0"].shape == (1,),
             f"{o}: the record's start does not match the weights")
        finite(self, "_rec_coef", "_rec_w0", "_rec_u0", "_rec_a0")

    def _explain_record(self):
        """(start, example index, feature coefficient, intercept coefficient or None, class or
        None, row of each index, roundings) of the recorded updates in the learner's effective
        weights (``coef_``, ``intercept_``), or None when the learner does not record.  The
        start is flat, feature-major (D * K)."""
        if "_rec_idx" not in self.__dict__:
            return None
        idx = self._rec_idx
        t0, period, tf = (int(v) for v in self._rec_t)
        rows = np.where(idx >= tf, (idx - tf) % period, idx) if period else idx
        start, cf, ci, extra = self._rec_effective(idx)
        cls = self._rec_cls if self._K() > 1 else None
        return start, idx, cf, ci, cls, rows, extra

    def _rec_effective(self, idx):
        """The start and the coefficients in the effective weights (the raw ones here), and the
        roundings the rescaling adds to the bound (none)."""
        return self._rec_w0, self._rec_coef, None, 0

    # -- persistent state (mbcore._state; mbcore.persistence stores what _STATE names) -------
    _STATE = dict(COMMON, _d=INT, _w=arr(F8, 1), _u=arr(F8, 1), _aux=arr(F8, 1),
                  _rec_idx=arr(I8, 1), _rec_coef=arr(F8, 1), _rec_cls=arr(I8, 1),
                  _rec_w0=arr(F8, 1), _rec_u0=arr(F8, 1), _rec_a0=arr(F8, 1),
                  _rec_t=arr(I8, 1))
    _NEW_STATE = frozenset(_REC)       # (present only while recording)

    def _scale_reached(self, a):
        """Whether a run reaches the weight scale a (only the hinge learner rescales)."""
        return a == 1.0

    # -- the bounds as code (mbcore.certify: the rules "margin", "perceptron", "multiclass") --
    def _margin_bound(self, R, gamma):
        """(name, value, source) of the bound for two classes when a unit u separates the
        rows as the learner sees them (radius R) with margin gamma > 0; None: no such bound."""
        return None

    def _kesler_bound(self, R, gamma):
        """The same for K >= 3 classes (``multi_class="multiclass"``): a U of unit Frobenius
        norm with u_y.x - u_k.x >= gamma for every k != y on every row."""
        return None

    def _search_learner(self):
        """The learner certify fits to the data when it searches for a multi-class separator
        (its weights are one candidate; any candidate is checked on the data): the Perceptron
        (mbcore.linear's, found in the registry: mbcore.linear imports this module)."""
        perceptron = _registry.learner("Perceptron")
        return perceptron(tie=self.tie, normalize=self._normalizes(),
                          fit_intercept=self.fit_intercept, max_epochs=100,
                          multi_class="multiclass")

    def _check_state(self, st):
        o, d = self._owner, st["n_features_in_"]
        K = self._K()
        labels_and_counts(self, st)
        need(st["_d"] == d, f"{o}: _d != n_features_in_")
        D = d + bool(self.fit_intercept)
        shape(self, "_w", (D * K,))
        shape(self, "_u", (D * K,) if self._averaging() else (0,))
        shape(self, "_aux", (2,) if K == 1 else (2 + K,))
        finite(self, "_w", "_u", "_aux")
        a = float(st["_aux"][0])
        need(self._scale_reached(a), f"{o}: the weight scale _aux[0] = {a!r} is not one a run "
                                     "reaches")
        self._rec_check(st)


    def _state(self):
        st = self.__dict__.get("_kstate")
        if st is None:
            self._validate_params()
            K = self._K()
            if K > 1:
                st = _kmc.MultiState(
                    self._w, self._u, self._aux, self._counts, self._d, K, self._algo,
                    self.tie == "positive", self._normalizes(), self.fit_intercept,
                    self._averaging(), self._pegasos(), self._eta(), self._thr(), self._lam(),
                    self.multi_class == "ovr", C=self._C(), pa_lam=self._pa_lam())
            else:
                st = _k.LinearState(
                    self._w, self._u, self._aux, self._counts, self._d, self._algo,
                    self.tie == "positive", self._normalizes(), self.fit_intercept,
                    self._averaging(), self._pegasos(), self._eta(), self._thr(), self._lam(),
                    C=self._C(), pa_lam=self._pa_lam())
            self._kstate = st
        return st

    def _normalizes(self):
        return bool(self.normalize)

    def _pegasos(self):
        return False

    def _eta(self):
        return float(self.eta)

    def _thr(self):
        return 0.0

    def _lam(self):
        return 0.0

    def _C(self):
        return math.inf

    def _pa_lam(self):
        return 0.0

    def _check_X_learn(self, X, n_features):
        # CSR column indices are checked by the pass, row by row, as it reads them
        return check_X(self._owner, X, n_features, check_indices=False)

    def _select_pass(self, batch, start, label0, yy, b, adaptive, rng, x2, sel, pred, asked,
                     upd, scores):
        """The selective-sampling pass of mbcore.selective over the batch from row ``start``
        (linear.lin_select_pass, multiclass.mc_select_pass with K >= 3 classes): (stop,
        status, bad row)."""
        if self.record_updates:
            raise ValueError(f"{self._owner}: parameter record_updates is True, but selective "
                             "sampling does not record updates; set record_updates=False")
        fn = _kmc.mc_select_pass if self._K() > 1 else _k.lin_select_pass
        return fn(self._state(), batch.arrays, start, label0, yy, b, adaptive, rng, x2, sel,
                  pred, asked, upd, not batch.checked, scores)

    def _pass(self, batch, yy, pred, upd):
        st = self._state()
        threads = self._threads(batch)
        sw = batch.sw
        K = self._K()
        fn = _kmc.mc_pass if K > 1 else _k.lin_pass
        if not self._rec_sync():
            status, bad = fn(st, batch.arrays, yy, pred, upd, not batch.checked, threads, sw)
            _raise_status(self, batch, status, bad)
            batch.checked = True        # (later epochs over this batch skip the index checks)
            return
        # recording: each updating row's coefficient(s), compacted with the update flags
        if upd is None:
            upd = np.empty(batch.n, dtype=np.uint8)
        coef = np.zeros(batch.n * K) if K > 1 else np.empty(batch.n)
        t_before = int(self._counts[0])
        status, bad = fn(st, batch.arrays, yy, pred, upd, not batch.checked, threads, sw, coef)
        _raise_status(self, batch, status, bad)
        batch.checked = True
        self._rec_add(t_before, upd, coef)

    def _fast_path(self):
        """The binding of the small-input paths (two classes): (state, d, positive label,
        negative label, whether predict and decision_function score with the state's own w and
        scale as the general path does, classes_, each class as a 1-element array)."""
        if self._K() > 1 or self.class_weight is not None:    # (the one-row step is unweighted)
            return None
        cl = self.classes_
        pos, neg = cl[1], cl[0]
        plain = type(self)._scores is _Linear._scores and \
            type(self)._flag_weights is _Linear._flag_weights
        # (object-dtype classes_ hold Python values, which have no .item())
        return (self._state(), self._d, pos.item() if isinstance(pos, np.generic) else pos,
                neg.item() if isinstance(neg, np.generic) else neg, plain, cl,
                (cl[0:1].copy(), cl[1:2].copy()))

    # -- the small-input path of predict and decision_function --------------------------------
    # A few dense, native, C-contiguous float64 rows of the fitted width, on a learner that
    # scores with its own weights (two classes): the kernels lin_flag1/lin_score1 (one row) and
    # lin_predict_few compute each score with the arithmetic of the general path
    # (lin_scores_impl), so both paths give the same results; anything else, or a row whose
    # score is not finite, takes the general path (which says what is wrong).
    _FEW = 16       # up to this many rows

    def _few(self, X):
        """The binding of the small-input path (built when missing, as partial_fit binds it),
        or None for the general path."""
        if type(X) is not np.ndarray or X.ndim != 2 or X.dtype.char != "d" or \
                not 0 < X.shape[0] <= self._FEW or not X.flags.c_contiguous or \
                not X.dtype.isnative:
            return None
        d = self.__dict__
        fast = d.get("_fast")
        if fast is None:
            if d.get("classes_") is None or "_feature_names" in d:
                return None
            fast = self._fast_path()
            if fast is None:
                return None
            d["_fast"] = fast
        if X.shape[1] != fast[1] or not fast[4]:
            return None
        return fast

    def predict(self, X):
        fast = self._few(X)
        if fast is not None:
            if X.shape[0] == 1:
                f = _k.lin_flag1(fast[0], X)
                if f >= 0:
                    return fast[6][f].copy()
            else:
                flags = np.empty(X.shape[0], dtype=np.uint8)
                if _k.lin_predict_few(fast[0], X, flags, None) == 0:
                    return fast[5].take(flags)
        return super().predict(X)

    predict.__doc__ = OnlineLearner.predict.__doc__

    def decision_function(self, X):
        fast = self._few(X)
        if fast is not None:
            if X.shape[0] == 1:
                s = _k.lin_score1(fast[0], X)
                if s == s:
                    out = np.empty(1)
                    out[0] = s
                    return out
            else:
                out = np.empty(X.shape[0])
                if _k.lin_predict_few(fast[0], X, None, out) == 0:
                    return out
        return super().decision_function(X)

    decision_function.__doc__ = OnlineLearner.decision_function.__doc__

    def _fast_step(self, fast, X, y):
        if X.shape[1] != fast[1] or X.dtype.char != "d" or not X.dtype.isnative or \
                not X.flags.c_contiguous:
            return False
        if type(y) is np.ndarray:
            if y.ndim != 1 or y.shape[0] != 1:
                return False
            v = y[0]
        elif type(y) is list and len(y) == 1:
            v = y[0]
        else:
            return False
        return self._step1(fast, X, v)

    def _raw_scores(self, batch, w, a=1.0):
        self._state()  # re-validates parameters changed since the last call
        d, icpt, norm = self._d, self.fit_intercept, self._normalizes()
        K = self._K()
        if K > 1:
            def scores(b, out):
                return _kmc.mc_scores(w, K, a, d, icpt, norm, b.arrays, out)

            out = np.empty((batch.n, K))
            _raise_status(self, batch, *map_rows(batch, scores, out))
            return out

        def score(b, out):
            return _k.lin_scores(w, a, d, icpt, norm, b.arrays, out)

        out = np.empty(batch.n)
        _raise_status(self, batch, *map_rows(batch, score, out))
        return out

    def _scores(self, batch):
        return self._raw_scores(batch, self._w, float(self._aux[0]))

    def _flag_weights(self):
        """(w, a) whose score sign is the prediction, or None when predict needs the scores."""
        return self._w, float(self._aux[0])

    def _class_scores(self, batch):
        """K >= 3: the scores whose argmax is the prediction (the raw scores, except for the
        one-vs-rest Margin Perceptron: each learner's normalised margin)."""
        return self._scores(batch)

    def _predict_flags(self, batch):
        if self._K() > 1:      # the class indices (np.argmax: ties -> the smallest index)
            return np.argmax(self._class_scores(batch), axis=1)
        wa = self._flag_weights()
        if wa is None:
            return super()._predict_flags(batch)
        self._state()  # re-validates parameters changed since the last call
        (w, a), d, icpt, norm = wa, self._d, self.fit_intercept, self._normalizes()
        tie = self.tie == "positive"

        def flags(b, out):
            return _k.lin_flags(w, a, d, icpt, norm, tie, b.arrays, out)

        out = np.empty(batch.n, dtype=np.uint8)
        _raise_status(self, batch, *map_rows(batch, flags, out))
        return out.view(np.bool_)

    def _cycle_key(self):
        return self._digest(self._w)

    def _weights(self):
        return self._w

    # -- parameter mixing (mbcore.distributed): one weight vector (intercept last), or with
    # K >= 3 classes the flattened weight matrix, mixed entry by entry
    def _mix_state(self):
        """The arrays that are the whole state (identical states mix to themselves)."""
        return (self._w, self._aux)

    def _mix_vectors(self):
        """What is averaged: the effective weights (a·v for the hinge SVM)."""
        return (np.array(self._weights(), dtype=np.float64),)

    def _set_mixed(self, vectors):
        """Start from these weights, as ``fit(coef_init=..., intercept_init=...)`` does
        (``_aux`` rebuilt: scale 1 and, for the Margin Perceptron, the norms)."""
        self._init_state(self._d, np.ascontiguousarray(vectors[0], dtype=np.float64))
        self._kstate = None
        self._fast = None
        for k in self._REC:     # (the mixed weights: a new start for the record)
            self.__dict__.pop(k, None)

    def _settle_mixed(self):
        """Nothing derived to recompute."""

    @property
    def coef_(self):
        """The weight vector w, shape (n_features,); with K >= 3 classes the matrix of the
        class weight vectors, shape (K, n_features)."""
        self._check_fitted("coef_")
        K, d = self._K(), self._d
        if K > 1:
            return self._weights()[:d * K].reshape(d, K).T.copy()
        return self._weights()[:d]

    @property
    def intercept_(self):
        """The intercept (the weight of the constant coordinate), 0.0 without one; with K >= 3
        classes one per class, shape (K,)."""
        self._check_fitted("intercept_")
        K, d = self._K(), self._d
        if K > 1:
            return self._weights()[d * K:].copy() if self.fit_intercept else np.zeros(K)
        return float(self._weights()[self._d]) if self.fit_intercept else 0.0

    def fit(self, X, y, classes=None, coef_init=None, intercept_init=None, sample_weight=None):
        """Reset (optionally to ``coef_init``/``intercept_init``), then cycle through the data
        until a pass with no update (``converged_``) or ``max_epochs``.  ``sample_weight``
        scales each row's updates in every epoch (see the class; ``class_weight="balanced"``
        is computed from this call's y).

        On integer-valued data the Perceptron's weights are exact, so a weight vector that
        repeats at an epoch boundary proves the run would cycle for ever (the cycling theorem):
        ``fit`` then stops and sets ``cycled_`` (detected by a 160-bit digest of w).
        """
        with Snapshot(self, copy_arrays=False):     # (the reset replaces every state array)
            self._reset()
            self._fit_from(X, y, classes, coef_init, intercept_init, sample_weight)
        return self

    def _fit_from(self, X, y, classes, coef_init, intercept_init, sample_weight=None):
        batch, yy = self._prepare(X, y, classes)
        batch.sw = self._row_weights(sample_weight, yy, batch.n, True)
        if coef_init is not None:
            K, d = self._K(), self._d
            if K > 1:
                w0 = self._matrix_init(coef_init, intercept_init)
            else:
                w0 = np.array(coef_init, dtype=np.float64).ravel()
                if w0.shape[0] != d:
                    raise ValueError(f"{self._owner}: coef_init has {w0.shape[0]} values, X has "
                                     f"{d} features")
                if self.fit_intercept:
                    w0 = np.append(w0, float(intercept_init or 0.0))
            if not np.isfinite(w0).all():
                raise ValueError(f"{self._owner}: coef_init contains NaN or infinity")
            self._init_state(d, w0)
        self._epochs(batch, yy)

    def _matrix_init(self, coef_init, intercept_init):
        """coef_init (K, d) and intercept_init (K,) as the flat feature-major W."""
        K, d = self._K(), self._d
        C = np.array(coef_init, dtype=np.float64)
        if C.shape != (K, d):
            raise ValueError(f"{self._owner}: coef_init has shape {C.shape}, expected ({K}, {d}) "
                             f"(one row per class)")
        rows = [C.T]
        if self.fit_intercept:
            b = np.zeros(K) if intercept_init is None else \
                np.array(intercept_init, dtype=np.float64).ravel()
            if b.shape != (K,):
                raise ValueError(f"{self._owner}: intercept_init has {b.shape[0]} values, "
                                 f"expected {K} (one per class)")
            rows.append(b[None, :])
        return np.ascontiguousarray(np.concatenate(rows)).ravel()
