"""The multiplicative family: Winnow2, elimination Winnow, Winnow*, Balanced Winnow,
each with its pure-Python twin of the same name in ``mbref.multiplicative``.

Numerics: weights are kept as base-2 logarithms, never as products that could underflow or
overflow.  With Boolean features and power-of-two factors (the defaults) the logarithms are
integers and the state is exact for any run length, and the prediction is the exact one (see
``mbref.multiplicative`` for the policy both implementations follow).
"""

import math

import numpy as np

from ._kernels import multiplicative as _k, multiplicative_mc as _kmc
from ._numerics import pow2_exponent as _pow2_exponent
from ._validation import Batch, check_2d, check_X, csr_index_error, is_index_lists
from ._state import BOOL, COMMON, F8, FLOAT, INT, arr, labels_and_counts, need, shape
from ._params import Choice, Flag, Integer, Real
from ._rows import CSR
from ._messages import spell
from ._threads import N_JOBS
from ._tags import tags
from .base import ManyClasses, OnlineLearner, append_record

__all__ = ["Winnow", "EliminationWinnow", "WinnowStar", "BalancedWinnow"]

_WINNOW, _STAR, _BALANCED = 0, 1, 2
_X_LIMIT = 2.0 ** 100


def _boolean_setting():
    """How the Boolean-features message names the parameter (and, on the command line, the
    setting that takes real values)."""
    return spell("features='boolean'", "--param features=boolean (the default; --param "
                 "features=real takes real values)")


def _integral(a):
    """Whether the finite entries of ``a`` are integers below 2**53 (exact mode's logs)."""
    fin = a[np.isfinite(a)]
    return bool((fin == np.round(fin)).all() and (np.abs(fin) < 2.0 ** 53).all())


