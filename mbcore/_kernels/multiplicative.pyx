# cython: language_level=3
"""Compiled kernels of the multiplicative family's binary learners (Winnow2, elimination Winnow,
Winnow*, Balanced Winnow), mirroring ``mbref.multiplicative`` bit for bit: the pass (with its
all-or-nothing undo log and the values-free pass over CSR rows of 1s), and the weight cache.
The K-class passes are ``multiplicative_mc``'s; what both share (the parameters, the row checks,
one weight's update, the helpers of the exact decisions) is ``_winnow.pxd``'s.

Weights are stored as base-2 logarithms ``l`` with a cache ``w = 2**l`` (float64; 0 or inf when
out of range) used for the sums.  In exact mode (Boolean features, power-of-two factors) every
``l`` is an integer and the prediction ``sum 2**l >= theta`` is decided exactly: a float64 sum with
a rigorous error bound settles almost every row; a row whose sum is within that bound of theta is
decided by exact binary addition of its powers of two.

A learning pass runs on several threads through the speculative block passes of _spec.h
(``threads``; the per-row judge, w_scan, uses the arithmetic of the sequential pass): its
results are the same, bit for bit, for any number of threads.
"""

from libc.math cimport fabs, INFINITY
from libc.stdlib cimport calloc, malloc, free, realloc
cimport cython

from ._exact cimport bits_ge_bits, bits_ge_double, carry_bits, term
from ._rows cimport Rows, rows_of, longest_row, WINNOW_CODES
from ._spec cimport mb_spec_pass, mb_touch_fn, spec_tuning_impl, touch_rows, volatile_load
from ._winnow cimport (value_t, index_t, BALANCED, WParams, make_params, ROW_OK, NO_MEMORY,
                       ROW_NONFINITE, CHECK_INDICES, CHECK_VALUES, EPS, DENORM, sum_bits,
                       filtered_ge, decidable, signed_margin, update_weight, spec_slots,
                       next_row)


# ---------------------------------------------------------------------------------------------
# Test and benchmark hooks: spec_tuning (this module's block sizes: run-time state, not
# thread-safe, set it before the passes; the K-class passes have their own, in
# mbcore._kernels.multiplicative_mc) and exact_sum_ge (the exact comparison alone).  Neither
# changes a result.
# ---------------------------------------------------------------------------------------------

def spec_tuning(seq_gap=None, min_rows=None, max_rows=None, stretch=None):
    """This module's block sizes (see _spec.pxd): the old (seq_gap, min_rows, max_rows,
    stretch); the arguments that are not None replace them."""
    return spec_tuning_impl(seq_gap, min_rows, max_rows, stretch)


def exact_sum_ge(long long[::1] exps, double theta):
    """sum_k 2**exps[k] >= theta, exactly (for tests of the exact comparison)."""
    cdef Py_ssize_t m = exps.shape[0]
    cdef long long* bits = <long long*>malloc((m + 65) * sizeof(long long))
    cdef long long dummy = 0
    cdef int r
    if bits == NULL:
        raise MemoryError()
    r = exact_ge(&exps[0] if m > 0 else &dummy, m, bits, theta)
    free(bits)
    return bool(r)



# ---------------------------------------------------------------------------------------------
# One row of a binary learner: its decision (exact in exact mode) and its update
# ---------------------------------------------------------------------------------------------

cdef enum:
    NOT_ONES_STRIDE = 16    # ints between two slots' flags (a cache line: no false sharing)

cdef enum:
    SCORE_NONFINITE = 3     # winnow_row's return for a score that is not finite (real mode)


cdef int exact_ge(long long* e, Py_ssize_t m, long long* bits, double theta) noexcept nogil:
    """sum_k 2**e[k] >= theta, exactly.  e is sorted in place; bits needs m + 64 entries."""
    return bits_ge_double(bits, carry_bits(e, m, bits), theta)

