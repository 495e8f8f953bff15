"""Feature names -> columns, for the one-example path (``learn_one`` / ``predict_one`` on dicts).

A :class:`NameIndex` keeps the names seen so far in the order they arrived (name j is column j)
and a row buffer of float64 with room for all of them (its capacity doubles as names come, so
a new name costs amortised O(1)).  :meth:`NameIndex.fill` reads one example, a dict
``{name: value}``, in one call: it looks each key up in the hash map (interning a new name when
asked to), checks that the value is a finite real number, and writes it into the buffer, whose
other entries are zero.  The learner then hands ``view`` (the first n entries of the buffer as
a 1 x n C-contiguous array) to its kernel.

Iterating over a dict needs the GIL; the loops over the buffer (clearing what the previous
example wrote) run without it.  A call that fails leaves the index as it was (the names it
interned are removed again) and the buffer all zeros.

Keys may be any hashable value (river's convention); keys that compare equal (``1``, ``1.0``,
``True``) are one name, as in a dict.
"""

import numbers

import numpy as np

from cpython.dict cimport PyDict_GetItem, PyDict_GetItemWithError, PyDict_Next
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.long cimport PyLong_AsDouble, PyLong_AsLongLongAndOverflow
from cpython.object cimport PyObject
from cpython.pythread cimport PyThread_get_thread_ident
from libc.math cimport isfinite
from libc.string cimport memcpy

# (fill's status codes and modes are in names.pxd)

# Whether the GIL serialises threads (not on a free-threaded build, where the compiled
# one-example step always takes the learner's lock).
cdef extern from *:
    """
    #ifdef Py_GIL_DISABLED
    #define MB_HAS_GIL 0
    #else
    #define MB_HAS_GIL 1
    #endif
    """
    int MB_HAS_GIL