class _Winnow(ManyClasses, OnlineLearner):
    """Shared machinery of the Winnow learners."""

    # sample_weight refused (OnlineLearner._refuse_weights); shards mix in log space
    # (mbcore.distributed: _mix_vectors below)
    _TAGS = tags(takes="features",
                 no_weights=("a mistake multiplies the active weights by the fixed factors "
                             "alpha and beta, and the notes give no weighted form of the rule"),
                 needs_width="its default threshold θ is n", mix="multiplicative", no_mix=None)

    _variant = _WINNOW
    multi_class = "multiclass"
    _sk_sparse = True
    _sk_multiclass = True
    # parameters added after 0.1.0 (mbcore.persistence gives files of 0.1.0 their defaults)
    _NEW_PARAMS = frozenset(("multi_class", "n_jobs", "record_updates"))
    # the record of updates (record_updates=True), gained in 0.x: older files load with none
    _NEW_STATE = frozenset(("_rec_idx", "_rec_dir"))
    # Positive weights only (monotone threshold functions): scikit-learn's accuracy bar on its
    # centred blobs does not apply (BalancedWinnow, with w+ - w-, clears it).
    _sk_poor_score = True

    # -- parameters (same checks and messages as the twin) ----------------------------------
    def _alpha(self):
        return self.alpha

    def _beta(self):
        return 1.0 / self.alpha if self.beta is None else self.beta

    def _w0(self):
        return self.w0

    def _theta(self, d):
        return float(d) if self.theta is None else float(self.theta)

    # decision_function = score - theta: 0 is the tie score >= theta, predicted classes_[1]
    # (for the tests: tests/_cases.py)
    _TIE_AT_ZERO = "positive"

    # the domains of the parameters (mbcore._params; the twin checks the same, word for word)
    _PARAMETERS = {"alpha": Real(1), "beta": Real(0, 1, low_inclusive=True, high_inclusive=False,
                                                  none=True, what="a real in [0, 1)"),
                   "theta": Real(0, none=True), "w0": Real(0),
                   "features": Choice("boolean", "real"), "max_epochs": Integer(1),
                   "n_features": Integer(1, none=True), "multi_class": Choice("multiclass", "ovr"),
                   "n_jobs": N_JOBS, "record_updates": Flag()}


    def _exact(self):
        b = float(self._beta())
        return (self.features == "boolean" and _pow2_exponent(float(self._alpha())) is not None
                and (b == 0 or _pow2_exponent(b) is not None)
                and _pow2_exponent(float(self._w0())) is not None)

    def _logs(self):
        out = []
        for v in (float(self._alpha()), float(self._beta()), float(self._w0())):
            k = _pow2_exponent(v) if v > 0 else None
            out.append(float(k) if k is not None else (math.log2(v) if v > 0 else -math.inf))
        return out

    # -- input -----------------------------------------------------------------------------
    def _check_X(self, X, n_features):
        o = self._owner
        if n_features is None and self.n_features is not None:
            n_features = int(self.n_features)
        if self.n_features is not None and is_index_lists(X):
            # With n_features set, lists of Python ints are lists of active indices; dense rows
            # are then given as an array.
            X = _index_lists_to_csr(o, X, int(self.n_features))
        if self.features == "boolean" and isinstance(X, np.ndarray) and X.dtype.kind in "bu":
            return _dense_boolean(o, X, n_features)  # kept as uint8: no float64 copy
        # Values and CSR indices are checked by the kernel, row by row, as it reads them.
        return check_X(o, X, n_features, check_indices=False,
                       keep_uint8=self.features == "boolean")

    def _row_error(self, batch, code, row):
        o = self._owner
        if code in (1, 2):
            return csr_index_error(o, batch.d, code, row)
        if code == 4:
            return ValueError(f"{o}: X is not a valid CSR matrix (indptr decreases at row "
                              f"{row})")
        if code == 6:
            return ValueError(f"{o}: the score of row {row} is not finite in float64 arithmetic "
                              "(a weight has left float64's range); use features='boolean' with "
                              "power-of-two alpha and w0 (exact arithmetic), scale X down, or "
                              "learn fewer passes; the learner was left as before the call")
        vals = batch.row_values(row)
        if self.features == "boolean":
            v = vals[(vals != 0) & (vals != 1)][0].item()
            if not math.isfinite(v):
                return ValueError(f"{o}: X contains NaN or infinity ({v!r}) in row {row}; X "
                                  f"must be Boolean (0/1) with {_boolean_setting()}")
            return ValueError(f"{o}: X must be Boolean (0/1) with {_boolean_setting()}, got "
                              f"{v!r} in row {row}")
        v = vals[~(np.abs(vals) <= _X_LIMIT)][0].item()
        if not math.isfinite(v):
            return ValueError(f"{o}: X contains NaN or infinity ({v!r}) in row {row}; X must "
                              "be finite with |x| <= 2**100 with features='real'")
        return ValueError(f"{o}: X must be finite with |x| <= 2**100 with features='real', got "
                          f"{v!r} in row {row}")

    # -- state -----------------------------------------------------------------------------
    def _init_state(self, d):
        if self.n_features is not None and d != self.n_features:
            raise ValueError(f"{self._owner}: X has {d} features, but n_features="
                             f"{self.n_features}")
        self._d = d
        self.theta_ = self._theta(d)
        self._la, self._lb, lw0 = self._logs()
        self._exact_mode = self._exact()
        # K >= 3 classes: K weight vectors, feature-major (_l[j * K + k]: feature j, class k)
        self._l = np.full(d * self._K(), lw0)
        self._w = np.empty(d * self._K())
        _k.terms(self._l, self._w)
        if self._variant == _BALANCED:
            self._ln, self._wn = self._l.copy(), self._w.copy()
        else:
            self._ln, self._wn = np.zeros(0), np.zeros(0)
        self._rec_idx, self._rec_dir = _empty_record()

    # -- persistent state (mbcore._state; mbcore.persistence stores what _STATE names) -------
    _STATE = dict(COMMON, _d=INT, theta_=FLOAT, _la=FLOAT, _lb=FLOAT, _exact_mode=BOOL,
                  _l=arr(F8, 1), _w=arr(F8, 1), _ln=arr(F8, 1), _wn=arr(F8, 1),
                  _rec_idx=arr(np.int64, 1), _rec_dir=arr(F8, 1))

    def _check_state(self, st):
        o, d = self._owner, st["n_features_in_"]
        K = self._K()
        labels_and_counts(self, st)
        need(st["_d"] == d, f"{o}: _d != n_features_in_")
        need(self.n_features is None or self.n_features == d,
             f"{o}: n_features_in_ != the parameter n_features")
        self._validate_params()
        la, lb, lw0 = self._logs()
        # the float mode is always allowed (a log-space mixture of shards, mbcore.distributed,
        # has non-integral logs); the exact mode only where the parameters allow it
        need(st["theta_"] == self._theta(d) and st["_la"] == la and st["_lb"] == lb and
             (not st["_exact_mode"] or self._exact()),
             f"{o}: theta_ or the log factors do not match the parameters")
        _check_record(self, st, max(K, 1) if self.multi_class == "ovr" else min(K, 2))
        two_sided = isinstance(self, BalancedWinnow)      # its second weight vector
        for n in ("_l", "_w"):
            shape(self, n, (d * K,))
        for n in ("_ln", "_wn"):
            shape(self, n, (d * K,) if two_sided else (0,))
        for n in ("_l", "_ln"):
            a = st[n]
            need(not np.isnan(a).any() and not (a == np.inf).any() and
                 (lb == -np.inf or np.isfinite(a).all()), f"{o}: {n} holds values no run can reach")
            if st["_exact_mode"]:
                need(_integral(a), f"{o}: {n} is not integral in exact mode")
            w = np.empty_like(a)
            _k.terms(np.ascontiguousarray(a), w)
            need(np.array_equal(w, st["_w" if n == "_l" else "_wn"]),
                 f"{o}: the weight cache does not match the log-weights")
        if two_sided and not st["_exact_mode"] and self._exact() and all(
                (a == np.round(a)).all() and (np.abs(a) < 2.0 ** 53).all()
                for a in (st["_l"], st["_ln"])):
            # a file written before BalancedWinnow had its exact mode (integral logs, and
            # parameters that allow it) goes on in exact mode, as the rule asks
            self._exact_mode = True


    # -- parameter mixing (mbcore.distributed): the log2-weights, mixed in log space --------
    def _mix_state(self):
        """The arrays that are the whole state (identical states mix to themselves)."""
        return (self._l, self._ln)

    def _mix_vectors(self):
        """What is averaged: log2 of the weights (and of the negative weights, Balanced
        Winnow)."""
        return (np.array(self._l, dtype=np.float64), np.array(self._ln, dtype=np.float64))

    def _set_mixed(self, vectors):
        """Take these log2-weights (the weight caches recomputed from them), then
        ``_settle_mixed``."""
        l, ln = (np.ascontiguousarray(v, dtype=np.float64) for v in vectors)
        w, wn = np.empty_like(l), np.empty_like(ln)
        _k.terms(l, w)
        _k.terms(ln, wn)
        self._l, self._w, self._ln, self._wn = l, w, ln, wn
        self._settle_mixed()

    def _settle_mixed(self):
        """Exact mode needs integer log-weights; a mixture that is not integral runs in the
        learner's float mode (mbcore.distributed's docstring).  The mode is a function of the
        log-weights (and the parameters), so a repeated state is a repeated run."""
        self._exact_mode = bool(self._exact() and _integral(self._l) and _integral(self._ln))

    def _kargs(self):
        return (self._variant, self._exact_mode, self._la, self._lb, self.theta_, self._l,
                self._w, self._ln, self._wn)

    def _run_kernel(self, batch, yy, pred, counts, update, scores=None, upd=None, threads=1,
                    check_values=True, ones=False):
        """One pass of the compiled kernel over batch (update: the online protocol on up to
        `threads` threads, the same results for any number); a bad row raises its error.  The
        kernel checks each row as it reads it: its values (unless check_values is False: a
        complete pass over this batch checked them) and, for CSR, its column indices unless
        ``batch.checked``.  Binary CSR with Boolean features: ``ones`` (without check_values)
        says a complete pass found every stored value to be 1, and the kernel then reads only
        the column indices.  Returns whether this pass checked every value and found them all
        to be 1 (binary CSR, Boolean features; else False)."""
        boolean = self.features == "boolean"
        K = self._K()
        if K > 1:
            head = (self._variant, self._exact_mode, self._la, self._lb, self.theta_, K,
                    self.multi_class == "ovr", self._l, self._w, self._ln, self._wn)
            code, row = _kmc.mc_winnow_pass(*head, batch.arrays, batch.d, boolean, _X_LIMIT, yy,
                                            pred, upd, counts, update, scores, threads=threads,
                                            check=not batch.checked,
                                            check_values=check_values)
            if code:
                raise self._row_error(batch, code, row)
            return False
        code, row, all_ones = _k.winnow_pass(
            *self._kargs(), batch.arrays, batch.d, boolean, _X_LIMIT, yy, pred, counts, update,
            scores, threads=threads, check=not batch.checked, check_values=check_values,
            ones=ones)
        if code:
            raise self._row_error(batch, code, row)
        return all_ones

    def _epochs(self, batch, yy):
        # fit's epochs (and mbcore.distributed's shards) over one batch: once a pass has gone
        # through all of it, every row was checked, and the later passes skip the checks; if
        # that pass found every stored CSR value to be 1 (_valid_ones), the later passes read
        # the column indices alone.
        d = self.__dict__
        d["_valid_batch"] = None
        d["_valid_ones"] = False
        try:
            super()._epochs(batch, yy)
        finally:
            d.pop("_valid_batch", None)
            d.pop("_valid_ones", None)

    def _pass(self, batch, yy, pred, upd):
        self._validate_params()
        threads = self._threads(batch)
        d = self.__dict__
        in_epochs = "_valid_batch" in d
        check_values = not (in_epochs and d["_valid_batch"] is batch)
        ones = not check_values and d.get("_valid_ones", False)
        record = self.record_updates
        if record:
            K = self._K()
            if K > 1 and self.multi_class == "ovr":
                raise ValueError(f"{self._owner}: record_updates=True takes two classes or "
                                 "multi_class='multiclass', got multi_class='ovr' with "
                                 f"{K} classes")
            # the row's place in the training stream: fit's epochs repeat X's rows; the
            # partial_fit calls follow each other
            base = 0 if in_epochs else int(self._counts[0])
            if pred is None:
                pred = np.empty(batch.n, dtype=np.int32 if K > 1 else np.int8)
            if upd is None:
                upd = np.empty(batch.n, dtype=np.uint8)
        if self._K() > 1:
            if pred is None:
                pred = np.empty(batch.n, dtype=np.int32)
            all_ones = self._run_kernel(batch, yy, pred, self._counts, True, upd=upd,
                                        threads=threads, check_values=check_values)
        else:
            if pred is None and upd is not None:
                pred = np.empty(batch.n, dtype=np.int8)
            all_ones = self._run_kernel(batch, yy, pred, self._counts, True, threads=threads,
                                        check_values=check_values, ones=ones)
            if upd is not None:
                np.not_equal(pred, yy, out=upd.view(np.bool_))
        if record:
            self._append_record(base, yy, pred, upd)
        # the pass went through every row: their indices (and values) are good
        batch.checked = True
        if in_epochs:
            d["_valid_batch"] = batch
            d["_valid_ones"] = ones or all_ones

    def _predict_flags(self, batch):
        """Whether each row is predicted positive; with K >= 3 classes, the class indices."""
        self._validate_params()
        K = self._K()
        pred = np.empty(batch.n, dtype=np.int32 if K > 1 else np.int8)
        self._run_kernel(batch, None, pred, np.zeros(3, dtype=np.int64), False)
        return pred if K > 1 else pred > 0

    def _scores(self, batch):
        self._validate_params()
        K = self._K()
        out = np.empty((batch.n, K) if K > 1 else batch.n)
        pred = np.empty(batch.n, dtype=np.int32 if K > 1 else np.int8)
        self._run_kernel(batch, None, pred, np.zeros(3, dtype=np.int64), False, out)
        return out

    def _matrix(self, a):
        """A flat feature-major array of K >= 3 classes as (K, n_features); else as it is."""
        K = self._K()
        return a.reshape(self._d, K).T.copy() if K > 1 else a.copy()

    def _cycle_key(self):
        return self._digest(np.concatenate([self._l, self._ln]))

    @property
    def log2_coef_(self):
        """The exact state: log2 of each weight (-inf for a weight of 0)."""
        self._check_fitted("log2_coef_")
        return self._matrix(self._l)

    @property
    def coef_(self):
        """The weights 2**log2_coef_ as float64 (0.0 or inf where they leave its range)."""
        self._check_fitted("coef_")
        return self._matrix(self._w)

    # -- the record of updates (record_updates=True) and the explanation (mbcore.explain) -----
    def _append_record(self, base, yy, pred, upd):
        """Add this pass's updates to the record: per update of a weight vector, the row's
        place in the training stream and the direction, +1 a promotion and -1 a demotion
        (with K >= 3 classes, +-(k + 1) for class k's weights: a mistake promotes the true
        class, then demotes the predicted one)."""
        rows = np.flatnonzero(upd)
        if rows.size == 0:
            return
        idx = rows.astype(np.int64) + base
        if self._K() > 1:
            idx = np.repeat(idx, 2)
            dirs = np.empty(idx.size)
            dirs[0::2] = yy[rows].astype(np.float64) + 1.0
            dirs[1::2] = -(pred[rows].astype(np.float64) + 1.0)
        else:
            dirs = yy[rows].astype(np.float64)
        append_record(self, "_rec_idx", idx)
        append_record(self, "_rec_dir", dirs)

    @property
    def update_record_(self):
        """The record of updates (``record_updates=True``): ``(indices, directions)``, per
        update the row's place in the training stream (int64) and +1.0 for a promotion, -1.0
        for a demotion (K >= 3 classes: +-(k + 1) for class k's weights)."""
        self._check_fitted("update_record_")
        return self._rec_idx.copy(), self._rec_dir.copy()

    def _replay(self, X_train, focus=()):
        """The record replayed on X_train's rows by the rule: the log-weights it gives (and the
        negative ones), and per weight (feature-major, as _l) the promotions, the demotions
        that applied, the demotions that did not (Winnow*'s weights below 1) and the rows."""
        batch = self._check_X(X_train, self.n_features_in_)
        K, n = self._K(), batch.n
        _, _, lw0 = self._logs()
        la, lb = self._la, self._lb
        l = np.full(self._l.shape, lw0)
        ln = l.copy() if self._variant == _BALANCED else np.zeros(0)
        prom, dem, skip = (np.zeros(l.shape, dtype=np.int64) for _ in range(3))
        rows = [[] for _ in range(l.size)]
        focus = set(focus)
        parts = {}       # row -> what its updates added to the focus weights' log2 (in order)
        if self._rec_idx.size and int(self._rec_idx.max()) >= n:
            raise ValueError(f"{self._owner}: the record names row {int(self._rec_idx.max())} "
                             f"of the training stream, but X_train has {n} rows (give every "
                             "row the learner was trained on, in order)")
        for i, v in zip(self._rec_idx.tolist(), self._rec_dir.tolist()):
            vals = batch.row_values(i)
            if batch.X is not None:
                cols = np.flatnonzero(vals)
                vals = vals[cols]
            else:
                cols = batch.indices[batch.indptr[i]:batch.indptr[i + 1]]
                cols, vals = cols[vals != 0], vals[vals != 0]
            k = int(abs(v)) - 1
            for j, x in zip(cols.tolist(), vals.astype(np.float64).tolist()):
                t = j * K + k
                rows[t].append(i)
                before, before_n = l[t], (ln[t] if ln.size else 0.0)
                if v > 0:
                    prom[t] += 1
                    l[t] = l[t] + x * la
                    if ln.size:
                        ln[t] = ln[t] + x * lb
                elif self._variant == _STAR and not l[t] >= 0.0:
                    skip[t] += 1
                else:
                    dem[t] += 1
                    if lb == -math.inf:
                        l[t] = -math.inf
                    else:
                        l[t] = l[t] + x * lb
                    if ln.size:
                        ln[t] = ln[t] + x * la
                if t in focus and l[t] != before:
                    # Balanced Winnow: log2 w+ up and log2 w- down both push the score up
                    parts.setdefault(i, []).append(
                        (l[t] - before) - ((ln[t] - before_n) if ln.size else 0.0))
        return l, ln, prom, dem, skip, rows, parts

    def _explanation(self, x, X_train):
        from ._explain_log import winnow_explanation
        return winnow_explanation(self, x, X_train)

    def _explain(self, x, X_train=None):
        """The parts of the explanation of row x (``mbcore.explain``), as a dict."""
        self._check_fitted("explain")
        if not hasattr(x, "tocsr") and np.ndim(x) == 1:
            x = np.asarray(x)[None, :]                 # one row, as a (1, n_features) matrix
        batch = self._check_X(x, self.n_features_in_)
        if batch.n != 1:
            raise ValueError(f"{self._owner}: explain takes one row, got {batch.n}")
        K = self._K()
        self._validate_params()
        pred = self._predict_flags(batch)
        k = int(pred[0]) if K > 1 else 0
        label = self.classes_[k] if K > 1 else self.classes_[int(pred[0])]
        vals = np.asarray(batch.row_values(0), dtype=np.float64)
        if batch.X is not None:
            cols = np.flatnonzero(vals)
            vals = vals[cols]
        else:
            cols = np.asarray(batch.indices[:batch.indptr[1]], dtype=np.int64)
            cols, vals = cols[vals != 0], vals[vals != 0]
        t = cols * K + k
        w = self._w[t] - (self._wn[t] if self._variant == _BALANCED else 0.0)
        terms = vals * w
        scores = self._scores(batch)[0]
        per = 2 if K > 1 else 1
        out = {"kind": "multiplicative", "label": label, "class_index": k,
               "complete": self._rec_idx.size == per * int(self._counts[2]),
               "example_rows": None, "example_parts": None,
               "features": cols, "values": vals, "terms": terms,
               "score": _sum4(terms), "threshold": None if K > 1 else self.theta_,
               "decision": scores if K > 1 else float(scores),
               "log2_weights": self._l[t].copy(),
               "log_alpha_weights": self._l[t] / self._la,
               "log2_weights_neg": self._ln[t].copy() if self._variant == _BALANCED else None,
               "record": self._rec_idx.size > 0, "rows": None, "promotions": None,
               "demotions": None, "skipped": None, "exact": None}
        if X_train is not None and not out["complete"]:
            raise ValueError(f"{self._owner}: parameter X_train was given, but the learner did "
                             "not record all its updates (construct it with record_updates=True "
                             "and fit it again)")
        if X_train is not None:
            l, ln, prom, dem, skip, rows, parts = self._replay(X_train, t.tolist())
            ex = sorted(parts)
            # (exact: each part is a difference of log2-weights, integers in exact mode; a
            # sum of them with -inf is an elimination)
            out["example_rows"] = np.array(ex, dtype=np.int64)
            out["example_parts"] = np.array([math.fsum(parts[i]) if all(
                math.isfinite(u) for u in parts[i]) else -math.inf for i in ex])
            out.update(promotions=prom[t], demotions=dem[t], skipped=skip[t],
                       rows=[np.array(rows[u], dtype=np.int64) for u in t.tolist()],
                       exact=bool(np.array_equal(l, self._l) and np.array_equal(ln, self._ln)))
        return out


