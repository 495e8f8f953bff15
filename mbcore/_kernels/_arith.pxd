# cython: language_level=3
"""The arithmetic contract of the additive kernels (``mbref._arith``'s, in one compiled place).

Cimported by each additive kernel module (linear, multiclass, kernel, checks): the fused value
and index types, the rule codes and their ``Params``, and the inline sums of a row (four
interleaved partial sums, no fused multiply-add: setup.py builds with ``-ffp-contract=off``), so
that every module rounds exactly like the pure-Python twin.  Only inline functions, types and
constants: nothing here exists at run time as a module of its own.
"""

from libc.math cimport sqrt, isfinite, fabs, INFINITY, NAN

ctypedef fused floating:
    float
    double

ctypedef fused index_t:
    int
    long long

# The rule codes.  Every branch on p.algo names its codes, and a code no branch names is an error
# (a constructor refuses it; a step or judge that meets one reports a bad row): a new rule can
# never fall through into another rule's arithmetic.
cdef enum:
    PERCEPTRON = 0
    MARGIN = 1
    HINGE = 2
    PA = 3              # Passive-Aggressive (its step: C and pa_lam)
    N_RULES = 4         # (one past the last code)


cdef struct Params:
    # One field per meaning; a rule reads only its own.
    int algo
    int tie_pos
    int normalize
    int intercept
    int average         # keep the averaging accumulator (AveragedPerceptron)
    int pegasos         # Hinge: Pegasos' step 1/(lam t)
    double eta          # Perceptron, Hinge: the step size
    double thr          # Margin Perceptron: the margin threshold
    double lam          # Hinge: the L2 regularisation
    double C            # Passive-Aggressive: the cap on the step (PA-I's C; inf otherwise)
    double pa_lam       # Passive-Aggressive: the term added to ||x||^2 (PA-II's 1/(2C); else 0)


cdef extern from *:
    """
    /* 2**-1000: below it ||x||^2 is rescaled (row_inv); the Pegasos scale's floor */
    #define MB_NORM_LOW 9.332636185032189e-302
    #define MB_PEGASOS_RESCALE 1e-9
    """
    const double NORM_LOW "MB_NORM_LOW"
    const double PEGASOS_RESCALE "MB_PEGASOS_RESCALE"


cdef extern from "_gather.h" nogil:
    double mb_gdot_d_i(const double* w, const double* v, const int* ix, Py_ssize_t n)
    double mb_gdot_d_l(const double* w, const double* v, const long long* ix, Py_ssize_t n)
    double mb_gdot_f_i(const double* w, const float* v, const int* ix, Py_ssize_t n)
    double mb_gdot_f_l(const double* w, const float* v, const long long* ix, Py_ssize_t n)
    int mb_gather_choose(int want)
    int mb_gather_dispatches()
    int mb_gather_on
    void mb_prefetch_bytes(const void* p, Py_ssize_t nbytes)


cdef inline double dot_row(const double* w, const floating* v, const index_t* ix,
                           Py_ssize_t n) noexcept nogil:
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef Py_ssize_t k, n4 = n - (n % 4)
    if ix == NULL:
        for k in range(0, n4, 4):
            s0 += w[k] * v[k]
            s1 += w[k + 1] * v[k + 1]
            s2 += w[k + 2] * v[k + 2]
            s3 += w[k + 3] * v[k + 3]
        if n4 < n:
            s0 += w[n4] * v[n4]
        if n4 + 1 < n:
            s1 += w[n4 + 1] * v[n4 + 1]
        if n4 + 2 < n:
            s2 += w[n4 + 2] * v[n4 + 2]
    else:
        if mb_gather_on > 0:
            # _gather.h: the same sums, four weights per AVX2 gather (where chosen: on some
            # CPUs the gather is slower than four loads, see gather_impl)
            if floating is double:
                if index_t is int:
                    return mb_gdot_d_i(w, v, ix, n)
                else:
                    return mb_gdot_d_l(w, v, ix, n)
            else:
                if index_t is int:
                    return mb_gdot_f_i(w, v, ix, n)
                else:
                    return mb_gdot_f_l(w, v, ix, n)
        for k in range(0, n4, 4):
            s0 += w[ix[k]] * v[k]
            s1 += w[ix[k + 1]] * v[k + 1]
            s2 += w[ix[k + 2]] * v[k + 2]
            s3 += w[ix[k + 3]] * v[k + 3]
        if n4 < n:
            s0 += w[ix[n4]] * v[n4]
        if n4 + 1 < n:
            s1 += w[ix[n4 + 1]] * v[n4 + 1]
        if n4 + 2 < n:
            s2 += w[ix[n4 + 2]] * v[n4 + 2]
    return (s0 + s1) + (s2 + s3)