cdef class NameIndex:
    """The names of the columns, in the order they arrived, and a row buffer for one example.

    Parameters
    ----------
    names : iterable of hashable, optional
        Names known from the start (columns 0, 1, ...), distinct.
    """

    # (the attributes are declared in names.pxd, for the kernels that cimport the class)

    def __init__(self, names=()):
        self._index = {}
        self._names = []
        self._all_str = True
        for k in names:
            if type(k) is not str:
                self._all_str = False
            if k in self._index:
                raise ValueError(f"the feature name {k!r} is given twice")
            self._index[k] = len(self._names)
            self._names.append(k)
        self._alloc(max(8, 2 * len(self._names)))
        self._touched = np.empty(16, dtype=np.intp)
        self._n_touched = 0
        self.bad_key = self.bad_value = None

    cdef _alloc(self, Py_ssize_t cap):
        cdef object buf = np.zeros(cap, dtype=np.float64)
        cdef double[::1] new = buf
        cdef Py_ssize_t old
        if self._buf is not None:
            old = self._row.shape[0]
            if old:
                memcpy(&new[0], &self._row[0], old * sizeof(double))
        self._buf = buf
        self._row = buf
        self._set_view()

    cdef _set_view(self):
        cdef Py_ssize_t n = len(self._names)
        self.view = self._buf[:n].reshape(1, n)

    @property
    def n(self):
        """The number of names."""
        return len(self._names)

    @property
    def names(self):
        """The names, column by column (a new list)."""
        return list(self._names)

    def names_from(self, Py_ssize_t start):
        """The names of the columns from ``start`` on (a new list)."""
        return self._names[start:]

    def __reduce__(self):
        return (NameIndex, (tuple(self._names),))

    def truncate(self, Py_ssize_t n):
        """Forget the names from column n on (undoing a call that failed after them)."""
        cdef Py_ssize_t i
        if n < 0 or n > len(self._names):
            raise ValueError(f"cannot keep {n} of {len(self._names)} names")
        for i in range(n, len(self._names)):
            del self._index[self._names[i]]
        del self._names[n:]
        self._all_str = all(type(k) is str for k in self._names)
        self._set_view()

    cdef void _clear(self) noexcept:
        cdef Py_ssize_t i, m = self._n_touched
        cdef double* r = &self._row[0]
        cdef Py_ssize_t* t = &self._touched[0]
        if m > 4096:        # (releasing the GIL costs more than a short loop)
            with nogil:
                for i in range(m):
                    r[t[i]] = 0.0
        else:
            for i in range(m):
                r[t[i]] = 0.0
        self._n_touched = 0

    cdef int _fail(self, Py_ssize_t n0, object k, object v, int code) except? -9:
        self.truncate(n0)
        self._clear()
        self.bad_key = k
        self.bad_value = v
        return code

    def fill(self, x, int mode=GROW):
        """Write the example x (a dict name -> real number) into the buffer; returns the
        number of names after it (>= 0), or a negative status (-1 a value that is not a real
        number, -2 one that is not finite, -3 a name outside a fixed index, -4 x not a dict),
        with ``bad_key`` and ``bad_value`` naming the entry; nothing changed then.  ``mode``:
        0 interns a new name (a new column), 1 skips it, 2 refuses it."""
        return self.fill_c(x, mode)

    cdef double* row_ptr(self) noexcept:
        return &self._row[0]

    cdef Py_ssize_t fill_c(self, object x, int mode) except? -100:
        cdef Py_ssize_t n0 = len(self._names), j, cap, pos = 0
        cdef double f
        cdef object k, v, t
        cdef PyObject* pk
        cdef PyObject* pv
        cdef PyObject* pj
        cdef dict index = self._index
        cdef dict d
        cdef bint strict = (mode & STRICT) != 0
        cdef long long ll
        cdef int ovf = 0
        mode &= ~STRICT
        if strict:
            # The lock-free step (OneFast): nothing below may run Python code or allocate a
            # container (a garbage collection could run a finaliser, and another thread with
            # it): str keys in an index of str names (their hashes and comparisons are C),
            # float, int and bool values, no new name, room in the touched list.  Anything
            # else returns BAIL before a change, for the locked path.
            if type(x) is not dict or not self._all_str or \
                    len(<dict>x) > self._touched.shape[0]:
                return BAIL
            self._clear()
            d = <dict>x
            while PyDict_Next(d, &pos, &pk, &pv):
                if type(<object>pk) is not str:
                    self._clear()
                    return BAIL
                v = <object>pv
                t = type(v)
                if t is float:
                    f = PyFloat_AS_DOUBLE(v)
                elif t is bool:
                    f = 1.0 if v is True else 0.0
                elif t is int:
                    ll = PyLong_AsLongLongAndOverflow(v, &ovf)
                    if ovf:
                        self._clear()
                        return BAIL
                    f = <double>ll      # (rounded to nearest, as PyLong_AsDouble rounds)
                else:
                    self._clear()
                    return BAIL
                if not isfinite(f):
                    self._clear()
                    return BAIL
                # (str keys in a str index: the lookup cannot fail, and the variant that
                # does not save and restore the error indicator is cheaper)
                pj = PyDict_GetItemWithError(index, <object>pk)
                if pj == NULL:
                    if mode == IGNORE:
                        continue
                    self._clear()
                    return BAIL
                j = <Py_ssize_t>(<object>pj)
                self._row[j] = f
                self._touched[self._n_touched] = j
                self._n_touched += 1
            return n0
        self._clear()
        if type(x) is not dict and not isinstance(x, dict):
            self.bad_key = self.bad_value = None
            return NOT_DICT
        d = <dict>x
        if len(d) > self._touched.shape[0]:
            self._touched = np.empty(2 * len(d), dtype=np.intp)
        while PyDict_Next(d, &pos, &pk, &pv):
            v = <object>pv
            t = type(v)
            if t is float:
                f = PyFloat_AS_DOUBLE(v)
            elif t is int:
                try:
                    f = PyLong_AsDouble(v)
                except OverflowError:
                    return self._fail(n0, <object>pk, v, NOT_FINITE)
            elif t is bool or isinstance(v, (numbers.Real, np.bool_)):
                try:
                    f = float(v)
                except OverflowError:
                    return self._fail(n0, <object>pk, v, NOT_FINITE)
            else:
                return self._fail(n0, <object>pk, v, NOT_REAL)
            if not isfinite(f):
                return self._fail(n0, <object>pk, v, NOT_FINITE)
            pj = PyDict_GetItem(index, <object>pk)
            if pj == NULL:
                if mode == IGNORE:
                    continue
                k = <object>pk
                if mode == FIXED:
                    return self._fail(n0, k, v, UNKNOWN)
                j = len(self._names)
                index[k] = j
                self._names.append(k)
                if type(k) is not str:
                    self._all_str = False
                cap = self._row.shape[0]
                if j >= cap:
                    self._alloc(2 * cap)
            else:
                j = <Py_ssize_t>(<object>pj)
            self._row[j] = f
            self._touched[self._n_touched] = j
            self._n_touched += 1
        if len(self._names) != n0:
            self._set_view()
        return len(self._names)


