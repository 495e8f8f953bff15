"""Boolean concept learners: conjunction and disjunction elimination,
the mistake-bound decision-list learner, the PAC learners (most specific conjunction, greedy
1-decision list) and the conjunction adversary, each with its twin of the same name in
``mbref.boolean``.

Rows are Boolean: dense arrays of 0/1 (bool, integers or floats), kept as uint8; a CSR matrix
is densified (n in the thousands).  The learners keep their hypotheses as literal masks over the
n variables, and the kernels (``_kernels/boolean.pyx``) run whole passes over the rows.
"""

import numbers

import numpy as np

from . import _params as params
from ._kernels import boolean as _k
from ._messages import spell
from ._validation import (Batch, check_2d, empty_error, encode_y, infer_classes, is_sparse,
                          read_2d)
from ._state import (COMMON, I4, I8, INT, U1, arr, failure, need, nonneg, py, shape,
                     two_labels)
from .base import OnlineLearner
from ._tags import tags
from .exceptions import warn_failure
from .online import play_against

__all__ = ["Conjunction", "Disjunction", "DecisionList", "most_specific_conjunction",
           "greedy_decision_list", "GreedyDecisionList", "ConjunctionAdversary"]

_CONJ, _DISJ_MONO, _DISJ_ALL = 0, 1, 2


def boolean_rows(owner, X, n_features):
    """X as a C-contiguous uint8 0/1 matrix (a view when it already is one)."""
    A = read_2d(owner, X)
    check_2d(owner, A, n_features)
    if A.dtype == np.bool_:
        return np.ascontiguousarray(A).view(np.uint8)
    if A.dtype.kind not in "biuf":
        raise TypeError(f"{owner}: X must hold 0/1 values (bool, int or float), got dtype "
                        f"{A.dtype}")
    ok = (A == 0) | (A == 1)
    if not ok.all():
        row, col = np.argwhere(~ok)[0]
        v = A[row, col]
        raise ValueError(f"{owner}: X must be Boolean (0/1), got {v.item()!r} in row {row}")
    return np.ascontiguousarray(A, dtype=np.uint8)


def _check_packing(owner, packed, n_features):
    params.flag(owner, "packed", packed)
    params.integer(owner, "n_features", n_features, 1, none=True)
    if packed and n_features is None:
        raise ValueError(f"{owner}: parameter n_features must be given with packed=True (the "
                         "number of variables before packing)")


_BYTE, _BYTE_OF_ANOTHER_TYPE, _NOT_A_BYTE = 0, 1, 2


