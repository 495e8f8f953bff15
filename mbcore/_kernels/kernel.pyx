# cython: language_level=3
"""Compiled kernels of the kernel Perceptron (mbcore.kernel.KernelPerceptron): the binary pass
and scores, and Kesler's construction for K classes, on a budget of support vectors.

The arithmetic is ``_arith.pxd``'s (``mbref._arith``'s contract), so that the pure-Python twin
reproduces every prediction and update bit for bit.
"""

from libc.math cimport isfinite
from libc.string cimport memset

import numpy as np

from ._arith cimport (floating, index_t, dot_row, sumsq_vals, sign_of)
from ._rows cimport Rows, rows_of, ADDITIVE_CODES, OK, BAD_ROW, NEED_ROOM, row_at
from ._kfun cimport KParams, kval, make_kparams


# ---------------------------------------------------------------------------------------------
# Kernel Perceptron
# ---------------------------------------------------------------------------------------------

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


cdef int kp_pass_impl(const KParams* kp, double* sv, double* svn, double* coef, long long* meta,
                      Py_ssize_t cap, long long budget, Py_ssize_t d, long long* counts,
                      const floating* val, const index_t* ix, const index_t* indptr,
                      Py_ssize_t n_rows, Py_ssize_t row_len, const signed char* y,
                      signed char* pred, unsigned char* upd, Py_ssize_t* stop, double* fout=NULL,
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


def kp_pass(int kind, int degree, bint tie_pos, double gamma, double coef0,
            double[:, ::1] sv, double[::1] svn, double[::1] coef, long long[::1] meta,
            long long budget, long long[::1] counts, X, Py_ssize_t start,
            const signed char[::1] y, signed char[::1] pred, unsigned char[::1] upd,
            double[::1] scores=None, const double[::1] sw=None):
    """Kernel Perceptron pass over the rows start.. of X (as linear.lin_pass takes it; CSR
    indices checked against sv.shape[1]); returns (status, row).  scores, when given,
    receives each row's score; sw: the rows' sample weights (of all of X), or None."""
    cdef KParams kp = make_kparams(kind, degree, tie_pos, gamma, coef0)
    cdef Py_ssize_t stop = 0
    cdef int status
    cdef Py_ssize_t d = sv.shape[1]
    cdef double* fp = NULL
    cdef Rows r
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, sw, start)
    if (r.indptr == NULL and r.row_len != d) or y.shape[0] != n or pred.shape[0] != n or \
            upd.shape[0] != n or svn.shape[0] != sv.shape[0] or coef.shape[0] != sv.shape[0] or \
            meta.shape[0] != 2 or counts.shape[0] != 3 or start < 0:
        raise ValueError("kp_pass: the arrays do not match")
    if start >= n:
        return OK, start
    if scores is not None:
        if scores.shape[0] != n:
            raise ValueError("kp_pass: scores does not match X")
        fp = &scores[start]
    with nogil:
        status = kp_pass_view(&kp, &sv[0, 0], &svn[0], &coef[0], &meta[0], sv.shape[0], budget,
                              d, &counts[0], &r, &y[start], &pred[start], &upd[start], &stop,
                              fp, r.sw)
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


