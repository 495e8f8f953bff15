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


cdef inline Py_ssize_t longest_row(const Rows* r) noexcept nogil:
    """The most stored values in a row (a dense row's length; 0 for no rows)."""
    cdef Py_ssize_t i, k, most = 0
    if r.indptr == NULL:
        return r.row_len if r.n_rows else 0
    for i in range(r.n_rows):
        if r.it == 1:
            k = (<const long long*>r.indptr)[i + 1] - (<const long long*>r.indptr)[i]
        else:
            k = (<const int*>r.indptr)[i + 1] - (<const int*>r.indptr)[i]
        if k > most:
            most = k
    return most


# -- the one Python-facing way in: a batch as the entry points take it ------------------------
# Each operation has one entry point (def), whatever the layout and dtypes of its rows: X is a
# C-contiguous 2-D array, or a CSR matrix as the triple (data, indices, indptr).  rows_of
# builds its Rows view (a dtype dispatch on Python objects: a few attribute reads per call),
# and the generated <op>_view functions of _dispatch.pxi.tp call the fused core for the view's
# dtypes.

cdef extern from *:
    """
    /* a non-NULL address for the values and indices of a CSR matrix with no stored value (never
       read: its rows are empty; a NULL index pointer would mean dense rows to row_at's callers) */
    static const long long mb_no_values[1] = {0};
    """
    const long long mb_no_values[1]


cdef enum:
    ADDITIVE_CODES = 0      # values: float32 0, float64 1
    WINNOW_CODES = 1        # values: uint8 0, float32 1, float64 2


cdef inline Py_ssize_t rows_of(object X, Rows* r, int codes, const double[::1] sw,
                               Py_ssize_t start=0) except -1:
    """Fill r with the rows start.. of X and return X's number of rows.  X: a C-contiguous 2-D
    array of float64 or float32 (or uint8 with WINNOW_CODES), or a CSR triple (data, indices,
    indptr) of such values and int32 or int64 indices (indices and indptr of one dtype; indptr
    already checked: non-decreasing from 0 to nnz).  sw: the sample weights of all of X's rows
    (as weights_ptr), or None.  Another dtype or layout raises (the Python layer sends only
    these); 0 <= start is the caller's to ensure (start >= X's rows gives no rows)."""
    cdef const double[:, ::1] x64
    cdef const float[:, ::1] x32
    cdef const unsigned char[:, ::1] x8
    cdef const double[::1] v64
    cdef const float[::1] v32
    cdef const unsigned char[::1] v8
    cdef const int[::1] i32
    cdef const int[::1] p32
    cdef const long long[::1] i64
    cdef const long long[::1] p64
    cdef Py_ssize_t n, m, width = 0, nnz, at
    cdef int vt, size
    cdef const void* val = <const void*>mb_no_values
    cdef const void* ix = <const void*>mb_no_values
    cdef const void* ip = NULL
    cdef bint csr = type(X) is tuple
    if csr:
        data, indices, indptr = <tuple>X
        size = data.dtype.itemsize
    else:
        size = X.dtype.itemsize
    vt = 1 if size == 8 else (0 if size == 4 else -1)
    if codes == WINNOW_CODES:
        vt = 0 if size == 1 else vt + 1
    if vt < 0:
        raise TypeError(f"rows_of: no kernel for values of {size} bytes")
    if csr:
        if size == 8:
            v64 = data
            nnz = v64.shape[0]
            if nnz:
                val = &v64[0]
        elif size == 4:
            v32 = data
            nnz = v32.shape[0]
            if nnz:
                val = &v32[0]
        else:
            v8 = data
            nnz = v8.shape[0]
            if nnz:
                val = &v8[0]
        if indptr.dtype.itemsize == 8:
            i64 = indices
            p64 = indptr
            n = p64.shape[0] - 1
            if i64.shape[0] != nnz or n < 0:
                raise ValueError("rows_of: the CSR arrays do not match")
            if nnz:
                ix = &i64[0]
            at = start if start < n else n
            ip = &p64[at]
            r[0] = csr_rows(val, vt, ix, 1, ip, n - at)
        else:
            i32 = indices
            p32 = indptr
            n = p32.shape[0] - 1
            if i32.shape[0] != nnz or n < 0:
                raise ValueError("rows_of: the CSR arrays do not match")
            if nnz:
                ix = &i32[0]
            at = start if start < n else n
            ip = &p32[at]
            r[0] = csr_rows(val, vt, ix, 0, ip, n - at)
    else:
        if size == 8:
            x64 = X
            n, width = x64.shape[0], x64.shape[1]
            at = start if start < n else n
            if at < n and width:
                val = &x64[at, 0]
        elif size == 4:
            x32 = X
            n, width = x32.shape[0], x32.shape[1]
            at = start if start < n else n
            if at < n and width:
                val = &x32[at, 0]
        else:
            x8 = X
            n, width = x8.shape[0], x8.shape[1]
            at = start if start < n else n
            if at < n and width:
                val = &x8[at, 0]
        r[0] = dense_rows(val, vt, n - at, width)
    r.sw = weights_ptr(sw, n)
    if r.sw != NULL:
        r.sw = r.sw + at
    return n