# predict_c's answer in the lock-free step for "take the locked step"
cdef object _BAIL = object()


cdef inline bint _known_pair(object given, object classes):
    cdef list cl
    cdef tuple g
    if type(classes) is not list or type(given) is not tuple:
        return 0
    cl = <list>classes
    g = <tuple>given
    return len(cl) == 2 and len(g) >= 2 and cl[0] is g[0] and cl[1] is g[1]


cdef inline bint _known(dict d, object classes):
    cdef PyObject* p = PyDict_GetItem(d, "_classes_given")
    return p != NULL and _known_pair(<object>p, classes)


def known_classes(given, classes):
    """Whether ``classes`` is a list of two items that are the very label objects of the list
    a learner accepted last (items 0 and 1 of ``given``, its ``_classes_given``:
    ``mbcore._validation.classes_given``), so that the full check would accept it (identity:
    exact).  False: the caller checks ``classes`` itself."""
    return _known_pair(given, classes)


cdef class OneFast:
    """The base of a family's compiled one-example object (``learn_one`` / ``predict_one`` in
    one call: the row, the label, the kernel), bound to one state and one name index of a
    learner: ``fast`` and ``one``, the learner's ``_fast`` and ``_one`` when it was made.

    Two ways in, both only when the binding is current (the learner's ``_fast`` and ``_one``
    are still these objects); otherwise ``learn`` and ``predict`` return at once for the
    general path, which takes the lock as every call does:

    * **lock-free**, where the GIL serialises threads and no thread is inside the learner's
      lock (no writer, no reader, no trace): the step then runs no Python code and allocates
      no container from its first read of the learner to its last write (``fill_c``'s strict
      mode: str names, float/int/bool values, no new name; the label a bool, int, float or
      str), so no other thread can run in between: it is one indivisible call, as if it had
      taken the lock.  An example that needs more returns, unchanged, to the locked step;
    * **locked**: the learner's write lock (``mbcore._locking.RWLock``) taken without
      waiting, where nothing holds it.

    Subclasses implement ``learn_c`` and ``predict_c`` (``strict``: the lock-free step, where
    fill runs in strict mode and a label outside those types returns BAIL)."""

    def __init__(self, learner, fast, one):
        self.fast = fast
        self.one = one
        self.d = learner.__dict__
        self.rw = learner._rw
        self.w = self.rw.w
        self.readers = self.rw.readers

    cdef Py_ssize_t learn_c(self, object x, object y, int strict) except? -100:
        return -8

    cdef object predict_c(self, object x, object miss, int strict):
        return miss

    cdef bint _current(self) except -1:
        cdef PyObject* p
        p = PyDict_GetItem(self.d, "_fast")
        if p == NULL or <object>p is not self.fast:
            return 0
        p = PyDict_GetItem(self.d, "_one")
        if p == NULL or <object>p is not self.one:
            return 0
        return 1

    cdef bint _free(self) except -1:
        # no thread inside the lock: no writer (it sets owner before its first change and
        # clears it after its last), no reader, no trace (the tests' record of the lock)
        rw = self.rw
        return MB_HAS_GIL and not self.readers and rw.owner is None and rw.trace is None

    cdef bint _enter(self) except -1:
        rw = self.rw
        if rw.owner is not None or self.readers or rw.trace is not None:
            return 0
        if not self.w.acquire(False):
            return 0
        if self.readers:
            self.w.release()
            return 0
        rw.owner = PyThread_get_thread_ident()
        return 1

    cdef Py_ssize_t learn_s(self, object x, object y) except? -100:
        cdef Py_ssize_t status
        if not self._current():
            return -9
        if self._free():
            status = self.learn_c(x, y, STRICT)
            if status != BAIL:
                return status
        if not self._enter():
            return -9
        try:
            return self.learn_c(x, y, 0)
        finally:
            self.rw.owner = None
            self.w.release()

    cdef object predict_s(self, object x, object miss):
        cdef object out
        if not self._current():
            return miss
        if self._free():
            out = self.predict_c(x, _BAIL, STRICT)
            if out is not _BAIL:
                return out
        if not self._enter():
            return miss
        try:
            return self.predict_c(x, miss, 0)
        finally:
            self.rw.owner = None
            self.w.release()

    def learn(self, x, y):
        """Learn the example: 0 (done), > 0 (a bad row: nothing changed), < 0 (the general
        path takes it; -9: the lock is held, or the binding is stale)."""
        return self.learn_s(x, y)

    def learn_given(self, x, y, classes):
        """``learn(x, y)`` for a call that also gave ``classes``, when the learner knows them
        without a check: a list of two items that are the very label objects of the list it
        accepted last (item 0 and 1 of its ``_classes_given``, see
        ``mbcore._validation.classes_given``; identity, so exact).  Otherwise -7, nothing
        done: the caller checks ``classes`` itself."""
        if not _known(self.d, classes):
            return -7
        return self.learn_s(x, y)

    def predict(self, x, miss):
        """The label predicted for the example, or ``miss`` for the general path."""
        return self.predict_s(x, miss)


