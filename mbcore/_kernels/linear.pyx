# cython: language_level=3
"""Compiled kernels of the binary linear learners of the additive family (Perceptron, Margin,
Averaged/Voted, Hinge, Passive-Aggressive): their rules, passes, scores, the voted replay and the
one-example path.  The K-class passes are in ``multiclass``, the kernel Perceptron in ``kernel``,
the input checks in ``checks``; the arithmetic all of them share in ``_arith.pxd``.

Each entry point runs a whole pass over a batch with the GIL released.  The arithmetic follows the
contract written in ``mbref._arith`` (four interleaved partial sums, no fused multiply-add), so that
the pure-Python twin reproduces every prediction and update bit for bit.

A pass is all or nothing: the state is saved at the start of the call and restored if a row fails
(a non-finite score, which is how NaN/inf in X shows up, or a weight that overflows).  The Python
layer then raises with the row index.
"""


from libc.math cimport sqrt, isfinite, INFINITY, NAN
from libc.string cimport memcpy, memset

import numpy as np

from ._arith cimport (floating, index_t, PERCEPTRON, MARGIN, HINGE, PA, Params, PEGASOS_RESCALE,
                      dot_row, axpy_row, sqnorm_w, row_inv, raw_score, sign_of, row_sqnorm,
                      pa_step_size, check_rule, make_lin_params, mb_gather_choose,
                      mb_gather_dispatches, mb_prefetch_bytes)
from ._rows cimport (Rows, dense_rows, rows_of, ADDITIVE_CODES, OK, BAD_ROW, BAD_INDEX,
                     BAD_ORDER, BAD_SHAPE, row_at, csr_row_ok)

from ._spec cimport (mb_spec_pass, mb_touch_fn, spec_tuning_impl, touch_rows, volatile_load,
                     store_release, load_acquire, atomic_add)
from ._select cimport SelCtx, select_coin, select_init


# ---------------------------------------------------------------------------------------------
# Test and benchmark hooks: run-time knobs and counters of this module (gather_impl,
# gather_dispatches, spec_tuning, dense_prefetch, readahead_checked_rows).  None changes a
# result; each is module-global state, not thread-safe: set it before the passes.  The
# K-class passes have their own (mbcore._kernels.multiclass: spec_tuning, mc_split_tuning,
# mc_split_stats).
# ---------------------------------------------------------------------------------------------

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


# ---------------------------------------------------------------------------------------------
# One online step of the binary linear learners
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


# Each rule's judge (does the row call for its update? from the prediction pr, the score s and
# the margin m) and its step (the update, once the judge says so), side by side; lin_judge and
# lin_step below compute what every rule reads and branch on p.algo to them, once per row (all
# inline: no call per row).  A new rule adds its pair here and its branch in both.

# -- Perceptron (and the Averaged and Voted Perceptrons): a mistake; w += eta y x -----------------

cdef inline int perceptron_judge(int y, int pr) noexcept nogil:
    return pr != y


cdef inline int perceptron_step(const Params* p, double* w, double* u, Py_ssize_t d,
                                const floating* v, const index_t* ix, Py_ssize_t n, double yd,
                                long long t, double sw, double inv, double* c_out) noexcept nogil:
    cdef double c = p.eta * yd
    if p.normalize:
        c = c * inv
    c = c * sw
    c_out[0] = c
    if not apply_update(p, w, d, c, v, ix, n):
        return -1
    if p.average:
        if not apply_update(p, u, d, (<double>t) * c, v, ix, n):
            return -1
    return 1


# -- Margin Perceptron: a mistake or a margin mistake (|m| < thr); w += y x ----------------------

cdef inline int margin_judge(const Params* p, int y, int pr, double m) noexcept nogil:
    return pr != y or (-p.thr < m and m < p.thr)


cdef inline int margin_step(const Params* p, double* w, double* aux, Py_ssize_t d,
                            const floating* v, const index_t* ix, Py_ssize_t n, double yd,
                            double sw, double inv, double* c_out) noexcept nogil:
    cdef double c = (yd * inv) * sw
    c_out[0] = c
    if not apply_update(p, w, d, c, v, ix, n):
        return -1
    aux[1] = sqnorm_w(w, d, p.intercept)
    if not isfinite(aux[1]):
        return -1
    return 1


