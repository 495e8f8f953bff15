# cython: language_level=3
"""Compiled kernels of the multiplicative family (Winnow2, elimination Winnow, Winnow*, Balanced
Winnow), mirroring ``mbref.multiplicative`` bit for bit.

Weights are stored as base-2 logarithms ``l`` with a cache ``w = 2**l`` (float64; 0 or inf when
out of range) used for the sums.  In exact mode (Boolean features, power-of-two factors) every
``l`` is an integer and the prediction ``sum 2**l >= theta`` is decided exactly: a float64 sum with
a rigorous error bound settles almost every row; a row whose sum is within that bound of theta is
decided by exact binary addition of its powers of two.

A learning pass runs on several threads through the speculative block passes of _spec.h
(``threads``; the per-row judges, w_scan and mc_scan, use the arithmetic of the sequential pass):
its results are the same, bit for bit, for any number of threads.
"""

from libc.math cimport fabs, frexp, ldexp, INFINITY
from libc.stdlib cimport calloc, malloc, free, realloc
from libc.string cimport memset
cimport cython

from ._exact cimport bits_ge_bits, bits_ge_double, carry_bits, term
from ._rows cimport Rows, dense_rows, csr_rows
from ._spec cimport (MB_SPEC_MAXT, mb_spec_pass, mb_touch_fn, spec_tuning_impl, touch_rows,
                    volatile_load)


def spec_tuning(seq_gap=None, min_rows=None, max_rows=None, stretch=None):
    """This module's block sizes (see _spec.pxd): the old (seq_gap, min_rows, max_rows,
    stretch); the arguments that are not None replace them."""
    return spec_tuning_impl(seq_gap, min_rows, max_rows, stretch)

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

cdef enum:
    JUDGE = 2       # mc_winnow_row's update mode that judges a row without learning it


cdef struct WParams:
    int variant
    int exact
    double la
    double lb
    double theta


cdef int exact_ge(long long* e, Py_ssize_t m, long long* bits, double theta) noexcept nogil:
    """sum_k 2**e[k] >= theta, exactly.  e is sorted in place; bits needs m + 64 entries."""
    return bits_ge_double(bits, carry_bits(e, m, bits), theta)


cdef inline Py_ssize_t theta_exponents(double theta, long long* out) noexcept nogil:
    """theta (finite, > 0) as the exponents of its set bits (theta = sum 2**out[k]); at most
    53 of them."""
    cdef int E, i
    cdef long long M = <long long>ldexp(frexp(theta, &E), 53)
    cdef Py_ssize_t r = 0
    for i in range(53):
        if (M >> i) & 1:
            out[r] = <long long>E - 53 + i
            r += 1
    return r


cdef Py_ssize_t sum_bits(const double* la, Py_ssize_t ka, const double* lb, Py_ssize_t kb,
                         Py_ssize_t K, const value_t* v, const index_t* ix, Py_ssize_t n,
                         double theta, long long* e, long long* bits) noexcept nogil:
    """The set bits (ascending; returns how many) of the exact sum over the row's active
    features j of 2**la[j*K + ka], plus 2**lb[j*K + kb] when lb is not NULL, plus theta when
    theta > 0 (exact mode: integral logs; -inf logs are weights of 0).  e needs 2 n + 53
    entries, bits 2 n + 117."""
    cdef Py_ssize_t q, j, m = 0
    cdef double x
    for q in range(n):
        if v[q] == 0:
            continue
        j = ix[q] if ix != NULL else q
        x = la[j * K + ka]
        if x != -INFINITY:
            e[m] = <long long>x
            m += 1
        if lb != NULL:
            x = lb[j * K + kb]
            if x != -INFINITY:
                e[m] = <long long>x
                m += 1
    if theta > 0.0:
        m += theta_exponents(theta, e + m)
    return carry_bits(e, m, bits)


cdef inline int filtered_ge(double P, double N, Py_ssize_t m, double theta) noexcept nogil:
    """Whether P* - N* >= theta, decided from float64 sums P and N of m nonnegative terms each
    (P*, N* the exact sums): 1 or -1 when the error bounds settle it, 0 when they do not (or a
    sum is not finite)."""
    cdef double D, E
    if not (P <= DBL_MAX and N <= DBL_MAX):
        return 0
    D = (P - N) - theta
    # |P - P*| <= eP, |N - N*| <= eN (the bounds of the one-sided sums), and the two
    # subtractions round by at most 2.0001 EPS/2 (P + N + theta): 3 EPS covers them and the
    # rounding of E itself.
    E = (((m + 3) * EPS * P + m * DENORM) + ((m + 3) * EPS * N + m * DENORM)) + \
        3.0 * EPS * ((P + N) + theta)
    if D >= E:
        return 1
    if D < -E:
        return -1
    return 0


cdef inline int decidable(const WParams* p, double S) noexcept nogil:
    """Whether a real-mode score decides: not NaN (inf - inf) and, for Balanced Winnow, whose
    terms cancel, finite (a weight past 2**1023 makes the float64 score meaningless); Winnow's
    inf >= theta (a positive weight past the range) decides."""
    if p.variant == BALANCED:
        return fabs(S) <= DBL_MAX
    return S == S


cdef inline double signed_margin(double S, double theta, int pr) noexcept nogil:
    """decision_function's value: S - theta with the sign of the rule's decision pr (0.0 on
    the positive side, -2**-1074 on the negative side where the rounded value disagrees)."""
    cdef double d = S - theta
    if pr > 0 and not d >= 0.0:
        return 0.0
    if pr < 0 and not d < 0.0:
        return -DENORM
    return d


