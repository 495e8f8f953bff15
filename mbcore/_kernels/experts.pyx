# cython: language_level=3
"""Compiled kernels of the experts learners (Weighted Majority, randomized WM), mirroring
``mbref.experts`` bit for bit: log2 weights, a cache 2**(l - L) with a shared power-of-two offset
renormalised by a fixed rule, votes in four partial sums, the exact vote comparison in exact mode
(power-of-two beta), and the splitmix64 generator for randomized WM.
"""

cimport cython
from libc.math cimport floor, ldexp
from libc.stdlib cimport malloc, free

from ._exact cimport bits_ge_bits, carry_bits, term
from ._rng cimport splitmix_uniform

cdef double RENORM_BELOW = ldexp(1.0, -600)


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
    double* tc


cdef extern from "_wm_simd.h" nogil:
    void mb_wm_votes(const double* c, const unsigned char* p, Py_ssize_t n, double* q0,
                     double* q1)
    int mb_wm_update_exact(double* c, long long* m, const unsigned char* p, Py_ssize_t n,
                           int y, double beta)
    int mb_wm_simd_level()
    void mb_wm_force_level(int level)


cdef inline void votes(const Pool* P, const unsigned char* p, double* q0,
                       double* q1) noexcept nogil:
    """q_v = sum of the cached weights of the experts predicting v, expert i into s[i % 16]
    (_wm_simd.h: the masked cache summed in vectors, the same values in the same order as the
    scalar definition)."""
    mb_wm_votes(P.c, p, P.n, q0, q1)


cdef inline double lval(const Pool* P, Py_ssize_t i) noexcept nogil:
    """l_i: in exact mode lb * m_i (exactly what repeated additions of the integer lb give;
    the kernel writes l back at the end of a pass), else the stored l_i."""
    if P.exact:
        return P.lb * <double>P.m[i]
    return P.l[i]


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
            P.e1[m1] = <long long>lval(P, i)
            m1 += 1
        else:
            P.e0[m0] = <long long>lval(P, i)
            m0 += 1
    r1 = carry_bits(P.e1, m1, P.b1)
    r0 = carry_bits(P.e0, m0, P.b0)
    return bits_ge_bits(P.b1, r1, P.b0, r0)


cdef double max_log(const Pool* P) noexcept nogil:
    cdef Py_ssize_t i
    cdef double L = lval(P, 0)
    for i in range(1, P.n):
        if lval(P, i) > L:
            L = lval(P, i)
    return L


cdef void renormalize(Pool* P) noexcept nogil:
    """L = max l and the cache recomputed (the state's cache and offset change)."""
    cdef Py_ssize_t i
    cdef double L = max_log(P)
    P.aux[0] = L
    for i in range(P.n):
        P.c[i] = term(lval(P, i) - L)


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
        P.tc[i] = term(lval(P, i) - L)
    P.c = P.tc
    votes(P, p, q0, q1)
    P.c = saved


cdef int wm_rounds(Pool* P, const unsigned char* adv, const signed char* y, Py_ssize_t rounds,
                   signed char* pred, long long* counts, int update,
                   double* share, unsigned char* wrong_out) noexcept nogil:
    cdef Py_ssize_t t, i
    cdef const unsigned char* p
    cdef double q0, q1
    cdef int pr, yt, wrong, w, have = 0
    for t in range(rounds):
        p = adv + t * P.n
        if have:
            # the votes came with the previous round's update; the same renormalisation rule
            have = 0
            if q0 + q1 < RENORM_BELOW:
                renormalize(P)
                votes(P, p, &q0, &q1)
        else:
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
            # exact powers of two, so c * beta is exactly term(l + lb - L), 0 on underflow too.
            # l itself is lb * m (lval) during the pass and written back at its end.
            wrong = mb_wm_update_exact(P.c, P.m, p, P.n, yt, P.beta)
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
        if wrong_out != NULL:
            wrong_out[t] = wrong
    return 0


