# cython: language_level=3
"""Compiled kernels of the experts learners (Weighted Majority, randomized WM), mirroring
``mbref.experts`` bit for bit: log2 weights, a cache 2**(l - L) with a shared power-of-two offset
renormalised by a fixed rule, votes in four partial sums, the exact vote comparison in exact mode
(power-of-two beta), and the splitmix64 generator for randomized WM.
"""

from libc.math cimport ldexp
from libc.stdlib cimport malloc, free

from ._exact cimport bits_ge_bits, carry_bits, term

cdef double RENORM_BELOW = ldexp(1.0, -600)


cdef inline unsigned long long splitmix_next(unsigned long long* s) noexcept nogil:
    cdef unsigned long long z
    s[0] += 0x9E3779B97F4A7C15ULL
    z = s[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline double splitmix_uniform(unsigned long long* s) noexcept nogil:
    return <double>(splitmix_next(s) >> 11) * (1.0 / 9007199254740992.0)


cdef struct Pool:
    Py_ssize_t n
    int exact
    int randomized
    double lb
    double beta
    double* l
    long long* m
    double* c
    double* aux          # [L]: the cache's offset
    unsigned long long* rng
    long long* e1
    long long* e0
    long long* b1
    long long* b0
    double* t1
    double* t0
    double* tc


cdef void votes(const Pool* P, const unsigned char* p, double* q0, double* q1) noexcept nogil:
    """q_v = sum of the cached weights of the experts predicting v (expert i into s[i % 4]).

    The masked weights go to scratch arrays first (an elementwise loop the compiler vectorises;
    c * 1 == c and c * 0 == 0 for the finite, non-negative cache), then the same four-partial-sum
    reduction as everywhere else."""
    cdef Py_ssize_t i, n = P.n
    cdef const double* c = P.c
    cdef double* t1 = P.t1
    cdef double* t0 = P.t0
    for i in range(n):
        t1[i] = c[i] * <double>p[i]
        t0[i] = c[i] - t1[i]
    q1[0] = sum4(t1, n)
    q0[0] = sum4(t0, n)


cdef inline double sum4(const double* v, Py_ssize_t n) noexcept nogil:
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t k, n4 = n - (n % 4)
    for k in range(0, n4, 4):
        s0 += v[k]
        s1 += v[k + 1]
        s2 += v[k + 2]
        s3 += v[k + 3]
    if n4 < n:
        s0 += v[n4]
    if n4 + 1 < n:
        s1 += v[n4 + 1]
    if n4 + 2 < n:
        s2 += v[n4 + 2]
    return (s0 + s1) + (s2 + s3)


cdef int decide(const Pool* P, const unsigned char* p, double q0, double q1) noexcept nogil:
    """1 iff q1 >= q0 (exactly, in exact mode); randomized: 1 iff u < q1 / (q0 + q1)."""
    cdef double d, err
    cdef Py_ssize_t i, m1 = 0, m0 = 0, r1, r0
    if P.randomized:
        return 1 if splitmix_uniform(P.rng) < q1 / (q0 + q1) else 0
    if not P.exact:
        return 1 if q1 >= q0 else 0
    d = q1 - q0
    err = (P.n + 3) * 2.220446049250313e-16 * (q0 + q1) + 2 * P.n * 4.9406564584124654e-324
    if d > err:
        return 1
    if -d > err:
        return 0
    for i in range(P.n):
        if p[i]:
            P.e1[m1] = <long long>P.l[i]
            m1 += 1
        else:
            P.e0[m0] = <long long>P.l[i]
            m0 += 1
    r1 = carry_bits(P.e1, m1, P.b1)
    r0 = carry_bits(P.e0, m0, P.b0)
    return bits_ge_bits(P.b1, r1, P.b0, r0)


cdef double max_log(const Pool* P) noexcept nogil:
    cdef Py_ssize_t i
    cdef double L = P.l[0]
    for i in range(1, P.n):
        if P.l[i] > L:
            L = P.l[i]
    return L


cdef void renormalize(Pool* P) noexcept nogil:
    """L = max l and the cache recomputed (the state's cache and offset change)."""
    cdef Py_ssize_t i
    cdef double L = max_log(P)
    P.aux[0] = L
    for i in range(P.n):
        P.c[i] = term(P.l[i] - L)


cdef void round_votes(Pool* P, const unsigned char* p, int update, double* q0,
                      double* q1) noexcept nogil:
    """The votes of a round.  If the cached total is below 2**-600 the cache is renormalised
    first (update rounds), or the votes are taken from a renormalised copy (predict: no state
    change)."""
    cdef Py_ssize_t i
    cdef double L
    cdef double* saved
    votes(P, p, q0, q1)
    if q0[0] + q1[0] >= RENORM_BELOW:
        return
    if update:
        renormalize(P)
        votes(P, p, q0, q1)
        return
    L = max_log(P)
    saved = P.c
    for i in range(P.n):
        P.tc[i] = term(P.l[i] - L)
    P.c = P.tc
    votes(P, p, q0, q1)
    P.c = saved


cdef int wm_rounds(Pool* P, const unsigned char* adv, const signed char* y, Py_ssize_t rounds,
                   signed char* pred, long long* counts, int update,
                   double* share) noexcept nogil:
    cdef Py_ssize_t t, i
    cdef const unsigned char* p
    cdef double q0, q1
    cdef int pr, yt, wrong, w
    for t in range(rounds):
        p = adv + t * P.n
        round_votes(P, p, update, &q0, &q1)
        if share != NULL:
            share[t] = q1 / (q0 + q1)
            continue
        pr = decide(P, p, q0, q1)
        if pred != NULL:
            pred[t] = pr
        if not update:
            continue
        yt = y[t]
        wrong = 0
        if P.exact:
            # Without branches (right and wrong experts come in random order): the cache holds
            # exact powers of two, so c * beta is exactly term(l + lb - L), 0 on underflow too;
            # l + lb * 0 == l.
            for i in range(P.n):
                w = p[i] != yt
                wrong |= w
                P.m[i] += w
                P.l[i] = P.l[i] + P.lb * w
                P.c[i] = P.c[i] * (1.0 - w + w * P.beta)   # exact: 1 or beta
        else:
            for i in range(P.n):
                if p[i] != yt:
                    wrong = 1
                    P.m[i] += 1
                    P.l[i] = P.l[i] + P.lb
                    P.c[i] = term(P.l[i] - P.aux[0])
        counts[0] += 1
        counts[1] += pr != yt
        counts[2] += wrong
    return 0


def wm_pass(const unsigned char[:, ::1] adv, const signed char[::1] y, double[::1] l,
            long long[::1] m, double[::1] c, double[::1] aux, unsigned long long[::1] rng,
            long long[::1] counts, double lb, double beta, bint exact, bint randomized,
            signed char[::1] pred, bint update, double[::1] share=None):
    """Rounds of (randomized) Weighted Majority over binary advice (0/1 per expert).

    update=True: the online protocol (predictions into pred, 0/1).  update=False: predictions
    only (pred), or with share, the vote share q1 / (q0 + q1) per round."""
    cdef Pool P
    cdef Py_ssize_t n = adv.shape[1]
    P.n = n
    P.exact = exact
    P.randomized = randomized
    P.lb = lb
    P.beta = beta
    P.l = &l[0]
    P.m = &m[0]
    P.c = &c[0]
    P.aux = &aux[0]
    P.rng = &rng[0]
    P.e1 = <long long*>malloc((n + 1) * sizeof(long long))
    P.e0 = <long long*>malloc((n + 1) * sizeof(long long))
    P.b1 = <long long*>malloc((n + 65) * sizeof(long long))
    P.b0 = <long long*>malloc((n + 65) * sizeof(long long))
    P.t1 = <double*>malloc((n + 1) * sizeof(double))
    P.t0 = <double*>malloc((n + 1) * sizeof(double))
    P.tc = <double*>malloc((n + 1) * sizeof(double))
    if P.e1 == NULL or P.e0 == NULL or P.b1 == NULL or P.b0 == NULL or P.t1 == NULL or \
            P.t0 == NULL or P.tc == NULL:
        free(P.e1)
        free(P.e0)
        free(P.b1)
        free(P.b0)
        free(P.t1)
        free(P.t0)
        free(P.tc)
        raise MemoryError("WeightedMajority: no memory for the exact-comparison buffers")
    cdef const signed char* yp = &y[0] if y is not None else NULL
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef double* sp = &share[0] if share is not None else NULL
    with nogil:
        wm_rounds(&P, &adv[0, 0], yp, adv.shape[0], pp, &counts[0], update, sp)
    free(P.e1)
    free(P.e0)
    free(P.b1)
    free(P.b0)
    free(P.t1)
    free(P.t0)
    free(P.tc)


def terms(const double[::1] x, double[::1] out):
    """out[i] = 2**x[i] as float64, as the twin computes it (for weights_)."""
    cdef Py_ssize_t i
    for i in range(x.shape[0]):
        out[i] = term(x[i])


def splitmix_uniforms(unsigned long long[::1] state, double[::1] out):
    """Draw len(out) uniforms from the generator (for tests of the shared generator)."""
    cdef Py_ssize_t i
    for i in range(out.shape[0]):
        out[i] = splitmix_uniform(&state[0])


ctypedef fused label_t:
    signed char
    unsigned char
    short
    int
    long long
    float
    double


def encode_advice(const label_t[:, ::1] A, label_t neg, label_t pos, unsigned char[:, ::1] out):
    """out = 1 where A == pos, 0 where A == neg; returns the flat index of the first other
    value, or -1.  Branch-free."""
    cdef Py_ssize_t k, n = A.shape[0] * A.shape[1], bad = -1
    cdef const label_t* a = &A[0, 0]
    cdef unsigned char* o = &out[0, 0]
    cdef int ok = 1
    with nogil:
        for k in range(n):
            o[k] = a[k] == pos
            ok &= (a[k] == pos) | (a[k] == neg)
        if not ok:
            for k in range(n):
                if a[k] != pos and a[k] != neg:
                    bad = k
                    break
    return bad
