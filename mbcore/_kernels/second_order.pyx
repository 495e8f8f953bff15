# cython: language_level=3
"""Compiled kernels of the second-order linear learners (mbcore.second_order): AROW, the exact
confidence-weighted rule (CW), SCW-I/II and NHERD, and the dual-form NAROW and second-order
Perceptron, with a diagonal or a full covariance, for two classes and for K classes (the
single-constraint form of the first four; one-vs-rest runs the binary pass once per class);
and ALMA_p, the approximate large-margin rule, which lives in the same house (a binary pass,
one-vs-rest for K classes).

The arithmetic is the contract of ``mbref._arith`` and ``mbref._covariance``: sums in the four
interleaved partial sums of ``_arith.pxd`` (no fused multiply-add), every covariance update in
the order written there, so that the pure-Python twin reproduces every prediction and update
bit for bit.  A pass is all or nothing: the state is saved at the start of the call and
restored if a row fails (a non-finite score, confidence or state); the Python layer then raises
with the row's index.
"""

from libc.math cimport sqrt, isfinite, pow, fabs, copysign, INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memcpy, memset

from ._arith cimport (floating, index_t, Params, dot_row, axpy_row, sign_of, sumsq_vals,
                      sqnorm_w, row_inv, raw_score)
from ._rows cimport (Rows, rows_of, ADDITIVE_CODES, OK, BAD_ROW, NEED_ROOM, row_at,
                     csr_row_ok)
from ._covariance cimport (AROW, CW, SCW1, SCW2, NHERD, NAROW, SOP, N_SO_RULES, SOCtx, so_coef,
                           nonfinite_bits, gather_nz, diag_step, diag_v, full_uv,
                           full_downdate, full_step, score_of, diag_score_conf,
                           mb_so_sop_d, mb_so_sop_f, mb_so_simd_init, mb_so_simd_level)
from ._select cimport SelCtx, select_ask, select_init


cdef inline int gauss_row(SOCtx* c, const floating* x, const index_t* xi, Py_ssize_t n,
                          int y, double s, double v, double wi) noexcept nogil:
    """The step of AROW, CW, SCW, NHERD on a row of score s (the twin's _Gaussian._binary;
    v: the diagonal form's confidence, computed with s by score_conf; the full form computes
    its own): -1 (a bad row), 0 (no update) or 1."""
    cdef double alpha = 0.0, beta = 0.0, cc = 0.0, xx
    cdef int ok
    if wi == 0.0:
        return 0
    if c.full:
        v = full_uv(c, x, xi, n)
    if not isfinite(v):
        return -1
    if not v > 0.0:
        return 0
    if c.full:
        # the full form's floor (mbref._covariance): a row along which the covariance is
        # certain to working precision, v <= floor ||x'||^2, is not an update
        xx = sumsq_vals(x, n)
        if c.intercept:
            xx = xx + 1.0
        if not v > c.floor * xx:
            return 0
    if not so_coef(c, y * s, v, wi, &alpha, &beta, &cc):
        return 0
    if c.full:
        ok = full_step(c, alpha * y, beta)
    else:
        ok = diag_step(c.w, c.S, x, xi, n, c.d, c.intercept, alpha * y, cc, c.floor, c.nz,
                            c.nzm)
    return 1 if ok else -1


cdef inline int add_theta(SOCtx* c, const floating* x, const index_t* xi, Py_ssize_t n,
                          int y) noexcept nogil:
    """theta += y x' (axpy with c = y; the intercept's + y); 0 if a value became non-finite."""
    cdef int ok = axpy_row(c.V, <double>y, x, xi, n)
    if c.intercept:
        c.V[c.d] = c.V[c.d] + <double>y
    return ok


cdef inline int w_from_theta(SOCtx* c, const index_t* xi, Py_ssize_t n) noexcept nogil:
    """w = Sigma theta: the full form row by row (dot over all D), the diagonal form on the
    row's coordinates and the intercept (NAROW: Sigma_jj theta_j; SOP: theta_j / A_jj); 0 if a
    weight became non-finite."""
    cdef Py_ssize_t i, k, j, D = c.D
    cdef int ok = 1
    if c.full:
        for i in range(D):
            c.w[i] = dot_row(c.S + i * D, c.V, <const int*>NULL, D)
            if not isfinite(c.w[i]):
                ok = 0
        return ok
    for k in range(n + (1 if c.intercept else 0)):
        if k < n:
            j = k if xi == NULL else xi[k]
        else:
            j = c.d
        if c.rule == NAROW:
            c.w[j] = c.S[j] * c.V[j]
        else:
            c.w[j] = c.V[j] / c.S[j]
        if not isfinite(c.w[j]):
            ok = 0
    return ok


cdef inline double sop_diag_score(const SOCtx* c, const floating* v, const index_t* ix,
                                  Py_ssize_t n) noexcept nogil:
    """The diagonal second-order Perceptron's f: term k (theta[j] * x_k) / (A[j] + x_k * x_k)
    in the four-partial order, the intercept's theta[d] / (A[d] + 1.0) added last.  A dense
    row's zeros are skipped (their terms are +-0.0, which change no partial sum: a partial
    sum is never -0.0), so that a row pays its non-zero values' divisions only."""
    cdef double s[4]
    cdef double x, t
    cdef Py_ssize_t k, j, q, m = 0, n4 = n - (n % 4)
    cdef int done = 0
    s[:] = [0.0, 0.0, 0.0, 0.0]
    if ix == NULL:      # every value, four at a time (_so_simd.h: AVX2), or the non-zeros
        if floating is double:
            done = mb_so_sop_d(c.V, c.S, v, n4, s)
        else:
            done = mb_so_sop_f(c.V, c.S, v, n4, s)
    if done:
        for k in range(n4, n):
            x = <double>v[k]
            s[k - n4] += (c.V[k] * x) / (c.S[k] + x * x)
    elif ix == NULL:
        m = gather_nz(v, n, c.nz)
        for q in range(m):
            j = c.nz[q]
            x = <double>v[j]
            s[j & 3] += (c.V[j] * x) / (c.S[j] + x * x)
    else:
        for k in range(n):
            j = ix[k]
            x = <double>v[k]
            s[k & 3] += (c.V[j] * x) / (c.S[j] + x * x)
    t = (s[0] + s[1]) + (s[2] + s[3])
    if c.intercept:
        t = t + c.V[c.d] / (c.S[c.d] + 1.0)
    return t


