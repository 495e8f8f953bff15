"""Selective sampling: a learner that asks for a label only when it is unsure (twin of
``mbcore.selective``).

The selective-sampling Perceptron of Cesa-Bianchi, Gentile and Zaniboni (2006, "Worst-case
analysis of selective sampling for linear classification", JMLR 7), around a linear learner of
``mbref.linear`` (its rule unchanged):

* on each row x the learner's score p (``decision_function``) gives the prediction sign(p);
* a coin with heads probability b / (b + |p|) is tossed (u < b / (b + |p|), u uniform from the
  seeded splitmix64 generator, one draw per row, asked or not);
* on heads the label is asked for and the learner takes the row as its rule says (the
  Perceptron updates on a mistake); on tails the row is not learned from.

With K >= 3 classes the coin's margin is the gap between the two highest of the K values the
learner predicts the argmax of (one-vs-rest: its K binary decision values; multiclass: its K
scores), and an asked row is the learner's K-class step.

``adaptive=True`` is the paper's adaptive variant: b_t = b X_t^2 sqrt(1 + K_t), with X_t^2 the
largest squared norm of a row seen so far (this one included; the rows as the learner sees
them: the intercept's 1 included) and K_t the learner's updates before the row.  The coin's
probability is 1 when b_t + margin is 0 (only zero rows seen so far) or b_t overflowed.

``query="bbq"`` is BBQ (Cesa-Bianchi, Gentile & Orabona 2009, "Robust bounds for
classification via selective sampling"): around the second-order Perceptron with the full
correlation matrix A (``covariance="full"``; ``update="every"`` makes it the paper's regularized
least squares), the row is asked for iff r_t = chi / (1 + chi) > t^-kappa, with
chi = x'^T A^-1 x' (A before the row: r_t = x'^T (A + x' x'^T)^-1 x') and t the rows seen so far,
this one included (1, 2, ...; ``pow(t, -kappa)``); with K >= 3 classes (one-vs-rest) chi is the
largest of the K learners'.  No coin: the generator is not drawn from; b and adaptive are not
used (adaptive must be False).

Labels: an array-like as for ``partial_fit`` (a simulation: only the asked labels are learned
from, every row's mistake is counted), or a callable ``y(i)`` returning the label of row i of
this call, called for the asked rows only (the other rows' mistakes are unknown).
"""

import copy
import math

from . import _arith
from ._rng import SplitMix64
from ._additive import _argmax
from .base import NotFittedError, check_labels, check_labels_k, check_rows, infer_classes
from .linear import MarginPerceptron, OnlineHingeSVM, PassiveAggressive, Perceptron
from .second_order import AROW, NAROW, NHERD, SCW, ConfidenceWeighted, SecondOrderPerceptron

__all__ = ["SelectiveSampler", "SelectiveRun"]

_TAKES = (Perceptron, MarginPerceptron, OnlineHingeSVM, PassiveAggressive,
          SecondOrderPerceptron, AROW, ConfidenceWeighted, SCW, NHERD, NAROW)
_BINARY_ONLY = (SecondOrderPerceptron, AROW, ConfidenceWeighted, SCW, NHERD, NAROW)


class SelectiveRun:
    """The record of a selective run: ``predictions``, ``asked`` (bools), ``errors`` (bools, or
    None where the label was not asked and not given), ``updated``; ``labels_asked``,
    ``mistakes`` (on the rows whose label is known), ``updates``, ``n``."""

    __slots__ = ("predictions", "asked", "errors", "updated", "labels_asked", "mistakes",
                 "updates", "n")

    def __init__(self, predictions, asked, errors, updated):
        self.predictions = list(predictions)
        self.asked = [bool(a) for a in asked]
        self.errors = list(errors)
        self.updated = [bool(u) for u in updated]
        self.n = len(self.asked)
        self.labels_asked = sum(self.asked)
        self.mistakes = sum(1 for e in self.errors if e)
        self.updates = sum(self.updated)

    def __repr__(self):
        return (f"SelectiveRun(n={self.n}, labels_asked={self.labels_asked}, "
                f"mistakes={self.mistakes}, updates={self.updates})")