# -- Passive-Aggressive: a positive hinge loss; w += tau y x (pa_step_size) -------------------

cdef inline int pa_judge(int y, double s) noexcept nogil:
    return (<double>y) * s < 1.0


cdef inline int pa_step(const Params* p, double* w, Py_ssize_t d, const floating* v,
                        const index_t* ix, Py_ssize_t n, double yd, double s,
                        double sw, double* c_out) noexcept nogil:
    cdef double c = pa_step_size(p, 1.0 - yd * s, row_sqnorm(p, v, n), sw) * yd
    c_out[0] = c
    if c != 0.0:
        if not apply_update(p, w, d, c, v, ix, n):
            return -1
        return 1
    return 0


# -- Hinge (SGD or Pegasos): w shrinks on every row; a positive hinge loss adds eta_t y x -------
# (its judge, a mistake, only counts: the step decides by the loss, and its pass never
# speculates)

cdef inline int hinge_judge(int y, int pr) noexcept nogil:
    return pr != y


cdef inline int hinge_step(const Params* p, double* w, double* aux, Py_ssize_t d,
                           const floating* v, const index_t* ix, Py_ssize_t n, double yd,
                           long long t, double sw, double inv, double s,
                           double* c_out) noexcept nogil:
    cdef double c, a, factor, eta_t, ca
    cdef Py_ssize_t j
    cdef int upd = yd * s < 1.0 and sw != 0.0
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
        c_out[0] = c
        ca = c / a
        if not axpy_row(w, ca, v, ix, n):
            return -1
        if p.intercept:
            w[d] = w[d] + c
            if not isfinite(w[d]):
                return -1
    return upd


# -- The row: what every rule reads, then its judge and its step ---------------------------------

cdef inline int lin_judge(const Params* p, const double* w, const double* aux, Py_ssize_t d,
                          const floating* v, const index_t* ix, Py_ssize_t n, int y, int* pred,
                          double* inv_out, double* s_out, double* m_out) noexcept nogil:
    """The prediction for a row, with no state change: -1 for a bad row (a non-finite score, or
    a rule code no branch names), else the rule's judge: 1 if the row calls for its update,
    else 0.  lin_step acts on it; the speculative scans (lin_scan) call it alone, so both judge
    a row by the same arithmetic."""
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
        return margin_judge(p, y, pr, m)
    if p.algo == PERCEPTRON:
        return perceptron_judge(y, pr)
    if p.algo == HINGE:
        return hinge_judge(y, pr)
    if p.algo == PA:
        return pa_judge(y, s)
    return -1


cdef inline int lin_step(const Params* p, double* w, double* u, double* aux, Py_ssize_t d,
                         const floating* v, const index_t* ix, Py_ssize_t n, int y,
                         long long t, double sw, int* pred, double* c_out) noexcept nogil:
    """Predict, then update.  Returns -1 on a bad row, else 1 if the state changed, else 0.
    On an update, *c_out is the rule's coefficient c (w += c x, the intercept += c; the Hinge
    learner's c before its division by the scale a): the record of mbcore.explain.

    sw: the row's sample weight (1.0 without weights); the rule's coefficient is multiplied
    by it last (c * 1.0 == c exactly), and a row of weight 0 is predicted but never updates
    (the Hinge learner's shrink, which is not the row's, still applies)."""
    cdef double inv = 1.0, s = 0.0, m = 0.0, yd = y
    cdef int change
    change = lin_judge(p, w, aux, d, v, ix, n, y, pred, &inv, &s, &m)
    if change < 0:
        return -1
    if sw == 0.0 and p.algo != HINGE:
        return 0
    if p.algo == PERCEPTRON:
        return perceptron_step(p, w, u, d, v, ix, n, yd, t, sw, inv, c_out) if change else 0
    if p.algo == MARGIN:
        return margin_step(p, w, aux, d, v, ix, n, yd, sw, inv, c_out) if change else 0
    if p.algo == PA:
        return pa_step(p, w, d, v, ix, n, yd, s, sw, c_out) if change else 0
    if p.algo == HINGE:
        return hinge_step(p, w, aux, d, v, ix, n, yd, t, sw, inv, s, c_out)
    return -1


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
                 double thr, double lam, double C=INFINITY, double pa_lam=0.0):
        check_rule(algo)
        self.w = w
        self.u = u
        self.aux = aux
        self.counts = counts
        self.d = d
        self.snap_w = np.empty(w.shape[0], dtype=np.float64)
        self.snap_u = np.empty(max(u.shape[0], 1), dtype=np.float64)
        self.p = make_lin_params(algo, tie_pos, normalize, intercept, average, pegasos, eta,
                                 thr, lam, C, pa_lam)

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


