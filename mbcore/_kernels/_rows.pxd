# cython: language_level=3
"""Rows of a batch, as the kernels' passes read them (scikit-learn's SequentialDataset idea,
without a class hierarchy): one ``Rows`` view built once per batch by the entry point, dense
rows (val + i * row_len, row_len) or CSR rows (told apart by a non-NULL indptr), their dtypes as
codes for the passes that run on several threads.  Also the status codes the additive passes
return to Python and the per-row check of a CSR row's column indices.  Cimported by the kernel
modules; inline only."""

from ._arith cimport floating, index_t

cdef struct Rows:
    # The rows of one batch, for a pass: built once by its entry point (dense_rows, csr_rows)
    const void* val         # values: dense, n_rows x row_len, row-major; CSR, the stored values
    const void* ix          # CSR column indices (NULL: dense rows)
    const void* indptr      # CSR row pointers, n_rows + 1 of the indices' type (NULL: dense)
    int vt                  # the values' dtype code (the module's: float32 0, float64 1; Winnow's
                            # uint8 0, float32 1, float64 2)
    int it                  # the indices' (and indptr's) dtype code: int32 0, int64 1
    Py_ssize_t n_rows
    Py_ssize_t row_len      # dense: values per row (CSR: 0)
    const double* sw        # the rows' sample weights, or NULL (no weights: all 1)


cdef inline Rows dense_rows(const void* val, int vt, Py_ssize_t n_rows, Py_ssize_t row_len,
                            const double* sw=NULL) noexcept nogil:
    """The Rows of a C-contiguous n_rows x row_len matrix at val, of dtype code vt."""
    cdef Rows r
    r.val = val
    r.vt = vt
    r.ix = NULL
    r.it = 0
    r.indptr = NULL
    r.n_rows = n_rows
    r.row_len = row_len
    r.sw = sw
    return r


cdef inline Rows csr_rows(const void* val, int vt, const void* ix, int it, const void* indptr,
                          Py_ssize_t n_rows, const double* sw=NULL) noexcept nogil:
    """The Rows of a CSR matrix (data at val, indices at ix, indptr of n_rows + 1)."""
    cdef Rows r
    r.val = val
    r.vt = vt
    r.ix = ix
    r.it = it
    r.indptr = indptr
    r.n_rows = n_rows
    r.row_len = 0
    r.sw = sw
    return r


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