cdef inline int dual_row(SOCtx* c, const floating* x, const index_t* xi, Py_ssize_t n, int y,
                         double wi, double* f) noexcept nogil:
    """NAROW's and the second-order Perceptron's row (the twins' _binary): f into *f, then -1
    (a bad row), 0 (no update) or 1."""
    cdef double s, chi = 0.0, r = 0.0, bchi
    cdef int finite_r = 0, ok, k
    cdef Py_ssize_t j
    if c.rule == SOP and not c.full:
        f[0] = sop_diag_score(c, x, xi, n)
    else:
        if c.full:
            s = score_of(c, c.w, x, xi, n)
            chi = full_uv(c, x, xi, n)
        else:
            s = diag_score_conf(c, x, xi, n, &chi)
        if not isfinite(chi):
            return -1
        c.chi = chi
        if c.rule == SOP:
            f[0] = s / (1.0 + chi)
        else:
            bchi = c.p0 * chi
            if bchi > 1.0:
                r = chi / (bchi - 1.0)
                finite_r = 1
                f[0] = (r * s) / (chi + r)
            else:
                f[0] = s
    if not isfinite(f[0]):
        return -1
    if c.rule == SOP:       # p1 = 1: update="every" (on every row, the RLS classifier)
        if (c.p1 == 0.0 and sign_of(f[0], c.tie_pos) == y) or wi == 0.0:
            return 0
    elif not y * f[0] < 1.0 or wi == 0.0:
        return 0
    ok = add_theta(c, x, xi, n, y)
    if c.rule == SOP:
        if c.full:
            ok = full_downdate(c, 1.0 / (1.0 + chi)) and ok
        else:
            for k in range(n + (1 if c.intercept else 0)):
                if k < n:
                    j = k if xi == NULL else xi[k]
                    c.S[j] = c.S[j] + <double>x[k] * <double>x[k]
                else:
                    j = c.d
                    c.S[j] = c.S[j] + 1.0 * 1.0
                if not isfinite(c.S[j]):
                    ok = 0
    elif finite_r:
        if c.full:
            ok = full_downdate(c, 1.0 / (r + chi)) and ok
        else:
            ok = diag_step(NULL, c.S, x, xi, n, c.d, c.intercept, 0.0, 1.0 / r, c.floor,
                           c.nz, c.nzm) and ok
    ok = w_from_theta(c, xi, n) and ok
    return 1 if ok else -1


cdef inline int so_row(SOCtx* c, const floating* x, const index_t* xi, Py_ssize_t n, int y,
                       double wi, double* f) noexcept nogil:
    """One binary row of any rule but ALMA (the twin's _binary): its score f (the one its
    prediction is the sign of, before the step) into *f, then -1 (a bad row), 0 (no update)
    or 1.  With wi = 0 no rule updates: the row's score alone."""
    cdef double v = 0.0
    if c.rule == NAROW or c.rule == SOP:
        return dual_row(c, x, xi, n, y, wi, f)
    if c.full:
        f[0] = score_of(c, c.w, x, xi, n)
    else:
        f[0] = diag_score_conf(c, x, xi, n, &v)
    return gauss_row(c, x, xi, n, y, f[0], v, wi) if isfinite(f[0]) else -1


cdef int so_pass_impl(SOCtx* c, const floating* val, const index_t* ix, const index_t* indptr,
                      Py_ssize_t n_rows, Py_ssize_t row_len, const signed char* y,
                      signed char* pred, unsigned char* upd, double* scores, int check,
                      const double* sw, Py_ssize_t* bad) noexcept nogil:
    """The binary pass (the twin's _binary for each row in order); OK, or a status and the
    row (*bad) where it stopped, the state then half-way (the caller restores it)."""
    cdef Py_ssize_t i, n
    cdef const floating* x
    cdef const index_t* xi
    cdef double f = 0.0, wi
    cdef int pr, st, step
    cdef long long mistakes = 0, updates = 0
    for i in range(n_rows):
        n = row_at(val, ix, indptr, row_len, i, &x, &xi)
        if check and indptr != NULL:
            st = csr_row_ok(xi, n, c.d)
            if st != OK:
                bad[0] = i
                return st
        wi = 1.0 if sw == NULL else sw[i]
        step = so_row(c, x, xi, n, y[i], wi, &f)
        if step < 0:
            bad[0] = i
            return BAD_ROW
        if scores != NULL:
            scores[i] = f
        pr = sign_of(f, c.tie_pos)
        if pred != NULL:
            pred[i] = <signed char>pr
        if pr != y[i]:
            mistakes += 1
        if upd != NULL:
            upd[i] = <unsigned char>step
        updates += step
    c.counts[0] += n_rows
    c.counts[1] += mistakes
    c.counts[2] += updates
    return OK


cdef Py_ssize_t so_select_impl(SOCtx* c, SelCtx* sc, const floating* val, const index_t* ix,
                               const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                               Py_ssize_t start, int label0, const signed char* y,
                               signed char* pred, unsigned char* asked, unsigned char* upd,
                               double* scores, int check, Py_ssize_t* bad) noexcept nogil:
    """Selective sampling around a binary rule (mbcore.selective, as linear's lin_select_impl):
    the row's score f (so_row with weight 0), the coin on |f| (select_coin), and on an asked
    row the rule's step with its label; the learner's counts are of the asked rows."""
    cdef Py_ssize_t i, n
    cdef const floating* x
    cdef const index_t* xi
    cdef double f = 0.0, f2 = 0.0, sq
    cdef int pr, r, code, yi
    cdef bint ask
    for i in range(start, n_rows):
        n = row_at(val, ix, indptr, row_len, i, &x, &xi)
        if check and indptr != NULL:
            code = csr_row_ok(xi, n, c.d)
            if code != OK:
                bad[0] = i
                bad[1] = code
                return -1
        if i == start and label0 != 0:      # asked in the previous call: its step
            yi = label0
        else:
            if so_row(c, x, xi, n, 1, 0.0, &f) < 0:
                bad[0] = i
                bad[1] = BAD_ROW
                return -1
            pr = sign_of(f, c.tie_pos)
            sq = 0.0
            if sc.adaptive:
                sq = sumsq_vals(x, n) + (1.0 if c.intercept else 0.0)
            ask = select_ask(sc, c.chi, fabs(f), sq, c.counts[2])
            pred[i] = <signed char>pr
            asked[i] = ask
            upd[i] = 0
            if scores != NULL:
                scores[i] = f
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
        r = so_row(c, x, xi, n, yi, 1.0, &f2)
        if r < 0:
            bad[0] = i
            bad[1] = BAD_ROW
            return -1
        c.counts[0] += 1
        c.counts[1] += sign_of(f2, c.tie_pos) != yi
        c.counts[2] += r
        sc.counts[3] += r
        upd[i] = <unsigned char>r
    return n_rows