def wm_pass(const unsigned char[:, ::1] adv, const signed char[::1] y, double[::1] l,
            long long[::1] m, double[::1] c, double[::1] aux, unsigned long long[::1] rng,
            long long[::1] counts, double lb, double beta, bint exact, bint randomized,
            signed char[::1] pred, bint update, double[::1] share=None,
            unsigned char[::1] updated=None):
    """Rounds of (randomized) Weighted Majority over binary advice (0/1 per expert).

    update=True: the online protocol (predictions into pred, 0/1; with ``updated``, 1 for each
    round in which some expert was wrong: the record of updates).  update=False: predictions
    only (pred), or with share, the vote share q1 / (q0 + q1) per round."""
    if updated is not None and updated.shape[0] < adv.shape[0]:
        raise ValueError("wm_pass: updated is shorter than the rounds")
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
    P.tc = <double*>malloc((n + 1) * sizeof(double))
    if P.e1 == NULL or P.e0 == NULL or P.b1 == NULL or P.b0 == NULL or P.tc == NULL:
        free(P.e1)
        free(P.e0)
        free(P.b1)
        free(P.b0)
        free(P.tc)
        raise MemoryError("WeightedMajority: no memory for the exact-comparison buffers")
    cdef const signed char* yp = &y[0] if y is not None else NULL
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef double* sp = &share[0] if share is not None else NULL
    cdef unsigned char* wp = &updated[0] if updated is not None else NULL
    cdef Py_ssize_t i
    with nogil:
        wm_rounds(&P, &adv[0, 0], yp, adv.shape[0], pp, &counts[0], update, sp, wp)
        if exact and update:
            for i in range(n):
                P.l[i] = lb * <double>P.m[i]
    free(P.e1)
    free(P.e0)
    free(P.b1)
    free(P.b0)
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


# -- multi-valued labels --------------------------------------------------------------------------

ctypedef fused code_t:
    unsigned char
    int


cdef union Bits:
    double d
    long long i


cdef struct Exact:
    long long* e      # exponents of one class (n + 1)
    long long* bcur   # set bits of the current best class (n + 65)
    long long* bv     # set bits of the candidate (n + 65)


cdef int exact_alloc(Exact* X, Py_ssize_t n) noexcept nogil:
    X.e = <long long*>malloc((n + 1) * sizeof(long long))
    X.bcur = <long long*>malloc((n + 65) * sizeof(long long))
    X.bv = <long long*>malloc((n + 65) * sizeof(long long))
    return 0 if (X.e != NULL and X.bcur != NULL and X.bv != NULL) else -1


cdef void exact_free(Exact* X) noexcept nogil:
    free(X.e)
    free(X.bcur)
    free(X.bv)


cdef inline Py_ssize_t class_bits(Exact* X, const long long* ex, const int* cls, Py_ssize_t nv,
                                  int v, long long* bits) noexcept nogil:
    """The set bits of sum_{k: cls[k] == v} 2**ex[k]."""
    cdef Py_ssize_t k, r = 0
    for k in range(nv):
        if cls[k] == v:
            X.e[r] = ex[k]
            r += 1
    return carry_bits(X.e, r, bits)


cdef int exact_best(Exact* X, const double* q, int K, const long long* ex, const int* cls,
                    Py_ssize_t nv) noexcept nogil:
    """The last class v maximising S_v = sum_{k: cls[k] == v} 2**ex[k], exactly, given the
    float64 sums q_v of the same terms (each within the error bound below): classes clearly
    below the float leader are skipped, the rest are compared by exact binary addition."""
    cdef int v, best = 0, cur = -1, near = 0
    cdef double err
    cdef Py_ssize_t rcur = 0, rv
    cdef long long* tmp
    for v in range(1, K):
        if q[v] >= q[best]:
            best = v
    for v in range(K):
        err = (nv + 3) * 2.220446049250313e-16 * (q[best] + q[v]) + \
            2 * nv * 4.9406564584124654e-324
        if v != best and q[best] - q[v] <= err:
            near = 1
            break
    if not near:
        return best                        # the float leader is certainly the exact one
    for v in range(K):
        err = (nv + 3) * 2.220446049250313e-16 * (q[best] + q[v]) + \
            2 * nv * 4.9406564584124654e-324
        if v != best and q[best] - q[v] > err:
            continue                       # certainly below the leader
        if cur < 0:
            cur = v
            rcur = class_bits(X, ex, cls, nv, v, X.bcur)
            continue
        rv = class_bits(X, ex, cls, nv, v, X.bv)
        if bits_ge_bits(X.bv, rv, X.bcur, rcur):
            cur = v
            rcur = rv
            tmp = X.bcur
            X.bcur = X.bv
            X.bv = tmp
    return cur


