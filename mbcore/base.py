"""OnlineLearner: the online protocol shared by every mbcore learner.

State lives in NumPy arrays owned by the learner (so pickling and copying need nothing special);
the kernels bind to those arrays through a small state object that is rebuilt on demand and never
pickled.  Subclasses provide ``_init_state(d)``, ``_pass(batch, yy, pred, upd)`` (one online pass,
all or nothing, raising ValueError with the row on failure) and ``_scores(batch)``.
"""

import hashlib
import inspect
import threading
import weakref
from typing import Any, Dict

import numpy as np

from . import _registry, _tags
from ._tags import LearnerTags, tags
from ._kernels.names import known_classes
from ._locking import Guarded, get_ident
from ._one import OneExample
from ._state import StateError
from ._threads import pass_threads
from ._validation import (NO_CLASSES_GIVEN, NotFittedError, check_X, check_feature_names,
                          classes_given, encode_y, encode_y_k, feature_names, infer_classes,
                          same_classes)

__all__ = ["OnlineLearner", "ManyClasses", "NotFittedError", "Snapshot", "clone",
           "all_learners"]


def _writable(v):
    if isinstance(v, np.ndarray) and not v.flags.writeable:
        return np.array(v)
    if type(v) is list and any(isinstance(a, np.ndarray) and not a.flags.writeable for a in v):
        return [_writable(a) for a in v]
    return v


def _contents(v):
    """What of v a call may change in place: a copy of an array's values, of a list's or a
    dict's items (recursively); None for anything else (replaced, never changed in place)."""
    if isinstance(v, np.ndarray):
        return v.copy() if v.flags.writeable else None
    if type(v) is list:
        return list(v), [_contents(e) for e in v]
    if type(v) is dict:
        return dict(v), {k: _contents(e) for k, e in v.items()}
    return None


# The buffers append_record allocated: id -> (a weak reference to the buffer, how much of it
# the longest view handed out shows).  A view may grow in place only when it is that longest
# view, so two learners that share a record array (a shallow copy) never write over each
# other, nor does a learner over what a failed call appended before a Snapshot put it back.
_GROWN: Dict[int, Any] = {}
_GROWN_LOCK = threading.RLock()      # (re-entered by a weak reference's callback run by a GC)


def _forget(key):
    with _GROWN_LOCK:
        _GROWN.pop(key, None)


def append_record(learner, name, values):
    """Set ``learner.<name>`` (a 1-D record of updates) to itself followed by ``values``, in
    time proportional to ``len(values)`` on average (not to the record's length): the attribute
    becomes a read-only prefix view of a buffer with room to grow (doubled when full).  The
    elements a view shows are never written again, so a :class:`Snapshot` keeps the view by
    reference (``_contents``: a read-only array is replaced, never changed in place), and a
    copy, a pickle or a saved file holds the view's elements only."""
    cur = learner.__dict__[name]
    values = np.asarray(values, dtype=cur.dtype)
    k = int(values.shape[0])
    if k == 0:
        return
    n = int(cur.shape[0])
    buf = cur.base
    with _GROWN_LOCK:
        entry = _GROWN.get(id(buf)) if isinstance(buf, np.ndarray) else None
        ours = entry is not None and entry[0]() is buf and entry[1] == n
    if not (ours and buf.shape[0] >= n + k and cur.ctypes.data == buf.ctypes.data):
        buf = np.empty(max(64, 2 * (n + k)), dtype=cur.dtype)
        buf[:n] = cur
        key = id(buf)
        ref = weakref.ref(buf, lambda _r, key=key: _forget(key))
        with _GROWN_LOCK:
            _GROWN[key] = (ref, n)
    buf[n:n + k] = values
    view = buf[:n + k]
    view.flags.writeable = False
    with _GROWN_LOCK:
        _GROWN[id(buf)] = (_GROWN[id(buf)][0], n + k)
    learner.__dict__[name] = view


def _put_back(v, c):
    if c is None:
        return
    if isinstance(v, np.ndarray):
        np.copyto(v, c)
    elif type(v) is list:
        items, inner = c
        v[:] = items
        for e, ce in zip(items, inner):
            _put_back(e, ce)
    else:
        items, inner = c
        v.clear()
        v.update(items)
        for k, ce in inner.items():
            _put_back(items[k], ce)