cdef class _OneCall:
    """A learner's one-example method as one compiled call (river's ``learn_one`` and
    ``predict_one``: subclasses); ``general`` is the learner's own method, for the examples
    its compiled step (``_one_fast``) does not take."""

    cdef dict d
    cdef object general
    cdef readonly object learner

    def __init__(self, learner):
        self.learner = learner
        self.d = learner.__dict__
        self.general = getattr(learner, self._METHOD)

    def __reduce__(self):
        # (copies and pickles bind to the copied learner)
        return (type(self), (self.learner,))


cdef class LearnOne(_OneCall):
    """``learner.learn_one(x, y)`` as one compiled call that returns None (river's
    ``learn_one``): the learner's compiled step where it takes the example, else the
    learner's own ``learn_one`` (which raises what it raises)."""

    _METHOD = "learn_one"

    def __call__(self, x, y):
        cdef PyObject* p = PyDict_GetItem(self.d, "_one_fast")
        if p != NULL and <object>p is not None and (<OneFast>p).learn_s(x, y) == 0:
            return None
        self.general(x, y)
        return None


cdef class PredictOne(_OneCall):
    """``learner.predict_one(x)`` as one compiled call (river's ``predict_one``)."""

    _METHOD = "predict_one"

    def __call__(self, x):
        cdef PyObject* p = PyDict_GetItem(self.d, "_one_fast")
        cdef object out
        if p != NULL and <object>p is not None:
            out = (<OneFast>p).predict_s(x, _BAIL)
            if out is not _BAIL:
                return out
        return self.general(x)
