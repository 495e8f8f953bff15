# cython: language_level=3
"""Compiled kernels of the multiplicative family (Winnow2, elimination Winnow, Winnow*, Balanced
Winnow), mirroring ``mbref.multiplicative`` bit for bit.

Weights are stored as base-2 logarithms ``l`` with a cache ``w = 2**l`` (float64; 0 or inf when
out of range) used for the sums.  In exact mode (Boolean features, power-of-two factors) every
``l`` is an integer and the prediction ``sum 2**l >= theta`` is decided exactly: a float64 sum with
a rigorous error bound settles almost every row; a row whose sum is within that bound of theta is
decided by exact binary addition of its powers of two.
"""

from libc.math cimport ldexp, pow, floor, frexp, fabs, INFINITY
from libc.stdlib cimport malloc, free, qsort
cimport cython

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


cdef inline double term(double l) noexcept nogil:
    """2**l as float64 (mbref.multiplicative._term)."""
    if l == -INFINITY:
        return 0.0
    if l == floor(l):
        if l > 1023.0:
            return INFINITY
        if l >= -1074.0:
            return ldexp(1.0, <int>l)
        return 0.0
    return pow(2.0, l)


cdef int cmp_ll(const void* a, const void* b) noexcept nogil:
    cdef long long x = (<const long long*>a)[0], y = (<const long long*>b)[0]
    return (x > y) - (x < y)


cdef int exact_ge(long long* e, Py_ssize_t m, long long* bits, double theta) noexcept nogil:
    """sum_k 2**e[k] >= theta, exactly.  e is sorted in place; bits needs m + 64 entries."""
    cdef Py_ssize_t i = 0, r = 0, si
    cdef long long cur, c, carry = 0, q, M, tpos
    cdef int E, ti
    cdef double f
    if m > 0:
        qsort(e, m, sizeof(long long), cmp_ll)
        cur = e[0]
        while i < m or carry > 0:
            c = carry
            while i < m and e[i] == cur:
                c += 1
                i += 1
            if c & 1:
                bits[r] = cur
                r += 1
            carry = c >> 1
            if carry > 0:
                cur += 1
            elif i < m:
                cur = e[i]
    # theta = M * 2**q with M a 53-bit integer
    f = frexp(theta, &E)
    M = <long long>ldexp(f, 53)
    q = E - 53
    si = r - 1
    ti = 52
    while True:
        while ti >= 0 and not ((M >> ti) & 1):
            ti -= 1
        if si < 0:
            return 1 if ti < 0 else 0
        if ti < 0:
            return 1
        tpos = q + ti
        if bits[si] > tpos:
            return 1
        if bits[si] < tpos:
            return 0
        si -= 1
        ti -= 1


cdef inline void add4(double* s, Py_ssize_t k, double t) noexcept nogil:
    s[k & 3] += t


cdef int winnow_row(const WParams* p, double* l, double* w, double* ln, double* wn,
                    const value_t* v, const index_t* ix, Py_ssize_t n, int y, long long* e,
                    long long* bits, int update, double* score) noexcept nogil:
    """Predict one row (1 or -1); with update, apply the mistake-driven update."""
    cdef double s[4]
    cdef double S, err, x, t
    cdef Py_ssize_t k, j, m = 0
    cdef int pr
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
    S = (s[0] + s[1]) + (s[2] + s[3])
    score[0] = S
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
        if p.variant == BALANCED:
            if y > 0:
                l[j] = l[j] + x * p.la
                ln[j] = ln[j] + x * p.lb
            else:
                l[j] = l[j] + x * p.lb
                ln[j] = ln[j] + x * p.la
            wn[j] = term(ln[j])
        elif y > 0:
            l[j] = l[j] + (p.la if p.variant == STAR else x * p.la)
        elif p.variant == STAR:
            if l[j] >= 0.0:
                l[j] = l[j] + p.lb
        elif p.lb == -INFINITY:
            l[j] = -INFINITY
        else:
            l[j] = l[j] + x * p.lb
        w[j] = term(l[j])
    return pr


cdef int winnow_pass(const WParams* p, double* l, double* w, double* ln, double* wn,
                     const value_t* val, const index_t* ix, const index_t* indptr,
                     Py_ssize_t n_rows, Py_ssize_t row_len, Py_ssize_t max_row,
                     const signed char* y, signed char* pred, long long* counts, int update,
                     double* scores) noexcept nogil:
    cdef long long* e = <long long*>malloc((max_row + 1) * sizeof(long long))
    cdef long long* bits = <long long*>malloc((max_row + 65) * sizeof(long long))
    cdef Py_ssize_t i, lo, n
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr, yi
    cdef double sc
    if e == NULL or bits == NULL:
        free(e)
        free(bits)
        return -1
    for i in range(n_rows):
        if indptr == NULL:
            v = val + i * row_len
            xi = NULL
            n = row_len
        else:
            lo = indptr[i]
            v = val + lo
            xi = ix + lo
            n = indptr[i + 1] - lo
        yi = y[i] if y != NULL else 0
        pr = winnow_row(p, l, w, ln, wn, v, xi, n, yi, e, bits, update, &sc)
        if pred != NULL:
            pred[i] = pr
        if scores != NULL:
            scores[i] = sc
        if update:
            counts[0] += 1
            if pr != yi:
                counts[1] += 1
                counts[2] += 1
    free(e)
    free(bits)
    return 0


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
                 const value_t[:, ::1] X, const signed char[::1] y, signed char[::1] pred,
                 long long[::1] counts, bint update, double[::1] scores=None):
    """One pass over dense rows (update=True: the online protocol; False: predict only)."""
    cdef WParams p = make_params(variant, exact, la, lb, theta)
    cdef double* lnp = &ln[0] if ln.shape[0] > 0 else NULL
    cdef double* wnp = &wn[0] if wn.shape[0] > 0 else NULL
    cdef const signed char* yp = &y[0] if y is not None else NULL
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef double* sp = &scores[0] if scores is not None else NULL
    cdef int status
    with nogil:
        status = winnow_pass(&p, &l[0], &w[0], lnp, wnp, &X[0, 0], <const int*>NULL,
                             <const int*>NULL, X.shape[0], X.shape[1], X.shape[1], yp, pp,
                             &counts[0], update, sp)
    if status:
        raise MemoryError("Winnow: no memory for the exact-comparison buffers")


def winnow_csr(int variant, bint exact, double la, double lb, double theta,
               double[::1] l, double[::1] w, double[::1] ln, double[::1] wn,
               const value_t[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
               Py_ssize_t max_row, const signed char[::1] y, signed char[::1] pred,
               long long[::1] counts, bint update, double[::1] scores=None):
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
    with nogil:
        status = winnow_pass(&p, &l[0], &w[0], lnp, wnp, dp, ip, &indptr[0],
                             indptr.shape[0] - 1, 0, max_row, yp, pp, &counts[0], update, sp)
    if status:
        raise MemoryError("Winnow: no memory for the exact-comparison buffers")


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