class Snapshot:
    """A learner's attributes as they were, to put back when a call fails.

    ``Snapshot(learner)`` keeps every attribute object and a copy of what a call may change in
    place (array values, list and dict items, recursively; the constructor parameters are
    kept by reference only).  ``restore()`` puts the very same objects back with their old
    contents, so kernel bindings to those arrays stay valid, and removes attributes the call
    added.  With ``copy_arrays=False`` only the objects are kept: for calls that replace every
    state array instead of changing it (``fit`` after its reset).

    Used as ``with Snapshot(learner): ...``: any exception, KeyboardInterrupt included,
    restores the learner and propagates.
    """

    __slots__ = ("learner", "items")

    def __init__(self, learner, copy_arrays=True):
        self.learner = learner
        params = learner._param_names() if hasattr(learner, "_param_names") else ()
        self.items = [(k, v, _contents(v) if copy_arrays and k not in params else None)
                      for k, v in learner.__dict__.items()]

    def restore(self):
        d = self.learner.__dict__
        d.clear()
        for k, v, c in self.items:
            _put_back(v, c)
            d[k] = v

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is not None:
            self.restore()
        return False


def accuracy(learner, pred, y, n=None):
    """The share of rows whose prediction equals the label, y checked first (a ValueError or
    TypeError naming the learner for a missing, short, long or foreign label)."""
    n = len(pred) if n is None else n
    if y is None or isinstance(y, (str, bytes)) or (not hasattr(y, "__len__") and
                                                      np.ndim(y) == 0):
        raise TypeError(f"{learner._owner}: y must be a 1-D array-like of labels, got "
                        f"{type(y).__name__}")
    truth = learner._label_codes(y, n)
    return float(np.mean(learner._label_codes(pred, n) == truth))


def all_learners():
    """Every learner class of mbcore, as ``[(name, class), ...]`` (like scikit-learn's
    ``all_estimators``): the classes enter the list themselves when they are defined, by family
    and as each family lists them.  A subclass defined outside mbcore is not in it.

    Examples
    --------
    >>> import mbcore
    >>> names = [name for name, cls in mbcore.all_learners()]
    >>> names[:3], "Halving" in names
    (['Perceptron', 'MarginPerceptron', 'AveragedPerceptron'], True)
    """
    return _registry.learners()


def clone(learner):
    """A new learner with the same parameters and no fitted state (like sklearn.base.clone).

    Parameters that are learners themselves (the ``experts`` of a pool, the learner a wrapper
    holds), alone or in a list or tuple, are cloned too, so the new learner shares no state
    with the old one and training it never changes the original's experts.  Other parameters
    (numbers, strings, a ConceptClass, which no learner changes) are passed as they are."""
    def fresh(v):
        if hasattr(v, "get_params") and hasattr(v, "partial_fit") and not isinstance(v, type):
            return clone(v)
        if type(v) in (list, tuple):
            return type(v)(fresh(x) for x in v)
        return v
    return type(learner)(**{k: fresh(v) for k, v in learner.get_params(deep=False).items()})


class OnlineCounts(Guarded):
    """The online record's counters, read from ``self._counts`` (shared by the learners and
    by the wrappers of :mod:`mbcore.queries`); subclasses provide ``_check_fitted``."""

    @property
    def n_seen_(self):
        """Examples seen so far (over all calls and epochs)."""
        self._check_fitted("n_seen_")
        return int(self._counts[0])

    @property
    def mistakes_(self):
        """Wrong online predictions so far (never decreases until a reset)."""
        self._check_fitted("mistakes_")
        return int(self._counts[1])


