"""What the additive family's twins share (``mbref.linear``, ``mbref.kernel`` and
``mbref.second_order``): the parameter checks, the tie rule's domain, the argmax of the
multi-class rules, and ``_Linear``, the base of the linear learners (importable from
``mbref.linear`` too, as mbcore's ``_Linear`` lives in ``mbcore._additive``)."""

import math
import numbers

from . import _arith
from .base import (ManyClasses, OnlineLearner, check_class_weight, check_n_jobs, check_rows,
                   keep_on_failure, row_weights)

_TIES = ("negative", "positive")


def _check_choice(owner, name, value, choices):
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{owner}: parameter {name} must be one of {list(choices)}, got {value!r}")


def _check_real(owner, name, value, low=None, high=None, low_open=True, high_open=False):
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and \
        math.isfinite(float(value))
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        lo = "" if low is None else ("(" if low_open else "[") + str(low)
        hi = "" if high is None else str(high) + (")" if high_open else "]")
        rng = f" in {lo}, {hi}" if low is not None and high is not None else (
            f" > {low}" if low is not None and low_open else
            f" >= {low}" if low is not None else "")
        raise ValueError(f"{owner}: parameter {name} must be a finite real{rng}, got {value!r}")


def _argmax(scores, skip=None):
    """The smallest index k (k != skip) with the largest score: scan k = 0..K-1, replacing the
    best only on a strictly greater score."""
    best = None
    for k, v in enumerate(scores):
        if k == skip:
            continue
        if best is None or v > scores[best]:
            best = k
    return best


