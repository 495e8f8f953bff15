# cython: language_level=3
"""Compiled kernels of the budget kernel Perceptrons (mbcore.budget): the Stoptron, the
Randomized Budget Perceptron, the self-tuned Forgetron, the Projectron, Projectron++ and BPA-S,
two classes and one-vs-rest, dense and CSR rows.

Each rule is its twin's (``mbref.budget``) operation for operation: the kernel values are
``_kfun.pxd``'s (KernelPerceptron's), the sums ``_arith.pxd``'s, the generator ``_rng.pxd``'s,
and Python's ``min``/``max`` are written out with their own tie and NaN behaviour (``min(a, b)``
is b only when b < a).  One whole pass runs without the GIL and allocates nothing; a row the
rule refuses (a value that is not finite) stops the pass, and the Python side puts the state
back (its ``Snapshot``) and names the row.

The state, for m binary learners (m = 1 for two classes, K for one-vs-rest) of cap slots each
(learner k's slots are rows [k cap, (k + 1) cap) of sv, svn, kd, coef, lab): meta[3k:3k+3] =
[slots held, ring position (the Forgetron's oldest), mistakes (the Forgetron's M)], Q[k] (the
Forgetron's removal damage), kinv[k cap^2 : (k + 1) cap^2] (the Projectrons' inverse Gram
matrix, row a at a * cap), rng[0] (the Randomized Budget Perceptron's one splitmix64 state).
"""

from libc.math cimport isfinite, sqrt
from libc.string cimport memset, memcpy

import numpy as np

from ._arith cimport floating, index_t, dot_row, sumsq_vals, sign_of
from ._rows cimport Rows, rows_of, ADDITIVE_CODES, OK, BAD_ROW, NEED_ROOM, row_at
from ._kfun cimport KParams, kval, make_kparams
from ._rng cimport splitmix_uniform


cdef enum:
    R_STOPTRON = 0
    R_RBP = 1
    R_FORGETRON = 2
    R_PROJECTRON = 3
    R_PROJECTRON_PP = 4
    R_BPA_S = 5


cdef struct BState:
    KParams kp
    int rule
    Py_ssize_t d
    Py_ssize_t cap
    Py_ssize_t m
    long long budget            # <= 0: no budget (the Projectrons' None)
    double eta
    double C
    double* sv
    double* svn
    double* kd
    double* coef
    long long* meta
    signed char* lab
    double* Q
    double* kinv
    unsigned long long* rng
    double* kv                  # scratch: each learner's kernel values of the row (m x cap)
    double* fk                  # scratch: the m scores of the row
    double* dd                  # scratch: the Projectrons' d = Kinv kv, and -1 (cap + 1)
    double* z                   # scratch: the row as a dense support vector (d)
    double zz                   # its squared norm
    double zkd                  # K(z, z)
    int zdone                   # z, zz, zkd hold the current row


cdef inline double bk_score(BState* st, Py_ssize_t k, const floating* v, const index_t* xi,
                            Py_ssize_t n, double* kvout) noexcept nogil:
    """Learner k's score of the row, f = f + a_s * K(x, z_s) in slot order; the kernel values
    go to kvout (when not NULL)."""
    cdef Py_ssize_t s, base = k * st.cap, ns = st.meta[3 * k], d = st.d
    cdef double f = 0.0, kv
    for s in range(ns):
        kv = kval(&st.kp, st.sv + (base + s) * d, st.svn[base + s], v, xi, n)
        if kvout != NULL:
            kvout[s] = kv
        f = f + st.coef[base + s] * kv
    return f


