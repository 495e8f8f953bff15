# cython: language_level=3
"""Compiled kernels of the multiplicative family (Winnow2, elimination Winnow, Winnow*, Balanced
Winnow), mirroring ``mbref.multiplicative`` bit for bit.

Weights are stored as base-2 logarithms ``l`` with a cache ``w = 2**l`` (float64; 0 or inf when
out of range) used for the sums.  In exact mode (Boolean features, power-of-two factors) every
``l`` is an integer and the prediction ``sum 2**l >= theta`` is decided exactly: a float64 sum with
a rigorous error bound settles almost every row; a row whose sum is within that bound of theta is
decided by exact binary addition of its powers of two.
"""

from libc.math cimport fabs, INFINITY
from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memset
cimport cython

from ._exact cimport bits_ge_bits, bits_ge_double, carry_bits, term

ctypedef fused value_t:
    unsigned char
    float
    double

ctypedef fused index_t:
    int
    long long

cdef enum:
    WINNOW = 0
    STAR = 1
    BALANCED = 2


cdef struct WParams:
    int variant
    int exact
    double la
    double lb
    double theta


cdef int exact_ge(long long* e, Py_ssize_t m, long long* bits, double theta) noexcept nogil:
    """sum_k 2**e[k] >= theta, exactly.  e is sorted in place; bits needs m + 64 entries."""
    return bits_ge_double(bits, carry_bits(e, m, bits), theta)


cdef inline void add4(double* s, Py_ssize_t k, double t) noexcept nogil:
    s[k & 3] += t


cdef enum:
    ROW_OK = 0
    ROW_INDEX_RANGE = 1
    ROW_UNSORTED = 2
    ROW_BAD_VALUE = 3
    ROW_BAD_INDPTR = 4
    NO_MEMORY = 5


cdef inline int check_row(const value_t* v, const index_t* ix, Py_ssize_t n, Py_ssize_t d,
                          int boolean, double limit) noexcept nogil:
    """Validate one row just before it is used (its values are then in L1 for the pass)."""
    cdef Py_ssize_t k, n4
    cdef int bad = 0
    cdef double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0
    if ix != NULL and n > 0:
        # Sorted and distinct: each index above the previous one; then only the first can be
        # negative and only the last too large.  32-bit compares for int32 (SSE2 vectorises).
        for k in range(1, n):
            bad |= ix[k] <= ix[k - 1]
        if ix[0] < 0 or ix[n - 1] >= d:
            return ROW_INDEX_RANGE
        if bad:
            return ROW_UNSORTED
    if boolean:
        if value_t is cython.uchar:
            for k in range(n):
                bad |= v[k] > 1
        else:
            # four accumulators: one would chain every element on the add latency
            n4 = n - (n % 4)
            for k in range(0, n4, 4):
                a0 += fabs(v[k] * (v[k] - 1.0))
                a1 += fabs(v[k + 1] * (v[k + 1] - 1.0))
                a2 += fabs(v[k + 2] * (v[k + 2] - 1.0))
                a3 += fabs(v[k + 3] * (v[k + 3] - 1.0))
            for k in range(n4, n):
                a0 += fabs(v[k] * (v[k] - 1.0))
            bad = (a0 + a1) + (a2 + a3) != 0.0
    else:
        for k in range(n):
            bad |= not (-limit <= v[k] <= limit)
    return ROW_BAD_VALUE if bad else ROW_OK


cdef inline int next_row(const value_t* val, const index_t* ix, const index_t* indptr,
                         Py_ssize_t row_len, Py_ssize_t i, Py_ssize_t d, int boolean,
                         double limit, const value_t** v, const index_t** xi,
                         Py_ssize_t* n) noexcept nogil:
    """Point v, xi (NULL for a dense row) and n at row i, checked (a ROW_* code)."""
    cdef Py_ssize_t lo
    if indptr == NULL:
        v[0] = val + i * row_len
        xi[0] = NULL
        n[0] = row_len
    else:
        lo = indptr[i]
        if indptr[i + 1] < lo:
            return ROW_BAD_INDPTR
        v[0] = val + lo
        xi[0] = ix + lo
        n[0] = indptr[i + 1] - lo
    return check_row(v[0], xi[0], n[0], d, boolean, limit)