def _byte_of(v):
    """A packed byte: an integer (not a bool) in 0..255; a float or bool of such a value is a
    byte of another type; anything else (NaN, 0.5, 256, a string, None) is not a byte."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, numbers.Integral) and not isinstance(v, bool):
        return _BYTE if 0 <= v <= 255 else _NOT_A_BYTE
    if isinstance(v, (bool, float)) and v == v and 0 <= v <= 255 and float(v).is_integer():
        return _BYTE_OF_ANOTHER_TYPE
    return _NOT_A_BYTE


def _byte_status(A):
    """_byte_of for every entry of a 2-D array (vectorised for numbers)."""
    kind = A.dtype.kind
    if kind in "iu":
        return np.where((A >= 0) & (A <= 255), _BYTE, _NOT_A_BYTE)
    if kind == "f":
        with np.errstate(invalid="ignore"):
            byte = np.isfinite(A) & (A >= 0) & (A <= 255) & (A == np.floor(A))
        return np.where(byte, _BYTE_OF_ANOTHER_TYPE, _NOT_A_BYTE)
    if kind == "b":
        return np.full(A.shape, _BYTE_OF_ANOTHER_TYPE)
    if kind == "O":
        return np.frompyfunc(_byte_of, 1, 1)(A).astype(np.int64) if A.size else \
            np.zeros(A.shape, dtype=np.int64)
    return np.full(A.shape, _NOT_A_BYTE)          # strings, complex numbers, dates, ...


def unpack_rows(owner, X, n):
    """Rows packed 8 variables per byte (numpy.packbits(X, axis=1): the first variable in the
    highest bit) -> uint8 0/1 rows; the padding bits of the last byte must be 0."""
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{owner}: X must be a 2-D array-like of packed bytes, got "
                        f"{type(X).__name__}")
    if is_sparse(X):
        raise TypeError(f"{owner}: packed X must be a dense 2-D array of bytes "
                        "(numpy.packbits(X, axis=1)), got a sparse matrix")
    try:
        A = np.asarray(X)
        if A.dtype.kind in "US" and not isinstance(X, np.ndarray):
            A = np.array(X, dtype=object)    # each value as given (NumPy made 1 and "a" strings)
    except ValueError:
        raise ValueError(f"{owner}: packed X must be 2-D (n_samples, ceil(n_features / 8))") \
            from None
    if A.ndim != 2:
        raise ValueError(f"{owner}: packed X must be 2-D (n_samples, ceil(n_features / 8)), got "
                         f"ndim={A.ndim}")
    if A.shape[0] == 0:
        raise empty_error(owner)
    width = (n + 7) // 8
    if A.shape[1] != width:
        raise ValueError(f"{owner}: packed row 0 has {A.shape[1]} bytes; {n} variables need "
                         f"{width}")
    if A.dtype != np.uint8:
        status = _byte_status(A)
        for s in (_NOT_A_BYTE, _BYTE_OF_ANOTHER_TYPE):    # a wrong value before a wrong type
            if (status == s).any():
                r, c = (int(i) for i in np.argwhere(status == s)[0])
                v = A[r, c]
                raise ValueError(f"{owner}: packed X must hold bytes (integers 0..255), got "
                                 f"{v.item() if isinstance(v, np.generic) else v!r} in row {r}")
        A = A.astype(np.uint8)
    bits = np.unpackbits(A, axis=1)
    if n % 8:
        pad = bits[:, n:].any(axis=1)
        if pad.any():
            r = int(np.argmax(pad))
            raise ValueError(f"{owner}: packed row {r} has padding bits set past variable "
                             f"{n - 1}")
    return np.ascontiguousarray(bits[:, :n])


class _Boolean(OnlineLearner):
    """Shared machinery: Boolean rows (or rows packed 8 variables per byte), the protocol's
    hooks."""

    # sample_weight refused (OnlineLearner._refuse_weights)
    _TAGS = tags(takes="features",
                 no_weights=("a mistake removes literals or moves rules outright, and the "
                             "notes give no weighted form of the rule"),
                 needs_width="its first hypothesis holds the literals of all n variables")
    _PARAMETERS = {"max_epochs": params.Integer(1), "packed": params.Flag(),
                   "n_features": params.Integer(1, none=True)}

    def _validate_params(self):
        super()._validate_params()
        _check_packing(self._owner, self.packed, self.n_features)

    def _check_X(self, X, n_features):
        _check_packing(self._owner, self.packed, self.n_features)
        if self.packed:
            A = unpack_rows(self._owner, X, int(self.n_features))
        else:
            A = boolean_rows(self._owner, X, n_features)
        return Batch(X=A, n=A.shape[0], d=A.shape[1])

    def _predict_flags(self, batch):
        self._validate_params()
        pred = np.empty(batch.n, dtype=np.int8)
        self._run(batch.X, None, pred, None, np.zeros(3, dtype=np.int64), False)
        return pred > 0

    def _scores(self, batch):
        return self._predict_flags(batch).astype(np.float64)

    def decision_function(self, X):
        """1.0 where the hypothesis is true, 0.0 elsewhere (no state change)."""
        return super().decision_function(X)

    # (for the tests: tests/_cases.py) decision_function is the prediction's indicator
    _TIE_AT_ZERO = "negative"
    _DECISION_INDICATOR = True


class _Elimination(_Boolean):
    _mode = _CONJ
    _kind = "conjunction"
    _PARAMETERS = {"on_inconsistent": params.Choice("flag", "raise")}

    def _init_state(self, d):
        self._P = np.ones(d, dtype=np.uint8)
        self._N = np.ones(d if self._mode != _DISJ_MONO else 0, dtype=np.uint8)
        self._incons = np.zeros(1, dtype=np.int64)
        self._fitted_mode = self._mode
        self._failure = None

    # -- persistent state (mbcore._state; mbcore.persistence stores what _STATE names) -------
    _STATE = dict(COMMON, _P=arr(U1, 1), _N=arr(U1, 1), _incons=arr(I8, 1), _fitted_mode=INT,
                  _failure=py(tuple, type(None)))
    # (_failure came after 0.1.0: files of 0.1.0 lack it, and _check_state sets what the count
    # of inconsistent examples implies, with the example unknown (None) when there were some)
    _NEW_STATE = frozenset(("_failure",))

    def _check_state(self, st):
        o, d = self._owner, st["n_features_in_"]
        two_labels(self, st)
        need(st["_fitted_mode"] == self._mode, f"{o}: the fitted literals differ")
        shape(self, "_P", (d,))
        shape(self, "_N", (0,) if self._mode == _DISJ_MONO else (d,))
        shape(self, "_incons", (1,))
        need((st["_P"] <= 1).all() and (st["_N"] <= 1).all(),
             f"{o}: literal masks that are not 0/1")
        nonneg(self, "_incons")
        failure(self, st, int(st["_incons"][0]) > 0, self._reason())


    def _run(self, X, yy, pred, upd, counts, update, stop=False):
        if self._mode != self._fitted_mode:
            raise ValueError(f"{self._owner}: parameter literals was changed to "
                             f"{self.literals!r} after fitting; the hypothesis is over other "
                             "literals: call fit, or clone the learner")
        return _k.elimination_pass(self._mode, X, yy, self._P, self._N, pred, upd, counts,
                                   self._incons, update, stop)

    def _reason(self):
        """failure_'s reason (and the LearnerWarning's words)."""
        kind = "monotone disjunction" if self._fitted_mode == _DISJ_MONO else self._kind
        return f"no {kind} is consistent with the examples"

    def _pass(self, batch, yy, pred, upd):
        self._validate_params()
        raising = self.on_inconsistent == "raise"
        saved = (self._P.copy(), self._N.copy(), self._counts.copy()) if raising else None
        # until the first inconsistent example, "flag" stops there too (the kernel returns it)
        watch = not raising and self._incons[0] == 0
        seen = int(self._counts[0])
        bad = self._run(batch.X, yy, pred, upd, self._counts, True, raising or watch)
        if bad >= 0 and watch:
            # the kernel counted row bad as seen and as a mistake; flag it, then go on
            self._incons[0] += 1
            if upd is not None:
                upd[bad] = 0
            t = bad + 1
            if t < batch.n:
                self._run(batch.X[t:], yy[t:], None if pred is None else pred[t:],
                          None if upd is None else upd[t:], self._counts, True)
            self._failed(seen + bad)
        elif bad >= 0:
            self._P[:], self._N[:], self._counts[:] = saved
            label = "negative" if self._mode == _CONJ else "positive"
            raise ValueError(
                f"{self._owner}: no consistent {self._kind}: row {bad} is labelled {label} but "
                f"{'satisfies' if self._mode == _CONJ else 'falsifies'} the hypothesis, which "
                f"keeps every literal that no {'positive' if self._mode == _CONJ else 'negative'}"
                " example ruled out; the learner was left as before the call")

    def _cycle_key(self):
        return self._digest(np.concatenate([self._P, self._N]).astype(np.float64))

    @property
    def positive_(self):
        """positive_[i]: the literal x_i is in the hypothesis."""
        self._check_fitted("positive_")
        return self._P.astype(bool)

    @property
    def negative_(self):
        """negative_[i]: the literal ~x_i is in the hypothesis."""
        self._check_fitted("negative_")
        if self._N.shape[0] == 0:
            return np.zeros(self._P.shape[0], dtype=bool)
        return self._N.astype(bool)

    @property
    def literals_(self):
        """The hypothesis's literals, "x{i}" before "~x{i}", i = 0..n-1."""
        P, N = self.positive_, self.negative_
        out = []
        for i in range(P.shape[0]):
            if P[i]:
                out.append(f"x{i}")
            if N[i]:
                out.append(f"~x{i}")
        return out

    @property
    def inconsistent_(self):
        """Whether an example contradicted every hypothesis of the class (on_inconsistent=
        "flag")."""
        self._check_fitted("inconsistent_")
        return bool(self._incons[0] > 0)

    @property
    def n_inconsistent_(self):
        self._check_fitted("n_inconsistent_")
        return int(self._incons[0])

    @property
    def failure_(self):
        """None while some hypothesis of the class is consistent with the examples; else (the
        first example that none fits, its 0-based position in the whole stream seen, or None
        if unknown, from a file of mbcore 0.1.0; the reason)."""
        self._check_fitted("failure_")
        return self._failure

    def _failed(self, index):
        """Example ``index`` is the first that no hypothesis fits: record it and warn (once)."""
        why = self._reason()
        self._failure = (index, why)
        detail = "negative but satisfies" if self._mode == _CONJ else "positive but falsifies"
        warn_failure(self._owner, index, why, f"is labelled {detail} the hypothesis",
                     "passes over such examples (counted in n_inconsistent_) and its mistake "
                     "bound no longer holds (check the labels for noise, or use "
                     + spell('on_inconsistent="raise"', "--param on_inconsistent=raise")
                     + " to stop at the first one)")