cdef Py_ssize_t so_ovr_select_impl(SOCtx* c, SelCtx* sc, Py_ssize_t K, Py_ssize_t size,
                                   const floating* val, const index_t* ix,
                                   const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                                   Py_ssize_t start, int label0, const int* y, int* pred,
                                   unsigned char* asked, unsigned char* upd, double* scores,
                                   int check, Py_ssize_t* bad) noexcept nogil:
    """Selective sampling around one-vs-rest with K classes (as multiclass's mc_select_impl):
    learner k (c's arrays at k D, k size, k D) scores the row (so_row with weight 0); the
    prediction is the first argmax of the K scores and the coin's margin the gap to the
    second highest; an asked row is each learner's step on +1 iff its class; the counts are
    the K-class learner's (rows, argmax mistakes, rows some learner updated on)."""
    cdef double* W = c.w
    cdef double* S = c.S
    cdef double* V = c.V
    cdef Py_ssize_t i, n, k, D = c.D
    cdef const floating* x
    cdef const index_t* xi
    cdef double f = 0.0, top, second, sq, chi
    cdef int pr = 0, r, rk, code, yi
    cdef bint ask
    for i in range(start, n_rows):
        n = row_at(val, ix, indptr, row_len, i, &x, &xi)
        if check and indptr != NULL:
            code = csr_row_ok(xi, n, c.d)
            if code != OK:
                bad[0] = i
                bad[1] = code
                return -1
        if i == start and label0 >= 0:      # asked in the previous call: its steps
            yi = label0
        else:
            top = -INFINITY
            second = -INFINITY
            chi = 0.0
            for k in range(K):
                c.w, c.S = W + k * D, S + k * size
                c.V = V + k * D if V != NULL else NULL
                if so_row(c, x, xi, n, 1, 0.0, &f) < 0:
                    bad[0] = i
                    bad[1] = BAD_ROW
                    return -1
                if scores != NULL:
                    scores[i * K + k] = f
                if c.chi > chi:
                    chi = c.chi
                if k == 0 or f > top:
                    if k > 0:
                        second = top
                    top = f
                    pr = <int>k
                elif f > second:
                    second = f
            sq = 0.0
            if sc.adaptive:
                sq = sumsq_vals(x, n) + (1.0 if c.intercept else 0.0)
            # (BBQ: the largest of the K learners' chi)
            ask = select_ask(sc, chi, top - second, sq, c.counts[2])
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
        r = 0
        for k in range(K):
            c.w, c.S = W + k * D, S + k * size
            c.V = V + k * D if V != NULL else NULL
            rk = so_row(c, x, xi, n, 1 if k == yi else -1, 1.0, &f)
            if rk < 0:
                c.w, c.S, c.V = W, S, V
                bad[0] = i
                bad[1] = BAD_ROW
                return -1
            r = r | rk
        c.w, c.S, c.V = W, S, V
        c.counts[0] += 1
        c.counts[1] += pred[i] != yi
        c.counts[2] += r
        sc.counts[3] += r
        upd[i] = <unsigned char>r
    c.w, c.S, c.V = W, S, V
    return n_rows


cdef int so_mc_pass_impl(SOCtx* c, Py_ssize_t K, const floating* val, const index_t* ix,
                         const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                         const int* y, int* pred, unsigned char* upd, double* s, int check,
                         const double* sw, Py_ssize_t* bad) noexcept nogil:
    """The K-class single-constraint pass, diagonal (the twin's _step_mc for each row): the
    scores s_k (s: K doubles of scratch), r the best wrong class, m = s_y - s_r and
    v = v_y + v_r; then w_y, Sigma_y with +alpha and w_r, Sigma_r with -alpha."""
    cdef Py_ssize_t i, n, k, p, r, yi, D = c.D
    cdef const floating* x
    cdef const index_t* xi
    cdef double v, wi, alpha = 0.0, beta = 0.0, cc = 0.0
    cdef int st, ok
    cdef long long mistakes = 0, updates = 0
    for i in range(n_rows):
        n = row_at(val, ix, indptr, row_len, i, &x, &xi)
        if check and indptr != NULL:
            st = csr_row_ok(xi, n, c.d)
            if st != OK:
                bad[0] = i
                return st
        for k in range(K):
            s[k] = score_of(c, c.w + k * D, x, xi, n)
            if not isfinite(s[k]):
                bad[0] = i
                return BAD_ROW
        yi = y[i]
        p = 0
        r = -1
        for k in range(K):
            if s[k] > s[p]:
                p = k
            if k != yi and (r < 0 or s[k] > s[r]):
                r = k
        if pred != NULL:
            pred[i] = <int>p
        if p != yi:
            mistakes += 1
        if upd != NULL:
            upd[i] = 0
        wi = 1.0 if sw == NULL else sw[i]
        if wi == 0.0:
            continue
        v = diag_v(c, c.S + yi * D, x, xi, n) + diag_v(c, c.S + r * D, x, xi, n)
        if not isfinite(v):
            bad[0] = i
            return BAD_ROW
        if not v > 0.0:
            continue
        if not so_coef(c, s[yi] - s[r], v, wi, &alpha, &beta, &cc):
            continue
        ok = diag_step(c.w + yi * D, c.S + yi * D, x, xi, n, c.d, c.intercept, alpha, cc,
                       c.floor, c.nz, -1)
        ok = diag_step(c.w + r * D, c.S + r * D, x, xi, n, c.d, c.intercept, -alpha, cc,
                       c.floor, c.nz, -1) and ok
        if not ok:
            bad[0] = i
            return BAD_ROW
        updates += 1
        if upd != NULL:
            upd[i] = 1
    c.counts[0] += n_rows
    c.counts[1] += mistakes
    c.counts[2] += updates
    return OK