class SelectiveSampler:
    """Selective sampling around a binary linear learner (twin of
    ``mbcore.SelectiveSampler``)."""

    def __init__(self, learner=None, b=1.0, adaptive=False, random_state=0, query="margin",
                 kappa=0.5):
        self.learner = learner
        self.b = b
        self.adaptive = adaptive
        self.random_state = random_state
        self.query = query
        self.kappa = kappa

    # -- parameters ---------------------------------------------------------------------------
    def _validate_params(self):
        own = type(self).__name__
        L = self.learner
        if L is not None and type(L) not in _TAKES:
            raise TypeError(f"{own}: parameter learner must be one of "
                            f"{[c.__name__ for c in _TAKES]} (a linear learner), got "
                            f"{type(L).__name__}")
        if getattr(L, "class_weight", None) is not None:
            raise ValueError(f"{own}: the learner's class_weight is not taken (the sampler asks "
                             "for labels, it does not weight them); leave it None")
        b = self.b
        if isinstance(b, bool) or not isinstance(b, (int, float)) or not math.isfinite(b) or \
                b <= 0:
            raise ValueError(f"{own}: parameter b must be a finite real > 0, got {b!r}")
        if not isinstance(self.adaptive, bool):
            raise ValueError(f"{own}: parameter adaptive must be a bool, got {self.adaptive!r}")
        r = self.random_state
        if isinstance(r, bool) or not isinstance(r, int) or r < 0:
            raise ValueError(f"{own}: parameter random_state must be an integer >= 0, got "
                             f"{r!r}")
        if self.query not in ("margin", "bbq"):
            raise ValueError(f"{own}: parameter query must be 'margin' or 'bbq', got "
                             f"{self.query!r}")
        k = self.kappa
        if isinstance(k, bool) or not isinstance(k, (int, float)) or not 0 <= k <= 1:
            raise ValueError(f"{own}: parameter kappa must be a real in [0, 1], got {k!r}")
        if self.query == "bbq":
            for L in (L, self.__dict__.get("_L")):      # (the parameter, the trained copy)
                if L is not None and not (type(L) is SecondOrderPerceptron and
                                          L.covariance == "full"):
                    raise ValueError(f"{own}: query='bbq' takes a SecondOrderPerceptron with "
                                     f"covariance='full' (its correlation matrix), got {L!r}")
            if self.adaptive:
                raise ValueError(f"{own}: query='bbq' has no adaptive form; leave adaptive "
                                 "False")

    def _inner(self):
        if "_L" not in self.__dict__:
            self._L = copy.deepcopy(self.learner) if self.learner is not None else (
                SecondOrderPerceptron(covariance="full", update="every")
                if self.query == "bbq" else Perceptron())
            self._rng = SplitMix64(self.random_state)
            self._x2 = 0.0
            self.n_seen_ = 0
            self.labels_asked_ = 0
            self.mistakes_ = 0
            self.updates_ = 0
        return self._L

    @property
    def learner_(self):
        """The learner being trained (a copy of ``learner``)."""
        if "_L" not in self.__dict__ or getattr(self._L, "classes_", None) is None:
            raise NotFittedError(f"{type(self).__name__}: call partial_fit before learner_")
        return self._L

    @property
    def classes_(self):
        return self.learner_.classes_

    # -- the pass -----------------------------------------------------------------------------
    def _sqnorm(self, L, x):
        """||x'||^2 of the row as the learner sees it (its intercept's 1 included; 1 when the
        learner scales rows to unit length)."""
        if L._normalizes():
            return 1.0
        s = _arith.sumsq(x)
        return s + 1.0 if L.fit_intercept else s

    def partial_fit(self, X, y, classes=None):
        """One selective pass over the rows; returns self."""
        self._pass(X, y, classes)
        return self

    def run_online(self, X, y, classes=None):
        """One selective pass over the rows, recorded: a :class:`SelectiveRun`."""
        return self._pass(X, y, classes)

    def _pass(self, X, y, classes):
        self._validate_params()
        L = self._inner()
        own = type(self).__name__
        if getattr(L, "record_updates", False):
            raise ValueError(f"{type(L).__name__}: parameter record_updates is True, but "
                             "selective sampling does not record updates; set "
                             "record_updates=False")
        first = getattr(L, "classes_", None) is None
        ask_fn = y if callable(y) else None
        if first:
            if ask_fn is not None and classes is None:
                raise ValueError(f"{own}: with labels given by a callable, pass classes= on "
                                 "the first call")
            cl = infer_classes(own, [] if ask_fn is not None else y, classes,
                               max_classes=None)
        else:
            cl = list(L.classes_)
        if len(cl) >= 3 and isinstance(L, _BINARY_ONLY) and L.multi_class != "ovr":
            raise ValueError(f"{own}: {type(L).__name__} with K classes is sampled one-vs-rest "
                             "only: multi_class='ovr'")
        rows, _ = check_rows(own, X, None if first else L.n_features_in_)
        n = len(rows)
        labels = check_labels_k if len(cl) >= 3 else check_labels
        yy = None if ask_fn is not None else labels(own, y, n, cl)
        saved = (copy.deepcopy(L.__dict__), self._rng.state, self._x2, self.n_seen_,
                 self.labels_asked_, self.mistakes_, self.updates_)
        try:
            if first:       # the learner's state, from the rows and the classes (no label)
                L._prepare(X, [cl[0]] * n, cl)
            return self._rows(L, rows, yy, ask_fn, cl)
        except BaseException:
            (d, self._rng.state, self._x2, self.n_seen_, self.labels_asked_, self.mistakes_,
             self.updates_) = saved
            L.__dict__.clear()
            L.__dict__.update(d)
            raise

    def _margin(self, L, x, i, multi):
        """(prediction, margin of the coin): the sign of the score and |score|, or with K >= 3
        classes the argmax of the values the rule predicts from (ties to the first class) and
        the gap between the two highest."""
        own = type(self).__name__
        if multi:
            v = L._rule_scores(x)
            if not all(math.isfinite(t) for t in v):
                raise ValueError(f"{own}: X contains NaN or infinity in row {i} (or a score "
                                 "overflowed); the learner was left as before the call")
            p = _argmax(v)
            return p, v[p] - v[_argmax(v, skip=p)]
        s = L._score(x)
        if not math.isfinite(s):
            raise ValueError(f"{own}: X contains NaN or infinity in row {i} (or a score "
                             "overflowed); the learner was left as before the call")
        return L._sign(s), abs(s)

    def _chi(self, L, x, multi):
        """BBQ's chi = x'^T A^-1 x' (the largest of the K learners' with K >= 3 classes)."""
        if multi:
            return max(L._predictive(L._slot(k), x)[2] for k in range(L._K))
        return L._predictive(L._slot(), x)[2]

    def _rows(self, L, rows, yy, ask_fn, cl):
        own = type(self).__name__
        multi = len(cl) >= 3
        labels = check_labels_k if multi else check_labels
        preds, asked, errors, updated = [], [], [], []
        L._last_labels = []
        L._sw = None
        for i, x in enumerate(rows):
            p, margin = self._margin(L, x, i, multi)
            if self.query == "bbq":
                chi = self._chi(L, x, multi)
                ask = chi / (1.0 + chi) > math.pow(float(self.n_seen_ + 1), -float(self.kappa))
            else:
                b = self.b
                if self.adaptive:
                    self._x2 = max(self._x2, self._sqnorm(L, x))
                    b = b * self._x2 * math.sqrt(1.0 + L.updates_)
                u0 = self._rng.uniform()
                # (b_t + margin = 0: only zero rows seen, adaptive; b_t infinite: ask)
                ask = True if (b == math.inf or b + margin == 0.0) else u0 < b / (b + margin)
            u = False
            if ask:
                if ask_fn is not None:
                    yi = labels(own, [ask_fn(i)], 1, cl)[0]
                else:
                    yi = yy[i]
                L.n_seen_ += 1
                p2, u = L._step(x, yi, i)
                assert p2 == p
                if p != yi:
                    L.mistakes_ += 1
                if u:
                    L.updates_ += 1
                    self.updates_ += 1
                self.labels_asked_ += 1
                err = p != yi
            else:
                err = None if yy is None else p != yy[i]
            if err:
                self.mistakes_ += 1
            self.n_seen_ += 1
            preds.append(cl[p] if multi else (cl[1] if p > 0 else cl[0]))
            asked.append(ask)
            errors.append(err)
            updated.append(u)
        return SelectiveRun(preds, asked, errors, updated)

    def decision_function(self, X):
        return self.learner_.decision_function(X)

    def predict(self, X):
        return self.learner_.predict(X)