class Conjunction(_Elimination):
    __doc__ = """Conjunction learning by elimination over the 2n literals.

    Update rule (Balcan §2.1; Kanade Alg. 1): start with h = x₁ x̄₁ … xₙ x̄ₙ (every literal, so
    h is false everywhere) and predict h(x).  On a false negative remove every literal that is
    false in x.  A false positive means that no conjunction is consistent with the data:
    ``on_inconsistent="flag"`` records it (``inconsistent_``; the first one in ``failure_``, with
    a ``LearnerWarning``) and goes on, ``"raise"`` raises ValueError and leaves the learner as
    before the call.

    Mistake bound: n + 1 on any stream labelled by a conjunction (Balcan; Kanade Thm 1); the
    first mistake removes n literals, every later one at least one.  No deterministic learner
    does better than n (``ConjunctionAdversary``).

    Parameters
    ----------
    on_inconsistent : {"flag", "raise"}, default="flag"
    max_epochs : int, default=100
        For ``fit`` (cycle until a pass without updates).
    packed : bool, default=False
        X comes packed 8 variables per byte, as ``numpy.packbits(X, axis=1)`` makes it (the
        first variable in the highest bit; padding bits 0).
    n_features : int or None, default=None
        The number of variables before packing (required with ``packed=True``).

    Attributes
    ----------
    positive_, negative_ : ndarray of bool, shape (n_features,)
        Which literals x_i / ~x_i the hypothesis keeps.
    literals_ : list of str
    inconsistent_ : bool
    n_inconsistent_ : int
    failure_ : tuple (int, str) or None
        None while some conjunction is consistent with the examples; then ``(index, reason)``:
        the first example that contradicts every conjunction (its 0-based position in the whole
        stream seen, over calls and epochs; None in a learner loaded from a file of mbcore
        0.1.0) and why.  With ``on_inconsistent="flag"`` the learner emits a
        :class:`~mbcore.LearnerWarning` at that example, once (``fit`` and ``clone`` start
        over), and goes on, passing over such examples; its mistake bound no longer holds.
    mistakes_, updates_ (rounds in which h changed), n_seen_, classes_, n_features_in_

    Warns
    -----
    LearnerWarning
        Once per learner, at the first example that no conjunction fits (``on_inconsistent=
        "flag"``; see ``failure_``).

    Examples
    --------
    MONK-1's positive class is (a1 = a2) or (a5 = 1), not a conjunction of one-hot literals:

    >>> from mbcore import Conjunction, run_online
    >>> from mbcore.datasets import load_monks
    >>> X, y = load_monks(1, split="test", encoding="boolean")
    >>> c = Conjunction()
    >>> run = run_online(c, X[y == 1], y[y == 1], classes=[-1, 1])   # positives: consistent
    >>> c.inconsistent_, run.mistakes <= X.shape[1] + 1
    (False, True)
    >>> c.partial_fit(X, y).inconsistent_            # the negatives contradict it
    True
    """

    _mode = _CONJ
    _kind = "conjunction"

    _TAGS = tags(bound="conjunction")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}]

    def __init__(self, on_inconsistent="flag", max_epochs=100, packed=False, n_features=None):
        self.on_inconsistent = on_inconsistent
        self.max_epochs = max_epochs
        self.packed = packed
        self.n_features = n_features


