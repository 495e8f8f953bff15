# cython: language_level=3
"""The second-order rules and their covariance arithmetic (``mbref._covariance``'s, in one
compiled place), cimported by ``second_order.pyx``: the rule codes, the pass context
``SOCtx``, each rule's step (alpha, beta, c) from the margin and the confidence, the diagonal
and full covariance updates, and the row's score and confidence.  Every sum is in the four
interleaved partial sums of ``_arith.pxd`` (no fused multiply-add), every update in the order
written in the twin, so that the twin reproduces every value bit for bit.  Only inline
functions, types and constants: nothing here exists at run time as a module of its own.
"""

from libc.math cimport sqrt, isfinite, fabs
from libc.string cimport memcpy

from ._arith cimport floating, index_t, dot_row, sumsq_vals

cdef extern from "_so_simd.h" nogil:
    Py_ssize_t mb_so_sc_d(const double* w, const double* S, const double* v, Py_ssize_t n4,
                          double* a, double* b, int* blk)
    Py_ssize_t mb_so_sc_f(const double* w, const double* S, const float* v, Py_ssize_t n4,
                          double* a, double* b, int* blk)
    int mb_so_step_d(double* w, double* S, const double* v, const int* blk, Py_ssize_t nb,
                     double ay, double c, double floor)
    int mb_so_step_f(double* w, double* S, const float* v, const int* blk, Py_ssize_t nb,
                     double ay, double c, double floor)
    int mb_so_sop_d(const double* V, const double* A, const double* v, Py_ssize_t n4,
                    double* s)
    int mb_so_sop_f(const double* V, const double* A, const float* v, Py_ssize_t n4,
                    double* s)
    int mb_so_cstep_di(double* w, double* S, const double* v, const int* ix, Py_ssize_t n4,
                        double ay, double c, double floor)
    int mb_so_cstep_dl(double* w, double* S, const double* v, const long long* ix, Py_ssize_t n4,
                        double ay, double c, double floor)
    int mb_so_cstep_fi(double* w, double* S, const float* v, const int* ix, Py_ssize_t n4,
                        double ay, double c, double floor)
    int mb_so_cstep_fl(double* w, double* S, const float* v, const long long* ix, Py_ssize_t n4,
                        double ay, double c, double floor)
    int mb_so_simd_init(int level)
    int mb_so_simd_level()

# ---------------------------------------------------------------------------------------------
# The rules: a step (alpha, beta, c) from the margin m = y s and the confidence v = x' Sigma x'
# ---------------------------------------------------------------------------------------------

cdef enum:
    AROW = 0            # p0 = r
    CW = 1              # p0 = phi
    SCW1 = 2            # p0 = C, p1 = phi
    SCW2 = 3            # p0 = C, p1 = phi
    NHERD = 4           # p0 = C
    NAROW = 5           # p0 = b; theta beside w and Sigma (V)
    SOP = 6             # theta (V); S: A's diagonal (diagonal) or Sigma = A^-1 (full)
    N_SO_RULES = 7



cdef struct SOCtx:
    int rule
    int full            # 0: diagonal Sigma (D values), 1: full (D x D, row-major)
    int intercept
    int tie_pos
    double p0
    double p1
    double floor        # the diagonal variances' floor (mbref._covariance: a * 2**-52)
    double* w
    double* S
    double* V           # theta (NAROW, SOP: the sum of y x' over the updates), else NULL
    double* u           # scratch: D doubles (the full form's Sigma x')
    int* nz             # scratch: d ints (a dense row's non-zero positions, or with AVX2 the
                        # starts of its blocks of four values that hold a non-zero one)
    Py_ssize_t nzm      # how many the pass listed for the current row (-1: none)
    Py_ssize_t d
    Py_ssize_t D        # d, or d + 1 with an intercept (the last coordinate)
    long long* counts   # [rows seen, mistakes, updates]
    double chi          # the last row's x' Sigma x' (the full second-order Perceptron's, for
                        # BBQ's query; set by dual_row)


cdef inline void cw_cov(double alpha, double v, double phi, double* beta,
                        double* c) noexcept nogil:
    """The exact CW covariance step for a mean step alpha (mbref.second_order._cw_cov)."""
    cdef double t = (alpha * v) * phi
    cdef double su = (2.0 * v) / (sqrt(t * t + 4.0 * v) + t)
    cdef double ap = alpha * phi
    beta[0] = ap / (su + t)
    c[0] = ap / su


