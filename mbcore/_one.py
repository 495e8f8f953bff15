"""One example at a time, on dict features: ``learn_one``, ``predict_one``, ``predict_proba_one``.

Mixed into ``OnlineLearner`` (``mbcore.base``).  An example is a dict ``{name: value}``; the
names map to columns through a compiled hash map (``mbcore._kernels.names.NameIndex``), which
writes the values into a preallocated row, and that row goes down the learner's one-row path
(the same kernel as ``partial_fit``), so a stream of ``learn_one`` calls gives, bit for bit,
what ``partial_fit`` gives on the same rows as a matrix whose columns are the names in the order
they first arrived (a name first seen at row 500 is a column of zeros before it).

What a family allows is declared on its class, its tag ``dict_features`` (``mbcore._tags``):

* ``"grow"``: a rule that does not depend on the number of features (the additive family):
  a new name is a new column whose weight starts at zero; the learner widens its state in place
  (``_grow_features(d)``, capacity doubling: amortised O(1) per name);
* ``"fixed"``: a rule that depends on n (Winnow's threshold, the Boolean learners' literals,
  the experts of a pool, the kernel Perceptron's default gamma = 1/n): the names are given up
  front, ``features=[...]`` at the first call, and any other name is an error;
* None (the default for learners whose rows are not feature vectors): refused.

A learner whose class leaves it unset takes ``"fixed"`` when its rows are feature vectors or
advice (tag ``takes``), else None.

The names are state: ``_feature_names`` (a list, saved by ``mbcore.persistence`` and
pickled, extended when a call that brought new names succeeds); the index is a cache
(``_one``), rebuilt from it.
"""


import numpy as np

from ._kernels.names import NameIndex
from ._locking import get_ident
from ._validation import Batch, row_error, same_classes

__all__ = ["OneExample", "widen", "MISS", "learn_one_error", "no_proba_message",
           "NoProbabilities"]

# what a family's fused path returns when the general path must take the example
MISS = object()

_GROW, _IGNORE, _FIXED = 0, 1, 2
_REASONS = {
    "grow": None,
    "fixed": "its rule depends on the number of features",
}


def _modes(idx, mode):
    """The cache of the index: (index, fill's mode for learn_one, fill's mode for predict)."""
    return (idx, _GROW, _IGNORE) if mode == "grow" else (idx, _FIXED, _FIXED)


def widen(a, head, new_head, tail):
    """The 1-D array a = [head values, tail values] as [the same head values, zeros up to
    new_head, the tail values] (new_head >= head), in place in the buffer a is a prefix of when
    the buffer has room, else in a new buffer of twice the size (so a sequence of widenings
    costs amortised O(1) per new value).  Returns the widened array (a view of the buffer);
    a itself keeps its head, and its tail when it was not moved in place."""
    need = new_head + tail
    base = a.base
    moved = a[head:head + tail].copy()
    if isinstance(base, np.ndarray) and base.ndim == 1 and base.dtype == a.dtype and \
            base.flags.writeable and base.shape[0] >= need and a.shape[0] > 0 and \
            a.__array_interface__["data"][0] == base.__array_interface__["data"][0]:
        buf = base
    else:
        buf = np.zeros(max(need, 2 * a.shape[0]), dtype=a.dtype)
        buf[:head] = a[:head]
    buf[head:new_head] = 0.0
    buf[new_head:need] = moved
    return buf[:need]


def _fill_error(owner, idx, status, x):
    """The exception for a negative status of ``NameIndex.fill`` (nothing was changed)."""
    k, v = idx.bad_key, idx.bad_value
    if status == -4:
        return TypeError(f"{owner}: x must be a dict {{feature name: value}}, got "
                         f"{type(x).__name__}")
    if status == -1:
        return TypeError(f"{owner}: x[{k!r}] = {v!r} is not a real number (a value of type "
                         f"{type(v).__name__}); the values of x must be bool, int or float")
    if status == -2:
        return ValueError(f"{owner}: x[{k!r}] = {v!r} is not finite (NaN, infinity, or an "
                          "int too large for a float)")
    return ValueError(f"{owner}: feature {k!r} is not one of the {idx.n} names the learner "
                      "was given (features=); its rule depends on the number of features, so "
                      "they are fixed at the first call")