# ---------------------------------------------------------------------------------------------
# ALMA_p (Gentile 2001): w = f^-1(theta), theta projected onto the unit p-norm ball
# ---------------------------------------------------------------------------------------------

cdef struct AlmaCtx:
    double p            # >= 2
    double alpha
    double B
    double C
    int intercept
    int tie_pos
    double* w
    double* T           # theta = f(w)
    double* k           # one more than the number of updates
    Py_ssize_t d
    Py_ssize_t D
    long long* counts
    int learn           # 0: scores and predictions only (no step)


cdef inline double pow_sum(const floating* v, Py_ssize_t n, double r) noexcept nogil:
    """sum4(pow(abs(v_i), r)) over n values (mbref._arith.sum4's order)."""
    cdef double s[4]
    cdef Py_ssize_t k
    s[:] = [0.0, 0.0, 0.0, 0.0]
    for k in range(n):
        s[k & 3] += pow(fabs(<double>v[k]), r)
    return (s[0] + s[1]) + (s[2] + s[3])


cdef inline double p_norm(const double* v, Py_ssize_t d, int intercept, double r) noexcept nogil:
    """||v||_r over d coordinates, the intercept's term (v[d]) added last
    (mbref.second_order._pnorm)."""
    cdef double P = pow_sum(v, d, r)
    if intercept:
        P = P + pow(fabs(v[d]), r)
    return pow(P, 1.0 / r)


cdef inline void p_link(const double* v, Py_ssize_t d, int intercept, double r,
                        double* out) noexcept nogil:
    """The p-norm link of index r (mbref.second_order._link): sign(v_i) |v_i|^(r-1) /
    ||v||_r^(r-2), the zero vector for v = 0."""
    cdef double nr = p_norm(v, d, intercept, r), den
    cdef Py_ssize_t i, n = d + (1 if intercept else 0)
    if nr == 0.0:
        for i in range(n):
            out[i] = 0.0
        return
    den = pow(nr, r - 2.0)
    for i in range(n):
        out[i] = copysign(pow(fabs(v[i]), r - 1.0) / den, v[i]) if v[i] != 0.0 else 0.0


cdef inline double alma_inv(const AlmaCtx* c, const Params* pr, const floating* v,
                            const index_t* ix, Py_ssize_t n) noexcept nogil:
    """1 / ||x'||_p (0 for a zero row; p = 2: the linear learners' row_inv)."""
    cdef double P
    if c.p == 2.0:
        return row_inv(pr, v, n)
    P = pow_sum(v, n, c.p)
    if c.intercept:
        P = P + 1.0
    return 1.0 / pow(P, 1.0 / c.p) if P != 0.0 else 0.0


cdef int alma_pass_impl(AlmaCtx* c, const floating* val, const index_t* ix,
                        const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                        const signed char* y, signed char* pred, unsigned char* upd,
                        double* scores, int check, Py_ssize_t* bad) noexcept nogil:
    """The binary ALMA_p pass (the twin's ALMA._binary for each row in order)."""
    cdef Params pr
    cdef Py_ssize_t i, n, j, D = c.D
    cdef const floating* x
    cdef const index_t* xi
    cdef double inv, s, sp = sqrt(c.p - 1.0), sk, cc, n2, nrm
    cdef int st, ok, yi, p_i
    cdef long long mistakes = 0, updates = 0
    memset(&pr, 0, sizeof(Params))
    pr.intercept = c.intercept
    pr.normalize = 1
    for i in range(n_rows):
        n = row_at(val, ix, indptr, row_len, i, &x, &xi)
        if check and indptr != NULL:
            st = csr_row_ok(xi, n, c.d)
            if st != OK:
                bad[0] = i
                return st
        yi = y[i]
        inv = alma_inv(c, &pr, x, xi, n)
        s = raw_score(&pr, c.w, 1.0, c.d, x, xi, n, inv)
        if not isfinite(s):
            bad[0] = i
            return BAD_ROW
        if scores != NULL:
            scores[i] = s
        p_i = sign_of(s, c.tie_pos)
        if pred != NULL:
            pred[i] = <signed char>p_i
        if p_i != yi:
            mistakes += 1
        if upd != NULL:
            upd[i] = 0
        if inv == 0.0 or not c.learn:
            continue
        sk = sqrt(c.k[0])
        if not yi * s <= (1.0 - c.alpha) * ((c.B * sp) / sk):
            continue
        cc = ((c.C / (sp * sk)) * yi) * inv
        ok = axpy_row(c.T, cc, x, xi, n)
        if c.intercept:
            c.T[c.d] = c.T[c.d] + cc
            if not isfinite(c.T[c.d]):
                ok = 0
        if c.p == 2.0:
            n2 = sqnorm_w(c.T, c.d, c.intercept)
            nrm = sqrt(n2) if n2 > 1.0 else 1.0
        else:
            nrm = p_norm(c.T, c.d, c.intercept, c.p)
        if nrm > 1.0:
            for j in range(D):
                c.T[j] = c.T[j] / nrm
        if c.p == 2.0:
            memcpy(c.w, c.T, D * sizeof(double))
        else:
            p_link(c.T, c.d, c.intercept, c.p, c.w)
        if not isfinite(nrm):
            ok = 0
        for j in range(D):
            if not isfinite(c.w[j]):
                ok = 0
        if not ok:
            bad[0] = i
            return BAD_ROW
        c.k[0] = c.k[0] + 1.0
        updates += 1
        if upd != NULL:
            upd[i] = 1
    if c.learn:
        c.counts[0] += n_rows
        c.counts[1] += mistakes
        c.counts[2] += updates
    return OK


# so_pass_view, so_mc_pass_view, alma_pass_view: the fused passes for a Rows view's dtypes,
# generated from _dispatch.pxi.tp by setup.py.
include "_dispatch_second_order.pxi"


cdef struct Kept:
    # the state arrays of a call as they were at its start, put back when a row fails (every
    # pass is all or nothing), and the call's scratch after them
    double* buf
    double* dst[3]
    Py_ssize_t size[3]
    long long* counts
    long long counts0[3]


