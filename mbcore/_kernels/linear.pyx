# cython: language_level=3
"""Compiled kernels of the additive family (Perceptron, Margin, Averaged/Voted, Hinge,
Passive-Aggressive, Kernel).

Each entry point runs a whole pass over a batch with the GIL released.  The arithmetic follows the
contract written in ``mbref._arith`` (four interleaved partial sums, no fused multiply-add), so that
the pure-Python twin reproduces every prediction and update bit for bit.

A pass is all or nothing: the state is saved at the start of the call and restored if a row fails
(a non-finite score, which is how NaN/inf in X shows up, or a weight that overflows).  The Python
layer then raises with the row index.
"""

from libc.math cimport sqrt, exp, isfinite, fabs, ldexp, INFINITY, NAN
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

import numpy as np

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
    PA = 3              # Passive-Aggressive: eta is the step's cap C (PA-I; else inf), lam
                        # the term added to ||x||^2 (PA-II: 1/(2C); else 0)
    N_RULES = 4         # (one past the last code)

# status codes returned to Python
cdef enum:
    OK = 0
    BAD_ROW = 1
    NEED_ROOM = 2
    BAD_INDEX = 3       # a CSR column index out of [0, d) (csr_check's code 1)
    BAD_ORDER = 4       # unsorted or duplicate CSR column indices (csr_check's code 2)
    BAD_SHAPE = 5       # a batch whose width or length the call did not check (lin_predict_few)


from ._spec cimport (MB_SPEC_MAXT, mb_spec_pass, mb_touch_fn, spec_tuning_impl, touch_rows,
                    volatile_load, store_release, load_acquire,
                    atomic_add)
from ._spec cimport (mb_split, mb_split_new, mb_split_free, mb_split_serving, mb_split_row,
                     mb_spec_pass_split)


cdef extern from "_gather.h" nogil:
    double mb_gdot_d_i(const double* w, const double* v, const int* ix, Py_ssize_t n)
    double mb_gdot_d_l(const double* w, const double* v, const long long* ix, Py_ssize_t n)
    double mb_gdot_f_i(const double* w, const float* v, const int* ix, Py_ssize_t n)
    double mb_gdot_f_l(const double* w, const float* v, const long long* ix, Py_ssize_t n)
    int mb_gather_choose(int want)
    int mb_gather_dispatches()
    int mb_gather_on
    void mb_prefetch_bytes(const void* p, Py_ssize_t nbytes)

_GATHER = mb_gather_choose(-1)


def gather_impl(kind=None):
    """Which loop sums a sparse row's products: "scalar" (the default) or "avx2" (four weights
    per gather instruction); both give the same sums bit for bit.  ``kind`` ("avx2", "scalar"
    or "best", the default) switches them, for tests and benchmarks (not thread-safe: set it
    before the passes); "avx2" on a CPU without AVX2 gives "scalar".  "best" is the scalar
    loop: on the AMD Zen 3 where it was measured the gathers were slower."""
    global _GATHER
    if kind is not None:
        if kind not in ("avx2", "scalar", "best"):
            raise ValueError(f"gather_impl: kind must be 'avx2', 'scalar' or 'best', "
                             f"got {kind!r}")
        _GATHER = mb_gather_choose({"avx2": 1, "scalar": 0, "best": -1}[kind])
    return "avx2" if _GATHER else "scalar"


cdef Py_ssize_t readahead_checked = 0


def readahead_checked_rows():
    """How many CSR rows of the binary passes have had their column indices checked by the
    read-ahead thread rather than by the pass itself, since the module was loaded (for tests:
    it shows that the read-ahead's checks ran)."""
    return readahead_checked


def gather_dispatches():
    """True where the AVX2 gather can be chosen at run time (GCC or Clang on x86)."""
    return bool(mb_gather_dispatches())


def spec_tuning(seq_gap=None, min_rows=None, max_rows=None, stretch=None):
    """This module's block sizes (see _spec.pxd): the old (seq_gap, min_rows, max_rows,
    stretch); the arguments that are not None replace them."""
    return spec_tuning_impl(seq_gap, min_rows, max_rows, stretch)

cdef double PEGASOS_RESCALE = 1e-9
# Dense rows are asked into the caches about PF_BYTES ahead of the one being read (whole rows,
# at least one; 0: not at all): one core then streams X faster than with the hardware's
# prefetcher alone (the sequential pass 1.25x faster on 200,000 x 100 float64 rows, prediction
# 1.5x: bench/README.md, issue 27).
cdef Py_ssize_t PF_BYTES = 12288


def dense_prefetch(nbytes=None):
    """How far ahead (in bytes, whole rows, at least one) the dense passes and scores ask for
    rows to be brought into the caches (0: off); ``nbytes`` sets it, for benchmarks (not
    thread-safe: set it before the passes).  The results do not depend on it."""
    global PF_BYTES
    old = PF_BYTES
    if nbytes is not None:
        if not isinstance(nbytes, int) or not 0 <= nbytes <= 1 << 24:
            raise ValueError(f"dense_prefetch: nbytes must be an int in [0, 2**24], "
                             f"got {nbytes!r}")
        PF_BYTES = nbytes
    return old


cdef inline Py_ssize_t pf_rows(Py_ssize_t row_bytes) noexcept nogil:
    """How many dense rows of row_bytes ahead to prefetch (0: none)."""
    if PF_BYTES == 0 or row_bytes <= 0:
        return 0
    if row_bytes >= PF_BYTES:
        return 1
    return PF_BYTES // row_bytes


cdef struct Params:
    int algo
    int tie_pos
    int normalize
    int intercept
    int average
    int pegasos
    double eta
    double thr
    double lam


# ---------------------------------------------------------------------------------------------
# The arithmetic contract (see mbref._arith)
# ---------------------------------------------------------------------------------------------

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


cdef double NORM_LOW = ldexp(1.0, -1000)


cdef double row_inv_scaled(const floating* v, Py_ssize_t n, int intercept) noexcept nogil:
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


# ---------------------------------------------------------------------------------------------
# Rows: dense rows are (val + i * row_len, row_len); CSR rows are told apart by a non-NULL indptr
# ---------------------------------------------------------------------------------------------

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


cdef const double* weights_ptr(const double[::1] sw, Py_ssize_t n_rows) except? NULL:
    """The sample weights of n_rows rows, or NULL for None (no weights: the unweighted
    pass, unchanged).  Their values (finite, >= 0) are the caller's to check."""
    if sw is None:
        return NULL
    if sw.shape[0] != n_rows:
        raise ValueError(f"sample weights: {sw.shape[0]} values for {n_rows} rows")
    if n_rows == 0:
        return NULL
    return &sw[0]


# ---------------------------------------------------------------------------------------------
# One online step of the linear learners
# ---------------------------------------------------------------------------------------------

cdef inline int apply_update(const Params* p, double* w, Py_ssize_t d, double c,
                             const floating* v, const index_t* ix, Py_ssize_t n) noexcept nogil:
    cdef int ok = axpy_row(w, c, v, ix, n)
    cdef double t
    if p.intercept:
        t = w[d] + c
        w[d] = t
        ok = ok and isfinite(t)
    return ok


cdef inline int lin_judge(const Params* p, const double* w, const double* aux, Py_ssize_t d,
                          const floating* v, const index_t* ix, Py_ssize_t n, int y, int* pred,
                          double* inv_out, double* s_out, double* m_out) noexcept nogil:
    """The prediction for a row, with no state change: -1 for a bad row (a non-finite score),
    else 1 if the row changes the state of the Perceptron or the Margin Perceptron (a mistake,
    or a margin mistake), else 0.  lin_step acts on it; the speculative scans (lin_scan) call
    it alone, so both judge a row by the same arithmetic."""
    cdef double inv = 1.0, s, m, nw
    cdef int pr
    if p.normalize:
        inv = row_inv(p, v, n)
    s = raw_score(p, w, aux[0], d, v, ix, n, inv)
    if not isfinite(s):
        return -1
    if p.algo == MARGIN:
        nw = sqrt(aux[1])
        m = s / nw if nw > 0.0 else 0.0
    else:
        m = s
    pr = sign_of(m, p.tie_pos)
    pred[0] = pr
    inv_out[0] = inv
    s_out[0] = s
    m_out[0] = m
    if p.algo == MARGIN:
        return pr != y or (-p.thr < m and m < p.thr)
    if p.algo == PERCEPTRON or p.algo == HINGE:     # (the Hinge pass never speculates)
        return pr != y
    if p.algo == PA:                                # a positive hinge loss
        return (<double>y) * s < 1.0
    return -1


cdef inline double pa_step_size(const Params* p, double loss, double sq,
                                double sw) noexcept nogil:
    """Passive-Aggressive's step tau = min(C, loss / (||z||^2 + lam)) for a row z of squared
    norm sq (PA: C = inf, lam = 0; PA-I: lam = 0; PA-II: C = inf, lam = 1/(2C)); 0 when the
    denominator is 0 (a zero row: PA and PA-I skip it) or infinite.  A row of sample weight
    sw > 0 has the aggressiveness C * sw (its loss weighs sw times in the PA-I/PA-II objective):
    the cap C * sw and lam / sw = 1/(2 C sw); sw = 1 leaves both as they are, exactly."""
    cdef double den = sq + p.lam / sw, tau
    if not (den > 0.0 and den < INFINITY):
        return 0.0
    tau = loss / den
    if tau > p.eta * sw:
        tau = p.eta * sw
    return tau


cdef inline double row_sqnorm(const Params* p, const floating* v, Py_ssize_t n) noexcept nogil:
    """||x'||^2 of the row x' = x, or (x, 1) with an intercept (mbref._arith.sumsq)."""
    cdef double sq = sumsq_vals(v, n)
    if p.intercept:
        sq = sq + 1.0
    return sq


cdef inline int lin_step(const Params* p, double* w, double* u, double* aux, Py_ssize_t d,
                         const floating* v, const index_t* ix, Py_ssize_t n, int y,
                         long long t, double sw, int* pred) noexcept nogil:
    """Predict, then update.  Returns -1 on a bad row, else 1 if the state changed, else 0.

    sw: the row's sample weight (1.0 without weights); the rule's coefficient is multiplied
    by it last (c * 1.0 == c exactly), and a row of weight 0 is predicted but never updates
    (the Hinge learner's shrink, which is not the row's, still applies)."""
    cdef double inv = 1.0, s = 0.0, m = 0.0, c, a, factor, eta_t, ca, yd = y
    cdef int upd = 0, change
    cdef Py_ssize_t j
    change = lin_judge(p, w, aux, d, v, ix, n, y, pred, &inv, &s, &m)
    if change < 0:
        return -1
    if sw == 0.0 and p.algo != HINGE:
        return 0
    if p.algo == PERCEPTRON:
        if change:
            c = p.eta * yd
            if p.normalize:
                c = c * inv
            c = c * sw
            if not apply_update(p, w, d, c, v, ix, n):
                return -1
            if p.average:
                if not apply_update(p, u, d, (<double>t) * c, v, ix, n):
                    return -1
            upd = 1
    elif p.algo == MARGIN:
        if change:
            c = (yd * inv) * sw
            if not apply_update(p, w, d, c, v, ix, n):
                return -1
            aux[1] = sqnorm_w(w, d, p.intercept)
            if not isfinite(aux[1]):
                return -1
            upd = 1
    elif p.algo == PA:
        if change:
            c = pa_step_size(p, 1.0 - yd * s, row_sqnorm(p, v, n), sw) * yd
            if c != 0.0:
                if not apply_update(p, w, d, c, v, ix, n):
                    return -1
                upd = 1
    elif p.algo == HINGE:
        upd = yd * s < 1.0 and sw != 0.0
        if p.pegasos:
            eta_t = 1.0 / (p.lam * <double>t)
            factor = 1.0 - 1.0 / <double>t
        else:
            eta_t = p.eta
            factor = 1.0 - p.eta * p.lam
        a = aux[0] * factor
        if a == 0.0:
            memset(w, 0, d * sizeof(double))
            a = 1.0
        elif a < PEGASOS_RESCALE:
            for j in range(d):
                w[j] = w[j] * a
            a = 1.0
        aux[0] = a
        if upd:
            c = eta_t * yd
            if p.normalize:
                c = c * inv
            c = c * sw
            ca = c / a
            if not axpy_row(w, ca, v, ix, n):
                return -1
            if p.intercept:
                w[d] = w[d] + c
                if not isfinite(w[d]):
                    return -1
    else:
        return -1
    return upd


cdef check_rule(int algo):
    if not 0 <= algo < N_RULES:
        raise ValueError(f"unknown rule code {algo} (0..{N_RULES - 1})")


cdef Params make_lin_params(int algo, bint tie_pos, bint normalize, bint intercept,
                           bint average, bint pegasos, double eta, double thr,
                           double lam) noexcept:
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
    return p


cdef struct LinCtx:
    Params p
    double* w
    double* u
    double* aux
    double* snap_w
    double* snap_u
    long long* counts
    Py_ssize_t d
    Py_ssize_t D