def _sum4(terms):
    """The kernels' float64 sum: four partial sums over the terms in order."""
    s = [0.0, 0.0, 0.0, 0.0]
    for u, v in enumerate(np.asarray(terms, dtype=np.float64).tolist()):
        s[u & 3] += v
    return (s[0] + s[1]) + (s[2] + s[3])


def _empty_record():
    return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)


def _check_record(learner, st, per_update):
    """The loaded record (absent from older files: none): equal lengths, rows in the stream
    seen, directions +-(k + 1) for the learner's weight vectors, no more than the updates."""
    o = learner._owner
    if "_rec_idx" not in st or "_rec_dir" not in st:
        learner._rec_idx, learner._rec_dir = _empty_record()
        return
    idx, dirs = st["_rec_idx"], st["_rec_dir"]
    K = learner._K()
    need(idx.shape == dirs.shape and idx.size <= per_update * st["_counts"][2] and
         (idx.size == 0 or (idx.min() >= 0 and idx.max() < st["_counts"][0])) and
         bool(np.isin(np.abs(dirs), np.arange(1.0, K + 1.0)).all()),
         f"{o}: the record of updates does not match the state")


def _dense_boolean(owner, X, n_features):
    """A Boolean/unsigned dense array as a uint8 batch (no float copy)."""
    check_2d(owner, X, n_features)
    if X.dtype == np.bool_:
        A = X.view(np.uint8)
    elif X.dtype == np.uint8:
        A = X
    else:  # wider unsigned integers: values above 1 are reported before the cast
        if (X > 1).any():
            bad = int(np.flatnonzero((X > 1).any(axis=1))[0])
            raise ValueError(f"{owner}: X must be Boolean (0/1) with {_boolean_setting()}, got "
                             f"{X[bad][X[bad] > 1][0].item()!r} in row {bad}")
        A = X.astype(np.uint8)
    A = np.ascontiguousarray(A)
    return Batch(X=A, n=A.shape[0], d=A.shape[1])