cdef struct Undo:
    long long* j
    double* old
    Py_ssize_t size
    Py_ssize_t cap


cdef int undo_push(Undo* u, long long j, const double* l, const double* w, const double* ln,
                   const double* wn) noexcept nogil:
    """Remember feature j's state before it changes (for the all-or-nothing rollback)."""
    cdef Py_ssize_t cap
    cdef long long* nj
    cdef double* no
    if u.size == u.cap:
        cap = 64 if u.cap == 0 else 2 * u.cap
        nj = <long long*>realloc(u.j, cap * sizeof(long long))
        if nj == NULL:
            return -1
        u.j = nj
        no = <double*>realloc(u.old, 4 * cap * sizeof(double))
        if no == NULL:
            return -1
        u.old = no
        u.cap = cap
    u.j[u.size] = j
    u.old[4 * u.size] = l[j]
    u.old[4 * u.size + 1] = w[j]
    u.old[4 * u.size + 2] = ln[j] if ln != NULL else 0.0
    u.old[4 * u.size + 3] = wn[j] if wn != NULL else 0.0
    u.size += 1
    return 0


cdef void undo_apply(Undo* u, double* l, double* w, double* ln, double* wn) noexcept nogil:
    cdef Py_ssize_t k
    cdef long long j
    for k in range(u.size - 1, -1, -1):
        j = u.j[k]
        l[j] = u.old[4 * k]
        w[j] = u.old[4 * k + 1]
        if ln != NULL:
            ln[j] = u.old[4 * k + 2]
            wn[j] = u.old[4 * k + 3]


cdef inline double exact_sum(const double* w, const value_t* v, const index_t* ix,
                             Py_ssize_t n) noexcept nogil:
    """sum of w over the active features, in any order (the exact predicate does not depend
    on it): four accumulators by stored position, no branch per element."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t k, n4 = n - (n % 4)
    if ix != NULL:
        for k in range(0, n4, 4):
            s0 += w[ix[k]] if v[k] != 0 else 0.0
            s1 += w[ix[k + 1]] if v[k + 1] != 0 else 0.0
            s2 += w[ix[k + 2]] if v[k + 2] != 0 else 0.0
            s3 += w[ix[k + 3]] if v[k + 3] != 0 else 0.0
        for k in range(n4, n):
            s0 += w[ix[k]] if v[k] != 0 else 0.0
    else:
        for k in range(0, n4, 4):
            s0 += w[k] if v[k] != 0 else 0.0
            s1 += w[k + 1] if v[k + 1] != 0 else 0.0
            s2 += w[k + 2] if v[k + 2] != 0 else 0.0
            s3 += w[k + 3] if v[k + 3] != 0 else 0.0
        for k in range(n4, n):
            s0 += w[k] if v[k] != 0 else 0.0
    return (s0 + s1) + (s2 + s3)


cdef int winnow_row(const WParams* p, double* l, double* w, double* ln, double* wn,
                    const value_t* v, const index_t* ix, Py_ssize_t n, int y, long long* e,
                    long long* bits, int update, double* score, Undo* undo) noexcept nogil:
    """Predict one row (1 or -1); with update, apply the mistake-driven update.
    Returns 0 when out of memory for the undo log."""
    cdef double s[4]
    cdef double S, err, x, t
    cdef Py_ssize_t k, j, m = 0
    cdef int pr
    s[0] = 0.0
    s[1] = 0.0
    s[2] = 0.0
    s[3] = 0.0
    if p.exact and p.variant != BALANCED and score == NULL:
        # Only the decision is needed: it is exact, so the summation order is free.
        S = exact_sum(w, v, ix, n)
        m = n
    else:
        S = ordered_sum(p, w, wn, v, ix, n, &m)
        if score != NULL:
            score[0] = S
    return decide_and_update(p, l, w, ln, wn, v, ix, n, y, e, bits, update, S, m, undo)


cdef inline double ordered_sum(const WParams* p, const double* w, const double* wn,
                               const value_t* v, const index_t* ix, Py_ssize_t n,
                               Py_ssize_t* m_out) noexcept nogil:
    """The score in the contract's order: term k of the row's active features into s[k % 4]."""
    cdef double s[4]
    cdef double x
    cdef Py_ssize_t k, j, m = 0
    s[0] = 0.0
    s[1] = 0.0
    s[2] = 0.0
    s[3] = 0.0
    for k in range(n):
        x = v[k]
        if x == 0.0:
            continue
        j = ix[k] if ix != NULL else k
        if p.variant == BALANCED:
            add4(s, m, x * (w[j] - wn[j]))
        elif p.exact:
            add4(s, m, w[j])
        else:
            add4(s, m, x * w[j])
        m += 1
    m_out[0] = m
    return (s[0] + s[1]) + (s[2] + s[3])


cdef inline void update_weight(const WParams* p, double* l, double* w, double* ln, double* wn,
                               Py_ssize_t t, double x, int positive) noexcept nogil:
    """One weight's update (the entry t of l, w and for Balanced Winnow ln, wn), as on a
    false negative (positive) or a false positive; x is the feature's value (not 0)."""
    if p.variant == BALANCED:
        if positive:
            l[t] = l[t] + x * p.la
            ln[t] = ln[t] + x * p.lb
        else:
            l[t] = l[t] + x * p.lb
            ln[t] = ln[t] + x * p.la
        wn[t] = term(ln[t])
    elif positive:
        l[t] = l[t] + (p.la if p.variant == STAR else x * p.la)
    elif p.variant == STAR:
        if l[t] >= 0.0:
            l[t] = l[t] + p.lb
    elif p.lb == -INFINITY:
        l[t] = -INFINITY
    else:
        l[t] = l[t] + x * p.lb
    w[t] = term(l[t])