cdef class LinearState:
    """Binds a linear learner's NumPy state arrays and parameters for the kernels.

    ``w`` (length d, plus the intercept at index d), ``u`` (averaging accumulator, same length, or
    length 0), ``aux`` = [scale a, ||w||^2], ``counts`` = [n_seen, mistakes, updates] (int64).
    """
    cdef double[::1] w, u, aux, snap_w, snap_u
    cdef long long[::1] counts
    cdef Params p
    cdef Py_ssize_t d

    def __init__(self, double[::1] w not None, double[::1] u not None, double[::1] aux not None,
                 long long[::1] counts not None, Py_ssize_t d, int algo, bint tie_pos,
                 bint normalize, bint intercept, bint average, bint pegasos, double eta,
                 double thr, double lam):
        check_rule(algo)
        self.w = w
        self.u = u
        self.aux = aux
        self.counts = counts
        self.d = d
        self.snap_w = np.empty(w.shape[0], dtype=np.float64)
        self.snap_u = np.empty(max(u.shape[0], 1), dtype=np.float64)
        self.p = make_lin_params(algo, tie_pos, normalize, intercept, average, pegasos, eta,
                                 thr, lam)

    cdef LinCtx ctx(self):
        cdef LinCtx c
        c.p = self.p
        c.w = &self.w[0]
        c.u = &self.u[0] if self.u.shape[0] > 0 else NULL
        c.aux = &self.aux[0]
        c.snap_w = &self.snap_w[0]
        c.snap_u = &self.snap_u[0]
        c.counts = &self.counts[0]
        c.d = self.d
        c.D = self.w.shape[0]
        return c


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


cdef Py_ssize_t csr_rows_ok(const index_t* ix, const index_t* indptr, Py_ssize_t lo,
                            Py_ssize_t hi, Py_ssize_t d) noexcept nogil:
    """The first of rows lo..hi-1 whose column indices csr_row_ok refuses, or hi."""
    cdef Py_ssize_t i
    for i in range(lo, hi):
        if csr_row_ok(ix + indptr[i], indptr[i + 1] - indptr[i], d) != OK:
            return i
    return hi


cdef struct LinJob:
    # One pass of a binary linear learner, for mb_spec_pass: the rows (values, indices and
    # indptr as void pointers, their types in vt and it), the labels and outputs, and the
    # counters of the pass.
    LinCtx* st
    const void* val
    const void* ix
    const void* indptr
    Py_ssize_t row_len
    Py_ssize_t n_rows           # the rows of the pass (the prefetch stops at the last)
    Py_ssize_t pf               # dense rows: prefetch this many rows ahead (0: none)
    const signed char* y
    signed char* pred
    unsigned char* upd
    const double* sw            # the rows' sample weights, or NULL (no weights: all 1)
    long long n_seen            # before the pass (row i is example n_seen + i + 1)
    long long mistakes          # during the pass
    int check                   # check each CSR row's indices as it is read
    # rows ck_lo..ck_hi-1: their indices checked by the read-ahead (lin_touch_cb) on another
    # thread, so the pass need not check them again (published with store_release)
    Py_ssize_t ck_lo
    Py_ssize_t ck_hi
    Py_ssize_t ck_rows          # rows the read-ahead checked (written by the worker only)
    int vt                      # values: 0 float32, 1 float64
    int it                      # indices: 0 int32, 1 int64
    int err                     # the status of the failing row


cdef Py_ssize_t lin_run_plain(LinJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                              const floating* val, const index_t* ix) noexcept nogil:
    """lin_run for the plain Perceptron (no normalization, averaging or weights): the same
    arithmetic, with every setting read once into a local (the stores of the outputs, char
    arrays, would otherwise make the compiler read them again after every row)."""
    cdef LinCtx* st = j.st
    cdef double* w = st.w
    cdef Py_ssize_t d = st.d, i, n, a
    cdef const index_t* indptr = <const index_t*>j.indptr
    cdef const signed char* y = j.y
    cdef signed char* pred = j.pred
    cdef unsigned char* upd = j.upd
    cdef Py_ssize_t row_len = j.row_len
    cdef bint check = j.check, intercept = st.p.intercept, tie_pos = st.p.tie_pos
    cdef double eta = st.p.eta, sc
    cdef long long mistakes = 0, changed = 0
    cdef int r, code, pr, yi
    cdef const floating* x
    cdef const index_t* xi
    cdef Py_ssize_t ck_hi = load_acquire(&j.ck_hi), ck_lo = load_acquire(&j.ck_lo)
    for i in range(lo, hi):
        if indptr == NULL:
            x = val + i * row_len
            xi = NULL
            n = row_len
            if j.pf and i + j.pf < j.n_rows:
                mb_prefetch_bytes(x + j.pf * row_len, row_len * sizeof(floating))
        else:
            a = indptr[i]
            n = indptr[i + 1] - a
            x = val + a
            xi = ix + a
            if check and not (ck_lo <= i < ck_hi):
                code = csr_row_ok(xi, n, d)
                if code != OK:
                    j.err = code
                    bad[0] = i
                    return -1
        sc = dot_row(w, x, xi, n)
        if intercept:
            sc = sc + w[d]
        if not isfinite(sc):
            j.err = BAD_ROW
            bad[0] = i
            return -1
        pr = 1 if (sc > 0.0 or (sc == 0.0 and tie_pos)) else -1
        yi = y[i]
        r = 0
        if pr != yi:
            mistakes += 1
            if not apply_update(&st.p, w, d, eta * <double>yi, x, xi, n):
                j.err = BAD_ROW
                bad[0] = i
                return -1
            r = 1
            changed += 1
        if pred != NULL:
            pred[i] = pr
        if upd != NULL:
            upd[i] = r
    j.mistakes += mistakes
    return changed


cdef Py_ssize_t lin_run(LinJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                        const floating* val, const index_t* ix) noexcept nogil:
    """The sequential pass over rows lo..hi-1: the number of rows that changed the state, or
    -1 (j.err, *bad) at a bad row, the state then half-way (lin_pass restores it)."""
    cdef LinCtx* st = j.st
    cdef Params* p = &st.p
    cdef double* w = st.w
    cdef Py_ssize_t d = st.d, i, n
    cdef const index_t* indptr = <const index_t*>j.indptr
    cdef const signed char* y = j.y
    cdef long long mistakes = 0, changed = 0
    cdef int r, code, pr = 0
    cdef const floating* x
    cdef const index_t* xi
    # (the rows the read-ahead has checked: the end first, whose release orders the start)
    cdef Py_ssize_t ck_hi, ck_lo
    if p.algo == PERCEPTRON and not p.normalize and st.u == NULL and j.sw == NULL:
        return lin_run_plain(j, lo, hi, bad, val, ix)
    ck_hi = load_acquire(&j.ck_hi)
    ck_lo = load_acquire(&j.ck_lo)
    for i in range(lo, hi):
        n = row_at(val, ix, indptr, j.row_len, i, &x, &xi)
        if j.pf and i + j.pf < j.n_rows:
            mb_prefetch_bytes(x + j.pf * j.row_len, j.row_len * sizeof(floating))
        if j.check and not (ck_lo <= i < ck_hi):
            code = csr_row_ok(xi, n, d)
            if code != OK:
                j.err = code
                bad[0] = i
                return -1
        r = lin_step(p, w, st.u, st.aux, d, x, xi, n, y[i], j.n_seen + i + 1,
                     1.0 if j.sw == NULL else j.sw[i], &pr)
        if r < 0:
            j.err = BAD_ROW
            bad[0] = i
            return -1
        mistakes += pr != y[i]
        changed += r
        if j.pred != NULL:
            j.pred[i] = pr
        if j.upd != NULL:
            j.upd[i] = r
    j.mistakes += mistakes
    return changed


cdef Py_ssize_t lin_scan(LinJob* j, Py_ssize_t lo, Py_ssize_t hi, const Py_ssize_t* stop,
                         const floating* val, const index_t* ix) noexcept nogil:
    """Judge rows lo..hi-1 with the current state, which it only reads (mb_spec_pass): the
    first row that would change it or is bad, or hi; the outputs of the rows before it."""
    cdef LinCtx* st = j.st
    cdef const Params* p = &st.p
    cdef Py_ssize_t d = st.d, i, n
    cdef const index_t* indptr = <const index_t*>j.indptr
    cdef int pr = 0
    cdef double inv, s, m
    cdef const floating* x
    cdef const index_t* xi
    for i in range(lo, hi):
        if (i & 15) == 0 and volatile_load(stop) < lo:
            return hi                   # an earlier slice found a row: this one cannot matter
        n = row_at(val, ix, indptr, j.row_len, i, &x, &xi)
        if j.pf and i + j.pf < j.n_rows:
            mb_prefetch_bytes(x + j.pf * j.row_len, j.row_len * sizeof(floating))
        if j.check and csr_row_ok(xi, n, d) != OK:
            return i
        if lin_judge(p, st.w, st.aux, d, x, xi, n, j.y[i], &pr, &inv, &s, &m) != 0:
            return i
        if j.pred != NULL:
            j.pred[i] = pr
        if j.upd != NULL:
            j.upd[i] = 0
    return hi


# mb_spec_pass's callbacks lin_run_cb, lin_scan_cb (and mc_run_cb, mc_scan_cb of the K-class
# pass): lin_run, lin_scan, mc_run or mc_scan for the job's dtypes (vt, it); with value_bytes
# and index_bytes, generated from _dispatch.pxi.tp by setup.py.
include "_dispatch_linear.pxi"


