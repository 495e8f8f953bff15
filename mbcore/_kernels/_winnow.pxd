# cython: language_level=3
"""What the multiplicative family's kernels share (``multiplicative`` for the binary learners,
``multiplicative_mc`` for K >= 3 classes), mirroring ``mbref.multiplicative`` bit for bit: the
fused value and index types, the variant codes and ``WParams``, the row codes and the per-row
checks, one weight's update, and the helpers of the exact decisions (a score's error bound, the
exact binary sums).  Only inline functions, types and constants: nothing here exists at run time
as a module of its own.

Weights are stored as base-2 logarithms ``l`` with a cache ``w = 2**l`` (float64; 0 or inf when
out of range) used for the sums.  In exact mode (Boolean features, power-of-two factors) every
``l`` is an integer and the prediction ``sum 2**l >= theta`` is decided exactly: a float64 sum with
a rigorous error bound settles almost every row; a row whose sum is within that bound of theta is
decided by exact binary addition of its powers of two.
"""

from libc.math cimport fabs, frexp, ldexp, INFINITY
cimport cython

from ._exact cimport carry_bits, term
from ._spec cimport MB_SPEC_MAXT

ctypedef fused value_t:
    unsigned char
    float
    double

ctypedef fused index_t:
    int
    long long

# the variants (WParams.variant)
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


cdef inline WParams make_params(int variant, bint exact, double la, double lb,
                                double theta) noexcept:
    cdef WParams p
    p.variant = variant
    p.exact = exact
    p.la = la
    p.lb = lb
    p.theta = theta
    return p


# the row codes of a pass (returned to Python with the bad row)
cdef enum:
    ROW_OK = 0
    ROW_INDEX_RANGE = 1
    ROW_UNSORTED = 2
    ROW_BAD_VALUE = 3
    ROW_BAD_INDPTR = 4
    NO_MEMORY = 5
    ROW_NONFINITE = 6   # real mode: a score that is not finite (cannot be decided in float64)

cdef enum:
    # what a pass checks in each row as it reads it (the structure of CSR's indptr always)
    CHECK_INDICES = 1   # a CSR row's column indices: sorted, distinct, in [0, d)
    CHECK_VALUES = 2    # the values: 0/1 (Boolean) or finite with |x| <= limit


cdef extern from *:
    """
    #define MB_W_EPS 2.220446049250313e-16         /* 2**-52 */
    #define MB_W_DENORM 4.9406564584124654e-324    /* 2**-1074 */
    #define MB_W_DBL_MAX 1.7976931348623157e308
    """
    const double EPS "MB_W_EPS"
    const double DENORM "MB_W_DENORM"
    const double DBL_MAX "MB_W_DBL_MAX"


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


cdef inline Py_ssize_t sum_bits(const double* la, Py_ssize_t ka, const double* lb,
                                Py_ssize_t kb, Py_ssize_t K, const value_t* v,
                                const index_t* ix, Py_ssize_t n, double theta, long long* e,
                                long long* bits) noexcept nogil:
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


cdef inline int spec_slots(int threads) noexcept nogil:
    """The scan slots a pass on `threads` threads may use (mb_spec_pass starts at most
    MB_SPEC_MAXT)."""
    if threads < 1:
        return 1
    return MB_SPEC_MAXT if threads > MB_SPEC_MAXT else threads


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