cdef int decide_and_update(const WParams* p, double* l, double* w, double* ln, double* wn,
                           const value_t* v, const index_t* ix, Py_ssize_t n, int y,
                           long long* e, long long* bits, int update, double S, Py_ssize_t m,
                           Undo* undo) noexcept nogil:
    cdef double err, x
    cdef Py_ssize_t k, j
    cdef int pr
    if p.exact and p.variant != BALANCED:
        if S == INFINITY:
            pr = 1
        else:
            err = (m + 3) * 2.220446049250313e-16 * S + m * 4.9406564584124654e-324
            if S - err >= p.theta:
                pr = 1
            elif S + err < p.theta:
                pr = -1
            else:
                m = 0
                for k in range(n):
                    if v[k] != 0.0:
                        j = ix[k] if ix != NULL else k
                        if l[j] != -INFINITY:
                            e[m] = <long long>l[j]
                            m += 1
                pr = 1 if exact_ge(e, m, bits, p.theta) else -1
    else:
        pr = 1 if S >= p.theta else -1
    if not update or pr == y:
        return pr
    for k in range(n):
        x = v[k]
        if x == 0.0:
            continue
        j = ix[k] if ix != NULL else k
        if undo != NULL and undo_push(undo, j, l, w, ln, wn):
            return 0
        update_weight(p, l, w, ln, wn, j, x, y > 0)
    return pr