cdef int balanced_decide(const WParams* p, const double* l, const double* w, const double* ln,
                         const double* wn, Py_ssize_t K, Py_ssize_t k, const value_t* v,
                         const index_t* ix, Py_ssize_t n, long long* e, long long* ba,
                         long long* bb) noexcept nogil:
    """Balanced Winnow's exact decision (1 or -1) for class k of K (K = 1: the binary learner):
    sum 2**l+ - sum 2**l- >= theta over the active features.  Float64 sums of both sides with
    rigorous error bounds settle almost every row; else the exact binary sums of 2**l+ and of
    2**l- plus theta's bits are compared."""
    cdef double P0 = 0.0, P1 = 0.0, N0 = 0.0, N1 = 0.0
    cdef Py_ssize_t q, j, m = 0, ra, rb
    cdef int r
    for q in range(n):
        if v[q] == 0:
            continue
        j = (ix[q] if ix != NULL else q) * K + k
        if m & 1:
            P1 += w[j]
            N1 += wn[j]
        else:
            P0 += w[j]
            N0 += wn[j]
        m += 1
    r = filtered_ge(P0 + P1, N0 + N1, m, p.theta)
    if r != 0:
        return r
    ra = sum_bits(l, k, NULL, 0, K, v, ix, n, 0.0, e, ba)
    rb = sum_bits(ln, k, NULL, 0, K, v, ix, n, p.theta, e, bb)
    return 1 if bits_ge_bits(ba, ra, bb, rb) else -1


cdef inline void add4(double* s, Py_ssize_t k, double t) noexcept nogil:
    s[k & 3] += t


cdef enum:
    ROW_OK = 0
    ROW_INDEX_RANGE = 1
    ROW_UNSORTED = 2
    ROW_BAD_VALUE = 3
    ROW_BAD_INDPTR = 4
    NO_MEMORY = 5
    ROW_NONFINITE = 6   # real mode: a score that is not finite (cannot be decided in float64)

cdef enum:
    NOT_ONES_STRIDE = 16    # ints between two slots' flags (a cache line: no false sharing)

cdef enum:
    SCORE_NONFINITE = 3     # winnow_row's return for a score that is not finite (real mode)

cdef double EPS = 2.220446049250313e-16         # 2**-52
cdef double DENORM = 4.9406564584124654e-324    # 2**-1074
cdef double DBL_MAX = 1.7976931348623157e308

cdef enum:
    # what a pass checks in each row as it reads it (the structure of CSR's indptr always)
    CHECK_INDICES = 1   # a CSR row's column indices: sorted, distinct, in [0, d)
    CHECK_VALUES = 2    # the values: 0/1 (Boolean) or finite with |x| <= limit


cdef extern from *:
    """
    #include <string.h>
    #include <stdint.h>
    /* Whether every value is exactly 1.0, by the bits (memcpy: no type punning). */
    static inline int mb_all_ones_f64(const double* v, Py_ssize_t n) {
        uint64_t acc = 0, u;
        Py_ssize_t k;
        for (k = 0; k < n; k++) {
            memcpy(&u, v + k, sizeof u);
            acc |= u ^ UINT64_C(0x3FF0000000000000);
        }
        return acc == 0;
    }
    static inline int mb_all_ones_f32(const float* v, Py_ssize_t n) {
        uint32_t acc = 0, u;
        Py_ssize_t k;
        for (k = 0; k < n; k++) {
            memcpy(&u, v + k, sizeof u);
            acc |= u ^ UINT32_C(0x3F800000);
        }
        return acc == 0;
    }
    """
    int mb_all_ones_f64(const double* v, Py_ssize_t n) nogil
    int mb_all_ones_f32(const float* v, Py_ssize_t n) nogil


cdef inline int check_row(const value_t* v, const index_t* ix, Py_ssize_t n, Py_ssize_t d,
                          int boolean, double limit, int values, int* not_ones) noexcept nogil:
    """Validate one row just before it is used (its values are then in L1 for the pass): its
    column indices unless ix is NULL, its values if `values`.  A Boolean row whose values are
    good but not all 1 (a stored 0) sets not_ones[0] to 1 (unless not_ones is NULL)."""
    cdef Py_ssize_t k, n4
    cdef int bad = 0
    cdef unsigned int d1 = 0
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
    if not values:
        return ROW_OK
    if boolean:
        # First the common case (CSR rows store their 1s), every value exactly 1: integer
        # compares of the bits, no float latency; else the general test.
        if value_t is cython.uchar:
            for k in range(n):
                d1 |= v[k] ^ 1
            if d1 == 0:
                return ROW_OK
        elif value_t is cython.float:
            if mb_all_ones_f32(v, n):
                return ROW_OK
        else:
            if mb_all_ones_f64(v, n):
                return ROW_OK
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
        if not bad and not_ones != NULL:
            not_ones[0] = 1
    else:
        for k in range(n):
            bad |= not (-limit <= v[k] <= limit)
    return ROW_BAD_VALUE if bad else ROW_OK


cdef inline int next_row(const value_t* val, const index_t* ix, const index_t* indptr,
                         Py_ssize_t row_len, Py_ssize_t i, Py_ssize_t d, int boolean,
                         double limit, int check, const value_t** v, const index_t** xi,
                         Py_ssize_t* n, int* not_ones) noexcept nogil:
    """Point v, xi (NULL for a dense row) and n at row i, checked (a ROW_* code) as `check`
    says (CHECK_INDICES, CHECK_VALUES: what is not checked here was checked before); not_ones
    as check_row's."""
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
    return check_row(v[0], xi[0] if check & CHECK_INDICES else NULL, n[0], d, boolean, limit,
                     check & CHECK_VALUES, not_ones)


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
    on it): eight accumulators by stored position (CSR; four for dense rows), no branch per
    element."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef double s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0
    cdef Py_ssize_t k, n4 = n - (n % 4), n8 = n - (n % 8)
    if ix != NULL:
        for k in range(0, n8, 8):
            s0 += w[ix[k]] if v[k] != 0 else 0.0
            s1 += w[ix[k + 1]] if v[k + 1] != 0 else 0.0
            s2 += w[ix[k + 2]] if v[k + 2] != 0 else 0.0
            s3 += w[ix[k + 3]] if v[k + 3] != 0 else 0.0
            s4 += w[ix[k + 4]] if v[k + 4] != 0 else 0.0
            s5 += w[ix[k + 5]] if v[k + 5] != 0 else 0.0
            s6 += w[ix[k + 6]] if v[k + 6] != 0 else 0.0
            s7 += w[ix[k + 7]] if v[k + 7] != 0 else 0.0
        for k in range(n8, n):
            s0 += w[ix[k]] if v[k] != 0 else 0.0
        return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))
    else:
        for k in range(0, n4, 4):
            s0 += w[k] if v[k] != 0 else 0.0
            s1 += w[k + 1] if v[k + 1] != 0 else 0.0
            s2 += w[k + 2] if v[k + 2] != 0 else 0.0
            s3 += w[k + 3] if v[k + 3] != 0 else 0.0
        for k in range(n4, n):
            s0 += w[k] if v[k] != 0 else 0.0
    return (s0 + s1) + (s2 + s3)