cdef inline int near_tie(const double* q, int K, Py_ssize_t nv, int best) noexcept nogil:
    """Whether another class's float64 sum is within the error bound of the leader's."""
    cdef int v
    cdef double err
    for v in range(K):
        err = (nv + 3) * 2.220446049250313e-16 * (q[best] + q[v]) + \
            2 * nv * 4.9406564584124654e-324
        if v != best and q[best] - q[v] <= err:
            return 1
    return 0


cdef inline int last_argmax(const double* q, int K) noexcept nogil:
    cdef int v, best = 0
    for v in range(1, K):
        if q[v] >= q[best]:
            best = v
    return best


cdef inline double fold(const double* q, int K) noexcept nogil:
    cdef double t = q[0]
    cdef int v
    for v in range(1, K):
        t = t + q[v]
    return t


cdef inline void sum_classes(const double* s, int K, double* q) noexcept nogil:
    cdef int v
    for v in range(K):
        q[v] = (s[4 * v] + s[4 * v + 1]) + (s[4 * v + 2] + s[4 * v + 3])


cdef extern from "_wm_simd.h" nogil:
    double mb_fold16(const double* s)
    double mb_wm_class_sum(const double* c, const unsigned char* p, Py_ssize_t n, int v)


cdef void multi_votes(const double* c, const code_t* p, Py_ssize_t n, int K, double* s,
                      double* q) noexcept nogil:
    """Weighted Majority's votes with K classes: expert i into s_v[i % 16] (as mb_wm_votes)."""
    cdef Py_ssize_t i
    cdef int v
    if code_t is cython.uchar:
        if K <= 8:        # one vector pass per class beats the scatter for a few classes
            for v in range(K):
                q[v] = mb_wm_class_sum(c, p, n, v)
            return
    for i in range(16 * K):
        s[i] = 0.0
    for i in range(n):
        s[16 * <Py_ssize_t>p[i] + (i & 15)] += c[i]
    for v in range(K):
        q[v] = mb_fold16(s + 16 * v)


cdef inline double lget(int implicit, const double* l, const long long* m, double lb,
                        Py_ssize_t i) noexcept nogil:
    return lb * <double>m[i] if implicit else l[i]