cdef int balanced_decide(const WParams* p, const double* l, const double* w, const double* ln,
                         const double* wn, Py_ssize_t K, Py_ssize_t k, const value_t* v,
                         const index_t* ix, Py_ssize_t n, long long* e, long long* ba,
                         long long* bb) noexcept nogil:
    """Balanced Winnow's exact decision (1 or -1) for class k of K (K = 1: the binary learner):
    sum 2**l+ - sum 2**l- >= theta over the active features.  Float64 sums of both sides with
    rigorous error bounds settle almost every row; else the exact binary sums of 2**l+ and of
    2**l- plus theta's bits are compared."""
    cdef double P0 = 0.0, P1 = 0.0, N0 = 0.0, N1 = 0.0
    cdef Py_ssize_t q, j, m = 0, ra, rb
    cdef int r
    for q in range(n):
        if v[q] == 0:
            continue
        j = (ix[q] if ix != NULL else q) * K + k
        if m & 1:
            P1 += w[j]
            N1 += wn[j]
        else:
            P0 += w[j]
            N0 += wn[j]
        m += 1
    r = filtered_ge(P0 + P1, N0 + N1, m, p.theta)
    if r != 0:
        return r
    ra = sum_bits(l, k, NULL, 0, K, v, ix, n, 0.0, e, ba)
    rb = sum_bits(ln, k, NULL, 0, K, v, ix, n, p.theta, e, bb)
    return 1 if bits_ge_bits(ba, ra, bb, rb) else -1


cdef inline void add4(double* s, Py_ssize_t k, double t) noexcept nogil:
    s[k & 3] += t

cdef struct Undo:
    long long* j
    double* old
    Py_ssize_t size
    Py_ssize_t cap


cdef int undo_push(Undo* u, long long j, const double* l, const double* w, const double* ln,
                   const double* wn) noexcept nogil:
    """Remember feature j's state before it changes (for the all-or-nothing rollback)."""
    cdef Py_ssize_t cap
    cdef long long* nj
    cdef double* no
    if u.size == u.cap:
        cap = 64 if u.cap == 0 else 2 * u.cap
        nj = <long long*>realloc(u.j, cap * sizeof(long long))
        if nj == NULL:
            return -1
        u.j = nj
        no = <double*>realloc(u.old, 4 * cap * sizeof(double))
        if no == NULL:
            return -1
        u.old = no
        u.cap = cap
    u.j[u.size] = j
    u.old[4 * u.size] = l[j]
    u.old[4 * u.size + 1] = w[j]
    u.old[4 * u.size + 2] = ln[j] if ln != NULL else 0.0
    u.old[4 * u.size + 3] = wn[j] if wn != NULL else 0.0
    u.size += 1
    return 0


cdef void undo_apply(Undo* u, double* l, double* w, double* ln, double* wn) noexcept nogil:
    cdef Py_ssize_t k
    cdef long long j
    for k in range(u.size - 1, -1, -1):
        j = u.j[k]
        l[j] = u.old[4 * k]
        w[j] = u.old[4 * k + 1]
        if ln != NULL:
            ln[j] = u.old[4 * k + 2]
            wn[j] = u.old[4 * k + 3]