class Disjunction(_Elimination):
    __doc__ = """Disjunction learning by elimination (the dual of ``Conjunction``).

    Update rule (Angluin lecture 18, end): start with the disjunction of every variable
    (``literals="monotone"``) or of every one of the 2n literals (``"all"``) and predict h(x).
    On a false positive remove every literal that is true in x.  A false negative means that no
    disjunction of that kind is consistent: flagged or raised as for ``Conjunction``.

    Mistake bound: n − r on a stream labelled by a monotone disjunction of r of the n variables
    (each mistake removes at least one irrelevant variable); Winnow needs only O(r log n).

    Parameters
    ----------
    literals : {"monotone", "all"}, default="monotone"
    on_inconsistent : {"flag", "raise"}, default="flag"
    max_epochs : int, default=100
    packed, n_features : as for ``Conjunction`` (rows packed 8 variables per byte)

    Attributes
    ----------
    failure_ : tuple (int, str) or None
        As for ``Conjunction``: None while some disjunction of the literals is consistent with
        the examples, then ``(index, reason)`` of the first example that contradicts every one
        (with ``on_inconsistent="flag"``, a :class:`~mbcore.LearnerWarning` there, once).
    positive_, negative_, literals_, inconsistent_, n_inconsistent_, mistakes_, updates_,
    n_seen_, classes_, n_features_in_

    Warns
    -----
    LearnerWarning
        Once per learner, at the first example that no disjunction of the literals fits
        (``on_inconsistent="flag"``; see ``failure_``).

    Examples
    --------
    >>> import numpy as np
    >>> from mbcore import Disjunction
    >>> from mbcore.datasets import load_monks
    >>> X, y = load_monks(1, split="test", encoding="boolean")
    >>> d = Disjunction().partial_fit(X, y)
    >>> d.inconsistent_       # MONK-1 is no monotone disjunction of the one-hot literals
    True
    """

    _TAGS = tags(bound="disjunction")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}, {"literals": "all"}]

    def __init__(self, literals="monotone", on_inconsistent="flag", max_epochs=100,
                 packed=False, n_features=None):
        self.literals = literals
        self.on_inconsistent = on_inconsistent
        self.max_epochs = max_epochs
        self.packed = packed
        self.n_features = n_features

    _kind = "disjunction"

    @property
    def _mode(self):
        return _DISJ_ALL if self.literals == "all" else _DISJ_MONO

    _PARAMETERS = {"literals": params.Choice("monotone", "all")}