def _index_lists_to_csr(owner, rows, n):
    """Lists of active indices -> a CSR matrix (data all ones) for check_X."""
    idx, ptr = [], [0]
    for i, r in enumerate(rows):
        s = sorted(int(j) for j in r)
        for k, j in enumerate(s):
            if j < 0 or j >= n:
                raise ValueError(f"{owner}: active index {j} out of range [0, {n}) in row {i}")
            if k and s[k - 1] == j:
                raise ValueError(f"{owner}: active index {j} repeated in row {i}")
        idx.extend(s)
        ptr.append(len(idx))
    return CSR(np.ones(len(idx), dtype=np.uint8), np.array(idx, dtype=np.int64),
               np.array(ptr, dtype=np.int64), (len(rows), n))


_EXAMPLE = """
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms(encoding="boolean")   # 8124 x 112 one-hot 0/1, y = +1 edible"""

_MULTI_PARAM = """multi_class : {"multiclass", "ovr"}, default="multiclass"
        The rule for three classes or more (two classes always take the binary rule)."""

_JOBS_PARAM = """n_jobs : int or None, default=None
        Threads of the online pass (``fit``, ``partial_fit``): None takes the environment
        variable ``MBCORE_NUM_THREADS`` if set, else every core; -1 every core.  The results are
        the same for any number (exact speculative passes)."""