cdef double* kept_take(Kept* k, long long* counts, double* a0, Py_ssize_t s0, double* a1,
                       Py_ssize_t s1, double* a2, Py_ssize_t s2, Py_ssize_t scratch,
                       int** nz=NULL, Py_ssize_t n_nz=0) except NULL:
    """Copy a0, a1, a2 (a2 may be NULL) and counts into k; returns the scratch of `scratch`
    doubles after the copies (and points *nz at n_nz ints after that): one buffer, freed
    with k.buf."""
    cdef Py_ssize_t i, at = 0, doubles = s0 + s1 + s2 + scratch + 1
    k.buf = <double*>malloc(doubles * sizeof(double) + n_nz * sizeof(int))
    if k.buf == NULL:
        raise MemoryError()
    if nz != NULL:
        nz[0] = <int*>(k.buf + doubles)
    k.dst[0], k.dst[1], k.dst[2] = a0, a1, a2
    k.size[0], k.size[1], k.size[2] = s0, s1, (s2 if a2 != NULL else 0)
    for i in range(3):
        if k.size[i]:
            memcpy(k.buf + at, k.dst[i], k.size[i] * sizeof(double))
        at += k.size[i]
    k.counts = counts
    for i in range(3):
        k.counts0[i] = counts[i]
    return k.buf + at


cdef void kept_put_back(Kept* k) noexcept nogil:
    cdef Py_ssize_t i, at = 0
    for i in range(3):
        if k.size[i]:
            memcpy(k.dst[i], k.buf + at, k.size[i] * sizeof(double))
        at += k.size[i]
    for i in range(3):
        k.counts[i] = k.counts0[i]


cdef SOCtx make_ctx(int rule, bint full, bint intercept, bint tie_pos, double p0, double p1,
                    double floor, double[::1] w, double[::1] S, Py_ssize_t d,
                    long long[::1] counts, Py_ssize_t K) except *:
    cdef SOCtx c
    cdef Py_ssize_t D = d + (1 if intercept else 0)
    if not 0 <= rule < N_SO_RULES:
        raise ValueError(f"second_order: unknown rule code {rule}")
    if not (floor > 0.0 and isfinite(floor)):
        raise ValueError("second_order: the variance floor must be positive and finite")
    if d < 1 or w.shape[0] != K * D or S.shape[0] != K * (D * D if full else D) or \
            counts.shape[0] != 3:
        raise ValueError("second_order: the state arrays do not match d")
    c.rule = rule
    c.full = full
    c.intercept = intercept
    c.tie_pos = tie_pos
    c.p0 = p0
    c.p1 = p1
    c.floor = floor
    c.w = &w[0]
    c.S = &S[0]
    c.u = NULL
    c.nz = NULL
    c.nzm = -1
    c.V = NULL
    c.d = d
    c.D = D
    c.counts = &counts[0]
    c.chi = 0.0
    return c


mb_so_simd_init(2)          # the dense rows' score and confidence in AVX2 where the CPU has it


def simd_level(force=None):
    """Which loops compute a dense row's score and confidence in the diagonal rules: 2 = AVX2,
    0 = the scalar loops (for tests; ``force`` = 0 makes an AVX2 machine take the scalar
    loops, 2 restores the default).  Not to be called while a pass runs."""
    if force is not None:
        return mb_so_simd_init(force)
    return mb_so_simd_level()


def so_pass(int rule, bint full, bint intercept, bint tie_pos, double p0, double p1,
            double floor, double[::1] w, double[::1] S, Py_ssize_t d, long long[::1] counts,
            X, const signed char[::1] y, signed char[::1] pred=None, unsigned char[::1] upd=None,
            double[::1] scores=None, bint check=True, const double[::1] sw=None,
            double[::1] V=None):
    """One online pass of a binary second-order learner over the rows of X (a C-contiguous 2-D
    float64/float32 array of d columns, or CSR rows (data, indices, indptr) whose indptr was
    checked; with ``check`` each CSR row's column indices are checked as the pass reads it).
    w: D = d (+ 1 with an intercept) weights; S: the D variances (the second-order
    Perceptron's diagonal form: A's diagonal), or the D x D covariance (``full``), row-major;
    floor: the diagonal variances' floor (a * 2**-52, as the twin's);
    V: theta, D values (NAROW and the second-order Perceptron; None for the others); counts:
    [rows, mistakes, updates].  y: labels +-1; pred, upd, scores (each row's score f, the one
    its prediction is the sign of, before its step): outputs, or None; sw: the rows' sample
    weights (finite, >= 0), or None.  Returns (status, bad_row); on a bad row the state is as
    before the call."""
    cdef SOCtx c = make_ctx(rule, full, intercept, tie_pos, p0, p1, floor, w, S, d, counts, 1)
    cdef Rows r
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, sw)
    cdef Py_ssize_t bad = -1, size = S.shape[0]
    cdef int status
    cdef bint dual = rule == NAROW or rule == SOP
    cdef Py_ssize_t nv = c.D if dual else 0
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef double* fp = &scores[0] if scores is not None else NULL
    if (r.indptr == NULL and r.row_len != d) or y.shape[0] != n or \
            (pred is not None and pred.shape[0] != n) or \
            (upd is not None and upd.shape[0] != n) or \
            (scores is not None and scores.shape[0] != n) or \
            (dual and (V is None or V.shape[0] != c.D)) or (not dual and V is not None):
        raise ValueError("so_pass: the arrays do not match")
    if n == 0:
        return OK, -1
    if dual:
        c.V = &V[0]
    cdef Kept kept
    cdef double* scratch = kept_take(&kept, &counts[0], c.w, c.D, c.S, size, c.V, nv,
                                     c.D if full else 0, &c.nz, c.D)
    c.u = scratch if full else NULL
    with nogil:
        status = so_pass_view(&c, &r, &y[0], pp, up, fp, check, r.sw, &bad)
        if status != OK:
            kept_put_back(&kept)
    free(kept.buf)
    return status, bad


