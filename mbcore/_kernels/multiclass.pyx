# cython: language_level=3
"""Compiled kernels of the linear learners with K >= 3 classes (the additive family's K-class
weight matrix): the pass (split between threads by rows or, for wide rows, by classes, with
deferred updates), and the scores.

The arithmetic is ``_arith.pxd``'s (``mbref._arith``'s contract), so that the pure-Python twin
reproduces every prediction and update bit for bit.  A pass is all or nothing, as in ``linear``:
the Python layer keeps the state as it was when a pass fails (mbcore.base.Snapshot).
"""

from libc.math cimport sqrt, isfinite, INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memset

import numpy as np

from ._arith cimport (floating, index_t, PERCEPTRON, MARGIN, HINGE, PA, Params, PEGASOS_RESCALE,
                      sqnorm_w, row_inv, sign_of, row_sqnorm, pa_step_size, check_rule,
                      make_lin_params)
from ._rows cimport (Rows, rows_of, longest_row, ADDITIVE_CODES, OK, BAD_ROW, NEED_ROOM,
                     row_at, csr_row_ok)

from ._select cimport SelCtx, select_coin, select_init
from ._spec cimport MB_SPEC_MAXT, mb_spec_pass, mb_touch_fn, spec_tuning_impl, touch_rows
from ._spec cimport volatile_load
from ._spec cimport (mb_split, mb_split_new, mb_split_free, mb_split_serving, mb_split_row,
                     mb_spec_pass_split)


# ---------------------------------------------------------------------------------------------
# Test and benchmark hooks: run-time knobs and counters of this module (spec_tuning,
# mc_split_tuning, mc_split_stats).  None changes a result; each is module-global state, not
# thread-safe: set it before the passes.
# ---------------------------------------------------------------------------------------------

def spec_tuning(seq_gap=None, min_rows=None, max_rows=None, stretch=None):
    """This module's block sizes (see _spec.pxd): the old (seq_gap, min_rows, max_rows,
    stretch); the arguments that are not None replace them."""
    return spec_tuning_impl(seq_gap, min_rows, max_rows, stretch)


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


# mb_spec_pass's callbacks mc_run_cb, mc_scan_cb and mb_split_row's mc_part_cb: mc_run, mc_scan
# or mc_part for the job's dtypes (vt, it); with value_bytes and index_bytes, generated from
# _dispatch.pxi.tp by setup.py.
include "_dispatch_multiclass.pxi"


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
    # the record of mbcore.explain: coef, n_rows * K doubles (zeros), or NULL; rec, the current
    # row's K of them (mc_run sets it), or NULL: mc_step writes each class's coefficient there
    double* coef
    double* rec


cdef inline void mc_rec(MCCtx* c, Py_ssize_t k, double v) noexcept nogil:
    """Record class k's coefficient of the current row's update (when recording)."""
    if c.rec != NULL:
        c.rec[k] = v


cdef struct MCJob:
    # One pass with K classes, for mb_spec_pass (as LinJob); scr: the scratch of the scan
    # slots 1.. (slot 0, the calling thread, uses the state's own), `stride` doubles each.
    MCCtx* c
    Rows rows
    const int* y
    int* pred
    unsigned char* upd
    long long n_seen
    long long mistakes
    int check
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
    n = row_at(val, ix, <const index_t*>j.rows.indptr, j.rows.row_len, j.cur_row, &v, &xi)
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
                mc_rec(c, y, cc)
                mc_rec(c, best, -cc)
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
                mc_rec(c, y, cc)
                mc_rec(c, r, -cc)
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
                mc_rec(c, y, cc)
                mc_rec(c, r, -cc)
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
            mc_rec(c, y, cc)
            mc_rec(c, r, -cc)
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
                mc_rec(c, k, cc)
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
                    mc_rec(c, k, cc)
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
                mc_rec(c, k, cc)
                if not mc_axpy(W, K, d, k, cc, cc, p.intercept, v, ix, n):
                    return -1
                if c.U != NULL:
                    tc = (<double>t) * cc
                    if not mc_axpy(c.U, K, d, k, tc, tc, p.intercept, v, ix, n):
                        return -1
                upd = 1
        elif p.algo == MARGIN and (pk != <int>yk or (-p.thr < m[k] and m[k] < p.thr)):
            cc = (yk * inv) * c.sw
            mc_rec(c, k, cc)
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
                 bint average, bint pegasos, double eta, double thr, double lam, bint ovr,
                 double C=INFINITY, double pa_lam=0.0):
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
                                 thr, lam, C, pa_lam)

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
        c.coef = NULL
        c.rec = NULL
        return c


