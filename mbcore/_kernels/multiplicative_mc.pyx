# cython: language_level=3
"""Compiled kernels of the multiplicative family with K >= 3 classes (Winnow2, elimination
Winnow, Winnow*, Balanced Winnow with ``multi_class``): K weight vectors, feature-major, one pass
for "multiclass" (the argmax) and "ovr" (K binary learners), mirroring ``mbref.multiplicative``
bit for bit.  The binary learners' kernels are ``multiplicative``'s; what both share (the
parameters, the row checks, one weight's update, the helpers of the exact decisions) is
``_winnow.pxd``'s.

A learning pass runs on several threads through the speculative block passes of _spec.h
(``threads``; the per-row judge, mc_scan, uses the arithmetic of the sequential pass): its
results are the same, bit for bit, for any number of threads.
"""

from libc.math cimport INFINITY
from libc.stdlib cimport malloc, free
from libc.string cimport memset

from ._exact cimport bits_ge_bits, bits_ge_double, carry_bits
from ._rows cimport Rows, rows_of, longest_row, WINNOW_CODES
from ._spec cimport mb_spec_pass, mb_touch_fn, spec_tuning_impl, touch_rows, volatile_load
from ._winnow cimport (value_t, index_t, BALANCED, WParams, make_params, ROW_OK, NO_MEMORY,
                       ROW_NONFINITE, CHECK_INDICES, CHECK_VALUES, EPS, DENORM, DBL_MAX,
                       sum_bits, filtered_ge, decidable, signed_margin, update_weight,
                       spec_slots, next_row)


# ---------------------------------------------------------------------------------------------
# Test and benchmark hooks: spec_tuning (this module's block sizes: run-time state, not
# thread-safe, set it before the passes; the binary passes have their own, in
# mbcore._kernels.multiplicative).  It changes no result.
# ---------------------------------------------------------------------------------------------

def spec_tuning(seq_gap=None, min_rows=None, max_rows=None, stretch=None):
    """This module's block sizes (see _spec.pxd): the old (seq_gap, min_rows, max_rows,
    stretch); the arguments that are not None replace them."""
    return spec_tuning_impl(seq_gap, min_rows, max_rows, stretch)


# mb_spec_pass's callbacks mc_run_cb, mc_scan_cb: mc_run or mc_scan for the job's dtypes (vt,
# it); with value_bytes and index_bytes, generated from _dispatch.pxi.tp by setup.py.
include "_dispatch_multiplicative_mc.pxi"


cdef enum:
    JUDGE = 2       # mc_winnow_row's update mode that judges a row without learning it


# ---------------------------------------------------------------------------------------------
# More than two classes: K weight vectors, feature-major (l[j * K + k]: feature j, class k)
# ---------------------------------------------------------------------------------------------
#
# Class k's score is the binary score with its weights, in the binary order: the m-th active
# feature of the row goes to the partial sum m % 4 (exact mode: the sum of 2**l, decided exactly;
# real mode: x * 2**l; Balanced: x * (2**l+ - 2**l-)).  The prediction is the argmax, the smallest
# class index among ties; in exact mode the float sums with their error bounds settle it unless
# two classes are within their bounds, and then the exact binary sums of the candidates decide.
# A pass that meets a bad row returns its code: the Python layer puts the state back
# (mbcore.base.Snapshot), so no undo log is kept here.

cdef struct MCBuf:
    Py_ssize_t K
    Py_ssize_t* act          # the active features' positions in the row
    double* acc              # 4 K partial sums (Balanced Winnow in exact mode: 3 x 4 K)
    double* S                # K class sums (Balanced Winnow in exact mode: then P, N: 3 K)
    double* err              # K error bounds (exact mode)
    long long* e             # exponents of one or two classes' active weights (and theta)
    long long* ba            # the set bits of the best class's exact sum
    long long* bb            # the set bits of a contender's exact sum