cdef inline double cw_alpha(double m, double v, double phi) noexcept nogil:
    """The exact CW mean step before max(0, .) (mbref.second_order._cw_alpha)."""
    cdef double phi2 = phi * phi
    cdef double psi = 1.0 + phi2 / 2.0
    cdef double xi = 1.0 + phi2
    return (-(m * psi) + sqrt(((m * m) * (phi2 * phi2)) / 4.0 + (v * phi2) * xi)) / (v * xi)


cdef inline int so_coef(const SOCtx* c, double m, double v, double sw, double* alpha,
                        double* beta, double* cc) noexcept nogil:
    """1 and the step (alpha, beta, c) when the rule updates on (m, v) with sample weight sw,
    else 0 (each rule as its twin's _coef)."""
    cdef double r, C, phi, phi2, n, gamma, q
    if c.rule == AROW:
        if not m < 1.0:
            return 0
        r = c.p0
        beta[0] = 1.0 / (v + r)
        alpha[0] = (1.0 - m) * beta[0]
        cc[0] = 1.0 / r
        return 1
    if c.rule == CW:
        phi = c.p0
        alpha[0] = cw_alpha(m, v, phi)
        if not alpha[0] > 0.0:
            return 0
        cw_cov(alpha[0], v, phi, beta, cc)
        return 1
    if c.rule == SCW1 or c.rule == SCW2:
        phi = c.p1
        if not phi * sqrt(v) - m > 0.0:
            return 0
        C = c.p0 * sw
        if c.rule == SCW1:
            alpha[0] = cw_alpha(m, v, phi)
            if alpha[0] > C:
                alpha[0] = C
        else:
            phi2 = phi * phi
            n = v + 1.0 / (2.0 * C)
            gamma = phi * sqrt((phi2 * (m * m)) * (v * v) + ((4.0 * n) * v) * (n + v * phi2))
            alpha[0] = (gamma - ((2.0 * m) * n + (phi2 * m) * v)) / \
                (2.0 * (n * n + (n * v) * phi2))
        if not alpha[0] > 0.0:
            return 0
        cw_cov(alpha[0], v, phi, beta, cc)
        return 1
    if c.rule == NHERD:
        if not m < 1.0:
            return 0
        C = c.p0 * sw
        alpha[0] = (1.0 - m) / (v + 1.0 / C)
        cc[0] = C * (C * v + 2.0)
        q = 1.0 + C * v
        beta[0] = cc[0] / (q * q)
        return 1
    return 0


# ---------------------------------------------------------------------------------------------
# The covariance arithmetic (mbref._covariance, in its order)
# ---------------------------------------------------------------------------------------------

cdef inline double wsumsq_row(const double* S, const floating* v, const index_t* ix,
                              Py_ssize_t n) noexcept nogil:
    """sum_j S_j x_j^2 over the row's stored values (every coordinate of a dense row), term k
    (S[j] * x_k) * x_k, in the four-partial order (mbref._arith.wsumsq); unrolled as
    _arith.pxd's dot_row."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, x0, x1, x2, x3
    cdef Py_ssize_t k, n4 = n - (n % 4)
    if ix == NULL:
        for k in range(0, n4, 4):
            x0 = v[k]
            x1 = v[k + 1]
            x2 = v[k + 2]
            x3 = v[k + 3]
            s0 += (S[k] * x0) * x0
            s1 += (S[k + 1] * x1) * x1
            s2 += (S[k + 2] * x2) * x2
            s3 += (S[k + 3] * x3) * x3
        if n4 < n:
            x0 = v[n4]
            s0 += (S[n4] * x0) * x0
        if n4 + 1 < n:
            x1 = v[n4 + 1]
            s1 += (S[n4 + 1] * x1) * x1
        if n4 + 2 < n:
            x2 = v[n4 + 2]
            s2 += (S[n4 + 2] * x2) * x2
    else:
        for k in range(0, n4, 4):
            x0 = v[k]
            x1 = v[k + 1]
            x2 = v[k + 2]
            x3 = v[k + 3]
            s0 += (S[ix[k]] * x0) * x0
            s1 += (S[ix[k + 1]] * x1) * x1
            s2 += (S[ix[k + 2]] * x2) * x2
            s3 += (S[ix[k + 3]] * x3) * x3
        if n4 < n:
            x0 = v[n4]
            s0 += (S[ix[n4]] * x0) * x0
        if n4 + 1 < n:
            x1 = v[n4 + 1]
            s1 += (S[ix[n4 + 1]] * x1) * x1
        if n4 + 2 < n:
            x2 = v[n4 + 2]
            s2 += (S[ix[n4 + 2]] * x2) * x2
    return (s0 + s1) + (s2 + s3)


cdef inline unsigned long long nonfinite_bits(double t) noexcept nogil:
    """1 when t is NaN or infinite (its exponent bits all ones), else 0: an integer test, so that
    a loop's check has no floating-point chain from one value to the next."""
    cdef unsigned long long b
    memcpy(&b, &t, sizeof(double))
    return ((b >> 52) & 0x7ff) == 0x7ff