cdef inline double exact_sum_ones(const double* w, const index_t* ix,
                                  Py_ssize_t n) noexcept nogil:
    """exact_sum of a CSR row whose values are all 1: the same partial sums in the same order
    (so the same S, bit for bit), without reading the values."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef double s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0
    cdef Py_ssize_t k, n8 = n - (n % 8)
    for k in range(0, n8, 8):
        s0 += w[ix[k]]
        s1 += w[ix[k + 1]]
        s2 += w[ix[k + 2]]
        s3 += w[ix[k + 3]]
        s4 += w[ix[k + 4]]
        s5 += w[ix[k + 5]]
        s6 += w[ix[k + 6]]
        s7 += w[ix[k + 7]]
    for k in range(n8, n):
        s0 += w[ix[k]]
    return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))


cdef int winnow_row(const WParams* p, double* l, double* w, double* ln, double* wn,
                    const value_t* v, const index_t* ix, Py_ssize_t n, int y, long long* e,
                    long long* bits, long long* bits2, int update, double* score,
                    Undo* undo) noexcept nogil:
    """Predict one row (1 or -1); with update, apply the mistake-driven update; with score,
    write decision_function's value (signed_margin).  Returns 0 when out of memory for the
    undo log, SCORE_NONFINITE when the real mode's score is not finite (nothing changed).
    e needs 2 n + 53 entries, bits and bits2 2 n + 117 each."""
    cdef double S = 0.0, x
    cdef Py_ssize_t k, j, m = 0
    cdef int pr
    if p.exact and p.variant == BALANCED:
        pr = balanced_decide(p, l, w, ln, wn, 1, 0, v, ix, n, e, bits, bits2)
        if score != NULL:
            S = ordered_sum(p, w, wn, v, ix, n, &m)
    else:
        if p.exact and score == NULL:
            # Only the decision is needed: it is exact, so the summation order is free.
            S = exact_sum(w, v, ix, n)
            m = n
        else:
            S = ordered_sum(p, w, wn, v, ix, n, &m)
        if not p.exact and not decidable(p, S):
            return SCORE_NONFINITE
        pr = decide(p, l, v, ix, n, e, bits, S, m)
    if score != NULL:
        score[0] = signed_margin(S, p.theta, pr)
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


cdef int decide(const WParams* p, const double* l, const value_t* v, const index_t* ix,
                Py_ssize_t n, long long* e, long long* bits, double S,
                Py_ssize_t m) noexcept nogil:
    """The decision (1 or -1) of Winnow, Winnow* and elimination Winnow from the float64 sum S
    of the row's m active weights: exact in exact mode (S with its error bound, else the exact
    binary sum), S >= theta in real mode."""
    cdef double err
    cdef Py_ssize_t k, j
    if not p.exact:
        return 1 if S >= p.theta else -1
    if S == INFINITY:
        return 1
    err = (m + 3) * EPS * S + m * DENORM
    if S - err >= p.theta:
        return 1
    if S + err < p.theta:
        return -1
    m = 0
    for k in range(n):
        if v[k] != 0.0:
            j = ix[k] if ix != NULL else k
            if l[j] != -INFINITY:
                e[m] = <long long>l[j]
                m += 1
    return 1 if exact_ge(e, m, bits, p.theta) else -1


cdef struct WJob:
    # One pass of a binary Winnow learner, for mb_spec_pass: the state and parameters, the rows
    # (their Rows view; vt: 0 uint8, 1 float32, 2 float64), the labels and outputs, the per-slot
    # scratch of winnow_row and the pass's counter.
    const WParams* p
    double* l
    double* w
    double* ln
    double* wn
    Rows rows
    Py_ssize_t d
    int boolean
    double limit
    int check                   # what to check in each row as it is read (CHECK_*)
    const signed char* y
    signed char* pred
    double* scores
    int update
    Undo* undo
    long long** e               # per slot: winnow_row's exponents (slot 0: the run's too)
    long long** bits            # per slot: its bits (two regions of `half` entries)
    Py_ssize_t half
    long long mistakes          # during the pass
    int err                     # the ROW_* code of the failing row
    int ones                    # CSR values known to be all 1: only the indices are read
    int* not_ones               # per slot (NOT_ONES_STRIDE apart): a checked row held a 0


cdef Py_ssize_t w_run(WJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                      const value_t* val, const index_t* ix) noexcept nogil:
    """The sequential pass over rows lo..hi-1 (predict, update, count): the number of rows
    that changed the state (the mistakes), or -1 (j.err, *bad) at a bad row, the state then
    half-way (winnow_pass undoes it)."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef const WParams* p = j.p
    cdef Py_ssize_t i, n
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr, yi, code
    cdef long long mistakes = 0
    for i in range(lo, hi):
        code = next_row(val, ix, indptr, j.rows.row_len, i, j.d, j.boolean, j.limit, j.check, &v,
                        &xi, &n, j.not_ones)
        if code != ROW_OK:
            j.err = code
            bad[0] = i
            j.mistakes += mistakes
            return -1
        yi = j.y[i] if j.y != NULL else 0
        pr = winnow_row(p, j.l, j.w, j.ln, j.wn, v, xi, n, yi, j.e[0], j.bits[0],
                        j.bits[0] + j.half, j.update,
                        j.scores + i if j.scores != NULL else NULL, j.undo)
        if pr == 0 or pr == SCORE_NONFINITE:
            j.err = NO_MEMORY if pr == 0 else ROW_NONFINITE
            bad[0] = i
            j.mistakes += mistakes
            return -1
        if j.pred != NULL:
            j.pred[i] = pr
        mistakes += pr != yi
    j.mistakes += mistakes
    return mistakes


