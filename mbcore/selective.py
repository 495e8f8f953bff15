"""Selective sampling: a learner that asks for a label only when it is unsure.

:class:`SelectiveSampler` wraps a binary linear learner of :mod:`mbcore.linear` and runs the
selective-sampling rule of Cesa-Bianchi, Gentile and Zaniboni (2006) around it, one compiled
pass per call (the twin: ``mbref.selective``).
"""

import math

import numpy as np

from . import persistence as _persistence
from ._kernels.names import NameIndex
from ._locking import Guarded
from ._one import _fill_error, _modes
from ._state import F8, I8, U8, arr, need, shape
from ._validation import NotFittedError, is_sparse, row_error
from .base import OnlineLearner, Snapshot, clone
from .linear import MarginPerceptron, OnlineHingeSVM, PassiveAggressive, Perceptron
from .second_order import (AROW, NAROW, NHERD, SCW, ConfidenceWeighted,
                           SecondOrderPerceptron)

__all__ = ["SelectiveSampler", "SelectiveRun"]

_TAKES = (Perceptron, MarginPerceptron, OnlineHingeSVM, PassiveAggressive,
          SecondOrderPerceptron, AROW, ConfidenceWeighted, SCW, NHERD, NAROW)
_OVR_ONLY = (SecondOrderPerceptron, AROW, ConfidenceWeighted, SCW, NHERD, NAROW)
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

    Saving: ``save(file)`` writes the sampler to an ``.npz`` file that needs no pickle (its
    parameters, the learner it trains with its whole state, the generator's state, the
    adaptive variant's largest squared norm and its counts); ``mbcore.load(file)`` (or
    ``SelectiveSampler.load(file)``) gives it back, checked, and the loaded sampler asks for
    the same labels and predicts the same as the one that never stopped.  Pickling and
    ``copy.deepcopy`` keep all of it too.

    Examples
    --------
    >>> from mbcore import Perceptron, SelectiveSampler
    >>> from mbcore.datasets import load_a9a
    >>> X, y = load_a9a()[:2]
    >>> run = SelectiveSampler(Perceptron(), b=10.0).run_online(X[:4000], y[:4000])
    >>> run.labels_asked < 4000 // 2, run.mistakes < 1000
    (True, True)

    Saved half-way, loaded, and continued: the same labels asked as in one run.

    >>> import io, mbcore
    >>> S = SelectiveSampler(Perceptron(), b=10.0)
    >>> first = S.run_online(X[:2000], y[:2000])
    >>> buf = io.BytesIO()
    >>> S.save(buf)
    >>> _ = buf.seek(0)
    >>> again = mbcore.load(buf)
    >>> rest = again.run_online(X[2000:4000], y[2000:4000])
    >>> first.labels_asked + rest.labels_asked == run.labels_asked
    True
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

    # -- persistence (mbcore.persistence: the sampler is saved as a learner is) ---------------
    # _STATE: attribute -> checker of its type (mbcore._state); the learner trained (_L) is a
    # nested learner, checked by its own class when it is read.
    _STATE = {"_L": lambda v: None if type(v) in _TAKES else (
                  f"is a {type(v).__name__}, not one of {[c.__name__ for c in _TAKES]}"),
              "_rng": arr(U8, 1), "_x2": arr(F8, 1), "_sel": arr(I8, 1)}
    _DERIVED: frozenset = frozenset()
    _FOREIGN_ATTRS = OnlineLearner._FOREIGN_ATTRS

    @classmethod
    def _get_param_names(cls):
        return OnlineLearner._get_param_names.__func__(cls)

    def _is_fitted(self):
        L = self.__dict__.get("_L")
        return L is not None and getattr(L, "classes_", None) is not None

    def _check_state(self, st):
        """A loaded state that no run of the sampler reaches raises StateError."""
        o = "SelectiveSampler"
        need(st["_L"]._is_fitted(), f"{o}: the learner it trains is not fitted")
        need(getattr(st["_L"], "class_weight", None) is None,
             f"{o}: the learner it trains has a class_weight")
        shape(self, "_rng", (1,))
        shape(self, "_x2", (1,))
        shape(self, "_sel", (4,))
        x2 = float(st["_x2"][0])
        need(x2 >= 0.0, f"{o}: the largest squared norm _x2 is {x2!r}, not a number >= 0")
        rows, asked, mistakes, updates = (int(v) for v in st["_sel"])
        need(min(rows, asked, mistakes, updates) >= 0, f"{o}: a count in _sel is negative")
        need(asked <= rows and mistakes <= rows and updates <= asked,
             f"{o}: the counts [rows, labels asked, mistakes, updates] = {st['_sel'].tolist()}"
             " do not hold together (labels asked and mistakes at most the rows, updates at "
             "most the labels asked)")
        need(rows > 0 or x2 == 0.0, f"{o}: _x2 is {x2!r} before any row was seen")

    def save(self, file, *, compress=False):
        """Save the sampler (parameters, the learner it trains, its generator and counts) to an
        ``.npz`` file that needs no pickle; ``mbcore.load`` (or ``SelectiveSampler.load``)
        gives it back, and the loaded sampler continues bit for bit like this one: the same
        labels asked, the same predictions.  ``file`` is a path (written atomically) or a
        binary file object; see :mod:`mbcore.persistence` for the format."""
        _persistence.save(self, file, compress=compress)

    @classmethod
    def load(cls, file, *, max_bytes=None, max_meta_bytes=None):
        """Load a sampler saved by ``save``; raises ``mbcore.persistence.FormatError`` (a
        ValueError naming the file) for a file that is not a valid mbcore file, holds
        something other than a SelectiveSampler, or whose state no run reaches."""
        return _persistence.load(file, expected=cls, max_bytes=max_bytes,
                                 max_meta_bytes=max_meta_bytes)

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
        bbq = self._query_kwargs()
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

    # -- one example at a time, on dict features (mbcore.river.SelectiveSampler) ---------------
    def _dict_row(self, x, classes):
        """The learner's row of the dict ``x`` as a 1-row batch: a name not seen before is a new
        column, zero in every earlier row, and the learner widens to it now (so its columns are
        the names of every row predicted, in order of arrival: the matrix ``run_online`` would
        be given).  The first row starts the learner with ``classes``.  (Under the write lock,
        inside a Snapshot of the sampler: a failure takes the learner's start back; the new
        columns are taken back by the second value returned, a function, or None.)"""
        L = self._inner()
        if not L._is_fitted():
            idx = NameIndex([])
            n = idx.fill(x, 0)
            if n < 0:
                raise _fill_error("SelectiveSampler", idx, n, x)
            if n == 0:
                raise ValueError(f"SelectiveSampler: the first example has no features "
                                 f"(x = {x!r}); the learner needs at least one to start")
            c0 = classes[0]
            batch, _ = L._prepare(idx.view, np.asarray([c0], dtype=object)
                                  if isinstance(c0, str) else [c0], classes)
            L._feature_names = idx.names
            L._one = _modes(idx, "grow")
            return batch, None
        idx = L._one_index(None)[0]
        n0 = L.n_features_in_
        n = idx.fill(x, 0)
        if n < 0:
            raise _fill_error("SelectiveSampler", idx, n, x)
        undo = None
        if n != n0:
            grown = L._grow_features(n)
            L._feature_names.extend(idx.names_from(n0))

            def undo():
                idx.truncate(n0)
                grown()
                del L._feature_names[n0:]
        try:
            return L._check_X_learn(idx.view, n), undo
        except BaseException:
            if undo is not None:
                undo()
            raise

    def _one_buffers(self, L):
        K = len(L.classes_)
        multi = K >= 3
        return (np.zeros(1, dtype=np.int32 if multi else np.int8), np.zeros(1, dtype=np.uint8),
                np.zeros(1, dtype=np.uint8), np.zeros(K if multi else 1), -1 if multi else 0)

    def _one_pass(self, L, batch, label0, bufs, rng=None, sel=None):
        pred, asked, upd, scores, _ = bufs
        stop, status, bad = L._select_pass(batch, 0, label0, None, float(self.b),
                                           bool(self.adaptive),
                                           self._rng if rng is None else rng, self._x2,
                                           self._sel if sel is None else sel, pred, asked, upd,
                                           scores, **self._query_kwargs())
        if stop < 0:
            if status in _BAD:
                raise ValueError(f"SelectiveSampler: x has {_BAD[status]}")
            raise row_error("SelectiveSampler", batch, bad, hint=L._OVERFLOW_HINT)
        return stop

    def _query_kwargs(self):
        """The compiled pass's query arguments: BBQ's, or none (the coin)."""
        return {"query": 1, "kappa": float(self.kappa)} if self.query == "bbq" else {}

    def _label_of(self, L, code):
        if len(L.classes_) >= 3:
            v = L.classes_[code]
        else:
            v = L._labels(np.asarray([code > 0]))[0]
        return v.item() if isinstance(v, np.generic) else v

    def _one_call(self, x, classes, step):
        """``step(L, batch)`` on the learner's row of ``x``, all or nothing: a call that raises
        leaves the sampler, its learner (``step`` keeps the learner's own state: a Snapshot
        where it changes it) and its generator as they were.  (A Snapshot of the sampler
        copies more than the three small arrays that change here: this is the one-row path.)"""
        self._validate_params()
        with self.writing():
            d = self.__dict__
            started = d.get("_L") is not None and self._is_fitted()
            kept = (self._rng.copy(), self._x2.copy(), self._sel.copy()) if started else None
            undo = None
            try:
                batch, undo = self._dict_row(x, classes)
                return step(self._L, batch)
            except BaseException:
                if undo is not None:
                    undo()
                if started:
                    for a, k in zip((self._rng, self._x2, self._sel), kept):
                        np.copyto(a, k)
                else:
                    for k in ("_L", "_rng", "_x2", "_sel"):
                        d.pop(k, None)
                raise

    def _ask_one(self, x, classes):
        """One row's prediction and coin (river's ``predict_one``): (label, asked, the
        prediction's code), the row's draw made as the compiled pass makes it."""
        def step(L, batch):
            bufs = self._one_buffers(L)
            stop = self._one_pass(L, batch, bufs[4], bufs)
            code = int(bufs[0][0])
            return self._label_of(L, code), stop == 0, code
        return self._one_call(x, classes, step)

    def _learn_one(self, x, y, classes, code, asked):
        """Learn one row with its label (river's ``learn_one``): the learner's step, as the
        compiled pass takes an asked row.  ``code``: the prediction made for the row by
        ``_ask_one`` (None: the row was not predicted, so it is counted as a row now, its
        prediction the learner's, no draw made); ``asked``: whether its coin asked (a label
        given for a row the coin did not ask counts as a label asked)."""
        def step(L, batch):
            with Snapshot(L):
                label = L._encode_y(np.asarray([y], dtype=object) if isinstance(y, str)
                                    else [y], 1, L.classes_)
                bufs = self._one_buffers(L)
                if code is None:            # its prediction, with a copy of the generator
                    self._one_pass(L, batch, bufs[4], bufs, self._rng.copy(),
                                   self._sel.copy())
                    self._sel[0] += 1
                else:
                    bufs[0][0] = code
                if not asked:
                    self._sel[1] += 1
                self._one_pass(L, batch, int(label[0]), bufs)
        self._one_call(x, classes, step)

    # -- certificate (mbcore.certify) -----------------------------------------------------------
    # the learners whose selective sampler Theorem 1 of the paper bounds (the Perceptron's
    # update on a mistake, w += y x; its eta scales w, so the coin's b is b / eta)
    _THEOREM_1 = (Perceptron,)

    def _certificate(self, X, y, **options):
        """``mbcore.certify(sampler, X, y, ...)``: fresh samplers run beside the expected
        mistake bound (:func:`mbcore.certificates.selective.certify_selective`)."""
        from .certificates.selective import certify_selective
        return certify_selective(self, X, y, **options)

    # -- prediction -----------------------------------------------------------------------------
    def decision_function(self, X):
        """The learner's scores (no state change)."""
        return self.learner_.decision_function(X)

    def predict(self, X):
        """The learner's predictions (no state change)."""
        return self.learner_.predict(X)


_persistence.register_wrapper(SelectiveSampler)