cdef inline double sumsq_vals(const floating* v, Py_ssize_t n) noexcept nogil:
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, a0, a1, a2, a3
    cdef Py_ssize_t k, n4 = n - (n % 4)
    for k in range(0, n4, 4):
        a0 = v[k]
        a1 = v[k + 1]
        a2 = v[k + 2]
        a3 = v[k + 3]
        s0 += a0 * a0
        s1 += a1 * a1
        s2 += a2 * a2
        s3 += a3 * a3
    if n4 < n:
        a0 = v[n4]
        s0 += a0 * a0
    if n4 + 1 < n:
        a1 = v[n4 + 1]
        s1 += a1 * a1
    if n4 + 2 < n:
        a2 = v[n4 + 2]
        s2 += a2 * a2
    return (s0 + s1) + (s2 + s3)


cdef inline double row_inv_scaled(const floating* v, Py_ssize_t n, int intercept) noexcept nogil:
    """row_inv when ||x||^2 overflows or underflows: divide by the largest magnitude first."""
    cdef double m = 0.0, a, s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, ss, t
    cdef Py_ssize_t k
    for k in range(n):
        a = fabs(v[k])
        if not a <= m:
            m = a
    if intercept and m < 1.0:
        m = 1.0
    if m == 0.0:
        return 0.0
    if not m < INFINITY:
        return NAN
    for k in range(n):
        a = v[k] / m
        if k % 4 == 0:
            s0 += a * a
        elif k % 4 == 1:
            s1 += a * a
        elif k % 4 == 2:
            s2 += a * a
        else:
            s3 += a * a
    ss = (s0 + s1) + (s2 + s3)
    if intercept:
        t = 1.0 / m
        ss = ss + t * t
    return 1.0 / (m * sqrt(ss))


cdef inline int axpy_row(double* w, double c, const floating* v, const index_t* ix,
                         Py_ssize_t n) noexcept nogil:
    """w[j] += c * x[j] over the row's support; returns 0 if a weight became non-finite.
    (t - t is 0 for a finite t and NaN otherwise; the four check sums keep their adds from
    waiting on one another.)"""
    cdef Py_ssize_t k, n4 = n - (n % 4)
    cdef double c0 = 0.0, c1 = 0.0, c2 = 0.0, c3 = 0.0, t0, t1, t2, t3
    if ix == NULL:
        for k in range(0, n4, 4):
            t0 = w[k] + c * v[k]
            t1 = w[k + 1] + c * v[k + 1]
            t2 = w[k + 2] + c * v[k + 2]
            t3 = w[k + 3] + c * v[k + 3]
            w[k] = t0
            w[k + 1] = t1
            w[k + 2] = t2
            w[k + 3] = t3
            c0 += t0 - t0
            c1 += t1 - t1
            c2 += t2 - t2
            c3 += t3 - t3
        for k in range(n4, n):
            t0 = w[k] + c * v[k]
            w[k] = t0
            c0 += t0 - t0
    else:
        for k in range(0, n4, 4):
            t0 = w[ix[k]] + c * v[k]
            w[ix[k]] = t0
            t1 = w[ix[k + 1]] + c * v[k + 1]
            w[ix[k + 1]] = t1
            t2 = w[ix[k + 2]] + c * v[k + 2]
            w[ix[k + 2]] = t2
            t3 = w[ix[k + 3]] + c * v[k + 3]
            w[ix[k + 3]] = t3
            c0 += t0 - t0
            c1 += t1 - t1
            c2 += t2 - t2
            c3 += t3 - t3
        for k in range(n4, n):
            t0 = w[ix[k]] + c * v[k]
            w[ix[k]] = t0
            c0 += t0 - t0
    return (c0 + c1) + (c2 + c3) == 0.0