class DecisionList(_Boolean):
    __doc__ = """The mistake-bound learner for 1-decision lists.

    Update rule (Balcan §2.2): the 4n + 2 rules (x_i → b), (x̄_i → b) and (T → b) start on one
    level.  Predict with the first level that has a rule firing on x: the majority value of its
    firing rules, ties → 1.  On a mistake move every firing rule of that level that predicted
    wrongly one level down.  Rule order (``levels_``): 4i + 0 = (x_i → 0), 4i + 1 = (x_i → 1),
    4i + 2 = (~x_i → 0), 4i + 3 = (~x_i → 1), then (T → 0), (T → 1).

    Mistake bound: (4n + 2)(L + 1) on a stream labelled by a decision list of length L (every
    mistake moves a rule down, and no rule falls more than L + 1 levels).

    Parameters
    ----------
    max_epochs : int, default=100
    packed, n_features : as for ``Conjunction`` (rows packed 8 variables per byte)

    Attributes
    ----------
    levels_ : ndarray of int, shape (4 n_features + 2,)
    mistakes_, updates_ (= mistakes_), n_seen_, classes_, n_features_in_

    Examples
    --------
    MONK-3's target, (a5 = 3 and a4 = 1) or (a5 ≠ 4 and a2 ≠ 3), is the decision list
    (a5 = 4 → 0), (a2 ≠ 3 → 1), (a5 ≠ 3 → 0), (a4 = 1 → 1), (T → 0) over the 17 one-hot
    literals: L = 5, so at most (4·17 + 2)(5 + 1) = 420 mistakes over any number of passes on
    its noise-free test set.

    >>> from mbcore import DecisionList, run_online
    >>> from mbcore.datasets import load_monks
    >>> X, y = load_monks(3, split="test", encoding="boolean")
    >>> dl = DecisionList().fit(X, y)
    >>> dl.converged_, dl.mistakes_ <= 420
    (True, True)
    >>> bool((dl.predict(X) == y).all())
    True
    """

    _TAGS = tags(bound="decision list")

    @classmethod
    def _unit_test_params(cls):
        """Small parameter sets for the contract suite that runs every learner."""
        return [{}]

    def __init__(self, max_epochs=100, packed=False, n_features=None):
        self.max_epochs = max_epochs
        self.packed = packed
        self.n_features = n_features

    def _init_state(self, d):
        self._levels = np.zeros(4 * d + 2, dtype=np.int32)

    # -- persistent state (mbcore._state; mbcore.persistence stores what _STATE names) -------
    _STATE = dict(COMMON, _levels=arr(I4, 1))

    def _check_state(self, st):
        two_labels(self, st)
        shape(self, "_levels", (4 * st["n_features_in_"] + 2,))
        need((st["_levels"] >= 0).all() and (st["_levels"] <= st["_counts"][1]).all(),
             f"{self._owner}: levels out of range")


    def _run(self, X, yy, pred, upd, counts, update):
        _k.decision_list_pass(X, yy, self._levels, pred, upd, counts, update)
        return -1

    def _pass(self, batch, yy, pred, upd):
        self._validate_params()
        self._run(batch.X, yy, pred, upd, self._counts, True)

    def _cycle_key(self):
        return self._digest(self._levels.astype(np.float64))

    @property
    def levels_(self):
        self._check_fitted("levels_")
        return self._levels.astype(np.int64)

    def rule_names(self):
        """The names of the 4n + 2 rules in ``levels_`` order."""
        self._check_fitted("rule_names")
        n = (self._levels.shape[0] - 2) // 4
        out = []
        for i in range(n):
            out += [f"x{i}->0", f"x{i}->1", f"~x{i}->0", f"~x{i}->1"]
        return out + ["T->0", "T->1"]

    def level_lists(self):
        """The hypothesis as a list of levels (first level first), each the names of its
        rules in rule order."""
        names = self.rule_names()
        L = self._levels
        return [[names[r] for r in np.flatnonzero(L == lev)] for lev in range(int(L.max()) + 1)]