def so_select_pass(int rule, bint full, bint intercept, bint tie_pos, double p0, double p1,
                   double floor, double[::1] w, double[::1] S, Py_ssize_t d,
                   long long[::1] counts, X, Py_ssize_t start, int label0,
                   const signed char[::1] y, double b, bint adaptive,
                   unsigned long long[::1] rng, double[::1] x2, long long[::1] sel,
                   signed char[::1] pred, unsigned char[::1] asked, unsigned char[::1] upd,
                   bint check=True, double[::1] scores=None, double[::1] V=None,
                   int query=0, double kappa=0.0):
    """Selective sampling around a binary second-order learner (so_select_impl): the state
    arguments as so_pass's, the rest as linear.lin_select_pass's; query 1 (the full
    second-order Perceptron only): BBQ's query with exponent kappa instead of the coin.
    Returns (stop, status, bad_row); on a bad row the state is as before the call."""
    cdef SOCtx c = make_ctx(rule, full, intercept, tie_pos, p0, p1, floor, w, S, d, counts, 1)
    cdef SelCtx sc
    cdef Rows r
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, None)
    cdef Py_ssize_t bad[2]
    cdef Py_ssize_t stop, size = S.shape[0]
    cdef bint dual = rule == NAROW or rule == SOP
    cdef Py_ssize_t nv = c.D if dual else 0
    cdef const signed char* yp = NULL
    cdef double* fp = NULL
    if (r.indptr == NULL and r.row_len != d) or (y is not None and y.shape[0] < n) or \
            pred.shape[0] < n or asked.shape[0] < n or upd.shape[0] < n or \
            (scores is not None and scores.shape[0] < n) or \
            (dual and (V is None or V.shape[0] != c.D)) or (not dual and V is not None) or \
            rng.shape[0] < 1 or x2.shape[0] < 1 or sel.shape[0] < 4 or \
            not (0 <= start <= n) or (label0 != 0 and (start == n or (label0 != 1 and
                                                                       label0 != -1))):
        raise ValueError("so_select_pass: the arrays do not match")
    if n == 0 or start == n:
        return n, OK, -1
    if dual:
        c.V = &V[0]
    if y is not None:
        yp = &y[0]
    if scores is not None:
        fp = &scores[0]
    select_init(&sc, b, adaptive, &rng[0], &x2[0], &sel[0])
    if query:
        if not (rule == SOP and full and not adaptive and 0.0 <= kappa <= 1.0):
            raise ValueError("second_order: BBQ's query takes the full second-order "
                             "Perceptron, no adaptive b and kappa in [0, 1]")
        sc.query = 1
        sc.kappa = kappa
    bad[0] = -1
    bad[1] = OK
    cdef Kept kept
    cdef double* scratch = kept_take(&kept, &counts[0], c.w, c.D, c.S, size, c.V, nv,
                                     c.D if full else 0, &c.nz, c.D)
    c.u = scratch if full else NULL
    with nogil:
        stop = so_select_view(&c, &sc, &r, start, label0, yp, &pred[0], &asked[0], &upd[0], fp,
                              check, bad)
        if stop < 0:
            kept_put_back(&kept)
    free(kept.buf)
    return stop, bad[1], bad[0]


def so_ovr_select_pass(int rule, bint full, bint intercept, bint tie_pos, double p0,
                       double p1, double floor, double[::1] W, double[::1] S, Py_ssize_t d,
                       Py_ssize_t K, long long[::1] counts, X, Py_ssize_t start, int label0,
                       const int[::1] y, double b, bint adaptive, unsigned long long[::1] rng,
                       double[::1] x2, long long[::1] sel, int[::1] pred,
                       unsigned char[::1] asked, unsigned char[::1] upd, bint check=True,
                       double[::1] scores=None, double[::1] V=None, int query=0,
                       double kappa=0.0):
    """Selective sampling around a one-vs-rest second-order learner with K classes
    (so_ovr_select_impl): W, S (and V) hold the K learners' arrays one after the other; y the
    class indices, or None; label0 >= 0 the class index of row ``start`` (-1 for none);
    ``scores``: n x K.  Returns (stop, status, bad_row); on a bad row the state is as before
    the call."""
    if K < 3:
        raise ValueError("so_ovr_select_pass: the arrays do not match")
    cdef SOCtx c = make_ctx(rule, full, intercept, tie_pos, p0, p1, floor, W, S, d, counts, K)
    cdef SelCtx sc
    cdef Rows r
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, None)
    cdef Py_ssize_t bad[2]
    cdef Py_ssize_t stop, size = S.shape[0] // K
    cdef bint dual = rule == NAROW or rule == SOP
    cdef const int* yp = NULL
    cdef double* fp = NULL
    if size != (c.D * c.D if full else c.D) or (r.indptr == NULL and r.row_len != d) or \
            (y is not None and y.shape[0] < n) or pred.shape[0] < n or asked.shape[0] < n or \
            upd.shape[0] < n or (scores is not None and scores.shape[0] < n * K) or \
            (dual and (V is None or V.shape[0] != K * c.D)) or (not dual and V is not None) or \
            rng.shape[0] < 1 or x2.shape[0] < 1 or sel.shape[0] < 4 or \
            not (0 <= start <= n) or (label0 >= 0 and (start == n or label0 >= K)):
        raise ValueError("so_ovr_select_pass: the arrays do not match")
    if n == 0 or start == n:
        return n, OK, -1
    if dual:
        c.V = &V[0]
    if y is not None:
        yp = &y[0]
    if scores is not None:
        fp = &scores[0]
    select_init(&sc, b, adaptive, &rng[0], &x2[0], &sel[0])
    if query:
        if not (rule == SOP and full and not adaptive and 0.0 <= kappa <= 1.0):
            raise ValueError("second_order: BBQ's query takes the full second-order "
                             "Perceptron, no adaptive b and kappa in [0, 1]")
        sc.query = 1
        sc.kappa = kappa
    bad[0] = -1
    bad[1] = OK
    cdef Kept kept
    cdef double* scratch = kept_take(&kept, &counts[0], c.w, W.shape[0], c.S, S.shape[0], c.V,
                                     V.shape[0] if dual else 0, c.D if full else 0, &c.nz, c.D)
    c.u = scratch if full else NULL
    with nogil:
        stop = so_ovr_select_view(&c, &sc, K, size, &r, start, label0, yp, &pred[0],
                                  &asked[0], &upd[0], fp, check, bad)
        if stop < 0:
            kept_put_back(&kept)
    free(kept.buf)
    return stop, bad[1], bad[0]