cdef Py_ssize_t w_scan(WJob* j, int slot, Py_ssize_t lo, Py_ssize_t hi, const Py_ssize_t* stop,
                       const value_t* val, const index_t* ix) noexcept nogil:
    """Judge rows lo..hi-1 with the current state, which it only reads (mb_spec_pass): the
    first row that is bad or a mistake (the update would change the state), or hi; the
    predictions of the rows before it.  The same checks and winnow_row as w_run."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef const WParams* p = j.p
    cdef long long* e = j.e[slot]
    cdef long long* bits = j.bits[slot]
    cdef int* not_ones = j.not_ones + NOT_ONES_STRIDE * slot if j.not_ones != NULL else NULL
    cdef Py_ssize_t i, n
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr, yi
    for i in range(lo, hi):
        if (i & 15) == 0 and volatile_load(stop) < lo:
            return hi                   # an earlier slice found a row: this one cannot matter
        if next_row(val, ix, indptr, j.rows.row_len, i, j.d, j.boolean, j.limit, j.check, &v, &xi,
                    &n, not_ones) != ROW_OK:
            return i
        yi = j.y[i]
        pr = winnow_row(p, j.l, j.w, j.ln, j.wn, v, xi, n, yi, e, bits, bits + j.half, 0,
                        NULL, NULL)
        if pr != yi:
            return i
        if j.pred != NULL:
            j.pred[i] = pr
    return hi


# mb_spec_pass's callbacks w_run_cb, w_scan_cb (and mc_run_cb, mc_scan_cb of the K-class pass):
# w_run, w_scan, mc_run or mc_scan for the job's dtypes (vt, it); with value_bytes and
# index_bytes, generated from _dispatch.pxi.tp by setup.py.
include "_dispatch_multiplicative.pxi"


cdef inline int filtered_ones(double theta, const double* w, const index_t* ix,
                              Py_ssize_t n) noexcept nogil:
    """decide's float filter on a row whose values are all 1 (exact mode): 1 or -1 where the
    float64 sum of the gathered weights with its error bound settles the row, 0 where only the
    exact sum can (decide then settles it, as the ordinary pass does)."""
    cdef double S = exact_sum_ones(w, ix, n), err
    if S == INFINITY:
        return 1
    err = (n + 3) * EPS * S + n * DENORM
    if S - err >= theta:
        return 1
    if S + err < theta:
        return -1
    return 0


cdef Py_ssize_t w_run_ones(WJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                           const index_t* ix) noexcept nogil:
    """w_run over CSR rows whose values are all 1 (j.ones: a learning pass in exact mode, not
    Balanced Winnow, with nothing left to check): each row decided from its gathered weights
    by decide's float filter, the values not read; a row that changes the state, that the
    filter leaves open, or that is bad goes to w_run itself, which reads it as every pass does
    (the same results)."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef double theta = j.p.theta
    cdef Py_ssize_t i, a, n, c, total = 0
    cdef int pr
    for i in range(lo, hi):
        a = indptr[i]
        n = indptr[i + 1] - a
        if n >= 0:
            pr = filtered_ones(theta, j.w, ix + a, n)
            if pr == j.y[i]:
                if j.pred != NULL:
                    j.pred[i] = pr
                continue
        c = w_run_cb(j, i, i + 1, bad)
        if c < 0:
            return -1
        total += c
    return total


cdef Py_ssize_t w_scan_ones(WJob* j, int slot, Py_ssize_t lo, Py_ssize_t hi,
                            const Py_ssize_t* stop, const index_t* ix) noexcept nogil:
    """w_scan over CSR rows whose values are all 1 (j.ones), as w_run_ones decides them (a row
    the filter leaves open is returned, for the run to settle)."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef double theta = j.p.theta
    cdef Py_ssize_t i, a, n
    cdef int pr
    for i in range(lo, hi):
        if (i & 15) == 0 and volatile_load(stop) < lo:
            return hi
        a = indptr[i]
        n = indptr[i + 1] - a
        if n < 0:
            return i
        pr = filtered_ones(theta, j.w, ix + a, n)
        if pr != j.y[i]:
            return i
        if j.pred != NULL:
            j.pred[i] = pr
    return hi


cdef Py_ssize_t w_run_ones_cb(void* ctx, Py_ssize_t lo, Py_ssize_t hi,
                             Py_ssize_t* bad) noexcept nogil:
    """mb_spec_pass's run callback of a pass with j.ones (CSR rows whose values are all 1:
    only the indices' dtype matters)."""
    cdef WJob* j = <WJob*>ctx
    if j.rows.it == 1:
        return w_run_ones(j, lo, hi, bad, <const long long*>j.rows.ix)
    return w_run_ones(j, lo, hi, bad, <const int*>j.rows.ix)


cdef Py_ssize_t w_scan_ones_cb(void* ctx, int slot, Py_ssize_t lo, Py_ssize_t hi,
                              const Py_ssize_t* stop) noexcept nogil:
    """mb_spec_pass's scan callback of a pass with j.ones."""
    cdef WJob* j = <WJob*>ctx
    if j.rows.it == 1:
        return w_scan_ones(j, slot, lo, hi, stop, <const long long*>j.rows.ix)
    return w_scan_ones(j, slot, lo, hi, stop, <const int*>j.rows.ix)