cdef int kpm_pass_impl(const KParams* kp, double* sv, double* svn, double* A, long long* meta,
                       Py_ssize_t cap, long long budget, Py_ssize_t d, Py_ssize_t K,
                       long long* counts, const floating* val, const index_t* ix,
                       const index_t* indptr, Py_ssize_t n_rows, Py_ssize_t row_len, const int* y,
                       int* pred, unsigned char* upd, double* f, Py_ssize_t* stop,
                       const double* sw=NULL) noexcept nogil:
    """The multi-class kernel Perceptron (see kp_pass_impl for meta, NEED_ROOM and BAD_ROW): predict
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


def kpm_pass(int kind, int degree, double gamma, double coef0, double[:, ::1] sv,
             double[::1] svn, double[:, ::1] A, long long[::1] meta, long long budget,
             long long[::1] counts, X, Py_ssize_t start, const int[::1] y, int[::1] pred,
             unsigned char[::1] upd, const double[::1] sw=None):
    """Multi-class kernel Perceptron pass over the rows start.. of X (as kp_pass); returns
    (status, row)."""
    cdef KParams kp = make_kparams(kind, degree, 0, gamma, coef0)
    cdef Py_ssize_t stop = 0, K = A.shape[1]
    cdef int status
    cdef Py_ssize_t d = sv.shape[1]
    cdef double[::1] f = np.empty(K)
    cdef Rows r
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, sw, start)
    if (r.indptr == NULL and r.row_len != d) or A.shape[0] != sv.shape[0] or \
            svn.shape[0] != sv.shape[0] or meta.shape[0] != 2 or counts.shape[0] != 3 or \
            y.shape[0] != n or pred.shape[0] != n or upd.shape[0] != n or K < 3 or start < 0:
        raise ValueError("kpm_pass: the arrays do not match")
    if start >= n:
        return OK, start
    with nogil:
        status = kpm_pass_view(&kp, &sv[0, 0], &svn[0], &A[0, 0], &meta[0], sv.shape[0], budget,
                               d, K, &counts[0], &r, &y[start], &pred[start], &upd[start], &f[0],
                               &stop, r.sw)
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


def kpm_scores(int kind, int degree, double gamma, double coef0, const double[:, ::1] sv,
               const double[::1] svn, const double[:, ::1] A, Py_ssize_t n_sv, X,
               double[:, ::1] out):
    """The K scores of every row of X (as kp_pass takes it) into out (n, K); returns
    (status, bad_row)."""
    cdef KParams kp = make_kparams(kind, degree, 0, gamma, coef0)
    cdef Py_ssize_t bad = -1, K = A.shape[1]
    cdef int status
    cdef Rows r
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, None)
    if (r.indptr == NULL and r.row_len != sv.shape[1]) or A.shape[0] != sv.shape[0] or \
            n_sv > sv.shape[0] or n_sv < 0 or svn.shape[0] != sv.shape[0] or \
            out.shape[0] != n or out.shape[1] != K:
        raise ValueError("kpm_scores: the arrays do not match")
    with nogil:
        status = kpm_scores_view(&kp, &sv[0, 0], &svn[0], &A[0, 0], n_sv, sv.shape[1], K, &r,
                                 &out[0, 0], &bad)
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


def kp_scores(int kind, int degree, double gamma, double coef0, const double[:, ::1] sv,
              const double[::1] svn, const double[::1] coef, Py_ssize_t n_sv, X,
              double[::1] out):
    """f(x) = sum_s coef[s] K(sv[s], x) for every row of X (as kp_pass takes it)."""
    cdef KParams kp = make_kparams(kind, degree, 0, gamma, coef0)
    cdef Py_ssize_t bad = -1
    cdef int status
    cdef Rows r
    cdef Py_ssize_t n = rows_of(X, &r, ADDITIVE_CODES, None)
    if (r.indptr == NULL and r.row_len != sv.shape[1]) or n_sv > sv.shape[0] or n_sv < 0 or \
            svn.shape[0] != sv.shape[0] or coef.shape[0] != sv.shape[0] or out.shape[0] != n:
        raise ValueError("kp_scores: the arrays do not match")
    with nogil:
        status = kp_scores_view(&kp, &sv[0, 0], &svn[0], &coef[0], n_sv, sv.shape[1], &r,
                                &out[0], &bad)
    return status, bad


# kp_pass_view, kpm_pass_view, kp_scores_view, kpm_scores_view: the fused cores for a Rows
# view's dtypes, generated from _dispatch.pxi.tp by setup.py.
include "_dispatch_kernel.pxi"