cdef inline double exact_sum(const double* w, const value_t* v, const index_t* ix,
                             Py_ssize_t n) noexcept nogil:
    """sum of w over the active features, in any order (the exact predicate does not depend
    on it): eight accumulators by stored position (CSR; four for dense rows), no branch per
    element."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef double s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0
    cdef Py_ssize_t k, n4 = n - (n % 4), n8 = n - (n % 8)
    if ix != NULL:
        for k in range(0, n8, 8):
            s0 += w[ix[k]] if v[k] != 0 else 0.0
            s1 += w[ix[k + 1]] if v[k + 1] != 0 else 0.0
            s2 += w[ix[k + 2]] if v[k + 2] != 0 else 0.0
            s3 += w[ix[k + 3]] if v[k + 3] != 0 else 0.0
            s4 += w[ix[k + 4]] if v[k + 4] != 0 else 0.0
            s5 += w[ix[k + 5]] if v[k + 5] != 0 else 0.0
            s6 += w[ix[k + 6]] if v[k + 6] != 0 else 0.0
            s7 += w[ix[k + 7]] if v[k + 7] != 0 else 0.0
        for k in range(n8, n):
            s0 += w[ix[k]] if v[k] != 0 else 0.0
        return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))
    else:
        for k in range(0, n4, 4):
            s0 += w[k] if v[k] != 0 else 0.0
            s1 += w[k + 1] if v[k + 1] != 0 else 0.0
            s2 += w[k + 2] if v[k + 2] != 0 else 0.0
            s3 += w[k + 3] if v[k + 3] != 0 else 0.0
        for k in range(n4, n):
            s0 += w[k] if v[k] != 0 else 0.0
    return (s0 + s1) + (s2 + s3)


cdef inline double exact_sum_ones(const double* w, const index_t* ix,
                                  Py_ssize_t n) noexcept nogil:
    """exact_sum of a CSR row whose values are all 1: the same partial sums in the same order
    (so the same S, bit for bit), without reading the values."""
    cdef double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0
    cdef double s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0
    cdef Py_ssize_t k, n8 = n - (n % 8)
    for k in range(0, n8, 8):
        s0 += w[ix[k]]
        s1 += w[ix[k + 1]]
        s2 += w[ix[k + 2]]
        s3 += w[ix[k + 3]]
        s4 += w[ix[k + 4]]
        s5 += w[ix[k + 5]]
        s6 += w[ix[k + 6]]
        s7 += w[ix[k + 7]]
    for k in range(n8, n):
        s0 += w[ix[k]]
    return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7))


cdef int winnow_row(const WParams* p, double* l, double* w, double* ln, double* wn,
                    const value_t* v, const index_t* ix, Py_ssize_t n, int y, long long* e,
                    long long* bits, long long* bits2, int update, double* score,
                    Undo* undo) noexcept nogil:
    """Predict one row (1 or -1); with update, apply the mistake-driven update; with score,
    write decision_function's value (signed_margin).  Returns 0 when out of memory for the
    undo log, SCORE_NONFINITE when the real mode's score is not finite (nothing changed).
    e needs 2 n + 53 entries, bits and bits2 2 n + 117 each."""
    cdef double S = 0.0, x
    cdef Py_ssize_t k, j, m = 0
    cdef int pr
    if p.exact and p.variant == BALANCED:
        pr = balanced_decide(p, l, w, ln, wn, 1, 0, v, ix, n, e, bits, bits2)
        if score != NULL:
            S = ordered_sum(p, w, wn, v, ix, n, &m)
    else:
        if p.exact and score == NULL:
            # Only the decision is needed: it is exact, so the summation order is free.
            S = exact_sum(w, v, ix, n)
            m = n
        else:
            S = ordered_sum(p, w, wn, v, ix, n, &m)
        if not p.exact and not decidable(p, S):
            return SCORE_NONFINITE
        pr = decide(p, l, v, ix, n, e, bits, S, m)
    if score != NULL:
        score[0] = signed_margin(S, p.theta, pr)
    if not update or pr == y:
        return pr
    for k in range(n):
        x = v[k]
        if x == 0.0:
            continue
        j = ix[k] if ix != NULL else k
        if undo != NULL and undo_push(undo, j, l, w, ln, wn):
            return 0
        update_weight(p, l, w, ln, wn, j, x, y > 0)
    return pr


cdef inline double ordered_sum(const WParams* p, const double* w, const double* wn,
                               const value_t* v, const index_t* ix, Py_ssize_t n,
                               Py_ssize_t* m_out) noexcept nogil:
    """The score in the contract's order: term k of the row's active features into s[k % 4]."""
    cdef double s[4]
    cdef double x
    cdef Py_ssize_t k, j, m = 0
    s[0] = 0.0
    s[1] = 0.0
    s[2] = 0.0
    s[3] = 0.0
    for k in range(n):
        x = v[k]
        if x == 0.0:
            continue
        j = ix[k] if ix != NULL else k
        if p.variant == BALANCED:
            add4(s, m, x * (w[j] - wn[j]))
        elif p.exact:
            add4(s, m, w[j])
        else:
            add4(s, m, x * w[j])
        m += 1
    m_out[0] = m
    return (s[0] + s[1]) + (s[2] + s[3])

cdef int decide(const WParams* p, const double* l, const value_t* v, const index_t* ix,
                Py_ssize_t n, long long* e, long long* bits, double S,
                Py_ssize_t m) noexcept nogil:
    """The decision (1 or -1) of Winnow, Winnow* and elimination Winnow from the float64 sum S
    of the row's m active weights: exact in exact mode (S with its error bound, else the exact
    binary sum), S >= theta in real mode."""
    cdef double err
    cdef Py_ssize_t k, j
    if not p.exact:
        return 1 if S >= p.theta else -1
    if S == INFINITY:
        return 1
    err = (m + 3) * EPS * S + m * DENORM
    if S - err >= p.theta:
        return 1
    if S + err < p.theta:
        return -1
    m = 0
    for k in range(n):
        if v[k] != 0.0:
            j = ix[k] if ix != NULL else k
            if l[j] != -INFINITY:
                e[m] = <long long>l[j]
                m += 1
    return 1 if exact_ge(e, m, bits, p.theta) else -1


cdef struct WJob:
    # One pass of a binary Winnow learner, for mb_spec_pass: the state and parameters, the rows
    # (their Rows view; vt: 0 uint8, 1 float32, 2 float64), the labels and outputs, the per-slot
    # scratch of winnow_row and the pass's counter.
    const WParams* p
    double* l
    double* w
    double* ln
    double* wn
    Rows rows
    Py_ssize_t d
    int boolean
    double limit
    int check                   # what to check in each row as it is read (CHECK_*)
    const signed char* y
    signed char* pred
    double* scores
    int update
    Undo* undo
    long long** e               # per slot: winnow_row's exponents (slot 0: the run's too)
    long long** bits            # per slot: its bits (two regions of `half` entries)
    Py_ssize_t half
    long long mistakes          # during the pass
    int err                     # the ROW_* code of the failing row
    int ones                    # CSR values known to be all 1: only the indices are read
    int* not_ones               # per slot (NOT_ONES_STRIDE apart): a checked row held a 0


cdef Py_ssize_t w_run(WJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                      const value_t* val, const index_t* ix) noexcept nogil:
    """The sequential pass over rows lo..hi-1 (predict, update, count): the number of rows
    that changed the state (the mistakes), or -1 (j.err, *bad) at a bad row, the state then
    half-way (winnow_pass_impl undoes it)."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef const WParams* p = j.p
    cdef Py_ssize_t i, n
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr, yi, code
    cdef long long mistakes = 0
    for i in range(lo, hi):
        code = next_row(val, ix, indptr, j.rows.row_len, i, j.d, j.boolean, j.limit, j.check, &v,
                        &xi, &n, j.not_ones)
        if code != ROW_OK:
            j.err = code
            bad[0] = i
            j.mistakes += mistakes
            return -1
        yi = j.y[i] if j.y != NULL else 0
        pr = winnow_row(p, j.l, j.w, j.ln, j.wn, v, xi, n, yi, j.e[0], j.bits[0],
                        j.bits[0] + j.half, j.update,
                        j.scores + i if j.scores != NULL else NULL, j.undo)
        if pr == 0 or pr == SCORE_NONFINITE:
            j.err = NO_MEMORY if pr == 0 else ROW_NONFINITE
            bad[0] = i
            j.mistakes += mistakes
            return -1
        if j.pred != NULL:
            j.pred[i] = pr
        mistakes += pr != yi
    j.mistakes += mistakes
    return mistakes


