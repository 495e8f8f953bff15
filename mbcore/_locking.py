"""The lock of every learner: one readers-writer lock per instance, applied by name.

``Guarded`` is the base of every learner (``mbcore.base.OnlineCounts``, and so
``OnlineLearner`` and the wrappers of :mod:`mbcore.queries`): each instance holds an ``RWLock``
in a slot, and the methods a class defines are wrapped by their names, the ones that change the
learner as writes, the ones that only read it as reads (``OnlineLearner``'s docstring says what
that gives the user).  ``holding`` holds it for the functions that take a learner
(``run_online``, the streaming functions).
"""

import contextlib
import functools
import threading

import numpy as np

__all__ = ["RWLock", "Guarded", "holding", "get_ident"]

get_ident = threading.get_ident


class RWLock:
    """A readers-writer lock (standard library only): one writer, or any number of readers.

    Writers are exclusive and preferred: a writer that waits holds ``w`` (so new readers queue
    behind it) until the readers inside have left.  Re-entrant per thread, without counting:
    a call nested in a write by the same thread (``fit`` calling ``partial_fit``, ``score``
    calling ``predict`` inside a write) runs at once, and so does a read nested in a read (it
    never waits for a queued writer, which would wait for it).  A write nested in a read of the
    same learner would wait for itself: it raises RuntimeError instead.  Never pickled or
    copied: every learner makes its own (``Guarded.__new__``)."""

    __slots__ = ("w", "owner", "readers", "cond", "draining", "trace")

    def __init__(self):
        self.w = threading.Lock()        # held by the writer, or briefly by a reader entering
        self.owner = None                # the thread id of the writer inside
        self.readers = set()             # the thread ids of the readers inside
        self.cond = threading.Condition(threading.Lock())   # a writer waits here for readers
        self.draining = False            # a writer waits for the readers to leave
        self.trace = None                # tests: a list that records ("r"|"w", +1|-1, ident)

    def acquire_write(self, me):
        if self.readers and me in self.readers:
            self.refuse()
        self.w.acquire()
        if self.readers:
            self.drain()
        self.owner = me
        if self.trace is not None:
            self.trace.append(("w", 1, me))

    @staticmethod
    def refuse():
        raise RuntimeError("mbcore: a call that changes the learner was made inside a reading "
                           "call on the same learner, in the same thread (it would wait for "
                           "itself)")

    def drain(self):
        """Called by the writer holding ``w``: wait until the readers inside have left."""
        try:
            with self.cond:
                self.draining = True
                while self.readers:
                    self.cond.wait()
                self.draining = False
        except BaseException:          # (KeyboardInterrupt while waiting): let others in
            self.draining = False
            self.w.release()
            raise

    def release_write(self):
        if self.trace is not None:
            self.trace.append(("w", -1, self.owner))
        self.owner = None
        self.w.release()

    def acquire_read(self, me):
        w = self.w
        w.acquire()
        try:
            self.readers.add(me)
            if self.trace is not None:
                self.trace.append(("r", 1, me))
        finally:
            w.release()

    def release_read(self, me):
        r = self.readers
        if self.trace is not None:
            self.trace.append(("r", -1, me))
        r.discard(me)
        if not r and self.draining:
            with self.cond:
                self.cond.notify_all()


def _writing(f):
    """Wrap a method that changes the learner: exclusive (see ``RWLock``; the acquisition is
    written out, as in ``OnlineLearner.partial_fit``, to keep the one-row calls cheap)."""
    @functools.wraps(f)
    def write(self, *args, **kwargs):
        rw = self._rw
        me = get_ident()
        if rw.owner == me:                # nested in this thread's own write
            return f(self, *args, **kwargs)
        rw.acquire_write(me)
        try:
            return f(self, *args, **kwargs)
        finally:
            rw.release_write()
    write._mbcore_lock = "write"
    return write


def _reading(f):
    """Wrap a method that only reads the learner: shared with other readers."""
    @functools.wraps(f)
    def read(self, *args, **kwargs):
        rw = self._rw
        me = get_ident()
        readers = rw.readers
        if rw.owner == me or me in readers:       # nested in this thread's write or read
            return f(self, *args, **kwargs)
        # RWLock.acquire_read and release_read written out: this is the one-row path of
        # predict and decision_function (about 1 us a call), where every Python call counts.
        w = rw.w
        w.acquire()
        try:
            readers.add(me)
            if rw.trace is not None:
                rw.trace.append(("r", 1, me))
        finally:
            w.release()
        try:
            return f(self, *args, **kwargs)
        finally:
            if rw.trace is not None:
                rw.trace.append(("r", -1, me))
            readers.discard(me)
            if not readers and rw.draining:
                with rw.cond:
                    rw.cond.notify_all()
    read._mbcore_lock = "read"
    return read