# learn_one's words for the errors about its label that it shares with partial_fit
# (mbcore._validation words them for partial_fit): (what partial_fit says, what learn_one
# says instead); a label outside the fitted classes gets LEARN_ONE_NEW_LABEL added
_FIRST_CALL = ("the first partial_fit", "the first learn_one")
_BALANCED = ("is not supported for partial_fit", "is not supported for learn_one")
_NEW_LABEL = "outside the fitted classes"
LEARN_ONE_NEW_LABEL = ("; a learner's classes are fixed when it starts (one that took a class "
                       "later would not be the learner that knew it from the start): give every "
                       "label up front, as classes=")


def learn_one_error(exc):
    """The error ``exc`` raised under ``learn_one`` (a ValueError), in ``learn_one``'s words:
    the first call it names is learn_one, not partial_fit, and a label outside the fitted
    classes says how to give every label up front (``classes=``).  Others: ``exc`` itself.
    The twin words them the same (``mbref._one.learn_one_error``)."""
    msg = str(exc)
    for was, now in (_FIRST_CALL, _BALANCED):
        if was in msg:
            return ValueError(msg.replace(was, now))
    if _NEW_LABEL in msg and not msg.endswith(LEARN_ONE_NEW_LABEL):
        return ValueError(msg + LEARN_ONE_NEW_LABEL)
    return exc


class NoProbabilities(AttributeError, NotImplementedError):
    """What asking a learner without probabilities for ``predict_proba_one`` raises: an
    AttributeError (so ``hasattr`` is False, as for any method a class cannot compute) that is
    also river's NotImplementedError (its checks allow a classifier without probabilities)."""


class _ProbaOne:
    """``predict_proba_one``: the method where the class defines probabilities of its classes
    (``_proba_one_row``: the randomized Weighted Majority), absent elsewhere (an
    AttributeError that says why, so ``hasattr`` is False and a caller that needs
    probabilities, e.g. river's ROCAUC, is told)."""

    def __init__(self, method):
        method.__name__ = "predict_proba_one"
        method.__qualname__ = method.__qualname__.replace("_predict_proba_one",
                                                          "predict_proba_one")
        self.method = method
        self.__doc__ = method.__doc__

    def __get__(self, obj, cls=None):
        cls = type(obj) if cls is None else cls
        if cls._proba_one_row is OneExample._proba_one_row:
            raise NoProbabilities(no_proba_message(cls.__name__))
        return self.method if obj is None else self.method.__get__(obj, cls)


def no_proba_message(name):
    """Why ``name`` has no ``predict_proba_one`` (mbcore.river says the same)."""
    return (f"{name} predicts labels, not probabilities: it has no predict_proba_one, so a "
            "metric that needs probabilities (river's ROCAUC, LogLoss) cannot score it; score "
            "its labels (Accuracy, F1)")