cdef Py_ssize_t csr_rows_ok(const index_t* ix, const index_t* indptr, Py_ssize_t lo,
                            Py_ssize_t hi, Py_ssize_t d) noexcept nogil:
    """The first of rows lo..hi-1 whose column indices csr_row_ok refuses, or hi."""
    cdef Py_ssize_t i
    for i in range(lo, hi):
        if csr_row_ok(ix + indptr[i], indptr[i + 1] - indptr[i], d) != OK:
            return i
    return hi


cdef struct LinJob:
    # One pass of a binary linear learner, for mb_spec_pass: the rows (their Rows view: the
    # prefetch stops at the last; their sample weights or NULL), the labels and outputs, and
    # the counters of the pass.
    LinCtx* st
    Rows rows
    Py_ssize_t pf               # dense rows: prefetch this many rows ahead (0: none)
    const signed char* y
    signed char* pred
    unsigned char* upd
    double* coef                # each updating row's coefficient (the record), or NULL
    long long n_seen            # before the pass (row i is example n_seen + i + 1)
    long long mistakes          # during the pass
    int check                   # check each CSR row's indices as it is read
    # rows ck_lo..ck_hi-1: their indices checked by the read-ahead (lin_touch_cb) on another
    # thread, so the pass need not check them again (published with store_release)
    Py_ssize_t ck_lo
    Py_ssize_t ck_hi
    Py_ssize_t ck_rows          # rows the read-ahead checked (written by the worker only)
    int err                     # the status of the failing row


cdef Py_ssize_t lin_run_plain(LinJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                              const floating* val, const index_t* ix) noexcept nogil:
    """lin_run for the plain Perceptron (no normalization, averaging or weights): the same
    arithmetic, with every setting read once into a local (the stores of the outputs, char
    arrays, would otherwise make the compiler read them again after every row)."""
    cdef LinCtx* st = j.st
    cdef double* w = st.w
    cdef Py_ssize_t d = st.d, i, n, a
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef const signed char* y = j.y
    cdef signed char* pred = j.pred
    cdef unsigned char* upd = j.upd
    cdef double* coef = j.coef
    cdef Py_ssize_t row_len = j.rows.row_len, n_rows = j.rows.n_rows, pf = j.pf
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
            if pf and i + pf < n_rows:
                mb_prefetch_bytes(x + pf * row_len, row_len * sizeof(floating))
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
            if coef != NULL:
                coef[i] = eta * <double>yi
        if pred != NULL:
            pred[i] = pr
        if upd != NULL:
            upd[i] = r
    j.mistakes += mistakes
    return changed


