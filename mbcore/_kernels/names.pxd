# The name index, for the kernels that read its row buffer directly (mbcore._kernels.linear's
# one-example functions); see names.pyx.

cdef class NameIndex:
    cdef dict _index
    cdef list _names
    cdef object _buf            # float64 buffer, length >= n (capacity)
    cdef double[::1] _row
    cdef Py_ssize_t[::1] _touched
    cdef Py_ssize_t _n_touched
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

    cdef Py_ssize_t learn_c(self, object x, object y) except? -100
    cdef object predict_c(self, object x, object miss)
    cdef bint _enter(self) except -1