cdef Py_ssize_t w_scan(WJob* j, int slot, Py_ssize_t lo, Py_ssize_t hi, const Py_ssize_t* stop,
                       const value_t* val, const index_t* ix) noexcept nogil:
    """Judge rows lo..hi-1 with the current state, which it only reads (mb_spec_pass): the
    first row that is bad or a mistake (the update would change the state), or hi; the
    predictions of the rows before it.  The same checks and winnow_row as w_run."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef const WParams* p = j.p
    cdef long long* e = j.e[slot]
    cdef long long* bits = j.bits[slot]
    cdef int* not_ones = j.not_ones + NOT_ONES_STRIDE * slot if j.not_ones != NULL else NULL
    cdef Py_ssize_t i, n
    cdef const value_t* v
    cdef const index_t* xi
    cdef int pr, yi
    for i in range(lo, hi):
        if (i & 15) == 0 and volatile_load(stop) < lo:
            return hi                   # an earlier slice found a row: this one cannot matter
        if next_row(val, ix, indptr, j.rows.row_len, i, j.d, j.boolean, j.limit, j.check, &v, &xi,
                    &n, not_ones) != ROW_OK:
            return i
        yi = j.y[i]
        pr = winnow_row(p, j.l, j.w, j.ln, j.wn, v, xi, n, yi, e, bits, bits + j.half, 0,
                        NULL, NULL)
        if pr != yi:
            return i
        if j.pred != NULL:
            j.pred[i] = pr
    return hi


# mb_spec_pass's callbacks w_run_cb, w_scan_cb: w_run or w_scan for the job's dtypes (vt, it);
# with value_bytes and index_bytes, generated from _dispatch.pxi.tp by setup.py.
include "_dispatch_multiplicative.pxi"


cdef inline int filtered_ones(double theta, const double* w, const index_t* ix,
                              Py_ssize_t n) noexcept nogil:
    """decide's float filter on a row whose values are all 1 (exact mode): 1 or -1 where the
    float64 sum of the gathered weights with its error bound settles the row, 0 where only the
    exact sum can (decide then settles it, as the ordinary pass does)."""
    cdef double S = exact_sum_ones(w, ix, n), err
    if S == INFINITY:
        return 1
    err = (n + 3) * EPS * S + n * DENORM
    if S - err >= theta:
        return 1
    if S + err < theta:
        return -1
    return 0


cdef Py_ssize_t w_run_ones(WJob* j, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* bad,
                           const index_t* ix) noexcept nogil:
    """w_run over CSR rows whose values are all 1 (j.ones: a learning pass in exact mode, not
    Balanced Winnow, with nothing left to check): each row decided from its gathered weights
    by decide's float filter, the values not read; a row that changes the state, that the
    filter leaves open, or that is bad goes to w_run itself, which reads it as every pass does
    (the same results)."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef double theta = j.p.theta
    cdef Py_ssize_t i, a, n, c, total = 0
    cdef int pr
    for i in range(lo, hi):
        a = indptr[i]
        n = indptr[i + 1] - a
        if n >= 0:
            pr = filtered_ones(theta, j.w, ix + a, n)
            if pr == j.y[i]:
                if j.pred != NULL:
                    j.pred[i] = pr
                continue
        c = w_run_cb(j, i, i + 1, bad)
        if c < 0:
            return -1
        total += c
    return total