def wm_multi_pass(const code_t[:, ::1] adv, const int[::1] y, double[::1] l, long long[::1] m,
                  double[::1] c, double[::1] aux, unsigned long long[::1] rng,
                  long long[::1] counts, double lb, double beta, bint exact, bint randomized,
                  int K, int[::1] pred, bint update, double[:, ::1] share=None,
                  unsigned char[::1] updated=None):
    """Rounds of (randomized) Weighted Majority with K >= 2 classes (advice = class indices):
    the last class with the largest total weight (exactly in exact mode); randomized: the first
    v from K-1 down with u < (q_{K-1} + ... + q_v) / T, else 0.  The cache is renormalised as
    in wm_pass (T < 2**-600)."""
    cdef Py_ssize_t n = adv.shape[1], rounds = adv.shape[0], t, i
    cdef double* s = <double*>malloc(16 * K * sizeof(double))
    cdef double* q = <double*>malloc(K * sizeof(double))
    cdef double* tc = <double*>malloc((n + 1) * sizeof(double))
    cdef long long* ex = <long long*>malloc((n + 1) * sizeof(long long))
    cdef int* cls = <int*>malloc((n + 1) * sizeof(int))
    cdef Exact X
    cdef int ok = exact_alloc(&X, n)
    if s == NULL or q == NULL or tc == NULL or ex == NULL or cls == NULL or ok < 0:
        free(s); free(q); free(tc); free(ex); free(cls); exact_free(&X)
        raise MemoryError("WeightedMajority: no memory for the vote buffers")
    cdef const code_t* p
    cdef double* cp = &c[0]
    cdef double* lp = &l[0]
    cdef long long* mp = &m[0]
    cdef double L, T, u, acc
    cdef int pr, yt, w, wrong, v
    cdef const int* yp = &y[0] if y is not None else NULL
    # uint8 codes in exact mode: l stays lb * m during the pass (the vector update leaves l
    # alone) and is written back at the end
    cdef int implicit = exact and code_t is cython.uchar
    cdef int* pp = &pred[0] if pred is not None else NULL
    cdef double* sp = &share[0, 0] if share is not None else NULL
    if updated is not None and updated.shape[0] < rounds:
        free(s); free(q); free(tc); free(ex); free(cls); exact_free(&X)
        raise ValueError("wm_multi_pass: updated is shorter than the rounds")
    cdef unsigned char* wp = &updated[0] if updated is not None else NULL
    with nogil:
        for t in range(rounds):
            p = &adv[t, 0]
            multi_votes(cp, p, n, K, s, q)
            T = fold(q, K)
            if T < RENORM_BELOW:
                L = lget(implicit, lp, mp, lb, 0)
                for i in range(1, n):
                    if lget(implicit, lp, mp, lb, i) > L:
                        L = lget(implicit, lp, mp, lb, i)
                if update:
                    aux[0] = L
                    for i in range(n):
                        cp[i] = term(lget(implicit, lp, mp, lb, i) - L)
                    multi_votes(cp, p, n, K, s, q)
                else:
                    for i in range(n):
                        tc[i] = term(lget(implicit, lp, mp, lb, i) - L)
                    multi_votes(tc, p, n, K, s, q)
                T = fold(q, K)
            if sp != NULL:
                for v in range(K):
                    sp[t * K + v] = q[v] / T
                continue
            if randomized:
                u = splitmix_uniform(&rng[0])
                acc = 0.0
                pr = 0
                for v in range(K - 1, 0, -1):
                    acc = acc + q[v]
                    if u < acc / T:
                        pr = v
                        break
            elif exact:
                pr = last_argmax(q, K)
                if near_tie(q, K, n, pr):
                    for i in range(n):
                        ex[i] = <long long>lget(implicit, lp, mp, lb, i)
                        cls[i] = p[i]
                    pr = exact_best(&X, q, K, ex, cls, n)
            else:
                pr = last_argmax(q, K)
            if pp != NULL:
                pp[t] = pr
            if not update:
                continue
            yt = yp[t]
            wrong = 0
            if exact and code_t is cython.uchar:
                # l = lb * m during the pass (written back at its end), as in wm_pass
                wrong = mb_wm_update_exact(cp, mp, <const unsigned char*>p, n, yt, beta)
            elif exact:
                for i in range(n):
                    w = p[i] != yt
                    wrong |= w
                    mp[i] += w
                    lp[i] = lp[i] + lb * w
                    cp[i] = cp[i] * (1.0 - w + w * beta)   # exact: 1 or beta
            else:
                for i in range(n):
                    if p[i] != yt:
                        wrong = 1
                        mp[i] += 1
                        lp[i] = lp[i] + lb
                        cp[i] = term(lp[i] - aux[0])
            counts[0] += 1
            counts[1] += pr != yt
            counts[2] += wrong
            if wp != NULL:
                wp[t] = wrong
        if implicit and update:
            for i in range(n):
                lp[i] = lb * <double>mp[i]
    free(s); free(q); free(tc); free(ex); free(cls); exact_free(&X)


# -- specialists (sleeping experts) ---------------------------------------------------------------

cdef inline int hist_vote(const int* h, int cnt, int nxt, int H) noexcept nogil:
    """The most frequent label of a ring buffer (ties: the most recent); -1 if empty.  The
    labels are read from the most recent back, each pair compared once."""
    cdef int r[256]
    cdef int num[256]
    cdef int k, j, a = nxt - 1, best = 0
    if cnt == 0:
        return -1
    for k in range(cnt):
        if a < 0:
            a += H
        r[k] = h[a]
        num[k] = 1
        a -= 1
    for k in range(cnt):
        for j in range(k + 1, cnt):
            if r[k] == r[j]:
                num[k] += 1
                num[j] += 1
    for k in range(1, cnt):
        if num[k] > num[best]:
            best = k
    return r[best]