# -- PAC learners (batch) ---------------------------------------------------------------------------

def _labels01(owner, X, y, classes):
    A = boolean_rows(owner, X, None)
    if y is None:
        raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got None")
    cl = infer_classes(owner, y, classes)
    yy = encode_y(owner, y, A.shape[0], cl)
    return A, yy > 0, cl


def most_specific_conjunction(X, y, classes=None):
    """The most specific conjunction consistent with the positive examples (Angluin lecture 4).

    Keeps every literal that is true on all positive examples (all 2n literals when there is
    none).  Returns a fitted ``Conjunction`` holding it, with ``inconsistent_`` set (and
    ``n_inconsistent_`` = how many, ``failure_`` = the first of them; no warning) when some
    negative example satisfies it, in which case no conjunction is consistent with the sample.
    It is a batch learner: ``mistakes_`` and ``updates_`` are 0 and ``n_seen_`` counts the
    examples.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0, 1], [1, 1, 1], [0, 0, 1]])
    >>> c = most_specific_conjunction(X, [1, 1, 0])
    >>> c.literals_, c.inconsistent_
    (['x0', 'x2'], False)
    """
    owner = "most_specific_conjunction"
    A, pos, cl = _labels01(owner, X, y, classes)
    c = Conjunction()
    c.classes_ = cl
    c.n_features_in_ = A.shape[1]
    c._init_state(A.shape[1])
    if pos.any():
        c._P[:] = A[pos].min(axis=0)
        c._N[:] = 1 - A[pos].max(axis=0)
    neg = A[~pos]
    viol = ((c._P[None, :] & (1 - neg)) | (c._N[None, :] & neg)).any(axis=1)
    c._incons[0] = int((~viol).sum())
    c._counts = np.array([A.shape[0], 0, 0], dtype=np.int64)
    if c._incons[0]:        # (no warning: the result says so)
        c._failure = (int(np.flatnonzero(~pos)[~viol][0]), c._reason())
    return c


class GreedyDecisionList:
    """A 1-decision list built greedily from a sample (Angluin lecture 7).

    Attributes
    ----------
    rules_ : list of (str, label)
        The rules in order: a literal name ("x3", "~x3") or "T", and the label it outputs.
    consistent_ : bool
        Whether the list is consistent with the sample (no literal could split a remaining
        set of examples with both labels otherwise).
    classes_ : ndarray of the two labels
    """

    def __init__(self, rules, consistent, classes, n_features):
        self.rules_ = rules
        self.consistent_ = consistent
        self.classes_ = classes
        self.n_features_in_ = n_features

    def predict(self, X):
        """The label of the first rule that fires on each row."""
        A = boolean_rows("GreedyDecisionList", X, self.n_features_in_)
        out = np.empty(A.shape[0], dtype=self.classes_.dtype)
        done = np.zeros(A.shape[0], dtype=bool)
        for name, label in self.rules_:
            if name == "T":
                fire = ~done
            elif name.startswith("~"):
                fire = ~done & (A[:, int(name[2:])] == 0)
            else:
                fire = ~done & (A[:, int(name[1:])] == 1)
            out[fire] = label
            done |= fire
        return out

    def __repr__(self):
        return f"GreedyDecisionList(rules={self.rules_!r}, consistent={self.consistent_})"