cdef Py_ssize_t w_scan_ones(WJob* j, int slot, Py_ssize_t lo, Py_ssize_t hi,
                            const Py_ssize_t* stop, const index_t* ix) noexcept nogil:
    """w_scan over CSR rows whose values are all 1 (j.ones), as w_run_ones decides them (a row
    the filter leaves open is returned, for the run to settle)."""
    cdef const index_t* indptr = <const index_t*>j.rows.indptr
    cdef double theta = j.p.theta
    cdef Py_ssize_t i, a, n
    cdef int pr
    for i in range(lo, hi):
        if (i & 15) == 0 and volatile_load(stop) < lo:
            return hi
        a = indptr[i]
        n = indptr[i + 1] - a
        if n < 0:
            return i
        pr = filtered_ones(theta, j.w, ix + a, n)
        if pr != j.y[i]:
            return i
        if j.pred != NULL:
            j.pred[i] = pr
    return hi


cdef Py_ssize_t w_run_ones_cb(void* ctx, Py_ssize_t lo, Py_ssize_t hi,
                             Py_ssize_t* bad) noexcept nogil:
    """mb_spec_pass's run callback of a pass with j.ones (CSR rows whose values are all 1:
    only the indices' dtype matters)."""
    cdef WJob* j = <WJob*>ctx
    if j.rows.it == 1:
        return w_run_ones(j, lo, hi, bad, <const long long*>j.rows.ix)
    return w_run_ones(j, lo, hi, bad, <const int*>j.rows.ix)


cdef Py_ssize_t w_scan_ones_cb(void* ctx, int slot, Py_ssize_t lo, Py_ssize_t hi,
                              const Py_ssize_t* stop) noexcept nogil:
    """mb_spec_pass's scan callback of a pass with j.ones."""
    cdef WJob* j = <WJob*>ctx
    if j.rows.it == 1:
        return w_scan_ones(j, slot, lo, hi, stop, <const long long*>j.rows.ix)
    return w_scan_ones(j, slot, lo, hi, stop, <const int*>j.rows.ix)


cdef void w_touch_cb(void* ctx, Py_ssize_t lo, Py_ssize_t hi) noexcept nogil:
    """Read CSR rows lo..hi-1 into the caches (mb_spec_pass: ahead of the sequential pass)."""
    cdef WJob* j = <WJob*>ctx
    touch_rows(j.rows.val, 0 if j.ones else value_bytes(j.rows.vt), j.rows.ix,
               index_bytes(j.rows.it), j.rows.indptr, 0, lo, hi)