cdef inline double scale2(double c, double k) noexcept nogil:
    """ldexp(c, k) for c in [1, 2) and an integer k <= 0: a product with 2**k built from its
    bits when 2**k is a float64 (a correctly rounded product equals ldexp's correctly rounded
    result), else ldexp itself."""
    cdef Bits b
    if k >= -1022.0:
        b.i = <long long>(<int>k + 1023) << 52
        return c * b.d
    if k >= -1074.0:
        b.i = 1LL << (<int>k + 1074)
        return c * b.d
    if k < -2000.0:
        return 0.0
    return ldexp(c, <int>k)


def specialists_pass(const long long[::1] indptr, const long long[::1] ids,
                     const int[::1] codes, const int[::1] y,
                     long long[::1] nd, long long[::1] npr, double[::1] l, double[::1] e,
                     double[::1] c, unsigned char[::1] alive, long long[::1] m,
                     long long[::1] label_counts, long long[::1] counts,
                     double ld, double lp, bint exact, double threshold, bint prune,
                     double prune_l, int K, int[::1] pred, unsigned char[::1] covered,
                     bint update, int[:, ::1] hist=None, int[::1] hcnt=None,
                     int[::1] hnext=None, unsigned char[::1] updated=None):
    """Rounds of Specialists.  Round t's awake specialists are ids[indptr[t]:indptr[t+1]], each
    voting codes[k] (a class index, or -1 to abstain), or, with hist, the vote of its label
    history (ring buffers hist[i, :], hcnt[i] labels stored, next slot hnext[i]; the label is
    pushed to every awake specialist after the round when update is set).  counts = [seen,
    mistakes, updates, covered, covered mistakes].  Mirrors mbref.experts.Specialists."""
    cdef Py_ssize_t rounds = indptr.shape[0] - 1, t, k, a, b, j, width = 0, nv, i
    for t in range(rounds):
        if indptr[t + 1] - indptr[t] > width:
            width = indptr[t + 1] - indptr[t]
    cdef double* s = <double*>malloc(4 * K * sizeof(double))
    cdef double* q = <double*>malloc(K * sizeof(double))
    cdef Py_ssize_t* vi = <Py_ssize_t*>malloc((width + 1) * sizeof(Py_ssize_t))
    cdef int* cls = <int*>malloc((width + 1) * sizeof(int))
    cdef long long* ex = <long long*>malloc((width + 1) * sizeof(long long))
    cdef Exact X
    cdef int ok = exact_alloc(&X, width)
    if s == NULL or q == NULL or vi == NULL or cls == NULL or ex == NULL or ok < 0:
        free(s); free(q); free(vi); free(cls); free(ex); exact_free(&X)
        raise MemoryError("Specialists: no memory for the vote buffers")
    cdef int H = hist.shape[1] if hist is not None else 0
    cdef int* hp = &hist[0, 0] if (hist is not None and hist.shape[0] > 0) else NULL
    cdef int* hc = &hcnt[0] if (hcnt is not None and hcnt.shape[0] > 0) else NULL
    cdef int* hn = &hnext[0] if (hnext is not None and hnext.shape[0] > 0) else NULL
    cdef const int* cp = &codes[0] if (codes is not None and codes.shape[0] > 0) else NULL
    cdef const int* yp = &y[0] if y is not None else NULL
    cdef int* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* cvp = &covered[0] if covered is not None else NULL
    cdef unsigned char* up = &updated[0] if updated is not None else NULL
    cdef int use_hist = hist is not None
    cdef double E, sh, lnew, en
    cdef int v, pr, cov, yt
    with nogil:
        for t in range(rounds):
            a = indptr[t]
            b = indptr[t + 1]
            nv = 0
            for k in range(a, b):
                i = ids[k]
                if use_hist:
                    v = hist_vote(hp + i * H, hc[i], hn[i], H)
                else:
                    v = cp[k]
                if v >= 0 and alive[i]:
                    vi[nv] = i
                    cls[nv] = v
                    ex[nv] = k - a          # the voter's position j in the round
                    nv += 1
            if nv == 0:
                pr = 0
                for v in range(1, K):
                    if label_counts[v] >= label_counts[pr]:
                        pr = v
                cov = 0
            else:
                E = e[vi[0]]
                for j in range(1, nv):
                    if e[vi[j]] > E:
                        E = e[vi[j]]
                for j in range(4 * K):
                    s[j] = 0.0
                for j in range(nv):
                    s[4 * cls[j] + (ex[j] & 3)] += scale2(c[vi[j]], e[vi[j]] - E)
                sum_classes(s, K, q)
                if exact:
                    for j in range(nv):
                        ex[j] = <long long>e[vi[j]]
                    pr = exact_best(&X, q, K, ex, cls, nv)
                else:
                    pr = last_argmax(q, K)
                cov = q[pr] >= threshold * fold(q, K)
            if pp != NULL:
                pp[t] = pr
            if cvp != NULL:
                cvp[t] = cov
            if not update:
                continue
            yt = yp[t]
            if up != NULL:
                up[t] = pr != yt and nv > 0
            counts[0] += 1
            label_counts[yt] += 1
            for j in range(nv):
                m[vi[j]] += cls[j] != yt
            counts[3] += cov
            if pr != yt:
                counts[1] += 1
                counts[4] += cov
                if nv > 0:
                    counts[2] += 1
                    for j in range(nv):
                        i = vi[j]
                        if cls[j] == yt:
                            npr[i] += 1
                        else:
                            nd[i] += 1
                        lnew = <double>nd[i] * ld + <double>npr[i] * lp
                        en = floor(lnew)
                        l[i] = lnew
                        e[i] = en
                        c[i] = term(lnew - en)
                        if prune and lnew < prune_l:
                            alive[i] = 0
            if use_hist:
                for k in range(a, b):
                    i = ids[k]
                    hp[i * H + hn[i]] = yt
                    hn[i] = (hn[i] + 1) % H
                    if hc[i] < H:
                        hc[i] += 1
    free(s); free(q); free(vi); free(cls); free(ex); exact_free(&X)