class OnlineLearner(OneExample, OnlineCounts):
    """Base class: parameters, label mapping, ``partial_fit``/``fit``/``predict``, and one
    example at a time on dict features (``learn_one``/``predict_one``: ``mbcore._one``).

    Notes
    -----
    **Threads.**  A learner may be shared between threads.  It holds a readers-writer lock
    (``mbcore._locking.Guarded``):

    * calls that change it (``partial_fit``, ``fit``, ``_online`` and so ``run_online``,
      ``set_params``) are exclusive: concurrent calls give the result of the same calls made
      one after another, in the order they took the lock;
    * reading calls (``predict``, ``decision_function``, ``score``, ``predict_covered``, the
      public properties, ``save``, pickling and copying) share it: they run together, and
      never while a change is half done;
    * a waiting writer goes first; calls nested in the same thread take the lock once; a
      write nested in a read of the same learner raises RuntimeError (it would wait for
      itself); a call that raises releases it (its ``Snapshot`` has restored the state);
    * ``reading()`` and ``writing()`` hold it around several calls (e.g. to assign a
      parameter while other threads use the learner: plain assignment is not locked);
    * the functions that take a learner hold it across everything that must see one state
      (``mbcore._locking.holding``): ``run_online`` its pass and the mapping of the
      predictions to labels through ``classes_``, ``play_against`` its round,
      ``predict_file`` each chunk's predictions and the classes it writes them with,
      ``mbcore.distributed`` the copy it ships; ``run_stream`` and the file workflow hold it
      per chunk, not for the whole stream.

    A subclass gets this by naming its methods so (``Guarded.__init_subclass__`` wraps them);
    the lock lives in a slot, so it is never pickled, copied, saved, snapshotted or reset.

    **Threads inside one pass.**  The learners with an ``n_jobs`` parameter run each online
    pass on that many threads of their own (exact speculative blocks, ``_kernels/_spec.h``):
    the threads only read the state while they judge rows ahead, and only the calling thread
    writes it, under the write lock above.  The team is started and joined within the call,
    so nothing outlives it (fork is safe between calls), and passes of several learners, in
    several Python threads, each have their own team.  The results are those of the
    sequential pass for any number of threads.
    """

    # What the learner is, declared by each family beside its rule, as one frozen object
    # (mbcore._tags says what each fact means): the defaults here, each class declaring what
    # differs, _TAGS = tags(...), merged along the bases (__init_subclass__).  The command line,
    # persistence, mbcore.distributed, certify and streaming look them up there.
    _TAGS = LearnerTags()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _tags.settle(cls)                # the tags merged along the bases
        _registry.register(cls)          # mbcore's own public learners only (tags checked)

    # the last classes= accepted (mbcore._validation.classes_given), dropped when classes_ is
    # assigned; transient (never saved, pickled or copied)
    _classes_given = NO_CLASSES_GIVEN

    _COUNT_NAMES = ("n_seen_", "mistakes_", "updates_")
    # what an overflow's error suggests (mbcore._validation.row_error); a class whose step
    # size can make its values overflow names that parameter
    _OVERFLOW_HINT = "scale X down"

    # -- parameters (scikit-learn conventions) --------------------------------------------
    # The domain of each parameter, declared once beside the class's rule (name ->
    # mbcore._params.Constraint; merged along the bases, a subclass's entry replacing its
    # base's): _validate_params checks them, the tests draw the refused values from them and
    # the documentation's table of parameters is made from them.
    _PARAMETERS: Dict[str, Any] = {}

    @classmethod
    def _parameter_constraints(cls):
        """{parameter: constraint} of every constructor parameter the class declares, in the
        constructor's order."""
        found = cls.__dict__.get("_constraints_cache")
        if found is None:
            merged = {}
            for k in reversed(cls.__mro__):
                merged.update(k.__dict__.get("_PARAMETERS", {}))
            order = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
            found = {p: merged[p] for p in order if p in merged}
            type.__setattr__(cls, "_constraints_cache", found)
        return found

    def _check_declared_params(self):
        """Check every declared parameter's value (the first one outside its domain raises)."""
        o = self._owner
        for name, c in self._parameter_constraints().items():
            c.check(o, name, getattr(self, name))

    @classmethod
    def _get_param_names(cls):
        sig = inspect.signature(cls.__init__)
        return sorted(p for p in sig.parameters if p != "self")

    @classmethod
    def _param_names(cls):
        """The constructor parameters as a frozenset (cached per class)."""
        names = cls.__dict__.get("_names_cache")
        if names is None:
            names = frozenset(cls._get_param_names())
            type.__setattr__(cls, "_names_cache", names)
        return names

    def get_params(self, deep=True):
        """The constructor parameters, as a dict.

        With ``deep=True`` (scikit-learn's convention) a parameter that is itself an estimator
        (has ``get_params``) adds its own parameters as ``name__param`` entries.
        """
        out = {}
        for k in self._get_param_names():
            v = getattr(self, k)
            if deep and hasattr(v, "get_params") and not isinstance(v, type):
                out.update((f"{k}__{kk}", vv) for kk, vv in v.get_params(deep=True).items())
            out[k] = v
        return out

    def set_params(self, **params):
        """Set constructor parameters; returns self.  Fitted state is kept.

        ``name__param`` sets a parameter of a parameter that is an estimator (scikit-learn's
        convention).
        """
        names = self._get_param_names()
        nested = {}
        for k, v in params.items():
            k, sep, sub = k.partition("__")
            if k not in names:
                raise ValueError(f"{type(self).__name__}: invalid parameter {k!r}; valid "
                                 f"parameters are {names}")
            if sep:
                nested.setdefault(k, {})[sub] = v
            else:
                setattr(self, k, v)
        for k, sub in nested.items():
            inner = getattr(self, k)
            if not hasattr(inner, "set_params"):
                raise ValueError(f"{type(self).__name__}: parameter {k!r} is not an estimator; "
                                 f"cannot set {', '.join(k + '__' + q for q in sub)}")
            inner.set_params(**sub)
        return self

    def __repr__(self):
        defaults = {k: p.default for k, p in inspect.signature(type(self).__init__)
                    .parameters.items() if k != "self"}
        args = [f"{k}={v!r}" for k, v in self.get_params().items()
                if not (type(v) is type(defaults[k]) and v == defaults[k])]
        return f"{type(self).__name__}({', '.join(args)})"

    # -- scikit-learn (optional: imported only when scikit-learn asks) ---------------------
    _sk_sparse = False          # accepts CSR matrices
    _sk_multiclass = False      # more than two classes
    _sk_poor_score = False      # may not reach sklearn's accuracy bar on its blobs

    def __sklearn_tags__(self):
        """scikit-learn's estimator tags (a binary classifier; sklearn is imported here only,
        so it stays an optional dependency)."""
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags
        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags(poor_score=self._sk_poor_score,
                                                   multi_class=self._sk_multiclass),
                    input_tags=InputTags(sparse=self._sk_sparse))

    def __sklearn_is_fitted__(self):
        return self._is_fitted()

    def __setstate__(self, state):
        # The kernels write into the state arrays: a learner restored with read-only arrays
        # (e.g. joblib memory-mapping them) takes writable copies of those.
        self.__dict__.update({k: _writable(v) for k, v in state.items()})

    # -- safe persistence (mbcore.persistence: .npz + JSON, no pickle) --------------------
    def save(self, file, *, compress=False):
        """Save the learner (parameters and online state) to an ``.npz`` file that needs no
        pickle to read; ``mbcore.load`` (or ``type(self).load``) restores it, and the restored
        learner continues bit for bit like this one.  ``file`` is a path (str or
        os.PathLike, written as given, atomically) or a binary file object open for writing.
        See :mod:`mbcore.persistence` for the format and what cannot be saved."""
        from .persistence import save
        save(self, file, compress=compress)

    @classmethod
    def load(cls, file, *, max_bytes=None, max_meta_bytes=None):
        """Load a learner saved by ``save``; raises ``mbcore.persistence.FormatError`` (a
        ValueError) if the file is not a valid mbcore learner file, holds a learner that is
        not an instance of this class, or is larger than the limits (``max_bytes``,
        ``max_meta_bytes``: see :func:`mbcore.load`)."""
        from .persistence import load
        return load(file, expected=cls, max_bytes=max_bytes, max_meta_bytes=max_meta_bytes)

    # -- fitted attributes -------------------------------------------------------------------
    @property
    def _owner(self):
        return type(self).__name__

    def _is_fitted(self):
        return getattr(self, "classes_", None) is not None

    def _check_fitted(self, what):
        if not self._is_fitted():
            raise NotFittedError(f"{self._owner}: call partial_fit or fit before {what}")

    @property
    def updates_(self):
        """State changes so far (differs from ``mistakes_`` for margin learners)."""
        self._check_fitted("updates_")
        return int(self._counts[2])

    # Attributes that belong to scikit-learn, not to the learner (scikit-learn's callback
    # machinery sets _parent_callback_ctx on a Pipeline step around its fit and deletes it
    # afterwards): kept by _reset, never saved.
    _FOREIGN_ATTRS = frozenset(("_parent_callback_ctx", "_skl_callbacks", "_metadata_request"))

    def _reset(self):
        """Forget everything but the constructor parameters."""
        keep = set(self._get_param_names()) | self._FOREIGN_ATTRS
        for k in list(self.__dict__):
            if k not in keep:
                del self.__dict__[k]
        self._kstate = None
        self._fast = None
        self.classes_ = None

    def _validate_params(self):
        """The declared domains (``_PARAMETERS``); a subclass adds what involves two parameters
        at once, or the fitted state, after calling this (ValueError naming the class, the
        parameter and the value)."""
        self._check_declared_params()

    # -- persistent state (declared by each family; mbcore.persistence keeps only the format) --
    # _STATE: attribute -> checker of its type (mbcore._state); _DERIVED: caches rebuilt after
    # loading, never stored; _check_state: the consistency of a loaded state, run before any
    # kernel sees it.  Every concrete learner overrides the three together.
    _STATE: dict = {}
    _DERIVED: frozenset = frozenset()
    # kernel bindings, and the index of the feature names (rebuilt from _feature_names)
    # (and the last classes= accepted, _classes_given: mbcore._validation.same_classes)
    _TRANSIENT: frozenset = frozenset(("_kstate", "_fast", "_y1", "_one", "_one_fast",
                                       "_classes_given"))

    def _check_state(self, st):
        """Raise mbcore._state.StateError if the loaded state ``st`` (attribute -> value, also
        set on ``self``) is not one a run of this learner reaches.  Families override this."""
        raise StateError(f"{self._owner} declares no check of a loaded state (a learner class "
                         "must override _check_state to be loadable)")

    def _check_X(self, X, n_features):
        """Validate X into a Batch (families with their own input rules override this)."""
        return check_X(self._owner, X, n_features)

    def _check_X_learn(self, X, n_features):
        """Validate X for an online pass (a family whose pass checks CSR indices itself, as it
        reads each row, overrides this to skip the separate sweep)."""
        return self._check_X(X, n_features)

    def __setattr__(self, name, value):
        # Assigning a parameter (as scikit-learn users do) makes the kernels' cached binding
        # of the parameters stale: drop it, so the next call validates and rebinds.
        object.__setattr__(self, name, value)
        if name in self._param_names():
            d = self.__dict__
            d["_kstate"] = None
            d["_fast"] = None
        elif name == "classes_":
            # (the classes= accepted for the old classes are not known to be these)
            self.__dict__.pop("_classes_given", None)

    # -- the protocol ------------------------------------------------------------------------
    def _prepare(self, X, y, classes):
        if getattr(self, "classes_", None) is None:
            self._validate_params()
            names = feature_names(self._owner, X)
            batch = self._check_X_learn(X, None)
            if y is None:
                raise TypeError(f"{self._owner}: y must be a 1-D array-like of labels, got None")
            cl = self._infer_classes(y, classes)
            yy = self._encode_y(y, batch.n, cl)
            self._counts = np.zeros(3, dtype=np.int64)
            self.classes_ = cl            # (before _init_state: the state's shape may use it)
            self._init_state(batch.d)
            self._kstate = None
            self.n_features_in_ = batch.d
            if names is not None:
                self._feature_names = names.tolist()
            if classes is not None:
                self._classes_given = classes_given(classes)
            return batch, yy
        self._check_names(X)
        batch = self._check_X_learn(X, self.n_features_in_)
        if classes is not None:
            self._check_classes(classes)
        y1 = self.__dict__.get("_y1")
        if y1 is None and batch.n == 1:
            y1 = self._y1 = np.empty(1, dtype=np.int8)
        return batch, self._encode_y(y, batch.n, self.classes_, y1 if batch.n == 1 else None)

    def _check_classes(self, classes):
        """``classes=`` given to a fitted learner: the same classes as the fitted ones, or
        ValueError.  The classes accepted last are recognised without the full check
        (``mbcore._validation.same_classes``: a loop that passes them on every call pays
        almost nothing for them); others are checked and then remembered."""
        d = self.__dict__
        if same_classes(d, classes):
            return
        cl = self._infer_classes((), classes)
        if cl.tolist() != self.classes_.tolist():
            raise ValueError(f"{self._owner}: classes={cl.tolist()!r} differs from the "
                             f"fitted classes {self.classes_.tolist()!r} (the labels are "
                             "fixed by the first call: fit a new learner for others)")
        d["_classes_given"] = classes_given(classes)

    def _check_names(self, X):
        """scikit-learn's checks of X's column names on a call after the first
        (mbcore._validation.check_feature_names); not on the learner's own one-example row
        (learn_one / predict_one pass the name index's buffer, whose columns are the names)."""
        d = self.__dict__
        one = d.get("_one")
        if one is not None and X is one[0].view:
            return
        check_feature_names(self._owner, d.get("_feature_names"), X)

    def _widen(self, d):
        """Grow the fitted state to ``d`` features (>= ``n_features_in_``), each new feature's
        state what a run given the width ``d`` from the start has for a feature that was 0 in
        every row so far.  The caller holds the write lock and restores a Snapshot on failure
        (mbcore.streaming); a learner that cannot grow (tag ``grows`` False) raises ValueError."""
        d = int(d)
        old = self.n_features_in_
        if d < old:
            raise ValueError(f"{self._owner}: cannot narrow {old} features to {d}")
        if d == old:
            return
        if not self._TAGS.grows:
            raise ValueError(f"{self._owner} needs the number of features up front "
                             f"({self._TAGS.needs_width}); its {old} features cannot grow to "
                             f"{d}")
        self._grow_state(d)
        self.n_features_in_ = d
        self.__dict__.pop("_feature_names", None)    # (the new columns have no names)
        self.__dict__.pop("_one", None)
        self._kstate = None
        self._fast = None

    def _grow_state(self, d):
        """Widen the state arrays to d features (the families whose tag ``grows`` is True
        override this; ``_widen`` asks no other)."""
        raise ValueError(f"{self._owner} needs the number of features up front "
                         f"({self._TAGS.needs_width}); its state cannot grow to {d} features")

    def _infer_classes(self, y, classes):
        """The classes of the first call (two labels; families with more override this)."""
        return infer_classes(self._owner, y, classes)

    def _encode_y(self, y, n, classes, out=None):
        """Labels -> the codes the kernels take (+-1 as int8 for two labels)."""
        return encode_y(self._owner, y, n, classes, out)

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Run the online protocol over the rows of X in order (predict, then update).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or CSR matrix
        y : array-like of shape (n_samples,), two distinct labels in all
        classes : array-like of two labels, optional
            Needed on the first call only when y alone does not tell the pair.
        sample_weight : array-like of shape (n_samples,), optional
            The additive learners only (see their class): each row's update is scaled by its
            weight (finite, >= 0; a row of weight 0 is predicted and its mistake counted, but
            it never updates).  The other learners accept only None (their rules have no
            weighted form) and raise TypeError for anything else.

        Returns
        -------
        self
        """
        # The write lock (mbcore._locking.RWLock.acquire_write/release_write) written out:
        # this is the one-row path (about 1 us a call), where every Python call counts.
        rw = self._rw
        me = get_ident()
        nested = rw.owner == me                     # inside this thread's own write
        if not nested:
            if rw.readers and me in rw.readers:
                rw.refuse()
            rw.w.acquire()
            if rw.readers:
                rw.drain()
            rw.owner = me
        try:
            if rw.trace is not None and not nested:
                rw.trace.append(("w", 1, me))
            if classes is not None:
                # the classes accepted before (mbcore._validation.classes_given) need no check
                # again: a list of the same two label objects in one compiled call, anything
                # else in the function
                if known_classes(self._classes_given, classes) or \
                        same_classes(self.__dict__, classes):
                    classes = None
            if classes is None and sample_weight is None and type(X) is np.ndarray and \
                    X.ndim == 2 and X.shape[0] == 1:
                fast = self.__dict__.get("_fast")
                if fast is not None and self._fast_step(fast, X, y):
                    return self
            self._learn(X, y, classes, False, sample_weight)
            # (no one-row path with feature names: each call checks X's names, or warns)
            self._fast = None if "_feature_names" in self.__dict__ else self._fast_path()
            return self
        finally:
            if not nested:
                if rw.trace is not None:
                    rw.trace.append(("w", -1, me))
                rw.owner = None
                rw.w.release()

    setattr(partial_fit, "_mbcore_lock", "write")     # (written out above: not wrapped)

    def _learn(self, X, y, classes, record, sample_weight=None):
        """One online pass; all or nothing: a call that raises (KeyboardInterrupt included)
        leaves the learner exactly as it was."""
        self._refuse_weights(sample_weight)
        with Snapshot(self):
            batch, yy = self._prepare(X, y, classes)
            batch.sw = self._row_weights(sample_weight, yy, batch.n, False)
            pred = np.empty(batch.n, dtype=yy.dtype) if record else None   # +-1, or classes
            upd = np.empty(batch.n, dtype=np.uint8) if record else None
            self._pass(batch, yy, pred, upd)
        return pred, upd, yy

    def _threads(self, batch):
        """The threads of an online pass over ``batch``: 1 for a learner without ``n_jobs``,
        else ``mbcore._threads.pass_threads`` (1 for a small batch, else what its ``n_jobs``
        asks for).  The results are the same for any number."""
        if "n_jobs" not in self._param_names():
            return 1
        size = batch.n * batch.d if batch.X is not None else batch.data.shape[0]
        return pass_threads(self._owner, self.n_jobs, batch.n, size)

    def _fast_path(self):
        """What the one-row fast path needs, or None (subclasses that have one override)."""
        return None

    def _fast_step(self, fast, X, y):
        """Try the one-row fast path; False means "take the general path"."""
        return False

    def _online(self, X, y, classes=None, sample_weight=None):
        """partial_fit that records the online predictions (+-1) and update flags."""
        return self._learn(X, y, classes, True, sample_weight)

    def fit(self, X, y, classes=None, sample_weight=None):
        """Reset, then cycle through the data until a pass with no update or ``max_epochs``.

        Sets ``converged_`` (a clean pass happened), ``cycled_`` (the state repeated at an
        epoch boundary, so it would cycle for ever), ``n_iter_``, ``epoch_mistakes_`` and
        ``epoch_updates_``.  ``mistakes_`` and ``updates_`` count over all epochs.
        ``sample_weight``: as for ``partial_fit``.
        """
        self._refuse_weights(sample_weight)
        with Snapshot(self, copy_arrays=False):     # (the reset replaces every state array)
            self._reset()
            batch, yy = self._prepare(X, y, classes)
            batch.sw = self._row_weights(sample_weight, yy, batch.n, True)
            self._epochs(batch, yy)
        return self

    def _refuse_weights(self, sample_weight):
        """TypeError for sample weights given to a learner whose rule has none (None, which
        scikit-learn's meta-estimators pass, is accepted everywhere)."""
        if sample_weight is not None and not self._TAGS.weighted:
            raise TypeError(f"{self._owner}: sample_weight is not supported: "
                            f"{self._TAGS.no_weights}; pass sample_weight=None")

    def _row_weights(self, sample_weight, yy, n, fitting):
        """The rows' weights for the pass (float64, length n), or None for none (the
        unweighted pass).  ``fitting``: called by ``fit`` (which may compute balanced class
        weights) rather than ``partial_fit``.  The weighted families override this."""
        return None

    def _epochs(self, batch, yy):
        self.converged_ = False
        self.cycled_ = False
        em, eu = [], []
        seen = set()
        for _ in range(self.max_epochs):
            m0, u0 = int(self._counts[1]), int(self._counts[2])
            self._pass(batch, yy, None, None)
            em.append(int(self._counts[1]) - m0)
            eu.append(int(self._counts[2]) - u0)
            if eu[-1] == 0:
                self.converged_ = True
                break
            key = self._cycle_key()
            if key is not None:
                if key in seen:
                    self.cycled_ = True
                    break
                seen.add(key)
        self.epoch_mistakes_ = em
        self.epoch_updates_ = eu
        self.n_iter_ = len(eu)

    def _cycle_key(self):
        return None

    @staticmethod
    def _digest(w):
        # + 0.0 folds -0.0 into 0.0, so that equal vectors have equal bytes.
        return hashlib.blake2b((w + 0.0).tobytes(), digest_size=20).digest()

    def decision_function(self, X):
        """The real-valued score of each row (no state change).

        Returns
        -------
        ndarray of shape (n_samples,), float64
        """
        self._check_fitted("decision_function")
        self._check_names(X)
        return self._scores(self._check_X(X, self.n_features_in_))

    def predict(self, X):
        """The predicted label of each row (no state change).

        Returns
        -------
        ndarray of shape (n_samples,), with the dtype of ``classes_``
        """
        self._check_fitted("predict")
        self._check_names(X)
        return self._labels(self._predict_flags(self._check_X(X, self.n_features_in_)))

    def _predict_flags(self, batch):
        """Whether each row is predicted positive (bool array); subclasses may skip scores."""
        return self._positive(self._scores(batch))

    def _labels(self, positive):
        """Labels from a boolean mask, without branches (the mask is in random order)."""
        cl = self.classes_
        if positive.shape[0] <= 64:      # small: one gather (np.iinfo alone costs more)
            return cl.take(positive.view(np.uint8))
        if cl.dtype.kind in "iu":
            neg, step = int(cl[0]), int(cl[1]) - int(cl[0])
            info = np.iinfo(cl.dtype)
            if info.min <= step <= info.max:
                out = positive.astype(cl.dtype)
                if step != 1:
                    out *= cl.dtype.type(step)
                if neg:
                    out += cl.dtype.type(neg)
                return out
        return cl[positive.view(np.uint8)]

    def _positive(self, s):
        if getattr(self, "tie", "negative") == "positive":
            return s >= 0.0
        return s > 0.0

    def _label_codes(self, y, n):
        """y checked against the fitted classes like ``partial_fit`` checks it (length,
        membership), as codes; families with more than two labels override this."""
        return encode_y(self._owner, y, n, self.classes_)

    def score(self, X, y):
        """Accuracy of ``predict(X)`` against y (no state change).  y is checked like
        ``partial_fit`` checks it: one label per row, each one of ``classes_``."""
        self._check_fitted("score")
        pred = self.predict(X)
        return accuracy(self, pred, y)


_registry.set_learner_base(OnlineLearner)


class ManyClasses:
    """The labels of the learners that take two classes or more (the linear and the Winnow
    families): two classes keep the binary codes (+-1) and rules; with K >= 3 classes the
    codes are class indices (int32, positions in the sorted ``classes_``) and the learner keeps
    K weight vectors.  Mixed into an OnlineLearner subclass, before it."""

    _TAGS = tags(k_classes=True)

    def _K(self):
        """The number of weight vectors: 1 for two classes, else the number of classes."""
        cl = self.__dict__.get("classes_")
        return 1 if cl is None or cl.shape[0] <= 2 else int(cl.shape[0])

    def _infer_classes(self, y, classes):
        return infer_classes(self._owner, y, classes, max_classes=None)

    def _encode_y(self, y, n, classes, out=None):
        if classes.shape[0] > 2:
            return encode_y_k(self._owner, y, n, classes)
        return encode_y(self._owner, y, n, classes, out)

    def _label_codes(self, y, n):
        return self._encode_y(y, n, self.classes_)

    def _record_labels(self, pred):
        if self._K() > 1:
            return self.classes_[pred]
        return self._labels(pred > 0)

    def _labels(self, positive):
        if self._K() > 1:
            return self.classes_[positive]
        return OnlineLearner._labels(self, positive)