cdef Py_ssize_t mc_run(MCJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                       const floating* val, const index_t* ix) noexcept nogil:
    """The sequential pass over rows lo..hi-1 (as lin_run)."""
    cdef MCCtx* c = j.c
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef long long mistakes = 0, changed = 0
    cdef Py_ssize_t i, n
    cdef int r, code, pr = 0
    cdef const floating* x
    cdef const index_t* xi
    for i in range(lo, hi):
        n = row_at(val, ix, indptr, j.rows.row_len, i, &x, &xi)
        if j.check:
            code = csr_row_ok(xi, n, c.d)
            if code != OK:
                j.err = code
                bad[0] = i
                return -1
        if j.rows.sw != NULL:
            c.sw = j.rows.sw[i]
        j.cur_row = i
        if c.coef != NULL:
            c.rec = c.coef + i * c.K
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
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
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
        n = row_at(val, ix, indptr, j.rows.row_len, i, &x, &xi)
        if j.check and csr_row_ok(xi, n, c.d) != OK:
            return i
        if mc_judge(c, sc, m, acc, act, x, xi, n, j.y[i], &pr, &inv) != 0:
            return i
        if j.pred != NULL:
            j.pred[i] = pr
        if j.upd != NULL:
            j.upd[i] = 0
    return hi


# (mc_run_cb and mc_scan_cb: in _dispatch_multiclass.pxi, included above)