cdef int mc_buf_init(MCBuf* b, Py_ssize_t K, Py_ssize_t max_row) noexcept nogil:
    b.K = K
    b.act = <Py_ssize_t*>malloc((max_row + 1) * sizeof(Py_ssize_t))
    b.acc = <double*>malloc(12 * K * sizeof(double))
    b.S = <double*>malloc(3 * K * sizeof(double))
    b.err = <double*>malloc(K * sizeof(double))
    b.e = <long long*>malloc((2 * max_row + 53) * sizeof(long long))
    b.ba = <long long*>malloc((2 * max_row + 117) * sizeof(long long))
    b.bb = <long long*>malloc((2 * max_row + 117) * sizeof(long long))
    return b.act != NULL and b.acc != NULL and b.S != NULL and b.err != NULL and \
        b.e != NULL and b.ba != NULL and b.bb != NULL


cdef void mc_buf_free(MCBuf* b) noexcept nogil:
    free(b.act)
    free(b.acc)
    free(b.S)
    free(b.err)
    free(b.e)
    free(b.ba)
    free(b.bb)


cdef inline Py_ssize_t mc_class_bits(const double* l, Py_ssize_t K, Py_ssize_t k,
                                     const index_t* ix, const Py_ssize_t* act, Py_ssize_t m,
                                     long long* e, long long* bits) noexcept nogil:
    """The set bits of class k's exact sum over the active features (exact mode)."""
    cdef Py_ssize_t q, r = 0, j
    cdef double lv
    for q in range(m):
        j = ix[act[q]] if ix != NULL else act[q]
        lv = l[j * K + k]
        if lv != -INFINITY:
            e[r] = <long long>lv
            r += 1
    return carry_bits(e, r, bits)


cdef inline void mc_update_class(const WParams* p, double* l, double* w, double* ln, double* wn,
                                 Py_ssize_t K, Py_ssize_t k, int positive, const value_t* v,
                                 const index_t* ix, const Py_ssize_t* act,
                                 Py_ssize_t m) noexcept nogil:
    """The binary update of class k's weights, as on a false negative (positive) or a false
    positive, over the active features."""
    cdef Py_ssize_t q, j
    cdef double x
    for q in range(m):
        x = v[act[q]]
        j = ix[act[q]] if ix != NULL else act[q]
        update_weight(p, l, w, ln, wn, j * K + k, x, positive)


cdef int mc_class_positive(const WParams* p, const double* l, const double* w,
                           const double* ln, const double* wn, MCBuf* b, Py_ssize_t k,
                           const value_t* v, const index_t* ix, Py_ssize_t n,
                           Py_ssize_t m) noexcept nogil:
    """Class k's binary decision (1 or -1: one-vs-rest), the binary learner's rule, exact in
    exact mode (mc_winnow_row has filled b.S, b.err and, for Balanced Winnow, its P and N)."""
    cdef Py_ssize_t K = b.K, ra, rb
    cdef double S = b.S[k]
    cdef int r
    if not p.exact:
        return 1 if S >= p.theta else -1
    if p.variant == BALANCED:
        r = filtered_ge(b.S[K + k], b.S[2 * K + k], m, p.theta)
        if r != 0:
            return r
        ra = sum_bits(l, k, NULL, 0, K, v, ix, n, 0.0, b.e, b.ba)
        rb = sum_bits(ln, k, NULL, 0, K, v, ix, n, p.theta, b.e, b.bb)
        return 1 if bits_ge_bits(b.ba, ra, b.bb, rb) else -1
    if S == INFINITY or S - b.err[k] >= p.theta:
        return 1
    if S + b.err[k] < p.theta:
        return -1
    ra = mc_class_bits(l, K, k, ix, b.act, m, b.e, b.ba)
    return 1 if bits_ge_double(b.ba, ra, p.theta) else -1