cdef Py_ssize_t lin_run(LinJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                        const floating* val, const index_t* ix) noexcept nogil:
    """The sequential pass over rows lo..hi-1: the number of rows that changed the state, or
    -1 (j.err, *bad) at a bad row, the state then half-way (lin_pass_impl restores it)."""
    cdef LinCtx* st = j.st
    cdef Params* p = &st.p
    cdef double* w = st.w
    cdef Py_ssize_t d = st.d, i, n
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef const signed char* y = j.y
    cdef long long mistakes = 0, changed = 0
    cdef int r, code, pr = 0
    cdef double c_skip = 0.0
    cdef double* cp = &c_skip
    cdef const floating* x
    cdef const index_t* xi
    # (the rows the read-ahead has checked: the end first, whose release orders the start)
    cdef Py_ssize_t ck_hi, ck_lo
    if p.algo == PERCEPTRON and not p.normalize and st.u == NULL and j.rows.sw == NULL:
        return lin_run_plain(j, lo, hi, bad, val, ix)
    ck_hi = load_acquire(&j.ck_hi)
    ck_lo = load_acquire(&j.ck_lo)
    for i in range(lo, hi):
        n = row_at(val, ix, indptr, j.rows.row_len, i, &x, &xi)
        if j.pf and i + j.pf < j.rows.n_rows:
            mb_prefetch_bytes(x + j.pf * j.rows.row_len, j.rows.row_len * sizeof(floating))
        if j.check and not (ck_lo <= i < ck_hi):
            code = csr_row_ok(xi, n, d)
            if code != OK:
                j.err = code
                bad[0] = i
                return -1
        if j.coef != NULL:
            cp = j.coef + i
        r = lin_step(p, w, st.u, st.aux, d, x, xi, n, y[i], j.n_seen + i + 1,
                     1.0 if j.rows.sw == NULL else j.rows.sw[i], &pr, cp)
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
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef int pr = 0
    cdef double inv, s, m
    cdef const floating* x
    cdef const index_t* xi
    for i in range(lo, hi):
        if (i & 15) == 0 and volatile_load(stop) < lo:
            return hi                   # an earlier slice found a row: this one cannot matter
        n = row_at(val, ix, indptr, j.rows.row_len, i, &x, &xi)
        if j.pf and i + j.pf < j.rows.n_rows:
            mb_prefetch_bytes(x + j.pf * j.rows.row_len, j.rows.row_len * sizeof(floating))
        if j.check and csr_row_ok(xi, n, d) != OK:
            return i
        if lin_judge(p, st.w, st.aux, d, x, xi, n, j.y[i], &pr, &inv, &s, &m) != 0:
            return i
        if j.pred != NULL:
            j.pred[i] = pr
        if j.upd != NULL:
            j.upd[i] = 0
    return hi


# ---------------------------------------------------------------------------------------------
# Selective sampling (mbcore.selective; the twin: mbref.selective): the learner asks for a row's
# label with probability b / (b + |p|), p its score, one draw of the shared generator per row.
# ---------------------------------------------------------------------------------------------

cdef Py_ssize_t lin_select_impl(LinCtx* st, SelCtx* sc, const floating* val, const index_t* ix,
                                const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                                Py_ssize_t start, int label0, const signed char* y,
                                signed char* pred, unsigned char* asked, unsigned char* upd,
                                double* scores, int check, Py_ssize_t* bad) noexcept nogil:
    """Rows start.. in order: the score and prediction (lin_judge), the draw, and on an asked
    row the learner's step with its label (lin_step; the learner's counts are of the asked
    rows).  ``y`` NULL (labels from the caller): the pass stops at an asked row and returns its
    index; the caller calls again from it with its label as ``label0`` (the draw is not made
    again).  ``scores`` (or NULL): each row's score p, before its step.  Returns n_rows when done, or -1 at a bad row (*bad; the status in bad[1]: BAD_ROW,
    BAD_INDEX, BAD_ORDER), the state then half-way (the caller restores it)."""
    cdef Params* p = &st.p
    cdef Py_ssize_t i, n, d = st.d
    cdef const floating* x
    cdef const index_t* xi
    cdef double inv = 1.0, s = 0.0, m = 0.0, sq
    cdef int pr = 0, pr2 = 0, r, code, yi
    cdef double c_skip = 0.0
    cdef bint ask
    for i in range(start, n_rows):
        n = row_at(val, ix, indptr, row_len, i, &x, &xi)
        if check and indptr != NULL:
            code = csr_row_ok(xi, n, d)
            if code != OK:
                bad[0] = i
                bad[1] = code
                return -1
        if i == start and label0 != 0:      # asked in the previous call: its step
            yi = label0
        else:
            if lin_judge(p, st.w, st.aux, d, x, xi, n, 1, &pr, &inv, &s, &m) < 0:
                bad[0] = i
                bad[1] = BAD_ROW
                return -1
            sq = (1.0 if p.normalize else row_sqnorm(p, x, n)) if sc.adaptive else 0.0
            ask = select_coin(sc, m if m >= 0.0 else -m, sq, st.counts[2])
            pred[i] = <signed char>pr
            asked[i] = ask
            if scores != NULL:
                scores[i] = m
            upd[i] = 0
            if y != NULL and pr != y[i]:
                sc.counts[2] += 1
            if not ask:
                continue
            sc.counts[1] += 1
            if y == NULL:
                return i
            yi = y[i]
        if y == NULL and pred[i] != yi:     # (a label the caller gave: its mistake counts)
            sc.counts[2] += 1
        st.counts[0] += 1
        r = lin_step(p, st.w, st.u, st.aux, d, x, xi, n, yi, st.counts[0], 1.0, &pr2, &c_skip)
        if r < 0:
            bad[0] = i
            bad[1] = BAD_ROW
            return -1
        st.counts[1] += pr2 != yi
        st.counts[2] += r
        sc.counts[3] += r
        upd[i] = <unsigned char>r
    return n_rows


