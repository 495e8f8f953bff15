# cython: language_level=3
"""Rows of a batch, as the additive kernels read them: dense rows are (val + i * row_len,
row_len); CSR rows are told apart by a non-NULL indptr.  The status codes the passes return to
Python, and the per-row check of a CSR row's column indices.  Cimported by each additive kernel
module; inline only."""

from ._arith cimport floating, index_t

# status codes returned to Python
cdef enum:
    OK = 0
    BAD_ROW = 1
    NEED_ROOM = 2
    BAD_INDEX = 3       # a CSR column index out of [0, d) (csr_check's code 1)
    BAD_ORDER = 4       # unsorted or duplicate CSR column indices (csr_check's code 2)
    BAD_SHAPE = 5       # a batch whose width or length the call did not check (lin_predict_few)


cdef inline Py_ssize_t row_at(const floating* val, const index_t* ix, const index_t* indptr,
                              Py_ssize_t row_len, Py_ssize_t i, const floating** v,
                              const index_t** xi) noexcept nogil:
    """Point v (and xi, NULL for a dense row) at row i; returns its number of stored values."""
    cdef Py_ssize_t lo
    if indptr == NULL:
        v[0] = val + i * row_len
        xi[0] = NULL
        return row_len
    lo = indptr[i]
    v[0] = val + lo
    xi[0] = ix + lo
    return indptr[i + 1] - lo


cdef inline const floating* values_ptr(const floating[::1] a, floating* dummy) noexcept:
    """The data pointer of a CSR matrix; never NULL (NULL index pointers mean dense rows)."""
    return &a[0] if a.shape[0] > 0 else dummy


cdef inline const index_t* index_ptr(const index_t[::1] a, index_t* dummy) noexcept:
    return &a[0] if a.shape[0] > 0 else dummy


cdef inline const double* weights_ptr(const double[::1] sw,
                                      Py_ssize_t n_rows) except? NULL:
    """The sample weights of n_rows rows, or NULL for None (no weights: the unweighted
    pass, unchanged).  Their values (finite, >= 0) are the caller's to check."""
    if sw is None:
        return NULL
    if sw.shape[0] != n_rows:
        raise ValueError(f"sample weights: {sw.shape[0]} values for {n_rows} rows")
    if n_rows == 0:
        return NULL
    return &sw[0]


cdef inline int csr_row_ok(const index_t* xi, Py_ssize_t n, Py_ssize_t d) noexcept nogil:
    """A CSR row's column indices, checked just before the row is used (they are then in L1 for
    the pass): OK, or the code of csr_check (BAD_INDEX: out of [0, d); BAD_ORDER: unsorted or
    duplicate).  Sorted and distinct: each index above the previous one; then only the first can
    be negative and only the last too large."""
    cdef Py_ssize_t k
    cdef int bad = 0
    if n == 0:
        return OK
    for k in range(1, n):
        bad |= xi[k] <= xi[k - 1]
    if xi[0] < 0 or xi[n - 1] >= d:
        return BAD_INDEX
    return BAD_ORDER if bad else OK
