# The name index, for the kernels that read its row buffer directly (mbcore._kernels.linear's
# one-example functions); see names.pyx.

# status codes of fill (negative: nothing was changed)
cdef enum:
    NOT_REAL = -1       # a value that is not a real number
    NOT_FINITE = -2     # NaN, infinity, or an int too large for a float
    UNKNOWN = -3        # a name outside a fixed index (mode FIXED)
    NOT_DICT = -4       # x is not a dict
    BAIL = -6           # strict mode: an example the lock-free step does not take (unchanged)

# modes of fill
cdef enum:
    GROW = 0            # a new name is interned: a new column
    IGNORE = 1          # a new name is skipped (its weight is zero): predictions
    FIXED = 2           # a new name is an error (learners whose rule needs n up front)
    STRICT = 8          # (a bit added to the mode) only what runs no Python code, else BAIL


cdef class NameIndex:
    cdef dict _index
    cdef list _names
    cdef object _buf            # float64 buffer, length >= n (capacity)
    cdef double[::1] _row
    cdef Py_ssize_t[::1] _touched
    cdef Py_ssize_t _n_touched
    cdef bint _all_str          # every name is a str (the lock-free step's condition)
    cdef public object view     # the buffer's first n entries as a (1, n) array
    cdef public object bad_key  # the key and value a failed fill stopped at
    cdef public object bad_value

    cdef _alloc(self, Py_ssize_t cap)
    cdef _set_view(self)
    cdef void _clear(self) noexcept
    cdef int _fail(self, Py_ssize_t n0, object k, object v, int code) except? -9
    cdef double* row_ptr(self) noexcept
    cdef Py_ssize_t fill_c(self, object x, int mode) except? -100


cdef class OneFast:
    cdef readonly object fast
    cdef readonly object one
    cdef dict d                 # the learner's __dict__ (the same object for its life)
    cdef object rw, w           # its RWLock and the lock's writer mutex
    cdef set readers            # the lock's set of readers (the same object for its life)

    cdef Py_ssize_t learn_c(self, object x, object y, int strict) except? -100
    cdef object predict_c(self, object x, object miss, int strict)
    cdef bint _current(self) except -1
    cdef bint _free(self) except -1
    cdef bint _enter(self) except -1
    cdef Py_ssize_t learn_s(self, object x, object y) except? -100
    cdef object predict_s(self, object x, object miss)


cdef inline int binary_code(object y, object pos, object neg, int strict) except? -100:
    """A binary learner's one-example label code: 1 (pos), -1 (neg), -7 (neither class: the
    general path says so) or, in the lock-free step (strict), BAIL for a label whose comparison
    could run Python code (anything but a bool, int, str or float of the classes' own type)."""
    cdef object t
    if strict:
        t = type(y)
        if (t is not bool and t is not int and t is not str and t is not float) or \
                type(pos) is not t or type(neg) is not t:
            return BAIL
    if y == pos:
        return 1
    if y == neg:
        return -1
    return -7