# mb_spec_pass's callbacks lin_run_cb, lin_scan_cb: lin_run or lin_scan for the job's dtypes
# (vt, it); with value_bytes and index_bytes, generated from _dispatch.pxi.tp by setup.py.
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
        if j.rows.it == 1:
            e = csr_rows_ok(<const long long*>j.rows.ix, <const long long*>j.rows.indptr, lo, hi,
                            j.st.d)
        else:
            e = csr_rows_ok(<const int*>j.rows.ix, <const int*>j.rows.indptr, lo, hi, j.st.d)
        store_release(&j.ck_hi, e)
        j.ck_rows += e - lo
    touch_rows(j.rows.val, value_bytes(j.rows.vt), j.rows.ix, index_bytes(j.rows.it),
               j.rows.indptr, j.rows.row_len, lo, hi)


cdef int lin_pass_impl(LinCtx* st, const Rows* rows, const signed char* y, signed char* pred,
                       unsigned char* upd, int check, int threads, Py_ssize_t* bad,
                       double* coef=NULL) noexcept nogil:
    """One online pass over rows on up to `threads` threads (mb_spec_pass: the same results
    for any number; the Hinge learner, which changes its state on every row, runs on one).
    rows.sw: the rows' sample weights, or NULL for none (the scans judge rows without them: a
    row they stop at that a weight of 0 keeps from updating is run, and changes nothing)."""
    cdef LinJob j
    cdef Py_ssize_t changed
    cdef mb_touch_fn touch = NULL
    cdef double aux0 = st.aux[0], aux1 = st.aux[1]
    cdef Py_ssize_t n_rows = rows.n_rows
    j.st = st
    j.rows = rows[0]
    j.pf = pf_rows(rows.row_len * value_bytes(rows.vt)) if rows.indptr == NULL else 0
    j.y = y
    j.pred = pred
    j.upd = upd
    j.coef = coef
    j.n_seen = st.counts[0]
    j.mistakes = 0
    j.check = check and rows.indptr != NULL
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
    if rows.indptr != NULL:
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


def lin_pass(LinearState st, X, const signed char[::1] y, signed char[::1] pred=None,
             unsigned char[::1] upd=None, bint check=True, int threads=1,
             const double[::1] sw=None, double[::1] coef=None):
    """One online pass over the rows of X; returns (status, bad_row).  X: a C-contiguous 2-D
    float64 or float32 array, or CSR rows (data, indices, indptr) whose indptr was checked;
    sw: the rows' sample weights (finite, >= 0), or None.  CSR rows with ``check``: each row's
    column indices are checked as the pass reads it (status BAD_INDEX or BAD_ORDER at the
    first bad row, the codes of csr_check); without it they must have been checked before.
    coef (with upd): each row that updated gets its coefficient (the record of
    mbcore.explain; the rows that did not update are left as they were)."""
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef LinCtx c = st.ctx()
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef double* cf = NULL
    cdef Rows rows
    rows_of(X, &rows, ADDITIVE_CODES, sw)
    if y.shape[0] < rows.n_rows:
        raise ValueError("lin_pass: y is shorter than X")
    if coef is not None:
        if coef.shape[0] < rows.n_rows or upd is None:
            raise ValueError("lin_pass: coef is shorter than X, or without upd")
        cf = &coef[0]
    with nogil:
        status = lin_pass_impl(&c, &rows, &y[0], pp, up, check, threads, &bad, cf)
    return status, bad