cdef void w_touch_cb(void* ctx, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Read CSR rows lo..hi-1 into the caches (mb_spec_pass: ahead of the sequential pass)."""
    cdef WJob* j = <WJob*>ctx
    touch_rows(j.rows.val, 0 if j.ones else value_bytes(j.rows.vt), j.rows.ix,
               index_bytes(j.rows.it), j.rows.indptr, 0, lo, hi)


cdef int spec_slots(int threads) noexcept nogil:
    """The scan slots a pass on `threads` threads may use (mb_spec_pass starts at most
    MB_SPEC_MAXT)."""
    if threads < 1:
        return 1
    return MB_SPEC_MAXT if threads > MB_SPEC_MAXT else threads


cdef int winnow_pass(const WParams* p, double* l, double* w, double* ln, double* wn,
                     const Rows* rows, Py_ssize_t max_row, Py_ssize_t d,
                     int boolean, double limit, int check, const signed char* y,
                     signed char* pred, long long* counts, int update, double* scores,
                     int threads, Py_ssize_t* bad_row, int ones,
                     int* all_ones) noexcept nogil:
    """The whole pass; validates each row just before it is used.  On a bad row every weight
    changed in this call is restored (all or nothing) and the row and a ROW_* code returned.
    A learning pass (update, no scores) runs on up to `threads` threads (mb_spec_pass: the same
    results for any number).

    CSR rows of Boolean values: `ones` says a complete pass found every stored value to be 1;
    a learning pass in exact mode (not Balanced Winnow) with nothing left to check then reads
    the column indices alone (w_run_ones, w_scan_ones; elsewhere `ones` is ignored).
    *all_ones is set to whether this pass checked every value and found them all to be 1."""
    cdef WJob j
    cdef const void* indptr = rows.indptr
    cdef Py_ssize_t n_rows = rows.n_rows
    cdef Undo undo
    cdef mb_touch_fn touch = NULL
    cdef Py_ssize_t changed, s, T
    cdef long long* e0[1]
    cdef long long* b0[1]
    cdef int code = ROW_OK
    cdef int* not_ones = NULL
    all_ones[0] = 0
    # the values-free pass: a learning pass over CSR rows with nothing left to check, in exact
    # mode (not Balanced Winnow, whose decision reads two weight vectors)
    if indptr == NULL or not boolean or check != 0 or not update or y == NULL or \
            scores != NULL or not p.exact or p.variant == BALANCED:
        ones = 0
    undo.j = NULL
    undo.old = NULL
    undo.size = 0
    undo.cap = 0
    if not update or scores != NULL or y == NULL:
        threads = 1
    T = spec_slots(threads)
    j.e = e0
    j.bits = b0
    if T > 1:
        j.e = <long long**>malloc(T * sizeof(long long*))
        j.bits = <long long**>malloc(T * sizeof(long long*))
        if j.e == NULL or j.bits == NULL:
            free(j.e)
            free(j.bits)
            j.e = e0
            j.bits = b0
            T = 1
            threads = 1                 # (the scans' slots need their scratch)
    # winnow_row's scratch: e of 2 max_row + 53 exponents, two regions of bits
    j.half = 2 * max_row + 117
    for s in range(T):
        j.e[s] = <long long*>malloc((2 * max_row + 53) * sizeof(long long))
        j.bits[s] = <long long*>malloc(2 * j.half * sizeof(long long))
    if j.e[0] == NULL or j.bits[0] == NULL:
        code = NO_MEMORY
    for s in range(1, T):
        if j.e[s] == NULL or j.bits[s] == NULL:
            threads = 1                 # (no room for the scans' scratch: one thread)
    if code == ROW_OK:
        j.p = p
        j.l = l
        j.w = w
        j.ln = ln
        j.wn = wn
        j.rows = rows[0]
        j.d = d
        j.boolean = boolean
        j.limit = limit
        j.check = check if indptr != NULL else check & CHECK_VALUES
        j.y = y
        j.pred = pred
        j.scores = scores
        j.update = update
        j.undo = &undo if update else NULL
        j.mistakes = 0
        j.err = ROW_OK
        j.ones = ones
        # whether a checked row held a 0, per slot: only where a pass of Boolean CSR rows
        # checks the values (without room for the flags, *all_ones stays 0)
        if indptr != NULL and boolean and j.check & CHECK_VALUES:
            not_ones = <int*>calloc(T * NOT_ONES_STRIDE, sizeof(int))
        j.not_ones = not_ones
        # (CSR rows, whose sums gather, gain from being read ahead; dense rows stream already)
        if indptr != NULL:
            touch = w_touch_cb
        if ones:
            changed = mb_spec_pass(threads, n_rows, &j, w_scan_ones_cb, w_run_ones_cb, touch,
                                   bad_row)
        else:
            changed = mb_spec_pass(threads, n_rows, &j, w_scan_cb, w_run_cb, touch, bad_row)
        if changed < 0:
            code = j.err
            if update:
                undo_apply(&undo, l, w, ln, wn)
        else:
            if update:
                counts[0] += n_rows
                counts[1] += j.mistakes
                counts[2] += j.mistakes
            if j.not_ones != NULL:
                all_ones[0] = 1
                for s in range(T):
                    if not_ones[s * NOT_ONES_STRIDE]:
                        all_ones[0] = 0
    for s in range(T):
        free(j.e[s])
        free(j.bits[s])
    if T > 1:
        free(j.e)
        free(j.bits)
    free(undo.j)
    free(undo.old)
    free(not_ones)
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
                 bint update, double[::1] scores=None, int threads=1, bint check_values=True):
    """One pass over dense rows (update=True: the online protocol; False: predict only).
    A learning pass without scores runs on up to `threads` threads, with the same results.
    Without ``check_values`` the values must have been checked before (a complete pass)."""
    cdef WParams p = make_params(variant, exact, la, lb, theta)
    cdef double* lnp = &ln[0] if ln.shape[0] > 0 else NULL
    cdef double* wnp = &wn[0] if wn.shape[0] > 0 else NULL
    cdef const signed char* yp = &y[0] if y is not None else NULL
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef double* sp = &scores[0] if scores is not None else NULL
    cdef int vt = 0 if sizeof(value_t) == 1 else (1 if sizeof(value_t) == 4 else 2)
    cdef int status, all_ones
    cdef Py_ssize_t bad = -1
    cdef Rows rows = dense_rows(&X[0, 0], vt, X.shape[0], X.shape[1])
    with nogil:
        status = winnow_pass(&p, &l[0], &w[0], lnp, wnp, &rows, X.shape[1], X.shape[1], boolean,
                             limit, CHECK_VALUES if check_values else 0, yp, pp, &counts[0],
                             update, sp, threads, &bad, 0, &all_ones)
    if status == NO_MEMORY:
        raise MemoryError("Winnow: no memory for the pass's buffers")
    return status, bad


def winnow_csr(int variant, bint exact, double la, double lb, double theta,
               double[::1] l, double[::1] w, double[::1] ln, double[::1] wn,
               const value_t[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
               Py_ssize_t max_row, Py_ssize_t n_cols, bint boolean, double limit,
               const signed char[::1] y, signed char[::1] pred, long long[::1] counts,
               bint update, double[::1] scores=None, int threads=1, bint check=True,
               bint check_values=True, bint ones=False):
    """One pass over CSR rows; max_row is the largest number of stored values in a row.
    With ``check`` each row's column indices are checked as the pass reads it (codes 1 and 2),
    with ``check_values`` its values (code 3); what is not checked must have been checked
    before (indptr always is).  Boolean values: ``ones`` (without ``check_values``) says an
    earlier complete pass found every stored value to be 1: the values are then not read.
    Returns (code, row, all_ones): the ROW_* code (0: the pass went through) and the bad row,
    and whether the pass checked every value and found them all to be 1 (Boolean)."""
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
    cdef int vt = 0 if sizeof(value_t) == 1 else (1 if sizeof(value_t) == 4 else 2)
    cdef int it = 1 if sizeof(index_t) == 8 else 0
    cdef int status, all_ones = 0
    cdef Py_ssize_t bad = -1
    cdef Rows rows = csr_rows(dp, vt, ip, it, &indptr[0], indptr.shape[0] - 1)
    with nogil:
        status = winnow_pass(&p, &l[0], &w[0], lnp, wnp, &rows, max_row, n_cols, boolean, limit,
                             (CHECK_INDICES if check else 0) |
                             (CHECK_VALUES if check_values else 0),
                             yp, pp, &counts[0], update, sp, threads, &bad, ones, &all_ones)
    if status == NO_MEMORY:
        raise MemoryError("Winnow: no memory for the pass's buffers")
    return status, bad, bool(all_ones)


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
    double* acc              # 4 K partial sums (Balanced Winnow in exact mode: 3 x 4 K)
    double* S                # K class sums (Balanced Winnow in exact mode: then P, N: 3 K)
    double* err              # K error bounds (exact mode)
    long long* e             # exponents of one or two classes' active weights (and theta)
    long long* ba            # the set bits of the best class's exact sum
    long long* bb            # the set bits of a contender's exact sum


cdef int mc_buf_init(MCBuf* b, Py_ssize_t K, Py_ssize_t max_row) noexcept nogil:
    b.K = K
    b.act = <Py_ssize_t*>malloc((max_row + 1) * sizeof(Py_ssize_t))
    b.acc = <double*>malloc(12 * K * sizeof(double))
    b.S = <double*>malloc(3 * K * sizeof(double))
    b.err = <double*>malloc(K * sizeof(double))
    b.e = <long long*>malloc((2 * max_row + 53) * sizeof(long long))
    b.ba = <long long*>malloc((2 * max_row + 117) * sizeof(long long))
    b.bb = <long long*>malloc((2 * max_row + 117) * sizeof(long long))
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


cdef int mc_class_positive(const WParams* p, const double* l, const double* w,
                           const double* ln, const double* wn, MCBuf* b, Py_ssize_t k,
                           const value_t* v, const index_t* ix, Py_ssize_t n,
                           Py_ssize_t m) noexcept nogil:
    """Class k's binary decision (1 or -1: one-vs-rest), the binary learner's rule, exact in
    exact mode (mc_winnow_row has filled b.S, b.err and, for Balanced Winnow, its P and N)."""
    cdef Py_ssize_t K = b.K, ra, rb
    cdef double S = b.S[k]
    cdef int r
    if not p.exact:
        return 1 if S >= p.theta else -1
    if p.variant == BALANCED:
        r = filtered_ge(b.S[K + k], b.S[2 * K + k], m, p.theta)
        if r != 0:
            return r
        ra = sum_bits(l, k, NULL, 0, K, v, ix, n, 0.0, b.e, b.ba)
        rb = sum_bits(ln, k, NULL, 0, K, v, ix, n, p.theta, b.e, b.bb)
        return 1 if bits_ge_bits(b.ba, ra, b.bb, rb) else -1
    if S == INFINITY or S - b.err[k] >= p.theta:
        return 1
    if S + b.err[k] < p.theta:
        return -1
    ra = mc_class_bits(l, K, k, ix, b.act, m, b.e, b.ba)
    return 1 if bits_ge_double(b.ba, ra, p.theta) else -1


cdef Py_ssize_t balanced_argmax(const double* l, const double* ln, MCBuf* b, const value_t* v,
                                const index_t* ix, Py_ssize_t n, Py_ssize_t m) noexcept nogil:
    """Balanced Winnow's exact argmax (exact mode) of S_k = P_k - N_k, the smallest index
    among ties: the float sums P_k, N_k (b.S[K + k], b.S[2 K + k]) with their error bounds
    leave the candidates, compared pairwise exactly (P_a + N_b against P_b + N_a)."""
    cdef Py_ssize_t K = b.K, k, best = 0, c = 0, ra, rb
    cdef double P, N, lo = 0.0, D
    cdef int finite = 1
    for k in range(K):
        P = b.S[K + k]
        N = b.S[2 * K + k]
        if not (P <= DBL_MAX and N <= DBL_MAX):
            finite = 0
            break
        D = P - N
        b.err[k] = (((m + 3) * EPS * P + m * DENORM) + ((m + 3) * EPS * N + m * DENORM)) + \
            3.0 * EPS * (P + N)
        if D > b.S[K + best] - b.S[2 * K + best]:
            best = k
    if finite:
        lo = (b.S[K + best] - b.S[2 * K + best]) - b.err[best]
        for k in range(K):
            c += (b.S[K + k] - b.S[2 * K + k]) + b.err[k] >= lo
        if c <= 1:
            return best
    best = -1
    for k in range(K):
        if finite and (b.S[K + k] - b.S[2 * K + k]) + b.err[k] < lo:
            continue
        if best < 0:
            best = k
            continue
        # S_k > S_best exactly: P_k + N_best > P_best + N_k
        ra = sum_bits(l, best, ln, k, K, v, ix, n, 0.0, b.e, b.ba)
        rb = sum_bits(l, k, ln, best, K, v, ix, n, 0.0, b.e, b.bb)
        if not bits_ge_bits(b.ba, ra, b.bb, rb):
            best = k
    return best


cdef int mc_winnow_row(const WParams* p, int ovr, double* l, double* w, double* ln, double* wn,
                       MCBuf* b, const value_t* v, const index_t* ix, Py_ssize_t n, int y,
                       int update, int* pred, double* out) noexcept nogil:
    """Predict one row (its class index into pred); with update, learn its label y.  Returns
    1 if the state changed, else 0; -1 when a class score of the real mode is not finite
    (nothing changed).  With update == JUDGE: the prediction, and 1 iff learning the row would
    change the state, which it leaves as it is (the speculative scans).  out (K entries, or
    NULL): decision_function's row, the class sums ("multiclass") or each class learner's
    signed_margin ("ovr")."""
    cdef Py_ssize_t K = b.K, q, m = 0, k, j, best, c
    cdef double x, S, lo
    cdef double* a
    cdef double* ap
    cdef double* an
    cdef const double* wr
    cdef const double* wnr
    cdef Py_ssize_t ra, rb
    cdef int pk, yk, changed = 0
    cdef int exact = p.exact and p.variant != BALANCED
    cdef int exact_balanced = p.exact and p.variant == BALANCED
    for q in range(n):
        if v[q] != 0:
            b.act[m] = q
            m += 1
    memset(b.acc, 0, (12 if exact_balanced else 4) * K * sizeof(double))
    for q in range(m):
        x = v[b.act[q]]
        j = ix[b.act[q]] if ix != NULL else b.act[q]
        a = b.acc + (q & 3) * K
        wr = w + j * K
        if p.variant == BALANCED:
            wnr = wn + j * K
            for k in range(K):
                a[k] += x * (wr[k] - wnr[k])
            if exact_balanced:
                # the one-sided sums of the exact decisions (any order)
                ap = b.acc + (4 + (q & 3)) * K
                an = b.acc + (8 + (q & 3)) * K
                for k in range(K):
                    ap[k] += wr[k]
                    an[k] += wnr[k]
        elif exact:
            for k in range(K):
                a[k] += wr[k]
        else:
            for k in range(K):
                a[k] += x * wr[k]
    for k in range(K):
        b.S[k] = (b.acc[k] + b.acc[K + k]) + (b.acc[2 * K + k] + b.acc[3 * K + k])
    if exact_balanced:
        for c in range(1, 3):
            for k in range(K):
                a = b.acc + 4 * c * K
                b.S[c * K + k] = (a[k] + a[K + k]) + (a[2 * K + k] + a[3 * K + k])
    elif not p.exact:
        for k in range(K):
            if not decidable(p, b.S[k]):
                return -1
    best = 0
    for k in range(1, K):
        if b.S[k] > b.S[best]:
            best = k
    if exact_balanced:
        best = balanced_argmax(l, ln, b, v, ix, n, m)
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
    if out != NULL:
        for k in range(K):
            out[k] = signed_margin(b.S[k], p.theta, mc_class_positive(p, l, w, ln, wn, b, k, v,
                                                                      ix, n, m)) \
                if ovr else b.S[k]
    if not update:
        return 0
    if not ovr:
        if best == y:
            return 0
        if update == JUDGE:
            return 1
        mc_update_class(p, l, w, ln, wn, K, y, 1, v, ix, b.act, m)
        mc_update_class(p, l, w, ln, wn, K, best, 0, v, ix, b.act, m)
        return 1
    for k in range(K):
        # learner k's binary decision (the binary learner's rule, exact in exact mode)
        pk = mc_class_positive(p, l, w, ln, wn, b, k, v, ix, n, m)
        yk = 1 if k == y else -1
        if pk != yk:
            if update == JUDGE:
                return 1
            mc_update_class(p, l, w, ln, wn, K, k, yk > 0, v, ix, b.act, m)
            changed = 1
    return changed


cdef struct MCJob:
    # One pass of a Winnow learner with K >= 3 classes, for mb_spec_pass (as WJob): the state
    # and parameters, the rows, the labels and outputs, an MCBuf per slot and the counters.
    const WParams* p
    int ovr
    Py_ssize_t K
    double* l
    double* w
    double* ln
    double* wn
    Rows rows
    Py_ssize_t d
    int boolean
    double limit
    int check                   # what to check in each row as it is read (CHECK_*)
    const int* y
    int* pred
    unsigned char* upd
    double* scores
    int update
    MCBuf* bufs                 # per slot (slot 0: the run's too)
    long long mistakes          # during the pass
    long long changes           # rows that changed the state, during the pass
    int err                     # the ROW_* code of the failing row


cdef Py_ssize_t mc_run(MCJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                       const value_t* val, const index_t* ix) noexcept nogil:
    """The sequential pass over rows lo..hi-1 (predict, learn, count): the number of rows
    that were mistakes or changed the state, or -1 (j.err, *bad) at a bad row."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef MCBuf* b = &j.bufs[0]
    cdef Py_ssize_t i, n, k, K = j.K
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr = 0, r, yi, code
    cdef long long mistakes = 0, changes = 0, touched = 0
    for i in range(lo, hi):
        code = next_row(val, ix, indptr, j.rows.row_len, i, j.d, j.boolean, j.limit, j.check, &v,
                        &xi, &n, NULL)
        if code != ROW_OK:
            j.err = code
            bad[0] = i
            return -1
        yi = j.y[i] if j.y != NULL else 0
        r = mc_winnow_row(j.p, j.ovr, j.l, j.w, j.ln, j.wn, b, v, xi, n, yi, j.update, &pr,
                          j.scores + i * K if j.scores != NULL else NULL)
        if r < 0:
            j.err = ROW_NONFINITE
            bad[0] = i
            return -1
        j.pred[i] = pr
        if j.update:
            mistakes += pr != yi
            changes += r
            touched += r != 0 or pr != yi
            if j.upd != NULL:
                j.upd[i] = <unsigned char>r
    j.mistakes += mistakes
    j.changes += changes
    return touched


cdef Py_ssize_t mc_scan(MCJob* j, int slot, Py_ssize_t lo, Py_ssize_t hi,
                        const Py_ssize_t* stop, const value_t* val,
                        const index_t* ix) noexcept nogil:
    """Judge rows lo..hi-1 with the current state, which it only reads (mb_spec_pass): the
    first row that is bad, a mistake or would change the state, or hi; the outputs (pred,
    upd = 0) of the rows before it.  The same checks and mc_winnow_row as mc_run."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef MCBuf* b = &j.bufs[slot]
    cdef Py_ssize_t i, n
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr = 0, yi
    for i in range(lo, hi):
        if (i & 15) == 0 and volatile_load(stop) < lo:
            return hi                   # an earlier slice found a row: this one cannot matter
        if next_row(val, ix, indptr, j.rows.row_len, i, j.d, j.boolean, j.limit, j.check, &v, &xi,
                    &n, NULL) != ROW_OK:
            return i
        yi = j.y[i]
        if mc_winnow_row(j.p, j.ovr, j.l, j.w, j.ln, j.wn, b, v, xi, n, yi, JUDGE, &pr,
                         NULL) or pr != yi:
            return i
        j.pred[i] = pr
        if j.upd != NULL:
            j.upd[i] = 0
    return hi


# (mc_run_cb and mc_scan_cb: in _dispatch_multiplicative.pxi, included above w_touch_cb)


cdef void mc_touch_cb(void* ctx, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Read CSR rows lo..hi-1 into the caches (mb_spec_pass: ahead of the sequential pass)."""
    cdef MCJob* j = <MCJob*>ctx
    touch_rows(j.rows.val, value_bytes(j.rows.vt), j.rows.ix, index_bytes(j.rows.it),
               j.rows.indptr, 0, lo, hi)


cdef int mc_winnow_pass(const WParams* p, int ovr, Py_ssize_t K, double* l, double* w,
                        double* ln, double* wn, const Rows* rows, Py_ssize_t max_row,
                        Py_ssize_t d, int boolean, double limit, int check,
                        const int* y, int* pred, unsigned char* upd, long long* counts,
                        int update, double* scores, int threads,
                        Py_ssize_t* bad_row) noexcept nogil:
    """The whole pass for K >= 3 classes; each row validated just before it is used.  On a
    bad row: its code and index (the counts are not written; the caller restores the
    weights).  A learning pass (update, no scores) runs on up to `threads` threads
    (mb_spec_pass: the same results for any number)."""
    cdef MCJob j
    cdef const void* indptr = rows.indptr
    cdef Py_ssize_t n_rows = rows.n_rows
    cdef MCBuf b0
    cdef mb_touch_fn touch = NULL
    cdef Py_ssize_t changed, s, T
    cdef int code = ROW_OK
    if not update or scores != NULL or y == NULL:
        threads = 1
    T = spec_slots(threads)
    j.bufs = &b0
    if T > 1:
        j.bufs = <MCBuf*>malloc(T * sizeof(MCBuf))
        if j.bufs == NULL:
            j.bufs = &b0
            T = 1
    for s in range(T):
        if not mc_buf_init(&j.bufs[s], K, max_row):
            if s == 0:
                code = NO_MEMORY
            threads = 1                 # (no room for the scans' buffers: one thread)
    if code == ROW_OK:
        j.p = p
        j.ovr = ovr
        j.K = K
        j.l = l
        j.w = w
        j.ln = ln
        j.wn = wn
        j.rows = rows[0]
        j.d = d
        j.boolean = boolean
        j.limit = limit
        j.check = check if indptr != NULL else check & CHECK_VALUES
        j.y = y
        j.pred = pred
        j.upd = upd
        j.scores = scores
        j.update = update
        j.mistakes = 0
        j.changes = 0
        j.err = ROW_OK
        if indptr != NULL:
            touch = mc_touch_cb
        changed = mb_spec_pass(threads, n_rows, &j, mc_scan_cb, mc_run_cb, touch, bad_row)
        if changed < 0:
            code = j.err
        elif update:
            counts[0] += n_rows
            counts[1] += j.mistakes
            counts[2] += j.changes
    for s in range(T):
        mc_buf_free(&j.bufs[s])
    if T > 1:
        free(j.bufs)
    return code


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
                    double[:, ::1] scores=None, int threads=1, bint check_values=True):
    """One pass over dense rows with K >= 3 classes (update=False: predict only; scores: the
    K class sums of every row); returns (status, bad_row).  A learning pass without scores
    runs on up to `threads` threads, with the same results (check_values: as winnow_dense)."""
    cdef WParams p = make_params(variant, exact, la, lb, theta)
    cdef double* lnp = &ln[0] if ln.shape[0] > 0 else NULL
    cdef double* wnp = &wn[0] if wn.shape[0] > 0 else NULL
    cdef const int* yp = &y[0] if y is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef double* sp = &scores[0, 0] if scores is not None else NULL
    cdef int vt = 0 if sizeof(value_t) == 1 else (1 if sizeof(value_t) == 4 else 2)
    cdef int status
    cdef Py_ssize_t bad = -1
    mc_sizes(K, X.shape[1], l.shape[0], w.shape[0], ln.shape[0], wn.shape[0], variant)
    if pred.shape[0] != X.shape[0] or (update and (y is None or y.shape[0] != X.shape[0])) or \
            (upd is not None and upd.shape[0] != X.shape[0]) or \
            (scores is not None and (scores.shape[0] != X.shape[0] or scores.shape[1] != K)):
        raise ValueError("mc_winnow_dense: the output arrays do not match X")
    cdef Rows rows = dense_rows(&X[0, 0], vt, X.shape[0], X.shape[1])
    with nogil:
        status = mc_winnow_pass(&p, ovr, K, &l[0], &w[0], lnp, wnp, &rows, X.shape[1],
                                X.shape[1], boolean, limit, CHECK_VALUES if check_values else 0,
                                yp, &pred[0], up, &counts[0], update, sp, threads, &bad)
    if status == NO_MEMORY:
        raise MemoryError("Winnow: no memory for the pass's buffers")
    return status, bad