_RECORD_PARAM = """record_updates : bool, default=False
        Keep the record of updates (``update_record_``): per update, the row's place in the
        training stream and the direction (+1.0 a promotion, -1.0 a demotion; with K >= 3
        classes, +-(k + 1) for class k's weights), one index and one float, so that
        ``mbcore.explain`` can name the promotions and demotions that made each weight.
        ``multi_class="ovr"`` with K >= 3 classes takes no record."""

_MULTI_RULES = """More than two classes (K >= 3; ``classes_`` sorted; one weight vector per class,
    all starting at w0; the class scores are the binary sums with each class's weights, compared
    exactly in exact mode; every argmax takes the smallest index among ties):

    * ``multi_class="multiclass"`` (the default): predict the class of the largest score; on a
      mistake the true class's weights get the false-negative update and the predicted class's
      the false-positive update, on the active features (Mesterharm 1999, "A multi-class linear
      learning algorithm related to Winnow": his Committee rule on attributes).
    * ``multi_class="ovr"``: K binary learners in one compiled pass, learner k on (y = class k)
      by the binary rule above (each with its own threshold decision); the prediction is the
      class of the largest score.  Guarantee: the sum of the K binary bounds
      (``mbcore.bounds.ovr_bound``)."""


class Winnow(_Winnow):
    __doc__ = """Littlestone's Winnow (Winnow2): multiplicative updates for sparse disjunctions.

    Update rule (Angluin lecture 18; Littlestone 1988): all weights start at w0 = 1; predict 1 iff
    Σ_i w_i x_i ≥ θ (θ = n by default).  On a false negative multiply the weights of the active
    features by α (= 2); on a false positive multiply them by β (= 1/α; β = 0 is elimination).
    With ``features="real"`` the factors are α^{x_i} and β^{x_i} (*beyond* the notes).

    Mistake bound (Angluin lecture 18): on a monotone disjunction of k of the n variables,
    at most 2 + 3k(1 + log₂ n) mistakes.  Agnostic (lecture 19): O(A_c + k log n) with A_c the
    attribute errors of the best disjunction c.

    {_MULTI_RULES}

    Multi-class bound (β = 1/α, x in [0, 1]^n): if a nonnegative K x n matrix M whose entries
    sum to 1 has m_y·x − m_k·x ≥ δ for every example and every k ≠ y, the mistakes are at most
    ln(nK) / (δ ln α − ln((α + 1/α)/2)) when that denominator is positive; with
    α = √((1+δ)/(1−δ)) at most 2 ln(nK)/δ² (Mesterharm, Theorems 1-2; the relative-entropy
    proof is in ``mbcore.bounds.multiclass_winnow_bound``).

    Parameters
    ----------
    alpha : float > 1, default=2.0
    beta : float in [0, 1) or None, default=None
        None means 1/alpha.
    theta : float > 0 or None, default=None
        None means n_features (``theta_`` holds the value used).
    w0 : float > 0, default=1.0
    features : {"boolean", "real"}, default="boolean"
        Boolean features must be 0/1 (dense arrays of bool, uint8, int or float; CSR with
        stored 0/1; lists of active indices when ``n_features`` is set).  The compiled pass
        checks each row's values as it reads them, with no sweep over X before it: a value
        outside {0, 1} raises ValueError naming the row and the value, and the call leaves the
        learner as it was.  The one sweep before the pass is over dense unsigned integers wider
        than a byte (uint16/32/64), which the pass reads cast to uint8 (where 256 would be 0).
        The later epochs of ``fit`` read no value again to check it, and in exact mode, over
        CSR whose stored values the first epoch found all to be 1, read the column indices
        alone.
    n_features : int or None, default=None
        Needed for X given as lists of active indices.
    max_epochs : int, default=100
    {_MULTI_PARAM}
    {_JOBS_PARAM}
    {_RECORD_PARAM}

    Attributes
    ----------
    log2_coef_ : ndarray of shape (n_features,), or (K, n_features) with K >= 3 classes
        The exact state: log₂ of each weight (−inf for a weight of 0).
    coef_ : ndarray of shape (n_features,), or (K, n_features) with K >= 3 classes
        The weights as float64 (0 or inf where they leave its range; the state itself does not).
    theta_, mistakes_, updates_, n_seen_, classes_, n_features_in_

    Notes
    -----
    Numerics: weights are stored as base-2 logarithms, so none ever underflows to 0 or
    overflows.  With Boolean features and power-of-two α, β, w0 (the defaults) the logarithms are
    integers: the state is exact for any run length, and the prediction is the exact
    Σ 2^{l_i} ≥ θ, decided by a float64 sum with a rigorous error bound and, within that bound of
    θ, by exact binary addition.  In real mode a NaN score (∞ − ∞, weights past 2^1023 on
    features of both signs) raises ValueError naming the row.  The cost of an example is
    proportional to its active features (CSR rows or index lists).  The twin ``mbref.Winnow``
    follows the same policy.

    ``decision_function`` (scikit-learn's convention) is the score less θ: > 0 exactly where
    the rule predicts ``classes_[1]``, < 0 where it predicts ``classes_[0]``, 0 a tie (predicted
    positive: the rule is ≥ θ).  The score is the float64 sum; where its rounding would give the
    wrong sign (exact mode, within its error bound of θ) the value is 0 (predicted positive) or
    −2^−1074 (predicted negative).  One-vs-rest: column k is learner k's score less θ;
    ``multi_class="multiclass"``: the K class scores.

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import Winnow
    >>> clf = Winnow().partial_fit(X[::2], y[::2])     # train on the even rows
    >>> bool(clf.score(X[1::2], y[1::2]) > 0.9)        # test on the odd rows
    True
    >>> bool((clf.log2_coef_ == clf.log2_coef_.round()).all())   # exact integer state
    True

    Why it predicts what it does on a new mushroom (``mbcore.explain``): the score split over
    the features, and with the record of updates the promotions and demotions that made each
    weight, replayed on the training rows and checked against the log-weights exactly:

    >>> import mbcore
    >>> rec = Winnow(record_updates=True).partial_fit(X[:2000], y[:2000])
    >>> e = mbcore.explain(rec, X[5000], X_train=X[:2000])
    >>> e.check(), e.replay_exact, len(e.extra["promotions"])    # 21 active features
    (True, True, 21)

    Ten classes: the bundled MNIST digits with each pixel on when it is at least half black
    (even rows to learn, odd rows to test):

    >>> from mbcore.datasets import load_mnist
    >>> Xd, yd = load_mnist(encoding="boolean")
    >>> w10 = Winnow().partial_fit(Xd[::2], yd[::2])
    >>> w10.mistakes_, w10.log2_coef_.shape, round(w10.score(Xd[1::2], yd[1::2]), 3)
    (277, (10, 784), 0.522)
    """.replace("{_EXAMPLE}", _EXAMPLE.strip("\n").lstrip()).replace(
        "{_MULTI_RULES}", _MULTI_RULES).replace("{_MULTI_PARAM}", _MULTI_PARAM).replace(
        "{_JOBS_PARAM}", _JOBS_PARAM).replace("{_RECORD_PARAM}", _RECORD_PARAM)

    # bound_params: the parameter values its bound is proved for (beta = 1/alpha counts as
    # beta=None)
    _TAGS = tags(bound="winnow", multi_bound="multiclass winnow",
                 bound_params=dict(alpha=2.0, beta=None, theta=None, w0=1.0,
                                   features="boolean"))

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"alpha": 1.5, "features": "real"}]

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
    __doc__ = """Winnow with demotion to zero (Winnow1; Kanade's Algorithm 4).

    Update rule (Kanade lecture 10, Alg. 4): all weights start at 1; predict 1
    iff Σ_i w_i x_i ≥ n/2.  False negative: w_i ← 2 w_i where x_i = 1; false positive:
    w_i ← 0 where x_i = 1 (those variables are eliminated for good).

    Mistake bound (Kanade Thm 12): on a monotone disjunction of k of the n variables, at most
    2k log₂ n + 2 mistakes.

    {_MULTI_RULES}

    No mistake bound is proved for the "multiclass" rule of this variant.

    Parameters
    ----------
    theta : float > 0 or None, default=None
        None means n_features / 2.
    n_features : int or None, default=None
    max_epochs : int, default=100
    {_MULTI_PARAM}
    {_JOBS_PARAM}
    {_RECORD_PARAM}

    Attributes
    ----------
    log2_coef_, coef_, theta_, mistakes_, updates_, n_seen_, classes_, n_features_in_

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import EliminationWinnow
    >>> clf = EliminationWinnow().partial_fit(X, y)
    >>> int((clf.coef_ == 0).sum()) > 0                 # some variables were eliminated
    True

    Ten classes (the bundled MNIST digits, 0/1 pixels): every mistake eliminates the active
    pixels of the predicted class, so this rule forgets quickly.

    >>> from mbcore.datasets import load_mnist
    >>> Xd, yd = load_mnist(encoding="boolean")
    >>> e10 = EliminationWinnow().partial_fit(Xd[::2], yd[::2])
    >>> e10.mistakes_, e10.log2_coef_.shape
    (417, (10, 784))
    """.replace("{_EXAMPLE}", _EXAMPLE.strip("\n").lstrip()).replace(
        "{_MULTI_RULES}", _MULTI_RULES).replace("{_MULTI_PARAM}", _MULTI_PARAM).replace(
        "{_JOBS_PARAM}", _JOBS_PARAM).replace("{_RECORD_PARAM}", _RECORD_PARAM)

    features = "boolean"

    # bound_params: the parameter values its bound is proved for
    _TAGS = tags(bound="elimination winnow", multi_bound="multiclass winnow",
                 bound_params=dict(theta=None))

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}]

    def __init__(self, theta=None, n_features=None, max_epochs=100, multi_class="multiclass",
                 n_jobs=None, record_updates=False):
        self.theta = theta
        self.n_features = n_features
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs
        self.record_updates = record_updates

    def _alpha(self):
        return 2.0

    def _beta(self):
        return 0.0

    def _w0(self):
        return 1.0

    def _theta(self, d):
        return d / 2.0 if self.theta is None else float(self.theta)