cdef inline double sqnorm_w(const double* w, Py_ssize_t d, int intercept) noexcept nogil:
    cdef double sq = sumsq_vals(w, d)
    if intercept:
        sq = sq + w[d] * w[d]
    return sq


cdef inline double row_inv(const Params* p, const floating* v, Py_ssize_t n) noexcept nogil:
    """1/||x'|| with x' = x, or (x, 1) with an intercept (mbref._arith.row_inv)."""
    cdef double ss = sumsq_vals(v, n)
    if p.intercept:
        ss = ss + 1.0
    if NORM_LOW <= ss and ss < INFINITY:
        return 1.0 / sqrt(ss)
    return row_inv_scaled(v, n, p.intercept)


cdef inline double raw_score(const Params* p, const double* w, double a, Py_ssize_t d,
                             const floating* v, const index_t* ix, Py_ssize_t n,
                             double inv) noexcept nogil:
    cdef double s = a * dot_row(w, v, ix, n)
    if p.intercept:
        s = s + w[d]
    if p.normalize:
        s = s * inv
    return s


cdef inline int sign_of(double s, int tie_pos) noexcept nogil:
    if s > 0.0 or (s == 0.0 and tie_pos):
        return 1
    return -1


cdef inline double row_sqnorm(const Params* p, const floating* v, Py_ssize_t n) noexcept nogil:
    """||x'||^2 of the row x' = x, or (x, 1) with an intercept (mbref._arith.sumsq)."""
    cdef double sq = sumsq_vals(v, n)
    if p.intercept:
        sq = sq + 1.0
    return sq


# The step size of a rule, shared by the binary (linear) and the K-class (multiclass) passes.

cdef inline double pa_step_size(const Params* p, double loss, double sq,
                                double sw) noexcept nogil:
    """Passive-Aggressive's step tau = min(C, loss / (||z||^2 + pa_lam)) for a row z of squared
    norm sq (p.C and p.pa_lam; PA: C = inf, pa_lam = 0; PA-I: pa_lam = 0; PA-II: C = inf,
    pa_lam = 1/(2C)); 0 when the denominator is 0 (a zero row: PA and PA-I skip it) or
    infinite.  A row of sample weight sw > 0 has the aggressiveness C * sw (its loss weighs sw
    times in the PA-I/PA-II objective): the cap C * sw and pa_lam / sw = 1/(2 C sw); sw = 1
    leaves both as they are, exactly."""
    cdef double den = sq + p.pa_lam / sw, tau
    if not (den > 0.0 and den < INFINITY):
        return 0.0
    tau = loss / den
    if tau > p.C * sw:
        tau = p.C * sw
    return tau


cdef inline check_rule(int algo):
    if not 0 <= algo < N_RULES:
        raise ValueError(f"unknown rule code {algo} (0..{N_RULES - 1})")


cdef inline Params make_lin_params(int algo, bint tie_pos, bint normalize, bint intercept,
                                  bint average, bint pegasos, double eta, double thr,
                                  double lam, double C, double pa_lam) noexcept:
    cdef Params p
    p.algo = algo
    p.tie_pos = tie_pos
    p.normalize = normalize
    p.intercept = intercept
    p.average = average
    p.pegasos = pegasos
    p.eta = eta
    p.thr = thr
    p.lam = lam
    p.C = C
    p.pa_lam = pa_lam
    return p