def lin_step1(LinearState st, const double[:, ::1] X, signed char y, double[::1] rec=None):
    """One online step on a single dense float64 row with label y (+-1); returns the status.
    rec (or None; 2 values): [the coefficient, 1.0] when the row updated, else rec[1] = 0.0
    (the record of mbcore.explain)."""
    cdef LinCtx c = st.ctx()
    cdef Py_ssize_t bad = -1
    cdef Rows row = dense_rows(&X[0, 0], 1, 1, X.shape[1])
    cdef unsigned char u = 0
    cdef int status
    if rec is None:
        return lin_pass_impl(&c, &row, &y, NULL, NULL, 0, 1, &bad)
    if rec.shape[0] < 2:
        raise ValueError("lin_step1: rec must hold 2 values")
    status = lin_pass_impl(&c, &row, &y, NULL, &u, 0, 1, &bad, &rec[0])
    rec[1] = 1.0 if u else 0.0
    return status


def lin_select_pass(LinearState st, X, Py_ssize_t start, int label0,
                    const signed char[::1] y, double b, bint adaptive,
                    unsigned long long[::1] rng, double[::1] x2, long long[::1] counts,
                    signed char[::1] pred, unsigned char[::1] asked, unsigned char[::1] upd,
                    bint check=True, double[::1] scores=None):
    """Selective sampling over the rows of X from row ``start`` (lin_select_impl); ``y`` the
    +-1 labels of every row, or None (labels from the caller: the pass stops at each asked
    row); ``scores``: each row's score before its step, or None.  Returns (stop, status,
    bad_row): stop = n_rows when done, the asked row when y is None, or -1 with the status of
    the bad row."""
    cdef LinCtx c = st.ctx()
    cdef SelCtx sc
    cdef Rows rows
    cdef Py_ssize_t bad[2]
    cdef Py_ssize_t stop
    cdef const signed char* yp = NULL
    rows_of(X, &rows, ADDITIVE_CODES, None)
    cdef double* sp = NULL
    if pred.shape[0] < rows.n_rows or asked.shape[0] < rows.n_rows or \
            upd.shape[0] < rows.n_rows or (scores is not None and scores.shape[0] < rows.n_rows):
        raise ValueError("lin_select_pass: an output is shorter than X")
    if scores is not None and rows.n_rows:
        sp = &scores[0]
    if y is not None:
        if y.shape[0] < rows.n_rows:
            raise ValueError("lin_select_pass: y is shorter than X")
        yp = &y[0]
    if not (0 <= start <= rows.n_rows) or (label0 != 0 and (start == rows.n_rows or
                                                           (label0 != 1 and label0 != -1))):
        raise ValueError("lin_select_pass: start or label0 out of range")
    if rng.shape[0] < 1 or x2.shape[0] < 1 or counts.shape[0] < 4:
        raise ValueError("lin_select_pass: rng, x2 or counts too short")
    select_init(&sc, b, adaptive, &rng[0], &x2[0], &counts[0])
    bad[0] = -1
    bad[1] = OK
    with nogil:
        stop = lin_select_view(&c, &sc, &rows, start, label0, yp, &pred[0], &asked[0], &upd[0],
                               sp, check, bad)
    return stop, bad[1], bad[0]


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

from .names cimport NameIndex, OneFast, STRICT, binary_code


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
        cdef Rows row
        cdef Py_ssize_t bad = -1
        cdef int k = binary_code(y, self.pos, self.neg, strict)
        if k != 1 and k != -1:
            return k
        code = <signed char>k
        n = self.idx.fill_c(x, self.learn_mode | (STRICT if strict else 0))
        if n < 0:
            return n
        if n != self.st.d:
            return -5
        c = self.st.ctx()
        row = dense_rows(self.idx.row_ptr(), 1, 1, n)
        return lin_pass_impl(&c, &row, &code, NULL, NULL, 0, 1, &bad)

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


cdef inline Params score_params(bint intercept, bint normalize, bint tie_pos) noexcept:
    """The Params of a scoring call: these three set, every other field 0."""
    cdef Params p
    memset(&p, 0, sizeof(Params))
    p.intercept = intercept
    p.normalize = normalize
    p.tie_pos = tie_pos
    return p