cdef inline int bk_stored(BState* st, const floating* v, const index_t* xi,
                          Py_ssize_t n) noexcept nogil:
    """The row as a slot (the twin's ``_stored``): z, ||z||^2 and K(z, z) into st, once per
    row; -1 when the norm or the self-kernel value is not finite."""
    cdef Py_ssize_t j, d = st.d
    cdef double* z = st.z
    cdef const int* noix = NULL
    if st.zdone:
        return 0
    if xi == NULL:
        for j in range(d):
            z[j] = v[j]
    else:
        memset(z, 0, d * sizeof(double))
        for j in range(n):
            z[xi[j]] = v[j]
    st.zz = sumsq_vals(z, d)
    if not isfinite(st.zz):
        return -1
    st.zkd = kval(&st.kp, z, st.zz, <const double*>z, noix, d)
    if not isfinite(st.zkd):
        return -1
    st.zdone = 1
    return 0


cdef inline void bk_put(BState* st, Py_ssize_t k, Py_ssize_t s, double c) noexcept nogil:
    """Write the stored row into learner k's slot s with the coefficient c."""
    cdef Py_ssize_t at = k * st.cap + s
    memcpy(st.sv + at * st.d, st.z, st.d * sizeof(double))
    st.svn[at] = st.zz
    st.kd[at] = st.zkd
    st.coef[at] = c


cdef inline double psi(double lam, double mu) noexcept nogil:
    return (lam * lam + 2.0 * lam) - (2.0 * lam) * mu


cdef inline void bk_project(BState* st, Py_ssize_t k, Py_ssize_t ns, double* N) noexcept nogil:
    """The Projectrons' d = Kinv kv (into st.dd) and N = d . kv."""
    cdef Py_ssize_t a, cap = st.cap
    cdef const double* Ki = st.kinv + k * cap * cap
    cdef const double* kv = st.kv + k * cap
    cdef const int* noix = NULL
    for a in range(ns):
        st.dd[a] = dot_row(Ki + a * cap, kv, noix, ns)
    N[0] = dot_row(st.dd, kv, noix, ns)