cdef int winnow_pass(const WParams* p, double* l, double* w, double* ln, double* wn,
                     const value_t* val, const index_t* ix, const index_t* indptr,
                     Py_ssize_t n_rows, Py_ssize_t row_len, Py_ssize_t max_row, Py_ssize_t d,
                     int boolean, double limit, const signed char* y, signed char* pred,
                     long long* counts, int update, double* scores,
                     Py_ssize_t* bad_row) noexcept nogil:
    """The whole pass; validates each row just before it is used.  On a bad row every weight
    changed in this call is restored (all or nothing) and the row and a ROW_* code returned."""
    cdef long long* e = <long long*>malloc((max_row + 1) * sizeof(long long))
    cdef long long* bits = <long long*>malloc((max_row + 65) * sizeof(long long))
    cdef Undo undo
    cdef Py_ssize_t i, n
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr, yi, code = ROW_OK
    cdef long long c0 = counts[0], c1 = counts[1], c2 = counts[2]
    cdef double sc
    undo.j = NULL
    undo.old = NULL
    undo.size = 0
    undo.cap = 0
    if e == NULL or bits == NULL:
        code = NO_MEMORY
    for i in range(n_rows if code == ROW_OK else 0):
        code = next_row(val, ix, indptr, row_len, i, d, boolean, limit, &v, &xi, &n)
        if code != ROW_OK:
            break
        yi = y[i] if y != NULL else 0
        pr = winnow_row(p, l, w, ln, wn, v, xi, n, yi, e, bits, update,
                        &sc if scores != NULL else NULL, &undo if update else NULL)
        if pr == 0:
            code = NO_MEMORY
            break
        if pred != NULL:
            pred[i] = pr
        if scores != NULL:
            scores[i] = sc
        if update:
            counts[0] += 1
            if pr != yi:
                counts[1] += 1
                counts[2] += 1
    if code != ROW_OK:
        bad_row[0] = i
        if update:
            undo_apply(&undo, l, w, ln, wn)
            counts[0] = c0
            counts[1] = c1
            counts[2] = c2
    free(undo.j)
    free(undo.old)
    free(e)
    free(bits)
    return code


cdef WParams make_params(int variant, bint exact, double la, double lb, double theta):
    cdef WParams p
    p.variant = variant
    p.exact = exact
    p.la = la
    p.lb = lb
    p.theta = theta
    return p


def winnow_dense(int variant, bint exact, double la, double lb, double theta,
                 double[::1] l, double[::1] w, double[::1] ln, double[::1] wn,
                 const value_t[:, ::1] X, bint boolean, double limit,
                 const signed char[::1] y, signed char[::1] pred, long long[::1] counts,
                 bint update, double[::1] scores=None):
    """One pass over dense rows (update=True: the online protocol; False: predict only)."""
    cdef WParams p = make_params(variant, exact, la, lb, theta)
    cdef double* lnp = &ln[0] if ln.shape[0] > 0 else NULL
    cdef double* wnp = &wn[0] if wn.shape[0] > 0 else NULL
    cdef const signed char* yp = &y[0] if y is not None else NULL
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef double* sp = &scores[0] if scores is not None else NULL
    cdef int status
    cdef Py_ssize_t bad = -1
    with nogil:
        status = winnow_pass(&p, &l[0], &w[0], lnp, wnp, &X[0, 0], <const int*>NULL,
                             <const int*>NULL, X.shape[0], X.shape[1], X.shape[1], X.shape[1],
                             boolean, limit, yp, pp, &counts[0], update, sp, &bad)
    if status == NO_MEMORY:
        raise MemoryError("Winnow: no memory for the pass's buffers")
    return status, bad