class WinnowStar(_Winnow):
    __doc__ = """Winnow* for drifting targets: demotes only the weights that are at least 1.

    Update rule (Angluin lecture 19): as Winnow2 (promote by α, threshold n), but a false
    positive divides by α only the active weights w_i ≥ 1, so every weight stays ≥ 1/α and the
    learner can follow a target that changes.

    Mistake bound (Angluin lecture 19): against an adversary that adds or removes one variable
    of a target disjunction at cost 1, M ≤ 4 + 5(1 + log₂ 2n)·C_a, with C_a the adversary's
    cost so far (M₀ ≤ 4(1 + M₁), M₁ ≤ (1 + log₂ 2n) C_a).

    {_MULTI_RULES}

    No mistake bound is proved for the "multiclass" rule of this variant.

    Parameters
    ----------
    alpha : float > 1, default=2.0
    theta : float > 0 or None, default=None
        None means n_features.
    n_features : int or None, default=None
    max_epochs : int, default=100
    {_MULTI_PARAM}
    {_JOBS_PARAM}
    {_RECORD_PARAM}

    Attributes
    ----------
    log2_coef_, coef_, theta_, mistakes_, updates_, n_seen_, classes_, n_features_in_

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import WinnowStar
    >>> clf = WinnowStar().partial_fit(X, y)
    >>> bool(clf.coef_.min() >= 0.5)                    # no weight ever falls below 1/alpha
    True

    Ten classes (the bundled MNIST digits, 0/1 pixels), one-vs-rest:

    >>> from mbcore.datasets import load_mnist
    >>> Xd, yd = load_mnist(encoding="boolean")
    >>> s10 = WinnowStar(multi_class="ovr").partial_fit(Xd[::2], yd[::2])
    >>> s10.mistakes_, s10.updates_, round(s10.score(Xd[1::2], yd[1::2]), 3)
    (269, 399, 0.472)
    """.replace("{_EXAMPLE}", _EXAMPLE.strip("\n").lstrip()).replace(
        "{_MULTI_RULES}", _MULTI_RULES).replace("{_MULTI_PARAM}", _MULTI_PARAM).replace(
        "{_JOBS_PARAM}", _JOBS_PARAM).replace("{_RECORD_PARAM}", _RECORD_PARAM)

    _variant = _STAR
    features = "boolean"
    beta = None
    w0 = 1.0

    # bound_params: the parameter values its bound is proved for
    _TAGS = tags(bound="winnow*", multi_bound="multiclass winnow",
                 bound_params=dict(alpha=2.0, theta=None))

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}]

    def __init__(self, alpha=2.0, theta=None, n_features=None, max_epochs=100,
                 multi_class="multiclass", n_jobs=None, record_updates=False):
        self.alpha = alpha
        self.theta = theta
        self.n_features = n_features
        self.max_epochs = max_epochs
        self.multi_class = multi_class
        self.n_jobs = n_jobs
        self.record_updates = record_updates