cdef Py_ssize_t balanced_argmax(const double* l, const double* ln, MCBuf* b, const value_t* v,
                                const index_t* ix, Py_ssize_t n, Py_ssize_t m) noexcept nogil:
    """Balanced Winnow's exact argmax (exact mode) of S_k = P_k - N_k, the smallest index
    among ties: the float sums P_k, N_k (b.S[K + k], b.S[2 K + k]) with their error bounds
    leave the candidates, compared pairwise exactly (P_a + N_b against P_b + N_a)."""
    cdef Py_ssize_t K = b.K, k, best = 0, c = 0, ra, rb
    cdef double P, N, lo = 0.0, D
    cdef int finite = 1
    for k in range(K):
        P = b.S[K + k]
        N = b.S[2 * K + k]
        if not (P <= DBL_MAX and N <= DBL_MAX):
            finite = 0
            break
        D = P - N
        b.err[k] = (((m + 3) * EPS * P + m * DENORM) + ((m + 3) * EPS * N + m * DENORM)) + \
            3.0 * EPS * (P + N)
        if D > b.S[K + best] - b.S[2 * K + best]:
            best = k
    if finite:
        lo = (b.S[K + best] - b.S[2 * K + best]) - b.err[best]
        for k in range(K):
            c += (b.S[K + k] - b.S[2 * K + k]) + b.err[k] >= lo
        if c <= 1:
            return best
    best = -1
    for k in range(K):
        if finite and (b.S[K + k] - b.S[2 * K + k]) + b.err[k] < lo:
            continue
        if best < 0:
            best = k
            continue
        # S_k > S_best exactly: P_k + N_best > P_best + N_k
        ra = sum_bits(l, best, ln, k, K, v, ix, n, 0.0, b.e, b.ba)
        rb = sum_bits(l, k, ln, best, K, v, ix, n, 0.0, b.e, b.bb)
        if not bits_ge_bits(b.ba, ra, b.bb, rb):
            best = k
    return best


cdef int mc_winnow_row(const WParams* p, int ovr, double* l, double* w, double* ln, double* wn,
                       MCBuf* b, const value_t* v, const index_t* ix, Py_ssize_t n, int y,
                       int update, int* pred, double* out) noexcept nogil:
    """Predict one row (its class index into pred); with update, learn its label y.  Returns
    1 if the state changed, else 0; -1 when a class score of the real mode is not finite
    (nothing changed).  With update == JUDGE: the prediction, and 1 iff learning the row would
    change the state, which it leaves as it is (the speculative scans).  out (K entries, or
    NULL): decision_function's row, the class sums ("multiclass") or each class learner's
    signed_margin ("ovr")."""
    cdef Py_ssize_t K = b.K, q, m = 0, k, j, best, c
    cdef double x, S, lo
    cdef double* a
    cdef double* ap
    cdef double* an
    cdef const double* wr
    cdef const double* wnr
    cdef Py_ssize_t ra, rb
    cdef int pk, yk, changed = 0
    cdef int exact = p.exact and p.variant != BALANCED
    cdef int exact_balanced = p.exact and p.variant == BALANCED
    for q in range(n):
        if v[q] != 0:
            b.act[m] = q
            m += 1
    memset(b.acc, 0, (12 if exact_balanced else 4) * K * sizeof(double))
    for q in range(m):
        x = v[b.act[q]]
        j = ix[b.act[q]] if ix != NULL else b.act[q]
        a = b.acc + (q & 3) * K
        wr = w + j * K
        if p.variant == BALANCED:
            wnr = wn + j * K
            for k in range(K):
                a[k] += x * (wr[k] - wnr[k])
            if exact_balanced:
                # the one-sided sums of the exact decisions (any order)
                ap = b.acc + (4 + (q & 3)) * K
                an = b.acc + (8 + (q & 3)) * K
                for k in range(K):
                    ap[k] += wr[k]
                    an[k] += wnr[k]
        elif exact:
            for k in range(K):
                a[k] += wr[k]
        else:
            for k in range(K):
                a[k] += x * wr[k]
    for k in range(K):
        b.S[k] = (b.acc[k] + b.acc[K + k]) + (b.acc[2 * K + k] + b.acc[3 * K + k])
    if exact_balanced:
        for c in range(1, 3):
            for k in range(K):
                a = b.acc + 4 * c * K
                b.S[c * K + k] = (a[k] + a[K + k]) + (a[2 * K + k] + a[3 * K + k])
    elif not p.exact:
        for k in range(K):
            if not decidable(p, b.S[k]):
                return -1
    best = 0
    for k in range(1, K):
        if b.S[k] > b.S[best]:
            best = k
    if exact_balanced:
        best = balanced_argmax(l, ln, b, v, ix, n, m)
    if exact:
        for k in range(K):
            b.err[k] = (m + 3) * 2.220446049250313e-16 * b.S[k] + m * 4.9406564584124654e-324
        # the classes that may be the exact argmax: those whose interval reaches the best's
        lo = b.S[best] - b.err[best]
        c = 0
        for k in range(K):
            if b.S[best] == INFINITY:
                c += b.S[k] == INFINITY
            else:
                c += b.S[k] + b.err[k] >= lo
        if c > 1:
            best = -1
            ra = 0
            for k in range(K):
                if b.S[best if best >= 0 else k] == INFINITY and b.S[k] != INFINITY:
                    continue
                if b.S[k] != INFINITY and b.S[k] + b.err[k] < lo:
                    continue
                if best < 0:
                    best = k
                    ra = mc_class_bits(l, K, k, ix, b.act, m, b.e, b.ba)
                    continue
                rb = mc_class_bits(l, K, k, ix, b.act, m, b.e, b.bb)
                if not bits_ge_bits(b.ba, ra, b.bb, rb):      # strictly larger: a new best
                    best = k
                    ra = rb
                    b.ba, b.bb = b.bb, b.ba
    pred[0] = <int>best
    if out != NULL:
        for k in range(K):
            out[k] = signed_margin(b.S[k], p.theta, mc_class_positive(p, l, w, ln, wn, b, k, v,
                                                                      ix, n, m)) \
                if ovr else b.S[k]
    if not update:
        return 0
    if not ovr:
        if best == y:
            return 0
        if update == JUDGE:
            return 1
        mc_update_class(p, l, w, ln, wn, K, y, 1, v, ix, b.act, m)
        mc_update_class(p, l, w, ln, wn, K, best, 0, v, ix, b.act, m)
        return 1
    for k in range(K):
        # learner k's binary decision (the binary learner's rule, exact in exact mode)
        pk = mc_class_positive(p, l, w, ln, wn, b, k, v, ix, n, m)
        yk = 1 if k == y else -1
        if pk != yk:
            if update == JUDGE:
                return 1
            mc_update_class(p, l, w, ln, wn, K, k, yk > 0, v, ix, b.act, m)
            changed = 1
    return changed