def winnow_csr(int variant, bint exact, double la, double lb, double theta,
               double[::1] l, double[::1] w, double[::1] ln, double[::1] wn,
               const value_t[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
               Py_ssize_t max_row, Py_ssize_t n_cols, bint boolean, double limit,
               const signed char[::1] y, signed char[::1] pred, long long[::1] counts,
               bint update, double[::1] scores=None):
    """One pass over CSR rows; max_row is the largest number of stored values in a row."""
    cdef WParams p = make_params(variant, exact, la, lb, theta)
    cdef double* lnp = &ln[0] if ln.shape[0] > 0 else NULL
    cdef double* wnp = &wn[0] if wn.shape[0] > 0 else NULL
    cdef const signed char* yp = &y[0] if y is not None else NULL
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef double* sp = &scores[0] if scores is not None else NULL
    cdef value_t dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const value_t* dp = &data[0] if data.shape[0] > 0 else &dummy_v
    cdef const index_t* ip = &indices[0] if indices.shape[0] > 0 else &dummy_i
    cdef int status
    cdef Py_ssize_t bad = -1
    with nogil:
        status = winnow_pass(&p, &l[0], &w[0], lnp, wnp, dp, ip, &indptr[0],
                             indptr.shape[0] - 1, 0, max_row, n_cols, boolean, limit, yp, pp,
                             &counts[0], update, sp, &bad)
    if status == NO_MEMORY:
        raise MemoryError("Winnow: no memory for the pass's buffers")
    return status, bad


# ---------------------------------------------------------------------------------------------
# More than two classes: K weight vectors, feature-major (l[j * K + k]: feature j, class k)
# ---------------------------------------------------------------------------------------------
#
# Class k's score is the binary score with its weights, in the binary order: the m-th active
# feature of the row goes to the partial sum m % 4 (exact mode: the sum of 2**l, decided exactly;
# real mode: x * 2**l; Balanced: x * (2**l+ - 2**l-)).  The prediction is the argmax, the smallest
# class index among ties; in exact mode the float sums with their error bounds settle it unless
# two classes are within their bounds, and then the exact binary sums of the candidates decide.
# A pass that meets a bad row returns its code: the Python layer puts the state back
# (mbcore.base.Snapshot), so no undo log is kept here.

cdef struct MCBuf:
    Py_ssize_t K
    Py_ssize_t* act          # the active features' positions in the row
    double* acc              # 4 K partial sums
    double* S                # K class sums
    double* err              # K error bounds (exact mode)
    long long* e             # exponents of one class's active weights
    long long* ba            # the set bits of the best class's exact sum
    long long* bb            # the set bits of a contender's exact sum


cdef int mc_buf_init(MCBuf* b, Py_ssize_t K, Py_ssize_t max_row) noexcept nogil:
    b.K = K
    b.act = <Py_ssize_t*>malloc((max_row + 1) * sizeof(Py_ssize_t))
    b.acc = <double*>malloc(4 * K * sizeof(double))
    b.S = <double*>malloc(K * sizeof(double))
    b.err = <double*>malloc(K * sizeof(double))
    b.e = <long long*>malloc((max_row + 1) * sizeof(long long))
    b.ba = <long long*>malloc((max_row + 65) * sizeof(long long))
    b.bb = <long long*>malloc((max_row + 65) * sizeof(long long))
    return b.act != NULL and b.acc != NULL and b.S != NULL and b.err != NULL and \
        b.e != NULL and b.ba != NULL and b.bb != NULL


cdef void mc_buf_free(MCBuf* b) noexcept nogil:
    free(b.act)
    free(b.acc)
    free(b.S)
    free(b.err)
    free(b.e)
    free(b.ba)
    free(b.bb)


cdef inline Py_ssize_t mc_class_bits(const double* l, Py_ssize_t K, Py_ssize_t k,
                                     const index_t* ix, const Py_ssize_t* act, Py_ssize_t m,
                                     long long* e, long long* bits) noexcept nogil:
    """The set bits of class k's exact sum over the active features (exact mode)."""
    cdef Py_ssize_t q, r = 0, j
    cdef double lv
    for q in range(m):
        j = ix[act[q]] if ix != NULL else act[q]
        lv = l[j * K + k]
        if lv != -INFINITY:
            e[r] = <long long>lv
            r += 1
    return carry_bits(e, r, bits)


cdef inline void mc_update_class(const WParams* p, double* l, double* w, double* ln, double* wn,
                                 Py_ssize_t K, Py_ssize_t k, int positive, const value_t* v,
                                 const index_t* ix, const Py_ssize_t* act,
                                 Py_ssize_t m) noexcept nogil:
    """The binary update of class k's weights, as on a false negative (positive) or a false
    positive, over the active features."""
    cdef Py_ssize_t q, j
    cdef double x
    for q in range(m):
        x = v[act[q]]
        j = ix[act[q]] if ix != NULL else act[q]
        update_weight(p, l, w, ln, wn, j * K + k, x, positive)


cdef int mc_winnow_row(const WParams* p, int ovr, double* l, double* w, double* ln, double* wn,
                       MCBuf* b, const value_t* v, const index_t* ix, Py_ssize_t n, int y,
                       int update, int* pred) noexcept nogil:
    """Predict one row (its class index into pred); with update, learn its label y.  Returns
    1 if the state changed, else 0."""
    cdef Py_ssize_t K = b.K, q, m = 0, k, j, best, c
    cdef double x, S, lo
    cdef double* a
    cdef const double* wr
    cdef const double* wnr
    cdef Py_ssize_t ra, rb
    cdef int pk, yk, changed = 0
    cdef int exact = p.exact and p.variant != BALANCED
    for q in range(n):
        if v[q] != 0:
            b.act[m] = q
            m += 1
    memset(b.acc, 0, 4 * K * sizeof(double))
    for q in range(m):
        x = v[b.act[q]]
        j = ix[b.act[q]] if ix != NULL else b.act[q]
        a = b.acc + (q & 3) * K
        wr = w + j * K
        if p.variant == BALANCED:
            wnr = wn + j * K
            for k in range(K):
                a[k] += x * (wr[k] - wnr[k])
        elif exact:
            for k in range(K):
                a[k] += wr[k]
        else:
            for k in range(K):
                a[k] += x * wr[k]
    for k in range(K):
        b.S[k] = (b.acc[k] + b.acc[K + k]) + (b.acc[2 * K + k] + b.acc[3 * K + k])
    best = 0
    for k in range(1, K):
        if b.S[k] > b.S[best]:
            best = k
    if exact:
        for k in range(K):
            b.err[k] = (m + 3) * 2.220446049250313e-16 * b.S[k] + m * 4.9406564584124654e-324
        # the classes that may be the exact argmax: those whose interval reaches the best's
        lo = b.S[best] - b.err[best]
        c = 0
        for k in range(K):
            if b.S[best] == INFINITY:
                c += b.S[k] == INFINITY
            else:
                c += b.S[k] + b.err[k] >= lo
        if c > 1:
            best = -1
            ra = 0
            for k in range(K):
                if b.S[best if best >= 0 else k] == INFINITY and b.S[k] != INFINITY:
                    continue
                if b.S[k] != INFINITY and b.S[k] + b.err[k] < lo:
                    continue
                if best < 0:
                    best = k
                    ra = mc_class_bits(l, K, k, ix, b.act, m, b.e, b.ba)
                    continue
                rb = mc_class_bits(l, K, k, ix, b.act, m, b.e, b.bb)
                if not bits_ge_bits(b.ba, ra, b.bb, rb):      # strictly larger: a new best
                    best = k
                    ra = rb
                    b.ba, b.bb = b.bb, b.ba
    pred[0] = <int>best
    if not update:
        return 0
    if not ovr:
        if best == y:
            return 0
        mc_update_class(p, l, w, ln, wn, K, y, 1, v, ix, b.act, m)
        mc_update_class(p, l, w, ln, wn, K, best, 0, v, ix, b.act, m)
        return 1
    for k in range(K):
        # learner k's binary decision (the binary learner's rule, exact in exact mode)
        S = b.S[k]
        if exact:
            if S == INFINITY or S - b.err[k] >= p.theta:
                pk = 1
            elif S + b.err[k] < p.theta:
                pk = -1
            else:
                ra = mc_class_bits(l, K, k, ix, b.act, m, b.e, b.ba)
                pk = 1 if bits_ge_double(b.ba, ra, p.theta) else -1
        else:
            pk = 1 if S >= p.theta else -1
        yk = 1 if k == y else -1
        if pk != yk:
            mc_update_class(p, l, w, ln, wn, K, k, yk > 0, v, ix, b.act, m)
            changed = 1
    return changed


cdef int mc_winnow_pass(const WParams* p, int ovr, Py_ssize_t K, double* l, double* w,
                        double* ln, double* wn, const value_t* val, const index_t* ix,
                        const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                        Py_ssize_t max_row, Py_ssize_t d, int boolean, double limit,
                        const int* y, int* pred, unsigned char* upd, long long* counts,
                        int update, double* scores, Py_ssize_t* bad_row) noexcept nogil:
    """The whole pass for K >= 3 classes; each row validated just before it is used.  On a
    bad row: its code and index (the counts are not written; the caller restores the
    weights)."""
    cdef MCBuf b
    cdef Py_ssize_t i, n, k
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr = 0, r, code = ROW_OK
    cdef long long c0 = counts[0], c1 = counts[1], c2 = counts[2]
    if not mc_buf_init(&b, K, max_row):
        mc_buf_free(&b)
        return NO_MEMORY
    for i in range(n_rows):
        code = next_row(val, ix, indptr, row_len, i, d, boolean, limit, &v, &xi, &n)
        if code != ROW_OK:
            break
        r = mc_winnow_row(p, ovr, l, w, ln, wn, &b, v, xi, n, y[i] if y != NULL else 0,
                          update, &pr)
        pred[i] = pr
        if scores != NULL:
            for k in range(K):
                scores[i * K + k] = b.S[k]
        if update:
            c0 += 1
            c1 += pr != y[i]
            c2 += r
            if upd != NULL:
                upd[i] = <unsigned char>r
    mc_buf_free(&b)
    if code != ROW_OK:
        bad_row[0] = i
        return code
    if update:
        counts[0] = c0
        counts[1] = c1
        counts[2] = c2
    return ROW_OK


cdef int mc_sizes(Py_ssize_t K, Py_ssize_t d, Py_ssize_t nl, Py_ssize_t nw, Py_ssize_t nln,
                  Py_ssize_t nwn, int variant) except -1:
    if K < 3 or nl != d * K or nw != d * K or \
            nln != (d * K if variant == BALANCED else 0) or nwn != nln:
        raise ValueError("winnow multi-class pass: the state arrays do not match d and K")
    return 0


def mc_winnow_dense(int variant, bint exact, double la, double lb, double theta, Py_ssize_t K,
                    bint ovr, double[::1] l, double[::1] w, double[::1] ln, double[::1] wn,
                    const value_t[:, ::1] X, bint boolean, double limit, const int[::1] y,
                    int[::1] pred, unsigned char[::1] upd, long long[::1] counts, bint update,
                    double[:, ::1] scores=None):
    """One pass over dense rows with K >= 3 classes (update=False: predict only; scores: the
    K class sums of every row); returns (status, bad_row)."""
    cdef WParams p = make_params(variant, exact, la, lb, theta)
    cdef double* lnp = &ln[0] if ln.shape[0] > 0 else NULL
    cdef double* wnp = &wn[0] if wn.shape[0] > 0 else NULL
    cdef const int* yp = &y[0] if y is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef double* sp = &scores[0, 0] if scores is not None else NULL
    cdef int status
    cdef Py_ssize_t bad = -1
    mc_sizes(K, X.shape[1], l.shape[0], w.shape[0], ln.shape[0], wn.shape[0], variant)
    if pred.shape[0] != X.shape[0] or (update and (y is None or y.shape[0] != X.shape[0])) or \
            (upd is not None and upd.shape[0] != X.shape[0]) or \
            (scores is not None and (scores.shape[0] != X.shape[0] or scores.shape[1] != K)):
        raise ValueError("mc_winnow_dense: the output arrays do not match X")
    with nogil:
        status = mc_winnow_pass(&p, ovr, K, &l[0], &w[0], lnp, wnp, &X[0, 0], <const int*>NULL,
                                <const int*>NULL, X.shape[0], X.shape[1], X.shape[1],
                                X.shape[1], boolean, limit, yp, &pred[0], up, &counts[0],
                                update, sp, &bad)
    if status == NO_MEMORY:
        raise MemoryError("Winnow: no memory for the pass's buffers")
    return status, bad


def mc_winnow_csr(int variant, bint exact, double la, double lb, double theta, Py_ssize_t K,
                  bint ovr, double[::1] l, double[::1] w, double[::1] ln, double[::1] wn,
                  const value_t[::1] data, const index_t[::1] indices,
                  const index_t[::1] indptr, Py_ssize_t max_row, Py_ssize_t n_cols,
                  bint boolean, double limit, const int[::1] y, int[::1] pred,
                  unsigned char[::1] upd, long long[::1] counts, bint update,
                  double[:, ::1] scores=None):
    """As mc_winnow_dense, for CSR rows (max_row: the most stored values in a row)."""
    cdef WParams p = make_params(variant, exact, la, lb, theta)
    cdef double* lnp = &ln[0] if ln.shape[0] > 0 else NULL
    cdef double* wnp = &wn[0] if wn.shape[0] > 0 else NULL
    cdef const int* yp = &y[0] if y is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef double* sp = &scores[0, 0] if scores is not None else NULL
    cdef value_t dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const value_t* dp = &data[0] if data.shape[0] > 0 else &dummy_v
    cdef const index_t* ip = &indices[0] if indices.shape[0] > 0 else &dummy_i
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1
    cdef int status
    cdef Py_ssize_t bad = -1
    mc_sizes(K, n_cols, l.shape[0], w.shape[0], ln.shape[0], wn.shape[0], variant)
    if n_rows < 0 or indptr[0] != 0 or indptr[n_rows] > data.shape[0] or \
            indices.shape[0] != data.shape[0] or pred.shape[0] != n_rows or \
            (update and (y is None or y.shape[0] != n_rows)) or \
            (upd is not None and upd.shape[0] != n_rows) or \
            (scores is not None and (scores.shape[0] != n_rows or scores.shape[1] != K)):
        raise ValueError("mc_winnow_csr: the arrays do not match")
    with nogil:
        status = mc_winnow_pass(&p, ovr, K, &l[0], &w[0], lnp, wnp, dp, ip, &indptr[0], n_rows,
                                0, max_row, n_cols, boolean, limit, yp, &pred[0], up,
                                &counts[0], update, sp, &bad)
    if status == NO_MEMORY:
        raise MemoryError("Winnow: no memory for the pass's buffers")
    return status, bad


def terms(const double[::1] l, double[::1] out):
    """out[j] = 2**l[j] as float64 (the weight cache)."""
    cdef Py_ssize_t j
    with nogil:
        for j in range(l.shape[0]):
            out[j] = term(l[j])


def exact_sum_ge(long long[::1] exps, double theta):
    """sum_k 2**exps[k] >= theta, exactly (for tests of the exact comparison)."""
    cdef Py_ssize_t m = exps.shape[0]
    cdef long long* bits = <long long*>malloc((m + 65) * sizeof(long long))
    cdef long long dummy = 0
    cdef int r
    if bits == NULL:
        raise MemoryError()
    r = exact_ge(&exps[0] if m > 0 else &dummy, m, bits, theta)
    free(bits)
    return bool(r)


def check_values(const value_t[::1] data, bint boolean, double limit):
    """Index of the first value that is not 0/1 (boolean) or not finite with |x| <= limit,
    else -1."""
    cdef Py_ssize_t k, n = data.shape[0], bad = -1
    cdef const value_t* p = &data[0] if n > 0 else NULL
    cdef int flag = 0
    cdef double x, acc
    if n == 0:
        return -1
    with nogil:
        # Flat loops without branches (the compiler vectorises them); locate only on failure.
        if boolean:
            if value_t is cython.uchar:
                for k in range(n):
                    flag |= p[k] > 1
            else:
                # x * (x - 1) is 0 exactly for 0 and 1, and NaN or inf propagate: no compares
                acc = 0.0
                for k in range(n):
                    acc += fabs(p[k] * (p[k] - 1.0))
                flag = acc != 0.0
        else:
            for k in range(n):
                flag |= not (-limit <= p[k] <= limit)
        if flag:
            for k in range(n):
                x = p[k]
                if (boolean and x != 0.0 and x != 1.0) or \
                        (not boolean and not (-limit <= x <= limit)):
                    bad = k
                    break
    return bad