cdef inline Py_ssize_t gather_nz(const floating* v, Py_ssize_t n, int* nz) noexcept nogil:
    """A dense row's non-zero positions into nz (n ints of scratch), in increasing order;
    their count.  Without a branch on the data (its zeros would make a branch unpredictable);
    NaN counts as non-zero (the step makes it a bad row)."""
    cdef Py_ssize_t k, m = 0
    for k in range(n):
        nz[m] = <int>k
        m += v[k] != 0.0
    return m


cdef inline unsigned long long diag_one(double* w, double* S, Py_ssize_t j, double x, double ay,
                                        double c, double floor) noexcept nogil:
    """One coordinate's diagonal update (mbref._covariance.diag_step's body): g = S_j x,
    w_j += ay g (w NULL: NAROW's, the covariance alone), S_j = max(S_j / (1 + c g x), floor);
    1 if a value became non-finite, else 0."""
    cdef double g = S[j] * x
    cdef double t
    cdef unsigned long long bad = 0
    if w != NULL:
        t = w[j] + ay * g
        w[j] = t
        bad = nonfinite_bits(t)
    t = S[j] / (1.0 + c * (g * x))
    S[j] = t if t >= floor else floor
    return bad | nonfinite_bits(t)


cdef inline int diag_step(double* w, double* S, const floating* v, const index_t* ix,
                          Py_ssize_t n, Py_ssize_t d, int intercept, double ay, double c,
                          double floor, int* nz, Py_ssize_t pre) noexcept nogil:
    """The diagonal update of every non-zero value in the row's order, then the intercept's
    (mbref._covariance.diag_step); 0 if a value became non-finite.  A dense row: with AVX2,
    four values at a time, its zeros' coordinates left as they were (_so_simd.h), over the
    blocks of four that the score's loop listed in nz (pre: their count) or, with pre = -1,
    over every block; without AVX2, its non-zero positions gathered into nz (gather_nz)."""
    cdef Py_ssize_t q, j, m, n4 = n - (n % 4)
    cdef double x
    cdef unsigned long long bad = 0
    cdef int simd = -1
    if ix == NULL:      # four values at a time (_so_simd.h: AVX2): the blocks the score listed
        if floating is double:
            simd = mb_so_step_d(w, S, v, nz if pre >= 0 else NULL, pre if pre >= 0 else n4 // 4,
                                ay, c, floor)
        else:
            simd = mb_so_step_f(w, S, v, nz if pre >= 0 else NULL, pre if pre >= 0 else n4 // 4,
                                ay, c, floor)
    elif ix != NULL:
        if floating is double:
            if index_t is int:
                simd = mb_so_cstep_di(w, S, v, ix, n4, ay, c, floor)
            else:
                simd = mb_so_cstep_dl(w, S, v, ix, n4, ay, c, floor)
        else:
            if index_t is int:
                simd = mb_so_cstep_fi(w, S, v, ix, n4, ay, c, floor)
            else:
                simd = mb_so_cstep_fl(w, S, v, ix, n4, ay, c, floor)
    if simd >= 0:
        bad = <unsigned long long>simd
        for q in range(n4, n):
            x = <double>v[q]
            if x != 0.0:
                bad |= diag_one(w, S, q if ix == NULL else ix[q], x, ay, c, floor)
    elif ix == NULL:
        m = gather_nz(v, n, nz)
        for q in range(m):
            j = nz[q]
            bad |= diag_one(w, S, j, <double>v[j], ay, c, floor)
    else:
        for q in range(n):
            x = <double>v[q]
            if x != 0.0:
                bad |= diag_one(w, S, ix[q], x, ay, c, floor)
    if intercept:
        bad |= diag_one(w, S, d, 1.0, ay, c, floor)
    return bad == 0