def lin_flags(const double[::1] w, double a, Py_ssize_t d, bint intercept, bint normalize,
              bint tie_pos, X, unsigned char[::1] out):
    """1 where the score of the row is positive under the tie rule, else 0 (for predict); X as
    lin_pass takes it (CSR indices checked against d).  Returns (status, bad_row)."""
    cdef Params p = score_params(intercept, normalize, tie_pos)
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef Rows r
    rows_of(X, &r, ADDITIVE_CODES, None)
    if out.shape[0] < r.n_rows:
        raise ValueError("lin_flags: out is shorter than X")
    with nogil:
        status = lin_scores_view(&p, &w[0], a, d, &r, NULL, &bad, &out[0])
    return status, bad


def lin_scores(const double[::1] w, double a, Py_ssize_t d, bint intercept, bint normalize,
               X, double[::1] out):
    """score = a * (w . x) + b (times 1/||x'|| when normalising) for every row of X (as
    lin_pass takes it; CSR indices checked against d).  Returns (status, bad_row)."""
    cdef Params p = score_params(intercept, normalize, False)
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef Rows r
    rows_of(X, &r, ADDITIVE_CODES, None)
    if out.shape[0] < r.n_rows:
        raise ValueError("lin_scores: out is shorter than X")
    with nogil:
        status = lin_scores_view(&p, &w[0], a, d, &r, &out[0], &bad, NULL)
    return status, bad


def sqnorm(const double[::1] w, Py_ssize_t d, bint intercept):
    """||w||^2 in the kernels' summation order (the intercept weight added last)."""
    return sqnorm_w(&w[0], d, intercept)


# ---------------------------------------------------------------------------------------------
# Voted Perceptron: replay the updates of a pass to record the prediction vectors
# ---------------------------------------------------------------------------------------------

cdef int replay_impl(const Params* p, double* w, Py_ssize_t d, const floating* val,
                     const index_t* ix, const index_t* indptr, Py_ssize_t n_rows,
                     Py_ssize_t row_len, const long long* rows, Py_ssize_t n_upd,
                     const signed char* y, double* out, Py_ssize_t D,
                     const double* sw=NULL) noexcept nogil:
    """Re-apply the updates made on rows[0..n_upd) (each in [0, n_rows)), recording w after
    each in out (n_upd x D); returns OK."""
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
    return OK


def replay(double[::1] w, Py_ssize_t d, bint intercept, bint normalize, double eta, X,
           const long long[::1] rows, const signed char[::1] y, double[:, ::1] out,
           const double[::1] sw=None):
    """Re-apply the Perceptron updates made on ``rows`` (of X, as lin_pass takes it) from ``w``
    and record w after each (sw: the rows' sample weights, or None)."""
    cdef Params p = score_params(intercept, normalize, False)
    cdef Rows r
    cdef Py_ssize_t k
    p.eta = eta
    rows_of(X, &r, ADDITIVE_CODES, sw)
    if rows.shape[0] == 0:
        return
    if out.shape[0] < rows.shape[0] or y.shape[0] < r.n_rows:
        raise ValueError("replay: the arrays do not match")
    for k in range(rows.shape[0]):
        if not 0 <= rows[k] < r.n_rows:
            raise ValueError("replay: a row index out of range")
    with nogil:
        replay_view(&p, &w[0], d, &r, &rows[0], rows.shape[0], &y[0], &out[0, 0], out.shape[1],
                    r.sw)


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


def vote_scores(const double[:, ::1] V, const long long[::1] counts, Py_ssize_t d,
                bint intercept, bint normalize, bint tie_pos, X, double[::1] out):
    """Voted Perceptron: sum_k c_k sign(v_k . x) for every row of X (as lin_pass takes it)."""
    cdef Params p = score_params(intercept, normalize, tie_pos)
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef Rows r
    rows_of(X, &r, ADDITIVE_CODES, None)
    if out.shape[0] < r.n_rows or counts.shape[0] < V.shape[0]:
        raise ValueError("vote_scores: the arrays do not match")
    with nogil:
        status = vote_view(&p, &V[0, 0], &counts[0], V.shape[0], V.shape[1], d, &r, &out[0],
                           &bad)
    return status, bad