def so_mc_pass(int rule, bint intercept, double p0, double p1, double floor, Py_ssize_t K,
               double[::1] W, double[::1] S, Py_ssize_t d, long long[::1] counts, X,
               const int[::1] y, int[::1] pred=None, unsigned char[::1] upd=None, bint check=True,
               const double[::1] sw=None):
    """One online pass of the K-class single-constraint form (diagonal covariance) over the rows
    of X (as so_pass takes it).  W and S: K rows of D values each (class k's weights at
    W[k * D:(k + 1) * D], its variances likewise); y: class indices in [0, K).  Returns
    (status, bad_row); on a bad row the state is as before the call."""
    cdef SOCtx c = make_ctx(rule, False, intercept, False, p0, p1, floor, W, S, d, counts, K)
    if rule == NAROW or rule == SOP:
        raise ValueError("so_mc_pass: NAROW and the second-order Perceptron have no "
                         "single-constraint K-class form")
    cdef Rows r
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, sw)
    cdef Py_ssize_t bad = -1, size = K * c.D, i
    cdef int status
    cdef int* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    if K < 3 or (r.indptr == NULL and r.row_len != d) or y.shape[0] != n or \
            (pred is not None and pred.shape[0] != n) or \
            (upd is not None and upd.shape[0] != n):
        raise ValueError("so_mc_pass: the arrays do not match")
    for i in range(n):
        if not 0 <= y[i] < K:
            raise ValueError("so_mc_pass: a class index out of [0, K)")
    if n == 0:
        return OK, -1
    cdef Kept kept
    cdef double* scores = kept_take(&kept, &counts[0], c.w, size, c.S, size, NULL, 0, K,
                                    &c.nz, c.D)
    with nogil:
        status = so_mc_pass_view(&c, K, &r, &y[0], pp, up, scores, check, r.sw, &bad)
        if status != OK:
            kept_put_back(&kept)
    free(kept.buf)
    return status, bad


def alma_pass(double p, double alpha, double B, double C, bint intercept, bint tie_pos,
              double[::1] w, double[::1] T, double[::1] k, Py_ssize_t d,
              long long[::1] counts, X, const signed char[::1] y, signed char[::1] pred=None,
              unsigned char[::1] upd=None, double[::1] scores=None, bint check=True,
              bint learn=True):
    """One online pass of binary ALMA_p over the rows of X (as so_pass takes it): w and theta
    (T) of D = d (+ 1) values, k = [one more than the updates so far]; returns
    (status, bad_row); on a bad row the state is as before the call.  learn=False: the
    scores (s = (w . x') / ||x'||_p, the prediction's) and predictions alone, nothing
    changed (counts too)."""
    cdef AlmaCtx c
    cdef Rows r
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, None)
    cdef Py_ssize_t bad = -1, D = d + (1 if intercept else 0)
    cdef int status
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef double* fp = &scores[0] if scores is not None else NULL
    if not p >= 2.0 or d < 1 or w.shape[0] != D or T.shape[0] != D or k.shape[0] != 1 or \
            counts.shape[0] != 3 or (r.indptr == NULL and r.row_len != d) or \
            y.shape[0] != n or (pred is not None and pred.shape[0] != n) or \
            (upd is not None and upd.shape[0] != n) or \
            (scores is not None and scores.shape[0] != n):
        raise ValueError("alma_pass: the arrays do not match")
    if n == 0:
        return OK, -1
    c.p, c.alpha, c.B, c.C = p, alpha, B, C
    c.intercept, c.tie_pos = intercept, tie_pos
    c.w, c.T, c.k, c.d, c.D, c.counts = &w[0], &T[0], &k[0], d, D, &counts[0]
    c.learn = learn
    cdef Kept kept
    kept_take(&kept, &counts[0], c.w, D, c.T, D, c.k, 1, 0)
    with nogil:
        status = alma_pass_view(&c, &r, &y[0], pp, up, fp, check, &bad)
        if status != OK:
            kept_put_back(&kept)
    free(kept.buf)
    return status, bad


def alma_link(const double[::1] v, double r, bint intercept, double[::1] out):
    """out = the p-norm link of index r of v (mbref.second_order._link; the intercept's
    coordinate last): theta = f(w) of a learner started from given weights."""
    cdef Py_ssize_t d = v.shape[0] - (1 if intercept else 0)
    if out.shape[0] != v.shape[0] or d < 1 or not r > 1.0:
        raise ValueError("alma_link: the arrays do not match")
    p_link(&v[0], d, intercept, r, &out[0])


# ---------------------------------------------------------------------------------------------
# One example at a time (learn_one / predict_one: mbcore._one and names.OneFast)
# ---------------------------------------------------------------------------------------------

from ._rows cimport dense_rows
from .names cimport NameIndex, OneFast, STRICT, binary_code