cdef int bk_projectron_mistake(BState* st, Py_ssize_t k, int y, const floating* v,
                               const index_t* xi, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t a, b, cap = st.cap, base = k * cap
    cdef long long* meta = st.meta + 3 * k
    cdef Py_ssize_t ns = meta[0]
    cdef double N, Delta, delta, c, row
    cdef double* Ki = st.kinv + k * cap * cap
    cdef double* dd = st.dd
    if bk_stored(st, v, xi, n) < 0:
        return -1
    bk_project(st, k, ns, &N)
    Delta = st.zkd - N
    delta = sqrt(0.0 if 0.0 > Delta else Delta)
    for a in range(ns):
        if not isfinite(dd[a]):
            return -1
    if not isfinite(Delta):
        return -1
    if delta <= st.eta or ns == st.budget:
        if ns == 0:
            return 0
        c = <double>y
        for a in range(ns):
            st.coef[base + a] = st.coef[base + a] + c * dd[a]
        return 1
    # add: Kinv grows by the block formula, e = (d, -1) (ns < cap: the pass made room)
    dd[ns] = -1.0
    for a in range(ns + 1):
        for b in range(ns + 1):
            row = Ki[a * cap + b] if (a < ns and b < ns) else 0.0
            Ki[a * cap + b] = row + (dd[a] * dd[b]) / Delta
    for a in range(ns + 1):
        for b in range(ns + 1):
            if not isfinite(Ki[a * cap + b]):
                return -1
    bk_put(st, k, ns, <double>y)
    meta[0] = ns + 1
    return 1


cdef int bk_update(BState* st, Py_ssize_t k, int y, double f, int p, const floating* v,
                   const index_t* xi, Py_ssize_t n) noexcept nogil:
    """Learner k's rule on the row of label y (+-1), score f and prediction p (its kernel
    values in st.kv); 1 when its state changed, 0 when not, -1 for a bad row."""
    cdef Py_ssize_t s, r, cap = st.cap, base = k * cap, d = st.d
    cdef long long* meta = st.meta + 3 * k
    cdef Py_ssize_t ns = meta[0]
    cdef long long B = st.budget
    cdef double* coef = st.coef + base
    cdef double* kv = st.kv + base
    cdef double* kdv = st.kd + base
    cdef double sigma, fr, mu, cp, phi, a, b, c, D, loss, N, delta, tau, t, best, val, beta, u
    cdef long long j
    cdef const double* zr
    cdef const int* noix = NULL
    if st.rule == R_STOPTRON:
        if p == y or ns == B:
            return 0
        if bk_stored(st, v, xi, n) < 0:
            return -1
        bk_put(st, k, ns, <double>y)
        meta[0] = ns + 1
        return 1
    if st.rule == R_RBP:
        if p == y:
            return 0
        if bk_stored(st, v, xi, n) < 0:
            return -1
        if ns < B:
            bk_put(st, k, ns, <double>y)
            meta[0] = ns + 1
            return 1
        u = splitmix_uniform(st.rng)
        j = <long long>(u * <double>B)
        if B - 1 < j:
            j = B - 1
        bk_put(st, k, j, <double>y)
        return 1
    if st.rule == R_FORGETRON:
        if p == y:
            return 0
        meta[2] += 1
        if bk_stored(st, v, xi, n) < 0:
            return -1
        if ns < B:
            bk_put(st, k, ns, <double>y)
            st.lab[base + ns] = <signed char>y
            meta[0] = ns + 1
            return 1
        r = meta[1]
        sigma = coef[r] * <double>st.lab[base + r]
        zr = st.sv + (base + r) * d
        fr = 0.0
        for s in range(ns):
            fr = fr + coef[s] * kval(&st.kp, st.sv + (base + s) * d, st.svn[base + s], zr,
                                     noix, d)
        mu = <double>st.lab[base + r] * (fr + <double>y * kv[r])
        cp = 0.46875 * <double>meta[2]
        if st.Q[k] + psi(sigma, mu) <= cp:
            phi = 1.0
        else:
            a = sigma * sigma - (2.0 * sigma) * mu
            b = 2.0 * sigma
            c = st.Q[k] - cp
            D = b * b - (4.0 * a) * c
            phi = (-2.0 * c) / (b + sqrt(0.0 if 0.0 > D else D))
            if 1.0 < phi:
                phi = 1.0
        if not (isfinite(mu) and phi > 0.0):
            return -1
        for s in range(ns):
            coef[s] = coef[s] * phi
        st.Q[k] = st.Q[k] + psi(sigma * phi, phi * mu)
        bk_put(st, k, r, <double>y * phi)
        st.lab[base + r] = <signed char>y
        meta[1] = (r + 1) % B
        return 1
    if st.rule == R_PROJECTRON or st.rule == R_PROJECTRON_PP:
        if p != y:
            return bk_projectron_mistake(st, k, y, v, xi, n)
        if st.rule == R_PROJECTRON:
            return 0
        if not (<double>y * f < 1.0) or ns == 0:
            return 0
        if st.eta == 0.0:
            return 0
        loss = 1.0 - <double>y * f
        if bk_stored(st, v, xi, n) < 0:
            return -1
        bk_project(st, k, ns, &N)
        D = st.zkd - N
        delta = sqrt(0.0 if 0.0 > D else D)
        if not N > 0.0 or not loss - delta / st.eta > 0.0:
            return 0
        tau = loss / N
        if 1.0 < tau:
            tau = 1.0
        t = (2.0 * (loss - delta / st.eta)) / N
        if t < tau:
            tau = t
        c = tau * <double>y
        for s in range(ns):
            coef[s] = coef[s] + c * st.dd[s]
        for s in range(ns):
            if not isfinite(coef[s]):
                return -1
        return 1
    if st.rule == R_BPA_S:
        if not (<double>y * f < 1.0):
            return 0
        if bk_stored(st, v, xi, n) < 0:
            return -1
        if not st.zkd > 0.0:          # (finite: bk_stored refuses the rest)
            return 0
        t = (1.0 - <double>y * f) / st.zkd
        tau = t if t < st.C else st.C
        if ns < B:
            bk_put(st, k, ns, tau * <double>y)
            meta[0] = ns + 1
            return 1
        r = 0
        for s in range(ns):
            a = coef[s]
            val = (a * a) * (kdv[s] - (kv[s] * kv[s]) / st.zkd)
            if s == 0 or val < best:
                r = s
                best = val
        beta = (coef[r] * kv[r]) / st.zkd + tau * <double>y
        if not isfinite(beta):
            return -1
        bk_put(st, k, r, beta)
        return 1
    return -1                       # (no such rule: the entry point refuses it)


cdef int bk_pass_impl(BState* st, long long* counts, const floating* val, const index_t* ix,
                      const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                      const int* y, int* pred, unsigned char* upd,
                      Py_ssize_t* stop) noexcept nogil:
    """The online pass.  Two classes (m == 1): y and pred are +-1.  One-vs-rest (m = K):
    class indices; the scores from the states before the row, the argmax (ties to the smallest
    index), then learner k = 0..K-1 takes the row with y_k = +1 iff y == k.  NEED_ROOM at row
    stop[0] when a learner may need a slot it does not have; BAD_ROW at stop[0] for a bad row
    (the caller puts the state back)."""
    cdef Py_ssize_t i, n, k, best, m = st.m
    cdef const floating* v
    cdef const index_t* xi
    cdef int p, yi, yk, r, updated
    cdef double f
    for i in range(n_rows):
        for k in range(m):
            if st.meta[3 * k] == st.cap and (st.budget <= 0 or st.cap < st.budget):
                stop[0] = i
                return NEED_ROOM
        n = row_at(val, ix, indptr, row_len, i, &v, &xi)
        st.zdone = 0
        for k in range(m):
            f = bk_score(st, k, v, xi, n, st.kv + k * st.cap)
            if not isfinite(f):
                stop[0] = i
                return BAD_ROW
            st.fk[k] = f
        yi = y[i]
        updated = 0
        if m == 1:
            p = sign_of(st.fk[0], st.kp.tie_pos)
            r = bk_update(st, 0, yi, st.fk[0], p, v, xi, n)
            if r < 0:
                stop[0] = i
                return BAD_ROW
            updated = r
        else:
            best = 0
            for k in range(m):
                if st.fk[k] > st.fk[best]:
                    best = k
            p = <int>best
            for k in range(m):
                yk = 1 if yi == k else -1
                r = bk_update(st, k, yk, st.fk[k], sign_of(st.fk[k], st.kp.tie_pos), v, xi, n)
                if r < 0:
                    stop[0] = i
                    return BAD_ROW
                updated |= r
        pred[i] = p
        upd[i] = updated
        counts[0] += 1
        if p != yi:
            counts[1] += 1
        if updated:
            counts[2] += 1
    stop[0] = n_rows
    return OK


cdef int bk_scores_impl(BState* st, const floating* val, const index_t* ix,
                        const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len,
                        double* out, Py_ssize_t* bad) noexcept nogil:
    """Each row's m scores into out (n_rows x m); BAD_ROW at bad[0] for a score that is not
    finite."""
    cdef Py_ssize_t i, n, k, m = st.m
    cdef const floating* v
    cdef const index_t* xi
    cdef double f
    for i in range(n_rows):
        n = row_at(val, ix, indptr, row_len, i, &v, &xi)
        for k in range(m):
            f = bk_score(st, k, v, xi, n, NULL)
            if not isfinite(f):
                bad[0] = i
                return BAD_ROW
            out[i * m + k] = f
    return OK


cdef object bk_state(BState* st, int rule, int kind, int degree, bint tie_pos, double gamma,
                     double coef0, long long budget, double eta, double C, double[:, ::1] sv,
                     double[::1] svn, double[::1] kd, double[::1] coef, long long[::1] meta,
                     signed char[::1] lab, double[::1] Q, double[::1] kinv,
                     unsigned long long[::1] rng, str who):
    """Fill st from the state arrays, checking every size and index the kernels rely on (a
    crafted state never makes them read or write outside an array); returns the scratch
    arrays (kept alive by the caller).  rule -1: the scores alone (no rule's extras)."""
    cdef Py_ssize_t m, cap, d, k, ns, head
    if not -1 <= rule <= R_BPA_S or not 0 <= kind <= 2 or degree < 1:
        raise ValueError(f"{who}: no such rule or kernel")
    m = meta.shape[0] // 3
    if m < 1 or meta.shape[0] != 3 * m or sv.shape[0] % m:
        raise ValueError(f"{who}: the arrays do not match")
    cap = sv.shape[0] // m
    d = sv.shape[1]
    if cap < 1 or d < 1 or svn.shape[0] != m * cap or kd.shape[0] != m * cap or \
            coef.shape[0] != m * cap or (budget > 0 and cap > budget):
        raise ValueError(f"{who}: the arrays do not match")
    if rule == R_STOPTRON or rule == R_RBP or rule == R_FORGETRON or rule == R_BPA_S:
        if budget <= 0:
            raise ValueError(f"{who}: the rule needs a budget")
    if rule == R_FORGETRON and (lab is None or Q is None or lab.shape[0] != m * cap or
                                Q.shape[0] != m):
        raise ValueError(f"{who}: the arrays do not match")
    if (rule == R_PROJECTRON or rule == R_PROJECTRON_PP) and \
            (kinv is None or kinv.shape[0] != m * cap * cap):
        raise ValueError(f"{who}: the arrays do not match")
    if rule == R_RBP and (rng is None or rng.shape[0] != 1):
        raise ValueError(f"{who}: the arrays do not match")
    for k in range(m):
        ns, head = meta[3 * k], meta[3 * k + 1]
        if not (0 <= ns <= cap and 0 <= head < cap and meta[3 * k + 2] >= 0):
            raise ValueError(f"{who}: the arrays do not match")
    st.kp = make_kparams(kind, degree, tie_pos, gamma, coef0)
    st.rule = rule
    st.d, st.cap, st.m = d, cap, m
    st.budget = budget
    st.eta, st.C = eta, C
    st.sv, st.svn, st.kd, st.coef, st.meta = &sv[0, 0], &svn[0], &kd[0], &coef[0], &meta[0]
    st.lab = &lab[0] if rule == R_FORGETRON else NULL
    st.Q = &Q[0] if rule == R_FORGETRON else NULL
    st.kinv = &kinv[0] if (rule == R_PROJECTRON or rule == R_PROJECTRON_PP) else NULL
    st.rng = &rng[0] if rule == R_RBP else NULL
    scratch = np.zeros(m * cap + m + cap + 1 + d)
    cdef double[::1] s = scratch
    st.kv = &s[0]
    st.fk = st.kv + m * cap
    st.dd = st.fk + m
    st.z = st.dd + cap + 1
    st.zdone = 0
    return scratch


def bk_pass(int rule, int kind, int degree, bint tie_pos, double gamma, double coef0,
            long long budget, double eta, double C, double[:, ::1] sv, double[::1] svn,
            double[::1] kd, double[::1] coef, long long[::1] meta, signed char[::1] lab,
            double[::1] Q, double[::1] kinv, unsigned long long[::1] rng,
            long long[::1] counts, X, Py_ssize_t start, const int[::1] y, int[::1] pred,
            unsigned char[::1] upd):
    """The online pass of a budget kernel Perceptron over the rows start.. of X (a
    C-contiguous float32/float64 matrix or a CSR triple with checked indices); returns
    (status, row): OK, BAD_ROW at a row, or NEED_ROOM (grow the slots, then call again from
    that row).  y: +-1 (one learner) or class indices in [0, K) (K learners)."""
    cdef BState st
    cdef Py_ssize_t stop = 0, i
    cdef int status
    cdef Rows r
    scratch = bk_state(&st, rule, kind, degree, tie_pos, gamma, coef0, budget, eta, C, sv, svn,
                       kd, coef, meta, lab, Q, kinv, rng, "bk_pass")
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, None, start)
    if (r.indptr == NULL and r.row_len != st.d) or y.shape[0] != n or pred.shape[0] != n or \
            upd.shape[0] != n or counts.shape[0] != 3 or start < 0:
        raise ValueError("bk_pass: the arrays do not match")
    for i in range(start, n):
        if (st.m == 1 and y[i] != 1 and y[i] != -1) or (st.m > 1 and not 0 <= y[i] < st.m):
            raise ValueError("bk_pass: a label is out of range")
    if start >= n:
        return OK, start
    with nogil:
        if r.vt == 1:
            if r.it == 1:
                status = bk_pass_impl(&st, &counts[0], <const double*>r.val,
                                      <const long long*>r.ix, <const long long*>r.indptr,
                                      r.n_rows, r.row_len, &y[start], &pred[start],
                                      &upd[start], &stop)
            else:
                status = bk_pass_impl(&st, &counts[0], <const double*>r.val, <const int*>r.ix,
                                      <const int*>r.indptr, r.n_rows, r.row_len, &y[start],
                                      &pred[start], &upd[start], &stop)
        else:
            if r.it == 1:
                status = bk_pass_impl(&st, &counts[0], <const float*>r.val,
                                      <const long long*>r.ix, <const long long*>r.indptr,
                                      r.n_rows, r.row_len, &y[start], &pred[start],
                                      &upd[start], &stop)
            else:
                status = bk_pass_impl(&st, &counts[0], <const float*>r.val, <const int*>r.ix,
                                      <const int*>r.indptr, r.n_rows, r.row_len, &y[start],
                                      &pred[start], &upd[start], &stop)
    return status, start + stop