class OneExample:
    """``learn_one`` / ``predict_one`` / ``predict_proba_one`` on dict features (see the
    module's docstring); mixed into ``OnlineLearner``."""

    def _dict_mode(self):
        """"grow", "fixed", or None (see the module's docstring)."""
        m = self._TAGS.dict_features
        if m is None and self._TAGS.takes in ("features", "advice"):
            return "fixed"
        return m

    @property
    def feature_names_in_(self):
        """The names of the features, column by column (an object array), for a learner that
        saw dict examples (``learn_one``); absent otherwise."""
        names = self.__dict__.get("_feature_names")
        if names is None:
            raise AttributeError(f"{type(self).__name__} has no feature_names_in_: it was "
                                 "not given dict examples (learn_one)")
        out = np.empty(len(names), dtype=object)
        out[:] = names
        return out

    # -- the index of the names ---------------------------------------------------------------
    def _one_index(self, features):
        """(NameIndex, mode of fill) of a fitted learner: the cache, or one rebuilt from the
        saved names, or from ``features`` for a learner fitted on arrays."""
        one = self.__dict__.get("_one")
        if one is not None and features is None:
            return one
        o = self._owner
        mode = self._dict_mode()
        names = self.__dict__.get("_feature_names")
        if names is None:
            if features is None:
                raise ValueError(f"{o}: the learner was fitted on arrays, whose columns have no "
                                 "names; pass features=[one name per column] to learn_one to "
                                 "name them")
            names = self._checked_features(features)
            if len(names) != self.n_features_in_:
                raise ValueError(f"{o}: features has {len(names)} names, the learner has "
                                 f"{self.n_features_in_} features")
            idx = NameIndex(names)
            self._feature_names = names
        else:
            if features is not None and list(features) != names:
                raise ValueError(f"{o}: features={list(features)!r} differs from the names "
                                 f"the learner has ({names!r})")
            idx = NameIndex(names)
        one = self._one = _modes(idx, mode)
        return one

    def _checked_features(self, features):
        o = self._owner
        if isinstance(features, (str, bytes, dict)) or not hasattr(features, "__iter__"):
            raise TypeError(f"{o}: parameter features must be a list of feature names, got "
                            f"{type(features).__name__}")
        names = list(features)
        if not names:
            raise ValueError(f"{o}: parameter features must name at least one feature, got []")
        try:
            NameIndex(names)
        except ValueError as exc:
            raise ValueError(f"{o}: parameter features: {exc}") from None
        except TypeError:
            raise TypeError(f"{o}: parameter features must hold hashable names") from None
        return names

    # -- learn_one ----------------------------------------------------------------------------
    def learn_one(self, x, y, *, classes=None, features=None):
        """Learn from one example: predict it, then update, exactly as ``partial_fit`` does on
        one row.

        Parameters
        ----------
        x : dict
            ``{feature name: value}``: names are any hashable values (str in practice),
            values real numbers (bool, int, float, NumPy scalars), finite.  A name seen for
            the first time is a new column, zero in every earlier example (learners whose rule
            depends on the number of features take their names up front: ``features``).
            A missing name is a zero.
        y : label
            One of the classes.  Like ``partial_fit``, the first call learns the classes from
            ``classes``, or from y alone where y names its pair (a bool: False/True; -1 or 0:
            with 1).
        classes : array-like, optional
            The classes, at the first call (as for ``partial_fit``).
        features : list of names, optional
            The names, in column order, for the learners whose rule depends on the number of
            features (then required at the first call; any other name is then an error), or
            to name the columns of a learner fitted on arrays.

        Returns
        -------
        self

        Raises
        ------
        TypeError
            x is not a dict, or holds a value that is not a real number.
        ValueError
            A value is NaN or infinite, y is not a class, or a name is not one of
            ``features``.  A call that raises leaves the learner as it was.

        Examples
        --------
        The bundled mushrooms, each row's non-zero entries as a dict:

        >>> import numpy as np
        >>> from mbcore import Perceptron
        >>> from mbcore.datasets import load_mushrooms
        >>> X, y = load_mushrooms()
        >>> clf = Perceptron()
        >>> for i in range(X.shape[0]):
        ...     x = {f"x{j}": X[i, j] for j in np.flatnonzero(X[i])}
        ...     _ = clf.learn_one(x, int(y[i]), classes=[-1, 1] if i == 0 else None)
        >>> clf.mistakes_, clf.n_features_in_, clf.predict_one({"x5": 1.0, "x14": 1.0})
        (54, 112, 1)
        """
        if features is None:
            # the family's compiled path: the lock (taken only where nothing holds it), the
            # row, the label and the kernel in one call
            b = self.__dict__.get("_one_fast")
            if classes is None:
                status = -8 if b is None else b.learn(x, y)
            elif b is not None and (status := b.learn_given(x, y, classes)) != -7:
                # (classes whose two labels are the objects accepted last, known in the same
                # call: mbcore._validation.classes_given)
                classes = None
            elif self._known_classes(classes):
                classes = None
                status = -8 if b is None else b.learn(x, y)
            else:
                status = -8         # (the general path checks them)
            if status == 0:
                return self
            if status > 0:
                raise row_error(self._owner, Batch(X=b.one[0].view, n=1, d=b.one[0].n), 0,
                                hint=self._OVERFLOW_HINT)
        # the general path (the first call, new names, a held lock, other value types): the
        # write lock as every writing call takes it
        rw = self._rw
        me = get_ident()
        nested = rw.owner == me
        if not nested:
            rw.acquire_write(me)
        try:
            self._learn_one_general(x, y, classes, features)
            return self
        except ValueError as exc:
            worded = learn_one_error(exc)
            if worded is exc:
                raise
            raise worded from None
        finally:
            if not nested:
                rw.release_write()

    setattr(learn_one, "_mbcore_lock", "write")     # (taken above: not wrapped)

    def _known_classes(self, classes):
        """Whether ``classes`` (not None) given to ``learn_one`` are the classes the learner
        accepted last, known without the full check (``mbcore._validation.classes_given``):
        a list whose two items are the label objects accepted, or what ``same_classes``
        recognises (equal items of the same types, an array equal to ``classes_``)."""
        g = self._classes_given
        if type(classes) is list and len(classes) == 2 and classes[0] is g[0] and \
                classes[1] is g[1]:
            return True
        return same_classes(self.__dict__, classes)

    def _learn_one_general(self, x, y, classes, features):
        """learn_one's general path, under the write lock."""
        d = self.__dict__
        one = d.get("_one")
        if one is None or classes is not None or features is not None:
            self._learn_one_slow(x, y, classes, features)
        else:
            idx, mode, _ = one
            n0 = self.n_features_in_
            n = idx.fill(x, mode)
            if n < 0:
                raise _fill_error(self._owner, idx, n, x)
            if n != n0:
                self._learn_one_grow(idx, n0, n, y)
            else:
                fast = d.get("_fast")
                view = idx.view
                if fast is None or not self._one_step(fast, view, y):
                    self._learn(view, [y], None, False)
                    self._fast = self._fast_path()
        self._bind_one()

    def _learn_one_grow(self, idx, n0, n, y):
        """A step that brought new names: widen the state, then step; undo both on failure."""
        undo = self._grow_features(n)
        try:
            fast = self._fast = self._fast_path()
            view = idx.view
            if fast is None or not self._one_step(fast, view, y):
                self._learn(view, [y], None, False)
                self._fast = self._fast_path()
        except BaseException:
            idx.truncate(n0)
            undo()
            raise
        self._feature_names.extend(idx.names_from(n0))

    def _bind_one(self):
        """Make the family's compiled one-example object for the current state and index
        (``_one_fast``, a cache: it checks itself that it is current)."""
        d = self.__dict__
        fast, one = d.get("_fast"), d.get("_one")
        b = d.get("_one_fast")
        if fast is None or one is None or (b is not None and b.fast is fast and b.one is one):
            return
        d["_one_fast"] = self._one_binder(fast, one)

    def _one_binder(self, fast, one):
        """A family's compiled one-example object (a ``mbcore._kernels.names.OneFast``) for
        the state ``fast`` and the index ``one``; None: the general path only."""
        return None

    def _one_step(self, fast, view, y):
        """learn_one's step on the row (the fast path of ``partial_fit``; a family may have a
        leaner one); False: take the general path."""
        return self._fast_step(fast, view, [y])

    def _grow_features(self, d):
        """Widen the state to d features, new weights at their initial value; returns a function
        that puts the old width back.  Only asked of a learner whose ``_dict_mode()`` is
        "grow" (the families that declare it override this); any other says why it cannot."""
        raise ValueError(f"{self._owner}: cannot add features to grow from "
                         f"{self.n_features_in_} to {d} (its names are fixed: "
                         f"_DICT_FEATURES = {self._dict_mode()!r})")

    def _learn_one_slow(self, x, y, classes, features):
        """The first call, or a call with ``classes`` or ``features``: the general path."""
        o = self._owner
        mode = self._dict_mode()
        if mode is None:
            raise TypeError(f"{o}: learn_one takes dict features, and {o}'s examples are not "
                            f"feature vectors (its rows are {self._TAGS.takes})")
        if not self._is_fitted():
            if mode == "fixed" and features is None:
                raise ValueError(f"{o}: {_REASONS[mode]}, so learn_one needs every feature "
                                 "name up front: pass features=[names] at the first call")
            names = self._checked_features(features) if features is not None else []
            idx = NameIndex(names)
            n = idx.fill(x, _GROW if mode == "grow" else _FIXED)
            if n < 0:
                raise _fill_error(o, idx, n, x)
            if n == 0:
                raise ValueError(f"{o}: the first example has no features (x = {x!r}); "
                                 "learn_one needs at least one to start")
            self._learn(idx.view, [y], classes, False)
            self._feature_names = idx.names
            self._one = _modes(idx, mode)
            self._fast = self._fast_path()
            return
        idx, m, _ = self._one_index(features)
        n0 = self.n_features_in_
        n = idx.fill(x, m)
        if n < 0:
            raise _fill_error(o, idx, n, x)
        undo = self._grow_features(n) if n != n0 else None
        try:
            self._learn(idx.view, [y], classes, False)
        except BaseException:
            if undo is not None:
                idx.truncate(n0)
                undo()
            raise
        if n != n0:
            self._feature_names.extend(idx.names_from(n0))
        self._fast = self._fast_path()

    # -- predict_one ----------------------------------------------------------------------------
    def _one_row(self, x):
        """The row of x for a prediction (names the learner has not seen are skipped), or None
        before any example."""
        if not self._is_fitted():
            if not isinstance(x, dict):
                raise TypeError(f"{self._owner}: x must be a dict {{feature name: value}}, "
                                f"got {type(x).__name__}")
            return None
        idx, _, mode = self._one_index(None)
        n = idx.fill(x, mode)
        if n < 0:
            raise _fill_error(self._owner, idx, n, x)
        return idx.view

    def predict_one(self, x):
        """The predicted label of one example (a dict, as for ``learn_one``); no state change.
        Before any example: None (river's convention).

        Names the learner has not seen are skipped (their weights would be zero); for the
        learners given their names up front (``features``), an unknown name is an error."""
        b = self.__dict__.get("_one_fast")
        if b is not None:
            label = b.predict(x, MISS)
            if label is not MISS:
                return label
        rw = self._rw
        me = get_ident()
        nested = rw.owner == me
        if not nested:
            rw.acquire_write(me)    # exclusive: the row buffer of the index is shared
        try:
            view = self._one_row(x)
            if view is None:
                return None
            if self.__dict__.get("_fast") is None:
                self._fast = self._fast_path()      # (a cache: after loading, unpickling)
            self._bind_one()
            return self._predict_one_row(view)
        finally:
            if not nested:
                rw.release_write()

    setattr(predict_one, "_mbcore_lock", "write")

    def _predict_one_row(self, view):
        """The label of the row (families with a leaner path override)."""
        v = self.predict(view)[0]
        return v.item() if isinstance(v, np.generic) else v

    def _predict_proba_one(self, x):
        """``{class: probability}`` of one example, for the learners whose prediction is drawn
        at random (the randomized Weighted Majority).  The others have no
        ``predict_proba_one`` (``hasattr`` is False; the AttributeError says why).  Before any
        example: ``{}``."""
        with self.writing():
            view = self._one_row(x)
            if view is None:
                return {}
            p = self._proba_one_row(view)
            cl = [c.item() if isinstance(c, np.generic) else c for c in self.classes_]
            return dict(zip(cl, (float(q) for q in p)))

    predict_proba_one = _ProbaOne(_predict_proba_one)

    def _proba_one_row(self, view):
        """The probability of each class (in ``classes_`` order) for the row.  Only the learners
        that predict probabilities (see ``predict_proba_one`` above) define it."""
        raise NotImplementedError(f"{type(self).__name__} defines no probabilities of classes")