cdef class OneBinding:
    """A binary learner's state as the one-row step reads it (``so_binding``,
    ``alma_binding``): pointers into the learner's arrays, which it keeps alive, and the
    row's scratch.  Made by the learner's ``_fast_path`` for its current arrays and parameters
    (a new one whenever they change)."""

    cdef SOCtx c
    cdef AlmaCtx a
    cdef bint alma
    cdef readonly Py_ssize_t d
    cdef Py_ssize_t size            # the values the step may change, saved before it
    cdef object arrays              # (the learner's arrays: alive while this is)
    cdef double* keep
    cdef int* nz
    cdef double* u

    def __cinit__(self):
        self.keep = NULL
        self.nz = NULL
        self.u = NULL

    def __dealloc__(self):
        free(self.keep)
        free(self.nz)
        free(self.u)

    cdef int step(self, const double* x, Py_ssize_t n, signed char y) noexcept nogil:
        """The online step on one dense row: OK, or BAD_ROW with the state as before."""
        cdef Rows row = dense_rows(x, 1, 1, n)
        cdef Py_ssize_t bad = -1, D, at = 0
        cdef long long c0, c1, c2
        cdef int status
        cdef long long* counts = self.a.counts if self.alma else self.c.counts
        c0, c1, c2 = counts[0], counts[1], counts[2]
        if self.alma:
            D = self.a.D
            memcpy(self.keep, self.a.w, D * sizeof(double))
            memcpy(self.keep + D, self.a.T, D * sizeof(double))
            self.keep[2 * D] = self.a.k[0]
            status = alma_pass_view(&self.a, &row, &y, NULL, NULL, NULL, 0, &bad)
            if status != OK:
                memcpy(self.a.w, self.keep, D * sizeof(double))
                memcpy(self.a.T, self.keep + D, D * sizeof(double))
                self.a.k[0] = self.keep[2 * D]
        else:
            D = self.c.D
            at = self.size - D - (D if self.c.V != NULL else 0)      # (the covariance's)
            memcpy(self.keep, self.c.w, D * sizeof(double))
            memcpy(self.keep + D, self.c.S, at * sizeof(double))
            if self.c.V != NULL:
                memcpy(self.keep + D + at, self.c.V, D * sizeof(double))
            status = so_pass_view(&self.c, &row, &y, NULL, NULL, NULL, 0, NULL, &bad)
            if status != OK:
                memcpy(self.c.w, self.keep, D * sizeof(double))
                memcpy(self.c.S, self.keep + D, at * sizeof(double))
                if self.c.V != NULL:
                    memcpy(self.c.V, self.keep + D + at, D * sizeof(double))
        if status != OK:
            counts[0], counts[1], counts[2] = c0, c1, c2
        return status

    cdef int score(self, const double* x, Py_ssize_t n, double* f) noexcept nogil:
        """The score whose sign is the prediction of one dense row (no state change): 0, or -1
        when it is not finite."""
        cdef Params pr
        cdef double inv
        if self.alma:
            memset(&pr, 0, sizeof(Params))
            pr.intercept = self.a.intercept
            pr.normalize = 1
            inv = alma_inv(&self.a, &pr, x, <const int*>NULL, n)
            f[0] = raw_score(&pr, self.a.w, 1.0, self.a.d, x, <const int*>NULL, n, inv)
        elif self.c.rule == NAROW or self.c.rule == SOP:
            if dual_row(&self.c, x, <const int*>NULL, n, 1, 0.0, f) < 0:
                return -1
        else:
            f[0] = score_of(&self.c, self.c.w, x, <const int*>NULL, n)
        return 0 if isfinite(f[0]) else -1


def so_binding(int rule, bint full, bint intercept, bint tie_pos, double p0, double p1,
               double floor, double[::1] w, double[::1] S, Py_ssize_t d,
               long long[::1] counts, double[::1] V=None):
    """The one-row binding of a binary learner of so_pass (its arguments as so_pass's)."""
    cdef OneBinding b = OneBinding()
    cdef bint dual = rule == NAROW or rule == SOP
    b.c = make_ctx(rule, full, intercept, tie_pos, p0, p1, floor, w, S, d, counts, 1)
    if dual != (V is not None) or (dual and V.shape[0] != b.c.D):
        raise ValueError("so_binding: the arrays do not match")
    b.alma = False
    b.d = d
    b.arrays = (w, S, V, counts)
    if dual:
        b.c.V = &V[0]
    b.size = b.c.D + S.shape[0] + (b.c.D if dual else 0)
    b.keep = <double*>malloc(b.size * sizeof(double))
    b.nz = <int*>malloc(b.c.D * sizeof(int))
    b.u = <double*>malloc(b.c.D * sizeof(double)) if full else NULL
    if b.keep == NULL or b.nz == NULL or (full and b.u == NULL):
        raise MemoryError()
    b.c.nz = b.nz
    b.c.u = b.u
    return b


def alma_binding(double p, double alpha, double B, double C, bint intercept, bint tie_pos,
                 double[::1] w, double[::1] T, double[::1] k, Py_ssize_t d,
                 long long[::1] counts):
    """The one-row binding of binary ALMA_p (its arguments as alma_pass's)."""
    cdef OneBinding b = OneBinding()
    cdef Py_ssize_t D = d + (1 if intercept else 0)
    if not p >= 2.0 or d < 1 or w.shape[0] != D or T.shape[0] != D or k.shape[0] != 1 or \
            counts.shape[0] != 3:
        raise ValueError("alma_binding: the arrays do not match")
    b.alma = True
    b.d = d
    b.arrays = (w, T, k, counts)
    b.a.p, b.a.alpha, b.a.B, b.a.C = p, alpha, B, C
    b.a.intercept, b.a.tie_pos = intercept, tie_pos
    b.a.w, b.a.T, b.a.k, b.a.d, b.a.D, b.a.counts = &w[0], &T[0], &k[0], d, D, &counts[0]
    b.a.learn = 1
    b.size = 2 * D + 1
    b.keep = <double*>malloc(b.size * sizeof(double))
    if b.keep == NULL:
        raise MemoryError()
    return b


cdef class OneSecondOrder(OneFast):
    """learn_one and predict_one of a binary learner of this module, each one compiled call
    (the lock and the binding: ``names.OneFast``): the name index's fill, the label's code and
    the one-row step (``OneBinding``).  ``fast`` is the learner's ``_fast`` (binding, d,
    positive label, negative label), ``one`` its ``_one`` (index, fill's modes)."""

    cdef OneBinding b
    cdef NameIndex idx
    cdef object pos, neg
    cdef int learn_mode, predict_mode

    def __init__(self, learner, tuple fast not None, tuple one not None):
        OneFast.__init__(self, learner, fast, one)
        self.b, self.pos, self.neg = fast[0], fast[2], fast[3]
        self.idx = one[0]
        self.learn_mode = one[1]
        self.predict_mode = one[2]

    cdef Py_ssize_t learn_c(self, object x, object y, int strict) except? -100:
        # as linear.OneLinear's: 0 done; > 0 a bad row (the state unchanged); < 0 the general
        # path (fill's status, -5 new names, -7 a label of neither class)
        cdef Py_ssize_t n
        cdef int k = binary_code(y, self.pos, self.neg, strict)
        if k != 1 and k != -1:
            return k
        n = self.idx.fill_c(x, self.learn_mode | (STRICT if strict else 0))
        if n < 0:
            return n
        if n != self.b.d:
            return -5
        return self.b.step(self.idx.row_ptr(), n, <signed char>k)

    cdef object predict_c(self, object x, object miss, int strict):
        cdef Py_ssize_t n
        cdef double f = 0.0
        n = self.idx.fill_c(x, self.predict_mode | (STRICT if strict else 0))
        if n < 0 or n != self.b.d:
            return miss
        if self.b.score(self.idx.row_ptr(), n, &f) != 0:
            return miss
        return self.pos if sign_of(f, self.b.a.tie_pos if self.b.alma else self.b.c.tie_pos) > 0 \
            else self.neg
