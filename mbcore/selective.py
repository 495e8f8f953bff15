"""Selective sampling: a learner that asks for a label only when it is unsure.

:class:`SelectiveSampler` wraps a binary linear learner of :mod:`mbcore.linear` and runs the
selective-sampling rule of Cesa-Bianchi, Gentile and Zaniboni (2006) around it, one compiled
pass per call (the twin: ``mbref.selective``).
"""

import math

import numpy as np

from ._locking import Guarded
from ._validation import NotFittedError, is_sparse, row_error
from .base import Snapshot, clone
from .linear import MarginPerceptron, OnlineHingeSVM, PassiveAggressive, Perceptron
from .second_order import (AROW, NAROW, NHERD, SCW, ConfidenceWeighted,
                           SecondOrderPerceptron)

__all__ = ["SelectiveSampler", "SelectiveRun"]

_TAKES = (Perceptron, MarginPerceptron, OnlineHingeSVM, PassiveAggressive,
          SecondOrderPerceptron, AROW, ConfidenceWeighted, SCW, NHERD, NAROW)
_BAD = {3: "a column index out of range", 4: "unsorted or duplicate column indices"}


class SelectiveRun:
    """The record of a selective run (:meth:`SelectiveSampler.run_online`).

    Attributes
    ----------
    predictions : ndarray
        The label predicted for each row before anything about its label was known.
    asked : ndarray of bool
        Whether the row's label was asked for.
    errors : ndarray of float
        1.0 for a mistake, 0.0 for a right prediction, NaN where the label was neither asked
        for nor given (labels from a callable).
    updated : ndarray of bool
        Whether the learner's state changed on the row (only asked rows can change it).
    scores : ndarray of float
        The learner's score of each row before the row; with three classes or more, shape
        (n, K): the K values whose argmax the learner predicts (one-vs-rest: the K binary
        decision values).
    labels_asked, mistakes, updates, n : int
        Totals: the labels asked for, the mistakes on the rows whose label is known, the
        updates, the rows.
    """

    __slots__ = ("predictions", "asked", "errors", "updated", "scores", "labels_asked",
                 "mistakes", "updates", "n")

    def __init__(self, predictions, asked, errors, updated, scores):
        self.predictions = predictions
        self.scores = scores
        self.asked = np.asarray(asked, dtype=bool)
        self.errors = np.asarray(errors, dtype=np.float64)
        self.updated = np.asarray(updated, dtype=bool)
        self.n = int(self.asked.shape[0])
        self.labels_asked = int(self.asked.sum())
        self.mistakes = int(np.nansum(self.errors))
        self.updates = int(self.updated.sum())

    def __repr__(self):
        return (f"SelectiveRun(n={self.n}, labels_asked={self.labels_asked}, "
                f"mistakes={self.mistakes}, updates={self.updates})")