cdef int winnow_pass_impl(const WParams* p, double* l, double* w, double* ln, double* wn,
                          const Rows* rows, Py_ssize_t max_row, Py_ssize_t d,
                          int boolean, double limit, int check, const signed char* y,
                          signed char* pred, long long* counts, int update, double* scores,
                          int threads, Py_ssize_t* bad_row, int ones,
                          int* all_ones) noexcept nogil:
    """The whole pass; validates each row just before it is used.  On a bad row every weight
    changed in this call is restored (all or nothing) and the row and a ROW_* code returned.
    A learning pass (update, no scores) runs on up to `threads` threads (mb_spec_pass: the same
    results for any number).

    CSR rows of Boolean values: `ones` says a complete pass found every stored value to be 1;
    a learning pass in exact mode (not Balanced Winnow) with nothing left to check then reads
    the column indices alone (w_run_ones, w_scan_ones; elsewhere `ones` is ignored).
    *all_ones is set to whether this pass checked every value and found them all to be 1."""
    cdef WJob j
    cdef const void* indptr = rows.indptr
    cdef Py_ssize_t n_rows = rows.n_rows
    cdef Undo undo
    cdef mb_touch_fn touch = NULL
    cdef Py_ssize_t changed, s, T
    cdef long long* e0[1]
    cdef long long* b0[1]
    cdef int code = ROW_OK
    cdef int* not_ones = NULL
    all_ones[0] = 0
    # the values-free pass: a learning pass over CSR rows with nothing left to check, in exact
    # mode (not Balanced Winnow, whose decision reads two weight vectors)
    if indptr == NULL or not boolean or check != 0 or not update or y == NULL or \
            scores != NULL or not p.exact or p.variant == BALANCED:
        ones = 0
    undo.j = NULL
    undo.old = NULL
    undo.size = 0
    undo.cap = 0
    if not update or scores != NULL or y == NULL:
        threads = 1
    T = spec_slots(threads)
    j.e = e0
    j.bits = b0
    if T > 1:
        j.e = <long long**>malloc(T * sizeof(long long*))
        j.bits = <long long**>malloc(T * sizeof(long long*))
        if j.e == NULL or j.bits == NULL:
            free(j.e)
            free(j.bits)
            j.e = e0
            j.bits = b0
            T = 1
            threads = 1                 # (the scans' slots need their scratch)
    # winnow_row's scratch: e of 2 max_row + 53 exponents, two regions of bits
    j.half = 2 * max_row + 117
    for s in range(T):
        j.e[s] = <long long*>malloc((2 * max_row + 53) * sizeof(long long))
        j.bits[s] = <long long*>malloc(2 * j.half * sizeof(long long))
    if j.e[0] == NULL or j.bits[0] == NULL:
        code = NO_MEMORY
    for s in range(1, T):
        if j.e[s] == NULL or j.bits[s] == NULL:
            threads = 1                 # (no room for the scans' scratch: one thread)
    if code == ROW_OK:
        j.p = p
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
        j.scores = scores
        j.update = update
        j.undo = &undo if update else NULL
        j.mistakes = 0
        j.err = ROW_OK
        j.ones = ones
        # whether a checked row held a 0, per slot: only where a pass of Boolean CSR rows
        # checks the values (without room for the flags, *all_ones stays 0)
        if indptr != NULL and boolean and j.check & CHECK_VALUES:
            not_ones = <int*>calloc(T * NOT_ONES_STRIDE, sizeof(int))
        j.not_ones = not_ones
        # (CSR rows, whose sums gather, gain from being read ahead; dense rows stream already)
        if indptr != NULL:
            touch = w_touch_cb
        if ones:
            changed = mb_spec_pass(threads, n_rows, &j, w_scan_ones_cb, w_run_ones_cb, touch,
                                   bad_row)
        else:
            changed = mb_spec_pass(threads, n_rows, &j, w_scan_cb, w_run_cb, touch, bad_row)
        if changed < 0:
            code = j.err
            if update:
                undo_apply(&undo, l, w, ln, wn)
        else:
            if update:
                counts[0] += n_rows
                counts[1] += j.mistakes
                counts[2] += j.mistakes
            if j.not_ones != NULL:
                all_ones[0] = 1
                for s in range(T):
                    if not_ones[s * NOT_ONES_STRIDE]:
                        all_ones[0] = 0
    for s in range(T):
        free(j.e[s])
        free(j.bits[s])
    if T > 1:
        free(j.e)
        free(j.bits)
    free(undo.j)
    free(undo.old)
    free(not_ones)
    return code

