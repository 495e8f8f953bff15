"""The conversions between online, PAC and query learning (Kanade sections 1.2 and 2; Angluin
lecture 25): the conservative form of any learner (:class:`Conservative`, Prop. 3), mistake
bounds -> equivalence queries (:func:`to_equivalence_learner`, Prop. 6), equivalence queries ->
mistake bounds (:func:`from_equivalence_learner`, :class:`EQOnlineLearner`, Prop. 7), online ->
PAC (:func:`online_to_pac`, Thm 4) and EQ -> PAC by sampling (:func:`eq_to_pac`).

The conventions (points, targets, the EQ-learner generator protocol) are those of
:mod:`mbcore.queries`, which re-exports every name of this module.
"""

import copy
import numbers
import re
from typing import Any

import numpy as np

from ..base import OnlineCounts
from .._validation import (NotFittedError, check_2d, check_X, empty_error, encode_codes,
                           encode_y, infer_classes, is_sparse, read_2d)
from .._validation import check_labels
from .._params import mistake_bound as _budget
from .._rows import CSR
from ..bounds import eq_test_sample_size, online_to_pac_run_length
from ..online import OnlineRun, run_online
from ._common import check_callable, check_int, evaluate, scalar

__all__ = ["Conservative", "EQOnlineLearner", "EQResult", "PACResult", "EQPACResult",
           "to_equivalence_learner", "from_equivalence_learner", "online_to_pac", "eq_to_pac"]


_FIRST_BLOCK = 64         # rows predicted per call after a mistake; doubles while none is found


def _check_optional_int(owner, name, value, low):
    return None if value is None else check_int(owner, name, value, low)