cdef struct MCJob:
    # One pass of a Winnow learner with K >= 3 classes, for mb_spec_pass (as WJob): the state
    # and parameters, the rows, the labels and outputs, an MCBuf per slot and the counters.
    const WParams* p
    int ovr
    Py_ssize_t K
    double* l
    double* w
    double* ln
    double* wn
    Rows rows
    Py_ssize_t d
    int boolean
    double limit
    int check                   # what to check in each row as it is read (CHECK_*)
    const int* y
    int* pred
    unsigned char* upd
    double* scores
    int update
    MCBuf* bufs                 # per slot (slot 0: the run's too)
    long long mistakes          # during the pass
    long long changes           # rows that changed the state, during the pass
    int err                     # the ROW_* code of the failing row


cdef Py_ssize_t mc_run(MCJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                       const value_t* val, const index_t* ix) noexcept nogil:
    """The sequential pass over rows lo..hi-1 (predict, learn, count): the number of rows
    that were mistakes or changed the state, or -1 (j.err, *bad) at a bad row."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef MCBuf* b = &j.bufs[0]
    cdef Py_ssize_t i, n, k, K = j.K
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr = 0, r, yi, code
    cdef long long mistakes = 0, changes = 0, touched = 0
    # every setting read once into a local: the stores to the outputs would otherwise make
    # the compiler read them through j again after every row
    cdef const WParams* p = j.p
    cdef int ovr = j.ovr, boolean = j.boolean, check = j.check, update = j.update
    cdef double* l = j.l
    cdef double* w = j.w
    cdef double* ln = j.ln
    cdef double* wn = j.wn
    cdef Py_ssize_t row_len = j.rows.row_len, d = j.d
    cdef double limit = j.limit
    cdef const int* y = j.y
    cdef int* pred = j.pred
    cdef unsigned char* upd = j.upd
    cdef double* scores = j.scores
    for i in range(lo, hi):
        code = next_row(val, ix, indptr, row_len, i, d, boolean, limit, check, &v, &xi, &n, NULL)
        if code != ROW_OK:
            j.err = code
            bad[0] = i
            return -1
        yi = y[i] if y != NULL else 0
        r = mc_winnow_row(p, ovr, l, w, ln, wn, b, v, xi, n, yi, update, &pr,
                          scores + i * K if scores != NULL else NULL)
        if r < 0:
            j.err = ROW_NONFINITE
            bad[0] = i
            return -1
        pred[i] = pr
        if update:
            mistakes += pr != yi
            changes += r
            touched += r != 0 or pr != yi
            if upd != NULL:
                upd[i] = <unsigned char>r
    j.mistakes += mistakes
    j.changes += changes
    return touched


cdef Py_ssize_t mc_scan(MCJob* j, int slot, Py_ssize_t lo, Py_ssize_t hi,
                        const Py_ssize_t* stop, const value_t* val,
                        const index_t* ix) noexcept nogil:
    """Judge rows lo..hi-1 with the current state, which it only reads (mb_spec_pass): the
    first row that is bad, a mistake or would change the state, or hi; the outputs (pred,
    upd = 0) of the rows before it.  The same checks and mc_winnow_row as mc_run."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef MCBuf* b = &j.bufs[slot]
    cdef Py_ssize_t i, n
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr = 0, yi
    for i in range(lo, hi):
        if (i & 15) == 0 and volatile_load(stop) < lo:
            return hi                   # an earlier slice found a row: this one cannot matter
        if next_row(val, ix, indptr, j.rows.row_len, i, j.d, j.boolean, j.limit, j.check, &v, &xi,
                    &n, NULL) != ROW_OK:
            return i
        yi = j.y[i]
        if mc_winnow_row(j.p, j.ovr, j.l, j.w, j.ln, j.wn, b, v, xi, n, yi, JUDGE, &pr,
                         NULL) or pr != yi:
            return i
        j.pred[i] = pr
        if j.upd != NULL:
            j.upd[i] = 0
    return hi