cdef inline double diag_v(const SOCtx* c, const double* S, const floating* v,
                          const index_t* ix, Py_ssize_t n) noexcept nogil:
    cdef double s = wsumsq_row(S, v, ix, n)
    if c.intercept:
        s = s + S[c.d]
    return s


cdef inline double dot_nz(const double* w, const floating* v, const int* nz,
                          Py_ssize_t m) noexcept nogil:
    """w . x for a dense row x whose non-zero positions are nz[0..m): term j into the partial
    sum j & 3, as dot_row's dense loop puts it; the zeros' products (+-0.0, w finite) change no
    partial sum, so the result is dot_row's, bit for bit."""
    cdef double s[4]
    cdef Py_ssize_t q
    cdef int j
    s[:] = [0.0, 0.0, 0.0, 0.0]
    for q in range(m):
        j = nz[q]
        s[j & 3] += w[j] * <double>v[j]
    return (s[0] + s[1]) + (s[2] + s[3])


cdef inline double full_uv(const SOCtx* c, const floating* v, const index_t* ix,
                           Py_ssize_t n) noexcept nogil:
    """u = Sigma x' row by row into c.u, and v = u . x' (mbref._covariance.full_u, full_v).
    A dense row's products run over its non-zero values only (dot_nz: the same sums)."""
    cdef Py_ssize_t i, m = 0, D = c.D
    cdef double s
    if ix == NULL:
        m = gather_nz(v, n, c.nz)
    for i in range(D):
        if ix == NULL:
            s = dot_nz(c.S + i * D, v, c.nz, m)
        else:
            s = dot_row(c.S + i * D, v, ix, n)
        if c.intercept:
            s = s + c.S[i * D + c.d]
        c.u[i] = s
    if ix == NULL:
        s = dot_nz(c.u, v, c.nz, m)
    else:
        s = dot_row(c.u, v, ix, n)
    if c.intercept:
        s = s + c.u[c.d]
    return s


cdef inline int full_downdate(SOCtx* c, double beta) noexcept nogil:
    """Sigma -= beta u u^T, both triangles from one expression, u = c.u
    (mbref._covariance.full_downdate: for i <= j, t = S[i][j] - (beta * u[i]) * u[j] is
    written to S[i][j] and S[j][i]); 0 if a value became non-finite."""
    cdef Py_ssize_t i, j, D = c.D
    cdef double bi, t
    cdef double* S = c.S
    cdef const double* u = c.u
    cdef int ok = 1
    for i in range(D):
        bi = beta * u[i]
        for j in range(i, D):
            t = S[i * D + j] - bi * u[j]
            S[i * D + j] = t
            S[j * D + i] = t
            if not isfinite(t):     # (a branch never taken: cheaper here than a check chain)
                ok = 0
    return ok


cdef inline int full_step(SOCtx* c, double ay, double beta) noexcept nogil:
    """w += ay u; Sigma -= beta u u^T (mbref._covariance.full_step); 0 if a value became
    non-finite."""
    cdef Py_ssize_t i
    cdef double t
    cdef int ok = 1
    for i in range(c.D):
        t = c.w[i] + ay * c.u[i]
        c.w[i] = t
        if not isfinite(t):
            ok = 0
    return full_downdate(c, beta) and ok


# ---------------------------------------------------------------------------------------------
# A row's score and confidence
# ---------------------------------------------------------------------------------------------

cdef inline double score_of(const SOCtx* c, const double* w, const floating* v,
                            const index_t* ix, Py_ssize_t n) noexcept nogil:
    """s = 1.0 * (w . x) (+ w[d]): the linear learners' raw score with scale 1."""
    cdef double s = 1.0 * dot_row(w, v, ix, n)
    if c.intercept:
        s = s + w[c.d]
    return s