def _copied(v, memo):
    """v with the contents a later call may change in place copied (arrays, and the lists,
    tuples and dicts holding them, recursively; the same object copied once); anything else
    (numbers, strings, learners, a ConceptClass) as it is."""
    if isinstance(v, np.ndarray) or type(v) in (list, tuple, dict):
        c = memo.get(id(v))
        if c is not None:
            return c
        if isinstance(v, np.ndarray):
            c = v.copy()
        elif type(v) is dict:
            c = {k: _copied(e, memo) for k, e in v.items()}
        else:
            c = type(v)(_copied(e, memo) for e in v)
        memo[id(v)] = c
        return c
    return v


class Guarded:
    """Thread safety for every learner (and the wrappers of :mod:`mbcore.queries`): a
    readers-writer lock per instance, applied by name to the methods each class defines.

    Methods named in ``_WRITES`` (``partial_fit``, ``fit``, ``_online`` (``run_online``),
    ``set_params``) are exclusive; those in ``_READS`` (``predict``, ``decision_function``,
    ``score``, ``predict_covered``, ``save``, pickling) and the public properties (the fitted
    attributes) are shared.  Subclasses get this by defining the methods: nothing to write.
    The lock lives in a slot, not in ``__dict__``: never pickled, copied, saved, snapshotted
    (``mbcore.base.Snapshot``) or reset; ``__new__`` gives each new, unpickled or copied
    learner its own.
    """

    __slots__ = ("_rw",)

    _WRITES = frozenset(("partial_fit", "fit", "_online", "set_params"))
    _READS = frozenset(("predict", "decision_function", "score", "predict_covered",
                        "predict_proba", "save", "__getstate__"))
    _TRANSIENT: frozenset = frozenset()

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        self._rw = RWLock()
        return self

    def __reduce_ex__(self, protocol):
        # Protocols 0 and 1 would rebuild the learner without __new__ (so without a lock):
        # every protocol gets protocol 2's recipe, copyreg.__newobj__ (cls.__new__).
        return object.__reduce_ex__(self, max(protocol, 2))

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name, v in list(cls.__dict__.items()):
            if getattr(v, "_mbcore_lock", None) is not None:
                continue
            if name in cls._WRITES and callable(v):
                setattr(cls, name, _writing(v))
            elif name in cls._READS and callable(v):
                setattr(cls, name, _reading(v))
            elif isinstance(v, property) and not name.startswith("_") and v.fget is not None \
                    and getattr(v.fget, "_mbcore_lock", None) is None:
                setattr(cls, name, property(_reading(v.fget),
                                            None if v.fset is None else _writing(v.fset),
                                            v.fdel, v.__doc__))

    def reading(self):
        """A context manager holding the learner's lock for reading: the calls and attribute
        reads inside see one state (no ``partial_fit`` of another thread runs meanwhile)."""
        return _Held(self, False)

    def writing(self):
        """A context manager holding the learner's lock for writing: no other thread reads or
        changes the learner inside (for changes the methods do not make, e.g. assigning a
        parameter while other threads use the learner)."""
        return _Held(self, True)

    def __getstate__(self):
        """The instance dict without the kernel bindings, its arrays copied under the read
        lock, so a pickle or copy holds one whole state even while another thread trains."""
        memo = {}
        skip = self._TRANSIENT
        return {k: _copied(v, memo) for k, v in self.__dict__.items() if k not in skip}

    __getstate__ = _reading(__getstate__)


class _Held:
    __slots__ = ("learner", "write", "me", "entered")

    def __init__(self, learner, write):
        self.learner, self.write = learner, write

    def __enter__(self):
        rw = self.learner._rw
        me = self.me = get_ident()
        self.entered = not (rw.owner == me or (not self.write and me in rw.readers))
        if self.entered:
            if self.write:
                rw.acquire_write(me)
            else:
                rw.acquire_read(me)
        return self.learner

    def __exit__(self, *exc):
        if self.entered:
            rw = self.learner._rw
            if self.write:
                rw.release_write()
            else:
                rw.release_read(self.me)
        return False


def holding(learner, write=False):
    """``learner.writing()`` (or ``reading()``) for the functions that take a learner: a call
    that changes the learner and then reads its state (``run_online`` maps its codes to labels
    through ``classes_``), or reads it twice (``predict``, then ``classes_``), holds the lock
    across both, so they see one state even while other threads train it.  An object without
    the lock (a twin, a duck-typed wrapper) gets a context that holds nothing."""
    held = getattr(learner, "writing" if write else "reading", None)
    return held() if held is not None else contextlib.nullcontext()