# (mc_run_cb and mc_scan_cb: in _dispatch_multiplicative_mc.pxi, included above)


cdef void mc_touch_cb(void* ctx, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Read CSR rows lo..hi-1 into the caches (mb_spec_pass: ahead of the sequential pass)."""
    cdef MCJob* j = <MCJob*>ctx
    touch_rows(j.rows.val, value_bytes(j.rows.vt), j.rows.ix, index_bytes(j.rows.it),
               j.rows.indptr, 0, lo, hi)


cdef int mc_winnow_pass_impl(const WParams* p, int ovr, Py_ssize_t K, double* l, double* w,
                             double* ln, double* wn, const Rows* rows, Py_ssize_t max_row,
                             Py_ssize_t d, int boolean, double limit, int check,
                             const int* y, int* pred, unsigned char* upd, long long* counts,
                             int update, double* scores, int threads,
                             Py_ssize_t* bad_row) noexcept nogil:
    """The whole pass for K >= 3 classes; each row validated just before it is used.  On a
    bad row: its code and index (the counts are not written; the caller restores the
    weights).  A learning pass (update, no scores) runs on up to `threads` threads
    (mb_spec_pass: the same results for any number)."""
    cdef MCJob j
    cdef const void* indptr = rows.indptr
    cdef Py_ssize_t n_rows = rows.n_rows
    cdef MCBuf b0
    cdef mb_touch_fn touch = NULL
    cdef Py_ssize_t changed, s, T
    cdef int code = ROW_OK
    if not update or scores != NULL or y == NULL:
        threads = 1
    T = spec_slots(threads)
    j.bufs = &b0
    if T > 1:
        j.bufs = <MCBuf*>malloc(T * sizeof(MCBuf))
        if j.bufs == NULL:
            j.bufs = &b0
            T = 1
    for s in range(T):
        if not mc_buf_init(&j.bufs[s], K, max_row):
            if s == 0:
                code = NO_MEMORY
            threads = 1                 # (no room for the scans' buffers: one thread)
    if code == ROW_OK:
        j.p = p
        j.ovr = ovr
        j.K = K
        j.l = l
        j.w = w
        j.ln = ln
        j.wn = wn
        j.rows = rows[0]
        j.d = d
        j.boolean = boolean
        j.limit = limit
        j.check = check if indptr != NULL else check & CHECK_VALUES
        j.y = y
        j.pred = pred
        j.upd = upd
        j.scores = scores
        j.update = update
        j.mistakes = 0
        j.changes = 0
        j.err = ROW_OK
        if indptr != NULL:
            touch = mc_touch_cb
        changed = mb_spec_pass(threads, n_rows, &j, mc_scan_cb, mc_run_cb, touch, bad_row)
        if changed < 0:
            code = j.err
        elif update:
            counts[0] += n_rows
            counts[1] += j.mistakes
            counts[2] += j.changes
    for s in range(T):
        mc_buf_free(&j.bufs[s])
    if T > 1:
        free(j.bufs)
    return code


cdef int mc_sizes(Py_ssize_t K, Py_ssize_t d, Py_ssize_t nl, Py_ssize_t nw, Py_ssize_t nln,
                  Py_ssize_t nwn, int variant) except -1:
    if K < 3 or nl != d * K or nw != d * K or \
            nln != (d * K if variant == BALANCED else 0) or nwn != nln:
        raise ValueError("winnow multi-class pass: the state arrays do not match d and K")
    return 0


def mc_winnow_pass(int variant, bint exact, double la, double lb, double theta, Py_ssize_t K,
                   bint ovr, double[::1] l, double[::1] w, double[::1] ln, double[::1] wn, X,
                   Py_ssize_t n_cols, bint boolean, double limit, const int[::1] y,
                   int[::1] pred, unsigned char[::1] upd, long long[::1] counts, bint update,
                   double[:, ::1] scores=None, int threads=1, bint check=True,
                   bint check_values=True):
    """One pass over the rows of X (as multiplicative.winnow_pass takes it) with K >= 3 classes
    (update=False: predict only; scores: the K class sums of every row); returns (status,
    bad_row).  A learning pass without scores runs on up to `threads` threads, with the same
    results (``check``, ``check_values``: as winnow_pass)."""
    cdef WParams p = make_params(variant, exact, la, lb, theta)
    cdef double* lnp = &ln[0] if ln.shape[0] > 0 else NULL
    cdef double* wnp = &wn[0] if wn.shape[0] > 0 else NULL
    cdef const int* yp = &y[0] if y is not None else NULL
    cdef unsigned char* up = &upd[0] if upd is not None else NULL
    cdef double* sp = &scores[0, 0] if scores is not None else NULL
    cdef int status
    cdef Py_ssize_t bad = -1
    cdef Rows rows
    cdef Py_ssize_t n = rows_of(X, &rows, WINNOW_CODES, None)
    cdef Py_ssize_t max_row = longest_row(&rows)
    cdef bint csr = rows.indptr != NULL
    mc_sizes(K, n_cols, l.shape[0], w.shape[0], ln.shape[0], wn.shape[0], variant)
    if (not csr and rows.row_len != n_cols) or pred.shape[0] != n or \
            (update and (y is None or y.shape[0] != n)) or \
            (upd is not None and upd.shape[0] != n) or \
            (scores is not None and (scores.shape[0] != n or scores.shape[1] != K)):
        raise ValueError("mc_winnow_pass: the arrays do not match")
    with nogil:
        status = mc_winnow_pass_impl(&p, ovr, K, &l[0], &w[0], lnp, wnp, &rows, max_row, n_cols,
                                     boolean, limit,
                                     (CHECK_INDICES if check and csr else 0) |
                                     (CHECK_VALUES if check_values else 0), yp, &pred[0], up,
                                     &counts[0], update, sp, threads, &bad)
    if status == NO_MEMORY:
        raise MemoryError("Winnow: no memory for the pass's buffers")
    return status, bad