def _check_unit(owner, name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or \
            not 0.0 < float(value) < 1.0:
        raise ValueError(f"{owner}: parameter {name} must be a real number in (0, 1), got "
                         f"{value!r}")
    return float(value)


def _check_learner(owner, learner, name="learner"):
    if isinstance(learner, type):
        raise TypeError(f"{owner}: parameter {name} must be a learner instance, got the class "
                        f"{learner.__name__}; pass an instance such as {learner.__name__}()")
    for method in ("partial_fit", "predict"):
        if not callable(getattr(learner, method, None)):
            raise TypeError(f"{owner}: parameter {name} must be an online learner with "
                            f"partial_fit and predict, got {type(learner).__name__} "
                            f"({learner!r})")
    if getattr(learner, "_randomized", False):
        raise ValueError(f"{owner}: parameter {name} must predict deterministically from its "
                         f"state; {type(learner).__name__} draws its predictions at random")
    return learner


def _check_classes(owner, classes):
    if classes is None or isinstance(classes, (str, bytes)):
        raise ValueError(f"{owner}: parameter classes must hold exactly two distinct labels, "
                         f"got {classes!r}")
    try:
        cl = np.unique(np.asarray(classes))
    except TypeError:
        raise ValueError(f"{owner}: parameter classes must hold exactly two distinct labels, "
                         f"got {classes!r}") from None
    if cl.ndim != 1 or cl.shape[0] != 2:
        raise ValueError(f"{owner}: parameter classes must hold exactly two distinct labels, "
                         f"got {classes!r}")
    return cl


def _is_fitted(learner):
    return getattr(learner, "classes_", None) is not None


def _n_rows(owner, X):
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{owner}: X must be an array-like of rows, got {type(X).__name__}")
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    try:
        return len(X)
    except TypeError:
        raise TypeError(f"{owner}: X must be an array-like of rows, got "
                        f"{type(X).__name__}") from None


def _rows_of(X):
    """X as given (lists stay lists: a learner may read a list of lists differently from an
    array, e.g. Winnow's lists of active indices); slices of it are passed on."""
    return X


def _wrapper_rows(owner, X):
    """X for a wrapper that hands slices of it to a learner: a sparse matrix checked once
    (then sliced safely), anything else as given."""
    if X is not None and not isinstance(X, (np.ndarray, list, tuple, str, bytes)) and \
            is_sparse(X):
        # checked once (scipy's own row slicing trusts the index arrays, which a caller may
        # have changed after construction, and drops out-of-range columns silently; BSR and
        # COO matrices cannot be sliced at all), then sliced by rows for the wrapped learner
        b = check_X(owner, X)
        return CSR(b.data, b.indices, b.indptr, (b.n, b.d))
    if X is not None and not isinstance(X, (str, bytes)) and hasattr(X, "shape") and \
            not hasattr(X, "__getitem__"):
        raise TypeError(f"{owner}: X must be an array-like of rows (an array, a list of rows "
                        f"or a sparse matrix), got {type(X).__name__}")
    return X


def _wrapped_error(owner, inner, r, exc):
    """An error the wrapped learner raised on row r of X, given to it alone (a one-row batch),
    as the wrapper's: naming the wrapper and the row of X, then the learner's own message."""
    msg = re.sub(r"\brow 0\b", f"row {r}", str(exc))  # its one-row batch is row r of X
    kind = ValueError if isinstance(exc, ValueError) else TypeError
    return kind(f"{owner}: the wrapped learner refused row {r} of X: {msg}")


def _initial_predictions(learner, X, classes, owner=None):
    """The predictions of an unfitted learner's initial hypothesis on the rows of X: for each
    row, a copy of the learner is run online on (row, classes[0]) and what it predicted first
    is read back.  One copy and one call per row: a Python loop, used only while the learner
    has seen nothing."""
    X = _rows_of(X)
    n = _n_rows("_initial_predictions", X)
    cl = list(classes)
    out = []
    for t in range(n):
        probe = copy.deepcopy(learner)
        try:
            run = run_online(probe, X[t:t + 1], np.asarray(cl[:1]), classes=cl)
        except (ValueError, TypeError) as exc:
            if owner is None:
                raise
            raise _wrapped_error(owner, learner, t, exc) from exc
        out.append(run.predictions[0])
    return np.asarray(out)


class _InitialHypothesis:
    """The initial hypothesis of an unfitted learner, as a callable (see _initial_predictions)."""

    def __init__(self, learner, classes):
        self.learner = learner
        self.classes = classes

    def __call__(self, X):
        return _initial_predictions(self.learner, X, self.classes)


# -- conservative learners (Kanade Prop. 3) and EQ learners run online (Prop. 7) ------------

class _BlockOnline(OnlineCounts):
    """The shared protocol of the wrappers: one hypothesis at a time, predicted on blocks of
    rows until the first mistake, which alone changes the state.

    Subclasses provide ``_predict_codes(X, a, b)`` (the current hypothesis's class codes on
    rows a..b-1, one batch call), ``_learn_row(X, ya, codes, j, guard)`` (take the mistake of
    row j) and may override ``_advance`` for a state that cannot predict in batches yet.
    Codes are class indices into ``classes_``.
    """

    def get_params(self, deep=True):
        """The constructor parameters, as a dict."""
        return {self._PARAM: getattr(self, self._PARAM)}

    def set_params(self, **params):
        """Set the constructor parameter; returns self.  The fitted state is kept (the new value
        takes effect at the next reset, ``mbcore.clone``)."""
        for k, v in params.items():
            if k != self._PARAM:
                raise ValueError(f"{type(self).__name__}: invalid parameter {k!r}; valid "
                                 f"parameters are [{self._PARAM!r}]")
            setattr(self, k, v)
        return self

    def __repr__(self):
        return f"{type(self).__name__}({self._PARAM}={getattr(self, self._PARAM)!r})"

    def _check_fitted(self, what):
        if getattr(self, "classes_", None) is None:
            raise NotFittedError(f"{type(self).__name__}: call partial_fit before {what}")

    def _advance(self, X, ya, codes, start, n, guard):
        """Predict rows start.. with the current hypothesis until its first mistake, and learn
        that row.  Returns (j, codes predicted for rows start..stop-1) with j the mistake's row
        (stop = j + 1) or -1 (stop = n).  The block of rows predicted per call starts at 64 and
        doubles while no mistake is found."""
        out = []
        t, block = start, _FIRST_BLOCK
        while t < n:
            b = min(n, t + block)
            p = self._predict_codes(X, t, b)
            wrong = np.flatnonzero(p != codes[t:b])
            if wrong.shape[0]:
                k = int(wrong[0])
                out.append(p[:k + 1])
                self._learn_row(X, ya, codes, t + k, guard)
                return t + k, np.concatenate(out)
            out.append(p)
            t = b
            block *= 2
        return -1, (np.concatenate(out) if out else np.empty(0, dtype=np.int32))

    def _sweep(self, X, ya, codes, n, guard):
        preds = np.empty(n, dtype=np.int32)
        t = 0
        while t < n:
            j, p = self._advance(X, ya, codes, t, n, guard)
            stop = n if j < 0 else j + 1
            preds[t:stop] = p
            t = stop
        return preds

    def _record_labels(self, pred):
        """Labels from the codes ``_online`` returns (used by :func:`mbcore.run_online`)."""
        cl = self.classes_
        if cl.shape[0] == 2:
            return cl[(np.asarray(pred) > 0).astype(np.intp)]
        return cl[np.asarray(pred)]

    def _encode_labels(self, owner, y, n):
        """(labels as an array, class codes int32); the learners' messages for bad labels."""
        cl = self.classes_
        if cl.shape[0] == 2:
            yy = encode_y(owner, y, n, cl)
            return np.asarray(y), (yy > 0).astype(np.int32)
        if y is None or isinstance(y, (str, bytes)):        # (in the conversions' words)
            raise TypeError(f"{owner}: y must be a 1-D array-like of labels, got "
                            f"{type(y).__name__}")
        ya = check_labels(owner, np.asarray(y), n, nan=False)  # (NaN: encode_codes names it)
        return ya, encode_codes(owner, ya, cl, lambda b: f"y[{b[0]}]")

    def _check_classes_again(self, owner, classes):
        if classes is not None:
            cl = infer_classes(owner, (), classes, max_classes=None)
            if cl.tolist() != self.classes_.tolist():
                raise ValueError(f"{owner}: classes={cl.tolist()!r} differs from the fitted "
                                 f"classes {self.classes_.tolist()!r}")

    def _tally(self, preds, codes):
        """Count a finished batch and return ``_online``'s triple."""
        errors = preds != codes
        self._counts[0] += preds.shape[0]
        self._counts[1] += int(errors.sum())
        return self._returned(preds, codes, errors)

    def _returned(self, codes_pred, codes_y, errors):
        """The (pred, upd, yy) triple of ``_online``: +-1 int8 for two classes (like
        OnlineLearner), class indices otherwise."""
        if self.classes_.shape[0] == 2:
            return ((2 * codes_pred - 1).astype(np.int8), errors.astype(np.uint8),
                    (2 * codes_y - 1).astype(np.int8))
        return codes_pred, errors.astype(np.uint8), codes_y

    def partial_fit(self, X, y, classes=None):
        """Run the online protocol over the rows of X in order; returns self.

        Parameters
        ----------
        X : array-like of shape (n_samples, ...)
        y : array-like of shape (n_samples,)
        classes : array-like of labels, optional
            Needed on the first call only when y alone does not tell the pair.
        """
        self._online(X, y, classes)
        return self


class Conservative(_BlockOnline):
    """The conservative form of any online learner (Kanade Definition 2 and Prop. 3).

    Update rule: predict with the wrapped learner's current hypothesis; pass an example to it
    only when that prediction was a mistake.  The wrapped learner is a fresh copy
    (``copy.deepcopy``) of ``learner``, so it sees exactly the subsequence of examples on which
    the wrapper erred, and the wrapper's state changes only after a mistake.

    Mistake bound (Kanade Prop. 3): the same as the wrapped learner's, B: the wrapper's
    hypothesis at time t is the learner's after its m(t) mistakes, so every mistake of the
    wrapper is a mistake of the learner on the subsequence it was shown.

    Parameters
    ----------
    learner : an mbcore online learner (or any object with ``partial_fit`` and ``predict``)
        Copied, never modified.  It must predict deterministically from its state
        (``RandomizedWeightedMajority`` is refused).

    Attributes
    ----------
    learner_ : the wrapped copy
    classes_ : ndarray
    n_seen_ : int
        Examples seen.
    mistakes_ : int
        Wrong predictions of the wrapper.
    updates_ : int
        Examples passed to the wrapped learner: the mistakes, by definition (the wrapped
        learner may change its state on fewer of them, see ``learner_.updates_``).

    Notes
    -----
    Batches: while the wrapped learner is fitted its state does not change until a mistake, so
    one ``predict`` call covers a block of rows (64, doubling while no mistake is found, back
    to 64 after one); the first mistake is passed with one ``partial_fit`` call; the cost is
    O(rows + mistakes x block).  mbcore learners cannot predict before their first
    ``partial_fit``, so until the first mistake each row is *probed*: ``run_online`` on a
    deep copy of the wrapped learner tells its initial prediction; on a mistake the copy,
    which has learned exactly that row, is kept (one copy per row until then).  ``classes``
    (or the labels inferred from y as the learners do) are passed on with the first example.
    Calls are all or nothing: on an error the wrapper is left as it was before the call.
    ``predict`` before the first mistake probes one row at a time in the same way.
    ``mbcore.run_online(Conservative(...), X, y)`` records the online predictions.

    Examples
    --------
    Margin Perceptron on the mushrooms updates on its margin mistakes too; its conservative
    form passes on only the examples it got wrong, and keeps the same bound.

    >>> from mbcore import MarginPerceptron, run_online
    >>> from mbcore.datasets import load_mushrooms
    >>> X, y = load_mushrooms()
    >>> c = Conservative(MarginPerceptron(gamma=0.05))
    >>> run = run_online(c, X, y)
    >>> run.mistakes == c.mistakes_ == c.updates_ == c.learner_.n_seen_, c.n_seen_
    (True, 8124)
    >>> mp = MarginPerceptron(gamma=0.05).partial_fit(X, y)
    >>> bool(mp.updates_ > mp.mistakes_), c.updates_ <= 12 / 0.05 ** 2
    (True, True)
    """

    def __init__(self, learner):
        self.learner = learner

    _PARAM = "learner"     # the one constructor parameter (get_params, set_params, repr)

    def _wrapped_learner(self):
        """(the wrapped learner after a run, why its bound is the wrapper's): the hook
        :func:`mbcore.certify` asks a wrapper for, to check the run against the wrapped
        learner's bound."""
        return self.learner_, "Conservative keeps the wrapped learner's bound (Kanade Prop. 3)"

    @property
    def updates_(self):
        """Examples passed to the wrapped learner (= ``mistakes_``)."""
        self._check_fitted("updates_")
        return int(self._counts[1])

    # -- the protocol ------------------------------------------------------------------------
    def _begin(self, classes):
        self.learner_ = copy.deepcopy(self.learner)
        self.classes_ = classes
        self._counts = np.zeros(2, dtype=np.int64)

    def _predict_codes(self, X, a, b):
        try:
            p = self.learner_.predict(X[a:b])
        except (ValueError, TypeError) as exc:
            # the learner's rows are counted from a: find the row of X it refused
            for r in range(a, b):
                try:
                    self.learner_.predict(X[r:r + 1])
                except (ValueError, TypeError) as one:
                    raise _wrapped_error("Conservative", self.learner_, r, one) from exc
            raise
        return self._codes_of(p)

    def _codes_of(self, labels):
        cl = self.classes_
        p = np.asarray(labels)
        if cl.shape[0] == 2:
            return (p == cl[1]).astype(np.int32)
        return np.searchsorted(cl, p).astype(np.int32)

    def _learn_row(self, X, ya, codes, j, guard):
        inner = self.learner_
        if guard is not None and inner is guard["orig"] and guard["backup"] is None:
            guard["backup"] = copy.deepcopy(inner)
        try:
            inner.partial_fit(X[j:j + 1], ya[j:j + 1])
        except (ValueError, TypeError) as exc:
            raise _wrapped_error("Conservative", inner, j, exc) from exc

    def _advance(self, X, ya, codes, start, n, guard):
        if _is_fitted(self.learner_):
            return super()._advance(X, ya, codes, start, n, guard)
        cl = list(self.classes_)
        out = []
        for t in range(start, n):               # probes until the first mistake
            probe = copy.deepcopy(self.learner_)
            try:
                run = run_online(probe, X[t:t + 1], ya[t:t + 1], classes=cl)
            except (ValueError, TypeError) as exc:
                raise _wrapped_error("Conservative", self.learner_, t, exc) from exc
            p = int(self._codes_of(run.predictions)[0])
            out.append(p)
            if p != codes[t]:
                self.learner_ = probe            # it has learned exactly row t
                return t, np.asarray(out, dtype=np.int32)
        return -1, np.asarray(out, dtype=np.int32)

    def _online(self, X, y, classes=None):
        """partial_fit that also returns the online predictions (see OnlineLearner._online)."""
        o = "Conservative"
        _check_learner(o, self.learner)
        X = _wrapper_rows(o, X)
        n = _n_rows(o, X)
        first = getattr(self, "classes_", None) is None
        if n == 0:
            raise empty_error(o)
        if first:
            if y is None:
                raise TypeError(f"{o}: y must be a 1-D array-like of labels, got None")
            self._begin(infer_classes(o, y, classes, max_classes=None))
        try:
            if not first:
                self._check_classes_again(o, classes)
            ya, codes = self._encode_labels(o, y, n)
            guard = {"orig": self.learner_, "backup": None}
            try:
                preds = self._sweep(X, ya, codes, n, guard)
            except BaseException:
                self.learner_ = guard["backup"] if guard["backup"] is not None else guard["orig"]
                raise
        except BaseException:
            if first:
                for k in ("learner_", "classes_", "_counts"):
                    self.__dict__.pop(k, None)
            raise
        return self._tally(preds, codes)

    def predict(self, X):
        """The wrapper's prediction for each row (no state change)."""
        self._check_fitted("predict")
        if _is_fitted(self.learner_):
            return self.learner_.predict(_wrapper_rows("Conservative", X))
        X = _wrapper_rows("Conservative", X)
        if _n_rows("Conservative", X) == 0:
            raise empty_error("Conservative")
        return _initial_predictions(self.learner_, X, self.classes_, "Conservative")


class EQOnlineLearner(_BlockOnline):
    """An EQ learner run as an online learner (Kanade Prop. 7; Angluin lecture 25).

    Update rule: predict with the EQ learner's current hypothesis h; a mistake on x answers
    its pending equivalence query with the counterexample (x, label), and the learner's next
    hypothesis is used from then on.  Labels given to the generator are 0/1 (1 = the positive
    class, ``classes_[1]``); hypotheses must return 0/1 (or bool).

    Mistake bound (Kanade Prop. 7): Q, when the EQ learner needs at most Q equivalence queries
    (each mistake is one counterexample; after the last one the hypothesis equals the target).
    So ``mistakes_ <= queries_`` always, and ``mistakes_ = queries_ - 1`` until the generator
    returns.

    Parameters
    ----------
    make_learner : callable
        ``make_learner()`` returns a fresh EQ-learner generator (see the module's conventions),
        e.g. ``functools.partial(monotone_dnf_learner, mq, n)``.

    Attributes
    ----------
    hypothesis_ : callable, the current hypothesis
    queries_ : int
        Hypotheses obtained from the generator (the first one included).
    finished_ : bool
        The generator returned; its last hypothesis is kept for good.
    counterexamples_ : list of (x, label)
        The counterexamples sent, in order.
    n_seen_, mistakes_, classes_

    Notes
    -----
    Batches: h is evaluated on a block of rows at a time (64, doubling while it makes no
    mistake), so the cost is O(rows + mistakes x block) evaluations.  X must be a 2-D numeric
    array.  A generator cannot be copied, so pickling and ``copy.deepcopy`` replay the
    counterexamples through a fresh ``make_learner()`` (which must then be picklable, e.g. a
    ``functools.partial`` of a module-level function, and deterministic); the replay asks the
    learner's membership queries again (on a copy of the oracle when ``make_learner`` holds
    it).

    Examples
    --------
    >>> import functools
    >>> import numpy as np
    >>> target = MonotoneDNF([[0, 1], [2]], n=3)
    >>> online = from_equivalence_learner(
    ...     functools.partial(monotone_dnf_learner, MembershipOracle(target), 3))
    >>> X = np.random.default_rng(0).integers(0, 2, size=(200, 3))
    >>> online.partial_fit(X, target(X)).mistakes_ <= target.n_terms
    True
    >>> str(online.hypothesis_) == str(target), online.queries_ == online.mistakes_ + 1
    (True, True)
    """

    def __init__(self, make_learner):
        self.make_learner = make_learner

    _PARAM = "make_learner"

    def _start(self):
        o = "EQOnlineLearner"
        gen = _start_generator(o, self.make_learner)
        self._gen, self.hypothesis_ = gen
        self.queries_ = 1
        self.finished_ = False
        self.counterexamples_ = []

    def _predict_codes(self, X, a, b):
        p = evaluate("EQOnlineLearner", "the hypothesis", self.hypothesis_, X[a:b])
        return _zero_one("EQOnlineLearner", p).astype(np.int32)

    def _learn_row(self, X, ya, codes, j, guard):
        ce = (np.array(X[j]), int(codes[j]))
        self.counterexamples_.append(ce)
        if self.finished_:
            return
        try:
            self.hypothesis_ = self._gen.send(ce)
        except StopIteration:
            self.finished_ = True
            return
        self.queries_ += 1

    def _online(self, X, y, classes=None):
        """partial_fit that also returns the online predictions (see OnlineLearner._online)."""
        o = "EQOnlineLearner"
        check_callable(o, "make_learner", self.make_learner,
                       "a callable returning an EQ-learner generator")
        A = _data_rows(o, X)
        n = A.shape[0]
        first = getattr(self, "classes_", None) is None
        if first:
            if y is None:
                raise TypeError(f"{o}: y must be a 1-D array-like of labels, got None")
            cl = infer_classes(o, y, classes, max_classes=None)
            if cl.shape[0] != 2:
                raise ValueError(f"{o}: the labels must be two classes (Boolean concepts), got "
                                 f"{cl.tolist()!r}")
            self.classes_ = cl
            self._counts = np.zeros(2, dtype=np.int64)
        try:
            if not first:
                self._check_classes_again(o, classes)
            ya, codes = self._encode_labels(o, y, n)
            if first:
                self._start()
            preds = self._sweep(A, ya, codes, n, None)
        except BaseException:
            if first:
                for k in ("classes_", "_counts", "_gen", "hypothesis_", "queries_",
                          "finished_", "counterexamples_"):
                    self.__dict__.pop(k, None)
            raise
        return self._tally(preds, codes)

    def predict(self, X):
        """The current hypothesis's labels (in ``classes_``) for the rows of X."""
        self._check_fitted("predict")
        A = _data_rows("EQOnlineLearner", X)
        p = _zero_one("EQOnlineLearner", evaluate("EQOnlineLearner", "the hypothesis",
                                                  self.hypothesis_, A))
        return self.classes_[p.astype(np.intp)]

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_gen", None)
        state.pop("hypothesis_", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if "counterexamples_" in state:          # started: replay into a fresh generator
            gen, h = _start_generator("EQOnlineLearner", self.make_learner)
            sent = 1
            for ce in self.counterexamples_:
                if sent >= self.queries_:
                    break
                h = gen.send(ce)
                sent += 1
            self._gen, self.hypothesis_ = gen, h


def _start_generator(owner, make_learner):
    gen = make_learner()
    if not (hasattr(gen, "send") and hasattr(gen, "__next__")):
        raise TypeError(f"{owner}: make_learner() must return an EQ-learner generator (with "
                        f"send), got {type(gen).__name__}")
    try:
        h = next(gen)
    except StopIteration:
        raise ValueError(f"{owner}: the EQ learner returned before its first hypothesis") \
            from None
    return gen, h


def _zero_one(owner, p):
    if p.dtype.kind == "b":
        return p.astype(np.uint8)
    ok = (p == 0) | (p == 1)
    if not np.all(ok):
        bad = p[np.flatnonzero(~np.asarray(ok))[0]]
        raise ValueError(f"{owner}: a hypothesis must return 0/1 labels, got {scalar(bad)!r}")
    return p.astype(np.uint8)


def _data_rows(owner, X):
    A = read_2d(owner, X, sparse="keep")
    if is_sparse(A):
        raise TypeError(f"{owner}: X must be a dense 2-D array of points; sparse matrices are "
                        "not supported")
    check_2d(owner, A)
    if A.dtype.kind not in "biuf":
        raise TypeError(f"{owner}: X must hold numbers, got dtype {A.dtype}")
    return A


def from_equivalence_learner(make_learner) -> EQOnlineLearner:
    """An online learner from an EQ learner (Kanade Prop. 7): Q equivalence queries give the
    mistake bound Q.

    Parameters
    ----------
    make_learner : callable
        Returns a fresh EQ-learner generator (``next`` gives the first hypothesis, ``send``
        a counterexample (x, label) gives the next).

    Returns
    -------
    EQOnlineLearner

    Examples
    --------
    >>> import numpy as np
    >>> target = MonotoneDNF([[1], [0, 2]], n=3)
    >>> mq = MembershipOracle(target)
    >>> online = from_equivalence_learner(lambda: monotone_dnf_learner(mq, 3))
    >>> X = np.array([[0, 1, 0], [1, 0, 1], [1, 1, 1], [0, 0, 1]])
    >>> online.partial_fit(X, target(X)).mistakes_, str(online.hypothesis_)
    (2, 'x1x3 + x2')
    """
    check_callable("from_equivalence_learner", "make_learner", make_learner,
                   "a callable returning an EQ-learner generator")
    return EQOnlineLearner(make_learner)


# -- mistake bounds -> equivalence queries (Kanade Prop. 6) -------------------------------------

class EQResult:
    """What :func:`to_equivalence_learner` returns (Kanade Prop. 6).

    Attributes
    ----------
    hypothesis : the trained copy of the learner (unfitted when the very first hypothesis was
        right; :meth:`predict` works in every case)
    queries : int
        Equivalence queries asked, the final "yes" included.
    counterexamples : list of (x, label)
    exact : bool
        True when the oracle said yes, False when ``max_queries`` stopped the loop.

    Examples
    --------
    >>> from mbcore import Winnow
    >>> res = to_equivalence_learner(Winnow(), EquivalenceOracle(lambda X: X[:, 1], n=3))
    >>> res.exact, res.queries == len(res.counterexamples) + 1, res.predict([[0, 1, 0]])
    (True, True, array([1]))
    """

    def __init__(self, hypothesis, queries, counterexamples, exact, classes):
        self.hypothesis = hypothesis
        self.queries = queries
        self.counterexamples = counterexamples
        self.exact = exact
        self.classes = classes

    def predict(self, X):
        """The final hypothesis's labels (an unfitted learner's initial ones by probing)."""
        if _is_fitted(self.hypothesis):
            return self.hypothesis.predict(X)
        return _initial_predictions(self.hypothesis, X, self.classes)

    def __repr__(self):
        return (f"EQResult(queries={self.queries}, counterexamples="
                f"{len(self.counterexamples)}, exact={self.exact})")


def to_equivalence_learner(learner, eq, classes=(0, 1), max_queries=None) -> EQResult:
    """Learn with equivalence queries from a mistake-bound learner (Kanade Prop. 6).

    Ask ``eq`` with the learner's current hypothesis; a counterexample is a mistake of that
    hypothesis, so it is passed to the learner; stop at "yes".  With a mistake bound B the
    loop asks at most B + 1 queries (:func:`mbcore.bounds.equivalence_query_bound`).

    Parameters
    ----------
    learner : an mbcore online learner
        Copied (``copy.deepcopy``); the copy is trained, the original is not modified.
    eq : callable
        The equivalence oracle, e.g. an :class:`EquivalenceOracle`: ``eq(h)`` returns None or
        a counterexample ``(x, label)``.
    classes : two labels, default=(0, 1)
        The learner's classes (passed with the first counterexample); the target's labels.
    max_queries : int >= 1 or None
        Stop after this many queries (None: until "yes"; a learner that does not converge on
        the target then loops for ever).

    Returns
    -------
    EQResult

    Notes
    -----
    An mbcore learner cannot predict before its first example, so the first query's hypothesis
    is a callable that reads the learner's initial prediction on each point of the domain from
    a copy (one copy per point: a Python loop, for the first query only).

    Examples
    --------
    Conjunction elimination (mistake bound n + 1) on the conjunction x1 x3 over 4 variables:

    >>> import numpy as np
    >>> from mbcore import Conjunction
    >>> target = lambda X: (X[:, 0] & X[:, 2]).astype(np.uint8)
    >>> res = to_equivalence_learner(Conjunction(), EquivalenceOracle(target, n=4))
    >>> res.exact, res.queries <= 4 + 2, res.hypothesis.literals_
    (True, True, ['x0', 'x2'])
    """
    o = "to_equivalence_learner"
    _check_learner(o, learner)
    check_callable(o, "eq", eq, "an equivalence oracle eq(h) -> None or (x, label)")
    cl = _check_classes(o, classes)
    max_queries = _check_optional_int(o, "max_queries", max_queries, 1)
    inner = copy.deepcopy(learner)
    labels = list(cl)
    ces = []
    queries = 0
    exact = False
    while max_queries is None or queries < max_queries:
        h = inner if _is_fitted(inner) else _InitialHypothesis(inner, labels)
        ans = eq(h)
        queries += 1
        if ans is None:
            exact = True
            break
        x, label = ans
        ces.append((x, label))
        row = np.asarray(x)[None, ...]
        if _is_fitted(inner):
            inner.partial_fit(row, [label])
        else:
            inner.partial_fit(row, [label], classes=labels)
    return EQResult(inner, queries, ces, exact, cl)


# -- online -> PAC (Kanade Thm 4) and EQ -> PAC (Angluin lecture 25) ----------------------------

class PACResult:
    """What :func:`online_to_pac` returns (Kanade Thm 4).

    Attributes
    ----------
    hypothesis : Conservative
        The conservative wrapper (its ``learner_`` is the trained learner); its ``predict``
        works even when the learner never erred.  ``n_seen_ = samples``.
    samples : int
        Examples consumed (predicted); examples drawn after the stopping point are not counted.
    mistakes : int
    stopped : {"run", "mistakes", "max_samples"}
    run_length : int
        s, the run of consecutive correct predictions that stops the conversion.
    record : OnlineRun
        The online record over the consumed examples.
    X, y : ndarray
        The consumed examples, in order.

    Examples
    --------
    >>> from mbcore import Conjunction
    >>> ex = ExampleOracle(MonotoneDNF([[0, 1]], n=4), n=4, p=0.7, seed=0)
    >>> res = online_to_pac(Conjunction(), ex, B=5, epsilon=0.2, delta=0.1)
    >>> res.record.n == res.samples == res.hypothesis.n_seen_, res.record.mistakes == res.mistakes
    (True, True)
    """

    def __init__(self, hypothesis, samples, mistakes, stopped, run_length, record, X, y):
        self.hypothesis = hypothesis
        self.samples = samples
        self.mistakes = mistakes
        self.stopped = stopped
        self.run_length = run_length
        self.record = record
        self.X = X
        self.y = y

    def __repr__(self):
        return (f"PACResult(samples={self.samples}, mistakes={self.mistakes}, "
                f"stopped={self.stopped!r}, run_length={self.run_length})")


def _check_example_oracle(owner, ex):
    if not callable(getattr(ex, "draw", None)):
        raise TypeError(f"{owner}: parameter ex must be an example oracle with draw(m) -> (X, y) "
                        f"(an ExampleOracle), got {type(ex).__name__}")
    return ex


def _draw(owner, ex, m):
    X, y = ex.draw(m)
    X, y = np.asarray(X), np.asarray(y)
    if X.ndim < 1 or X.shape[0] != m or y.shape != (m,):
        raise ValueError(f"{owner}: parameter ex drew X of shape {X.shape} and y of shape "
                         f"{y.shape} for m={m}")
    return X, y


def online_to_pac(learner, ex, B, epsilon, delta, classes=(0, 1),
                  max_samples=None) -> PACResult:
    """PAC learning from a mistake-bound learner (Kanade Thm 4).

    Run the conservative form of the learner (:class:`Conservative`, Prop. 3) on examples from
    EX(c, D); stop after s = ceil((1/epsilon) ln(B/delta)) consecutive correct predictions
    (:func:`mbcore.bounds.online_to_pac_run_length`), or after B mistakes.  A hypothesis with
    error >= epsilon survives s examples with probability <= delta/B, and at most B hypotheses
    can be stopped on, so with probability >= 1 - delta the output has error < epsilon; at most
    B s examples are used (:func:`mbcore.bounds.online_to_pac_sample_size`).

    Parameters
    ----------
    learner : an mbcore online learner with mistake bound B on the target's class (copied)
    ex : ExampleOracle (anything with ``draw(m) -> (X, y)``)
    B : int or float >= 1
        The mistake bound (a real bound counts as its integer part).
    epsilon, delta : float in (0, 1)
    classes : two labels, default=(0, 1)
    max_samples : int >= 1 or None
        Stop after this many examples (``stopped="max_samples"``).

    Returns
    -------
    PACResult

    Notes
    -----
    Examples are drawn in blocks: s - (rows left over) at a time; the current hypothesis
    predicts the whole block with one call, the first mistake (if any) is passed on, and the
    rows after it are *reused* for the next hypothesis.  This is sound: those rows were drawn
    independently of the mistake, hence of the next hypothesis, so the next hypothesis is
    still tested on i.i.d. examples.  Rows left over at the end are not counted in
    ``samples`` (``ex.calls`` counts them).

    Examples
    --------
    >>> from mbcore import Winnow
    >>> from mbcore.bounds import online_to_pac_sample_size, winnow_bound
    >>> target = MonotoneDNF([[1], [6]], n=8)                 # x2 or x7
    >>> ex = ExampleOracle(target, n=8, p=0.3, seed=1)
    >>> B = winnow_bound(2, 8)                 # a real bound: at most its integer part
    >>> res = online_to_pac(Winnow(), ex, B, epsilon=0.1, delta=0.05)
    >>> res.stopped, res.samples <= online_to_pac_sample_size(B, 0.1, 0.05)
    ('run', True)
    >>> bool(res.record.errors[-res.run_length:].any())
    False
    """
    o = "online_to_pac"
    _check_learner(o, learner)
    _check_example_oracle(o, ex)
    B = _budget(o, "B", B, 1)
    epsilon = _check_unit(o, "epsilon", epsilon)
    delta = _check_unit(o, "delta", delta)
    cl = _check_classes(o, classes)
    max_samples = _check_optional_int(o, "max_samples", max_samples, 1)
    s = online_to_pac_run_length(B, epsilon, delta)
    cons = Conservative(learner)
    cons._begin(cl)
    pool_X: Any = None
    pool_y: Any = None
    parts_X, parts_y, parts_p = [], [], []
    samples = mistakes = 0
    stopped = None
    while stopped is None:
        room = s if max_samples is None else min(s, max_samples - samples)
        if room <= 0:
            stopped = "max_samples"
            break
        have = 0 if pool_X is None else pool_X.shape[0]
        if have > room:
            pool_X, pool_y = pool_X[:room], pool_y[:room]
        elif have < room:
            Xn, yn = _draw(o, ex, room - have)
            if pool_X is None or have == 0:
                pool_X, pool_y = Xn, yn
            else:
                pool_X, pool_y = np.concatenate([pool_X, Xn]), np.concatenate([pool_y, yn])
        m = pool_X.shape[0]
        ya, codes = cons._encode_labels(o, pool_y, m)
        j, p = cons._advance(pool_X, ya, codes, 0, m, None)
        stop = m if j < 0 else j + 1
        parts_X.append(pool_X[:stop])
        parts_y.append(pool_y[:stop])
        parts_p.append(p)
        samples += stop
        if j < 0:
            stopped = "run" if m == s else "max_samples"
            break
        mistakes += 1
        if mistakes >= B:
            stopped = "mistakes"
            break
        pool_X, pool_y = pool_X[stop:], pool_y[stop:]
    cons._counts[0] = samples
    cons._counts[1] = mistakes
    if parts_X:
        X, y, p = np.concatenate(parts_X), np.concatenate(parts_y), np.concatenate(parts_p)
    else:
        X, y, p = np.empty((0,)), np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int32)
    codes_y = (y == cl[1]) if y.shape[0] else np.empty(0, dtype=bool)
    errors = p.astype(bool) != codes_y
    record = OnlineRun(cl[p.astype(np.intp)], errors, errors.copy(), codes_y.view(np.uint8), cl)
    return PACResult(cons, samples, mistakes, stopped, s, record, X, y)


class EQPACResult:
    """What :func:`eq_to_pac` returns (Angluin lecture 25).

    Attributes
    ----------
    hypothesis : the last hypothesis tested (accepted unless ``stopped`` says otherwise)
    samples : int
        Examples consumed by the tests (rows drawn after the last counterexample are reused
        by the next test; rows left at the end are not counted).
    queries : int
        Hypotheses tested (simulated equivalence queries).
    stopped : {"accepted", "max_queries", "learner"}
        "learner": the EQ learner returned instead of giving a new hypothesis.
    counterexamples : list of (x, label)

    Examples
    --------
    >>> target = MonotoneDNF([[0], [2, 3]], n=4)
    >>> mq = MembershipOracle(target)
    >>> res = eq_to_pac(lambda: monotone_dnf_learner(mq, 4), ExampleOracle(target, n=4, seed=0),
    ...                 epsilon=0.1, delta=0.1)
    >>> res.queries == len(res.counterexamples) + 1, res.stopped
    (True, 'accepted')
    """

    def __init__(self, hypothesis, samples, queries, stopped, counterexamples):
        self.hypothesis = hypothesis
        self.samples = samples
        self.queries = queries
        self.stopped = stopped
        self.counterexamples = counterexamples

    def __repr__(self):
        return (f"EQPACResult(samples={self.samples}, queries={self.queries}, "
                f"stopped={self.stopped!r})")


def eq_to_pac(make_learner, ex, epsilon, delta, budget="geometric",
              max_queries=None) -> EQPACResult:
    """PAC learning from an EQ learner by sampling (Angluin lecture 25).

    Each equivalence query EQ(h_i) is simulated by testing h_i on
    m_i = ceil((1/epsilon) ln(1/delta_i)) examples from EX(c, D)
    (:func:`mbcore.bounds.eq_test_sample_size`, delta_i = delta/2^i or 6 delta/(pi^2 i^2)):
    the first example h_i gets wrong is the counterexample; none means h_i is output.  The
    delta_i sum to at most delta, so the output has error <= epsilon with probability
    >= 1 - delta.

    Parameters
    ----------
    make_learner : callable
        Returns a fresh EQ-learner generator, e.g. ``lambda: monotone_dnf_learner(mq, n)``
        (with membership queries: the PAC + MQ model of lecture 25).
    ex : ExampleOracle
    epsilon, delta : float in (0, 1)
    budget : {"geometric", "basel"}, default="geometric"
    max_queries : int >= 1 or None
        Stop after testing this many hypotheses.

    Returns
    -------
    EQPACResult

    Notes
    -----
    A test sample is drawn in one block; rows after a counterexample are reused at the start of
    the next test (they are independent of the counterexample, hence of the next hypothesis;
    m_i grows with i, so they never exceed the next test).

    Examples
    --------
    >>> target = MonotoneDNF([[0, 1], [2, 3], [5]], n=6)
    >>> mq = MembershipOracle(target)
    >>> ex = ExampleOracle(target, n=6, seed=3)
    >>> res = eq_to_pac(lambda: monotone_dnf_learner(mq, 6), ex, epsilon=0.05, delta=0.05)
    >>> res.stopped, res.queries <= target.n_terms + 1
    ('accepted', True)
    """
    o = "eq_to_pac"
    check_callable(o, "make_learner", make_learner,
                   "a callable returning an EQ-learner generator")
    _check_example_oracle(o, ex)
    epsilon = _check_unit(o, "epsilon", epsilon)
    delta = _check_unit(o, "delta", delta)
    if budget not in ("geometric", "basel"):
        raise ValueError(f"{o}: parameter budget must be 'geometric' or 'basel', got {budget!r}")
    max_queries = _check_optional_int(o, "max_queries", max_queries, 1)
    gen, h = _start_generator(o, make_learner)
    i = 1
    samples = 0
    ces = []
    pool_X: Any = None
    pool_y: Any = None
    while True:
        m = eq_test_sample_size(i, epsilon, delta, budget)
        have = 0 if pool_X is None else pool_X.shape[0]
        if have < m:
            Xn, yn = _draw(o, ex, m - have)
            if have == 0:
                pool_X, pool_y = Xn, yn
            else:
                pool_X, pool_y = np.concatenate([pool_X, Xn]), np.concatenate([pool_y, yn])
        pred = evaluate(o, "the hypothesis", h, pool_X[:m])
        bad = np.flatnonzero(pred != pool_y[:m])
        if bad.shape[0] == 0:
            samples += m
            stopped = "accepted"
            break
        j = int(bad[0])
        samples += j + 1
        ce = (np.array(pool_X[j]), scalar(pool_y[j]))
        ces.append(ce)
        pool_X, pool_y = pool_X[j + 1:], pool_y[j + 1:]
        if max_queries is not None and i >= max_queries:
            stopped = "max_queries"
            break
        try:
            h = gen.send(ce)
        except StopIteration:
            stopped = "learner"
            break
        i += 1
    return EQPACResult(h, samples, i, stopped, ces)