def greedy_decision_list(X, y, classes=None):
    """The greedy consistent 1-decision list (Angluin lecture 7; PAC learner).

    Repeatedly take the first literal in the order x0, ~x0, x1, ~x1, ... that is true on at
    least one remaining example and whose remaining examples where it is true all share one
    label; append (literal -> that label) and drop those examples.  Stop with (T -> label) when
    the remaining examples share a label; if no literal qualifies while both labels remain the
    sample is no 1-decision list: ``consistent_`` is False and (T -> their majority label, ties
    to the positive one) ends the list.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1, 0], [1, 1], [0, 1], [0, 0]])
    >>> dl = greedy_decision_list(X, [1, 1, 0, 1])
    >>> dl.rules_, dl.consistent_
    ([('x0', 1), ('x1', 0), ('T', 1)], True)
    """
    owner = "greedy_decision_list"
    A, pos, cl = _labels01(owner, X, y, classes)
    n = A.shape[1]
    neg_label, pos_label = cl[0].item(), cl[1].item()
    rem = np.ones(A.shape[0], dtype=bool)
    rules = []
    consistent = True
    while True:
        yr = pos[rem]
        if yr.all() or not yr.any():
            rules.append(("T", pos_label if yr.all() else neg_label))
            break
        Ar = A[rem]
        tot1 = Ar.sum(axis=0, dtype=np.int64)             # rows where x_i = 1
        pos1 = Ar[yr].sum(axis=0, dtype=np.int64)
        tot0 = Ar.shape[0] - tot1                          # rows where x_i = 0
        pos0 = int(yr.sum()) - pos1
        # literal order x0, ~x0, x1, ~x1, ...: interleave the two kinds
        tot = np.empty(2 * n, dtype=np.int64)
        pp = np.empty(2 * n, dtype=np.int64)
        tot[0::2], tot[1::2] = tot1, tot0
        pp[0::2], pp[1::2] = pos1, pos0
        ok = (tot > 0) & ((pp == tot) | (pp == 0))
        if not ok.any():
            consistent = False
            rules.append(("T", pos_label if 2 * int(yr.sum()) >= yr.shape[0] else neg_label))
            break
        j = int(np.argmax(ok))
        i, negated = j // 2, j % 2 == 1
        label = pos_label if pp[j] == tot[j] else neg_label
        rules.append((f"~x{i}" if negated else f"x{i}", label))
        idx = np.flatnonzero(rem)
        fire = (A[idx, i] == 0) if negated else (A[idx, i] == 1)
        rem[idx[fire]] = False
    return GreedyDecisionList(rules, consistent, cl, n)


class ConjunctionAdversary:
    """Balcan's lower bound as a program: n mistakes forced on any deterministic learner.

    For i = 0..n-1 the adversary shows x = all ones except bit i, asks the learner's
    prediction and labels x with the opposite (0/1 labels).  Every answer stays consistent with
    the monotone conjunction of the variables i labelled 0 (x satisfies it iff i is not in it),
    so a learner for conjunctions errs n times, and ``run`` returns that target.

    Parameters
    ----------
    n : int >= 1

    Examples
    --------
    >>> from mbcore import Conjunction
    >>> ConjunctionAdversary(5).run(Conjunction())["mistakes"]
    5
    """

    def __init__(self, n):
        params.integer("ConjunctionAdversary", "n", n, 1)
        self.n = int(n)

    def run(self, learner):
        """Play the n rounds against ``learner`` (predict, then partial_fit); returns
        {"mistakes": n, "target": the sorted variables of a consistent monotone conjunction}."""
        n = self.n
        target = []
        mistakes = 0
        for i in range(n):
            x = [1.0] * n
            x[i] = 0.0
            label = play_against(learner, x)
            mistakes += 1
            if label == 0:
                target.append(i)
        return {"mistakes": mistakes, "target": target}