def bk_scores(int kind, int degree, double gamma, double coef0, double[:, ::1] sv,
              double[::1] svn, double[::1] coef, long long[::1] meta, X, double[:, ::1] out):
    """The m scores of every row of X (as bk_pass takes it) into out (n, m); returns
    (status, bad_row).  No state change."""
    cdef BState st
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef Rows r
    cdef double[::1] kd = svn          # (read by no score)
    scratch = bk_state(&st, -1, kind, degree, 0, gamma, coef0, -1, 0.0, 1.0, sv, svn, kd, coef,
                       meta, None, None, None, None, "bk_scores")
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, None)
    if (r.indptr == NULL and r.row_len != st.d) or out.shape[0] != n or out.shape[1] != st.m:
        raise ValueError("bk_scores: the arrays do not match")
    if n == 0:
        return OK, bad
    with nogil:
        if r.vt == 1:
            if r.it == 1:
                status = bk_scores_impl(&st, <const double*>r.val, <const long long*>r.ix,
                                        <const long long*>r.indptr, r.n_rows, r.row_len,
                                        &out[0, 0], &bad)
            else:
                status = bk_scores_impl(&st, <const double*>r.val, <const int*>r.ix,
                                        <const int*>r.indptr, r.n_rows, r.row_len, &out[0, 0],
                                        &bad)
        else:
            if r.it == 1:
                status = bk_scores_impl(&st, <const float*>r.val, <const long long*>r.ix,
                                        <const long long*>r.indptr, r.n_rows, r.row_len,
                                        &out[0, 0], &bad)
            else:
                status = bk_scores_impl(&st, <const float*>r.val, <const int*>r.ix,
                                        <const int*>r.indptr, r.n_rows, r.row_len, &out[0, 0],
                                        &bad)
    return status, bad