class BalancedWinnow(_Winnow):
    __doc__ = """Balanced Winnow: positive and negative weights, for targets that are not monotone.

    Update rule (*beyond* the notes; Littlestone 1988, §5): two weight vectors w⁺, w⁻ start at
    w0; predict 1 iff (w⁺ − w⁻)·x ≥ θ.  False negative: w⁺_i ← α w⁺_i and w⁻_i ← w⁻_i / α on the
    active features; false positive: the reverse.  With ``features="real"`` the factors are
    raised to x_i.

    Mistake bound: Littlestone (1988) bounds the balanced variant on linearly separable
    Boolean targets by O(k log n) for k-sparse separators with a margin (constants depend on the
    margin); no bound from the notes applies.

    {_MULTI_RULES}

    Parameters
    ----------
    alpha : float > 1, default=2.0
    theta : float > 0, default=1.0
    w0 : float > 0, default=1.0
    features : {"boolean", "real"}, default="boolean"
    n_features : int or None, default=None
    max_epochs : int, default=100
    {_MULTI_PARAM}
    {_JOBS_PARAM}
    {_RECORD_PARAM}

    Attributes
    ----------
    log2_coef_, log2_coef_neg_ : log₂ of w⁺ and w⁻
    coef_ : w⁺ − w⁻ as float64
    theta_, mistakes_, updates_, n_seen_, classes_, n_features_in_

    Notes
    -----
    Numerics: with Boolean features and power-of-two α and w0 (the defaults) the logarithms are
    integers and the prediction is the exact Σ 2^{l⁺_i} − Σ 2^{l⁻_i} ≥ θ for any number of
    passes: float64 sums of both sides with rigorous error bounds decide almost every row, and
    exact binary sums decide the rows within those bounds of θ (the weights of a long run on
    data that no weights separate grow to 2^±400 and beyond, where a float64 score of
    cancelling terms keeps nothing of the part that decides).  The K-class argmax is exact in
    the same way.  Otherwise (``features="real"``, or α, w0 not powers of two) the score is the
    float64 four-partial-sum of x_i (w⁺_i − w⁻_i), and a score past the float64 range cannot be
    decided: the call raises ValueError naming the row, the learner left as it was.
    ``decision_function`` is that float64 score less θ, its sign the exact rule's (see
    ``Winnow``).  The twin ``mbref.BalancedWinnow`` follows the same policy.

    Examples
    --------
    {_EXAMPLE}
    >>> from mbcore import BalancedWinnow
    >>> clf = BalancedWinnow().fit(X[::2], y[::2])      # epochs until a clean pass
    >>> clf.converged_, bool(clf.score(X[1::2], y[1::2]) > 0.9)
    (True, True)

    Ten classes (the bundled MNIST digits, 0/1 pixels): for two classes Mesterharm's rule is
    this one, and with ten it learns the digits better than the positive-weight rules:

    >>> from mbcore.datasets import load_mnist
    >>> Xd, yd = load_mnist(encoding="boolean")
    >>> b10 = BalancedWinnow().partial_fit(Xd[::2], yd[::2])
    >>> b10.mistakes_, round(b10.score(Xd[1::2], yd[1::2]), 3)
    (238, 0.642)
    """.replace("{_EXAMPLE}", _EXAMPLE.strip("\n").lstrip()).replace(
        "{_MULTI_RULES}", _MULTI_RULES).replace("{_MULTI_PARAM}", _MULTI_PARAM).replace(
        "{_JOBS_PARAM}", _JOBS_PARAM).replace("{_RECORD_PARAM}", _RECORD_PARAM)

    _variant = _BALANCED
    _PARAMETERS = {"theta": Real(0)}       # (its threshold has no default from n)
    _sk_poor_score = False
    beta = None

    _TAGS = tags(multi_bound="multiclass winnow")     # (two classes: none from the notes)

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"w0": 2.0 ** 600}]

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

    def _theta(self, d):
        return float(self.theta)

    @property
    def log2_coef_neg_(self):
        """log2 of each negative weight w-_i."""
        self._check_fitted("log2_coef_neg_")
        return self._matrix(self._ln)

    @property
    def coef_(self):
        """w+ - w- as float64."""
        self._check_fitted("coef_")
        return self._matrix(self._w - self._wn)