cdef void lin_touch_cb(void* ctx, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """The read-ahead of rows lo..hi-1 (on a worker, while the pass runs the rows before):
    into the caches, and, when the pass checks CSR indices, checked here, off the pass's path.
    The touched ranges only move forward (each starts at or after the end of the one before),
    so the pass, reading ck_hi then ck_lo, sees a range that was checked or an empty one."""
    cdef LinJob* j = <LinJob*>ctx
    cdef Py_ssize_t e
    if j.check:
        store_release(&j.ck_hi, -1)
        store_release(&j.ck_lo, lo)
        if j.it == 1:
            e = csr_rows_ok(<const long long*>j.ix, <const long long*>j.indptr, lo, hi, j.st.d)
        else:
            e = csr_rows_ok(<const int*>j.ix, <const int*>j.indptr, lo, hi, j.st.d)
        store_release(&j.ck_hi, e)
        j.ck_rows += e - lo
    touch_rows(j.val, value_bytes(j.vt), j.ix, index_bytes(j.it), j.indptr, j.row_len, lo, hi)


cdef int lin_pass(LinCtx* st, const void* val, int vt, const void* ix, int it,
                  const void* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                  const signed char* y, signed char* pred, unsigned char* upd, int check,
                  int threads, Py_ssize_t* bad, const double* sw=NULL) noexcept nogil:
    """One online pass on up to `threads` threads (mb_spec_pass: the same results for any
    number; the Hinge learner, which changes its state on every row, runs on one).  sw: the
    rows' sample weights, or NULL for none (the scans judge rows without them: a row they stop
    at that a weight of 0 keeps from updating is run, and changes nothing)."""
    cdef LinJob j
    cdef Py_ssize_t changed
    cdef mb_touch_fn touch = NULL
    cdef double aux0 = st.aux[0], aux1 = st.aux[1]
    j.st = st
    j.val = val
    j.vt = vt
    j.ix = ix
    j.it = it
    j.indptr = indptr
    j.row_len = row_len
    j.n_rows = n_rows
    j.pf = pf_rows(row_len * value_bytes(vt)) if indptr == NULL else 0
    j.y = y
    j.pred = pred
    j.upd = upd
    j.sw = sw
    j.n_seen = st.counts[0]
    j.mistakes = 0
    j.check = check and indptr != NULL
    j.ck_lo = 0
    j.ck_hi = 0
    j.ck_rows = 0
    j.err = OK
    memcpy(st.snap_w, st.w, st.D * sizeof(double))
    if st.u != NULL:
        memcpy(st.snap_u, st.u, st.D * sizeof(double))
    if st.p.algo == HINGE:
        threads = 1
    # (dense rows stream in order at the memory's pace already: touching them ahead only
    # competes for it; CSR rows, whose sums gather, gain from it)
    if indptr != NULL:
        touch = lin_touch_cb
    changed = mb_spec_pass(threads, n_rows, &j, lin_scan_cb, lin_run_cb, touch, bad)
    if j.ck_rows:                       # (the team has stopped: its writes are visible)
        atomic_add(&readahead_checked, j.ck_rows)
    if changed < 0:
        memcpy(st.w, st.snap_w, st.D * sizeof(double))
        if st.u != NULL:
            memcpy(st.u, st.snap_u, st.D * sizeof(double))
        st.aux[0] = aux0
        st.aux[1] = aux1
        return j.err
    st.counts[0] += n_rows
    st.counts[1] += j.mistakes
    st.counts[2] += changed
    return OK


def lin_pass_dense64(LinearState st, const double[:, ::1] X, const signed char[::1] y,
                     signed char[::1] pred=None, unsigned char[::1] upd=None, int threads=1,
                     const double[::1] sw=None):
    """One online pass over dense float64 rows; returns (status, bad_row).  sw: the rows'
    sample weights (finite, >= 0), or None."""
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef LinCtx c = st.ctx()
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef const double* wp = weights_ptr(sw, X.shape[0])
    with nogil:
        status = lin_pass(&c, &X[0, 0], 1, NULL, 0, NULL, X.shape[0], X.shape[1], &y[0], pp,
                          up, 0, threads, &bad, wp)
    return status, bad


def lin_step1(LinearState st, const double[:, ::1] X, signed char y):
    """One online step on a single dense float64 row with label y (+-1); returns the status."""
    cdef LinCtx c = st.ctx()
    cdef Py_ssize_t bad = -1
    return lin_pass(&c, &X[0, 0], 1, NULL, 0, NULL, 1, X.shape[1], &y, NULL, NULL, 0, 1, &bad)


def lin_predict_few(LinearState st, const double[:, ::1] X, unsigned char[::1] flags,
                    double[::1] scores):
    """predict's flags (``flags``) or decision_function's scores (``scores``; the other None)
    for a few dense float64 rows with the learner's own weights w and scale a = aux[0]: the
    small-input path, the arithmetic of lin_scores_impl.  Returns the status (OK, BAD_ROW on a
    non-finite score, or BAD_SHAPE when X's width is not the state's d or ``out`` is short)."""
    cdef Py_ssize_t bad = -1, n = X.shape[0]
    cdef int status
    cdef unsigned char* f = NULL
    cdef double* o = NULL
    if X.shape[1] != st.d or n == 0:
        return BAD_SHAPE
    if flags is not None:
        if flags.shape[0] < n:
            return BAD_SHAPE
        f = &flags[0]
    elif scores is None or scores.shape[0] < n:
        return BAD_SHAPE
    else:
        o = &scores[0]
    with nogil:
        status = lin_scores_impl(&st.p, &st.w[0], st.aux[0], st.d, &X[0, 0], <const int*>NULL,
                                 <const int*>NULL, n, X.shape[1], o, &bad, f)
    return status


def lin_score1(LinearState st, const double[:, ::1] X):
    """decision_function's score of one dense float64 row (the first of X) with the learner's
    own weights, as lin_predict_few computes it; NaN when it is not finite or X's width is not
    the state's d (the caller then takes the general path, which says why)."""
    cdef Py_ssize_t bad = -1
    cdef double s = NAN
    cdef int status
    if X.shape[1] != st.d or X.shape[0] == 0:
        return NAN
    with nogil:
        status = lin_scores_impl(&st.p, &st.w[0], st.aux[0], st.d, &X[0, 0], <const int*>NULL,
                                 <const int*>NULL, 1, X.shape[1], &s, &bad)
    return s if status == OK else NAN


def lin_flag1(LinearState st, const double[:, ::1] X):
    """predict's flag of one dense float64 row (the first of X): 1 positive, 0 negative under
    the tie rule, -1 when the score is not finite or X's width is not the state's d."""
    cdef Py_ssize_t bad = -1
    cdef unsigned char f = 0
    cdef int status
    if X.shape[1] != st.d or X.shape[0] == 0:
        return -1
    with nogil:
        status = lin_scores_impl(&st.p, &st.w[0], st.aux[0], st.d, &X[0, 0], <const int*>NULL,
                                 <const int*>NULL, 1, X.shape[1], NULL, &bad, &f)
    return f if status == OK else -1


def lin_pass_dense32(LinearState st, const float[:, ::1] X, const signed char[::1] y,
                     signed char[::1] pred=None, unsigned char[::1] upd=None, int threads=1,
                     const double[::1] sw=None):
    """One online pass over dense float32 rows; returns (status, bad_row)."""
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef LinCtx c = st.ctx()
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef const double* wp = weights_ptr(sw, X.shape[0])
    with nogil:
        status = lin_pass(&c, &X[0, 0], 0, NULL, 0, NULL, X.shape[0], X.shape[1], &y[0], pp,
                          up, 0, threads, &bad, wp)
    return status, bad


def lin_pass_csr(LinearState st, const floating[::1] data, const index_t[::1] indices,
                 const index_t[::1] indptr, const signed char[::1] y,
                 signed char[::1] pred=None, unsigned char[::1] upd=None, bint check=True,
                 int threads=1, const double[::1] sw=None):
    """One online pass over CSR rows (data, indices, indptr); returns (status, bad_row).

    indptr must be checked (non-decreasing from 0 to nnz); with ``check`` each row's column
    indices are checked as the pass reads it (status BAD_INDEX or BAD_ORDER at the first bad
    row, the codes of csr_check); without it they must have been checked before."""
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef LinCtx c = st.ctx()
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    cdef int vt = 1 if sizeof(floating) == 8 else 0
    cdef int it = 1 if sizeof(index_t) == 8 else 0
    cdef const double* wp = weights_ptr(sw, indptr.shape[0] - 1)
    with nogil:
        status = lin_pass(&c, dp, vt, ip, it, &indptr[0], indptr.shape[0] - 1, 0, &y[0], pp,
                          up, check, threads, &bad, wp)
    return status, bad


# ---------------------------------------------------------------------------------------------
# Scores without state change
# ---------------------------------------------------------------------------------------------

cdef int lin_scores_impl(const Params* p, const double* w, double a, Py_ssize_t d,
                         const floating* val, const index_t* ix, const index_t* indptr,
                         Py_ssize_t n_rows, Py_ssize_t row_len, double* out,
                         Py_ssize_t* bad, unsigned char* flags=NULL) noexcept nogil:
    """Scores into out, or (flags != NULL) only whether each is positive under the tie rule."""
    cdef Py_ssize_t i, n
    cdef double inv = 1.0, s
    cdef const floating* v
    cdef const index_t* xi
    cdef Py_ssize_t pf = pf_rows(row_len * sizeof(floating)) if indptr == NULL else 0
    for i in range(n_rows):
        n = row_at(val, ix, indptr, row_len, i, &v, &xi)
        if pf and i + pf < n_rows:
            mb_prefetch_bytes(v + pf * row_len, row_len * sizeof(floating))
        if p.normalize:
            inv = row_inv(p, v, n)
        s = raw_score(p, w, a, d, v, xi, n, inv)
        if not isfinite(s):
            bad[0] = i
            return BAD_ROW
        if flags != NULL:
            # bitwise, not `or`/`and`: the signs come in random order, branches mispredict
            flags[i] = <unsigned char>((s > 0.0) | ((s == 0.0) & (p.tie_pos != 0)))
        else:
            out[i] = s
    return OK


# -- one example at a time, on dict features (mbcore._one: learn_one / predict_one) ------------
# The example goes through the name index's fill (its row buffer, mbcore._kernels.names) and the
# one-row kernel in one call.  One row: the GIL is kept, as in lin_step1.

from .names cimport NameIndex, OneFast, STRICT, BAIL


cdef class OneLinear(OneFast):
    """learn_one and predict_one of a binary linear learner, each one compiled call (the lock
    and the binding: ``names.OneFast``): the name index's fill (``NameIndex.fill``), the
    label's code, and the one-row kernel of ``partial_fit`` (``lin_step1``) or of ``predict``
    (the flag from the state's own weights and scale, where that is the prediction: ``flags``).
    ``fast`` is the learner's ``_fast`` (state, d, positive label, negative label), ``one`` its
    ``_one`` (index, fill's mode for learning, for predicting)."""

    cdef LinearState st
    cdef NameIndex idx
    cdef object pos, neg
    cdef int learn_mode, predict_mode
    cdef bint flags

    def __init__(self, learner, tuple fast not None, tuple one not None, bint flags):
        OneFast.__init__(self, learner, fast, one)
        # (indexed, not unpacked: the binding may carry more than these four)
        self.st, self.pos, self.neg = fast[0], fast[2], fast[3]
        self.idx = one[0]
        self.learn_mode = one[1]
        self.predict_mode = one[2]
        self.flags = flags

    cdef Py_ssize_t learn_c(self, object x, object y, int strict) except? -100:
        # 0 done; > 0 a bad row (the state unchanged); < 0 for the general path: fill's status
        # (-1 .. -4, nothing changed; BAIL in the strict step), -5 new names (interned), -7 a
        # label of neither class
        cdef signed char code
        cdef Py_ssize_t n
        cdef LinCtx c
        cdef Py_ssize_t bad = -1
        cdef object t
        if strict:
            # (comparisons that run no Python code: see names.OneFast)
            t = type(y)
            if (t is not bool and t is not int and t is not str and t is not float) or \
                    type(self.pos) is not t or type(self.neg) is not t:
                return BAIL
        if y == self.pos:
            code = 1
        elif y == self.neg:
            code = -1
        else:
            return -7
        n = self.idx.fill_c(x, self.learn_mode | (STRICT if strict else 0))
        if n < 0:
            return n
        if n != self.st.d:
            return -5
        c = self.st.ctx()
        return lin_pass(&c, self.idx.row_ptr(), 1, NULL, 0, NULL, 1, n, &code, NULL, NULL, 0,
                        1, &bad)

    cdef object predict_c(self, object x, object miss, int strict):
        cdef Py_ssize_t n
        cdef LinCtx c
        cdef Py_ssize_t bad = -1
        cdef unsigned char f = 0
        if not self.flags:
            return miss
        n = self.idx.fill_c(x, self.predict_mode | (STRICT if strict else 0))
        if n < 0 or n != self.st.d:
            return miss
        c = self.st.ctx()
        if lin_scores_impl(&c.p, c.w, c.aux[0], c.d, self.idx.row_ptr(), <const int*>NULL,
                           <const int*>NULL, 1, n, NULL, &bad, &f):
            return miss
        return self.pos if f else self.neg


def lin_flags_dense(const double[::1] w, double a, Py_ssize_t d, bint intercept,
                    bint normalize, bint tie_pos, const floating[:, ::1] X,
                    unsigned char[::1] out):
    """1 where the score of the row is positive under the tie rule, else 0 (for predict)."""
    cdef Params p
    cdef Py_ssize_t bad = -1
    cdef int status
    p.intercept = intercept
    p.normalize = normalize
    p.tie_pos = tie_pos
    with nogil:
        status = lin_scores_impl(&p, &w[0], a, d, &X[0, 0], <const int*>NULL,
                                 <const int*>NULL, X.shape[0], X.shape[1], NULL, &bad, &out[0])
    return status, bad


def lin_flags_csr(const double[::1] w, double a, Py_ssize_t d, bint intercept, bint normalize,
                  bint tie_pos, const floating[::1] data, const index_t[::1] indices,
                  const index_t[::1] indptr, unsigned char[::1] out):
    """As lin_flags_dense, for CSR rows."""
    cdef Params p
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    p.intercept = intercept
    p.normalize = normalize
    p.tie_pos = tie_pos
    with nogil:
        status = lin_scores_impl(&p, &w[0], a, d, dp, ip, &indptr[0], indptr.shape[0] - 1, 0,
                                 NULL, &bad, &out[0])
    return status, bad


def lin_scores_dense(const double[::1] w, double a, Py_ssize_t d, bint intercept,
                     bint normalize, const floating[:, ::1] X, double[::1] out):
    """score = a * (w . x) + b (times 1/||x'|| when normalising) for every row."""
    cdef Params p
    cdef Py_ssize_t bad = -1
    cdef int status
    p.intercept = intercept
    p.normalize = normalize
    with nogil:
        status = lin_scores_impl(&p, &w[0], a, d, &X[0, 0], <const int*>NULL,
                                 <const int*>NULL, X.shape[0], X.shape[1], &out[0], &bad)
    return status, bad


def lin_scores_csr(const double[::1] w, double a, Py_ssize_t d, bint intercept, bint normalize,
                   const floating[::1] data, const index_t[::1] indices,
                   const index_t[::1] indptr, double[::1] out):
    """As lin_scores_dense, for CSR rows."""
    cdef Params p
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    p.intercept = intercept
    p.normalize = normalize
    with nogil:
        status = lin_scores_impl(&p, &w[0], a, d, dp, ip, &indptr[0], indptr.shape[0] - 1, 0,
                                 &out[0], &bad)
    return status, bad


# ---------------------------------------------------------------------------------------------
# More than two classes: the weight matrix W, feature-major
# ---------------------------------------------------------------------------------------------
#
# W holds D x K doubles (D = d, plus 1 with an intercept): W[j * K + k] is the weight of feature
# j for class k, and row d holds the intercepts.  Feature-major, so that a row's non-zero x_j
# adds x_j times one contiguous row of W to K accumulators (what the CSR product X @ W does).
# Class k's score is the binary score of its column, in the same order: term t of the row goes
# to the partial sum t % 4 of every class, and the sum is (s0 + s1) + (s2 + s3).  A term with
# x_j == 0 is skipped: it would add +-0 to a partial sum that is never -0 (it starts at +0), so
# the sums are unchanged, and an update would add +-0 to a weight, which changes no value.
# aux = [a, ||W||_F^2, ||w_0||^2, ..., ||w_{K-1}||^2]; the Python layer keeps the state as it
# was when a pass fails (mbcore.base.Snapshot), so the kernel needs no snapshot of its own.

cdef struct MCCtx:
    Params p
    int ovr
    Py_ssize_t K
    Py_ssize_t d
    double* W
    double* U
    double* aux
    double* acc
    int* act
    double* s
    double* m
    long long* counts
    double sw           # the current row's sample weight (1.0 without weights; mc_run sets it)


cdef struct MCJob:
    # One pass with K classes, for mb_spec_pass (as LinJob); scr: the scratch of the scan
    # slots 1.. (slot 0, the calling thread, uses the state's own), `stride` doubles each.
    MCCtx* c
    const void* val
    const void* ix
    const void* indptr
    Py_ssize_t row_len
    const int* y
    int* pred
    unsigned char* upd
    const double* sw
    long long n_seen
    long long mistakes
    int check
    int vt
    int it
    int err
    double* scr
    Py_ssize_t stride
    # Row splitting (mc_part, mb_split_row), or sp NULL: the row being scored (cur_row), the
    # parts' geometry (nb groups of partial sums times nk ranges of classes: part p has group
    # p % nb, range p // nb) and their scratch (pscr, pstride doubles per part, 64-byte lines:
    # 8 doubles of header, [0] the part's count of terms, [1] its update check, then acc, xs,
    # js, bs as in mc_raw).
    mb_split* sp
    Py_ssize_t cur_row
    int nb
    int nk
    double* pscr
    Py_ssize_t pstride
    # The Perceptron's update of a split dense row, deferred (defer: allowed): its feature terms
    # are added by the parts, each to its own features (a dense row's position is its feature,
    # so a part reads and writes the same weights, row after row), at the start of the next
    # split row, or of a flush (no row: flush_only).  pend: one is waiting, from row prow, with
    # the coefficients pc (W) and ptc (U), classes py (+) and pb (-); pend_bad: its check failed.
    int defer
    int pend
    int flush_only
    int pend_bad
    Py_ssize_t prow
    Py_ssize_t py
    Py_ssize_t pb
    double pc
    double ptc


cdef inline bint zero8(const floating* v) noexcept nogil:
    """Whether the eight values at v are all +0.0 (their bits all zero: -0.0 and NaN are not),
    read as integers: a dense row's block that adds nothing to any sum."""
    cdef const unsigned int* b4
    cdef const unsigned long long* b8
    if floating is float:
        b4 = <const unsigned int*>v
        return (b4[0] | b4[1] | b4[2] | b4[3] | b4[4] | b4[5] | b4[6] | b4[7]) == 0
    else:
        b8 = <const unsigned long long*>v
        return (b8[0] | b8[1] | b8[2] | b8[3] | b8[4] | b8[5] | b8[6] | b8[7]) == 0


cdef inline Py_ssize_t mc_gather(const floating* v, const index_t* ix, Py_ssize_t t,
                                 Py_ssize_t stop, int* js, int* bs, double* xs,
                                 Py_ssize_t m) noexcept nogil:
    """Append the non-zero terms among positions t..stop-1 (feature, partial sum, value),
    without branches; returns the new count."""
    for t in range(t, stop):
        js[m] = <int>(t if ix == NULL else ix[t])
        bs[m] = <int>(t & 3)
        xs[m] = v[t]
        m += v[t] != 0          # (NaN is kept: it makes the score NaN, a bad row)
    return m


cdef inline void mc_raw(const double* W, Py_ssize_t K, const floating* v, const index_t* ix,
                        Py_ssize_t n, double* acc, int* act, double* out) noexcept nogil:
    """out[k] = w_k . x in the four-partial-sum order (acc: 4K doubles of scratch; act: room
    for 4n ints).  The non-zero terms are gathered first (their features js, partial sums bs
    and values xs): without branches, and a dense row's blocks of eight +0.0 are skipped
    whole (images have long blank runs); then each adds x times its row of W to the K
    partial sums of its position."""
    cdef Py_ssize_t t = 0, k, q, m = 0
    cdef int* js = act
    cdef int* bs = act + n
    cdef double* xs = <double*>(act + 2 * n)       # (8-byte aligned, as act is)
    cdef double* a
    cdef const double* wr
    cdef double xv
    memset(acc, 0, 4 * K * sizeof(double))
    if ix == NULL:
        while t + 8 <= n:
            if zero8(v + t):
                t += 8
                continue
            m = mc_gather(v, ix, t, t + 8, js, bs, xs, m)
            t += 8
    m = mc_gather(v, ix, t, n, js, bs, xs, m)
    for q in range(m):
        a = acc + bs[q] * K
        wr = W + js[q] * K
        xv = xs[q]
        for k in range(K):
            a[k] += wr[k] * xv
    for k in range(K):
        out[k] = (acc[k] + acc[K + k]) + (acc[2 * K + k] + acc[3 * K + k])


cdef inline Py_ssize_t mc_kb(Py_ssize_t K, int nk, int g) noexcept nogil:
    """The first class of range g of nk (multiples of 8 classes: a range's accumulators and
    rows of W start on their own cache lines, as far as W's do); K for g == nk."""
    if g >= nk:
        return K
    return ((K * g) // nk) & ~(<Py_ssize_t>7)


cdef Py_ssize_t mc_part(MCJob* j, int part, const floating* val,
                        const index_t* ix) noexcept nogil:
    """Part `part` of the scores of row j.cur_row (mb_split_row): the partial sums of mc_raw
    for the positions of its group (t & 3 in the group's quarter, half or all of 0..3) and the
    classes of its range, each by mc_raw's arithmetic (the same terms, in the same order, from
    +0), in the part's own scratch; mc_raw_split adds them up as mc_raw does."""
    cdef MCCtx* c = j.c
    cdef Py_ssize_t K = c.K, n, t = 0, base, u, q, k, m = 0
    cdef int bg = part % j.nb, width = 4 // j.nb, w, b
    cdef Py_ssize_t k0 = mc_kb(K, j.nk, part // j.nb), k1 = mc_kb(K, j.nk, part // j.nb + 1)
    cdef double* hdr = j.pscr + part * j.pstride
    cdef double* acc = hdr + 8
    cdef double* xs = acc + 4 * K
    cdef int* js = <int*>(xs + c.d)
    cdef int* bs = js + c.d
    cdef double* a
    cdef const double* wr
    cdef double* W = c.W
    cdef double xv
    cdef const floating* v
    cdef const index_t* xi
    if j.pend:
        # the deferred update of the previous row, on this part's terms of that row (still in
        # its scratch), each weight as mc_axpy computes it; the check as mc_axpy's
        hdr[1] = mc_part_update(W, K, k0, k1, j.py, j.pb, j.pc, js, xs, <Py_ssize_t>hdr[0])
        if c.U != NULL:
            hdr[1] += mc_part_update(c.U, K, k0, k1, j.py, j.pb, j.ptc, js, xs,
                                     <Py_ssize_t>hdr[0])
    if j.flush_only:
        return 0
    n = row_at(val, ix, <const index_t*>j.indptr, j.row_len, j.cur_row, &v, &xi)
    for b in range(bg * width, bg * width + width):
        memset(acc + b * K + k0, 0, (k1 - k0) * sizeof(double))
    # the group's positions, in order: base + bg * width + w (t, hence base, is a multiple
    # of 4 at every step); dense rows skip their blocks of eight +0.0 as mc_raw does
    while t < n:
        if xi == NULL and t + 8 <= n:
            if zero8(v + t):
                t += 8
                continue
        for base in range(t, t + 8 if t + 8 <= n else n, 4):
            for w in range(width):
                u = base + bg * width + w
                if u < n:
                    js[m] = <int>(u if xi == NULL else xi[u])
                    bs[m] = <int>(u & 3)
                    xs[m] = v[u]
                    m += v[u] != 0      # (NaN is kept: it makes the score NaN, a bad row)
        t += 8
    for q in range(m):
        a = acc + bs[q] * K
        wr = W + js[q] * K
        xv = xs[q]
        for k in range(k0, k1):
            a[k] += wr[k] * xv
    hdr[0] = <double>m
    return m


cdef inline double mc_terms_axpy(double* W, Py_ssize_t K, Py_ssize_t cls, double c,
                                 const int* js, const double* xs, Py_ssize_t m) noexcept nogil:
    """w_cls += c x on the m terms (js, xs): mc_axpy's arithmetic on each weight; the sum of
    r - r (0 if all finite)."""
    cdef Py_ssize_t q, jj
    cdef double chk = 0.0, r
    for q in range(m):
        jj = js[q] * K + cls
        r = W[jj] + c * xs[q]
        W[jj] = r
        chk += r - r
    return chk


cdef inline double mc_part_update(double* W, Py_ssize_t K, Py_ssize_t k0, Py_ssize_t k1,
                                  Py_ssize_t y, Py_ssize_t b, double c, const int* js,
                                  const double* xs, Py_ssize_t m) noexcept nogil:
    """w_y += c x and w_b += (-c) x on the m terms (js, xs), for the classes of k0..k1-1
    among y and b; the sum of r - r (0 if all finite)."""
    cdef double chk = 0.0
    if k0 <= y < k1:
        chk += mc_terms_axpy(W, K, y, c, js, xs, m)
    if k0 <= b < k1:
        chk += mc_terms_axpy(W, K, b, -c, js, xs, m)
    return chk


cdef inline int mc_split_flush(MCJob* j) noexcept nogil:
    """Apply the deferred update (if any) on the team; 0 if a weight became non-finite."""
    if not j.pend:
        return 1
    j.flush_only = 1
    mb_split_row(j.sp)
    j.flush_only = 0
    return mc_split_checked(j)


cdef inline int mc_split_checked(MCJob* j) noexcept nogil:
    """After mb_split_row: the deferred update is done; 0 (and pend_bad) if its check failed."""
    cdef int p, ok = 1
    if not j.pend:
        return 1
    j.pend = 0
    for p in range(j.nb * j.nk):
        if (j.pscr + p * j.pstride)[1] != 0.0:
            ok = 0
    if not ok:
        j.pend_bad = 1
    return ok


cdef inline int mc_raw_split(MCJob* j, double* out) noexcept nogil:
    """out[k] = w_k . x for row j.cur_row, as mc_raw, its partial sums computed in parts on
    the team (mb_split_row), then added up in mc_raw's order; 0 if the deferred update of the
    previous row (applied first, by the parts) made a weight non-finite."""
    cdef Py_ssize_t K = j.c.K, k, k0, k1
    cdef int g, nb = j.nb, width = 4 // j.nb
    cdef const double* a0
    cdef const double* a1
    cdef const double* a2
    cdef const double* a3
    mb_split_row(j.sp)
    if not mc_split_checked(j):
        return 0
    for g in range(j.nk):
        k0 = mc_kb(K, j.nk, g)
        k1 = mc_kb(K, j.nk, g + 1)
        # partial sum b of range g is in the scratch of part (b // width) + nb * g
        a0 = j.pscr + (0 // width + nb * g) * j.pstride + 8
        a1 = j.pscr + (1 // width + nb * g) * j.pstride + 8 + K
        a2 = j.pscr + (2 // width + nb * g) * j.pstride + 8 + 2 * K
        a3 = j.pscr + (3 // width + nb * g) * j.pstride + 8 + 3 * K
        for k in range(k0, k1):
            out[k] = (a0[k] + a1[k]) + (a2[k] + a3[k])
    return 1


cdef inline int mc_axpy(double* W, Py_ssize_t K, Py_ssize_t d, Py_ssize_t k, double c,
                        double cb, int intercept, const floating* v, const index_t* ix,
                        Py_ssize_t n) noexcept nogil:
    """w_k += c * x (and b_k += cb); returns 0 if a weight became non-finite."""
    cdef Py_ssize_t t, j
    cdef double chk = 0.0, r, xv
    for t in range(n):
        xv = v[t]
        if xv == 0.0:
            continue
        j = t if ix == NULL else ix[t]
        r = W[j * K + k] + c * xv
        W[j * K + k] = r
        chk += r - r
    if intercept:
        r = W[d * K + k] + cb
        W[d * K + k] = r
        chk += r - r
    return chk == 0.0


cdef inline double mc_sqnorm(const double* W, Py_ssize_t K, Py_ssize_t d, Py_ssize_t k,
                             int intercept) noexcept nogil:
    """||w_k||^2 (+ b_k^2), the four-partial-sum order of sqnorm_w over column k."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, a, sq
    cdef Py_ssize_t j
    for j in range(d):
        a = W[j * K + k]
        if (j & 3) == 0:
            s0 += a * a
        elif (j & 3) == 1:
            s1 += a * a
        elif (j & 3) == 2:
            s2 += a * a
        else:
            s3 += a * a
    sq = (s0 + s1) + (s2 + s3)
    if intercept:
        a = W[d * K + k]
        sq = sq + a * a
    return sq


cdef inline int mc_frobenius(double* aux, Py_ssize_t K) noexcept nogil:
    """aux[1] = the sum of the class norms aux[2..], left to right; 0 if it is not finite."""
    cdef double sq = 0.0
    cdef Py_ssize_t k
    for k in range(K):
        sq = sq + aux[2 + k]
    aux[1] = sq
    return isfinite(sq)


cdef inline Py_ssize_t mc_argmax(const double* s, Py_ssize_t K, Py_ssize_t skip) noexcept nogil:
    """The smallest k != skip with the largest s[k]."""
    cdef Py_ssize_t k, best = -1
    for k in range(K):
        if k != skip and (best < 0 or s[k] > s[best]):
            best = k
    return best


cdef inline void mc_scale(double* W, Py_ssize_t K, Py_ssize_t d, double* aux, const Params* p,
                          long long t, double* eta_t) noexcept nogil:
    """The hinge learner's shrink step w <- (1 - eta_t lam) w on every class (shared scale a)."""
    cdef double factor, a
    cdef Py_ssize_t j
    if p.pegasos:
        eta_t[0] = 1.0 / (p.lam * <double>t)
        factor = 1.0 - 1.0 / <double>t
    else:
        eta_t[0] = p.eta
        factor = 1.0 - p.eta * p.lam
    a = aux[0] * factor
    if a == 0.0:
        memset(W, 0, d * K * sizeof(double))
        a = 1.0
    elif a < PEGASOS_RESCALE:
        for j in range(d * K):
            W[j] = W[j] * a
        a = 1.0
    aux[0] = a


cdef inline int mc_judge(const MCCtx* c, double* s, double* m, double* acc, int* act,
                         const floating* v, const index_t* ix, Py_ssize_t n, int y, int* pred,
                         double* inv_out, MCJob* sj=NULL) noexcept nogil:
    """The prediction for a row with K classes, with no state change (s, m, acc and act:
    scratch): -1 for a bad row (a non-finite score), else 1 if the row would change the state
    (always for the Hinge learner), else 0.  s gets the K scores and, one-vs-rest, m the
    binary decision values.  mc_step acts on it; the speculative scans (mc_scan) call it
    alone.  sj: the sequential pass's job, whose row (sj.cur_row) is scored in parts on the
    team while it serves (mc_raw_split), or NULL."""
    cdef const Params* p = &c.p
    cdef Py_ssize_t K = c.K, d = c.d, k, best, r
    cdef const double* W = c.W
    cdef const double* aux = c.aux
    cdef double inv = 1.0, sk, nw, mk, yk
    cdef int change = 0
    if p.normalize:
        inv = row_inv(p, v, n)
    inv_out[0] = inv
    if sj != NULL and mb_split_serving(sj.sp):
        if not mc_raw_split(sj, s):
            return -1                   # (the previous row's deferred update: sj.pend_bad)
    else:
        if sj != NULL and not mc_split_flush(sj):  # (splitting stopped with an update waiting)
            return -1
        mc_raw(W, K, v, ix, n, acc, act, s)
    for k in range(K):
        sk = aux[0] * s[k]
        if p.intercept:
            sk = sk + W[d * K + k]
        if p.normalize:
            sk = sk * inv
        if not isfinite(sk):
            return -1
        s[k] = sk
    if not c.ovr:
        best = mc_argmax(s, K, -1)
        pred[0] = <int>best
        if p.algo == PERCEPTRON:
            return best != y
        if p.algo == MARGIN:
            r = mc_argmax(s, K, y)
            nw = sqrt(aux[1])
            mk = (s[y] - s[r]) / nw if nw > 0.0 else 0.0
            return best != y or mk < p.thr
        if p.algo == PA:
            r = mc_argmax(s, K, y)
            return s[y] - s[r] < 1.0
        if p.algo == HINGE:
            return 1
        return -1
    if p.algo != PERCEPTRON and p.algo != MARGIN and p.algo != HINGE and p.algo != PA:
        return -1
    for k in range(K):
        if p.algo == MARGIN:
            nw = sqrt(aux[2 + k])
            m[k] = s[k] / nw if nw > 0.0 else 0.0
        else:
            m[k] = s[k]
    pred[0] = <int>mc_argmax(m, K, -1)
    if p.algo == HINGE:
        return 1
    for k in range(K):
        yk = 1.0 if k == y else -1.0
        if p.algo == PA:
            if yk * m[k] < 1.0:
                change = 1
        elif sign_of(m[k], p.tie_pos) != <int>yk or \
                (p.algo == MARGIN and -p.thr < m[k] and m[k] < p.thr):
            change = 1
    return change


cdef int mc_defer(MCCtx* c, MCJob* sj, Py_ssize_t y, Py_ssize_t best, double cc,
                  long long t) noexcept nogil:
    """The Perceptron's update of a split dense row: the intercepts now (mc_axpy's arithmetic;
    the parts never read them), the feature terms deferred to the parts (mc_part); 1, or -1
    if an intercept became non-finite."""
    cdef Py_ssize_t K = c.K, d = c.d
    cdef double chk = 0.0, r, tc = 0.0
    if c.p.intercept:
        r = c.W[d * K + y] + cc
        c.W[d * K + y] = r
        chk += r - r
        r = c.W[d * K + best] + (-cc)
        c.W[d * K + best] = r
        chk += r - r
    if c.U != NULL:
        tc = (<double>t) * cc
        if c.p.intercept:
            r = c.U[d * K + y] + tc
            c.U[d * K + y] = r
            chk += r - r
            r = c.U[d * K + best] + (-tc)
            c.U[d * K + best] = r
            chk += r - r
    sj.pend = 1
    sj.prow = sj.cur_row
    sj.py = y
    sj.pb = best
    sj.pc = cc
    sj.ptc = tc
    return 1 if chk == 0.0 else -1


cdef int mc_step(MCCtx* c, const floating* v, const index_t* ix, Py_ssize_t n, int y,
                 long long t, int* pred, MCJob* sj=NULL) noexcept nogil:
    """Predict, then update, for K classes.  Returns -1 on a bad row, else 1 if the state
    changed, else 0.  sj: as for mc_judge (the scores in parts)."""
    cdef const Params* p = &c.p
    cdef Py_ssize_t K = c.K, d = c.d, k, best, r
    cdef double* W = c.W
    cdef double* s = c.s
    cdef double* m = c.m
    cdef double* aux = c.aux
    cdef double inv = 1.0, cc, tc, mk, nw, eta_t = 0.0, ca, yk
    cdef int upd = 0, pk, change
    change = mc_judge(c, s, m, c.acc, c.act, v, ix, n, y, pred, &inv, sj)
    if change < 0:
        return -1
    if not change:
        return 0
    if c.sw == 0.0 and p.algo != HINGE:     # weight 0: predicted, never an update
        return 0
    if not c.ovr:
        best = pred[0]
        if p.algo == PERCEPTRON:
            if best != y:
                cc = p.eta
                if p.normalize:
                    cc = cc * inv
                cc = cc * c.sw
                if sj != NULL and sj.defer and mb_split_serving(sj.sp):
                    return mc_defer(c, sj, y, best, cc, t)
                if not mc_axpy(W, K, d, y, cc, cc, p.intercept, v, ix, n):
                    return -1
                if not mc_axpy(W, K, d, best, -cc, -cc, p.intercept, v, ix, n):
                    return -1
                if c.U != NULL:
                    tc = (<double>t) * cc
                    if not mc_axpy(c.U, K, d, y, tc, tc, p.intercept, v, ix, n):
                        return -1
                    if not mc_axpy(c.U, K, d, best, -tc, -tc, p.intercept, v, ix, n):
                        return -1
                upd = 1
            return upd
        r = mc_argmax(s, K, y)
        if p.algo == MARGIN:
            nw = sqrt(aux[1])
            mk = (s[y] - s[r]) / nw if nw > 0.0 else 0.0
            if best != y or mk < p.thr:
                cc = inv * c.sw
                if not mc_axpy(W, K, d, y, cc, cc, p.intercept, v, ix, n):
                    return -1
                if not mc_axpy(W, K, d, r, -cc, -cc, p.intercept, v, ix, n):
                    return -1
                aux[2 + y] = mc_sqnorm(W, K, d, y, p.intercept)
                aux[2 + r] = mc_sqnorm(W, K, d, r, p.intercept)
                if not mc_frobenius(aux, K):
                    return -1
                upd = 1
            return upd
        if p.algo == PA:
            # Crammer et al.'s multi-class rule: the binary step on the Kesler vector
            # (e_y - e_r) (x) x', whose squared norm is 2 ||x'||^2
            cc = pa_step_size(p, 1.0 - (s[y] - s[r]), 2.0 * row_sqnorm(p, v, n), c.sw)
            if cc != 0.0:
                if not mc_axpy(W, K, d, y, cc, cc, p.intercept, v, ix, n):
                    return -1
                if not mc_axpy(W, K, d, r, -cc, -cc, p.intercept, v, ix, n):
                    return -1
                upd = 1
            return upd
        if p.algo != HINGE:
            return -1
        # Crammer & Singer's multi-class hinge, the top rival r
        upd = (s[y] - s[r]) < 1.0 and c.sw != 0.0
        mc_scale(W, K, d, aux, p, t, &eta_t)
        if upd:
            cc = eta_t
            if p.normalize:
                cc = cc * inv
            cc = cc * c.sw
            ca = cc / aux[0]
            if not mc_axpy(W, K, d, y, ca, cc, p.intercept, v, ix, n):
                return -1
            if not mc_axpy(W, K, d, r, -ca, -cc, p.intercept, v, ix, n):
                return -1
        return upd
    # one-vs-rest: learner k is the binary learner on (y == k), m[k] its decision value (the
    # prediction, made by mc_judge, is their argmax)
    if p.algo == HINGE:
        for k in range(K):
            yk = 1.0 if k == y else -1.0
            c.acc[k] = yk * s[k] < 1.0 and c.sw != 0.0  # (acc is free once the scores are made)
        mc_scale(W, K, d, aux, p, t, &eta_t)
        for k in range(K):
            if c.acc[k] != 0.0:
                yk = 1.0 if k == y else -1.0
                cc = eta_t * yk
                if p.normalize:
                    cc = cc * inv
                cc = cc * c.sw
                ca = cc / aux[0]
                if not mc_axpy(W, K, d, k, ca, cc, p.intercept, v, ix, n):
                    return -1
                upd = 1
        return upd
    if p.algo == PA:
        mk = row_sqnorm(p, v, n)        # (the same ||x'||^2 for every class)
        for k in range(K):
            yk = 1.0 if k == y else -1.0
            if yk * s[k] < 1.0:
                cc = pa_step_size(p, 1.0 - yk * s[k], mk, c.sw) * yk
                if cc != 0.0:
                    if not mc_axpy(W, K, d, k, cc, cc, p.intercept, v, ix, n):
                        return -1
                    upd = 1
        return upd
    for k in range(K):
        yk = 1.0 if k == y else -1.0
        pk = sign_of(m[k], p.tie_pos)
        if p.algo == PERCEPTRON:
            if pk != <int>yk:
                cc = p.eta * yk
                if p.normalize:
                    cc = cc * inv
                cc = cc * c.sw
                if not mc_axpy(W, K, d, k, cc, cc, p.intercept, v, ix, n):
                    return -1
                if c.U != NULL:
                    tc = (<double>t) * cc
                    if not mc_axpy(c.U, K, d, k, tc, tc, p.intercept, v, ix, n):
                        return -1
                upd = 1
        elif p.algo == MARGIN and (pk != <int>yk or (-p.thr < m[k] and m[k] < p.thr)):
            cc = (yk * inv) * c.sw
            if not mc_axpy(W, K, d, k, cc, cc, p.intercept, v, ix, n):
                return -1
            aux[2 + k] = mc_sqnorm(W, K, d, k, p.intercept)
            if not isfinite(aux[2 + k]):
                return -1
            upd = 1
    if upd and p.algo == MARGIN and not mc_frobenius(aux, K):   # (kept in both strategies)
        return -1
    return upd


cdef class MultiState:
    """Binds a linear learner's state for K >= 3 classes (see the section comment): ``W`` and
    ``U`` (the averaging accumulator, or length 0) of D*K doubles, ``aux`` (2 + K doubles),
    ``counts`` = [n_seen, mistakes, updates]; scratch for one row's scores."""
    cdef double[::1] W, U, aux, acc, s, m
    cdef int[::1] act
    cdef long long[::1] counts
    cdef Params p
    cdef int ovr
    cdef Py_ssize_t d, K

    def __init__(self, double[::1] W not None, double[::1] U not None,
                 double[::1] aux not None, long long[::1] counts not None, Py_ssize_t d,
                 Py_ssize_t K, int algo, bint tie_pos, bint normalize, bint intercept,
                 bint average, bint pegasos, double eta, double thr, double lam, bint ovr):
        cdef Py_ssize_t D = d + (1 if intercept else 0)
        check_rule(algo)
        if K < 3 or W.shape[0] != D * K or aux.shape[0] != 2 + K or counts.shape[0] != 3 or \
                U.shape[0] != (D * K if average else 0):
            raise ValueError("MultiState: the state arrays do not match d, K and the parameters")
        self.W = W
        self.U = U
        self.aux = aux
        self.counts = counts
        self.d = d
        self.K = K
        self.ovr = ovr
        self.acc = np.empty(4 * K, dtype=np.float64)
        # a row has at most d terms (dense: d; CSR: distinct indices below d, checked); mc_raw
        # needs 2n ints and n doubles (4n + 1 ints)
        self.act = np.empty(4 * d + 4, dtype=np.intc)
        self.s = np.empty(K, dtype=np.float64)
        self.m = np.empty(K, dtype=np.float64)
        self.p = make_lin_params(algo, tie_pos, normalize, intercept, average, pegasos, eta,
                                 thr, lam)

    cdef MCCtx ctx(self):
        cdef MCCtx c
        c.p = self.p
        c.ovr = self.ovr
        c.K = self.K
        c.d = self.d
        c.W = &self.W[0]
        c.U = &self.U[0] if self.U.shape[0] > 0 else NULL
        c.aux = &self.aux[0]
        c.acc = &self.acc[0]
        c.act = &self.act[0]
        c.s = &self.s[0]
        c.m = &self.m[0]
        c.counts = &self.counts[0]
        c.sw = 1.0
        return c


cdef Py_ssize_t longest_row(const index_t[::1] indptr) noexcept:
    """The most stored values in a row of a CSR matrix (0 for none)."""
    cdef Py_ssize_t i, r, most = 0
    for i in range(indptr.shape[0] - 1):
        r = indptr[i + 1] - indptr[i]
        if r > most:
            most = r
    return most


cdef Py_ssize_t mc_run(MCJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                       const floating* val, const index_t* ix) noexcept nogil:
    """The sequential pass over rows lo..hi-1 (as lin_run)."""
    cdef MCCtx* c = j.c
    cdef const index_t* indptr = <const index_t*>j.indptr
    cdef long long mistakes = 0, changed = 0
    cdef Py_ssize_t i, n
    cdef int r, code, pr = 0
    cdef const floating* x
    cdef const index_t* xi
    for i in range(lo, hi):
        n = row_at(val, ix, indptr, j.row_len, i, &x, &xi)
        if j.check:
            code = csr_row_ok(xi, n, c.d)
            if code != OK:
                j.err = code
                bad[0] = i
                return -1
        if j.sw != NULL:
            c.sw = j.sw[i]
        j.cur_row = i
        r = mc_step(c, x, xi, n, j.y[i], j.n_seen + i + 1, &pr, j)
        if r < 0:
            j.err = BAD_ROW
            bad[0] = j.prow if j.pend_bad else i     # (a deferred update failed: its row)
            return -1
        mistakes += pr != j.y[i]
        changed += r
        if j.pred != NULL:
            j.pred[i] = pr
        if j.upd != NULL:
            j.upd[i] = <unsigned char>r
    j.mistakes += mistakes
    if not mc_split_flush(j):           # (the stretch's last update, before the team leaves)
        j.err = BAD_ROW
        bad[0] = j.prow
        return -1
    return changed


cdef Py_ssize_t mc_scan(MCJob* j, int slot, Py_ssize_t lo, Py_ssize_t hi,
                        const Py_ssize_t* stop, const floating* val,
                        const index_t* ix) noexcept nogil:
    """Judge rows lo..hi-1 with the current state (as lin_scan), in slot's scratch."""
    cdef MCCtx* c = j.c
    cdef const index_t* indptr = <const index_t*>j.indptr
    cdef Py_ssize_t i, n, K = c.K
    cdef double* acc = c.acc
    cdef double* sc = c.s
    cdef double* m = c.m
    cdef int* act = c.act
    cdef double* base
    cdef int pr = 0
    cdef double inv
    cdef const floating* x
    cdef const index_t* xi
    if slot > 0:
        base = j.scr + (slot - 1) * j.stride
        acc = base
        sc = base + 4 * K
        m = base + 5 * K
        act = <int*>(base + 6 * K)
    for i in range(lo, hi):
        if (i & 15) == 0 and volatile_load(stop) < lo:
            return hi
        n = row_at(val, ix, indptr, j.row_len, i, &x, &xi)
        if j.check and csr_row_ok(xi, n, c.d) != OK:
            return i
        if mc_judge(c, sc, m, acc, act, x, xi, n, j.y[i], &pr, &inv) != 0:
            return i
        if j.pred != NULL:
            j.pred[i] = pr
        if j.upd != NULL:
            j.upd[i] = 0
    return hi


# (mc_run_cb and mc_scan_cb: in _dispatch_linear.pxi, included above lin_touch_cb)


cdef void mc_touch_cb(void* ctx, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef MCJob* j = <MCJob*>ctx
    touch_rows(j.val, value_bytes(j.vt), j.ix, index_bytes(j.it), j.indptr, j.row_len, lo, hi)


# Row splitting (mc_part): a row's scores are split on the team when its K x (non-zero terms)
# multiply-adds are at least mc_split_work (the hand-off of a row to the other threads and back
# costs about as much as 1,000-2,000 of them on the machine of bench/README.md, issue 27);
# mc_split_tuning changes it (tests: 0 splits every row).  mc_stats: rows split, parts computed
# by the caller for a late worker, stretches served, stretches after which the split paused (its
# workers were late), over the passes since the last reset (diagnostics, read by the tests).
cdef Py_ssize_t mc_split_work = 3000
cdef long long mc_stats[4]
mc_stats[:] = [0, 0, 0, 0]


def mc_split_tuning(min_work=None):
    """The least K x (non-zero terms per row) at which the multi-class passes on several
    threads split each row's scores between them (the old value); min_work, if not None,
    replaces it (0: split whenever there are threads).  For tests and benchmarks; not
    thread-safe: set it before the passes."""
    global mc_split_work
    old = mc_split_work
    if min_work is not None:
        mc_split_work = max(0, int(min_work))
    return old


def mc_split_stats(bint reset=False):
    """(rows split, parts stolen, stretches served, stretches late) since the last reset, over
    the multi-class passes; reset: zero them after reading."""
    out = (mc_stats[0], mc_stats[1], mc_stats[2], mc_stats[3])
    if reset:
        mc_stats[:] = [0, 0, 0, 0]
    return out


cdef double mc_terms_est(const void* val, int vt, const void* indptr, int it,
                         Py_ssize_t n_rows, Py_ssize_t row_len) noexcept nogil:
    """The mean number of non-zero terms per row: CSR, its stored values; dense, the non-zeros
    of up to 16 rows spread over the batch."""
    cdef Py_ssize_t i, r, t, nz = 0, rows = 0, step
    cdef const double* vd
    cdef const float* vf
    if n_rows <= 0:
        return 0.0
    if indptr != NULL:
        if it == 1:
            return <double>((<const long long*>indptr)[n_rows] -
                            (<const long long*>indptr)[0]) / n_rows
        return <double>((<const int*>indptr)[n_rows] - (<const int*>indptr)[0]) / n_rows
    step = n_rows // 16 if n_rows >= 16 else 1
    i = 0
    while i < n_rows:
        r = i * row_len
        i += step
        if vt == 1:
            vd = <const double*>val + r
            for t in range(row_len):
                nz += vd[t] != 0
        else:
            vf = <const float*>val + r
            for t in range(row_len):
                nz += vf[t] != 0
        rows += 1
    return <double>nz / rows


cdef int mc_pass(MCCtx* c, const void* val, int vt, const void* ix, int it,
                 const void* indptr, Py_ssize_t n_rows, Py_ssize_t row_len, const int* y,
                 int* pred, unsigned char* upd, int check, int threads,
                 Py_ssize_t* bad, const double* sw=NULL, long long* stats=NULL) noexcept nogil:
    """One online pass on up to `threads` threads (as lin_pass; the Hinge learner runs on one);
    on a bad row the state is left half-way (the caller restores it) and the counts are not
    written.  With threads, the sequential stretches (dense mistakes) split each row's scores
    between them when the row is large enough (mc_split_work); stats (or NULL) gets
    mc_split_stats's four counts of this pass."""
    cdef MCJob j
    cdef Py_ssize_t changed
    cdef mb_touch_fn touch = NULL
    cdef void* pmem = NULL
    cdef int parts
    j.c = c
    j.val = val
    j.vt = vt
    j.ix = ix
    j.it = it
    j.indptr = indptr
    j.row_len = row_len
    j.y = y
    j.pred = pred
    j.upd = upd
    j.sw = sw
    c.sw = 1.0
    j.n_seen = c.counts[0]
    j.mistakes = 0
    j.check = check and indptr != NULL
    j.err = OK
    j.scr = NULL
    j.sp = NULL
    j.pscr = NULL
    j.cur_row = 0
    j.defer = 0
    j.pend = 0
    j.flush_only = 0
    j.pend_bad = 0
    j.prow = 0
    # per slot: acc (4K), s (K), m (K) doubles, then act (4d + 4 ints, as MultiState's)
    j.stride = 6 * c.K + (4 * c.d + 4 + 1) // 2 + 1
    if c.p.algo == HINGE or n_rows < 2:
        threads = 1
    if threads > MB_SPEC_MAXT:
        threads = MB_SPEC_MAXT
    if threads > 1:
        j.scr = <double*>malloc((threads - 1) * j.stride * sizeof(double))
        if j.scr == NULL:
            threads = 1
    if threads > 1 and c.K * mc_terms_est(val, vt, indptr, it, n_rows, row_len) >= \
            mc_split_work:
        # the parts: the four partial sums in nb groups (2 threads: halves, 4 or more:
        # quarters), times nk ranges of at least 16 classes for the threads beyond 4
        j.nb = 4 if threads >= 4 else 2
        j.nk = threads // j.nb
        if j.nk > c.K // 16:
            j.nk = <int>(c.K // 16)
        if j.nk < 1:
            j.nk = 1
        parts = j.nb * j.nk
        # per part: a header (8), acc (4K), xs (d) doubles, js and bs (d ints each), in whole
        # cache lines
        j.pstride = (8 + 4 * c.K + 2 * c.d + 7) // 8 * 8
        # (the Perceptron's update of a dense row waits for the parts: see MCJob)
        j.defer = indptr == NULL and c.p.algo == PERCEPTRON and not c.ovr
        pmem = malloc((parts * j.pstride + 8) * sizeof(double))
        if pmem != NULL:
            j.pscr = <double*>((<size_t>pmem + 63) & ~(<size_t>63))
            j.sp = mb_split_new(mc_part_cb, &j, parts)
    # (CSR rows gain from being read ahead of the sequential stretches: see lin_pass)
    # K-class rows cost K times more arithmetic per value: read ahead, dense rows too
    touch = mc_touch_cb
    changed = mb_spec_pass_split(threads, n_rows, &j, mc_scan_cb, mc_run_cb, touch, j.sp, bad)
    if stats != NULL and j.sp != NULL:
        stats[0] = j.sp.rows
        stats[1] = j.sp.steals
        stats[2] = j.sp.stretches
        stats[3] = j.sp.late
    if j.sp != NULL:
        mb_split_free(j.sp)
    free(pmem)
    free(j.scr)
    if changed < 0:
        return j.err
    c.counts[0] += n_rows
    c.counts[1] += j.mistakes
    c.counts[2] += changed
    return OK


cdef void add_mc_stats(const long long* stats) noexcept:
    """Add a pass's counts to mc_stats (with the GIL: passes in several Python threads)."""
    cdef int k
    for k in range(4):
        mc_stats[k] += stats[k]


def mc_pass_dense(MultiState st, const floating[:, ::1] X, const int[::1] y,
                  int[::1] pred=None, unsigned char[::1] upd=None, int threads=1,
                  const double[::1] sw=None):
    """One online pass over dense rows with class indices y in [0, K); returns (status, bad).
    sw: the rows' sample weights (finite, >= 0), or None."""
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef MCCtx c = st.ctx()
    cdef int* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef int vt = 1 if sizeof(floating) == 8 else 0
    if X.shape[1] != st.d or y.shape[0] != X.shape[0] or \
            (pred is not None and pred.shape[0] != X.shape[0]) or \
            (upd is not None and upd.shape[0] != X.shape[0]):
        raise ValueError("mc_pass_dense: the arrays do not match the state")
    cdef const double* wp = weights_ptr(sw, X.shape[0])
    cdef long long stats[4]
    stats[:] = [0, 0, 0, 0]
    with nogil:
        status = mc_pass(&c, &X[0, 0], vt, NULL, 0, NULL, X.shape[0], X.shape[1], &y[0], pp,
                         up, 0, threads, &bad, wp, stats)
    add_mc_stats(stats)
    return status, bad


def mc_pass_csr(MultiState st, const floating[::1] data, const index_t[::1] indices,
                const index_t[::1] indptr, const int[::1] y, int[::1] pred=None,
                unsigned char[::1] upd=None, bint check=True, int threads=1,
                const double[::1] sw=None):
    """As mc_pass_dense, for CSR rows (indptr checked; ``check``: each row's column indices
    are checked as the pass reads it, as in lin_pass_csr)."""
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef MCCtx c = st.ctx()
    cdef int* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    cdef Py_ssize_t n = indptr.shape[0] - 1
    cdef int vt = 1 if sizeof(floating) == 8 else 0
    cdef int it = 1 if sizeof(index_t) == 8 else 0
    # (a checked row has at most d distinct indices: the scratch holds d terms; unchecked rows
    # must come from a checked matrix)
    if (not check and longest_row(indptr) > st.d) or y.shape[0] != n or \
            (pred is not None and pred.shape[0] != n) or (upd is not None and upd.shape[0] != n):
        raise ValueError("mc_pass_csr: the arrays do not match the state (or unchecked CSR)")
    cdef const double* wp = weights_ptr(sw, n)
    cdef long long stats[4]
    stats[:] = [0, 0, 0, 0]
    with nogil:
        status = mc_pass(&c, dp, vt, ip, it, &indptr[0], n, 0, &y[0], pp, up, check, threads,
                         &bad, wp, stats)
    add_mc_stats(stats)
    return status, bad


cdef int mc_scores_impl(const double* W, Py_ssize_t K, double a, Py_ssize_t d, int intercept,
                        int normalize, const floating* val, const index_t* ix,
                        const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                        double* out, Py_ssize_t* bad) noexcept nogil:
    """out[i, k] = the score of class k on row i (a * w_k . x + b_k, times 1/||x'||)."""
    cdef Params p
    cdef Py_ssize_t i, n, k
    cdef double inv = 1.0, sk
    cdef const floating* v
    cdef const index_t* xi
    cdef double* acc = <double*>malloc(4 * K * sizeof(double))
    cdef int* act = <int*>malloc((4 * d + 4) * sizeof(int))   # (rows have at most d terms)
    cdef double* s
    if acc == NULL or act == NULL:
        free(acc)
        free(act)
        bad[0] = -1
        return NEED_ROOM
    p.intercept = intercept
    for i in range(n_rows):
        n = row_at(val, ix, indptr, row_len, i, &v, &xi)
        if normalize:
            inv = row_inv(&p, v, n)
        s = out + i * K
        mc_raw(W, K, v, xi, n, acc, act, s)
        for k in range(K):
            sk = a * s[k]
            if intercept:
                sk = sk + W[d * K + k]
            if normalize:
                sk = sk * inv
            if not isfinite(sk):
                free(acc)
                free(act)
                bad[0] = i
                return BAD_ROW
            s[k] = sk
    free(acc)
    free(act)
    return OK


def mc_scores_dense(const double[::1] W, Py_ssize_t K, double a, Py_ssize_t d, bint intercept,
                    bint normalize, const floating[:, ::1] X, double[:, ::1] out):
    """Every class score of every dense row into out (n, K); returns (status, bad_row)."""
    cdef Py_ssize_t bad = -1
    cdef int status
    if W.shape[0] != (d + (1 if intercept else 0)) * K or X.shape[1] != d or \
            out.shape[0] != X.shape[0] or out.shape[1] != K:
        raise ValueError("mc_scores_dense: shapes do not match")
    with nogil:
        status = mc_scores_impl(&W[0], K, a, d, intercept, normalize, &X[0, 0],
                                <const int*>NULL, <const int*>NULL, X.shape[0], X.shape[1],
                                &out[0, 0], &bad)
    if status == NEED_ROOM:
        raise MemoryError()
    return status, bad


def mc_scores_csr(const double[::1] W, Py_ssize_t K, double a, Py_ssize_t d, bint intercept,
                  bint normalize, const floating[::1] data, const index_t[::1] indices,
                  const index_t[::1] indptr, double[:, ::1] out):
    """As mc_scores_dense, for CSR rows (whose indices were checked against d)."""
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    if W.shape[0] != (d + (1 if intercept else 0)) * K or \
            out.shape[0] != indptr.shape[0] - 1 or out.shape[1] != K or \
            longest_row(indptr) > d:
        raise ValueError("mc_scores_csr: shapes do not match")
    with nogil:
        status = mc_scores_impl(&W[0], K, a, d, intercept, normalize, dp, ip, &indptr[0],
                                indptr.shape[0] - 1, 0, &out[0, 0], &bad)
    if status == NEED_ROOM:
        raise MemoryError()
    return status, bad


# ---------------------------------------------------------------------------------------------
# Voted Perceptron: replay the updates of a pass to record the prediction vectors
# ---------------------------------------------------------------------------------------------

cdef void replay_impl(const Params* p, double* w, Py_ssize_t d, const floating* val,
                      const index_t* ix, const index_t* indptr, Py_ssize_t row_len,
                      const long long* rows, Py_ssize_t n_upd, const signed char* y,
                      double* out, Py_ssize_t D, const double* sw=NULL) noexcept nogil:
    cdef Py_ssize_t k, i, n
    cdef const floating* v
    cdef const index_t* xi
    cdef double c, inv = 1.0
    for k in range(n_upd):
        i = rows[k]
        n = row_at(val, ix, indptr, row_len, i, &v, &xi)
        c = p.eta * <double>y[i]
        if p.normalize:
            inv = row_inv(p, v, n)
            c = c * inv
        if sw != NULL:
            c = c * sw[i]
        apply_update(p, w, d, c, v, xi, n)
        memcpy(out + k * D, w, D * sizeof(double))


def replay_dense(double[::1] w, Py_ssize_t d, bint intercept, bint normalize, double eta,
                 const floating[:, ::1] X, const long long[::1] rows, const signed char[::1] y,
                 double[:, ::1] out, const double[::1] sw=None):
    """Re-apply the Perceptron updates made on ``rows`` from ``w`` and record w after each
    (sw: the rows' sample weights, or None)."""
    cdef Params p
    cdef const double* wp = weights_ptr(sw, X.shape[0])
    p.intercept = intercept
    p.normalize = normalize
    p.eta = eta
    if rows.shape[0] == 0:
        return
    with nogil:
        replay_impl(&p, &w[0], d, &X[0, 0], <const int*>NULL, <const int*>NULL, X.shape[1],
                    &rows[0], rows.shape[0], &y[0], &out[0, 0], out.shape[1], wp)


def replay_csr(double[::1] w, Py_ssize_t d, bint intercept, bint normalize, double eta,
               const floating[::1] data, const index_t[::1] indices, const index_t[::1] indptr,
               const long long[::1] rows, const signed char[::1] y, double[:, ::1] out,
               const double[::1] sw=None):
    """As replay_dense, for CSR rows."""
    cdef Params p
    cdef const double* wp = weights_ptr(sw, indptr.shape[0] - 1)
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    p.intercept = intercept
    p.normalize = normalize
    p.eta = eta
    if rows.shape[0] == 0:
        return
    with nogil:
        replay_impl(&p, &w[0], d, dp, ip, &indptr[0], 0, &rows[0], rows.shape[0], &y[0],
                    &out[0, 0], out.shape[1], wp)


cdef int vote_impl(const Params* p, const double* V, const long long* counts, Py_ssize_t K,
                   Py_ssize_t D, Py_ssize_t d, const floating* val, const index_t* ix,
                   const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len, double* out,
                   Py_ssize_t* bad) noexcept nogil:
    cdef Py_ssize_t i, k, n
    cdef double inv = 1.0, s, total
    cdef const floating* v
    cdef const index_t* xi
    for i in range(n_rows):
        n = row_at(val, ix, indptr, row_len, i, &v, &xi)
        if p.normalize:
            inv = row_inv(p, v, n)
        total = 0.0
        for k in range(K):
            s = raw_score(p, V + k * D, 1.0, d, v, xi, n, inv)
            if not isfinite(s):
                bad[0] = i
                return BAD_ROW
            total = total + <double>(counts[k] * sign_of(s, p.tie_pos))
        out[i] = total
    return OK


def vote_scores_dense(const double[:, ::1] V, const long long[::1] counts, Py_ssize_t d,
                      bint intercept, bint normalize, bint tie_pos, const floating[:, ::1] X,
                      double[::1] out):
    """Voted Perceptron: sum_k c_k sign(v_k . x) for every row."""
    cdef Params p
    cdef Py_ssize_t bad = -1
    cdef int status
    p.intercept = intercept
    p.normalize = normalize
    p.tie_pos = tie_pos
    with nogil:
        status = vote_impl(&p, &V[0, 0], &counts[0], V.shape[0], V.shape[1], d, &X[0, 0],
                           <const int*>NULL, <const int*>NULL, X.shape[0], X.shape[1], &out[0],
                           &bad)
    return status, bad


def vote_scores_csr(const double[:, ::1] V, const long long[::1] counts, Py_ssize_t d,
                    bint intercept, bint normalize, bint tie_pos, const floating[::1] data,
                    const index_t[::1] indices, const index_t[::1] indptr, double[::1] out):
    """As vote_scores_dense, for CSR rows."""
    cdef Params p
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    p.intercept = intercept
    p.normalize = normalize
    p.tie_pos = tie_pos
    with nogil:
        status = vote_impl(&p, &V[0, 0], &counts[0], V.shape[0], V.shape[1], d, dp, ip,
                           &indptr[0], indptr.shape[0] - 1, 0, &out[0], &bad)
    return status, bad


# ---------------------------------------------------------------------------------------------
# Kernel Perceptron
# ---------------------------------------------------------------------------------------------

cdef enum:
    K_LINEAR = 0
    K_POLY = 1
    K_RBF = 2


cdef struct KParams:
    int kind
    int degree
    int tie_pos
    double gamma
    double coef0


cdef inline double sqdist_row(const double* z, double zz, const floating* v, const index_t* ix,
                              Py_ssize_t n) noexcept nogil:
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, t0, t1, t2, t3, r
    cdef Py_ssize_t k, n4 = n - (n % 4)
    if ix == NULL:
        for k in range(0, n4, 4):
            t0 = v[k] - z[k]
            t1 = v[k + 1] - z[k + 1]
            t2 = v[k + 2] - z[k + 2]
            t3 = v[k + 3] - z[k + 3]
            s0 += t0 * t0
            s1 += t1 * t1
            s2 += t2 * t2
            s3 += t3 * t3
        if n4 < n:
            t0 = v[n4] - z[n4]
            s0 += t0 * t0
        if n4 + 1 < n:
            t1 = v[n4 + 1] - z[n4 + 1]
            s1 += t1 * t1
        if n4 + 2 < n:
            t2 = v[n4 + 2] - z[n4 + 2]
            s2 += t2 * t2
        return (s0 + s1) + (s2 + s3)
    r = (sumsq_vals(v, n) + zz) - 2.0 * dot_row(z, v, ix, n)
    return r if r > 0.0 else 0.0


cdef inline double kval(const KParams* kp, const double* z, double zz, const floating* v,
                        const index_t* ix, Py_ssize_t n) noexcept nogil:
    cdef double base, r
    cdef int e
    if kp.kind == K_LINEAR:
        return dot_row(z, v, ix, n)
    if kp.kind == K_POLY:
        base = kp.gamma * dot_row(z, v, ix, n) + kp.coef0
        r = base
        for e in range(kp.degree - 1):
            r = r * base
        return r
    return exp(-kp.gamma * sqdist_row(z, zz, v, ix, n))


cdef inline double kscore(const KParams* kp, const double* sv, const double* svn,
                          const double* coef, Py_ssize_t n_sv, Py_ssize_t d, const floating* v,
                          const index_t* ix, Py_ssize_t n) noexcept nogil:
    cdef double f = 0.0
    cdef Py_ssize_t s
    for s in range(n_sv):
        f = f + coef[s] * kval(kp, sv + s * d, svn[s], v, ix, n)
    return f


cdef Py_ssize_t kp_store(double* sv, double* svn, long long* meta, long long budget,
                         Py_ssize_t d, const floating* v, const index_t* xi,
                         Py_ssize_t n) noexcept nogil:
    """Store the row as a support vector in the next slot (appended, or with a full budget
    over the oldest: the ring) with its squared norm; returns the slot, or -1 when that norm
    overflows."""
    cdef Py_ssize_t slot, k
    cdef double* z
    cdef double zz
    if budget > 0 and meta[0] == budget:
        slot = meta[1]
        meta[1] = (slot + 1) % budget
    else:
        slot = meta[0]
        meta[0] += 1
    z = sv + slot * d
    if xi == NULL:
        for k in range(d):
            z[k] = v[k]
    else:
        memset(z, 0, d * sizeof(double))
        for k in range(n):
            z[xi[k]] = v[k]
    zz = sumsq_vals(z, d)
    if not isfinite(zz):
        return -1
    svn[slot] = zz
    return slot


cdef int kp_pass(const KParams* kp, double* sv, double* svn, double* coef, long long* meta,
                 Py_ssize_t cap, long long budget, Py_ssize_t d, long long* counts,
                 const floating* val, const index_t* ix, const index_t* indptr,
                 Py_ssize_t n_rows, Py_ssize_t row_len, const signed char* y, signed char* pred,
                 unsigned char* upd, Py_ssize_t* stop, double* fout=NULL,
                 const double* sw=NULL) noexcept nogil:
    """meta = [n_sv, head].  Stops with NEED_ROOM at row stop[0] when a new support vector may
    not fit, with BAD_ROW at row stop[0] on a non-finite score or a support vector whose squared
    norm overflows (the caller restores meta, counts and any overwritten slot).  fout, when not
    NULL, receives each row's score (the one-vs-rest learners' class scores)."""
    cdef Py_ssize_t i, n, slot
    cdef const floating* v
    cdef const index_t* xi
    cdef double f
    cdef int pr
    for i in range(n_rows):
        if meta[0] == cap and (budget <= 0 or meta[0] < budget):
            stop[0] = i
            return NEED_ROOM
        n = row_at(val, ix, indptr, row_len, i, &v, &xi)
        f = kscore(kp, sv, svn, coef, meta[0], d, v, xi, n)
        if not isfinite(f):
            stop[0] = i
            return BAD_ROW
        if fout != NULL:
            fout[i] = f
        pr = sign_of(f, kp.tie_pos)
        counts[0] += 1
        if pred != NULL:
            pred[i] = pr
        if pr == y[i]:
            if upd != NULL:
                upd[i] = 0
            continue
        counts[1] += 1
        if sw != NULL and sw[i] == 0.0:     # weight 0: a mistake, never an update
            if upd != NULL:
                upd[i] = 0
            continue
        counts[2] += 1
        if upd != NULL:
            upd[i] = 1
        slot = kp_store(sv, svn, meta, budget, d, v, xi, n)
        if slot < 0:
            stop[0] = i
            return BAD_ROW
        coef[slot] = <double>y[i] if sw == NULL else <double>y[i] * sw[i]
    stop[0] = n_rows
    return OK


cdef KParams make_kparams(int kind, int degree, bint tie_pos, double gamma, double coef0):
    cdef KParams kp
    kp.kind = kind
    kp.degree = degree
    kp.tie_pos = tie_pos
    kp.gamma = gamma
    kp.coef0 = coef0
    return kp


def kp_pass_dense(int kind, int degree, bint tie_pos, double gamma, double coef0,
                  double[:, ::1] sv, double[::1] svn, double[::1] coef, long long[::1] meta,
                  long long budget, long long[::1] counts, const floating[:, ::1] X,
                  Py_ssize_t start, const signed char[::1] y, signed char[::1] pred,
                  unsigned char[::1] upd, double[::1] scores=None, const double[::1] sw=None):
    """Kernel Perceptron pass over dense rows X[start:]; returns (status, row).  scores, when
    given, receives each row's score; sw: the rows' sample weights (of all of X), or None."""
    cdef KParams kp = make_kparams(kind, degree, tie_pos, gamma, coef0)
    cdef Py_ssize_t stop = 0
    cdef int status
    cdef Py_ssize_t d = X.shape[1]
    cdef double* fp = NULL
    if start >= X.shape[0]:
        return OK, start
    if scores is not None:
        if scores.shape[0] != X.shape[0]:
            raise ValueError("kp_pass_dense: scores does not match X")
        fp = &scores[start]
    cdef const double* wp = weights_ptr(sw, X.shape[0])
    if wp != NULL:
        wp = wp + start
    with nogil:
        status = kp_pass(&kp, &sv[0, 0], &svn[0], &coef[0], &meta[0], sv.shape[0], budget, d,
                         &counts[0], &X[start, 0], <const int*>NULL, <const int*>NULL,
                         X.shape[0] - start, d, &y[start], &pred[start], &upd[start], &stop, fp,
                         wp)
    return status, start + stop


def kp_pass_csr(int kind, int degree, bint tie_pos, double gamma, double coef0,
                double[:, ::1] sv, double[::1] svn, double[::1] coef, long long[::1] meta,
                long long budget, long long[::1] counts, const floating[::1] data,
                const index_t[::1] indices, const index_t[::1] indptr, Py_ssize_t start,
                const signed char[::1] y, signed char[::1] pred, unsigned char[::1] upd,
                double[::1] scores=None, const double[::1] sw=None):
    """Kernel Perceptron pass over CSR rows start..; returns (status, row)."""
    cdef KParams kp = make_kparams(kind, degree, tie_pos, gamma, coef0)
    cdef Py_ssize_t stop = 0
    cdef int status
    cdef Py_ssize_t d = sv.shape[1]
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    cdef double* fp = NULL
    if start >= indptr.shape[0] - 1:
        return OK, start
    if scores is not None:
        if scores.shape[0] != indptr.shape[0] - 1:
            raise ValueError("kp_pass_csr: scores does not match X")
        fp = &scores[start]
    cdef const double* wp = weights_ptr(sw, indptr.shape[0] - 1)
    if wp != NULL:
        wp = wp + start
    with nogil:
        status = kp_pass(&kp, &sv[0, 0], &svn[0], &coef[0], &meta[0], sv.shape[0], budget, d,
                         &counts[0], dp, ip, &indptr[start], indptr.shape[0] - 1 - start, 0,
                         &y[start], &pred[start], &upd[start], &stop, fp, wp)
    return status, start + stop


# -- more than two classes: Kesler's construction in feature space -----------------------------
# The support vectors carry a row of K coefficients (A[s * K + k]); each kernel value is
# computed once per support vector and added to every class's score, in slot order.

cdef inline void kpm_scores_row(const KParams* kp, const double* sv, const double* svn,
                                const double* A, Py_ssize_t n_sv, Py_ssize_t d, Py_ssize_t K,
                                const floating* v, const index_t* ix, Py_ssize_t n,
                                double* f) noexcept nogil:
    cdef Py_ssize_t s, k
    cdef double kv
    for k in range(K):
        f[k] = 0.0
    for s in range(n_sv):
        kv = kval(kp, sv + s * d, svn[s], v, ix, n)
        for k in range(K):
            f[k] = f[k] + A[s * K + k] * kv


cdef int kpm_pass(const KParams* kp, double* sv, double* svn, double* A, long long* meta,
                  Py_ssize_t cap, long long budget, Py_ssize_t d, Py_ssize_t K,
                  long long* counts, const floating* val, const index_t* ix,
                  const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len, const int* y,
                  int* pred, unsigned char* upd, double* f, Py_ssize_t* stop,
                  const double* sw=NULL) noexcept nogil:
    """The multi-class kernel Perceptron (see kp_pass for meta, NEED_ROOM and BAD_ROW): predict
    the argmax of the K scores (f: K doubles of scratch); on a mistake store the row with +1
    for its class and -1 for the predicted one."""
    cdef Py_ssize_t i, n, slot, k, best
    cdef const floating* v
    cdef const index_t* xi
    for i in range(n_rows):
        if meta[0] == cap and (budget <= 0 or meta[0] < budget):
            stop[0] = i
            return NEED_ROOM
        n = row_at(val, ix, indptr, row_len, i, &v, &xi)
        kpm_scores_row(kp, sv, svn, A, meta[0], d, K, v, xi, n, f)
        best = 0
        for k in range(K):
            if not isfinite(f[k]):
                stop[0] = i
                return BAD_ROW
            if f[k] > f[best]:
                best = k
        counts[0] += 1
        pred[i] = <int>best
        if best == y[i]:
            upd[i] = 0
            continue
        counts[1] += 1
        if sw != NULL and sw[i] == 0.0:     # weight 0: a mistake, never an update
            upd[i] = 0
            continue
        counts[2] += 1
        upd[i] = 1
        slot = kp_store(sv, svn, meta, budget, d, v, xi, n)
        if slot < 0:
            stop[0] = i
            return BAD_ROW
        for k in range(K):
            A[slot * K + k] = 0.0
        A[slot * K + y[i]] = 1.0 if sw == NULL else sw[i]
        A[slot * K + best] = -1.0 if sw == NULL else -sw[i]
    stop[0] = n_rows
    return OK


def kpm_pass_dense(int kind, int degree, double gamma, double coef0, double[:, ::1] sv,
                   double[::1] svn, double[:, ::1] A, long long[::1] meta, long long budget,
                   long long[::1] counts, const floating[:, ::1] X, Py_ssize_t start,
                   const int[::1] y, int[::1] pred, unsigned char[::1] upd,
                   const double[::1] sw=None):
    """Multi-class kernel Perceptron pass over dense rows X[start:]; returns (status, row)."""
    cdef KParams kp = make_kparams(kind, degree, 0, gamma, coef0)
    cdef Py_ssize_t stop = 0, K = A.shape[1], n = X.shape[0]
    cdef int status
    cdef Py_ssize_t d = X.shape[1]
    cdef double[::1] f = np.empty(K)
    if sv.shape[1] != d or A.shape[0] != sv.shape[0] or svn.shape[0] != sv.shape[0] or \
            meta.shape[0] != 2 or counts.shape[0] != 3 or y.shape[0] != n or \
            pred.shape[0] != n or upd.shape[0] != n or K < 3:
        raise ValueError("kpm_pass_dense: the arrays do not match")
    if start >= n:
        return OK, start
    cdef const double* wp = weights_ptr(sw, n)
    if wp != NULL:
        wp = wp + start
    with nogil:
        status = kpm_pass(&kp, &sv[0, 0], &svn[0], &A[0, 0], &meta[0], sv.shape[0], budget, d,
                          K, &counts[0], &X[start, 0], <const int*>NULL, <const int*>NULL,
                          n - start, d, &y[start], &pred[start], &upd[start], &f[0], &stop, wp)
    return status, start + stop


def kpm_pass_csr(int kind, int degree, double gamma, double coef0, double[:, ::1] sv,
                 double[::1] svn, double[:, ::1] A, long long[::1] meta, long long budget,
                 long long[::1] counts, const floating[::1] data, const index_t[::1] indices,
                 const index_t[::1] indptr, Py_ssize_t start, const int[::1] y, int[::1] pred,
                 unsigned char[::1] upd, const double[::1] sw=None):
    """As kpm_pass_dense, for CSR rows (indices checked against sv.shape[1])."""
    cdef KParams kp = make_kparams(kind, degree, 0, gamma, coef0)
    cdef Py_ssize_t stop = 0, K = A.shape[1], n = indptr.shape[0] - 1
    cdef int status
    cdef Py_ssize_t d = sv.shape[1]
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    cdef double[::1] f = np.empty(K)
    if A.shape[0] != sv.shape[0] or svn.shape[0] != sv.shape[0] or meta.shape[0] != 2 or \
            counts.shape[0] != 3 or y.shape[0] != n or pred.shape[0] != n or \
            upd.shape[0] != n or K < 3:
        raise ValueError("kpm_pass_csr: the arrays do not match")
    if start >= n:
        return OK, start
    cdef const double* wp = weights_ptr(sw, n)
    if wp != NULL:
        wp = wp + start
    with nogil:
        status = kpm_pass(&kp, &sv[0, 0], &svn[0], &A[0, 0], &meta[0], sv.shape[0], budget, d,
                          K, &counts[0], dp, ip, &indptr[start], n - start, 0, &y[start],
                          &pred[start], &upd[start], &f[0], &stop, wp)
    return status, start + stop


cdef int kpm_scores_impl(const KParams* kp, const double* sv, const double* svn,
                         const double* A, Py_ssize_t n_sv, Py_ssize_t d, Py_ssize_t K,
                         const floating* val, const index_t* ix, const index_t* indptr,
                         Py_ssize_t n_rows, Py_ssize_t row_len, double* out,
                         Py_ssize_t* bad) noexcept nogil:
    cdef Py_ssize_t i, n, k
    cdef const floating* v
    cdef const index_t* xi
    for i in range(n_rows):
        n = row_at(val, ix, indptr, row_len, i, &v, &xi)
        kpm_scores_row(kp, sv, svn, A, n_sv, d, K, v, xi, n, out + i * K)
        for k in range(K):
            if not isfinite(out[i * K + k]):
                bad[0] = i
                return BAD_ROW
    return OK


def kpm_scores_dense(int kind, int degree, double gamma, double coef0, const double[:, ::1] sv,
                     const double[::1] svn, const double[:, ::1] A, Py_ssize_t n_sv,
                     const floating[:, ::1] X, double[:, ::1] out):
    """The K scores of every dense row into out (n, K); returns (status, bad_row)."""
    cdef KParams kp = make_kparams(kind, degree, 0, gamma, coef0)
    cdef Py_ssize_t bad = -1, K = A.shape[1]
    cdef int status
    if sv.shape[1] != X.shape[1] or A.shape[0] != sv.shape[0] or n_sv > sv.shape[0] or \
            n_sv < 0 or svn.shape[0] != sv.shape[0] or out.shape[0] != X.shape[0] or \
            out.shape[1] != K:
        raise ValueError("kpm_scores_dense: the arrays do not match")
    with nogil:
        status = kpm_scores_impl(&kp, &sv[0, 0], &svn[0], &A[0, 0], n_sv, sv.shape[1], K,
                                 &X[0, 0], <const int*>NULL, <const int*>NULL, X.shape[0],
                                 X.shape[1], &out[0, 0], &bad)
    return status, bad


def kpm_scores_csr(int kind, int degree, double gamma, double coef0, const double[:, ::1] sv,
                   const double[::1] svn, const double[:, ::1] A, Py_ssize_t n_sv,
                   const floating[::1] data, const index_t[::1] indices,
                   const index_t[::1] indptr, double[:, ::1] out):
    """As kpm_scores_dense, for CSR rows."""
    cdef KParams kp = make_kparams(kind, degree, 0, gamma, coef0)
    cdef Py_ssize_t bad = -1, K = A.shape[1]
    cdef int status
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    if A.shape[0] != sv.shape[0] or n_sv > sv.shape[0] or n_sv < 0 or \
            svn.shape[0] != sv.shape[0] or out.shape[0] != indptr.shape[0] - 1 or \
            out.shape[1] != K:
        raise ValueError("kpm_scores_csr: the arrays do not match")
    with nogil:
        status = kpm_scores_impl(&kp, &sv[0, 0], &svn[0], &A[0, 0], n_sv, sv.shape[1], K, dp,
                                 ip, &indptr[0], indptr.shape[0] - 1, 0, &out[0, 0], &bad)
    return status, bad


cdef int kp_scores_impl(const KParams* kp, const double* sv, const double* svn,
                        const double* coef, Py_ssize_t n_sv, Py_ssize_t d, const floating* val,
                        const index_t* ix, const index_t* indptr, Py_ssize_t n_rows,
                        Py_ssize_t row_len, double* out, Py_ssize_t* bad) noexcept nogil:
    cdef Py_ssize_t i, n
    cdef const floating* v
    cdef const index_t* xi
    cdef double f
    for i in range(n_rows):
        n = row_at(val, ix, indptr, row_len, i, &v, &xi)
        f = kscore(kp, sv, svn, coef, n_sv, d, v, xi, n)
        if not isfinite(f):
            bad[0] = i
            return BAD_ROW
        out[i] = f
    return OK


def kp_scores_dense(int kind, int degree, double gamma, double coef0, const double[:, ::1] sv,
                    const double[::1] svn, const double[::1] coef, Py_ssize_t n_sv,
                    const floating[:, ::1] X, double[::1] out):
    """f(x) = sum_s coef[s] K(sv[s], x) for every dense row."""
    cdef KParams kp = make_kparams(kind, degree, 0, gamma, coef0)
    cdef Py_ssize_t bad = -1
    cdef int status
    with nogil:
        status = kp_scores_impl(&kp, &sv[0, 0], &svn[0], &coef[0], n_sv, sv.shape[1], &X[0, 0],
                                <const int*>NULL, <const int*>NULL, X.shape[0], X.shape[1],
                                &out[0], &bad)
    return status, bad


def kp_scores_csr(int kind, int degree, double gamma, double coef0, const double[:, ::1] sv,
                  const double[::1] svn, const double[::1] coef, Py_ssize_t n_sv,
                  const floating[::1] data, const index_t[::1] indices,
                  const index_t[::1] indptr, double[::1] out):
    """As kp_scores_dense, for CSR rows."""
    cdef KParams kp = make_kparams(kind, degree, 0, gamma, coef0)
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef floating dummy_v = 0
    cdef index_t dummy_i = 0
    cdef const floating* dp = values_ptr(data, &dummy_v)
    cdef const index_t* ip = index_ptr(indices, &dummy_i)
    with nogil:
        status = kp_scores_impl(&kp, &sv[0, 0], &svn[0], &coef[0], n_sv, sv.shape[1], dp, ip,
                                &indptr[0], indptr.shape[0] - 1, 0, &out[0], &bad)
    return status, bad


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


def sqnorm(const double[::1] w, Py_ssize_t d, bint intercept):
    """||w||^2 in the kernels' summation order (the intercept weight added last)."""
    return sqnorm_w(&w[0], d, intercept)


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