def winnow_pass(int variant, bint exact, double la, double lb, double theta,
                double[::1] l, double[::1] w, double[::1] ln, double[::1] wn, X,
                Py_ssize_t n_cols, bint boolean, double limit, const signed char[::1] y,
                signed char[::1] pred, long long[::1] counts, bint update,
                double[::1] scores=None, int threads=1, bint check=True,
                bint check_values=True, bint ones=False):
    """One pass over the rows of X (update=True: the online protocol; False: predict only): a
    C-contiguous 2-D uint8, float32 or float64 array of n_cols columns, or CSR rows (data,
    indices, indptr) of such values whose indptr was checked.  A learning pass without scores
    runs on up to `threads` threads, with the same results.  With ``check`` each CSR row's
    column indices are checked as the pass reads it (codes 1 and 2), with ``check_values``
    its values (code 3); what is not checked must have been checked before.  Boolean CSR
    values: ``ones`` (without ``check_values``) says an earlier complete pass found every
    stored value to be 1: the values are then not read.  Returns (code, row, all_ones): the
    ROW_* code (0: the pass went through) and the bad row, and whether the pass checked every
    value and found them all to be 1 (Boolean CSR)."""
    cdef WParams p = make_params(variant, exact, la, lb, theta)
    cdef double* lnp = &ln[0] if ln.shape[0] > 0 else NULL
    cdef double* wnp = &wn[0] if wn.shape[0] > 0 else NULL
    cdef const signed char* yp = &y[0] if y is not None else NULL
    cdef signed char* pp = &pred[0] if pred is not None else NULL
    cdef double* sp = &scores[0] if scores is not None else NULL
    cdef int status, all_ones = 0
    cdef Py_ssize_t bad = -1
    cdef Rows rows
    cdef Py_ssize_t n = rows_of(X, &rows, WINNOW_CODES, None)
    cdef Py_ssize_t max_row = longest_row(&rows)
    cdef bint csr = rows.indptr != NULL
    if (not csr and rows.row_len != n_cols) or (update and (y is None or y.shape[0] != n)) or \
            (pred is not None and pred.shape[0] != n) or \
            (scores is not None and scores.shape[0] != n) or l.shape[0] != w.shape[0]:
        raise ValueError("winnow_pass: the arrays do not match")
    with nogil:
        status = winnow_pass_impl(&p, &l[0], &w[0], lnp, wnp, &rows, max_row, n_cols, boolean,
                                  limit, (CHECK_INDICES if check and csr else 0) |
                                  (CHECK_VALUES if check_values else 0),
                                  yp, pp, &counts[0], update, sp, threads, &bad,
                                  ones and csr, &all_ones)
    if status == NO_MEMORY:
        raise MemoryError("Winnow: no memory for the pass's buffers")
    return status, bad, bool(all_ones)


def terms(const double[::1] l, double[::1] out):
    """out[j] = 2**l[j] as float64 (the weight cache)."""
    cdef Py_ssize_t j
    with nogil:
        for j in range(l.shape[0]):
            out[j] = term(l[j])


def check_values(const value_t[::1] data, bint boolean, double limit):
    """Index of the first value that is not 0/1 (boolean) or not finite with |x| <= limit,
    else -1."""
    cdef Py_ssize_t k, n = data.shape[0], bad = -1
    cdef const value_t* p = &data[0] if n > 0 else NULL
    cdef int flag = 0
    cdef double x, acc
    if n == 0:
        return -1
    with nogil:
        # Flat loops without branches (the compiler vectorises them); locate only on failure.
        if boolean:
            if value_t is cython.uchar:
                for k in range(n):
                    flag |= p[k] > 1
            else:
                # x * (x - 1) is 0 exactly for 0 and 1, and NaN or inf propagate: no compares
                acc = 0.0
                for k in range(n):
                    acc += fabs(p[k] * (p[k] - 1.0))
                flag = acc != 0.0
        else:
            for k in range(n):
                flag |= not (-limit <= p[k] <= limit)
        if flag:
            for k in range(n):
                x = p[k]
                if (boolean and x != 0.0 and x != 1.0) or \
                        (not boolean and not (-limit <= x <= limit)):
                    bad = k
                    break
    return bad