def _check_int(owner, name, value, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{owner}: parameter {name} must be an integer >= {low}, got {value!r}")


class _Linear(ManyClasses, OnlineLearner):
    """Shared state and score of the linear learners: w (with the intercept at index d); with
    K >= 3 classes, W = one such vector per class."""

    _scale_a = False
    _MULTI_STATE = ("_W", "_a")      # the state with K >= 3 classes
    _DICT_FEATURES = "grow"          # learn_one: a new name is a new column (mbref._one)

    def _widened(self, w, d):
        """w = [w_0 .. w_{d0-1}, (intercept)] with zeros for the features d0 .. d-1."""
        d0 = self._d
        return w[:d0] + [0.0] * (d - d0) + w[d0:]

    def _grow_features(self, d):
        """learn_one: widen the state to d features, the new weights zero (new lists: the
        caller puts the old objects back if the step fails)."""
        if self._multi():
            self._W = [self._widened(w, d) for w in self._W]
        else:
            self._w = self._widened(self._w, d)
        self._d = d
        self.n_features_in_ = d

    # Sample weights (mbcore.linear): the coefficient c the rule adds (times x) is multiplied
    # by the row's weight s last, c = c * s; a row of weight 0 that would update does not
    # (the Hinge learner's shrink, which is not the row's, still applies).
    _WEIGHTED = True

    def _row_weights(self, sample_weight, yy, n, fitting):
        return row_weights(self, sample_weight, yy, n, fitting)

    def _validate_params(self):
        if hasattr(self, "n_jobs"):
            check_n_jobs(self._owner, self.n_jobs)
        _check_choice(self._owner, "tie", self.tie, _TIES)
        _check_int(self._owner, "max_epochs", self.max_epochs, 1)
        if not isinstance(self.fit_intercept, bool):
            raise ValueError(f"{self._owner}: parameter fit_intercept must be a bool, got "
                             f"{self.fit_intercept!r}")
        if not isinstance(self.record_updates, bool):
            raise ValueError(f"{self._owner}: parameter record_updates must be a bool, got "
                             f"{self.record_updates!r}")
        _check_choice(self._owner, "multi_class", self.multi_class, ("multiclass", "ovr"))
        check_class_weight(self._owner, "class_weight", self.class_weight)
        w = self._W[0] if self._multi() else getattr(self, "_w", None)
        if w is not None and len(w) != self._d + (1 if self.fit_intercept else 0):
            raise ValueError(f"{self._owner}: parameter fit_intercept was changed to "
                             f"{self.fit_intercept!r} after fitting; call fit, or clone the "
                             "learner, to start again with it")

    def _init_state(self, d):
        self._d = d
        self._K = len(self.classes_)
        w = [0.0] * (d + (1 if self.fit_intercept else 0))
        init = getattr(self, "_w_init", None)
        if self._K > 2:
            if init is not None:
                rows = init if all(isinstance(r, list) for r in init) else [init]
                width = len(rows[0]) - (1 if self.fit_intercept else 0)
                if len(rows) != self._K or any(len(r) != len(w) for r in rows):
                    raise ValueError(f"{self._owner}: coef_init has shape ({len(rows)}, "
                                     f"{width}), expected ({self._K}, {d}) (one row per class)")
                self._W = [list(r) for r in rows]
            else:
                self._W = [list(w) for _ in range(self._K)]
            self._w = None
            self._a = 1.0
            return
        if init is not None:
            if len(init) != len(w):
                raise ValueError(f"{self._owner}: coef_init has {len(init) - len(w) + d} values, "
                                 f"X has {d} features")
            w = list(init)
        self._w = w
        self._a = 1.0

    def _state_dict(self):
        if self._multi():
            return {k: getattr(self, k) for k in self._MULTI_STATE}
        return {"w": self._w, "a": self._a}

    def _load_state_dict(self, s):
        if self._multi():
            for k in self._MULTI_STATE:
                setattr(self, k, s[k])
            return
        self._w, self._a = s["w"], s["a"]

    def _normalizes(self):
        return self.normalize

    def _inv(self, x):
        return _arith.row_inv(x, self.fit_intercept)

    def _raw(self, w, a, x, inv):
        s = a * _arith.dot(w, x)
        if self.fit_intercept:
            s = s + w[self._d]
        if self._normalizes():
            s = s * inv
        return s

    def _score(self, x):
        inv = self._inv(x) if self._normalizes() else 1.0
        return self._raw(self._w, self._a, x, inv)

    def _apply(self, w, c, x):
        ok = _arith.axpy(w, c, x)
        if self.fit_intercept:
            w[self._d] = w[self._d] + c
            ok = ok and math.isfinite(w[self._d])
        if self.__dict__.get("_rec") is not None:       # (the weights, not an accumulator)
            if w is self._w:
                self._rec_note(-1, c)
            elif self._w is None:
                for k, wk in enumerate(self._W):
                    if wk is w:
                        self._rec_note(k, c)
        return ok

    # -- the record of updates (mbcore._additive: record_updates=True) ----------------------
    record_updates = False

    def _rec_note(self, k, c):
        """Record an update of coefficient c (class k, -1 with two classes) at this row."""
        r = self._rec
        r["idx"].append(self.n_seen_ - 1)
        r["coef"].append(c)
        if k >= 0:
            r["cls"].append(k)

    def _flat(self, rows):
        """Per-class vectors (K lists of D) as mbcore's flat feature-major D * K list."""
        return [rows[k][j] for j in range(len(rows[0])) for k in range(len(rows))]

    def _rec_sync(self):
        """Start the record (from the weights as they are) or drop it, as record_updates says;
        returns whether to record."""
        if not self.record_updates:
            self.__dict__.pop("_rec", None)
            return False
        if self.__dict__.get("_rec") is None:
            multi = self._multi()
            w0 = self._flat(self._W) if multi else list(self._w)
            u0 = []
            if getattr(self, "_U", None) is not None and multi:
                u0 = self._flat(self._U)
            elif getattr(self, "_u", None) is not None and not multi:
                u0 = list(self._u)
            self._rec = {"idx": [], "coef": [], "cls": [], "w0": w0, "u0": u0,
                         "a0": float(self._a), "t": [self.n_seen_, 0, 0]}
        return True

    def _run(self, rows, yy, sw=None):
        if not self._rec_sync():
            return super()._run(rows, yy, sw)
        r = self._rec
        n = (len(r["idx"]), len(r["cls"]))
        try:
            return super()._run(rows, yy, sw)
        except BaseException:
            del r["idx"][n[0]:], r["coef"][n[0]:], r["cls"][n[1]:]
            raise

    def _epochs(self, rows, yy, sw=None):
        if self._rec_sync():
            self._rec["t"][1:] = [len(rows), self.n_seen_]
        return super()._epochs(rows, yy, sw)

    def _explain_record(self):
        """(start, index, feature coefficient, intercept coefficient or None, class or None,
        row, roundings): mbcore._additive._Linear._explain_record."""
        r = self.__dict__.get("_rec")
        if r is None:
            return None
        t0, period, tf = r["t"]
        rows = [((i - tf) % period if i >= tf else i) if period else i for i in r["idx"]]
        start, cf, ci, extra = self._rec_effective(r)
        return (start, r["idx"], cf, ci, (list(r["cls"]) if self._multi() else None), rows,
                extra)

    def _rec_effective(self, r):
        return list(r["w0"]), list(r["coef"]), None, 0

    def _cycle_key(self):
        if self._multi():
            return tuple(v for w in self._W for v in w)
        return tuple(self._w)

    @property
    def coef_(self):
        self._check_fitted("coef_")
        if self._multi():
            return [self._coef_row(w) for w in self._W]
        return [self._a * v for v in self._w[:self._d]] if self._scale_a else self._w[:self._d]

    @property
    def intercept_(self):
        self._check_fitted("intercept_")
        if self._multi():
            return [w[self._d] if self.fit_intercept else 0.0 for w in self._W]
        return self._w[self._d] if self.fit_intercept else 0.0

    def _coef_row(self, w):
        return [self._a * v for v in w[:self._d]] if self._scale_a else w[:self._d]

    # -- attributions (mbref.explain) -----------------------------------------------------
    def _explanation(self, x, X_train):
        from .explain import additive
        return additive(self, x, X_train)

    def _explain_post(self, x):
        """(multiplier, divisor): 1/||x'|| under normalisation (||x'||^2 summed exactly)."""
        if not self._normalizes():
            return None, None
        ss = math.fsum(v * v for v in x) + (1.0 if self.fit_intercept else 0.0)
        return (1.0 / math.sqrt(ss) if ss > 0.0 else 0.0), None

    # -- three classes or more ------------------------------------------------------------
    def _step_multi(self, x, y, i):
        """One row with K >= 3 classes (y a class index): the rule of multi_class."""
        if self.multi_class == "ovr":
            return self._step_ovr(x, y, i)
        return self._step_mc(x, y, i)

    def _class_scores(self, W, x, inv, i=None):
        """s_k = the binary score with w_k, k = 0..K-1; a non-finite one is a bad row i."""
        s = [self._raw(w, self._a, x, inv) for w in W]
        if i is not None and not all(math.isfinite(v) for v in s):
            raise self._row_error(i)
        return s

    def _hypothesis(self):
        """The weight vectors predict uses."""
        return self._W

    def _rule_scores(self, x):
        """The scores whose argmax the online rule predicts (no state change)."""
        inv = self._inv(x) if self._normalizes() else 1.0
        return self._class_scores(self._hypothesis(), x, inv)

    def _decision_scores(self, x):
        """The K columns of decision_function for a row."""
        return self._rule_scores(x)

    def _multi_rows(self, X, scores):
        self._check_fitted("predict")
        self._validate_params()
        rows, _ = check_rows(self._owner, X, self.n_features_in_)
        out = []
        for i, x in enumerate(rows):
            s = scores(x)
            if not all(math.isfinite(v) for v in s):
                raise ValueError(f"{self._owner}: NaN or infinity in row {i} (X contains NaN or "
                                 "infinity)")
            out.append(s)
        return out

    def decision_function(self, X):
        """The real-valued score of each row; with K >= 3 classes, a list of K scores per row
        (no state change)."""
        if not self._multi():
            return super().decision_function(X)
        return self._multi_rows(X, self._decision_scores)

    def predict(self, X):
        """The predicted label of each row; with K >= 3 classes, classes_[argmax] of the scores
        of the online rule (no state change)."""
        if not self._multi():
            return super().predict(X)
        return [self.classes_[_argmax(s)] for s in self._multi_rows(X, self._rule_scores)]

    def fit(self, X, y, classes=None, coef_init=None, intercept_init=None, sample_weight=None):
        """Reset (optionally to given weights ``coef_init``/``intercept_init``), then cycle
        through the data until a pass with no update or ``max_epochs``."""
        with keep_on_failure(self):
            self._reset()
            init = None
            if coef_init is not None and len(coef_init) and hasattr(coef_init[0], "__len__"):
                # one row per class (K >= 3): the rows, each with its intercept appended
                b = [0.0] * len(coef_init) if intercept_init is None else \
                    [float(v) for v in intercept_init]
                if self.fit_intercept and len(b) != len(coef_init):
                    raise ValueError(f"{self._owner}: intercept_init has {len(b)} values, "
                                     f"expected {len(coef_init)} (one per class)")
                init = [[float(v) for v in r] + ([b[k]] if self.fit_intercept else [])
                        for k, r in enumerate(coef_init)]
            elif coef_init is not None:
                init = [float(v) for v in coef_init]
                if self.fit_intercept:
                    init.append(float(intercept_init or 0.0))
            self._w_init = init
            try:
                rows, yy = self._prepare(X, y, classes)
            finally:
                self._w_init = None
            self._epochs(rows, yy, self._row_weights(sample_weight, yy, len(rows), True))
        return self