cdef inline double score_conf(const SOCtx* c, const floating* v, const index_t* ix,
                              Py_ssize_t n, double* conf) noexcept nogil:
    """score_of and diag_v of a CSR row in one pass over it (the diagonal rules): the same
    two four-partial sums, each term into the same partial in the same order, so both are the
    separate loops' values bit for bit; *conf = v, returns s.  (Four terms at a time in AVX2,
    the values fetched one by one into the vectors, was 10 % slower on a9a.)"""
    cdef double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0
    cdef double b0 = 0.0, b1 = 0.0, b2 = 0.0, b3 = 0.0
    cdef double x0, x1, x2, x3, s, q
    cdef const double* w = c.w
    cdef const double* S = c.S
    cdef Py_ssize_t k, j0, j1, j2, j3, n4 = n - (n % 4)
    for k in range(0, n4, 4):
        j0, j1, j2, j3 = ix[k], ix[k + 1], ix[k + 2], ix[k + 3]
        x0 = v[k]
        x1 = v[k + 1]
        x2 = v[k + 2]
        x3 = v[k + 3]
        a0 += w[j0] * x0
        a1 += w[j1] * x1
        a2 += w[j2] * x2
        a3 += w[j3] * x3
        b0 += (S[j0] * x0) * x0
        b1 += (S[j1] * x1) * x1
        b2 += (S[j2] * x2) * x2
        b3 += (S[j3] * x3) * x3
    for k in range(n4, n):
        j0 = ix[k]
        x0 = v[k]
        if k == n4:
            a0 += w[j0] * x0
            b0 += (S[j0] * x0) * x0
        elif k == n4 + 1:
            a1 += w[j0] * x0
            b1 += (S[j0] * x0) * x0
        else:
            a2 += w[j0] * x0
            b2 += (S[j0] * x0) * x0
    s = 1.0 * ((a0 + a1) + (a2 + a3))
    q = (b0 + b1) + (b2 + b3)
    if c.intercept:
        s = s + w[c.d]
        q = q + S[c.d]
    conf[0] = q
    return s


cdef inline double score_conf_dense(SOCtx* c, const floating* v, Py_ssize_t n,
                                    double* conf) noexcept nogil:
    """score_conf of a dense row: the two sums side by side in vectors (_so_simd.h: AVX2,
    where the CPU has it), the same values bit for bit, the blocks of four values that hold a
    non-zero one listed in c.nz for the step (c.nzm of them); elsewhere the two scalar loops
    (score_of, diag_v), which the compiler vectorises one at a time (c.nzm = -1)."""
    cdef double a[4]
    cdef double b[4]
    cdef double x, s, q
    cdef Py_ssize_t k, n4 = n - (n % 4)
    if floating is double:
        c.nzm = mb_so_sc_d(c.w, c.S, v, n4, a, b, c.nz)
    else:
        c.nzm = mb_so_sc_f(c.w, c.S, v, n4, a, b, c.nz)
    if c.nzm < 0:
        conf[0] = diag_v(c, c.S, v, <const int*>NULL, n)
        return score_of(c, c.w, v, <const int*>NULL, n)
    for k in range(n4, n):          # the tail into the partial sums 0, 1, 2, as dot_row's
        x = <double>v[k]
        a[k - n4] += c.w[k] * x
        b[k - n4] += (c.S[k] * x) * x
    s = 1.0 * ((a[0] + a[1]) + (a[2] + a[3]))
    q = (b[0] + b[1]) + (b[2] + b[3])
    if c.intercept:
        s = s + c.w[c.d]
        q = q + c.S[c.d]
    conf[0] = q
    return s


cdef inline double diag_score_conf(SOCtx* c, const floating* v, const index_t* ix,
                                   Py_ssize_t n, double* conf) noexcept nogil:
    """A row's score and diagonal confidence (score_of, diag_v: *conf) for the diagonal
    rules, in one pass over the row (score_conf, score_conf_dense: the same values bit for
    bit), with what the row's step may use (c.nz, c.nzm)."""
    if ix == NULL:
        return score_conf_dense(c, v, n, conf)
    c.nzm = -1
    return score_conf(c, v, ix, n, conf)