class SelectiveSampler(Guarded):
    """Selective sampling (Cesa-Bianchi, Gentile & Zaniboni 2006): a linear learner that asks
    for a row's label with probability b / (b + abs(p)), p its score on the row.

    On each row x the learner predicts sign(p), p = ``learner.decision_function(x)``; a coin
    with heads probability b / (b + abs(p)) is tossed (u < b / (b + abs(p)) for u uniform from the
    seeded splitmix64 generator: one draw per row, asked or not, so a seeded run replays
    exactly); on heads the label is asked for and the learner takes the row as its own rule
    says (the Perceptron updates on a mistake); on tails the row is not learned from. The
    smaller b, the fewer labels: rows far from the boundary (large abs(p)) are rarely asked.

    With three classes or more (``classes_``), the coin's margin is the gap between the two
    highest of the K values the learner predicts the argmax of (one-vs-rest: its K binary
    decision values; ``multi_class="multiclass"``: its K scores): one coin per row, and an
    asked row is the learner's K-class step (every class's learner, one-vs-rest).

    With ``adaptive=True`` (the paper's adaptive variant) the coin uses
    b_t = b X_t^2 sqrt(1 + K_t), X_t^2 the largest squared norm of a row seen so far (this one
    included, as the learner sees it: its intercept's 1 included, 1 for a learner that scales
    rows to unit length) and K_t the learner's updates before the row; the coin's probability
    is 1 when b_t + margin is 0 (only zero rows seen so far) or b_t overflowed.

    BBQ (``query="bbq"``; Cesa-Bianchi, Gentile & Orabona 2009, "Robust bounds for
    classification via selective sampling", ICML): no coin; the row is asked for iff
    r_t = chi / (1 + chi) > t^-kappa, chi = x'^T A^-1 x' under the second-order Perceptron's
    full correlation matrix A before the row (r_t = x'^T (A + x' x'^T)^-1 x', the variance
    of its regularized least squares estimate on the row) and t the rows seen so far, this one
    included. Directions the asked rows have not covered are asked; covered ones, less and
    less as t grows. The learner is a ``SecondOrderPerceptron(covariance="full")``, by
    default with ``update="every"`` (the paper's regularized least squares, which learns from
    every asked row); with K classes (one-vs-rest) chi is the largest of the K learners'.
    Smaller kappa, fewer labels (kappa = 0 asks for none: r_t < 1). The paper bounds the
    labels asked by O(d t^kappa log t) and the regret against the Bayes-optimal margin under
    a linear noise model; no bound is certified here.

    Expected mistake bound (the paper's Theorem 1, the Perceptron with fixed b): over any
    sequence of rows of norm at most R and any u, E[mistakes] <= (1 + R^2 / (2b)) L(u) +
    (2b + R^2)^2 ||u||^2 / (8b), L(u) the hinge losses max(0, 1 - y u . x) summed over the
    rows (:func:`mbcore.bounds.selective_sampling_bound`). At b = R^2 / 2 with L(u) = 0 it is
    the Perceptron's (R / gamma)^2: the labels saved cost nothing in the worst case.

    Parameters
    ----------
    learner : a linear learner, default=None
        ``Perceptron``, ``MarginPerceptron``, ``OnlineHingeSVM`` or ``PassiveAggressive``, or a
        second-order learner: ``SecondOrderPerceptron`` (the paper's second-order selective
        sampler), ``AROW``, ``ConfidenceWeighted``, ``SCW``, ``NHERD``, ``NAROW`` (with K
        classes one-vs-rest, ``multi_class="ovr"``); its ``class_weight`` must be None.  A
        copy is trained; None: ``Perceptron()`` (with ``query="bbq"``:
        ``SecondOrderPerceptron(covariance="full", update="every")``).
    b : float > 0, default=1.0
        The query parameter.
    adaptive : bool, default=False
        The adaptive variant (b scaled by X_t^2 sqrt(1 + K_t)).
    random_state : int >= 0, default=0
        The seed of the generator (its state is kept: later calls continue the stream).
    query : {"margin", "bbq"}, default="margin"
        The coin of Cesa-Bianchi, Gentile & Zaniboni, or BBQ's deterministic query (``b``,
        ``adaptive`` and the generator unused).
    kappa : float in [0, 1], default=0.5
        BBQ's exponent (``query="bbq"``).

    Attributes
    ----------
    learner_ : the learner being trained
    classes_ : ndarray of its classes
    n_seen_, labels_asked_, mistakes_, updates_ : int
        Rows seen, labels asked for, mistakes on the rows whose label was known (every row
        when ``y`` is an array), updates of the learner.

    Labels: ``y`` is an array-like as for ``partial_fit`` (a simulation: only the asked labels
    are learned from, every row's mistake is counted), or a callable ``y(i)`` that returns the
    label of row i of the call and is called for the asked rows only, in order (the other
    rows' mistakes are unknown); ``classes=`` is then needed on the first call. A call that
    raises (a bad row, a label outside the classes, the callable's own exception) leaves the
    sampler, its learner and its generator as they were.

    Threads: a sampler has its own readers-writer lock, as every learner: ``partial_fit``,
    ``run_online`` and ``set_params`` are exclusive (the draws of one call are in order, and a
    call is all or nothing), ``predict``, ``decision_function`` and the fitted attributes are
    shared reads.  Its ``learner_`` keeps its own lock.

    Examples
    --------
    >>> from mbcore import Perceptron, SelectiveSampler
    >>> from mbcore.datasets import load_a9a
    >>> X, y = load_a9a()[:2]
    >>> run = SelectiveSampler(Perceptron(), b=10.0).run_online(X[:4000], y[:4000])
    >>> run.labels_asked < 4000 // 2, run.mistakes < 1000
    (True, True)
    """

    _WRITES = Guarded._WRITES | {"run_online"}

    _NAMES = ("learner", "b", "adaptive", "random_state", "query", "kappa")

    def __init__(self, learner=None, b=1.0, adaptive=False, random_state=0, query="margin",
                 kappa=0.5):
        self.learner = learner
        self.b = b
        self.adaptive = adaptive
        self.random_state = random_state
        self.query = query
        self.kappa = kappa

    # -- parameters -----------------------------------------------------------------------------
    def get_params(self, deep=True):
        """The constructor parameters, as a dict."""
        return {k: getattr(self, k) for k in self._NAMES}

    def set_params(self, **params):
        """Set constructor parameters; returns self (they take effect at the next reset,
        ``mbcore.clone``, except ``b`` and ``adaptive``, read by every call)."""
        for k, v in params.items():
            if k not in self._NAMES:
                raise ValueError(f"SelectiveSampler: invalid parameter {k!r}; valid parameters "
                                 f"are {sorted(self._NAMES)}")
            setattr(self, k, v)
        return self

    def __repr__(self):
        return "SelectiveSampler(" + ", ".join(f"{k}={getattr(self, k)!r}"
                                               for k in self._NAMES) + ")"

    def _validate_params(self):
        L = self.learner
        if L is not None and type(L) not in _TAKES:
            raise TypeError(f"SelectiveSampler: parameter learner must be one of "
                            f"{[c.__name__ for c in _TAKES]} (a linear learner), got "
                            f"{type(L).__name__}")
        if getattr(L, "class_weight", None) is not None:
            raise ValueError("SelectiveSampler: the learner's class_weight is not taken (the "
                             "sampler asks for labels, it does not weight them); leave it None")
        b = self.b
        if isinstance(b, (bool, np.bool_)) or not isinstance(b, (int, float, np.integer,
                                                                 np.floating)) \
                or not math.isfinite(b) or b <= 0:
            raise ValueError(f"SelectiveSampler: parameter b must be a finite real > 0, got "
                             f"{b!r}")
        if not isinstance(self.adaptive, (bool, np.bool_)):
            raise ValueError(f"SelectiveSampler: parameter adaptive must be a bool, got "
                             f"{self.adaptive!r}")
        r = self.random_state
        if isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, np.integer)) or r < 0:
            raise ValueError(f"SelectiveSampler: parameter random_state must be an integer "
                             f">= 0, got {r!r}")
        if self.query not in ("margin", "bbq"):
            raise ValueError(f"SelectiveSampler: parameter query must be 'margin' or 'bbq', got "
                             f"{self.query!r}")
        k = self.kappa
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, float, np.integer,
                                                                 np.floating)) \
                or not 0 <= k <= 1:
            raise ValueError(f"SelectiveSampler: parameter kappa must be a real in [0, 1], got "
                             f"{k!r}")
        if self.query == "bbq":
            for L in (L, self.__dict__.get("_L")):      # (the parameter, the trained copy)
                if L is not None and not (type(L) is SecondOrderPerceptron and
                                          L.covariance == "full"):
                    raise ValueError("SelectiveSampler: query='bbq' takes a "
                                     "SecondOrderPerceptron with covariance='full' (its "
                                     f"correlation matrix), got {L!r}")
            if self.adaptive:
                raise ValueError("SelectiveSampler: query='bbq' has no adaptive form; leave "
                                 "adaptive False")

    def _inner(self):
        d = self.__dict__
        if "_L" not in d:
            self._L = clone(self.base_learner)
            self._rng = np.array([int(self.random_state) & (2 ** 64 - 1)], dtype=np.uint64)
            self._x2 = np.zeros(1)
            self._sel = np.zeros(4, dtype=np.int64)  # rows, asked, mistakes known, updates
        return self._L

    # -- state ----------------------------------------------------------------------------------
    @property
    def base_learner(self):
        """The learner a copy of which is trained: ``learner``, or ``Perceptron()`` (with
        ``query="bbq"``: the full second-order Perceptron updating on every asked row) (no
        state; what it reads and how are the trained copy's)."""
        if self.learner is not None:
            return self.learner
        if self.query == "bbq":
            return SecondOrderPerceptron(covariance="full", update="every")
        return Perceptron()

    @property
    def learner_(self):
        L = self.__dict__.get("_L")
        if L is None or getattr(L, "classes_", None) is None:
            raise NotFittedError("SelectiveSampler: call partial_fit or run_online first")
        return L

    @property
    def classes_(self):
        return self.learner_.classes_

    n_seen_ = property(lambda self: self._count(0))
    labels_asked_ = property(lambda self: self._count(1))
    mistakes_ = property(lambda self: self._count(2))
    updates_ = property(lambda self: self._count(3))

    def _count(self, k):
        self.learner_
        return int(self._sel[k])

    # -- learning -------------------------------------------------------------------------------
    def partial_fit(self, X, y, classes=None):
        """One selective pass over the rows (see the class); returns self."""
        self._pass(X, y, classes)
        return self

    def run_online(self, X, y, classes=None):
        """One selective pass over the rows, recorded: a :class:`SelectiveRun`."""
        return self._pass(X, y, classes)

    def _pass(self, X, y, classes):
        self._validate_params()
        ask = y if callable(y) else None
        with Snapshot(self):
            L = self._inner()
            with Snapshot(L):
                first = getattr(L, "classes_", None) is None
                if ask is not None:
                    if first and classes is None:
                        raise ValueError("SelectiveSampler: with labels from a callable, give "
                                         "classes= on the first call")
                    cl = classes if first else L.classes_
                    n = X.shape[0] if is_sparse(X) or hasattr(X, "shape") else len(X)
                    batch, _ = L._prepare(X, np.full(n, np.asarray(cl)[0]), classes)
                    yy = None
                else:
                    batch, yy = L._prepare(X, y, classes)
                return self._rows(L, batch, yy, ask)

    def _rows(self, L, batch, yy, ask):
        n = batch.n
        K = len(L.classes_)
        multi = K >= 3
        pred = np.zeros(n, dtype=np.int32 if multi else np.int8)
        asked = np.zeros(n, dtype=np.uint8)
        upd = np.zeros(n, dtype=np.uint8)
        given = np.zeros(n, dtype=pred.dtype)
        scores = np.zeros(n * K if multi else n)
        none = -1 if multi else 0           # (label0: no label given)
        start, label0 = 0, none
        bbq = {"query": 1, "kappa": float(self.kappa)} if self.query == "bbq" else {}
        while True:
            stop, status, bad = L._select_pass(batch, start, label0, yy, float(self.b),
                                               bool(self.adaptive), self._rng, self._x2,
                                               self._sel, pred, asked, upd, scores, **bbq)
            if stop < 0:
                if status in _BAD:
                    raise ValueError(f"SelectiveSampler: X has {_BAD[status]} in row {bad}")
                raise row_error("SelectiveSampler", batch, bad, hint=L._OVERFLOW_HINT)
            if stop >= n:
                break
            label = ask(int(stop))          # (an exception leaves everything as it was)
            code = L._encode_y(np.asarray([label], dtype=object) if isinstance(label, str)
                               else [label], 1, L.classes_)
            given[stop] = code[0]
            start, label0 = stop, int(code[0])
        batch.checked = True
        labels = L.classes_[pred] if multi else L._labels(pred > 0)
        if yy is not None:
            errors = (pred != yy).astype(np.float64)
        else:
            errors = np.where(asked.astype(bool), (pred != given).astype(np.float64), np.nan)
        return SelectiveRun(labels, asked, errors, upd, scores.reshape(n, K) if multi else scores)

    # -- prediction -----------------------------------------------------------------------------
    def decision_function(self, X):
        """The learner's scores (no state change)."""
        return self.learner_.decision_function(X)

    def predict(self, X):
        """The learner's predictions (no state change)."""
        return self.learner_.predict(X)