def simd_level(force=None):
    """Which vector path Weighted Majority's loops take: 2 = AVX2, 1 = SSE2, 0 = scalar (for
    tests; ``force`` = 1 makes an AVX2 machine take the SSE2 path, 2 restores the default)."""
    if force is not None:
        mb_wm_force_level(force)
    return mb_wm_simd_level()


# -- PairSpecialists' key -> id table -------------------------------------------------------------

cdef inline unsigned long long mix64(unsigned long long z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


def pair_lookup(const long long[::1] keys, long long[::1] tkeys, long long[::1] tids,
                long long[::1] by_id, long long[::1] n_ids, long long[::1] out,
                Py_ssize_t start, bint create):
    """out[k] = the id of keys[k] for k >= start, from an open-addressing table (tkeys: -1 =
    empty; capacity a power of two; linear probing).  A negative key gives -1; an unknown key
    gives -1, or with create a new id (n_ids[0], then the next, in stream order: ids by first
    occurrence), recorded in by_id.  Returns -1 when done, or the position k at which the table
    would pass half full or by_id is full (grow them and call again from k)."""
    cdef Py_ssize_t k, n = keys.shape[0], cap = tkeys.shape[0], room = by_id.shape[0]
    cdef unsigned long long mask = <unsigned long long>(cap - 1)
    cdef unsigned long long h
    cdef long long key, nid = n_ids[0]
    cdef Py_ssize_t stop = -1
    with nogil:
        for k in range(start, n):
            key = keys[k]
            if key < 0:
                out[k] = -1
                continue
            h = mix64(<unsigned long long>key) & mask
            while tkeys[h] != -1 and tkeys[h] != key:
                h = (h + 1) & mask
            if tkeys[h] == key:
                out[k] = tids[h]
                continue
            if not create:
                out[k] = -1
                continue
            if 2 * (nid + 1) > cap or nid >= room:
                stop = k
                break
            tkeys[h] = key
            tids[h] = nid
            by_id[nid] = key
            out[k] = nid
            nid += 1
    n_ids[0] = nid
    return stop


def pair_rehash(const long long[::1] by_id, Py_ssize_t n, long long[::1] tkeys,
                long long[::1] tids):
    """Insert the first n keys of by_id (ids 0..n-1) into an empty table."""
    cdef Py_ssize_t i
    cdef unsigned long long mask = <unsigned long long>(tkeys.shape[0] - 1)
    cdef unsigned long long h
    with nogil:
        for i in range(n):
            h = mix64(<unsigned long long>by_id[i]) & mask
            while tkeys[h] != -1:
                h = (h + 1) & mask
            tkeys[h] = by_id[i]
            tids[h] = i