def mc_winnow_csr(int variant, bint exact, double la, double lb, double theta, Py_ssize_t K,
                  bint ovr, double[::1] l, double[::1] w, double[::1] ln, double[::1] wn,
                  const value_t[::1] data, const index_t[::1] indices,
                  const index_t[::1] indptr, Py_ssize_t max_row, Py_ssize_t n_cols,
                  bint boolean, double limit, const int[::1] y, int[::1] pred,
                  unsigned char[::1] upd, long long[::1] counts, bint update,
                  double[:, ::1] scores=None, int threads=1, bint check=True,
                  bint check_values=True):
    """As mc_winnow_dense, for CSR rows (max_row: the most stored values in a row; ``check``,
    ``check_values``: as winnow_csr)."""
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
    cdef int vt = 0 if sizeof(value_t) == 1 else (1 if sizeof(value_t) == 4 else 2)
    cdef int it = 1 if sizeof(index_t) == 8 else 0
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
    cdef Rows rows = csr_rows(dp, vt, ip, it, &indptr[0], n_rows)
    with nogil:
        status = mc_winnow_pass(&p, ovr, K, &l[0], &w[0], lnp, wnp, &rows, max_row, n_cols,
                                boolean, limit,
                                (CHECK_INDICES if check else 0) |
                                (CHECK_VALUES if check_values else 0), yp, &pred[0], up,
                                &counts[0], update, sp, threads, &bad)
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
