# cython: language_level=3
"""Input checks that need a pass over the data (CSR structure, labels), compiled: used by
mbcore._validation for every family, so that it imports no family's kernel."""

from ._arith cimport index_t


# ---------------------------------------------------------------------------------------------
# Input checks that need a pass over the data
# ---------------------------------------------------------------------------------------------

cdef int csr_locate(const index_t* indices, const index_t* indptr, Py_ssize_t n_rows,
                    Py_ssize_t n_cols, Py_ssize_t* row) noexcept nogil:
    """The first problem, row by row (only run when csr_check found one).  A decreasing indptr
    is looked for over all rows first: only then are the rows' bounds known to lie within
    [0, nnz] (the caller checked indptr[0] == 0 and indptr[-1] == nnz), so that reading a
    row's indices is safe."""
    cdef Py_ssize_t i, k
    cdef long long j, prev
    for i in range(n_rows):
        if indptr[i + 1] < indptr[i]:
            row[0] = i
            return 3
    for i in range(n_rows):
        prev = -1
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j < 0 or j >= n_cols:
                row[0] = i
                return 1
            if j <= prev:
                row[0] = i
                return 2
            prev = j
    return 0


def csr_check(const index_t[::1] indices, const index_t[::1] indptr, Py_ssize_t n_cols):
    """Returns (0, -1) if valid; (1, row) for an index out of range; (2, row) for unsorted or
    duplicate indices; (3, row) for a decreasing indptr.  indptr[0] == 0 and
    indptr[-1] == len(indices) are checked by the caller.

    Three flat loops without a carried dependency (the compiler vectorises them); the exact
    row is located only when one of them found a problem."""
    cdef Py_ssize_t i, k, n_rows = indptr.shape[0] - 1, nnz = indices.shape[0], row = -1
    cdef int bad = 0, code = 0
    cdef const index_t* ix = &indices[0] if nnz > 0 else NULL
    cdef const index_t* ip = &indptr[0]
    with nogil:
        for i in range(n_rows):
            bad |= ip[i + 1] < ip[i]
        if not bad:
            # One unsigned compare catches both j < 0 and j >= n_cols; for int32 indices it is
            # a 32-bit compare, which baseline x86-64 (SSE2) vectorises.
            if index_t is int:
                if n_cols <= <Py_ssize_t>0xFFFFFFFF:
                    for k in range(nnz):
                        bad |= (<unsigned int>ix[k]) >= (<unsigned int>n_cols)
                else:
                    for k in range(nnz):
                        bad |= ix[k] < 0
            else:
                for k in range(nnz):
                    bad |= (<size_t>ix[k]) >= (<size_t>n_cols)
        if not bad:
            for i in range(n_rows):
                for k in range(ip[i] + 1, ip[i + 1]):
                    bad |= ix[k] <= ix[k - 1]
        if bad:
            code = csr_locate(ix, ip, n_rows, n_cols, &row)
    return code, row


def indptr_check(const index_t[::1] indptr):
    """The first row where indptr decreases, or -1 (the check of the row boundaries that a
    pass which checks each row's indices as it reads them needs first)."""
    cdef Py_ssize_t i, n_rows = indptr.shape[0] - 1, row = -1
    cdef const index_t* ip = &indptr[0]
    cdef int bad = 0
    with nogil:
        for i in range(n_rows):
            bad |= ip[i + 1] < ip[i]
        if bad:
            for i in range(n_rows):
                if ip[i + 1] < ip[i]:
                    row = i
                    break
    return row


ctypedef fused label_t:
    signed char
    short
    int
    long long
    unsigned char
    float
    double


def encode_labels(const label_t[::1] y, label_t neg, label_t pos, signed char[::1] out):
    """out[i] = +1 where y[i] == pos, -1 where y[i] == neg; returns the first other index or -1.

    neg and pos must be exactly representable in y's type (the caller checks).  Branch-free:
    labels arrive in random order."""
    cdef Py_ssize_t i, n = y.shape[0], bad = -1
    cdef int c, missing = 0
    with nogil:
        for i in range(n):
            c = (y[i] == pos) - (y[i] == neg)
            out[i] = <signed char>c
            missing |= c == 0
        if missing:
            for i in range(n):
                if out[i] == 0:
                    bad = i
                    break
    return bad


def distinct_labels(const label_t[::1] y):
    """Scan for up to three distinct labels: returns (count, i1, i2), the first index of the
    second and third distinct values (-1 if absent).  NaN compares unequal to everything, so a
    NaN label shows up as another label (the caller checks NaN first)."""
    cdef Py_ssize_t i, n = y.shape[0], i1 = -1, i2 = -1
    cdef label_t a, b
    cdef int other = 0
    if n == 0:
        return 0, -1, -1
    a = y[0]
    with nogil:
        for i in range(1, n):
            if y[i] != a:
                i1 = i
                break
        if i1 >= 0:
            b = y[i1]
            for i in range(i1 + 1, n):
                other |= (y[i] != a) & (y[i] != b)
            if other:
                for i in range(i1 + 1, n):
                    if y[i] != a and y[i] != b:
                        i2 = i
                        break
    return (1 if i1 < 0 else (2 if i2 < 0 else 3)), i1, i2


# -- integer labels to class codes (mbcore._validation) ----------------------------------------

ctypedef fused small_t:
    signed char
    unsigned char
    short
    int
    long long


ctypedef fused code_out_t:
    unsigned char
    int


def encode_small(const small_t[::1] a, long long lo, const int[::1] table,
                 code_out_t[::1] out):
    """out[k] = table[a[k] - lo] (class codes of integer labels through a lookup table; -1 in
    the table marks a value outside the classes).  Returns the index of the first value outside
    the table's range or outside the classes, or -1."""
    cdef Py_ssize_t k, n = a.shape[0], span = table.shape[0], bad = -1
    cdef long long x
    cdef int c
    with nogil:
        for k in range(n):
            x = <long long>a[k] - lo
            if x < 0 or x >= span:
                bad = k
                break
            c = table[x]
            if c < 0:
                bad = k
                break
            out[k] = <code_out_t>c
    return bad