cdef void mc_touch_cb(void* ctx, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    cdef MCJob* j = <MCJob*>ctx
    touch_rows(j.rows.val, value_bytes(j.rows.vt), j.rows.ix, index_bytes(j.rows.it),
               j.rows.indptr, j.rows.row_len, lo, hi)


cdef double mc_terms_est(const Rows* rw) noexcept nogil:
    """The mean number of non-zero terms per row: CSR, its stored values; dense, the non-zeros
    of up to 16 rows spread over the batch."""
    cdef const void* val = rw.val
    cdef const void* indptr = rw.indptr
    cdef int vt = rw.vt, it = rw.it
    cdef Py_ssize_t n_rows = rw.n_rows, row_len = rw.row_len
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


cdef int mc_pass_impl(MCCtx* c, const Rows* rows, const int* y, int* pred, unsigned char* upd,
                      int check, int threads, Py_ssize_t* bad,
                      long long* stats=NULL) noexcept nogil:
    """One online pass over rows on up to `threads` threads (as lin_pass_impl; the Hinge learner
    runs on one);
    on a bad row the state is left half-way (the caller restores it) and the counts are not
    written.  With threads, the sequential stretches (dense mistakes) split each row's scores
    between them when the row is large enough (mc_split_work); stats (or NULL) gets
    mc_split_stats's four counts of this pass."""
    cdef MCJob j
    cdef Py_ssize_t changed
    cdef mb_touch_fn touch = NULL
    cdef void* pmem = NULL
    cdef int parts
    cdef Py_ssize_t n_rows = rows.n_rows, row_len = rows.row_len
    cdef const void* indptr = rows.indptr
    j.c = c
    j.rows = rows[0]
    j.y = y
    j.pred = pred
    j.upd = upd
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
    if threads > 1 and c.K * mc_terms_est(rows) >= \
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


def mc_pass(MultiState st, X, const int[::1] y, int[::1] pred=None,
            unsigned char[::1] upd=None, bint check=True, int threads=1,
            const double[::1] sw=None, double[::1] coef=None):
    """One online pass over the rows of X (as linear.lin_pass takes it) with class indices y in
    [0, K); returns (status, bad).  sw: the rows' sample weights (finite, >= 0), or None.  CSR
    rows: ``check`` as in lin_pass (each row's column indices checked as the pass reads it;
    without it, rows from a checked matrix).  coef (or None): n * K zeros; row i's update of
    class k writes its coefficient at coef[i * K + k] (the record of mbcore.explain)."""
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef MCCtx c = st.ctx()
    cdef int* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef Rows rows
    cdef Py_ssize_t n = rows_of(X, &rows, ADDITIVE_CODES, sw)
    # (a checked row has at most d distinct indices: the scratch holds d terms; unchecked rows
    # must come from a checked matrix)
    if (rows.indptr == NULL and rows.row_len != st.d) or \
            (rows.indptr != NULL and not check and longest_row(&rows) > st.d) or \
            y.shape[0] != n or (pred is not None and pred.shape[0] != n) or \
            (upd is not None and upd.shape[0] != n):
        raise ValueError("mc_pass: the arrays do not match the state (or unchecked CSR)")
    if coef is not None:
        if coef.shape[0] != n * st.K:
            raise ValueError("mc_pass: coef must hold n * K values")
        c.coef = &coef[0] if n > 0 else NULL
    cdef long long stats[4]
    stats[:] = [0, 0, 0, 0]
    with nogil:
        status = mc_pass_impl(&c, &rows, &y[0], pp, up, check, threads, &bad, stats)
    add_mc_stats(stats)
    return status, bad


# ---------------------------------------------------------------------------------------------
# Selective sampling with K classes (mbcore.selective; the twin: mbref.selective): one coin per
# row on the gap between the two highest of the values the rule predicts the argmax of.
# ---------------------------------------------------------------------------------------------

cdef Py_ssize_t mc_select_impl(MCCtx* c, SelCtx* sc, const floating* val, const index_t* ix,
                               const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                               Py_ssize_t start, int label0, const int* y, int* pred,
                               unsigned char* asked, unsigned char* upd, double* scores,
                               int check, Py_ssize_t* bad) noexcept nogil:
    """As linear's lin_select_impl, for K >= 3 classes: the K values v_k whose argmax the rule
    predicts (one-vs-rest: the K binary decision values; multiclass: the K scores) give the
    margin v_(1) - v_(2) >= 0 of the coin; an asked row is the rule's step (mc_step, every
    class's learner one-vs-rest).  ``scores``: the K values of each row (n_rows x K), or NULL;
    y: class indices, or NULL (labels from the caller)."""
    cdef const Params* p = &c.p
    cdef Py_ssize_t i, n, k, K = c.K, d = c.d
    cdef const floating* x
    cdef const index_t* xi
    cdef const double* v
    cdef double inv = 1.0, top, second, sq
    cdef int pr = 0, pr2 = 0, r, code, yi
    cdef bint ask
    c.sw = 1.0
    for i in range(start, n_rows):
        n = row_at(val, ix, indptr, row_len, i, &x, &xi)
        if check and indptr != NULL:
            code = csr_row_ok(xi, n, d)
            if code != OK:
                bad[0] = i
                bad[1] = code
                return -1
        if i == start and label0 >= 0:      # asked in the previous call: its step
            yi = label0
        else:
            if mc_judge(c, c.s, c.m, c.acc, c.act, x, xi, n, 0, &pr, &inv) < 0:
                bad[0] = i
                bad[1] = BAD_ROW
                return -1
            v = c.m if c.ovr else c.s
            top = v[pr]
            second = -INFINITY
            for k in range(K):
                if k != pr and v[k] > second:
                    second = v[k]
            if scores != NULL:
                for k in range(K):
                    scores[i * K + k] = v[k]
            sq = (1.0 if p.normalize else row_sqnorm(p, x, n)) if sc.adaptive else 0.0
            ask = select_coin(sc, top - second, sq, c.counts[2])
            pred[i] = pr
            asked[i] = ask
            upd[i] = 0
            if y != NULL and pr != y[i]:
                sc.counts[2] += 1
            if not ask:
                continue
            sc.counts[1] += 1
            if y == NULL:
                return i
            yi = y[i]
        if y == NULL and pred[i] != yi:
            sc.counts[2] += 1
        c.counts[0] += 1
        r = mc_step(c, x, xi, n, yi, c.counts[0], &pr2, NULL)
        if r < 0:
            bad[0] = i
            bad[1] = BAD_ROW
            return -1
        c.counts[1] += pr2 != yi
        c.counts[2] += r
        sc.counts[3] += r
        upd[i] = <unsigned char>r
    return n_rows


def mc_select_pass(MultiState st, X, Py_ssize_t start, int label0, const int[::1] y,
                   double b, bint adaptive, unsigned long long[::1] rng, double[::1] x2,
                   long long[::1] counts, int[::1] pred, unsigned char[::1] asked,
                   unsigned char[::1] upd, bint check=True, double[::1] scores=None):
    """Selective sampling over the rows of X with K classes from row ``start``
    (mc_select_impl); y the class indices of every row, or None (labels from the caller: the
    pass stops at each asked row, and ``label0`` >= 0 is the class index of row ``start``,
    -1 for none); ``scores``: n_rows x K values, or None.  Returns (stop, status, bad_row) as
    linear.lin_select_pass."""
    cdef MCCtx c = st.ctx()
    cdef SelCtx sc
    cdef Rows rows
    cdef Py_ssize_t bad[2]
    cdef Py_ssize_t stop
    cdef const int* yp = NULL
    cdef double* sp = NULL
    rows_of(X, &rows, ADDITIVE_CODES, None)
    if pred.shape[0] < rows.n_rows or asked.shape[0] < rows.n_rows or \
            upd.shape[0] < rows.n_rows or \
            (scores is not None and scores.shape[0] < rows.n_rows * c.K):
        raise ValueError("mc_select_pass: an output is shorter than X")
    if y is not None:
        if y.shape[0] < rows.n_rows:
            raise ValueError("mc_select_pass: y is shorter than X")
        yp = &y[0]
    if not (0 <= start <= rows.n_rows) or (label0 >= 0 and (start == rows.n_rows or
                                                          label0 >= c.K)):
        raise ValueError("mc_select_pass: start or label0 out of range")
    if rng.shape[0] < 1 or x2.shape[0] < 1 or counts.shape[0] < 4:
        raise ValueError("mc_select_pass: rng, x2 or counts too short")
    if scores is not None and rows.n_rows:
        sp = &scores[0]
    select_init(&sc, b, adaptive, &rng[0], &x2[0], &counts[0])
    bad[0] = -1
    bad[1] = OK
    with nogil:
        stop = mc_select_view(&c, &sc, &rows, start, label0, yp, &pred[0], &asked[0], &upd[0],
                              sp, check, bad)
    return stop, bad[1], bad[0]


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


def mc_scores(const double[::1] W, Py_ssize_t K, double a, Py_ssize_t d, bint intercept,
              bint normalize, X, double[:, ::1] out):
    """Every class score of every row of X (as linear.lin_pass takes it; CSR indices checked
    against d) into out (n, K); returns (status, bad_row)."""
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef Rows r
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, None)
    if W.shape[0] != (d + (1 if intercept else 0)) * K or out.shape[0] != n or \
            out.shape[1] != K or (r.indptr == NULL and r.row_len != d) or \
            (r.indptr != NULL and longest_row(&r) > d):
        raise ValueError("mc_scores: shapes do not match")
    with nogil:
        status = mc_scores_view(&W[0], K, a, d, intercept, normalize, &r, &out[0, 0], &bad)
    if status == NEED_ROOM:
        raise MemoryError()
    return status, bad
